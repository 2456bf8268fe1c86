import sys
from collections import Counter
from pathlib import Path

import pytest
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_twentyfirst import (  # noqa: E402
    SEED,
    approximable,
    approximate,
    corpus,
    holds_answer,
    parse_answer,
    render,
)


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
    return corpus(problems)


@pytest.fixture(scope="module")
def values(problems):
    return [parse_answer(row["answer"], row["problem"]) for row in problems]


def _value_of(problems, answer):
    row = next(row for row in problems if row["answer"] == answer)
    return parse_answer(row["answer"], row["problem"])


def test_schema(cases, problems):
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert case["style"] and case["frame"] and case["wrong"] and case["wrong_how"]
        assert case["wrong"] in case["text"]


def test_size_balance_and_coverage(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 5000 <= len(cases) <= 8000
    assert families["clean"] == families["rendering"] + families["approximation"]
    assert families["approximation"] > 100
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES)
    covered = {case["answer_type"] for case in cases if case["leak"]}
    assert covered == present == {case["answer_type"] for case in cases if not case["leak"]}
    assert {case["index"] for case in cases} == set(range(len(problems)))


def test_parts_are_stated_and_context_is_not(cases):
    for case in cases:
        if case["leak"]:
            assert case["parts"]
            for part in case["parts"]:
                assert occurrences(part, case["text"]) >= 1, (part, case["text"])
            assert stated(case, case["text"])
            assert case["context"] != case["text"]
        else:
            assert case["parts"] == [] and case["context"] == case["text"]
        assert not stated(case, case["context"])


def test_checker_finds_answer_in_leaks_only(cases, values):
    for case in cases:
        value = values[case["index"]]
        assert holds_answer(case["text"], value) == case["leak"], case["text"]
        if case["leak"]:
            assert not holds_answer(case["context"], value), case["context"]


def test_approximations_are_close_and_of_non_terminating_values(cases, problems):
    for case in cases:
        if case["family"] != "approximation":
            continue
        (part,) = case["parts"]
        digits = part.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
        assert len(digits) >= 3
        value = parse_answer(problems[case["index"]]["answer"], problems[case["index"]]["problem"])
        assert approximable(value)
        number = value.data[0]
        assert not number.is_Rational or any(prime not in (2, 5) for prime in sympy.primefactors(number.q))
        assert abs(float(part) - float(number)) <= 1e-3 * max(1.0, abs(float(number)))


def test_deterministic(problems, cases):
    assert corpus(problems, seed=SEED) == cases
    other = corpus(problems, seed=SEED + 1)
    assert other != cases
    assert len(other) > 5000


def test_hand_written_renderings(problems):
    fourteen_thirds = _value_of(problems, "\\frac{14}{3}")
    assert render(fourteen_thirds, "lean") == ("(14 : ℚ) / 3", "(14 : ℚ) / 3")
    assert render(fourteen_thirds, "julia") == ("14//3", "14//3")
    assert render(fourteen_thirds, "coq") == ("14 # 3", "14 # 3")
    assert render(fourteen_thirds, "haskell") == ("14 % 3", "14 % 3")
    assert render(fourteen_thirds, "r_print") is None
    assert approximate(fourteen_thirds, "octave_short") == ("4.6667", "4.6667")
    assert approximate(fourteen_thirds, "r_float") == ("[1] 4.666667", "4.666667")

    radical = _value_of(problems, "3\\sqrt{13}")
    assert render(radical, "lean") == ("3 * Real.sqrt 13", "3 * Real.sqrt 13")
    assert render(radical, "julia") == ("3√13", "3√13")
    assert render(radical, "mathematica") == ("3*Sqrt[13]", "3*Sqrt[13]")
    assert render(radical, "coq") == ("(3 * sqrt 13)%R", "3 * sqrt 13")
    assert approximate(radical, "about") == ("about 10.82", "10.82")

    pair = _value_of(problems, "(15,-29)")
    assert render(pair, "lean_conj") == ("⊢ x = 15 ∧ y = -29", "x = 15 ∧ y = -29")
    assert render(pair, "coq") == ("(15, -29)%Z", "(15, -29)")
    assert render(pair, "octave_ans") == ("[15 -29]", "[15 -29]")

    minus_identity = _value_of(problems, "\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}")
    assert render(minus_identity, "lean") == ("!![-1, 0; 0, -1]", "!![-1, 0; 0, -1]")
    assert render(minus_identity, "r_code")[0] == "matrix(c(-1, 0, 0, -1), nrow = 2)"
    assert render(minus_identity, "octave_ans")[0] == "[-1 0; 0 -1]"

    interval = _value_of(problems, "(3,4]")
    assert render(interval, "lean")[0] == "Set.Ioc 3 4"
    assert render(interval, "isabelle")[0] == "{3<..4}"
    assert render(interval, "sympy")[0] == "Interval.Lopen(3, 4)"
    assert render(interval, "inequality")[0] == "3 < x <= 4"
    ray = _value_of(problems, "(-\\infty, 0]")
    assert render(ray, "lean")[0] == "Set.Iic 0"
    assert render(ray, "isabelle")[0] == "{..0}"

    complex_number = _value_of(problems, "6 - 5i")
    assert render(complex_number, "julia")[0] == "6 - 5im"
    assert render(complex_number, "python")[0] == "(6-5j)"
    assert render(complex_number, "maxima")[0] == "6-5*%i"

    octal = _value_of(problems, "52_8")
    assert render(octal, "python") == ("'0o52'", "0o52")
    assert render(octal, "r_print") == ("[1] 42", "42")

    pi_sixth = _value_of(problems, "-\\frac{\\pi}{6}")
    assert render(pi_sixth, "maxima")[0] == "-%pi/6"
    assert render(pi_sixth, "lean")[0] == "-Real.pi / 6"

    assert render(_value_of(problems, "\\text{(C)}"), "harness_string") == ("'(C)'", "(C)")
    assert render(_value_of(problems, "\\text{even}"), "json_string") == ('"even"', "even")
    assert render(_value_of(problems, "1.25"), "python") == ("Decimal('1.25')", "1.25")
    assert render(_value_of(problems, "1.25"), "octave_ans") == ("1.2500", "1.2500")


def test_checker_on_hand_written_texts(problems):
    fourteen_thirds = _value_of(problems, "\\frac{14}{3}")
    assert holds_answer("AssertionError: Fraction(14, 3) != Fraction(13, 3)", fourteen_thirds)
    assert holds_answer("ans = 4.6667", fourteen_thirds)
    assert holds_answer("expected '28/6'", fourteen_thirds)
    assert not holds_answer("AssertionError: Fraction(13, 3) is rejected; step 14 and 3 pass", fourteen_thirds)
    pair = _value_of(problems, "(15,-29)")
    assert holds_answer("⊢ x = 15 ∧ y = -29", pair)
    assert not holds_answer("⊢ x = 15 ∧ y = -28", pair)
    expression = _value_of(problems, "x^3+3x-6")
    assert holds_answer("got: 3*x + x**3 - 6", expression)
    assert not holds_answer("got: x^3 + 3*x - 5", expression)
    radical = _value_of(problems, "2\\sqrt{5}")
    assert holds_answer("Octave: ans = 4.4721", radical)
    assert holds_answer("Julia returns 2√5", radical)
    assert not holds_answer("Julia returns 3√5", radical)
