import sys
from collections import Counter
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_ninth import (  # noqa: E402
    corpus,
    differs,
    exact_decimal,
    holds_answer,
    latex_to_sympy,
    mathematica_str,
    parse_answer,
    renderings,
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


def test_every_case_has_the_schema(cases, problems):
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert ":" in case["frame"]


def test_size_clean_share_and_tools(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 6000 <= len(cases) <= 10000
    assert 0.35 <= families["clean"] / len(cases) <= 0.5
    assert len({case["frame"].split(":")[0] for case in cases}) >= 8
    assert {case["index"] for case in cases} == set(range(len(problems)))


def test_all_twenty_types_are_covered(cases, problems):
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert len(present) == 20 and present <= set(ANSWER_TYPES)
    assert {case["answer_type"] for case in cases} == present


def test_deterministic(problems):
    assert corpus(problems[:40]) == corpus(problems[:40])
    assert corpus(problems[:40], seed=1) != corpus(problems[:40])


def test_every_leak_states_its_parts_and_its_context_does_not(cases):
    for case in (c for c in cases if c["leak"]):
        assert case["parts"] and all(part in case["text"] for part in case["parts"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"])


def test_clean_texts_hold_no_rendering_of_the_answer(cases, problems):
    for case in (c for c in cases if not c["leak"]):
        row = problems[case["index"]]
        shape, value = parse_answer(row["answer"], case["answer_type"])
        assert case["parts"] == [] and case["context"] == case["text"]
        assert not holds_answer(case["text"], shape, value, renderings(shape, value, case["answer_type"]))


def test_every_wrong_differs_from_the_answer_and_is_quoted(cases, problems):
    quoted = [c for c in cases if c["wrong"] is not None]
    assert len(quoted) > 1000
    for case in quoted:
        assert case["wrong_how"]
        assert occurrences(case["wrong"], case["text"]) >= 1
        row = problems[case["index"]]
        for rendering in renderings(*parse_answer(row["answer"], case["answer_type"]), case["answer_type"]):
            assert case["wrong"] != rendering["shown"]


def test_parsing_against_hand_values():
    assert latex_to_sympy(r"\frac{\sqrt{3}}{3}") == latex_to_sympy(r"\sqrt3") / 3
    assert float(latex_to_sympy(r"\frac9{19}")) == pytest.approx(9 / 19)
    assert float(latex_to_sympy(r"\frac 34")) == 0.75
    assert complex(latex_to_sympy("6 - 5i", imaginary=True)) == 6 - 5j
    assert float(latex_to_sympy(".0000672")) == pytest.approx(6.72e-5)
    shape, value = parse_answer(r"1\frac{4}{5}", "mixed number")
    assert (shape, float(value)) == ("number", 1.8)
    assert parse_answer("52_8", "base-n number") == ("base", ("52", 8))


def test_printers_against_hand_written_tool_output():
    assert mathematica_str(latex_to_sympy(r"\frac{\sqrt{3}}{3}")) == "Sqrt[3]/3"
    assert mathematica_str(latex_to_sympy(r"-\frac{\pi}{6}")) == "-Pi/6"
    assert mathematica_str(latex_to_sympy("3+4i", imaginary=True)) == "3 + 4 I"
    assert exact_decimal(latex_to_sympy(r"\frac{7}{2}")) == "3.5"
    assert exact_decimal(latex_to_sympy(r"-\frac{3}{8}")) == "-0.375"
    shown = {r["shown"] for r in renderings(*parse_answer("(3,4]", "interval"), "interval")}
    assert {"Interval.Lopen(3, 4)", "3 < x <= 4", "x in (3, 4]", "RealRange(Open(3), 4)"} <= shown


def test_clean_check_catches_the_answer_in_any_form():
    shape, value = parse_answer(r"\frac{7}{2}", "fraction")
    found = renderings(shape, value, "fraction")
    assert holds_answer(">>> x\n3.5", shape, value, found)
    assert holds_answer("Out[2]= 7/2", shape, value, found)
    assert not holds_answer("Out[2]= 9/2", shape, value, found)
    assert differs(shape, value + 1, value) and not differs(shape, value * 1, value)
