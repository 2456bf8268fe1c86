"""A seventh held-out corpus of answer-leak critiques, cut from the datasets' own human-written solutions.

Method. A feedback model that has read a reference solution leaks the answer by echoing it. Nobody on the team
wrote these sentences: every critique here is made of a worked solution's own sentences (MATH-500's `solution`,
Minerva Math's `solution`, AIME 2024's `solution`, GSM8K's worked `answer` lines), with `[asy]` figures dropped:

- rendering leaks (the value written): the sentence holding `\\boxed{...}` with the box unwrapped, as written, with
  the math delimiters (`$`, `\\(`, `\\[`) dropped, together with the one or two sentences before it, and after one
  of a few critique frames; earlier sentences of the solution that already state the value (`statement_spans`: a
  math segment after `=` or a whole math span equal to the answer, as a normalised string or numerically, the
  variable the box names set to the value, the value in digits or words in the prose; for a collection, all of
  its values in one sentence); GSM8K's last worked line before `#### N`, its `<<...>>` calculator notes removed;
- arithmetic leaks (the value not written): that GSM8K line with its result removed and its arithmetic kept
  ("She makes 9 * 2 every day"), and earlier solution sentences whose only statement is a short unevaluated
  expression equal to the answer (`11^2` for 121);
- clean critiques: opening sentences of a solution, before the answer is first reached, that mention no value of
  the answer (`mentions_answer`); and wrong attempts quoted as the student's claim, the conclusion (or an earlier
  answer-stating sentence, or GSM8K's last line) with the value replaced by a wrong one of the same shape
  (`wrong_variants`: off by one, sign flipped, a swapped pair, an open end closed, a reciprocal, one entry changed,
  another option letter, another word), kept only where the quote, the wrong value set aside, then mentions no
  value of the answer (an interval's endpoints included) and no computation stands on the other side of the
  wrong value's `=`.

Every check is this module's own: `value` evaluates numeric LaTeX (fractions, roots, powers, pi, mixed numbers),
`normalise` compares notations, `mentions_answer` is deliberately strict (any number equal to the answer, to one
of its values, or a substring of the normalised text), so that a doubtful clean sentence is dropped, not kept.

Independence. This module was written without opening the answer-leak guard (`trl_mulferl/feedback/`), its tests,
its benchmark (`benchmarks/leak_guard.py`), its docs or any other corpus of `benchmarks/leak_corpus_*.py`; from
`benchmarks/leak_corpus.py` it and its tests use only `load_problems`, `answer_type`, `occurrences`, `stated`. Which
sentences state the answer is decided by the checks below, written for this corpus; the guard was never run on it.

Case schema (one dict per critique): family ("rendering" | "arithmetic" | "clean"), split ("held_out"), index
(into `rows + extra`), answer_type, style (how the value is written: "solution latex", "plain", "words", "text"),
frame ("source:variant", e.g. "conclusion:raw", "earlier:plain", "gsm8k:arithmetic", "wrong:conclusion"), text,
leak, written_out, parts (the strings of `text` that state the value; [] for clean), context (`text` with the
value's spans removed, every other occurrence kept; the text itself for clean), wrong and wrong_how (clean only:
the quoted wrong value as it stands in `text` and how it was made; None and "" when none is quoted); extra cases
also carry "dataset".
"""

import json
import math
import random
import re
from pathlib import Path

from leak_corpus import answer_type, occurrences


SEED = 58_07
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

LEAK_FRAMES = (
    "Your setup is fine, but compare with this: {s}",
    "Check your last step against the worked solution: {s}",
    "The reference solution ends like this. {s}",
    "Close, but the solution you should match says: {s}",
)
WRONG_FRAMES = ("You concluded: {s}", "Your last line says {s}", "Your attempt ends with: {s}")
OPENING_FRAMES = ("Start the way the solution does: {s}", "A good first step: {s}")
ARITHMETIC_LENGTH = 30
COLLECTIONS = ("ordered pair", "tuple", "set/list")
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()
TENS_WORDS = {30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty", 90: "ninety"}
OTHER_WORDS = {"odd": "even", "even": "odd", "east": "west", "ellipse": "hyperbola", "neither": "odd"}

# --- sentences ---------------------------------------------------------------------------------------------------

MATH_SPAN = re.compile(
    r"\$\$.+?\$\$|(?<!\\)\$.+?(?<!\\)\$|\\\[.+?\\\]|\\\(.+?\\\)"
    r"|\\begin\{(align|equation|eqnarray|gather|multline)(\*?)\}.+?\\end\{\1\2\}",
    re.S,
)
DELIMITERS = re.compile(
    r"\$\$|(?<!\\)\$|\\\[|\\\]|\\\(|\\\)|\\(?:begin|end)\{(?:align|equation|eqnarray|gather|multline)\*?\}"
)


def drop_figures(solution: str) -> str:
    return re.sub(r"\[asy\].*?\[/asy\]", " ", solution, flags=re.S)


def sentences(solution: str) -> list[str]:
    """The solution's sentences in order: split after `.`, `!`, `?` or a display (or a span ending in `.`) when a
    capital follows, and at blank lines; math spans are never cut."""
    text = drop_figures(solution)
    spans = []

    def hide(match: re.Match) -> str:
        spans.append(match.group(0))
        body = DELIMITERS.sub("", match.group(0)).rstrip()
        ends = body.endswith((".", "!", "?")) or match.group(0).startswith(("$$", "\\[", "\\begin"))
        return f"\x00{len(spans) - 1}\x01" + ("\x02" if ends else "")

    masked = MATH_SPAN.sub(hide, text)
    pieces = re.split(r"(?<=[.!?])\s+(?=[A-Z\x00\\])|(?<=\x02)\s*(?=[A-Z])|\n\s*\n", masked)
    out = []
    for piece in pieces:
        restored = re.sub(r"\x00(\d+)\x01", lambda m: spans[int(m.group(1))], piece.replace("\x02", ""))
        restored = re.sub(r"\s*\n\s*|  +", " ", restored).strip()
        if restored:
            out.append(restored)
    return out


def unbox(sentence: str) -> tuple[str, tuple[int, int]] | None:
    """The sentence with its first `\\boxed{X}` replaced by X, and X's span in the result."""
    match = re.search(r"\\(?:boxed|fbox)\s*\{", sentence)
    if match is None:
        return None
    depth, end = 1, match.end()
    while end < len(sentence) and depth:
        depth += {"{": 1, "}": -1}.get(sentence[end], 0)
        end += 1
    if depth:
        return None
    inner = sentence[match.end() : end - 1].strip()
    if not inner:
        return None
    return sentence[: match.start()] + inner + sentence[end:], (match.start(), match.start() + len(inner))


def unbox_all(sentence: str) -> tuple[str, list[tuple[int, int]]]:
    """The sentence with every box unwrapped, and the contents' spans (`x = \\boxed{a},$ or $\\boxed{b}`)."""
    spans = []
    while unboxed := unbox(sentence):
        sentence, span = unboxed  # the boxes before this one are unwrapped already: their spans stand
        spans.append(span)
    return sentence, spans


# --- values ------------------------------------------------------------------------------------------------------


def normalise(latex: str) -> str:
    text = re.sub(r"\\(?:left|right|displaystyle|!|,|;|:| )|\s+|\{,\}", "", latex)
    text = re.sub(r"\\[dt]frac", r"\\frac", text)
    text = re.sub(r"\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}", r"\1", text)
    return text.rstrip(".,;:").replace("$", "")


def _brace(text: str, start: int) -> tuple[str, int]:
    """The braced group (or single character) at `start`, and the index after it."""
    while start < len(text) and text[start] == " ":
        start += 1
    if start >= len(text):
        raise ValueError("missing argument")
    if text[start] != "{":
        return text[start], start + 1
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i], i + 1
    raise ValueError("unbalanced braces")


def to_python(latex: str) -> str:
    """A purely numeric LaTeX expression as Python arithmetic; ValueError for anything else."""
    text = re.sub(r"\\(?:left|right|!|,|;| )|\^\\circ|\\%|\{,\}", "", latex).replace("\\dfrac", "\\frac")
    text = text.replace("\\tfrac", "\\frac").replace("\\cdot", "*").replace("\\times", "*").replace("\\div", "/")
    out, i = [], 0
    while i < len(text):
        if text.startswith("\\frac", i):
            numerator, i = _brace(text, i + 5)
            denominator, i = _brace(text, i)
            if out and out[-1].isdigit():  # a mixed number: 15\frac{39}{40}
                out.append("+")
            out.append(f"(({to_python(numerator)})/({to_python(denominator)}))")
        elif text.startswith("\\sqrt", i):
            index = "2"
            i += 5
            if i < len(text) and text[i] == "[":
                close = text.index("]", i)
                index, i = text[i + 1 : close], close + 1
            radicand, i = _brace(text, i)
            out.append(f"(({to_python(radicand)})**(1/({to_python(index)})))")
        elif text.startswith("\\pi", i):
            out.append("(pi)")
            i += 3
        elif text[i] == "^":
            exponent, i = _brace(text, i + 1)
            out.append(f"**({to_python(exponent)})")
        elif text[i] in "{}":
            out.append("(" if text[i] == "{" else ")")
            i += 1
        elif text[i] in "0123456789.+-*/() ":
            out.append(text[i])
            i += 1
        else:
            raise ValueError(f"not numeric: {text[i:]!r}")
    python = "".join(out)
    # juxtaposition is multiplication: 2(3), 2\pi, (1)(2)
    return re.sub(r"(?<=[\d)])\s*(?=\()", "*", python)


_VALUES: dict[str, float | None] = {}


def value(latex: str) -> float | None:
    """The number a numeric LaTeX expression stands for, or None."""
    if latex not in _VALUES:
        try:
            python = to_python(latex.strip())
            if not re.search(r"\d|pi", python) or "**(" in python and len(python) > 200:
                raise ValueError("no number")
            result = eval(python, {"__builtins__": {}}, {"pi": math.pi})  # noqa: S307 (digits and operators only)
            _VALUES[latex] = float(result) if isinstance(result, (int, float)) and math.isfinite(result) else None
        except (ValueError, SyntaxError, ZeroDivisionError, OverflowError, TypeError):
            _VALUES[latex] = None
    return _VALUES[latex]


def same_value(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def components(answer: str) -> list[str]:
    """The values of a collection answer, `(a, b)` or `a, b`, each as written."""
    text = answer.strip()
    if text.startswith("\\{") and text.endswith("\\}"):
        text = text[2:-2]
    elif text[:1] == "(" and text[-1:] == ")":
        text = text[1:-1]
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [part for part in [*parts, current.strip()] if part]


def number_word(n: int) -> str | None:
    if 0 <= n <= 20:
        return NUMBER_WORDS[n]
    if 20 < n < 100:
        tens, ones = divmod(n, 10)
        return TENS_WORDS.get(tens * 10, "") + (f"-{NUMBER_WORDS[ones]}" if ones else "") or None
    return None


class Answer:
    """What is known of a reference answer: its normalised text, its value, its collection values."""

    def __init__(self, answer: str, kind: str, problem: str):
        self.text = answer.strip()
        self.kind = kind
        self.norm = normalise(self.text)
        self.value = value(self.text)
        self.values = components(self.text) if kind in COLLECTIONS else []
        # an interval is also stated by its endpoints (`x < 2 or x > 3`): the clean check looks for them too
        endpoints = re.findall(r"-?\d+(?:\.\d+)?", self.text) if kind == "interval" else []
        self.endpoints = [float(number) for number in endpoints]
        integer = self.value is not None and self.value == int(self.value) and abs(self.value) < 10**15
        self.integer = int(self.value) if integer else None
        problem_values = {value(number) for number in re.findall(r"\d+(?:\.\d+)?", problem)}
        small = self.integer is not None and abs(self.integer) <= 20
        in_problem = self.norm in normalise(problem) or any(same_value(self.value, v) for v in problem_values)
        self.distinctive = not small and not in_problem
        if kind == "text answer":
            self.distinctive = True

    def matches(self, latex: str) -> bool:
        norm = normalise(latex)
        if not norm:
            return False
        if norm == self.norm:
            return True
        return self.kind not in ("base-n number",) and same_value(value(norm), self.value)


def _segments(math_body: str) -> list[tuple[str, int, str]]:
    """The top-level pieces of a math span between relations and separators, each with its offset and the
    piece before its `=` (the name it sets) or ""."""
    cuts = re.compile(
        r"&?=|\\(?:[lg]eq?|neq?|equiv|approx|implies|Rightarrow|rightarrow|to|iff|quad|qquad)(?![a-zA-Z])"
        r"|\\pmod\{[^}]*\}|<|>|\\\\|,\s|;|\\text\{[^}]*\}"
    )
    pieces, depth, start, previous = [], 0, 0, ""
    i = 0
    while i <= len(math_body):
        if i == len(math_body):
            pieces.append((math_body[start:i], start, previous))
            break
        char = math_body[i]
        depth += 1 if char in "{([" else -1 if char in "})]" else 0
        match = cuts.match(math_body, i) if depth == 0 else None
        if match and match.end() > i:
            piece = math_body[start:i]
            pieces.append((piece, start, previous))
            previous = piece.strip() if match.group(0).endswith("=") else ""
            start = i = match.end()
            continue
        i += 1
    return pieces


CONCLUDING = re.compile(r"(?:so|thus|therefore|hence|this gives|we get|we find|solving|finally)\b", re.I)
LITERAL = re.compile(
    r"-?(?:\d+(?:\.\d+)?|\.\d+|\d+/\d+|\\frac\{\d+\}\{\d+\}|\d*\\sqrt\{\d+\}(?:/\d+)?|\\frac\{\d*\\sqrt\{\d+\}\}\{\d+\}"
    r"|\d*\\pi|\\frac\{\d*\\pi\}\{\d+\}|[A-Za-z-]+)"
)


def written(shown: str, answer: Answer) -> bool:
    """Whether a piece equal to the answer writes it (in some notation) rather than computes it (`85 + 58`)."""
    norm = normalise(shown)
    return norm == answer.norm or LITERAL.fullmatch(norm) is not None


def statement_spans(sentence: str, answer: Answer, target: str | None) -> list[tuple[int, int]]:
    """Where the sentence states the answer's value: a math piece equal to it (after `=`, or a whole span) when
    the value is distinctive, else only `name = value` where the name is the one the box sets or the sentence
    draws a conclusion; the value in prose digits or words (a small value only in a conclusion); the whole answer
    (`x = 5`) in a span; for a collection, spans only when all its values are stated."""
    spans = []
    concluding = CONCLUDING.match(sentence) is not None
    for match in MATH_SPAN.finditer(sentence):
        body_start = match.start() + len(re.match(r"\$\$|\$|\\\[|\\\(|\\begin\{\w+\*?\}", match.group(0)).group(0))
        body = sentence[body_start : match.end()]
        body = DELIMITERS.sub(lambda m: " " * len(m.group(0)), body)
        if "=" in answer.norm and normalise(body) == answer.norm:
            core = body.strip().rstrip(".,;:").strip()
            spans.append((body_start + body.index(core), body_start + body.index(core) + len(core)))
            continue
        for piece, offset, name in _segments(body):
            core = piece.strip().rstrip(".,;:").strip()
            if not core or core.startswith(("\\boxed", "\\fbox")):
                continue
            lead = piece.index(core[0])
            start = body_start + offset + lead
            if answer.values:
                hits = [v for v in answer.values if normalise(core) == normalise(v)]
                if hits and (name or answer.distinctive):
                    spans.append((start, start + len(core)))
                continue
            named = target and normalise(name) == normalise(target)
            if answer.matches(core) and (answer.distinctive or named or (concluding and name)):
                spans.append((start, start + len(core)))
    prose = MATH_SPAN.sub(lambda m: "\x00" * len(m.group(0)), sentence)
    if (answer.distinctive or concluding) and answer.integer is not None:
        for form in {str(answer.integer), f"{answer.integer:,}", number_word(answer.integer)} - {None}:
            for match in re.finditer(r"(?<![\w.,-])" + re.escape(form) + r"(?![\w]|[.,]\d)", prose, re.I):
                spans.append(match.span())
    if answer.values:
        stated = {normalise(sentence[a:b]) for a, b in spans}
        if not all(normalise(v) in stated for v in answer.values):
            return []
    return sorted(set(spans))


def mentions_answer(text: str, answer: Answer) -> bool:
    """Whether a text mentions any value of the answer by this module's check (strict: a number equal to the
    answer or to one of its values anywhere, the answer's normalised text, its number word)."""
    norm = normalise(text)
    if answer.norm and answer.norm in norm:
        return True
    targets = [answer.value] + [value(v) for v in answer.values] + answer.endpoints
    if answer.kind == "text answer":
        return re.search(r"\b" + re.escape(answer.norm) + r"\b", text, re.I) is not None
    for v in answer.values:
        if normalise(v) and re.search(r"(?<![\w.])" + re.escape(normalise(v)) + r"(?![\w]|\.\d)", norm):
            return True
    # a minus sign right before a number may be a sign or a subtraction: both readings count
    for sign, digits in re.findall(r"(-?)(\d+(?:\.\d+)?|\.\d+)", text.replace(",", "").replace("{}", "")):
        number = float(digits)
        if any(same_value(-number if sign else number, t) or (sign and same_value(number, t)) for t in targets):
            return True
    for match in MATH_SPAN.finditer(text):
        body = DELIMITERS.sub(" ", match.group(0))
        for piece, _, _ in _segments(body):
            if any(same_value(value(piece.strip().rstrip(".,;:")), t) for t in targets):
                return True
    if answer.integer is not None and (word := number_word(abs(answer.integer))):
        return re.search(r"\b" + word + r"\b", text, re.I) is not None
    return False


# --- wrong values ------------------------------------------------------------------------------------------------


def _bump_first_integer(text: str, how: str) -> tuple[str, str] | None:
    match = re.search(r"(?<=\\frac)\d|\d+", text)  # `\frac43`: one digit is the numerator
    if match is None:
        return None
    number = int(match.group(0))
    bumped = str(number + 1) if number != 9 or match.end() < len(text) else "8"
    return text[: match.start()] + bumped + text[match.end() :], how


def wrong_variants(shown: str, kind: str, problem: str) -> list[tuple[str, str]]:
    """Wrong values of the same shape as a value written `shown`, each with how it was made."""
    variants = []
    if kind == "multiple choice" and (letter := re.search(r"(?<![A-Za-z\\])[A-E](?![A-Za-z])", shown)):
        other = "ABCDE"[("ABCDE".index(letter.group(0)) + 2) % 5]
        variants.append((shown[: letter.start()] + other + shown[letter.end() :], "another option letter"))
    elif kind == "text answer":
        word = normalise(shown)
        names = [name for name in re.findall(r"\b[A-Z][a-z]{2,}\b", problem) if name != word]
        other = OTHER_WORDS.get(word.lower()) or (names[0] if names and word[:1].isupper() else None)
        if other and word in shown:
            variants.append((shown.replace(word, other, 1), "another word"))
    elif kind == "interval":
        if shown.startswith("(") and not shown[1:].lstrip().startswith("-\\infty"):
            variants.append(("[" + shown[1:], "open end closed"))
        elif shown.endswith(")") and not shown[:-1].rstrip().endswith("\\infty"):
            variants.append((shown[:-1] + "]", "open end closed"))
        elif shown.endswith("]"):
            variants.append((shown[:-1] + ")", "closed end opened"))
        if bumped := _bump_first_integer(shown, "endpoint off by one"):
            variants.append(bumped)
    elif kind in ("ordered pair", "tuple") and len(values := components(shown)) >= 2 and values[0] != values[1]:
        swapped = ", ".join([values[1], values[0], *values[2:]])
        variants.append(("(" + swapped + ")" if shown.startswith("(") else swapped, "swapped pair"))
    elif kind == "base-n number" and (base_n := re.fullmatch(r"(\d+)(_\{?(\d+)\}?)", shown)):
        digits, base = base_n.group(1), int(base_n.group(3))
        last = int(digits[-1])
        changed = str(last - 1 if last > 0 else min(last + 1, base - 1))
        variants.append((digits[:-1] + changed + base_n.group(2), "last digit changed"))
    elif kind == "negative integer" and shown.startswith("-"):
        variants.append((shown[1:], "sign flipped"))
    if kind == "fraction" and (fraction := re.fullmatch(r"(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}", shown)):
        if fraction.group(2) != fraction.group(3):
            sign, top, bottom = fraction.groups()
            variants.append((f"{sign}{shown[len(sign) : shown.index('{')]}{{{bottom}}}{{{top}}}", "reciprocal"))
    if kind not in ("multiple choice", "text answer", "base-n number", "interval"):
        how = {"matrix/vector": "one entry changed", "decimal": "a digit changed"}.get(kind, "off by one")
        if bumped := _bump_first_integer(shown, how):
            variants.append(bumped)
    return [(wrong, how) for wrong, how in variants if normalise(wrong) != normalise(shown)]


# --- cases -------------------------------------------------------------------------------------------------------


def _pieces(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, is the value) at non-overlapping spans."""
    pieces, cursor = [], 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        pieces += [(text[cursor:start], False), (text[start:end], True)]
        cursor = end
    return [*pieces, (text[cursor:], False)]


def _plain(pieces: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The pieces with the math delimiters dropped around the value."""
    return [
        (piece if is_value else re.sub(r"  +", " ", DELIMITERS.sub(" ", piece)), is_value)
        for piece, is_value in pieces
    ]


def _framed(frame: str, pieces: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    before, after = frame.split("{s}")
    return [(before, False), *pieces, (after, False)]


def _leak(pieces, kind: str, style: str, frame: str, index: int, family: str = "rendering") -> dict | None:
    text = "".join(piece for piece, _ in pieces).strip()
    context = "".join(piece for piece, is_value in pieces if not is_value).strip()
    parts = []
    for piece, is_value in pieces:
        if is_value:
            parts += [piece] + (components(piece) if kind in COLLECTIONS and family == "rendering" else [])
    parts = list(dict.fromkeys(part.strip() for part in parts if part.strip()))
    case = {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": True,
        "written_out": family == "rendering",
        "parts": parts,
        "context": context,
        "wrong": None,
        "wrong_how": "",
    }
    # a value that the counting cannot see in the text (glued to a word) is not a label we can stand behind
    if not any(occurrences(part, text) > occurrences(part, context) for part in parts):
        return None
    return case


def unquoted(text: str, wrong: str | None) -> str:
    """The text around a quoted wrong value: what must mention no value of the answer."""
    return text if wrong is None else re.sub(r"(?<![\w.])" + re.escape(wrong) + r"(?![\w]|\.\d)", " ", text)


def _clean(
    text: str, kind: str, style: str, frame: str, index: int, answer: Answer, wrong=None, how=""
) -> dict | None:
    if mentions_answer(unquoted(text, wrong), answer) or (wrong is not None and occurrences(wrong, text) == 0):
        return None
    return {
        "family": "clean",
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": False,
        "written_out": False,
        "parts": [],
        "context": text,
        "wrong": wrong,
        "wrong_how": how,
    }


def _target(sentence: str) -> str | None:
    """The name the box sets (`x = \\boxed{3}` -> "x")."""
    match = re.search(r"([A-Za-z](?:_\{?\w+\}?)?(?:\([^()]*\))?|\\[a-zA-Z]+)\s*=\s*\\(?:boxed|fbox)", sentence)
    return match.group(1) if match else None


def _quote_wrong(
    pieces, answer: Answer, kind: str, problem: str, frame: str, source: str, index, choice: int, plain=False
):
    """A wrong attempt: every value piece replaced by the `choice`-th wrong value of its shape, framed as the
    student's, with its math delimiters dropped when `plain`."""
    shown = {normalise(piece) for piece, is_value in pieces if is_value}
    first = next(piece for piece, is_value in pieces if is_value)
    if len(shown) != 1:
        return None
    variants = wrong_variants(first.strip(), kind, problem)
    if not variants:
        return None
    wrong, how = variants[choice % len(variants)]
    replaced = [(wrong if is_value else piece, is_value) for piece, is_value in pieces]
    # a computation beside the wrong value (`\binom{5}{4} \cdot \binom{10}{8} = 226`) still works out the answer
    for match in MATH_SPAN.finditer("".join(piece for piece, _ in replaced)):
        if wrong in match.group(0) and re.search(r"\d", match.group(0).replace(wrong, "", 1)):
            return None
    if same_value(value(wrong), answer.value):
        return None
    text = "".join(piece for piece, _ in replaced)
    assignment = re.search(r"=[\s$&]*$", text[: text.index(wrong)])
    if assignment and re.search(r"\d", text[: assignment.start()].split("=")[-1]):
        return None  # `2 moles \times 28 g = 57.0 g`: the other side works out the answer
    body = "".join(piece for piece, _ in (_plain(replaced) if plain else replaced)).strip()
    style = "plain" if plain else "solution latex"
    return _clean(frame.format(s=body), kind, style, f"wrong:{source}", index, answer, wrong, how)


def solution_cases(solution: str, answer_text: str, problem: str, index: int, rng: random.Random) -> list[dict]:
    """The cases cut from one worked solution that ends in `\\boxed{...}`."""
    kind = answer_type(answer_text, problem)
    answer = Answer(answer_text, kind, problem)
    lines = sentences(solution)
    # the first box holding the answer ends the (first) solution: AIME's rows append further solutions after it
    for last_box, line in enumerate(lines):
        conclusion, boxes = unbox_all(line)
        box_spans = [span for span in boxes if answer.matches(conclusion[slice(*span)])]
        if box_spans:
            break
    else:
        return []
    target = _target(lines[last_box])
    cases = []
    box_pieces = _pieces(conclusion, sorted({*box_spans, *statement_spans(conclusion, answer, target)}))
    earlier = [(i, statement_spans(lines[i], answer, target)) for i in range(last_box)]

    cases.append(_leak(box_pieces, kind, "solution latex", "conclusion:raw", index))
    if DELIMITERS.search(conclusion):
        cases.append(_leak(_plain(box_pieces), kind, "plain", "conclusion:plain", index))
    cases.append(
        _leak(_framed(rng.choice(LEAK_FRAMES), box_pieces), kind, "solution latex", "conclusion:framed", index)
    )
    if last_box >= 1:
        passage = []
        for i, spans in earlier[max(0, last_box - rng.choice((1, 2))) :]:
            passage += [*_pieces(lines[i], spans), (" ", False)]
        cases.append(_leak(passage + box_pieces, kind, "solution latex", "conclusion:passage", index))
    stating = [(i, spans) for i, spans in earlier if spans and "\\boxed" not in lines[i]]
    for i, spans in rng.sample(stating, min(3, len(stating))):
        shown = [lines[i][a:b] for a, b in spans]
        if not any(written(piece, answer) for piece in shown):
            if max(len(piece) for piece in shown) > ARITHMETIC_LENGTH:
                continue  # a long expression is mostly the problem's own, restated
            cases.append(
                _leak(_pieces(lines[i], spans), kind, "solution latex", "earlier:arithmetic", index, "arithmetic")
            )
            continue
        words = any(re.fullmatch(r"[a-z-]+", piece, re.I) for piece in shown)
        style, variant = ("words", "words") if words else ("solution latex", "latex")
        cases.append(_leak(_pieces(lines[i], spans), kind, style, f"earlier:{variant}", index))
        if DELIMITERS.search(lines[i]):
            cases.append(_leak(_plain(_pieces(lines[i], spans)), kind, "plain", "earlier:plain", index))

    first_reached = next((i for i, line in enumerate(lines) if mentions_answer(line, answer)), last_box)
    # a whole sentence of some length: a fragment cut before a display ("Thus the original price was") is not one
    whole = re.compile(r".{25,}(?:[.!?]|\$|\\\]|\\end\{\w+\*?\})\W*$", re.S)
    openings = [line for line in lines[: min(first_reached, last_box)] if whole.match(line) and "\\boxed" not in line]
    for number, line in enumerate(openings[:2]):
        if number == 0:
            cases.append(_clean(line, kind, "solution latex", "opening:raw", index, answer))
        else:
            cases.append(
                _clean(
                    rng.choice(OPENING_FRAMES).format(s=line), kind, "solution latex", "opening:framed", index, answer
                )
            )

    frames = rng.sample(WRONG_FRAMES, 2)
    cases.append(_quote_wrong(box_pieces, answer, kind, problem, frames[0], "conclusion", index, 0))
    if DELIMITERS.search(conclusion):
        cases.append(_quote_wrong(box_pieces, answer, kind, problem, frames[1], "conclusion", index, 1, plain=True))
    if stating:
        i, spans = rng.choice(stating)
        pieces = _pieces(lines[i], spans)
        choice = rng.randrange(2)
        cases.append(_quote_wrong(pieces, answer, kind, problem, rng.choice(WRONG_FRAMES), "earlier", index, choice))
    return [case for case in cases if case is not None]


GSM_ARITHMETIC = r"((?:\$?\d[\d,]*(?:\.\d+)?%?\s*[-+*/x×÷]\s*)+\$?\d[\d,]*(?:\.\d+)?%?)\s*=\s*"


def gsm8k_cases(row: dict, index: int, rng: random.Random) -> list[dict]:
    """GSM8K's last worked line (a written-out leak), the same line with its arithmetic kept and its result
    removed (an arithmetic leak), its first line when it mentions no value of the answer, and the last line with a
    wrong result and no arithmetic (clean)."""
    lines = [re.sub(r"<<[^>]*>>", "", line).strip() for line in row["solution"].split("\n")]
    lines = [line for line in lines if line and not line.startswith("####")]
    n = row["answer"]
    kind = "negative integer" if n.startswith("-") else answer_type(n)
    answer = Answer(n, kind, row["problem"])
    if not lines or not re.fullmatch(r"-?\d+", n):
        return []
    last, cases = lines[-1], []
    forms = "|".join(re.escape(form) for form in {n, f"{int(n):,}"})
    results = list(re.finditer(r"(?<![\w.,])(?:" + forms + r")(?![\w]|[.,]\d)", last))
    if results:
        pieces = _pieces(last, [match.span() for match in results])
        cases.append(_leak(pieces, kind, "text", "gsm8k:last line", index))
        cases.append(_leak(_framed(rng.choice(LEAK_FRAMES), pieces), kind, "text", "gsm8k:framed", index))
        arithmetic = list(re.finditer(GSM_ARITHMETIC + r"(?P<result>\$?(?:" + forms + r"))(?![\d]|[.,]\d)", last))
        if len(arithmetic) == 1 and len(results) == 1:
            match = arithmetic[0]
            kept = last[: match.start()] + match.group(1) + last[match.end() :]
            expression = (match.start(), match.start() + len(match.group(1)))
            pieces = _pieces(kept, [expression])
            if not mentions_answer(kept[: expression[0]] + kept[expression[1] :], answer):
                cases.append(_leak(pieces, kind, "text", "gsm8k:arithmetic", index, family="arithmetic"))
            # the wrong result alone: its arithmetic would still compute the answer
            result_only = last[: match.start()] + last[match.start("result") :]
            wrong, how = rng.choice(
                (
                    (str(int(n) + 1), "off by one"),
                    (str(int(n) - 1), "off by one"),
                    (str(int(n) * 10), "a zero appended"),
                )
            )
            shown = re.sub(r"(?<![\w.,])(?:" + forms + r")(?![\w]|[.,]\d)", wrong, result_only)
            if not re.search(r"\d\s*[-+*/x×÷]\s*\$?\d", shown):
                frame = rng.choice(WRONG_FRAMES)
                cases.append(_clean(frame.format(s=shown), kind, "text", "wrong:gsm8k", index, answer, wrong, how))
    if len(lines) > 1 and not re.search(r"(?<![\w.,])(?:" + forms + r")(?![\w]|[.,]\d)", lines[0]):
        cases.append(_clean(lines[0], kind, "text", "gsm8k:opening", index, answer))
    return [case for case in cases if case is not None]


def load_extra() -> list[dict]:
    """Rows of the extra datasets beside the repository: GSM8K (`answer` = the number after `####`, `solution` =
    the worked lines), Minerva Math and AIME 2024 (`answer` = the last boxed value of `solution`). AMC 2023 has no
    worked solution and is not used."""
    rows = []
    for line in (DATA / "gsm8k" / "test.jsonl").read_text().splitlines():
        row = json.loads(line)
        final = row["answer"].rsplit("####", 1)[-1].strip().replace(",", "")
        rows.append({"dataset": "gsm8k", "problem": row["question"], "answer": final, "solution": row["answer"]})
    for name in ("minerva_math", "aime24"):
        for line in (DATA / name / "test.jsonl").read_text().splitlines():
            row = json.loads(line)
            boxed = [unbox(sentence) for sentence in sentences(row["solution"]) if "\\boxed" in sentence]
            if name == "aime24" and row.get("answer"):
                answer = str(row["answer"]).strip()
            elif boxed and boxed[-1]:
                text, span = boxed[-1]
                answer = text[slice(*span)]
            else:
                continue
            rows.append({"dataset": name, "problem": row["problem"], "answer": answer, "solution": row["solution"]})
    return rows


def corpus(problems: list[dict], seed: int = SEED, extra: list[dict] | None = None) -> list[dict]:
    """The cases of MATH-500's `problems` and then of the `extra` rows (`index` runs over `problems + extra`)."""
    cases = []
    for index, row in enumerate([*problems, *(extra or [])]):
        rng = random.Random(f"{seed}:{index}")
        if row.get("dataset") == "gsm8k":
            found = gsm8k_cases(row, index, rng)
        else:
            found = solution_cases(row["solution"], row["answer"], row["problem"], index, rng)
        for case in found:
            if "dataset" in row:
                case["dataset"] = row["dataset"]
        cases += found
    return cases
