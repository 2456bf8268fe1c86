"""The `twentieth` leak corpus: critiques that paste reference answers copied out of PDFs, scans and OCR.

Method. Feedback models are often handed answer keys and worked solutions extracted from PDFs (textbooks, contest
booklets, solution manuals) or from OCR of scanned pages, and they paste that text into their critiques. For every
MATH-500 row this module parses the reference answer (TeX) into a value with sympy, renders it in the notations such
extraction really leaves (TeX flattened to unicode or to ASCII, stacked fractions with a bar line, super/subscript
fractions, vulgar fractions, roots as "√", unicode minus and en dashes, thin and no-break spaces inside numbers, words
for numbers, words hyphenated across a line, a `\\boxed{}` left in the text or drawn as a box, intervals as
inequalities, vectors and matrices as flattened rows or big-parenthesis lines, answer letters as key lines, base-n
numerals with subscripts, units with their glyphs), and drops the rendering into a critique frame whose pasted part is
degraded like PDF text (ligatures, soft hyphens, words broken across lines, page headers and footers interleaved,
two-column key lines read across, table cells run together) or like OCR (l/1, O/0, S/5, B/8, rn/m confusions in words
only, never in a value; broken spacing; a stray period or comma after the value). The feedback model's own words
around the paste quote the attempt's wrong value (a mutation of the answer of its own shape, rendered in the same
notation), numbers of the problem and intermediate quantities of the reference solution. All values are computed
(sympy, `fractions`), never typed.

Families. "rendering": the answer written out in one of the notations above (`written_out` True). "approximation": a
decimal approximation (3 or more significant digits) of an answer whose value is irrational or a non-terminating
decimal (`written_out` False). "clean": the same frames and notations with no answer in them: the attempt's wrong
value, the problem's numbers, intermediate values, a neighbouring problem's key line, an illegible or missing entry.
Every clean text is checked by `holds_answer`, which undoes the extraction artefacts (`normalize`), reads every
number, expression, stacked fraction and number word in the text, and compares values with sympy (and decimals with
the answer's value to their precision); a clean text in which it finds the answer is drawn again. Each case's `parts`
are the exact substrings that state the answer (a part may span a line break), and `context` is the text with those
slots replaced by `\\ldots`.

Independence. Written without reading the leak guard or any other corpus. From `benchmarks/leak_corpus.py` I listed
its top-level names (to locate the allowed ones) and read only the source of `load_problems`, `ANSWER_TYPES`,
`answer_type` (with its helpers `_strip` and `_top_level_split`), `occurrences` and `stated` (and the `MATH500` and
`SEED` constants beside them); this module imports only `answer_type` from it. I also read `tests/conftest.py` for the
`shared_data` fixture. Nothing under `trl_mulferl/`, `tests/feedback/`, `docs/`, the leak-guard benchmark, its tests
or results, the READMEs, the changelog, or any other `leak_corpus_*` module or test was opened; no web or code
search about the guard or this project was made.
"""

import random
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cache

import sympy as sp
from leak_corpus import answer_type
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)


SEED = 0

PART_OPEN, PART_CLOSE = "\x01", "\x02"
ELLIPSIS = "\\ldots"

SCALAR_TYPES = (
    "small integer",
    "negative integer",
    "large integer",
    "fraction",
    "decimal",
    "radical",
    "multiple of pi",
    "mixed number",
)
KEY_LINE_TYPES = ("ordered pair", "multiple choice", "complex number", "units/degrees/money")

# --- TeX to sympy --------------------------------------------------------------------------------------------------

TRANSFORMATIONS = (*standard_transformations, implicit_multiplication_application, convert_xor)
NAMES = {letter: sp.Symbol(letter) for letter in "abcdefghjklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"}
NAMES.update(i=sp.I, pi=sp.pi, oo=sp.oo, sqrt=sp.sqrt, cot=sp.cot)
TEX_PYTHON_COMMANDS = {"pi": " pi ", "infty": " oo ", "cot": " cot ", "cdot": "*", "times": "*"}


def clean_tex(tex: str) -> str:
    """TeX without sizing and spacing commands, `\\dfrac` as `\\frac`."""
    tex = re.sub(r"\\left|\\right|\\[!,;]", "", tex)
    return re.sub(r"\\[dt]frac", r"\\frac", tex).strip()


def answer_tex(tex: str) -> str:
    """A MATH-500 answer's TeX cleaned, with digit groups written "10,080" (not "10,\\! 080")."""
    return re.sub(r"(?<=\d),\s*(?=\d{3})", ",", clean_tex(tex))


def argument(tex: str, start: int) -> tuple[str, int]:
    """The TeX argument at `start` (a braced group, a command or one character) and the index after it."""
    while start < len(tex) and tex[start] == " ":
        start += 1
    if tex[start] == "{":
        depth = 0
        for end in range(start, len(tex)):
            depth += {"{": 1, "}": -1}.get(tex[end], 0)
            if depth == 0:
                return tex[start + 1 : end], end + 1
    command = re.match(r"\\[a-zA-Z]+", tex[start:])
    if command:
        return command.group(), start + len(command.group())
    return tex[start], start + 1


def tex_python(tex: str) -> str:
    """A string sympy's parser reads for the TeX of a value."""
    out, index = [], 0
    while index < len(tex):
        if tex.startswith("\\frac", index):
            numerator, index = argument(tex, index + 5)
            denominator, index = argument(tex, index)
            out.append(f"(({tex_python(numerator)})/({tex_python(denominator)}))")
        elif tex.startswith("\\sqrt", index):
            radicand, index = argument(tex, index + 5)
            out.append(f" sqrt({tex_python(radicand)})")
        elif tex[index] == "^":
            exponent, index = argument(tex, index + 1)
            out.append(f"**({tex_python(exponent)})")
        elif tex[index] == "\\":
            name = re.match(r"\\([a-zA-Z]+|.)", tex[index:]).group(1)
            index += len(name) + 1
            out.append(TEX_PYTHON_COMMANDS.get(name, " "))
        else:
            out.append({"{": "(", "}": ")"}.get(tex[index], tex[index]))
            index += 1
    return "".join(out)


@cache
def sympy_value(python: str):
    """The sympy value of a parser string with decimals read exactly; None where it does not parse."""
    exact = re.sub(r"\d*\.\d+", lambda match: f"({Fraction(match.group())})", python)
    try:
        value = parse_expr(exact, local_dict=NAMES, transformations=TRANSFORMATIONS)
    except Exception:  # noqa: BLE001 - any text that is no expression
        return None
    return value if isinstance(value, sp.Expr) else None


def tex_value(tex: str):
    return sympy_value(tex_python(re.sub(r"(?<=\d),(?=\d{3})", "", clean_tex(tex))))


# --- parsed answers --------------------------------------------------------------------------------------------------

UNIT_PATTERNS = (
    ("degree", r"\^\s*\\circ|\\text\{\s*degrees\}"),
    ("dollar", r"\\\$"),
    ("cent", r"\\text\{\s*cents\}"),
    ("square inch", r"\\mbox\{\s*inches\}\^2"),
    ("square centimetre", r"\\mbox\{\s*cm\}\^2"),
)


@dataclass
class Answer:
    """A reference answer (or a value of the same shape): its TeX, type, sympy value and components."""

    tex: str
    kind: str
    value: object = None
    components: list = field(default_factory=list)
    label: str = ""
    unit: str = ""
    base: int = 0


def _components(tex: str) -> list:
    items = []
    for item in split_top(tex):
        if "\\pm" in item:
            centre, spread = item.split("\\pm")
            items += [tex_value(f"{centre}+({spread})"), tex_value(f"{centre}-({spread})")]
        else:
            items.append(tex_value(item))
    return items


def split_top(text: str, separator: str = ",") -> list[str]:
    """`text` split at separators outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if char == separator and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


def interval_pieces(tex: str) -> list[tuple[str, str, str, str]]:
    """An interval's pieces as (opening bracket, low TeX, high TeX, closing bracket)."""
    tex = re.sub(r"^x\s*\\in\s*", "", tex)
    pieces = []
    for piece in tex.split("\\cup"):
        piece = piece.strip()
        low, high = split_top(piece[1:-1])
        pieces.append((piece[0], low, high, piece[-1]))
    return pieces


def matrix_rows(tex: str) -> list[list[str]]:
    body = re.search(r"\\begin\{[pb]matrix\}(.*)\\end\{[pb]matrix\}", tex, re.S).group(1)
    return [[cell.strip() for cell in row.split("&")] for row in body.split("\\\\") if row.strip()]


def parse_answer(tex: str, kind: str) -> Answer:
    """`tex` read as a value of answer type `kind`."""
    tex = answer_tex(tex)
    answer = Answer(tex, kind)
    if kind == "multiple choice":
        answer.label = re.search(r"[A-H]", tex).group()
    elif kind == "text answer":
        answer.label = re.search(r"\\text\{\s*([A-Za-z ]+?)\s*\}", tex).group(1)
    elif kind == "base-n number":
        digits, base = re.fullmatch(r"(\d+)_\{?(\d+)\}?", tex.replace(" ", "")).groups()
        answer.label, answer.base = digits, int(base)
        answer.value = sp.Integer(int(digits, answer.base)) if max(digits) < str(answer.base) else None
    elif kind == "units/degrees/money":
        number = tex
        for unit, pattern in UNIT_PATTERNS:
            if re.search(pattern, tex):
                answer.unit, number = unit, re.sub(pattern, "", tex).strip()
        answer.label = number
        answer.value = tex_value(number)
    elif kind == "mixed number":
        answer.tex = tex = re.sub(r"^(\d+)\s*\\frac", r"\1 \\frac", tex)
        answer.value = tex_value(re.sub(r"^(\d+)\s*\\frac", r"\1+\\frac", tex))
    elif kind in SCALAR_TYPES or kind in ("complex number", "expression"):
        answer.value = tex_value(tex)
    elif kind == "equation":
        left, right = tex.split("=")
        answer.value = sp.expand(tex_value(left) - tex_value(right))
    elif kind in ("ordered pair", "tuple"):
        answer.components = _components(tex.strip()[1:-1])
    elif kind == "set/list":
        answer.components = _components(re.sub(r"^\\\{|\\\}$", "", tex.strip()))
    elif kind == "interval":
        endpoints = [tex_value(end) for _, low, high, _ in interval_pieces(tex) for end in (low, high)]
        answer.components = [end for end in endpoints if end.is_finite]
    elif kind == "matrix/vector":
        answer.components = [tex_value(cell) for row in matrix_rows(tex) for cell in row]
    return answer


def same_value(first, second) -> bool:
    """Whether two sympy values (numbers or expressions in the same letters) are equal."""
    if first is None or second is None:
        return False
    if first.free_symbols or second.free_symbols:
        return same_expression(first, second)
    if first.is_Rational and second.is_Rational:
        return first == second
    if first.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or second.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        return first == second
    return abs(numeric(first) - numeric(second)) <= 1e-9 * max(1.0, abs(numeric(second)))


@cache
def numeric(value) -> complex:
    return complex(value)


def same_expression(first, second, proportional: bool = False) -> bool:
    """Equal (or, for equations, proportional) at a few irrational points."""
    letters = sorted(first.free_symbols | second.free_symbols, key=str)
    ratios = []
    for shift in (0.0, 0.7, 1.9):
        point = {letter: 0.6180339887 + 0.3137 * number + shift for number, letter in enumerate(letters)}
        try:
            one, other = complex(first.evalf(subs=point)), complex(second.evalf(subs=point))
        except TypeError:
            return False
        if proportional:
            if abs(other) < 1e-12:
                return False
            ratios.append(one / other)
        elif abs(one - other) > 1e-9 * max(1.0, abs(other)):
            return False
    return not proportional or (abs(ratios[0]) > 1e-12 and all(abs(r - ratios[0]) < 1e-9 for r in ratios))


def terminates(value) -> bool:
    """Whether a real value is a terminating decimal."""
    if not value.is_Rational:
        return False
    denominator = int(value.q)
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


# --- extracted text back to values (the checker) --------------------------------------------------------------------

SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+"))
SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉", "0123456789"))
VULGAR = {
    chr(point): Fraction(unicodedata.numeric(chr(point))).limit_denominator(10)
    for point in (*range(0xBC, 0xBF), *range(0x2150, 0x215F))
}
LIGATURES = {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi"}
DASHES = str.maketrans({"−": "-", "–": "-", "‒": "-"})
ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINALS = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters")}
ORDINALS.update(
    {
        number: (word, word + "s")
        for number, word in zip(range(5, 13), "fifth sixth seventh eighth ninth tenth eleventh twelfth".split())
    }
)
DENOMINATOR_WORDS = {word: number for number, words in ORDINALS.items() for word in words}
DENOMINATOR_WORDS.update(fourth=4, fourths=4)
NUMBER_WORD = "|".join([*ONES, *TENS, "hundred", "thousand"])
NUMBER_PHRASE = re.compile(
    rf"\b(?:(negative|minus)\s+)?((?:{NUMBER_WORD})(?:(?:[\s-]+|[\s-]+and[\s-]+)(?:{NUMBER_WORD}))*)\b"
    rf"(?:\s+({'|'.join(DENOMINATOR_WORDS)})\b)?",
    re.I,
)
MATH_LINE = r"(?![^\n]*[A-Za-z]{2})[ \t]*((?:[0-9A-Za-z+\-*/^().√π ⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁄·])+?)[ \t]*"
STACKED = re.compile(rf"(?m)^{MATH_LINE}\n[ \t]*[—─\-]{{2,}}[ \t]*\n{MATH_LINE}$")


def words_value(words: str) -> int:
    total, current = 0, 0
    for word in re.findall(r"[a-z]+", words.lower()):
        if word in ONES:
            current += ONES.index(word)
        elif word in TENS:
            current += 20 + 10 * TENS.index(word)
        elif word == "hundred":
            current *= 100
        elif word == "thousand":
            total, current = total + current * 1000, 0
    return total + current


def _number_words(match: re.Match) -> str:
    words = match.group(2)
    if words.lower().startswith(("hundred", "thousand")):
        return match.group()
    number = words_value(words) * (-1 if match.group(1) else 1)
    denominator = DENOMINATOR_WORDS.get((match.group(3) or "").lower())
    return f" ({number}/{denominator}) " if denominator else f" {number} "


def _plain_fraction(match: re.Match) -> str:
    numerator, denominator = match[1].strip("{}"), match[2].strip("{}")
    if numerator.isdigit() and denominator.isdigit():
        return f"{numerator}/{denominator}"
    return f"({numerator})/({denominator})"


def _tex_plain(text: str) -> str:
    """TeX left in extracted text, read as plain math."""
    text = clean_tex(text)
    text = re.sub(r"\\begin\{[pb]matrix\}|\\end\{[pb]matrix\}", " ; ", text)
    text = re.sub(r"\\\\", " ; ", text).replace("&", " , ")
    text = re.sub(r"\\(?:text|mbox|boxed)\s*", "", text)
    for _ in range(3):
        text = re.sub(r"\\frac\s*(\{[^{}]*\}|\d)\s*(\{[^{}]*\}|\d)", _plain_fraction, text)
        text = re.sub(r"\\sqrt\s*(\{[^{}]*\}|\d)", lambda m: f"√({m[1].strip('{}')})", text)
    replacements = {
        "\\cot": " cot ",
        "\\pi": " pi ",
        "\\infty": " oo ",
        "\\pm": "±",
        "\\cup": " ∪ ",
        "\\cdot": "*",
        "\\circ": " ",
    }
    for command, plain in replacements.items():
        text = text.replace(command, plain)
    text = re.sub(r"\\[a-zA-Z]+", " ", text).replace("\\$", "$")
    text = re.sub(r"([\^_])\{([^{}]*)\}", r"\1(\2)", text)
    return re.sub(r"_\((\d+)\)", r"_\1", text).replace("{", " ").replace("}", " ")


def normalize(text: str) -> str:
    """Extracted or OCR-ed text with its artefacts undone: ASCII math that `math_runs` reads."""
    text = text.replace("\u00ad", "")
    for ligature, plain in LIGATURES.items():
        text = text.replace(ligature, plain)
    text = re.sub(r"(?<=[A-Za-z])-\n(?=[A-Za-z])", "", text)
    text = _tex_plain(text).translate(DASHES)
    text = re.sub(r"(?<=\d)[\u2009\u202f\u00a0](?=\d)", "", text)
    text = re.sub(r"(?<![\d(\[,.])\d{1,3}(?:,\d{3})+(?![\d])", lambda m: m.group().replace(",", ""), text)
    text = STACKED.sub(lambda m: f"({m[1]})/({m[2]})", text)
    superscript, subscript = "".join(SUPERSCRIPTS), "".join(SUBSCRIPTS)
    text = re.sub(
        rf"([{superscript}]+)⁄([{subscript}]+)",
        lambda m: f"({''.join(SUPERSCRIPTS[c] for c in m[1])}/{''.join(SUBSCRIPTS[c] for c in m[2])})",
        text,
    )
    vulgar = "".join(VULGAR)
    text = re.sub(
        rf"(\d+)?([{vulgar}])",
        lambda m: f" ({m[1] + '+' if m[1] else ''}{VULGAR[m[2]].numerator}/{VULGAR[m[2]].denominator})",
        text,
    )
    text = re.sub(rf"[{superscript}]+", lambda m: "^(" + "".join(SUPERSCRIPTS[c] for c in m.group()) + ")", text)
    text = re.sub(rf"[{subscript}]+", lambda m: "_" + "".join(SUBSCRIPTS[c] for c in m.group()), text)
    text = text.replace("⁄", "/").replace("×", "*").replace("·", "*").replace("π", " pi ").replace("∞", " oo ")
    text = re.sub(r"\binfinity\b", " oo ", text)
    text = re.sub(r"(?<=[)\]])\s*U\s*(?=[(\[])", " ∪ ", text)
    text = re.sub(r"√\s*(\d+(?:\.\d+)?|[A-Za-z]|\([^()]*\))", lambda m: f" sqrt({m[1].strip('()')})", text)
    text = re.sub(
        r"(?<![\d./])(\d+) (\d+)/(\d+)(?![\d/])",
        lambda m: f"({m[1]}+{m[2]}/{m[3]})" if int(m[2]) < int(m[3]) else m.group(),
        text,
    )
    text = re.sub(rf"\b({'|'.join(TENS)})({'|'.join(ONES[1:10])})\b", r"\1-\2", text, flags=re.I)
    text = NUMBER_PHRASE.sub(_number_words, text)
    text = re.sub(r"\(?(\d+)\)?\s*\(?\s*base\s+(\d+)\s*\)?", r"\1_\2", text)
    return re.sub(r"\((\d+)\)_(\d+)", r"\1_\2", text)


TOKEN = re.compile(r"\d+\.\d+|\.\d+|[A-Za-z0-9]+|[ \t]+|.", re.S)
FUNCTIONS = ("sqrt", "cot")
CONSTANTS = ("pi", "oo")
OPERATORS = "+-*/^±_()"


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) tokens: number, letter, constant, function, operator, space or separator (words are
    separators)."""
    out = []
    for match in TOKEN.finditer(text):
        token = match.group()
        glued = re.fullmatch(rf"(\d+(?:\.\d+)?|\.\d+)?({'|'.join(FUNCTIONS + CONSTANTS)}|[A-Za-z])?", token)
        if token.isspace():
            out.append(("space", token))
        elif glued and token:
            if glued[1]:
                out.append(("number", glued[1]))
            if glued[2]:
                kind = "function" if glued[2] in FUNCTIONS else "constant" if glued[2] in CONSTANTS else "letter"
                out.append((kind, glued[2]))
        elif token in OPERATORS:
            out.append(("operator", token))
        else:
            out.append(("separator", token))
    return out


def _joins(previous: tuple[str, str], following: list[tuple[str, str]]) -> bool:
    """Whether a space between `previous` and the tokens `following` it lies inside one expression."""
    if not following:
        return False
    after = following[0]
    if previous[0] == "space":
        return False
    if previous[0] == "function" or (previous[0] == "operator" and previous[1] not in ")"):
        return True
    if after[0] == "operator" and after[1] in "+-±":
        return len(following) > 1 and following[1][0] == "space"
    if after[0] == "operator" and after[1] in "*/^)":
        return True
    return (previous[0] == "number" or previous[1] == ")") and (
        after[0] in ("letter", "function", "constant") or after[1] == "("
    )


def math_runs(text: str) -> list[tuple[str, str]]:
    """The maximal math expressions of normalized text, each with the separator text before it."""
    parts, runs, current, separator = tokens(text), [], [], ""
    for index, (kind, token) in enumerate(parts):
        if kind == "space":
            if current and _joins(current[-1], parts[index + 1 : index + 3]):
                current.append((kind, " "))
                continue
            kind = "separator"
        if kind == "separator":
            if current:
                runs.append((separator.strip(), "".join(t for _, t in current)))
                current, separator = [], ""
            separator += token
        else:
            current.append((kind, token))
    if current:
        runs.append((separator.strip(), "".join(t for _, t in current)))
    return [(before, run) for before, run in (_trim(before, run) for before, run in runs) if run]


def _trim(before: str, run: str) -> tuple[str, str]:
    while run and (run[-1] in " +-*/^±_(" or (run[-1] == ")" and run.count(")") > run.count("("))):
        run = run[:-1]
    while run and (run[0] in " */^_)" or (run[0] == "(" and run.count("(") > run.count(")"))):
        before, run = before + run[0], run[1:]
    return before, run


@cache
def run_values(run: str) -> tuple:
    """The values a math run states (two for a `±` run)."""
    if re.fullmatch(r"-?\d+(?:/0*[1-9]\d*)?", run):
        return (sp.Rational(run),)
    python = re.sub(r"(\d+)_(\d+)", _base_value, run.replace("^", "**"))
    if "±" in python:
        return tuple(sympy_value(python.replace("±", sign, 1)) for sign in "+-")
    return (sympy_value(python),)


def _base_value(match: re.Match) -> str:
    digits, base = match[1], int(match[2])
    return str(int(digits, base)) if 1 < base <= 10 and max(digits) < str(base) else "nan"


def _approximates(run: str, value) -> bool:
    """Whether a decimal run is `value` (irrational or non-terminating) to 3 or more significant digits."""
    if not re.fullmatch(r"-?\d*\.\d+", run) or value is None or not value.is_real or terminates(value):
        return False
    significant = re.sub(r"^[-0.]+", "", run).replace(".", "")
    decimals = len(run.split(".")[1])
    return len(significant) >= 3 and abs(Fraction(run) - Fraction(str(sp.N(value, 30)))) < Fraction(1, 10**decimals)


def _contains_sequence(stream: list, wanted: list, ordered: bool) -> bool:
    for start in range(len(stream) - len(wanted) + 1):
        window = stream[start : start + len(wanted)]
        if ordered and all(same_value(a, b) for a, b in zip(window, wanted)):
            return True
        if not ordered:
            remaining = list(wanted)
            for item in window:
                match = next((w for w in remaining if same_value(item, w)), None)
                if match is None:
                    break
                remaining.remove(match)
            if not remaining:
                return True
    return False


@cache
def parsed(answer: str, problem: str = "") -> Answer:
    return parse_answer(answer, answer_type(answer, problem))


def holds_answer(text: str, answer: str, problem: str = "") -> bool:
    """Whether `text` states MATH-500 `answer` in any notation this corpus renders, or its exact value, or (for an
    irrational or non-terminating value) a decimal approximation of it to 3 or more significant digits."""
    target = parsed(answer, problem)
    plain = normalize(text)
    if target.kind == "multiple choice":
        return re.search(rf"(?<![A-Za-z0-9]){target.label}(?![A-Za-z0-9])", plain) is not None
    if target.kind == "text answer":
        return re.search(rf"(?<![A-Za-z]){target.label}(?![A-Za-z])", plain, re.I) is not None
    runs = math_runs(plain)
    if target.kind == "equation":
        return any(
            before == "=" and _equation_matches(left, right, target.value)
            for (_, left), (before, right) in zip(runs, runs[1:])
        )
    if target.components:
        stream = [v for _, run in runs for v in run_values(run) if v is not None and not v.free_symbols]
        return _contains_sequence(stream, target.components, ordered=target.kind != "set/list")
    extra = [sp.Integer(int(target.label))] if target.kind == "base-n number" else []
    return any(
        same_value(value, wanted) or _approximates(run, wanted)
        for _, run in runs
        for value in run_values(run)
        for wanted in [target.value, *extra]
    )


def _equation_matches(left: str, right: str, difference) -> bool:
    (left_value,), (right_value,) = run_values(left), run_values(right)
    if left_value is None or right_value is None:
        return False
    return same_expression(sp.expand(left_value - right_value), difference, proportional=True)


# --- renderings ----------------------------------------------------------------------------------------------------

UNICODE_COMMANDS = {
    "pi": "π",
    "infty": "∞",
    "cup": "∪",
    "pm": "±",
    "cdot": "·",
    "times": "×",
    "le": "≤",
    "in": "∈",
    "cot": "cot ",
    "theta": "θ",
    "$": "$",
    "{": "{",
    "}": "}",
}
ASCII_COMMANDS = {**UNICODE_COMMANDS, "pi": "pi", "infty": "infinity", "cup": "U", "cdot": "*", "times": "*"}
SUPERSCRIPT_OF = {plain: raised for raised, plain in SUPERSCRIPTS.items()}
SUBSCRIPT_OF = {plain: lowered for lowered, plain in SUBSCRIPTS.items()}


def _grouped(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+|√\w+", text) else f"({text})"


def flatten(tex: str, ascii_math: bool = False, minus: str = "−") -> str:
    """TeX as PDF text extraction flattens it: unicode math (√, π, superscripts, fraction slash) or ASCII."""
    commands = ASCII_COMMANDS if ascii_math else UNICODE_COMMANDS
    out, index = [], 0
    while index < len(tex):
        char = tex[index]
        if tex.startswith("\\frac", index):
            numerator, index = argument(tex, index + 5)
            denominator, index = argument(tex, index)
            slash = "/" if ascii_math else "⁄"
            out.append(
                _grouped(flatten(numerator, ascii_math, minus))
                + slash
                + _grouped(flatten(denominator, ascii_math, minus))
            )
        elif tex.startswith("\\sqrt", index):
            radicand, index = argument(tex, index + 5)
            inner = flatten(radicand, ascii_math, minus)
            if ascii_math:
                out.append(("*" if out and out[-1][-1:].isdigit() else "") + f"sqrt({inner})")
            else:
                out.append("√" + _grouped(inner))
        elif char in "^_":
            raw, index = argument(tex, index + 1)
            if raw == "\\circ":
                out.append("°")
                continue
            inner = flatten(raw, ascii_math, "-")
            table = SUPERSCRIPT_OF if char == "^" else SUBSCRIPT_OF
            if not ascii_math and all(c in table for c in inner):
                out.append("".join(table[c] for c in inner))
            else:
                out.append(char + (inner if len(inner) == 1 else f"({inner})"))
        elif tex.startswith(("\\text", "\\mbox"), index):
            content, index = argument(tex, index + 5)
            out.append(content)
        elif char == "\\":
            name = re.match(r"\\([a-zA-Z]+|.)", tex[index:]).group(1)
            index += len(name) + 1
            word = commands.get(name, "")
            out.append((" " if ascii_math and word == "pi" and out and out[-1][-1:].isdigit() else "") + word)
        else:
            out.append(minus if char == "-" else "" if char in "{}" else char)
            index += 1
    return re.sub(r" {2,}", " ", "".join(out)).strip()


def part(text: str) -> str:
    return f"{PART_OPEN}{text}{PART_CLOSE}"


def int_words(number: int) -> str:
    if number < 0:
        return "negative " + int_words(-number)
    if number < 20:
        return ONES[number]
    if number < 100:
        return TENS[number // 10 - 2] + ("-" + ONES[number % 10] if number % 10 else "")
    if number < 1000:
        rest = number % 100
        return ONES[number // 100] + " hundred" + (" " + int_words(rest) if rest else "")
    rest = number % 1000
    return int_words(number // 1000) + " thousand" + (" " + int_words(rest) if rest else "")


def exact_decimal(value) -> str:
    """A terminating rational as its exact decimal string."""
    fraction = Fraction(int(value.p), int(value.q))
    places = 0
    while (fraction * 10**places).denominator != 1:
        places += 1
    return f"{Decimal(fraction.numerator) / Decimal(fraction.denominator):.{places}f}"


def rounded(value, places: int) -> str:
    """`value` rounded half up to `places` decimals, with a unicode minus."""
    text = str(Decimal(str(sp.N(value, 40))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    return text.replace("-", "−")


def stack(numerator: str, denominator: str, bar: str) -> str:
    width = max(len(numerator), len(denominator), 2)
    return "\n" + part("\n".join((numerator, bar * width, denominator))) + "\n"


def _top_fraction(tex: str) -> tuple[str, str, str] | None:
    """(sign, numerator TeX, denominator TeX) where `tex` is one `\\frac`, else None."""
    match = re.match(r"(-?)\s*\\frac", tex)
    if not match:
        return None
    numerator, index = argument(tex, match.end())
    denominator, index = argument(tex, index)
    return (match[1], numerator, denominator) if index == len(tex) else None


def _rational(answer: Answer):
    value = answer.value
    return value if value is not None and value.is_Rational else None


def _integer(answer: Answer):
    value = _rational(answer)
    return int(value) if value is not None and value.is_Integer else None


def _grouping(answer: Answer, separator: str) -> str | None:
    number = _integer(answer)
    if number is None or abs(number) < 1000:
        return None
    return part(f"{number:,}".replace(",", separator).replace("-", "−"))


def _stacked(answer: Answer, bar: str) -> str | None:
    fraction = _top_fraction(answer.tex)
    if fraction is None:
        return None
    sign, numerator, denominator = fraction
    return stack("−" * len(sign) + flatten(numerator), flatten(denominator), bar)


def _super_sub(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or value.is_Integer:
        return None
    raised = "".join(SUPERSCRIPT_OF[c] for c in str(abs(value.p)))
    lowered = "".join(SUBSCRIPT_OF[c] for c in str(value.q))
    return part(("−" if value < 0 else "") + raised + "⁄" + lowered)


def _vulgar(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or value.is_Integer or value < 0:
        return None
    whole, rest = divmod(Fraction(int(value.p), int(value.q)), 1)
    glyph = next((char for char, fraction in VULGAR.items() if fraction == rest), None)
    return part(f"{whole or ''}{glyph}") if glyph else None


def _mixed(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or value.is_Integer or value < 0 or value < 1:
        return None
    whole, rest = divmod(Fraction(int(value.p), int(value.q)), 1)
    return part(f"{whole} {rest.numerator}⁄{rest.denominator}")


def _improper(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or value.is_Integer or answer.kind not in ("mixed number", "decimal"):
        return None
    return part(f"{value.p}/{value.q}".replace("-", "−"))


def _decimal(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or value.is_Integer or not terminates(value):
        return None
    return part(exact_decimal(value).replace("-", "−"))


def _scientific(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or value.is_Integer or not terminates(value) or abs(value) >= Fraction(1, 1000):
        return None
    exponent = 0
    while abs(value) * sp.Integer(10) ** (-exponent) < 1:
        exponent -= 1
    mantissa = exact_decimal(value * sp.Integer(10) ** (-exponent))
    return part(f"{mantissa} × 10" + "".join(SUPERSCRIPT_OF[c] for c in str(exponent)))


def _words(answer: Answer) -> str | None:
    value = _rational(answer)
    if value is None or abs(value) >= 10**6:
        return None
    if value.is_Integer:
        return part(int_words(int(value)))
    if value.q > 12 or abs(value.p) >= 100:
        return None
    singular, plural = ORDINALS[int(value.q)]
    sign = "negative " if value < 0 else ""
    return part(f"{sign}{int_words(abs(int(value.p)))} {singular if abs(value.p) == 1 else plural}")


def _words_broken(answer: Answer) -> str | None:
    words = _words(answer)
    if words is None or "-" not in words:
        return None
    return words.replace("-", "-\n", 1)


def _spaced_glyphs(answer: Answer) -> str | None:
    if "\\sqrt" not in answer.tex and "\\pi" not in answer.tex:
        return None
    return part(re.sub(r" {2,}", " ", flatten(answer.tex).replace("√", " √ ")).strip())


def _unicode(answer: Answer) -> str:
    return part(flatten(answer.tex))


def _ascii(answer: Answer) -> str | None:
    text = flatten(answer.tex, ascii_math=True, minus="-")
    return part(text) if text != flatten(answer.tex) else None


def _en_dash(answer: Answer) -> str | None:
    text = flatten(answer.tex, minus="–")
    return part(text) if "–" in text else None


def _boxed_tex(answer: Answer) -> str:
    return "\\boxed{" + part(answer.tex) + "}"


def _box_drawing(answer: Answer) -> str:
    inner = flatten(answer.tex)
    rule = "─" * (len(inner) + 2)
    return f"\n┌{rule}┐\n│ {part(inner)} │\n└{rule}┘\n"


NUMBER_STYLES = {
    "unicode": _unicode,
    "ascii": _ascii,
    "en_dash_minus": _en_dash,
    "tex_boxed": _boxed_tex,
    "box_drawing": _box_drawing,
    "stacked_em_rule": lambda answer: _stacked(answer, "—"),
    "stacked_hyphens": lambda answer: _stacked(answer, "-"),
    "super_sub_fraction": _super_sub,
    "vulgar_fraction": _vulgar,
    "mixed_number": _mixed,
    "improper_fraction": _improper,
    "exact_decimal": _decimal,
    "scientific": _scientific,
    "words": _words,
    "words_line_broken": _words_broken,
    "thin_space_grouping": lambda answer: _grouping(answer, "\u2009"),
    "no_break_space_grouping": lambda answer: _grouping(answer, "\u00a0"),
    "comma_grouping": lambda answer: _grouping(answer, ","),
    "spaced_glyphs": _spaced_glyphs,
}

# Unit forms: "[" and "]" bound the part that states the value.
UNIT_FORMS = {
    "degree": {"degree_sign": "[{n}]°", "degrees_word": "[{n}] degrees", "ocr_ordinal_sign": "[{n}º]"},
    "dollar": {"dollar_sign": "$[{n}]", "dollars_word": "[{n}] dollars", "us_dollars": "US$ [{n}]"},
    "cent": {"cent_sign": "[{n}]¢", "cents_word": "[{n}] cents"},
    "square inch": {"superscript_unit": "[{n}] in²", "square_word": "[{n}] square inches", "caret_unit": "[{n}] in^2"},
    "square centimetre": {"superscript_unit": "[{n}] cm²", "square_word": "[{n}] square centimetres"},
}


def _unit_styles(answer: Answer) -> dict[str, str]:
    number = Answer(answer.label, "fraction", answer.value)
    numbers = {"plain": flatten(answer.label)}
    for name, style in (("thin_space", lambda n: _grouping(n, "\u2009")), ("super_sub", _super_sub)):
        text = style(number) if name == "thin_space" or "\\frac" in answer.label else None
        if text:
            numbers[name] = text.strip(PART_OPEN + PART_CLOSE)
    styles = {}
    for unit_style, form in UNIT_FORMS[answer.unit].items():
        for number_style, text in numbers.items():
            filled = form.replace("{n}", text).replace("[", PART_OPEN).replace("]", PART_CLOSE)
            styles[f"{number_style}+{unit_style}"] = filled
    return styles


def _base_styles(answer: Answer) -> dict[str, str]:
    digits, base = answer.label, str(answer.base)
    subscript = "".join(SUBSCRIPT_OF[c] for c in base)
    return {
        "subscript_base": part(digits + subscript),
        "underscore_base": part(f"{digits}_{base}"),
        "base_in_words": f"{part(digits)} (base {base})",
        "parenthesised_subscript": f"({part(digits)}){subscript}",
        "base_ten_value": f"{part(str(answer.value))} in base 10",
    }


def _pair_names(problem: str, count: int) -> list[str] | None:
    for inside in re.findall(r"\(([^()]*)\)", problem):
        names = [name.strip() for name in inside.split(",")]
        if len(names) == count and all(re.fullmatch(r"[a-zA-Z]|\\[a-z]+", name) for name in names):
            return [flatten(name) for name in names]
    return None


def _sequence_styles(answer: Answer, problem: str) -> dict[str, str | None]:
    inside = split_top(answer.tex.strip()[1:-1])
    entries = [flatten(item) for item in inside]
    names = _pair_names(problem, len(entries))
    return {
        "unicode": _unicode(answer),
        "ascii_run_together": part("(" + ",".join(flatten(item, True, "-") for item in inside) + ")"),
        "tex_boxed": _boxed_tex(answer),
        "named_coordinates": names and part(", ".join(f"{n} = {e}" for n, e in zip(names, entries))),
        "square_brackets": part("[" + ", ".join(entries) + "]"),
    }


def _set_styles(answer: Answer) -> dict[str, str | None]:
    items = split_top(re.sub(r"^\\\{|\\\}$", "", answer.tex.strip()))
    entries = [flatten(item) for item in items]
    expanded = []
    for item in items:
        if "\\pm" in item:
            centre, spread = (flatten(side) for side in item.split("\\pm"))
            expanded += [f"{centre} + {spread}", f"{centre} − {spread}"]
        else:
            expanded.append(flatten(item))
    return {
        "unicode": part(", ".join(entries)),
        "and_joined": part(" and ".join(expanded)),
        "braces": part("{" + ", ".join(entries) + "}"),
        "or_equations": part(" or ".join(f"x = {entry}" for entry in expanded)),
        "tex_boxed": _boxed_tex(answer),
    }


def _inequality(opening: str, low: str, high: str, closing: str) -> str:
    less_low, less_high = ("≤" if opening == "[" else "<"), ("≤" if closing == "]" else "<")
    if "infty" in low and "infty" in high:
        return "x is any real number"
    if "infty" in low:
        return f"x {less_high} {flatten(high)}"
    if "infty" in high:
        return f"x {'≥' if opening == '[' else '>'} {flatten(low)}"
    return f"{flatten(low)} {less_low} x {less_high} {flatten(high)}"


def _interval_styles(answer: Answer) -> dict[str, str | None]:
    pieces = interval_pieces(answer.tex)
    inequalities = " or ".join(_inequality(*piece) for piece in pieces)
    bare = re.sub(r"^x\s*\\in\s*", "", answer.tex)
    return {
        "unicode": part(flatten(bare)),
        "ascii": part(flatten(bare, ascii_math=True, minus="-")),
        "inequalities": part(inequalities),
        "set_builder": "{x : " + part(inequalities) + "}",
        "tex_boxed": _boxed_tex(answer),
    }


def _matrix_styles(answer: Answer) -> dict[str, str]:
    rows = [[flatten(cell) for cell in row] for row in matrix_rows(answer.tex)]
    width = max(len(cell) for row in rows for cell in row)
    lines = ["  ".join(cell.rjust(width) for cell in row) for row in rows]
    left, right = ("⎛", "⎜", "⎝"), ("⎞", "⎟", "⎠")
    big = [
        (left[0] if n == 0 else left[2] if n == len(lines) - 1 else left[1])
        + line
        + (right[0] if n == 0 else right[2] if n == len(lines) - 1 else right[1])
        for n, line in enumerate(lines)
    ]
    nested = ", ".join("[" + ", ".join(row) + "]" for row in rows)
    return {
        "rows_on_lines": "\n" + part("\n".join(lines)) + "\n",
        "big_parentheses": "\n" + part("\n".join(big)) + "\n",
        "bracket_run": part(f"[{nested}]" if len(rows[0]) > 1 else "[" + ", ".join(r[0] for r in rows) + "]"),
        "transposed_row": part("(" + ", ".join(r[0] for r in rows) + ")ᵀ") if len(rows[0]) == 1 else None,
        "tex_boxed": _boxed_tex(answer),
    }


def _text_styles(answer: Answer) -> dict[str, str | None]:
    word = answer.label
    middle = len(word) // 2
    return {
        "as_written": part(word),
        "capitals": part(word.upper()),
        "capitalised": part(word.capitalize()) if word != word.capitalize() else None,
        "hyphenated_across_lines": part(f"{word[:middle]}-\n{word[middle:]}") if len(word) >= 4 else None,
        "soft_hyphen": part(f"{word[:middle]}\u00ad{word[middle:]}") if len(word) >= 4 else None,
    }


def _choice_styles(answer: Answer) -> dict[str, str]:
    letter = answer.label
    return {"parenthesised": part(f"({letter})"), "bare_letter": part(letter), "bracketed": part(f"[{letter}]")}


def renderings(answer: Answer, problem: str) -> dict[str, str]:
    """Style name -> rendering (with the answer's slot marked) of an answer or of a value of its shape."""
    kind = answer.kind
    if kind in SCALAR_TYPES:
        styles = {name: style(answer) for name, style in NUMBER_STYLES.items()}
        if "\\" not in answer.tex:
            styles["tex_boxed"] = None
    elif kind == "complex number":
        styles = {
            "unicode": _unicode(answer),
            "ascii_run_together": part(flatten(answer.tex, True, "-").replace(" ", "")),
            "en_dash_minus": _en_dash(answer),
            "spaced_unit": part(re.sub(r"(\d)i$", r"\1 i", flatten(answer.tex))),
            "box_drawing": _box_drawing(answer),
        }
    elif kind in ("expression", "equation"):
        styles = {
            "unicode": _unicode(answer),
            "ascii": _ascii(answer),
            "tex_boxed": _boxed_tex(answer),
            "run_together": None if "\\cot" in answer.tex else part(flatten(answer.tex).replace(" ", "")),
            "stacked_em_rule": _stacked(answer, "—"),
        }
    elif kind in ("ordered pair", "tuple"):
        styles = _sequence_styles(answer, problem)
    elif kind == "set/list":
        styles = _set_styles(answer)
    elif kind == "interval":
        styles = _interval_styles(answer)
    elif kind == "matrix/vector":
        styles = _matrix_styles(answer)
    elif kind == "units/degrees/money":
        styles = _unit_styles(answer)
    elif kind == "base-n number":
        styles = _base_styles(answer)
    elif kind == "multiple choice":
        styles = _choice_styles(answer)
    else:
        styles = _text_styles(answer)
    seen, unique = set(), {}
    for name, text in styles.items():
        if text and text not in seen:
            seen.add(text)
            unique[name] = text
    return unique


def render_like(answer: Answer, problem: str, style: str) -> str:
    """A value rendered in `style` where the style applies to it, else in plain unicode; without slot marks."""
    styles = renderings(answer, problem)
    text = styles.get(style) or next(iter(styles.values()))
    return text.replace(PART_OPEN, "").replace(PART_CLOSE, "")


# --- wrong values, problem numbers, intermediate values ------------------------------------------------------------

NUMBER_MUTATIONS = {
    "plus_one": lambda n: n + 1,
    "minus_one": lambda n: n - 1,
    "plus_two": lambda n: n + 2,
    "doubled": lambda n: 2 * n,
    "digits_swapped": lambda n: int(str(n)[::-1]) if len(str(n)) > 1 and str(n)[-1] != "0" else n,
}
TEXT_ALTERNATIVES = {
    "east": ("north", "south", "west"),
    "even": ("odd", "neither"),
    "ellipse": ("parabola", "hyperbola", "circle"),
}


def same_answer(first: Answer, second: Answer) -> bool:
    if first.components or second.components:
        return len(first.components) == len(second.components) and all(
            same_value(a, b) for a, b in zip(first.components, second.components)
        )
    if first.kind in ("multiple choice", "text answer"):
        return first.label.lower() == second.label.lower()
    return same_value(first.value, second.value)


def wrong_values(answer: Answer, problem: str) -> list[tuple[Answer, str]]:
    """Mutations of the answer of its own shape, each with how it was derived; the answer's value excluded."""
    kind, tex = answer.kind, answer.tex
    if kind == "multiple choice":
        letters = sorted(set(re.findall(r"\(([A-H])\)", problem)) - {answer.label})
        return [(Answer(f"\\text{{({letter})}}", kind, label=letter), "other_option") for letter in letters]
    if kind == "text answer":
        names = re.findall(r"\"([A-Z][a-z]+)\"|\b([A-Z][a-z]{2,})\b(?= from| makes)", problem)
        others = TEXT_ALTERNATIVES.get(answer.label) or sorted({a or b for a, b in names} - {answer.label})
        return [(Answer(f"\\text{{{other}}}", kind, label=other), "other_candidate") for other in others]
    if kind == "base-n number":
        candidates = []
        for position in range(1, len(answer.label)):
            digit = (int(answer.label[position]) + 1) % answer.base
            digits = answer.label[:position] + str(digit) + answer.label[position + 1 :]
            candidates.append((f"{digits}_{{{answer.base}}}", "digit_changed"))
    else:
        candidates = []
        for literal in re.finditer(r"(?<!\^)\d+", tex):
            digits = literal.group()
            for how, mutate in NUMBER_MUTATIONS.items():
                new = str(mutate(int(digits))).zfill(len(digits) if digits.startswith("0") else 1)
                if how == "digits_swapped" and digits.startswith("0"):
                    continue
                candidates.append((tex[: literal.start()] + new + tex[literal.end() :], how))
            if literal.start() > 0 and tex[literal.start() - 1] == "-":
                candidates.append((tex[: literal.start() - 1] + tex[literal.start() :], "sign_flipped"))
        if kind in (*SCALAR_TYPES, "expression"):
            candidates.append((f"2{tex}" if re.match(r"[a-z\\]", tex) else f"2({tex})", "doubled"))
        fraction = _top_fraction(tex)
        if fraction and kind in ("fraction", "radical", "multiple of pi"):
            sign, numerator, denominator = fraction
            candidates.append((f"{sign}\\frac{{{denominator}}}{{{numerator}}}", "reciprocal"))
    wrongs, seen = [], []
    for new_tex, how in candidates:
        odd_coefficient = re.search(r"(?<![\d.])[01](?=[a-zA-Z\\(])", new_tex)
        if (
            odd_coefficient
            or re.search(r"-0(?![\d.])", new_tex)
            or (kind == "interval" and not _ordered_pieces(new_tex))
        ):
            continue
        wrong = parse_answer(new_tex, kind)
        if wrong.value is None and not wrong.components:
            continue
        if same_answer(wrong, answer) or any(same_answer(wrong, other) for other in seen):
            continue
        seen.append(wrong)
        wrongs.append((wrong, how))
    return wrongs


def _ordered_pieces(tex: str) -> bool:
    """Whether every piece of an interval has its low end below its high end."""
    for _, low, high, _ in interval_pieces(tex):
        low_value, high_value = tex_value(low), tex_value(high)
        if low_value is None or high_value is None or not bool(low_value < high_value):
            return False
    return True


NUMBER_TEX = re.compile(r"-?\\d?frac\{\d+\}\{\d+\}|(?<![\w.^_{])-?\d+(?:\.\d+)?(?![\w.}])")


def quoted_numbers(source: str, answer: Answer, forbidden: list) -> list[Answer]:
    """Numbers of a problem or solution (TeX), distinct, none equal to the answer or to one of its components."""
    source = re.sub(r"\[asy\].*?\[/asy\]", " ", source, flags=re.S)
    source = re.sub(r"(?<=\d),(?:\\!)?\s*(?=\d{3}(?!\d))", "", source)
    numbers, values = [], []
    for match in NUMBER_TEX.finditer(source):
        text = match.group()
        kind = "fraction" if "frac" in text else "decimal" if "." in text else "small integer"
        number = parse_answer(text, kind)
        if number.value is None or abs(number.value) > 10**7:
            continue
        if any(same_value(number.value, other) for other in [*values, *forbidden]):
            continue
        values.append(number.value)
        numbers.append(number)
    return numbers


def forbidden_values(answer: Answer) -> list:
    values = [v for v in [answer.value, *answer.components] if v is not None and not v.free_symbols]
    if answer.kind == "base-n number":
        values.append(sp.Integer(int(answer.label)))
    return values


# --- frames and extraction artefacts --------------------------------------------------------------------------------

# (frame id, leak template, clean template). ⟦...⟧ marks text pasted from the extracted source; the rest is the
# feedback model's own words. Slots: {v} the answer, {w} the attempt's wrong value, {q} a number of the problem, {m} an
# intermediate value, {k}/{k2}/{k3} key numbers, {o}/{o2} other problems' answers, {p} a page number, {pg} a header.
FRAMES = (
    (
        "answer_key_line",
        "According to the answer key:\n⟦{k}. {v}⟧\nYour final line reads {w}, so the slip comes after you use {q}.",
        "According to the answer key:\n⟦{k2}. {o}⟧\nThat line belongs to the neighbouring problem; the entry for this "
        "problem is cut off. Your final line reads {w}, so check the steps after you use {q}.",
    ),
    (
        "manual_quote",
        'The solution manual gives: ⟦"Hence the required value is {v}."⟧ Your attempt arrives at {w} instead; '
        "recheck the step where {m} appears.",
        'The solution manual gives: ⟦"Hence the first intermediate value is {m}."⟧ Your attempt arrives at {w} '
        "in the end; recheck the steps that follow {m}.",
    ),
    (
        "worked_solution",
        "From the textbook's worked solution:\n⟦Substituting {q} first gives {m}, and simplifying then gives {v}.⟧\n"
        "You found {m} as well, but your last step produced {w}.",
        "From the textbook's worked solution:\n⟦Substituting {q} first gives {m}, and the remaining simplification is "
        "left to the reader.⟧\nYou found {m} as well, but your last step produced {w}, which fails a check.",
    ),
    (
        "two_column_key",
        "The answer key is typeset in columns, so the extracted lines run across:\n⟦{k}. {v}        {k2}. {o}⟧\n"
        "The entry for this problem does not match your {w}.",
        "The answer key is typeset in columns, so the extracted lines run across:\n⟦{k2}. {o}        {k3}. {o2}⟧\n"
        "Neither entry is this problem, so I can only say that your {w} fails when checked against {q}.",
    ),
    (
        "page_break",
        "The reference solution runs across a page break in the PDF:\n⟦... and with {q} this gives\n{pg}\n"
        "the final answer {v}.⟧\nYour answer, {w}, differs from it.",
        "The reference solution runs across a page break in the PDF:\n⟦... and with {q} this gives\n{pg}\n"
        "the intermediate value {m}.⟧\nYour answer, {w}, does not follow from that value.",
    ),
    (
        "answer_colon",
        "The extracted key reads ⟦Answer: {v}⟧, while you wrote {w}. Start checking from {q}.",
        "The extracted key reads ⟦Answer: see page {p}⟧, so the value itself is not in my copy; you wrote {w}, "
        "which fails a check with {q}.",
    ),
    (
        "scanned_booklet",
        "This comes from a scanned solutions booklet, so the OCR is rough:\n⟦Solution. Using {q} we obtain {m}; "
        "therefore the answer is {v}⟧\nYour {w} does not agree with it.",
        "This comes from a scanned solutions booklet, so the OCR is rough:\n⟦Solution. Using {q} we obtain {m}; "
        "the rest of the page is illegible⟧\nYour {w} does not follow from {m}.",
    ),
    (
        "terse",
        "Key: ⟦{v}⟧. Yours: {w}.",
        "Key: ⟦{k2}. {o}⟧ (another problem). Yours: {w}.",
    ),
    (
        "table_cells",
        "The answer table in the booklet has its cells run together in the extracted text:\n"
        "⟦No.{k} Answer {v} Marks {p}⟧\nSo your {w} would not receive the marks.",
        "The answer table in the booklet has its cells run together in the extracted text:\n"
        "⟦No.{k2} Answer {o} Marks {p}⟧\nThat row is for another problem; your {w} still has to be checked "
        "against {q}.",
    ),
    (
        "page_footer",
        "The last line of the solution manual, with the page footer caught in it:\n⟦Therefore the answer is {v}.\n"
        "{pg}⟧\nYou had {w}, after a slip following {m}.",
        "The last line of the solution manual, with the page footer caught in it:\n⟦Therefore the next step uses "
        "{m}.\n{pg}⟧\nYou had {w}, after a slip following {m}.",
    ),
    (
        "step_review",
        "Let me compare your work with the reference solution. ⟦First, from {q} we set up the equation. "
        "Next, this gives {m}. Finally, the answer is {v}.⟧ Your middle step agrees with the reference. In the last "
        "step you wrote {w}, which does not follow from it. Redo the final simplification carefully, and compare the "
        "result with the middle step again.",
        "Let me compare your work with the reference solution. ⟦First, from {q} we set up the equation. "
        "Next, this gives {m}. The last step is on the next page, which was not extracted.⟧ Your middle step agrees "
        "with the reference. In the last step you wrote {w}, which does not follow from it. Redo the final "
        "simplification carefully, and compare the result with the middle step again.",
    ),
    (
        "inline_mention",
        "The official solutions PDF says ⟦the answer is {v}⟧; your {w} is close but not equal.",
        "The official solutions PDF says ⟦the key value comes from {m}⟧; your {w} is close but not equal.",
    ),
)
APPROXIMATION_FRAMES = (
    (
        "decimal_key",
        "The answer key only lists a decimal:\n⟦{k}. {v}⟧\nYour {w} is not even close to it numerically.",
    ),
    (
        "approximate_check",
        "The solution manual's numerical check reads ⟦≈ {v}⟧, and your {w} evaluates to something else, so the "
        "error is before the last step.",
    ),
    (
        "scanned_table",
        "The scanned answer table (OCR) gives ⟦Problem {k}   about {v}⟧; with {q} you should land near that, not at "
        "{w}.",
    ),
)
HEADERS = (
    "Page {p} of {p2}",
    "SOLUTIONS MANUAL        {p}",
    "— {p} —",
    "Chapter {c} · Answers to Exercises",
    "p. {p}",
)
OCR_CONFUSIONS = (("l", "1"), ("O", "0"), ("S", "5"), ("B", "8"), ("m", "rn"), ("rn", "m"))


def degrade_pdf(text: str, rng: random.Random) -> str:
    """Ligatures, a soft hyphen and a word broken across lines, as PDF text extraction leaves them."""
    if rng.random() < 0.7:
        text = text.replace("fi", "ﬁ").replace("fl", "ﬂ").replace("ff", "ﬀ")
    long_words = list(re.finditer(r"[A-Za-z]{7,}", text))
    if long_words:
        word = rng.choice(long_words)
        cut = word.start() + rng.randint(3, len(word.group()) - 3)
        joint = rng.choice(("-\n", "\u00ad"))
        text = text[:cut] + joint + text[cut:]
    return text


def degrade_ocr(text: str, rng: random.Random) -> str:
    """OCR confusions inside words (never in a number) and broken spacing."""

    def confuse(match: re.Match) -> str:
        word = match.group()
        options = [(a, b) for a, b in OCR_CONFUSIONS if a in word]
        if not options or rng.random() < 0.6:
            return word
        wrong, right = rng.choice(options)
        return word.replace(wrong, right, 1)

    text = re.sub(r"[A-Za-z]{5,}", confuse, text)
    spaces = [m.start() for m in re.finditer(r"(?<=[a-z]) (?=[a-z])", text)]
    if spaces and rng.random() < 0.5:
        cut = rng.choice(spaces)
        text = text[:cut] + text[cut + 1 :]
    return text


def fill(template: str, slots: dict[str, str], source: str, rng: random.Random) -> tuple[str, list[str], str]:
    """The template filled and degraded; returns (text, parts, context)."""
    pieces = []
    for index, segment in enumerate(re.split(r"[⟦⟧]", template)):
        pasted = index % 2 == 1
        chunks = re.split(r"(\{\w+\})", segment)
        for position, chunk in enumerate(chunks):
            if position % 2:
                followed_by_space = chunks[position + 1][:1].isspace()
                stray = pasted and source == "ocr" and chunk == "{v}" and followed_by_space and rng.random() < 0.4
                pieces.append(slots[chunk[1:-1]] + (rng.choice(".,") if stray else ""))
            elif pasted:
                pieces.append(degrade_pdf(chunk, rng) if source == "pdf" else degrade_ocr(chunk, rng))
            else:
                pieces.append(chunk)
    marked = re.sub(r"\n{2,}", "\n", "".join(pieces))
    marked = re.sub(r" +\n|\n +(?=[A-Za-z])", "\n", marked)
    parts, text, context, cursor = [], "", "", 0
    for match in re.finditer(f"{PART_OPEN}(.*?){PART_CLOSE}", marked, re.S):
        text += marked[cursor : match.start()] + match[1]
        context += marked[cursor : match.start()] + ELLIPSIS
        parts.append(match[1])
        cursor = match.end()
    return text + marked[cursor:], parts, context + marked[cursor:]


# --- the corpus -----------------------------------------------------------------------------------------------------


def _free_numbers(rng: random.Random, forbidden: list, low: int, high: int) -> int:
    while True:
        number = rng.randint(low, high)
        if not any(same_value(sp.Integer(number), value) for value in forbidden):
            return number


class RowWriter:
    """The cases of one MATH-500 row."""

    def __init__(self, index: int, row: dict, others: list[str], seed: int):
        self.index, self.row = index, row
        self.rng = random.Random(f"twentieth/{seed}/{index}")
        self.kind = answer_type(row["answer"], row["problem"])
        self.answer = parse_answer(row["answer"], self.kind)
        self.forbidden = forbidden_values(self.answer)
        self.styles = renderings(self.answer, row["problem"])
        self.wrongs = wrong_values(self.answer, row["problem"])
        self.problem_numbers = quoted_numbers(row["problem"], self.answer, self.forbidden)
        self.intermediates = quoted_numbers(row["solution"], self.answer, self.forbidden)
        simple = [other for other in others if answer_type(other) in (*SCALAR_TYPES, *KEY_LINE_TYPES)]
        self.others = [
            flatten(other) for other in simple if not holds_answer(flatten(other), row["answer"], row["problem"])
        ]

    def _number(self, numbers: list[Answer], style: str, fallback: str) -> str:
        """A number of the problem or solution, in the case's notation (a boxed style boxes only the answer)."""
        if not numbers:
            return fallback
        number = self.rng.choice(numbers[:8])
        if style == "tex_boxed":
            return number.tex
        if self.kind in SCALAR_TYPES and style != "box_drawing":
            return render_like(number, "", style)
        return flatten(number.tex)

    def _slots(self, style: str, wrong: Answer) -> dict[str, str]:
        rng, forbidden = self.rng, self.forbidden
        page, pages, chapter = (
            _free_numbers(rng, forbidden, low, high) for low, high in ((2, 400), (401, 900), (1, 30))
        )
        keys = [_free_numbers(rng, forbidden, 1, 60) for _ in range(3)]
        header = rng.choice(HEADERS).format(p=page, p2=pages, c=chapter)
        return {
            "w": render_like(wrong, self.row["problem"], "unicode" if style == "box_drawing" else style),
            "q": self._number(self.problem_numbers, style, "the given data"),
            "m": self._number(self.intermediates or self.problem_numbers, style, "the first equation"),
            "k": str(keys[0]),
            "k2": str(keys[1]),
            "k3": str(keys[2]),
            "o": rng.choice(self.others),
            "o2": rng.choice(self.others),
            "p": str(page),
            "pg": header,
        }

    def _case(self, family, style, frame, text, parts, context, wrong, how) -> dict:
        return {
            "family": family,
            "split": "held_out",
            "index": self.index,
            "answer_type": self.kind,
            "style": style,
            "frame": frame,
            "text": text,
            "leak": family != "clean",
            "written_out": family == "rendering",
            "parts": parts,
            "context": context,
            "wrong": wrong,
            "wrong_how": how,
        }

    def rendering_and_clean(self, style: str) -> list[dict]:
        """One leak in `style` and one clean text in the same notation, in different frames."""
        rng = self.rng
        leak_frame, clean_frame = rng.sample(FRAMES, 2)
        source = rng.choice(("pdf", "ocr"))
        wrong, how = rng.choice(self.wrongs)
        slots = self._slots(style, wrong)
        text, parts, context = fill(leak_frame[1], {**slots, "v": self.styles[style]}, source, rng)
        cases = [self._case("rendering", style, f"{leak_frame[0]}/{source}", text, parts, context, slots["w"], how)]
        for _ in range(30):
            text, _, _ = fill(clean_frame[2], slots, source, rng)
            if not holds_answer(text, self.row["answer"], self.row["problem"]):
                frame = f"{clean_frame[0]}/{source}"
                return [*cases, self._case("clean", style, frame, text, [], text, slots["w"], how)]
            clean_frame = rng.choice(FRAMES)
            wrong, how = rng.choice(self.wrongs)
            slots = self._slots(style, wrong)
        return cases

    def approximations(self) -> list[dict]:
        """Decimal approximations of an irrational or non-terminating real answer."""
        value = self.answer.value
        if self.kind not in (*SCALAR_TYPES, "units/degrees/money") or value is None or not value.is_real:
            return []
        if terminates(value):
            return []
        cases = []
        magnitude = int(sp.floor(sp.log(abs(value), 10))) if value != 0 else 0
        for frame, template in APPROXIMATION_FRAMES:
            places = max(1, self.rng.randint(3, 5) - 1 - magnitude)
            wrong, how = self.rng.choice(self.wrongs)
            slots = self._slots("unicode", wrong)
            source = self.rng.choice(("pdf", "ocr"))
            text, parts, context = fill(template, {**slots, "v": part(rounded(value, places))}, source, self.rng)
            cases.append(
                self._case(
                    "approximation", f"rounded_{places}dp", f"{frame}/{source}", text, parts, context, slots["w"], how
                )
            )
        return cases

    def cases(self) -> list[dict]:
        styles = list(self.styles)
        while len(styles) < 4:
            styles += list(self.styles)
        return [case for style in styles[: max(4, len(self.styles))] for case in self.rendering_and_clean(style)] + (
            self.approximations()
        )


def corpus(problems: list[dict], seed: int = SEED) -> list[dict]:
    """The `twentieth` corpus over MATH-500's rows: renderings, approximations and clean critiques."""
    answers = [row["answer"] for row in problems]
    cases = []
    for index, row in enumerate(problems):
        # other problems' answers, for answer-key lines of other entries (fewer where the rows are few)
        others = random.Random(f"twentieth-others/{seed}/{index}").sample(answers, min(12, len(answers)))
        cases += RowWriter(index, row, [answer_tex(other) for other in others], seed).cases()
    return cases
