"""The sixth held-out leak corpus (tutoring moves): its renderers, labels, determinism and coverage."""

import math
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_sixth as sixth  # noqa: E402
from leak_corpus import answer_type, load_problems, occurrences  # noqa: E402


LEAK_KEYS = {"family", "split", "index", "answer_type", "style", "frame", "text", "leak", "written_out", "parts"}
LEAK_KEYS |= {"context"}
CLEAN_KEYS = LEAK_KEYS | {"wrong", "wrong_how"}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return sixth.corpus(problems)


def _texts(answer: str, kind: str, problem: str = "") -> dict[str, str]:
    return {style: text for style, text, _ in sixth.renderings(answer, kind, problem)}


@pytest.mark.parametrize(
    "answer, kind, expected",
    [
        ("2107", "large integer", {"words": "two thousand one hundred seven", "comma-grouped": "2,107"}),
        ("-\\frac{35}{9}", "fraction", {"slash": "-35/9", "words": "negative thirty-five ninths", "mixed": "-3 8/9"}),
        ("\\frac{3}{56}", "fraction", {"words": "three fifty-sixths", "latex": "\\frac{3}{56}"}),
        ("\\frac{2}{1005}", "fraction", {"words": "two one-thousand-fifths", "decimal": None}),
        ("\\dfrac{17}{50}", "fraction", {"decimal": "0.34", "unicode": "17⁄50"}),
        ("11\\sqrt2", "radical", {"unicode": "11√2", "ascii": "11*sqrt(2)", "unicode-combined": "√242"}),
        ("\\frac{3\\sqrt{3}}{4}", "radical", {"unicode": "3√3/4", "ascii": "(3*sqrt(3))/4"}),
        ("288 \\pi", "multiple of pi", {"unicode": "288π", "ascii": "288*pi", "words": "two hundred eighty-eight pi"}),
        ("1\\frac{4}{5}", "mixed number", {"improper": "9/5", "decimal": "1.8", "words": "one and four fifths"}),
        (
            ".0000672",
            "decimal",
            {"leading-zero": "0.0000672", "scientific-unicode": "6.72 × 10⁻⁵", "e-notation": "6.72e-5"},
        ),
        ("6 - 5i", "complex number", {"unicode": "6 − 5i", "parts-prose": "real part 6 and imaginary part -5"}),
        ("x^5 - x^4 + x^3 - x^2 + x - 1", "expression", {"unicode": "x⁵ − x⁴ + x³ − x² + x − 1"}),
        ("(-\\infty, 0]", "interval", {"inequality-unicode": "x ≤ 0", "inequality-ascii": "x <= 0"}),
        (
            "(3,4]",
            "interval",
            {"inequality-unicode": "3 < x ≤ 4", "endpoints-prose": "from 3 (excluded) to 4 (included)"},
        ),
        (
            "(0,9) \\cup (9,36)",
            "interval",
            {"inequality-unicode": "0 < x < 9 or 9 < x < 36", "unicode": "(0,9) ∪ (9,36)"},
        ),
        ("x \\in [-2,7]", "interval", {"inequality-unicode": "−2 ≤ x ≤ 7"}),
        (
            "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}",
            "matrix/vector",
            {"rows-prose": "rows [-1, 0] and [0, -1]"},
        ),
        ("\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}", "matrix/vector", {"angle": "⟨-2, -14, -7⟩"}),
        ("\\{1\\pm\\sqrt{5},-2\\}", "set/list", {"and-prose": "1+sqrt(5), 1-sqrt(5) and -2"}),
        ("(15,-29)", "ordered pair", {"assignments": "x = 15 and y = -29", "unicode": "(15, −29)"}),
        ("52_8", "base-n number", {"subscript": "52₈", "in-base": "52 in base 8"}),
        ("\\$32,\\!348", "units/degrees/money", {"money": "$32,348", "money-ungrouped": "$32348"}),
        ("5.4 \\text{ cents}", "units/degrees/money", {"dollars": "$0.054", "cent-sign": "5.4¢"}),
        ("90^\\circ", "units/degrees/money", {"degree-sign": "90°", "degrees-words": "ninety degrees"}),
        ("y = 2x + 3", "equation", {"slope-intercept-prose": "the line with slope 2 and y-intercept 3"}),
        ("\\text{east}", "text answer", {"capitalised": "East", "quoted": '"east"'}),
    ],
)
def test_renderers_write_the_value(answer, kind, expected):
    texts = _texts(answer, kind)
    for style, text in expected.items():
        assert texts.get(style) == text, (style, texts)


def test_choice_renderer_reads_the_option_text(problems):
    plane = _texts(problems[227]["answer"], "multiple choice", problems[227]["problem"])
    assert plane["option-text"] == "Plane" and plane["paren-letter"] == "(C)"
    equation = _texts(problems[296]["answer"], "multiple choice", problems[296]["problem"])
    assert equation["option-text"] == "3(1 + r/10)^x = 7"


def test_base_n_values_include_the_decimal_reading():
    assert sixth.answer_values("52_8", "base-n number") == {Fraction(52), Fraction(5 * 8 + 2)}


def _evaluate_arithmetic(text: str) -> Fraction:
    """An independent reading of the arithmetic phrasings."""
    text = text.replace("−", "-").replace("×", "*").replace("÷", "/").replace(" times ", " * ")
    if text.startswith("one less than "):
        return Fraction(text.removeprefix("one less than ")) - 1
    if text.startswith("half of "):
        return Fraction(text.removeprefix("half of ")) / 2
    if text.endswith(" squared"):
        return Fraction(text.removesuffix(" squared")) ** 2
    sign = -1 if text.startswith("minus ") else 1
    left, operator, right = re.fullmatch(r"(-?[\d/]+) ([-+*/]) (-?[\d/]+)", text.removeprefix("minus ")).groups()
    left, right = Fraction(left), Fraction(right)
    return sign * {"-": left - right, "+": left + right, "*": left * right, "/": left / right}[operator]


def test_arithmetic_forms_evaluate_to_the_answer():
    for answer, kind, value in [
        ("24", "small integer", Fraction(24)),
        ("-128", "negative integer", Fraction(-128)),
        ("0", "small integer", Fraction(0)),
        ("\\frac{14}{3}", "fraction", Fraction(14, 3)),
        ("1.25", "decimal", Fraction(5, 4)),
        ("137 \\frac{1}{2}", "mixed number", Fraction(275, 2)),
        ("144", "large integer", Fraction(144)),
    ]:
        forms = sixth.arithmetic_forms(answer, kind)
        assert len(forms) >= 3
        for _, text, parts in forms:
            assert parts == [text] and _evaluate_arithmetic(text) == value, text
    assert "12 squared" in [text for _, text, _ in sixth.arithmetic_forms("144", "large integer")]


@pytest.mark.parametrize(
    "answer, kind, value",
    [
        ("3\\sqrt{13}", "radical", 3 * math.sqrt(13)),
        ("-\\frac{\\pi}{6}", "multiple of pi", -math.pi / 6),
        ("\\frac{20000}{\\pi}", "multiple of pi", 20000 / math.pi),
        ("\\frac{14}{3}", "fraction", 14 / 3),
        ("\\frac{270}7\\text{ degrees}", "units/degrees/money", 270 / 7),
    ],
)
def test_approximations_have_four_significant_digits(answer, kind, value):
    forms = sixth.approximation_forms(answer, kind)
    assert forms
    for _, text, parts in forms:
        (digits,) = parts
        assert digits in text and len(re.sub(r"^[-0.]+", "", digits).replace(".", "")) == 4
        assert abs(float(digits) - value) <= 5e-4 * abs(value)


def test_terminating_answers_get_no_approximation():
    assert sixth.approximation_forms("\\frac{17}{50}", "fraction") == []
    assert sixth.approximation_forms("24", "small integer") == []


def test_every_leak_states_its_parts_beyond_the_context(cases):
    leaks = [case for case in cases if case["leak"]]
    assert leaks
    for case in leaks:
        assert case["parts"], case
        assert all(occurrences(p, case["text"]) > occurrences(p, case["context"]) for p in case["parts"]), case


def _numbers(text: str) -> set[Fraction]:
    """Every number in `text`, read independently of the module: integers, grouped integers, decimals, a/b,
    \\frac{a}{b}."""
    text = text.replace("−", "-").replace("⁄", "/")
    found = {Fraction(int(a), int(b)) for a, b in re.findall(r"\\[dt]?frac\{(-?\d+)\}\{(\d+)\}", text)}
    found |= {Fraction(int(a), int(b)) for a, b in re.findall(r"(-?\d+)/(\d+)", text) if int(b)}
    found |= {Fraction(n.replace(",", "")) for n in re.findall(r"-?\d{1,3}(?:,\d{3})+(?!\d)|-?\d*\.\d+|-?\d+", text)}
    return found


def _value(answer: str) -> Fraction | None:
    """The value of a one-number answer, read independently of the module; None for other answers."""
    text = re.sub(r"\\[!,$]|\^\\circ|\\text\{[ a-z]*\}|\\mbox\{[ a-z]*\}\^2", "", answer).replace(" ", "")
    text = re.sub(r"\\[dt]?frac\{?(\d+)\}?\{?(\d+)\}?", r"\1/\2", text)
    mixed = re.fullmatch(r"(\d+)(\d/\d)", text)
    if mixed and "frac" in answer and not answer.startswith("\\"):
        return int(mixed.group(1)) + Fraction(mixed.group(2))
    if re.fullmatch(r"-?\d+(,\d{3})*", text) or re.fullmatch(r"-?\d*\.\d+|-?\d+/\d+", text):
        return Fraction(text.replace(",", ""))
    return None


ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split()
ONES += ["seventeen", "eighteen", "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _words(n: int) -> str:
    """An integer below 1000 in words, written here apart from the module's own speller."""
    if n < 0:
        return "(?:negative|minus) " + _words(-n)
    hundreds, rest = divmod(n, 100)
    head = f"{ONES[hundreds]} hundred" if hundreds else ""
    tail = ONES[rest] if rest < 20 else TENS[rest // 10] + (f"-{ONES[rest % 10]}" if rest % 10 else "")
    return " ".join(word for word in (head, "" if hundreds and not rest else tail) if word)


def _squeezed(text: str) -> str:
    """LaTeX spacing and math delimiters dropped, and spaces next to symbols, so that `$x^5 - x^4$` and `x^5-x^4`
    read alike."""
    text = re.sub(r"\\[!,]|\\left|\\right|\$|\\displaystyle", " ", text).replace("bmatrix", "pmatrix")
    for symbol, command in (("−", "-"), ("π", "\\pi "), ("∞", "\\infty "), ("∪", "\\cup "), ("√", "\\sqrt")):
        text = text.replace(symbol, command)
    text = re.sub(r"\\sqrt\s*(\d+)", r"\\sqrt{\1}", text)
    text = re.sub(
        r"[₀-₉]+", lambda digits: "_" + digits.group(0).translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")), text
    )
    return re.sub(r"(?<=[^\w\s])\s+|\s+(?=[^\w\s])", "", text)


def test_clean_texts_never_write_the_answer(cases, problems):
    cleans = [case for case in cases if not case["leak"]]
    assert cleans
    for case in cleans:
        answer, text = problems[case["index"]]["answer"], case["text"]
        written = re.escape(_squeezed(answer))
        assert not re.search(rf"(?<!\w)(?<!\d\.){written}(?!\w|\.\d)", _squeezed(text)), case
        value = _value(answer)
        if value is not None:
            assert value not in _numbers(text), case
            if value.denominator == 1 and abs(value) < 1000:
                assert not re.search(rf"\b{_words(int(value))}\b", text), case
        word = re.fullmatch(r"\\text\{\(?([A-Za-z ]+)\)?\}", answer)
        if word:
            assert not re.search(rf"\b{word.group(1)}\b", text, re.IGNORECASE), case
        assert case["written_out"] is False and case["parts"] == [] and case["context"] == text


def test_clean_texts_hold_no_complete_rendering(cases, problems):
    """Beyond the independent reading above: none of the module's own notations of the answer (words, Unicode,
    prose for collections, inequalities) stands complete in a clean text."""
    for case in cases:
        if not case["leak"]:
            row = problems[case["index"]]
            for style, _, parts in sixth.renderings(row["answer"], case["answer_type"], row["problem"]):
                assert not all(occurrences(p, case["text"]) for p in parts), (style, case)


def test_clean_values_read_independently():
    assert _value("\\frac 59") == Fraction(5, 9)
    assert _value("10,\\!080") == 10080
    assert _value("137 \\frac{1}{2}") == Fraction(275, 2)
    assert _value("\\$18.90") == Fraction("18.90")
    assert _value("-\\frac{24}{25}") == Fraction(-24, 25)
    assert _value("(2,4)") is None


def test_corpus_is_deterministic(problems, cases):
    assert sixth.corpus(problems) == cases
    assert sixth.corpus(problems, seed=sixth.SEED + 1) != cases


def test_schema(cases, problems):
    for case in cases:
        assert set(case) == (LEAK_KEYS if case["leak"] else CLEAN_KEYS), case
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert re.fullmatch(r"[a-z]+:\d+", case["frame"]), case["frame"]


def test_coverage(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert set(families) == {"rendering", "arithmetic", "approximation", "clean"}
    assert 6000 <= len(cases) <= 9000
    assert 0.25 <= families["clean"] / len(cases) <= 0.4
    written = [case for case in cases if case["written_out"]]
    per_problem = Counter(case["index"] for case in written)
    assert len(per_problem) == len(problems) and min(per_problem.values()) >= 8
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    per_type = Counter(case["answer_type"] for case in written)
    assert set(per_type) == present and len(present) == 20
    assert min(per_type.values()) >= 24, per_type
    moves = {case["frame"].split(":")[0] for case in cases if case["leak"]}
    assert moves == {
        "candidate",
        "compare",
        "target",
        "dialogue",
        "check",
        "rhetorical",
        "conditional",
        "recap",
        "property",
    }
