"""Labelled critiques over MATH-500, written independently of the answer-leak guard, to measure it.

The guard (`trl_mulferl.feedback.prepare_feedback`) was tuned on phrasings its authors wrote; a benchmark written
with the same cues measures the cues, not the guard. This corpus was written without reading the guard, its tests
or the phrasings of `leak_guard.py`'s other sections: the answer types, renderings, frames, wrong attempts and
arithmetic statements below come from how people write mathematics in reviews, not from what the rule looks for.

How cases are drawn, all from pure functions of MATH-500's rows and a seed (the same seed gives the same corpus):

- each `answer` string is classified into an answer type (`answer_type`: small/negative/large integer, fraction,
  radical, interval, ordered pair, ...), the problem text breaking the one ambiguity, `(a, b)` as an interval or a
  point;
- each answer is rendered the ways a reviewer would write the same value (`renderings`): digits, English words,
  LaTeX in `$...$`, `\\(...\\)` and `\\[...\\]`, plain text (`3/4`, `sqrt(3)`, `2*sqrt(5)`), Unicode (√, π, ², −,
  ½), prose lists, inequalities for intervals, components by name ("x = 15 and y = -29"), and equivalent values in
  another form (0.75 for 3/4, `\\sqrt{20}` for `2\\sqrt{5}`, 1358 for `2516_8`). A rendering is "written out" when
  it is the answer itself in some notation, not an equivalent value;
- a rendering fills the value slot of a critique frame (`LEAK_FRAMES`: result statements, hints, instructions,
  labels, questions, comparisons with the attempt, mid-paragraph mentions); frames also quote the problem's own
  numbers and the attempt's wrong value, and a seeded opener sentence may precede them;
- arithmetic-derived statements ("one more than 41", "6 times 7", "half of 84", "42 = 40 + 2") and decimal
  approximations ("about 4.472" for 2√5) state the answer without writing it (`arithmetic_statements`,
  `approximations`);
- clean critiques (`CLEAN_FRAMES`) quote the attempt's wrong value (`wrong_values`: off by one, sign flipped, a
  digit appended or dropped, a near miss, so that 190 is quoted where the answer is 90), the problem's numbers,
  intermediate values of the worked solution that differ from the answer, step numbers and list markers; none
  states the answer;
- the frames, and each answer type's rendering styles (arithmetic and approximation styles too), are shuffled with
  the seed and halved: a leak takes its style's split, and its frame is drawn from the frames of that split, so a
  `development` case has a development frame and style and a `held_out` case a held-out frame and style; a clean
  critique takes its clean frame's split. The rule's authors may read development failures; the held-out split is
  reported and never used to change the rule.

`corpus(problems, seed)` returns the cases as dicts; `benchmarks/leak_guard.py --only independent` scores them.
"""

import json
import random
import re
from fractions import Fraction
from pathlib import Path


MATH500 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "math500" / "test.jsonl"
SEED = 20261205

ANSWER_TYPES = (
    "small integer",
    "negative integer",
    "large integer",
    "fraction",
    "decimal",
    "radical",
    "multiple of pi",
    "mixed number",
    "complex number",
    "expression",
    "interval",
    "ordered pair",
    "tuple",
    "set/list",
    "matrix/vector",
    "multiple choice",
    "text answer",
    "units/degrees/money",
    "base-n number",
    "equation",
    "scientific notation",
    "other",
)

# Each frame has a value slot {v}; {q} is a number quoted from the problem, {w} the attempt's wrong value.
LEAK_FRAMES = (
    "The answer is {v}.",
    "The correct result is {v}, not what you wrote.",
    "Final: {v}. Now verify it.",
    "You are close. {v}. That is what the question asks for.",
    "It should come out to {v}.",
    "Correct answer: {v}",
    "Your setup was fine, and carrying it through properly gives {v}; the slip was in the last line.",
    "Try again and you should land on {v}.",
    "Hint: the result you are aiming for is {v}.",
    "Write {v} as your final answer.",
    "Could the answer be {v}? Check it against your work, because it is.",
    "Compare your {w} with {v}: they differ, so something went wrong in between.",
    "You wrote {w}. The expected value is {v}.",
    "Expected {v}, got {w}.",
    "The problem gives {q}; working from there, you should reach {v}.",
    "Using {q} from the statement, the computation ends at {v}.",
    "Everything up to the last step is right. Then the value is {v}, which you missed by a small slip.",
    "So the solution is {v}.",
    "Answer = {v}",
    "Result -> {v}",
    "The right value here: {v}.",
    "Once you fix the sign error, you get {v}.",
    "In short, {v} is what you should have found.",
    "{v} is the correct answer; your method was nearly right.",
    "Your final line should read {v}.",
    "Please double-check: the quantity equals {v}.",
    "If you redo the arithmetic you will find {v}.",
    "The intended answer is {v}, since {q} enters the formula only once.",
    "Note that the true value is {v} rather than {w}.",
    "Check: do you get {v} when you substitute back? You should.",
    "Solution: {v}.",
    "The reference solution arrives at {v}.",
    "Instead of {w}, you needed {v}.",
    "Mistake: dropped a term. Fix: redo the third step. Outcome: {v}.",
    "Good start. The key fact gives {v} directly, so no long computation is needed.",
    "- Error: sign slip in the second step\n- Correct value: {v}",
    "You should have gotten {v}. Look at how you used {q}.",
    "My computation gives {v}; yours stops short.",
    "Answer {v} (you had {w}).",
    "Almost! The value is {v}. Recheck the step where you used {q}.",
    "After simplifying, everything reduces to {v}.",
    "Think about it again; the value you want is {v}.",
    "The key is to reach {v} at the end.",
    "Your attempt gave {w}, which is off; {v} is right.",
    "The final expression should be {v}. Re-derive it from {q}.",
    "**Answer:** {v}",
    "Why not {v}? That is what the formula gives.",
    "I get {v} when I work it through, and the check at the end confirms it.",
)

# Frames for renderings that are whole sentences ("The function is even.").
SENTENCE_FRAMES = (
    "{v} Recheck your reasoning.",
    "Feedback: {v}",
    "Your reasoning went astray. {v}",
    "{v}",
    "Close, but no. {v} Look again at the problem statement.",
    "You wrote {w}, which is wrong. {v}",
    "The problem gives {q}. {v}",
    "Think it over once more. {v} Your method was fine otherwise.",
)

# Openers that may precede a leak frame (not split: they carry no value).
OPENERS = (
    "",
    "",
    "You set up the problem from {q} correctly. ",
    "The first two steps are fine. ",
    "Good use of {q} at the start. ",
    "There is an arithmetic slip near the end.\n\n",
)

# Clean critiques: {w} the attempt's wrong value, {q} a number of the problem, {i} an intermediate value of the
# worked solution that differs from the answer, {k} a step number.
CLEAN_FRAMES = (
    "You wrote {w}, which is not right. Recheck the step where you used {q}.",
    "Your answer {w} is off. Go back to step {k}.",
    "The value {w} cannot be correct: check the sign in step {k}.",
    "You got {w}. The problem states {q}, so re-read what is being asked.",
    "1. You misread the condition.\n2. Your final value {w} follows from that slip.",
    "Your intermediate value {i} is correct, but the final answer {w} is not.",
    "Good: {i} is right. Then you made an arithmetic slip, so {w} is wrong.",
    "Recheck how you got from {q} to {i}.",
    "Step {k}: you divided where you should have multiplied.",
    "Why did you write {w}? That does not satisfy the condition with {q}.",
    "Your result {w} is not correct. Try substituting it back into the original equation.",
    "(a) The setup is fine. (b) The final value {w} is wrong; recompute the last step.",
    "You found {w}; that is a near miss, so check the boundary case.",
    "Careful with {q}: you used it twice.",
    "The attempt ends at {w}, but the reasoning before step {k} has an error.",
    "Your answer of {w} is not what the problem asks for; re-read the last sentence.",
    "I expected a different value than {w}. Check your work from {i} on.",
    "Don't stop at {w}: the question wants the value after the final step.",
)

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALES = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))
VULGAR = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (4, 5): "⅘", (1, 8): "⅛"}
SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def load_problems(path: Path = MATH500) -> list[dict]:
    """MATH-500's rows (`problem`, `answer`, `solution`, `unique_id`), in file order."""
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


# --- numbers in words --------------------------------------------------------------------------------------------


def int_words(n: int) -> str:
    """English words of an integer: 42 -> "forty-two", -3 -> "negative three", 2107 -> "two thousand one hundred
    seven"."""
    if n < 0:
        return "negative " + int_words(-n)
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else "-" + ONES[n % 10])
    if n < 1000:
        return ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + int_words(n % 100))
    for scale, name in SCALES:
        if n >= scale:
            rest = n % scale
            return int_words(n // scale) + " " + name + ("" if rest == 0 else " " + int_words(rest))
    raise AssertionError(n)


def ordinal_words(n: int, plural: bool) -> str:
    """The denominator's word: 3 -> "third(s)", 2 -> "half"/"halves", 12 -> "twelfth(s)", 21 -> "twenty-first"."""
    if n == 2:
        return "halves" if plural else "half"
    words = int_words(n)
    head, last = re.match(r"(.*?)([a-z]+)$", words).groups()
    irregular = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth"}
    irregular |= {"nine": "ninth", "twelve": "twelfth"}
    if last in irregular:
        last = irregular[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + last + ("s" if plural else "")


def fraction_words(p: int, q: int) -> str:
    """3/4 -> "three fourths", 1/2 -> "one half", -3/8 -> "negative three eighths"."""
    if p < 0:
        return "negative " + fraction_words(-p, q)
    return f"{int_words(p)} {ordinal_words(q, plural=p != 1)}"


def decimal_words(text: str) -> str:
    """ "1.25" -> "one point two five", ".35" -> "point three five", "-4.5" -> "negative four point five"."""
    sign, whole, digits = re.fullmatch(r"(-?)(\d*)\.(\d+)", text).groups()
    head = int_words(int(whole)) + " " if whole else ""
    return ("negative " if sign else "") + head + "point " + " ".join(ONES[int(d)] for d in digits)


# --- LaTeX to other notations ------------------------------------------------------------------------------------


def _argument(latex: str, i: int) -> tuple[str, int]:
    """The argument of a command at `i`: a braced group, a command name, or one character; and where it ends."""
    while i < len(latex) and latex[i] == " ":
        i += 1
    if i >= len(latex):
        return "", i
    if latex[i] == "{":
        depth = 0
        for j in range(i, len(latex)):
            depth += {"{": 1, "}": -1}.get(latex[j], 0)
            if depth == 0:
                return latex[i + 1 : j], j + 1
        return latex[i + 1 :], len(latex)
    if latex[i] == "\\":
        name = re.match(r"\\([a-zA-Z]+|.)", latex[i:]).group(0)
        return name, i + len(name)
    return latex[i], i + 1


def _is_atom(text: str) -> bool:
    return re.fullmatch(r"[\w.]+|[\w.]*\(.*\)|π|√\w+", text) is not None and not re.search(r"(?<!^)[-+ ]", text)


SYMBOLS = {
    # command: (plain, unicode, sympy)
    "pi": ("pi", "π", "pi"),
    "infty": ("infinity", "∞", "oo"),
    "cdot": ("*", "·", "*"),
    "times": ("*", "×", "*"),
    "pm": ("+/-", "±", None),
    "cup": ("U", "∪", None),
    "le": ("<=", "≤", None),
    "leq": ("<=", "≤", None),
    "ge": (">=", "≥", None),
    "geq": (">=", "≥", None),
    "in": ("in", "∈", None),
    "cot": ("cot", "cot", "cot"),
    "theta": ("theta", "θ", "theta"),
    "$": ("$", "$", ""),
    "{": ("{", "{", None),
    "}": ("}", "}", None),
    "%": ("%", "%", None),
}
DROPPED = {"left", "right", "!", ",", ";", " ", "quad", "displaystyle"}


def convert(latex: str, notation: str) -> str | None:
    """`latex` in plain text ("plain": `3/4`, `2sqrt(5)`, `x^2`), Unicode ("unicode": `¾`, `2√5`, `x²`) or sympy's
    input ("sympy"); None where the notation has no form for it (sympy and a set)."""
    out, i = [], 0
    while i < len(latex):
        char = latex[i]
        if char == "\\":
            name, i = _argument(latex, i)
            command = name[1:]
            if command in ("frac", "dfrac", "tfrac"):
                numerator, i = _argument(latex, i)
                denominator, i = _argument(latex, i)
                top, bottom = convert(numerator, notation), convert(denominator, notation)
                if top is None or bottom is None:
                    return None
                if notation == "sympy":
                    out.append(f"(({top})/({bottom}))")
                elif (
                    notation == "unicode"
                    and (top.isdigit() and bottom.isdigit())
                    and (int(top), int(bottom)) in VULGAR
                ):
                    out.append(VULGAR[int(top), int(bottom)])
                else:
                    top = top if _is_atom(top.replace("*", "")) else f"({top})"
                    bottom = bottom if _is_atom(bottom) else f"({bottom})"
                    out.append(f"{top}/{bottom}")
            elif command == "sqrt":
                radicand, i = _argument(latex, i)
                inner = convert(radicand, notation)
                if inner is None:
                    return None
                if notation == "unicode":
                    out.append("√" + inner if inner.isdigit() else f"√({inner})")
                else:
                    out.append(f"sqrt({inner})")
            elif command in ("text", "mbox", "mathrm", "textbf"):
                content, i = _argument(latex, i)
                if notation == "sympy":
                    return None
                out.append(content)
            elif command in DROPPED:
                continue
            elif command in SYMBOLS:
                plain, unicode, sympy = SYMBOLS[command]
                symbol = {"plain": plain, "unicode": unicode, "sympy": sympy}[notation]
                if symbol is None:
                    return None
                out.append(symbol if command not in ("pm", "le", "ge", "leq", "geq", "in", "cup") else f" {symbol} ")
            else:
                return None
        elif char in "^_":
            argument, i = _argument(latex, i + 1)
            if argument == "\\circ":
                out.append({"plain": " degrees", "unicode": "°", "sympy": ""}[notation])
                continue
            inner = convert(argument, notation)
            if inner is None:
                return None
            if char == "_":
                if notation == "sympy":
                    return None
                out.append("_" + inner if notation == "plain" else inner.translate(SUBSCRIPTS))
            elif notation == "sympy":
                out.append(f"**({inner})")
            elif notation == "unicode" and re.fullmatch(r"-?\d+", inner):
                out.append(inner.translate(SUPERSCRIPTS))
            else:
                out.append("^" + (inner if _is_atom(inner) else f"({inner})"))
        elif char in "{}":
            i += 1
        elif char == "-" and notation == "unicode":
            out.append("−")
            i += 1
        else:
            out.append(char)
            i += 1
    text = re.sub(r" +", " ", "".join(out)).strip()
    text = re.sub(r"(\d) (?=sqrt|√|π|pi\b)", r"\1", text)  # "2 \sqrt{2}" is written 2√2
    return text.replace("( ", "(").replace(" )", ")")


def value_of(latex: str):
    """The answer's value as a sympy expression (numbers, radicals, pi, i, variables), or None (sets, text)."""
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    mixed = re.fullmatch(r"(\d+)\s*\\[dt]?frac\{?(\d)\}?\{?(\d+)\}?", latex.strip())
    if mixed:  # 1\frac{4}{5} is one and four fifths, not a product
        whole, p, q = (int(n) for n in mixed.groups())
        return sympy.Integer(whole) + sympy.Rational(p, q)
    latex = re.sub(r",(?:\\!)?\s*(?=\d{3}(?!\d))", "", latex)  # 11,\! 111 and 58,500 are one number each
    source = convert(latex.replace("\\!", ""), "sympy")
    if source is None or not source.strip() or "=" in source or "," in source:
        return None
    try:
        return parse_expr(
            source,
            local_dict={"i": sympy.I, "pi": sympy.pi, "E": sympy.Symbol("E")},
            transformations=(*standard_transformations, implicit_multiplication_application, convert_xor),
        )
    except Exception:  # a shape the converter reads but sympy does not: no value, the type's renderings still apply
        return None


WORDS = {
    "+": "plus",
    "-": "minus",
    "−": "minus",
    "*": "times",
    "/": "over",
    "=": "equals",
    "pi": "pi",
    "π": "pi",
    "<=": "is at most",
    ">=": "is at least",
    "<": "is less than",
    ">": "is greater than",
    "+/-": "plus or minus",
    ",": ",",
}


def expression_words(plain: str) -> str:
    """A plain expression read aloud: "2sqrt(5)" -> "two root five", "x^2 + 3x - 10" -> "x squared plus three x minus
    ten", "-pi/6" -> "negative pi over six"."""
    tokens = re.findall(r"\d+\.\d+|\.\d+|\d+|sqrt|pi|infinity|[a-zA-Z]+|\+/-|<=|>=|\^\(?-?\w+\)?|\S", plain)
    words, previous = [], None
    for token in tokens:
        if re.fullmatch(r"\d*\.\d+", token):
            words.append(decimal_words(token))
        elif token.isdigit():
            words.append(int_words(int(token)))
        elif token == "sqrt":
            words.append("root")
        elif token.startswith("^"):
            power = token.strip("^()")
            words.append({"2": "squared", "3": "cubed"}.get(power, f"to the power {power}"))
        elif token == "-" and previous in (None, "(", ",", "=", "<=", ">="):
            words.append("negative")
        elif token in WORDS:
            words.append(WORDS[token])
        elif token in "()":
            pass
        else:
            words.append(token)
        previous = token
    return re.sub(r" ,", ",", " ".join(words))


# --- answer types ------------------------------------------------------------------------------------------------


def _strip(answer: str) -> str:
    return re.sub(r"\\[!,]|\\left|\\right", "", answer).strip()


def _top_level_split(text: str, separator: str = ",") -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "([{" and 1 or (char in ")]}" and -1 or 0)
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def answer_type(answer: str, problem: str = "") -> str:
    """The kind of a MATH-500 answer string, one of `ANSWER_TYPES`; the problem tells an interval `(a, b)` from a
    point."""
    text = _strip(answer)
    plain = text.replace(" ", "")
    if "pmatrix" in text or "bmatrix" in text:
        return "matrix/vector"
    if re.fullmatch(r"\\text\{\s*\(?[A-H]\)?\s*\}|\(?[A-H]\)", text):
        return "multiple choice"
    if re.fullmatch(r"\\text\{[A-Za-z ]+\}", text):
        return "text answer"
    if (
        "\\$" in text
        or "\\circ" in text
        or "\\mbox" in text
        or re.search(r"\\text\{\s*(cents?|degrees?|\w+)\}$", text)
    ):
        return "units/degrees/money"
    if re.fullmatch(r"\d+_\{?\d+\}?", plain):
        return "base-n number"
    if re.search(r"\\times\s*10\^|\d[eE][-+]?\d", text):
        return "scientific notation"
    bracketed = re.fullmatch(r"[\[(].*[\])]", plain) and len(_top_level_split(plain[1:-1])) == 2
    mixed_brackets = bracketed and (plain[0] + plain[-1]) in ("(]", "[)", "[]")
    if "\\cup" in text or "\\infty" in text or plain.startswith("x\\in") or mixed_brackets:
        return "interval"
    if bracketed and re.search(r"interval|range|domain|values of", problem):
        return "interval"
    if "=" in text:
        return "equation"
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+", plain):
        number = int(plain.replace(",", ""))
        return "negative integer" if number < 0 else "large integer"
    if (
        "\\pm" in text
        or plain.startswith("\\{")
        or ("," in plain and not plain.startswith("(") and len(_top_level_split(plain)) > 1)
    ):
        return "set/list"
    if plain.startswith("(") and plain.endswith(")") and "," in plain:
        return "ordered pair" if len(_top_level_split(plain[1:-1])) == 2 else "tuple"
    if re.fullmatch(r"\d+\\frac\{?\d+\}?\{?\d+\}?", plain):
        return "mixed number"
    letters = re.sub(r"\\[a-zA-Z]+", "", text)
    if re.fullmatch(r"-?\d*[-+]?\d*i", plain):
        return "complex number"
    if re.search(r"[a-zA-Z]", letters):
        return "expression"
    if "\\pi" in text:
        return "multiple of pi"
    if "\\sqrt" in text:
        return "radical"
    if re.search(r"\\[dt]?frac", text) or re.fullmatch(r"-?\d+/\d+", plain):
        return "fraction"
    if re.fullmatch(r"-?\d*\.\d+", plain):
        return "decimal"
    if re.fullmatch(r"-?\d+", plain):
        number = int(plain)
        return "negative integer" if number < 0 else "small integer" if number < 100 else "large integer"
    return "other"


# --- renderings --------------------------------------------------------------------------------------------------


def _rendering(style: str, text: str, written_out: bool, parts: list[str] | None = None, sentence=False) -> dict:
    """A rendering; `parts` are substrings of `text` (each bound of an interval, each item of a list)."""
    parts = [part for part in parts or [] if part in text] or [text]
    return {"style": style, "text": text, "written_out": written_out, "parts": parts, "sentence": sentence}


def _fraction_of(latex: str) -> Fraction | None:
    value = value_of(latex)
    if value is None or not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def _decimal(value: Fraction) -> str | None:
    """The terminating decimal of `value`, or None."""
    q = value.denominator
    for prime in (2, 5):
        while q % prime == 0:
            q //= prime
    if q != 1:
        return None
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    text = f"{float(value):.{digits}f}"
    return text


def _integer_renderings(n: int, large: bool) -> list[dict]:
    digits = str(n)
    out = [
        _rendering("digits", digits, True),
        _rendering("words", int_words(n), True),
        _rendering("words without hyphen", int_words(n).replace("-", " "), True),
        _rendering("bold", f"**{digits}**", True),
        _rendering("boxed", f"\\boxed{{{digits}}}", True),
        _rendering("decimal point", f"{n}.0", False),
    ]
    if n < 0:
        out += [
            _rendering("unicode minus", f"−{-n}", True),
            _rendering("minus words", "minus " + int_words(-n), True),
            _rendering("parenthesised", f"({n})", True),
        ]
    if large and abs(n) >= 1000:
        out += [
            _rendering("thousands comma", f"{n:,}", True),
            _rendering("thousands space", f"{n:,}".replace(",", " "), True),
            _rendering("thousands thin space latex", f"${n:,}$".replace(",", "\\,"), True),
            _rendering(
                "scientific", f"{n / 10 ** (len(str(abs(n))) - 1):g} \\times 10^{{{len(str(abs(n))) - 1}}}", False
            ),
        ]
    for base in (2, 3, 5, 10):
        power = next((k for k in range(2, 40) if base**k == abs(n)), None)
        if power is not None and n > 0:
            out.append(_rendering("power", f"{base}^{power}", False))
            break
    return out


def _fraction_renderings(value: Fraction) -> list[dict]:
    p, q = value.numerator, value.denominator
    sign, a = ("-" if p < 0 else ""), abs(p)
    out = [
        _rendering("slash", f"{p}/{q}", True),
        _rendering("latex slash", f"${p}/{q}$", True),
        _rendering("dfrac", f"$\\dfrac{{{p}}}{{{q}}}$" if p > 0 else f"$-\\dfrac{{{a}}}{{{q}}}$", True),
        _rendering("fraction slash", f"{sign}{a}⁄{q}", True),
        _rendering("words", fraction_words(p, q), True),
        _rendering("words over", ("negative " if p < 0 else "") + f"{int_words(a)} over {int_words(q)}", True),
        _rendering(
            "words divided", ("negative " if p < 0 else "") + f"{int_words(a)} divided by {int_words(q)}", True
        ),
        _rendering("unreduced", f"{2 * p}/{2 * q}", False),
    ]
    if (a, q) in VULGAR:
        out.append(_rendering("vulgar", sign + VULGAR[a, q], True))
    if p < 0:
        out += [
            _rendering("numerator sign", f"$\\frac{{{p}}}{{{q}}}$", True),
            _rendering("unicode minus", f"−{a}/{q}", True),
        ]
    decimal = _decimal(value)
    if decimal is not None:
        out.append(_rendering("decimal", decimal, False))
        if 0 < value < 1:
            out.append(_rendering("percent", f"{float(value * 100):g}%", False))
    if a > q:
        whole, rest = divmod(a, q)
        out += [
            _rendering("mixed", f"{sign}{whole} {rest}/{q}", False),
            _rendering(
                "mixed words",
                ("negative " if p < 0 else "") + f"{int_words(whole)} and {fraction_words(rest, q)}",
                False,
            ),
        ]
    return out


def _components(inner: str) -> list[str]:
    return [part.strip() for part in _top_level_split(inner)]


def _component_forms(component: str) -> dict:
    """A component of a pair, tuple or list in the notations a list is written in."""
    plain = convert(component, "plain") or component
    return {
        "plain": plain,
        "unicode": convert(component, "unicode") or component,
        "latex": component,
        "words": expression_words(plain),
    }


def _names(problem: str, count: int) -> list[str]:
    """The components' names where the problem asks for `(a, b)` or `(r, \\theta)`, else x, y, z, w."""
    for match in re.finditer(r"\$\((\\?[a-zA-Z]+(?:\s*,\s*\\?[a-zA-Z]+)+)\)", problem):
        names = [name.strip() for name in match.group(1).split(",")]
        if len(names) == count:
            return [convert(name, "unicode") or name for name in names]
    return ["x", "y", "z", "w", "v"][:count] if count <= 5 else [f"x{k}" for k in range(1, count + 1)]


def _join(items: list[str], conjunction: str = "and", oxford: bool = False) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + ("," if oxford and len(items) > 2 else "") + f" {conjunction} " + items[-1]


def _sequence_renderings(components: list[str], names: list[str], kind: str) -> list[dict]:
    """Pairs, tuples, lists and vectors: bracketed, in prose, by name, in words."""
    forms = [_component_forms(c) for c in components]
    plain = [f["plain"] for f in forms]
    unicode = [f["unicode"] for f in forms]
    out = [
        _rendering("plain tuple", "(" + ", ".join(plain) + ")", True, plain),
        _rendering("plain tuple unspaced", "(" + ",".join(plain) + ")", True, plain),
        _rendering("latex tuple", "$(" + ", ".join(f["latex"] for f in forms) + ")$", True),
        _rendering("unicode tuple", "(" + ", ".join(unicode) + ")", True, unicode),
        _rendering("prose", _join(plain), True, plain),
        _rendering("named", _join([f"{n} = {v}" for n, v in zip(names, plain, strict=True)]), True, plain),
        _rendering("named commas", ", ".join(f"{n}={v}" for n, v in zip(names, plain, strict=True)), True, plain),
        _rendering("words", _join([f["words"] for f in forms]), True, [f["words"] for f in forms]),
    ]
    if kind in ("list", "vector"):
        out += [
            _rendering("brackets", "[" + ", ".join(plain) + "]", True, plain),
            _rendering("braces", "{" + ", ".join(plain) + "}", True, plain),
            _rendering("oxford prose", _join(plain, oxford=True), True, plain),
        ]
    if kind == "vector":
        out += [
            _rendering("angle brackets", "⟨" + ", ".join(plain) + "⟩", True, plain),
            _rendering("ascii angle", "<" + ", ".join(plain) + ">", True, plain),
            _rendering("transpose", "(" + ", ".join(plain) + ")^T", True, plain),
            _rendering("bmatrix", "$\\begin{bmatrix} " + " \\\\ ".join(components) + " \\end{bmatrix}$", True),
        ]
    if kind == "list":
        out.append(_rendering("roots", ", ".join(f"x = {v}" for v in plain), True, plain))
    decimals = []
    for component in components:
        value = _fraction_of(component)
        decimals.append(_decimal(value) if value is not None and value.denominator != 1 else None)
    if any(decimals):
        mixed = [d or p for d, p in zip(decimals, plain, strict=True)]
        out.append(_rendering("decimal components", "(" + ", ".join(mixed) + ")", False, mixed))
    return out


OPERATORS = {
    "plain": {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "or": "or"},
    "unicode": {"<": "<", "<=": "≤", ">": ">", ">=": "≥", "or": "or"},
    "latex": {"<": "<", "<=": "\\le", ">": ">", ">=": "\\ge", "or": "\\text{ or }"},
}


def _inequalities(text: str, notation: str) -> tuple[str, list[str]]:
    """An interval or union as inequalities in x ("-2 <= x <= 7", "x < 2 or x > 3"), and its finite bounds."""
    operators, statements, bounds = OPERATORS[notation], [], []
    for piece in (piece.strip() for piece in text.split("\\cup")):
        opening, closing = piece[0], piece[-1]
        low, high = (c.strip() for c in _top_level_split(piece[1:-1]))
        low, high = (
            (None if "infty" in b else b if notation == "latex" else convert(b, notation)) for b in (low, high)
        )
        bounds += [b for b in (low, high) if b is not None]
        below, above = operators["<=" if opening == "[" else "<"], operators["<=" if closing == "]" else "<"]
        if low is not None and high is not None:
            statements.append(f"{low} {below} x {above} {high}")
        elif low is not None:
            statements.append(f"x {operators['>=' if opening == '[' else '>']} {low}")
        else:
            statements.append(f"x {above} {high}")
    return f" {operators['or']} ".join(statements), bounds


def _interval_renderings(text: str) -> list[dict]:
    """Intervals and unions in interval notation and as inequalities in x."""
    text = re.sub(r"^x\s*\\in\s*", "", text)
    plain, plain_bounds = _inequalities(text, "plain")
    unicode, unicode_bounds = _inequalities(text, "unicode")
    latex, latex_bounds = _inequalities(text, "latex")
    return [
        _rendering("plain interval", convert(text, "plain"), True, plain_bounds),
        _rendering("latex interval", f"${text}$", True, latex_bounds),
        _rendering("unicode interval", convert(text, "unicode"), True, unicode_bounds),
        _rendering("inequality", plain, True, plain_bounds),
        _rendering("unicode inequality", unicode, True, unicode_bounds),
        _rendering("latex inequality", f"${latex}$", True, latex_bounds),
        _rendering("set builder", "{x : " + plain + "}", True, plain_bounds),
        _rendering("words", expression_words(plain).replace(" or ", " or "), True),
    ]


def _choice_renderings(answer: str, problem: str) -> list[dict]:
    letter = re.search(r"[A-H]", answer.replace("\\text", "")).group(0)
    out = [
        _rendering("parenthesised letter", f"({letter})", True),
        _rendering("letter", letter, True),
        _rendering("option", f"option {letter}", True),
        _rendering("choice sentence", f"The choice is ({letter}).", True, [f"({letter})"], sentence=True),
        _rendering("latex", f"$\\text{{({letter})}}$", True),
        _rendering("bold letter", f"**{letter}**", True),
    ]
    described = re.search(rf"\({letter}\)\s*([A-Z][a-z]+(?: [a-z]+)?)", problem)
    if described:
        out += [
            _rendering("letter with text", f"({letter}) {described.group(1)}", True),
            _rendering("option text", described.group(1).lower(), False),
        ]
    return out


TEXT_SENTENCES = {
    "even": ["The function is even.", "It is an even function."],
    "odd": ["The function is odd."],
    "ellipse": ["The graph is an ellipse.", "This is an ellipse."],
    "east": ["She ends up facing east.", "The direction is east."],
}


def _text_renderings(answer: str) -> list[dict]:
    word = re.fullmatch(r"\\text\{\s*(.*?)\s*\}", _strip(answer)).group(1)
    sentences = TEXT_SENTENCES.get(word.lower(), [f"{word} is the one.", f"It is {word}."])
    out = [
        _rendering("word", word, True),
        _rendering("capitalised", word.capitalize() if word.islower() else word.upper(), True),
        _rendering("latex text", f"$\\text{{{word}}}$", True),
        _rendering("quoted", f'"{word}"', True),
    ]
    out += [_rendering(f"sentence {k}", s, True, [word], sentence=True) for k, s in enumerate(sentences)]
    return out


def _units_renderings(answer: str) -> list[dict]:
    text = _strip(answer)
    out = []
    money = re.fullmatch(r"\\\$\s*([\d,]+(?:\.\d+)?)", text)
    if money:
        amount = money.group(1)
        bare = amount.replace(",", "")
        out += [
            _rendering("dollar sign", f"${amount}", True),
            _rendering("dollar sign no comma", f"${bare}", True),
            _rendering("dollars word", f"{amount} dollars", True),
            _rendering("escaped dollar", f"\\${amount}", True),
            _rendering("bare amount", bare, True),
            _rendering("usd", f"USD {amount}", True),
        ]
        if "." in bare:
            dollars, cents = bare.split(".")
            out += [
                _rendering(
                    "dollars and cents words",
                    f"{int_words(int(dollars))} dollars and {int_words(int(cents))} cents",
                    True,
                ),
                _rendering("short cents", f"${float(bare):g}", False),
            ]
        else:
            out += [
                _rendering("dollars words", f"{int_words(int(bare))} dollars", True),
                _rendering("cents zero", f"${amount}.00", True),
            ]
        return out
    degrees = re.fullmatch(r"(.+?)\s*(?:\^\\circ|\^\{\\circ\}|\\text\{\s*degrees\})", text)
    if degrees:
        number = degrees.group(1)
        plain = convert(number, "plain")
        out += [
            _rendering("degree sign", f"{plain}°", True, [plain]),
            _rendering("degrees word", f"{plain} degrees", True, [plain]),
            _rendering("latex circ", f"${number}^\\circ$", True),
            _rendering("deg", f"{plain} deg", True, [plain]),
            _rendering("bare number", plain, True),
            _rendering("words", f"{expression_words(plain)} degrees", True),
        ]
        value = value_of(number)
        if value is not None:
            import sympy

            radians = sympy.nsimplify(value * sympy.pi / 180)
            out.append(_rendering("radians", f"{convert(sympy.latex(radians), 'plain')} radians", False))
        return out
    unit = re.fullmatch(r"([\d.]+)\s*\\(?:mbox|text)\{\s*([a-z]+)\s*\}(\^2)?", text)
    if unit:
        number, name, squared = unit.groups()
        short = {"inches": "in", "cm": "cm", "cents": "¢"}.get(name, name)
        if squared:
            out += [
                _rendering("square words", f"{number} square {name}", True, [number]),
                _rendering("unicode square", f"{number} {short}²", True, [number]),
                _rendering("sq", f"{number} sq {short}", True, [number]),
                _rendering("latex units", f"${number} \\text{{ {short}}}^2$", True),
            ]
        else:
            out += [
                _rendering("unit word", f"{number} {name}", True, [number]),
                _rendering("unit symbol", f"{number}{short}", True, [number]),
            ]
            if name == "cents":
                out.append(_rendering("in dollars", f"${float(number) / 100:g}", False))
        out += [
            _rendering("bare number", number, True),
            _rendering("words", expression_words(number) + " " + ("square " if squared else "") + name, True),
        ]
    return out


def _base_renderings(answer: str) -> list[dict]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", _strip(answer)).groups()
    return [
        _rendering("subscript", f"{digits}_{base}", True, [digits]),
        _rendering("latex", f"${digits}_{{{base}}}$", True, [digits]),
        _rendering("in base", f"{digits} in base {base}", True, [digits]),
        _rendering("base parenthesised", f"{digits} (base {base})", True, [digits]),
        _rendering("unicode subscript", digits + base.translate(SUBSCRIPTS), True),
        _rendering("base-n number", f"the base-{base} number {digits}", True, [digits]),
        _rendering("bare digits", digits, True),
        _rendering("decimal value", str(int(digits, int(base))), False),
    ]


def _equation_renderings(answer: str) -> list[dict]:
    text = _strip(answer)
    left, right = (side.strip() for side in text.split("=", 1))
    plain_left, plain_right = convert(left, "plain"), convert(right, "plain")
    out = [
        _rendering("unspaced", f"{plain_left}={plain_right}".replace(" ", ""), True),
        _rendering("unicode", convert(text, "unicode"), True),
        _rendering("words", expression_words(f"{plain_left} = {plain_right}"), True),
    ]
    if re.fullmatch(r"[a-z]", plain_left):
        out += [
            _rendering("right side", plain_right, True),
            _rendering("is", f"{plain_left} is {plain_right}", True, [plain_right]),
        ]
        slope = re.fullmatch(r"(-?\d*)x\s*([-+])\s*(\d+)", plain_right)
        if slope:
            m = slope.group(1) or "1"
            b = slope.group(3) if slope.group(2) == "+" else "-" + slope.group(3)
            out += [
                _rendering(
                    "reordered",
                    f"{plain_left} = {b.lstrip('+')} {'+' if not m.startswith('-') else '-'} {m.lstrip('-')}x".replace(
                        " 1x", " x"
                    ),
                    False,
                ),
                _rendering("slope intercept", f"slope {m} and y-intercept {b}", False, [m, b]),
            ]
    elif plain_right == "0":
        terms = re.findall(r"[-+]?\s*[^-+]+", plain_left)
        constant = next((t for t in terms if re.fullmatch(r"[-+]?\s*\d+\s*", t)), None)
        if constant:
            rest = "".join(t for t in terms if t is not constant).strip()
            moved = str(-int(constant.replace(" ", "")))
            out.append(_rendering("constant moved", f"{rest} = {moved}", False))
        flipped = [
            term[1:].strip() if term.startswith("-") else "-" + term.lstrip("+ ") for term in map(str.strip, terms)
        ]
        negated = " ".join(flipped[:1] + [t if t.startswith("-") else "+ " + t for t in flipped[1:]])
        out.append(_rendering("negated", negated.replace("-", "- ").replace("- ", "-", 1) + " = 0", False))
    return out


def _list_renderings(answer: str, problem: str) -> list[dict]:
    text = _strip(answer)
    if "\\pm" in text and not text.startswith("\\{"):
        head, tail = (side.strip() for side in text.split("\\pm"))
        plain_head, plain_tail = convert(head, "plain"), convert(tail, "plain")
        plus, minus = f"{plain_head} + {plain_tail}", f"{plain_head} - {plain_tail}"
        uni_tail = convert(tail, "unicode")
        return [
            _rendering("plus minus unicode", f"{convert(head, 'unicode')} ± {uni_tail}", True),
            _rendering("plus minus ascii", f"{plain_head} +/- {plain_tail}", True),
            _rendering("both roots", f"{plus} and {minus}", True, [plus, minus]),
            _rendering("roots named", f"x = {plus} or x = {minus}", True, [plus, minus]),
            _rendering(
                "unicode roots",
                f"{convert(head, 'unicode')} + {uni_tail} and {convert(head, 'unicode')} − {uni_tail}",
                True,
            ),
            _rendering("words", expression_words(f"{plain_head} +/- {plain_tail}"), True),
        ]
    inner = text[2:-2] if text.startswith("\\{") else text
    components = []
    for component in _components(inner):
        if "\\pm" in component:
            head, tail = (side.strip() for side in component.split("\\pm"))
            components += [f"{head}+{tail}", f"{head}-{tail}"]
        else:
            components.append(component)
    return _sequence_renderings(components, ["x"] * len(components), "list")


def _matrix_renderings(answer: str) -> list[dict]:
    body = re.search(r"\\begin\{pmatrix\}(.*)\\end\{pmatrix\}", answer, re.S).group(1)
    rows = [[cell.strip() for cell in row.split("&")] for row in body.split("\\\\")]
    if all(len(row) == 1 for row in rows):
        components = [row[0] for row in rows]
        return [
            _rendering("pmatrix", f"${answer}$", True),
            *_sequence_renderings(components, _names("", len(components)), "vector"),
        ]
    plain_rows = [[convert(cell, "plain") for cell in row] for row in rows]
    nested = "[" + ", ".join("[" + ", ".join(row) + "]" for row in plain_rows) + "]"
    out = [
        _rendering("pmatrix", f"${answer}$", True),
        _rendering("nested lists", nested, True),
        _rendering("rows", "; ".join(" ".join(row) for row in plain_rows), True),
        _rendering("bmatrix", f"$\\begin{{bmatrix}} {body.strip()} \\end{{bmatrix}}$", True),
    ]
    if all(plain_rows[i][j] == ("-1" if i == j else "0") for i in range(len(rows)) for j in range(len(rows))):
        out += [
            _rendering("negative identity", "-I", False),
            _rendering("identity words", "the negative of the identity matrix", False),
        ]
    return out


def _generic_renderings(answer: str) -> list[dict]:
    """Every answer written in LaTeX with each delimiter, plain text, Unicode and words."""
    text = answer.strip()
    out = [
        _rendering("latex dollar", f"${text}$", True),
        _rendering("latex paren", f"\\({text}\\)", True),
        _rendering("latex display", f"\\[{text}\\]", True),
        _rendering("latex bare", text, True),
    ]
    plain = convert(text, "plain")
    if plain:
        out += [
            _rendering("plain", plain, True),
            _rendering("plain unspaced", plain.replace(" ", ""), True),
            _rendering("plain star", re.sub(r"(\d)(sqrt|pi|[a-zA-Z(])", r"\1*\2", plain), True),
            _rendering("words", expression_words(plain), True),
        ]
    unicode = convert(text, "unicode")
    if unicode:
        out.append(_rendering("unicode", unicode, True))
    return out


def renderings(answer: str, kind: str, problem: str = "") -> list[dict]:
    """The ways a reviewer writes the answer `answer` of type `kind`: dicts with `style`, `text`, `written_out`
    (the answer itself in some notation, not an equivalent value), `parts` (the pieces that must all be gone for the
    statement to be gone) and `sentence` (a whole sentence, for sentence frames). Duplicate texts are dropped."""
    text = _strip(answer)
    out = []
    if kind in ("small integer", "negative integer", "large integer"):
        number = int(re.sub(r"[ ,]", "", text))
        out += _integer_renderings(number, kind == "large integer")
        if "," in answer:
            out.append(_rendering("latex separators", f"${answer}$", True))
    elif kind == "fraction":
        out += _generic_renderings(answer) + _fraction_renderings(_fraction_of(text))
    elif kind == "decimal":
        value = Fraction(text)
        leading = "0" + text if text.startswith(".") else "-0" + text[1:] if text.startswith("-.") else text
        out += [
            _rendering("digits", text, True),
            _rendering("leading zero", leading, True),
            _rendering("latex dollar", f"${text}$", True),
            _rendering("words", decimal_words(text), True),
            _rendering("fraction", f"{value.numerator}/{value.denominator}", False),
            _rendering("latex fraction", f"$\\frac{{{value.numerator}}}{{{value.denominator}}}$", False),
            _rendering("percent", f"{float(value * 100):g}%", False),
        ]
        if abs(value) < Fraction(1, 1000):
            exponent = 0
            while abs(value) * 10**exponent < 1:
                exponent += 1
            out.append(_rendering("scientific", f"{float(value * 10**exponent):g} \\times 10^{{-{exponent}}}", False))
    elif kind == "mixed number":
        whole, p, q = (int(n) for n in re.fullmatch(r"(\d+)\s*\\frac\{?(\d)\}?\{?(\d+)\}?", text).groups())
        value = whole + Fraction(p, q)
        out += [
            _rendering("spaced slash", f"{whole} {p}/{q}", True),
            _rendering("words", f"{int_words(whole)} and {fraction_words(p, q)}", True),
            _rendering("tfrac", f"${whole}\\tfrac{{{p}}}{{{q}}}$", True),
            _rendering("latex dollar", f"${answer}$", True),
            _rendering("improper", f"{value.numerator}/{value.denominator}", False),
            _rendering("improper latex", f"$\\frac{{{value.numerator}}}{{{value.denominator}}}$", False),
        ]
        if (p, q) in VULGAR:
            out.append(_rendering("vulgar", f"{whole}{VULGAR[p, q]}", True))
        if _decimal(value):
            out.append(_rendering("decimal", _decimal(value), False))
    elif kind in ("radical", "multiple of pi", "expression", "complex number", "scientific notation", "other"):
        out += _generic_renderings(answer)
        out += _equivalent_forms(text, kind)
    elif kind == "interval":
        out += _interval_renderings(text)
    elif kind in ("ordered pair", "tuple"):
        inner = text.strip()[1:-1]
        components = _components(inner)
        out += _sequence_renderings(components, _names(problem, len(components)), "pair")
    elif kind == "set/list":
        out += _list_renderings(answer, problem)
    elif kind == "matrix/vector":
        out += _matrix_renderings(answer)
    elif kind == "multiple choice":
        out += _choice_renderings(answer, problem)
    elif kind == "text answer":
        out += _text_renderings(answer)
    elif kind == "units/degrees/money":
        out += _units_renderings(answer)
    elif kind == "base-n number":
        out += _base_renderings(answer)
    elif kind == "equation":
        out += _generic_renderings(answer)[:3] + _equation_renderings(answer)
    seen, unique = set(), []
    for rendering in out:
        if rendering["text"] and rendering["text"] not in seen:
            seen.add(rendering["text"])
            unique.append(rendering)
    return unique


def _equivalent_forms(text: str, kind: str) -> list[dict]:
    """Radicals, multiples of pi and expressions as another form of the same value."""
    out = []
    radical = re.fullmatch(r"(\d*)\s*\\sqrt\{?(\d+)\}?", text)
    if radical and radical.group(1):
        k, m = int(radical.group(1)), int(radical.group(2))
        out += [
            _rendering("unsimplified radical", f"\\sqrt{{{k * k * m}}}", False),
            _rendering("unsimplified unicode", f"√{k * k * m}", False),
            _rendering("times root words", f"{int_words(k)} times the square root of {int_words(m)}", True),
        ]
    elif radical:
        out.append(_rendering("root words", f"the square root of {int_words(int(radical.group(2)))}", True))
        out.append(_rendering("half power", f"{radical.group(2)}^(1/2)", True))
    pi = re.fullmatch(r"(\d*)\s*\\pi", text)
    if pi:
        k = pi.group(1) or "1"
        out += [
            _rendering("pi times", f"{k}*pi" if k != "1" else "pi", True),
            _rendering("pi after", f"pi*{k}" if k != "1" else "π", True),
        ]
        if k == "1":
            out.append(_rendering("degrees", "180 degrees", False))
    if kind == "multiple of pi" and text.startswith("-\\frac{\\pi}"):
        q = int(re.search(r"\}\{(\d+)\}", text).group(1))
        out.append(_rendering("degrees", f"-{180 // q} degrees", False))
    complex_ = re.fullmatch(r"(-?\d+)\s*([-+])\s*(\d*)i", text)
    if complex_:
        a, sign, b = complex_.groups()
        b = b or "1"
        out += [
            _rendering("imaginary first", f"{'' if sign == '+' else '-'}{b}i + {a}".replace("+ -", "- "), False),
            _rendering("spaced i", f"{a} {sign} {b} i", True),
            _rendering("i times", f"{a} {sign} {b}*i", True),
        ]
    if kind == "expression":
        plain = convert(text, "plain")
        if plain and "^" in plain:
            out.append(_rendering("python power", plain.replace("^", "**"), True))
        terms = re.findall(r"[-+]?\s*[^-+\s][^-+]*", plain or "")
        if len(terms) >= 2 and "(" not in (plain or ""):
            reordered = " + ".join(t.strip() for t in reversed(terms)).replace("+ -", "- ").replace("+ +", "+")
            reordered = re.sub(r"^\+\s*|^-\s+", lambda m: "" if "+" in m.group(0) else "-", reordered)
            out.append(_rendering("reordered terms", re.sub(r"\s+", " ", reordered), False))
    return out


# --- arithmetic and approximations -------------------------------------------------------------------------------


def arithmetic_statements(answer: str, kind: str) -> list[dict]:
    """The answer as simple arithmetic whose result it is ("one more than 41", "6 times 7", "42 = 40 + 2"), for
    integer and fraction answers."""
    text = _strip(answer)
    if kind == "units/degrees/money":
        match = re.fullmatch(r"(\d+)\s*\^\\circ", text)
        if not match:
            return []
        text, kind = match.group(1), "small integer" if int(match.group(1)) < 100 else "large integer"
    out = []
    if kind in ("small integer", "large integer", "negative integer"):
        n = int(re.sub(r"[ ,]", "", text))
        ones = n % 10 if n % 10 and abs(n) >= 10 else 1
        out += [
            _rendering("one more than", f"one more than {n - 1}", False),
            _rendering("one less than words", f"one less than {int_words(n + 1)}", False),
            _rendering("your plus one", f"your {n - 1}, plus one", False),
            _rendering("difference symbols", f"{n + 7} - 7", False),
            _rendering("sum equation", f"{n} = {n - ones} + {ones}", False),
            _rendering("words sum", f"{int_words(n - 2)} plus two", False),
        ]
        if n % 2 == 0 and n != 0:
            out += [
                _rendering("twice", f"twice {n // 2}", False),
                _rendering("half of", f"half of {2 * n}", False),
            ]
        else:
            out.append(_rendering("half of", f"half of {2 * n}", False))
        factor = next((d for d in range(2, int(abs(n) ** 0.5) + 1) if n % d == 0), None)
        sign = -1 if n < 0 else 1
        if factor:
            out += [
                _rendering("times symbols", f"{sign * factor} × {abs(n) // factor}", False),
                _rendering("times words", f"{int_words(sign * factor)} times {int_words(abs(n) // factor)}", False),
                _rendering("star product", f"{sign * factor}*{abs(n) // factor}", False),
            ]
        root = round(abs(n) ** 0.5)
        if n > 1 and root * root == n:
            out.append(_rendering("square", f"{root} squared", False))
    elif kind in ("fraction", "mixed number"):
        value = _fraction_of(text) if kind == "fraction" else None
        if kind == "mixed number":
            whole, p, q = (int(x) for x in re.fullmatch(r"(\d+)\s*\\frac\{?(\d)\}?\{?(\d+)\}?", text).groups())
            value = whole + Fraction(p, q)
        p, q = value.numerator, value.denominator
        out += [
            _rendering("halved", f"half of {2 * p}/{q}" if q % 2 else f"half of {p}/{q // 2}", False),
            _rendering("sum of fractions", f"{p - 1}/{q} + 1/{q}", False),
            _rendering("division", f"{2 * p} divided by {2 * q}", False),
        ]
        if 0 < value < 1:
            out.append(_rendering("one minus", f"1 - {q - p}/{q}", False))
    return out


def approximations(answer: str, kind: str) -> list[dict]:
    """Decimal approximations (3 or more significant digits) of irrational or non-terminating answers."""
    if kind not in ("radical", "multiple of pi", "fraction", "mixed number", "units/degrees/money", "expression"):
        return []
    text = _strip(answer)
    if kind == "units/degrees/money":
        match = re.fullmatch(r"(.+?)\s*\\text\{\s*degrees\}", text)
        if not match:
            return []
        text = match.group(1)
    if kind == "mixed number":
        return []
    value = value_of(text)
    if value is None or value.free_symbols or not value.is_real:
        return []
    if value.is_Rational and _decimal(Fraction(int(value.p), int(value.q))) is not None:
        return []
    number = float(value)

    def significant(digits: int) -> str:
        if abs(number) >= 10**digits:
            return f"{number:.0f}"
        return f"{number:#.{digits}g}".rstrip(".")

    irrational = "irrational" if not value.is_Rational else "repeating"
    return [
        {**_rendering("about", f"about {significant(4)}", False), "irrational": irrational},
        {**_rendering("approx sign", f"≈ {significant(3)}", False), "irrational": irrational},
        {**_rendering("roughly", f"roughly {significant(5)}", False), "irrational": irrational},
        {**_rendering("trailing dots", f"{significant(4)}...", False), "irrational": irrational},
        {**_rendering("rounded", f"{significant(3)} (rounded)", False), "irrational": irrational},
    ]


# --- wrong attempts and problem numbers --------------------------------------------------------------------------


SCALAR_TYPES = ("small integer", "negative integer", "large integer", "fraction", "decimal", "radical")
SCALAR_TYPES += ("multiple of pi", "mixed number", "complex number", "expression", "units/degrees/money", "other")


def _mutate_number(text: str, kind: str, rng: random.Random) -> list[tuple[str, str]]:
    """Wrong values made from the answer's own digits: off by one, a digit appended or dropped, the sign flipped."""
    numbers = list(re.finditer(r"\d+", text))
    if not numbers:
        return [("doubled", "2" + text)] if kind in SCALAR_TYPES else []
    first_only = ("base-n number", "units/degrees/money", "equation")
    match = numbers[-1] if rng.random() < 0.5 and kind not in first_only else numbers[0]
    digits = match.group(0)
    n = int(digits)

    def replace(new: str) -> str:
        return text[: match.start()] + new + text[match.end() :]

    out = [("off by one", replace(str(n + 1))), ("digit prepended", replace("1" + digits))]
    if n != 0 and text[match.start() - 1 : match.start()] != ".":  # a trailing 0 after the point is the same value
        out.append(("digit appended", replace(digits + "0")))
    if n > 1:
        out.append(("off by one below", replace(str(n - 1))))
    if len(digits) > 1:
        out.append(("digit dropped", replace(digits[:-1])))
    if n != 0 and kind in SCALAR_TYPES:
        out.append(("sign flipped", text[1:] if text.startswith("-") else "-" + text))
    return out


def wrong_values(answer: str, kind: str, rng: random.Random) -> list[tuple[str, str]]:
    """(how it was made, the wrong value in LaTeX) for a failed attempt at `answer`: never equal to the answer."""
    text = _strip(answer)
    alternatives = {"even": "odd", "odd": "even", "ellipse": "hyperbola", "east": "west"}
    if kind == "text answer":
        word = re.fullmatch(r"\\text\{\s*(.*?)\s*\}", text).group(1)
        return [("other word", f"\\text{{{alternatives.get(word.lower(), 'Emma' if word != 'Emma' else 'Luis')}}}")]
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", text.replace("\\text", "")).group(0)
        return [("other letter", f"({'B' if letter != 'B' else 'D'})")]
    out = _mutate_number(text, kind, rng)
    if kind == "interval":
        swapped = text.translate(str.maketrans("()[]", "[]()"))
        swapped = re.sub(r"\\infty\]", r"\\infty)", re.sub(r"\[(-?\\infty)", r"(\1", swapped))
        out.append(("brackets flipped", swapped))
    if kind in ("ordered pair", "tuple"):
        components = _components(text.strip()[1:-1])
        if components[0] != components[-1]:
            out.append(
                ("components swapped", "(" + ", ".join([components[-1], *components[1:-1], components[0]]) + ")")
            )
    if kind == "fraction":
        value = _fraction_of(text)
        if value and abs(value.numerator) != 1:
            out.append(("reciprocal", f"\\frac{{{value.denominator}}}{{{abs(value.numerator)}}}"))
    reference = value_of(text)
    kept = []
    for how, wrong in out:
        if _strip(wrong) == text:
            continue
        value = value_of(wrong)
        if reference is not None and value is not None and (reference - value).equals(0):
            continue
        kept.append((how, wrong))
    return kept


def problem_numbers(problem: str) -> list[str]:
    """Numbers the problem states, as written (outside `[asy]` pictures), without repeats, in order."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    seen = []
    for number in re.findall(r"(?<![\w.^_])\d+(?:\.\d+)?(?![\w])", text):
        if number not in seen:
            seen.append(number)
    return seen


def intermediate_values(solution: str, answer: str) -> list[str]:
    """Numbers of the worked solution that are not the answer nor any number in it: values a critique may quote."""
    answer_numbers = set(re.findall(r"\d+(?:\.\d+)?", answer))
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", solution, flags=re.S)
    text = re.sub(r"\\boxed\{.*", " ", text, flags=re.S)
    seen = []
    for number in re.findall(r"(?<![\w.^_])\d+(?:\.\d+)?(?![\w])", text):
        if number not in answer_numbers and number not in seen:
            seen.append(number)
    return seen


def _wrong_text(wrong: str, rng: random.Random) -> str:
    """The attempt's wrong value as the critique quotes it: in `$...$`, or in plain text."""
    plain = convert(wrong, "plain")
    return f"${wrong}$" if rng.random() < 0.5 or not plain else plain


# --- the corpus --------------------------------------------------------------------------------------------------


def split_halves(names: list[str], seed: int, salt: str) -> dict[str, str]:
    """Each name's split: a seeded shuffle, the first half `development`, the rest `held_out`."""
    shuffled = sorted(names)
    random.Random(f"{seed}/{salt}").shuffle(shuffled)
    half = (len(shuffled) + 1) // 2
    return {name: "development" if k < half else "held_out" for k, name in enumerate(shuffled)}


def frame_splits(seed: int = SEED) -> dict[str, str]:
    return split_halves(list(LEAK_FRAMES + SENTENCE_FRAMES), seed, "frames")


def _fill(frame: str, value: str, q: str, w: str) -> tuple[str, str]:
    """The critique, and the same critique without its value (what must not count as the value's occurrence)."""
    return frame.format(v=value, q=q, w=w), frame.format(v="", q=q, w=w)


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The labelled critiques for `problems` (MATH-500 rows). Each case: `family` ("rendering", "arithmetic",
    "approximation" or "clean"), `split`, `index` (the problem's row), `answer_type`, `style`, `frame`, `text`,
    `leak`, `written_out`, `parts` and `context` (the text without the value) for leaks, `wrong` (the quoted wrong
    attempt) and `wrong_how` for clean texts that quote one."""
    frames = frame_splits(seed)
    clean_splits = split_halves(list(CLEAN_FRAMES), seed, "clean")
    cases = []
    for index, row in enumerate(problems):
        rng = random.Random(f"{seed}/{row.get('unique_id', index)}")
        kind = answer_type(row["answer"], row["problem"])
        numbers = problem_numbers(row["problem"]) or ["the given values"]
        wrongs = wrong_values(row["answer"], kind, rng) or [("none", "")]
        intermediates = intermediate_values(row.get("solution", ""), row["answer"])

        def pick_frame(split: str, sentence: bool) -> str:
            pool = [f for f in (SENTENCE_FRAMES if sentence else LEAK_FRAMES) if frames[f] == split]
            return rng.choice(pool)

        families = [("rendering", renderings(row["answer"], kind, row["problem"]))]
        families += [("arithmetic", arithmetic_statements(row["answer"], kind))]
        families += [("approximation", approximations(row["answer"], kind))]
        for family, forms in families:
            styles = split_halves([form["style"] for form in forms], seed, f"{family}/{kind}")
            for form in forms:
                split = styles[form["style"]]
                frame = pick_frame(split, form["sentence"])
                opener = rng.choice(OPENERS) if not form["sentence"] else ""
                q = rng.choice(numbers)
                w = _wrong_text(rng.choice(wrongs)[1], rng) if wrongs[0][1] else "your value"
                text, context = _fill(opener + frame, form["text"], q, w)
                cases.append(
                    {
                        "family": family,
                        "split": split,
                        "index": index,
                        "answer_type": kind,
                        "style": form["style"],
                        "frame": frame,
                        "text": text,
                        "context": context,
                        "leak": True,
                        "written_out": form["written_out"],
                        "parts": form["parts"],
                        **({"irrational": form["irrational"]} if "irrational" in form else {}),
                    }
                )
        for how, wrong in wrongs if wrongs[0][1] else []:
            frame = rng.choice([f for f in CLEAN_FRAMES if "{w}" in f])
            quoted = _wrong_text(wrong, rng)
            cases.append(
                _clean_case(frame, clean_splits[frame], index, kind, numbers, intermediates, rng, quoted, how)
            )
        for frame in rng.sample([f for f in CLEAN_FRAMES if "{w}" not in f], 2):
            cases.append(_clean_case(frame, clean_splits[frame], index, kind, numbers, intermediates, rng, None, None))
    return cases


def _clean_case(frame, split, index, kind, numbers, intermediates, rng, wrong, how) -> dict:
    text = frame.format(
        w=wrong or "",
        q=rng.choice(numbers),
        i=rng.choice(intermediates) if intermediates else "the first equation",
        k=rng.choice(["1", "2", "3", str(rng.randint(2, 6))]),
    )
    return {
        "family": "clean",
        "split": split,
        "index": index,
        "answer_type": kind,
        "style": how or "no wrong value",
        "frame": frame,
        "text": text,
        "leak": False,
        "wrong": wrong,
        "wrong_how": how,
    }


def occurrences(part: str, text: str) -> int:
    """How often `part` stands in `text` on its own (not inside a longer number or word)."""
    pattern = r"(?<![\w.])" + re.escape(part) + r"(?![\w]|\.\d)"
    return len(re.findall(pattern, text))


def stated(case: dict, output: str) -> bool:
    """Whether the prepared critique still states the value: some part of it stands in `output` more often than in
    the critique's own words around the value."""
    return any(occurrences(part, output) > occurrences(part, case["context"]) for part in case["parts"])


def _adversarial_units(seed: int) -> dict[str, tuple[str, list[str], str]]:
    """Repeated units of text that make a redactor work hard, with the answer type of the reference each is timed
    against and what closes the text: many distinct radical pairs against a pair (alone, each in `$...$`, all in one
    `$...$`, closed or not), fraction and integer pairs, triples, intervals, fractions, a long list, deep nesting, a
    wall of numbers, fractions stacked over rules, an answer key in columns, one bracket of items parted by
    semicolons, other locales' numbers, other languages' number words. Each seed draws other numbers, so that no result cached from another seed's
    text applies."""
    rng = random.Random(seed)
    pairs = list({(rng.randint(2, 999), rng.randint(2, 999)) for _ in range(600)})
    rng.shuffle(pairs)
    fractions = [(rng.randint(1, 999), rng.randint(2, 999)) for _ in range(400)]
    first = rng.randint(1, 10**4)

    def draw(low: int, high: int) -> int:
        return rng.randint(low, high)

    from num2words import num2words

    def spelled(number: int, language: str) -> str:
        return num2words(number, lang=language)

    # a fraction in words of one of six languages, each unit in another: English around runs of each
    overs = [("es", "sobre"), ("fr", "sur"), ("pt", "sobre"), ("it", "fratto"), ("de", "durch"), ("tr", "bölü")]
    switched = [(pair, overs[index % len(overs)]) for index, pair in enumerate(pairs)]

    def radicals(a: int, b: int) -> str:
        return f"(\\sqrt{{{a}}}, \\sqrt{{{b}}})"

    return {
        "radical pairs": ("ordered pair", [radicals(a, b) for a, b in pairs], ""),
        "radical pairs in $": ("ordered pair", [f"${radicals(a, b)}$" for a, b in pairs], ""),
        "one $ of radical pairs": (
            "ordered pair",
            ["$" + radicals(*pairs[0]) + ","] + [radicals(a, b) + "," for a, b in pairs[1:]],
            "$",
        ),
        "unclosed $ of radical pairs": (
            "ordered pair",
            ["$" + radicals(*pairs[0]) + ","] + [radicals(a, b) + "," for a, b in pairs[1:]],
            "",
        ),
        "fraction pairs in $": (
            "ordered pair",
            [f"$(\\frac{{{p}}}{{{q}}}, \\frac{{{draw(1, 99)}}}{{{draw(2, 99)}}})$" for p, q in fractions],
            "",
        ),
        "integer pairs in $": ("ordered pair", [f"$({a}, {b})$" for a, b in pairs], ""),
        "triples in $": ("tuple", [f"$(\\sqrt{{{a}}}, {b}, -\\sqrt{{{a + b}}})$" for a, b in pairs], ""),
        "negated pairs in $": ("interval", [f"$(-{radicals(a, b)[1:]}$" for a, b in pairs], ""),
        "intervals in $": ("interval", [f"$(-{a}, \\sqrt{{{b}}}]$" for a, b in pairs], ""),
        "fractions": ("fraction", [f"$\\frac{{{p}}}{{{q}}}$ +" for p, q in fractions], ""),
        "plain fractions": ("fraction", [f"{p}/{q}," for p, q in fractions], ""),
        "long list": ("set/list", [f"{k}," for k in range(first, first + 2000)], ""),
        "nested fraction": ("expression", [f"\\frac{{{draw(1, 99)}}}{{{draw(1, 99)}+" for _ in range(300)], ""),
        "nested parentheses": ("ordered pair", [f"({draw(1, 99)}+(" for _ in range(400)], ""),
        "nested roots": ("radical", [f"\\sqrt{{{draw(1, 99)}+" for _ in range(300)], ""),
        "wall of numbers": ("small integer", [str(draw(0, 10 ** draw(1, 6))) for _ in range(2000)], ""),
        "number words": ("large integer", [int_words(draw(1, 9999)) + "," for _ in range(600)], ""),
        "intervals": ("interval", [f"({draw(-99, 0)}, {draw(1, 99)}] \\cup" for _ in range(600)], ""),
        "named values": ("tuple", [f"x_{{{k}}} = {draw(-50, 50)}," for k in range(800)], ""),
        "stacked fractions": ("fraction", [f"{p}\n——\n{q}\n" for p, q in fractions], ""),
        "answer key in columns": (
            "small integer",
            [f"{k}. {draw(0, 999)}        {k + 60}. forty-\n{int_words(draw(1, 9))}\n" for k in range(1, 600)],
            "",
        ),
        "one bracket parted by semicolons": ("set/list", ["("] + [f"{k}; " for k in range(first, first + 2000)], ")"),
        "locale numbers": (
            "fraction",
            [f"({a}; {b}⟩ ≈ {a},{b} {a} : {b} {a} by {b}, {a} parts to {b}; " for a, b in pairs],
            "",
        ),
        "other languages' number words": (
            "ordered pair",
            [f"{spelled(a, language)} {over} {spelled(b, language)}, " for (a, b), (language, over) in switched],
            "",
        ),
    }


def adversarial_texts(count_tokens, max_tokens: int, seed: int = SEED) -> list[tuple[str, str, str]]:
    """(name, text, answer type of its reference): each text the most units that `count_tokens` says fit in
    `max_tokens` policy tokens, so none is cut before the guard sees all of it."""
    out = []
    for name, (kind, units, closing) in _adversarial_units(seed).items():
        low, high = 1, len(units)
        while low < high:  # the longest prefix within the cap
            middle = (low + high + 1) // 2
            if count_tokens(" ".join(units[:middle]) + closing) <= max_tokens:
                low = middle
            else:
                high = middle - 1
        out.append((name, " ".join(units[:low]) + closing, kind))
    return out


def type_counts(problems: list[dict]) -> dict[str, int]:
    counts = dict.fromkeys(ANSWER_TYPES, 0)
    for row in problems:
        counts[answer_type(row["answer"], row["problem"])] += 1
    return counts


if __name__ == "__main__":
    rows = load_problems()
    for name, count in type_counts(rows).items():
        print(f"{name:<22} {count:>4}")
    print(len(corpus(rows)), "cases")
