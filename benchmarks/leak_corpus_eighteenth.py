"""Labelled critiques over MATH-500 in the register of math Q&A sites (the `eighteenth` corpus).

Method. Each critique is a reply posted on a math Q&A site (a Math StackExchange answer or comment, an AoPS forum
post, a Quora-style answer, a Brilliant-style discussion reply) to someone who posted a failed attempt at a MATH-500
problem. Replies are written in the MathJax these sites use (`$...$`, `$$...$$`, `\\dfrac`, `\\boxed`,
`\\color{red}`, `\\cancel`, `\\underbrace`, `\\tag`, `aligned`, `\\therefore`, `\\implies`), with spoiler blocks
(`>!`), block quotes of the asker's work, "@user" comments, "+1", "Hint:", "Edit:" and footnotes. Every frame quotes
the asker's wrong value (a mutation of the reference answer of its own shape: a bumped integer, a flipped sign, a
swapped pair, a flipped interval bracket, another choice letter, another word offered by the problem), a number of
the problem and an intermediate number of the reference solution. Each answer is parsed once (fractions for
rationals, sympy for radicals, multiples of pi, complex numbers, expressions and equations) and rendered by a
renderer of its own type in several notations site users write; every value is computed, none is typed.

Families. `rendering`: the reply states the answer in one of the type's notations (`style`); its `parts` are the
minimal substrings holding the value. `approximation`: the reply gives a decimal approximation (3 to 6 significant
digits) of an irrational or non-terminating answer. `clean`: the same frames with the answer sentence replaced by a
hint that stops short. `holds_answer(text, model)` looks for the answer in every notation rendered here (after
normalising MathJax spacing) and for its value (exact, via a small LaTeX evaluator, and as a rounded decimal); a
clean reply it flags is redrawn, and a leak whose `context` it flags is redrawn too.

Independence. Written without reading the guard: nothing under `trl_mulferl/`, no guard benchmark, guard tests,
docs, README, CHANGELOG or other corpus modules were opened. From `benchmarks/leak_corpus.py` only the source of
`load_problems`, `ANSWER_TYPES`, `answer_type` (with its helpers `_strip` and `_top_level_split`), `occurrences`
and `stated` was read (plus, incidentally, the first and last lines of its module docstring, which name the guard
function and the development/held-out split); only those are imported. `tests/conftest.py` was read for the
`shared_data` fixture. MATH-500's rows were read.
"""

import cmath
import math
import random
import re
from fractions import Fraction
from functools import cache

import sympy
from leak_corpus import answer_type, occurrences


SEED = 0
LEAKS_PER_PROBLEM = 6
CLEANS_PER_PROBLEM = 6
REDRAWS = 40

# --- reading LaTeX ---------------------------------------------------------------------------------------------

FUNCTIONS = {"sqrt", "cot", "sin", "cos", "tan", "log"}
CONSTANTS = {"pi", "i"}
TOKEN = re.compile(r"\d+\.?\d*|\.\d+|[A-Za-z]+|\*\*|[-+*/()]|\s+")


def _braced_shorthands(latex: str) -> str:
    latex = re.sub(r"\\[dt]frac", r"\\frac", latex)
    latex = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", latex)
    latex = re.sub(r"\\frac\s*(\{[^{}]*\})\s*(\d)", r"\\frac\1{\2}", latex)
    latex = re.sub(r"\\frac\s*(\d)\s*\{", r"\\frac{\1}{", latex)
    return re.sub(r"\\sqrt\s*(\d+)", r"\\sqrt{\1}", latex)


def python_expression(latex: str) -> str | None:
    """`latex` (one math expression, no relation) as a Python expression with explicit products, or None."""
    text = re.sub(r"\\left|\\right|\\[,;!: ]|~|\\displaystyle|\\boxed|\\color\{\w+\}", " ", latex)
    text = _braced_shorthands(text.replace("−", "-").replace("\\cdot", "*").replace("\\times", "*"))
    for _ in range(8):
        text, fractions = re.subn(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", text)
        text, roots = re.subn(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", text)
        if not fractions + roots:
            break
    text = re.sub(r"\\(pi|cot|sin|cos|tan|log)\b", r" \1 ", text).replace("π", " pi ").replace("√", " sqrt ")
    text = text.replace("^", "**").replace("{", "(").replace("}", ")")
    if "\\" in text or not text.strip():
        return None
    tokens, position = [], 0
    for match in TOKEN.finditer(text):
        if match.start() != position:
            return None
        position = match.end()
        if not match.group().isspace():
            tokens.append(match.group())
    if position != len(text):
        return None
    expanded = []
    for token in tokens:
        if token.isalpha() and token not in FUNCTIONS | CONSTANTS:
            expanded.extend(token)
        else:
            expanded.append(token)
    for position in range(len(expanded) - 2, -1, -1):
        if expanded[position] in FUNCTIONS and expanded[position + 1] != "(":
            expanded[position + 1 : position + 2] = ["(", expanded[position + 1], ")"]
    joined = []
    for token in expanded:
        if joined and _ends_operand(joined[-1]) and _starts_operand(token):
            joined.append("*")
        joined.append(token)
    expression = " ".join(joined)
    if re.search(r"\*\*\s*\(?\s*\d{4}|\*\*\s*\w+\s*\*\*", expression):
        return None
    return expression


def _ends_operand(token: str) -> bool:
    return token == ")" or token[0].isdigit() or token[0] == "." or (token.isalpha() and token not in FUNCTIONS)


def _starts_operand(token: str) -> bool:
    return token == "(" or token[0].isdigit() or token[0] == "." or token.isalpha()


NUMERIC_NAMESPACE = {
    "sqrt": cmath.sqrt,
    "pi": math.pi,
    "i": 1j,
    "cot": lambda z: cmath.cos(z) / cmath.sin(z),
    "sin": cmath.sin,
    "cos": cmath.cos,
    "tan": cmath.tan,
    "log": cmath.log,
}
TEST_POINTS = ({"value": 0.7317}, {"value": 1.9153})


@cache
def numeric_values(latex: str, variables: tuple[str, ...] = ()) -> tuple[complex, ...] | None:
    """The value of `latex` at each test point (one value when it has no variables), or None if unreadable."""
    expression = python_expression(latex)
    if expression is None:
        return None
    names = set(re.findall(r"[A-Za-z]+", expression)) - FUNCTIONS - CONSTANTS
    if not names <= set(variables):
        return None
    values = []
    for point_number, point in enumerate(TEST_POINTS if variables else TEST_POINTS[:1]):
        namespace = dict(NUMERIC_NAMESPACE)
        for offset, name in enumerate(variables):
            namespace[name] = point["value"] + 0.3977 * offset * (point_number + 1)
        try:
            values.append(complex(eval(expression, {"__builtins__": {}}, namespace)))  # noqa: S307 -- own tokens
        except (ArithmeticError, ValueError, TypeError, OverflowError, SyntaxError):
            return None
    return tuple(values)


def sympy_value(latex: str) -> sympy.Expr:
    """`latex` read exactly by sympy (through `python_expression`)."""
    expression = python_expression(latex)
    names = set(re.findall(r"[A-Za-z]+", expression)) - FUNCTIONS - CONSTANTS
    namespace = {name: sympy.Symbol(name) for name in names}
    namespace.update({"sqrt": sympy.sqrt, "pi": sympy.pi, "i": sympy.I, "cot": sympy.cot})
    return sympy.sympify(expression, locals=namespace)


def _close(a: complex, b: complex) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


# --- numbers in words --------------------------------------------------------------------------------------------

SMALL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS_WORDS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALE_WORDS = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred"))
IRREGULAR_ORDINALS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                      "nine": "ninth", "twelve": "twelfth"}  # fmt: skip


def number_words(n: int) -> str:
    if n < 0:
        return "negative " + number_words(-n)
    if n < 20:
        return SMALL_WORDS[n]
    if n < 100:
        return TENS_WORDS[n // 10] + ("-" + SMALL_WORDS[n % 10] if n % 10 else "")
    for scale, name in SCALE_WORDS:
        if n >= scale:
            rest = n % scale
            joiner = " and " if scale == 100 and rest else " "
            return number_words(n // scale) + " " + name + (joiner + number_words(rest) if rest else "")
    raise ValueError(n)


def ordinal_words(n: int) -> str:
    words = number_words(n)
    head, _, last = words.rpartition(" ") if " " in words else ("", "", words)
    stem, dash, unit = last.rpartition("-")
    unit = IRREGULAR_ORDINALS.get(unit) or (unit[:-1] + "ieth" if unit.endswith("y") else unit + "th")
    return (head + " " if head else "") + stem + dash + unit


def fraction_words(value: Fraction) -> str | None:
    p, q = abs(value.numerator), value.denominator
    if q == 1 or p > 20 or q > 100:
        return None
    denominator = {2: "half", 4: "quarter"}.get(q) or ordinal_words(q)
    if p != 1:
        denominator = "halves" if q == 2 else denominator + "s"
    return ("negative " if value < 0 else "") + number_words(p) + " " + denominator


# --- answer models -----------------------------------------------------------------------------------------------

RATIONAL_TYPES = ("small integer", "negative integer", "large integer", "fraction", "decimal", "mixed number")
SYMBOLIC_TYPES = ("radical", "multiple of pi", "complex number", "expression")
SEQUENCE_TYPES = ("ordered pair", "tuple", "set/list", "matrix/vector")
PROBLEM_STOPWORDS = {"The", "Which", "If", "One", "They", "Enter", "Is", "Let", "Find", "Determine", "What", "How",
                     "Assume", "Below", "For", "Mauritius", "Croatia", "Botswana", "US"}  # fmt: skip


def _unspaced(latex: str) -> str:
    return re.sub(r"\\left|\\right|\\[,!;]", "", latex).strip()


def _rational_of(latex: str) -> Fraction | None:
    plain = _unspaced(latex).replace(" ", "").replace("{,}", "").replace(",", "")
    mixed = re.fullmatch(r"(\d+)\\[dt]?frac\{?(\d+)\}?\{?(\d+)\}?", plain)
    if mixed:
        whole, p, q = (int(group) for group in mixed.groups())
        return whole + Fraction(p, q)
    if re.fullmatch(r"-?\d*\.?\d+", plain):
        return Fraction(plain)
    values = numeric_values(latex)
    if values is None:
        return None
    value = sympy_value(latex)
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else None


def _components(inner: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in inner:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _matrix_rows(answer: str) -> list[list[str]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", answer, re.S).group(1)
    return [[entry.strip() for entry in row.split("&")] for row in body.split("\\\\") if row.strip()]


def _interval_pieces(answer: str) -> list[tuple[str, str, str, str]]:
    text = _unspaced(answer).replace("x \\in", "").replace("x\\in", "").strip()
    pieces = []
    for piece in text.split("\\cup"):
        piece = piece.strip()
        low, high = _components(piece[1:-1])
        pieces.append((piece[0], low.strip(), high.strip(), piece[-1]))
    return pieces


def _choice_letters(problem: str) -> list[str]:
    return sorted(set(re.findall(r"\(([A-H])\)", problem)))


def _word_alternatives(word: str, problem: str) -> list[str]:
    if word[0].isupper():
        names = re.findall(r"\b[A-Z][a-z]{2,}\b", problem)
        return sorted({name for name in names if name != word and name not in PROBLEM_STOPWORDS})
    for chunk in re.split(r"[.?(]|\bEnter\b", problem):
        if re.search(rf"\b{word}\b", chunk) and "," in chunk:
            items = [item.strip(' "$') for item in re.split(r",|\bor\b", chunk)]
            return sorted({item for item in items if re.fullmatch(r"[a-z]+( [a-z]+)?", item) and item != word})
    return []


def answer_model(answer: str, problem: str) -> dict:
    """The reference answer parsed for rendering: its type, its LaTeX and a value of the type's own shape."""
    kind = answer_type(answer, problem)
    model = {"kind": kind, "latex": answer.strip(), "problem": problem}
    if kind in RATIONAL_TYPES:
        model["value"] = _rational_of(answer)
    elif kind in SYMBOLIC_TYPES:
        model["value"] = sympy_value(_unspaced(answer))
    elif kind in ("ordered pair", "tuple"):
        model["items"] = _components(_unspaced(answer).strip()[1:-1])
    elif kind == "set/list":
        inner = _unspaced(answer).replace("\\{", "").replace("\\}", "")
        items = []
        for item in _components(inner):
            if "\\pm" in item:
                items += [item.replace("\\pm", "+"), item.replace("\\pm", "-")]
            else:
                items.append(item)
        model["items"] = items
    elif kind == "matrix/vector":
        model["rows"] = _matrix_rows(answer)
    elif kind == "interval":
        model["pieces"] = _interval_pieces(answer)
    elif kind == "multiple choice":
        model["letter"] = re.search(r"[A-H]", answer).group()
        model["alternatives"] = [letter for letter in _choice_letters(problem) if letter != model["letter"]]
    elif kind == "text answer":
        model["word"] = re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", answer).group(1)
        model["alternatives"] = _word_alternatives(model["word"], problem)
    elif kind == "units/degrees/money":
        model.update(_units_of(answer))
    elif kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
        model.update(digits=digits, base=int(base))
    elif kind == "equation":
        left, right = answer.split("=")
        model.update(left=left.strip(), right=right.strip())
    return model


def _units_of(answer: str) -> dict:
    text = answer.strip()
    if text.startswith("\\$"):
        core = text[2:].strip()
        return {"core": core, "value": _rational_of(core), "unit": "dollar"}
    match = re.fullmatch(r"(.*?)\s*(\^\\circ|\^\{\\circ\}|\\text\{\s*(\w+)\}|\\mbox\{\s*(\w+)\}(\^2)?)", text)
    core = match.group(1).strip()
    unit = "degree" if "circ" in match.group(2) else (match.group(3) or match.group(4)) + (match.group(5) or "")
    return {"core": core, "value": _rational_of(core), "unit": unit.rstrip("s") if unit == "degrees" else unit}


# --- renderings --------------------------------------------------------------------------------------------------
# A rendering is (style, math, text, part): `math` is the notation inside a math slot (None when the style is plain
# text only), `text` the notation in running prose, and `part` the minimal substring of both that holds the value.


def _rendering(style: str, math_form: str | None, part: str, text: str | None = None) -> dict:
    return {"style": style, "math": math_form, "text": text if text is not None else f"${math_form}$", "part": part}


def _fraction_latex(value: Fraction, command: str = "\\frac") -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return f"{sign}{command}{{{abs(value.numerator)}}}{{{value.denominator}}}"


def _terminating_decimal(value: Fraction) -> str | None:
    q = value.denominator
    while q % 2 == 0:
        q //= 2
    while q % 5 == 0:
        q //= 5
    if q != 1 or value.denominator == 1:
        return None
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    return f"{float(value):.{places}f}"


def _grouped(n: int, separator: str) -> str:
    return f"{n:,}".replace(",", separator)


def rational_renderings(value: Fraction, posted: str | None) -> list[dict]:
    found = []
    if posted is not None:
        found.append(_rendering("as_posted", posted, _unspaced(posted) if posted == _unspaced(posted) else posted))
    if value.denominator == 1:
        n = value.numerator
        found += [
            _rendering("inline", str(n), str(n)),
            _rendering("boxed", f"\\boxed{{{n}}}", str(n)),
            _rendering("comment_plain", None, str(n), str(n)),
            _rendering("red", f"\\color{{red}}{{{n}}}", str(n)),
        ]
        if abs(n) <= 10**6:
            words = number_words(n)
            found.append(_rendering("words", None, words, words))
        if abs(n) >= 1000:
            found += [
                _rendering("braced_comma", _grouped(n, "{,}"), _grouped(n, "{,}")),
                _rendering("comma_text", None, _grouped(n, ","), _grouped(n, ",")),
                _rendering("thin_space", _grouped(n, "\\,"), _grouped(n, "\\,")),
            ]
        if n < 0:
            found.append(_rendering("unicode_minus", None, f"−{-n}", f"−{-n}"))
        return found
    frac, tfrac = _fraction_latex(value), _fraction_latex(value, "\\tfrac")
    found += [
        _rendering("frac", frac, frac),
        _rendering("dfrac", _fraction_latex(value, "\\dfrac"), _fraction_latex(value, "\\dfrac")),
        _rendering("tfrac_boxed", f"\\boxed{{{tfrac}}}", tfrac),
        _rendering("slash", None, f"{value.numerator}/{value.denominator}", f"{value.numerator}/{value.denominator}"),
        _rendering("over", f"{{{value.numerator} \\over {value.denominator}}}",
                   f"{{{value.numerator} \\over {value.denominator}}}"),
    ]  # fmt: skip
    decimal = _terminating_decimal(value)
    if decimal:
        found.append(_rendering("decimal", decimal, decimal))
        if decimal.startswith("0."):
            found.append(_rendering("bare_decimal", None, decimal[1:], decimal[1:]))
    words = fraction_words(value)
    if words:
        found.append(_rendering("words", None, words, words))
    if abs(value) > 1:
        whole, rest = divmod(abs(value.numerator), value.denominator)
        sign = "-" if value < 0 else ""
        found.append(_rendering("mixed", f"{sign}{whole}\\tfrac{{{rest}}}{{{value.denominator}}}",
                                f"{sign}{whole}\\tfrac{{{rest}}}{{{value.denominator}}}"))  # fmt: skip
        found.append(_rendering("mixed_plain", None, f"{sign}{whole} {rest}/{value.denominator}",
                                f"{sign}{whole} {rest}/{value.denominator}"))  # fmt: skip
    return found


def _plain_sympy(value: sympy.Expr) -> str:
    return sympy.sstr(value).replace("**", "^").replace("I", "i")


def symbolic_renderings(value: sympy.Expr, posted: str | None, kind: str) -> list[dict]:
    latex = sympy.latex(value)
    found = [] if posted is None else [_rendering("as_posted", posted, posted)]
    found += [
        _rendering("sympy_latex", latex, latex),
        _rendering("boxed", f"\\boxed{{{latex}}}", latex),
        _rendering("comment_plain", None, _plain_sympy(value), _plain_sympy(value)),
    ]
    dfrac = latex.replace("\\frac", "\\dfrac")
    if dfrac != latex:
        found.append(_rendering("dfrac", dfrac, dfrac))
    dotted = re.sub(r"(\d)\s*(\\sqrt|\\pi|[a-z])", r"\1 \\cdot \2", latex)
    if dotted != latex:
        found.append(_rendering("cdot", dotted, dotted))
    unicode_form = re.sub(r"sqrt\((\d+)\)", r"√\1", _plain_sympy(value)).replace("pi", "π").replace("*", "")
    if unicode_form != _plain_sympy(value):
        found.append(_rendering("unicode", None, unicode_form, unicode_form))
    if kind == "expression":
        for style, form in (("expanded", sympy.expand(value)), ("factored", sympy.factor(value))):
            if sympy.latex(form) != latex:
                found.append(_rendering(style, sympy.latex(form), sympy.latex(form)))
    if kind == "complex number":
        real, imaginary = value.as_real_imag()
        tight = f"{sympy.latex(real)}{'+' if imaginary > 0 else '-'}{sympy.latex(abs(imaginary))}i"
        found.append(_rendering("tight", tight, tight))
        found.append(_rendering("mathrm_i", tight[:-1] + "\\,\\mathrm{i}", tight[:-1] + "\\,\\mathrm{i}"))
    return found


def _entry_latex(entry: str, command: str) -> str:
    value = _rational_of(entry)
    if value is not None and "\\" not in entry and "/" not in entry:
        return entry
    if value is not None:
        return _fraction_latex(value, command)
    return entry


def sequence_renderings(items: list[str], kind: str, posted: str | None) -> list[dict]:
    found = [] if posted is None else [_rendering("as_posted", posted, posted)]
    spaced = ", ".join(items)
    tight = ",".join(item.replace(" ", "") for item in items)
    if kind == "set/list":
        found += [
            _rendering("comma_list", spaced, spaced),
            _rendering("braces", f"\\{{{spaced}\\}}", f"\\{{{spaced}\\}}"),
            _rendering("reversed", ", ".join(reversed(items)), ", ".join(reversed(items))),
            _rendering("or_roots", " \\text{ or } ".join(f"x = {item}" for item in items),
                       " \\text{ or } ".join(f"x = {item}" for item in items)),
        ]  # fmt: skip
        plain_items = [_plain_sympy(sympy_value(item)) for item in items]
        found.append(_rendering("and_plain", None, " and ".join(plain_items), " and ".join(plain_items)))
        return found
    found += [
        _rendering("tight", f"({tight})", f"({tight})"),
        _rendering("spaced", f"({spaced})", f"({spaced})"),
        _rendering("left_right", f"\\left({spaced}\\right)", f"\\left({spaced}\\right)"),
        _rendering("dfrac_entries", f"\\left({', '.join(_entry_latex(i, chr(92) + 'dfrac') for i in items)}\\right)",
                   f"\\left({', '.join(_entry_latex(i, chr(92) + 'dfrac') for i in items)}\\right)"),
        _rendering("comment_plain", None, f"({tight})", f"({tight})"),
    ]  # fmt: skip
    return found


def matrix_renderings(rows: list[list[str]], posted: str | None) -> list[dict]:
    found = [] if posted is None else [_rendering("as_posted", posted, posted)]
    for style, environment, command in (("pmatrix", "pmatrix", "\\frac"), ("bmatrix", "bmatrix", "\\dfrac")):
        body = " \\\\ ".join(" & ".join(_entry_latex(entry, command) for entry in row) for row in rows)
        form = f"\\begin{{{environment}}} {body} \\end{{{environment}}}"
        found.append(_rendering(style, form, form))
    columns = "c" * len(rows[0])
    body = " \\\\ ".join(" & ".join(row) for row in rows)
    array = f"\\left[\\begin{{array}}{{{columns}}} {body} \\end{{array}}\\right]"
    found.append(_rendering("array", array, array))
    if len(rows[0]) == 1:
        entries = [row[0] for row in rows]
        transpose = f"({', '.join(entries)})^T"
        found += [
            _rendering("transpose", transpose, f"({', '.join(entries)})"),
            _rendering("angle", f"\\langle {', '.join(entries)} \\rangle", f"\\langle {', '.join(entries)} \\rangle"),
            _rendering("comment_plain", None, f"[{', '.join(entries)}]", f"[{', '.join(entries)}]"),
        ]
    else:
        nested = "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"
        found.append(_rendering("comment_plain", None, nested, nested))
    return found


LESS = {"(": "<", ")": "<", "[": "\\le", "]": "\\le"}


def _inequality(piece: tuple[str, str, str, str], variable: str = "x") -> str:
    left, low, high, right = piece
    text = variable
    if "\\infty" not in low:
        text = f"{low} {LESS[left]} {text}"
    if "\\infty" not in high:
        text = f"{text} {LESS[right]} {high}"
    return text


def interval_renderings(pieces: list[tuple[str, str, str, str]], posted: str | None) -> list[dict]:
    found = [] if posted is None else [_rendering("as_posted", posted, _unspaced(posted).replace("x \\in ", ""))]
    notation = " \\cup ".join(f"{left}{low}, {high}{right}" for left, low, high, right in pieces)
    inequalities = " \\text{ or } ".join(_inequality(piece) for piece in pieces)
    french = " \\cup ".join(
        f"{'[' if left == '[' else ']'}{low}, {high}{']' if right == ']' else '['}"
        for left, low, high, right in pieces
    )
    plain = " U ".join(f"{left}{low}, {high}{right}" for left, low, high, right in pieces).replace("\\infty", "inf")
    found += [
        _rendering("interval", notation, notation),
        _rendering("x_in", f"x \\in {notation}", notation),
        _rendering("inequality", inequalities, inequalities),
        _rendering("set_builder", f"\\{{x \\mid {inequalities}\\}}", inequalities),
        _rendering("french", french, french),
        _rendering("comment_plain", None, plain, plain),
    ]
    return found


def units_renderings(model: dict, posted: str | None) -> list[dict]:
    value, unit = model["value"], model["unit"]
    number = _fraction_latex(value) if value.denominator != 1 else str(value.numerator)
    decimal = _terminating_decimal(value) or number
    found = [] if posted is None else [_rendering("as_posted", posted, model["core"])]
    if unit == "degree":
        found += [
            _rendering("circ_braced", f"{number}^{{\\circ}}", number),
            _rendering("degree_sign", None, f"{number}°", f"{number}°") if value.denominator == 1 else None,
            _rendering("degrees_word", None, number, f"{number} degrees") if value.denominator == 1 else None,
            _rendering("text_degrees", f"{number}\\text{{ degrees}}", number),
        ]
    elif unit == "dollar":
        cents = f"{float(value):.2f}" if value.denominator != 1 else _grouped(value.numerator, ",")
        found += [
            _rendering("dollar_sign", f"\\${cents}", cents),
            _rendering("dollars_word", None, cents.replace(",", ""), f"{cents.replace(',', '')} dollars"),
            _rendering("usd", None, cents, f"USD {cents}"),
        ]
    elif unit == "cent":
        dollars = _terminating_decimal(value / 100)
        found += [
            _rendering("cents_word", None, decimal, f"{decimal} cents"),
            _rendering("cents_text", f"{decimal}\\text{{ cents}}", decimal),
            _rendering("in_dollars", f"\\${dollars}", dollars),
        ]
    else:
        name, square = unit.rstrip("^2"), unit.endswith("^2")
        short = {"inches": "in", "cm": "cm"}.get(name, name)
        long = {"inches": "inches", "cm": "centimeters"}.get(name, name)
        found += [
            _rendering("text_unit", f"{number}\\text{{ {short}}}{'^2' if square else ''}", number),
            _rendering("square_word", None, number, f"{number} {'square ' if square else ''}{long}"),
            _rendering("unit_plain", None, number, f"{number} {short}{'^2' if square else ''}"),
        ]
    return [rendering for rendering in found if rendering]


def base_renderings(digits: str, base: int, posted: str | None) -> list[dict]:
    found = [] if posted is None else [_rendering("as_posted", posted, posted.replace(" ", ""))]
    decimal = str(int(digits, base))
    found += [
        _rendering("braced_base", f"{digits}_{{{base}}}", f"{digits}_{{{base}}}"),
        _rendering("paren_base", f"({digits})_{{{base}}}", f"({digits})_{{{base}}}"),
        _rendering("base_words", None, digits, f"{digits} in base {base}"),
        _rendering("base_ten_value", None, decimal, f"{decimal} in base ten"),
    ]
    return found


def equation_renderings(left: str, right: str, posted: str | None) -> list[dict]:
    found = [] if posted is None else [_rendering("as_posted", posted, posted)]
    difference = sympy.expand(sympy_value(left) - sympy_value(right))
    zero = f"{sympy.latex(difference)} = 0"
    negated = f"{sympy.latex(-difference)} = 0"
    found += [
        _rendering("tight", f"{left}={right}".replace(" ", ""), f"{left}={right}".replace(" ", "")),
        _rendering("swapped", f"{right} = {left}", f"{right} = {left}"),
        _rendering("zero_form", zero, zero),
        _rendering("negated_zero_form", negated, negated),
        _rendering("comment_plain", None, f"{left} = {right}", f"{left} = {right}"),
    ]
    return found


def renderings(model: dict, posted: str | None) -> list[dict]:
    """The notations of `model`'s value; `posted` is the LaTeX to render as posted (the reference's own, or None)."""
    kind = model["kind"]
    if kind in RATIONAL_TYPES:
        return rational_renderings(model["value"], posted)
    if kind in SYMBOLIC_TYPES:
        return symbolic_renderings(model["value"], posted, kind)
    if kind in ("ordered pair", "tuple", "set/list"):
        return sequence_renderings(model["items"], kind, posted)
    if kind == "matrix/vector":
        return matrix_renderings(model["rows"], posted)
    if kind == "interval":
        return interval_renderings(model["pieces"], posted)
    if kind == "multiple choice":
        letter = model["letter"]
        return [
            _rendering("text_paren", f"\\text{{({letter})}}", f"({letter})"),
            _rendering("paren", None, f"({letter})", f"({letter})"),
            _rendering("bold", None, f"({letter})", f"**({letter})**"),
            _rendering("option_word", None, letter, f"option {letter}"),
        ]
    if kind == "text answer":
        word = model["word"]
        return [
            _rendering("text_macro", f"\\text{{{word}}}", word),
            _rendering("plain_word", None, word, word),
            _rendering("bold_word", None, word, f"**{word}**"),
            _rendering("textbf", f"\\textbf{{{word}}}", word),
            _rendering("capitalised", None, word.capitalize(), f"*{word.capitalize()}*"),
        ]
    if kind == "units/degrees/money":
        return units_renderings(model, posted)
    if kind == "base-n number":
        return base_renderings(model["digits"], model["base"], posted)
    if kind == "equation":
        return equation_renderings(model["left"], model["right"], posted)
    return [_rendering("as_posted", model["latex"], model["latex"])]


def _significant_decimal(value: float, digits: int) -> str:
    places = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{places}f}"


def scalar_value(model: dict) -> complex | None:
    """The single number an answer stands for (None for pairs, intervals, words, expressions and equations)."""
    kind = model["kind"]
    if kind in RATIONAL_TYPES or kind == "units/degrees/money":
        return complex(model["value"])
    if kind in ("radical", "multiple of pi", "complex number"):
        return complex(sympy.N(model["value"], 20))
    if kind == "base-n number":
        return complex(int(model["digits"], model["base"]))
    return None


def approximations(model: dict) -> list[dict]:
    """Decimal approximations (3 to 6 significant digits) of an irrational or non-terminating real answer."""
    value = scalar_value(model)
    kind = model["kind"]
    exact = model.get("value")
    if value is None or value.imag or kind in ("complex number", "base-n number"):
        return []
    if isinstance(exact, Fraction) and (exact.denominator == 1 or _terminating_decimal(exact) is not None):
        return []
    unit = " degrees" if model.get("unit") == "degree" else ""
    found = []
    for digits, style, template in (
        (3, "approx_three", "roughly {}"),
        (4, "approx_four", "$\\approx {}$"),
        (5, "approx_five", "about {}"),
        (6, "approx_six", "$\\approx {}\\ldots$"),
    ):
        decimal = _significant_decimal(value.real, digits)
        found.append({"style": style, "math": None, "text": template.format(decimal) + unit, "part": decimal})
    return found


# --- the checker -------------------------------------------------------------------------------------------------


def normalised(text: str) -> str:
    """`text` with MathJax spacing, sizing and delimiters dropped, so notations compare across spellings."""
    text = re.sub(r"\\left|\\right|\\[,;!: ]|~|\$|\\displaystyle", " ", text.replace("−", "-").replace("{,}", ","))
    text = re.sub(r"\\[dt]frac", r"\\frac", text)
    return re.sub(r"\s*([^\w\s])\s*", r"\1", re.sub(r"\s+", " ", text)).strip()


@cache
def checker_keys(latex: str, problem: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The answer's notations as normalised search keys, and its approximation decimals."""
    model = answer_model(latex, problem)
    keys = set()
    for rendering in renderings(model, model["latex"]):
        keys.add(normalised(rendering["part"]))
        if rendering["math"] is not None:
            keys.add(normalised(_strip_decorations(rendering["math"])))
    keys |= {key.capitalize() for key in keys if key.isalpha()}
    decimals = tuple(approximation["part"] for approximation in approximations(model))
    return tuple(sorted(key for key in keys if key)), decimals


def _strip_decorations(math_form: str) -> str:
    return re.sub(r"\\boxed\{(.*)\}$|\\color\{\w+\}\{(.*)\}$", lambda m: m.group(1) or m.group(2), math_form)


def _math_pieces(text: str) -> list[str]:
    segments = re.findall(r"\$\$(.+?)\$\$|\$(.+?)\$", text, re.S)
    pieces = []
    for display, inline in segments:
        segment = display or inline
        segment = re.sub(r"\\(boxed|color\{\w+\}|cancel|underbrace|overbrace|bbox\[[^]]*\]|textbf)", " ", segment)
        segment = re.sub(
            r"_\{\\text\{[^}]*\}\}|\\tag\{[^}]*\}|\\text\{[^}]*\}|\\begin\{\w+\}|\\end\{\w+\}", ",", segment
        )
        pieces += re.split(
            r"=|\\approx|\\ne|<|>|\\le|\\ge|\\implies|\\therefore|\\to|\\cdots|\\ldots|,|;|&|\\\\|\\quad|\\qquad",
            segment,
        )
    return [piece.strip() for piece in pieces if piece.strip()]


def _sequences(text: str) -> list[list[str]]:
    flat = re.sub(r"\\begin\{[pb]matrix\}|\\begin\{array\}\{c+\}", "(", normalised(text))
    flat = re.sub(r"\\end\{[pb]matrix\}|\\end\{array\}", ")", flat).replace("\\\\", ",").replace("&", ",")
    flat = flat.replace("\\{", "(").replace("\\}", ")").replace("\\langle", "(").replace("\\rangle", ")")
    found = [_components(inner) for inner in re.findall(r"[(\[]((?:[^()\[\]]|\([^()]*\))*)[)\]]", flat)]
    return [items for items in found if len(items) > 1]


def _item_values(items: list[str]) -> list[complex] | None:
    values = []
    for item in items:
        value = numeric_values(item)
        if value is None:
            return None
        values.append(value[0])
    return values


def _answer_items(model: dict) -> list[str] | None:
    if model["kind"] in ("ordered pair", "tuple", "set/list"):
        return model["items"]
    if model["kind"] == "matrix/vector":
        return [entry for row in model["rows"] for entry in row]
    return None


def _stands(key: str, text: str) -> bool:
    """Whether `key` stands in `text` on its own: not inside a longer number or word, nor a macro's name."""
    return re.search(r"(?<![\w.\\])" + re.escape(key) + r"(?!\w|\.\d)", text) is not None


def holds_answer(text: str, latex: str, problem: str) -> bool:
    """Whether `text` states the answer `latex`: one of its notations, its exact value, or a rounded decimal of it."""
    keys, decimals = checker_keys(latex, problem)
    flat = normalised(text)
    if any(_stands(key, flat) for key in keys) or any(_stands(decimal, text) for decimal in decimals):
        return True
    model = answer_model(latex, problem)
    scalar = scalar_value(model)
    pieces = _math_pieces(text)
    plain_numbers = re.findall(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?(?![\w])", re.sub(r"\$.*?\$", "", text))
    if scalar is not None:
        for piece in pieces + [number.replace(",", "") for number in plain_numbers]:
            value = numeric_values(piece)
            if value is not None and _close(value[0], scalar):
                return True
        for decimal in re.findall(r"-?\d*\.\d+", text):
            places = len(decimal.split(".")[1])
            if abs(float(decimal) - scalar.real) <= 10**-places and not scalar.imag and places >= 2:
                return True
    if model["kind"] == "expression":
        variables = tuple(sorted(model["value"].free_symbols, key=str))
        names = tuple(str(symbol) for symbol in variables)
        target = numeric_values(_unspaced(latex), names)
        if target and any(numeric_values(piece, names) and all(
                _close(a, b) for a, b in zip(numeric_values(piece, names), target)) for piece in pieces):  # fmt: skip
            return True
    if model["kind"] == "equation":
        return _holds_equation(text, model)
    items = _answer_items(model)
    if items is not None:
        target = _item_values(items)
        for candidate in _sequences(text):
            values = _item_values(candidate)
            if values is None or len(values) != len(target):
                continue
            if model["kind"] == "set/list":
                matched = all(any(_close(a, b) for b in values) for a in target)
            else:
                matched = all(_close(a, b) for a, b in zip(values, target))
            if matched:
                return True
    return False


def _holds_equation(text: str, model: dict) -> bool:
    names = tuple(sorted({str(s) for s in sympy_value(model["left"] + "-(" + model["right"] + ")").free_symbols}))
    target = numeric_values(f"{model['left']}-({model['right']})", names)
    for display, inline in re.findall(r"\$\$(.+?)\$\$|\$(.+?)\$", text, re.S):
        sides = (display or inline).split("=")
        if len(sides) != 2 or target is None:
            continue
        values = numeric_values(f"{sides[0]}-({sides[1]})", names)
        if values and values[0] and all(_close(a / values[0], b / target[0]) for a, b in zip(values, target)):
            return True
    return False


# --- wrong values ------------------------------------------------------------------------------------------------


def _bump_integer(latex: str, rng: random.Random) -> str | None:
    numbers = list(re.finditer(r"(?<![\d.])\d+(?![\d.])", latex))
    if not numbers:
        return None
    chosen = rng.choice(numbers)
    bumped = int(chosen.group()) + rng.choice((1, 2, -1)) if int(chosen.group()) > 2 else int(chosen.group()) + 1
    return latex[: chosen.start()] + str(bumped) + latex[chosen.end() :]


def wrong_models(model: dict, rng: random.Random) -> list[tuple[str, dict]]:
    """Mutations of the answer that keep its shape, each with how it was made."""
    kind, found = model["kind"], []
    if kind in RATIONAL_TYPES:
        value = model["value"]
        candidates = [("off_by_one", value + 1), ("off_by_one", value - 1), ("doubled", value * 2)]
        if value.denominator != 1:
            candidates += [("reciprocal", 1 / value), ("numerator_bumped", value + Fraction(1, value.denominator))]
        if kind == "negative integer" or value < 0:
            candidates.append(("sign_flipped", -value))
        if kind in ("small integer", "large integer") and value > 0:
            candidates.append(("halved", value / 2) if value % 2 == 0 else ("tripled", value * 3))
        for how, wrong in candidates:
            if wrong != value and (wrong.denominator == 1) == (value.denominator == 1):
                found.append((how, dict(model, value=wrong)))
    elif kind in SYMBOLIC_TYPES:
        value = model["value"]
        found += [("sign_flipped", dict(model, value=-value)), ("doubled", dict(model, value=2 * value))]
        bumped = _bump_integer(_unspaced(model["latex"]), rng)
        if bumped:
            found.append(("integer_bumped", dict(model, value=sympy_value(bumped))))
        if kind == "complex number":
            found.append(("conjugated", dict(model, value=sympy.conjugate(value))))
    elif kind in ("ordered pair", "tuple", "set/list"):
        items = model["items"]
        if kind != "set/list" and items[0] != items[1]:
            found.append(("swapped", dict(model, items=[items[1], items[0], *items[2:]])))
        position = rng.randrange(len(items))
        negated = sympy.latex(-sympy_value(items[position]))
        found.append(("entry_negated", dict(model, items=[*items[:position], negated, *items[position + 1 :]])))
        bumped = _bump_integer(items[position], rng)
        if bumped:
            found.append(("entry_bumped", dict(model, items=[*items[:position], bumped, *items[position + 1 :]])))
    elif kind == "matrix/vector":
        rows = [list(row) for row in model["rows"]]
        row, column = rng.randrange(len(rows)), rng.randrange(len(rows[0]))
        entry = rows[row][column]
        for how, replacement in (("entry_negated", entry[1:] if entry.startswith("-") else "-" + entry),
                                 ("entry_bumped", _bump_integer(entry, rng))):  # fmt: skip
            if replacement and replacement != entry:
                changed = [list(r) for r in rows]
                changed[row][column] = replacement
                found.append((how, dict(model, rows=changed)))
    elif kind == "interval":
        pieces = model["pieces"]
        position = rng.randrange(len(pieces))
        left, low, high, right = pieces[position]
        flips = {"(": "[", "[": "(", ")": "]", "]": ")"}
        if "\\infty" not in high:
            flipped = (left, low, high, flips[right])
        else:
            flipped = (flips[left], low, high, right)
        found.append(("bracket_flipped", dict(model, pieces=[*pieces[:position], flipped, *pieces[position + 1 :]])))
        bumped = _bump_integer(high if "\\infty" not in high else low, rng)
        if bumped:
            moved = (left, low, bumped, right) if "\\infty" not in high else (left, bumped, high, right)
            found.append(("endpoint_bumped", dict(model, pieces=[*pieces[:position], moved, *pieces[position + 1 :]])))
    elif kind == "multiple choice":
        found += [("other_choice", dict(model, letter=letter)) for letter in model["alternatives"]]
    elif kind == "text answer":
        found += [("other_option", dict(model, word=word)) for word in model["alternatives"]]
    elif kind == "units/degrees/money":
        value = model["value"]
        found += [("off_by_one", dict(model, value=value + 1)), ("doubled", dict(model, value=2 * value))]
        if value > 1:
            found.append(("off_by_one", dict(model, value=value - 1)))
    elif kind == "base-n number":
        digits, base = model["digits"], model["base"]
        last = (int(digits[-1]) + 1) % base
        found.append(("last_digit_bumped", dict(model, digits=digits[:-1] + str(last))))
        if digits[::-1] != digits and not digits.endswith("0"):
            found.append(("digits_reversed", dict(model, digits=digits[::-1])))
    elif kind == "equation":
        bumped = _bump_integer(model["right"], rng) or _bump_integer(model["left"], rng)
        if bumped and bumped != model["right"] and "=" not in bumped:
            if _bump_integer(model["right"], rng):
                found.append(("constant_bumped", dict(model, right=bumped)))
            else:
                found.append(("constant_bumped", dict(model, left=bumped)))
        found.append(("sides_negated", dict(model, right=sympy.latex(-sympy_value(model["right"])))))
    return found


# --- frames ------------------------------------------------------------------------------------------------------
# Slots: «A»/«W» the answer/wrong value in prose, «AM»/«WM» inside a math slot, «q» a number of the problem, «m» an
# intermediate number of the reference solution, «u» a username. A frame is (id, leak template, clean template).

PROSE_FRAMES = (
    ("mse_comment", "@«u» You dropped a factor somewhere; it should be «A», not «W».",
     "@«u» You dropped a factor somewhere after $«m»$; «W» is not what comes out of it."),
    ("spoiler_hint", "Hint: start from the $«q»$ in the statement and look at what happens to $«m»$.\n\n"
     ">! Full answer: «A». Your «W» comes from counting one case twice.",
     "Hint: start from the $«q»$ in the statement and look at what happens to $«m»$.\n\n"
     ">! Your «W» comes from counting one case twice; fix that and redo the last step yourself."),
    ("quoted_attempt", "> ... so the final answer is «W».\n\nNot quite. Everything up to $«m»$ checks out, but the "
     "last simplification is off. Indeed, the correct value is «A».",
     "> ... so the final answer is «W».\n\nNot quite. Everything up to $«m»$ checks out, but the last "
     "simplification is off. Redo it slowly and compare with the $«q»$ in the statement."),
    ("edit_note", "+1 for showing your work. Edit: as others pointed out, the last line should read «A»; your «W» "
     "is a slip after $«m»$.",
     "+1 for showing your work. Edit: as others pointed out, your last line «W» is a slip; the lines before it, "
     "down to $«m»$, are fine."),
    ("quora_answer", "Short answer: «A».\n\nLong answer: the asker got «W» because they used $«q»$ where $«m»$ was "
     "needed. Once you fix that, the rest is routine.",
     "Short answer: not «W».\n\nLong answer: the asker got «W» because they used $«q»$ where $«m»$ was needed. "
     "Once you fix that, the rest is routine and I will leave it to you."),
    ("footnote", "You were close. Using $«q»$ we get $«m»$, and hence the result is «A».[^1]\n\n"
     "[^1]: Your «W» comes from a sign error in the second line.",
     "You were close. Using $«q»$ we get $«m»$, and the remaining step is where it went astray.[^1]\n\n"
     "[^1]: Your «W» comes from a sign error in the second line."),
    ("cancel", "$\\require{cancel}$ You cancelled the wrong term: $\\cancel{«q»}$ has to stay. Keep it and we get "
     "«A» instead of «W».",
     "$\\require{cancel}$ You cancelled the wrong term: $\\cancel{«q»}$ has to stay. Keep it and you will see "
     "that «W» cannot be right."),
    ("therefore", "Note that $«m»$ is forced by the condition. $\\therefore$ the answer is «A», so your «W» has an "
     "arithmetic slip.",
     "Note that $«m»$ is forced by the condition. $\\therefore$ your «W» has an arithmetic slip somewhere after "
     "that line."),
    ("brilliant_reply", "Nice attempt! Most people who answered «W» forgot the condition involving $«q»$. Thus the "
     "answer is «A».",
     "Nice attempt! Most people who answered «W» forgot the condition involving $«q»$. Try again with it in mind."),
    ("aops_reply", "[quote=«u»]I keep getting «W».[/quote]\nYou mixed up $«q»$ and $«m»$. I get «A» with the "
     "standard approach.",
     "[quote=«u»]I keep getting «W».[/quote]\nYou mixed up $«q»$ and $«m»$. Swap them back and the standard "
     "approach goes through."),
)  # fmt: skip

MATH_FRAMES = (
    ("implies_chain", "Your setup is fine; the slip is in the last line. We get $$«m» \\implies \\cdots \\implies "
     "\\boxed{«AM»}$$ and not $«WM»$ as in your post.",
     "Your setup is fine; the slip is in the last line. We get $$«m» \\implies \\cdots$$ and from there you "
     "should not land on $«WM»$ as in your post."),
    ("aligned", "Write it out:\n$$\\begin{aligned} \\text{start} &= «m» \\\\ &= «AM» \\end{aligned}$$\nso $«WM»$ is "
     "off.",
     "Write it out:\n$$\\begin{aligned} \\text{start} &= «m» \\\\ &= \\cdots \\end{aligned}$$\nand you will see "
     "why $«WM»$ is off."),
    ("red_highlight", "$$«m» \\;\\to\\; \\color{red}{«AM»}$$ (you wrote $«WM»$, which is where it goes wrong).",
     "$$«m» \\;\\to\\; \\color{red}{?}$$ (you wrote $«WM»$, which is where it goes wrong)."),
    ("tagged", "Hence $$«AM» \\tag{$\\ast$}$$ which contradicts your $«WM»$.",
     "Hence $$«m» \\tag{$\\ast$}$$ which already contradicts your $«WM»$ once you use $«q»$."),
    ("underbrace", "$$\\underbrace{«m»}_{\\text{your step 2}} \\implies «AM», \\text{ not } «WM»$$",
     "$$\\underbrace{«m»}_{\\text{your step 2}} \\implies \\cdots, \\text{ not } «WM»$$"),
    ("bbox_final", "(Comment) Plugging in $«q»$ gives $\\bbox[yellow]{«AM»}$; check your $«WM»$ again.",
     "(Comment) Plugging in $«q»$ gives $\\bbox[yellow]{«m»}$ first; check your $«WM»$ again."),
)  # fmt: skip

APPROXIMATION_FRAMES = (
    ("numeric_check", "A quick numeric check: the quantity is «A», while your «W» is nowhere near it.",
     "A quick numeric check: your «W» does not match a numerical evaluation of $«m»$."),
    ("calculator_comment", "@«u» Plug it into a calculator: I get «A», so «W» cannot be right.",
     "@«u» Plug it into a calculator: $«m»$ already shows that «W» cannot be right."),
    ("desmos", "Edit: Desmos gives «A» for this, which agrees with the exact value and not with «W».",
     "Edit: Desmos disagrees with «W» as soon as you plug in $«q»$."),
)  # fmt: skip

USERNAMES = ("Blue", "mathlover", "Daniel_M", "user_x", "Ana", "rschwieb", "quasi", "Ted", "asker", "Kavi")


def problem_numbers(problem: str) -> list[str]:
    return sorted(set(re.findall(r"(?<![\w.\\])\d+(?:\.\d+)?(?![\w.])", problem)), key=lambda s: (len(s), s))


def intermediate_values(solution: str) -> list[str]:
    found = re.findall(r"\\[dt]?frac\{\d+\}\{\d+\}|(?<![\w.\\^_{])\d+(?:\.\d+)?(?![\w.])", solution)
    return sorted(set(found), key=lambda s: (len(s), s))


def _fill(template: str, slots: dict[str, str], answer: dict | None) -> tuple[str, str, list[str]]:
    """The template with its slots filled: text, context (the answer's parts replaced by `\\ldots`) and parts."""
    for name, value in slots.items():
        template = template.replace(f"«{name}»", value)
    if answer is None:
        return template, template, []
    slot = "«AM»" if "«AM»" in template else "«A»"
    form = answer["math"] if slot == "«AM»" else answer["text"]
    before, after = template.split(slot)
    return before + form + after, before + form.replace(answer["part"], "\\ldots", 1) + after, [answer["part"]]


def _slot_forms(wrong: dict | None, math_slot: bool) -> dict[str, str]:
    if wrong is None:
        return {}
    return {"WM": wrong["math"]} if math_slot else {"W": wrong["text"]}


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Leak and clean Q&A-site replies for every MATH-500 row, deterministic in `seed`."""
    cases = []
    for index, row in enumerate(problems):
        rng = random.Random(f"{seed}:{index}")
        cases += _problem_cases(index, row, rng)
    return cases


def _pick_quote(values: list[str], row: dict, rng: random.Random) -> str:
    candidates = [value for value in values if not holds_answer(f"${value}$", row["answer"], row["problem"])]
    return rng.choice(candidates) if candidates else "\\text{the given data}"


def _problem_cases(index: int, row: dict, rng: random.Random) -> list[dict]:
    answer, problem = row["answer"], row["problem"]
    model = answer_model(answer, problem)
    kind = model["kind"]
    answer_forms = renderings(model, model["latex"])
    approximation_forms = approximations(model)
    wrongs = [
        (how, wrong)
        for how, wrong in wrong_models(model, rng)
        if not holds_answer(renderings(wrong, None)[0]["text"], answer, problem)
    ]
    numbers, intermediates = problem_numbers(problem), intermediate_values(row["solution"])
    base = {"split": "held_out", "index": index, "answer_type": kind}
    cases = []
    for number in range(LEAKS_PER_PROBLEM + CLEANS_PER_PROBLEM):
        leak = number < LEAKS_PER_PROBLEM
        for _ in range(REDRAWS):
            approximate = leak and approximation_forms and number % 3 == 2
            rendering = rng.choice(approximation_forms if approximate else answer_forms)
            frames = APPROXIMATION_FRAMES if approximate else PROSE_FRAMES + (MATH_FRAMES if rendering["math"] else ())
            frame_id, leak_template, clean_template = rng.choice(frames)
            math_slot = "«AM»" in leak_template
            how, wrong_model = rng.choice(wrongs) if wrongs else ("", None)
            wrong = _wrong_rendering(wrong_model, rendering["style"] if not approximate else None)
            quoted = wrong and (wrong["math"] if math_slot else wrong["text"])
            if quoted and holds_answer(quoted, answer, problem):
                continue
            if wrong is None or (math_slot and wrong["math"] is None):
                how, wrong = "", None
                if "«W" in (leak_template if leak else clean_template):
                    continue
            slots = {"u": rng.choice(USERNAMES), "q": _pick_quote(numbers, row, rng)}
            slots["m"] = _pick_quote(intermediates, row, rng)
            slots.update(_slot_forms(wrong, math_slot))
            template = leak_template if leak else clean_template
            text, context, parts = _fill(template, slots, rendering if leak else None)
            if leak and (not holds_answer(text, answer, problem) or holds_answer(context, answer, problem)):
                continue
            if leak and not all(occurrences(p, text) > occurrences(p, context) for p in parts):
                continue
            if not leak and holds_answer(text, answer, problem):
                continue
            family = "clean" if not leak else "approximation" if approximate else "rendering"
            wrong_text = "" if wrong is None else wrong["math"] if math_slot else wrong["text"]
            cases.append(
                {
                    "family": family,
                    **base,
                    "style": rendering["style"] if leak else "none",
                    "frame": frame_id,
                    "text": text,
                    "leak": leak,
                    "written_out": family == "rendering",
                    "parts": parts,
                    "context": context,
                    "wrong": wrong_text,
                    "wrong_how": how if wrong is not None else "",
                }
            )
            break
    return cases


def _wrong_rendering(wrong_model: dict | None, style: str | None) -> dict | None:
    if wrong_model is None:
        return None
    forms = renderings(wrong_model, None)
    matching = [form for form in forms if form["style"] == style]
    return matching[0] if matching else forms[0]
