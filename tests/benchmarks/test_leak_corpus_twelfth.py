import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
import sympy


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from leak_corpus import ANSWER_TYPES, answer_type, load_problems, occurrences, stated  # noqa: E402
from leak_corpus_twelfth import (  # noqa: E402
    MEDIUM,
    REGISTERS,
    SEED,
    corpus,
    decode,
    holds_answer,
    numbers,
    parse,
    render,
    value,
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


def _row(problems, case):
    return problems[case["index"]]


def test_seed_is_zero():
    assert SEED == 0


def test_every_case_has_the_schema(cases, problems):
    for case in cases:
        assert set(case) == KEYS
        assert case["family"] in ("rendering", "approximation", "clean")
        assert case["split"] == "held_out"
        row = _row(problems, case)
        assert case["answer_type"] == answer_type(row["answer"], row["problem"])
        assert case["leak"] == (case["family"] != "clean")
        assert case["written_out"] == (case["family"] == "rendering")
        register, _, template = case["frame"].partition(":")
        assert register and template
        assert case["style"].split("/")[0].removeprefix("decimal-") in MEDIUM


def test_deterministic(problems):
    assert corpus(problems[:40]) == corpus(problems[:40])
    assert corpus(problems[:40], seed=1) != corpus(problems[:40])


def test_counts_per_family_are_sane(cases, problems):
    families = Counter(case["family"] for case in cases)
    assert 6000 <= len(cases) <= 8500
    assert 3000 <= families["rendering"] <= 4200
    assert 100 <= families["approximation"] <= 500
    assert 0.85 <= families["clean"] / families["rendering"] <= 1.0
    assert {case["index"] for case in cases if case["family"] == "rendering"} == set(range(len(problems)))
    per_problem = Counter(case["index"] for case in cases if case["family"] == "rendering")
    assert min(per_problem.values()) >= 5
    assert len({case["frame"].split(":")[0] for case in cases}) >= 10
    assert len({case["style"].split("/")[0] for case in cases if case["family"] == "rendering"}) >= 40
    assert sum("/" in case["style"] for case in cases) >= 250


def test_every_answer_type_is_covered(cases, problems):
    present = {answer_type(row["answer"], row["problem"]) for row in problems}
    assert present <= set(ANSWER_TYPES) and len(present) >= 19
    for family in ("rendering", "clean"):
        assert {case["answer_type"] for case in cases if case["family"] == family} == present


def test_every_leak_states_its_parts_and_its_context_does_not(cases):
    for case in (c for c in cases if c["leak"]):
        assert case["parts"] and all(part in case["text"] for part in case["parts"])
        assert all(occurrences(part, case["text"]) >= 1 for part in case["parts"])
        assert stated(case, case["text"])
        assert not stated(case, case["context"])
        assert "\\ldots" in case["context"]


def test_every_leak_holds_the_answer_and_its_context_does_not(cases, problems):
    for case in (c for c in cases if c["leak"]):
        answer = _row(problems, case)["answer"]
        assert holds_answer(case["text"], answer, case["answer_type"]), case["text"]
        assert not holds_answer(case["context"], answer, case["answer_type"]), case["context"]


def test_clean_texts_hold_no_rendering_of_the_answer(cases, problems):
    for case in (c for c in cases if not c["leak"]):
        answer = _row(problems, case)["answer"]
        assert case["parts"] == [] and case["context"] == case["text"]
        assert not holds_answer(case["text"], answer, case["answer_type"]), case["text"]


def test_every_wrong_is_quoted_and_differs_from_the_answer(cases, problems):
    for case in cases:
        assert case["wrong"] and case["wrong"] in case["text"] and case["wrong_how"]
        answer = _row(problems, case)["answer"]
        assert not holds_answer(case["wrong"], answer, case["answer_type"])


def test_approximations_have_four_to_seven_significant_digits(cases, problems):
    approximations = [c for c in cases if c["family"] == "approximation"]
    assert approximations
    for case in approximations:
        row = _row(problems, case)
        exact = value(row["answer"], case["answer_type"])
        spaced = decode(case["parts"][0]).strip()
        digits = "".join(ch for ch in spaced if ch.isdigit()).lstrip("0")
        assert 4 <= len(digits) <= 7, spaced
        approx = float(spaced.replace(" ", ""))
        assert abs(approx - float(exact)) <= 10 ** (-len(spaced.split(".")[1])), (spaced, exact)


# Hand-computed spot checks: each rendering is written out by hand, decoded, and compared with the answer's value.
SPOT = [
    ("\\frac{14}{3}", "html", "<sup>14</sup>&frasl;<sub>3</sub>", Fraction(14, 3)),
    ("\\frac{14}{3}", "python-fraction", "Fraction(14, 3)", Fraction(14, 3)),
    ("\\frac{14}{3}", "plain-mixed", "4 2/3", Fraction(14, 3)),
    ("\\frac 34", "unicode-vulgar", "¾", Fraction(3, 4)),
    ("\\frac 34", "html-frac-entity", "&frac34;", Fraction(3, 4)),
    ("\\frac 34", "plain-exact-decimal", "0.75", Fraction(3, 4)),
    ("\\frac{1}{3}", "unicode-overline-repeating", "0.3\u0305", Fraction(1, 3)),
    ("\\frac{1}{3}", "plain-repeating", "0.(3)", Fraction(1, 3)),
    ("-50", "unicode-bold", "−𝟓𝟎", Fraction(-50)),
    ("-50", "html-strong-decimal-entities", "&#8722;50", Fraction(-50)),
    ("-50", "fullwidth", "−５０", Fraction(-50)),
    ("10,\\!080", "unicode-digit-groups", "10\u202f080", Fraction(10080)),
    ("10,\\!080", "html-digit-groups", "10&thinsp;080", Fraction(10080)),
    ("1\\frac{4}{5}", "unicode-vulgar", "1⅘", Fraction(9, 5)),
    ("1\\frac{4}{5}", "plain-improper-fraction", "9/5", Fraction(9, 5)),
    (".0000672", "unicode-scientific", "6.72×10⁻⁵", Fraction(672, 10**7)),
    (".0000672", "plain-scientific-e", "6.72E-05", Fraction(672, 10**7)),
    ("\\$18.90", "spreadsheet-value", "$18.90", Fraction(189, 10)),
    ("90^\\circ", "html", "90&deg;", Fraction(90)),
]


@pytest.mark.parametrize("answer,style,expected,exact", SPOT)
def test_spot_renderings_decode_to_the_answer(answer, style, expected, exact):
    kind = answer_type(answer)
    assert render(style, parse(answer, kind), kind) == expected
    assert exact in numbers(_spaced(expected))
    assert value(answer, kind) == sympy.Rational(exact.numerator, exact.denominator)
    assert holds_answer(f"the result is {expected} here", answer, kind)


def _spaced(text):
    from leak_corpus_twelfth import _spaced as spaced

    return spaced(text)


SYMBOLIC = [
    ("3\\sqrt{13}", "unicode", "3√13", "3*sqrt(13)"),
    ("3\\sqrt{13}", "plain-power-half", "3*13^(1/2)", "3*sqrt(13)"),
    ("3\\sqrt{13}", "spreadsheet-formula", "=3*SQRT(13)", "3*sqrt(13)"),
    ("\\frac{3\\sqrt{3}}{4}", "unicode", "3√3⁄4", "3*sqrt(3)/4"),
    ("-\\frac{\\pi}{6}", "spreadsheet-formula", "=-PI()/6", "-pi/6"),
    ("288 \\pi", "html", "288&pi;", "288*pi"),
    ("6 - 5i", "python-complex", "complex(6, -5)", "6 - 5*I"),
    ("6 - 5i", "spreadsheet-formula", "=COMPLEX(6,-5)", "6 - 5*I"),
    ("52_8", "python-octal-literal", "0o52", "42"),
    ("52_8", "unicode", "52₈", "42"),
]


@pytest.mark.parametrize("answer,style,expected,exact", SYMBOLIC)
def test_symbolic_renderings(answer, style, expected, exact):
    kind = answer_type(answer)
    assert render(style, parse(answer, kind), kind) == expected
    assert sympy.simplify(value(answer, kind) - sympy.sympify(exact)) == 0
    assert holds_answer(f"so we get {expected}.", answer, kind)
    if style == "python-octal-literal":
        assert int(expected, 8) == 42


STRUCTURED = [
    ("(3,4]", "plain-inequality", "3 < x <= 4"),
    ("(3,4]", "sympy-interval", "Interval.Lopen(3, 4)"),
    ("(-\\infty, 0]", "unicode", "(−∞, 0]"),
    ("(0,9) \\cup (9,36)", "asciimath", "(0, 9) uu (9, 36)"),
    ("\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "json-number", "[[-1, 0], [0, -1]]"),
    ("\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "spreadsheet-formula", "={-1,0;0,-1}"),
    ("\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}", "unicode", "⟨−2, −14, −7⟩"),
    ("\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}", "mathml", None),
    ("y = 2x + 3", "sympy-eq", "Eq(y, 2*x + 3)"),
    ("\\text{(C)}", "unicode-circled-letter", "Ⓒ"),
    ("\\text{east}", "unicode-bold", "𝐞𝐚𝐬𝐭"),
    ("x^3+3x-6", "unicode", "x³ + 3x − 6"),
    ("\\frac{3}{4}", "asciimath", "frac(3)(4)"),
]


@pytest.mark.parametrize("answer,style,expected", STRUCTURED)
def test_structured_renderings(answer, style, expected):
    kind = answer_type(answer, "the interval of values" if "(" in answer else "")
    rendered = render(style, parse(answer, kind), kind)
    if expected is not None:
        assert rendered == expected
    assert holds_answer(f"answer: {rendered} ok", answer, kind)


def test_mutations_are_not_held():
    kind = answer_type("(3,4]")
    assert not holds_answer("answer: [3, 4] ok", "(3,4]", kind)
    assert not holds_answer("answer: 3 ≤ x ≤ 4", "(3,4]", kind)
    assert not holds_answer("you wrote ¾ but", "\\frac{4}{3}", "fraction")
    assert not holds_answer("you wrote 𝟐𝟎𝟓 from 13", "204", "large integer")
    assert holds_answer("you wrote 𝟐\u200b𝟎𝟒 from 13", "204", "large integer")
    assert holds_answer("≈ 1.732", "\\sqrt{3}", "radical")
    assert not holds_answer("≈ 1.7", "\\sqrt{3}", "radical")
    assert not holds_answer("{1, 3}", "1,-2", "set/list")
    assert holds_answer("{−2, 1}", "1,-2", "set/list")


def test_registers():
    assert len(REGISTERS) >= 10
    for media, templates in REGISTERS.values():
        for leak, clean in templates.values():
            assert "{v}" in leak and "{w}" in leak and "{q}" in leak
            assert "{v}" not in clean and "{w}" in clean and "{q}" in clean
            assert not any(ch.isdigit() for ch in leak + clean)
