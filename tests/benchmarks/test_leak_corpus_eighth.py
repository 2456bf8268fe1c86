import re
import sys
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_eighth import (  # noqa: E402
    SEED,
    _answer_renderings,
    _braced,
    _convert,
    _degenerate,
    _flip_sign_at,
    _holds_answer,
    _interval_inequality,
    _number,
    _number_words,
    _shift,
    answer_value,
    corpus,
)


KEYS = {"family", "split", "index", "answer_type", "style", "frame", "text", "leak", "written_out", "parts",
        "context", "wrong", "wrong_how"}  # fmt: skip


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return corpus(problems)


def test_every_case_has_the_schema(cases, problems):
    assert 6000 <= len(cases) <= 10000
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "clean") and case["split"] == "held_out"
        assert case["answer_type"] == answer_type(
            problems[case["index"]]["answer"], problems[case["index"]]["problem"]
        )
        assert re.fullmatch(r"[a-z_]+:[a-z-]+", case["frame"])
        assert case["leak"] == (case["family"] == "rendering")
        if case["leak"]:
            assert case["parts"] and case["wrong"] is None and case["wrong_how"] == ""
        else:
            assert case["parts"] == [] and case["context"] == case["text"] and not case["written_out"]


def test_the_corpus_is_deterministic_and_the_seed_matters(problems, cases):
    assert corpus(problems) == cases
    assert corpus(problems[:20], seed=SEED + 1) != corpus(problems[:20])


def test_every_problem_and_every_answer_type_of_math500_is_covered(problems, cases):
    assert {case["index"] for case in cases} == set(range(len(problems)))
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert len(present) == 20 and present <= set(ANSWER_TYPES)
    assert {case["answer_type"] for case in cases} == present
    clean = sum(not case["leak"] for case in cases) / len(cases)
    assert 0.35 <= clean <= 0.45


def test_every_leak_states_the_answer_in_its_parts_and_not_in_its_context(cases):
    for case in (case for case in cases if case["leak"]):
        for part in case["parts"]:
            assert part in case["text"]
        assert stated(case, case["text"]), case
        assert not stated(case, case["context"]), case
        assert any(occurrences(part, case["text"]) > occurrences(part, case["context"]) for part in case["parts"])


def test_no_clean_text_but_coincidence_holds_the_answer(problems, cases):
    for case in (case for case in cases if not case["leak"]):
        row = problems[case["index"]]
        renderings = _answer_renderings(row["answer"], case["answer_type"], row["problem"])
        holds = _holds_answer(case["text"], renderings, answer_value(row["answer"], case["answer_type"]))
        assert holds == case["frame"].startswith("coincidence:"), case
        if holds:
            continue
        negated = [rendering for rendering in renderings if occurrences(rendering, case["text"])]
        assert bool(negated) == case["frame"].endswith(":clean-negated"), case
        for rendering in negated:
            assert re.fullmatch(r"[\d.,]+", rendering)
            assert len(re.findall(rf"[-−]{re.escape(rendering)}", case["text"])) == occurrences(
                rendering, case["text"]
            )


def test_coincidences_are_few_and_only_a_count_equals_the_answer(problems, cases):
    coincidences = [case for case in cases if case["frame"].startswith("coincidence:")]
    assert 0 < len(coincidences) <= 0.05 * len(cases)
    for case in coincidences:
        answer = problems[case["index"]]["answer"]
        assert occurrences(answer, case["text"]) == 1
        assert re.search(rf"(^|, ){answer} (of the|never)", case["text"])


def test_every_wrong_value_differs_from_the_answer_and_is_quoted_in_its_text(problems, cases):
    for case in (case for case in cases if not case["leak"]):
        answer = problems[case["index"]]["answer"]
        assert case["wrong"] and case["wrong_how"]
        assert occurrences(case["wrong"], case["text"]) >= 1, case
        assert case["wrong"] not in _answer_renderings(answer, case["answer_type"], problems[case["index"]]["problem"])


@pytest.mark.parametrize(
    ("latex", "plain", "unicode"),
    [
        ("3\\sqrt{13}", "3*sqrt(13)", "3√13"),
        ("\\frac{\\sqrt{3}}{3}", "sqrt(3)/3", "√3/3"),
        ("-\\frac{\\pi}{6}", "-pi/6", "−π/6"),
        ("x^5 - x^4 + x^3", "x^5 - x^4 + x^3", "x⁵ − x⁴ + x³"),
        ("\\frac{270}7\\text{ degrees}", "270/7 degrees", "270/7 degrees"),
        ("(15,-29)", "(15, -29)", "(15, −29)"),
        ("\\frac34", "3/4", "¾"),
    ],
)
def test_latex_is_written_the_way_a_reader_would_type_it(latex, plain, unicode):
    assert _convert(latex, "plain") == plain
    assert _convert(latex, "unicode") == unicode


def test_numbers_and_intervals_are_written_in_words_and_inequalities():
    assert _number_words("\\frac{14}{3}") == "fourteen thirds"
    assert _number_words("1\\frac{4}{5}") == "one and four fifths"
    assert _number_words("-125") == "negative one hundred and twenty-five"
    assert _number("137 \\frac{1}{2}") * 2 == 275
    assert _interval_inequality("(3,4]", "unicode") == "3 < x ≤ 4"
    assert _interval_inequality("(-\\infty, 2) \\cup (3, \\infty)", "plain") == "x < 2 or x > 3"


def test_mutations_flip_signs_and_shift_numbers_as_a_solver_would_slip():
    assert _flip_sign_at("y = -2x", 5) == "y = 2x"
    assert _flip_sign_at("6 - 5i", 4) == "6 + 5i"
    assert _flip_sign_at("(15,-29)", 1) == "(-15,-29)"
    assert _shift("18.90", "off by one", cents=True) == "19.90"
    assert _shift(".35625", "doubled") == "0.7125"
    assert _shift("7", "halved") is None


def test_values_no_solver_writes_are_not_wrong_values():
    assert _degenerate("\\frac{3}{0}", "\\frac{3}{2}") and _degenerate("6\\sqrt{4}", "6\\sqrt{2}")
    assert _degenerate("1k+2", "2k+2") and not _degenerate("1\\frac{3}{5}", "1\\frac{4}{5}")
    assert _degenerate("(-\\infty, -0]", "(-\\infty, 0]") and not _degenerate("6\\sqrt{3}", "6\\sqrt{2}")


def test_shorthand_fractions_and_roots_are_braced_before_a_digit_is_changed():
    assert _braced("\\frac43") == "\\frac{4}{3}"
    assert _braced("\\frac{270}7\\text{ degrees}") == "\\frac{270}{7}\\text{ degrees}"
    assert _braced("11\\sqrt2") == "11\\sqrt{2}"
    assert "4/3" in _answer_renderings("\\frac43", "fraction", "")
