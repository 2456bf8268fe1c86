"""TeX beyond `\\frac` and `\\sqrt`, as the guard reads it: the pieces `(start, end, replacement)` that strip what
only typesets a value (`\\num{9}`, `\\textbf{9}`, `{\\color{red} 9}`, `\\displaystyle`), name it by its common spelling
(`\\nicefrac`, `{3 \\over 4}`, `\\uppi`, `\\lparen`, `\\simeq`, `\\textdegree`), and write French intervals (`]2, 5]`),
the `interval` package, plain TeX's and starred matrices, and a value a critique defines as a macro
(`\\newcommand{\\ans}{42}`) in the notation the rest of the guard reads. `_normalised` applies them first, innermost
first."""

import re

from .pieces import first_of_overlapping, free


# A command that only typesets its one argument (which may hold two levels of braces: `\bm{\{x \in \mathbb{R} :
# ...\}}`): its content is the value;
# an upright or typewriter face only around a number, the imaginary unit or a transpose's T (`\mathrm{r} / \mathrm{s}`
# is a unit, `\text{even}` and `\text{ or }` are read as they are)
_ARGUMENT = r"(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*"
_TYPESETTING = re.compile(
    r"\\(?:num|numprint|oldstylenums|textbf|mathbf|boldsymbol|bm|textup|textsf|textsc|textit"
    rf"|textnormal|emph|underline|mathit|mbox|hbox|ensuremath|mathopen|mathclose|mathord|bbox)\s*(?:\[[^\]\n]*\])?"
    rf"\s*\{{(?P<body>{_ARGUMENT})\}}"
    r"|\\(?:text|mathrm|mathtt|texttt|mathsf)\s*\{(?P<number>\s*[-+]?\s*(?:[\d.,]+|\(?[\d.,]+\)?|i|T)\s*)\}"
    rf"|\\(?:textcolor|colorbox|color)\s*\{{[^{{}}]*\}}\s*\{{(?P<colored>{_ARGUMENT})\}}"
    rf"|\{{\s*\\color\s*\{{[^{{}}]*\}}\s*(?P<color_group>{_ARGUMENT})\}}"
)
# TeX's spacing and sizing, which say nothing of a value: `\quad`, a control space, `\bigl(`, a thin space before a
# letter (`\mathrm{cot}\,x`); a tuple's semicolon spaced as TeX spaces it (`(3;\ 5)`, `3\,;\,5`); a base's
# subscript in brackets (`52_{(8)}`)
_SPACING = re.compile(
    r"\\q?quad(?![A-Za-z])|(?<!\\)\\ (?=\S)|\\(?:big|Big|bigg|Bigg)[lrm]?(?![A-Za-z])|\\[,;:](?=[ ]?[A-Za-z](?![A-Za-z]))"
)
_TEX_SEMICOLON = re.compile(r"(?:\\[,;:])?[ ]*;[ ]*(?:\\[ ,;:]|\\q?quad(?![A-Za-z]))[ ]*")
_BASE_IN_BRACKETS = re.compile(r"_\{\((?P<base>\d+)\)\}")
# A forum's markup around the value: `[hide=answer]42[/hide]`, `[quote]...[/quote]`; a tag that the text never
# closes is no markup ("Key: [B]" is a choice)
_FORUM_TAG = re.compile(
    r"\[(?P<closing>/?)(?P<name>hide|quote|spoiler|b|i|u|code|tex|math)(?:=[^\]\n]{0,30})?\]", re.IGNORECASE
)
# a tie or a thin space between a whole number and its fraction: `137~\frac{1}{2}`
_TIE_BEFORE_A_FRACTION = re.compile(r"(?<=\d)(?:~|\\,|\\ )(?=\\[dtc]?frac)")
# (and an equation's tag or label: `6 + 9i \tag{$\ast$}`)
_STYLE = re.compile(
    r"\\(?:displaystyle|textstyle|scriptstyle|nonumber|notag)(?![A-Za-z])[ \t]*|\\color\s*\{[^{}]*\}[ \t]*"
    r"|[ \t]*\\(?:tag\*?|label)\s*\{[^{}\n]*\}"
)

# siunitx's quantities: the value, and an angle's degree
_QUANTITY = re.compile(
    r"\\(?:SI|qty)\s*(?:\[[^\]\n]*\])?\s*\{(?P<value>[^{}]*)\}\s*\{(?P<unit>(?:[^{}]|\{[^{}]*\})*)\}"
    r"|\\ang\s*(?:\[[^\]\n]*\])?\s*\{(?P<angle>[^{}]*)\}"
)

_ALIASES = {
    "\\nicefrac": "\\frac",
    "\\sfrac": "\\frac",
    "\\cfrac": "\\frac",
    "\\uppi": "\\pi",
    "\\piup": "\\pi",
    "\\lparen": "(",
    "\\rparen": ")",
    "\\lbrack": "[",
    "\\rbrack": "]",
    "\\lbrace": "\\{",
    "\\rbrace": "\\}",
    "\\simeq": "\\approx",
    "\\doteq": "\\approx",
    "\\fallingdotseq": "\\approx",
    "\\textdegree": "°",
    "\\degree": "°",
    "\\textdollar": "\\$",
    "\\dots": "...",
    "\\ldots": "...",
    "\\cdots": "...",
}
_ALIAS = re.compile("(?:" + "|".join(re.escape(alias) for alias in _ALIASES) + r")(?![A-Za-z])")
# a function's name set upright: `\operatorname{cot}`, `\mathrm{cot}` (not a unit: `\operatorname{arcsec}`)
_OPERATOR_NAME = re.compile(
    r"\\(?:operatorname|mathrm)\s*\{(?P<name>sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|sinh|cosh|tanh|ln|log"
    r"|exp)\}"
)

# TeX's own fraction `{3 \over 4}` and one set by hand, `{}^{3}\!/\!{}_{4}`
_OVER = re.compile(r"\{(?P<numerator>[^{}]*?)\\over(?![A-Za-z])(?P<denominator>[^{}]*)\}")
_HAND_FRACTION = re.compile(
    r"\{\}\^\{(?P<numerator>(?:[^{}]|\{[^{}]*\}){1,30}?)\}\s*(?:\\!)?\s*/\s*(?:\\!)?\s*"
    r"\{\}_\{(?P<denominator>(?:[^{}]|\{[^{}]*\}){1,30}?)\}"
)
# a fraction's arguments unbraced: `\frac45`, `\frac 4 5`, `\frac{20000}\pi`
_FRACTION_ARGUMENT = r"(?:\d|\\[A-Za-z]+|\{(?:[^{}]|\{[^{}]*\})*\})"
_SHORT_FRACTION = re.compile(
    rf"\\(?P<kind>[dt]?frac)(?![A-Za-z])\s*(?P<numerator>{_FRACTION_ARGUMENT})\s*(?P<denominator>{_FRACTION_ARGUMENT})"
)

# A fraction whose last brace never closes, as small models write it: `\frac{14}{3.`, `$\frac{\sqrt{3}}{3$`
_UNCLOSED_FRACTION = re.compile(
    r"\\(?P<kind>[dt]?frac)\s*\{(?P<numerator>(?:[^{}]|\{[^{}]*\}){1,40})\}\s*\{(?P<denominator>\d+|\\pi)"
    r"(?=[\s.,;:!?$*)<]|\\[)\]$]|$)"
)

# A box whose brace never closes (`\boxed{3, 5 and 7.`, `\boxed{- 3 R^{2};`): its opening reads as a math span's
_BOX_OPENING = re.compile(r"\\boxed\s*\{")

# A matrix of numbers whose environment never ends (`\begin{pmatrix} -7 \\ 16 \\ 5.`): it ends after its last entry
_MATRIX_ENTRY = r"-?[ \t]*(?:\\[dt]?frac\s*\{\d+\}\s*\{\d+\}|\d+(?:\.\d+)?(?:/\d+)?)"
_UNENDED_MATRIX = re.compile(
    rf"\\begin\s*\{{(?P<kind>[pbBvV]?matrix)\}}\s*{_MATRIX_ENTRY}(?:\s*(?:\\\\|&)\s*{_MATRIX_ENTRY})+"
    r"(?!\s*(?:\\\\|&|\\end\b|[\d/]|\.\d|\\[dt]?frac))"  # not part of an entry or of a matrix that ends
)

# An escaped dollar used as a math delimiter, not as money: before a command (`\$- \dfrac{\pi}{6}\$`) or after a
# value, where money's sign would come before its amount; read as the delimiter
_ESCAPED_DOLLAR_DELIMITER = re.compile(r"\\\$(?=[ \t]*-?[ \t]*\\[A-Za-z])|(?<=[\d}])\\\$(?=[\s.,;:!?)]|$)")

# TeX's line break at the end of a line outside an environment, `is \\` then the value on the next line: a space
_LINE_BREAK = re.compile(r"(?<!\\)\\\\[ \t]*(?=\r?\n)")
_ENVIRONMENT_EDGE = re.compile(r"\\(?P<edge>begin|end)\s*\{")

# A sign in braces, a thin space after a sign: `{-}5`, `-\,5`
_BRACED_MARK = re.compile(r"\{(?P<mark>[-+])\}|(?<=[-+])\\,\s*(?=\d)")
# A comma in braces, TeX's way to write a decimal comma or a thousands separator in math: a decimal one where its
# digits are not three, its whole part is 0 or an approximation sign comes before it (`\approx 4{,}472`), else a
# thousands one (`10{,}080`)
_BRACED_COMMA = re.compile(r"(?P<approximate>(?:\\approx|≈)\s*-?)?(?P<whole>\d+)\{,\}(?P<digits>\d+)")

# French (ISO) intervals: `]2, 5]`, `[2, 5[`, `]-\infty, 0]`, `]3 ; 4]`; and the `interval` package's `\interval`
_FRENCH_END = r"[-−+\w\\{}.√π∞^/ ]{1,30}?"
_FRENCH_INTERVAL = re.compile(
    rf"(?<![\w)\]])(?P<open>[\]\[])[ \t]*(?P<low>{_FRENCH_END})[ \t]*(?P<separator>,|;|\\,;\\,|\\;;\\;)[ \t]*"
    rf"(?P<high>{_FRENCH_END})[ \t]*"
    r"(?P<close>[\]\[])"
)
_A_BOUND = re.compile(r"\d|\\infty|∞")
_INTERVAL_PACKAGE = re.compile(
    r"\\interval\s*(?:\[(?P<options>[^\]]*)\])?\s*\{(?P<low>(?:[^{}]|\{[^{}]*\})*)\}\s*"
    r"\{(?P<high>(?:[^{}]|\{[^{}]*\})*)\}"
)

# Matrices in plain TeX (`\pmatrix{1 & 2 \cr 3 & 4}`), starred (`pmatrix*` with an alignment) or small
_PLAIN_TEX_MATRIX = re.compile(r"\\(?P<kind>pmatrix|bmatrix|matrix)\s*\{(?P<body>(?:[^{}]|\{[^{}]*\}){1,400})\}")
_MATRIX_ENVIRONMENT = re.compile(
    r"\\(?P<side>begin|end)\s*\{(?P<kind>(?:[pbBvV]?|small)matrix)\*\}(?:\[[lcr]\])?|\\(?P<small_side>begin|end)"
    r"\s*\{smallmatrix\}"
)

# A value a critique defines as a macro: its body is read where it stands
_DEFINITION = re.compile(r"\\(?:(?:re|provide|new)command\*?\s*\{?\\[A-Za-z]+\}?(?:\[\d\])?|def\\[A-Za-z]+)\s*\{")

MAX_TEX_NESTING = 4  # `\fbox{\textbf{\num{9}}}`


def tex_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that rewrite the innermost TeX that only typesets or names a value; `_normalised` applies them until
    none is left."""
    pieces = []
    for match in _TYPESETTING.finditer(text):
        body = next(name for name in ("body", "number", "colored", "color_group") if match.group(name) is not None)
        pieces += _unwrapped(match, body)
    pieces += [(m.start(), m.end(), "") for m in _STYLE.finditer(text)]
    tags = list(_FORUM_TAG.finditer(text))
    closed = {tag["name"].lower() for tag in tags if tag["closing"]}
    pieces += [(tag.start(), tag.end(), " ") for tag in tags if tag["name"].lower() in closed]
    pieces += [(m.start(), m.end(), ", ") for m in _TEX_SEMICOLON.finditer(text)]
    pieces += [(m.start(), m.end(), " ") for m in _SPACING.finditer(text)]
    pieces += [(m.start(), m.end(), f"_{{{m['base']}}}") for m in _BASE_IN_BRACKETS.finditer(text)]
    for match in _SHORT_FRACTION.finditer(text):
        arguments = [match[name] for name in ("numerator", "denominator")]
        # unbraced, or its arguments on two lines: `\frac{14}` then `{3}`
        if not all(argument.startswith("{") for argument in arguments) or "\n" in match.group():
            numerator, denominator = (
                argument[1:-1] if argument.startswith("{") else argument for argument in arguments
            )
            pieces.append((match.start(), match.end(), f"\\{match['kind']}{{{numerator}}}{{{denominator}}}"))
    pieces += [(m.start(), m.end(), " ") for m in _TIE_BEFORE_A_FRACTION.finditer(text)]
    pieces += [
        (m.start(), m.end(), f"\\{m['kind']}{{{m['numerator']}}}{{{m['denominator']}}}")
        for m in _UNCLOSED_FRACTION.finditer(text)
        if _closing_brace(text, m.start("denominator")) is None
    ]
    pieces += [(m.start(), m.end(), "$") for m in _BOX_OPENING.finditer(text) if _closing_brace(text, m.end()) is None]
    pieces += [(m.start(), m.end(), f"{m.group()}\\end{{{m['kind']}}}") for m in _UNENDED_MATRIX.finditer(text)]
    pieces += [(m.start(), m.end(), "$") for m in _ESCAPED_DOLLAR_DELIMITER.finditer(text)]
    pieces += [(m.start(), m.end(), " ") for m in _LINE_BREAK.finditer(text) if not _in_environment(text, m.start())]
    for match in _QUANTITY.finditer(text):
        if match["angle"] is not None:
            pieces += _unwrapped(match, "angle", "°")
        else:
            pieces += _unwrapped(match, "value", "°" if re.search(r"\\degree|\\circ|°", match["unit"]) else "")
    pieces += [(m.start(), m.end(), _ALIASES[m.group()]) for m in _ALIAS.finditer(text)]
    pieces += [(m.start(), m.end(), "\\" + m["name"]) for m in _OPERATOR_NAME.finditer(text)]
    pieces += [
        (m.start(), m.end(), f"\\frac{{{m['numerator'].strip()}}}{{{m['denominator'].strip()}}}")
        for m in (*_OVER.finditer(text), *_HAND_FRACTION.finditer(text))
    ]
    pieces += [(m.start(), m.end(), m["mark"] or "") for m in _BRACED_MARK.finditer(text)]
    for match in _BRACED_COMMA.finditer(text):
        decimal = match["approximate"] or match["whole"] == "0" or len(match["digits"]) != 3
        pieces.append((match.end("whole"), match.start("digits"), "." if decimal else ","))
    french_intervals = []  # each all or none: a bracket rewritten alone would make another interval
    for match in _FRENCH_INTERVAL.finditer(text):
        if (match["open"] == "]" or match["close"] == "[") and all(
            _A_BOUND.search(match[end]) for end in ("low", "high")
        ):
            opening, closing = ("(" if match["open"] == "]" else "["), (")" if match["close"] == "[" else "]")
            french_intervals.append(
                [(*match.span("open"), opening), (*match.span("separator"), ","), (*match.span("close"), closing)]
            )
    for match in _INTERVAL_PACKAGE.finditer(text):
        options = (match["options"] or "").replace(" ", "").lower()
        opening = "(" if options in ("open", "openleft") else "["
        closing = ")" if options in ("open", "openright") else "]"
        pieces.append((match.start(), match.end(), f"{opening}{match['low']}, {match['high']}{closing}"))
    for match in _PLAIN_TEX_MATRIX.finditer(text):
        rows = match["body"].replace("\\cr", "\\\\")
        kind = "pmatrix" if match["kind"] == "matrix" else match["kind"]
        pieces.append((match.start(), match.end(), f"\\begin{{{kind}}}{rows}\\end{{{kind}}}"))
    for match in _MATRIX_ENVIRONMENT.finditer(text):
        side, kind = match["side"] or match["small_side"], "pmatrix" if match["small_side"] else match["kind"]
        pieces.append((match.start(), match.end(), f"\\{side}{{{'pmatrix' if kind == 'smallmatrix' else kind}}}"))
    for match in _DEFINITION.finditer(text):
        closing = _closing_brace(text, match.end())
        if closing is not None:
            pieces += [(match.start(), match.end(), " "), (closing, closing + 1, " ")]
    pieces = first_of_overlapping(pieces)
    return first_of_overlapping(
        pieces + [piece for group in french_intervals if free(group, pieces) for piece in group]
    )


def _unwrapped(match: re.Match, group: str, suffix: str = "") -> list[tuple[int, int, str]]:
    """Pieces that leave only `match`'s `group` (and `suffix`), its first and last characters standing for the
    wrapper's ends, so that a redaction of the whole value takes the wrapper too (`\\textbf{42}`, not `42`)."""
    start, end = match.span(group)
    if end - start == 0:
        return [(match.start(), match.end(), suffix)]
    if end - start == 1:
        return [(match.start(), match.end(), match[group] + suffix)]
    return [(match.start(), start + 1, match[group][0]), (end - 1, match.end(), match[group][-1] + suffix)]


def _in_environment(text: str, position: int) -> bool:
    """Whether `text[position]` is inside a `\\begin{...}` that no `\\end{...}` has closed (a matrix's rows end
    with `\\\\`)."""
    depth = 0
    for match in _ENVIRONMENT_EDGE.finditer(text, 0, position):
        depth += 1 if match["edge"] == "begin" else -1
    return depth > 0


def _closing_brace(text: str, start: int, limit: int = 400) -> int | None:
    """The position of the brace that closes the group opened just before `start`, within `limit` characters."""
    depth = 1
    for position in range(start, min(len(text), start + limit)):
        if text[position] == "{" and text[position - 1] != "\\":
            depth += 1
        elif text[position] == "}" and text[position - 1] != "\\":
            depth -= 1
            if depth == 0:
                return position
    return None
