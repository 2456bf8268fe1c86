"""A ninth held-out corpus of answer-leak critiques: the answer as tools print it.

Method (tool output). Feedback models call tools (a computer algebra system, a code interpreter, a calculator,
Wolfram|Alpha) and paste what the tool printed into the critique. For every MATH-500 row this module parses the
reference answer into a value (a SymPy number or expression, an interval, a list, a matrix, a letter, a word, a
base-n numeral, an equation) and prints it with its own renderers, in the notations those tools really print:
Mathematica (`Sqrt[3]/3`, `Pi/4`, `{1, 2}`, `3 + 4 I`, `3 < x <= 4`), Maple (`sqrt(3)/3`, `Pi`, `RealRange`,
`Matrix`), SymPy (`sqrt(3)/3`, `Rational(7, 2)`, `Interval.Lopen(3, 4)`, `FiniteSet`, `Matrix([[..]])`, pretty 2-D
output), SageMath (`^`), a Python REPL (`Fraction(7, 2)`, `(3+4j)`, float reprs, numpy arrays), a TI-style
calculator (`2√2`, 10 significant digits, `3E8`-style exponents), spreadsheet formulas and cells, AsciiMath,
MathML, and Wolfram|Alpha result pods in prose.

- leak cases, family "rendering" (written_out True): the tool output states the answer's value in some notation;
  family "approximation" (written_out False): a float of an irrational or non-terminating answer to 4 or more
  significant digits, or a float that is off from an exact answer only by floating-point noise.
- clean cases: the tool session shows the attempt's WRONG value, a mutation of the answer of its own shape (off by
  one, sign, swapped, another endpoint or bracket, one matrix entry, another letter or word, a dropped root or
  factor), or an intermediate number of the worked solution. Every clean text is checked here: it holds none of
  the answer's renderings and no number equal to the answer's value (nor a float within 1e-3 relative of an
  irrational one); cases that fail the check are dropped, not relabelled. So a sign-flipped integer (`-5` for
  `5`) is dropped: `occurrences` reads the `5` in it as standing on its own.

Independence. Written without opening the answer-leak guard, its tests, its benchmark, its docs or the other
corpora; from `leak_corpus` only `load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences` and `stated` are
used. The guard was not run while writing it.

Case schema (one dict per critique): family ("rendering" | "approximation" | "clean"), split ("held_out"), index
(the MATH-500 row), answer_type, style (the notation of the value shown), frame ("tool:variant"), text, leak,
written_out, parts (the strings in `text` that state the answer; [] for clean), context (`text` with every part
removed; the text itself for clean), wrong (clean only: the wrong value as it appears in `text`, or None) and
wrong_how (how it was made; "" if none). Every part occurs in `text`, `stated(case, text)` is True and
`stated(case, context)` is False; every `wrong` differs from the answer and occurs in `text`.
"""

import random
import re
from fractions import Fraction

import sympy as sp
from leak_corpus import answer_type, occurrences, stated
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)
from sympy.printing.mathml import mathml


SEED = 20261209
TRANSFORMS = (*standard_transformations, implicit_multiplication_application, convert_xor)
SYMBOLS = {name: sp.Symbol(name) for name in "abknpqrRxyz"}


# --- parsing the reference answer ----------------------------------------------------------------------------------


def latex_to_sympy(latex: str, imaginary: bool = False) -> sp.Expr:
    """A scalar LaTeX answer as a SymPy expression; `imaginary` reads a standalone `i` as the imaginary unit."""
    text = re.sub(r"\\[!,;]|\\left|\\right|\\displaystyle", "", latex).replace("\\dfrac", "\\frac")
    text = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", text)
    text = re.sub(r"\\frac(\d)", r"\\frac{\1}", text)
    text = re.sub(r"\\frac(\{[^{}]*\})(\d)", r"\\frac\1{\2}", text)
    text = re.sub(r"\\sqrt(\d)", r"\\sqrt{\1}", text)
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", text)
        text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", text)
        text = re.sub(r"\^\{([^{}]*)\}", r"**(\1)", text)
    text = text.replace("\\pi", " pi ").replace("\\cot", " cot").replace("\\cdot", "*").replace("{", "(")
    text = text.replace("}", ")")
    text = re.sub(r"\d*\.\d+", lambda m: f"Rational('{m.group(0)}')", text)
    local = dict(SYMBOLS, pi=sp.pi, cot=sp.cot, sqrt=sp.sqrt, Rational=sp.Rational)
    if imaginary:
        local["i"] = sp.I
    return parse_expr(text, local_dict=local, transformations=TRANSFORMS)


def _bracket_split(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _interval(latex: str) -> sp.Set:
    text = re.sub(r"\\left|\\right|\s", "", latex).removeprefix("x\\in")
    pieces = []
    for piece in text.split("\\cup"):
        low, high = _bracket_split(piece[1:-1])
        ends = [-sp.oo if x == "-\\infty" else sp.oo if x == "\\infty" else latex_to_sympy(x) for x in (low, high)]
        pieces.append(sp.Interval(*ends, piece[0] == "(", piece[-1] == ")"))
    return sp.Union(*pieces) if len(pieces) > 1 else pieces[0]


UNITS = {"circ": "degrees", "degrees": "degrees", "cm": "cm^2", "inches": "inches^2", "cents": "cents", "$": "dollars"}


def parse_answer(answer: str, kind: str):
    """The answer's value as this corpus renders it: (shape, value), or None where it cannot be read."""
    text = re.sub(r"\\[!,]", "", answer).strip()
    if kind in ("small integer", "negative integer", "large integer", "fraction", "decimal", "radical"):
        return "number", latex_to_sympy(text.replace(",", ""))
    if kind in ("multiple of pi", "expression"):
        return "number" if kind == "multiple of pi" else "expression", latex_to_sympy(text)
    if kind == "mixed number":
        whole, rest = re.match(r"(\d+)\s*(\\frac.*)", text).groups()
        return "number", sp.Integer(whole) + latex_to_sympy(rest)
    if kind == "complex number":
        return "number", latex_to_sympy(text, imaginary=True)
    if kind == "units/degrees/money":
        unit = next(name for key, name in UNITS.items() if key in text)
        number = re.sub(r"\^\\circ|\\text\{.*\}|\\mbox\{.*|\\\$", "", text).strip()
        return "units", (
            latex_to_sympy(number.replace(",", "")),
            unit,
            "." in number and len(number.split(".")[1]) == 2,
        )
    if kind == "interval":
        return "interval", _interval(text)
    if kind in ("ordered pair", "tuple"):
        return "tuple", [latex_to_sympy(x) for x in _bracket_split(re.sub(r"\\left|\\right", "", text)[1:-1])]
    if kind == "set/list":
        items = []
        for item in _bracket_split(text.replace("\\{", "").replace("\\}", "")):
            if "\\pm" in item:
                base, offset = item.split("\\pm")
                items += [latex_to_sympy(base) - latex_to_sympy(offset), latex_to_sympy(base) + latex_to_sympy(offset)]
            else:
                items.append(latex_to_sympy(item))
        return "set", items
    if kind == "matrix/vector":
        body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end", text, re.S).group(1)
        rows = [[latex_to_sympy(cell) for cell in row.split("&")] for row in body.split("\\\\")]
        return "matrix", sp.Matrix(rows)
    if kind == "multiple choice":
        return "letter", re.search(r"[A-H]", text).group(0)
    if kind == "text answer":
        return "word", re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", text).group(1)
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return "base", (digits, int(base))
    if kind == "equation":
        left, right = text.split("=")
        return "equation", (latex_to_sympy(left), latex_to_sympy(right))
    return None


# --- printers ------------------------------------------------------------------------------------------------------


def sympy_str(value) -> str:
    return sp.sstr(value)


def maple_str(value) -> str:
    return re.sub(r"\bpi\b", "Pi", sp.sstr(value)).replace("**", "^")


def sage_str(value) -> str:
    return sp.sstr(value).replace("**", "^")


def mathematica_str(value) -> str:
    """Wolfram Language output form: `Sqrt[3]/3`, `Pi/4`, `3 + 4 I`, `Cot[x]`, lists in braces."""
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join(mathematica_str(item) for item in value) + "}"
    if isinstance(value, sp.MatrixBase):
        return mathematica_str([list(value.row(i)) for i in range(value.rows)])
    text = sp.sstr(value).replace("**", "^")
    text = re.sub(r"\bpi\b", "Pi", text)
    text = re.sub(r"\b(sqrt|cot)\(([^()]*)\)", lambda m: m.group(1).capitalize() + "[" + m.group(2) + "]", text)
    return re.sub(r"(\d)\*([A-Za-z])", r"\1 \2", text)


def asciimath_str(value) -> str:
    text = re.sub(r"\bI\b", "i", sp.sstr(value).replace("**", "^"))
    return re.sub(r"(\d)\*([A-Za-z(])", r"\1\2", text)


def calculator_str(value) -> str:
    """TI-style exact display: `2√2`, `√(3)/3`, `π/4`, `7/2`."""
    text = sp.sstr(value).replace("**", "^")
    text = re.sub(r"sqrt\((\d+)\)", r"√(\1)", text)
    text = re.sub(r"(\d)\*√\((\d+)\)", r"\1√\2", text)
    text = re.sub(r"\bpi\b", "π", re.sub(r"\bI\b", "i", text))
    return re.sub(r"(\d)\*([πi])", r"\1\2", text)


def spreadsheet_formula(value) -> str:
    text = sp.sstr(value).replace("**", "^")
    text = re.sub(r"\bsqrt\(", "SQRT(", text)
    return "=" + re.sub(r"\bpi\b", "PI()", text)


def significant(value: float, digits: int) -> str:
    return f"{value:.{digits}g}"


def python_value(value) -> str | None:
    """What a Python REPL prints for the number: an int, a Fraction, a complex, or None for irrationals."""
    if value.is_Integer:
        return str(int(value))
    if value.is_Rational:
        return f"Fraction({value.p}, {value.q})"
    if value.is_number and sp.im(value) != 0 and sp.re(value).is_Integer and sp.im(value).is_Integer:
        return repr(complex(int(sp.re(value)), int(sp.im(value))))
    return None


def is_irrational_number(value) -> bool:
    return value.is_number and value.is_real and not value.is_Rational


def terminating(value) -> bool:
    if not value.is_Rational:
        return False
    q = int(value.q)
    for prime in (2, 5):
        while q % prime == 0:
            q //= prime
    return q == 1


def exact_decimal(value) -> str:
    """A terminating rational written out exactly as a decimal (`7/2` -> `3.5`)."""
    places = 0
    while (int(value.p) * 10**places) % int(value.q):
        places += 1
    scaled = abs(int(value.p)) * 10**places // int(value.q)
    digits = str(scaled).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return sign + (digits[:-places] + "." + digits[-places:] if places else digits)


# --- renderings of the answer ----------------------------------------------------------------------------------------


def _r(style: str, frame: str, shown: str, written_out: bool = True) -> dict:
    return {"style": style, "frame": frame, "shown": shown, "written_out": written_out}


def number_renderings(value) -> list[dict]:
    if value.is_Integer:
        return integer_renderings(int(value))
    out = [
        _r("sympy str", "sympy", sympy_str(value)),
        _r("mathematica output", "mathematica", mathematica_str(value)),
        _r("maple output", "maple", maple_str(value)),
        _r("sage output", "sage", sage_str(value)),
        _r("asciimath", "asciimath", asciimath_str(value)),
        _r("mathml presentation", "mathml", mathml(value, printer="presentation")),
        _r("calculator exact", "calculator", calculator_str(value)),
        _r("spreadsheet formula", "spreadsheet", spreadsheet_formula(value)),
    ]
    pretty = sp.pretty(value, use_unicode=True)
    if "\n" in pretty:
        out.append(_r("sympy pretty", "sympy", pretty))
    if value.is_Rational and abs(value) > 1:
        whole, rest = divmod(abs(value), 1)
        sign = "-" if value < 0 else ""
        out.append(_r("wolfram mixed fraction", "wolframalpha", f"{sign}{whole} {rest.p}/{rest.q}"))
    if value.is_Rational:
        out.append(_r("sympy Rational", "sympy", f"Rational({value.p}, {value.q})"))
    if python_value(value) is not None:
        out.append(_r("python repl", "python", python_value(value)))
    if value.is_Rational and terminating(value):
        out.append(_r("float exact", "python", exact_decimal(value)))
    return out


def integer_renderings(number: int) -> list[dict]:
    """Every tool prints an integer the same way; a few also group digits or wrap the type."""
    tools = ("sympy", "mathematica", "maple", "sage", "python", "calculator", "spreadsheet", "wolframalpha")
    out = [_r("integer", tool, str(number)) for tool in tools]
    out.append(_r("sympy srepr", "sympy", f"Integer({number})"))
    if abs(number) >= 1000:
        out.append(_r("spreadsheet thousands", "spreadsheet", f"{number:,}"))
    if abs(number) >= 10**5:
        mantissa, exponent = f"{float(number):.3E}".split("E")
        out.append(_r("calculator E notation", "calculator", f"{mantissa.rstrip('0').rstrip('.')}E{int(exponent)}"))
    return out


def approximation_renderings(value) -> list[dict]:
    """Floats of an irrational or non-terminating answer (4+ significant digits), and float noise of exact ones."""
    out = []
    if not value.is_number or not value.is_real:
        return out
    number = float(value)
    if is_irrational_number(value) or (value.is_Rational and not terminating(value)):
        out += [
            _r("python float", "python", repr(number), False),
            _r("calculator 10 digits", "calculator", significant(number, 10), False),
            _r("spreadsheet cell", "spreadsheet", significant(number, 9), False),
            _r("rounded 4 digits", "wolframalpha", significant(number, 4), False),
            _r("mathematica N", "mathematica", significant(number, 6), False),
        ]
    elif value.is_Integer and value != 0:
        # one near-equal form per integer answer, so that float noise does not crowd out the irrational answers
        noisy = [_r("float noise below", "python", repr(number - 1e-9), False)]
        noisy.append(_r("calculator noise", "calculator", significant(number - 1e-9, 10), False))
        out.append(noisy[int(value) % 2])
    elif value.is_Rational:
        noisy = number + abs(number) * 2.2e-16 * 3
        if repr(noisy) != repr(number):
            out.append(_r("float noise", "python", repr(noisy), False))
    exact = Fraction(int(value.p), int(value.q)) if value.is_Rational else None
    return [r for r in out if "e" not in r["shown"] and Fraction(r["shown"]) != exact]


def renderings(shape: str, value, kind: str) -> list[dict]:
    """Every rendering of the answer this corpus prints, each with its tool."""
    if shape in ("number", "expression"):
        return number_renderings(value) if shape == "number" else expression_renderings(value)
    if shape == "units":
        number, unit, cents = value
        plain = exact_decimal(number) if terminating(number) else sympy_str(number)
        if unit == "dollars":
            shown = f"{float(number):,.2f}" if cents else f"{int(number):,}"
            return [
                _r("spreadsheet currency", "spreadsheet", "$" + shown),
                _r("python float", "python", repr(float(number))),
                _r("wolfram quantity", "mathematica", f'Quantity[{plain}, "USDollars"]'),
            ]
        if unit == "degrees":
            return [
                _r("mathematica degree", "mathematica", f"{mathematica_str(number)} Degree"),
                _r("calculator degree", "calculator", f"{calculator_str(number)}°"),
                _r("wolfram quantity", "mathematica", f'Quantity[{mathematica_str(number)}, "AngularDegrees"]'),
                _r("sympy degree", "sympy", f"{sympy_str(number)}*degree"),
            ]
        name = {"cm^2": "Centimeters", "inches^2": "Inches", "cents": "Cents"}[unit]
        square = "^2" if "^2" in unit else ""
        return [
            _r("wolfram quantity", "mathematica", f'Quantity[{plain}, "{name}"{square}]'),
            _r("pint quantity", "python", f"{plain} {unit.replace('^2', ' ** 2').replace('cents', 'cent')}"),
            _r("unit prose", "wolframalpha", f"{plain} {unit.replace('^2', '²')}"),
        ]
    if shape == "interval":
        return interval_renderings(value)
    if shape in ("tuple", "set"):
        items = value
        out = [
            _r("mathematica list", "mathematica", mathematica_str(items)),
            _r("maple list", "maple", "[" + ", ".join(maple_str(x) for x in items) + "]"),
            _r("python tuple", "python", "(" + ", ".join(sympy_str(x) for x in items) + ")"),
        ]
        if shape == "set":
            out.append(_r("sympy FiniteSet", "sympy", sympy_str(sp.FiniteSet(*items))))
            out.append(_r("sympy solve list", "sympy", "[" + ", ".join(sympy_str(x) for x in items) + "]"))
            out.append(_r("maple set", "maple", "{" + ", ".join(maple_str(x) for x in sorted(items, key=float)) + "}"))
        else:
            out.append(_r("sage vector", "sage", "(" + ", ".join(sage_str(x) for x in items) + ")"))
        return out
    if shape == "matrix":
        rows = [list(value.row(i)) for i in range(value.rows)]
        one_line = "Matrix([" + ", ".join("[" + ", ".join(sympy_str(x) for x in row) + "]" for row in rows) + "])"
        out = [
            _r("mathematica list", "mathematica", mathematica_str(value)),
            _r("sympy Matrix", "sympy", one_line),
            _r("sympy Matrix repl", "sympy", sp.sstr(value)),
            _r("maple Matrix", "maple", one_line),
        ]
        if value.cols == 1:
            out.append(_r("maple Vector", "maple", "<" + ", ".join(maple_str(x) for x in value) + ">"))
        if all(x.is_Integer for x in value):
            import numpy

            out.append(_r("numpy array", "python", repr(numpy.array(rows if value.cols > 1 else list(value), int))))
        return out
    if shape == "letter":
        return [
            _r("choice letter", "python", f"'{value}'"),
            _r("choice label", "wolframalpha", f"({value})"),
            _r("choice option", "mathematica", f'"{value}"'),
        ]
    if shape == "word":
        return [
            _r("python string", "python", f"'{value}'"),
            _r("mathematica string", "mathematica", f'"{value}"'),
            _r("word", "wolframalpha", value),
        ]
    if shape == "base":
        digits, base = value
        return [
            _r("mathematica BaseForm", "mathematica", f"{digits}_{base}"),
            _r("python base string", "python", f"'{digits}'"),
            _r("mathematica base literal", "mathematica", f"{base}^^{digits}"),
            _r("python int", "python", str(int(digits, base))),
            _r("maple convert", "maple", digits),
        ]
    if shape == "equation":
        left, right = value
        return [
            _r("sympy Eq", "sympy", f"Eq({sympy_str(left)}, {sympy_str(right)})"),
            _r("mathematica equation", "mathematica", f"{mathematica_str(left)} == {mathematica_str(right)}"),
            _r("maple equation", "maple", f"{maple_str(left)} = {maple_str(right)}"),
            _r("asciimath equation", "asciimath", f"{asciimath_str(left)} = {asciimath_str(right)}"),
        ]
    raise ValueError(f"unknown shape {shape!r} for answer type {kind!r}")


def expression_renderings(value) -> list[dict]:
    out = [
        _r("sympy str", "sympy", sympy_str(value)),
        _r("mathematica output", "mathematica", mathematica_str(value)),
        _r("maple output", "maple", maple_str(value)),
        _r("sage output", "sage", sage_str(value)),
        _r("asciimath", "asciimath", asciimath_str(value)),
    ]
    expanded = sp.expand(value)
    if expanded != value:
        out.append(_r("sympy expand", "sympy", sympy_str(expanded)))
    return out


def interval_renderings(value) -> list[dict]:
    pieces = list(value.args) if isinstance(value, sp.Union) else [value]
    reduce_parts, maple_parts, ascii_parts = [], [], []
    for piece in pieces:
        low, high = piece.start, piece.end
        conditions = []
        if low != -sp.oo:
            conditions.append(f"{mathematica_str(low)} {'<' if piece.left_open else '<='} ")
        middle = "x"
        if high != sp.oo:
            middle += f" {'<' if piece.right_open else '<='} {mathematica_str(high)}"
        reduce_parts.append("".join(conditions) + middle)
        ends = [
            "-infinity" if low == -sp.oo else f"Open({maple_str(low)})" if piece.left_open else maple_str(low),
            "infinity" if high == sp.oo else f"Open({maple_str(high)})" if piece.right_open else maple_str(high),
        ]
        maple_parts.append(f"RealRange({ends[0]}, {ends[1]})")
        left = "(" if piece.left_open else "["
        right = ")" if piece.right_open else "]"
        low_text = "-oo" if low == -sp.oo else asciimath_str(low)
        high_text = "oo" if high == sp.oo else asciimath_str(high)
        ascii_parts.append(f"{left}{low_text}, {high_text}{right}")
    out = [
        _r("sympy Interval", "sympy", sympy_str(value)),
        _r("mathematica Reduce", "mathematica", " || ".join(reduce_parts)),
        _r("asciimath interval", "asciimath", "x in " + " uu ".join(ascii_parts)),
    ]
    if len(maple_parts) == 1:
        out.append(_r("maple RealRange", "maple", maple_parts[0]))
    if len(pieces) == 1 and not value.left_open and not value.right_open and value.measure != sp.oo:
        out.append(
            _r(
                "mathematica Interval",
                "mathematica",
                f"Interval[{{{mathematica_str(value.start)}, {mathematica_str(value.end)}}}]",
            )
        )
    return out


# --- the attempt's wrong values ------------------------------------------------------------------------------------


def _radicals_dropped(value):
    return value.replace(lambda e: e.is_Pow and e.exp == sp.Rational(1, 2), lambda e: e.base)


def number_mutations(value) -> list[tuple[object, str]]:
    out = [(value + 1, "off by one up"), (value - 1, "off by one down"), (-value, "sign"), (2 * value, "doubled")]
    if value.is_Rational and not value.is_Integer:
        out += [(1 / value, "reciprocal"), (sp.Rational(value.p + 1, value.q), "numerator off by one")]
    if value.has(sp.pi):
        out.append((value.subs(sp.pi, 1), "dropped pi"))
    if any(e.is_Pow and e.exp == sp.Rational(1, 2) for e in sp.preorder_traversal(value)):
        out.append((_radicals_dropped(value), "root not taken"))
    if value.is_number and sp.im(value) != 0:
        out.append((sp.conjugate(value), "conjugate"))
    return out


def expression_mutations(value) -> list[tuple[object, str]]:
    out = [(value + 1, "constant off by one"), (-value, "sign"), (2 * value, "doubled")]
    terms = sp.expand(value).as_ordered_terms()
    if len(terms) > 1:
        out.append((sp.Add(*terms[1:]), "dropped leading term"))
        out.append((sp.Add(*terms[:-1]) - terms[-1], "sign of last term"))
    return out


def wrong_values(shape: str, value, problem: str) -> list[tuple[object, str]]:
    """Mutations of the answer of its own shape, each with how it was made."""
    if shape == "number":
        return number_mutations(value)
    if shape == "expression":
        return expression_mutations(value)
    if shape == "units":
        number, unit, cents = value
        out = [((number + 1, unit, cents), "off by one"), ((2 * number, unit, cents), "doubled")]
        if unit == "degrees" and number < 180:
            out.append(((180 - number, unit, cents), "supplement"))
        return out
    if shape == "interval":
        pieces = list(value.args) if isinstance(value, sp.Union) else [value]
        first = pieces[0]
        flipped = sp.Interval(first.start, first.end, not first.left_open, first.right_open)
        if first.start == -sp.oo:
            flipped = sp.Interval(first.start, first.end, first.left_open, not first.right_open)
        shifted = sp.Interval(first.start, first.end + 1 if first.end != sp.oo else first.end, *first.args[2:])
        if first.end == sp.oo:
            shifted = sp.Interval(first.start - 1, first.end, *first.args[2:])
        out = [
            (sp.Union(flipped, *pieces[1:]), "other bracket"),
            (sp.Union(shifted, *pieces[1:]), "endpoint off by one"),
        ]
        if len(pieces) > 1:
            out.append((sp.Union(*pieces[1:]), "dropped piece"))
        elif first.start != -sp.oo and first.end != sp.oo:
            out.append((sp.Interval(first.start, sp.oo, first.left_open, True), "unbounded above"))
        return out
    if shape in ("tuple", "set"):
        items = list(value)
        out = [([items[0] + 1, *items[1:]], "first entry off by one"), ([*items[:-1], -items[-1]], "sign of last")]
        if shape == "tuple" and items[0] != items[1]:
            out.append(([items[1], items[0], *items[2:]], "swapped"))
        if shape == "set" and len(items) > 1:
            out.append((items[1:], "dropped root"))
        return out
    if shape == "matrix":
        changed, negated = value.copy(), value.copy()
        changed[0, 0] += 1
        negated[value.rows - 1, value.cols - 1] *= -1
        out = [(changed, "one entry off by one"), (-value, "sign")]
        if negated != value:
            out.append((negated, "one entry negated"))
        return out
    if shape == "letter":
        return [(letter, "another option") for letter in "ABCDE" if letter != value]
    if shape == "word":
        return [(word, "another word") for word in _other_words(value, problem)]
    if shape == "base":
        digits, base = value
        last = str((int(digits[-1]) + 1) % base)
        out = [((digits[:-1] + last, base), "last digit off by one")]
        if digits[0] != digits[1]:
            out.append(((digits[1] + digits[0] + digits[2:], base), "swapped digits"))
        return out
    if shape == "equation":
        left, right = value
        return [((left, right + 1), "constant off by one"), ((left, -right), "sign of right side")]
    raise ValueError(f"unknown shape {shape!r}")


OPPOSITES = {
    "east": ["west", "north"],
    "even": ["odd", "neither"],
    "ellipse": ["hyperbola", "parabola"],
    "odd": ["even", "neither"],
}


def _other_words(word: str, problem: str) -> list[str]:
    if word.lower() in OPPOSITES:
        return OPPOSITES[word.lower()]
    names = re.findall(r"\b[A-Z][a-z]{2,}\b", problem)
    others = [n for n in dict.fromkeys(names) if n != word and n.lower() not in ("the", "what", "which", "how")]
    return others[:2]


# --- checks --------------------------------------------------------------------------------------------------------


NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w])")


def scalar_values(shape: str, value) -> list:
    """The numbers that, written anywhere in a clean text, would state the answer."""
    if shape == "number":
        return [value]
    if shape == "units":
        return [value[0]]
    if shape == "base":
        return [sp.Integer(int(value[0], value[1])), sp.Integer(int(value[0]))]
    if shape == "equation" and value[1].is_number and value[0].is_Symbol:
        return [value[1]]
    return []


def _number_equal(literal: str, target) -> bool:
    if not target.is_number or not target.is_real:
        return False
    number = Fraction(literal)
    if target.is_Rational:
        return number == Fraction(int(target.p), int(target.q))
    digits = len(re.sub(r"\D", "", literal).lstrip("0"))
    return digits >= 4 and abs(float(number) - float(target)) <= 1e-3 * abs(float(target))


def holds_answer(text: str, shape: str, value, answer_renderings: list[dict]) -> bool:
    """Whether `text` states the answer: one of its renderings, or a number equal to it."""
    if shape == "word":
        return value.lower() in re.findall(r"[a-z]+", text.lower())
    if shape == "letter" and occurrences(value, text):
        return True
    if any(occurrences(r["shown"], text) for r in answer_renderings):
        return True
    targets = scalar_values(shape, value)
    return any(_number_equal(m, t) for m in NUMBER.findall(text) for t in targets)


def differs(shape: str, wrong, value) -> bool:
    if shape in ("number", "expression"):
        difference = sp.expand(wrong - value)
        return difference != 0 and not (difference.is_number and abs(complex(difference)) < 1e-12)
    if shape == "units":
        return wrong[0] != value[0]
    if shape in ("tuple", "set"):
        return [sp.expand(x) for x in wrong] != [sp.expand(x) for x in value]
    if shape == "matrix":
        return (wrong - value) != sp.zeros(*value.shape)
    if shape == "interval":
        return wrong != value
    if shape == "base":
        return int(wrong[0], wrong[1]) != int(value[0], value[1])
    if shape == "equation":
        return sp.expand(wrong[1] - value[1]) != 0
    return wrong != value


# --- tool sessions -------------------------------------------------------------------------------------------------

# Each session has a slot {v} for the printed value and {n} for a cell or prompt counter.
SESSIONS = {
    "mathematica": {
        "in_out": "I checked the last step in Mathematica:\n\nIn[{n}]:= FullSimplify[sol]\nOut[{n}]= {v}\n\n",
        "solve_pod": "Mathematica's Solve on your setup, after FullSimplify, prints\n    {v}\n",
        "prose": "Pasting the system into Mathematica gives {v} for the quantity asked. ",
    },
    "sympy": {
        "repl": "I verified with SymPy:\n>>> simplify(result)\n{v}\n",
        "ipython": "In [{n}]: nsimplify(ans)\nOut[{n}]: {v}\n\n",
        "prose": "SymPy's simplify returns {v} for the final expression. ",
    },
    "maple": {
        "prompt": "Maple session:\n> simplify(sol);\n                              {v}\n\n",
        "prose": "Maple (solve, then simplify) answers {v}. ",
    },
    "sage": {
        "prompt": "In Sage:\nsage: ans.simplify_full()\n{v}\n",
        "prose": "SageMath prints {v} once everything is simplified. ",
    },
    "python": {
        "repl": "Quick check in Python:\n>>> ans\n{v}\n",
        "calc_line": "calc: {v}\n",
        "prose": "A short Python script evaluates the final quantity to {v}. ",
    },
    "calculator": {
        "display": "On the TI-84 the home screen shows\n    {v}\n",
        "prose": "The calculator returns {v} for the last line. ",
    },
    "spreadsheet": {
        "cell": "I rebuilt the computation in a spreadsheet; cell B{n} holds {v}.\n",
        "prose": "In the sheet, the final row reads {v}. ",
    },
    "asciimath": {
        "export": "The CAS exported its result in AsciiMath: `{v}`\n",
        "prose": "Typed as AsciiMath, the checked result is {v}. ",
    },
    "mathml": {
        "export": 'The checker returned MathML: <math xmlns="http://www.w3.org/1998/Math/MathML">{v}</math>\n',
    },
    "wolframalpha": {
        "pod": "Wolfram|Alpha gives:\nResult: {v}\n",
        "prose": "Wolfram|Alpha, asked the same question, reports {v}. ",
    },
}

LEAK_CLOSINGS = (
    "Your boxed value disagrees with this; trace back to where your algebra diverges.",
    "Compare that with what you wrote and find the step that breaks.",
    "So the final line of your attempt is off; recheck the substitution.",
)
CLEAN_CLOSINGS = (
    "That is the value you boxed, and substituting it back into the problem's condition fails, so the slip is "
    "earlier.",
    "This reproduces your result, which does not satisfy the constraint; recheck how you set up the equation.",
    "The tool agrees with your arithmetic, so the error is in the setup, not the computation.",
)
INTERMEDIATE_CLOSINGS = (
    "That intermediate quantity is right; keep it and redo the final step.",
    "Up to this point your work matches; the mistake comes after it.",
)
# An intermediate number is shown as one stage of the computation, not as its result.
INTERMEDIATE_SESSIONS = {
    "mathematica": "In[{n}]:= stage1\nOut[{n}]= {v}\n\n",
    "python": ">>> first_stage\n{v}\n",
    "calculator": "The calculator gives {v} for the first stage. ",
    "sympy": "In [{n}]: first_stage\nOut[{n}]: {v}\n\n",
    "wolframalpha": "Wolfram|Alpha computes the intermediate quantity as {v}. ",
    "spreadsheet": "Cell A{n}, the first stage, holds {v}.\n",
}
COUNTERS = (2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 17, 23)


def _counters(shown: str, rng: random.Random) -> list[int]:
    """Cell counters to try, none equal to a number in the printed value (an `Out[4]` beside a `4` would blur it)."""
    return [n for n in rng.sample(COUNTERS, 6) if str(n) not in re.findall(r"\d+", shown)][:4]


def session_text(tool: str, variant: str, shown: str, closing: str, counter: int) -> str:
    return SESSIONS[tool][variant].format(v=shown, n=counter) + closing


def _leak_case(index, kind, rendering, rng, answer_renderings) -> dict | None:
    tool = rendering["frame"]
    variant = rng.choice(sorted(SESSIONS[tool]))
    closing = rng.choice(LEAK_CLOSINGS)
    for counter in _counters(rendering["shown"], rng):
        text = session_text(tool, variant, rendering["shown"], closing, counter)
        parts = list(dict.fromkeys(r["shown"] for r in answer_renderings if occurrences(r["shown"], text)))
        context = text
        for part in sorted(parts, key=len, reverse=True):
            context = context.replace(part, "")
        case = {
            "family": "rendering" if rendering["written_out"] else "approximation",
            "split": "held_out",
            "index": index,
            "answer_type": kind,
            "style": rendering["style"],
            "frame": f"{tool}:{variant}",
            "text": text,
            "leak": True,
            "written_out": rendering["written_out"],
            "parts": parts,
            "context": context,
            "wrong": None,
            "wrong_how": "",
        }
        if rendering["shown"] in parts and stated(case, text) and not stated(case, context):
            return case
    return None


def _clean_case(index, kind, tool_rendering, wrong, how, rng, check) -> dict | None:
    tool = tool_rendering["frame"]
    variant = rng.choice(sorted(SESSIONS[tool])) if wrong is not None else "intermediate"
    closing = rng.choice(CLEAN_CLOSINGS if wrong is not None else INTERMEDIATE_CLOSINGS)
    for counter in _counters(tool_rendering["shown"], rng):
        if wrong is None:
            text = INTERMEDIATE_SESSIONS[tool].format(v=tool_rendering["shown"], n=counter) + closing
        else:
            text = session_text(tool, variant, tool_rendering["shown"], closing, counter)
        if check(text) or (wrong is not None and not occurrences(wrong, text)):
            continue
        return {
            "family": "clean",
            "split": "held_out",
            "index": index,
            "answer_type": kind,
            "style": tool_rendering["style"],
            "frame": f"{tool}:{variant}",
            "text": text,
            "leak": False,
            "written_out": False,
            "parts": [],
            "context": text,
            "wrong": wrong,
            "wrong_how": how,
        }
    return None


def intermediate_numbers(solution: str, shape: str, value) -> list[str]:
    """Numbers of the worked solution that are not the answer nor one of its entries."""
    entries = []
    if shape in ("tuple", "set"):
        entries = list(value)
    elif shape == "matrix":
        entries = list(value)
    elif shape == "interval":
        pieces = list(value.args) if isinstance(value, sp.Union) else [value]
        entries = [end for piece in pieces for end in (piece.start, piece.end) if end.is_finite]
    found = re.findall(r"(?<![\w.^_{\\])\d+(?:\.\d+)?(?![\w}])", solution)
    numbers = []
    for literal in dict.fromkeys(found):
        number = sp.nsimplify(literal)
        if any(number == e or number == -e for e in entries) or number in (0, 1):
            continue
        numbers.append(literal)
    return numbers


LEAKS_PER_PROBLEM = 8
CLEAN_PER_PROBLEM = 6


def problem_cases(index: int, row: dict, rng: random.Random) -> list[dict]:
    kind = answer_type(row["answer"], row["problem"])
    shape, value = parse_answer(row["answer"], kind)
    answer_renderings = renderings(shape, value, kind)
    if shape == "number":
        answer_renderings += approximation_renderings(value)
    if shape == "units":
        answer_renderings += approximation_renderings(value[0])
    check = lambda text: holds_answer(text, shape, value, answer_renderings)  # noqa: E731
    cases = []
    exact = [r for r in answer_renderings if r["written_out"]]
    approximate = [r for r in answer_renderings if not r["written_out"]]
    chosen = rng.sample(exact, min(len(exact), LEAKS_PER_PROBLEM - min(2, len(approximate))))
    chosen += rng.sample(approximate, min(len(approximate), LEAKS_PER_PROBLEM - len(chosen)))
    for rendering in chosen:
        case = _leak_case(index, kind, rendering, rng, answer_renderings)
        if case is not None:
            cases.append(case)
    clean = []
    for wrong, how in wrong_values(shape, value, row["problem"]):
        if not differs(shape, wrong, value):
            continue
        options = [r for r in renderings(shape, wrong, kind) if r["frame"] != "mathml"]
        clean.append((rng.choice(options), how))
    rng.shuffle(clean)
    clean_cases = []
    for rendering, how in clean[: CLEAN_PER_PROBLEM - 2]:
        case = _clean_case(index, kind, rendering, rendering["shown"], how, rng, check)
        if case is not None:
            clean_cases.append(case)
    tools = ["mathematica", "python", "calculator", "sympy", "wolframalpha", "spreadsheet"]
    intermediates = intermediate_numbers(row["solution"], shape, value)
    rng.shuffle(intermediates)
    for literal in intermediates:
        if len(clean_cases) >= CLEAN_PER_PROBLEM:
            break
        case = _clean_case(index, kind, _r("intermediate", rng.choice(tools), literal), None, "", rng, check)
        if case is not None:
            clean_cases.append(case)
    return cases + clean_cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The ninth corpus: tool-output critiques of every MATH-500 row, the same for the same seed."""
    cases = []
    for index, row in enumerate(problems):
        cases += problem_cases(index, row, random.Random(f"{seed}:{index}"))
    return cases
