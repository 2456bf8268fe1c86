"""Rich text around a value, as the guard reads it: a JSON string's escapes (`"3\\u204456"`, `"\\\\frac{3}{2}"`),
HTML's character references and tags (`&minus;2 + 7<i>i</i>`, `<sup>14</sup>&frasl;<sub>3</sub>`, `2&thinsp;000`),
AsciiMath's `frac(35)(64)`, a fraction of Unicode superscripts over subscripts (`²⁴³⁄₆₂₅`) and TeX escaped for
Markdown (`\\\\frac\\{1\\}\\{3\\}`). `_normalised` applies them before anything else: the rest of the guard reads
the text they leave."""

import html
import json
import re

from .pieces import first_of_overlapping


# A JSON string whose only escapes are JSON's own and not TeX's (`\\`, `\"`, `\/`, `\u2044`): `"\frac{1}{2}"` is TeX
_JSON_STRING = re.compile(r'"(?P<body>(?:[^"\\\n]|\\.){1,400})"')
_JSON_ESCAPES_ONLY = re.compile(r'(?:[^\\]|\\\\|\\"|\\/|\\u[0-9a-fA-F]{4})*')

# HTML's character references (`&minus;`, `&#8722;`, `&#x2212;`) and the tags that only set text (a cell, a
# paragraph, bold), which a value may sit in or be split by; attributes must have values, so that `a<b and c>d`
# is no tag
_CHARACTER_REFERENCE = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ATTRIBUTES = r"""(?:\s+[\w:-]+\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>]+))*\s*/?"""
_INLINE_TAG = re.compile(
    r"</?(?:b|i|u|s|em|strong|span|code|tt|a|font|small|big|var|kbd|samp|mark|del|ins|cite|q|abbr|nobr)"
    rf"{_ATTRIBUTES}>",
    re.IGNORECASE,
)
_BLOCK_TAG = re.compile(
    rf"</?(?:p|div|br|hr|td|th|tr|table|tbody|thead|li|ul|ol|blockquote|pre|h[1-6]|section|article){_ATTRIBUTES}>",
    re.IGNORECASE,
)
_SCRIPT_TAG = re.compile(rf"<(?P<closing>/?)(?P<kind>sup|sub){_ATTRIBUTES}>", re.IGNORECASE)
# a fraction set as a superscript over a subscript, with a fraction slash between: `<sup>3</sup>&frasl;<sub>4</sub>`
_SCRIPT_FRACTION = re.compile(
    rf"<sup{_ATTRIBUTES}>(?P<numerator>[^<>]{{1,40}})</sup>\s*(?:⁄|/|&frasl;|&#8260;|&#x2044;)\s*"
    rf"<sub{_ATTRIBUTES}>(?P<denominator>[^<>]{{1,40}})</sub>",
    re.IGNORECASE,
)

# an HTML table of values, each row a `<tr>` of `<td>` cells and no header: a matrix or a vector
_HTML_TABLE = re.compile(
    r"<table\b[^<>]*>(?P<body>(?:(?!</?table\b|<th\b).){1,2000}?)</table>", re.IGNORECASE | re.DOTALL
)
_ROW = re.compile(r"<tr\b[^<>]*>(.*?)</tr>", re.IGNORECASE | re.DOTALL)
_CELL = re.compile(r"<td\b[^<>]*>(.*?)</td>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")

# Markdown's emphasis, whose stars are no operator: "it should come out to *1, −2*", "**Answer:** 7"
_EMPHASIS = re.compile(r"(?<![\w*\\])(?P<mark>\*{1,3})(?=[^\s*])[^*\n]{1,200}?(?<=[^\s*])(?P=mark)(?![\w*])")

# TeX with its backslash doubled, as Markdown needs it: `18 + 2 \\pi` (only before a command's name: `\\` also
# ends a matrix's row); AsciiMath's and plain text's `+-` for ±; a program's literal in another base, `0o52`
_DOUBLED_BACKSLASH = re.compile(
    r"(?<!\\)\\\\(?=(?:pi|frac|dfrac|sqrt|cdot|times|infty|pm|text|circ|le|ge)(?![A-Za-z]))"
)
_ASCII_PLUS_MINUS = re.compile(r"(?<=[\w)\s])\+-(?=\s*[\w(√])")
_BASE_LITERAL = re.compile(r"(?<![\w.])0(?P<prefix>[oObBxX])(?P<digits>[0-9a-fA-F]+)\b")
_LITERAL_BASES = {"o": 8, "b": 2, "x": 16}
# and a program's conversion from another base, `int('4343', 7)`; Markdown's escaped subscript, "4343\_5"
_INT_IN_BASE = re.compile(
    r"(?<![\w.])int\(\s*(?P<quote>['\"])(?P<digits>[0-9A-Za-z]+)(?P=quote)\s*,\s*(?:base\s*=\s*)?(?P<base>\d{1,2})\s*\)"
)
_ESCAPED_SUBSCRIPT = re.compile(r"(?<=[0-9A-Za-z])\\_(?=\{?\d)")

_SUPERSCRIPT_DIGITS, _SUBSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹", "₀₁₂₃₄₅₆₇₈₉"
_UNICODE_FRACTION = re.compile(
    rf"(?P<numerator>[{_SUPERSCRIPT_DIGITS}]+)\s*[⁄/]\s*(?P<denominator>[{_SUBSCRIPT_DIGITS}]+)"
)

# AsciiMath's fraction, each argument in brackets that may hold one level more: `frac(3sqrt(3))(4)`
_BRACKETED = r"\((?:[^()\n]|\([^()\n]*\))*\)"
_ASCIIMATH_FRACTION = re.compile(rf"(?<![A-Za-z\\])frac\s*(?P<numerator>{_BRACKETED})\s*(?P<denominator>{_BRACKETED})")

# TeX escaped for Markdown: a command's backslash doubled and its braces escaped, `\\frac\{\\pi\}\{2\}`
_ESCAPED_TEX = re.compile(r"\\\\(?P<command>[A-Za-z]+)(?P<arguments>(?:\\\{(?:[^{}\\\n]|\\\\[A-Za-z]+)*\\\})+)")


def _script_fraction(match: re.Match) -> str:
    numerator, denominator = (html.unescape(match[name]).strip() for name in ("numerator", "denominator"))
    if numerator.isdigit() and denominator.isdigit():
        return f"{numerator}/{denominator}"  # a plain fraction, which a mixed number may hold: `1 <sup>4</sup>...`
    return f"({numerator})/({denominator})"


def _cell_text(cell: str) -> str:
    """A table cell's content as plain text: its scripts' fractions, its tags left out, its references read."""
    return html.unescape(_TAG.sub("", _SCRIPT_FRACTION.sub(_script_fraction, cell))).strip()


def json_string_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that decode each JSON string holding an escape: `"3\\u204456"` is `"3⁄56"`."""
    pieces = []
    for match in _JSON_STRING.finditer(text):
        body = match["body"]
        if "\\" not in body or not _JSON_ESCAPES_ONLY.fullmatch(body):
            continue
        try:
            decoded = json.loads(f'"{body}"')
        except ValueError:
            continue
        pieces.append((*match.span("body"), decoded))
    return pieces


def markup_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that write rich text's markup as the plain text it shows: HTML's references as their characters, its
    tags as nothing (inline) or a space (a cell, a paragraph), `<sup>`/`<sub>` as TeX's scripts, a fraction in
    scripts, AsciiMath's and Unicode's fractions and escaped TeX as the fraction or command they write."""
    pieces = []
    for match in _HTML_TABLE.finditer(text):
        rows = [_CELL.findall(row) for row in _ROW.findall(match["body"])]
        if len(rows) * max(map(len, rows), default=0) > 1 and all(len(row) == len(rows[0]) for row in rows):
            cells = [" & ".join(_cell_text(cell) for cell in row) for row in rows]
            pieces.append((*match.span(), "\\begin{pmatrix}" + " \\\\ ".join(cells) + "\\end{pmatrix}"))
    pieces += [(*match.span(), _script_fraction(match)) for match in _SCRIPT_FRACTION.finditer(text)]
    for match in _UNICODE_FRACTION.finditer(text):
        numerator = match["numerator"].translate(str.maketrans(_SUPERSCRIPT_DIGITS, "0123456789"))
        denominator = match["denominator"].translate(str.maketrans(_SUBSCRIPT_DIGITS, "0123456789"))
        pieces.append((match.start(), match.end(), f"{numerator}/{denominator}"))
    for match in _ASCIIMATH_FRACTION.finditer(text):
        numerator, denominator = match["numerator"][1:-1].strip(), match["denominator"][1:-1].strip()
        # digits over digits as a plain fraction, which a mixed number may hold: `1 frac(4)(5)`
        fraction = f"{numerator}/{denominator}" if numerator.isdigit() and denominator.isdigit() else None
        pieces.append((*match.span(), fraction or f"({match['numerator']}/{match['denominator']})"))
    pieces += [(*m.span(), "±") for m in _ASCII_PLUS_MINUS.finditer(text)]
    pieces += [
        (*m.span(), f"{m['digits']}_{{{_LITERAL_BASES[m['prefix'].lower()]}}}") for m in _BASE_LITERAL.finditer(text)
    ]
    pieces += [
        (*m.span(), f"{m['quote']}{m['digits']}_{{{m['base']}}}{m['quote']}") for m in _INT_IN_BASE.finditer(text)
    ]
    pieces += [(*m.span(), "_") for m in _ESCAPED_SUBSCRIPT.finditer(text)]
    for match in _ESCAPED_TEX.finditer(text):
        arguments = match["arguments"].replace("\\{", "{").replace("\\}", "}").replace("\\\\", "\\")
        pieces.append((match.start(), match.end(), f"\\{match['command']}{arguments}"))
    pieces += [(*m.span(), "\\") for m in _DOUBLED_BACKSLASH.finditer(text)]
    pieces += [(m.start(), m.end(), "") for m in _INLINE_TAG.finditer(text)]
    for match in _EMPHASIS.finditer(text):
        pieces += [(*match.span("mark"), ""), (match.end() - len(match["mark"]), match.end(), "")]
    pieces += [(m.start(), m.end(), " ") for m in _BLOCK_TAG.finditer(text)]
    pieces += [
        (m.start(), m.end(), "}" if m["closing"] else "^{" if m["kind"].lower() == "sup" else "_{")
        for m in _SCRIPT_TAG.finditer(text)
    ]
    for match in _CHARACTER_REFERENCE.finditer(text):
        character = html.unescape(match.group())
        if character != match.group():
            pieces.append((match.start(), match.end(), character))
    return first_of_overlapping(pieces)
