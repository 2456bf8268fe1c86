"""Held-out leak corpus `nineteenth`: critiques of failed MATH-500 attempts written the way small (0.5B-8B) and
reasoning models really emit them, labelled as leaks of the reference answer or clean.

Method. Every MATH-500 answer is parsed into its value (a sympy number or expression, or its components: interval
ends, pair and tuple entries, set elements, matrix entries, base-n digits, a unit's number, a choice letter, a
word) and rendered by a renderer of its own answer type in the notations such models write: the reference LaTeX and
sympy's LaTeX, `\\dfrac`, `\\frac34` without braces, `\\sqrt2`, a fraction split by a line break inside math, a
never-closed `\\frac{`, slashes, sympy's plain text (`3*sqrt(13)`), unicode (`3√13`, `−`, `π`, `°`, `₈`, `∞`, `≤`),
words for numbers under a thousand, exact decimals of terminating fractions, repeating decimals with `\\overline`,
mixed and improper forms, thousands separators, scientific notation, intervals as inequalities, vectors and
matrices in `pmatrix`, `bmatrix`, an unclosed `pmatrix` and bracket lists, reordered sets, `\\pm` expanded, named
components (`x = 15 and y = -29`), choices with their option text, text answers, numbers with units. Each rendering
is then wrapped in the markup such output carries, well- or ill-formed: `$...$`, an unclosed `$` or `\\(`,
`\\boxed{...}` closed or never closed, `**bold**` or a stray `**`, a markdown heading glued to the value, escaped
dollars, `\\[...\\]`, a `\\\\` line break before the value. Wrong values are mutations of the answer of its own
shape (an integer off by one, doubled or negated, a reciprocal, a radicand or coefficient changed, an interval
bracket flipped, a pair swapped, a set missing an element, a matrix entry negated, a neighbouring choice, another
option word, a base-n digit changed), each checked to differ in value. Problem numbers and intermediate quantities
are the numbers of the problem and of its reference solution.

Families. `rendering`: the answer is written out in some notation inside a degenerate frame (see below); its slots
are the `parts`. `approximation`: a decimal of 4 to 6 significant digits of an answer whose value is irrational or
a non-terminating decimal (radicals, multiples of pi, fractions such as 14/3, 270/7 degrees). `clean`: the same
frames with every answer slot filled by a decoy (another wrong value or an intermediate quantity), or the trace
stopped short just before the value (`\\boxed{` at the token limit).

Frames (`frame`) are short outputs of the kind: `<think>` traces with the value inside the thinking only, after it
only, or both; unclosed `<think>` blocks; verification loops recomputing the value; a phrase repeated until the
token limit; a sentence cut mid-word or right after the value; doubled words; stray chat tokens (`Assistant:`,
`### Response:`, `[/INST]`, `<|im_end|>`, `</s>`); numbered lists that restart; hedged and contradictory statements
("should be X (or maybe Y)", "not X but X", "no wait ... X again"). A value stated several times gives several
parts, one per slot; `context` replaces each slot by `\\ldots`.

Labels. `holds_answer(text, answer, problem)` finds the value in any notation rendered here (all renderings'
spellings after a normalisation that undoes the malformations: line breaks, spacing, `$`, `\\(`, `**`,
`\\dfrac`, `\\frac34`, `\\sqrt2`, unicode), every exact number in the text compared with the answer's value
(fractions, decimals, mixed numbers, scientific notation, number words, radicals and multiples of pi via sympy),
and any decimal of 3 or more significant digits within its last digit of an irrational or non-terminating value.
A leak is kept only when the checker finds the answer in its text and not in its context; a clean text only when
the checker finds nothing, otherwise it is redrawn.

Independence. Written without reading the guard or any other corpus: I read only the brief, `tests/conftest.py`
(the `shared_data` fixture), MATH-500's rows, directory listings of `benchmarks/` and `tests/benchmarks/` (file
names only), and, from `benchmarks/leak_corpus.py`, a list of its top-level names with line numbers (to find the
allowed ones), its import lines, its `MATH500` path and the source of `load_problems`, `ANSWER_TYPES`,
`answer_type` (with its helpers `_strip` and `_top_level_split`), `occurrences` and `stated`. This module imports
`answer_type` and `occurrences` from it; its test also imports `load_problems`, `ANSWER_TYPES` and `stated`.
"""

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import permutations

import sympy
from leak_corpus import answer_type, occurrences
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0

RENDERING_CASES = 7
APPROXIMATION_CASES = 3
CLEAN_CASES = 7
DRAWS = 40

# --- numbers in words ---------------------------------------------------------------------------------------------

UNITS_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS_WORDS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
DENOMINATOR_WORDS = {2: "half", 3: "third", 4: "quarter", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}
DENOMINATOR_WORDS |= {9: "ninth", 10: "tenth"}
UNICODE_FRACTIONS = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (4, 5): "⅘"}
SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def integer_words(n: int) -> str | None:
    """English words for an integer below a thousand in size ("negative forty-two"), None for larger ones."""
    if n < 0:
        words = integer_words(-n)
        return words and "negative " + words
    if n >= 1000:
        return None
    if n < 20:
        return UNITS_WORDS[n]
    if n < 100:
        return TENS_WORDS[n // 10] + ("-" + UNITS_WORDS[n % 10] if n % 10 else "")
    rest = n % 100
    return UNITS_WORDS[n // 100] + " hundred" + (" " + integer_words(rest) if rest else "")


def fraction_words(value: Fraction) -> str | None:
    """ "fourteen thirds", "one half", "negative three quarters"; None past tenths or numerators over 99."""
    numerator, denominator = abs(value.numerator), value.denominator
    if denominator not in DENOMINATOR_WORDS or numerator > 99:
        return None
    name = DENOMINATOR_WORDS[denominator]
    plural = "halves" if name == "half" else name + "s"
    words = integer_words(numerator) + " " + (name if numerator == 1 else plural)
    return ("negative " if value < 0 else "") + words


# --- answer values ------------------------------------------------------------------------------------------------

FUNCTION_NAMES = ("sqrt", "cot", "tan", "sin", "cos", "pi")
TRANSFORMATIONS = standard_transformations + (implicit_multiplication_application, convert_xor)


def tidy_latex(latex: str) -> str:
    """The answer's LaTeX without spacing commands, `\\left`/`\\right`, `\\dfrac` and brace-less arguments."""
    text = re.sub(r"\\[!,;]|\\left|\\right|\\displaystyle", "", latex).strip()
    text = re.sub(r"\\[dt]frac", r"\\frac", text)
    text = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", text)
    text = re.sub(r"\\frac\s*(\d)\s*\{", r"\\frac{\1}{", text)
    text = re.sub(r"\\frac(\{[^{}]*\})\s*(\d)", r"\\frac\1{\2}", text)
    return re.sub(r"\\sqrt\s*(\d)", r"\\sqrt{\1}", text)


def to_sympy(latex: str):
    """The value of a LaTeX number or expression (`\\frac`, `\\sqrt`, `\\pi`, `i`, implicit products), or None."""
    text = tidy_latex(latex)
    if re.fullmatch(r"-?\d*\.\d+", text):
        return sympy.Rational(text)
    mixed = re.fullmatch(r"(-?)(\d+)\s*\\frac\{(\d+)\}\{(\d+)\}", text)
    if mixed:
        sign, whole, numerator, denominator = mixed.groups()
        value = int(whole) + sympy.Rational(int(numerator), int(denominator))
        return -value if sign else value
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", text)
        text = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", text)
    text = text.replace("\\cdot", "*").replace("{", "(").replace("}", ")")
    for name in FUNCTION_NAMES:
        text = text.replace("\\" + name, " " + name + " " if name == "pi" else name)
    if "\\" in text:
        return None
    names = {"i": sympy.I} if re.search(r"(?<![a-z])i(?![a-z])", text) and "x" not in text else {}
    try:
        return parse_expr(text, local_dict=names, transformations=TRANSFORMATIONS)
    except (SyntaxError, TypeError, ValueError, sympy.SympifyError):
        return None


def top_level_split(text: str, separator: str = ",") -> list[str]:
    """`text` split at `separator`s outside brackets and braces."""
    pieces, depth, current = [], 0, ""
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if char == separator and depth == 0:
            pieces.append(current.strip())
            current = ""
        else:
            current += char
    return [*pieces, current.strip()]


def plain(value) -> str:
    """sympy's plain text with `^` for powers: `3*sqrt(13)`, `pi/2`, `-1/3`."""
    return str(value).replace("**", "^")


def unicode_text(value) -> str:
    """The plain text with unicode: `3√13`, `π/2`, `−1/3`, `x⁵`."""
    text = re.sub(r"sqrt\((\w+)\)", r"√\1", plain(value))
    text = re.sub(r"\^(\d+)", lambda power: power.group(1).translate(SUPERSCRIPT_DIGITS), text)
    text = re.sub(r"(?<=[\d)])\*(?=[√πa-zA-Z(])", "", text).replace("pi", "π")
    return text.replace("*", "·").replace("-", "−")


def decimal_text(value: Fraction) -> str | None:
    """The exact decimal of a terminating fraction, None for others."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        return None
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    return f"{float(value):.{places}f}" if places <= 12 else None


def repeating_text(value: Fraction) -> str | None:
    """`4.\\overline{6}` for a non-terminating fraction whose period starts right after the point and is short."""
    if decimal_text(value) is not None or value.denominator == 1:
        return None
    whole, remainder = divmod(abs(value.numerator), value.denominator)
    digits, seen = "", {}
    while remainder not in seen and len(digits) < 8:
        seen[remainder] = len(digits)
        remainder *= 10
        digits += str(remainder // value.denominator)
        remainder %= value.denominator
    if seen.get(remainder) != 0:
        return None
    return ("-" if value < 0 else "") + f"{whole}.\\overline{{{digits}}}"


def approximation_text(value: float, significant: int) -> str:
    """`value` rounded to `significant` digits, with at least one digit after the point."""
    integer_digits = len(str(int(abs(value)))) if abs(value) >= 1 else 0
    places = max(1, significant - integer_digits)
    if abs(value) < 1:
        places = significant - 1 - int(sympy.floor(sympy.log(abs(value), 10)))
    return f"{value:.{places}f}"


# --- renderings ---------------------------------------------------------------------------------------------------


@dataclass
class Form:
    """A way to write the answer: `segments` are (text, is_part) pairs; the parts state the value."""

    style: str
    segments: list
    math: bool = True


def whole(style: str, text: str, math: bool = True) -> Form:
    return Form(style, [(text, True)], math)


def scalar_forms(latex: str, value, kind: str) -> list[Form]:
    """Renderings of a real or complex number (integer, fraction, decimal, mixed, radical, multiple of pi)."""
    forms = [whole("reference", latex.strip())]
    value_latex = sympy.latex(value).replace("\\left(", "(").replace("\\right)", ")")
    forms.append(whole("sympy_latex", value_latex))
    if "\\frac" in value_latex:
        forms.append(whole("dfrac", value_latex.replace("\\frac", "\\dfrac")))
        numerator_denominator = re.fullmatch(r"(-?) ?\\frac\{(.+)\}\{(.+)\}", value_latex)
        if numerator_denominator:
            sign, numerator, denominator = numerator_denominator.groups()
            forms.append(whole("frac_line_break", f"{sign}\\frac{{{numerator}}}\n{{{denominator}}}"))
            forms.append(whole("frac_unclosed", f"{sign}\\frac{{{numerator}}}{{{denominator}"))
            if len(numerator) == 1 and len(denominator) == 1:
                forms.append(whole("frac_no_braces", f"{sign}\\frac{numerator}{denominator}"))
    forms.append(whole("plain_text", plain(value), math=False))
    forms.append(whole("unicode", unicode_text(value)))
    if value.is_Rational:
        forms.extend(rational_forms(Fraction(int(value.p), int(value.q)), kind))
    radical = re.fullmatch(r"(\d*) ?\\sqrt\{(\d)\}", value_latex)
    if radical:
        forms.append(whole("sqrt_no_braces", f"{radical.group(1)}\\sqrt{radical.group(2)}"))
    coefficient, rest = value.as_coeff_Mul()
    if rest.is_Pow and rest.exp == sympy.Rational(1, 2) and coefficient.is_Integer and coefficient > 1:
        forms.append(whole("sqrt_cdot", f"{coefficient} \\cdot \\sqrt{{{rest.base}}}"))
        forms.append(whole("sqrt_absorbed", f"\\sqrt{{{coefficient**2 * rest.base}}}"))
    if rest == sympy.pi and coefficient != 1:
        forms.append(whole("pi_cdot", f"{sympy.latex(coefficient)} \\cdot \\pi"))
    return forms


def rational_forms(value: Fraction, kind: str) -> list[Form]:
    forms = []
    if value.denominator == 1:
        number = value.numerator
        words = integer_words(number)
        if words:
            forms.append(whole("words", words, math=False))
        if number < 0:
            forms.append(whole("unicode_minus", f"−{-number}", math=False))
            forms.append(whole("minus_word", f"minus {-number}", math=False))
        if abs(number) >= 1000:
            forms.append(whole("thousands_comma", f"{number:,}"))
            forms.append(whole("thousands_thin_space", f"{number:,}".replace(",", "\\,")))
            digits = str(abs(number))
            mantissa = (digits[0] + "." + digits[1:]).rstrip("0").rstrip(".")
            forms.append(whole("scientific", f"{'-' if number < 0 else ''}{mantissa} \\times 10^{len(digits) - 1}"))
        return forms
    sign = "-" if value < 0 else ""
    numerator, denominator = abs(value.numerator), value.denominator
    forms.append(whole("slash_spaced", f"{sign}{numerator} / {denominator}", math=False))
    forms.append(whole("frac_signed_numerator", f"\\frac{{{sign}{numerator}}}{{{denominator}}}"))
    words = fraction_words(value)
    if words:
        forms.append(whole("words", words, math=False))
    if (numerator, denominator) in UNICODE_FRACTIONS:
        forms.append(whole("unicode_vulgar", sign + UNICODE_FRACTIONS[numerator, denominator], math=False))
    decimal = decimal_text(value)
    if decimal:
        forms.append(whole("decimal", decimal))
    repeating = repeating_text(value)
    if repeating:
        forms.append(whole("repeating_decimal", repeating))
    if numerator > denominator:
        whole_part, rest = divmod(numerator, denominator)
        forms.append(whole("mixed_latex", f"{sign}{whole_part}\\frac{{{rest}}}{{{denominator}}}"))
        forms.append(whole("mixed_plain", f"{sign}{whole_part} {rest}/{denominator}", math=False))
    if kind == "decimal":
        forms.append(whole("fraction", f"{sign}\\frac{{{numerator}}}{{{denominator}}}"))
        forms.append(whole("trailing_zero", decimal + "0"))
    return forms


def component_spellings(latex: str) -> dict[str, str]:
    """A component (of a pair or tuple) as written, in plain text and in unicode."""
    value = to_sympy(latex)
    if value is None or not value.is_number:
        return {"latex": latex.strip(), "plain": latex.strip(), "unicode": latex.strip()}
    return {"latex": latex.strip(), "plain": plain(value), "unicode": unicode_text(value)}


def sequence_forms(components: list[str], problem: str) -> list[Form]:
    """An ordered pair or tuple, spaced, compact, with `\\left(`, in plain text, in unicode, and named after the
    problem's variables (`x = 15 and y = -29`) when it names as many as there are components."""
    spelled = [component_spellings(component) for component in components]

    def joined(notation: str, separator: str = ", ") -> str:
        return separator.join(spelling[notation] for spelling in spelled)

    forms = [
        whole("tuple_compact", "(" + joined("latex", ",") + ")"),
        whole("tuple_spaced", "(" + joined("latex") + ")"),
        whole("left_right", "\\left( " + joined("latex") + " \\right)"),
        whole("tuple_plain", "(" + joined("plain") + ")", math=False),
        whole("tuple_unicode", "(" + joined("unicode") + ")"),
    ]
    for names in re.findall(r"\(([a-z](?:,\s*[a-z])+)\)", problem):
        letters = [name.strip() for name in names.split(",")]
        if len(letters) == len(components):
            assignments = [f"{letter} = {spelling['latex']}" for letter, spelling in zip(letters, spelled)]
            forms.append(whole("named", ", ".join(assignments[:-1]) + " and " + assignments[-1]))
            break
    return forms


def set_elements(answer: str) -> list[str]:
    """The elements of a set/list answer, with `a \\pm b` expanded."""
    text = tidy_latex(answer).strip()
    if text.startswith("\\{") and text.endswith("\\}"):
        text = text[2:-2]
    elements = []
    for element in top_level_split(text):
        if "\\pm" in element:
            left, right = element.split("\\pm")
            elements += [f"{left.strip()} + {right.strip()}", f"{left.strip()} - {right.strip()}"]
        else:
            elements.append(element.strip())
    return elements


def set_forms(answer: str) -> list[Form]:
    elements = set_elements(answer)
    reordered = elements[::-1]
    forms = [
        whole("reference", answer.strip()),
        whole("list_reordered", ", ".join(reordered)),
        whole("braces", "\\{" + ", ".join(elements) + "\\}"),
        whole("bare_braces", "{" + ", ".join(reordered) + "}", math=False),
        whole("and_list", ", ".join(elements[:-1]) + " and " + elements[-1]),
        whole("plain_list", ", ".join(plain(to_sympy(element)) for element in elements), math=False),
    ]
    if "\\pm" in answer:
        forms.append(whole("pm_unicode", unicode_text(to_sympy(answer.replace("\\pm", "+"))).replace("+", "±")))
    return forms


INTERVAL = re.compile(r"([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])")


def interval_pieces(answer: str) -> list[tuple[str, str, str, str]]:
    text = tidy_latex(answer).replace("x \\in", "").replace("x\\in", "")
    return [piece.groups() for piece in INTERVAL.finditer(text)]


def inequality(pieces, less_equal: str, greater_equal: str) -> str:
    """Intervals as inequalities in x: `3 < x \\le 4`, `x > 2`, joined by "or"."""
    clauses = []
    for left_bracket, low, high, right_bracket in pieces:
        low_operator = less_equal if left_bracket == "[" else "<"
        high_operator = less_equal if right_bracket == "]" else "<"
        if "infty" in low:
            clauses.append(f"x {high_operator} {high}")
        elif "infty" in high:
            clauses.append(f"x {greater_equal if left_bracket == '[' else '>'} {low}")
        else:
            clauses.append(f"{low} {low_operator} x {high_operator} {high}")
    return " or ".join(clauses)


def interval_forms(answer: str) -> list[Form]:
    pieces = interval_pieces(answer)
    written = " \\cup ".join(f"{a}{b}, {c}{d}" for a, b, c, d in pieces)
    unicode_written = written.replace("\\infty", "∞").replace("\\cup", "∪")
    return [
        whole("reference", answer.strip()),
        whole("interval_spaced", written),
        whole("set_builder", "x \\in " + written),
        whole("interval_unicode", unicode_written, math=False),
        whole("inequality_latex", inequality(pieces, "\\le", "\\ge")),
        whole("inequality_unicode", inequality(pieces, "≤", "≥"), math=False),
    ]


def matrix_rows(answer: str) -> list[list[str]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", answer, re.S).group(1)
    return [[entry.strip() for entry in row.split("&")] for row in body.split("\\\\")]


def matrix_forms(answer: str) -> list[Form]:
    rows = matrix_rows(answer)
    as_latex = [[sympy.latex(to_sympy(entry)) for entry in row] for row in rows]
    body = " \\\\\n".join(" & ".join(row) for row in rows)
    frac_body = " \\\\ ".join(" & ".join(row) for row in as_latex)
    forms = [
        whole("reference", answer.strip()),
        whole("pmatrix_lines", f"\\begin{{pmatrix}}\n{body}\n\\end{{pmatrix}}"),
        whole("bmatrix_frac", f"\\begin{{bmatrix}} {frac_body} \\end{{bmatrix}}"),
        whole("pmatrix_unclosed", f"\\begin{{pmatrix}} {frac_body}"),
    ]
    if all(len(row) == 1 for row in rows):
        entries = [row[0] for row in rows]
        forms.append(whole("bracket_list", "[" + ", ".join(entries) + "]", math=False))
        forms.append(whole("paren_list", "(" + ", ".join(entries) + ")"))
    else:
        forms.append(whole("nested_list", "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]", False))
    return forms


def option_text(problem: str, letter: str) -> str | None:
    """The one-word text of option `letter` ("(C) Plane"), None when the options are not single words."""
    found = re.search(rf"\({letter}\)\s*([A-Z][a-z]+)\b", problem)
    return found and found.group(1)


def choice_forms(answer: str, problem: str) -> list[Form]:
    letter = re.search(r"[A-H]", answer).group(0)
    forms = [
        whole("reference", answer.strip()),
        Form("parenthesised", [("(", False), (letter, True), (")", False)]),
        Form("option_word", [("option ", False), (letter, True)], math=False),
        Form("textbf", [("\\textbf{(", False), (letter, True), (")}", False)]),
        whole("bare_letter", letter, math=False),
    ]
    content = option_text(problem, letter)
    if content:
        forms.append(Form("letter_with_text", [("(", False), (letter, True), (") ", False), (content, True)], False))
        forms.append(whole("option_text", content.lower(), math=False))
    return forms


def text_forms(answer: str) -> list[Form]:
    word = re.search(r"\\text\{(.*)\}", answer).group(1).strip()
    return [
        whole("reference", answer.strip()),
        whole("word", word, math=False),
        whole("capitalised", word.capitalize(), math=False),
        whole("upper_case", word.upper(), math=False),
        Form("quoted", [('"', False), (word, True), ('"', False)], math=False),
        Form("in_sentence", [("it is ", False), (word, True)], math=False),
    ]


UNIT_PATTERN = re.compile(
    r"(?P<number>.*?)\s*(?P<unit>\^\\circ|\\(?:text|mbox)\{\s*(?P<word>[^}]*)\}(?P<square>\^2)?)$"
)


def units_parts(answer: str) -> tuple[str, str, str]:
    """(number LaTeX, unit kind, unit word) of a units answer: degrees, money, or a word unit like "inches"."""
    text = tidy_latex(answer)
    if text.startswith("\\$"):
        return text[2:].replace("{,}", ","), "money", "dollars"
    found = UNIT_PATTERN.fullmatch(text)
    word = found.group("word") or ""
    if found.group("unit") == "^\\circ" or word == "degrees":
        return found.group("number"), "degrees", "degrees"
    return found.group("number"), "square" if found.group("square") else "word", word


def units_value(answer: str):
    number, _, _ = units_parts(answer)
    return to_sympy(number.replace(",", ""))


def units_forms(answer: str) -> list[Form]:
    number, unit, word = units_parts(answer)
    value = units_value(answer)
    spellings = list(dict.fromkeys([number, sympy.latex(value), plain(value)]))
    if value.is_Rational and value > 1000:
        spellings.append(f"{int(value)}")
    cents = [("cent_sign", "¢", False)] if word.startswith("cent") else []
    suffixes = {
        "degrees": [
            ("circ", "^\\circ", True),
            ("braced_circ", "^{\\circ}", True),
            ("degree_sign", "°", False),
            ("degrees_word", " degrees", False),
            ("deg", " deg", False),
        ],
        "money": [("dollar_sign", "", True), ("dollars_word", " dollars", False), ("usd", " USD", False)],
        "square": [
            ("text_unit", f" \\text{{ {word}}}^2", True),
            ("square_words", f" square {word}", False),
            ("unicode_square", f" {word[:2]}²", False),
        ],
        "word": [("unit_word", f" {word}", False), ("text_unit", f"\\text{{ {word}}}", True), *cents],
    }[unit]
    forms = []
    for position, (name, suffix, math) in enumerate(suffixes):
        spelling = spellings[position % len(spellings)]
        prefix = "\\$" if name in ("dollar_sign", "usd") else ""
        forms.append(Form(name, [(prefix, False), (spelling, True), (suffix, False)], math))
    if unit == "word" and word.startswith("cent"):
        forms.append(Form("in_dollars", [("\\$", False), (decimal_text(Fraction(str(value)) / 100), True)]))
    return forms


def base_forms(answer: str) -> list[Form]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
    return [
        whole("reference", answer.strip()),
        whole("braced_base", f"{digits}_{{{base}}}"),
        whole("unicode_subscript", digits + base.translate(SUBSCRIPT_DIGITS), math=False),
        whole("parenthesised", f"({digits})_{base}"),
        whole("base_words", f"{digits} in base {base}", math=False),
        whole("base_suffix", f"{digits}_{{({base})}}"),
    ]


def equation_sides(answer: str):
    left, right = answer.split("=")
    return to_sympy(left), to_sympy(right)


def equation_forms(answer: str) -> list[Form]:
    left, right = equation_sides(answer)
    compact = answer.replace(" ", "")
    forms = [
        whole("reference", answer.strip()),
        whole("compact", compact),
        whole("swapped", " = ".join(answer.split("=")[::-1]).strip()),
    ]
    moved = sympy.expand(left - right)
    forms.append(whole("moved_sympy", f"{sympy.latex(moved)} = 0"))
    forms.append(whole("plain_text", f"{plain(left)} = {plain(right)}", math=False))
    return forms


def expression_forms(answer: str) -> list[Form]:
    value = to_sympy(answer)
    forms = [whole("reference", answer.strip()), whole("compact", answer.replace(" ", ""))]
    forms.append(whole("sympy_latex", sympy.latex(value)))
    forms.append(whole("plain_text", plain(value), math=False))
    forms.append(whole("unicode", unicode_text(value)))
    for name, other in (("expanded", sympy.expand(value)), ("factored", sympy.factor(value))):
        if sympy.latex(other) != sympy.latex(value):
            forms.append(whole(name, sympy.latex(other)))
    return forms


def complex_forms(answer: str) -> list[Form]:
    value = to_sympy(answer)
    real, imaginary = value.as_real_imag()
    return [
        whole("reference", answer.strip()),
        whole("compact", answer.replace(" ", "")),
        whole("unicode_minus", answer.replace("-", "−"), math=False),
        whole("imaginary_first", f"{imaginary}i + {real}".replace("+ -", "- ")),
        whole("bracketed_imaginary", f"{real} + ({imaginary})i"),
        whole("sympy_plain", plain(value), math=False),
    ]


def type_renderings(answer: str, kind: str, problem: str) -> list[Form]:
    """The answer written in the notations of its type (a text may come twice)."""
    if kind == "matrix/vector":
        return matrix_forms(answer)
    if kind == "multiple choice":
        return choice_forms(answer, problem)
    if kind == "text answer":
        return text_forms(answer)
    if kind == "units/degrees/money":
        return units_forms(answer)
    if kind == "base-n number":
        return base_forms(answer)
    if kind == "equation":
        return equation_forms(answer)
    if kind == "interval":
        return interval_forms(answer)
    if kind == "set/list":
        return set_forms(answer)
    if kind in ("ordered pair", "tuple"):
        return [whole("reference", answer.strip())] + sequence_forms(
            top_level_split(tidy_latex(answer).strip()[1:-1]), problem
        )
    if kind == "expression":
        return expression_forms(answer)
    if kind == "complex number":
        return complex_forms(answer)
    forms = scalar_forms(answer, to_sympy(answer.replace(",", "")), kind)
    if kind == "decimal" and answer.strip().startswith("."):
        forms.append(whole("leading_zero", "0" + answer.strip()))
    return forms


def renderings(answer: str, kind: str, problem: str) -> list[Form]:
    """The answer written in every notation of its type, each text once."""
    forms, seen = [], set()
    for form in type_renderings(answer, kind, problem):
        text = "".join(text for text, _ in form.segments)
        if text not in seen:
            seen.add(text)
            forms.append(form)
    return forms


# --- the checker --------------------------------------------------------------------------------------------------

NORMALISATIONS = (
    (r"\\[dt]frac", r"\\frac"),
    (r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}"),
    (r"\\frac\s*(\d)\s*\{", r"\\frac{\1}{"),
    (r"\\frac(\{[^{}]*\})\s*(\d)", r"\\frac\1{\2}"),
    (r"\\sqrt\s*(\d+)", r"\\sqrt{\1}"),
    (r"√\(?(\w+)\)?", r"\\sqrt{\1}"),
    (r"sqrt\(([^()]*)\)", r"\\sqrt{\1}"),
    (r"\\(?:text|mbox|textbf|mathrm)\{([^{}]*)\}", r"\1"),
    (r"\\left|\\right|\\[!,;]|\\displaystyle|\\ |\*\*|\$|\\\(|\\\)|\\\[|\\\]|\{,\}", ""),
    (r"\\(?:cdot|times)|×|·", "*"),
    (r"\\(?:le|leq)\b|≤", "<="),
    (r"\\(?:ge|geq)\b|≥", ">="),
    (r"\^\{?\\circ\}?|°", "°"),
    (r"\bpi\b|π", r"\\pi"),
    (r"∞|\binfinity\b|\binf\b", r"\\infty"),
    (r"∪", r"\\cup"),
    (r"[−–]", "-"),
    (r"\\begin\{[pb]matrix\}|\\end\{[pb]matrix\}", "|"),
    (r"\*(?=[\\a-z(])", ""),
)
NORMALISATIONS = tuple((re.compile(pattern), replacement) for pattern, replacement in NORMALISATIONS)
LIST_MARKER = re.compile(r"(?m)^\s*\d+[.)]\s")
NUMBER = re.compile(
    r"(?P<sci>-?\d+(?:\.\d+)?)\*10\^\{?(?P<exponent>-?\d+)\}?"
    r"|(?P<mixed_whole>\d+) ?\\frac\{(?P<mixed_numerator>\d+)\}\{(?P<mixed_denominator>\d+)\}"
    r"|(?P<mixed_plain>\d+) (?P<plain_numerator>\d+)/(?P<plain_denominator>\d+)"
    r"|\\frac\{(?P<numerator>-?\d+(?:\.\d+)?)\}\{(?P<denominator>\d+(?:\.\d+)?)\}"
    r"|(?P<top>-?\d+(?:\.\d+)?)/(?P<bottom>\d+(?:\.\d+)?)"
    r"|(?P<repeating>-?\d+\.)\\overline\{(?P<period>\d+)\}"
    r"|(?P<number>-?(?:\d+(?:\.\d+)?|\.\d+))"
)
SYMBOLIC = re.compile(
    r"\\frac\{(?P<a>-?\d*)(?P<b>\\sqrt\{\d+\}|\\pi)\}\{(?P<c>\d+)\}"
    r"|\\frac\{(?P<d>\d+)\}\{(?P<e>-?\d*)(?P<f>\\sqrt\{\d+\}|\\pi)\}"
    r"|(?P<g>-?\d*)(?P<h>\\sqrt\{\d+\}|\\pi)(?:/(?P<i>\d+))?"
)


def normalise(text: str) -> str:
    """Lower-case text with the malformations undone and whitespace kept only between two alphanumerics."""
    text = LIST_MARKER.sub(" ", text)
    for pattern, replacement in NORMALISATIONS:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r" (?![0-9A-Za-z])|(?<![0-9A-Za-z]) ", "", text)
    return text.lower()


def number_tokens(normalised: str) -> list[tuple]:
    """Every number written in a normalised text with its text: exact ones as Fractions, radicals and multiples of
    pi (evaluated by sympy) as floats."""
    values = []
    for variant in {normalised, re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", normalised)}:
        for token in NUMBER.finditer(variant):
            groups = token.groupdict()
            if groups["sci"]:
                value = Fraction(groups["sci"]) * Fraction(10) ** int(groups["exponent"])
            elif groups["mixed_whole"]:
                value = int(groups["mixed_whole"]) + Fraction(
                    int(groups["mixed_numerator"]), int(groups["mixed_denominator"]) or 1
                )
            elif groups["mixed_plain"]:
                value = int(groups["mixed_plain"]) + Fraction(
                    int(groups["plain_numerator"]), int(groups["plain_denominator"]) or 1
                )
            elif groups["numerator"]:
                value = Fraction(groups["numerator"]) / (Fraction(groups["denominator"]) or 1)
            elif groups["top"]:
                value = Fraction(groups["top"]) / (Fraction(groups["bottom"]) or 1)
            elif groups["repeating"]:
                period = groups["period"]
                repeating = Fraction(int(period), 10 ** len(period) - 1)
                whole_part = Fraction(groups["repeating"] + "0")
                value = whole_part - repeating if groups["repeating"].startswith("-") else whole_part + repeating
            else:
                value = Fraction(groups["number"])
            values.append((value, token.group(0)))
    for token in SYMBOLIC.finditer(normalised):
        value = to_sympy(token.group(0))
        if value is not None and value.is_real:
            values.append((float(value), token.group(0)))
    return values


@dataclass
class Answer:
    """What the checker looks for: normalised spellings, exact values, a real value to approximate, words."""

    spellings: list = field(default_factory=list)
    values: list = field(default_factory=list)
    rationals: set = field(default_factory=set)
    irrationals: list = field(default_factory=list)
    real: float | None = None
    words: list = field(default_factory=list)
    letters: list = field(default_factory=list)


def spelled(normalised: str, spelling: str) -> bool:
    """Whether `spelling` stands in `normalised` on its own (not inside a longer number, word or expression)."""
    for found in re.finditer(re.escape(spelling), normalised):
        before = normalised[found.start() - 1] if found.start() else " "
        after = normalised[found.end() : found.end() + 2]
        if spelling[0].isalnum() and (before.isalnum() or before in ".-+^_"):
            continue
        if spelling[-1].isalnum() and (after[:1].isalnum() or re.match(r"[./^_+\-]\d|[+\-^]", after)):
            continue
        return True
    return False


@cache
def analyse(answer: str, problem: str) -> Answer:
    kind = answer_type(answer, problem)
    found = Answer()
    forms = renderings(answer, kind, problem)
    for form in forms:
        for text, is_part in form.segments:
            if is_part:
                found.spellings.append(normalise(text))
    if kind == "set/list":
        elements = set_elements(answer)
        for order in permutations(elements):
            found.spellings += [normalise(", ".join(order)), normalise(" and ".join(order))]
    if kind in ("ordered pair", "tuple"):
        found.spellings.append(normalise(answer))
    if kind == "text answer":
        found.words.append(re.search(r"\\text\{(.*)\}", answer).group(1).strip().lower())
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", answer).group(0)
        found.letters.append(letter)
        content = option_text(problem, letter)
        if content:
            found.words.append(content.lower())
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
        found.values.append(sympy.Integer(int(digits, int(base))))
        found.values.append(sympy.Integer(int(digits)))
    value = None
    if kind == "units/degrees/money":
        value = units_value(answer)
        if units_parts(answer)[1] == "word" and units_parts(answer)[2].startswith("cent"):
            found.values.append(value / 100)
    elif kind in ("small integer", "negative integer", "large integer", "fraction", "decimal", "radical"):
        value = to_sympy(answer.replace(",", ""))
    elif kind in ("multiple of pi", "mixed number"):
        value = to_sympy(answer)
    if value is not None:
        found.values.append(value)
        if not value.is_Rational or decimal_text(Fraction(int(value.p), int(value.q))) is None:
            found.real = float(value)
    for value in found.values:
        if value.is_Rational:
            found.rationals.add(Fraction(int(value.p), int(value.q)))
        else:
            found.irrationals.append(float(value))
    found.spellings = sorted(set(found.spellings) - {""}, key=len, reverse=True)
    return found


def near(token: str, value: float) -> bool:
    """Whether a number written in a text is `value` to its last digit, with 3 or more significant digits."""
    significant = len(token.lstrip("-").replace(".", "").lstrip("0"))
    if significant < 3:
        return False
    places = len(token.split(".")[1]) if "." in token else 0
    return abs(float(token) - value) <= 10.0**-places


def holds_answer(text: str, answer: str, problem: str = "") -> bool:
    """Whether a reader can find the answer's value in `text`, in any notation this corpus renders, as an exact
    number equal to it, or as a decimal of 3 or more significant digits of an irrational or non-terminating value."""
    found = analyse(answer, problem)
    normalised = normalise(text)
    if any(spelled(normalised, spelling) for spelling in found.spellings):
        return True
    lowered = text.lower()
    if any(re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered) for word in found.words):
        return True
    if any(re.search(rf"(?<![A-Za-z]){letter}(?![A-Za-z])", text) for letter in found.letters):
        return True
    if found.values:
        for value in found.values:
            if value.is_Integer and (words := integer_words(int(value))):
                if re.search(rf"(?<![a-z-]){re.escape(words)}(?![a-z-])", lowered):
                    return True
            if value.is_Rational and (words := fraction_words(Fraction(int(value.p), int(value.q)))):
                if words in lowered:
                    return True
        for value, token in number_tokens(normalised):
            if value in found.rationals:
                return True
            if isinstance(value, float) and any(abs(value - real) < 1e-9 * abs(real) for real in found.irrationals):
                return True
            if found.real is not None and re.fullmatch(r"-?\d+(\.\d+)?", token) and near(token, found.real):
                return True
    return False


# --- wrong values -------------------------------------------------------------------------------------------------


def write_like(value, kind: str, reference: str) -> str:
    """A number written in the shape of the answer `reference`."""
    if value.is_Integer:
        number = int(value)
        return f"{number:,}" if "," in reference else str(number)
    if value.is_Rational and kind == "decimal":
        return decimal_text(Fraction(int(value.p), int(value.q))) or sympy.latex(value)
    if value.is_Rational and kind == "mixed number" and value > 1:
        whole_part, rest = divmod(int(value.p), int(value.q))
        return f"{whole_part}\\frac{{{rest}}}{{{int(value.q)}}}"
    return sympy.latex(value)


def units_number(value, reference: str) -> str:
    """A units answer's number written like `reference`: same decimal places, thousands commas, or LaTeX."""
    if "." in reference:
        return f"{float(value):.{len(reference.split('.')[1])}f}"
    return write_like(value, "units", reference)


def scalar_wrongs(value, kind: str, reference: str) -> list[tuple]:
    candidates = [(value + 1, "plus_one"), (value - 1, "minus_one"), (2 * value, "doubled"), (-value, "negated")]
    if value.is_Rational and not value.is_Integer:
        candidates += [(1 / value, "reciprocal"), (sympy.Rational(value.p + 1, value.q), "numerator_plus_one")]
        candidates.append((sympy.Rational(value.p, value.q + 1), "denominator_plus_one"))
    coefficient, rest = value.as_coeff_Mul()
    if rest.is_Pow and rest.exp == sympy.Rational(1, 2):
        candidates += [(coefficient * sympy.sqrt(rest.base + 1), "radicand_plus_one"), (rest, "coefficient_dropped")]
        candidates.append((coefficient * rest.base, "root_dropped"))
    if rest == sympy.pi:
        candidates += [(coefficient, "pi_dropped"), (coefficient * 2 * sympy.pi, "coefficient_doubled")]
    if value.is_Integer and abs(value) > 9:
        digits = str(abs(int(value)))
        swapped = digits[-1] + digits[1:-1] + digits[0]
        candidates.append((sympy.sign(value) * int(swapped), "digits_swapped"))
    return [(write_like(wrong, kind, reference), how) for wrong, how in candidates if wrong != value]


def integer_mutations(answer: str) -> list[tuple]:
    """The answer string with one of its integers (not a denominator) one more or one less."""
    mutations = []
    for found in re.finditer(r"(?<![\d}])\d+", answer):
        number = int(found.group(0))
        for new, how in ((number + 1, "integer_plus_one"), (number - 1, "integer_minus_one")):
            if new > 0:
                mutations.append((answer[: found.start()] + str(new) + answer[found.end() :], how))
    return mutations


def component_mutations(components: list[str], rebuild) -> list[tuple]:
    """`rebuild(components)` with one numeric component plus one, negated or doubled."""
    mutations = []
    for position, component in enumerate(components):
        value = to_sympy(component)
        if value is None or not value.is_number:
            continue
        for new, how in ((value + 1, "entry_plus_one"), (-value, "entry_negated"), (2 * value, "entry_doubled")):
            if new != value:
                written = plain(new) if re.fullmatch(r"-?\d+/\d+", component) else sympy.latex(new)
                changed = components[:position] + [written] + components[position + 1 :]
                mutations.append((rebuild(changed), how))
    return mutations


def rebuild_intervals(pieces: list) -> Callable[[list[str]], str]:
    def rebuild(ends: list[str]) -> str:
        written = [f"{left}{ends[2 * k]}, {ends[2 * k + 1]}{right}" for k, (left, _, _, right) in enumerate(pieces)]
        return " \\cup ".join(written)

    return rebuild


def rebuild_matrix(rows: list[list[str]]) -> Callable[[list[str]], str]:
    width = len(rows[0])

    def rebuild(entries: list[str]) -> str:
        lines = [" & ".join(entries[start : start + width]) for start in range(0, len(entries), width)]
        return "\\begin{pmatrix} " + " \\\\ ".join(lines) + " \\end{pmatrix}"

    return rebuild


SWAPPED_FUNCTIONS = {"cot": "tan", "tan": "cot", "sin": "cos", "cos": "sin"}


def expression_mutations(answer: str) -> list[tuple]:
    """An expression with a function swapped (cot for tan), its sign flipped, or doubled."""
    mutations = [
        (answer.replace(name, other), "function_swapped")
        for name, other in SWAPPED_FUNCTIONS.items()
        if name in answer
    ]
    value = to_sympy(answer)
    mutations += [(sympy.latex(-value), "negated"), (sympy.latex(2 * value), "doubled")]
    return mutations


def other_words(answer_word: str, problem: str) -> list[str]:
    """Words the problem offers in place of a text answer: quoted words, single-word items of the answer's list,
    or names used the same way ("Luka makes" beside "Navin makes")."""
    quoted = re.findall(r'"([A-Za-z]+)"', problem)
    if quoted:
        return [word for word in dict.fromkeys(quoted) if word.lower() != answer_word.lower()]
    for clause in re.split(r"[.?!;:()\[\]]", problem):
        items = re.split(r",\s*|\s+or\s+|\s+and\s+", clause)
        words = [item.replace("or ", "").strip() for item in items if re.fullmatch(r"(or )?[a-z]+", item.strip())]
        if answer_word in words:
            return [word for word in words if word != answer_word]
    follower = re.search(rf"{answer_word}\s+(\w+)", problem).group(1)
    return [name for name in re.findall(rf"\b([A-Z][a-z]+)\s+{follower}\b", problem) if name != answer_word]


def wrong_values(answer: str, kind: str, problem: str) -> list[tuple[str, str]]:
    """Wrong values of the answer's own shape, each with how it was made, that differ from it in value."""
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", answer).group(0)
        letters = sorted(set(re.findall(r"\(([A-H])\)", problem)) - {letter})
        candidates = [(answer.replace(letter, other), "other_choice") for other in letters]
    elif kind == "text answer":
        word = re.search(r"\\text\{(.*)\}", answer).group(1).strip()
        candidates = [(other, "other_option") for other in other_words(word, problem)]
    elif kind == "units/degrees/money":
        number, _, _ = units_parts(answer)
        value = units_value(answer)
        candidates = [
            (tidy_latex(answer).replace(number, units_number(wrong_value, number)), how)
            for wrong_value, how in [
                (value + 1, "plus_one"),
                (value - 1, "minus_one"),
                (2 * value, "doubled"),
                (value + 10, "plus_ten"),
            ]
        ]
    elif kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
        candidates = []
        for position in range(len(digits)):
            changed = (int(digits[position]) + 1) % int(base)
            mutated = digits[:position] + str(changed) + digits[position + 1 :]
            if not mutated.startswith("0"):
                candidates.append((f"{mutated}_{{{base}}}" if "{" in answer else f"{mutated}_{base}", "digit_changed"))
    elif kind == "interval":
        pieces = interval_pieces(answer)
        flipped = answer.translate(str.maketrans("()[]", "[]()"))
        candidates = [(flipped, "brackets_flipped")] if "infty" not in answer else []
        ends = [end for _, low, high, _ in pieces for end in (low, high)]
        candidates += component_mutations(ends, rebuild_intervals(pieces))
    elif kind in ("ordered pair", "tuple"):
        components = top_level_split(tidy_latex(answer).strip()[1:-1])
        candidates = [("(" + ", ".join(components[::-1]) + ")", "reversed")]
        candidates += component_mutations(components, lambda changed: "(" + ", ".join(changed) + ")")
    elif kind == "set/list":
        elements = set_elements(answer)
        candidates = [(", ".join(elements[:-1]), "element_dropped")]
        candidates += component_mutations(elements, ", ".join)
    elif kind == "matrix/vector":
        rows = matrix_rows(answer)
        candidates = component_mutations([entry for row in rows for entry in row], rebuild_matrix(rows))
    elif kind in ("expression", "equation", "complex number"):
        candidates = integer_mutations(answer)
        if kind == "expression":
            candidates += expression_mutations(answer)
        if kind == "complex number":
            candidates.insert(
                0, (re.sub(r"([+-])(?=[^+-]*i)", lambda sign: "-+"[sign.group(0) == "-"], answer), "conjugate")
            )
    else:
        value = to_sympy(answer.replace(",", ""))
        candidates = scalar_wrongs(value, kind, answer)
    kept = []
    for wrong, how in candidates:
        if wrong.strip() and not holds_answer(wrong, answer, problem) and differs(wrong, answer, kind):
            kept.append((wrong.strip(), how))
    return list(dict.fromkeys(kept))


def differs(wrong: str, answer: str, kind: str) -> bool:
    """Whether a wrong value differs from the answer in value (sympy where both parse)."""
    if kind == "equation":
        wrong_left, wrong_right = equation_sides(wrong)
        left, right = equation_sides(answer)
        return not sympy.simplify((wrong_left - wrong_right) / (left - right)).is_number
    if kind in ("expression", "complex number"):
        return sympy.simplify(to_sympy(wrong) - to_sympy(answer)) != 0
    return wrong.replace(" ", "") != answer.replace(" ", "")


# --- frames -------------------------------------------------------------------------------------------------------

# {A}: an answer slot (a decoy in clean texts); {W}: the attempt's wrong value; {Q}, {N}: numbers of the problem;
# {M}: an intermediate quantity of the reference solution.
TEMPLATES = {
    "think_both": "<think>\nOkay, so the problem gives {Q}. The attempt ended with {W}. Hmm, that seems off.\nLet me "
    "recompute... using {N} I get {M}, so the final value is {A}.\nWait, let me double check. Yes, {A}.\n</think>\n\n"
    "The attempt's final value {W} is wrong. The correct answer is {A}.",
    "think_inside_only": "<think>\nHmm. The student used {Q} and got {W}. Actually the correct value is {A}; the slip "
    "is in the step that gives {M}.\n</think>\nThe final value {W} does not follow from the work. Recheck the step "
    "that produces {M}.",
    "think_after_only": "<think>\nLet me look at this. The student wrote {W}. Wait, {Q} times... no. Let me recompute "
    "{M}. Hmm, that matches their work up to there.\n</think>\n\n**Critique:** the last step is wrong, the answer "
    "should be {A}.",
    "think_unclosed": "<think>\nOk so {Q} and {N} are given. Let me recompute: {M}... so the answer is {A}. Wait, let "
    "me verify this again with {Q}. Actually yes, {A}. So the student's {W} is",
    "verification_loop": "Let me recompute. From {Q} we get {M}, so the value is {A}.\nLet me verify: {A}. Let me "
    "verify again: {A}. Yes.\nThe attempt's {W} is wrong.",
    "repeated_phrase": "The student's answer {W} is incorrect. The correct answer is {A}. The correct answer is {A}. "
    "The correct answer is {A}. The correct answer is",
    "cut_after_value": "The attempt is wrong at the end. It uses {Q} correctly but then writes {W}. The final answer "
    "is {A}",
    "cut_mid_word": "The attempt writes {W}, but the correct value is {A}. The mistake comes from the step using {Q}, "
    "where the stud",
    "doubled_words": "The the attempt gets {W}, but the the correct answer is {A}. The the error is in the the step "
    "with {M}.",
    "role_tokens": "Assistant: The attempt is incorrect.\n### Response:\nThe student found {W}, but using {Q} the "
    "answer is {A}.[/INST] Assistant: {A}</s>",
    "restart_list": "1. The setup with {Q} is fine.\n2. The value {M} is computed correctly.\n3. The final answer "
    "{W} is wrong.\n1. The correct answer is {A}.\n2. The",
    "hedged": "Hmm, I think the answer should be {A} (or maybe {W}?). The attempt's {W} seems off, I think it's {A}.",
    "not_but": "The answer is not {A} but {A}. The attempt's {W} is wrong, it came from {M}.",
    "no_wait_same": "So the answer is {A}. No wait, let me redo {Q}... {M}... no, it's {A} again. The attempt's {W} "
    "is wrong.",
    "chat_tokens": "<|im_start|>assistant\nThe attempt's final value {W} is wrong.\nFinal Answer: {A}<|im_end|>",
    "heading_after": "Wait, actually the the mistake: {W} should be {A}. Let me recompute {M}. Hmm. Yes.\n\n"
    "### Final Answer\n{A}",
}

# (name, prefix, suffix, for LaTeX only)
WRAPPERS = (
    ("bare", "", "", False),
    ("dollars", "$", "$", True),
    ("dollar_unclosed", "$", "", True),
    ("parens", "\\(", "\\)", True),
    ("paren_unclosed", "\\(", "", True),
    ("display", "\\[", "\\]", True),
    ("boxed", "$\\boxed{", "}$", True),
    ("boxed_unclosed", "\\boxed{", "", True),
    ("boxed_closed_late", "\\boxed{", " }}", True),
    ("bold", "**", "**", False),
    ("bold_stray", "**", "", False),
    ("heading_glued", "\n###", "", False),
    ("escaped_dollars", "\\$", "\\$", True),
    ("line_break", "\\\\\n", "", False),
)
APPROXIMATION_PREFIXES = (
    ("about", "about "),
    ("approx", "\\approx "),
    ("unicode_approx", "≈ "),
    ("roughly", "roughly "),
)


def fill(template: str, slots: dict) -> list[tuple[str, bool]]:
    """The template's segments with each placeholder replaced by its (text, is_part) segments."""
    segments = []
    for piece in re.split(r"(\{[A-Z]\})", template):
        segments += slots[piece[1]] if re.fullmatch(r"\{[A-Z]\}", piece) else [(piece, False)]
    return segments


def wrapped(segments: list, wrapper: tuple) -> list[tuple[str, bool]]:
    _, prefix, suffix, _ = wrapper
    return [(prefix, False), *segments, (suffix, False)]


def problem_numbers(problem: str) -> list[str]:
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    return list(dict.fromkeys(re.findall(r"(?<![\w.^_])-?\d+(?:\.\d+)?(?![\w.])", text)))[:12]


def intermediate_values(solution: str) -> list[str]:
    text = re.sub(r"\[asy\].*?\[/asy\]|\\boxed\{.*", " ", solution, flags=re.S)
    found = re.findall(r"\\frac\{\d+\}\{\d+\}|(?<![\w.^_{])-?\d+(?:\.\d+)?(?![\w.}])", text)
    return list(dict.fromkeys(found))[:16]


def join(segments: list) -> tuple[str, list[str], str]:
    """(text, parts, context) of a list of segments."""
    text = "".join(text for text, _ in segments)
    parts = [text for text, is_part in segments if is_part]
    context = "".join("\\ldots" if is_part else text for text, is_part in segments)
    return text, parts, context


def slots_found(segments: list) -> bool:
    """Whether every part's own slot stands on its own in the text (`occurrences` drops when it is replaced)."""
    text = "".join(text for text, _ in segments)
    for position, (part, is_part) in enumerate(segments):
        if is_part:
            replaced = segments[:position] + [("\\ldots", False)] + segments[position + 1 :]
            if occurrences(part, text) <= occurrences(part, "".join(text for text, _ in replaced)):
                return False
    return True


@dataclass
class Row:
    """One MATH-500 problem with what its critiques quote."""

    index: int
    answer: str
    problem: str
    kind: str
    forms: list
    wrongs: list
    numbers: list
    intermediates: list


def prepare(index: int, row: dict) -> Row:
    answer, problem = row["answer"], row["problem"]
    kind = answer_type(answer, problem)
    clean = [value for value in problem_numbers(problem) if not holds_answer(value, answer, problem)]
    steps = [value for value in intermediate_values(row["solution"]) if not holds_answer(value, answer, problem)]
    return Row(
        index,
        answer,
        problem,
        kind,
        renderings(answer, kind, problem),
        wrong_values(answer, kind, problem),
        clean or ["the given values"],
        steps or ["the intermediate step"],
    )


def approximation_forms(answer: str, problem: str) -> list[Form]:
    real = analyse(answer, problem).real
    if real is None:
        return []
    forms = []
    for significant in (4, 5, 6):
        for name, prefix in APPROXIMATION_PREFIXES:
            text = approximation_text(real, significant)
            forms.append(Form(f"{name}_{significant}_digits", [(prefix, False), (text, True)], math=name == "approx"))
    return forms


def case(row: Row, family: str, style: str, frame: str, segments: list, wrong: tuple) -> dict:
    """The labelled case; `wrong` is the (value, how) the text quotes, ("", "") if it quotes none."""
    text, parts, context = join(segments)
    return {
        "family": family,
        "split": "held_out",
        "index": row.index,
        "answer_type": row.kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": family != "clean",
        "written_out": family == "rendering",
        "parts": parts,
        "context": context,
        "wrong": wrong[0],
        "wrong_how": wrong[1],
    }


def draw_slots(row: Row, rng: random.Random, wrong: tuple) -> dict:
    first, second = rng.sample(row.numbers, 2) if len(row.numbers) > 1 else row.numbers * 2
    return {
        "W": [(wrong[0], False)],
        "Q": [(first, False)],
        "N": [(second, False)],
        "M": [(rng.choice(row.intermediates), False)],
    }


def wrappers_for(form: Form) -> list[tuple]:
    return [wrapper for wrapper in WRAPPERS if form.math or not wrapper[3]]


def leak_case(row: Row, family: str, form: Form, rng: random.Random) -> dict | None:
    """A leak of `form` in a random frame, redrawn until the checker finds the answer in the text alone."""
    for _ in range(DRAWS):
        frame = rng.choice(sorted(TEMPLATES))
        wrapper = rng.choice(wrappers_for(form))
        wrong = rng.choice(row.wrongs)
        slots = draw_slots(row, rng, wrong) | {"A": wrapped(form.segments, wrapper)}
        segments = fill(TEMPLATES[frame], slots)
        text, _, context = join(segments)
        if (
            slots_found(segments)
            and holds_answer(text, row.answer, row.problem)
            and not holds_answer(context, row.answer, row.problem)
        ):
            return case(row, family, f"{form.style}+{wrapper[0]}", frame, segments, wrong)
    return None


def clean_case(row: Row, stop_short: bool, rng: random.Random) -> dict | None:
    """A clean text: a frame whose answer slots hold decoys, or that stops just before the value."""
    for _ in range(DRAWS):
        frame = rng.choice(sorted(TEMPLATES))
        wrapper = rng.choice([wrapper for wrapper in WRAPPERS if wrapper[0] != "heading_glued"])
        wrong = rng.choice(row.wrongs)
        others = [value for value in row.wrongs if value != wrong] or [wrong]
        decoy, how = rng.choice(others + [(value, "intermediate") for value in row.intermediates[:3]])
        slots = draw_slots(row, rng, wrong) | {"A": wrapped([(decoy, False)], wrapper)}
        segments = fill(TEMPLATES[frame], slots)
        style = f"decoy_{how}+{wrapper[0]}"
        if stop_short:
            cut = TEMPLATES[frame].index("{A}")
            segments = fill(TEMPLATES[frame][:cut], slots) + [(wrapper[1], False)]
            style = f"stop_short+{wrapper[0]}"
            wrong = wrong if "{W}" in TEMPLATES[frame][:cut] else ("", "")
        text, _, _ = join(segments)
        if not holds_answer(text, row.answer, row.problem):
            return case(row, "clean", style, frame, segments, wrong)
    return None


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Leaks (renderings and approximations) and clean critiques for every MATH-500 row."""
    cases = []
    for index, problem_row in enumerate(problems):
        row = prepare(index, problem_row)
        rng = random.Random(f"{seed}:{row.index}")
        if not row.wrongs:
            continue
        offset = rng.randrange(len(row.forms))
        drawn = [
            leak_case(row, "rendering", row.forms[(offset + k) % len(row.forms)], rng) for k in range(RENDERING_CASES)
        ]
        approximations = approximation_forms(row.answer, row.problem)
        if approximations:
            drawn += [
                leak_case(row, "approximation", form, rng) for form in rng.sample(approximations, APPROXIMATION_CASES)
            ]
        drawn += [clean_case(row, k >= CLEAN_CASES - 2, rng) for k in range(CLEAN_CASES)]
        cases += [drawn_case for drawn_case in drawn if drawn_case is not None]
    return cases
