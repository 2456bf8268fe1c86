import re
from collections import Counter
from fractions import Fraction

import pytest

from benchmarks.leak_corpus import answer_type, load_problems, occurrences, stated
from benchmarks.leak_corpus_fourth import (
    CLEAN_REGISTERS,
    LEAK_REGISTERS,
    SEED,
    convert,
    corpus,
    fraction_words,
    number_of,
    question_type,
    words,
)


LEAK_KEYS = {"family", "split", "index", "answer_type", "style", "frame", "text", "leak", "written_out", "parts"}
LEAK_KEYS |= {"context"}
CLEAN_KEYS = (LEAK_KEYS - {"leak"}) | {"leak", "wrong", "wrong_how"}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return corpus(problems)


def test_number_words_and_notations():
    assert words(1234) == "one thousand two hundred thirty-four"
    assert words(-40) == "negative forty"
    assert fraction_words(Fraction(3, 8)) == "three-eighths"
    assert fraction_words(Fraction(1, 4)) == "one-quarter"
    assert fraction_words(Fraction(14, 3)) == "four and two-thirds"
    assert fraction_words(Fraction(5, 21)) == "five-twenty-firsts"
    assert convert(r"3\sqrt{13}", "ascii") == "3*sqrt(13)"
    assert convert(r"3\sqrt{13}", "unicode") == "3√13"
    assert convert(r"\frac{11+9a}{20}", "ascii") == "(11+9a)/20"
    assert convert(r"-\frac{\pi}{6}", "unicode") == "−π/6"
    assert convert("x^5 - x^4", "unicode") == "x⁵ − x⁴"
    assert number_of(r"\frac{14}{3}") == Fraction(14, 3)
    assert number_of(r"1\frac{4}{5}") == Fraction(9, 5)
    assert number_of(".35625") == Fraction(35625, 100000)
    assert number_of(r"32,\!348") == 32348
    assert number_of(r"3\sqrt{13}") is None


@pytest.mark.parametrize(
    ("problem", "kind", "expected"),
    [
        ("A right triangle has legs 6 and 8. What is the area of the triangle?", "small integer", "area"),
        ("How many ways can 5 people sit around a round table?", "small integer", "count"),
        (
            "Two dice are rolled. What is the probability of a sum of 7? Express it as a common fraction.",
            "fraction",
            "probability",
        ),
        ("What is the remainder when $2^{10}$ is divided by 7?", "small integer", "remainder"),
        ("Solve for $x$: $2x + 3 = 13$.", "small integer", "variable"),
        ("Find the ordered pair $(x,y)$ that solves the system.", "ordered pair", "ordered pair"),
        ("What is the smallest positive integer $n$ with 6 divisors?", "small integer", "extremum"),
    ],
)
def test_question_type(problem, kind, expected):
    assert question_type(problem, kind) == expected


def test_question_type_follows_the_unit_of_a_units_answer():
    problem = "A 2 inch cube costs $\\$6.80$ for its surface area and volume. How much would a 3 inch cube cost?"
    assert question_type(problem, "small integer") == "area"
    assert question_type(problem, "units/degrees/money", r"\$18.90") == "money"
    assert question_type("Find the area of the sector.", "units/degrees/money", r"30^\circ") == "angle"


def test_deterministic_in_seed(problems, cases):
    assert corpus(problems) == cases
    assert corpus(problems[:40], seed=SEED + 1) != corpus(problems[:40])


def test_schema(problems, cases):
    for case in cases:
        assert set(case) == (LEAK_KEYS if case["leak"] else CLEAN_KEYS), case
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        register = case["frame"].split(":")[0]
        if case["leak"]:
            assert case["family"] in ("rendering", "arithmetic", "approximation")
            assert register in LEAK_REGISTERS
            assert case["parts"] and len(case["context"]) < len(case["text"])
            assert case["written_out"] == (case["family"] == "rendering")
        else:
            assert case["family"] == "clean" and register in [*CLEAN_REGISTERS, "no wrong"]
            assert case["written_out"] is False and case["parts"] == [] and case["context"] == case["text"]
            assert (case["wrong"] is None) == (case["wrong_how"] is None)
            if case["wrong"] is not None:
                assert case["wrong"] in case["text"]


def test_every_part_stands_more_often_in_the_text_than_in_its_context(cases):
    for case in (case for case in cases if case["leak"]):
        for part in case["parts"]:
            assert occurrences(part, case["text"]) > occurrences(part, case["context"]), (part, case["text"])
        assert stated(case, case["text"]) and not stated(case, case["context"])


def _value(token: str) -> Fraction:
    top, _, bottom = token.partition("/")
    return Fraction(top.replace(",", "")) / Fraction(bottom or 1)


def test_clean_texts_do_not_show_the_answer(problems, cases):
    """Independent of the corpus's own check: the raw answer, its bare word or letter, and any plain number,
    fraction or \\frac equal to a numeric answer are absent from every clean text."""
    for case in (case for case in cases if not case["leak"]):
        answer = problems[case["index"]]["answer"]
        bare = re.sub(r"\\[!,]|\\left|\\right|\s", "", answer)
        text = case["text"]
        numeric = re.fullmatch(r"-?\d+(?:\.\d+)?|-?\.\d+|-?\\frac\{\d+\}\{\d+\}", bare)
        if not numeric:
            assert bare not in text.replace(" ", ""), (answer, text)
        named = re.fullmatch(r"\\text\{\(?([A-Za-z]+)\)?\}", answer)
        if named and len(named.group(1)) == 1:
            assert f"({named.group(1)})" not in text
        elif named:
            assert not re.search(rf"\b{named.group(1)}\b", text, re.I), text
        if numeric:
            value = _value(re.sub(r"\\frac\{(\d+)\}\{(\d+)\}", r"\1/\2", bare))
            text_plain = re.sub(r"\\frac\{(\d+)\}\{(\d+)\}", r"\1/\2", text)
            for sign, token in re.findall(r"([-−]?)(\d[\d,]*(?:\.\d+)?(?:/\d+)?|\.\d+)", text_plain):
                assert (-1 if sign else 1) * _value(token) != value, (answer, text)


def test_coverage(problems, cases):
    leaks = [case for case in cases if case["leak"]]
    clean = [case for case in cases if not case["leak"]]
    assert len(leaks) >= 3000 and len(clean) >= 2000
    assert {case["index"] for case in leaks} == {case["index"] for case in clean} == set(range(len(problems)))
    written = Counter(case["answer_type"] for case in leaks if case["written_out"])
    for kind in {answer_type(row["answer"], row["problem"]) for row in problems}:
        assert written[kind] >= 20, kind
    assert {case["family"] for case in leaks} == {"rendering", "arithmetic", "approximation"}
    assert {case["frame"].split(":")[0] for case in leaks} == set(LEAK_REGISTERS)
    assert {case["frame"].split(":")[0] for case in clean} == {*CLEAN_REGISTERS, "no wrong"}
