"""Tests of the `fifteenth` leak corpus (`benchmarks/leak_corpus_fifteenth.py`): schema, parts and contexts,
determinism, the corpus's own answer checker, and renderings computed by hand."""

import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_fifteenth as fifteenth  # noqa: E402
from leak_corpus import answer_type, load_problems, occurrences, stated  # noqa: E402


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
    return fifteenth.corpus(problems)


@pytest.fixture(scope="module")
def checkers(problems):
    out = []
    for row in problems:
        kind = answer_type(row["answer"], row["problem"])
        out.append(fifteenth.Checker(fifteenth.parse_answer(row["answer"], row["problem"], kind)))
    return out


def answer_of(problems, answer: str) -> tuple[int, fifteenth.Answer]:
    """The first row whose reference answer is `answer`, parsed."""
    index = next(i for i, row in enumerate(problems) if row["answer"] == answer)
    row = problems[index]
    return index, fifteenth.parse_answer(row["answer"], row["problem"], answer_type(row["answer"], row["problem"]))


def texts(answer: fifteenth.Answer) -> dict[str, fifteenth.Rendering]:
    return {rendering.text: rendering for rendering in answer.renderings()}


def test_schema(cases, problems):
    assert isinstance(fifteenth.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert isinstance(case["style"], str) and case["style"]
        assert isinstance(case["frame"], str) and "/" in case["frame"]
        assert (case["wrong"] == "") == (case["wrong_how"] == "")
        if case["wrong"]:
            assert case["wrong"] in case["text"]
        if not case["leak"]:
            assert case["parts"] == [] and case["context"] == case["text"]


def test_size_and_coverage(cases, problems):
    assert 5000 <= len(cases) <= 8000
    leaks = sum(case["leak"] for case in cases)
    assert 0.4 <= leaks / len(cases) <= 0.6
    types = {answer_type(row["answer"], row["problem"]) for row in problems}
    for family in ("rendering", "clean"):
        assert {case["answer_type"] for case in cases if case["family"] == family} == types
    assert Counter(case["family"] for case in cases)["approximation"] >= 100
    assert len({case["style"] for case in cases}) >= 100


def test_parts_stand_in_text_and_context_hides_them(cases):
    for case in cases:
        assert not stated(case, case["context"])
        if not case["leak"]:
            continue
        assert case["parts"]
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1, (part, case["text"])
        assert stated(case, case["text"])
        rebuilt = case["context"]
        for part in case["parts"]:
            rebuilt = rebuilt.replace("\\ldots", part, 1)
        assert rebuilt == case["text"]


def test_approximations_have_three_significant_digits(cases, problems, checkers):
    for case in (case for case in cases if case["family"] == "approximation"):
        (part,) = case["parts"]
        assert len(part.lstrip("-0.").replace(".", "")) >= 3
        assert "." in part
        answer = checkers[case["index"]].answer
        assert answer.approximable()
        assert abs(float(part) - float(answer.numeric_value())) <= 10.0 ** -len(part.split(".")[1])


def test_checker_finds_answer_in_every_leak_and_no_clean_text(cases, checkers):
    for case in cases:
        checker = checkers[case["index"]]
        assert checker.holds(case["text"]) == case["leak"], case["text"]
        if case["leak"]:
            assert not checker.holds(case["context"]), case["context"]
        if case["wrong"]:
            assert not checker.holds(case["wrong"]), case["wrong"]


def test_determinism(problems, cases):
    assert fifteenth.corpus(problems) == cases
    other = fifteenth.corpus(problems, seed=fifteenth.SEED + 1)
    assert [case["text"] for case in other] != [case["text"] for case in cases]


def test_number_words():
    assert fifteenth.integer_words(13535) == "thirteen thousand five hundred thirty-five"
    assert fifteenth.integer_words(-50) == "negative fifty"
    assert fifteenth.ordinal_words(56) == "fifty-sixth"
    assert fifteenth.fraction_words(Fraction(3, 56)) == "three fifty-sixths"
    assert fifteenth.fraction_words(Fraction(3, 4), quarters=True) == "three quarters"
    assert fifteenth.fraction_words(Fraction(1, 2)) == "one half"
    assert fifteenth.words_to_integer("thirty-two thousand three hundred forty-eight") == 32348
    assert fifteenth.decimal_words("1.25") == "one point two five"


def test_decimals():
    assert fifteenth.terminating_decimal(Fraction(57, 160)) == "0.35625"
    assert fifteenth.terminating_decimal(Fraction(14, 3)) is None
    assert fifteenth.repeating_decimal(Fraction(14, 3)) == ("4", "", "6")
    assert fifteenth.repeating_decimal(Fraction(3, 56)) == ("0", "053", "571428")
    assert fifteenth.significant(2 * 5**0.5, 4, truncate=False) == "4.472"
    assert fifteenth.significant(2 / 3, 3, truncate=True) == "0.666"
    assert fifteenth.significant(2 / 3, 3, truncate=False) == "0.667"


def test_radical_renderings(problems):
    _, answer = answer_of(problems, "2\\sqrt{5}")
    rendered = texts(answer)
    for expected in ("2\\sqrt{5}", "2√5", "2*sqrt(5)", "two root five", "\\sqrt{20}"):
        assert expected in rendered
    assert rendered["two times the square root of five"].style == "words long"
    checker = fifteenth.Checker(answer)
    assert checker.holds("It is about 4.472, not 4.5.")
    assert checker.holds("It is about 4.5.")  # a unit of the last digit away: doubtful, so found
    assert not checker.holds("It is about 4.6, not 2√6.")


def test_fraction_renderings(problems):
    _, answer = answer_of(problems, "\\frac 34")
    rendered = texts(answer)
    for expected in ("\\frac{3}{4}", "\\frac34", "{3 \\over 4}", "3/4", "¾", "³⁄₄", "three quarters", "0.75"):
        assert expected in rendered
    assert rendered["75%"].parts == ["75"]
    _, answer = answer_of(problems, "\\frac{14}{3}")
    rendered = texts(answer)
    for expected in ("4.\\overline{6}", "4 2/3", "four and two thirds", "4⅔", "fourteen thirds"):
        assert expected in rendered


def test_structured_renderings(problems):
    _, point = answer_of(problems, "(15,-29)")
    assert "x = 15 and y = -29" in texts(point)
    assert "(15, −29)" in texts(point)
    _, interval = answer_of(problems, "x \\in [-2,7]")
    assert {"-2 <= x <= 7", "−2 ≤ x ≤ 7", "all x between -2 and 7 inclusive"} <= set(texts(interval))
    _, union = answer_of(problems, "(-\\infty, 2) \\cup (3, \\infty)")
    assert {"x < 2 or x > 3", "(-∞, 2) ∪ (3, ∞)", "ℝ \\ [2, 3]"} <= set(texts(union))
    _, numeral = answer_of(problems, "52_8")
    assert texts(numeral)["52 in base 8"].parts == ["52"]
    assert texts(numeral)["42 in base ten"].parts == ["42"]
    _, angle = answer_of(problems, "90^\\circ")
    assert texts(angle)["π/2 rad"].parts == ["π/2"]
    _, area = answer_of(problems, "864 \\mbox{ inches}^2")
    assert texts(area)["6 square feet"].parts == ["6"]
    _, roots = answer_of(problems, "1 \\pm \\sqrt{19}")
    assert {"1 ± √19", "1 + sqrt(19) and 1 - sqrt(19)", "one plus or minus root nineteen"} <= set(texts(roots))
    _, choice = answer_of(problems, "\\text{(C)}")
    assert texts(choice)["(C) Plane"].parts == ["(C)", "Plane"]
    _, equation = answer_of(problems, "y = 2x + 3")
    assert {"2x + 3 = y", "-2x + y - 3 = 0", "y equals two x plus three"} <= set(texts(equation))
    _, vector = answer_of(problems, "\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}")
    assert {"(-2, -14, -7)", "[-2, -14, -7]^T", "-2i - 14j - 7k"} <= set(texts(vector))


def test_a_corpus_case_by_hand(cases, problems):
    index, _ = answer_of(problems, "2\\sqrt{5}")
    by_hand = {"2\\sqrt{5}", "2 \\sqrt{5}", "2\\sqrt5", "2sqrt(5)", "2*sqrt(5)", "2√5", "\\sqrt{20}", "√20"}
    by_hand |= {"two root five", "two times the square root of five"}
    written = [case for case in cases if case["index"] == index and case["family"] == "rendering"]
    assert len(written) >= 5
    for case in written:
        (part,) = case["parts"]
        assert part in by_hand
        assert case["context"] == case["text"].replace(part, "\\ldots", 1)
