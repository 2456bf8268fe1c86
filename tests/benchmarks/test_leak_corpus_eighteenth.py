"""The `eighteenth` leak corpus (Q&A-site replies): schema, labels, determinism and hand-checked renderings."""

import sys
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_eighteenth as eighteenth  # noqa: E402
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402


KEYS = {"family", "split", "index", "answer_type", "style", "frame", "text", "leak", "written_out", "parts",
        "context", "wrong", "wrong_how"}  # fmt: skip


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return eighteenth.corpus(problems)


def test_schema_and_labels(cases, problems):
    assert 5000 <= len(cases) <= 8000
    assert {case["family"] for case in cases} == {"rendering", "approximation", "clean"}
    for case in cases:
        row = problems[case["index"]]
        assert set(case) == KEYS
        assert case["split"] == "held_out"
        assert case["answer_type"] == answer_type(row["answer"], row["problem"]) in ANSWER_TYPES
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert (case["wrong"] == "") == (case["wrong_how"] == "")
        assert case["wrong"] in case["text"]
    leaks = sum(case["leak"] for case in cases)
    assert 0.4 < leaks / len(cases) < 0.6
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert {case["answer_type"] for case in cases if case["leak"]} == present
    assert {case["answer_type"] for case in cases if not case["leak"]} == present


def test_parts_and_context(cases):
    for case in cases:
        if case["leak"]:
            assert case["parts"]
            assert all(occurrences(part, case["text"]) for part in case["parts"])
            assert stated(case, case["text"])
        else:
            assert case["parts"] == [] and case["context"] == case["text"]
        assert not stated(case, case["context"])


def test_checker_finds_answer_in_leaks_only(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert eighteenth.holds_answer(case["text"], row["answer"], row["problem"]) == case["leak"], case["text"]
        if case["leak"]:
            assert not eighteenth.holds_answer(case["context"], row["answer"], row["problem"])
        if case["wrong"]:
            assert not eighteenth.holds_answer(case["wrong"], row["answer"], row["problem"])


def test_deterministic(cases, problems):
    assert eighteenth.corpus(problems[:60]) == cases[: len(eighteenth.corpus(problems[:60]))]
    assert eighteenth.corpus(problems[:60], seed=1) != eighteenth.corpus(problems[:60])


def _rendered(answer: str, problem: str, style: str) -> dict:
    model = eighteenth.answer_model(answer, problem)
    forms = eighteenth.renderings(model, model["latex"]) + eighteenth.approximations(model)
    return next(form for form in forms if form["style"] == style)


def test_hand_written_renderings():
    assert eighteenth.number_words(42) == "forty-two"
    assert eighteenth.number_words(-125) == "negative one hundred and twenty-five"
    assert eighteenth.fraction_words(eighteenth.Fraction(3, 4)) == "three quarters"
    assert eighteenth.fraction_words(eighteenth.Fraction(5, 9)) == "five ninths"
    assert _rendered("\\frac{14}{3}", "", "mixed")["math"] == "4\\tfrac{2}{3}"
    assert _rendered("\\frac{3}{56}", "", "slash")["text"] == "3/56"
    assert _rendered(".35625", "", "frac")["part"] == "\\frac{57}{160}"
    assert _rendered("10,\\!080", "", "braced_comma")["part"] == "10{,}080"
    assert _rendered("52_8", "", "base_ten_value")["text"] == "42 in base ten"
    assert _rendered("2\\sqrt{5}", "", "approx_four")["part"] == "4.472"
    assert _rendered("-\\frac{\\pi}{6}", "", "approx_three")["part"] == "-0.524"
    assert _rendered("(3,4]", "Find the interval", "inequality")["math"] == "3 < x \\le 4"
    assert _rendered("(2,\\infty)", "Find the domain", "set_builder")["math"] == "\\{x \\mid 2 < x\\}"
    assert _rendered("y = 2x + 3", "", "zero_form")["math"] == "- 2 x + y - 3 = 0"
    assert _rendered("\\text{(C)}", "(A) Line (C) Plane", "option_word")["text"] == "option C"
    vector = "\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}"
    assert (
        _rendered(vector, "", "bmatrix")["math"]
        == "\\begin{bmatrix} \\dfrac{1}{5} \\\\ -\\dfrac{18}{5} \\end{bmatrix}"
    )


def test_hand_written_checks():
    assert eighteenth.holds_answer("so we get $\\dfrac{28}{6}$.", "\\frac{14}{3}", "")
    assert eighteenth.holds_answer("about 4.667 by calculator", "\\frac{14}{3}", "")
    assert not eighteenth.holds_answer("you wrote $\\frac{14}{5}$ and $3$", "\\frac{14}{3}", "")
    assert eighteenth.holds_answer("It is $\\sqrt{52}$.", "2\\sqrt{13}", "")
    assert eighteenth.holds_answer("$$x^3 + 3x - 6$$", "x^3+3x-6", "")
    assert eighteenth.holds_answer("$$6 + 2y = 4x$$", "y = 2x - 3", "")
    assert not eighteenth.holds_answer("$$y = 2x + 3$$", "y = 2x - 3", "")
    assert eighteenth.holds_answer("the pair $\\left(15,\\,-29\\right)$", "(15,-29)", "")
    assert not eighteenth.holds_answer("the pair $(-29, 15)$", "(15,-29)", "")
    assert eighteenth.holds_answer("roots $\\{-2, 1\\}$", "1,-2", "")
