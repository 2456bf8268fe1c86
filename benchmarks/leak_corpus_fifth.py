"""A fifth held-out corpus of answer-leaking and clean critiques over MATH-500: feedback in the output formats that
chat-LLM feedback models produce.

Method. A feedback model seldom writes one plain sentence; it writes markdown. Each case here is a critique in one
such format -- a markdown header and bold verdict, a bullet or numbered checklist, a markdown table (attempt vs
expected, step vs value, one row per component), an inline-code or fenced Python check (`assert ... == value`,
`# expected value`), a JSON / YAML / key-value record, a rubric sheet, a diff-style correction of the quoted wrong
attempt (~~w~~ -> v, "replace w by v", a `-`/`+` diff block), a Q/A dialogue, a short re-derivation ending at the
value, a LaTeX display block or `\\boxed{}`, or emoji/symbol verdict markers -- each in several variants. The value
goes in as written by this module's own renderers, one per answer type, in the notations a reviewer uses for that
type: digits, words, LaTeX, Unicode and ASCII math, Python, thousands separators, percentages, mixed numbers,
inequalities and set-builder for intervals, prose and bullets for collections, rows and nested lists for matrices,
the option letter or the option's text for multiple choice, degrees / radians / cents / square units, subscripted
and spelled-out bases. Two further leak families state the value without writing it: `arithmetic` (an integer
answer as arithmetic on other numbers, "3 times 8", "one less than 25") and `approximation` (a 4-significant-digit
decimal of an irrational or non-terminating answer). Clean critiques use the same formats around the attempt's own
wrong value (the answer perturbed: off by one, doubled, halved, reciprocal, sign, supplement, swapped, another
option or name), the problem's own numbers and step hints; each is checked to contain no rendering of the answer,
of a component of it, and no number equal to it or to a component (doubtful cases are dropped).

Independence. Written without opening anything under `trl_mulferl/feedback/`, `tests/test_leak*` (other than this
corpus's own test), `benchmarks/leak_guard.py`, `benchmarks/leak_guard.json`, `docs/feedback_providers.md`,
`benchmarks/README.md`, `CHANGELOG.md` or the other `benchmarks/leak_corpus_*.py` corpora, and never run through
the guard. From `benchmarks/leak_corpus.py` only `load_problems`, `ANSWER_TYPES`, `answer_type`, `occurrences` and
`stated` are imported (and only their source was read).

Case schema (`corpus(problems)` returns a list of dicts, deterministic for a seed):
family ("rendering" | "arithmetic" | "approximation" | "clean"), split ("held_out"), index (row of `problems`),
answer_type, style (the notation of the value, or of the wrong attempt in a clean case), frame ("format:variant"),
text, leak (bool), written_out (the answer itself is written in some notation), parts (the pieces whose standing
alone in an output, as `occurrences` counts, means the value is still stated; [] for clean cases), context (the text
with the value left out; the text itself for clean cases); clean cases add wrong (the quoted wrong attempt, or None)
and wrong_how.
"""

import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction


try:
    from benchmarks.leak_corpus import answer_type, occurrences
except ImportError:  # run as a script from benchmarks/, as the benchmark's own sibling modules are
    from leak_corpus import answer_type, occurrences

SEED = 5050505

MINUS = "\u2212"
ELLIPSIS = "…"

# --- numbers in words --------------------------------------------------------------------------------------------

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split()
)
_UNITS += ["seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_BIG = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_ORDINAL = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth",
            "twelve": "twelfth"}  # fmt: skip


def number_words(n: int) -> str:
    """`n` in English words, American style without "and": 2220 -> "two thousand two hundred twenty"."""
    if n < 0:
        return "negative " + number_words(-n)
    if n < 20:
        return _UNITS[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _UNITS[n % 10] if n % 10 else "")
    if n < 1000:
        return _UNITS[n // 100] + " hundred" + (" " + number_words(n % 100) if n % 100 else "")
    for scale, name in _BIG:
        if n >= scale:
            rest = n % scale
            return number_words(n // scale) + " " + name + (" " + number_words(rest) if rest else "")
    raise AssertionError(n)


def ordinal_words(n: int) -> str:
    """The ordinal of `n` as a fraction's denominator: 4 -> "fourth", 25 -> "twenty-fifth"."""
    words = number_words(n)
    head, sep, last = words.rpartition("-" if "-" in words.split(" ")[-1] else " ")
    if last in _ORDINAL:
        last = _ORDINAL[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


def fraction_words(value: Fraction) -> str:
    """A proper or improper fraction in words: 3/4 -> "three quarters", 14/3 -> "fourteen thirds"."""
    sign = "negative " if value < 0 else ""
    p, q = abs(value.numerator), value.denominator
    if q == 2:
        name = "half" if p == 1 else "halves"
    elif q == 4:
        name = "quarter" if p == 1 else "quarters"
    else:
        name = ordinal_words(q) + ("" if p == 1 else "s")
    return f"{sign}{'one' if p == 1 else number_words(p)} {name}"


# --- LaTeX to other notations ------------------------------------------------------------------------------------

NOTATIONS = ("latex", "unicode", "ascii", "python")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_CONSTANTS = {
    "pi": {"latex": "\\pi", "unicode": "π", "ascii": "pi", "python": "math.pi"},
    "infty": {"latex": "\\infty", "unicode": "∞", "ascii": "inf", "python": "math.inf"},
}
_OPERATORS = {
    "cup": {"latex": "\\cup", "unicode": "∪", "ascii": "U", "python": "|"},
    "pm": {"latex": "\\pm", "unicode": "±", "ascii": "+/-", "python": "+/-"},
    "cdot": {"latex": "\\cdot", "unicode": "·", "ascii": "*", "python": "*"},
    "times": {"latex": "\\times", "unicode": "×", "ascii": "*", "python": "*"},
    "le": {"latex": "\\le", "unicode": "≤", "ascii": "<=", "python": "<="},
    "ge": {"latex": "\\ge", "unicode": "≥", "ascii": ">=", "python": ">="},
}
_FUNCTIONS = ("sin", "cos", "tan", "cot", "sec", "csc", "ln", "log")


def normalize_latex(latex: str) -> str:
    """The answer's LaTeX with spacing commands dropped and every `\\frac` / `\\sqrt` argument braced, so that a
    number inside it reads as one number: `\\frac 34` -> `\\frac{3}{4}`, `\\frac{270}7` -> `\\frac{270}{7}`."""
    text = re.sub(r"\\left|\\right|\\!|\\,|\\displaystyle", "", latex)
    text = re.sub(r"\\[dt]frac", r"\\frac", text)
    text = re.sub(r"\\frac\s*(\d)\s*(\d)", r"\\frac{\1}{\2}", text)
    text = re.sub(r"\\frac\s*(\d)\{", r"\\frac{\1}{", text)
    text = re.sub(r"\\frac(\{[^{}]*\})(\d)", r"\\frac\1{\2}", text)
    text = re.sub(r"\\sqrt\s*(\d)", r"\\sqrt{\1}", text)
    return re.sub(r"\s+", " ", text).strip()


def _argument(s: str, i: int) -> tuple[str, int]:
    """The braced group, command or single character at `s[i:]` (spaces skipped) and the index after it."""
    while i < len(s) and s[i] == " ":
        i += 1
    if s[i] == "{":
        depth = 0
        for j in range(i, len(s)):
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            if depth == 0:
                return s[i + 1 : j], j + 1
        raise ValueError(f"unbalanced braces in {s!r}")
    if s[i] == "\\":
        command = re.match(r"\\[a-zA-Z]+", s[i:]).group()
        return command, i + len(command)
    return s[i], i + 1


def _atomic(text: str) -> bool:
    return re.fullmatch(r"[\w.π√∞]+|√\(.*\)|(math\.)?sqrt\([^()]*\)|math\.pi", text) is not None


def convert(latex: str, notation: str) -> str:
    """A LaTeX math expression written in `notation` (one of `NOTATIONS`): `3\\sqrt{13}` -> "3√13" (unicode),
    "3*sqrt(13)" (ascii), "3*math.sqrt(13)" (python), `3\\sqrt{13}` (latex); binary operators get spaces."""
    s = normalize_latex(latex)
    pieces: list[tuple[str, str]] = []  # (kind, text); kinds: operand, open, close, op
    i = 0
    while i < len(s):
        c = s[i]
        if c == " ":
            i += 1
            continue
        number = re.match(r"\d+(?:\.\d+)?|\.\d+", s[i:])
        if number:
            pieces.append(("operand", number.group()))
            i += number.end()
            continue
        if c == "\\":
            name = re.match(r"\\([a-zA-Z]+|.)", s[i:]).group(1)
            i += len(name) + 1
            if name == "frac":
                numerator, i = _argument(s, i)
                denominator, i = _argument(s, i)
                top, bottom = convert(numerator, notation), convert(denominator, notation)
                if notation == "latex":
                    pieces.append(("operand", f"\\frac{{{top}}}{{{bottom}}}"))
                else:
                    top = top if not re.search(r"[-+−\s]", top[1:]) else f"({top})"
                    bottom = bottom if _atomic(bottom) else f"({bottom})"
                    pieces.append(("operand", f"{top}/{bottom}"))
            elif name == "sqrt":
                radicand, i = _argument(s, i)
                inner = convert(radicand, notation)
                pieces.append(("operand", {
                    "latex": f"\\sqrt{{{inner}}}",
                    "unicode": f"√{inner}" if _atomic(inner) else f"√({inner})",
                    "ascii": f"sqrt({inner})",
                    "python": f"math.sqrt({inner})",
                }[notation]))  # fmt: skip
            elif name in _CONSTANTS:
                pieces.append(("operand", _CONSTANTS[name][notation]))
            elif name in _OPERATORS:
                pieces.append(("op", _OPERATORS[name][notation]))
            elif name in _FUNCTIONS:
                operand, i = _argument(s, i)
                inner = convert(operand, notation)
                pieces.append(("operand", {
                    "latex": f"\\{name} {inner}", "unicode": f"{name} {inner}", "ascii": f"{name}({inner})",
                    "python": f"{name}({inner})",
                }[notation]))  # fmt: skip
            elif name in ("text", "mbox", "textbf"):
                words, i = _argument(s, i)
                pieces.append(("operand", words.strip()))
            elif name in ("{", "}"):
                pieces.append(("open" if name == "{" else "close", "\\" + name if notation == "latex" else name))
            elif name == "circ":
                pieces.append(("operand", {"latex": "^\\circ", "unicode": "°"}.get(notation, " degrees")))
            else:
                raise ValueError(f"no conversion for \\{name} in {latex!r}")
            continue
        if c in "^_":
            exponent, i = _argument(s, i + 1)
            inner = convert(exponent, notation)
            kind, base = pieces.pop()
            if c == "_":
                attached = f"{base}_{{{inner}}}" if len(inner) > 1 else f"{base}_{inner}"
            elif notation == "latex":
                attached = f"{base}^{{{inner}}}" if len(inner) > 1 else f"{base}^{inner}"
            elif notation == "unicode" and re.fullmatch(r"-?\d+", inner):
                attached = base + inner.translate(_SUPERSCRIPT)
            elif notation == "python":
                attached = f"{base}**{inner if _atomic(inner) else f'({inner})'}"
            else:
                attached = f"{base}^{inner if _atomic(inner) else f'({inner})'}"
            pieces.append((kind, attached))
            continue
        i += 1
        if c in "+-=<>,":
            pieces.append(("op", MINUS if c == "-" and notation == "unicode" else c))
        elif c in "([":
            pieces.append(("open", c))
        elif c in ")]":
            pieces.append(("close", c))
        elif c.isalpha():
            pieces.append(("operand", c))
        else:
            raise ValueError(f"no conversion for {c!r} in {latex!r}")
    out, previous = "", None
    for kind, text in pieces:
        if kind == "op":
            unary = text in "+-−±" and previous in (None, "op", "open")
            out += text if unary else (", " if text == "," else f" {text} ")
        else:
            if previous in ("operand", "close") and kind in ("operand", "open"):
                if notation in ("ascii", "python"):
                    out += "*"
                elif notation == "latex" and re.search(r"\\[a-zA-Z]+$", out) and text[0].isalpha():
                    out += " "
            out += text
        previous = kind
    return out


def evaluate(latex: str) -> float | None:
    """The real value of a variable-free LaTeX expression, or None."""
    try:
        value = eval(convert(latex, "python"), {"__builtins__": {}, "math": math})  # our own converted text
    except Exception:
        return None
    return float(value) if isinstance(value, int | float) else None


def exact(latex: str) -> Fraction | None:
    """The exact rational value of an integer, decimal or fraction LaTeX string (thousands separators allowed)."""
    text = normalize_latex(latex).replace(" ", "").replace(",", "").replace("{,}", "")
    match = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", text)
    if match:
        return Fraction(int(match[2]), int(match[3])) * (-1 if match[1] else 1)
    if re.fullmatch(r"-?\d+/\d+|-?\d+(\.\d+)?|-?\.\d+", text):
        return Fraction(text)
    return None


def significant(value: float, digits: int = 4) -> str:
    """`value` rounded to `digits` significant digits, trailing zeros kept: 10.8166 -> "10.82"."""
    if value == 0:
        return "0"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    return f"{value:.{decimals}f}"


# --- renderings --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rendering:
    """A value written in one notation (`style`). `kind` says where it can stand: latex inside `$...$` or display
    math, code as a Python expression, unicode / ascii / words in prose, tables and records, items as a value spread
    over labelled components (`items`). `parts` are the pieces that state it (by default the whole text)."""

    style: str
    text: str
    kind: str
    parts: tuple[str, ...] = ()
    items: tuple[tuple[str, str], ...] = field(default=())

    @property
    def pieces(self) -> tuple[str, ...]:
        return self.parts or (self.text,)


def _plain(latex: str) -> list[Rendering]:
    """The four converter notations of one LaTeX value."""
    return [Rendering(n, convert(latex, n), "code" if n == "python" else n) for n in NOTATIONS]


def _fraction_forms(value: Fraction) -> list[Rendering]:
    p, q = value.numerator, value.denominator
    sign, minus = ("-", MINUS) if p < 0 else ("", "")
    a = abs(p)
    forms = [
        Rendering("slash", f"{sign}{a}/{q}", "ascii"),
        Rendering("unicode minus slash", f"{minus}{a}/{q}", "unicode") if p < 0 else None,
        Rendering("latex frac", f"{sign}\\frac{{{a}}}{{{q}}}", "latex"),
        Rendering("latex dfrac", f"{sign}\\dfrac{{{a}}}{{{q}}}", "latex"),
        Rendering("fraction slash", f"{minus}{a}\u2044{q}", "unicode"),
        Rendering("words", fraction_words(value), "words") if a < 100 and q <= 100 else None,
        Rendering("over", f"{sign}{a} over {q}", "words"),
        Rendering("python Fraction", f"Fraction({p}, {q})", "code"),
    ]
    vulgar = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 8): "⅛", (3, 8): "⅜", (4, 5): "⅘"}
    if (a, q) in vulgar:
        forms.append(Rendering("vulgar", minus + vulgar[(a, q)], "unicode"))
    if _terminates(q):
        forms.append(
            Rendering("decimal", f"{float(value):.10g}" if abs(value) >= 1e-4 else f"{float(value):.8f}", "ascii")
        )
    if a > q:
        whole, rest = divmod(a, q)
        forms.append(Rendering("mixed", f"{sign}{whole} {rest}/{q}", "ascii"))
        forms.append(Rendering("latex mixed", f"{sign}{whole}\\tfrac{{{rest}}}{{{q}}}", "latex"))
        if (rest, q) in vulgar:
            forms.append(Rendering("unicode mixed", f"{minus}{whole}{vulgar[(rest, q)]}", "unicode"))
    return [f for f in forms if f is not None]


def _terminates(q: int) -> bool:
    while q % 2 == 0:
        q //= 2
    while q % 5 == 0:
        q //= 5
    return q == 1


def _integer_forms(n: int) -> list[Rendering]:
    sign_unicode = MINUS if n < 0 else ""
    forms = [
        Rendering("digits", str(n), "ascii"),
        Rendering("python literal", str(n), "code"),
        Rendering("latex", str(n), "latex"),
        Rendering("words", number_words(n), "words"),
        Rendering("capitalized words", number_words(n).capitalize(), "words"),
        Rendering("decimal point", f"{n}.0", "ascii"),
    ]
    if n < 0:
        forms += [
            Rendering("unicode minus", f"{sign_unicode}{-n}", "unicode"),
            Rendering("minus word", f"minus {-n}", "words"),
            Rendering("parenthesized", f"({n})", "ascii"),
        ]
    if abs(n) >= 1000:
        forms += [
            Rendering("thousands comma", f"{n:,}", "ascii"),
            Rendering("thousands thin space", f"{n:,}".replace(",", "\u2009"), "unicode"),
            Rendering("latex thousands", f"{n:,}".replace(",", "{,}"), "latex"),
        ]
    if abs(n) >= 100 and n % 100 == 0:
        mantissa, exponent = n, 0
        while mantissa % 10 == 0:
            mantissa, exponent = mantissa // 10, exponent + 1
        digits = str(abs(mantissa))
        lead = f"{'-' if n < 0 else ''}{digits[0]}" + (f".{digits[1:]}" if len(digits) > 1 else "")
        power = exponent + len(digits) - 1
        forms.append(Rendering("scientific", f"{lead} × 10^{power}", "ascii"))
        forms.append(Rendering("latex scientific", f"{lead} \\times 10^{{{power}}}", "latex"))
    return forms


def _decimal_forms(text: str) -> list[Rendering]:
    value = Fraction(text)
    lead = text if not text.startswith(".") else "0" + text
    forms = [
        Rendering("decimal", lead, "ascii"),
        Rendering("python literal", lead, "code"),
        Rendering("latex", lead, "latex"),
        Rendering("fraction", f"{value.numerator}/{value.denominator}", "ascii"),
        Rendering("latex fraction", f"\\frac{{{value.numerator}}}{{{value.denominator}}}", "latex"),
    ]
    if text.startswith("."):
        forms.append(Rendering("bare decimal", text, "ascii"))
    if 0 < value < 1:
        percent = value * 100
        shown = str(percent.numerator) if percent.denominator == 1 else f"{float(percent):g}"
        forms.append(Rendering("percent", f"{shown}%", "ascii"))
    if 0 < value < Fraction(1, 1000):
        mantissa, exponent = float(value), 0
        while mantissa < 1:
            mantissa, exponent = mantissa * 10, exponent - 1
        m = f"{mantissa:.6g}"
        forms += [
            Rendering("scientific", f"{m} × 10^{exponent}", "ascii"),
            Rendering("e notation", f"{m}e{exponent}", "code"),
            Rendering("unicode scientific", f"{m} × 10{str(exponent).translate(_SUPERSCRIPT)}", "unicode"),
        ]
    whole, rest = divmod(value, 1)
    if rest in (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)) and whole:
        forms.append(
            Rendering("words", f"{number_words(int(whole))} and {fraction_words(rest).replace('one ', 'a ')}", "words")
        )
        forms.append(Rendering("mixed", f"{int(whole)} {rest}", "ascii"))
    if 0 <= whole < 100 and len(lead) <= 5:
        digits = lead.split(".")[1]
        forms.append(
            Rendering(
                "point words", f"{number_words(int(whole))} point {' '.join(_UNITS[int(d)] for d in digits)}", "words"
            )
        )
    return forms


def _commuted(text: str) -> str | None:
    """A two-term sum written the other way round: "18 + 2π" -> "2π + 18", "-13x + 3" -> "3 - 13x"."""
    match = re.fullmatch(r"([-−]?)([^\s+]+) ([+\-−]) ([^\s+]+)", text)
    if not match or any(term.count("(") != term.count(")") for term in (match[2], match[4])):
        return None  # not two terms: the sum sits inside a bracket
    sign, first, op, second = match.groups()
    minus = MINUS if MINUS in text else "-"
    lead = "" if op == "+" else minus
    return f"{lead}{second} {minus if sign else '+'} {first}"


def _scalar_math_forms(latex: str) -> list[Rendering]:
    """Radicals, multiples of pi and expressions: the converter's notations, a spacing variant and the commuted
    two-term sum."""
    forms = _plain(latex)
    compact = convert(latex, "unicode").replace(" ", "")
    if not re.search(r"[a-zA-Z] [\w(]", forms[1].text):
        forms.append(Rendering("unicode compact", compact, "unicode"))
    forms.append(Rendering("ascii spaced", convert(latex, "ascii").replace("*", " "), "ascii"))
    for form in list(forms[:3]):
        swapped = _commuted(form.text) if form.kind != "latex" else None
        if swapped:
            forms.append(Rendering(form.style + " commuted", swapped, form.kind))
    radical = re.fullmatch(r"(\d*)\s*\\sqrt\{(\d+)\}", normalize_latex(latex))
    if radical:
        times = f"{radical[1]} times " if radical[1] else ""
        forms += [Rendering("words", f"{times}the square root of {radical[2]}", "words"),
                  Rendering("power", f"{radical[1]}{'*' if radical[1] else ''}{radical[2]}^(1/2)", "ascii")]  # fmt: skip
    if radical and radical[1]:  # a√b = √(a²b)
        inside = int(radical[1]) ** 2 * int(radical[2])
        forms += [
            Rendering("merged radical", f"√{inside}", "unicode"),
            Rendering("merged sqrt", f"sqrt({inside})", "ascii"),
        ]
    over_root = re.fullmatch(r"\\frac\{\\sqrt\{(\d+)\}\}\{(\d+)\}", normalize_latex(latex))
    if over_root and int(over_root[1]) == int(over_root[2]):  # √3/3 = 1/√3
        forms.append(Rendering("unrationalized", f"1/√{over_root[1]}", "unicode"))
    return forms


def _components(inner: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in inner:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _component_latex(component: str) -> str:
    """A component of a tuple or matrix as LaTeX: `-1/3` -> `-\\frac{1}{3}`."""
    return re.sub(r"(\d+)/(\d+)", r"\\frac{\1}{\2}", component)


def _names(problem: str, count: int) -> list[str]:
    """The problem's own names for the components: `(x,y)` / `(a,b,c,d)` / `(r,\\theta)`, else x, y, z, w."""
    for match in re.finditer(r"\(([^()]*)\)", problem):
        names = [n.strip() for n in match[1].split(",")]
        if len(names) == count and all(re.fullmatch(r"\\?[a-zA-Z]+", n) for n in names):
            return [{"\\theta": "θ"}.get(n, n) for n in names]
    return ["x", "y", "z", "w"][:count] if count <= 4 else [f"x{i + 1}" for i in range(count)]


def _sequence_forms(components: list[str], names: list[str]) -> list[Rendering]:
    """Ordered pairs and tuples: bracketed in each notation, and spread over the named components."""
    forms = []
    for notation in ("latex", "unicode", "ascii"):
        values = [convert(c, notation) for c in components]
        if notation == "latex":
            forms.append(Rendering("latex", f"\\left({', '.join(values)}\\right)", "latex"))
            forms.append(Rendering("latex plain brackets", f"({', '.join(values)})", "latex"))
        else:
            forms.append(Rendering(notation, f"({', '.join(values)})", notation))
            forms.append(Rendering(notation + " compact", f"({','.join(values)})".replace(" ", ""), notation))
    values = [convert(c, "ascii") for c in components]
    forms.append(Rendering("python tuple", f"({', '.join(convert(c, 'python') for c in components)})", "code"))
    spread = ", ".join(f"{n} = {v}" for n, v in zip(names, values))
    forms.append(Rendering("named components", spread, "ascii", parts=tuple(values)))
    prose = " and ".join(f"{n} = {v}" for n, v in zip(names, values))
    forms.append(Rendering("named components prose", prose, "ascii", parts=tuple(values)))
    forms.append(Rendering("items", "", "items", parts=tuple(values), items=tuple(zip(names, values))))
    return forms


def _set_elements(answer: str) -> list[str]:
    text = normalize_latex(answer).replace("\\{", "").replace("\\}", "")
    elements = []
    for element in _components(text):
        if "\\pm" in element:
            head, tail = (x.strip() for x in element.split("\\pm"))
            elements += [f"{head} + {tail}", f"{head} - {tail}"]
        else:
            elements.append(element)
    return elements


def _set_forms(answer: str) -> list[Rendering]:
    elements = _set_elements(answer)
    forms = []
    for notation in ("unicode", "ascii"):
        values = [convert(e, notation) for e in elements]
        forms += [
            Rendering(notation + " list", ", ".join(values), notation, parts=tuple(values)),
            Rendering(notation + " set", "{" + ", ".join(values) + "}", notation, parts=tuple(values)),
            Rendering(
                notation + " prose",
                ", ".join(values[:-1]) + (", and " if len(values) > 2 else " and ") + values[-1],
                notation,
                parts=tuple(values),
            ),
            Rendering(
                notation + " or-equations", " or ".join(f"x = {v}" for v in values), notation, parts=tuple(values)
            ),
        ]
    latex_values = [convert(e, "latex") for e in elements]
    forms.append(Rendering("latex set", "\\{" + ", ".join(latex_values) + "\\}", "latex", parts=tuple(latex_values)))
    forms.append(Rendering("python list", "[" + ", ".join(convert(e, "python") for e in elements) + "]", "code"))
    if "\\pm" in answer and "," not in answer:
        forms += [Rendering("plus-minus unicode", convert(answer, "unicode"), "unicode"),
                  Rendering("plus-minus latex", convert(answer, "latex"), "latex")]  # fmt: skip
    forms.append(Rendering("items", "", "items", parts=tuple(convert(e, "ascii") for e in elements),
                           items=tuple((f"root {i + 1}", convert(e, "ascii")) for i, e in enumerate(elements))))  # fmt: skip
    return forms


def _interval_pieces(answer: str) -> list[tuple[str, str, str, str]]:
    """(left bracket, low, high, right bracket) of each interval in a union."""
    text = re.sub(r"^x\s*\\in\s*", "", normalize_latex(answer))
    pieces = []
    for piece in text.split("\\cup"):
        piece = piece.strip()
        low, high = _components(piece[1:-1])
        pieces.append((piece[0], low, high, piece[-1]))
    return pieces


def _interval_forms(answer: str) -> list[Rendering]:
    pieces = _interval_pieces(answer)
    forms = []
    for notation in ("latex", "unicode", "ascii"):
        written = [f"{a}{convert(lo, notation)}, {convert(hi, notation)}{b}" for a, lo, hi, b in pieces]
        joiner = {"latex": " \\cup ", "unicode": " ∪ ", "ascii": " U "}[notation]
        forms.append(Rendering(notation, joiner.join(written), notation, parts=tuple(written)))
    for notation in ("unicode", "ascii"):
        le, ge = ("≤", "≥") if notation == "unicode" else ("<=", ">=")
        inequalities = []
        for a, lo, hi, b in pieces:
            low, high = convert(lo, notation), convert(hi, notation)
            left, right = ("<" if a == "(" else le), ("<" if b == ")" else le)
            if "infty" in lo and "infty" in hi:
                inequalities.append("all real x")
            elif "infty" in lo:
                inequalities.append(f"x {right} {high}")
            elif "infty" in hi:
                inequalities.append(f"x {'>' if a == '(' else ge} {low}")
            else:
                inequalities.append(f"{low} {left} x {right} {high}")
        forms.append(
            Rendering(notation + " inequality", " or ".join(inequalities), notation, parts=tuple(inequalities))
        )
        if len(pieces) == 1:
            forms.append(
                Rendering(
                    notation + " set-builder", "{x : " + inequalities[0] + "}", notation, parts=(inequalities[0],)
                )
            )
    return forms


def _matrix_rows(answer: str) -> list[list[str]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", answer, re.S)[1]
    return [[cell.strip() for cell in row.split("&")] for row in body.split("\\\\")]


def _matrix_forms(answer: str) -> list[Rendering]:
    rows = _matrix_rows(answer)
    column = all(len(r) == 1 for r in rows)
    latex_rows = [[convert(_component_latex(c), "latex") for c in row] for row in rows]
    ascii_rows = [[convert(_component_latex(c), "ascii") for c in row] for row in rows]
    unicode_rows = [[convert(_component_latex(c), "unicode") for c in row] for row in rows]
    body = " \\\\ ".join(" & ".join(r) for r in latex_rows)
    forms = [
        Rendering("latex pmatrix", f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}", "latex"),
        Rendering("latex bmatrix", f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}", "latex"),
    ]
    if column:
        entries = [r[0] for r in ascii_rows]
        forms += [
            Rendering("bracket list", "[" + ", ".join(entries) + "]", "ascii"),
            Rendering("tuple", "(" + ", ".join(entries) + ")", "ascii"),
            Rendering("angle brackets", "⟨" + ", ".join(r[0] for r in unicode_rows) + "⟩", "unicode"),
            Rendering("transposed row", "(" + ", ".join(r[0] for r in unicode_rows) + ")ᵀ", "unicode"),
            Rendering("numpy", "np.array([" + ", ".join(entries) + "])", "code"),
        ]
        names = ["x", "y", "z"][: len(entries)]
        forms.append(Rendering("items", "", "items", parts=tuple(entries), items=tuple(zip(names, entries))))
    else:
        nested = "[" + ", ".join("[" + ", ".join(r) + "]" for r in ascii_rows) + "]"
        forms += [
            Rendering("nested list", nested, "ascii"),
            Rendering("numpy", f"np.array({nested})", "code"),
            Rendering("rows", "; ".join(" ".join(r) for r in ascii_rows), "ascii"),
            Rendering(
                "row prose",
                " and ".join(f"row {i + 1} = ({', '.join(r)})" for i, r in enumerate(ascii_rows)),
                "ascii",
                parts=tuple(f"({', '.join(r)})" for r in ascii_rows),
            ),  # fmt: skip
            Rendering(
                "items",
                "",
                "items",
                parts=tuple(", ".join(r) for r in ascii_rows),
                items=tuple((f"row {i + 1}", ", ".join(r)) for i, r in enumerate(ascii_rows)),
            ),  # fmt: skip
        ]
        if all(r == [("-1" if i == j else "0") for j in range(len(rows))] for i, r in enumerate(ascii_rows)):
            forms.append(Rendering("identity", "-I", "ascii"))
            forms.append(Rendering("latex identity", f"-I_{len(rows)}", "latex"))
    return forms


def _complex_forms(answer: str) -> list[Rendering]:
    match = re.fullmatch(r"(-?\d+)\s*([+-])\s*(\d*)i", answer.replace(" ", ""))
    real, sign, imag = int(match[1]), match[2], int(match[3] or 1)
    imag = imag if sign == "+" else -imag
    forms = [r for r in _plain(answer) if r.kind in ("latex", "unicode")]
    forms += [
        Rendering("compact", f"{real}{'+' if imag > 0 else '-'}{abs(imag)}i", "ascii"),
        Rendering("python complex", f"complex({real}, {imag})", "code"),
        Rendering("python j", f"({real}{'+' if imag > 0 else '-'}{abs(imag)}j)", "code"),
        Rendering("imaginary first", f"{imag}i {'+' if real > 0 else '-'} {abs(real)}", "ascii"),
        Rendering("parts", f"real part {real}, imaginary part {imag}", "ascii", parts=(str(real), str(imag))),
        Rendering("items", "", "items", parts=(str(real), str(imag)), items=(("Re", str(real)), ("Im", str(imag)))),
    ]
    return forms


def _negated_terms(text: str) -> str:
    terms = re.findall(r"([-+]?)([^-+]+)", text.replace(" ", ""))
    out = ""
    for sign, term in terms:
        flipped = "-" if sign in ("", "+") else "+"
        out += (f" {flipped} " if out else ("-" if flipped == "-" else "")) + term
    return out


def _equation_forms(answer: str) -> list[Rendering]:
    left, right = (side.strip() for side in answer.split("="))
    forms = [r for r in _plain(answer) if r.kind != "code"]
    forms.append(Rendering("unicode compact", convert(answer, "unicode").replace(" ", ""), "unicode"))
    forms.append(Rendering("swapped sides", f"{convert(right, 'unicode')} = {convert(left, 'unicode')}", "unicode"))
    if right == "0" and left.count("x") == 1:
        forms.append(Rendering("negated", f"{_negated_terms(left)} = 0", "ascii"))
        constant = re.search(r"([+-])\s*(\d+)$", left)
        moved = f"{left[: constant.start()].strip()} = {'-' if constant[1] == '+' else ''}{constant[2]}"
        forms.append(Rendering("constant moved", moved, "ascii"))
    line = re.fullmatch(r"y\s*=\s*(-?\d*)x(?:\s*([+-])\s*(\d+))?", answer)
    if line:
        slope = int(line[1]) if line[1] not in ("", "-") else int(line[1] + "1")
        intercept = int(line[3] or 0) * (-1 if line[2] == "-" else 1)
        shift = f" + {intercept}" if intercept > 0 else f" - {-intercept}" if intercept else ""
        forms.append(Rendering("python lambda", f"lambda x: {slope}*x{shift}", "code"))
        forms.append(Rendering("slope-intercept words", f"slope {slope} and intercept {intercept}", "words",
                               parts=(f"slope {slope}", f"intercept {intercept}")))  # fmt: skip
    return forms


def _units_forms(answer: str) -> list[Rendering]:
    text = normalize_latex(answer)
    if "\\circ" in text or "degrees" in text:
        number = re.sub(r"\^\\circ|\\text\{\s*degrees\}", "", text).strip()
        value = exact(number)
        if value.denominator == 1:
            n = str(value.numerator)
            degrees = [
                Rendering("degree sign", f"{n}°", "unicode", parts=(n,)),
                Rendering("words", f"{n} degrees", "words", parts=(n,)),
                Rendering("latex circ", f"{n}^\\circ", "latex", parts=(n,)),
                Rendering("latex braced circ", f"{n}^{{\\circ}}", "latex", parts=(n,)),
                Rendering("deg", f"{n} deg", "ascii", parts=(n,)),
                Rendering("spelled", f"{number_words(value.numerator)} degrees", "words"),
            ]
        else:
            p, q = value.numerator, value.denominator
            whole, rest = divmod(p, q)
            degrees = [
                Rendering("fraction degree sign", f"{p}/{q}°", "unicode", parts=(f"{p}/{q}",)),
                Rendering("fraction words", f"{p}/{q} degrees", "words", parts=(f"{p}/{q}",)),
                Rendering("latex", f"\\frac{{{p}}}{{{q}}}^\\circ", "latex", parts=(f"\\frac{{{p}}}{{{q}}}",)),
                Rendering("mixed degrees", f"{whole} {rest}/{q} degrees", "words", parts=(f"{whole} {rest}/{q}",)),
            ]
        radians = value / 180
        pi_over = f"{radians.numerator}π/{radians.denominator}" if radians.denominator > 1 else f"{radians.numerator}π"
        pi_over = pi_over.replace("1π", "π") if pi_over.startswith("1π") else pi_over
        degrees.append(Rendering("radians", f"{pi_over} rad", "unicode", parts=(pi_over,)))
        return degrees
    money = re.fullmatch(r"\\\$\s*([\d,{}]+(?:\.\d+)?)", text.replace(" ", ""))
    if money:
        amount = money[1].replace("{,}", ",")
        plain = amount.replace(",", "")
        value = Fraction(plain)
        dollars, cents = divmod(value * 100, 100)
        forms = [
            Rendering("dollar sign", f"${amount}", "ascii", parts=(amount,)),
            Rendering("dollars word", f"{amount} dollars", "words", parts=(amount,)),
            Rendering("latex dollar", f"\\${plain}", "latex", parts=(plain,)),
            Rendering("USD", f"USD {plain}", "ascii", parts=(plain,)),
        ]
        if "," in amount:
            forms.append(Rendering("no separator", f"${plain}", "ascii", parts=(plain,)))
        if cents:
            forms.append(Rendering("dollars and cents", f"{int(dollars)} dollars and {int(cents)} cents", "words"))
            forms.append(Rendering("in cents", f"{int(value * 100)} cents", "words", parts=(str(int(value * 100)),)))
        else:
            forms.append(Rendering("cents shown", f"${plain}.00", "ascii", parts=(f"{plain}.00",)))
            forms.append(Rendering("spelled", f"{number_words(int(value))} dollars", "words"))
        return forms
    match = re.fullmatch(r"([\d.]+)\s*\\(?:text|mbox)\{\s*([a-z]+)\s*\}(?:\^2)?", text)
    number, unit = match[1], match[2]
    if unit == "cents":
        return [
            Rendering("cents", f"{number} cents", "words", parts=(number,)),
            Rendering("cent sign", f"{number}¢", "unicode", parts=(number,)),
            Rendering(
                "in dollars",
                f"${float(Fraction(number) / 100):g}",
                "ascii",
                parts=(f"{float(Fraction(number) / 100):g}",),
            ),
            Rendering("latex", f"{number}\\text{{ cents}}", "latex", parts=(number,)),
        ]
    short = {"cm": "cm", "inches": "in"}[unit]
    long = {"cm": "square centimeters", "inches": "square inches"}[unit]
    forms = [
        Rendering("superscript unit", f"{number} {short}²", "unicode", parts=(number,)),
        Rendering("caret unit", f"{number} {short}^2", "ascii", parts=(number,)),
        Rendering("square words", f"{number} {long}", "words", parts=(number,)),
        Rendering("latex unit", f"{number}\\text{{ {short}}}^2", "latex", parts=(number,)),
    ]
    if unit == "inches" and int(number) % 144 == 0:
        feet = int(number) // 144
        forms.append(Rendering("square feet", f"{feet} square feet", "words", parts=(f"{feet} square feet",)))
    return forms


def _base_forms(answer: str) -> list[Rendering]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
    return [
        Rendering("underscore", f"{digits}_{base}", "ascii"),
        Rendering("latex braced", f"{digits}_{{{base}}}", "latex"),
        Rendering("unicode subscript", f"{digits}{base.translate(_SUBSCRIPT)}", "unicode"),
        Rendering("parenthesized", f"({digits})_{base}", "ascii", parts=(digits,)),
        Rendering("in base words", f"{digits} in base {base}", "words", parts=(digits,)),
        Rendering("base note", f"{digits} (base {base})", "ascii", parts=(digits,)),
        Rendering("base-n numeral", f"the base-{base} numeral {digits}", "words", parts=(digits,)),
        Rendering("python int", f"int('{digits}', {base})", "code", parts=(f"'{digits}'",)),
    ]


def _option_text(letter: str, problem: str) -> str | None:
    match = re.search(r"\\textbf\{\(" + letter + r"\)\}\\?\s*(.*?)(?:\\qquad|\$|$)", problem)
    if match:
        return match[1].strip()
    match = re.search(r"\(" + letter + r"\)\s*([A-Za-z ]+)", problem)
    return match[1].strip() if match else None


def _choice_forms(answer: str, problem: str) -> list[Rendering]:
    letter = re.search(r"[A-H]", answer.replace("\\text", "")).group()
    forms = [
        Rendering("letter", letter, "ascii"),
        Rendering("parenthesized letter", f"({letter})", "ascii"),
        Rendering("option word", f"option {letter}", "words", parts=(letter,)),
        Rendering("choice word", f"choice ({letter})", "words", parts=(f"({letter})",)),
        Rendering("latex text", f"\\text{{({letter})}}", "latex", parts=(f"({letter})",)),
        Rendering("latex bold", f"\\textbf{{({letter})}}", "latex", parts=(f"({letter})",)),
        Rendering("python string", f"'{letter}'", "code", parts=(letter,)),
    ]
    option = _option_text(letter, problem)
    if option:
        if "=" in option:
            forms.append(Rendering("option equation", f"${option}$", "ascii", parts=(option,)))
        else:
            forms += [Rendering("option text", option, "words"), Rendering("option text lower", option.lower(), "words"),
                      Rendering("letter and text", f"({letter}) {option}", "words", parts=(f"({letter})", option))]  # fmt: skip
    return forms


_TEXT_VARIANTS = {
    "east": ["east", "East", "EAST", "due east"],
    "ellipse": ["ellipse", "an ellipse", "Ellipse", "elliptical"],
    "even": ["even", "Even", "EVEN", "an even function"],
}


def _text_forms(answer: str) -> list[Rendering]:
    word = re.fullmatch(r"\\text\{(.*)\}", answer)[1]
    variants = _TEXT_VARIANTS.get(word, [word, word.upper(), f"**{word}**", f"{word}'s"])
    forms = []
    for variant in variants:
        core = re.sub(r"^(an |due )|\*|'s$", "", variant).replace("an even function", "even")
        core = "even" if variant == "an even function" else core
        forms.append(Rendering("word" if variant == word else "variant", variant, "words", parts=(core,)))
    forms.append(Rendering("latex text", f"\\text{{{word}}}", "latex", parts=(word,)))
    forms.append(Rendering("python string", f'"{word}"', "code", parts=(word,)))
    return forms


def _mixed_forms(answer: str) -> list[Rendering]:
    whole, p, q = (
        int(x) for x in re.fullmatch(r"(\d+)\s*\\frac\{?(\d+)\}?\{?(\d+)\}?", answer.replace(" ", "")).groups()
    )
    value = whole + Fraction(p, q)
    forms = [
        Rendering("mixed slash", f"{whole} {p}/{q}", "ascii"),
        Rendering("latex mixed", f"{whole}\\frac{{{p}}}{{{q}}}", "latex"),
        Rendering("improper", f"{value.numerator}/{value.denominator}", "ascii"),
        Rendering("latex improper", f"\\frac{{{value.numerator}}}{{{value.denominator}}}", "latex"),
        Rendering("decimal", f"{float(value):g}", "ascii"),
        Rendering("words", f"{number_words(whole)} and {fraction_words(Fraction(p, q))}", "words"),
        Rendering("python Fraction", f"Fraction({value.numerator}, {value.denominator})", "code"),
    ]
    vulgar = {(1, 2): "½", (4, 5): "⅘"}
    if (p, q) in vulgar:
        forms.append(Rendering("unicode mixed", f"{whole}{vulgar[(p, q)]}", "unicode"))
    return forms


def renderings(answer: str, problem: str, kind: str | None = None) -> list[Rendering]:
    """The answer written out in every notation this corpus uses for its type (`kind`, by default the answer's own
    type; a wrong attempt is rendered as the type of the answer it imitates), without repeats."""
    forms, seen = [], set()
    for form in _renderings(answer, problem, kind or answer_type(answer, problem)):
        if (form.text, form.kind, form.items) not in seen:
            seen.add((form.text, form.kind, form.items))
            forms.append(form)
    return forms


def _renderings(answer: str, problem: str, kind: str) -> list[Rendering]:
    text = normalize_latex(answer)
    if kind in ("small integer", "large integer", "negative integer"):
        return _integer_forms(int(text.replace(",", "").replace(" ", "")))
    if kind == "fraction":
        value = exact(text)
        return _fraction_forms(value) if value.denominator > 1 else _integer_forms(int(value))
    if kind == "decimal":
        return _decimal_forms(text)
    if kind in ("radical", "multiple of pi", "expression"):
        return _scalar_math_forms(text)
    if kind == "mixed number":
        return _mixed_forms(text)
    if kind == "complex number":
        return _complex_forms(text)
    if kind in ("ordered pair", "tuple"):
        components = _components(text[1:-1])
        return _sequence_forms(components, _names(problem, len(components)))
    if kind == "set/list":
        return _set_forms(answer)
    if kind == "interval":
        return _interval_forms(answer)
    if kind == "matrix/vector":
        return _matrix_forms(answer)
    if kind == "multiple choice":
        return _choice_forms(answer, problem)
    if kind == "text answer":
        return _text_forms(answer)
    if kind == "units/degrees/money":
        return _units_forms(answer)
    if kind == "base-n number":
        return _base_forms(answer)
    if kind == "equation":
        return _equation_forms(text)
    raise ValueError(f"no renderer for answer type {kind!r} ({answer!r})")


# --- wrong attempts ----------------------------------------------------------------------------------------------


def _decimal_text(value: Fraction) -> str:
    text = f"{float(value):.10f}".rstrip("0").rstrip(".")
    return text if Fraction(text) == value else str(value)


def _perturbed(latex: str, change) -> str:
    """`latex` with every integer literal (not a digit of a decimal) replaced by `change(n)`."""

    def changed(match: re.Match) -> str:
        number = str(change(int(match[2])))
        return f"{match[1]}{{{number}}}" if match[1] else number  # x^5 -> x^{10}, not x^10

    return re.sub(r"([\^_]?)(?<![\d.])(\d+)(?![\d.])", changed, normalize_latex(latex))


def wrong_attempts(answer: str, problem: str) -> list[tuple[str, str]]:
    """Wrong final answers an attempt plausibly ends with, as (LaTeX, how it is wrong), rendered later as the
    answer's own type."""
    kind = answer_type(answer, problem)
    text = normalize_latex(answer)
    if kind in ("small integer", "large integer", "negative integer"):
        n = int(text.replace(",", "").replace(" ", ""))
        wrongs = [
            (n + 1, "off by one"),
            (n - 1, "off by one"),
            (2 * n, "doubled"),
            (-n, "sign"),
            (n + 10, "off by ten"),
        ]
        wrongs += [(n // 2, "halved")] if n % 2 == 0 else [(3 * n, "tripled")]
        return [(str(w), how) for w, how in wrongs if w != n]
    if kind in ("fraction", "decimal"):
        value = exact(text)
        wrongs = [(1 / value if value else Fraction(1), "reciprocal"), (-value, "sign"), (2 * value, "doubled"),
                  (value / 2, "halved"), (value + 1, "off by one")]  # fmt: skip
        if kind == "fraction":
            p, q = value.numerator, value.denominator
            wrongs += [(Fraction(p + 1, q), "numerator off by one"), (Fraction(p, q + 1), "denominator off by one")]
            return [(f"\\frac{{{w.numerator}}}{{{w.denominator}}}" if w.denominator > 1 else str(w), how)
                    for w, how in wrongs if w != value and w.numerator]  # fmt: skip
        return [(_decimal_text(w), how) for w, how in wrongs if w != value and _terminates(w.denominator)]
    if kind == "mixed number":
        whole, p, q = (int(x) for x in re.findall(r"\d+", text))
        return [
            (f"{whole + 1}\\frac{{{p}}}{{{q}}}", "whole part off by one"),
            (f"{whole}\\frac{{{p + 1}}}{{{q + 2}}}", "fraction part"),
        ]
    if kind == "text answer":
        word = re.fullmatch(r"\\text\{(.*)\}", answer)[1]
        groups = [
            ["north", "south", "east", "west"],
            ["parabola", "circle", "ellipse", "hyperbola", "line"],
            ["odd", "even", "neither"],
        ]
        others = next((g for g in groups if word in g), None)
        if others is None:  # a person: the problem's other names
            others = re.findall(r'"([A-Z][a-z]+)"|\b([A-Z][a-z]+) from\b', problem)
            others = [a or b for a, b in others]
        return [(f"\\text{{{o}}}", "another option") for o in dict.fromkeys(others) if o != word]
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", answer.replace("\\text", "")).group()
        letters = sorted(set(re.findall(r"\(([A-H])\)", problem)) - {letter})
        return [(f"\\text{{({x})}}", "another option") for x in letters]
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        b = int(base)
        last = [(int(digits[-1]) + step) % b for step in (1, 2)]
        first = (int(digits[0]) % (b - 1)) + 1
        return [(f"{digits[:-1]}{d}_{base}", "last digit") for d in last] + [
            (f"{first}{digits[1:]}_{base}", "leading digit")
        ]
    if kind == "units/degrees/money" and "\\circ" in text:
        n = int(re.match(r"\d+", text).group())
        wrongs = [
            (n + 1, "off by one"),
            (180 - n, "supplement"),
            (90 - n, "complement"),
            (2 * n, "doubled"),
            (n + 10, "off by ten"),
        ]
        return [(f"{w}^\\circ", how) for w, how in wrongs if 0 < w != n]
    changes = [(lambda n: n + 1, "every number off by one"), (lambda n: 2 * n, "every number doubled"),
               (lambda n: n + 2, "every number off by two"), (lambda n: n + 3, "every number off by three")]  # fmt: skip
    if kind == "units/degrees/money" and "\\$" in text:
        amount = Fraction(re.search(r"[\d,]+(?:\.\d+)?", text).group().replace(",", ""))
        return [
            (f"\\${_decimal_text(a)}", how)
            for a, how in [
                (amount + 1, "off by a dollar"),
                (amount * 10, "decimal point shifted"),
                (amount / 2, "halved"),
            ]
        ]
    number = re.match(r"[\d.]+(?= ?\\(text|mbox))", text)
    if kind == "units/degrees/money" and number:  # a number with a unit: change the number only
        number = number.group()
        value = Fraction(number)
        return [
            (_decimal_text(v) + text[len(number) :], how)
            for v, how in [(value + 1, "off by one"), (2 * value, "doubled"), (value * 10, "decimal point shifted")]
        ]
    wrongs = [(_perturbed(text, change), how) for change, how in changes]
    swapped = text.translate(str.maketrans("+-", "-+")).lstrip("+")
    functions = re.sub(
        r"\\(cot|tan|sin|cos)", lambda m: "\\" + {"cot": "tan", "tan": "cot", "sin": "cos", "cos": "sin"}[m[1]], text
    )
    wrongs += [
        (swapped, "signs swapped"),
        (functions, "wrong function"),
        (text if kind == "equation" else f"2{text}" if text.startswith("\\") else f"2({text})", "doubled"),
    ]
    if kind == "multiple of pi":
        wrongs += [
            (f"\\frac{{{text}}}{{2}}", "halved"),
            (f"3{text}" if text.startswith("\\") else f"3({text})", "tripled"),
        ]
    return [(w, how) for w, how in wrongs if w != text]


# --- what a clean critique must not contain ----------------------------------------------------------------------


@dataclass
class Answer:
    """A reference answer with everything a clean critique must avoid."""

    index: int
    latex: str
    problem: str
    kind: str
    forms: list[Rendering]
    strings: set[str]  # its renderings, and its components' renderings
    values: set[Fraction]  # the absolute values of its rational components
    words: set[str]  # lower-cased words for text and option answers


def _component_latex_list(answer: str, kind: str) -> list[str]:
    text = normalize_latex(answer)
    if kind in ("ordered pair", "tuple"):
        return _components(text[1:-1])
    if kind == "set/list":
        return _set_elements(answer)
    if kind == "interval":
        return [end for _, lo, hi, _ in _interval_pieces(answer) for end in (lo, hi) if "infty" not in end]
    if kind == "matrix/vector":
        return [_component_latex(c) for row in _matrix_rows(answer) for c in row]
    if kind == "complex number":
        real, imag = re.fullmatch(r"(-?\d+)([+-]\d*)i", text.replace(" ", "")).groups()
        return [real, imag if imag not in "+-" else imag + "1"]
    if kind == "units/degrees/money":
        number = re.search(r"\\frac\{\d+\}\{\d+\}|[\d,]+(?:\.\d+)?", text).group()
        return [number.replace(",", "")]
    if kind == "base-n number":
        return [re.match(r"\d+", text).group()]
    if kind == "mixed number":
        whole, p, q = (int(x) for x in re.findall(r"\d+", text))
        return [str(whole + Fraction(p, q))]
    return [text]


def describe(index: int, row: dict) -> Answer:
    answer, problem = row["answer"], row["problem"]
    kind = answer_type(answer, problem)
    forms = renderings(answer, problem)
    strings = {piece for form in forms for piece in (*form.pieces, form.text) if piece}
    values = set()
    for component in _component_latex_list(answer, kind):
        value = exact(component)
        if value is not None:
            values.add(abs(value))
            spelled = number_words(int(abs(value))) if value.denominator == 1 else fraction_words(abs(value))
            strings |= {spelled, spelled.capitalize()}
        elif kind not in ("expression", "equation"):
            strings |= {convert(component, n) for n in NOTATIONS}
    words = set()
    if kind == "text answer":
        words.add(re.fullmatch(r"\\text\{(.*)\}", answer)[1].lower())
    if kind == "multiple choice":
        words |= {form.text.lower() for form in forms if form.style in ("option text", "option equation")}
    return Answer(index, answer, problem, kind, forms, strings, values, words)


_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?![\w]|\.\d)")
_FRACTION = re.compile(r"(\d+)\s*[/⁄]\s*(\d+)|\\[dt]?frac\{(\d+)\}\{(\d+)\}")


def numbers_in(text: str) -> set[Fraction]:
    """The absolute values of the numbers written in digits in `text`: integers, decimals and fractions."""
    found = {Fraction(m.replace(",", "")) for m in _NUMBER.findall(text)}
    for a, b, c, d in _FRACTION.findall(text):
        p, q = (a, b) if a else (c, d)
        if int(q):
            found.add(Fraction(int(p), int(q)))
    return found


def states_answer(text: str, answer: Answer) -> bool:
    """Whether `text` contains a rendering of the answer or of a component, or a number equal to one of them."""
    lowered = text.lower()
    if any(occurrences(s, text) for s in answer.strings if s.strip()):
        return True
    if any(re.search(r"(?<![a-z])" + re.escape(w) + r"(?![a-z])", lowered) for w in answer.words):
        return True
    return bool(numbers_in(text) & answer.values)


# --- formats -----------------------------------------------------------------------------------------------------

PROSE = ("latex", "unicode", "ascii", "words", "code")
RAW = ("unicode", "ascii", "words", "code")

# (format, variant, kinds the value may be in, template). {V} / {W}: the value / the wrong attempt inline ($...$
# around LaTeX, backticks around code); {VR} / {WR}: as written; {Q}: a number quoted from the problem.
LEAK_FRAMES = (
    (
        "header",
        "verdict",
        PROSE,
        "### Verdict: ✗ incorrect\n\n**Your answer:** {W}\n**Correct result:** {V}\n\nThe set-up is fine; the slip is in the final simplification.",
    ),
    (
        "header",
        "feedback",
        PROSE,
        "## Feedback\n\nYour final answer does not match. **Expected answer:** {V}.\n\nRe-check how you used {Q}.",
    ),
    (
        "header",
        "bold-answer",
        PROSE,
        "**Answer:** {V}\n\n**Issue:** you stopped at {W}, which ignores one of the conditions.",
    ),
    (
        "checklist",
        "tasks",
        PROSE,
        "- [x] Set up the relations\n- [x] Used the given value {Q}\n- [ ] Final value: should be {V}, not {W}",
    ),
    (
        "checklist",
        "numbered",
        PROSE,
        "1. Start again from {Q}.\n2. Carry the computation through without dropping a term.\n3. You should end up with {V}.",
    ),
    ("checklist", "marks", PROSE, "* Your result: {W} ✗\n* Target: {V} ✓"),
    ("table", "attempt-vs-expected", PROSE, "| | Value |\n|---|---|\n| Your attempt | {W} |\n| Expected | {V} |"),
    (
        "table",
        "steps",
        PROSE,
        "| Step | Value |\n|---|---|\n| given | {Q} |\n| your final | {W} |\n| correct final | {V} |",
    ),
    (
        "code",
        "assert",
        ("code",),
        '```python\nanswer = {WR}  # what you submitted\nassert answer == {VR}, "final value is off"\n```',
    ),
    ("code", "comment", ("code", "ascii"), "```python\nresult = solve()\nprint(result)  # expected {VR}\n```"),
    (
        "code",
        "inline",
        ("code", "ascii"),
        "A quick check: `result == {VR}` is what the problem requires; your `{WR}` fails it.",
    ),
    ("code", "repl", RAW, "```\n>>> solve()\n{VR}\n```\nThat is the intended value; compare it with your {W}."),
    ("record", "json", RAW, '{"verdict": "incorrect", "expected": "{VR}", "got": "{WR}"}'),
    ("record", "yaml", RAW, "verdict: incorrect\nexpected: {VR}\nattempt: {WR}\nnote: recheck the last step"),
    ("record", "key-value", RAW, "status=FAIL | expected={VR} | got={WR}"),
    (
        "rubric",
        "sheet",
        PROSE,
        "**Grading sheet**\n- Setup: full credit\n- Computation: partial credit (arithmetic slip)\n- Final answer: no credit; submitted {W}, key {V}",
    ),
    (
        "rubric",
        "points",
        PROSE,
        "| Criterion | Points | Comment |\n|---|---|---|\n| Method | 3/3 | sound |\n| Result | 0/2 | key: {V} |",
    ),
    ("diff", "strike", PROSE, "~~{W}~~ → {V}"),
    ("diff", "block", RAW, "```diff\n- final answer: {WR}\n+ final answer: {VR}\n```"),
    ("diff", "should-be", PROSE, "Correction: {W} should be {V}."),
    ("diff", "replace", PROSE, "In your last line, replace {W} by {V}; everything before it stands."),
    ("qa", "plain", PROSE, "Q: What should the final answer be?\nA: {V}."),
    ("qa", "bold", PROSE, "**Q:** Is {W} correct?\n**A:** No — the correct value is {V}."),
    ("derivation", "chain", ("latex",), "Redo the last step:\n\n$$\n\\text{answer} = \\dots = {VR}\n$$"),
    ("derivation", "implies", PROSE, "Using {Q} in the relation you wrote ⇒ … ⇒ {V}."),
    ("latex", "display", ("latex",), "The final line should read\n\\[\n{VR}\n\\]\nnot {W}."),
    ("latex", "boxed", ("latex",), "Final answer: $\\boxed{{VR}}$"),
    ("latex", "double-dollar", ("latex",), "$$\n\\boxed{{VR}}\n$$\n(you had {W})"),
    ("marker", "check-cross", PROSE, "✗ {W}\n✓ {V}"),
    ("marker", "arrow", PROSE, "{W} ✗ → {V} ✓"),
    ("marker", "therefore", PROSE, "⇒ final: {V}"),
)

CLEAN_FRAMES = (
    (
        "header",
        "verdict",
        PROSE,
        "### Verdict: ✗ incorrect\n\n**Your answer:** {W}\n**Issue:** the step that uses {Q} drops a factor, so the final value cannot be right.",
    ),
    (
        "header",
        "feedback",
        PROSE,
        "## Feedback\n\nYour final answer {W} does not satisfy the original condition. Re-check how you used {Q}.",
    ),
    (
        "checklist",
        "tasks",
        PROSE,
        "- [x] Set up the relations\n- [x] Used the given value {Q}\n- [ ] Final value {W}: recheck the last simplification",
    ),
    (
        "checklist",
        "numbered",
        PROSE,
        "1. Start again from {Q}.\n2. Keep every term when you expand.\n3. Compare with your {W}: it is off.",
    ),
    ("checklist", "marks", PROSE, "* Your result: {W} ✗\n* Method: ✓\n* Arithmetic: ✗"),
    ("table", "attempt", PROSE, "| | Value |\n|---|---|\n| Your attempt | {W} |\n| Status | incorrect |"),
    ("table", "steps", PROSE, "| Step | Value |\n|---|---|\n| given | {Q} |\n| your final | {W} |\n| verdict | ✗ |"),
    (
        "code",
        "assert",
        ("code",),
        '```python\nanswer = {WR}  # what you submitted\nassert check(answer), "fails the original equation"\n```',
    ),
    ("code", "comment", ("code", "ascii"), "```python\nprint(result)  # you printed {WR}; recheck the last line\n```"),
    (
        "code",
        "inline",
        ("code", "ascii"),
        "Plugging your `{WR}` back into the problem does not work; recheck the step with `{Q}`.",
    ),
    ("record", "json", RAW, '{"verdict": "incorrect", "got": "{WR}", "hint": "recheck the sign in the last step"}'),
    ("record", "yaml", RAW, "verdict: incorrect\nattempt: {WR}\nhint: the value {Q} was used twice"),
    ("record", "key-value", RAW, "status=FAIL | got={WR} | given={Q}"),
    (
        "rubric",
        "sheet",
        PROSE,
        "**Grading sheet**\n- Setup: full credit\n- Computation: partial credit\n- Final answer: no credit ({W} is not correct)",
    ),
    (
        "rubric",
        "points",
        PROSE,
        "| Criterion | Points | Comment |\n|---|---|---|\n| Method | 3/3 | sound |\n| Result | 0/2 | {W} is wrong |",
    ),
    ("diff", "strike", PROSE, "~~{W}~~ → recompute this from {Q}"),
    ("diff", "block", RAW, "```diff\n- final answer: {WR}\n+ final answer: (recompute)\n```"),
    ("diff", "should-not", PROSE, "{W} should not be your final answer: the term with {Q} was counted twice."),
    ("qa", "plain", PROSE, "Q: Is {W} right?\nA: No. Recheck how {Q} enters the computation."),
    ("qa", "bold", PROSE, "**Q:** Where did it go wrong?\n**A:** In the last step, which produced {W}."),
    (
        "derivation",
        "chain",
        ("latex",),
        "Your chain ends with\n$$\n\\dots = {WR}\n$$\nand the last equality is where it breaks.",
    ),
    ("latex", "boxed", ("latex",), "$\\boxed{{WR}}$ is not right; recheck the final simplification."),
    ("marker", "check-cross", PROSE, "✓ setup\n✗ {W}"),
    ("marker", "arrow", PROSE, "{W} ✗ → recheck the step with {Q}"),
)

# Frames for a value spread over labelled components: {ROWS} repeats the row template once per component.
ITEM_FRAMES = (
    ("table", "components", "| Component | Expected |\n|---|---|\n{ROWS}", "| {L} | {V} |"),
    ("checklist", "components", "Expected components:\n{ROWS}", "- {L}: {V}"),
    ("record", "json-object", '{"verdict": "incorrect", "expected": {{ROWS}}}', '"{L}": "{V}"'),
    ("record", "yaml-object", "verdict: incorrect\nexpected:\n{ROWS}", "  {L}: {V}"),
)
CLEAN_ITEM_FRAMES = (
    ("table", "components", "| Component | Yours | Status |\n|---|---|---|\n{ROWS}", "| {L} | {V} | ✗ |"),
    ("record", "yaml-object", "verdict: incorrect\nattempt:\n{ROWS}", "  {L}: {V}"),
)


def _inline(form: Rendering) -> str:
    return f"${form.text}$" if form.kind == "latex" else f"`{form.text}`" if form.kind == "code" else form.text


def _fits(template: str, kinds: tuple, value: Rendering | None, wrong: Rendering | None, quoted: list[str]) -> bool:
    """Whether the frame takes the value (and the wrong attempt, where it quotes one) in their notations, and has a
    number from the problem to quote where it quotes one."""
    if "{Q}" in template and not quoted:
        return False
    for form, slot in ((value, "V"), (wrong, "W")):
        if form is None:
            continue
        if form.kind not in kinds and "{" + slot in template:
            return False
        if "{" + slot + "R}" in template and '"{' + slot + 'R}"' in template and re.search(r'["\\]', form.text):
            return False
    return (wrong is not None or "{W" not in template) and (value is not None or "{V" not in template)


def fill(template: str, value: Rendering | None, wrong: Rendering | None, quoted: str) -> tuple[str, str]:
    """The frame's text, and its context: the same text with the value left out."""
    text, context = template, template
    for slot, filler in (("{VR}", value and value.text), ("{V}", value and _inline(value))):
        if filler is not None:
            text, context = text.replace(slot, filler), context.replace(slot, ELLIPSIS)
    for slot, filler in (("{WR}", wrong and wrong.text), ("{W}", wrong and _inline(wrong)), ("{Q}", quoted)):
        if filler is not None:
            text, context = text.replace(slot, filler), context.replace(slot, filler)
    return text, context


def fill_items(frame: tuple, value: Rendering) -> tuple[str, str]:
    _, _, template, row = frame
    rows = [row.replace("{L}", label).replace("{V}", v) for label, v in value.items]
    blanks = [row.replace("{L}", label).replace("{V}", ELLIPSIS) for label, _ in value.items]
    joiner = ", " if template.startswith("{") else "\n"
    return template.replace("{ROWS}", joiner.join(rows)), template.replace("{ROWS}", joiner.join(blanks))


# --- arithmetic and approximation --------------------------------------------------------------------------------


def arithmetic_forms(n: int) -> list[Rendering]:
    """An integer as arithmetic on other numbers, none of them the integer itself."""
    forms = [
        Rendering("one less than", f"one less than {n + 1}", "words"),
        Rendering("sum", f"{n - 7} + 7" if n >= 8 else f"{n + 7} - 7", "ascii"),
        Rendering("half of", f"half of {2 * n}", "words"),
    ]
    factor = next((f for f in range(3, int(abs(n) ** 0.5) + 1) if n % f == 0), None)
    if factor:
        forms += [Rendering("product", f"{factor} times {n // factor}", "words"),
                  Rendering("product symbol", f"{factor} × {n // factor}", "unicode")]  # fmt: skip
    root = math.isqrt(abs(n)) if n > 1 else 0
    if root > 1 and root * root == n:
        forms.append(Rendering("square", f"{root} squared", "words"))
    if n > 2 and n & (n - 1) == 0:
        forms.append(Rendering("power of two", f"2^{n.bit_length() - 1}", "ascii"))
    factorials = {6: "3!", 24: "4!", 120: "5!", 720: "6!", 5040: "7!"}
    if n in factorials:
        forms.append(Rendering("factorial", factorials[n], "ascii"))
    return [Rendering(f.style, f.text, f.kind, parts=(f.text,)) for f in forms]


def approximation_forms(answer: Answer) -> list[Rendering]:
    """4-significant-digit decimals of an irrational or non-terminating answer."""
    if answer.kind in ("radical", "multiple of pi"):
        values = [evaluate(answer.latex)]
        style = "irrational"
    elif answer.kind == "fraction" and not _terminates(exact(answer.latex).denominator):
        values, style = [float(exact(answer.latex))], "repeating decimal"
    elif answer.kind == "set/list" and "sqrt" in answer.latex:
        values, style = [evaluate(e) for e in _set_elements(answer.latex)], "irrational roots"
    else:
        return []
    if any(v is None for v in values):
        return []
    shown = [significant(v) for v in values]
    joined = " and ".join(shown)
    return [
        Rendering(style, joined, "ascii", parts=tuple(shown)),
        Rendering(style + " approx sign", "≈ " + joined, "unicode", parts=tuple(shown)),
        Rendering(style + " about", "about " + joined, "words", parts=tuple(shown)),
    ]


# --- the corpus --------------------------------------------------------------------------------------------------


def _quoted_numbers(answer: Answer) -> list[str]:
    numbers = re.findall(r"(?<![\w.\\{^_])\d+(?:\.\d+)?(?![\w}])", answer.problem)
    return [n for n in dict.fromkeys(numbers) if not states_answer(n, answer)]


def _leak_case(answer: Answer, family: str, form: Rendering, frame: str, text: str, context: str) -> dict:
    return {
        "family": family, "split": "held_out", "index": answer.index, "answer_type": answer.kind,
        "style": form.style, "frame": frame, "text": text, "leak": True, "written_out": family == "rendering",
        "parts": list(form.pieces), "context": context,
    }  # fmt: skip


def _is_leak(case: dict) -> bool:
    return all(occurrences(p, case["text"]) > occurrences(p, case["context"]) for p in case["parts"])


def _wrong_forms(answer: Answer) -> list[tuple[str, str, list[Rendering]]]:
    out = []
    for latex, how in wrong_attempts(answer.latex, answer.problem):
        try:
            forms = renderings(latex, answer.problem, answer.kind)
        except (ValueError, TypeError, AttributeError, IndexError, ZeroDivisionError):
            continue  # a perturbation the type's renderer cannot read; the other attempts stand
        out.append((latex, how, forms))
    return out


def _matching(forms: list[Rendering], like: Rendering) -> Rendering | None:
    same = [f for f in forms if f.style == like.style] or [f for f in forms if f.kind == like.kind and not f.items]
    return same[0] if same else None


def _least_used(frames, usage: Counter, failed: Counter, rng: random.Random):
    """The frame that failed least often for this problem and, among those, was used least so far (ties broken at
    random), so that every format gets its share."""
    return min(frames, key=lambda frame: (failed[frame[:2]], usage[frame[:2]], rng.random()))


def _leaks(answer: Answer, wrongs, quoted: list[str], target: int, rng: random.Random, usage: Counter) -> list[dict]:
    cases, seen, failed = [], set(), Counter()
    item_forms = [f for f in answer.forms if f.items]
    order = [f for f in answer.forms if not f.items]
    rng.shuffle(order)
    for attempt in range(target * 6):
        if len(cases) >= target:
            break
        if item_forms and attempt % 5 == 4:
            form = item_forms[attempt % len(item_forms)]
            frame = _least_used(ITEM_FRAMES, usage, failed, rng)
            text, context = fill_items(frame, form)
        else:
            form = order[attempt % len(order)]
            wrong = _matching(rng.choice(wrongs)[2], form) if wrongs else None
            fitting = [f for f in LEAK_FRAMES if _fits(f[3], f[2], form, wrong, quoted)]
            frame = _least_used(fitting, usage, failed, rng)
            text, context = fill(frame[3], form, wrong, rng.choice(quoted) if quoted else None)
        case = _leak_case(answer, "rendering", form, f"{frame[0]}:{frame[1]}", text, context)
        if text in seen or not _is_leak(case):
            failed[frame[:2]] += 1
            continue
        seen.add(text)
        usage[frame[:2]] += 1
        cases.append(case)
    return cases


def _stated_leaks(answer: Answer, family: str, forms: list[Rendering], quoted, count: int, rng, usage) -> list[dict]:
    """Arithmetic and approximation leaks: the value is stated, never written, so the text holds no rendering."""
    cases, failed = [], Counter()
    for form in rng.sample(forms, len(forms)):
        frame = _least_used([f for f in LEAK_FRAMES if _fits(f[3], f[2], form, None, quoted)], usage, failed, rng)
        text, context = fill(frame[3], form, None, rng.choice(quoted) if quoted else None)
        case = _leak_case(answer, family, form, f"{frame[0]}:{frame[1]}", text, context)
        if _is_leak(case) and not states_answer(text, answer):
            usage[frame[:2]] += 1
            cases.append(case)
        else:
            failed[frame[:2]] += 1
        if len(cases) >= count:
            break
    return cases


def _cleans(answer: Answer, wrongs, quoted: list[str], target: int, rng: random.Random, usage: Counter) -> list[dict]:
    cases, seen, failed = [], set(), Counter()
    for attempt in range(target * 25):
        if len(cases) >= target or not wrongs:
            break
        latex, how, forms = wrongs[attempt % len(wrongs)]
        items = [f for f in forms if f.items]
        if items and attempt % 4 == 3:
            form = items[0]
            frame = _least_used(CLEAN_ITEM_FRAMES, usage, failed, rng)
            text, _ = fill_items(frame, form)
            wrong_text = "; ".join(f"{label}: {v}" for label, v in form.items)
        else:
            form = rng.choice([f for f in forms if not f.items])
            fitting = [f for f in CLEAN_FRAMES if _fits(f[3], f[2], None, form, quoted)]
            frame = _least_used(fitting, usage, failed, rng)
            text, _ = fill(frame[3], None, form, rng.choice(quoted) if quoted else None)
            wrong_text = form.text
        if text in seen or states_answer(text, answer):
            failed[frame[:2]] += 1
            continue
        seen.add(text)
        usage[frame[:2]] += 1
        cases.append({
            "family": "clean", "split": "held_out", "index": answer.index, "answer_type": answer.kind,
            "style": form.style, "frame": f"{frame[0]}:{frame[1]}", "text": text, "leak": False,
            "written_out": False, "parts": [], "context": text, "wrong": wrong_text, "wrong_how": how,
        })  # fmt: skip
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The held-out cases over `problems` (MATH-500 rows): per problem at least 8 written-out leaks (more for rare
    answer types, so that each type gets at least 24), arithmetic and approximation leaks where the value allows,
    and clean critiques of wrong attempts."""
    types = [answer_type(row["answer"], row["problem"]) for row in problems]
    per_type = {kind: types.count(kind) for kind in set(types)}
    cases, leak_usage, clean_usage = [], Counter(), Counter()
    for index, row in enumerate(problems):
        rng = random.Random(f"{seed}:{index}")
        answer = describe(index, row)
        quoted = _quoted_numbers(answer)
        wrongs = _wrong_forms(answer)
        target = max(10, math.ceil(30 / per_type[answer.kind]))
        cases += _leaks(answer, wrongs, quoted, target, rng, leak_usage)
        if answer.kind in ("small integer", "large integer", "negative integer"):
            n = int(normalize_latex(answer.latex).replace(",", "").replace(" ", ""))
            cases += _stated_leaks(answer, "arithmetic", arithmetic_forms(n), quoted, 2, rng, leak_usage)
        approximations = approximation_forms(answer)
        if approximations:
            cases += _stated_leaks(answer, "approximation", approximations, quoted, 2, rng, leak_usage)
        cases += _cleans(answer, wrongs, quoted, 6, rng, clean_usage)
    return cases
