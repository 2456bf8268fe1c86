"""Normalisation of feedback text before it is read: Unicode forms and homoglyphs, number words, scripts,
symbols and spellings, each mapped to the LaTeX-like text the rest of the guard reads, with an index map back to
the original characters so that a redaction cuts the text the provider wrote.
"""

import difflib
import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from text_to_num import alpha2digit

from .conventions import convention_pieces
from .extracted import extraction_pieces
from .formal import FORMAL_PASSES
from .languages import (
    ALPHA2DIGIT_LANGUAGES,
    CENTAVOS,
    is_number_word,
    language,
    language_pieces,
    number_word_pieces,
    switched_decimal_comma_pieces,
    switched_runs,
)
from .markup import json_string_pieces, markup_pieces
from .pieces import COUNT_IN_A_COMPOUND, NUMBER_WORD_AHEAD, first_of_overlapping, wrapper_pieces
from .spoken import (
    mathspeak_pieces,
    spoken_fraction_pieces,
    spoken_matrix_pieces,
    spoken_symbol_pieces,
    spoken_word_pieces,
)
from .tex import MAX_TEX_NESTING, tex_pieces


# A statement of the answer is short; longer expressions are not compared, which also bounds the work math-verify does
# without a timeout off the main thread.
MAX_CANDIDATE_LENGTH = 120


@dataclass(frozen=True)
class _Normalised:
    """A text rewritten for the guard to read, with the span of the original each of its characters comes from."""

    text: str
    starts: tuple[int, ...] | None = None  # None: the text is the original
    ends: tuple[int, ...] | None = None

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return (start, end) if self.starts is None else (self.starts[start], self.ends[end - 1])

    def rewritten(self, pieces: list[tuple[int, int, str]]) -> "_Normalised":
        """The text with each `(start, end, replacement)` piece (sorted, not overlapping) replaced; the characters of a
        replacement come from the whole original span of the characters it replaces."""
        if not pieces:
            return self
        text, starts, ends, position = [], [], [], 0
        old_starts = self.starts or tuple(range(len(self.text)))
        old_ends = self.ends or tuple(range(1, len(self.text) + 1))
        for start, end, replacement in pieces:
            text.append(self.text[position:start])
            starts += old_starts[position:start]
            ends += old_ends[position:start]
            first, last = min(start, len(self.text) - 1), max(end, start + 1) - 1  # an insertion takes its neighbour
            text.append(replacement)
            starts += [old_starts[first]] * len(replacement)
            ends += [old_ends[min(last, len(self.text) - 1)]] * len(replacement)
            position = end
        text.append(self.text[position:])
        starts += old_starts[position:]
        ends += old_ends[position:]
        return _Normalised("".join(text), tuple(starts), tuple(ends))

    def rewritten_until_settled(self, pieces_of: Callable[[str], list], passes: int) -> "_Normalised":
        """The text rewritten by `pieces_of(text)` again and again, at most `passes` times, until it gives none: for
        constructs read innermost first (`\\fbox{\\textbf{\\num{9}}}`, a MathSpeak fraction of roots)."""
        normalised = self
        for _ in range(passes):
            pieces = pieces_of(normalised.text)
            if not pieces:
                break
            normalised = normalised.rewritten(pieces)
        return normalised


_NON_ASCII = re.compile(r"[^\x00-\x7f]")

# A text in capitals only, three words of them at least, is captions: its case says nothing of a variable's
_CAPITALS_WORD = re.compile(r"\b[A-Z]{2,}\b")
_LOWER_CASE = re.compile(r"[a-z]")
_UPPER_CASE = re.compile(r"[A-Z]+")

# a hyphen between words ("forty-two", "x-intercept"); between two one-letter variables ("p-q") it is a minus sign
_HYPHEN_BETWEEN_LETTERS = re.compile(r"(?<=[A-Za-z]{2})-(?=[A-Za-z])|(?<=[A-Za-z])-(?=[A-Za-z]{2})")


# a value restated in brackets, as a word and its digits: "seven (7)", "七（7）"; not a product
_RESTATED = re.compile(r"(?<![\w.])(?P<value>-?\d+(?:\.\d+)?)\s*\(\s*(?P=value)\s*\)")

_WORD_OR_SPACE = re.compile(r"\s+|\w+|[^\w\s]")

_CLAUSE = re.compile(r"[^.;:!?\n]+|[.;:!?\n]+")
# a comma after a scale word, inside one number: "two thousand, two hundred and twenty"
_SCALE_COMMA = re.compile(
    r"(?:(?<=\bthousand)|(?<=\bmillion)|(?<=\bbillion)),"
    r"(?=[ ]+(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty"
    r"|ninety|a[ ]+hundred)\b)",
    re.IGNORECASE,
)
_QUOTE_MARK = re.compile(r"(?<![^\W\d_])['‘’]|['‘’](?![^\W\d_])")

_CLAUSE_TOKENS = 64  # a clause longer than this (words and spaces) is read in pieces of about this many
_INSIDE_A_NUMBER = frozenset({"point", "dot", "and", "a", "minus", "negative"})  # "two point five", "a hundred"

# What number words become after alpha2digit: "three quarters" -> "3 quarters", "two thirds" -> "2 3rds".
_FRACTION_WORDS = re.compile(
    r"\b(?:(?P<numerator>\d+)|(?P<one>a|an|one))[ ]+"
    r"(?:(?P<half>half|halves)|(?P<quarter>quarters?)|(?P<denominator>(?!1st)\d+)(?:st|nd|rd|th)s?)\b"
)  # "2 first" is no fraction

_SIGN_WORD = re.compile(
    r"\b(?:negative|minus|neg)[ ]+(?:the[ ]+(?=(?:square[ ]+)?root[ ]+(?:of[ ]+)?\d))?"
    r"(?=\.?\d|π|pi\b|√|\(|(?![aI]\b)[A-Za-z]\b|[a-z]{2,5}\(|an?[ ]+(?:half|quarter)\b"
    r"|(?:square[ ]+)?root[ ]+(?:of[ ]+)?\d)",
    re.IGNORECASE,
)

# An attempt's value corrected after a comma, no list: "your 30, minus 20"
_CORRECTED_ATTEMPT = re.compile(
    r"\byour[ ]+-?\d+(?:\.\d+)?(?:/\d+)?(?P<comma>,)(?=[ ]+(?:minus|plus)\b)", re.IGNORECASE
)

_MAX_SPOKEN_NESTING = 4  # a fraction of roots in a fraction

# Cyrillic and Greek letters drawn as Latin ones: `\bоxed{5}` with a Cyrillic о is still a box.
_HOMOGLYPHS = dict(zip("аеорсхуіјѕАВЕКМНОРСТХΑΒΕΗΙΚΜΝΟΡΤΧοικ", "aeopcxyijsABEKMHOPCTXABEHIKMNOPTXoik", strict=True))

# Shapes of a number that alpha2digit leaves in words: "3 million", "75 percent", a box by another name.
_SCALE_WORD = re.compile(r"\b(\d+(?:\.\d+)?)[ ]+(thousand|million|billion)\b", re.IGNORECASE)

_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}

_PERCENT_WORD = re.compile(r"(?<=\d)[ ]*\b(?:per[ ]?cent|pct)\b", re.IGNORECASE)
# Basis points, hundredths of a percent: "1,000 basis points" is 10%
_BASIS_POINTS = re.compile(
    r"\b(?P<points>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)[ ]*(?:basis[ ]+points?|bps)\b", re.IGNORECASE
)

_SPACING_IN_NUMBER = re.compile(r"\\\$(?=\s*\d)|(?<=[-−+])\$(?=\d)|(?<=\d,)\\[!,]\s*(?=\d{3})|(?<=\d)\\[!,](?=\d)")

# Amounts of money as operands ("$2400 + $800", "147 x $2", "$1.50 x 8"): a dollar after an operand and its operator is
# a unit, not a math span's opening, and an "x" beside an amount is a times sign
_MONEY_OPERATION = re.compile(
    r"(?P<amount>\$)?\d[\d,]*(?:\.\d+)?(?P<operator>[ \t]*(?:[-−+×*/]|(?P<times>x))[ \t]*)(?P<unit>\$)?(?=\d)"
)

# A Markdown table's row, whose cells a `|` separates: "| expected | 11 sqrt(2) |" is a label and a value, no `|x|`
_TABLE_ROW = re.compile(r"^[ \t]*\|[^\n]*\|[ \t]*$", re.MULTILINE)

# A one-line record whose fields a spaced `|` separates ("status=FAIL | expected=7 | got=8"): each `|` ends a field,
# as a table's does, and is no `|x|`
_RECORD_LINE = re.compile(r"^[^|\n]*\w[ \t]*[=:][^|\n]*(?:[ \t]\|[ \t][^|\n]*\w[ \t]*[=:][^|\n]*)+$", re.MULTILINE)

# Program notation for a value, read as its math: a module's prefix (`math.sqrt`, `np.pi`), `Fraction(3, 2)`,
# `complex(6, -5)`, Python's `6-5j` and `5*1j` (sympy's `5*I`), an array's constructor around its rows
# (`np.array([[1, 0], [0, 1]])`), `**`
_MODULE = r"(?:math|cmath|numpy|np|sympy|sp)\."

_PROGRAM_MODULE = re.compile(rf"\b{_MODULE}(?P<name>[A-Za-z]\w*)")

_PROGRAM_FRACTION = re.compile(rf"\b(?:{_MODULE})?(?:Fraction|Rational)\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")

_PROGRAM_COMPLEX = re.compile(rf"\b(?:{_MODULE})?complex\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)")

_PROGRAM_IMAGINARY = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?[ \t]*[-+][ \t]*\d+(?:\.\d+)?)j(?!\w)")  # `6-5j`

# `-7j`, not the j of unit vectors (`-2i - 14j - 7k`)
_PROGRAM_PURE_IMAGINARY = re.compile(
    r"(?<![\w.])(?<!i[ \t][-+][ \t])(?<!i[-+])(-?\d+(?:\.\d+)?)j(?!\w)(?![ \t]*[-+][ \t]*\d*(?:\.\d+)?k(?!\w))"
)

# Computer algebra output, read as the math it prints: SymPy's `Integer(9)`, `Eq(x, 5)`, `Interval.Lopen(3, 4)`,
# Mathematica's `3 Sqrt[13]`, `Pi/2`, `3 + 4 I`, `Interval[{2, 7}]`, `8^^52`, Maple's `RealRange(Open(3), 4)`, a
# spreadsheet's `=SQRT(51)`
_CAS_INTEGER = re.compile(r"\bInteger\((-?\d+)\)")
_CAS_EQUATION = re.compile(r"\bEq\((?P<side>[^(),\n]{1,80}),[ \t]*(?P<other_side>[^(),\n]{1,40})\)")
_CAS_ROOT = re.compile(r"\b(?:(?P<square>Sqrt\[)|SQRT\()(?P<radicand>[^\[\]()\n]{1,40})(?(square)\]|\))")
_CAS_PI = re.compile(r"(?<![A-Za-z\\])Pi(?![A-Za-z])|\bPI\(\)")  # a spreadsheet's `=7*PI()`
_CAS_IMAGINARY_UNIT = re.compile(r"(?<=\d )I(?![\w\[(]|\.\w)")
_CAS_BASE = re.compile(r"\b(\d{1,2})\^\^([0-9A-Za-z]+)\b")
_CAS_INFINITY = re.compile(r"(?:(?<=[(\[,])|(?<=[(\[,][ \t]))(-?)oo(?![A-Za-z])")  # SymPy's and AsciiMath's "(2, oo)"
# an interval's end, a function's argument in it too: `Interval.open(-sqrt(3), sqrt(3))`
_CAS_BOUND = r"(?:[^(),\[\]{}\n]|\([^(),\[\]{}\n]{1,20}\)|\[[^(),\[\]{}\n]{1,20}\]){1,30}"
_CAS_INTERVAL = re.compile(
    rf"\bInterval(?:\.(?P<kind>open|Lopen|Ropen))?\([ \t]*(?P<low>{_CAS_BOUND}),[ \t]*(?P<high>{_CAS_BOUND})\)"
    rf"|\bInterval\[\{{[ \t]*(?P<closed_low>{_CAS_BOUND}),[ \t]*(?P<closed_high>{_CAS_BOUND})\}}\]"
    rf"|\bRealRange\([ \t]*(?:Open\((?P<open_low>{_CAS_BOUND})\)|(?P<real_low>{_CAS_BOUND})),"
    rf"[ \t]*(?:Open\((?P<open_high>{_CAS_BOUND})\)|(?P<real_high>{_CAS_BOUND}))\)"
)
_CAS_INTERVAL_BRACKETS = {None: "[]", "open": "()", "Lopen": "(]", "Ropen": "[)"}
# SymPy's union of the intervals it has printed as brackets, `Union((0, 9), (9, 36))` by then
_CAS_UNION_MEMBER = re.compile(r"[(\[][^()\[\]\n]{1,60}[)\]]")
_CAS_UNION = re.compile(rf"\bUnion\((?P<members>{_CAS_UNION_MEMBER.pattern}(?:,[ \t]*{_CAS_UNION_MEMBER.pattern})+)\)")
# Mathematica's functions: `Cot[x]`, `Log[2, 8]`
_CAS_FUNCTION = re.compile(
    r"\b(?P<name>Sin|Cos|Tan|Cot|Sec|Csc|Log|Exp|Sinh|Cosh|Tanh|ArcSin|ArcCos|ArcTan|Abs)"
    r"\[(?P<argument>[^\[\]\n]{1,40})\]"
)
# Mathematica's nested list, rows of a matrix or of a column vector: `{{-1, 0}, {0, -1}}`, `{{-2}, {-14}}`
_CAS_NESTED_LIST = re.compile(r"\{(?P<rows>\{[^{}\n]{1,80}\}(?:,[ \t]*\{[^{}\n]{1,80}\})+)\}")
# a notebook's prompt labels what follows, as "Output:" does: `Out[14]= 2 < x` is no equation
_CAS_PROMPT = re.compile(r"\b(?P<kind>In|Out)\[\d+\]:?=")
# Mathematica's `Or` of conditions: `x < 2 || 3 < x` (spaced: `||v||` is a norm)
_CAS_OR = re.compile(r"(?<=\S)[ \t]+\|\|[ \t]+(?=\S)")


def _cas_interval_pieces(match: re.Match) -> list:
    """An interval as a computer algebra system prints it, rewritten to brackets: `Interval.Lopen(3, 4)` to
    "(3, 4]", `RealRange(Open(3), 4)` to "(3, 4]"."""
    groups = match.groupdict()
    if groups["low"] is not None:
        brackets = _CAS_INTERVAL_BRACKETS[groups["kind"]]
        return wrapper_pieces(match, ("low", "high"), (brackets[0], ", ", brackets[1]))
    if groups["closed_low"] is not None:
        return wrapper_pieces(match, ("closed_low", "closed_high"), ("[", ", ", "]"))
    low, high = (
        ("open_low" if groups["open_low"] else "real_low"),
        ("open_high" if groups["open_high"] else "real_high"),
    )
    brackets = ("(" if groups["open_low"] else "[") + (")" if groups["open_high"] else "]")
    return wrapper_pieces(match, (low, high), (brackets[0], ", ", brackets[1]))


# Presentation MathML, read as the linear math it draws: `<mfrac><mn>3</mn><mn>56</mn></mfrac>` is "((3)/(56))"
_MATHML = re.compile(r"<math\b[^<>]{0,200}>(?P<body>.{1,2000}?)</math>", re.DOTALL)
_MATHML_LEAF = re.compile(r"<(m[ino]|mtext)>\s*([^<>]{0,40}?)\s*</\1>")
_MATHML_ROOT_ROW = re.compile(r"\s*<mrow>(?P<body>.*)</mrow>\s*", re.DOTALL)
_MATHML_INNERMOST = re.compile(r"<(mrow|mfrac|msqrt|msup|mtd|mtr|mtable)>((?:(?!</?m)[^<>])*)</\1>")
# an operator that is a bracket stands apart from the groups `_mathml_children` splits, until the end
_MATHML_BRACKETS = dict(zip("()[]", "\ue000\ue001\ue002\ue003", strict=True))
# the characters MathML's references stand for (`markup_pieces` wrote `&InvisibleTimes;` and the like as them)
_MATHML_ENTITIES = {"\u2062": "*", "ⅈ": "i", "π": "pi", "−": "-", "×": "*"}


def _mathml(body: str) -> str | None:
    """The linear form of a presentation MathML body, or `None` when it holds an element we do not read."""

    def leaf(match: re.Match) -> str:
        text = _MATHML_ENTITIES.get(match.group(2), match.group(2))
        if match.group(1) == "mtext":  # a unit or a word: `<mtext>degrees</mtext>`
            return f" {text} "
        return _MATHML_BRACKETS.get(text, text) if match.group(1) == "mo" else f"({text})"

    def element(match: re.Match) -> str:
        tag, children = match.group(1), _mathml_children(match.group(2))
        if tag == "mtd":  # a table's cell, row and table: a matrix
            return "\ue004" + "".join(children) + "\ue005"
        if tag == "mtr":
            return "\ue006" + " & ".join(re.findall("\ue004(.*?)\ue005", match.group(2))) + "\ue007"
        if tag == "mtable":
            rows = re.findall("\ue006(.*?)\ue007", match.group(2))
            return "\\begin{pmatrix}" + " \\\\ ".join(rows) + "\\end{pmatrix}"
        if tag == "mfrac" and len(children) == 2:
            return f"({children[0]}/{children[1]})"
        if tag == "msup" and len(children) == 2:
            return f"({children[0]}^{children[1]})"
        if (
            tag == "mrow"
            and match.group(2)[:1] in ("\ue000", "\ue002")
            and match.group(2)[-1:] in ("\ue001", "\ue003")
        ):
            return match.group(2)  # its own brackets group it: `(3, 4]`
        return ("(sqrt" if tag == "msqrt" else "") + "(" + "".join(children) + ")" + (")" if tag == "msqrt" else "")

    # the row that holds the whole formula groups nothing: `<mrow>y = 2x + 3</mrow>` is an equation, not a factor
    if (root := _MATHML_ROOT_ROW.fullmatch(body)) and _balanced_rows(root["body"]):
        body = root["body"]
    text = _MATHML_LEAF.sub(leaf, body)
    for _ in range(20):  # innermost first; a deeper nesting is not read
        text, count = _MATHML_INNERMOST.subn(element, text)
        if not count:
            break
    if "<" in text:
        return None
    text = text.translate({ord(mark): bracket for bracket, mark in _MATHML_BRACKETS.items()})
    while re.fullmatch(r"\((?:[^()]*)\)", text):  # one number alone: `<mn>7.14143</mn>` is 7.14143
        text = text[1:-1]
    # a matrix's brackets are its environment's: `(\begin{pmatrix}...\end{pmatrix})` is the matrix
    return re.sub(r"^\((\\begin\{pmatrix\}.*\\end\{pmatrix\})\)$", r"\1", text)


def _balanced_rows(body: str) -> bool:
    """Whether every `</mrow>` in `body` closes an `<mrow>` of it (the first and last tags are one row's)."""
    depth = 0
    for tag in re.findall(r"</?mrow>", body):
        depth += 1 if tag == "<mrow>" else -1
        if depth < 0:
            return False
    return depth == 0


def _mathml_children(text: str) -> list[str]:
    """The top-level pieces of an element's content: bracketed groups and the operators between them."""
    children, depth, start = [], 0, 0
    for position, character in enumerate(text):
        if character == "(":
            if depth == 0 and position > start:
                children.append(text[start:position])
                start = position
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                children.append(text[start : position + 1])
                start = position + 1
    if start < len(text):
        children.append(text[start:])
    return [child for child in children if child.strip()]


# a JavaScript test's expectation, read as the comparison it is: `expect(solve()).toBe(7)` as `expect(solve()) == 7`
_PROGRAM_EXPECTATION = re.compile(r"\.to(?:Be|Equal|StrictEqual|BeCloseTo)\([ \t]*([^()\n]{1,60}?)[ \t]*\)")

_PROGRAM_IMAGINARY_UNIT = re.compile(r"(?<=\*)[ \t]*(?:1j|I)(?![\w]|\.\w)")  # `7*1j`, sympy's `7*I`

_PROGRAM_ARRAY = re.compile(rf"\b(?:{_MODULE})?(?:array|matrix|Matrix|vector)\((?P<rows>\[[^()]*\])\)")

_LINE_BREAK = re.compile(r"\n[ \t]*")

_PROGRAM_POWER = re.compile(r"(?<=[\w)])\*\*(?=[\w(]|-\d)")  # not Markdown bold: "**7**."

_CODE_MARK = re.compile(r"`+")  # Markdown code, "the total is `4`", read as its content

_BRACED_DECIMAL_POINT = re.compile(r"(?<=\d)\{\.\}(?=\d)")  # `1{.}25`: LaTeX's spacing-free decimal point

# Symbols in words: "1 plus or minus √19", "(5, infinity)"
# (and a programmer's "inf", "(-inf, 0]", never LaTeX's `\inf`; `\pm` without its backslash between a number and a
# value, "1 pm √19", not a time, "3 pm")
_SYMBOL_WORD = re.compile(
    r"(?<!\\)\b(?:plus[ ]+or[ ]+minus|(?:negative|minus)[ ]+infinity|infinity|inf)\b(?!\()"
    r"|(?<=\d)[ ]*\bpm(?=[ ]*(?:\d|√|\\sqrt|sqrt))",
    re.IGNORECASE,
)

_SYMBOL_WORDS = {
    "plus or minus": " \\pm ",
    "pm": " \\pm ",
    "negative infinity": "-\\infty ",
    "minus infinity": "-\\infty ",
    "infinity": "\\infty ",
    "inf": "\\infty ",
}

# A number in a base in words: "52 in base 8", "52 (base 8)", "(52)_8" -> 52_8
_BASE_WORDS = re.compile(
    r"(?<![\w.])\(?(\d[0-9A-Za-z]*)\)?(?:[ ]*\([ ]*base[ -]?(\d+)[ ]*\)|[ ]+(?:in[ ]+)?base[ -]?(\d+)\b|\)_\{?(\d+)\}?)",
    re.IGNORECASE,
)

_BASE_IN_TEXT = re.compile(
    r"_\{?\\(?:text|mathrm|mbox)\s*\{\s*(\d+)\s*\}\}?"
)  # `_{\text{six}}`, read as `_{\text{6}}`

_SUPERSCRIPTS = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")  # x², 10⁵, 2⁻¹

_SUBSCRIPTS = re.compile("[₀₁₂₃₄₅₆₇₈₉]+")  # 52₈

# A repeating decimal, its repetend under a bar or in brackets: `0.\overline{3}`, `4.\bar{6}`, "4.(6)", "4.6̅"
_REPEATING_DECIMAL = re.compile(
    r"(?<![\d.])(?P<whole>\d*)\.(?P<fixed>\d*?)(?:(?P<marked>(?:\d\u0305)+)|\\(?:overline|bar)\s*\{(?P<braced>\d+)\}"
    r"|\((?P<bracketed>\d+)\)(?![\d/]))"
)

_VULGAR_FRACTION = re.compile(r"(\d+)\u2044(\d+)")  # NFKC writes ½ as 1⁄2

# An en or em dash, or the minus sign, before a number and not between two values: "–5" (a range "3–5" stays)
_DASH_MINUS = re.compile(r"(?<![\w)\]}])[–—](?=\s?[\d.(\\√π])")

# "(0,9) U (9,36)", AsciiMath's `uu`, "(0, 9) union (9, 36)"
# (a lower-case u only between spaces, as typed in a chat: "(2, 12) u (12, 102)", not "(1 - 3e^{-2t}) u(t)")
_UNION_LETTER = re.compile(r"(?<=[)\]])(?:[ ]*(?:U|uu|union)[ ]*|[ ]+u[ ]+)(?=[(\[])")

# A dash that punctuates prose, not a minus sign: a spaced double or triple hyphen ("the area is 24 -- I checked"),
# or a spaced hyphen before the pronoun "I" and a word ("it is 24 - I checked"; "I" is no variable there)
_PROSE_DASH = re.compile(r"(?<=\s)(?:-{2,3}|-(?=[ \t]+I[ \t]+[a-z]{2,}))(?=\s)")

_SYMBOLS = {
    "±": "\\pm ",
    "+/-": " \\pm ",
    "∓": "\\mp ",
    "∞": "\\infty ",
    "∪": " \\cup ",
    "∈": " \\in ",
    "−": "-",
    "⁄": "/",
    "∕": "/",
    "ᵀ": "^T",  # a column vector written as a transposed row: "(1, 2)ᵀ"
    "⋅": "*",  # the dot operator of SymPy's pretty print: `3⋅√3`
}

# An inequality in words between a variable or a number and another: "x is at most 0", "-2 is less than x"
_INEQUALITY_WORDS = {
    "at most": "<=",
    "no more than": "<=",
    "less than or equal to": "<=",
    "at least": ">=",
    "no less than": ">=",
    "greater than or equal to": ">=",
    "more than or equal to": ">=",
    "less than": "<",
    "smaller than": "<",
    "fewer than": "<",
    "below": "<",
    "under": "<",
    "greater than": ">",
    "more than": ">",
    "bigger than": ">",
    "larger than": ">",
    "above": ">",
    "exceeds": ">",
}

# what may stand between the variable and the relation: "x is at most 0", "x must be at least 4"
_COPULA = r"(?:is|must[ ]+be|should[ ]+be|has[ ]+to[ ]+be|needs[ ]+to[ ]+be|can[ ]+be)"

_INEQUALITY_WORD = re.compile(
    rf"(?:(?<=(?<![A-Za-z])[A-Za-z])[ ]+(?:{_COPULA}[ ]+)?|(?<=[\d)])[ ]+is[ ]+)(?P<relation>"
    + "|".join(word.replace(" ", "[ ]+") for word in _INEQUALITY_WORDS)
    + r")[ ]+(?=[-\w(√\\])",
    re.IGNORECASE,
)

# The bound before its direction: "x is 0 or less" is `x <= 0`, "x must be 4 or more" `x >= 4`, "its 0 or less"
_BOUND_OR_BEYOND = re.compile(
    rf"(?:(?<![A-Za-z])(?P<variable>[A-Za-z])[ ]+(?:{_COPULA}[ ]+)?|(?<![\w.,/-]))"
    r"(?P<bound>-?\d+(?:\.\d+)?(?:[ ]*/[ ]*\d+)?)[ ]+or[ ]+"
    r"(?:(?P<up>more|greater|higher|larger|bigger|above)|less|fewer|lower|smaller|below)\b(?![ ]+than\b)",
    re.IGNORECASE,
)

# A second inequality whose variable is left out: "x > 2 and less than 12", "x < 2, or > 3" (`x < 2 or x > 3`)
_OMITTED_VARIABLE = re.compile(
    r"(?<![A-Za-z])(?P<variable>[A-Za-z])[ ]*(?:<=|>=|<|>)[ ]*[^\s<>=,;]{1,40}[ ]*,?[ ]+(?:and|or|but)[ ]+(?:is[ ]+)?"
    r"(?P<relation>"
    + "|".join(word.replace(" ", "[ ]+") for word in _INEQUALITY_WORDS)
    + r"|<=|>=|<|>)(?=[ ]*[-\w(√\\])",
    re.IGNORECASE,
)

_MAX_OMITTED_VARIABLES = 8

_MONEY_WORDS = re.compile(
    r"\b(\d+)[ ]+dollars?[ ]+(?:and[ ]+(\d{1,2})[ ]+cents?\b|(\d{1,2})(?!\w|\.\d))", re.IGNORECASE
)  # "18 dollars and 90 cents", "18 dollars 90"

# "4.2 x 10^5", "12 times pi", "6 times 7": a product written out
_TIMES_WORD = re.compile(
    r"(?<=[\d)])[ ]*(?:\b(?:times|multiplied[ ]+by)\b(?:[ ]+the\b)?|[xX](?=[ ]*10[ ]*\^))[ ]*(?=-?[\d(√\\]|pi\b|π"
    # a variable or the imaginary unit: "5 times k", "six minus five times i" (not the article of "3 times a week")
    r"|(?-i:[b-zA-HJ-Z]|a(?=[ ]+(?:plus|minus|times|over|squared|cubed)\b))\b(?!')|(?-i:i)\b(?!'))",
    re.IGNORECASE,
)

_OTHER_BOX = re.compile(r"\\(?:framebox|fbox)(?![A-Za-z])")

# After number words are digits: "one and a half" -> "1 and 1/2", "square root of two" -> "square root of 2".
# a whole number that ends no fraction and a proper fraction: "2/3 and 5/3" is a list
# (not two operands: "the product of 4 and 1/12")
_MIXED_NUMBER = re.compile(
    r"(?<![\d./])(?<!\bof )(?<!\bbetween )(\d+)[ ]+and[ ]+(\d+)[ ]*/[ ]*(\d+)\b(?!/)"
)  # "1 and 4 / 5" said "over"

# "root 13" alone is √13 too ("three root thirteen"), but not after a word that makes it a root of an equation ("the
# root 2", "a double root 3").
_GLUED_ROOT = re.compile(r"(?<![A-Za-z\\])sqrt(?=\d)|(?<=\d)root[ ]*(?=\d)")  # typed: "3sqrt13", "sqrt2", "3root 13"
_ROOT_OF_FRACTION = re.compile(r"\bsquare[ ]+root[ ]+of[ ]+(\d{1,8})[ ]*/[ ]*(\d{1,8})(?![\d/]|\.\d)", re.IGNORECASE)
_ROOT_WORDS = re.compile(
    r"\bsquare[ ]+root[ ]+(?:of[ ]+)?(?=\d)"
    r"|(?<!\bthe )(?<!\ba )(?<!\bone )(?<!\b1 )(?<!\beach )(?<!\bother )(?<!\bthat )(?<!\bthis )(?<!\bits )"
    r"(?<!\bdouble )(?<!\btriple )(?<!\breal )(?<!\banother )(?<!\blargest )(?<!\bsmallest )(?<!\bpositive )"
    r"(?<!\brepeated )(?<!\binteger )\broot[ ]+(?=\d)",
    re.IGNORECASE,
)

# Half of a surrogate pair on its own, which no UTF-8 codec (the tokenizer's, text2num's) accepts.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

_NUMBER = r"-?(?:\d+(?:\.\d+)?(?:/\d+)?|\d*(?:π|(?<![A-Za-z])pi(?![A-Za-z]))|\d*√\d+)"

# A number or a one-letter variable with its coefficient ("13 x"), for the operators in words: "p minus q"
_TERM = rf"(?:{_NUMBER}|(?:-?\d+[ ]?)?(?<![A-Za-z])[A-Za-z](?![A-Za-z]))"

_LETTER = r"(?<![A-Za-z])([A-Za-z])"

# An operand an operator in words stands between: a term, a power of it (`x^(5)`, "x squared" read), a bracket. Only
# the operand before the word is matched, so that a chain ("x^(5) minus x^(4) plus x") is read link by link.
_OPERAND_BEFORE = rf"(?<![\d.])({_TERM}(?:\^\(?-?\d+\)?)?|\))"

_OPERAND_AFTER = rf"(?=(?:{_TERM})(?!\w)|\(|√)"

# A unit an operand in words carries, which the expression it states leaves out: "the sum of 22 degrees and 68
# degrees", "75% of 7.2 cents"
_OPERAND_UNIT = (
    r"[ ]+(?:degrees?|cents?|dollars?|units?|(?:square|cubic)[ ]+(?:inches|feet|units|meters|centimeters|cm|m)"
    r"|inches|feet|meters|centimeters|cm)\b"
    r"(?![ ]+(?:squared|cubed)\b|[ ]*(?:\^|\*\*|²|³))"  # "15 cm squared" is an area, not 15^2
)
_OPERAND_UNIT_PATTERN = re.compile(_OPERAND_UNIT, re.IGNORECASE)

# A unit between an operand and an operator: "121 degrees minus 1 degree", "216 cents ÷ 40"
_UNIT_BEFORE_OPERATOR = re.compile(
    rf"(?<=\d){_OPERAND_UNIT}(?=[ ]+(?:minus|plus|times|divided|over)\b|[ ]*[-+−×÷*/])", re.IGNORECASE
)

# An operand of an operation in words: a number or a LaTeX fraction (in degrees: "the sum of 60° and 30°", "twice
# \frac{55}{2}°"), or any math span ("one more than $\frac{7}{6}$"), whose dollars the rewriting drops
_OPERAND = (
    rf"\$[^$\n]{{1,60}}\$|(?:{_NUMBER}|\\[dt]?frac\{{[^{{}}]{{1,20}}\}}\{{[^{{}}]{{1,20}}\}})(?:°|{_OPERAND_UNIT})?"
)

# The sign of an operation by its noun or verb: "the sum of 20 and 22", "take your 9 and add 1"
_OPERATION_SIGNS = {
    "sum": "+",
    "total": "+",
    "add": "+",
    "difference": "-",
    "subtract": "-",
    "product": "*",
    "multiply": "*",
    "quotient": "/",
    "divide": "/",
}

# An attempt's value scaled: "take 12 and halve it"
_SCALINGS = {"double": "*2", "halve": "/2", "triple": "*3"}

# An attempt's value an operation corrects: "20 more than your -12", "take your 9 and add 1"
_YOUR = r"(?:your[ ]+)?"

# Arithmetic in words on stated numbers, after the number words are digits, rewritten as the expression it states;
# each rule (the words it needs, its pattern, the expression) is applied once, in this order, so "twice 3 plus 1" is
# read as 2*(3) + 1.
_ARITHMETIC_WORDS = [
    (
        (" of ",),
        re.compile(rf"\b(?:half|1/2)[ ]+of[ ]+{_YOUR}(?:the[ ]+)?({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)/2",
    ),
    (
        ("%",),
        re.compile(rf"(?<![\d.])(-?\d+(?:\.\d+)?)[ ]*%[ ]+of[ ]+{_YOUR}(?:the[ ]+)?({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)/100*(\2)",
    ),
    (
        (" of ",),
        re.compile(rf"(?<![\d.])(\d+/\d+)[ ]+of[ ]+(?:the[ ]+)?({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)*(\2)",
    ),
    (("twice", "double"), re.compile(rf"\b(?:twice|double)[ ]+{_YOUR}({_OPERAND})(?!\w)", re.IGNORECASE), r"2*(\1)"),
    (("triple", "thrice"), re.compile(rf"\b(?:triple|thrice)[ ]+{_YOUR}({_OPERAND})(?!\w)", re.IGNORECASE), r"3*(\1)"),
    (("quadruple",), re.compile(rf"\bquadruple[ ]+{_YOUR}({_OPERAND})(?!\w)", re.IGNORECASE), r"4*(\1)"),
    # a math span times a number: "four times $16$" (`_TIMES_WORD` wrote the others as `\times`)
    (
        ("times", "multiplied"),
        re.compile(rf"(?<![\d.])({_OPERAND})[ ]+(?:times|multiplied[ ]+by)[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)*(\2)",
    ),
    # an attempt's value taken and corrected: "take your 9 and add 1", "take 12 and halve it"
    (
        ("take",),
        re.compile(
            rf"\btake[ ]+{_YOUR}({_OPERAND})[ ]+and[ ]+(add|subtract|multiply[ ]+(?:it[ ]+)?by"
            rf"|divide[ ]+(?:it[ ]+)?by)[ ]+({_OPERAND})(?!\w)",
            re.IGNORECASE,
        ),
        lambda match: f"({match[1]}){_OPERATION_SIGNS[match[2].split()[0].lower()]}({match[3]})",
    ),
    (
        ("take",),
        re.compile(rf"\btake[ ]+{_YOUR}({_OPERAND})[ ]+and[ ]+(double|halve|triple)[ ]+it\b", re.IGNORECASE),
        lambda match: f"({match[1]}){_SCALINGS[match[2].lower()]}",
    ),
    (("doubled",), re.compile(rf"(?<![\d.])({_OPERAND})[ ]+doubled\b", re.IGNORECASE), r"2*(\1)"),
    (("halved",), re.compile(rf"(?<![\d.])({_OPERAND})[ ]+halved\b", re.IGNORECASE), r"(\1)/2"),
    (("square",), re.compile(rf"(?<=\bthe )\bsquare[ ]+of[ ]+({_OPERAND})(?!\w)", re.IGNORECASE), r"(\1)^2"),
    (("cube",), re.compile(rf"(?<=\bthe )\bcube[ ]+of[ ]+({_OPERAND})(?!\w)", re.IGNORECASE), r"(\1)^3"),
    (("squared",), re.compile(rf"(?<![\d.])({_OPERAND})[ ]+squared\b", re.IGNORECASE), r"(\1)^2"),
    (("cubed",), re.compile(rf"(?<![\d.])({_OPERAND})[ ]+cubed\b", re.IGNORECASE), r"(\1)^3"),
    # a variable's power binds before its coefficient: "3 R squared" is 3R^2
    (("squared",), re.compile(rf"{_LETTER}[ ]+squared\b", re.IGNORECASE), r"\1^2"),
    (("cubed",), re.compile(rf"{_LETTER}[ ]+cubed\b", re.IGNORECASE), r"\1^3"),
    (
        (" to the ",),
        re.compile(
            rf"{_LETTER}[ ]+to[ ]+the[ ]+(?:power[ ]+(?:of[ ]+)?)?(\d+)(?:st|nd|rd|th)?(?:[ ]+power)?\b", re.IGNORECASE
        ),
        r"\1^(\2)",
    ),
    (
        (" to the ",),
        re.compile(
            rf"(?<![\d.])({_OPERAND})[ ]+to[ ]+the[ ]+(?:power[ ]+of[ ]+)?(\d+)(?:st|nd|rd|th)?(?:[ ]+power)?\b",
            re.IGNORECASE,
        ),
        r"(\1)^(\2)",
    ),
    (
        ("than",),
        re.compile(
            rf"(?<![\d.])({_OPERAND})[ ]+(?:more|greater|larger|bigger|higher)[ ]+than[ ]+{_YOUR}({_OPERAND})(?!\w)",
            re.IGNORECASE,
        ),
        r"(\2)+(\1)",
    ),
    (
        ("than",),
        re.compile(
            rf"(?<![\d.])({_OPERAND})[ ]+(?:less|fewer|smaller|lower)[ ]+than[ ]+{_YOUR}({_OPERAND})(?!\w)",
            re.IGNORECASE,
        ),
        r"(\2)-(\1)",
    ),
    # a count short of another ("one short of two dozen" is 24 - 1, "62 degrees short of a right angle" 90 - 62), an
    # angle's supplement or complement ("the supplement of 152 degrees" is 180 - 152)
    (
        ("short",),
        re.compile(
            rf"(?<![\d.])({_OPERAND})[ ]*(?:degrees?\b|°)?[ ]+short[ ]+of[ ]+{_YOUR}({_OPERAND})[ ]*(?:degrees?\b|°)?",
            re.IGNORECASE,
        ),
        r"(\2)-(\1)",
    ),
    (
        ("supplement", "complement"),
        re.compile(rf"\bthe[ ]+(supplement|complement)[ ]+of[ ]+({_OPERAND})[ ]*(?:degrees?\b|°)", re.IGNORECASE),
        lambda match: f"({180 if match[1].lower() == 'supplement' else 90})-({match[2]})",
    ),
    # "the sum of 20 and 22", "the difference between 10 and 3", "the quotient of 20 and 5", "the product of 6 and 7"
    (
        ("sum", "total", "difference", "quotient", "product"),
        re.compile(
            rf"\bthe[ ]+(?P<operation>sum|total|difference|quotient|product)[ ]+(?:of|between)[ ]+({_OPERAND})[ ]+"
            rf"(?:and|by)[ ]+({_OPERAND})(?!\w)",
            re.IGNORECASE,
        ),
        lambda match: f"({match[2]}){_OPERATION_SIGNS[match['operation'].lower()]}({match[3]})",
    ),
    (
        ("added",),
        re.compile(rf"(?<![\d.])({_OPERAND})[ ]+added[ ]+to[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\2)+(\1)",
    ),
    (("plus",), re.compile(rf"{_OPERAND_BEFORE},?[ ]+plus[ ]+{_OPERAND_AFTER}", re.IGNORECASE), r"\1 + "),
    (("minus",), re.compile(rf"{_OPERAND_BEFORE},?[ ]+minus[ ]+{_OPERAND_AFTER}", re.IGNORECASE), r"\1 - "),
    (
        ("divided", "over"),
        re.compile(rf"(?<![\d.])({_OPERAND})[ ]+(?:divided[ ]+by|over)[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"\1 / \2",
    ),
    # two sides set equal in words: "y equals 2 x + 3", "5 x - 7 y + 4 equals 0"
    (("equals",), re.compile(rf"{_OPERAND_BEFORE}[ ]+equals[ ]+{_OPERAND_AFTER}", re.IGNORECASE), r"\1 = "),
]

# A decimal below 1 read out digit by digit, as alpha2digit leaves it: "point 3 5" (two digits or more; alpha2digit
# reads "3 point 2 1" itself), its zeros joined to the next digit ("point 00006 7 2" for .0000672)
# A ratio or a chance: "4:3", "3 in 56", "3 out of 56" (a part no larger than its whole), "3 of every 56", "3 in
# every 56", "3 chances in 56", "a 3-in-56 chance", "14 parts to 3", "a ratio of 14 to 3", "14 per 3"
_RATIO = re.compile(
    r"(?<![\d.:])(?P<numerator>\d+)(?::|[ ]+(?:of|in)[ ]+every[ ]+|[ ]+chances?[ ]+in[ ]+|-in-|[ ]+parts?[ ]+to[ ]+"
    r"|[ ]+per[ ]+)(?P<denominator>\d+)(?![\d:]|\.\d)"
    r"|(?<![\d.])(?P<part>\d+)[ ]+(?:in|out[ ]+of)[ ]+(?P<whole>\d+)(?!\d|\.\d)",
    re.IGNORECASE,
)
_RATIO_TO = re.compile(r"\bratio[ ]+(?:of[ ]+)?(?P<antecedent>\d+)[ ]+to[ ]+(?P<consequent>\d+)(?![\d:]|\.\d)", re.I)
# A chance by its odds ("odds of 1 to 2 in favour" is 1/3, "odds of 19 to 2 against" 2/21) or by its complement ("a
# 25 in 36 chance that it does not happen" is 11/36)
_ODDS = re.compile(
    r"(?<=\bodds[ ])(?:of[ ]+)?(?P<first>\d+)(?:[ ]+to[ ]+|[ ]*:[ ]*)(?P<second>\d+)"
    r"(?=[ ]+(?P<side>in[ ]+favou?r|for|on|against)\b)",
    re.IGNORECASE,
)
_COMPLEMENT_CHANCE = re.compile(
    r"(?<![\d.])(?P<part>\d+)(?:[ ]+in[ ]+|[ ]+out[ ]+of[ ]+|-in-)(?P<whole>\d+)"
    r"(?=[ ]+chance[ ]+(?:that[ ]+)?(?:it[ ]+)?(?:does[ ]+not|doesn't|won't|will[ ]+not)[ ]+(?:happen|occur)\b)",
    re.IGNORECASE,
)

_POINT_WORDS = re.compile(
    r"(?:(?<![\d.])(?P<whole>\d+)[ ]+)?\bpoint(?P<digits>(?:[ ]+0*\d)+)(?!\d|\.\d)", re.IGNORECASE
)

# Denominators alpha2digit misreads: "twenty-firsts" (it drops the suffix), "three hundredths" (it reads 300ths).
_ORDINAL_DENOMINATOR = re.compile(
    r"(?<=ty )firsts\b|\b(?:one[ ]+(?=(?:hundred|thousand)ths\b))?(?P<scale>hundred|thousand)th(?P<plural>s?)\b",
    re.IGNORECASE,
)  # "nine one hundredths" is 9/100

_SCALE_ORDINALS = {"hundred": "100th", "thousand": "1000th"}

# Thousands grouped by spaces, as SI writes them ("8 000", "11 111 111 100"; a thin space is one after NFKC).
_SPACED_THOUSANDS = re.compile(r"(?<![\w.,])(?<!\d )\d{1,3}(?: \d{3})+(?!\w|[.,]\d| \d)")

# Thousands as a chat writes them: "26k", "28.8k" (not a coefficient: "2k+1", "n = 2k", `$2k$`)
_THOUSANDS_SUFFIX = re.compile(r"(?<![\w.,$\\^=+*/-])(?<![=+*/^-][ ])(\d{1,12}(?:\.\d{1,6})?)k\b(?![ ]*[-+*/^=(]|')")

# A function glued to its variable: "cotx", "sinx", "lnx"
# A complex number by its parts, in either order: "real part 6, imaginary part -5", "imaginary part 9 and real part 6"
_PART_LINK = r"[ ]*(?:(?:is|of|equals|equal[ ]+to|=|:)[ ]*)?"

_PART_JOIN = r"[ ]*(?:,[ ]*and|,|;|and)?[ ]+(?:(?:an?|the|its|with)[ ]+){0,2}"

_PART_NUMBER = r"[-−]?\d+(?:\.\d+)?(?:/\d+)?"

_COMPLEX_PARTS = re.compile(
    rf"\breal[ ]+part{_PART_LINK}(?P<real>{_PART_NUMBER}){_PART_JOIN}imaginary[ ]+part{_PART_LINK}"
    rf"(?P<imaginary>{_PART_NUMBER})(?![\d/]|\.\d)"
    rf"|\bimaginary[ ]+part{_PART_LINK}(?P<imaginary_first>{_PART_NUMBER}){_PART_JOIN}real[ ]+part{_PART_LINK}"
    rf"(?P<real_last>{_PART_NUMBER})(?![\d/]|\.\d)",
    re.IGNORECASE,
)

_GLUED_FUNCTION = re.compile(r"\b(?:sin|cos|tan|cot|sec|csc|ln|log|exp)(?=[xyzθuvw]\b)")


def _normalised(text: str, k_is_thousands: bool = True, raised_point: bool = True) -> _Normalised:
    """`text` as the guard reads it: the digits of every script (Arabic-Indic, Devanagari, full-width, mathematical
    bold, ...) as ASCII digits, other full-width and compatibility forms by their NFKC form when it is ASCII
    (`＝`, a no-break space), Cyrillic and Greek letters drawn as Latin ones as those, invisible format characters (a
    zero-width space) and combining marks dropped, English number words as digits (`text2num`'s `alpha2digit`:
    "forty-two" -> 42, "three quarters" -> 3/4, "negative five" -> -5, "one and a half" -> 3/2), "3 million" as
    3000000, "percent" as `%`, "square root of" as `√`, `\framebox` or `\fbox` as `\boxed` and a complex number
    by its parts as one ("real part 6, imaginary part -5" as `6-5i`); with `k_is_thousands`, "28.8k" as 28800; with
    `raised_point`, "1·25" as 1.25, else as a product (`convention_pieces`)."""
    if (
        not _LOWER_CASE.search(text) and len(_CAPITALS_WORD.findall(text)) >= 3
    ):  # live captions: "THE ANSWER IS 1 + 2I", read as "the answer is 1 + 2i"
        text = _UPPER_CASE.sub(lambda match: match.group().lower(), text)
    written_in = language(text)
    unescaped = _Normalised(text).rewritten(json_string_pieces(text))
    marked = unescaped.rewritten(markup_pieces(unescaped.text))  # rich text's markup, around TeX and in it
    typeset = marked.rewritten_until_settled(tex_pieces, MAX_TEX_NESTING)  # what only typesets a value
    typeset = typeset.rewritten(extraction_pieces(typeset.text))  # a 2-D layout flattened to lines
    for pieces_of in FORMAL_PASSES:  # a checker's notation, before NFKC reads `ℚ` as Q
        typeset = typeset.rewritten(pieces_of(typeset.text))
    typeset = typeset.rewritten(convention_pieces(typeset.text, raised_point))  # before `·` is a product
    text = typeset.text
    pieces = [(match.start(), match.end(), _script(match.group(), "^")) for match in _SUPERSCRIPTS.finditer(text)]
    pieces += [(match.start(), match.end(), _script(match.group(), "_")) for match in _SUBSCRIPTS.finditer(text)]
    pieces += [(match.start(), match.end(), _repeating_decimal(match)) for match in _REPEATING_DECIMAL.finditer(text)]
    pieces += [(match.start(), match.end(), replacement) for match, replacement in _symbols(text)]
    rewritten = {position for start, end, _ in pieces for position in range(start, end)}
    for match in _NON_ASCII.finditer(text):
        if match.start() in rewritten:
            continue
        character = match.group()
        digit, folded = unicodedata.decimal(character, None), unicodedata.normalize("NFKC", character)
        if unicodedata.category(character) in ("Cf", "Mn"):  # invisible, or a combining mark between digits
            pieces.append((match.start(), match.end(), ""))
        elif digit is not None:
            pieces.append((match.start(), match.end(), str(digit)))
        elif character in _HOMOGLYPHS and written_in != "ru":  # a Russian critique's words stay Russian
            pieces.append((match.start(), match.end(), _HOMOGLYPHS[character]))
        elif folded != character and folded.isascii() and unicodedata.category(character) != "No":  # not ①
            pieces.append((match.start(), match.end(), folded))
        elif unicodedata.category(character) == "No" and _VULGAR_FRACTION.fullmatch(folded):  # ½, 4½
            numerator, denominator = _VULGAR_FRACTION.fullmatch(folded).groups()
            after_digit = text[match.start() - 1 : match.start()].isdigit()
            pieces.append((match.start(), match.end(), f"{' ' if after_digit else ''}{numerator}/{denominator}"))
    pieces += [
        (match.start(), match.end(), " ")
        for match in _HYPHEN_BETWEEN_LETTERS.finditer(text)
        if not COUNT_IN_A_COMPOUND.search(text, 0, match.start()) or NUMBER_WORD_AHEAD.match(text, match.end())
    ]
    # an escaped dollar, or a dollar after a sign, is a unit ("-\$36", "-$36" are -36, not a dash before 36);
    # `10,\!080` is 10,080
    pieces += [(match.start(), match.end(), "") for match in _SPACING_IN_NUMBER.finditer(text)]
    pieces += [
        piece
        for match in _MONEY_OPERATION.finditer(text)
        if match["amount"] or match["unit"]
        for piece in [
            *([(*match.span("unit"), "")] if match["unit"] else []),
            *([(*match.span("times"), "×")] if match["times"] else []),
        ]
    ]
    pieces += [(match.start(), match.end(), ".") for match in _BRACED_DECIMAL_POINT.finditer(text)]
    pieces += [(match.start(), match.end(), " ") for match in _CODE_MARK.finditer(text)]
    pieces += [
        (row.start() + offset, row.start() + offset + 1, " : ")
        for row in _TABLE_ROW.finditer(text)
        for offset, character in enumerate(row.group())
        if character == "|" and row.group()[offset - 1 : offset] != "\\"
    ]
    pieces += [
        (row.start() + offset, row.start() + offset + 1, ";")
        for row in _RECORD_LINE.finditer(text)
        if not _TABLE_ROW.match(row.group())
        for offset, character in enumerate(row.group())
        if character == "|"
    ]
    normalised = typeset.rewritten(sorted(pieces))
    normalised = normalised.rewritten(_program_notation(normalised.text))
    normalised = normalised.rewritten(_cas_union_pieces(normalised.text))
    normalised = _scale_and_percent_words(normalised)
    normalised = normalised.rewritten(spoken_word_pieces(normalised.text))
    normalised = normalised.rewritten_until_settled(mathspeak_pieces, _MAX_SPOKEN_NESTING)
    normalised = normalised.rewritten(spoken_matrix_pieces(normalised.text))
    pieces = [(match.start(), match.end(), "\\boxed") for match in _OTHER_BOX.finditer(normalised.text)]
    pieces += [
        (match.start(), match.end(), _SCALE_ORDINALS[match.group("scale").lower()] + match.group("plural"))
        if match.group("scale")
        else (match.start(), match.end(), "first")
        for match in _ORDINAL_DENOMINATOR.finditer(normalised.text)
    ]
    pieces += [
        (match.start(), match.end(), _SYMBOL_WORDS[" ".join(match.group().lower().split())])
        for match in _SYMBOL_WORD.finditer(normalised.text)
    ]
    normalised = normalised.rewritten(sorted(pieces))
    if written_in is None:  # an English critique: each run that says its values in another language, read in it
        text = normalised.text
        runs = switched_runs(text)
        pieces = [(start, end, _in_language(_Normalised(text[start:end]), name).text) for start, end, name in runs]
        normalised = normalised.rewritten(sorted(pieces + switched_decimal_comma_pieces(text, runs)))
    else:
        normalised = _in_language(normalised, written_in)
    normalised = _scale_and_percent_words(normalised.rewritten(_number_words(normalised.text)))
    normalised = normalised.rewritten(spoken_symbol_pieces(normalised.text))
    pieces = [
        (match.start(), match.end(), f"{match.group(1)}.{int(match.group(2) or match.group(3)):02d}")
        for match in _MONEY_WORDS.finditer(normalised.text)
    ]
    pieces += [
        (match.start(), match.end(), match.group().replace(" ", ""))
        for match in _SPACED_THOUSANDS.finditer(normalised.text)
    ]
    if k_is_thousands:
        pieces += [
            (*match.span(), str(Fraction(match[1]) * 1000).removesuffix("/1"))
            for match in _THOUSANDS_SUFFIX.finditer(normalised.text)
        ]
    pieces += [(match.end(), match.end(), " ") for match in _GLUED_FUNCTION.finditer(normalised.text)]
    pieces += [(*match.span(), match["value"]) for match in _RESTATED.finditer(normalised.text)]
    pieces += [
        (match.start(), match.end(), f"{match.group(1)}_{{{next(filter(None, match.groups()[1:]))}}}")
        for match in _BASE_WORDS.finditer(normalised.text)
    ]
    pieces += [
        (match.start(), match.end(), f"_{{{match.group(1)}}}") for match in _BASE_IN_TEXT.finditer(normalised.text)
    ]
    normalised = normalised.rewritten(sorted(pieces))
    pieces = []
    for match in _FRACTION_WORDS.finditer(normalised.text):
        numerator = match.group("numerator") or "1"
        denominator = "2" if match.group("half") else "4" if match.group("quarter") else match.group("denominator")
        pieces.append((match.start(), match.end(), f"{numerator}/{denominator}"))
    for match in _ODDS.finditer(normalised.text):
        first, second = int(match["first"]), int(match["second"])
        favoured = second if match["side"].lower() == "against" else first
        pieces.append((*match.span(), f"{favoured}/{first + second}"))
    for match in _COMPLEMENT_CHANCE.finditer(normalised.text):
        part, whole = int(match["part"]), int(match["whole"])
        if part <= whole:
            pieces.append((*match.span(), f"{whole - part}/{whole}"))
    pieces += [
        (match.start("antecedent"), match.end(), f"{match['antecedent']}/{match['consequent']}")
        for match in _RATIO_TO.finditer(normalised.text)
    ]
    for match in _RATIO.finditer(normalised.text):
        numerator, denominator = match.group("numerator") or match.group("part"), match.group("denominator")
        if match.group("numerator") or int(match.group("part")) <= int(match.group("whole")):
            pieces.append((match.start(), match.end(), f"{numerator}/{denominator or match.group('whole')}"))
    pieces = first_of_overlapping(pieces)
    pieces += [(match.start(), match.end(), "-") for match in _SIGN_WORD.finditer(normalised.text)]
    pieces += [(*match.span("comma"), "") for match in _CORRECTED_ATTEMPT.finditer(normalised.text)]
    pieces += [
        (match.start(), match.end(), (match["whole"] or "") + "." + "".join(match["digits"].split()))
        for match in _POINT_WORDS.finditer(normalised.text)
        if match["whole"] or len("".join(match["digits"].split())) >= 2  # "point 3" is a point's label
    ]
    normalised = normalised.rewritten(sorted(pieces))
    # a root of a fraction of squares is the fraction's: "the square root of 4/9" is 2/3, while "the square root
    # of 3 over 3" is √3/3
    pieces = [
        (*match.span(), f"√({match[1]}/{match[2]})")
        for match in _ROOT_OF_FRACTION.finditer(normalised.text)
        if all(math.isqrt(int(number)) ** 2 == int(number) for number in match.groups())
    ]
    pieces += [
        (match.start(), match.end(), "√")
        for match in [*_ROOT_WORDS.finditer(normalised.text), *_GLUED_ROOT.finditer(normalised.text)]
        if not any(start <= match.start() < end for start, end, _ in pieces)
    ]
    for match in _MIXED_NUMBER.finditer(normalised.text):
        if len(match.group()) > MAX_CANDIDATE_LENGTH:
            continue
        whole, numerator, denominator = map(int, match.groups())
        if numerator >= denominator:
            continue
        pieces.append((match.start(), match.end(), f"{whole * denominator + numerator}/{denominator}"))
    normalised = normalised.rewritten(sorted(pieces))
    # after the roots: "3 times the square root of 13" is "3 times √13" now
    normalised = normalised.rewritten(
        [(match.start(), match.end(), " \\times ") for match in _TIMES_WORD.finditer(normalised.text)]
    )
    # before the arithmetic words: "x is less than 3" is an inequality, "1 less than 3" a difference
    if re.search(r"\bthan\b|\bat[ ]+(?:most|least)\b|\b(?:below|under|above|exceeds)\b", normalised.text, re.I):
        normalised = normalised.rewritten(
            [
                (
                    match.start(),
                    match.end(),
                    f" {_INEQUALITY_WORDS[' '.join(match.group('relation').lower().split())]} ",
                )
                for match in _INEQUALITY_WORD.finditer(normalised.text)
            ]
        )
    normalised = normalised.rewritten(
        [
            (*match.span(), f"{match['variable'] or 'x'} {'>=' if match['up'] else '<='} {match['bound']}")
            for match in _BOUND_OR_BEYOND.finditer(normalised.text)
        ]
    )
    for _ in range(_MAX_OMITTED_VARIABLES):  # each pass gives the next inequality of a chain its variable
        pieces = [
            (
                match.start("relation"),
                match.end("relation"),
                f"{match.group('variable')} {_INEQUALITY_WORDS.get(relation, relation)} ",
            )
            for match in _OMITTED_VARIABLE.finditer(normalised.text)
            for relation in [" ".join(match.group("relation").lower().split())]
        ]
        if not pieces:
            break
        normalised = normalised.rewritten(pieces)
    normalised = normalised.rewritten(
        [
            (match.start(), match.end(), _complex_from_parts(match))
            for match in _COMPLEX_PARTS.finditer(normalised.text)
        ]
    )
    normalised = normalised.rewritten(
        [(*match.span(), "") for match in _UNIT_BEFORE_OPERATOR.finditer(normalised.text)]
    )
    lowered = normalised.text.lower()
    for words, pattern, replacement in _ARITHMETIC_WORDS:  # "one more than 41" -> "(41)+(1)"
        if not any(word in lowered for word in words):
            continue  # a quick test that spares the pattern's scan of the whole text
        pieces = [
            (
                match.start(),
                match.end(),
                _OPERAND_UNIT_PATTERN.sub(
                    "", (replacement(match) if callable(replacement) else match.expand(replacement)).replace("$", "")
                ),
            )
            for match in pattern.finditer(normalised.text)
        ]
        normalised = normalised.rewritten(pieces)
    return normalised.rewritten(spoken_fraction_pieces(normalised.text))


def _program_notation(text: str) -> list[tuple[int, int, str]]:
    """The pieces `(start, end, math)` of `text` that write a value in program notation (`_PROGRAM_MODULE` ...)."""
    # each piece replaces the whole notation, so that a redaction of the value takes its prefix or wrapper too
    pieces = [(m.start(), m.end(), f"{m.group(1)}/{m.group(2)}") for m in _PROGRAM_FRACTION.finditer(text)]
    pieces += [
        (m.start(), m.end(), f"{m.group(1)}{'' if m.group(2).startswith('-') else '+'}{m.group(2)}i")
        for m in _PROGRAM_COMPLEX.finditer(text)
    ]
    pieces += [(m.start(), m.end(), m.group(1) + "i") for m in _PROGRAM_IMAGINARY.finditer(text)]
    pieces += [(m.start(), m.end(), m.group(1) + "i") for m in _PROGRAM_PURE_IMAGINARY.finditer(text)]
    pieces += [(m.start(), m.end(), "i") for m in _PROGRAM_IMAGINARY_UNIT.finditer(text)]
    pieces += [(m.start(), m.end(), f" == {m.group(1)}") for m in _PROGRAM_EXPECTATION.finditer(text)]
    pieces += [(m.start(), m.end(), m.group(1)) for m in _CAS_INTEGER.finditer(text)]
    pieces += [(m.start(), m.end(), f"{m['side']} = {m['other_side']}") for m in _CAS_EQUATION.finditer(text)]
    for match in _CAS_ROOT.finditer(text):
        pieces += wrapper_pieces(match, ("radicand",), ("sqrt(", ")"))
    pieces += [(m.start(), m.end(), "pi") for m in _CAS_PI.finditer(text)]
    pieces += [(m.start(), m.end(), "i") for m in _CAS_IMAGINARY_UNIT.finditer(text)]
    pieces += [(m.start(), m.end(), f"{m.group(2)}_{{{m.group(1)}}}") for m in _CAS_BASE.finditer(text)]
    for match in _CAS_INTERVAL.finditer(text):
        pieces += _cas_interval_pieces(match)
    pieces += [
        (m.start(), m.end(), f" {linear} ")
        for m in _MATHML.finditer(text)
        if (linear := _mathml(m.group("body"))) is not None
    ]
    pieces += [(m.start(), m.end(), m.group(1) + "\\infty") for m in _CAS_INFINITY.finditer(text)]
    for match in _PROGRAM_ARRAY.finditer(text):
        pieces += [(match.start(), match.start("rows") + 1, "["), (match.end("rows") - 1, match.end(), "]")]
        # printed one row per line: `Matrix([\n[-7],\n[16]])`, numpy's indented rows
        pieces += [
            (match.start("rows") + line.start(), match.start("rows") + line.end(), "")
            for line in _LINE_BREAK.finditer(match.group("rows"))
        ]
    for match in _CAS_NESTED_LIST.finditer(text):
        pieces += [
            (match.start() + offset, match.start() + offset + 1, "[" if character == "{" else "]")
            for offset, character in enumerate(match.group())
            if character in "{}"
        ]
    for match in _CAS_FUNCTION.finditer(text):
        pieces += wrapper_pieces(match, ("argument",), (match["name"].lower() + "(", ")"))
    pieces += [(m.start(), m.end(), " or ") for m in _CAS_OR.finditer(text)]
    pieces += [(m.start(), m.end(), f"{m['kind']}put:") for m in _CAS_PROMPT.finditer(text)]
    pieces += [(m.start(), m.end(), "^") for m in _PROGRAM_POWER.finditer(text)]
    # a module's prefix on anything else: `math.sqrt`, `np.pi`
    pieces += [(m.start(), m.end(), m.group("name")) for m in _PROGRAM_MODULE.finditer(text)]
    return first_of_overlapping(pieces)


def _cas_union_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that write SymPy's `Union((0, 9), (9, 36))` (its intervals already in brackets) as
    "(0, 9) \\cup (9, 36)"."""
    pieces = []
    for match in _CAS_UNION.finditer(text):
        members = [member.span() for member in _CAS_UNION_MEMBER.finditer(match["members"])]
        start = match.start("members")
        pieces.append((match.start(), start, ""))
        pieces += [
            (start + end, start + next_start, " \\cup ") for (_, end), (next_start, _) in itertools.pairwise(members)
        ]
        pieces.append((match.end("members"), match.end(), ""))
    return pieces


def _complex_from_parts(match: re.Match) -> str:
    """The complex number a `_COMPLEX_PARTS` match names by its parts: "real part 6, imaginary part -5" is `6-5i`."""
    real = (match.group("real") or match.group("real_last")).replace("−", "-")
    imaginary = (match.group("imaginary") or match.group("imaginary_first")).replace("−", "-")
    return f"{real}{'' if imaginary.startswith('-') else '+'}{imaginary}i"


def _scale_and_percent_words(normalised: _Normalised) -> _Normalised:
    """ "3 million" as 3000000 and "percent" as `%`, before the number words ("3 million" stays one number) and after
    them ("thirty-five percent")."""
    # A number longer than a short answer is not rewritten: Python reads at most 4,300 digits into an int.
    pieces = [
        (match.start(), match.end(), _scaled(*match.groups()))
        for match in _SCALE_WORD.finditer(normalised.text)
        if len(match.group()) <= MAX_CANDIDATE_LENGTH
    ]
    pieces += [(match.start(), match.end(), "%") for match in _PERCENT_WORD.finditer(normalised.text)]
    pieces += [
        (*match.span(), f"{format(Decimal(match['points'].replace(',', '')) / 100, 'f')}%")
        for match in _BASIS_POINTS.finditer(normalised.text)
    ]
    return normalised.rewritten(sorted(pieces))


def _repeating_decimal(match: re.Match) -> str:
    r"""A repeating decimal (`_REPEATING_DECIMAL`) as the fraction it is: `0.\overline{3}` -> 1/3, "4.1(6)" -> 25/6."""
    repetend = (match.group("marked") or "").replace("\u0305", "") or match.group("braced") or match.group("bracketed")
    fixed = match.group("fixed")
    value = Fraction(int(match.group("whole") or 0)) + Fraction(int(fixed or 0), 10 ** len(fixed))
    value += Fraction(int(repetend), 10 ** len(fixed) * (10 ** len(repetend) - 1))
    return f"{value.numerator}/{value.denominator}"


def _script(characters: str, mark: str) -> str:
    """Superscript (`mark` "^") or subscript ("_") characters in LaTeX: ² -> `^{2}`, ₈ -> `_{8}`."""
    return mark + "{" + "".join(unicodedata.normalize("NFKC", character) for character in characters) + "}"


def _symbols(text: str) -> list[tuple[re.Match, str]]:
    """Symbols the guard reads in their LaTeX spelling: a dash used as a minus sign, the minus sign (−), a dash that
    punctuates prose as an em dash, ± (and "+/-"), ∞, ∪ (and a U between two intervals), ∈, fraction slashes."""
    return (
        [(match, "-") for match in _DASH_MINUS.finditer(text)]
        + [(match, "—") for match in _PROSE_DASH.finditer(text)]
        + [(match, _SYMBOLS[match.group()]) for match in re.finditer("[±∓∞∪∈⁄∕−ᵀ⋅]|\\+/-", text)]
        + [(match, " \\cup ") for match in _UNION_LETTER.finditer(text)]
    )


def _scaled(number: str, scale: str) -> str:
    value = Fraction(number) * _SCALES[scale.lower()]
    return str(value.numerator) if value.denominator == 1 else number + " " + scale


def _in_language(normalised: _Normalised, name: str) -> _Normalised:
    """`normalised`, a critique or a run of one in the language `name`, with its number words as digits and its
    words for signs, operations and the rest as the English the guard reads."""
    if name in ALPHA2DIGIT_LANGUAGES:  # its number words first: "cuarenta y dos" before "y" is "and"
        normalised = normalised.rewritten(_number_words(normalised.text, name))
    else:
        normalised = normalised.rewritten(number_word_pieces(normalised.text, name))
    return normalised.rewritten(language_pieces(normalised.text, name))


def _number_words(text: str, written_in: str = "en") -> list[tuple[int, int, str]]:
    """The pieces `(start, end, digits)` of `text` that spell a number, as alpha2digit reads them in the language
    `written_in` (every English number word, "one" included; in other languages not one alone, which is also "a":
    "un", "ein", "um"), clause by clause: a number is spelled within one, and comparing short texts stays cheap."""
    pieces = []
    for clause in _CLAUSE.finditer(text):
        tokens, offset = _WORD_OR_SPACE.findall(clause.group()), clause.start()
        for chunk in map("".join, _clause_pieces(tokens, written_in)):
            threshold = 0 if written_in == "en" else 2
            # a quote mark that is no apostrophe hides the word from alpha2digit: "the key says 'three'"
            plain = _SCALE_COMMA.sub(" ", _QUOTE_MARK.sub(" ", chunk))
            if written_in == "es":
                plain = CENTAVOS.sub(lambda match: " " * len(match.group()), plain)
            digits = alpha2digit(plain, written_in, threshold=threshold) if re.search("[A-Za-z]", plain) else plain
            if digits != plain:
                pieces += [(offset + start, offset + end, new) for start, end, new in _changed_words(plain, digits)]
            offset += len(chunk)
    return pieces


def _clause_pieces(tokens: list[str], written_in: str) -> Iterator[list[str]]:
    """`tokens` in pieces of `_CLAUSE_TOKENS` tokens, each cut at the first word after them that is no part of a
    number (at most `_CLAUSE_TOKENS` later): "... nought point nought nought six seven two, okay" is not cut inside."""
    first = 0
    while first < len(tokens):
        end = min(first + _CLAUSE_TOKENS, len(tokens))
        limit = min(end + _CLAUSE_TOKENS, len(tokens))
        while end < limit and not _outside_a_number(tokens[end], written_in):
            end += 1
        yield tokens[first:end]
        first = end


def _outside_a_number(token: str, written_in: str) -> bool:
    word = token.lower()
    return word.isalpha() and word not in _INSIDE_A_NUMBER and not is_number_word(word, written_in)


def _changed_words(before: str, after: str) -> list[tuple[int, int, str]]:
    """The pieces `(start, end, replacement)` of `before` that `after` rewrites, found word by word."""
    old, new = _WORD_OR_SPACE.findall(before), _WORD_OR_SPACE.findall(after)
    old_offsets, new_offsets = [0, *itertools.accumulate(map(len, old))], [0, *itertools.accumulate(map(len, new))]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        (old_offsets[i1], old_offsets[i2], after[new_offsets[j1] : new_offsets[j2]])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _without_lone_surrogates(text: str | None) -> str | None:
    """`text` with each lone surrogate (`_LONE_SURROGATE`) as U+FFFD, the replacement character (the same length);
    `None` stays `None`."""
    return None if text is None else _LONE_SURROGATE.sub("\ufffd", text)
