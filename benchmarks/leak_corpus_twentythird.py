"""Critiques of failed MATH-500 attempts that state values in the everyday language of proportions and quantities.

Method. Every MATH-500 answer is parsed into a value of one of a few kinds (an integer, a rational number, an
irrational number written with radicals or pi, a complex number, an expression, an equation, an interval, a sequence
of values, a matrix or vector, a multiple-choice letter, a word, a base-n numeral), with a unit read from the
problem ("what percent", "in degrees", "in cents", "how many dollars", "how many seconds", a money or area answer)
and a flag for probabilities. Each kind has styles, functions that write a value as an everyday phrase and name
the minimal substring (the part) that states it: "3 out of 4", "1 in 6", "a 1-in-6 chance", "five sixths of the
time", "75 percent", "75 pct", "a probability of .75", "340 per mille", "a ratio of 14 to 3", "a dozen and a half",
"a gross", "nineteen forty", "28.8k", "11.1111111 billion", "eighteen dollars and ninety cents", "a right angle",
"3 root 13", "between 3 and 4, 4 included but not 3", "option C", "52 in base 8". A leak critique puts the answer
written in one style into a frame (a chatty tutor, a chat model, a reviewer, a grader, a terse note) together with
the attempt's wrong value (a mutation of the answer, rendered in the same style), a number quoted from the
problem and an intermediate number of the reference solution. A clean critique uses the same frames and styles
without the answer: the slot holds nothing or a second wrong value (a near miss). Every value is computed from the
answer with `fractions` and `sympy`; nothing is typed by hand.

Families. "rendering": the answer itself written in a style (written_out True). "arithmetic": the value is stated
only through one step a reader does at once: odds in favour or against a probability ("odds of 1 to 5 in
favour" for 1/6), the complement of a probability ("a 5 in 6 chance that it does not happen"), a round quantity
less or more a little ("one short of a dozen", "a dime short of 19 dollars", "14 degrees short of a right
angle", "the supplement of 35 degrees"), a part of a number ("a third of 14"). "approximation": a decimal or a
rounded percentage to 3 or more significant digits of an irrational or non-terminating answer ("about 4.472",
"a 30.6% chance"). "clean": no leak.

Checker. `holds_answer(text, answer)` (with `answer = parse_answer(row["answer"], row["problem"])`) looks for the
answer in two ways: every phrase and part that any style of the answer's kind writes for the answer itself
(case-insensitive, standing on its own), and the exact value: it turns number words, fraction words, dozens, scores,
grosses, suffixes, percentages, per mille, basis points, money, time and angle idioms into numbers, reads "a out of
b", "a in b", "a to b", "a:b" as a/b, as both odds readings and as the complement, reads "x short of y" and "x more
than y", and compares every number with the answer's value (in each of its units), decimals with an irrational or
non-terminating value to their rounding, radicals by their value, and the components of a pair, tuple, list, vector
or interval as a run of numbers. Clean critiques are redrawn until the checker finds nothing, and leaks until the
checker finds nothing outside their slot.

Independence. Written without knowledge of the guard. From this project I read only the source of
`load_problems`, `ANSWER_TYPES`, `answer_type` (with its helpers `_strip` and `_top_level_split`), `occurrences`
and `stated` in `benchmarks/leak_corpus.py`, and `tests/conftest.py`. Printing line ranges around those functions
also showed a few neighbouring lines of that file (its imports and first constants, the head of its frame list, of
its number-words helper and of its first rendering helpers, and the head of the helper after `stated`); none of it
is used here. I read nothing under `trl_mulferl/`, no other corpus module or test, no guard benchmark or its
results, no docs, README or changelog, and searched nothing about the guard. This module imports only
`answer_type` and `occurrences` from `leak_corpus` (its tests also import `load_problems`, `ANSWER_TYPES` and
`stated`).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import sympy
from leak_corpus import answer_type, occurrences
from sympy.parsing.sympy_parser import implicit_multiplication_application, parse_expr, standard_transformations


SEED = 0

LEAKS_PER_ROW = 7
REDRAWS = 40

# --- numbers in words --------------------------------------------------------------------------------------------

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
SCALES = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))
ORDINAL_ENDINGS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth"}
ORDINAL_ENDINGS |= {"nine": "ninth", "twelve": "twelfth"}
LETTER_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def int_words(n: int, negative: str = "minus") -> str:
    """American English words of an integer: 42 -> "forty-two", 2107 -> "two thousand one hundred seven"."""
    if n < 0:
        return f"{negative} {int_words(-n)}"
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else "-" + ONES[n % 10])
    if n < 1000:
        return ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + int_words(n % 100))
    for scale, name in SCALES:
        if n >= scale:
            rest = n % scale
            return f"{int_words(n // scale)} {name}" + ("" if rest == 0 else " " + int_words(rest))
    raise AssertionError(n)


def ordinal_words(n: int) -> str:
    """7 -> "seventh", 56 -> "fifty-sixth", 100 -> "one hundredth"."""
    words = int_words(n)
    head, last = re.match(r"(.*?)([a-z]+)$", words).groups()
    if last in ORDINAL_ENDINGS:
        return head + ORDINAL_ENDINGS[last]
    return head + (last[:-1] + "ieth" if last.endswith("y") else last + "th")


def denominator_words(q: int, plural: bool) -> str:
    if q == 2:
        return "halves" if plural else "half"
    if q == 4:
        return "quarters" if plural else "quarter"
    return ordinal_words(q) + ("s" if plural else "")


def fraction_words(value: Fraction, article: bool = False) -> str | None:
    """5/6 -> "five sixths", 1/4 -> "a quarter" (article) or "one quarter"; None for big terms or integers."""
    p, q = abs(value.numerator), value.denominator
    if q == 1 or q > 100 or p > 100:
        return None
    numerator = ("a" if article else "one") if p == 1 else int_words(p)
    return ("minus " if value < 0 else "") + f"{numerator} {denominator_words(q, p != 1)}"


def mixed_words(value: Fraction) -> str | None:
    """14/3 -> "four and two thirds", 3/2 -> "one and a half"; None unless |value| > 1 and not whole."""
    whole, rest = divmod(abs(value), 1)
    if whole == 0 or rest == 0 or rest.denominator > 100:
        return None
    text = f"{int_words(int(whole))} and {fraction_words(rest, article=True)}"
    return ("minus " if value < 0 else "") + text


def decimal_text(value: Fraction) -> str | None:
    """The terminating decimal of `value` without trailing zeros, or None."""
    q = value.denominator
    for prime in (2, 5):
        while q % prime == 0:
            q //= prime
    if q != 1:
        return None
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    sign = "-" if value < 0 else ""
    scaled = abs(value.numerator) * 10**places // value.denominator
    digits = str(scaled).rjust(places + 1, "0")
    return sign + (digits[:-places] + "." + digits[-places:] if places else digits)


def approximate_text(x: float, significant: int) -> str:
    """`x` rounded to at least `significant` significant digits, always with a decimal point."""
    magnitude = math.floor(math.log10(abs(x))) if x else 0
    places = max(1, significant - 1 - magnitude)
    return f"{x:.{places}f}"


def grouped(n: int) -> str:
    return f"{n:,}"


# --- latex to plain text and to sympy ----------------------------------------------------------------------------


def strip_latex(latex: str) -> str:
    text = re.sub(r"\\[!,;]|\\left|\\right|\\displaystyle|(?<!\\)\$", "", latex)
    return re.sub(r"\\[dt]frac", r"\\frac", text).strip()


def _group(text: str, start: int) -> tuple[str, int]:
    """The braced group or single character at `start` and the index after it."""
    while start < len(text) and text[start] == " ":
        start += 1
    if text[start] != "{":
        return text[start], start + 1
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1 : index], index + 1
    raise ValueError(text)


def _wrap(text: str) -> str:
    return text if re.fullmatch(r"-?[\w.√π]+", text) else f"({text})"


LATEX_SYMBOLS = {"pi": "π", "infty": "∞", "cup": "∪", "in": "∈ ", "pm": "±", "cdot": "·", "circ": "°"}
FUNCTION_NAMES = ("cot", "tan", "sin", "cos", "sec", "csc")


def plain(latex: str) -> str:
    """Ordinary typed notation of a latex value: \\frac{3\\sqrt{3}}{4} -> "(3√3)/4", x^5 -> "x⁵"."""
    text = strip_latex(latex)
    out, index = [], 0
    while index < len(text):
        if text.startswith("\\frac", index):
            numerator, index = _group(text, index + 5)
            denominator, index = _group(text, index)
            out.append(f"{_wrap(plain(numerator))}/{_wrap(plain(denominator))}")
        elif text.startswith("\\sqrt", index):
            radicand, index = _group(text, index + 5)
            out.append("√" + _wrap(plain(radicand)))
        elif text.startswith("\\text", index) or text.startswith("\\mbox", index):
            content, index = _group(text, index + 5)
            out.append(content)
        elif text.startswith("^", index):
            exponent, index = _group(text, index + 1)
            exponent = plain(exponent)
            out.append("°" if exponent == "\\circ" else exponent.translate(SUPERSCRIPT_DIGITS))
        else:
            command = re.match(r"\\([a-zA-Z]+) ?", text[index:])
            if command:
                name = command.group(1)
                out.append(LATEX_SYMBOLS.get(name, name + (" " if name in FUNCTION_NAMES else "")))
                index += command.end()
            else:
                out.append(text[index] if text[index] not in "{}" else "")
                index += 1
    return re.sub(r"(?<=\d) (?=[√π])", "", re.sub(r"\s+", " ", "".join(out))).strip()


def spoken(plain_text: str) -> str:
    """How a tutor reads typed notation aloud: "x⁵ - 3x + √5" -> "x to the fifth minus 3x plus root 5"."""
    text = plain_text
    for digit, name in (("²", " squared"), ("³", " cubed")):
        text = text.replace(digit, name)
    superscripts = "⁰¹²³⁴⁵⁶⁷⁸⁹"
    text = re.sub(
        f"[{superscripts}]+",
        lambda m: " to the " + ordinal_words(int("".join(str(superscripts.index(c)) for c in m.group()))),
        text,
    )
    replacements = (("±", " plus or minus "), ("√", "root "), ("π", "pi"), ("∞", "infinity"), ("·", " times "))
    for symbol, word in replacements:
        text = text.replace(symbol, word)
    text = re.sub(r"(?<=[\w)])\s*-\s*", " minus ", text)
    text = re.sub(r"^-\s*|(?<=[(=,] )-|(?<=\()-", "minus ", text)
    text = re.sub(r"\s*\+\s*", " plus ", text)
    text = re.sub(r"\s*=\s*", " equals ", text)
    text = re.sub(r"\s*/\s*", " over ", text)
    return re.sub(r"\s+", " ", text).strip()


SYMPY_TRANSFORMS = standard_transformations + (implicit_multiplication_application,)


@cache
def sympy_value(latex: str) -> sympy.Expr | None:
    """The exact value of a numeric latex string (fractions, radicals, pi), or None."""
    text = strip_latex(latex)
    for _ in range(8):
        text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", text)
        text = re.sub(r"\\frac\s*(\d)\s*(\d)", r"((\1)/(\2))", text)
        text = re.sub(r"\\frac\s*(\d)\s*\{([^{}]*)\}", r"((\1)/(\2))", text)
        text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*(\d)", r"((\1)/(\2))", text)
        text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", text)
        text = re.sub(r"\\sqrt\s*(\d)", r"sqrt(\1)", text)
    text = text.replace("\\pi", " pi ").replace("^", "**").replace("{", "(").replace("}", ")")
    if "\\" in text or re.search(r"[a-oq-z]", text.replace("sqrt", "").replace("pi", "")):
        return None
    try:
        value = parse_expr(text, transformations=SYMPY_TRANSFORMS)
    except (SyntaxError, TypeError, ValueError, sympy.SympifyError):
        return None
    return sympy.nsimplify(value) if value.is_number else None


def as_fraction(value: sympy.Expr | None) -> Fraction | None:
    if value is None or not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def top_level_split(text: str, separator: str = ",") -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


# --- answers -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A parsed reference answer: `kind` decides the styles, `value` is an int, a Fraction or a string."""

    kind: str
    value: object
    unit: str = ""
    probability: bool = False
    problem: str = ""


UNIT_PATTERNS = (
    ("percent", r"what percent|by what percent|as a percent"),
    ("degrees", r"in degrees|how many degrees|number of degrees|degree measure|measure, in degrees"),
    ("cents", r"in cents|how many cents"),
    ("dollars", r"how many (?:more )?dollars|in dollars"),
    ("seconds", r"how many seconds"),
    ("minutes", r"how many minutes|in minutes"),
)


def problem_unit(problem: str) -> str:
    question = problem[-400:]
    return next((unit for unit, pattern in UNIT_PATTERNS if re.search(pattern, question, re.I)), "")


def parse_answer(answer: str, problem: str) -> Answer:
    kind_of = answer_type(answer, problem)
    text = strip_latex(answer)
    unit = problem_unit(problem)
    if kind_of == "units/degrees/money":
        if "\\circ" in text or "degree" in text:
            value = as_fraction(sympy_value(re.sub(r"\^\\circ|\\text\{\s*degrees\}", "", text)))
            return Answer("number", value, "degrees", problem=problem)
        if "cents" in text:
            return Answer("number", Fraction(re.sub(r"\\text.*", "", text).strip()), "cents", problem=problem)
        if "\\$" in text:
            return Answer("number", Fraction(text.replace("\\$", "").replace(",", "")), "dollars", problem=problem)
        number, area_unit = re.match(r"([\d.]+)\s*\\mbox\{\s*(\w+)\}\^2", text).groups()
        return Answer("number", Fraction(number), "square " + area_unit, problem=problem)
    if kind_of in ("small integer", "negative integer", "large integer", "fraction", "decimal", "mixed number"):
        if kind_of == "mixed number":
            whole, rest = re.match(r"(\d+)\s*(\\frac.*)", text).groups()
            value = int(whole) + as_fraction(sympy_value(rest))
        elif kind_of == "decimal":
            value = Fraction(text)
        else:
            value = as_fraction(sympy_value(re.sub(r"[,\s]", "", text)))
        probability = "probability" in problem and 0 <= value <= 1 and kind_of in ("fraction", "decimal")
        unit = "" if probability or kind_of in ("fraction", "mixed number") else unit
        return Answer("number", value, unit, probability, problem)
    simple_kinds = {
        "radical": "irrational",
        "multiple of pi": "irrational",
        "complex number": "complex",
        "expression": "expression",
        "equation": "equation",
        "interval": "interval",
        "ordered pair": "sequence",
        "tuple": "sequence",
        "set/list": "sequence",
        "matrix/vector": "matrix",
        "base-n number": "base",
    }
    if kind_of in simple_kinds:
        return Answer(simple_kinds[kind_of], text, problem=problem)
    if kind_of == "multiple choice":
        return Answer("choice", re.search(r"[A-H]", text).group(), problem=problem)
    return Answer("word", re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", text).group(1), problem=problem)


# --- styles ------------------------------------------------------------------------------------------------------
# A style maps (value, answer) to (phrase, part) or None where it does not apply; `part` is the substring of
# `phrase` that states the value.

Phrase = tuple[str, str]


def _whole(text: str | None) -> Phrase | None:
    return None if text is None else (text, text)


def _proportion(value: Fraction) -> bool:
    return 0 < value < 1


def _percent_value(value: Fraction, answer: Answer) -> Fraction | None:
    """The share a percent-style phrase writes: the probability itself, or the answer's percent as a share."""
    if answer.unit == "percent":
        return value / 100
    return value if answer.probability else None


def _percent(template: str, words: bool = False):
    def style(value: Fraction, answer: Answer) -> Phrase | None:
        share = _percent_value(value, answer)
        if share is None or not 0 < share <= 1:
            return None
        number = decimal_text(share * 100)
        if number is None or (words and "." in number):
            return None
        part = template.format(int_words(int(number)) if words else number)
        return (f"a {part} chance" if answer.probability and template == "{}%" else part), part

    return style


def _share(build, probability_only: bool = False):
    """A style for a proportion: the probability, or the share of a percent answer, or any number in (0, 1)."""

    def style(value: Fraction, answer: Answer) -> Phrase | None:
        share = _percent_value(value, answer) if answer.unit == "percent" else value
        if answer.unit not in ("", "percent") or share is None or not _proportion(share):
            return None
        if probability_only and not answer.probability:
            return None
        return build(share)

    return style


def _plain_number(build):
    """A style for a number without a unit (and not a probability, where "p to q" would read as odds)."""

    def style(value: Fraction, answer: Answer) -> Phrase | None:
        if answer.unit or answer.probability:
            return None
        return build(value)

    return style


def _integer(build):
    def style(value: Fraction, answer: Answer) -> Phrase | None:
        if answer.unit or value.denominator != 1:
            return None
        return build(int(value))

    return style


def dozens_words(n: int) -> str | None:
    if n <= 0 or n % 6 or n > 144:
        return None
    dozens, half = divmod(n, 12)
    if dozens == 0:
        return "half a dozen"
    if dozens == 1:
        return "a dozen and a half" if half else "a dozen"
    return f"{int_words(dozens)} and a half dozen" if half else f"{int_words(dozens)} dozen"


def quantity_words(n: int) -> str | None:
    """A round everyday quantity: a dozen, two dozen, a score, a gross, a hundred, three thousand."""
    if n == 20:
        return "a score"
    if n % 144 == 0 and n <= 1440:
        return "a gross" if n == 144 else f"{int_words(n // 144)} gross"
    if n % 12 == 0 and n <= 120:
        return dozens_words(n)
    if n % 1000 == 0 and n <= 9000:
        return "a thousand" if n == 1000 else f"{int_words(n // 1000)} thousand"
    if n % 100 == 0 and n <= 900:
        return "a hundred" if n == 100 else f"{int_words(n // 100)} hundred"
    return None


def british_words(n: int) -> str | None:
    """ "a hundred and twenty", "three hundred and thirty-three" for 100 < n < 1000."""
    if not 100 < n < 1000 or n % 100 == 0:
        return None
    head = "a hundred" if n // 100 == 1 else f"{int_words(n // 100)} hundred"
    return f"{head} and {int_words(n % 100)}"


def hundreds_words(n: int) -> str | None:
    """ "twelve hundred", "fourteen hundred and forty" for 1000 < n < 10000 whose hundreds digit is not 0."""
    if not 1000 < n < 10000 or (n // 100) % 10 == 0:
        return None
    head = f"{int_words(n // 100)} hundred"
    return head if n % 100 == 0 else f"{head} and {int_words(n % 100)}"


def year_words(n: int) -> str | None:
    """ "nineteen forty", "twenty-one oh seven" for 1000 < n < 10000, read like a year."""
    if not 1000 < n < 10000 or (n // 100) % 10 == 0 or n % 100 == 0:
        return None
    rest = n % 100
    return f"{int_words(n // 100)} " + (f"oh {int_words(rest)}" if rest < 10 else int_words(rest))


def suffix_words(n: int) -> str | None:
    """ "28.8k", "26k" for multiples of 100 from 1000 on; "11.1111111 billion", "3 million" from a million on."""
    if n >= 10**6:
        scale, name = (10**9, " billion") if n >= 10**9 else (10**6, " million")
        return decimal_text(Fraction(n, scale)) + name
    if n >= 1000 and n % 100 == 0:
        return decimal_text(Fraction(n, 1000)) + "k"
    return None


def _well_known(n: int) -> bool:
    """Whether a reader knows the quantity at once: half a dozen, a dozen, two dozen, a score, a gross, hundreds
    and thousands."""
    return n in (6, 12, 20, 24, 144) or (n % 100 == 0 and n > 0)


def _short_of(n: int) -> Phrase | None:
    for difference, direction in ((1, "short of"), (1, "more than"), (2, "short of"), (2, "more than")):
        round_quantity = n + difference if direction == "short of" else n - difference
        known = _well_known(round_quantity) and round_quantity > 4 * difference
        words = quantity_words(round_quantity) if known else None
        if words:
            return _whole(f"{int_words(difference)} {direction} {words}")
    return None


def _odds(value: Fraction, favour: bool, colon: bool) -> Phrase:
    p, q = value.numerator, value.denominator
    first, second = (p, q - p) if favour else (q - p, p)
    part = f"{first}:{second}" if colon else f"{first} to {second}"
    return f"odds of {part} {'in favour' if favour else 'against'}", part


def _part_of(value: Fraction) -> Phrase | None:
    share = {2: "half", 3: "a third", 4: "a quarter"}.get(value.denominator)
    if share is None or value.numerator <= 1:
        return None
    return _whole(f"{share} of {value.numerator}")


def _approximate(significant: int, template: str = "{}"):
    def style(value: Fraction, answer: Answer) -> Phrase | None:
        if decimal_text(value) is not None or answer.unit in ("percent", "cents", "dollars"):
            return None
        number = approximate_text(float(value), significant)
        return template.format(number), number

    return style


def _approximate_percent(value: Fraction, answer: Answer) -> Phrase | None:
    if not answer.probability or decimal_text(value * 100) is not None or value == 0:
        return None
    part = approximate_text(float(value * 100), 3) + "%"
    return f"a {part} chance", part


def _with_unit(unit: str, build):
    def style(value: Fraction, answer: Answer) -> Phrase | None:
        return build(value) if answer.unit == unit else None

    return style


def _number_text(value: Fraction) -> str | None:
    return grouped(int(value)) if value.denominator == 1 else decimal_text(value)


def _money_digits(value: Fraction) -> str:
    return grouped(int(value)) if value.denominator == 1 else f"{float(value):,.2f}"


def _money_words(value: Fraction) -> str:
    dollars, cents = divmod(int(value * 100), 100)
    head = f"{int_words(dollars)} dollars"
    return f"{head} and {int_words(cents)} cents" if cents else head


def _dollars_and_cents(value: Fraction) -> Phrase | None:
    dollars, cents = divmod(value * 100, 100)
    if value.denominator == 1 or cents.denominator != 1:
        return None
    return _whole(f"{int(dollars)} dollars {int(cents):02d}")


def _coin_short(value: Fraction) -> Phrase | None:
    """ "a dime short of 19 dollars" for $18.90, "four dollars short of 40 dollars" for $36."""
    cents = value * 100
    if cents.denominator != 1:
        return None
    for coin, name in ((10, "a dime"), (5, "a nickel"), (25, "a quarter")):
        if (cents + coin) % 100 == 0:
            return _whole(f"{name} short of {grouped(int(cents + coin) // 100)} dollars")
    for dollars in range(1, 6):
        if (cents + 100 * dollars) % 1000 == 0:
            short = "a dollar" if dollars == 1 else f"{int_words(dollars)} dollars"
            return _whole(f"{short} short of {grouped(int(cents + 100 * dollars) // 100)} dollars")
    return None


def _cents_short(value: Fraction) -> Phrase | None:
    """ "a penny short of sixty cents" for 59 cents."""
    if value.denominator != 1:
        return None
    for coin, name in ((1, "a penny"), (5, "a nickel"), (10, "a dime")):
        if (value + coin) % 10 == 0 and value + coin < 100:
            return _whole(f"{name} short of {int_words(int(value + coin))} cents")
    return None


ANGLE_NAMES = {90: "a right angle", 180: "a straight angle", 360: "a full turn"}


def _degrees_phrase(value: Fraction) -> Phrase | None:
    return _whole(ANGLE_NAMES.get(value))


def _degrees_short(value: Fraction) -> Phrase | None:
    if value.denominator != 1 or not 0 < value < 180 or value == 90:
        return None
    if value < 90:
        return _whole(f"{int(90 - value)} degrees short of a right angle")
    return _whole(f"{int(value - 90)} degrees more than a right angle")


def _supplement(value: Fraction) -> Phrase | None:
    if value.denominator != 1 or not 0 < value < 180:
        return None
    return _whole(f"the supplement of {int(180 - value)} degrees")


def _minutes_phrase(value: Fraction) -> Phrase | None:
    if value.denominator != 1 or value % 30 or value > 300:
        return None
    hours, half = divmod(int(value), 60)
    if hours == 0:
        return _whole("half an hour")
    head = "an hour" if hours == 1 else f"{int_words(hours)} hours"
    return _whole(f"{head} and a half" if half else head)


def _seconds_phrase(value: Fraction) -> Phrase | None:
    if value.denominator != 1 or value % 30 or value > 300 or value == 0:
        return None
    minutes, half = divmod(int(value), 60)
    if minutes == 0:
        return _whole("half a minute")
    head = "a minute" if minutes == 1 else f"{int_words(minutes)} minutes"
    return _whole(f"{head} and a half" if half else head)


def _unit_number(unit: str, template: str, words: bool = False):
    def build(value: Fraction) -> Phrase | None:
        if words:
            text = int_words(int(value)) if value.denominator == 1 else None
        else:
            text = _number_text(value)
        return None if text is None else (template.format(text), text)

    return _with_unit(unit, build)


NUMBER_STYLES = {
    # proportions
    "out of": ("rendering", _share(lambda v: _whole(f"{v.numerator} out of {v.denominator}"))),
    "in": ("rendering", _share(lambda v: _whole(f"{v.numerator} in {v.denominator}"))),
    "in every": (
        "rendering",
        _share(lambda v: _whole(f"{int_words(v.numerator)} in every {int_words(v.denominator)}")),
    ),
    "of every": ("rendering", _share(lambda v: _whole(f"{v.numerator} of every {v.denominator}"))),
    "chance in": (
        "rendering",
        _share(
            lambda v: _whole(
                f"{int_words(v.numerator)} chance{'s' if v.numerator > 1 else ''} in {int_words(v.denominator)}"
            ),
            probability_only=True,
        ),
    ),
    "hyphenated chance": (
        "rendering",
        _share(lambda v: (f"a {v.numerator}-in-{v.denominator} chance", f"{v.numerator}-in-{v.denominator}"), True),
    ),
    "of the time": (
        "rendering",
        _share(lambda v: fraction_words(v) and (f"{fraction_words(v)} of the time", fraction_words(v)), True),
    ),
    "percent": ("rendering", _percent("{} percent")),
    "per cent": ("rendering", _percent("{} per cent")),
    "pct": ("rendering", _percent("{} pct")),
    "percent sign": ("rendering", _percent("{}%")),
    "percent in words": ("rendering", _percent("{} percent", words=True)),
    "probability decimal": (
        "rendering",
        _share(lambda v: decimal_text(v) and (f"a probability of {decimal_text(v)[1:]}", decimal_text(v)[1:]), True),
    ),
    "decimal probability": (
        "rendering",
        _share(lambda v: decimal_text(v) and (f"a {decimal_text(v)} probability", decimal_text(v)), True),
    ),
    "per mille": (
        "rendering",
        _share(lambda v: (v * 1000).denominator == 1 and _whole(f"{v * 1000} per mille"), True),
    ),
    "basis points": (
        "rendering",
        _with_unit(
            "percent", lambda v: (v * 100).denominator == 1 and _whole(f"{grouped(int(v * 100))} basis points")
        ),
    ),
    "ratio": (
        "rendering",
        _plain_number(
            lambda v: (
                v > 0
                and v.denominator > 1
                and (f"a ratio of {v.numerator} to {v.denominator}", f"{v.numerator} to {v.denominator}")
            )
        ),
    ),
    "parts to": (
        "rendering",
        _plain_number(
            lambda v: (
                v > 0 and v.denominator > 1 and _whole(f"{int_words(v.numerator)} parts to {int_words(v.denominator)}")
            )
        ),
    ),
    "per": (
        "rendering",
        _plain_number(lambda v: v > 0 and v.denominator > 1 and _whole(f"{v.numerator} per {v.denominator}")),
    ),
    # fractions and decimals
    "slash": ("rendering", _plain_number(lambda v: v.denominator > 1 and _whole(f"{v.numerator}/{v.denominator}"))),
    "fraction words": ("rendering", _plain_number(lambda v: _whole(fraction_words(v, article=True)))),
    "mixed words": ("rendering", lambda v, a: a.unit in ("", "degrees") and _whole(mixed_words(v))),
    "mixed digits": (
        "rendering",
        _plain_number(lambda v: abs(v) > 1 and v.denominator > 1 and _whole(f"{int(v)} {abs(v - int(v))}")),
    ),
    "decimal": ("rendering", _plain_number(lambda v: v.denominator > 1 and _whole(decimal_text(v)))),
    # whole numbers and quantities
    "digits": ("rendering", _integer(lambda n: _whole(str(n)))),
    "grouped digits": ("rendering", _integer(lambda n: abs(n) >= 1000 and _whole(grouped(n)))),
    "words": ("rendering", _integer(lambda n: _whole(int_words(n)))),
    "negative words": ("rendering", _integer(lambda n: n < 0 and _whole(int_words(n, "negative")))),
    "minus digits": ("rendering", _integer(lambda n: n < 0 and _whole(f"minus {-n}"))),
    "dozens": ("rendering", _integer(lambda n: _whole(dozens_words(n)))),
    "score": (
        "rendering",
        _integer(lambda n: n in (20, 40, 60, 80) and _whole(("a" if n == 20 else int_words(n // 20)) + " score")),
    ),
    "gross": ("rendering", _integer(lambda n: n > 0 and n % 144 == 0 and n <= 1440 and _whole(quantity_words(n)))),
    "pair": ("rendering", _integer(lambda n: n == 2 and ("just a pair", "a pair"))),
    "hundred and": ("rendering", _integer(lambda n: _whole(british_words(n)))),
    "hundreds": ("rendering", _integer(lambda n: _whole(hundreds_words(n)))),
    "year style": ("rendering", _integer(lambda n: _whole(year_words(n)))),
    "suffix": ("rendering", _integer(lambda n: _whole(suffix_words(n)))),
    # units
    "degrees": ("rendering", _unit_number("degrees", "{} degrees")),
    "degree sign": ("rendering", _unit_number("degrees", "{}°")),
    "degrees in words": ("rendering", _unit_number("degrees", "{} degrees", words=True)),
    "angle name": ("rendering", _with_unit("degrees", _degrees_phrase)),
    "fraction of a degree": (
        "rendering",
        _with_unit(
            "degrees",
            lambda v: (
                v.denominator > 1 and (f"{v.numerator}/{v.denominator} degrees", f"{v.numerator}/{v.denominator}")
            ),
        ),
    ),
    "dollar sign": ("rendering", _with_unit("dollars", lambda v: (f"${_money_digits(v)}", _money_digits(v)))),
    "dollars": ("rendering", _with_unit("dollars", lambda v: (f"{_money_digits(v)} dollars", _money_digits(v)))),
    "bucks": (
        "rendering",
        _with_unit("dollars", lambda v: v.denominator == 1 and (f"{grouped(int(v))} bucks", grouped(int(v)))),
    ),
    "money in words": ("rendering", _with_unit("dollars", lambda v: _whole(_money_words(v)))),
    "dollars and cents": ("rendering", _with_unit("dollars", _dollars_and_cents)),
    "grand": (
        "rendering",
        _with_unit(
            "dollars",
            lambda v: v >= 1000 and (v / 1000 * 100).denominator == 1 and _whole(f"{decimal_text(v / 1000)} grand"),
        ),
    ),
    "cents": ("rendering", _unit_number("cents", "{} cents")),
    "cents in words": ("rendering", _unit_number("cents", "{} cents", words=True)),
    "cent sign": ("rendering", _with_unit("cents", lambda v: v.denominator == 1 and _whole(f"{v}¢"))),
    "cents as dollars": ("rendering", _with_unit("cents", lambda v: _whole(f"${decimal_text(v / 100)}"))),
    "seconds": ("rendering", _unit_number("seconds", "{} seconds")),
    "seconds in words": ("rendering", _unit_number("seconds", "{} seconds", words=True)),
    "minutes of time": ("rendering", _with_unit("seconds", _seconds_phrase)),
    "minutes": ("rendering", _unit_number("minutes", "{} minutes")),
    "hours of time": ("rendering", _with_unit("minutes", _minutes_phrase)),
    "square inches": ("rendering", _unit_number("square inches", "{} square inches")),
    "square inches in words": ("rendering", _unit_number("square inches", "{} square inches", words=True)),
    "sq in": ("rendering", _unit_number("square inches", "{} sq in")),
    "square centimeters": ("rendering", _unit_number("square cm", "{} square centimeters")),
    "square centimetres in words": ("rendering", _unit_number("square cm", "{} square centimetres", words=True)),
    "cm squared": ("rendering", _unit_number("square cm", "{} cm²")),
    # one step away
    "odds in favour": ("arithmetic", _share(lambda v: _odds(v, favour=True, colon=False), True)),
    "odds against": ("arithmetic", _share(lambda v: _odds(v, favour=False, colon=False), True)),
    "colon odds in favour": ("arithmetic", _share(lambda v: _odds(v, favour=True, colon=True), True)),
    "complement": (
        "arithmetic",
        _share(
            lambda v: (
                f"a {v.denominator - v.numerator} in {v.denominator} chance that it does not happen",
                f"{v.denominator - v.numerator} in {v.denominator}",
            ),
            True,
        ),
    ),
    "short of a quantity": ("arithmetic", _integer(lambda n: n > 0 and _short_of(n))),
    "part of a number": ("arithmetic", _plain_number(lambda v: v > 0 and _part_of(v))),
    "coin short": ("arithmetic", _with_unit("dollars", _coin_short)),
    "penny short": ("arithmetic", _with_unit("cents", _cents_short)),
    "short of a right angle": ("arithmetic", _with_unit("degrees", _degrees_short)),
    "supplement": ("arithmetic", _with_unit("degrees", _supplement)),
    # approximations
    "about": ("approximation", _approximate(4, "about {}")),
    "roughly": ("approximation", _approximate(3, "roughly {}")),
    "approximately equal": ("approximation", _approximate(5, "≈ {}")),
    "approximate percent": ("approximation", _approximate_percent),
}


def _irrational_approximation(significant: int, template: str):
    def style(latex: str, answer: Answer) -> Phrase | None:
        number = approximate_text(float(sympy_value(latex)), significant)
        return template.format(number), number

    return style


def _square_root_words(latex: str, answer: Answer) -> Phrase | None:
    """ "three times the square root of thirteen", "the square root of fifty-one" for c*sqrt(n)."""
    value = sympy_value(latex)
    coefficient, rest = value.as_coeff_Mul()
    if not (rest.is_Pow and rest.exp == sympy.Rational(1, 2) and rest.base.is_Integer and coefficient.is_Integer):
        return None
    root = f"the square root of {int_words(int(rest.base))}"
    if coefficient == 1:
        return _whole(root)
    if coefficient == -1:
        return _whole("minus " + root)
    return _whole(f"{int_words(int(coefficient))} times {root}")


IRRATIONAL_STYLES = {
    "notation": ("rendering", lambda latex, answer: _whole(latex)),
    "unicode": ("rendering", lambda latex, answer: _whole(plain(latex))),
    "ascii": (
        "rendering",
        lambda latex, answer: _whole(str(sympy_value(latex)).replace("**", "^")),
    ),
    "root words": ("rendering", lambda latex, answer: _whole(spoken(plain(latex)))),
    "square root words": ("rendering", _square_root_words),
    "about": ("approximation", _irrational_approximation(4, "about {}")),
    "roughly": ("approximation", _irrational_approximation(3, "roughly {}")),
    "approximately equal": ("approximation", _irrational_approximation(5, "≈ {}")),
}


def complex_parts(latex: str) -> tuple[int, int] | None:
    value = sympy.sympify(strip_latex(latex).replace("i", "*I"))
    real, imaginary = value.as_real_imag()
    if not (real.is_Integer and imaginary.is_Integer):
        return None
    return int(real), int(imaginary)


def _complex_words(latex: str, answer: Answer) -> Phrase | None:
    real, imaginary = complex_parts(latex)
    sign = "plus" if imaginary > 0 else "minus"
    return _whole(f"{int_words(real)} {sign} {int_words(abs(imaginary))} i")


def _complex_split(latex: str, answer: Answer) -> Phrase | None:
    real, imaginary = complex_parts(latex)
    return _whole(f"real part {real} and imaginary part {imaginary}")


COMPLEX_STYLES = {
    "notation": ("rendering", lambda latex, answer: _whole(plain(latex))),
    "spoken": ("rendering", lambda latex, answer: _whole(spoken(plain(latex)))),
    "words": ("rendering", _complex_words),
    "real and imaginary": ("rendering", _complex_split),
}

EXPRESSION_STYLES = {
    "notation": ("rendering", lambda latex, answer: _whole(latex)),
    "typed": ("rendering", lambda latex, answer: _whole(plain(latex))),
    "spoken": ("rendering", lambda latex, answer: _whole(spoken(plain(latex)))),
}


def _equation_is(latex: str, answer: Answer) -> Phrase | None:
    match = re.fullmatch(r"([a-z])\s*=\s*(-?\d+)", latex)
    if not match:
        return None
    return _whole(f"{match.group(1)} is {match.group(2)}")


def _equation_words(latex: str, answer: Answer) -> Phrase | None:
    match = re.fullmatch(r"([a-z])\s*=\s*(-?\d+)", latex)
    if not match:
        return None
    return _whole(f"{match.group(1)} equals {int_words(int(match.group(2)))}")


EQUATION_STYLES = EXPRESSION_STYLES | {
    "is": ("rendering", _equation_is),
    "equals in words": ("rendering", _equation_words),
}


def interval_pieces(latex: str, typed: bool = True) -> list[tuple[str, str, str, str]]:
    """The pieces of an interval answer as (left bracket, low, high, right bracket), bounds in typed notation (or
    in latex)."""
    text = re.sub(r"^x\s*\\in\s*", "", strip_latex(latex))
    pieces = []
    for piece in text.split("\\cup"):
        piece = piece.strip()
        low, high = top_level_split(piece[1:-1])
        pieces.append((piece[0], plain(low) if typed else low, plain(high) if typed else high, piece[-1]))
    return pieces


def _interval_words(latex: str, answer: Answer) -> Phrase | None:
    phrases = []
    for left, low, high, right in interval_pieces(latex):
        if high == "∞":
            phrases.append(f"greater than {low}" if left == "(" else f"{low} or more")
        elif low == "-∞":
            phrases.append(f"less than {high}" if right == ")" else f"{high} or less")
        elif left + right == "()":
            phrases.append(f"strictly between {low} and {high}")
        elif left + right == "[]":
            phrases.append(f"from {low} to {high}, both ends included")
        elif right == "]":
            phrases.append(f"between {low} and {high}, {high} included but not {low}")
        else:
            phrases.append(f"between {low} and {high}, {low} included but not {high}")
    return _whole(" or ".join(phrases))


def _interval_inequality(latex: str, answer: Answer) -> Phrase | None:
    pieces = interval_pieces(latex)
    if len(pieces) != 1:
        return None
    left, low, high, right = pieces[0]
    lower = "" if low == "-∞" else f"{low} {'<' if left == '(' else '≤'} "
    upper = "" if high == "∞" else f" {'<' if right == ')' else '≤'} {high}"
    return _whole(f"{lower}x{upper}")


INTERVAL_STYLES = {
    "notation": ("rendering", lambda latex, answer: _whole(plain(latex))),
    "words": ("rendering", _interval_words),
    "inequality": ("rendering", _interval_inequality),
}


def sequence_items(latex: str) -> list[str]:
    """The items of a pair, tuple or list answer in typed notation; a "±" item is kept as it is."""
    text = strip_latex(latex)
    if text.startswith("\\{"):
        text = text[2:-2]
    elif text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return [plain(item) for item in top_level_split(text)]


def _and_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _expanded_items(latex: str) -> list[str] | None:
    items = sequence_items(latex)
    if not any("±" in item for item in items):
        return None
    expanded = []
    for item in items:
        expanded += [item.replace("±", " + ").replace("  ", " "), item.replace("±", " - ").replace("  ", " ")]
        if "±" not in item:
            expanded.pop()
    return expanded


def _in_order(latex: str, answer: Answer) -> Phrase | None:
    items = sequence_items(latex)
    if len(items) < 2 or not latex.startswith(("(", "\\left")):
        return None
    return _whole(f"{_and_list(items)}, in that order")


def _items_in_words(latex: str, answer: Answer) -> Phrase | None:
    items = sequence_items(latex)
    if not all(re.fullmatch(r"-?\d+", item) for item in items):
        return None
    return _whole(_and_list([int_words(int(item)) for item in items]))


SEQUENCE_STYLES = {
    "notation": ("rendering", lambda latex, answer: _whole(plain(latex))),
    "and list": ("rendering", lambda latex, answer: _whole(_and_list(sequence_items(latex)))),
    "in that order": ("rendering", _in_order),
    "in words": ("rendering", _items_in_words),
    "plus or minus spelled out": (
        "rendering",
        lambda latex, answer: _expanded_items(latex) and _whole(_and_list(_expanded_items(latex))),
    ),
}


def matrix_rows(latex: str) -> list[list[str]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", strip_latex(latex), re.S).group(1)
    return [[plain(entry) for entry in row.split("&")] for row in body.split("\\\\")]


def _entry_values(latex: str) -> list[Fraction] | None:
    values = [as_fraction(sympy_value(entry)) for row in matrix_rows(latex) for entry in row]
    return None if any(value is None for value in values) else values


def _matrix_entries(latex: str, answer: Answer) -> Phrase | None:
    rows = matrix_rows(latex)
    if all(len(row) == 1 for row in rows):
        return _whole(_and_list([row[0] for row in rows]))
    return _whole(" and ".join(f"({', '.join(row)})" for row in rows))


def _matrix_entry_words(latex: str, answer: Answer) -> Phrase | None:
    rows = matrix_rows(latex)
    values = _entry_values(latex)
    if values is None or not all(len(row) == 1 for row in rows):
        return None
    words = [int_words(int(v)) if v.denominator == 1 else fraction_words(v, article=True) for v in values]
    return None if None in words else _whole(_and_list(words))


def _identity_multiple(latex: str, answer: Answer) -> Phrase | None:
    rows = matrix_rows(latex)
    values = _entry_values(latex)
    size = len(rows)
    if values is None or size < 2 or any(len(row) != size for row in rows):
        return None
    grid = sympy.Matrix(size, size, [sympy.Rational(v.numerator, v.denominator) for v in values])
    if grid == sympy.eye(size):
        return _whole("the identity matrix")
    if grid == -sympy.eye(size):
        return _whole("minus the identity matrix")
    return None


MATRIX_STYLES = {
    "entries": ("rendering", _matrix_entries),
    "column": (
        "rendering",
        lambda latex, answer: (
            all(len(row) == 1 for row in matrix_rows(latex))
            and _whole("(" + ", ".join(row[0] for row in matrix_rows(latex)) + ")")
        ),
    ),
    "entries in words": ("rendering", _matrix_entry_words),
    "identity": ("rendering", _identity_multiple),
}

CHOICE_STYLES = {
    "option": ("rendering", lambda letter, answer: _whole(f"option {letter}")),
    "parenthesized": ("rendering", lambda letter, answer: _whole(f"({letter})")),
    "choice": ("rendering", lambda letter, answer: _whole(f"choice {letter}")),
    "ordinal option": (
        "rendering",
        lambda letter, answer: _whole(f"the {LETTER_ORDINALS['ABCDEFGH'.index(letter)]} option"),
    ),
}

WORD_STYLES = {
    "plain": ("rendering", lambda word, answer: _whole(word)),
    "quoted": ("rendering", lambda word, answer: (f'"{word}"', word)),
    "capitalized": ("rendering", lambda word, answer: _whole(word[:1].upper() + word[1:])),
}


def base_parts(latex: str) -> tuple[str, int]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", latex.replace(" ", "")).groups()
    return digits, int(base)


BASE_STYLES = {
    "in base": ("rendering", lambda latex, answer: (f"{base_parts(latex)[0]} in base {base_parts(latex)[1]}",) * 2),
    "base label": (
        "rendering",
        lambda latex, answer: (
            f"base {int_words(base_parts(latex)[1])}: {base_parts(latex)[0]}",
            base_parts(latex)[0],
        ),
    ),
    "subscript": (
        "rendering",
        lambda latex, answer: _whole(base_parts(latex)[0] + str(base_parts(latex)[1]).translate(SUBSCRIPT_DIGITS)),
    ),
    "digit by digit": (
        "rendering",
        lambda latex, answer: (
            " ".join(int_words(int(d)) for d in base_parts(latex)[0]) + f", base {int_words(base_parts(latex)[1])}",
            " ".join(int_words(int(d)) for d in base_parts(latex)[0]),
        ),
    ),
}

STYLES = {
    "number": NUMBER_STYLES,
    "irrational": IRRATIONAL_STYLES,
    "complex": COMPLEX_STYLES,
    "expression": EXPRESSION_STYLES,
    "equation": EQUATION_STYLES,
    "interval": INTERVAL_STYLES,
    "sequence": SEQUENCE_STYLES,
    "matrix": MATRIX_STYLES,
    "choice": CHOICE_STYLES,
    "word": WORD_STYLES,
    "base": BASE_STYLES,
}


def render(style: str, value: object, answer: Answer) -> Phrase | None:
    """`value` written in `style`, or None where the style does not apply to it."""
    phrase = STYLES[answer.kind][style][1](value, answer)
    return phrase if phrase else None


# --- wrong values --------------------------------------------------------------------------------------------------


def _number_mutations(value: Fraction) -> list[tuple[str, Fraction]]:
    if value.denominator == 1:
        n = int(value)
        mutations = [("plus one", n + 1), ("minus one", n - 1), ("plus two", n + 2), ("doubled", 2 * n)]
        mutations += [("plus ten", n + 10), ("minus ten", n - 10), ("plus six", n + 6), ("plus twelve", n + 12)]
        mutations += [("minus twelve", n - 12), ("times ten", 10 * n), ("sign flipped", -n)]
        if n % 2 == 0:
            mutations.append(("halved", n // 2))
        if abs(n) >= 10 and str(abs(n))[::-1] != str(abs(n)):
            mutations.append(("digits reversed", int(str(abs(n))[::-1]) * (1 if n > 0 else -1)))
        return [(how, Fraction(m)) for how, m in mutations]
    p, q = value.numerator, value.denominator
    mutations = [("numerator plus one", Fraction(p + 1, q)), ("numerator minus one", Fraction(p - 1, q))]
    mutations += [("denominator plus one", Fraction(p, q + 1)), ("doubled", 2 * value), ("halved", value / 2)]
    mutations += [("reciprocal", 1 / value), ("plus one", value + 1), ("plus a tenth", value + Fraction(1, 10))]
    if q > 2:
        mutations.append(("denominator minus one", Fraction(p, q - 1)))
    return mutations


def _latex_mutations(latex: str, kind: str) -> list[tuple[str, str]]:
    """Copies of `latex` with one number changed, a sign or a function swapped, and (for expressions and
    irrational numbers) two variables swapped, a factor put in front or a term added."""
    mutations = []
    for match in re.finditer(r"\d+", latex):
        number = int(match.group())
        for how, changed in (("a number raised by one", number + 1), ("a number raised by two", number + 2)):
            mutations.append((how, latex[: match.start()] + str(changed) + latex[match.end() :]))
        exponent = latex[: match.start()].endswith(("^", "^{"))
        coefficient = re.match(r"[a-zA-Z\\]", latex[match.end() :])
        if number > 2 or (number == 2 and not coefficient and not exponent):
            mutations.append(
                ("a number lowered by one", latex[: match.start()] + str(number - 1) + latex[match.end() :])
            )
    negative = re.search(r"(?:^|[(,{&]|\\\\)\s*-", latex)
    if negative:
        mutations.append(("a sign dropped", latex[: negative.end() - 1] + latex[negative.end() :]))
    binary = re.search(r"(?<=[\w})])\s*([-+])", latex)
    if binary and kind != "matrix":
        other = "+" if binary.group(1) == "-" else "-"
        mutations.append(("a sign swapped", latex[: binary.start(1)] + other + latex[binary.end(1) :]))
    functions = ("\\cot", "\\tan", "\\sin", "\\cos", "\\sec", "\\csc")
    for name in functions:
        if name in latex:
            mutations += [("another function", latex.replace(name, other)) for other in functions if other != name]
    if kind not in ("expression", "irrational"):
        return mutations
    letters = sorted(set(re.findall(r"(?<![\\a-zA-Z])[a-zA-Z](?![a-zA-Z])", latex)))
    if len(letters) == 2:
        swapped = latex.translate(str.maketrans(letters[0] + letters[1], letters[1] + letters[0]))
        mutations.append(("variables swapped", swapped))
    if re.match(r"[a-zA-Z\\]", latex):
        mutations += [("a factor of two", "2" + latex), ("a factor of three", "3" + latex)]
    mutations.append(("a term added", latex + " + 1"))
    return mutations


def _base_mutations(latex: str) -> list[tuple[str, str]]:
    digits, base = base_parts(latex)
    mutations = []
    for how, position, step in (("last digit up", -1, 1), ("last digit down", -1, -1), ("first digit up", 0, 1)):
        changed = list(digits)
        new_digit = int(changed[position]) + step
        if 0 <= new_digit < base and not (position == 0 and new_digit == 0):
            changed[position] = str(new_digit)
            mutations.append((how, f"{''.join(changed)}_{{{base}}}"))
    return mutations


WORD_FAMILIES = (
    ("north", "south", "east", "west"),
    ("even", "odd", "neither"),
    ("parabola", "circle", "ellipse", "hyperbola", "point", "line", "empty"),
)


def _word_mutations(word: str, problem: str) -> list[tuple[str, str]]:
    for family in WORD_FAMILIES:
        if word in family:
            return [("another option", other) for other in family if other != word and other in problem]
    names = re.findall(r'"([A-Z][a-z]+)"', problem) + re.findall(r"\b([A-Z][a-z]+) (?:from|makes)\b", problem)
    return [("another name", name) for name in dict.fromkeys(names) if name != word]


def _irrational(value: sympy.Expr | None) -> bool:
    return value is not None and not value.is_Rational


def _well_formed(latex: str, kind: str) -> bool:
    """Whether a mutated value reads like an answer: fractions in lowest terms, intervals with low < high."""
    fractions = re.findall(r"(\d+)/(\d+)", plain(latex))
    if any(math.gcd(int(p), int(q)) != 1 or int(q) == 1 for p, q in fractions):
        return False
    if kind == "interval":
        for _, low, high, _ in interval_pieces(latex, typed=False):
            bounds = [sympy_value(bound) for bound in (low, high) if "infty" not in bound]
            if len(bounds) == 2 and (None in bounds or not bounds[0] < bounds[1]):
                return False
    return True


def mutations(answer: Answer) -> list[tuple[str, object]]:
    """Wrong values of the answer's own shape, each with how it was made."""
    if answer.kind == "number":
        low, high = (0, 1) if answer.probability else (0, 100) if answer.unit == "percent" else (None, None)
        return [
            (how, m)
            for how, m in _number_mutations(answer.value)
            if m != answer.value and (low is None or low < m < high)
        ]
    if answer.kind == "choice":
        letters = dict.fromkeys(re.findall(r"\(([A-H])\)", answer.problem))
        return [("another option", letter) for letter in letters if letter != answer.value]
    if answer.kind == "word":
        return _word_mutations(answer.value, answer.problem)
    if answer.kind == "base":
        return _base_mutations(answer.value)
    candidates = [
        (how, m)
        for how, m in _latex_mutations(answer.value, answer.kind)
        if plain(m) != plain(answer.value) and _well_formed(m, answer.kind)
    ]
    if answer.kind == "irrational":
        exact = sympy_value(answer.value)
        candidates = [(how, m) for how, m in candidates if _irrational(sympy_value(m)) and sympy_value(m) != exact]
    return candidates


# --- the checker -------------------------------------------------------------------------------------------------

NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|-?\.\d+"
NUMBER_WORDS = {word: value for value, word in enumerate(ONES)} | {w: 10 * i for i, w in enumerate(TENS) if w}
SCALE_WORDS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
RUN_WORD = "|".join(sorted([*NUMBER_WORDS, *SCALE_WORDS, "oh"], key=len, reverse=True))
NUMBER_RUN = re.compile(
    rf"\b(?:(?:an?|{RUN_WORD})[\s-]+)?(?:{RUN_WORD})"
    rf"(?:(?:[\s-]+|(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))\s+and\s+)(?:{RUN_WORD}))*\b"
)
ORDINAL_DENOMINATORS = {"half": 2, "halves": 2, "quarter": 4, "quarters": 4}
for _denominator in range(3, 101):
    ORDINAL_DENOMINATORS[ordinal_words(_denominator)] = _denominator
    ORDINAL_DENOMINATORS[ordinal_words(_denominator) + "s"] = _denominator
ORDINAL = re.compile(r"\b(" + "|".join(sorted(ORDINAL_DENOMINATORS, key=len, reverse=True)) + r")\b")
IDIOMS = (
    (r"\bhalf an hour\b", "30 minutes"),
    (r"\ban hour and a half\b", "90 minutes"),
    (r"\ba minute and a half\b", "90 seconds"),
    (r"\bhalf a minute\b", "30 seconds"),
    (r"\ban hour\b", "60 minutes"),
    (r"\ba minute\b", "60 seconds"),
    (r"\b(?:a )?right angle\b", "90"),
    (r"\b(?:a )?straight angle\b", "180"),
    (r"\b(?:a )?full turn\b", "360"),
    (r"\bhalf a dozen\b", "6"),
    (r"\ba dozen and a half\b", "18"),
    (r"\ba (?:pair|couple)\b", "2"),
    (r"\ba buck\b", "1 dollars"),
    (r"\ba dime\b", "10 cents"),
    (r"\ba nickel\b", "5 cents"),
    (r"\ba penny\b", "1 cents"),
    (r"\bhalf of\b", "1/2 of"),
    (r"\ba (dozen|score|gross|grand)\b", r"1 \1"),
    (r"\b(?:minus|negative)\s+(?=\d)", "-"),
)
QUANTITY_SCALES = {"dozen": 12, "score": 20, "gross": 144, "grand": 1000, "k": 1000, "thousand": 1000}
QUANTITY_SCALES |= {"million": 10**6, "billion": 10**9}


def _run_groups(run: str) -> list[int]:
    """The numbers a run of number words says: "forty-two" -> [42], "nineteen forty" -> [19, 40]."""
    groups, total, current, last = [], 0, 0, None
    for word in re.findall(r"[a-z]+", run):
        if word in ("a", "an"):
            current, last = 1, "ones"
        elif word == "and":
            continue
        elif word == "hundred":
            current, last = max(current, 1) * 100, "scale"
        elif word in SCALE_WORDS:
            total, current, last = total + max(current, 1) * SCALE_WORDS[word], 0, "scale"
        else:
            value = 0 if word == "oh" else NUMBER_WORDS[word]
            kind = "oh" if word == "oh" else "ones" if value < 10 else "teens" if value < 20 else "tens"
            if last in ("ones", "teens") or (last == "tens" and kind != "ones") or (kind == "oh" and last):
                groups.append(total + current)
                total, current = 0, 0
            current += value
            last = kind
    return [*groups, total + current]


def _value(text: str) -> Fraction:
    return Fraction(text.replace(",", ""))


def _number_text_of(value: Fraction) -> str:
    return decimal_text(value) or f"{value.numerator}/{value.denominator}"


def numericized(text: str) -> tuple[str, list[Fraction]]:
    """`text` with everyday quantities turned into numerals, and the numbers that only a year reading gives."""
    years = []
    text = text.lower().replace("−", "-").replace("–", "-").replace("$", " ")
    text = re.sub(r"\\[!,;]|\\left|\\right", "", text)
    text = re.sub(r"\\[dt]?frac\s*\{(-?\d+)\}\s*\{(\d+)\}", r" \1/\2 ", text)
    text = re.sub(r"\\[dt]?frac\s*(\d)\s*(\d)", r" \1/\2 ", text)
    text = re.sub(r"\\[dt]?frac\s*(\d)\s*\{(\d+)\}|\\[dt]?frac\s*\{(\d+)\}\s*(\d)", r" \1\3/\2\4 ", text)
    for pattern, replacement in IDIOMS[:-1]:
        text = re.sub(pattern, replacement, text)
    text = ORDINAL.sub(lambda m: f" /{ORDINAL_DENOMINATORS[m.group(1)]}", text)

    def run_digits(match: re.Match) -> str:
        groups = _run_groups(match.group())
        if len(groups) == 2 and 10 <= groups[0] <= 99 and groups[1] <= 99:
            years.append(Fraction(groups[0] * 100 + groups[1]))
        return " ".join(map(str, groups))

    text = NUMBER_RUN.sub(run_digits, text)
    text = re.sub(IDIOMS[-1][0], IDIOMS[-1][1], text)
    text = re.sub(r"\ban?\s+/(\d+)", r"1/\1", text)
    text = re.sub(r"(\d)\s+/(\d+)", r"\1/\2", text)
    text = re.sub(
        r"(\d+) and (\d+)/(\d+) dozen", lambda m: str((int(m[1]) + Fraction(int(m[2]), int(m[3]))) * 12), text
    )
    text = re.sub(
        rf"({NUMBER})\s*({'|'.join(QUANTITY_SCALES)})\b",
        lambda m: _number_text_of(_value(m[1]) * QUANTITY_SCALES[m[2]]),
        text,
    )
    return text, years


def _pairs(pattern: str, text: str) -> list[tuple[str, ...]]:
    return [m.groups() for m in re.finditer(f"(?=({pattern}))", text)]


def _decimal(number: str, scale: int) -> tuple[Fraction, int, int]:
    """A written decimal divided by `scale`: its value, how many places it has then, its significant digits."""
    places = len(number.partition(".")[2]) + len(str(scale)) - 1
    significant = len(number.replace("-", "").replace(".", "").replace(",", "").lstrip("0"))
    return _value(number) / scale, places, significant


def candidate_values(text: str) -> tuple[set, list, list, list]:
    """From a text: the exact values it states, its decimals (value, places), its radicals, its numbers in order."""
    text, values = numericized(text)
    values = set(values)
    in_order = [_value(m) for m in re.findall(NUMBER, text)]
    values |= set(in_order)
    decimals = [_decimal(m, 1) for m in re.findall(r"-?\d*\.\d+", text)]
    for _, a, b in _pairs(rf"({NUMBER})\s*/\s*({NUMBER})", text):
        if _value(b):
            values.add(_value(a) / _value(b))
    for _, whole, p, q in _pairs(r"(\d+)(?:\s+and)?\s+(\d+)/(\d+)", text):
        values.add(int(whole) + Fraction(int(p), int(q)))
    for _, p, q, of in _pairs(rf"(\d+)/(\d+) of ({NUMBER})", text):
        values.add(Fraction(int(p), int(q)) * _value(of))
    for _, number, sign in _pairs(rf"({NUMBER})\s*(%|percent|per cent|pct|‰|per mille|basis points)", text):
        scale = 100 if sign in ("%", "percent", "per cent", "pct") else 1000 if sign in ("‰", "per mille") else 10**4
        values.add(_value(number) / scale)
        decimals.append(_decimal(number, scale))
    connector = r"out of|in every|of every|in|to|:|per|parts to|chances? in"
    for _, a, b in _pairs(rf"({NUMBER})\s*-?\s*(?:{connector})\s*-?\s*({NUMBER})", text):
        a, b = _value(a), _value(b)
        for share in (a / b if b else None, a / (a + b) if a + b else None, b / (a + b) if a + b else None):
            if share is not None:
                values |= {share, 1 - share}
    for _, number, unit in _pairs(rf"({NUMBER})\s*(hours?|minutes?|seconds?|cents?|¢)", text):
        number = _value(number)
        values |= {number * 60, number / 60} if unit.startswith(("hour", "minute", "second")) else {number / 100}
    for _, dollars, cents in _pairs(rf"({NUMBER})\s*(?:dollars?|bucks?)(?:\s+and)?\s+(\d{{1,2}})\b", text):
        values.add(_value(dollars) + Fraction(int(cents), 100))
    for _, difference, direction, base in _pairs(
        rf"({NUMBER})\s*(?:[a-z]+\s+)?(short of|less than|fewer than|under|below|more than|over|above|past)\s+"
        rf"(?:the\s+)?({NUMBER})",
        text,
    ):
        sign = 1 if direction in ("more than", "over", "above", "past") else -1
        values.add(_value(base) + sign * _value(difference))
    for _, kind, number in _pairs(rf"(supplement|complement) of ({NUMBER})", text):
        values.add((180 if kind == "supplement" else 90) - _value(number))
    radicals = []
    for _, coefficient, radicand in _pairs(
        rf"({NUMBER})?\s*(?:√\(?|root\s+|sqrt\(|\\sqrt\s*\{{?|square root of\s+)({NUMBER})", text
    ):
        factor = float(_value(coefficient)) if coefficient else 1.0
        radicals.append(abs(factor) * math.sqrt(abs(float(_value(radicand)))))
    return values, decimals, radicals, [abs(v) for v in in_order]


@dataclass(frozen=True)
class Targets:
    exact: frozenset
    approximate: tuple
    runs: tuple
    strings: tuple


def _rational_items(items: list[str]) -> list[Fraction] | None:
    values = [as_fraction(sympy_value(item.replace("√", "\\sqrt").replace("π", "\\pi"))) for item in items]
    return None if None in values else [abs(v) for v in values]


@cache
def targets(answer: Answer) -> Targets:
    """What the checker looks for: exact values, approximate values, runs of values, strings."""
    strings = set()
    for style in STYLES[answer.kind]:
        phrase = render(style, answer.value, answer)
        if phrase:
            strings |= {phrase[0].lower(), phrase[1].lower()}
    exact, approximate, runs = set(), [], []
    if answer.kind == "number":
        value = answer.value
        exact |= {value}
        scales = {"percent": 1 / Fraction(100), "dollars": Fraction(100), "cents": 1 / Fraction(100)}
        scales |= {"seconds": 1 / Fraction(60), "minutes": 1 / Fraction(60)}
        if answer.unit in scales:
            exact.add(value * scales[answer.unit])
        if decimal_text(value) is None:
            approximate += [float(value), float(value) * 100]
    elif answer.kind == "irrational":
        approximate += [float(sympy_value(answer.value)), float(sympy_value(answer.value)) * 100]
        strings |= {strip_latex(answer.value).lower(), plain(answer.value).lower()}
    elif answer.kind == "base":
        digits, base = base_parts(answer.value)
        exact.add(Fraction(int(digits, base)))
        strings.add(digits)
    elif answer.kind in ("complex", "sequence", "interval", "matrix", "equation", "expression"):
        strings |= {strip_latex(answer.value).lower(), plain(answer.value).lower()}
        if answer.kind == "complex":
            runs.append([abs(Fraction(part)) for part in complex_parts(answer.value)])
        elif answer.kind == "sequence":
            runs.append(_rational_items(sequence_items(answer.value)))
        elif answer.kind == "interval":
            bounds = [bound for piece in interval_pieces(answer.value) for bound in piece[1:3] if "∞" not in bound]
            runs.append(_rational_items(bounds))
        elif answer.kind == "matrix":
            values = _entry_values(answer.value)
            runs.append(values and [abs(v) for v in values])
        elif answer.kind == "equation":
            match = re.fullmatch(r"[a-z]\s*=\s*(-?\d+)", answer.value)
            exact |= {Fraction(match.group(1))} if match else set()
    runs = tuple(tuple(run) for run in runs if run and len(run) > 1)
    return Targets(frozenset(exact), tuple(approximate), runs, tuple(sorted(strings)))


def _squeezed(text: str) -> str:
    return re.sub(r"[\s$]", "", text.lower())


def holds_answer(text: str, answer: Answer) -> bool:
    """Whether `text` states the answer in any notation this corpus renders, or states its exact value."""
    found = targets(answer)
    lowered = text.lower()
    if any(occurrences(string, lowered) for string in found.strings):
        return True
    if answer.kind in ("complex", "sequence", "interval", "matrix", "equation", "expression"):
        squeezed = _squeezed(text)
        if any(len(_squeezed(s)) >= 3 and _squeezed(s) in squeezed for s in found.strings):
            return True
    if answer.kind == "choice" and re.search(
        rf"\b(?:option|choice|answer|letter)\s*\(?{answer.value}\b|\({answer.value}\)", text
    ):
        return True
    values, decimals, radicals, in_order = candidate_values(text)
    if values & found.exact:
        return True
    for target in found.approximate:
        for decimal, places, significant in decimals:
            if significant >= 2 and abs(float(decimal) - target) <= 10.0**-places:
                return True
        if any(abs(radical - abs(target)) < 1e-9 for radical in radicals):
            return True
    for run in found.runs:
        if any(tuple(in_order[start : start + len(run)]) == run for start in range(len(in_order))):
            return True
    return False


# --- frames and cases --------------------------------------------------------------------------------------------
# Each frame has a leak wording with the answer's slot {v} and a clean wording without it; {w} is the attempt's
# wrong value, {n} a second wrong value (a near miss), {q} a number quoted from the problem and {m} a number from
# the reference solution's working.

FRAMES = {
    "chat close": (
        "Hey, close but not quite! You said {w}, but it should be {v}. Go back to {q} and redo that step.",
        "Hey, close but not quite! You said {w}, and that isn't it. Go back to {q} and redo that step.",
    ),
    "tutor walkthrough": (
        "Let's walk through it. You set things up well with {q}, and {m} is fine. The slip comes at the end: the "
        "result is {v}, not {w}.",
        "Let's walk through it. You set things up well with {q}, and {m} is fine. The slip comes at the end: the "
        "result is not {w}, and it isn't {n} either.",
    ),
    "reviewer": (
        "Check of the final answer: the attempt reports {w}. Redoing the computation from {q} gives {v}.",
        "Check of the final answer: the attempt reports {w}. Redoing the computation from {q} gives something "
        "else; the error enters after {m}.",
    ),
    "learner chat": (
        "So you got {w}? Not quite. Work it again carefully and you'll land on {v}. Tip: start from {q}.",
        "So you got {w}? Not quite. Work it again carefully and you'll land somewhere else. Tip: start from {q}.",
    ),
    "plain terms": (
        "In plain terms, the answer is {v}. What you wrote, {w}, comes from a slip after {m}.",
        "In plain terms, the answer isn't {w}, the value you wrote; that comes from a slip after {m}, and {n} "
        "would be wrong too.",
    ),
    "encouraging": (
        "Nice start, {m} is right. Just the last bit: it works out to {v}, so {w} was a small miscount.",
        "Nice start, {m} is right. Just the last bit is off: {w} was a small miscount, and {n} would be too.",
    ),
    "terse": ("Not {w}. It's {v}.", "Not {w}, and not {n} either."),
    "grader": (
        "Marking note: the final answer {w} is incorrect; the expected answer is {v}. Credit for using {q} correctly.",
        "Marking note: the final answer {w} is incorrect. Credit for using {q} correctly; recheck the step after {m}.",
    ),
    "everyday terms": (
        "Think of it in everyday terms: it's {v}. You had {w}, which goes wrong after {m}.",
        "Think of it in everyday terms: it's not {w}. That goes wrong after {m}; {n} doesn't fit either.",
    ),
}
CHANCE_FRAMES = {
    "chance count": (
        "Careful with the counting. With {q}, the chance comes out to {v}, not {w}.",
        "Careful with the counting. With {q}, the chance doesn't come out to {w}, and it isn't {n} either.",
    ),
    "chance chat": (
        "Good try! Listing the equally likely outcomes was the right idea, and {m} is right, but the probability "
        "is {v} rather than {w}.",
        "Good try! Listing the equally likely outcomes was the right idea, and {m} is right, but the probability "
        "is not {w}; {n} misses too.",
    ),
}
SLOT = "\x00"
FALLBACK_STYLES = ("words", "fraction words", "decimal", "degrees in words", "money in words", "cents", "percent")
FALLBACK_STYLES += ("seconds", "minutes", "square inches", "square centimeters", "digits", "slash")


def quoted_numbers(text: str) -> list[str]:
    """The numerals of a problem or solution, outside diagrams and the boxed answer, in order of appearance."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", text, flags=re.S)
    text = re.sub(r"\\boxed\{[^{}]*\}", " ", text).replace("\\!", "").replace("{,}", ",")
    numbers = re.findall(r"(?<![\w.^_{,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.,]*[}^_])", text)
    return list(dict.fromkeys(numbers))


@dataclass(frozen=True)
class RowPlan:
    index: int
    answer: Answer
    answer_type: str
    styles: tuple
    problem_numbers: tuple
    working_numbers: tuple
    wrongs: tuple


def plan_row(index: int, row: dict) -> RowPlan:
    answer = parse_answer(row["answer"], row["problem"])
    styles = tuple(name for name in STYLES[answer.kind] if render(name, answer.value, answer))
    problem_numbers = [n for n in quoted_numbers(row["problem"]) if not holds_answer(n, answer)]
    working_numbers = [
        n for n in quoted_numbers(row["solution"]) if n not in problem_numbers and not holds_answer(n, answer)
    ]
    return RowPlan(
        index,
        answer,
        answer_type(row["answer"], row["problem"]),
        styles,
        tuple(_telling(problem_numbers)[:12]),
        tuple(_telling(working_numbers)[:12]),
        tuple(mutations(answer)),
    )


def _wrong_phrase(plan: RowPlan, style: str, rng: random.Random, avoid: set) -> tuple[str, str] | None:
    """A wrong value rendered in `style` (or, where the style cannot write it, in the kind's first style that
    can), with how it was made."""
    wrongs = list(plan.wrongs)
    rng.shuffle(wrongs)
    kind_styles = STYLES[plan.answer.kind]
    fallbacks = [name for name in (*FALLBACK_STYLES, *kind_styles) if name in kind_styles]
    for names in ([style], fallbacks):
        for how, wrong in wrongs:
            phrase = next(filter(None, (render(name, wrong, plan.answer) for name in names)), None)
            if phrase and phrase[0] not in avoid and not holds_answer(phrase[0], plan.answer):
                return phrase[0], how
    return None


def _everyday_number(number: str, rng: random.Random) -> str:
    """A quoted number, in words half of the time where it is a whole number up to twenty."""
    return int_words(int(number)) if number.isdigit() and int(number) <= 20 and rng.random() < 0.5 else number


def _slots(plan: RowPlan, rng: random.Random) -> dict[str, str]:
    q = rng.choice(plan.problem_numbers) if plan.problem_numbers else None
    m = rng.choice(plan.working_numbers or plan.problem_numbers) if plan.working_numbers or q else None
    return {
        "q": f"the {_everyday_number(q, rng)} in the problem" if q else "the given numbers",
        "m": f"the {_everyday_number(m, rng)} you found along the way" if m else "your setup",
    }


def _telling(numbers: list[str]) -> list[str]:
    """Quoted numbers other than 0 and 1, or all of them where nothing else is left."""
    return [n for n in numbers if n not in ("0", "1")] or numbers


def _case(plan: RowPlan, family: str, style: str, frame: str, text: str, context: str, parts: list, wrong, how):
    return {
        "family": family,
        "split": "held_out",
        "index": plan.index,
        "answer_type": plan.answer_type,
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


def leak_case(plan: RowPlan, style: str, rng: random.Random) -> dict | None:
    """A critique whose slot states the answer in `style`; redrawn until nothing outside the slot states it."""
    phrase, part = render(style, plan.answer.value, plan.answer)
    family = STYLES[plan.answer.kind][style][0]
    frames = {**FRAMES, **(CHANCE_FRAMES if plan.answer.probability else {})}
    for _ in range(REDRAWS):
        frame = rng.choice(sorted(frames))
        wrong = _wrong_phrase(plan, style, rng, {phrase})
        if wrong is None:
            return None
        template = frames[frame][0].format(v=SLOT, w=wrong[0], **_slots(plan, rng))
        before, after = template.split(SLOT)
        start = phrase.index(part)
        text = before + phrase + after
        context = before + phrase[:start] + "\\ldots" + phrase[start + len(part) :] + after
        if occurrences(part, text) == occurrences(part, context) + 1 and not holds_answer(context, plan.answer):
            return _case(plan, family, style, frame, text, context, [part], *wrong)
    return None


def clean_case(plan: RowPlan, style: str, rng: random.Random) -> dict | None:
    """A critique in the same frames with wrong values written in `style` and no answer; redrawn until the
    checker finds no answer in it."""
    frames = {**FRAMES, **(CHANCE_FRAMES if plan.answer.probability else {})}
    own = render(style, plan.answer.value, plan.answer)[0]
    for _ in range(REDRAWS):
        frame = rng.choice(sorted(frames))
        wrong = _wrong_phrase(plan, style, rng, {own})
        near = _wrong_phrase(plan, style, rng, {own, wrong[0]} if wrong else {own})
        if wrong is None or ("{n}" in frames[frame][1] and near is None):
            return None
        text = frames[frame][1].format(w=wrong[0], n=near[0] if near else "", **_slots(plan, rng))
        if not holds_answer(text, plan.answer):
            return _case(plan, "clean", style, frame, text, text, [], *wrong)
    return None


def _style_order(plan: RowPlan, rng: random.Random) -> list[str]:
    """The row's styles for its critiques: at most two of each family other than rendering, then renderings."""
    by_family = {}
    for style in plan.styles:
        by_family.setdefault(STYLES[plan.answer.kind][style][0], []).append(style)
    for styles in by_family.values():
        rng.shuffle(styles)
    chosen = by_family.get("arithmetic", [])[:2] + by_family.get("approximation", [])[:2]
    chosen += by_family.get("rendering", [])
    order = [chosen[i % len(chosen)] for i in range(LEAKS_PER_ROW)]
    rng.shuffle(order)
    return order


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Leak and clean critiques of every MATH-500 row, about half of each, deterministic in `seed`."""
    cases = []
    for index, row in enumerate(problems):
        plan = plan_row(index, row)
        rng = random.Random(f"{seed}/{index}")
        for style in _style_order(plan, rng):
            for build in (leak_case, clean_case):
                case = build(plan, style, rng)
                if case:
                    cases.append(case)
    return cases
