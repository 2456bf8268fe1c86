"""Values as checkers print them: proof assistants (Lean 4 with Mathlib, Isabelle/HOL, Coq), numeric languages (R,
Julia, Maxima, Haskell) and test harnesses, each written in the notation the guard reads. Read before NFKC folds
`ℚ` to "Q".
"""

import re

from .pieces import first_of_overlapping


# Lean's type ascription of a number, Coq's scope after a value: `(14 : ℚ) / 3`, `({3, 5, 7} : Finset ℤ)`, `42%Z`
_TYPE_ASCRIPTION = re.compile(r"(?<=[\d)}\]])[ \t]*:[ \t]*(?:(?:Finset|Set|List|Multiset)[ \t]+)?[ℚℝℤℕℂ](?=\))")
_SCOPE = re.compile(r"(?<=[\d)\]])%(?:Z|N|Q|R|nat|int|positive)\b")

# Mathlib's and Coq's names of constants, the square root and functions: `Real.sqrt 13`, `Real.pi / 4`, `6 - 5 *
# Complex.I`, `Real.cot x`, `(288 * PI)%R`
_NAMES = {"Real.sqrt": "√", "Real.pi": "π", "Complex.I": "i", "PI": "pi", "Real.": ""}
_NAME = re.compile(r"\b(?:Real\.sqrt[ \t]*(?=[\d(])|Real\.pi\b|Complex\.I\b|(?<![\w.])PI(?![\w(])|Real\.(?=[a-z]+\b))")

# A choice as an enumeration's constructor or a Julia symbol: `Choice.C`, `:C`
_CHOICE_NAME = re.compile(r"\bChoice\.(?P<letter>[A-E])\b|(?<![\w:]):(?P<symbol>[A-E])\b")

# Julia's rational (`14//3`) and Haskell's (`3 % 56`), Coq's `7 # 2`
_RATIONAL = re.compile(r"(?<=[\d)])[ \t]*//[ \t]*(?=[-\d(])|(?<=[\d)])[ \t]+[%#][ \t]+(?=\(?-?\d)")

# Julia's imaginary unit (`6 - 5im`), Maxima's constants (`%pi`, `%i`, `%e`), Isabelle's complex number
# (`Complex 1 (-12)`)
_JULIA_IMAGINARY = re.compile(r"(?<=\d)im\b")
_MAXIMA_CONSTANT = re.compile(r"%(pi|i|e)\b")
_PART = r"-?\d+(?:\.\d+)?|\(-?\d+(?:\.\d+)?\)"
_ISABELLE_COMPLEX = re.compile(rf"\bComplex[ \t]+(?P<real>{_PART})[ \t]+(?P<imaginary>{_PART})")

# R's printed vector of several numbers (`[1] 8 -2`), Maxima's input and output labels and R's index before one
# number (`(%o1) 14/3`, `[1] 0.05357143`)
_R_PRINTED_VECTOR = re.compile(
    r"(?:^|(?<=[\s:>]))\[1\][ \t]+(?P<values>-?\d+(?:\.\d+)?(?:[ \t]+-?\d+(?:\.\d+)?)+)[ \t]*$", re.MULTILINE
)
_OUTPUT_LABEL = re.compile(r"\(%[io]\d{1,4}\)[ \t]*|(?:^|(?<=[\s:>]))\[\d{1,4}\][ \t]+(?=[-\d.])", re.MULTILINE)

# Lean's matrix and vector notations (`!![1, 2; 3, 4]`, `![1, 2, 3]`), its goal's turnstile and conjunction
# (`⊢ x = 15 ∧ y = -29`), R's vector (`c(-7, 16, 5)`) and Julia's set (`Set([3, 5, 7])`)
_LEAN_LITERAL = re.compile(r"(?<![\w!])!!?(?=\[)|⊢[ \t]*")
_CONJUNCTION = re.compile(r"[ \t]*∧[ \t]*")
_R_VECTOR = re.compile(r"\bc\((?=[-\d.])")
_JULIA_SET = re.compile(r"\bSet\(\[(?P<items>[^\[\]()\n]{1,120})\]\)")

# R's matrix, filled by column (`matrix(c(-1, 0, 0, -1), nrow = 2)`), and Maxima's, one argument per row
# (`matrix([-2], [-14], [-7])`)
_R_MATRIX = re.compile(r"\bmatrix\(c\((?P<entries>[^()\n]{1,200})\),[ \t]*nrow[ \t]*=[ \t]*(?P<rows>\d{1,2})\)")
_MAXIMA_MATRIX = re.compile(r"\bmatrix\((?P<rows>\[[^\[\]()\n]{1,80}\](?:,[ \t]*\[[^\[\]()\n]{1,80}\]){1,15})\)")

# What the first pass leaves in brackets: a Mathlib or Isabelle interval (`Set.Ioc (3 / 5) (8 / 3)`, `Set.Ici 2`,
# `{3<..4}`, `{2<..}`, `{..<5}`), a Lean set freed of its type (`({3, 5, 7})`), inequalities in parentheses that
# "or" or "and" joins (`(0 < x < 9) or (9 < x < 36)`)
_BOUND = r"-?[\d√π][^\s()]{0,20}|\((?:[^()\n]|\([^()\n]{0,30}\)){1,40}\)"
_MATHLIB_INTERVAL = re.compile(
    rf"\bSet\.I(?P<kinds>[oc][oc]|[oc]i|i[oc])[ \t]+(?P<first>{_BOUND})(?:[ \t]+(?P<second>{_BOUND}))?"
)
_ISABELLE_INTERVAL = re.compile(
    r"\{[ \t]*(?P<low>[^{}<.\n]{1,30}?)?[ \t]*(?P<low_open><)?\.\."
    r"(?P<high_open><)?[ \t]*(?P<high>[^{}<.\n]{1,30}?)?[ \t]*\}"
)
_SET_IN_PARENTHESES = re.compile(r"\((?P<set>\{[^{}()\n]{1,200}\})\)")
_INEQUALITY_IN_PARENTHESES = r"\((?P<{}>[^()\n]{{0,40}}[<>≤≥][^()\n]{{1,40}})\)"
_JOINED_INEQUALITIES = re.compile(
    _INEQUALITY_IN_PARENTHESES.format("first")
    + r"[ \t]+(?P<join>or|and)[ \t]+"
    + _INEQUALITY_IN_PARENTHESES.format("second")
)


def _value_pieces(text: str) -> list[tuple[int, int, str]]:
    """The first pass: matrices, names, types and scopes, rationals, labels and literals of a checker."""
    pieces = [
        (*match.span(), matrix) for match in _R_MATRIX.finditer(text) if (matrix := _r_matrix(match)) is not None
    ]
    pieces += [(*match.span(), "[" + match["rows"] + "]") for match in _MAXIMA_MATRIX.finditer(text)]
    pieces += [(*match.span(), ", ".join(match["values"].split())) for match in _R_PRINTED_VECTOR.finditer(text)]
    pieces += [
        (*match.span(), f"{match['real']} + {match['imaginary']}i") for match in _ISABELLE_COMPLEX.finditer(text)
    ]
    pieces += [(*match.span(), "") for match in _TYPE_ASCRIPTION.finditer(text)]
    pieces += [(*match.span(), "") for match in _SCOPE.finditer(text)]
    pieces += [(*match.span(), _NAMES[match.group().rstrip()]) for match in _NAME.finditer(text)]
    pieces += [(*match.span(), f"({match['letter'] or match['symbol']})") for match in _CHOICE_NAME.finditer(text)]
    pieces += [(*match.span(), "/") for match in _RATIONAL.finditer(text)]
    pieces += [(*match.span(), "i") for match in _JULIA_IMAGINARY.finditer(text)]
    pieces += [(*match.span(), match[1]) for match in _MAXIMA_CONSTANT.finditer(text)]
    pieces += [(*match.span(), "") for match in _OUTPUT_LABEL.finditer(text)]
    pieces += [(*match.span(), "") for match in _LEAN_LITERAL.finditer(text)]
    pieces += [(*match.span(), " and ") for match in _CONJUNCTION.finditer(text)]
    pieces += [(*match.span(), "(") for match in _R_VECTOR.finditer(text)]
    pieces += [(*match.span(), "{" + match["items"] + "}") for match in _JULIA_SET.finditer(text)]
    return first_of_overlapping(pieces)


def _bracket_pieces(text: str) -> list[tuple[int, int, str]]:
    """The second pass: intervals, sets and joined inequalities, their bounds and items written by the first."""
    pieces = [
        (*match.span(), interval)
        for match in _MATHLIB_INTERVAL.finditer(text)
        if (interval := _mathlib_interval(match)) is not None
    ]
    pieces += [
        (*match.span(), interval)
        for match in _ISABELLE_INTERVAL.finditer(text)
        if (interval := _isabelle_interval(match)) is not None
    ]
    pieces += [(*match.span(), match["set"]) for match in _SET_IN_PARENTHESES.finditer(text)]
    pieces += [
        (*match.span(), f"{match['first']} {match['join']} {match['second']}")
        for match in _JOINED_INEQUALITIES.finditer(text)
    ]
    return first_of_overlapping(pieces)


# A checker's notation, read in two passes: `Set.Ioc ((3 : ℚ) / 5) (Real.sqrt 3)` is `Set.Ioc ((3) / 5) (√3)`
# after the first, `((3) / 5, √3]` after the second
FORMAL_PASSES = (_value_pieces, _bracket_pieces)


def _mathlib_interval(match: re.Match) -> str | None:
    kinds, first, second = match["kinds"], match["first"], match["second"]
    if kinds.endswith("i"):  # `Set.Ioi 2`: from a bound up
        return ("(" if kinds[0] == "o" else "[") + f"{first}, \\infty)"
    if kinds.startswith("i"):  # `Set.Iio 5`: up to a bound
        return f"(-\\infty, {first}" + (")" if kinds[1] == "o" else "]")
    if second is None:
        return None
    return ("(" if kinds[0] == "o" else "[") + f"{first}, {second}" + (")" if kinds[1] == "o" else "]")


def _isabelle_interval(match: re.Match) -> str | None:
    low, high = match["low"], match["high"]
    if low is None and high is None:
        return None
    opening = "(-\\infty" if low is None else ("(" if match["low_open"] else "[") + low.strip()
    closing = "\\infty)" if high is None else high.strip() + (")" if match["high_open"] else "]")
    return f"{opening}, {closing}"


def _r_matrix(match: re.Match) -> str | None:
    entries = [entry.strip() for entry in match["entries"].split(",")]
    row_count = int(match["rows"])
    if not row_count or len(entries) % row_count:
        return None
    rows = [entries[row::row_count] for row in range(row_count)]  # R fills a matrix column by column
    return "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"
