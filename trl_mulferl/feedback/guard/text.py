"""Runs of math in plain text: where a statement of a value starts and ends (math runs, equation sides, the junk
trimmed off their ends).
"""

import re


# An environment of aligned lines (`\begin{align*} x &= 2 \end{align*}`) bounds its lines as `$` does; its `&` before
# a relation or a spacing command is a space
_ALIGNMENT = r"(?:align|aligned|alignat|eqnarray|gather|gathered|equation|split|multline|flalign)"

# Where math is delimited: `$$...$$`, `$...$`, `\[...\]`, `\(...\)` (`_math_spans` adds each line of an aligned
# environment)
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)", re.DOTALL)
_ALIGNED_LINES = re.compile(
    rf"\\begin\s*\{{\s*(?P<name>{_ALIGNMENT}\*?)\s*\}}(?P<body>.+?)\\end\s*\{{\s*(?P=name)\s*\}}", re.DOTALL
)
_LINE_BREAK = re.compile(r"\\\\(?:\[[^\]\n]{0,12}\])?")  # `\\`, `\\[4pt]`

_RELATION_OR_SPACING_COMMAND = (
    r"\\(?:equiv|approx|simeq|sim|cong|le|ge|leq|geq|lt|gt|Rightarrow|implies|iff|therefore|quad|qquad)(?![A-Za-z])"
)

# Plain text is cut into runs of math tokens (numbers, operators, brackets, LaTeX commands, one-letter variables);
# English words, sentence punctuation, newlines, math delimiters and \text{...} end a run.
_TOKEN = re.compile(
    rf"(?P<space>[ \t]+|\\[,;:! ]|\\q?quad(?![A-Za-z])|&(?=[ \t]*(?:[=<>]|{_RELATION_OR_SPACING_COMMAND})))"
    r"|(?P<ordinal>\d+(?:st|nd|rd|th|s)(?![A-Za-z]))"
    r"|(?P<number>\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])|\d{1,3}(?:,\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<separator>\\(?:text[a-z]*|mbox|mathrm)\s*\{[^{}]*\}|\$|\\[()\[\]]|\\\\"
    rf"|\\(?:begin|end)\s*\{{\s*{_ALIGNMENT}\*?\s*\}})"
    r"|(?P<open>\\\{|[(\[{])"
    r"|(?P<close>\\\}|[)\]}])"
    r"|(?P<command>\\[A-Za-z]+|\\%)"
    r"|(?P<word>[A-Za-z]+|[α-ορ-ωΑ-Ω])"  # a Greek letter (not π) is a variable: "θ = pi/2"
    r"|(?P<comma>,)"
    r"|(?P<arrow>->)"  # "Result -> 7": an arrow ends a run, as a word does
    r"|(?P<operator>[-+*/^_=<>!|%·×÷−≤≥≠√π°])"  # a degree sign stays in its run: "58° + 32°"
)

_MATH_WORDS = frozenset("sin cos tan cot sec csc log ln exp sqrt pi mod gcd lcm".split())

_ENGLISH_WORD_AHEAD = re.compile(r"[ \t]+([A-Za-z]{2,})")
_ARTICLE_BEFORE_NUMBER = re.compile(r"[ \t]+\d")
# where math opens, a dash and a space are a sign (`$- 5$`, `\(- \cot x\)` as sympy prints them), and where a value
# follows, a quote of a negative value: "The attempt's - 70 \sqrt{2}", "got - 2 \sqrt{113}", "the final answer
# - 3 \sqrt{5} is wrong", "the mistake: - 8 \pi"
_SIGN_CONTEXT_BEFORE = re.compile(
    r"(?:(?<!\\)\$|\\[(\[]|['’]s|:"
    r"|\b(?:got|gets|wrote|writes|found|finds|obtained|obtains|gave|gives|answer|value|result|with|maybe|is|was|be))"
    r"[ \t]*\Z"
)

# `=` (and a program's `==`: `assert x == 4`; not `!=`, but a factorial's `5!=120`), `\in`, `\approx`
# (`$\approx 4.47$`, `$x \approx 4.47$` states an approximation) and `\equiv`, `\simeq` separate the sides of an
# equation; an inequality, an implication or a program's "not equal" between two values separates sides too, of no
# equation (`a \ge (1+2)^2 = 9`, `\Rightarrow x = 3`, `AssertionError: 203 != 204`; not `x != 4`)
_SIDE_SEPARATOR_OR_BRACKET = re.compile(
    r"(?P<equals>(?<![<>=])(?<!(?<![\d)}])!)==?(?!=)|\\(?:in|approx|equiv|simeq|sim|cong)(?![A-Za-z]))"
    r"|(?P<relation>\\(?:le|ge|leq|geq|lt|gt|Rightarrow|implies|iff|therefore|to|mapsto|longrightarrow|rightarrow)"
    r"(?![A-Za-z])|[<>]=?|[≤≥→]|(?:(?<=[\d)\]}π][ \t])|(?<=pi[ \t])|(?<=\d[iI][ \t]))(?:!=|/=|≠)(?=[ \t]))"
    r"|[()\[\]{}]"
)

_LEADING_JUNK = frozenset(" \t*/^_=<>!,")

_TRAILING_JUNK = frozenset(" \t-+*/^_=<>!,·×÷−")

_TEX_SPACES = ("\\;", "\\,", "\\:", "\\!")


def _compact(expression: str) -> str:
    r"""`expression` without spaces, `\left`/`\right` and LaTeX spacing, each product and quotient sign as one: how
    two writings of it are compared (`2 \cdot 3` and "2×3" alike)."""
    text = _COMPACT_NOISE.sub("", expression).rstrip(".,;:")
    return _COMPACT_QUOTIENT.sub("/", _COMPACT_PRODUCT.sub("*", _COMPACT_FRACTION.sub(r"\\frac", text)))


_COMPACT_NOISE = re.compile(r"\s+|\\(?:left|right)(?![A-Za-z])|\\[!,;:]")

_COMPACT_PRODUCT = re.compile(r"\\(?:cdot|times)(?![A-Za-z])|[×·]")

_COMPACT_QUOTIENT = re.compile(r"\\div(?![A-Za-z])|÷")

_COMPACT_FRACTION = re.compile(r"\\[dt]frac(?![A-Za-z])")


def _math_runs(text: str) -> list[tuple[int, int]]:
    runs, start, end, depth, position, last_kind = [], None, 0, 0, 0, None
    while position < len(text):
        match = _TOKEN.match(text, position)
        kind, stop = (match.lastgroup, match.end()) if match else ("other", position + 1)
        if kind == "word" and len(match.group()) == 1 and text[position - 1 : position] in ("'", "’"):
            is_math = False  # the end of "it's", "let's"
        elif kind == "word" and len(match.group()) == 1:
            english_word_ahead = _ENGLISH_WORD_AHEAD.match(text, stop)
            # a letter after an operator, glued to a number or an `i` after one is a variable, whatever follows:
            # "-80 + 15x when", "p - q rather than", "6 - 5 i when"
            joined = start is not None and (
                last_kind in ("operator", "command")  # `\times` too: "6 - 5 \times i here"
                or (last_kind == "number" and (end == position or match.group() == "i"))
            )
            is_math = joined or not (english_word_ahead and english_word_ahead.group(1).lower() not in _MATH_WORDS)
            if not joined and match.group() == "a" and _ARTICLE_BEFORE_NUMBER.match(text, stop):
                is_math = False  # the article of "a 25% chance", "a 3 by 3 grid", not a variable a
        elif kind == "word":
            is_math = match.group().lower() in _MATH_WORDS
        elif (
            kind == "operator"
            and start is None
            and match.group() in "-−*"
            and text[stop : stop + 1].isspace()
            and not _SIGN_CONTEXT_BEFORE.search(text, max(0, position - 12), position)
        ):
            is_math = False  # a dash between words ("Hint - 7") or a bullet ("* 7"), not a minus or times sign
        else:
            is_math = kind in ("number", "open", "close", "command", "operator") or (kind == "comma" and depth > 0)
        if is_math:
            depth += {"open": 1, "close": -1 if depth else 0}.get(kind, 0)
            start = position if start is None else start
            end, last_kind = stop, kind
        elif kind != "space" and start is not None:
            runs.append((start, end))
            start, depth = None, 0
        position = stop
    if start is not None:
        runs.append((start, end))
    return runs


def _sides(text: str, start: int, end: int, relations: bool = False) -> tuple[list[tuple[int, int]], bool]:
    """The trimmed sides of the `=` (or `\\in`) chain in `text[start:end]`, cut at inequalities and implications
    too with `relations`, and whether it had an `=` (`<=` is none)."""
    pieces, piece_start, depth, equation = [], start, 0, False
    for match in _SIDE_SEPARATOR_OR_BRACKET.finditer(text, start, end):
        bracket = match.group()
        depth += 1 if bracket in "([{" else -1 if bracket in ")]}" and depth else 0
        if (match.lastgroup == "equals" or (relations and match.lastgroup == "relation")) and depth == 0:
            pieces.append((piece_start, match.start()))
            piece_start = match.end()
            equation = equation or match.lastgroup == "equals"
    pieces.append((piece_start, end))
    sides = [
        _trim(text, piece_start, _before_modulus(text, piece_start, piece_end)) for piece_start, piece_end in pieces
    ]
    return [(side_start, side_end) for side_start, side_end in sides if side_start < side_end], equation


def _math_spans(text: str) -> list[tuple[int, int]]:
    r"""The trimmed contents of `text`'s math spans, each line of an aligned environment one of them
    (`\begin{align*} S &= \{x : x < 2\} \\ ... \end{align*}`)."""
    spans = [match.span(match.lastindex) for match in _MATH_SPAN.finditer(text)]
    for environment in _ALIGNED_LINES.finditer(text):
        line_start = environment.start("body")
        for line_break in [*_LINE_BREAK.finditer(text, line_start, environment.end("body")), None]:
            line_end = line_break.start() if line_break else environment.end("body")
            line = text[line_start:line_end]
            start = line_start + len(line) - len(line.lstrip())
            spans.append((start, line_start + len(line.rstrip().rstrip(".,;").rstrip())))  # a sentence's end stays
            line_start = line_break.end() if line_break else line_end
    return [_trim(text, start, end) for start, end in spans if start < end]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop spaces, dangling operators (`42-` of "42-gon", the `**` of Markdown bold) and unmatched brackets."""
    while start < end:
        unmatched = _unmatched_brackets(text[start:end])
        if text.startswith(_TEX_SPACES, start) and start + 2 <= end:
            start += 2  # TeX's spacing around a relation: `\frac{121}{25} \;\to\; 11`
        elif text[end - 2 : end] in _TEX_SPACES and end - 2 >= start:
            end -= 2
        elif text[end - 1] in _TRAILING_JUNK or (text[end - 1] in "([{" and unmatched > 0):
            end -= 1  # first: "(-3) (you had -4)" opens a bracket after the value
        elif text[start] in _LEADING_JUNK or (text[start] in "([{" and unmatched > 0):
            start += 1
        elif text[end - 1] in ")]}" and unmatched < 0:
            end -= 1
        else:
            break
    return start, end


def _unmatched_brackets(text: str) -> int:
    return sum(map(text.count, "([{")) - sum(map(text.count, ")]}"))


# A congruence's modulus after its side: `24 \equiv 3 \pmod{7}`, "3 (mod 7)"
_MODULUS = re.compile(r"[ \t]*(?:\\pmod[ \t]*(?:\{[^{}]*\}|\d+)|\([ \t]*\\?mod[ \t]*\d+[ \t]*\))[ \t]*$")


def _before_modulus(text: str, start: int, end: int) -> int:
    modulus = _MODULUS.search(text, start, end)
    return modulus.start() if modulus else end
