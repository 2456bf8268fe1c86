import math
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_seventeenth as seventeenth  # noqa: E402
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
FAMILIES = ("rendering", "approximation", "clean")


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return seventeenth.corpus(problems)


def texts_of(style_renderings):
    return {rendering.style: rendering.text for rendering in style_renderings}


def test_schema(cases, problems):
    assert isinstance(seventeenth.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in FAMILIES
        assert case["split"] == "held_out"
        assert 0 <= case["index"] < len(problems)
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["answer_type"] in ANSWER_TYPES
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert case["style"] and case["frame"] in seventeenth.FRAMES
        assert (case["wrong"] == "") == (case["wrong_how"] == "")
        assert case["wrong"] == "" or occurrences(case["wrong"], case["text"]) or case["wrong"] in case["text"]
        if case["leak"]:
            assert case["parts"]
        else:
            assert case["parts"] == [] and case["context"] == case["text"]


def test_size_and_coverage(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 5000 <= len(cases) <= 8000
    assert 0.4 <= (families["rendering"] + families["approximation"]) / len(cases) <= 0.6
    assert families["approximation"] >= 50
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    for family in ("rendering", "clean"):
        assert {case["answer_type"] for case in cases if case["family"] == family} == present
    assert {case["index"] for case in cases} == set(range(len(problems)))


def test_parts_state_the_value(cases):
    for case in cases:
        if not case["leak"]:
            continue
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1 and occurrences(part, case["context"]) == 0, case
        assert stated(case, case["text"]), case
        assert not stated(case, case["context"]), case
        assert case["context"].count("\\ldots") - case["text"].count("\\ldots") == len(case["parts"])
        assert case["context"].replace("\\ldots", "") != case["text"]


def test_approximations_round_the_answer(cases, problems):
    for case in cases:
        if case["family"] != "approximation":
            continue
        assert not case["written_out"] and len(case["parts"]) == 1
        row = problems[case["index"]]
        value = float(seventeenth.exact_value(row["answer"], case["answer_type"]))
        digits = case["parts"][0]
        assert len(digits.lstrip("-").replace(".", "").lstrip("0")) >= 3
        decimals = len(digits.partition(".")[2])
        assert abs(float(digits) - value) <= 0.5 * 10**-decimals + 1e-12
        assert float(digits) != value


def test_scalar_renderings_have_the_answer_value(problems):
    checked = 0
    for row in problems:
        kind = answer_type(row["answer"], row["problem"])
        if kind not in seventeenth.SCALAR_TYPES or kind == "units/degrees/money":
            continue
        value = float(seventeenth.exact_value(row["answer"], kind))
        for rendering in seventeenth.renderings(row["answer"], kind, row["problem"]):
            for part in rendering.parts:
                read = seventeenth.casual_value(part)
                if read is not None:
                    assert math.isclose(read, value, rel_tol=1e-9), (row["answer"], rendering)
                    checked += 1
    assert checked > 600


def test_checker_finds_every_leak_and_no_clean(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert seventeenth.holds_answer(case["text"], row["answer"], row["problem"]) == case["leak"], case


def test_wrong_values_differ_from_the_answer(cases, problems):
    for case in cases:
        if case["wrong"]:
            row = problems[case["index"]]
            assert not seventeenth.holds_answer(case["wrong"], row["answer"], row["problem"]), case


def test_determinism(cases, problems):
    assert seventeenth.corpus(problems, seed=seventeenth.SEED) == cases
    other = seventeenth.corpus(problems, seed=seventeenth.SEED + 1)
    assert other != cases
    assert [case["text"] for case in other] != [case["text"] for case in cases]


def test_words():
    assert seventeenth.number_words(42) == "forty-two"
    assert seventeenth.number_words(42, hyphen=False) == "forty two"
    assert seventeenth.number_words(2220) == "two thousand two hundred twenty"
    assert seventeenth.fraction_words(Fraction(3, 4)) == "three quarters"
    assert seventeenth.fraction_words(Fraction(3, 4), quarter=False) == "three fourths"
    assert seventeenth.fraction_words(Fraction(1, 3)) == "a third"
    assert seventeenth.fraction_words(Fraction(11, 36)) == "eleven thirty-sixths"
    assert seventeenth.decimal_words("3.21") == "three point two one"


def test_casual_notation():
    latex = "\\frac{3\\sqrt{3}}{4}"
    assert seventeenth.casual(latex) == "3sqrt3/4"
    assert seventeenth.casual(latex, seventeenth.Notation(root="symbol")) == "3√3/4"
    assert seventeenth.casual(latex, seventeenth.Notation(root="times")) == "(3*sqrt(3))/4"
    assert seventeenth.casual("-\\frac{\\pi}{6}", seventeenth.Notation(pi="π")) == "-π/6"
    assert seventeenth.casual_value("3√3/4") == pytest.approx(3 * math.sqrt(3) / 4)
    assert seventeenth.casual_value("13,535") == 13535
    assert seventeenth.casual_value("2.5k") == 2500


def test_hand_written_renderings(problems):
    fourteen_thirds = texts_of(seventeenth.renderings("\\frac{14}{3}", "fraction"))
    assert fourteen_thirds["mixed"] == "4 2/3"
    assert fourteen_thirds["mixed_words"] == "four and two thirds"
    assert fourteen_thirds["digit_word_fraction"] == "14 thirds"
    three_quarters = texts_of(seventeenth.renderings("\\frac 34", "fraction"))
    assert three_quarters["decimal"] == "0.75" and three_quarters["percent"] == "75%"
    assert three_quarters["digit_word_fraction"] == "3 quarters"
    root = texts_of(seventeenth.renderings("3\\sqrt{13}", "radical"))
    assert root["root_symbol"] == "3√13" and root["single_root"] == "sqrt(117)"
    assert texts_of(seventeenth.renderings("2516_8", "base-n number"))["base_ten"] == "1358 in base 10"
    assert texts_of(seventeenth.renderings("\\$32,\\!348", "units/degrees/money"))["dollar_sign"] == "$32,348"
    area = texts_of(seventeenth.renderings("864 \\mbox{ inches}^2", "units/degrees/money"))
    assert area["in_square_feet"] == "6 sq ft"
    assert texts_of(seventeenth.renderings("145^\\circ", "units/degrees/money"))["radians"] == "29pi/36 rad"
    interval = texts_of(seventeenth.renderings("x \\in [-2,7]", "interval"))
    assert interval["interval_words"] == "between -2 and 7 inclusive"
    assert interval["inequality"] == "-2<=x<=7"
    union = texts_of(seventeenth.renderings("(0,9) \\cup (9,36)", "interval"))
    assert union["punctured"] == "0<x<36 but x != 9"
    curve = problems[144]
    assert curve["answer"] == "(15,-29)"
    assert (
        texts_of(seventeenth.renderings(curve["answer"], "ordered pair", curve["problem"]))["assign"] == "x=15, y=-29"
    )
    line = texts_of(seventeenth.renderings("y = 2x + 3", "equation"))
    assert line["negated"] == "2x - y + 3 = 0" and line["slope_intercept"] == "m=2, b=3"
    shape = problems[227]
    named = [
        r
        for r in seventeenth.renderings(shape["answer"], "multiple choice", shape["problem"])
        if r.style == "named_option"
    ]
    assert named[0].text == "C, the plane" and named[0].parts == ["C", "plane"]
    assert texts_of(seventeenth.approximation_renderings("\\frac{14}{3}", "fraction"))["about_4"] == "about 4.667"


def test_hand_written_checks():
    holds = seventeenth.holds_answer
    assert holds("ngl its 0.75", "\\frac 34")
    assert holds("its 3 quarters tho", "\\frac 34")
    assert not holds("i got 3/5 and 4/3", "\\frac 34")
    assert holds("like 4.472 on my calc", "2\\sqrt{5}")
    assert holds("should be sqrt(20)", "2\\sqrt{5}")
    assert not holds("u had 2sqrt3", "2\\sqrt{5}")
    assert holds("x = 15 , y = -29", "(15,-29)")
    assert not holds("> (15, -28)", "(15,-29)")
    assert holds("its option c", "\\text{(C)}")
    assert not holds("its option d", "\\text{(C)}")
    assert holds("between -2 and 7 inclusive", "x \\in [-2,7]")
    assert not holds("-2<x<7", "x \\in [-2,7]")
