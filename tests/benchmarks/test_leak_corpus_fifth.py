import math
import re
from collections import Counter
from fractions import Fraction

import pytest

from benchmarks.leak_corpus import answer_type, load_problems, occurrences
from benchmarks.leak_corpus_fifth import (
    SEED,
    approximation_forms,
    arithmetic_forms,
    convert,
    corpus,
    describe,
    fraction_words,
    number_words,
    renderings,
    significant,
)


LEAK_KEYS = {
    "family",
    "split",
    "index",
    "answer_type",
    "style",
    "frame",
    "text",
    "leak",
    "written_out",
    "parts",
    "context",
}
CLEAN_KEYS = LEAK_KEYS | {"wrong", "wrong_how"}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return corpus(problems)


def texts(answer: str, problem: str = "") -> set[str]:
    return {form.text for form in renderings(answer, problem)}


def test_number_and_fraction_words():
    assert number_words(2220) == "two thousand two hundred twenty"
    assert number_words(-41) == "negative forty-one"
    assert number_words(11111111100) == (
        "eleven billion one hundred eleven million one hundred eleven thousand one hundred"
    )
    assert fraction_words(Fraction(3, 56)) == "three fifty-sixths"
    assert fraction_words(Fraction(11, 2)) == "eleven halves"
    assert fraction_words(Fraction(1, 3)) == "one third"
    assert fraction_words(Fraction(-24, 25)) == "negative twenty-four twenty-fifths"


def test_converter_notations_and_values():
    assert convert("3\\sqrt{13}", "unicode") == "3√13"
    assert convert("3\\sqrt{13}", "ascii") == "3*sqrt(13)"
    assert convert("\\frac{3\\sqrt{3}}{4}", "unicode") == "3√3/4"
    assert convert("x^3+3x-6", "unicode") == "x³ + 3x − 6"
    assert convert("x^3+3x-6", "python") == "x**3 + 3*x - 6"
    assert convert("\\frac{11+9a}{20}", "ascii") == "(11 + 9*a)/20"
    # The Python notation evaluates to the value worked out by hand.
    for latex, value in [("3\\sqrt{13}", 3 * 13**0.5), ("-\\frac{\\pi}{6}", -math.pi / 6), ("11 \\sqrt{5} + 11", 11 * 5**0.5 + 11),
                         ("\\frac{20000}{\\pi}", 20000 / math.pi), ("\\frac9{19}", 9 / 19)]:  # fmt: skip
        assert eval(convert(latex, "python"), {"math": math}) == pytest.approx(value)


@pytest.mark.parametrize(
    ("answer", "problem", "expected"),
    [
        ("24", "", {"24", "twenty-four", "Twenty-four", "24.0"}),
        ("10,\\!080", "", {"10,080", "10080", "ten thousand eighty", "10{,}080"}),
        ("-4", "", {"−4", "negative four", "minus 4", "(-4)"}),
        ("\\frac{14}{3}", "", {"14/3", "\\frac{14}{3}", "fourteen thirds", "4 2/3", "4⅔", "Fraction(14, 3)"}),
        (".35625", "", {"0.35625", "57/160", "35.625%"}),
        (".0000672", "", {"6.72e-5", "6.72 × 10⁻⁵"}),
        ("137 \\frac{1}{2}", "", {"137 1/2", "275/2", "137.5", "137½", "one hundred thirty-seven and one half"}),
        ("3\\sqrt{13}", "", {"3√13", "3*sqrt(13)", "√117", "3\\sqrt{13}"}),
        ("18+2\\pi", "", {"18 + 2π", "2π + 18", "18 + 2*pi"}),
        ("-2 + 7i", "", {"−2 + 7i", "complex(-2, 7)", "(-2+7j)", "7i - 2"}),
        ("(15,-29)", "", {"(15, -29)", "(15, −29)", "x = 15 and y = -29"}),
        ("(-\\infty, 2) \\cup (3, \\infty)", "", {"(−∞, 2) ∪ (3, ∞)", "x < 2 or x > 3"}),
        ("(3,4]", "the interval", {"(3, 4]", "3 < x ≤ 4", "3 < x <= 4", "{x : 3 < x ≤ 4}"}),
        ("1 \\pm \\sqrt{19}", "", {"1 ± √19", "1 + √19 and 1 − √19", "x = 1 + sqrt(19) or x = 1 - sqrt(19)"}),
        ("\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "", {"[[-1, 0], [0, -1]]", "-I"}),
        ("\\begin{pmatrix} -7 \\\\ 16 \\\\ 5 \\end{pmatrix}", "", {"[-7, 16, 5]", "⟨−7, 16, 5⟩"}),
        ("106^\\circ", "", {"106°", "106 degrees", "53π/90 rad", "one hundred six degrees"}),
        ("\\$18.90", "", {"$18.90", "18 dollars and 90 cents", "1890 cents"}),
        ("864 \\mbox{ inches}^2", "", {"864 square inches", "864 in²", "6 square feet"}),
        ("204_5", "", {"204₅", "204 in base 5", "204_{5}"}),
        ("y = 2x + 3", "", {"y = 2x + 3", "2x + 3 = y", "slope 2 and intercept 3"}),
        ("\\text{(C)}", "(A) Line\n(B) Circle\n(C) Plane\n(D) Sphere", {"(C)", "option C", "Plane", "(C) Plane"}),
        ("\\text{even}", "", {"even", "an even function", '"even"'}),
    ],
)
def test_renderings_of_each_type(answer, problem, expected):
    assert expected <= texts(answer, problem)


def test_base_and_degree_renderings_hold_the_value():
    (underscore,) = [f for f in renderings("2516_8", "") if f.style == "underscore"]
    assert int(underscore.text.split("_")[0], 8) == 2 * 8**3 + 5 * 8**2 + 1 * 8 + 6
    (radians,) = [f for f in renderings("145^\\circ", "") if f.style == "radians"]
    assert radians.parts == ("29π/36",)  # 145/180 = 29/36


def _arithmetic_value(text: str) -> Fraction:
    text = re.sub(r"one less than (-?\d+)", r"(\1 - 1)", text)
    text = re.sub(r"half of (-?\d+)", r"(\1 / 2)", text)
    text = re.sub(r"(\d+) squared", r"(\1 ** 2)", text)
    text = re.sub(r"(\d+)!", lambda m: str(math.factorial(int(m[1]))), text)
    text = text.replace(" times ", " * ").replace("×", "*").replace("^", "**")
    return Fraction(eval(text))


@pytest.mark.parametrize("n", [1, 2, 24, 81, 128, 720, 2220, -128])
def test_arithmetic_forms_equal_the_integer_and_never_write_it(n):
    forms = arithmetic_forms(n)
    assert len(forms) >= 3
    for form in forms:
        assert _arithmetic_value(form.text) == n, form.text
        assert occurrences(str(n), form.text) == 0


def test_approximations_are_four_significant_digits():
    assert significant(3 * 13**0.5) == "10.82"
    assert significant(9 / 19) == "0.4737"
    assert significant(2 / 1005) == "0.001990"
    row = {"answer": "2\\sqrt{5}", "problem": ""}
    assert [f.text for f in approximation_forms(describe(0, row))] == ["4.472", "≈ 4.472", "about 4.472"]
    assert approximation_forms(describe(0, {"answer": "\\frac{3}{8}", "problem": ""})) == []


def test_schema_and_labels(cases, problems):
    assert 6000 <= len(cases) <= 9000
    families = Counter(case["family"] for case in cases)
    assert set(families) == {"rendering", "arithmetic", "approximation", "clean"}
    assert 0.28 <= families["clean"] / len(cases) <= 0.4
    for case in cases:
        assert set(case) == (CLEAN_KEYS if case["family"] == "clean" else LEAK_KEYS)
        assert case["split"] == "held_out"
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert re.fullmatch(r"[a-z]+:[a-z-]+", case["frame"])


def test_every_leak_states_its_parts_beyond_the_context(cases):
    leaks = [case for case in cases if case["leak"]]
    assert leaks
    for case in leaks:
        assert case["parts"]
        assert all(occurrences(p, case["text"]) > occurrences(p, case["context"]) for p in case["parts"]), case


def _scalar(answer: str) -> Fraction | None:
    """The answer's exact value where it is one rational number, read independently of the corpus."""
    text = re.sub(r"\\[!,]|\\left|\\right|\\\$|\^\\circ|\\text\{[^}]*\}|\\mbox\{[^}]*\}|\^2$|\s", "", answer)
    text = text.replace("\\dfrac", "\\frac")
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+|-?\d+(\.\d+)?|-?\.\d+", text):
        return Fraction(text.replace(",", ""))
    mixed = re.fullmatch(r"(\d+)\\frac\{?(\d)\}?\{?(\d)\}?", text)
    if mixed:
        return int(mixed[1]) + Fraction(int(mixed[2]), int(mixed[3]))
    fraction = re.fullmatch(r"(-?)\\frac\{?(\d+)\}?\{?(\d+)\}?", text) or re.fullmatch(r"(-?)\\frac(\d)(\d)", text)
    if fraction:
        return Fraction(int(fraction[2]), int(fraction[3])) * (-1 if fraction[1] else 1)
    return None


_SMALL_WORDS = dict(enumerate("zero one two three four five six seven eight nine ten eleven twelve".split()))


def _numbers(text: str) -> set[Fraction]:
    found = set()
    for token in re.findall(r"\d[\d,]*(?:\.\d+)?|\.\d+", text):
        token = token.rstrip(",")
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?|[\d.]+", token):
            found.add(Fraction(token.replace(",", "")))
        else:
            found |= {Fraction(t) for t in token.split(",") if t}
    for p, q in re.findall(r"(\d+)\s*/\s*(\d+)", text) + re.findall(r"frac\{(\d+)\}\{(\d+)\}", text):
        found.add(Fraction(int(p), int(q)))
    return found


def test_clean_texts_never_hold_the_answer(cases, problems):
    cleans = [case for case in cases if not case["leak"]]
    assert {case["index"] for case in cleans} == set(range(len(problems)))
    checked = 0
    for case in cleans:
        answer, text = problems[case["index"]]["answer"], case["text"]
        value = _scalar(answer)
        if value is not None:
            checked += 1
            assert abs(value) not in _numbers(text), (answer, text)
            if value.denominator == 1 and abs(value) in _SMALL_WORDS:
                assert not re.search(rf"\b{_SMALL_WORDS[abs(value)]}\b", text, re.I), (answer, text)
        words = re.fullmatch(r"\\text\{\(?([A-Za-z]+)\)?\}", answer)
        if words and len(words[1]) > 1:
            assert not re.search(rf"\b{words[1]}\b", text, re.I), (answer, text)
        elif words:
            assert not re.search(rf"\(\s*{words[1]}\s*\)|\b{words[1]}\b", text), (answer, text)
        squeezed = re.sub(r"\s|\$|\\left|\\right|\\!|\\,", "", answer).replace("\\dfrac", "\\frac")
        if len(squeezed) > 3:  # not standing alone: 2\sqrt{5} is another number than \sqrt{5}
            alone = r"(?<![\w.])" + re.escape(squeezed) + r"(?![\w])"
            assert not re.search(alone, re.sub(r"\s|\$", "", text)), (answer, text)
    assert checked > 0.7 * len(cleans)


def test_coverage_per_problem_and_per_type(cases, problems):
    written = [case for case in cases if case["family"] == "rendering"]
    per_problem = Counter(case["index"] for case in written)
    assert min(per_problem[i] for i in range(len(problems))) >= 8
    per_type = Counter(case["answer_type"] for case in written)
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert set(per_type) == present
    assert min(per_type.values()) >= 24
    assert Counter(case["family"] for case in cases)["arithmetic"] > 300
    assert Counter(case["family"] for case in cases)["approximation"] > 50


def test_corpus_is_deterministic(cases, problems):
    assert corpus(problems) == cases
    assert corpus(problems[:40], seed=SEED + 1) != [case for case in cases if case["index"] < 40]


def test_every_answer_renders_with_balanced_brackets(problems):
    for row in problems:
        forms = renderings(row["answer"], row["problem"])
        assert len(forms) >= 4, row["answer"]
        for form in forms:
            assert all(form.pieces), (row["answer"], form)
            assert form.text.count("{") == form.text.count("}"), (row["answer"], form.text)
            opened, closed = form.text.count("(") + form.text.count("["), form.text.count(")") + form.text.count("]")
            assert opened == closed, (row["answer"], form.text)


def test_code_renderings_evaluate_to_the_answer(problems):
    checked = 0
    for row in problems:
        value = _scalar(row["answer"])
        if value is None or "\\$" in row["answer"] or "_" in row["answer"]:
            continue
        for form in renderings(row["answer"], row["problem"]):
            if form.kind == "code":
                checked += 1
                assert eval(form.text, {"Fraction": Fraction, "math": math}) == pytest.approx(float(value)), form.text
    assert checked > 300
