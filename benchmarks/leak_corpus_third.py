"""A third, held-out corpus of answer-leaking and clean critiques, written by a method unlike the first two.

The first two corpora filled templates with renderings of the answer generated from the answer string. This one
takes the answer as people wrote it:

1. Author lines. Each MATH-500, Minerva, AIME and GSM8K row carries a worked solution written by a person. The
   sentences (or display blocks) of that solution that state the final answer in the author's own notation -- the
   sentence around the box with the box taken off, earlier lines such as ``$x = 5$`` or ``so the answer is 12`` --
   become the end of a reviewer's critique ("Your last step is wrong. The correct end of the argument is: ...").
   Such a line counts only when the answer's text, or a number of equal value, stands alone in it.
2. Grader critiques. Long critiques in the voice of four LLM-grader personas (terse grader, Socratic tutor,
   step-by-step reviewer with lists and markdown tables, grader that writes a corrected sketch) quote the problem's
   numbers and the attempt's wrong value and state the answer once, at the start, in the middle, at the end, at the
   end of an equation chain taken from the solution, in a table cell or in a footnote. The answer is written in
   notations written here by hand (digits, grouped digits, words, LaTeX, Unicode, ASCII, inequalities, prose lists,
   matrices as rows, units); every notation that can be evaluated is checked to equal the answer by this module's
   own evaluator.
3. Clean critiques use the same personas with intermediate lines of the solution that do not state the answer (no
   standalone answer text, no piece of equal value, no number word of it; the line just before the answer line is
   never used) and a wrong value made the way students err: arithmetic slip, sign error, dropped factor, units
   confusion, an intermediate reported as final, a wrong endpoint or choice. A wrong value never equals the answer.

Besides MATH-500 (`problems`), rows of Minerva Math, AIME 2024, AMC 2023 and GSM8K (`load_extra`) are used. Their
answers are classified with `leak_corpus.answer_type`, after this mapping: AMC's float answers (27.0) become
integers, AIME's zero-padded answers (025) lose the padding, GSM8K's answer is the text after "####" without
thousands commas, Minerva's is its solution's last box and its e-notation (4.5e33) counts as scientific notation.

Independence: written without reading the answer-leak guard, its tests, its benchmark or the other corpora; only
`load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences` and `stated` of `leak_corpus` are used. Every case is
held out: no rule may be tuned on this corpus before it is frozen.
"""

import cmath
import functools
import json
import math
import random
import re
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences  # noqa: E402


DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SEED = 20261207
GSM8K_ROWS = 400  # GSM8K has 1,319 rows; a sample keeps MATH-500 the main set

# --- reading the other benchmarks ------------------------------------------------------------------------------


def _box_span(text: str, start: int) -> tuple[int, int] | None:
    """(start of the content, end of the content) of the brace group opening at `start`."""
    if start >= len(text) or text[start] != "{":
        return None
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return start + 1, end
    return None


_BOX = re.compile(r"\\(?:boxed|fbox|framebox)\s*(?=\{)")


def last_box(text: str) -> str | None:
    matches = list(_BOX.finditer(text))
    if not matches:
        return None
    span = _box_span(text, matches[-1].end())
    return text[span[0] : span[1]].strip() if span else None


def unbox(text: str) -> str:
    """`text` with every `\\boxed{X}` replaced by X."""
    while match := _BOX.search(text):
        span = _box_span(text, match.end())
        if span is None:
            break
        text = text[: match.start()] + text[span[0] : span[1]] + text[span[1] + 1 :]
    return text


def load_extra(data: Path = DATA) -> list[dict]:
    """Minerva, AIME 2024, AMC 2023 and GSM8K rows as {problem, solution, answer, dataset}, in that order."""

    def read(name):
        return [json.loads(line) for line in (Path(data) / name / "test.jsonl").read_text().splitlines() if line]

    rows = []
    for row in read("minerva_math"):
        rows.append(
            {
                "problem": row["problem"],
                "solution": row["solution"],
                "answer": last_box(row["solution"]),
                "dataset": "minerva_math",
            }
        )
    for row in read("aime24"):
        answer = str(int(row["answer"])) if str(row["answer"]).isdigit() else str(row["answer"])
        rows.append({"problem": row["problem"], "solution": row["solution"], "answer": answer, "dataset": "aime24"})
    for row in read("amc23"):
        rows.append({"problem": row["problem"], "solution": "", "answer": str(int(row["answer"])), "dataset": "amc23"})
    for row in read("gsm8k"):
        solution, answer = row["answer"].rsplit("####", 1)
        solution = re.sub(r"<<[^>]*>>", "", solution).strip()
        rows.append(
            {
                "problem": row["question"],
                "solution": solution,
                "answer": answer.strip().replace(",", ""),
                "dataset": "gsm8k",
            }
        )
    return rows


def kind_of(row: dict) -> str:
    """`answer_type` of the row's answer; Minerva's e-notation is scientific notation."""
    if row.get("dataset") == "minerva_math" and re.fullmatch(r"-?\d+(\.\d*)?e-?\d+", row["answer"]):
        return "scientific notation"
    return answer_type(row["answer"], row["problem"])


# --- values ------------------------------------------------------------------------------------------------------

_FUNCTIONS = ("sqrt", "sin", "cos", "tan", "log", "ln", "exp")
# Letters stand for fixed, unrelated irrational values, so two expressions in them are equal only when they agree.
_LETTERS = {chr(c): math.sqrt(2) + 0.31 * k + 0.017 * k * k for k, c in enumerate(range(ord("a"), ord("z") + 1))}
_LETTERS.update({chr(c): math.sqrt(3) + 0.29 * k for k, c in enumerate(range(ord("A"), ord("Z") + 1))})
_NAMESPACE = {
    "sqrt": cmath.sqrt,
    "sin": cmath.sin,
    "cos": cmath.cos,
    "tan": cmath.tan,
    "log": cmath.log,
    "ln": cmath.log,
    "exp": cmath.exp,
    "pi": math.pi,
    "I": 1j,
}
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_CLEAR = [
    ("\\left", ""),
    ("\\right", ""),
    ("\\!", ""),
    ("\\,", ""),
    ("\\;", ""),
    ("\\:", ""),
    ("\\ ", ""),
    ("~", ""),
    ("\\displaystyle", ""),
    ("{,}", ""),
    ("\\dfrac", "\\frac"),
    ("\\tfrac", "\\frac"),
    ("\\cdot", "*"),
    ("\\times", "*"),
    ("\\div", "/"),
    ("^\\circ", ""),
    ("^{\\circ}", ""),
    ("\\circ", ""),
    ("\\%", "/100"),
    ("%", "/100"),
    ("\\$", ""),
    ("$", ""),
    ("−", "-"),
    ("–", "-"),
    ("×", "*"),
    ("·", "*"),
    ("⋅", "*"),
    ("÷", "/"),
    ("⁄", "/"),
    ("π", "\\pi"),
    ("√", "\\sqrt"),
    ("°", ""),
    ("\\pi", "pi"),
]


def _group(text: str, i: int) -> tuple[str, int] | None:
    """The argument of a LaTeX command at `i`: a brace group, or one digit or letter."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return None
    if text[i] == "{":
        span = _box_span(text, i)
        return (text[span[0] : span[1]], span[1] + 1) if span else None
    if text[i].isalnum():
        return text[i], i + 1
    return None


def _commands(text: str) -> str | None:
    """`\\frac`, `\\sqrt` and braces turned into parentheses; None at any other command."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("\\frac", i):
            top = _group(text, i + 5)
            bottom = top and _group(text, top[1])
            if not bottom:
                return None
            top_text, bottom_text = _commands(top[0]), _commands(bottom[0])
            if top_text is None or bottom_text is None:
                return None
            out.append(f"(({top_text})/({bottom_text}))")
            i = bottom[1]
        elif text.startswith("\\sqrt", i):
            j = i + 5
            root = None
            if j < len(text) and text[j] == "[":
                close = text.find("]", j)
                root, j = text[j + 1 : close], close + 1
            if j < len(text) and text[j] == "(":
                out.append("sqrt" if root is None else "")
                i = j
                continue
            argument = _group(text, j)
            inner = argument and _commands(argument[0])
            if inner is None:
                return None
            out.append(f"sqrt({inner})" if root is None else f"(({inner})**(1/({root})))")
            i = argument[1]
        elif text[i] == "\\":
            name = re.match(r"\\([a-zA-Z]+)", text[i:])
            if not name or name.group(1) not in ("sin", "cos", "tan", "log", "ln", "exp"):
                return None
            out.append(name.group(1))
            i += len(name.group(0))
        elif text[i] == "{":
            span = _box_span(text, i)
            inner = span and _commands(text[span[0] : span[1]])
            if inner is None:
                return None
            out.append(f"({inner})")
            i = span[1] + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


_TOKEN = re.compile(r"\d+\.?\d*|\.\d+|\*\*|[-+*/()^]|[A-Za-z]")


def value(text: str):
    """The complex value of a number or expression in LaTeX, Unicode or ASCII notation (letters are fixed
    irrationals, `i` is the imaginary unit), or None where it cannot be read."""
    s = re.sub(r"\\(?:text|mbox|mathrm|textrm|textbf|operatorname)\s*\{[^{}]*\}(?:\^\{?\d\}?)?", "", str(text))
    s = s.strip()
    # a mixed number is a sum, not a product: 1\frac{4}{5}, 1 4/5
    s = re.sub(r"(?<=\d)[eE](?=[-+]?\d+$)", "*10^", s)  # e-notation, as Minerva writes it
    s = re.sub(r"^(-?)(\d+)\s*(\\[dt]?frac\{?\d+\}?\{?\d+\}?|\s\d+/\d+)$", r"\1(\2+\3)", s)
    for old, new in _CLEAR:
        s = s.replace(old, new)
    s = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+", lambda m: "^(" + m.group(0).translate(_SUPERSCRIPTS) + ")", s)
    s = re.sub(r"(?<![\d.])(\d{1,3}(?:,\d{3})+)(?![\d,])", lambda m: m.group(1).replace(",", ""), s)
    s = _commands(s.replace(" ", ""))
    if not s or len(s) > 200 or not re.search(r"[\dA-Za-z]", s):
        return None
    tokens, i = [], 0
    while i < len(s):
        match = _TOKEN.match(s, i)
        if not match:
            return None
        word = match.group(0)
        if word.isalpha():
            function = next((f for f in (*_FUNCTIONS, "pi") if s.startswith(f, i)), None)
            word = function or word
        tokens.append(word)
        i += len(word)
    python, previous = [], None
    for token in tokens:
        operand_start = token[0].isalnum() or token[0] == "." or token == "("
        if previous is not None and operand_start and (previous[0].isalnum() or previous in (")", ".")):
            if previous not in _FUNCTIONS:
                python.append("*")
        if token == "^":
            token = "**"
        elif token == "i":
            token = "I"
        elif token.isalpha() and token not in _FUNCTIONS and token != "pi":
            token = repr(_LETTERS[token])
        python.append(token)
        previous = token if token != "**" else "^"
    expression = "".join(python)
    if re.search(r"\*\*\(?-?\d{4,}", expression):
        return None
    try:
        result = eval(expression, {"__builtins__": {}}, _NAMESPACE)  # noqa: S307 - tokens checked above
        return complex(result)
    except (ArithmeticError, SyntaxError, TypeError, ValueError, NameError):
        return None


def same(a, b) -> bool:
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))


# --- numbers in words --------------------------------------------------------------------------------------------

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def words(n: int) -> str:
    if n < 0:
        return "negative " + words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        return _ONES[n // 100] + " hundred" + (" " + words(n % 100) if n % 100 else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            return words(n // size) + " " + name + (" " + words(n % size) if n % size else "")
    raise AssertionError(n)


def ordinal(n: int, plural: bool) -> str:
    if n == 2:
        return "halves" if plural else "half"
    if n == 4:
        return "quarters" if plural else "quarter"
    head, _, last = words(n).rpartition(" ")
    head, dash, last = last.rpartition("-") if "-" in last else (head, "", last)
    irregular = {
        "one": "first",
        "two": "second",
        "three": "third",
        "five": "fifth",
        "eight": "eighth",
        "nine": "ninth",
        "twelve": "twelfth",
    }
    last = irregular.get(last) or (last[:-1] + "ieth" if last.endswith("y") else last + "th")
    text = (head + (dash or " ") if head else "") + last
    return text + ("s" if plural else "")


# --- the answer and its renderings -------------------------------------------------------------------------------


def _integer(text: str) -> int | None:
    plain = text.replace(",", "").replace("\\!", "").strip().strip("$").strip()
    return int(plain) if re.fullmatch(r"-?\d+", plain) else None


def _fraction(text: str) -> tuple[int, int] | None:
    """(p, q) of `\\frac{p}{q}`, `-\\frac{p}{q}` or `p/q` with integers."""
    plain = text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace(" ", "")
    match = re.fullmatch(r"(-?)\\frac\{?(\d+)\}?\{?(\d+)\}?", plain) or re.fullmatch(r"(-?)(\d+)/(\d+)", plain)
    if not match:
        return None
    sign = -1 if match.group(1) else 1
    return sign * int(match.group(2)), int(match.group(3))


def unicode_of(latex: str) -> str | None:
    """A Unicode rendering (√, π, superscripts, ·) of a simple LaTeX expression, None where one is not simple."""
    s = latex.replace("\\left", "").replace("\\right", "").replace("\\dfrac", "\\frac").replace("\\,", "")
    s = s.replace("\\pi", "π")
    s = re.sub(r"\\sqrt\{(\w+)\}", r"√\1", s)
    s = re.sub(r"\\sqrt\{([^{}]+)\}", r"√(\1)", s)
    s = re.sub(r"\\frac\{([^{}]+)\}\{([^{}]+)\}", lambda m: f"{_atom(m.group(1))}/{_atom(m.group(2))}", s)
    s = re.sub(r"\^\{?(-?\d+)\}?", lambda m: m.group(1).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")), s)
    s = s.replace("\\pi", "π").replace("\\cdot", "·").replace("\\times", "×").replace("\\infty", "∞")
    s = s.replace("\\pm", "±").replace("-", "−")
    return None if "\\" in s or "{" in s or "}" in s or s == latex else s


def ascii_of(latex: str) -> str | None:
    s = latex.replace("\\left", "").replace("\\right", "").replace("\\dfrac", "\\frac").replace("\\,", "")
    s = s.replace("\\pi", "pi")
    s = re.sub(r"\\sqrt\{([^{}]+)\}", r"sqrt(\1)", s)
    s = re.sub(r"\\frac\{([^{}]+)\}\{([^{}]+)\}", lambda m: f"{_atom(m.group(1))}/{_atom(m.group(2))}", s)
    s = re.sub(r"\^\{([^{}]+)\}", lambda m: "^" + _atom(m.group(1)), s)
    s = s.replace("\\pi", "pi").replace("\\cdot", "*").replace("\\times", "*").replace("\\infty", "inf")
    s = re.sub(r"(\d)(sqrt|pi)", r"\1*\2", s)
    return None if "\\" in s or "{" in s or "}" in s or s == latex else s


def _atom(text: str) -> str:
    return text if re.fullmatch(r"[\w.√π]+|\w+\s*π|sqrt\(\w+\)|\w+\s*pi", text) else f"({text})"


def components(answer: str) -> list[str]:
    """The comma- or row-separated entries of a tuple, list, interval or matrix answer."""
    plain = answer.replace("\\left", "").replace("\\right", "").strip()
    if "matrix" in plain:
        inner = re.sub(r"\\(?:begin|end)\{[pb]matrix\}", "", plain)
        return [entry.strip() for row in inner.split("\\\\") for entry in row.split("&") if entry.strip()]
    plain = re.sub(r"^x\s*\\in\s*", "", plain)
    inner = plain[1:-1] if plain[:1] in "([\\{" and plain[-1:] in ")]}" else plain
    inner = inner.removeprefix("{").removesuffix("\\")
    parts, depth, current = [], 0, ""
    for char in inner:
        depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return [part for part in parts if part]


def _r(style: str, text: str, latex: bool = False, parts: list[str] | None = None) -> dict:
    """A rendering: its style, its text, whether it goes between $...$, and the pieces that state it."""
    return {"style": style, "text": text, "latex": latex, "parts": parts or [text]}


def _number_renderings(n: int) -> list[dict]:
    out = [_r("digits", str(n)), _r("latex", str(n), latex=True), _r("words", words(n)) if abs(n) < 10**7 else None]
    if abs(n) >= 1000:
        out += [_r("grouped digits", f"{n:,}"), _r("thin-space digits", f"{n:,}".replace(",", "\u2009"))]
        out.append(_r("latex grouped", f"{n:,}".replace(",", "{,}"), latex=True))
    if n < 0:
        out += [_r("unicode minus", f"−{-n}"), _r("minus words", "minus " + words(-n))]
    out += [_r("trailing zero", f"{n}.0"), _r("bold digits", f"**{n}**", parts=[str(n)])]
    return [r for r in out if r]


def _fraction_renderings(p: int, q: int) -> list[dict]:
    sign = "-" if p < 0 else ""
    a = abs(p)
    out = [
        _r("latex frac", f"{sign}\\frac{{{a}}}{{{q}}}", latex=True),
        _r("latex dfrac", f"{sign}\\dfrac{{{a}}}{{{q}}}", latex=True),
        _r("slash", f"{sign}{a}/{q}"),
        _r("spaced slash", f"{sign}{a} / {q}"),
        _r("unicode fraction slash", f"{'−' if sign else ''}{a}⁄{q}"),
        _r("over", f"{'minus ' if sign else ''}{a} over {q}"),
    ]
    if a < 1000 and q < 1000:
        out.append(_r("words", ("negative " if sign else "") + f"{words(a)} {ordinal(q, a != 1)}"))
    vulgar = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (1, 6): "⅙", (1, 8): "⅛"}
    if (a, q) in vulgar:
        out.append(_r("unicode vulgar", ("−" if sign else "") + vulgar[(a, q)]))
    reduced_q = q // math.gcd(a, q)
    if reduced_q and all(f in (2, 5) for f in _factors(reduced_q)) and len(str(a / q)) <= 8:
        out.append(_r("decimal", f"{sign}{a / q:g}".replace("e", "E")))
    return out


def _factors(n: int) -> list[int]:
    out, k = [], 2
    while k * k <= n:
        while n % k == 0:
            out.append(k)
            n //= k
        k += 1
    return out + ([n] if n > 1 else [])


def _expression_renderings(answer: str) -> list[dict]:
    latex = answer.strip()
    out = [_r("latex", latex, latex=True)]
    # spaces go, except the one that ends a command before a letter (\pi r must not become \pir)
    compact = re.sub(r"(\\[a-zA-Z]+)?\s+", lambda m: m.group(1) + " " if m.group(1) else "", latex)
    if compact != latex:
        out.append(_r("latex unspaced", compact, latex=True))
    spaced = re.sub(r"\s*([+=]|(?<=[\w}])-)\s*", r" \1 ", compact)
    if spaced not in (latex, compact) and "matrix" not in latex:
        out.append(_r("latex spaced", spaced, latex=True))
    if (uni := unicode_of(latex)) is not None:
        out.append(_r("unicode", uni))
    if (asc := ascii_of(latex)) is not None:
        out.append(_r("ascii", asc))
    out.append(_r("inline paren latex", f"\\({latex}\\)"))
    return out


def _interval_renderings(answer: str) -> list[dict]:
    out = _expression_renderings(answer)
    pieces = re.split(r"\s*\\cup\s*", re.sub(r"^x\s*\\in\s*", "", answer.replace("\\left", "").replace("\\right", "")))
    inequalities, plain = [], []
    for piece in pieces:
        piece = piece.strip()
        entries = components(piece)
        if len(entries) != 2 or piece[:1] not in "([" or piece[-1:] not in ")]":
            return out
        low, high = ((unicode_of(e) or e).replace("\\infty", "∞").replace("−∞", "-∞") for e in entries)
        if "∞" in low and "∞" in high:
            return out
        if "∞" in high:
            inequalities.append(f"x {'>' if piece[0] == '(' else '≥'} {low}")
        elif "∞" in low:
            inequalities.append(f"x {'<' if piece[-1] == ')' else '≤'} {high}")
        else:
            inequalities.append(f"{low} {'<' if piece[0] == '(' else '≤'} x {'<' if piece[-1] == ')' else '≤'} {high}")
        plain.append(f"{piece[0]}{low}, {high}{piece[-1]}")
    if all("\\" not in x for x in inequalities):
        text = " or ".join(inequalities)
        out.append(_r("inequality", text))
        if "≤" in text or "≥" in text:
            out.append(_r("ascii inequality", text.replace("≤", "<=").replace("≥", ">=")))
        if all("\\" not in p for p in plain):
            out.append(_r("unicode interval", " ∪ ".join(plain)))
    return out


def _sequence_renderings(answer: str, kind: str, problem: str) -> list[dict]:
    entries = components(answer)
    out = _expression_renderings(answer)
    if answer.replace(" ", "").startswith("\\pm") and len(entries) == 1:
        x = answer.replace("\\pm", "").strip()
        out += [_r("plus or minus prose", f"{x} and −{x}", parts=[x, f"−{x}"]), _r("unicode plus-minus", f"±{x}")]
    if len(entries) < 2:
        return out
    shown = [unicode_of(e) or e for e in entries]
    inline = [e if e == s else s for e, s in zip(entries, shown)]
    if kind == "matrix/vector":
        rows = answer.split("\\\\")
        if len(rows) == len(entries):  # a column vector
            out += [
                _r("row vector", "(" + ", ".join(inline) + ")"),
                _r("transposed row", "[" + ", ".join(inline) + "]^T"),
                _r("angle brackets", "⟨" + ", ".join(inline) + "⟩"),
            ]
        else:
            width = len(entries) // len(rows)
            matrix_rows = [inline[k : k + width] for k in range(0, len(inline), width)]
            out.append(_r("nested lists", "[" + ", ".join("[" + ", ".join(r) + "]" for r in matrix_rows) + "]"))
            prose = "; ".join(f"row {words(k + 1)}: " + "  ".join(r) for k, r in enumerate(matrix_rows))
            out.append(_r("rows in prose", prose))
        return out
    body = ", ".join(inline)
    if kind in ("ordered pair", "tuple"):
        out += [_r("plain tuple", f"({body})"), _r("angle tuple", f"⟨{body}⟩"), _r("square brackets", f"[{body}]")]
        named = re.search(r"\(([a-z](?:\s*,\s*[a-z])+)\)", problem)
        letters = re.findall(r"[a-z]", named.group(1)) if named else []
        if len(letters) == len(inline):
            prose = ", ".join(f"{letter} = {e}" for letter, e in zip(letters, inline))
            out.append(_r("named values", prose, parts=_distinct(inline)))
        names = ["first", "second", "third", "fourth", "fifth"][: len(inline)]
        if len(names) == len(inline):
            prose = ", ".join(f"{name} coordinate {e}" for name, e in zip(names, inline))
            out.append(_r("coordinates in prose", prose, parts=_distinct(inline)))
    else:
        out += [
            _r("prose list", ", ".join(inline[:-1]) + " and " + inline[-1], parts=_distinct(inline)),
            _r("braced set", "{" + body + "}"),
            _r("bulleted", "\n" + "\n".join(f"- {e}" for e in inline) + "\n", parts=_distinct(inline)),
        ]
    return out


def _distinct(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _units_renderings(answer: str) -> list[dict]:
    plain = answer.replace("\\!", "").replace("\\,", "").strip()
    if match := re.fullmatch(r"(-?[\d.]+)\^\{?\\circ\}?", plain):
        n = match.group(1)
        out = [
            _r("degree sign", f"{n}°", parts=[n]),
            _r("degrees word", f"{n} degrees", parts=[n]),
            _r("latex degrees", plain, latex=True, parts=[n]),
            _r("deg", f"{n} deg", parts=[n]),
        ]
        if n.isdigit():
            out.append(_r("words degrees", words(int(n)) + " degrees", parts=[words(int(n))]))
        return out
    if match := re.fullmatch(r"\\\$([\d,.]+)", plain):
        n = match.group(1)
        out = [
            _r("dollar sign", f"${n}", parts=[n]),
            _r("dollars word", f"{n} dollars", parts=[n]),
            _r("USD", f"USD {n}", parts=[n]),
        ]
        if "," in n:
            out.append(_r("ungrouped dollars", f"${n.replace(',', '')}", parts=[n.replace(",", "")]))
        return out
    match = re.fullmatch(r"(.+?)\s*\\(?:text|mbox)\{\s*([a-z ]+)\}(\^2)?", plain)
    if match:
        number, unit, square = match.group(1).strip(), match.group(2).strip(), match.group(3)
        shown = unicode_of(number) or number
        unit_words = ("square " if square else "") + unit
        if "\\" in shown:
            out = [_r("number and unit", f"${number}$ {unit_words}", parts=[number])]
        else:
            out = [_r("number and unit", f"{shown} {unit_words}", parts=[shown])]
        out += [_r("latex with unit", plain, latex=True, parts=[number])]
        if square:
            out.append(_r("unit exponent", f"{shown} {unit[:2]}²", parts=[shown]))
        return out
    return _expression_renderings(answer)


def _base_renderings(answer: str) -> list[dict]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
    subscript = base.translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    return [
        _r("latex subscript", f"{digits}_{{{base}}}", latex=True),
        _r("plain subscript", f"{digits}_{base}"),
        _r("base in words", f"{digits} in base {base}", parts=[digits]),
        _r("parenthesised base", f"({digits})_{base}"),
        _r("unicode subscript", f"{digits}{subscript}"),
    ]


def _scientific_renderings(answer: str) -> list[dict]:
    match = re.fullmatch(r"(-?\d+(?:\.\d*)?)(?:e|\s*\\times\s*10\^)\{?(-?\d+)\}?", answer.replace(" ", ""))
    if not match:
        return _expression_renderings(answer)
    mantissa, exponent = match.group(1).rstrip("."), match.group(2)
    superscript = exponent.translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return [
        _r("latex times", f"{mantissa} \\times 10^{{{exponent}}}", latex=True),
        _r("unicode times", f"{mantissa}×10{superscript}"),
        _r("e notation", f"{mantissa}e{exponent}"),
        _r("E notation", f"{mantissa}E{exponent}"),
        _r("ascii power", f"{mantissa} x 10^{exponent}"),
        _r("caret times", f"{mantissa}*10^{exponent}"),
    ]


def renderings(answer: str, kind: str, problem: str = "") -> list[dict]:
    """Hand-written notations of `answer`; every one that can be evaluated has the answer's value."""
    answer = answer.strip()
    if kind in ("small integer", "negative integer", "large integer") and (n := _integer(answer)) is not None:
        out = _number_renderings(n)
    elif kind == "fraction" and (pq := _fraction(answer)):
        out = _fraction_renderings(*pq)
    elif kind == "decimal":
        number = answer if not answer.startswith(".") else "0" + answer
        out = [_r("digits", number), _r("latex", number, latex=True)]
        if number.startswith("0.") or number.startswith("-0."):
            out.append(_r("no leading zero", number.replace("0.", ".", 1)))
        digits = number.split(".")[1]
        whole = words(int(number.split(".")[0].lstrip("-") or 0))
        sign = "negative " if number.startswith("-") else ""
        out.append(_r("words", sign + whole + " point " + " ".join(_ONES[int(d)] for d in digits)))
        if len(digits) <= 3:
            q = 10 ** len(digits)
            p = int(number.replace(".", ""))
            g = math.gcd(p, q)
            out.append(_r("as fraction", f"{p // g}/{q // g}"))
    elif kind == "mixed number" and (match := re.fullmatch(r"(\d+)\s*\\frac\{?(\d+)\}?\{?(\d+)\}?", answer)):
        whole, p, q = (int(g) for g in match.groups())
        out = [
            _r("latex mixed", answer, latex=True),
            _r("spaced mixed", f"{whole} {p}/{q}"),
            _r("improper latex", f"\\frac{{{whole * q + p}}}{{{q}}}", latex=True),
            _r("improper slash", f"{whole * q + p}/{q}"),
            _r("mixed words", f"{words(whole)} and {words(p)} {ordinal(q, p != 1)}"),
        ]
    elif kind == "multiple choice":
        letter = re.search(r"[A-H]", answer).group(0)
        out = [
            _r("parenthesised letter", f"({letter})"),
            _r("option letter", f"option {letter}", parts=[letter]),
            _r("choice letter", f"choice ({letter})", parts=[f"({letter})"]),
            _r("bold letter", f"**{letter}**", parts=[letter]),
        ]
    elif kind == "text answer":
        word = re.fullmatch(r"\\text\{(.+)\}", answer).group(1).strip()
        out = [
            _r("plain word", word),
            _r("latex text", answer, latex=True, parts=[word]),
            _r("quoted word", f"“{word}”", parts=[word]),
            _r("capitalised", word.capitalize()),
        ]
    elif kind == "units/degrees/money":
        out = _units_renderings(answer)
    elif kind == "base-n number":
        out = _base_renderings(answer)
    elif kind == "scientific notation":
        out = _scientific_renderings(answer)
    elif kind == "interval":
        out = _interval_renderings(answer)
    elif kind in ("ordered pair", "tuple", "set/list", "matrix/vector"):
        out = _sequence_renderings(answer, kind, problem)
    elif kind == "complex number":
        out = _expression_renderings(answer)
        if match := re.fullmatch(r"(-?\d+)\s*([-+])\s*(\d*)i", answer):
            real, sign, imaginary = match.groups()
            out.append(
                _r(
                    "complex words",
                    f"{words(int(real))} {'plus' if sign == '+' else 'minus'} {words(int(imaginary or 1))} i",
                )
            )
            out.append(
                _r(
                    "real and imaginary parts",
                    f"real part {real}, imaginary part {sign.strip('+')}{imaginary or 1}",
                    parts=[real, f"{sign.strip('+')}{imaginary or 1}"],
                )
            )
    elif kind == "equation":
        out = _expression_renderings(answer)
        left, right = (side.strip() for side in answer.split("=", 1))
        out.append(_r("sides swapped", f"{right} = {left}", latex=True))
        if re.fullmatch(r"[a-z]", left):
            out.append(
                _r("prose equation", f"{left} equals {unicode_of(right) or right}", parts=[unicode_of(right) or right])
            )
    else:
        out = _expression_renderings(answer)
    target = value(answer) if kind not in ("interval", "ordered pair", "tuple", "set/list", "matrix/vector") else None
    kept = []
    for rendering in out:
        if rendering["style"] in ("words", "minus words", "mixed words", "over", "complex words", "words degrees"):
            kept.append(rendering)  # checked against the digits by `words` itself
            continue
        if target is not None and kind != "equation" and "parts" in rendering and len(rendering["parts"]) == 1:
            got = value(rendering["parts"][0].replace("°", "").replace(" x ", "*"))
            if got is not None and not same(got, target):
                continue
        kept.append(rendering)
    return kept


def unit_renderings(row: dict) -> list[dict]:
    """Notations with the unit the row's own text gives the answer: dollars in GSM8K money problems, the unit
    written after Minerva's box."""
    answer = row["answer"]
    if row.get("dataset") == "gsm8k" and "$" in row["problem"] and (n := _integer(answer)) is not None:
        return [
            _r("dollar sign", f"${n}", parts=[str(n)]),
            _r("dollars word", f"{n} dollars", parts=[str(n)]),
            _r("cents shown", f"${n}.00", parts=[f"{n}.00"]),
            _r("latex dollars", f"\\${n}", latex=True, parts=[str(n)]),
        ]
    if row.get("dataset") == "minerva_math":
        after = row["solution"][row["solution"].rfind(answer) + len(answer) :]
        match = re.match(r"\}\s*(?:\\mathrm|\\text|\\operatorname)\s*\{\s*~?\s*([A-Za-z]+)\s*\}", after)
        if match and value(answer) is not None:
            unit = match.group(1)
            return [
                _r("number and unit", f"{answer} {unit}", parts=[answer]),
                _r("latex unit", f"{answer}\\,\\mathrm{{{unit}}}", latex=True, parts=[answer]),
            ]
    return []


# --- checks ------------------------------------------------------------------------------------------------------

_RELATIONS = re.compile(
    r"=|<|>|\\[lg]eq?|\\approx|\\neq|\\sim|\\equiv|,\s|;|\\q?quad|\\text\{[^}]*\}|\\implies|\\Rightarrow|&|\\\\"
    r"|\\begin\{[^}]*\}|\\end\{[^}]*\}|\\\[|\\\]|\\\(|\\\)"
)


def pieces(text: str) -> list[str]:
    """Candidate values in `text`: pieces of its math between relations, and its whitespace-separated tokens."""
    out = []
    for span in re.findall(r"\$\$?([^$]+)\$\$?|\\\[(.+?)\\\]|\\\((.+?)\\\)", text, flags=re.S):
        math_text = next(s for s in span if s)
        out += [p.strip() for p in _RELATIONS.split(math_text) if p and p.strip()]
    for token in re.findall(r"[^\s$]+", text):
        out.append(token.strip(".,;:!?*“”\"'"))
    out += re.findall(r"-?\d[\d,]*\.?\d*(?:\s*/\s*\d+)?", text)
    return [p for p in out if p and re.search(r"\d|π|\\pi|√", p)]


@functools.lru_cache(maxsize=4096)
def answer_forms(answer: str, kind: str, problem: str = "") -> tuple[str, ...]:
    """The answer's own string, its tidied forms and every hand-written rendering that is one contiguous piece."""
    forms = {answer.strip(), answer.replace("\\dfrac", "\\frac").strip(), answer.replace(" ", "")}
    forms.add(answer.replace("\\left", "").replace("\\right", "").replace(" ", ""))
    forms.update(r["text"].strip() for r in renderings(answer, kind, problem) if r["parts"] == [r["text"]])
    forms.update(part for r in renderings(answer, kind, problem) for part in r["parts"] if len(r["parts"]) == 1)
    return tuple(sorted(f for f in forms if f))


def states_answer(text: str, row: dict, kind: str, all_entries: bool = True) -> bool:
    """Whether `text` states the row's answer in any way this module can see (used to keep clean texts clean);
    with `all_entries`, a text holding every entry of a tuple, list, interval or matrix answer counts too."""
    answer = row["answer"]
    squeezed = re.sub(r"\s+", "", text)
    for form in answer_forms(answer, kind, row["problem"]):
        if occurrences(form, text):
            return True
        if len(form) >= 4 and not form.isdigit() and re.sub(r"\s+", "", form) in squeezed:
            return True
    target = value(answer)
    if target is not None and any(same(value(piece), target) for piece in pieces(text)):
        return True
    number = _integer(answer)
    if number is not None and abs(number) < 10**7 and re.search(rf"\b{re.escape(words(abs(number)))}\b", text.lower()):
        return True
    if (pq := _fraction(answer)) and abs(pq[0]) < 1000 and pq[1] < 1000:
        if f"{words(abs(pq[0]))} {ordinal(pq[1], abs(pq[0]) != 1)}" in text.lower():
            return True
    entries = (
        components(answer)
        if all_entries and kind in ("interval", "ordered pair", "tuple", "set/list", "matrix/vector")
        else []
    )
    return len(entries) > 1 and all(occurrences(e, text) for e in entries)


# --- solution lines ----------------------------------------------------------------------------------------------


def segments(solution: str) -> list[str]:
    """The solution's sentences, with display blocks kept whole and Asymptote pictures left out."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", solution, flags=re.S)
    blocks, current, depth = [], [], 0
    for line in text.split("\n"):
        opens = len(re.findall(r"\\begin\{|\\\[", line))
        closes = len(re.findall(r"\\end\{|\\\]", line))
        current.append(line)
        depth += opens - closes
        if depth <= 0:
            blocks.append("\n".join(current).strip())
            current, depth = [], 0
    if current:
        blocks.append("\n".join(current).strip())
    out = []
    for block in blocks:
        if "\\begin" in block or "\\[" in block:
            out.append(block)
            continue
        start, dollars = 0, 0
        for i, char in enumerate(block):
            dollars += char == "$"
            if (
                dollars % 2 == 0
                and char in ".!?"
                and block[i + 1 : i + 3].startswith(" ")
                and block[i + 2 : i + 3].isupper()
            ):
                out.append(block[start : i + 1].strip())
                start = i + 1
        out.append(block[start:].strip())
    return [s for s in out if s]


_NOT_BEFORE = re.compile(r"(?:[{^_/*+\-−(,\[|]|\\(?:cdot|times|frac|sqrt|pm|div|left))$")
_NOT_AFTER = re.compile(r"^(?:[}^_/*+\-−(×·{!]|\\(?!quad|qquad|text|mathrm|mbox|\]|\)|,|;|end|\\))")


def _stands_as_value(line: str, start: int, end: int, after_relation: bool) -> bool:
    """Whether the piece at line[start:end] is a value on its own: not inside a fraction, power or sum; with
    `after_relation`, it must also follow `=`, `:`, `\\approx` or a word ("is", "total")."""
    before = re.sub(r"[\s$]|\\\[|\\\(", "", line[max(0, start - 12) : start])
    after = re.sub(r"^[\s$]+", "", line[end : end + 12])
    if _NOT_BEFORE.search(before) or _NOT_AFTER.search(after):
        return False
    return not after_relation or bool(re.search(r"(?:[=:]|\\approx|\\simeq|[A-Za-z]{2})$", before))


def answer_pieces(line: str, row: dict, kind: str, after_relation: bool) -> dict[str, list[tuple[int, int]]]:
    """The pieces of an author's line that state the answer (its own text, or a plain number of equal value), each
    with the spans where it stands as a value on its own."""
    candidates = {form for form in answer_forms(row["answer"], kind, row["problem"]) if occurrences(form, line)}
    target = value(row["answer"])
    if target is not None:
        candidates.update(t for t in re.findall(r"-?\d[\d,]*(?:\.\d+)?", line) if same(value(t), target))
    found = {}
    for piece in sorted(candidates, key=len, reverse=True):
        spans = [
            m.span()
            for m in re.finditer(r"(?<![\w.])" + re.escape(piece) + r"(?![\w]|\.\d)", line)
            if _stands_as_value(line, *m.span(), after_relation)
            and not any(s <= m.start() < e for spans in found.values() for s, e in spans)
        ]
        if spans:
            found[piece] = spans
    return found


def author_lines(row: dict, kind: str) -> tuple[list[tuple[str, str, list[str], str]], list[str]]:
    """(lines that state the answer, each with the line as the value left out, its pieces and where it stands;
    intermediate lines that do not state it). Lines other than the boxed one count only near its end and only
    where the answer follows a relation, and never for answers below ten, which are common as other numbers."""
    lines = segments(row["solution"])
    boxed_at = max((k for k, line in enumerate(lines) if _BOX.search(line)), default=len(lines))
    small = (n := _integer(row["answer"])) is not None and abs(n) < 10
    stating, clean, first = [], [], None
    for k, raw in enumerate(lines):
        boxed = bool(_BOX.search(raw))
        line = unbox(raw)
        found = answer_pieces(line, row, kind, after_relation=not boxed)
        if found or boxed:
            first = k if first is None else first
        if found and (boxed or (boxed_at - 3 <= k < boxed_at and not small)):
            hidden = line
            for start, end in sorted((span for spans in found.values() for span in spans), reverse=True):
                hidden = hidden[:start] + "…" + hidden[end:]
            words_left = re.findall(r"[A-Za-z]{3,}|=", hidden)
            if len(words_left) >= 2 and 20 <= len(line) <= 400:
                stating.append((line, hidden, list(found), "boxed sentence" if boxed else "earlier line"))
        elif not found and not boxed and 20 <= len(line) <= 300 and re.search(r"\d", line) and line[-1] in ".!?$]":
            clean.append((k, line))
    last = first if first is not None else len(lines)
    clean = [line for k, line in clean if k < last - 1 and not states_answer(line, row, kind)]
    return stating, clean


def equation_chain(row: dict, kind: str) -> list[str]:
    """Left-hand pieces of the solution's last equation that ends in the answer, none stating it."""
    for line in reversed(segments(row["solution"])):
        if not _BOX.search(line):
            continue
        spans = re.findall(r"\$([^$]+)\$|\\\[(.+?)\\\]", line, flags=re.S)
        for span in spans:
            math_text = next(s for s in span if s)
            if "=" not in math_text or "\\boxed" not in math_text or "&" in math_text or "\\\\" in math_text:
                continue
            sides = [s.strip() for s in math_text.split("=")]
            last = re.fullmatch(r"\\boxed\{(.*)\}\s*[.,]?", sides[-1])
            if kind == "equation" or not last or last.group(1).strip() != row["answer"].strip():
                continue
            left = [
                s
                for s in sides[:-1]
                if s and not re.search(r",|\\q?quad|\\boxed|\\therefore", s) and not states_answer(f"${s}$", row, kind)
            ]
            if left and len(left) == len(sides) - 1 and len(" = ".join(left)) <= 120:
                return left
    return []


# --- wrong values ------------------------------------------------------------------------------------------------


def _mutate_digit(text: str, rng: random.Random) -> str | None:
    spots = list(re.finditer(r"\d+", text))
    if not spots:
        return None
    spot = rng.choice(spots)
    number = int(spot.group(0))
    new = str(number + rng.choice((1, 2, -1)) if number > 2 else number + 1)
    return text[: spot.start()] + new + text[spot.end() :]


def wrong_values(row: dict, kind: str, rng: random.Random) -> list[tuple[str, str]]:
    """Wrong final answers a student could give, each (text, how it went wrong); none equals the answer."""
    answer = row["answer"].strip()
    out = []
    n = _integer(answer)
    if n is not None:
        out += [(str(n + 1), "arithmetic slip"), (str(n - 1), "arithmetic slip"), (str(2 * n), "dropped factor")]
        if n % 2 == 0:
            out.append((str(n // 2), "dropped factor"))
        if n < 0:
            out.append((str(-n), "sign error"))
        if abs(n) >= 10 and len(set(str(abs(n)))) > 1:
            out.append((("-" if n < 0 else "") + str(abs(n))[::-1], "digit swap"))
        if row.get("dataset") in ("gsm8k", "minerva_math"):
            out += [(str(n * 60), "units confusion"), (str(n * 100), "units confusion")]
    elif (pq := _fraction(answer)) is not None:
        p, q = pq
        out += [
            (f"\\frac{{{q}}}{{{abs(p)}}}", "inverted"),
            (f"\\frac{{{abs(p) + 1}}}{{{q}}}", "arithmetic slip"),
            (f"\\frac{{{abs(p)}}}{{{2 * q}}}", "dropped factor"),
        ]
        if p < 0:
            out.append((f"\\frac{{{-p}}}{{{q}}}", "sign error"))
    elif kind == "decimal" or re.fullmatch(r"-?\d*\.\d+", answer):
        number = float(answer)
        out += [
            (f"{number * 10:g}", "units confusion"),
            (f"{number / 10:g}", "units confusion"),
            (_mutate_digit(answer, rng), "arithmetic slip"),
        ]
    elif kind == "multiple choice":
        letter = re.search(r"[A-H]", answer).group(0)
        out += [(f"({other})", "other choice") for other in "ABCDE" if other != letter][:2]
    elif kind == "text answer":
        word = re.fullmatch(r"\\text\{(.+)\}", answer).group(1).strip()
        swaps = {"even": "odd", "odd": "even", "east": "west", "ellipse": "hyperbola"}
        names = [w for w in re.findall(r"\b[A-Z][a-z]+\b", row["problem"]) if w != word and len(w) > 3]
        other = swaps.get(word) or (names[0] if names else None)
        if other:
            out.append((f"\\text{{{other}}}", "wrong case"))
    elif kind == "interval":
        flips = {"(": "[", "[": "(", ")": "]", "]": ")"}
        spots = [m.start() for m in re.finditer(r"[\[\]()]", answer)]
        for spot in spots[:1] + spots[-1:]:
            near = answer[spot : spot + 10] if spot == spots[0] else answer[max(0, spot - 10) : spot]
            if "infty" not in near:
                out.append((answer[:spot] + flips[answer[spot]] + answer[spot + 1 :], "wrong endpoint"))
        out.append((_mutate_digit(answer, rng), "arithmetic slip"))
    elif kind == "scientific notation":
        match = re.fullmatch(r"(-?[\d.]+)(e|\s*\\times\s*10\^\{?)(-?\d+)(\}?)", answer)
        if match:
            mantissa, middle, exponent, close = match.groups()
            out += [(f"{mantissa}{middle}{int(exponent) + step}{close}", "units confusion") for step in (1, -2)]
    else:
        out.append((_mutate_digit(answer, rng), "arithmetic slip"))
        if sign := re.search(r"(?<=[\w}) ])\s*([-+])\s*", answer):
            flipped = "+" if sign.group(1) == "-" else "-"
            flipped = answer[: sign.start(1)] + flipped + answer[sign.end(1) :]
            flipped = re.sub(r"([=(,]\s*)\+\s*", r"\1", flipped)
            flipped = re.sub(r"(\\begin\{[pb]matrix\}|\\\\|&)(\s*)\+\s*", r"\1\2", flipped)
            out.append((flipped, "sign error"))
        if "\\pi" in answer:
            out.append((answer.replace("\\pi", "2\\pi", 1), "dropped factor"))
    target = value(answer)
    for token in re.findall(r"(?<![\w.^_{])\d+(?:\.\d+)?(?![\w.]|\^|\})", unbox(row.get("solution", ""))):
        if target is not None and not same(value(token), target) and token not in row["problem"]:
            out.append((token, "intermediate as final"))
    kept = []
    for text, how in out:
        if not text or text.replace(" ", "") == answer.replace(" ", ""):
            continue
        if any(math.isqrt(int(n)) ** 2 == int(n) for n in re.findall(r"\\sqrt\{(\d+)\}", text)):
            continue  # a student would not leave the root of a square
        if any(top == bottom for top, bottom in re.findall(r"\\frac\{(\d+)\}\{(\d+)\}", text)):
            continue  # nor a fraction equal to one
        got = value(text)
        if target is not None and (got is None or same(got, target)) and kind not in ("interval",):
            continue
        kept.append((text, how))
    rng.shuffle(kept)
    return list(dict.fromkeys(kept))


def shown(text: str) -> str:
    """A wrong value as a grader writes it: LaTeX between dollars, plain numbers bare."""
    return f"${text}$" if re.search(r"[\\^_{]", text) else text


# --- the critiques -----------------------------------------------------------------------------------------------

# Personas. {A}: the answer; {W}: the attempt's wrong value; {Q}: the problem's numbers; {L}: a correct intermediate
# line of the solution; {E}: the left side of the solution's final equation chain.
LEAK_FRAMES = {
    "terse:end": "Incorrect. You report {W}, but the correct value is {A}. Recheck the final computation.",
    "terse:colon": "Final answer {W} is wrong. Setup fine; the arithmetic at the end is off. Expected: {A}.",
    "terse:start": "{A}, not {W}. The error is in the last step, where you combine {Q} incorrectly. "
    "Everything before it is fine.",
    "terse:middle": "Wrong final value ({W}). Using {Q}, the method is right but the simplification is not. "
    "Correct result: {A}. Redo the last two lines.",
    "terse:footnote": "Answer rejected: {W} does not satisfy the conditions set by {Q}.[^a] Check the constraint "
    "again before simplifying.\n\n[^a]: Reference value: {A}.",
    "socratic:end": "Let's think about your final step. You used {Q} and arrived at {W}. Does that value satisfy "
    "every condition in the problem? Try substituting it back. If you redo the last "
    "simplification carefully, you should land on {A}. What changed between your version and "
    "this one?",
    "socratic:middle": "What would happen if {W} were right? Plug it into the original condition and see whether "
    "it holds. I suspect it does not. The value that does hold is {A}; can you see which step "
    "takes you there?",
    "socratic:start": "Here is a hint: the quantity you want is {A}. Before you look at why, ask yourself how you "
    "used {Q}. Your {W} suggests that a factor was dropped. Which one?",
    "socratic:question": "Good effort. Which operation did you apply after setting up the equation with {Q}? "
    "Your result, {W}, comes from that step. If you re-derive it, you get {A}, don't you? "
    "Compare the two carefully.",
    "socratic:chain": "Can you check the chain of equalities? Written out properly it reads ${E} = {A}$, whereas "
    "you stopped at {W}. Which link breaks in your version?",
    "reviewer:list-end": "Step-by-step review:\n1. Reading the problem ({Q}): correct.\n2. Setting up the "
    "relation: correct.\n3. Simplifying: an error appears here.\n4. Final value: you give "
    "{W}; it should be {A}.\nPlease fix step three and carry the change through.",
    "reviewer:table-row": "| Step | Your work | Verdict |\n|---|---|---|\n| Setup | uses {Q} | fine |\n"
    "| Computation | {W} | wrong |\n| Correct value | {A} | expected |\n\n"
    "The mistake is in the computation row.",
    "reviewer:table-cell": "| Quantity | Yours | Expected |\n|---|---|---|\n| final answer | {W} | {A} |\n\n"
    "Everything before the final line checks out; only the last simplification fails.",
    "reviewer:bullets": "**Review**\n- Interpretation: OK.\n- Method: OK.\n- Execution: the last simplification "
    "is wrong, leading to {W}.\n- Expected final answer: **{A}**.\n- Suggestion: redo the "
    "simplification slowly, keeping track of {Q}.",
    "reviewer:list-start": "Expected answer: {A}.\n- Your setup with {Q} is right.\n- Your final step gives {W}, "
    "which is inconsistent with the setup.\n- Rework that step.",
    "sketch:line": "Your final answer {W} is incorrect. Here is a corrected sketch.\n- Start from {Q}.\n"
    "- {L}\n- Simplify carefully; this gives {A}.\nThe error in your attempt was in the final "
    "simplification.",
    "sketch:prose": "A corrected solution, in brief: set up the relation using {Q}, then simplify. Carrying the "
    "computation through yields {A}. Your attempt reached {W} because a factor went missing. "
    "Compare the two line by line.",
    "sketch:chain": "Corrected derivation: ${E} = {A}$. Your {W} comes from an error before the last equality. "
    "The earlier steps are sound.",
    "sketch:after-line": "Sketch of a correct solution. First, {L} From there the remaining algebra is routine, "
    "and the result is {A}, not {W}. Everything you did before that point is fine.",
    "sketch:grade": "Grade: incorrect ({W}).\nCorrected solution sketch: use {Q} as stated; the key relation is "
    "the same as yours; solving it properly gives {A}.\nNote: double-check signs and any factors "
    "you may have dropped.",
}

AUTHOR_FRAMES = {
    "terse:last-step": "Your last step is wrong. The correct end of the argument is: {N}",
    "terse:compare": "You went wrong at the end. Compare with how it should finish:\n\n{N}",
    "reviewer:value": "The setup is fine, but your final value {W} does not follow. A correct solution "
    "concludes:\n{N}\nPlease rework your last computation.",
    "socratic:look": "Look at how the reference solution ends: {N} Where does your {W} part ways with it?",
    "sketch:quote": "Corrected ending (from a worked solution):\n> {N}\nYour version, {W}, drops this step.",
    "reviewer:verdict": 'Verdict: incorrect. Reason: the final computation. The reference argument reads: "{N}"',
}

CLEAN_FRAMES = {
    "terse:wrong": "Incorrect. You report {W}. The setup is right but the final computation is not. Recheck the "
    "last step.",
    "socratic:substitute": "Let's look at your last step. You used {Q} and arrived at {W}. Does that value "
    "satisfy every condition in the problem? Try substituting it back and see what happens.",
    "reviewer:list": "Step-by-step review:\n- Reading the problem ({Q}): correct.\n- Intermediate step (correct): "
    "{L}\n- Final value: {W}; this does not follow, so redo the simplification.",
    "reviewer:table": "| Step | Your work | Verdict |\n|---|---|---|\n| Setup | uses {Q} | fine |\n"
    "| Key step | {L} | fine |\n| Final answer | {W} | wrong |\n\nThe mistake comes after the key step.",
    "sketch:up-to": "Your work is correct up to this point: {L} After that, you wrote {W}, which does not follow. "
    "Check how you combined the terms; a factor seems to be missing.",
    "terse:grade": "Grade: incorrect ({W}).\nWhat is right: {L}\nWhat is wrong: the final simplification. Redo it "
    "without changing your setup.",
    "socratic:plausible": "Hmm, {W}? Think about the size of the answer you expect from {Q}. Is {W} plausible? "
    "Revisit the step where you used the data.",
    "reviewer:bullets": "**Review**\n- Interpretation: OK.\n- Method: OK.\n- Execution: the final step gives {W}, "
    "which is wrong.\n- Suggestion: redo the last simplification, keeping track of {Q}.",
    "sketch:no-value": "The argument is right up to: {L} The conclusion you draw after that is not justified. Work "
    "out the last step again, carefully, before you state a final answer.",
    "terse:early-stop": "You stopped too early: {W} is an intermediate quantity, not what the question asks for. "
    "Continue from there.",
}


def _quoted_numbers(row: dict, kind: str, rng: random.Random) -> str:
    numbers = [
        n
        for n in dict.fromkeys(re.findall(r"(?<![\w.^_{])\d+(?:,\d{3})*(?:\.\d+)?(?![\w^}])", row["problem"]))
        if not states_answer(n, row, kind)
    ]
    if not numbers:
        return "the data in the statement"
    chosen = rng.sample(numbers, min(len(numbers), rng.choice((1, 2, 2, 3))))
    shown_numbers = [f"${n}$" if rng.random() < 0.4 else n for n in chosen]
    if len(shown_numbers) == 1:
        return f"the given value {shown_numbers[0]}"
    return "the given values " + ", ".join(shown_numbers[:-1]) + " and " + shown_numbers[-1]


def _leak(index, row, kind, style, frame, text, context, parts) -> dict | None:
    parts = [p for p in parts if occurrences(p, text) > occurrences(p, context)]
    if not parts:
        return None
    return {
        "family": "rendering",
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": True,
        "dataset": row.get("dataset", "math500"),
        "written_out": True,
        "parts": parts,
        "context": context,
    }


def _cases_for(index: int, row: dict, seed: int, n_renderings: int, n_clean: int, n_author: int) -> list[dict]:
    rng = random.Random(f"{seed}:{index}")
    kind = kind_of(row)
    stating, intermediates = author_lines(row, kind) if row.get("solution") else ([], [])
    wrongs = wrong_values(row, kind, rng)
    chain = equation_chain(row, kind) if row.get("solution") else []
    out = []
    # 1. the author's own lines
    for line, hidden, found, where in stating[:n_author]:
        name = rng.choice(sorted(AUTHOR_FRAMES))
        wrong = shown(wrongs[0][0]) if wrongs else "your value"
        slots = {"W": wrong}
        text = AUTHOR_FRAMES[name].format(**{**slots, "N": line})
        context = AUTHOR_FRAMES[name].format(**{**slots, "N": hidden})
        case = _leak(index, row, kind, f"author {where}", name, text, context, found)
        if case and not states_answer(wrong, row, kind):
            out.append(case)
    # 2. grader personas with hand-written renderings
    notations = renderings(row["answer"], kind, row["problem"]) + unit_renderings(row)
    rng.shuffle(notations)
    frames = sorted(LEAK_FRAMES)
    rng.shuffle(frames)
    for k in range(min(n_renderings, 3 * len(notations))):
        rendering = notations[k % len(notations)]
        usable = [
            f
            for f in frames
            if ("{L}" not in LEAK_FRAMES[f] or intermediates)
            and ("{E}" not in LEAK_FRAMES[f] or (chain and rendering["latex"]))
        ]
        name = usable[k % len(usable)]
        shown_answer = (
            f"${rendering['text']}$" if rendering["latex"] and "{E}" not in LEAK_FRAMES[name] else rendering["text"]
        )
        if "**{A}**" in LEAK_FRAMES[name]:
            shown_answer = shown_answer.strip("*")
        wrong = shown(wrongs[k % len(wrongs)][0]) if wrongs else "your value"
        slots = {
            "W": wrong,
            "Q": _quoted_numbers(row, kind, rng),
            "E": " = ".join(chain),
            "L": rng.choice(intermediates) if intermediates else "",
        }
        text = LEAK_FRAMES[name].format(**{**slots, "A": shown_answer})
        context = LEAK_FRAMES[name].format(**{**slots, "A": "…"})
        if states_answer(context, row, kind, all_entries=False):
            continue  # the answer would stand twice; the corpus states it once
        case = _leak(index, row, kind, rendering["style"], name, text, context, rendering["parts"])
        if case:
            out.append(case)
    # 3. clean critiques
    names = sorted(CLEAN_FRAMES)
    rng.shuffle(names)
    names.sort(key=lambda name: "{L}" not in CLEAN_FRAMES[name])  # the solution's own lines first
    made = 0
    for k, name in enumerate(names):
        if made >= n_clean:
            break
        frame = CLEAN_FRAMES[name]
        if "{L}" in frame and not intermediates:
            continue
        wrong, how = (None, "no value quoted")
        if "{W}" in frame:
            choices = [w for w in wrongs if (w[1] == "intermediate as final") == (name == "terse:early-stop")]
            if not choices:
                continue
            wrong, how = choices[k % len(choices)]
        line = intermediates[(made + k) % len(intermediates)] if intermediates else ""
        slots = {"W": shown(wrong) if wrong else "", "Q": _quoted_numbers(row, kind, rng), "L": line}
        text = frame.format(**slots)
        if states_answer(text, row, kind):
            continue
        out.append(
            {
                "family": "clean",
                "split": "held_out",
                "index": index,
                "answer_type": kind,
                "style": "solution line" if "{L}" in frame else "no line",
                "frame": name,
                "text": text,
                "leak": False,
                "dataset": row.get("dataset", "math500"),
                "written_out": False,
                "parts": [],
                "context": text,
                "wrong": shown(wrong) if wrong else None,
                "wrong_how": how,
            }
        )
        made += 1
    return out


def corpus(problems: list[dict], seed: int = SEED, extra: list[dict] | None = None) -> list[dict]:
    """Leaking and clean critiques of `problems` (MATH-500 rows) and `extra` (other benchmarks' rows as
    {problem, solution, answer, dataset}); `index` counts rows of `problems` then `extra`."""
    rows = [{**row, "dataset": "math500"} for row in problems] + list(extra or [])
    counts = {}
    for row in problems:
        kind = answer_type(row["answer"], row["problem"])
        counts[kind] = counts.get(kind, 0) + 1
    gsm8k = [k for k, row in enumerate(rows) if row["dataset"] == "gsm8k"]
    sampled = set(random.Random(f"{seed}:gsm8k").sample(gsm8k, min(GSM8K_ROWS, len(gsm8k))))
    cases = []
    for index, row in enumerate(rows):
        if row["dataset"] == "gsm8k" and index not in sampled:
            continue
        if row["dataset"] == "math500":
            # rare types get more notations so that each has twenty or more written-out cases
            n_renderings = max(5, -(-30 // counts[answer_type(row["answer"], row["problem"])]))
            cases += _cases_for(index, row, seed, n_renderings, n_clean=4, n_author=3)
        elif row["dataset"] == "gsm8k":
            cases += _cases_for(index, row, seed, 1, n_clean=1, n_author=1)
        else:
            cases += _cases_for(index, row, seed, 3, n_clean=2, n_author=2)
    return cases


if __name__ == "__main__":
    built = corpus(load_problems(DATA / "math500" / "test.jsonl"), extra=load_extra())
    summary = {}
    for case in built:
        key = (case["dataset"], case["answer_type"], case["family"])
        summary[key] = summary.get(key, 0) + 1
    for key in sorted(summary):
        print(*key, summary[key], sep="\t")
    print("leaks", sum(c["leak"] for c in built), "clean", sum(not c["leak"] for c in built))
    assert {c["answer_type"] for c in built} <= set(ANSWER_TYPES)
