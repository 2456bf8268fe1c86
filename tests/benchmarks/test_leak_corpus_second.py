"""The second held-out leak corpus: deterministic, well-formed, its leaks state the answer, its clean critiques don't.

The values are checked against computations written here (Python arithmetic on ASCII renderings, Fractions from the
reference strings), not against the corpus's own parser.
"""

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
_spec = importlib.util.spec_from_file_location("leak_corpus_second", ROOT / "benchmarks" / "leak_corpus_second.py")
second = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(second)

COMMON = {
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
}


@pytest.fixture(scope="module")
def problems(shared_data):
    return second.load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return second.corpus(problems)


def test_deterministic_for_a_seed(problems, cases):
    assert second.corpus(problems) == cases
    assert second.corpus(problems[:40], seed=second.SEED + 1) != second.corpus(problems[:40])


def test_keys_and_values(problems, cases):
    for case in cases:
        keys = set(case)
        if case["family"] == "clean":
            assert keys == COMMON | {"wrong", "wrong_how"}, case
            assert (
                not case["leak"]
                and not case["written_out"]
                and case["parts"] == []
                and case["context"] == case["text"]
            )
            assert (case["wrong"] is None) == (case["wrong_how"] is None)
        else:
            assert case["family"] in ("rendering", "arithmetic", "approximation"), case
            assert keys in (COMMON, COMMON | {"irrational"}), case
            assert case["leak"] and case["parts"] and all(isinstance(p, str) and p for p in case["parts"])
            assert case["written_out"] is False or case["family"] == "rendering"
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == second.answer_type(row["answer"], row["problem"])
        assert case["style"] and case["frame"] and case["text"]


def test_every_leak_states_a_part_beyond_its_context(cases):
    for case in (c for c in cases if c["leak"]):
        for part in case["parts"]:
            assert second.occurrences(part, case["text"]) > second.occurrences(part, case["context"]), (part, case)


def _reference_forms(answer: str) -> set[str]:
    """Ways the reference itself is written: as given, without spaces or thousands commas, \\frac{a}{b} as a/b."""
    text = answer.strip().replace("\\!", "").replace("\\dfrac", "\\frac")
    forms = {answer.strip(), text, text.replace(" ", "")}
    forms.add(re.sub(r"\\frac\s*\{?(\d)\}?\{?(\d+)\}?", r"\1/\2", text.replace(" ", "")))
    forms.add(re.sub(r"\\frac\{(\d+)\}\{(\d+)\}", r"\1/\2", text))
    if re.fullmatch(r"-?\d{1,3}(,\s*\d{3})+", text):
        forms.add(re.sub(r",\s*", "", text))
    word = re.fullmatch(r"\\text\{\s*\(?([A-Za-z ]+?)\)?\s*\}", text)
    if word:
        forms |= {word.group(1), f"({word.group(1)})"}
    return {f for f in forms if f}


def _reference_value(answer: str) -> Fraction | None:
    text = answer.strip().replace("\\!", "").replace(",", "").replace(" ", "").replace("\\dfrac", "\\frac")
    if re.fullmatch(r"-?\d*\.?\d+", text):
        return Fraction(text)
    match = re.fullmatch(r"(-?)\\frac\{?(\d+)\}?\{?(\d+)\}?", text)
    if match and len(text) > 6:
        sign, p, q = match.groups()
        return Fraction(int(p), int(q)) * (-1 if sign else 1)
    return None


def test_no_clean_critique_states_the_answer(problems, cases):
    clean = [c for c in cases if c["family"] == "clean"]
    for case in clean:
        answer = problems[case["index"]]["answer"]
        for form in _reference_forms(answer):
            assert second.occurrences(form, case["text"]) == 0, (form, case)
        value = _reference_value(answer)
        if value is not None:
            numbers = re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w]|\.\d)", case["text"])
            assert all(Fraction(n) != value for n in numbers), case
        if case["wrong"] is not None:
            assert case["wrong"] in case["text"]
            assert case["wrong"].strip("$()\\") != answer.strip()


def test_every_answer_type_is_covered(problems, cases):
    present = Counter(second.answer_type(row["answer"], row["problem"]) for row in problems)
    leaks = Counter(c["answer_type"] for c in cases if c["leak"] and c["written_out"])
    clean = Counter(c["answer_type"] for c in cases if c["family"] == "clean")
    for kind in present:
        assert leaks[kind] >= 20, kind
        assert clean[kind] >= 5, kind
    assert 3000 <= sum(c["leak"] for c in cases) <= 4500
    assert sum(not c["leak"] for c in cases) >= 2000
    families = Counter(c["family"] for c in cases)
    assert families["arithmetic"] >= 300 and families["approximation"] >= 50
    assert len({c["index"] for c in cases}) == len(problems)


def test_number_words():
    assert second.number_words(0) == "zero"
    assert second.number_words(-41) == "negative forty-one"
    assert second.number_words(2220) == "two thousand two hundred twenty"
    assert second.number_words(11111111100) == (
        "eleven billion one hundred eleven million one hundred eleven thousand one hundred"
    )
    assert second.fraction_words(Fraction(3, 4)) == "three fourths"
    assert second.fraction_words(Fraction(-35, 9)) == "negative thirty-five ninths"
    assert second.fraction_words(Fraction(11, 36)) == "eleven thirty-sixths"
    assert second.fraction_words(Fraction(33, 100)) == "thirty-three hundredths"


HAND = {
    "3\\sqrt{13}": 3 * math.sqrt(13),
    "\\frac{3\\sqrt{3}}{4}": 3 * math.sqrt(3) / 4,
    "11 \\sqrt{5} + 11": 11 * math.sqrt(5) + 11,
    "-\\frac{\\pi}{6}": -math.pi / 6,
    "18+2\\pi": 18 + 2 * math.pi,
    "\\frac{20000}{\\pi}": 20000 / math.pi,
    "\\frac{3840}{289}": 3840 / 289,
}


def _python(ascii_text: str) -> float:
    """The value of a plain-text expression; a coefficient written before a name multiplies it (3sqrt(13))."""
    ascii_text = re.sub(r"(\d)\s*(?=[a-z(])", r"\1*", ascii_text)
    return eval(ascii_text, {"__builtins__": {}}, {"sqrt": math.sqrt, "pi": math.pi})


@pytest.mark.parametrize("answer", sorted(HAND))
def test_ascii_rendering_has_the_value(problems, answer):
    row = next(r for r in problems if r["answer"] == answer)
    info = second.describe(answer, second.answer_type(answer, row["problem"]), row["problem"])
    ascii_ = [r["raw"] for r in info["written"] if r["notation"] in ("ascii", "plain")]
    assert ascii_ and all(_python(text) == pytest.approx(HAND[answer]) for text in ascii_)


def test_approximations_are_close(problems, cases):
    checked = 0
    for case in (c for c in cases if c["family"] == "approximation"):
        answer = problems[case["index"]]["answer"]
        if answer not in HAND:
            continue
        (number,) = case["parts"]
        places = len(number.partition(".")[2])
        assert abs(float(number) - HAND[answer]) <= 0.51 * 10**-places, case
        assert len(number.replace("-", "").replace(".", "").lstrip("0")) >= 3
        checked += 1
    assert checked >= 10


def _statement(case: dict) -> str:
    text, context = case["text"], case["context"]
    start = next(k for k, (a, b) in enumerate(zip(text, context + "\0")) if a != b)
    end = len(text) - len(context) + start
    return text[start:end]


def _evaluate(statement: str) -> float | None:
    text = statement.replace("$", "").replace("\\(", "").replace("\\)", "").replace("°", "").replace("\\$", "")
    for words, python in (
        (r"half of (.+)", r"(\1)/2"),
        (r"twice (.+)", r"2*(\1)"),
        (r"one less than (.+)", r"(\1)-1"),
        (r"one more than (.+)", r"(\1)+1"),
        (r"the sum of (.+) and (.+)", r"(\1)+(\2)"),
        (r"the difference between (.+) and (.+)", r"(\1)-(\2)"),
        (r"(.+) times (.+)", r"(\1)*(\2)"),
        (r"(.+) squared", r"(\1)**2"),
    ):
        text = re.sub(f"^{words}$", python, text)
    text = re.sub(r"\\frac\{([^{}]+(?:\{[^{}]*\}[^{}]*)*)\}\{([^{}]+)\}", r"((\1)/(\2))", text)
    text = re.sub(r"\\sqrt\{(\d+)\}", r"sqrt(\1)", text)
    text = text.replace("\\times", "*").replace("\\cdot", "*").replace("\\pi", "pi").replace("^", "**")
    text = re.sub(r"(\d|\))\s*(sqrt|pi|\()", r"\1*\2", text)
    try:
        return _python(text)
    except (SyntaxError, NameError, TypeError):
        return None


def test_arithmetic_statements_compute_the_answer(problems, cases):
    arithmetic = [c for c in cases if c["family"] == "arithmetic"]
    evaluated = 0
    for case in arithmetic:
        answer = problems[case["index"]]["answer"]
        expected = HAND.get(answer)
        if expected is None:
            plain = answer.replace("\\!", "").replace(",", "").replace("^\\circ", "").replace("\\$", "").strip()
            expected = float(plain) if re.fullmatch(r"-?\d+", plain) else None
        value = _evaluate(_statement(case))
        if expected is None or value is None:
            continue
        assert value == pytest.approx(expected), (_statement(case), case)
        evaluated += 1
    assert evaluated >= 0.6 * len(arithmetic)
