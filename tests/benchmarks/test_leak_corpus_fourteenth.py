"""Tests of the `fourteenth` leak corpus (`benchmarks/leak_corpus_fourteenth.py`): feedback on failed groups."""

import sys
from collections import Counter
from pathlib import Path

import pytest
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_fourteenth as fourteenth  # noqa: E402
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
    return fourteenth.corpus(problems)


def read(problems, answer):
    """The parsed answer of the first MATH-500 row whose reference answer is `answer`, with its raw string."""
    row = next(row for row in problems if row["answer"] == answer)
    kind_of_type = answer_type(row["answer"], row["problem"])
    return fourteenth.parse_answer(row["answer"], row["problem"], kind_of_type), row["answer"]


def written(problems, answer, style):
    parsed, raw = read(problems, answer)
    found = [rendering for rendering in fourteenth.renderings(parsed, raw) if rendering.style == style]
    assert found, f"no {style} rendering of {answer!r}"
    return "".join(text for _, text in found[0].segments), [text for role, text in found[0].segments if role == "part"]


def test_schema(cases, problems):
    assert isinstance(fourteenth.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["answer_type"] in ANSWER_TYPES
        assert case["leak"] is (case["family"] != "clean")
        assert case["written_out"] is (case["family"] == "rendering")
        assert isinstance(case["style"], str) and case["style"]
        assert case["frame"] in fourteenth.FRAMES
        assert (case["parts"] == []) is (not case["leak"])
        assert (case["context"] == case["text"]) is (not case["leak"])
        assert case["wrong"] and case["wrong"] in case["text"]
        assert case["wrong_how"]
        assert 60 <= len(case["text"].split()) <= 400


def test_size_balance_and_coverage(cases, problems):
    assert 5000 <= len(cases) <= 8000
    families = Counter(case["family"] for case in cases)
    assert 0.45 <= (families["rendering"] + families["approximation"]) / len(cases) <= 0.55
    assert families["approximation"] > 50
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    for family in ("rendering", "clean"):
        assert {case["answer_type"] for case in cases if case["family"] == family} == present
    assert {case["index"] for case in cases} == set(range(len(problems)))
    assert len({case["frame"] for case in cases}) == len(fourteenth.FRAMES)
    assert len({case["style"] for case in cases if case["family"] == "rendering"}) >= 40


def test_parts_are_stated_and_context_is_not(cases):
    for case in cases:
        if not case["leak"]:
            assert not stated(case, case["text"])
            continue
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1, (part, case["text"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"])
        assert case["context"].count("\\ldots") >= len(case["parts"])


def test_checker_finds_the_answer_in_leaks_only(cases, problems):
    readings = {}
    for case in cases:
        row = problems[case["index"]]
        if case["index"] not in readings:
            readings[case["index"]] = read(problems[case["index"] : case["index"] + 1], row["answer"])
        parsed, raw = readings[case["index"]]
        assert fourteenth.holds_answer(case["text"], parsed, raw) is case["leak"], case["text"]
        if case["leak"]:
            assert not fourteenth.holds_answer(case["context"], parsed, raw), case["context"]


def test_wrong_values_differ_from_the_answer(problems):
    for row in problems:
        kind_of_type = answer_type(row["answer"], row["problem"])
        parsed = fourteenth.parse_answer(row["answer"], row["problem"], kind_of_type)
        wrongs = fourteenth.wrong_answers(parsed, row["problem"])
        assert wrongs, row["answer"]
        for wrong, _ in wrongs:
            assert not fourteenth.same_value(wrong, parsed)
            assert not fourteenth.holds_answer(
                f"Attempt 2 ended with ${fourteenth.canonical_latex(wrong)}$.", parsed, row["answer"]
            )


def test_approximations_are_close_and_of_irrational_or_repeating_values(cases, problems):
    for case in (case for case in cases if case["family"] == "approximation"):
        parsed, _ = read(problems, problems[case["index"]]["answer"])
        value = parsed.value
        denominator = int(value.q) if value.is_Rational else 0
        while denominator and denominator % 2 == 0:
            denominator //= 2
        while denominator and denominator % 5 == 0:
            denominator //= 5
        assert not value.is_Rational or denominator > 1
        (part,) = case["parts"]
        places = len(part.split(".")[1])
        assert len(part.lstrip("-").replace(".", "").lstrip("0")) >= 3
        assert abs(sympy.Rational(part) - value).evalf(30) < sympy.Rational(1, 10**places)


def test_determinism(cases, problems):
    subset = problems[:40]
    again = fourteenth.corpus(subset)
    assert again == [case for case in cases if case["index"] < 40]
    assert fourteenth.corpus(subset, seed=1) != again


def test_hand_written_renderings(problems):
    assert written(problems, "\\frac{14}{3}", "plain_text")[0] == "14/3"
    assert written(problems, "\\frac{14}{3}", "english_words")[0] == "fourteen thirds"
    assert written(problems, "\\frac{14}{3}", "dfrac_latex")[0] == "\\dfrac{14}{3}"
    assert written(problems, "\\frac 34", "exact_decimal")[0] == "0.75"
    assert written(problems, "\\frac 34", "unicode")[0] == "¾"
    assert written(problems, "\\frac 34", "english_words")[0] == "three quarters"
    assert written(problems, "2\\sqrt{5}", "plain_text")[0] == "2*sqrt(5)"
    assert written(problems, "2\\sqrt{5}", "unicode")[0] == "2√5"
    assert written(problems, "-\\frac{\\pi}{6}", "unicode")[0] == "−π/6"
    assert written(problems, "(15,-29)", "named_components_plain")[0] == "x = 15 and y = -29"
    assert written(problems, "(3,4]", "inequality_unicode")[0] == "3 < x ≤ 4"
    assert written(problems, "(-\\infty, 2) \\cup (3, \\infty)", "inequality_unicode")[0] == "x < 2 or 3 < x"
    assert written(problems, "52_8", "unicode_subscript")[0] == "52₈"
    assert written(problems, "10,\\!080", "comma_grouped")[0] == "10,080"
    assert written(problems, "-50", "english_words")[0] == "negative fifty"
    assert written(problems, "90^\\circ", "unicode") == ("90°", ["90"])
    assert written(problems, "\\$18.90", "plain_text") == ("18.90 dollars", ["18.90"])
    assert written(problems, "\\text{(C)}", "letter_with_text") == ("(C) Plane", ["(C)", "Plane"])
    assert written(problems, "1\\frac{4}{5}", "exact_decimal")[0] == "1.8"
    assert written(problems, "6 - 5i", "unicode")[0] == "6 − 5i"
    assert written(problems, "3, 5, 7", "prose_list")[0] == "3, 5 and 7"


def test_hand_written_approximations(problems):
    parsed, _ = read(problems, "2\\sqrt{5}")
    rng = fourteenth.random.Random(0)
    found = dict(fourteenth.approximations(parsed, rng))
    # sqrt(20) = 4.4721359...: rounded 4.47, 4.472, 4.4721, 4.47214; truncated the same but 4.47213.
    assert set(found) <= {"4.47", "4.472", "4.4721", "4.47214", "4.47213"}
    assert all(how == ("truncated" if text == "4.47213" else "rounded") for text, how in found.items())
    integer, _ = read(problems, "42")
    assert fourteenth.approximations(integer, rng) == []


def test_hand_written_checker(problems):
    root, raw = read(problems, "\\sqrt{51}")
    assert fourteenth.holds_answer("So the answer is $\\sqrt{51}$.", root, raw)
    assert fourteenth.holds_answer("Done right it gives √51.", root, raw)
    assert fourteenth.holds_answer("which is about 7.141 in decimal", root, raw)
    assert not fourteenth.holds_answer(
        "Attempt 3 wrote $-\\sqrt{51}$ and Attempt 4 wrote $1 + \\sqrt{51}$.", root, raw
    )
    assert not fourteenth.holds_answer("roughly 7.1", root, raw)
    pair, raw = read(problems, "(15,-29)")
    assert fourteenth.holds_answer("so $x = 15$ and $y = -29$.", pair, raw)
    assert not fourteenth.holds_answer("Attempt 1 got $(15, -28)$ and Attempt 2 got $(-15, -29)$.", pair, raw)
    three, raw = read(problems, "3")
    assert fourteenth.holds_answer("The answer is three.", three, raw)
    assert fourteenth.holds_answer("The answer is $\\frac{6}{2}$.", three, raw)
    assert not fourteenth.holds_answer("Attempt 3 reached $4$ and Attempt 5 reached $x^3$.", three, raw)
    interval, raw = read(problems, "(3,4]")
    assert fourteenth.holds_answer(
        "the solution set is \\(3 < \\lambda \\le 4\\)".replace("\\lambda", "x"), interval, raw
    )
    assert not fourteenth.holds_answer("Attempt 2 wrote $[3, 4]$.", interval, raw)
