"""The sixteenth independent leak corpus: critiques that state MATH-500's reference answer only indirectly, through
arithmetic on numbers written in the critique or through a decimal approximation, and clean critiques that look the
same but never reach the answer's value.

Method. Each MATH-500 answer whose value is a single number (integers, fractions, decimals, radicals, multiples of pi,
mixed numbers, amounts with units, money or degrees) is parsed into an exact sympy value. A leak writes an arithmetic
phrase whose exact result is that value (n more or less than, sum, difference, product, quotient, half, double,
triple, a third or a quarter of, square, cube, square root, percent of, the attempt's quoted value corrected, the
attempt's answer referred to, a chain of equalities ending in arithmetic, an unsimplified fraction or prime
factorisation), with its operands in digits, English words, LaTeX or Unicode, and units, money and degrees kept on
the quantities. Every operand is computed from the value with sympy and the phrase's result is checked against it
exactly; no operand equals the answer and no phrase writes the answer itself, not even as a numerator ('twice
\\frac{9}{2}' is redrawn for 9). An irrational or non-terminating answer is also stated as a decimal rounded or
truncated to 3-7 significant digits, with or without a marker, in positional or scientific notation. Each phrase sits
in a tutor or grader frame of 1-3 sentences that quotes the attempt's wrong value (derived from the answer: off by
one or by k, doubled, halved, digits reversed, reciprocal, coefficient dropped, squared, times ten) and often a
number of the problem.

Clean critiques use the same frames and operations, but the arithmetic evaluates to something else: the attempt's own
value, a near miss, a number of the reference solution, or a sum, difference or product of two numbers of the
problem; an approximation there is of a different value. Every answer type of MATH-500 gets clean critiques (answers
that are not a single number get only clean ones, quoting the answer with its numbers shifted as the attempt's).

`holds_answer` is this corpus's own checker. It reads every number in a text (digits with or without thousands
separators, decimals, scientific notation, English number words, LaTeX fractions and roots both whole and by their
inner numbers, powers, multiples of pi, Unicode roots and powers), evaluates every LaTeX span, each side of its
equalities and every run of plain arithmetic, applies every one-number operation used here to each of these and every
two-number one to each pair of numbers, and finds the answer when a result equals it in magnitude, or when a number
lies within one unit of the answer's second significant digit (any number for an irrational or non-terminating
answer, a non-integer one otherwise). For an answer that is not a single number it looks for the answer's literal
text and, for pairs, tuples, lists, vectors, intervals, complex and base-n numbers, for any of its numbers beyond 1
in magnitude. A clean critique is redrawn until the checker finds nothing in it; a leak is redrawn until its context
(the text with its stated part replaced by `\\ldots`) holds no number or span that reaches the answer directly.

Families: "arithmetic" (style `<operation>:<notation>`) and "approximation" (style
`approximation:<marker>:<rounded|truncated>:<positional|scientific>`) for leaks, "clean" with the same styles. The
split is "held_out" throughout.

Independence. Written without reading the guard: of the project this used only `load_problems`, `ANSWER_TYPES`,
`answer_type`, `occurrences` and `stated` of `benchmarks/leak_corpus.py` (and their helpers `_strip`,
`_top_level_split` and the path `MATH500`), `tests/conftest.py` for the `shared_data` fixture, and MATH-500's rows.
No other module of `benchmarks/`, nothing of `trl_mulferl/`, `tests/feedback/`, `docs/`, the READMEs or the
changelog, and no other corpus or its tests was opened, and no search about the project was made.
"""

import math
import random
import re
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, localcontext
from functools import cache
from itertools import permutations
from typing import NamedTuple

import sympy
from leak_corpus import answer_type, occurrences


SEED = 0

SINGLE_NUMBER_TYPES = (
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
# Compound answers whose numbers a clean critique keeps away from (a lone coordinate would be half a leak).
COMPONENT_TYPES = (
    "ordered pair",
    "tuple",
    "set/list",
    "matrix/vector",
    "interval",
    "complex number",
    "base-n number",
)
ARITHMETIC_LEAKS_PER_ROW = 7
ARITHMETIC_CLEANS_PER_ROW = 7
APPROXIMATION_LEAKS_PER_ROW = 10
APPROXIMATION_CLEANS_PER_ROW = 6
OTHER_CLEANS_PER_ROW = 6
DRAWS = 40

# Frames: `{claim}` is the slot of the stated value, `{wrong}` the attempt's value, `{given}` a number of the problem.
ARITHMETIC_FRAMES = {
    "grader_verdict": "Incorrect: the response concludes {wrong}. The expected result is {claim}.",
    "tutor_recheck": "Good setup, but your final {wrong} is off. Recheck the last step; it should come to {claim}.",
    "rubric_line": "Final answer {wrong}: no credit. Reference: {claim}.",
    "socratic": "You wrote {wrong}. Try working out {claim} instead. Does that match what the question asks?",
    "margin_note": "Careful with the final arithmetic: {claim}, not {wrong}.",
    "brief": "Answer should be {claim}; you have {wrong}.",
    "hint": "Hint: the number you are after is {claim}. Where did {wrong} come from?",
    "given_reuse": "You used the {given} from the problem correctly, yet ended at {wrong}. Carried through, it gives "
    "{claim}.",
    "peer_review": "Starting from the given {given}, I get {claim}, whereas the attempt reports {wrong}.",
    "grader_partial": "Partial credit for the {given} in the setup. The final {wrong} is wrong: the target is {claim}.",
}
APPROXIMATION_FRAMES = {
    "numeric_check": "Your {wrong} cannot be right: numerically the answer is {claim}.",
    "sanity_check": "A quick sanity check fails. The attempt's {wrong} does not match the expected value, which is "
    "{claim}.",
    "grader_numeric": "Incorrect ({wrong}). Evaluated numerically, the reference comes to {claim}.",
    "calculator": "Plug it into a calculator: the target is {claim}, and {wrong} is not that.",
    "given_numeric": "With the given {given}, the quantity evaluates to {claim}; your {wrong} does not.",
}
FRAMES = ARITHMETIC_FRAMES | APPROXIMATION_FRAMES

APPROXIMATION_MARKERS = (
    "about",
    "approximately",
    "roughly",
    "nearly",
    "approx_sign",
    "latex_approx",
    "tilde",
    "bare",
    "ellipsis",
    "significant_figures",
    "decimal_places",
)

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALES = {"hundred": 100, "thousand": 1000, "million": 1000000}
NUMBER_WORD = "|".join([*ONES, *TENS[2:], *SCALES])
NUMBER_WORDS = re.compile(rf"\b(?:{NUMBER_WORD})(?:[\s-]+(?:{NUMBER_WORD}))*\b")
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
TO_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


# ---------------------------------------------------------------------------------------------------------------
# Numbers in words and LaTeX evaluation


def number_in_words(number: int) -> str:
    """English words for an integer of magnitude below a million: 341 -> 'three hundred forty-one'."""
    if number < 0:
        return "negative " + number_in_words(-number)
    if number < 20:
        return ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return TENS[tens] + ("-" + ONES[ones] if ones else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return ONES[hundreds] + " hundred" + (" " + number_in_words(rest) if rest else "")
    thousands, rest = divmod(number, 1000)
    return number_in_words(thousands) + " thousand" + (" " + number_in_words(rest) if rest else "")


def words_to_number(words: str) -> int:
    """The integer an English number phrase names ('three hundred forty-one' -> 341)."""
    total, current = 0, 0
    for word in re.split(r"[\s-]+", words):
        if word in ONES:
            current += ONES.index(word)
        elif word in TENS:
            current += 10 * TENS.index(word)
        elif word == "hundred":
            current *= 100
        elif word in SCALES:
            total += current * SCALES[word]
            current = 0
    return total + current


def _brace_group(text: str, start: int) -> tuple[str, int] | None:
    """The contents of the brace group opening at `start` (or a single character there) and the index after it."""
    while start < len(text) and text[start] == " ":
        start += 1
    if start >= len(text):
        return None
    if text[start] != "{":
        return text[start], start + 1
    depth = 0
    for position in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[position], 0)
        if depth == 0:
            return text[start + 1 : position], position + 1
    return None


def latex_to_python(latex: str) -> str:
    """A Python expression (names `sqrt`, `pi`) for a LaTeX or Unicode arithmetic expression; units, money and
    degree signs dropped, thousands separators removed."""
    text = latex.replace("\\$", "").replace("$", "").replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    text = re.sub(r"\\left|\\right|\\!|\\,|\\;", "", text)
    text = re.sub(r"\^\s*\{?\\circ\}?|°|\\(?:text|mbox)\{[^}]*\}(?:\^\d)?", "", text)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    text = text.replace("−", "-").replace("×", "*").replace("·", "*").replace("÷", "/").replace("π", "\\pi")
    text = text.replace("\\%", "/100").replace("%", "/100")
    text = re.sub(r"√\s*(\d+(?:\.\d+)?)", r"sqrt(\1)", text)
    text = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+", lambda power: "^{" + power[0].translate(SUPERSCRIPTS) + "}", text)
    while "\\frac" in text or "\\sqrt" in text:
        match = re.search(r"\\(frac|sqrt)", text)
        first = _brace_group(text, match.end())
        if first is None:
            raise ValueError(latex)
        if match[1] == "sqrt":
            text = text[: match.start()] + "sqrt(" + first[0] + ")" + text[first[1] :]
            continue
        second = _brace_group(text, first[1])
        if second is None:
            raise ValueError(latex)
        text = text[: match.start()] + "((" + first[0] + ")/(" + second[0] + "))" + text[second[1] :]
    text = text.replace("\\pi", "pi").replace("\\cdot", "*").replace("\\times", "*").replace("\\div", "/")
    text = text.replace("{", "(").replace("}", ")").replace("^", "**").replace("[", "(").replace("]", ")")
    text = re.sub(r"(?<=[\d)i])\s*(?=sqrt|pi|\()", "*", text)
    text = re.sub(r"(?<=\))\s*(?=\d)", "*", text)
    text = re.sub(r"\s+", "", text)
    if not text or re.sub(r"sqrt|pi|[\d.+\-*/()]", "", text):
        raise ValueError(latex)
    return text


def evaluate(latex: str) -> float | None:
    """The float value of a LaTeX arithmetic expression, or None where it is not one."""
    try:
        expression = latex_to_python(latex)
        if "**" in expression and re.search(r"\*\*\(?\d{3,}", expression):
            return None
        value = eval(expression, {"__builtins__": {}}, {"sqrt": math.sqrt, "pi": math.pi})  # noqa: S307
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError, TypeError, NameError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


# ---------------------------------------------------------------------------------------------------------------
# Answers: exact values and units


def answer_unit(answer: str) -> tuple[str, str, str]:
    """The unit of an answer as (LaTeX prefix, LaTeX suffix, words): ('\\$', '', 'dollars') for money."""
    if "\\$" in answer:
        return "\\$", "", "dollars"
    if "\\circ" in answer:
        return "", "^\\circ", "degrees"
    match = re.search(r"\\(?:text|mbox)\{\s*([^}]*)\}(\^2)?", answer)
    if not match:
        return "", "", ""
    name = match[1].strip()
    words = ("square " + name if match[2] else name).replace("square cm", "square centimeters")
    return "", f"\\text{{ {name}}}" + (match[2] or ""), words


def answer_value(answer: str) -> sympy.Expr | None:
    """The exact value of an answer that is a single number, or None."""
    text = re.sub(r"\\!|\\,|\\\$", "", answer).replace("\\dfrac", "\\frac")
    text = re.sub(r"\^\s*\\circ|\\(?:text|mbox)\{[^}]*\}(?:\^2)?", "", text).strip()
    text = re.sub(r"(?<=\d),\s*(?=\d{3}(?!\d))", "", text)
    mixed = re.fullmatch(r"(\d+)\s*\\frac\{(\d+)\}\{(\d+)\}", text)
    if mixed:
        return sympy.Integer(mixed[1]) + sympy.Rational(int(mixed[2]), int(mixed[3]))
    try:
        return sympy.sympify(latex_to_python(text), rational=True)
    except (ValueError, sympy.SympifyError):
        return None


def decomposed(value: sympy.Expr) -> tuple[sympy.Rational, sympy.Rational, sympy.Expr]:
    """`value` as (rational part, coefficient, base) with base one of 1, sqrt(n), pi, 1/pi."""
    rational, coefficient, base = sympy.Integer(0), sympy.Integer(0), sympy.Integer(1)
    for term in sympy.Add.make_args(sympy.expand(value)):
        factor, rest = term.as_coeff_Mul()
        if rest == 1:
            rational += factor
        else:
            coefficient, base = factor, rest
    return rational, coefficient, base


def is_rational(value: sympy.Expr) -> bool:
    return bool(value.is_Rational)


def terminates(value: sympy.Expr) -> bool:
    """Whether a rational value has a finite decimal expansion."""
    if not is_rational(value):
        return False
    denominator = int(value.q)
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def decimal_string(value: sympy.Rational) -> str:
    """The exact positional decimal of a terminating rational: 5/4 -> '1.25'."""
    with localcontext() as context:
        context.prec = 60
        number = Decimal(int(value.p)) / Decimal(int(value.q))
    return format(number.normalize(), "f")


def _irrational_term(coefficient: sympy.Rational, base: sympy.Expr, notation: str) -> str:
    """A coefficient times sqrt(n), pi or 1/pi, in LaTeX or Unicode."""
    sign = ("−" if notation == "unicode" else "-") if coefficient < 0 else ""
    numerator, denominator = abs(int(coefficient.p)), int(coefficient.q)
    if base == 1 / sympy.pi:
        symbol = "π" if notation == "unicode" else "\\pi"
        if notation == "unicode":
            return f"{sign}{numerator}/" + (f"({denominator}{symbol})" if denominator > 1 else symbol)
        return f"{sign}\\frac{{{numerator}}}{{{denominator if denominator > 1 else ''}{symbol}}}"
    if base == sympy.pi:
        symbol = "π" if notation == "unicode" else "\\pi"
    else:
        radicand = int(base**2)
        symbol = f"√{radicand}" if notation == "unicode" else f"\\sqrt{{{radicand}}}"
    head = f"{numerator if numerator != 1 else ''}{symbol}"
    if denominator == 1:
        return sign + head
    if notation == "unicode":
        return f"{sign}{head}/{denominator}"
    return f"{sign}\\frac{{{head}}}{{{denominator}}}"


def render(value: sympy.Expr, notation: str) -> str | None:
    """`value` written in a notation ('digits', 'words', 'latex', 'unicode'), or None where it has no such form."""
    if value.is_Integer:
        number = int(value)
        if notation == "words":
            return number_in_words(number) if abs(number) < 10**6 else None
        return str(number).replace("-", "−") if notation == "unicode" else str(number)
    if is_rational(value):
        if notation == "words":
            return None
        if terminates(value) and notation in ("digits", "unicode"):
            return decimal_string(value).replace("-", "−" if notation == "unicode" else "-")
        sign = "-" if value < 0 else ""
        numerator, denominator = abs(int(value.p)), int(value.q)
        if notation == "latex":
            return f"{sign}\\frac{{{numerator}}}{{{denominator}}}"
        return f"{sign}{numerator}/{denominator}"
    if notation not in ("latex", "unicode"):
        return None
    rational, coefficient, base = decomposed(value)
    if coefficient == 0 or not (base == sympy.pi or base == 1 / sympy.pi or (base**2).is_Integer):
        return None
    term = _irrational_term(coefficient, base, notation)
    if rational == 0:
        return term
    head = render(rational, notation)
    return f"{head} + {term}" if term[0] not in "-−" else f"{head} {term[0]} {term[1:]}"


def _parenthesised(text: str) -> str:
    """A compound operand in brackets, so that an operation applies to all of it ('(1 + 2\\sqrt{3})'); a hyphen
    inside a number's words ('ninety-three') is no operator."""
    depth = 0
    for position, char in enumerate(text):
        depth += {"{": 1, "(": 1, "}": -1, ")": -1}.get(char, 0)
        spaced = text[position - 1 : position + 2 : 2] == "  "
        if position and depth == 0 and char in "+-−" and (spaced or text[position - 1] in "0123456789})"):
            return f"({text})"
    return text


# ---------------------------------------------------------------------------------------------------------------
# The checker


def _atoms(text: str) -> list[float]:
    """Every number written in `text`, as a float: LaTeX fractions and roots (with a coefficient before and pi
    after) both whole and by the numbers inside them, scientific notation, powers, multiples of pi, Unicode roots and
    powers, slash fractions, digits with or without thousands separators, and English number words."""
    atoms, rest = [], text.replace("−", "-")
    while match := re.search(r"(\d*)\s*\\(?:[dt]?frac|sqrt)", rest):
        end = match.end()
        for _ in range(1 if match[0].endswith("sqrt") else 2):
            group = _brace_group(rest, end)
            end = group[1] if group else end
        end += pi.end() if (pi := re.match(r"\s*\\pi", rest[end:])) else 0
        piece = rest[match.start() : end]
        whole = evaluate(piece)
        atoms += ([whole] if whole is not None else []) + _atoms(re.sub(r"\\[dt]?frac|\\sqrt", " ", piece))
        rest = rest[: match.start()] + " ; " + rest[end:]
    patterns = (
        r"\d+(?:\.\d+)?\s*(?:\\times|×)\s*10\s*(?:\^\s*\{?-?\d+\}?|[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)",
        r"\d(?:\.\d+)?[eE][-+]?\d+",
        r"\d*\s*(?:√\s*\d+|\\pi|π)",
        r"\d+(?:\.\d+)?\s*(?:\^\s*\{?\d+\}?|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)",
        r"\d+/\d+",
        r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\.\d+|\d+",
    )
    for match in re.finditer("|".join(f"(?:{pattern})" for pattern in patterns), rest):
        written = re.sub(
            r"10\s*([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$", lambda sci: "10^{" + sci[1].translate(SUPERSCRIPTS) + "}", match[0]
        )
        written = re.sub(r"[eE]([-+]?\d+)$", r"\\times 10^{\1}", written)
        value = evaluate(written)
        if value is not None:
            atoms.append(value)
    atoms.extend(float(words_to_number(match[0])) for match in NUMBER_WORDS.finditer(text.lower()))
    return atoms


def _math_values(text: str) -> list[float]:
    """The values of the LaTeX math spans of `text` and of each side of their equalities and approximations, and of
    the runs of plain or Unicode arithmetic outside them ('2³ × 3 × 7', '84 ÷ 2')."""
    values = []
    spans = re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", text)
    for span in spans:
        for side in re.split(r"=|\\approx|≈|<|>|\\le|\\ge|;|,\s", span):
            values.append(evaluate(side))
    outside = re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", " ; ", text)
    for run in re.findall(r"[\d.√π⁰¹²³⁴⁵⁶⁷⁸⁹()+\-−×÷·/ ]+", outside):
        run = run.strip(" .")
        if re.search(r"[\d)⁰¹²³⁴⁵⁶⁷⁸⁹π]\s*[+\-−×÷·/]\s*[\d(√π]", run):
            values.append(evaluate(run))
    return [value for value in values if value is not None]


def _unary_results(value: float) -> list[float]:
    """`value` and what the one-number operations of this corpus make of it."""
    results = [value, -value, value / 2, 2 * value, value / 3, 3 * value, value / 4, 4 * value, value / 5]
    if abs(value) < 1e6:
        results += [value**2, value**3]
    if value > 0:
        results.append(math.sqrt(value))
    return results


def _binary_results(first: float, second: float) -> list[float]:
    results = [first + second, first - second, first * second, first * second / 100]
    return results + ([first / second] if second else [])


@cache
def answer_targets(answer: str, problem: str = "") -> tuple[tuple[tuple[float, bool], ...], tuple[str, ...]]:
    """The values a critique must not reach, each with whether it is inexact (irrational or non-terminating, so
    that a nearby integer approximates it), and the literal strings it must not contain, for an answer."""
    kind = answer_type(answer, problem)
    if kind in SINGLE_NUMBER_TYPES:
        value = answer_value(answer)
        return ((float(value), not terminates(value)),), ()
    literal = re.sub(r"\\left|\\right|\\!|\\,|\s|\$|\\text\{|\\mbox\{|[{}]", "", answer)
    if kind not in COMPONENT_TYPES:
        return (), (literal,)
    components = [value for value in _atoms(answer) if abs(value) > 1]
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", literal).groups()
        components = [float(digits), float(int(digits, int(base)))]
    return tuple((component, not component.is_integer()) for component in components), (literal,)


def _same(value: float, target: float) -> bool:
    return abs(value - target) <= 1e-9 * max(1.0, abs(target))


def holds_answer(text: str, answer: str, problem: str = "", operations: bool = True) -> bool:
    """Whether `text` states the answer by this corpus's reading: its literal string (for answers that are not a
    single number), a number equal to it, a number within one unit of its second significant digit (a non-integer
    one, or any one for an irrational or non-terminating answer), an evaluated LaTeX span or run of plain arithmetic,
    or (with `operations`) one of this corpus's operations on one or two of its numbers."""
    targets, literals = answer_targets(answer, problem)
    flat = re.sub(r"\\left|\\right|\\!|\\,|\s|\$|\\text\{|\\mbox\{|[{}]", "", text)
    if any(literal and literal in flat for literal in literals):
        return True
    if literal_words := [literal.lower() for literal in literals if literal.isalpha()]:
        if any(re.search(rf"\b{word}\b", text.lower()) for word in literal_words):
            return True
    atoms = _atoms(text)
    values = atoms + _math_values(text)
    if operations:
        values = [result for value in values for result in _unary_results(value)]
        values += [result for first, second in permutations(atoms, 2) for result in _binary_results(first, second)]
    for target, inexact in targets:
        if any(_same(abs(value), abs(target)) for value in values):
            return True
        nearby = [atom for atom in atoms if target and 0 < abs(abs(atom) - abs(target)) < _second_digit_unit(target)]
        if any(inexact or not atom.is_integer() for atom in nearby):
            return True
    return False


def _second_digit_unit(value: float) -> float:
    """One unit of the second significant digit of `value`: 0.1 for 4.47, 10 for 904.8."""
    return 10.0 ** (math.floor(math.log10(abs(value))) - 1)


# ---------------------------------------------------------------------------------------------------------------
# Arithmetic phrases


class Phrase(NamedTuple):
    """An arithmetic phrase: the stated `part` between `before` and `after` (a LaTeX span's dollars), the exact
    value its operands make (`result`), and for phrases that lean on the attempt, the wrong value they need quoted."""

    operation: str
    notation: str
    before: str
    part: str
    after: str
    result: sympy.Expr
    operands: tuple
    wrong: tuple | None = None


NO_UNIT = ("", "", "")


def _quantity(value: sympy.Expr, notation: str, unit: tuple[str, str, str]) -> str | None:
    """A quantity with the answer's unit: '60^\\circ', '\\$30', '60 degrees'."""
    written = render(value, notation)
    if written is None or not any(unit):
        return written
    prefix, suffix, words = unit
    if notation == "latex":
        return f"{prefix}{_parenthesised(written) if suffix else written}{suffix}"
    return f"{written} {words}"


def _in_span(notation: str, part: str, result, operands, operation: str, wrong=None) -> Phrase:
    """A symbolic phrase, inside a LaTeX span where it is LaTeX (the span's dollars outside the stated part)."""
    dollars = "$" if notation == "latex" else ""
    return Phrase(operation, notation, dollars, part, dollars, result, operands, wrong)


def _operand(value: sympy.Expr, notation: str, unit=NO_UNIT) -> str | None:
    """An operand inside a words phrase: a LaTeX operand in its own span."""
    written = _quantity(value, notation, unit)
    if written is None:
        return None
    return f"${_parenthesised(written)}$" if notation == "latex" else _parenthesised(written)


def _scalar(value: sympy.Expr, notation: str) -> str | None:
    """A unitless count or factor: words in a words phrase, digits otherwise."""
    return render(value, "words" if notation == "words" else "digits")


def _small_offset(rng: random.Random, value: sympy.Expr) -> sympy.Integer:
    """A step a tutor would add or take away: a small integer, or about a tenth of a large value."""
    scale = max(1, int(abs(value)) // 10) if is_rational(value) else 1
    return sympy.Integer(rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, scale, 2 * scale]))


def phrase_offset(value, rng, notation, unit):
    """'one more than 41', '5 less than 47', '$37 + 5$', '60 degrees more than ...'."""
    if not is_rational(value):
        return None
    offset = _small_offset(rng, value)
    above = rng.random() < 0.5
    start = value - offset if above else value + offset
    result = start + offset if above else start - offset
    if notation in ("latex", "unicode"):
        step, base = _quantity(offset, notation, unit), _quantity(start, notation, unit)
        if step is None or base is None:
            return None
        sign = "+" if above else "-" if notation == "latex" else "−"
        return _in_span(notation, f"{base} {sign} {step}", result, (start, offset), "offset")
    step = _operand(offset, notation, NO_UNIT if unit[0] else unit)
    base = _operand(start, notation, unit)
    if step is None or base is None:
        return None
    wording = f"{step} {'more' if above else 'less'} than {base}"
    return Phrase("offset", notation, "", wording, "", result, (start, offset))


def _split(value: sympy.Expr, rng: random.Random) -> tuple[sympy.Expr, sympy.Expr] | None:
    """Two summands of `value`, neither zero nor equal to it; an irrational value is split in its irrational term."""
    rational, coefficient, base = decomposed(value)
    for _ in range(DRAWS):
        if coefficient == 0 and value.is_Integer:
            share = sympy.Integer(rng.randint(-5, max(5, abs(int(value)))))
        elif terminates(value):
            places = len(decimal_string(abs(value)).partition(".")[2])
            share = sympy.Rational(rng.randint(1, max(2, int(abs(value) * 10**places))), 10**places)
        elif coefficient == 0:
            share = value * rng.choice([1, 2, 3, 5, 7]) / rng.choice([4, 8, 10])
        elif coefficient.is_Integer and abs(coefficient) > 1:
            share = sympy.Integer(rng.randint(1, abs(int(coefficient)) - 1) * (1 if coefficient > 0 else -1)) * base
        else:
            share = coefficient * rng.choice([1, 3]) / 4 * base
        first, second = (rational + share, coefficient * base - share) if coefficient else (share, value - share)
        if first not in (0, value) and second not in (0, value):
            return first, second
    return None


def phrase_sum(value, rng, notation, unit):
    """'the sum of 30 and 12', '$\\sqrt{13} + 2\\sqrt{13}$'."""
    summands = _split(value, rng)
    if summands is None:
        return None
    first, second = summands
    if notation in ("latex", "unicode"):
        left, right = _quantity(first, notation, unit), _quantity(second, notation, unit)
        if left is None or right is None:
            return None
        right = f"({right})" if right.startswith(("-", "−")) else right
        return _in_span(notation, f"{_parenthesised(left)} + {right}", first + second, summands, "sum")
    left, right = _operand(first, notation, unit), _operand(second, notation, unit)
    if left is None or right is None:
        return None
    return Phrase("sum", notation, "", f"the sum of {left} and {right}", "", first + second, summands)


def phrase_difference(value, rng, notation, unit):
    """'the difference of 50 and 8', '50 minus 8', '$3\\sqrt{5} - \\sqrt{5}$'."""
    _, coefficient, base = decomposed(value)
    subtrahend = _small_offset(rng, value) * (base if coefficient else 1)
    minuend = value + subtrahend
    if minuend == 0:
        return None
    if notation in ("latex", "unicode"):
        left, right = _quantity(minuend, notation, unit), _quantity(subtrahend, notation, unit)
        if left is None or right is None:
            return None
        sign = "-" if notation == "latex" else "−"
        part = f"{_parenthesised(left)} {sign} {_parenthesised(right)}"
        return _in_span(notation, part, minuend - subtrahend, (minuend, subtrahend), "difference")
    left, right = _operand(minuend, notation, unit), _operand(subtrahend, notation, unit)
    if left is None or right is None:
        return None
    wording = rng.choice(["the difference of {} and {}", "{} minus {}"]).format(left, right)
    return Phrase("difference", notation, "", wording, "", minuend - subtrahend, (minuend, subtrahend))


def phrase_product(value, rng, notation, unit):
    """'6 times 7', 'the product of 6 and 7', '$2 \\cdot 21$', '6 × 7'."""
    if value == 0:
        return None
    if value.is_Integer:
        size = abs(int(value))
        factors = [factor for factor in range(2, min(size, 1000)) if size % factor == 0]
        factor = sympy.Integer(rng.choice(factors or [2]))
    else:
        factor = sympy.Integer(rng.choice([2, 3, 4, 5]))
    other = value / factor
    rational, coefficient, _ = decomposed(other)
    if rational == 0 and abs(coefficient) == 1 or is_rational(other) and other.p == 1 and factor == value.p:
        return None
    multiplier = _scalar(factor, notation)
    if notation in ("latex", "unicode"):
        operand = _quantity(other, notation, unit)
        if operand is None:
            return None
        sign = rng.choice(["\\cdot", "\\times"]) if notation == "latex" else "×"
        part = f"{multiplier} {sign} {_parenthesised(operand)}"
        return _in_span(notation, part, factor * other, (factor, other), "product")
    operand = _operand(other, notation, unit)
    if operand is None:
        return None
    wording = rng.choice(["{} times {}", "the product of {} and {}"]).format(multiplier, operand)
    return Phrase("product", notation, "", wording, "", factor * other, (factor, other))


def phrase_quotient(value, rng, notation, unit):
    """'84 divided by 2', '$\\frac{84}{2}$', '84/2', '84 ÷ 2'; a fraction unsimplified ('\\frac{6}{8}' for 3/4)."""
    if value == 0:
        return None
    rational, coefficient, _ = decomposed(value)
    divisor = sympy.Integer(rng.choice([2, 3, 4, 5, 6, 8, 10])) * sympy.ilcm(rational.q, coefficient.q)
    dividend = value * divisor
    operands = (dividend, divisor)
    if notation == "latex":
        top = _quantity(dividend, "latex", unit)
        return (
            None
            if top is None
            else _in_span(notation, f"\\frac{{{top}}}{{{divisor}}}", dividend / divisor, operands, "quotient")
        )
    if notation == "unicode":
        top = _quantity(dividend, "unicode", unit)
        part = f"{_parenthesised(top)} ÷ {divisor}" if top else None
        return None if part is None else _in_span(notation, part, dividend / divisor, operands, "quotient")
    top = _operand(dividend, notation, unit)
    if top is None:
        return None
    if notation == "digits" and not any(unit) and dividend.is_Integer and rng.random() < 0.4:
        return Phrase("quotient", "slash", "", f"{top}/{divisor}", "", dividend / divisor, operands)
    wording = rng.choice(["{} divided by {}", "the quotient of {} and {}"]).format(top, _scalar(divisor, notation))
    return Phrase("quotient", notation, "", wording, "", dividend / divisor, operands)


FRACTION_WORDS = {2: "half of", 3: "a third of", 4: "a quarter of", 5: "one fifth of"}
MULTIPLE_WORDS = {2: ("twice", "double"), 3: ("three times", "triple"), 4: ("four times", "quadruple")}


def phrase_fraction_of(value, rng, notation, unit):
    """'half of 84', 'a third of 126', 'a quarter of $12\\pi$'."""
    if value == 0 or notation == "words" and not value.is_Integer:
        return None
    divisor = rng.choice(list(FRACTION_WORDS))
    whole = value * divisor
    operand = _operand(whole, notation, unit)
    if operand is None:
        return None
    part = f"{FRACTION_WORDS[divisor]} {operand}"
    return Phrase("fraction_of", notation, "", part, "", whole / divisor, (whole, sympy.Integer(divisor)))


def phrase_multiple(value, rng, notation, unit):
    """'twice 21', 'double 21', 'triple 14', 'three times $\\frac{7}{3}$'."""
    if value == 0:
        return None
    factor = rng.choice(list(MULTIPLE_WORDS))
    share = value / factor
    operand = _operand(share, notation, unit)
    if operand is None:
        return None
    part = f"{rng.choice(MULTIPLE_WORDS[factor])} {operand}"
    return Phrase("multiple", notation, "", part, "", share * factor, (share, sympy.Integer(factor)))


def phrase_power(value, rng, notation, unit):
    """'the square of 7', '$7^2$', '7²', 'the cube of 3', '$\\left(\\frac{2}{3}\\right)^3$'."""
    if any(unit) or not is_rational(value) or value in (0, 1, -1):
        return None
    exponents = [exponent for exponent in (2, 3) if sympy.root(abs(value), exponent).is_Rational]
    exponents = [exponent for exponent in exponents if exponent == 3 or value > 0]
    if not exponents:
        return None
    exponent = rng.choice(exponents)
    root = sympy.root(abs(value), exponent) * (1 if value > 0 else -1)
    operands = (root, sympy.Integer(exponent))
    if notation in ("latex", "unicode"):
        written = render(root, notation)
        if not root.is_Integer or root < 0:
            written = f"\\left({written}\\right)" if notation == "latex" else f"({written})"
        raised = f"{written}^{exponent}" if notation == "latex" else written + str(exponent).translate(TO_SUPERSCRIPT)
        return _in_span(notation, raised, root**exponent, operands, "power")
    written = _operand(root, notation)
    if written is None:
        return None
    part = f"the {'square' if exponent == 2 else 'cube'} of {written}"
    return Phrase("power", notation, "", part, "", root**exponent, operands)


def phrase_root(value, rng, notation, unit):
    """'the square root of 1764', '$\\sqrt{117}$', '√117'."""
    rational, coefficient, base = decomposed(value)
    if any(unit) or value <= 0 or rational and coefficient or base in (sympy.pi, 1 / sympy.pi):
        return None
    square = sympy.expand(value**2)
    if notation == "latex":
        return _in_span(notation, f"\\sqrt{{{render(square, 'latex')}}}", sympy.sqrt(square), (square,), "root")
    if notation == "unicode" and square.is_Integer:
        return _in_span(notation, f"√{square}", sympy.sqrt(square), (square,), "root")
    written = _operand(square, "digits" if notation == "unicode" else notation)
    if written is None:
        return None
    return Phrase("root", notation, "", f"the square root of {written}", "", sympy.sqrt(square), (square,))


PERCENTS = (10, 20, 25, 40, 50, 75, 150, 200)


def phrase_percent(value, rng, notation, unit):
    """'20% of 210', 'twenty-five percent of 168'."""
    if not is_rational(value) or value == 0 or notation in ("latex", "unicode"):
        return None
    percents = [percent for percent in PERCENTS if terminates(value * 100 / percent)]
    if not percents:
        return None
    percent = sympy.Integer(rng.choice(percents))
    whole = value * 100 / percent
    operand = _operand(whole, notation, unit)
    if operand is None:
        return None
    sign = rng.choice(["%", " percent"]) if notation == "digits" else " percent"
    part = f"{_scalar(percent, notation)}{sign} of {operand}"
    return Phrase("percent", notation, "", part, "", percent * whole / 100, (percent, whole))


def phrase_corrected(value, rng, notation, unit):
    """The attempt's quoted value corrected: 'your 203, plus one', 'take your 40 and add 2'."""
    if not is_rational(value) or notation in ("latex", "unicode"):
        return None
    offset = _small_offset(rng, value)
    short = rng.random() < 0.5
    wrong = value - offset if short else value + offset
    step = _operand(offset, notation, NO_UNIT if unit[0] else unit)
    if step is None or wrong == 0:
        return None
    if short:
        wording = rng.choice(["your {w}, plus {k}", "take your {w} and add {k}", "{k} more than your {w}"])
    else:
        wording = rng.choice(["your {w}, minus {k}", "take your {w} and subtract {k}", "{k} less than your {w}"])
    part = wording.format(w=_quantity(wrong, "digits", unit), k=step)
    result = wrong + offset if short else wrong - offset
    how = "short_by_offset" if short else "over_by_offset"
    return Phrase("corrected_attempt", notation, "", part, "", result, (wrong, offset), (how, wrong))


def phrase_answer_reference(value, rng, notation, unit):
    """'your answer minus 5', 'half of your answer' (the attempt's answer quoted elsewhere in the critique)."""
    if value == 0 or notation in ("latex", "unicode"):
        return None
    if is_rational(value) and rng.random() < 0.6:
        offset = _small_offset(rng, value)
        if rng.random() < 0.5:
            wrong, part, how = value + offset, f"your answer minus {_scalar(offset, notation)}", "over_by_offset"
        else:
            wrong, part, how = value - offset, f"your answer plus {_scalar(offset, notation)}", "short_by_offset"
        result = wrong - offset if how == "over_by_offset" else wrong + offset
        return Phrase("answer_reference", notation, "", part, "", result, (wrong, offset), (how, wrong))
    if rng.random() < 0.5:
        wrong = 2 * value
        return Phrase(
            "answer_reference", notation, "", "half of your answer", "", wrong / 2, (wrong,), ("doubled", wrong)
        )
    wrong = value / 2
    return Phrase("answer_reference", notation, "", "twice your answer", "", 2 * wrong, (wrong,), ("halved", wrong))


def phrase_chain(value, rng, notation, unit):
    """A chain of equalities ending in arithmetic: '$\\frac{84}{2} = 40 + 2$'."""
    if notation != "latex":
        return None
    first = phrase_quotient(value, rng, "latex", unit) or phrase_product(value, rng, "latex", unit)
    second = phrase_sum(value, rng, "latex", unit) or phrase_difference(value, rng, "latex", unit)
    if first is None or second is None or first.result != second.result:
        return None
    part = f"{first.part} = {second.part}"
    return _in_span(notation, part, second.result, first.operands + second.operands, "chain")


def phrase_factorisation(value, rng, notation, unit):
    """An integer as its unmultiplied prime factorisation: '$2^{3} \\cdot 3$', '2³ × 3'."""
    if any(unit) or not value.is_Integer or abs(value) < 4 or notation not in ("latex", "unicode"):
        return None
    factors = sympy.factorint(abs(int(value)))
    if sum(factors.values()) < 2:
        return None
    sign = 1 if value > 0 else -1
    result = sign * sympy.Mul(*[sympy.Integer(prime) ** power for prime, power in factors.items()])
    operands = tuple(sympy.Integer(prime) for prime in factors)
    if notation == "latex":
        terms = [f"{prime}^{{{power}}}" if power > 1 else str(prime) for prime, power in sorted(factors.items())]
        return _in_span(notation, "-" * (sign < 0) + " \\cdot ".join(terms), result, operands, "factorisation")
    terms = [
        f"{prime}{str(power).translate(TO_SUPERSCRIPT) if power > 1 else ''}"
        for prime, power in sorted(factors.items())
    ]
    return _in_span(notation, "−" * (sign < 0) + " × ".join(terms), result, operands, "factorisation")


PHRASES = (
    phrase_offset,
    phrase_sum,
    phrase_difference,
    phrase_product,
    phrase_quotient,
    phrase_fraction_of,
    phrase_multiple,
    phrase_power,
    phrase_root,
    phrase_percent,
    phrase_corrected,
    phrase_answer_reference,
    phrase_chain,
    phrase_factorisation,
)
NOTATIONS = ("digits", "words", "latex", "unicode")


def _writes_value(text: str, value: sympy.Expr) -> bool:
    """Whether `text` writes `value` itself in any notation, standing on its own (a numerator '27' in
    '\\frac{27}{4}', '3√13' in '3√13/5'), which would make the phrase a rendering rather than arithmetic."""
    forms = {render(sign * value, notation) for sign in (1, -1) for notation in NOTATIONS}
    forms |= {form.replace("−", "-") for form in forms if form}
    return any(form and occurrences(form, text) for form in forms)


def arithmetic_phrase(value: sympy.Expr, rng: random.Random, unit, makers=PHRASES) -> Phrase | None:
    """An arithmetic phrase whose exact result is `value`, by one of `makers` in a random notation; its operands
    never equal `value`."""
    for _ in range(DRAWS):
        phrase = rng.choice(makers)(value, rng, rng.choice(NOTATIONS), unit)
        if phrase is None:
            continue
        if sympy.expand(phrase.result - value) != 0:
            raise AssertionError(f"{phrase} does not make {value}")
        if all(sympy.expand(operand - value) != 0 for operand in phrase.operands) and not _writes_value(
            phrase.part, value
        ):
            return phrase
    return None


# ---------------------------------------------------------------------------------------------------------------
# Approximations


def approximation_phrase(value: sympy.Expr, rng: random.Random) -> tuple[str, str, str, str]:
    """A decimal approximation of an irrational or non-terminating value to 3-7 significant digits, rounded or
    truncated, positional or scientific, with or without a marker: (style, before, part, after)."""
    exact = Decimal(str(sympy.N(value, 40)))
    magnitude = exact.copy_abs().adjusted()
    marker = rng.choice(APPROXIMATION_MARKERS)
    if marker in ("significant_figures", "decimal_places"):
        rounding = ROUND_HALF_UP
    else:
        rounding = ROUND_DOWN if marker == "ellipsis" or rng.random() < 0.3 else ROUND_HALF_UP
    scientific = marker not in ("ellipsis", "decimal_places") and (
        rng.random() < 0.25 or magnitude >= 6 or magnitude <= -3
    )
    digits = rng.randint(max(3, magnitude + 2), max(7, magnitude + 2)) if not scientific else rng.randint(3, 7)
    with localcontext() as context:
        context.prec = 60
        approximation = exact.quantize(Decimal(1).scaleb(magnitude - digits + 1), rounding=rounding)
    if scientific:
        mantissa = approximation.scaleb(-magnitude)
        form = rng.choice(["latex", "plain", "unicode"])
        if form == "latex":
            written = f"{mantissa} \\times 10^{{{magnitude}}}"
        elif form == "plain":
            written = f"{mantissa}e{magnitude}"
        else:
            written = f"{mantissa} × 10{str(magnitude).translate(TO_SUPERSCRIPT)}"
    else:
        written = format(approximation, "f")
    mode = "rounded" if rounding == ROUND_HALF_UP else "truncated"
    style = f"approximation:{marker}:{mode}:{'scientific' if scientific else 'positional'}"
    places = len(written.partition(".")[2])
    wrapped = {
        "about": ("about ", ""),
        "approximately": ("approximately ", ""),
        "roughly": ("roughly ", ""),
        "nearly": ("nearly ", ""),
        "approx_sign": ("≈ ", ""),
        "latex_approx": ("$\\approx ", "$"),
        "tilde": ("~", ""),
        "bare": ("", ""),
        "ellipsis": ("", "..."),
        "significant_figures": (
            "",
            f" to {number_in_words(len(approximation.as_tuple().digits))} significant figures",
        ),
        "decimal_places": ("", f" to {number_in_words(places)} decimal places"),
    }[marker]
    if scientific and marker != "latex_approx" and "\\times" in written:
        wrapped = (wrapped[0] + "$", "$" + wrapped[1])
    return style, wrapped[0], written, wrapped[1]


# ---------------------------------------------------------------------------------------------------------------
# Wrong values, numbers of the problem and of the solution


def wrong_values(value: sympy.Expr, rng: random.Random) -> list[tuple[str, sympy.Expr]]:
    """Plausible wrong answers derived from `value`, each differing from it: (how, value)."""
    offset = _small_offset(rng, value) if is_rational(value) else sympy.Integer(rng.randint(2, 9))
    candidates = [
        ("off_by_one", value + rng.choice([1, -1])),
        ("off_by_k", value + offset * rng.choice([1, -1])),
        ("doubled", 2 * value),
        ("halved", value / 2),
        ("times_ten", 10 * value),
    ]
    if value.is_Integer and abs(value) >= 10:
        swapped = int(str(abs(int(value)))[::-1]) * (1 if value > 0 else -1)
        candidates.append(("digits_reversed", sympy.Integer(swapped)))
    if is_rational(value) and not value.is_Integer and value != 0:
        candidates.append(("reciprocal", 1 / value))
    rational, coefficient, base = decomposed(value)
    if coefficient not in (0, 1, -1):
        candidates.append(("coefficient_dropped", rational + base))
    if coefficient and (base**2).is_Integer and rational == 0:
        candidates.append(("squared", sympy.expand(value**2)))
    return [(how, wrong) for how, wrong in candidates if sympy.expand(wrong - value) != 0]


def quoted(value: sympy.Expr, kind: str, unit) -> tuple[str, str]:
    """A value quoted as the attempt wrote it, in the answer's own notation: (as in the text, as the `wrong` key)."""
    latex = kind in ("fraction", "radical", "multiple of pi", "mixed number") or bool(unit[1])
    written = render(value, "latex" if latex else "digits")
    if written is None:
        latex, written = True, render(value, "latex")
    written = f"{unit[0]}{_parenthesised(written)}{unit[1]}" if unit[1] else f"{unit[0]}{written}"
    return (f"${written}$" if latex else written), written


def _numbers_of(text: str) -> list[sympy.Rational]:
    """The distinct integers and decimals written in a problem or solution (Asymptote drawings left out)."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", text, flags=re.S)
    found = []
    for written in re.findall(r"(?<![\w.^_{])\d+(?:\.\d+)?(?![\w.]|\^)", text):
        number = sympy.Rational(written)
        if 1 < number < 10**6 and number not in found:
            found.append(number)
    return found


# ---------------------------------------------------------------------------------------------------------------
# Critiques


class Row(NamedTuple):
    """A MATH-500 row as this corpus uses it."""

    index: int
    answer: str
    problem: str
    kind: str
    value: sympy.Expr | None
    unit: tuple
    givens: list
    intermediates: list


def _compose(frame: str, claim: tuple[str, str, str], wrong_written: str, given: str) -> tuple[str, str]:
    """A frame filled in: (text, context), the context with the claim's stated part replaced by `\\ldots`."""
    head, tail = FRAMES[frame].replace("{wrong}", wrong_written).replace("{given}", given).split("{claim}")
    before, part, after = claim
    return head + before + part + after + tail, head + before + "\\ldots" + after + tail


def _case(row: Row, family: str, style: str, frame: str, claim, wrong: tuple[str, str, str], given: str) -> dict:
    """A case of the corpus; `wrong` is the attempt's value (as in the text, as the `wrong` key, how derived)."""
    text, context = _compose(frame, claim, wrong[0], given)
    leak = family != "clean"
    return {
        "family": family,
        "split": "held_out",
        "index": row.index,
        "answer_type": row.kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": leak,
        "written_out": False,
        "parts": [claim[1]] if leak else [],
        "context": context if leak else text,
        "wrong": wrong[1],
        "wrong_how": wrong[2],
    }


def _frame_and_given(row: Row, rng: random.Random, frames: list[str]) -> tuple[str, str]:
    """A frame, and a number of the problem for it to quote (frames that quote one only where the problem has one)."""
    frame = rng.choice(frames if row.givens else [name for name in frames if "{given}" not in FRAMES[name]])
    return frame, render(rng.choice(row.givens), "digits") if row.givens else ""


def _quoted_wrong(row: Row, how: str, wrong: sympy.Expr) -> tuple[str, str, str]:
    """The attempt's value as (in the text, as the `wrong` key, how it was derived)."""
    written, key = quoted(wrong, row.kind, row.unit)
    return written, key, how


def _leak(row: Row, rng: random.Random, maker=None, approximation: bool = False) -> dict | None:
    """A leak critique: the answer stated by `maker`'s arithmetic, or (with `approximation`) by a decimal
    approximation."""
    frames = list(APPROXIMATION_FRAMES if approximation else ARITHMETIC_FRAMES)
    for _ in range(DRAWS):
        if approximation:
            style, *claim = approximation_phrase(row.value, rng)
            forced = None
        else:
            phrase = arithmetic_phrase(row.value, rng, row.unit, (maker,))
            if phrase is None:
                return None
            style, claim, forced = f"{phrase.operation}:{phrase.notation}", phrase[2:5], phrase.wrong
        how, wrong = forced or rng.choice(wrong_values(row.value, rng))
        frame, given = _frame_and_given(row, rng, frames)
        case = _case(
            row,
            "approximation" if approximation else "arithmetic",
            style,
            frame,
            claim,
            _quoted_wrong(row, how, wrong),
            given,
        )
        if not holds_answer(case["context"], row.answer, row.problem, operations=False):
            return case
    return None


def _clean_target(row: Row, rng: random.Random, wrong: sympy.Expr | None) -> sympy.Expr | None:
    """What a clean critique's arithmetic reaches instead of the answer: the attempt's value, a near miss, a number
    of the solution, or two numbers of the problem combined."""
    choices = ["intermediate", "problem_numbers"] + (["attempt", "near_miss"] if row.value is not None else [])
    source = rng.choice(choices)
    if source == "attempt" and wrong is not None:
        return wrong
    if source == "near_miss" or source == "attempt":
        _, coefficient, base = decomposed(row.value)
        step = (sympy.Rational(1, row.value.q) if is_rational(row.value) and not row.value.is_Integer else 1) * (
            base if coefficient else 1
        )
        return row.value + step * rng.choice([2, 3, 4, 5, 7, -2, -3, -4, -5, -7])
    if source == "intermediate" and row.intermediates:
        return rng.choice(row.intermediates)
    if len(row.givens) >= 2:
        first, second = rng.sample(row.givens, 2)
        return rng.choice([first + second, first * second, abs(first - second)])
    return None


def _wrong_for(row: Row, rng: random.Random) -> tuple[sympy.Expr | None, tuple[str, str, str]]:
    """The attempt's wrong answer (its value where it is a single number) quoted as (in the text, as the `wrong`
    key, how it was derived): derived from a single-number answer, or the answer's numbers shifted, or a number."""
    if row.value is not None:
        how, wrong = rng.choice(wrong_values(row.value, rng))
        return wrong, _quoted_wrong(row, how, wrong)
    if re.search(r"\d", row.answer):
        shifted = re.sub(r"\d+", lambda number: str(int(number[0]) + rng.randint(1, 3)), row.answer)
        return None, (f"${shifted}$", shifted, "numbers_shifted")
    number = render(rng.choice(row.givens), "digits") if row.givens else str(rng.randint(2, 60))
    return None, (number, number, "problem_number" if row.givens else "unrelated_number")


def _clean(row: Row, rng: random.Random, approximation: bool) -> dict | None:
    """A clean critique in the same frames: its arithmetic or approximation reaches something else."""
    frames = list(APPROXIMATION_FRAMES if approximation else ARITHMETIC_FRAMES)
    for _ in range(DRAWS):
        wrong, quoted_wrong = _wrong_for(row, rng)
        target = _clean_target(row, rng, wrong)
        if target is None or target == 0:
            continue
        if approximation:
            if terminates(target):
                continue
            style, *claim = approximation_phrase(target, rng)
        else:
            phrase = arithmetic_phrase(target, rng, row.unit)
            if phrase is None:
                continue
            style, claim = f"{phrase.operation}:{phrase.notation}", phrase[2:5]
            if phrase.wrong is not None:
                quoted_wrong = _quoted_wrong(row, *phrase.wrong)
        frame, given = _frame_and_given(row, rng, frames)
        case = _case(row, "clean", style, frame, claim, quoted_wrong, given)
        if not holds_answer(case["text"], row.answer, row.problem):
            return case
    return None


def _row(index: int, problem_row: dict) -> Row:
    """A row with its answer's value and unit, and the numbers of its problem and solution that do not reach the
    answer by themselves."""
    answer, problem = problem_row["answer"], problem_row["problem"]
    kind = answer_type(answer, problem)
    value = answer_value(answer) if kind in SINGLE_NUMBER_TYPES else None
    unit = answer_unit(answer) if kind in SINGLE_NUMBER_TYPES else NO_UNIT

    def harmless(numbers):
        return [number for number in numbers if not holds_answer(render(number, "digits"), answer, problem)]

    givens = harmless(_numbers_of(problem))[:12]
    intermediates = harmless(_numbers_of(problem_row["solution"]))[:12]
    return Row(index, answer, problem, kind, value, unit, givens, intermediates)


def _row_cases(row: Row, rng: random.Random) -> list[dict]:
    """A row's leaks (arithmetic by distinct operations, approximations) and clean critiques."""
    if row.value is None:
        cleans = (_clean(row, rng, approximation=False) for _ in range(OTHER_CLEANS_PER_ROW))
        return [case for case in cleans if case]
    makers = list(PHRASES)
    rng.shuffle(makers)
    cases = []
    for maker in makers:
        if len(cases) == ARITHMETIC_LEAKS_PER_ROW:
            break
        if case := _leak(row, rng, maker):
            cases.append(case)
    cases += [_clean(row, rng, approximation=False) for _ in range(ARITHMETIC_CLEANS_PER_ROW)]
    if not terminates(row.value):
        cases += [_leak(row, rng, approximation=True) for _ in range(APPROXIMATION_LEAKS_PER_ROW)]
        cases += [_clean(row, rng, approximation=True) for _ in range(APPROXIMATION_CLEANS_PER_ROW)]
    return [case for case in cases if case]


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The held-out cases for MATH-500's rows: a pure function of the rows and the seed."""
    cases = []
    for index, problem_row in enumerate(problems):
        cases += _row_cases(_row(index, problem_row), random.Random(f"sixteenth:{seed}:{index}"))
    return cases
