"""Text laid out in two dimensions and flattened to lines: a PDF's or a scan's text layer (stacked fractions, words
hyphenated at a line's end, an answer key's columns read across, OCR's "º" for a degree sign) and a computer algebra
system's 2-D output (SymPy's fraction bar and matrix brackets), each written as the one line the guard reads.
"""

import re

from .pieces import COUNT_IN_A_COMPOUND, NUMBER_WORD_AHEAD, first_of_overlapping


# One item of a numerator or a denominator: a character of math (a digit, a sign, `√`, `π`, a superscript), a lone
# letter (a variable) or a function's name; a word ends the fraction ("3 attempts" is no denominator)
_STACKED_ITEM = r"(?:[^\sA-Za-z─—–―_]|(?<![A-Za-z])(?:[A-Za-z]|pi|sqrt|sin|cos|tan|log|ln|exp)(?![A-Za-z]))"
_STACKED_SIDE = rf"{_STACKED_ITEM}(?:[ \t]*{_STACKED_ITEM}){{0,29}}"

# A numerator at the end of a line over a rule of dashes (SymPy's box-drawing `─`, a PDF's em or en dashes or
# hyphens, underscores) over a denominator: `3⋅√3` / `────` / `4`, "14" / "——" / "3". SymPy's bar is as wide as
# the wider of them, and its denominator may go on in prose ("returns 243" / "───" / "625 for the final
# expression"); any other rule's denominator is a line of its own, a Markdown rule between lines of prose is none.
_STACKED_FRACTION = re.compile(
    rf"(?<!\S)(?P<numerator>{_STACKED_SIDE})[ \t]*\r?\n[ \t]*(?P<bar>[─—–―-]{{2,}}|_{{2,}})[ \t]*\r?\n"
    rf"[ \t]*(?P<denominator>{_STACKED_SIDE})(?P<line_end>[ \t]*(?=\r?\n|$))?"
)

# A word hyphenated at a line's end ("Eve-" / "lyn", "forty-" / "two"), or split by a soft hyphen there
_LINE_END_HYPHEN = re.compile(r"(?<=[A-Za-z])(?:-|\u00ad)[ \t]*\r?\n[ \t]*(?=[a-z])")

# An answer key typeset in columns and read across: a gap, then the next column's numbered entry ("53. 720        10.
# 32", "eight        11. 3 √5" where "seventy-" ended the line above)
_COLUMN_GAP = re.compile(r"(?<=\S)(?:[ ]{3,}|[ ]*\t[ \t]*)(?=\(?\d{1,3}[.)][ \t]+\S)")

# OCR's masculine ordinal or a ring above for a degree sign: "90º", "38.571˚"
_OCR_DEGREE = re.compile(r"(?<=\d)[ºᵒ˚]")

# A matrix drawn with bracket pieces, one row per line (SymPy's pretty printer, a PDF's big parentheses):
# `⎛−1/3⎞` / `⎜ 2/3⎟` / `⎝ 5/3⎠`, `⎡1  2⎤` / `⎢    ⎥` / `⎣3  4⎦`
_DRAWN_MATRIX = re.compile(
    r"[⎛⎡](?P<first>[^\n⎞⎤]{1,80})[⎞⎤][ \t]*\r?\n"
    r"(?P<middle>(?:[ \t]*[⎜⎢][^\n⎟⎥]{0,80}[⎟⎥][ \t]*\r?\n){0,15})"
    r"[ \t]*[⎝⎣](?P<last>[^\n⎠⎦]{1,80})[⎠⎦]"
)
_DRAWN_MIDDLE_ROW = re.compile(r"[⎜⎢]([^\n⎟⎥]*)[⎟⎥]")


def extraction_pieces(text: str) -> list[tuple[int, int, str]]:
    """The pieces `(start, end, replacement)` that write `text`'s two-dimensional layouts on one line: a stacked
    fraction as `(numerator)/(denominator)`, a word hyphenated at a line's end joined, an answer key's columns one
    entry per line, an OCR degree sign as `°`, a drawn matrix as `pmatrix`."""
    pieces = [
        (match.start(), match.end(), f"({match['numerator']})/({match['denominator']})")
        for match in _STACKED_FRACTION.finditer(text)
        if _is_fraction_bar(match)
    ]
    pieces += [
        (*match.span(), "-" if _number_compound(text, *match.span()) else "")
        for match in _LINE_END_HYPHEN.finditer(text)
    ]
    pieces += [(*gap.span(), "\n") for gap in _COLUMN_GAP.finditer(text)]
    pieces += [(*match.span(), "°") for match in _OCR_DEGREE.finditer(text)]
    pieces += [(*match.span(), _drawn_matrix(match)) for match in _DRAWN_MATRIX.finditer(text)]
    return first_of_overlapping(pieces)


def _is_fraction_bar(match: re.Match) -> bool:
    if match["bar"].startswith("─"):
        return len(match["bar"]) >= max(map(len, match.group("numerator", "denominator")))
    return match["line_end"] is not None


def _number_compound(text: str, start: int, end: int) -> bool:
    """Whether the hyphen joins a compound number ("forty-" / "two"), which keeps it."""
    return bool(COUNT_IN_A_COMPOUND.search(text, max(0, start - 12), start) and NUMBER_WORD_AHEAD.match(text, end))


def _drawn_matrix(match: re.Match) -> str:
    rows = [match["first"], *_DRAWN_MIDDLE_ROW.findall(match["middle"]), match["last"]]
    entries = [row.split() for row in rows if row.strip()]  # SymPy spaces its rows with empty ones
    return "\\begin{pmatrix}" + " \\\\ ".join(" & ".join(row) for row in entries) + "\\end{pmatrix}"
