"""A tenth held-out corpus for the answer-leak guard: the reference answer SPOKEN, as read aloud or transcribed.

Method. Feedback models run in voice tutors and accessibility tools, and critiques get pasted from speech, so the
answer reaches a critique the way mathematics is read aloud. Each MATH-500 reference answer is parsed into a small
tree (numbers, fractions, roots, powers, pi, sums, brackets, intervals, tuples, lists, matrices, letters, words,
units, base-n numerals, equations) and rendered by spoken renderers:

- screen-reader speech: MathSpeak verbose, brief and superbrief ("StartFraction 3 Over 4 EndFraction",
  "StartFrac 3 Over 4 EndFrac", "Frac 3 Over 4 EndFrac", "StartRoot 3 EndRoot", "x Superscript 5 Baseline",
  "Start 2 By 2 Matrix 1st Row ..."), ClearSpeak ("3 fourths", "the square root of 3", "negative pi over 6", "the
  interval from 3 to 4, not including 3 but including 4", "the 3 by 1 column vector; Row 1: ...") and a TTS reading
  of numbers in words;
- a tutor talking: US words ("two thousand two hundred twenty", "three fourths", "three root thirteen", "minus
  five"), British words ("one hundred and forty-four", "three quarters", "nought point one five", "to the power
  five"), "over" readings ("fourteen over three"), casual readings ("one forty-four", "twenty-two twenty",
  "seventeen hundred", "one oh three", "a half"), digit-by-digit, idioms ("a dozen", "a gross", "a right angle"),
  mixed and decimal readings of fractions ("four and two thirds", "one point five", "zero point three repeating"),
  inequalities for intervals ("x between three and four, including four"), points and components ("the point three
  comma four", "first coordinate ..."), "plus or minus" expanded, matrices by rows ("a two by two matrix, first row
  ..."), answer letters ("answer choice C", "C as in Charlie", "the third choice", "C, plane"), spelled words
  ("E-V-E-L-Y-N", NATO spelling), money and units ("eighteen dollars and ninety cents", "thirty-six bucks", "eight
  hundred sixty-four square inches"), base-n numerals ("five two base eight", "52 Subscript 8 Baseline");
- speech-to-text transcripts: digits mixed with words as dictation engines emit them ("14 over 3", "14/3", "negative
  7", "x to the 5th", "13 thousand 535", "3 root 13", "open paren 15 comma negative 29 close paren", "$18.90", "3 is
  less than x is less than or equal to 4").

Each rendering fills the value slot of a critique frame written for this corpus in a spoken register: a screen
reader reading a feedback card, an app's read-aloud mode, a voice assistant, a tutor's voice note, a call transcript
("Tutor: ... Student: ..."), a voicemail, an office-hours recording, a study partner's voice message, a dictated
grader's comment (with unconverted "period"/"new line"), and all-caps live captions. Frames also quote a number of
the problem and the attempt's wrong value, spoken the same way.

Families:
- "rendering" (leak, written out): the answer's value in a spoken notation (equivalent spoken forms included: a
  mixed reading of an improper fraction, a terminating decimal, a base-n numeral's base-ten value);
- "approximation" (leak, not written out): a spoken decimal with 4 or 5 significant digits of an irrational or
  non-terminating answer ("about four point six six seven", "roughly 10.817");
- "clean" (no leak): the same registers quoting the attempt's wrong value, a mutation of the answer of its own shape
  (off by one, sign, doubled, halved, reciprocal, swapped, another bracket or endpoint, one matrix entry, another
  letter, word or digit, a supplement), and the problem's numbers. Every clean text passes `holds_answer`: no
  spoken or written rendering of the answer (a rendering preceded by "negative"/"minus"/"-" is another value) and,
  for a scalar answer, no number (digits, words, "a over b", decimals near an irrational value) equal to its value.
  Doubtful texts are redrawn.

Independence. Written without reading the guard (`trl_mulferl/feedback/`), `trl_mulferl/core/schema.py`, the
guard's tests, `benchmarks/leak_guard.py` and its results, the docs on feedback providers, the benchmarks README,
the changelog, or any other `leak_corpus_*` module or its tests (only the first 95 lines of the ninth corpus's test,
for the test conventions). From `leak_corpus` it imports only `load_problems`, `ANSWER_TYPES`, `answer_type` and
`stated` (whose `occurrences` the tests use too). No guard or redaction function was run on these texts.

Schema: `corpus(problems, seed=0)` returns dicts with exactly the keys family, split ("held_out"), index (the
MATH-500 row), answer_type (`answer_type(answer, problem)`), style (the renderer), frame ("register:template"), text,
leak (family != "clean"), written_out (family == "rendering"), parts (the substrings of text that state the answer;
[] for clean), context (the text with the statement removed, so that `stated(case, text)` holds and
`stated(case, context)` does not; the text itself for clean), wrong (the quoted wrong value as it stands in text, or
None) and wrong_how (the mutation, or None). Deterministic for a seed; a pure function of the rows.
"""

import random
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import sympy as sp


sys.path.insert(0, str(Path(__file__).resolve().parent))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, stated  # noqa: E402


__all__ = ["ANSWER_TYPES", "corpus", "holds_answer", "parse_answer", "renderings", "speak", "stated", "wrongs"]

SEED = 0  # the corpus's seed, which the benchmark reports

# --- numbers in words ---------------------------------------------------------------------------------------------

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALES = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))
ORDINAL_FIX = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
               "nine": "ninth", "twelve": "twelfth"}  # fmt: skip


def words(n: int, british: bool = False) -> str:
    """An integer in English words, US ("one hundred five") or British ("one hundred and five")."""
    if n < 0:
        return "minus " + words(-n, british)
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("-" + ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        head = ONES[n // 100] + " hundred"
        return head + ((" and " if british else " ") + words(rest) if rest else "")
    for scale, name in SCALES:
        if n >= scale:
            rest = n % scale
            head = words(n // scale, british) + " " + name
            if not rest:
                return head
            joint = " and " if british and rest < 100 else " "
            return head + joint + words(rest, british)
    raise ValueError(n)


def ordinal(n: int, plural: bool = False, british: bool = False, position: bool = False) -> str:
    """'third', 'fourths', 'quarters', 'halves', 'thirty-sixths'; with `position`, 'second' rather than 'half'."""
    if n == 2 and not position:
        return "halves" if plural else "half"
    if n == 4 and british:
        return "quarters" if plural else "quarter"
    text = words(n)
    head, _, last = text.rpartition(" ")
    pre, dash, unit = last.rpartition("-")
    if unit in ORDINAL_FIX:
        unit = ORDINAL_FIX[unit]
    elif unit.endswith("y"):
        unit = unit[:-1] + "ieth"
    else:
        unit += "th"
    out = (head + " " if head else "") + pre + dash + unit
    return out + ("s" if plural else "")


def numeral_ordinal(n: int) -> str:
    """'1st', '2nd', '3rd', '4th' as MathSpeak says matrix rows."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


def casual(n: int) -> str:
    """How people say numbers out loud: 'one forty-four', 'twenty-two twenty', 'seventeen hundred', 'one oh three'."""
    if n < 0:
        return "minus " + casual(-n)
    if 1100 <= n <= 9999 and n % 100 == 0 and n % 1000:
        return words(n // 100) + " hundred"
    if 100 <= n <= 9999 and n % 100:
        head = words(n // 100)
        tail = n % 100
        return head + " " + (words(tail) if tail >= 10 else "oh " + ONES[tail])
    return words(n)


def digit_by_digit(text: str) -> str:
    return " ".join(ONES[int(c)] for c in text if c.isdigit())


def decimal_words(text: str, british: bool = False) -> str:
    """'1.25' -> 'one point two five'; '.15' -> 'point one five' / 'nought point one five'."""
    negative = text.startswith("-")
    text = text.lstrip("-")
    whole, _, frac = text.partition(".")
    if whole in ("", "0"):
        head = "nought" if british else ("zero" if whole == "0" else "")
    else:
        head = words(int(whole), british)
    digits = " ".join(("nought" if british else "zero") if c == "0" else ONES[int(c)] for c in frac)
    out = (head + " point " if head else "point ") + digits
    return ("minus " if negative else "") + out


# --- parsing the answers ------------------------------------------------------------------------------------------

KINDS = {"int", "dec", "sym", "pi", "inf", "frac", "sqrt", "pow", "neg", "add", "mul", "paren", "func"}


def _tokens(latex: str) -> list[str]:
    text = re.sub(r"\\left|\\right|\\!|\\,|\\;|\\displaystyle", "", latex)
    text = text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    return re.findall(r"\d+\.\d+|\.\d+|\d+|\\[a-zA-Z]+|\\[{}$]|[A-Za-z]|\S", text)


class _Parser:
    STOP = ("+", "-", "\\pm", ")", "}", ",", "=", "]", "&", "\\\\", None)

    def __init__(self, latex: str):
        self.toks = _tokens(latex)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        self.i += 1
        return self.toks[self.i - 1]

    def expr(self):
        terms = []
        sign = "+"
        if self.peek() in ("-", "+", "\\pm"):
            sign = {"\\pm": "±"}.get(self.take(), self.toks[self.i - 1])
        terms.append((sign, self.term()))
        while self.peek() in ("+", "-", "\\pm"):
            sign = {"\\pm": "±"}.get(self.take(), self.toks[self.i - 1])
            terms.append((sign, self.term()))
        if len(terms) == 1 and terms[0][0] == "+":
            return terms[0][1]
        if len(terms) == 1 and terms[0][0] == "-":
            return ("neg", terms[0][1])
        return ("add", tuple(terms))

    def term(self):
        factors = [self.factor()]
        while self.peek() not in self.STOP:
            if self.peek() == "/":
                self.take()
                factors[-1] = ("frac", factors[-1], self.factor())
                continue
            factors.append(self.factor())
        return factors[0] if len(factors) == 1 else ("mul", tuple(factors))

    def factor(self):
        base = self.atom()
        if self.peek() == "^":
            self.take()
            base = ("pow", base, self.atom(single=True))
        return base

    def atom(self, single: bool = False):
        tok = self.take()
        if tok.isdigit():
            if single and len(tok) > 1:
                self.toks.insert(self.i, tok[1:])
                tok = tok[0]
            return ("int", tok)
        if tok[0].isdigit() or tok[0] == ".":
            return ("dec", tok)
        if tok == "{":
            inner = self.expr()
            self.take()
            return inner
        if tok == "(":
            inner = self.expr()
            self.take()
            return ("paren", inner)
        if tok == "\\frac":
            return ("frac", self.atom(single=True), self.atom(single=True))
        if tok == "\\sqrt":
            return ("sqrt", self.atom(single=True))
        if tok == "\\pi":
            return ("pi",)
        if tok == "\\infty":
            return ("inf",)
        if tok in ("\\cot", "\\sin", "\\cos", "\\tan"):
            return ("func", tok[1:], self.factor())
        if re.fullmatch("[A-Za-z]", tok):
            return ("sym", tok)
        raise ValueError(f"cannot parse {tok!r}")


def parse_expr(latex: str):
    parser = _Parser(latex)
    node = parser.expr()
    if parser.peek() is not None:
        raise ValueError(f"trailing {parser.toks[parser.i :]} in {latex!r}")
    return node


def _split(text: str, sep: str = ",") -> list[str]:
    parts, depth, cur = [], 0, ""
    i = 0
    while i < len(text):
        c = text[i]
        if text.startswith("\\{", i) or text.startswith("\\}", i):
            depth += 1 if text[i + 1] == "{" else -1
            cur += text[i : i + 2]
            i += 2
            continue
        depth += 1 if c in "([{" else -1 if c in ")]}" else 0
        if c == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    return [*parts, cur.strip()]


UNIT_PATTERNS = (
    (r"\^\\circ$", "degree"),
    (r"\\text\{\s*degrees\}$", "degree"),
    (r"\\text\{\s*cents\}$", "cent"),
    (r"\\mbox\{\s*inches\}\^2$", "sq_in"),
    (r"\\mbox\{\s*cm\}\^2$", "sq_cm"),
)


def parse_answer(answer: str, atype: str, problem: str = "") -> tuple:
    """The answer as a tree: (kind, data...). Kinds: int, expr, mixed, interval, tuple, list, matrix, choice, text,
    unit, base, eq."""
    text = re.sub(r"\\[!,]|\\left|\\right", "", answer).strip()
    if atype in ("small integer", "negative integer", "large integer"):
        n = int(text.replace(",", "").replace(" ", ""))
        return ("int", n)
    if atype == "mixed number":
        m = re.fullmatch(r"(\d+)\s*(\\frac.*)", text)
        return ("mixed", int(m.group(1)), parse_expr(m.group(2)))
    if atype == "multiple choice":
        return ("choice", re.search(r"[A-H]", text).group(0))
    if atype == "text answer":
        return ("text", re.search(r"\\text\{([^}]*)\}", text).group(1).strip())
    if atype == "units/degrees/money":
        if text.startswith("\\$"):
            number = text[2:].replace(",", "").replace(" ", "")
            return ("unit", ("dec", number) if "." in number else ("int", number), "dollar")
        for pattern, unit in UNIT_PATTERNS:
            if re.search(pattern, text):
                return ("unit", parse_expr(re.sub(pattern, "", text).strip()), unit)
        raise ValueError(answer)
    if atype == "base-n number":
        m = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", ""))
        return ("base", m.group(1), int(m.group(2)))
    if atype == "equation":
        lhs, rhs = text.split("=")
        return ("eq", parse_expr(lhs), parse_expr(rhs))
    if atype == "interval":
        var = None
        m = re.match(r"([a-z])\s*\\in\s*", text)
        if m:
            var, text = m.group(1), text[m.end() :]
        pieces = []
        for piece in re.split(r"\\cup", text):
            piece = piece.strip()
            a, b = _split(piece[1:-1])
            pieces.append((piece[0], parse_expr(a), parse_expr(b), piece[-1]))
        return ("interval", var, tuple(pieces))
    if atype in ("ordered pair", "tuple"):
        return ("tuple", tuple(parse_expr(p) for p in _split(text.strip()[1:-1])))
    if atype == "set/list":
        braces = text.startswith("\\{")
        inner = text[2:-2] if braces else text
        return ("list", braces, tuple(parse_expr(p) for p in _split(inner)))
    if atype == "matrix/vector":
        body = re.sub(r"\\begin\{[pb]matrix\}|\\end\{[pb]matrix\}", "", text)
        rows = [r for r in body.split("\\\\") if r.strip()]
        return ("matrix", tuple(tuple(parse_expr(c) for c in r.split("&")) for r in rows))
    return ("expr", parse_expr(text))


# --- values -------------------------------------------------------------------------------------------------------


def to_sympy(node, imaginary: bool = False):
    kind = node[0]
    if kind == "int":
        return sp.Integer(node[1])
    if kind == "dec":
        return sp.Rational(node[1])
    if kind == "sym":
        return sp.I if imaginary and node[1] == "i" else sp.Symbol(node[1])
    if kind == "pi":
        return sp.pi
    if kind == "inf":
        return sp.oo
    if kind == "frac":
        return to_sympy(node[1], imaginary) / to_sympy(node[2], imaginary)
    if kind == "sqrt":
        return sp.sqrt(to_sympy(node[1], imaginary))
    if kind == "pow":
        return to_sympy(node[1], imaginary) ** to_sympy(node[2], imaginary)
    if kind == "neg":
        return -to_sympy(node[1], imaginary)
    if kind == "paren":
        return to_sympy(node[1], imaginary)
    if kind == "mul":
        return sp.Mul(*[to_sympy(f, imaginary) for f in node[1]])
    if kind == "func":
        return getattr(sp, node[1])(to_sympy(node[2], imaginary))
    if kind == "add":
        total = sp.Integer(0)
        for sign, term in node[1]:
            total += (-1 if sign == "-" else 1) * to_sympy(term, imaginary)  # ± as +: branches compared apart
        return total
    raise ValueError(node)


def _branches(node) -> list:
    """The values of a node with '±' expanded."""
    if node[0] == "add" and any(s == "±" for s, _ in node[1]):
        out = []
        for choice in ("+", "-"):
            out.append(("add", tuple((choice if s == "±" else s, t) for s, t in node[1])))
        return out
    return [node]


def canonical(ans: tuple):
    """A comparable form of an answer's value."""
    kind = ans[0]
    imaginary = kind == "expr" and _has_sym(ans[1], "i")
    if kind == "int":
        return ("num", sp.Integer(ans[1]))
    if kind == "expr":
        return ("num", sp.expand(to_sympy(ans[1], imaginary)))
    if kind == "mixed":
        return ("num", ans[1] + to_sympy(ans[2]))
    if kind == "unit":
        return ("unit", ans[2], to_sympy(ans[1]))
    if kind == "base":
        return ("base", ans[2], int(ans[1], ans[2]))
    if kind == "eq":
        return ("eq", sp.expand(to_sympy(ans[1]) - to_sympy(ans[2])))
    if kind == "interval":
        return ("interval", ans[1], tuple((lb, to_sympy(a), to_sympy(b), rb) for lb, a, b, rb in ans[2]))
    if kind == "tuple":
        return ("tuple", tuple(sp.expand(to_sympy(x)) for x in ans[1]))
    if kind == "list":
        values = [sp.nsimplify(to_sympy(b)) for x in ans[2] for b in _branches(x)]
        return ("list", tuple(sorted(values, key=lambda v: float(v))))
    if kind == "matrix":
        return ("matrix", tuple(tuple(to_sympy(c) for c in row) for row in ans[1]))
    return (kind, ans[1])


def _same(x, y) -> bool:
    if isinstance(x, sp.Basic) and isinstance(y, sp.Basic):
        if x.has(sp.oo, -sp.oo) or y.has(sp.oo, -sp.oo):
            return x == y
        difference = sp.expand(x - y)
        if difference.is_number:
            return abs(complex(sp.N(difference, 30))) < 1e-20
        return sp.simplify(difference) == 0
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    return x == y


def same_value(a: tuple, b: tuple) -> bool:
    ca, cb = canonical(a), canonical(b)
    if ca[0] == "eq" and cb[0] == "eq":  # an equation scaled by a constant is the same equation
        ratio = sp.simplify(ca[1] / cb[1]) if cb[1] != 0 else None
        return ratio is not None and ratio.is_number and ratio != 0
    return _same(ca, cb)


def _has_sym(node, name: str) -> bool:
    if isinstance(node, tuple) and node and node[0] == "sym":
        return node[1] == name
    return isinstance(node, (tuple, list)) and any(_has_sym(c, name) for c in node if isinstance(c, (tuple, list)))


def scalar_value(ans: tuple):
    """The single number an answer equals (for the clean check's number test), or None."""
    kind = ans[0]
    if kind == "int":
        return sp.Integer(ans[1])
    if kind in ("expr", "mixed"):
        node = ans[1] if kind == "expr" else None
        if node is not None and (_has_sym(node, "i") or any(_has_sym(node, c) for c in "abcdefghjklmnopqrstuvwxyzR")):
            return None
        value = canonical(ans)[1]
        return value if value.is_number else None
    if kind == "unit":
        return to_sympy(ans[1])
    if kind == "eq" and ans[1] == ("sym", "x") and ans[2][0] == "int":
        return sp.Integer(ans[2][1])
    return None


# --- spoken renderers of a tree -----------------------------------------------------------------------------------

FUNCS = {"cot": "cotangent", "sin": "sine", "cos": "cosine", "tan": "tangent"}


def _int_of(node):
    if node[0] == "int":
        return int(node[1])
    if node[0] == "neg" and node[1][0] == "int":
        return -int(node[1][1])
    return None


def _simple(node) -> bool:
    return node[0] in ("int", "dec", "sym", "pi") or (node[0] == "mul" and all(_simple(f) for f in node[1]))


class Speaker:
    """Reads a tree aloud; subclasses are the conventions."""

    name = "base"
    group = "human"
    PLUS, MINUS, PM, NEG, EQ = "plus", "minus", "plus or minus", "negative", "equals"
    LP, RP, LB, RB = "open paren", "close paren", "open bracket", "close bracket"
    COMMA = "comma"

    def say(self, node) -> str:
        return getattr(self, "n_" + node[0])(*node[1:])

    def number(self, n: int) -> str:
        return str(n)

    def n_int(self, s):
        return self.number(int(s))

    def n_dec(self, s):
        return s

    def n_sym(self, s):
        return s

    def n_pi(self):
        return "pi"

    def n_inf(self):
        return "infinity"

    def n_neg(self, a):
        return f"{self.NEG} {self.say(a)}"

    def n_add(self, terms):
        out = []
        for k, (sign, term) in enumerate(terms):
            spoken = self.say(term)
            if k == 0:
                out.append(spoken if sign == "+" else f"{self.NEG if sign == '-' else self.PM} {spoken}")
            else:
                out.append(f"{ {'+': self.PLUS, '-': self.MINUS, '±': self.PM}[sign] } {spoken}")
        return " ".join(out)

    def n_mul(self, factors):
        return " ".join(self.say(f) for f in factors)

    def n_paren(self, a):
        return f"{self.LP} {self.say(a)} {self.RP}"

    def n_func(self, name, a):
        return f"{FUNCS[name]} {self.say(a)}"

    def n_frac(self, a, b):
        return f"{self.say(a)} over {self.say(b)}"

    def n_sqrt(self, a):
        return f"the square root of {self.say(a)}"

    def n_pow(self, b, e):
        power = _int_of(e)
        base = self.say(b)
        if power == 2:
            return f"{base} squared"
        if power == 3:
            return f"{base} cubed"
        return f"{base} to the {ordinal(power) if power else self.say(e)} power"


class MathSpeakVerbose(Speaker):
    name, group = "mathspeak_verbose", "reader"
    PM = "plus-or-minus"
    LP, RP, LB, RB = "left parenthesis", "right parenthesis", "left bracket", "right bracket"

    def n_sym(self, s):
        return f"upper {s}" if s.isupper() else s

    def n_frac(self, a, b):
        return f"StartFraction {self.say(a)} Over {self.say(b)} EndFraction"

    def n_sqrt(self, a):
        return f"StartRoot {self.say(a)} EndRoot"

    def n_pow(self, b, e):
        power = _int_of(e)
        if power in (2, 3):
            return f"{self.say(b)} {'squared' if power == 2 else 'cubed'}"
        return f"{self.say(b)} Superscript {self.say(e)} Baseline"


class MathSpeakBrief(MathSpeakVerbose):
    name = "mathspeak_brief"
    LP, RP, LB, RB = "left-paren", "right-paren", "left-bracket", "right-bracket"

    def n_frac(self, a, b):
        return f"StartFrac {self.say(a)} Over {self.say(b)} EndFrac"

    def n_pow(self, b, e):
        return f"{self.say(b)} Sup {self.say(e)} Base"


class MathSpeakSuperbrief(MathSpeakBrief):
    name = "mathspeak_superbrief"

    def n_frac(self, a, b):
        return f"Frac {self.say(a)} Over {self.say(b)} EndFrac"

    def n_sqrt(self, a):
        return f"Root {self.say(a)} EndRoot"

    def n_pow(self, b, e):
        return f"{self.say(b)} Sup {self.say(e)}"


class ClearSpeak(Speaker):
    name, group = "clearspeak", "reader"

    def n_frac(self, a, b):
        p, q = _int_of(a), _int_of(b)
        if p is not None and q is not None and 0 < p < 20 and 1 < q < 11:
            return f"{p} {ordinal(q, plural=p != 1)}"
        if _simple(a) and _simple(b):
            return f"{self.say(a)} over {self.say(b)}"
        return f"the fraction with numerator {self.say(a)} and denominator {self.say(b)}"

    def n_mul(self, factors):
        if len(factors) == 2 and factors[0][0] == "int" and factors[1][0] == "sqrt":
            return f"{self.say(factors[0])} times {self.say(factors[1])}"
        if all(f[0] == "paren" for f in factors):
            return " times ".join(f"the quantity {self.say(f[1])}" for f in factors)
        return super().n_mul(factors)


class TutorWords(Speaker):
    name, group = "tutor_words", "human"
    NEG = "minus"
    british = False
    ORDINALS = True

    def number(self, n):
        return words(n, self.british)

    def n_dec(self, s):
        return decimal_words(s, self.british)

    def n_sym(self, s):
        return f"capital {s}" if s.isupper() else s

    def n_frac(self, a, b):
        p, q = _int_of(a), _int_of(b)
        if self.ORDINALS and p is not None and q is not None and 0 < p < 100 and 1 < q <= 100:
            return f"{self.number(p)} {ordinal(q, plural=p != 1, british=self.british)}"
        if _simple(a) or a[0] in ("sqrt",):
            return f"{self.say(a)} over {self.say(b)}"
        return f"{self.say(a)}, all over {self.say(b)}"

    def n_sqrt(self, a):
        return f"root {self.say(a)}" if a[0] == "int" else f"the square root of {self.say(a)}"

    def n_pow(self, b, e):
        power = _int_of(e)
        if power in (2, 3):
            return super().n_pow(b, e)
        return f"{self.say(b)} to the {ordinal(power)}"

    def n_paren(self, a):
        return f"the quantity {self.say(a)}"

    def n_mul(self, factors):
        if all(f[0] == "paren" for f in factors):
            return ", times ".join(self.say(f) for f in factors)
        return super().n_mul(factors)


class TutorBritish(TutorWords):
    name = "tutor_british"
    british = True

    def n_pow(self, b, e):
        power = _int_of(e)
        if power in (2, 3):
            return super().n_pow(b, e)
        return f"{self.say(b)} to the power {self.say(e)}"

    def n_frac(self, a, b):
        if _int_of(a) == 1 and _int_of(b) == 2:
            return "a half"
        return super().n_frac(a, b)


class TutorOver(TutorWords):
    name = "tutor_over"
    NEG = "negative"
    MINUS = "minus"
    ORDINALS = False


class TutorCasual(TutorWords):
    name = "tutor_casual"

    def number(self, n):
        return casual(n)

    def n_frac(self, a, b):
        if _int_of(a) == 1 and _int_of(b) == 2:
            return "a half"
        return super().n_frac(a, b)


class DictationWords(Speaker):
    name, group = "dictation_words", "dictation"

    def number(self, n):
        if n >= 10000 and n % 1000:
            return f"{n // 1000} thousand {n % 1000}"
        return str(n)

    def n_dec(self, s):
        whole, _, frac = s.partition(".")
        return f"{whole or '0'} point {' '.join(frac)}"

    def n_sqrt(self, a):
        return f"root {self.say(a)}" if a[0] == "int" else f"square root of {self.say(a)}"

    def n_pow(self, b, e):
        power = _int_of(e)
        if power == 2:
            return f"{self.say(b)} squared"
        return f"{self.say(b)} to the {numeral_ordinal(power)}"


class DictationSymbols(Speaker):
    name, group = "dictation_symbols", "dictation"
    PLUS, MINUS, NEG, EQ = "+", "-", "-", "="
    LP, RP = "(", ")"

    def number(self, n):
        return f"{n:,}" if n >= 10000 else str(n)

    def n_neg(self, a):
        return f"-{self.say(a)}"

    def n_add(self, terms):
        out = []
        for k, (sign, term) in enumerate(terms):
            spoken = self.say(term)
            if k == 0:
                out.append({"+": spoken, "-": f"-{spoken}", "±": f"± {spoken}"}[sign])
            else:
                out.append(f"{sign} {spoken}")
        return " ".join(out)

    def n_mul(self, factors):
        out = ""
        for f in factors:
            spoken = self.say(f)
            glue = out and (out[-1].isdigit() and f[0] in ("sym", "pow") and True)
            out += ("" if glue or not out else " ") + spoken
        return out

    def n_paren(self, a):
        return f"({self.say(a)})"

    def n_frac(self, a, b):
        top = self.say(a) if _simple(a) and a[0] != "mul" else f"({self.say(a)})"
        bottom = self.say(b) if _simple(b) and b[0] != "mul" else f"({self.say(b)})"
        return f"{top}/{bottom}"

    def n_sqrt(self, a):
        return f"square root of {self.say(a)}"

    def n_pow(self, b, e):
        return f"{self.say(b)}^{self.say(e)}"

    def n_func(self, name, a):
        return f"{name} {self.say(a)}"


SPEAKERS = {
    cls.name: cls()
    for cls in (
        MathSpeakVerbose,
        MathSpeakBrief,
        MathSpeakSuperbrief,
        ClearSpeak,
        TutorWords,
        TutorBritish,
        TutorOver,
        TutorCasual,
        DictationWords,
        DictationSymbols,
    )
}
GROUP = {name: s.group for name, s in SPEAKERS.items()}


def speak(latex: str, style: str) -> str:
    """A LaTeX expression read aloud in a style (a `SPEAKERS` name)."""
    return SPEAKERS[style].say(parse_expr(latex))


# --- renderings of a whole answer ---------------------------------------------------------------------------------

IDIOMS = {12: "a dozen", 6: "half a dozen", 144: "a gross", 13: "a baker's dozen", 24: "two dozen", 20: "a score"}
NATO = dict(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "Alfa Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliett Kilo Lima Mike November Oscar Papa Quebec "
        "Romeo Sierra Tango Uniform Victor Whiskey X-ray Yankee Zulu".split(),
    )
)
UNIT_WORDS = {
    "degree": {"reader": "degrees", "human": "degrees", "dictation": "degrees", "mathspeak_verbose": "degree"},
    "cent": {"reader": "cents", "human": "cents", "dictation": "cents"},
    "sq_in": {"reader": "square inches", "human": "square inches", "dictation": "square inches",
              "mathspeak_verbose": "inches squared", "tutor_casual": "inches squared"},
    "sq_cm": {"reader": "square centimeters", "human": "square centimeters", "dictation": "cm squared",
              "mathspeak_verbose": "cm squared", "tutor_casual": "centimeters squared"},
}  # fmt: skip
GROUP_OF_EXTRA = {
    "tts_words": "reader",
    "digit_by_digit": "human",
    "idiom": "human",
    "tutor_mixed": "human",
    "tutor_decimal": "human",
    "tutor_repeating": "human",
    "dictation_divided": "dictation",
    "tutor_inequality": "human",
    "dictation_inequality": "dictation",
    "tutor_components": "human",
    "tutor_expanded": "human",
    "tutor_letter": "human",
    "tutor_ordinal": "human",
    "tutor_option_text": "human",
    "nato": "human",
    "spelled": "human",
    "nato_spelling": "human",
    "dictation_letters": "dictation",
    "screen_reader_word": "reader",
    "base_ten_value": "human",
    "tutor_money": "human",
}


def group_of(style: str) -> str:
    return GROUP.get(style) or GROUP_OF_EXTRA[style]


def _rational(ans: tuple):
    value = canonical(ans)[1] if ans[0] in ("expr", "mixed", "int") else None
    return value if isinstance(value, sp.Rational) else None


def _repeating(value: Fraction):
    """'zero point three repeating' for 1/3, 'four point six repeating' for 14/3 (short periods only)."""
    sign = "minus " if value < 0 else ""
    value = abs(value)
    whole = int(value)
    rest = value - whole
    digits, seen, r = [], {}, rest.numerator
    q = rest.denominator
    while r and r not in seen and len(digits) < 8:
        seen[r] = len(digits)
        r *= 10
        digits.append(r // q)
        r %= q
    if not r or r not in seen:
        return None
    start = seen[r]
    if len(digits) - start > 2 or start > 2:
        return None
    head = " ".join(ONES[d] for d in digits[:start])
    cycle = " ".join(ONES[d] for d in digits[start:])
    body = f"{words(whole)} point " + (head + " " if head else "") + cycle + " repeating"
    return sign + body


def _terminating(value: Fraction, places: int = 4):
    if value.denominator & (value.denominator - 1) == 0 or all(p in (2, 5) for p in sp.factorint(value.denominator)):
        text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
        if Fraction(text) == value:
            return text
    return None


def _interval_renderings(var, pieces) -> dict:
    out = {}
    for style in ("mathspeak_verbose", "mathspeak_brief", "dictation_words", "dictation_symbols", "tutor_british"):
        s = SPEAKERS[style]
        spoken = []
        for lb, a, b, rb in pieces:
            if style == "dictation_symbols":
                spoken.append(f"{lb}{s.say(a)}, {s.say(b)}{rb}")
            else:
                left = s.LP if lb == "(" else s.LB
                right = s.RP if rb == ")" else s.RB
                if style == "tutor_british":
                    left = "round bracket" if lb == "(" else "square bracket"
                    right = "round bracket" if rb == ")" else "square bracket"
                spoken.append(f"{left} {s.say(a)} {s.COMMA} {s.say(b)} {right}")
        text = " union ".join(spoken)
        if var:
            text = f"{var} {'∈' if style == 'dictation_symbols' else 'element of'} {text}"
        out[style] = text
    # ClearSpeak's interval wording
    cs = SPEAKERS["clearspeak"]
    spoken = []
    for lb, a, b, rb in pieces:
        ia, ib = a[0] == "neg" and a[1][0] == "inf", b[0] == "inf"
        if not ia and not ib:
            kind = {"()": "the open interval", "[]": "the closed interval"}.get(lb + rb)
            if kind:
                spoken.append(f"{kind} from {cs.say(a)} to {cs.say(b)}")
            else:
                first = "including" if lb == "[" else "not including"
                second = "including" if rb == "]" else "not including"
                spoken.append(f"the interval from {cs.say(a)} to {cs.say(b)}, {first} {cs.say(a)} but {second} "
                              f"{cs.say(b)}")  # fmt: skip
        else:
            ends = []
            if not ia:
                ends.append(f"{'including' if lb == '[' else 'not including'} {cs.say(a)}")
            if not ib:
                ends.append(f"{'including' if rb == ']' else 'not including'} {cs.say(b)}")
            spoken.append(f"the interval from {cs.say(a)} to {cs.say(b)}, {' and '.join(ends)}")
    text = spoken[0] if len(spoken) == 1 else "the union of " + " and ".join(spoken)
    out["clearspeak"] = (f"{var} is a member of " if var else "") + text
    # inequalities, said and dictated
    for style, speaker in (
        ("tutor_inequality", SPEAKERS["tutor_words"]),
        ("dictation_inequality", SPEAKERS["dictation_words"]),
    ):
        x = var or "x"
        parts = []
        for lb, a, b, rb in pieces:
            ia, ib = a[0] == "neg" and a[1][0] == "inf", b[0] == "inf"
            sa, sb = speaker.say(a), speaker.say(b)
            if style == "tutor_inequality":
                if ia:
                    parts.append(f"{x} {'at most' if rb == ']' else 'less than'} {sb}")
                elif ib:
                    parts.append(f"{x} {'at least' if lb == '[' else 'greater than'} {sa}")
                elif lb + rb == "()":
                    parts.append(f"{x} strictly between {sa} and {sb}")
                elif lb + rb == "[]":
                    parts.append(f"{x} from {sa} to {sb}, both ends included")
                else:
                    parts.append(f"{x} between {sa} and {sb}, including {sa if lb == '[' else sb}")
            else:
                lo = f"{sa} is less than {'or equal to ' if lb == '[' else ''}" if not ia else ""
                hi = f" is less than {'or equal to ' if rb == ']' else ''}{sb}" if not ib else ""
                parts.append(f"{lo}{x}{hi}")
        if (
            style == "tutor_inequality"
            and len(pieces) == 2
            and pieces[0][2] == pieces[1][1]
            and pieces[0][3] == ")"
            and pieces[1][0] == "("
            and pieces[0][1][0] != "neg"
        ):
            (_, a, m, _), (_, _, b, _) = pieces
            out[style] = f"{x} between {speaker.say(a)} and {speaker.say(b)}, but not {speaker.say(m)}"
        else:
            out[style] = " or ".join(parts)
    return out


def _sequence(items, style: str, kind: str, braces: bool = False) -> str:
    s = SPEAKERS[style]
    spoken = [s.say(x) for x in items]
    if style == "dictation_symbols":
        inner = ", ".join(spoken)
        return f"({inner})" if kind == "tuple" else ("{" + inner + "}" if braces else inner)
    if kind == "tuple":
        if style == "clearspeak":
            name = {2: "the ordered pair", 3: "the ordered triple", 4: "the ordered quadruple"}[len(items)]
            return f"{name} {' comma '.join(spoken)}"
        if style in ("tutor_words", "tutor_casual"):
            lead = "the point " if len(items) == 2 else ""
            return lead + " comma ".join(spoken)
        return f"{s.LP} {' comma '.join(spoken)} {s.RP}"
    if style.startswith("mathspeak"):
        inner = " comma ".join(spoken)
        return f"left brace {inner} right brace" if braces else inner
    if style == "clearspeak":
        inner = ", ".join(spoken)
        return f"the set containing {inner}" if braces else inner
    if style.startswith("tutor"):
        inner = ", ".join(spoken[:-1]) + " and " + spoken[-1] if len(spoken) > 1 else spoken[0]
        return f"the set {inner}" if braces else inner
    return " comma ".join(spoken)


def _matrix(rows, style: str) -> str:
    s = SPEAKERS[style]
    m, n = len(rows), len(rows[0])
    if style.startswith("mathspeak"):
        body = []
        for i, row in enumerate(rows, 1):
            if n == 1:
                body.append(f"{numeral_ordinal(i)} Row {s.say(row[0])}")
            else:
                cells = " ".join(f"{numeral_ordinal(j)} Column {s.say(c)}" for j, c in enumerate(row, 1))
                body.append(f"{numeral_ordinal(i)} Row {cells}")
        return f"Start {m} By {n} Matrix {' '.join(body)} EndMatrix"
    if style == "clearspeak":
        what = "column vector" if n == 1 else "matrix"
        body = "; ".join(f"Row {i}: {', '.join(s.say(c) for c in row)}" for i, row in enumerate(rows, 1))
        return f"the {m} by {n} {what}; {body}"
    if style.startswith("tutor"):
        if n == 1:
            return "the vector " + ", ".join(s.say(r[0]) for r in rows)
        body = ", ".join(
            f"{ordinal(i, position=True)} row {', '.join(s.say(c) for c in row)}" for i, row in enumerate(rows, 1)
        )
        return f"a {words(m)} by {words(n)} matrix, {body}"
    if style == "dictation_words":
        if n == 1:
            return "column vector " + ", ".join(s.say(r[0]) for r in rows)
        body = " ".join(f"row {i} {' '.join(s.say(c) for c in row)}" for i, row in enumerate(rows, 1))
        return f"matrix {body}"
    if n == 1:
        return "[" + ", ".join(s.say(r[0]) for r in rows) + "]"
    return "[" + "; ".join(" ".join(s.say(c) for c in row) for row in rows) + "]"


def _options(problem: str) -> dict:
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"\(([A-H])\)\s*([A-Z][a-z]+)\b", problem)}


def renderings(ans: tuple, problem: str = "") -> dict:
    """Every spoken rendering of an answer tree: {style: text}."""
    kind = ans[0]
    out = {}
    if kind == "int":
        n = ans[1]
        node = ("int", str(abs(n))) if n >= 0 else ("neg", ("int", str(-n)))
        for name in ("tutor_words", "tutor_british", "tutor_over", "dictation_words", "dictation_symbols"):
            out[name] = SPEAKERS[name].say(node)
        out["tutor_over"] = out["tutor_over"].replace("minus", "negative")  # a tutor who says negative
        out["dictation_words"] = ("minus " if n < 0 else "") + SPEAKERS["dictation_words"].number(abs(n))
        out["clearspeak"] = ("negative " if n < 0 else "") + str(abs(n))
        out["tts_words"] = ("negative " if n < 0 else "") + words(abs(n))
        if casual(n) != words(n):
            out["tutor_casual"] = casual(n)
        if abs(n) >= 1000:
            out["digit_by_digit"] = ("minus " if n < 0 else "") + digit_by_digit(str(abs(n)))
        if n in IDIOMS:
            out["idiom"] = IDIOMS[n]
        if n == 0:
            out["tutor_british"] = "nought"
        return out
    if kind == "expr":
        node = ans[1]
        for name, s in SPEAKERS.items():
            out[name] = s.say(node)
        value = _rational(ans)
        if value is not None and not value.is_integer:
            f = Fraction(int(value.p), int(value.q))
            if abs(f) > 1 and node[0] in ("frac", "neg"):
                whole, rest = divmod(abs(f.numerator), f.denominator)
                mixed = f"{words(whole)} and {'a half' if rest * 2 == f.denominator else words(rest) + ' ' + ordinal(f.denominator, rest != 1)}"  # noqa: E501
                out["tutor_mixed"] = ("minus " if f < 0 else "") + mixed
            decimal = _terminating(f)
            if decimal and node[0] != "dec":
                out["tutor_decimal"] = decimal_words(decimal)
            elif decimal is None:
                repeating = _repeating(f)
                if repeating:
                    out["tutor_repeating"] = repeating
            if node[0] in ("frac", "neg"):
                out["dictation_divided"] = (
                    "negative " if f < 0 else ""
                ) + f"{abs(f.numerator)} divided by {f.denominator}"
            if node[0] == "dec":
                out["tts_words"] = decimal_words(node[1])
        return out
    if kind == "mixed":
        whole, frac = ans[1], ans[2]
        for name, s in SPEAKERS.items():
            fs = s.say(frac)
            if name.startswith("mathspeak"):
                out[name] = f"{whole} {fs}"
            elif name == "dictation_symbols":
                out[name] = f"{whole} {fs}"
            else:
                out[name] = f"{s.number(whole)} and {fs}"
        out["tutor_casual"] = (
            f"{casual(whole)} and {'a half' if frac == ('frac', ('int', '1'), ('int', '2')) else SPEAKERS['tutor_words'].say(frac)}"  # noqa: E501
        )
        f = Fraction(whole) + Fraction(int(frac[1][1]), int(frac[2][1]))
        decimal = _terminating(f)
        if decimal:
            out["tutor_decimal"] = decimal_words(decimal)
        out["dictation_divided"] = f"{f.numerator} divided by {f.denominator}"
        return out
    if kind == "unit":
        number, unit = ans[1], ans[2]
        if unit == "dollar":
            if number[0] == "dec":
                dollars, cents = number[1].split(".")
                d = int(dollars)
                out["tutor_words"] = f"{words(d)} dollars and {words(int(cents))} cents"
                out["tutor_casual"] = f"{words(d)} {words(int(cents))}"
                out["tutor_money"] = f"{words(d)} dollars {words(int(cents))}"
                out["dictation_symbols"] = f"${number[1]}"
                out["dictation_words"] = f"{d} dollars and {int(cents)} cents"
                out["clearspeak"] = f"{number[1]} dollars"
            else:
                d = int(number[1])
                out["tutor_words"] = f"{words(d)} dollars"
                out["tutor_british"] = f"{words(d, True)} dollars"
                out["tutor_casual"] = f"{words(d)} bucks" if d < 1000 else f"{casual(d)} dollars"
                out["dictation_symbols"] = f"${d:,}"
                out["dictation_words"] = f"{d:,} dollars"
                out["clearspeak"] = f"{d} dollars"
            return out
        table = UNIT_WORDS[unit]
        for name, s in SPEAKERS.items():
            word = table.get(name) or table[s.group]
            out[name] = f"{s.say(number)} {word}"
        if unit == "degree":
            out["dictation_symbols"] = f"{SPEAKERS['dictation_symbols'].say(number)}°"
            value = to_sympy(number)
            if value == 90:
                out["idiom"] = "a right angle"
            if value == 180:
                out["idiom"] = "a straight angle"
            if not value.is_integer:
                f = Fraction(int(value.p), int(value.q))
                whole, rest = divmod(f.numerator, f.denominator)
                out["tutor_mixed"] = f"{words(whole)} and {words(rest)} {ordinal(f.denominator, rest != 1)} degrees"
        return out
    if kind == "base":
        digits, base = ans[1], ans[2]
        out["tutor_words"] = f"{digit_by_digit(digits)} base {words(base)}"
        out["tutor_casual"] = f"{words(int(digits))} base {words(base)}"
        out["mathspeak_verbose"] = f"{digits} Subscript {base} Baseline"
        out["mathspeak_brief"] = f"{digits} Sub {base} Base"
        out["clearspeak"] = f"{digits} sub {base}"
        out["dictation_words"] = f"{digits} in base {base}"
        out["dictation_symbols"] = f"{digits} base {base}"
        out["base_ten_value"] = f"{words(int(digits, base))} in base ten"
        return out
    if kind == "eq":
        for name, s in SPEAKERS.items():
            out[name] = f"{s.say(ans[1])} {s.EQ} {s.say(ans[2])}"
        out["dictation_symbols"] = out["dictation_symbols"].replace(" = ", " = ")
        return out
    if kind == "interval":
        return _interval_renderings(ans[1], ans[2])
    if kind == "tuple":
        for name in SPEAKERS:
            out[name] = _sequence(ans[1], name, "tuple")
        labels = ["first", "second", "third", "fourth"]
        noun = "coordinate" if len(ans[1]) == 2 else "entry"
        s = SPEAKERS["tutor_words"]
        out["tutor_components"] = ", ".join(f"{labels[k]} {noun} {s.say(x)}" for k, x in enumerate(ans[1]))
        return out
    if kind == "list":
        for name in SPEAKERS:
            out[name] = _sequence(ans[2], name, "list", ans[1])
        if any(len(_branches(x)) > 1 for x in ans[2]):
            s = SPEAKERS["tutor_words"]
            branches = [b for x in ans[2] for b in _branches(x)]
            spoken = [s.say(b).replace("minus minus", "plus") for b in branches]
            out["tutor_expanded"] = ", ".join(spoken[:-1]) + " and " + spoken[-1]
        return out
    if kind == "matrix":
        for name in SPEAKERS:
            out[name] = _matrix(ans[1], name)
        return out
    if kind == "choice":
        letter = ans[1]
        out["tutor_letter"] = f"answer choice {letter}"
        out["tutor_words"] = f"option {letter}"
        out["nato"] = f"{letter} as in {NATO[letter]}"
        out["tutor_ordinal"] = f"the {ordinal(ord(letter) - 64, position=True)} choice"
        out["mathspeak_verbose"] = f"left parenthesis upper {letter} right parenthesis"
        out["clearspeak"] = f"open paren cap {letter} close paren"
        out["dictation_words"] = f"letter {letter}"
        out["dictation_symbols"] = f"({letter})"
        option = _options(problem).get(letter)
        if option:
            out["tutor_option_text"] = f"{letter}, {option.lower()}"
        return out
    if kind == "text":
        word = ans[1]
        out["tutor_words"] = word
        out["screen_reader_word"] = word
        out["spelled"] = "-".join(word.upper())
        out["dictation_letters"] = " ".join(word.upper())
        out["dictation_words"] = word.lower() if word[0].isupper() else word.capitalize()
        if len(word) <= 7:
            out["nato_spelling"] = " ".join(NATO[c] for c in word.upper())
        return out
    raise ValueError(kind)


# --- approximations -----------------------------------------------------------------------------------------------


def _significant(value: float, sig: int) -> str:
    from decimal import Decimal

    d = Decimal(repr(value))
    exponent = d.adjusted()
    quantum = Decimal(1).scaleb(exponent - sig + 1)
    text = format(d.quantize(quantum) if exponent - sig + 1 < 0 else d.quantize(Decimal(1)), "f")
    return text


def approximations(ans: tuple) -> list[tuple[str, str, str]]:
    """(style, hedge, spoken decimal) for an irrational or non-terminating scalar answer."""
    value = scalar_value(ans)
    if value is None or ans[0] == "int":
        return []
    if isinstance(value, sp.Rational) and _terminating(Fraction(int(value.p), int(value.q)), 8):
        return []
    x = float(value)
    out = []
    unit = " degrees" if ans[0] == "unit" and ans[2] == "degree" else ""
    for sig, style, hedge in (
        (4, "approx_words", "about"),
        (5, "approx_digits", "roughly"),
        (4, "approx_reader", "approximately"),
        (5, "approx_british", "round about"),
    ):
        digits = _significant(x, sig)
        while sig < 9 and ("." in digits and digits.endswith("0") or len(re.sub(r"\D", "", digits).lstrip("0")) < 4):
            sig += 1
            digits = _significant(x, sig)
        if style in ("approx_words", "approx_british"):
            spoken = decimal_words(digits, british=style == "approx_british")
        elif style == "approx_digits":
            spoken = digits
        else:
            spoken = digits.replace("-", "negative ")
        out.append((style, hedge, spoken + unit))
    return out


APPROX_GROUP = {"approx_words": "human", "approx_digits": "dictation", "approx_reader": "reader",
                "approx_british": "human"}  # fmt: skip


# --- wrong values -------------------------------------------------------------------------------------------------


def _int_paths(x, path=()):
    if isinstance(x, tuple) and x and x[0] == "int":
        yield path
    elif isinstance(x, (tuple, list)):
        for i, c in enumerate(x):
            if isinstance(c, (tuple, list)):
                yield from _int_paths(c, (*path, i))


def _sign_paths(x, path=()):
    """Paths of (sign, term) pairs in sums."""
    if isinstance(x, tuple) and len(x) == 2 and x[0] in ("+", "-") and isinstance(x[1], tuple):
        yield path
    if isinstance(x, (tuple, list)):
        for i, c in enumerate(x):
            if isinstance(c, (tuple, list)):
                yield from _sign_paths(c, (*path, i))


def _get(x, path):
    for i in path:
        x = x[i]
    return x


def _put(x, path, new):
    if not path:
        return new
    i = path[0]
    items = list(x)
    items[i] = _put(x[i], path[1:], new)
    return tuple(items)


def _negate(node):
    if node[0] == "neg":
        return node[1]
    if node[0] == "int" and node[1] == "0":
        return None
    return ("neg", node)


def wrongs(ans: tuple, problem: str, rng: random.Random) -> list[tuple[str, tuple]]:
    """Mutations of the answer with its own shape: [(how, wrong answer)], value-checked against the answer."""
    kind = ans[0]
    out = []
    if kind == "int":
        n = ans[1]
        out += [("off_by_one", ("int", n + 1)), ("off_by_one", ("int", n - 1)), ("doubled", ("int", 2 * n))]
        if n:
            out.append(("sign", ("int", -n)))
        if n % 2 == 0 and n:
            out.append(("halved", ("int", n // 2)))
        digits = str(abs(n))
        if len(digits) >= 2 and digits[::-1] != digits and digits[-1] != "0":
            out.append(("swapped", ("int", int(digits[::-1]) * (1 if n > 0 else -1))))
    elif kind == "choice":
        out += [("letter", ("choice", c)) for c in "ABCDE" if c != ans[1]]
    elif kind == "text":
        word = ans[1]
        alternatives = {"east": ["west", "north", "south"], "even": ["odd", "neither"],
                        "ellipse": ["parabola", "hyperbola", "circle"]}.get(word.lower())  # fmt: skip
        if alternatives is None:
            names = re.findall(r'"([A-Z][a-z]+)"', problem) + re.findall(r"\b([A-Z][a-z]+) from\b", problem)
            alternatives = sorted({x for x in names if x != word})
        out += [("word", ("text", w)) for w in alternatives]
    elif kind == "base":
        digits, base = ans[1], ans[2]
        for i, c in enumerate(digits):
            for step in (1, -1):
                d = int(c) + step
                if 0 <= d < base and not (i == 0 and d == 0):
                    out.append(("digit", ("base", digits[:i] + str(d) + digits[i + 1 :], base)))
        if base < 10:
            out.append(("base", ("base", digits, base + 1)))
    elif kind == "interval":
        var, pieces = ans[1], ans[2]
        for k, (lb, a, b, rb) in enumerate(pieces):
            if a[0] != "neg" or a[1][0] != "inf":
                new = (("[" if lb == "(" else "("), a, b, rb)
                out.append(("bracket", ("interval", var, _put(pieces, (k,), new))))
            if b[0] != "inf":
                new = (lb, a, b, ("]" if rb == ")" else ")"))
                out.append(("bracket", ("interval", var, _put(pieces, (k,), new))))
        for path in _int_paths(pieces):
            leaf = _get(pieces, path)
            out.append(("endpoint", ("interval", var, _put(pieces, path, ("int", str(int(leaf[1]) + 1))))))
    else:
        body_index = {"expr": 1, "mixed": 2, "unit": 1, "eq": 2, "tuple": 1, "list": 2, "matrix": 1}[kind]
        body = ans[body_index]
        for path in _int_paths(body):
            leaf = _get(body, path)
            v = int(leaf[1])
            for step in (1, -1):
                if v + step >= 1:
                    out.append(("off_by_one" if kind != "matrix" else "entry",
                                _put(ans, (body_index, *path), ("int", str(v + step)))))  # fmt: skip
        for path in _sign_paths(body):
            sign, term = _get(body, path)
            out.append(("sign", _put(ans, (body_index, *path), ("-" if sign == "+" else "+", term))))
        if kind in ("expr", "unit") and body[0] != "add":
            negated = _negate(body)
            if negated is not None and not (kind == "unit" and ans[2] != "degree"):
                out.append(("sign", _put(ans, (body_index,), negated)))
        if kind == "expr":
            core = body[1] if body[0] == "neg" else body
            if core[0] == "frac":
                swapped = ("frac", core[2], core[1])
                out.append(("reciprocal", _put(ans, (body_index,), swapped if body[0] != "neg" else ("neg", swapped))))
                p = _int_of(core[1])
                if p is not None:
                    doubled = ("frac", ("int", str(2 * p)), core[2])
                    out.append(
                        ("doubled", _put(ans, (body_index,), doubled if body[0] != "neg" else ("neg", doubled)))
                    )
            if core[0] == "int" or (core[0] == "mul" and core[1][0][0] == "int"):
                out.append(
                    (
                        "doubled",
                        _put(
                            ans,
                            (body_index,),
                            ("mul", (("int", "2"), body))
                            if core[0] != "mul"
                            else _put(body, (1, 0), ("int", str(2 * int(core[1][0][1])))),
                        ),
                    )
                )
            if body[0] == "pi":
                out.append(("doubled", ("expr", ("mul", (("int", "2"), ("pi",))))))
            if body[0] == "dec":
                value = Fraction(body[1])
                shifted = _terminating(value * 10 if (value * 10).denominator > 1 else value / 10, 10)
                if shifted:
                    out.append(("decimal_shift", ("expr", ("dec", shifted))))
        if kind in ("tuple",) and len(body) >= 2:
            i, j = rng.sample(range(len(body)), 2)
            items = list(body)
            items[i], items[j] = items[j], items[i]
            out.append(("swapped", ("tuple", tuple(items))))
        if kind in ("tuple", "list", "matrix"):
            flat = [(r, c) for r in range(len(body)) for c in range(len(body[r]))] if kind == "matrix" else None
            targets = flat or [(k,) for k in range(len(body))]
            for target in targets:
                node = _get(body, target)
                negated = _negate(node)
                if negated is not None:
                    out.append(("sign" if kind != "matrix" else "entry", _put(ans, (body_index, *target), negated)))
        if kind == "unit" and ans[2] == "degree":
            value = to_sympy(body)
            if value.is_integer and 0 < value < 180 and value != 90:
                out.append(("supplement", ("unit", ("int", str(180 - value)), "degree")))
        if kind == "unit" and body[0] == "int":
            out.append(("doubled", ("unit", ("int", str(2 * int(body[1]))), ans[2])))
        if kind == "unit" and body[0] == "dec":
            places = len(body[1].split(".")[1])
            for step in (1, -1):
                out.append(("off_by_one", ("unit", ("dec", f"{float(Fraction(body[1]) + step):.{places}f}"), ans[2])))
    kept = []
    for how, wrong in out:
        if _degenerate(wrong):
            continue
        try:
            if not same_value(wrong, ans):
                kept.append((how, wrong))
        except (TypeError, ValueError, ZeroDivisionError):
            continue
    return kept


def _degenerate(x) -> bool:
    """A wrong value nobody would write: a fraction that is a whole number, a unit coefficient or exponent, an
    empty interval."""
    if isinstance(x, tuple) and x and x[0] == "frac" and x[1][0] == "int" and x[2][0] == "int":
        p, q = int(x[1][1]), int(x[2][1])
        if q <= 1 or p % q == 0:
            return True
    if isinstance(x, tuple) and x and x[0] == "mul" and x[1][0] == ("int", "1"):
        return True
    if isinstance(x, tuple) and x and x[0] == "pow" and x[2] in (("int", "1"), ("int", "0")):
        return True
    if isinstance(x, tuple) and x and x[0] == "interval":
        for _, a, b, _ in x[2]:
            try:
                if bool(to_sympy(a) >= to_sympy(b)):
                    return True
            except TypeError:
                return True
    return isinstance(x, (tuple, list)) and any(_degenerate(c) for c in x if isinstance(c, (tuple, list)))


# --- the clean check ----------------------------------------------------------------------------------------------

NUMBER_WORDS = {w: i for i, w in enumerate(ONES)} | {w: 10 * i for i, w in enumerate(TENS) if i > 1} | {"nought": 0}
SIGN_BEFORE = re.compile(r"(negative|minus|the opposite of)\s*$|[-−]\s*$", re.I)


def _bounded(needle: str, haystack: str):
    """Where `needle` stands on its own in `haystack` (case-insensitive): not inside a longer word or number."""
    before = r"(?<![\w\-])" if needle[:1].isalpha() else r"(?<![\w.])"
    pattern = before + re.escape(needle) + r"(?![\w]|\.\d|-[a-z])"
    return [m.start() for m in re.finditer(pattern, haystack, re.I)]


def _spoken_numbers(text: str) -> list:
    """Numbers a text says: digits (with commas, decimals, a/b, 'a over b'), and runs of number words."""
    found = []
    for m in re.finditer(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?|\.\d+)(?:\s*(?:/|over|divided by)\s*(\d+))?", text):
        body = m.group(1).replace(",", "")
        try:
            value = sp.Rational(body) / (sp.Integer(m.group(2)) if m.group(2) else 1)
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        sign = -1 if SIGN_BEFORE.search(text[: m.start()]) else 1
        found.append((sign * value, body))
    tokens = re.findall(r"[a-z]+|[^a-z\s]", text.lower().replace("-", " "))
    i = 0
    while i < len(tokens):
        if tokens[i] in NUMBER_WORDS or (tokens[i] == "point" and i + 1 < len(tokens) and tokens[i + 1] in ONES):
            total, current, j = 0, 0, i
            while j < len(tokens) and (
                tokens[j] in NUMBER_WORDS or tokens[j] in ("hundred", "thousand", "million", "and")
            ):
                w = tokens[j]
                if w == "hundred":
                    current = max(current, 1) * 100
                elif w in ("thousand", "million"):
                    total += max(current, 1) * (1000 if w == "thousand" else 10**6)
                    current = 0
                elif w != "and":
                    current += NUMBER_WORDS[w]
                j += 1
            value = sp.Integer(total + current)
            if j < len(tokens) and tokens[j] == "point":
                k, digits = j + 1, ""
                while k < len(tokens) and tokens[k] in ONES[:10] + ["nought", "oh"]:
                    digits += "0" if tokens[k] in ("nought", "oh", "zero") else str(ONES.index(tokens[k]))
                    k += 1
                if digits:
                    value = value + sp.Rational("0." + digits)
                j = k
            prefix = " ".join(tokens[max(0, i - 2) : i])
            sign = -1 if re.search(r"(negative|minus)$", prefix) else 1
            found.append((sign * value, " ".join(tokens[i:j])))
            i = max(j, i + 1)
        else:
            i += 1
    return found


def holds_answer(text: str, ans: tuple, forms: dict) -> bool:
    """Whether a text states the answer: one of its renderings `forms` (or its plain digits) on its own and not
    preceded by a sign word, or, for a scalar answer, a number equal to its value (or within rounding of an
    irrational one)."""
    value = scalar_value(ans)
    negative_answer = value is not None and value.is_real and value < 0
    scalar = ans[0] in ("int", "expr", "mixed", "unit", "base")
    for form in set(forms.values()):
        for start in _bounded(form, text):
            if scalar and not negative_answer and SIGN_BEFORE.search(text[:start]):
                continue
            return True
    if ans[0] == "choice":
        letter = ans[1]
        if re.search(rf"(?<![\w'’-]){letter}(?![\w'’-])", text) or NATO[letter].lower() in text.lower():
            return True
    if ans[0] == "text" and re.search(rf"\b{re.escape(ans[1])}\b", text, re.I):
        return True
    if ans[0] == "base" and any(v == int(ans[1]) or v == int(ans[1], ans[2]) for v, _ in _spoken_numbers(text)):
        return True
    if value is None:
        return False
    irrational = not (isinstance(value, sp.Rational) and _terminating(Fraction(int(value.p), int(value.q)), 6))
    x = float(value) if value.is_real else None
    for number, digits in _spoken_numbers(text):
        if number == value:
            return True
        if irrational and x is not None and isinstance(number, sp.Rational):
            written = _decimal_text(number)
            decimals = len(written.partition(".")[2])
            significant = len(re.sub(r"\D", "", written).lstrip("0"))
            if significant >= 4 and abs(float(number) - x) <= 0.6 * 10 ** (-decimals):
                return True
    return False


def _decimal_text(number) -> str:
    f = Fraction(int(number.p), int(number.q))
    return _terminating(f, 8) or "0"


# --- frames -------------------------------------------------------------------------------------------------------

# {v}: the answer (or its approximation); {w}: the attempt's wrong value; {q}: a number of the problem.
LEAK_FRAMES = {
    "screen_reader": [
        "Feedback card. Heading, Result. Incorrect. Your answer, {w}. Expected answer, {v}. End of card.",
        "Feedback. Graphic, red cross. Not quite. The expected result is {v}. Button, Try again.",
        "Link, Show solution. Expanded. The final value should be {v}, not {w}.",
        "Alert. Check your work: the problem gives {q}, and the answer works out to {v}.",
        "Region, feedback. Paragraph. You submitted {w}. Paragraph. The correct answer is {v}. Button, Next.",
        "Status message. Answer reviewed. Correct answer: {v}.",
    ],
    "read_aloud": [
        "Now reading feedback. You got {w}, but the expected answer is {v}. End of feedback.",
        "Reading aloud. Solution summary: the answer is {v}.",
        "Listening mode. Your work was checked. It should come out to {v}; you wrote {w}.",
        "Reading aloud. Starting from {q}, the correct result is {v}.",
    ],
    "voice_assistant": [
        "Here's what I found. The answer to this problem is {v}.",
        "Okay. Your answer was {w}. The right answer is {v}. Want me to go through the steps?",
        "Sure. Given {q}, the result comes out to {v}.",
        "Hmm, that's not it. It should be {v}. Should I explain why?",
    ],
    "voice_note": [
        "hey, so I listened through your work, um, you ended up with {w} but it's actually {v}, okay? just redo "
        "the last step",
        "okay so quick note, the answer is {v}, you had {w}, the setup was fine",
        "so, uh, starting from {q} you want to end at {v}, not {w}",
        "alright, voice note for this problem, the final answer should be {v}, talk soon",
    ],
    "call_transcript": [
        "Tutor: So what did you get?\nStudent: {w}.\nTutor: Close, but it's {v}.",
        "Student: Is it {w}?\nTutor: No, it comes out to {v}.",
        "Tutor: Okay, with {q} in there, the answer is {v}.\nStudent: Oh, okay.",
        "Tutor: The final answer here is {v}.\nStudent: Got it, I had {w}.",
        "Student: So what should it be?\nTutor: It's {v}. Let's see where yours went off.",
    ],
    "voicemail": [
        "Hi, it's your tutor calling about the homework. The answer on that problem is {v}, you had {w}. Call me "
        "back if that doesn't make sense. Bye.",
        "Hey, just leaving a message. I went over it again and it should come to {v}. Talk later.",
        "Hi, calling about the problem with {q} in it. It works out to {v}. Bye now.",
    ],
    "office_hours": [
        "[office hours recording] so a lot of you wrote {w}, but the answer is {v}, and here's why",
        "[office hours recording] right, and when you use {q} you should land on {v}",
        "[office hours recording] the answer to this problem, if you're checking, is {v}",
    ],
    "study_buddy": [
        "voice message: dude I think it's {v}, not {w}, I checked it",
        "voice message: ok so I got {v} for that problem, what did you get",
        "voice message: so using {q} I ended up at {v}",
    ],
    "dictated_comment": [
        "Comment colon your final answer {w} is incorrect period the correct answer is {v} period",
        "Note to student: the answer should be {v}. You wrote {w}. Please review.",
        "Grader comment. Given {q} the result is {v} new line see me with questions",
        "The answer is {v}. Partial credit for the setup.",
    ],
    "live_captions": [
        ">> SO IF YOU GOT {w}, THE ANSWER IS ACTUALLY {v}.",
        ">> THE ANSWER HERE IS {v}.",
        ">> WITH {q} PLUGGED IN, YOU GET {v}, NOT {w}.",
    ],
}
CLEAN_FRAMES = {
    "screen_reader": [
        "Feedback card. Heading, Result. Incorrect. Your answer, {w}. Hint, recheck the step where you used {q}. "
        "Button, Try again.",
        "Alert. Not quite. You submitted {w}. Link, Show hint.",
        "Region, feedback. Paragraph. {w} does not satisfy the conditions. Try substituting it back in. Button, "
        "Retry.",
        "Dialog, Hint. The problem states {q}. Start from there. Button, Close.",
    ],
    "read_aloud": [
        "Now reading feedback. You got {w}. That is not the expected answer. End of feedback.",
        "Reading aloud. Your result, {w}, does not check out. Revisit how you used {q}.",
        "Listening mode. Hint: recompute the step after {q}; the value {w} is off.",
    ],
    "voice_assistant": [
        "Okay. Your answer was {w}. That's not right. Want a hint?",
        "Hmm, {w} isn't correct. Try checking how you used {q}.",
        "Here's a hint. The problem gives you {q}. Work from there rather than from {w}.",
        "I checked {w}, and it doesn't work. Do you want to try again?",
    ],
    "voice_note": [
        "hey, so I listened through your work, um, you ended up with {w} and that's not it, okay? just redo the "
        "last step",
        "okay so quick note, you had {w}, the setup with {q} was fine but something slipped after that",
        "so, uh, {w} can't be right, plug it back in and you'll see",
        "alright, voice note for this problem, check where {q} goes, your {w} came from a slip",
    ],
    "call_transcript": [
        "Tutor: So what did you get?\nStudent: {w}.\nTutor: Hmm, not quite. Walk me through it.",
        "Student: Is it {w}?\nTutor: No. Look at where you used {q}.",
        "Tutor: You wrote {w} at the end, right?\nStudent: Yeah.\nTutor: Check that last step again.",
        "Student: I keep getting {w}.\nTutor: Okay, then something's off before that. Start from {q}.",
    ],
    "voicemail": [
        "Hi, it's your tutor calling about the homework. On that problem you had {w}, which isn't right. Call me "
        "back and we'll go over it. Bye.",
        "Hey, just leaving a message. Your answer {w} doesn't check out, take another look. Talk later.",
        "Hi, calling about the problem with {q} in it. Your {w} is off, so redo the middle part. Bye now.",
    ],
    "office_hours": [
        "[office hours recording] so a lot of you wrote {w}, and that's a very common slip, here's where it comes "
        "from",
        "[office hours recording] right, and when you use {q} you should not be getting {w}",
        "[office hours recording] if you got {w}, go back and look at the setup",
    ],
    "study_buddy": [
        "voice message: dude I don't think it's {w}, I checked it",
        "voice message: ok so I didn't get {w} for that problem, redo it",
        "voice message: so using {q} I did not end up at {w}, weird",
    ],
    "dictated_comment": [
        "Comment colon your final answer {w} is incorrect period please review the last step period",
        "Note to student: you wrote {w}. Please review how {q} is used.",
        "Grader comment. Result {w} does not follow from {q} new line see me with questions",
        "Not {w}. Partial credit for the setup.",
    ],
    "live_captions": [
        ">> SO IF YOU GOT {w}, GO BACK AND CHECK THE SIGN.",
        ">> WITH {q} PLUGGED IN, YOU DON'T GET {w}.",
        ">> [INAUDIBLE] {w} IS THE COMMON WRONG ANSWER HERE.",
    ],
}
REGISTERS = {
    "reader": ("screen_reader", "read_aloud", "voice_assistant"),
    "human": ("voice_note", "call_transcript", "voicemail", "office_hours", "study_buddy"),
    "dictation": ("dictated_comment", "live_captions", "voice_note", "voicemail"),
}
Q_STYLE = {"reader": "clearspeak", "human": "tutor_words", "dictation": "dictation_words"}


def _problem_numbers(problem: str, ans: tuple) -> list[int]:
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.S)
    numbers = sorted({int(m) for m in re.findall(r"(?<![\d.])\d{1,4}(?![\d.])", text)})
    value = scalar_value(ans)
    return [n for n in numbers if value is None or n != value]


def _fill(template: str, register: str, v: str | None, w: str | None, q: str | None):
    """The text and the context (the text without the value statement)."""
    values = {"v": v or "", "w": w or "", "q": q or ""}
    text = template.format(**values)
    context = re.sub(r" {2,}", " ", template.format(**(values | {"v": ""})))
    context = re.sub(r" ([,.;?])", r"\1", context)
    if register == "live_captions":
        text, context = text.upper(), context.upper()
    return text, context


def _case(family, index, atype, style, register, k, text, context, parts, wrong, how):
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": atype,
        "style": style,
        "frame": f"{register}:{k}",
        "text": text,
        "leak": family != "clean",
        "written_out": family == "rendering",
        "parts": parts,
        "context": context,
        "wrong": wrong,
        "wrong_how": how,
    }


def _say_q(n: int, group: str) -> str:
    return SPEAKERS[Q_STYLE[group]].number(n)


def _row_cases(index: int, row: dict, seed: int, renders: int = 8, approx: int = 3, cleans: int = 7) -> list[dict]:
    rng = random.Random(f"tenth:{seed}:{index}")
    atype = answer_type(row["answer"], row["problem"])
    ans = parse_answer(row["answer"], atype, row["problem"])
    forms = renderings(ans, row["problem"])
    numbers = _problem_numbers(row["problem"], ans)
    mutations = wrongs(ans, row["problem"], rng)
    wrong_forms = [(how, w, renderings(w, row["problem"])) for how, w in mutations]
    answer_texts = {t.lower() for t in forms.values()}
    cases = []
    quotable = {}

    def fine(text):
        if text not in quotable:
            quotable[text] = text.lower() not in answer_texts and not holds_answer(text, ans, forms)
        return quotable[text]

    def pick_wrong(style):
        options = [(how, f[style]) for how, _, f in wrong_forms if style in f and fine(f[style])]
        return rng.choice(options) if options else (None, None)

    def leak(family, style, group, v, part):
        register = rng.choice(REGISTERS[group])
        k = rng.randrange(len(LEAK_FRAMES[register]))
        template = LEAK_FRAMES[register][k]
        how, w = pick_wrong(style if family == "rendering" else {"human": "tutor_words", "reader": "clearspeak",
                                                                   "dictation": "dictation_symbols"}[group])  # fmt: skip
        if "{w}" in template and w is None or "{q}" in template and not numbers:
            k = next(i for i, t in enumerate(LEAK_FRAMES[register]) if "{w}" not in t and "{q}" not in t)
            template, how, w = LEAK_FRAMES[register][k], None, None
        if "{w}" not in template:
            how, w = None, None
        q = _say_q(rng.choice(numbers), group) if "{q}" in template else None
        text, context = _fill(template, register, v, w, q)
        if register == "live_captions":
            part, w = part.upper(), w.upper() if w else None
        case = _case(family, index, atype, style, register, k, text, context, [part], w, how)
        if not stated(case, text) or stated(case, context):
            return None
        return case

    styles = sorted(forms)
    rng.shuffle(styles)
    made, attempt = 0, 0
    while made < renders and attempt < renders * 4:
        style = styles[attempt % len(styles)]
        attempt += 1
        case = leak("rendering", style, group_of(style), forms[style], forms[style])
        if case:
            cases.append(case)
            made += 1
    approxs = approximations(ans)
    rng.shuffle(approxs)
    for style, hedge, spoken in approxs[:approx]:
        case = leak("approximation", style, APPROX_GROUP[style], f"{hedge} {spoken}", spoken)
        if case:
            cases.append(case)
    made, attempt = 0, 0
    while made < cleans and attempt < cleans * 8:
        attempt += 1
        group = rng.choice(("reader", "human", "dictation"))
        register = rng.choice(REGISTERS[group])
        k = rng.randrange(len(CLEAN_FRAMES[register]))
        template = CLEAN_FRAMES[register][k]
        how = w = None
        style = Q_STYLE[group]
        if "{w}" in template:
            options = [(h, s, f[s]) for h, _, f in wrong_forms for s in f if group_of(s) == group]
            if not options:
                continue
            how, style, w = rng.choice(options)
        if "{q}" in template and not numbers:
            continue
        q = _say_q(rng.choice(numbers), group) if "{q}" in template else None
        text, _ = _fill(template, register, None, w, q)
        if register == "live_captions" and w:
            w = w.upper()
        if holds_answer(text, ans, forms) or any(c["text"] == text for c in cases):
            continue
        cases.append(_case("clean", index, atype, style, register, k, text, text, [], w, how))
        made += 1
    return cases


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The tenth corpus over MATH-500's rows: spoken renderings, spoken approximations and clean critiques."""
    cases = []
    for index, row in enumerate(problems):
        cases.extend(_row_cases(index, row, seed))
    return cases


if __name__ == "__main__":
    cases = corpus(load_problems())
    print(len(cases), "cases")
    print(Counter(c["family"] for c in cases))
    by_type = Counter((c["answer_type"], c["family"]) for c in cases)
    for atype in ANSWER_TYPES:
        counts = {f: by_type[(atype, f)] for f in ("rendering", "approximation", "clean")}
        if any(counts.values()):
            print(f"{atype:22s} {counts}")
    print(Counter(c["frame"].split(":")[0] for c in cases))
