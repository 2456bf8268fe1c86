"""Leak corpus `twentyfirst`: critiques written as feedback from checkers, proof assistants and numeric environments.

Method. Each MATH-500 answer is parsed into an exact value (`Value`: a sympy number, a tuple, a set, a matrix, an
interval, an equation, an expression, a choice letter, a word, a base-n numeral or a quantity with a unit). A family
of tool printers writes any such value the way a tool would print it: Lean with Mathlib (`(7 : ℚ) / 2`,
`Real.sqrt 3 / 3`, `Set.Ioc 3 4`, `!![1, 2; 3, 4]`, goals `x = 15 ∧ y = -29`), Isabelle/HOL (`{3<..4}`), Coq
(`7 # 2`, `(15, -29)%Z`), Python (`Fraction(7, 2)`, `Decimal('1.25')`, sympy, numpy), a grader's string and
inequality forms, Octave (`ans = 3.5000`, `[1 2; 3 4]`), R (`[1] 3.5`, `matrix(c(...), nrow = 2)`), Julia (`7//2`,
`√3/3`, `3 + 4im`, `Set([3, 5, 7])`), Maxima (`%pi/4`, `6-5*%i`), Haskell (`7 % 2`) and Mathematica (`Sqrt[3]/3`).
The attempt's wrong value is a mutation of the answer of the same shape (`wrong_values`), printed by the same
printer. Frames are tool transcripts (type mismatches, unsolved goals, pytest and unittest failures, grader logs,
JSON verdicts, REPL sessions, Test.jl failures, hspec output) with a sentence or two of the feedback's own words;
each frame has a leak form, which shows the reference value, and a clean form, which shows the same kind of output
without it (a hidden expectation, a predicate check, an intermediate step) while quoting the wrong value, numbers of
the problem (`{q}`), numbers from the reference solution that differ from the answer (`{m}`) and test case ids.

Families. `rendering`: the answer printed by a tool printer (six per problem, distinct printers where possible).
`approximation`: a decimal approximation to 3 or more significant digits (Octave `format short`, R's seven digits,
Python/Julia floats, "about 4.472") of an answer whose value is irrational or a non-terminating decimal (three per such
problem). `clean`: for every leak, the clean form of the same frame with the same printer. `holds_answer` looks for
the answer in a text by every printer's output, by the exact value of the numbers in the text (integers, decimals,
fractions in every notation above, all components of a composite answer), by decimal approximations, and for
expressions, equations and irrational numbers by parsing the text's formula spans with sympy; clean texts it finds
the answer in are redrawn, and leak texts whose context still holds the answer are redrawn too.

Independence. I read, in `benchmarks/leak_corpus.py`, only the source of `load_problems`, `ANSWER_TYPES`,
`answer_type` (with its helpers `_strip` and `_top_level_split`), `occurrences` and `stated`, and import only
those; I read `tests/conftest.py` for the `shared_data` fixture and MATH-500's rows. I did not open the guard's
package, its tests, its benchmark, the documentation or the other corpora.
"""

import random
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import sympy
from leak_corpus import answer_type, occurrences
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0

RENDERINGS_PER_PROBLEM = 6
APPROXIMATIONS_PER_PROBLEM = 3
DRAWS = 40
TOOL_FRAME_WEIGHT = 3
TRANSFORMATIONS = (*standard_transformations, implicit_multiplication_application, convert_xor)
SYMBOLS = {name: sympy.Symbol(name) for name in "abcdknpqrRxyz"}


# --- values ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """An answer's exact value. `kind` is scalar, units, tuple, set, matrix, interval, equation, expression, choice,
    text or base; `data` holds sympy numbers (tuple: components; set: elements; matrix: rows; interval: pieces
    `(low, high, low_closed, high_closed)`; equation: `(lhs, rhs)`), a letter, a word, or `(digits, base)`."""

    kind: str
    data: tuple
    unit: str = ""
    names: tuple = ()
    decimal: bool = False


def _braced(text: str, start: int) -> tuple[str, int]:
    """The argument of a LaTeX command at `start`: a braced group or one character; and the index after it."""
    while text[start] == " ":
        start += 1
    if text[start] != "{":
        return text[start], start + 1
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[start + 1 : end], end + 1
    raise ValueError(text)


def _python_syntax(latex: str) -> str:
    text = re.sub(r"\\left|\\right|\\[!,]|\\displaystyle", "", latex).replace("\\dfrac", "\\frac")
    out, i = "", 0
    while i < len(text):
        if text.startswith("\\frac", i):
            numerator, i = _braced(text, i + 5)
            denominator, i = _braced(text, i)
            out += f"(({_python_syntax(numerator)})/({_python_syntax(denominator)}))"
        elif text.startswith("\\sqrt", i):
            radicand, i = _braced(text, i + 5)
            out += f"sqrt({_python_syntax(radicand)})"
        elif text.startswith("\\pi", i):
            out, i = out + " pi ", i + 3
        elif text.startswith("\\cot", i):
            out, i = out + " cot ", i + 4
        else:
            out, i = out + {"{": "(", "}": ")"}.get(text[i], text[i]), i + 1
    return out


def latex_value(latex: str, imaginary: bool = False):
    """The sympy value of a MATH-500 LaTeX formula (numbers, fractions, radicals, pi, i, polynomials, cot)."""
    names = {**SYMBOLS, "i": sympy.I} if imaginary else SYMBOLS
    return parse_expr(_python_syntax(latex), local_dict=names, transformations=TRANSFORMATIONS)


def _number(text: str):
    return sympy.Rational(text.replace(",", "")) if "." in text else sympy.Integer(text.replace(",", ""))


def _components(inner: str) -> list:
    values = []
    for item in _top_level_split(inner):
        if "\\pm" in item:
            centre, spread = item.split("\\pm")
            values += [latex_value(centre) - latex_value(spread), latex_value(centre) + latex_value(spread)]
        else:
            values.append(latex_value(item))
    return values


def _top_level_split(text: str) -> list[str]:
    items, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    return [*items, current.strip()]


def _pair_names(problem: str, count: int) -> tuple:
    match = re.search(r"\((\s*[a-zA-Z]\s*(?:,\s*[a-zA-Z]\s*)+)\)", problem)
    if match:
        names = tuple(name.strip() for name in match.group(1).split(","))
        if len(names) == count:
            return names
    return tuple("xyzw"[:count]) if count <= 4 else tuple(f"x{i}" for i in range(count))


def _interval_piece(text: str) -> tuple:
    low, high = _top_level_split(text[1:-1])
    bound = {"-\\infty": -sympy.oo, "\\infty": sympy.oo, "+\\infty": sympy.oo}
    low_value = bound.get(low.replace(" ", ""), None)
    high_value = bound.get(high.replace(" ", ""), None)
    return (
        latex_value(low) if low_value is None else low_value,
        latex_value(high) if high_value is None else high_value,
        text[0] == "[",
        text[-1] == "]",
    )


def parse_answer(answer: str, problem: str) -> Value:
    """The `Value` of a MATH-500 answer, by its `answer_type`."""
    kind = answer_type(answer, problem)
    text = re.sub(r"\\left|\\right|\\!|\\,", "", answer).strip()
    if kind in ("small integer", "negative integer", "large integer"):
        return Value("scalar", (_number(text.replace(" ", "")),))
    if kind == "decimal":
        return Value("scalar", (_number(text),), decimal=True)
    if kind == "mixed number":
        whole, numerator, denominator = re.fullmatch(r"(\d+)\s*\\frac\{?(\d+)\}?\{?(\d+)\}?", text).groups()
        return Value("scalar", (sympy.Integer(whole) + sympy.Rational(int(numerator), int(denominator)),))
    if kind in ("fraction", "radical", "multiple of pi", "complex number"):
        return Value("scalar", (latex_value(text, imaginary=kind == "complex number"),))
    if kind == "units/degrees/money":
        return _units(text)
    if kind in ("ordered pair", "tuple"):
        components = tuple(latex_value(item) for item in _top_level_split(text[1:-1]))
        return Value("tuple", components, names=_pair_names(problem, len(components)))
    if kind == "set/list":
        return Value("set", tuple(sorted(_components(re.sub(r"^\\\{|\\\}$", "", text)), key=float)))
    if kind == "matrix/vector":
        body = re.sub(r"\\(begin|end)\{[pb]matrix\}", "", text)
        rows = tuple(tuple(latex_value(entry) for entry in row.split("&")) for row in body.split("\\\\"))
        return Value("matrix", rows)
    if kind == "interval":
        text = re.sub(r"^x\s*\\in\s*", "", text)
        return Value("interval", tuple(_interval_piece(piece.strip()) for piece in text.split("\\cup")))
    if kind == "equation":
        lhs, rhs = text.split("=")
        return Value("equation", (latex_value(lhs), latex_value(rhs)))
    if kind == "expression":
        return Value("expression", (latex_value(text),))
    if kind == "multiple choice":
        return Value("choice", (re.search(r"[A-H]", text).group(0),))
    if kind == "text answer":
        return Value("text", (re.fullmatch(r"\\text\{(.*)\}", text).group(1),))
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return Value("base", (digits, int(base)))
    raise ValueError(f"no parser for {kind}: {answer}")


def _units(text: str) -> Value:
    if "\\circ" in text:
        return Value("units", (latex_value(text.replace("^\\circ", "")),), unit="°")
    if text.startswith("\\$"):
        return Value("units", (_number(text[2:]),), unit="$", decimal="." in text)
    match = re.fullmatch(r"(.*?)\s*\\(?:text|mbox)\{\s*([a-z]+)\s*\}(\^2)?", text)
    amount = match.group(1).strip()
    number = _number(amount) if re.fullmatch(r"[\d.]+", amount) else latex_value(amount)
    return Value("units", (number,), unit=match.group(2) + (match.group(3) or ""), decimal=True)


def same_value(first: Value, second: Value) -> bool:
    """Whether two values are equal (sets as sets, intervals piecewise, equations up to a nonzero factor)."""
    if first.kind != second.kind or first.unit != second.unit:
        return False
    if first.kind in ("choice", "text"):
        return first.data[0].lower() == second.data[0].lower()
    if first.kind == "base":
        return int(first.data[0], first.data[1]) == int(second.data[0], second.data[1])
    if first.kind == "equation":
        ratio = sympy.cancel((first.data[0] - first.data[1]) / (second.data[0] - second.data[1]))
        return bool(ratio.is_number) and ratio != 0
    if first.kind == "set":
        return set(map(sympy.nsimplify, first.data)) == set(map(sympy.nsimplify, second.data))
    return len(first.data) == len(second.data) and all(
        _equal(a, b) for a, b in zip(_flat(first.data), _flat(second.data), strict=True)
    )


def _flat(data) -> list:
    return [atom for item in data for atom in (_flat(item) if isinstance(item, tuple) else [item])]


def _equal(first, second) -> bool:
    if isinstance(first, bool) or isinstance(second, bool):
        return first is second
    return _vanishes(sympy.sympify(first) - sympy.sympify(second))


SAMPLE_POINTS = (0.37, 1.13, 2.71, -0.83)


def _vanishes(expression) -> bool:
    """Whether an expression is zero, by exact evaluation when it has no symbols and at sample points otherwise."""
    if expression.is_infinite:
        return False
    symbols = sorted(expression.free_symbols, key=str)
    if not symbols:
        return abs(complex(expression.evalf(30))) < 1e-20
    for shift, point in enumerate(SAMPLE_POINTS):
        values = {symbol: point + 0.29 * position + 0.11 * shift for position, symbol in enumerate(symbols)}
        if abs(complex(expression.evalf(30, subs=values))) > 1e-12:
            return False
    return True


# --- wrong values ------------------------------------------------------------------------------------------------


def _scalar_mutations(number) -> list[tuple[object, str]]:
    if number.is_Integer:
        reversed_digits = sympy.Integer(int(str(abs(number))[::-1])) * sympy.sign(number)
        return [
            (number + 1, "plus_one"),
            (number - 1, "minus_one"),
            (-number, "sign_flip"),
            (2 * number, "doubled"),
            (number + 10, "off_by_ten"),
            (reversed_digits, "digits_reversed"),
        ]
    if number.is_Rational:
        numerator, denominator = number.p, number.q
        return [
            (sympy.Rational(numerator + 1, denominator), "numerator_plus_one"),
            (sympy.Rational(numerator, denominator + 1), "denominator_plus_one"),
            (1 / number, "reciprocal"),
            (-number, "sign_flip"),
            (number * 10, "decimal_point_shifted"),
        ]
    if number.has(sympy.I):
        real, imaginary = sympy.re(number), sympy.im(number)
        return [
            (sympy.conjugate(number), "conjugate"),
            (imaginary + real * sympy.I, "parts_swapped"),
            (number + 1, "real_part_plus_one"),
            (number - sympy.I, "imaginary_part_minus_one"),
        ]
    bumped_radicand = number.replace(
        lambda node: node.is_Pow and node.exp == sympy.S.Half, lambda node: sympy.sqrt(node.base + 1)
    )
    return [
        (2 * number, "doubled"),
        (number / 2, "halved"),
        (number + 1, "plus_one"),
        (-number, "sign_flip"),
        (sympy.nsimplify(bumped_radicand), "radicand_plus_one"),
    ]


def wrong_values(value: Value) -> list[tuple[Value, str]]:
    """Mutations of `value` of its own shape, each with the name of how it was derived; all differ in value."""
    kind, data = value.kind, value.data
    candidates: list[tuple[Value, str]] = []
    if kind in ("scalar", "units"):
        candidates = [
            (Value(kind, (new,), value.unit, decimal=value.decimal), how) for new, how in _scalar_mutations(data[0])
        ]
    elif kind in ("tuple", "set"):
        for position, component in enumerate(data):
            for new, how in _scalar_mutations(component)[:2]:
                changed = (*data[:position], new, *data[position + 1 :])
                if kind == "set":
                    changed = tuple(sorted(changed, key=float))
                candidates.append((Value(kind, changed, names=value.names), f"component_{how}"))
        if kind == "tuple":
            candidates.append((Value(kind, data[::-1], names=value.names), "components_reversed"))
        elif len(data) > 1:
            candidates.append((Value(kind, data[1:]), "element_dropped"))
    elif kind == "matrix":
        for row, entries in enumerate(data):
            for column, entry in enumerate(entries):
                for new, how in ((-entry, "entry_sign_flip"), (entry + 1, "entry_plus_one")):
                    rows = [list(line) for line in data]
                    rows[row][column] = new
                    candidates.append((Value(kind, tuple(map(tuple, rows))), how))
    elif kind == "interval":
        for position, (low, high, low_closed, high_closed) in enumerate(data):
            changed = []
            if low.is_finite:
                changed += [
                    ((low - 1, high, low_closed, high_closed), "low_shifted"),
                    ((low - 1, high, not low_closed, high_closed), "low_shifted_and_bracket_flipped"),
                    ((2 * low, high, low_closed, high_closed), "low_doubled"),
                ]
            if high.is_finite:
                changed += [
                    ((low, high + 1, low_closed, high_closed), "high_shifted"),
                    ((low, high + 1, low_closed, not high_closed), "high_shifted_and_bracket_flipped"),
                    ((low, 2 * high, low_closed, high_closed), "high_doubled"),
                ]
            for piece, how in changed:
                candidates.append((Value(kind, (*data[:position], piece, *data[position + 1 :])), how))
    elif kind == "equation":
        lhs, rhs = data
        candidates = [
            (Value(kind, (lhs, rhs + 1)), "constant_plus_one"),
            (Value(kind, (lhs, rhs - 1)), "constant_minus_one"),
            (Value(kind, (lhs, sympy.expand(2 * rhs) if rhs.free_symbols else rhs * 2)), "right_side_doubled"),
        ]
    elif kind == "expression":
        expression = data[0]
        first_symbol = sorted(expression.free_symbols, key=str)[0]
        candidates = [
            (Value(kind, (expression + 1,)), "constant_plus_one"),
            (Value(kind, (expression - 2,)), "constant_minus_two"),
            (Value(kind, (expression.subs(first_symbol, -first_symbol),)), "variable_sign_flip"),
            (Value(kind, (2 * expression,)), "doubled"),
            (Value(kind, (expression.subs(first_symbol, 2 * first_symbol),)), "argument_doubled"),
        ]
    elif kind == "choice":
        candidates = [(Value(kind, (letter,)), "other_choice") for letter in "ABCDE"]
    elif kind == "text":
        candidates = [(Value(kind, (word,)), "other_word") for word in _alternatives(data[0])]
    elif kind == "base":
        digits, base = data
        number = int(digits, base)
        for new, how in ((number + 1, "plus_one"), (number - 1, "minus_one"), (number + base, "second_digit_up")):
            candidates.append((Value(kind, (_to_base(new, base), base)), how))
        candidates.append((Value(kind, (str(number), base)), "decimal_digits_as_base"))
    return [(wrong, how) for wrong, how in candidates if _valid(wrong) and not same_value(wrong, value)]


def _valid(value: Value) -> bool:
    if value.kind == "base":
        return all(int(digit) < value.data[1] for digit in value.data[0])
    if value.kind == "interval":
        return all(low < high for low, high, _, _ in value.data)
    return True


def _to_base(number: int, base: int) -> str:
    digits = ""
    while number:
        digits, number = str(number % base) + digits, number // base
    return digits or "0"


ALTERNATIVE_WORDS = {
    "even": ["odd", "neither"],
    "east": ["west", "north", "south"],
    "ellipse": ["hyperbola", "parabola", "circle"],
}
NAMES = ["Emily", "Derek", "Carla", "Sam", "Nora", "Liam"]


def _alternatives(word: str) -> list[str]:
    return ALTERNATIVE_WORDS.get(word.lower(), [name for name in NAMES if name != word])


# --- tool printers -----------------------------------------------------------------------------------------------


def _is_rational(number) -> bool:
    return bool(number.is_Rational)


def _terminating(number) -> bool:
    if not _is_rational(number):
        return False
    denominator = int(number.q)
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def _decimal(number) -> str:
    """The exact decimal of a terminating rational."""
    fraction = Fraction(int(number.p), int(number.q))
    for places in range(12):
        text = f"{float(fraction):.{places}f}"
        if Fraction(text) == fraction:
            return text
    raise ValueError(number)


def _complex_parts(number) -> tuple[int, int] | None:
    if not number.has(sympy.I):
        return None
    return sympy.re(number), sympy.im(number)


def _complex(number, unit: str, times: str = "") -> str:
    real, imaginary = _complex_parts(number)
    sign = "-" if imaginary < 0 else "+"
    return f"{real} {sign} {abs(imaginary)}{times}{unit}"


def _irrational(number, sqrt: str, pi: str, spaced: bool, power: str = "^") -> str:
    """An irrational number from sympy's `sstr`, respelt: `sqrt` and `pi` are templates for the tool."""
    text = sympy.sstr(number).replace("**", "\x00")
    text = re.sub(r"sqrt\((\d+)\)", lambda match: sqrt.format(match.group(1)), text)
    text = re.sub(r"\bpi\b", pi, text)
    if spaced:
        text = re.sub(r"\s*([*/])\s*", r" \1 ", text)
    return text.replace("\x00", f" {power} " if spaced else power)


@cache
def scalar_text(number, tool: str, decimal: bool = False) -> str | None:
    """`number` (a sympy number) as `tool` prints it, or None where the tool cannot print it exactly."""
    if number.has(sympy.I):
        printers = {
            "lean": lambda: _complex(number, "Complex.I", " * "),
            "isabelle": lambda: f"Complex {sympy.re(number)} ({sympy.im(number)})",
            "python": lambda: f"({_complex(number, 'j').replace(' ', '')})",
            "sympy": lambda: sympy.sstr(number),
            "octave": lambda: _complex(number, "i"),
            "r": lambda: _complex(number, "i").replace(" ", ""),
            "julia": lambda: _complex(number, "im"),
            "maxima": lambda: sympy.sstr(number).replace("I", "%i").replace(" ", ""),
            "mathematica": lambda: sympy.sstr(number),
            "plain": lambda: _complex(number, "i"),
        }
    elif number.is_Integer:
        printers = {"coq": lambda: f"{number}%Z" if number >= 0 else f"({number})%Z"}
        return printers[tool]() if tool in printers else str(number)
    elif _is_rational(number):
        numerator, denominator = number.p, number.q
        if decimal and _terminating(number) and tool in ("python", "julia", "r", "plain", "maxima"):
            return f"Decimal('{_decimal(number)}')" if tool == "python" else _decimal(number)
        printers = {
            "lean": lambda: f"({numerator} : ℚ) / {denominator}",
            "isabelle": lambda: f"{numerator} / {denominator}",
            "coq": lambda: f"{numerator} # {denominator}",
            "python": lambda: f"Fraction({numerator}, {denominator})",
            "julia": lambda: f"{numerator}//{denominator}",
            "haskell": lambda: f"{numerator} % {denominator}" if numerator > 0 else f"({numerator}) % {denominator}",
            "octave": lambda: _octave_short(number) if _octave_exact(number) else f"{numerator}/{denominator}",
            "r": lambda: _decimal(number) if _terminating(number) and len(_decimal(number)) <= 8 else None,
        }
        return printers[tool]() if tool in printers else f"{numerator}/{denominator}"
    else:
        printers = {
            "lean": lambda: _irrational(number, "Real.sqrt {}", "Real.pi", True),
            "isabelle": lambda: _irrational(number, "sqrt {}", "pi", True),
            "coq": lambda: _irrational(number, "sqrt {}", "PI", True),
            "python": lambda: sympy.sstr(number),
            "sympy": lambda: sympy.sstr(number),
            "octave": lambda: _irrational(number, "sqrt({})", "pi", False),
            "julia": lambda: re.sub(r"(\d)\*([√π])", r"\1\2", _irrational(number, "√{}", "π", False)),
            "maxima": lambda: _irrational(number, "sqrt({})", "%pi", False).replace(" ", ""),
            "mathematica": lambda: _irrational(number, "Sqrt[{}]", "Pi", False),
            "plain": lambda: _irrational(number, "sqrt({})", "pi", False),
        }
    return printers[tool]() if tool in printers else None


def _octave_short(number) -> str:
    magnitude = abs(float(number))
    if number.is_Integer:
        return str(number)
    return f"{float(number):.4f}" if 1e-3 <= magnitude < 1e5 else f"{float(number):.4e}"


def _octave_exact(number) -> bool:
    return Fraction(_octave_short(number)) == Fraction(int(number.p), int(number.q))


def _expression_text(expression, tool: str) -> str:
    text = sympy.sstr(expression)
    if tool == "lean":
        text = re.sub(r"\bcot\((\w)\)", r"Real.cot \1", text).replace("**", " ^ ")
        return re.sub(r"(?<=\S)([*/])(?=\S)", r" \1 ", text)
    if tool in ("maxima", "octave", "plain", "isabelle"):
        return text.replace("**", "^")
    if tool == "julia":
        return re.sub(r"(\d)\*([a-zA-Z(])", r"\1\2", text.replace("**", "^"))
    if tool == "mathematica":
        return re.sub(r"\bcot\((\w)\)", r"Cot[\1]", text.replace("**", "^"))
    return text


def _join(items: list[str], separator: str = ", ") -> str:
    return separator.join(items)


Rendered = tuple[str, str]


def _same(text: str | None) -> Rendered | None:
    return None if text is None else (text, text)


def _scalar_style(style: str, value: Value) -> Rendered | None:
    number, decimal = value.data[0], value.decimal
    if style in ("harness_string", "json_string"):
        quote = "'" if style == "harness_string" else '"'
        plain = scalar_text(number, "plain", decimal)
        return f"{quote}{plain}{quote}", plain
    if style == "latex_json":
        latex = sympy.latex(number).replace("\\", "\\\\")
        return latex, latex
    tool = {"lean_cast": "lean", "r_print": "r", "octave_ans": "octave"}.get(style, style)
    text = scalar_text(number, tool, decimal)
    if text is None:
        return None
    if style == "coq" and number.is_Integer:
        return text, str(number)
    if style == "coq" and not _is_rational(number) and not number.has(sympy.I):
        return f"({text})%R", text
    if style == "lean_cast" and number.is_Integer:
        return f"({number} : ℤ)", str(number)
    if style == "r_print":
        return f"[1] {text}", text
    if style == "python" and decimal and _terminating(number) and not number.is_Integer:
        return text, _decimal(number)
    return text, text


SCALAR_STYLES = (
    "lean",
    "lean_cast",
    "isabelle",
    "coq",
    "python",
    "sympy",
    "octave_ans",
    "r_print",
    "julia",
    "maxima",
    "haskell",
    "mathematica",
    "harness_string",
    "latex_json",
)


def _units_style(style: str, value: Value) -> Rendered | None:
    number, unit = value.data[0], value.unit
    if style == "harness_string":
        plain = scalar_text(number, "plain", value.decimal)
        if unit == "$":
            if not _terminating(number):
                return None
            plain = f"{int(number):,}" if number.is_Integer else _decimal(number)
            return f"'${plain}'", plain
        return (f"'{plain}°'" if unit == "°" else f"'{plain} {unit}'"), plain
    if style == "julia_unitful":
        text = scalar_text(number, "julia", value.decimal)
        spelled = {"°": "°", "cents": " cent", "inches^2": " inch^2", "cm^2": " cm^2", "degrees": "°"}
        if unit == "$" or text is None:
            return None
        return f"{text}{spelled[unit]}", text
    if style in ("harness_string", "json_string", "latex_json"):
        return None
    return _scalar_style(style, value)


UNITS_STYLES = ("lean_cast", "python", "octave_ans", "r_print", "julia", "julia_unitful", "maxima", "harness_string")


def _sequence_style(style: str, value: Value) -> Rendered | None:
    tool = {"lean_conj": "lean", "r_print": "r", "octave_ans": "octave", "harness_string": "plain"}.get(style, style)
    items = [scalar_text(component, tool) for component in value.data]
    if None in items:
        return None
    is_set = value.kind == "set"
    integers = all(component.is_Integer for component in value.data)
    if style == "lean_conj":
        if is_set:
            return None
        text = " ∧ ".join(f"{name} = {item}" for name, item in zip(value.names, items, strict=True))
        return f"⊢ {text}", text
    if style == "lean":
        inner = "{" + _join(items) + "}" if is_set else f"({_join(items)})"
        if is_set:
            return f"({inner} : {'Finset ℤ' if integers else 'Set ℝ'})", inner
        return inner, inner
    if style == "coq":
        if not integers:
            return None
        plain = [str(component) for component in value.data]
        inner = f"[{'; '.join(plain)}]" if is_set else f"({_join(plain)})"
        return f"{inner}%Z", inner
    if style == "julia":
        return _same(f"Set([{_join(items)}])" if is_set else f"({_join(items)})")
    if style == "octave_ans":
        return _same(f"[{' '.join(items)}]")
    if style == "r_print":
        inner = " ".join(items)
        return f"[1] {inner}", inner
    if style == "mathematica":
        return _same("{" + _join(items) + "}")
    if style == "maxima":
        return _same("{" + _join(items) + "}" if is_set else f"[{_join(items)}]")
    if style == "harness_string":
        inner = _join(items) if is_set else f"({_join(items)})"
        return f"'{inner}'", inner
    if style == "latex_json":
        latex = _join([sympy.latex(component) for component in value.data])
        inner = (latex if is_set else f"({latex})").replace("\\", "\\\\")
        return inner, inner
    if style in ("python", "sympy", "isabelle", "haskell"):
        if style == "haskell" and not all(component.is_Rational for component in value.data):
            return None
        brackets = ("{", "}") if is_set and style != "haskell" else ("[", "]") if is_set else ("(", ")")
        return _same(brackets[0] + _join(items) + brackets[1])
    return None


SEQUENCE_STYLES = (
    "lean",
    "lean_conj",
    "isabelle",
    "coq",
    "python",
    "sympy",
    "octave_ans",
    "r_print",
    "julia",
    "maxima",
    "haskell",
    "mathematica",
    "harness_string",
    "latex_json",
)


def _matrix_style(style: str, value: Value) -> Rendered | None:
    rows = value.data
    column = all(len(row) == 1 for row in rows)
    if style == "numpy" and not all(entry.is_Integer for row in rows for entry in row):
        return None
    tool = {"numpy": "plain", "octave_ans": "plain", "r_code": "plain", "lean": "plain"}.get(style, style)
    cells = [[scalar_text(entry, tool) for entry in row] for row in rows]
    flat = [cell for row in cells for cell in row]
    if style == "lean":
        if column:
            return _same(f"![{_join(flat)}]")
        return _same("!![" + "; ".join(_join(row) for row in cells) + "]")
    if style == "octave_ans":
        return _same("[" + "; ".join(" ".join(row) for row in cells) + "]")
    if style == "julia":
        if column:
            return _same(f"[{_join(flat)}]")
        return _same("[" + "; ".join(" ".join(row) for row in cells) + "]")
    if style == "r_code":
        if column:
            return _same(f"c({_join(flat)})")
        by_column = [cells[row][col] for col in range(len(cells[0])) for row in range(len(cells))]
        return _same(f"matrix(c({_join(by_column)}), nrow = {len(cells)})")
    if style == "numpy":
        if column:
            return _same(f"array([{_join(flat)}])")
        return _same("array([" + _join(f"[{_join(row)}]" for row in cells) + "])")
    if style == "sympy":
        return _same("Matrix([" + _join(f"[{_join(row)}]" for row in cells) + "])")
    if style == "maxima":
        return _same("matrix(" + _join(f"[{_join(row)}]" for row in cells) + ")")
    if style == "mathematica":
        return _same("{" + _join("{" + _join(row) + "}" for row in cells) + "}")
    if style == "latex_json":
        body = " \\\\ ".join(" & ".join(sympy.latex(entry) for entry in row) for row in rows)
        latex = f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}".replace("\\", "\\\\")
        return latex, latex
    return None


MATRIX_STYLES = ("lean", "octave_ans", "julia", "r_code", "numpy", "sympy", "maxima", "mathematica", "latex_json")

LEAN_INTERVALS = {(True, True): "Icc", (True, False): "Ico", (False, True): "Ioc", (False, False): "Ioo"}
ISABELLE_DOTS = {(True, True): "..", (True, False): "..<", (False, True): "<..", (False, False): "<..<"}


def _atom(text: str) -> str:
    return text if re.fullmatch(r"-?[\w.]+", text) else f"({text})"


def _interval_piece_text(piece: tuple, style: str) -> str:
    low, high, low_closed, high_closed = piece
    tool = {"inequality": "plain", "harness_string": "plain", "latex_json": "plain"}.get(style, style)
    low_text = None if low.is_infinite else scalar_text(low, tool)
    high_text = None if high.is_infinite else scalar_text(high, tool)
    if style == "lean":
        if low_text is None:
            return f"Set.I{'ic' if high_closed else 'io'} {_atom(high_text)}"
        if high_text is None:
            return f"Set.I{'ci' if low_closed else 'oi'} {_atom(low_text)}"
        return f"Set.{LEAN_INTERVALS[low_closed, high_closed]} {_atom(low_text)} {_atom(high_text)}"
    if style == "isabelle":
        if low_text is None:
            return "{.." + ("" if high_closed else "<") + high_text + "}"
        if high_text is None:
            return "{" + low_text + ("" if low_closed else "<") + "..}"
        return "{" + low_text + ISABELLE_DOTS[low_closed, high_closed] + high_text + "}"
    if style == "sympy":
        return sympy.sstr(sympy.Interval(low, high, not low_closed, not high_closed))
    if style == "inequality":
        lower = "" if low_text is None else f"{low_text} {'<=' if low_closed else '<'} "
        upper = "" if high_text is None else f" {'<=' if high_closed else '<'} {high_text}"
        return f"{lower}x{upper}"
    if style == "latex_json":
        low_latex = "-\\infty" if low_text is None else sympy.latex(low)
        high_latex = "\\infty" if high_text is None else sympy.latex(high)
        return f"{'[' if low_closed else '('}{low_latex}, {high_latex}{']' if high_closed else ')'}"
    low_text = "-inf" if low_text is None else low_text
    high_text = "inf" if high_text is None else high_text
    return f"{'[' if low_closed else '('}{low_text}, {high_text}{']' if high_closed else ')'}"


def _interval_style(style: str, value: Value) -> Rendered | None:
    pieces = [_interval_piece_text(piece, style) for piece in value.data]
    if style == "sympy":
        return _same(pieces[0] if len(pieces) == 1 else f"Union({_join(pieces)})")
    if style == "inequality":
        return _same(" or ".join(pieces) if len(pieces) == 1 else " or ".join(f"({piece})" for piece in pieces))
    if style == "harness_string":
        inner = " U ".join(pieces)
        return f"'{inner}'", inner
    if style == "latex_json":
        latex = " \\cup ".join(pieces).replace("\\", "\\\\")
        return latex, latex
    return _same(" ∪ ".join(pieces))


INTERVAL_STYLES = ("lean", "isabelle", "sympy", "inequality", "harness_string", "latex_json")


def _equation_style(style: str, value: Value) -> Rendered | None:
    lhs, rhs = value.data
    tool = {"harness_string": "plain", "latex_json": "plain"}.get(style, style)
    sides = [_expression_text(side, tool) for side in (lhs, rhs)]
    if style == "sympy":
        return _same(f"Eq({sides[0]}, {sides[1]})")
    if style == "mathematica":
        return _same(f"{sides[0]} == {sides[1]}")
    if style == "harness_string":
        return f"'{sides[0]} = {sides[1]}'", f"{sides[0]} = {sides[1]}"
    if style == "latex_json":
        latex = f"{sympy.latex(lhs)} = {sympy.latex(rhs)}".replace("\\", "\\\\")
        return latex, latex
    return _same(f"{sides[0]} = {sides[1]}")


EQUATION_STYLES = ("lean", "isabelle", "sympy", "maxima", "mathematica", "harness_string", "latex_json")


def _expression_style(style: str, value: Value) -> Rendered | None:
    expression = value.data[0]
    if style == "harness_string":
        text = _expression_text(expression, "plain")
        return f"'{text}'", text
    if style == "latex_json":
        latex = sympy.latex(expression).replace("\\", "\\\\")
        return latex, latex
    return _same(_expression_text(expression, style))


EXPRESSION_STYLES = ("lean", "isabelle", "sympy", "octave_ans", "julia", "maxima", "mathematica", "harness_string")


def _word_style(style: str, value: Value) -> Rendered | None:
    word = value.data[0]
    if value.kind == "choice":
        return {
            "harness_string": (f"'({word})'", f"({word})"),
            "json_string": (f'"{word}"', word),
            "lean": (f"Choice.{word}", f"Choice.{word}"),
            "julia": (f":{word}", word),
        }.get(style)
    return {
        "harness_string": (f"'{word}'", word),
        "json_string": (f'"{word}"', word),
        "lean": (f'"{word}"', word),
        "r_print": (f'[1] "{word}"', word),
        "julia": (f'"{word}"', word),
    }.get(style)


WORD_STYLES = ("harness_string", "json_string", "lean", "julia", "r_print")


def _base_style(style: str, value: Value) -> Rendered | None:
    digits, base = value.data
    subscripts = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    return {
        "harness_string": (f"'{digits}'", digits),
        "json_string": (f'"{digits}_{base}"', f"{digits}_{base}"),
        "python": (f"'0o{digits}'", f"0o{digits}") if base == 8 else (f"'{digits}'", digits),
        "mathematica": (f"{digits}{str(base).translate(subscripts)}",) * 2,
        "julia": (f'"{digits}"', digits),
        "octave_ans": (digits, digits),
        "lean": (str(list(digits)),) * 2,
        "r_print": (f"[1] {int(digits, base)}", str(int(digits, base))),
    }.get(style)


BASE_STYLES = ("harness_string", "json_string", "python", "mathematica", "julia", "octave_ans", "lean", "r_print")

STYLE_PRINTERS = {
    "scalar": (SCALAR_STYLES, _scalar_style),
    "units": (UNITS_STYLES, _units_style),
    "tuple": (SEQUENCE_STYLES, _sequence_style),
    "set": (SEQUENCE_STYLES, _sequence_style),
    "matrix": (MATRIX_STYLES, _matrix_style),
    "interval": (INTERVAL_STYLES, _interval_style),
    "equation": (EQUATION_STYLES, _equation_style),
    "expression": (EXPRESSION_STYLES, _expression_style),
    "choice": (WORD_STYLES, _word_style),
    "text": (WORD_STYLES, _word_style),
    "base": (BASE_STYLES, _base_style),
}


@cache
def render(value: Value, style: str) -> Rendered | None:
    """`value` printed in `style`: the text the tool shows and the part of it that states the value; None where
    the style cannot print it."""
    styles, printer = STYLE_PRINTERS[value.kind]
    rendered = printer(style, value) if style in styles else None
    if rendered is not None and style == "latex_json":
        return f'"{rendered[0]}"', rendered[1]
    return rendered


def renderings(value: Value) -> dict[str, Rendered]:
    """Every style that prints `value`, with its text and part."""
    styles, _ = STYLE_PRINTERS[value.kind]
    return {style: rendered for style in styles if (rendered := render(value, style)) is not None}


# --- approximations ----------------------------------------------------------------------------------------------


APPROXIMATION_STYLES = ("octave_short", "r_float", "python_float", "julia_float", "about")


def approximable(value: Value) -> bool:
    """Whether the value is one real number that is irrational or a non-terminating decimal."""
    if value.kind not in ("scalar", "units") or value.data[0].has(sympy.I):
        return False
    return not _terminating(value.data[0])


def approximate(value: Value, style: str) -> Rendered:
    number = float(value.data[0])
    text = {
        "octave_short": f"{number:.4f}" if 1e-3 <= abs(number) < 1e5 else f"{number:.4e}",
        "r_float": f"{number:.7g}",
        "python_float": repr(number),
        "julia_float": repr(number),
        "about": f"{number:.4g}" if abs(number) >= 1e-3 else f"{number:.3e}",
    }[style]
    if style == "r_float":
        return f"[1] {text}", text
    if style == "about":
        return f"about {text}", text
    return text, text


# --- the checker -------------------------------------------------------------------------------------------------


FRACTION_PATTERNS = (
    r"\\frac\{(-?\d+)\}\{(\d+)\}",
    r"-\s*\\frac\{(\d+)\}\{(\d+)\}",
    r"Fraction\((-?\d+),\s*(\d+)\)",
    r"\((-?\d+)\s*:\s*ℚ\)\s*/\s*(\d+)",
    r"\((-?\d+)\)\s*%\s*(\d+)",
    r"(?<![\w.])(-?\d+)\s*(?://|/|%|#)\s*(\d+)(?![\w.])",
)
NUMBER = r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w]|\.\d)"


def numbers_in(text: str) -> list[Fraction]:
    """The exact values of the numbers a text writes: fractions in the notations above, then the remaining
    decimals and integers (comma-grouped ones read both as one number and as a list)."""
    text = re.sub(r"\[1\] ", " ", text)
    values = []
    for position, pattern in enumerate(FRACTION_PATTERNS):
        for match in re.finditer(pattern, text):
            sign = -1 if position == 1 else 1
            values.append(sign * Fraction(int(match.group(1)), int(match.group(2))))
        text = re.sub(pattern, " ", text)
    values += [Fraction(int(match.replace(",", ""))) for match in re.findall(r"(?<![\w.,])\d{1,3}(?:,\d{3})+", text)]
    values += [Fraction(match) for match in re.findall(NUMBER, text)]
    return values


def _approximates(text: str, number: float) -> bool:
    for match in re.findall(NUMBER, text):
        mantissa = re.sub(r"e.*", "", match).lstrip("-").replace(".", "").lstrip("0")
        if len(mantissa) < 3 or "." not in match and "e" not in match:
            continue
        places = len(re.sub(r"e.*", "", match).partition(".")[2])
        exponent = int(match.partition("e")[2] or 0)
        if abs(float(match) - number) <= 1.01 * 10.0 ** (exponent - places):
            return True
    return False


def _formula_spans(text: str) -> list[str]:
    chunks = re.split(r"[\n`'\"]|==|!=|:=|⊢|∧|\bgot\b|\bexpected\b|;|,\s|:\s", text)
    return [chunk.strip() for chunk in chunks if 0 < len(chunk.strip()) <= 70 and re.search(r"[\d+*/^√π-]", chunk)]


@cache
def _parsed(span: str):
    normal = re.sub(r"Real\.|Complex\.|%(?=pi|i\b)", "", span)
    normal = normal.replace("π", "pi").replace("//", "/").replace("Sqrt[", "sqrt(").replace("Cot[", "cot(")
    normal = re.sub(r"√(\d+)", r"sqrt(\1)", normal).replace("]", ")").replace("[", "(")
    normal = re.sub(r"(\d)im\b", r"\1*I", normal)
    if re.search(r"[^\w\s+*/^().=<>-]", normal) or re.search(r"[a-zA-Z]{5,}", normal):
        return None
    sides = normal.split("=") if normal.count("=") == 1 else [normal]
    try:
        names = {**SYMBOLS, "i": sympy.I, "I": sympy.I}
        return tuple(parse_expr(side, local_dict=names, transformations=TRANSFORMATIONS) for side in sides)
    except Exception:  # noqa: BLE001 - a span that is not a formula
        return None


def _formula_holds(text: str, value: Value) -> bool:
    for span in _formula_spans(text):
        parsed = _parsed(span)
        if not parsed:
            continue
        if value.kind == "equation" and len(parsed) == 2:
            candidate = Value("equation", parsed)
            if (parsed[0] - parsed[1]) != 0 and same_value(candidate, value):
                return True
        elif value.kind != "equation" and len(parsed) == 1:
            if _vanishes(parsed[0] - value.data[0]):
                return True
    return False


@cache
def _signatures(value: Value) -> tuple[str, ...]:
    """The parts of every rendering of the value, longest first."""
    return tuple(sorted({part for _, part in renderings(value).values()}, key=len, reverse=True))


def _components_of(value: Value) -> list:
    if value.kind == "interval":
        return [bound for low, high, _, _ in value.data for bound in (low, high) if bound.is_finite]
    return _flat(value.data) if value.kind != "units" else [value.data[0]]


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def holds_answer(text: str, value: Value) -> bool:
    """Whether `text` states `value` in any notation this corpus renders, by its exact value, or approximately."""
    compact = _compact(text)
    for part in _signatures(value):
        if occurrences(part, text) or (
            len(part) > 3 and not re.fullmatch(r"[\d.,-]+", part) and _compact(part) in compact
        ):
            return True
    if value.kind in ("choice", "text"):
        pattern = r"(?<![A-Za-z])" + re.escape(value.data[0]) + r"(?![A-Za-z])"
        return bool(re.search(pattern, text, flags=0 if value.kind == "choice" else re.IGNORECASE))
    if value.kind == "base":
        digits, base = value.data
        return bool(occurrences(digits, text)) or Fraction(int(digits, base)) in numbers_in(text)
    if value.kind in ("equation", "expression"):
        return _formula_holds(text, value)
    components = _components_of(value)
    irrational = [component for component in components if not component.is_Rational]
    if value.kind == "scalar" and irrational and _formula_holds(text, value):
        return True
    if value.kind in ("scalar", "units") and not irrational and _approximates(text, float(components[0])):
        return True
    found = Counter(numbers_in(text))
    needed = Counter(Fraction(int(c.p), int(c.q)) for c in components if c.is_Rational)
    return all(found[number] >= count for number, count in needed.items()) and all(
        _component_found(text, component) for component in irrational
    )


def _component_found(text: str, component) -> bool:
    """Whether an irrational or complex component of a value is written in the text, exactly or approximately."""
    parts = {part for _, part in renderings(Value("scalar", (component,))).values()}
    if any(occurrences(part, text) for part in parts):
        return True
    return not component.has(sympy.I) and _approximates(text, float(component))


# --- frames ------------------------------------------------------------------------------------------------------


STYLE_TOOLS = {
    "lean": "lean",
    "lean_cast": "lean",
    "lean_conj": "lean",
    "isabelle": "isabelle",
    "coq": "coq",
    "python": "python",
    "sympy": "python",
    "numpy": "python",
    "python_float": "python",
    "octave_ans": "octave",
    "octave_short": "octave",
    "r_print": "r",
    "r_code": "r",
    "r_float": "r",
    "julia": "julia",
    "julia_unitful": "julia",
    "julia_float": "julia",
    "maxima": "maxima",
    "haskell": "haskell",
    "mathematica": "mathematica",
    "harness_string": "grader",
    "inequality": "grader",
    "json_string": "json",
    "latex_json": "json",
    "about": "summary",
}
TOOL_NAMES = {
    "lean": "Lean",
    "isabelle": "Isabelle",
    "coq": "Coq",
    "python": "pytest",
    "octave": "Octave",
    "r": "R",
    "julia": "Julia",
    "maxima": "Maxima",
    "haskell": "GHCi",
    "mathematica": "Mathematica",
    "grader": "the grader",
    "json": "the grading service",
}

# Each frame: (id, tool, leak form, clean form). Slots: {v} the reference value as the tool prints it, {w} the
# attempt's value in the same print, {q} a number of the problem, {m} a number of the reference solution that
# differs from the answer, {k} a test case id, {tool} the tool's name. Tool "any" frames take every print.
FRAMES = (
    (
        "lean_type_mismatch",
        "lean",
        "Lean rejects your proof:\n```\nerror: type mismatch\n  h\nhas type\n  ans = {w} : Prop\n"
        "but is expected to have type\n  ans = {v} : Prop\n```\nYour computation with {q} gives {w}, "
        "which does not close the goal.",
        "Lean rejects your proof:\n```\nerror: type mismatch\n  h\nhas type\n  ans = {w} : Prop\n"
        "but is expected to have type\n  ans = target : Prop\n```\nYour computation with {q} gives {w}, "
        "which does not close the goal.",
    ),
    (
        "lean_unsolved_goals",
        "lean",
        "The checker ran `norm_num` on your last step and reports:\n```\nerror: unsolved goals\nh₁ : step = {m}\n"
        "⊢ {w} = {v}\n```\nThe intermediate value {m} is fine, but your final claim is false.",
        "The checker ran `norm_num` on your last step and reports:\n```\nerror: unsolved goals\nh₁ : step = {m}\n"
        "⊢ ans = {w}\n```\nThe intermediate value {m} is fine, but `norm_num` cannot prove your final claim.",
    ),
    (
        "lean_theorem",
        "lean",
        "The formal statement the checker uses is\n```lean\ntheorem target : ans = {v} := by norm_num\n```\n"
        "Your submission states `ans = {w}` instead, so `decide` fails on it after the step with {q}.",
        "The checker compiled your statement\n```lean\ntheorem target : ans = {w} := by norm_num\n```\n"
        "and it fails with `linarith failed` after the step with {q}; the value in the statement is wrong.",
    ),
    (
        "isabelle_failed",
        "isabelle",
        "Isabelle: Failed to finish proof\ngoal (1 subgoal):\n  1. ans = {w} ⟹ ans = {v}\n"
        "Sledgehammer finds nothing because the two sides differ; the lemma about {q} is used correctly.",
        "Isabelle: Failed to finish proof\ngoal (1 subgoal):\n  1. ans = {w}\n"
        "Sledgehammer finds nothing; the lemma about {q} is used correctly, the final value is off.",
    ),
    (
        "coq_unify",
        "coq",
        'Coq says: Unable to unify "{v}" with "{w}". Your `reflexivity` cannot succeed; recheck the step '
        "after the one that uses {q}.",
        'Coq says: In environment H : step = {m}, the term "eq_refl" has type "ans = ans" while it is expected '
        'to have type "ans = {w}". Your `reflexivity` cannot succeed.',
    ),
    (
        "pytest_assert",
        "python",
        "```\n>       assert solve() == {v}\nE       assert {w} == {v}\nE        +  where {w} = solve()\n```\n"
        "Your function returns {w}; the input {q} is handled correctly, so the error is in the last step.",
        "```\n>       assert check(solve())\nE       assert False\nE        +  where False = check({w})\n```\n"
        "Your function returns {w}; the input {q} is handled correctly, so the error comes after {m}.",
    ),
    (
        "unittest_failure",
        "python",
        "FAIL: test_answer (test_solution.TestAnswer)\nAssertionError: {w} != {v}\n"
        "The harness compares your return value with the stored answer; your helper for {q} passes.",
        "FAIL: test_answer (test_solution.TestAnswer)\nAssertionError: {w} is rejected by check_answer\n"
        "The harness compares your return value with the stored answer; your helper for {q} passes.",
    ),
    (
        "expected_got",
        "any",
        "Expected: {v}, got: {w}\nYour function returns {w} but the test expects {v}. The helper step with "
        "input {q} passes.",
        "Expected: <hidden>, got: {w}\nYour function returns {w}, which the test rejects. The helper step with "
        "input {q} passes and returns {m}.",
    ),
    (
        "output_diff",
        "any",
        "The output diff (`-` expected, `+` yours):\n```\n  step: {m}\n- {v}\n+ {w}\n```\nOnly the last line differs.",
        "The output diff (`-` expected, `+` yours, expected values masked):\n```\n  step: {m}\n- ****\n+ {w}\n```\n"
        "Only the last line differs.",
    ),
    (
        "grader_log",
        "grader",
        "[PASS] case {k}: step value {m}\n[FAIL] final: expected {v} got {w}\nOne case fails; the data {q} is read "
        "correctly.",
        "[PASS] case {k}: step value {m}\n[FAIL] final: got {w} (expected value withheld)\nOne case fails; the "
        "data {q} is read correctly.",
    ),
    (
        "json_verdict",
        "json",
        '{{"verdict": "wrong", "expected": {v}, "got": {w}, "case": {k}}}\nThe grader marks your final answer wrong.',
        '{{"verdict": "wrong", "got": {w}, "case": {k}, "checked_steps": ["{m}"]}}\nThe grader marks your '
        "final answer wrong.",
    ),
    (
        "octave_session",
        "octave",
        "Octave says:\n```\n>> reference\nans = {v}\n>> yours\nans = {w}\n```\nThe two differ, so the last step "
        "of your script is wrong.",
        "Octave says:\n```\n>> step\nans = {m}\n>> yours\nans = {w}\n```\nThe step value is right, the last "
        "step of your script is not.",
    ),
    (
        "r_console",
        "r",
        "In R, `isTRUE(all.equal(answer, key))` is FALSE:\n```\n> key\n{v}\n> answer\n{w}\n```\n"
        "The input {q} is read correctly.",
        "In R, `isTRUE(all.equal(answer, key))` is FALSE:\n```\n> step\n[1] {m}\n> answer\n{w}\n```\n"
        "The input {q} is read correctly.",
    ),
    (
        "julia_test",
        "julia",
        "Julia's test fails:\n```\nTest Failed at solve_test.jl\n  Expression: solve() == {v}\n"
        "   Evaluated: {w} == {v}\n```\nThe input {q} is parsed correctly.",
        "Julia's test fails:\n```\nTest Failed at solve_test.jl\n  Expression: check(solve())\n"
        "   Evaluated: check({w})\n```\nThe input {q} is parsed correctly.",
    ),
    (
        "maxima_session",
        "maxima",
        "Maxima, after `ratsimp`:\n```\n(%i1) reference;\n(%o1) {v}\n(%i2) attempt;\n(%o2) {w}\n```\n"
        "`is(equal(reference, attempt))` returns false.",
        "Maxima, after `ratsimp`:\n```\n(%i1) step;\n(%o1) {m}\n(%i2) attempt;\n(%o2) {w}\n```\n"
        "`is(equal(reference, attempt))` returns false.",
    ),
    (
        "hspec_failure",
        "haskell",
        "The hspec suite fails:\n```\n  solution\n    final value FAILED\n  expected: {v}\n   but got: {w}\n```",
        "The hspec suite fails:\n```\n  solution\n    final value FAILED\n  predicate failed on: {w}\n```\n"
        "The property for input {q} passes.",
    ),
    (
        "mathematica_check",
        "mathematica",
        "Mathematica's `FullSimplify[attempt - reference]` is not zero: reference is `{v}`, your attempt is `{w}`.",
        "Mathematica's `FullSimplify[attempt - reference]` is not zero: your attempt is `{w}`, your step gives "
        "`{m}` as it should.",
    ),
    (
        "summary_expected",
        "any",
        "The checker reports a mismatch: it expects {v}, but your last line evaluates to {w}. The setup with {q} "
        "is right.",
        "The checker reports a mismatch: your last line evaluates to {w}, which fails the check. The setup with "
        "{q} is right and the intermediate {m} is verified.",
    ),
    (
        "summary_verdict",
        "any",
        "Verdict from {tool}: wrong. Reference {v}; submitted {w}. Recheck the step that gives {m}.",
        "Verdict from {tool}: wrong. Submitted {w}; the reference stays hidden. The step that gives {m} is right.",
    ),
)


def frames_for(style: str) -> list[tuple]:
    tool = STYLE_TOOLS[style]
    return [frame for frame in FRAMES if frame[1] in (tool, "any")]


def fill(template: str, slots: dict[str, str], part: str) -> tuple[str, str]:
    """The template with its slots filled, and the same text with the part in each `{v}` slot set to `\\ldots`."""
    pieces = re.split(r"(\{[a-z]+\}|\{\{|\}\})", template)
    text, context = "", ""
    for piece in pieces:
        if piece in ("{{", "}}"):
            text, context = text + piece[0], context + piece[0]
        elif re.fullmatch(r"\{[a-z]+\}", piece):
            filled = slots[piece[1:-1]]
            text += filled
            context += filled.replace(part, "\\ldots", 1) if piece == "{v}" else filled
        else:
            text, context = text + piece, context + piece
    return text, context


# --- numbers quoted from the problem and the solution ------------------------------------------------------------


def quoted_numbers(text: str, limit: int) -> list[str]:
    found = re.findall(r"\\frac\{(\d+)\}\{(\d+)\}|(?<![\w.^_])(\d+(?:\.\d+)?)(?![\w])", text)
    numbers = [f"{a}/{b}" if a else plain for a, b, plain in found]
    return list(dict.fromkeys(numbers))[:limit]


def _safe(candidates: list[str], value: Value) -> list[str]:
    return [candidate for candidate in candidates if not holds_answer(f" {candidate} ", value)]


# --- the corpus --------------------------------------------------------------------------------------------------


def _case(index, kind, family, style, frame_id, text, context, part, wrong, how) -> dict:
    leak = family != "clean"
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame_id,
        "text": text,
        "leak": leak,
        "written_out": family == "rendering",
        "parts": [part] if leak else [],
        "context": context if leak else text,
        "wrong": wrong,
        "wrong_how": how,
    }


def _draw(value, options, slots_pool, rng, index, kind, family) -> list[dict]:
    """A leak case and its clean twin for one (style, frame), or [] when no draw passes the checker."""
    style, frame, printer = options
    frame_id, _, leak_template, clean_template = frame
    answer_text, part = printer(value)
    for _ in range(DRAWS):
        wrong, how = rng.choice(slots_pool["wrongs"])
        wrong_rendered = printer(wrong)
        if wrong_rendered is None:
            continue
        slots = {
            "v": answer_text,
            "w": wrong_rendered[0],
            "q": rng.choice(slots_pool["problem"]),
            "m": rng.choice(slots_pool["solution"]),
            "k": rng.choice(slots_pool["cases"]),
            "tool": TOOL_NAMES.get(STYLE_TOOLS[style], "the checker"),
        }
        text, context = fill(leak_template, slots, part)
        clean_text, _ = fill(clean_template, slots, part)
        if (
            occurrences(part, text)
            and holds_answer(text, value)
            and not holds_answer(context, value)
            and not holds_answer(clean_text, value)
        ):
            wrong_text = wrong_rendered[1]
            return [
                _case(index, kind, family, style, frame_id, text, context, part, wrong_text, how),
                _case(index, kind, "clean", style, frame_id, clean_text, clean_text, "", wrong_text, how),
            ]
    return []


def problem_cases(row: dict, index: int, seed: int) -> list[dict]:
    """The leak and clean cases of one MATH-500 row."""
    rng = random.Random(f"{seed}:{index}")
    kind = answer_type(row["answer"], row["problem"])
    value = parse_answer(row["answer"], row["problem"])
    fallback = [str(number) for number in range(2, 40)]
    slots_pool = {
        "wrongs": wrong_values(value),
        "problem": (_safe(quoted_numbers(row["problem"], 12), value) or _safe(fallback, value))[:12],
        "solution": (_safe(quoted_numbers(row["solution"], 40), value) or _safe(fallback, value))[:12],
        "cases": _safe([str(number) for number in range(2, 13)], value),
    }
    options = [
        (style, frame, lambda target, style=style: render(target, style))
        for style in renderings(value)
        for frame in frames_for(style)
        for _ in range(1 if frame[1] == "any" else TOOL_FRAME_WEIGHT)
    ]
    cases = _pick(value, options, RENDERINGS_PER_PROBLEM, slots_pool, rng, index, kind, "rendering")
    if approximable(value):
        approximations = [
            (style, frame, lambda target, style=style: approximate(target, style))
            for style in APPROXIMATION_STYLES
            for frame in frames_for(style)
            if frame[1] != "json"
        ]
        slots_pool["wrongs"] = [(wrong, how) for wrong, how in slots_pool["wrongs"] if approximable(wrong)]
        cases += _pick(
            value, approximations, APPROXIMATIONS_PER_PROBLEM, slots_pool, rng, index, kind, "approximation"
        )
    return cases


def _pick(value, options, count, slots_pool, rng, index, kind, family) -> list[dict]:
    """Up to `count` leak/clean pairs, each with a style not used before where the options allow."""
    rng.shuffle(options)
    cases, used_styles = [], set()
    for prefer_new in (True, False):
        for option in options:
            if len(cases) >= 2 * count:
                return cases
            if not slots_pool["wrongs"] or (prefer_new and option[0] in used_styles):
                continue
            if any(case["style"] == option[0] and case["frame"] == option[1][0] for case in cases):
                continue
            drawn = _draw(value, option, slots_pool, rng, index, kind, family)
            if drawn:
                used_styles.add(option[0])
                cases += drawn
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The held-out leak corpus over all rows of `problems`: renderings, approximations and their clean twins."""
    return [case for index, row in enumerate(problems) for case in problem_cases(row, index, seed)]
