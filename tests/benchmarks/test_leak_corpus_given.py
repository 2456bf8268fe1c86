"""`benchmarks/leak_corpus_given.py`: its number reader against hand-computed values, its selector against MATH-500
rows read by hand, and the corpus's labels: clean texts quote the answer's number with no result phrasing, leaks
state it and pass the occurrences rule."""

import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import leak_corpus_given  # noqa: E402
from leak_corpus import occurrences  # noqa: E402


@pytest.fixture(scope="module")
def math500(shared_data):
    return leak_corpus_given.load_problems(shared_data / "math500" / "test.jsonl")


@pytest.fixture(scope="module")
def cases(math500):
    return leak_corpus_given.corpus(math500)


def by_id(problems: list[dict]) -> dict[str, int]:
    return {row["unique_id"]: index for index, row in enumerate(problems)}


def as_float(value) -> float:
    coefficient, radicand, pi = value
    return float(coefficient) * math.sqrt(radicand) * math.pi**pi


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("7", 7.0),
        ("-3", -3.0),
        ("0.15", 0.15),
        (".35625", 57 / 160),
        ("\\frac{3}{20}", 0.15),
        ("\\frac9{19}", 9 / 19),
        ("\\frac{270}7\\text{ degrees}", 270 / 7),
        ("11\\sqrt2", 11 * math.sqrt(2)),
        ("\\sqrt{242}", 11 * math.sqrt(2)),
        ("\\frac{\\sqrt{3}}{3}", math.sqrt(3) / 3),
        ("\\frac{3}{\\sqrt{27}}", 3 / math.sqrt(27)),
        ("2\\pi", 2 * math.pi),
        ("90^\\circ", 90.0),
        ("\\$1,000", 1000.0),
        ("864 \\mbox{ inches}^2", 864.0),
    ],
)
def test_answer_value_is_the_number_written(answer, expected):
    assert as_float(leak_corpus_given.answer_value(answer)) == pytest.approx(expected, rel=1e-12)


def test_equal_values_are_equal_keys():
    """Exact comparison: the same number in two spellings is one key, close numbers are not."""
    value = leak_corpus_given.answer_value
    assert value("11\\sqrt2") == value("\\sqrt{242}")
    assert value("\\frac{\\sqrt{3}}{3}") == value("\\frac{3}{\\sqrt{27}}")
    assert value("4.5") == value("\\frac{9}{2}") == (Fraction(9, 2), 1, 0)
    assert value("0.333") != value("\\frac{1}{3}")


@pytest.mark.parametrize("answer", ["x+1", "(1,2)", "6 - 5i", "\\text{east}", "52_8", "1 \\pm \\sqrt{19}"])
def test_answer_value_rejects_what_is_not_one_number(answer):
    assert leak_corpus_given.answer_value(answer) is None


def test_given_numbers_skip_powers_indices_and_cube_root_indices():
    surfaces = [given[2] for given in leak_corpus_given.given_numbers("$x^{12} + a_3 + \\sqrt[3]{5} = 7$, two")]
    assert surfaces == ["5", "7", "two"]


def test_selector_on_rows_read_by_hand(math500):
    """Read by hand: "a group of 6 students" (answer 6); "$\\sqrt{53}$ in simplest radical form" (answer
    \\sqrt{53}); "Write $\\frac{3}{20}$ as a decimal" (answer 0.15); "three squigs" (answer 3). Not selected:
    "$-4 < 2(x - 1) < 8$" (answer 4: only -4 stands there) and "$3^{2x} + 19 = 10^x$" (answer 2: only an exponent)."""
    index = by_id(math500)
    chosen = {math500[i]["unique_id"] for i in leak_corpus_given.selected(math500)}
    assert {
        "test/counting_and_probability/190.json",
        "test/prealgebra/1834.json",
        "test/prealgebra/572.json",
        "test/algebra/1035.json",
    } <= chosen
    assert not {"test/algebra/2214.json", "test/intermediate_algebra/2046.json"} & chosen
    surfaces = {
        uid: leak_corpus_given.given_answer(math500[index[uid]])[2]
        for uid in ("test/counting_and_probability/190.json", "test/prealgebra/572.json", "test/algebra/1035.json")
    }
    assert surfaces == {
        "test/counting_and_probability/190.json": "6",
        "test/prealgebra/572.json": "\\frac{3}{20}",
        "test/algebra/1035.json": "three",
    }
    assert len(chosen) == 44


def test_quotes_hold_the_number(math500):
    for index in leak_corpus_given.selected(math500):
        problem = math500[index]["problem"]
        start, end, surface, _ = leak_corpus_given.given_answer(math500[index])
        assert surface in leak_corpus_given.lead_in(problem, start, end)
        assert " ".join(surface.split()) in leak_corpus_given.sentence_around(problem, start, end)


def test_every_row_has_eight_clean_and_eight_leaks(math500, cases):
    for index in leak_corpus_given.selected(math500):
        row_cases = [case for case in cases if case["index"] == index]
        assert sum(case["leak"] for case in row_cases) >= 8
        assert sum(not case["leak"] for case in row_cases) >= 8


def test_clean_texts_quote_the_answer_number_and_no_result_phrasing(math500, cases):
    clean = [case for case in cases if not case["leak"]]
    assert clean
    for case in clean:
        row = math500[case["index"]]
        surface = leak_corpus_given.given_answer(row)[2]
        assert occurrences(surface, case["text"]) >= 1, case["text"]
        if surface == row["answer"]:
            assert occurrences(row["answer"], case["text"]) >= 1
        lowered = case["text"].lower()
        assert not [phrase for phrase in leak_corpus_given.RESULT_PHRASES if phrase in lowered], case["text"]
        assert case["wrong"] is None or leak_corpus_given.answer_value(
            case["wrong"]
        ) != leak_corpus_given.answer_value(row["answer"])


def test_leaks_pass_the_occurrences_rule_and_use_a_result_phrase(cases):
    leaks = [case for case in cases if case["leak"]]
    assert leaks
    for case in leaks:
        assert case["parts"]
        assert all(occurrences(part, case["text"]) > occurrences(part, case["context"]) for part in case["parts"])
        lowered = case["text"].lower()
        assert [phrase for phrase in leak_corpus_given.RESULT_PHRASES if phrase in lowered], case["text"]


def test_leak_parts_are_the_answer_value(math500, cases):
    for case in cases:
        if case["leak"]:
            assert leak_corpus_given.answer_value(case["parts"][0]) == leak_corpus_given.answer_value(
                math500[case["index"]]["answer"]
            )


def test_deterministic_and_seeded(math500, cases):
    assert leak_corpus_given.corpus(math500) == cases
    assert leak_corpus_given.corpus(math500, seed=1) != cases


def test_schema(cases):
    common = {"family", "split", "index", "answer_type", "style", "frame", "text", "leak", "written_out", "parts"}
    for case in cases:
        assert case["split"] == "held_out"
        if case["leak"]:
            assert set(case) == common | {"context"}
            assert case["family"] == "rendering" and case["written_out"] is True
        else:
            assert set(case) == common | {"context", "wrong", "wrong_how"}
            assert case["family"] == "clean" and case["written_out"] is False
            assert case["parts"] == [] and case["context"] == case["text"]
