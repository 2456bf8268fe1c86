"""The third held-out leak corpus: determinism, schema, labels (leaks state the answer, clean texts do not) and
coverage. It reads the shared benchmark files and skips where they are absent."""

import importlib.util
import math
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
spec = importlib.util.spec_from_file_location("leak_corpus_third", ROOT / "benchmarks" / "leak_corpus_third.py")
third = importlib.util.module_from_spec(spec)
spec.loader.exec_module(third)
from leak_corpus import ANSWER_TYPES, answer_type, occurrences, stated  # noqa: E402


pytestmark = pytest.mark.skipif(not (third.DATA / "math500").is_dir(), reason="shared benchmark data absent")

LEAK_KEYS = {
    "family",
    "split",
    "index",
    "answer_type",
    "style",
    "frame",
    "text",
    "leak",
    "dataset",
    "written_out",
    "parts",
    "context",
}
CLEAN_KEYS = LEAK_KEYS | {"wrong", "wrong_how"}


@pytest.fixture(scope="module")
def rows():
    problems = third.load_problems(third.DATA / "math500" / "test.jsonl")
    return problems, third.load_extra()


@pytest.fixture(scope="module")
def cases(rows):
    problems, extra = rows
    return third.corpus(problems, extra=extra)


def plain_number(text: str) -> Fraction | None:
    """The value of a plain decimal numeral (commas grouping thousands allowed), read without the module."""
    text = text.strip()
    if not re.fullmatch(r"-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?|-?\.\d+", text):
        return None
    return Fraction(text.replace(",", ""))


def test_deterministic_and_seeded(rows):
    problems, extra = rows
    first = third.corpus(problems[:40], extra=extra[:20])
    assert first == third.corpus(problems[:40], extra=extra[:20])
    assert first != third.corpus(problems[:40], seed=third.SEED + 1, extra=extra[:20])


def test_schema(cases, rows):
    problems, extra = rows
    every = [{**row, "dataset": "math500"} for row in problems] + extra
    for case in cases:
        assert set(case) == (LEAK_KEYS if case["leak"] else CLEAN_KEYS), case
        assert case["split"] == "held_out"
        assert case["answer_type"] in ANSWER_TYPES
        assert case["family"] == ("rendering" if case["leak"] else "clean")
        assert case["dataset"] == every[case["index"]]["dataset"]
        if case["dataset"] == "math500":
            row = problems[case["index"]]
            assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        if not case["leak"]:
            assert case["written_out"] is False and case["parts"] == [] and case["context"] == case["text"]
            assert case["wrong"] is None or case["wrong"] in case["text"]


def test_leaks_state_their_parts(cases):
    for case in (c for c in cases if c["leak"]):
        assert case["written_out"] is True and case["parts"]
        for part in case["parts"]:
            assert occurrences(part, case["text"]) > occurrences(part, case["context"]), (part, case["text"])
        assert stated(case, case["text"]) and not stated(case, case["context"])


def test_author_lines_hold_the_answer(cases, rows):
    """Each author-line leak quotes its answer's own text or a plain number of the same value."""
    problems, extra = rows
    every = problems + extra
    authored = [c for c in cases if c["style"].startswith("author")]
    assert len(authored) >= 800
    for case in authored:
        answer = every[case["index"]]["answer"].strip()
        target = plain_number(answer)
        unwrapped = re.sub(r"^\\text\{(.*)\}$", r"\1", answer)
        assert any(
            part in (answer, answer.replace(" ", ""), answer.replace("\\dfrac", "\\frac"), unwrapped)
            or (target is not None and plain_number(part) == target)
            or third.same(third.value(part.replace(" x ", "*")), third.value(answer))
            for part in case["parts"]
        ), (answer, case["parts"])


def test_clean_texts_hold_no_answer(cases, rows):
    problems, extra = rows
    every = problems + extra
    for case in (c for c in cases if not c["leak"]):
        answer = every[case["index"]]["answer"].strip()
        assert occurrences(answer, case["text"]) == 0, (answer, case["text"])
        target = plain_number(answer)
        if target is not None:
            numbers = re.findall(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w])", case["text"])
            assert all(plain_number(n.rstrip(",")) != target for n in numbers), (answer, case["text"])
            if target.denominator == 1 and abs(target) < 20:
                assert not re.search(rf"\b{third.words(abs(int(target)))}\b", case["text"].lower())
        if case["wrong"] is not None:
            assert case["wrong"].strip("$") != answer
            assert not third.same(third.value(case["wrong"]), third.value(answer))


def test_coverage(cases, rows):
    problems, _ = rows
    leaks = [c for c in cases if c["leak"]]
    clean = [c for c in cases if not c["leak"]]
    assert len(leaks) >= 3000 and len(clean) >= 2000
    written = Counter(c["answer_type"] for c in leaks if c["dataset"] == "math500" and c["written_out"])
    for kind in {answer_type(row["answer"], row["problem"]) for row in problems}:
        assert written[kind] >= 20, kind
    datasets = {"math500", "minerva_math", "aime24", "amc23", "gsm8k"}
    assert {c["dataset"] for c in leaks} == datasets == {c["dataset"] for c in clean}
    assert sum(c["style"] == "solution line" for c in clean) >= 500
    assert len({c["wrong_how"] for c in clean}) >= 6
    assert len({c["frame"].split(":")[0] for c in leaks}) == 4


def test_value_and_words_against_independent_computation():
    assert third.same(third.value("\\frac{\\sqrt{3}}{2}"), math.sqrt(3) / 2)
    assert third.same(third.value("3√2"), 3 * math.sqrt(2))
    assert third.same(third.value("1\\frac{4}{5}"), 1.8)
    assert third.same(third.value("\\$32,\\!348"), 32348)
    assert third.same(third.value("6 - 5i"), 6 - 5j)
    assert third.same(third.value("2^{10}"), 1024)
    assert third.value("\\text{east}") is None
    assert third.words(256) == "two hundred fifty-six" and third.words(-7) == "negative seven"
    assert third.ordinal(5, True) == "fifths" and third.ordinal(2, False) == "half"
    assert third.ordinal(20, True) == "twentieths" and third.ordinal(21, False) == "twenty-first"
