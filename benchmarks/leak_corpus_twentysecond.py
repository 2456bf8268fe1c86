"""Held-out leak corpus `twentysecond`: English critiques whose numbers follow other locales' and typographic traditions.

Setting. Reviewers from many countries write English critiques of a failed MATH-500 attempt, but write numbers and
operations as their school or typesetting tradition does. Each critique draws one `Convention` (German, French,
Swiss, Russian, Polish, Czech, Italian, Swedish, Indian, British, American-terse) and uses it for every number in it:
the decimal separator (comma, point, British raised point), digit grouping (dots, thin or normal spaces, apostrophes,
Indian lakh grouping, commas), the minus sign (U+2212, en dash, hyphen), the multiplication sign (dot, cross, letter
x), list and pair separators (semicolons wherever the decimal separator is a comma), interval brackets (reversed
brackets "]3; 4]", Polish/Czech angle brackets), "tg"/"ctg"/"cotg" for tan and cot, the degree written "°", "Grad" or
converted to gon, percent with or without a space, currency after the amount.

Method. Every MATH-500 answer is parsed into a small tree (`_Parser`: numbers, letters, pi, roots, fractions, powers,
sums, products, cot) inside a typed `Answer` (number, complex, expression, equation, interval, sequence, set, vector,
matrix, choice, text, degrees, money, cents, area, base). `_styles` lists the notations that fit an answer in a
convention, and `_render` writes it out: fraction styles ("14/3", "14⁄3", "14 : 3", "14 ÷ 3", "14 over 3", "14 by 3",
"fourteen thirds", "¹⁴⁄₃", "4 2/3", "4⅔"), value styles (terminating decimals, percent, per mille, scientific
notation, words), radicals ("3√13", "3·√13", "3 root 13"), pi ("288π", "288 pi"), powers (superscripts or carets),
explicit products, complex numbers with i or j, points with semicolons or the German bar "(15 | −29)", intervals as
brackets or as inequalities, sets in braces or as lists, vectors as columns or transposed rows, matrices row by row,
degrees converted to gon and radians, money with the currency after or before the amount, cents as dollars, square
inches as square feet and square centimetres as mm² or dm², base-n numbers with subscripts or "(base 8)" or their
value in base ten. A form that a reader could not settle (a single group "1,234" or "12.500", a decimal with
exactly three digits after a comma or point) is never written: grouping then falls back, and an exact decimal gets a
fourth digit. All values are computed with sympy and fractions.

Families. "rendering": the reference answer is written out in the critique's convention (`parts` holds the minimal
substring, e.g. "(15; −29)", "]3; 4]", "32 348", "100 gon"). "approximation": an irrational or non-terminating
scalar answer is given as a decimal with 3 to 6 significant digits in the convention ("≈ 4,4721"). "clean": the same
frames with the answer sentence replaced by one that does not state it. Every critique quotes the attempt's wrong value
(a mutation of the answer's own shape, rendered in the same style: a number plus or minus one, doubled, tenfold, sign
flipped, a bracket flipped, entries swapped, another option or word from the problem, a base-n digit changed), and
may quote numbers of the problem and intermediate values of the reference solution, always rendered in the same
convention and never equal in value to the answer or to any of its entries. `holds_answer` is this corpus's own
checker: it looks for every rendering of the answer in every convention and style, and reads every number in the
text under every convention (grouped, decimal, fractions, mixed numbers, percent, per mille, unicode fractions) to
compare its value with the answer's exact value (or, for an irrational or non-terminating answer, with its decimal
expansion at the number's own precision). Clean critiques are redrawn until it finds nothing.

Independence. Written without reading the guard or any other corpus: I read only my brief, `tests/conftest.py` (for
the `shared_data` fixture), MATH-500's rows, and from `benchmarks/leak_corpus.py` only the source of `load_problems`,
`ANSWER_TYPES`, `answer_type`, `occurrences`, `stated` and their helpers `_strip`, `_top_level_split` and `MATH500`,
which are the only names imported from it.
"""

from __future__ import annotations

import functools
import random
import re
import unicodedata
from dataclasses import dataclass, field, replace
from fractions import Fraction

import sympy
from leak_corpus import answer_type, occurrences
from num2words import num2words


SEED = 0

CASES_PER_FAMILY = 7
CASES_PER_FAMILY_FEW_NOTATIONS = 4
FEW_NOTATIONS = 3
APPROXIMATIONS_PER_PROBLEM = 3
EXTRA_CLEANS_FOR_APPROXIMABLE = 3
DRAWS = 40

SUPERSCRIPT = str.maketrans("0123456789-−+()=n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻⁺⁽⁾⁼ⁿ")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
UNSUPERSCRIPT = {ord(sup): plain for plain, sup in zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")}
UNSUBSCRIPT = {ord(sub): plain for plain, sub in zip("0123456789", "₀₁₂₃₄₅₆₇₈₉")}
SPACES = " \u2009\u202f\u00a0"


def _vulgar_fractions() -> dict[Fraction, str]:
    """Unicode's precomposed fractions (½, ⅔, ⅞, ...) by value, read from their decompositions."""
    table = {}
    for code in [*range(0xBC, 0xBF), *range(0x2150, 0x2160)]:
        char = chr(code)
        decomposition = unicodedata.decomposition(char).split()
        if decomposition[:1] != ["<fraction>"] or decomposition[-1] == "2044":
            continue
        slash = decomposition.index("2044")
        numerator = int("".join(chr(int(c, 16)) for c in decomposition[1:slash]))
        denominator = int("".join(chr(int(c, 16)) for c in decomposition[slash + 1 :]))
        table[Fraction(numerator, denominator)] = char
    return table


VULGAR = _vulgar_fractions()


# --------------------------------------------------------------------------------------------------- conventions


@dataclass(frozen=True)
class Convention:
    """How one reviewer writes numbers: separators, signs, brackets and names, used for every number of a critique."""

    name: str
    decimal: str
    group: str
    minus: str
    times: str
    list_separator: str
    open_brackets: tuple[str, str]
    closed_brackets: tuple[str, str]
    fraction_styles: tuple[str, ...]
    indian: bool = False
    leading_zero: bool = True
    cot: str = "cot"
    tan: str = "tan"
    degree: str = "°"
    percent: str = "%"
    plus_infinity: str = "∞"
    root_word: bool = False
    quotes: tuple[str, str] = ("“", "”")
    currency_before: str = "$"


CONVENTIONS = (
    Convention(
        name="german",
        decimal=",",
        group=".",
        minus="−",
        times="·",
        list_separator=";",
        open_brackets=("]", "["),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "colon", "fraction_slash"),
        degree=" Grad",
        plus_infinity="+∞",
        quotes=("„", "“"),
    ),
    Convention(
        name="french",
        decimal=",",
        group="\u202f",
        minus="−",
        times="×",
        list_separator=";",
        open_brackets=("]", "["),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "fraction_slash", "stacked"),
        cot="cotan",
        percent="\u202f%",
        plus_infinity="+∞",
        quotes=("« ", " »"),
    ),
    Convention(
        name="swiss",
        decimal=".",
        group="'",
        minus="−",
        times="·",
        list_separator=";",
        open_brackets=("]", "["),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "fraction_slash", "colon"),
        plus_infinity="+∞",
        quotes=("«", "»"),
        currency_before="US$ ",
    ),
    Convention(
        name="russian",
        decimal=",",
        group=" ",
        minus="–",
        times="·",
        list_separator=";",
        open_brackets=("(", ")"),
        closed_brackets=("[", "]"),
        fraction_styles=("colon", "slash", "stacked"),
        cot="ctg",
        tan="tg",
        quotes=("«", "»"),
    ),
    Convention(
        name="polish",
        decimal=",",
        group="\u00a0",
        minus="−",
        times="·",
        list_separator=";",
        open_brackets=("(", ")"),
        closed_brackets=("⟨", "⟩"),
        fraction_styles=("colon", "slash"),
        cot="ctg",
        tan="tg",
        quotes=("„", "”"),
    ),
    Convention(
        name="czech",
        decimal=",",
        group="\u2009",
        minus="−",
        times="·",
        list_separator=";",
        open_brackets=("(", ")"),
        closed_brackets=("⟨", "⟩"),
        fraction_styles=("slash", "colon", "fraction_slash"),
        cot="cotg",
        tan="tg",
        quotes=("„", "“"),
    ),
    Convention(
        name="italian",
        decimal=",",
        group=".",
        minus="-",
        times="×",
        list_separator=";",
        open_brackets=("]", "["),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "fraction_slash", "colon"),
        cot="cotg",
        tan="tg",
        percent=" %",
        plus_infinity="+∞",
    ),
    Convention(
        name="swedish",
        decimal=",",
        group=" ",
        minus="−",
        times="·",
        list_separator=";",
        open_brackets=("]", "["),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "stacked"),
        percent=" %",
        plus_infinity="+∞",
    ),
    Convention(
        name="indian",
        decimal=".",
        group=",",
        minus="-",
        times="×",
        list_separator=",",
        open_brackets=("(", ")"),
        closed_brackets=("[", "]"),
        fraction_styles=("by", "slash", "over"),
        indian=True,
        root_word=True,
    ),
    Convention(
        name="british",
        decimal="·",
        group=",",
        minus="−",
        times="×",
        list_separator=",",
        open_brackets=("(", ")"),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "over", "words", "obelus"),
        quotes=("‘", "’"),
    ),
    Convention(
        name="american_terse",
        decimal=".",
        group=",",
        minus="-",
        times="x",
        list_separator=",",
        open_brackets=("(", ")"),
        closed_brackets=("[", "]"),
        fraction_styles=("slash", "words", "obelus"),
        leading_zero=False,
    ),
)


@dataclass(frozen=True)
class Options:
    """One notation inside a convention: the fraction style and the optional spellings of products, pi and roots."""

    fraction: str
    explicit_times: bool = False
    pi_word: bool = False
    root_word: bool = False
    caret: bool = False
    imaginary: str = "i"


# --------------------------------------------------------------------------------------------------- numbers


def _group_digits(digits: str, convention: Convention, has_fraction: bool) -> str:
    """`digits` grouped by the convention, unless the grouping would leave a form a reader could not settle."""
    if convention.indian:
        groups = [digits[-3:]] if len(digits) > 3 else [digits]
        rest = digits[:-3] if len(digits) > 3 else ""
        while rest:
            groups.insert(0, rest[-2:])
            rest = rest[:-2]
    else:
        groups = [digits[max(0, end - 3) : end] for end in range(len(digits), 0, -3)][::-1]
    separators = len(groups) - 1
    if separators == 0:
        return digits
    if convention.group in ",." and separators < 2 and not has_fraction:
        return digits
    if convention.group in SPACES and len(digits) < 5:
        return digits
    return convention.group.join(groups)


def _format_decimal(literal: str, convention: Convention, pad_three: bool = True) -> str:
    """A decimal literal ("-12.50", ".35625", "1030") written in the convention."""
    negative = literal.startswith("-")
    whole, _, fraction = literal.lstrip("-").partition(".")
    if pad_three and len(fraction) == 3 and whole.strip("0") and convention.decimal in ",.":
        fraction += "0"
    if not whole:
        whole = "0"
    grouped = _group_digits(whole, convention, bool(fraction))
    if fraction and grouped == "0" and not convention.leading_zero:
        grouped = ""
    body = grouped + (convention.decimal + fraction if fraction else "")
    return convention.minus + body if negative else body


def _decimal_literal(value: Fraction) -> str | None:
    """The exact decimal literal of a rational, or None when its expansion does not terminate."""
    denominator = value.denominator
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator != 1:
        return None
    places = max(twos, fives)
    scaled = abs(value) * 10**places
    digits = str(scaled.numerator).rjust(places + 1, "0")
    literal = digits[: len(digits) - places] + ("." + digits[len(digits) - places :] if places else "")
    return ("-" if value < 0 else "") + literal


def _approximation_literal(value: float, significant: int) -> str:
    """`value` rounded to `significant` digits (at least one decimal, never exactly three after a nonzero whole)."""
    if abs(value) < 1:
        fraction_digits = f"{abs(value):.15f}".split(".")[1]
        places = significant + len(fraction_digits) - len(fraction_digits.lstrip("0"))
    else:
        places = max(1, significant - len(str(int(abs(value)))))
        if places == 3:
            places = 4
    return f"{value:.{places}f}"


def _fraction_words(value: Fraction, convention: Convention) -> str | None:
    numerator, denominator = abs(value.numerator), value.denominator
    if denominator == 1 or numerator > 100 or denominator > 100:
        return None
    if denominator == 2:
        name = "half" if numerator == 1 else "halves"
    elif denominator == 4 and convention.name == "british":
        name = "quarter" if numerator == 1 else "quarters"
    else:
        name = num2words(denominator, to="ordinal") + ("s" if numerator != 1 else "")
    body = f"{num2words(numerator)} {name}"
    return f"minus {body}" if value < 0 else body


# --------------------------------------------------------------------------------------------------- parsing

TOKEN = re.compile(r"\\[a-zA-Z]+|\d+(?:\.\d+)?|\.\d+|[a-zA-Z]|\S")


def _clean_latex(text: str) -> str:
    text = re.sub(r"(?<!\\)\\[!,;: ]|\\left|\\right", " ", text)
    return text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").strip()


class _Parser:
    """A recursive-descent reader of MATH-500 answer LaTeX into tuples: ("num", literal), ("var", name), ("pi",),
    ("inf",), ("sqrt", x), ("frac", a, b), ("pow", a, b), ("neg", x), ("add", ((sign, x), ...)), ("mul", (x, ...)),
    ("func", name, x), ("paren", x), and ("mixed", whole, numerator, denominator) for mixed numbers."""

    def __init__(self, text: str):
        self.tokens = TOKEN.findall(_clean_latex(text))
        self.position = 0

    def parse(self):
        node = self.sum()
        if self.position != len(self.tokens):
            raise ValueError(f"unread tokens {self.tokens[self.position :]}")
        return node

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def single(self):
        """One braced group or one character (a digit of a longer number is split off)."""
        token = self.take()
        if token == "{":
            node = self.sum()
            self.take()
            return node
        if token[0].isdigit() and len(token) > 1:
            self.tokens.insert(self.position, token[1:])
            token = token[0]
        return self.atom_of(token)

    def sum(self):
        terms = []
        sign = "+"
        if self.peek() in ("+", "-", "\\pm"):
            sign = {"+": "+", "-": "-", "\\pm": "±"}[self.take()]
        terms.append((sign, self.product()))
        while self.peek() in ("+", "-", "\\pm"):
            terms.append(({"+": "+", "-": "-", "\\pm": "±"}[self.take()], self.product()))
        if len(terms) == 1:
            return terms[0][1] if sign == "+" else ("neg", terms[0][1])
        return ("add", tuple(terms))

    def product(self):
        factors = [self.power()]
        while self.peek() is not None and self.peek() not in ("+", "-", "\\pm", ")", "}", "]", ",", "=", "&"):
            if self.peek() in ("\\cdot", "\\times"):
                self.take()
            if self.peek() == "/":
                self.take()
                factors[-1] = ("frac", factors[-1], self.power())
                continue
            factors.append(self.power())
        return factors[0] if len(factors) == 1 else ("mul", tuple(factors))

    def power(self):
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return ("pow", base, self.single())
        return base

    def atom(self):
        return self.atom_of(self.take())

    def atom_of(self, token: str):
        if token[0].isdigit() or token[0] == ".":
            return ("num", token)
        if token == "\\pi":
            return ("pi",)
        if token == "\\infty":
            return ("inf",)
        if token == "\\sqrt":
            return ("sqrt", self.single())
        if token == "\\frac":
            return ("frac", self.single(), self.single())
        if token in ("\\cot", "\\tan"):
            return ("func", token[1:], self.power())
        if token == "(":
            node = self.sum()
            self.take()
            return ("paren", node)
        if token == "{":
            node = self.sum()
            self.take()
            return node
        if token.isalpha() and len(token) == 1:
            return ("var", token)
        if token == "\\lambda":
            return ("var", "λ")
        raise ValueError(f"unexpected token {token!r}")


def _parse(text: str):
    return _Parser(text).parse()


def _symbolic(node):
    """The sympy value of a tree."""
    kind = node[0]
    if kind == "num":
        value = Fraction(node[1])
        return sympy.Rational(value.numerator, value.denominator)
    if kind == "var":
        return sympy.I if node[1] == "i" else sympy.Symbol(node[1])
    if kind == "pi":
        return sympy.pi
    if kind == "inf":
        return sympy.oo
    if kind == "sqrt":
        return sympy.sqrt(_symbolic(node[1]))
    if kind == "frac":
        return _symbolic(node[1]) / _symbolic(node[2])
    if kind == "pow":
        return _symbolic(node[1]) ** _symbolic(node[2])
    if kind == "neg":
        return -_symbolic(node[1])
    if kind == "paren":
        return _symbolic(node[1])
    if kind == "func":
        return getattr(sympy, node[1])(_symbolic(node[2]))
    if kind == "mixed":
        return sympy.Integer(node[1][1]) + sympy.Rational(int(node[2][1]), int(node[3][1]))
    if kind == "mul":
        return sympy.Mul(*[_symbolic(factor) for factor in node[1]])
    if kind == "add":
        if any(sign == "±" for sign, _ in node[1]):
            raise ValueError("± has two values")
        return sympy.Add(*[(-1 if sign == "-" else 1) * _symbolic(term) for sign, term in node[1]])
    raise ValueError(kind)


def _branches(node) -> list:
    """The values of a tree, two for every ± in it."""
    if node[0] == "add" and any(sign == "±" for sign, _ in node[1]):
        values = [sympy.Integer(0)]
        for sign, term in node[1]:
            term_value = _symbolic(term)
            if sign == "±":
                values = [v + term_value for v in values] + [v - term_value for v in values]
            else:
                values = [v + (-term_value if sign == "-" else term_value) for v in values]
        return values
    return [_symbolic(node)]


def _numeric(value) -> complex:
    """A numeric fingerprint of a sympy value; free letters are replaced by fixed distinct rationals."""
    symbols = sorted(value.free_symbols, key=str) if hasattr(value, "free_symbols") else []
    substituted = value.subs({s: sympy.Rational(13, 7) + k * sympy.Rational(5, 3) for k, s in enumerate(symbols)})
    return complex(sympy.N(substituted, 30))


# --------------------------------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Answer:
    """A MATH-500 answer as a typed value: `items` are trees, `extra` holds brackets, units, bases or words."""

    kind: str
    items: tuple = ()
    extra: dict = field(default_factory=dict, hash=False, compare=False)


def _interval_variable(problem: str) -> str:
    found = re.search(r"(?:[Ff]ind all|values of) \$\\?([a-zA-Z]+)\$", problem)
    if found:
        return {"lambda": "λ"}.get(found.group(1), found.group(1))
    return "y" if "range" in problem else "x"


def _options(problem: str) -> dict[str, str]:
    """Multiple-choice letters and their option text (empty when the option is not a plain word)."""
    options = {}
    for letter, content in re.findall(r"\(([A-H])\)\}?\\?\s*([^($]*)", problem):
        words = content.strip()
        options[letter] = words if re.fullmatch(r"[A-Za-z]+", words) else ""
    return options


def _alternative_words(word: str, problem: str) -> list[str]:
    """Other candidate words of a text answer's problem: list items, quoted words and named people."""
    text = re.sub(r"\[asy\]", " ", problem)
    candidates = re.findall(r"\"([A-Za-z]+)\"", text)
    candidates += re.findall(r"\b([A-Za-z]+),", text) + re.findall(r"\bor \"?([A-Za-z]+)", text)
    candidates += re.findall(r"\b([A-Z][a-z]+) (?:from|makes)\b", text)
    places = set(re.findall(r"\bfrom ([A-Z][a-z]+)", text))
    same_case = [
        c for c in candidates if c[0].isupper() == word[0].isupper() and c.lower() != word.lower() and c not in places
    ]
    return list(dict.fromkeys(same_case))


def parse_answer(answer: str, problem: str) -> Answer:
    """The typed value of a MATH-500 answer string."""
    kind = answer_type(answer, problem)
    text = _clean_latex(answer)
    if kind == "multiple choice":
        letter = re.search(r"[A-H]", text).group(0)
        return Answer("choice", extra={"letter": letter, "options": _options(problem)})
    if kind == "text answer":
        word = re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", text).group(1)
        return Answer("text", extra={"word": word, "others": _alternative_words(word, problem)})
    if kind == "units/degrees/money":
        if "\\circ" in text or "degrees" in text:
            number = re.sub(r"\^\s*\\circ|\\text\{\s*degrees\}", "", text)
            return Answer("degrees", (_parse(number),))
        if "\\$" in text:
            return Answer("money", (("num", text.replace("\\$", "").replace(",", "").replace(" ", "")),))
        if "cents" in text:
            return Answer("cents", (("num", re.match(r"[\d.]+", text).group(0)),))
        unit = re.search(r"\\mbox\{\s*(\w+)\}", text).group(1)
        return Answer("area", (("num", re.match(r"\d+", text).group(0)),), {"unit": unit})
    if kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", text.replace(" ", "")).groups()
        return Answer("base", (("num", digits),), {"base": int(base)})
    if kind == "matrix/vector":
        body = re.search(r"\\begin\{pmatrix\}(.*)\\end\{pmatrix\}", text, re.S).group(1)
        rows = [[_parse(entry) for entry in row.split("&")] for row in body.split("\\\\")]
        if all(len(row) == 1 for row in rows):
            return Answer("vector", tuple(row[0] for row in rows))
        return Answer("matrix", tuple(tuple(row) for row in rows))
    if kind == "interval":
        variable = None
        if text.replace(" ", "").startswith("x\\in"):
            variable, text = "x", re.sub(r"^x\s*\\in\s*", "", text)
        pieces = []
        for piece in text.split("\\cup"):
            piece = piece.strip()
            left, right = _split_top(piece[1:-1])
            pieces.append((piece[0] == "[", _parse(left), _parse(right), piece[-1] == "]"))
        return Answer("interval", tuple(pieces), {"variable": variable or _interval_variable(problem)})
    if kind in ("ordered pair", "tuple"):
        inner = text.strip()[1:-1]
        return Answer("sequence", tuple(_parse(item) for item in _split_top(inner)))
    if kind == "set/list":
        braces = text.startswith("\\{")
        inner = text[2:-2] if braces else text
        return Answer("set", tuple(_parse(item) for item in _split_top(inner)), {"braces": braces})
    if kind == "equation":
        left, right = text.split("=")
        return Answer("equation", (_parse(left), _parse(right)))
    if kind == "mixed number":
        whole, numerator, denominator = re.fullmatch(
            r"(\d+)\s*\\frac\s*\{?(\d+)\}?\s*\{?(\d+)\}?", text.replace(" ", "")
        ).groups()
        return Answer("number", (("mixed", ("num", whole), ("num", numerator), ("num", denominator)),))
    if kind in ("large integer", "negative integer"):
        return Answer("number", (_parse(text.replace(",", "").replace(" ", "")),))
    if kind == "complex number":
        return Answer("complex", (_parse(text),))
    if kind == "expression":
        return Answer("expression", (_parse(text),))
    return Answer("number", (_parse(text),))


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


def scalar_value(answer: Answer):
    """The answer's single real value (degrees in degrees, money in dollars, base-n in base ten), or None."""
    if answer.kind in ("number", "degrees", "money", "cents", "area"):
        value = _symbolic(answer.items[0])
        return value if value.free_symbols == set() else None
    if answer.kind == "base":
        return sympy.Integer(int(answer.items[0][1], answer.extra["base"]))
    return None


def entry_values(answer: Answer) -> list:
    """Every numeric value the answer is made of (its value, and each entry, endpoint or root)."""
    values = []
    scalar = scalar_value(answer)
    if scalar is not None:
        values.append(scalar)
    trees = []
    if answer.kind in ("sequence", "set", "vector", "complex", "equation"):
        trees = list(answer.items)
    elif answer.kind == "matrix":
        trees = [entry for row in answer.items for entry in row]
    elif answer.kind == "interval":
        trees = [end for piece in answer.items for end in piece[1:3]]
    for tree in trees:
        try:
            values += [v for v in _branches(tree) if not v.free_symbols and v.is_finite]
        except (ValueError, TypeError):
            continue
    if answer.kind == "complex":
        values += [sympy.re(v) for v in values] + [sympy.im(v) for v in values]
    return values


def signature(answer: Answer) -> tuple:
    """What the answer means, for telling a mutation from the answer: numeric fingerprints, brackets, words."""
    if answer.kind == "choice":
        return ("choice", answer.extra["letter"])
    if answer.kind == "text":
        return ("text", answer.extra["word"].lower())
    if answer.kind == "base":
        return ("base", int(answer.items[0][1], answer.extra["base"]))
    if answer.kind == "set":
        values = sorted({round(_numeric(v).real, 9) for item in answer.items for v in _branches(item)})
        return ("set", tuple(values))
    if answer.kind == "matrix":
        return ("matrix", tuple(_fingerprint(_symbolic(entry)) for row in answer.items for entry in row))
    if answer.kind == "interval":
        pieces = []
        for left_closed, left, right, right_closed in answer.items:
            pieces.append((left_closed, _fingerprint(_symbolic(left)), _fingerprint(_symbolic(right)), right_closed))
        return ("interval", tuple(pieces))
    if answer.kind == "equation":
        left, right = (_symbolic(side) for side in answer.items)
        return ("equation", _fingerprint(sympy.expand(left - right)))
    return (answer.kind, tuple(_fingerprint(_symbolic(item)) for item in answer.items))


def _fingerprint(value) -> tuple:
    if value in (sympy.oo, -sympy.oo):
        return (str(value),)
    number = _numeric(value)
    return (round(number.real, 9), round(number.imag, 9))


# --------------------------------------------------------------------------------------------------- rendering


def _is_atomic(node) -> bool:
    return node[0] in ("num", "var", "pi", "inf", "pow", "paren") or (node[0] == "sqrt" and _is_atomic(node[1]))


def _integer_literal(node) -> int | None:
    if node[0] == "num" and "." not in node[1]:
        return int(node[1])
    if node[0] == "neg" and node[1][0] == "num" and "." not in node[1][1]:
        return -int(node[1][1])
    return None


def _join_factors(left: str, right: str, convention: Convention, options: Options) -> str:
    if options.explicit_times or (left[-1:].isdigit() and right[:1].isdigit()):
        sign = convention.times
        return f"{left}{sign}{right}" if sign == "·" else f"{left} {sign} {right}"
    if left[-1:].isalnum() and re.match(r"[A-Za-z]{2}", right):
        return f"{left} {right}"
    return left + right


def _fraction_text(numerator: str, denominator: str, style: str) -> str:
    if style == "colon":
        return f"{numerator} : {denominator}"
    if style == "obelus":
        return f"{numerator} ÷ {denominator}"
    if style == "over":
        return f"{numerator} over {denominator}"
    if style == "by":
        return f"{numerator} by {denominator}"
    if style == "fraction_slash":
        return f"{numerator}⁄{denominator}"
    return f"{numerator}/{denominator}"


SPACED_FRACTIONS = ("colon", "obelus", "over", "by", "words")


def _render_node(node, convention: Convention, options: Options, whole: bool = True) -> str:
    """A tree written in the convention; `whole` says the node is the entire value (spaced fractions allowed)."""
    kind = node[0]
    if kind == "num":
        return _format_decimal(node[1], convention)
    if kind == "var":
        return options.imaginary if node[1] == "i" else node[1]
    if kind == "pi":
        return "pi" if options.pi_word else "π"
    if kind == "inf":
        return "∞"
    if kind == "sqrt":
        inner = _render_node(node[1], convention, options, False)
        if options.root_word:
            return f"root {inner}" if _is_atomic(node[1]) else f"root({inner})"
        return f"√{inner}" if _is_atomic(node[1]) else f"√({inner})"
    if kind == "paren":
        return f"({_render_node(node[1], convention, options, False)})"
    if kind == "func":
        name = {"cot": convention.cot, "tan": convention.tan}[node[1]]
        return f"{name} {_render_node(node[2], convention, options, False)}"
    if kind == "pow":
        base = _render_node(node[1], convention, options, False)
        exponent = _render_node(node[2], convention, options, False)
        if not _is_atomic(node[1]) or node[1][0] == "pow":
            base = f"({base})"
        if options.caret or not re.fullmatch(r"[0-9n]+", exponent):
            return f"{base}^{exponent}"
        return base + exponent.translate(SUPERSCRIPT)
    if kind == "neg":
        inner = _render_node(node[1], convention, options, whole)
        return convention.minus + (f"({inner})" if node[1][0] == "add" else inner)
    if kind == "mixed":
        whole_part, numerator, denominator = (number[1] for number in node[1:])
        remainder = Fraction(int(numerator), int(denominator))
        if options.fraction == "vulgar" and remainder in VULGAR:
            return whole_part + VULGAR[remainder]
        style = options.fraction if options.fraction in ("slash", "fraction_slash") else "slash"
        return f"{whole_part} {_fraction_text(numerator, denominator, style)}"
    if kind == "add":
        text = ""
        for position, (sign, term) in enumerate(node[1]):
            rendered = _render_node(term, convention, options, False)
            symbol = {"+": "+", "-": convention.minus, "±": "±"}[sign]
            if position == 0:
                text = rendered if sign == "+" else symbol + rendered
            else:
                text += f" {symbol} {rendered}"
        return text
    if kind == "mul":
        text = _render_node(node[1][0], convention, options, False)
        for factor in node[1][1:]:
            rendered = _render_node(factor, convention, options, False)
            if factor[0] in ("add", "neg"):
                rendered = f"({rendered})"
            text = _join_factors(text, rendered, convention, options)
        return text
    if kind == "frac":
        return _render_fraction(node, convention, options, whole)
    raise ValueError(kind)


def _render_fraction(node, convention: Convention, options: Options, whole: bool) -> str:
    numerator, denominator = _integer_literal(node[1]), _integer_literal(node[2])
    style = options.fraction if whole or options.fraction not in SPACED_FRACTIONS else "slash"
    if numerator is not None and denominator is not None and denominator > 0:
        if style == "words":
            words = _fraction_words(Fraction(numerator, denominator), convention)
            if words is not None:
                return words
            style = "slash"
        if style == "stacked":
            body = str(abs(numerator)).translate(SUPERSCRIPT) + "⁄" + str(denominator).translate(SUBSCRIPT)
            return convention.minus + body if numerator < 0 else body
    if style in ("words", "stacked"):
        style = "slash"
    top = _render_node(node[1], convention, options, False)
    bottom = _render_node(node[2], convention, options, False)
    if node[1][0] in ("add", "neg"):
        top = f"({top})"
    if node[2][0] in ("add", "mul", "neg", "frac"):
        bottom = f"({bottom})"
    return _fraction_text(top, bottom, style)


@dataclass(frozen=True)
class Slot:
    """The text written for an answer: `part` is the minimal substring that states the value."""

    before: str
    part: str
    after: str = ""

    @property
    def text(self) -> str:
        return self.before + self.part + self.after


def _rational(answer: Answer) -> Fraction | None:
    value = scalar_value(answer)
    if value is None or not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def _render_value_style(value: Fraction, style: str, convention: Convention) -> str | None:
    """A rational written by value: words, mixed number, decimal, percent, per mille, scientific, plain fraction."""
    minus = convention.minus if value < 0 else ""
    if style == "words":
        if value.denominator == 1:
            return num2words(int(value)) if abs(value) < 10**6 else None
        return _fraction_words(value, convention)
    if style in ("mixed", "mixed_vulgar"):
        if value.denominator == 1 or abs(value) < 1:
            return None
        whole, remainder = divmod(abs(value.numerator), value.denominator)
        remainder_value = Fraction(remainder, value.denominator)
        if style == "mixed_vulgar":
            return minus + str(whole) + VULGAR[remainder_value] if remainder_value in VULGAR else None
        return f"{minus}{whole} {remainder_value.numerator}/{remainder_value.denominator}"
    if style == "decimal":
        literal = _decimal_literal(value)
        return None if literal is None or value.denominator == 1 else _format_decimal(literal, convention)
    if style in ("percent", "permille"):
        scale, sign = (100, convention.percent) if style == "percent" else (1000, "\u202f‰")
        literal = _decimal_literal(value * scale)
        if not 0 < value < 1 or literal is None:
            return None
        return _format_decimal(literal, convention) + sign
    if style == "common_fraction":
        if value.denominator == 1:
            return None
        return f"{minus}{abs(value.numerator)}/{value.denominator}"
    if style == "scientific":
        literal = _decimal_literal(value)
        if literal is None or value == 0 or not abs(value) < Fraction(1, 1000):
            return None
        exponent = 0
        mantissa = abs(value)
        while mantissa < 1:
            mantissa *= 10
            exponent -= 1
        body = _format_decimal(_decimal_literal(mantissa), convention)
        power = "10" + str(exponent).translate(SUPERSCRIPT)
        sign = convention.times
        return minus + (f"{body}{sign}{power}" if sign == "·" else f"{body} {sign} {power}")
    raise ValueError(style)


VALUE_STYLES = ("words", "mixed", "mixed_vulgar", "decimal", "percent", "permille", "common_fraction", "scientific")


def _option_styles(trees, convention: Convention) -> dict[str, Options]:
    """The notations of trees that a convention can write (named), as rendering options."""
    features = {subtree[0] for tree in trees for subtree in _subtrees(tree)}
    default = Options(convention.fraction_styles[0])
    styles = {"plain": default}
    if features & {"frac", "mixed"}:
        for style in convention.fraction_styles[1:]:
            styles[f"fraction_{style}"] = replace(default, fraction=style)
    if "mixed" in features:
        styles["mixed_vulgar"] = replace(default, fraction="vulgar")
    if features & {"sqrt", "pi", "var", "paren"} and not (convention.times == "x" and "var" in features):
        styles["explicit_times"] = replace(default, explicit_times=True)
    if "sqrt" in features and convention.root_word:
        styles["root_word"] = replace(default, root_word=True)
    if "pi" in features:
        styles["pi_word"] = replace(default, pi_word=True)
    if "pow" in features:
        styles["caret"] = replace(default, caret=True)
    return styles


def _subtrees(node) -> list:
    """A tree and all the trees inside it."""
    found = [node]
    for child in node[1:]:
        if isinstance(child, tuple) and child and isinstance(child[0], str) and child[0] not in ("+", "-", "±"):
            found += _subtrees(child)
        elif isinstance(child, tuple):
            for item in child:
                if isinstance(item, tuple) and len(item) == 2 and item[0] in ("+", "-", "±"):
                    found += _subtrees(item[1])
                elif isinstance(item, tuple):
                    found += _subtrees(item)
    return found


def _styles(answer: Answer, convention: Convention) -> list[str]:
    """The style names an answer can be written in under a convention."""
    kind = answer.kind
    if kind == "choice":
        styles = ["parenthesised", "right_paren", "option", "variant"]
        if answer.extra["options"].get(answer.extra["letter"]):
            styles.append("option_text")
        return styles
    if kind == "text":
        return ["plain", "quoted", "capitals"]
    if kind == "base":
        return ["subscript", "parenthesised_subscript", "base_words", "base_ten"]
    if kind == "money":
        literal = answer.items[0][1]
        return ["after", "before", "after_cents"] + (["swiss_dash"] if "." not in literal else ["dollars_and_cents"])
    if kind == "cents":
        return ["cents_word", "cent_sign", "in_dollars"]
    if kind == "area":
        value = int(answer.items[0][1])
        if answer.extra["unit"] == "inches":
            return ["superscript_unit", "sq_unit", "unit_words"] + (["square_feet"] if value % 144 == 0 else [])
        return ["superscript_unit", "unit_words", "square_millimetres", "square_decimetres"]
    if kind == "degrees":
        value = _rational(answer)
        styles = ["degree_mark", "deg", "radians"] + [f"number_{s}" for s in _option_styles(answer.items, convention)]
        if _decimal_literal(value * Fraction(10, 9)) is not None:
            styles.append("gon")
        if value.denominator != 1:
            styles.append("mixed_degrees")
        return styles
    if kind == "complex":
        return ["i", "j"] + ([] if convention.times == "x" else ["explicit_i"])
    if kind in ("expression", "equation"):
        return list(_option_styles(answer.items, convention))
    if kind == "interval":
        return ["brackets", "inequality"] + [
            s for s in _option_styles(_interval_trees(answer), convention) if s != "plain"
        ]
    if kind == "sequence":
        return ["parentheses", "bar"] + [s for s in _option_styles(answer.items, convention) if s != "plain"]
    if kind == "set":
        styles = ["braces", "bare_list", "and_list"]
        if any(node[0] == "add" and any(sign == "±" for sign, _ in node[1]) for node in answer.items):
            styles.append("expanded")
        return styles + [s for s in _option_styles(answer.items, convention) if s != "plain"]
    if kind == "vector":
        styles = ["column", "transposed"]
        literals = [_tree_decimal(item) for item in answer.items]
        if None not in literals and any("." in literal for literal in literals):
            styles.append("decimal_entries")
        return styles + [s for s in _option_styles(answer.items, convention) if s != "plain"]
    if kind == "matrix":
        return ["rows", "nested"]
    styles = list(_option_styles(answer.items, convention))
    value = _rational(answer)
    if value is not None:
        styles += [s for s in VALUE_STYLES if _render_value_style(value, s, convention) is not None]
    return styles


def _tree_decimal(tree) -> str | None:
    """The exact decimal literal of a rational tree, or None."""
    value = _symbolic(tree)
    return _decimal_literal(Fraction(int(value.p), int(value.q))) if value.is_Rational else None


def _interval_trees(answer: Answer) -> list:
    return [end for piece in answer.items for end in piece[1:3]]


def _number_options(style: str, answer: Answer, convention: Convention) -> Options:
    return _option_styles(answer.items, convention).get(style, Options(convention.fraction_styles[0]))


def _render_interval_end(node, convention: Convention, options: Options) -> str:
    if node == ("inf",):
        return convention.plus_infinity
    if node == ("neg", ("inf",)):
        return convention.minus + "∞"
    return _render_node(node, convention, options)


def render(answer: Answer, convention: Convention, style: str) -> Slot | None:
    """The answer written in a convention and style, or None when the style does not fit this value."""
    kind = answer.kind
    separator = convention.list_separator + " "
    if kind == "choice":
        letter = answer.extra["letter"]
        if style == "parenthesised":
            return Slot("", f"({letter})")
        if style == "right_paren":
            return Slot("", letter, ")")
        if style == "option_text":
            text = answer.extra["options"].get(letter)
            return Slot("", text) if text else None
        return Slot(f"{style} ", letter)
    if kind == "text":
        word = answer.extra["word"]
        if style == "quoted":
            return Slot(convention.quotes[0], word, convention.quotes[1])
        return Slot("", word.upper() if style == "capitals" else word)
    if kind == "base":
        digits, base = answer.items[0][1], answer.extra["base"]
        if style == "subscript":
            return Slot("", digits + str(base).translate(SUBSCRIPT))
        if style == "parenthesised_subscript":
            return Slot("", f"({digits}){str(base).translate(SUBSCRIPT)}")
        if style == "base_words":
            return Slot("", digits, f" in base {num2words(base)}")
        return Slot("", _format_decimal(str(int(digits, base)), convention), " in base ten")
    if kind == "money":
        literal = answer.items[0][1]
        if style == "after":
            return Slot("", _format_decimal(literal, convention), " $")
        if style == "after_cents":
            cents = literal if "." in literal else literal + ".00"
            return Slot("", _format_decimal(cents, convention), " $")
        if style == "before":
            return Slot(convention.currency_before, _format_decimal(literal, convention))
        if style == "swiss_dash":
            return Slot("", _format_decimal(literal, convention) + convention.decimal + "–", " $")
        dollars, cents = literal.split(".")
        return Slot("", f"{_format_decimal(dollars, convention)} dollars and {int(cents)} cents")
    if kind == "cents":
        literal = answer.items[0][1]
        if style == "cents_word":
            return Slot("", _format_decimal(literal, convention), " cents")
        if style == "cent_sign":
            return Slot("", _format_decimal(literal, convention), " ¢")
        dollars = _decimal_literal(Fraction(literal) / 100)
        return Slot("", _format_decimal(dollars, convention, pad_three=False) + " $")
    if kind == "area":
        value = Fraction(answer.items[0][1])
        number = _format_decimal(answer.items[0][1], convention)
        unit = {"inches": "in", "cm": "cm"}[answer.extra["unit"]]
        if style == "superscript_unit":
            return Slot("", number, f" {unit}²")
        if style == "sq_unit":
            return Slot("", number, f" sq {unit}")
        if style == "unit_words":
            return Slot("", number, " square inches" if unit == "in" else " square centimetres")
        converted = {"square_feet": (value / 144, "ft²"), "square_millimetres": (value * 100, "mm²")}.get(
            style, (value / 100, "dm²")
        )
        literal = _decimal_literal(converted[0])
        return Slot("", f"{_format_decimal(literal, convention)} {converted[1]}") if literal else None
    if kind == "degrees":
        value = _rational(answer)
        if style == "gon":
            literal = _decimal_literal(value * Fraction(10, 9))
            return Slot("", f"{_format_decimal(literal, convention)} gon") if literal else None
        if style == "radians":
            turn = value / 180
            top = "π" if turn.numerator == 1 else f"{turn.numerator}π"
            body = top if turn.denominator == 1 else f"{top}/{turn.denominator}"
            return Slot("", f"{body} rad")
        if style == "mixed_degrees":
            mixed = _render_value_style(value, "mixed", convention)
            return Slot("", mixed, convention.degree) if mixed else None
        options = _number_options(style.removeprefix("number_"), answer, convention)
        number = _render_node(answer.items[0], convention, options)
        unit = {"deg": " deg", "degree_mark": "°"}.get(style, convention.degree)
        return Slot("", number, unit)
    if kind == "complex":
        options = Options(convention.fraction_styles[0], explicit_times=style == "explicit_i")
        options = replace(options, imaginary="j" if style == "j" else "i")
        return Slot("", _render_node(answer.items[0], convention, options))
    if kind in ("expression", "equation"):
        options = _number_options(style, answer, convention)
        sides = [_render_node(item, convention, options) for item in answer.items]
        return Slot("", " = ".join(sides))
    if kind == "interval":
        options = _option_styles(_interval_trees(answer), convention).get(style, Options("slash"))
        if style == "inequality":
            return Slot("", _inequality(answer, convention, options))
        pieces = []
        for left_closed, left, right, right_closed in answer.items:
            opening = convention.closed_brackets[0] if left_closed else convention.open_brackets[0]
            closing = convention.closed_brackets[1] if right_closed else convention.open_brackets[1]
            left_text = _render_interval_end(left, convention, options)
            right_text = _render_interval_end(right, convention, options)
            pieces.append(f"{opening}{left_text}{separator}{right_text}{closing}")
        return Slot("", " ∪ ".join(pieces))
    if kind == "sequence":
        options = _option_styles(answer.items, convention).get(style, Options("slash"))
        items = [_render_node(item, convention, options) for item in answer.items]
        joiner = " | " if style == "bar" else separator
        return Slot("", "(" + joiner.join(items) + ")")
    if kind == "set":
        options = _option_styles(answer.items, convention).get(style, Options("slash"))
        if style == "expanded":
            items = []
            for item in answer.items:
                if item[0] == "add" and any(sign == "±" for sign, _ in item[1]):
                    for sign in ("-", "+"):
                        terms = tuple((sign if s == "±" else s, t) for s, t in item[1])
                        items.append(_render_node(("add", terms), convention, options))
                else:
                    items.append(_render_node(item, convention, options))
        else:
            items = [_render_node(item, convention, options) for item in answer.items]
        if style == "and_list" and len(items) > 1:
            return Slot("", separator.join(items[:-1]) + " and " + items[-1])
        if style in ("braces", "expanded") or answer.extra["braces"]:
            return Slot("", "{" + separator.join(items) + "}")
        return Slot("", separator.join(items))
    if kind == "vector":
        options = _option_styles(answer.items, convention).get(style, Options("slash"))
        if style == "decimal_entries":
            literals = [_tree_decimal(item) for item in answer.items]
            if None in literals:
                return None
            items = [_format_decimal(literal, convention) for literal in literals]
        else:
            if style == "transposed" or options.fraction in SPACED_FRACTIONS:
                options = replace(options, fraction="slash")
            items = [_render_node(item, convention, options) for item in answer.items]
        if style == "transposed":
            return Slot("", "(" + "  ".join(items) + ")ᵀ")
        return Slot("", "(" + separator.join(items) + ")")
    if kind == "matrix":
        rows = [[_render_node(entry, convention, Options("slash")) for entry in row] for row in answer.items]
        if style == "rows":
            return Slot("", "(" + "; ".join("  ".join(row) for row in rows) + ")")
        return Slot("", "(" + separator.join("(" + separator.join(row) + ")" for row in rows) + ")")
    value = _rational(answer)
    if style in VALUE_STYLES:
        text = _render_value_style(value, style, convention) if value is not None else None
        return Slot("", text) if text else None
    options = _number_options(style, answer, convention)
    return Slot("", _render_node(answer.items[0], convention, options))


def _inequality(answer: Answer, convention: Convention, options: Options) -> str:
    variable = answer.extra["variable"]
    pieces = []
    for left_closed, left, right, right_closed in answer.items:
        low = None if left == ("neg", ("inf",)) else _render_node(left, convention, options)
        high = None if right == ("inf",) else _render_node(right, convention, options)
        lower = "≤" if left_closed else "<"
        upper = "≤" if right_closed else "<"
        if low is None:
            pieces.append(f"{variable} {upper} {high}")
        elif high is None:
            pieces.append(f"{variable} {'≥' if left_closed else '>'} {low}")
        else:
            pieces.append(f"{low} {lower} {variable} {upper} {high}")
    return " or ".join(pieces)


def approximation(answer: Answer, convention: Convention, significant: int) -> str | None:
    """A decimal approximation of an irrational or non-terminating scalar answer, or None."""
    value = scalar_value(answer)
    if value is None or answer.kind not in ("number", "degrees"):
        return None
    if value.is_Rational and _decimal_literal(Fraction(int(value.p), int(value.q))) is not None:
        return None
    if not value.is_real:
        return None
    return _format_decimal(_approximation_literal(float(value), significant), convention, pad_three=False)


def approximable(answer: Answer) -> bool:
    return approximation(answer, CONVENTIONS[0], 4) is not None


# --------------------------------------------------------------------------------------------------- mutations


def _number_paths(node, path=()) -> list[tuple]:
    """Paths (index tuples) to every "num" leaf of a tree."""
    if not isinstance(node, tuple):
        return []
    if node and node[0] == "num":
        return [path]
    paths = []
    for position, child in enumerate(node):
        if isinstance(child, tuple):
            paths += _number_paths(child, (*path, position))
    return paths


def _replace_at(node, path: tuple, new):
    if not path:
        return new
    head, *rest = path
    return tuple(_replace_at(child, tuple(rest), new) if i == head else child for i, child in enumerate(node))


def _get_at(node, path: tuple):
    for position in path:
        node = node[position]
    return node


def _mutate_literal(literal: str, how: str) -> str | None:
    value = Fraction(literal)
    places = len(literal.partition(".")[2])
    changed = {
        "plus_one": value + Fraction(1, 10**places) if places else value + 1,
        "minus_one": value - Fraction(1, 10**places) if places else value - 1,
        "doubled": value * 2,
        "tenfold": value * 10,
    }[how]
    if changed <= 0 and value > 0:
        return None
    if not places:
        return str(changed.numerator) if changed.denominator == 1 else None
    return f"{float(changed):.{places}f}".lstrip("0") if literal.startswith(".") else f"{float(changed):.{places}f}"


NUMBER_MUTATIONS = ("plus_one", "minus_one", "doubled", "tenfold")


def _flip_sign(tree, rng: random.Random):
    """The tree with one sign changed: a leading minus dropped or added, or one term's sign of a sum flipped."""
    if tree[0] == "neg":
        return tree[1]
    if tree[0] == "add":
        terms = list(tree[1])
        position = rng.randrange(len(terms))
        sign, term = terms[position]
        terms[position] = ({"+": "-", "-": "+", "±": "±"}[sign], term)
        return ("add", tuple(terms))
    return ("neg", tree)


def _swap_function(tree):
    """The tree with cot and tan exchanged."""
    if tree[0] == "func":
        return ("func", {"cot": "tan", "tan": "cot"}[tree[1]], tree[2])
    return tuple(_swap_function(child) if isinstance(child, tuple) and child else child for child in tree)


def mutate(answer: Answer, rng: random.Random) -> tuple[Answer, str] | None:
    """A wrong value of the answer's own shape and how it was derived, or None if this draw failed."""
    kind = answer.kind
    if kind == "choice":
        others = sorted(set(answer.extra["options"]) - {answer.extra["letter"]}) or ["A", "D"]
        extra = dict(answer.extra, letter=rng.choice(others))
        return Answer(kind, (), extra), "other_option"
    if kind == "text":
        if not answer.extra["others"]:
            return None
        return Answer(kind, (), dict(answer.extra, word=rng.choice(answer.extra["others"]))), "other_word"
    if kind == "base":
        digits, base = answer.items[0][1], answer.extra["base"]
        position = rng.randrange(len(digits))
        digit = (int(digits[position]) + rng.choice((1, base - 1))) % base
        if position == 0 and digit == 0:
            return None
        changed = digits[:position] + str(digit) + digits[position + 1 :]
        return Answer(kind, (("num", changed),), answer.extra), "digit_changed"
    choices = ["number"] * 4
    if kind in ("number", "complex", "expression", "equation", "sequence", "set", "vector", "degrees"):
        choices.append("sign_flipped")
    if kind == "interval":
        choices.append("bracket_flipped")
    if kind in ("sequence", "vector") and len(answer.items) > 1:
        choices.append("swapped")
    items = list(answer.items)
    if any(subtree[0] == "func" for item in items for subtree in _subtrees(item)):
        choices.append("function_swapped")
    if kind in ("number", "expression") and not _number_paths(tuple(items)):
        choices += ["doubled_whole", "halved_whole"]
    how = rng.choice(choices)
    if how == "function_swapped":
        return Answer(kind, tuple(_swap_function(item) for item in items), answer.extra), how
    if how == "doubled_whole":
        return Answer(kind, (("mul", (("num", "2"), items[0])),), answer.extra), how
    if how == "halved_whole":
        return Answer(kind, (("frac", items[0], ("num", "2")),), answer.extra), how
    if how == "swapped":
        first, second = rng.sample(range(len(items)), 2)
        items[first], items[second] = items[second], items[first]
        return Answer(kind, tuple(items), answer.extra), "swapped"
    if how == "bracket_flipped":
        position = rng.randrange(len(items))
        left_closed, left, right, right_closed = items[position]
        if rng.random() < 0.5 and left != ("neg", ("inf",)):
            items[position] = (not left_closed, left, right, right_closed)
        elif right != ("inf",):
            items[position] = (left_closed, left, right, not right_closed)
        else:
            return None
        return Answer(kind, tuple(items), answer.extra), "bracket_flipped"
    if how == "sign_flipped":
        position = rng.randrange(len(items))
        items[position] = _flip_sign(items[position], rng)
        return Answer(kind, tuple(items), answer.extra), "sign_flipped"
    paths = _number_paths(tuple(items))
    if not paths:
        return None
    path = rng.choice(paths)
    how = rng.choice(NUMBER_MUTATIONS)
    literal = _get_at(tuple(items), path)[1]
    changed = _mutate_literal(literal, how)
    if changed is None:
        return None
    return Answer(kind, _replace_at(tuple(items), path, ("num", changed)), answer.extra), how


def _valid(answer: Answer) -> bool:
    """Whether a mutated value still has its shape: increasing intervals, proper mixed numbers, finite values."""
    try:
        if answer.kind == "interval":
            for _, left, right, _ in answer.items:
                low, high = _symbolic(left), _symbolic(right)
                if not bool(low < high):
                    return False
        for tree in _all_trees(answer):
            if tree[0] == "mixed" and int(tree[2][1]) >= int(tree[3][1]):
                return False
            if any(sub[0] == "frac" and _integer_literal(sub[2]) in (0, 1) for sub in _subtrees(tree)):
                return False
        signature(answer)
    except (ValueError, TypeError, ZeroDivisionError):
        return False
    return True


def _all_trees(answer: Answer) -> list:
    if answer.kind == "interval":
        return _interval_trees(answer)
    if answer.kind == "matrix":
        return [entry for row in answer.items for entry in row]
    return list(answer.items)


# --------------------------------------------------------------------------------------------------- the checker


def _all_renderings(answer: Answer) -> set[str]:
    texts = set()
    for convention in CONVENTIONS:
        for style in _styles(answer, convention):
            slot = render(answer, convention, style)
            if slot is not None:
                texts.add(slot.text.strip())
    return texts


NUMBER_TOKEN = re.compile(r"(?<![\w.])([−–-]?)(\d+(?:(?:[.,·']|[ \u2009\u202f\u00a0])\d+)*)")
FRACTION_GAP = re.compile(r"\s*(?:/|⁄|:|÷|over|by)\s*$")


def _token_readings(token: str) -> tuple[set[Fraction], list[set[Fraction]]]:
    """Every value a run of digits and separators can be read as, under any convention; and the readings of its
    space-separated pieces (for a fraction or mixed number next to it)."""
    pieces = re.split(f"[{SPACES}]", token)
    readings: set[Fraction] = set()
    piece_readings = []
    for start in range(len(pieces)):
        for end in range(start + 1, len(pieces) + 1):
            joined = "".join(pieces[start:end])
            values = _separator_readings(joined)
            readings |= values
            if end == start + 1:
                piece_readings.append(values)
    return readings, piece_readings


def _separator_readings(text: str) -> set[Fraction]:
    values = {Fraction(int(chunk)) for chunk in re.split(r"[.,·']", text)}
    values.add(Fraction(int(re.sub(r"[.,·']", "", text))))
    separators = [m.start() for m in re.finditer(r"[.,·']", text)]
    if separators:
        last = separators[-1]
        whole = re.sub(r"[.,·']", "", text[:last])
        values.add(Fraction(f"{whole or '0'}.{text[last + 1 :]}"))
        first = separators[0]
        values.add(Fraction(text[:first] + "." + re.sub(r"[.,·']", "", text[first + 1 :])))
    return values


def _text_values(text: str) -> list[tuple[Fraction, int]]:
    """Every (value, decimal places) a reader of any convention could take a number in the text for."""
    found: list[tuple[Fraction, int]] = []
    matches = list(NUMBER_TOKEN.finditer(text))
    all_readings = []
    for match in matches:
        readings, pieces = _token_readings(match.group(2))
        places = len(re.split(r"[.,·']", match.group(2))[-1]) if re.search(r"[.,·']", match.group(2)) else 0
        signed = readings | ({-r for r in readings} if match.group(1) else set())
        after = text[match.end() :]
        if re.match(r"[\s\u202f]*%", after):
            signed |= {r / 100 for r in signed}
        if re.match(r"[\s\u202f]*‰", after):
            signed |= {r / 1000 for r in signed}
        vulgar = VULGAR.get(_vulgar_after(after))
        if vulgar is not None:
            signed |= {r + vulgar for r in readings} | {-(r + vulgar) for r in readings}
        found += [(value, places) for value in signed]
        all_readings.append((match, readings, pieces))
    for (first, _, first_pieces), (second, _, second_pieces) in zip(all_readings, all_readings[1:]):
        if not FRACTION_GAP.match(text[first.end() : second.start()]):
            continue
        numerators = first_pieces[-1]
        for numerator in numerators:
            for denominator in second_pieces[0]:
                if denominator == 0:
                    continue
                ratio = numerator / denominator
                found += [(ratio, 0), (-ratio, 0)]
                if len(first_pieces) > 1:
                    found += [(whole + ratio, 0) for whole in first_pieces[-2]]
                    found += [(-(whole + ratio), 0) for whole in first_pieces[-2]]
    for char in re.findall("|".join(VULGAR.values()), text):
        value = next(v for v, c in VULGAR.items() if c == char)
        found += [(value, 0), (-value, 0)]
    for top, bottom in re.findall(r"([⁰¹²³⁴⁵⁶⁷⁸⁹]+)⁄([₀₁₂₃₄₅₆₇₈₉]+)", text):
        value = Fraction(int(top.translate(UNSUPERSCRIPT)), int(bottom.translate(UNSUBSCRIPT)))
        found += [(value, 0), (-value, 0)]
    return found


def _vulgar_after(text: str) -> str:
    return text[:1] if text[:1] in VULGAR.values() else ""


def _close(value, reading: Fraction, places: int) -> bool:
    """Whether a decimal reading with `places` decimals and 3 or more significant digits approximates `value`."""
    digits = len(str(abs(reading.numerator * 10**places // reading.denominator)).lstrip("0"))
    if places == 0 or digits < 3:
        return False
    return abs(float(value) - float(reading)) <= 10 ** (-places) * 1.0000001


@functools.cache
def _checker_data(answer_latex: str, problem: str) -> tuple[Answer, frozenset[str]]:
    answer = parse_answer(answer_latex, problem)
    return answer, frozenset(_all_renderings(answer))


def holds_answer(text: str, answer_latex: str, problem: str) -> bool:
    """This corpus's checker: does `text` state the answer in any convention or notation this corpus writes, or
    hold a number equal to its exact value (or a decimal approximating an irrational or non-terminating value)?"""
    answer, renderings = _checker_data(answer_latex, problem)
    for rendering in renderings:
        if rendering in text and occurrences(rendering, text):
            return True
    if answer.kind == "text" and re.search(rf"\b{re.escape(answer.extra['word'])}\b", text, re.I):
        return True
    if answer.kind == "choice" and re.search(rf"(?<![\w]){answer.extra['letter']}(?![\w])", text):
        return True
    value = scalar_value(answer)
    if value is None:
        return False
    exact = Fraction(int(value.p), int(value.q)) if value.is_Rational else None
    terminating = exact is not None and _decimal_literal(exact) is not None
    for reading, places in _text_values(text):
        if exact is not None and reading == exact:
            return True
        if not terminating and _close(value, reading, places):
            return True
    return False


# --------------------------------------------------------------------------------------------------- frames

FRAMES = (
    (
        "verdict",
        "The final answer {wrong} is not correct. With the given {given} you must arrive at {answer}.",
        "The final answer {wrong} is not correct. With the given {given} you must arrive at a different value.",
    ),
    (
        "step_check",
        "Your calculation is fine until {mid}, after that it goes wrong. The result should be {answer}, not {wrong}.",
        "Your calculation is fine until {mid}, after that it goes wrong. The result is not {wrong}, redo from there.",
    ),
    (
        "red_ink",
        "Wrong: {wrong}. Correct: {answer}. (Minus one point for the step where you use {given}.)",
        "Wrong: {wrong}. Correct: see the model solution. (Minus one point for the step where you use {given}.)",
    ),
    (
        "answer_key",
        "I compared with the official key. The key says {answer}, the attempt says {wrong}. "
        "The difference comes from how you used {given}.",
        "I compared with the official key. The key does not agree with the attempt's {wrong}. "
        "The difference comes from how you used {given}.",
    ),
    (
        "walkthrough",
        "Let me go through it. The problem gives {given}. In the middle you correctly found {mid}. "
        "But the last step has an error and you wrote {wrong}. Properly done it gives {answer}. "
        "Please be careful with the signs.",
        "Let me go through it. The problem gives {given}. In the middle you correctly found {mid}. "
        "But the last step has an error and you wrote {wrong}. Properly done it gives another value. "
        "Please be careful with the signs.",
    ),
    (
        "terse",
        "Answer {wrong} → wrong, must be {answer}.",
        "Answer {wrong} → wrong, must be recomputed.",
    ),
    (
        "notation_note",
        "Don't mind my notation, I write numbers like at home. Your {wrong} is off in value, not in notation: "
        "the correct one is {answer}. The intermediate {mid} was right.",
        "Don't mind my notation, I write numbers like at home. Your {wrong} is off in value, not in notation. "
        "The intermediate {mid} was right, the mistake is after it.",
    ),
    (
        "hint_then_reveal",
        "Check again how {mid} follows from {given}. If you do it carefully you get {answer} and not {wrong}.",
        "Check again how {mid} follows from {given}. If you do it carefully you do not get {wrong}.",
    ),
)

APPROXIMATION_PREFIXES = ("≈ ", "about ", "approximately ", "roughly ", "~")


# --------------------------------------------------------------------------------------------------- quantities


def _problem_numbers(text: str) -> list[Fraction]:
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", text, flags=re.S)
    numbers = []
    for literal in re.findall(r"(?<![\w.^_{\\])\d+(?:\.\d+)?(?![\w_]|\.\d)", text):
        if len(literal) <= 12:
            numbers.append(Fraction(literal))
    return list(dict.fromkeys(numbers))


def _solution_values(solution: str) -> list[Fraction]:
    boxed = solution.find("\\boxed")
    text = solution[:boxed] if boxed >= 0 else solution
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", text, flags=re.S)
    values = [Fraction(int(a), int(b)) for a, b in re.findall(r"\\d?frac\{(\d+)\}\{(\d+)\}", text) if int(b)]
    values += _problem_numbers(re.sub(r"\\d?frac\{\d+\}\{\d+\}", " ", text))
    return list(dict.fromkeys(values))


def _pick_mid(mids: list[Fraction], rng: random.Random) -> Fraction | None:
    """An intermediate value of the solution, preferring those a convention changes (fractions, decimals, groups)."""
    if not mids:
        return None
    telling = [v for v in mids if v.denominator != 1 or v >= 10000]
    return rng.choice(telling if telling and rng.random() < 0.7 else mids)


def _quantity_text(value: Fraction, convention: Convention, fraction_style: str) -> str:
    if value.denominator == 1:
        return _format_decimal(str(value.numerator), convention)
    literal = _decimal_literal(value)
    if literal is not None and len(literal) <= 8:
        return _format_decimal(literal, convention)
    style = fraction_style if fraction_style in ("slash", "fraction_slash", "colon", "over", "by") else "slash"
    return _fraction_text(str(value.numerator), str(value.denominator), style)


# --------------------------------------------------------------------------------------------------- the corpus


@dataclass
class _Problem:
    index: int
    row: dict
    answer: Answer
    kind: str
    givens: list[Fraction]
    mids: list[Fraction]


def _prepare(index: int, row: dict) -> _Problem:
    answer = parse_answer(row["answer"], row["problem"])
    excluded = [_fingerprint(v) for v in entry_values(answer)]

    def allowed(value: Fraction) -> bool:
        return _fingerprint(sympy.Rational(value.numerator, value.denominator)) not in excluded

    givens = [v for v in _problem_numbers(row["problem"]) if allowed(v)]
    mids = [v for v in _solution_values(row["solution"]) if allowed(v) and v not in givens]
    return _Problem(index, row, answer, answer_type(row["answer"], row["problem"]), givens, mids)


def _wrong_slot(problem: _Problem, convention: Convention, style: str, rng: random.Random):
    """A wrong value of the answer's shape, written in the same convention and style, and how it was derived."""
    target = signature(problem.answer)
    for _ in range(DRAWS):
        mutated = mutate(problem.answer, rng)
        if mutated is None or not _valid(mutated[0]) or signature(mutated[0]) == target:
            continue
        slot = render(mutated[0], convention, style)
        if slot is not None and not holds_answer(slot.text, problem.row["answer"], problem.row["problem"]):
            return slot, mutated[1]
    return None


def _fill(template: str, slots: dict[str, str], answer_slot: Slot | None):
    """The critique text, its context (the answer's own slot as `\\ldots`) and the answer part."""
    marker = "\x00ANSWER\x00"
    text = template.format(**slots, answer=marker)
    if answer_slot is None:
        return text, text
    before, after = text.split(marker)
    full = before + answer_slot.text + after
    context = before + answer_slot.before + "\\ldots" + answer_slot.after + after
    return full, context


def _draw_case(problem: _Problem, family: str, convention: Convention, style: str, rng: random.Random):
    wrong = _wrong_slot(problem, convention, style, rng)
    if wrong is None:
        return None
    wrong_slot, wrong_how = wrong
    fraction_style = convention.fraction_styles[0]
    givens = rng.sample(problem.givens, min(2, len(problem.givens)))
    mid = _pick_mid(problem.mids, rng)
    slots = {
        "wrong": wrong_slot.text.strip(),
        "given": " and ".join(_quantity_text(v, convention, fraction_style) for v in givens),
        "mid": "" if mid is None else _quantity_text(mid, convention, fraction_style),
    }
    frames = [frame for frame in FRAMES if all(slots[name] for name in ("given", "mid") if name in "".join(frame))]
    frame_id, leak_template, clean_template = rng.choice(frames)
    if family == "clean":
        answer_slot = None
        template = clean_template
    elif family == "approximation":
        significant = rng.choice((3, 4, 5, 6))
        number = approximation(problem.answer, convention, significant)
        suffix = convention.degree if problem.answer.kind == "degrees" else ""
        answer_slot = Slot(rng.choice(APPROXIMATION_PREFIXES), number, suffix)
        template = leak_template
    else:
        answer_slot = render(problem.answer, convention, style)
        template = leak_template
    text, context = _fill(template, slots, answer_slot)
    row = problem.row
    if family == "clean" and holds_answer(text, row["answer"], row["problem"]):
        return None
    if family != "clean" and (
        not occurrences(answer_slot.part, text) or not holds_answer(text, row["answer"], row["problem"])
    ):
        return None
    return {
        "family": family,
        "split": "held_out",
        "index": problem.index,
        "answer_type": problem.kind,
        "style": f"{convention.name}/{'approximation' if family == 'approximation' else style}",
        "frame": frame_id,
        "text": text,
        "leak": family != "clean",
        "written_out": family == "rendering",
        "parts": [] if answer_slot is None else [answer_slot.part],
        "context": context,
        "wrong": slots["wrong"],
        "wrong_how": wrong_how,
    }


def _combinations(problem: _Problem, rng: random.Random) -> list[tuple[Convention, str]]:
    pairs = [(c, s) for c in CONVENTIONS for s in _styles(problem.answer, c) if render(problem.answer, c, s)]
    rng.shuffle(pairs)
    return pairs


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The held-out `twentysecond` cases for MATH-500's rows: per problem 7 renderings and 7 clean critiques (4 and 4
    when the conventions write the answer in at most 3 ways, as for a small integer), and for an irrational or
    non-terminating scalar answer 3 approximations and 3 more clean critiques."""
    cases = []
    for index, row in enumerate(problems):
        rng = random.Random(f"twentysecond:{seed}:{index}")
        problem = _prepare(index, row)
        combinations = _combinations(problem, rng)
        notations = len(_checker_data(row["answer"], row["problem"])[1])
        per_family = CASES_PER_FAMILY if notations > FEW_NOTATIONS else CASES_PER_FAMILY_FEW_NOTATIONS
        plan = ["rendering"] * per_family + ["clean"] * per_family
        if approximable(problem.answer):
            plan += ["approximation"] * APPROXIMATIONS_PER_PROBLEM + ["clean"] * EXTRA_CLEANS_FOR_APPROXIMABLE
        for position, family in enumerate(plan):
            for attempt in range(DRAWS):
                convention, style = combinations[(position + attempt * 7) % len(combinations)]
                case = _draw_case(problem, family, convention, style, rng)
                if case is not None:
                    cases.append(case)
                    break
    return cases
