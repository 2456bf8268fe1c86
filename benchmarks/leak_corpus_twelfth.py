"""The twelfth independent leak corpus: MATH-500 answers as they look after passing through web and chat media.

Method. Each reference answer (a LaTeX string) is parsed by a small parser of this module's own into a tree
(numbers, variables, fractions, roots, powers, subscripts, constants, operators, brackets, matrices, text), and the
tree is written out by emitters for the media critiques pass through: HTML (tags, named / decimal / hexadecimal
entities, `<sup>`/`<sub>` fractions, tables), presentation MathML, Markdown (bold, italics, code spans, `$...$` and
```` ```math ```` blocks, backslash escapes), LaTeX delimiters `\\(...\\)`, AsciiMath, plain ASCII chat math, Unicode math
(minus sign, vulgar fractions, fraction slash, super/subscript digits, radicals, pi, infinity, set symbols,
mathematical bold / double-struck / monospace / sans-serif / italic alphanumerics, fullwidth forms, circled
letters, combining overline for repeating decimals), BBCode, wiki markup, JSON, YAML, CSV, Python / SymPy / NumPy
snippets and spreadsheet formulas and cell values. Some renderings carry a copy-paste decoration (zero-width space,
soft hyphen, no-break spaces, invisible times, function application). Every value is computed with SymPy / Fraction
from the tree, never typed by hand.

Families.
- `rendering` (a leak, written out): the answer itself in one of the media above.
- `approximation` (a leak): a 4-7 significant digit decimal of an irrational or non-terminating answer, in a medium.
- `clean` (no leak): the same registers quoting the attempt's wrong value (a mutation of the answer of its own shape:
  off by one, sign, doubled, digits swapped, reciprocal, another bracket, operator flipped, a changed matrix entry,
  changed base, another letter / word / function) and a number from the problem. Every clean text is checked with
  `holds_answer`, this module's own decoder-based checker (it strips tags, decodes MathML, entities, LaTeX,
  Markdown, BBCode, code and spreadsheet idioms and Unicode forms, then looks for any rendering, the exact value
  and any 3+ significant digit approximation of the answer); doubtful texts are redrawn.
Each text sits in a critique frame of one of eleven registers (an HTML forum post, a MathML page, a chat message, a
Markdown LLM reply, a JSON grading record, an e-mail reply, a Jupyter / REPL cell, a wiki talk page, a spreadsheet
comment, a CSV / YAML grading log, an SMS, a BBCode forum post); frames quote a number of the problem and the
attempt's wrong value, in the same notation as the answer.

Independence. Written without reading the guard (`benchmarks/leak_guard.py`, its JSON, `trl_mulferl/`,
`tests/feedback/`, `docs/`, `benchmarks/README.md`, `CHANGELOG.md`) or any other corpus module or its tests. From
`benchmarks/leak_corpus.py` only the source of `load_problems`, `ANSWER_TYPES`, `answer_type` (with the two helpers
it calls), `occurrences` and `stated` was read, and only those are imported; of the other tests only the first 95
lines of `tests/benchmarks/test_leak_corpus_ninth.py` were read, for conventions. No guard or redaction function was
run.

Schema. `corpus(problems, seed)` returns dicts with exactly the keys family ("rendering", "approximation",
"clean"), split ("held_out"), index (the MATH-500 row), answer_type, style (notation, "/decoration" when one is
applied), frame ("register:template"), text, leak (family != "clean"), written_out (family == "rendering"), parts
(the substrings of text that state the answer; [] when clean), context (text with each part replaced by `\\ldots`;
the text when clean), wrong (the quoted wrong value as written in text) and wrong_how (its mutation).
"""

import html
import itertools
import json
import random
import re
import unicodedata
import xml.etree.ElementTree as ET
from fractions import Fraction
from functools import cache, lru_cache
from pathlib import Path

import sympy
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated


__all__ = ["ANSWER_TYPES", "SEED", "corpus", "decode", "holds_answer", "load_problems", "parse", "render", "value"]

SEED = 0  # the corpus's seed, which the benchmark reports
MATH500 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "math500" / "test.jsonl"

# --- parsing the reference answer ----------------------------------------------------------------------------------

TOKEN = re.compile(
    r"\\begin\{[pb]matrix\}|\\end\{[pb]matrix\}|\\\\|\\[a-zA-Z]+|\\.|\x00\d+\x00|\d+(?:\.\d+)?|\.\d+|\S"
)
OPS = {"+": "+", "-": "-", "=": "=", ",": ",", "/": "/", "<": "<", ">": ">", "&": "&"}
OP_COMMANDS = {"\\pm": "pm", "\\cup": "cup", "\\in": "in", "\\le": "le", "\\leq": "le", "\\ge": "ge", "\\geq": "ge"}
OP_COMMANDS |= {"\\times": "times", "\\cdot": "times"}
FUNCTIONS = ("cot", "tan", "sin", "cos", "sec", "csc", "log", "ln")
SCALAR = {"small integer", "negative integer", "large integer", "fraction", "decimal", "radical", "multiple of pi"}
SCALAR |= {"mixed number", "units/degrees/money"}


def _prepare(latex: str, kind: str) -> tuple[str, list[str]]:
    s = re.sub(r"\\left|\\right|\\displaystyle|\\boxed", "", latex.strip())
    s = s.replace("\\!", "").replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    s = re.sub(r"(?<!\\)\\[,;: ]", " ", s)
    if kind in ("large integer", "negative integer", "units/degrees/money"):
        s = re.sub(r"(?<=\d),\s*(?=\d{3}(?!\d))", "", s)
    texts: list[str] = []

    def keep(match):
        texts.append(match.group(1))
        return f"\x00{len(texts) - 1}\x00"

    return re.sub(r"\\(?:text|mbox|textbf|mathrm)\s*\{([^{}]*)\}", keep, s), texts


class _Parser:
    def __init__(self, tokens: list[str], texts: list[str]):
        self.t, self.texts, self.i = tokens, texts, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self):
        self.i += 1
        return self.t[self.i - 1] if self.i <= len(self.t) else None

    def arg(self) -> list:
        tok = self.take()
        if tok == "{":
            inner = self.seq(("}",))
            self.take()
            return inner
        if tok is not None and re.fullmatch(r"\d{2,}", tok):
            self.t.insert(self.i, tok[1:])
            return [("n", tok[0])]
        return self.atom(tok, [])

    def seq(self, stops) -> list:
        out: list = []
        while (tok := self.peek()) is not None and tok not in stops:
            self.take()
            out.extend(self.atom(tok, out))
        return _fold(out)

    def atom(self, tok, out) -> list:
        if tok is None:
            return []
        if tok == "{":
            inner = self.seq(("}",))
            self.take()
            return inner
        if tok in ("^", "_"):
            base = out.pop() if out else ("t", "")
            a = self.arg()
            if tok == "^" and a == [("c", "circ")]:
                return [("deg", base)]
            return [("p" if tok == "^" else "s", base, a)]
        if tok in ("(", "["):
            inner = self.seq((")", "]"))
            return [("g", tok, self.take() or "", inner)]
        if tok == "\\{":
            inner = self.seq(("\\}",))
            self.take()
            return [("g", "{", "}", inner)]
        if tok == "\\frac":
            a = self.arg()
            return [("f", a, self.arg())]
        if tok == "\\sqrt":
            index = None
            if self.peek() == "[":
                self.take()
                index = self.seq(("]",))
                self.take()
            return [("r", self.arg(), index)]
        if tok.startswith("\\begin"):
            rows, row = [], []
            while (nxt := self.peek()) is not None and not nxt.startswith("\\end"):
                cell = self.seq(("&", "\\\\", "\\end{pmatrix}", "\\end{bmatrix}"))
                row.append(cell)
                if self.peek() in ("\\\\",) or (self.peek() or "").startswith("\\end"):
                    rows.append(row)
                    row = []
                if self.peek() in ("&", "\\\\"):
                    self.take()
            self.take()
            return [("m", [r for r in rows if any(r)])]
        if tok.startswith("\x00"):
            return [("t", self.texts[int(tok.strip("\x00"))])]
        if tok == "\\pi":
            return [("c", "pi")]
        if tok == "\\infty":
            return [("c", "inf")]
        if tok == "\\circ":
            return [("c", "circ")]
        if tok == "\\$":
            return [("c", "$")]
        if tok in OP_COMMANDS:
            return [("o", OP_COMMANDS[tok])]
        if tok[1:] in FUNCTIONS:
            return [("fn", tok[1:], self.arg())]
        if tok in OPS:
            return [("o", OPS[tok])]
        if re.fullmatch(r"\d+(?:\.\d+)?|\.\d+", tok):
            return [("n", "0" + tok if tok.startswith(".") else tok)]
        if re.fullmatch(r"[A-Za-z]", tok):
            return [("v", tok)]
        return [("t", tok)]


def _fold(seq: list) -> list:
    """`a / b` between two plain numbers is a fraction (as in `-1/3` inside a matrix)."""
    out = list(seq)
    i = 0
    while i + 2 < len(out):
        if (
            out[i][0] == "n"
            and out[i + 1] == ("o", "/")
            and out[i + 2][0] == "n"
            and "." not in out[i][1] + out[i + 2][1]
        ):
            out[i : i + 3] = [("f", [out[i]], [out[i + 2]])]
        i += 1
    return out


@cache
def _parse(latex: str, kind: str) -> tuple:
    s, texts = _prepare(latex, kind)
    return _freeze(_Parser(TOKEN.findall(s), texts).seq(()))


def _freeze(x):
    if isinstance(x, list):
        return tuple(_freeze(y) for y in x)
    if isinstance(x, tuple):
        return tuple(_freeze(y) for y in x)
    return x


def parse(latex: str, kind: str = "") -> list:
    """The answer's tree: a list of nodes (tuples)."""
    return list(_parse(latex, kind or answer_type(latex)))


# --- emitters ------------------------------------------------------------------------------------------------------

SUP = str.maketrans("0123456789-+()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾ⁿ")
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
VULGAR = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (2, 5): "⅖", (3, 5): "⅗"}
VULGAR |= {(4, 5): "⅘", (1, 6): "⅙", (5, 6): "⅚", (1, 8): "⅛", (3, 8): "⅜", (5, 8): "⅝", (7, 8): "⅞", (1, 7): "⅐"}
VULGAR |= {(1, 9): "⅑", (1, 10): "⅒"}
HTML_FRACTIONS = {(1, 2), (1, 4), (3, 4), (1, 3), (2, 3), (1, 5), (2, 5), (3, 5), (4, 5), (1, 6), (5, 6), (1, 8)}
HTML_FRACTIONS |= {(3, 8), (5, 8), (7, 8)}


def _atomic(seq) -> bool:
    return len(seq) == 1 and seq[0][0] in ("n", "v", "c", "r", "t", "p", "s")


def _number_atoms(seq) -> bool:
    return len(seq) == 1 and seq[0][0] == "n"


class Plain:
    """ASCII math as typed in a chat box: `3/4`, `sqrt(2)`, `x^2`, `(3, 4]`."""

    ops = {"+": " + ", "-": " - ", "=": " = ", ",": ", ", "/": "/", "pm": " +- ", "cup": " U ", "in": " in "}
    ops |= {"le": " <= ", "ge": " >= ", "<": " < ", ">": " > ", "times": " * "}
    unary = {"-": "-", "+": "+", "pm": "+-"}
    implicit, mixed, fnsep = "", " ", " "
    consts = {"pi": "pi", "inf": "inf", "$": "$", "circ": "deg"}
    degree = " degrees"

    def __init__(self, **options):
        self.opt = options
        if options.get("half"):
            self.implicit = "*"

    def seq(self, seq) -> str:
        out, prev = [], None
        for node in seq:
            if node[0] == "o":
                unary = prev is None or prev[0] == "o"
                out.append((self.unary if unary and node[1] in self.unary else self.ops).get(node[1], node[1]))
                prev = node
                continue
            piece = self.node(node)
            if piece == "":
                continue
            if prev is not None and prev[0] != "o":
                out.append(self.join(prev, node))
            out.append(piece)
            prev = node
        return "".join(out)

    def join(self, prev, node) -> str:
        if node[0] == "t" or (node[0] == "p" and node[1][0] == "t"):
            return " "
        if prev[0] == "n" and node[0] in ("n", "f"):
            return self.mixed
        return self.implicit

    def node(self, node) -> str:
        kind = node[0]
        if kind == "n":
            return self.num(node[1])
        if kind == "v":
            return self.var(node[1])
        if kind == "c":
            return self.const(node[1])
        if kind == "f":
            return self.frac(node[1], node[2])
        if kind == "r":
            return self.root(node[1], node[2])
        if kind == "p":
            return self.power(node[1], node[2])
        if kind == "s":
            return self.sub(node[1], node[2])
        if kind == "deg":
            return self.node(node[1]) + self.degree
        if kind == "t":
            return self.text(node[1])
        if kind == "fn":
            return self.fn(node[1], node[2])
        if kind == "g":
            return self.group(node[1], node[2], node[3])
        if kind == "m":
            return self.matrix(node[1])
        return ""

    def num(self, s):
        return s

    def var(self, c):
        return c

    def const(self, name):
        return self.consts.get(name, name)

    def wrap(self, seq):
        return self.seq(seq) if _atomic(seq) else "(" + self.seq(seq) + ")"

    def frac(self, a, b):
        return self.wrap(a) + "/" + self.wrap(b)

    def root(self, a, index):
        if index:
            return self.wrap(a) + "^(1/" + self.seq(index) + ")"
        if self.opt.get("half"):
            return self.wrap(a) + "^(1/2)"
        return "sqrt(" + self.seq(a) + ")"

    def power(self, base, e):
        return self.node(base) + "^" + self.wrap(e)

    def sub(self, base, e):
        return self.node(base) + "_" + self.seq(e)

    def text(self, t):
        return t.strip()

    def fn(self, name, arg):
        return name + self.fnsep + self.seq(arg)

    def group(self, o, c, inner):
        return o + self.seq(inner) + c

    def matrix(self, rows):
        if all(len(r) == 1 for r in rows):
            return "(" + ", ".join(self.seq(r[0]) for r in rows) + ")"
        return "[" + ", ".join("[" + ", ".join(self.seq(c) for c in r) + "]" for r in rows) + "]"


MATH_ALPHA = {
    "bold": (0x1D7CE, 0x1D400, 0x1D41A),
    "double-struck": (0x1D7D8, None, 0x1D552),
    "sans-bold": (0x1D7EC, 0x1D5D4, 0x1D5EE),
    "monospace": (0x1D7F6, 0x1D670, 0x1D68A),
    "italic": (None, 0x1D434, 0x1D44E),
}


def math_alpha(text: str, font: str) -> str:
    digit0, upper0, lower0 = MATH_ALPHA[font]
    out = []
    for ch in text:
        if ch.isascii() and ch.isdigit() and digit0:
            out.append(chr(digit0 + int(ch)))
        elif ch.isascii() and ch.isupper() and upper0:
            out.append(chr(upper0 + ord(ch) - 65))
        elif ch.isascii() and ch.islower() and lower0:
            out.append("ℎ" if (font == "italic" and ch == "h") else chr(lower0 + ord(ch) - 97))
        else:
            out.append(ch)
    return "".join(out)


def fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if 0x21 <= ord(ch) <= 0x7E else ch for ch in text)


class Unicode(Plain):
    """Unicode math: `−`, `√`, `π`, `∞`, `±`, `∪`, `∈`, `≤`, superscripts, vulgar fractions, fraction slash."""

    ops = Plain.ops | {"-": " − ", "pm": " ± ", "cup": " ∪ ", "in": " ∈ ", "le": " ≤ ", "ge": " ≥ ", "times": " · "}
    unary = {"-": "−", "+": "+", "pm": "±"}
    consts = {"pi": "π", "inf": "∞", "$": "$", "circ": "°"}
    degree = "°"

    def __init__(self, **options):
        super().__init__(**options)
        self.implicit = options.get("times", "")
        self.fnsep = options.get("apply", " ")

    def var(self, c):
        return math_alpha(c, "italic") if self.opt.get("italic") else c

    def frac(self, a, b):
        if _number_atoms(b) and not any(n[0] in ("o", "f") for n in a) and not _number_atoms(a):
            return f"{self.seq(a)}⁄{self.seq(b)}"
        if _number_atoms(a) and _number_atoms(b) and "." not in a[0][1] + b[0][1]:
            p, q = int(a[0][1]), int(b[0][1])
            if self.opt.get("vulgar") and (p, q) in VULGAR:
                return VULGAR[(p, q)]
            if self.opt.get("supfrac"):
                return str(p).translate(SUP) + "⁄" + str(q).translate(SUB)
            return f"{p}⁄{q}"
        return self.wrap(a) + "/" + self.wrap(b)

    def root(self, a, index):
        sign = {None: "√", "3": "∛", "4": "∜"}.get(index and self.seq(index))
        if sign is None:
            return super().root(a, index)
        return sign + (self.seq(a) if _atomic(a) and a[0][0] in ("n", "v", "c") else "(" + self.seq(a) + ")")

    def power(self, base, e):
        plain = Plain().seq(e)
        if re.fullmatch(r"-?\d+|n", plain):
            return self.node(base) + plain.translate(SUP)
        return self.node(base) + "^" + self.wrap(e)

    def sub(self, base, e):
        plain = Plain().seq(e)
        if plain.isdigit():
            return self.node(base) + plain.translate(SUB)
        return super().sub(base, e)

    def matrix(self, rows):
        if all(len(r) == 1 for r in rows):
            return "⟨" + ", ".join(self.seq(r[0]) for r in rows) + "⟩"
        return "[" + "; ".join(" ".join(self.seq(c) for c in r) for r in rows) + "]"


ENTITIES = {
    "minus": ("&minus;", "&#8722;", "&#x2212;"),
    "pi": ("&pi;", "&#960;", "&#x3C0;"),
    "radic": ("&radic;", "&#8730;", "&#x221A;"),
    "infin": ("&infin;", "&#8734;", "&#x221E;"),
    "frasl": ("&frasl;", "&#8260;", "&#x2044;"),
    "plusmn": ("&plusmn;", "&#177;", "&#xB1;"),
    "cup": ("&cup;", "&#8746;", "&#x222A;"),
    "isin": ("&isin;", "&#8712;", "&#x2208;"),
    "le": ("&le;", "&#8804;", "&#x2264;"),
    "ge": ("&ge;", "&#8805;", "&#x2265;"),
    "deg": ("&deg;", "&#176;", "&#xB0;"),
    "lt": ("&lt;", "&#60;", "&#x3C;"),
    "gt": ("&gt;", "&#62;", "&#x3E;"),
    "times": ("&times;", "&#215;", "&#xD7;"),
    "nbsp": ("&nbsp;", "&#160;", "&#xA0;"),
}
ENTITY_MODES = ("named", "decimal", "hex")


class Html(Plain):
    """HTML: `<sup>3</sup>&frasl;<sub>4</sub>`, `&radic;13`, `<i>x</i><sup>2</sup>`, `&minus;`, tables for matrices."""

    def __init__(self, entities: str = "named", **options):
        super().__init__(**options)
        m = ENTITY_MODES.index(entities)
        e = {name: forms[m] for name, forms in ENTITIES.items()}
        self.e = e
        self.ops = Plain.ops | {"-": f" {e['minus']} ", "pm": f" {e['plusmn']} ", "cup": f" {e['cup']} "}
        self.ops |= {"in": f" {e['isin']} ", "le": f" {e['le']} ", "ge": f" {e['ge']} ", "<": f" {e['lt']} "}
        self.ops |= {">": f" {e['gt']} ", "times": f" {e['times']} "}
        self.unary = {"-": e["minus"], "+": "+", "pm": e["plusmn"]}
        self.consts = {"pi": e["pi"], "inf": e["infin"], "$": "$", "circ": e["deg"]}
        self.degree = e["deg"]
        self.mixed = e["nbsp"] if options.get("nbsp") else " "

    def var(self, c):
        return f"<i>{c}</i>"

    def frac(self, a, b):
        if len(a) == 1 and len(b) == 1 and a[0][0] in ("n", "c", "r", "v") and b[0][0] in ("n", "c", "v"):
            return f"<sup>{self.seq(a)}</sup>{self.e['frasl']}<sub>{self.seq(b)}</sub>"
        return self.wrap(a) + "/" + self.wrap(b)

    def root(self, a, index):
        if index:
            return f"<sup>{self.seq(index)}</sup>{self.e['radic']}({self.seq(a)})"
        if self.opt.get("overline"):
            return f'{self.e["radic"]}<span style="text-decoration:overline">{self.seq(a)}</span>'
        return self.e["radic"] + (self.seq(a) if _atomic(a) and a[0][0] in ("n", "v", "c") else f"({self.seq(a)})")

    def power(self, base, e):
        return self.node(base) + f"<sup>{self.seq(e)}</sup>"

    def sub(self, base, e):
        return self.node(base) + f"<sub>{self.seq(e)}</sub>"

    def text(self, t):
        return html.escape(t.strip())

    def matrix(self, rows):
        body = "".join("<tr>" + "".join(f"<td>{self.seq(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f'<table class="matrix">{body}</table>'


class MathML(Plain):
    """Presentation MathML."""

    sym = {"-": "−", "+": "+", "=": "=", ",": ",", "/": "/", "pm": "±", "cup": "∪", "in": "∈", "le": "≤", "ge": "≥"}
    sym |= {"<": "&lt;", ">": "&gt;", "times": "×"}

    def __init__(self, **options):
        super().__init__(**options)
        self.implicit = "<mo>&#x2062;</mo>" if options.get("invisible") else ""
        self.mixed = ""

    def seq(self, seq):
        out, prev = [], None
        for node in seq:
            if node[0] == "o":
                out.append(f"<mo>{self.sym.get(node[1], node[1])}</mo>")
            else:
                piece = self.node(node)
                if prev is not None and prev[0] != "o" and node[0] not in ("t",):
                    out.append(self.implicit if not (prev[0] == "n" and node[0] == "f") else "")
                out.append(piece)
            prev = node
        return "".join(out)

    def row(self, seq):
        inner = self.seq(seq)
        return inner if len(seq) == 1 and seq[0][0] in ("n", "v", "c") else f"<mrow>{inner}</mrow>"

    def num(self, s):
        return f"<mn>{s}</mn>"

    def var(self, c):
        return f"<mi>{c}</mi>"

    def const(self, name):
        return {"pi": "<mi>π</mi>", "inf": "<mi>∞</mi>", "$": "<mo>$</mo>", "circ": "<mo>°</mo>"}[name]

    def frac(self, a, b):
        return f"<mfrac>{self.row(a)}{self.row(b)}</mfrac>"

    def root(self, a, index):
        if index:
            return f"<mroot>{self.row(a)}{self.row(index)}</mroot>"
        return f"<msqrt>{self.seq(a)}</msqrt>"

    def power(self, base, e):
        return f"<msup>{self.row([base])}{self.row(e)}</msup>"

    def sub(self, base, e):
        return f"<msub>{self.row([base])}{self.row(e)}</msub>"

    def node(self, node):
        if node[0] == "deg":
            return self.node(node[1]) + "<mo>°</mo>"
        return super().node(node)

    def text(self, t):
        return f"<mtext>{html.escape(t.strip())}</mtext>"

    def fn(self, name, arg):
        return f"<mi>{name}</mi><mo>&#x2061;</mo>{self.seq(arg)}"

    def group(self, o, c, inner):
        return f"<mo>{o}</mo>{self.seq(inner)}<mo>{c}</mo>"

    def matrix(self, rows):
        body = "".join("<mtr>" + "".join(f"<mtd>{self.seq(c)}</mtd>" for c in r) + "</mtr>" for r in rows)
        return f"<mrow><mo>(</mo><mtable>{body}</mtable><mo>)</mo></mrow>"


def mathml(seq, display: bool = False, invisible: bool = False) -> str:
    attrs = ' display="block"' if display else ""
    return f"<math{attrs}><mrow>{MathML(invisible=invisible).seq(seq)}</mrow></math>"


class AsciiMath(Plain):
    """AsciiMath as typed between backticks: `frac(3)(4)`, `sqrt(2)`, `oo`, `uu`, `+-`."""

    ops = Plain.ops | {"cup": " uu ", "pm": " +- "}
    consts = {"pi": "pi", "inf": "oo", "$": "$", "circ": "@"}
    degree = " deg"

    def frac(self, a, b):
        return f"frac({self.seq(a)})({self.seq(b)})"

    def root(self, a, index):
        if index:
            return f"root({self.seq(index)})({self.seq(a)})"
        return f"sqrt({self.seq(a)})"

    def text(self, t):
        return f'"{t.strip()}"' if t.strip().isalpha() else t.strip()

    def matrix(self, rows):
        return "(" + ",".join("(" + ",".join(self.seq(c) for c in r) + ")" for r in rows) + ")"


class Latex(Plain):
    """Canonical LaTeX, as an LLM writes inside `$...$`."""

    ops = {"+": " + ", "-": " - ", "=": " = ", ",": ", ", "/": "/", "pm": " \\pm ", "cup": " \\cup ", "in": " \\in "}
    ops |= {"le": " \\le ", "ge": " \\ge ", "<": " < ", ">": " > ", "times": " \\times "}
    unary = {"-": "-", "+": "+", "pm": "\\pm "}
    consts = {"pi": "\\pi", "inf": "\\infty", "$": "\\$", "circ": "^\\circ"}
    degree = "^\\circ"

    def join(self, prev, node):
        if prev[0] == "n" and node[0] in ("n", "f"):
            return " "
        if node[0] in ("c", "r") and prev[0] == "n":
            return " "
        return ""

    def brace(self, seq):
        s = self.seq(seq)
        return s if len(s) == 1 else "{" + s + "}"

    def frac(self, a, b):
        return f"\\frac{{{self.seq(a)}}}{{{self.seq(b)}}}"

    def root(self, a, index):
        return f"\\sqrt[{self.seq(index)}]{{{self.seq(a)}}}" if index else f"\\sqrt{{{self.seq(a)}}}"

    def power(self, base, e):
        return self.node(base) + "^" + self.brace(e)

    def sub(self, base, e):
        return self.node(base) + "_" + self.brace(e)

    def text(self, t):
        return f"\\text{{{t}}}"

    def fn(self, name, arg):
        return f"\\{name} {self.seq(arg)}"

    def group(self, o, c, inner):
        return ("\\{" if o == "{" else o) + self.seq(inner) + ("\\}" if c == "}" else c)

    def matrix(self, rows):
        body = " \\\\ ".join(" & ".join(self.seq(c) for c in r) for r in rows)
        return f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"


class Python(Plain):
    """Python / SymPy source: `Rational(3, 4)`, `3*sqrt(13)`, `x**2`, `Matrix([...])`."""

    ops = Plain.ops | {"pm": " +- ", "cup": " | "}
    implicit, mixed = "*", " + "
    consts = {"pi": "pi", "inf": "oo", "$": "", "circ": ""}
    degree = ""

    def join(self, prev, node):
        if node[0] == "t" or (node[0] == "p" and node[1][0] == "t"):
            return ""
        return super().join(prev, node)

    def var(self, c):
        return "I" if (c == "i" and self.opt.get("complex")) else c

    def frac(self, a, b):
        if _number_atoms(a) and _number_atoms(b) and "." not in a[0][1] + b[0][1]:
            return f"{self.opt.get('rational', 'Rational')}({a[0][1]}, {b[0][1]})"
        return self.wrap(a) + "/" + self.wrap(b)

    def root(self, a, index):
        return f"root({self.seq(a)}, {self.seq(index)})" if index else f"sqrt({self.seq(a)})"

    def power(self, base, e):
        if base[0] == "t":
            return ""
        return self.node(base) + "**" + self.wrap(e)

    def sub(self, base, e):
        return f"int('{self.node(base)}', {self.seq(e)})"

    def text(self, t):
        return ""

    def fn(self, name, arg):
        return f"{name}({self.seq(arg)})"

    def matrix(self, rows):
        return "Matrix([" + ", ".join("[" + ", ".join(self.seq(c) for c in r) + "]" for r in rows) + "])"


class Sheet(Python):
    """Spreadsheet formula bodies: `3*SQRT(13)`, `PI()/6`, `{-1,0;0,-1}`."""

    consts = {"pi": "PI()", "inf": "", "$": "", "circ": ""}

    def frac(self, a, b):
        return self.wrap(a) + "/" + self.wrap(b)

    def root(self, a, index):
        return f"({self.seq(a)})^(1/{self.seq(index)})" if index else f"SQRT({self.seq(a)})"

    def power(self, base, e):
        return "" if base[0] == "t" else self.node(base) + "^" + self.wrap(e)

    def sub(self, base, e):
        return f'DECIMAL("{self.node(base)}",{self.seq(e)})'

    def matrix(self, rows):
        return "{" + ";".join(",".join(self.seq(c).replace(" ", "") for c in r) for r in rows) + "}"


# --- values --------------------------------------------------------------------------------------------------------


def _has(seq, kinds) -> bool:
    for node in seq:
        if node[0] in kinds:
            return True
        for child in node[1:]:
            if isinstance(child, tuple) and child and isinstance(child[0], tuple) and _has(child, kinds):
                return True
            if isinstance(child, tuple) and child and isinstance(child[0], str) and _has((child,), kinds):
                return True
        if node[0] == "m" and any(_has(c, kinds) for r in node[1] for c in r):
            return True
    return False


def _vars(seq) -> set:
    found = set()

    def walk(x):
        if isinstance(x, tuple) and x and x[0] == "v":
            found.add(x[1])
        elif isinstance(x, tuple):
            for y in x:
                walk(y)

    walk(tuple(seq))
    return found


@cache
def _value(seq: tuple, kind: str):
    if kind == "base-n number":
        node = seq[0]
        return sympy.Integer(int(node[1][1], int(Plain().seq(node[2]))))
    if kind not in SCALAR and kind != "complex number":
        return None
    source = Python(complex=True).seq(list(seq))
    return sympy.sympify(source, locals={"I": sympy.I, "Rational": sympy.Rational}, rational=True)


def value(answer: str, kind: str = ""):
    """The answer's exact SymPy value (scalars, complex numbers, base-n numbers), else None."""
    kind = kind or answer_type(answer)
    return _value(_parse(answer, kind), kind)


def _rational(v):
    return Fraction(int(v.p), int(v.q)) if v is not None and v.is_Rational else None


def _terminating(q: int) -> bool:
    while q % 2 == 0:
        q //= 2
    while q % 5 == 0:
        q //= 5
    return q == 1


def exact_decimal(f: Fraction) -> str | None:
    if f.denominator == 1 or not _terminating(f.denominator):
        return None
    digits = 0
    while (f * 10**digits).denominator != 1:
        digits += 1
    scaled = str(int(abs(f) * 10**digits)).rjust(digits + 1, "0")
    text = scaled[:-digits] + "." + scaled[-digits:]
    return ("-" if f < 0 else "") + text


def repeating_decimal(f: Fraction) -> tuple[str, str, str] | None:
    """(integer part, non-repeating digits, repeating block) of a non-terminating rational, if short."""
    if f.denominator == 1 or _terminating(f.denominator) or f < 0:
        return None
    whole, rest = divmod(f.numerator, f.denominator)
    seen, digits, r = {}, "", rest
    while r and r not in seen and len(digits) < 12:
        seen[r] = len(digits)
        r *= 10
        digits += str(r // f.denominator)
        r %= f.denominator
    if not r or r not in seen or len(digits) - seen[r] > 6:
        return None
    return str(whole), digits[: seen[r]], digits[seen[r] :]


# --- renderings ----------------------------------------------------------------------------------------------------

# style -> (medium, wrapper)
MEDIUM = {
    "html": ("html", "<b>{}</b>"),
    "html-strong-decimal-entities": ("html", "<strong>{}</strong>"),
    "html-span-hex-entities": ("html", '<span class="answer">{}</span>'),
    "html-code": ("html", "<code>{}</code>"),
    "html-table-cell": ("html", "<table><tr><th>Answer</th><td>{}</td></tr></table>"),
    "html-frac-entity": ("html", "<b>{}</b>"),
    "html-overline-radical": ("html", "{}"),
    "html-digit-groups": ("html", "<b>{}</b>"),
    "html-scientific": ("html", "{}"),
    "html-inequality": ("html", "{}"),
    "mathml": ("mathml", "{}"),
    "mathml-display": ("mathml", "{}"),
    "markdown-bold": ("markdown", "**{}**"),
    "markdown-italic": ("markdown", "*{}*"),
    "markdown-code": ("markdown", "`{}`"),
    "markdown-math": ("markdown", "${}$"),
    "markdown-math-block": ("markdown", "\n```math\n{}\n```\n"),
    "markdown-escaped": ("markdown", "{}"),
    "latex-paren": ("latex", "\\({}\\)"),
    "asciimath": ("asciimath", "`{}`"),
    "plain": ("plain", "{}"),
    "plain-power-half": ("plain", "{}"),
    "plain-repeating": ("plain", "{}"),
    "plain-exact-decimal": ("plain", "{}"),
    "plain-mixed": ("plain", "{}"),
    "plain-improper-fraction": ("plain", "{}"),
    "plain-no-leading-zero": ("plain", "{}"),
    "plain-scientific-e": ("plain", "{}"),
    "plain-base-words": ("plain", "{}"),
    "plain-inequality": ("plain", "{}"),
    "plain-comma-groups": ("plain", "{}"),
    "unicode": ("unicode", "{}"),
    "unicode-vulgar": ("unicode", "{}"),
    "unicode-superscript-fraction": ("unicode", "{}"),
    "unicode-italic": ("unicode", "{}"),
    "unicode-overline-repeating": ("unicode", "{}"),
    "unicode-scientific": ("unicode", "{}"),
    "unicode-inequality": ("unicode", "{}"),
    "unicode-digit-groups": ("unicode", "{}"),
    "unicode-bold": ("unicode", "{}"),
    "unicode-double-struck": ("unicode", "{}"),
    "unicode-sans-bold": ("unicode", "{}"),
    "unicode-monospace": ("unicode", "{}"),
    "unicode-circled-letter": ("unicode", "{}"),
    "unicode-base-subscript": ("unicode", "{}"),
    "fullwidth": ("unicode", "{}"),
    "bbcode-bold": ("bbcode", "[b]{}[/b]"),
    "bbcode-math": ("bbcode", "[math]{}[/math]"),
    "wiki-bold": ("wiki", "'''{}'''"),
    "wiki-math": ("wiki", "<math>{}</math>"),
    "json-string-latex": ("json", '"{}"'),
    "json-string-plain": ("json", '"{}"'),
    "json-number": ("json", "{}"),
    "yaml": ("yaml", "{}"),
    "csv": ("csv", "{}"),
    "python": ("python", "{}"),
    "python-fraction": ("python", "{}"),
    "python-complex": ("python", "{}"),
    "python-octal-literal": ("python", "{}"),
    "sympy-interval": ("python", "{}"),
    "sympy-eq": ("python", "{}"),
    "spreadsheet-formula": ("sheet", "{}"),
    "spreadsheet-value": ("sheet", "{}"),
}

GENERIC = (
    "html",
    "html-strong-decimal-entities",
    "html-span-hex-entities",
    "html-code",
    "html-table-cell",
    "mathml",
    "mathml-display",
    "markdown-bold",
    "markdown-italic",
    "markdown-code",
    "markdown-math",
    "markdown-math-block",
    "markdown-escaped",
    "latex-paren",
    "asciimath",
    "plain",
    "unicode",
    "unicode-bold",
    "unicode-double-struck",
    "unicode-sans-bold",
    "unicode-monospace",
    "fullwidth",
    "bbcode-bold",
    "bbcode-math",
    "wiki-bold",
    "wiki-math",
    "json-string-latex",
    "json-string-plain",
    "yaml",
    "csv",
    "python",
    "spreadsheet-formula",
)

SPECIFIC = {
    "fraction": ("unicode-vulgar", "unicode-superscript-fraction", "html-frac-entity", "plain-repeating")
    + ("unicode-overline-repeating", "plain-exact-decimal", "json-number", "spreadsheet-value", "python-fraction")
    + ("plain-mixed",),
    "mixed number": (
        "unicode-vulgar",
        "plain-improper-fraction",
        "html-frac-entity",
        "plain-exact-decimal",
        "json-number",
    ),
    "decimal": ("plain-no-leading-zero", "unicode-scientific", "html-scientific", "plain-scientific-e")
    + ("json-number", "spreadsheet-value"),
    "large integer": ("unicode-digit-groups", "html-digit-groups", "plain-comma-groups", "json-number")
    + ("spreadsheet-value",),
    "small integer": ("json-number", "spreadsheet-value"),
    "negative integer": ("json-number", "spreadsheet-value"),
    "radical": ("plain-power-half", "html-overline-radical", "unicode-italic"),
    "multiple of pi": ("unicode-italic",),
    "complex number": ("python-complex", "unicode-italic"),
    "interval": ("plain-inequality", "unicode-inequality", "html-inequality", "sympy-interval"),
    "multiple choice": ("unicode-circled-letter",),
    "base-n number": ("unicode-base-subscript", "plain-base-words", "python-octal-literal"),
    "equation": ("sympy-eq", "unicode-italic"),
    "expression": ("unicode-italic",),
    "units/degrees/money": ("spreadsheet-value", "json-number"),
    "set/list": ("json-number",),
    "ordered pair": ("json-number",),
    "tuple": ("json-number",),
    "matrix/vector": ("json-number",),
}


def _json_number(seq, kind) -> str | None:
    """A JSON number or array of numbers (only for rational values)."""
    if kind in ("small integer", "negative integer", "large integer", "decimal", "fraction", "mixed number"):
        f = _rational(_value(tuple(seq), kind))
        return None if f is None else (str(f.numerator) if f.denominator == 1 else exact_decimal(f))
    if kind == "units/degrees/money":
        f = _rational(_value(tuple(seq), kind))
        return None if f is None else (str(f.numerator) if f.denominator == 1 else exact_decimal(f))
    items = _components(seq, kind)
    if items is None:
        return None
    rendered = []
    for item in items:
        text = Plain().seq(item).replace(" ", "")
        if not re.fullmatch(r"-?\d+", text):
            return None
        rendered.append(text)
    if kind == "matrix/vector":
        rows = seq[0][1]
        if not all(len(r) == 1 for r in rows):
            width = len(rows[0])
            return (
                "["
                + ", ".join("[" + ", ".join(rendered[i : i + width]) + "]" for i in range(0, len(rendered), width))
                + "]"
            )
    return "[" + ", ".join(rendered) + "]"


def _split(seq, op=","):
    parts, cur = [], []
    for node in seq:
        if node == ("o", op):
            parts.append(cur)
            cur = []
        else:
            cur.append(node)
    return [*parts, cur]


def _components(seq, kind):
    if kind == "matrix/vector":
        return [c for r in seq[0][1] for c in r]
    if kind in ("ordered pair", "tuple") and len(seq) == 1 and seq[0][0] == "g":
        return _split(seq[0][3])
    if kind == "set/list":
        inner = seq[0][3] if len(seq) == 1 and seq[0][0] == "g" else seq
        if ("o", "pm") in inner:
            return None
        return _split(inner)
    return None


def _groups(s: str, fmt: str) -> str:
    digits = s.lstrip("-")
    out = ""
    while len(digits) > 3:
        out = fmt + digits[-3:] + out
        digits = digits[:-3]
    return ("-" if s.startswith("-") else "") + digits + out


def _inequality(seq, emitter, x="x") -> str | None:
    group = seq[-1] if seq and seq[-1][0] == "g" else None
    if group is None or ("o", "cup") in seq or len(seq) not in (1, 3):
        return None
    ends = _split(group[3])
    if len(ends) != 2:
        return None
    lo, hi = ends
    lt = {"(": "<", "[": "le"}[group[1]] if group[1] in "([" else None
    rt = {")": "<", "]": "le"}.get(group[2])
    if lt is None or rt is None:
        return None
    var = [("v", x)]
    if lo == [("o", "-"), ("c", "inf")]:
        return emitter.seq(var + [("o", rt)] + hi) if hi != [("c", "inf")] else None
    if hi == [("c", "inf")]:
        return emitter.seq(var + [("o", {"<": ">", "le": "ge"}[lt])] + lo)
    return emitter.seq(lo + [("o", lt)] + var + [("o", rt)] + hi)


def render(style: str, seq, kind: str) -> str | None:
    """The value (the part that states it) of the tree `seq` in `style`, or None where the style does not apply."""
    seq = list(seq)
    has_vars = bool(_vars(seq) - {"i"}) if kind != "complex number" else False
    rational = _rational(_value(tuple(seq), kind)) if kind in SCALAR else None
    if style == "html":
        return Html("named").seq(seq)
    if style == "html-strong-decimal-entities":
        return Html("decimal").seq(seq)
    if style == "html-span-hex-entities":
        return Html("hex").seq(seq)
    if style == "html-code":
        return html.escape(Plain().seq(seq), quote=False)
    if style == "html-table-cell":
        return Html("named", nbsp=True).seq(seq)
    if style == "html-frac-entity":
        if rational is None or rational.denominator == 1:
            return None
        whole, rest = divmod(rational.numerator, rational.denominator) if rational > 0 else (None, None)
        if rest is None:
            return None
        key = (rest, rational.denominator)
        if key not in HTML_FRACTIONS:
            return None
        entity = f"&frac{key[0]}{key[1]};"
        return (str(whole) if whole else "") + entity
    if style == "html-overline-radical":
        return Html("named", overline=True).seq(seq) if _has(seq, ("r",)) else None
    if style == "html-digit-groups":
        text = Plain().seq(seq)
        return _groups(text, "&thinsp;") if re.fullmatch(r"-?\d{4,}", text) else None
    if style in ("html-scientific", "unicode-scientific", "plain-scientific-e"):
        if rational is None or rational == 0 or abs(rational) >= 1 or rational.denominator == 1:
            return None
        mantissa, exponent = f"{float(rational):e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        exponent = int(exponent)
        if style == "plain-scientific-e":
            return f"{mantissa}E{exponent:+03d}"
        if style == "unicode-scientific":
            return f"{mantissa}×10{str(exponent).translate(SUP).replace('-', '⁻')}"
        return f"{mantissa}&times;10<sup>{str(exponent).replace('-', '&minus;')}</sup>"
    if style in ("plain-inequality", "unicode-inequality", "html-inequality"):
        emitter = {"plain-inequality": Plain(), "unicode-inequality": Unicode(), "html-inequality": Html()}[style]
        return _inequality(seq, emitter)
    if style == "sympy-interval":
        if len(seq) != 1 or seq[0][0] != "g" or kind != "interval":
            return None
        ends = _split(seq[0][3])
        if len(ends) != 2:
            return None
        name = {"()": "Interval.open", "(]": "Interval.Lopen", "[)": "Interval.Ropen", "[]": "Interval"}
        name = name.get(seq[0][1] + seq[0][2])
        py = Python()
        return None if name is None else f"{name}({py.seq(ends[0])}, {py.seq(ends[1])})"
    if style == "sympy-eq":
        sides = _split(seq, "=")
        if len(sides) != 2:
            return None
        return f"Eq({Python().seq(sides[0])}, {Python().seq(sides[1])})"
    if style == "mathml":
        return mathml(seq)
    if style == "mathml-display":
        return mathml(seq, display=True, invisible=True)
    if style in ("markdown-bold", "bbcode-bold", "wiki-bold", "plain"):
        return Plain().seq(seq)
    if style == "markdown-italic":
        return Unicode().seq(seq)
    if style == "markdown-code":
        return Plain().seq(seq)
    if style in ("markdown-math", "markdown-math-block", "latex-paren", "bbcode-math", "wiki-math"):
        return Latex().seq(seq)
    if style == "markdown-escaped":
        text = Latex().seq(seq)
        escaped = re.sub(r"([\\_*{}\[\]()])", r"\\\1", text)
        return escaped if escaped != text else None
    if style == "asciimath":
        return AsciiMath().seq(seq)
    if style == "plain-power-half":
        return Plain(half=True).seq(seq) if _has(seq, ("r",)) else None
    if style in ("plain-repeating", "unicode-overline-repeating"):
        rep = repeating_decimal(rational) if rational is not None else None
        if rep is None:
            return None
        whole, pre, block = rep
        if style == "plain-repeating":
            return f"{whole}.{pre}({block})"
        return f"{whole}.{pre}" + "".join(d + "\u0305" for d in block)
    if style == "plain-exact-decimal":
        return exact_decimal(rational) if rational is not None and rational.denominator != 1 else None
    if style == "plain-mixed":
        if rational is None or rational.denominator == 1 or rational < 1:
            return None
        whole, rest = divmod(rational.numerator, rational.denominator)
        return f"{whole} {rest}/{rational.denominator}"
    if style == "plain-improper-fraction":
        if kind != "mixed number" or rational is None or rational.denominator == 1:
            return None
        return f"{rational.numerator}/{rational.denominator}"
    if style == "plain-no-leading-zero":
        text = Plain().seq(seq)
        return text[1:] if text.startswith("0.") else None
    if style == "plain-base-words":
        if kind != "base-n number":
            return None
        return f"{seq[0][1][1]} (base {Plain().seq(seq[0][2])})"
    if style == "plain-comma-groups":
        text = Plain().seq(seq)
        return _groups(text, ",") if re.fullmatch(r"-?\d{4,}", text) else None
    if style == "unicode":
        return Unicode().seq(seq)
    if style == "unicode-vulgar":
        text = re.sub(f"(?<=\\d) (?=[{''.join(VULGAR.values())}])", "", Unicode(vulgar=True).seq(seq))
        return text if any(ch in text for ch in VULGAR.values()) else None
    if style == "unicode-superscript-fraction":
        text = Unicode(supfrac=True).seq(seq)
        return text if "⁄" in text else None
    if style == "unicode-italic":
        if not _vars(seq) and not _has(seq, ("c",)):
            return None
        return Unicode(italic=True).seq(seq)
    if style == "unicode-digit-groups":
        text = Unicode().seq(seq)
        return _groups(text, "\u202f") if re.fullmatch(r"−?\d{4,}", text) else None
    if style in ("unicode-bold", "unicode-double-struck", "unicode-sans-bold", "unicode-monospace"):
        return math_alpha(Unicode().seq(seq), style.removeprefix("unicode-"))
    if style == "unicode-circled-letter":
        letter = re.sub(r"[^A-Z]", "", Plain().seq(seq))
        return chr(0x24B6 + ord(letter) - 65) if kind == "multiple choice" and len(letter) == 1 else None
    if style == "unicode-base-subscript":
        return f"({seq[0][1][1]}){Plain().seq(seq[0][2]).translate(SUB)}" if kind == "base-n number" else None
    if style == "fullwidth":
        return fullwidth(Unicode().seq(seq))
    if style == "json-string-latex":
        return json.dumps(Latex().seq(seq))[1:-1]
    if style == "json-string-plain":
        return json.dumps(Unicode().seq(seq), ensure_ascii=True)[1:-1]
    if style == "json-number":
        return _json_number(seq, kind)
    if style in ("yaml", "csv"):
        text = Plain().seq(seq)
        if style == "csv" and ("," in text or '"' in text):
            return None
        return text
    if style == "python":
        if _has(seq, ("t",)) and kind != "units/degrees/money":
            return None
        if kind in ("set/list",):
            items = _components(seq, kind)
            return None if items is None else "{" + ", ".join(Python().seq(i) for i in items) + "}"
        if kind == "interval" or ("o", "=") in seq:
            return None
        return Python(complex=kind == "complex number").seq(seq)
    if style == "python-fraction":
        return Python(rational="Fraction").seq(seq) if _has(seq, ("f",)) and rational is not None else None
    if style == "python-complex":
        if kind != "complex number":
            return None
        v = _value(tuple(seq), kind)
        re_, im = sympy.re(v), sympy.im(v)
        return f"complex({re_}, {im})"
    if style == "python-octal-literal":
        if kind != "base-n number" or Plain().seq(seq[0][2]) != "8":
            return None
        return "0o" + seq[0][1][1]
    if style == "spreadsheet-formula":
        if has_vars or kind in ("interval", "set/list", "ordered pair", "tuple", "text answer", "multiple choice"):
            return None
        if kind == "complex number":
            v = _value(tuple(seq), kind)
            return f"=COMPLEX({sympy.re(v)},{sympy.im(v)})"
        if kind == "matrix/vector" and _has(seq, ("f",)):
            return None
        return "=" + Sheet().seq(seq).replace(" ", "")
    if style == "spreadsheet-value":
        if rational is None:
            return None
        if kind == "units/degrees/money" and _has(seq, ("c",)) and seq[0] == ("c", "$"):
            return f"${rational.numerator // rational.denominator:,}.{int(rational * 100) % 100:02d}"
        text = str(rational.numerator) if rational.denominator == 1 else exact_decimal(rational)
        return None if text is None else text
    return None


def decorate(text: str, decoration: str, medium: str) -> str | None:
    """A copy-paste decoration applied to a rendering, or None where it does not apply."""
    if decoration == "zero-width-space":
        m = re.search(r"\d(?=\d)", text)
        return None if m is None else text[: m.end()] + "\u200b" + text[m.end() :]
    if decoration == "soft-hyphen":
        m = re.search(r"\d(?=\d)", text)
        shy = "&shy;" if medium == "html" else "\u00ad"
        return None if m is None else text[: m.end()] + shy + text[m.end() :]
    if decoration == "no-break-space":
        if " " not in text.strip():
            return None
        return text.replace(" ", "&nbsp;" if medium == "html" else "\u00a0")
    if decoration == "invisible-times":
        out = re.sub(r"(\d)(?=[√∛π𝑎-𝑧A-Za-z(])", "\\1\u2062", text)
        return out if out != text else None
    if decoration == "function-application":
        out = re.sub(r"\b(cot|tan|sin|cos) ", "\\1\u2061", text)
        return out if out != text else None
    return None


DECORATIONS = {
    "plain": ("zero-width-space", "soft-hyphen", "no-break-space"),
    "unicode": ("zero-width-space", "soft-hyphen", "invisible-times", "function-application", "no-break-space"),
    "markdown": ("zero-width-space", "soft-hyphen"),
    "html": ("soft-hyphen", "no-break-space"),
    "bbcode": ("zero-width-space",),
    "wiki": ("soft-hyphen",),
}


def approximation_texts(v, rng: random.Random) -> list[tuple[str, str]]:
    """(style, inner) decimals of 4-7 significant digits of an irrational or non-terminating value."""
    x = float(v)
    out = []
    for digits in rng.sample(range(4, 8), 3):
        whole = len(str(int(abs(x)))) if abs(x) >= 1 else 0
        places = (
            max(1, digits - whole) if abs(x) >= 1 else digits + len(re.match(r"0\.0*", f"{abs(x):.12f}").group(0)) - 2
        )
        text = f"{abs(x):.{places}f}"
        out.append((text, x < 0))
    styles = [
        "plain",
        "unicode",
        "html",
        "mathml",
        "markdown-bold",
        "json-number",
        "spreadsheet-value",
        "unicode-bold",
    ]
    styles += ["fullwidth", "markdown-code", "bbcode-bold"]
    chosen = rng.sample(styles, len(out))
    result = []
    for (text, negative), style in zip(out, chosen):
        if style == "unicode":
            inner = ("−" if negative else "") + text
        elif style == "html":
            inner = ("&minus;" if negative else "") + text
        elif style == "mathml":
            inner = "<math>" + ("<mo>−</mo>" if negative else "") + f"<mn>{text}</mn></math>"
        elif style == "unicode-bold":
            inner = ("−" if negative else "") + math_alpha(text, "bold")
        elif style == "fullwidth":
            inner = fullwidth(("-" if negative else "") + text)
        else:
            inner = ("-" if negative else "") + text
        result.append((style, inner))
    return result


# --- decoding and the checker --------------------------------------------------------------------------------------


def _mathml_plain(source: str) -> str:
    fixed = re.sub(r"&(?!lt;|gt;|amp;|#)([a-zA-Z]+);", lambda m: html.unescape(m.group(0)), source)
    try:
        root = ET.fromstring(fixed)
    except ET.ParseError:
        return re.sub(r"<[^>]+>", "", html.unescape(source))

    def conv(el) -> str:
        tag = el.tag.split("}")[-1]
        kids = list(el)
        if tag in ("mn", "mi", "mo", "mtext", "ms"):
            return el.text or ""
        if tag == "mfrac" and len(kids) == 2:
            return f" ({conv(kids[0])})/({conv(kids[1])})"
        if tag == "msqrt":
            return "sqrt(" + "".join(conv(k) for k in kids) + ")"
        if tag == "mroot" and len(kids) == 2:
            return f"({conv(kids[0])})^(1/({conv(kids[1])}))"
        if tag == "msup" and len(kids) == 2:
            return f"{conv(kids[0])}^({conv(kids[1])})"
        if tag == "msub" and len(kids) == 2:
            return f"{conv(kids[0])}_({conv(kids[1])})"
        if tag == "mtable":
            return "[" + ",".join(conv(k) for k in kids) + "]"
        if tag == "mtr":
            return "[" + ",".join(conv(k) for k in kids) + "]"
        if tag in ("annotation", "annotation-xml"):
            return ""
        if tag == "semantics" and kids:
            return conv(kids[0])
        return (el.text or "") + "".join(conv(k) + (k.tail or "") for k in kids)

    return conv(root)


def _latex_plain(s: str) -> str:
    for _ in range(4):
        s = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r" (\1)/(\2)", s)
        s = re.sub(r"\\[dt]?frac\s*(\d)(\d)", r" (\1)/(\2)", s)
        s = re.sub(r"\\sqrt\s*\[([^\]]*)\]\s*\{([^{}]*)\}", r"(\2)^(1/(\1))", s)
        s = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", s)
        s = re.sub(r"\\(?:text|mathrm|mbox|textbf|boxed|operatorname)\s*\{([^{}]*)\}", r"\1", s)
        s = re.sub(r"\^\s*\{([^{}]*)\}", r"^(\1)", s)
        s = re.sub(r"_\s*\{([^{}]*)\}", r"_(\1)", s)
    s = re.sub(r"\\sqrt\s*(\d)", r"sqrt(\1)", s)
    s = re.sub(r"\\begin\{[pb]matrix\}(.*?)\\end\{[pb]matrix\}", lambda m: _matrix_plain(m.group(1)), s, flags=re.S)
    words = {"pi": "π", "infty": "∞", "cup": "∪", "pm": "±", "in": "∈", "le": "≤", "leq": "≤", "ge": "≥"}
    words |= {"geq": "≥", "cdot": "·", "times": "×", "circ": "°", "lt": "<", "gt": ">", "ldots": "...", "neq": "≠"}
    words |= {"approx": "≈", "ne": "≠"}
    s = re.sub(r"\\(left|right|displaystyle|quad|qquad)\b", " ", s)
    s = re.sub(r"\\([a-zA-Z]+)", lambda m: words.get(m.group(1), m.group(1)), s)
    return s.replace("\\{", "{").replace("\\}", "}").replace("\\$", "$").replace("\\!", "").replace("\\,", " ")


def _matrix_plain(body: str) -> str:
    rows = [r for r in body.split("\\\\") if r.strip()]
    return "[" + ",".join("[" + ",".join(c.strip() for c in r.split("&")) + "]" for r in rows) + "]"


ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u2061\u2062\u2063\u2064"), None)
SPACES = dict.fromkeys(map(ord, "\u00a0\u2009\u202f\u2007\u205f\u2002\u2003\u3000\u200a"), " ")
SUPER_CHARS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ⁿ"
SUB_CHARS = "₀₁₂₃₄₅₆₇₈₉"


@lru_cache(maxsize=200_000)
def decode(text: str) -> str:
    """Plain ASCII-ish math from a text in any of this module's media (tags, entities, MathML, LaTeX, Markdown,
    BBCode, code, spreadsheet and Unicode forms)."""
    s = text.replace("\\\\", "\\") if "\\\\" in text and "pmatrix" not in text else text
    s = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), s)
    s = re.sub(r"<math\b[^>]*>.*?</math>", lambda m: " " + _mathml_plain(m.group(0)) + " ", s, flags=re.S)
    s = re.sub(r"<sup>(.*?)</sup>\s*(?:&frasl;|&#8260;|&#x2044;|⁄|/)\s*<sub>(.*?)</sub>", r" (\1)/(\2)", s)
    s = re.sub(r"<sup>(.*?)</sup>", r"^(\1)", s)
    s = re.sub(r"<sub>(.*?)</sub>", r"_(\1)", s)
    s = re.sub(r"</?(?:b|i|em|strong|span|code|tt|var|u|a|small|big|font)\b[^>]*>", "", s)
    s = re.sub(r"<[^>]+>", " ", s)
    s = re.sub(r"&frac(\d)(\d);", r" \1/\2", s)
    s = html.unescape(s)
    s = re.sub(r"\[/?(?:b|i|u|quote|code|math|tex|sup|sub|color[^\]]*)\]", " ", s)
    s = s.replace("'''", "").replace("```math", " ").replace("```", " ")
    s = re.sub(r"\\([*_`#|^~\[\]()<>!{}])", r"\1", s) if re.search(r"\\[*_\[\]()]", s) else s
    s = _latex_plain(s)
    s = s.translate(ZERO_WIDTH).translate(SPACES)
    s = re.sub(r"(\d*)\.(\d*?)((?:\d[\u0305\u0304])+)", lambda m: f"{m.group(1)}.{m.group(2)}({m.group(3)[::2]})", s)
    for ch, (p, q) in {v: k for k, v in VULGAR.items()}.items():
        s = s.replace(ch, f" {p}/{q}")
    s = re.sub(f"[{SUPER_CHARS}]+", lambda m: "^(" + unicodedata.normalize("NFKC", m.group(0)) + ")", s)
    s = re.sub(f"[{SUB_CHARS}]+", lambda m: "_(" + unicodedata.normalize("NFKC", m.group(0)) + ")", s)
    s = unicodedata.normalize("NFKC", s)
    table = {"−": "-", "–": "-", "⁄": "/", "∕": "/", "÷": "/", "±": "+-", "√": "sqrt", "∛": "cbrt", "π": "pi"}
    table |= {"∞": "oo", "∪": " U ", "∈": " in ", "≤": "<=", "⩽": "<=", "≥": ">=", "·": "*", "×": "*", "⋅": "*"}
    table |= {"⟨": "(", "⟩": ")", "〈": "(", "〉": ")", "ⅈ": "i", "𝜋": "pi"}
    for a, b in table.items():
        s = s.replace(a, b)
    s = re.sub(r"\b(?:sympy|sp|np|numpy|math|cmath)\.", "", s)
    s = re.sub(r"\bPI\(\)", "pi", s)
    s = re.sub(r"(-?)\s*\b(?:Fraction|Rational)\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", r"(\1\2/\3)", s)
    s = re.sub(r"\bcomplex\(\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\)", lambda m: _complex_plain(m.group(1), m.group(2)), s)
    s = re.sub(r"(?<=\d)j\b", "i", s)
    s = re.sub(r"\bCOMPLEX\(\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\)", lambda m: _complex_plain(m.group(1), m.group(2)), s)
    s = re.sub(r"\b0o([0-7]+)\b", r"\1_(8)", s)
    s = re.sub(r"\bint\('(\w+)',\s*(\d+)\)", r"\1_(\2)", s)
    s = re.sub(r'\bDECIMAL\("(\w+)",\s*(\d+)\)', r"\1_(\2)", s)
    s = re.sub(r"\((\w+)\)\s*_\((\d+)\)", r"\1_(\2)", s)
    s = re.sub(r"\b(\w+) \(base (\d+)\)", r"\1_(\2)", s)
    s = re.sub(r"\bEq\(\s*([^,]+?),\s*(.+?)\)(?=\s*(?:$|[\n;#]))", r"\1 = \2", s, flags=re.M)
    s = re.sub(r"(?<=[\w)])\*\*(?=[\w(])", "^", s)
    s = re.sub(r"\bSQRT\(", "sqrt(", s)
    s = re.sub(r"(\d)\s*[*x]\s*10\s*\^\s*\(?([-+]?\d+)\)?", r"\1e\2", s)
    s = re.sub(r"(\d)E([-+]?\d+)\b", r"\1e\2", s)
    s = re.sub(r"(?<=\d)[,\u202f](?=\d{3}(?!\d))", "", s)
    s = re.sub(r"(?<=\d) (?=\d{3}(?![\d/]))", "", s)
    return s


def _complex_plain(a: str, b: str) -> str:
    b = b.lstrip("+")
    return f"{a}-{b[1:]}i" if b.startswith("-") else f"{a}+{b}i"


def _unparen(s: str) -> str:
    for _ in range(3):
        s = re.sub(r"(?<![\d.])\((-?[\w.]+)\)", r"\1", s)
    return s


def _spaced(text: str) -> str:
    """`decode` with words kept apart, for word and number searches."""
    s = decode(text).lower().replace("*", " ").replace("`", " ")
    s = _unparen(s)
    s = re.sub(r"\s+", " ", s)
    s = re.sub(r"\s*([^\w\s.])\s*", r"\1", s)
    s = re.sub(r"(\d) (?=sqrt|pi|cbrt|[a-z]\b)", r"\1", s)
    s = re.sub(r"\b(cot|tan|sin|cos) (?=[a-z]\b)", r"\1", s)
    return s


NUMBER = re.compile(
    r"(?<![\w.])(-?)(\d+\.\d*(?=\(\d)|\d+(?:\.\d+)?|\.\d+)(?:\((\d+)\))?(?:/(\d+))?(?:\^?(?:e|10\^)\(?([-+]?\d+)\)?(?![\w.]))?"
)


def numbers(spaced: str) -> list[Fraction]:
    out = []
    for m in re.finditer(r"(?<![\w.])(\d+) (\d+)/(\d+)(?![\w.])", spaced):
        out.append(int(m.group(1)) + Fraction(int(m.group(2)), int(m.group(3))))
    for m in NUMBER.finditer(spaced):
        sign, body, rep, den, exp = m.groups()
        if not rep:
            f = Fraction(body)
        else:
            whole, _, pre = body.partition(".")
            f = Fraction(int(whole or 0)) + Fraction(int(pre or 0), 10 ** len(pre)) if pre else Fraction(int(whole))
            f += Fraction(int(rep), (10 ** len(rep) - 1) * 10 ** len(pre))
        if den and int(den):
            f /= int(den)
        if exp:
            f *= Fraction(10) ** int(exp)
        out.append(-f if sign else f)
    return out


def _numview(text: str) -> str:
    """`decode` with signs kept next to their digits, for number searches."""
    s = decode(text).lower().replace("*", " ").replace("`", " ")
    return re.sub(r"\s+", " ", _unparen(s))


def _decimal_places(spaced: str) -> list[tuple[float, int, int]]:
    """(value, significant digits, decimal places) of each decimal in the text."""
    out = []
    for m in re.finditer(r"(?<![\w.])(-?)(\d*)\.(\d+)(?![\w(])", spaced):
        digits = (m.group(2) + m.group(3)).lstrip("0")
        out.append((float(m.group(0)), len(digits), len(m.group(3))))
    return out


class Target:
    """What `holds_answer` looks for: the answer's spellings in every medium, its value, its number sequence."""

    def __init__(self, answer: str, kind: str, problem: str = ""):
        self.kind = kind
        self.seq = list(_parse(answer, kind))
        self.value = _value(tuple(self.seq), kind)
        self.rational = _rational(self.value) if self.value is not None and self.value.is_real else None
        self.real = float(self.value) if self.value is not None and self.value.is_real else None
        forms = set()
        for style in set(GENERIC) | set(MEDIUM):
            inner = render(style, self.seq, kind)
            if inner:
                forms.add(_spaced(inner))
        forms.add(_spaced(Latex().seq(self.seq)))
        forms.add(_spaced(answer))
        if kind == "multiple choice":
            letter = re.sub(r"[^A-Z]", "", Plain().seq(self.seq)).lower()
            forms |= {letter, f"({letter})"}
        if kind == "set/list":
            items = _components(self.seq, kind)
            if items and len(items) <= 3:
                for perm in itertools.permutations(items):
                    forms.add(_spaced(", ".join(Plain().seq(i) for i in perm)))
        if kind in SCALAR or kind == "base-n number":
            forms = {f for f in forms if not re.fullmatch(r"-?[\d.]+(?:/\d+)?", f)}
        self.forms = sorted((f for f in forms if f.strip()), key=len, reverse=True)
        self.patterns = [self._pattern(f) for f in self.forms]
        self.sequence = None
        if kind in ("ordered pair", "tuple", "matrix/vector", "complex number", "set/list", "equation", "expression"):
            nums = numbers(_numview(Plain().seq(self.seq)))
            if len(nums) >= 2:
                self.sequence = [abs(f) for f in nums]

    @staticmethod
    def _pattern(form: str):
        left = r"(?<![0-9a-z.])" if form[0].isalnum() else ""
        right = r"(?![0-9a-z])" if form[-1].isalnum() else ""
        return re.compile(left + re.escape(form) + right)

    def held(self, text: str) -> bool:
        spaced = _spaced(text)
        squeezed = spaced.replace(" ", "")
        for form, pattern in zip(self.forms, self.patterns):
            if pattern.search(spaced) or (" " in form and pattern.search(squeezed)):
                return True
        found = numbers(_numview(text))
        exact = self.rational
        if self.kind == "base-n number" and self.value is not None:
            exact = Fraction(int(self.value))
        if exact is not None and exact in found:
            return True
        if self.real is not None and not (self.rational is not None and _terminating(self.rational.denominator)):
            for x, sig, places in _decimal_places(spaced):
                if sig >= 3 and abs(x - self.real) <= 0.5 * 10**-places * 1.05:
                    return True
        if self.sequence:
            n, found = len(self.sequence), [abs(f) for f in found]
            if any(found[i : i + n] == self.sequence for i in range(len(found) - n + 1)):
                return True
        return False


@cache
def _target(answer: str, kind: str) -> Target:
    return Target(answer, kind)


def holds_answer(text: str, answer: str, kind: str = "") -> bool:
    """Whether `text` holds the answer in any form this module knows: any rendering (after decoding the media), the
    exact value, or a decimal of 3 or more significant digits that rounds from it."""
    return _target(answer, kind or answer_type(answer)).held(text)


# --- wrong values (mutations of the answer's own shape) ------------------------------------------------------------

WORDS = {"east": "west", "even": "odd", "ellipse": "hyperbola", "odd": "even", "west": "east"}


def _number_mutations(s: str):
    if "." in s:
        whole, frac = s.split(".")
        last = str((int(frac[-1]) + 1) % 10)
        yield "last digit changed", f"{whole}.{frac[:-1]}{last}"
        shifted = Fraction(s) * 10
        yield "decimal point shifted", exact_decimal(shifted) or str(shifted.numerator)
        return
    n = int(s)
    yield "off by one", str(n + 1)
    if n > 0:
        yield "off by one", str(n - 1)
    if n > 1:
        yield "doubled", str(2 * n)
    for i in range(len(s) - 1):
        if s[i] != s[i + 1]:
            t = s[:i] + s[i + 1] + s[i] + s[i + 2 :]
            if not t.startswith("0"):
                yield "digits swapped", t


def _variants(seq: tuple, kind: str, problem: str, top: bool = True):
    seq = tuple(seq)
    if seq == (("c", "pi"),):
        yield "doubled", (("n", "2"), seq[0])
        yield "coefficient changed", (("n", "3"), seq[0])
    for i, node in enumerate(seq):
        for how, repl in _node_variants(node, kind, problem):
            yield how, seq[:i] + tuple(repl) + seq[i + 1 :]
        prev = seq[i - 1] if i else None
        if top and node[0] in ("n", "f", "r", "c", "p") and kind not in ("base-n number", "text answer"):
            start = prev is None or prev == ("o", ",")
            if prev == ("o", "-") and (i == 1 or seq[i - 2] == ("o", ",")):
                yield "sign", seq[: i - 1] + seq[i:]
            elif start and node != ("c", "inf") and kind != "units/degrees/money":
                yield "sign", seq[:i] + (("o", "-"),) + seq[i:]
        if node[0] == "o" and node[1] in "+-" and prev is not None and prev[0] != "o":
            yield "operator flipped", seq[:i] + (("o", "-" if node[1] == "+" else "+"),) + seq[i + 1 :]


def _node_variants(node, kind, problem):
    t = node[0]
    if t == "n":
        for how, s in _number_mutations(node[1]):
            yield how, [("n", s)]
    elif t == "f":
        yield "reciprocal", [("f", node[2], node[1])]
        for how, a in _variants(node[1], kind, problem, top=False):
            yield how, [("f", a, node[2])]
        for how, b in _variants(node[2], kind, problem, top=False):
            if Plain().seq(b) not in ("0", "1"):
                yield how, [("f", node[1], b)]
    elif t == "r":
        for how, a in _variants(node[1], kind, problem, top=False):
            if Plain().seq(a) not in ("0", "1", "4", "9"):
                yield "radicand " + how, [("r", a, node[2])]
    elif t == "p":
        for how, e in _variants(node[2], kind, problem, top=False):
            if Plain().seq(e) not in ("0", "1"):
                yield "exponent " + how, [("p", node[1], e)]
        for how, b in _node_variants(node[1], kind, problem):
            yield how, [("p", b[0], node[2])]
    elif t == "s":
        digits, base = node[1][1], int(Plain().seq(node[2]))
        for how, s in _number_mutations(digits):
            if all(int(d) < base for d in s):
                yield how, [("s", ("n", s), node[2])]
        for b in (base + 1, base - 1):
            if 2 <= b <= 10 and all(int(d) < b for d in digits):
                yield "changed base", [("s", node[1], (("n", str(b)),))]
    elif t == "deg":
        for how, b in _node_variants(node[1], kind, problem):
            yield how, [("deg", b[0])]
    elif t == "g":
        inner = node[3]
        for how, new in _variants(inner, kind, problem):
            yield how, [("g", node[1], node[2], new)]
        if kind == "interval":
            if node[1] in "([" and inner[:1] != (("o", "-"),) and inner[:2] != (("o", "-"), ("c", "inf")):
                yield "another bracket", [("g", "[" if node[1] == "(" else "(", node[2], inner)]
            if node[2] in ")]" and inner[-1:] != (("c", "inf"),):
                yield "another bracket", [("g", node[1], "]" if node[2] == ")" else ")", inner)]
    elif t == "m":
        rows = node[1]
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                for how, new in _variants(cell, kind, problem):
                    new_rows = tuple(
                        tuple(new if (rr, cc) == (r, c) else x for cc, x in enumerate(rw))
                        for rr, rw in enumerate(rows)
                    )
                    yield "changed matrix entry (" + how + ")", [("m", new_rows)]
    elif t == "t" and kind == "multiple choice":
        letter = re.sub(r"[^A-Z]", "", node[1])
        for other in "ABCDE":
            if other != letter:
                yield "another letter", [("t", node[1].replace(letter, other))]
    elif t == "t" and kind == "text answer":
        word = node[1].strip()
        if word.lower() in WORDS:
            yield "another word", [("t", WORDS[word.lower()])]
        else:
            names = [n for n in dict.fromkeys(re.findall(r"\b[A-Z][a-z]{2,}\b", problem)) if n != word]
            names = [n for n in names if n not in ("The", "What", "Which", "Who", "How", "Each", "If", "For", "She")]
            for name in names[:4] or ["Brianna"]:
                yield "another name", [("t", name)]
    elif t == "fn":
        for other in ("tan", "sin", "cos"):
            if other != node[1]:
                yield "another function", [("fn", other, node[2])]
        for how, a in _variants(node[2], kind, problem, top=False):
            yield how, [("fn", node[1], a)]
    elif t == "v" and kind in ("expression", "equation") and node[1] != "x":
        yield "another variable", [("v", "x" if node[1] != "x" else "y")]


def wrong_values(answer: str, kind: str, problem: str) -> list[tuple[str, tuple]]:
    """(how, tree) mutations of the answer that differ from it in value and hold none of its forms."""
    seq = _parse(answer, kind)
    target = _target(answer, kind)
    out, seen = [], {Plain().seq(list(seq))}
    for how, new in _variants(seq, kind, problem):
        text = Plain().seq(list(new))
        if text in seen:
            continue
        seen.add(text)
        try:
            v = _value(tuple(new), kind)
        except Exception:
            continue
        if target.value is not None and v is not None and abs(complex(sympy.N(v - target.value, 30))) < 1e-20:
            continue
        if target.held(text) or target.held(Unicode().seq(list(new))):
            continue
        if kind == "mixed number" and not re.fullmatch(r"\d+ (\d+)/(\d+)", text):
            continue
        if kind == "mixed number" and int(text.split()[1].split("/")[0]) >= int(text.split("/")[1]):
            continue
        out.append((how, tuple(new)))
    return out


# --- frames --------------------------------------------------------------------------------------------------------

# register -> (media, {template name: (leak template, clean template)}); {v} the value, {w} the wrong one, {q} a number
# of the problem.
REGISTERS = {
    "forum-html": (
        ("html", "mathml", "unicode"),
        {
            "post": (
                '<div class="post"><p>You plugged in {q} correctly, but your last line, {w}, does not follow.</p>'
                "<p>The answer should be {v}.</p></div>",
                '<div class="post"><p>You plugged in {q} correctly, but your last line, {w}, does not follow.</p>'
                "<p>Recheck the algebra after that point.</p></div>",
            ),
            "quote": (
                "<blockquote>Final answer: {w}</blockquote>\n<p>Close! Recheck the step where {q} enters; done "
                "right it comes out to {v}.</p>",
                "<blockquote>Final answer: {w}</blockquote>\n<p>Close! Recheck the step where {q} enters.</p>",
            ),
            "reply": (
                "<p><em>Re: stuck on this one</em></p><p>Your {w} is off. With {q} handled properly you get "
                "{v}&nbsp;&mdash; see the second line of your work.</p>",
                "<p><em>Re: stuck on this one</em></p><p>Your {w} is off; the way {q} was used in the setup is "
                "the culprit.</p>",
            ),
        },
    ),
    "mathml-page": (
        ("mathml",),
        {
            "submission": (
                "<p>Your submission: {w}</p>\n<p>Expected: {v}</p>\n<p>Hint: revisit how {q} is used.</p>",
                "<p>Your submission: {w}</p>\n<p>Hint: revisit how {q} is used.</p>",
            ),
            "section": (
                "<section><header>Feedback</header><p>The value {w} is incorrect; the reference is {v}. The datum {q} was "
                "misread.</p></section>",
                "<section><header>Feedback</header><p>The value {w} is incorrect. The datum {q} was misread.</p></section>",
            ),
        },
    ),
    "chat": (
        ("plain", "unicode", "markdown", "latex", "asciimath"),
        {
            "dm": (
                "hey! checked ur work, the {q} part is fine but {w} is wrong, should be {v} 👍",
                "hey! checked ur work, the {q} part is fine but {w} is wrong, try the last step again 👍",
            ),
            "mention": (
                "@student nope, not {w}. redo it with {q} and you get {v}",
                "@student nope, not {w}. redo it carefully with {q}",
            ),
            "terse": (
                "{w}? hmm no. answer is {v} (you dropped something around {q})",
                "{w}? hmm no. something went wrong around {q}",
            ),
        },
    ),
    "markdown-reply": (
        ("markdown", "latex", "unicode", "plain", "html"),
        {
            "bullets": (
                "### Feedback\n\n- Your final answer {w} is incorrect.\n- You used {q} correctly at first.\n"
                "- **Correct answer:** {v}",
                "### Feedback\n\n- Your final answer {w} is incorrect.\n- You used {q} correctly at first.\n"
                "- Recheck the final simplification.",
            ),
            "quote": (
                "> Student answer: {w}\n\nThe setup with {q} is right, but the computation slips. The answer is {v}.",
                "> Student answer: {w}\n\nThe setup with {q} is right, but the computation slips near the end.",
            ),
            "table": (
                "| | Value |\n|---|---|\n| Yours | {w} |\n| Expected | {v} |\n\nCheck where {q} enters.",
                "| | Value |\n|---|---|\n| Yours | {w} |\n| Given | {q} |\n\nThe last step needs another look.",
            ),
        },
    ),
    "json-record": (
        ("json",),
        {
            "verdict": (
                '{"verdict": "incorrect", "student_answer": {w}, "expected": {v}, "feedback": "Recheck how {q} '
                'is used."}',
                '{"verdict": "incorrect", "student_answer": {w}, "feedback": "Recheck how {q} is used."}',
            ),
            "pretty": (
                '{\n  "final_answer": {v},\n  "attempt": {w},\n  "note": "slip after using {q}"\n}',
                '{\n  "attempt": {w},\n  "note": "slip after using {q}"\n}',
            ),
            "fields": (
                '[{"field": "attempt", "value": {w}}, {"field": "reference", "value": {v}}, '
                '{"field": "hint", "value": "start again from {q}"}]',
                '[{"field": "attempt", "value": {w}}, {"field": "hint", "value": "start again from {q}"}]',
            ),
        },
    ),
    "email": (
        ("plain", "unicode", "markdown"),
        {
            "reply": (
                "Hi,\n\n> My answer: {w}\n\nThanks for sending this. The way you handled {q} is fine, but the answer "
                "is {v}.\n\nBest,\nTeaching team",
                "Hi,\n\n> My answer: {w}\n\nThanks for sending this. The way you handled {q} is fine, but the last "
                "step is not.\n\nBest,\nTeaching team",
            ),
            "inline": (
                "On the problem set you wrote:\n> {w}\n\nThat is not right; it should come out to {v}. Start from "
                "{q} again.\n\n-- \nTA",
                "On the problem set you wrote:\n> {w}\n\nThat is not right. Start from {q} again.\n\n-- \nTA",
            ),
            "subject": (
                "Subject: Re: homework question\n\nYour result {w} is off. Correct value: {v}. (Check your use of "
                "{q}.)",
                "Subject: Re: homework question\n\nYour result {w} is off. (Check your use of {q}.)",
            ),
        },
    ),
    "notebook": (
        ("python",),
        {
            "cell": (
                "In [ ]: student = {w}\n        expected = {v}\n        assert student == expected  # fails: "
                "recheck the {q} step",
                "In [ ]: student = {w}\n        check(student)  # fails: recheck the {q} step",
            ),
            "feedback": (
                '# feedback cell\nanswer_submitted = {w}\nanswer_key = {v}\nprint("mismatch; revisit", {q})',
                '# feedback cell\nanswer_submitted = {w}\nprint("mismatch; revisit", {q})',
            ),
            "repl": (
                ">>> {v}\n# ^ what the solution evaluates to; your {w} came from misusing {q}",
                ">>> {w}\n# ^ your value; it came from misusing {q}",
            ),
        },
    ),
    "wiki-talk": (
        ("wiki", "latex", "html", "unicode"),
        {
            "section": (
                "== Feedback on attempt ==\n:The attempt ends with {w}, which is wrong. Using {q} as given, the "
                "result is {v}. ~~~~",
                "== Feedback on attempt ==\n:The attempt ends with {w}, which is wrong. Redo the part using {q}. ~~~~",
            ),
            "indent": (
                ":: Disagree with the listed result {w}; the correct value is {v} (see the {q} step). —~~~~",
                ":: Disagree with the listed result {w}; see the {q} step. —~~~~",
            ),
        },
    ),
    "spreadsheet": (
        ("sheet",),
        {
            "comment": (
                "Comment on the answer cell: student entered {w}; key says {v}. Input {q} was copied fine.",
                "Comment on the answer cell: student entered {w}; input {q} was copied fine, the last step is off.",
            ),
            "note": (
                "Note: {w} ≠ key ({v}). Formula references {q} correctly but the last step is off.",
                "Note: {w} is not the key. Formula references {q} correctly.",
            ),
        },
    ),
    "grading-log": (
        ("yaml", "csv"),
        {
            "yaml": (
                "problem:\n  given: {q}\nattempt: {w}\nexpected: {v}\nstatus: wrong",
                "problem:\n  given: {q}\nattempt: {w}\nstatus: wrong",
            ),
            "list": (
                "- check: final answer\n  got: {w}\n  want: {v}\n  hint: redo from {q}",
                "- check: final answer\n  got: {w}\n  hint: redo from {q}",
            ),
        },
    ),
    "sms": (
        ("plain", "unicode"),
        {
            "lol": (
                "ur answer {w} is wrong lol. used {q} right but its {v}",
                "ur answer {w} is wrong lol. used {q} right tho, check the end",
            ),
            "short": ("nope not {w}… its {v}. check {q}", "nope not {w}… check {q} again"),
        },
    ),
    "bbcode-forum": (
        ("bbcode", "unicode", "plain"),
        {
            "quote": (
                "[quote]{w}[/quote]\nNot quite. Starting from {q} you should land on {v}.",
                "[quote]{w}[/quote]\nNot quite. Start again from {q}.",
            ),
            "bold": (
                "[b]Feedback:[/b] your {w} is off; the right answer is {v}. [i]Hint: {q}[/i]",
                "[b]Feedback:[/b] your {w} is off. [i]Hint: {q}[/i]",
            ),
        },
    ),
}

CSV_TEMPLATES = ("student,key,given\n{w},{v},{q}", "student,given\n{w},{q}")


def _registers_for(medium: str) -> list[str]:
    return [name for name, (media, _) in REGISTERS.items() if medium in media]


def problem_numbers(problem: str, target: Target) -> list[str]:
    found = re.findall(r"(?<![\w.\\^_])\d+(?:\.\d+)?(?![\w])", problem)
    out = []
    for s in dict.fromkeys(found):
        if not target.held(s) and not target.held(f"x {s} y"):
            out.append(s)
    return out


def _fill(template: str, v: str, w: str, q: str) -> str:
    return template.replace("{v}", v).replace("{w}", w).replace("{q}", q)


def _context(text: str, parts: list[str]) -> str:
    """The text with each stated part (standing on its own, as `occurrences` counts it) replaced by `\\ldots`."""
    for part in parts:
        text = re.sub(r"(?<![\w.])" + re.escape(part) + r"(?![\w]|\.\d)", lambda m: "\\ldots", text)
    return text


def _case(family, index, kind, style, frame, text, parts, wrong, how) -> dict:
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": kind,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": family != "clean",
        "written_out": family == "rendering",
        "parts": parts,
        "context": _context(text, parts) if parts else text,
        "wrong": wrong,
        "wrong_how": how,
    }


def _frame(medium: str, rng: random.Random, clean: bool, style: str) -> tuple[str, str]:
    if medium == "csv":
        return "grading-log:csv", CSV_TEMPLATES[1 if clean else 0]
    registers = _registers_for(medium)
    register = rng.choice(registers)
    name = rng.choice(sorted(REGISTERS[register][1]))
    return f"{register}:{name}", REGISTERS[register][1][name][1 if clean else 0]


def _wrap(style: str, inner: str) -> str:
    return MEDIUM[style][1].replace("{}", inner)


RENDERINGS_PER_PROBLEM = 7
# Styles whose value is source code (LaTeX, AsciiMath, code spans): no copy-paste decoration inside them.
CODE_STYLES = {"wiki-math", "bbcode-math", "markdown-math", "markdown-math-block", "latex-paren", "markdown-code"}
CODE_STYLES |= {"html-code", "markdown-escaped", "asciimath"}
FALLBACK = {"html": "html", "mathml": "mathml", "unicode": "unicode", "json": "json-string-plain", "python": "python"}
FALLBACK |= {"sheet": "spreadsheet-formula", "latex": "markdown-math", "markdown": "plain"}
FALLBACK |= {"wiki": "wiki-math", "bbcode": "bbcode-math", "asciimath": "asciimath"}


def _styles(seq, kind: str, rng: random.Random) -> list[tuple[str, str]]:
    """(style, inner) candidates for the answer, kind-specific first."""
    specific = [s for s in SPECIFIC.get(kind, ()) if s in MEDIUM]
    generic = list(GENERIC)
    rng.shuffle(specific)
    rng.shuffle(generic)
    out, seen = [], set()
    head = rng.randint(1, 4)
    for style in specific[:head] + generic + specific[head:]:
        inner = render(style, seq, kind)
        if inner and (style, inner) not in seen and inner.strip():
            seen.add((style, inner))
            out.append((style, inner))
    return out


def _problem_cases(index: int, row: dict, rng: random.Random) -> list[dict]:
    answer, problem = row["answer"], row["problem"]
    kind = answer_type(answer, problem)
    seq = _parse(answer, kind)
    target = _target(answer, kind)
    wrongs = wrong_values(answer, kind, problem)
    if not wrongs:
        return []
    qs = problem_numbers(problem, target) or ["the given data"]
    styles = _styles(seq, kind, rng)
    cases: list[dict] = []

    def attempt(family, style, inner, decorated, tries=10):
        medium = MEDIUM.get(style, ("plain", "{}"))[0]
        for _ in range(tries):
            how, wseq = rng.choice(wrongs)
            w_inner = render(style, wseq, kind) if family != "approximation" else None
            if w_inner is None:
                w_inner = render(FALLBACK.get(medium, "plain"), wseq, kind)
            if w_inner is None:
                w_inner = Plain().seq(list(wseq))
            if medium == "json" and style != "json-number" and family != "approximation":
                w_wrapped = _wrap(style, w_inner)
            elif medium == "json":
                w_wrapped = w_inner if re.fullmatch(r"[-\d.\[\], ]+", w_inner) else json.dumps(w_inner)
                w_inner = w_wrapped if w_wrapped == w_inner else w_wrapped[1:-1]
            else:
                w_wrapped = _wrap(style, w_inner) if style in MEDIUM else w_inner
            q = rng.choice(qs)
            frame, template = _frame(medium, rng, family == "clean", style)
            if family == "clean":
                text = _fill(template, "", w_wrapped, q)
                if target.held(text):
                    continue
                cases.append(_case("clean", index, kind, decorated, frame, text, [], w_inner, how))
                return True
            v_wrapped = _wrap(style, inner) if style in MEDIUM and family == "rendering" else inner
            if family == "approximation":
                v_wrapped = _approx_wrap(style, inner)
            text = _fill(template, v_wrapped, w_wrapped, q)
            case = _case(family, index, kind, decorated, frame, text, [inner], w_inner, how)
            if occurrences(inner, w_wrapped) or occurrences(inner, q) or not occurrences(inner, text):
                continue
            if not stated(case, text) or stated(case, case["context"]):
                continue
            if target.held(case["context"]):
                continue
            if not target.held(text):
                continue
            cases.append(case)
            return True
        return False

    chosen = 0
    for style, inner in styles:
        if chosen >= RENDERINGS_PER_PROBLEM:
            break
        medium = MEDIUM[style][0]
        decorated = style
        if rng.random() < 0.5 and medium in DECORATIONS and style not in CODE_STYLES:
            decoration = rng.choice(DECORATIONS[medium])
            new = decorate(inner, decoration, medium)
            if new is not None:
                inner, decorated = new, f"{style}/{decoration}"
        if attempt("rendering", style, inner, decorated):
            chosen += 1
    v = target.value
    irrational = v is not None and v.is_real and not v.is_Rational
    repeating = target.rational is not None and not _terminating(target.rational.denominator)
    if irrational or repeating:
        for style, inner in approximation_texts(v, rng):
            attempt("approximation", style, inner, "decimal-" + style)
    clean_styles = [s for s, _ in styles] or ["plain"]
    made, tries = 0, 0
    while made < chosen and tries < 4 * chosen + 4:
        tries += 1
        style = rng.choice(clean_styles)
        if attempt("clean", style, None, style):
            made += 1
    return cases


def _approx_wrap(style: str, inner: str) -> str:
    wrappers = {"html": "<b>{}</b>", "markdown-bold": "**{}**", "markdown-code": "`{}`", "bbcode-bold": "[b]{}[/b]"}
    return wrappers.get(style, "{}").replace("{}", inner)


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The corpus: a pure function of the rows and the seed."""
    cases = []
    for index, row in enumerate(problems):
        rng = random.Random(f"{seed}:{index}:{row['answer']}")
        cases.extend(_problem_cases(index, row, rng))
    return cases


if __name__ == "__main__":
    from collections import Counter

    rows = load_problems(MATH500)
    built = corpus(rows)
    print(len(built), Counter(c["family"] for c in built))
