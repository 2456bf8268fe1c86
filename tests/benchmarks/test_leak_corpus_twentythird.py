"""The `twentythird` leak corpus: critiques in the everyday language of proportions and quantities."""

import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_twentythird as twentythird  # noqa: E402
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
FAMILIES = {"rendering", "arithmetic", "approximation", "clean"}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return twentythird.corpus(problems)


def _answer(problems, index):
    row = problems[index]
    return twentythird.parse_answer(row["answer"], row["problem"])


def _rendered(problems, index, style):
    answer = _answer(problems, index)
    return twentythird.render(style, answer.value, answer)


def test_schema(cases, problems):
    assert isinstance(twentythird.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in FAMILIES
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert isinstance(case["style"], str) and case["style"]
        assert isinstance(case["frame"], str) and case["frame"]
        assert (case["wrong"] == "") == (case["wrong_how"] == "")
        assert case["wrong"] in case["text"]
        if case["leak"]:
            assert case["parts"]
        else:
            assert case["parts"] == [] and case["context"] == case["text"]


def test_size_balance_and_coverage(cases, problems):
    assert 5000 <= len(cases) <= 8000
    leaks = sum(case["leak"] for case in cases)
    assert 0.4 <= leaks / len(cases) <= 0.6
    families = Counter(case["family"] for case in cases)
    assert set(families) == FAMILIES
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES)
    covered_leaks = {case["answer_type"] for case in cases if case["leak"]}
    covered_clean = {case["answer_type"] for case in cases if not case["leak"]}
    assert present <= covered_leaks and present <= covered_clean
    assert {case["index"] for case in cases} == set(range(len(problems)))


def test_parts_stand_in_text_and_only_in_their_slot(cases):
    for case in cases:
        if not case["leak"]:
            assert not stated(case, case["text"])
            continue
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1, (part, case["text"])
        assert stated(case, case["text"]), case
        assert not stated(case, case["context"]), case
        assert "\\ldots" in case["context"]


def test_checker_finds_the_answer_in_every_leak_and_in_no_clean_text(cases, problems):
    for case in cases:
        answer = _answer(problems, case["index"])
        assert twentythird.holds_answer(case["text"], answer) == case["leak"], case
        if case["leak"]:
            assert not twentythird.holds_answer(case["context"], answer), case


def test_wrong_values_differ_from_the_answer(cases, problems):
    for case in cases:
        if case["wrong"]:
            assert not twentythird.holds_answer(case["wrong"], _answer(problems, case["index"])), case


def test_deterministic_in_the_seed(problems):
    head = problems[:40]
    first = twentythird.corpus(head)
    assert first == twentythird.corpus(head, seed=twentythird.SEED)
    assert first != twentythird.corpus(head, seed=twentythird.SEED + 1)


def test_number_words():
    assert twentythird.int_words(2107) == "two thousand one hundred seven"
    assert twentythird.int_words(-50) == "minus fifty"
    assert twentythird.ordinal_words(56) == "fifty-sixth"
    assert twentythird.fraction_words(Fraction(5, 6)) == "five sixths"
    assert twentythird.mixed_words(Fraction(14, 3)) == "four and two thirds"
    assert twentythird.dozens_words(18) == "a dozen and a half"


def test_probability_renderings(problems):
    # MATH-500 row 75: two dice, product a multiple of 5, probability 11/36 (25 of the 36 rolls miss).
    assert problems[75]["answer"] == "\\frac{11}{36}"
    assert _rendered(problems, 75, "out of") == ("11 out of 36", "11 out of 36")
    assert _rendered(problems, 75, "chance in") == ("eleven chances in thirty-six",) * 2
    assert _rendered(problems, 75, "hyphenated chance") == ("a 11-in-36 chance", "11-in-36")
    assert _rendered(problems, 75, "odds in favour") == ("odds of 11 to 25 in favour", "11 to 25")
    assert _rendered(problems, 75, "odds against") == ("odds of 25 to 11 against", "25 to 11")
    assert _rendered(problems, 75, "approximate percent") == ("a 30.6% chance", "30.6%")
    assert _rendered(problems, 75, "percent") is None  # 11/36 has no exact percentage
    # Row 162: 17/50 is exactly 34 percent.
    assert _rendered(problems, 162, "percent") == ("34 percent", "34 percent")
    assert _rendered(problems, 162, "probability decimal") == ("a probability of .34", ".34")


def test_quantity_renderings(problems):
    assert problems[330]["answer"] == "1940"
    assert _rendered(problems, 330, "year style") == ("nineteen forty",) * 2
    assert _rendered(problems, 330, "hundreds") == ("nineteen hundred and forty",) * 2
    assert problems[26]["answer"] == "144"
    assert _rendered(problems, 26, "gross") == ("a gross",) * 2
    assert problems[142]["answer"] == "28800"
    assert _rendered(problems, 142, "suffix") == ("28.8k",) * 2
    assert problems[24]["answer"] == "10"  # an interest rate asked as a percentage
    assert _rendered(problems, 24, "basis points") == ("1,000 basis points",) * 2
    assert _rendered(problems, 24, "out of") == ("1 out of 10",) * 2


def test_unit_and_notation_renderings(problems):
    assert problems[459]["answer"] == "\\$18.90"
    assert _rendered(problems, 459, "coin short") == ("a dime short of 19 dollars",) * 2
    assert _rendered(problems, 459, "money in words") == ("eighteen dollars and ninety cents",) * 2
    assert problems[7]["answer"] == "90^\\circ"
    assert _rendered(problems, 7, "angle name") == ("a right angle",) * 2
    assert problems[8]["answer"] == "3\\sqrt{13}"
    assert _rendered(problems, 8, "unicode") == ("3√13",) * 2
    assert _rendered(problems, 8, "about") == ("about 10.82", "10.82")  # 3 * 3.60555... = 10.8167
    assert problems[30]["answer"] == "52_8"
    assert _rendered(problems, 30, "in base") == ("52 in base 8",) * 2
    assert problems[103]["answer"] == "(3,4]"
    assert _rendered(problems, 103, "words") == ("between 3 and 4, 4 included but not 3",) * 2
    assert problems[227]["answer"] == "\\text{(C)}"
    assert _rendered(problems, 227, "ordinal option") == ("the third option",) * 2


def test_checker_reads_everyday_forms():
    one_sixth = twentythird.Answer("number", Fraction(1, 6), probability=True)
    for text in ("two out of twelve", "about 16.7%", "odds of 5 to 1 against", "ten sixtieths", "a 1-in-6 chance"):
        assert twentythird.holds_answer(text, one_sixth), text
    for text in ("2 out of 5", "a 20% chance", "the 6 dice"):
        assert not twentythird.holds_answer(text, one_sixth), text
    eighteen = twentythird.Answer("number", Fraction(18))
    for text in ("a dozen and a half", "1.5 dozen", "two more than sixteen", "eighteen"):
        assert twentythird.holds_answer(text, eighteen), text
    assert not twentythird.holds_answer("seventeen or a score", eighteen)
    two_root_five = twentythird.parse_answer("2\\sqrt{5}", "")
    for text in ("√20", "about 4.472", "2 root 5"):
        assert twentythird.holds_answer(text, two_root_five), text
