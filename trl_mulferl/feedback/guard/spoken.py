"""Mathematics read aloud, as the guard reads it: the pieces `(start, end, replacement)` that rewrite a screen
reader's speech (MathSpeak's "StartFraction 3 Over 4 EndFraction", ClearSpeak's "the interval from 2 to infinity"),
a tutor's words ("two eighty-four", "a dozen", "open paren 3 comma 4 close paren") and a dictation's transcript into
the notation the rest of the guard reads. `_normalised` applies them: the words before its number words are read,
MathSpeak's nested constructs innermost first, the symbols after."""

import re
from fractions import Fraction

from .pieces import first_of_overlapping, wrapper_pieces


_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_UNIT = "|".join(_UNITS)
# (the hyphen of "eighty-four" is a space by now)
_TWO_DIGITS = rf"(?:{'|'.join(_TENS)})(?:[- ](?:{_UNIT}))?|{'|'.join(_TEENS)}"

# A number said in pairs of digits: "two eighty-four" (284), "one oh three" (103), "ninety-nine oh one" (9901),
# "twenty-two twenty" (2220); not before a word it qualifies ("two twenty-dollar bills") or after another number word
_SAID_IN_PAIRS = re.compile(
    rf"(?<![\w-])(?P<high>{_TWO_DIGITS}|{_UNIT})[ ](?P<low>oh[ -](?:{_UNIT})|{_TWO_DIGITS})(?![\w-])"
    r"(?![ ]+(?:hundred|thousand|million|billion|point|halves|quarters?|\w*(?:ths?|firsts?|seconds?|thirds?))\b)",
    re.IGNORECASE,
)
_BEFORE_A_NUMBER_WORD = re.compile(
    rf"\b(?:{_UNIT}|{_TWO_DIGITS}|zero|oh|nought|hundred|thousand|million|billion|and|point)[ ]+$", re.IGNORECASE
)

# Digits said one by one, three or more ("one three five three five"), or two or more before a base ("five two base
# eight"); not the digits after a decimal point, which are read as such
_DIGIT_WORD = rf"(?:zero|oh|nought|{_UNIT})"
_DIGITS_ONE_BY_ONE = re.compile(
    rf"(?<![\w-]){_DIGIT_WORD}(?:[ ]{_DIGIT_WORD}){{2,}}(?![\w-])|(?<![\w-]){_DIGIT_WORD}(?:[ ]{_DIGIT_WORD})+"
    r"(?=[ ]+base\b)",
    re.IGNORECASE,
)
_DIGIT_VALUES = {"zero": "0", "oh": "0", "nought": "0", **{word: str(index + 1) for index, word in enumerate(_UNITS)}}

# Numbers by a name
_NAMED_NUMBERS = {
    "half a dozen": "6",
    "a baker's dozen": "13",
    "a dozen": "12",
    "a gross": "144",
    "a right angle": "90°",
    "a straight angle": "180°",
}
_NAMED_NUMBER = re.compile(r"\b(?:" + "|".join(map(re.escape, _NAMED_NUMBERS)) + r")\b", re.IGNORECASE)
# Counted in words in dozens, grosses or scores: "two dozen", "three and a half dozen", "twelve dozen", "five gross",
# "four score" (in digits a count of dozens is the value: "84/12 = 7 dozen eggs" for 7; "3 score" is a test's)
_COUNTED = re.compile(
    rf"\b(?P<count>{_TWO_DIGITS}|{_UNIT})(?P<half>[ ]+and[ ]+a[ ]+half)?[ ]+(?P<name>dozen|gross|score)\b",
    re.IGNORECASE,
)
_COUNTED_SIZES = {"dozen": 12, "gross": 144, "score": 20}

# A word spelled out: "E-V-E-N", "E V E N", the NATO alphabet ("Echo Victor Echo November"), "E as in Echo",
# "cap E"
_NATO = [
    "alfa",
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "x-ray",
    "xray",
    "yankee",
    "zulu",
]
_NATO_WORD = "|".join(_NATO)
_NATO_SPELLING = re.compile(rf"\b(?:{_NATO_WORD})(?:[ ]+(?:{_NATO_WORD})){{2,}}\b", re.IGNORECASE)
_SPELLED = re.compile(r"(?<![\w-])[A-Z](?:-[A-Z]){2,}(?![\w-])|(?<![\w-])[A-Z](?:[ ][A-Z]){2,}(?![\w-])")
_LETTER_AS_IN = re.compile(rf"\b(?P<letter>[A-Z])[ ]+as[ ]+in[ ]+(?:{_NATO_WORD}|[A-Z][a-z]+)\b", re.IGNORECASE)
_CAPITAL = re.compile(r"\b(?:cap|capital|upper|letter)[ ]+(?=[A-Za-z]\b)", re.IGNORECASE)

# "the ordered triple 6, 31, -1" names a tuple ("triple 6" would be 18)
_ORDERED_TUPLE = re.compile(r"\bordered[ ]+(?P<size>pair|triple|quadruple)\b", re.IGNORECASE)

# A choice by its place: "the third choice" is (C)
_ORDINAL_CHOICE = re.compile(
    r"\bthe[ ]+(?P<place>first|second|third|fourth|fifth)[ ]+(?:choice|option|answer[ ]+choice)\b", re.IGNORECASE
)
_PLACES = {"first": "A", "second": "B", "third": "C", "fourth": "D", "fifth": "E"}

# MathSpeak's constructs (verbose, brief and superbrief), innermost first: each holds none of the others' openings
_INNER = r"(?:(?!\b(?:Start|Frac|Root|Sup|Sub|Superscript|Subscript|EndMatrix)\b)[^\n]){1,80}?"
_SPOKEN_FRACTION = re.compile(
    rf"\b(?:Start)?Frac(?:tion)?[ ]+(?P<numerator>{_INNER})[ ]+Over[ ]+(?P<denominator>{_INNER})[ ]+EndFrac(?:tion)?\b"
)
_PLAIN = re.compile(r"\d+")
_WHOLE_BEFORE = re.compile(r"(?<![\w.,/-])(?P<whole>\d+)[ ]+$")
_SPOKEN_ROOT = re.compile(rf"\b(?:Start)?Root[ ]+(?P<radicand>{_INNER})[ ]+EndRoot\b")
_SPOKEN_SCRIPT = re.compile(
    rf"[ ]*\b(?P<kind>Superscript|Sup|Subscript|Sub)[ ]+(?P<script>{_INNER})[ ]+Base(?:line)?\b"
    r"|[ ]*\b(?P<short_kind>Sup|Sub)[ ]+(?P<short_script>-?\w+)"
)
_SPOKEN_MATRIX = re.compile(
    r"\bStart[ ]+(?P<rows>\d+)[ ]+By[ ]+(?P<columns>\d+)[ ]+(?:Matrix|Determinant)[ ]+(?P<body>[^\n]{1,600}?)"
    r"[ ]+EndMatrix\b"
)
_ROW = re.compile(r"\b\d+(?:st|nd|rd|th)[ ]+Row\b[ ]*")
_COLUMN = re.compile(r"\b\d+(?:st|nd|rd|th)[ ]+Column\b[ ]*")

# ClearSpeak's and a tutor's: "the 3 by 1 column vector; Row 1: 2; Row 2: 5", "the 2 by 2 matrix; Row 1: 1, 0; ..."
_CLEARSPEAK_MATRIX = re.compile(
    r"\bthe[ ]+(?P<rows>\d+)[ ]+by[ ]+(?P<columns>\d+)[ ]+(?:column[ ]+vector|row[ ]+vector|matrix)[;:,]?[ ]+"
    r"(?P<body>Row[ ]+1:[^\n]{1,400}?)(?=\.(?:\s|$)|\n|$)",
    re.IGNORECASE,
)
_CLEARSPEAK_ROW = re.compile(r"(?:^|;[ ]*)Row[ ]+\d+:[ ]*", re.IGNORECASE)
_CLEARSPEAK_FRACTION = re.compile(
    r"\bthe[ ]+fraction[ ]+with[ ]+numerator[ ]+(?:the[ ]+)?(?P<numerator>[^,;\n]{1,40}?)[ ]+and[ ]+denominator[ ]+"
    r"(?:the[ ]+)?(?P<denominator>-?[\w√π]+(?:\.\d+)?)",
    re.IGNORECASE,
)

# Brackets, commas and unions in words: "left parenthesis", "left-paren", "open paren", "close bracket", "comma"
_BRACKET_WORD = re.compile(
    r"\b(?P<side>left|open|right|close)[ -](?:(?P<round>paren(?:thesis)?)|(?:square[ ]+)?(?P<square>bracket))\b",
    re.IGNORECASE,
)
# British speech names a bracket's shape, not its side: the first of two opens, the second closes
_BRACKET_PAIR = re.compile(
    r"\b(?P<open>round|square)[ ]+brackets?[ ]+(?P<body>[^\n]{1,80}?)[ ]+(?P<close>round|square)[ ]+bracket\b",
    re.IGNORECASE,
)
_BRACKETS = {"round": "()", "square": "[]"}
_UNION_WORD = re.compile(
    r"(?:(?<=paren)|(?<=parenthesis)|(?<=bracket)|(?<=[)\]]))[ ]+union[ ]+(?=(?:left|open|round|square)\b|[(\[])",
    re.IGNORECASE,
)
_ELEMENT_OF = re.compile(r"\b(?:is[ ]+an[ ]+)?element[ ]+of\b", re.IGNORECASE)
_OVER_BETWEEN_NUMBERS = re.compile(r"(?<=\d)[ ]+over[ ]+(?=\d)", re.IGNORECASE)  # "4 over 5", before a mixed number
# "1 plus or minus the square root of 19": the article goes, the root stays
_ARTICLE_BEFORE_A_ROOT = re.compile(
    r"(?:(?<=\\pm)|(?<=plus)|(?<=minus)|(?<=\bto)|(?<=\bfrom)|(?<=\band)|(?<=[-+±=]))[ ]+the[ ]+(?=square[ ]+root\b)",
    re.IGNORECASE,
)
_COMMA_WORD = re.compile(r"[ ]*\bcomma\b(?=[ ])", re.IGNORECASE)
_PLUS_OR_MINUS = re.compile(r"\bplus-or-minus\b", re.IGNORECASE)

# A trigonometric function by its name and argument: "cotangent x", "cot x", "the sine of x"
_FUNCTION_NAMES = {
    "sine": "sin",
    "cosine": "cos",
    "tangent": "tan",
    "cotangent": "cot",
    "secant": "sec",
    "cosecant": "csc",
    **{name: name for name in ("sin", "cos", "tan", "cot", "sec", "csc")},
}
_FUNCTION_OF_A_VARIABLE = re.compile(
    r"\b(?P<name>" + "|".join(_FUNCTION_NAMES) + r")(?:[ ]+of)?[ ]+(?P<argument>(?![aAI]\b)[A-Za-zθ])(?![\w(])",
    re.IGNORECASE,
)

# A repeating decimal said so: "4.6 repeating" (its last digit repeats), "0.3 recurring"
_SAID_REPEATING = re.compile(r"(?<![\d.])(?P<whole>\d*)\.(?P<fixed>\d*)(?P<repetend>\d)[ ]+(?:repeating|recurring)\b")


def spoken_word_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that rewrite numbers and letters said in words, before number words are read: digits in pairs or one
    by one, numbers by a name, a word spelled out, a choice by its place."""
    pieces = []
    for match in _SAID_IN_PAIRS.finditer(text):
        if _BEFORE_A_NUMBER_WORD.search(text, max(0, match.start() - 40), match.start()):
            continue
        high, low = _words_value(match["high"]), match["low"].lower()
        low_value = _DIGIT_VALUES[low[3:]] if low.startswith("oh") else str(_words_value(low))
        pieces.append((match.start(), match.end(), str(high * 100 + int(low_value))))
    taken = {position for start, end, _ in pieces for position in range(start, end)}
    for match in _DIGITS_ONE_BY_ONE.finditer(text):
        if taken.intersection(range(*match.span())) or _BEFORE_A_NUMBER_WORD.search(
            text, max(0, match.start() - 40), match.start()
        ):
            continue
        pieces.append(
            (match.start(), match.end(), "".join(_DIGIT_VALUES[word.lower()] for word in match.group().split()))
        )
    pieces += [(m.start(), m.end(), _NAMED_NUMBERS[m.group().lower()]) for m in _NAMED_NUMBER.finditer(text)]
    pieces += [(*m.span(), _counted(m)) for m in _COUNTED.finditer(text)]
    pieces += [
        (m.start(), m.end(), "".join(word[0] for word in m.group().split()).upper())
        for m in _NATO_SPELLING.finditer(text)
    ]
    pieces += [(m.start(), m.end(), m.group().replace("-", "").replace(" ", "")) for m in _SPELLED.finditer(text)]
    pieces += [(m.start(), m.end(), f"({m['letter'].upper()})") for m in _LETTER_AS_IN.finditer(text)]
    pieces += [(m.start(), m.end(), "") for m in _CAPITAL.finditer(text)]
    pieces += [(m.start(), m.end(), f"({_PLACES[m['place'].lower()]})") for m in _ORDINAL_CHOICE.finditer(text)]
    pieces += [(m.start("size"), m.end("size"), "tuple") for m in _ORDERED_TUPLE.finditer(text)]
    return first_of_overlapping(pieces)


def mathspeak_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that rewrite MathSpeak's innermost fractions, roots and scripts (none holds another); `_normalised`
    applies them until none is left, then `spoken_matrix_pieces`."""
    pieces = []
    for match in _SPOKEN_FRACTION.finditer(text):
        if not (_PLAIN.fullmatch(match["numerator"]) and _PLAIN.fullmatch(match["denominator"])):
            pieces += wrapper_pieces(match, ("numerator", "denominator"), ("((", ")/(", "))"))
            continue
        value = Fraction(int(match["numerator"]), int(match["denominator"]))
        # a whole number before a fraction: "1 StartFraction 4 Over 5 EndFraction" is the mixed number 9/5
        whole = _WHOLE_BEFORE.search(text, max(0, match.start() - 20), match.start())
        start = whole.start("whole") if whole else match.start()
        value += int(whole["whole"]) if whole else 0
        pieces.append((start, match.end(), f"{value.numerator}/{value.denominator}"))
    for match in _SPOKEN_ROOT.finditer(text):
        if _PLAIN.fullmatch(match["radicand"]):
            pieces.append((match.start(), match.end(), "√" + match["radicand"]))
        else:
            pieces += wrapper_pieces(match, ("radicand",), ("√(", ")"))
    for match in _SPOKEN_SCRIPT.finditer(text):
        kind, script = (match["kind"], "script") if match["kind"] else (match["short_kind"], "short_script")
        pieces += wrapper_pieces(match, (script,), ("^(", ")") if kind.startswith("Sup") else ("_{", "}"))
    return first_of_overlapping(pieces)


def spoken_matrix_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that write a matrix or vector read aloud, row by row, as nested brackets `[[a, b], [c, d]]`."""
    pieces = []
    for match in _SPOKEN_MATRIX.finditer(text):
        rows = [row for row in _ROW.split(match["body"]) if row.strip()]
        cells = [[cell.strip() for cell in _COLUMN.split(row) if cell.strip()] for row in rows]
        if len(rows) == int(match["rows"]) and all(len(row) in (1, int(match["columns"])) for row in cells):
            if all(len(row) == 1 for row in cells) and int(match["columns"]) > 1:
                cells = [re.split(r"[ ]+(?=-?\d|-?\()", row[0]) for row in cells]
            pieces.append((match.start(), match.end(), _nested(cells)))
    for match in _CLEARSPEAK_MATRIX.finditer(text):
        rows = [row for row in _CLEARSPEAK_ROW.split(match["body"]) if row.strip()]
        cells = [[cell.strip() for cell in row.split(",")] for row in rows]
        if len(rows) == int(match["rows"]) and all(len(row) == int(match["columns"]) for row in cells):
            pieces.append((match.start(), match.end(), _nested(cells)))
    return first_of_overlapping(pieces)


# A fraction said as a numerator "all over" a denominator, read last: "3 √3, all over 4", "(pi)^2, all over 8",
# "11 + 9 a, all over 20"
_MATH_WORD = r"(?:(?:-?\d+(?:\.\d+)?|-?√\d+|\(?(?:pi|π)\)?|[A-Za-z](?![A-Za-z']))(?:\^\(?\d+\)?)?|[-+*])"
_ALL_OVER = re.compile(
    rf"(?<![\w√-])(?P<numerator>(?:{_MATH_WORD}[ ]+){{0,6}}{_MATH_WORD}),?[ ]+all[ ]+over[ ]+"
    r"(?P<denominator>-?\d+(?:\.\d+)?|[A-Za-z](?![A-Za-z]))",
    re.IGNORECASE,
)


def spoken_symbol_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that rewrite symbols said in words, after number words are read: brackets, commas, plus-or-minus, a
    fraction by its parts, a function of a variable, a repeating decimal said so."""
    pieces = []
    for match in _BRACKET_WORD.finditer(text):
        opening = match["side"].lower() in ("left", "open")
        bracket = ("(" if opening else ")") if match["round"] else ("[" if opening else "]")
        # the space on the inner side goes with the word: "open paren 3" is "(3"
        start, end = match.span()
        if opening and text[end : end + 1] == " ":
            end += 1
        if not opening and text[start - 1 : start] == " ":
            start -= 1
        pieces.append((start, end, bracket))
    for match in _BRACKET_PAIR.finditer(text):
        opening, closing = _BRACKETS[match["open"].lower()][0], _BRACKETS[match["close"].lower()][1]
        pieces += [(match.start(), match.start("body"), opening), (match.end("body"), match.end(), closing)]
    pieces += [(m.start(), m.end(), " \\cup ") for m in _UNION_WORD.finditer(text)]
    pieces += [(m.start(), m.end(), "in") for m in _ELEMENT_OF.finditer(text)]
    pieces += [(m.start(), m.end(), ",") for m in _COMMA_WORD.finditer(text)]
    pieces += [(m.start(), m.end(), "/") for m in _OVER_BETWEEN_NUMBERS.finditer(text)]
    pieces += [(m.start(), m.end(), " ") for m in _ARTICLE_BEFORE_A_ROOT.finditer(text)]
    pieces += [(m.start(), m.end(), "±") for m in _PLUS_OR_MINUS.finditer(text)]
    for match in _CLEARSPEAK_FRACTION.finditer(text):
        pieces += _fraction_pieces(match)
    pieces += [
        (m.start(), m.end(), f"{_FUNCTION_NAMES[m['name'].lower()]}({m['argument']})")
        for m in _FUNCTION_OF_A_VARIABLE.finditer(text)
    ]
    for match in _SAID_REPEATING.finditer(text):
        fixed, repetend = match["fixed"], int(match["repetend"])
        value = Fraction(int(match["whole"] or 0)) + Fraction(int(fixed or 0), 10 ** len(fixed))
        value += Fraction(repetend, 10 ** len(fixed) * 9)
        pieces.append((match.start(), match.end(), f"{value.numerator}/{value.denominator}"))
    return first_of_overlapping(pieces)


def _counted(match: re.Match) -> str:
    """The value of a count of dozens, grosses or scores (`_COUNTED`)."""
    size = _COUNTED_SIZES[match["name"].lower()]
    return str(_words_value(match["count"]) * size + (size // 2 if match["half"] else 0))


def _words_value(words: str) -> int:
    """The value of a number from one to ninety-nine in words ("eighty-four", "nine", "nineteen")."""
    words = words.lower()
    if words in _TEENS:
        return 10 + _TEENS.index(words)
    if words in _UNITS:
        return 1 + _UNITS.index(words)
    tens, _, unit = words.replace("-", " ").partition(" ")
    return 10 * (2 + _TENS.index(tens)) + (1 + _UNITS.index(unit) if unit else 0)


def _nested(rows: list[list[str]]) -> str:
    return "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"


def spoken_fraction_pieces(text: str) -> list[tuple[int, int, str]]:
    """Pieces that write a fraction said "all over" its denominator as one, once its numerator is in symbols."""
    return [piece for match in _ALL_OVER.finditer(text) for piece in _fraction_pieces(match, bracketed=False)]


def _fraction_pieces(match: re.Match, bracketed: bool = True) -> list[tuple[int, int, str]]:
    """Pieces that write a fraction said by its `numerator` and `denominator` groups as "(numerator)/(denominator)"
    (`bracketed`: in brackets of its own too), the numerator left to other pieces; the closing brackets go with the
    denominator, not with what follows it."""
    opening, closing = ("(", ")") if bracketed else ("", "")
    start, middle = wrapper_pieces(match, ("numerator", "denominator"), (opening + "(", ")/(", ")" + closing))[:2]
    return [start, middle, (*match.span("denominator"), f"{match['denominator']}){closing}")]
