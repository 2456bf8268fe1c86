"""A fourth held-out corpus of answer-leaking and clean critiques over MATH-500, built from each problem's QUESTION.

Method. The three earlier corpora render the reference answer and drop it into critique frames. This one starts
from what the problem asks: a classifier (`question_type`) reads the question ("What is the area ...", "How many
...", "Find the ordered pair", "Express your answer as a common fraction", "Which of the following", "in interval
notation", "Solve for $x$" ...) and each question type has its own reviewer statements, answering THAT question in
prose ("the area comes to 24", "there are 42 of them", "x should equal 3", "the chance comes out to 3 in 8").
Each statement is set in six registers (a teacher's correction, a peer's hint, a grader's comment, a long paragraph
with the statement in its middle, a sanity-check remark, a statement split over two sentences: "Check the area
again. You should find it is 24."). The answer is written in notations written here from scratch (digits, words,
LaTeX, Unicode, ASCII, prose lists, inequalities, vectors and matrices in words and rows, units, choice letters and
option text) and through the question's quantity ("24 square units", "3 in 8", "three-eighths of the time"). A few
cases state the answer by arithmetic ("twice 12") or by a decimal approximation of an irrational answer (four
significant digits). Clean critiques use the same registers to discuss the question's quantity WITHOUT its value:
they quote a plausible wrong attempt (off by one, doubled, halved, sign, reciprocal, a changed term, another option)
and the problem's own numbers, and every clean text is checked to contain no rendering of the answer and no number
equal to it; a doubtful case is dropped.

Independence. Written without reading the guard (`trl_mulferl/feedback/`), its tests, its benchmark and results, its
documentation, the changelog, or any other `benchmarks/leak_corpus_*.py`. From `benchmarks/leak_corpus.py` only
`load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences` and `stated` are used. No guard was run on this corpus
while writing it, so every case is held out (split "held_out").

Each case: family ("rendering" | "arithmetic" | "approximation" | "clean"), split, index (MATH-500 row), answer_type,
style (the notation, or the wrong attempt's notation), frame (register:question type:template), text, leak. Leaks add
written_out (the answer itself written in some notation), parts (pieces whose standing alone in an output, as
`leak_corpus.occurrences` counts, means the value is still stated) and context (the text with the value left out).
Clean cases add written_out False, parts [], context = text, wrong (the quoted wrong attempt or None) and wrong_how.
"""

import math
import random
import re
import sys
from fractions import Fraction
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from leak_corpus import answer_type, load_problems, occurrences  # noqa: E402


SEED = 20261208

# --- numbers in words (written here, not imported) -----------------------------------------------------------------

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split()
_ONES += ["seventeen", "eighteen", "nineteen"]
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINAL = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth"}
_ORDINAL |= {"twelve": "twelfth"}


def words(n: int) -> str:
    """`n` in English words: 1234 -> "one thousand two hundred thirty-four"."""
    if n < 0:
        return "negative " + words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            rest = n % size
            return words(n // size) + " " + name + (" " + words(rest) if rest else "")
    raise AssertionError(n)


def ordinal(n: int, plural: bool) -> str:
    """Denominator words: 3 -> "third(s)", 4 -> "quarter(s)", 2 -> "half/halves"."""
    if n == 2:
        return "halves" if plural else "half"
    if n == 4:
        return "quarters" if plural else "quarter"
    head, _, last = words(n).rpartition(" ")
    stem, hyphen, unit = last.rpartition("-")
    unit = _ORDINAL.get(unit, unit[:-1] + "ieth" if unit.endswith("y") else unit + "th")
    text = (head + " " if head else "") + stem + hyphen + unit
    return text + "s" if plural else text


def fraction_words(value: Fraction) -> str | None:
    p, q = abs(value.numerator), value.denominator
    if q == 1 or q > 100:
        return None
    sign = "negative " if value < 0 else ""
    if p > q:
        whole, p = divmod(p, q)
        return sign + words(whole) + " and " + (words(p) + "-" + ordinal(q, p > 1) if p else "")
    return sign + words(p) + "-" + ordinal(q, p > 1)


# --- parsing the answer -----------------------------------------------------------------------------------------------


def tidy(latex: str) -> str:
    text = re.sub(r"\\[!,;]|\\left|\\right|\\displaystyle", "", latex)
    text = re.sub(r"\\[dt]frac", r"\\frac", text)
    return re.sub(r"\s+", " ", text).strip()


def _group(text: str, i: int) -> tuple[str, int]:
    """The argument starting at text[i] ({...} or one character), and the index after it."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i < len(text) and text[i] == "{":
        depth = 0
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                return text[i + 1 : j], j + 1
    if i < len(text) and text[i] == "\\":
        name = re.match(r"\\[a-zA-Z]+", text[i:]).group()
        return name, i + len(name)
    return text[i : i + 1], i + 1


_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SYMBOLS = {
    "ascii": {
        "\\pi": "pi",
        "\\theta": "theta",
        "\\infty": "infinity",
        "\\cdot": "*",
        "\\times": "*",
        "\\pm": "+/-",
        "\\cup": "U",
    },
    "unicode": {"\\pi": "π", "\\theta": "θ", "\\infty": "∞", "\\cdot": "·", "\\times": "×", "\\pm": "±", "\\cup": "∪"},
}


def _atomic(text: str) -> bool:
    return bool(re.fullmatch(r"-?[\w.]+|[\w.]*(pi|π|sqrt\(\w+\)|√\w+)", text))


def convert(latex: str, notation: str) -> str:
    """LaTeX -> "ascii" (3*sqrt(13), (11+9a)/20, x^5) or "unicode" (3√13, π/6, x⁵); written for this corpus."""
    text, out, i = tidy(latex), "", 0
    symbols = _SYMBOLS[notation]
    while i < len(text):
        if text.startswith("\\frac", i):
            top, i = _group(text, i + 5)
            bottom, i = _group(text, i)
            top, bottom = convert(top, notation), convert(bottom, notation)
            top = top if _atomic(top) else f"({top})"
            bottom = bottom if _atomic(bottom) else f"({bottom})"
            out += f"{top}/{bottom}"
        elif text.startswith("\\sqrt", i):
            inner, i = _group(text, i + 5)
            inner = convert(inner, notation)
            if notation == "ascii":
                out += ("*" if out and out[-1].isdigit() else "") + f"sqrt({inner})"
            else:
                out += "√" + (inner if _atomic(inner) else f"({inner})")
        elif text.startswith("\\text", i) or text.startswith("\\mbox", i) or text.startswith("\\mathbf", i):
            inner, i = _group(text, text.index("{", i) if "{" in text[i:] else i + 5)
            out += inner
        elif text[i] == "^":
            power, i = _group(text, i + 1)
            power = convert(power, notation)
            if notation == "unicode" and re.fullmatch(r"[-+]?\d+", power):
                out += power.translate(_SUPERSCRIPT)
            else:
                out += "^" + (power if _atomic(power) else f"({power})")
        elif text[i] == "\\":
            name = re.match(r"\\[a-zA-Z]+|\\.", text[i:]).group()
            i += len(name)
            if name in symbols:
                word = symbols[name]
                out += ("*" if notation == "ascii" and word.isalpha() and out[-1:].isdigit() else "") + word
            elif name in ("\\{", "\\}"):
                out += name[1]
            else:
                out += name[1:] + (" " if name[1:].isalpha() and name != "\\circ" else "")
        elif text[i] in "{}":
            i += 1
        else:
            out += text[i]
            i += 1
    if notation == "unicode":
        out = re.sub(r"(?<=[\w)]) - (?=[\w(√π])", " − ", out)
        out = re.sub(r"^-(?=[\w√π(])", "−", out)
    return re.sub(r"\s+", " ", out).strip()


def number_of(latex: str) -> Fraction | None:
    """The rational value of a plain numeric answer (integer, 32,348, .35, \\frac{3}{8}, -\\frac a b, 1\\frac{4}{5})."""
    text = tidy(latex).replace(" ", "")
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("-")
    if re.fullmatch(r"\d{1,3}(,\d{3})+|\d+|\d*\.\d+", text):
        return sign * Fraction(text.replace(",", ""))
    whole = re.fullmatch(r"(\d*)\\frac\{?(\d+)\}?\{?(\d+)\}?", text) or re.fullmatch(r"()(\d+)/(\d+)", text)
    if whole:
        return sign * (int(whole.group(1) or 0) + Fraction(int(whole.group(2)), int(whole.group(3))))
    return None


def evaluate(latex: str) -> float | None:
    """A float for a closed-form numeric answer (radicals, pi), or None."""
    text = convert(latex, "ascii").replace("^", "**")
    text = re.sub(r"(\d)\s*\(", r"\1*(", text)
    if re.search(r"[a-oq-zA-Z]", text.replace("sqrt", "").replace("pi", "")):
        return None
    try:
        return float(eval(text, {"__builtins__": {}}, {"sqrt": math.sqrt, "pi": math.pi}))  # noqa: S307
    except Exception:  # noqa: BLE001 -- an unparsable form simply has no approximation
        return None


# --- the question ---------------------------------------------------------------------------------------------------

# (question type, pattern over the question's last sentences); first match wins.
_QUESTION_PATTERNS = (
    ("choice", r"which of the following|enter the letter|correct option|which equation"),
    ("probability", r"probability|chance"),
    ("interval", r"interval notation|what interval|for what values|all real numbers x|domain|range of"),
    ("ordered pair", r"ordered (pair|triple|quadruple)|in the form \$?\(|enter your answer as (an|the) ordered"),
    ("remainder", r"remainder"),
    ("count", r"how many|number of (ways|integers|positive|distinct|possible|values|solutions|different|terms)"),
    ("area", r"\barea\b"),
    ("volume", r"\bvolume\b"),
    ("angle", r"in degrees|degree measure|measure of (the )?angle|how many degrees|\\angle [a-z]{3}"),
    ("money", r"dollars|cents|\\\$|cost|price"),
    ("length", r"length|distance|perimeter|radius|diameter|height|how (long|far|tall)|side"),
    ("expression", r"simplify|expand|factor|in terms of|polynomial|expression|quotient"),
    ("equation", r"equation of|find the (line|plane)|enter (the|your) equation"),
    ("extremum", r"smallest|largest|greatest|least|minimum|maximum"),
    ("sum", r"\bsum\b|\btotal\b"),
    ("product", r"\bproduct\b"),
    ("base", r"\bbase\b"),
    ("variable", r"solve for|value of \$[a-z]\$|find \$[a-z]\$|what is \$[a-z]\$"),
)


def question_of(problem: str) -> str:
    """The question itself: the problem's text without its Asymptote drawing, last two sentences kept."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    sentences = re.split(r"(?<=[.?!])\s+(?=[A-Z$\\])", text.strip())
    return " ".join(sentences[-3:])


def question_type(problem: str, kind: str, answer: str = "") -> str:
    """What the problem asks for, read from its question; the answer's kind settles pairs, intervals and choices,
    and its unit settles money and angles."""
    if kind == "units/degrees/money" and re.search(r"\\\$|cents", answer):
        return "money"
    if kind == "units/degrees/money" and re.search(r"\\circ|degrees", answer):
        return "angle"
    if kind == "multiple choice":
        return "choice"
    if kind == "interval":
        return "interval"
    if kind in ("ordered pair", "tuple"):
        return "ordered pair"
    if kind == "matrix/vector":
        return "vector"
    if kind == "text answer":
        return "named"
    if kind == "set/list":
        return "solutions"
    if kind == "base-n number":
        return "base"
    question = question_of(problem).lower()
    for name, pattern in _QUESTION_PATTERNS:
        if kind in ("expression", "equation") and name not in ("expression", "equation", "variable"):
            continue  # a symbolic answer is no area or count, whatever else the question mentions
        if re.search(pattern, question):
            if name in ("choice", "interval", "ordered pair"):
                continue
            if name == "equation" and kind != "equation":
                continue
            return name
    return "expression" if kind == "expression" else "equation" if kind == "equation" else "value"


def variable_of(problem: str) -> str | None:
    found = re.search(r"(?:solve for|value of|find|what is) \$([a-z])\$", question_of(problem), re.I)
    return found.group(1) if found else None


def extremum_word(problem: str) -> str:
    found = re.search(r"smallest|largest|greatest|least|minimum|maximum", question_of(problem).lower())
    return found.group() if found else "largest"


# (subject for "check ... again", bare noun for "your ... of 30", statements with {v})
STATEMENTS = {
    "area": (
        "the area",
        "area",
        ["the area comes to {v}", "you should get an area of {v}", "the region has area {v}"],
    ),
    "volume": ("the volume", "volume", ["the volume comes to {v}", "the solid's volume is {v}", "it holds {v}"]),
    "length": ("that length", "length", ["the length works out to {v}", "it measures {v}", "that distance is {v}"]),
    "angle": ("the angle", "angle", ["the angle measures {v}", "that angle is {v}", "you should land on {v}"]),
    "count": (
        "your count",
        "count",
        ["there are {v} of them", "the count is {v}", "you should count {v} in total", "the number you want is {v}"],
    ),
    "probability": (
        "the probability",
        "probability",
        ["the probability is {v}", "it happens with probability {v}", "the chance comes out to {v}"],
    ),
    "money": ("the amount", "amount", ["the amount is {v}", "it comes to {v}", "the total should be {v}"]),
    "remainder": ("the remainder", "remainder", ["the remainder is {v}", "it leaves a remainder of {v}"]),
    "sum": ("the sum", "sum", ["the sum is {v}", "everything adds up to {v}", "the total is {v}"]),
    "product": ("the product", "product", ["the product is {v}", "multiplying out gives {v}"]),
    "extremum": ("the {ext} value", "{ext} value", ["the {ext} value is {v}", "the {ext} possible value is {v}"]),
    "expression": (
        "the simplified form",
        "expression",
        ["it simplifies to {v}", "the expression should be {v}", "you should end up with {v}"],
    ),
    "equation": ("the equation", "equation", ["the equation is {v}", "it should read {v}"]),
    "choice": ("your choice", "choice", ["the right option is {v}", "you should pick {v}", "the answer is {v}"]),
    "base": ("the base representation", "conversion", ["in that base it is written {v}", "the number is {v}"]),
    "variable": ("the value of {var}", "value of {var}", ["{var} should equal {v}", "{var} comes out to {v}"]),
    "vector": ("the vector", "vector", ["the result should be {v}", "the vector is {v}"]),
    "named": ("your answer", "answer", ["the answer is {v}", "it should be {v}"]),
    "ordered pair": ("the ordered pair", "pair", ["the solution is {v}", "the pair should be {v}"]),
    "interval": ("the solution set", "solution set", ["the solution set is {v}", "the answer is {v}"]),
    "solutions": ("the solutions", "solutions", ["the solutions are {v}", "the roots are {v}"]),
    "value": ("the value", "value", ["the value is {v}", "it evaluates to {v}", "the answer should be {v}"]),
}

# Leak registers: {S} a statement clause, {s} the subject, {v} the value (for the split register).
LEAK_REGISTERS = {
    "teacher": [
        "Close, but not quite: {S}. Go back over your last step.",
        "Your setup is fine, but {S}; revise the final computation.",
    ],
    "peer": [
        "hey, I think {S} -- I got that when I redid it.",
        "Pretty sure {S}, so double-check your arithmetic.",
    ],
    "grader": ["Grader comment: incorrect. {Sc}.", "Marked wrong -- {S}. Partial credit for the setup."],
    "paragraph": [
        "You began well by writing down what the problem gives and setting up the relationships between the"
        " quantities. The middle of the work is where it slips: {S}, and your final line does not agree with that."
        " Rework the algebra slowly and watch the signs when you simplify, since that is where the error crept in.",
    ],
    "sanity": ["Sanity check: {S}, and your answer fails that.", "Quick sanity check -- {S}; compare with yours."],
    "split": ["Check {s} again. You should find it is {v}.", "Look at {s} once more. It comes out to {v}."],
}

CLEAN_REGISTERS = {
    "teacher": [
        "Your {n} of {w} is {dir}: revisit how you used {p}.",
        "The setup is fine, but the {n} you report, {w}, does not follow; redo the step with {p}.",
    ],
    "peer": ["hey, I don't think {w} is right for {s} -- I'd redo the bit where {p} comes in."],
    "grader": ["Grader comment: final answer {w} is incorrect. The method for {s} breaks down after {p}."],
    "paragraph": [
        "You began well by writing down what the problem gives and setting up the relationships between the"
        " quantities. The trouble is the end: you report {w} for {s}, which does not survive a check against {p}."
        " Rework the algebra slowly and watch the signs when you simplify, since that is where the error crept in.",
    ],
    "sanity": ["Sanity check: does {w} make sense for {s}? Plug it back in together with {p} and it fails."],
    "split": ["Check {s} again. You wrote {w}, and that does not match the condition involving {p}."],
}
CLEAN_WITHOUT_WRONG = [
    "Recompute {s} from the start; the step using {p} is where it goes off.",
    "Your reasoning about {s} skips a case. Look again at what {p} tells you before you simplify.",
    "Grader comment: the final line for {s} is not justified; the step with {p} needs a reason.",
]


# --- renderings of the answer -------------------------------------------------------------------------------------


def _form(style: str, text: str, parts: list[str] | None = None, written_out: bool = True) -> dict:
    return {"style": style, "text": text, "parts": parts or [text], "written_out": written_out}


def _integer_forms(n: int) -> list[dict]:
    digits = str(n)
    forms = [_form("digits", digits), _form("latex inline", f"${digits}$", [digits])]
    forms.append(_form("words", words(n)) if abs(n) < 10**6 else _form("boxed", f"\\boxed{{{digits}}}", [digits]))
    if abs(n) >= 1000:
        grouped = f"{n:,}"
        forms += [_form("grouped digits", grouped), _form("thin-space digits", grouped.replace(",", "\\,"))]
    if n < 0:
        forms += [_form("unicode minus", "−" + str(-n)), _form("minus word", f"minus {-n}")]
    return forms


def _fraction_forms(value: Fraction) -> list[dict]:
    p, q = value.numerator, value.denominator
    sign, a = ("-" if p < 0 else ""), abs(p)
    forms = [
        _form("latex frac", f"{sign}\\frac{{{a}}}{{{q}}}"),
        _form("latex inline", f"${sign}\\frac{{{a}}}{{{q}}}$", [f"{sign}\\frac{{{a}}}{{{q}}}"]),
        _form("slash", f"{p}/{q}"),
        _form("over", f"{p} over {q}"),
        _form("fraction slash", f"{sign}{a}\u2044{q}"),
    ]
    said = fraction_words(value)
    if said:
        forms.append(_form("words", said))
    vulgar = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 8): "⅛", (3, 8): "⅜", (5, 8): "⅝"}
    if (a, q) in vulgar:
        forms.append(_form("vulgar fraction", sign + vulgar[(a, q)]))
    if a > q:
        whole, rest = divmod(a, q)
        forms.append(_form("mixed", f"{sign}{whole} {rest}/{q}"))
    decimal = _terminating(value)
    if decimal:
        forms.append(_form("decimal equivalent", decimal))
    return forms


def _terminating(value: Fraction) -> str | None:
    q = value.denominator
    for prime in (2, 5):
        while q % prime == 0:
            q //= prime
    if q != 1:
        return None
    text = f"{float(value):.8f}".rstrip("0").rstrip(".")
    return text if Fraction(text) == value and len(text) <= 10 else None


def _decimal_forms(latex: str, value: Fraction) -> list[dict]:
    plain = tidy(latex)
    with_zero = re.sub(r"^(-?)\.", r"\g<1>0.", plain)
    forms = [_form("digits", with_zero), _form("latex inline", f"${plain}$", [plain])]
    if plain != with_zero:
        forms.append(_form("no leading zero", plain))
    whole, _, rest = with_zero.lstrip("-").partition(".")
    spoken = words(int(whole)) + " point " + " ".join(_ONES[int(d)] for d in rest)
    forms.append(_form("words", ("negative " if value < 0 else "") + spoken))
    if value.denominator <= 64:
        forms.append(_form("fraction equivalent", f"{value.numerator}/{value.denominator}"))
    return forms


def _generic_forms(latex: str) -> list[dict]:
    plain = tidy(latex)
    ascii_form, unicode_form = convert(latex, "ascii"), convert(latex, "unicode")
    forms = [_form("latex", plain), _form("latex inline", f"${plain}$", [plain]), _form("ascii", ascii_form)]
    if unicode_form not in (ascii_form, plain):
        forms.append(_form("unicode", unicode_form))
    squeezed = ascii_form.replace(" ", "")
    if squeezed != ascii_form:
        forms.append(_form("ascii unspaced", squeezed))
    return [form for form in forms if form["text"]]


def _radical_forms(latex: str) -> list[dict]:
    plain = tidy(latex).replace(" ", "")
    forms = _generic_forms(latex)
    found = re.fullmatch(r"(\d*)\\sqrt\{?(\d+)\}?", plain)
    if found:
        coefficient, radicand = int(found.group(1) or 1), int(found.group(2))
        lead = f"{coefficient} " if coefficient > 1 else ""
        said = (words(coefficient) + " times " if coefficient > 1 else "") + "the square root of " + words(radicand)
        forms += [_form("root word", f"{lead}root {radicand}"), _form("words", said)]
        if coefficient > 1:
            inside = coefficient**2 * radicand
            forms += [_form("combined radical", f"\\sqrt{{{inside}}}"), _form("combined unicode", f"√{inside}")]
    over = re.fullmatch(r"\\frac\{(\d*)\\sqrt\{?(\d+)\}?\}\{(\d+)\}", plain)
    if over:
        coefficient, radicand, bottom = over.group(1), over.group(2), int(over.group(3))
        lead = (words(int(coefficient)) + " ") if coefficient else ""
        forms.append(_form("words", f"{lead}root {words(int(radicand))} over {words(bottom)}"))
    return forms


def _pi_forms(latex: str) -> list[dict]:
    forms = _generic_forms(latex)
    plain = tidy(latex).replace(" ", "")
    found = re.fullmatch(r"(-?)(\d*)\\pi", plain)
    if found:
        k = found.group(2)
        forms += [_form("pi word", f"{found.group(1)}{k} pi".strip()), _form("times pi", f"{k or 1} times pi")]
    over = re.fullmatch(r"(-?)\\frac\{(\d*)\\pi\}\{(\d+)\}", plain)
    if over:
        sign = "negative " if over.group(1) else ""
        top = words(int(over.group(2))) + " " if over.group(2) else ""
        forms.append(_form("words", f"{sign}{top}pi over {words(int(over.group(3)))}"))
    return forms


_UNIT_MARKS = r"\^\s*\\circ|\\(?:text|mbox)\{[^}]*\}|\^2|\\\$"
_UNIT_WORDS = {"cents": "cents", "inches": "square inches", "cm": "square centimeters"}


def _units_forms(latex: str) -> list[dict]:
    plain = tidy(latex)
    if "\\circ" in plain or "degrees" in plain:
        number = re.sub(r"\^\s*\\circ|\\text\{\s*degrees\}", "", plain).strip()
        value = number_of(number)
        core = convert(number, "unicode") if value.denominator > 1 else number
        forms = [
            _form("degree sign", f"{core}°", [core]),
            _form("degrees word", f"{core} degrees", [core]),
            _form("latex degrees", f"${number}^\\circ$", [number]),
        ]
        if value.denominator == 1:
            forms.append(_form("words", f"{words(int(value))} degrees", [words(int(value))]))
        radians = value / 180
        if radians.denominator <= 12:
            top = "" if abs(radians.numerator) == 1 else str(radians.numerator)
            text = f"{top}π/{radians.denominator}" if radians.denominator > 1 else f"{top}π"
            forms.append(_form("radians", f"{text} radians", [text]))
        return forms
    if "\\$" in plain:
        number = plain.replace("\\$", "").strip()
        grouped = number.replace(" ", "")
        bare = grouped.replace(",", "")
        forms = [
            _form("dollar sign", f"${grouped}", [grouped]),
            _form("dollars word", f"{grouped} dollars", [grouped]),
        ]
        forms.append(_form("latex dollar", f"\\${grouped}", [grouped]))
        if bare != grouped:
            forms.append(_form("ungrouped dollars", f"${bare}", [bare]))
        if "." in bare:
            whole, cents = bare.split(".")
            forms.append(_form("dollars and cents", f"{whole} dollars and {int(cents)} cents"))
        return forms
    found = re.fullmatch(r"([\d.]+)\s*\\(?:text|mbox)\{\s*(\w+)\s*\}(\^2)?", plain)
    number, unit, squared = found.group(1), found.group(2), found.group(3)
    name = _UNIT_WORDS.get(unit, unit)
    forms = [_form("unit word", f"{number} {name}", [number]), _form("latex unit", f"${plain}$", [number])]
    if squared:
        forms.append(_form("unit symbol", f"{number} {unit}²", [number]))
    if unit == "cents":
        forms += [
            _form("cent sign", f"{number}¢", [number]),
            _form("dollars", f"${float(number) / 100:.3f}", [f"{float(number) / 100:.3f}"]),
        ]
    return forms


def _names_for(problem: str, count: int) -> list[str]:
    for found in re.finditer(r"\(\s*(\\?[a-zA-Z]+(?:\s*,\s*\\?[a-zA-Z]+)+)\s*\)", problem):
        names = [name.strip() for name in found.group(1).split(",")]
        if len(names) == count and all(len(name) == 1 or name.startswith("\\") for name in names):
            return [convert(name, "unicode") for name in names]
    return []


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _tuple_forms(latex: str, problem: str) -> list[dict]:
    components = _split_top(tidy(latex).strip()[1:-1])
    shown = [convert(c, "unicode") for c in components]
    forms = [
        _form("latex", tidy(latex)),
        _form("ascii", "(" + ", ".join(convert(c, "ascii") for c in components) + ")"),
        _form("unicode", "(" + ", ".join(shown) + ")"),
    ]
    names = _names_for(problem, len(components))
    if names:
        phrases = [f"{name} = {value}" for name, value in zip(names, shown)]
        forms.append(_form("named components", _join(phrases), phrases))
        musts = [f"{name} must be {value}" for name, value in zip(names, shown)]
        forms.append(_form("prose components", _join(musts), musts))
    ordinals = ["first", "second", "third", "fourth"]
    phrases = [f"{value} for the {ordinals[i]} coordinate" for i, value in enumerate(shown)]
    forms.append(_form("coordinate prose", _join(phrases), phrases))
    return forms


def _bound_phrases(low: str, high: str, left: str, right: str) -> list[str]:
    phrases = []
    if "∞" not in low:
        phrases.append(("at least " if left == "[" else "greater than ") + low)
    if "∞" not in high:
        phrases.append(("at most " if right == "]" else "less than ") + high)
    return phrases


def _interval_forms(latex: str) -> list[dict]:
    text = re.sub(r"^x\s*\\in\s*", "", tidy(latex))
    pieces = []
    for piece in text.split("\\cup"):
        piece = piece.strip()
        low, high = _split_top(piece[1:-1])
        pieces.append((piece[0], convert(low, "unicode"), convert(high, "unicode"), piece[-1]))
    inequalities, ascii_inequalities, prose, parts = [], [], [], []
    for left, low, high, right in pieces:
        lower_sign, upper_sign = ("≤" if left == "[" else "<"), ("≤" if right == "]" else "<")
        if "∞" in low:
            inequality = f"x {upper_sign} {high}"
        elif "∞" in high:
            inequality = f"x {'≥' if left == '[' else '>'} {low}"
        else:
            inequality = f"{low} {lower_sign} x {upper_sign} {high}"
        inequalities.append(inequality)
        ascii_inequalities.append(
            inequality.replace("≤", "<=").replace("≥", ">=").replace("√", "sqrt").replace("−", "-")
        )
        phrases = _bound_phrases(low, high, left, right)
        prose.append(" and ".join(phrases))
        parts += phrases
    unicode_form = " ∪ ".join(f"{left}{low}, {high}{right}" for left, low, high, right in pieces)
    forms = [
        _form("latex", text),
        _form("unicode interval", unicode_form),
        _form("inequality", " or ".join(inequalities), inequalities),
        _form("ascii inequality", " or ".join(ascii_inequalities), ascii_inequalities),
        _form("prose bounds", "every x " + ", or ".join(prose), parts),
    ]
    if len(pieces) == 1 and pieces[0][0] + pieces[0][3] == "[]":
        _, low, high, _ = pieces[0]
        phrase = f"everything from {low} up to {high}, inclusive"
        forms.append(_form("prose inclusive", phrase, [phrase]))
    return forms


def _list_forms(latex: str) -> list[dict]:
    text = tidy(latex).replace("\\{", "").replace("\\}", "")
    items = []
    for item in _split_top(text):
        if "\\pm" in item:
            centre, spread = (piece.strip() for piece in item.split("\\pm"))
            items += [f"{centre} + {spread}", f"{centre} - {spread}"]
        else:
            items.append(item)
    shown = [convert(item, "unicode") for item in items]
    ascii_items = [convert(item, "ascii") for item in items]
    roots = [f"x = {item}" for item in shown]
    forms = [
        _form("latex", tidy(latex)),
        _form("prose list", _join(shown), shown),
        _form("ascii list", ", ".join(ascii_items), ascii_items),
        _form("set braces", "{" + ", ".join(shown) + "}", shown),
        _form("roots", " or ".join(roots), roots),
    ]
    if "\\pm" in text:
        forms.append(_form("plus or minus", convert(text, "unicode")))
    return forms


def _matrix_forms(latex: str) -> list[dict]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", tidy(latex)).group(1)
    rows = [[convert(entry, "unicode") for entry in row.split("&")] for row in body.split("\\\\")]
    forms = [_form("latex", tidy(latex))]
    if all(len(row) == 1 for row in rows):
        entries = [row[0] for row in rows]
        forms += [
            _form("ascii vector", "(" + ", ".join(entries) + ")"),
            _form("transposed row", "[" + ", ".join(entries) + "]^T"),
            _form("entries prose", "the entries " + _join(entries) + " from top to bottom", [_join(entries)]),
        ]
    else:
        ordinals = ["first", "second", "third"]
        phrases = [f"{ordinals[i]} row {', '.join(row)}" for i, row in enumerate(rows)]
        forms += [
            _form("rows prose", _join(phrases), phrases),
            _form("rows brackets", "[" + "; ".join(" ".join(row) for row in rows) + "]"),
        ]
    return forms


def _base_forms(latex: str) -> list[dict]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", tidy(latex).replace(" ", "")).groups()
    decimal = str(int(digits, int(base)))
    return [
        _form("subscript", f"{digits}_{base}"),
        _form("latex braces", f"${digits}_{{{base}}}$", [f"{digits}_{{{base}}}"]),
        _form("in base", f"{digits} in base {base}", [digits]),
        _form("unicode subscript", digits + base.translate(_SUBSCRIPT)),
        _form("base in words", f"{digits} (base {words(int(base))})", [digits]),
        _form("decimal value", f"{decimal} in base ten", [decimal]),
    ]


def _complex_forms(latex: str) -> list[dict]:
    found = re.fullmatch(r"(-?\d+)([-+])(\d*)i", tidy(latex).replace(" ", ""))
    real, sign, imaginary = found.group(1), found.group(2), found.group(3) or "1"
    signed = f"{'-' if sign == '-' else ''}{imaginary}"
    spoken = "minus" if sign == "-" else "plus"
    parts = [f"real part {real}", f"imaginary part {signed}"]
    return [
        *_generic_forms(latex),
        _form("tight", f"{real}{sign}{imaginary}i"),
        _form("components", _join(parts), parts),
        _form("spoken", f"{real} {spoken} {imaginary}i"),
    ]


def _choice_forms(latex: str, problem: str) -> list[dict]:
    letter = re.search(r"[A-H]", tidy(latex)).group()
    forms = [
        _form("parenthesised letter", f"({letter})"),
        _form("option word", f"option {letter}"),
        _form("choice word", f"choice ({letter})", [f"({letter})"]),
        _form("latex", tidy(latex), [f"({letter})"]),
    ]
    option = re.search(r"\(" + letter + r"\)\}?\\?\s*([^$(\\]+?)(?:\s*\\qquad|\s*\(|\s*\$|\s+Enter|$)", problem)
    if option and option.group(1).strip():
        text = option.group(1).strip()
        forms += [_form("option text", text), _form("letter and text", f"({letter}) {text}", [f"({letter})", text])]
    elif letter == "B":  # the options of this problem are LaTeX equations; quote the one chosen
        forms.append(_form("option text", "3(1 + r/10)^x = 7"))
    return forms


def _text_forms(latex: str) -> list[dict]:
    word = re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", latex).group(1)
    return [
        _form("plain", word),
        _form("latex text", f"\\text{{{word}}}", [word]),
        _form("quoted", f'"{word}"', [word]),
        _form("capitals", word.upper()),
    ]


def _expression_forms(latex: str, kind: str) -> list[dict]:
    forms = _generic_forms(latex)
    plain = tidy(latex)
    if kind == "equation":
        left, _, right = (piece.strip() for piece in plain.partition("="))
        forms.append(_form("equals word", f"{convert(left, 'ascii')} equals {convert(right, 'ascii')}"))
        line = re.fullmatch(r"y\s*=\s*(-?\d*)x\s*(?:([-+])\s*(\d+))?", plain)
        if line:
            slope = {"": "1", "-": "-1"}.get(line.group(1), line.group(1))
            if line.group(3):
                parts = [f"slope {slope}", f"y-intercept {line.group(2).strip('+')}{line.group(3)}"]
                forms.append(_form("slope and intercept", "the line with " + _join(parts), parts))
            else:
                forms.append(_form("slope through origin", f"the line of slope {slope} through the origin"))
    return forms


def renderings(latex: str, kind: str, problem: str) -> list[dict]:
    """Every notation of the answer written for this corpus; each form's parts stand in its text."""
    value = number_of(latex)
    if kind in ("small integer", "large integer", "negative integer"):
        return _integer_forms(int(value))
    if kind in ("fraction", "mixed number"):
        forms = _fraction_forms(value)
        return forms + ([_form("latex mixed", tidy(latex))] if kind == "mixed number" else [])
    if kind == "decimal":
        return _decimal_forms(latex, value)
    if kind == "radical":
        return _radical_forms(latex)
    if kind == "multiple of pi":
        return _pi_forms(latex)
    if kind == "units/degrees/money":
        return _units_forms(latex)
    if kind in ("ordered pair", "tuple"):
        return _tuple_forms(latex, problem)
    if kind == "interval":
        return _interval_forms(latex)
    if kind == "set/list":
        return _list_forms(latex)
    if kind == "matrix/vector":
        return _matrix_forms(latex)
    if kind == "base-n number":
        return _base_forms(latex)
    if kind == "complex number":
        return _complex_forms(latex)
    if kind == "multiple choice":
        return _choice_forms(latex, problem)
    if kind == "text answer":
        return _text_forms(latex)
    return _expression_forms(latex, kind)


def quantity_forms(latex: str, kind: str, qtype: str) -> list[dict]:
    """The answer said through the question's quantity: "24 square units", "3 in 8", "three-eighths of the time"."""
    value = number_of(latex)
    forms = []
    chance = ["the chance is {v}", "you should find a chance of {v}"]
    if qtype == "probability" and value is not None and 0 < value < 1:
        p, q = value.numerator, value.denominator
        forms += [_form("quantity: p in q", f"{p} in {q}") | {"say": chance}]
        forms.append(_form("quantity: out of", f"{p} out of {q} times") | {"say": ["it happens {v}", "it works {v}"]})
        if fraction_words(value):
            said = fraction_words(value)
            forms.append(_form("quantity: of the time", f"{said} of the time", [said]) | {"say": ["it happens {v}"]})
        percent = _terminating(value * 100)
        if percent:
            forms.append(_form("quantity: percent", f"{percent}%", [percent]) | {"say": ["there is a {v} chance"]})
    elif qtype in ("area", "volume", "length") and kind != "units/degrees/money":
        core = str(value) if value is not None and value.denominator == 1 else convert(latex, "unicode")
        unit = {"area": "square units", "volume": "cubic units", "length": "units"}[qtype]
        forms.append(_form("quantity: units", f"{core} {unit}", [core]))
    elif qtype == "count" and value is not None and value.denominator == 1:
        found = ["you should find {v}", "the list has {v}"]
        forms += [_form("quantity: count noun", f"exactly {value} such cases", [str(value)]) | {"say": found}]
        if 0 < value < 10**6:
            said = words(int(value))
            forms.append(_form("quantity: count in words", f"{said} in all", [said]) | {"say": ["there are {v}"]})
    elif qtype == "money" and value is not None and kind != "units/degrees/money":
        forms.append(_form("quantity: dollars", f"{value} dollars", [str(value)]))
    return forms


def arithmetic_forms(latex: str, kind: str, rng: random.Random) -> list[dict]:
    """The answer as a small computation: "twice 12", "the sum of 20 and 4", "3 times 8", "3 divided by 8"."""
    value = number_of(latex)
    if value is None or kind not in ("small integer", "large integer", "fraction"):
        return []
    if value.denominator > 1:
        return [_form("quotient", f"{value.numerator} divided by {value.denominator}", written_out=False)]
    n = int(value)
    if n < 6:
        return []
    a = rng.randint(2, n - 2)
    forms = [_form("sum", f"the sum of {a} and {n - a}", [f"sum of {a} and {n - a}"], written_out=False)]
    if n % 2 == 0:
        forms.append(_form("twice", f"twice {n // 2}", written_out=False))
    factors = [d for d in range(3, int(n**0.5) + 1) if n % d == 0]
    if factors:
        d = rng.choice(factors)
        forms.append(_form("product", f"{d} times {n // d}", written_out=False))
    return forms


def approximation_forms(latex: str, kind: str) -> list[dict]:
    """A decimal of an irrational answer, to four significant digits ("about 10.82")."""
    if kind not in ("radical", "multiple of pi"):
        return []
    value = evaluate(latex)
    if value is None or value == 0:
        return []
    digits = f"{value:.4g}"
    if "e" in digits or len(re.sub(r"\D", "", digits).lstrip("0")) < 3:
        return []
    return [
        _form("about", f"about {digits}", [digits], written_out=False),
        _form("approx sign", f"≈ {digits}", [digits], written_out=False),
    ]


# --- wrong attempts and the answer check for clean critiques -----------------------------------------------------

_ALTERNATIVES = {
    "east": ["west", "south", "north"],
    "even": ["odd", "neither"],
    "ellipse": ["hyperbola", "parabola", "circle"],
}


def wrong_attempts(latex: str, kind: str, problem: str, rng: random.Random) -> list[tuple[str, str]]:
    """Plausible wrong final answers (text as quoted, how it went wrong), none equal to the answer."""
    value = number_of(latex)
    plain = tidy(latex)
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", plain).group()
        return [(f"({other})", "other option") for other in "ABCDE" if other != letter]
    if kind == "text answer":
        word = re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", latex).group(1)
        names = re.findall(r'"([A-Z][a-z]+)"', problem) + re.findall(r"\b([A-Z][a-z]+) makes", problem)
        others = _ALTERNATIVES.get(word, [name for name in names if name != word])
        return [(other, "other option") for other in others]
    if value is not None and kind != "units/degrees/money":
        candidates = [(value + 1, "off by one"), (value - 1, "off by one"), (2 * value, "doubled")]
        candidates += [(value / 2, "halved"), (-value, "sign"), (value * 10, "decimal place")]
        if value not in (0, 1, -1):
            candidates.append((1 / value, "reciprocal"))
        if value.denominator == 1 and abs(value) >= 10 and str(abs(value))[::-1] != str(abs(value)):
            candidates.append(
                (Fraction(int(str(value)[::-1].rstrip("-")) * (1 if value > 0 else -1)), "digits swapped")
            )
        out = []
        for wrong, how in candidates:
            if wrong == value:
                continue
            if wrong.denominator == 1:
                out.append((str(wrong), how))
            elif kind == "decimal" and _terminating(wrong):
                out.append((_terminating(wrong), how))
            else:
                sign = "-" if wrong < 0 else ""
                out.append((f"{sign}\\frac{{{abs(wrong.numerator)}}}{{{wrong.denominator}}}", how))
        return out
    # Everything else: change one integer of the LaTeX (a coefficient, an endpoint, an exponent) or one sign.
    out = []
    numbers = list(re.finditer(r"(?<![\\a-zA-Z])\d+", plain))
    for found in numbers:
        n = int(found.group())
        for changed, how in ((n + 1, "off by one"), (2 * n if n > 1 else n + 2, "doubled")):
            out.append((plain[: found.start()] + str(changed) + plain[found.end() :], how))
    for found in re.finditer(r"(?<=[\w)}]) ?[-+] ?", plain if kind != "matrix/vector" else ""):
        flipped = "+" if "-" in found.group() else "-"
        out.append((plain[: found.start()] + f" {flipped} " + plain[found.end() :], "sign"))
    if not out:
        out.append(("-" + plain, "sign"))
    rng.shuffle(out)
    return out[:6]


def numbers_in(text: str) -> list[Fraction]:
    """Every number a reader sees in `text`: integers, 32,348, decimals, a/b, \\frac{a}{b}, signed; as values."""
    values = []
    for found in re.finditer(r"([-−]?)\\frac\{(\d+)\}\{(\d+)\}|([-−]?)(\d+)\s*[/\u2044]\s*(\d+)", text):
        sign = -1 if (found.group(1) or found.group(4)) else 1
        top, bottom = (found.group(2), found.group(3)) if found.group(2) else (found.group(5), found.group(6))
        if int(bottom):
            values.append(sign * Fraction(int(top), int(bottom)))
    for found in re.finditer(r"([-−]?)(\d{1,3}(?:,\d{3})+|\d*\.\d+|\d+)", text):
        sign = -1 if found.group(1) else 1
        values.append(sign * Fraction(found.group(2).replace(",", "")))
        values.append(Fraction(found.group(2).replace(",", "")))
    return values


def mentions_answer(text: str, forms: list[dict], value: Fraction | None) -> bool:
    """True when `text` contains any written form or part of the answer, or any number equal to it."""
    pieces = {piece for form in forms for piece in [form["text"], *form["parts"]]}
    if any(occurrences(piece, text) for piece in pieces):
        return True
    return value is not None and value in numbers_in(text)


def problem_numbers(problem: str, answer: str) -> list[str]:
    """The problem's own numbers (outside its drawing) that are no token of the answer."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    tokens = set(re.findall(r"\d+(?:\.\d+)?", answer))
    seen = []
    text = re.sub(r"(\d),(?:\\!)?(\d{3})", r"\1\2", text)
    for found in re.findall(r"(?<![\w.^_{])\d+(?:\.\d+)?(?![\w.}])", text):
        if found not in tokens and found not in seen:
            seen.append(found)
    return seen


# --- assembling cases ---------------------------------------------------------------------------------------------


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _leak_case(index, kind, qtype, problem, form, family, register, template_index, rng) -> dict | None:
    subject, _, statements = STATEMENTS[qtype]
    fill = {"ext": extremum_word(problem), "var": variable_of(problem) or "x"}
    subject = subject.format(**fill)
    template = LEAK_REGISTERS[register][template_index % len(LEAK_REGISTERS[register])]
    statement = rng.choice(form.get("say", statements)).format(v="\x00", **fill)
    filled = template.format(S=statement, Sc=_capital(statement), s=subject, v="\x00")
    text, context = filled.replace("\x00", form["text"]), filled.replace("\x00", "")
    if not all(occurrences(part, text) > occurrences(part, context) for part in form["parts"]):
        return None
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": form["style"],
        "frame": f"{register}:{qtype}:{template_index % len(LEAK_REGISTERS[register])}",
        "text": text,
        "leak": True,
        "written_out": form["written_out"],
        "parts": list(form["parts"]),
        "context": context,
    }


def _wrong_rendering(wrong: str, kind: str, rng: random.Random) -> tuple[str, str]:
    if kind in ("text answer", "multiple choice", "matrix/vector"):
        return wrong, "as written"
    style = rng.choice(["as written", "inline latex", "ascii"])
    if style == "inline latex":
        return f"${wrong}$", style
    if style == "ascii":
        return convert(wrong, "ascii") or wrong, style
    return wrong, style


def _clean_cases(index, kind, qtype, row, forms, rng) -> list[dict]:
    subject, noun, _ = STATEMENTS[qtype]
    fill = {"ext": extremum_word(row["problem"]), "var": variable_of(row["problem"]) or "x"}
    subject, noun = subject.format(**fill), noun.format(**fill)
    value = number_of(row["answer"]) or number_of(re.sub(_UNIT_MARKS, "", tidy(row["answer"])))
    numbers = problem_numbers(row["problem"], row["answer"])
    wrongs = wrong_attempts(row["answer"], kind, row["problem"], rng)
    rng.shuffle(wrongs)
    registers = list(CLEAN_REGISTERS)
    rng.shuffle(registers)
    drafts = []
    for register, (wrong, how) in zip(registers, wrongs):
        quoted, style = _wrong_rendering(wrong, kind, rng)
        wrong_value = number_of(wrong)
        direction = "not right"
        if value is not None and wrong_value is not None:
            direction = "too big" if wrong_value > value else "too small"
        template_index = rng.randrange(len(CLEAN_REGISTERS[register]))
        template = CLEAN_REGISTERS[register][template_index]
        drafts.append((register, template_index, template, quoted, style, how, direction))
    for template_index, template in enumerate(CLEAN_WITHOUT_WRONG[: 1 + len(drafts) // 4]):
        drafts.append(("no wrong", template_index, template, None, "none", None, ""))
    cases = []
    for register, template_index, template, quoted, style, how, direction in drafts:
        given = rng.choice(numbers) if numbers else None
        about = f"the {given} in the problem" if given else "the last condition"
        text = template.format(n=noun, w=quoted, dir=direction, s=subject, p=about)
        if mentions_answer(text, forms, value):
            continue  # doubtful: the text shows the answer or a number equal to it
        cases.append(
            {
                "family": "clean",
                "split": "held_out",
                "index": index,
                "answer_type": kind,
                "style": style,
                "frame": f"{register}:{qtype}:{template_index}",
                "text": text,
                "leak": False,
                "written_out": False,
                "parts": [],
                "context": text,
                "wrong": quoted,
                "wrong_how": how,
            }
        )
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Labelled leaks and clean critiques for every MATH-500 row, deterministic in `seed`."""
    kinds = [answer_type(row["answer"], row["problem"]) for row in problems]
    per_kind = {kind: kinds.count(kind) for kind in set(kinds)}
    registers = list(LEAK_REGISTERS)
    cases = []
    for index, (row, kind) in enumerate(zip(problems, kinds)):
        rng = random.Random(f"{seed}:{index}")
        qtype = question_type(row["problem"], kind, row["answer"])
        forms = renderings(row["answer"], kind, row["problem"])
        everything = forms + quantity_forms(row["answer"], kind, qtype)
        # Each problem gets >= 8 written-out leaks and each rare answer type >= 24: forms repeat in more registers.
        rounds = max(math.ceil(8 / len(everything)), math.ceil(24 / (per_kind[kind] * len(everything))))
        start = rng.randrange(len(registers))
        for round_ in range(rounds):
            for i, form in enumerate(everything):
                register = registers[(start + i + 2 * round_) % len(registers)]
                case = _leak_case(index, kind, qtype, row["problem"], form, "rendering", register, round_ + i, rng)
                if case:
                    cases.append(case)
        for family, extra in (
            ("arithmetic", arithmetic_forms(row["answer"], kind, rng)),
            ("approximation", approximation_forms(row["answer"], kind)),
        ):
            for form in extra:
                register = rng.choice(registers)
                case = _leak_case(index, kind, qtype, row["problem"], form, family, register, rng.randrange(2), rng)
                if case:
                    cases.append(case)
        cases += _clean_cases(index, kind, qtype, row, everything + approximation_forms(row["answer"], kind), rng)
    return cases


if __name__ == "__main__":
    from collections import Counter

    built = corpus(load_problems())
    print(Counter((case["family"], case["leak"]) for case in built))
