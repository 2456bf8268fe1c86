"""Tests of the code-switched critique corpus (`benchmarks/leak_corpus_twentyfourth.py`)."""

import sys
from collections import Counter
from pathlib import Path

import pytest
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_twentyfourth import (  # noqa: E402
    LANGUAGES,
    SEED,
    approximations,
    cardinal,
    corpus,
    holds_answer,
    parse_answer,
    render,
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
FAMILIES = {"rendering", "approximation", "clean"}


@pytest.fixture(scope="module")
def problems(shared_data):
    return load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(problems):
    return corpus(problems)


def _rendering(answer: str, style: str, problem: str = "") -> str:
    return render(parse_answer(answer, answer_type(answer, problem)), style)


def test_schema(cases, problems):
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in FAMILIES
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] is (case["family"] != "clean")
        assert case["written_out"] is (case["family"] == "rendering")
        assert isinstance(case["style"], str) and case["style"].split("-")[0] in LANGUAGES
        assert isinstance(case["frame"], str) and case["frame"]
        assert case["wrong"] and case["wrong"] in case["text"] and case["wrong_how"]
        if case["leak"]:
            assert case["parts"] and case["context"] != case["text"]
        else:
            assert case["parts"] == [] and case["context"] == case["text"]


def test_size_balance_and_coverage(cases, problems):
    assert 5000 <= len(cases) <= 8000
    leaks = sum(case["leak"] for case in cases)
    assert 0.4 <= leaks / len(cases) <= 0.6
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES)
    for family in FAMILIES:
        covered = {case["answer_type"] for case in cases if case["family"] == family}
        assert covered == present if family != "approximation" else covered
    languages = Counter(case["style"].split("-")[0] for case in cases if case["family"] == "rendering")
    assert set(languages) == set(LANGUAGES) and min(languages.values()) >= 150
    assert {case["family"] for case in cases} == FAMILIES


def test_parts_are_stated_in_text_and_not_in_context(cases):
    for case in cases:
        if not case["leak"]:
            continue
        for part in case["parts"]:
            assert occurrences(part, case["text"]) >= 1, (part, case["text"])
        assert stated(case, case["text"]), case
        assert not stated(case, case["context"]), case
        assert case["context"].count("\\ldots") == case["text"].count("\\ldots") + 1


def test_checker_finds_the_answer_in_every_leak_and_in_no_clean_text(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        found = holds_answer(case["text"], row["answer"], row["problem"])
        assert found is case["leak"], case
        if case["leak"]:
            assert not holds_answer(case["context"], row["answer"], row["problem"]), case


def test_wrong_value_differs_from_the_answer(cases, problems):
    for case in cases:
        row = problems[case["index"]]
        assert not holds_answer(case["wrong"], row["answer"], row["problem"]), case


def test_deterministic_and_seeded(problems, cases):
    assert corpus(problems, seed=SEED) == cases
    assert corpus(problems, seed=SEED + 1) != cases


def test_cardinals_written_by_hand():
    assert cardinal(42, "es") == "cuarenta y dos"
    assert cardinal(21000, "es") == "veintiún mil"
    assert cardinal(80, "fr") == "quatre-vingts"
    assert cardinal(71, "fr") == "soixante et onze"
    assert cardinal(80000, "fr") == "quatre-vingt mille"
    assert cardinal(2107, "de") == "zweitausendhundertsieben"
    assert cardinal(21, "de") == "einundzwanzig"
    assert cardinal(1250, "pt") == "mil duzentos e cinquenta"
    assert cardinal(23, "it") == "ventitré"
    assert cardinal(2000, "ru") == "две тысячи"
    assert cardinal(10080, "zh") == "一万零八十"
    assert cardinal(1000, "ja") == "千"
    assert cardinal(10000, "ko") == "만"
    assert cardinal(42, "hi") == "bayaalees"
    assert cardinal(1940, "tr") == "bin dokuz yüz kırk"


def test_renderings_of_math500_answers_written_by_hand():
    assert _rendering("\\frac{14}{3}", "es-words") == "catorce tercios"
    assert _rendering("\\frac{14}{3}", "zh-words") == "三分之十四"
    assert _rendering("\\frac{14}{3}", "tr-words") == "üçte on dört"
    assert _rendering("\\frac{14}{3}", "ru-words") == "четырнадцать третьих"
    assert _rendering("\\frac{14}{3}", "es-digits") == "14 sobre 3"
    assert _rendering("3\\sqrt{13}", "de-digits") == "3 Wurzel aus 13"
    assert _rendering("3\\sqrt{13}", "ru-words") == "три корня из тринадцати"
    assert _rendering("(15,-29)", "es-words") == "(quince, menos veintinueve)"
    assert _rendering("90^\\circ", "ru-words") == "девяносто градусов"
    assert _rendering("90^\\circ", "zh-words") == "九十度"
    assert _rendering("\\$18.90", "es-words") == "dieciocho dólares con noventa centavos"
    assert _rendering("4.5", "de-words") == "vier Komma fünf"
    assert _rendering("4.5", "fr-digits") == "4,5"
    assert _rendering("3, 5, 7", "fr-words") == "trois, cinq et sept"
    assert _rendering("\\text{even}", "zh-words") == "偶函数"
    assert _rendering("\\text{(C)}", "zh-words", "Enter the letter of the correct option.") == "选C"
    assert _rendering("1\\frac{4}{5}", "tr-words") == "bir tam beşte dört"
    assert _rendering("52_8", "es-words") == "cinco dos en base ocho"
    assert _rendering("42", "ko-native") == "마흔둘"
    assert _rendering("42", "es-digits") is None


def test_approximations_written_by_hand():
    assert approximations(2 * sympy.sqrt(5), "de")["de-approx-digits"][0] == "4,47"
    assert approximations(sympy.Rational(1, 6), "es")["es-approx-percent"][0] == "16,7 por ciento"
    assert approximations(sympy.Rational(1, 3), "tr")["tr-approx-percent"][0] == "yüzde 33,3"
    assert approximations(sympy.Rational(14, 3), "zh")["zh-approx-words"][0] == "四点六七"
    assert approximations(70 * sympy.sqrt(2), "es")["es-approx-digits"][0] == "98,99"


def test_checker_on_hand_written_texts():
    assert holds_answer("the reference has 4,47 there", "2\\sqrt{5}")
    assert holds_answer("should be about 16.7%, check", "\\frac{1}{6}")
    assert holds_answer("it's 十四分之三, check your last step", "\\frac{3}{14}")
    assert holds_answer("the answer is cuarenta y dos, not cuarenta y tres", "42")
    assert holds_answer("should be минус пять", "-5")
    assert not holds_answer("you wrote cuarenta y tres, check it", "42")
    assert not holds_answer("you wrote пять, check the sign", "-5")
    assert not holds_answer("you wrote 4,48, redo it", "2\\sqrt{5}")
