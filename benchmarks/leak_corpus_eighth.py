"""An eighth held-out corpus of answer-leak critiques: feedback on a GROUP of failed attempts.

In MulFeRL the feedback model reads a problem, its reference answer and the K failed attempts of one GRPO group, and
writes ONE critique of the whole group. This corpus simulates that setting for every MATH-500 row:

- K is drawn from {4, 8, 16}; the attempts' final values are wrong values of the answer's own shape, made by the
  mutations below (off by one, sign, doubled, halved, reversed digits, reciprocal, a dropped pi or root, a changed
  radicand, a conjugate, swapped components, a changed bracket or endpoint, a dropped element, one matrix entry, a
  wrong option letter, another text answer from the problem, a changed base digit); one wrong value is the most
  frequent, some repeat, some attempts are truncated (no final value);
- every value (the answer and the wrong ones) is written by one renderer of this module per critique: LaTeX
  (`$..$`, `\\(..\\)`, `\\[..\\]`, `\\boxed`, `\\dfrac`), plain ASCII, Unicode, English words, decimals and improper
  fractions, inequalities for intervals, prose lists, matrix rows, option letters or the option's text, units;
- the critique is written in one of nine group styles (a divergence summary, a tally of final values, a per-attempt
  list, a consensus note, a hint, a grader's JSON, a Markdown table, a one-liner, a longer paragraph); its LEAK
  variant states the reference answer at a placement named in the frame (among the attempts' values, at the end, in
  a table cell, in the hint), its CLEAN variant does not;
- a tenth, clean-only style "coincidence" lets a COUNT of attempts equal a small-integer answer ("3 of the 8 attempts
  stop early" when the answer is 3) with nothing else stating the answer; it is kept under 5% of the cases.

Checks: a wrong value is dropped when `_degenerate` (no solver writes it: n/n, a zero denominator, -0, the root of a
square, 1k) or when it writes the answer inside it (3\\sqrt{2} for the answer 3). A clean critique is kept only when
`_holds_answer` finds no rendering of the answer in it and, for numeric answers, no number of the answer's value
(except the "coincidence" count); doubtful drafts are redrawn (at most six times), then dropped. The answer's digits
after a minus sign (the sign-flipped wrong value -3 when the answer is 3) are not the answer: those clean critiques
are kept with the frame variant "clean-negated", so that their cost can be measured apart. A leak's `parts` are the
spans the critique was assembled from, so `context` keeps every other occurrence of the same characters ("Attempt 3"
when the answer is 3); each leak writes its answer once, in the notation of the critique's other values.

Independence: written without reading the answer-leak guard, its tests, its benchmark or the other corpora; only
`load_problems`, `answer_type`, `ANSWER_TYPES`, `occurrences` and `stated` are taken from `leak_corpus`; numbers in
words come from `num2words`.

Case schema (one dict per critique): family ("rendering" | "clean"), split ("held_out"), index (the MATH-500 row),
answer_type, style (the renderer the values are written in), frame ("groupstyle:variant"), text, leak, written_out
(False only where the option's text stands for the letter), parts (the strings of `text` that state the answer; []
for clean), context (`text` without its parts; a clean text itself), wrong (clean only: the most frequent attempt's
value as it appears in the text) and wrong_how (the mutation that made it; "" for a leak).
"""

import random
import re
from collections import Counter
from decimal import Decimal
from fractions import Fraction

from leak_corpus import answer_type, occurrences
from num2words import num2words


SEED = 80801

GROUP_SIZES = (4, 8, 16)
LEAKS_PER_PROBLEM = 8
CLEANS_PER_PROBLEM = 6
REDRAWS = 6
SCALAR_TYPES = {"small integer", "negative integer", "large integer", "fraction", "decimal", "mixed number"}

# --- LaTeX to plain text and Unicode -------------------------------------------------------------------------------

PLAIN_SYMBOLS = {"pi": "pi", "infty": "infinity", "cup": "U", "pm": " +/- ", "cdot": "*", "times": "*", "le": "<=",
                 "leq": "<=", "ge": ">=", "geq": ">=", "in": " in ", "theta": "theta", "circ": " degrees", "$": "$",
                 "{": "{", "}": "}", "%": "%"}  # fmt: skip
UNICODE_SYMBOLS = {"pi": "π", "infty": "∞", "cup": "∪", "pm": " ± ", "cdot": "·", "times": "×", "le": "≤", "leq": "≤",
                   "ge": "≥", "geq": "≥", "in": " ∈ ", "theta": "θ", "circ": "°", "$": "$", "{": "{", "}": "}",
                   "%": "%"}  # fmt: skip
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
VULGAR = {"1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/5": "⅕", "2/5": "⅖", "3/5": "⅗", "4/5": "⅘",
          "1/6": "⅙", "5/6": "⅚", "1/8": "⅛", "3/8": "⅜", "5/8": "⅝", "7/8": "⅞"}  # fmt: skip


def _argument(latex: str, i: int) -> tuple[str, int]:
    """The argument of a LaTeX command starting at `latex[i]` (a braced group, a command or one character) and the
    index after it."""
    while i < len(latex) and latex[i] == " ":
        i += 1
    if i >= len(latex):
        raise ValueError(f"missing argument in {latex!r}")
    if latex[i] == "{":
        depth = 0
        for j in range(i, len(latex)):
            depth += (latex[j] == "{") - (latex[j] == "}")
            if depth == 0:
                return latex[i + 1 : j], j + 1
        raise ValueError(f"unbalanced braces in {latex!r}")
    command = re.match(r"\\(?:[a-zA-Z]+|.)", latex[i:])
    if command:
        return command.group(0), i + len(command.group(0))
    return latex[i], i + 1


def _is_atom(text: str) -> bool:
    return bool(re.fullmatch(r"-?[\w.]+|[\w.]*(?:sqrt\([^()]*\)|√\w+|π|pi)", text))


def _convert(latex: str, mode: str) -> str:
    """`latex` written in `mode` "plain" (ASCII: 3*sqrt(13), 14/3, x^2) or "unicode" (3√13, π, x², −)."""
    symbols = PLAIN_SYMBOLS if mode == "plain" else UNICODE_SYMBOLS
    text = re.sub(r"\\[!,;:]|\\left|\\right|\\displaystyle", "", latex)
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            command = re.match(r"\\([a-zA-Z]+|.)", text[i:])
            name, i = command.group(1), i + len(command.group(0))
            if name in ("frac", "dfrac", "tfrac"):
                numerator, i = _argument(text, i)
                denominator, i = _argument(text, i)
                numerator, denominator = _convert(numerator, mode), _convert(denominator, mode)
                fraction = f"{numerator}/{denominator}"
                if mode == "unicode" and fraction in VULGAR:
                    out.append(VULGAR[fraction])
                else:
                    out.append(f"{numerator if _is_atom(numerator) else f'({numerator})'}/"
                               f"{denominator if _is_atom(denominator) else f'({denominator})'}")  # fmt: skip
            elif name == "sqrt":
                radicand, i = _argument(text, i)
                radicand = _convert(radicand, mode)
                if mode == "plain":
                    times = "*" if out and re.search(r"[\w)]$", out[-1]) else ""
                    out.append(f"{times}sqrt({radicand})")
                else:
                    out.append("√" + (radicand if re.fullmatch(r"\w+", radicand) else f"({radicand})"))
            elif name in ("text", "mbox", "textbf", "mathrm"):
                words, i = _argument(text, i)
                out.append(words)
            elif name in ("begin", "end"):
                raise ValueError("matrices are written by `_matrix_rows`")
            elif name in symbols:
                out.append(symbols[name])
            else:
                out.append(name + " ")
        elif char == "^":
            power, i = _argument(text, i + 1)
            if power == "\\circ":
                out.append(symbols["circ"])
                continue
            power = _convert(power, mode)
            if mode == "unicode" and re.fullmatch(r"-?\d+", power):
                out.append(power.translate(SUPERSCRIPT))
            else:
                out.append("^" + (power if _is_atom(power) else f"({power})"))
        elif char == "_":
            base, i = _argument(text, i + 1)
            out.append(base.translate(SUBSCRIPT) if mode == "unicode" else "_" + base)
        elif char == "{":
            group, i = _argument(text, i)
            out.append(_convert(group, mode))
        elif char in "} ":
            i += 1
        else:
            out.append(char)
            i += 1
    written = "".join(out)
    written = re.sub(r"(?<=[\w)\]π°²³√])\s*([+-])\s*(?=[\w(√π\\])", r" \1 ", written)
    written = re.sub(r",(?!\d{3}(?!\d))\s*", ", ", written)
    written = re.sub(r" {2,}", " ", written).strip()
    return written.replace("-", "−") if mode == "unicode" else written


def _plain(latex: str) -> str:
    return _convert(latex, "plain")


def _unicode(latex: str) -> str:
    return _convert(latex, "unicode")


# --- numbers and their words -------------------------------------------------------------------------------------


def _number(latex: str) -> Fraction | None:
    """The exact value of an integer, decimal, fraction or mixed-number answer; None for anything else."""
    text = re.sub(r"\\[!,]|\s|\{,\}", "", latex).replace("\\dfrac", "\\frac")
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("-")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d*\.?\d+", text):
        return sign * Fraction(text.replace(",", ""))
    fraction = re.fullmatch(r"(\d*)\\frac(?:\{(\d+)\}|(\d))(?:\{(\d+)\}|(\d))", text)
    if fraction:
        whole, numerator, denominator = (
            fraction.group(1),
            fraction.group(2) or fraction.group(3),
            fraction.group(4) or fraction.group(5),
        )
    else:
        fraction = re.fullmatch(r"(\d+)/(\d+)", text)
        whole, numerator, denominator = (None, *fraction.groups()) if fraction else (None, None, None)
    if fraction and int(denominator):
        return sign * (int(whole or 0) + Fraction(int(numerator), int(denominator)))
    return None


def _ordinal(denominator: int, plural: bool) -> str:
    if denominator == 2:
        return "halves" if plural else "half"
    if denominator == 4:
        return "quarters" if plural else "quarter"
    word = num2words(denominator, to="ordinal")
    return word + "s" if plural else word


def _number_words(latex: str) -> str | None:
    """English words for an integer, a decimal, a proper or improper fraction or a mixed number."""
    value = _number(latex)
    if value is None or abs(value) >= 10**6:
        return None
    sign = "negative " if value < 0 else ""
    value = abs(value)
    if value.denominator == 1:
        return sign + num2words(int(value)).replace(",", "")
    if re.search(r"\d\.\d|^-?\.\d", latex):
        return sign + num2words(float(latex.lstrip("-"))) if len(latex) < 8 else None
    whole, rest = divmod(value.numerator, value.denominator)
    fraction = f"{num2words(rest)} {_ordinal(value.denominator, rest > 1)}"
    if "\\frac" in latex and re.match(r"-?\d", latex):
        return f"{sign}{num2words(whole)} and {fraction}"
    if whole:
        return f"{sign}{num2words(value.numerator)} {_ordinal(value.denominator, True)}"
    return sign + fraction


def _decimal_form(latex: str) -> str | None:
    """A terminating decimal for a fraction or mixed number (3/2 -> 1.5); None where it does not terminate."""
    value = _number(latex)
    if value is None or value.denominator == 1 or re.search(r"\d\.\d|^-?\.\d", latex):
        return None
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        return None
    written = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    return written if len(written) <= 8 else None


def _improper(latex: str) -> str | None:
    """A mixed number as an improper fraction (1 4/5 -> 9/5), or a decimal as a reduced fraction (1.25 -> 5/4)."""
    value = _number(latex)
    if value is None or value.denominator == 1 or not re.match(r"-?\d+\\frac|-?\d*\.\d", latex):
        return None
    return f"{value.numerator}/{value.denominator}"


def _with_commas(latex: str) -> str | None:
    value = _number(latex)
    if value is None or value.denominator != 1 or abs(value) < 1000:
        return None
    return f"{int(value):,}"


# --- renderers: how a critique writes a value ------------------------------------------------------------------------


def _option_texts(problem: str) -> dict[str, str]:
    """The options of a multiple-choice problem, by letter: "(C) Plane" lines or AMC's `\\textbf{(B)}\\ ...`."""
    options = dict(re.findall(r"^\(([A-H])\)\s*(\w[^\n]*?)\s*$", problem, re.M))
    for letter, body in re.findall(r"\\textbf\{\(([A-H])\)\}\\?\s*(.*?)\s*(?=\\qquad|\$)", problem):
        options[letter] = f"${body.strip()}$"
    return options


def _letter(latex: str) -> str | None:
    found = re.fullmatch(r"\\text\{\s*\(?([A-H])\)?\s*\}|\(?([A-H])\)", latex.strip())
    return found and (found.group(1) or found.group(2))


def _interval_inequality(latex: str, mode: str) -> str | None:
    """An interval or union of intervals as inequalities in x: (3,4] -> 3 < x <= 4; unions joined by "or"."""
    text = re.sub(r"\\left|\\right|^\s*x\s*\\in\s*", "", latex)
    pieces = re.split(r"\\cup", text)
    less, less_equal = ("<", "<=") if mode == "plain" else ("<", "≤")
    if mode == "latex":
        less_equal = "\\le"
    greater, greater_equal = (">", ">=") if mode == "plain" else (">", "≥" if mode == "unicode" else "\\ge")
    written = []
    for piece in pieces:
        piece = piece.strip()
        if not re.fullmatch(r"[\[(].*[\])]", piece):
            return None
        ends = [end.strip() for end in _split_top(piece[1:-1])]
        if len(ends) != 2:
            return None
        low, high = ends
        convert = (lambda v: v) if mode == "latex" else (lambda v: _convert(v, mode))
        low_open, high_open = piece[0] == "(", piece[-1] == ")"
        if "infty" in low and "infty" in high:
            return None
        if "infty" in low:
            written.append(f"x {less if high_open else less_equal} {convert(high)}")
        elif "infty" in high:
            written.append(f"x {greater if low_open else greater_equal} {convert(low)}")
        else:
            written.append(
                f"{convert(low)} {less if low_open else less_equal} x {less if high_open else less_equal} {convert(high)}"
            )
    inequality = " or ".join(written)
    return f"${inequality}$" if mode == "latex" else inequality


def _split_top(text: str) -> list[str]:
    """`text` split at its commas outside brackets and braces."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def _components(latex: str) -> list[str]:
    """The members of a list or set answer, a ± split into its two values: `1 \\pm \\sqrt{19}` -> two members."""
    text = re.sub(r"\\left|\\right", "", latex).strip()
    text = re.sub(r"^\\\{(.*)\\\}$", r"\1", text)
    members = []
    for member in _split_top(text):
        member = member.strip()
        if "\\pm" in member:
            head, tail = member.split("\\pm", 1)
            members += [f"{head.strip()} + {tail.strip()}", f"{head.strip()} - {tail.strip()}"]
        else:
            members.append(member)
    return members


def _prose(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _matrix_entries(latex: str) -> list[list[str]] | None:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", latex, re.S)
    if not body:
        return None
    return [[entry.strip() for entry in row.split("&")] for row in body.group(1).split("\\\\") if row.strip()]


def _matrix_rows(latex: str, mode: str) -> str | None:
    """A matrix as nested brackets ([[-1, 0], [0, -1]]), a vector as a tuple ((-2, -14, -7)), or in words by rows."""
    rows = _matrix_entries(latex)
    if rows is None:
        return None
    rows = [[_convert(entry, "unicode" if mode == "unicode" else "plain") for entry in row] for row in rows]
    if all(len(row) == 1 for row in rows):
        column = "(" + ", ".join(row[0] for row in rows) + ")"
        return {"plain": column, "unicode": column + "ᵀ", "rows": f"the column vector {column}"}[mode]
    if mode == "rows":
        ordinals = ("first", "second", "third", "fourth")
        return "; ".join(f"{ordinals[k]} row ({', '.join(row)})" for k, row in enumerate(rows))
    return "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"


def _units(latex: str, mode: str) -> str | None:
    """A quantity with its unit: degrees (90°, 90 degrees, ninety degrees), money ($32,348, 32,348 dollars), areas
    (864 square inches, 864 in²), cents (5.4¢)."""
    text = re.sub(r"\\[!,]", "", latex).strip()
    money = re.fullmatch(r"\\\$\s*([\d,.]+)", text)
    if money:
        amount = money.group(1)
        return {"plain": f"${amount}", "unicode": f"{amount} dollars", "words": None, "latex": f"$\\${amount}$"}[mode]
    quantity = re.fullmatch(
        r"(.*?)\s*(\^\\circ|\^\{\\circ\}|\\text\{\s*degrees\}|\\(?:mbox|text)\{\s*(\w+)\}(\^2)?)", text
    )
    if not quantity:
        return None
    number, name, squared = quantity.group(1, 3, 4)
    if number == "" or re.search(r"[a-zA-Z]", re.sub(r"\\d?frac", "", number)):
        return None
    if mode == "latex":
        return f"${latex.strip()}$"
    words = _number_words(number) if mode == "words" else None
    amount = words if mode == "words" else _convert(number, "plain" if mode == "plain" else "unicode")
    if amount is None:
        return None
    if name is None:
        return f"{amount}°" if mode == "unicode" else f"{amount} degrees"
    if squared:
        short = {"inches": "in", "cm": "cm"}.get(name, name)
        long = {"inches": "square inches", "cm": "square centimeters"}.get(name, f"square {name}")
        return f"{amount} {short}²" if mode == "unicode" else f"{amount} {long}"
    return f"{amount}¢" if mode == "unicode" and name.startswith("cent") else f"{amount} {name}"


def _base_number(latex: str, mode: str) -> str | None:
    found = re.fullmatch(r"(\d+)_\{?(\d+)\}?", latex.replace(" ", ""))
    if not found:
        return None
    digits, base = found.groups()
    return {"latex": f"${digits}_{{{base}}}$", "plain": f"{digits}_{base}", "unicode": digits + base.translate(SUBSCRIPT),
            "words": f"{digits} in base {base}"}[mode]  # fmt: skip


def _named(latex: str, names: list[str], mode: str) -> str | None:
    """An ordered pair or tuple by its named components, "x = 15 and y = -29", the names taken from the problem."""
    text = re.sub(r"\\left|\\right", "", latex).strip()
    if not (text.startswith("(") and text.endswith(")")):
        return None
    values = [_convert(v.strip(), mode) for v in _split_top(text[1:-1])]
    if len(values) != len(names):
        return None
    return _prose([f"{name} = {value}" for name, value in zip(names, values, strict=True)])


def _tuple_names(problem: str, size: int) -> list[str]:
    for found in re.finditer(r"\(\s*((?:\\?[a-zA-Z]+\s*,\s*)+\\?[a-zA-Z]+)\s*\)", problem):
        names = [name.strip() for name in found.group(1).split(",")]
        if len(names) == size and all(re.fullmatch(r"[a-zA-Z]|\\theta", name) for name in names):
            return [_convert(name, "unicode") for name in names]
    return []


def renderers(answer: str, kind: str, problem: str) -> list[tuple[str, object, bool]]:
    """The notations a critique can write the answer (and the group's wrong values) in, for one answer type: each
    a name, a function of a LaTeX value (None where the notation does not fit that value) and whether it writes
    the answer itself (False: the option's text stands for the letter)."""
    latex = [
        ("latex-dollar", lambda v: f"${v.strip()}$", True),
        ("latex-paren", lambda v: f"\\({v.strip()}\\)", True),
        ("latex-display", lambda v: f"\\[{v.strip()}\\]", True),
        ("latex-boxed", lambda v: f"$\\boxed{{{v.strip()}}}$", True),
    ]
    text = [("plain", _plain, True), ("unicode", _unicode, True)]
    if kind in ("small integer", "negative integer", "large integer"):
        return [*latex, *text, ("words", _number_words, True), ("thousands-commas", _with_commas, True)]
    if kind in ("fraction", "mixed number", "decimal"):
        dfrac = ("latex-dfrac", lambda v: "$" + v.replace("\\frac", "\\dfrac") + "$" if "\\frac" in v else None, True)
        return [*latex, dfrac, *text, ("words", _number_words, True), ("decimal", _decimal_form, True),
                ("improper-fraction", _improper, True)]  # fmt: skip
    if kind == "interval":
        return [*latex, *text, *[(f"inequality-{mode}", lambda v, m=mode: _interval_inequality(v, m), True)
                                 for mode in ("plain", "unicode", "latex")]]  # fmt: skip
    if kind == "set/list":
        return [*latex, *text, ("prose-list", lambda v: _prose([_plain(c) for c in _components(v)]), True),
                ("set-braces", lambda v: "{" + ", ".join(_unicode(c) for c in _components(v)) + "}", True)]  # fmt: skip
    if kind in ("ordered pair", "tuple"):
        size = len(_split_top(re.sub(r"\\left|\\right", "", answer).strip()[1:-1]))
        names = _tuple_names(problem, size)
        named = [("named-components", lambda v: _named(v, names, "plain"), True)] if names else []
        return [*latex, *text, *named]
    if kind == "matrix/vector":
        bmatrix = ("latex-bmatrix", lambda v: "$" + v.replace("pmatrix", "bmatrix") + "$", True)
        return [latex[0], bmatrix, *[(f"rows-{mode}", lambda v, m=mode: _matrix_rows(v, m), True)
                                     for mode in ("plain", "unicode", "rows")]]  # fmt: skip
    if kind == "multiple choice":
        options = _option_texts(problem)
        return [("letter-parens", lambda v: _letter(v) and f"({_letter(v)})", True),
                ("option-word", lambda v: _letter(v) and f"option {_letter(v)}", True),
                ("latex-dollar", lambda v: f"${v.strip()}$", True),
                ("option-text", lambda v: options.get(_letter(v)), False)]  # fmt: skip
    if kind == "text answer":
        return [("plain", _plain, True), ("quoted", lambda v: f'"{_plain(v)}"', True),
                ("capitalized", lambda v: _plain(v).capitalize(), True), ("latex-dollar", lambda v: f"${v}$", True)]  # fmt: skip
    if kind == "units/degrees/money":
        return [
            (f"units-{mode}", lambda v, m=mode: _units(v, m), True) for mode in ("latex", "plain", "unicode", "words")
        ]
    if kind == "base-n number":
        return [
            (f"base-{mode}", lambda v, m=mode: _base_number(v, m), True)
            for mode in ("latex", "plain", "unicode", "words")
        ]
    return [*latex, *text]


def _answer_renderings(answer: str, kind: str, problem: str) -> list[str]:
    """Every way this module writes the answer, for the clean texts' check."""
    written = set()
    for _, render, _ in renderers(answer, kind, problem):
        for form in (answer, _braced(answer)):
            try:
                value = render(form)
            except ValueError:
                value = None
            if value:
                written.add(value)
                written.add(value.strip("$"))
    return sorted(written, key=len, reverse=True)


def _braced(latex: str) -> str:
    """`latex` with the arguments of its fractions and roots in braces (\\frac43 -> \\frac{4}{3}, \\sqrt2 ->
    \\sqrt{2}), so that a mutation changes one digit of the value and not a two-digit number that is not there."""
    latex = re.sub(r"\\(d?frac)\s*(\d)\s*(\d)", r"\\\1{\2}{\3}", latex)
    latex = re.sub(r"\\(d?frac)(\{[^{}]*\})\s*(\d)", r"\\\1\2{\3}", latex)
    latex = re.sub(r"\\(d?frac)\s*(\d)\s*\{", r"\\\1{\2}{", latex)
    return re.sub(r"\\sqrt\s*(\d)", r"\\sqrt{\1}", latex)


# --- wrong values: mutations of the answer's own shape ------------------------------------------------------------

NUMBER = re.compile(r"(?<![\d.])(?:\d+(?:\.\d+)?|\.\d+)")


def _shift(token: str, how: str, cents: bool = False) -> str | None:
    """`token` changed `how`; an amount of money keeps its cents ($18.90 -> $19.90)."""
    value = Decimal(token)
    changed = {"off by one": value + 1, "one less": value - 1, "doubled": value * 2, "halved": value / 2}[how]
    if changed < 0 or (how == "halved" and "." not in token and value % 2):
        return None
    written = format(changed, "f")
    if cents and "." in token:
        written = format(changed.quantize(Decimal(1).scaleb(-len(token.split(".")[1]))), "f")
    elif "." in written:
        written = written.rstrip("0").rstrip(".")
    return ("0" if written.startswith(".") else "") + written if written != token else None


def _flip_sign_at(latex: str, start: int) -> str:
    """`latex` with the sign of the term starting at `start` flipped: a binary minus becomes a plus, a unary minus
    goes, a plus becomes a minus, and a term without a sign gets a minus."""
    before, after = latex[:start], latex[start:]
    signed = before.rstrip()
    spaces = before[len(signed) :]
    if signed.endswith("-"):
        rest = signed[:-1]
        return rest + ("+" if re.search(r"[\w})]\s*$", rest) else "") + spaces + after
    if signed.endswith("+"):
        return signed[:-1] + "-" + spaces + after
    return before + "-" + after


def _degenerate(wrong: str, answer: str) -> bool:
    """Whether a mutated value is one no solver writes: a zero denominator, -0, a root of a perfect square, n/n, or a
    coefficient of 1 written out (1k, 1\\pi) where the answer has none."""
    if re.search(r"\}\{0\}|/0(?![\d.])|-\s*0(?![\d.])|\\frac\{(\d+)\}\{\1\}", wrong):
        return True
    if any(int(root) ** 0.5 == int(int(root) ** 0.5) for root in re.findall(r"\\sqrt\{?(\d+)", wrong)):
        return True
    coefficient_one = r"(?<![\d.])1(?=[a-zA-Z]|\\(?:sqrt|pi))"
    return bool(re.search(coefficient_one, wrong)) and not re.search(coefficient_one, answer)


def _numeric_mutations(latex: str, rng: random.Random, skip_subscript: bool = True) -> list[tuple[str, str]]:
    tokens = [m for m in NUMBER.finditer(latex) if not (skip_subscript and latex[: m.start()].endswith(("_", "_{")))]
    found = []
    for token in rng.sample(tokens, min(len(tokens), 3)):
        for how in ("off by one", "one less", "doubled", "halved"):
            changed = _shift(token.group(0), how, cents="\\$" in latex)
            if changed is not None:
                found.append((how, latex[: token.start()] + changed + latex[token.end() :]))
        digits = token.group(0)
        if len(digits) >= 2 and digits.isdigit() and len(set(digits)) > 1 and not digits.endswith("0"):
            found.append(("reversed digits", latex[: token.start()] + token.group(0)[::-1] + latex[token.end() :]))
        if not latex[: token.start()].rstrip().endswith(("\\sqrt{", "{", "^", "/", "\\pm")):
            found.append(("sign", _flip_sign_at(latex, token.start())))
    return found


def _interval_mutations(latex: str) -> list[tuple[str, str]]:
    found = []
    for position, char in enumerate(latex):
        if char not in "()[]":
            continue
        opening = char in "(["
        neighbour = latex[position + 1 :].split(",")[0] if opening else latex[:position].split(",")[-1]
        if "infty" in neighbour:
            continue
        swapped = {"(": "[", "[": "(", ")": "]", "]": ")"}[char]
        found.append(("bracket changed", latex[:position] + swapped + latex[position + 1 :]))
    return found


def _structural_mutations(answer: str, kind: str, problem: str) -> list[tuple[str, str]]:
    found = []
    text = answer.strip()
    if kind in ("fraction", "radical", "multiple of pi", "decimal", "mixed number"):
        found.append(("sign", text[1:].strip() if text.startswith("-") else "-" + text))
    if kind == "fraction":
        parts = re.fullmatch(r"(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}", text)
        if parts and parts.group(2) != "1":
            found.append(("reciprocal", f"{parts.group(1)}\\frac{{{parts.group(3)}}}{{{parts.group(2)}}}"))
    if kind in ("multiple of pi",) and "\\pi" in text:
        dropped = re.sub(r"\\frac\{([^{}]*)\}\{\s*\\pi\s*\}", r"\1", text)
        dropped = re.sub(r"\s*\\pi", "", dropped).replace("\\frac{}", "\\frac{1}")
        found.append(("dropped pi", {"": "1", "-": "-1"}.get(dropped.strip(), dropped)))
    if kind == "radical" and "\\sqrt" in text:
        found.append(("dropped root", re.sub(r"\\sqrt\{?(\d+)\}?", r"\1", text)))
        if re.fullmatch(r"-?\d+\s*\\sqrt\{?\d+\}?", text):
            found.append(("root left out", re.sub(r"\s*\\sqrt\{?\d+\}?", "", text)))
    if kind == "complex number":
        sign = re.search(r"([+-])\s*\d*i$", text)
        if sign:
            found.append(
                ("conjugate", text[: sign.start(1)] + ("-" if sign.group(1) == "+" else "+") + text[sign.end(1) :])
            )
    if kind in ("expression", "equation", "complex number"):
        for operator in re.finditer(r"(?<=[\w})])\s*([+-])\s*(?=[\w\\(])", text):
            flipped = "+" if operator.group(1) == "-" else "-"
            found.append(("operator flipped", text[: operator.start(1)] + flipped + text[operator.end(1) :]))
        difference = re.fullmatch(r"(\w+)\s*-\s*(\w+)", text)
        if difference:
            found.append(("swapped pair", f"{difference.group(2)} - {difference.group(1)}"))
        for function, other in (("\\cot", "\\tan"), ("\\tan", "\\cot"), ("\\sin", "\\cos"), ("\\cos", "\\sin")):
            if re.search(re.escape(function) + r"\b", text):
                found.append(("wrong function", text.replace(function, other)))
                found.append(("sign", "-" + text))
    if kind in ("ordered pair", "tuple"):
        inner = re.sub(r"\\left|\\right", "", text).strip()[1:-1]
        members = [m.strip() for m in _split_top(inner)]
        if len(members) >= 2 and members[0] != members[1]:
            found.append(("swapped pair", "(" + ", ".join([members[1], members[0], *members[2:]]) + ")"))
    if kind == "set/list":
        members = _split_top(re.sub(r"^\\\{|\\\}$", "", text))
        if len(members) > 1:
            found.append(("dropped element", ",".join(members[:-1]).strip()))
        if "\\pm" in text:
            found.append(("one root only", text.replace("\\pm", "+", 1).replace("\\{", "").replace("\\}", "")))
    if kind == "interval":
        found += _interval_mutations(text)
    if kind == "multiple choice":
        letter = _letter(text)
        for other in sorted(_option_texts(problem)):
            if other != letter:
                found.append(("wrong option letter", f"\\text{{({other})}}"))
    if kind == "text answer":
        word = _plain(text)
        for other in _text_alternatives(problem):
            if other.lower() != word.lower():
                found.append(("another text answer", f"\\text{{{other}}}"))
    if kind == "units/degrees/money" and "circ" in text:
        degrees = re.match(r"(\d+)\^", text)
        if degrees and int(degrees.group(1)) < 180:
            found.append(("supplement", f"{180 - int(degrees.group(1))}^\\circ"))
    if kind == "base-n number":
        number = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", ""))
        if number:
            digits, base = number.groups()
            for position, digit in enumerate(digits):
                if int(digit) + 1 < int(base):
                    found.append(("base digit", f"{digits[:position]}{int(digit) + 1}{digits[position + 1 :]}_{base}"))
            found.append(("read in base ten", digits))
    return found


TEXT_CHOICES = ("north", "south", "east", "west", "odd", "even", "neither", "parabola", "circle", "ellipse",
                "hyperbola", "point", "line")  # fmt: skip


def _text_alternatives(problem: str) -> list[str]:
    """Other answers the problem offers: the names on its figure or in its story, or the words it lists."""
    names = re.findall(r'"([A-Z][a-z]+)"', problem) + re.findall(r"\b([A-Z][a-z]+) (?:from|makes)\b", problem)
    words = [word for word in TEXT_CHOICES if re.search(rf"\b{word}\b", problem)]
    return list(dict.fromkeys(names + words))


def wrong_values(answer: str, kind: str, problem: str, rng: random.Random) -> list[tuple[str, str]]:
    """Distinct wrong final values of the answer's shape, each with how it was made, in a seeded order; the slips of
    the type (a dropped root, a changed bracket, ...) all, and at most five changed numbers, so that they are drawn."""
    candidates = _structural_mutations(answer, kind, problem)
    if kind not in ("multiple choice", "text answer"):
        numeric = _numeric_mutations(answer, rng, skip_subscript=kind == "base-n number")
        candidates += rng.sample(numeric, min(5, len(numeric)))
    rng.shuffle(candidates)
    seen, found = {_plain_or_raw(answer).replace(" ", "")}, []
    value = _number(answer)
    for how, wrong in candidates:
        try:
            key = _plain(wrong).replace(" ", "")
        except ValueError:
            key = wrong.replace(" ", "")
        if key in seen or _degenerate(wrong, answer) or (value is not None and _number(wrong) == value):
            continue
        seen.add(key)
        found.append((how, wrong))
    return found


# --- the group and its critique ------------------------------------------------------------------------------------

REASONS = {
    "off by one": "a boundary case is counted twice",
    "one less": "one case at the boundary is left out",
    "doubled": "a symmetric case is counted again",
    "halved": "a symmetry is divided out when nothing was double counted",
    "reversed digits": "digits are copied in the wrong order",
    "sign": "a sign is lost when terms move across the equals sign",
    "reciprocal": "the ratio is inverted at the last step",
    "dropped pi": "the factor of pi disappears when the area formula is simplified",
    "dropped root": "the square root is dropped while simplifying",
    "root left out": "only the rational factor survives the simplification",
    "conjugate": "the imaginary part's sign flips when multiplying by the conjugate",
    "swapped pair": "the coordinates are reported in the wrong order",
    "dropped element": "one of the solutions is discarded without a reason",
    "one root only": "only one branch of the square root is kept",
    "bracket changed": "an endpoint is included or excluded without checking it",
    "wrong option letter": "the description is matched to the wrong option",
    "another text answer": "the comparison is made on the wrong quantity",
    "supplement": "the supplementary angle is reported instead",
    "base digit": "a carry is lost in the base conversion",
    "read in base ten": "the digits are read as a base-ten number",
}
HOW_TO_CHECK = (
    "recheck the step where the approaches split",
    "substitute the value back into the original condition",
    "verify each case against the constraints before counting it",
    "work the last simplification again from the line before it",
    "compare the setup against what the problem actually asks for",
)


def _draw_group(wrongs: list[tuple[str, str]], rng: random.Random) -> tuple[int, list[tuple[str, str] | None]]:
    """K and the group's attempts: wrong values (the first strictly the most frequent) or None for a truncated
    attempt, in a seeded order."""
    size = rng.choice(GROUP_SIZES)
    distinct = rng.sample(wrongs, rng.randint(1, min(3, len(wrongs))))
    truncated = rng.randint(0, size // 4)
    counts = [0] * len(distinct)
    for _ in range(size - truncated):
        counts[rng.randrange(len(distinct))] += 1
    counts.sort(reverse=True)
    if len(counts) > 1 and counts[0] == counts[1]:
        counts[0] += 1
        counts[1] -= 1
    attempts = [wrong for wrong, count in zip(distinct, counts, strict=True) for _ in range(count)]
    attempts += [None] * (size - len(attempts))
    rng.shuffle(attempts)
    return size, attempts


def _critique(style, variant, size, attempts, written, answer_part, rng) -> list:
    """The critique as segments: strings, and ("part", text) for each statement of the answer."""
    tally = Counter(attempt for attempt in attempts if attempt is not None)
    ranked = [wrong for wrong, _ in tally.most_common()]
    top = ranked[0]
    stopped = attempts.count(None)
    reason = REASONS.get(top[0], "an intermediate value is miscopied")
    check = rng.choice(HOW_TO_CHECK)
    values = [written[wrong] for wrong in ranked]
    answer = [("part", answer_part)] if answer_part is not None else []
    stopped_note = f" {stopped} stop{'s' if stopped == 1 else ''} before any final value." if stopped else ""
    if style == "divergence":
        opening = "diverge after the setup" if len(ranked) > 1 else "agree with each other but not with the problem"
        body = [f"The {size} attempts {opening}: {tally[top]} settle on {values[0]}"]
        for wrong in ranked[1:]:
            body.append(f", {tally[wrong]} on {written[wrong]}")
        body.append(f".{stopped_note} The split comes where {reason}.")
        if variant == "among":
            return [*body, " Between their values and the target ", *answer, " the gap is the same mistake."]
        if variant == "end":
            return [*body, " The correct result is ", *answer, "."]
        return body
    if style == "tally":
        lines = [f"Final values over {size} attempts:"]
        lines += [f"\n- {written[wrong]}: {tally[wrong]}" for wrong in ranked]
        if stopped:
            lines.append(f"\n- (no final value): {stopped}")
        if variant == "among":
            return [*lines, "\n- ", *answer, " (expected): 0"]
        if variant == "end":
            return [*lines, "\nNone of them matches the reference, ", *answer, "."]
        return [*lines, f"\nNo value is correct; the most common one arises because {reason}."]
    if style == "per_attempt":
        lines = []
        for number, attempt in enumerate(attempts, 1):
            if attempt is None:
                lines.append(f"Attempt {number}: stops before a final value.\n")
            else:
                lines.append(f"Attempt {number}: {written[attempt]} ({REASONS.get(attempt[0], 'a slip')}).\n")
        if variant == "hint":
            return [*lines, "For the next try, the value to reach is ", *answer, "."]
        if variant == "end":
            return [*lines, "Expected: ", *answer]
        return [*lines, f"Every attempt fails; {check}."]
    if style == "consensus":
        others = f" The rest are split across {_prose(values[1:])}." if len(values) > 1 else ""
        head = f"Most attempts ({tally[top]} of {size}) got {values[0]}.{others}{stopped_note}"
        if variant == "end":
            return [head, " The reference answer is ", *answer, ", so the consensus is wrong."]
        if variant == "among":
            return [
                f"Most attempts ({tally[top]} of {size}) got {values[0]}, not ",
                *answer,
                f".{others}{stopped_note}",
            ]
        return [head, f" The consensus is wrong: {reason}."]
    if style == "hint":
        head = f"Hint for the next try: the group's most common value, {values[0]}, comes about because {reason}; {check}."
        if variant == "hint":
            return [head, " Done carefully, the computation lands on ", *answer, "."]
        return [head]
    if style == "json":
        finals = ", ".join(f'"{written[wrong]}": {tally[wrong]}' for wrong in ranked)
        head = f'{{"attempts": {size}, "finals": {{{finals}}}, "no_final": {stopped}, "all_incorrect": true'
        if variant == "cell":
            return [head, ', "reference": "', *answer, '"}']
        return [head, f', "diagnosis": "{reason}"}}']
    if style == "table":
        lines = ["| final value | attempts |\n|---|---|\n"]
        lines += [f"| {written[wrong]} | {tally[wrong]} |\n" for wrong in ranked]
        if stopped:
            lines.append(f"| none | {stopped} |\n")
        if variant == "cell":
            return [*lines, "| reference | ", *answer, " |"]
        return [*lines, f"All rows are wrong; {check}."]
    if style == "oneliner":
        if variant == "end":
            return [f"All {size} attempts fail (most say {values[0]}); the answer is ", *answer, "."]
        return [f"All {size} attempts fail; the most common value, {values[0]}, is wrong."]
    if style == "paragraph":
        body = [
            f"Looking at the group as a whole, none of the {size} attempts is correct. The most frequent final value "
            f"is {values[0]}, reached by {tally[top]} attempts, and it comes about because {reason}. "
        ]
        if len(values) > 1:
            body.append(f"The others report {_prose(values[1:])}, which repeat the same kind of slip. ")
        if stopped:
            body.append(
                f"{stopped} attempt{'s' if stopped > 1 else ''} run{'' if stopped > 1 else 's'} out before stating a final value. "
            )
        if variant == "among":
            return [*body, f"Set side by side, {_prose([*values, ''])[:-5]} and the target ", *answer,
                    " show the error is systematic. ", f"Next time, {check}."]  # fmt: skip
        if variant == "end":
            return [*body, f"Next time, {check}; the value you should reach is ", *answer, "."]
        return [*body, f"Next time, {check}."]
    raise ValueError(f"unknown group style {style!r}")


LEAK_VARIANTS = {
    "divergence": ("among", "end"),
    "tally": ("among", "end"),
    "per_attempt": ("hint", "end"),
    "consensus": ("end", "among"),
    "hint": ("hint",),
    "json": ("cell",),
    "table": ("cell",),
    "oneliner": ("end",),
    "paragraph": ("among", "end"),
}


def answer_value(answer: str, kind: str) -> Fraction | None:
    """The number a numeric answer (an integer, fraction, decimal, mixed number or quantity with a unit) is worth."""
    if kind == "units/degrees/money":
        return _number(re.sub(r"\\\$|\^\\circ|\\(?:mbox|text)\{[^}]*\}(\^2)?", "", answer).strip())
    return _number(answer) if kind in SCALAR_TYPES else None


def _holds_answer(text: str, renderings: list[str], value) -> bool:
    """Whether a clean draft writes the answer: any of its renderings standing alone (a bare number preceded by a
    minus sign is the sign-flipped wrong value, not the answer), or, for a numeric answer, any number of its value."""
    for rendering in renderings:
        pattern = r"(?<![\w.])" + re.escape(rendering) + r"(?![\w]|\.\d)"
        for found in re.finditer(pattern, text):
            if not (re.fullmatch(r"[\d.,]+", rendering) and text[: found.start()].endswith(("-", "−"))):
                return True
    if value is not None:
        for number in re.findall(r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d*\.?\d+)", text):
            if Fraction(number.replace("−", "-").replace(",", "")) == value:
                return True
    return False


def _assemble(segments: list) -> tuple[str, str, list[str]]:
    text = "".join(s if isinstance(s, str) else s[1] for s in segments)
    context = "".join(s for s in segments if isinstance(s, str))
    parts = list(dict.fromkeys(s[1] for s in segments if not isinstance(s, str)))
    return text, context, parts


def _render_all(render, values: list[str]) -> list[str] | None:
    written = []
    for value in values:
        try:
            rendered = render(value)
        except (ValueError, KeyError, IndexError):
            return None
        if not rendered:
            return None
        written.append(rendered)
    return written if len(set(written)) == len(written) else None


def _problem_cases(index: int, row: dict, seed: int) -> list[dict]:
    rng = random.Random(f"{seed}:{index}")
    problem = row["problem"]
    kind = answer_type(row["answer"], problem)
    answer = _braced(row["answer"])
    wrongs = wrong_values(answer, kind, problem, rng)
    notations = renderers(answer, kind, problem)
    renderings = _answer_renderings(row["answer"], kind, problem)
    value = answer_value(answer, kind)
    # a wrong value that writes the answer inside it (3\sqrt{2} when the answer is 3) makes a doubtful clean text
    wrongs = [(how, wrong) for how, wrong in wrongs if not _holds_answer(_plain_or_raw(wrong), renderings, None)]
    if not wrongs:
        return []
    base = {"split": "held_out", "index": index, "answer_type": kind}
    cases = []
    styles = list(LEAK_VARIANTS)
    rng.shuffle(styles)
    for number in range(LEAKS_PER_PROBLEM):
        style = styles[number % len(styles)]
        variant = LEAK_VARIANTS[style][rng.randrange(len(LEAK_VARIANTS[style]))]
        for _ in range(REDRAWS):
            name, render, written_out = notations[rng.randrange(len(notations))]
            usable = [wrong for wrong in wrongs if _render_all(render, [wrong[1]])]
            if not usable:
                continue
            size, attempts = _draw_group(usable, rng)
            distinct = list(dict.fromkeys(a for a in attempts if a is not None))
            written = _render_all(render, [answer] + [wrong for _, wrong in distinct])
            if written is None or any(_holds_answer(w, [written[0]], None) for w in written[1:]):
                continue
            segments = _critique(style, variant, size, attempts, dict(zip(distinct, written[1:], strict=True)),
                                 written[0], rng)  # fmt: skip
            text, context, parts = _assemble(segments)
            cases.append({"family": "rendering", **base, "style": name, "frame": f"{style}:{variant}", "text": text,
                          "leak": True, "written_out": written_out, "parts": parts, "context": context, "wrong": None,
                          "wrong_how": ""})  # fmt: skip
            break
    clean_styles = list(LEAK_VARIANTS)
    rng.shuffle(clean_styles)
    for number in range(CLEANS_PER_PROBLEM):
        style = clean_styles[number % len(clean_styles)]
        for _ in range(REDRAWS):
            name, render, _ = notations[rng.randrange(len(notations))]
            usable = [wrong for wrong in wrongs if _render_all(render, [wrong[1]])]
            if not usable:
                continue
            size, attempts = _draw_group(usable, rng)
            distinct = list(dict.fromkeys(a for a in attempts if a is not None))
            written = _render_all(render, [wrong for _, wrong in distinct])
            if written is None:
                continue
            written = dict(zip(distinct, written, strict=True))
            text, _, _ = _assemble(_critique(style, "clean", size, attempts, written, None, rng))
            if _holds_answer(text, renderings, value):
                continue
            top = Counter(a for a in attempts if a is not None).most_common(1)[0][0]
            # the answer's digits after a minus sign: a wrong value of opposite sign, labelled to be measured apart
            negated = any(occurrences(rendering, text) for rendering in renderings)
            variant = "clean-negated" if negated else "clean"
            cases.append({"family": "clean", **base, "style": name, "frame": f"{style}:{variant}", "text": text,
                          "leak": False, "written_out": False, "parts": [], "context": text, "wrong": written[top],
                          "wrong_how": top[0]})  # fmt: skip
            break
    if kind == "small integer" and value is not None and 2 <= value <= 12 and wrongs:
        cases.append(_coincidence(base, int(value), wrongs, notations, renderings, rng))
    return [case for case in cases if case is not None]


COINCIDENCE_TEMPLATES = (
    "{count} of the {size} attempts stop early without a final value; the other {finished} all report {wrong}, "
    "because {reason}.",
    "Of the {size} attempts, {count} never state a final value and the rest settle on {wrong}: {reason}.",
)


def _coincidence(base, count, wrongs, notations, renderings, rng) -> dict | None:
    """A clean critique where only a COUNT of attempts (the truncated ones) equals the small-integer answer."""
    size = next((size for size in GROUP_SIZES if size > count + 1 and size != 2 * count), None)
    if size is None:
        return None
    template = rng.choice(COINCIDENCE_TEMPLATES)
    for how, wrong in rng.sample(wrongs, len(wrongs)):
        name, render, _ = notations[rng.randrange(len(notations))]
        written = _render_all(render, [wrong])
        if written is None:
            continue
        fields = {"size": size, "finished": size - count, "wrong": written[0], "reason": REASONS.get(how, "a slip")}
        text = template.format(count=count, **fields)
        if _holds_answer(template.format(count="", **fields), renderings, Fraction(count)) or str(count) in written[0]:
            continue
        return {"family": "clean", **base, "style": name, "frame": "coincidence:count-equals-answer", "text": text,
                "leak": False, "written_out": False, "parts": [], "context": text, "wrong": written[0],
                "wrong_how": how}  # fmt: skip
    return None


def _plain_or_raw(latex: str) -> str:
    try:
        return _plain(latex)
    except ValueError:
        return latex


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The group critiques of every MATH-500 row, the same list for the same seed."""
    return [case for index, row in enumerate(problems) for case in _problem_cases(index, row, seed)]
