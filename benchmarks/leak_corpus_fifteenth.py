"""Labelled critiques over MATH-500 (the `fifteenth` corpus): a reviewer's renderings per answer type, placed by a
small probabilistic grammar of critique sentences.

Method. Each reference answer is parsed (with sympy and a few regular expressions) into a value of its answer type: a
scalar (integer, fraction, decimal, radical, multiple of pi, mixed number, complex number, expression), a quantity with
a unit (angle, money, cents, area), a base-n numeral, an interval (a union of pieces), a sequence (ordered pair,
tuple), a list of roots (with `\\pm` pairs), a matrix or vector, a lettered option, a word, or an equation. A renderer
per type writes that value in every notation a reviewer uses: digits; English words ("forty-two", "three quarters",
"negative seven", "five root two", "three pi over four"); LaTeX in several equivalent spellings, wrapped in `$...$`,
`\\(...\\)`, `\\[...\\]` or bare; plain ASCII (`3/4`, `2*sqrt(5)`, `3pi/4`, `x^2`, `(1, 2)`); Unicode (`√`, `π`, `²`,
`−`, `½`, `∞`, `≤`, `∪`, `ℝ`); equivalent forms (reordered terms, factored or expanded, combined radicands, reciprocals
of radicals, mixed numbers, terminating and repeating decimals, percentages, degrees as radians, money in cents, square
inches as square feet, base-n numerals in decimal); prose lists; inequalities and words for intervals; components by
name; matrices as rows, tuples or entries; option letters in every bracket style; words in a sentence. Every value is
computed (sympy, `fractions`), never typed. A grammar (nonterminals expanded by seeded random choices) writes English
critiques of a human reviewer, 1-6 sentences, in five registers (grader comment, office-hours reply, forum answer,
textbook remark, marking-scheme note) plus a bare register; its slot sentence puts the value in a statement, hint,
instruction, question, comparison with the attempt, label, mid-sentence, parenthesis or quotes. Sentences also quote
numbers of the problem, intermediate numbers of the reference solution, and the attempt's wrong value (a mutation of
the answer, of its own type, rendered by the same renderer).

Families. "rendering": a leak where the answer is written out in one notation (`style` names it). "approximation":
a leak giving a decimal approximation, rounded or truncated to 3-6 significant digits (more when a decimal place
needs them), of an answer whose value is irrational or a non-terminating decimal. "clean": the same registers and
placements, the slot sentence quoting the wrong value, problem numbers or intermediate numbers instead of the answer.
Fillers and wrong values that hold the answer (or equal one of its components) are never used, and each clean text
is checked by `Checker.holds`, which looks for every rendering this module can write, for numbers equal to the
answer's value or within a unit of their last digit from it, and for a compound answer's components written in a
row; a text the checker doubts is redrawn. `frame` is "register/placement": the grammar's top-level production and
the placement of its slot sentence.

Independence. Written without reading the guard or its tests. From the project I read only my task brief, the
source of `load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences` and `stated` (and their small helpers
`_strip`, `_top_level_split`) in `benchmarks/leak_corpus.py` (to find them I listed the names of its top-level
definitions and saw the first lines of its module docstring), `tests/conftest.py`, and MATH-500's rows. I did not read
anything under `trl_mulferl/`, `tests/feedback/`, `benchmarks/leak_guard.py`, `benchmarks/leak_guard.json`,
`tests/benchmarks/test_leak_guard.py`, `docs/`, `benchmarks/README.md`, `CHANGELOG.md`, `README.md`, the rest of
`benchmarks/leak_corpus.py`, or any other `leak_corpus_*` module or its test, and searched nothing on the web.
"""

import math
import random
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

import sympy
from leak_corpus import answer_type, occurrences
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0

OPEN, CLOSE = "\x02", "\x03"  # around a part (a substring stating the value) inside a rendering
MINUS = "−"

# --- numbers in words -------------------------------------------------------------------------------------------

SMALL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
    " eighteen nineteen"
).split()
TENS_WORDS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALE_WORDS = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))
SCALE_VALUES = {name: scale for scale, name in SCALE_WORDS}
IRREGULAR_ORDINALS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth"}
IRREGULAR_ORDINALS |= {"nine": "ninth", "twelve": "twelfth"}
POWER_WORDS = {2: "squared", 3: "cubed"}
VULGAR_FRACTIONS = {
    (1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (2, 5): "⅖", (3, 5): "⅗",
    (4, 5): "⅘", (1, 6): "⅙", (5, 6): "⅚", (1, 8): "⅛", (3, 8): "⅜", (5, 8): "⅝", (7, 8): "⅞",
}  # fmt: skip
SUPERSCRIPT_DIGITS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
NUMBER_WORD_VALUES = {word: value for value, word in enumerate(SMALL_WORDS)}
NUMBER_WORD_VALUES |= {word: 10 * value for value, word in enumerate(TENS_WORDS) if value >= 2}


def integer_words(n: int) -> str:
    """English words for an integer: 13535 -> "thirteen thousand five hundred thirty-five"."""
    if n < 0:
        return "negative " + integer_words(-n)
    if n < 20:
        return SMALL_WORDS[n]
    if n < 100:
        return TENS_WORDS[n // 10] + ("-" + SMALL_WORDS[n % 10] if n % 10 else "")
    if n < 1000:
        return SMALL_WORDS[n // 100] + " hundred" + (" " + integer_words(n % 100) if n % 100 else "")
    for scale, name in SCALE_WORDS:
        if n >= scale:
            rest = n % scale
            return integer_words(n // scale) + " " + name + (" " + integer_words(rest) if rest else "")
    raise AssertionError(n)


def ordinal_words(n: int) -> str:
    """English ordinal: 3 -> "third", 56 -> "fifty-sixth", 625 -> "six hundred twenty-fifth"."""
    words = integer_words(n)
    head, last = re.fullmatch(r"(.*?)([a-z]+)", words).groups()
    if last in IRREGULAR_ORDINALS:
        return head + IRREGULAR_ORDINALS[last]
    return head + (last[:-1] + "ieth" if last.endswith("y") else last + "th")


def fraction_words(value: Fraction, quarters: bool = False) -> str:
    """English words for a fraction: 3/4 -> "three fourths" (or "three quarters"), 14/3 -> "fourteen thirds"."""
    if value < 0:
        return "negative " + fraction_words(-value, quarters)
    p, q = value.numerator, value.denominator
    if q == 2:
        return "one half" if p == 1 else integer_words(p) + " halves"
    denominator = "quarter" if q == 4 and quarters else ordinal_words(q)
    return integer_words(p) + " " + denominator + ("" if p == 1 else "s")


def decimal_words(digits: str) -> str:
    """English words for a decimal numeral read digit by digit after the point: "1.25" -> "one point two five"."""
    whole, _, decimals = digits.partition(".")
    head = integer_words(int(whole)) if whole else ""
    return (head + " point " + " ".join(SMALL_WORDS[int(d)] for d in decimals)).strip()


def words_to_integer(words: str) -> int:
    """The integer named by English number words ("negative thirty-two thousand five")."""
    sign = -1 if re.match(r"(negative|minus)\b", words) else 1
    total = current = 0
    for word in re.findall(r"[a-z]+", words):
        if word in NUMBER_WORD_VALUES:
            current += NUMBER_WORD_VALUES[word]
        elif word == "hundred":
            current *= 100
        elif word in SCALE_VALUES:
            total += current * SCALE_VALUES[word]
            current = 0
    return sign * (total + current)


# --- decimals -----------------------------------------------------------------------------------------------------


def terminating_decimal(value: Fraction) -> str | None:
    """The exact decimal numeral of `value`, or None when its expansion does not terminate."""
    q = value.denominator
    twos = fives = 0
    while q % 2 == 0:
        q, twos = q // 2, twos + 1
    while q % 5 == 0:
        q, fives = q // 5, fives + 1
    if q != 1:
        return None
    places = max(twos, fives)
    if places == 0:
        return str(value.numerator)
    scaled = abs(value.numerator) * 10**places // value.denominator
    text = f"{scaled // 10**places}.{scaled % 10**places:0{places}d}"
    return ("-" if value < 0 else "") + text


def repeating_decimal(value: Fraction, max_period: int = 6) -> tuple[str, str, str] | None:
    """(integer part, non-repeating digits, repeating digits) of a non-terminating `value` >= 0, or None when the
    expansion terminates or its period is longer than `max_period`."""
    whole, remainder = divmod(value.numerator, value.denominator)
    seen, digits = {}, ""
    while remainder and remainder not in seen:
        seen[remainder] = len(digits)
        remainder *= 10
        digits += str(remainder // value.denominator)
        remainder %= value.denominator
    if not remainder:
        return None
    start = seen[remainder]
    if len(digits) - start > max_period:
        return None
    return str(whole), digits[:start], digits[start:]


def significant(value: float, digits: int, truncate: bool) -> str:
    """`value` to `digits` significant digits, rounded or truncated, written in fixed point."""
    exponent = math.floor(math.log10(abs(value)))
    places = max(digits - 1 - exponent, 0)
    scaled = abs(value) * 10**places
    magnitude = math.floor(scaled + 1e-9) if truncate else math.floor(scaled + 0.5)
    text = f"{magnitude / 10**places:.{places}f}"
    return ("-" if value < 0 else "") + text


# --- parsing answers ----------------------------------------------------------------------------------------------

SYMBOLS = {name: sympy.Symbol(name) for name in "abcdefghjklmnopqrstuvwxyzABCDEFGHJKLMNOPQRSTUVWXYZ"}
FUNCTIONS = {
    "Rational": sympy.Rational,
    "sqrt": sympy.sqrt,
    "pi": sympy.pi,
    "oo": sympy.oo,
    "cot": sympy.cot,
    "tan": sympy.tan,
}
TRANSFORMATIONS = (*standard_transformations, implicit_multiplication_application, convert_xor)


def _latex_argument(text: str, start: int) -> tuple[str, int]:
    """The argument of a LaTeX command starting at `start` (a braced group, a command or one character)."""
    while text[start] == " ":
        start += 1
    if text[start] == "{":
        depth = 0
        for end in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                return text[start + 1 : end], end + 1
    command = re.match(r"\\[a-zA-Z]+", text[start:])
    if command:
        return command.group(), start + command.end()
    return text[start], start + 1


def latex_to_python(latex: str) -> str:
    """A LaTeX math string as sympy-parsable text: `\\frac{a}{b}` -> `((a)/(b))`, `\\sqrt{x}` -> `sqrt(x)`."""
    text = re.sub(r"\\left|\\right|\\[!,]|\$", "", latex).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    out, position = "", 0
    while position < len(text):
        if text.startswith("\\frac", position):
            numerator, position = _latex_argument(text, position + 5)
            denominator, position = _latex_argument(text, position)
            out += f"(({latex_to_python(numerator)})/({latex_to_python(denominator)}))"
        elif text.startswith("\\sqrt", position):
            radicand, position = _latex_argument(text, position + 5)
            out += f"sqrt({latex_to_python(radicand)})"
        elif text.startswith("\\", position):
            command = re.match(r"\\([a-zA-Z]+)", text[position:]).group(1)
            out += {"infty": "oo"}.get(command, command) + " "
            position += len(command) + 1
        else:
            out += text[position]
            position += 1
    out = re.sub(r"(\d*\.\d+)", r"Rational('\1')", out)  # decimals stay exact
    return out.replace("{", "(").replace("}", ")")


def parse_value(latex: str, imaginary: bool = False) -> sympy.Expr:
    """The sympy value of a LaTeX (or ASCII) answer fragment; `i` is the imaginary unit when `imaginary`."""
    names = dict(SYMBOLS) | FUNCTIONS | ({"i": sympy.I} if imaginary else {"i": sympy.Symbol("i")})
    return parse_expr(latex_to_python(latex), local_dict=names, transformations=TRANSFORMATIONS)


def same_value(a: sympy.Expr, b: sympy.Expr) -> bool:
    difference = sympy.expand(sympy.sympify(a) - sympy.sympify(b))
    if difference.free_symbols:
        return sympy.simplify(difference) == 0
    return abs(complex(sympy.N(difference, 30))) < 1e-20


# --- one scalar in one notation -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Notation:
    """How a scalar is written: `kind` is "latex", "ascii", "unicode" or "words"; `star` writes ASCII products with
    `*`; `spaced` puts a space between a LaTeX coefficient and its factor; `long_words` reads a root as "times the
    square root of"; `reverse` writes the terms of a sum in the opposite order."""

    kind: str
    star: bool = False
    spaced: bool = False
    long_words: bool = False
    reverse: bool = False


LATEX, ASCII, UNICODE, WORDS = Notation("latex"), Notation("ascii"), Notation("unicode"), Notation("words")


def show_number(value: sympy.Rational, notation: Notation) -> str:
    value = Fraction(int(value.p), int(value.q))
    if value < 0:
        sign = {"words": "negative ", "unicode": MINUS}.get(notation.kind, "-")
        return sign + show_number(sympy.Rational(-value.numerator, value.denominator), notation)
    p, q = value.numerator, value.denominator
    if notation.kind == "words":
        return integer_words(p) if q == 1 else fraction_words(value)
    if q == 1:
        return str(p)
    return f"\\frac{{{p}}}{{{q}}}" if notation.kind == "latex" else f"{p}/{q}"


def _show_power(base: str, exponent: int, notation: Notation) -> str:
    if notation.kind == "latex":
        return f"{base}^{{{exponent}}}" if exponent > 9 else f"{base}^{exponent}"
    if notation.kind == "unicode":
        return base + str(exponent).translate(SUPERSCRIPT_DIGITS)
    if notation.kind == "words":
        return f"{base} " + POWER_WORDS.get(exponent, "to the " + ordinal_words(exponent))
    return f"{base}**{exponent}" if notation.star else f"{base}^{exponent}"


def _show_factor(factor: sympy.Expr, notation: Notation) -> str:
    """One factor of a product: a symbol, a root, pi, i, a power, a function or a parenthesised sum."""
    kind = notation.kind
    if factor == sympy.pi:
        return {"latex": "\\pi", "unicode": "π"}.get(kind, "pi")
    if factor == sympy.I:
        return "i"
    if isinstance(factor, sympy.Symbol):
        return factor.name
    if isinstance(factor, sympy.Pow) and factor.exp == sympy.Rational(1, 2):
        radicand = show(factor.base, notation)
        if kind == "latex":
            return f"\\sqrt{{{radicand}}}"
        if kind == "unicode":
            return "√" + (radicand if radicand.isdigit() else f"({radicand})")
        if kind == "words":
            return ("the square root of " if notation.long_words else "root ") + radicand
        return f"sqrt({radicand})"
    if isinstance(factor, sympy.Pow) and factor.exp.is_Integer:
        return _show_power(_show_factor(factor.base, notation), int(factor.exp), notation)
    if isinstance(factor, sympy.Function):
        name, argument = type(factor).__name__, show(factor.args[0], notation)
        if kind == "latex":
            return f"\\{name} {argument}"
        if kind == "words":
            return {"cot": "cotangent", "tan": "tangent"}[name] + " of " + argument
        return f"{name}({argument})" if kind == "ascii" else f"{name} {argument}"
    inner = show(factor, notation)
    return f"the quantity {inner}" if kind == "words" else f"({inner})"


def _show_term(term: sympy.Expr, notation: Notation) -> str:
    """A product without its sign: coefficient, then factors."""
    coefficient, rest = term.as_coeff_Mul()
    coefficient = abs(coefficient)
    if rest == 1:
        return show_number(coefficient, notation)
    factors = [_show_factor(factor, notation) for factor in sympy.Mul.make_args(rest)]
    if notation.kind == "words":
        joiner = " times " if notation.long_words or rest.has(sympy.Add) else " "
        body = joiner.join(factors)
        if coefficient.q != 1:
            head = integer_words(int(coefficient.p)) + " " if coefficient.p != 1 else ""
            return f"{head}{body} over {integer_words(int(coefficient.q))}"
        return (integer_words(int(coefficient.p)) + joiner if coefficient != 1 else "") + body
    joiner = "*" if notation.star else (" " if notation.spaced and notation.kind == "latex" else "")
    body = joiner.join(factors)
    numerator = (str(coefficient.p) + joiner if coefficient.p != 1 else "") + body
    if coefficient.q == 1:
        return numerator
    if notation.kind == "latex":
        return f"\\frac{{{numerator}}}{{{coefficient.q}}}"
    return f"{numerator}/{coefficient.q}"


def _show_sum(expr: sympy.Expr, notation: Notation) -> str:
    terms = list(expr.as_ordered_terms()) if isinstance(expr, sympy.Add) else [expr]
    if notation.reverse:
        terms.reverse()
    words = notation.kind == "words"
    text = ""
    for position, term in enumerate(terms):
        negative = term.could_extract_minus_sign()
        if position == 0:
            text = {"words": "negative ", "unicode": MINUS}.get(notation.kind, "-") if negative else ""
        else:
            text += (
                (" minus " if negative else " plus ")
                if words
                else (f" {MINUS} " if negative and notation.kind == "unicode" else " - " if negative else " + ")
            )
        text += _show_term(-term if negative else term, notation)
    return text


@cache
def show(expr: sympy.Expr, notation: Notation) -> str:
    """`expr` written in `notation`; a quotient is written as one fraction."""
    expr = sympy.sympify(expr)
    if expr.is_Rational:
        return show_number(expr, notation)
    numerator, denominator = sympy.fraction(sympy.together(expr))
    if denominator == 1:
        return _show_sum(expr, notation)
    if numerator.could_extract_minus_sign():
        sign = {"words": "negative ", "unicode": MINUS}.get(notation.kind, "-")
        return sign + show(-expr, notation)
    top, bottom = _show_sum(sympy.expand(numerator), notation), _show_sum(denominator, notation)
    if notation.kind == "latex":
        return f"\\frac{{{top}}}{{{bottom}}}"
    if notation.kind == "words":
        return f"{top} over {bottom}"
    return f"{_grouped(top)}/{_grouped(bottom)}"


def _grouped(text: str) -> str:
    """`text` in parentheses unless it is a single product (no spaces)."""
    return text if re.fullmatch(r"[\w√π.^²()]+", text) else f"({text})"


# --- renderings ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rendering:
    """A written form of a value. `marked` holds the text with each part between OPEN and CLOSE (no markers: the
    whole text is the part); `latex` renderings are wrapped in math delimiters when placed."""

    style: str
    marked: str
    latex: bool = False

    @property
    def text(self) -> str:
        return self.marked.replace(OPEN, "").replace(CLOSE, "")

    @property
    def parts(self) -> list[str]:
        return re.findall(f"{OPEN}(.*?){CLOSE}", self.marked) or [self.text]


def mark(text: str) -> str:
    return OPEN + text + CLOSE


def join_words(items: list[str], conjunction: str = "and", oxford: bool = True) -> str:
    if len(items) == 2:
        return f"{items[0]} {conjunction} {items[1]}"
    return ", ".join(items[:-1]) + ("," if oxford else "") + f" {conjunction} {items[-1]}"


def fraction_renderings(value: Fraction) -> list[Rendering]:
    p, q = abs(value.numerator), value.denominator
    sign = "-" if value < 0 else ""
    out = [
        Rendering("latex frac", f"{sign}\\frac{{{p}}}{{{q}}}", latex=True),
        Rendering("latex dfrac", f"{sign}\\dfrac{{{p}}}{{{q}}}", latex=True),
        Rendering("latex over", f"{{{sign}{p} \\over {q}}}", latex=True),
        Rendering("latex slash", f"{sign}{p}/{q}", latex=True),
        Rendering("ascii slash", f"{sign}{p}/{q}"),
        Rendering("ascii spaced slash", f"{sign}{p} / {q}"),
        Rendering("unicode super/sub", (MINUS if sign else "") + f"{p}".translate(SUPERSCRIPT_DIGITS) + "⁄"
                  + f"{q}".translate(SUBSCRIPT_DIGITS)),
        Rendering("words ordinal", fraction_words(value)),
        Rendering("words over", ("negative " if sign else "") + f"{integer_words(p)} over {integer_words(q)}"),
    ]  # fmt: skip
    if sign:
        out.append(Rendering("unicode minus slash", f"{MINUS}{p}/{q}"))
    if p < 10 and q < 10:
        out.append(Rendering("latex frac unbraced", f"{sign}\\frac{p}{q}", latex=True))
    if q == 4:
        out.append(Rendering("words quarters", fraction_words(value, quarters=True)))
    if (p, q) in VULGAR_FRACTIONS:
        out.append(Rendering("unicode vulgar", (MINUS if sign else "") + VULGAR_FRACTIONS[p, q]))
    decimal = terminating_decimal(value)
    if decimal:
        out.append(Rendering("decimal", decimal))
    if decimal and abs(value) <= 2:
        percent = terminating_decimal(value * 100)
        out += [Rendering("percent", mark(percent) + "%"), Rendering("percent words", mark(percent) + " percent")]
    repeating = repeating_decimal(abs(value))
    if repeating:
        whole, head, period = repeating
        out += [
            Rendering("repeating overline", f"{sign}{whole}.{head}\\overline{{{period}}}", latex=True),
            Rendering("repeating dots", f"{sign}{whole}.{head}{period * 3}..."),
        ]
    if p > q:
        whole, rest = divmod(p, q)
        out += [
            Rendering("mixed latex", f"{sign}{whole}\\frac{{{rest}}}{{{q}}}", latex=True),
            Rendering("mixed ascii", f"{sign}{whole} {rest}/{q}"),
            Rendering("mixed words", ("negative " if sign else "") + integer_words(whole) + " and "
                      + fraction_words(Fraction(rest, q))),
        ]  # fmt: skip
        if (rest, q) in VULGAR_FRACTIONS:
            out.append(Rendering("mixed unicode", (MINUS if sign else "") + f"{whole}{VULGAR_FRACTIONS[rest, q]}"))
    return out


def integer_renderings(n: int) -> list[Rendering]:
    digits = str(n)
    out = [
        Rendering("digits", digits),
        Rendering("latex digits", digits, latex=True),
        Rendering("boxed", f"\\boxed{{{mark(digits)}}}", latex=True),
        Rendering("bold", f"**{mark(digits)}**"),
        Rendering("words", integer_words(n)),
        Rendering("decimal point", f"{n}.0"),
    ]
    if n < 0:
        out += [
            Rendering("unicode minus", f"{MINUS}{-n}"),
            Rendering("words minus", "minus " + integer_words(-n)),
            Rendering("parenthesised", f"({mark(digits)})"),
        ]
    if abs(n) >= 1000:
        grouped = f"{n:,}"
        out += [
            Rendering("thousands commas", grouped),
            Rendering("latex thin space", grouped.replace(",", "\\,"), latex=True),
            Rendering("latex comma", grouped.replace(",", ",\\!"), latex=True),
            Rendering("space grouped", grouped.replace(",", " ")),
        ]
        mantissa = terminating_decimal(Fraction(n, 10 ** (len(str(abs(n))) - 1)))
        exponent = len(str(abs(n))) - 1
        out += [
            Rendering("scientific latex", f"{mantissa} \\times 10^{{{exponent}}}", latex=True),
            Rendering("scientific e", f"{mantissa}e{exponent}"),
        ]
    return out


def decimal_renderings(value: Fraction) -> list[Rendering]:
    decimal = terminating_decimal(value)
    out = [
        Rendering("decimal", decimal),
        Rendering("decimal padded", decimal + "0"),
        Rendering("decimal words", decimal_words(decimal)),
        Rendering("latex decimal", decimal, latex=True),
    ]
    if decimal.startswith("0."):
        out.append(Rendering("decimal no leading zero", decimal[1:]))
        percent = terminating_decimal(value * 100)
        out += [Rendering("percent", mark(percent) + "%"), Rendering("latex percent", mark(percent) + "\\%", True)]
    if 0 < value < Fraction(1, 1000):
        exponent = math.floor(math.log10(value))
        mantissa = terminating_decimal(value / Fraction(10) ** exponent)
        out += [
            Rendering("scientific latex", f"{mantissa} \\times 10^{{{exponent}}}", latex=True),
            Rendering("scientific e", f"{mantissa}e{exponent}"),
            Rendering("scientific unicode", f"{mantissa}·10" + str(exponent).translate(SUPERSCRIPT_DIGITS)),
        ]
    styles = {rendering.style for rendering in out}
    return out + [rendering for rendering in fraction_renderings(value) if rendering.style not in styles]


EXPRESSION_NOTATIONS = {
    "latex": LATEX,
    "latex spaced": Notation("latex", spaced=True),
    "latex reordered": Notation("latex", reverse=True),
    "ascii": ASCII,
    "ascii star": Notation("ascii", star=True),
    "ascii reordered": Notation("ascii", reverse=True),
    "unicode": UNICODE,
    "unicode reordered": Notation("unicode", reverse=True),
    "words": WORDS,
    "words long": Notation("words", long_words=True),
}


def expression_renderings(value: sympy.Expr) -> list[Rendering]:
    """A radical, multiple of pi, complex number or algebraic expression in every notation and equivalent form."""
    out, seen = [], set()
    for style, notation in EXPRESSION_NOTATIONS.items():
        text = show(value, notation)
        if text not in seen:
            seen.add(text)
            out.append(Rendering(style, text, latex=notation.kind == "latex"))
    if value.has(sympy.I):
        real, imaginary = value.as_real_imag()
        out.append(Rendering("ascii engineering j", show(real + imaginary * sympy.Symbol("j"), ASCII)))
    factored, expanded = sympy.factor(value), sympy.expand(value)
    for style, form in (("factored", factored), ("expanded", expanded)):
        whole_coefficient = form.as_coeff_Mul()[0].is_Integer
        if not value.is_number and form != value and whole_coefficient and len(str(form)) < 60:
            out += [
                Rendering(f"{style} latex", show(form, LATEX), True),
                Rendering(f"{style} ascii", show(form, ASCII)),
            ]
    coefficient, root = value.as_coeff_Mul()
    if isinstance(root, sympy.Pow) and root.exp == sympy.Rational(1, 2) and root.base.is_Integer:
        k = int(root.base)
        if coefficient.is_Integer and abs(coefficient) > 1:
            combined = int(coefficient**2 * k)
            sign = "-" if coefficient < 0 else ""
            out += [
                Rendering("combined radicand latex", f"{sign}\\sqrt{{{combined}}}", latex=True),
                Rendering("combined radicand unicode", f"{sign}√{combined}"),
            ]
        if coefficient.q != 1:
            top = sympy.Rational(coefficient * k)
            numerator, denominator = abs(top.p), top.q
            head = "-" if coefficient < 0 else ""
            bottom = f"{denominator}" if denominator != 1 else ""
            out += [
                Rendering("reciprocal root latex", f"{head}\\frac{{{numerator}}}{{{bottom}\\sqrt{{{k}}}}}", True),
                Rendering(
                    "reciprocal root ascii",
                    f"{head}{numerator}/" + (f"({bottom}*sqrt({k}))" if bottom else f"sqrt({k})"),
                ),
            ]
    if not value.free_symbols and not value.has(sympy.I):
        single_digit_roots = re.sub(r"\\sqrt\{(\d)\}", r"\\sqrt\1", show(value, LATEX))
        if single_digit_roots != show(value, LATEX):
            out.append(Rendering("latex unbraced root", single_digit_roots, latex=True))
    return out


# --- the value types ----------------------------------------------------------------------------------------------


class Answer:
    """A parsed reference answer. Subclasses give its renderings, its mutations (wrong attempts of its own type)
    and, where they exist, its numeric value and rational components for the checker."""

    def renderings(self) -> list[Rendering]:
        raise NotImplementedError

    def mutations(self) -> list[tuple["Answer", str]]:
        raise NotImplementedError

    def same(self, other: "Answer") -> bool:
        raise NotImplementedError

    def numeric_value(self) -> sympy.Expr | None:
        """The real number the answer equals, when it is one."""
        return None

    def components(self) -> list[sympy.Expr]:
        """The numbers an answer with several components is made of ([] for a single value)."""
        return []

    def rational_components(self) -> list[Fraction]:
        """The components that are rational numbers."""
        return [Fraction(int(c.p), int(c.q)) for c in self.components() if c.is_Rational]

    def approximable(self) -> bool:
        value = self.numeric_value()
        if value is None or value == 0:
            return False
        return not value.is_Rational or terminating_decimal(Fraction(int(value.p), int(value.q))) is None


@dataclass(frozen=True)
class Scalar(Answer):
    value: sympy.Expr
    decimal: bool = False

    def renderings(self) -> list[Rendering]:
        if self.value.is_Integer:
            return integer_renderings(int(self.value))
        if self.value.is_Rational:
            fraction = Fraction(int(self.value.p), int(self.value.q))
            exact_decimal = self.decimal and terminating_decimal(fraction)
            return decimal_renderings(fraction) if exact_decimal else fraction_renderings(fraction)
        return expression_renderings(self.value)

    def mutations(self) -> list[tuple[Answer, str]]:
        v = self.value
        candidates = [(v + 1, "plus one"), (v - 1, "minus one"), (-v, "sign flipped"), (2 * v, "doubled")]
        if v.is_Integer:
            n = int(v)
            candidates += [(v + 2, "plus two"), (v * 10, "times ten")]
            if abs(n) > 9 and str(abs(n))[::-1] != str(abs(n)):
                candidates.append((sympy.Integer(int(str(abs(n))[::-1])) * sympy.sign(n), "digits reversed"))
            if n % 2 == 0 and n:
                candidates.append((v / 2, "halved"))
        elif self.decimal:
            last_place = sympy.Rational(1, 10 ** len(terminating_decimal(Fraction(str(v))).split(".")[1]))
            candidates += [(v * 10, "point shifted right"), (v / 10, "point shifted left")]
            candidates += [(v + last_place, "last digit up"), (v - last_place, "last digit down")]
        elif v.is_Rational:
            candidates += [(1 / v, "reciprocal"), (sympy.Rational(v.p + 1, v.q), "numerator plus one")]
            candidates += [(sympy.Rational(v.p, v.q + 1), "denominator plus one"), (1 - v, "complement")]
        else:
            terms = sympy.Add.make_args(v)
            candidates += [(v + terms[-1], "term doubled"), (v - 2 * terms[-1], "term sign flipped")]
            if len(terms) > 1:
                candidates.append((v - terms[0], "term dropped"))
            if v.has(sympy.I):
                candidates.append((sympy.conjugate(v), "conjugated"))
            if v.has(sympy.pi):
                candidates.append((v.subs(sympy.pi, 1), "pi dropped"))
            if v.is_number and not v.has(sympy.I):
                candidates += [(sympy.expand(v**2), "squared"), (sympy.radsimp(1 / v), "reciprocal")]
        return [(Scalar(candidate, self.decimal), how) for candidate, how in candidates]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Scalar) and same_value(self.value, other.value)

    def numeric_value(self) -> sympy.Expr | None:
        return self.value if self.value.is_number and self.value.is_real else None


@dataclass(frozen=True)
class Quantity(Answer):
    """A number with a unit: "angle" (degrees), "money" (dollars), "cents", "area in" or "area cm"."""

    unit: str
    value: sympy.Rational

    def _number_forms(self) -> list[tuple[str, str, bool]]:
        """(style, text, latex) for the bare number."""
        fraction = Fraction(int(self.value.p), int(self.value.q))
        if self.value.is_Integer:
            n = int(self.value)
            forms = [("digits", str(n), False), ("words", integer_words(n), False)]
            return forms + ([("commas", f"{n:,}", False)] if n >= 1000 else [])
        decimal = f"{float(fraction):.2f}" if self.unit == "money" else terminating_decimal(fraction)
        if decimal:
            return [("decimal", decimal, False), ("decimal words", decimal_words(decimal), False)]
        whole, rest = divmod(fraction.numerator, fraction.denominator)
        return [
            ("latex fraction", show_number(self.value, LATEX), True),
            ("fraction", f"{fraction.numerator}/{fraction.denominator}", False),
            ("mixed latex", f"{whole}\\frac{{{rest}}}{{{fraction.denominator}}}", True),
            ("mixed", f"{whole} {rest}/{fraction.denominator}", False),
        ]

    def renderings(self) -> list[Rendering]:
        out = []
        for style, number, latex in self._number_forms():
            word = style.startswith("words") or style.endswith("words")
            if self.unit == "angle":
                out.append(Rendering(f"{style} degrees", f"{mark(number)} degrees"))
                if not word:
                    out += [
                        Rendering(f"{style} latex circ", f"{mark(number)}^\\circ", latex=True),
                        Rendering(f"{style} latex braced circ", f"{mark(number)}^{{\\circ}}", latex=True),
                        Rendering(f"{style} degree sign", f"{mark(number)}°", latex=latex),
                        Rendering(f"{style} deg", f"{mark(number)} deg", latex=latex),
                    ]
            elif self.unit == "money":
                out.append(Rendering(f"{style} dollars", f"{mark(number)} dollars"))
                if not word:
                    out += [
                        Rendering(f"{style} latex dollar", f"\\${mark(number)}", latex=True),
                        Rendering(f"{style} dollar sign", f"${mark(number)}"),
                        Rendering(f"{style} USD", f"USD {mark(number)}"),
                    ]
            elif self.unit == "cents":
                out.append(Rendering(f"{style} cents", f"{mark(number)} cents"))
                if not word:
                    out.append(Rendering(f"{style} cent sign", f"{mark(number)}¢"))
            else:
                name, symbol = ("inches", "in") if self.unit == "area in" else ("centimeters", "cm")
                out.append(Rendering(f"{style} square {name}", f"{mark(number)} square {name}"))
                if not word:
                    out += [
                        Rendering(f"{style} latex text unit", f"{mark(number)} \\text{{ {symbol}}}^2", latex=True),
                        Rendering(f"{style} unicode unit", f"{mark(number)} {symbol}²"),
                        Rendering(f"{style} sq unit", f"{mark(number)} sq {symbol}"),
                    ]
        return out + self._converted()

    def _converted(self) -> list[Rendering]:
        """The same quantity in another unit."""
        if self.unit == "angle":
            radians = self.value * sympy.pi / 180
            return [
                Rendering("radians latex", f"{mark(show(radians, LATEX))} radians", latex=True),
                Rendering("radians unicode", f"{mark(show(radians, UNICODE))} rad"),
                Rendering("radians ascii", f"{mark(show(radians, ASCII))} radians"),
            ]
        if self.unit == "money":
            cents = self.value * 100
            return [Rendering("in cents", f"{mark(str(int(cents)))} cents")] if cents.is_Integer else []
        if self.unit == "cents":
            return [Rendering("in dollars", f"\\${mark(terminating_decimal(Fraction(str(self.value / 100))))}", True)]
        factor, unit = (
            (144, "square feet") if self.unit == "area in" else (sympy.Rational(1, 100), "square millimeters")
        )
        converted = self.value / factor
        return (
            [Rendering("converted unit", f"{mark(show_number(converted, ASCII))} {unit}")] if converted.q == 1 else []
        )

    def mutations(self) -> list[tuple[Answer, str]]:
        v = self.value
        candidates = [(v + 1, "plus one"), (v - 1, "minus one"), (2 * v, "doubled"), (v + 10, "plus ten")]
        if self.unit == "angle":
            candidates += [(180 - v, "supplement"), (90 - v, "complement")]
        if self.unit in ("money", "cents"):
            candidates += [(v * 10, "point shifted right"), (v / 10, "point shifted left")]
        return [(Quantity(self.unit, candidate), how) for candidate, how in candidates if candidate > 0]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Quantity) and other.unit == self.unit and other.value == self.value

    def numeric_value(self) -> sympy.Expr:
        return self.value


@dataclass(frozen=True)
class BaseNumeral(Answer):
    digits: str
    base: int

    def renderings(self) -> list[Rendering]:
        d, b = self.digits, self.base
        out = [
            Rendering("subscript latex", f"{d}_{b}", latex=True),
            Rendering("subscript latex braced", f"{d}_{{{b}}}", latex=True),
            Rendering("subscript parenthesised", f"({d})_{b}", latex=True),
            Rendering("subscript unicode", d + str(b).translate(SUBSCRIPT_DIGITS)),
            Rendering("in base words", f"{mark(d)} in base {b}"),
            Rendering("base in parentheses", f"{mark(d)} (base {b})"),
            Rendering("base spelled", f"{mark(d)} in base {integer_words(b)}"),
            Rendering("decimal equivalent", f"{mark(str(int(d, b)))} in base ten"),
        ]
        if b == 8:
            out.append(Rendering("python octal", f"0o{d}"))
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        d, b = self.digits, self.base
        last = (int(d[-1]) + 1) % b
        candidates = [
            (d[:-1] + str(last), "last digit changed"),
            (d[::-1], "digits reversed"),
            (str(int(d, b)), "decimal digits kept"),
            (d[1:] if len(d) > 1 else d + "0", "digit dropped"),
        ]
        legal = [(digits, how) for digits, how in candidates if all(int(c) < b for c in digits) and digits[0] != "0"]
        return [(BaseNumeral(digits, b), how) for digits, how in legal]

    def same(self, other: Answer) -> bool:
        return isinstance(other, BaseNumeral) and int(other.digits, other.base) == int(self.digits, self.base)

    def numeric_value(self) -> sympy.Expr:
        return sympy.Integer(int(self.digits, self.base))


@dataclass(frozen=True)
class Interval(Answer):
    """A union of intervals: pieces of (low, low closed, high, high closed)."""

    pieces: tuple[tuple[sympy.Expr, bool, sympy.Expr, bool], ...]
    variable: str = "x"

    def _endpoint(self, value: sympy.Expr, notation: Notation) -> str:
        if value in (sympy.oo, -sympy.oo):
            sign = "-" if value < 0 else ""
            return sign + {"latex": "\\infty", "unicode": "∞", "ascii": "inf"}[notation.kind]
        return show(value, notation)

    def _notation(self, notation: Notation, union: str, wide: bool = False) -> str:
        pieces = []
        for low, low_closed, high, high_closed in self.pieces:
            left, right = "[" if low_closed else "(", "]" if high_closed else ")"
            if wide:
                left, right = "\\left" + left, "\\right" + right
            pieces.append(f"{left}{self._endpoint(low, notation)}, {self._endpoint(high, notation)}{right}")
        return union.join(pieces)

    def _inequality(self, notation: Notation) -> str:
        less = {"latex": ("<", "\\le"), "ascii": ("<", "<="), "unicode": ("<", "≤")}[notation.kind]
        greater = {"latex": (">", "\\ge"), "ascii": (">", ">="), "unicode": (">", "≥")}[notation.kind]
        x, clauses = self.variable, []
        for low, low_closed, high, high_closed in self.pieces:
            if low == -sympy.oo:
                clauses.append(f"{x} {less[high_closed]} {show(high, notation)}")
            elif high == sympy.oo:
                clauses.append(f"{x} {greater[low_closed]} {show(low, notation)}")
            else:
                lo, hi = show(low, notation), show(high, notation)
                clauses.append(f"{lo} {less[low_closed]} {x} {less[high_closed]} {hi}")
        return (" \\text{ or } " if notation.kind == "latex" else " or ").join(clauses)

    def _words(self) -> str:
        clauses = []
        for low, low_closed, high, high_closed in self.pieces:
            lo, hi = (show(end, ASCII) if end.is_finite else "" for end in (low, high))
            if low == -sympy.oo:
                clauses.append(("at most " if high_closed else "less than ") + hi)
            elif high == sympy.oo:
                clauses.append(("at least " if low_closed else "greater than ") + lo)
            elif low_closed and high_closed:
                clauses.append(f"between {lo} and {hi} inclusive")
            elif not low_closed and not high_closed:
                clauses.append(f"strictly between {lo} and {hi}")
            else:
                included, excluded = (lo, hi) if low_closed else (hi, lo)
                clauses.append(f"between {lo} and {hi}, including {included} but not {excluded}")
        return f"all {self.variable} " + " or ".join(clauses)

    def renderings(self) -> list[Rendering]:
        x = self.variable
        out = [
            Rendering("interval latex", self._notation(LATEX, " \\cup "), latex=True),
            Rendering("interval latex sized", self._notation(LATEX, " \\cup ", wide=True), latex=True),
            Rendering("interval ascii", self._notation(ASCII, " U ")),
            Rendering("interval unicode", self._notation(UNICODE, " ∪ ")),
            Rendering("membership latex", f"{x} \\in " + self._notation(LATEX, " \\cup "), latex=True),
            Rendering("membership unicode", f"{x} ∈ " + self._notation(UNICODE, " ∪ ")),
            Rendering("inequality latex", self._inequality(LATEX), latex=True),
            Rendering("inequality ascii", self._inequality(ASCII)),
            Rendering("inequality unicode", self._inequality(UNICODE)),
            Rendering("set builder latex", f"\\{{{x} \\mid {self._inequality(LATEX)}\\}}", latex=True),
            Rendering("words", self._words()),
        ]
        if len(self.pieces) == 2:
            (low, low_closed, middle, _), (middle_again, _, high, high_closed) = self.pieces
            if middle == middle_again:
                whole = Interval(((low, low_closed, high, high_closed),), x)
                point = show(middle, ASCII)
                out += [
                    Rendering("punctured latex", f"{whole._notation(LATEX, '')} \\setminus \\{{{point}\\}}", True),
                    Rendering("punctured words", f"every {x} in {whole._notation(ASCII, '')} except {point}"),
                ]
            elif low == -sympy.oo and high == sympy.oo:
                gap = Interval(((middle, True, middle_again, True),), x)
                out += [
                    Rendering("complement unicode", f"ℝ \\ {gap._notation(UNICODE, '')}"),
                    Rendering("complement words", f"all real {x} outside {gap._notation(ASCII, '')}"),
                ]
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        low, low_closed, high, high_closed = self.pieces[0]
        rest = self.pieces[1:]
        candidates = [
            ((low, not low_closed and low.is_finite, high, high_closed), "left bracket switched"),
            ((low, low_closed, high, not high_closed and high.is_finite), "right bracket switched"),
            ((low, low_closed, high + 1, high_closed), "right endpoint shifted"),
            ((low - 1, low_closed, high, high_closed), "left endpoint shifted"),
        ]
        return [(Interval((piece, *rest), self.variable), how) for piece, how in candidates]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Interval) and other.pieces == self.pieces

    def components(self) -> list[sympy.Expr]:
        return [end for piece in self.pieces for end in (piece[0], piece[2]) if end.is_finite]


@dataclass(frozen=True)
class Sequence(Answer):
    """An ordered pair or tuple, with the component names the problem uses."""

    values: tuple[sympy.Expr, ...]
    names: tuple[str, ...]

    def renderings(self) -> list[Rendering]:
        def entries(notation: Notation) -> list[str]:
            return [show(value, notation) for value in self.values]

        named_ascii = join_words([f"{n} = {v}" for n, v in zip(self.names, entries(ASCII), strict=True)], oxford=False)
        named_latex = ", ".join(f"{n} = {v}" for n, v in zip(self.names, entries(LATEX), strict=True))
        named_words = join_words(
            [f"{n} equals {v}" for n, v in zip(self.names, entries(WORDS), strict=True)], oxford=False
        )
        ordinals = ("first", "second", "third", "fourth")
        return [
            Rendering("tuple latex", "(" + ", ".join(entries(LATEX)) + ")", latex=True),
            Rendering("tuple latex sized", "\\left(" + ", ".join(entries(LATEX)) + "\\right)", latex=True),
            Rendering("tuple ascii", "(" + ", ".join(entries(ASCII)) + ")"),
            Rendering("tuple ascii tight", "(" + ",".join(entries(ASCII)) + ")"),
            Rendering("tuple unicode", "(" + ", ".join(entries(UNICODE)) + ")"),
            Rendering("angle brackets", "⟨" + ", ".join(entries(UNICODE)) + "⟩"),
            Rendering("square brackets", "[" + ", ".join(entries(ASCII)) + "]"),
            Rendering("named ascii", named_ascii),
            Rendering("named latex", named_latex, latex=True),
            Rendering("named words", named_words),
            Rendering("prose list", join_words(entries(ASCII))),
            Rendering("components by position", "; ".join(
                f"{ordinals[k]} component {v}" for k, v in enumerate(entries(ASCII)))),
        ]  # fmt: skip

    def mutations(self) -> list[tuple[Answer, str]]:
        v = list(self.values)
        candidates = [(v[::-1], "components reversed")]
        for k in range(len(v)):
            candidates += [(v[:k] + [-v[k]] + v[k + 1 :], f"component {k + 1} sign flipped")]
            candidates += [(v[:k] + [v[k] + 1] + v[k + 1 :], f"component {k + 1} plus one")]
        return [(Sequence(tuple(values), self.names), how) for values, how in candidates]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Sequence) and all(
            same_value(a, b) for a, b in zip(self.values, other.values, strict=True)
        )

    def components(self) -> list[sympy.Expr]:
        return list(self.values)


@dataclass(frozen=True)
class Roots(Answer):
    """A list of values; an element (center, offset) with nonzero offset stands for center ± offset."""

    elements: tuple[tuple[sympy.Expr, sympy.Expr], ...]
    variable: str = "x"

    def values(self) -> list[sympy.Expr]:
        return [center + sign * offset for center, offset in self.elements for sign in ((1, -1) if offset else (0,))]

    def _compact(self, notation: Notation, plus_minus: str) -> list[str]:
        return [
            show(center, notation) + (f" {plus_minus} " + show(offset, notation) if offset else "")
            for center, offset in self.elements
        ]

    def renderings(self) -> list[Rendering]:
        x, values = self.variable, self.values()
        listed = {name: [show(v, notation) for v in values] for name, notation in (("ascii", ASCII),
                  ("latex", LATEX), ("unicode", UNICODE), ("words", WORDS))}  # fmt: skip
        out = [
            Rendering("comma list latex", ", ".join(listed["latex"]), latex=True),
            Rendering("comma list unicode", ", ".join(listed["unicode"])),
            Rendering("set braces latex", "\\{" + ", ".join(listed["latex"]) + "\\}", latex=True),
            Rendering("set braces unicode", "{" + ", ".join(listed["unicode"][::-1]) + "}"),
            Rendering("prose list", join_words(listed["ascii"])),
            Rendering("prose list reversed", join_words(listed["ascii"][::-1], oxford=False)),
            Rendering("alternatives", " or ".join(f"{x} = {v}" for v in listed["ascii"])),
            Rendering("words", join_words(listed["words"])),
            Rendering("ascii brackets", "[" + ", ".join(listed["ascii"]) + "]"),
        ]
        if any(offset for _, offset in self.elements):
            out += [
                Rendering("plus-minus latex", ", ".join(self._compact(LATEX, "\\pm")), latex=True),
                Rendering("plus-minus unicode", ", ".join(self._compact(UNICODE, "±"))),
                Rendering("plus-minus ascii", ", ".join(self._compact(ASCII, "+/-"))),
                Rendering("plus-minus words", ", ".join(self._compact(WORDS, "plus or minus"))),
            ]
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        e = list(self.elements)
        candidates = [((e[0][0] + 1, e[0][1]), "first root shifted")]
        candidates.append(((-e[0][0], e[0][1]), "first root sign flipped"))
        if e[0][1]:
            candidates.append(((e[0][0], 2 * e[0][1]), "offset doubled"))
        out = [(Roots((element, *e[1:]), self.variable), how) for element, how in candidates]
        if len(e) > 1:
            out.append((Roots(tuple(e[:-1]), self.variable), "root dropped"))
        return out

    def same(self, other: Answer) -> bool:
        if not isinstance(other, Roots) or len(other.values()) != len(self.values()):
            return False
        return all(any(same_value(a, b) for b in other.values()) for a in self.values())

    def components(self) -> list[sympy.Expr]:
        return self.values()


@dataclass(frozen=True)
class Matrix(Answer):
    rows: tuple[tuple[sympy.Expr, ...], ...]

    def renderings(self) -> list[Rendering]:
        def grid(notation: Notation) -> list[list[str]]:
            return [[show(entry, notation) for entry in row] for row in self.rows]

        latex = " \\\\ ".join(" & ".join(row) for row in grid(LATEX))
        out = [
            Rendering("pmatrix", f"\\begin{{pmatrix}} {latex} \\end{{pmatrix}}", latex=True),
            Rendering("bmatrix", f"\\begin{{bmatrix}} {latex} \\end{{bmatrix}}", latex=True),
        ]
        if all(len(row) == 1 for row in self.rows):
            entries = {name: [row[0] for row in grid(notation)] for name, notation in (("ascii", ASCII),
                       ("latex", LATEX), ("unicode", UNICODE))}  # fmt: skip
            values = [row[0] for row in self.rows]
            out += [
                Rendering("row tuple", "(" + ", ".join(entries["ascii"]) + ")"),
                Rendering("transposed row", "[" + ", ".join(entries["ascii"]) + "]^T"),
                Rendering("angle brackets", "⟨" + ", ".join(entries["unicode"]) + "⟩"),
                Rendering("column words", "the column with entries " + mark(join_words(entries["ascii"]))),
                Rendering("latex row transposed", "(" + ", ".join(entries["latex"]) + ")^T", latex=True),
            ]
            common = sympy.ilcm(*[value.q for value in values])
            if common > 1:
                scaled = [show(value * common, ASCII) for value in values]
                out.append(Rendering("factored out", f"(1/{common})(" + ", ".join(scaled) + ")"))
            if len(values) == 3:
                out.append(Rendering("unit vectors", show(sum(v * sympy.Symbol(u) for v, u in
                                                                zip(values, "ijk", strict=True)), ASCII)))  # fmt: skip
        else:
            rows = grid(ASCII)
            out += [
                Rendering("nested lists", "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"),
                Rendering("rows in words", "rows " + mark(join_words(["(" + ", ".join(row) + ")" for row in rows]))),
            ]
            size = len(self.rows)
            identity = tuple(tuple(sympy.Integer(int(r == c)) for c in range(size)) for r in range(size))
            for scalar in (1, -1):
                if self.rows == tuple(tuple(scalar * entry for entry in row) for row in identity):
                    sign = "-" if scalar < 0 else ""
                    out += [
                        Rendering("identity symbol", f"{sign}I", latex=True),
                        Rendering("identity words", ("the negative of " if sign else "") + "the identity matrix"),
                    ]
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        rows = [list(row) for row in self.rows]
        candidates = []
        for name, change in (("negated", lambda e: -e), ("plus one", lambda e: e + 1)):
            changed = [row[:] for row in rows]
            changed[0][0] = change(changed[0][0])
            candidates.append((changed, f"first entry {name}"))
        candidates.append(([[-entry for entry in row] for row in rows], "all entries negated"))
        return [(Matrix(tuple(tuple(row) for row in changed)), how) for changed, how in candidates]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Matrix) and other.rows == self.rows

    def components(self) -> list[sympy.Expr]:
        return [entry for row in self.rows for entry in row]


@dataclass(frozen=True)
class Choice(Answer):
    letter: str
    options: tuple[tuple[str, str], ...]  # (letter, content) from the problem

    def renderings(self) -> list[Rendering]:
        letter = self.letter
        out = [
            Rendering("parenthesised letter", f"({letter})"),
            Rendering("latex text letter", f"\\text{{({letter})}}", latex=True),
            Rendering("bare letter", letter),
            Rendering("right parenthesis", f"{letter})"),
            Rendering("square brackets", f"[{letter}]"),
            Rendering("lower case", f"({letter.lower()})"),
            Rendering("option word", f"option {mark(letter)}"),
            Rendering("bold letter", f"**{mark(letter)}**"),
            Rendering("latex bold letter", f"\\textbf{{({letter})}}", latex=True),
        ]
        content = dict(self.options).get(letter)
        if content:
            out.append(Rendering("letter with content", f"{mark('(' + letter + ')')} {mark(content)}"))
            out.append(Rendering("content only", content))
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        return [(Choice(letter, self.options), "other option") for letter, _ in self.options if letter != self.letter]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Choice) and other.letter == self.letter


WORD_ALTERNATIVES = {
    "east": ("west", "north", "south"),
    "even": ("odd", "neither"),
    "ellipse": ("hyperbola", "parabola", "circle"),
}


@dataclass(frozen=True)
class Word(Answer):
    word: str
    alternatives: tuple[str, ...]

    def renderings(self) -> list[Rendering]:
        word = self.word
        out = [
            Rendering("plain", word),
            Rendering("latex text", f"\\text{{{word}}}", latex=True),
            Rendering("latex textbf", f"\\textbf{{{word}}}", latex=True),
            Rendering("upper case", word.upper()),
            Rendering("bold", f"**{mark(word)}**"),
            Rendering("quoted", f'"{mark(word)}"'),
        ]
        if word.islower():
            out.append(Rendering("capitalised", word.capitalize()))
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        return [(Word(other, self.alternatives), "other option") for other in self.alternatives]

    def same(self, other: Answer) -> bool:
        return isinstance(other, Word) and other.word.lower() == self.word.lower()


@dataclass(frozen=True)
class Equation(Answer):
    lhs: sympy.Expr
    rhs: sympy.Expr

    def renderings(self) -> list[Rendering]:
        lhs, rhs = self.lhs, self.rhs
        zero = sympy.Integer(0)
        moved = sympy.expand(lhs - rhs)
        forms = [("as given", lhs, rhs), ("sides swapped", rhs, lhs)]
        if rhs != 0:
            forms.append(("all on one side", moved, zero))
        forms.append(("negated", sympy.expand(-moved) if rhs == 0 else -lhs, zero if rhs == 0 else -rhs))
        constant = moved.as_coeff_Add()[0]
        if constant != 0 and rhs == 0:
            forms.append(("constant moved", moved - constant, -constant))
        out = []
        for form, left, right in forms:
            for name, notation in (("latex", LATEX), ("ascii", ASCII), ("unicode", UNICODE)):
                out.append(Rendering(f"{form} {name}", f"{show(left, notation)} = {show(right, notation)}",
                                     latex=name == "latex"))  # fmt: skip
        out.append(Rendering("words", f"{show(lhs, WORDS)} equals {show(rhs, WORDS)}"))
        out.append(Rendering("reordered latex", f"{show(lhs, Notation('latex', reverse=True))} = "
                             f"{show(rhs, Notation('latex', reverse=True))}", latex=True))  # fmt: skip
        return out

    def mutations(self) -> list[tuple[Answer, str]]:
        terms = sympy.Add.make_args(self.rhs if self.rhs != 0 else self.lhs)
        side_is_rhs = self.rhs != 0
        out = []
        for changed, how in ((2 * terms[-1], "term sign flipped"), (-1, "constant plus one")):
            new_side = (self.rhs if side_is_rhs else self.lhs) - changed
            pair = (self.lhs, new_side) if side_is_rhs else (new_side, self.rhs)
            out.append((Equation(*pair), how))
        return out

    def same(self, other: Answer) -> bool:
        if not isinstance(other, Equation):
            return False
        ratio = sympy.simplify((self.lhs - self.rhs) / (other.lhs - other.rhs))
        return ratio.is_number


# --- parsing MATH-500 answers into values -------------------------------------------------------------------------


def component_names(problem: str, count: int) -> tuple[str, ...]:
    """The names the problem gives the components, e.g. `(p,q,r)`; x, y (and z, w) when it gives none."""
    for group in re.findall(r"\(([^()]*)\)", problem):
        names = [name.strip().lstrip("\\") for name in group.split(",")]
        if len(names) == count and all(re.fullmatch(r"[a-z]|theta", name) for name in names):
            return tuple("θ" if name == "theta" else name for name in names)
    return ("x", "y", "z", "w")[:count]


def option_contents(problem: str) -> tuple[tuple[str, str], ...]:
    """The lettered options of a multiple-choice problem with their contents."""
    found = re.findall(
        r"(?:\\textbf\{)?\(([A-H])\)\}?(?:\\ )?\s*(.*?)(?=\s*(?:\\textbf\{)?\([A-H]\)|\\qquad|\s{2}|\$|$)", problem
    )
    return tuple((letter, content.strip()) for letter, content in found)


def parse_answer(answer: str, problem: str, kind: str) -> Answer:
    """The value of a MATH-500 answer of type `kind`."""
    text = re.sub(r"\\[!,]|\\left|\\right", "", answer).strip()
    if kind == "units/degrees/money":
        number = re.sub(r"\\\$|\^\\circ|\\text\{.*?\}|\\mbox\{.*?\}|\^2|,", "", text).strip()
        unit = (
            "money" if "\\$" in text else "cents" if "cents" in text else "area in" if "inches" in text else
            "area cm" if "cm" in text else "angle"
        )  # fmt: skip
        return Quantity(unit, sympy.nsimplify(parse_value(number)))
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return BaseNumeral(digits, int(base))
    if kind == "interval":
        named = re.search(r"(?:values of|all) \$\\?(lambda|[a-z])\$", problem)
        variable = {"lambda": "λ"}.get(named.group(1), named.group(1)) if named else "x"
        pieces = []
        for piece in re.sub(r"^x\s*\\in", "", text).split("\\cup"):
            piece = piece.strip()
            low, high = (parse_value(end) for end in piece[1:-1].split(","))
            pieces.append((low, piece[0] == "[", high, piece[-1] == "]"))
        return Interval(tuple(pieces), variable)
    if kind in ("ordered pair", "tuple"):
        values = tuple(parse_value(part) for part in text.strip()[1:-1].split(","))
        return Sequence(values, component_names(problem, len(values)))
    if kind == "set/list":
        elements = []
        for item in re.sub(r"\\[{}]", "", text).split(","):
            center, _, offset = item.partition("\\pm")
            elements.append((parse_value(center), parse_value(offset) if offset else sympy.Integer(0)))
        variable = re.search(r"integers \$(\w)\$", problem)
        return Roots(tuple(elements), variable.group(1) if variable else "x")
    if kind == "matrix/vector":
        body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end", text, re.S).group(1)
        rows = tuple(tuple(parse_value(entry) for entry in row.split("&")) for row in body.split("\\\\"))
        return Matrix(rows)
    if kind == "multiple choice":
        return Choice(re.search(r"[A-H]", text).group(), option_contents(problem))
    if kind == "text answer":
        word = re.fullmatch(r"\\text\{(.*)\}", text).group(1)
        names = tuple(sorted(set(re.findall(r"\b([A-Z][a-z]{2,})\b from", problem)) - {word}))
        return Word(word, WORD_ALTERNATIVES.get(word, names))
    if kind == "equation":
        lhs, rhs = text.split("=")
        return Equation(parse_value(lhs), parse_value(rhs))
    if kind == "mixed number":
        whole, fraction = re.fullmatch(r"(\d+)\s*(\\frac.*)", text).groups()
        return Scalar(sympy.Integer(int(whole)) + parse_value(fraction))
    value = parse_value(re.sub(r"(?<=\d),\s*(?=\d{3})", "", text), imaginary=kind == "complex number")
    return Scalar(value, decimal=kind == "decimal")


# --- the checker --------------------------------------------------------------------------------------------------

LATEX_FRACTION = r"\\[dt]?frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))"
NUMBER_WORD = r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|" + (
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    r"million|billion)"
)
NUMBER_TOKEN = re.compile(
    rf"(?P<mixed_latex>(?P<whole>\d+)\s*{LATEX_FRACTION})"
    rf"|(?P<latex>{LATEX_FRACTION})"
    r"|(?P<over>\{\s*(?P<over_p>\d+)\s*\\over\s*(?P<over_q>\d+)\s*\})"
    r"|(?P<supsub>(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)⁄(?P<sub>[₀₁₂₃₄₅₆₇₈₉]+))"
    r"|(?P<vulgar>(?P<vulgar_whole>\d*)(?P<vulgar_char>[½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]))"
    r"|(?P<mixed>(?<![\w.^])(?P<mixed_whole>\d+) (?P<mixed_p>\d+)/(?P<mixed_q>\d+)(?![\w.]))"
    r"|(?P<slash>(?<![\w.^])(?P<slash_p>\d+)\s*/\s*(?P<slash_q>\d+)(?![\w.]))"
    r"|(?P<decimal>(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\.\d+|\d+)(?!\w))(?P<percent>\s*(?:\\?%|percent))?"
    rf"|(?P<words>\b(?:(?:negative|minus) )?{NUMBER_WORD}(?:(?:[\s-]+(?:and )?){NUMBER_WORD})*\b)"
)
TOKEN_KINDS = ("mixed_latex", "latex", "over", "supsub", "vulgar", "mixed", "slash", "decimal", "words")
VULGAR_VALUES = {char: Fraction(p, q) for (p, q), char in VULGAR_FRACTIONS.items()}


def _signed(text: str, start: int, value: Fraction) -> Fraction:
    """`value`, negated when a minus sign stands right before it as a sign (not as a binary operator)."""
    if start and text[start - 1] in "-−" and (start < 2 or not re.match(r"[\w)\]}]", text[start - 2])):
        return -value
    return value


def number_values(text: str) -> list[tuple[Fraction, str]]:
    """The numbers written in `text`, in order, each with its written form (decimals keep their digits)."""
    text = re.sub(r"(?<=\d)(?:\\[!,])*,(?:\\[!,]|\s)*(?=\d{3})", ",", text)
    text = re.sub(r"(?<=\d)\\,(?=\d{3})", "", text)
    found = []
    for match in NUMBER_TOKEN.finditer(text):
        kind = next(name for name in TOKEN_KINDS if match.group(name))
        if kind in ("mixed_latex", "latex"):
            numbers = [int(g) for g in re.search(LATEX_FRACTION, match[kind]).groups() if g]
            fraction = Fraction(numbers[0], numbers[1]) if numbers[1] else Fraction(0)
            values = [fraction, fraction + int(match["whole"])] if kind == "mixed_latex" else [fraction]
            found += [(_signed(text, match.start(), value), "") for value in values]
        elif kind == "over":
            found.append((Fraction(int(match["over_p"]), int(match["over_q"])), ""))
        elif kind == "supsub":
            numerator = int(match["sup"].translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")))
            denominator = int(match["sub"].translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")))
            found.append((_signed(text, match.start(), Fraction(numerator, denominator)), ""))
        elif kind == "vulgar":
            value = VULGAR_VALUES[match["vulgar_char"]] + int(match["vulgar_whole"] or 0)
            found.append((_signed(text, match.start(), value), ""))
        elif kind in ("mixed", "slash"):
            p, q = int(match[f"{kind}_p"]), int(match[f"{kind}_q"])
            value = Fraction(p, q) if q else Fraction(p)
            if kind == "mixed":
                found.append((Fraction(int(match["mixed_whole"])), ""))
                value += int(match["mixed_whole"])
            found.append((_signed(text, match.start(), value), ""))
        elif kind == "decimal":
            digits = match["decimal"].replace(",", "")
            value = _signed(text, match.start(), Fraction(digits))
            found.append((value, digits))
            if match["percent"]:
                found.append((value / 100, ""))
        else:
            found.append((Fraction(words_to_integer(match["words"])), ""))
    return found


class Checker:
    """Finds an answer in a text: any rendering this module writes for it (or any part of one), a number equal to
    its value or a decimal within a unit of its last digit from it, or, for an answer with several rational
    components, those components written in a row."""

    def __init__(self, answer: Answer):
        self.answer = answer
        forms = {form for r in answer.renderings() for form in (r.text, *r.parts)}
        self.forms = sorted(forms, key=len, reverse=True)
        value = answer.numeric_value()
        self.value = float(value) if value is not None else None
        self.exact = Fraction(int(value.p), int(value.q)) if value is not None and value.is_Rational else None
        rational = answer.rational_components()
        self.components = rational if len(rational) >= 2 and len(rational) == len(answer.components()) else []

    def holds(self, text: str) -> bool:
        lowered = text.lower()
        if any(occurrences(form, text) or occurrences(form.lower(), lowered) for form in self.forms):
            return True
        numbers = number_values(text)
        for value, digits in numbers:
            if self.exact is not None and value == self.exact:
                return True
            if self.value is not None and digits:
                places = len(digits.partition(".")[2])
                close = abs(float(value) - self.value) <= 10.0**-places * 1.0001
                if close and ("." in digits or self.exact is None):
                    return True
        if self.components:
            values = [value for value, _ in numbers]
            width = len(self.components)
            windows = (values[k : k + width] for k in range(len(values) - width + 1))
            target = sorted(self.components) if isinstance(self.answer, Roots) else self.components
            return any((sorted(window) if isinstance(self.answer, Roots) else window) == target for window in windows)
        return False


# --- the critique grammar -----------------------------------------------------------------------------------------

# Nonterminals in <ANGLE>; slots {v} (the answer), {w} (the attempt's wrong value), {q} (a number of the problem),
# {i} (an intermediate number of the reference solution). Words that could name an answer (number words, "even",
# directions, single capitals) are kept out of the frames.
GRAMMAR = {
    "grader": ["<GRADER_OPEN> <CORE>", "<GRADER_OPEN> <MIDDLE> <CORE> <GRADER_CLOSE>", "<CORE> <GRADER_CLOSE>"],
    "office_hours": ["<OFFICE_OPEN> <CORE> <OFFICE_CLOSE>", "<OFFICE_OPEN> <MIDDLE> <CORE>",
                     "<OFFICE_OPEN> <MIDDLE> <MIDDLE> <CORE> <OFFICE_CLOSE>"],
    "forum": ["<FORUM_OPEN> <CORE> <FORUM_CLOSE>", "<FORUM_OPEN> <MIDDLE> <CORE> <FORUM_CLOSE>",
              "<CORE> <FORUM_CLOSE>"],
    "textbook": ["<TEXTBOOK_OPEN> <CORE>", "<TEXTBOOK_OPEN> <MIDDLE> <CORE>"],
    "marking_scheme": ["<SCHEME_OPEN> <CORE> <SCHEME_CLOSE>", "<SCHEME_OPEN> <MIDDLE> <CORE> <SCHEME_CLOSE>"],
    "bare": ["<CORE>", "<CORE> <MIDDLE>"],
    "GRADER_OPEN": ["Partial credit.", "Good setup.", "Nice start, but there is a slip near the end.",
                    "Check your final step.", "Your reasoning about {q} is sound.", "Close."],
    "GRADER_CLOSE": ["Deducting for the final step.", "Please show the simplification next time.",
                     "Otherwise well presented.", "Method marks awarded."],
    "OFFICE_OPEN": ["Thanks for coming by.", "Good question.", "Let's look at it together.",
                    "Happy to help with this.", "Right, so about this problem."],
    "OFFICE_CLOSE": ["Email me if anything is unclear.", "See you next week.", "Try the next exercise the same way."],
    "FORUM_OPEN": ["Hi!", "Your approach is fine up to the substitution.", "I think I see the problem.",
                   "Welcome to the forum.", "Quick reply from my phone:"],
    "FORUM_CLOSE": ["Hope that helps.", "Edit: fixed a typo.", "Cheers.", "Good luck!"],
    "TEXTBOOK_OPEN": ["Remark.", "Note that the problem gives {q}.", "Observe that the key quantity is {i}.",
                      "Solution sketch."],
    "SCHEME_OPEN": ["Marking note:", "Scheme:", "For the examiner:", "Mark scheme, part (ii):"],
    "SCHEME_CLOSE": ["Accept equivalent forms.", "No marks for {w} without working.", "Method marks still apply.",
                     "Follow-through allowed from {i}."],
    "MIDDLE": ["The substitution with {q} is correct.", "Your intermediate value {i} is fine.",
               "Check the algebra in the line after {q}.", "The set-up matches the problem.",
               "The sign convention is where things drift.", "You quoted {w} at the end."],
}  # fmt: skip

LEAK_CORES = {
    "statement": ["The correct value is {v}.", "Done carefully, the computation lands on {v}.",
                  "{v} is what the reference solution gets.", "This should come out to {v}, not {w}.",
                  "With {q} and {i} the result is {v}."],
    "hint": ["Hint: aim for {v}.", "As a check, you should end up with {v}.",
             "If you redo the step with {q}, you will land on {v}."],
    "instruction": ["Replace {w} with {v} in your last line.", "Write {v} as your final result.",
                    "Fix the sign and report {v}."],
    "question": ["Did you notice that the result should be {v}?", "Shouldn't the last line read {v}?",
                 "Why not {v}? That is what {q} gives."],
    "comparison": ["You wrote {w}; the key has {v}.", "Your {w} differs from the expected {v}.",
                   "{w} is close, but the target is {v}."],
    "label": ["Final: {v}.", "Expected: {v}. Yours: {w}.", "Key: {v}.", "Answer key -> {v}."],
    "mid-sentence": ["Once you have {v} in hand, the remaining checks with {q} go through.",
                     "The value {v} satisfies every condition in the problem.",
                     "Getting {v} here means the earlier step with {i} was right."],
    "parenthesis": ["Your setup is right (the result should be {v}), but the arithmetic slipped.",
                    "The method works; only the last step (which gives {v}) went wrong."],
    "quotes": ['The final line should read "{v}".', "The key says '{v}' here.", "Look for \u201c{v}\u201d."],
}  # fmt: skip

CLEAN_CORES = {
    "statement": ["The correct value is not {w}.", "Done carefully, the computation does not land on {w}.",
                  "{w} is not what the reference solution gets.", "This should not come out to {w}.",
                  "With {q} and {i} the result changes."],
    "hint": ["Hint: check where {i} came from.", "As a check, substitute your result back into the condition.",
             "If you redo the step with {q}, you will not land on {w}."],
    "instruction": ["Replace {w} in your last line after rechecking {i}.", "Write out the step that gives {i}.",
                    "Fix the sign before reporting a result."],
    "question": ["Did you notice that {w} cannot be right?", "Shouldn't the last line use {q}?",
                 "Why {w}? That is not what {q} gives."],
    "comparison": ["You wrote {w}; the key has something else.", "Your {w} differs from the expected result.",
                   "{w} is close, but not the target."],
    "label": ["Final: not {w}.", "Expected: a different value. Yours: {w}.", "Key: see the step with {i}.",
              "Answer key -> recheck {q}."],
    "mid-sentence": ["Once you have {i} in hand, the remaining checks with {q} go through.",
                     "The value {w} violates a condition in the problem.",
                     "Getting {i} here means the earlier step was right."],
    "parenthesis": ["Your setup is right (the intermediate {i} is fine), but the arithmetic slipped.",
                    "The method works; only the last step (after {q}) went wrong."],
    "quotes": ['The final line should not read "{w}".', "The key does not say '{w}' here.",
               "Look for \u201c{i}\u201d."],
}  # fmt: skip

REGISTERS = ("grader", "office_hours", "forum", "textbook", "marking_scheme", "bare")


def expand(production: str, core: str, rng: random.Random) -> str:
    """Expand the nonterminals of `production`, never choosing the same alternative twice; <CORE> becomes `core`."""
    used = set()

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name == "CORE":
            return core
        chosen = rng.choice([alternative for alternative in GRAMMAR[name] if alternative not in used])
        used.add(chosen)
        return re.sub(r"<([A-Z_]+)>", replace, chosen)

    return re.sub(r"<([A-Z_]+)>", replace, production)


# --- filler numbers -----------------------------------------------------------------------------------------------


def problem_numbers(problem: str) -> list[str]:
    """Numbers quoted in the problem (outside its Asymptote figure), as written."""
    text = re.sub(r"\[asy\].*?\[/asy\]", "", problem, flags=re.S)
    found = re.findall(r"\\frac\{\d+\}\{\d+\}|(?<![\w.\\{])\d+(?:\.\d+)?(?![\w}])", text)
    return list(dict.fromkeys(number for number in found if len(number) <= 14))


def intermediate_numbers(solution: str, problem: str) -> list[str]:
    """Numbers of the reference solution that the problem does not quote."""
    quoted = set(problem_numbers(problem))
    return [number for number in problem_numbers(solution) if number not in quoted]


def as_written(number: str) -> str:
    return f"${number}$" if number.startswith("\\") else number


# --- the corpus ---------------------------------------------------------------------------------------------------

LATEX_DELIMITERS = {"inline": ("$", "$"), "paren": ("\\(", "\\)"), "display": ("\\[", "\\]"), "bare": ("", "")}
APPROXIMATION_STYLES = (
    ("about", "about {}", False),
    ("approximately", "approximately {}", False),
    ("approx sign", "≈ {}", False),
    ("tilde", "~{}", False),
    ("roughly truncated", "roughly {}", True),
    ("decimal places note", "{} (to the digits shown)", False),
    ("latex approx", "$\\approx {}$", False),
)
MIN_LEAKS_PER_ROW, MAX_LEAKS_PER_ROW = 5, 14
LEAKS_PER_TYPE = 60  # rows of rare answer types get more renderings each, up to MAX_LEAKS_PER_ROW
APPROXIMATIONS_PER_ROW = 3
CLEAN_DRAWS = 50  # redraws of a clean text the checker doubts


@dataclass
class Row:
    """One MATH-500 row with what the corpus draws from it."""

    index: int
    kind: str
    answer: Answer
    problem: str
    solution: str

    @cached_property
    def checker(self) -> Checker:
        return Checker(self.answer)

    @cached_property
    def renderings(self) -> list[Rendering]:
        """The answer's renderings, one per written form."""
        unique = {}
        for rendering in self.answer.renderings():
            unique.setdefault((rendering.text, rendering.latex), rendering)
        return list(unique.values())

    @cached_property
    def wrong_values(self) -> list[tuple[str, str]]:
        """(written wrong value, how it was derived), each differing from the answer and not holding it."""
        out = []
        for position, (wrong, how) in enumerate(self.answer.mutations()):
            if wrong.same(self.answer):
                continue
            options = [r for r in wrong.renderings() if not re.search("boxed|bold", r.style)]
            chosen = options[(position * 7 + self.index) % len(options)]
            text = f"${chosen.text}$" if chosen.latex else chosen.text
            if not self.checker.holds(text):
                out.append((text, how))
        return out

    def _fillers(self, numbers: list[str]) -> list[str]:
        """The numbers that neither hold the answer nor equal one of its components."""
        components = set(self.answer.rational_components())
        written = [as_written(number) for number in numbers]
        return [
            text
            for text in written
            if not self.checker.holds(text) and not components & {value for value, _ in number_values(text)}
        ]

    @cached_property
    def problem_fillers(self) -> list[str]:
        return self._fillers(problem_numbers(self.problem))

    @cached_property
    def intermediate_fillers(self) -> list[str]:
        numbers = intermediate_numbers(self.solution, self.problem)
        return self._fillers([number for number in numbers if number not in ("0", "1")])


def fill(template: str, row: Row, rng: random.Random) -> tuple[str, str, str] | None:
    """`template` with {q}, {i}, {w} filled, {v} kept; with the wrong value and its derivation. None when a slot has
    no filler for this row."""
    wrong, how = rng.choice(row.wrong_values) if row.wrong_values else ("", "")
    fillers = {"q": row.problem_fillers, "i": row.intermediate_fillers, "w": [wrong] if wrong else []}
    text = template
    for slot, options in fillers.items():
        if "{" + slot + "}" in text:
            if not options:
                return None
            text = text.replace("{" + slot + "}", rng.choice(options))
    used = "{w}" in template
    return text, (wrong if used else ""), (how if used else "")


def draw_text(row: Row, cores: dict[str, list[str]], rng: random.Random) -> tuple[str, str, str, str]:
    """(text with {v} if the core has it, frame, wrong, wrong_how) from the grammar."""
    while True:
        register, placement = rng.choice(REGISTERS), rng.choice(sorted(cores))
        core = rng.choice(cores[placement])
        filled = fill(expand(rng.choice(GRAMMAR[register]), core, rng), row, rng)
        if filled:
            text, wrong, how = filled
            return text, f"{register}/{placement}", wrong, how


def place(text: str, marked: str) -> tuple[str, str, list[str]]:
    """(text, context, parts) with the marked value put into the {v} slot."""
    before, after = text.split("{v}")
    parts = re.findall(f"{OPEN}(.*?){CLOSE}", marked)
    value_text = marked.replace(OPEN, "").replace(CLOSE, "")
    context_value = re.sub(f"{OPEN}.*?{CLOSE}", lambda _: "\\ldots", marked)
    if not parts:
        parts, context_value = [value_text], "\\ldots"
    return before + value_text + after, before + context_value + after, parts


def leak_case(row: Row, family: str, style: str, marked: str, rng: random.Random) -> dict:
    """A critique drawn from the grammar with the marked value in its slot."""
    template, frame, wrong, how = draw_text(row, LEAK_CORES, rng)
    text, context, parts = place(template, marked)
    return case(row, family, style, frame, text, parts, context, wrong, how)


def case(
    row: Row, family: str, style: str, frame: str, text: str, parts: list[str], context: str, wrong: str, how: str
) -> dict:
    """One labelled critique in the corpus's schema."""
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
        "wrong": wrong,
        "wrong_how": how,
    }


def rendering_marked(rendering: Rendering, rng: random.Random) -> tuple[str, str]:
    """(style, marked text) with a LaTeX rendering wrapped in a randomly chosen delimiter."""
    if not rendering.latex:
        return rendering.style, rendering.marked
    delimiter = rng.choice(sorted(LATEX_DELIMITERS))
    left, right = LATEX_DELIMITERS[delimiter]
    body = rendering.marked if OPEN in rendering.marked else mark(rendering.marked)
    return f"{rendering.style} ({delimiter})", left + body + right


def approximation_marked(row: Row, rng: random.Random) -> tuple[str, str]:
    """(style, marked text) of a decimal approximation of the row's answer."""
    name, pattern, truncate = rng.choice(APPROXIMATION_STYLES)
    value = float(row.answer.numeric_value())
    whole_digits = max(math.floor(math.log10(abs(value))) + 1, 0)
    digits = max(rng.randint(3, 6), whole_digits + 1)  # at least one decimal place
    number = significant(value, digits, truncate)
    suffix = "°" if isinstance(row.answer, Quantity) else ""
    return f"{name}, {digits} significant digits", pattern.format(mark(number) + suffix)


def row_cases(row: Row, leaks: int, seed: int) -> list[dict]:
    """A row's rendering leaks (`leaks` of them, cycling through its renderings in a seeded order), its
    approximation leaks, and as many clean critiques."""
    rng = random.Random(f"fifteenth:{seed}:{row.index}")
    cases = []
    styles = rng.sample(row.renderings, len(row.renderings))
    for position in range(leaks):
        style, marked = rendering_marked(styles[position % len(styles)], rng)
        cases.append(leak_case(row, "rendering", style, marked, rng))
    if row.answer.approximable():
        for _ in range(APPROXIMATIONS_PER_ROW):
            style, marked = approximation_marked(row, rng)
            cases.append(leak_case(row, "approximation", style, marked, rng))
    for _ in range(len(cases)):
        for _attempt in range(CLEAN_DRAWS):
            text, frame, wrong, how = draw_text(row, CLEAN_CORES, rng)
            if not row.checker.holds(text):
                cases.append(case(row, "clean", "none", frame, text, [], text, wrong, how))
                break
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The labelled critiques of all rows of `problems` (MATH-500), a pure function of the rows and `seed`."""
    rows = []
    for index, problem in enumerate(problems):
        kind = answer_type(problem["answer"], problem["problem"])
        answer = parse_answer(problem["answer"], problem["problem"], kind)
        rows.append(Row(index, kind, answer, problem["problem"], problem.get("solution", "")))
    per_type = Counter(row.kind for row in rows)
    cases = []
    for row in rows:
        leaks = min(max(MIN_LEAKS_PER_ROW, math.ceil(LEAKS_PER_TYPE / per_type[row.kind])), MAX_LEAKS_PER_ROW)
        cases += row_cases(row, leaks, seed)
    return cases
