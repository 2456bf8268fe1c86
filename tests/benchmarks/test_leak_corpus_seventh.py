"""The seventh held-out leak corpus (the datasets' own worked solutions): its checks, labels, determinism and
coverage."""

import sys
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_seventh import (  # noqa: E402
    Answer,
    corpus,
    load_extra,
    mentions_answer,
    sentences,
    statement_spans,
    unbox,
    unquoted,
    wrong_variants,
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
def rows(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def extra(shared_data):
    return load_extra()


@pytest.fixture(scope="module")
def cases(rows, extra):
    return corpus(rows, extra=extra)


def test_sentences_keep_math_whole_and_drop_figures():
    solution = "We have $x = 1.5.$ Then [asy]draw((0,0)--(1,1));[/asy] \\[y = 2.\\]So $x + y = \\boxed{3.5}$. Done."
    assert sentences(solution) == ["We have $x = 1.5.$", "Then \\[y = 2.\\]", "So $x + y = \\boxed{3.5}$.", "Done."]


def test_unbox_gives_the_content_and_its_span():
    text, span = unbox("Thus $x = \\boxed{\\frac{1}{2}}.$")
    assert text == "Thus $x = \\frac{1}{2}.$"
    assert text[slice(*span)] == "\\frac{1}{2}"


def test_statement_spans_find_the_value_in_other_notation_and_not_as_an_exponent():
    answer = Answer("\\frac{3}{4}", "fraction", "Find $p$.")
    sentence = "So $p = 0.75$, and $q^3 = 3/4$."
    assert [sentence[a:b] for a, b in statement_spans(sentence, answer, None)] == ["0.75", "3/4"]
    small = Answer("3", "small integer", "Find $x$.")
    assert statement_spans("Then $y^3 = 3$ and $x = 3$.", small, "x") == [(24, 25)]


def test_mentions_answer_reads_numbers_fractions_and_words():
    answer = Answer("12", "small integer", "")
    assert mentions_answer("there are twelve ways", answer)
    assert mentions_answer("$\\frac{24}{2}$ ways", answer)
    assert not mentions_answer("there are $13$ ways", answer)
    # a minus sign may be a subtraction: the check stays strict
    assert mentions_answer("Count $x-12$ first", answer)


def test_wrong_variants_keep_the_shape():
    assert wrong_variants("(3,4]", "interval", "") == [("[3,4]", "open end closed"), ("(4,4]", "endpoint off by one")]
    assert wrong_variants("(15,-29)", "ordered pair", "")[0] == ("(-29, 15)", "swapped pair")
    assert wrong_variants("\\text{(C)}", "multiple choice", "") == [("\\text{(E)}", "another option letter")]
    assert wrong_variants("52_8", "base-n number", "") == [("51_8", "last digit changed")]
    assert ("-\\frac{5}{3}", "reciprocal") in wrong_variants("-\\frac{3}{5}", "fraction", "")


def test_schema_of_every_case(cases, rows):
    assert 6000 <= len(cases) <= 12000
    for case in cases:
        assert set(case) - {"dataset"} == KEYS
        assert ("dataset" in case) == (case["index"] >= len(rows))
        assert case["family"] in ("rendering", "arithmetic", "clean")
        assert case["split"] == "held_out"
        assert case["answer_type"] in ANSWER_TYPES
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        assert ":" in case["frame"] and case["style"]


def test_deterministic(rows, extra, cases):
    assert corpus(rows, extra=extra) == cases
    assert corpus(rows[:40], seed=1) != corpus(rows[:40], seed=2)


def test_every_math500_answer_type_is_covered(rows, cases):
    present = {answer_type(row["answer"], row["problem"]) for row in rows}
    covered = {case["answer_type"] for case in cases if case["index"] < len(rows)}
    assert len(present) == 20
    assert covered == present
    assert len({case["index"] for case in cases if case["index"] < len(rows)}) >= 490


def test_every_leak_states_its_value(cases):
    leaks = [case for case in cases if case["leak"]]
    for case in leaks:
        assert case["parts"] and all(part in case["text"] for part in case["parts"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"])


def test_no_clean_text_mentions_the_answer(rows, extra, cases):
    table = [*rows, *extra]
    for case in cases:
        if case["family"] != "clean":
            continue
        row = table[case["index"]]
        answer = Answer(row["answer"], case["answer_type"], row["problem"])
        assert not mentions_answer(unquoted(case["text"], case["wrong"]), answer)
        assert case["parts"] == [] and case["context"] == case["text"]


def test_every_wrong_value_differs_from_the_answer_and_stands_in_the_text(rows, extra, cases):
    table = [*rows, *extra]
    quoted = [case for case in cases if case["wrong"] is not None]
    assert len(quoted) > 1000
    for case in quoted:
        assert case["wrong_how"]
        assert case["wrong"].replace(" ", "") != table[case["index"]]["answer"].replace(" ", "")
        assert occurrences(case["wrong"], case["text"]) >= 1


def test_extra_rows_load(extra):
    datasets = {row["dataset"] for row in extra}
    assert datasets == {"gsm8k", "minerva_math", "aime24"}
    assert all(row["problem"] and row["answer"] and row["solution"] for row in extra)
    assert sum(row["dataset"] == "gsm8k" for row in extra) == 1319
