"""A second, independent corpus of answer-leaking and clean critiques over MATH-500, held out from the leak guard.

Why a second corpus: the first one (`leak_corpus.py`) has been looked at and tuned on in full, so it can no longer
measure the answer-leak guard honestly. This one was written without reading the guard (`trl_mulferl/feedback/`), its
tests, the leak benchmark's phrasings or the first corpus's frames and renderings; from `leak_corpus.py` it uses only
`load_problems`, `ANSWER_TYPES`, `answer_type` (the type of a reference answer) and `occurrences` (the count the
scorer uses). Every case is held out (`split == "held_out"`): nobody tunes a rule on it.

Method (different from the first corpus, which filled a value slot of generic one-line frames with renderings):

* Each reference answer is parsed into a value: a scalar is a sum of terms `coefficient * atom` (atoms 1, sqrt(n),
  pi, pi^2, 1/pi, i), compound answers are lists of scalars (pairs, tuples, lists, vectors, matrix rows, interval
  endpoints), the rest are structured by hand (choice letters, words, units, base-n digits, equations, polynomial
  expressions). Renderers written here turn that value into every notation a reviewer uses: digits, English words
  ("three fourths", "negative two"), LaTeX (inline, display, several fraction and radical spellings), Unicode
  (√, π, ², −, ½, ≤, ∞), ASCII (sqrt(3), 3/4, pi/2, x^2), prose lists, inequalities and set-builder for intervals,
  pmatrix/bmatrix/rows for matrices, unit words, choice letters and sentences for text answers.
* Critique templates are written per answer type, several sentences long, as a reviewer of that kind of problem
  writes; the value sits mid-derivation, in a bullet, after a colon, in parentheses, at the end of a question, inside
  `\\boxed{}`, in a code block, after "=" at the end of a worked line, in a correction "X, not Y", in a table. The
  templates also quote the problem's own numbers, intermediate values of the reference solution, step numbers and a
  plausible wrong value.
* Families: "rendering" (the answer written in some notation, `written_out=True`, or an equivalent value in another
  form such as 0.75 for 3/4, `written_out=False`), "arithmetic" (the answer given as a sum, difference, product, half,
  double, "one less than" of numbers that are stated), "approximation" (decimals with at least 3 significant digits,
  mostly of irrational answers) and "clean" (critiques of a wrong attempt that never state the answer: the attempt's
  wrong value -- off by one, sign flipped, digit dropped or appended, a near miss holding the answer's digits, a
  different fraction, a swapped pair -- the problem's numbers, solution intermediates that differ from the answer,
  step numbers and list markers).
* Every case is checked as it is built: a leak's parts occur in its text more often than in its context (the text
  with the value left out); a clean text contains no written form of the answer, no number equal to it (or to an
  element of a list answer, or close to an irrational answer) and no wrong value equal to it. Cases failing a check
  are dropped, never repaired by hand.

Cases are drawn with `random.Random(f"{seed}:{row index}")`: a problem's cases depend only on the seed, its row and
how many problems share its answer type (a rare type gets more written-out cases per problem, so that every type
has at least 25).
Run `python benchmarks/leak_corpus_second.py` for the counts per answer type.
"""

from __future__ import annotations

import math
import random
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences  # noqa: E402


SEED = 20261206

# --- numbers in words --------------------------------------------------------------------------------------------

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINAL = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth"}
_ORDINAL |= {"twelve": "twelfth"}


def number_words(n: int) -> str:
    """English words for an integer: 2220 -> "two thousand two hundred twenty"."""
    if n < 0:
        return "negative " + number_words(-n)
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens] + ("-" + _UNITS[unit] if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _UNITS[hundreds] + " hundred" + (" " + number_words(rest) if rest else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            high, rest = divmod(n, size)
            return number_words(high) + " " + name + (" " + number_words(rest) if rest else "")
    raise AssertionError(n)


def ordinal_words(n: int) -> str:
    """`number_words` as an ordinal: 3 -> "third", 36 -> "thirty-sixth", 100 -> "hundredth"."""
    if n == 100:
        return "hundredth"
    words = number_words(n)
    head, sep, last = max(words.rpartition("-"), words.rpartition(" "), key=lambda split: len(split[0]))
    if last in _ORDINAL:
        last = _ORDINAL[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


def fraction_words(value: Fraction, quarters: bool = False) -> str:
    """A reviewer's words for a rational: 3/4 -> "three fourths" (or "three quarters"), 1/2 -> "one half"."""
    if value < 0:
        return "negative " + fraction_words(-value, quarters)
    p, q = value.numerator, value.denominator
    if q == 1:
        return number_words(p)
    if q == 2:
        return "one half" if p == 1 else number_words(p) + " halves"
    if q == 4 and quarters:
        return "one quarter" if p == 1 else number_words(p) + " quarters"
    if q <= 100 and p < 100:
        return number_words(p) + " " + ordinal_words(q) + ("" if p == 1 else "s")
    return number_words(p) + " over " + number_words(q)


# --- scalar values: sums of coefficient * atom --------------------------------------------------------------------

# Atoms: "1", "pi", "pi2" (pi squared), "1/pi", "i", and an int n > 1 for sqrt(n) (n never a perfect square).
_TOKEN = re.compile(r"\\[dt]?frac|\\sqrt|\\pi|\\cdot|\\times|\d*\.\d+|\d+|[a-zA-Z]|[{}()+\-/^]")


def _clean_latex(latex: str) -> str:
    text = latex
    for noise in ("\\left", "\\right", "\\!", "\\,", "\\ ", "{,}", " "):
        text = text.replace(noise, "")
    return text


def parse_value(latex: str) -> dict | None:
    """The value of a scalar LaTeX answer as {atom: Fraction} in order of appearance, or None when it is not a
    sum of coefficient * atom terms."""
    text = _clean_latex(latex)
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+", text):
        text = text.replace(",", "")
    tokens = _TOKEN.findall(text)
    if "".join(tokens) != text or not tokens:
        return None
    position = [0]

    def peek():
        return tokens[position[0]] if position[0] < len(tokens) else None

    def take():
        position[0] += 1
        return tokens[position[0] - 1]

    def group():
        token = peek()
        if token is not None and token.isdigit() and len(token) > 1:  # \frac34: one digit per argument
            tokens[position[0]] = token[1:]
            return {"1": Fraction(int(token[0]))}
        if token == "{":
            take()
            value = expression()
            if take() != "}":
                raise ValueError
            return value
        return factor()

    def factor():
        token = take()
        if token is None:
            raise ValueError
        if re.fullmatch(r"\d*\.?\d+", token):
            return {"1": Fraction(token)}
        if token.endswith("frac"):
            return divide(group(), group())
        if token == "\\sqrt":
            inside = group()
            if set(inside) != {"1"} or inside["1"].denominator != 1 or inside["1"] < 0:
                raise ValueError
            n = int(inside["1"])
            root = math.isqrt(n)
            return {"1": Fraction(root)} if root * root == n else {n: Fraction(1)}
        if token == "\\pi":
            if peek() == "^":
                take()
                if take() != "2":
                    raise ValueError
                return {"pi2": Fraction(1)}
            return {"pi": Fraction(1)}
        if token == "i":
            return {"i": Fraction(1)}
        if token in "({":
            value = expression()
            if take() != {"(": ")", "{": "}"}[token]:
                raise ValueError
            return value
        raise ValueError

    def term():
        value = factor()
        while peek() is not None and peek() not in "+-)}":
            token = peek()
            if token in ("\\cdot", "\\times"):
                take()
                value = multiply(value, factor())
            elif token == "/":
                take()
                value = divide(value, factor())
            else:
                value = multiply(value, factor())
        return value

    def expression():
        value: dict = {}
        sign = 1
        if peek() in ("-", "+"):
            sign = -1 if take() == "-" else 1
        while True:
            for atom, coefficient in term().items():
                value[atom] = value.get(atom, Fraction(0)) + sign * coefficient
            if peek() not in ("-", "+"):
                return {atom: c for atom, c in value.items() if c} or {"1": Fraction(0)}
            sign = -1 if take() == "-" else 1

    try:
        value = expression()
    except (ValueError, TypeError, ZeroDivisionError):
        return None
    return value if position[0] == len(tokens) and value else None


def multiply(a: dict, b: dict) -> dict:
    if set(a) == {"1"}:
        a, b = b, a
    if set(b) != {"1"}:
        raise ValueError
    return {atom: c * b["1"] for atom, c in a.items()}


def divide(a: dict, b: dict) -> dict:
    if set(b) == {"1"}:
        return {atom: c / b["1"] for atom, c in a.items()}
    if set(b) == {"pi"} and set(a) == {"1"}:
        return {"1/pi": a["1"] / b["pi"]}
    raise ValueError


def numeric(value: dict) -> complex:
    atoms = {"1": 1.0, "pi": math.pi, "pi2": math.pi**2, "1/pi": 1 / math.pi, "i": 1j}
    return sum(float(c) * (atoms[atom] if atom in atoms else math.sqrt(atom)) for atom, c in value.items())


def is_rational(value: dict) -> bool:
    return set(value) <= {"1"}


def is_irrational(value: dict) -> bool:
    return "i" not in value and not is_rational(value)


def _scale(value: dict, factor: Fraction) -> dict:
    return {atom: c * factor for atom, c in value.items()}


def _add(value: dict, number: Fraction) -> dict:
    total = dict(value)
    total["1"] = total.get("1", Fraction(0)) + number
    return {atom: c for atom, c in total.items() if c}


_VULGAR = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (2, 5): "⅖", (3, 5): "⅗"}
_VULGAR |= {(4, 5): "⅘", (1, 6): "⅙", (5, 6): "⅚", (1, 8): "⅛", (3, 8): "⅜", (5, 8): "⅝", (7, 8): "⅞", (1, 9): "⅑"}


def _atom(atom, notation: str, o: dict) -> str:
    if isinstance(atom, int):
        return {
            "latex": f"\\sqrt{atom}" if o.get("compact") and atom < 10 else f"\\sqrt{{{atom}}}",
            "plain": f"sqrt({atom})",
            "ascii": f"sqrt({atom})",
            "unicode": f"√({atom})" if o.get("paren") else f"√{atom}",
            "words": ("the square root of " if o.get("long") else "root ") + number_words(atom),
        }[notation]
    names = {"pi": ("\\pi", "pi", "π", "pi"), "pi2": ("\\pi^2", "pi^2", "π²", "pi squared"), "i": ("i", "i", "i", "i")}
    latex, ascii_, unicode, words = names[atom]
    return {"latex": latex, "plain": ascii_, "ascii": ascii_, "unicode": unicode, "words": words}[notation]


def _fraction(num: str, den: str, notation: str, o: dict) -> str:
    if notation == "latex" and o.get("frac", "frac") != "slash":
        command = "\\" + o.get("frac", "frac")
        if o.get("compact") and len(num) == 1 and len(den) == 1:
            return f"{command}{num}{den}"
        return f"{command}{{{num}}}{{{den}}}"
    if notation == "unicode" and o.get("slash"):
        return f"{num}⁄{den}"
    return f"{num}/{den}"


def _term(c: Fraction, atom, notation: str, o: dict) -> str:
    """One term's magnitude |c| * atom in a notation; the sign is written by `render`."""
    p, q = c.numerator, c.denominator
    if notation == "words":
        if atom == "1":
            return fraction_words(c, o.get("quarters", False))
        if atom == "1/pi":
            return number_words(p) + " over " + ("pi" if q == 1 else number_words(q) + " pi")
        name = _atom(atom, "words", o)
        times = " times " if o.get("long") and isinstance(atom, int) else " "
        numerator = name if p == 1 else number_words(p) + times + name
        return numerator if q == 1 else numerator + " over " + number_words(q)
    if atom == "1":
        if q == 1:
            return str(p)
        if notation == "unicode" and o.get("vulgar") and (p, q) in _VULGAR:
            return _VULGAR[(p, q)]
        return _fraction(str(p), str(q), notation, o)
    if atom == "1/pi":
        pi = _atom("pi", notation, o)
        if notation in ("plain", "ascii") and q != 1:
            return f"{p}/({q}*{pi})"
        return _fraction(str(p), pi if q == 1 else f"{q}{pi}", notation, o)
    name = _atom(atom, notation, o)
    gap = " " if o.get("space") and atom != "i" else ("*" if o.get("star") and atom != "i" else "")
    if q != 1 and o.get("coefficient_first"):
        return _fraction(str(p), str(q), notation, o) + gap + name
    numerator = name if p == 1 else f"{p}{gap}{name}"
    return numerator if q == 1 else _fraction(numerator, str(q), notation, o)


def render(value: dict, notation: str, **o) -> str:
    """A scalar in "latex", "plain" (ASCII that is also valid LaTeX), "ascii", "unicode" or "words"."""
    minus = {"latex": "-", "plain": "-", "ascii": "-", "unicode": "−", "words": o.get("negative", "negative ")}
    text = ""
    for k, (atom, c) in enumerate(value.items()):
        body = _term(abs(c), atom, notation, o)
        if k == 0:
            text = (minus[notation] if c < 0 else "") + body
        elif notation == "words":
            text += (" minus " if c < 0 else " plus ") + body
        elif o.get("tight"):
            text += ("-" if c < 0 else "+") + body
        else:
            text += (f" {minus[notation]} " if c < 0 else " + ") + body
    return text


def _plain_ok(value: dict) -> bool:
    return set(value) <= {"1", "i"}


def _digits_with_commas(n: int, separator: str = ",") -> str:
    return f"{n:,}".replace(",", separator)


# --- renderings --------------------------------------------------------------------------------------------------

# notation -> slots it may fill: "prose" (in a sentence), "math" (inside $...$, \boxed{}, \[...\]), "code".
SLOTS = {
    "latex": ("prose", "math"),
    "plain": ("prose", "math", "code"),
    "ascii": ("prose", "code"),
    "text": ("prose",),
}


def _rendering(style: str, notation: str, raw: str, parts: list[str] | None = None, written_out: bool = True) -> dict:
    parts = list(dict.fromkeys(parts or [raw]))
    return {"style": style, "notation": notation, "raw": raw, "parts": parts, "written_out": written_out}


def _notation(kind: str) -> str:
    return {"latex": "latex", "plain": "plain", "ascii": "ascii", "unicode": "text", "words": "text"}[kind]


def scalar_forms(value: dict) -> list[tuple[str, str, str]]:
    """(style, notation, text) of one scalar, the variants a reviewer writes."""
    forms = [
        ("latex-frac", "latex", render(value, "latex")),
        ("latex-frac-spaced", "latex", render(value, "latex", space=True)),
        ("latex-dfrac", "latex", render(value, "latex", frac="dfrac")),
        ("latex-compact", "latex", render(value, "latex", compact=True)),
        ("latex-slash", "latex", render(value, "latex", frac="slash")),
        ("latex-coefficient-first", "latex", render(value, "latex", coefficient_first=True)),
        ("latex-tight", "latex", render(value, "latex", tight=True)),
        ("ascii", "ascii", render(value, "ascii")),
        ("ascii-star", "ascii", render(value, "ascii", star=True)),
        ("ascii-spaced", "ascii", render(value, "ascii", space=True)),
        ("unicode", "unicode", render(value, "unicode")),
        ("unicode-vulgar", "unicode", render(value, "unicode", vulgar=True)),
        ("unicode-fraction-slash", "unicode", render(value, "unicode", slash=True)),
        ("unicode-paren", "unicode", render(value, "unicode", paren=True)),
        ("words", "words", render(value, "words")),
        ("words-long", "words", render(value, "words", long=True)),
        ("words-quarters", "words", render(value, "words", quarters=True)),
        ("words-minus", "words", render(value, "words", negative="minus ")),
    ]
    if _plain_ok(value):
        forms.append(("plain", "plain", render(value, "plain")))
        forms.append(("plain-tight", "plain", render(value, "plain", tight=True)))
    seen, out = set(), []
    for style, kind, text in forms:
        notation = _notation(kind)
        if notation == "latex" and "\\" not in text and _plain_ok(value):
            notation = "plain"
        if notation == "ascii" and _plain_ok(value):
            notation = "plain"
        if notation == "text" and text.isascii() and not any(ch.isalpha() for ch in text):
            notation = "plain"
        if (text, notation) not in seen:
            seen.add((text, notation))
            out.append((style, notation, text))
    return out


def _integer_renderings(n: int) -> list[dict]:
    out = [
        _rendering("digits", "plain", str(n)),
        _rendering("latex-inline", "latex", str(n)),
        _rendering("words", "text", number_words(n)),
        _rendering("markdown-bold", "text", f"**{n}**", [str(n)]),
        _rendering("inline-code", "text", f"`{n}`", [str(n)]),
    ]
    if n < 0:
        out += [
            _rendering("unicode-minus", "text", f"−{-n}"),
            _rendering("words-minus", "text", "minus " + number_words(-n)),
        ]
    if abs(n) >= 1000:
        out += [
            _rendering("digits-commas", "plain", _digits_with_commas(n)),
            _rendering("latex-thin-space", "latex", _digits_with_commas(n, "\\,")),
            _rendering("latex-braced-comma", "latex", _digits_with_commas(n, "{,}")),
            _rendering("digits-spaces", "text", _digits_with_commas(n, " ")),
        ]
    return out


def _scalar_renderings(answer: str, value: dict) -> list[dict]:
    given = answer.strip()
    if is_rational(value) and value["1"].denominator == 1:
        extra = [_rendering("latex-as-given", "latex", given)] if "\\" in given else []
        return _dedupe(_integer_renderings(int(value["1"])) + extra)
    out = [_rendering("latex-as-given", "latex", given)] if "\\" in given else []
    out += [_rendering(style, notation, text) for style, notation, text in scalar_forms(value)]
    return _dedupe(out)


def _decimal_renderings(answer: str, value: dict) -> list[dict]:
    text = answer.strip()
    sign, body = ("-", text[1:]) if text.startswith("-") else ("", text)
    with_zero = sign + ("0" + body if body.startswith(".") else body)
    whole, _, digits = with_zero.lstrip("-").partition(".")
    spoken = (
        ("negative " if sign else "") + number_words(int(whole)) + " point " + " ".join(_UNITS[int(d)] for d in digits)
    )
    out = [
        _rendering("digits", "plain", text),
        _rendering("digits-leading-zero", "plain", with_zero),
        _rendering("latex-inline", "latex", with_zero.replace(".", "{.}")),
        _rendering("words-point", "text", spoken),
    ]
    return _dedupe(out)


def _mixed_renderings(answer: str) -> tuple[list[dict], dict]:
    whole, num, den = (int(x) for x in re.fullmatch(r"(\d+)\\frac\{?(\d)\}?\{?(\d)\}?", _clean_latex(answer)).groups())
    value = {"1": whole + Fraction(num, den)}
    frac = Fraction(num, den)
    and_words = number_words(whole) + " and " + ("a half" if frac == Fraction(1, 2) else fraction_words(frac))
    out = [
        _rendering("latex-as-given", "latex", answer.strip()),
        _rendering("latex-mixed", "latex", f"{whole}\\frac{{{num}}}{{{den}}}"),
        _rendering("latex-mixed-tfrac", "latex", f"{whole}\\tfrac{{{num}}}{{{den}}}"),
        _rendering("ascii-mixed", "plain", f"{whole} {num}/{den}"),
        _rendering("unicode-mixed", "text", f"{whole}{_VULGAR[(num, den)]}"),
        _rendering("words-mixed", "text", and_words),
        _rendering("digits-and-fraction", "text", f"{whole} and {num}/{den}"),
    ]
    return _dedupe(out), value


def _dedupe(renderings: list[dict]) -> list[dict]:
    seen, out = set(), []
    for r in renderings:
        if (r["raw"], r["notation"]) not in seen:
            seen.add((r["raw"], r["notation"]))
            out.append(r)
    return out


def _decimal_text(x: Fraction) -> str | None:
    """The terminating decimal of a rational (at most 8 places), else None."""
    q = x.denominator
    while q % 2 == 0:
        q //= 2
    while q % 5 == 0:
        q //= 5
    if q != 1:
        return None
    for places in range(0, 9):
        if (x * 10**places).denominator == 1:
            return f"{float(x):.{max(places, 1)}f}" if places else str(int(x))
    return None


def _scalar_equivalents(value: dict) -> list[dict]:
    """Equal values in another form (`written_out=False`): 0.75 for 3/4, \\sqrt{117} for 3\\sqrt{13}, ..."""
    out = []
    if is_rational(value):
        x = value["1"]
        if x.denominator == 1:
            n = int(x)
            if abs(n) >= 1000 and n % 10 == 0:
                mantissa = (Fraction(n) / 10 ** (len(str(abs(n))) - 1)).limit_denominator(10**6)
                exponent = len(str(abs(n))) - 1
                m = _decimal_text(mantissa)
                out.append(_rendering("scientific", "latex", f"{m} \\times 10^{{{exponent}}}", written_out=False))
            return out
        decimal = _decimal_text(x)
        if decimal:
            out.append(_rendering("decimal", "plain", decimal, written_out=False))
            if 0 < x < 1:
                percent = _decimal_text(x * 100)
                out.append(_rendering("percent", "text", percent + "%", [percent + "%"], written_out=False))
        else:
            period = _repeating(x)
            if period:
                out.append(_rendering("repeating-decimal", "latex", period, written_out=False))
        if abs(x) > 1:
            whole = int(abs(x))
            rest = abs(x) - whole
            sign = "-" if x < 0 else ""
            out.append(
                _rendering(
                    "mixed-number",
                    "latex",
                    f"{sign}{whole}\\frac{{{rest.numerator}}}{{{rest.denominator}}}",
                    written_out=False,
                )
            )
            out.append(
                _rendering(
                    "mixed-ascii", "plain", f"{sign}{whole} {rest.numerator}/{rest.denominator}", written_out=False
                )
            )
        k = 2 if abs(x.numerator) < 500 else 10
        out.append(_rendering("unreduced", "plain", f"{x.numerator * k}/{x.denominator * k}", written_out=False))
        out.append(
            _rendering(
                "unreduced-latex", "latex", f"\\frac{{{x.numerator * 3}}}{{{x.denominator * 3}}}", written_out=False
            )
        )
        return out
    if len(value) == 1:
        ((atom, c),) = value.items()
        if isinstance(atom, int) and c > 0 and c != 1:
            square = c * c * atom
            if square.denominator == 1:
                out.append(_rendering("radical-merged", "latex", f"\\sqrt{{{square}}}", written_out=False))
                out.append(_rendering("radical-merged-unicode", "text", f"√{square}", written_out=False))
            elif c.numerator == 1 and c.denominator == atom:
                out.append(
                    _rendering(
                        "radical-unrationalized", "latex", f"\\frac{{1}}{{\\sqrt{{{atom}}}}}", written_out=False
                    )
                )
                out.append(_rendering("radical-unrationalized-ascii", "ascii", f"1/sqrt({atom})", written_out=False))
            else:
                out.append(
                    _rendering(
                        "radical-of-fraction",
                        "latex",
                        f"\\sqrt{{\\frac{{{square.numerator}}}{{{square.denominator}}}}}",
                        written_out=False,
                    )
                )
        return out
    integers = [c for c in value.values() if c.denominator == 1]
    if len(integers) == len(value):
        g = math.gcd(*(int(c) for c in integers))
        if g > 1:
            inner = _scale(value, Fraction(1, g))
            out.append(_rendering("factored", "latex", f"{g}({render(inner, 'latex')})", written_out=False))
            out.append(_rendering("factored-unicode", "text", f"{g}({render(inner, 'unicode')})", written_out=False))
    return out


def _repeating(x: Fraction) -> str | None:
    """0.\\overline{3} for 1/3, 4.\\overline{6} for 14/3, when the period is short."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    whole, rest = divmod(x.numerator, x.denominator)
    digits, seen = [], {}
    while rest and rest not in seen and len(digits) < 12:
        seen[rest] = len(digits)
        rest *= 10
        digits.append(str(rest // x.denominator))
        rest %= x.denominator
    if not rest or rest not in seen:
        return None
    start = seen[rest]
    return f"{sign}{whole}.{''.join(digits[:start])}\\overline{{{''.join(digits[start:])}}}"


# --- compound answers --------------------------------------------------------------------------------------------


def _split_top(text: str, separator: str = ",") -> list[str]:
    items, depth, current = [], 0, ""
    for ch in text:
        depth += (ch in "({[") - (ch in ")}]")
        if ch == separator and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    return [*items, current]


def _component_forms(value: dict) -> dict[str, tuple[str, str]]:
    """One component in each notation family a compound rendering uses: key -> (notation, text)."""
    forms = {
        "latex": ("latex", render(value, "latex")),
        "latex-slash": ("latex", render(value, "latex", frac="slash")),
        "unicode": ("text", render(value, "unicode")),
        "ascii": ("ascii", render(value, "ascii")),
        "words": ("text", render(value, "words")),
    }
    if _plain_ok(value):
        forms["plain"] = ("plain", render(value, "plain"))
    return forms


def _combine(notations: list[str]) -> str:
    order = ["text", "ascii", "latex", "plain"]
    return min(notations, key=order.index)


def _names(problem: str, count: int) -> list[str]:
    for match in reversed(re.findall(r"\(\s*((?:\\?[a-zA-Z]+\s*,\s*)+\\?[a-zA-Z]+)\s*\)", problem)):
        names = [n.strip() for n in match.split(",")]
        if len(names) == count and all(len(n) == 1 or n.startswith("\\") for n in names):
            return names
    return ["x", "y", "z"][:count] if count <= 3 else list("abcd")[:count]


def _name_forms(name: str) -> dict[str, str]:
    greek = {"\\theta": ("θ", "theta"), "\\alpha": ("α", "alpha")}
    unicode, word = greek.get(name, (name, name))
    return {"latex": name, "plain": name, "ascii": word, "unicode": unicode, "words": word}


def _join(items: list[str], conjunction: str = "and", oxford: bool = False) -> str:
    if len(items) == 1:
        return items[0]
    head = ", ".join(items[:-1])
    return f"{head}{',' if oxford and len(items) > 2 else ''} {conjunction} {items[-1]}"


def _tuple_renderings(values: list[dict], names: list[str]) -> list[dict]:
    """A pair or tuple: bracketed, named components ("x = 15 and y = -29"), words."""
    out = []
    for key in ("latex", "latex-slash", "plain", "unicode", "ascii", "words"):
        if not all(key in _component_forms(v) for v in values):
            continue
        cells = [_component_forms(v)[key] for v in values]
        texts = [text for _, text in cells]
        notation = _combine([n for n, _ in cells])
        if key != "words":
            out.append(_rendering(f"tuple-{key}", notation, "(" + ", ".join(texts) + ")", texts))
            if notation == "latex":
                out.append(
                    _rendering("tuple-latex-left-right", "latex", "\\left( " + ", ".join(texts) + " \\right)", texts)
                )
            if notation == "plain":
                out.append(_rendering("tuple-tight", "plain", "(" + ",".join(texts) + ")", texts))
        name_key = {"latex-slash": "latex"}.get(key, key)
        named = [f"{_name_forms(n)[name_key]} = {t}" for n, t in zip(names, texts)]
        if key == "words":
            named = [f"{_name_forms(n)['words']} equals {t}" for n, t in zip(names, texts)]
            out.append(_rendering("named-words", "text", _join(named), texts))
        elif notation == "latex":
            out.append(_rendering("named-latex-inline", "text", _join([f"${x}$" for x in named]), texts))
        else:
            out.append(_rendering(f"named-{key}", "text", _join(named), texts))
            out.append(_rendering(f"named-{key}-commas", "text", ", ".join(named), texts))
    return _dedupe(out)


def _list_renderings(values: list[dict], pm: tuple[dict, dict] | None, extra: list[dict]) -> list[dict]:
    """A list of solutions: comma lists, prose lists, "x = a or x = b", set braces, and the ± shorthand."""
    out = []
    for key in ("latex", "plain", "unicode", "ascii", "words"):
        if not all(key in _component_forms(v) for v in values):
            continue
        cells = [_component_forms(v)[key] for v in values]
        texts = [t for _, t in cells]
        notation = _combine([n for n, _ in cells])
        if notation in ("latex", "plain"):
            out.append(_rendering(f"list-{key}", notation, ", ".join(texts), texts))
            out.append(_rendering(f"set-{key}", "latex", "\\{" + ", ".join(texts) + "\\}", texts))
        out.append(_rendering(f"prose-list-{key}", "text", _join([_inline(t, notation) for t in texts]), texts))
        if key != "words" and len(texts) > 2:
            prose = _join([_inline(t, notation) for t in texts], oxford=True)
            out.append(_rendering(f"prose-list-oxford-{key}", "text", prose, texts))
        if key in ("plain", "unicode"):
            out.append(_rendering(f"or-equations-{key}", "text", _join([f"x = {t}" for t in texts], "or"), texts))
            reverse = list(reversed(texts))
            out.append(_rendering(f"list-reversed-{key}", "text", ", ".join(reverse), texts))
    if pm is not None:
        center, offset = pm
        rest = [render(v, "latex") for v in extra]
        tail = "".join(", " + r for r in rest)
        tail_unicode = "".join(", " + render(v, "unicode") for v in extra)
        for style, notation, text in (
            ("pm-latex", "latex", f"{render(center, 'latex')} \\pm {render(offset, 'latex')}{tail}"),
            ("pm-unicode", "text", f"{render(center, 'unicode')} ± {render(offset, 'unicode')}{tail_unicode}"),
            ("pm-ascii", "ascii", f"{render(center, 'ascii')} +/- {render(offset, 'ascii')}"),
        ):
            if notation == "ascii" and extra:
                continue
            head = text.split(",")[0]
            out.append(_rendering(style, notation, text, [head] + [r.strip() for r in text.split(",")[1:]]))
    return _dedupe(out)


def _inline(text: str, notation: str) -> str:
    return f"${text}$" if notation == "latex" else text


def _matrix_renderings(rows: list[list[dict]]) -> list[dict]:
    """Vectors and matrices: pmatrix, bmatrix, tuples, angle brackets, transposes, named components, rows."""
    out = []
    is_vector = all(len(row) == 1 for row in rows)
    for key in ("latex", "latex-slash", "plain", "unicode", "ascii", "words"):
        if not all(key in _component_forms(v) for row in rows for v in row):
            continue
        cells = [[_component_forms(v)[key] for v in row] for row in rows]
        texts = [[t for _, t in row] for row in cells]
        flat = [t for row in texts for t in row]
        notation = _combine([n for row in cells for n, _ in row])
        if notation in ("latex", "plain"):
            body = " \\\\ ".join(" & ".join(row) for row in texts)
            for env in ("pmatrix", "bmatrix"):
                out.append(_rendering(f"{env}-{key}", "latex", f"\\begin{{{env}}} {body} \\end{{{env}}}", flat))
        if is_vector:
            entries = [row[0] for row in texts]
            if key in ("plain", "ascii", "unicode", "latex-slash"):
                out.append(_rendering(f"vector-tuple-{key}", "text", "(" + ", ".join(entries) + ")", flat))
            if key == "unicode":
                out.append(_rendering("vector-angle-unicode", "text", "⟨" + ", ".join(entries) + "⟩", flat))
            if key == "latex":
                out.append(_rendering("vector-langle", "latex", "\\langle " + ", ".join(entries) + " \\rangle", flat))
                out.append(_rendering("vector-transpose", "latex", "(" + ", ".join(entries) + ")^T", flat))
            if key in ("plain", "ascii"):
                out.append(_rendering(f"vector-list-{key}", "ascii", "[" + ", ".join(entries) + "]", flat))
            if key in ("plain", "unicode", "latex-slash", "words"):
                names = ["x", "y", "z"][: len(entries)]
                prose = _join([f"{n}-component {e}" for n, e in zip(names, entries)])
                out.append(_rendering(f"vector-components-{key}", "text", prose, flat))
                out.append(
                    _rendering(f"vector-entries-{key}", "text", "entries " + _join(entries) + " (top to bottom)", flat)
                )
        else:
            if key in ("plain", "ascii"):
                nested = "[" + ", ".join("[" + ", ".join(row) + "]" for row in texts) + "]"
                out.append(_rendering(f"matrix-nested-{key}", "ascii", nested, flat))
            if key in ("plain", "unicode", "words"):
                ordinals = ["first", "second", "third"]
                prose = "; ".join(f"{ordinals[k]} row {', '.join(row)}" for k, row in enumerate(texts))
                out.append(_rendering(f"matrix-rows-{key}", "text", prose, flat))
                out.append(
                    _rendering(
                        f"matrix-rows-tuples-{key}",
                        "text",
                        "rows " + _join(["(" + ", ".join(row) + ")" for row in texts]),
                        flat,
                    )
                )
    return _dedupe(out)


def _matrix_equivalents(rows: list[list[dict]]) -> list[dict]:
    values = [v for row in rows for v in row]
    if not all(is_rational(v) or not v for v in values):
        return []
    numbers = [v.get("1", Fraction(0)) for v in values]
    out = []
    if len(rows) == len(rows[0]) and all(
        numbers[r * len(rows) + c] == (numbers[0] if r == c else 0) for r in range(len(rows)) for c in range(len(rows))
    ):
        scalar = numbers[0]
        name = "-" if scalar == -1 else render({"1": scalar}, "latex")
        out.append(_rendering("identity-multiple", "latex", f"{name}\\mathbf{{I}}", written_out=False))
        out.append(_rendering("identity-multiple-plain", "text", f"{name}I", written_out=False))
        return out
    common = math.lcm(*(x.denominator for x in numbers))
    if common > 1:
        scaled = [str(int(x * common)) for x in numbers]
        body = " \\\\ ".join(scaled)
        out.append(
            _rendering(
                "vector-factored",
                "latex",
                f"\\frac{{1}}{{{common}}}\\begin{{pmatrix}} {body} \\end{{pmatrix}}",
                [f"\\frac{{1}}{{{common}}}", *scaled],
                written_out=False,
            )
        )
        out.append(
            _rendering(
                "vector-factored-plain",
                "text",
                f"(1/{common})({', '.join(scaled)})",
                [*scaled],
                written_out=False,
            )
        )
    return out


# --- intervals ---------------------------------------------------------------------------------------------------


def parse_interval(answer: str) -> list[tuple[str, dict | None, dict | None, str]] | None:
    """Pieces (open bracket, low, high, close bracket); None for an infinite end."""
    text = _clean_latex(answer)
    text = re.sub(r"^x\\in", "", text)
    pieces = []
    for piece in text.split("\\cup"):
        if piece[0] not in "([" or piece[-1] not in ")]":
            return None
        ends = _split_top(piece[1:-1])
        if len(ends) != 2:
            return None
        values = []
        for end in ends:
            if end in ("\\infty", "-\\infty", "+\\infty"):
                values.append(None)
            else:
                values.append(parse_value(end))
                if values[-1] is None:
                    return None
        pieces.append((piece[0], values[0], values[1], piece[-1]))
    return pieces


def _interval_variable(problem: str) -> str:
    match = re.search(r"(?:values of|all) \$(\\lambda|[a-z])\$", problem)
    return match.group(1) if match else "x"


def _interval_renderings(pieces, variable: str) -> list[dict]:
    out = []
    for key in ("latex", "unicode", "ascii", "words"):
        texts, parts, notations = [], [], []
        inequalities, phrases = [], []
        for open_, low, high, close in pieces:
            forms = [None if v is None else _component_forms(v)[key] for v in (low, high)]
            low_text = {"latex": "-\\infty", "unicode": "−∞", "ascii": "-inf", "words": "negative infinity"}[key]
            high_text = {"latex": "\\infty", "unicode": "∞", "ascii": "inf", "words": "infinity"}[key]
            lo = forms[0][1] if forms[0] else low_text
            hi = forms[1][1] if forms[1] else high_text
            notations += [f[0] for f in forms if f]
            parts += [f[1] for f in forms if f]
            texts.append(f"{open_}{lo}, {hi}{close}")
            var = {"latex": variable, "unicode": {"\\lambda": "λ"}.get(variable, variable)}.get(
                key, variable.strip("\\")
            )
            le = {"latex": "\\le", "unicode": "≤", "ascii": "<=", "words": "at most"}[key]
            lt = {"latex": "<", "unicode": "<", "ascii": "<", "words": "less than"}[key]
            lower = None if forms[0] is None else (le if open_ == "[" else lt)
            upper = None if forms[1] is None else (le if close == "]" else lt)
            if key == "words":
                bits = []
                if forms[0]:
                    bits.append(("at least " if open_ == "[" else "greater than ") + lo)
                if forms[1]:
                    bits.append(("at most " if close == "]" else "less than ") + hi)
                phrases.append(" and ".join(bits))
            elif lower and upper:
                inequalities.append(f"{lo} {lower} {var} {upper} {hi}")
            elif lower:
                greater = {"\\le": "\\ge", "≤": "≥", "<=": ">=", "<": ">"}[lower]
                inequalities.append(f"{var} {greater} {lo}")
            else:
                inequalities.append(f"{var} {upper} {hi}")
        if key == "words":
            out.append(
                _rendering("words-interval", "text", f"all {variable.strip(chr(92))} " + " or ".join(phrases), parts)
            )
            continue
        cup = {"latex": " \\cup ", "unicode": " ∪ ", "ascii": " U "}[key]
        notation = {"latex": "latex", "unicode": "text", "ascii": "ascii"}[key]
        bracket = cup.join(texts)
        out.append(_rendering(f"interval-{key}", notation, bracket, parts))
        if key == "latex":
            lefted = cup.join(f"\\left{t[0]}{t[1:-1]}\\right{t[-1]}" for t in texts)
            out.append(_rendering("interval-left-right", "latex", lefted, parts))
            out.append(_rendering("interval-membership", "latex", f"{variable} \\in {bracket}", parts))
            ineq = " \\text{ or } ".join(inequalities)
            out.append(_rendering("inequality-latex", "latex", ineq, parts))
            out.append(_rendering("set-builder", "latex", f"\\{{{variable} : {ineq}\\}}", parts))
            out.append(_rendering("set-builder-mid", "latex", f"\\{{ {variable} \\mid {ineq} \\}}", parts))
        else:
            out.append(_rendering(f"inequality-{key}", notation, " or ".join(inequalities), parts))
        if notation == "text" and bracket.isascii():
            out[-2]["notation"] = "plain"
    return _dedupe([r for r in out if all(r["parts"])])


def _interval_equivalents(pieces, variable: str) -> list[dict]:
    if len(pieces) == 2 and pieces[0][2] == pieces[1][1] and pieces[0][3] == ")" and pieces[1][0] == "(":
        low, high = pieces[0][1], pieces[1][2]
        hole = render(pieces[0][2], "latex")
        lo = "-\\infty" if low is None else render(low, "latex")
        hi = "\\infty" if high is None else render(high, "latex")
        raw = f"({lo}, {hi}) \\setminus \\{{{hole}\\}}"
        return [
            _rendering("interval-minus-point", "latex", raw, [p for p in (lo, hi, hole) if "infty" not in p], False)
        ]
    if len(pieces) == 2 and pieces[0][1] is None and pieces[1][2] is None:
        a, b = render(pieces[0][2], "latex"), render(pieces[1][1], "latex")
        left = "[" if pieces[0][3] == ")" else "("
        right = "]" if pieces[1][0] == "(" else ")"
        return [_rendering("complement", "latex", f"\\mathbb{{R}} \\setminus {left}{a}, {b}{right}", [a, b], False)]
    if len(pieces) == 1 and pieces[0][1] is not None and pieces[0][2] is not None:
        open_, low, high, close = pieces[0]
        if open_ == "[" and close == "]" and is_rational(low) and is_rational(high):
            mid, radius = (low["1"] + high["1"]) / 2, (high["1"] - low["1"]) / 2
            raw = f"|{variable} - {render({'1': mid}, 'latex')}| \\le {render({'1': radius}, 'latex')}"
            parts = [render({"1": mid}, "latex"), render({"1": radius}, "latex")]
            return [_rendering("absolute-value", "latex", raw, parts, False)]
    return []


# --- words, letters, units, bases, equations, expressions -------------------------------------------------------

_ALTERNATIVES = {
    "even": ["odd", "neither"],
    "odd": ["even", "neither"],
    "east": ["west", "north", "south"],
    "west": ["east", "north", "south"],
    "north": ["south", "east", "west"],
    "south": ["north", "east", "west"],
    "ellipse": ["parabola", "hyperbola", "circle"],
    "parabola": ["ellipse", "hyperbola", "circle"],
    "hyperbola": ["ellipse", "parabola", "circle"],
    "circle": ["ellipse", "parabola", "line"],
}


def _text_word(answer: str) -> str:
    return re.fullmatch(r"\\text\{\s*(.*?)\s*\}", answer.strip()).group(1)


def text_alternatives(word: str, problem: str) -> list[str]:
    """Other answers a wrong attempt gives: the opposite parity, another direction or conic, another person."""
    if word.lower() in _ALTERNATIVES:
        return _ALTERNATIVES[word.lower()]
    names = re.findall(r'\*"([A-Z][a-z]+)"', problem) + re.findall(r"\b([A-Z][a-z]+) (?:from|makes)\b", problem)
    return [n for n in dict.fromkeys(names) if n != word]


def _text_renderings(word: str) -> list[dict]:
    capital = word[0].upper() + word[1:]
    out = [
        _rendering("word", "text", word),
        _rendering("latex-text", "latex", f"\\text{{{word}}}", [word]),
        _rendering("bold-markdown", "text", f"**{word}**", [word]),
        _rendering("quoted", "text", f'"{word}"', [word]),
        _rendering("capitalized", "text", capital),
        _rendering("latex-textbf", "latex", f"\\textbf{{{word}}}", [word]),
    ]
    return _dedupe(out)


def _choice_renderings(letter: str) -> list[dict]:
    out = [
        _rendering("parenthesized", "plain", f"({letter})", [letter]),
        _rendering("bare-letter", "plain", letter, [letter]),
        _rendering("latex-text", "latex", f"\\text{{({letter})}}", [letter]),
        _rendering("latex-textbf", "latex", f"\\textbf{{({letter})}}", [letter]),
        _rendering("option-word", "text", f"option {letter}", [letter]),
        _rendering("choice-word", "text", f"choice ({letter})", [letter]),
        _rendering("lowercase", "text", f"({letter.lower()})", [letter.lower()]),
        _rendering("bold-markdown", "text", f"**{letter}**", [letter]),
        _rendering("letter-paren", "text", f"{letter})", [letter]),
        _rendering("answer-word", "text", f"answer {letter}", [letter]),
    ]
    return out


def _choice_equivalents(letter: str, problem: str) -> list[dict]:
    """The option's own content, which names the answer without its letter."""
    match = re.search(r"\(" + letter + r"\)\s*([A-Z][a-z]+)", problem)
    if match:
        word = match.group(1)
        return [
            _rendering("option-content", "text", word, written_out=False),
            _rendering("option-content-lower", "text", "a " + word.lower(), [word.lower()], written_out=False),
        ]
    match = re.search(r"\\textbf\{\(" + letter + r"\)\}\\?\s*(.*?)(?:\\qquad|\$|$)", problem)
    if match:
        content = match.group(1).strip()
        return [_rendering("option-content", "latex", content, written_out=False)]
    return []


_UNIT = re.compile(
    r"(?P<money>\\\$)?(?P<number>[\d.,\\!{}a-z ]+?)\s*"
    r"(?P<unit>\^\\circ|\\text\{\s*(?:degrees|cents)\}|\\mbox\{\s*(?:inches|cm)\}\^2)?"
)
_UNIT_NAMES = {"circ": "degrees", "degrees": "degrees", "cents": "cents", "inches": "square inches"}
_UNIT_NAMES |= {"cm": "square centimeters"}


def parse_units(answer: str) -> tuple[str, str, Fraction] | None:
    """(unit, number as written, value): unit one of degrees, dollars, cents, square inches, square centimeters."""
    match = _UNIT.fullmatch(answer.strip().replace("\\!", ""))
    if not match:
        return None
    if match["money"]:
        unit = "dollars"
    elif match["unit"]:
        unit = _UNIT_NAMES[re.search(r"circ|degrees|cents|inches|cm", match["unit"]).group(0)]
    else:
        return None
    number = match["number"].replace(" ", "")
    value = parse_value(number)
    if value is None or not is_rational(value):
        return None
    return unit, number, value["1"]


def _number_variants(number: str, value: Fraction) -> list[tuple[str, str, str]]:
    """(style, notation, text) of the number inside a quantity with a unit."""
    if value.denominator == 1:
        n = int(value)
        out = [("digits", "plain", str(n)), ("words", "text", number_words(n))]
        if n >= 1000:
            out.append(("digits-commas", "plain", _digits_with_commas(n)))
        return out
    if "." in number:
        return [("digits", "plain", number)]
    return [
        ("latex-frac", "latex", f"\\frac{{{value.numerator}}}{{{value.denominator}}}"),
        ("slash", "plain", f"{value.numerator}/{value.denominator}"),
    ]


def _units_renderings(unit: str, number: str, value: Fraction) -> list[dict]:
    out = []
    for style, notation, n in _number_variants(number, value):
        words = notation == "text"
        if unit == "degrees":
            if not words:
                out.append(_rendering(f"{style}-circ", "latex", f"{n}^\\circ", [n]))
                out.append(_rendering(f"{style}-circ-braced", "latex", f"{n}^{{\\circ}}", [n]))
                out.append(_rendering(f"{style}-text-degrees", "latex", f"{n}\\text{{ degrees}}", [n]))
                out.append(_rendering(f"{style}-unicode-degree", "text", f"{n}°", [n]))
                out.append(_rendering(f"{style}-abbreviated", "text", f"{n} deg", [n]))
            out.append(_rendering(f"{style}-degrees", "text", f"{n} degrees", [n]))
        elif unit == "dollars":
            if "." in n:
                dollars, cents = n.split(".")
                out.append(
                    _rendering("dollars-and-cents", "text", f"{dollars} dollars and {cents} cents", [dollars, cents])
                )
                spoken = f"{number_words(int(dollars))} dollars and {number_words(int(cents))} cents"
                out.append(_rendering("words-dollars-and-cents", "text", spoken, [spoken]))
            if not words:
                out.append(_rendering(f"{style}-escaped-dollar", "text", f"\\${n}", [n]))
                out.append(_rendering(f"{style}-dollar-sign", "text", f"${n}", [n]))
                out.append(_rendering(f"{style}-usd", "text", f"USD {n}", [n]))
            out.append(_rendering(f"{style}-dollars-word", "text", f"{n} dollars", [n]))
        elif unit == "cents":
            out.append(_rendering(f"{style}-cents", "text", f"{n} cents", [n]))
            out.append(_rendering(f"{style}-cent-sign", "text", f"{n}¢", [n]))
            out.append(_rendering(f"{style}-latex-cents", "latex", f"{n}\\text{{ cents}}", [n]))
            spoken = " point ".join(number_words(int(x)) for x in n.split("."))
            out.append(_rendering("words-cents", "text", f"{spoken} cents", [spoken]))
        else:
            short = {"square inches": "in", "square centimeters": "cm"}[unit]
            out.append(_rendering(f"{style}-unit-words", "text", f"{n} {unit}", [n]))
            if not words:
                out.append(_rendering(f"{style}-latex-unit", "latex", f"{n}\\text{{ {short}}}^2", [n]))
                out.append(_rendering(f"{style}-unicode-unit", "text", f"{n} {short}²", [n]))
                out.append(_rendering(f"{style}-ascii-unit", "ascii", f"{n} {short}^2", [n]))
    return _dedupe(out)


def _units_equivalents(unit: str, value: Fraction) -> list[dict]:
    out = []
    if unit == "degrees":
        radians = value / 180
        if radians.denominator <= 12:
            pi = render({"pi": radians}, "latex")
            out.append(_rendering("radians", "latex", pi, written_out=False))
            out.append(
                _rendering(
                    "radians-unicode",
                    "text",
                    render({"pi": radians}, "unicode") + " radians",
                    [render({"pi": radians}, "unicode")],
                    False,
                )
            )
        if value.denominator != 1:
            whole, rest = divmod(value.numerator, value.denominator)
            mixed = f"{whole}\\frac{{{rest}}}{{{value.denominator}}}"
            out.append(_rendering("mixed-degrees", "latex", f"{mixed}^\\circ", [mixed], False))
    elif unit == "dollars":
        cents = value * 100
        out.append(_rendering("in-cents", "text", f"{int(cents)} cents", [str(int(cents))], False))
        if value.denominator == 1:
            out.append(
                _rendering("with-cents", "text", f"\\${value.numerator:,}.00", [f"{value.numerator:,}.00"], False)
            )
    elif unit == "cents":
        dollars = _decimal_text(value / 100)
        out.append(_rendering("in-dollars", "text", f"\\${dollars}", [dollars], False))
    elif unit == "square inches" and value % 144 == 0:
        feet = str(int(value / 144))
        out.append(_rendering("square-feet", "text", f"{feet} square feet", [feet], False))
    elif unit == "square centimeters":
        mm = str(int(value * 100))
        out.append(_rendering("square-millimeters", "text", f"{mm} mm²", [mm], False))
    return out


def parse_base(answer: str) -> tuple[str, int]:
    digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", answer.replace(" ", "")).groups()
    return digits, int(base)


def _base_renderings(digits: str, base: int) -> list[dict]:
    base_word = number_words(base)
    subscript = str(base).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    return [
        _rendering("subscript", "latex", f"{digits}_{base}" if base < 10 else f"{digits}_{{{base}}}"),
        _rendering("subscript-braced", "latex", f"{digits}_{{{base}}}"),
        _rendering("parenthesized-subscript", "latex", f"({digits})_{{{base}}}", [digits]),
        _rendering("in-base", "text", f"{digits} in base {base}", [digits]),
        _rendering("in-base-words", "text", f"{digits} in base {base_word}", [digits]),
        _rendering("unicode-subscript", "text", f"{digits}{subscript}"),
        _rendering("base-label", "text", f"{digits} (base {base})", [digits]),
        _rendering("text-subscript-word", "latex", f"{digits}_{{\\text{{{base_word}}}}}"),
    ]


def _base_equivalents(digits: str, base: int) -> list[dict]:
    decimal = str(int(digits, base))
    return [
        _rendering("decimal-value", "text", f"{decimal} in base ten", [decimal], False),
        _rendering("decimal-subscript", "latex", f"{decimal}_{{10}}", written_out=False),
    ]


def _linear(side: str) -> dict[str, int] | None:
    """A linear side like "5x - 7y + 11z + 4" as {variable or "": coefficient}."""
    terms = re.findall(r"([+-]?)\s*(\d*)\s*([a-z]?)", side.replace(" ", ""))
    if "".join(s + d + v for s, d, v in terms) != side.replace(" ", ""):
        return None
    out: dict[str, int] = {}
    for sign, digits, var in terms:
        if not digits and not var:
            continue
        c = int(digits) if digits else 1
        out[var] = out.get(var, 0) + (-c if sign == "-" else c)
    return out


def _linear_text(coefficients: dict[str, int], order: list[str], minus: str = "-") -> str:
    text = ""
    for var in order:
        c = coefficients.get(var, 0)
        if not c:
            continue
        body = (str(abs(c)) if abs(c) != 1 or not var else "") + var
        if not text:
            text = (minus if c < 0 else "") + body
        else:
            text += f" {minus} " if c < 0 else " + "
            text += body
    return text or "0"


def _equation_renderings(answer: str) -> tuple[list[dict], list[dict]]:
    lhs, rhs = (s.strip() for s in answer.split("="))
    key = rhs if re.fullmatch(r"[a-z]", lhs) else lhs
    variants = [
        ("as-given", "plain", answer.strip(), [key]),
        ("spaced", "plain", f"{lhs} = {rhs}", [key]),
        ("tight", "plain", f"{lhs}={rhs}".replace(" ", ""), [key.replace(" ", "")]),
        ("unicode-minus", "text", f"{lhs} = {rhs}".replace("-", "−"), [key.replace("-", "−")]),
        ("equals-word", "text", f"{lhs} equals {rhs}", [key]),
    ]
    spoken = rhs.replace(" + ", " plus ").replace(" - ", " minus ")
    if re.fullmatch(r"-?\d+", rhs):
        spoken = number_words(int(rhs))
    variants.append(("words", "text", f"{lhs} equals {spoken}", [spoken]))
    written = [_rendering(*v) for v in variants]
    left, right = _linear(lhs), _linear(rhs)
    equivalents = []
    if left is not None and right is not None:
        total = {v: left.get(v, 0) - right.get(v, 0) for v in dict.fromkeys([*left, *right])}
        variables = sorted(v for v in total if v)
        if lhs == "y" and set(right) <= {"x", ""}:
            slope, intercept = right.get("x", 0), right.get("", 0)
            if intercept:
                named = f"slope {slope} and y-intercept {intercept}"
                written.append(_rendering("slope-intercept-named", "text", named, [str(slope), str(intercept)]))
                moved = _linear_text({"y": 1, "x": -slope}, ["y", "x"]) + f" = {intercept}"
                equivalents.append(_rendering("rearranged", "plain", moved, written_out=False))
            else:
                named = f"the line through the origin with slope {slope}"
                written.append(_rendering("slope-named", "text", named, [str(slope)]))
                moved = _linear_text({"y": 1, "x": -slope}, ["y", "x"]) + " = 0"
                equivalents.append(_rendering("rearranged", "plain", moved, written_out=False))
            swapped = _linear_text(right, ["", "x"])
            written.append(_rendering("reordered", "plain", f"y = {swapped}", [swapped]))
        else:
            constant = -total.get("", 0)
            moved = _linear_text({v: total[v] for v in variables}, variables) + f" = {constant}"
            negated = _linear_text({v: -c for v, c in total.items()}, [*variables, ""]) + " = 0"
            equivalents.append(_rendering("constant-moved", "plain", moved, written_out=False))
            equivalents.append(_rendering("negated", "plain", negated, written_out=False))
            if len(variables) == 3:
                normal = [str(total[v]) for v in variables]
                named = f"normal vector ({', '.join(normal)}) and constant term {total.get('', 0)}"
                written.append(_rendering("normal-named", "text", named, [*normal, str(total.get("", 0))]))
    return _dedupe(written), equivalents


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _expression_ascii(latex: str, python: bool = False) -> str:
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", latex)
    text = re.sub(r"\\cot\s*x", "cot(x)", text)
    text = text.replace("{", "").replace("}", "")
    if python:
        text = text.replace("^", "**")
        text = re.sub(r"(\d)([a-zA-Z(])", r"\1*\2", text)
        text = text.replace(")(", ")*(")
    return text


def _expression_unicode(latex: str) -> str:
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/\2", latex)
    text = text.replace("\\cot", "cot").replace("{", "").replace("}", "")
    text = re.sub(r"\^(\d+)", lambda m: m.group(1).translate(_SUPERSCRIPTS), text)
    return text.replace("-", "−")


_POWER_WORDS = {2: "squared", 3: "cubed"}


def _polynomial_words(text: str) -> str | None:
    """Words for a sum of monomials with integer coefficients: "8n^2 + 4n + 1" -> "eight n squared plus ..."."""
    spaced = text.replace(" ", "")
    terms = re.findall(r"([+-]?)(\d*)([a-zA-Z]?)(?:\^(\d+))?", spaced)
    if "".join(s + c + v + ("^" + p if p else "") for s, c, v, p in terms) != spaced:
        return None
    words = ""
    for sign, coefficient, var, power in terms:
        if not coefficient and not var:
            continue
        body = number_words(int(coefficient)) if coefficient else ""
        if var:
            body = (body + " " if body else "") + var
            if power:
                body += " " + _POWER_WORDS.get(int(power), "to the " + ordinal_words(int(power)))
        if not words:
            words = ("negative " if sign == "-" else "") + body
        else:
            words += (" minus " if sign == "-" else " plus ") + body
    return words


def _monomials(tight: str) -> list[tuple[int, tuple[str, int]]]:
    """A one-variable polynomial "6r^2-4r-24" as [(6, ("r", 2)), (-4, ("r", 1)), (-24, ("", 0))]."""
    out = []
    for sign, digits, var, power in re.findall(r"([+-]?)(\d*)([a-zA-Z]?)(?:\^(\d+))?", tight):
        if digits or var:
            c = int(digits) if digits else 1
            out.append((-c if sign == "-" else c, (var, int(power) if power else (1 if var else 0))))
    return out


def _polynomial_text(monomials: list[tuple[int, tuple[str, int]]]) -> str:
    text = ""
    for c, (var, power) in monomials:
        body = (str(abs(c)) if abs(c) != 1 or not var else "") + var + (f"^{power}" if power > 1 else "")
        text += ("-" if c < 0 else "") + body if not text else (" - " if c < 0 else " + ") + body
    return text


def _expression_renderings(answer: str) -> tuple[list[dict], list[dict]]:
    given = answer.strip()
    spaced = re.sub(r"\s*([+-])\s*", r" \1 ", given).strip()
    if spaced.startswith("- "):
        spaced = "-" + spaced[2:]
    tight = given.replace(" ", "")
    out = [
        _rendering("as-given", "latex", given),
        _rendering("spaced", "latex", spaced),
        _rendering("tight", "latex", tight),
        _rendering("unicode", "text", _expression_unicode(spaced)),
        _rendering("ascii", "ascii", _expression_ascii(spaced)),
        _rendering("python", "ascii", _expression_ascii(spaced, python=True)),
    ]
    for r in out:
        if r["notation"] == "latex" and "\\" not in r["raw"] and "{" not in r["raw"]:
            r["notation"] = "plain"
    words = _polynomial_words(given)
    product = re.fullmatch(r"\((.*)\)\((.*)\)", tight)
    if product:
        a, b = (_polynomial_words(x) for x in product.groups())
        words = f"({a}) times ({b})" if a and b else None
    if given == "\\cot x":
        words = "the cotangent of x"
    if words:
        out.append(_rendering("words", "text", words))
    equivalents = []
    monomials = _monomials(tight) if _polynomial_words(given) else []
    if len(monomials) > 1:
        g = math.gcd(*(c for c, _ in monomials))
        if g > 1:
            inner = _polynomial_text([(c // g, power) for c, power in monomials])
            equivalents.append(_rendering("gcd-factored", "plain", f"{g}({inner})", written_out=False))
        if [c for c, _ in monomials] == [1] * len(monomials) and [p[1] for _, p in monomials] == list(
            range(len(monomials) - 1, -1, -1)
        ):
            var = monomials[0][1][0]
            quotient = f"\\frac{{{var}^{{{len(monomials)}}} - 1}}{{{var} - 1}}"
            equivalents.append(_rendering("geometric-quotient", "latex", quotient, written_out=False))
    binomials = [re.fullmatch(r"([a-z])\+(\d+)", x) for x in product.groups()] if product else []
    if binomials and all(binomials):
        (a1, a0), (b1, b0) = (b.groups() for b in binomials)
        a0, b0 = int(a0), int(b0)
        expanded = f"{a1}{b1} + {b0}{a1} + {a0}{b1} + {a0 * b0}"
        equivalents.append(_rendering("expanded", "plain", expanded, written_out=False))
    fraction = re.fullmatch(r"\\frac\{(\d+)\+(\d+)([a-z])\}\{(\d+)\}", tight)
    if fraction:
        p, q, var, d = fraction.groups()
        split = f"\\frac{{{p}}}{{{d}}} + \\frac{{{q}{var}}}{{{d}}}"
        equivalents.append(_rendering("split-fraction", "latex", split, written_out=False))
    if given == "\\cot x":
        equivalents.append(_rendering("cos-over-sin", "latex", "\\frac{\\cos x}{\\sin x}", written_out=False))
        equivalents.append(_rendering("reciprocal-tan", "latex", "\\frac{1}{\\tan x}", written_out=False))
    alternating = re.fullmatch(r"x\^5-x\^4\+x\^3-x\^2\+x-1", tight)
    if alternating:
        equivalents.append(_rendering("factored", "latex", "(x - 1)(x^4 + x^2 + 1)", written_out=False))
    if tight == "p-q":
        equivalents.append(_rendering("negated-difference", "plain", "-(q - p)", written_out=False))
    return _dedupe(out), equivalents


# --- one answer, described ---------------------------------------------------------------------------------------

GROUPS = {
    "small integer": "int",
    "negative integer": "int",
    "large integer": "int",
    "fraction": "frac",
    "decimal": "dec",
    "radical": "rad",
    "multiple of pi": "pi",
    "mixed number": "mixed",
    "complex number": "cplx",
    "expression": "expr",
    "interval": "intv",
    "ordered pair": "pair",
    "tuple": "tuple",
    "set/list": "list",
    "matrix/vector": "mat",
    "multiple choice": "choice",
    "text answer": "text",
    "units/degrees/money": "units",
    "base-n number": "base",
    "equation": "eq",
    "scientific notation": "dec",
    "other": "expr",
}
SCALAR_GROUPS = {"int", "frac", "dec", "rad", "pi", "mixed", "cplx"}


def _pm_split(text: str) -> list[dict] | None:
    """Values of a list answer; "1 \\pm \\sqrt{19}" gives both roots."""
    values = []
    for item in _split_top(_clean_latex(text)):
        if "\\pm" in item:
            center, offset = item.split("\\pm")
            c, o = parse_value(center), parse_value(offset)
            if c is None or o is None:
                return None
            values += [_add_values(c, o), _add_values(c, _scale(o, Fraction(-1)))]
        else:
            value = parse_value(item)
            if value is None:
                return None
            values.append(value)
    return values


def _add_values(a: dict, b: dict) -> dict:
    total = dict(a)
    for atom, c in b.items():
        total[atom] = total.get(atom, Fraction(0)) + c
    return {atom: c for atom, c in total.items() if c}


def _matrix_rows(answer: str) -> list[list[dict]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end", answer, re.S).group(1)
    return [[parse_value(cell) for cell in row.split("&")] for row in body.split("\\\\")]


def describe(answer: str, kind: str, problem: str) -> dict:
    """The written renderings, the equivalent ones, the scalar value (if any) and the structure of an answer."""
    group = GROUPS[kind]
    info = {
        "answer": answer.strip(),
        "kind": kind,
        "group": group,
        "value": None,
        "equivalents": [],
        "components": [],
        "subgroup": group,
    }
    if group in SCALAR_GROUPS:
        if group == "mixed":
            written, value = _mixed_renderings(answer)
            info["equivalents"] = _scalar_equivalents(value)
        else:
            value = parse_value(answer)
            written = _decimal_renderings(answer, value) if group == "dec" else _scalar_renderings(answer, value)
            info["equivalents"] = _scalar_equivalents(value)
        info["value"] = value
    elif group in ("pair", "tuple"):
        inner = _clean_latex(answer)[1:-1]
        values = [parse_value(x) for x in _split_top(inner)]
        names = _names(problem, len(values))
        written = _tuple_renderings(values, names)
        info.update(components=values, names=names)
    elif group == "list":
        text = _clean_latex(answer)
        if text.startswith("\\{"):
            text = text[2:-2]
        values = _pm_split(text)
        pm = None
        extra = []
        items = _split_top(text)
        if any("\\pm" in item for item in items):
            center, offset = next(item for item in items if "\\pm" in item).split("\\pm")
            pm = (parse_value(center), parse_value(offset))
            extra = [parse_value(item) for item in items if "\\pm" not in item]
        written = _list_renderings(values, pm, extra)
        info["components"] = values
    elif group == "mat":
        rows = _matrix_rows(answer)
        written = _matrix_renderings(rows)
        info["equivalents"] = _matrix_equivalents(rows)
        info["components"] = [v for row in rows for v in row]
        info["rows"] = rows
    elif group == "intv":
        pieces = parse_interval(answer)
        variable = _interval_variable(problem)
        written = _interval_renderings(pieces, variable)
        info["equivalents"] = _interval_equivalents(pieces, variable)
        info.update(pieces=pieces, variable=variable)
    elif group == "choice":
        letter = re.search(r"[A-H]", answer).group(0)
        written = _choice_renderings(letter)
        info["equivalents"] = _choice_equivalents(letter, problem)
        info["letter"] = letter
    elif group == "text":
        word = _text_word(answer)
        written = _text_renderings(word)
        info["word"] = word
    elif group == "units":
        unit, number, value = parse_units(answer)
        written = _units_renderings(unit, number, value)
        info["equivalents"] = _units_equivalents(unit, value)
        info.update(unit=unit, number=number, value={"1": value} if value else {}, subgroup=unit.split()[-1])
    elif group == "base":
        digits, base = parse_base(answer)
        written = _base_renderings(digits, base)
        info["equivalents"] = _base_equivalents(digits, base)
        info.update(digits=digits, base=base)
    elif group == "eq":
        written, info["equivalents"] = _equation_renderings(answer)
    else:
        written, info["equivalents"] = _expression_renderings(answer)
    if group == "frac" and "probability" in problem:
        info["subgroup"] = "probability"
    info["written"] = written
    return info


# --- arithmetic statements and approximations ---------------------------------------------------------------------


def _operand(value: dict) -> tuple[str, str]:
    """(raw, in prose) of a number a statement uses: LaTeX goes inside $...$."""
    raw = render(value, "latex") if not _plain_ok(value) or not is_rational(value) else render(value, "plain")
    if is_rational(value) and value.get("1", Fraction(0)).denominator != 1:
        raw = render(value, "latex")
    return raw, (f"${raw}$" if "\\" in raw else raw)


def arithmetic_statements(info: dict, rng: random.Random) -> list[dict]:
    """The answer as arithmetic on stated numbers; parts are the stated operands."""
    value = info["value"]
    if not value or info["group"] not in (*SCALAR_GROUPS, "units") or info["group"] == "dec" and len(value) != 1:
        return []
    unit = info.get("unit")
    if unit not in (None, "degrees", "dollars"):
        return []
    if unit and value["1"].denominator != 1:
        return []
    out = []

    def add(style: str, notation: str, raw: str, parts: list[str], operands: list[dict]):
        if any(_same(o, value) or not o for o in operands) or not all(parts):
            return
        if notation != "text":
            notation = "latex" if "\\" in raw else "plain"
        out.append(_rendering(style, notation, raw, parts, written_out=False))

    def quantity(v: dict) -> tuple[str, str]:
        raw, prose = _operand(v)
        if unit == "degrees":
            return raw, f"{raw}°"
        if unit == "dollars":
            return raw, f"\\${raw}"
        return raw, prose

    one = {"1": Fraction(1)}
    up, down = _add(value, Fraction(1)), _add(value, Fraction(-1))
    double, half = _scale(value, Fraction(2)), _scale(value, Fraction(1, 2))
    (r_up, p_up), (r_down, p_down) = quantity(up), quantity(down)
    (r_double, p_double), (r_half, p_half) = quantity(double), quantity(half)
    if not unit:
        add("one-less-than", "text", f"one less than {p_up}", [r_up], [up])
        add("one-more-than", "text", f"one more than {p_down}", [r_down], [down])
        if r_up != "1":  # "1 - 1" reads as a joke, not a reviewer's arithmetic
            add("minus-one", _arith_notation(r_up), f"{r_up} - 1", [r_up], [up, one])
        if r_down != "1":
            add("plus-one", _arith_notation(r_down), f"{_paren(r_down)} + 1", [r_down], [down, one])
    add("half-of", "text", f"half of {p_double}", [r_double], [double])
    add("twice", "text", f"twice {p_half}", [r_half], [half])
    if not unit:
        add("times-two", _arith_notation(r_half), f"2 \\cdot {_paren(r_half)}", [r_half], [half])
        add("over-two", "latex", f"\\frac{{{r_double}}}{{2}}", [r_double], [double])
    if is_rational(value) and value["1"].denominator == 1:
        n = int(value["1"])
        if abs(n) >= 3:
            a = rng.randrange(1, abs(n)) * (1 if n > 0 else -1)
            b = n - a
            if a != b:
                (ra, pa), (rb, pb) = quantity({"1": Fraction(a)}), quantity({"1": Fraction(b)})
                add(
                    "sum-symbols",
                    _arith_notation(ra),
                    f"{pa} + {_paren(pb)}",
                    [ra, rb],
                    [{"1": Fraction(a)}, {"1": Fraction(b)}],
                )
                add(
                    "sum-words",
                    "text",
                    f"the sum of {pa} and {pb}",
                    [ra, rb],
                    [{"1": Fraction(a)}, {"1": Fraction(b)}],
                )
            k = rng.randrange(2, 10)
            big = n + k
            if unit == "degrees" and 0 < n < 180:
                big, k = 180, 180 - n
            (rbig, pbig), (rk, pk) = quantity({"1": Fraction(big)}), quantity({"1": Fraction(k)})
            add(
                "difference-symbols", "plain", f"{pbig} - {pk}", [rbig, rk], [{"1": Fraction(big)}, {"1": Fraction(k)}]
            )
            add(
                "difference-words",
                "text",
                f"the difference between {pbig} and {pk}",
                [rbig, rk],
                [{"1": Fraction(big)}, {"1": Fraction(k)}],
            )
        factors = [d for d in range(2, math.isqrt(abs(n)) + 1) if n % d == 0 and abs(n) // d > 1]
        if factors and not unit:
            d = rng.choice(factors)
            e = n // d
            add(
                "product-symbols",
                "plain",
                f"{d} \\times {_paren(str(e))}",
                [str(d), str(e)],
                [{"1": Fraction(d)}, {"1": Fraction(e)}],
            )
            add("product-words", "text", f"{d} times {e}", [str(d), str(e)], [{"1": Fraction(d)}, {"1": Fraction(e)}])
        root = math.isqrt(abs(n))
        if n > 3 and root * root == n and not unit:
            add("squared-words", "text", f"{root} squared", [str(root)], [{"1": Fraction(root)}])
            add("squared-symbols", "plain", f"{root}^2", [str(root)], [{"1": Fraction(root)}])
        if not unit and 0 <= n + 1:
            spoken = number_words(n + 1)
            add("words-minus-one", "text", f"{spoken} minus one", [spoken], [up])
    elif is_rational(value):
        x = value["1"]
        if 0 < x < 1:
            complement = {"1": 1 - x}
            r, p = _operand(complement)
            add("one-minus", "latex", f"1 - {r}", [r], [complement])
        spoken = fraction_words(2 * x)
        add("half-of-words", "text", f"half of {spoken}", [spoken], [double])
    return out


def _same(a: dict, b: dict) -> bool:
    return {k: v for k, v in a.items() if v} == {k: v for k, v in b.items() if v}


def _paren(raw: str) -> str:
    return f"({raw})" if raw.startswith("-") or re.search(r"(?<=.)[-+]", raw) else raw


def _arith_notation(raw: str) -> str:
    return "latex" if "\\" in raw else "plain"


def _approximation_text(x: float, significant: int) -> str:
    places = significant - 1 - math.floor(math.log10(abs(x)))
    return f"{x:.{max(places, 1)}f}"


def approximations(info: dict) -> list[dict]:
    """Decimals (>= 3 significant digits) of an irrational answer, or of a rational with a non-terminating decimal."""
    value = info["value"]
    if not value or "i" in value:
        return []
    irrational = is_irrational(value)
    if not irrational and (value["1"].denominator == 1 or _decimal_text(value["1"]) is not None):
        return []
    x = numeric(value).real
    numbers = list(dict.fromkeys(_approximation_text(x, s) for s in (3, 4, 5)))
    unit = " degrees" if info.get("unit") == "degrees" else ""
    out = []
    for k, number in enumerate(numbers):
        styles = [
            ("approximately", "text", f"approximately {number}{unit}"),
            ("about", "text", f"about {number}{unit}"),
            ("unicode-approx", "text", f"≈ {number}{unit}"),
            ("latex-approx", "text", f"$\\approx {number}$" + unit),
            ("trailing-dots", "text", f"{number}...{unit}"),
            ("roughly", "text", f"roughly {number}{unit}"),
            ("bare-decimal", "plain", number),
        ]
        for style, notation, raw in styles[k::3]:
            case = _rendering(
                f"{style}-{len(number.replace('-', '').replace('.', '').lstrip('0'))}sig",
                notation,
                raw,
                [number],
                False,
            )
            case["irrational"] = irrational
            out.append(case)
    return out


# --- wrong attempts ----------------------------------------------------------------------------------------------


def _scalar_mutations(value: dict, group: str, rng: random.Random) -> list[tuple[dict, str]]:
    out = [(_add(value, Fraction(1)), "off by one"), (_add(value, Fraction(-1)), "off by one")]
    out.append((_scale(value, Fraction(-1)), "sign flipped"))
    out.append((_scale(value, Fraction(2)), "doubled"))
    if is_rational(value):
        x = value["1"]
        if x.denominator == 1:
            digits = str(abs(int(x)))
            sign = -1 if x < 0 else 1
            if len(digits) > 1:
                k = rng.randrange(len(digits))
                out.append(({"1": Fraction(sign * int(digits[:k] + digits[k + 1 :]))}, "digit dropped"))
            out.append(({"1": Fraction(sign * int(digits + str(rng.randrange(10))))}, "digit appended"))
            out.append(({"1": Fraction(sign * int("1" + digits))}, "near miss holding the answer's digits"))
        else:
            out.append(({"1": 1 / x}, "reciprocal"))
            out.append(({"1": Fraction(x.numerator + 1, x.denominator)}, "different numerator"))
            out.append(({"1": Fraction(x.numerator, x.denominator + 1)}, "different denominator"))
            out.append(({"1": Fraction(x.numerator, x.denominator * 10 + x.denominator % 10 or 1)}, "digit appended"))
    elif "i" in value:
        conjugate = {a: (-c if a == "i" else c) for a, c in value.items()}
        out.append((conjugate, "conjugate"))
        swapped = {"1": value.get("i", Fraction(0)), "i": value.get("1", Fraction(0))}
        out.append(({a: c for a, c in swapped.items() if c}, "real and imaginary parts swapped"))
    else:
        for atom, c in value.items():
            if isinstance(atom, int):
                bigger = atom + 1 if math.isqrt(atom + 1) ** 2 != atom + 1 else atom + 2
                out.append(({(bigger if a == atom else a): v for a, v in value.items()}, "different radicand"))
                if c.denominator == 1 and c > 1 and math.isqrt(int(c)) ** 2 != int(c):
                    out.append(
                        (
                            {int(c): Fraction(atom), **{a: v for a, v in value.items() if a != atom}},
                            "swapped coefficient and radicand",
                        )
                    )
            if atom in ("pi", "pi2", "1/pi"):
                rest = {a: v for a, v in value.items() if a != atom}
                out.append((_add_values(rest, {"1": c}) or {"1": c}, "pi dropped"))
            if atom != "1":
                out.append(({a: (v + 1 if a == atom else v) for a, v in value.items()}, "coefficient off by one"))
    return [(v, how) for v, how in out if v and not _same(v, value)]


def wrong_attempts(info: dict, problem: str, rng: random.Random) -> list[tuple[list[dict], str]]:
    """Wrong values an attempt ends with, as (renderings, how); never equal to the answer."""
    group = info["group"]
    out = []
    if group == "dec":
        text = info["answer"]
        with_zero = "0" + text if text.startswith(".") else text
        x, places = Fraction(with_zero), len(with_zero.partition(".")[2])
        for y, how in (
            (x * 10, "decimal point shifted"),
            (x / 10, "decimal point shifted"),
            (x + Fraction(1, 10**places), "last digit off by one"),
            (-x, "sign flipped"),
            (Fraction(with_zero + str(rng.randrange(1, 10))), "digit appended"),
        ):
            wrong = _decimal_text(y)
            if wrong and y != x:
                out.append((_decimal_renderings(wrong if "." in wrong else wrong + ".0", None), how))
    elif group in SCALAR_GROUPS:
        for v, how in _scalar_mutations(info["value"], group, rng):
            out.append((_scalar_renderings(render(v, "latex"), v), how))
    elif group in ("pair", "tuple"):
        values = info["components"]
        variants = []
        if not _same(values[0], values[1]):
            variants.append(([values[1], values[0], *values[2:]], "components swapped"))
        k = rng.randrange(len(values))
        flipped = [_scale(v, Fraction(-1)) if j == k else v for j, v in enumerate(values)]
        variants.append((flipped, "one sign flipped"))
        bumped = [_add(v, Fraction(1)) if j == k else v for j, v in enumerate(values)]
        variants.append((bumped, "one component off by one"))
        for vs, how in variants:
            if all(vs) and not all(_same(a, b) for a, b in zip(vs, values)):
                out.append((_tuple_renderings(vs, info["names"]), how))
    elif group == "list":
        values = info["components"]
        k = rng.randrange(len(values))
        for vs, how in (
            ([_scale(v, Fraction(-1)) if j == k else v for j, v in enumerate(values)], "one root's sign flipped"),
            ([_add(v, Fraction(1)) if j == k else v for j, v in enumerate(values)], "one root off by one"),
        ):
            if all(vs) and not all(_same(a, b) for a, b in zip(vs, values)):
                out.append((_list_renderings(vs, None, []), how))
    elif group == "mat":
        rows = info["rows"]
        flat = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
        for how, change in (
            ("one entry's sign flipped", lambda v: _scale(v, Fraction(-1))),
            ("one entry off by one", lambda v: _add(v, Fraction(1))),
        ):
            r, c = rng.choice([rc for rc in flat if rows[rc[0]][rc[1]]] or flat)
            changed = [[change(v) if (i, j) == (r, c) else v for j, v in enumerate(row)] for i, row in enumerate(rows)]
            if all(all(v is not None for v in row) for row in changed):
                out.append((_matrix_renderings(changed), how))
    elif group == "intv":
        pieces = info["pieces"]
        open_, low, high, close = pieces[0]
        flipped = [({"(": "[", "[": "("}[open_] if low is not None else open_, low, high, close), *pieces[1:]]
        if low is None:
            flipped = [(open_, low, high, {")": "]", "]": ")"}[close]), *pieces[1:]]
        out.append((_interval_renderings(flipped, info["variable"]), "open and closed ends swapped"))
        if high is not None:
            bumped = [(open_, low, _add(high, Fraction(1)), close), *pieces[1:]]
        else:
            bumped = [(open_, _add(low, Fraction(-1)), high, close), *pieces[1:]]
        out.append((_interval_renderings(bumped, info["variable"]), "endpoint off by one"))
        if len(pieces) > 1:
            out.append((_interval_renderings(pieces[:1], info["variable"]), "a piece of the union dropped"))
    elif group == "choice":
        letters = sorted(set(re.findall(r"\(([A-F])\)", problem)) - {info["letter"]}) or ["A", "B", "D"]
        for letter in rng.sample(letters, min(3, len(letters))):
            out.append((_choice_renderings(letter), "another option"))
    elif group == "text":
        for word in text_alternatives(info["word"], problem):
            out.append((_text_renderings(word), "another answer of the same kind"))
    elif group == "units":
        x = info["value"]["1"]
        candidates = [(x + 1, "off by one"), (x - 1, "off by one"), (x * 2, "doubled")]
        if info["unit"] == "degrees" and x < 180:
            candidates.append((180 - x, "supplement instead of the angle"))
        if x.denominator == 1:
            candidates.append((int("1" + str(int(x))), "near miss holding the answer's digits"))
        for y, how in candidates:
            if y != x and y > 0:
                number = (
                    str(y)
                    if y.denominator == 1
                    else (f"{float(y):.2f}" if "." in info["number"] else f"{y.numerator}/{y.denominator}")
                )
                out.append((_units_renderings(info["unit"], number, Fraction(y)), how))
    elif group == "base":
        digits, base = info["digits"], info["base"]
        last = str((int(digits[-1]) + 1) % base)
        for d, how in (
            (digits[:-1] + last, "last digit off by one"),
            (digits[::-1], "digits reversed"),
            (digits + "0", "digit appended"),
        ):
            if d != digits and not (len(d) > 1 and d[0] == "0"):
                out.append((_base_renderings(d, base), how))
        out.append((_base_renderings(digits, base + 1), "wrong base"))
    elif group == "eq":
        answer = info["answer"]
        flipped = answer.replace("+", "#").replace("-", "+").replace("#", "-") if re.search(r"[+-]", answer) else None
        if flipped and flipped != answer:
            out.append((_equation_renderings(flipped)[0], "signs flipped"))
        bumped = re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), answer, count=1)
        if bumped != answer:
            out.append((_equation_renderings(bumped)[0], "coefficient off by one"))
    else:
        answer = info["answer"]
        flipped = re.sub(
            r" - | \+ |-|\+", lambda m: {"-": "+", "+": "-", " - ": " + ", " + ": " - "}[m.group(0)], answer, count=1
        )
        if flipped != answer:
            out.append((_expression_renderings(flipped)[0], "one sign flipped"))
        bumped = re.sub(r"(?<![\^{\d])\d+", lambda m: str(int(m.group(0)) + 1), answer, count=1)
        if bumped != answer:
            out.append((_expression_renderings(bumped)[0], "coefficient off by one"))
    return [(renderings, how) for renderings, how in out if renderings]


# --- numbers a critique quotes -----------------------------------------------------------------------------------


def _without_figures(text: str) -> str:
    return re.sub(r"\[asy\].*?\[/asy\]", " ", text, flags=re.S)


_NUMBER = re.compile(r"\\frac\{(-?\d+)\}\{(\d+)\}|(?<![\w.^_{\\])(-?\d+(?:\.\d+)?|\.\d+)(?![\w.]?\d|[\w_^])")


def numbers_in(text: str) -> list[tuple[str, Fraction]]:
    """Numbers written in a text (integers, decimals, \\frac{a}{b}, a/b), as (text, value)."""
    out = []
    for match in _NUMBER.finditer(text):
        if match.group(1):
            if int(match.group(2)) == 0:
                continue
            out.append((match.group(0), Fraction(int(match.group(1)), int(match.group(2)))))
        else:
            out.append((match.group(3), Fraction(match.group(3))))
    for match in re.finditer(r"(?<![\w.])(-?\d+)/(\d+)(?![\w.]?\d)", text):
        if int(match.group(2)):
            out.append((match.group(0), Fraction(int(match.group(1)), int(match.group(2)))))
    return out


def forbidden_values(info: dict) -> list[complex]:
    """Values no clean critique may quote: the answer's value, a list answer's elements, a base-n answer in decimal."""
    group = info["group"]
    if group in SCALAR_GROUPS or group == "units":
        return [numeric(info["value"])] if info["value"] else []
    if group == "list":
        return [numeric(v) for v in info["components"]]
    if group == "base":
        return [int(info["digits"], info["base"]), int(info["digits"])]
    return []


def _too_close(x: Fraction, forbidden: list[complex]) -> bool:
    for f in forbidden:
        if abs(complex(float(x)) - f) <= 1e-9 * max(1.0, abs(f)):
            return True
        if f.imag == 0 and f.real != round(f.real) and abs(float(x) - f.real) <= 0.005 * abs(f.real):
            return True
    return False


def forbidden_strings(info: dict) -> list[str]:
    """Written forms of the answer no clean critique may contain."""
    strings = {r["raw"] for r in info["written"]}
    if info["group"] in SCALAR_GROUPS or info["group"] in ("units", "base", "text", "choice", "eq", "expr"):
        strings |= {r["parts"][0] for r in info["written"] if len(r["parts"]) == 1}
    if info["group"] == "text":
        strings |= {info["word"].lower(), info["word"].capitalize()}
    strings |= {r["raw"] for r in info["equivalents"]}
    return sorted(s for s in strings if s)


# --- critique templates ------------------------------------------------------------------------------------------

# Value slots: {V} in a sentence, {M} inside math ($...$, \boxed{}, \[...\]), {C} in code. Other slots: {W} the
# attempt's wrong value, {N} a number of the problem, {I} an intermediate of the worked solution, {S}/{S2} step
# numbers. Groups: "all", or answer groups (see GROUPS; "units" templates also by unit: degrees/dollars/cents/...).
LEAK_TEMPLATES = [
    ("correction", "all", "Your final answer {W} is not right. It should be {V}, not {W}."),
    (
        "final-answer-line",
        "all",
        "The approach is reasonable, but the execution slips in step {S}.\n\nFinal answer: {V}",
    ),
    (
        "bullets",
        "all",
        "A few things to fix:\n- Step {S} silently drops a term.\n- Your conclusion ({W}) does not follow.\n- The correct result is {V}.",
    ),
    ("bold-labels", "all", "**What went wrong:** step {S} misapplies the key identity.\n**Correct answer:** {V}"),
    (
        "parenthetical",
        "all",
        "Once you fix the slip in step {S}, everything goes through cleanly (the answer comes out to {V}), so redo the last few lines.",
    ),
    (
        "question-end",
        "all",
        "You concluded {W}. Are you sure? Recheck step {S}: doesn't the computation actually give {V}?",
    ),
    ("boxed", "all", "Good start, but the work near the end is off. The final line should read $\\boxed{{M}}$."),
    (
        "display-block",
        "all",
        "Redo the final simplification carefully. You should end up with\n\\[\n{M}\n\\]\ninstead of {W}.",
    ),
    ("display-dollars", "all", "Your algebra in the last step is off. It should read\n$$\n{M}\n$$"),
    ("code-block", "all", "Sanity check:\n```python\nans = {C}\n```\nYour submitted value {W} disagrees with this."),
    ("numbered", "all", "1. Setup: fine.\n2. Step {S}: this is where the error is.\n3. Correct result: {V}."),
    (
        "hedged",
        "all",
        "I believe the right answer is {V}; your reasoning up to step {S} is fine, it is the last computation that fails.",
    ),
    ("table", "all", "| | value |\n|---|---|\n| yours | {W} |\n| expected | {V} |"),
    (
        "colon-mid",
        "all",
        "The issue is in step {S}. Fixed, it gives the answer: {V}. Everything before that step is correct.",
    ),
    ("quote-reply", "all", "> so the answer is {W}\n\nNo, the answer is {V}. Look again at how you used {N}."),
    ("should-have", "all", "You should have gotten {V}. Your {W} comes from a slip in step {S}."),
    ("expected-got", "all", "Expected {V}; got {W}. The setup is right, so the slip is arithmetic."),
    (
        "worked-line",
        "int frac dec rad pi mixed cplx base units",
        "Plugging {N} in correctly, the last line becomes $x = {M}$, which is what you should have reported.",
    ),
    (
        "mid-derivation",
        "int frac dec rad pi mixed cplx",
        "You had {I} after step {S}, which is correct. Simplifying further gives {V}, and that is the value to report.",
    ),
    (
        "derivation-chain",
        "int frac dec rad pi mixed cplx units",
        "From {I} the next step gives {V}; you instead wrote {W}.",
    ),
    (
        "substitute-check",
        "int frac dec rad pi mixed cplx expr intv pair tuple list mat units base eq",
        "If you substitute {V} back into the original condition it checks out, while {W} does not.",
    ),
    (
        "count",
        "int",
        "You missed some cases when counting, so {W} is wrong. Organise the cases by the first choice and the total comes to {V}.",
    ),
    ("sign-slip", "int", "Watch the sign in step {S}. With it fixed the value is {V}."),
    ("total-sum", "int", "Add the cases up again: the total is {V}, not {W}."),
    ("skipped-case", "int", "You skipped a case. Including it, the count is {V}."),
    ("evaluate-again", "int", "The value you want is {V}: evaluate the expression at the right point again."),
    ("solve-last", "int", "Your last equation is right but you solved it wrongly: $n = {M}$."),
    (
        "lowest-terms",
        "frac",
        "Your fraction is not in lowest terms and the numerator is off as well. Simplified, you get {V}.",
    ),
    (
        "probability",
        "probability",
        "The count of favourable outcomes is wrong, so the probability should be {V} rather than {W}.",
    ),
    ("common-fraction", "frac mixed", "The problem asks for a common fraction; the answer is {V}."),
    ("rounding", "dec", "Do not round in the middle of the computation. Carrying full precision, the answer is {V}."),
    ("simplify-radical", "rad", "Simplify the radical completely: the length is {V}."),
    ("distance", "rad", "Your distance formula has a squared term wrong. The distance comes out to {V}."),
    ("leave-pi", "pi", "Leave the answer in terms of $\\pi$: it is {V}."),
    ("forgot-pi", "pi", "You dropped the factor of $\\pi$ when computing the area; with it the answer is {V}."),
    ("mixed-form", "mixed", "Write it as a mixed number: {V}."),
    ("conjugate", "cplx", "Multiply numerator and denominator by the conjugate. After using $i^2 = -1$ you get {V}."),
    ("collect-parts", "cplx", "When you expand, collect the real and imaginary parts separately; the result is {V}."),
    ("collect-terms", "expr", "After collecting like terms the expression simplifies to {V}."),
    ("missing-terms", "expr", "Your expansion is missing terms; it should be {V}."),
    ("in-terms-of", "expr", "Express the result in terms of the given quantities: {V}."),
    ("solution-set", "intv", "The solution set is {V}."),
    ("endpoints", "intv", "Check the endpoints: the condition holds exactly for {V}."),
    ("sign-chart", "intv", "Make a sign chart. Testing a point in each region, the inequality holds for {V}."),
    ("range-attained", "intv", "The answer is {V}; your {W} includes a value that is never attained."),
    ("solve-system", "pair tuple", "Solving the system correctly gives {V}."),
    ("point", "pair", "The point should be {V}; recheck your substitution into the formula."),
    ("coefficients", "tuple", "Matching coefficients on both sides gives {V}."),
    ("roots", "list", "The solutions are {V}."),
    ("missed-root", "list", "You found only part of the answer. All solutions: {V}."),
    ("matrix-entry", "mat", "One of your entries is off; the result should be {V}."),
    ("matrix-recompute", "mat", "Recompute it entry by entry; you should get {V}."),
    ("matrix-display", "mat", "The correct result is\n\\[\n{M}\n\\]\nCheck the signs in your second entry."),
    ("option", "choice", "The correct option is {V}."),
    ("only-option", "choice", "Only {V} works; {W} fails when you test it."),
    ("text-not", "text", "The answer is {V}, not {W}."),
    (
        "text-reason",
        "text",
        "Following the reasoning through, it has to be {V}. Your choice of {W} comes from a misreading.",
    ),
    ("angle", "degrees", "The angle is {V}; you mixed up the angle with its supplement."),
    ("cost", "dollars cents", "Your cost calculation is off. The amount is {V}."),
    ("area", "inches centimeters", "Compute each face again: the area is {V}."),
    ("base-convert", "base", "Converting carefully, the result in the requested base is {V}."),
    ("base-carry", "base", "Your digits are off because of a carrying error; the answer is {V}."),
    ("line-equation", "eq", "The equation is {V}."),
    ("equation-check", "eq", "Plug a point in and you will see your equation fails; the correct one is {V}."),
]

EXACT_FORM_TEMPLATES = {"lowest-terms", "common-fraction", "leave-pi", "simplify-radical", "mixed-form"}

CLEAN_TEMPLATES = [
    (
        "wrong-final",
        "all",
        "Your final answer {W} is incorrect. The mistake is in step {S}, where you used {N} in the wrong place.",
    ),
    (
        "fine-until",
        "all",
        "Everything is fine up to {I}. After that the algebra goes wrong, so the conclusion does not hold.",
    ),
    (
        "bullets",
        "all",
        "- Step {S}: a term is dropped.\n- Step {S2}: {I} is right.\n- Final: {W} is not correct; redo the last substitution.",
    ),
    (
        "misread",
        "all",
        "You misread the given value {N}. Your answer {W} follows from that slip, so fix the setup first.",
    ),
    (
        "bold-labels",
        "all",
        "**Error:** the final answer {W} is wrong.\n**Hint:** recheck how you combined {I} with {N}.",
    ),
    (
        "substitute-back",
        "all",
        "Your answer, {W}, does not satisfy the original condition. Try substituting it back in.",
    ),
    ("code-block", "all", "```\nans = {WC}  # your value\n```\nThis is wrong; the error is on line {S} of your work."),
    (
        "question",
        "all",
        "Is {W} really the final value? The intermediate {I} looks right, so the error must come later.",
    ),
    ("boxed", "all", "You boxed $\\boxed{{WM}}$, but that is not correct. Look again at step {S}."),
    (
        "numbered",
        "all",
        "1. Good: you used {N} correctly.\n2. Problem: {I} was never simplified.\n3. Your result {W} is therefore wrong.",
    ),
    ("no-value", "all", "The method is right, but you made an arithmetic slip in step {S}. Recompute from there."),
    (
        "quote-reply",
        "all",
        "> so the answer is {W}\n\nThis does not follow from the previous line. Check the step where {N} enters.",
    ),
    ("table", "all", "| step | status |\n|---|---|\n| {S} | wrong sign |\n| final ({W}) | incorrect |"),
    ("hedged", "all", "I do not think {W} is right. Your value {I} is fine, but the final step is not."),
    ("count", "int", "You double-counted some cases, which is why you got {W}. Recount carefully, grouping by {N}."),
    ("fraction", "frac", "Your fraction {W} is wrong; the number of favourable outcomes is miscounted."),
    ("pair", "pair tuple", "Your {W} does not satisfy the second condition. Check the substitution."),
    (
        "interval",
        "intv",
        "Your interval {W} includes points where the expression is undefined. Check the endpoints again.",
    ),
    ("matrix", "mat", "Your result {W} has an error in one entry; recompute it entry by entry."),
    ("option", "choice", "Option {W} is wrong: test it against the given equation."),
    ("text", "text", "You chose {W}; reread the definitions and check again."),
    ("roots", "list", "Your list {W} is wrong: check each root in the original equation."),
    ("expression", "expr", "Your expression {W} is off: at least one coefficient is wrong after expanding."),
]


def _applies(groups: str, info: dict) -> bool:
    names = groups.split()
    return "all" in names or info["group"] in names or info["subgroup"] in names


def _slot(template: str) -> str:
    return "math" if "{M}" in template else "code" if "{C}" in template else "prose"


def _fill(rendering: dict, slot: str, rng: random.Random) -> str | None:
    if slot not in SLOTS[rendering["notation"]]:
        return None
    if slot == "prose" and rendering["notation"] == "latex":
        return f"${rendering['raw']}$" if rng.random() < 0.75 else f"\\({rendering['raw']}\\)"
    return rendering["raw"]


class _Context:
    """The problem's numbers, solution intermediates, step numbers and wrong values a critique may quote."""

    def __init__(self, row: dict, info: dict, rng: random.Random):
        self.rng = rng
        self.forbidden = forbidden_values(info)
        self.forbidden_strings = forbidden_strings(info)
        self.problem_numbers = self._allowed(numbers_in(_without_figures(row["problem"])))
        solution = re.sub(r"\\boxed\{.*", "", _without_figures(row["solution"]), flags=re.S)
        self.intermediates = self._allowed(numbers_in(solution))
        self.steps = [s for s in range(2, 9) if self._ok(str(s), Fraction(s))]
        self.wrongs = wrong_attempts(info, row["problem"], rng)

    def _ok(self, text: str, value: Fraction) -> bool:
        return not _too_close(value, self.forbidden) and not any(occurrences(s, text) for s in self.forbidden_strings)

    def _allowed(self, numbers):
        return list(dict.fromkeys(text for text, value in numbers if self._ok(text, value)))

    def quote(self, text: str) -> str:
        return f"${text}$" if self.rng.random() < 0.6 or "\\" in text else text

    def fill(self, template: str) -> tuple[str, dict] | None:
        """The template with every slot but the value's filled; None when a slot has nothing to quote."""
        values = {}
        if "{N}" in template:
            if not self.problem_numbers:
                return None
            values["{N}"] = self.quote(self.rng.choice(self.problem_numbers))
        if "{I}" in template:
            if not self.intermediates:
                return None
            values["{I}"] = self.quote(self.rng.choice(self.intermediates))
        if "{S}" in template or "{S2}" in template:
            if len(self.steps) < 2:
                return None
            values["{S}"], values["{S2}"] = (str(s) for s in self.rng.sample(self.steps, 2))
        if "1." in template and not all(self._ok(m, Fraction(m)) for m in ("1", "2", "3")):
            return None
        wrong_slot = next((s for s in ("{WM}", "{WC}", "{W}") if s in template), None)
        meta = {"wrong": None, "wrong_how": None}
        if wrong_slot:
            if not self.wrongs:
                return None
            renderings, how = self.rng.choice(self.wrongs)
            slot = {"{WM}": "math", "{WC}": "code", "{W}": "prose"}[wrong_slot]
            usable = [r for r in renderings if slot in SLOTS[r["notation"]] and r["notation"] != "text"]
            if slot == "prose" and not usable:
                usable = [r for r in renderings if r["raw"].isascii()]
            if not usable:
                return None
            rendering = self.rng.choice(usable[:6])
            text = _fill(rendering, slot, self.rng)
            values[wrong_slot] = text
            meta = {"wrong": text, "wrong_how": how, "wrong_style": rendering["style"]}
        for key, text in values.items():
            template = template.replace(key, text)
        return template, meta

    def clean_ok(self, text: str) -> bool:
        if any(occurrences(s, text) for s in self.forbidden_strings):
            return False
        if any(
            s.isalpha() and re.search(r"(?<!\w)" + re.escape(s) + r"(?!\w)", text, re.I)
            for s in self.forbidden_strings
        ):
            return False
        return not any(_too_close(value, self.forbidden) for _, value in numbers_in(text))


def _case(family, index, info, style, frame, text, leak, **extra) -> dict:
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": info["kind"],
        "style": style,
        "frame": frame,
        "text": text,
        "leak": leak,
        **extra,
    }


def _leak_cases(family, index, info, renderings, count, context: _Context, rng, used: Counter) -> list[dict]:
    """`count` leak cases from `renderings`, each in a template of the answer's type that takes its notation."""
    templates = [t for t in LEAK_TEMPLATES if _applies(t[1], info)]
    if family == "approximation":  # these templates ask for the exact form
        templates = [t for t in templates if t[0] not in EXACT_FORM_TEMPLATES]
    order = list(renderings)
    rng.shuffle(order)
    cases, seen = [], set()
    attempts = 0
    while len(cases) < count and order and attempts < count * 12:
        rendering = order[attempts % len(order)]
        attempts += 1
        fitting = [t for t in templates if _slot(t[2]) in SLOTS[rendering["notation"]]]
        if not fitting:
            continue
        specific = [t for t in fitting if t[1] != "all" and len(t[1].split()) <= 3]
        formula = [t for t in fitting if _slot(t[2]) != "prose"]
        draw = rng.random()
        if formula and draw < 0.3:  # \boxed{}, display math, code: where a reviewer writes a value as a formula
            fitting = formula
        elif specific and draw < 0.65:  # a template written for this kind of problem
            fitting = specific
        least = min(used[t[0]] for t in fitting)
        name, _, template = rng.choice([t for t in fitting if used[t[0]] == least])
        if (rendering["style"], name) in seen:
            continue
        filled = context.fill(template)
        if filled is None:
            used[name] += 1
            continue
        template, _ = filled
        slot = _slot(template)
        value = _fill(rendering, slot, rng)
        marker = {"prose": "{V}", "math": "{M}", "code": "{C}"}[slot]
        text, context_text = template.replace(marker, value), template.replace(marker, "")
        if not all(occurrences(p, text) > occurrences(p, context_text) for p in rendering["parts"]):
            continue
        seen.add((rendering["style"], name))
        used[name] += 1
        extra = {"written_out": rendering["written_out"], "parts": list(rendering["parts"]), "context": context_text}
        if "irrational" in rendering:
            extra["irrational"] = rendering["irrational"]
        cases.append(_case(family, index, info, rendering["style"], name, text, True, **extra))
    return cases


def _clean_cases(index, info, count, context: _Context, rng) -> list[dict]:
    templates = [t for t in CLEAN_TEMPLATES if _applies(t[1], info)]
    rng.shuffle(templates)
    specific = [t for t in templates if t[1] != "all"]
    cases = []
    for name, _, template in specific + [t for t in templates if t[1] == "all"]:
        if len(cases) == count:
            break
        filled = context.fill(template)
        if filled is None:
            continue
        text, meta = filled
        if not context.clean_ok(text):
            continue
        style = "no-wrong-value" if meta["wrong"] is None else "wrong-" + meta.pop("wrong_style")
        extra = {"written_out": False, "parts": [], "context": text, **meta}
        cases.append(_case("clean", index, info, style, name, text, False, **extra))
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """Leak and clean critiques for every problem; deterministic for a seed, all held out."""
    kinds = [answer_type(row["answer"], row["problem"]) for row in problems]
    per_type = Counter(kinds)
    cases = []
    for index, (row, kind) in enumerate(zip(problems, kinds)):
        rng = random.Random(f"{seed}:{index}")
        info = describe(row["answer"], kind, row["problem"])
        context = _Context(row, info, rng)
        used: Counter = Counter()
        written = math.ceil(max(5, 26 / per_type[kind]))
        cases += _leak_cases("rendering", index, info, info["written"], written, context, rng, used)
        cases += _leak_cases("rendering", index, info, info["equivalents"], 2, context, rng, used)
        cases += _leak_cases("arithmetic", index, info, arithmetic_statements(info, rng), 2, context, rng, used)
        cases += _leak_cases("approximation", index, info, approximations(info), 3, context, rng, used)
        cases += _clean_cases(index, info, 5, context, rng)
    return cases


def type_table(cases: list[dict]) -> list[tuple[str, int, int, int]]:
    """(answer type, written-out leaks, all leaks, clean) for each type with cases."""
    rows = []
    for kind in ANSWER_TYPES:
        mine = [c for c in cases if c["answer_type"] == kind]
        if mine:
            leaks = [c for c in mine if c["leak"]]
            rows.append((kind, sum(c["written_out"] for c in leaks), len(leaks), len(mine) - len(leaks)))
    return rows


def main() -> None:
    cases = corpus(load_problems())
    print(f"{'answer type':<22}{'written-out':>12}{'leaks':>8}{'clean':>8}")
    for kind, written, leaks, clean in type_table(cases):
        print(f"{kind:<22}{written:>12}{leaks:>8}{clean:>8}")
    families = Counter(c["family"] for c in cases)
    print("families:", dict(families), "total:", len(cases))


if __name__ == "__main__":
    main()
