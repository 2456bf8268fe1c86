"""`benchmarks/leak_corpus.py`'s pure functions, each against an independent computation: number words against
`num2words`, renderings and arithmetic statements against the answer's value, wrong attempts never equal to it."""

import math
import random
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from num2words import num2words


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import leak_corpus  # noqa: E402


@pytest.fixture(scope="module")
def math500(shared_data):
    return leak_corpus.load_problems(shared_data / "math500" / "test.jsonl")


def british(words: str) -> str:
    """num2words' spelling without its commas and "and": "two thousand, one hundred and seven" -> "two thousand one
    hundred seven"."""
    return words.replace(",", "").replace(" and ", " ")


def test_int_words_matches_num2words():
    for n in [*range(0, 2000), 2107, 4495, 10080, 27648, 58500, 11111111100, -3, -256]:
        assert leak_corpus.int_words(n) == ("negative " if n < 0 else "") + british(num2words(abs(n))), n


def test_fraction_and_decimal_words():
    assert leak_corpus.fraction_words(3, 4) == "three fourths"
    assert leak_corpus.fraction_words(1, 2) == "one half"
    assert leak_corpus.fraction_words(5, 12) == "five twelfths"
    assert leak_corpus.fraction_words(1, 21) == "one twenty-first"
    assert leak_corpus.fraction_words(-3, 8) == "negative three eighths"
    assert leak_corpus.decimal_words(".35625") == "point three five six two five"
    assert leak_corpus.decimal_words("-4.5") == "negative four point five"


def test_answer_types_of_math500(math500):
    by_answer = {row["answer"]: leak_corpus.answer_type(row["answer"], row["problem"]) for row in math500}
    assert by_answer["x \\in [-2,7]"] == "interval"
    assert by_answer["(2,4)"] == "ordered pair"  # "the resulting point", not an interval
    assert by_answer["(-\\sqrt{3}, \\sqrt{3})"] == "interval"  # "Express your answer in interval notation"
    assert by_answer["10,\\!080"] == "large integer"
    assert by_answer["\\dfrac{17}{50}"] == "fraction"
    assert by_answer["6 - 5i"] == "complex number"
    assert by_answer["2516_8"] == "base-n number"
    assert by_answer["\\text{(C)}"] == "multiple choice"
    assert by_answer["1 \\pm \\sqrt{19}"] == "set/list"
    assert by_answer["1\\frac{4}{5}"] == "mixed number"
    counts = leak_corpus.type_counts(math500)
    assert sum(counts.values()) == 500 and counts["other"] == 0


def plain_value(text: str):
    """A plain-text rendering ("2sqrt(5)", "14/3", "3pi/4", "4 2/3") read by sympy's own parser."""
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    mixed = re.fullmatch(r"(-?)(\d+) (\d+)/(\d+)", text)
    if mixed:
        sign, whole, p, q = mixed.groups()
        return (-1 if sign else 1) * (int(whole) + sympy.Rational(int(p), int(q)))
    text = re.sub(r"√(\d+)", r"sqrt(\1)", text).replace("√", "sqrt")
    text = text.replace("−", "-").replace("π", "pi").replace(",", "")
    transformations = (*standard_transformations, implicit_multiplication_application, convert_xor)
    return parse_expr(text, local_dict={"pi": sympy.pi}, transformations=transformations)


NUMERIC = ("small integer", "negative integer", "large integer", "fraction", "decimal", "radical", "multiple of pi")
PLAIN_STYLES = ("digits", "plain", "plain star", "slash", "unreduced", "decimal", "mixed", "unsimplified unicode")
PLAIN_STYLES += ("unicode", "unicode minus", "fraction", "leading zero", "thousands comma", "improper", "pi times")


def test_plain_renderings_have_the_answers_value(math500):
    checked = 0
    for row in math500:
        kind = leak_corpus.answer_type(row["answer"], row["problem"])
        if kind not in NUMERIC:
            continue
        value = leak_corpus.value_of(row["answer"])
        for rendering in leak_corpus.renderings(row["answer"], kind, row["problem"]):
            if rendering["style"] in PLAIN_STYLES and not re.search(r"[⁄½⅓⅔¼¾⅕⅘⅛]", rendering["text"]):
                assert sympy.simplify(plain_value(rendering["text"]) - value) == 0, (row["answer"], rendering)
                checked += 1
    assert checked == 618  # every plain rendering of the 405 numeric answers


def test_approximations_and_arithmetic_have_the_answers_value(math500):
    for row in math500:
        kind = leak_corpus.answer_type(row["answer"], row["problem"])
        for approximation in leak_corpus.approximations(row["answer"], kind):
            number = float(re.search(r"-?\d+\.?\d*", approximation["text"]).group(0))
            digits = len(re.sub(r"^-?0?\.?0*", "", re.search(r"-?\d+\.?\d*", approximation["text"]).group(0)))
            value = float(leak_corpus.value_of(re.sub(r"\\text\{.*\}", "", row["answer"])))
            assert digits >= 3 and math.isclose(number, value, rel_tol=1e-2), (row["answer"], approximation)
        for statement in leak_corpus.arithmetic_statements(row["answer"], kind):
            symbolic = statement["text"].replace("×", "*")
            if re.fullmatch(r"[-\d/*+ ]+", symbolic):
                value = Fraction(sympy.nsimplify(leak_corpus.value_of(row["answer"].replace("^\\circ", ""))))
                assert Fraction(sympy.nsimplify(sympy.sympify(symbolic))) == value, (row["answer"], statement)
            elif statement["style"] == "sum equation":
                left, right = statement["text"].split("=")
                assert sympy.sympify(left) == sympy.sympify(right)


def test_wrong_values_are_never_the_answer(math500):
    for row in math500:
        kind = leak_corpus.answer_type(row["answer"], row["problem"])
        reference = leak_corpus.value_of(row["answer"])
        for how, wrong in leak_corpus.wrong_values(row["answer"], kind, random.Random(0)):
            assert wrong.replace(" ", "") != row["answer"].replace(" ", ""), (row["answer"], how)
            value = leak_corpus.value_of(wrong)
            if reference is not None and value is not None:
                assert sympy.simplify(reference - value) != 0, (row["answer"], how, wrong)


def test_corpus_is_deterministic_and_split_in_halves(math500):
    first, second = leak_corpus.corpus(math500[:20]), leak_corpus.corpus(math500[:20])
    assert first == second
    frames = leak_corpus.frame_splits()
    assert sum(split == "development" for split in frames.values()) == (len(frames) + 1) // 2
    assert {case["split"] for case in first} == {"development", "held_out"}
    for case in first:
        if case["leak"]:
            assert frames[case["frame"]] == case["split"]  # a leak's frame and style are in its split
            assert all(part in case["text"] for part in case["parts"])
        else:
            assert case["wrong"] is None or case["wrong"] in case["text"]


def test_stated_counts_what_is_left_of_the_value():
    case = {"parts": ["15", "-29"], "context": "You wrote 15 apples. The answer is ."}
    assert leak_corpus.stated(case, "You wrote 15 apples. The answer is x = 15 and y = [redacted].")
    assert not leak_corpus.stated(case, "You wrote 15 apples. The answer is x = [redacted] and y = [redacted].")
    assert not leak_corpus.stated(case, "You wrote 15 apples. The answer is x = 150 and y = -290.")
