"""Leak corpus `fourteenth`: verbal feedback on a group of failed rollouts, written the way a chat feedback model
writes it.

Setting. In RL training a prompt got K rollouts (2 to 8) that all failed; a feedback model (GPT-4o, Claude,
Qwen2.5-72B, DeepSeek) saw the problem and the K wrong attempts and writes Markdown feedback with LaTeX for the next
attempt. Every critique discusses several attempts and quotes their wrong final answers, numbers of the problem and
intermediate quantities of the worked solution.

Method. Each MATH-500 answer is parsed into a value (`parse_answer`: sympy numbers and expressions, tuples, sets,
matrices, intervals, equations, base-n numerals, words, choice letters; a small LaTeX reader of our own, no LaTeX
parser package). Wrong final answers are mutations of that value in its own shape (`wrong_answers`: off by one, sign,
doubled, halved, reciprocal, dropped term, swapped coordinates, a bracket flipped, another choice, a wrong base, ...),
each kept only when it differs from the answer in value. Problem numbers and intermediate quantities are the numbers
of the problem and of the reference solution whose value differs from the answer's. Seven frames (registers: a
verbose sectioned report, a terse note, a Socratic set of questions, a checklist, a step-by-step re-derivation, an
attempt table, a prose review) have slots (a conclusion, "you should get", a verification by substitution, a table
row, a bolded final line, a parenthetical, a comparison with a wrong attempt, a boxed display, a chain of equalities);
a clean critique fills every slot with its clean sentence, a leak fills one slot (or two) with a sentence that states
the answer in one rendering style.

Families.
- "rendering": the answer written out in a notation (`renderings`): the reference LaTeX, equivalent LaTeX (`\\dfrac`,
  `\\tfrac`, sympy's LaTeX, `\\left( \\right)`, `\\text{}` units, degrees), plain text (`3/4`, `2*sqrt(5)`, `pi/4`),
  Unicode (√, π, −, ², ½, ∞, ≤), English words, exact decimals of terminating fractions, prose lists, components by
  name, inequalities for intervals, choice letters with or without their text, words in a sentence.
- "approximation": a decimal approximation (3 to 6 significant digits, rounded or truncated) of a scalar answer whose
  value is irrational or a non-terminating decimal.
- "clean": the same frames, no statement of the answer.

Every clean critique is checked by `holds_answer`, which looks for every rendering of the answer, for any number,
fraction, radical or multiple of pi (LaTeX, plain or Unicode) whose value equals the answer's, for math pieces equal to
the answer in sympy, for decimal approximations of it, for tuples, intervals, words, letters and base-n numerals; a
clean draw that it flags is redrawn, and so is a leak whose `context` (the text without its parts) it flags.

Independence. Written without reading the guard or its tests: of the project this module read only, in
`benchmarks/leak_corpus.py`, the source of `load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences`, `stated` and
their helpers (`MATH500`, `_strip`, `_top_level_split`), `tests/conftest.py` and the MATH-500 rows themselves;
nothing under `trl_mulferl/`, no other corpus module or test, no documentation, no benchmark of the guard.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import sympy
from leak_corpus import answer_type, occurrences
from num2words import num2words
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0

RENDERING_LEAKS_PER_PROBLEM = 6
APPROXIMATION_LEAKS_PER_PROBLEM = 2
DRAWS = 40
TRANSFORMATIONS = (*standard_transformations, implicit_multiplication_application, convert_xor)
VULGAR_FRACTIONS = {
    sympy.Rational(unicodedata.numeric(char)).limit_denominator(10): char for char in "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
}
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
VULGAR_VALUES = {char: value for value, char in VULGAR_FRACTIONS.items()}
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_UNSUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
DENOMINATOR_WORDS = {2: ("half", "halves"), 4: ("quarter", "quarters")}
UNIT_WORDS = {
    "degree": "degrees",
    "dollar": "dollars",
    "cent": "cents",
    "square inch": "square inches",
    "square cm": "square centimeters",
}


# ----------------------------------------------------------------------------------------------------------------
# Reading answers


def latex_to_sympy(latex: str, imaginary: bool = False) -> sympy.Expr:
    """A LaTeX, plain-text or Unicode math string as a sympy expression (raises on anything it cannot read)."""
    text = re.sub(r"\\[!,;: ]|\\left|\\right|\\displaystyle", " ", latex)
    text = re.sub(r"\\[dt]frac", r"\\frac", text).replace("−", "-").replace("·", "*").replace("×", "*")
    text = re.sub(r"√\s*\(", "sqrt(", text)
    text = re.sub(r"√\s*(\d+|[a-z])", r"sqrt(\1)", text)
    text = "".join(f"({VULGAR_VALUES[char]})" if char in VULGAR_VALUES else char for char in text)
    text = text.replace("π", " pi ").replace("\\pi", " pi ").replace("\\cot", " cot ").replace("\\cdot", "*")
    text = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+", lambda match: "^" + match[0].translate(_UNSUPERSCRIPT), text)
    while True:
        rewritten = re.sub(r"\\sqrt\s*(\{[^{}]*\}|\d)", lambda match: "sqrt(" + match[1].strip("{}") + ")", text)
        rewritten = re.sub(
            r"\\frac\s*(\{[^{}]*\}|\w)\s*(\{[^{}]*\}|\w)",
            lambda match: "((" + match[1].strip("{}") + ")/(" + match[2].strip("{}") + "))",
            rewritten,
        )
        if rewritten == text:
            break
        text = rewritten
    if "\\" in text or re.search(r"[a-z]{2,}", text.replace("sqrt", "").replace("pi", "").replace("cot", "")):
        raise ValueError(f"not a math expression: {latex!r}")
    text = text.replace("{", "(").replace("}", ")")
    text = re.sub(r"(?<![\d.])(\d*\.\d+)", lambda match: f"({sympy.Rational(match[1])})", text)
    names = {letter: sympy.Symbol(letter) for letter in re.findall(r"[a-zA-Z]", text)}
    names.update({"pi": sympy.pi, "cot": sympy.cot, "sqrt": sympy.sqrt})
    if imaginary:
        names["i"] = sympy.I
    return parse_expr(text, local_dict=names, transformations=TRANSFORMATIONS)


@dataclass(frozen=True)
class Answer:
    """A final answer's value. `kind` is one of number, expression, equation, interval, sequence, matrix, word,
    choice, base; `value` is a sympy number or expression, a tuple of them, a tuple of interval pieces
    `(left_closed, low, high, right_closed)`, an equation `(lhs, rhs)`, `(digits, base)`, a word, or a choice
    `(letter, text)`."""

    kind: str
    value: object
    unit: str = ""
    names: tuple = ()
    ordered: bool = True
    decimal: bool = False


def parse_answer(answer: str, problem: str, kind_of_type: str) -> Answer:
    """The reference answer string of a problem read into an `Answer`."""
    text = re.sub(r"\\[!,]|\\left|\\right", "", answer).strip()
    if kind_of_type in ("small integer", "large integer", "negative integer"):
        return Answer("number", sympy.Integer(text.replace(",", "").replace(" ", "")))
    if kind_of_type == "mixed number":
        whole, numerator, denominator = re.fullmatch(r"(\d+)\s*\\frac\{?(\d+)\}?\{?(\d+)\}?", text).groups()
        return Answer("number", sympy.Integer(whole) + sympy.Rational(int(numerator), int(denominator)))
    if kind_of_type in ("fraction", "radical", "multiple of pi", "complex number", "decimal"):
        value = latex_to_sympy(text, imaginary=kind_of_type == "complex number")
        return Answer("number", value, decimal=kind_of_type == "decimal")
    if kind_of_type == "expression":
        return Answer("expression", latex_to_sympy(text))
    if kind_of_type == "equation":
        left, right = text.split("=")
        return Answer("equation", (latex_to_sympy(left), latex_to_sympy(right)))
    if kind_of_type == "units/degrees/money":
        return _parse_quantity(text)
    if kind_of_type == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return Answer("base", (digits, int(base)))
    if kind_of_type == "text answer":
        return Answer("word", re.fullmatch(r"\\text\{(.*)\}", text)[1].strip())
    if kind_of_type == "multiple choice":
        letter = re.search(r"[A-H]", text)[0]
        return Answer("choice", (letter, choice_options(problem).get(letter, "")))
    if kind_of_type == "interval":
        return Answer("interval", _parse_interval(text))
    if kind_of_type == "matrix/vector":
        body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end", text, re.S)[1]
        rows = [[latex_to_sympy(entry) for entry in row.split("&")] for row in body.split("\\\\") if row.strip()]
        return Answer("matrix", tuple(tuple(row) for row in rows))
    if kind_of_type in ("ordered pair", "tuple"):
        components = tuple(latex_to_sympy(entry) for entry in _split_top(text.strip()[1:-1]))
        return Answer("sequence", components, names=component_names(problem, len(components)))
    if kind_of_type == "set/list":
        values = []
        for entry in _split_top(text.strip().removeprefix("\\{").removesuffix("\\}")):
            if "\\pm" in entry:
                center, offset = entry.split("\\pm")
                values += [
                    latex_to_sympy(center) + latex_to_sympy(offset),
                    latex_to_sympy(center) - latex_to_sympy(offset),
                ]
            else:
                values.append(latex_to_sympy(entry))
        return Answer("sequence", tuple(values), ordered=False)
    raise ValueError(f"unsupported answer {answer!r} of type {kind_of_type}")


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _parse_quantity(text: str) -> Answer:
    if text.startswith("\\$"):
        return Answer("number", latex_to_sympy(text[2:].replace(",", "")), unit="dollar", decimal="." in text)
    match = re.fullmatch(r"(.*?)\s*(\^\\circ|\\text\{\s*degrees\}|\\text\{\s*cents\}|\\mbox\{\s*(\w+)\}\^2)", text)
    number, marker, length = match[1], match[2], match[3]
    unit = "degree" if "circ" in marker or "degrees" in marker else "cent" if "cents" in marker else ""
    unit = unit or ("square inch" if length == "inches" else "square cm")
    return Answer("number", latex_to_sympy(number), unit=unit, decimal="." in number)


def _parse_interval(text: str) -> tuple:
    pieces = []
    for piece in text.removeprefix("x \\in").split("\\cup"):
        piece = piece.strip()
        low, high = _split_top(piece[1:-1])
        pieces.append((piece[0] == "[", _endpoint(low), _endpoint(high), piece[-1] == "]"))
    return tuple(pieces)


def _endpoint(text: str) -> sympy.Expr:
    return {"\\infty": sympy.oo, "-\\infty": -sympy.oo}.get(text.replace(" ", ""), None) or latex_to_sympy(text)


def choice_options(problem: str) -> dict[str, str]:
    """The options of a multiple-choice problem, letter to option text."""
    options = {}
    for match in re.finditer(r"\(([A-H])\)\}?(?:\\ )?\s*(.*?)(?=\\qquad|\\textbf|\$|\n|\([A-H]\)|$)", problem):
        options[match[1]] = match[2].strip()
    return options


def component_names(problem: str, arity: int) -> tuple:
    """The names the problem gives the components of its tuple answer, e.g. `(r, \\theta)`, else x, y, z, w."""
    found = [
        tuple(name.strip() for name in match[1].split(","))
        for match in re.finditer(r"\$\((\s*\\?[a-zA-Z]+\s*(?:,\s*\\?[a-zA-Z]+\s*)+)\)", problem)
    ]
    fitting = [names for names in found if len(names) == arity]
    return fitting[-1] if fitting else ("x", "y", "z", "w")[:arity] if arity <= 4 else ()


def word_alternatives(word: str, problem: str) -> list[str]:
    """Other options a text answer could have taken: quoted words, listed words and words used like the answer."""
    shape = str.istitle if word[0].isupper() else str.islower
    tokens = re.findall(r"[A-Za-z]+", re.sub(r"\$[^$]*\$", " ", problem))
    followers = {tokens[place + 1] for place, token in enumerate(tokens[:-1]) if token == word}
    candidates = set(re.findall(r"\"([A-Za-z]+)\"", problem))
    for listing in re.findall(r"(?:[A-Za-z ]+, )+(?:or |and )?[A-Za-z ]+", problem):
        if re.search(rf"\b{word}\b", listing):
            items = re.split(r",\s*(?:or\s+|and\s+)?|\s+or\s+", listing)
            candidates |= {item.split()[-1] for item in items if item.split()} - {word}
    candidates |= {token for place, token in enumerate(tokens[:-1]) if tokens[place + 1] in followers}
    return sorted(candidate for candidate in candidates if candidate != word and shape(candidate))


# ----------------------------------------------------------------------------------------------------------------
# Writing values


def number_latex(value: sympy.Expr, fraction: str = "\\frac", decimal: bool = False) -> str:
    """LaTeX for a number: `\\frac{p}{q}` for rationals (or an exact decimal), sympy's LaTeX otherwise."""
    value = sympy.nsimplify(value) if value.is_Float else value
    if value.is_Rational and not value.is_Integer:
        if decimal and terminates(value):
            return decimal_text(value)
        sign = "-" if value < 0 else ""
        return f"{sign}{fraction}{{{abs(value.p)}}}{{{value.q}}}"
    if value.is_number and not value.is_real:
        real, imaginary = value.as_real_imag()
        return complex_text(real, imaginary)
    latex = sympy.latex(value).replace("\\frac", fraction)
    return re.sub(r"^- ", "-", latex)


def complex_text(real: sympy.Expr, imaginary: sympy.Expr) -> str:
    sign = "-" if imaginary < 0 else "+"
    magnitude = abs(imaginary)
    return f"{real} {sign} {'' if magnitude == 1 else magnitude}i"


def plain_number(value: sympy.Expr, decimal: bool = False) -> str:
    """Plain text (`3/4`, `2*sqrt(5)`, `pi/4`, `6 - 5i`)."""
    if value.is_Rational and decimal and terminates(value):
        return decimal_text(value)
    if value.is_number and not value.is_real:
        return complex_text(*value.as_real_imag())
    return sympy.sstr(value)


def unicode_number(value: sympy.Expr, decimal: bool = False) -> str:
    """Unicode (`√13`, `3√13`, `π/2`, `−50`, `¾`)."""
    if value in VULGAR_FRACTIONS:
        return VULGAR_FRACTIONS[value]
    text = plain_number(value, decimal)
    text = re.sub(r"sqrt\((\d+)\)", r"√\1", text).replace("pi", "π").replace("*", "")
    text = re.sub(r"\*\*(\d+)", lambda match: match[1].translate(SUPERSCRIPTS), text)
    return text.replace("-", "−")


def number_words(value: sympy.Expr) -> str:
    """English words for integers and for fractions with small denominators, "" otherwise."""
    if value.is_Integer:
        return num2words(int(value)).replace("minus", "negative")
    if value.is_Rational and value.q <= 12 and abs(value.p) <= 20:
        numerator = num2words(abs(value.p))
        singular, plural = DENOMINATOR_WORDS.get(value.q, (num2words(value.q, to="ordinal"),) * 2)
        plural = plural if value.q in DENOMINATOR_WORDS else plural + "s"
        words = f"{numerator} {singular if abs(value.p) == 1 else plural}"
        return ("negative " if value < 0 else "") + words
    return ""


def terminates(value: sympy.Expr) -> bool:
    if not value.is_Rational:
        return False
    denominator = int(value.q)
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def decimal_text(value: sympy.Rational) -> str:
    places = 0
    while not (value * 10**places).is_Integer:
        places += 1
    return f"{float(value):.{places}f}" if places else str(value)


def expression_plain(expression: sympy.Expr) -> str:
    text = sympy.sstr(expression).replace("**", "^")
    return re.sub(r"(\d)\*([a-zA-Z(])", r"\1\2", text)


def expression_unicode(expression: sympy.Expr) -> str:
    text = expression_plain(expression)
    return re.sub(r"\^(\d+)", lambda match: match[1].translate(SUPERSCRIPTS), text).replace(" - ", " − ")


def expression_latex(expression: sympy.Expr) -> str:
    return sympy.latex(expression).replace("\\cot{\\left(x \\right)}", "\\cot x")


def base_digits(value: int, base: int) -> str:
    digits = ""
    while value:
        digits = str(value % base) + digits
        value //= base
    return digits or "0"


# A rendering is a list of segments: ("part", text) states the answer, ("text", text) decorates it; `math` says
# whether it must stand inside math delimiters.


@dataclass(frozen=True)
class Rendering:
    style: str
    segments: tuple
    math: bool


def _unit_segments(answer: Answer, part: str, mode: str) -> tuple:
    if not answer.unit:
        return (("part", part),)
    if answer.unit == "dollar":
        part = re.sub(r"^(\d+\.\d)$", r"\g<1>0", part)  # amounts of money are written with whole cents
        return {"latex": (("text", "\\$"), ("part", part)), "unicode": (("text", "$"), ("part", part))}.get(
            mode, (("part", part), ("text", " dollars"))
        )
    decorations = {
        ("degree", "latex"): "^\\circ",
        ("degree", "unicode"): "°",
        ("cent", "latex"): "\\text{ cents}",
        ("cent", "unicode"): "¢",
        ("square inch", "latex"): "\\text{ in}^2",
        ("square inch", "unicode"): " in²",
        ("square cm", "latex"): "\\text{ cm}^2",
        ("square cm", "unicode"): " cm²",
    }
    return ("part", part), ("text", decorations.get((answer.unit, mode), " " + UNIT_WORDS[answer.unit]))


@cache
def renderings(answer: Answer, raw: str) -> tuple[Rendering, ...]:
    """Every notation in which the corpus writes `answer` out (`raw` is the reference's own LaTeX)."""
    found: list[Rendering] = []

    def add(style: str, segments: tuple, math: bool) -> None:
        if all(text for _, text in segments) and not any(item.segments == segments for item in found):
            found.append(Rendering(style, tuple(segments), math))

    kind, value = answer.kind, answer.value
    if kind == "number":
        _number_renderings(answer, raw, add)
    elif kind in ("expression", "equation"):
        if kind == "expression":
            latex, plain, uni = expression_latex(value), expression_plain(value), expression_unicode(value)
            reversed_order = " + ".join(expression_plain(term) for term in reversed(value.as_ordered_terms()))
            add("reordered_terms", (("part", reversed_order.replace("+ -", "- ")),), False)
        else:
            latex = f"{expression_latex(value[0])} = {expression_latex(value[1])}"
            plain = f"{expression_plain(value[0])} = {expression_plain(value[1])}"
            uni = f"{expression_unicode(value[0])} = {expression_unicode(value[1])}"
        add("reference_latex", (("part", raw),), True)
        add("sympy_latex", (("part", latex),), True)
        add("plain_text", (("part", plain),), False)
        add("unicode", (("part", uni),), False)
        add("unspaced_latex", (("part", raw.replace(" ", "")),), True)
    elif kind == "sequence":
        _sequence_renderings(answer, raw, add)
    elif kind == "matrix":
        rows = " \\\\ ".join(" & ".join(number_latex(entry) for entry in row) for row in value)
        add("reference_latex", (("part", raw),), True)
        add("pmatrix_latex", (("part", f"\\begin{{pmatrix}} {rows} \\end{{pmatrix}}"),), True)
        add("bmatrix_latex", (("part", f"\\begin{{bmatrix}} {rows} \\end{{bmatrix}}"),), True)
        entries = [entry for row in value for entry in row]
        if len(value[0]) == 1:
            add("tuple_plain", (("part", "(" + ", ".join(plain_number(entry) for entry in entries) + ")"),), False)
            add("tuple_latex", (("part", "(" + ", ".join(number_latex(entry) for entry in entries) + ")"),), True)
        else:
            nested = "[" + ", ".join("[" + ", ".join(plain_number(entry) for entry in row) + "]" for row in value)
            add("nested_list", (("part", nested + "]"),), False)
    elif kind == "interval":
        _interval_renderings(value, raw, add)
    elif kind == "word":
        add("text_latex", (("text", "\\text{"), ("part", value), ("text", "}")), True)
        add("bold_word", (("text", "**"), ("part", value), ("text", "**")), False)
        add("plain_word", (("part", value),), False)
        add("capitalized_word", (("part", value.capitalize()),), False)
        add("quoted_word", (("text", "“"), ("part", value), ("text", "”")), False)
    elif kind == "choice":
        letter, option = value
        add("reference_latex", (("text", "\\text{"), ("part", f"({letter})"), ("text", "}")), True)
        add("letter_parenthesized", (("part", f"({letter})"),), False)
        add("option_letter", (("text", "option "), ("part", letter)), False)
        add("bold_letter", (("text", "**"), ("part", f"({letter})"), ("text", "**")), False)
        if option and not option.startswith("3("):
            add("letter_with_text", (("part", f"({letter})"), ("text", " "), ("part", option)), False)
            add("option_text", (("part", option.lower()),), False)
        elif option:
            add("letter_with_text", (("part", f"({letter})"), ("text", " $"), ("part", option), ("text", "$")), False)
    elif kind == "base":
        digits, base = value
        add("reference_latex", (("part", raw.replace(" ", "")),), True)
        add("braced_subscript", (("part", f"{digits}_{{{base}}}"),), True)
        add("unicode_subscript", (("part", digits + str(base).translate(SUBSCRIPTS)),), False)
        add("base_in_words", (("part", digits), ("text", f" in base {base}")), False)
        add("base_parenthesized", (("part", f"{digits}_{{({base})}}"),), True)
    return tuple(found)


def _number_renderings(answer: Answer, raw: str, add) -> None:
    value, decimal = answer.value, answer.decimal
    bare = re.sub(r"\\\$|\^\\circ|\\text\{[^{}]*\}|\\mbox\{[^{}]*\}\^2", "", raw).strip()
    latex = number_latex(value, decimal=decimal)
    add("reference_latex", _unit_segments(answer, bare, "latex"), True)
    add("sympy_latex", _unit_segments(answer, latex, "latex"), True)
    add("dfrac_latex", _unit_segments(answer, number_latex(value, "\\dfrac", decimal), "latex"), True)
    add("tfrac_latex", _unit_segments(answer, number_latex(value, "\\tfrac", decimal), "latex"), True)
    add("plain_text", _unit_segments(answer, plain_number(value, decimal), "words"), False)
    add("unicode", _unit_segments(answer, unicode_number(value, decimal), "unicode"), False)
    if value.is_Rational and not value.is_Integer and terminates(value):
        add("exact_decimal", _unit_segments(answer, decimal_text(value), "words"), False)
        whole = int(value) if value > 0 else 0
        if whole:
            rest = value - whole
            add("mixed_latex", _unit_segments(answer, f"{whole}\\frac{{{rest.p}}}{{{rest.q}}}", "latex"), True)
    if value.is_Rational and not value.is_Integer and value > 1 and not decimal:
        whole, rest = int(value), value - int(value)
        add("mixed_plain", _unit_segments(answer, f"{whole} {rest.p}/{rest.q}", "words"), False)
        if rest in VULGAR_FRACTIONS:
            add("mixed_unicode", _unit_segments(answer, f"{whole}{VULGAR_FRACTIONS[rest]}", "unicode"), False)
    words = number_words(value) if not decimal else ""
    if words and not (value.is_Integer and abs(value) > 10**6):
        add("english_words", _unit_segments(answer, words, "words"), False)
    if value.is_Integer and abs(value) >= 1000:
        grouped = f"{int(value):,}"
        add("comma_grouped", _unit_segments(answer, grouped, "words"), False)
        add("braced_comma_latex", _unit_segments(answer, grouped.replace(",", "{,}"), "latex"), True)
        add("ungrouped", _unit_segments(answer, str(value), "words"), False)
    if value.is_Integer:
        add("bold_number", (("text", "**"), *_unit_segments(answer, str(value), "words"), ("text", "**")), False)
        add("mathbf_latex", (("text", "\\mathbf{"), *_unit_segments(answer, str(value), "latex"), ("text", "}")), True)
    if value.is_Rational and not value.is_Integer and not decimal:
        add("slash_latex", _unit_segments(answer, f"{value.p}/{value.q}", "latex"), True)
    if value.has(sympy.sqrt(2).func) or value.has(sympy.pi):
        add("code_style", (("text", "`"), ("part", plain_number(value)), ("text", "`")), False)


def _sequence_renderings(answer: Answer, raw: str, add) -> None:
    values = answer.value
    latex = [number_latex(entry) for entry in values]
    plain = [plain_number(entry) for entry in values]
    uni = [unicode_number(entry) for entry in values]
    if answer.ordered:
        add("reference_latex", (("part", raw),), True)
        add("tuple_latex", (("part", "(" + ", ".join(latex) + ")"),), True)
        add("left_right_latex", (("part", "\\left( " + ", ".join(latex) + " \\right)"),), True)
        add("tuple_plain", (("part", "(" + ", ".join(plain) + ")"),), False)
        add("tuple_unicode", (("part", "(" + ", ".join(uni) + ")"),), False)
        if answer.names:
            named = [f"{name} = {entry}" for name, entry in zip(answer.names, latex, strict=True)]
            add("named_components_latex", (("part", ", ".join(named[:-1]) + " \\text{ and } " + named[-1]),), True)
            if all(name.isalpha() for name in answer.names):
                named = [f"{name} = {entry}" for name, entry in zip(answer.names, plain, strict=True)]
                add("named_components_plain", (("part", ", ".join(named[:-1]) + " and " + named[-1]),), False)
        return
    add("reference_latex", (("part", raw),), True)
    add("list_latex", (("part", ", ".join(latex)),), True)
    add("set_latex", (("part", "\\{" + ", ".join(latex) + "\\}"),), True)
    add("prose_list", (("part", ", ".join(plain[:-1]) + " and " + plain[-1]),), False)
    add("prose_list_unicode", (("part", ", ".join(uni[:-1]) + ", and " + uni[-1]),), False)
    add("reversed_list_plain", (("part", ", ".join(reversed(plain))),), False)


def _interval_renderings(pieces: tuple, raw: str, add) -> None:
    def endpoint(value, writer, infinity):
        return {sympy.oo: infinity, -sympy.oo: "-" + infinity}.get(value) or writer(value)

    def bracketed(writer, infinity, union):
        return union.join(
            ("[" if left else "(")
            + endpoint(low, writer, infinity)
            + ", "
            + endpoint(high, writer, infinity)
            + ("]" if right else ")")
            for left, low, high, right in pieces
        )

    def inequality(writer, less, less_equal, joiner):
        sentences = []
        for left, low, high, right in pieces:
            bounds = []
            if low != -sympy.oo:
                bounds.append(f"{writer(low)} {less_equal if left else less} ")
            bounds.append("x")
            if high != sympy.oo:
                bounds.append(f" {less_equal if right else less} {writer(high)}")
            sentences.append("".join(bounds))
        return joiner.join(sentences)

    add("reference_latex", (("part", raw),), True)
    add("interval_latex", (("part", bracketed(number_latex, "\\infty", " \\cup ")),), True)
    add("interval_unicode", (("part", bracketed(unicode_number, "∞", " ∪ ").replace("-∞", "−∞")),), False)
    add("interval_plain", (("part", bracketed(plain_number, "infinity", " U ")),), False)
    add("inequality_latex", (("part", inequality(number_latex, "<", "\\le", " \\text{ or } ")),), True)
    add("inequality_unicode", (("part", inequality(unicode_number, "<", "≤", " or ")),), False)


def approximations(answer: Answer, rng: random.Random) -> list[tuple[str, str]]:
    """Decimal approximations (text, how: rounded or truncated) of an irrational or non-terminating scalar answer,
    with 3 to 6 significant digits and at least one decimal place; [] if the answer has none."""
    value = answer.value
    if answer.kind != "number" or not value.is_real or terminates(value) or value.is_Integer:
        return []
    exact = sympy.N(value, 30)
    found = []
    for digits in rng.sample(range(3, 7), 4):
        rounded, truncated = _significant(exact, digits, True), _significant(exact, digits, False)
        text, how = (rounded, "rounded") if rng.random() < 0.7 or rounded == truncated else (truncated, "truncated")
        if text not in [item for item, _ in found]:
            found.append((text, how))
    return found


def _significant(exact: sympy.Float, digits: int, rounding: bool) -> str:
    magnitude = int(sympy.floor(sympy.log(abs(exact), 10)))
    places = max(digits - 1 - magnitude, 1)
    scaled = abs(exact) * 10**places
    integer = int(sympy.floor(scaled + (sympy.Rational(1, 2) if rounding else 0)))
    text = str(integer).rjust(places + 1, "0")
    return ("-" if exact < 0 else "") + text[:-places] + "." + text[-places:]


# ----------------------------------------------------------------------------------------------------------------
# Wrong answers


def number_mutations(value: sympy.Expr) -> list[tuple[sympy.Expr, str]]:
    """Values an attempt plausibly reported instead of `value`, with how each was derived."""
    found = [(value + 1, "off_by_one_up"), (value - 1, "off_by_one_down"), (2 * value, "doubled")]
    if value != 0:
        found.append((-value, "sign_flipped"))
    if value.is_Integer:
        if value % 2 == 0 and value != 0:
            found.append((value / 2, "halved"))
        if abs(value) >= 10 and str(abs(value))[::-1] != str(abs(value)) and not str(abs(value)).endswith("0"):
            found.append((sympy.sign(value) * int(str(abs(value))[::-1]), "digits_reversed"))
        found.append((value + 10, "carry_error"))
    elif value.is_Rational:
        found += [(1 / value, "reciprocal"), (sympy.Rational(value.p + 1, value.q), "numerator_off_by_one")]
        found.append((sympy.Rational(value.p, value.q + 1), "denominator_off_by_one"))
        if 0 < value < 1:
            found.append((1 - value, "complement"))
        found.append((value / 2, "halved"))
    elif value.is_number and not value.is_real:
        real, imaginary = value.as_real_imag()
        found += [(sympy.conjugate(value), "conjugated"), (imaginary + real * sympy.I, "parts_swapped")]
        found.append((-real + imaginary * sympy.I, "real_sign_flipped"))
    else:
        found += [(value**2, "squared"), (value / 2, "halved")]
        if value.has(sympy.pi):
            found.append((value.subs(sympy.pi, 1), "pi_dropped"))
        for term in sympy.Add.make_args(value):
            if len(sympy.Add.make_args(value)) > 1:
                found.append((value - term, "term_dropped"))
        radicals = [atom for atom in value.atoms(sympy.Pow) if atom.exp == sympy.Rational(1, 2)]
        for radical in radicals:
            found.append((value.subs(radical, sympy.sqrt(radical.base + 1)), "radicand_off_by_one"))
            found.append((value.subs(radical, radical.base), "square_root_dropped"))
    return found


def wrong_answers(answer: Answer, problem: str) -> list[tuple[Answer, str]]:
    """Mutations of `answer` in its own shape, each differing from it in value."""
    kind, value = answer.kind, answer.value
    candidates: list[tuple[object, str]] = []
    if kind == "number":
        candidates = [(item, how) for item, how in number_mutations(value) if not (answer.unit and item <= 0)]
    elif kind == "expression":
        terms = sympy.Add.make_args(value)
        if len(terms) > 1:
            candidates += [(value - 2 * term, "term_sign_flipped") for term in terms]
            candidates += [(value - term, "term_dropped") for term in terms]
        candidates += [(value + 1, "constant_off_by_one"), (2 * value, "doubled"), (-value, "sign_flipped")]
        if value.is_Mul:
            candidates += [(value.func(*value.args[:-1]), "factor_dropped")]
    elif kind == "equation":
        left, right = value
        candidates = [((left, new), how) for new, how in number_mutations(right) if right != 0]
        candidates += [((left, -right), "sign_flipped")]
        if not left.is_Symbol:
            candidates += [((left + 1, right), "constant_off_by_one")]
        if len(sympy.Add.make_args(left)) > 1:
            candidates += [((left - 2 * term, right), "term_sign_flipped") for term in sympy.Add.make_args(left)]
    elif kind in ("sequence", "matrix"):
        candidates = _sequence_mutations(answer)
    elif kind == "interval":
        candidates = _interval_mutations(value)
    elif kind == "word":
        candidates = [(word, "other_option") for word in word_alternatives(value, problem)]
    elif kind == "choice":
        options = choice_options(problem)
        candidates = [((letter, options[letter]), "other_choice") for letter in options if letter != value[0]]
    elif kind == "base":
        digits, base = value
        number = int(digits, base)
        candidates = [((base_digits(number + 1, base), base), "off_by_one_up")]
        candidates.append(((base_digits(number - 1, base), base), "off_by_one_down"))
        candidates.append(((base_digits(number, base + 1), base), "wrong_base"))
        candidates.append(((str(number), base), "base_ten_digits"))
        if len(set(digits)) > 1:
            candidates.append(((digits[::-1], base), "digits_reversed"))
    found, seen = [], set()
    for candidate, how in candidates:
        wrong = Answer(kind, candidate, answer.unit, answer.names, answer.ordered, answer.decimal)
        key = canonical_latex(wrong)
        if key not in seen and not same_value(wrong, answer):
            seen.add(key)
            found.append((wrong, how))
    return found


def _sequence_mutations(answer: Answer) -> list:
    matrix = answer.kind == "matrix"
    entries = [entry for row in answer.value for entry in row] if matrix else list(answer.value)

    def rebuilt(items):
        if not matrix:
            return tuple(items)
        width = len(answer.value[0])
        return tuple(tuple(items[start : start + width]) for start in range(0, len(items), width))

    found = []
    for place, entry in enumerate(entries):
        for new, how in number_mutations(entry)[:4]:
            found.append((rebuilt(entries[:place] + [new] + entries[place + 1 :]), f"component_{how}"))
    if len(entries) >= 2 and entries[0] != entries[1] and answer.ordered and not matrix:
        found.insert(0, (rebuilt([entries[1], entries[0], *entries[2:]]), "components_swapped"))
    if not answer.ordered and len(entries) > 1:
        found += [(rebuilt(entries[:place] + entries[place + 1 :]), "root_dropped") for place in range(len(entries))]
    return found


def _interval_mutations(pieces: tuple) -> list:
    found = []
    for place, (left, low, high, right) in enumerate(pieces):

        def replaced(piece, place=place):
            return pieces[:place] + (piece,) + pieces[place + 1 :]

        if low.is_finite:
            found.append((replaced((not left, low, high, right)), "left_endpoint_flipped"))
            found.append((replaced((left, low - 1, high, right)), "left_endpoint_off_by_one"))
        if high.is_finite:
            found.append((replaced((left, low, high, not right)), "right_endpoint_flipped"))
            found.append((replaced((left, low, high + 1, right)), "right_endpoint_off_by_one"))
        if len(pieces) > 1:
            found.append((pieces[:place] + pieces[place + 1 :], "piece_dropped"))
    if len(pieces) == 2 and pieces[0][2] == pieces[1][1]:
        found.append((((pieces[0][0], pieces[0][1], pieces[1][2], pieces[1][3]),), "excluded_point_kept"))
    return found


@cache
def equal(first: sympy.Expr, second: sympy.Expr) -> bool:
    """Exact equality of two numbers (to 30 digits) or two expressions (their expanded difference vanishes)."""
    difference = first - second
    if difference.is_number and second.is_number:
        return abs(complex(sympy.N(difference, 30))) < 1e-20 * max(1.0, abs(complex(sympy.N(second, 30))))
    return sympy.expand(difference) == 0


def same_value(first: Answer, second: Answer) -> bool:
    if first.kind in ("number", "expression"):
        return equal(first.value, second.value)
    if first.kind == "equation":
        return all(equal(a, b) for a, b in zip(first.value, second.value, strict=True))
    if first.kind == "sequence" and not first.ordered:
        return sorted(map(sympy.default_sort_key, first.value)) == sorted(map(sympy.default_sort_key, second.value))
    if first.kind in ("sequence", "matrix", "interval"):
        return canonical_latex(first) == canonical_latex(second)
    if first.kind == "base":
        return first.value[1] == second.value[1] and first.value[0].lstrip("0") == second.value[0].lstrip("0")
    return first.value == second.value


@cache
def canonical_latex(answer: Answer) -> str:
    """How an attempt's final answer is quoted (LaTeX, or plain words for word and choice answers)."""
    kind, value = answer.kind, answer.value
    if kind == "number":
        body = number_latex(value, decimal=answer.decimal)
        return "".join(text for _, text in _unit_segments(answer, body, "latex"))
    if kind == "expression":
        return expression_latex(value)
    if kind == "equation":
        return f"{expression_latex(value[0])} = {expression_latex(value[1])}"
    if kind == "sequence":
        listed = ", ".join(number_latex(entry) for entry in value)
        return f"({listed})" if answer.ordered else listed
    if kind == "matrix":
        rows = " \\\\ ".join(" & ".join(number_latex(entry) for entry in row) for row in value)
        return f"\\begin{{pmatrix}} {rows} \\end{{pmatrix}}"
    if kind == "interval":
        return " \\cup ".join(
            ("[" if left else "(") + _interval_end(low) + ", " + _interval_end(high) + ("]" if right else ")")
            for left, low, high, right in value
        )
    if kind == "base":
        return f"{value[0]}_{{{value[1]}}}"
    if kind == "choice":
        return f"({value[0]}) {value[1]}".strip() if not value[1].startswith("3(") else f"({value[0]})"
    return value


def _interval_end(value: sympy.Expr) -> str:
    return {sympy.oo: "\\infty", -sympy.oo: "-\\infty"}.get(value) or number_latex(value)


# ----------------------------------------------------------------------------------------------------------------
# The checker


STRUCTURE = re.compile(
    r"\b(?:Attempts?|attempts?|Steps?|steps?|Rollouts?)\s+#?\d+(?:(?:,\s*|\s+(?:and|or|&)\s+|\s*,\s*and\s+)#?\d+)*"
    r"|\b\d+\s+(?:attempts|rollouts)\b|^\s*\d+[.)]\s|^#+\s",
    re.M,
)
ATOM = re.compile(
    r"(?<![\w.^_])-?\s?(?:\d+(?:\.\d+)?|\.\d+)?\s?"
    r"(?:\\frac\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}"
    r"|\\sqrt\{[^{}]+\}|\\sqrt\d|√\(?\d+\)?|\*?sqrt\(\d+\)|\\pi|π|\*?pi)(?:\s?/\s?\d+)?(?![\w^])"
    r"|(?<![\w.^_])-?(?:\d+(?:,\d{3})+|\d+(?:\.\d+)?|\.\d+)(?:/\d+)?(?![\w^_])"
    r"|[½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]"
)


def normalized(text: str) -> str:
    """Text with its notational noise removed (spacing commands, \\left/\\right, \\dfrac, Unicode minus)."""
    text = re.sub(r"\\left|\\right|\\[!,;]|\\displaystyle|\{,\}", lambda match: "," if match[0] == "{,}" else "", text)
    text = re.sub(r"\\[dt]frac", r"\\frac", text).replace("−", "-")
    return STRUCTURE.sub(" ", text)


@cache
def read_math(text: str, imaginary: bool) -> sympy.Expr | None:
    """`latex_to_sympy(text)`, or None where `text` is not math it can read."""
    try:
        return latex_to_sympy(text, imaginary)
    except Exception:  # parse_expr fails on non-math text with many kinds of error
        return None


@cache
def atom_value(atom: str) -> complex | None:
    if re.fullmatch(r"-?\d+(,\d{3})+", atom):
        return complex(int(atom.replace(",", "")))
    value = read_math(atom, True)
    return numeric(value) if value is not None and value.is_number else None


def atom_values(text: str) -> list[complex]:
    """The values of the numbers, fractions, radicals and multiples of pi written in `text`, except summands of a
    longer sum."""
    values = []
    for match in ATOM.finditer(text):
        before = text[: match.start()]
        signed = match[0].lstrip()[0] in "+-"
        summand_before = re.search(r"[\w)}]\s*$" if signed else r"[\w)}]\s*[+\-]\s*$", before)
        if summand_before or re.match(r"\s*[+\-]\s*[\w\\(]", text[match.end() :]):
            continue
        value = atom_value(match[0].replace(" ", ""))
        if value is not None:
            values.append(value)
        if "," in match[0]:
            values += [complex(int(number)) for number in match[0].split(",")]
    return values


@cache
def numeric(value: sympy.Expr) -> complex:
    """A number's value to double precision (computed from 30 digits)."""
    return complex(sympy.N(value, 30))


def close(first: complex, second: complex) -> bool:
    return abs(first - second) <= 1e-12 * max(1.0, abs(second))


@cache
def math_piece_value(piece: str, symbols: bool) -> sympy.Expr | None:
    piece = piece.strip().strip(".").strip()
    if not piece or len(piece) > 80 or re.search(r"[a-zA-Z]{4,}", re.sub(r"\\[a-zA-Z]+", "", piece)):
        return None
    value = read_math(piece, not symbols)
    return value if value is not None and (symbols or value.is_number) else None


def math_pieces(text: str) -> list[str]:
    segments = re.findall(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]|`(.+?)`", text, re.S)
    pieces = []
    for groups in segments:
        segment = "".join(groups)
        segment = re.sub(r"\\boxed\{(.*)\}", r"\1", segment)
        pieces += re.split(
            r"=|\\approx|≈|,|;|\\quad|\\qquad|\\text\{[^{}]*\}|\\Rightarrow|\\longrightarrow|\\to", segment
        )
    return pieces


def holds_answer(text: str, answer: Answer, raw: str) -> bool:
    """Whether `text` states the answer, in any notation this corpus renders or with an equal value."""
    flat = normalized(text)
    squeezed = squeeze(flat)
    for style, written, core in rendered_cores(answer, raw):
        if stands_alone(core, squeezed):
            return True
        if style in ("english_words", "option_text") and re.search(rf"\b{re.escape(written)}\b", flat, re.I):
            return True
    return _value_found(flat, answer) or _approximation_found(flat, answer)


def squeeze(text: str) -> str:
    """Text without the spaces next to symbols, and with single spaces between words."""
    return re.sub(r"\s+", " ", re.sub(r"\s*([^\w\s])\s*", r"\1", text))


def stands_alone(core: str, text: str) -> bool:
    """Whether `core` occurs in `text` as a whole term: not inside a longer number or word, not a summand, factor,
    numerator, denominator or exponent of something longer."""
    before = r"(?<![\w.+\-/^\\])(?<!\w\*)(?<!\)\*)(?<!\\frac\{)(?<!\}\{)(?<!\\sqrt\{)"
    after = r"(?![\w/^]|\.\d|\*[\w(]|[+\-][\w\\(]|\}\{|\)[/^])"
    return re.search(before + re.escape(core) + after, text) is not None


@cache
def rendered_cores(answer: Answer, raw: str) -> tuple[tuple[str, str, str], ...]:
    """Each rendering of the answer as (style, as written, with notation noise and spaces removed)."""
    found = []
    for rendering in renderings(answer, raw):
        written = "".join(text for _, text in rendering.segments)
        found.append((rendering.style, written, squeeze(normalized(written))))
    return tuple(found)


def _value_found(flat: str, answer: Answer) -> bool:
    kind, value = answer.kind, answer.value
    if kind == "number":
        target = numeric(value)
        if any(close(found, target) for found in atom_values(flat)):
            return True
        return any(
            (piece_value := math_piece_value(piece, False)) is not None and close(numeric(piece_value), target)
            for piece in math_pieces(flat)
        )
    if kind in ("expression", "equation"):
        # an expression itself; an equation's right side, or its two sides moved to one side (up to sign)
        targets = [value] if kind == "expression" else [value[1], value[0] - value[1]]
        if kind == "equation" and value[1].is_number and value[0].is_Symbol:
            return _value_found(flat, Answer("number", value[1]))
        for piece in math_pieces(flat):
            found = math_piece_value(piece, True)
            if found is not None and not found.is_number:
                if any(equal(found, target) for target in targets) or (
                    kind == "equation" and equal(found, -targets[1])
                ):
                    return True
        return False
    if kind in ("sequence", "matrix"):
        entries = [entry for row in value for entry in row] if kind == "matrix" else list(value)
        targets = [numeric(entry) for entry in entries]
        found = atom_values(flat)
        for start in range(len(found) - len(targets) + 1):
            window = found[start : start + len(targets)]
            if answer.ordered and all(close(a, b) for a, b in zip(window, targets, strict=True)):
                return True
            if not answer.ordered and all(any(close(a, b) for a in window) for b in targets):
                return True
        return False
    if kind == "interval":
        return _interval_found(flat, value)
    if kind == "word":
        return bool(re.search(rf"\b{re.escape(value)}\b", flat, re.I))
    if kind == "choice":
        letter, option = value
        if re.search(rf"\({letter}\)|\b(?:option|choice|answer|letter)\s+\**{letter}\b|\*\*{letter}\*\*", flat):
            return True
        return bool(option) and re.search(rf"\b{re.escape(option)}\b", flat, re.I) is not None
    digits, base = value
    return bool(
        re.search(rf"(?<![\w.]){digits}(?:_\{{?\(?{base}\)?\}}?|{str(base).translate(SUBSCRIPTS)}|\s+in base)", flat)
    )


def _interval_found(flat: str, pieces: tuple) -> bool:
    squeezed = re.sub(r"\s+", "", flat).replace("\\infty", "∞").replace("infinity", "∞").replace("\\le", "≤")
    for left, low, high, right in pieces:
        bracketed = False
        for match in re.finditer(r"([\[(])([^\[\]()]*(?:\([^()]*\)[^\[\]()]*)?),([^\[\]()]*)([\])])", squeezed):
            if (match[1] == "[") == left and (match[4] == "]") == right:
                if _end_matches(match[2], low) and _end_matches(match[3], high):
                    bracketed = True
        inequality = False
        lower = "" if low == -sympy.oo else rf"(?P<low>[^<≤]+?)({'≤' if left else '<'})"
        upper = "" if high == sympy.oo else rf"({'≤' if right else '<'})(?P<high>[^<≤\s$]+)"
        for match in re.finditer(lower + "x" + upper, squeezed):
            low_ok = low == -sympy.oo or _end_matches(match["low"].split("$")[-1].split(" ")[-1], low)
            high_ok = high == sympy.oo or _end_matches(match["high"], high)
            inequality = inequality or (low_ok and high_ok)
        if not (bracketed or inequality):
            return False
    return True


def _end_matches(text: str, value: sympy.Expr) -> bool:
    text = text.strip().strip("$")
    if value.is_infinite:
        return text in ("∞", "+∞") if value > 0 else text == "-∞"
    found = math_piece_value(text, False)
    return found is not None and close(numeric(found), numeric(value))


def _approximation_found(flat: str, answer: Answer) -> bool:
    if answer.kind != "number" or not answer.value.is_real:
        return False
    exact = numeric(answer.value).real
    for match in re.finditer(r"(?<![\w.])-?\d*\.\d+", flat):
        digits = len(match[0].lstrip("-").replace(".", "").lstrip("0"))
        unit = 10.0 ** -(len(match[0].split(".")[1]))
        if digits >= 3 and abs(float(match[0]) - exact) < unit:
            return True
    return False


# ----------------------------------------------------------------------------------------------------------------
# Critiques

HOW_PHRASES = {
    "off_by_one_up": "a fencepost slip at the end (counting an extra case)",
    "off_by_one_down": "a fencepost slip at the end (missing a case)",
    "doubled": "counting every configuration twice",
    "halved": "dividing by the same factor once too often",
    "sign_flipped": "a sign error in the final simplification",
    "digits_reversed": "transposing digits when copying the result",
    "carry_error": "a carry error in the arithmetic",
    "reciprocal": "inverting the ratio",
    "numerator_off_by_one": "an arithmetic slip in the numerator",
    "denominator_off_by_one": "an arithmetic slip in the denominator",
    "complement": "computing the complementary quantity instead",
    "conjugated": "the wrong sign on the imaginary part",
    "parts_swapped": "mixing up the real and imaginary parts",
    "real_sign_flipped": "the wrong sign on the real part",
    "squared": "forgetting a square root at the end",
    "pi_dropped": "losing a constant factor",
    "term_dropped": "dropping a term",
    "radicand_off_by_one": "an arithmetic slip under the radical",
    "square_root_dropped": "forgetting to take the square root",
    "term_sign_flipped": "a sign error in a single term",
    "constant_off_by_one": "an arithmetic slip in the constant term",
    "factor_dropped": "dropping a factor",
    "components_swapped": "swapping the coordinates",
    "root_dropped": "missing a solution",
    "left_endpoint_flipped": "getting the left endpoint's bracket wrong",
    "right_endpoint_flipped": "getting the right endpoint's bracket wrong",
    "left_endpoint_off_by_one": "a slip in solving for the left endpoint",
    "right_endpoint_off_by_one": "a slip in solving for the right endpoint",
    "piece_dropped": "losing part of the solution set",
    "excluded_point_kept": "keeping a point where the expression is undefined",
    "other_option": "comparing the wrong quantities",
    "other_choice": "misreading what the equation describes",
    "wrong_base": "converting with the wrong base",
    "base_ten_digits": "never converting out of base ten",
}

FRAMES = {
    "sectioned_report": (
        "## Feedback on the ⟨K⟩ attempts\n\n⟨All_K⟩ attempts reached a final answer, and none of them is correct. The "
        "issues are fixable.\n\n### Where each attempt went wrong\n⟨lines:- **Attempt ⟨a⟩** ended with ⟨W⟩. The slip: "
        "⟨how⟩.⟩\n\n«comparison»\n\n### Common errors\n- Losing track of ⟨N1⟩ from the statement partway through.\n"
        "- Stopping before ⟨Q1⟩ is fully simplified.\n\n### What to check\n- Re-read how ⟨N1⟩ and ⟨N2⟩ enter the "
        "setup.\n- «verification»\n\n### Suggested approach\n1. Write the governing relation with every given "
        "quantity.\n2. Reduce it to ⟨Q1⟩ and keep exact values.\n3. «should_get»\n\n«bold_final»\n\nGood luck on the "
        "next try — the setup in Attempt ⟨a1⟩ was the closest."
    ),
    "terse_note": (
        "⟨All_K⟩ attempts failed. ⟨inline:Attempt ⟨a⟩: ⟨W⟩ (⟨how⟩).⟩\n\nKey points:\n"
        "- Keep ⟨Q1⟩ exact; do not round.\n- Re-read how ⟨N1⟩ enters the setup before simplifying anything.\n"
        "- «parenthetical»\n- «conclusion»\n\n"
        "Fix the final step, then check the result against the statement before you box it."
    ),
    "socratic": (
        "Before anyone tries again, a few questions worth answering.\n\n**Looking at the attempts.** ⟨inline:Attempt "
        "⟨a⟩ landed on ⟨W⟩ — what produced that? (Hint: ⟨how⟩.)⟩\n\n**Questions to ask yourself**\n- Where does ⟨N1⟩ "
        "actually enter the computation?\n- Is ⟨Q1⟩ the quantity you want, or only a step toward it?\n- «comparison»\n"
        "- «verification»\n\n«should_get»\n\nTake it slowly — the structure is simpler than the attempts made it look."
    ),
    "checklist": (
        "**Checklist for the next attempt**\n\n- [ ] Use every given value, including ⟨N1⟩ and ⟨N2⟩.\n- [ ] Carry "
        "⟨Q1⟩ exactly through the algebra.\n- [ ] Avoid the errors seen so far:\n⟨lines:  - Attempt ⟨a⟩ → ⟨W⟩ "
        "(⟨how⟩)⟩\n- [ ] «verification»\n- [ ] «parenthetical»\n\n«bold_final»"
    ),
    "rederivation": (
        "### Step-by-step re-derivation\n\nThe attempts went off track at different places, so here is the derivation "
        "end to end.\n\n**Step 1 – Setup.** Start from the given data, ⟨N1⟩ and ⟨N2⟩.\n\n**Step 2 – Intermediate "
        "result.** The key intermediate quantity is\n\\[ ⟨Q1raw⟩ \\]\n«chain»\n\n**Step 3 – Finish.** «should_get»\n\n"
        "**Where the attempts diverged**\n⟨lines:- Attempt ⟨a⟩: wrote ⟨W⟩ after ⟨how⟩.⟩\n\n«boxed»"
    ),
    "attempt_table": (
        "### Summary of the ⟨K⟩ attempts\n\n| Attempt | Final answer | Issue |\n|---|---|---|\n⟨lines:| Attempt ⟨a⟩ | "
        "⟨W⟩ | ⟨how⟩ |⟩\n«table_row»\n\n**Common thread:** every attempt handled ⟨N1⟩ correctly but lost accuracy "
        "after ⟨Q1⟩.\n\n**What to check:** «verification»\n\n«conclusion»"
    ),
    "prose_review": (
        "I went through the ⟨K⟩ attempts. They share an underlying problem, and it is worth naming before the next "
        "try.\n\n⟨inline:Attempt ⟨a⟩ ended at ⟨W⟩ because of ⟨how⟩.⟩ «comparison»\n\nThe quantity ⟨Q1⟩ that several "
        "attempts computed along the way is right; the trouble starts after it. «parenthetical»\n\n**Suggested "
        "approach:** set up the relation with ⟨N1⟩, simplify to ⟨Q1⟩, then finish without dropping terms. "
        "«should_get»\n\nHope this helps — you are close."
    ),
}

SLOTS = {
    "conclusion": (
        (
            "So the correct final answer is ⟨A⟩.",
            "Putting it together, the answer is ⟨A⟩, not ⟨W1⟩.",
            "The final answer should be ⟨A⟩.",
        ),
        (
            "So the final answer is not ⟨W1⟩; redo the last step before committing.",
            "Putting it together, ⟨W1⟩ cannot be right, so finish the last step again.",
        ),
    ),
    "should_get": (
        ("If you carry this through you should get ⟨A⟩.", "Done carefully, the computation gives ⟨A⟩."),
        (
            "If you carry this through you should not land on ⟨W1⟩ again.",
            "Done carefully, the computation ends somewhere other than ⟨W1⟩.",
        ),
    ),
    "verification": (
        (
            "Verify by substitution: plugging ⟨A⟩ back into the original condition makes it hold.",
            "Check that ⟨A⟩ satisfies every condition in the statement — it does.",
        ),
        (
            "Verify by substitution: plugging ⟨W1⟩ back into the original condition fails, which is how you know it "
            "is wrong.",
            "Check any candidate against every condition in the statement; ⟨W1⟩ fails this.",
        ),
    ),
    "parenthetical": (
        ("(For reference, the expected result is ⟨A⟩.)", "Recompute that last step (it should come out to ⟨A⟩)."),
        (
            "(For reference, ⟨N1⟩ from the statement is used exactly once.)",
            "Recompute that last step (it should not come out to ⟨W1⟩).",
        ),
    ),
    "comparison": (
        (
            "Attempt ⟨a1⟩'s ⟨W1⟩ is close to the true value ⟨A⟩.",
            "Attempt ⟨a1⟩ reached ⟨W1⟩, whereas the correct result is ⟨A⟩.",
        ),
        (
            "Attempt ⟨a1⟩'s ⟨W1⟩ is close, but it is not the right value.",
            "Attempt ⟨a1⟩ reached ⟨W1⟩, which still misses the target.",
        ),
    ),
    "bold_final": (
        ("**Final answer: ⟨A⟩**", "**Correct answer:** ⟨A⟩"),
        ("**Final answer: recompute it — ⟨W1⟩ is wrong.**", "**Do not resubmit:** ⟨W1⟩"),
    ),
    "table_row": (("| Reference | ⟨A⟩ | — |",), ("| Next attempt | to be recomputed | — |",)),
    "boxed": (
        ("\\[ \\boxed{⟨Araw⟩} \\]", "$$\\boxed{⟨Araw⟩}$$"),
        ("\\[ ⟨Q1raw⟩ \\quad (\\text{keep this exact}) \\]",),
    ),
    "chain": (
        ("\\[ ⟨Q1raw⟩ \\;\\Longrightarrow\\; \\cdots \\;=\\; ⟨Araw⟩ \\]",),
        ("\\[ ⟨Q1raw⟩ \\;\\Longrightarrow\\; \\cdots \\;\\neq\\; ⟨W1raw⟩ \\]",),
    ),
}

APPROXIMATION_STYLES = {
    "approx_about": ("about ", False),
    "approx_latex": ("\\approx ", True),
    "approx_unicode": ("≈ ", False),
    "approx_roughly": ("roughly ", False),
    "approx_bare_decimal": ("", False),
}


@dataclass(frozen=True)
class Problem:
    """A MATH-500 row read for the corpus."""

    raw: str
    answer_type: str
    answer: Answer
    wrongs: tuple
    numbers: tuple
    intermediates: tuple
    renderings: tuple


def quoted_numbers(text: str, answer: Answer, raw: str) -> tuple:
    """Numbers written in `text` (outside diagrams and boxed answers) that `holds_answer` does not take for the
    answer, as LaTeX."""
    text = re.sub(r"\[asy\].*?\[/asy\]|\\boxed\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", " ", text, flags=re.S)
    found = []
    for match in ATOM.finditer(text):
        atom = match[0].strip()
        if re.fullmatch(r"-?(?:\d+(?:\.\d+)?|\\frac\{\d+\}\{\d+\}|\d*\\sqrt\{\d+\})", atom) and atom not in found:
            if len(atom) <= 14 and not holds_answer(f"${atom}$", answer, raw):
                found.append(atom)
    return tuple(found[:12])


def read_problem(row: dict) -> Problem:
    kind_of_type = answer_type(row["answer"], row["problem"])
    answer = parse_answer(row["answer"], row["problem"], kind_of_type)
    raw = row["answer"].strip()
    return Problem(
        raw=raw,
        answer_type=kind_of_type,
        answer=answer,
        wrongs=tuple(wrong_answers(answer, row["problem"])),
        numbers=quoted_numbers(row["problem"], answer, raw),
        intermediates=quoted_numbers(row["solution"], answer, raw),
        renderings=renderings(answer, raw),
    )


def quote(wrong: Answer, opening: str, closing: str) -> tuple[str, str]:
    """How a critique quotes a wrong final answer: (as written in the text, as written inside display math)."""
    latex = canonical_latex(wrong)
    if wrong.kind == "word":
        return latex, f"\\text{{{latex}}}"
    if wrong.kind == "choice":
        return latex, f"\\text{{({wrong.value[0]})}}"
    return f"{opening}{latex}{closing}", latex


def draft(problem: Problem, rendering: Rendering | None, rng: random.Random) -> dict | None:
    """A critique of a failed group for `problem`; it states the answer in `rendering` (None: a clean critique)."""
    opening, closing = rng.choice((("$", "$"), ("\\(", "\\)")))
    attempts_total = rng.randint(2, 8)
    discussed = sorted(rng.sample(range(1, attempts_total + 1), rng.randint(2, min(4, attempts_total))))
    wrongs = rng.sample(problem.wrongs, min(len(problem.wrongs), len(discussed)))
    while len(wrongs) < len(discussed):
        wrongs.append(rng.choice(problem.wrongs))
    rng.shuffle(wrongs)
    quoted = [quote(wrong, opening, closing) for wrong, _ in wrongs]
    numbers = [f"{opening}{number}{closing}" for number in rng.sample(problem.numbers, min(2, len(problem.numbers)))]
    numbers += ["the given data", "the other given values"][len(numbers) :]
    intermediate = rng.choice(problem.intermediates or problem.numbers or ("",))
    frame = rng.choice(sorted(FRAMES))
    template = FRAMES[frame]
    slot_names = re.findall(r"«(\w+)»", template)
    raw_slots = {"boxed", "chain"}
    eligible = [name for name in slot_names if rendering is None or rendering.math or name not in raw_slots]
    if rendering is not None and not eligible:
        return None
    leaking = set(rng.sample(eligible, 2 if len(eligible) > 1 and rng.random() < 0.25 else 1)) if rendering else set()
    for name in slot_names:
        leak_sentences, clean_sentences = SLOTS[name]
        template = template.replace(f"«{name}»", rng.choice(leak_sentences if name in leaking else clean_sentences))

    def attempt_lines(match: re.Match) -> str:
        layout, line = match[1], match[2]
        lines = [
            line.replace("⟨a⟩", str(number)).replace("⟨W⟩", written).replace("⟨how⟩", describe(how))
            for number, (written, _), (_, how) in zip(discussed, quoted, wrongs, strict=True)
        ]
        return ("\n" if layout == "lines" else " ").join(lines)

    template = re.sub(r"⟨(lines|inline):((?:[^⟨⟩]|⟨\w+⟩)*)⟩", attempt_lines, template)
    fields = {
        "K": str(attempts_total),
        "All_K": "Both" if attempts_total == 2 else f"All {attempts_total}",
        "a1": str(discussed[0]),
        "W1": quoted[0][0],
        "W1raw": quoted[0][1],
        "N1": numbers[0],
        "N2": numbers[1],
        "Q1": f"{opening}{intermediate}{closing}" if intermediate else "the key intermediate result",
        "Q1raw": intermediate or "\\text{key intermediate result}",
    }
    template = re.sub(r"⟨(All_K|K|a1|W1raw|W1|N1|N2|Q1raw|Q1)⟩", lambda match: fields[match[1]], template)
    text, context, parts = "", "", []
    for place, piece in enumerate(re.split(r"⟨(A|Araw)⟩", template)):
        if place % 2 == 0:
            text, context = text + piece, context + piece
            continue
        wrap = rendering.math and piece == "A"
        text, context = text + (opening if wrap else ""), context + (opening if wrap else "")
        for role, written in rendering.segments:
            text += written
            context += "\\ldots" if role == "part" else written
            if role == "part":
                parts.append(written)
        text, context = text + (closing if wrap else ""), context + (closing if wrap else "")
    return {
        "frame": frame,
        "text": text,
        "context": context,
        "parts": list(dict.fromkeys(parts)),
        "wrong": quoted[0][0].removeprefix(opening).removesuffix(closing),
        "wrong_how": wrongs[0][1],
    }


def describe(how: str) -> str:
    base = how.removeprefix("component_")
    phrase = HOW_PHRASES[base]
    return phrase + (" in a single component" if how != base else "")


def approximation_rendering(problem: Problem, text: str, style: str) -> Rendering:
    prefix, math = APPROXIMATION_STYLES[style]
    mode = "latex" if math else "unicode"
    segments = _unit_segments(problem.answer, text, mode)
    return Rendering(style, ((("text", prefix),) if prefix else ()) + segments, math)


def acceptable(problem: Problem, case: dict, leak: bool) -> bool:
    if not leak:
        return not holds_answer(case["text"], problem.answer, problem.raw)
    if holds_answer(case["context"], problem.answer, problem.raw) or not holds_answer(
        case["text"], problem.answer, problem.raw
    ):
        return False
    return all(occurrences(part, case["text"]) > occurrences(part, case["context"]) for part in case["parts"])


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The `fourteenth` corpus: leaks and clean critiques of failed groups for every MATH-500 row."""
    cases = []
    for index, row in enumerate(problems):
        problem = read_problem(row)
        plan_rng = random.Random(f"{seed}:{index}:plan")
        styles = list(problem.renderings)
        plan_rng.shuffle(styles)
        plan = [("rendering", styles[slot % len(styles)]) for slot in range(RENDERING_LEAKS_PER_PROBLEM)]
        approximate = approximations(problem.answer, plan_rng)
        for slot in range(min(APPROXIMATION_LEAKS_PER_PROBLEM, len(approximate))):
            style = plan_rng.choice(sorted(APPROXIMATION_STYLES))
            plan.append(("approximation", approximation_rendering(problem, approximate[slot][0], style)))
        plan += [("clean", None)] * len(plan)
        for number, (family, rendering) in enumerate(plan):
            for attempt in range(DRAWS):
                rng = random.Random(f"{seed}:{index}:{number}:{attempt}")
                case = draft(problem, rendering, rng)
                if case is not None and acceptable(problem, case, family != "clean"):
                    break
            else:
                raise RuntimeError(f"no acceptable {family} critique for problem {index}")
            cases.append(
                {
                    "family": family,
                    "split": "held_out",
                    "index": index,
                    "answer_type": problem.answer_type,
                    "style": rendering.style if rendering else "none",
                    "frame": case["frame"],
                    "text": case["text"],
                    "leak": family != "clean",
                    "written_out": family == "rendering",
                    "parts": case["parts"],
                    "context": case["context"],
                    "wrong": case["wrong"],
                    "wrong_how": case["wrong_how"],
                }
            )
    return cases
