"""`redact_answer_leak`, the answer-leak guard (decision 8): the spans that state the reference answer, less what
the problem itself states, replaced by `[redacted]`.
"""

import dataclasses
import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..protocol import warn_once
from .normalise import MAX_CANDIDATE_LENGTH, _normalised, _without_lone_surrogates
from .reference import _Reference, _reference, _reference_texts
from .statements import (
    MAX_MATH_VERIFY_CHECKS,
    MAX_MATH_VERIFY_SECONDS,
    _all_leak_spans,
    _Givens,
    _half_line_spans,
    _states,
)
from .text import _compact, _math_runs, _math_spans, _sides
from .values import _MATH_VERIFY_BUDGET, _Budget, _close


REDACTED = "[redacted]"


def redact_answer_leak(
    feedback: str, reference: Any, *, problem: str | None = None, strict: bool = True
) -> tuple[str, bool]:
    r"""Replace every statement of the reference answer in the feedback with `[redacted]`.

    Statements of the answer:

    - every `\boxed{...}` equivalent to the reference, the expression stated in a math span (`$...$`, `\[...\]`,
      `\(...\)`) or after "answer is" (the last side of an equation there) when it is equivalent, and the reference
      itself wherever it appears verbatim as a whole value when it has at least `MIN_VERBATIM_LEAK_LENGTH`
      characters. A value that only contains the reference's text (`-\frac{11}{2}` for `\frac{11}{2}`, `190^\circ`
      for `90^\circ`) is another value: it is never redacted, nor cut;
    - in plain text and inside math spans, every side of an equation (`x = 42`, `6*7 = 42`, `probability = 1/3`)
      equivalent to the reference;
    - every other standalone number or expression equivalent to the reference (`42`, `0.5` for `\frac{1}{2}`,
      `\sqrt{12}` for `2\sqrt{3}`, "it works out to 7"), whatever words surround it: the guard judges the value, not
      the wording. Step numbers ("Step 2", "response 3") and list markers ("1. ... 2. ...": a number in a marker's
      place next to its neighbour's marker; "Final: 204. Now verify it." states 204) are not statements of a value,
      nor is a count of the attempts the feedback reads ("All 3 attempts failed", "the 4 responses").
      When the problem statement states the value itself (a number anywhere in it, a literal such as `\frac12`, or
      the reference as written; a computation it asks for states nothing), feedback may quote it, and it is
      redacted only as a result statement: after "is", "equals", "gives", any form of a result verb ("gotten",
      "you will find", "that leaves", "I count"), "answer:", a label naming a result ("Outcome: 7"), "####",
      "return", set against the attempt ("Compare your 8 with 7"), "Expected: 7", ... or before "works", "holds",
      "is the answer", "is correct", "is what you should have found", or handed over in an instruction or wanted ("Write 7 as the result", "The box
      needs 7", "Put 7 in the box", "you needed 7.", "Why not 7?"); what the problem gives ("the problem gives 7")
      and the value a step works with ("Dividing by 7 was right") are quotes.
      The cost: a value the problem does not state is redacted where it is no result ("one half of the radius" for
      1/2, "the error is one of sign" for 1);
    - a multiple-choice letter written as a choice ("(C)", "(c)", "[C]", `\textbf{(C)}`, not "part (c)") or a bare
      letter stated as the result or picked ("choose C", "try C"), and its option's words in the problem ("Plane") stated
      as the result; a text answer (`\text{even}`) stated as the result ("Direction: east"), not among alternatives
      ("even or odd"); a half-line (`(-\infty, 0]`) stated as its inequality ("x ≤ 0");
    - a collection read item by item in any notation (`_collection`): a prose list ("3, 5 and 7"), assignments
      ("x = 15 and y = -29"), items each labelled or in its own math span ("x-component -2, y-component -14 and
      z-component -7", "$p = 6$, $q = 31$"), `±`, an inequality chain ("-2 <= x <= 7"), inequalities whose variable
      a second one leaves out ("x > 2 and less than 12", "x < 2 or > 3"; "and" binds before "or"), a list in
      brackets or braces, a vector as a tuple, in rows ("[-2; -14; -7]"), in unit vectors ("-2i - 14j - 7k") or
      with a factor drawn out ("(1/3)(-1, 2, 5)"), `\langle\rangle` or any matrix environment, a matrix as a list
      of rows, in rows ("-1 0; 0 -1") or its rows in prose ("rows (-1, 0) and (0, -1)", "first row -1, 0; second
      row 0, -1"), unions, set-builder conditions joined by "or"; an equation answer
      (`5x - 7y + 11z + 4 = 0`) as a whole equation, up to a factor; a line (`y = 2x + 3`) as its right side or
      rearranged, and `x = 5` as 5 or rearranged (`x - 5 = 0`); a line or plane named by all of its parameters
      ("slope 2 and y-intercept 3"); an interval in brackets less a point ("(0, 36) except 9") or the line outside
      one ("outside [2, 3]"); the identity matrix or its negative by name ("-I", "the negative of the identity
      matrix");
    - arithmetic on stated numbers in words ("one more than 41", "6 times 7", "half of 84", "the difference between
      10 and 3", "50% of 88", "quadruple 16", "the cube of 4", "the quotient of 20 and 5", "the square root of
      4/9"), on an attempt's value ("20 more than your -12", "take your 9 and add 1", "your 30, minus 20"), on math
      spans ("twice $\frac{45}{2}$") and on values with units ("the sum of 22 degrees and 68 degrees", "216 cents ÷
      40") whose result is the reference, and a decimal approximation of an irrational reference to
      `MIN_APPROXIMATION_DIGITS` or more significant digits ("about 4.472" for `2\sqrt{5}`, `$\approx 4.472$`,
      `4.472 \times 10^{0}`, "2.199e1" for `7\pi`; of a rational one whose decimal does not end, marked ("about",
      "numerically", "to 3 significant figures", "(to the digits shown)") or with `MIN_STATED_DIGITS` digits stated
      as the result ("the computation gives 0.09524" for 2/21));
    - a value in another unit of the reference's money, length or area ("1890 cents" for `\$18.90`, "$0.054" for
      `5.4 cents`, "1500 square millimeters" for `15 cm^2`, "6 square feet" for `864 inches^2`);
    - all of these in other shapes: spelled out ("forty-two", "three quarters", "negative five", "one and a half",
      "square root of two", "3 million", "75 percent"; English number words read by `text2num`'s `alpha2digit`), in
      the digits of another script or full-width (Unicode decimal digits and NFKC forms), with invisible characters
      or combining marks inside, with Cyrillic or Greek letters drawn as Latin ones (`\bоxed`), `\framebox` or
      `\fbox` for `\boxed`, `11√2`, `3e6`, `1{,}000`, superscripts, `4½`, a dash as a minus sign, mixed numbers
      (`1\frac{4}{5}`), numbers in a base (`52_8` or `52_{\text{eight}}`, whose digits "52" state it too; `52_{10}`
      is another value), `1{.}25`, "(5, inf)", Markdown code and table cells (`` `7` ``, "| expected | 7 |"),
      units (`90^\circ`, `\$18.90`, "18 dollars and 90 cents", `35\%`), a decimal comma ("4,5"), thousands grouped
      by spaces ("8 000"), a ratio or a chance ("4:3", "3 in 56"), degrees for a multiple of pi ("-30 degrees") and
      a multiple of pi for degrees, or with its digits split by whitespace next to a result cue ("the answer is
      4 2"); in rich text (HTML's references and tags, a JSON string's escapes, MathML, AsciiMath's `frac(a)(b)`;
      `markup_pieces`) and in ten other languages (French, Spanish, Portuguese, German, Italian, Russian, Turkish,
      Chinese, Japanese, Korean: their number words, fractions in words, decimal commas and words for signs, roots
      and lists; `language_pieces`). The original span of each is replaced.

    Arithmetic is compared exactly (`0.5` equals `\frac{1}{2}`, `0.333` does not equal `1/3`), roots, pi, logarithms,
    trigonometric functions and variables numerically, collections item by item, and what only math-verify reads
    (`\binom{5}{2}`) with math-verify, which runs without a timeout off the main thread (its timeouts only work
    there), for at most `MAX_MATH_VERIFY_CHECKS` expressions and `MAX_MATH_VERIFY_SECONDS` per call.

    Args:
        feedback: The feedback text.
        reference: The reference answer: a string, a number, or a list, tuple or set of them (each one checked).
            A worked solution (MATH's `solution` column) is checked for its final answer (`final_answer`). `None`
            or an empty string checks nothing.
        problem: The problem statement: read for a multiple-choice option's words or formula, and, with
            `strict=False`, for the values it states.
        strict: No exemption for what the problem states (the default): every standalone mention of the reference's
            value is redacted, as with `problem=None`. It costs every quote of a number the problem states that
            equals the answer ("Divide by 2 first." for the answer 2 of "Divide 4 by 2."). `False` lets feedback
            quote such a value and redacts it only where it is stated as the result; it misses the statements of
            it that no cue marks ("Try 2.").

    Returns:
        The redacted text and whether anything was redacted.
    """
    references = [_reference(text) for text in _reference_texts(reference)]
    if not references:
        return feedback, False
    feedback, problem = _without_lone_surrogates(feedback), _without_lone_surrogates(problem)
    references = [_as_point(reference, problem) for reference in references]
    givens = [
        _Givens(
            False, False, False, frozenset(), _option_text(problem, reference), _variable_letter(problem, reference)
        )
        if strict
        else _Givens(
            _given(problem, reference),
            _given_digits(problem, reference),
            _given_text(problem, reference),
            _given_expressions(problem, reference),
            _option_text(problem, reference),
            _variable_letter(problem, reference),
        )
        for reference in references
    ]
    # a choice whose option is a formula is stated by that formula too, whatever the problem states
    formulas = {_option_formula(problem, reference) for reference in references} - {None}
    references += [_reference(formula) for formula in sorted(formulas)]
    givens += [_Givens(False, False, False, frozenset(), None, False)] * len(formulas)
    # "2k" is 2000 unless a reference is in k (`2k`, `k^2 + 1`); "2·3" is 2.3 only where a reference can be (a prime
    # factorization writes 6 so)
    normalised = _normalised(
        feedback,
        k_is_thousands=not any("k" in reference.variables for reference in references),
        raised_point=not all(_is_whole(reference) for reference in references),
    )
    budget = _Budget()
    token = _MATH_VERIFY_BUDGET.set(budget)
    try:
        spans = _all_leak_spans(normalised.text, references, givens)
    finally:
        _MATH_VERIFY_BUDGET.reset(token)
    if budget.skipped:
        warn_once(
            f"A feedback text held more expressions only math-verify reads than the answer-leak guard compares in "
            f"one call ({MAX_MATH_VERIFY_CHECKS}, {MAX_MATH_VERIFY_SECONDS} s); it compared the first ones with the "
            "reference and skipped the rest."
        )
    if not spans:
        return feedback, False
    return _replace_spans(feedback, [normalised.original_span(*span) for span in spans]), True


# A problem that asks for a point or an ordered tuple ("Enter the ordered pair $(a,b)$", "Find the point"), and one
# that asks for an interval, whose `(a, b)` would be one
_ASKS_FOR_A_POINT = re.compile(r"\bordered\s+(?:pair|triple|quadruple)|\bpoints?\b|\bcoordinates\b", re.IGNORECASE)

_ASKS_FOR_AN_INTERVAL = re.compile(r"\binterval|\brange\b|\bdomain\b|\bvalues\s+of\b", re.IGNORECASE)


def _is_whole(reference: _Reference) -> bool:
    """Whether `reference` is a whole number without a unit (one in another unit may be a decimal: "0·15 dm²")."""
    return isinstance(reference.value, Fraction) and reference.value.denominator == 1 and reference.unit is None


def _as_point(reference: _Reference, problem: str | None) -> _Reference:
    """The reference as a point when the problem asks for one: its pair is no interval, and a tuple in any brackets
    states it (`[-2, 1]`, a CAS's list or a JSON array, for `(-2,1)`)."""
    collection = reference.collection
    if (
        collection is None
        or collection.kind != "bracketed"
        or not problem
        or not _ASKS_FOR_A_POINT.search(problem)
        or _ASKS_FOR_AN_INTERVAL.search(problem)
    ):
        return reference
    return dataclasses.replace(reference, collection=dataclasses.replace(collection, point=True))


@lru_cache(maxsize=1024)
def _given(problem: str | None, reference: _Reference) -> bool:
    r"""Whether the problem statement states the reference's value: as a number anywhere in it (the 4 of
    `2 \cdot 3 \cdot 4`, which feedback may quote), as a literal (`\frac12`, `\sqrt{53}`, `3\pi`) or the reference
    written as the reference writes it, or, for a half-line, as the same inequality. A computation equal to it
    (`\frac{1}{5}\cdot \frac{8}{7}\div \frac{12}{20}`, `(-k + 4) + (-2 + 3k)`, a power or a logarithm) is what the
    problem asks for: it does not give the value (`_given_expressions`)."""
    if not problem:
        return False
    text = _normalised(problem).text
    if reference.half_line is not None and _half_line_spans(text, reference, given=False):
        return True
    if reference.value is not None and any(
        _close(Fraction(number), reference.value)
        for number in _PROBLEM_NUMBER.findall(text)
        if len(number) <= MAX_CANDIDATE_LENGTH  # no short answer, and past 4,300 digits no int either
    ):
        return True
    written = _compact(reference.text)
    return any(
        _LITERAL.fullmatch(expression) or expression == written
        for expression in _given_expressions(problem, reference)
    )


@lru_cache(maxsize=1024)
def _given_expressions(problem: str | None, reference: _Reference) -> frozenset[str]:
    r"""The standalone expressions of the problem (read as the feedback is, `_compact`) that equal the reference, in
    its math spans or runs, and the equations they are sides of (`\omega^3 = 1`): a quote of one of them in the
    feedback is the problem's text, redacted only as a result statement."""
    if not problem:
        return frozenset()
    text, expressions = _normalised(problem).text, set()
    runs = _math_spans(text) + _math_runs(text)
    for run in runs:
        for start, end in _sides(text, *run)[0]:
            side = text[start:end]
            if (reference.variables or re.search(r"[\d\\]", side)) and _states(side, reference):
                expressions.update((_compact(side), _compact(text[slice(*run)])))
    return frozenset(expressions)


# A number as one literal (no computation on it): `-3`, `4.5`, `\frac12`, `9/2`, `2\sqrt{3}`, `√53`, `3\pi`,
# `\frac{\pi}{6}`, read without spaces.
_UNSIGNED = r"(?:\d+(?:\.\d+)?|\.\d+)"

_ROOT_OR_PI = rf"(?:\\sqrt(?:\{{{_UNSIGNED}\}}|\d)|√{_UNSIGNED}|\\pi|π)"

_LITERAL = re.compile(
    rf"[-+]?(?:{_UNSIGNED}?{_ROOT_OR_PI}|{_UNSIGNED}|{_UNSIGNED}/{_UNSIGNED}"
    rf"|\\[dt]?frac(?:\{{{_UNSIGNED}?{_ROOT_OR_PI}?\}}|\d)(?:\{{{_UNSIGNED}\}}|\d))"
)


def _variable_letter(problem: str | None, reference: _Reference) -> bool:
    """Whether a multiple-choice reference's letter, in lower case, stands alone in the problem: a variable there
    ("For a constant $c$"), which feedback may name as one."""
    return (
        bool(problem and reference.choice)
        and re.search(rf"(?<![A-Za-z\\]){reference.choice.lower()}(?![A-Za-z])", problem) is not None
    )


def _given_text(problem: str | None, reference: _Reference) -> bool:
    """Whether the problem names a text answer ("Is it even, odd, or neither?")."""
    return (
        bool(problem and reference.text_answer)
        and re.search(rf"(?<!\w){re.escape(reference.text_answer)}(?!\w)", problem, re.IGNORECASE) is not None
    )


# A multiple-choice option's label in a problem, its letter to fill in: "(C)", `\textbf{(C)}\ `
_OPTION_LABEL = r"(?:\\textbf\s*\{{\s*)?\(\s*{}\s*\)\s*\}}?(?:\\\s)?"


@lru_cache(maxsize=1024)
def _option_text(problem: str | None, reference: _Reference) -> str | None:
    """The words of a multiple-choice reference's option in the problem ("Plane" of "(C) Plane"); `None` when it has
    none (an option that is a formula)."""
    if not (problem and reference.choice):
        return None
    option = re.search(
        _OPTION_LABEL.format(reference.choice) + r"\s*([A-Za-z][A-Za-z -]*[A-Za-z])\s*(?=\n|\(|\\|$|[.;,$])", problem
    )
    return option.group(1) if option else None


@lru_cache(maxsize=1024)
def _option_formula(problem: str | None, reference: _Reference) -> str | None:
    r"""The formula or number of a multiple-choice reference's option in the problem (`3(1 + r/10)^x = 7` of
    `\textbf{(B)}\ 3(1 + r/10)^x = 7\qquad`); `None` when its option is words (`_option_text`) or absent."""
    if not (problem and reference.choice) or _option_text(problem, reference):
        return None
    option = re.search(
        _OPTION_LABEL.format(reference.choice)
        + r"[ \t]*(?P<formula>[^\n$]+?)[ \t]*(?=\\qquad|\\quad|\$|\n|"
        + _OPTION_LABEL.format("[A-H]")
        + "|$)",
        problem,
    )
    formula = option.group("formula").strip() if option else ""
    return formula if re.search(r"\d", formula) else None


def _given_digits(problem: str | None, reference: _Reference) -> bool:
    """Whether the problem states the digits of a reference in another base (`52` of `52_8`); the value it
    converts (`Express 555 in base 5`) is given, the digits it asks for are not."""
    return bool(problem and reference.digits is not None) and any(
        Fraction(number) == reference.digits for number in _PROBLEM_NUMBER.findall(_normalised(problem).text)
    )


_PROBLEM_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d])")


def _replace_spans(text: str, spans: list[tuple[int, int]]) -> str:
    merged = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces, position = [], 0
    for start, end in merged:
        pieces += [text[position:start], REDACTED]
        position = end
    return "".join(pieces) + text[position:]
