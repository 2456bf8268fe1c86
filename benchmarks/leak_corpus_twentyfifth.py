"""The `twentyfifth` leak corpus: critiques that state the reference answer in an equivalent but different form.

Method
    Each MATH-500 answer is parsed into a value (a sympy number or expression, a tuple, a set, an interval, an
    equation, a matrix, an amount with a unit, a base-n numeral, a choice or a word) by this module's own LaTeX
    reader. Renderings are computed from that value, never typed per problem: the answer in its own form in LaTeX,
    plain text or Unicode (`written_out` True), and equivalent forms (`written_out` False): unsimplified fractions,
    mixed numbers, decimals, percents, repeating decimals, scientific notation, prime factorisations, powers,
    differences, roots of squares, unrationalised radicals, fractional exponents, moved factors of pi, radians for
    degree answers, expanded or factored expressions, reordered terms, sets and unions, rearranged equations,
    inequalities and set-builder forms for intervals, scaled-out common factors of vectors and matrices, units
    converted, choices named by their option text. Every equivalent form is checked equal to the answer by value.
    The renderings fill the value slot of hand-written English critique frames, which also quote the attempt's
    wrong value (a same-shape mutation of the answer, sometimes itself written in a non-canonical form).
Families
    "rendering" (own forms and equivalent forms), "approximation" (a rounded decimal of 3+ significant digits or a
    percent, only for irrational or non-terminating answers) and "clean" (the same frames with a value slot filled
    by the attempt's wrong value, a number of the problem or an intermediate value of the worked solution, none equal
    to the answer). Frames and styles are shuffled with the seed and halved into "development" and "held_out"; a
    leak takes its style's split and a frame of that split, a clean text its frame's split.
Checker
    `holds_answer(text, answer, problem)` finds the math spans of a text (`$...$`, `\\(...\\)` and runs of plain or
    Unicode math), reads them with its own parser into numbers evaluated with mpmath (variables at fixed sample
    points), lists, matrices, intervals (bracket pairs, inequality chains, set-builder, unions) and equations
    (compared up to a constant factor), and says whether one of them equals the answer by value; a decimal literal
    of 3+ significant digits (or a percent) that rounds the answer also counts. Units, base-n numerals, choices and
    words have their own rules. Each leak's text holds the answer and its context does not; clean texts do not;
    failures are redrawn.
Independence
    Written from the brief alone. Read: the brief, `tests/conftest.py`, MATH-500's `test.jsonl` (in `../shared/data/math500/`), and
    in `benchmarks/leak_corpus.py` only `load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences`, `stated`,
    `_strip`, `_top_level_split` (and that module's import lines), plus the first 30 lines (imports, one fixture) of
    `tests/benchmarks/test_leak_corpus.py` to see how benchmark tests import their module. Imports only
    `answer_type` and `occurrences` from `leak_corpus`.
"""

import functools
import math
import random
import re
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parent))
from leak_corpus import answer_type, occurrences  # noqa: E402


SEED = 20260425
SPLITS = ("development", "held_out")
MP = mpmath.mp.clone() if hasattr(mpmath.mp, "clone") else mpmath.mp
MP.dps = 40

# ------------------------------------------------------------------------------------------------------------------
# Reading math text
# ------------------------------------------------------------------------------------------------------------------

SUPERSCRIPT = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9"}
SUPERSCRIPT["⁻"] = "-"
TO_SUPERSCRIPT = {v: k for k, v in SUPERSCRIPT.items()}
SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉"
VULGAR = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅖": (2, 5)}
VULGAR.update({"⅗": (3, 5), "⅘": (4, 5), "⅙": (1, 6), "⅚": (5, 6), "⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8), "⅞": (7, 8)})
TO_VULGAR = {v: k for k, v in VULGAR.items()}
FUNCTIONS = ("sqrt", "cbrt", "cot", "tan", "sin", "cos", "sec", "csc", "log", "ln", "exp")
NAMES = (*FUNCTIONS, "pi", "oo")
LETTERS = "abcdefghjklmnopqrstuvwxyzABCDEFGHJKLMNOPQRSTUVWXYZ"
SAMPLE_TEXT = (
    {c: str(Fraction("0.37") + k * Fraction("0.2113")) for k, c in enumerate(LETTERS)},
    {c: str(Fraction("1.71") - k * Fraction("0.0917")) for k, c in enumerate(LETTERS)},
)
SAMPLES = tuple(
    {c: MP.mpf(Fraction(v).numerator) / Fraction(v).denominator for c, v in s.items()} for s in SAMPLE_TEXT
)
LATEX_WORDS = {
    r"\cdot": "*",
    r"\times": "*",
    r"\div": "/",
    r"\pi": " pi ",
    r"\infty": " oo ",
    r"\%": "%",
    r"\leq": "<=",
    r"\le": "<=",
    r"\geq": ">=",
    r"\ge": ">=",
    r"\lt": "<",
    r"\gt": ">",
    r"\neq": "!=",
    r"\ne": "!=",
    r"\approx": "≈",
    r"\pm": "±",
    r"\cup": "∪",
    r"\in": "∈",
    r"\mid": "|",
    r"\colon": ":",
    r"\cot": " cot ",
    r"\tan": " tan ",
    r"\sin": " sin ",
    r"\cos": " cos ",
    r"\ln": " ln ",
    r"\log": " log ",
    r"\circ": "°",
    r"\langle": "⟨",
    r"\rangle": "⟩",
    r"\mathbb{R}": "R",
    r"\degree": "°",
}


def _group(text: str, i: int) -> tuple[str, int]:
    """The argument of a LaTeX command at `i`: a braced group, a command or one character."""
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
        return text[i + 1 :], len(text)
    if text[i] == "\\":
        m = re.match(r"\\[a-zA-Z]+", text[i:])
        if m:
            return m.group(), i + m.end()
    return text[i], i + 1


def _latex_commands(text: str) -> str:
    """Rewrite \\frac, \\sqrt, \\overline, \\text and pmatrix-free LaTeX into a plain form."""
    out, i = [], 0
    while i < len(text):
        m = re.match(r"\\(d|t)?frac|\\sqrt|\\overline|\\text|\\mbox|\\mathrm|\\operatorname|\\textbf", text[i:])
        if not m:
            out.append(text[i])
            i += 1
            continue
        name = m.group().lstrip("\\")
        j = i + m.end()
        if name.endswith("frac"):
            a, j = _group(text, j)
            b, j = _group(text, j)
            out.append(f"(({_latex_commands(a)})/({_latex_commands(b)}))")
        elif name == "sqrt":
            index = None
            if j < len(text) and text[j] == "[":
                k = text.index("]", j)
                index, j = text[j + 1 : k], k + 1
            a, j = _group(text, j)
            inner = _latex_commands(a)
            out.append(f"(({inner})^(1/({index})))" if index else f"sqrt({inner})")
        elif name == "overline":
            a, j = _group(text, j)
            out.append(f"({a})")
        else:
            a, j = _group(text, j)
            out.append(f" {a} ")
        i = j
    return "".join(out)


def _repeating(whole: str, fixed: str, period: str) -> str:
    value = Fraction(int(whole or 0)) + (Fraction(int(fixed), 10 ** len(fixed)) if fixed else 0)
    value += Fraction(int(period), (10 ** len(period) - 1) * 10 ** len(fixed))
    return f"(({value.numerator})/({value.denominator}))"


@functools.lru_cache(maxsize=200_000)
def normalize(span: str, latex: bool) -> str | None:
    """A Python-like expression string for a span of math (LaTeX if `latex`, else plain or Unicode text), with `^`
    for powers and `{`/`}` as set braces; None when it holds no math."""
    s = span.replace("$", " ").replace(r"\(", " ").replace(r"\)", " ").replace(r"\[", " ").replace(r"\]", " ")
    s = re.sub(r",\\!\s*|(?<=\d)\{,\}(?=\d)|(?<=\d)[\u2009\u202f](?=\d)", "", s).replace("\\\\", ";;")
    s = re.sub(r"\\[!,;: ]|\\left|\\right|\\displaystyle|\\quad|\\big|\\Big", " ", s)
    s = s.replace(r"\{", "⦃").replace(r"\}", "⦄").replace(r"\$", "$ ")
    s = re.sub(r"(\d*)\.(\d*)\\overline\{(\d+)\}", lambda m: _repeating(*m.groups()), s)
    s = re.sub(r"(\d*)\.(\d*)((?:\d\u0305)+)", lambda m: _repeating(m[1], m[2], m[3].replace("\u0305", "")), s)
    s = re.sub(r"(?<![\d.])(\d*)\.(\d*)\((\d+)\)", lambda m: _repeating(*m.groups()), s)
    # mixed numbers: 4\frac{2}{3}, 4 2/3, 4⅔
    s = re.sub(
        r"(?<![\d.^{/])(\d+)\s*\\[dt]?frac\s*(\d)(\d)",
        lambda m: f"({m[1]}+{m[2]}/{m[3]})" if int(m[2]) < int(m[3]) else m.group(),
        s,
    )
    s = re.sub(r"(?<![\d.^{/])(\d+)\s*\\[dt]?frac\{(\d+)\}\{(\d+)\}", lambda m: _mixed(m), s)
    s = re.sub(r"(?<![\d./^])(\d+) (\d+)/(\d+)(?![\d/.])", lambda m: _mixed(m), s)
    s = re.sub(r"(\d*)([½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞])", lambda m: f"({m[1] or 0}+{VULGAR[m[2]][0]}/{VULGAR[m[2]][1]})", s)
    for word, plain in sorted(LATEX_WORDS.items(), key=lambda kv: -len(kv[0])):
        s = re.sub(re.escape(word) + r"(?![a-zA-Z])", lambda m, p=plain: p, s)
    s = s.replace("\\begin{pmatrix}", "⟦").replace("\\end{pmatrix}", "⟧")
    s = s.replace("\\begin{bmatrix}", "⟦").replace("\\end{bmatrix}", "⟧")
    s = _latex_commands(s)
    s = re.sub(r"\\[a-zA-Z]+", " ", s)
    if latex:
        s = s.replace("{", "(").replace("}", ")")
    s = s.replace("⦃", "{").replace("⦄", "}")
    s = s.replace("+/-", "±").replace("−", "-").replace("–", "-").replace("·", "*").replace("×", "*").replace("⋅", "*")
    s = s.replace("⁄", "/").replace("÷", "/").replace("π", " pi ").replace("∞", " oo ").replace("≤", "<=")
    s = s.replace("≥", ">=").replace("≠", "!=")
    s = re.sub(r"[⁰¹²³⁴-⁹⁻]+", lambda m: "^(" + "".join(SUPERSCRIPT[c] for c in m.group()) + ")", s)
    s = re.sub(r"√\s*(\d+(?:\.\d+)?|[a-z])", r"sqrt(\1)", s)
    s = s.replace("√", "sqrt").replace("∛", "cbrt")
    s = re.sub(r"(?<![\d.(\[,])(\d{1,3}(?:,\d{3})+)(?![\d])", lambda m: m[1].replace(",", ""), s)
    s = re.sub(r"(\d+(?:\.\d+)?|\.\d+)\s*%", r"(\1/100)", s)
    s = re.sub(r"\^\s*\(?\s*°\s*\)?", "°", s)
    s = re.sub(
        r"\b(?:square |sq\.? ?)?(?:degrees?|radians?|rad|cents?|dollars?|USD|inches|inch|feet|ft|cm|mm|(?:m|in)(?=\s*(?:\^|²)))\b"
        r"(?:\s*\^\s*\(?2\)?)?",
        " ",
        s,
    )
    s = s.replace("°", " ").replace("$", " ")
    s = re.sub(r"\b(?:infinity|inf)\b", "oo", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s or None


def _mixed(m) -> str:
    return f"({m[1]}+{m[2]}/{m[3]})" if int(m[2]) < int(m[3]) else f"{m[1]}*({m[2]}/{m[3]})"


TOKEN = re.compile(r"\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+|\d+(?:[eE][-+]?\d+)?|[A-Za-z_]+|\*\*|[-+*/^()]|\S")


@functools.lru_cache(maxsize=200_000)
def to_python(expr: str) -> str | None:
    """Python source for a normalized scalar expression (implicit products made explicit, numbers as N("..")), or
    None when it is not one."""
    tokens = TOKEN.findall(expr)
    out = []
    for tok in tokens:
        if re.fullmatch(r"[A-Za-z_]+", tok) and tok not in NAMES:
            if tok == "i":
                out.append("I_")
                continue
            if len(tok) > 3:
                return None
            out.extend(list(tok))
            continue
        if tok not in NAMES and not re.fullmatch(r"[\d.eE+-]+|\*\*|[-+*/^()]", tok):
            return None
        out.append(tok)
    result, prev = [], None
    for tok in out:
        kind = "num" if re.fullmatch(r"[\d.]+(?:[eE][-+]?\d+)?", tok) and tok[0] in "0123456789." else tok
        starts = kind == "num" or kind == "(" or re.fullmatch(r"[A-Za-z_]+", tok)
        ends = prev is not None and (
            prev == "num" or prev == ")" or (re.fullmatch(r"[A-Za-z_]+", prev) and prev not in FUNCTIONS)
        )
        if starts and ends:
            result.append("*")
        wrap = prev in FUNCTIONS and tok != "("
        if wrap:
            result.append("(")
        if kind == "num":
            result.append(f'Q_("{tok}")')
        else:
            result.append("**" if tok == "^" else tok)
        if wrap:
            result.append(")")
        prev = kind if kind == "num" else tok
    source = "".join(result)
    if not source or source.count("(") != source.count(")"):
        return None
    return source


def _mp_sqrt(x):
    return MP.sqrt(x)


NAMESPACE = {
    "Q_": MP.mpf,
    "sqrt": _mp_sqrt,
    "cbrt": MP.cbrt,
    "pi": MP.pi,
    "oo": MP.inf,
    "I_": MP.mpc(0, 1),
    "cot": MP.cot,
    "tan": MP.tan,
    "sin": MP.sin,
    "cos": MP.cos,
    "sec": MP.sec,
    "csc": MP.csc,
    "log": MP.log,
    "ln": MP.log,
    "exp": MP.exp,
}


@functools.lru_cache(maxsize=200_000)
def evaluate(expr: str):
    """The value of a normalized scalar expression at the sample points (a tuple of two numbers), or None."""
    source = to_python(expr)
    if source is None or len(source) > 600:
        return None
    try:
        code = compile(source, "<math>", "eval")
        values = []
        for sample in SAMPLES:
            value = eval(code, {"__builtins__": {}}, {**NAMESPACE, **sample})  # noqa: S307 - whitelisted tokens
            value = MP.mpmathify(+value)
            if not isinstance(value, (MP.mpf, MP.mpc)):
                return None
            if isinstance(value, MP.mpc) and value.imag == 0:
                value = value.real
            values.append(value)
        return tuple(values)
    except Exception:  # noqa: BLE001 - malformed candidate text
        return None


def same(a, b) -> bool:
    """Two sample tuples equal (relative 1e-25)."""
    if a is None or b is None:
        return False
    for x, y in zip(a, b):
        if MP.isinf(x) or MP.isinf(y):
            if x != y:
                return False
            continue
        if MP.isnan(x) or MP.isnan(y) or abs(x - y) > MP.mpf("1e-25") * max(1, abs(x), abs(y)):
            return False
    return True


# --- splitting spans into pieces -----------------------------------------------------------------------------------


def split_top(text: str, separators: tuple[str, ...]) -> list[str]:
    """Split at separators outside brackets."""
    parts, depth, current, i = [], 0, "", 0
    while i < len(text):
        ch = text[i]
        if ch in "([{⟨⟦":
            depth += 1
        elif ch in ")]}⟩⟧":
            depth -= 1
        if depth == 0:
            hit = next((sep for sep in separators if text.startswith(sep, i)), None)
            if hit and (
                not hit.isalpha()
                or (
                    re.match(r"\W", text[i - 1 : i] or " ")
                    and re.match(r"\W", text[i + len(hit) : i + len(hit) + 1] or " ")
                )
            ):
                parts.append(current.strip())
                current, i = "", i + len(hit)
                continue
        current += ch
        i += 1
    return [*parts, current.strip()]


RELATIONS = ("<=", ">=", "!=", "≈", "=", "<", ">", "→")


def bracketed(piece: str) -> tuple[str, str, str] | None:
    """(open, inner, close) if the piece is one bracket pair around everything."""
    piece = piece.strip()
    if len(piece) < 2 or piece[0] not in "([{⟨⟦" or piece[-1] not in ")]}⟩⟧":
        return None
    depth = 0
    for k, ch in enumerate(piece):
        depth += 1 if ch in "([{⟨⟦" else -1 if ch in ")]}⟩⟧" else 0
        if depth == 0 and k < len(piece) - 1:
            return None
    return piece[0], piece[1:-1], piece[-1]


def scalar_pieces(norm: str) -> list[str]:
    """Every scalar-looking piece of a normalized span: the span, its relation sides, list items, ± branches."""
    seen, queue = [], [norm]
    while queue:
        piece = queue.pop().strip()
        if not piece or piece in seen:
            continue
        seen.append(piece)
        for seps in ((";",), (" or ", " and "), RELATIONS, (",",), ("∈", ":", "|")):
            parts = split_top(piece, seps)
            if len(parts) > 1:
                queue.extend(parts)
        b = bracketed(piece)
        if b:
            queue.append(b[1])
        if "±" in piece:
            queue.extend([piece.replace("±", "+"), piece.replace("±", "-")])
    return seen


def list_pieces(norm: str) -> list[tuple[str, list[str]]]:
    """(bracket kind, items) for each list-looking piece: bracketed comma lists, bare comma lists, ± pairs, `or`
    chains of `x = v`, scalar multiples of bracketed lists."""
    found = []
    for piece in scalar_pieces(norm):
        b = bracketed(piece)
        if b and b[0] != "⟦":
            items = split_top(b[1], (",",))
            found.append((b[0] + b[2], items))
            if len(items) == 1 and "±" in items[0]:
                found.append((b[0] + b[2], [items[0].replace("±", "+"), items[0].replace("±", "-")]))
        items = split_top(piece, (",",))
        if len(items) > 1:
            found.append(("", items))
            expanded = []
            for item in items:
                expanded.extend([item.replace("±", "+"), item.replace("±", "-")] if "±" in item else [item])
            found.append(("", expanded))
        elif "±" in piece and not b:
            found.append(("", [piece.replace("±", "+"), piece.replace("±", "-")]))
        chain = split_top(piece, (" or ", " and "))
        if len(chain) > 1:
            values = [split_top(c, ("=",))[-1] for c in chain]
            found.append(("", values))
        prefix, group = _trailing_group(piece)
        if prefix and group and evaluate(prefix) is not None:
            items = split_top(bracketed(group)[1], (",",))
            found.append(("scaled", [f"({prefix})*({item})" for item in items]))
        m = re.fullmatch(r"([(\[⟨].*[)\]⟩])\s*\^\s*\(?T\)?", piece)
        if m and bracketed(m[1]):
            found.append(("column", split_top(bracketed(m[1])[1], (",",))))
    return found


def _trailing_group(piece: str) -> tuple[str, str]:
    """(prefix, last bracket group) when the piece ends with a bracket group preceded by a factor."""
    piece = piece.strip()
    if not piece or piece[-1] not in ")]⟩":
        return "", ""
    depth = 0
    for k in range(len(piece) - 1, -1, -1):
        depth += 1 if piece[k] in ")]}⟩⟧" else -1 if piece[k] in "([{⟨⟦" else 0
        if depth == 0:
            prefix = piece[:k].strip().rstrip("*").strip()
            if prefix == "-":
                prefix = "-1"
            return prefix, piece[k:]
    return "", ""


def matrix_pieces(norm: str) -> list[list[list[str]]]:
    """Matrices: ⟦a & b ;; c & d⟧ (from pmatrix), [[a, b], [c, d]], optionally with a scalar factor in front."""
    found = []
    for m in re.finditer(r"(-?)\s*([^⟦⟧,=;]*?)\s*\*?\s*⟦([^⟦⟧]*)⟧(\s*\^\s*\(?T\)?)?", norm):
        rows = [[c.strip() for c in row.split("&")] for row in m[3].split(";;") if row.strip()]
        if m[4]:
            rows = [list(col) for col in zip(*rows)]
        factor = (m[1] + (m[2].strip() or "1")).strip()
        if factor in ("-", ""):
            factor += "1"
        found.append([[f"({factor})*({c})" for c in row] for row in rows])
        if factor not in ("1", "-1") and evaluate(factor) is None:
            found.append(rows)
    for piece in scalar_pieces(norm):
        prefix, group = _trailing_group(piece)
        if group and not prefix:
            prefix = "1"
        b = bracketed(group) if group else None
        if b and b[0] == "[" and (prefix == "1" or evaluate(prefix) is not None):
            rows = [bracketed(r) for r in split_top(b[1], (",",))]
            if rows and all(r and r[0] == "[" for r in rows):
                found.append([[f"({prefix})*({c})" for c in split_top(r[1], (",",))] for r in rows])
    return found


INEQUALITY = re.compile(r"^(?:(.+?)\s*(<=|<)\s*)?([a-zA-Z])\s*(?:(<=|<)\s*(.+))?$")


def interval_pieces(norm: str) -> list[list[tuple]]:
    """Intervals as lists of (lo, hi, lo_closed, hi_closed) with values; from bracket pairs, unions, inequality
    chains, `x ∈ ...` and set-builder forms."""
    found = []
    for piece in scalar_pieces(norm):
        for joined in (split_top(piece, ("∪", " U ")), split_top(piece, (" or ",))):
            intervals = []
            for part in joined:
                one = _one_interval(part)
                if one is None:
                    break
                intervals.append(one)
            else:
                if intervals:
                    found.append(
                        sorted(intervals, key=lambda iv: (float(mpmath.re(iv[0][0])), float(mpmath.re(iv[1][0]))))
                    )
    return found


def _one_interval(part: str):
    part = part.strip()
    part = re.sub(r"^[a-zA-Z]\s*∈\s*", "", part)
    b = bracketed(part)
    if b and b[0] == "{" and (":" in b[1] or "|" in b[1]):
        part = re.split(r"[:|]", b[1], maxsplit=1)[1].strip()
        b = None
    if b and b[0] in "([" and b[2] in ")]":
        ends = split_top(b[1], (",",))
        if len(ends) != 2:
            return None
        lo, hi = evaluate(ends[0]), evaluate(ends[1])
        if lo is None or hi is None:
            return None
        return (lo, hi, b[0] == "[", b[2] == "]")
    flipped = part.replace(">=", "≥").replace(">", "≻")
    if "≥" in flipped or "≻" in flipped:  # x > a  ->  a < x
        pieces = re.split(r"(≥|≻)", flipped)
        pieces = [{"≥": "<=", "≻": "<"}.get(p, p) for p in reversed(pieces)]
        part = " ".join(pieces)
    m = INEQUALITY.match(part)
    if not m or (m[1] is None and m[5] is None):
        return None
    lo = evaluate(m[1]) if m[1] else (-MP.inf, -MP.inf)
    hi = evaluate(m[5]) if m[5] else (MP.inf, MP.inf)
    if lo is None or hi is None:
        return None
    return (lo, hi, m[2] == "<=", m[4] == "<=")


# --- spans of a text ------------------------------------------------------------------------------------------------

LATEX_SEGMENT = re.compile(r"\$([^$]+)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
MATH_WORD = re.compile(r"sqrt|cbrt|pi|oo|cot|tan|sin|cos|ln|log|or|U|T|infinity|[A-Za-z]")
PLAIN_TOKEN = re.compile(r"\\[a-zA-Z]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+|[A-Za-z]+|\s+|.", re.S)
MATH_CHARS = set("+-*/^()[]{}=<>,|:!_%√π²³¹⁰⁴⁵⁶⁷⁸⁹⁻½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞·×−≤≥∞∪±°⁄÷⟨⟩∈≈\u0305" + SUBSCRIPT)


def spans(text: str) -> list[tuple[str, bool]]:
    """(span, is_latex) for each math span of a critique."""
    found = []
    for m in LATEX_SEGMENT.finditer(text):
        found.append((next(g for g in m.groups() if g is not None), True))
    rest = LATEX_SEGMENT.sub(" ¦ ", text)
    current = ""
    tokens = PLAIN_TOKEN.findall(rest)
    for k, tok in enumerate(tokens):
        mathy = (
            tok[0].isdigit()
            or (tok[0] == "." and tok[1:2].isdigit())
            or tok.startswith("\\")
            or tok in MATH_CHARS
            or (tok.isalpha() and MATH_WORD.fullmatch(tok) is not None)
            or (tok.isspace() and current.strip() != "")
            or (tok == "." and current and current[-1].isdigit() and k + 1 < len(tokens) and tokens[k + 1][:1] == "(")
        )
        if mathy:
            current += tok
        else:
            found.extend(_trimmed(current))
            current = ""
    found.extend(_trimmed(current))
    return found


def _trimmed(span: str) -> list[tuple[str, bool]]:
    span = span.strip(" ,;:\n")

    def balance(text):
        return sum(text.count(c) for c in "([{⟨") - sum(text.count(c) for c in ")]}⟩")

    while span and span[-1] in ")]}⟩" and balance(span) < 0:
        span = span[:-1].strip(" ,;:")
    while span and span[0] in "([{⟨" and balance(span) > 0:
        span = span[1:].strip(" ,;:")
    if not span or not re.search(r"[\dπ√∞½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]|pi|sqrt|oo|[A-Za-z]", span):
        return []
    return [(span, False)]


# ------------------------------------------------------------------------------------------------------------------
# Targets: the parsed answer
# ------------------------------------------------------------------------------------------------------------------

UNIT_WORDS = {
    "deg": r"°|\s*degrees?|\s*deg\b|\^\s*\\circ|\^\{\\circ\}",
    "rad": r"\s*rad(?:ians?)?\b",
    "dollar": r"\s*dollars?\b|\s*USD\b",
    "cent": r"\s*cents?\b|\s*¢|¢",
    "in2": r"\s*(?:square inches|sq\.? ?in\.?|in\^?2|in²|inches\^?2|\\text\{ ?in\}\^2|\\mbox\{ ?inches\}\^2)",
    "ft2": r"\s*(?:square feet|sq\.? ?ft\.?|ft\^?2|ft²|\\text\{ ?ft\}\^2)",
    "cm2": r"\s*(?:square centimeters|cm\^?2|cm²|\\text\{ ?cm\}\^2|\\mbox\{ ?cm\}\^2)",
    "mm2": r"\s*(?:square millimeters|mm\^?2|mm²|\\text\{ ?mm\}\^2)",
    "m2": r"\s*(?:square meters|m\^?2|m²|\\text\{ ?m\}\^2)",
}
CONVERSIONS = {
    "deg": {"deg": 1},
    "dollar": {"dollar": 1, "cent": 100},
    "cent": {"cent": 1, "dollar": Fraction(1, 100)},
    "in2": {"in2": 1, "ft2": Fraction(1, 144)},
    "cm2": {"cm2": 1, "mm2": 100, "m2": Fraction(1, 10000)},
}


class Target:
    """A parsed answer: `kind` and its data."""

    def __init__(self, kind: str, **data):
        self.kind = kind
        self.__dict__.update(data)


def _sym(expr: str):
    """An exact sympy value for a normalized scalar expression, or None."""
    source = to_python(expr)
    if source is None:
        return None
    source = re.sub(r'Q_\("([^"]+)"\)', r"Rational('\1')", source)
    names = {"Rational": sympy.Rational, "sqrt": sympy.sqrt, "cbrt": sympy.cbrt, "pi": sympy.pi, "oo": sympy.oo}
    names.update({"I_": sympy.I, "cot": sympy.cot, "tan": sympy.tan, "sin": sympy.sin, "cos": sympy.cos})
    for letter in set(re.findall(r"(?<![A-Za-z_])[A-Za-z](?![A-Za-z_])", source)):
        names[letter] = sympy.Symbol(letter)
    try:
        return eval(source, {"__builtins__": {}}, names)  # noqa: S307 - whitelisted tokens
    except Exception:  # noqa: BLE001
        return None


def _options(problem: str) -> dict[str, str]:
    found = {}
    for m in re.finditer(
        r"(?:\\textbf\{)?\(([A-H])\)\}?\\?\s*(.*?)(?=\s*(?:\\qquad|\$?\s*\$?(?:\\textbf\{)?\([A-H]\)|$|\n|Enter))",
        problem,
    ):
        found[m[1]] = m[2].strip(" $\\")
    return found


@functools.lru_cache(maxsize=4096)
def parse_target(answer: str, problem: str = "") -> Target | None:
    kind = answer_type(answer, problem)
    text = answer.strip()
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", text).group()
        return Target("choice", letter=letter, option=_options(problem).get(letter, ""))
    if kind == "text answer":
        return Target("text", word=re.sub(r"\\text\{(.*)\}", r"\1", text).strip())
    if kind == "base-n number":
        m = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", ""))
        return Target("base", digits=m[1], base=int(m[2]), value=int(m[1], int(m[2])))
    if kind == "units/degrees/money":
        unit = (
            "dollar"
            if "\\$" in text
            else "cent"
            if "cent" in text
            else "deg"
            if ("circ" in text or "degree" in text)
            else "in2"
            if "inch" in text
            else "cm2"
            if "cm" in text
            else None
        )
        number = re.sub(r"\\\$|\^\\circ|\\text\{[^}]*\}|\\mbox\{[^}]*\}(\^2)?", "", text)
        value = _sym(normalize(number, True))
        return Target("units", unit=unit, value=sympy.nsimplify(value), number=number.strip()) if unit else None
    norm = normalize(text, True)
    if kind == "matrix/vector":
        rows = matrix_pieces(norm)[0]
        rows = [[_sym(c) for c in row] for row in rows]
        return Target("matrix", rows=rows)
    if kind == "interval":
        found = interval_pieces(norm)
        if not found:
            return None
        exact = []
        for part in split_top(re.sub(r"^[a-zA-Z]\s*∈\s*", "", norm), ("∪",)):
            b = bracketed(part)
            lo, hi = (_sym(e) for e in split_top(b[1], (",",)))
            exact.append((lo, hi, b[0] == "[", b[2] == "]"))
        return Target("interval", pieces=found[0], exact=exact)
    if kind in ("ordered pair", "tuple"):
        items = split_top(bracketed(norm)[1], (",",))
        return Target("tuple", items=[_sym(i) for i in items])
    if kind == "set/list":
        inner = bracketed(norm)[1] if bracketed(norm) else norm
        items = []
        for item in split_top(inner, (",",)):
            items.extend([item.replace("±", "+"), item.replace("±", "-")] if "±" in item else [item])
        return Target("set", items=[sympy.nsimplify(_sym(i)) for i in items], pm="±" in norm)
    if kind == "equation":
        lhs, rhs = split_top(norm, ("=",))
        return Target("equation", lhs=_sym(lhs), rhs=_sym(rhs), diff=sympy.expand(_sym(lhs) - _sym(rhs)))
    value = _sym(norm)
    if value is None:
        return None
    return Target("scalar", value=value, symbolic=bool(getattr(value, "free_symbols", None)))


def _samples(value) -> tuple:
    """The value of a sympy expression at the sample points."""
    out = []
    for sample in SAMPLE_TEXT:
        subs = {s: sympy.Rational(sample.get(s.name, "0")) for s in getattr(value, "free_symbols", ())}
        out.append(_mp_of(value.subs(subs)) if subs else _mp_of(value))
    return tuple(out)


def _mp_of(value):
    if value in (sympy.oo, -sympy.oo):
        return MP.inf if value == sympy.oo else -MP.inf
    with mpmath.workdps(45):
        number = sympy.N(value, 45)
        re_, im_ = number.as_real_imag()
        return MP.mpc(MP.mpf(str(re_)), MP.mpf(str(im_))) if im_ != 0 else MP.mpf(str(re_))


@functools.lru_cache(maxsize=200_000)
def _target_samples(answer: str, problem: str):
    t = parse_target(answer, problem)
    if t is None:
        return None
    if t.kind == "scalar":
        return _samples(t.value)
    if t.kind in ("tuple", "set"):
        return [_samples(i) for i in t.items]
    if t.kind == "matrix":
        return [[_samples(c) for c in row] for row in t.rows]
    if t.kind == "equation":
        return _samples(t.diff)
    if t.kind == "units":
        return _samples(t.value)
    return None


# ------------------------------------------------------------------------------------------------------------------
# The checker
# ------------------------------------------------------------------------------------------------------------------


def _sig_digits(literal: str) -> int:
    digits = literal.lstrip("-").replace(".", "").lstrip("0")
    return len(digits)


def _approximates(literal: str, target) -> bool:
    """A decimal literal (3+ significant digits, with a decimal point) rounding the real target value."""
    m = re.fullmatch(r"-?\d*\.(\d+)", literal.strip())
    if not m or _sig_digits(literal.strip()) < 3 or target is None or isinstance(target, MP.mpc):
        return False
    return abs(MP.mpf(literal.strip()) - target) <= MP.mpf(0.5) * MP.mpf(10) ** (-len(m[1])) * (1 + MP.mpf("1e-12"))


APPROX_LITERAL = re.compile(r"(?<![\d.^/])-?\d*\.\d+(?![\d/^])(\s*\\?%)?")


def _scalar_held(text: str, samples, approx: bool = True) -> bool:
    for span, latex in spans(text):
        norm = normalize(span, latex)
        if norm is None:
            continue
        for piece in scalar_pieces(norm):
            if same(evaluate(piece), samples):
                return True
    if approx and len(samples) and not isinstance(samples[0], MP.mpc) and samples[0] == samples[1]:
        for m in APPROX_LITERAL.finditer(text.replace("−", "-")):
            literal = m.group().replace("\\%", "%").replace("%", "").strip()
            target = samples[0] * 100 if m.group(1) else samples[0]
            if _approximates(literal, target):
                return True
    return False


def _lists_held(text: str, items: list, ordered: bool, brackets: bool) -> bool:
    for span, latex in spans(text):
        norm = normalize(span, latex)
        if norm is None:
            continue
        for kind, candidate in list_pieces(norm):
            if len(candidate) != len(items) or (brackets and kind == ""):
                continue
            values = [evaluate(c) for c in candidate]
            if any(v is None for v in values):
                continue
            if ordered:
                if all(same(v, t) for v, t in zip(values, items)):
                    return True
            else:
                left = list(items)
                for v in values:
                    hit = next((k for k, t in enumerate(left) if same(v, t)), None)
                    if hit is None:
                        break
                    left.pop(hit)
                else:
                    return True
    return False


def _matrix_held(text: str, rows: list, _in_matrix: bool = False) -> bool:
    flat = [c for row in rows for c in row]
    for span, latex in spans(text):
        norm = normalize(span, latex)
        if norm is None:
            continue
        for matrix in matrix_pieces(norm):
            shape = [len(r) for r in matrix]
            if shape == [len(r) for r in rows] and all(
                same(evaluate(c), t) for c, t in zip([c for r in matrix for c in r], flat)
            ):
                return True
    if all(len(row) == 1 for row in rows) and not _in_matrix:
        return _lists_held(text, flat, ordered=True, brackets=True)
    return False


def _interval_held(text: str, pieces: list) -> bool:
    for span, latex in spans(text):
        norm = normalize(span, latex)
        if norm is None:
            continue
        for candidate in interval_pieces(norm):
            if len(candidate) == len(pieces) and all(
                same(a[0], b[0])
                and same(a[1], b[1])
                and (a[2] == b[2] or MP.isinf(a[0][0]))
                and (a[3] == b[3] or MP.isinf(a[1][0]))
                for a, b in zip(candidate, pieces)
            ):
                return True
    return False


def _equation_held(text: str, diff) -> bool:
    for span, latex in spans(text):
        norm = normalize(span, latex)
        if norm is None:
            continue
        for piece in scalar_pieces(norm):
            sides = split_top(piece, ("=",))
            if len(sides) != 2:
                continue
            lhs, rhs = evaluate(sides[0]), evaluate(sides[1])
            if lhs is None or rhs is None:
                continue
            cand = [a - b for a, b in zip(lhs, rhs)]
            if any(abs(t) < 1e-20 for t in diff) or any(abs(c) < 1e-20 for c in cand):
                continue
            ratios = [c / t for c, t in zip(cand, diff)]
            if abs(ratios[0] - ratios[1]) < 1e-20 * max(1, abs(ratios[0])):
                return True
    return False


def _units_held(text: str, target: Target, radians: bool = True) -> bool:
    value = Fraction(str(target.value)) if target.value.is_Rational else None
    samples = _samples(target.value)
    if not radians:
        for m in re.finditer(
            r"(?<![\w.])(-?[\d.]+|\\frac\{\d+\}\{\d+\})(?=" + UNIT_WORDS["deg"] + ")", text.replace("−", "-")
        ):
            if same(evaluate(normalize(m[1], True) or "x"), samples):
                return True
        return False
    if _scalar_held(text, samples):
        return True
    if target.unit == "deg":
        return (
            _scalar_held(text, _samples(target.value * sympy.pi / 180), approx=False)
            or _scalar_held(text, _samples(target.value * sympy.pi / 180))
            and re.search(UNIT_WORDS["rad"], text) is not None
        )
    for unit, factor in CONVERSIONS.get(target.unit, {}).items():
        if factor == 1 or value is None:
            continue
        converted = value * factor
        pattern = r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?(?:\s*(?:\\times|×|\*)\s*10\^\{?-?\d+\}?)?)(?=(?:\s*\\(?:text|mbox)\{\s*)?(?:"
        for m in re.finditer(pattern + UNIT_WORDS[unit] + "))", text):
            norm = normalize(m[1], "\\" in m[1])
            if norm and same(evaluate(norm), _samples(sympy.Rational(converted.numerator, converted.denominator))):
                return True
    return False


BASE_FORM = re.compile(r"\(?(\d+)\)?(?:_\{?(\d+)\}?|([₀-₉]+)|\s*\(?(?:in )?base[ -](\d+)\)?)")


def holds_answer(text: str, answer: str, problem: str = "") -> bool:
    """Whether `text` states `answer` by value, in any form this module's reader understands."""
    target = parse_target(answer, problem)
    if target is None:
        return _strip_text(answer) in text
    if target.kind == "choice":
        patterns = [rf"\({target.letter}\)", rf"\b(?:option|choice|answer|letter)\s*\(?{target.letter}\b"]
        if target.option:
            patterns.append(r"(?<!\w)" + re.escape(target.option) + r"(?!\w)")
        return any(re.search(p, text, re.I if k == 2 else 0) for k, p in enumerate(patterns))
    if target.kind == "text":
        return re.search(r"(?<!\w)" + re.escape(target.word) + r"(?!\w)", text, re.I) is not None
    if target.kind == "base":
        if occurrences(target.digits, text) > 0:
            return True
        for m in BASE_FORM.finditer(text):
            base = m[2] or (m[3] and m[3].translate(str.maketrans(SUBSCRIPT, "0123456789"))) or m[4]
            try:
                if base and int(m[1], int(base)) == target.value:
                    return True
            except ValueError:
                continue
        return _scalar_held(text, _samples(sympy.Integer(target.value)), approx=False)
    samples = _target_samples(answer, problem)
    if target.kind == "scalar":
        if _scalar_held(text, samples, approx=not target.symbolic):
            return True
        ratio = sympy.nsimplify(target.value / sympy.pi) if target.value.has(sympy.pi) else None
        if ratio is not None and ratio.is_Rational:
            return _units_held(text, Target("units", unit="deg", value=ratio * 180, number=""), radians=False)
        return False
    if target.kind == "tuple":
        return _lists_held(text, samples, ordered=True, brackets=True) or _matrix_held(
            text, [[x] for x in samples], True
        )
    if target.kind == "set":
        return _lists_held(text, samples, ordered=False, brackets=False)
    if target.kind == "matrix":
        return _matrix_held(text, samples)
    if target.kind == "interval":
        return _interval_held(text, target.pieces)
    if target.kind == "equation":
        return _equation_held(text, samples)
    if target.kind == "units":
        return _units_held(text, target)
    return False


def _strip_text(answer: str) -> str:
    return re.sub(r"\\text\{(.*?)\}", r"\1", answer).strip()


# ------------------------------------------------------------------------------------------------------------------
# Writing values in three notations
# ------------------------------------------------------------------------------------------------------------------

NOTATIONS = ("latex", "plain", "unicode")


class T:
    """One value written in LaTeX, plain text and Unicode; `prec` 0 for atoms, 1 for products, 2 for sums."""

    def __init__(self, latex: str, plain: str, uni: str | None = None, prec: int = 0):
        self.latex, self.plain, self.uni, self.prec = latex, plain, plain if uni is None else uni, prec

    def get(self, notation: str) -> str:
        return {"latex": self.latex, "plain": self.plain, "unicode": self.uni}[notation]


def _uminus(text: str) -> str:
    return text.replace("-", "−")


def num(value) -> T:
    """An integer, a Fraction with denominator 1 or a decimal string."""
    text = str(value)
    return T(text, text, _uminus(text), 1 if text.startswith("-") else 0)


def paren(t: T, limit: int) -> T:
    if t.prec <= limit:
        return t
    return T(rf"\left({t.latex}\right)", f"({t.plain})", f"({t.uni})", 0)


def frac(a: T, b: T) -> T:
    pa, pb = paren(a, 0), paren(b, 0)
    return T(rf"\frac{{{a.latex}}}{{{b.latex}}}", f"{pa.plain}/{pb.plain}", f"{pa.uni}/{pb.uni}", 1)


def ifrac(p: int, q: int) -> T:
    if p < 0:
        return neg(ifrac(-p, q))
    return frac(num(p), num(q))


def mul(*factors: T, latex_op: r"str" = r" \cdot ", plain_op: str = "*", uni_op: str = "·") -> T:
    fs = [paren(f, 1) for f in factors]
    return T(latex_op.join(f.latex for f in fs), plain_op.join(f.plain for f in fs), uni_op.join(f.uni for f in fs), 1)


def juxt(a: T, b: T) -> T:
    """Implicit product: 2\\sqrt{5}, 2 sqrt(5), 2√5."""
    pa, pb = paren(a, 0), paren(b, 0)
    return T(
        f"{pa.latex}{pb.latex}" if not pb.latex[0].isdigit() else f"{pa.latex} {pb.latex}",
        f"{pa.plain}{'*' if pb.plain[0].isdigit() or pb.plain.startswith('sqrt') else ''}{pb.plain}",
        f"{pa.uni}{'·' if pb.uni[0].isdigit() else ''}{pb.uni}",
        1,
    )


def add(*terms: T) -> T:
    latex, plain, uni = terms[0].latex, terms[0].plain, terms[0].uni
    for t in terms[1:]:
        if t.latex.startswith("-"):
            latex, plain, uni = f"{latex} - {t.latex[1:]}", f"{plain} - {t.plain[1:]}", f"{uni} − {t.uni[1:]}"
        else:
            latex, plain, uni = f"{latex} + {t.latex}", f"{plain} + {t.plain}", f"{uni} + {t.uni}"
    return T(latex, plain, uni, 2)


def sub(a: T, b: T) -> T:
    pb = paren(b, 1)
    return T(f"{a.latex} - {pb.latex}", f"{a.plain} - {pb.plain}", f"{a.uni} − {pb.uni}", 2)


def neg(a: T) -> T:
    pa = paren(a, 1)
    return T(f"-{pa.latex}", f"-{pa.plain}", f"−{pa.uni}", 1)


def root(a: T) -> T:
    return T(rf"\sqrt{{{a.latex}}}", f"sqrt({a.plain})", f"√{a.uni}" if a.prec == 0 else f"√({a.uni})", 0)


def power(base: T, exponent: T) -> T:
    pb = paren(base, 0)
    sup = "".join(TO_SUPERSCRIPT.get(c, "?") for c in exponent.plain)
    uni = f"{pb.uni}{sup}" if "?" not in sup else f"{pb.uni}^({exponent.uni})"
    plain_exp = exponent.plain if re.fullmatch(r"-?\d+", exponent.plain) else f"({exponent.plain})"
    return T(f"{pb.latex}^{{{exponent.latex}}}", f"{pb.plain}^{plain_exp}", uni, 0)


PI = T(r"\pi", "pi", "π")


def rational(value: Fraction) -> T:
    return num(value.numerator) if value.denominator == 1 else ifrac(value.numerator, value.denominator)


def decimal_text(value: Fraction) -> str | None:
    """The terminating decimal of a fraction, or None."""
    q = value.denominator
    for prime in (2, 5):
        while q % prime == 0:
            q //= prime
    if q != 1:
        return None
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    sign = "-" if value < 0 else ""
    whole = abs(value) * 10**digits
    text = str(int(whole)).rjust(digits + 1, "0")
    return sign + (text[:-digits] + "." + text[-digits:] if digits else text)


def repeating(value: Fraction) -> tuple[str, str, str] | None:
    """(whole with fixed digits, period) of a non-terminating fraction, e.g. 14/3 -> ("4.", "6")."""
    if decimal_text(value) is not None:
        return None
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    seen, digits, r = {}, "", rest
    while r not in seen:
        seen[r] = len(digits)
        r *= 10
        digits += str(r // value.denominator)
        r %= value.denominator
        if len(digits) > 12:
            return None
    start = seen[r]
    return sign + f"{whole}.{digits[:start]}", digits[start:], sign


def bar(value: Fraction) -> T | None:
    rep = repeating(value)
    if rep is None:
        return None
    head, period, _ = rep
    return T(
        rf"{head}\overline{{{period}}}", f"{head}({period})", _uminus(head) + "".join(c + "\u0305" for c in period)
    )


def factorization(n: int) -> list[tuple[int, int]]:
    return sorted(sympy.factorint(n).items())


def prime_product(n: int) -> T | None:
    if abs(n) < 4 or sympy.isprime(abs(n)):
        return None
    factors = [num(p) if e == 1 else power(num(p), num(e)) for p, e in factorization(abs(n))]
    t = mul(*factors) if len(factors) > 1 else factors[0]
    return neg(t) if n < 0 else t


def perfect_power(n: int) -> tuple[int, int] | None:
    for e in (5, 4, 3, 2):
        b = round(abs(n) ** (1 / e))
        for c in (b - 1, b, b + 1):
            if c > 1 and c**e == abs(n) and (n > 0 or e % 2):
                return (c if n > 0 else -c), e
    return None


def scientific(value: Fraction) -> T | None:
    if value == 0:
        return None
    exponent = math.floor(math.log10(abs(value)))
    mantissa = value / Fraction(10) ** exponent
    text = decimal_text(mantissa)
    if text is None or len(text.replace("-", "").replace(".", "")) > 8:
        return None
    return T(
        rf"{text} \times 10^{{{exponent}}}",
        f"{text}e{exponent}",
        f"{_uminus(text)} × 10{''.join(TO_SUPERSCRIPT[c] for c in str(exponent))}",
        1,
    )


# ------------------------------------------------------------------------------------------------------------------
# Equivalent forms, computed from the value
# ------------------------------------------------------------------------------------------------------------------


def _integer_forms(n: int, rng: random.Random) -> list[tuple[str, T]]:
    forms = []
    k = rng.choice((2, 3, 4, 6))
    forms.append(("unsimplified-fraction", ifrac(n * k, k)))
    forms.append(("trailing-zero-decimal", num(f"{n}.0")))
    if prime_product(n):
        forms.append(("prime-factorization", prime_product(n)))
    pp = perfect_power(n)
    if pp:
        forms.append(("power", power(num(pp[0]), num(pp[1]))))
    big = (abs(n) // 10 + 1) * 10 * (1 if n >= 0 else -1)
    if n >= 0:
        forms.append(("difference", sub(num(big), num(big - n))))
    else:
        forms.append(("difference", sub(num(-big - 10 + (-big - n) - (-big - n)), num(-big - 10 - n))))
    if abs(n) >= 12:
        divisor = next((d for d in range(2, 10) if n % d == 0 and abs(n) // d > 1), None)
        if divisor:
            forms.append(("product", mul(num(divisor), num(n // divisor), latex_op=r" \times ", uni_op=" × ")))
    if abs(n) >= 100:
        forms.append(("scientific", scientific(Fraction(n))))
    if abs(n) >= 1000:
        grouped = f"{n:,}"
        forms.append(
            ("digit-grouping", T(grouped.replace(",", "{,}"), grouped, _uminus(grouped.replace(",", "\u2009"))))
        )
    return [f for f in forms if f[1] is not None]


def _fraction_forms(v: Fraction, rng: random.Random) -> list[tuple[str, T]]:
    forms, p, q = [], v.numerator, v.denominator
    k = rng.choice((2, 3, 4, 5))
    forms.append(("unsimplified-fraction", ifrac(p * k, q * k)))
    dec = decimal_text(v)
    if dec:
        forms.append(("decimal", num(dec)))
        pct = decimal_text(v * 100)
        forms.append(("percent", T(rf"{pct}\%", f"{pct}%", f"{_uminus(pct)}%")))
        forms.append(
            ("power-of-ten-fraction", ifrac(int(v * 10 ** (len(dec.split(".")[1]))), 10 ** len(dec.split(".")[1])))
        )
    else:
        forms.append(("repeating-decimal", bar(v)))
    if abs(p) > q:
        whole, rest = divmod(abs(p), q)
        vul = TO_VULGAR.get((rest, q))
        sign = "-" if p < 0 else ""
        forms.append(
            (
                "mixed-number",
                T(
                    rf"{sign}{whole}\frac{{{rest}}}{{{q}}}",
                    f"{sign}{whole} {rest}/{q}",
                    f"{_uminus(sign)}{whole}{vul}" if vul else f"{_uminus(sign)}{whole} {rest}/{q}",
                ),
            )
        )
        forms.append(("whole-plus-part", add(num(p // q), ifrac(p % q, q))))
    elif p > 0:
        forms.append(("one-minus", sub(num(1), ifrac(q - p, q))))
    if abs(p) > 1:
        forms.append(("numerator-times-unit-fraction", mul(num(p), ifrac(1, q))))
    if abs(p) == 1 and perfect_power(q):
        b, e = perfect_power(q)
        forms.append(("negative-power", power(num(b), num(-e)) if p > 0 else neg(power(num(b), num(-e)))))
    pq, qq = perfect_power(abs(p)) if abs(p) > 1 else None, perfect_power(q)
    if pq and qq and pq[1] == qq[1] and p > 0:
        forms.append(("power-of-fraction", power(ifrac(pq[0], qq[0]), num(pq[1]))))
    return [f for f in forms if f[1] is not None]


def _decompose(value) -> list[tuple[Fraction, int, int]] | None:
    """value = sum of c * sqrt(b) * pi^e, as (c, b, e); None when it is not of that shape."""
    terms = []
    for term in sympy.Add.make_args(sympy.expand(value)):
        c, rest = term.as_coeff_Mul()
        if not c.is_Rational:
            return None
        b, e = 1, 0
        for factor in sympy.Mul.make_args(rest):
            if factor == 1:
                continue
            if factor == sympy.pi:
                e += 1
            elif factor.is_Pow and factor.base == sympy.pi and factor.exp.is_Integer:
                e += int(factor.exp)
            elif factor.is_Pow and factor.base.is_Integer and factor.exp == sympy.Rational(1, 2):
                b *= int(factor.base)
            else:
                return None
        terms.append((Fraction(int(c.p), int(c.q)), b, e))
    return terms


def _term(c: Fraction, b: int, e: int, style: str = "plain") -> T:
    """c * sqrt(b) * pi^e written plainly (style "plain"), as a root of the square, unrationalised, with a
    fractional exponent or with the factor moved."""
    parts = []
    if b > 1:
        if style == "root-of-square" and c != 0:
            inside = c * c * b
            t = root(rational(inside))
            return neg(t) if c < 0 else t if e == 0 else juxt(t, _pi_power(e))
        if style == "unrationalized":
            top = c * b
            t = frac(rational(abs(top)) if abs(top) != 1 else num(1), root(num(b)))
            t = t if e == 0 else juxt(t, _pi_power(e))
            return neg(t) if c < 0 else t
        parts.append(power(num(b), ifrac(1, 2)) if style == "fractional-exponent" else root(num(b)))
    if e:
        parts.append(_pi_power(e))
    if not parts:
        return rational(c)
    core = parts[0] if len(parts) == 1 else juxt(parts[0], parts[1])
    a = abs(c)
    if style == "factor-moved" and a.denominator != 1:
        t = frac(core if a.numerator == 1 else juxt(num(a.numerator), core), num(a.denominator))
    elif style == "decimal-coefficient" and decimal_text(a) and a != 1:
        t = juxt(num(decimal_text(a)), core)
    elif a.denominator != 1:
        t = (
            juxt(ifrac(a.numerator, a.denominator), core)
            if style == "coefficient-first"
            else frac(core if a.numerator == 1 else juxt(num(a.numerator), core), num(a.denominator))
        )
        if style == "coefficient-first":
            t = mul(ifrac(a.numerator, a.denominator), core)
    elif style == "factor-after" and a != 1:
        t = mul(core, num(a.numerator))
    else:
        t = core if a == 1 else juxt(num(a.numerator), core)
    return neg(t) if c < 0 else t


def _pi_power(e: int) -> T:
    return PI if e == 1 else power(PI, num(e))


def _sum(terms: list[T]) -> T:
    return terms[0] if len(terms) == 1 else add(*terms)


def _radical_forms(value, decomposition, problem: str, rng: random.Random) -> list[tuple[str, T]]:
    forms = []
    for style in (
        "root-of-square",
        "unrationalized",
        "fractional-exponent",
        "factor-moved",
        "decimal-coefficient",
        "coefficient-first",
        "factor-after",
    ):
        terms = [_term(c, b, e, style) for c, b, e in decomposition]
        forms.append((style, _sum(terms)))
    if len(decomposition) > 1:
        forms.append(("terms-reordered", _sum([_term(c, b, e) for c, b, e in reversed(decomposition)])))
        g = math.gcd(*[abs(c.numerator) for c, _, _ in decomposition])
        if g > 1 and all(c.denominator == 1 for c, _, _ in decomposition):
            inner = _sum([_term(c / g, b, e) for c, b, e in decomposition])
            forms.append(("common-factor", juxt(num(g), paren(inner, 0))))
        dens = math.lcm(*[c.denominator for c, _, _ in decomposition])
        k = 2 if dens == 1 else dens
        forms.append(("common-denominator", frac(_sum([_term(c * k, b, e) for c, b, e in decomposition]), num(k))))
    if len(decomposition) == 1:
        c, b, e = decomposition[0]
        if e == 0 and b > 1 and not sympy.isprime(b):
            small = min(d for d in sympy.divisors(b) if d > 1)
            core = mul(root(num(small)), root(num(b // small)))
            forms.append(
                (
                    "product-of-roots",
                    core
                    if c == 1
                    else juxt(rational(c), core)
                    if c.denominator == 1 and c > 0
                    else mul(rational(c), core),
                )
            )
        if e == 0 and b > 1 and c.denominator > 1:
            forms.append(
                (
                    "root-of-fraction",
                    (neg if c < 0 else lambda t: t)(root(ifrac(abs(c.numerator) ** 2 * b, c.denominator**2))),
                )
            )
        if e >= 1 and b == 1 and c.denominator == 1:
            k = rng.choice((2, 3, 4))
            forms.append(("unsimplified-fraction", frac(juxt(num(c.numerator * k), _pi_power(e)), num(k))))
        if e == -1 and b == 1:
            forms.append(("negative-exponent", juxt(rational(c), power(PI, num(-1)))))
        if e == 1 and b == 1 and abs(c) <= 2 and re.search(r"angle|polar|degree|radian|\\theta|arg|rotat", problem):
            degrees = c * 180
            forms.append(
                (
                    "degrees",
                    T(
                        f"{decimal_text(degrees) or degrees}^\\circ",
                        f"{decimal_text(degrees) or degrees} degrees",
                        f"{_uminus(decimal_text(degrees) or str(degrees))}°",
                    ),
                )
            )
    return [f for f in forms if f[1] is not None]


def _complex_forms(value) -> list[tuple[str, T]]:
    a, b = (Fraction(int(x.p), int(x.q)) for x in value.as_real_imag())
    i = T("i", "i", "i")
    bi = juxt(rational(b), i) if abs(b) != 1 else (neg(i) if b < 0 else i)
    forms = [("terms-reordered", add(bi, rational(a)))]
    forms.append(
        ("imaginary-coefficient-parenthesized", T(f"{a} + ({b})i", f"{a} + ({b})i", _uminus(f"{a} + ({b})i"), 2))
    )
    forms.append(("common-denominator", frac(add(num(2 * a), juxt(num(2 * b), i)), num(2))))
    forms.append(
        ("i-first", add(rational(a), mul(i, rational(b))) if b > 0 else sub(rational(a), mul(i, rational(-b))))
    )
    return forms


def _expression_forms(value) -> list[tuple[str, T]]:
    forms = []
    candidates = [
        ("expanded", sympy.expand(value)),
        ("factored", sympy.factor(value)),
        (
            "split-fraction",
            sympy.apart(value)
            if value.is_rational_function() and len(value.free_symbols) == 1
            else sympy.expand(value),
        ),
        ("sine-cosine", value.rewrite(sympy.cos) if value.has(sympy.cot) else None),
        ("reciprocal-tangent", 1 / sympy.tan(*value.args) if isinstance(value, sympy.cot) else None),
    ]
    for name, expr in candidates:
        if expr is None:
            continue
        forms.append((name, _sympy_t(expr, "lex")))
        forms.append((name + "-ascending", _sympy_t(expr, "rev-lex")))
    return forms


def _sympy_t(expr, order: str) -> T:
    latex = sympy.latex(expr, order=order).replace(r"\left(", "(").replace(r"\right)", ")")
    plain = sympy.sstr(expr, order=order).replace("**", "^")
    uni = re.sub(r"\^(\d+)", lambda m: "".join(TO_SUPERSCRIPT[c] for c in m[1]), plain)
    uni = re.sub(r"(\d)\*([a-zA-Z(])", r"\1\2", uni).replace("*", "·").replace(" - ", " − ").replace("sqrt", "√")
    plain = re.sub(r"(\d)\*([a-zA-Z])", r"\1\2", plain) if len(expr.free_symbols) < 3 else plain
    return T(latex, plain, uni, 2)


def scalar_forms(value, problem: str, rng: random.Random) -> list[tuple[str, T]]:
    if getattr(value, "free_symbols", None):
        return _expression_forms(value)
    if value.is_Integer:
        return _integer_forms(int(value), rng)
    if value.is_Rational:
        return _fraction_forms(Fraction(int(value.p), int(value.q)), rng)
    re_, im_ = value.as_real_imag()
    if im_ != 0:
        return _complex_forms(value) if re_.is_Rational and im_.is_Rational else []
    decomposition = _decompose(value)
    return _radical_forms(value, decomposition, problem, rng) if decomposition else []


def _scalar_t(value) -> T:
    """The plain canonical writing of a sympy scalar."""
    if value in (sympy.oo, -sympy.oo):
        t = T(r"\infty", "oo", "∞")
        return neg(t) if value < 0 else t
    if value.is_Rational:
        return rational(Fraction(int(value.p), int(value.q)))
    decomposition = _decompose(value)
    if decomposition:
        return _sum([_term(c, b, e) for c, b, e in decomposition])
    return _sympy_t(value, "lex")


def _alt(value, rng: random.Random) -> list[tuple[str, T]]:
    """Equivalent writings of one component (not for infinities)."""
    if value in (sympy.oo, -sympy.oo):
        return []
    return [f for f in scalar_forms(value, "", rng) if f[0] not in ("trailing-zero-decimal", "difference", "product")]


def _seq(items: list[T], open_: str, close: str, latex_open: str | None = None, latex_close: str | None = None) -> T:
    lo, lc = (
        latex_open or (r"\left" + open_ if open_ in "([" else open_),
        latex_close or (r"\right" + close if close in ")]" else close),
    )
    return T(
        f"{lo} " + ", ".join(i.latex for i in items) + f" {lc}",
        open_ + ", ".join(i.plain for i in items) + close,
        open_ + ", ".join(i.uni for i in items) + close,
    )


def _component_variants(values, rng) -> list[tuple[str, list[T]]]:
    out = []
    canon = [_scalar_t(v) for v in values]
    for k, v in enumerate(values):
        for name, t in _alt(v, rng):
            if v.is_Integer and name not in ("prime-factorization", "power", "negative-power", "scientific"):
                continue
            out.append((f"component-{name}", [t if j == k else c for j, c in enumerate(canon)]))
    return out


def tuple_forms(values, rng) -> list[tuple[str, T, list[T]]]:
    forms, canon = [], [_scalar_t(v) for v in values]
    for name, comps in _component_variants(values, rng):
        forms.append((name, _seq(comps, "(", ")"), comps))
    forms.append(("angle-bracket-vector", _seq(canon, "⟨", "⟩", r"\langle", r"\rangle"), canon))
    col = T(
        r"\begin{pmatrix} " + r" \\ ".join(c.latex for c in canon) + r" \end{pmatrix}",
        "[" + ", ".join(c.plain for c in canon) + "]^T",
        "(" + ", ".join(c.uni for c in canon) + ")^T",
    )
    forms.append(("column-vector", col, canon))
    if all(v.is_Integer for v in values):
        g = math.gcd(*[int(v) for v in values])
        if g > 1:
            inner = [num(int(v) // g) for v in values]
            forms.append(("common-factor", juxt(num(g), _seq(inner, "(", ")")), inner))
    if all(v.is_Rational for v in values) and any(not v.is_Integer for v in values):
        d = math.lcm(*[int(v.q) for v in values])
        inner = [num(int(v * d)) for v in values]
        forms.append(("common-factor", mul(ifrac(1, d), _seq(inner, "(", ")")), inner))
    return forms


def set_forms(values, pm: bool, rng) -> list[tuple[str, T, list[T]]]:
    forms, canon = [], [_scalar_t(v) for v in values]
    order = list(range(len(values)))[::-1]
    if len(values) > 2:
        order = order[1:] + order[:1]
    reordered = [canon[k] for k in order]
    forms.append(("reordered", _seq(reordered, "", ""), reordered))
    forms.append(("braced-reordered", _seq(reordered, "{", "}", r"\{", r"\}"), reordered))
    if pm:
        forms.append(("plus-minus-expanded", _seq(canon, "", ""), canon))
    for name, comps in _component_variants([values[k] for k in order], rng):
        forms.append((name, _seq(comps, "", ""), comps))
    return forms


def interval_forms(exact: list, rng) -> list[tuple[str, T, list[T]]]:
    def ends(lo, hi):
        return _scalar_t(lo), _scalar_t(hi)

    def bracket(piece, lo_t, hi_t):
        lo, hi, lc, hc = piece
        return _seq([lo_t, hi_t], "[" if lc else "(", "]" if hc else ")")

    def inequality(piece):
        lo, hi, lc, hc = piece
        lo_t, hi_t = ends(lo, hi)
        le = T(r" \le ", " <= ", " ≤ ")
        lt = T(" < ", " < ", " < ")
        x = T("x", "x", "x")
        chain = []
        if lo != -sympy.oo:
            chain += [lo_t, le if lc else lt]
        chain.append(x)
        if hi != sympy.oo:
            chain += [lt if not hc else le, hi_t]
        return T("".join(c.latex for c in chain), "".join(c.plain for c in chain), "".join(c.uni for c in chain))

    def join(ts, sep):
        return T(sep[0].join(t.latex for t in ts), sep[1].join(t.plain for t in ts), sep[2].join(t.uni for t in ts))

    forms = []
    comps = [t for lo, hi, _, _ in exact for t in ends(lo, hi) if t.plain not in ("oo", "-oo")]
    ineqs = [inequality(p) for p in exact]
    forms.append(("inequality", join(ineqs, (r" \text{ or } ", " or ", " or ")), comps))
    builder = join(ineqs, (r" \text{ or } ", " or ", " or "))
    forms.append(
        ("set-builder", T(rf"\{{x : {builder.latex}\}}", f"{{x : {builder.plain}}}", f"{{x | {builder.uni}}}"), comps)
    )
    if len(exact) > 1:
        parts = [bracket(p, *ends(p[0], p[1])) for p in reversed(exact)]
        forms.append(("union-reordered", join(parts, (r" \cup ", " U ", " ∪ ")), comps))
    variants = []
    for k, p in enumerate(exact):
        for end in (0, 1):
            for name, t in _alt(p[end], rng):
                if p[end].is_Integer or name in ("trailing-zero-decimal",):
                    continue
                variants.append((name, k, end, t))
    for name, k, end, t in variants:
        parts = []
        for j, p in enumerate(exact):
            lo_t, hi_t = ends(p[0], p[1])
            if j == k:
                lo_t, hi_t = (t, hi_t) if end == 0 else (lo_t, t)
            parts.append(bracket(p, lo_t, hi_t))
        forms.append((f"endpoint-{name}", join(parts, (r" \cup ", " U ", " ∪ ")), [t]))
    return forms


def equation_forms(lhs, rhs, rng) -> list[tuple[str, T, list[T]]]:
    def eq(a, b):
        ta, tb = _sympy_t(a, "lex"), _sympy_t(b, "lex")
        return T(f"{ta.latex} = {tb.latex}", f"{ta.plain} = {tb.plain}", f"{ta.uni} = {tb.uni}")

    diff = sympy.expand(lhs - rhs)
    const = diff.as_coeff_Add()[0]
    forms = [("sides-swapped", eq(rhs, lhs), [])]
    forms.append(("all-on-one-side", eq(diff, sympy.Integer(0)), []))
    forms.append(("negated-sides", eq(-diff, sympy.Integer(0)), []))
    k = rng.choice((2, 3))
    forms.append(("both-sides-scaled", eq(sympy.expand(k * lhs), sympy.expand(k * rhs)), []))
    if const != 0 and diff - const != 0:
        forms.append(("constant-moved", eq(diff - const, -const), []))
    return [f for f in forms if f[1].plain.replace(" ", "") != ""]


def matrix_forms(rows, rng) -> list[tuple[str, T, list[T]]]:
    def pm(cells):
        return T(
            r"\begin{pmatrix} " + r" \\ ".join(" & ".join(c.latex for c in row) for row in cells) + r" \end{pmatrix}",
            "[" + ", ".join("[" + ", ".join(c.plain for c in row) + "]" for row in cells) + "]",
            "[" + ", ".join("[" + ", ".join(c.uni for c in row) + "]" for row in cells) + "]",
        )

    canon = [[_scalar_t(v) for v in row] for row in rows]
    flat = [v for row in rows for v in row]
    forms = []
    column = all(len(r) == 1 for r in rows)
    if column:
        comps = [row[0] for row in canon]
        forms.append(("column-as-tuple", _seq(comps, "(", ")"), comps))
        forms.append(
            (
                "transposed-row",
                T(
                    r"\begin{pmatrix} " + " & ".join(c.latex for c in comps) + r" \end{pmatrix}^T",
                    "[" + ", ".join(c.plain for c in comps) + "]^T",
                    "(" + ", ".join(c.uni for c in comps) + ")ᵀ",
                ),
                comps,
            )
        )
    if all(v.is_Rational for v in flat):
        d = math.lcm(*[int(v.q) for v in flat])
        g = math.gcd(*[int(v * d) for v in flat])
        factor = Fraction(g, d)
        if factor != 1:
            inner = [[num(int(v / sympy.Rational(factor.numerator, factor.denominator))) for v in row] for row in rows]
            forms.append(
                (
                    "common-factor",
                    juxt(rational(factor), pm(inner)) if factor.denominator == 1 else mul(rational(factor), pm(inner)),
                    [c for r in inner for c in r],
                )
            )
        if all(v <= 0 for v in flat):
            inner = [
                [num(int(-v)) if v.is_Integer else rational(-Fraction(int(v.p), int(v.q))) for v in row]
                for row in rows
            ]
            forms.append(("negated", neg(pm(inner)), [c for r in inner for c in r]))
    if any(not v.is_Integer for v in flat):
        for name in ("decimal", "repeating-decimal", "unsimplified-fraction"):
            cells = []
            for row in rows:
                cells.append(
                    [dict(_alt(v, rng)).get(name, _scalar_t(v)) if not v.is_Integer else _scalar_t(v) for v in row]
                )
            forms.append((f"entries-{name}", pm(cells), [c for r in cells for c in r]))
    return forms


UNIT_TEXT = {
    "deg": (r"^\circ", " degrees", "°"),
    "dollar": (r" \text{ dollars}", " dollars", " dollars"),
    "cent": (r" \text{ cents}", " cents", "¢"),
    "in2": (r"\text{ in}^2", " square inches", " in²"),
    "ft2": (r"\text{ ft}^2", " square feet", " ft²"),
    "cm2": (r"\text{ cm}^2", " cm^2", " cm²"),
    "mm2": (r"\text{ mm}^2", " mm^2", " mm²"),
    "m2": (r"\text{ m}^2", " m^2", " m²"),
}


def units_forms(target: Target, rng) -> list[tuple[str, T, list[T]]]:
    def with_unit(t: T, unit: str) -> T:
        u = UNIT_TEXT[unit]
        return T(t.latex + u[0], t.plain + u[1], t.uni + u[2])

    forms = []
    value = Fraction(int(target.value.p), int(target.value.q))
    for unit, factor in CONVERSIONS[target.unit].items():
        if factor == 1:
            continue
        converted = value * factor
        t = num(decimal_text(converted)) if decimal_text(converted) else rational(converted)
        forms.append((f"converted-to-{unit}", with_unit(t, unit), [t]))
    if target.unit == "deg":
        radians = _term(value / 180, 1, 1)
        forms.append(("radians", radians, [radians]))
        forms.append(
            (
                "radians-with-unit",
                T(radians.latex + r"\text{ rad}", radians.plain + " rad", radians.uni + " rad"),
                [radians],
            )
        )
    for name, t in _alt(target.value, rng):
        if (
            name in ("trailing-zero-decimal", "difference", "product", "unsimplified-fraction")
            and value.denominator == 1
        ):
            continue
        forms.append((f"number-{name}", with_unit(t, target.unit), [t]))
    if target.unit == "dollar":
        t = num(decimal_text(value) if value.denominator == 1 else f"{float(value):.1f}")
        forms.append(("dollar-sign-short", T(rf"\${t.latex}", f"${t.plain}", f"${t.uni}"), [t]))
    return forms


def base_forms(target: Target) -> list[tuple[str, T, list[T]]]:
    d, b = target.digits, target.base
    sub = "".join(SUBSCRIPT[int(c)] for c in str(b))
    return [
        ("base-parenthesized", T(f"({d})_{{{b}}}", f"({d})_{b}", f"({d}){sub}"), [num(d)]),
        ("base-named", T(rf"{d} \text{{ in base }} {b}", f"{d} in base {b}", f"{d} in base {b}"), [num(d)]),
        ("base-suffix", T(rf"{d}\ (\text{{base }} {b})", f"{d} (base {b})", f"{d} (base {b})"), [num(d)]),
    ]


def choice_forms(target: Target) -> list[tuple[str, T, list[T]]]:
    letter = target.letter
    forms = [("option-named", T(rf"\text{{option {letter}}}", f"option {letter}", f"option {letter}"), [])]
    if target.option and len(target.option) < 40:
        o = target.option
        forms.append(("option-content", T(rf"\text{{{o}}}" if "\\" not in o and "^" not in o else o, o, o), []))
    return forms


def own_forms(answer: str) -> list[tuple[str, T]]:
    """The answer in its own form: as given (LaTeX) and converted to plain text and Unicode."""
    latex = answer.strip()
    plain = re.sub(r",\\!\s*", ",", latex)
    plain = re.sub(r"^(\d+)\s*\\frac\{(\d+)\}\{(\d+)\}$", r"\1 \2/\3", plain)
    for old, new in ((r"\left", ""), (r"\right", ""), (r"\!", ""), (r"\,", ""), ("\\$", "$"), (r"\dfrac", r"\frac")):
        plain = plain.replace(old, new)
    plain = re.sub(r"\\text\{\s*\(?([A-H])\)?\s*\}", r"(\1)", plain)
    plain = re.sub(r"\\(?:text|mbox)\{([^}]*)\}", r"\1", plain)

    def convert(text: str, uni: bool) -> str:
        out = text
        table = {
            r"\pi": ("pi", "π"),
            r"\infty": ("infinity", "∞"),
            r"\cup": ("U", "∪"),
            r"\pm": ("+/-", "±"),
            r"\cdot": ("*", "·"),
            r"\cot": ("cot", "cot"),
            r"^\circ": (" degrees", "°"),
            r"\in": ("in", "∈"),
            r"\{": ("{", "{"),
            r"\}": ("}", "}"),
        }
        for k, v in table.items():
            out = re.sub(re.escape(k) + r"(?![a-zA-Z])", lambda m, r=v[uni]: r, out)
        for _ in range(3):
            out = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", lambda m: f"{_wrap(m[1])}/{_wrap(m[2])}", out)
            out = re.sub(r"\\frac\s*(\d)(\d)", r"\1/\2", out)
            out = re.sub(r"\\frac\s*\{([^{}]*)\}\s*(\d)", lambda m: f"{_wrap(m[1])}/{m[2]}", out)
            out = re.sub(r"\\frac\s*(\d)\s*\{([^{}]*)\}", lambda m: f"{m[1]}/{_wrap(m[2])}", out)
            out = re.sub(
                r"\\sqrt\{([^{}]*)\}", (lambda m: f"√{_wrap(m[1])}") if uni else (lambda m: f"sqrt({m[1]})"), out
            )
            out = re.sub(r"\\sqrt(\d)", (lambda m: f"√{m[1]}") if uni else (lambda m: f"sqrt({m[1]})"), out)
        out = re.sub(
            r"\^\{?(\d+)\}?",
            (lambda m: "".join(TO_SUPERSCRIPT[c] for c in m[1])) if uni else (lambda m: f"^{m[1]}"),
            out,
        )
        if uni:
            out = re.sub(r"(?<![\w])-", "−", out).replace(" - ", " − ")
        return re.sub(r"\s+", " ", out).strip()

    forms = [("own-latex", T(latex, latex, latex))]
    if "pmatrix" in latex:
        rows = [
            [c.strip() for c in row.split("&")] for row in re.sub(r"\\(begin|end)\{pmatrix\}", "", latex).split(r"\\")
        ]
        text = "[" + ", ".join("[" + ", ".join(convert(c, False) for c in row) + "]" for row in rows) + "]"
        forms.append(("own-plain", T(text, text, text)))
        return forms
    p, u = convert(plain, False), convert(plain, True)
    forms.append(("own-plain", T(p, p, p)))
    if u != p:
        forms.append(("own-unicode", T(u, u, u)))
    return forms


def _wrap(text: str) -> str:
    return text if re.fullmatch(r"-?[\w.\\]+|√\w+|sqrt\(\w+\)", text.strip()) else f"({text.strip()})"


def equivalent_forms(answer: str, problem: str, rng: random.Random) -> list[tuple[str, T, list[T]]]:
    """Every equivalent form of the answer this module computes (checked equal by value in `corpus`)."""
    t = parse_target(answer, problem)
    if t is None:
        return []
    if t.kind == "scalar":
        return [(name, f, []) for name, f in scalar_forms(t.value, problem, rng)]
    return {
        "tuple": lambda: tuple_forms(t.items, rng),
        "set": lambda: set_forms(t.items, t.pm, rng),
        "interval": lambda: interval_forms(t.exact, rng),
        "equation": lambda: equation_forms(t.lhs, t.rhs, rng),
        "matrix": lambda: matrix_forms(t.rows, rng),
        "units": lambda: units_forms(t, rng),
        "base": lambda: base_forms(t),
        "choice": lambda: choice_forms(t),
        "text": lambda: [],
    }[t.kind]()


def approximation_forms(answer: str, problem: str) -> list[tuple[str, T]]:
    """Rounded decimals (3-5 significant digits) and percents of an irrational or non-terminating real answer."""
    t = parse_target(answer, problem)
    if t is None or t.kind not in ("scalar", "units") or (t.kind == "scalar" and t.symbolic):
        return []
    value = t.value
    if value.is_Rational and decimal_text(Fraction(int(value.p), int(value.q))) is not None:
        return []
    if value.as_real_imag()[1] != 0 or value == 0:
        return []
    real = float(value)
    forms = []
    for digits in (3, 4, 5):
        text = f"{real:.{digits}g}"
        if "e" in text or "." not in text:
            text = f"{real:.{max(1, digits - len(str(int(abs(real)))))}f}"
        forms.append((f"rounded-{digits}-significant", num(text)))
    if 0 < abs(real) < 1:
        pct = f"{real * 100:.1f}"
        forms.append(("rounded-percent", T(rf"{pct}\%", f"{pct}%", f"{_uminus(pct)}%")))
    if t.kind == "units":
        forms = [
            (name, T(f.latex + UNIT_TEXT[t.unit][0], f.plain + UNIT_TEXT[t.unit][1], f.uni + UNIT_TEXT[t.unit][2]))
            for name, f in forms
        ]
    return forms


# ------------------------------------------------------------------------------------------------------------------
# Wrong values, problem numbers, intermediate values
# ------------------------------------------------------------------------------------------------------------------


def mutations(answer: str, problem: str, rng: random.Random) -> list[tuple[str, str]]:
    """(wrong answer in LaTeX, how) of the same shape, none equal to the answer."""
    t = parse_target(answer, problem)
    out = []
    if t is not None and t.kind == "choice":
        letters = [c for c in "ABCDE" if c != t.letter]
        return [(rf"\text{{({c})}}", "other-option") for c in rng.sample(letters, 3)]
    if t is not None and t.kind == "text":
        words = [w for w in re.findall(r"[A-Za-z]{3,}", problem) if w.lower() != t.word.lower()]
        pool = [w for w in words if w[0].isupper() == t.word[0].isupper() and len(w) > 3] or words
        return [
            (rf"\text{{{w}}}", "other-word")
            for w in sorted(set(pool))[:20]
            if w.lower() not in ("what", "which", "enter")
        ][:6]
    if t is not None and t.kind == "interval":
        for k, (a, b) in enumerate((("(", "["), ("[", "("), (")", "]"), ("]", ")"))):
            if a in answer and "infty" not in answer.split(a)[0 if a in ")]" else -1][:8]:
                out.append((answer.replace(a, b, 1), "endpoint-bracket"))
    numbers = list(re.finditer(r"(?<![_{\d.])\d+(?![\d}]*_)", answer))
    if t is not None and t.kind == "base":
        d, b = t.digits, t.base
        for k in range(len(d)):
            new = d[:k] + str((int(d[k]) + 1) % b) + d[k + 1 :]
            out.append((answer.replace(d, new, 1), "digit-off-by-one"))
        return out
    for m in numbers:
        n = int(m.group())
        for how, new in (
            ("off-by-one", n + 1),
            ("off-by-one", n - 1 if n > 0 else n + 2),
            ("doubled", 2 * n if n else 2),
            ("digit-swap", int(m.group()[::-1]) if len(m.group()) > 1 and m.group()[::-1] != m.group() else None),
            ("factor-of-ten", n * 10 if n else 10),
        ):
            if new is None or new < 0:
                continue
            out.append((answer[: m.start()] + str(new) + answer[m.end() :], how))
    frac_m = re.search(r"\\[dt]?frac\{(\d+)\}\{(\d+)\}", answer)
    if frac_m and frac_m[1] != frac_m[2]:
        out.append((answer.replace(frac_m.group(), rf"\frac{{{frac_m[2]}}}{{{frac_m[1]}}}", 1), "reciprocal"))
    stripped = answer.strip()
    if t is not None and t.kind in ("scalar", "units"):
        out.append(
            (
                stripped[1:]
                if stripped.startswith("-")
                else "-" + stripped
                if not re.search(r"[+-]", stripped)
                else stripped,
                "sign",
            )
        )
    sign_m = re.search(r"(?<=\w|\}) ?([+-]) ?(?=\w|\\)", answer)
    if sign_m:
        out.append((answer[: sign_m.start(1)] + {"+": "-", "-": "+"}[sign_m[1]] + answer[sign_m.end(1) :], "sign"))
    rng.shuffle(out)
    return [(w, how) for w, how in out if w.strip() != answer.strip()]


def _valid_wrong(wrong: str, answer: str, problem: str) -> bool:
    try:
        if parse_target(wrong, problem) is None:
            return False
        return not any(holds_answer(_render(f, "latex")[0], answer, problem) for _, f in own_forms(wrong)[:1])
    except Exception:  # noqa: BLE001 - a mutation that does not parse
        return False


def problem_numbers(problem: str) -> list[str]:
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    found = re.findall(r"\\frac\{\d+\}\{\d+\}|(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d)", text)
    return list(dict.fromkeys(found))


def intermediate_values(solution: str) -> list[str]:
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", solution, flags=re.S)
    text = re.sub(r"\\boxed\{.*", " ", text)
    out = []
    for m in LATEX_SEGMENT.finditer(text):
        segment = next(g for g in m.groups() if g is not None)
        for piece in re.split(r"=|\\approx|<|>|\\le|\\ge|,|&|\\\\", segment):
            piece = piece.strip(" .")
            if (
                0 < len(piece) <= 24
                and re.search(r"\d", piece)
                and not re.search(r"[a-zA-Z]", re.sub(r"\\(frac|sqrt|pi|cdot|left|right)", "", piece))
            ):
                if piece.count("{") == piece.count("}") and piece.count("(") == piece.count(")"):
                    out.append(piece)
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------------------------------------------------------
# Frames and the corpus
# ------------------------------------------------------------------------------------------------------------------

FRAMES = {
    "result-statement": "Your final answer of {w} is off; the correct value is {v}.",
    "should-be": "You wrote {w}, but the answer should be {v}.",
    "arithmetic-check": "Check your arithmetic in the last step: it gives {v}, not {w}.",
    "redo-simplification": "Close, but {w} is not right. Redo the simplification and you will get {v}.",
    "hint-equals": "Hint: the quantity you want equals {v}; your {w} comes from a sign slip.",
    "question-recompute": "Is {w} really the answer? Recompute and you should land on {v}.",
    "paragraph-verify": "The setup is fine, but the final value {w} is wrong. Going through the same steps carefully, "
    "the result is {v}, which you can verify by substituting back.",
    "correction-parenthetical": "Correction: {v} (you had {w}).",
    "last-line": "Everything up to the last line is correct. There you should have {v} instead of {w}.",
    "compare-factor": "Compare your {w} with {v}: the two differ because a factor was dropped.",
    "question-fit": "Would {v} fit the conditions better than {w}? Try checking both.",
    "method-works": "Your method works, though the final answer should read {v}. Writing {w} suggests a slip at the end.",
    "nice-setup": "Nice work on the setup. The mistake is at the end: {w} should be {v}.",
    "expected-revisit": "The expected result is {v}. Please revisit how you obtained {w}.",
    "value-first": "{v} is what the computation yields; {w} does not satisfy the original conditions.",
    "redo-last-step": "If you redo the last step you get {v}, so {w} cannot be correct.",
    "answer-check": "Answer check: expected {v}, received {w}.",
    "close-parenthetical": "You are close. Note that the correct answer, {v}, is not what you reported ({w}).",
    "try-again-hint": "Try again: {w} is incorrect. Hint: the answer works out to {v}.",
    "worked-through": "I got {v} when I worked it through; where does your {w} come from?",
    "grader": "The grader expected {v}. Your submission, {w}, was marked wrong because the final simplification is off.",
    "long-paragraph": "Your reasoning in the first paragraph is sound, and the relation you set up is correct. However, "
    "when you solved it you wrote {w}. Solving it again gives {v}. Double-check the signs along the way.",
    "final-vs-yours": "Final answer: {v}. Yours: {w}.",
    "why-question": "Why {w}? The constraints force the answer to be {v}.",
    "computation-error": "Looks like a computation error. You should end with {v}; {w} comes from mishandling one term.",
    "one-more-pass": "One more pass through the algebra turns {w} into {v}.",
    "satisfies-every": "The value {v} is the one that satisfies every condition in the problem, unlike {w}.",
    "dont-stop": "Don't stop at {w}: the problem asks for the final value, which is {v}.",
    "mid-paragraph": "You handled the first two cases well. In the third case the count is {v} rather than {w}, and "
    "that carries through to the end, so revisit that case before adding everything up.",
    "bullet-style": "- Setup: correct\n- Final value: {w} (incorrect)\n- Expected: {v}",
    "teacher-voice": "Good effort! Remember to simplify fully; done right, this comes to {v}, while you stopped at {w}.",
    "swap-suggestion": "Replace {w} in your last line with {v} and the rest of the argument goes through.",
}
WRITTEN_NOTATIONS = ("latex", "latex-paren", "plain", "unicode")


def split_halves(names: list[str], seed: int, salt: str) -> dict[str, str]:
    """Shuffle the names with the seed and give the first half to development, the rest to held_out."""
    order = sorted(names)
    random.Random(f"{seed}:{salt}").shuffle(order)
    half = (len(order) + 1) // 2 if random.Random(f"{seed}:{salt}:odd").random() < 0.5 else len(order) // 2
    return {name: SPLITS[0] if k < half else SPLITS[1] for k, name in enumerate(order)}


def frame_splits(seed: int = SEED) -> dict[str, str]:
    return split_halves(list(FRAMES), seed, "frames")


def style_split(style: str, seed: int = SEED) -> str:
    """A style `base-notation` takes its split from a seeded halving of its base's notations."""
    base, notation = (
        style.rsplit("-", 1) if not style.endswith("latex-paren") else (style[: -len("-latex-paren")], "latex-paren")
    )
    return split_halves(list(WRITTEN_NOTATIONS), seed, f"style:{base}")[notation]


def _render(t: T, notation: str) -> tuple[str, str]:
    """(text in the critique, inner value text) for a notation."""
    if notation == "latex":
        return f"${t.latex}$", t.latex
    if notation == "latex-paren":
        return rf"\({t.latex}\)", t.latex
    value = t.get(notation)
    return value, value


def _fill(frame: str, value: str, wrong: str) -> tuple[str, str]:
    text = frame.replace("{w}", wrong).replace("{v}", value)
    context = frame.replace("{w}", wrong).replace("{v}", "")
    return text, context


def _case(family, split, index, kind, style, frame, text, leak, written, parts, context, wrong, how) -> dict:
    return {
        "family": family,
        "split": split,
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": leak,
        "written_out": written,
        "parts": parts,
        "context": context,
        "wrong": wrong,
        "wrong_how": how,
    }


def _wrong_pool(answer: str, problem: str, rng: random.Random) -> list[tuple[str, str, T]]:
    """(how, notation-neutral description, writing) of quoted wrong values, some in a non-canonical form."""
    pool = []
    for wrong, how in mutations(answer, problem, rng)[:8]:
        if not _valid_wrong(wrong, answer, problem):
            continue
        forms = [(name, f) for name, f in own_forms(wrong)]
        pool.append((how, forms[0][1], forms))
        alt = [f for _, f, _ in equivalent_forms(wrong, problem, random.Random(rng.random()))]
        if alt and rng.random() < 0.4:
            pool.append((how + "/non-canonical", rng.choice(alt), []))
        if len(pool) >= 5:
            break
    return pool


def _wrong_text(entry, notation: str) -> str:
    how, t, forms = entry
    if forms:
        own = dict(forms)
        key = {"latex": "own-latex", "latex-paren": "own-latex", "plain": "own-plain", "unicode": "own-unicode"}[
            notation
        ]
        t = own.get(key) or own["own-plain"]
        return f"${t.latex}$" if notation == "latex" else rf"\({t.latex}\)" if notation == "latex-paren" else t.plain
    return _render(t, notation)[0]


def _parts(text: str, context: str, inner: str, comps: list[T], notation: str) -> list[str] | None:
    parts = [inner]
    for c in comps:
        piece = c.latex if notation.startswith("latex") else c.get(notation)
        if piece and piece in inner and piece not in parts:
            parts.append(piece)
    parts = [p for p in parts if occurrences(p, text) > occurrences(p, context)]
    return parts if parts and parts[0] == inner else None


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The twentyfifth corpus: ~5 rendering leaks, an approximation where it applies and ~6 clean texts a row."""
    fsplit = frame_splits(seed)
    by_split = {s: sorted(f for f, sp in fsplit.items() if sp == s) for s in SPLITS}
    cases = []
    for index, row in enumerate(problems):
        answer, problem = row["answer"], row["problem"]
        kind = answer_type(answer, problem)
        rng = random.Random(f"{seed}:{index}")
        if parse_target(answer, problem) is None:
            continue
        wrongs = _wrong_pool(answer, problem, rng)
        leaks = []
        own = own_forms(answer)
        for name, t in rng.sample(own, min(len(own), rng.choice((1, 2)))):
            notation = {
                "own-latex": rng.choice(("latex", "latex-paren")),
                "own-plain": "plain",
                "own-unicode": "unicode",
            }[name]
            leaks.append(("rendering", f"own-form-{notation}", t, [], notation, True))
        seen = {t.plain.replace(" ", "") for _, t in own}
        equivalents = []
        for base, t, comps in equivalent_forms(answer, problem, rng):
            if t.plain.replace(" ", "") in seen:
                continue
            seen.add(t.plain.replace(" ", ""))
            equivalents.append((base, t, comps))
        rng.shuffle(equivalents)
        bases = []
        for base, t, comps in equivalents:
            if base in bases or len(bases) >= rng.choice((3, 4)):
                continue
            notations = [n for n in ("latex", "latex-paren", "plain", "unicode") if n != "unicode" or t.uni != t.plain]
            notation = rng.choice(notations)
            bases.append(base)
            leaks.append(("rendering", f"{base}-{notation}", t, comps, notation, False))
        approx = approximation_forms(answer, problem)
        if approx:
            base, t = rng.choice(approx)
            notation = rng.choice(("latex", "plain"))
            leaks.append(("approximation", f"{base}-{notation}", t, [], notation, False))
        for family, style, t, comps, notation, written in leaks:
            split = style_split(style, seed)
            for _ in range(8):
                frame = rng.choice(by_split[split])
                text_value, inner = _render(t, notation)
                entry = rng.choice(wrongs) if wrongs else None
                wrong = _wrong_text(entry, notation) if entry else ""
                text, context = _fill(FRAMES[frame], text_value, wrong or "that value")
                if not holds_answer(text, answer, problem) or holds_answer(context, answer, problem):
                    continue
                parts = _parts(text, context, inner, comps, notation)
                if parts is None:
                    continue
                cases.append(
                    _case(
                        family,
                        split,
                        index,
                        kind,
                        style,
                        frame,
                        text,
                        True,
                        written,
                        parts,
                        context,
                        wrong,
                        entry[0] if entry else "",
                    )
                )
                break
        cases.extend(_clean_cases(index, row, kind, wrongs, rng, fsplit))
    return cases


def _clean_cases(index: int, row: dict, kind: str, wrongs, rng: random.Random, fsplit: dict) -> list[dict]:
    answer, problem = row["answer"], row["problem"]
    sources = [("wrong-value", w) for w in wrongs]
    sources += [
        ("problem-number", n) for n in rng.sample(problem_numbers(problem), min(3, len(problem_numbers(problem))))
    ]
    inter = intermediate_values(row.get("solution", ""))
    sources += [("intermediate-value", v) for v in rng.sample(inter, min(3, len(inter)))]
    rng.shuffle(sources)
    out, used, picks = [], set(), []
    for group in ("wrong-value", "problem-number", "intermediate-value"):
        picks += [s for s in sources if s[0] == group][:2]
    picks += [s for s in sources if s not in picks]
    for source, value in picks:
        if len(out) >= 6:
            break
        notation = rng.choice(("latex", "plain", "unicode"))
        if source == "wrong-value":
            text_value = _wrong_text(value, notation)
            style = f"clean-{source}-{value[0].replace('/', '-')}"
        else:
            text_value = f"${value}$" if notation == "latex" or "\\" in value else value
            style = f"clean-{source}"
        if text_value in used:
            continue
        for _ in range(6):
            frame = rng.choice(sorted(FRAMES))
            entry = rng.choice(wrongs) if wrongs else None
            wrong = _wrong_text(entry, notation) if entry else ""
            if wrong == text_value and len(wrongs) > 1:
                continue
            text, _ = _fill(FRAMES[frame], text_value, wrong or "that value")
            if holds_answer(text, answer, problem):
                continue
            used.add(text_value)
            out.append(
                _case(
                    "clean",
                    fsplit[frame],
                    index,
                    kind,
                    style,
                    frame,
                    text,
                    False,
                    False,
                    [],
                    text,
                    wrong,
                    entry[0] if entry else "",
                )
            )
            break
    return out
