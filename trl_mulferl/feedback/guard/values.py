"""The value of an expression and the equality of two values: exact arithmetic on what the guard can evaluate,
math-verify (within a per-call budget) for the rest, and the tolerances of a numeric comparison.
"""

import ast
import contextvars
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy
from math_verify import parse, verify
from sympy.core.facts import InconsistentAssumptions

from ...core.rewards import as_latex_answer, math_verify_timeout
from .normalise import MAX_CANDIDATE_LENGTH
from .text import _MATH_WORDS


# Context of a standalone number or expression, read on the lowercased text around it.
_CONTEXT_CHARS = 60

# What joins a value to a larger one: a digit, letter, decimal point, sign or operator, a subscript or a command.
_OPERATOR_NEARBY = r"(?:(?<!\*)\*(?!\*)|[-+/^_×·÷−±]|\\(?:cdot|times|div|pm|mp))"  # `**` is Markdown bold

# (`\Z`, not `$`, which also matches before a line break: "foo\nx=2, y=4" opens its line)
_PART_OF_VALUE_BEFORE = re.compile(rf"(?:[\w.\\^_]|(?<!\\)\{{|{_OPERATOR_NEARBY}[ \t]*)\Z")

_PART_OF_VALUE_AFTER = re.compile(
    rf"[\w(\[{{^_%]|\.\d|,\d|\\(?!text|mbox|mathrm|q?quad|right|end|rangle|[,;:! )\]}}$])|[ \t]*{_OPERATOR_NEARBY}"
)

# Units a number may be glued to ("15cm"): any other letter glued to it makes another value ("42x").
_UNIT_WORDS = (
    r"(?:cm|mm|km|m|in|ft|yd|mi|kg|g|mg|lb|lbs|oz|s|sec|min|h|hr|hrs|ml|L|cents?|dollars?|degrees?|units?|inches"
    r"|inch|feet|foot|meters?|metres?|miles?|hours?|minutes?|seconds?|days?|years?"
    # a physics answer's units: "1.22 J", "6.62 V", "48 \AA", "3e8 m/s", "0.49 arcsec"
    r"|nm|μm|um|mol|J|kJ|MJ|eV|keV|MeV|GeV|ergs?|V|mV|kV|W|kW|MW|N|kN|Pa|kPa|atm|Hz|kHz|MHz|GHz|K|pc|kpc|Mpc|AU"
    r"|rad|radians?|arcsecs?|arcmin|\\AA|Å)"
)

_FACTOR_BEFORE = re.compile(r"[\d)\]}][ \t]*\((?:[ \t]*\()*[ \t]*\Z")
_FACTOR_AFTER = re.compile(rf"(?:[ \t]*\))+[ \t]*(?:\(|{_OPERATOR_NEARBY})")

_COEFFICIENT_BEFORE = re.compile(r"[\d)][ \t]+\Z")  # not `}`: `\begin{equation} \frac{dM}{dt}`

_BULLET_BEFORE = re.compile(r"(?:^|(?<=\n))[ \t]*[-*•][ \t]+$")

# Expressions are evaluated by rewriting their LaTeX and Unicode spellings to Python and walking the syntax tree:
# exactly with Fractions for arithmetic, in floating point once a root, pi or a variable is involved. Every variable
# takes a fixed generic value, so two expressions in the same variables that agree there are taken as equal.
_FRACTION = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")

_BRACED_ROOT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")

_BRACED_EXPONENT = re.compile(r"\^\s*\{([^{}]*)\}")

_BRACELESS_FRACTION = re.compile(r"\\[dt]?frac\s*(?:\{([^{}]*)\}|(\d))\s*(?:\{([^{}]*)\}|(\d))")

_NTH_ROOT = re.compile(r"\\sqrt\s*\[([^\[\]{}]*)\]\s*\{([^{}]*)\}")

_BRACELESS_ROOT = re.compile(r"\\sqrt\s*(\d)")

_THOUSANDS_SEPARATOR = re.compile(r"(?<=\d)(?:,|\{,\})(?=\d{3}(?!\d))")

_ROOT_SIGN = re.compile(r"√\s*(\d+(?:\.\d+)?)|√")

# A unit after a number: degrees, a word in `\text{}` with its power (`864 \mbox{ inches}^2`), a dollar or percent sign.
_UNIT = re.compile(
    r"\^\s*\{?\s*\\circ\s*\}?|°|\\\$|\\[!,;]"
    r"|(?<=[\d}])\s*\\(?:text|mbox|mathrm|operatorname)\s*\{\s*~?[A-Za-z][A-Za-z ]*\}(?:\^\s*\{?\d\}?)?"
    rf"|(?<=[\d}}])\s*(?:square\s+|cubic\s+|sq\.?\s*)?{_UNIT_WORDS}(?:\^\s*\{{?\d\}}?)?"
    rf"(?:\s*/\s*{_UNIT_WORDS}(?:\^\s*\{{?\d\}}?)?)?$"
)

_PERCENT = re.compile(r"\\?%")  # 35% is 0.35

# Units a value may be converted between, each with its dimension and its size in that dimension's smallest unit:
# "3600 cents" states `\$36`, "1500 square millimeters" states `15 cm^2`, "6 square feet" states `864 inches^2`
_UNIT_SIZES = {
    "cent": ("money", Fraction(1)),
    "dollar": ("money", Fraction(100)),
    "mm": ("length", Fraction(1)),
    "cm": ("length", Fraction(10)),
    "dm": ("length", Fraction(100)),
    "m": ("length", Fraction(1000)),
    "km": ("length", Fraction(10**6)),
    "in": ("length", Fraction("25.4")),
    "ft": ("length", Fraction("304.8")),
    "yd": ("length", Fraction("914.4")),
}
_UNIT_NAME = re.compile(
    r"(?P<power>square[ ]+|sq\.?[ ]*|cubic[ ]+)?"
    r"(?:(?P<cent>cents?|¢)|(?P<dollar>dollars?)|(?P<mm>millimet(?:er|re)s?|mm)|(?P<cm>centimet(?:er|re)s?|cm)|(?P<dm>decimet(?:er|re)s?|dm)"
    r"|(?P<km>kilomet(?:er|re)s?|km)|(?P<m>met(?:er|re)s?|m)|(?P<in>inch(?:es)?|in)|(?P<ft>f(?:oo|ee)t|ft)"
    r"|(?P<yd>yards?|yd))\b(?:[ ]*(?:\^[ ]*\{?[ ]*(?P<exponent>[23])[ ]*\}?|(?P<script>[²³])))?",
    re.IGNORECASE,
)


def _unit_size(name: str) -> tuple[str, int, Fraction] | None:
    """The dimension, power and size of a unit's name (`inches}^2`, "square feet", "cents"), or `None`."""
    match = _UNIT_NAME.match(name)
    if match is None:
        return None
    unit = next(unit for unit in _UNIT_SIZES if match.group(unit))
    power = {"²": 2, "³": 3}.get(match["script"] or "", int(match["exponent"] or 1))
    if match["power"]:
        power = 3 if match["power"].lower().startswith("cubic") else 2
    dimension, size = _UNIT_SIZES[unit]
    return dimension, power, size**power


_BASE_NUMBER = re.compile(r"(?<![\w.])(?P<digits>\d[0-9A-Za-z]*)_\{?(?P<base>\d+)\}?")

_DIGIT_UNDERSCORE = re.compile(r"\d_")

_MIXED_FRACTION = re.compile(
    r"(?<![\d.}^_])(?P<whole>\d+)\s*\\[dt]?frac\s*\{(?P<numerator>\d+)\}\s*\{(?P<denominator>\d+)\}"
)

_MIXED_SLASH = re.compile(r"(?<![\d./^_])(?P<whole>\d+)\s+(?P<numerator>\d+)/(?P<denominator>\d+)(?![\d./])")

_SCIENTIFIC = re.compile(r"(?<=\d)[eE]([-+]?\d+)(?![\w.])")

_PYTHON_SPELLINGS = {
    "\\boxed": "",
    "\\left": "",
    "\\right": "",
    "\\cdot": "*",
    "\\times": "*",
    "\\div": "/",
    "\\sqrt": "sqrt",
    "\\pi": "pi",
    "\\sin": "sin",
    "\\cos": "cos",
    "\\tan": "tan",
    "\\ln": "ln",
    "\\cot": "cot",
    "\\sec": "sec",
    "\\csc": "csc",
    "\\exp": "exp",
    "×": "*",
    "·": "*",
    "÷": "/",
    "−": "-",
    "π": "pi",
    "^": "**",
    "{": "(",
    "}": ")",
}

# The last of letters written together before a power, which binds to it alone: `GM^{2}` is G times M squared
_POWERED_LETTER = re.compile(r"(?<![A-Za-z])(?P<letters>[A-Za-z]+)(?P<last>[A-Za-z])(?=\s*\*\*)")


def _apart_from_its_power(match: re.Match) -> str:
    letters = match.group()
    return letters if letters.lower() in _MATH_WORDS else f"{match['letters']}*{match['last']}"


_IMPLICIT_PRODUCT = re.compile(
    r"(?<=[\d)])\s*(?=[A-Za-z(])|(?<![A-Za-z])(?<=[A-Za-z])\s*(?=\()|(?<=[A-Za-z])\s+(?=[A-Za-z])"
)

_FUNCTIONS = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "cot": lambda x: 1 / math.tan(x),
    "sec": lambda x: 1 / math.cos(x),
    "csc": lambda x: 1 / math.sin(x),
    "ln": math.log,
    "exp": math.exp,
}

# `\log_2 8`, `\log_{3}(x)`: a logarithm in a base, as a quotient of natural ones
_LOG_IN_BASE = re.compile(r"\\log_\s*(?:\{([^{}]*)\}|(\w))\s*(\([^()]*\)|\{[^{}]*\}|\d+(?:\.\d+)?|[A-Za-z])")

# `\sin x`, `\cot 2x`: a function applied without brackets, to the number and letter that follow it
_BARE_ARGUMENT = re.compile(r"\b(sin|cos|tan|cot|sec|csc|ln|exp|sqrt)(?:[ ]+|(?=\d))(\d*\.?\d*[A-Za-z]?)(?![\w(])")

_MAX_POWER_BITS = 4096

_RELATIVE_TOLERANCE = 1e-9

_TEXT_GROUP = re.compile(r"\\(?:text[a-z]*|mbox|mathrm|operatorname|begin|end)\s*\{[^{}]*\}")

_NOT_A_VARIABLE = re.compile(
    r"\\[A-Za-z]+|(?<![A-Za-z])(?:" + "|".join(_MATH_WORDS) + r")(?![A-Za-z])|(?<=\d)[eE](?=[-+]?\d+(?![\w.]))"
)

_VARIABLE = re.compile(r"[A-Za-z](?:_\{[^{}]*\}|_\w)?")

# What marks a number as an approximation: a word or sign before it, an ellipsis or "(rounded)" after it.
_APPROXIMATION_BEFORE = re.compile(
    r"(?:\b(?:about|approximately|approx\.?|roughly|around|nearly|circa|close\s+to)|≈|~|\\approx)[\s$*(]*$"
    # a value worked out in decimals: "numerically the answer is 4.6667", "on a calculator it comes to 4.67"
    r"|\b(?:numerically|numerical\s+value|decimal\s+(?:value|form|expansion|approximation)|calculator)\b[^.;\n]{0,40}$"
)

_APPROXIMATION_AFTER = re.compile(
    r"[\s$*]*(?:\.\.\.|…|\(?\s*(?:rounded|truncated|approx(?:imately|\.)?|to\s+(?:\d+|the)\s+(?:decimal\s+)?"
    r"(?:places|digits(?:\s+shown)?)|to\s+\d+\s+(?:significant\s+(?:figures|digits)|sig\.?\s*figs?|s\.?f\.?)"
    r"|(?:on|from|with)?\s*(?:my|a|the)?\s*calc(?:ulator)?)\b)",  # "1.3333 on my calc"
    re.IGNORECASE,
)


@lru_cache(maxsize=1024)
def _gold(text: str) -> tuple:
    """math-verify's parse of a reference answer."""
    return tuple(parse(as_latex_answer(text), parsing_timeout=math_verify_timeout()))


def _is_whole_value(text: str, start: int, end: int) -> bool:
    r"""Whether `text[start:end]` is a whole value, not a part of a larger one: `\frac{11}{2}` of `-\frac{11}{2}`,
    `90^\circ` of `190^\circ` or `58,500` of `58,5000` is another value, and redacting it would tell the policy how
    its attempt relates to the answer."""
    window = max(0, start - _CONTEXT_CHARS)  # `$` anchors at `start`: a search from 0 would read the whole prefix
    part_of_value_before = _PART_OF_VALUE_BEFORE.search(text, window, start) and not _BULLET_BEFORE.search(
        text, window, start
    )  # "- 3" opening a line is a bullet, no minus sign
    # a number before a root or a constant multiplies it: `2 \sqrt{51}`, "3 π"
    coefficient_before = text[start : start + 1] in ("\\", "√", "π") and _COEFFICIENT_BEFORE.search(
        text, window, start
    )
    # a bracketed factor of a product or a quotient: `2(-13x+3)`, `2((a+5)(b+2))`, `(-13x+3)/2`
    factor = _FACTOR_BEFORE.search(text, window, start) or _FACTOR_AFTER.match(text, end)
    return not (part_of_value_before or coefficient_before or factor or _PART_OF_VALUE_AFTER.match(text, end))


@dataclass
class _Budget:
    """The math-verify comparisons one call of `redact_answer_leak` has made, and those it skipped."""

    checked: set = field(default_factory=set)
    seconds: float = 0.0
    skipped: int = 0


# None outside a call's check of the feedback: `_given` reads a problem once and caches what it finds.
_MATH_VERIFY_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "math_verify_budget", default=None
)


def _decimal_ends(value: Fraction) -> bool:
    """Whether the decimal of `value` ends (its denominator has no prime factor but 2 and 5): 1/8 is 0.125."""
    denominator = value.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    return denominator == 1


def _marked_as_approximation(text: str, start: int, end: int) -> bool:
    """Whether the number at `text[start:end]` is marked as an approximation: "about 4.667", "≈ 4.667", "4.667...",
    "4.67 (rounded)"."""
    window = max(0, start - _CONTEXT_CHARS)
    return bool(_APPROXIMATION_BEFORE.search(text.lower(), window, start) or _APPROXIMATION_AFTER.match(text, end))


def _close(value: Fraction | float, reference: Fraction | float) -> bool:
    if isinstance(value, Fraction) and isinstance(reference, Fraction):
        return value == reference
    return abs(value - reference) <= _RELATIVE_TOLERANCE * max(1.0, abs(reference))


def _variables(text: str) -> frozenset[str]:
    return frozenset(_VARIABLE.findall(_NOT_A_VARIABLE.sub(" ", _TEXT_GROUP.sub(" ", _UNIT.sub("", text)))))


@lru_cache(maxsize=4096)
def _math_verify_equal(candidate: str, reference_text: str) -> bool:
    timeout = math_verify_timeout()
    gold = list(_gold(reference_text))
    parsed = parse(as_latex_answer(candidate), parsing_timeout=timeout) or parse(
        f"${candidate}$", parsing_timeout=timeout
    )
    if not gold or not parsed or _numerically_apart(gold[0], parsed[0]):
        return False
    if _lost_variables(gold[0], reference_text) or _lost_variables(parsed[0], candidate):
        return False
    return verify(gold, parsed, timeout_seconds=timeout)


def _lost_variables(parsed: Any, text: str) -> bool:
    """Whether math-verify read `text`, which has variables, as a real number: a fragment of it
    (`\\hbar \\omega(v+1 / 2)-\\frac{E_{0}^{2} e^{2}}{2 m \\omega^{2}}` as 2), which states nothing of it. Euler's `e`
    and the imaginary `i` are numbers to math-verify."""
    return (
        isinstance(parsed, sympy.Expr)
        and parsed.is_number
        and _is_real(parsed) is True
        and bool(_variables(text) - {"e", "i"})
    )


def _is_real(expression: sympy.Expr) -> bool | None:
    """sympy's `expression.is_real`, or `None` (unknown) where sympy's handlers contradict each other. They do on an
    unevaluated product with a zero factor (math-verify reads `-1 0` as `-1*0*1`: `Mul._eval_is_even` says False), and
    whether the query then raises `InconsistentAssumptions` depends on the order sympy asks them in, which it shuffles:
    about 3% of such queries raised, and `prepare_feedback` dropped the whole feedback."""
    try:
        return expression.is_real
    except InconsistentAssumptions:
        return None


def _numerically_apart(gold: Any, target: Any) -> bool:
    """Two numbers far apart: a test in microseconds that spares math-verify's `verify` (10-20 ms a call)."""
    gold, target = (x.rhs if isinstance(x, sympy.Equality) else x for x in (gold, target))
    if not all(isinstance(x, sympy.Expr) and x.is_number for x in (gold, target)):
        return False
    try:
        gold_value, target_value = complex(gold.evalf()), complex(target.evalf())
    except (TypeError, ValueError, OverflowError):
        return False
    return abs(gold_value - target_value) > 1e-6 * max(1.0, abs(gold_value))


def _value(expression: str, point: int = 0) -> Fraction | float | None:
    """The value of `expression` (`6*7`, `-\\frac{3}{4}`, `2\\sqrt{3}`, `x^2+1` with x at its fixed value, at the
    second of two sets of fixed values with `point=1`), or `None` when it is not plain arithmetic in the spellings
    rewritten to Python (`\\log_2 8`, intervals). A unit after a number (`42^\\circ`, `5.4 \\text{ cents}`, `\\$36`) is
    dropped, a number with a base subscript (`52_8`) is read in its base, a whole number before a proper fraction
    (`1\\frac{4}{5}`, `137 1/2`) is a mixed number."""
    text = _PERCENT.sub("/100", _UNIT.sub("", expression))
    text = _BASE_NUMBER.sub(_in_base, text)
    if _DIGIT_UNDERSCORE.search(text):
        return None  # not a base we read; Python would read `52_80` as 5280
    text = _MIXED_SLASH.sub(_mixed_number, _MIXED_FRACTION.sub(_mixed_number, text))
    text = _LOG_IN_BASE.sub(lambda match: f"(\\ln({match.group(3)})/\\ln({match.group(1) or match.group(2)}))", text)
    text = _ROOT_SIGN.sub(lambda match: f"\\sqrt{{{match.group(1)}}}" if match.group(1) else "\\sqrt", text)
    text = _SCIENTIFIC.sub(r"*10**(\1)", _THOUSANDS_SEPARATOR.sub("", text))
    previous = None
    while text != previous:  # innermost powers, fractions and roots first: `\frac{\sqrt{3}}{3}`, `\frac{\pi^{2}}{8}`
        previous = text
        text = _FRACTION.sub(r"((\1)/(\2))", _BRACED_ROOT.sub(r"sqrt(\1)", _BRACED_EXPONENT.sub(r"**(\1)", text)))
    text = _BRACELESS_FRACTION.sub(
        lambda match: "(({}{})/({}{}))".format(*(group or "" for group in match.groups())), text
    )
    text = _BRACELESS_ROOT.sub(r"\\sqrt{\1}", _NTH_ROOT.sub(r"((\2)**(1/(\1)))", text))
    for spelling, python in _PYTHON_SPELLINGS.items():
        text = text.replace(spelling, python)
    if "\\" in text or len(text) > 2 * MAX_CANDIDATE_LENGTH:
        return None
    text = _POWERED_LETTER.sub(_apart_from_its_power, _BARE_ARGUMENT.sub(r"\1(\2)", text))
    try:
        value = _evaluate(ast.parse(_IMPLICIT_PRODUCT.sub("*", text).strip(), mode="eval").body, point)
    except (SyntaxError, ValueError, TypeError, ArithmeticError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, Fraction) or (isinstance(value, float) and math.isfinite(value)) else None


def _evaluate(node: ast.AST, point: int = 0) -> Fraction | float | complex | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.Constant) and type(node.value) is float:  # from its shortest decimal: 0.1 is 1/10
        return Fraction(repr(node.value)) if math.isfinite(node.value) else None
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.Name) and node.id.isalpha() and node.id.lower() not in _MATH_WORDS:
        return math.prod(_variable_value(letter, point) for letter in node.id)  # "xy" is x times y
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        function, argument = _FUNCTIONS.get(node.func.id), _evaluate(node.args[0], point)
        return None if function is None or argument is None else function(argument)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _evaluate(node.operand, point)
        return None if operand is None else operand if isinstance(node.op, ast.UAdd) else -operand
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _evaluate(node.left, point), _evaluate(node.right, point)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return left + right
    if isinstance(node.op, ast.Sub):
        return left - right
    if isinstance(node.op, ast.Mult):
        return left * right
    if isinstance(node.op, ast.Div):
        return left / right
    if isinstance(node.op, ast.Pow) and isinstance(left, Fraction) and isinstance(right, Fraction):
        if right.denominator != 1:
            return float(left) ** float(right)
        bits = max(left.numerator.bit_length(), left.denominator.bit_length()) * abs(right.numerator)
        return left**right.numerator if bits <= _MAX_POWER_BITS else None
    if isinstance(node.op, ast.Pow):
        return float(left) ** float(right)
    return None


def _variable_value(letter: str, point: int = 0) -> float:
    """A fixed value for each variable, irrational and different for every letter (and for each of two points)."""
    return math.sqrt(2 + ord(letter) + 97 * point) / (3 + point)


def _in_base(match: re.Match) -> str:
    digits, base = match.group("digits"), int(match.group("base"))
    try:
        return str(int(digits, base)) if 2 <= base <= 36 else match.group()
    except ValueError:  # a digit the base does not have
        return match.group()


def _mixed_number(match: re.Match) -> str:
    whole, numerator, denominator = (int(group) for group in match.group("whole", "numerator", "denominator"))
    if not 0 < numerator < denominator:
        return match.group()  # `2\frac{6}{3}` is no mixed number: a product
    return f"({whole * denominator + numerator}/{denominator})"
