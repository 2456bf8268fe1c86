"""Numbers as other locales and typesetting traditions write them, in a critique of any language: grouping by
dots, apostrophes or Indian lakhs, a decimal comma where no grouping can be meant, the British raised decimal point,
a colon or "by" for division, Chinese "负" for minus, brackets parted by semicolons or bars, closed ends as `⟩` or
reversed brackets, per mille, gon and the trigonometric names of continental schools, each written as the notation
the guard reads. Read before the guard's symbols make `·` a product.
"""

import re
from decimal import Decimal

from .pieces import first_of_overlapping


_MINUS = r"[-−–]"
_CHINESE_MINUS = re.compile(r"[负負](?=\s*\d)")  # "负60" in a critique of any language: -60

# Grouping that no decimal can be: Swiss apostrophes ("13’535"), two groups of dots or more ("11.111.111.100"),
# Indian lakhs and crores ("11,11,11,11,100", "2,00,000"); groups of dots before a decimal comma ("6.366,2")
_GROUPED = re.compile(
    r"(?<![\d.,’'])\d{1,3}(?:[’']\d{3})+(?![\d’'])"
    r"|(?<![\d.,])\d{1,3}(?:\.\d{3}){2,}(?![\d]|[.,]\d)"
    r"|(?<![\d.,])\d{1,2}(?:,\d{2})+,\d{3}(?![\d]|[.,]\d)"
)
_GROUPED_BEFORE_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+,\d+(?![\d]|[.,]\d)")

# A decimal comma no grouping can be: a whole part of 0 or four decimals and more ("0,15", "4,6667"), one or two
# decimals before a percent or per mille sign, after a sign of approximation or before a power of ten ("12,5 %",
# "≈ 24,3", "6,72·10⁻⁵"); not an item of a bracket parted by commas (`(0,5)`, `(3,4]`)
_DECIMAL_COMMA = re.compile(
    r"(?<![\d.,’'(\[{/])(?P<whole>0|\d+(?=,\d{4}))(?P<comma>,)\d+(?!\d|[,.]\d|\s*[)\]}])"
    r"|(?<![\d.,’'])(?P<whole_before_sign>\d+)(?P<comma_before_sign>,)\d{1,2}"
    r"(?=\s*(?:[%‰]|[·×x*]\s*10\s*(?:\^|[⁻⁰¹²³⁴⁵⁶⁷⁸⁹])))"
    r"|(?:≈|~|≃|\b(?:about|roughly|approximately|approx\.?|circa|ca\.|around|nearly)\b)\s*(?:[-−–]\s*)?"
    r"(?P<whole_approximated>\d+)(?P<comma_approximated>,)\d{1,2}(?!\d|[,.]\d)",
    re.IGNORECASE,
)

# The British raised decimal point ("1·25", "32,348·00"), not a product with a power of ten ("6·72 × 10⁻⁵" is one,
# "6,72·10⁻⁵" is a product)
_RAISED_POINT = re.compile(
    r"(?<![\d.,·])(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?P<point>·)(?!10\s*(?:\^|[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]))(?P<decimals>\d+)(?![\d·])"
)

# A colon between spaces for division, as continental schools write it: "14 : 3", "√3 : 3", "(11 + 9a) : 20",
# "pi² : 8" (a label's colon follows its word: "Answer: 3", "Step 2: 3")
_DIVISION_COLON = re.compile(r"(?:(?<=[\dπ)²³])|(?<=\bpi))[ \t]+:[ \t]+(?=[-−–]?(?:\d|\(|√|π|pi\b))")

# Indian English's "by" for a fraction ("11 by 2", "root 3 by 3", "-π by 6", "20000 by π"), not a dimension ("a 3
# by 1 column", "8 by 6 rectangular"), a verb's object ("replace 59/56 by 3/56", "dividing 100 by 6 gives") or a
# fraction's part
_BY_OPERAND_LEFT = r"(?:\d+\s*)?(?:(?:√|root\s+)\d+|(?:π|pi\b)(?:\^\d+|[²³])?)|\d+(?:\.\d+)?"
_FRACTION_BY = re.compile(
    rf"(?<![\w./⁄^·])(?:{_MINUS}\s*)?(?:{_BY_OPERAND_LEFT})(?P<by>\s+by\s+)"
    r"(?:\d+(?:\.\d+)?|π|pi\b|√\d+)(?![\w⁄/^²³]|[.·,]\d)"
    r"(?!\s*-?\s*(?:columns?|rows?|matri(?:x|ces)|grids?|rectangles?|rectangular|squares?|units?|boards?|arrays?"
    r"|tables?|boxes|box|blocks?|tiles?|regions?|rooms?|fields?|plots?|times|gives?|giving|yields?|(?:c|m|k)?m|in"
    r"|ft|feet|foot|inch(?:es)?|met(?:er|re)s?|yards?|miles?|pixels?)\b)",
    re.IGNORECASE,
)
_VERB_WITH_BY = re.compile(
    r"\b(?:replac|divid|multipl|increas|decreas|reduc|scal|rais|lower|mov|shift|translat|rotat|grow|expand|stretch"
    r"|rounded)\w*\b[^.;:!?\n]{0,40}$",
    re.IGNORECASE,
)

# A bracket's items parted by semicolons or bars, each one value ("(15; −29)", "(3 | π/2)", "(0,2; −3,6)", "[pi² :
# 8; 5 pi² : 4]"), with closed ends as `⟨`, `⟩` or reversed brackets ("(3; 4⟩", "]3; 4]"); not a matrix's rows
# (`[-1 0; 0 -1]`) nor prose in parentheses: an item's words are a variable, pi, a root or infinity
_ITEM = r"[^;|()\[\]{}⟨⟩\n]{1,40}"
_PARTED_BRACKET = re.compile(
    rf"(?P<opening>[(\[\]⟨])(?P<items>{_ITEM}(?P<separator>[;|]){_ITEM}(?:(?P=separator){_ITEM}){{0,6}})"
    r"(?P<closing>[)\]\[⟩])"
)
_ITEM_WORD = re.compile(r"[A-Za-z]{2,}")
_ITEM_WORDS = {"pi", "sqrt", "root", "inf", "infty", "infinity", "minus"}
_ROW_OF_NUMBERS = re.compile(r"\d\s+[-−–]?\d")
_COMMA_BETWEEN_DIGITS = re.compile(r"(?<=\d),(?=\d)")
# Items of a matrix's rows, each in its brackets, parted by semicolons: "((−1; 0); (0; −1))"
_PARTED_ROWS = re.compile(r"\(\s*\([^()]*\)(?:\s*;\s*\([^()]*\))+\s*\)")
_ROW_SEPARATOR = re.compile(r"(?<=\))\s*;\s*(?=\()")

# Per mille ("388,8 ‰"), gon ("100 gon" is 90°) and the names of tangent and cotangent in continental schools
_PER_MILLE = re.compile(r"(?P<number>\d+(?:[.,·]\d+)?)[ \t\u2009\u202f\xa0]*‰")
_GON = re.compile(r"(?P<number>\d+(?:[.,]\d+)?)[ \t\u2009\u202f\xa0]*(?:gons?|gradians?)\b", re.IGNORECASE)
_TRIGONOMETRIC_NAMES = {"cotg": "cot", "cotan": "cot", "ctg": "cot", "tg": "tan", "arctg": "arctan"}
_TRIGONOMETRIC_NAME = re.compile(
    r"\\operatorname\s*\{(?P<operator>cotg|cotan|ctg|tg|arctg)\}|\b(?P<name>cotg|cotan|ctg|tg|arctg)\b"
)

# A product sign written as the letter x between a number and a root or pi: "12 x π", "16 x √3"
_LETTER_TIMES = re.compile(r"(?<=\d)[ \t]+x[ \t]+(?=[√π]|pi\b)")


def _decimal(text: str) -> Decimal:
    return Decimal(text.replace(",", ".").replace("·", "."))


def _written(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _parted_bracket_pieces(match: re.Match) -> list[tuple[int, int, str]]:
    items = re.split(r"[;|]", match["items"])
    if any(_ROW_OF_NUMBERS.search(item) for item in items) or any(
        word.lower() not in _ITEM_WORDS for item in items for word in _ITEM_WORD.findall(item)
    ):
        return []
    if not all(re.search(r"[\dπ∞]|\bpi\b|\binf", item) for item in items):
        return []
    opening, closing = match["opening"], match["closing"]
    opening_as = {"]": "(", "⟨": "[" if closing != "⟩" else "⟨"}.get(opening, opening)
    closing_as = {"[": ")", "⟩": "]" if opening != "⟨" else "⟩"}.get(closing, closing)
    start = match.start("items")
    pieces = [(match.start(), match.start() + 1, opening_as), (match.end() - 1, match.end(), closing_as)]
    for offset, character in enumerate(match["items"]):
        if character in ";|":
            pieces.append((start + offset, start + offset + 1, ", "))
    pieces += [
        (start + comma.start(), start + comma.end(), ".") for comma in _COMMA_BETWEEN_DIGITS.finditer(match["items"])
    ]
    return pieces


def convention_pieces(text: str, raised_point: bool = True) -> list[tuple[int, int, str]]:
    """The pieces that write a locale's or a typesetting tradition's numbers as the guard reads them. Without
    `raised_point`, `·` between digits is a product ("2·3", a prime factorization: 6) unless a zero is before it or
    only zeros follow it ("0·15", "32,348·00")."""
    pieces = [(*match.span(), "-") for match in _CHINESE_MINUS.finditer(text)]
    pieces += [(*match.span(), f"{_written(_decimal(match['number']) / 10)}%") for match in _PER_MILLE.finditer(text)]
    pieces += [(*match.span(), f"{_written(_decimal(match['number']) * 9 / 10)}°") for match in _GON.finditer(text)]
    pieces += [(*match.span(), re.sub(r"[’'.,]", "", match.group())) for match in _GROUPED.finditer(text)]
    pieces += [
        (*match.span(), match.group().replace(".", "").replace(",", "."))
        for match in _GROUPED_BEFORE_DECIMAL_COMMA.finditer(text)
    ]
    for match in _DECIMAL_COMMA.finditer(text):
        comma = next(name for name in ("comma", "comma_before_sign", "comma_approximated") if match[name])
        pieces.append((*match.span(comma), "."))
    pieces += [
        (*match.span(), match.group().replace(",", "").replace("·", "."))
        for match in _RAISED_POINT.finditer(text)
        if raised_point or match["whole"] == "0" or not match["decimals"].strip("0")
    ]
    pieces += [(*match.span(), "/") for match in _DIVISION_COLON.finditer(text)]
    pieces += [
        (*match.span("by"), "/")
        for match in _FRACTION_BY.finditer(text)
        if not _VERB_WITH_BY.search(text, max(0, match.start() - 60), match.start())
    ]
    for match in _PARTED_BRACKET.finditer(text):
        pieces += _parted_bracket_pieces(match)
    pieces += [
        (*separator.span(), ", ")
        for rows in _PARTED_ROWS.finditer(text)
        for separator in _ROW_SEPARATOR.finditer(text, rows.start(), rows.end())
    ]
    pieces += [
        (*match.span(), f"\\{_TRIGONOMETRIC_NAMES[match['operator'] or match['name']]} ")
        for match in _TRIGONOMETRIC_NAME.finditer(text)
    ]
    pieces += [(*match.span(), " × ") for match in _LETTER_TIMES.finditer(text)]
    return first_of_overlapping(pieces)
