"""Collections (decision 8): tuples, sets and lists, intervals and unions, vectors and matrices, read in any of a
reviewer's notations and compared item by item.
"""

import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .normalise import MAX_CANDIDATE_LENGTH
from .text import _sides, _unmatched_brackets
from .values import _THOUSANDS_SEPARATOR, _close, _value, _variables


_INFINITY = r"(?:\\infty|∞|oo)"

_INEQUALITY_OPERATORS = {
    **dict.fromkeys(["<=", "=<", "≤", "\\le", "\\leq", "\\leqslant"], "<="),
    **dict.fromkeys(["<", "\\lt"], "<"),
    **dict.fromkeys([">=", "=>", "≥", "\\ge", "\\geq", "\\geqslant"], ">="),
    **dict.fromkeys([">", "\\gt"], ">"),
}


def _list_or_union(texts: list[str], joins: list[list[str]]) -> "_Collection | None":
    """Values joined in prose (`joins`: the words between each two): intervals make a union of the intersections that
    "and" (or "but") joins ("x > 2 and x < 12 or x > 12 and x < 102"; "x > 3 and x <= 4" is one interval; with no
    "or", "and" joins them all); values a list ("3, 5 and 7")."""
    intervals = [_collection(text) for text in texts]
    if all(
        interval is not None and interval.kind == "bracketed" and len(interval.items) == 2 for interval in intervals
    ):
        joined = [bool({"and", "but"} & set(join)) for join in joins]  # "x > 0 but x < 5" is one interval
        either = any("or" in join for join in joins)
        groups = [[intervals[0]]]
        for interval, conjunction in zip(intervals[1:], joined, strict=True):
            if conjunction if either else any(joined):
                groups[-1].append(interval)
            else:
                groups.append([interval])
        # "and" intersects half-lines ("x > 3 and x <= 4"); two intervals bounded at both ends are listed, not met
        if any(len(group) > 1 and sum(not _half_line(interval) for interval in group) > 1 for group in groups):
            return None
        pieces = [_intersection(group) for group in groups]
        if None in pieces:
            return None
        return _union(pieces)
    items = [_items(text) for text in texts]
    return None if None in items else _Collection("list", tuple(itertools.chain(*items)))


_ROW_LABEL = re.compile(r"\b(?:row|line)\b", re.IGNORECASE)


def _rows(texts: list[str], joins: list[str]) -> "_Collection | None":
    """Items listed in prose as the rows of a matrix: each a bracketed tuple ("rows (-1, 0) and (0, -1)"), or runs of
    values whose rows a semicolon or the next row's label ends ("first row -1, 0; second row 0, -1", "first row -1, 0
    and second row 0, -1")."""
    tuples = [_collection(text) for text in texts]
    if all(row is not None and row.kind == "bracketed" for row in tuples):
        rows = [list(row.items) for row in tuples]
    else:
        rows, row = [], []
        for text, join in zip(texts, [*joins, ";"], strict=True):
            items = _items(text)
            if items is None:
                return None
            row += items
            if ";" in join or _ROW_LABEL.search(join):
                rows.append(row)
                row = []
    if len(rows) < 2 or len({len(row) for row in rows}) != 1:
        return None
    return _matrix_or_vector(rows)


def _half_line(interval: "_Collection") -> bool:
    return any(map(math.isinf, interval.items))


def _intersection(intervals: "list[_Collection]") -> "_Collection | None":
    """The interval common to `intervals` (bracketed pairs), or `None` when it is empty: the largest lower bound (open
    at a tie) and the smallest upper bound (open at a tie)."""
    low, opening = max(((interval.items[0], interval.brackets[0]) for interval in intervals), key=_open_last)
    high, closing = min(((interval.items[1], interval.brackets[1]) for interval in intervals), key=_closed_last)
    return _Collection("bracketed", (low, high), opening + closing) if low < high else None


def _open_last(bound: tuple) -> tuple:
    return bound[0], bound[1] == "("


def _closed_last(bound: tuple) -> tuple:
    return bound[0], bound[1] == "]"


@dataclass(frozen=True)
class _Collection:
    """A collection of values: `kind` "set" (unordered: `3, 5, 7`, `1 \\pm \\sqrt{19}`, `\\{1, -2\\}`), "list" (a prose
    list, "3, 5 and 7", which states a set or, in its order, a tuple), "bracketed" (a tuple, vector, point or
    interval, with its `brackets`: `(15,-29)`, `[-2,7]`, `(5,\\infty)`), "matrix" (rows of values) or "union" (of
    bracketed intervals)."""

    kind: str
    items: tuple
    brackets: str = ""
    vector: bool = False  # written as a matrix environment: a vector, whatever brackets a tuple stating it has
    point: bool = False  # a point or ordered pair by the problem's words, whatever brackets a tuple stating it has


_INFINITE = re.compile(rf"([-+]?)\s*{_INFINITY}")

_COLLECTION_NOISE = re.compile(r"\\(?:left|right|big|Big|bigl|bigr)(?![A-Za-z])|\\[!,;:]|\\q?quad(?![A-Za-z])")

_ELEMENT_OF = re.compile(r"^\s*[A-Za-z]\s*(?:\\in(?![A-Za-z])|∈|in\b)\s*")  # AsciiMath's "x in (2, oo)"

_MATRIX = re.compile(
    r"\\begin\s*\{\s*([pbBvV]?matrix|array)\s*\}(?:\s*\{[^{}]*\})?(?P<body>.*?)\\end\s*\{\s*\1\s*\}", re.DOTALL
)

_ANGLE_BRACKETS = re.compile(r"^(?:\\langle|<)(?P<body>.*)(?:\\rangle|>)$", re.DOTALL)

_SET_BRACES = re.compile(r"^\\\{(?P<body>.*)\\\}$", re.DOTALL)

# (its variable may be Greek and said to be real: `\{ \lambda \in \mathbb{R} : 3 < \lambda \le 4 \}`)
_SET_BUILDER = re.compile(
    r"(?:\\\{|\{)\s*(?:[A-Za-z]|\\[a-z]+)\s*(?:(?:\\in(?![A-Za-z])|∈)\s*(?:\\mathbb\s*\{?\s*R\s*\}?|ℝ)\s*)?"
    r"(?:\||:|\\mid(?![A-Za-z]))\s*(?P<condition>.+?)\s*(?:\\\}|\})"
)

# A factor before a vector or matrix: "(1/3)(-1, 2, 5)", `\frac{1}{49}\begin{pmatrix}...`, `2 \cdot [1, 3]`, a sign
# ("-[[1, 0], [0, 1]]")
_SCALAR_FACTOR = re.compile(
    r"(?:(?P<factor>\([^()]{1,20}\)|\\[dt]?frac\s*\{[^{}]{1,20}\}\s*\{[^{}]{1,20}\}|-?\d+(?:\.\d+)?(?:/\d+)?)|(?P<minus>-))"
    r"\s*(?:\\cdot|\*)?\s*(?P<collection>(?:\(|\[|\\begin|\\langle).*)",
    re.DOTALL,
)

_OR = re.compile(r"\\text\s*\{\s*or\s*\}|\bor\b")  # "{x | x < 2 \text{ or } x > 3}"

# "{1, -2}", "{1, \sqrt{2}}": a list in the order written
_PLAIN_BRACES = re.compile(r"^\{(?P<body>(?:[^{}]|\{[^{}]*\})*)\}$")

_ROW_CELL_SEPARATOR = re.compile(r"[ \t]*,[ \t]*|[ \t]+")

_PLUS_MINUS = re.compile(r"\\pm(?![A-Za-z])|\\mp(?![A-Za-z])")

_UNION = re.compile(r"\\cup(?![A-Za-z])|∪")

_MAX_ITEMS = 16

_REAL_LINE = _Collection("bracketed", (-math.inf, math.inf), "()")

_REAL_LINE_NAME = re.compile(r"\\mathbb\s*\{?\s*R\s*\}?|ℝ|\\?R(?![A-Za-z])")  # NFKC writes ℝ as R

# A set less another: `\mathbb{R} \setminus [2, 3]`, `(0, 36] \setminus \{9\}`, `ℝ ∖ {9}`
_SET_DIFFERENCE = re.compile(
    r"(?P<whole>[^∖]+?)\s*(?:\\setminus(?![A-Za-z])|\\backslash(?![A-Za-z])|∖)\s*(?P<removed>.+)"
)

_TRANSPOSE_MARK = r"\s*\^\s*(?:\{\s*(?:T|\\top|\\intercal)\s*\}|T|\\top|\\intercal)(?![A-Za-z])"
_TRANSPOSE = re.compile(rf"(?<=[)\]}}]){_TRANSPOSE_MARK}$")  # `(1, 2, 3)^T`, `\end{bmatrix}^\top`

_HALF_LINE_INEQUALITY = re.compile(
    r"[A-Za-z]\s*(?P<operator>"
    + "|".join(re.escape(operator) for operator in sorted(_INEQUALITY_OPERATORS, key=len, reverse=True))
    + r")(?![A-Za-z])\s*(?P<bound>[^<>≤≥=]+)"
)

# the variable after its bound, as Mathematica's `Reduce` prints a half-line: `2 < x`
_REVERSED_HALF_LINE_INEQUALITY = re.compile(
    r"(?P<bound>[^<>≤≥=]+?)\s*(?P<operator>"
    + "|".join(re.escape(operator) for operator in sorted(_INEQUALITY_OPERATORS, key=len, reverse=True))
    + r")\s*[A-Za-z]"
)

_REVERSED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}

_INEQUALITY_CHAIN = re.compile(
    r"(?P<low>[^<>≤≥]+?)\s*(?P<first><=|<|≤|\\leq?(?![A-Za-z])|\\lt(?![A-Za-z]))\s*(?:[A-Za-z]|\\[a-z]+)\s*"
    r"(?P<second><=|<|≤|\\leq?(?![A-Za-z])|\\lt(?![A-Za-z]))\s*(?P<high>[^<>≤≥]+)"
)


@lru_cache(maxsize=4096)
def _collection(text: str) -> _Collection | None:
    """`text` read as a collection of values, or `None` when it is none (one value, an item we cannot evaluate,
    more than `_MAX_ITEMS` items)."""
    text = _ELEMENT_OF.sub("", _COLLECTION_NOISE.sub(" ", text)).strip().rstrip(".")
    transposed = _TRANSPOSE.search(text)
    text = _TRANSPOSE.sub("", text)  # a vector as a transposed row: `(1, 2, 3)^T`
    if transposed and ";" not in text and "," not in text and not _MATRIX.fullmatch(text):
        return _matrix_in_rows(text)  # its values apart by spaces: "[-7 16 5]^T"
    set_builder = _SET_BUILDER.fullmatch(text)
    if set_builder:  # {x | 3 < x <= 4}: the interval its condition states, or the union of its conditions
        conditions = _OR.split(set_builder.group("condition"))
        if len(conditions) > 1:
            return _list_or_union(conditions, [["or"]] * (len(conditions) - 1))
        return _collection(conditions[0])
    if len(text) > 4 * MAX_CANDIDATE_LENGTH:
        return None
    if _UNION.search(text):
        return _union([_collection(part) for part in _UNION.split(text)])
    difference = _SET_DIFFERENCE.fullmatch(text)
    if difference:  # `\mathbb{R} \setminus [2, 3]`, `(0, 36] \setminus \{9\}`
        whole = (
            _REAL_LINE
            if _REAL_LINE_NAME.fullmatch(difference.group("whole"))
            else _collection(difference.group("whole"))
        )
        return _without(whole, _collection(difference.group("removed")) or _items(difference.group("removed")))
    half_line = _HALF_LINE_INEQUALITY.fullmatch(text)
    reversed_half_line = None if half_line else _REVERSED_HALF_LINE_INEQUALITY.fullmatch(text)
    if half_line or reversed_half_line:  # x <= 0 (or 0 >= x): the half-line (-\infty, 0]
        inequality = half_line or reversed_half_line
        bound, operator = _value(inequality.group("bound")), _INEQUALITY_OPERATORS[inequality.group("operator")]
        if reversed_half_line:
            operator = _REVERSED[operator]
        if bound is None:
            return None
        if operator.startswith("<"):
            return _Collection("bracketed", (-math.inf, bound), "(" + ("]" if operator == "<=" else ")"))
        return _Collection("bracketed", (bound, math.inf), ("[" if operator == ">=" else "(") + ")")
    chain = _INEQUALITY_CHAIN.fullmatch(text)
    if chain:  # -2 <= x <= 7: the interval [-2, 7]
        low, high = _value(chain.group("low")), _value(chain.group("high"))
        if low is None or high is None:
            return None
        first, second = (_INEQUALITY_OPERATORS[chain.group(side).lower()] for side in ("first", "second"))
        return _Collection("bracketed", (low, high), ("(" if first == "<" else "[") + (")" if second == "<" else "]"))
    scaled = _SCALAR_FACTOR.fullmatch(text)
    if scaled:  # (1/3)(-1, 2, 5), `\frac{1}{49}\begin{pmatrix} 16 \\ 48 \end{pmatrix}`: a factor drawn out
        factor = Fraction(-1) if scaled["minus"] else _value(scaled["factor"])
        return _scaled_collection(factor, _collection(scaled["collection"]))
    matrix = _MATRIX.fullmatch(text)
    if matrix:
        rows = [row.split("&") for row in re.split(r"\\\\", matrix.group("body")) if row.strip()]
        values = [[_value(cell) for cell in row] for row in rows]
        if not rows or any(value is None for row in values for value in row) or len({len(row) for row in rows}) != 1:
            return None
        if transposed:
            values = [list(column) for column in zip(*values, strict=True)]
        return _matrix_or_vector(values)  # a vector is written as a tuple too
    if "\n" in text:
        return _matrix_in_lines(text)
    if ";" in text:
        return _matrix_in_rows(text)
    nested = _nested_rows(text)
    if nested is not None:
        return nested
    plain_braces = _PLAIN_BRACES.fullmatch(text)
    if plain_braces:
        items = _items(plain_braces.group("body"))
        return None if items is None or len(items) < 2 else _Collection("list", items)
    for pattern, kind, brackets in ((_ANGLE_BRACKETS, "bracketed", "()"), (_SET_BRACES, "set", "")):
        match = pattern.fullmatch(text)
        if match:
            items = _items(match.group("body"))
            return (
                None
                if items is None
                else _Collection(kind, items if kind == "bracketed" else _sorted(items), brackets)
            )
    if text[:1] in "([" and text[-1:] in ")]" and _unmatched_brackets(text[1:-1]) == 0 and _closes_at_end(text):
        items = _items(text[1:-1], infinite=True)
        if items is None or len(items) < 2:
            return None
        # an infinite end is open whatever its bracket: Maple's `(2, infinity]`, SymPy's `Interval(-oo, 0)`
        brackets = ("(" if items[0] == -math.inf else text[0]) + (")" if items[-1] == math.inf else text[-1])
        return _Collection("bracketed", items, brackets)
    if "," in _THOUSANDS_SEPARATOR.sub("", text) or _PLUS_MINUS.search(text):
        items = _items(text)
        return None if items is None or len(items) < 2 else _Collection("set", _sorted(items))
    return None


def _union(pieces: list) -> _Collection | None:
    """The union of intervals (the one interval where there is one); `None` where a piece is no interval."""
    if not pieces or any(piece is None or piece.kind != "bracketed" or len(piece.items) != 2 for piece in pieces):
        return None
    if len(pieces) == 1:
        return pieces[0]
    return _Collection("union", tuple(sorted((piece.items, piece.brackets) for piece in pieces)))


def _without(whole: _Collection | None, removed: "_Collection | tuple | None") -> _Collection | None:
    """An interval less an interval inside it (`\\mathbb{R} \\setminus [2, 3]`) or less one point in it ("from 0 to
    36, but not 9"): the union of what is left; `None` for anything else."""
    if whole is None or whole.kind != "bracketed" or len(whole.items) != 2 or removed is None:
        return None
    (low, high), brackets = whole.items, whole.brackets or "??"
    if isinstance(removed, tuple):  # points: a set `\{9\}` read as its items
        if len(removed) != 1:
            return None
        removed = _Collection("bracketed", (removed[0], removed[0]), "[]")
    if removed.kind == "set" and len(removed.items) == 1:
        removed = _Collection("bracketed", (removed.items[0], removed.items[0]), "[]")
    if removed.kind != "bracketed" or len(removed.items) != 2 or len(removed.brackets) != 2:
        return None
    (cut_low, cut_high), cut = removed.items, removed.brackets
    if not low < cut_low <= cut_high < high:
        return None
    return _union(
        [
            _Collection("bracketed", (low, cut_low), brackets[0] + (")" if cut[0] == "[" else "]")),
            _Collection("bracketed", (cut_high, high), ("(" if cut[1] == "]" else "[") + brackets[1]),
        ]
    )


def _scaled_collection(factor: Fraction | float | None, collection: _Collection | None) -> _Collection | None:
    """A vector or matrix times a number, item by item; `None` for anything else (an interval is scaled by no one)."""
    if factor is None or isinstance(factor, complex) or collection is None:
        return None
    if collection.kind == "matrix":
        return _Collection("matrix", tuple(tuple(factor * item for item in row) for row in collection.items))
    if collection.kind == "bracketed" and not any(map(math.isinf, collection.items)):
        return _Collection("bracketed", tuple(factor * item for item in collection.items), "()", vector=True)
    return None


def _matrix_in_rows(text: str) -> _Collection | None:
    """A matrix written in rows separated by semicolons, its cells by spaces or commas ("-1 0; 0 -1", "[1, 2; 3, 4]");
    one column or one row is a vector."""
    if text[:1] in "([" and text[-1:] in ")]":
        text = text[1:-1]
    rows = [[_value(cell) for cell in _ROW_CELL_SEPARATOR.split(row.strip())] for row in text.split(";")]
    if any(value is None for row in rows for value in row) or len({len(row) for row in rows}) != 1:
        return None
    return _matrix_or_vector(rows)


_LINE_OF_A_MATRIX = re.compile(r"[ \t]*[\[(]?(?P<row>[^\[\]()\n;]*?)[\])]?[ \t]*")


def _matrix_in_lines(text: str) -> _Collection | None:
    """A matrix laid out one row a line, each row bare or in brackets of its own ("[ -2 ]\n[ -14 ]", "-1 0\n0 -1")."""
    rows = [_LINE_OF_A_MATRIX.fullmatch(line) for line in text.split("\n")]
    if any(row is None or not row.group("row").strip() for row in rows):
        return None
    return _matrix_in_rows(";".join(row.group("row") for row in rows))


def _nested_rows(text: str) -> _Collection | None:
    """A matrix written as a list of its rows: "[[-1, 0], [0, -1]]", "((1, 2), (3, 4))"."""
    if not (text[:1] in "([" and text[-1:] in ")]" and text[1:2] in "([" and _closes_at_end(text)):
        return None
    rows, depth, start = [], 0, 1
    for position, character in enumerate(text[1:-1], start=1):
        depth += 1 if character in "([{" else -1 if character in ")]}" else 0
        if character == "," and depth == 0:
            rows.append(text[start:position].strip())
            start = position + 1
    rows.append(text[start:-1].strip())
    if not all(row[:1] in "([" and row[-1:] in ")]" and _closes_at_end(row) for row in rows):
        return None
    if all(row[0] == "(" and not _is_collection(row) for row in rows):  # "((pi^2)/8), ((5 pi^2)/4)" groups, not rows
        return None
    items = [_items(row[1:-1]) for row in rows]
    if None in items or len({len(row) for row in items}) != 1 or len(items[0]) > _MAX_ITEMS:
        return None
    return _matrix_or_vector(items)


def _matrix_or_vector(rows: list) -> _Collection:
    """Rows of values as a matrix, or as a vector when there is one row or one column."""
    if len(rows) == 1 or len(rows[0]) == 1:
        return _Collection("bracketed", tuple(value for row in rows for value in row), "()", vector=True)
    return _Collection("matrix", tuple(tuple(row) for row in rows))


def _unit_vector_components(candidate: str, dimension: int) -> tuple | None:
    r"""The components of a vector written in the unit vectors i, j, k ("-2i - 14j - 7k", `3\hat{i} + 4\hat{j}`) of a
    space of `dimension` (at most 3), or `None` when `candidate` is none."""
    candidate = _UNIT_VECTOR_MARK.sub("", candidate)
    letters = "ijk"[:dimension]
    variables = _variables(candidate)
    if not variables or not variables <= set(letters):
        return None
    components = []
    for axis in letters:
        component = _value(_UNIT_VECTOR.sub(lambda match: "(1)" if match.group() == axis else "(0)", candidate))
        if component is None:
            return None
        components.append(component)
    return tuple(components)


_UNIT_VECTOR = re.compile(r"(?<![A-Za-z\\])[ijk](?![A-Za-z])")

_UNIT_VECTOR_MARK = re.compile(r"\\(?:hat|mathbf|vec|boldsymbol|bf)(?![A-Za-z])\s*")


def _closes_at_end(text: str) -> bool:
    """Whether the bracket that opens `text` is the one that closes it: `(1,2)`, not `(1)(2)`."""
    depth = 0
    for position, character in enumerate(text):
        depth += 1 if character in "([{" else -1 if character in ")]}" else 0
        if depth == 0:
            return position == len(text) - 1
    return False


def _items(text: str, infinite: bool = False) -> tuple | None:
    """The values of the comma-separated items of `text` (`a \\pm b` two of them), or `None` if one is no value."""
    items, depth, start = [], 0, 0
    pieces = []
    text = text.replace("{,}", "")  # `1{,}000`; a bare comma separates items: `(12,102)`
    for position, character in enumerate(text):
        depth += 1 if character in "([{" else -1 if character in ")]}" else 0
        if character == "," and depth == 0:
            pieces.append(text[start:position])
            start = position + 1
    pieces.append(text[start:])
    for piece in pieces:
        piece = piece.strip()
        sides, _ = _sides(piece, 0, len(piece))  # "x = 15": its value
        piece = piece[slice(*sides[-1])] if sides else piece
        infinity = _INFINITE.fullmatch(piece) if infinite else None
        if infinity:
            items.append(-math.inf if infinity.group(1) == "-" else math.inf)
            continue
        signs = _PLUS_MINUS.split(piece)
        if len(signs) == 2:
            values = [_value(f"{signs[0]} + ({signs[1]})"), _value(f"{signs[0]} - ({signs[1]})")]
        elif len(signs) == 1:
            values = [_value(piece)]
        else:
            return None
        if any(value is None for value in values):
            return None
        items += values
    return tuple(items) if len(items) <= _MAX_ITEMS else None


def _sorted(items: tuple) -> tuple:
    return tuple(sorted(items, key=float))


def _same_collection(candidate: _Collection, reference: _Collection) -> bool:
    """Whether a collection the feedback states is the reference: the same values, in order unless both are sets,
    with the same brackets (an open interval and a point look alike; a vector, a point the problem asks for, or a pair
    whose first value is not below its second and so is no interval, may be a tuple in any brackets: `[8, -2]` states
    `(8,-2)`)."""
    if candidate.kind == "list":
        if reference.kind == "set":
            return _same_items(_sorted(candidate.items), reference.items)
        return (
            reference.kind == "bracketed"
            and reference.brackets == "()"
            and _same_items(candidate.items, reference.items)
        )
    if candidate.kind == "bracketed" and candidate.brackets in ("()", "[]") and reference.kind == "set":
        return _same_items(_sorted(candidate.items), reference.items)  # "(3, 5, 7)", "[3, 5, 7]" list 3, 5, 7
    if candidate.kind != reference.kind:
        return False
    if candidate.kind == "matrix":
        return len(candidate.items) == len(reference.items) and all(
            _same_items(row, reference_row)
            for row, reference_row in zip(candidate.items, reference.items, strict=False)
        )
    if candidate.kind == "union":
        return len(candidate.items) == len(reference.items) and all(
            _same_brackets(brackets or "??", reference_brackets) and _same_items(items, reference_items)
            for (items, brackets), (reference_items, reference_brackets) in zip(
                candidate.items, reference.items, strict=False
            )
        )
    if (
        candidate.kind == "bracketed"
        and candidate.brackets
        and not _same_brackets(candidate.brackets, reference.brackets)
    ):
        if not (
            (reference.vector or reference.point or len(reference.items) > 2 or not _increasing(reference.items))
            and {candidate.brackets, reference.brackets} <= {"()", "[]"}
        ):
            return False
    return _same_items(candidate.items, reference.items)


def _same_brackets(brackets: str, reference_brackets: str) -> bool:
    """Whether `brackets` ("?" an end left unsaid: "(?") are the reference's."""
    return len(brackets) == len(reference_brackets) and all(
        bracket in ("?", reference_bracket) for bracket, reference_bracket in zip(brackets, reference_brackets)
    )


def _increasing(items: tuple) -> bool:
    """Whether `items` could be an interval's ends: each below the next."""
    return all(first < second for first, second in itertools.pairwise(items))


def _same_items(items: tuple, reference_items: tuple) -> bool:
    return len(items) == len(reference_items) and all(
        item == reference_item if math.isinf(item) or math.isinf(reference_item) else _close(item, reference_item)
        for item, reference_item in zip(items, reference_items, strict=True)
    )


def _is_collection(text: str) -> bool:
    return "," in _THOUSANDS_SEPARATOR.sub("", text)
