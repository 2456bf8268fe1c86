"""`benchmarks/leak_corpus_twentyfifth.py`: schema, determinism, splits, every leak stated and its context clean,
clean texts free of the answer, equivalent forms checked equal with sympy independently of the module's checker, and
hand-checked transformations."""

import random
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import leak_corpus_twentyfifth as corpus_module  # noqa: E402
from leak_corpus import ANSWER_TYPES, load_problems, stated  # noqa: E402


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
    return corpus_module.corpus(problems)


def test_schema_and_counts(cases, problems):
    assert 4000 < len(cases) < 8000
    for case in cases:
        assert set(case) == KEYS
        assert case["answer_type"] in ANSWER_TYPES
        assert case["split"] in ("development", "held_out")
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["leak"] == (case["family"] != "clean")
        assert 0 <= case["index"] < len(problems)
        assert case["frame"] in corpus_module.FRAMES
        if not case["leak"]:
            assert case["written_out"] is False and case["parts"] == [] and case["context"] == case["text"]
        if case["family"] == "approximation":
            assert case["written_out"] is False
        if case["wrong"]:
            assert case["wrong"] in case["text"]


def test_deterministic(problems, cases):
    subset = problems[:60]
    assert corpus_module.corpus(subset) == corpus_module.corpus(subset)
    assert corpus_module.corpus(subset) == [c for c in cases if c["index"] < 60]
    assert corpus_module.corpus(subset, seed=1) != corpus_module.corpus(subset)


def test_splits_present_per_family(cases):
    for family in ("rendering", "approximation", "clean"):
        splits = Counter(c["split"] for c in cases if c["family"] == family)
        assert set(splits) == {"development", "held_out"}, family
    written = Counter(c["split"] for c in cases if c["family"] == "rendering" and c["written_out"])
    assert set(written) == {"development", "held_out"}


def test_leak_split_follows_style_and_frame(cases):
    frames = corpus_module.frame_splits()
    for case in cases:
        if case["leak"]:
            assert case["split"] == corpus_module.style_split(case["style"])
        assert frames[case["frame"]] == case["split"]


def test_leaks_stated_and_contexts_clean(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        if case["leak"]:
            assert stated(case, case["text"]), case
            assert not stated(case, case["context"])
            assert corpus_module.holds_answer(case["text"], row["answer"], row["problem"]), case
            assert not corpus_module.holds_answer(case["context"], row["answer"], row["problem"]), case
        else:
            assert not corpus_module.holds_answer(case["text"], row["answer"], row["problem"]), case


def _sympy_value(text: str):
    """An independent reading of a plain-text scalar with sympy's own parser."""
    from sympy.parsing.sympy_parser import (
        implicit_multiplication_application,
        parse_expr,
        rationalize,
        standard_transformations,
    )

    text = text.replace("^", "**").replace("−", "-").replace("·", "*").replace("×", "*")
    text = re.sub(r"(?<=\d)[,\u2009](?=\d{3})", "", text)
    if "%" in text:
        text = f"({text.replace('%', '')})/100"
    if re.search(r"\d\s+\d+/\d+", text):  # mixed number
        whole, rest = text.split(maxsplit=1)
        text = f"{whole} + {rest}" if not whole.startswith("-") else f"{whole} - {rest}"
    transformations = (*standard_transformations, implicit_multiplication_application, rationalize)
    return parse_expr(text, transformations=transformations, local_dict={"pi": sympy.pi, "i": sympy.I, "I": sympy.I})


def test_equivalent_scalar_forms_equal_by_sympy(problems):
    """A sample of scalar rows: every plain form that sympy's own parser reads equals the answer."""
    rng = random.Random(5)
    checked = 0
    for row in rng.sample(problems, 150):
        target = corpus_module.parse_target(row["answer"], row["problem"])
        if target is None or target.kind != "scalar":
            continue
        for name, form, _ in corpus_module.equivalent_forms(row["answer"], row["problem"], random.Random(1)):
            if "(" in form.plain and "." in form.plain and name == "repeating-decimal":
                continue
            try:
                value = _sympy_value(form.plain)
            except Exception:  # noqa: BLE001 - forms sympy's parser cannot read (repeating decimals) are skipped
                continue
            assert sympy.simplify(value - target.value) == 0, (row["answer"], name, form.plain)
            checked += 1
    assert checked > 200


def test_equivalent_forms_differ_from_own(cases):
    for case in cases:
        if case["family"] == "rendering" and not case["written_out"]:
            assert not case["style"].startswith("own-form")


def test_hand_checked_transformations():
    rng = random.Random(0)
    fractions = {n: f.plain for n, f in corpus_module._fraction_forms(corpus_module.Fraction(14, 3), rng)}
    assert fractions["mixed-number"] == "4 2/3"
    assert fractions["repeating-decimal"] == "4.(6)"
    assert corpus_module.ifrac(28, 6).latex == r"\frac{28}{6}"
    radicals = dict(corpus_module.scalar_forms(2 * sympy.sqrt(5), "", rng))
    assert radicals["root-of-square"].latex == r"\sqrt{20}"
    assert radicals["unrationalized"].plain == "10/sqrt(5)"
    assert dict(corpus_module.scalar_forms(sympy.sqrt(3) / 3, "", rng))["unrationalized"].uni == "1/√3"
    assert corpus_module.prime_product(72).uni == "2³·3²"
    sets = {
        n: f.plain
        for n, f, _ in corpus_module.set_forms([sympy.Integer(3), sympy.Integer(5), sympy.Integer(7)], False, rng)
    }
    assert sets["reordered"] == "5, 3, 7"
    interval = corpus_module.parse_target("(3,4]", "interval")
    forms = {n: f.uni for n, f, _ in corpus_module.interval_forms(interval.exact, rng)}
    assert forms["inequality"] == "3 < x ≤ 4"
    assert corpus_module.holds_answer("so $\\frac{28}{6}$ it is", r"\frac{14}{3}")
    assert corpus_module.holds_answer("we need 2^3*3^2 here", "72")
    assert corpus_module.holds_answer("it is √20, not 4", r"2\sqrt{5}")
    assert corpus_module.holds_answer("the set is {7, 3, 5}", "3, 5, 7")
    assert corpus_module.holds_answer("take 3 < x <= 4", "(3,4]", "interval")
    assert corpus_module.holds_answer("about 1.732", r"\sqrt{3}")
    assert corpus_module.holds_answer("the line 2x - y + 3 = 0", "y = 2x + 3")
    assert not corpus_module.holds_answer("it is 28/5, not 4", r"\frac{14}{3}")
    assert not corpus_module.holds_answer("the set is {7, 3, 6}", "3, 5, 7")
    assert not corpus_module.holds_answer("about 1.74", r"\sqrt{3}")
