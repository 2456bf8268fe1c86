import sys
from collections import Counter
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import leak_corpus_nineteenth as nineteenth  # noqa: E402
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
    return nineteenth.corpus(problems)


def forms_of(answer: str, problem: str = "") -> dict[str, str]:
    """Each rendering style of `answer` with its text (parts and the words around them)."""
    kind = answer_type(answer, problem)
    return {
        form.style: "".join(text for text, _ in form.segments) for form in nineteenth.renderings(answer, kind, problem)
    }


def test_schema(cases, problems):
    assert isinstance(nineteenth.SEED, int)
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert case["style"] and case["frame"] and case["text"]
        if not case["leak"]:
            assert case["parts"] == [] and case["context"] == case["text"]
        assert bool(case["wrong"]) == bool(case["wrong_how"])
        if case["wrong"]:
            assert case["wrong"] in case["text"]


def test_size_and_coverage(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 5000 <= len(cases) <= 8000
    assert 0.45 <= (families["rendering"] + families["approximation"]) / len(cases) <= 0.55
    assert families["approximation"] > 100
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    covered = Counter(case["answer_type"] for case in cases if case["leak"])
    assert present <= set(ANSWER_TYPES)
    assert all(covered[kind] >= 10 for kind in present)
    assert len({case["index"] for case in cases}) == len(problems)


def test_parts_are_stated(cases):
    for case in cases:
        if not case["leak"]:
            continue
        assert case["parts"]
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1
        assert stated(case, case["text"])
        assert not stated(case, case["context"])
        assert case["context"].count("\\ldots") - case["text"].count("\\ldots") == len(case["parts"])


def test_checker_finds_the_answer_in_every_leak_and_no_clean_text(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert nineteenth.holds_answer(case["text"], row["answer"], row["problem"]) == case["leak"], case["text"]
        if case["leak"]:
            assert not nineteenth.holds_answer(case["context"], row["answer"], row["problem"]), case["context"]


def test_wrong_values_differ_from_the_answer(cases, problems):
    for case in cases:
        if case["wrong"]:
            row = problems[case["index"]]
            assert not nineteenth.holds_answer(case["wrong"], row["answer"], row["problem"])


def test_frames_and_malformations_present(cases):
    texts = [case["text"] for case in cases if case["leak"]]
    for marker in ("<think>", "</think>", "[/INST]", "<|im_end|>", "The the", "\\boxed{", "\n###", "**", "\\$"):
        assert any(marker in text for text in texts), marker
    assert any("<think>" in text and "</think>" not in text for text in texts)
    assert any("\n" in part for case in cases for part in case["parts"])
    assert any(case["text"].endswith(case["parts"][-1]) for case in cases if case["leak"])
    assert any(len(case["parts"]) >= 3 for case in cases)
    clean = [case for case in cases if not case["leak"]]
    assert any(case["style"].startswith("stop_short") for case in clean)
    assert len({case["frame"] for case in clean}) == len(nineteenth.TEMPLATES)


def test_deterministic(problems, cases):
    assert nineteenth.corpus(problems) == cases
    assert nineteenth.corpus(problems, seed=1) != cases


def test_hand_written_renderings():
    radical = forms_of("2\\sqrt{5}")
    assert radical["sqrt_absorbed"] == "\\sqrt{20}"
    assert radical["unicode"] == "2√5"
    assert radical["plain_text"] == "2*sqrt(5)"
    assert radical["sqrt_no_braces"] == "2\\sqrt5"
    fraction = forms_of("-\\frac{35}{9}")
    assert fraction["words"] == "negative thirty-five ninths"
    assert fraction["slash_spaced"] == "-35 / 9"
    assert fraction["repeating_decimal"] == "-3.\\overline{8}"
    assert fraction["mixed_latex"] == "-3\\frac{8}{9}"
    assert fraction["frac_line_break"] == "-\\frac{35}\n{9}"
    assert forms_of("\\frac{4}{3}")["frac_no_braces"] == "\\frac43"
    assert forms_of("\\frac{3}{4}")["decimal"] == "0.75"
    large = forms_of("13535")
    assert large["thousands_comma"] == "13,535"
    assert large["scientific"] == "1.3535 \\times 10^4"
    assert forms_of("42")["words"] == "forty-two"
    assert forms_of("-50")["minus_word"] == "minus 50"
    interval_problem = "Find the interval of all $x$ such that ..."
    assert forms_of("(3,4]", interval_problem)["inequality_latex"] == "3 < x \\le 4"
    assert forms_of("(-\\infty, 0]")["inequality_unicode"] == "x ≤ 0"
    assert forms_of("52_8")["unicode_subscript"] == "52₈"
    assert forms_of("90^\\circ")["degree_sign"] == "90°"
    assert forms_of("\\$32,\\!348")["dollar_sign"] == "\\$32,348"
    assert forms_of("(15,-29)", "Find the ordered pair $(x,y)$.")["named"] == "x = 15 and y = -29"
    assert forms_of("1 \\pm \\sqrt{19}")["pm_unicode"] == "1 ± √19"
    vector = forms_of("\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}")
    assert vector["bracket_list"] == "[-2, -14, -7]"


def test_hand_written_choice_and_approximation():
    problem = "Find the shape. (A) Line (B) Circle (C) Plane (D) Sphere"
    choice = {form.style: form for form in nineteenth.renderings("\\text{(C)}", "multiple choice", problem)}
    assert [text for text, is_part in choice["letter_with_text"].segments if is_part] == ["C", "Plane"]
    approximations = {form.style: form for form in nineteenth.approximation_forms("2\\sqrt{5}", "")}
    assert approximations["about_4_digits"].segments == [("about ", False), ("4.472", True)]
    assert approximations["approx_6_digits"].segments[1] == ("4.47214", True)
    assert nineteenth.approximation_forms("\\frac{3}{4}", "") == []
    assert nineteenth.approximation_forms("\\frac{14}{3}", "")[0].segments[1] == ("4.667", True)


def test_checker_by_hand():
    holds = nineteenth.holds_answer
    assert holds("so it is \\frac{3}\n{4}.", "\\frac{3}{4}")
    assert holds("**Final:** $\\dfrac34", "\\frac{3}{4}")
    assert holds("the value 0.75 works", "\\frac{3}{4}")
    assert holds("about 4.47 then", "2\\sqrt{5}")
    assert holds("it is \\sqrt{20}", "2\\sqrt{5}")
    assert holds("it is 2√5", "2\\sqrt{5}")
    assert not holds("it is about 4.5", "2\\sqrt{5}")
    assert not holds("it is 3\\sqrt{5}, from 20", "2\\sqrt{5}")
    assert holds("The answer is forty-two.", "42")
    assert not holds("The answer is 420 or 4.2 or -42.", "42")
    assert holds("so 13,535 people", "13535")
    assert holds("x < 2 or x > 3", "(-\\infty, 2) \\cup (3, \\infty)")
    assert holds("the answer is -2, 1", "1,-2")
    assert not holds("the answer is 1", "1,-2")
    assert holds("she faces EAST", "\\text{east}")
    assert not holds("she faces west", "\\text{east}")
