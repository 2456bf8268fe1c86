"""Tests of the held-out leak corpus `twentysecond` (numbers written by other locales' and typographic conventions)."""

import sys
from collections import Counter
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_twentysecond as twentysecond  # noqa: E402
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
CONVENTIONS = {convention.name: convention for convention in twentysecond.CONVENTIONS}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return twentysecond.corpus(problems)


def _answer(problems, latex):
    row = next(row for row in problems if row["answer"] == latex)
    return twentysecond.parse_answer(row["answer"], row["problem"])


def test_schema(cases, problems):
    assert isinstance(twentysecond.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert isinstance(case["style"], str) and case["style"]
        assert isinstance(case["frame"], str) and case["frame"]
        assert case["wrong"] and case["wrong"] in case["text"]
        assert case["wrong_how"]


def test_size_balance_and_coverage(cases, problems):
    assert 5000 <= len(cases) <= 8000
    families = Counter(case["family"] for case in cases)
    assert 0.4 <= (families["rendering"] + families["approximation"]) / len(cases) <= 0.6
    assert families["approximation"] > 100
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    for kind in present:
        kinds = Counter(case["family"] for case in cases if case["answer_type"] == kind)
        assert kinds["rendering"] and kinds["clean"], kind
    assert present <= set(ANSWER_TYPES)
    assert {case["index"] for case in cases} == set(range(len(problems)))


def test_parts_are_stated_and_contexts_are_not(cases):
    for case in cases:
        if case["leak"]:
            assert case["parts"]
            for part in case["parts"]:
                assert occurrences(part, case["text"]) >= 1, (part, case["text"])
            assert stated(case, case["text"])
        else:
            assert case["parts"] == [] and case["context"] == case["text"]
        assert not stated(case, case["context"])
        assert case["context"].count("\\ldots") == case["text"].count("\\ldots") + (1 if case["leak"] else 0)


def test_checker_finds_every_leak_and_no_clean(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert twentysecond.holds_answer(case["text"], row["answer"], row["problem"]) == case["leak"], case["text"]


def test_wrong_values_differ_from_the_answer(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert not twentysecond.holds_answer(case["wrong"], row["answer"], row["problem"]), case


def test_determinism(problems, cases):
    assert twentysecond.corpus(problems) == cases
    assert twentysecond.corpus(problems, seed=1) != cases


def test_renderings_by_hand(problems):
    german, french, swiss, indian = (CONVENTIONS[name] for name in ("german", "french", "swiss", "indian"))
    british, polish, russian = CONVENTIONS["british"], CONVENTIONS["polish"], CONVENTIONS["russian"]
    assert twentysecond.render(_answer(problems, "(15,-29)"), german, "parentheses").text == "(15; −29)"
    assert twentysecond.render(_answer(problems, "(15,-29)"), german, "bar").text == "(15 | −29)"
    assert twentysecond.render(_answer(problems, "(3,4]"), french, "brackets").text == "]3; 4]"
    assert twentysecond.render(_answer(problems, "x \\in [-2,7]"), polish, "brackets").text == "⟨−2; 7⟩"
    assert twentysecond.render(_answer(problems, "(3,4]"), indian, "inequality").text == "3 < x ≤ 4"
    fourteen_thirds = _answer(problems, "\\frac{14}{3}")
    assert twentysecond.render(fourteen_thirds, russian, "plain").text == "14 : 3"
    assert twentysecond.render(fourteen_thirds, indian, "plain").text == "14 by 3"
    assert twentysecond.render(fourteen_thirds, british, "words").text == "fourteen thirds"
    assert twentysecond.render(fourteen_thirds, german, "mixed_vulgar").text == "4⅔"
    assert twentysecond.render(fourteen_thirds, french, "fraction_stacked").text == "¹⁴⁄₃"
    money = _answer(problems, "\\$32,\\!348")
    assert twentysecond.render(money, french, "after").text == "32\u202f348 $"
    assert twentysecond.render(money, german, "after_cents").text == "32.348,00 $"
    assert twentysecond.render(money, german, "after").text == "32348 $"
    assert twentysecond.render(money, swiss, "before").text == "US$ 32'348"
    big = _answer(problems, "11,\\! 111,\\! 111,\\! 100")
    assert twentysecond.render(big, indian, "plain").text == "11,11,11,11,100"
    assert twentysecond.render(big, german, "plain").text == "11.111.111.100"
    assert twentysecond.render(_answer(problems, "4.5"), british, "plain").text == "4·5"
    assert twentysecond.render(_answer(problems, ".35625"), CONVENTIONS["american_terse"], "plain").text == ".35625"
    assert twentysecond.render(_answer(problems, "\\dfrac{17}{50}"), french, "percent").text == "34\u202f%"
    assert twentysecond.render(_answer(problems, ".0000672"), german, "scientific").text == "6,72·10⁻⁵"
    assert twentysecond.render(_answer(problems, "90^\\circ"), german, "gon").text == "100 gon"
    assert twentysecond.render(_answer(problems, "90^\\circ"), german, "radians").text == "π/2 rad"
    assert twentysecond.render(_answer(problems, "864 \\mbox{ inches}^2"), german, "square_feet").text == "6 ft²"
    assert twentysecond.render(_answer(problems, "5.4 \\text{ cents}"), german, "in_dollars").text == "0,054 $"
    assert twentysecond.render(_answer(problems, "52_8"), german, "subscript").text == "52₈"
    assert twentysecond.render(_answer(problems, "52_8"), german, "base_ten").part == "42"
    assert twentysecond.render(_answer(problems, "6 - 5i"), russian, "j").text == "6 – 5j"
    assert twentysecond.render(_answer(problems, "\\cot x"), russian, "plain").text == "ctg x"
    assert twentysecond.render(_answer(problems, "3\\sqrt{13}"), indian, "root_word").text == "3 root 13"
    assert twentysecond.render(_answer(problems, "3, 5, 7"), german, "braces").text == "{3; 5; 7}"
    matrix = _answer(problems, "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}")
    assert twentysecond.render(matrix, german, "rows").text == "(−1  0; 0  −1)"
    assert twentysecond.approximation(_answer(problems, "2\\sqrt{5}"), german, 5) == "4,4721"
    assert twentysecond.approximation(_answer(problems, "\\frac{14}{3}"), german, 3) == "4,67"


def test_no_unsettled_groupings():
    german, american = CONVENTIONS["german"], CONVENTIONS["american_terse"]
    assert twentysecond._format_decimal("1234", american) == "1234"
    assert twentysecond._format_decimal("12500", german) == "12500"
    assert twentysecond._format_decimal("1234567", american) == "1,234,567"
    assert twentysecond._format_decimal("3.215", german) == "3,2150"


def test_checker_reads_conventions(problems):
    row = next(row for row in problems if row["answer"] == "\\frac{14}{3}")
    for text in ("It is 4⅔.", "It is 4 2/3.", "It is 14 : 3.", "≈ 4,667 here", "¹⁴⁄₃", "It is 14 by 3."):
        assert twentysecond.holds_answer(text, row["answer"], row["problem"]), text
    for text in ("It is 4⅓.", "It is 13 : 3.", "≈ 4,5 here"):
        assert not twentysecond.holds_answer(text, row["answer"], row["problem"]), text
    row = next(row for row in problems if row["answer"] == "\\dfrac{17}{50}")
    assert twentysecond.holds_answer("I get 34 % here.", row["answer"], row["problem"])
    assert twentysecond.holds_answer("I get 0,34 here.", row["answer"], row["problem"])
