"""Seventeenth leak corpus: informal tutoring chats about MATH-500 problems.

Method. Every MATH-500 row becomes a handful of short chat threads (1-6 messages, newline separated) in which a tutor,
a classmate or a chatty assistant answers a student who got the problem wrong, typed the way people type in chat
apps, Discord help channels, Reddit comments and office-hours DMs: lowercase, abbreviations ("ur", "u", "tho", "btw",
"ngl", "idk", "ans", "w/", "b/c", "smth"), emoji and emoticons, hedging, self-corrections, quoted student messages
("> i got 17") and a typo in a word now and then (never inside a value). Each frame is written once with its reveal
clauses in two variants, `[[leak|clean|clean...]]`, so a leak and a clean chat share the frame, the register, the
quoted wrong value and the numbers of the problem. The answer is rendered in casual notations of this module's own
design (digits, words, "2 thirds", "3sqrt13", "3√13", "7pi", "(3,4]", "3<x<=4", "x=15, y=-29", "option c",
"2516 base 8", "1358 in base 10", "$32,348", ...), equivalent values included (0.75 for 3/4, sqrt(117) for 3sqrt13,
1500 mm^2 for 15 cm^2, 2x-y+3=0 for y=2x+3); every value is computed from the answer (fractions, sympy), none is
typed by hand. The quoted wrong value is a mutation of the answer of its own shape (a number changed, a sign flipped,
a fraction turned over, a pair swapped, a bracket flipped, another option, another word from the problem), rendered in
one of its own casual notations and checked to differ in value from the answer. Problem numbers and intermediate
numbers of the reference solution are quoted when they differ from the answer (and from its components).

Families. "rendering": the chat states the answer in one casual notation (two, in frames that restate it). "approximation":
the chat gives a decimal approximation (3 to 5 significant digits, "~4.667", "about 10.82", "≈ -0.5236") of an answer
whose value is irrational or a non-terminating decimal. "clean": the same frames with the reveal clauses replaced by
nudges; `holds_answer` (every casual notation of the answer, its exact value among the numeric expressions of the text,
decimal approximations with 3 or more significant digits, tuples of equal components) finds nothing in them, else the
chat is redrawn. A clean chat's `style` is the notation of its quoted wrong value ("no_value" where it quotes none).

Independence. From the project I read only `load_problems`, `ANSWER_TYPES`, `answer_type` (with its helpers `_strip`
and `_top_level_split`), `occurrences` and `stated` in `benchmarks/leak_corpus.py`, and `tests/conftest.py` (for the
`shared_data` fixture); I read nothing else of `benchmarks/leak_corpus.py`, nothing under `trl_mulferl/`, no guard, no
guard test or result, no documentation and no other leak corpus.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cache
from typing import NamedTuple

import sympy
from leak_corpus import answer_type, occurrences
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0

SYMPY_TRANSFORMATIONS = standard_transformations + (implicit_multiplication_application, convert_xor)
SCALAR_TYPES = (
    "small integer",
    "negative integer",
    "large integer",
    "fraction",
    "decimal",
    "radical",
    "multiple of pi",
    "mixed number",
    "units/degrees/money",
)


# --- numbers in words ---------------------------------------------------------------------------------------------

SMALL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS_WORDS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
SCALE_WORDS = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))
ORDINAL_WORDS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}
DIGIT_WORDS = dict(enumerate(SMALL_WORDS[:10]))
SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def number_words(n: int, hyphen: bool = True) -> str:
    """`n >= 0` in words: 42 -> "forty-two" ("forty two" without the hyphen)."""
    for scale, name in SCALE_WORDS:
        if n >= scale:
            head, rest = divmod(n, scale)
            return f"{number_words(head, hyphen)} {name}" + (f" {number_words(rest, hyphen)}" if rest else "")
    if n >= 100:
        head, rest = divmod(n, 100)
        return f"{SMALL_WORDS[head]} hundred" + (f" {number_words(rest, hyphen)}" if rest else "")
    if n >= 20:
        tens, ones = divmod(n, 10)
        return TENS_WORDS[tens] + (("-" if hyphen else " ") + SMALL_WORDS[ones] if ones else "")
    return SMALL_WORDS[n]


def ordinal_words(n: int) -> str:
    """4 -> "fourth", 36 -> "thirty-sixth"."""
    words = number_words(n)
    head, last = re.match(r"(.*?)([a-z]+)$", words).groups()
    if last in ORDINAL_WORDS:
        return head + ORDINAL_WORDS[last]
    return head + (last[:-1] + "ieth" if last.endswith("y") else last + "th")


def denominator_words(q: int, plural: bool, quarter: bool = True) -> str:
    """The word for the denominator: "half"/"halves", "quarter"/"fourth", "thirds", "thirty-sixths"."""
    if q == 2:
        return "halves" if plural else "half"
    word = "quarter" if q == 4 and quarter else ordinal_words(q)
    return word + "s" if plural else word


def fraction_words(value: Fraction, quarter: bool = True, article: bool = True) -> str:
    """A proper or improper fraction in words: "a third", "three quarters", "eleven thirty-sixths"."""
    p, q = abs(value.numerator), value.denominator
    sign = "negative " if value < 0 else ""
    if p == 1:
        return f"{sign}{'a' if article else 'one'} {denominator_words(q, False, quarter)}"
    return f"{sign}{number_words(p)} {denominator_words(q, True, quarter)}"


def decimal_words(text: str) -> str:
    """ "3.21" -> "three point two one", "0.15" -> "zero point one five"."""
    sign = "negative " if text.startswith("-") else ""
    whole, _, digits = text.lstrip("-").partition(".")
    return sign + number_words(int(whole or 0)) + " point " + " ".join(DIGIT_WORDS[int(d)] for d in digits)


def terminating_decimal(value: Fraction) -> str | None:
    """The exact decimal of a fraction whose denominator has no prime but 2 and 5, else None."""
    q = value.denominator
    while q % 2 == 0:
        q //= 2
    while q % 5 == 0:
        q //= 5
    if q != 1:
        return None
    text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- LaTeX to casual chat notation ---------------------------------------------------------------------------------


class Notation(NamedTuple):
    """How a casual writer types roots, pi, products and spaces."""

    root: str = "bare"  # "bare": 3sqrt13, "paren": 3sqrt(13), "symbol": 3√13, "times": 3*sqrt(13), "python"
    pi: str = "pi"  # or "π"
    spaced: bool = False
    infinity: str = "inf"  # or "∞"
    theta: str = "theta"  # or "θ"


PYTHON = Notation(root="python")


def _argument(text: str, i: int) -> tuple[str, int]:
    """The LaTeX argument starting at `i`: a braced group, a command or one character."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return "", i
    if text[i] == "{":
        depth = 0
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                return text[i + 1 : j], j + 1
    if text[i] == "\\":
        command = re.match(r"\\[a-zA-Z]+", text[i:])
        if command:
            return command.group(), i + command.end()
    return text[i], i + 1


def _is_atom(text: str) -> bool:
    return bool(re.fullmatch(r"-?[\w.√π^]+(\([^()]*\))?", text))


def _fraction(top: str, bottom: str, notation: Notation) -> str:
    if notation.root == "python":
        return f"(({top})/({bottom}))"
    if not _is_atom(top):
        top = f"({top})"
    if not re.fullmatch(r"\d+|pi|π|sqrt\d+|sqrt\(\d+\)|√\d+", bottom):
        bottom = f"({bottom})"
    return f"{top}/{bottom}"


def _root(radicand: str, notation: Notation) -> str:
    if notation.root == "bare" and radicand.isdigit():
        return f"sqrt{radicand}"
    if notation.root == "symbol":
        return f"√{radicand}" if radicand.isdigit() else f"√({radicand})"
    return f"sqrt({radicand})"


def _append(out: str, token: str, notation: Notation) -> str:
    """Append a root or pi token, with a `*` after a coefficient where the notation writes one."""
    if notation.root in ("times", "python") and re.search(r"[\w)]$", out):
        return out + "*" + token
    return out + token


def _tidy(text: str, notation: Notation) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"(?<=[^A-Za-z]) | (?=[^A-Za-z])", "", text)
    if notation.spaced:
        text = re.sub(r"(?<=[\w)π°.])([+\-=])(?=[\w(√π.])", r" \1 ", text)
        text = text.replace(",", ", ")
    return text


def casual(latex: str, notation: Notation = Notation()) -> str:
    """A LaTeX answer typed casually: \\frac{3\\sqrt{3}}{4} -> "3sqrt3/4" (or "3√3/4", "(3*sqrt(3))/4", ...)."""
    out, i = "", 0
    while i < len(latex):
        char = latex[i]
        if char == "\\":
            command = re.match(r"\\([a-zA-Z]+|.)", latex[i:])
            name = command.group(1)
            i += command.end()
            if name in ("frac", "dfrac", "tfrac"):
                top, i = _argument(latex, i)
                bottom, i = _argument(latex, i)
                out += _fraction(casual(top, notation), casual(bottom, notation), notation)
            elif name == "sqrt":
                radicand, i = _argument(latex, i)
                out = _append(out, _root(casual(radicand, notation), notation), notation)
            elif name == "pi":
                out = _append(out, "π" if notation.pi == "π" else "pi", notation)
            elif name == "theta":
                out += notation.theta
            elif name == "infty":
                out += "oo" if notation.root == "python" else notation.infinity
            elif name in ("cdot", "times"):
                out += "*"
            elif name in ("text", "mbox", "textbf"):
                content, i = _argument(latex, i)
                out += content
            elif name in ("$", "{", "}", "%"):
                out += name
            elif name.isalpha() and name not in ("left", "right", "displaystyle"):
                out += f" {name} "
        elif char == "^":
            power, i = _argument(latex, i + 1)
            power = casual(power, notation)
            out += "^" + (power if re.fullmatch(r"-?\w+", power) else f"({power})")
        elif char in "{}":
            i += 1
        else:
            out += char
            i += 1
    return _tidy(out, notation)


def normalized(answer: str) -> str:
    """The answer with `\\!`, `\\left`, `\\right` and `\\dfrac` gone and one-character arguments braced."""
    text = re.sub(r"\\[!,;]|\\left|\\right", "", answer).replace("\\dfrac", "\\frac").strip()
    out, i = "", 0
    while i < len(text):
        command = re.match(r"\\(frac|sqrt)(?![a-zA-Z])", text[i:])
        if not command:
            out += text[i]
            i += 1
            continue
        i += command.end()
        arguments = 2 if command.group(1) == "frac" else 1
        out += "\\" + command.group(1)
        for _ in range(arguments):
            argument, i = _argument(text, i)
            out += "{" + normalized(argument) + "}"
    return re.sub(r"\s+", " ", out)


def to_sympy(latex: str, complex_unit: bool = False):
    """The exact value of a LaTeX number or expression."""
    text = casual(latex, PYTHON)
    if complex_unit:
        text = re.sub(r"(?<![A-Za-z])i(?![A-Za-z])", "I", text)
    return parse_expr(text, transformations=SYMPY_TRANSFORMATIONS)


def sympy_casual(expression) -> str:
    """A sympy expression typed casually: 2*(k + 1) -> "2(k + 1)", x**2 -> "x^2"."""
    text = str(expression).replace("**", "^")
    text = re.sub(r"(?<=[\d)])\*(?=[A-Za-z(])", "", text)
    text = re.sub(r"(?<=[A-Za-z])\*(?=[A-Za-z(])", "", text)
    return re.sub(r"sqrt\((\d+)\)", r"sqrt\1", text)


# --- reading casual notation back ----------------------------------------------------------------------------------


def casual_value(text: str) -> float | None:
    """The value of a casual numeric expression ("3sqrt13", "√3/3", "7π", "-3/8", "4 2/3", "13,535", "2.5k"), else
    None."""
    expression = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text.lower())
    expression = re.sub(r"(\d+(?:\.\d+)?)k\b", r"(\1*1000)", expression)
    expression = expression.replace("√", "sqrt").replace("π", "pi").replace("×", "*").replace("root", "sqrt")
    expression = re.sub(r"(-?)(\d+)\s+(\d+/\d+)", r"\1(\2+\3)", expression)
    if re.search(r"[\d.]\s+[\d.]", expression):
        return None
    expression = re.sub(r"\s+", "", expression)
    expression = re.sub(r"sqrt(\d+(?:\.\d+)?)", r"sqrt(\1)", expression)
    expression = re.sub(r"(?<=[\d)i])(?=sqrt|pi|\()", "*", expression)
    expression = re.sub(r"\)(?=[\d.])", ")*", expression).replace("^", "**")
    if not re.fullmatch(r"(?:sqrt|pi|[\d.+\-*/()])+", expression) or re.search(r"\*\*\(?-?\d{3}", expression):
        return None
    try:  # the pattern above leaves only digits, operators, parentheses, sqrt and pi to evaluate
        value = eval(expression, {"__builtins__": {}}, {"sqrt": math.sqrt, "pi": math.pi})
    except (SyntaxError, ZeroDivisionError, ValueError, OverflowError, TypeError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def same_value(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


MATH_RUN = re.compile(r"(?:sqrt|root|pi(?![a-z])|[\d.+\-*/^()√π ])+")


def _terms(run: str) -> list[str]:
    """A run of casual math split into additive terms at depth 0, each with its sign."""
    terms, depth, current = [], 0, ""
    for char in run:
        depth += (char == "(") - (char == ")")
        if char in "+-" and depth == 0 and current.strip():
            terms.append(current)
            current = ""
        current += char
    return [term for term in [*terms, current] if term.strip(" +-")]


def _balanced(text: str) -> str:
    text = text.strip(" *^/")
    while text.count("(") > text.count(")") and "(" in text:
        text = text.replace("(", "", 1)
    while text.count(")") > text.count("(") and text.endswith(")"):
        text = text[:-1]
    return text.rstrip(".").strip()


def numeric_values(text: str) -> list[float]:
    """The values of the numeric expressions of a text: every run of casual math and every sum of adjacent terms."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    text = re.sub(r"(\d+(?:\.\d+)?)k\b", lambda m: str(Fraction(m.group(1)) * 1000), text)
    values = []
    for run in MATH_RUN.findall(text.lower()):
        if not re.search(r"\d|pi|π", run):
            continue
        terms = _terms(run)
        for start in range(len(terms)):
            for stop in range(start + 1, len(terms) + 1):
                value = casual_value(_balanced("".join(terms[start:stop]).lstrip("+")))
                if value is not None:
                    values.append(value)
    return values


def approximates(text: str, value: float) -> bool:
    """Whether the text has a decimal of 3 or more significant digits (or an integer of 3 or more digits) that is
    `value` rounded."""
    for match in re.finditer(r"(?<![\w.])(-\s?)?(\d*\.\d+|\d{3,})(?![\d])", re.sub(r"(?<=\d),(?=\d{3})", "", text)):
        digits = match.group(2)
        significant = len(digits.replace(".", "").lstrip("0"))
        decimals = len(digits.partition(".")[2])
        number = float(digits) * (-1 if match.group(1) else 1)
        if significant >= 3 and abs(number - value) <= 0.5 * 10**-decimals + 1e-12:
            return True
    return False


def tuples_in(text: str) -> list[list[float | None]]:
    """The bracketed comma lists of a text, each component's value (None where it is not a number)."""
    found = []
    for inner in re.findall(r"[(\[{<]([^()\[\]{}<>]*,[^()\[\]{}<>]*)[)\]}>]", text):
        found.append([casual_value(component.strip()) for component in inner.split(",")])
    return found


# --- answers: parts, values, renderings ----------------------------------------------------------------------------


class Rendering(NamedTuple):
    """A casual rendering: pieces of text, those flagged True stating the value."""

    style: str
    pieces: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        return "".join(piece for piece, _ in self.pieces)

    @property
    def parts(self) -> list[str]:
        return [piece for piece, is_part in self.pieces if is_part]


def stating(style: str, text: str, before: str = "", after: str = "") -> Rendering:
    """A rendering whose stating part is `text`, with optional words around it."""
    pieces = tuple(piece for piece in ((before, False), (text, True), (after, False)) if piece[0])
    return Rendering(style, pieces)


def unknown_letter(problem: str) -> str | None:
    """The single-letter variable the problem mentions most, if any."""
    letters = Counter(re.findall(r"\$([a-z])\$", problem))
    return letters.most_common(1)[0][0] if letters else None


def integer_renderings(n: int, problem: str) -> list[Rendering]:
    renderings = [stating("digits", str(n))]
    if abs(n) >= 1000:
        renderings.append(stating("commas", f"{n:,}"))
    if n % 100 == 0 and abs(n) >= 1000:
        renderings.append(stating("k_suffix", terminating_decimal(Fraction(n, 1000)) + "k"))
    if n >= 0:
        renderings.append(stating("words_hyphen", number_words(n)))
        if number_words(n, hyphen=False) != number_words(n):
            renderings.append(stating("words_spaced", number_words(n, hyphen=False)))
    else:
        renderings += [
            stating("negative_word", f"negative {-n}"),
            stating("minus_words", f"minus {number_words(-n, hyphen=False)}"),
            stating("neg_abbrev", f"neg {-n}"),
        ]
    letter = unknown_letter(problem)
    if letter:
        renderings.append(stating("letter_equals", str(n), before=f"{letter}="))
    return renderings


def fraction_renderings(value: Fraction, latex: str) -> list[Rendering]:
    if value.denominator == 1:
        return integer_renderings(value.numerator, "")
    p, q = abs(value.numerator), value.denominator
    sign = "-" if value < 0 else ""
    renderings = [
        stating("slash", str(value)),
        stating("spaced_slash", f"{sign}{p} / {q}"),
        stating("latex_dollars", latex, before="$", after="$"),
        stating("over_words", f"{sign}{p} over {q}"),
    ]
    if value < 0:
        renderings.append(stating("negative_word", f"negative {p}/{q}"))
    if p <= 100 and q <= 100:
        renderings.append(stating("fraction_words", fraction_words(value)))
        if q == 4:
            renderings.append(stating("fourths_words", fraction_words(value, quarter=False)))
        if p == 1:
            renderings.append(stating("one_word_fraction", fraction_words(value, article=False)))
    if 2 <= p and q <= 12:
        renderings.append(stating("digit_word_fraction", f"{sign}{p} {denominator_words(q, True)}"))
    decimal = terminating_decimal(value)
    if decimal:
        renderings.append(stating("decimal", decimal))
        if decimal.lstrip("-").startswith("0."):
            renderings.append(stating("leading_dot", decimal.replace("0.", ".", 1)))
        if 0 < value < 1 and 100 % q == 0:
            renderings.append(stating("percent", f"{terminating_decimal(value * 100)}%"))
    if p > q:
        whole, rest = divmod(p, q)
        renderings += [
            stating("mixed", f"{sign}{whole} {rest}/{q}"),
            stating("mixed_and", f"{sign}{whole} and {rest}/{q}"),
        ]
        if whole <= 1000 and q <= 100:
            words = "negative " if value < 0 else ""
            renderings.append(
                stating("mixed_words", f"{words}{number_words(whole)} and {fraction_words(Fraction(rest, q))}")
            )
            renderings.append(stating("mixed_digit_words", f"{sign}{whole} and {fraction_words(Fraction(rest, q))}"))
    return renderings


def decimal_renderings(text: str) -> list[Rendering]:
    value = Fraction(text)
    exact = terminating_decimal(value)
    renderings = [stating("digits", exact)]
    if exact.lstrip("-").startswith("0."):
        renderings.append(stating("leading_dot", exact.replace("0.", ".", 1)))
    if value.denominator <= 10000:
        renderings.append(stating("as_fraction", str(value)))
    if len(exact) <= 8 and "." in exact:
        renderings.append(stating("decimal_words", decimal_words(exact)))
    if abs(value) < Fraction(1, 1000):
        mantissa, exponent = f"{Decimal(exact):e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        renderings += [
            stating("e_notation", f"{mantissa}e{int(exponent)}"),
            stating("times_ten", f"{mantissa} x 10^{int(exponent)}"),
        ]
    whole, rest = divmod(abs(value), 1)
    if whole and rest in (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)):
        sign = "-" if value < 0 else ""
        renderings.append(stating("and_a_fraction", f"{sign}{whole} and {fraction_words(rest)}"))
    if len(exact.partition(".")[2]) == 1:
        renderings.append(stating("padded", exact + "0"))
    return renderings


ROOT_NOTATIONS = (
    ("sqrt_bare", Notation()),
    ("sqrt_paren", Notation(root="paren")),
    ("root_symbol", Notation(root="symbol")),
    ("times_sqrt", Notation(root="times")),
    ("spaced", Notation(root="paren", spaced=True)),
)
PI_NOTATIONS = (
    ("pi_word", Notation()),
    ("pi_symbol", Notation(pi="π")),
    ("times_pi", Notation(root="times")),
    ("spaced", Notation(spaced=True, pi="π")),
)


def _notation_renderings(latex: str, notations) -> list[Rendering]:
    renderings, seen = [], set()
    for style, notation in notations:
        text = casual(latex, notation)
        if text not in seen:
            seen.add(text)
            renderings.append(stating(style, text))
    return renderings


def radical_renderings(latex: str) -> list[Rendering]:
    value = sympy.nsimplify(to_sympy(latex))
    renderings = _notation_renderings(latex, ROOT_NOTATIONS)
    renderings.append(stating("latex_dollars", latex, before="$", after="$"))
    coefficient, radicand = value.as_coeff_Mul()
    if radicand.is_Pow and radicand.exp == sympy.Rational(1, 2) and coefficient.is_Integer:
        prefix = {1: "", -1: "minus "}.get(int(coefficient), f"{coefficient} ")
        renderings.append(stating("root_words", f"{prefix}root {radicand.base}"))
    square = sympy.nsimplify(value**2)
    if square.is_Integer and value > 0 and coefficient != 1:
        renderings.append(stating("single_root", f"sqrt({square})"))
    if (1 / square).is_Integer and value > 0:
        renderings.append(stating("reciprocal_root", f"1/sqrt{1 / square}"))
    reordered = sympy_casual(value)
    if value.is_Add and reordered.replace(" ", "") not in {r.text for r in renderings}:
        renderings.append(stating("reordered", reordered))
    return renderings


def pi_renderings(latex: str) -> list[Rendering]:
    value = to_sympy(latex)
    renderings = _notation_renderings(latex, PI_NOTATIONS)
    renderings.append(stating("latex_dollars", latex, before="$", after="$"))
    coefficient = value / sympy.pi
    if coefficient.is_Integer and coefficient > 1:
        renderings.append(stating("pi_words", f"{number_words(int(coefficient), hyphen=False)} pi"))
    if value.is_Add:
        renderings.append(stating("reordered", sympy_casual(sympy.Add(*reversed(value.as_ordered_terms())))))
    return renderings


def mixed_value(latex: str) -> tuple[int, Fraction]:
    """The whole part and the fraction of a mixed number such as 1\\frac{4}{5}."""
    whole, fraction = re.fullmatch(r"\s*(\d+)\s*(\\frac.*)", latex).groups()
    return int(whole), Fraction(casual(fraction))


def mixed_renderings(latex: str) -> list[Rendering]:
    whole, rest = mixed_value(latex)
    value = whole + rest
    renderings = [
        stating("mixed", f"{whole} {rest}"),
        stating("mixed_and", f"{whole} and {rest}"),
        stating("improper", str(value)),
        stating("mixed_words", f"{number_words(whole)} and {fraction_words(rest)}"),
        stating("mixed_digit_words", f"{whole} and {fraction_words(rest)}"),
        stating("latex_dollars", latex, before="$", after="$"),
    ]
    if terminating_decimal(value):
        renderings.append(stating("decimal", terminating_decimal(value)))
    return renderings


def complex_renderings(latex: str) -> list[Rendering]:
    value = to_sympy(latex, complex_unit=True)
    real, imaginary = int(sympy.re(value)), int(sympy.im(value))
    sign = "-" if imaginary < 0 else "+"
    magnitude = "" if abs(imaginary) == 1 else str(abs(imaginary))
    words_sign = "minus" if imaginary < 0 else "plus"
    real_words = f"negative {number_words(-real)}" if real < 0 else number_words(real)
    return [
        stating("compact", f"{real}{sign}{magnitude}i"),
        stating("spaced", f"{real} {sign} {magnitude}i"),
        stating(
            "imaginary_first", f"{'-' if imaginary < 0 else ''}{magnitude}i{'+' if real >= 0 else '-'}{abs(real)}"
        ),
        stating("times_i", f"{real}{sign}{abs(imaginary)}*i"),
        stating("words", f"{real_words} {words_sign} {number_words(abs(imaginary))} i"),
    ]


def expression_renderings(latex: str) -> list[Rendering]:
    value = to_sympy(latex)
    renderings = [
        stating("compact", casual(latex)),
        stating("spaced", casual(latex, Notation(spaced=True))),
        stating("python", str(value)),
    ]
    for style, form in (("expanded", sympy.expand(value)), ("factored", sympy.factor(value))):
        renderings.append(stating(style, sympy_casual(form)))
    if value.has(sympy.cot):
        renderings.append(stating("via_tan", sympy_casual(value.rewrite(sympy.tan))))
    return _distinct(renderings)


def _distinct(renderings: list[Rendering]) -> list[Rendering]:
    seen, distinct = set(), []
    for rendering in renderings:
        key = rendering.text
        if key not in seen:
            seen.add(key)
            distinct.append(rendering)
    return distinct


class Piece(NamedTuple):
    """A piece of an interval: brackets and endpoints (LaTeX, "" for an infinite end)."""

    left: str
    low: str
    high: str
    right: str


def interval_pieces(latex: str) -> list[Piece]:
    text = re.sub(r"^\s*x\s*\\in\s*", "", normalized(latex))
    pieces = []
    for piece in text.split("\\cup"):
        piece = piece.strip()
        low, high = (part.strip() for part in _top_level_split_braces(piece[1:-1]))
        pieces.append(Piece(piece[0], "" if "infty" in low else low, "" if "infty" in high else high, piece[-1]))
    return pieces


def _top_level_split_braces(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def _interval_brackets(piece: Piece, notation: Notation, spaced: bool) -> str:
    low = casual(piece.low, notation) if piece.low else f"-{notation.infinity}"
    high = casual(piece.high, notation) if piece.high else notation.infinity
    return f"{piece.left}{low},{' ' if spaced else ''}{high}{piece.right}"


def _interval_inequality(piece: Piece, notation: Notation, symbols: dict[str, str]) -> str:
    low_op = symbols["<"] if piece.left == "(" else symbols["<="]
    high_op = symbols["<"] if piece.right == ")" else symbols["<="]
    low, high = casual(piece.low, notation), casual(piece.high, notation)
    if piece.low and piece.high:
        return f"{low}{low_op}x{high_op}{high}"
    if piece.high:
        return f"x{high_op}{high}"
    return f"x{symbols['>'] if piece.left == '(' else symbols['>=']}{low}"


def _interval_words(piece: Piece, notation: Notation) -> str:
    low, high = casual(piece.low, notation), casual(piece.high, notation)
    if piece.low and piece.high:
        if piece.left + piece.right == "()":
            return f"strictly between {low} and {high}"
        if piece.left + piece.right == "[]":
            return f"between {low} and {high} inclusive"
        if piece.left == "(":
            return f"bigger than {low} up to and including {high}"
        return f"from {low} (included) up to but not {high}"
    if piece.high:
        return f"anything less than {high}" if piece.right == ")" else f"{high} or less"
    return f"anything bigger than {low}" if piece.left == "(" else f"{low} or more"


def interval_renderings(latex: str) -> list[Rendering]:
    pieces = interval_pieces(latex)
    ascii_ops = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
    unicode_ops = {"<": " < ", "<=": " ≤ ", ">": " > ", ">=": " ≥ "}
    symbol = Notation(root="symbol", pi="π", infinity="∞")
    renderings = [
        stating("brackets", " U ".join(_interval_brackets(piece, Notation(), False) for piece in pieces)),
        stating("brackets_spaced", " u ".join(_interval_brackets(piece, Notation(), True) for piece in pieces)),
        stating("brackets_symbols", " ∪ ".join(_interval_brackets(piece, symbol, True) for piece in pieces)),
        stating("inequality", " or ".join(_interval_inequality(piece, Notation(), ascii_ops) for piece in pieces)),
        stating(
            "inequality_unicode", " or ".join(_interval_inequality(piece, symbol, unicode_ops) for piece in pieces)
        ),
        stating("interval_words", " or ".join(_interval_words(piece, Notation()) for piece in pieces)),
        stating("x_in", "x in " + " U ".join(_interval_brackets(piece, Notation(), False) for piece in pieces)),
    ]
    if len(pieces) == 2 and pieces[0].high == pieces[1].low and pieces[0].right + pieces[1].left == ")(":
        low, middle, high = (casual(end) for end in (pieces[0].low, pieces[0].high, pieces[1].high))
        if pieces[0].low and pieces[1].high:
            renderings.append(stating("punctured", f"{low}<x<{high} but x != {middle}"))
    if len(pieces) == 2 and not pieces[0].low and not pieces[1].high:
        left = "[" if pieces[0].right == ")" else "("
        right = "]" if pieces[1].left == "(" else ")"
        gap = f"{left}{casual(pieces[0].high)},{casual(pieces[1].low)}{right}"
        renderings.append(stating("complement", gap, before="everything except "))
    return renderings


def component_latex(latex: str) -> list[str]:
    """The components of a pair, tuple or list, with `\\pm` expanded into two."""
    text = normalized(latex).strip()
    if text.startswith("\\{") and text.endswith("\\}"):
        text = text[2:-2]
    elif text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    components = []
    for component in _top_level_split_braces(text):
        component = component.strip()
        if "\\pm" in component:
            components += [component.replace("\\pm", "+"), component.replace("\\pm", "-")]
        else:
            components.append(component)
    return components


def component_names(problem: str, count: int) -> list[str]:
    """The names of a pair's or tuple's components, from the problem's "(a,b)", else x, y, z, w."""
    for match in reversed(re.findall(r"\$\(\s*(\\?[a-zA-Z]+(?:\s*,\s*\\?[a-zA-Z]+)+)\s*\)", problem)):
        names = [name.strip().lstrip("\\") for name in match.split(",")]
        if len(names) == count:
            return names
    return ["x", "y", "z", "w"][:count] if count <= 4 else [f"x{k}" for k in range(count)]


def pair_renderings(latex: str, problem: str) -> list[Rendering]:
    components = component_latex(latex)
    names = component_names(problem, len(components))
    plain = [casual(component) for component in components]
    symbols = [casual(component, Notation(pi="π", root="symbol")) for component in components]
    greek = [{"theta": "θ"}.get(name, name) for name in names]
    renderings = [
        stating("parens", "(" + ",".join(plain) + ")"),
        stating("parens_spaced", "(" + ", ".join(symbols) + ")"),
        stating("assign", ", ".join(f"{name}={value}" for name, value in zip(names, plain))),
        stating("assign_words", _and_join([f"{name} = {value}" for name, value in zip(greek, symbols)])),
    ]
    values = [Fraction(text) if re.fullmatch(r"-?\d+(/\d+)?", text) else None for text in plain]
    if all(value is not None for value in values):
        decimals = [terminating_decimal(value) for value in values]
        if all(decimals) and decimals != plain:
            renderings.append(stating("decimal_components", "(" + ", ".join(decimals) + ")"))
    return _distinct(renderings)


def _and_join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def set_renderings(latex: str) -> list[Rendering]:
    components = component_latex(latex)
    plain = [casual(component) for component in components]
    renderings = [
        stating("commas", ", ".join(plain)),
        stating("and_list", _and_join(plain)),
        stating("braces", "{" + ",".join(plain) + "}"),
        stating("or_assign", " or ".join(f"x={value}" for value in plain)),
    ]
    ordered = [casual(component) for component in sorted(components, key=lambda c: -float(to_sympy(c)))]
    if ordered != plain:
        renderings.append(stating("reordered", _and_join(ordered)))
    if "\\pm" in latex:
        for style, sign, notation in (
            ("plus_minus_symbol", "±", Notation()),
            ("plus_minus_ascii", " +- ", Notation()),
            ("plus_minus_slash", " +/- ", Notation(root="paren")),
        ):
            items = [
                casual(item.strip(), notation).replace("\\pm", sign) if "\\pm" in item else casual(item, notation)
                for item in _top_level_split_braces(normalized(latex).strip().removeprefix("\\{").removesuffix("\\}"))
            ]
            items = [re.sub(r"\s*pm\s*", sign, item) for item in items]
            renderings.append(stating(style, _and_join(items)))
    return _distinct(renderings)


def matrix_rows(latex: str) -> list[list[str]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", latex, re.S).group(1)
    return [[entry.strip() for entry in row.split("&")] for row in body.split("\\\\") if row.strip()]


def _entry(latex: str) -> str:
    return casual(normalized(latex))


def matrix_renderings(latex: str) -> list[Rendering]:
    rows = [[_entry(entry) for entry in row] for row in matrix_rows(latex)]
    values = [[Fraction(entry) for entry in row] for row in rows]
    if all(len(row) == 1 for row in rows):
        entries = [row[0] for row in rows]
        renderings = [
            stating("parens", "(" + ", ".join(entries) + ")"),
            stating("angle", "<" + ",".join(entries) + ">"),
            stating("brackets", "[" + ", ".join(entries) + "]"),
            stating("transpose", "[" + " ".join(entries) + "]^T"),
        ]
        column = [row[0] for row in values]
        decimals = [terminating_decimal(value) for value in column]
        if all(decimals) and decimals != entries:
            renderings.append(stating("decimal_components", "(" + ", ".join(decimals) + ")"))
        common = math.lcm(*(value.denominator for value in column))
        if common > 1:
            scaled = ", ".join(str(value * common) for value in column)
            renderings.append(stating("factored_out", f"(1/{common})({scaled})"))
        return renderings
    renderings = [
        stating("nested", "[" + ",".join("[" + ",".join(row) + "]" for row in rows) + "]"),
        stating("matlab", "[" + "; ".join(" ".join(row) for row in rows) + "]"),
        stating("rows", " and ".join("(" + ", ".join(row) + ")" for row in rows), before="rows "),
    ]
    size = len(values)
    diagonal = values[0][0]
    if all(values[r][c] == (diagonal if r == c else 0) for r in range(size) for c in range(size)):
        scale = {1: "", -1: "-"}.get(diagonal, str(diagonal))
        renderings.append(stating("identity_multiple", f"{scale}I"))
    return renderings


def choice_letter(latex: str) -> str:
    return re.search(r"[A-H]", latex).group()


def option_name(letter: str, problem: str) -> str | None:
    match = re.search(rf"\({letter}\)\s*([A-Za-z]+)\b", problem)
    return match.group(1).lower() if match else None


def choice_renderings(latex: str, problem: str) -> list[Rendering]:
    letter = choice_letter(latex)
    renderings = [
        stating("letter", letter),
        stating("lower_letter", letter.lower()),
        stating("paren_letter", f"({letter})"),
        stating("paren_lower", f"({letter.lower()})"),
        stating("option_word", letter.lower(), before="option "),
        stating("bold_letter", letter, before="**", after="**"),
    ]
    name = option_name(letter, problem)
    if name:
        renderings.append(Rendering("named_option", ((letter, True), (", the ", False), (name, True))))
    return renderings


def text_word(latex: str) -> str:
    return re.search(r"\\text\{\s*([^}]*?)\s*\}", latex).group(1)


def text_renderings(latex: str) -> list[Rendering]:
    word = text_word(latex)
    renderings = [
        stating("lowercase", word.lower()),
        stating("as_written", word),
        stating("shouting", word.upper()),
        stating("bold", word.lower(), before="**", after="**"),
        stating("quoted", word.lower(), before='"', after='"'),
    ]
    if word.islower():
        renderings.append(stating("capitalized", word.capitalize()))
    return _distinct(renderings)


class Quantity(NamedTuple):
    """A number with a unit: `latex` the number, `unit` one of degrees, dollars, cents, square inches, square cm."""

    latex: str
    unit: str


def quantity(latex: str) -> Quantity:
    text = normalized(latex)
    if "\\$" in text:
        return Quantity(re.sub(r"\\\$|,", "", text).strip(), "dollars")
    if "\\circ" in text or "degree" in text:
        return Quantity(re.sub(r"\^\s*\{?\\circ\}?|\\text\{\s*degrees\s*\}", "", text).strip(), "degrees")
    if "cents" in text:
        return Quantity(re.sub(r"\\text\{\s*cents\s*\}", "", text).strip(), "cents")
    unit = "square inches" if "inches" in text else "square cm"
    return Quantity(re.sub(r"\\mbox\{[^}]*\}\s*\^\s*2", "", text).strip(), unit)


def _number_text(value: Fraction) -> str:
    return terminating_decimal(value) or str(value)


def quantity_renderings(latex: str) -> list[Rendering]:
    number, unit = quantity(latex)
    value = Fraction(casual(number)) if "frac" in number else Fraction(number)
    text = _number_text(value)
    renderings = [stating("bare_number", text)]
    if unit == "degrees":
        radians = value / 180
        coefficient = "" if radians.numerator == 1 else str(radians.numerator)
        in_radians = f"{coefficient}pi" + (f"/{radians.denominator}" if radians.denominator != 1 else "")
        renderings += [
            stating("degree_sign", text, after="°"),
            stating("degree_word", text, after=" degrees"),
            stating("deg_abbrev", text, after=" deg"),
            stating("radians", in_radians, after=" rad"),
        ]
        if value.denominator == 1:
            renderings.append(stating("degree_words", number_words(int(value), hyphen=False), after=" degrees"))
        else:
            whole, rest = divmod(value, 1)
            renderings.append(stating("mixed_degrees", f"{whole} {rest}", after=" degrees"))
    elif unit == "dollars":
        renderings += [
            stating(
                "dollar_sign", f"{int(value):,}" if value.denominator == 1 else f"{float(value):,.2f}", before="$"
            ),
            stating("dollar_plain", text, before="$"),
            stating("dollars_word", text, after=" dollars"),
            stating("bucks", f"{int(value):,}" if value.denominator == 1 else text, after=" bucks"),
            stating("in_cents", _number_text(value * 100), after=" cents"),
        ]
        if value.denominator != 1:
            whole, rest = divmod(value, 1)
            renderings.append(stating("dollars_and_cents", f"{whole} dollars and {rest * 100} cents"))
    elif unit == "cents":
        renderings += [
            stating("cents_word", text, after=" cents"),
            stating("cent_sign", text, after="¢"),
            stating("in_dollars", _number_text(value / 100), before="$"),
        ]
    else:
        short = "in" if unit == "square inches" else "cm"
        renderings += [
            stating("caret_unit", text, after=f" {short}^2"),
            stating("sq_unit", text, after=f" sq {short}"),
            stating("square_word", text, after=f" {unit}"),
            stating("superscript_unit", text, after=f" {short}²"),
        ]
        if unit == "square inches" and value % 144 == 0:
            renderings.append(stating("in_square_feet", _number_text(value / 144), after=" sq ft"))
        if unit == "square cm":
            renderings.append(stating("in_square_mm", _number_text(value * 100), after=" mm^2"))
    return renderings


def base_digits(latex: str) -> tuple[str, int]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", latex.replace(" ", "")).groups()
    return digits, int(base)


def base_renderings(latex: str) -> list[Rendering]:
    digits, base = base_digits(latex)
    return [
        stating("subscript", f"{digits}_{base}"),
        stating("base_words", digits, after=f" in base {base}"),
        stating("base_short", digits, after=f" base {base}"),
        stating("unicode_subscript", digits + str(base).translate(SUBSCRIPT_DIGITS)),
        stating("paren_subscript", f"({digits})_{base}"),
        stating("base_ten", str(int(digits, base)), after=" in base 10"),
    ]


def equation_sides(latex: str):
    left, right = normalized(latex).split("=")
    return to_sympy(left), to_sympy(right)


def equation_renderings(latex: str) -> list[Rendering]:
    left, right = equation_sides(latex)
    difference = sympy.expand(left - right)
    constant = difference.as_coeff_Add()[0]
    renderings = [
        stating("compact", casual(normalized(latex))),
        stating("spaced", casual(normalized(latex), Notation(spaced=True))),
        stating("one_side", f"{sympy_casual(difference)} = 0"),
        stating("negated", f"{sympy_casual(-difference)} = 0"),
    ]
    if constant and len(difference.free_symbols) > 0:
        renderings.append(stating("constant_moved", f"{sympy_casual(difference - constant)} = {-constant}"))
    if left.is_Symbol and right.is_number:
        renderings.append(stating("bare_value", str(right)))
    if left == sympy.Symbol("y") and right.free_symbols == {sympy.Symbol("x")}:
        slope, intercept = sympy.Poly(right, sympy.Symbol("x")).all_coeffs()
        renderings.append(stating("slope_intercept", f"m={slope}, b={intercept}"))
    return _distinct(renderings)


def renderings(answer: str, kind: str, problem: str = "") -> list[Rendering]:
    """Casual renderings of an answer of the given kind."""
    latex = normalized(answer)
    if kind in ("small integer", "negative integer", "large integer"):
        return integer_renderings(int(latex.replace(",", "").replace(" ", "")), problem)
    if kind == "fraction":
        return fraction_renderings(Fraction(casual(latex)), answer.strip())
    if kind == "decimal":
        return decimal_renderings(latex)
    if kind == "radical":
        return radical_renderings(latex)
    if kind == "multiple of pi":
        return pi_renderings(latex)
    if kind == "mixed number":
        return mixed_renderings(latex)
    if kind == "complex number":
        return complex_renderings(latex)
    if kind == "expression":
        return expression_renderings(latex)
    if kind == "interval":
        return interval_renderings(latex)
    if kind in ("ordered pair", "tuple"):
        return pair_renderings(latex, problem)
    if kind == "set/list":
        return set_renderings(latex)
    if kind == "matrix/vector":
        return matrix_renderings(answer)
    if kind == "multiple choice":
        return choice_renderings(latex, problem)
    if kind == "text answer":
        return text_renderings(latex)
    if kind == "units/degrees/money":
        return quantity_renderings(answer)
    if kind == "base-n number":
        return base_renderings(latex)
    if kind == "equation":
        return equation_renderings(latex)
    raise ValueError(f"no casual renderings for {kind!r}")


def exact_value(answer: str, kind: str):
    """The sympy value of a scalar answer (the number of a quantity), else None."""
    if kind == "units/degrees/money":
        number = quantity(answer).latex
        return sympy.Rational(number) if re.fullmatch(r"[\d.]+", number) else to_sympy(number)
    if kind in ("small integer", "negative integer", "large integer"):
        return sympy.Integer(int(normalized(answer).replace(",", "").replace(" ", "")))
    if kind == "decimal":
        return sympy.Rational(normalized(answer))
    if kind == "mixed number":
        whole, rest = mixed_value(normalized(answer))
        return sympy.Rational(whole + rest)
    if kind in SCALAR_TYPES:
        return to_sympy(normalized(answer))
    return None


def value_key(answer: str, kind: str):
    """A comparable value of an answer: a float, a tuple of floats, a sympy expression or a lowercase word."""
    scalar = exact_value(answer, kind)
    if scalar is not None:
        return float(scalar)
    latex = normalized(answer)
    if kind == "complex number":
        value = to_sympy(latex, complex_unit=True)
        return (float(sympy.re(value)), float(sympy.im(value)))
    if kind == "interval":
        return tuple(
            (
                piece.left,
                piece.right,
                float(to_sympy(piece.low)) if piece.low else None,
                float(to_sympy(piece.high)) if piece.high else None,
            )
            for piece in interval_pieces(answer)
        )
    if kind in ("ordered pair", "tuple"):
        return tuple(float(to_sympy(component)) for component in component_latex(answer))
    if kind == "set/list":
        return tuple(sorted(float(to_sympy(component)) for component in component_latex(answer)))
    if kind == "matrix/vector":
        return tuple(float(Fraction(_entry(entry))) for row in matrix_rows(answer) for entry in row)
    if kind == "multiple choice":
        return choice_letter(answer)
    if kind == "text answer":
        return text_word(answer).lower()
    if kind == "base-n number":
        digits, base = base_digits(latex)
        return int(digits, base)
    if kind == "expression":
        return to_sympy(latex)
    left, right = equation_sides(answer)
    return sympy.expand(left - right)


def differs(answer: str, other: str, kind: str) -> bool:
    """Whether `other` (an answer string of the same kind) has another value than `answer`."""
    try:
        a, b = value_key(answer, kind), value_key(other, kind)
    except (ValueError, TypeError, ZeroDivisionError, SyntaxError, AttributeError, sympy.SympifyError):
        return False
    if isinstance(a, float):
        return math.isfinite(b) and not same_value(a, b)
    if kind == "expression":
        return sympy.simplify(a - b) != 0
    if kind == "equation":
        ratio = sympy.simplify(a / b)
        return not ratio.is_number
    if isinstance(a, tuple) and kind != "interval":
        return len(a) != len(b) or not all(same_value(x, y) for x, y in zip(a, b))
    return a != b


def non_terminating(value) -> bool:
    if value is None or not value.is_real:
        return False
    if not value.is_rational:
        return True
    return terminating_decimal(Fraction(int(value.p), int(value.q))) is None


def rounded(value, significant: int) -> str:
    """`value` rounded to `significant` digits (at least one decimal)."""
    exponent = math.floor(math.log10(abs(float(value))))
    decimals = max(1, significant - 1 - exponent)
    exact = Decimal(str(sympy.N(value, 40)))
    return str(exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


APPROXIMATION_STYLES = (
    ("tilde", "~", ""),
    ("about", "about ", ""),
    ("approx_sign", "≈ ", ""),
    ("roughly", "roughly ", " or so"),
    ("calculator_dots", "", "..."),
    ("like", "like ", " on my calc"),
)


def approximation_renderings(answer: str, kind: str) -> list[Rendering]:
    value = exact_value(answer, kind)
    if not non_terminating(value):
        return []
    unit = f" {quantity(answer).unit}" if kind == "units/degrees/money" else ""
    renderings = []
    for significant, (style, before, after) in zip((3, 4, 5, 4, 3, 5), APPROXIMATION_STYLES):
        renderings.append(stating(f"{style}_{significant}", rounded(value, significant), before, unit + after))
    return renderings


# --- the checker ---------------------------------------------------------------------------------------------------


class Analysis(NamedTuple):
    kind: str
    renderings: tuple[Rendering, ...]
    forms: tuple[str, ...]
    scalar: float | None
    components: tuple[float, ...] | None


@cache
def analysis(answer: str, problem: str = "") -> Analysis:
    """An answer's kind, casual renderings, the forms the checker looks for and its value."""
    kind = answer_type(answer, problem)
    rendered = tuple(renderings(answer, kind, problem))
    forms = {piece.lower() for rendering in rendered for piece in [rendering.text, *rendering.parts]}
    forms |= {form.replace("-", " ") for form in forms if re.fullmatch(r"[a-z -]+", form)}
    value = exact_value(answer, kind)
    components = None
    if kind in ("ordered pair", "tuple", "matrix/vector"):
        components = value_key(answer, kind)
    return Analysis(kind, rendered, tuple(sorted(forms)), float(value) if value is not None else None, components)


def _compact(text: str) -> str:
    return re.sub(r"[\s*]", "", text.lower())


def holds_answer(text: str, answer: str, problem: str = "") -> bool:
    """Whether a text states the answer: one of its casual forms (case-insensitive, spaces ignored where the form
    has symbols), its exact value among the numeric expressions of the text, a decimal approximation of it, or a
    bracketed tuple with its components."""
    found = analysis(answer, problem)
    lowered, compact = text.lower(), _compact(text)
    for form in found.forms:
        if occurrences(form, lowered):
            return True
        if re.search(r"[^\w\s]", form) and occurrences(_compact(form), compact):
            return True
    if found.scalar is not None:
        if any(same_value(value, found.scalar) for value in numeric_values(text)):
            return True
        if approximates(text, found.scalar):
            return True
    if found.components is not None:
        for values in tuples_in(text):
            if len(values) == len(found.components) and all(
                value is not None and same_value(value, component)
                for value, component in zip(values, found.components)
            ):
                return True
    return False


# --- wrong values --------------------------------------------------------------------------------------------------

NUMBER_TOKEN = re.compile(r"(?<![\d.^_])\d+(?![\d.])")


def _number_mutations(latex: str, rng: random.Random, exponents: bool = False) -> list[tuple[str, str]]:
    """Copies of `latex` with one integer changed: (how, latex)."""
    mutated = []
    tokens = [m for m in NUMBER_TOKEN.finditer(latex) if exponents or latex[max(0, m.start() - 1)] not in "^_"]
    for match in rng.sample(tokens, min(3, len(tokens))):
        n = int(match.group())
        changes = [("plus_one", n + 1), ("doubled", 2 * n)]
        if n > 1:
            changes.append(("minus_one", n - 1))
        if n >= 10:
            changes += [("dropped_digit", n // 10), ("digits_swapped", int(str(n)[::-1]))]
        before, after = latex[: match.start()], latex[match.end() :]
        radicand = before.endswith("\\sqrt{")
        for how, m in changes:
            if (m <= 1 and after.startswith("\\")) or (radicand and math.isqrt(m) ** 2 == m):
                continue
            mutated.append((how, before + str(m) + after))
    return mutated


def _sign_mutations(latex: str) -> list[tuple[str, str]]:
    mutated = [("sign_flipped", latex[1:] if latex.startswith("-") else "-" + latex)]
    for match in re.finditer(r"(?<=[\w}])\s*([+-])\s*(?=[\w\\{])", latex):
        flipped = "-" if match.group(1) == "+" else "+"
        mutated.append(("inner_sign_flipped", latex[: match.start(1)] + flipped + latex[match.end(1) :]))
    return mutated


def _component_mutations(latex: str, kind: str) -> list[tuple[str, str]]:
    components = component_latex(latex) if "\\pm" not in latex else []
    mutated = []
    if kind in ("ordered pair", "tuple") and len(set(components)) > 1:
        mutated.append(("swapped", "(" + ",".join(reversed(components)) + ")"))
    if kind == "set/list" and len(components) > 1:
        mutated.append(("dropped_member", ",".join(components[1:])))
    for k, component in enumerate(components):
        flipped = component[1:] if component.startswith("-") else "-" + component
        mutated.append(("component_sign_flipped", _replace_component(kind, components, k, flipped)))
    return mutated


def _replace_component(kind: str, components: list[str], k: int, new: str) -> str:
    changed = ",".join(new if j == k else component for j, component in enumerate(components))
    return f"({changed})" if kind in ("ordered pair", "tuple") else changed


def wrong_candidates(answer: str, kind: str, problem: str, rng: random.Random) -> list[tuple[str, str]]:
    """Mutations of the answer of its own shape: (how, answer string)."""
    latex = normalized(answer)
    if kind in ("small integer", "negative integer", "large integer"):
        latex = latex.replace(",", "").replace(" ", "")
    if kind == "multiple choice":
        letter = choice_letter(answer)
        options = sorted(set(re.findall(r"\(([A-H])\)", problem)) - {letter}) or ["A", "D"]
        return [("other_option", f"\\text{{({option})}}") for option in options]
    if kind == "text answer":
        return [("other_word", f"\\text{{{word}}}") for word in alternative_words(text_word(answer), problem)]
    if kind == "base-n number":
        digits, base = base_digits(latex)
        mutated = []
        for position, digit in enumerate(digits):
            for step in (1, -1):
                new = int(digit) + step
                if 0 <= new < base and not (position == 0 and new == 0):
                    mutated.append(("digit_changed", f"{digits[:position]}{new}{digits[position + 1 :]}_{base}"))
        return mutated
    if kind == "matrix/vector":
        rows = matrix_rows(answer)
        mutated = []
        for r, row in enumerate(rows):
            for c, entry in enumerate(row):
                for how, new in [("entry_sign_flipped", entry[1:] if entry.startswith("-") else "-" + entry)] + [
                    (how, new) for how, new in _number_mutations(entry, rng)
                ]:
                    changed = [[new if (i, j) == (r, c) else e for j, e in enumerate(rw)] for i, rw in enumerate(rows)]
                    body = " \\\\ ".join(" & ".join(rw) for rw in changed)
                    mutated.append((how, f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"))
        return mutated
    if kind == "interval":
        mutated = _number_mutations(latex, rng)
        for position, char in enumerate(latex):
            flip = {"(": "[", "[": "(", ")": "]", "]": ")"}.get(char)
            neighbour = latex[position + 1 : position + 4] if char in "([" else latex[max(0, position - 4) : position]
            if flip and "infty" not in neighbour and "\\in" not in neighbour:
                mutated.append(("bracket_flipped", latex[:position] + flip + latex[position + 1 :]))
        return mutated
    mutated = _number_mutations(latex, rng, exponents=kind == "expression")
    if kind in SCALAR_TYPES and kind != "units/degrees/money":
        mutated += _sign_mutations(latex)[:1]
    if kind in ("complex number", "expression", "equation"):
        mutated += _sign_mutations(latex)[1:]
    if kind == "fraction":
        parts = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", latex)
        if parts and parts.group(2) != "1":
            mutated.append(("reciprocal", f"{parts.group(1)}\\frac{{{parts.group(3)}}}{{{parts.group(2)}}}"))
    if kind == "complex number":
        value = to_sympy(latex, complex_unit=True)
        real, imaginary = int(sympy.re(value)), int(sympy.im(value))
        mutated.append(("parts_swapped", f"{imaginary}{'+' if real >= 0 else '-'}{abs(real)}i"))
    if kind in ("ordered pair", "tuple", "set/list"):
        mutated += _component_mutations(latex, kind)
    if kind in ("decimal", "units/degrees/money"):
        mutated += _decimal_mutations(latex)
    if kind == "multiple of pi" and latex.startswith("\\pi"):
        mutated += [("coefficient_added", f"{coefficient}{latex}") for coefficient in (2, 3, 4)]
    if kind == "expression":
        for function, other in TRIG_SWAPS.items():
            if function in latex:
                mutated.append(("function_swapped", latex.replace(function, other)))
    return mutated


TRIG_SWAPS = {"\\cot": "\\tan", "\\tan": "\\cot", "\\sin": "\\cos", "\\cos": "\\sin"}


def _decimal_mutations(latex: str) -> list[tuple[str, str]]:
    """Copies of `latex` with its first decimal number's last digit changed or its point shifted."""
    match = re.search(r"\d*\.\d+", latex)
    if not match:
        return []
    number = match.group()
    changed = []
    for step in (1, -1):
        digit = int(number[-1]) + step
        if 0 <= digit <= 9:
            changed.append(("last_digit_changed", number[:-1] + str(digit)))
    for shift in (1, -1):
        changed.append(("point_shifted", format(Decimal(number).scaleb(shift), "f")))
    return [(how, latex[: match.start()] + new + latex[match.end() :]) for how, new in changed]


def alternative_words(word: str, problem: str) -> list[str]:
    """Other words a student could have answered with, taken from the problem: the other names for a name, the other
    listed or quoted choices for a word."""
    if word[0].isupper():
        candidates = re.findall(r'"([A-Z][a-z]+)"', problem) + re.findall(r"\b([A-Z][a-z]+) (?:makes|from)\b", problem)
    else:
        candidates = re.findall(r'"([a-z]+)"', problem)
        for clause in re.split(r"[.?()]", problem):
            if re.search(rf"\b{word}\b", clause) and "," in clause:
                candidates += [chunk.split()[-1] for chunk in re.split(r",|\bor\b", clause) if chunk.split()]
    candidates = [candidate.strip('"') for candidate in candidates]
    return [w for w in dict.fromkeys(candidates) if w.lower() != word.lower() and w.isalpha() and len(w) > 2]


def wrong_values(answer: str, kind: str, problem: str, rng: random.Random) -> list[tuple[str, Rendering]]:
    """Wrong values of the answer's own shape, each in one of its casual renderings, that differ from the answer in
    value and in which the checker does not find the answer."""
    wrongs, seen = [], set()
    for how, latex in wrong_candidates(answer, kind, problem, rng):
        if latex in seen or latex == normalized(answer) or not differs(answer, latex, kind):
            continue
        seen.add(latex)
        try:
            options = renderings(latex, kind, problem)
        except (ValueError, TypeError, ZeroDivisionError, AttributeError, sympy.SympifyError):
            continue
        canonical, others = options[0], options[1:]
        rng.shuffle(others)
        for rendering in [canonical, *others] if rng.random() < 0.5 else [*others, canonical]:
            if not holds_answer(rendering.text, answer, problem):
                wrongs.append((how, rendering))
                break
    rng.shuffle(wrongs)
    return wrongs


# --- problem and solution numbers ----------------------------------------------------------------------------------


def quoted_numbers(latex: str) -> list[str]:
    """The numbers a chat could quote from a problem or solution, casually written, in order."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", latex, flags=re.S)
    numbers = [f"{a}/{b}" for a, b in re.findall(r"\\[dt]?frac\s*\{(\d+)\}\s*\{(\d+)\}", text)]
    text = re.sub(r"\\[dt]?frac\s*\{\d+\}\s*\{\d+\}", " ", text)
    numbers += re.findall(r"(?<![\w.^_{,])\d+(?:\.\d+)?(?![\d,]|\.\d|\})", text)
    return [number for number in dict.fromkeys(numbers) if len(number) <= 7]


def usable_numbers(latex: str, answer: str, problem: str) -> list[str]:
    """Quoted numbers that neither state the answer nor equal one of its components."""
    found = analysis(answer, problem)
    components = found.components or ()
    if found.kind in ("set/list", "interval"):
        components = [v for v in _flat_floats(value_key(answer, found.kind)) if v is not None]
    usable = []
    for number in quoted_numbers(latex):
        value = casual_value(number)
        if holds_answer(number, answer, problem) or any(same_value(value, c) for c in components):
            continue
        usable.append(number)
    return usable


def _flat_floats(key) -> list:
    if isinstance(key, tuple):
        return [value for item in key for value in _flat_floats(item)]
    return [key] if isinstance(key, float) else []


# --- chat frames ---------------------------------------------------------------------------------------------------

# {v}/{v2}: the answer (two renderings where a frame restates it), {w}: the student's wrong value, {q}: a number of
# the problem, {m}: a number of the reference solution. [[leak|clean|clean]]: a reveal clause and its clean variants.
FRAMES = {
    "quote_nope": "> i got {w}\nhmm nope\n[[its {v} 🙂|try that last step again 🙂|recheck the last line 🙂]]",
    "quote_right": "> ans is {w} right?\nnot quite, [[should be {v} if i did it right|redo the part after {q} n see]]",
    "wait_no": "ok so ur {w} looks fine\nwait no\n[[{v} sorry lol|its off sorry lol|thats not it sorry lol]]\n"
    "misread ur work",
    "discord_burst": "yo\nur setup w/ {q} is fine\nbut the last step is off\n"
    "[[should get {v}|should get smth diff|check the arithmetic there]]\nnot {w}",
    "reddit_comment": "pretty sure the ans is [[{v}|smth else]], not {w}. u prob dropped a sign somewhere when u "
    "plugged in {q}",
    "office_hours_dm": "hey! saw ur msg\nu wrote {w}\nbut [[im getting {v}|im getting a diff ans|thats not what i get]]"
    " 🤔\nlmk if u wanna go over it",
    "ngl": "ngl {w} looked right to me at first too\n[[but its {v}|but its not|but nope, recheck]]",
    "check_mine": "idk where {w} came from tbh\ni did it w/ {q} and [[got {v}|got smth else|it didnt match]]\n"
    "can u check mine",
    "partway": "so u had {m} partway thru right?\nthats fine\n"
    "[[from there u should land on {v}|the slip is after that|keep going from there carefully]]\nnot {w}",
    "same_thing": "[[its {v}\nor {v2} same thing|its not that\ntry it again w/ {q}]]\n{w} is off tho",
    "answer_key": "[[answer key says {v} fwiw|answer key disagrees fwiw|the key has smth diff fwiw]]\n> {w}\n"
    "this is where it went wrong i think",
    "so_close": "omg so close!!\nu had {w}\n[[its {v} tho|a small thing is off tho|check the sign tho]]\n"
    "just a small slip 😅",
    "tbh": "[[{v} tbh|{w} isnt it tbh]]",
    "nah": "nah\n[[{v}|not that]]\nu had {w} lol",
    "redo": "ok lemme redo it\nstart from {q}\n...\n[[yeah i get {v}|yeah i get smth diff|yeah its not what u got]]\n"
    "so {w} is def wrong",
    "btw": "btw [[the right ans is {v}|its close but not quite]]. {w} was a good try tho!",
    "where_from": "where'd {w} come from?\n"
    "[[i get {v} when i plug in {q}|i plug in {q} and its diff|i used {q} and got smth else]] 🤔",
    "aka": "[[final ans: {v} (aka {v2})|final ans isnt that, recheck from {m}]]\nnot {w}",
    "late_reply": "sry late reply\n{w} isnt it\n[[should be {v} if u redo the last line|u'll see if u redo the last line]]",
    "caps": "WAIT\ni think u mixed smth up\nu wrote {w} [[but it should be {v}!!|but thats not it!!]]\nez fix",
    "pretty_sure": "[[i think it comes out to {v}?|i think it comes out diff?]]\n"
    "pretty sure anyway, {w} doesnt check out when i plug it back in",
    "check_marks": "{w} ❌\n[[{v} ✅|ur close tho 👀]]",
    "lowkey": "lowkey the same mistake i made lol\ni also got {w} first\n"
    "[[its {v} after u fix the {q} part|it changes after u fix the {q} part]]",
    "hedged_idk": "idk if im right but [[i got {v}|i got smth diff]]\nu had {w}?\nwe should ask in the server",
    "stepwise": "ok so\n{q} goes in first\nthen u get {m}\n[[and then {v}|and then keep going from there]]\nnot {w} :)",
    "bot_latex": "lemme type it properly\n[[ans = {v}|ans ≠ {w}]]\nthe bot should render it lol",
    "because": "{w} cant be right b/c it doesnt fit {q}\n[[its {v}|its smth else, try again]]",
}
SLOT = re.compile(r"\{(v2|v|w|q|m)\}")
REVEAL = re.compile(r"\[\[(.*?)\]\]", re.S)
SIGN_OFFS = ("", " lol", " :)", " 😅", " 👍", " xD", " :P", " 🙏", " !!", " haha")
TYPO_WORD = re.compile(r"\b[a-z]{4,}\b")


def frame_variant(frame: str, leak: bool, rng: random.Random) -> str:
    """The frame with each reveal clause in its leak or one of its clean variants."""
    return REVEAL.sub(lambda m: m.group(1).split("|")[0] if leak else rng.choice(m.group(1).split("|")[1:]), frame)


def typo(text: str, rng: random.Random) -> str:
    """`text` with a letter swapped, dropped or doubled in one word (half the time)."""
    words = list(TYPO_WORD.finditer(text))
    if not words or rng.random() < 0.5:
        return text
    word = rng.choice(words)
    k = rng.randrange(1, len(word.group()) - 2)
    letters = word.group()
    changed = rng.choice(
        (
            letters[:k] + letters[k + 1] + letters[k] + letters[k + 2 :],
            letters[:k] + letters[k + 1 :],
            letters[:k] + letters[k] + letters[k:],
        )
    )
    return text[: word.start()] + changed + text[word.end() :]


class Chat(NamedTuple):
    text: str
    context: str
    parts: list[str]
    wrong: str


def fill(variant: str, values: dict[str, Rendering], numbers: dict[str, str], rng: random.Random) -> Chat:
    """The chat text, its context (each stating part replaced by \\ldots) and its parts."""
    segments = SLOT.split(variant)
    typo_at = rng.randrange(0, len(segments), 2)
    text = context = wrong = ""
    parts = []
    for k, segment in enumerate(segments):
        if k % 2 == 0:
            literal = typo(segment, rng) if k == typo_at else segment
            text += literal
            context += literal
        elif segment in values:
            for piece, is_part in values[segment].pieces:
                text += piece
                context += "\\ldots" if is_part else piece
                parts += [piece] if is_part else []
        else:
            text += numbers[segment]
            context += numbers[segment]
            wrong = numbers[segment] if segment == "w" else wrong
    sign_off = rng.choice(SIGN_OFFS)
    return Chat(text + sign_off, context + sign_off, parts, wrong)


# --- the corpus ----------------------------------------------------------------------------------------------------


def leaks_per_row(kind_count: int) -> int:
    """Rare answer types get more chats per row, so that every type has a few dozen leaks."""
    return min(12, max(6, math.ceil(40 / kind_count)))


def _case(family, index, kind, style, frame, chat: Chat, how: str) -> dict:
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame,
        "text": chat.text,
        "leak": family != "clean",
        "written_out": family == "rendering",
        "parts": chat.parts,
        "context": chat.context,
        "wrong": chat.wrong,
        "wrong_how": how if chat.wrong else "",
    }


def _states_parts(chat: Chat) -> bool:
    """Whether each part stands in the text on its own, and nowhere in the words around the value."""
    return all(occurrences(part, chat.text) and not occurrences(part, chat.context) for part in chat.parts)


def _numbers(frame: str, wrong: Rendering | None, quoted: list[str], intermediates: list[str], rng) -> dict | None:
    """Values for a frame's {w}, {q} and {m} slots, or None where the row has none to give."""
    needed = set(SLOT.findall(frame))
    if ("w" in needed and wrong is None) or ("q" in needed and not quoted) or ("m" in needed and not intermediates):
        return None
    quote = rng.choice(quoted) if quoted else ""
    others = [number for number in intermediates if number != quote] or intermediates
    return {"w": wrong.text if wrong else "", "q": quote, "m": rng.choice(others) if others else ""}


def row_cases(index: int, row: dict, count: int, seed: int) -> list[dict]:
    """The leak and clean chats of one MATH-500 row."""
    rng = random.Random(f"seventeenth/{seed}/{index}")
    answer, problem = row["answer"], row["problem"]
    found = analysis(answer, problem)
    kind = found.kind
    quoted = usable_numbers(problem, answer, problem)
    intermediates = [n for n in usable_numbers(row["solution"], answer, problem) if n not in quoted] or quoted
    wrongs = wrong_values(answer, kind, problem, rng)
    frame_names = list(FRAMES)
    rng.shuffle(frame_names)
    frames = iter(frame_names * 40)
    styles = list(found.renderings)
    rng.shuffle(styles)
    approximations = approximation_renderings(answer, kind)
    rng.shuffle(approximations)
    plan = [("rendering", styles[k % len(styles)]) for k in range(count)]
    plan += [("approximation", rendering) for rendering in approximations[:2]]
    cases = []
    for family, rendering in plan:
        for frame in frames:
            if family == "approximation" and "{v2}" in FRAMES[frame]:
                continue
            how, wrong = rng.choice(wrongs) if wrongs else ("", None)
            variant = frame_variant(FRAMES[frame], True, rng)
            numbers = _numbers(variant, wrong, quoted, intermediates, rng)
            if numbers is None:
                continue
            values = {"v": rendering}
            style = rendering.style
            if "{v2}" in variant:
                second = [other for other in styles if other.text != rendering.text]
                if not second:
                    continue
                values["v2"] = rng.choice(second)
                style = f"{rendering.style}+{values['v2'].style}"
            chat = fill(variant, values, numbers, rng)
            if _states_parts(chat) and holds_answer(chat.text, answer, problem):
                cases.append(_case(family, index, kind, style, frame, chat, how))
                break
    leaks = len(cases)
    for frame in frames:
        if len(cases) == 2 * leaks:
            break
        how, wrong = rng.choice(wrongs) if wrongs else ("", None)
        variant = frame_variant(FRAMES[frame], False, rng)
        numbers = _numbers(variant, wrong, quoted, intermediates, rng)
        if numbers is None:
            continue
        chat = fill(variant, {}, numbers, rng)
        if not holds_answer(chat.text, answer, problem):
            style = wrong.style if chat.wrong else "no_value"
            cases.append(_case("clean", index, kind, style, frame, chat, how))
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The seventeenth corpus: informal tutoring chats over all rows of MATH-500, leaks and clean ones."""
    kinds = Counter(answer_type(row["answer"], row["problem"]) for row in problems)
    cases = []
    for index, row in enumerate(problems):
        count = leaks_per_row(kinds[answer_type(row["answer"], row["problem"])])
        cases += row_cases(index, row, count, seed)
    return cases
