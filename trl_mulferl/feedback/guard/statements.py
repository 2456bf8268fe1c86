"""Statement detection: which spans of a feedback text state the reference answer, by value, collection,
equation, choice letter, text answer or approximation, told apart from quotes, list markers and the problem's own
numbers by the cues around them.
"""

import dataclasses
import itertools
import math
import re
import time
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from ...core.schema import boxed_spans
from .collection import (
    _INEQUALITY_OPERATORS,
    _MATRIX,
    _REAL_LINE,
    _TRANSPOSE_MARK,
    _Collection,
    _collection,
    _is_collection,
    _list_or_union,
    _rows,
    _same_collection,
    _same_items,
    _union,
    _unit_vector_components,
    _without,
)
from .normalise import MAX_CANDIDATE_LENGTH
from .reference import _equation_parameters, _equation_sides, _equation_values, _Reference
from .text import _compact, _math_runs, _math_spans, _sides, _trim, _unmatched_brackets
from .values import (
    _BASE_NUMBER,
    _CONTEXT_CHARS,
    _DIGIT_UNDERSCORE,
    _MATH_VERIFY_BUDGET,
    _PERCENT,
    _RELATIVE_TOLERANCE,
    _UNIT,
    _UNIT_WORDS,
    _close,
    _decimal_ends,
    _is_whole_value,
    _marked_as_approximation,
    _math_verify_equal,
    _unit_size,
    _value,
    _variables,
)


# A reference answer this long is redacted wherever it appears verbatim; shorter ones ("4") would hit step numbers.
MIN_VERBATIM_LEAK_LENGTH = 5

# What only math-verify reads (`\\binom{5}{2}`, `\\log 8`) costs 10-400 ms a comparison: one call compares at most
# this many distinct expressions with it, for at most this long, which bounds a call within the character cap to
# under a second on one core. Expressions past the budget are not compared (a warning says so).
MAX_MATH_VERIFY_CHECKS = 8

MAX_MATH_VERIFY_SECONDS = 0.4

# A decimal with this many significant digits that rounds or cuts an irrational reference states it ("about 4.472").
MIN_APPROXIMATION_DIGITS = 3

# A program's or a calculator's float: a run of six or more 9s or 0s near its end, within `MACHINE_TOLERANCE` of the
# reference (relative), states it (`4.999999999` for 5, `0.38880000000000026` for 0.3888), where a wrong attempt's
# last digit off (`11111111101.0`) does not.
_FLOAT_NOISE = re.compile(r"\.\d*(?:9{6,}|0{6,})\d{0,2}$")

MACHINE_TOLERANCE = Fraction(1, 10**8)

# A double's shortest repr has up to 17 significant digits, the last ones not the value's own (`0.47368421052631576`
# for 9/19): a float this long within `DOUBLE_TOLERANCE` (relative; a double carries 16 digits, a few operations
# lose some) states the value
MIN_FLOAT_REPR_DIGITS = 15

DOUBLE_TOLERANCE = Fraction(1, 10**12)

# A non-ending rational rounded or cut to this many significant digits states it unmarked (`1.333333` for 4/3), as a
# program prints it and a wrong attempt rarely does.
MIN_UNMARKED_DIGITS = 6

# The significant digits of an unmarked decimal stated as the result that approximate a rational reference whose
# decimal does not end: "the computation gives 0.09524" for 2/21
MIN_STATED_DIGITS = 4

_FINAL_ANSWER = re.compile(r"(?:final answer|answer)\s*(?:is|:|=)\s*([^\n]+?)\s*(?:[.;]\s|[.;]?$|\n)", re.IGNORECASE)

# What a question asks for, as a noun: "a remainder of 1", "has area 8"
_QUANTITY = (
    r"(?:area|length|perimeter|circumference|volume|value|remainder|degree|radius|diameter|height|width|depth"
    r"|total|measure|slope|size|probability|chance|mean|average|median|range|period|count|norm|magnitude|distance"
    r"|speed|rate|score|cost|price|maximum|minimum)"
)
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
    # (a record's key too: `"final_answer": "7"`, `<answer>7</answer>`)
    r"|(?<![A-Za-z])(?:answer|result|value|total|sum|solution|final|outcome|output|conclusion|target|spoiler|expected"
    r"|correct|key)s?[\"']?(?:\s+(?:here|now|then|instead|below))?\s*\**\s*(?:[:=>]|[-–—]{1,2}(?=\s))"
    r"|\b(?:answer|key|solution|book|textbook)s?\s+says"  # "the answer key says 7"
    # where structure, not words, marks a result: the line a `>>>` prompt prints, the answer of a Q/A pair ("A: 7"),
    # a check mark ("✓ 7") and the new value of a correction ("replace 8 by 7"; an arrow is one above)
    r"|>>>[^\n]*\n[ \t]*|(?:^|\n)[ \t*]*a[ \t*]*:|[✓✔☑]|\breplac(?:e|es|ed|ing)\b[^.;!?\n]{0,60}?\b(?:by|with)"
    # and the expected side of a test's comparison: `assertEqual(solve(), 7)`
    r"|\bassert\w*\([^\n]{0,40},[ \t]*"
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
    # (what is evaluated may come between: "the script evaluates the final quantity to 7")
    r"|\b(?:reduc(?:es?|ed|ing)|simplif(?:y|ies|ied|ying)|boils?\s+down|works?\s+out|evaluates?|evaluated)"
    r"(?:\s+[^\s.;:!?,]+){0,4}?\s+to"
    # "Expected 7, got 8", "submitted 8, key 7", "it expects 7", a checker's "Reference 7; submitted 8"
    r"|\barrives?\s+at|\b(?:expects|expected|key|reference)"
    # a measure or a count the subject has: "it measures 2", "the region has area 8", "the list has exactly 3"
    rf"|\bmeasur(?:es|ed|ing)|\b(?:has|have|had)\s+(?:exactly|(?:an?\s+|the\s+)?{_QUANTITY}(?:\s+of)?)"
    r"|(?:[\n.!?]|\*\*)\s*(?:the\s+)?(?:final\s+|correct\s+)?(?:answer|result))"  # a label: "Answer 7 (you had 8)"
    # "is exactly 7", "is your 6, plus one", "ends at ≈ 4.67", "leaves a remainder of 1", "get an area of 8"
    r"(?:[\s*]+(?:exactly|just|only|simply|then|now|therefore|thus|clearly|indeed|actually|really|precisely|your"
    rf"|about|approximately|roughly|around|(?:an?|the)\s+(?:(?:total|final|combined|overall|exact)\s+)?{_QUANTITY}\s+of))*"
    r"[\s$*(≈~\"'“‘]*(?:\\[(\[])?$"
)

# A count stated as what there is: "there are 3 of them" ("you counted 1 of them twice" picks one out)
_EXISTENTIAL_BEFORE = re.compile(r"\bthere(?:'s|\s+(?:is|are|was|were|will\s+be|should\s+be|must\s+be))[\s$*]*$")
_OF_THEM_AFTER = re.compile(r"[\s$*]*of\s+them\b")
_RESULT_CUE_AFTER = re.compile(
    r"(?:\\[)\]])?[\s$*)\"'”’]*(?:(?:is|was|would\s+be|should\s+be|must\s+be)\s+(?:the\s+)?"
    r"(?:correct|right|final|true|expected|answer|result|solution)\b"
    r"|(?:goes\s+|belongs\s+)?(?:as|for)\s+(?:the|your)\s+(?:final\s+)?(?:answer|result)\b"
    r"|(?:alone\s+|only\s+)?(?:works|holds|fits|satisfies|checks\s+out)\b"  # "Only 7 works", "E alone holds"
    r"|[✓✔☑]"  # a check mark: "7 ✓"
    r"|(?:in\s+(?:all|total)|altogether|all\s+told)\b"  # a count: "4 in total"
    # set against another value: "**8**, not 7", "two, not 18" (a step's operand is no result: "Divide by 3, not 4")
    r"|,[ \t]*not[ \t]+(?!(?:only|just|even|quite|always|necessarily|all|every|so|too|very)\b)"
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

# An answer key's entry: the problem's number, then the value alone on its line ("52. 4.6667")
_ANSWER_KEY_ENTRY_BEFORE = re.compile(r"(?:^|\n)[ \t]*\(?\d{1,3}[.)][ \t]+$")

# "step 3", "Case 2:", not "in this case 7": a label with a determiner before it is a plain noun
_ENUMERATION_BEFORE = re.compile(
    r"(?<!\bthis )(?<!\bthat )(?<!\beach )(?<!\bany )(?<!\bour )(?<!\byour )(?<!\bwhich )(?<!\bevery )"
    r"(?<!\beither )(?:\b(?:step|line|case|part|item|equation|problem|question|exercise|page|section|chapter"
    r"|stage|round|attempt|response|completion|solution|draft|option|choice|hint|rule|figure|table|row|column"
    # "problem. 7" ends a sentence; "No. 7" is a number, "wait no\n7" a reply
    r"|example|method|approach)s?|\b(?:eq|fig|ex|prob|sec|ch)s?\.?|\bnos?\.)[\s$*(]*$"
)

_CHOICE_CUE_BEFORE = re.compile(
    r"(?:\b(?:choose|chose|pick|select|go\s+with|option|choice|variant|answer|circle|mark|tick|try)|\bit'?s"
    r"|\b(?:correct|right|expected|true)\s+(?:answer|option|choice)\s*,"  # in apposition: "the correct answer, Plane,"
    r"|\(\s*[a-e]\s*\))[\s$*(\"'“‘]*$"  # an option's words after its letter: "(C) Plane"
)

# Before an option's words, its letter: "its E, the hyperbola", "C: plane"
_OPTION_LETTER_BEFORE = re.compile(r"(?<![a-z\\])[a-e][ \t]*[,:—–][ \t\"'“‘]*$")

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
_ALTERNATIVE_AFTER = re.compile(
    r"[\s*]*(?:/|(?:,\s*)?\b(?:or|nor|and)\b(?!\s+(?:your?|the|an?|this|that|it|its|we|i|so|then|there|my|our|they|he|she"
    r"|which|what|is|was|not|check|compare|recheck|redo)\b)|,\s*[\w-]+\s*(?:,|\bor\b|\band\b))"
)  # not a clause the conjunction opens: "it should be even, and your last line says odd"

_NEGATED_BEFORE = re.compile(r"\b(?:neither|nor)\s*$", re.IGNORECASE)

_GLUED_BEFORE = re.compile(r"[A-Za-z0-9.]$")

_GLUED_AFTER = re.compile(rf"(?!{_UNIT_WORDS}(?![A-Za-z]))[A-Za-z0-9]|\.\d|_")  # `4210_{\text{six}}`: a base

# Where a list of one item may start: a line, or a label that announces steps ("Fix steps: 1. Expand.").
_LIST_OPENING = re.compile(
    r"(?:\n|\b(?:steps?|fix(?:es)?|to\s*do|plan|checklist|instructions?)\s*:)[ \t*-]*\(?$", re.I
)

# A list marker: "1." or "2)" before an item, or "(3)", at the start of the text, a line or a clause ("(14)/(3)" is
# a fraction).
_LIST_MARKER = re.compile(
    r"(?:^|(?<=[\n:;.!?]))[\s*-]*(?:(?P<number>\d+)[.)](?=\s+[^\s.])|\((?P<parenthesised>\d+)\)(?=\s))"
)

_INEQUALITY = re.compile(
    r"(?<![A-Za-z\\])[A-Za-z]\s*(?P<operator>"
    + "|".join(re.escape(operator) for operator in sorted(_INEQUALITY_OPERATORS, key=len, reverse=True))
    + r")(?![A-Za-z])\s*(?P<bound>-?\s*(?:\d+(?:\.\d+)?(?:/\d+)?|\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}))"
)

# Towers and huge exponents or factorials that sympy would evaluate for minutes.
_COSTLY_TO_PARSE = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\w+\s*\^|\^\s*\{?\s*[-(]?\d{4,}|\d{4,}\s*!|\\binom")

# Digits split by whitespace ("4 2", "4\n2", "4\r\n2"), read as one number where a result cue stands by them.
_SPLIT_DIGITS = re.compile(r"(?<![\d.,])\d+(?:(?:[ \t]+[\r\n]*|[\r\n]+)[ \t]*\d+)+(?![\d.,]\d)")


class _Givens(NamedTuple):
    """What the problem states of a reference."""

    value: bool  # its value (`_given`)
    digits: bool  # its digits in another base (`_given_digits`)
    text: bool  # its words (`_given_text`)
    expressions: frozenset[str]  # its expressions equal to it (`_given_expressions`)
    option: str | None  # the words of its multiple-choice option (`_option_text`)
    variable_letter: bool  # its choice's letter, in lower case, is a variable of the problem ("For a constant $c$")


def _all_leak_spans(text: str, references: list[_Reference], givens: list[_Givens]) -> list[tuple[int, int]]:
    """The spans of the normalised feedback `text` that state a reference, with what the problem states of each."""
    spans = []
    for reference, given in zip(references, givens, strict=True):
        spans += _leak_spans(text, reference, given.value, given.digits, given.expressions)
        spans += _split_digit_spans(text, reference)
        spans += _choice_spans(text, reference, given.variable_letter)
        spans += _text_answer_spans(text, reference.text_answer, given.text)
        spans += _text_answer_spans(text, given.option, given=True)  # "a plane" for (C) Plane
        spans += _half_line_spans(text, reference, given.value)
        spans += _decimal_comma_spans(text, reference, given.value)
        spans += _collection_spans(text, reference, given.value)
        spans += _field_collection_spans(text, reference)
        spans += _parameter_spans(text, reference)
        spans += _identity_spans(text, reference)
    return spans


# The identity matrix by name: `-I`, `-\mathbf{I}`, `I_2`, "the negative of the identity matrix" (a bare "I" is
# the pronoun)
_IDENTITY = re.compile(
    r"(?P<negative_words>\b(?:the[ ]+)?(?:negative|minus|opposite)[ ]+(?:of[ ]+)?(?:the[ ]+)?)?"
    r"\b(?:2[ ]*(?:x|×|by)[ ]*2[ ]+)?identity(?:[ ]+matrix)?\b"
    r"|(?P<sign>-[ ]*)?(?P<symbol>\\math(?:bf|bb|rm)\{I\}|(?<![\w\\])I)(?P<size>_(?:\{\d\}|\d))?(?![\w{])"
)


def _identity_spans(feedback: str, reference: _Reference) -> list[tuple[int, int]]:
    """An answer that is the identity matrix or its negative, named: "-I", `\\mathbf{I}`, "I_2", "the identity
    matrix", "minus the identity matrix"."""
    matrix = reference.collection
    if matrix is None or matrix.kind != "matrix" or len(matrix.items) != len(matrix.items[0]):
        return []
    diagonal = {row[index] for index, row in enumerate(matrix.items)}
    if (
        len(diagonal) != 1
        or diagonal - {1, -1}
        or any(value for i, row in enumerate(matrix.items) for j, value in enumerate(row) if i != j)
    ):
        return []
    negative = -1 in diagonal
    return [
        match.span()
        for match in _IDENTITY.finditer(feedback)
        if (bool(match["negative_words"] or match["sign"]) == negative)
        and (match["symbol"] is None or match["sign"] or match["size"] or match["symbol"] != "I")
    ]


# Before a unit's name: `\text{` or a space (`864 \text{ inches}^2`, "1890 cents"), and a dollar sign before a value
_UNIT_NAME_BEFORE = re.compile(r"[ \t]*(?:\\(?:text|mbox|mathrm)[ \t]*\{[ \t]*)?")
_DOLLAR_BEFORE = re.compile(r"(?:\\?\$|\bUSD)[ \t]*-?\Z")


def _in_another_unit(feedback: str, start: int, end: int, reference: _Reference) -> bool:
    """Whether the value at `feedback[start:end]` states the reference in another unit of its dimension: "1890
    cents" for `\\$18.90`, "$0.054" for `5.4 cents`, "6 square feet" for `864 \\mbox{ inches}^2`."""
    if reference.unit is None or not isinstance(reference.value, Fraction):
        return False
    position = _UNIT_NAME_BEFORE.match(feedback, end).end()
    if _DOLLAR_BEFORE.search(feedback, max(0, start - 5), start):
        unit = _unit_size("dollars")  # "$0.054 in all": no inches
    else:
        unit = _unit_size(feedback[position : position + 40])
    if unit is None or unit[:2] != reference.unit[:2] or unit == reference.unit:
        return False
    value = _value(feedback[start:end])
    return isinstance(value, Fraction) and value * unit[2] == reference.value * reference.unit[2]


_DEGREES_AFTER = re.compile(r"[ \t]*(?:°|\^\s*\{?\s*\\circ|degrees?\b|deg\b)", re.IGNORECASE)

_PI = re.compile(r"\\pi(?![A-Za-z])|π|(?<![A-Za-z\\])pi(?![A-Za-z])")

_RADIANS_AFTER = re.compile(r"[ \t]*(?:\\(?:text|mbox|mathrm)\s*\{\s*)?(?:radians?|rad)\b", re.IGNORECASE)

_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(?P<sign>-[ \t]*)?\d+,\d{1,2}(?!\d|[,.]\d)")

_DECIMAL = re.compile(r"-?(?P<digits>\d*\.\d+)")

_WHOLE = re.compile(r"-?(?P<digits>\d+)")

# A number in scientific notation, its mantissa's digits counted: `4.667 \times 10^{0}`, "2.199e1", "1.3 x 10^-1"
_MANTISSA_AND_EXPONENT = re.compile(
    r"(?P<sign>-?)(?P<mantissa>\d+(?:\.\d+)?)[ \t]*(?:[eE]|(?:\\times|\\cdot|[×x*·])[ \t]*10[ \t]*\^)[ \t]*"
    r"\{?[ \t]*(?P<exponent>[-−+]?\d+)[ \t]*\}?"
)


def _split_digit_spans(feedback: str, reference: _Reference) -> list[tuple[int, int]]:
    """Digits split by whitespace ("the answer is 4 2") that read as the reference once joined, next to a result
    cue (a bare "4 2" is two numbers)."""
    return [
        match.span()
        for match in _SPLIT_DIGITS.finditer(feedback)
        if _stated_as_result(feedback, *match.span(), given=True)
        and _states(re.sub(r"\s", "", match.group()), reference)
    ]


def _choice_spans(feedback: str, reference: _Reference, variable_letter: bool) -> list[tuple[int, int]]:
    """The letter of a multiple-choice answer: written as a choice ("(C)", "(c)", "[C]", `\\textbf{(C)}`) wherever
    it is not a part's label ("part (c)"), alone on a line, and a bare "C" stated as the result or picked ("choose C",
    "try C"): a bare capital is as often a point or a set. A bare "c" is stated only where the problem has no
    variable `c`."""
    if reference.choice is None:
        return []
    letter = reference.choice
    as_choice = re.compile(
        rf"(?<![A-Za-z\\])(?:\\text(?:bf)?\s*\{{\s*\(?\s*{letter}\s*\)?\s*\}}|\(\s*{letter}\s*\)(?![A-Za-z])"
        rf"|\[\s*{letter}\s*\](?![A-Za-z(])"  # "[C]", not a link's text "[C](...)"
        rf"|(?<=[\"“'‘]){letter}(?=[\"”'’](?![A-Za-z])))",  # a program's string: `expected "C"`
        re.IGNORECASE,
    )
    bare = re.compile(rf"(?<![A-Za-z\\]){letter}(?![A-Za-z])")
    # in lower case too where a choice is named ("option c", "final ans: b") or stated ("i got c"; "a" is the article)
    named = re.compile(
        rf"\b(?:option|choice|variant|ans(?:wer)?[ \t]*[:=])[ \t]*[{letter}{letter.lower()}](?![A-Za-z])"
    )
    # a letter alone on a line of its own, not a quote of the attempt's ("nah\nb\nu had (A)", not "> B")
    alone = re.compile(rf"(?:^|(?<=\n))[ \t*_]*{letter}[ \t*_]*[.!]*[ \t]*(?=\n|$)", re.IGNORECASE)
    spans = [
        match.span()
        for match in as_choice.finditer(feedback)
        if not _ENUMERATION_BEFORE.search(feedback[max(0, match.start() - _CONTEXT_CHARS) : match.start()].lower())
    ]
    spans += [(match.end() - 1, match.end()) for match in named.finditer(feedback)]
    spans += [match.span() for match in alone.finditer(feedback)]
    if letter != "A" and not variable_letter:
        spans += [
            match.span()
            for match in re.finditer(rf"(?<![A-Za-z\\]){letter.lower()}(?![A-Za-z])", feedback)
            if _stated_as_result(feedback, *match.span(), given=True)
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
    Navin", "Direction: east"), not listed among alternatives ("even or odd") and not denied ("neither even nor
    odd")."""
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
        if _NEGATED_BEFORE.search(before):
            continue  # "neither even nor odd": what it is not
        before = _FILLER_BEFORE.sub("", before)  # "is an ellipse", "facing due east"
        view = before + match.group() + after  # the text as `_stated_as_result` reads it, without the filler
        if (
            not given
            or _stated_as_result(view, len(before), len(before) + len(match.group()), given=True)
            or _CHOICE_CUE_BEFORE.search(before)
            or _OPTION_LETTER_BEFORE.search(before)
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
    candidates = [
        (match.start(), transposed.end() if (transposed := _TRANSPOSED.match(feedback, match.end())) else match.end())
        for match in _MATRIX.finditer(feedback)
    ]
    candidates += [match.span() for match in _ANGLE_BRACKETED.finditer(feedback)]
    if reference.collection.kind == "matrix" or reference.collection.vector:
        candidates += [match.span() for match in _MATRIX_ROWS.finditer(feedback)]
        candidates += [match.span() for match in _TRANSPOSED_ROW.finditer(feedback)]
        candidates += [_trim(feedback, *match.span()) for match in _MATRIX_LINES.finditer(feedback)]
    runs = _math_runs(feedback)
    group, labelled, bulleted, lists = runs[:1], [], [], set()
    for run in [*runs[1:], None]:
        separator = None if run is None else _LIST_SEPARATOR.fullmatch(feedback, group[-1][1], run[0])
        if separator and not _ATTEMPT_LABEL.search(separator.group("label")):  # "(2, 5), but you wrote (1, 5)"
            group.append(run)
            labelled.append(bool(separator.group("label") or separator.group("link")))
            bulleted.append("\n" in separator.group())
            continue
        # the list, and, where only some items are labelled, the lists the labels part: "-18, -49 and 96, got
        # (-118, -49, 96)" holds "-18, -49 and 96"; where only some items open a bullet, each bullet's list
        cuts = [0, *(index + 1 for index, label in enumerate(labelled) if label), len(group)]
        parts = [(0, len(group))] + ([] if all(labelled) else list(itertools.pairwise(cuts)))
        if any(bulleted) and not all(bulleted):
            bullets = [0, *(index + 1 for index, bullet in enumerate(bulleted) if bullet), len(group)]
            parts += list(itertools.pairwise(bullets))
        for first, stop in parts:
            if stop - first > 1:
                # its end trimmed: "1, 2 and 3 (you had ...)"; its start kept: "**Answer:** 1, 2" is no product
                lists.add((group[first][0], _trim(feedback, group[first][0], group[stop - 1][1])[1]))
        group, labelled, bulleted = [run], [], []
    candidates += lists
    worded = _intervals_in_words(feedback)
    candidates += list(worded)
    spans = []
    for start, end in candidates:
        if end - start > 4 * MAX_CANDIDATE_LENGTH or not _is_whole_value(feedback, start, end):
            continue
        if given and not _stated_as_result(feedback, start, end, given):
            continue
        text = feedback[start:end]
        if (start, end) in worded:
            collection = worded[(start, end)]
        elif (start, end) not in lists or _MATRIX_ROWS.fullmatch(text) or _ANGLE_BRACKETED.fullmatch(text):
            # "[-1 0; 0 -1]" and "\langle -7, 16, 5 \rangle" are no lists of runs
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
        if collection is not None and (
            _same_collection(collection, reference.collection)
            or (
                _marked_as_approximation(feedback, start, end)
                and _same_collection(_rounded_to(collection, reference.collection), reference.collection)
            )
        ):
            spans.append((start, end))
    return spans


def _rounded_to(collection: _Collection, reference: _Collection) -> _Collection:
    """`collection` with each item that rounds or cuts the reference's item in its place to a decimal of
    `MIN_APPROXIMATION_DIGITS` significant digits or more taken as that item: "≈ (3, 1.571)" for
    `(3, \\frac{\\pi}{2})`."""

    def snapped(items, reference_items):
        if isinstance(items, tuple) and isinstance(reference_items, tuple) and len(items) == len(reference_items):
            return tuple(snapped(item, reference_item) for item, reference_item in zip(items, reference_items))
        return reference_items if _decimal_approximation(items, reference_items) else items

    return dataclasses.replace(collection, items=snapped(collection.items, reference.items))


def _decimal_approximation(value, reference_value) -> bool:
    """Whether `value`, a decimal read exactly, is `reference_value` rounded or cut at its last place, to
    `MIN_APPROXIMATION_DIGITS` significant digits or more and not to a whole number."""
    if not isinstance(value, Fraction) or not isinstance(reference_value, Fraction | float) or value.denominator == 1:
        return False
    if isinstance(reference_value, float) and not math.isfinite(reference_value):
        return False
    places = next((places for places in range(1, 10) if (value * 10**places).denominator == 1), None)
    if places is None or len(str(abs(value.numerator * 10**places // value.denominator)).lstrip("0")) < (
        MIN_APPROXIMATION_DIGITS
    ):
        return False
    scale, exact = 10**places, Fraction(reference_value)
    return value in (Fraction(round(exact * scale), scale), Fraction(math.trunc(exact * scale), scale))


def _intervals_in_words(feedback: str) -> dict[tuple[int, int], _Collection | None]:
    """Intervals in words by their spans: each one, one less a point ("between 0 and 36, but not 9") and two joined
    in a union ("the union of the open interval from 0 to 9 and the open interval from 9 to 36")."""
    matches = list(_INTERVAL_WORDS.finditer(feedback))
    worded = {match.span(): _interval_in_words(match) for match in matches}
    for match in matches:
        puncture = _PUNCTURE.match(feedback, match.end())
        point = puncture and _value(puncture.group("point"))
        if point is not None:
            worded[(match.start(), puncture.end())] = _without(worded[match.span()], (point,))
    for first, second in itertools.pairwise(matches):
        gap = _UNION_GAP.fullmatch(feedback, first.end(), second.start())
        if gap and (gap.group("either") or _UNION_OF.search(feedback, max(0, first.start() - 40), first.start())):
            worded[(first.start(), second.end())] = _union([worded[first.span()], worded[second.span()]])
    # an interval in brackets less a point or taken from the line: "every x in (0, 36) except 9", "outside [2, 3]"
    for match in _BRACKETED_INTERVAL.finditer(feedback):
        interval = _collection(match["interval"])
        puncture = _PUNCTURE.match(feedback, match.end())
        point = puncture and _value(puncture.group("point"))
        if point is not None:
            worded[(match.start("interval"), puncture.end())] = _without(interval, (point,))
        if match["outside"]:
            worded[match.span()] = _without(_REAL_LINE, interval)
    return worded


def _interval_in_words(match: re.Match) -> _Collection | None:
    low, high = (_bound_value(match.group(end)) for end in ("low", "high"))
    if low is None or high is None:
        return None
    return _Collection("bracketed", (low, high), _interval_brackets(*_interval_end_kinds(match, low, high)))


def _bound_value(text: str) -> Fraction | float | None:
    """An end of an interval in words: a value, or an infinity."""
    if text.strip().endswith("\\infty"):
        return -math.inf if text.strip().startswith("-") else math.inf
    return _value(text)


def _interval_end_kinds(match: re.Match, low, high) -> tuple[str | None, str | None]:
    """The words an interval in words (`_INTERVAL_WORDS`) says of each end: after it ("3 (excluded)"), as the
    interval's name ("open interval"), or in a clause after the interval that names the end by its value ("not
    including 2") or names both ("both ends included")."""
    low_kind, high_kind = match.group("low_kind"), match.group("high_kind")
    if match.group("named"):
        low_kind = high_kind = "excluded" if match.group("named").lower() == "open" else "included"
    if match.group("both"):
        low_kind = high_kind = "included" if match.group("both").lower() == "both" else "excluded"
    for named in _NAMED_END.finditer(match.group("ends") or ""):
        kind, value = named.group("kind").lower(), _value(named.group("bound"))
        said = "included" if kind.startswith("including") else "excluded"
        if value is None:
            continue
        if low is not None and not math.isinf(low) and _close(value, low):
            low_kind = said
        elif high is not None and not math.isinf(high) and _close(value, high):
            high_kind = said
    return low_kind, high_kind


def _interval_brackets(low_kind: str | None, high_kind: str | None) -> str:
    """The brackets an interval in words states: "inclusive" or "exclusive" after its upper end alone is said of
    both ends, after each end of that end; "?" for an end left unsaid ("" when both are)."""
    if low_kind is None and high_kind is not None and re.search(r"inclusive|exclusive", high_kind, re.IGNORECASE):
        low_kind = high_kind
    low, high = (_end_bracket(kind, opening) for kind, opening in ((low_kind, True), (high_kind, False)))
    return "" if low == high == "?" else low + high


def _end_bracket(kind: str | None, opening: bool) -> str:
    if not kind:
        return "?"
    kind = kind.lower()
    closed = ("not" not in kind) == any(word in kind for word in ("included", "inclusive", "closed"))
    return ("[" if closed else "(") if opening else ("]" if closed else ")")


# A record's labelled field, one a line ("x: -2", "- root 1: 3"), a table row (`_normalised` wrote "| Re | 6 |" as
# " : Re : 6 : ") or a JSON pair (`"p": "6"`)
_FIELD = re.compile(
    r"(?:^|(?<=\n))[ \t]*(?:[-*•][ \t]+)?(?P<label>[^\s:\"{}|][^:\n\"{}|]{0,20}?)[ \t]*:[ \t]+"
    r"(?P<value>[^\s:][^:\n]{0,60}?)[ \t]*(?=\n|$)"
    r"|(?:^|(?<=\n))[ \t]*:[ \t]+(?P<cell_label>[^:\n]{1,20}?)[ \t]+:[ \t]+(?P<cell>[^:\n]{1,60}?)[ \t]+:[ \t]*(?=\n|$)"
    r"|\"(?P<key>[^\"\n]{1,20})\"[ \t]*:[ \t]*(?P<quote>\"?)(?P<entry>[^\"\n,{}]{1,60}?)(?P=quote)[ \t]*(?=[,}])"
)

_BETWEEN_FIELDS = re.compile(r"[\s,]*")

_COMPLEX_PART_LABEL = re.compile(r"re(?:al)?(?:\s+part)?|im(?:ag(?:inary)?)?(?:\s+part)?", re.IGNORECASE)


def _field_collection_spans(feedback: str, reference: _Reference) -> list[tuple[int, int]]:
    """A collection or a complex number written over a record's consecutive labelled fields (`_FIELD`), one item a
    field: "x: -2\ny: -14\nz: -7", a table's rows "| Re | 6 |", "| Im | -5 |", `{"p": "6", "q": "31"}`. The fields'
    structure carries the items as the commas of a tuple do; a run of fields that are no values (a header, "verdict:
    incorrect") is none."""
    if reference.collection is None and "i" not in reference.variables:  # a complex number reads as one in i
        return []
    groups, previous_end = [], None
    for match in _FIELD.finditer(feedback):
        group = next(name for name in ("value", "cell", "entry") if match.group(name) is not None)
        value = match.span(group)
        label = match.group({"value": "label", "cell": "cell_label", "entry": "key"}[group]).strip()
        text = feedback[slice(*value)]
        # a number, not words (which read as a product of variables): "note: see above" ends the run
        readable = re.search(r"\d|π|\bpi\b", text) and (_value(text) is not None or _is_collection(text))
        if not readable:
            previous_end = None
            continue
        if previous_end is not None and _BETWEEN_FIELDS.fullmatch(feedback, previous_end, match.start()):
            groups[-1].append((label, value))
        else:
            groups.append([(label, value)])
        previous_end = match.end()
    spans = []
    for group in groups:
        if len(group) < 2 or len(group) > 16:
            continue
        texts = [feedback[slice(*value)].strip() for _, value in group]
        if reference.collection is None:
            labels = [label for label, _ in group]
            if len(texts) != 2 or not all(_COMPLEX_PART_LABEL.fullmatch(label) for label in labels):
                continue
            real, imaginary = texts if labels[0].lower().startswith("re") else texts[::-1]
            stated = _states(f"{real}+({imaginary})i", reference)
        elif reference.collection.kind == "matrix":
            collection = _rows([f"({text})" for text in texts], [";"] * (len(texts) - 1))
            stated = collection is not None and _same_collection(collection, reference.collection)
        else:
            brackets = ("\\{", "\\}") if reference.collection.kind == "set" else ("(", ")")
            collection = _collection(brackets[0] + ", ".join(texts) + brackets[1])
            stated = collection is not None and _same_collection(collection, reference.collection)
        if stated:
            spans += [value for _, value in group]
    return spans


def _decimal_comma_spans(feedback: str, reference: _Reference, given: bool) -> list[tuple[int, int]]:
    """A decimal comma ("4,5" for 4.5), read only for a reference that is no whole number: "4,5" is as often two
    numbers."""
    if not isinstance(reference.value, Fraction) or reference.value.denominator == 1:
        return []
    return [
        match.span()
        for match in _DECIMAL_COMMA.finditer(feedback)
        if Fraction(match.group().replace(",", ".").replace(" ", "").replace("\t", "")) == reference.value
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
        quotes = (
            given or _compact(feedback[start:end]) in given_expressions or _unreduced(feedback[start:end], reference)
        )
        return quotes and not _stated_as_result(feedback, start, end, given=True)

    spans = [(start, end) for start, end, content in boxed_spans(feedback) if _states(content, reference)]
    # In a math span or after "answer is", the last side of an equation is what is stated: `$x = \frac{2}{4}$`.
    contents = _math_spans(feedback)
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
        # and the sides an inequality or an implication parts: `a \ge (1+2)^2 = 9` states 9 twice
        sides += [side for side in _sides(feedback, run_start, run_end, relations=True)[0] if side not in sides]
        if (reference.equation is not None and reference.value is None) or reference.whole_equation:
            # the whole equation states it, no side
            whole = _trim(feedback, run_start, run_end)
            if is_equation and _states(feedback[slice(*whole)], reference) and not quoted_only(*whole):
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
            side_given = side_given or _unreduced(text, reference)
            if side_given and _QUOTED_FIELD_BEFORE.search(feedback, max(0, start - _CONTEXT_CHARS), start):
                continue  # "given=7": a record's `=` that quotes the problem's data
            if quoted_equation and not _stated_as_result(feedback, run_start, run_end, given=True):
                continue  # its own `=` is no result cue
            if not is_equation and not _stated_as_result(feedback, start, end, side_given):
                continue
            approximate = _marked_as_approximation(feedback, start, end)
            # a result cue matters only to a rational reference whose decimal does not end: "gives 0.09524" for 2/21
            stated_as_result = (
                not approximate
                and isinstance(reference.value, Fraction)
                and not _decimal_ends(reference.value)
                and _stated_as_result(feedback, start, end, given=True)
            )
            if _states(text, reference, approximate, stated_as_result):
                spans.append((start, end))
            elif (
                reference.degrees
                and (_RADIANS_AFTER.match(feedback, end) or _PI.search(text))
                and _in_degrees(text, reference)
            ):  # "pi/6 radians", `\frac{\pi}{6}`: the angle in radians
                spans.append((start, end))
            elif (_DEGREES_AFTER.match(feedback, end) or text.endswith("°")) and _in_radians(text, reference):
                spans.append((start, end))
            elif _in_another_unit(feedback, start, end, reference):
                spans.append((start, end))
        if reference.equation is not None and is_equation and len(spans) == stated_before:
            whole = _trim(feedback, run_start, run_end)  # a line rearranged: `2x - y + 3 = 0` for `y = 2x + 3`
            if _states_equation(feedback[slice(*whole)], reference) and not quoted_only(*whole):
                spans.append(whole)
    return spans


_INTEGER = re.compile(r"(?<![\d.^])(?<!\^\{)(?<!\^\()\d+(?![\d.])")  # not an exponent: `\pi^2`, `x^{3}`

# A mixed number: `137 2/4`, `137\frac{2}{4}`
_MIXED_NUMBER = re.compile(
    r"(?<![\d.^])\d+(?:[ \t]+(\d+)[ \t]*/[ \t]*(\d+)|[ \t]*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\})(?![\d.])"
)


def _unreduced(candidate: str, reference: _Reference) -> bool:
    """Whether `candidate`, when it equals the reference, writes it unreduced where the reference is reduced: a mixed
    number whose fraction is not in lowest terms (`137 2/4`), or an expression or equation whose numbers all share a
    factor (`(22 + 18a)/40`, `10x - 14y + 22z + 8 = 0`). That is how an attempt is quoted (its numbers doubled, its
    fraction part left unreduced), not how a result is stated, so it is read as a quote: stated only as a result, as a
    value the problem gives. A plain fraction (`28/6`) or a product (`6*15`) is arithmetic that states it."""
    if any(
        math.gcd(*(int(number) for number in match.groups() if number is not None)) > 1
        for match in _MIXED_NUMBER.finditer(candidate)
    ):
        return True
    if not (reference.variables or reference.equation is not None):
        return False
    return _common_factor(candidate) > 1 and _common_factor(reference.text) == 1


def _common_factor(text: str) -> int:
    """The greatest common divisor of the nonzero integers written in `text`, 1 when it writes fewer than three."""
    numbers = [int(number) for number in _INTEGER.findall(text) if len(number) <= 12 and number.strip("0")]
    return math.gcd(*numbers) if len(numbers) >= 3 else 1


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


_ARTICLE_AT_END = re.compile(r"\bthe\s+$")

# A value a step works with, the subject of "... was right": "Dividing by 4 was right", "Using 4 is correct", "Your
# setup with 4 is right"
_OPERAND_OF_A_STEP = re.compile(
    r"(?:\b[a-z]{2,}ing(?:\s+(?:by|from|with|to|into|on|in|of|at))?|\b(?:with|by|from|into))[\s$*(]*$"
)


# A record's field that holds the attempt or the problem's data, not a result: "got=8", "given: 7", `"attempt": "8"`
_QUOTED_FIELD_BEFORE = re.compile(
    r"\b(?:given|got|attempt|submitted|yours?|input|data)[\"']?[ \t]*[:=][ \t]*[\"'$*(]*$", re.IGNORECASE
)


# A count of the attempts a feedback model was shown (the group's size) or of some of them, no value: "the 3
# attempts", "4 failed tries", "3 of the 8 attempts", "Of the 16 attempts, 12 never state a final value"
_ATTEMPTS = (
    r"(?:(?:failed|incorrect|wrong|previous|earlier|sampled|other|unsuccessful)[ \t]+)?"
    r"(?:attempts|responses|rollouts|samples|completions|solutions|tries|drafts|submissions|generations)\b"
)
_OF_THE = r"of[ \t]+(?:the|these|those|all|your)[ \t]+(?:\d+[ \t]+)?"  # "of the 8", "of these"
_COUNT_OF_ATTEMPTS_AFTER = re.compile(rf"[ \t]+(?:{_OF_THE})?{_ATTEMPTS}")
_SOME_OF_THE_ATTEMPTS_BEFORE = re.compile(rf"\b{_OF_THE}{_ATTEMPTS}[ \t]*,[ \t]*$")


def _stated_as_result(text: str, start: int, end: int, given: bool) -> bool:
    """Whether a standalone number or expression at `text[start:end]` would state the answer if it equals it: always,
    unless it numbers a step or a list item, when the problem does not state the value (`given`); else only with a
    result cue or in an instruction."""
    before = ("\n" if start <= _CONTEXT_CHARS else "") + text[max(0, start - _CONTEXT_CHARS) : start].lower()
    if text.startswith("√", start):
        before = _ARTICLE_AT_END.sub("", before)  # "is the square root of 53": the article is the root's
    after = text[end : end + _CONTEXT_CHARS].lower()
    if given and _QUOTED_FIELD_BEFORE.search(before):
        return False
    if _COUNT_OF_ATTEMPTS_AFTER.match(after) or _SOME_OF_THE_ATTEMPTS_BEFORE.search(before):
        return False  # how many attempts the feedback reads: "All 3 attempts failed", "3 of the 8 attempts"
    if _RESULT_CUE_BEFORE.search(before):
        return True
    if _RESULT_CUE_AFTER.match(after) and not _OPERAND_OF_A_STEP.search(before):
        return True
    if _INSTRUCTION_AFTER.match(after) and (
        _INSTRUCTION_BEFORE.search(before) or _ANSWER_KEY_ENTRY_BEFORE.search(before)
    ):
        return True
    if _EXISTENTIAL_BEFORE.search(before) and _OF_THEM_AFTER.match(after):
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


def _states(candidate: str, reference: _Reference, approximate: bool = False, stated_as_result: bool = False) -> bool:
    """Whether `candidate`, an expression or an equation (its last side counts, as in math-verify), equals the reference
    (or rounds it: see `_approximates`, which it tells whether the candidate is marked as `approximate` or
    `stated_as_result`)."""
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
                or _approximates(candidate, reference, approximate, stated_as_result)
            )
        )
    if reference.collection is not None or reference.value is not None:
        collection = _collection(candidate)
        if collection is not None:  # read item by item: no math-verify needed
            return reference.collection is not None and _same_collection(
                _rounded_to(collection, reference.collection) if approximate else collection, reference.collection
            )
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


# A matrix in rows: "-1 0; 0 -1", "[1, 2; 3, 4]", "[-2; -14; -7]" (a column)
_ROW_NUMBER = r"-?\d+(?:\.\d+)?(?:/\d+)?"

_ROW = rf"{_ROW_NUMBER}(?:(?:[ \t]*,[ \t]*|[ \t]+){_ROW_NUMBER}){{0,15}}"  # bounded: a scan stays linear

# A vector typed as a transposed row of values: "[-7 16 5]^T"
_TRANSPOSED = re.compile(_TRANSPOSE_MARK)  # after a matrix environment: `\end{bmatrix}^\top`
_TRANSPOSED_ROW = re.compile(rf"\[[ \t]*{_ROW}[ \t]*\]{_TRANSPOSE_MARK}")

_MATRIX_ROWS = re.compile(
    rf"(?<![\w.,;/-])(?:[\[(][ \t]*)?{_ROW}(?:[ \t]*;[ \t]*{_ROW}){{1,15}}(?:[ \t]*[\])])?(?!\w|[.,/]\d|[ \t]*;[ \t]*-?\d)"
)

# A matrix or vector laid out one row a line, each row bare or in brackets of its own: "[ -2 ]\n[ -14 ]\n[ -7 ]"
_LINE_ROW = rf"[ \t]*(?:[\[(][ \t]*{_ROW}[ \t]*[\])]|{_ROW})[ \t]*"
_MATRIX_LINES = re.compile(rf"^{_LINE_ROW}(?:\n{_LINE_ROW}){{1,15}}$", re.MULTILINE)

_NUMBER_OR_ROOT = r"-?\s*(?:\d*\s*√\s*\d+|\d+(?:\.\d+)?(?:/\d+)?)"
# a bound of an interval in words: a number, a root, or an expression written without spaces or in brackets ("π^2/8",
# "(5π^2)/4", "-sqrt(3)")
# brackets nested three deep, as spoken fractions come out: "(((pi)^2)/(8))"
_GROUP = r"\((?:[^()\n]|\((?:[^()\n]|\([^()\n]{0,40}\))*\))*\)"
_BOUND = (
    rf"(?:{_NUMBER_OR_ROOT}|-?\\infty\b|-?{_GROUP}(?:/(?:\d+|{_GROUP}))?(?![^\s,;.])"
    rf"|[^\s,;()]{{0,20}}\([^()\s]{{1,20}}\)[^\s,;()]{{0,20}}"
    r"|[^\s,;()]{0,20}[\dπ][^\s,;()]{0,20})"
)

_ANGLE_BRACKETED = re.compile(r"\\langle(?:(?!\\rangle).){1,200}\\rangle|<(?=[^<>\n]*,)[^<>\n]{1,200}>")

# Whether an end of an interval in words belongs to it: "(excluded)", ", not included,", "inclusive", "open"
_END_KIND = r"(?:[ ]*,?[ ]*\(?(?:(?:is[ ]+)?(?:not[ ]+)?(?:included|inclusive|excluded|exclusive)|open|closed)\)?)"

# Which ends belong, said after the interval: "not including 2", "including -2 but not including 7", "both ends
# included"
_END_NAMED = r"(?:(?:not[ ]+)?including|excluding)[ ]+"
_ENDS_CLAUSE = (
    rf"[ ]*,?[ ]+(?:{_END_NAMED}(?P<first_end>{_BOUND})(?:,?[ ]+(?:and|but)[ ]+{_END_NAMED}(?P<second_end>{_BOUND}))?"
    r"|(?:with[ ]+)?(?P<both>both|neither)[ ]+ends?[ ]+(?:(?:are|is)[ ]+)?(?:included|excluded|inclusive|exclusive))"
)
_NAMED_END = re.compile(rf"(?P<kind>{_END_NAMED})(?P<bound>{_BOUND})", re.IGNORECASE)

# An interval in words, its brackets unsaid unless "inclusive" or "exclusive" follows it or an end, or it is named
# open or closed: "from -2 to 7", "from -2 up to 7", "between -2 and 7", "from 3 (excluded) to 4 (included)", "the
# open interval from 2 to 5", "the interval from 2 to infinity, not including 2"
_INTERVAL_WORDS = re.compile(
    rf"\b(?:(?P<named>open|closed)[ ]+interval[ ]+)?(?:from|between)[ ]+(?P<low>{_BOUND})(?P<low_kind>{_END_KIND})?,?"
    rf"[ ]+(?:(?:up[ ]+)?to|and|through|till|until)[ ]+(?P<high>{_BOUND})(?P<high_kind>{_END_KIND})?"
    rf"(?P<ends>{_ENDS_CLAUSE})?",
    re.IGNORECASE,
)

# A point taken out of an interval in words, after it: "between 0 and 36, but not 9", "from 2 to 102 except 12"
_PUNCTURE = re.compile(
    rf",?[ ]+(?:but[ ]+not|except(?:[ ]+for)?|excluding[ ]+only)[ ]+(?P<point>{_BOUND})(?!\w)", re.I
)

# Between two intervals in words of a union: "... and the open interval from 9 to 36", "... or from 3 to infinity",
# "... or strictly between 9 and 36"
_UNION_GAP = re.compile(
    r",?[ ]+(?:and|(?P<either>or))[ ]+(?:the[ ]+)?(?:(?:half-)?(?:line|interval)[ ]+)?(?:(?:strictly|x)[ ]+)?", re.I
)

# An interval in brackets, less a point after it or what lies outside it: "(0, 36) except 9", "outside [2, 3]"
_BRACKETED_INTERVAL = re.compile(
    r"(?P<outside>\boutside[ ]+(?:of[ ]+)?(?:the[ ]+)?(?:(?:closed|open)[ ]+)?(?:interval[ ]+)?)?"
    rf"(?P<interval>[(\[][ ]*{_BOUND}[ ]*,[ ]*{_BOUND}[ ]*[)\]])",
    re.I,
)
_UNION_OF = re.compile(r"\bunion[ ]+of[ ]+(?:the[ ]+)?(?:(?:half-)?(?:line|interval)[ ]+)?$", re.I)

# Between two items of a list: a comma, "and", "or" (a semicolon between rows), the math delimiters that close one
# item and open the next (`$p = 6$, $q = 31$`), and up to two words that label the next item ("x-component -2,
# y-component -14", "r = 3 and theta = pi/2", "first row -1, 0; second row 0, -1"), with a verb that links the label
# to its item ("x must be 3 and y must be 5", "the first is 3, the second is 5"); or the next line's bullet
# ("- 3\n- 5\n- 7"). The item before may end in a label of its own: "3 for the first coordinate and 5 for the second".
_ITEM_LINK = (
    r"(?:is|are|was|equals?|=|:|of|(?:must|should|would|will|could|has[ \t]+to|have[ \t]+to)[ \t]+(?:be|equal)"
    r"|(?:comes?|works?)[ \t]+out[ \t]+(?:to|as))"
)
_TRAILING_ITEM_LABEL = (
    r"(?:for|as|in)[ \t]+(?:the[ \t]+)?(?:(?:[A-Za-z][A-Za-z'-]{0,15}|\d+(?:st|nd|rd|th))[ \t]+)?"
    r"(?:coordinate|component|entry|element|term|value|number|root|solution|variable|unknown|slot|place|position)s?"
)
# A label that makes the next value the attempt's: no item of the list before it
_ATTEMPT_LABEL = re.compile(r"\b(?:you|your|yours|attempt|attempts)\b", re.IGNORECASE)

_LIST_SEPARATOR = re.compile(
    rf"[ \t]*(?:\$|\\[()])?[ \t]*(?:{_TRAILING_ITEM_LABEL}[ \t]*)?"
    r"(?:[,;][ \t]*(?:(?:and|or|but)[ \t]+)?|(?:and|or|but)[ \t]+|\\text\s*\{\s*(?:and|or)\s*\}[ \t]*"
    r"|[,;]?[ \t]*\n[ \t]*[-*•][ \t]+)"
    r"(?P<label>(?:(?:[A-Za-zα-ωΑ-Ω][A-Za-z']{0,15}|\d+(?:st|nd|rd|th))[ \t]+){0,2})"
    rf"(?P<link>{_ITEM_LINK}[ \t]+)?(?:\$|\\[()])?[ \t]*",
    re.IGNORECASE,
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


def _approximates(candidate: str, reference: _Reference, marked: bool = False, stated_as_result: bool = False) -> bool:
    """Whether `candidate` is a decimal approximation, to at least `MIN_APPROXIMATION_DIGITS` significant digits, of
    an irrational reference (4.472 or 4.4721 for `2\\sqrt{5}`, 3.14 for `\\pi`): rounded or cut at its last digit.
    A rational reference is stated exactly, or approximately only where its decimal does not end and the decimal is
    `marked` as an approximation ("about 4.667", "4.667...", "4.67 (rounded)" for 14/3), has `MIN_UNMARKED_DIGITS`
    (a program's 4.666667) or, `stated_as_result` ("the computation gives 4.6667"), `MIN_STATED_DIGITS`: a wrong
    attempt's 0.333 is no statement of 1/3. A marked whole number approximates too ("≈ 905" for `288\\pi`), and a
    program's float states any value (`4.999999999` for 5, `0.47368421052631576` for 9/19). In scientific notation
    (`4.667 \\times 10^{0}`, `2.199e1`) the mantissa's digits count, and in a percent ("about 33.33%" for 1/3, for a
    reference that is no percent) the digits before its sign."""
    if reference.variables or not isinstance(reference.value, Fraction | float):
        return False
    text = _UNIT.sub("", candidate).strip()  # "≈ 38.6°" for `\frac{270}{7}` degrees
    percent = not _PERCENT.search(reference.text) and re.fullmatch(r"(?P<number>.+?)\s*\\?%", text)
    text = percent["number"] if percent else text  # "about 33.33%" for 1/3: a hundredth, two more places
    scientific = _MANTISSA_AND_EXPONENT.fullmatch(text)
    exponent = int(scientific["exponent"].replace("−", "-")) if scientific else 0
    exponent -= 2 if percent else 0
    if scientific:
        text = scientific["sign"] + scientific["mantissa"]
    decimal = _DECIMAL.fullmatch(text) or ((marked or scientific) and _WHOLE.fullmatch(text))
    if not decimal:
        return False
    value, exact = Fraction(text) * Fraction(10) ** exponent, Fraction(reference.value)
    significant = len(decimal.group("digits").replace(".", "").lstrip("0"))
    error = abs(value - exact) / max(1, abs(exact))
    if (_FLOAT_NOISE.search(text) and error <= MACHINE_TOLERANCE) or (
        significant >= MIN_FLOAT_REPR_DIGITS and error <= DOUBLE_TOLERANCE
    ):
        return True
    if isinstance(reference.value, Fraction) and (
        _decimal_ends(reference.value)
        or not (
            marked or significant >= MIN_UNMARKED_DIGITS or (stated_as_result and significant >= MIN_STATED_DIGITS)
        )
    ):
        return False
    if significant < MIN_APPROXIMATION_DIGITS:
        return False
    places = (len(decimal.group("digits").split(".")[1]) if "." in decimal.group("digits") else 0) - exponent
    scale = Fraction(10) ** places
    return value in (round(exact * scale) / scale, math.trunc(exact * scale) / scale)
