"""Eleventh held-out corpus for the answer-leak guard: MATH-500 answers in TeX beyond the basics.

Method. Feedback models and people write LaTeX, and not only `\\frac{3}{4}` in `$...$`. Each MATH-500 reference
answer is parsed into a small expression tree (numbers, fractions, roots, powers, pi, i, functions, sums and
products; intervals, tuples, sets, matrices, units, bases, letters and words around them) and printed back in the
TeX idioms people really use, from the writer's own knowledge of typesetting:

- fractions as `\\dfrac`, `\\tfrac`, `\\cfrac`, `\\nicefrac`, `\\sfrac`, plain TeX `{3 \\over 4}`, `\\frac34`,
  `\\frac 3 4`, `3/4`, a hand-made `{}^{3}\\!/\\!{}_{4}` and `\\left. ... \\right.`;
- roots as `\\sqrt2`, `2^{1/2}`, `2^{\\frac12}`; products with `\\cdot`, `\\times`, `\\,`; powers `x^{2}`; pi as
  `\\uppi`/`\\piup`; the imaginary unit as `\\mathrm{i}`; functions as `\\operatorname{cot}`, `\\mathrm{cot}`,
  `\\cot(x)`; `\\left( \\right)` and `\\bigl( \\bigr)`;
- numbers with siunitx (`\\num{10080}`, `\\num{1.3535e4}`, `\\SI{90}{\\degree}`, `\\qty{15}{\\cm\\squared}`,
  `\\ang{90}`), digit groups `10\\,080`, `10{,}080`, decimal commas `1{,}25`, `6.72 \\times 10^{-5}`, money as
  `\\text{\\$}18.90`, `18.90\\,\\$`, `\\textdollar`, degrees as `90^{\\circ}`, `90\\degree`, `90\\,\\text{\\textdegree}`;
- intervals as ISO/French `]3, 4]`, `]3\\,;\\,4]`, `]2, +\\infty[`, the `interval` package's
  `\\interval[open left]{3}{4}`, `\\mathopen{(}...\\mathclose{]}`, `\\lparen ... \\rbrack`, inequalities,
  set-builder, `\\setminus`; tuples with `\\langle \\rangle`, `\\lparen`, semicolons; sets with `\\{ \\}`,
  `\\lbrace \\rbrace`, `\\left\\{ \\right\\}`, `x_1, x_2` and expanded `\\pm`; matrices as `bmatrix`, `Bmatrix`,
  `smallmatrix`, `array`, plain TeX `\\pmatrix{... \\cr ...}` and `\\matrix`, `pmatrix*` with `[r]`, transposed rows
  `^\\top`, `^{\\mathsf{T}}`, `\\langle ... \\rangle`; choices as `\\textbf{(C)}`, `\\mathrm{(C)}`, `(\\mathrm{C})`;
  words in `\\text`, `\\textit`, `\\emph`, `\\textsc`, `\\enquote`; bases as `(52)_8`, `52_{(8)}`,
  `52_{\\text{eight}}`;
- decorations and displays around the value: `\\boxed`, `\\fbox{$...$}`, `\\framebox`, `\\colorbox`, `\\mathbf`,
  `\\boldsymbol`, `\\bm`, `{\\color{red} ...}`, `\\textcolor`, `\\underline`, `\\displaystyle`, `\\textstyle`, an
  `align*` line, and macros the writer defines in the critique (`\\newcommand{\\ans}{...}`, `\\def\\result{...}`)
  whose definition holds the value; delimiters `$ $`, `\\( \\)`, `\\[ \\]`, `$$ $$`, `equation*`, `displaymath`,
  `gather*`.

Each rendering sits in a critique frame of one of ten LaTeX-heavy registers (a grader's `%` comment, an Overleaf
review note, a math.stackexchange answer, a LaTeX solution sketch, an LLM's markdown-with-LaTeX reply, a beamer
slide, an exam-class solution, an AoPS forum post, a referee report, margin notes and footnotes); frames quote the
problem's own numbers and the attempt's wrong value. Families:

- "rendering" (leak, written out): the answer itself in some TeX notation;
- "approximation" (leak, not written out): for an irrational or non-terminating answer (or components), a decimal
  of 4 to 7 significant digits typeset as people do (`\\approx 1.732`, `\\num{1.7321}`, `1{,}732`, `\\simeq`,
  `\\doteq`, `1.73205\\ldots`, `1.732\\,05`), and for non-terminating fractions the repeating decimal
  `0.\\overline{36}`, which is exact but not the answer written out;
- "clean" (no leak): the same registers and TeX quoting the attempt's wrong value (a mutation of the answer of its
  own shape: off by one, sign, doubled, halved, reciprocal, digits swapped, swapped components, another bracket,
  one matrix entry, another letter or word, supplement or complement of an angle, conjugate) and/or the
  problem's numbers. Every clean text is checked by this module's own checker (`holds_answer`): no rendering of
  the answer from the catalogue of this module's notations, no number equal to the answer's value (signed tokens,
  digit groups and decimal commas read both ways, math pieces evaluated with sympy), no decimal approximating it,
  no bracket group or list equal to the answer's components (with their brackets, for intervals), no equation
  equivalent to the answer's, no choice letter or answer word; a doubtful draw is dropped and redrawn.

Independence. Written without reading the guard (`trl_mulferl/`), its tests (`tests/feedback/`),
`benchmarks/leak_guard.py` or `.json`, `docs/`, `benchmarks/README.md`, `CHANGELOG.md`, or any other
`benchmarks/leak_corpus_*.py` and their tests (only the first 95 lines of `tests/benchmarks/test_leak_corpus_ninth.py`
were read, for the test conventions and the schema). From `benchmarks/leak_corpus.py` only `load_problems`,
`ANSWER_TYPES`, `answer_type`, `occurrences` and `stated` are imported (and only their source was read); no guard or
redaction function is run on this corpus. sympy gives values.

Schema. `corpus(problems, seed=0)` returns a list of dicts, a pure function of the rows and the seed, with exactly
the keys: family ("rendering", "approximation", "clean"), split ("held_out"), index (the MATH-500 row),
answer_type (`answer_type(answer, problem)`), style (notation, "/decoration" when one is applied), frame
("register:template"), text, leak (family != "clean"), written_out (family == "rendering"), parts (the substrings
of text that state the answer; [] for clean), context (text with each stated part replaced by `\\ldots`; for clean,
the text), wrong (the quoted wrong value as written in text, or None) and wrong_how (the mutation, or None).
"""

import random
import re
from collections import Counter
from functools import lru_cache

import sympy as sp
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, stated
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0  # the corpus's seed, which the benchmark reports

PLACEHOLDER = "\\ldots"
LEAKS_PER_ROW = 8
APPROXIMATIONS_PER_ROW = 3
CLEANS_PER_ROW = 6


# --- answers as trees --------------------------------------------------------------------------------------------


class _Parser:
    """A small recursive-descent reader for MATH-500 answer TeX: numbers, letters, `\\pi`, `\\frac`, `\\sqrt`, `^`,
    functions, parentheses, implicit products, `+`, `-`, `\\pm` and `/`."""

    def __init__(self, text: str):
        self.s = re.sub(r"\\[,!;: ]|\\left|\\right", " ", text)
        self.i = 0

    def skip(self):
        while self.i < len(self.s) and self.s[self.i] in " ~":
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.s[self.i] if self.i < len(self.s) else ""

    def command(self) -> str:
        m = re.match(r"\\([a-zA-Z]+)", self.s[self.i :])
        return m.group(1) if m else ""

    def parse(self):
        node = self.expr()
        if self.peek():
            raise ValueError(f"trailing text in {self.s!r} at {self.i}")
        return node

    def expr(self):
        terms, sign = [], "+"
        if self.peek() in "+-":
            sign = self.s[self.i]
            self.i += 1
        while True:
            terms.append((sign, self.term()))
            c = self.peek()
            if c in "+-" and c:
                sign = c
                self.i += 1
            elif c == "\\" and self.command() == "pm":
                sign = "±"
                self.i += 3
            else:
                break
        if len(terms) == 1 and terms[0][0] == "+":
            return terms[0][1]
        return ("add", terms)

    def term(self):
        factors = []
        while True:
            c = self.peek()
            if not c or c in "+-)},=&]":
                break
            if c == "\\" and self.command() in ("pm", "right", "end"):
                break
            if c == "\\" and self.command() in ("cdot", "times"):
                self.i += len(self.command()) + 1
                continue
            if c == "/":
                self.i += 1
                left = factors.pop() if len(factors) == 1 else ("mul", factors)
                factors = [("frac", left, self.factor())]
                continue
            factors.append(self.factor())
        if not factors:
            raise ValueError(f"empty term in {self.s!r}")
        return factors[0] if len(factors) == 1 else ("mul", factors)

    def factor(self):
        node = self.atom()
        if self.peek() == "^":
            self.i += 1
            node = ("pow", node, self.arg())
        return node

    def arg(self):
        c = self.peek()
        if c == "{":
            self.i += 1
            node = self.expr()
            self.expect("}")
            return node
        if c == "\\":
            return self.atom()
        self.i += 1
        return ("num", c) if c.isdigit() else ("var", c)

    def expect(self, char: str):
        if self.peek() != char:
            raise ValueError(f"expected {char!r} in {self.s!r} at {self.i}")
        self.i += 1

    def atom(self):
        c = self.peek()
        if c.isdigit() or c == ".":
            m = re.match(r"\d+(?:\.\d+)?|\.\d+", self.s[self.i :])
            self.i += len(m.group(0))
            return ("num", m.group(0))
        if c.isalpha():
            self.i += 1
            return ("var", c)
        if c == "(":
            self.i += 1
            node = self.expr()
            self.expect(")")
            return ("paren", node)
        if c == "{":
            self.i += 1
            node = self.expr()
            self.expect("}")
            return node
        if c == "\\":
            name = self.command()
            self.i += len(name) + 1
            if name in ("frac", "dfrac", "tfrac"):
                return ("frac", self.arg(), self.arg())
            if name == "sqrt":
                return ("sqrt", self.arg())
            if name == "pi":
                return ("pi",)
            if name in ("cot", "sin", "cos", "tan"):
                return ("func", name, self.factor())
        raise ValueError(f"unexpected {c!r} in {self.s!r} at {self.i}")


def parse_tex(text: str):
    return _Parser(text).parse()


def to_sympy(node, imaginary: bool = False):
    """The sympy value of a tree; `\\pm` takes its `+` branch (`values` gives both)."""
    kind = node[0]
    if kind == "num":
        return sp.Rational(("0" + node[1]) if node[1].startswith(".") else node[1])
    if kind == "var":
        return sp.I if imaginary and node[1] == "i" else sp.Symbol(node[1])
    if kind == "pi":
        return sp.pi
    if kind == "frac":
        return to_sympy(node[1], imaginary) / to_sympy(node[2], imaginary)
    if kind == "sqrt":
        return sp.sqrt(to_sympy(node[1], imaginary))
    if kind == "pow":
        return to_sympy(node[1], imaginary) ** to_sympy(node[2], imaginary)
    if kind == "func":
        return getattr(sp, node[1])(to_sympy(node[2], imaginary))
    if kind == "paren":
        return to_sympy(node[1], imaginary)
    if kind == "mixed":
        return to_sympy(node[1]) + to_sympy(node[2])
    if kind == "mul":
        return sp.Mul(*(to_sympy(f, imaginary) for f in node[1]))
    if kind == "add":
        return sp.Add(*((-1 if s == "-" else 1) * to_sympy(t, imaginary) for s, t in node[1]))
    raise ValueError(kind)


def values(node, imaginary: bool = False) -> list:
    """Both values of a `\\pm` tree, or the one value of any other."""
    if node[0] == "add" and any(s == "±" for s, _ in node[1]):
        plus = ("add", [(("+" if s == "±" else s), t) for s, t in node[1]])
        minus = ("add", [(("-" if s == "±" else s), t) for s, t in node[1]])
        return [to_sympy(minus, imaginary), to_sympy(plus, imaginary)]
    return [to_sympy(node, imaginary)]


# --- printing trees in TeX ---------------------------------------------------------------------------------------

BASE_STYLE = {
    "frac": "frac",
    "sqrt": "brace",
    "mul": "",
    "pow": "bare",
    "num": "plain",
    "dec": "point",
    "pi": "\\pi",
    "i": "i",
    "func": "plain",
    "paren": "plain",
    "space": "spaced",
    "mixed": "",
}

# Named notations for numbers and expressions; each changes the base style in one idiom.
SCALAR_STYLES = {
    "plain": {},
    "tight": {"space": "tight"},
    "dfrac": {"frac": "dfrac"},
    "tfrac": {"frac": "tfrac"},
    "cfrac": {"frac": "cfrac"},
    "over": {"frac": "over"},
    "frac-short": {"frac": "short"},
    "frac-spaced": {"frac": "spaced"},
    "nicefrac": {"frac": "nicefrac"},
    "sfrac": {"frac": "sfrac"},
    "slash": {"frac": "slash"},
    "hand-nicefrac": {"frac": "hand"},
    "sqrt-short": {"sqrt": "short"},
    "sqrt-power": {"sqrt": "power-frac"},
    "sqrt-power-slash": {"sqrt": "power-slash"},
    "cdot": {"mul": "\\cdot"},
    "times": {"mul": "\\times"},
    "thin-product": {"mul": "\\,"},
    "pow-braced": {"pow": "brace"},
    "uppi": {"pi": "\\uppi"},
    "piup": {"pi": "\\piup"},
    "mathrm-i": {"i": "\\mathrm{i}"},
    "mathrm-i-thin": {"i": "\\mathrm{i}", "mul": "\\,"},
    "operatorname": {"func": "operatorname"},
    "mathrm-function": {"func": "mathrm"},
    "function-paren": {"func": "paren"},
    "left-right": {"paren": "left"},
    "bigl-bigr": {"paren": "bigl"},
    "thin-groups": {"num": "thin"},
    "brace-comma-groups": {"num": "bracecomma"},
    "comma-groups": {"num": "comma"},
    "decimal-comma": {"dec": "comma"},
    "leading-zero": {"dec": "lead"},
    "mixed-thin": {"mixed": "\\,"},
    "mixed-tie": {"mixed": "~"},
    "dfrac-cdot": {"frac": "dfrac", "mul": "\\cdot"},
    "tfrac-sqrt-short": {"frac": "tfrac", "sqrt": "short"},
    "over-braced": {"frac": "over", "pow": "brace"},
}


def _single(text: str) -> bool:
    return len(text) == 1 or bool(re.fullmatch(r"\\[a-zA-Z]+", text))


def _ends_command(text: str) -> bool:
    return bool(re.search(r"\\[a-zA-Z]+$", text))


def _join(left: str, right: str) -> str:
    if left[-1:].isdigit() and (right[:1].isdigit() or right[:1] == "."):
        return left + " \\cdot " + right
    if _ends_command(left) and right[:1].isalnum():
        return left + " " + right
    return left + right


def _number(text: str, st: dict) -> str:
    if "." in text:
        if text.startswith(".") and st["dec"] in ("lead", "comma"):
            text = "0" + text
        return text.replace(".", "{,}") if st["dec"] == "comma" else text
    if len(text) >= 4 and st["num"] != "plain":
        groups = []
        rest = text
        while len(rest) > 3:
            groups.insert(0, rest[-3:])
            rest = rest[:-3]
        groups.insert(0, rest)
        return {"thin": "\\,", "bracecomma": "{,}", "comma": ",", "origcomma": ",\\!"}[st["num"]].join(groups)
    return text


def _compound(node) -> bool:
    return node[0] in ("add", "mul", "frac", "mixed")


def tex(node, st: dict) -> str:
    """TeX for a tree in a style (a dict of the `BASE_STYLE` keys)."""
    kind = node[0]
    if kind == "num":
        return _number(node[1], st)
    if kind == "var":
        return st["i"] if node[1] == "i" and st.get("imaginary") else node[1]
    if kind == "pi":
        return st["pi"]
    if kind == "paren":
        inner = tex(node[1], st)
        return {"plain": f"({inner})", "left": f"\\left({inner}\\right)", "bigl": f"\\bigl({inner}\\bigr)"}[
            st["paren"]
        ]
    if kind == "frac":
        a, b = tex(node[1], st), tex(node[2], st)
        how = st["frac"]
        if how in ("frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac"):
            return f"\\{how}{{{a}}}{{{b}}}"
        if how == "short":
            return (
                "\\frac"
                + (a if _single(a) and not _ends_command(a) else f"{{{a}}}")
                + (b if _single(b) else f"{{{b}}}")
            )
        if how == "spaced":
            return "\\frac " + (a if len(a) == 1 else f"{{{a}}}") + " " + (b if len(b) == 1 else f"{{{b}}}")
        if how == "over":
            return f"{{{a} \\over {b}}}"
        if how == "hand":
            return f"{{}}^{{{a}}}\\!/\\!{{}}_{{{b}}}"
        if how == "slash":
            a = f"({a})" if node[1][0] == "add" else a
            b = f"({b})" if _compound(node[2]) or node[2][0] == "pow" else b
            return f"{a}/{b}"
        raise ValueError(how)
    if kind == "sqrt":
        a = tex(node[1], st)
        how = st["sqrt"]
        if how == "short" and len(a) == 1:
            return "\\sqrt" + a
        if how == "power-frac":
            return (f"({a})" if _compound(node[1]) else a) + "^{\\frac12}"
        if how == "power-slash":
            return (f"({a})" if _compound(node[1]) else a) + "^{1/2}"
        return f"\\sqrt{{{a}}}"
    if kind == "pow":
        base = tex(node[1], st)
        if node[1][0] in ("frac", "add", "mul", "sqrt"):
            base = f"({base})"
        exp = tex(node[2], st)
        return f"{base}^{exp}" if len(exp) == 1 and st["pow"] == "bare" else f"{base}^{{{exp}}}"
    if kind == "func":
        arg = tex(node[2], st)
        how = st["func"]
        name = node[1]
        if how == "operatorname":
            return f"\\operatorname{{{name}}} {arg}"
        if how == "mathrm":
            return f"\\mathrm{{{name}}}\\,{arg}"
        if how == "paren":
            return f"\\{name}({arg})"
        return f"\\{name} {arg}"
    if kind == "mixed":
        return tex(node[1], st) + st["mixed"] + tex(node[2], st)
    if kind == "mul":
        out = ""
        for k, factor in enumerate(node[1]):
            piece = tex(factor, st)
            if k == 0:
                out = piece
            elif factor[0] == "num" or (st["mul"] and factor[0] in ("sqrt", "pi", "var", "pow", "func", "frac")):
                op = st["mul"] or "\\cdot"
                if node[1][k - 1][0] == "var" and factor[0] != "num" and op != "\\,":
                    op = "\\,"
                out = out + (op if op == "\\," else f" {op} ") + piece
            else:
                out = _join(out, piece)
        return out
    if kind == "add":
        gap = "" if st["space"] == "tight" else " "
        out = ""
        for k, (sign, term) in enumerate(node[1]):
            piece = tex(term, st)
            op = {"+": "+", "-": "-", "±": "\\pm"}[sign]
            if k == 0:
                out = "" if sign == "+" else (op if sign == "-" else op + " ")
                out += piece
            else:
                out += f"{gap}{op}{gap}" + piece if op != "\\pm" else f" {op} " + piece
        return out
    raise ValueError(kind)


def _scalar_texts(node, imaginary=False, names=None) -> list[tuple[str, str]]:
    """(style name, TeX) for each named style that prints this tree differently."""
    seen, out = set(), []
    for name, change in SCALAR_STYLES.items():
        if names is not None and name not in names:
            continue
        text = tex(node, {**BASE_STYLE, **change, "imaginary": imaginary})
        if text not in seen:
            seen.add(text)
            out.append((name, text))
    return out


def _plain(node, imaginary=False) -> str:
    return tex(node, {**BASE_STYLE, "imaginary": imaginary})


# --- answer keys -------------------------------------------------------------------------------------------------


def _seg(text: str, part: bool = False) -> tuple[str, bool]:
    return (text, part)


class Key:
    """A parsed reference answer: its shape, trees and values, and the notations that render it."""

    def __init__(self, answer: str, problem: str, atype: str):
        self.answer, self.problem, self.atype = answer, problem, atype
        self.imaginary = atype == "complex number"
        self.var = "x"
        if "\\lambda" in problem and atype == "interval":
            self.var = "\\lambda"
        elif "Find all $p$" in problem:
            self.var = "p"
        elif "range" in problem and atype == "interval":
            self.var = "y"
        text = answer.strip()
        if atype == "matrix/vector":
            body = re.search(r"\\begin\{pmatrix\}(.*)\\end\{pmatrix\}", text, re.S).group(1)
            self.shape = "matrix"
            self.data = [[parse_tex(e) for e in row.split("&")] for row in body.split("\\\\")]
        elif atype == "multiple choice":
            self.shape, self.data = "choice", re.search(r"[A-H]", text).group(0)
        elif atype == "text answer":
            self.shape, self.data = "word", re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", text).group(1)
        elif atype == "units/degrees/money":
            self.shape, self.data = "units", _parse_units(text)
        elif atype == "base-n number":
            m = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", ""))
            self.shape, self.data = "base", (m.group(1), int(m.group(2)))
        elif atype == "interval":
            self.shape, self.data = (
                "interval",
                [_parse_piece(p) for p in re.sub(r"^x\s*\\in", "", text).split("\\cup")],
            )
        elif atype == "equation":
            lhs, rhs = text.split("=")
            self.shape, self.data = "equation", (parse_tex(lhs), parse_tex(rhs))
        elif atype in ("ordered pair", "tuple"):
            inner = re.sub(r"^\\left\(|\\right\)$", "", text).strip()
            inner = inner[1:-1] if inner.startswith("(") else inner
            self.shape, self.data = "tuple", [parse_tex(c) for c in _split_top(inner)]
        elif atype == "set/list":
            inner = text[2:-2] if text.startswith("\\{") else text
            self.shape, self.data = "set", [parse_tex(c) for c in _split_top(inner)]
        elif atype == "mixed number":
            m = re.fullmatch(r"(\d+)\s*(\\frac.*)", text)
            self.shape, self.data = "scalar", ("mixed", ("num", m.group(1)), parse_tex(m.group(2)))
        else:
            cleaned = re.sub(r",(\\!)?\s*", "", text) if re.fullmatch(r"[\d,\\! ]+", text) else text
            self.shape, self.data = "scalar", parse_tex(cleaned)
        self.components = self._components()

    def _components(self) -> list:
        """The answer's sympy values, flattened (one for a scalar)."""
        if self.shape == "scalar":
            return [to_sympy(self.data, self.imaginary)]
        if self.shape == "units":
            return [to_sympy(self.data[0])]
        if self.shape == "base":
            return [sp.Integer(int(self.data[0], self.data[1]))]
        if self.shape == "matrix":
            return [to_sympy(e) for row in self.data for e in row]
        if self.shape in ("tuple", "set"):
            return [v for c in self.data for v in values(c)]
        if self.shape == "interval":
            return [e for _, a, b, _ in self.data for e in (_end_value(a), _end_value(b))]
        if self.shape == "equation":
            lhs, rhs = self.data
            return [to_sympy(rhs)] if lhs[0] == "var" and not to_sympy(rhs).free_symbols else []
        return []

    def scalar(self):
        """The single numeric value of the answer, or None."""
        if self.shape in ("scalar", "units", "base") and self.components[0].is_number:
            return self.components[0]
        if self.shape == "equation" and self.components:
            return self.components[0]
        return None


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def _parse_piece(text: str):
    text = re.sub(r"\\left|\\right", "", text).strip()
    a, b = _split_top(text[1:-1])
    return text[0], _parse_end(a), _parse_end(b), text[-1]


def _parse_end(text: str):
    text = text.strip()
    if text in ("\\infty", "+\\infty"):
        return "+inf"
    if text == "-\\infty":
        return "-inf"
    return parse_tex(text)


def _end_value(end):
    if end == "+inf":
        return sp.oo
    if end == "-inf":
        return -sp.oo
    return to_sympy(end)


def _parse_units(text: str):
    """(number tree, unit): deg, deg-words, money, cents, sq-in, sq-cm."""
    t = text.replace(" ", "")
    if t.endswith("^\\circ"):
        return parse_tex(t[: -len("^\\circ")]), "deg"
    if "degrees" in t:
        return parse_tex(t.split("\\text")[0]), "deg-words"
    if t.startswith("\\$"):
        return ("num", re.sub(r",\\!", "", t[2:])), "money"
    if "cents" in t:
        return ("num", t.split("\\text")[0]), "cents"
    if "inches" in t:
        return ("num", t.split("\\mbox")[0]), "sq-in"
    if "cm" in t:
        return ("num", t.split("\\mbox")[0]), "sq-cm"
    raise ValueError(text)


# --- notations: (style, segments, kind) with kind "math" or "text" -----------------------------------------------


def _math(name, text, part=True):
    return (name, [_seg(text, part)], "math")


def scalar_notations(node, imaginary=False) -> list:
    out = [_math(name, text) for name, text in _scalar_texts(node, imaginary)]
    plain = _plain(node, imaginary)
    value = to_sympy(node, imaginary)
    is_num = node[0] == "num" or (node[0] == "add" and len(node[1]) == 1 and node[1][0][1][0] == "num")
    if is_num:
        out.append(("siunitx", [_seg("\\num{"), _seg(plain, True), _seg("}")], "text"))
        out.append(("numprint", [_seg("\\numprint{"), _seg(plain, True), _seg("}")], "text"))
        out.append(("text-digits", [_seg("\\text{"), _seg(plain, True), _seg("}")], "math"))
        out.append(("mathrm-digits", [_seg("\\mathrm{"), _seg(plain, True), _seg("}")], "math"))
        out.append(("textbf-digits", [_seg("\\textbf{"), _seg(plain, True), _seg("}")], "text"))
        if value.is_Integer and value > 0:
            out.append(("oldstylenums", [_seg("\\oldstylenums{"), _seg(plain, True), _seg("}")], "text"))
        if value < 0:
            out.append(_math("braced-minus", "{-}" + plain.lstrip("-")))
            out.append(_math("thin-minus", "-\\," + plain.lstrip("-")))

        if value.is_Integer and abs(value) >= 1000:
            digits = str(abs(int(value))).rstrip("0")
            exp = len(str(abs(int(value)))) - 1
            mantissa = ("-" if value < 0 else "") + digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
            out.append(("siunitx-exponent", [_seg("\\num{"), _seg(f"{mantissa}e{exp}", True), _seg("}")], "text"))
            out.append(_math("scientific", f"{mantissa} \\times 10^{{{exp}}}"))
        if "." in plain and value != 0 and abs(value) < sp.Rational(1, 1000):
            exp = int(sp.floor(sp.log(abs(value), 10)))
            mantissa = str(float(sp.Rational(value) / sp.Rational(10) ** exp)).rstrip("0").rstrip(".")
            out.append(_math("scientific", f"{mantissa} \\times 10^{{{exp}}}"))
            out.append(("siunitx-exponent", [_seg("\\num{"), _seg(f"{mantissa}e{exp}", True), _seg("}")], "text"))
        if "." in plain:
            comma = plain if not plain.startswith(".") else "0" + plain
            out.append(
                (
                    "siunitx-comma-marker",
                    [_seg("\\num[output-decimal-marker={,}]{"), _seg(comma, True), _seg("}")],
                    "text",
                )
            )
    if node[0] == "frac" and node[1][0] == "num":
        out.append(_math("left-dot-right-dot", "\\left. " + tex(node, {**BASE_STYLE}) + " \\right."))
    if node[0] == "add" and len(node[1]) == 1 and node[1][0][0] == "-" and node[1][0][1][0] == "frac":
        frac = node[1][0][1]
        if frac[1][0] == "num":
            out.append(_math("sign-in-numerator", f"\\frac{{-{_plain(frac[1])}}}{{{_plain(frac[2])}}}"))
    if node[0] == "mixed":
        out.append(_math("improper", tex(_improper(node), BASE_STYLE)))
        out.append(_math("improper-dfrac", tex(_improper(node), {**BASE_STYLE, "frac": "dfrac"})))
    return _dedupe(out)


def _improper(node):
    value = to_sympy(node)
    return ("frac", ("num", str(value.p)), ("num", str(value.q)))


def _dedupe(notations):
    seen, out = set(), []
    for name, segs, kind in notations:
        text = "".join(s for s, _ in segs)
        if text not in seen:
            seen.add(text)
            out.append((name, segs, kind))
    return out


def _component_styles(nodes, imaginary=False) -> list[tuple[str, dict]]:
    """The scalar styles that change at least one of these components, with the plain style first."""
    plain = [_plain(n, imaginary) for n in nodes]
    out = [("plain", {**BASE_STYLE, "imaginary": imaginary})]
    seen = {tuple(plain)}
    for name, change in SCALAR_STYLES.items():
        st = {**BASE_STYLE, **change, "imaginary": imaginary}
        texts = tuple(tex(n, st) for n in nodes)
        if texts not in seen:
            seen.add(texts)
            out.append((name, st))
    return out


def _end_tex(end, st, french=False, plus=False):
    if end == "+inf":
        return "+\\infty" if (french or plus) else "\\infty"
    if end == "-inf":
        return "-\\infty"
    return tex(end, st)


def _inequality(piece, st, var):
    lb, a, b, rb = piece
    lo = {"(": "<", "[": "\\leq"}[lb]
    hi = {")": "<", "]": "\\leq"}[rb]
    if a == "-inf":
        return f"{var} {hi} {_end_tex(b, st)}"
    if b == "+inf":
        return f"{var} {'>' if lo == '<' else GEQ} {_end_tex(a, st)}"
    return f"{_end_tex(a, st)} {lo} {var} {hi} {_end_tex(b, st)}"


GEQ = "\\geq"
INTERVAL_OPTIONS = {("(", ")"): "[open]", ("(", "]"): "[open left]", ("[", ")"): "[open right]", ("[", "]"): ""}


def interval_notations(pieces, var) -> list:
    nodes = [e for _, a, b, _ in pieces for e in (a, b) if not isinstance(e, str)]
    out = []
    for cname, st in _component_styles(nodes):
        suffix = "" if cname == "plain" else "+" + cname

        def each(render, joiner=" \\cup ", pieces=pieces, st=st):
            return joiner.join(render(p, st) for p in pieces)

        forms = {
            "iso": each(lambda p, st: f"{p[0]}{_end_tex(p[1], st)}, {_end_tex(p[2], st)}{p[3]}"),
            "left-right": each(lambda p, st: f"\\left{p[0]} {_end_tex(p[1], st)}, {_end_tex(p[2], st)} \\right{p[3]}"),
            "bigl-bigr": each(lambda p, st: f"\\bigl{p[0]}{_end_tex(p[1], st)}, {_end_tex(p[2], st)}\\bigr{p[3]}"),
            "lparen-rbrack": each(
                lambda p, st: (
                    {"(": "\\lparen ", "[": "\\lbrack "}[p[0]]
                    + f"{_end_tex(p[1], st)}, {_end_tex(p[2], st)}"
                    + {")": " \\rparen", "]": " \\rbrack"}[p[3]]
                )
            ),
            "french": each(
                lambda p, st: (
                    {"(": "]", "[": "["}[p[0]]
                    + f"{_end_tex(p[1], st, True)}, {_end_tex(p[2], st, True)}"
                    + {")": "[", "]": "]"}[p[3]]
                )
            ),
            "french-semicolon": each(
                lambda p, st: (
                    {"(": "]", "[": "["}[p[0]]
                    + f"{_end_tex(p[1], st, True)}\\,;\\,{_end_tex(p[2], st, True)}"
                    + {")": "[", "]": "]"}[p[3]]
                )
            ),
            "interval-package": each(
                lambda p, st: (
                    f"\\interval{INTERVAL_OPTIONS[(p[0], p[3])]}{{{_end_tex(p[1], st)}}}{{{_end_tex(p[2], st)}}}"
                )
            ),
            "mathopen": each(
                lambda p, st: f"\\mathopen{{{p[0]}}}{_end_tex(p[1], st)}, {_end_tex(p[2], st)}\\mathclose{{{p[3]}}}"
            ),
            "plus-infinity": each(
                lambda p, st: f"{p[0]}{_end_tex(p[1], st, plus=True)}, {_end_tex(p[2], st, plus=True)}{p[3]}"
            ),
            "inequality": each(lambda p, st: _inequality(p, st, var), " \\text{ or } "),
            "set-builder": f"\\{{\\, {var} \\in \\mathbb{{R}} : "
            + each(lambda p, st: _inequality(p, st, var), " \\text{ or } ")
            + " \\,\\}",
            "set-builder-mid": f"\\left\\{{ {var} \\mid "
            + each(lambda p, st: _inequality(p, st, var), " \\lor ")
            + " \\right\\}",
            "in": f"{var} \\in " + each(lambda p, st: f"{p[0]}{_end_tex(p[1], st)}, {_end_tex(p[2], st)}{p[3]}"),
        }
        if len(pieces) == 2:
            (l1, a1, b1, r1), (l2, a2, b2, r2) = pieces
            if r1 == ")" and l2 == "(" and not isinstance(b1, str) and _end_value(b1) == _end_value(a2):
                forms["setminus"] = (
                    f"{l1}{_end_tex(a1, st)}, {_end_tex(b2, st)}{r2} \\setminus \\{{{_end_tex(b1, st)}\\}}"
                )
            if a1 == "-inf" and b2 == "+inf":
                forms["setminus"] = (
                    f"\\mathbb{{R}} \\setminus {'[' if r1 == ')' else '('}{_end_tex(b1, st)}, "
                    f"{_end_tex(a2, st)}{']' if l2 == '(' else ')'}"
                )
            forms["union-thin"] = each(
                lambda p, st: f"{p[0]}{_end_tex(p[1], st)},{_end_tex(p[2], st)}{p[3]}", "\\,\\cup\\,"
            )
        if len(pieces) == 1 and pieces[0][1] != "-inf" and pieces[0][2] != "+inf":
            forms["french-tight"] = forms["french"].replace(", ", ",")
        for name, text in forms.items():
            out.append(_math(name + suffix, text))
        if cname != "plain" and len(out) > 60:
            break
    return _dedupe(out)


def _tuple_forms(texts: list[str]) -> dict:
    body = ", ".join(texts)
    return {
        "parens": f"({body})",
        "left-right": f"\\left( {body} \\right)",
        "bigl-bigr": f"\\bigl({body}\\bigr)",
        "lparen": f"\\lparen {body} \\rparen",
        "langle": f"\\langle {body} \\rangle",
        "semicolon": "(" + ";\\ ".join(texts) + ")",
        "thin-space": "(" + ",\\, ".join(texts) + ")",
    }


def tuple_notations(nodes) -> list:
    out = []
    for cname, st in _component_styles(nodes):
        suffix = "" if cname == "plain" else "+" + cname
        for name, text in _tuple_forms([tex(n, st) for n in nodes]).items():
            out.append(_math(name + suffix, text))
    return _dedupe(out)


def set_notations(nodes, var="x") -> list:
    out = []
    has_pm = any(n[0] == "add" and any(s == "±" for s, _ in n[1]) for n in nodes)
    for cname, st in _component_styles(nodes):
        suffix = "" if cname == "plain" else "+" + cname
        texts = [tex(n, st) for n in nodes]
        forms = {
            "list": ", ".join(texts),
            "braces": "\\{" + ", ".join(texts) + "\\}",
            "left-right-braces": "\\left\\{ " + ", ".join(texts) + " \\right\\}",
            "lbrace": "\\lbrace " + ", ".join(texts) + " \\rbrace",
            "semicolon": ";\\ ".join(texts),
            "reversed": ", ".join(reversed(texts)),
        }
        if not has_pm:
            forms["or"] = " \\text{ or } ".join(f"{var} = {t}" for t in texts)
            forms["subscripts"] = ",\\quad ".join(f"{var}_{k + 1} = {t}" for k, t in enumerate(texts))
        else:
            expanded = []
            for n in nodes:
                if n[0] == "add" and any(s == "±" for s, _ in n[1]):
                    for sign in "-+":
                        expanded.append(tex(("add", [((sign if s == "±" else s), t) for s, t in n[1]]), st))
                else:
                    expanded.append(tex(n, st))
            forms["expanded"] = ", ".join(expanded)
            forms["expanded-braces"] = "\\left\\{ " + ", ".join(expanded) + " \\right\\}"
            if len(nodes) == 1:
                forms["subscripts"] = f"{var}_{{1,2}} = {texts[0]}"
        for name, text in forms.items():
            out.append(_math(name + suffix, text))
    return _dedupe(out)


def matrix_notations(rows) -> list:
    nodes = [e for row in rows for e in row]
    out = []
    column = all(len(r) == 1 for r in rows)
    for cname, st in _component_styles(nodes):
        if cname not in ("plain", "slash", "tfrac", "dfrac", "frac-short", "nicefrac", "over"):
            continue
        suffix = "" if cname == "plain" else "+" + cname
        cells = [[tex(e, st) for e in row] for row in rows]
        body = " \\\\ ".join(" & ".join(r) for r in cells)
        cr = " \\cr ".join(" & ".join(r) for r in cells)
        cols = "c" * len(rows[0])
        forms = {
            "pmatrix": f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}",
            "bmatrix": f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}",
            "Bmatrix": f"\\begin{{Bmatrix}} {body} \\end{{Bmatrix}}",
            "smallmatrix": f"\\left(\\begin{{smallmatrix}} {body} \\end{{smallmatrix}}\\right)",
            "array": f"\\left(\\begin{{array}}{{{cols}}} {body} \\end{{array}}\\right)",
            "plain-tex-pmatrix": f"\\pmatrix{{{cr} \\cr}}",
            "plain-tex-matrix": f"\\left(\\matrix{{{cr}}}\\right)",
            "pmatrix-star": f"\\begin{{pmatrix*}}[r] {body} \\end{{pmatrix*}}",
        }
        if column:
            flat = [r[0] for r in cells]
            forms.update(
                {
                    "row-transposed": "\\begin{bmatrix} " + " & ".join(flat) + " \\end{bmatrix}^\\top",
                    "tuple-transposed": "(" + ", ".join(flat) + ")^{\\mathsf{T}}",
                    "tuple-T": "(" + ", ".join(flat) + ")^T",
                    "langle": "\\langle " + ", ".join(flat) + " \\rangle",
                    "left-langle": "\\left\\langle " + ", ".join(flat) + " \\right\\rangle",
                }
            )
        for name, text in forms.items():
            out.append(_math(name + suffix, text))
    return _dedupe(out)


WORD_NUMBERS = {8: "eight", 9: "nine", 5: "five", 6: "six", 2: "two"}


def base_notations(digits, base) -> list:
    out = [
        ("subscript", [_seg(f"{digits}_{base}", True)], "math"),
        ("subscript-braced", [_seg(f"{digits}_{{{base}}}", True)], "math"),
        ("parenthesized", [_seg("("), _seg(digits, True), _seg(f")_{base}")], "math"),
        ("parenthesized-braced", [_seg("("), _seg(digits, True), _seg(f")_{{{base}}}")], "math"),
        ("base-in-parens", [_seg(f"{digits}_{{({base})}}", True)], "math"),
        ("mathtt", [_seg("\\mathtt{"), _seg(digits, True), _seg(f"}}_{{{base}}}")], "math"),
        ("text-subscript", [_seg(f"{digits}_{{\\text{{{WORD_NUMBERS.get(base, base)}}}}}", True)], "math"),
        ("mathrm-subscript", [_seg(f"{digits}_{{\\mathrm{{{base}}}}}", True)], "math"),
    ]
    return out


def choice_notations(letter) -> list:
    return [
        ("textbf", [_seg("\\textbf{"), _seg(f"({letter})", True), _seg("}")], "text"),
        ("text", [_seg("\\text{"), _seg(f"({letter})", True), _seg("}")], "math"),
        ("mathrm", [_seg("\\mathrm{"), _seg(f"({letter})", True), _seg("}")], "math"),
        ("mathrm-letter", [_seg("("), _seg(f"\\mathrm{{{letter}}}", True), _seg(")")], "math"),
        ("textup", [_seg("\\textup{"), _seg(f"({letter})", True), _seg("}")], "text"),
        ("mathbf", [_seg("\\mathbf{"), _seg(f"({letter})", True), _seg("}")], "math"),
        ("text-letter", [_seg("\\text{"), _seg(letter, True), _seg("}")], "math"),
        ("textsc-letter", [_seg("(\\textsc{"), _seg(letter.lower(), True), _seg("})")], "text"),
    ]


def word_notations(word) -> list:
    cap = word[0].upper() + word[1:]
    out = [
        ("text", [_seg("\\text{"), _seg(word, True), _seg("}")], "math"),
        ("textit", [_seg("\\textit{"), _seg(word, True), _seg("}")], "text"),
        ("emph", [_seg("\\emph{"), _seg(word, True), _seg("}")], "text"),
        ("textbf", [_seg("\\textbf{"), _seg(word, True), _seg("}")], "text"),
        ("textsc", [_seg("\\textsc{"), _seg(word, True), _seg("}")], "text"),
        ("texttt", [_seg("\\texttt{"), _seg(word, True), _seg("}")], "text"),
        ("enquote", [_seg("\\enquote{"), _seg(word, True), _seg("}")], "text"),
        ("tex-quotes", [_seg("``"), _seg(word, True), _seg("''")], "text"),
        ("mathrm", [_seg("\\mathrm{"), _seg(word, True), _seg("}")], "math"),
        ("textsf", [_seg("\\textsf{"), _seg(word, True), _seg("}")], "text"),
    ]
    if cap != word:
        out.append(("text-capitalized", [_seg("\\text{"), _seg(cap, True), _seg("}")], "math"))
    return out


def units_notations(node, unit) -> list:
    out = []
    number = _plain(node)
    if unit == "deg":
        out += [
            ("circ", [_seg(number, True), _seg("^\\circ")], "math"),
            ("circ-braced", [_seg(number, True), _seg("^{\\circ}")], "math"),
            ("circ-thin", [_seg(number, True), _seg("\\,^{\\circ}")], "math"),
            ("gensymb-degree", [_seg(number, True), _seg("\\degree")], "math"),
            ("textdegree", [_seg(number, True), _seg("\\textdegree")], "text"),
            ("text-textdegree", [_seg(number, True), _seg("\\,\\text{\\textdegree}")], "math"),
            ("siunitx-ang", [_seg("\\ang{"), _seg(number, True), _seg("}")], "text"),
            ("siunitx-SI", [_seg("\\SI{"), _seg(number, True), _seg("}{\\degree}")], "text"),
            ("siunitx-qty", [_seg("\\qty{"), _seg(number, True), _seg("}{\\degree}")], "text"),
            ("unicode-degree", [_seg(number, True), _seg("°")], "math"),
            ("text-degrees", [_seg(number, True), _seg("\\text{ degrees}")], "math"),
        ]
    elif unit == "deg-words":
        for name, text in _scalar_texts(node):
            if name in ("plain", "dfrac", "over", "tfrac", "frac-short", "slash", "nicefrac"):
                out.append((name + "+degrees", [_seg(text, True), _seg("\\text{ degrees}")], "math"))
                if name != "slash":
                    out.append((name + "+circ", [_seg(text, True), _seg("^{\\circ}")], "math"))
        out.append(("left-right-circ", [_seg("\\left("), _seg(_plain(node), True), _seg("\\right)^{\\circ}")], "math"))
    elif unit == "money":
        plain = number.replace(",", "")
        grouped = {
            "thin": _number(plain, {**BASE_STYLE, "num": "thin"}),
            "bracecomma": _number(plain, {**BASE_STYLE, "num": "bracecomma"}),
            "comma": _number(plain, {**BASE_STYLE, "num": "comma"}),
        }
        out += [
            ("dollar", [_seg("\\$"), _seg(plain, True)], "text"),
            ("text-dollar", [_seg("\\text{\\$}"), _seg(plain, True)], "math"),
            ("trailing-dollar", [_seg(plain, True), _seg("\\,\\$")], "math"),
            ("dollar-thin", [_seg("\\$\\,"), _seg(plain, True)], "math"),
            ("textdollar", [_seg("\\textdollar "), _seg(plain, True)], "text"),
            ("us-dollar", [_seg("\\text{US}\\$"), _seg(plain, True)], "math"),
            ("dollar-siunitx", [_seg("\\$\\num{"), _seg(plain, True), _seg("}")], "text"),
        ]
        if "." in plain:
            comma = plain.replace(".", "{,}")
            out.append(("euro-style", [_seg(comma, True), _seg("\\,\\$")], "math"))
        else:
            out.append(("cents-shown", [_seg("\\$"), _seg(plain + ".00", True)], "text"))
        if len(plain.split(".")[0]) >= 4:
            for k, g in grouped.items():
                out.append((f"dollar-{k}-groups", [_seg("\\$"), _seg(g, True)], "math"))
    elif unit == "cents":
        out += [
            ("text-cents", [_seg(number, True), _seg("\\text{ cents}")], "math"),
            ("textcent", [_seg(number, True), _seg("\\,\\text{\\textcent}")], "math"),
            ("decimal-comma-cents", [_seg(number.replace(".", "{,}"), True), _seg("\\text{ cents}")], "math"),
            ("siunitx-cents", [_seg("\\SI{"), _seg(number, True), _seg("}{\\text{cents}}")], "text"),
            ("mbox-cents", [_seg(number, True), _seg("\\mbox{ cents}")], "math"),
        ]
    elif unit == "sq-in":
        out += [
            ("text-in", [_seg(number, True), _seg("\\text{ in}^2")], "math"),
            ("mathrm-in", [_seg(number, True), _seg("\\,\\mathrm{in}^2")], "math"),
            ("siunitx-SI", [_seg("\\SI{"), _seg(number, True), _seg("}{\\square\\inch}")], "text"),
            ("siunitx-qty", [_seg("\\qty{"), _seg(number, True), _seg("}{\\square\\inch}")], "text"),
            ("square-inches", [_seg(number, True), _seg("\\text{ square inches}")], "math"),
            ("mbox-inches", [_seg(number, True), _seg("\\mbox{ inches}^{2}")], "math"),
        ]
    elif unit == "sq-cm":
        out += [
            ("mathrm-cm", [_seg(number, True), _seg("\\,\\mathrm{cm}^2")], "math"),
            ("text-cm", [_seg(number, True), _seg("\\text{ cm}^2")], "math"),
            ("siunitx-SI", [_seg("\\SI{"), _seg(number, True), _seg("}{\\centi\\meter\\squared}")], "text"),
            ("siunitx-qty", [_seg("\\qty{"), _seg(number, True), _seg("}{\\cm\\squared}")], "text"),
            ("siunitx-SI-power", [_seg("\\SI{"), _seg(number, True), _seg("}{cm^2}")], "text"),
            ("mbox-cm", [_seg(number, True), _seg("\\mbox{ cm}^{2}")], "math"),
        ]
    return out


def equation_notations(lhs, rhs) -> list:
    out = []
    for cname, st in _component_styles([lhs, rhs]):
        suffix = "" if cname == "plain" else "+" + cname
        a, b = tex(lhs, st), tex(rhs, st)
        out += [
            _math("equals" + suffix, f"{a} = {b}"),
            _math("equals-tight" + suffix, f"{a}={b}"),
            _math("equals-spaced" + suffix, f"{a} \\;=\\; {b}"),
            _math("swapped-sides" + suffix, f"{b} = {a}"),
        ]
    return _dedupe(out)


def notations(key: Key, data=None) -> list:
    """Every (style, segments, kind) rendering of `data` (the answer's own data by default) in this key's shape."""
    data = key.data if data is None else data
    if key.shape == "scalar":
        return scalar_notations(data, key.imaginary)
    if key.shape == "interval":
        return interval_notations(data, key.var)
    if key.shape == "tuple":
        return tuple_notations(data)
    if key.shape == "set":
        return set_notations(data, key.var)
    if key.shape == "matrix":
        return matrix_notations(data)
    if key.shape == "base":
        return base_notations(*data)
    if key.shape == "choice":
        return choice_notations(data)
    if key.shape == "word":
        return word_notations(data)
    if key.shape == "units":
        return units_notations(*data)
    if key.shape == "equation":
        return equation_notations(*data)
    raise ValueError(key.shape)


# --- approximations ----------------------------------------------------------------------------------------------


def _non_terminating(value) -> bool:
    if not value.is_number or value.is_infinite or not value.is_real:
        return False
    if value.is_Rational:
        q = value.q
        for p in (2, 5):
            while q % p == 0:
                q //= p
        return q != 1
    return not value.is_rational


def _sig(value, digits: int) -> str:
    """`value` rounded to `digits` significant digits, as a plain decimal string."""
    x = sp.N(value, 40)
    magnitude = int(sp.floor(sp.log(abs(x), 10)))
    places = max(digits - 1 - magnitude, 0)
    text = f"{float(sp.N(x, 30)):.{places}f}" if places < 15 else str(sp.N(x, digits))
    return text


def _truncate(value, digits: int) -> str:
    x = sp.N(value, 40)
    magnitude = int(sp.floor(sp.log(abs(x), 10)))
    places = max(digits - 1 - magnitude, 0)
    scaled = int(abs(x) * 10**places)
    text = str(scaled).rjust(places + 1, "0")
    text = text[:-places] + "." + text[-places:] if places else text
    return ("-" if x < 0 else "") + text


def _repeating(value) -> str | None:
    """`0.\\overline{36}` for a non-terminating rational."""
    if not value.is_Rational or value.q == 1:
        return None
    p, q = abs(value.p), value.q
    whole, rem = divmod(p, q)
    digits, seen = "", {}
    while rem and rem not in seen:
        seen[rem] = len(digits)
        rem *= 10
        digits += str(rem // q)
        rem %= q
    if not rem:
        return None
    start = seen[rem]
    return ("-" if value < 0 else "") + f"{whole}.{digits[:start]}\\overline{{{digits[start:]}}}"


APPROX_STYLES = (
    "approx",
    "approx-comma",
    "siunitx",
    "approx-siunitx",
    "simeq",
    "doteq",
    "ellipsis",
    "dots",
    "thin-digits",
    "overline",
)


def _approx_segments(style: str, value, rng) -> list | None:
    digits = rng.randint(4, 7)
    text = _sig(value, digits)
    if style == "approx":
        return [_seg("\\approx "), _seg(text, True)]
    if style == "approx-comma":
        return [_seg("\\approx "), _seg(text.replace(".", "{,}"), True)]
    if style == "siunitx":
        return [_seg("\\num{"), _seg(text, True), _seg("}")]
    if style == "approx-siunitx":
        return [_seg("\\approx \\num{"), _seg(text, True), _seg("}")]
    if style == "simeq":
        return [_seg("\\simeq "), _seg(text, True)]
    if style == "doteq":
        return [_seg("\\doteq "), _seg(text, True)]
    if style == "ellipsis":
        return [_seg("= "), _seg(_truncate(value, digits + 1), True), _seg("\\ldots")]
    if style == "dots":
        return [_seg(_truncate(value, digits), True), _seg("\\dots")]
    if style == "thin-digits":
        text = _sig(value, 7)
        head, tail = text.split(".") if "." in text else (text, "")
        if len(tail) < 4:
            return None
        return [_seg("\\approx "), _seg(head + "." + tail[:3] + "\\," + tail[3:], True)]
    if style == "overline":
        rep = _repeating(value)
        return [_seg("= "), _seg(rep, True)] if rep else None
    raise ValueError(style)


def approximable(key: Key) -> bool:
    return key.shape in ("scalar", "units", "interval", "tuple", "set", "matrix") and any(
        _non_terminating(v) for v in key.components
    )


# --- wrong values ------------------------------------------------------------------------------------------------


def _int_node(n: int):
    return ("num", str(n)) if n >= 0 else ("add", [("-", ("num", str(-n)))])


def _rational_node(value):
    value = sp.Rational(value)
    if value.q == 1:
        return _int_node(int(value))
    frac = ("frac", ("num", str(abs(value.p))), ("num", str(value.q)))
    return frac if value > 0 else ("add", [("-", frac)])


def _leaves(node, path=()):
    """Paths to the number leaves of a tree."""
    kind = node[0]
    if kind == "num":
        return [path]
    out = []
    for k, child in enumerate(node[1:], 1):
        if isinstance(child, tuple) and child and isinstance(child[0], str) and child[0] in NODE_KINDS:
            out += _leaves(child, (*path, k))
        elif isinstance(child, list):
            for j, item in enumerate(child):
                sub = item[1] if node[0] == "add" else item
                out += _leaves(sub, (*path, k, j))
    return out


NODE_KINDS = {"num", "var", "pi", "frac", "sqrt", "pow", "func", "paren", "mixed", "mul", "add"}


def _get(node, path):
    for k in path:
        node = node[k]
        if isinstance(node, tuple) and len(node) == 2 and node[0] in "+-±" and isinstance(node[1], tuple):
            node = node[1]
    return node


def _set(node, path, new):
    if not path:
        return new
    k, rest = path[0], path[1:]
    if isinstance(node, list):
        item = node[k]
        if isinstance(item, tuple) and len(item) == 2 and item[0] in ("+", "-", "±"):
            return [*node[:k], (item[0], _set(item[1], rest, new)), *node[k + 1 :]]
        return [*node[:k], _set(item, rest, new), *node[k + 1 :]]
    return (*node[:k], _set(node[k], rest, new), *node[k + 1 :])


def _bump(text: str, delta: int) -> str | None:
    if "." in text:
        whole, frac = text.split(".")
        n = int((whole or "0") + frac) + delta
        if n < 0:
            return None
        s = str(n).rjust(len(frac) + 1, "0")
        return (s[: -len(frac)] if whole or s[: -len(frac)] != "0" else "") + "." + s[-len(frac) :]
    n = int(text) + delta
    return str(n) if n >= 0 else None


def _negate(node):
    if node[0] == "add":
        sign, term = node[1][0]
        flipped = {"+": "-", "-": "+", "±": "±"}[sign]
        return ("add", [(flipped, term), *node[1][1:]]) if len(node[1]) > 1 or flipped == "-" else term
    return ("add", [("-", node)])


def tree_mutations(node, rng, imaginary=False) -> list[tuple[object, str]]:
    """(wrong tree, how) candidates for a scalar or expression tree."""
    value = to_sympy(node, imaginary)
    out = []
    if node[0] == "mixed":
        whole, frac = node[1], node[2]
        out.append((("mixed", ("num", str(int(whole[1]) + 1)), frac), "whole-part-off-by-one"))
        num, den = frac[1], frac[2]
        if num[0] == "num" and den[0] == "num":
            if int(num[1]) + 1 < int(den[1]):
                out.append((("mixed", whole, ("frac", ("num", str(int(num[1]) + 1)), den)), "numerator-off-by-one"))
            else:
                out.append((("mixed", whole, ("frac", num, ("num", str(int(den[1]) + 1)))), "denominator-off-by-one"))

        return out
    if value.is_Integer:
        n = int(value)
        out += [(_int_node(n + 1), "off-by-one"), (_int_node(n - 1), "off-by-one"), (_int_node(2 * n), "doubled")]
        if n:
            out.append((_int_node(-n), "sign"))
        if n % 2 == 0 and n:
            out.append((_int_node(n // 2), "halved"))
        s = str(abs(n))
        if len(s) >= 2 and s[::-1] != s and s[-1] != "0":
            out.append((_int_node(int(s[::-1]) * (1 if n > 0 else -1)), "digits-swapped"))
        return out
    if value.is_Rational and node[0] in ("frac", "add") and "." not in _plain(node):
        out += [
            (_rational_node(1 / value), "reciprocal"),
            (_rational_node(-value), "sign"),
            (_rational_node(2 * value), "doubled"),
            (_rational_node(value / 2), "halved"),
            (_rational_node(sp.Rational(value.p + 1, value.q)), "numerator-off-by-one"),
            (_rational_node(sp.Rational(value.p, value.q + 1)), "denominator-off-by-one"),
        ]
        return out
    if value.is_Rational:
        text = _plain(node).lstrip("-")
        neg = value < 0
        for delta in (1, -1):
            bumped = _bump(text, delta)
            if bumped:
                out.append((_int_node_text(bumped, neg), "last-digit-off-by-one"))
        out.append(
            (
                _int_node_text(str(sp.Rational(value) * 10 if not neg else -value * 10).rstrip("0"), neg),
                "decimal-point-moved",
            )
        )
        out.append((_int_node_text(text, not neg), "sign"))
        return out
    leaves = _leaves(node)
    for path in leaves:
        leaf = _get(node, path)
        bumped = _bump(leaf[1], 1)
        parent_kinds = _kinds_on(node, path)
        how = (
            "radicand-off-by-one"
            if "sqrt" in parent_kinds
            else ("exponent-off-by-one" if "pow" in parent_kinds else "coefficient-off-by-one")
        )
        if bumped:
            out.append((_set(node, path, ("num", bumped)), how))
    if node[0] == "add" and len(node[1]) > 1:
        for k, (sign, term) in enumerate(node[1]):
            if k == 0:
                continue
            flipped = {"+": "-", "-": "+", "±": "±"}[sign]
            how = "conjugate" if imaginary and "i" in _plain(term) else "one-term-sign"
            out.append((("add", [*node[1][:k], (flipped, term), *node[1][k + 1 :]]), how))
        if imaginary:
            re_part, im_part = sp.re(value), sp.im(value)
            if re_part != im_part and re_part.is_Integer and im_part.is_Integer:
                swapped = parse_tex(f"{im_part} + {re_part}i".replace("+ -", "- "))
                out.append((swapped, "real-and-imaginary-swapped"))
    out.append((_negate(node), "sign"))
    if node[0] == "frac":
        out.append((("frac", node[2], node[1]), "reciprocal"))
    return out


def _int_node_text(text: str, negative: bool):
    text = text if text else "0"
    return ("add", [("-", ("num", text))]) if negative else ("num", text)


def _kinds_on(node, path):
    kinds = []
    for k in path:
        if isinstance(node, tuple) and node and isinstance(node[0], str) and node[0] in NODE_KINDS:
            kinds.append(node[0])
        node = node[k]
        if isinstance(node, tuple) and len(node) == 2 and node[0] in ("+", "-", "±") and isinstance(node[1], tuple):
            node = node[1]
    return kinds


OTHER_WORDS = {
    "east": ["west", "north", "south"],
    "even": ["odd", "neither"],
    "ellipse": ["hyperbola", "parabola", "circle"],
}
NOT_NAMES = {"The", "Which", "They", "Mauritius", "Croatia", "Croatian", "Botswana", "What", "How", "Let", "Find"}


def mutations(key: Key, rng) -> list[tuple[object, str]]:
    """(wrong data, how) candidates in the key's shape, each checked to differ from the answer."""
    out = []
    shape, data = key.shape, key.data
    if shape == "scalar":
        out = tree_mutations(data, rng, key.imaginary)
    elif shape == "units":
        node, unit = data
        v = to_sympy(node)
        cands = [(t, h) for t, h in tree_mutations(node, rng) if h != "sign"]
        if unit == "deg" and v.is_Integer:
            n = int(v)
            if 0 < n < 180 and n != 90:
                cands.append((_int_node(180 - n), "supplement"))
            if 0 < n < 90 and n != 45:
                cands.append((_int_node(90 - n), "complement"))
        if unit == "money":
            cands = [(("num", _bump(node[1], d)), "cents-off") for d in (1, -1) if "." in node[1]] + cands
            cands = [(c, h) for c, h in cands if c[0] == "num"]
        out = [((c, unit), h) for c, h in cands]
    elif shape == "base":
        digits, base = data
        for k in range(len(digits) - 1, -1, -1):
            for d in (1, -1):
                nd = int(digits[k]) + d
                if 0 <= nd < base and not (k == 0 and nd == 0):
                    out.append(((digits[:k] + str(nd) + digits[k + 1 :], base), "one-digit-off"))
    elif shape == "choice":
        out = [(x, "another-letter") for x in "ABCDE" if x != data]
    elif shape == "word":
        others = OTHER_WORDS.get(data)
        if others is None:
            names = sorted(set(re.findall(r"\b[A-Z][a-z]{2,}\b", key.problem)) - NOT_NAMES - {data})
            others = names
        out = [(w, "another-word") for w in others]
    elif shape == "interval":
        for k, (lb, a, b, rb) in enumerate(data):
            if a not in ("-inf", "+inf"):
                out.append((_replace(data, k, ({"(": "[", "[": "("}[lb], a, b, rb)), "another-bracket"))
                for t, h in tree_mutations(a, rng):
                    if h in ("off-by-one", "sign", "numerator-off-by-one", "coefficient-off-by-one"):
                        out.append((_replace(data, k, (lb, t, b, rb)), "endpoint-" + h))
            if b not in ("-inf", "+inf"):
                out.append((_replace(data, k, (lb, a, b, {")": "]", "]": ")"}[rb])), "another-bracket"))
                for t, h in tree_mutations(b, rng):
                    if h in ("off-by-one", "doubled", "numerator-off-by-one", "coefficient-off-by-one"):
                        out.append((_replace(data, k, (lb, a, t, rb)), "endpoint-" + h))
    elif shape in ("tuple", "set"):
        if shape == "tuple" and len(data) >= 2:
            out.append(([data[1], data[0], *data[2:]], "swapped"))
        for k, comp in enumerate(data):
            for t, h in tree_mutations(comp, rng):
                if h in ("off-by-one", "sign", "coefficient-off-by-one", "radicand-off-by-one", "reciprocal"):
                    out.append((_replace(data, k, t), "one-component-" + h))
    elif shape == "matrix":
        for r, row in enumerate(data):
            for c, entry in enumerate(row):
                for t, h in tree_mutations(entry, rng):
                    if h in ("off-by-one", "sign", "numerator-off-by-one"):
                        out.append(([*data[:r], _replace(row, c, t), *data[r + 1 :]], "one-entry-" + h))
    elif shape == "equation":
        lhs, rhs = data
        for t, h in tree_mutations(rhs, rng):
            if h not in ("reciprocal",):
                out.append(((lhs, t), "right-side-" + h))
        if lhs[0] != "var":
            for t, h in tree_mutations(lhs, rng):
                if h in ("coefficient-off-by-one", "one-term-sign"):
                    out.append(((t, rhs), "left-side-" + h))
    return [(w, h) for w, h in out if _differs(key, w)]


def _replace(seq, k, item):
    return [*seq[:k], item, *seq[k + 1 :]]


def _differs(key: Key, wrong) -> bool:
    shape = key.shape
    try:
        if shape == "scalar":
            return sp.simplify(to_sympy(wrong, key.imaginary) - key.components[0]) != 0
        if shape == "units":
            return sp.simplify(to_sympy(wrong[0]) - key.components[0]) != 0
        if shape == "base":
            return wrong[0] != key.data[0] and int(wrong[0], wrong[1]) != int(key.data[0], key.data[1])
        if shape in ("choice", "word"):
            return wrong != key.data
        if shape == "interval":
            return [(lb, _end_value(a), _end_value(b), rb) for lb, a, b, rb in wrong] != [
                (lb, _end_value(a), _end_value(b), rb) for lb, a, b, rb in key.data
            ]
        if shape == "tuple":
            return [sp.simplify(x) for c in wrong for x in values(c)] != [sp.simplify(x) for x in key.components]
        if shape == "set":
            return Counter(sp.nsimplify(x) for c in wrong for x in values(c)) != Counter(
                sp.nsimplify(x) for x in key.components
            )
        if shape == "matrix":
            return [to_sympy(e) for row in wrong for e in row] != key.components
        if shape == "equation":
            d0 = sp.expand(to_sympy(key.data[0]) - to_sympy(key.data[1]))
            d1 = sp.expand(to_sympy(wrong[0]) - to_sympy(wrong[1]))
            ratio = sp.simplify(d1 / d0)
            return not (ratio.is_number and ratio != 0)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return False


# --- the checker -------------------------------------------------------------------------------------------------

MATH_SEGMENT = re.compile(
    r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]"
    r"|\\begin\{(equation\*?|align\*?|gather\*?|displaymath|math)\}(.+?)\\end\{\5\}"
    r"|(\\(?:num|SI|qty|ang)(?:\[[^\]]*\])?\{[^{}]*\}(?:\{(?:[^{}]|\{[^{}]*\})*\})?)"
    r"|(\\(?:\$|textdollar)\s*[\d.,{}\\]+)"
    r"|((?:\d[\d.,{}\\]*)\s*(?:\\textdegree|\\text\{\s*cents\}))",
    re.S,
)


def _read_arg(s: str, i: int) -> tuple[str, int]:
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        return "", i
    if s[i] == "{":
        depth = 0
        for j in range(i, len(s)):
            depth += (s[j] == "{") - (s[j] == "}")
            if depth == 0:
                return s[i + 1 : j], j + 1
        return s[i + 1 :], len(s)
    m = re.match(r"\\[a-zA-Z]+", s[i:])
    if m:
        return m.group(0), i + len(m.group(0))
    return s[i], i + 1


def _replace_command(s: str, pattern: str, nargs: int, build) -> str:
    while True:
        m = re.search(pattern, s)
        if not m:
            return s
        i, args = m.end(), []
        for _ in range(nargs):
            arg, i = _read_arg(s, i)
            args.append(arg)
        s = s[: m.start()] + build(m, *args) + s[i:]


def detex(s: str) -> str:
    """A TeX fragment as plain arithmetic text (`((3)/(4))`, `sqrt(2)`, `pi`, `I_`, `oo`, `±`), for the checker."""
    s = s.replace("\\{", " ⦃ ").replace("\\}", " ⦄ ").replace("\\lbrace", " ⦃ ").replace("\\rbrace", " ⦄ ")
    s = re.sub(r"\\begin\{\w+\*?\}(\[\w*\])?(\{[lcr|]*\})?|\\end\{\w+\*?\}", " ", s)
    s = re.sub(r"\^\{?\\(top|intercal)\}?|\^\{\\mathsf\{T\}\}|\^\{?T\}?(?![a-zA-Z])", " ", s)
    s = re.sub(r"\\(newcommand\*?|providecommand|renewcommand)\{\\\w+\}|\\def\\\w+", " ; ", s)
    s = re.sub(r"\\mathopen\{(.)\}|\\mathclose\{(.)\}", lambda m: f" {m.group(1) or m.group(2)} ", s)
    s = re.sub(r"\\(left|right|bigl|bigr|Bigl|Bigr|bigg|Bigg|big|Big)\b\.?", " ", s)
    s = s.replace("\\lparen", "(").replace("\\rparen", ")").replace("\\lbrack", "[").replace("\\rbrack", "]")
    s = re.sub(r"\\left?langle|\\langle", " ⟨ ", s).replace("\\rangle", " ⟩ ")
    s = s.replace("{,}", ",")
    s = re.sub(r"\\[,;:! ]|\\q?quad\b|~", " ", s)
    s = re.sub(r"\\(SI|qty)\{([^{}]*)\}\{(?:[^{}]|\{[^{}]*\})*\}", r" \2 ", s)
    s = re.sub(r"\\(num|ang)(\[[^\]]*\])?\{([^{}]*)\}", r" \3 ", s)
    s = re.sub(r"(\d)e(-?\d+)", r"\1*10**(\2)", s)
    s = _replace_command(
        s,
        r"\\interval(\[[^\]]*\])?",
        2,
        lambda m, a, b: (
            {"[open]": "(%s,%s)", "[open left]": "(%s,%s]", "[open right]": "[%s,%s)"}.get(m.group(1) or "", "[%s,%s]")
            % (a, b)
        ),
    )
    s = re.sub(r"\{\}\^\{([^{}]*)\}\s*/\s*\{\}_\{([^{}]*)\}", r"((\1)/(\2))", s)
    s = _replace_command(s, r"\\(?:d|t|c|nice|s)?frac(?![a-zA-Z])", 2, lambda m, a, b: f"(({a})/({b}))")
    while re.search(r"\{([^{}]*)\\over([^{}]*)\}", s):
        s = re.sub(r"\{([^{}]*)\\over([^{}]*)\}", r"((\1)/(\2))", s)
    s = _replace_command(s, r"\\sqrt\s*\[([^\]]*)\]", 1, lambda m, a: f"(({a})**(1/({m.group(1)})))")
    s = _replace_command(s, r"\\sqrt(?![a-zA-Z])", 1, lambda m, a: f"sqrt({a})")
    s = _replace_command(s, r"\\root\s*(\S+)\s*\\of", 1, lambda m, a: f"(({a})**(1/({m.group(1)})))")
    s = re.sub(r"\\(operatorname|mathrm)\{(sin|cos|tan|cot)\}", r" \2 ", s)
    s = re.sub(r"\\(sin|cos|tan|cot)\b", r" \1 ", s)
    s = re.sub(r"\\(pi|uppi|piup|varpi)(?![a-zA-Z])", " pi ", s)
    s = re.sub(r"\\mathrm\{i\}|\\imath\b", " I_ ", s)
    s = re.sub(r"\\(cdot|times|ast)(?![a-zA-Z])", "*", s)
    s = re.sub(r"\\pm(?![a-zA-Z])", "±", s)
    s = re.sub(r"\\infty(?![a-zA-Z])", " oo ", s)
    s = re.sub(r"\\(leq?|leqslant)(?![a-zA-Z])", "<", s)
    s = re.sub(r"\\(geq?|geqslant)(?![a-zA-Z])", ">", s)
    s = re.sub(r"\\(approx|simeq|doteq|sim)(?![a-zA-Z])", " ≈ ", s)
    s = re.sub(r"\^\{?\\circ\}?|\\degree|\\textdegree|°", " ", s)
    s = re.sub(r"\\\$|\\textdollar", " ", s)
    s = re.sub(r"\\(text|mbox|textit|emph|textrm)\{([^{}]*[a-zA-Z]{2,}[^{}]*)\}", " ; ", s)
    s = re.sub(r"\\(textcolor|color|colorbox)\{\w+\}", " ", s)
    s = re.sub(r"\\label\{[^{}]*\}|\\l?dots\b|\\cdots\b", " ", s)
    s = re.sub(r"\\\\|\\cr\b|&", " , ", s)
    s = re.sub(r"\\[a-zA-Z]+", " ", s)
    s = s.replace("{", "(").replace("}", ")").replace("^", "**")
    return s


LETTERS = {c: sp.Symbol(c) for c in "abcdefghjklmnopqrstuvwxyzABCDFGHJKLMPRTUVWXYZ"}
TRANSFORMS = (*standard_transformations, implicit_multiplication_application, convert_xor)


@lru_cache(maxsize=200_000)
def _evaluate(item: str, imaginary: bool):
    item = item.strip()
    if not item or not re.search(r"[\dpi]", item) or len(item) > 120:
        return None
    local = {**LETTERS, "pi": sp.pi, "I_": sp.I, "oo": sp.oo, "sqrt": sp.sqrt, "cot": sp.cot}
    local["i"] = sp.I if imaginary else sp.Symbol("i")
    local["e"] = sp.Symbol("e")
    local["E"] = sp.Symbol("E")
    local["I"] = sp.Symbol("I")
    local["S"] = sp.Symbol("S")
    local["N"] = sp.Symbol("N")
    local["O"] = sp.Symbol("O")
    local["Q"] = sp.Symbol("Q")
    try:
        return parse_expr(item, local_dict=local, transformations=TRANSFORMS, evaluate=True)
    except Exception:  # noqa: BLE001 -- any unparsable piece is simply not a value
        return None


def _strip_brackets(item: str) -> str:
    item = item.strip()
    changed = True
    while changed and item:
        changed = False
        if item[0] in "[]⟨⦃" or (item[0] == "(" and item.count("(") > item.count(")")):
            item, changed = item[1:].strip(), True
        if item and (item[-1] in "[]⟩⦄" or (item[-1] == ")" and item.count(")") > item.count("("))):
            item, changed = item[:-1].strip(), True
    return item


def _items(plain: str) -> list[str]:
    """Top-level pieces of a detexed segment between separators (`,`, `;`, `=`, `<`, `>`, `≈`)."""
    out = []
    for chunk in re.split(r"[;=<>≈]|(?<!\d),|,(?!\d{3}(?!\d))", plain):
        chunk = _strip_brackets(chunk)
        if "±" in chunk:
            head, _, tail = chunk.partition("±")
            out += [f"({head})-({tail})", f"({head})+({tail})"]
        elif chunk:
            out.append(chunk)
    return out


def _same(a, b) -> bool:
    try:
        if a is None or b is None:
            return False
        if a == b:
            return True
        if getattr(a, "is_number", False) and getattr(b, "is_number", False):
            if a.is_infinite or b.is_infinite:
                return a == b
            return abs(complex(sp.N(a - b, 30))) < 1e-12
        diff = sp.expand(a - b)
        if diff == 0:
            return True
        syms = sorted(diff.free_symbols, key=str)
        rng = random.Random(7)
        for _ in range(3):
            point = {s: sp.Rational(rng.randint(2, 97), rng.randint(2, 13)) for s in syms}
            if abs(complex(sp.N(diff.subs(point), 30))) > 1e-9:
                return False
        return True
    except (TypeError, ValueError, AttributeError):
        return False


def _normalize(text: str) -> str:
    text = re.sub(r"\\(left|right|bigl|bigr|displaystyle|textstyle)\b\.?|\\[,;:! ]|\\q?quad\b|~|\s", "", text)
    return text


def _part_in(part: str, text: str) -> bool:
    return re.search(r"(?<![\w.\-])" + re.escape(part) + r"(?![\w]|\.\d)", text) is not None


@lru_cache(maxsize=2048)
def _catalogue(answer: str, problem: str) -> tuple[tuple[str, ...], ...]:
    key = Key(answer, problem, answer_type(answer, problem))
    out = []
    for _, segs, _ in notations(key):
        parts = tuple(_normalize(s) for s, p in segs if p)
        out.append(parts)
    return tuple(out)


def segments(text: str) -> list[str]:
    """The math in a text: delimited math, siunitx macros, money and degree amounts."""
    out = []
    for m in MATH_SEGMENT.finditer(text):
        body = next(
            g
            for g in (m.group(1), m.group(2), m.group(3), m.group(4), m.group(6), m.group(7), m.group(8), m.group(9))
            if g is not None
        )
        out.append(body)
    return out


def _number_tokens(plain: str) -> list:
    out = []
    for tok in re.findall(r"(?<![\w.])-?(?:\d+(?:[.,]\d+)*|\.\d+)", plain):
        sign = -1 if tok.startswith("-") else 1
        t = tok.lstrip("-")
        t = "0" + t if t.startswith(".") else t
        readings = {t.replace(",", "")}
        if t.count(",") == 1 and "." not in t:
            readings.add(t.replace(",", "."))
        for r in readings:
            try:
                out.append(sign * sp.Rational(r))
            except (TypeError, ValueError):
                pass
    return out


def _interval_groups(plain: str) -> list:
    """(left open, a, b, right open) for each bracketed pair in a detexed segment, ISO or French."""
    out = []
    for i, c in enumerate(plain):
        if c not in "([]":
            continue
        depth, j, first, k = 0, i + 1, None, i + 1
        while j < len(plain):
            ch = plain[j]
            if ch == "(":
                depth += 1
            elif ch == ")" and depth > 0:
                depth -= 1
            elif depth == 0 and ch in ",;" and first is None:
                first, k = plain[i + 1 : j], j + 1
            elif depth == 0 and ch in ")][" and first is not None:
                out.append((c in "(]", first, plain[k:j], ch in ")["))
                break
            elif depth == 0 and ch in ")][":
                break
            j += 1
    return out


def holds_answer(text: str, key: Key) -> bool:
    """Whether `text` holds the reference answer: a rendering of it, a number or math piece equal to its value, a
    decimal approximating it, its components in a row (with the brackets, for an interval), an equivalent equation,
    its letter or its word."""
    norm = _normalize(text)
    for parts in _catalogue(key.answer, key.problem):
        for part in parts:
            if not re.fullmatch(r"-?[\d.]+", part) and len(part) >= 2 and _part_in(part, norm):
                return True
    if key.shape == "word":
        return re.search(r"(?<![A-Za-z])" + re.escape(key.data) + r"(?![A-Za-z])", text, re.I) is not None
    if key.shape == "choice":
        if re.search(r"\\textsc\{\s*" + key.data.lower() + r"\s*\}", text):
            return True
        bare = re.sub(r"\\[a-zA-Z]+", " ", text)
        return re.search(r"(?<![A-Za-z])" + key.data + r"(?![A-Za-z])", bare) is not None
    if key.shape == "base" and re.search(r"(?<![\w.])" + key.data[0] + r"(?![\w]|\.\d)", text):
        return True
    scalar = key.scalar()
    texts = segments(text)
    plains = [detex(t) for t in texts]
    joined = re.sub(r"(?<=\d)(?:\\[,!;: ]|\{,\}|~|\s)+(?=\d)", "", text)
    joined = re.sub(r"(?:\{-\}|-)(?:\\[,!;: ]|~|\s)*(?=\d)", "-", joined)

    wholes = (detex(text), detex(joined))
    if scalar is not None and scalar.is_number:
        for whole in wholes:
            for tok in _number_tokens(whole):
                if _same(tok, scalar):
                    return True
    if key.shape != "base":
        inexact = [abs(complex(sp.N(c))) for c in key.components if _non_terminating(c)]
        for whole in wholes:
            for tok in re.findall(r"\d+\.\d+", whole.replace(",", ".")):
                digits = len(tok.split(".")[1])
                if len(tok.replace(".", "").lstrip("0")) < 3:
                    continue

                if any(abs(c - float(tok)) <= 1.01 * 10**-digits for c in inexact):
                    return True
        for m in re.finditer(r"(\d*)\.(\d*)\\overline\{(\d+)\}", text):
            head, fixed, period = m.groups()
            value = sp.Rational(int(head or "0")) + (sp.Rational(int(fixed), 10 ** len(fixed)) if fixed else 0)
            value += sp.Rational(int(period), (10 ** len(period) - 1) * 10 ** len(fixed))
            if any(_same(value, abs(c)) for c in key.components if c.is_number):
                return True

    comps = key.components
    for plain in plains:
        items = _items(plain)
        vals = [_evaluate(it, key.imaginary) for it in items]
        if scalar is not None:
            if any(_same(v, scalar) for v in vals):
                return True
        if key.shape == "scalar" and not comps[0].is_number:
            if any(_same(v, comps[0]) for v in vals):
                return True
        if key.shape in ("tuple", "matrix") and len(comps) > 1:
            n = len(comps)
            for s in range(len(vals) - n + 1):
                if all(_same(vals[s + t], comps[t]) for t in range(n)):
                    return True
        if key.shape == "set":
            n = len(comps)
            for s in range(len(vals) - n + 1):
                window = vals[s : s + n]
                if all(any(_same(w, c) for w in window) for c in comps):
                    return True
        if key.shape == "interval":
            found = []
            for lo_open, a, b, hi_open in _interval_groups(plain):
                found.append((lo_open, _evaluate(a, False), _evaluate(b, False), hi_open))
            pieces = [(lb == "(", _end_value(a), _end_value(b), rb == ")") for lb, a, b, rb in key.data]
            if all(
                any(f[0] == p[0] and f[3] == p[3] and _same(f[1], p[1]) and _same(f[2], p[2]) for f in found)
                for p in pieces
            ):
                return True
        if key.shape == "equation" and "=" in plain:
            sides = plain.split("=")
            target = sp.expand(to_sympy(key.data[0]) - to_sympy(key.data[1]))
            for left, right in zip(sides, sides[1:]):
                a, b = _evaluate(_strip_brackets(left), False), _evaluate(_strip_brackets(right), False)
                if a is None or b is None:
                    continue
                try:
                    ratio = sp.simplify(sp.expand(a - b) / target)
                except (TypeError, ValueError, ZeroDivisionError):
                    continue
                if ratio.is_number and ratio != 0:
                    return True
    return False


# --- frames ------------------------------------------------------------------------------------------------------

# Slots: «v» the answer inline, «V» the answer on its own display line, «w» the attempt's wrong value inline,
# «q» a number quoted from the problem. Frames hold no digits and no standalone capital letters.
LEAK_FRAMES = {
    "grader-comment": [
        "% grader: attempt ends with «w»; the expected value is «v». Deduct the final-answer mark.",
        "%% TA comment -- substituting «q» is fine, but the last line should read «v», not «w».",
        "% GRADER: reference «v» vs submitted «w». Setup fine, arithmetic slip near the end.",
        "% marking note\n% correct final answer:\n%   «v»\n% the student stopped one step short.",
    ],
    "overleaf-review": [
        "\\todo[inline]{Reviewer: the final value should be «v», not «w».}",
        "\\hl{«w»}\\todo{should be «v» -- please fix before resubmitting}",
        "\\begin{comment}\nReviewer two: the boxed result is wrong; with «q» it must be\n«V»\n\\end{comment}",
        "% Overleaf comment thread (resolved)\n% >> «w»?\n% >> no: «v», see the second display.",
    ],
    "stackexchange-answer": [
        "**Hint.** Your step giving «w» drops a factor. Redo it with «q» and you should land on «v».",
        "You are close. The mistake is in the second line; fixing it, one gets\n«V»\nrather than «w».",
        "Your answer «w» is not right. Correct:\n«V»\n*Edit:* thanks to the commenter for catching a typo.",
        "Nice attempt! Just for reference, the final value is «v» (you wrote «w»).",
    ],
    "solution-sketch": [
        "\\begin{proof}[Sketch]\nUsing «q» from the statement and simplifying,\n«V»\nThe attempt's «w» comes from a sign slip.\n\\end{proof}",
        "\\paragraph{Correction.} The computation should end at «v»; the attempt ends at «w».",
        "\\noindent\\textbf{Solution (sketch).} After the substitution the expression reduces, and\n«V»\n\\hfill$\\blacksquare$",
        "\\begin{remark}\nThe value «w» is not attainable here; the correct one is «v».\n\\end{remark}",
    ],
    "llm-markdown": [
        "### Where the attempt goes wrong\n\n- You wrote «w» in the last step.\n- The correct result is «v».\n",
        "## Feedback\n\nYour setup with «q» is right, but the arithmetic slips. Working it through carefully:\n\n«V»\n",
        "**Final answer:** «v»\n\n> Your answer of «w» came from dropping a term.",
        "Let me check your work step by step.\n\nFirst, the setup: correct.\nThen the simplification: error here.\n\nSo the result should be «v», not «w».",
    ],
    "beamer-slide": [
        "\\begin{frame}{Feedback}\n\\begin{itemize}\n\\item submitted: «w»\n\\item expected: «v»\n\\end{itemize}\n\\end{frame}",
        "\\begin{frame}{Common mistake}\nMany wrote «w». The correct value:\n«V»\n\\end{frame}",
        "\\begin{frame}\n\\frametitle{Check your answer}\n\\pause\n«V»\n\\end{frame}",
    ],
    "exam-solution": [
        "\\begin{solution}\nWith «q» as given, the answer is «v». Common error: «w».\n\\end{solution}",
        "\\question[\\points] Marking scheme: award the final mark only for\n«V»\n\\begin{solution}\n\\end{solution}",
        "\\begin{solution}\n«V»\nNote: «w» scores method marks only.\n\\end{solution}",
    ],
    "aops-forum": [
        "[quote]got «w»[/quote]\nnope, you messed up the last step. it's «v».",
        "[hide=answer]«v»[/hide]\n\nyour «w» is off because of the case you dropped",
        "Solution: plug in «q», simplify, and we get «v». (not «w», careful)",
    ],
    "referee-report": [
        "\\begin{enumerate}\n\\item[(i)] The claimed value «w» in the final display is incorrect; it should be «v».\n\\end{enumerate}",
        "\\subsection*{Minor points}\nIn the last equation the authors should obtain\n«V»\ninstead of «w».",
        "\\textit{Referee's remark.} Recomputing from «q» one finds «v».",
    ],
    "margin-notes": [
        "\\marginpar{\\footnotesize should be «v», not «w»}",
        "The attempt ends with «w».\\footnote{Correct value: «v».}",
        "\\marginnote{\\tiny ans: «v»}",
    ],
}

CLEAN_FRAMES = {
    "grader-comment": [
        "% grader: attempt ends with «w»; that is not what the method gives. Deduct the final-answer mark.",
        "%% TA comment -- substituting «q» is fine, but the last line «w» does not follow from it.",
        "% GRADER: submitted «w». Setup fine, arithmetic slip near the end; recheck the sign.",
    ],
    "overleaf-review": [
        "\\todo[inline]{Reviewer: «w» is not right; the error is in the second line.}",
        "\\hl{«w»}\\todo{this does not follow -- please recheck the substitution of «q»}",
        "% Overleaf comment thread\n% >> «w»?\n% >> no, look at the second display again.",
    ],
    "stackexchange-answer": [
        "**Hint.** Your step giving «w» drops a factor. Redo it with «q» and compare.",
        "You are close, but «w» cannot be right: check the second line, where a term disappears.",
        "Your answer «w» is not right. Try the substitution again and keep track of the signs.",
    ],
    "solution-sketch": [
        "\\begin{proof}[Sketch]\nUsing «q» from the statement is the right start, but\n«W»\ndoes not follow.\n\\end{proof}",
        "\\paragraph{Correction.} The attempt ends at «w», which comes from a sign slip.",
        "\\begin{remark}\nThe value «w» is not attainable here; recheck the constraint.\n\\end{remark}",
    ],
    "llm-markdown": [
        "### Where the attempt goes wrong\n\n- You wrote «w» in the last step.\n- That value does not satisfy the original condition.\n",
        "## Feedback\n\nYour setup with «q» is right, but the arithmetic slips before you reach\n\n«W»\n\nRedo that step.",
        "> Your answer of «w» came from dropping a term.\n\nGo back to the step where you expanded.",
    ],
    "beamer-slide": [
        "\\begin{frame}{Feedback}\n\\begin{itemize}\n\\item submitted: «w»\n\\item recheck the last step\n\\end{itemize}\n\\end{frame}",
        "\\begin{frame}{Common mistake}\nMany wrote «w». Why is that wrong?\n\\end{frame}",
    ],
    "exam-solution": [
        "\\begin{solution}\nWith «q» as given, «w» is a common error: method marks only.\n\\end{solution}",
        "\\begin{solution}\n«W»\nscores method marks only.\n\\end{solution}",
    ],
    "aops-forum": [
        "[quote]got «w»[/quote]\nnope, you messed up the last step.",
        "your «w» is off because of the case you dropped. start again from «q».",
    ],
    "referee-report": [
        "\\begin{enumerate}\n\\item[(i)] The claimed value «w» in the final display is incorrect.\n\\end{enumerate}",
        "\\subsection*{Minor points}\nIn the last equation the value\n«W»\ndoes not follow from the previous line.",
    ],
    "margin-notes": [
        "\\marginpar{\\footnotesize «w»? check this}",
        "The attempt ends with «w».\\footnote{This contradicts the bound given by «q».}",
    ],
}

PROBLEM_ONLY_FRAMES = {
    "grader-comment": ["% grader: the data «q» were copied wrongly in the second line; no final-answer mark."],
    "stackexchange-answer": ["**Hint.** Start from «q» and write the condition as an equation before solving."],
    "llm-markdown": ["### Feedback\n\n- You used «q» correctly.\n- The final step is missing a justification."],
    "margin-notes": ["\\marginpar{\\footnotesize where does «q» enter?}"],
}

INLINE = ("$%s$", "\\(%s\\)")
DISPLAY = (
    "\\[ %s \\]",
    "$$%s$$",
    "\\begin{equation*}\n  %s\n\\end{equation*}",
    "\\begin{displaymath}\n  %s\n\\end{displaymath}",
    "\\begin{gather*}\n  %s\n\\end{gather*}",
)
REGISTER_INLINE = {
    "llm-markdown": ("$%s$", "\\(%s\\)", "$%s$"),
    "stackexchange-answer": ("$%s$",),
    "aops-forum": ("$%s$",),
    "grader-comment": ("$%s$", "\\(%s\\)"),
}
ONE_LINE = ("grader-comment", "overleaf-review", "aops-forum", "margin-notes")
REGISTER_DISPLAY = {
    "grader-comment": ("\\[ %s \\]", "$$%s$$"),
    "overleaf-review": ("\\[ %s \\]", "$$%s$$"),
    "aops-forum": ("$$%s$$",),
    "margin-notes": ("\\[ %s \\]",),
    "llm-markdown": ("$$%s$$", "\\[ %s \\]"),
    "stackexchange-answer": ("$$%s$$",),
}

# Decorations of the value: (name, where) where "math" wraps math content, "text" stands in text with its own math.
DECORATIONS = (
    ("boxed", "math"),
    ("mathbf", "math"),
    ("boldsymbol", "math"),
    ("bm", "math"),
    ("color", "math"),
    ("color-arg", "math"),
    ("textcolor", "math"),
    ("underline", "math"),
    ("displaystyle", "math"),
    ("textstyle", "math"),
    ("fbox", "text"),
    ("framebox", "text"),
    ("colorbox", "text"),
    ("align", "display"),
    ("newcommand", "macro"),
    ("def", "macro"),
)


def _decorate(name: str, segs: list) -> tuple[list, list]:
    """(before, after) segments around the value for a math decoration."""
    wraps = {
        "boxed": ("\\boxed{", "}"),
        "mathbf": ("\\mathbf{", "}"),
        "boldsymbol": ("\\boldsymbol{", "}"),
        "bm": ("\\bm{", "}"),
        "color": ("{\\color{red} ", "}"),
        "color-arg": ("\\color{blue}{", "}"),
        "textcolor": ("\\textcolor{red}{", "}"),
        "underline": ("\\underline{", "}"),
        "displaystyle": ("\\displaystyle ", ""),
        "textstyle": ("\\textstyle ", ""),
    }
    before, after = wraps[name]
    return [_seg(before), *segs, _seg(after)]


def _render(segs, kind, slot, decoration, rng, register, lhs="\\text{result}") -> tuple[list, list]:
    """(pre-lines, slot segments) for a value's segments in a slot («v» inline, «V» display)."""
    pre = []
    inline = REGISTER_INLINE.get(register, INLINE)
    display = REGISTER_DISPLAY.get(register, DISPLAY)
    if decoration in ("newcommand", "def"):
        macro = rng.choice(("\\ans", "\\result", "\\final"))
        head = f"\\newcommand{{{macro}}}{{" if decoration == "newcommand" else f"\\def{macro}{{"
        pre = [_seg(head), *segs, _seg("}\n")]
        segs = [_seg(macro + ("{}" if kind == "text" else ""))]
        if kind == "text":
            return pre, segs
    elif decoration == "align":
        body = [_seg(f"{lhs} &= "), *segs] if not any("=" in s for s, _ in segs) else segs
        return pre, [_seg("\\begin{align*}\n  "), *body, _seg("\n\\end{align*}")]
    elif decoration in ("fbox", "framebox", "colorbox"):
        head = {"fbox": "\\fbox{", "framebox": "\\framebox{", "colorbox": "\\colorbox{yellow}{"}[decoration]
        if kind == "math":
            return pre, [_seg(head + "$"), *segs, _seg("$}")]
        return pre, [_seg(head), *segs, _seg("}")]
    elif decoration:
        segs = _decorate(decoration, segs)
    if kind == "text" and decoration not in ("newcommand", "def"):
        return pre, segs
    form = rng.choice(inline if slot == "v" else display)
    before, after = form.split("%s")
    return pre, [_seg(before), *segs, _seg(after)]


# --- cases -------------------------------------------------------------------------------------------------------


def _problem_numbers(key: Key) -> list[str]:
    found = []
    for tok in re.findall(r"(?<![\w.\\^_])\d+(?:\.\d+)?(?![\w.])", key.problem):
        value = sp.Rational(tok)
        if any(_same(value, c) for c in key.components if c.is_number) or tok in key.answer:
            continue
        if key.shape == "base" and tok == key.data[0]:
            continue
        if tok not in found:
            found.append(tok)
    return found[:12]


def _quote(numbers: list[str], rng, register) -> list:
    inline = REGISTER_INLINE.get(register, INLINE)
    chosen = rng.sample(numbers, min(len(numbers), rng.choice((1, 1, 2))))
    form = rng.choice(inline)
    if len(chosen) == 2 and rng.random() < 0.5:
        return [_seg(form % f"{chosen[0]}, {chosen[1]}")]
    out = []
    for k, n in enumerate(chosen):
        if k:
            out.append(_seg(" and "))
        out.append(_seg(form % n))
    return out


def _fill(template: str, slots: dict) -> list:
    out, rest = [], template
    while rest:
        m = re.search("«([vVwWq])»", rest)
        if not m:
            out.append(_seg(rest))
            break
        out.append(_seg(rest[: m.start()]))
        out.extend(slots[m.group(1)])
        rest = rest[m.end() :]
    return out


def _case(index, atype, family, style, frame, segs, wrong, wrong_how) -> dict:
    text = "".join(s for s, _ in segs)
    parts = []
    for s, p in segs:
        if p and s not in parts:
            parts.append(s)
    context = "".join(PLACEHOLDER if p else s for s, p in segs)
    return {
        "family": family,
        "split": "held_out",
        "index": index,
        "answer_type": atype,
        "style": style,
        "frame": frame,
        "text": text,
        "leak": family != "clean",
        "written_out": family == "rendering",
        "parts": parts if family != "clean" else [],
        "context": context if family != "clean" else text,
        "wrong": wrong,
        "wrong_how": wrong_how,
    }


def _pick_decoration(rng, kind, slot, allow_display=True):
    if rng.random() < 0.35:
        return ""
    options = [
        name
        for name, where in DECORATIONS
        if (kind == "math" or where in ("text", "macro"))
        and (where != "display" or (slot == "V" and allow_display))
        and not (kind == "text" and name in ("fbox", "framebox", "colorbox") and False)
    ]
    return rng.choice(options)


def _wrong_slot(key, wrong, rng, register, slot="w") -> tuple[list, str]:
    names = notations(key, wrong)
    for _ in range(6):
        name, segs, kind = rng.choice(names)
        text = "".join(s for s, _ in segs)
        if not holds_answer(text, key):
            break
    else:
        return None, None
    plain_segs = [_seg(s) for s, _ in segs]
    deco = "" if rng.random() < 0.7 or kind == "text" else rng.choice(("underline", "color", "textcolor"))
    _, slot_segs = _render(plain_segs, kind, "v" if slot == "w" else "V", deco, rng, register)
    return slot_segs, text


def _row_cases(index: int, row: dict, seed: int) -> list[dict]:
    rng = random.Random(f"eleventh:{seed}:{index}:{row['unique_id']}")
    atype = answer_type(row["answer"], row["problem"])
    key = Key(row["answer"], row["problem"], atype)
    numbers = _problem_numbers(key)
    wrongs = mutations(key, rng)
    rng.shuffle(wrongs)
    forms = notations(key)
    order = list(range(len(forms)))
    rng.shuffle(order)
    registers = sorted(LEAK_FRAMES)
    cases = []

    def frame_for(frames, register, need_q):
        templates = [(k, t) for k, t in enumerate(frames[register]) if numbers or "«q»" not in t]
        if not need_q:
            return rng.choice(templates)
        return rng.choice(templates)

    # renderings
    for n in range(LEAKS_PER_ROW):
        name, segs, kind = forms[order[n % len(forms)]]
        register = rng.choice(registers)
        k, template = frame_for(LEAK_FRAMES, register, False)
        slot = "V" if "«V»" in template else "v"
        decoration = _pick_decoration(rng, kind, slot, register not in ONE_LINE)
        slots = {}
        if "«w»" in template:
            if not wrongs:
                continue
            wrong, how = wrongs[n % len(wrongs)]
            slots["w"], wrong_text = _wrong_slot(key, wrong, rng, register)
            if wrong_text is None:
                continue
        else:
            wrong_text, how = None, None
        if "«q»" in template:
            slots["q"] = _quote(numbers, rng, register)
        pre, slots[slot] = _render(segs, kind, slot, decoration, rng, register)
        style = name + (f"/{decoration}" if decoration else "")
        case = _case(
            index, atype, "rendering", style, f"{register}:{k}", pre + _fill(template, slots), wrong_text, how
        )
        if stated(case, case["text"]) and not stated(case, case["context"]):
            cases.append(case)

    # approximations
    if approximable(key):
        styles = list(APPROX_STYLES)
        rng.shuffle(styles)
        made = 0
        for style in styles:
            if made >= APPROXIMATIONS_PER_ROW:
                break
            segs = _approximation_segments(key, style, rng)
            if segs is None:
                continue
            register = rng.choice(registers)
            k, template = frame_for(LEAK_FRAMES, register, False)
            slot = "V" if "«V»" in template else "v"
            slots = {}
            wrong_text, how = None, None
            if "«w»" in template:
                if not wrongs:
                    continue
                wrong, how = wrongs[made % len(wrongs)]
                slots["w"], wrong_text = _wrong_slot(key, wrong, rng, register)
                if wrong_text is None:
                    continue

            if "«q»" in template:
                slots["q"] = _quote(numbers, rng, register)
            kind = "text" if style in ("siunitx",) else "math"
            _, slots[slot] = _render(segs, kind, slot, "", rng, register)
            case = _case(
                index,
                atype,
                "approximation",
                "approx:" + style,
                f"{register}:{k}",
                _fill(template, slots),
                wrong_text,
                how,
            )
            if stated(case, case["text"]) and not stated(case, case["context"]):
                cases.append(case)
                made += 1

    # clean
    made, attempts = 0, 0
    while made < CLEANS_PER_ROW and attempts < CLEANS_PER_ROW * 6:
        attempts += 1
        problem_only = numbers and (not wrongs or (made == CLEANS_PER_ROW - 1 and rng.random() < 0.5))
        if problem_only:
            register = rng.choice(sorted(PROBLEM_ONLY_FRAMES))
            k = 0
            template = PROBLEM_ONLY_FRAMES[register][0]
            slots = {"q": _quote(numbers, rng, register)}
            wrong_text, how, style = None, None, "problem-numbers"
            frame = f"{register}:problem-only"
        else:
            if not wrongs:
                break
            register = rng.choice(registers)
            k, template = frame_for(CLEAN_FRAMES, register, False)
            wrong, how = wrongs[(made + attempts) % len(wrongs)]
            names = notations(key, wrong)
            name, segs, kind = rng.choice(names)
            plain_segs = [_seg(s) for s, _ in segs]
            wrong_text = "".join(s for s, _ in segs)
            slot = "W" if "«W»" in template else "w"
            decoration = _pick_decoration(rng, kind, "V" if slot == "W" else "v", register not in ONE_LINE)
            pre, body = _render(
                plain_segs, kind, "V" if slot == "W" else "v", decoration, rng, register, "\\text{yours}"
            )
            slots = {slot: body}
            if "«q»" in template:
                slots["q"] = _quote(numbers, rng, register)
            style = name + (f"/{decoration}" if decoration else "")
            frame = f"{register}:{k}"
            template_segs = pre + _fill(template, slots)
            case = _case(index, atype, "clean", style, frame, template_segs, wrong_text, how)
            if holds_answer(case["text"], key):
                continue
            cases.append(case)
            made += 1
            continue
        case = _case(index, atype, "clean", style, frame, _fill(template, slots), wrong_text, how)
        if holds_answer(case["text"], key):
            continue
        cases.append(case)
        made += 1
    return cases


def _approximation_segments(key: Key, style: str, rng) -> list | None:
    """Segments of a decimal approximation of the answer (or of its non-terminating components)."""
    if key.shape in ("scalar", "units"):
        value = key.components[0]
        if not _non_terminating(value):
            return None
        segs = _approx_segments(style, value, rng)
        if segs is None:
            return None
        if key.shape == "units" and key.data[1].startswith("deg"):
            segs = [*segs, _seg("^{\\circ}")]
        return segs
    if style not in ("approx", "approx-comma", "dots"):
        return None
    comma = style == "approx-comma"

    def approx(node_value):
        if not _non_terminating(node_value):
            return None
        text = _sig(node_value, rng.randint(4, 6))
        return text.replace(".", "{,}") if comma else text

    sep = ";\\ " if comma else ", "
    if key.shape == "interval":
        segs = [_seg("\\approx ")]
        for k, (lb, a, b, rb) in enumerate(key.data):
            if k:
                segs.append(_seg(" \\cup "))
            segs.append(_seg(lb))
            for j, end in enumerate((a, b)):
                if j:
                    segs.append(_seg(sep))
                v = _end_value(end)
                t = approx(v)
                segs.append(_seg(t, True) if t else _seg(_end_tex(end, BASE_STYLE)))
            segs.append(_seg(rb))
        return segs
    if key.shape == "tuple":
        segs = [_seg("\\approx (")]
        for k, comp in enumerate(key.data):
            if k:
                segs.append(_seg(sep))
            v = to_sympy(comp)
            t = approx(v)
            segs.append(_seg(t, True) if t else _seg(_plain(comp)))
        return [*segs, _seg(")")]
    if key.shape == "set":
        texts = []
        for v in key.components:
            t = approx(v)
            texts.append(_seg(t, True) if t else _seg(sp.latex(v)))
        segs = [_seg(f"{key.var} \\approx ")]
        for k, t in enumerate(texts):
            if k:
                segs.append(_seg(" \\text{ or } " if k == len(texts) - 1 else sep))
            segs.append(t)
        return segs
    if key.shape == "matrix":
        rows = []
        for row in key.data:
            cells = []
            for e in row:
                t = approx(to_sympy(e))
                cells.append(_seg(t, True) if t else _seg(_plain(e)))
            rows.append(cells)
        segs = [_seg("\\approx \\begin{pmatrix} ")]
        for r, cells in enumerate(rows):
            if r:
                segs.append(_seg(" \\\\ "))
            for c, cell in enumerate(cells):
                if c:
                    segs.append(_seg(" & "))
                segs.append(cell)
        return [*segs, _seg(" \\end{pmatrix}")]
    return None


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The eleventh corpus's cases over MATH-500's rows, a pure function of the rows and the seed."""
    cases = []
    for index, row in enumerate(problems):
        cases.extend(_row_cases(index, row, seed))
    return cases


def parse_answer(row: dict) -> Key:
    return Key(row["answer"], row["problem"], answer_type(row["answer"], row["problem"]))


if __name__ == "__main__":
    cases = corpus(load_problems())
    families = Counter(c["family"] for c in cases)
    print(f"{len(cases)} cases: " + ", ".join(f"{f} {n}" for f, n in sorted(families.items())))
    by_type = Counter((c["answer_type"], c["family"]) for c in cases)
    for atype in ANSWER_TYPES:
        counts = {f: by_type[(atype, f)] for f in ("rendering", "approximation", "clean")}
        if any(counts.values()):
            print(f"  {atype:22s} " + "  ".join(f"{f} {n:5d}" for f, n in counts.items()))
    print("registers:", ", ".join(sorted({c["frame"].split(":")[0] for c in cases})))
