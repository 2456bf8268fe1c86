"""The answer-leak guard (decision 8) and the preparation of a feedback text for injection.

`prepare_feedback` is the whole path from a provider's text to what is injected: the guard, the sanitiser (decision 6)
and the cap on policy tokens, in an order that leaves no statement of the answer in the final text.
"""

import ast
import contextvars
import difflib
import itertools
import logging
import math
import numbers
import re
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import sympy
from math_verify import parse, verify
from text_to_num import alpha2digit

from ..core.rewards import as_latex_answer, math_verify_timeout
from ..core.schema import boxed_spans, sanitize_feedback, truncate_to_tokens
from ..evaluation.benchmarks import looks_like_worked_solution
from .protocol import warn_once


logger = logging.getLogger(__name__)

REDACTED = "[redacted]"
# A reference answer this long is redacted wherever it appears verbatim; shorter ones ("4") would hit step numbers.
MIN_VERBATIM_LEAK_LENGTH = 5
# A statement of the answer is short; longer expressions are not compared, which also bounds the work math-verify does
# without a timeout off the main thread.
MAX_CANDIDATE_LENGTH = 120
# What only math-verify reads (`\\binom{5}{2}`, `\\log 8`) costs 10-400 ms a comparison: one call compares at most
# this many distinct expressions with it, for at most this long, which bounds a call within the character cap to
# under a second on one core. Expressions past the budget are not compared (a warning says so).
MAX_MATH_VERIFY_CHECKS = 8
MAX_MATH_VERIFY_SECONDS = 0.4
# A decimal with this many significant digits that rounds or cuts an irrational reference states it ("about 4.472").
MIN_APPROXIMATION_DIGITS = 3

_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)", re.DOTALL)
_FINAL_ANSWER = re.compile(r"(?:final answer|answer)\s*(?:is|:|=)\s*([^\n]+?)\s*(?:[.;]\s|[.;]?$|\n)", re.IGNORECASE)

# Plain text is cut into runs of math tokens (numbers, operators, brackets, LaTeX commands, one-letter variables);
# English words, sentence punctuation, newlines, math delimiters and \text{...} end a run.
_TOKEN = re.compile(
    r"(?P<space>[ \t]+|\\[,;:! ]|\\q?quad(?![A-Za-z]))"
    r"|(?P<ordinal>\d+(?:st|nd|rd|th|s)(?![A-Za-z]))"
    r"|(?P<number>\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])|\d{1,3}(?:,\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<separator>\\(?:text[a-z]*|mbox|mathrm)\s*\{[^{}]*\}|\$|\\[()\[\]]|\\\\)"
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
# `=`, `\in` and `\approx` (`$\approx 4.47$`, `$x \approx 4.47$` states an approximation) separate sides
_SIDE_SEPARATOR_OR_BRACKET = re.compile(r"(?<![<>!=])=(?!=)|\\(?:in|approx)(?![A-Za-z])|[()\[\]{}]")
_LEADING_JUNK = frozenset(" \t*/^_=<>!,")
_TRAILING_JUNK = frozenset(" \t-+*/^_=<>!,·×÷−")

# Context of a standalone number or expression, read on the lowercased text around it.
_CONTEXT_CHARS = 60
_RESULT_CUE_BEFORE = re.compile(
    r"(?:(?<!there )(?<!here )\b(?:is|are|was|were)"
    r"|(?<!problem )(?<!statement )(?<!question )\b(?:gives?|gave)"  # what the problem gives is a quote of it
    r"|\b(?:be|been|equals?|equalling|equal\s+to|giving|gets?|got|gotten|getting|obtains?|obtained"
    r"|obtaining|yields?|yielding|becomes?|became|results?\s+in|(?:comes?|came|coming)\s+(?:out\s+)?(?:to|as)"
    r"|leads?\s+to|reach(?:es|ed|ing)?|finds?|(?:have|has|had|'ve)\s+found|(?:adds?|added|adding)\s+up\s+to"
    r"|(?:amounts?|amounted|sums?|summed|totals?|totall?ed)\s+to|(?:is|are|be|was|were|get|got)\s+left\s+with"
    r"|leaves|leaving|(?:drops?|dropped|falls?|fell|rises?|rose|goes|went|grows?|grew|shrinks?|shrank)\s+to)"
    r"|\b(?:i|we)\s+(?:count(?:ed)?|calculated?|compute[sd]?|make\s+it)"  # the reviewer's own result: "I count 4"
    r"|\b(?:which|that|this|it)\s+(?:makes?|made)"  # "That makes 4"
    # a label that names a result: "Outcome: 7", "The right value here: 7"
    r"|\b(?:answer|result|value|total|sum|solution|final|outcome|output|conclusion|target|spoiler|expected|correct)s?"
    r"(?:\s+(?:here|now|then|instead|below))?\s*\**\s*(?:[:=]|[-–—]{1,2}(?=\s))"
    # a value set against the attempt's: "Compare your 8 with 7", "not 8 but 7"
    r"|\bcompar(?:e|es|ed|ing)\s+your\b[^.;!?\n]{0,40}?\b(?:with|to|against)|\bnot\s+[^\s.;!?]+,?\s+but"
    # instructions that hand the answer over: "the box needs 7", "it should read 7", "change your answer to 7"
    r"|\b(?:box|line|answer|result)\s+(?:needs|must|should)(?:\s+to)?(?:\s+(?:say|read|show|contain|hold|be|have))?"
    r"|\b(?:should|must|would|will)\s+(?:say|read|show|contain)"
    r"|\b(?:change|correct|fix|update|set|turn)\s+(?:it|that|this|(?:the|your)\s+(?:final\s+)?(?:answer|result|box|line))"
    r"\s+(?:to|into)"
    r"|\bmake\s+(?:it|(?:the|your)\s+(?:final\s+)?(?:answer|result|box))"
    r"|\b(?:answer|respond|reply|conclude)\s+with"
    r"|\breturns?|####|=|=>|->|→|⇒|\\(?:rightarrow|implies|to)"
    # where a computation ends: "you should land on 7", "it reduces to 7", "the computation ends at 7"
    r"|\b(?:lands?|landed|landing)\s+(?:on|at)|\b(?:ends?|ended|ending)\s+(?:at|on|up\s+(?:at|with|on))"
    r"|\b(?:reduc(?:es?|ed|ing)|simplif(?:y|ies|ied|ying)|boils?\s+down|works?\s+out|evaluates?|evaluated)\s+to"
    r"|\barrives?\s+at|\bexpected"  # "Expected 7, got 8"
    r"|(?:[\n.!?]|\*\*)\s*(?:the\s+)?(?:final\s+|correct\s+)?(?:answer|result))"  # a label: "Answer 7 (you had 8)"
    # "is exactly 7", "is your 6, plus one", "ends at ≈ 4.67"
    r"(?:[\s*]+(?:exactly|just|only|simply|then|now|therefore|thus|clearly|indeed|actually|really|precisely|your"
    r"|about|approximately|roughly|around))*"
    r"[\s$*(≈~\"'“‘]*(?:\\[(\[])?$"
)
_RESULT_CUE_AFTER = re.compile(
    r"(?:\\[)\]])?[\s$*)\"'”’]*(?:(?:is|was|would\s+be|should\s+be|must\s+be)\s+(?:the\s+)?"
    r"(?:correct|right|final|true|expected|answer|result|solution)\b"
    r"|(?:goes\s+|belongs\s+)?(?:as|for)\s+(?:the|your)\s+(?:final\s+)?(?:answer|result)\b"
    r"|(?:alone\s+|only\s+)?(?:works|holds|fits|satisfies|checks\s+out)\b"  # "Only 7 works", "E alone holds"
    r"|(?:is|'s)\s+the\s+(?:(?:right|correct)\s+)?(?:one|1)\s*(?:[.!;\n]|$)"  # "Evelyn is the one." ("one": 1)
    # what the reader or the question is after: "7 is what you should have found", "7. That is what the question
    # asks for.", "7? That is what the formula gives." (what the problem gives is a quote of it)
    r"|[.,;:?!]?\s*(?:(?:that|this|which|it)(?:'s|\s+is|\s+was)|is|'s|was|would\s+be)\s+what\s+"
    r"(?:(?:you|we|i|one)(?:'d|'ll|'re)?\s+(?:should|must|need|needed|want|wanted|were|are|get|got|will|would|ought"
    r"|have|had|find|found|expect)\b|(?:the\s+)?(?:question|problem|exercise|task)\s+(?:asks|wants|needs|is\s+asking)"
    r"|(?:the\s+)?(?:formula|computation|calculation|method|algebra|arithmetic|work)\s+(?:gives|yields|produces|says)))"
)
# "Write 7.", "Put 7 in the box": a verb of writing the answer down, the number, then the end of the clause or the box.
_INSTRUCTION_BEFORE = re.compile(
    r"\b(?:write|put|enter|type|place|fill\s+in|submit|report|state|give|output|box|use"
    # what a value is wanted as: "you needed 4.", "aim for 4.", "Why not 4?"
    r"|need(?:s|ed)?|want(?:s|ed)?|aim(?:s|ed|ing)?\s+for|look(?:s|ed|ing)?\s+for|why\s+not|how\s+about"
    r"|end(?:s|ed)?\s+with)"
    r"(?:\s+(?:down|in|just|only|exactly|simply))*[\s$*(\"'“‘]*(?:\\[(\[])?$"
)
_INSTRUCTION_AFTER = re.compile(
    r"(?:\\[)\]])?[\s$*)\"'”’]*(?:[.;!?\n]|$|(?:in|into|inside)\s+(?:the|your)\s+(?:answer\s+)?box\b)"
)
_ENUMERATION_BEFORE = re.compile(
    r"(?:\b(?:step|line|case|part|item|equation|eq|problem|question|exercise|page|section|chapter|stage|round"
    r"|attempt|response|completion|solution|draft|option|choice|hint|rule|figure|table|row|column|example|method"
    r"|approach|no)s?\.?)[\s$*(]*$"
)
_CHOICE_CUE_BEFORE = re.compile(
    r"(?:\b(?:choose|chose|pick|select|go\s+with|option|choice|answer|circle|mark|tick|try)|\bit'?s)[\s$*(\"'“‘]*$"
)
# Before a text answer: an article or a word that does not change what is stated ("is an ellipse", "is due east").
_FILLER_BEFORE = re.compile(r"(?:\b(?:a|an|the|due|purely|exactly|simply|toward|towards)\s+)+$")
_TEXT_CUE_BEFORE = re.compile(
    r"(?:\b(?:fac(?:e|es|ed|ing)|point(?:s|ed|ing)|head(?:s|ed|ing)|ends?\s+up|it'?s|works?\s+out\s+(?:to|as)"
    r"|turns?\s+out\s+(?:to\s+be|as)|(?:hint|final|spoiler|answer|result)\s*[:—–-])"
    r"|(?:^|[\n.!?;])[\s*-]*(?:[a-z'-]+\s+){0,2}[a-z'-]+\s*\**\s*[:—–])[\s*\"'“‘]*$"  # a label: "Direction: east"
)
# After a text answer, what the question asks for in a superlative: "Evelyn has the greatest speed", "is the fastest"
_SUPERLATIVE_AFTER = re.compile(
    r"[\s*\"'”’]*(?:is|was|has|had|does|did)\s+(?:the\s+)?(?:[a-z]{2,}est|most|least|best|worst|highest|lowest)\b"
)
# After a text answer, the one it is set against: "Even, not odd", "Navin, not Mauritius"
_CONTRAST_AFTER = re.compile(r"[\s*\"'”’]*,?[ \t]*not[ \t]+")
# A table line as `_normalised` writes it (each `|` as " : "), and a table column's header that states the answer
_TABLE_LINE = re.compile(r"[ \t]* : .* : [ \t]*$")
_EXPECTED_HEADER = re.compile(
    r"^(?!.*\byours?\b).*\b(?:expected|correct|answer|reference|should|solution|right)\b", re.IGNORECASE
)  # not "Your answer"
# After a text answer, the other options: "even or odd", "east, west", "even, odd, or neither"
_ALTERNATIVE_AFTER = re.compile(r"[\s*]*(?:/|(?:,\s*)?\b(?:or|nor|and)\b|,\s*[\w-]+\s*(?:,|\bor\b|\band\b))")
# What joins a value to a larger one: a digit, letter, decimal point, sign or operator, a subscript or a command.
_OPERATOR_NEARBY = r"(?:(?<!\*)\*(?!\*)|[-+/^_×·÷−±]|\\(?:cdot|times|div|pm|mp))"  # `**` is Markdown bold
_PART_OF_VALUE_BEFORE = re.compile(rf"(?:[\w.\\^_]|(?<!\\)\{{|{_OPERATOR_NEARBY}[ \t]*)$")
_PART_OF_VALUE_AFTER = re.compile(
    rf"[\w(\[{{^_%]|\.\d|,\d|\\(?!text|mbox|mathrm|q?quad|right|end|rangle|[,;:! )\]}}$])|[ \t]*{_OPERATOR_NEARBY}"
)
# Units a number may be glued to ("15cm"): any other letter glued to it makes another value ("42x").
_UNIT_WORDS = (
    r"(?:cm|mm|km|m|in|ft|yd|mi|kg|g|mg|lb|lbs|oz|s|sec|min|h|hr|hrs|ml|L|cents?|dollars?|degrees?|units?|inches"
    r"|inch|feet|foot|meters?|metres?|miles?|hours?|minutes?|seconds?|days?|years?)"
)
_BULLET_BEFORE = re.compile(r"(?:^|(?<=\n))[ \t]*[-*•][ \t]+$")
_GLUED_BEFORE = re.compile(r"[A-Za-z0-9.]$")
_GLUED_AFTER = re.compile(rf"(?!{_UNIT_WORDS}(?![A-Za-z]))[A-Za-z0-9]|\.\d|_")  # `4210_{\text{six}}`: a base
# Where a list of one item may start: a line, or a label that announces steps ("Fix steps: 1. Expand.").
_LIST_OPENING = re.compile(
    r"(?:\n|\b(?:steps?|fix(?:es)?|to\s*do|plan|checklist|instructions?)\s*:)[ \t*-]*\(?$", re.I
)
# A list marker: "1." or "2)" before an item, or "(3)", at the start of the text, a line or a clause.
_LIST_MARKER = re.compile(
    r"(?:^|(?<=[\n:;.!?]))[\s*-]*(?:(?P<number>\d+)[.)](?=\s+[^\s.])|\((?P<parenthesised>\d+)\))"
)

# A multiple-choice reference (MATH's `\text{(C)}`), and a half-line one (`(-\infty, 0]`, `(2, \infty)`).
_CHOICE = re.compile(r"(?:\\text(?:bf)?\s*\{\s*)?\(([A-E])\)(?:\s*\})?|\\text(?:bf)?\s*\{\s*([A-E])\s*\}")
_INFINITY = r"(?:\\infty|∞|oo)"
_HALF_LINE = re.compile(
    rf"\(\s*-\s*{_INFINITY}\s*,\s*(?P<upper>[^,()\[\]]+?)\s*(?P<close>[)\]])"
    rf"|(?P<open>[(\[])\s*(?P<lower>[^,()\[\]]+?)\s*,\s*\+?\s*{_INFINITY}\s*\)"
)
_INEQUALITY_OPERATORS = {
    **dict.fromkeys(["<=", "=<", "≤", "\\le", "\\leq", "\\leqslant"], "<="),
    **dict.fromkeys(["<", "\\lt"], "<"),
    **dict.fromkeys([">=", "=>", "≥", "\\ge", "\\geq", "\\geqslant"], ">="),
    **dict.fromkeys([">", "\\gt"], ">"),
}
_INEQUALITY = re.compile(
    r"(?<![A-Za-z\\])[A-Za-z]\s*(?P<operator>"
    + "|".join(re.escape(operator) for operator in sorted(_INEQUALITY_OPERATORS, key=len, reverse=True))
    + r")(?![A-Za-z])\s*(?P<bound>-?\s*(?:\d+(?:\.\d+)?(?:/\d+)?|\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}))"
)

# Expressions are evaluated by rewriting their LaTeX and Unicode spellings to Python and walking the syntax tree:
# exactly with Fractions for arithmetic, in floating point once a root, pi or a variable is involved. Every variable
# takes a fixed generic value, so two expressions in the same variables that agree there are taken as equal.
_FRACTION = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_BRACED_ROOT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_BRACELESS_FRACTION = re.compile(r"\\[dt]?frac\s*(?:\{([^{}]*)\}|(\d))\s*(?:\{([^{}]*)\}|(\d))")
_NTH_ROOT = re.compile(r"\\sqrt\s*\[([^\[\]{}]*)\]\s*\{([^{}]*)\}")
_BRACELESS_ROOT = re.compile(r"\\sqrt\s*(\d)")
_THOUSANDS_SEPARATOR = re.compile(r"(?<=\d)(?:,|\{,\})(?=\d{3}(?!\d))")
_ROOT_SIGN = re.compile(r"√\s*(\d+(?:\.\d+)?)|√")
# A unit after a number: degrees, a word in `\text{}` with its power (`864 \mbox{ inches}^2`), a dollar or percent sign.
_UNIT = re.compile(
    r"\^\s*\{?\s*\\circ\s*\}?|°|\\\$|\\[!,;]"
    r"|(?<=[\d}])\s*\\(?:text|mbox|mathrm)\s*\{\s*[A-Za-z][A-Za-z ]*\}(?:\^\s*\{?\d\}?)?"
    rf"|(?<=[\d}}])\s*(?:square\s+|cubic\s+|sq\.?\s*)?{_UNIT_WORDS}(?:\^\s*\{{?\d\}}?)?$"
)
_PERCENT = re.compile(r"\\?%")  # 35% is 0.35
_BASE_NUMBER = re.compile(r"(?<![\w.])(?P<digits>\d[0-9A-Za-z]*)_\{?(?P<base>\d+)\}?")
_DIGIT_UNDERSCORE = re.compile(r"\d_")
_MIXED_FRACTION = re.compile(
    r"(?<![\d.}^_])(?P<whole>\d+)\s*\\[dt]?frac\s*\{(?P<numerator>\d+)\}\s*\{(?P<denominator>\d+)\}"
)
_MIXED_SLASH = re.compile(r"(?<![\d./^_])(?P<whole>\d+)\s+(?P<numerator>\d+)/(?P<denominator>\d+)(?![\d./])")
_SCIENTIFIC = re.compile(r"(?<=\d)[eE]([-+]?\d+)(?![\w.])")
_PYTHON_SPELLINGS = {
    "\\boxed": "",
    "\\left": "",
    "\\right": "",
    "\\cdot": "*",
    "\\times": "*",
    "\\div": "/",
    "\\sqrt": "sqrt",
    "\\pi": "pi",
    "\\sin": "sin",
    "\\cos": "cos",
    "\\tan": "tan",
    "\\ln": "ln",
    "\\cot": "cot",
    "\\sec": "sec",
    "\\csc": "csc",
    "\\exp": "exp",
    "×": "*",
    "·": "*",
    "÷": "/",
    "−": "-",
    "π": "pi",
    "^": "**",
    "{": "(",
    "}": ")",
}
_IMPLICIT_PRODUCT = re.compile(
    r"(?<=[\d)])\s*(?=[A-Za-z(])|(?<![A-Za-z])(?<=[A-Za-z])\s*(?=\()|(?<=[A-Za-z])\s+(?=[A-Za-z])"
)
_FUNCTIONS = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "cot": lambda x: 1 / math.tan(x),
    "sec": lambda x: 1 / math.cos(x),
    "csc": lambda x: 1 / math.sin(x),
    "ln": math.log,
    "exp": math.exp,
}
# `\log_2 8`, `\log_{3}(x)`: a logarithm in a base, as a quotient of natural ones
_LOG_IN_BASE = re.compile(r"\\log_\s*(?:\{([^{}]*)\}|(\w))\s*(\([^()]*\)|\{[^{}]*\}|\d+(?:\.\d+)?|[A-Za-z])")
# `\sin x`, `\cot 2x`: a function applied without brackets, to the number and letter that follow it
_BARE_ARGUMENT = re.compile(r"\b(sin|cos|tan|cot|sec|csc|ln|exp|sqrt)[ ]+(\d*\.?\d*[A-Za-z]?)(?![\w(])")
_MAX_POWER_BITS = 4096
_RELATIVE_TOLERANCE = 1e-9
_TEXT_GROUP = re.compile(r"\\(?:text[a-z]*|mbox|mathrm|operatorname|begin|end)\s*\{[^{}]*\}")
_NOT_A_VARIABLE = re.compile(
    r"\\[A-Za-z]+|(?<![A-Za-z])(?:" + "|".join(_MATH_WORDS) + r")(?![A-Za-z])|(?<=\d)[eE](?=[-+]?\d+(?![\w.]))"
)
_VARIABLE = re.compile(r"[A-Za-z](?:_\{[^{}]*\}|_\w)?")
# Towers and huge exponents or factorials that sympy would evaluate for minutes.
_COSTLY_TO_PARSE = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\w+\s*\^|\^\s*\{?\s*[-(]?\d{4,}|\d{4,}\s*!|\\binom")


@dataclass(frozen=True)
class _Reference:
    text: str
    value: Fraction | float | None  # its value (variables at their fixed values); exact when it is rational
    variables: frozenset[str]
    is_collection: bool  # a tuple, interval, set or list of answers
    choice: str | None = None  # the letter of a multiple-choice answer (`\text{(C)}`)
    half_line: tuple[str, Fraction | float] | None = None  # `(-\infty, 0]` as the inequality `("<=", 0)`
    digits: Fraction | None = None  # the digits of a number in another base (`52_8`: 52), which state it too
    base: str | None = None  # that number as the problem would write it (`52_8`)
    # An equation such as a plane's (`5x - 7y + 11z + 4 = 0`): the value of its left side minus its right side at two
    # points; an equation stating it has a multiple of that difference, and its last side alone is no statement. A
    # line `y = 2x + 3` has one too (`2x - y + 3 = 0` states it), besides the value of its right side.
    equation: tuple[float, float] | None = None
    text_answer: str | None = None  # the words of an answer in words (`\text{even}`, `\text{Evelyn}`)
    collection: "_Collection | None" = None  # a tuple, vector, interval, set or list of answers, read item by item
    degrees: bool = False  # an angle in degrees (`30^\circ`), which a value in radians states too ("pi/6 radians")
    # An equation in variables we do not evaluate whose right side is zero or in variables (`m \frac{dv}{dt} + bv = f`,
    # `y' + ry = 0`): only the whole equation states it; its right side alone is also that of a wrong one.
    whole_equation: bool = False


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


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# a hyphen between words ("forty-two", "x-intercept"); between two one-letter variables ("p-q") it is a minus sign
_HYPHEN_BETWEEN_LETTERS = re.compile(r"(?<=[A-Za-z]{2})-(?=[A-Za-z])|(?<=[A-Za-z])-(?=[A-Za-z]{2})")
_WORD_OR_SPACE = re.compile(r"\s+|\w+|[^\w\s]")
_CLAUSE = re.compile(r"[^.;:!?\n]+|[.;:!?\n]+")
_CLAUSE_TOKENS = 64  # a clause longer than this (words and spaces) is read in pieces of this many
# What number words become after alpha2digit: "three quarters" -> "3 quarters", "two thirds" -> "2 3rds".
_FRACTION_WORDS = re.compile(
    r"\b(?:(?P<numerator>\d+)|(?P<one>a|an|one))[ ]+"
    r"(?:(?P<half>half|halves)|(?P<quarter>quarters?)|(?P<denominator>(?!1st)\d+)(?:st|nd|rd|th)s?)\b"
)  # "2 first" is no fraction
_SIGN_WORD = re.compile(r"\b(?:negative|minus)[ ]+(?=\d|π|pi\b|(?:square[ ]+)?root[ ]+(?:of[ ]+)?\d)", re.IGNORECASE)
# Cyrillic and Greek letters drawn as Latin ones: `\bоxed{5}` with a Cyrillic о is still a box.
_HOMOGLYPHS = dict(zip("аеорсхуіјѕАВЕКМНОРСТХΑΒΕΗΙΚΜΝΟΡΤΧοικ", "aeopcxyijsABEKMHOPCTXABEHIKMNOPTXoik", strict=True))
# Shapes of a number that alpha2digit leaves in words: "3 million", "75 percent", a box by another name.
_SCALE_WORD = re.compile(r"\b(\d+(?:\.\d+)?)[ ]+(thousand|million|billion)\b", re.IGNORECASE)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_PERCENT_WORD = re.compile(r"(?<=\d)[ ]*\bper[ ]?cent\b", re.IGNORECASE)
_SPACING_IN_NUMBER = re.compile(r"\\\$(?=\s*\d)|(?<=[-−+])\$(?=\d)|(?<=\d,)\\[!,]\s*(?=\d{3})|(?<=\d)\\[!,](?=\d)")
# A Markdown table's row, whose cells a `|` separates: "| expected | 11 sqrt(2) |" is a label and a value, no `|x|`
_TABLE_ROW = re.compile(r"^[ \t]*\|[^\n]*\|[ \t]*$", re.MULTILINE)
_CODE_MARK = re.compile(r"`+")  # Markdown code, "the total is `4`", read as its content
_BRACED_DECIMAL_POINT = re.compile(r"(?<=\d)\{\.\}(?=\d)")  # `1{.}25`: LaTeX's spacing-free decimal point
# Symbols in words: "1 plus or minus √19", "(5, infinity)"
# (and a programmer's "inf", "(-inf, 0]", never LaTeX's `\inf`)
_SYMBOL_WORD = re.compile(
    r"(?<!\\)\b(?:plus[ ]+or[ ]+minus|(?:negative|minus)[ ]+infinity|infinity|inf)\b(?!\()", re.IGNORECASE
)
_SYMBOL_WORDS = {
    "plus or minus": " \\pm ",
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
_DASH_MINUS = re.compile(r"(?<![\w)\]}])[–—](?=\s?[\d.(\\√])")
_UNION_LETTER = re.compile(r"(?<=[)\]])[ ]*U[ ]*(?=[(\[])")  # "(0,9) U (9,36)"
_SYMBOLS = {
    "±": "\\pm ",
    "+/-": " \\pm ",
    "∓": "\\mp ",
    "∞": "\\infty ",
    "∪": " \\cup ",
    "∈": " \\in ",
    "⁄": "/",
    "∕": "/",
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
    "greater than": ">",
    "more than": ">",
}
_INEQUALITY_WORD = re.compile(
    r"(?:(?<=(?<![A-Za-z])[A-Za-z])[ ]+(?:is[ ]+)?|(?<=[\d)])[ ]+is[ ]+)(?P<relation>"
    + "|".join(word.replace(" ", "[ ]+") for word in _INEQUALITY_WORDS)
    + r")[ ]+(?=[-\w(√\\])",
    re.IGNORECASE,
)
# A second inequality whose variable is left out: "x > 2 and less than 12", "x < 2 or > 3" (`x < 2 or x > 3`)
_OMITTED_VARIABLE = re.compile(
    r"(?<![A-Za-z])(?P<variable>[A-Za-z])[ ]*(?:<=|>=|<|>)[ ]*[^\s<>=,;]{1,40}[ ]+(?:and|or|but)[ ]+(?:is[ ]+)?"
    r"(?P<relation>"
    + "|".join(word.replace(" ", "[ ]+") for word in _INEQUALITY_WORDS)
    + r"|<=|>=|<|>)(?=[ ]*[-\w(√\\])",
    re.IGNORECASE,
)
_MAX_OMITTED_VARIABLES = 8
_MONEY_WORDS = re.compile(r"\b(\d+)[ ]+dollars?[ ]+and[ ]+(\d{1,2})[ ]+cents?\b", re.IGNORECASE)
# "4.2 x 10^5", "12 times pi", "6 times 7": a product written out
_TIMES_WORD = re.compile(
    r"(?<=[\d)])[ ]*(?:\b(?:times|multiplied[ ]+by)\b(?:[ ]+the\b)?|[xX](?=[ ]*10[ ]*\^))[ ]*(?=-?[\d(√\\]|pi\b|π)",
    re.IGNORECASE,
)
_OTHER_BOX = re.compile(r"\\(?:framebox|fbox)(?![A-Za-z])")
# After number words are digits: "one and a half" -> "1 and 1/2", "square root of two" -> "square root of 2".
# a whole number that ends no fraction and a proper fraction: "2/3 and 5/3" is a list
_MIXED_NUMBER = re.compile(r"(?<![\d./])(\d+)[ ]+and[ ]+(\d+)/(\d+)\b(?!/)")
# "root 13" alone is √13 too ("three root thirteen"), but not after a word that makes it a root of an equation ("the
# root 2", "a double root 3").
_ROOT_WORDS = re.compile(
    r"\bsquare[ ]+root[ ]+(?:of[ ]+)?(?=\d)"
    r"|(?<!\bthe )(?<!\ba )(?<!\bone )(?<!\b1 )(?<!\beach )(?<!\bother )(?<!\bthat )(?<!\bthis )(?<!\bits )"
    r"(?<!\bdouble )(?<!\btriple )(?<!\breal )(?<!\banother )(?<!\blargest )(?<!\bsmallest )(?<!\bpositive )"
    r"(?<!\brepeated )(?<!\binteger )\broot[ ]+(?=\d)",
    re.IGNORECASE,
)
# Digits split by whitespace ("4 2", "4\n2", "4\r\n2"), read as one number where a result cue stands by them.
_SPLIT_DIGITS = re.compile(r"(?<![\d.,])\d+(?:(?:[ \t]+[\r\n]*|[\r\n]+)[ \t]*\d+)+(?![\d.,]\d)")
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
# An operand of an operation in words: a number or a LaTeX fraction (in degrees: "the sum of 60° and 30°", "twice
# \frac{55}{2}°"), or any math span ("one more than $\frac{7}{6}$"), whose dollars the rewriting drops
_OPERAND = rf"\$[^$\n]{{1,60}}\$|(?:{_NUMBER}|\\[dt]?frac\{{[^{{}}]{{1,20}}\}}\{{[^{{}}]{{1,20}}\}})°?"
# Arithmetic in words on stated numbers, after the number words are digits, rewritten as the expression it states;
# each rule (the words it needs, its pattern, the expression) is applied once, in this order, so "twice 3 plus 1" is
# read as 2*(3) + 1.
_ARITHMETIC_WORDS = [
    ((" of ",), re.compile(rf"\b(?:half|1/2)[ ]+of[ ]+(?:the[ ]+)?({_OPERAND})(?!\w)", re.IGNORECASE), r"(\1)/2"),
    (
        (" of ",),
        re.compile(rf"(?<![\d.])(\d+/\d+)[ ]+of[ ]+(?:the[ ]+)?({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)*(\2)",
    ),
    (("twice", "double"), re.compile(rf"\b(?:twice|double)[ ]+({_OPERAND})(?!\w)", re.IGNORECASE), r"2*(\1)"),
    (("triple", "thrice"), re.compile(rf"\b(?:triple|thrice)[ ]+({_OPERAND})(?!\w)", re.IGNORECASE), r"3*(\1)"),
    (("doubled",), re.compile(rf"(?<![\d.])({_OPERAND})[ ]+doubled\b", re.IGNORECASE), r"2*(\1)"),
    (("halved",), re.compile(rf"(?<![\d.])({_OPERAND})[ ]+halved\b", re.IGNORECASE), r"(\1)/2"),
    (("square",), re.compile(rf"(?<=\bthe )\bsquare[ ]+of[ ]+({_OPERAND})(?!\w)", re.IGNORECASE), r"(\1)^2"),
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
            rf"(?<![\d.])({_OPERAND})[ ]+(?:more|greater|larger|bigger|higher)[ ]+than[ ]+({_OPERAND})(?!\w)",
            re.IGNORECASE,
        ),
        r"(\2)+(\1)",
    ),
    (
        ("than",),
        re.compile(
            rf"(?<![\d.])({_OPERAND})[ ]+(?:less|fewer|smaller|lower)[ ]+than[ ]+({_OPERAND})(?!\w)", re.IGNORECASE
        ),
        r"(\2)-(\1)",
    ),
    (
        ("sum", "total"),
        re.compile(rf"\bthe[ ]+(?:sum|total)[ ]+of[ ]+({_OPERAND})[ ]+and[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)+(\2)",
    ),
    (
        ("difference",),
        re.compile(rf"\bthe[ ]+difference[ ]+between[ ]+({_OPERAND})[ ]+and[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)-(\2)",
    ),
    (
        ("product",),
        re.compile(rf"\bthe[ ]+product[ ]+of[ ]+({_OPERAND})[ ]+and[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\1)*(\2)",
    ),
    (
        ("added",),
        re.compile(rf"(?<![\d.])({_OPERAND})[ ]+added[ ]+to[ ]+({_OPERAND})(?!\w)", re.IGNORECASE),
        r"(\2)+(\1)",
    ),
    (("plus",), re.compile(rf"{_OPERAND_BEFORE},?[ ]+plus[ ]+{_OPERAND_AFTER}", re.IGNORECASE), r"\1 + "),
    (("minus",), re.compile(rf"{_OPERAND_BEFORE}[ ]+minus[ ]+{_OPERAND_AFTER}", re.IGNORECASE), r"\1 - "),
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
# A ratio or a chance: "4:3", "3 in 56", "3 out of 56" (a part no larger than its whole)
_RATIO = re.compile(
    r"(?<![\d.:])(?P<numerator>\d+):(?P<denominator>\d+)(?![\d:])"
    r"|(?<![\d.])(?P<part>\d+)[ ]+(?:in|out[ ]+of)[ ]+(?P<whole>\d+)(?!\d|\.\d)",
    re.IGNORECASE,
)
_POINT_WORDS = re.compile(r"\bpoint((?:[ ]+0*\d)+)(?!\d|\.\d)", re.IGNORECASE)
# Denominators alpha2digit misreads: "twenty-firsts" (it drops the suffix), "three hundredths" (it reads 300ths).
_ORDINAL_DENOMINATOR = re.compile(
    r"(?<=ty )firsts\b|\b(?:one[ ]+(?=(?:hundred|thousand)ths\b))?(?P<scale>hundred|thousand)th(?P<plural>s?)\b",
    re.IGNORECASE,
)  # "nine one hundredths" is 9/100
_SCALE_ORDINALS = {"hundred": "100th", "thousand": "1000th"}
# Thousands grouped by spaces, as SI writes them ("8 000", "11 111 111 100"; a thin space is one after NFKC).
_SPACED_THOUSANDS = re.compile(r"(?<![\w.,])(?<!\d )\d{1,3}(?: \d{3})+(?!\w|[.,]\d| \d)")
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


def _normalised(text: str) -> _Normalised:
    """`text` as the guard reads it: the digits of every script (Arabic-Indic, Devanagari, full-width, mathematical
    bold, ...) as ASCII digits, other full-width and compatibility forms by their NFKC form when it is ASCII
    (`＝`, a no-break space), Cyrillic and Greek letters drawn as Latin ones as those, invisible format characters (a
    zero-width space) and combining marks dropped, English number words as digits (`text2num`'s `alpha2digit`:
    "forty-two" -> 42, "three quarters" -> 3/4, "negative five" -> -5, "one and a half" -> 3/2), "3 million" as
    3000000, "percent" as `%`, "square root of" as `√`, `\framebox` or `\fbox` as `\boxed` and a complex number
    by its parts as one ("real part 6, imaginary part -5" as `6-5i`)."""
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
        elif character in _HOMOGLYPHS:
            pieces.append((match.start(), match.end(), _HOMOGLYPHS[character]))
        elif folded != character and folded.isascii() and unicodedata.category(character) != "No":  # not ①
            pieces.append((match.start(), match.end(), folded))
        elif unicodedata.category(character) == "No" and _VULGAR_FRACTION.fullmatch(folded):  # ½, 4½
            numerator, denominator = _VULGAR_FRACTION.fullmatch(folded).groups()
            after_digit = text[match.start() - 1 : match.start()].isdigit()
            pieces.append((match.start(), match.end(), f"{' ' if after_digit else ''}{numerator}/{denominator}"))
    pieces += [(match.start(), match.end(), " ") for match in _HYPHEN_BETWEEN_LETTERS.finditer(text)]
    # an escaped dollar, or a dollar after a sign, is a unit ("-\$36", "-$36" are -36, not a dash before 36);
    # `10,\!080` is 10,080
    pieces += [(match.start(), match.end(), "") for match in _SPACING_IN_NUMBER.finditer(text)]
    pieces += [(match.start(), match.end(), ".") for match in _BRACED_DECIMAL_POINT.finditer(text)]
    pieces += [(match.start(), match.end(), " ") for match in _CODE_MARK.finditer(text)]
    pieces += [
        (row.start() + offset, row.start() + offset + 1, " : ")
        for row in _TABLE_ROW.finditer(text)
        for offset, character in enumerate(row.group())
        if character == "|" and row.group()[offset - 1 : offset] != "\\"
    ]
    normalised = _Normalised(text).rewritten(sorted(pieces))
    normalised = _scale_and_percent_words(normalised)
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
    normalised = _scale_and_percent_words(normalised.rewritten(_number_words(normalised.text)))
    pieces = [
        (match.start(), match.end(), f"{match.group(1)}.{int(match.group(2)):02d}")
        for match in _MONEY_WORDS.finditer(normalised.text)
    ]
    pieces += [
        (match.start(), match.end(), match.group().replace(" ", ""))
        for match in _SPACED_THOUSANDS.finditer(normalised.text)
    ]
    pieces += [(match.end(), match.end(), " ") for match in _GLUED_FUNCTION.finditer(normalised.text)]
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
    for match in _RATIO.finditer(normalised.text):
        numerator, denominator = match.group("numerator") or match.group("part"), match.group("denominator")
        if match.group("numerator") or int(match.group("part")) <= int(match.group("whole")):
            pieces.append((match.start(), match.end(), f"{numerator}/{denominator or match.group('whole')}"))
    pieces += [(match.start(), match.end(), "-") for match in _SIGN_WORD.finditer(normalised.text)]
    pieces += [
        (match.start(), match.end(), "." + "".join(match.group(1).split()))
        for match in _POINT_WORDS.finditer(normalised.text)
        if len("".join(match.group(1).split())) >= 2  # "point 3" is a point's label
    ]
    normalised = normalised.rewritten(sorted(pieces))
    pieces = [(match.start(), match.end(), "√") for match in _ROOT_WORDS.finditer(normalised.text)]
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
    if re.search(r"\bthan\b|\bat[ ]+(?:most|least)\b", normalised.text, re.IGNORECASE):
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
    lowered = normalised.text.lower()
    for words, pattern, replacement in _ARITHMETIC_WORDS:  # "one more than 41" -> "(41)+(1)"
        if not any(word in lowered for word in words):
            continue  # a quick test that spares the pattern's scan of the whole text
        pieces = [
            (match.start(), match.end(), match.expand(replacement).replace("$", ""))
            for match in pattern.finditer(normalised.text)
        ]
        normalised = normalised.rewritten(pieces)
    return normalised


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
    """Symbols the guard reads in their LaTeX spelling: a dash used as a minus sign, ± (and "+/-"), ∞, ∪ (and a U
    between two intervals), ∈, fraction slashes."""
    return (
        [(match, "-") for match in _DASH_MINUS.finditer(text)]
        + [(match, _SYMBOLS[match.group()]) for match in re.finditer("[±∓∞∪∈⁄∕]|\\+/-", text)]
        + [(match, " \\cup ") for match in _UNION_LETTER.finditer(text)]
    )


def _scaled(number: str, scale: str) -> str:
    value = Fraction(number) * _SCALES[scale.lower()]
    return str(value.numerator) if value.denominator == 1 else number + " " + scale


def _number_words(text: str) -> list[tuple[int, int, str]]:
    """The pieces `(start, end, digits)` of `text` that spell a number, as alpha2digit reads them (every number word,
    "one" included), clause by clause: a number is spelled within one, and comparing short texts stays cheap."""
    pieces = []
    for clause in _CLAUSE.finditer(text):
        tokens, offset = _WORD_OR_SPACE.findall(clause.group()), clause.start()
        for first in range(0, len(tokens), _CLAUSE_TOKENS):
            chunk = "".join(tokens[first : first + _CLAUSE_TOKENS])
            digits = alpha2digit(chunk, "en", threshold=0) if re.search("[A-Za-z]", chunk) else chunk
            if digits != chunk:
                pieces += [(offset + start, offset + end, new) for start, end, new in _changed_words(chunk, digits)]
            offset += len(chunk)
    return pieces


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


def redact_answer_leak(feedback: str, reference: Any, *, problem: str | None = None) -> tuple[str, bool]:
    r"""Replace every statement of the reference answer in the feedback with `[redacted]`.

    Statements of the answer:

    - every `\boxed{...}` equivalent to the reference, the expression stated in a math span (`$...$`, `\[...\]`,
      `\(...\)`) or after "answer is" (the last side of an equation there) when it is equivalent, and the reference
      itself wherever it appears verbatim as a whole value when it has at least `MIN_VERBATIM_LEAK_LENGTH`
      characters. A value that only contains the reference's text (`-\frac{11}{2}` for `\frac{11}{2}`, `190^\circ`
      for `90^\circ`) is another value: it is never redacted, nor cut;
    - in plain text and inside math spans, every side of an equation (`x = 42`, `6*7 = 42`, `probability = 1/3`)
      equivalent to the reference;
    - every other standalone number or expression equivalent to the reference (`42`, `0.5` for `\frac{1}{2}`,
      `\sqrt{12}` for `2\sqrt{3}`, "it works out to 7"), whatever words surround it: the guard judges the value, not
      the wording. Step numbers ("Step 2", "response 3") and list markers ("1. ... 2. ...": a number in a marker's
      place next to its neighbour's marker; "Final: 204. Now verify it." states 204) are not statements of a value.
      When the problem statement states the value itself (a number anywhere in it, a literal such as `\frac12`, or
      the reference as written; a computation it asks for states nothing), feedback may quote it, and it is
      redacted only as a result statement: after "is", "equals", "gives", any form of a result verb ("gotten",
      "you will find", "that leaves", "I count"), "answer:", a label naming a result ("Outcome: 7"), "####",
      "return", set against the attempt ("Compare your 8 with 7"), "Expected: 7", ... or before "works", "holds",
      "is the answer", "is correct", "is what you should have found", or handed over in an instruction or wanted ("Write 7 as the result", "The box
      needs 7", "Put 7 in the box", "you needed 7.", "Why not 7?"); what the problem gives ("the problem gives 7")
      and the value a step works with ("Dividing by 7 was right") are quotes.
      The cost: a value the problem does not state is redacted where it is no result ("one half of the radius" for
      1/2, "the error is one of sign" for 1);
    - a multiple-choice letter written as a choice ("(C)", "(c)", `\textbf{(C)}`, not "part (c)") or a bare letter
      stated as the result or picked ("choose C", "try C"), and its option's words in the problem ("Plane") stated
      as the result; a text answer (`\text{even}`) stated as the result ("Direction: east"), not among alternatives
      ("even or odd"); a half-line (`(-\infty, 0]`) stated as its inequality ("x ≤ 0");
    - a collection read item by item in any notation (`_collection`): a prose list ("3, 5 and 7"), assignments
      ("x = 15 and y = -29"), items each labelled or in its own math span ("x-component -2, y-component -14 and
      z-component -7", "$p = 6$, $q = 31$"), `±`, an inequality chain ("-2 <= x <= 7"), inequalities whose variable
      a second one leaves out ("x > 2 and less than 12", "x < 2 or > 3"; "and" binds before "or"), a list in
      brackets or braces, a vector as a tuple, in rows ("[-2; -14; -7]"), in unit vectors ("-2i - 14j - 7k") or
      with a factor drawn out ("(1/3)(-1, 2, 5)"), `\langle\rangle` or any matrix environment, a matrix as a list
      of rows, in rows ("-1 0; 0 -1") or its rows in prose ("rows (-1, 0) and (0, -1)", "first row -1, 0; second
      row 0, -1"), unions, set-builder conditions joined by "or"; an equation answer
      (`5x - 7y + 11z + 4 = 0`) as a whole equation, up to a factor; a line (`y = 2x + 3`) as its right side or
      rearranged; a line or plane named by all of its parameters ("slope 2 and y-intercept 3");
    - arithmetic on stated numbers in words ("one more than 41", "6 times 7", "half of 84", "the difference between
      10 and 3"), on math spans ("twice $\frac{45}{2}$") and angles ("the sum of 60° and 30°") whose result is the
      reference, and a decimal approximation of an irrational reference to `MIN_APPROXIMATION_DIGITS` or more
      significant digits ("about 4.472" for `2\sqrt{5}`, `$\approx 4.472$`);
    - all of these in other shapes: spelled out ("forty-two", "three quarters", "negative five", "one and a half",
      "square root of two", "3 million", "75 percent"; English number words read by `text2num`'s `alpha2digit`), in
      the digits of another script or full-width (Unicode decimal digits and NFKC forms), with invisible characters
      or combining marks inside, with Cyrillic or Greek letters drawn as Latin ones (`\bоxed`), `\framebox` or
      `\fbox` for `\boxed`, `11√2`, `3e6`, `1{,}000`, superscripts, `4½`, a dash as a minus sign, mixed numbers
      (`1\frac{4}{5}`), numbers in a base (`52_8` or `52_{\text{eight}}`, whose digits "52" state it too; `52_{10}`
      is another value), `1{.}25`, "(5, inf)", Markdown code and table cells (`` `7` ``, "| expected | 7 |"),
      units (`90^\circ`, `\$18.90`, "18 dollars and 90 cents", `35\%`), a decimal comma ("4,5"), thousands grouped
      by spaces ("8 000"), a ratio or a chance ("4:3", "3 in 56"), degrees for a multiple of pi ("-30 degrees") and
      a multiple of pi for degrees, or with its digits split by whitespace next to a result cue ("the answer is
      4 2"). The original span of each is replaced.

    Arithmetic is compared exactly (`0.5` equals `\frac{1}{2}`, `0.333` does not equal `1/3`), roots, pi, logarithms,
    trigonometric functions and variables numerically, collections item by item, and what only math-verify reads
    (`\binom{5}{2}`) with math-verify, which runs without a timeout off the main thread (its timeouts only work
    there), for at most `MAX_MATH_VERIFY_CHECKS` expressions and `MAX_MATH_VERIFY_SECONDS` per call.

    Args:
        feedback: The feedback text.
        reference: The reference answer: a string, a number, or a list, tuple or set of them (each one checked).
            A worked solution (MATH's `solution` column) is checked for its final answer (`final_answer`). `None`
            or an empty string checks nothing.
        problem: The problem statement, for the values it states. `None` checks with the strict rule, as if the
            problem stated no value: every standalone mention of the reference's value is redacted.

    Returns:
        The redacted text and whether anything was redacted.
    """
    references = [_reference(text) for text in _reference_texts(reference)]
    if not references:
        return feedback, False
    feedback, problem = _without_lone_surrogates(feedback), _without_lone_surrogates(problem)
    givens = [
        _Givens(
            _given(problem, reference),
            _given_digits(problem, reference),
            _given_text(problem, reference),
            _given_expressions(problem, reference),
            _option_text(problem, reference),
        )
        for reference in references
    ]
    normalised = _normalised(feedback)
    budget = _Budget()
    token = _MATH_VERIFY_BUDGET.set(budget)
    try:
        spans = _all_leak_spans(normalised.text, references, givens)
    finally:
        _MATH_VERIFY_BUDGET.reset(token)
    if budget.skipped:
        warn_once(
            f"A feedback text held more expressions only math-verify reads than the answer-leak guard compares in "
            f"one call ({MAX_MATH_VERIFY_CHECKS}, {MAX_MATH_VERIFY_SECONDS} s); it compared the first ones with the "
            "reference and skipped the rest."
        )
    if not spans:
        return feedback, False
    return _replace_spans(feedback, [normalised.original_span(*span) for span in spans]), True


class _Givens(NamedTuple):
    """What the problem states of a reference."""

    value: bool  # its value (`_given`)
    digits: bool  # its digits in another base (`_given_digits`)
    text: bool  # its words (`_given_text`)
    expressions: frozenset[str]  # its expressions equal to it (`_given_expressions`)
    option: str | None  # the words of its multiple-choice option (`_option_text`)


def _all_leak_spans(text: str, references: list[_Reference], givens: list[_Givens]) -> list[tuple[int, int]]:
    """The spans of the normalised feedback `text` that state a reference, with what the problem states of each."""
    spans = []
    for reference, given in zip(references, givens, strict=True):
        spans += _leak_spans(text, reference, given.value, given.digits, given.expressions)
        spans += _split_digit_spans(text, reference)
        spans += _choice_spans(text, reference)
        spans += _text_answer_spans(text, reference.text_answer, given.text)
        spans += _text_answer_spans(text, given.option, given=True)  # "a plane" for (C) Plane
        spans += _half_line_spans(text, reference, given.value)
        spans += _decimal_comma_spans(text, reference, given.value)
        spans += _collection_spans(text, reference, given.value)
        spans += _parameter_spans(text, reference)
    return spans


@lru_cache(maxsize=1024)
def _given(problem: str | None, reference: _Reference) -> bool:
    r"""Whether the problem statement states the reference's value: as a number anywhere in it (the 4 of
    `2 \cdot 3 \cdot 4`, which feedback may quote), as a literal (`\frac12`, `\sqrt{53}`, `3\pi`) or the reference
    written as the reference writes it, or, for a half-line, as the same inequality. A computation equal to it
    (`\frac{1}{5}\cdot \frac{8}{7}\div \frac{12}{20}`, `(-k + 4) + (-2 + 3k)`, a power or a logarithm) is what the
    problem asks for: it does not give the value (`_given_expressions`)."""
    if not problem:
        return False
    text = _normalised(problem).text
    if reference.half_line is not None and _half_line_spans(text, reference, given=False):
        return True
    if reference.value is not None and any(
        _close(Fraction(number), reference.value)
        for number in _PROBLEM_NUMBER.findall(text)
        if len(number) <= MAX_CANDIDATE_LENGTH  # no short answer, and past 4,300 digits no int either
    ):
        return True
    written = _compact(reference.text)
    return any(
        _LITERAL.fullmatch(expression) or expression == written
        for expression in _given_expressions(problem, reference)
    )


@lru_cache(maxsize=1024)
def _given_expressions(problem: str | None, reference: _Reference) -> frozenset[str]:
    r"""The standalone expressions of the problem (read as the feedback is, `_compact`) that equal the reference, in
    its math spans or runs, and the equations they are sides of (`\omega^3 = 1`): a quote of one of them in the
    feedback is the problem's text, redacted only as a result statement."""
    if not problem:
        return frozenset()
    text, expressions = _normalised(problem).text, set()
    runs = [_trim(text, *match.span(match.lastindex)) for match in _MATH_SPAN.finditer(text)] + _math_runs(text)
    for run in runs:
        for start, end in _sides(text, *run)[0]:
            side = text[start:end]
            if (reference.variables or re.search(r"[\d\\]", side)) and _states(side, reference):
                expressions.update((_compact(side), _compact(text[slice(*run)])))
    return frozenset(expressions)


def _compact(expression: str) -> str:
    r"""`expression` without spaces, `\left`/`\right` and LaTeX spacing, each product and quotient sign as one: how
    two writings of it are compared (`2 \cdot 3` and "2×3" alike)."""
    text = _COMPACT_NOISE.sub("", expression).rstrip(".,;:")
    return _COMPACT_QUOTIENT.sub("/", _COMPACT_PRODUCT.sub("*", _COMPACT_FRACTION.sub(r"\\frac", text)))


_COMPACT_NOISE = re.compile(r"\s+|\\(?:left|right)(?![A-Za-z])|\\[!,;:]")
_COMPACT_PRODUCT = re.compile(r"\\(?:cdot|times)(?![A-Za-z])|[×·]")
_COMPACT_QUOTIENT = re.compile(r"\\div(?![A-Za-z])|÷")
_COMPACT_FRACTION = re.compile(r"\\[dt]frac(?![A-Za-z])")
# A number as one literal (no computation on it): `-3`, `4.5`, `\frac12`, `9/2`, `2\sqrt{3}`, `√53`, `3\pi`,
# `\frac{\pi}{6}`, read without spaces.
_UNSIGNED = r"(?:\d+(?:\.\d+)?|\.\d+)"
_ROOT_OR_PI = rf"(?:\\sqrt(?:\{{{_UNSIGNED}\}}|\d)|√{_UNSIGNED}|\\pi|π)"
_LITERAL = re.compile(
    rf"[-+]?(?:{_UNSIGNED}?{_ROOT_OR_PI}|{_UNSIGNED}|{_UNSIGNED}/{_UNSIGNED}"
    rf"|\\[dt]?frac(?:\{{{_UNSIGNED}?{_ROOT_OR_PI}?\}}|\d)(?:\{{{_UNSIGNED}\}}|\d))"
)


_DEGREES = re.compile(r"\^\s*\{?\s*\\circ|°|\bdeg(?:rees?)?\b")
_DEGREES_AFTER = re.compile(r"[ \t]*(?:°|\^\s*\{?\s*\\circ|degrees?\b|deg\b)", re.IGNORECASE)
_PI = re.compile(r"\\pi(?![A-Za-z])|π|(?<![A-Za-z\\])pi(?![A-Za-z])")
_RADIANS_AFTER = re.compile(r"[ \t]*(?:\\(?:text|mbox|mathrm)\s*\{\s*)?(?:radians?|rad)\b", re.IGNORECASE)


# An answer in words: `\text{even}`, `\textbf{Navin}`, or a bare word of four letters or more.
_TEXT_ANSWER = re.compile(
    r"\\(?:text(?:bf|rm)?|mbox|mathrm)\s*\{\s*([A-Za-z][A-Za-z' -]+)\}|([A-Za-z]{4,}(?: [A-Za-z]+)*)"
)
_LONE_VARIABLE = re.compile(r"[A-Za-z](?:\([A-Za-z]\))?")  # `y`, `f(x)`: the left side of an answer `y = 2x + 3`
_DECIMAL_COMMA = re.compile(r"(?<![\d,.])\d+,\d{1,2}(?![\d,]|\.\d)")


def _given_text(problem: str | None, reference: _Reference) -> bool:
    """Whether the problem names a text answer ("Is it even, odd, or neither?")."""
    return (
        bool(problem and reference.text_answer)
        and re.search(rf"(?<!\w){re.escape(reference.text_answer)}(?!\w)", problem, re.IGNORECASE) is not None
    )


@lru_cache(maxsize=1024)
def _option_text(problem: str | None, reference: _Reference) -> str | None:
    """The words of a multiple-choice reference's option in the problem ("Plane" of "(C) Plane"); `None` when it has
    none (an option that is a formula)."""
    if not (problem and reference.choice):
        return None
    option = re.search(
        rf"(?:\\textbf\s*\{{\s*)?\(\s*{reference.choice}\s*\)\s*\}}?(?:\\\s)?\s*"
        r"([A-Za-z][A-Za-z -]*[A-Za-z])\s*(?=\n|\(|\\|$|[.;,$])",
        problem,
    )
    return option.group(1) if option else None


def _given_digits(problem: str | None, reference: _Reference) -> bool:
    """Whether the problem states the digits of a reference in another base (`52` of `52_8`); the value it
    converts (`Express 555 in base 5`) is given, the digits it asks for are not."""
    return bool(problem and reference.digits is not None) and any(
        Fraction(number) == reference.digits for number in _PROBLEM_NUMBER.findall(_normalised(problem).text)
    )


_DECIMAL = re.compile(r"-?(?P<digits>\d*\.\d+)")
_WHOLE = re.compile(r"-?(?P<digits>\d+)")
# What marks a number as an approximation: a word or sign before it, an ellipsis or "(rounded)" after it.
_APPROXIMATION_BEFORE = re.compile(
    r"(?:\b(?:about|approximately|approx\.?|roughly|around|nearly|circa|close\s+to)|≈|~|\\approx)[\s$*(]*$"
)
_APPROXIMATION_AFTER = re.compile(
    r"[\s$*]*(?:\.\.\.|…|\(?\s*(?:rounded|approx(?:imately|\.)?|to\s+\d+\s+(?:decimal\s+)?(?:places|digits))\b)",
    re.IGNORECASE,
)
_PROBLEM_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d])")


def _split_digit_spans(feedback: str, reference: _Reference) -> list[tuple[int, int]]:
    """Digits split by whitespace ("the answer is 4 2") that read as the reference once joined, next to a result
    cue (a bare "4 2" is two numbers)."""
    return [
        match.span()
        for match in _SPLIT_DIGITS.finditer(feedback)
        if _stated_as_result(feedback, *match.span(), given=True)
        and _states(re.sub(r"\s", "", match.group()), reference)
    ]


def _choice_spans(feedback: str, reference: _Reference) -> list[tuple[int, int]]:
    """The letter of a multiple-choice answer: written as a choice ("(C)", "(c)", `\\textbf{(C)}`) wherever it is
    not a part's label ("part (c)"), and a bare "C" stated as the result or picked ("choose C", "try C"): a bare
    capital is as often a point or a set."""
    if reference.choice is None:
        return []
    letter = reference.choice
    as_choice = re.compile(
        rf"(?<![A-Za-z\\])(?:\\text(?:bf)?\s*\{{\s*\(?\s*{letter}\s*\)?\s*\}}|\(\s*{letter}\s*\)(?![A-Za-z]))",
        re.IGNORECASE,
    )
    bare = re.compile(rf"(?<![A-Za-z\\]){letter}(?![A-Za-z])")
    spans = [
        match.span()
        for match in as_choice.finditer(feedback)
        if not _ENUMERATION_BEFORE.search(feedback[max(0, match.start() - _CONTEXT_CHARS) : match.start()].lower())
    ]
    return spans + [
        match.span()
        for match in bare.finditer(feedback)
        if _CHOICE_CUE_BEFORE.search(feedback[max(0, match.start() - _CONTEXT_CHARS) : match.start()].lower())
        or _stated_as_result(feedback, *match.span(), given=True)
    ]


def _text_answer_spans(feedback: str, text_answer: str | None, given: bool) -> list[tuple[int, int]]:
    """A text answer ("even", "east", "ellipse", a name) as a word of the feedback: anywhere when the problem does not
    name it, else stated as the result ("The function is even.", "It is an ellipse", "facing due east", "choose
    Navin", "Direction: east"), not listed among alternatives ("even or odd")."""
    if text_answer is None:
        return []
    words = r"[\s-]+".join(map(re.escape, text_answer.split()))
    spans = []
    for match in re.finditer(
        rf"(?<![\w\\])(?:\\text(?:bf)?\s*\{{\s*)?{words}(?:\s*\}})?(?!\w)", feedback, re.IGNORECASE
    ):
        before = feedback[max(0, match.start() - _CONTEXT_CHARS) : match.start()].lower()
        after = feedback[match.end() : match.end() + _CONTEXT_CHARS].lower()
        if given and _ALTERNATIVE_AFTER.match(after):
            continue  # "even or odd", "east, west"
        before = _FILLER_BEFORE.sub("", before)  # "is an ellipse", "facing due east"
        view = before + match.group() + after  # the text as `_stated_as_result` reads it, without the filler
        if (
            not given
            or _stated_as_result(view, len(before), len(before) + len(match.group()), given=True)
            or _CHOICE_CUE_BEFORE.search(before)
            or _TEXT_CUE_BEFORE.search(before)
            or _SUPERLATIVE_AFTER.match(after)
            or _CONTRAST_AFTER.match(after)
            or _EXPECTED_HEADER.search(_column_header(feedback, match.start()))
        ):
            spans.append(match.span())
    return spans


def _column_header(text: str, position: int) -> str:
    """The header cell of the Markdown table column that holds `text[position]` (`_normalised` wrote each `|` as
    " : "), or "" outside a table: "| Yours | Expected |" over "| odd | even |" heads "even" with "Expected"."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if not _TABLE_LINE.match(line):
        return ""
    header_start = line_start
    while header_start > 0:  # up the table's lines to its first, the header
        previous_start = text.rfind("\n", 0, header_start - 1) + 1
        if not _TABLE_LINE.match(text, previous_start, header_start - 1):
            break
        header_start = previous_start
    header_end = text.find("\n", header_start)
    cells = text[header_start : len(text) if header_end < 0 else header_end].split(" : ")
    column = text.count(" : ", line_start, position)
    return cells[column] if column < len(cells) else ""


def _collection_spans(feedback: str, reference: _Reference, given: bool) -> list[tuple[int, int]]:
    """Collections stated in other shapes than one expression: a prose list of values ("3, 5 and 7", "x = 15 and
    y = -29", "1 + √19 or 1 - √19"), a matrix or vector environment, angle brackets."""
    if reference.collection is None:
        return []
    candidates = [match.span() for match in _MATRIX.finditer(feedback)]
    candidates += [match.span() for match in _ANGLE_BRACKETED.finditer(feedback)]
    if reference.collection.kind == "matrix" or reference.collection.vector:
        candidates += [match.span() for match in _MATRIX_ROWS.finditer(feedback)]
    runs = _math_runs(feedback)
    group, labelled, lists = runs[:1], [], set()
    for run in [*runs[1:], None]:
        separator = None if run is None else _LIST_SEPARATOR.fullmatch(feedback, group[-1][1], run[0])
        if separator:
            group.append(run)
            labelled.append(bool(separator.group("label")))
            continue
        # the list, and, where only some items are labelled, the lists the labels part: "-18, -49 and 96, got
        # (-118, -49, 96)" holds "-18, -49 and 96"
        cuts = [0, *(index + 1 for index, label in enumerate(labelled) if label), len(group)]
        parts = [(0, len(group))] + ([] if all(labelled) else list(itertools.pairwise(cuts)))
        for first, stop in parts:
            if stop - first > 1:
                # its end trimmed: "1, 2 and 3 (you had ...)"; its start kept: "**Answer:** 1, 2" is no product
                lists.add((group[first][0], _trim(feedback, group[first][0], group[stop - 1][1])[1]))
        group, labelled = [run], []
    candidates += lists
    candidates += [match.span() for match in _INTERVAL_WORDS.finditer(feedback)]
    spans = []
    for start, end in candidates:
        if end - start > 4 * MAX_CANDIDATE_LENGTH or not _is_whole_value(feedback, start, end):
            continue
        if given and not _stated_as_result(feedback, start, end, given):
            continue
        text = feedback[start:end]
        interval_words = _INTERVAL_WORDS.fullmatch(text)
        if interval_words:
            low, high = _value(interval_words.group("low")), _value(interval_words.group("high"))
            kind = (interval_words.group("kind") or "").lower()
            brackets = {"inclusive": "[]", "exclusive": "()"}.get(kind, "")
            collection = None if low is None or high is None else _Collection("bracketed", (low, high), brackets)
        elif (start, end) not in lists:
            collection = _collection(text)
        else:
            pieces = [
                (max(run_start, start), min(run_end, end))
                for run_start, run_end in runs
                if run_start < end and start < run_end
            ]
            joins = [feedback[first[1] : second[0]] for first, second in itertools.pairwise(pieces)]
            texts = [feedback[piece_start:piece_end].strip("$") for piece_start, piece_end in pieces]
            if reference.collection.kind == "matrix":
                collection = _rows(texts, joins)
            else:
                collection = _list_or_union(texts, [join.lower().split() for join in joins])
        if collection is not None and _same_collection(collection, reference.collection):
            spans.append((start, end))
    return spans


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
        pieces = [_intersection(group) for group in groups]
        if None in pieces:
            return None
        if len(pieces) == 1:
            return pieces[0]
        return _Collection("union", tuple(sorted((piece.items, piece.brackets) for piece in pieces)))
    items = [_items(text) for text in texts]
    return None if None in items else _Collection("list", tuple(itertools.chain(*items)))


def _rows(texts: list[str], joins: list[str]) -> "_Collection | None":
    """Items listed in prose as the rows of a matrix: each a bracketed tuple ("rows (-1, 0) and (0, -1)"), or runs of
    values whose rows a semicolon ends ("first row -1, 0; second row 0, -1")."""
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
            if ";" in join:
                rows.append(row)
                row = []
    if len(rows) < 2 or len({len(row) for row in rows}) != 1:
        return None
    return _matrix_or_vector(rows)


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


def _decimal_comma_spans(feedback: str, reference: _Reference, given: bool) -> list[tuple[int, int]]:
    """A decimal comma ("4,5" for 4.5), read only for a reference that is no whole number: "4,5" is as often two
    numbers."""
    if not isinstance(reference.value, Fraction) or reference.value.denominator == 1:
        return []
    return [
        match.span()
        for match in _DECIMAL_COMMA.finditer(feedback)
        if Fraction(match.group().replace(",", ".")) == abs(reference.value)
        and _is_whole_value(feedback, *match.span())
        and (not given or _stated_as_result(feedback, *match.span(), given=True))
    ]


def _half_line_spans(feedback: str, reference: _Reference, given: bool) -> list[tuple[int, int]]:
    r"""Inequalities that state a half-line reference: "x ≤ 0" for `(-\infty, 0]`, "x > 2" for `(2, \infty)`."""
    if reference.half_line is None:
        return []
    direction, bound = reference.half_line
    spans = []
    for match in _INEQUALITY.finditer(feedback):
        operator = _INEQUALITY_OPERATORS[match.group("operator").lower()]
        value = _value(match.group("bound"))
        if operator == direction and value is not None and _close(value, bound):
            if not given or _stated_as_result(feedback, *match.span(), given=True):
                spans.append(match.span())
    return spans


def _reference_texts(reference: Any) -> list[str]:
    if reference is None:
        return []
    if isinstance(reference, (list, tuple, set, frozenset)):
        return list(dict.fromkeys(text for item in reference for text in _reference_texts(item)))
    if isinstance(reference, numbers.Integral) and not isinstance(reference, bool):
        text = str(int(reference))
    elif isinstance(reference, numbers.Rational):
        text = f"{reference.numerator}/{reference.denominator}"
    elif isinstance(reference, numbers.Real) and float(reference).is_integer():
        text = str(int(reference))  # 27.0 -> "27"
    elif isinstance(reference, numbers.Real):
        text = repr(float(reference))
    else:
        text = str(reference)
    if not text.strip():
        return []
    answer = final_answer(text.strip())
    if answer is None:
        warn_once(
            "A reference answer yields no final answer (a worked solution without \\boxed{} that math-verify cannot "
            "parse); the answer-leak guard checks nothing for it. Put the final answer in feedback_reference_column."
        )
    return [] if answer is None else [answer]


@lru_cache(maxsize=1024)
def final_answer(reference: str) -> str | None:
    r"""The final answer a reference states: the reference itself when it is a bare answer; for a worked solution
    (several lines, a `\boxed{}`, a `####` marker or a run of words), its last `\boxed{}`, else the answer
    math-verify extracts from it; `None` when it yields none."""
    if not looks_like_worked_solution(reference):
        return reference
    spans = boxed_spans(reference)
    if spans:
        return spans[-1][2].strip() or None
    parsed = parse(reference, parsing_timeout=math_verify_timeout())  # [expression, the text it was read from]
    answer = str(parsed[1]).strip() if len(parsed) > 1 else ""
    return answer or None


@lru_cache(maxsize=1024)
def _reference(text: str) -> _Reference:
    sides, _ = _sides(text, 0, len(text))
    equation = _equation_values(text) if len(sides) == 2 else None
    solved = len(sides) == 2 and _LONE_VARIABLE.fullmatch(text[slice(*sides[0])]) is not None
    if equation is not None and not solved:
        return _Reference(text, None, _variables(text), False, equation=equation)
    if _whole_equation(text, sides) and not solved:
        return _Reference(text, None, _variables(text), False, whole_equation=True)
    if not (solved and _variables(text[slice(*sides[-1])])):
        equation = None  # `x = 5` is its value; `y = 2x + 3` its right side (as math-verify compares) or the line
    answer = text[slice(*sides[-1])] if sides else text  # "x = 5": the right-hand side, as math-verify compares
    value = _value(answer)
    base = _BASE_NUMBER.fullmatch(answer.strip())
    if value is None:  # what only math-verify reads, such as 42^\circ, 42\% or \log_2 8
        gold = _gold(text)
        expression = gold[0] if gold else None
        if isinstance(expression, sympy.Equality):
            expression = expression.rhs
        if isinstance(expression, sympy.Expr) and expression.is_number and not _lost_variables(expression, answer):
            evaluated = expression.doit()
            if isinstance(evaluated, sympy.Rational):
                value = Fraction(int(evaluated.p), int(evaluated.q))
            elif evaluated.is_real:
                value = float(evaluated.evalf())
    choice = _CHOICE.fullmatch(answer.strip())
    text_answer = _TEXT_ANSWER.fullmatch(answer.strip())
    return _Reference(
        text,
        value,
        _variables(answer),
        _is_collection(answer),
        choice=(choice.group(1) or choice.group(2)) if choice else None,
        half_line=_half_line(answer),
        collection=_collection(answer) if value is None else None,
        text_answer=None if choice or not text_answer else (text_answer.group(1) or text_answer.group(2)).strip(),
        equation=equation,
        digits=Fraction(base.group("digits"))
        if base and value is not None and base.group("digits").isdigit()
        else None,
        base=answer.strip() if base and value is not None else None,
        degrees=value is not None and _DEGREES.search(answer) is not None,
    )


def _whole_equation(text: str, sides: list[tuple[int, int]]) -> bool:
    """Whether `text`, with these `sides`, is an equation in variables whose right side is no answer by itself: zero
    (`y' + ry - rx(t) = 0`) or in variables (`m \\frac{dv}{dt} + bv = f`); `\\angle B = 30^\\circ` is its right side."""
    if len(sides) != 2 or not _variables(text[slice(*sides[0])]):
        return False
    right = text[slice(*sides[1])]
    return bool(_variables(right)) or _value(right) == 0


def _equation_sides(text: str) -> frozenset[str] | None:
    """The two sides of the equation `text`, each as `_compact` writes it (a prime as `'`), in either order: how an
    equation we do not evaluate is compared (`0 = y' + ry` states `y^{\\prime} + r y = 0`); `None` when it is none."""
    sides, _ = _sides(text, 0, len(text))
    if len(sides) != 2:
        return None
    return frozenset(_PRIME.sub("'", _compact(text[slice(*side)])) for side in sides)


_PRIME = re.compile(r"\^\s*\{\s*\\prime\s*\}|\^\s*\\prime(?![A-Za-z])|\\prime(?![A-Za-z])|′")


def _equation_values(text: str) -> tuple[float, float] | None:
    """The value of an equation's left side minus its right side at the two points; `None` when it is no equation
    in variables or either side is not plain arithmetic."""
    sides, _ = _sides(text, 0, len(text))
    if len(sides) != 2 or not _variables(text):
        return None
    differences = []
    for point in (0, 1):
        left, right = (_value(text[slice(*side)], point) for side in sides)
        if left is None or right is None:
            return None
        differences.append(float(left - right))
    return (differences[0], differences[1]) if any(differences) else None


def _states_equation(candidate: str, reference: _Reference) -> bool:
    """Whether `candidate` is an equation with the same solutions as the reference's: its difference of sides a
    multiple of the reference's (`10x - 14y + 22z + 8 = 0` for `5x - 7y + 11z + 4 = 0`)."""
    if len(candidate) > MAX_CANDIDATE_LENGTH or _variables(candidate) != _variables(reference.text):
        return False
    differences = _equation_values(candidate)
    if differences is None:
        return False
    (first, second), (reference_first, reference_second) = differences, reference.equation
    if not (first and reference_first):
        return False
    ratio = first / reference_first
    return abs(second - ratio * reference_second) <= _RELATIVE_TOLERANCE * max(1.0, abs(second))


# A line or plane named by its parameters: "slope 2 and y-intercept 3", "normal vector (5, -7, 11), constant term 4"
_PARAMETER = re.compile(
    r"\b(?P<name>slope|gradient|(?:y[ -]?)?intercept|normal(?:[ ]+vector)?|constant(?:[ ]+term)?)"
    r"(?:[ ]*(?:\bof\b|\bis\b|=|:|\bequal[ ]+to\b))*[ ]*"
    r"(?P<value>\([^()]{1,80}\)|<[^<>]{1,80}>|-?\d+(?:\.\d+)?(?:/\d+)?)",
    re.IGNORECASE,
)
_THROUGH_ORIGIN = re.compile(r"\b(?:through|passes[ ]+through|contains)[ ]+the[ ]+origin\b", re.IGNORECASE)
_COEFFICIENT = r"\d+(?:\.\d+)?(?:/\d+)?"
_LINEAR_SIDE = re.compile(rf"[+-]?(?:{_COEFFICIENT}[A-Za-z]?|[A-Za-z])(?:[+-](?:{_COEFFICIENT}[A-Za-z]?|[A-Za-z]))*")
_LINEAR_TERM = re.compile(rf"([+-]?)({_COEFFICIENT})?([A-Za-z])?")


@lru_cache(maxsize=256)
def _equation_parameters(text: str) -> dict[str, Fraction | tuple] | None:
    """The parameters that name a linear equation answer: a line's slope and intercept (`y = 2x + 3`: 2, 3), a
    plane's normal vector and constant term (`5x - 7y + 11z + 4 = 0`: (5, -7, 11), 4); `None` for other answers."""
    sides, _ = _sides(text, 0, len(text))
    if len(sides) != 2:
        return None
    coefficients: Counter = Counter()  # of the left side minus the right, by variable ("" for the constant)
    for sign, (start, end) in zip((1, -1), sides, strict=True):
        side = _FRACTION.sub(r"\1/\2", re.sub(r"\s+|\\cdot|\*", "", text[start:end]))  # `-\frac{1}{2}x`
        if not _LINEAR_SIDE.fullmatch(side):
            return None
        for term in _LINEAR_TERM.finditer(side):
            if term.group(2) or term.group(3):
                value = Fraction(term.group(2) or 1) * (-1 if term.group(1) == "-" else 1)
                coefficients[term.group(3) or ""] += sign * value
    variables = sorted(name for name in coefficients if name and coefficients[name])
    if len(variables) == 2 and "y" in variables and "x" in variables:
        return {"slope": -coefficients["x"] / coefficients["y"], "intercept": -coefficients[""] / coefficients["y"]}
    if len(variables) == 3:
        return {"normal": tuple(coefficients[name] for name in variables), "constant": coefficients[""]}
    return None


def _parameter_spans(feedback: str, reference: _Reference) -> list[tuple[int, int]]:
    """A line or plane answer named by all of its parameters ("slope 2 and y-intercept 3", "slope -2" and "through
    the origin" for `y = -2x`, "normal vector (5, -7, 11) and constant term 4"): the values that state them. One
    parameter alone is a part of the answer a critique may quote."""
    parameters = None if reference.equation is None else _equation_parameters(reference.text)
    if parameters is None:
        return []
    stated: dict[str, list[tuple[int, int]]] = {name: [] for name in parameters}
    for match in _PARAMETER.finditer(feedback):
        said = match.group("name").lower()
        name = next((key for key in ("intercept", "normal", "constant") if key in said), "slope")  # or "gradient"
        if name not in parameters:
            continue
        if name == "normal":
            collection = _collection(match.group("value"))
            equal = collection is not None and _proportional(collection.items, parameters["normal"])
        else:
            value = _value(match.group("value"))
            equal = value is not None and _close(value, parameters[name])
        if equal:
            stated[name].append(match.span("value"))
    for name in ("intercept", "constant"):
        if name in parameters and not parameters[name] and _THROUGH_ORIGIN.search(feedback):
            stated[name].append((0, 0))  # nothing to redact: the origin is no value
    if not all(stated.values()):
        return []
    return [span for spans in stated.values() for span in spans if span != (0, 0)]


def _proportional(items: tuple, reference_items: tuple) -> bool:
    """Whether two vectors are multiples of each other: a plane's normal up to a factor."""
    if len(items) != len(reference_items) or any(map(math.isinf, items)):
        return False
    pairs = [(item, reference) for item, reference in zip(items, reference_items, strict=True) if reference]
    if not pairs or any(not reference and item for item, reference in zip(items, reference_items, strict=True)):
        return False
    ratio = pairs[0][0] / pairs[0][1]
    return bool(ratio) and all(_close(item, ratio * reference) for item, reference in pairs)


def _half_line(answer: str) -> tuple[str, Fraction | float] | None:
    match = _HALF_LINE.fullmatch(answer.strip())
    if match is None:
        return None
    if match.group("upper"):
        bound, direction = _value(match.group("upper")), "<=" if match.group("close") == "]" else "<"
    else:
        bound, direction = _value(match.group("lower")), ">=" if match.group("open") == "[" else ">"
    return None if bound is None else (direction, bound)


@lru_cache(maxsize=1024)
def _gold(text: str) -> tuple:
    """math-verify's parse of a reference answer."""
    return tuple(parse(as_latex_answer(text), parsing_timeout=math_verify_timeout()))


def _leak_spans(
    feedback: str,
    reference: _Reference,
    given: bool = False,
    given_digits: bool = False,
    given_expressions: frozenset[str] = frozenset(),
) -> list[tuple[int, int]]:

    def quoted_only(start: int, end: int) -> bool:
        """Whether the value at `feedback[start:end]` may quote the problem (the value it states, or one of its
        expressions) and states no result there: "the $7$ red marbles"."""
        quotes = given or _compact(feedback[start:end]) in given_expressions
        return quotes and not _stated_as_result(feedback, start, end, given=True)

    spans = [(start, end) for start, end, content in boxed_spans(feedback) if _states(content, reference)]
    # In a math span or after "answer is", the last side of an equation is what is stated: `$x = \frac{2}{4}$`.
    contents = [_trim(feedback, *match.span(match.lastindex)) for match in _MATH_SPAN.finditer(feedback)]
    stated = [
        sides
        for content in contents
        if not quoted_only(*content)  # "$\omega^3 = 1$" quotes the problem's equation
        for sides in [_sides(feedback, *content)[0]]
        if sides and not quoted_only(*sides[-1])
    ]
    stated += [_sides(feedback, *match.span(1))[0] for match in _FINAL_ANSWER.finditer(feedback)]
    spans += [sides[-1] for sides in stated if sides and _states(feedback[slice(*sides[-1])], reference)]
    if reference.whole_equation:  # a math span holding the whole equation: its words (`ry`) break a math run
        spans += [content for content in contents if _states(feedback[slice(*content)], reference)]
    if len(reference.text) >= MIN_VERBATIM_LEAK_LENGTH:
        spans += [
            match.span()
            for match in re.finditer(re.escape(reference.text), feedback)
            if _is_whole_value(feedback, *match.span()) and not quoted_only(*match.span())
        ]
    for run_start, run_end in _math_runs(feedback):
        sides, is_equation = _sides(feedback, run_start, run_end)
        if (reference.equation is not None and reference.value is None) or reference.whole_equation:
            # the whole equation states it, no side
            whole = _trim(feedback, run_start, run_end)
            if is_equation and _states(feedback[slice(*whole)], reference):
                spans.append(whole)
            continue
        stated_before = len(spans)
        # a quote of the problem's own equation (`\omega^3 = 1`) states its sides only as a result
        quoted_equation = is_equation and _compact(feedback[run_start:run_end]) in given_expressions
        for start, end in sides:
            if any(old_start <= start and end <= old_end for old_start, old_end in spans):
                continue
            text = feedback[start:end]
            if not (reference.variables or re.search(r"[\d\\π]|pi", text)):
                continue  # a lone variable
            if _GLUED_BEFORE.match(feedback, max(0, start - 1), start) or _GLUED_AFTER.match(feedback, end):
                continue  # the end of a word or a part of a value the run stops in: `\frac{14}{3}x here`
            if reference.digits is not None and (_BASE_NUMBER.search(text) or _value(text) == reference.digits):
                side_given = given_digits  # `52_8` or `52` for the reference `52_8`
            else:
                side_given = given
            side_given = side_given or _compact(text) in given_expressions  # a quote of the problem's expression
            if quoted_equation and not _stated_as_result(feedback, run_start, run_end, given=True):
                continue  # its own `=` is no result cue
            if not is_equation and not _stated_as_result(feedback, start, end, side_given):
                continue
            if _states(text, reference, approximate=_marked_as_approximation(feedback, start, end)):
                spans.append((start, end))
            elif (
                reference.degrees
                and (_RADIANS_AFTER.match(feedback, end) or _PI.search(text))
                and _in_degrees(text, reference)
            ):  # "pi/6 radians", `\frac{\pi}{6}`: the angle in radians
                spans.append((start, end))
            elif (_DEGREES_AFTER.match(feedback, end) or text.endswith("°")) and _in_radians(text, reference):
                spans.append((start, end))
        if reference.equation is not None and is_equation and len(spans) == stated_before:
            whole = _trim(feedback, run_start, run_end)  # a line rearranged: `2x - y + 3 = 0` for `y = 2x + 3`
            if _states_equation(feedback[slice(*whole)], reference):
                spans.append(whole)
    return spans


def _in_degrees(candidate: str, reference: _Reference) -> bool:
    """Whether `candidate`, an angle in radians, is the reference's angle in degrees: `\\frac{\\pi}{6}` for `30^\\circ`."""
    value = _value(candidate)
    return value is not None and not _variables(candidate) and _close(float(value) * 180 / math.pi, reference.value)


def _in_radians(candidate: str, reference: _Reference) -> bool:
    """Whether `candidate`, an angle in degrees, is a reference in radians (a multiple of pi): 180 for `\\pi`, -30 for
    `-\\frac{\\pi}{6}`."""
    if reference.value is None or reference.variables or not _PI.search(reference.text):
        return False
    value = _value(candidate)
    return value is not None and not _variables(candidate) and _close(float(value) * math.pi / 180, reference.value)


def _is_whole_value(text: str, start: int, end: int) -> bool:
    r"""Whether `text[start:end]` is a whole value, not a part of a larger one: `\frac{11}{2}` of `-\frac{11}{2}`,
    `90^\circ` of `190^\circ` or `58,500` of `58,5000` is another value, and redacting it would tell the policy how
    its attempt relates to the answer."""
    window = max(0, start - _CONTEXT_CHARS)  # `$` anchors at `start`: a search from 0 would read the whole prefix
    part_of_value_before = _PART_OF_VALUE_BEFORE.search(text, window, start) and not _BULLET_BEFORE.search(
        text, window, start
    )  # "- 3" opening a line is a bullet, no minus sign
    return not (part_of_value_before or _PART_OF_VALUE_AFTER.match(text, end))


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
                last_kind == "operator" or (last_kind == "number" and (end == position or match.group() == "i"))
            )
            is_math = joined or not (english_word_ahead and english_word_ahead.group(1).lower() not in _MATH_WORDS)
        elif kind == "word":
            is_math = match.group().lower() in _MATH_WORDS
        elif kind == "operator" and start is None and match.group() in "-−*" and text[stop : stop + 1].isspace():
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


def _sides(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], bool]:
    """The trimmed sides of the `=` (or `\\in`) chain in `text[start:end]`, and whether it had one (`<=` is none)."""
    pieces, piece_start, depth = [], start, 0
    for match in _SIDE_SEPARATOR_OR_BRACKET.finditer(text, start, end):
        bracket = match.group()
        depth += 1 if bracket in "([{" else -1 if bracket in ")]}" and depth else 0
        if bracket not in "([{)]}" and depth == 0:
            pieces.append((piece_start, match.start()))
            piece_start = match.end()
    pieces.append((piece_start, end))
    sides = [_trim(text, piece_start, piece_end) for piece_start, piece_end in pieces]
    return [(side_start, side_end) for side_start, side_end in sides if side_start < side_end], len(pieces) > 1


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop spaces, dangling operators (`42-` of "42-gon", the `**` of Markdown bold) and unmatched brackets."""
    while start < end:
        unmatched = _unmatched_brackets(text[start:end])
        if text[end - 1] in _TRAILING_JUNK or (text[end - 1] in "([{" and unmatched > 0):
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


_ARTICLE_AT_END = re.compile(r"\bthe\s+$")
# A value a step works with, the subject of "... was right": "Dividing by 4 was right", "Using 4 is correct", "Your
# setup with 4 is right"
_OPERAND_OF_A_STEP = re.compile(
    r"(?:\b[a-z]{2,}ing(?:\s+(?:by|from|with|to|into|on|in|of|at))?|\b(?:with|by|from|into))[\s$*(]*$"
)


def _stated_as_result(text: str, start: int, end: int, given: bool) -> bool:
    """Whether a standalone number or expression at `text[start:end]` would state the answer if it equals it: always,
    unless it numbers a step or a list item, when the problem does not state the value (`given`); else only with a
    result cue or in an instruction."""
    before = ("\n" if start <= _CONTEXT_CHARS else "") + text[max(0, start - _CONTEXT_CHARS) : start].lower()
    if text.startswith("√", start):
        before = _ARTICLE_AT_END.sub("", before)  # "is the square root of 53": the article is the root's
    after = text[end : end + _CONTEXT_CHARS].lower()
    if _RESULT_CUE_BEFORE.search(before):
        return True
    if _RESULT_CUE_AFTER.match(after) and not _OPERAND_OF_A_STEP.search(before):
        return True
    if _INSTRUCTION_BEFORE.search(before) and _INSTRUCTION_AFTER.match(after):
        return True
    if start in _list_markers(text) or _ENUMERATION_BEFORE.search(before):
        return False
    return not given


@lru_cache(maxsize=64)
def _list_markers(text: str) -> frozenset[int]:
    """The starts of the list markers of `text`: a number in a marker's place is one only when the number before or
    after it marks another item ("1. ... 2. ..."), or a 1 that opens a line or a list of steps ("Fix steps: 1.
    Expand."); alone, it is a value ("Final: 204. Now verify it.")."""
    markers = [
        (match.start("number") if match.group("number") else match.start() + match.group().index("("), int(number))
        for match in _LIST_MARKER.finditer(text)
        for number in [match.group("number") or match.group("parenthesised")]
    ]
    numbers = Counter(number for _, number in markers)
    return frozenset(
        start
        for start, number in markers
        if numbers[number - 1]
        or numbers[number + 1]
        or (number == 1 and _LIST_OPENING.search(text, max(0, start - _CONTEXT_CHARS), start))
    )


def _states(candidate: str, reference: _Reference, approximate: bool = False) -> bool:
    """Whether `candidate`, an expression or an equation (its last side counts, as in math-verify), equals the reference
    (or, when it is `approximate`, rounds it: see `_approximates`)."""
    if reference.equation is not None and reference.value is None:
        return _states_equation(candidate, reference)
    if reference.whole_equation:
        return len(candidate) <= MAX_CANDIDATE_LENGTH and _equation_sides(candidate) == _equation_sides(reference.text)
    sides, _ = _sides(candidate, 0, len(candidate))
    if not sides:
        return False
    candidate = candidate[slice(*sides[-1])]
    if len(candidate) > MAX_CANDIDATE_LENGTH:
        return False
    if reference.collection is not None and reference.collection.vector:
        components = _unit_vector_components(candidate, len(reference.collection.items))
        if components is not None:
            return _same_items(components, reference.collection.items)
    value = _value(candidate)
    if value is not None:  # a number, or an expression in variables we evaluate: the reference must evaluate alike
        return (
            reference.value is not None
            and _variables(candidate) == reference.variables
            and (
                any(_close(equal, reference.value) for equal in _percent_readings(value, candidate, reference))
                or (value == reference.digits and not _BASE_NUMBER.search(candidate))  # `40_{10}` is not `40_9`
                or _approximates(candidate, reference, approximate)
            )
        )
    if reference.collection is not None or reference.value is not None:
        collection = _collection(candidate)
        if collection is not None:  # read item by item: no math-verify needed
            return reference.collection is not None and _same_collection(collection, reference.collection)
    if (
        _is_collection(candidate) != reference.is_collection
        or _variables(candidate) != reference.variables
        or _unmatched_brackets(candidate)
        or _COSTLY_TO_PARSE.search(candidate)
        or _DIGIT_UNDERSCORE.search(candidate)  # a base we do not read (`52_80`): math-verify reads it as it likes
    ):
        return False
    budget = _MATH_VERIFY_BUDGET.get()
    if budget is None or (candidate, reference.text) in budget.checked:
        return _math_verify_equal(candidate, reference.text)
    if len(budget.checked) >= MAX_MATH_VERIFY_CHECKS or budget.seconds >= MAX_MATH_VERIFY_SECONDS:
        budget.skipped += 1
        return False
    budget.checked.add((candidate, reference.text))
    start = time.perf_counter()
    try:
        return _math_verify_equal(candidate, reference.text)
    finally:
        budget.seconds += time.perf_counter() - start


@dataclass
class _Budget:
    """The math-verify comparisons one call of `redact_answer_leak` has made, and those it skipped."""

    checked: set = field(default_factory=set)
    seconds: float = 0.0
    skipped: int = 0


# None outside a call's check of the feedback: `_given` reads a problem once and caches what it finds.
_MATH_VERIFY_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "math_verify_budget", default=None
)


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


_INFINITE = re.compile(rf"([-+]?)\s*{_INFINITY}")
_COLLECTION_NOISE = re.compile(r"\\(?:left|right|big|Big|bigl|bigr)(?![A-Za-z])|\\[!,;:]|\\q?quad(?![A-Za-z])")
_ELEMENT_OF = re.compile(r"^\s*[A-Za-z]\s*(?:\\in(?![A-Za-z])|∈)\s*")
_MATRIX = re.compile(
    r"\\begin\s*\{\s*([pbBvV]?matrix|array)\s*\}(?:\s*\{[^{}]*\})?(?P<body>.*?)\\end\s*\{\s*\1\s*\}", re.DOTALL
)
_ANGLE_BRACKETS = re.compile(r"^(?:\\langle|<)(?P<body>.*)(?:\\rangle|>)$", re.DOTALL)
_SET_BRACES = re.compile(r"^\\\{(?P<body>.*)\\\}$", re.DOTALL)
_SET_BUILDER = re.compile(r"(?:\\\{|\{)\s*[A-Za-z]\s*(?:\||:|\\mid(?![A-Za-z]))\s*(?P<condition>.+?)\s*(?:\\\}|\})")
# A factor before a vector or matrix: "(1/3)(-1, 2, 5)", `\frac{1}{49}\begin{pmatrix}...`, `2 \cdot [1, 3]`
_SCALAR_FACTOR = re.compile(
    r"(?P<factor>\([^()]{1,20}\)|\\[dt]?frac\s*\{[^{}]{1,20}\}\s*\{[^{}]{1,20}\}|-?\d+(?:\.\d+)?(?:/\d+)?)"
    r"\s*(?:\\cdot|\*)?\s*(?P<collection>(?:\(|\[|\\begin|\\langle).*)",
    re.DOTALL,
)
_OR = re.compile(r"\\text\s*\{\s*or\s*\}|\bor\b")  # "{x | x < 2 \text{ or } x > 3}"
_PLAIN_BRACES = re.compile(r"^\{(?P<body>[^{}]*)\}$")  # "{1, -2}": a list in the order written
# A matrix in rows: "-1 0; 0 -1", "[1, 2; 3, 4]", "[-2; -14; -7]" (a column)
_ROW_NUMBER = r"-?\d+(?:\.\d+)?(?:/\d+)?"
_ROW = rf"{_ROW_NUMBER}(?:(?:[ \t]*,[ \t]*|[ \t]+){_ROW_NUMBER}){{0,15}}"  # bounded: a scan stays linear
_MATRIX_ROWS = re.compile(
    rf"(?<![\w.,;/-])(?:[\[(][ \t]*)?{_ROW}(?:[ \t]*;[ \t]*{_ROW}){{1,15}}(?:[ \t]*[\])])?(?!\w|[.,/]\d|[ \t]*;[ \t]*-?\d)"
)
_ROW_CELL_SEPARATOR = re.compile(r"[ \t]*,[ \t]*|[ \t]+")
_PLUS_MINUS = re.compile(r"\\pm(?![A-Za-z])|\\mp(?![A-Za-z])")
_UNION = re.compile(r"\\cup(?![A-Za-z])|∪")
_MAX_ITEMS = 16
_TRANSPOSE = re.compile(r"(?<=[)\]])\s*\^\s*(?:\{\s*(?:T|\\top|\\intercal)\s*\}|T|\\top|\\intercal)$")
_NUMBER_OR_ROOT = r"-?\s*(?:\d*\s*√\s*\d+|\d+(?:\.\d+)?(?:/\d+)?)"
_ANGLE_BRACKETED = re.compile(r"\\langle(?:(?!\\rangle).){1,200}\\rangle|<(?=[^<>\n]*,)[^<>\n]{1,200}>")
_HALF_LINE_INEQUALITY = re.compile(
    r"[A-Za-z]\s*(?P<operator>"
    + "|".join(re.escape(operator) for operator in sorted(_INEQUALITY_OPERATORS, key=len, reverse=True))
    + r")(?![A-Za-z])\s*(?P<bound>[^<>≤≥=]+)"
)
# An interval in words, its brackets unsaid unless "inclusive" or "exclusive" follows: "from -2 to 7"
_INTERVAL_WORDS = re.compile(
    rf"\b(?:from|between)[ ]+(?P<low>{_NUMBER_OR_ROOT})[ ]+(?:to|and)[ ]+(?P<high>{_NUMBER_OR_ROOT})"
    r"(?:[ ]*,?[ ]*(?P<kind>inclusive|exclusive))?",
    re.IGNORECASE,
)
# Between two items of a list: a comma, "and", "or" (a semicolon between rows), the math delimiters that close one
# item and open the next (`$p = 6$, $q = 31$`), and up to two words that label the next item ("x-component -2,
# y-component -14", "r = 3 and theta = pi/2", "first row -1, 0; second row 0, -1"); or the next line's bullet
# ("- 3\n- 5\n- 7")
_LIST_SEPARATOR = re.compile(
    r"[ \t]*(?:\$|\\[()])?[ \t]*"
    r"(?:[,;][ \t]*(?:(?:and|or|but)[ \t]+)?|(?:and|or|but)[ \t]+|\\text\s*\{\s*(?:and|or)\s*\}[ \t]*"
    r"|[,;]?[ \t]*\n[ \t]*[-*•][ \t]+)"
    r"(?P<label>(?:(?:[A-Za-z][A-Za-z']{0,15}|\d+(?:st|nd|rd|th))[ \t]+){0,2})(?:\$|\\[()])?[ \t]*",
    re.IGNORECASE,
)
_INEQUALITY_CHAIN = re.compile(
    r"(?P<low>[^<>≤≥]+?)\s*(?P<first><=|<|≤|\\leq?(?![A-Za-z])|\\lt(?![A-Za-z]))\s*[A-Za-z]\s*"
    r"(?P<second><=|<|≤|\\leq?(?![A-Za-z])|\\lt(?![A-Za-z]))\s*(?P<high>[^<>≤≥]+)"
)


@lru_cache(maxsize=4096)
def _collection(text: str) -> _Collection | None:
    """`text` read as a collection of values, or `None` when it is none (one value, an item we cannot evaluate,
    more than `_MAX_ITEMS` items)."""
    text = _ELEMENT_OF.sub("", _COLLECTION_NOISE.sub(" ", text)).strip().rstrip(".")
    text = _TRANSPOSE.sub("", text)  # a vector as a transposed row: `(1, 2, 3)^T`
    set_builder = _SET_BUILDER.fullmatch(text)
    if set_builder:  # {x | 3 < x <= 4}: the interval its condition states, or the union of its conditions
        conditions = _OR.split(set_builder.group("condition"))
        if len(conditions) > 1:
            return _list_or_union(conditions, [["or"]] * (len(conditions) - 1))
        return _collection(conditions[0])
    if len(text) > 4 * MAX_CANDIDATE_LENGTH:
        return None
    if _UNION.search(text):
        parts = [_collection(part) for part in _UNION.split(text)]
        if all(part is not None and part.kind == "bracketed" and len(part.items) == 2 for part in parts):
            return _Collection("union", tuple(sorted((part.items, part.brackets) for part in parts)))
        return None
    half_line = _HALF_LINE_INEQUALITY.fullmatch(text)
    if half_line:  # x <= 0: the half-line (-\infty, 0]
        bound, operator = _value(half_line.group("bound")), _INEQUALITY_OPERATORS[half_line.group("operator")]
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
        return _scaled_collection(_value(scaled.group("factor")), _collection(scaled.group("collection")))
    matrix = _MATRIX.fullmatch(text)
    if matrix:
        rows = [row.split("&") for row in re.split(r"\\\\", matrix.group("body")) if row.strip()]
        values = [[_value(cell) for cell in row] for row in rows]
        if not rows or any(value is None for row in values for value in row) or len({len(row) for row in rows}) != 1:
            return None
        return _matrix_or_vector(values)  # a vector is written as a tuple too
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
        brackets = text[0] + text[-1]
        return _Collection("bracketed", items, brackets)
    if "," in _THOUSANDS_SEPARATOR.sub("", text) or _PLUS_MINUS.search(text):
        items = _items(text)
        return None if items is None or len(items) < 2 else _Collection("set", _sorted(items))
    return None


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
    with the same brackets (an open interval and a point look alike; a vector, or a pair whose first value is not
    below its second and so is no interval, may be a tuple in any brackets: `[8, -2]` states `(8,-2)`)."""
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
            brackets == reference_brackets and _same_items(items, reference_items)
            for (items, brackets), (reference_items, reference_brackets) in zip(
                candidate.items, reference.items, strict=False
            )
        )
    if candidate.kind == "bracketed" and candidate.brackets and candidate.brackets != reference.brackets:
        if not (
            (reference.vector or len(reference.items) > 2 or not _increasing(reference.items))
            and {candidate.brackets, reference.brackets} <= {"()", "[]"}
        ):
            return False
    return _same_items(candidate.items, reference.items)


def _increasing(items: tuple) -> bool:
    """Whether `items` could be an interval's ends: each below the next."""
    return all(first < second for first, second in itertools.pairwise(items))


def _same_items(items: tuple, reference_items: tuple) -> bool:
    return len(items) == len(reference_items) and all(
        item == reference_item if math.isinf(item) or math.isinf(reference_item) else _close(item, reference_item)
        for item, reference_item in zip(items, reference_items, strict=True)
    )


def _percent_readings(value: Fraction | float, candidate: str, reference: _Reference) -> list:
    """A percent is a hundredth, and the number before its sign: "35%" states 0.35 and, for a question in percent
    whose answer is 35, 35; "35" states the reference `35\\%`."""
    readings = [value]
    if _PERCENT.search(candidate):
        readings.append(value * 100)
    if _PERCENT.search(reference.text) and not _PERCENT.search(candidate):
        readings.append(value / 100)
    return readings


def _approximates(candidate: str, reference: _Reference, marked: bool = False) -> bool:
    """Whether `candidate` is a decimal approximation, to at least `MIN_APPROXIMATION_DIGITS` significant digits, of
    an irrational reference (4.472 or 4.4721 for `2\\sqrt{5}`, 3.14 for `\\pi`): rounded or cut at its last digit.
    A rational reference is stated exactly, or approximately only where the decimal is `marked` as an approximation
    ("about 4.667", "4.667...", "4.67 (rounded)" for 14/3) and the reference's decimal does not end: a wrong attempt's
    0.333 is no statement of 1/3. A marked whole number approximates too ("≈ 905" for `288\\pi`)."""
    if reference.variables or reference.value is None:
        return False
    if isinstance(reference.value, Fraction):
        if not marked or _decimal_ends(reference.value):
            return False
    elif not isinstance(reference.value, float):
        return False
    decimal = _DECIMAL.fullmatch(candidate.strip()) or (marked and _WHOLE.fullmatch(candidate.strip()))
    if not decimal:
        return False
    if len(decimal.group("digits").replace(".", "").lstrip("0")) < MIN_APPROXIMATION_DIGITS:
        return False
    places = len(decimal.group("digits").split(".")[1]) if "." in decimal.group("digits") else 0
    value, scale = Fraction(candidate.strip()), 10**places
    exact = Fraction(reference.value)
    return value in (Fraction(round(exact * scale), scale), Fraction(math.trunc(exact * scale), scale))


def _decimal_ends(value: Fraction) -> bool:
    """Whether the decimal of `value` ends (its denominator has no prime factor but 2 and 5): 1/8 is 0.125."""
    denominator = value.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    return denominator == 1


def _marked_as_approximation(text: str, start: int, end: int) -> bool:
    """Whether the number at `text[start:end]` is marked as an approximation: "about 4.667", "≈ 4.667", "4.667...",
    "4.67 (rounded)"."""
    window = max(0, start - _CONTEXT_CHARS)
    return bool(_APPROXIMATION_BEFORE.search(text.lower(), window, start) or _APPROXIMATION_AFTER.match(text, end))


def _close(value: Fraction | float, reference: Fraction | float) -> bool:
    if isinstance(value, Fraction) and isinstance(reference, Fraction):
        return value == reference
    return abs(value - reference) <= _RELATIVE_TOLERANCE * max(1.0, abs(reference))


def _variables(text: str) -> frozenset[str]:
    return frozenset(_VARIABLE.findall(_NOT_A_VARIABLE.sub(" ", _TEXT_GROUP.sub(" ", _UNIT.sub("", text)))))


def _is_collection(text: str) -> bool:
    return "," in _THOUSANDS_SEPARATOR.sub("", text)


@lru_cache(maxsize=4096)
def _math_verify_equal(candidate: str, reference_text: str) -> bool:
    timeout = math_verify_timeout()
    gold = list(_gold(reference_text))
    parsed = parse(as_latex_answer(candidate), parsing_timeout=timeout) or parse(
        f"${candidate}$", parsing_timeout=timeout
    )
    if not gold or not parsed or _numerically_apart(gold[0], parsed[0]):
        return False
    if _lost_variables(gold[0], reference_text) or _lost_variables(parsed[0], candidate):
        return False
    return verify(gold, parsed, timeout_seconds=timeout)


def _lost_variables(parsed: Any, text: str) -> bool:
    """Whether math-verify read `text`, which has variables, as a real number: a fragment of it
    (`\\hbar \\omega(v+1 / 2)-\\frac{E_{0}^{2} e^{2}}{2 m \\omega^{2}}` as 2), which states nothing of it. Euler's `e`
    and the imaginary `i` are numbers to math-verify."""
    return (
        isinstance(parsed, sympy.Expr)
        and parsed.is_number
        and parsed.is_real is True
        and bool(_variables(text) - {"e", "i"})
    )


def _numerically_apart(gold: Any, target: Any) -> bool:
    """Two numbers far apart: a test in microseconds that spares math-verify's `verify` (10-20 ms a call)."""
    gold, target = (x.rhs if isinstance(x, sympy.Equality) else x for x in (gold, target))
    if not all(isinstance(x, sympy.Expr) and x.is_number for x in (gold, target)):
        return False
    try:
        gold_value, target_value = complex(gold.evalf()), complex(target.evalf())
    except (TypeError, ValueError, OverflowError):
        return False
    return abs(gold_value - target_value) > 1e-6 * max(1.0, abs(gold_value))


def _value(expression: str, point: int = 0) -> Fraction | float | None:
    """The value of `expression` (`6*7`, `-\\frac{3}{4}`, `2\\sqrt{3}`, `x^2+1` with x at its fixed value, at the
    second of two sets of fixed values with `point=1`), or `None` when it is not plain arithmetic in the spellings
    rewritten to Python (`\\log_2 8`, intervals). A unit after a number (`42^\\circ`, `5.4 \\text{ cents}`, `\\$36`) is
    dropped, a number with a base subscript (`52_8`) is read in its base, a whole number before a proper fraction
    (`1\\frac{4}{5}`, `137 1/2`) is a mixed number."""
    text = _PERCENT.sub("/100", _UNIT.sub("", expression))
    text = _BASE_NUMBER.sub(_in_base, text)
    if _DIGIT_UNDERSCORE.search(text):
        return None  # not a base we read; Python would read `52_80` as 5280
    text = _MIXED_SLASH.sub(_mixed_number, _MIXED_FRACTION.sub(_mixed_number, text))
    text = _LOG_IN_BASE.sub(lambda match: f"(\\ln({match.group(3)})/\\ln({match.group(1) or match.group(2)}))", text)
    text = _ROOT_SIGN.sub(lambda match: f"\\sqrt{{{match.group(1)}}}" if match.group(1) else "\\sqrt", text)
    text = _SCIENTIFIC.sub(r"*10**(\1)", _THOUSANDS_SEPARATOR.sub("", text))
    previous = None
    while text != previous:  # innermost fractions and roots first: `\frac{\sqrt{3}}{3}`
        previous, text = text, _FRACTION.sub(r"((\1)/(\2))", _BRACED_ROOT.sub(r"sqrt(\1)", text))
    text = _BRACELESS_FRACTION.sub(
        lambda match: "(({}{})/({}{}))".format(*(group or "" for group in match.groups())), text
    )
    text = _BRACELESS_ROOT.sub(r"\\sqrt{\1}", _NTH_ROOT.sub(r"((\2)**(1/(\1)))", text))
    for spelling, python in _PYTHON_SPELLINGS.items():
        text = text.replace(spelling, python)
    if "\\" in text or len(text) > 2 * MAX_CANDIDATE_LENGTH:
        return None
    text = _BARE_ARGUMENT.sub(r"\1(\2)", text)
    try:
        value = _evaluate(ast.parse(_IMPLICIT_PRODUCT.sub("*", text).strip(), mode="eval").body, point)
    except (SyntaxError, ValueError, TypeError, ArithmeticError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, Fraction) or (isinstance(value, float) and math.isfinite(value)) else None


def _evaluate(node: ast.AST, point: int = 0) -> Fraction | float | complex | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.Constant) and type(node.value) is float:  # from its shortest decimal: 0.1 is 1/10
        return Fraction(repr(node.value)) if math.isfinite(node.value) else None
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.Name) and node.id.isalpha() and node.id.lower() not in _MATH_WORDS:
        return math.prod(_variable_value(letter, point) for letter in node.id)  # "xy" is x times y
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        function, argument = _FUNCTIONS.get(node.func.id), _evaluate(node.args[0], point)
        return None if function is None or argument is None else function(argument)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _evaluate(node.operand, point)
        return None if operand is None else operand if isinstance(node.op, ast.UAdd) else -operand
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _evaluate(node.left, point), _evaluate(node.right, point)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return left + right
    if isinstance(node.op, ast.Sub):
        return left - right
    if isinstance(node.op, ast.Mult):
        return left * right
    if isinstance(node.op, ast.Div):
        return left / right
    if isinstance(node.op, ast.Pow) and isinstance(left, Fraction) and isinstance(right, Fraction):
        if right.denominator != 1:
            return float(left) ** float(right)
        bits = max(left.numerator.bit_length(), left.denominator.bit_length()) * abs(right.numerator)
        return left**right.numerator if bits <= _MAX_POWER_BITS else None
    if isinstance(node.op, ast.Pow):
        return float(left) ** float(right)
    return None


def _variable_value(letter: str, point: int = 0) -> float:
    """A fixed value for each variable, irrational and different for every letter (and for each of two points)."""
    return math.sqrt(2 + ord(letter) + 97 * point) / (3 + point)


def _in_base(match: re.Match) -> str:
    digits, base = match.group("digits"), int(match.group("base"))
    try:
        return str(int(digits, base)) if 2 <= base <= 36 else match.group()
    except ValueError:  # a digit the base does not have
        return match.group()


def _mixed_number(match: re.Match) -> str:
    whole, numerator, denominator = (int(group) for group in match.group("whole", "numerator", "denominator"))
    if not 0 < numerator < denominator:
        return match.group()  # `2\frac{6}{3}` is no mixed number: a product
    return f"({whole * denominator + numerator}/{denominator})"


def _without_lone_surrogates(text: str | None) -> str | None:
    """`text` with each lone surrogate (`_LONE_SURROGATE`) as U+FFFD, the replacement character (the same length);
    `None` stays `None`."""
    return None if text is None else _LONE_SURROGATE.sub("\ufffd", text)


def _replace_spans(text: str, spans: list[tuple[int, int]]) -> str:
    merged = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces, position = [], 0
    for start, end in merged:
        pieces += [text[position:start], REDACTED]
        position = end
    return "".join(pieces) + text[position:]


@dataclass(frozen=True)
class PreparedFeedback:
    text: str | None  # what is injected; None when nothing is left (the group is unresolved)
    leaked: bool  # whether the guard redacted anything


# A bound on the characters of `max_tokens` policy tokens: MATH-500's problems and solutions take 2.6 characters per
# SmolLM2 token on average, at most 5.6. The guard's cost grows with the text, so it checks only what can fit.
MAX_CHARS_PER_TOKEN = 8
# Redacting can lengthen the text past the token cap, and cutting it can end it on a new statement of the answer
# ("is 42" cut to "is 4"): cap and check again, a bounded number of times.
_PREPARE_PASSES = 3


def prepare_feedback(
    text: str,
    reference: Any,
    tokenizer,
    max_tokens: int,
    special_tokens: tuple[str, ...] = (),
    *,
    problem: str | None = None,
) -> PreparedFeedback:
    r"""A provider's feedback text made safe to inject (decisions 6 and 8): no statement of the reference answer, no
    schema tags, `\boxed` or special tokens, at most `max_tokens` policy tokens.

    The text is first cut to `max_tokens * MAX_CHARS_PER_TOKEN` characters, more than `max_tokens` tokens hold. The
    guard runs on that raw text (a `\boxed{}` is the plainest statement of the answer, and sanitising unwraps it),
    then on the final text, after sanitising (removing a special token can join "4" and "2" into "42") and capping. A
    guard that fails, or a `text` that is no str, leaves nothing (the group is unresolved) instead of stopping
    training. Lone surrogates in `text` and `problem` are read as U+FFFD.

    Args:
        text: The provider's feedback.
        reference: The reference answer (see `redact_answer_leak`); a worked solution is checked for its final answer.
        tokenizer: The policy tokenizer the cap counts in; `None` for no cap.
        max_tokens: The cap, in policy tokens.
        special_tokens: Strings removed from the text: every control token of the tokenizer (special and added
            tokens, `schema.control_tokens`).
        problem: The problem statement (see `redact_answer_leak`).
    """
    if not isinstance(text, str):
        warn_once(
            f"prepare_feedback got a feedback text of type {type(text).__name__}; the group is unresolved. Pass the "
            "provider's text as a str."
        )
        return PreparedFeedback(None, False)
    text, problem = _without_lone_surrogates(text), _without_lone_surrogates(problem)
    if tokenizer is not None:
        text = text[: max_tokens * MAX_CHARS_PER_TOKEN]
    try:
        text, leaked = redact_answer_leak(text, reference, problem=problem)
        for _ in range(_PREPARE_PASSES):
            text = sanitize_feedback(text, special_tokens)
            if tokenizer is not None:
                text = sanitize_feedback(truncate_to_tokens(text, tokenizer, max_tokens), special_tokens)
            text, leaked_again = redact_answer_leak(text, reference, problem=problem)
            leaked |= leaked_again
            if not leaked_again:
                return PreparedFeedback(text or None, leaked)
    except Exception as error:  # the guard must never stop training: the group becomes unresolved
        logger.warning("Answer-leak check failed, the group is unresolved: %s: %s", type(error).__name__, error)
        return PreparedFeedback(None, False)
    return PreparedFeedback(None, leaked)  # every cut ended on a statement of the answer
