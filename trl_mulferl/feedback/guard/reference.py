"""The reference answer, read once per reference: its final answer (from a worked solution too), its value,
its collection or equation, and the texts it is written as.
"""

import numbers
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy
from math_verify import parse

from ...core.rewards import looks_like_worked_solution, math_verify_timeout
from ...core.schema import boxed_spans
from ..protocol import warn_once
from .collection import _INFINITY, _Collection, _collection, _is_collection
from .normalise import _Normalised, _program_notation
from .text import _compact, _sides
from .values import _BASE_NUMBER, _FRACTION, _gold, _is_real, _lost_variables, _unit_size, _value, _variables


# A multiple-choice reference (MATH's `\text{(C)}`), and a half-line one (`(-\infty, 0]`, `(2, \infty)`).
_CHOICE = re.compile(r"(?:\\text(?:bf)?\s*\{\s*)?\(([A-E])\)(?:\s*\})?|\\text(?:bf)?\s*\{\s*([A-E])\s*\}")

_HALF_LINE = re.compile(
    rf"\(\s*-\s*{_INFINITY}\s*,\s*(?P<upper>[^,()\[\]]+?)\s*(?P<close>[)\]])"
    rf"|(?P<open>[(\[])\s*(?P<lower>[^,()\[\]]+?)\s*,\s*\+?\s*{_INFINITY}\s*\)"
)


@dataclass(frozen=True)
class _Reference:
    text: str
    value: Fraction | float | None  # its value (variables at their fixed values); exact when it is rational
    variables: frozenset[str]
    is_collection: bool  # a tuple, interval, set or list of answers
    choice: str | None = None  # the letter of a multiple-choice answer (`\text{(C)}`)
    half_line: tuple[str, Fraction | float] | None = None  # `(-\infty, 0]` as the inequality `("<=", 0)`
    digits: Fraction | None = None  # the digits of a number in another base (`52_8`: 52), which state it too
    base: str | None = None  # that number as the problem would write it (`52_8`)
    # An equation such as a plane's (`5x - 7y + 11z + 4 = 0`): the value of its left side minus its right side at two
    # points; an equation stating it has a multiple of that difference, and its last side alone is no statement. A
    # line `y = 2x + 3` has one too (`2x - y + 3 = 0` states it), besides the value of its right side.
    equation: tuple[float, float] | None = None
    text_answer: str | None = None  # the words of an answer in words (`\text{even}`, `\text{Evelyn}`)
    collection: "_Collection | None" = None  # a tuple, vector, interval, set or list of answers, read item by item
    degrees: bool = False  # an angle in degrees (`30^\circ`), which a value in radians states too ("pi/6 radians")
    # its unit of money, length or area (`\$18.90`, `15 cm^2`): the dimension, power and size, which a value in
    # another unit of the dimension states too ("1890 cents")
    unit: tuple[str, int, Fraction] | None = None
    # An equation in variables we do not evaluate whose right side is zero or in variables (`m \frac{dv}{dt} + bv = f`,
    # `y' + ry = 0`): only the whole equation states it; its right side alone is also that of a wrong one.
    whole_equation: bool = False


_DEGREES = re.compile(r"\^\s*\{?\s*\\circ|°|\bdeg(?:rees?)?\b")

# An answer in words: `\text{even}`, `\textbf{Navin}`, or a bare word of four letters or more.
_TEXT_ANSWER = re.compile(
    r"\\(?:text(?:bf|rm)?|mbox|mathrm)\s*\{\s*([A-Za-z][A-Za-z' -]+)\}|([A-Za-z]{4,}(?: [A-Za-z]+)*)"
)

_LONE_VARIABLE = re.compile(r"[A-Za-z](?:\([A-Za-z]\))?")  # `y`, `f(x)`: the left side of an answer `y = 2x + 3`


def _reference_texts(reference: Any) -> list[str]:
    if reference is None:
        return []
    if isinstance(reference, (list, tuple, set, frozenset)):
        return list(dict.fromkeys(text for item in reference for text in _reference_texts(item)))
    if isinstance(reference, numbers.Integral) and not isinstance(reference, bool):
        text = str(int(reference))
    elif isinstance(reference, numbers.Rational):
        text = f"{reference.numerator}/{reference.denominator}"
    elif isinstance(reference, numbers.Real) and float(reference).is_integer():
        text = str(int(reference))  # 27.0 -> "27"
    elif isinstance(reference, numbers.Real):
        text = repr(float(reference))
    else:
        text = str(reference)
    if not text.strip():
        return []
    answer = final_answer(text.strip())
    if answer is None:
        warn_once(
            "A reference answer yields no final answer (a worked solution without \\boxed{} that math-verify cannot "
            "parse); the answer-leak guard checks nothing for it. Put the final answer in feedback_reference_column."
        )
    return [] if answer is None else [answer]


@lru_cache(maxsize=1024)
def final_answer(reference: str) -> str | None:
    r"""The final answer a reference states: the reference itself when it is a bare answer; for a worked solution
    (several lines, a `\boxed{}`, a `####` marker or a run of words), its last `\boxed{}`, else the answer
    math-verify extracts from it; `None` when it yields none."""
    if not looks_like_worked_solution(reference):
        return reference
    spans = boxed_spans(reference)
    if spans:
        return spans[-1][2].strip() or None
    parsed = parse(reference, parsing_timeout=math_verify_timeout())  # [expression, the text it was read from]
    answer = str(parsed[1]).strip() if len(parsed) > 1 else ""
    return answer or None


@lru_cache(maxsize=1024)
def _reference(text: str) -> _Reference:
    text = _Normalised(text).rewritten(_program_notation(text)).text  # `np.arcsin(10/13)`, as the feedback is read
    sides, _ = _sides(text, 0, len(text))
    equation = _equation_values(text) if len(sides) == 2 else None
    solved = len(sides) == 2 and _LONE_VARIABLE.fullmatch(text[slice(*sides[0])]) is not None
    if equation is not None and not solved:
        return _Reference(text, None, _variables(text), False, equation=equation)
    if _whole_equation(text, sides) and not solved:
        return _Reference(text, None, _variables(text), False, whole_equation=True)
    # a solved equation keeps its difference of sides: `x = 5` is its value or the equation rearranged (`x - 5 = 0`);
    # `y = 2x + 3` its right side (as math-verify compares) or the line
    if not solved:
        equation = None
    answer = text[slice(*sides[-1])] if sides else text  # "x = 5": the right-hand side, as math-verify compares
    value = _value(answer)
    base = _BASE_NUMBER.fullmatch(answer.strip())
    if value is None:  # what only math-verify reads, such as 42^\circ, 42\% or \log_2 8
        gold = _gold(text)
        expression = gold[0] if gold else None
        if isinstance(expression, sympy.Equality):
            expression = expression.rhs
        if isinstance(expression, sympy.Expr) and expression.is_number and not _lost_variables(expression, answer):
            evaluated = expression.doit()
            if isinstance(evaluated, sympy.Rational):
                value = Fraction(int(evaluated.p), int(evaluated.q))
            elif _is_real(evaluated):
                value = float(evaluated.evalf())
    choice = _CHOICE.fullmatch(answer.strip())
    text_answer = _TEXT_ANSWER.fullmatch(answer.strip())
    return _Reference(
        text,
        value,
        _variables(answer),
        _is_collection(answer),
        choice=(choice.group(1) or choice.group(2)) if choice else None,
        half_line=_half_line(answer),
        collection=_collection(answer) if value is None else None,
        text_answer=None if choice or not text_answer else (text_answer.group(1) or text_answer.group(2)).strip(),
        equation=equation,
        digits=Fraction(base.group("digits"))
        if base and value is not None and base.group("digits").isdigit()
        else None,
        base=answer.strip() if base and value is not None else None,
        degrees=value is not None and _DEGREES.search(answer) is not None,
        unit=None if value is None else _reference_unit(answer),
    )


_REFERENCE_UNIT = re.compile(r"[\d}][ ]*(?P<name>[A-Za-z¢][A-Za-z ]*(?:\^[ ]*\{?[23]\}?|[²³])?)[ ]*$")


def _reference_unit(answer: str) -> tuple[str, int, Fraction] | None:
    r"""The unit of money, length or area an answer is in (`\$18.90`, `864 \mbox{ inches}^2`, `5.4 \text{ cents}`)."""
    if re.match(r"\s*-?\s*\\?\$", answer):
        return _unit_size("dollars")
    unwrapped = re.sub(r"\\(?:text|mbox|mathrm)\s*\{\s*([^{}]*?)\s*\}", r" \1", answer).replace("\\,", " ")
    match = _REFERENCE_UNIT.search(unwrapped)
    return _unit_size(match["name"].strip()) if match else None


def _whole_equation(text: str, sides: list[tuple[int, int]]) -> bool:
    """Whether `text`, with these `sides`, is an equation in variables whose right side is no answer by itself: zero
    (`y' + ry - rx(t) = 0`) or in variables (`m \\frac{dv}{dt} + bv = f`); `\\angle B = 30^\\circ` is its right side."""
    if len(sides) != 2 or not _variables(text[slice(*sides[0])]):
        return False
    right = text[slice(*sides[1])]
    return bool(_variables(right)) or _value(right) == 0


def _equation_sides(text: str) -> frozenset[str] | None:
    """The two sides of the equation `text`, each as `_compact` writes it (a prime as `'`), in either order: how an
    equation we do not evaluate is compared (`0 = y' + ry` states `y^{\\prime} + r y = 0`); `None` when it is none."""
    sides, _ = _sides(text, 0, len(text))
    if len(sides) != 2:
        return None
    return frozenset(_PRIME.sub("'", _compact(text[slice(*side)])) for side in sides)


_PRIME = re.compile(r"\^\s*\{\s*\\prime\s*\}|\^\s*\\prime(?![A-Za-z])|\\prime(?![A-Za-z])|′")


def _equation_values(text: str) -> tuple[float, float] | None:
    """The value of an equation's left side minus its right side at the two points; `None` when it is no equation
    in variables or either side is not plain arithmetic."""
    sides, _ = _sides(text, 0, len(text))
    if len(sides) != 2 or not _variables(text):
        return None
    differences = []
    for point in (0, 1):
        left, right = (_value(text[slice(*side)], point) for side in sides)
        if left is None or right is None:
            return None
        differences.append(float(left - right))
    return (differences[0], differences[1]) if any(differences) else None


_COEFFICIENT = r"\d+(?:\.\d+)?(?:/\d+)?"

_LINEAR_SIDE = re.compile(rf"[+-]?(?:{_COEFFICIENT}[A-Za-z]?|[A-Za-z])(?:[+-](?:{_COEFFICIENT}[A-Za-z]?|[A-Za-z]))*")

_LINEAR_TERM = re.compile(rf"([+-]?)({_COEFFICIENT})?([A-Za-z])?")


@lru_cache(maxsize=256)
def _equation_parameters(text: str) -> dict[str, Fraction | tuple] | None:
    """The parameters that name a linear equation answer: a line's slope and intercept (`y = 2x + 3`: 2, 3), a
    plane's normal vector and constant term (`5x - 7y + 11z + 4 = 0`: (5, -7, 11), 4); `None` for other answers."""
    sides, _ = _sides(text, 0, len(text))
    if len(sides) != 2:
        return None
    coefficients: Counter = Counter()  # of the left side minus the right, by variable ("" for the constant)
    for sign, (start, end) in zip((1, -1), sides, strict=True):
        side = _FRACTION.sub(r"\1/\2", re.sub(r"\s+|\\cdot|\*", "", text[start:end]))  # `-\frac{1}{2}x`
        if not _LINEAR_SIDE.fullmatch(side):
            return None
        for term in _LINEAR_TERM.finditer(side):
            if term.group(2) or term.group(3):
                value = Fraction(term.group(2) or 1) * (-1 if term.group(1) == "-" else 1)
                coefficients[term.group(3) or ""] += sign * value
    variables = sorted(name for name in coefficients if name and coefficients[name])
    if len(variables) == 2 and "y" in variables and "x" in variables:
        return {"slope": -coefficients["x"] / coefficients["y"], "intercept": -coefficients[""] / coefficients["y"]}
    if len(variables) == 3:
        return {"normal": tuple(coefficients[name] for name in variables), "constant": coefficients[""]}
    return None


def _half_line(answer: str) -> tuple[str, Fraction | float] | None:
    match = _HALF_LINE.fullmatch(answer.strip())
    if match is None:
        return None
    if match.group("upper"):
        bound, direction = _value(match.group("upper")), "<=" if match.group("close") == "]" else "<"
    else:
        bound, direction = _value(match.group("lower")), ">=" if match.group("open") == "[" else ">"
    return None if bound is None else (direction, bound)
