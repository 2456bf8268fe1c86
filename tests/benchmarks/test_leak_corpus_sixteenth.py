"""The sixteenth leak corpus (answers stated through arithmetic and approximation): schema, parts and contexts,
determinism, its own checker on every case, and renderings worked out by hand."""

import random
import sys
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_sixteenth import (  # noqa: E402
    NO_UNIT,
    SEED,
    SINGLE_NUMBER_TYPES,
    answer_unit,
    answer_value,
    corpus,
    evaluate,
    holds_answer,
    number_in_words,
    phrase_factorisation,
    phrase_power,
    phrase_quotient,
    phrase_root,
    render,
    terminates,
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


def test_schema(problems, cases):
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("arithmetic", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] is False
        assert isinstance(case["style"], str) and case["style"]
        assert isinstance(case["frame"], str) and case["frame"]
        assert isinstance(case["wrong"], str) and isinstance(case["wrong_how"], str)
        assert bool(case["wrong"]) == bool(case["wrong_how"])


def test_size_balance_and_coverage(problems, cases):
    assert 5000 <= len(cases) <= 8000
    leaks = sum(case["leak"] for case in cases)
    assert 0.4 <= leaks / len(cases) <= 0.6
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES)
    assert {case["answer_type"] for case in cases} == present
    by_family = Counter((case["index"], case["family"]) for case in cases)
    for index, row in enumerate(problems):
        if answer_type(row["answer"], row["problem"]) not in SINGLE_NUMBER_TYPES:
            continue
        assert by_family[index, "arithmetic"] >= 3, row["answer"]
        if not terminates(answer_value(row["answer"])):
            assert by_family[index, "approximation"] >= 5, row["answer"]


def test_parts_are_stated_in_the_text_and_not_in_the_context(cases):
    for case in cases:
        if not case["leak"]:
            assert case["parts"] == [] and case["context"] == case["text"]
            continue
        (part,) = case["parts"]
        assert occurrences(part, case["text"]) >= 1, case
        assert stated(case, case["text"]), case
        assert not stated(case, case["context"]), case
        assert case["context"].count("\\ldots") == case["text"].count("\\ldots") + 1
        slot = case["context"].index("\\ldots")
        assert case["context"][:slot] + part + case["context"][slot + len("\\ldots") :] == case["text"]


def test_deterministic_for_a_seed_and_different_for_another(problems, cases):
    again = corpus(problems[:60], seed=SEED)
    assert again == cases[: len(again)]
    assert corpus(problems[:60], seed=SEED + 1) != again


def test_checker_finds_the_answer_in_every_leak_and_in_no_clean_text(problems, cases):
    for case in cases:
        row = problems[case["index"]]
        assert holds_answer(case["text"], row["answer"], row["problem"]) == case["leak"], case
        if case["leak"]:
            assert not holds_answer(case["context"], row["answer"], row["problem"], operations=False), case


def test_wrong_values_differ_from_the_answer(problems, cases):
    for case in cases:
        row = problems[case["index"]]
        if case["answer_type"] in SINGLE_NUMBER_TYPES and case["wrong"]:
            assert evaluate(case["wrong"]) != pytest.approx(float(answer_value(row["answer"])), rel=1e-12), case
        else:
            assert case["wrong"].replace(" ", "") != row["answer"].replace(" ", "")


def test_approximations_are_within_their_last_digit(problems, cases):
    for case in (case for case in cases if case["family"] == "approximation"):
        exact = Decimal(str(sympy.N(answer_value(problems[case["index"]]["answer"]), 40)))
        written = case["parts"][0].replace("\\times 10^", "e").replace("{", "").replace("}", "")
        written = written.replace("× 10", "e").translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-"))
        approximation = Decimal(written.replace(" ", ""))
        digits = len(approximation.as_tuple().digits)
        assert 3 <= digits <= 8, case
        last_digit = Decimal(1).scaleb(approximation.as_tuple().exponent)
        assert abs(approximation - exact) < last_digit, case


def test_hand_worked_renderings():
    rng = random.Random(0)
    assert number_in_words(341) == "three hundred forty-one"
    assert number_in_words(-1764) == "negative one thousand seven hundred sixty-four"
    assert answer_value("11,\\! 111,\\! 111,\\! 100") == 11111111100
    assert answer_value("137 \\frac{1}{2}") == Fraction(275, 2)
    assert answer_value("\\frac{270}7\\text{ degrees}") == Fraction(270, 7)
    assert answer_unit("\\frac{270}7\\text{ degrees}") == ("", "\\text{ degrees}", "degrees")
    assert answer_value("\\$18.90") == Fraction(189, 10)
    assert answer_value("11 \\sqrt{5} + 11") == 11 + 11 * sympy.sqrt(5)
    assert render(3 * sympy.sqrt(13), "unicode") == "3√13"
    assert render(-sympy.pi / 6, "latex") == "-\\frac{\\pi}{6}"
    assert render(sympy.Integer(20000) / sympy.pi, "unicode") == "20000/π"
    # 42 = 2 · 3 · 7 and 1600 = 2^6 · 5^2; 117 = 9 · 13 so √117 = 3√13; 1/8 = (1/2)^3 and has no rational square root.
    assert phrase_factorisation(sympy.Integer(42), rng, "latex", NO_UNIT).part == "2 \\cdot 3 \\cdot 7"
    assert phrase_factorisation(sympy.Integer(1600), rng, "unicode", NO_UNIT).part == "2⁶ × 5²"
    assert phrase_root(3 * sympy.sqrt(13), rng, "latex", NO_UNIT).part == "\\sqrt{117}"
    assert phrase_root(sympy.Integer(42), rng, "words", NO_UNIT).part == (
        "the square root of one thousand seven hundred sixty-four"
    )
    assert phrase_power(sympy.Rational(1, 8), rng, "latex", NO_UNIT).part == "\\left(\\frac{1}{2}\\right)^3"
    quotient = phrase_quotient(sympy.Rational(3, 4), rng, "latex", NO_UNIT)
    numerator, denominator = quotient.part.removeprefix("\\frac{").removesuffix("}").split("}{")
    assert Fraction(int(numerator), int(denominator)) == Fraction(3, 4) and int(denominator) > 4


def test_checker_on_hand_written_texts():
    assert holds_answer("Take your 203, plus one.", "204")
    assert holds_answer("It is 20% of 210.", "42")
    assert holds_answer("That is $\\frac{84}{2}$.", "42")
    assert holds_answer("a third of one hundred twenty-six", "42")
    assert holds_answer("the square of 7", "49")
    assert holds_answer("about 4.472", "2\\sqrt{5}")
    assert holds_answer("roughly 3.14", "\\pi")
    assert holds_answer("≈ 5.357 × 10⁻²", "\\frac{3}{56}")
    assert holds_answer("$\\frac{6\\sqrt{13}}{2} = \\sqrt{13} + 2\\sqrt{13}$", "3\\sqrt{13}")
    assert holds_answer("the sum of $60^\\circ$ and $30^\\circ$", "90^\\circ")
    assert not holds_answer("about 4.6", "2\\sqrt{5}")
    assert not holds_answer("the sum of 30 and 11", "42")
    assert not holds_answer("You wrote 43.", "42")
    assert not holds_answer("You wrote $(16,-28)$.", "(15,-29)")
