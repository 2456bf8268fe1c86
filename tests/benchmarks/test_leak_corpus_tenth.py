import sys
from collections import Counter
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_tenth import (  # noqa: E402
    approximations,
    casual,
    corpus,
    holds_answer,
    parse_answer,
    renderings,
    speak,
    words,
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
def answers(problems):
    out = []
    for row in problems:
        atype = answer_type(row["answer"], row["problem"])
        ans = parse_answer(row["answer"], atype, row["problem"])
        out.append((ans, renderings(ans, row["problem"])))
    return out


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
        assert (case["wrong"] is None) == (case["wrong_how"] is None)


def test_size_clean_share_and_registers(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 6000 <= len(cases) <= 10000
    assert 0.35 <= families["clean"] / len(cases) <= 0.5
    assert families["approximation"] >= 100
    assert len({case["frame"].split(":")[0] for case in cases}) >= 8
    assert {case["index"] for case in cases} == set(range(len(problems)))


def test_all_twenty_types_are_covered(cases, problems):
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert len(present) == 20 and present <= set(ANSWER_TYPES)
    assert {case["answer_type"] for case in cases} == present
    for family in ("rendering", "clean"):
        assert {c["answer_type"] for c in cases if c["family"] == family} == present


def test_deterministic(problems):
    assert corpus(problems[:40]) == corpus(problems[:40])
    assert corpus(problems[:40], seed=1) != corpus(problems[:40])


def test_every_leak_states_its_parts_and_its_context_does_not(cases):
    for case in (c for c in cases if c["leak"]):
        assert case["parts"] and all(part in case["text"] for part in case["parts"])
        assert all(occurrences(part, case["text"]) >= 1 for part in case["parts"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"])


def test_leaks_are_caught_by_the_checker(cases, answers):
    """The clean check is not vacuous: it finds the answer in every leak."""
    for case in (c for c in cases if c["leak"]):
        ans, forms = answers[case["index"]]
        assert holds_answer(case["text"], ans, forms), case["text"]


def test_clean_texts_hold_no_rendering_of_the_answer(cases, answers):
    for case in (c for c in cases if not c["leak"]):
        ans, forms = answers[case["index"]]
        assert case["parts"] == [] and case["context"] == case["text"]
        assert not holds_answer(case["text"], ans, forms), case["text"]


def test_every_wrong_differs_from_the_answer_and_is_quoted(cases, answers):
    quoted = 0
    for case in (c for c in cases if c["wrong"] is not None):
        ans, forms = answers[case["index"]]
        assert case["wrong"] in case["text"]
        assert case["wrong"].lower() not in {form.lower() for form in forms.values()}
        assert not holds_answer(case["wrong"], ans, forms), case["wrong"]
        quoted += 1
    clean = [c for c in cases if c["family"] == "clean"]
    assert sum(c["wrong"] is not None for c in clean) / len(clean) > 0.7
    assert quoted > 3000


def test_mathspeak_and_clearspeak_readings():
    assert speak(r"\frac{3}{4}", "mathspeak_verbose") == "StartFraction 3 Over 4 EndFraction"
    assert speak(r"\frac{3}{4}", "mathspeak_brief") == "StartFrac 3 Over 4 EndFrac"
    assert speak(r"\frac{3}{4}", "mathspeak_superbrief") == "Frac 3 Over 4 EndFrac"
    assert speak(r"\frac{3}{4}", "clearspeak") == "3 fourths"
    assert speak(r"\frac{243}{625}", "clearspeak") == "243 over 625"
    assert speak(r"\sqrt{3}", "mathspeak_verbose") == "StartRoot 3 EndRoot"
    assert speak(r"\sqrt{3}", "clearspeak") == "the square root of 3"
    assert speak(r"-\frac{\pi}{6}", "clearspeak") == "negative pi over 6"
    assert speak("x^5 - x^4", "mathspeak_verbose") == "x Superscript 5 Baseline minus x Superscript 4 Baseline"
    assert (
        speak(r"\frac{3\sqrt{3}}{4}", "mathspeak_verbose") == "StartFraction 3 StartRoot 3 EndRoot Over 4 EndFraction"
    )


def test_tutor_and_dictation_readings():
    assert speak(r"\frac{3}{4}", "tutor_words") == "three fourths"
    assert speak(r"\frac{3}{4}", "tutor_british") == "three quarters"
    assert speak(r"\frac{14}{3}", "tutor_over") == "fourteen over three"
    assert speak(r"\frac{3}{4}", "dictation_symbols") == "3/4"
    assert speak(r"3\sqrt{13}", "tutor_words") == "three root thirteen"
    assert speak(r"3\sqrt{13}", "dictation_words") == "3 root 13"
    assert speak("6r^2-4r-24", "tutor_words") == "six r squared minus four r minus twenty-four"
    assert speak("(a+5)(b+2)", "tutor_words") == "the quantity a plus five, times the quantity b plus two"
    assert words(1205, british=True) == "one thousand two hundred and five"
    assert (casual(1700), casual(2220), casual(103), casual(144)) == (
        "seventeen hundred",
        "twenty-two twenty",
        "one oh three",
        "one forty-four",
    )


def test_renderings_of_structured_answers():
    forms = renderings(parse_answer("(3,4]", "interval"))
    assert forms["clearspeak"] == "the interval from 3 to 4, not including 3 but including 4"
    assert forms["tutor_inequality"] == "x between three and four, including four"
    assert forms["dictation_inequality"] == "3 is less than x is less than or equal to 4"
    matrix = parse_answer(r"\begin{pmatrix} -1 & 0 \\ 0 & -1 \end{pmatrix}", "matrix/vector")
    assert (
        renderings(matrix)["tutor_words"]
        == "a two by two matrix, first row minus one, zero, second row zero, minus one"
    )
    choice = renderings(parse_answer(r"\text{(C)}", "multiple choice"))
    assert choice["nato"] == "C as in Charlie" and choice["tutor_ordinal"] == "the third choice"
    money = renderings(parse_answer(r"\$18.90", "units/degrees/money"))
    assert money["tutor_words"] == "eighteen dollars and ninety cents" and money["tutor_casual"] == "eighteen ninety"
    assert renderings(parse_answer("52_8", "base-n number"))["tutor_words"] == "five two base eight"
    assert renderings(parse_answer(r"\frac{14}{3}", "fraction"))["tutor_mixed"] == "four and two thirds"
    assert renderings(parse_answer(r"\frac{1}{3}", "fraction"))["tutor_repeating"] == "zero point three repeating"


def test_approximations_have_four_significant_digits():
    spoken = {style: text for style, _, text in approximations(parse_answer(r"\sqrt{5}", "radical"))}
    assert spoken["approx_digits"] == "2.2361" and spoken["approx_words"] == "two point two three six"
    assert approximations(parse_answer(r"\frac{3}{4}", "fraction")) == []


def test_checker_reads_spoken_numbers():
    ans = parse_answer("42", "small integer")
    forms = renderings(ans)
    assert holds_answer("it is forty-two", ans, forms)
    assert holds_answer("it is 42", ans, forms)
    assert not holds_answer("it is forty-three", ans, forms)
    assert not holds_answer("it is minus forty-two", ans, forms)
    root = parse_answer(r"2\sqrt{5}", "radical")
    assert holds_answer("about 4.472", root, renderings(root))
    assert not holds_answer("about 4.5", root, renderings(root))
