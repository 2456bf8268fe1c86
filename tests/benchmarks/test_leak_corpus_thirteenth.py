import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_thirteenth import (  # noqa: E402
    LANGS,
    SEED,
    corpus,
    decimal_words,
    fmt_number,
    fraction_words,
    holds_answer,
    ja_kana,
    mixed_words,
    numeric_words,
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


def test_schema(cases, problems):
    assert SEED == 0
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = problems[case["index"]]
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        lang, register, template = case["frame"].split(":")
        assert lang in LANGS and register in ("teacher", "grader", "tutor", "forum", "llm") and template
        assert case["style"].split("/")[0] == lang
        if case["wrong"] is not None:
            assert case["wrong"] in case["text"] and case["wrong_how"]


def test_deterministic(problems):
    assert corpus(problems[:60]) == corpus(problems[:60])
    assert corpus(problems[:60], seed=1) != corpus(problems[:60])


def test_parts_occur_and_are_stated(cases):
    for case in (c for c in cases if c["leak"]):
        assert case["parts"] and all(part in case["text"] for part in case["parts"])
        assert all(occurrences(part, case["text"]) for part in case["parts"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"])
        assert "\\ldots" in case["context"]


def test_clean_texts_hold_no_answer(cases, problems):
    for case in (c for c in cases if not c["leak"]):
        row = problems[case["index"]]
        assert case["parts"] == [] and case["context"] == case["text"] and case["wrong"]
        assert not holds_answer(case["text"], row["answer"], case["answer_type"]), case["text"]


def test_the_checker_sees_every_leak(cases, problems):
    for case in (c for c in cases if c["leak"]):
        row = problems[case["index"]]
        assert holds_answer(case["text"], row["answer"], case["answer_type"]), case["text"]


def test_checker_reads_locale_numbers_both_ways():
    assert holds_answer("Die Lösung ist 1.440.", "1440", "large integer")
    assert holds_answer("Le résultat est 1\u202f440.", "1440", "large integer")
    assert holds_answer("Résultat : 0,75.", "\\frac34", "fraction")
    assert holds_answer("答案是 四分之三。", "\\frac34", "fraction")
    assert holds_answer("Ответ: двести четыре.", "204", "large integer")
    assert holds_answer("Risultato: circa 1,732.", "\\sqrt{3}", "radical")
    assert holds_answer("La réponse est ]3 ; 4].", "(3,4]", "interval")
    assert not holds_answer("Tu as écrit 205, revois le 12 de l'énoncé.", "204", "large integer")
    assert not holds_answer("Du hast [3; 4] raus.", "(3,4]", "interval")


def test_number_words_by_hand():
    expected = {
        204: {
            "zh": "二百零四",
            "ja": "二百四",
            "ko": "이백사",
            "es": "doscientos cuatro",
            "pt": "duzentos e quatro",
            "fr": "deux cent quatre",
            "it": "duecentoquattro",
            "de": "zweihundertvier",
            "ru": "двести четыре",
            "tr": "iki yüz dört",
        },
        1440: {
            "zh": "一千四百四十",
            "ja": "千四百四十",
            "ko": "천사백사십",
            "es": "mil cuatrocientos cuarenta",
            "pt": "mil quatrocentos e quarenta",
            "fr": "mille quatre cent quarante",
            "it": "millequattrocentoquaranta",
            "de": "eintausendvierhundertvierzig",
            "ru": "тысяча четыреста сорок",
            "tr": "bin dört yüz kırk",
        },
        -17: {
            "zh": "负十七",
            "es": "menos diecisiete",
            "fr": "moins dix-sept",
            "de": "minus siebzehn",
            "ru": "минус семнадцать",
            "pt": "menos dezessete",
            "it": "meno diciassette",
            "tr": "eksi on yedi",
        },
    }
    for n, by_lang in expected.items():
        for lang, text in by_lang.items():
            assert words(lang, n) == text, (n, lang)
    assert words("zh", 10080) == "一万零八十"
    assert words("fr", 80) == "quatre-vingts" and words("fr", 71) == "soixante et onze"
    assert words("es", 21000) == "veintiún mil" and words("it", 23) == "ventitré" and words("it", 28) == "ventotto"
    assert words("ru", 2000) == "две тысячи" and words("ko", 27648) == "이만 칠천육백사십팔"
    assert ja_kana(204) == "にひゃくよん" and ja_kana(800) == "はっぴゃく" and ja_kana(3000) == "さんぜん"


def test_fraction_decimal_and_root_words_by_hand():
    three_quarters = Fraction(3, 4)
    assert fraction_words("es", three_quarters) == "tres cuartos"
    assert fraction_words("de", three_quarters) == "drei Viertel"
    assert fraction_words("zh", three_quarters) == "四分之三"
    assert fraction_words("ja", three_quarters) == "四分の三"
    assert fraction_words("fr", three_quarters) == "trois quarts"
    assert fraction_words("ru", three_quarters) == "три четвёртых"
    assert fraction_words("tr", three_quarters) == "dörtte üç"
    assert fraction_words("it", Fraction(2, 3)) == "due terzi"
    assert fraction_words("pt", Fraction(11, 36)) == "onze trinta e seis avos"
    assert fraction_words("fr", Fraction(11, 36)) == "onze trente-sixièmes"
    assert fraction_words("ru", Fraction(1, 3)) == "одна третья"
    assert fraction_words("de", Fraction(-35, 9)) == "minus fünfunddreißig Neuntel"
    assert mixed_words("de", 137, Fraction(1, 2)) == "einhundertsiebenunddreißigeinhalb"
    assert mixed_words("zh", 1, Fraction(4, 5)) == "一又五分之四"
    assert mixed_words("tr", 1, Fraction(4, 5)) == "bir tam beşte dört"
    assert decimal_words("de", "3.21") == "drei Komma zwei eins"
    assert decimal_words("zh", "0.15") == "零点一五"
    assert decimal_words("ru", "1.25") == "одна целая двадцать пять сотых"
    assert numeric_words("zh", "\\frac{\\sqrt{3}}{3}") == "三分之根号三"
    assert numeric_words("ru", "\\sqrt{2}") == "квадратный корень из двух"
    assert numeric_words("es", "\\sqrt{2}") == "la raíz cuadrada de dos"
    assert numeric_words("ru", "-\\frac{\\pi}{6}") == "минус пи на шесть"
    assert fmt_number("de", "1440") == "1.440" and fmt_number("de", "1440", 1) == "1’440"
    assert fmt_number("fr", "0.75") == "0,75" and fmt_number("fr", "1440") == "1\u202f440"


def test_every_present_type_is_covered(cases, problems):
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES)
    assert {case["answer_type"] for case in cases} == present
    for family in ("rendering", "clean"):
        assert {c["answer_type"] for c in cases if c["family"] == family} == present


def test_counts(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 6000 <= len(cases) <= 9000
    assert 3500 <= families["rendering"] <= 4500
    assert 100 <= families["approximation"] <= 600
    assert 3000 <= families["clean"] <= 4500
    assert {case["index"] for case in cases} == set(range(len(problems)))
    languages = Counter(case["frame"].split(":")[0] for case in cases)
    assert set(languages) == set(LANGS) and min(languages.values()) >= 500
    for case in (c for c in cases if c["family"] == "approximation"):
        digits = re.sub(r"\D", "", case["parts"][0]).lstrip("0")
        assert 4 <= len(digits) <= 7
