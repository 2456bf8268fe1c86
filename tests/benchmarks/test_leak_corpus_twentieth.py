"""The `twentieth` leak corpus (answers copied out of PDFs, scans and OCR): schema, parts, determinism, checker."""

import sys
from collections import Counter
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_twentieth as twentieth  # noqa: E402
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402


KEYS = {
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
    "wrong",
    "wrong_how",
}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return twentieth.corpus(problems)


def _styles(answer: str, problem: str = "") -> dict[str, str]:
    """Renderings of a MATH-500 answer without the slot marks."""
    parsed = twentieth.parse_answer(answer, answer_type(answer, problem))
    marks = str.maketrans("", "", twentieth.PART_OPEN + twentieth.PART_CLOSE)
    return {name: text.translate(marks) for name, text in twentieth.renderings(parsed, problem).items()}


def test_schema(cases, problems):
    assert isinstance(twentieth.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert case["style"] and case["frame"]
        assert isinstance(case["parts"], list)
        if case["wrong"]:
            assert case["wrong"].strip("\n") in case["text"]
            assert case["wrong_how"]


def test_size_balance_and_coverage(cases, problems):
    assert 5000 <= len(cases) <= 8000
    leaks = sum(case["leak"] for case in cases)
    assert 0.4 <= leaks / len(cases) <= 0.6
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES)
    for family in ("rendering", "clean"):
        assert {case["answer_type"] for case in cases if case["family"] == family} == present
    assert Counter(case["family"] for case in cases)["approximation"] > 100


def test_parts_state_the_value_and_context_does_not(cases):
    for case in cases:
        if not case["leak"]:
            assert case["parts"] == [] and case["context"] == case["text"]
            continue
        assert case["parts"]
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1, (part, case["text"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"]), case
        assert case["context"].count(twentieth.ELLIPSIS) == len(case["parts"]) + case["text"].count(twentieth.ELLIPSIS)


def test_checker_finds_every_leak_and_no_clean_text(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert twentieth.holds_answer(case["text"], row["answer"], row["problem"]) == case["leak"], case


def test_determinism(cases, problems):
    assert twentieth.corpus(problems, seed=twentieth.SEED) == cases
    assert twentieth.corpus(problems, seed=twentieth.SEED + 1) != cases


def test_wrong_values_differ_from_the_answer(problems):
    for row in problems:
        answer = twentieth.parse_answer(row["answer"], answer_type(row["answer"], row["problem"]))
        wrongs = twentieth.wrong_values(answer, row["problem"])
        assert wrongs, row["answer"]
        assert not any(twentieth.same_answer(wrong, answer) for wrong, _ in wrongs)


def test_hand_written_renderings():
    fourteen_thirds = _styles("\\frac{14}{3}")
    assert fourteen_thirds["unicode"] == "14⁄3"
    assert fourteen_thirds["super_sub_fraction"] == "¹⁴⁄₃"
    assert fourteen_thirds["mixed_number"] == "4 2⁄3"
    assert fourteen_thirds["vulgar_fraction"] == "4⅔"
    assert fourteen_thirds["words"] == "fourteen thirds"
    assert fourteen_thirds["stacked_em_rule"] == "\n14\n——\n3\n"
    assert _styles("42")["words_line_broken"] == "forty-\ntwo"
    assert _styles("-125")["words"] == "negative one hundred twenty-five"
    assert _styles("13535")["thin_space_grouping"] == "13\u2009535"
    assert _styles(".0000672")["scientific"] == "6.72 × 10⁻⁵"
    assert _styles("\\frac{17}{50}")["exact_decimal"] == "0.34"
    assert _styles("3\\sqrt{13}")["ascii"] == "3*sqrt(13)"
    assert _styles("52_8")["subscript_base"] == "52₈"
    assert _styles("52_8")["base_ten_value"] == "42 in base 10"
    assert _styles("\\frac{270}7\\text{ degrees}")["plain+degree_sign"] == "270⁄7°"
    assert _styles("(3,4]", "What is the interval")["inequalities"] == "3 < x ≤ 4"
    matrix = _styles("\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}")
    assert matrix["big_parentheses"] == "\n⎛−1   0⎞\n⎝ 0  −1⎠\n"
    assert _styles("\\text{(C)}")["parenthesised"] == "(C)"
    assert _styles("\\text{Evelyn}")["hyphenated_across_lines"] == "Eve-\nlyn"


def test_hand_written_approximations():
    assert twentieth.rounded(twentieth.tex_value("2\\sqrt{5}"), 3) == "4.472"
    assert twentieth.rounded(twentieth.tex_value("-\\frac{\\pi}{6}"), 3) == "−0.524"


@pytest.mark.parametrize(
    ("text", "answer", "holds"),
    [
        ("The key gives\n3\n——\n4\nfor this.", "\\frac 34", True),
        ("The key gives 3 4 for this.", "\\frac 34", False),
        ("Answer: three quarters", "\\frac 34", True),
        ("Answer: forty-\ntwo.", "42", True),
        ("Page 3 of 12", "\\frac 34", False),
        ("5o1ution: the va1ue is 7.", "1", False),
        ("17. (C)", "\\text{(C)}", True),
        ("17. (D) Plane", "\\text{(C)}", False),
        ("the answer is 1⅘", "1\\frac{4}{5}", True),
        ("the answer is 4⁄5", "1\\frac{4}{5}", False),
        ("about 4.472", "2\\sqrt{5}", True),
        ("about 4.47", "2\\sqrt{5}", True),
        ("about 4.5", "2\\sqrt{5}", False),
        ("x = 15, y = −29", "(15,-29)", True),
        ("x = 15, y = −28", "(15,-29)", False),
        ("⎛−1   0⎞\n⎝ 0  −1⎠", "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", True),
        ("0 < x < 9 or 9 < x < 36", "(0,9) \\cup (9,36)", True),
        ("Key: x³ + 3x − 6", "x^3+3x-6", True),
        ("Key: x³ + 3x − 7", "x^3+3x-6", False),
        ("Key: 2x − y + 3 = 0", "y = 2x + 3", True),
        ("Key: 52 (base 8)", "52_8", True),
        ("Key: 53₈", "52_8", False),
        ("Key: $32\u2009348", "\\$32,\\!348", True),
        ("Answer: Eve\u00adlyn", "\\text{Evelyn}", True),
        ("Answer: ¹⁴⁄₃", "\\frac{14}{3}", True),
        ("Answer: \\boxed{\\frac{14}{3}}", "\\frac{14}{3}", True),
        ("Answer: \\boxed{\\frac{13}{3}}", "\\frac{14}{3}", False),
    ],
)
def test_checker_examples(text, answer, holds):
    assert twentieth.holds_answer(text, answer) == holds
