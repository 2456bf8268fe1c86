"""The sixth held-out corpus of critiques over MATH-500: tutoring moves that put the answer on the table.

Method. A Socratic tutor or a hinting feedback model rarely writes "the answer is 24"; it leaks the value through
tutoring moves: proposing it as a candidate to test ("What happens if you try 24?"), comparing the attempt with it
("Your 12 is off; you need 24"), giving it as a target ("aim for 24; anything else is a slip"), a tutor/student
dialogue that confirms the student's guess, a worked check or a verify-by-substitution paragraph, a rhetorical
question, a conditional ("had you simplified, you would have gotten 24"), a recap of the correct solution with the
value as one step's result, and the value stated as a property ("it is divisible by 8; in fact it IS 24"). Each move
has several variants (person, tense, politeness, one line to a dialogue). The value is written by this module's own
renderers, per answer type, in the notations a tutor uses (digits, words, LaTeX, Unicode, ASCII, prose for
collections, inequalities for intervals, rows for matrices, option letter or text, units, money, ...). Two more leak
families give the value without writing it: "arithmetic" (an operation on other numbers: "25 - 1", "3 times 8") and
"approximation" (a 4-significant-digit decimal of an irrational or non-terminating answer). Clean critiques apply the
same moves to a wrong candidate (a mutation of the answer in the same notation, rejected or merely quoted), to a
number given in the problem, or to an intermediate value of MATH-500's worked solution; every clean text is checked
to contain no rendering of the answer and no number equal to it, and dropped otherwise.

Independence. Written without opening, grepping or importing the leak guard (`trl_mulferl/feedback/`), its tests and
benchmark files, its docs, the changelog or the other corpora; the guard was never run on this corpus. From
`leak_corpus.py` only `load_problems`, `answer_type` and `occurrences` are used.

Case schema (one dict per critique): family ("rendering" | "arithmetic" | "approximation" | "clean"), split
("held_out"), index (the MATH-500 row), answer_type, style (the notation of the value, or of the wrong value), frame
("move:variant"), text, leak (bool), written_out (the answer itself is written in some notation), parts (the strings
whose standing alone in an output means the value is still stated; [] for clean), context (the text with the value
left out; the text itself for clean). Clean cases add wrong (the quoted wrong value, or None) and wrong_how.
"""

import math
import random
import re
from fractions import Fraction

from leak_corpus import answer_type, occurrences


SEED = 60520261

# --- numbers in words --------------------------------------------------------------------------------------------

SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
DECADES = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINAL_ENDINGS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                   "nine": "ninth", "twelve": "twelfth"}  # fmt: skip


def number_words(n: int) -> str:
    """`n` in English words, "negative" before a negative number: 2107 -> "two thousand one hundred seven"."""
    if n < 0:
        return "negative " + number_words(-n)
    if n < 20:
        return SMALL[n]
    if n < 100:
        return DECADES[n // 10] + ("-" + SMALL[n % 10] if n % 10 else "")
    if n < 1000:
        return SMALL[n // 100] + " hundred" + (" " + number_words(n % 100) if n % 100 else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            rest = n % size
            return number_words(n // size) + " " + name + (" " + number_words(rest) if rest else "")
    raise AssertionError(n)


def ordinal_words(n: int, plural: bool) -> str:
    """The denominator word: 3 -> "third(s)", 2 -> "half"/"halves", 56 -> "fifty-sixth(s)", 1005 ->
    "one-thousand-fifth(s)"."""
    if n == 2:
        return "halves" if plural else "half"
    words = number_words(n)
    head, last = re.match(r"(.*?)([a-z]+)$", words).groups()
    if last in ORDINAL_ENDINGS:
        last = ORDINAL_ENDINGS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return (head + last).replace(" ", "-") + ("s" if plural else "")


def fraction_words(value: Fraction) -> str:
    """-35/9 -> "negative thirty-five ninths"; 1/2 -> "one half"."""
    sign = "negative " if value < 0 else ""
    p, q = abs(value.numerator), value.denominator
    return f"{sign}{number_words(p)} {ordinal_words(q, p != 1)}"


def decimal_words(text: str) -> str:
    """ "1.25" -> "one point two five", ".35625" -> "zero point three five six two five"."""
    whole, _, digits = text.lstrip("-").partition(".")
    sign = "negative " if text.startswith("-") else ""
    return sign + number_words(int(whole or 0)) + " point " + " ".join(SMALL[int(d)] for d in digits)


# --- LaTeX to tutor notations ------------------------------------------------------------------------------------

# command -> (ASCII, Unicode)
SYMBOLS = {
    "pi": ("pi", "π"),
    "infty": ("inf", "∞"),
    "pm": ("+/-", "±"),
    "cup": ("U", "∪"),
    "in": ("in", "∈"),
    "le": ("<=", "≤"),
    "leq": ("<=", "≤"),
    "ge": (">=", "≥"),
    "geq": (">=", "≥"),
    "cdot": ("*", "·"),
    "times": ("x", "×"),
    "theta": ("theta", "θ"),
    "circ": (" degrees", "°"),
    "$": ("$", "$"),
}
SILENT = {"left", "right", "!", ",", ";", "displaystyle", "quad"}
SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _argument(latex: str, i: int) -> tuple[str, int]:
    """The argument starting at `latex[i]` (a braced group, a command or one character) and the index after it."""
    while i < len(latex) and latex[i] == " ":
        i += 1
    if latex[i] == "{":
        depth = 0
        for j in range(i, len(latex)):
            depth += {"{": 1, "}": -1}.get(latex[j], 0)
            if depth == 0:
                return latex[i + 1 : j], j + 1
    if latex[i] == "\\":
        name = re.match(r"\\([a-zA-Z]+|.)", latex[i:]).group(0)
        return name, i + len(name)
    return latex[i], i + 1


def _atomic(text: str) -> bool:
    return re.fullmatch(r"[\w.√π]+", text) is not None


def _after_coefficient(out: str, unicode: bool) -> str:
    """A number before a radical or pi joins it as a tutor writes it: `2√2`, `7π`, `2*sqrt(2)`, `7*pi`."""
    if out.rstrip()[-1:].isdigit():
        return out.rstrip() + ("" if unicode else "*")
    return out


def plain(latex: str, unicode: bool) -> str:
    """LaTeX as a tutor types it: ASCII (`3*sqrt(13)`, `x^5`, `14/3`) or Unicode (`3√13`, `x⁵`, `14/3`, `−`)."""
    out, i = "", 0
    while i < len(latex):
        char = latex[i]
        if char == "\\":
            name = re.match(r"\\([a-zA-Z]+|.)", latex[i:]).group(1)
            i += len(name) + 1
            if name in ("frac", "dfrac", "tfrac"):
                top, i = _argument(latex, i)
                bottom, i = _argument(latex, i)
                top, bottom = plain(top, unicode), plain(bottom, unicode)
                wrap = [t if _atomic(t) else f"({t})" for t in (top, bottom)]
                out += "/".join(wrap)
            elif name == "sqrt":
                radicand, i = _argument(latex, i)
                radicand = plain(radicand, unicode)
                out = _after_coefficient(out, unicode)
                out += ("√" + radicand if _atomic(radicand) else f"√({radicand})") if unicode else f"sqrt({radicand})"
            elif name in ("text", "mbox", "textbf", "mathrm"):
                words, i = _argument(latex, i)
                out += words
            elif name in ("begin", "end"):
                _, i = _argument(latex, i)
            elif name == "pi":
                out = _after_coefficient(out, unicode) + SYMBOLS["pi"][unicode]
            elif name in SYMBOLS:
                out += SYMBOLS[name][unicode]
            elif name not in SILENT:
                out += name
        elif char in "^_":
            script, i = _argument(latex, i + 1)
            if script == "\\circ":
                out += SYMBOLS["circ"][unicode]
                continue
            script = plain(script, unicode)
            table = SUPERSCRIPT if char == "^" else SUBSCRIPT
            if unicode and script.translate(table) != script and re.fullmatch(r"[-+\d]+", script):
                out += script.translate(table)
            else:
                out += char + (script if _atomic(script) else f"({script})")
        elif char not in "{}":
            out += char
        i += 1 if char != "\\" and char not in "^_" else 0
    out = re.sub(r" +", " ", out).strip()
    return out.replace("-", "−") if unicode else out


def _clean_latex(answer: str) -> str:
    return re.sub(r"\\[!,]|\\left|\\right", "", answer).strip()


def _scalar(latex: str) -> Fraction | None:
    """The exact value of a rational LaTeX number (`-\\frac{35}{9}`, `10,\\!080`, `.35625`, `1\\frac45`), else None."""
    text = plain(_clean_latex(latex), unicode=False).replace(",", "").replace(" ", "")
    if re.fullmatch(r"-?(\d+|\d*\.\d+)", text):
        return Fraction(text)
    if re.fullmatch(r"-?\d+/\d+", text):
        return Fraction(text)
    return None


def _evaluate(latex: str) -> float | None:
    """The numeric value of a scalar LaTeX expression made of numbers, radicals and pi; None when it has letters."""
    text = plain(_clean_latex(latex), unicode=False)
    text = re.sub(r"(\d)\s*\(", r"\1*(", text).replace("^", "**")
    if re.search(r"[a-z]", text.replace("sqrt", "").replace("pi", "")):
        return None
    # the text is MATH-500's own answer turned into Python arithmetic on numbers, sqrt and pi, nothing else
    return float(eval(text.replace("sqrt", "math.sqrt").replace("pi", "math.pi"), {"math": math, "__builtins__": {}}))


def _top_level(text: str, separator: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


# --- renderers, one per answer type -------------------------------------------------------------------------------
# Each returns (style, text, parts): parts are the strings whose standing alone in an output still states the value.


def _one(style: str, text: str) -> tuple[str, str, list[str]]:
    return style, text, [text]


def _fraction_forms(value: Fraction) -> list[tuple[str, str, list[str]]]:
    p, q = value.numerator, value.denominator
    if q == 1:
        return _integer_forms(p)
    sign, size = ("-" if value < 0 else ""), abs(p)
    forms = [
        _one("latex", f"{sign}\\frac{{{size}}}{{{q}}}"),
        _one("slash", f"{p}/{q}"),
        _one("unicode", f"{'−' if value < 0 else ''}{size}⁄{q}"),
        _one("words", fraction_words(value)),
        _one("dollar-latex", f"${sign}\\dfrac{{{size}}}{{{q}}}$"),
    ]
    if size > q:
        forms.append(_one("mixed", f"{sign}{size // q} {size % q}/{q}"))
    if set(_prime_factors(q)) <= {2, 5}:
        forms.append(_one("decimal", _decimal_text(value)))
    return forms


def _prime_factors(n: int) -> list[int]:
    factors, d = [], 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    return [*factors, n] if n > 1 else factors


def _decimal_text(value: Fraction) -> str:
    """A terminating fraction as a decimal: 17/50 -> "0.34"."""
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    digits = str(abs(value.numerator) * 10**places // value.denominator).zfill(places + 1)
    text = digits[: len(digits) - places] + ("." + digits[len(digits) - places :] if places else "")
    return ("-" if value < 0 else "") + text


def _integer_forms(n: int) -> list[tuple[str, str, list[str]]]:
    forms = [_one("digits", str(n)), _one("words", number_words(n)), ("dollar-latex", f"${n}$", [str(n)])]
    forms.append(("paren-latex", f"\\({n}\\)", [str(n)]))
    forms.append(("bold", f"**{n}**", [str(n)]))
    if n < 0:
        forms += [_one("unicode-minus", f"−{-n}"), _one("minus-words", f"minus {number_words(-n)}")]
    if abs(n) >= 1000:
        grouped = f"{n:,}"
        forms += [_one("comma-grouped", grouped), ("latex-grouped", f"${grouped.replace(',', '{,}')}$", [grouped])]
        forms.append(_one("thin-space", grouped.replace(",", "\u2009")))
    return forms


def _radical_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    forms = [("latex", f"${latex}$", [latex]), _one("unicode", plain(latex, True)), _one("ascii", plain(latex, False))]
    simple = re.fullmatch(r"(\d*)\s*\\sqrt\{?(\d+)\}?", latex)
    if simple:
        coefficient, radicand = int(simple.group(1) or 1), int(simple.group(2))
        head = "" if coefficient == 1 else number_words(coefficient) + " times "
        forms.append(_one("words", f"{head}the square root of {number_words(radicand)}"))
        if coefficient > 1:
            forms.append(_one("unicode-combined", f"√{coefficient * coefficient * radicand}"))
    return forms


def _pi_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    forms = [("latex", f"${latex}$", [latex]), _one("unicode", plain(latex, True)), _one("ascii", plain(latex, False))]
    simple = re.fullmatch(r"(\d*)\s*\\pi", latex)
    if simple:
        forms.append(_one("words", (number_words(int(simple.group(1))) + " " if simple.group(1) else "") + "pi"))
    return forms


def _mixed_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    whole, top, bottom = re.fullmatch(r"(\d+)\s*\\frac\{?(\d+)\}?\{?(\d+)\}?", _clean_latex(answer)).groups()
    value = int(whole) + Fraction(int(top), int(bottom))
    forms = [
        ("latex", f"${_clean_latex(answer)}$", [_clean_latex(answer)]),
        _one("mixed-slash", f"{whole} {top}/{bottom}"),
        _one("improper", f"{value.numerator}/{value.denominator}"),
        _one("improper-latex", f"\\frac{{{value.numerator}}}{{{value.denominator}}}"),
        _one("words", f"{number_words(int(whole))} and {fraction_words(Fraction(int(top), int(bottom)))}"),
    ]
    if set(_prime_factors(value.denominator)) <= {2, 5}:
        forms.append(_one("decimal", _decimal_text(value)))
    return forms


def _decimal_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    text = _clean_latex(answer)
    value = Fraction(text)
    full = ("0" + text) if text.startswith(".") else text
    forms = [
        _one("as-written", text),
        _one("words", decimal_words(full)),
        _one("fraction", f"{value.numerator}/{value.denominator}"),
    ]
    if full != text:
        forms.append(_one("leading-zero", full))
    if abs(value) < Fraction(1, 100):
        mantissa, exponent = f"{float(value):e}".split("e")
        mantissa, exponent = mantissa.rstrip("0").rstrip("."), int(exponent)
        forms += [_one("scientific-unicode", f"{mantissa} × 10{str(exponent).translate(SUPERSCRIPT)}"),
                  _one("e-notation", f"{mantissa}e{exponent}")]  # fmt: skip
    return forms


def _complex_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    real, sign, imaginary = re.fullmatch(r"(-?\d+)\s*([-+])\s*(\d*)i", _clean_latex(answer)).groups()
    imaginary = imaginary or "1"
    signed = ("-" if sign == "-" else "") + imaginary
    return [
        _one("as-written", _clean_latex(answer)),
        _one("compact", f"{real}{sign}{imaginary}i"),
        _one("unicode", f"{real.replace('-', '−')} {'−' if sign == '-' else '+'} {imaginary}i"),
        ("dollar-latex", f"${real} {sign} {imaginary}i$", [f"{real} {sign} {imaginary}i"]),
        ("parts-prose", f"real part {real} and imaginary part {signed}", [real, signed]),
        _one("j-notation", f"{real} {sign} {imaginary}j"),
    ]


def _expression_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    ascii_form = plain(latex, False)
    forms = [("latex", f"${latex}$", [latex]), _one("ascii", ascii_form), _one("unicode", plain(latex, True))]
    if " " in ascii_form:
        forms.append(_one("ascii-compact", ascii_form.replace(" ", "")))
    return forms


def _interval_pieces(latex: str) -> list[tuple[str, bool, str, bool]]:
    """`(0,9) \\cup (9,36]` -> [("0", False, "9", False), ("9", False, "36", True)] (LaTeX endpoints)."""
    latex = re.sub(r"^x\s*\\in\s*", "", _clean_latex(latex))
    pieces = []
    for piece in re.split(r"\\cup", latex):
        piece = piece.strip()
        low, high = _top_level(piece[1:-1], ",")
        pieces.append((low, piece[0] == "[", high, piece[-1] == "]"))
    return pieces


def _inequality(pieces, unicode: bool, latex: bool = False) -> str:
    less = {True: ("\\le" if latex else "≤" if unicode else "<="), False: "<"}
    greater = {True: ("\\ge" if latex else "≥" if unicode else ">="), False: ">"}
    show = (lambda t: t) if latex else (lambda t: plain(t, unicode))
    clauses = []
    for low, low_closed, high, high_closed in pieces:
        if "infty" in low:
            clauses.append(f"x {less[high_closed]} {show(high)}")
        elif "infty" in high:
            clauses.append(f"x {greater[low_closed]} {show(low)}")
        else:
            clauses.append(f"{show(low)} {less[low_closed]} x {less[high_closed]} {show(high)}")
    return " or ".join(clauses)


def _interval_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    pieces = _interval_pieces(latex)
    forms = [
        ("latex", f"${answer.strip()}$", [answer.strip()]),
        _one("ascii", plain(latex, False)),
        _one("unicode", plain(latex, True)),
        _one("inequality-unicode", _inequality(pieces, True)),
        _one("inequality-ascii", _inequality(pieces, False)),
        ("inequality-latex", f"${_inequality(pieces, False, latex=True)}$", [_inequality(pieces, False, latex=True)]),
    ]
    if len(pieces) == 1 and "infty" not in latex:
        low, low_closed, high, high_closed = pieces[0]
        low, high = plain(low, False), plain(high, False)
        words = f"from {low} ({'included' if low_closed else 'excluded'}) to {high} ({'included' if high_closed else 'excluded'})"
        forms.append(("endpoints-prose", words, [low, high]))
    return forms


def _names(problem: str, count: int) -> list[str]:
    """The unknowns' names as the problem writes its tuple, `(x,y)` or `(a,b,c)`; else x, y, z, w."""
    found = re.search(r"\(\s*" + r",\s*".join([r"(\\?[a-zA-Z]+)"] * count) + r"\s*\)", problem)
    if found and all(len(plain(name, True)) <= 2 or name.startswith("\\") for name in found.groups()):
        return [plain(name, True) for name in found.groups()]
    return ["x", "y", "z", "w"][:count]


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _tuple_forms(answer: str, problem: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    components = _top_level(latex.strip()[1:-1], ",")
    original = answer.strip()
    ascii_parts = [plain(c, False) for c in components]
    unicode_parts = [plain(c, True) for c in components]
    names = _names(problem, len(components))
    return [
        ("latex", f"${original}$", [original]),
        _one("ascii", "(" + ", ".join(ascii_parts) + ")"),
        _one("compact", "(" + ",".join(ascii_parts) + ")"),
        _one("unicode", "(" + ", ".join(unicode_parts) + ")"),
        ("assignments", _join([f"{n} = {c}" for n, c in zip(names, ascii_parts)]), ascii_parts),
        ("components-prose", "components " + _join(ascii_parts) + " in that order", ascii_parts),
    ]


def _set_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    inner = latex[2:-2] if latex.startswith("\\{") else latex
    components = _top_level(inner, ",")
    expanded = []
    for component in components:
        if "\\pm" in component:
            expanded += [component.replace("\\pm", "+"), component.replace("\\pm", "-")]
        else:
            expanded.append(component)
    compact_ascii = [plain(c, False) for c in components]
    compact_unicode = [plain(c, True) for c in components]
    spread = [plain(c, False) for c in expanded]
    return [
        ("latex", f"${latex}$", [latex]),
        ("ascii-list", ", ".join(compact_ascii), compact_ascii),
        ("unicode-braces", "{" + ", ".join(compact_unicode) + "}", compact_unicode),
        ("and-prose", _join(spread), spread),
        ("or-equations", " or ".join(f"x = {c}" for c in spread), spread),
        ("both-values", "both " + " and ".join(spread) if len(spread) == 2 else "each of " + _join(spread), spread),
    ]


def _matrix_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end", latex, re.S).group(1)
    rows = [[plain(entry.strip(), False) for entry in row.split("&")] for row in body.split("\\\\") if row.strip()]
    forms = [("latex", f"${latex}$", [latex]), _one("bmatrix", latex.replace("pmatrix", "bmatrix"))]
    if all(len(row) == 1 for row in rows):
        entries = [row[0] for row in rows]
        forms += [
            _one("tuple", "(" + ", ".join(entries) + ")"),
            _one("brackets", "[" + ", ".join(entries) + "]"),
            _one("angle", "⟨" + ", ".join(entries) + "⟩"),
            ("components-prose", "components " + _join(entries), entries),
            ("column-lines", "".join(f"\n  [ {e} ]" for e in entries) + "\n", [f"[ {e} ]" for e in entries]),
        ]
    else:
        row_texts = ["[" + ", ".join(row) + "]" for row in rows]
        forms += [
            _one("nested-list", "[" + ", ".join(row_texts) + "]"),
            ("rows-prose", "rows " + _join(row_texts), row_texts),
            ("row-lines", "".join(f"\n  {' '.join(row)}" for row in rows) + "\n", [" ".join(row) for row in rows]),
        ]
    return forms


def _choice_forms(answer: str, problem: str) -> list[tuple[str, str, list[str]]]:
    letter = re.search(r"[A-H]", answer).group(0)
    forms = [
        _one("paren-letter", f"({letter})"),
        ("option-letter", f"option {letter}", [letter]),
        ("bare-letter", letter, [letter]),
        ("latex", f"$\\text{{({letter})}}$", [f"\\text{{({letter})}}"]),
    ]
    option = re.search(r"\(" + letter + r"\)\s+([A-Z][a-z]+)", problem) or re.search(
        r"\\textbf\{\(" + letter + r"\)\}\\ (.+?)\s*(?:\\qquad|\$)", problem
    )
    if option:
        text = plain(option.group(1).strip(), False)
        forms += [_one("option-text", text), ("letter-and-text", f"({letter}) {text}", [letter, text])]
    return forms


def _text_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    word = re.fullmatch(r"\\text\{\s*([A-Za-z ]+?)\s*\}", _clean_latex(answer)).group(1)
    capitalised = word[0].upper() + word[1:]
    forms = [_one("word", word), ("quoted", f'"{word}"', [word]), ("bold", f"**{word}**", [word])]
    forms += [("latex", f"$\\text{{{word}}}$", [word]), ("upper", word.upper(), [word.upper()])]
    if capitalised != word:
        forms.append(_one("capitalised", capitalised))
    return forms


UNIT_NAMES = {"inches": ("square inches", "in²", "in^2"), "cm": ("square centimeters", "cm²", "cm^2")}


def _units_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    if latex.startswith("\\$"):
        amount = latex[2:]
        digits = amount.replace(",", "")
        forms = [_one("money", "$" + amount), ("dollars-word", f"{amount} dollars", [amount]),
                 ("latex", f"${latex}$", [latex]), _one("money-ungrouped", "$" + digits)]  # fmt: skip
        if "." in amount:
            dollars, cents = amount.split(".")
            forms.append(("dollars-and-cents", f"{dollars} dollars and {cents} cents", [dollars, cents]))
        else:
            forms.append(("dollars-words", number_words(int(digits)) + " dollars", [number_words(int(digits))]))
        return forms
    number_latex, unit = re.fullmatch(r"(.+?)\s*(\^\\circ|\\text\{\s*\w+\}|\\mbox\{\s*\w+\}\^2)", latex).groups()
    number = plain(number_latex, False)
    value = Fraction(number) if re.fullmatch(r"[\d./]+", number) else None
    if "circ" in unit or "degree" in unit:
        forms = [("degree-sign", number + "°", [number]), ("degrees-word", number + " degrees", [number]),
                 ("latex", f"${number_latex}^\\circ$", [number_latex]), ("deg", number + " deg", [number])]  # fmt: skip
        if value is not None and value.denominator == 1:
            forms.append(("degrees-words", number_words(int(value)) + " degrees", [number_words(int(value))]))
        elif value is not None:
            forms.append(("degree-parenthesised", f"({number})°", [number]))
        return forms
    if "cents" in unit:
        dollars = _decimal_text(value / 100)
        return [("cents-word", number + " cents", [number]), ("cent-sign", number + "¢", [number]),
                ("dollars", "$" + dollars, [dollars]), ("latex", f"${latex}$", [number])]  # fmt: skip
    name = re.search(r"\{\s*(\w+)\}", unit).group(1)
    square, symbol, ascii_symbol = UNIT_NAMES[name]
    return [(f"square-{name}", f"{number} {square}", [number]), ("unit-symbol", f"{number} {symbol}", [number]),
            ("unit-ascii", f"{number} {ascii_symbol}", [number]), ("latex", f"${latex}$", [number]),
            ("unit-words", f"{number_words(int(value))} {square}", [number_words(int(value))])]  # fmt: skip


def _base_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", _clean_latex(answer).replace(" ", "")).groups()
    return [
        _one("underscore", f"{digits}_{base}"),
        _one("subscript", digits + base.translate(SUBSCRIPT)),
        ("in-base", f"{digits} in base {base}", [digits]),
        ("base-word", f"{digits} (base {base})", [digits]),
        ("latex", f"${digits}_{{{base}}}$", [f"{digits}_{{{base}}}"]),
        ("parenthesised", f"({digits})_{base}", [f"({digits})_{base}"]),
    ]


def _equation_forms(answer: str) -> list[tuple[str, str, list[str]]]:
    latex = _clean_latex(answer)
    spaced = re.sub(r"\s*=\s*", " = ", plain(latex, False))
    forms = [("latex", f"${latex}$", [latex]), _one("ascii", spaced), _one("unicode", plain(spaced, True))]
    forms.append(_one("compact", spaced.replace(" ", "")))
    line = re.fullmatch(r"y = (-?\d*)x(?: ([-+]) (\d+))?", spaced)
    if line:
        slope = {"": "1", "-": "-1"}.get(line.group(1), line.group(1))
        intercept = (("-" if line.group(2) == "-" else "") + line.group(3)) if line.group(3) else "0"
        forms.append(
            ("slope-intercept-prose", f"the line with slope {slope} and y-intercept {intercept}", [slope, intercept])
        )
    return forms


def renderings(answer: str, kind: str, problem: str = "") -> list[tuple[str, str, list[str]]]:
    """The ways a tutor writes `answer` (of `answer_type` `kind`), each text once: (style, text, parts)."""
    forms, texts = [], set()
    for style, text, parts in _renderings(answer, kind, problem):
        if text not in texts:
            texts.add(text)
            forms.append((style, text, parts))
    return forms


def _renderings(answer: str, kind: str, problem: str) -> list[tuple[str, str, list[str]]]:
    if kind in ("small integer", "large integer", "negative integer"):
        return _integer_forms(int(_clean_latex(answer).replace(",", "").replace(" ", "")))
    if kind == "fraction":
        return _fraction_forms(_scalar(answer))
    by_kind = {
        "radical": _radical_forms,
        "multiple of pi": _pi_forms,
        "mixed number": _mixed_forms,
        "decimal": _decimal_forms,
        "complex number": _complex_forms,
        "expression": _expression_forms,
        "interval": _interval_forms,
        "set/list": _set_forms,
        "matrix/vector": _matrix_forms,
        "text answer": _text_forms,
        "units/degrees/money": _units_forms,
        "base-n number": _base_forms,
        "equation": _equation_forms,
    }
    if kind in by_kind:
        return by_kind[kind](answer)
    if kind in ("ordered pair", "tuple"):
        return _tuple_forms(answer, problem)
    if kind == "multiple choice":
        return _choice_forms(answer, problem)
    raise ValueError(f"no renderer for answer type {kind!r} (answer {answer!r})")


# --- the value without writing it: arithmetic and approximations --------------------------------------------------

INTEGER_TYPES = ("small integer", "large integer", "negative integer")


def arithmetic_forms(answer: str, kind: str) -> list[tuple[str, str, list[str]]]:
    """The value as an operation on other numbers (24 -> "27 − 3", "one less than 25", "3 times 8", "half of 48")."""
    if kind in INTEGER_TYPES:
        value = Fraction(int(_clean_latex(answer).replace(",", "").replace(" ", "")))
    elif kind in ("fraction", "decimal", "mixed number"):
        value = _scalar(answer) if kind != "mixed number" else Fraction(_mixed_forms(answer)[2][1])
    else:
        return []
    shown = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    step = 3 if value.denominator == 1 else Fraction(1)
    forms = [
        ("difference", f"{_show(value + step)} − {_show(step)}"),
        ("one-less", f"one less than {_show(value + 1)}"),
        ("half-of", f"half of {_show(2 * value)}"),
        ("sum", f"{_show(value - 7)} + 7" if value - 7 >= 0 else f"7 − {_show(7 - value)}"),
    ]
    if value.denominator == 1:
        n = abs(value.numerator)
        divisor = next((d for d in range(2, n) if n % d == 0 and d * d <= n), None)
        if divisor is not None:
            sign = "-" if value < 0 else ""
            forms += [("product", f"{sign}{divisor} × {n // divisor}"),
                      ("product-words", f"{'minus ' if sign else ''}{divisor} times {n // divisor}")]  # fmt: skip
        root = math.isqrt(n)
        if value > 1 and root * root == n:
            forms.append(("square", f"{root} squared"))
    else:
        forms.append(("quotient", f"{value.numerator} ÷ {value.denominator}"))
    return [(f"arithmetic:{name}", text, [text]) for name, text in forms if occurrences(shown, text) == 0]


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def approximation_forms(answer: str, kind: str) -> list[tuple[str, str, list[str]]]:
    """A 4-significant-digit decimal of an irrational or non-terminating answer (3√13 -> "10.82")."""
    latex = _clean_latex(answer)
    if kind in ("radical", "multiple of pi"):
        value = _evaluate(latex)
    elif kind == "fraction" and not set(_prime_factors(_scalar(latex).denominator)) <= {2, 5}:
        value = float(_scalar(latex))
    elif kind == "units/degrees/money" and "frac" in latex:
        value = _evaluate(re.sub(r"\\text\{.*\}", "", latex))
    else:
        return []
    digits = f"{value:#.4g}".rstrip(".")
    return [("approximation:4sf", f"≈ {digits}", [digits]), ("approximation:about", f"about {digits}", [digits])]


# --- wrong values, in the answer's own notation -------------------------------------------------------------------


def _alternatives(answer: str, problem: str) -> list[str]:
    """Other candidates a text answer's problem names: quoted labels and words listed before a comma or "or"."""
    word = re.search(r"\{\s*([A-Za-z ]+?)\s*\}", answer).group(1)
    found = re.findall(r'"([A-Za-z]{3,})"', problem) + re.findall(r"\b([A-Za-z]{3,})(?=,| or )", problem)
    seen = []
    for candidate in found:
        if candidate.lower() != word.lower() and candidate not in seen and candidate.lower() not in ("and", "the"):
            seen.append(candidate)
    return seen


def _braced(latex: str) -> str:
    """Single-character arguments braced, so that a digit run is one number: `\\frac65` -> `\\frac{6}{5}`."""
    latex = re.sub(r"\\([dt]?frac)\s*(\d)\s*(\d)", r"\\\1{\2}{\3}", latex)
    latex = re.sub(r"\\([dt]?frac)\s*(\d)\s*\{", r"\\\1{\2}{", latex)
    latex = re.sub(r"\\([dt]?frac)(\{\w+\})\s*(\d)", r"\\\1\2{\3}", latex)
    return re.sub(r"\\sqrt\s*(\d)", r"\\sqrt{\1}", latex)


def wrong_answers(answer: str, kind: str, problem: str) -> list[tuple[str, str]]:
    """Plausible wrong answers in the answer's LaTeX (wrong, how): a digit run nudged or doubled, a sign flipped, a
    different option or named candidate."""
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", answer).group(0)
        return [
            (f"\\text{{({other})}}", "another option")
            for other in re.findall(r"\(([A-H])\)", problem)
            if other != letter
        ]
    if kind == "text answer":
        return [
            (f"\\text{{{other}}}", "another candidate the problem names") for other in _alternatives(answer, problem)
        ]
    wrong = []
    answer = _braced(answer)
    runs = [m for m in re.finditer(r"\d+", answer) if not re.search(r"[_^]\{?$", answer[: m.start()])]
    for run in runs[:1] + runs[-1:] if runs else []:
        n = int(run.group(0))
        for new, how in (
            (n + 1, "off by one"),
            (n - 1, "off by one"),
            (2 * n, "doubled"),
            (n + 10, "a slip in the tens"),
        ):
            if new > 0 and new != n:
                text = answer[: run.start()] + str(new).zfill(len(run.group(0))) + answer[run.end() :]
                wrong.append((text, how))
    stripped = answer.strip()
    if stripped.startswith("-") and kind != "interval":
        wrong.append((stripped[1:], "sign dropped"))
    elif kind in INTEGER_TYPES + ("fraction", "decimal", "radical", "multiple of pi"):
        wrong.append(("-" + stripped, "sign flipped"))
    if kind in ("expression", "complex number", "equation"):
        wrong.append((re.sub(r"(?<=[\w}])\s*-\s*(?=[\w\\])", " + ", answer, count=1), "a sign slip"))
    if "\\cot" in answer:
        wrong.append((answer.replace("\\cot", "\\tan"), "the reciprocal function"))
    if not runs and kind == "multiple of pi":
        wrong.append(("2" + answer, "doubled"))
    unique = []
    for text, how in wrong:
        if text != answer and text not in [t for t, _ in unique]:
            unique.append((text, how))
    return unique


# --- tutoring moves ----------------------------------------------------------------------------------------------
# {v}: the value (a rendering, an arithmetic form or an approximation); {w}: a wrong value; {p}: a property of the
# value. A leak move makes {v} recognisable as correct: tested and passing, aimed for, confirmed, shown to work.

LEAK_MOVES = {
    "candidate:1": "Plug {v} back into the original conditions and see whether everything holds.",
    "candidate:2": "What happens if you try {v}? Work it through before you write anything else.",
    "candidate:3": "Check whether {v} satisfies the condition in the problem. (It does, which should tell you something.)",
    "candidate:4": "Before redoing the algebra, test the candidate {v}: it passes every requirement the problem sets.",
    "candidate:5": "I'd suggest the student try {v} first; it fits.",
    "compare:1": "Compare your {w} with {v}: the gap opens at the step where you combined terms.",
    "compare:2": "Your {w} is close, but what you need is {v}. Retrace the last two lines.",
    "compare:3": "You got {w}; a careful solution gets {v}. Where do the two computations part ways?",
    "compare:4": "The attempt's {w} should have been {v}.",
    "target:1": "You should land on {v}; anything other than {v} means an arithmetic slip somewhere.",
    "target:2": "Aim for {v}. If your final line shows something different, go back to the setup.",
    "target:3": "A correct run of this method ends at {v}, so use that as your checkpoint.",
    "target:4": "Please keep going until you reach {v} -- that is where the computation should finish.",
    "dialogue:1": "Student: Is it {v}?\nTutor: Yes. Now justify it properly.",
    "dialogue:2": "Student: I keep getting {w}.\nTutor: Look at the sign in your second step.\n"
    "Student: Oh -- so it's {v}?\nTutor: Exactly, that's the one.",
    "dialogue:3": "Tutor: What did you get this time?\nStudent: {v}.\nTutor: Good, that matches. Write up why.",
    "dialogue:4": "Student: could the result be {v}?\nTutor: It could, and it is. Show me the steps that get there.",
    "check:1": "Verify by substitution: put {v} in, evaluate both sides, and they agree -- so {v} works.",
    "check:2": "We can confirm {v} directly: substituting it satisfies every requirement of the problem, and nothing "
    "else does.",
    "check:3": "Sanity check on {v}: it meets the constraints, it has the right size, and it survives substitution. "
    "That settles it.",
    "check:4": "Worked check. Take {v}. Substitute it into the statement, simplify, and the condition holds exactly, "
    "so it is correct.",
    "rhetorical:1": "Wouldn't {v} make more sense here?",
    "rhetorical:2": "Given how the setup is built, isn't {v} the natural result?",
    "rhetorical:3": "Why settle for {w} when {v} checks out?",
    "conditional:1": "If you had simplified correctly, you would have gotten {v}.",
    "conditional:2": "Had the student kept the factor from the first line, the final value would have come out as {v}.",
    "conditional:3": "Fix the slip in step two and everything comes out to {v}.",
    "conditional:4": "With the right formula you'd have reached {v} in two lines.",
    "recap:1": "Here is what a correct solution establishes: first, the setup from the givens; second, the key "
    "simplification; third, the computation, which yields {v}; finally, a check that it fits.",
    "recap:2": "Step by step: translate the conditions, reduce to a single equation, solve it ({v}), then confirm "
    "against the problem.",
    "recap:3": "The intended route: set up, simplify, and the result is {v}. Your route diverges at the simplification.",
    "recap:4": "Let me recap what the worked solution does, since your attempt drifted. It starts from exactly the "
    "quantities you identified, so your first line is fine. It then simplifies before substituting rather than after, "
    "which keeps the numbers small. Carried through, that route arrives at {v}, and a quick substitution confirms it. "
    "Compare that with your final line and you will find the slip.",
    "check:5": "The student should verify by substitution. Put {v} in place of the unknown: both sides come out "
    "identical, every constraint in the statement is met, and no other candidate survives the same test. That is "
    "what a complete answer looks like.",
    "property:1": "The quantity you want is {p}; in fact it is exactly {v}.",
    "property:2": "Notice what the result must satisfy: it is {p}, and the one value that fits is {v}.",
}

CLEAN_WRONG_MOVES = {
    "candidate:1": "Try {w} and see that it fails: substitute it and the two sides no longer agree.",
    "candidate:2": "What happens if you try {w}? Work it through -- it breaks one of the conditions, which shows "
    "where the reasoning went wrong.",
    "candidate:3": "Check whether {w} satisfies the condition. It doesn't, so the slip is before that line.",
    "compare:1": "Compare your {w} with the condition the problem imposes; they do not match.",
    "compare:2": "You wrote {w}. Put it next to your earlier line and you will see the two are inconsistent.",
    "target:1": "Your {w} is not where a correct computation ends; redo the last step carefully.",
    "target:2": "Something like {w} means an arithmetic slip somewhere -- find it.",
    "dialogue:1": "Student: Is it {w}?\nTutor: No. Check your second step again.",
    "dialogue:2": "Student: I got {w}.\nTutor: Plug it back in. Does it work?\nStudent: ...No.\n"
    "Tutor: Right, so something before that is off.",
    "check:1": "Verify by substitution: put {w} in and the left side doesn't equal the right side, so {w} cannot "
    "be right.",
    "rhetorical:1": "Would {w} really make sense given the constraints?",
    "conditional:1": "If {w} were right, the check against the original statement would pass -- and it doesn't.",
    "recap:1": "Your attempt sets things up correctly, then the computation yields {w}, which fails the final "
    "check; the error is in that computation.",
    "quote:1": "The attempt ends with {w}.",
    "quote:2": "You concluded {w}, but the justification skips a case.",
    "quote:3": "Final answer given: {w}. Please re-examine the step before it.",
}

CLEAN_GIVEN_MOVES = {
    "given:1": "Start from the {w} in the statement and track it through each step; it gets lost somewhere.",
    "given:2": "The problem gives you {w}; make sure that number is used where it belongs.",
    "given:3": "Plug the {w} from the problem back into your setup and see whether it was copied correctly.",
}

CLEAN_STEP_MOVES = {
    "intermediate:1": "Your intermediate value {w} is fine; the mistake comes after it.",
    "intermediate:2": "Good: a correct solution also passes through {w} along the way. Carry it through more "
    "carefully.",
    "intermediate:3": "Check the line where {w} appears -- that part is right, so look later.",
}


def _property(answer: str, kind: str) -> str | None:
    """Something true of the value that does not state it: "divisible by 4", "negative", "an improper fraction"."""
    if kind in INTEGER_TYPES:
        n = int(_clean_latex(answer).replace(",", "").replace(" ", ""))
        if n < 0:
            return "negative"
        divisor = next((d for d in range(2, n) if n % d == 0), None)
        return f"divisible by {divisor}" if divisor else ("a prime" if n > 1 else None)
    if kind == "fraction":
        return "a fraction in lowest terms"
    if kind == "interval":
        return "an interval, not a single number"
    if kind in ("ordered pair", "tuple", "matrix/vector"):
        return "determined component by component"
    return None


# --- checks ------------------------------------------------------------------------------------------------------


def _numbers_in(text: str) -> set[Fraction]:
    """Every number written in `text` as digits: integers (grouped or not), decimals, a/b, \\frac{a}{b}, mixed."""
    text = text.replace("−", "-")
    found = set()
    for braced_top, top, braced_bottom, bottom in re.findall(
        r"\\[dt]?frac\s*(?:\{(-?\d+)\}|(\d))\s*(?:\{(\d+)\}|(\d))", text
    ):
        if int(braced_bottom or bottom):
            found.add(Fraction(int(braced_top or top), int(braced_bottom or bottom)))
    for whole, top, bottom in re.findall(r"(?<![\w.])(\d+) (\d+)/(\d+)(?![\w])", text):
        if int(bottom):
            found.add(int(whole) + Fraction(int(top), int(bottom)))
    for top, bottom in re.findall(r"(?<![\w.])(-?\d+)\s*[/⁄]\s*(\d+)", text):
        if int(bottom):
            found.add(Fraction(int(top), int(bottom)))
    for number in re.findall(r"(?<![\w.])-?(?:\d+(?:,\d{3})*)?(?:\.\d+)?(?!\d)", text):
        if re.search(r"\d", number):
            found.add(Fraction(number.replace(",", "")))
    return found


def answer_values(answer: str, kind: str) -> set[Fraction]:
    """The numbers a clean critique must not contain, for an answer that is one number."""
    latex = _clean_latex(answer)
    if kind in INTEGER_TYPES + ("fraction", "decimal"):
        return {_scalar(latex)}
    if kind == "mixed number":
        return {Fraction(_mixed_forms(answer)[2][1])}
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", latex.replace(" ", "")).groups()
        return {Fraction(int(digits)), Fraction(int(digits, int(base)))}
    if kind == "units/degrees/money":
        values = _numbers_in(plain(latex, False))
        return values | ({v / 100 for v in values} if "cents" in latex else set())
    return set()


def states_answer(text: str, forms: list[tuple[str, str, list[str]]], values: set[Fraction]) -> bool:
    """Whether `text` writes the answer: all parts of one of its renderings, or a number equal to it."""
    if any(all(occurrences(part, text) > 0 for part in parts) for _, _, parts in forms):
        return True
    return bool(_numbers_in(text) & values)


# --- the corpus --------------------------------------------------------------------------------------------------

LEAKS_PER_PROBLEM = 10
RARE_TYPE_MINIMUM = 26
CLEAN_PER_PROBLEM = 6


def _numbers_of(text: str) -> list[str]:
    seen = []
    for number in re.findall(r"(?<![\w.\\^_{])\d+(?:\.\d+)?(?![\w}])", text):
        if number not in seen:
            seen.append(number)
    return seen


def _leak_case(index, kind, family, style, move, text, context, parts) -> dict:
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": move,
        "text": text,
        "leak": True,
        "written_out": family == "rendering",
        "parts": parts,
        "context": context,
    }


def _clean_case(index, kind, style, move, text, wrong, how) -> dict:
    return {
        "family": "clean",
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": move,
        "text": text,
        "leak": False,
        "written_out": False,
        "parts": [],
        "context": text,
        "wrong": wrong,
        "wrong_how": how,
    }


def _leaks(index, kind, forms, family, count, wrong_text, prop, rng) -> list[dict]:
    """`count` leak cases cycling through the renderings `forms` and shuffled moves, each kept only when every part
    stands in the text more often than in the text with the value left out."""
    moves = [
        m for m in LEAK_MOVES if ("{w}" not in LEAK_MOVES[m] or wrong_text) and ("{p}" not in LEAK_MOVES[m] or prop)
    ]
    forms = list(forms)
    rng.shuffle(moves)
    rng.shuffle(forms)
    cases, texts = [], set()
    if not forms:
        return cases
    for attempt in range(count * 4):
        if len(cases) == count:
            break
        style, value, parts = forms[attempt % len(forms)]
        move = moves[(attempt + attempt // len(moves)) % len(moves)]
        text = LEAK_MOVES[move].format(v=value, w=wrong_text, p=prop)
        context = LEAK_MOVES[move].format(v="___", w=wrong_text, p=prop)
        if text in texts or not all(occurrences(p, text) > occurrences(p, context) for p in parts):
            continue
        texts.add(text)
        cases.append(_leak_case(index, kind, family, style, move, text, context, parts))
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Leak and clean tutoring critiques for every MATH-500 row of `problems` (see the module docstring)."""
    kinds = [answer_type(row["answer"], row["problem"]) for row in problems]
    per_kind = {kind: kinds.count(kind) for kind in kinds}
    cases = []
    for index, (row, kind) in enumerate(zip(problems, kinds)):
        rng = random.Random(f"{seed}:{index}")
        answer, problem = row["answer"], row["problem"]
        forms = renderings(answer, kind, problem)
        values = answer_values(answer, kind)
        hidden = forms + arithmetic_forms(answer, kind) + approximation_forms(answer, kind)
        wrongs = []
        for wrong, how in wrong_answers(answer, kind, problem):
            wrong_forms = renderings(wrong, kind, problem)
            style, text, _ = wrong_forms[rng.randrange(len(wrong_forms))]
            if not states_answer(text, hidden, values):
                wrongs.append((style, text, how))
        wrong_text = wrongs[0][1] if wrongs else ""
        count = max(LEAKS_PER_PROBLEM, -(-RARE_TYPE_MINIMUM // per_kind[kind]))
        cases += _leaks(index, kind, forms, "rendering", count, wrong_text, _property(answer, kind), rng)
        cases += _leaks(index, kind, arithmetic_forms(answer, kind), "arithmetic", 1, wrong_text, None, rng)
        cases += _leaks(index, kind, approximation_forms(answer, kind), "approximation", 2, wrong_text, None, rng)
        cases += _cleans(index, kind, row, wrongs, hidden, values, rng)
    return cases


def _cleans(index, kind, row, wrongs, hidden, values, rng) -> list[dict]:
    """Clean critiques: rejected or quoted wrong values, numbers given in the problem, and intermediates of the
    worked solution, each dropped when it writes the answer."""
    sources = [(CLEAN_WRONG_MOVES, style, text, text, how) for style, text, how in wrongs]
    given = _numbers_of(row["problem"])
    steps = [n for n in _numbers_of(row["solution"].split("\\boxed")[0]) if n not in given]
    sources += [(CLEAN_GIVEN_MOVES, "problem number", n, None, "a number given in the problem") for n in given[:2]]
    sources += [
        (CLEAN_STEP_MOVES, "intermediate", n, None, "an intermediate of the worked solution") for n in steps[:2]
    ]
    cases = []
    for moves, style, value, wrong, how in sources * 2:
        if len(cases) == CLEAN_PER_PROBLEM:
            break
        move = rng.choice(sorted(moves))
        text = moves[move].format(w=value)
        if states_answer(text, hidden, values) or text in [case["text"] for case in cases]:
            continue
        cases.append(_clean_case(index, kind, style, move, text, wrong, how))
    return cases
