import sys
from collections import Counter
from pathlib import Path

import pytest
import sympy as sp


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, stated  # noqa: E402
from leak_corpus_eleventh import (  # noqa: E402
    BASE_STYLE,
    Key,
    corpus,
    detex,
    holds_answer,
    notations,
    parse_answer,
    parse_tex,
    tex,
    to_sympy,
    values,
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
def keys(problems):
    return [parse_answer(row) for row in problems]


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
    assert families["approximation"] > 100
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


def test_clean_texts_hold_no_rendering_of_the_answer(cases, keys):
    for case in (c for c in cases if not c["leak"]):
        assert case["parts"] == [] and case["context"] == case["text"]
        assert not holds_answer(case["text"], keys[case["index"]]), case["text"]


def test_the_checker_finds_every_leak(cases, keys):
    """The clean texts' checker is only worth its silence if it speaks on the leaks."""
    for case in (c for c in cases if c["leak"]):
        assert holds_answer(case["text"], keys[case["index"]]), case["text"]


def test_every_wrong_differs_from_the_answer_and_is_quoted(cases, keys):
    clean_with_wrong = 0
    for case in (c for c in cases if c["wrong"] is not None):
        assert case["wrong"] in case["text"]
        assert not holds_answer(case["wrong"], keys[case["index"]]), case["wrong"]
        clean_with_wrong += case["family"] == "clean"
    assert clean_with_wrong > 2000


def test_clean_texts_quote_something(cases):
    for case in (c for c in cases if c["family"] == "clean"):
        assert case["wrong"] is not None or "$" in case["text"] or "\\(" in case["text"]


def _style(**change):
    return {**BASE_STYLE, **change}


def test_hand_checked_fraction_and_root_idioms():
    three_quarters = parse_tex("\\frac34")
    assert tex(three_quarters, _style(frac="over")) == "{3 \\over 4}"
    assert tex(three_quarters, _style(frac="short")) == "\\frac34"
    assert tex(three_quarters, _style(frac="spaced")) == "\\frac 3 4"
    assert tex(three_quarters, _style(frac="nicefrac")) == "\\nicefrac{3}{4}"
    assert tex(three_quarters, _style(frac="hand")) == "{}^{3}\\!/\\!{}_{4}"
    radical = parse_tex("3\\sqrt{13}")
    assert tex(radical, _style(sqrt="power-slash")) == "3 \\cdot 13^{1/2}"
    assert tex(parse_tex("11\\sqrt2"), _style(sqrt="short")) == "11\\sqrt2"
    assert tex(parse_tex("\\frac{3\\sqrt{3}}{4}"), _style(frac="slash")) == "3\\sqrt{3}/4"
    assert tex(parse_tex("\\frac{11+9a}{20}"), _style(frac="slash")) == "(11 + 9a)/20"
    assert tex(parse_tex("6 - 5i"), _style(i="\\mathrm{i}", imaginary=True)) == "6 - 5\\mathrm{i}"
    assert tex(parse_tex("\\cot x"), _style(func="operatorname")) == "\\operatorname{cot} x"
    assert values(parse_tex("1 \\pm \\sqrt{19}")) == [1 - sp.sqrt(19), 1 + sp.sqrt(19)]
    assert to_sympy(parse_tex("\\frac9{19}")) == sp.Rational(9, 19)


def _texts(answer: str, problem: str = "") -> dict:
    key = Key(answer, problem, answer_type(answer, problem))
    return {name: "".join(s for s, _ in segs) for name, segs, _ in notations(key)}


def test_hand_checked_structures():
    half_open = _texts("(3,4]", "Find the values of $\\lambda$")
    assert half_open["french"] == "]3, 4]"
    assert half_open["interval-package"] == "\\interval[open left]{3}{4}"
    assert half_open["inequality"] == "3 < \\lambda \\leq 4"
    assert half_open["lparen-rbrack"] == "\\lparen 3, 4 \\rbrack"
    assert _texts("(2,\\infty)", "the set of all possible values")["french"] == "]2, +\\infty["
    assert _texts("(0,9) \\cup (9,36)")["setminus"] == "(0, 36) \\setminus \\{9\\}"
    assert _texts("(-\\infty, 2) \\cup (3, \\infty)")["setminus"] == "\\mathbb{R} \\setminus [2, 3]"
    vector = _texts("\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}")
    assert vector["bmatrix"] == "\\begin{bmatrix} -2 \\\\ -14 \\\\ -7 \\end{bmatrix}"
    assert vector["plain-tex-pmatrix"] == "\\pmatrix{-2 \\cr -14 \\cr -7 \\cr}"
    assert vector["row-transposed"] == "\\begin{bmatrix} -2 & -14 & -7 \\end{bmatrix}^\\top"
    assert _texts("90^\\circ")["siunitx-ang"] == "\\ang{90}"
    assert _texts("\\$18.90")["text-dollar"] == "\\text{\\$}18.90"
    assert _texts("10,\\!080")["thin-groups"] == "10\\,080"
    assert _texts("13535")["siunitx-exponent"] == "\\num{1.3535e4}"
    assert _texts("52_8")["parenthesized"] == "(52)_8"
    assert _texts("\\text{(C)}")["mathrm-letter"] == "(\\mathrm{C})"


def test_the_checker_reads_tex_values():
    assert detex("\\dfrac{3}{4}").replace(" ", "") == "((3)/(4))"
    key = Key("\\frac{3}{4}", "", "fraction")
    assert holds_answer("you wrote $0.75$", key)
    assert holds_answer("it is ${3 \\over 4}$", key)
    assert holds_answer("it is \\num{0.75}", key)
    assert not holds_answer("you wrote $\\tfrac{4}{3}$", key)
    root = Key("2\\sqrt{5}", "", "radical")
    assert holds_answer("so $\\sqrt{20}$ it is", root)
    assert holds_answer("about $4.4721$", root)
    assert not holds_answer("you wrote $2\\sqrt{6}$", root)
    interval = Key("(3,4]", "values of", "interval")
    assert holds_answer("the set $]3 ; 4]$", interval)
    assert not holds_answer("the set $]3, 4[$", interval)
    big = Key("10,\\!080", "", "large integer")
    assert holds_answer("it is $10\\,080$", big)
    assert holds_answer("it is $10{,}080$", big)
