"""Answer verifiers per answer type, as TRL reward functions, and their agreement on the shared benchmark files."""

import pytest

from trl_mulferl import accuracy_reward
from trl_mulferl.evaluation.benchmarks import load_benchmark
from trl_mulferl.evaluation.verifiers import (
    answer_reward,
    choice_reward,
    make_reward,
    math_reward,
    response_answer,
    verify_answer,
)


def compliant(answer: str) -> str:
    return f"<thinking><feedback></feedback>Some reasoning.</thinking> The final answer is \\boxed{{{answer}}}"


@pytest.mark.parametrize(
    ("answer", "solution", "answer_type", "verdict"),
    [
        ("0.5", "\\frac{1}{2}", "math", True),
        ("\\frac12", "\\frac{1}{2}", "math", True),
        ("x", "\\frac{1}{2}", "math", False),
        ("B", "B", "choice", True),
        ("(b)", "B", "choice", True),
        ("B. 42 m/s", "B", "choice", True),
        ("\\text{B}", "B", "choice", True),
        ("Because", "B", "choice", False),
        ("C", "B", "choice", False),
        ("11760", "11760", "number", True),
        ("11760.4", "11760", "number", True),  # an integer reference: the prediction is rounded
        ("11761", "11760", "number", False),
        ("1.47", "1.42", "number", True),  # a decimal reference: 4% relative tolerance
        ("1.48", "1.42", "number", False),
        ("\\frac{1}{3}", "0.333", "number", True),
        ("3.2 \\times 10^{-3}", "0.0032", "number", True),
        ("12\\%", "12", "number", True),
        ("5 \\text{ m}", "5", "number", True),
        ("1,024", "1024", "number", True),
        ("True", "True", "bool", True),
        ("\\text{yes}", "True", "bool", True),
        ("False", "True", "bool", False),
        ("[5, 0]", "[0, 5]", "list", True),  # sorted before comparing, as TheoremQA's script does
        ("(0.33, 1)", "[0.333, 1.0]", "list", True),
        ("[0, 5, 1]", "[0, 5]", "list", False),
        ("(a)", "(a)", "option", True),
        ("a", "(a)", "option", True),
        ("(b)", "(a)", "option", False),
        (None, "(a)", "option", False),
        ("A", "not a letter", "choice", None),  # an unreadable reference: unscorable
        ("1", "several words", "number", None),
    ],
)
def test_verify_answer(answer, solution, answer_type, verdict):
    assert verify_answer(answer, solution, answer_type) is verdict


def test_unknown_answer_type():
    with pytest.raises(ValueError, match="Unknown answer_type 'essay'"):
        verify_answer("x", "y", "essay")


def test_schema_check_on_and_off():
    plain = "So the result is \\boxed{4}."
    assert response_answer(compliant("4")) == "4" and response_answer(plain) is None
    assert response_answer(plain, require_schema=False) == "4"
    assert math_reward([compliant("4"), plain], ["4", "4"]) == [1.0, 0.0]
    no_schema = make_reward("math", require_schema=False)
    assert no_schema([compliant("4"), plain], ["4", "4"]) == [1.0, 1.0]
    assert no_schema.__name__ == "math_reward_no_schema"


def test_rewards_take_trl_inputs():
    """Conversational completions, extra columns and trainer keywords, as GRPOTrainer passes them."""
    completions = [[{"role": "assistant", "content": compliant(a)}] for a in ["B", "C", "7", "True"]]
    kwargs = {"prompts": [[]] * 4, "completion_ids": [[]] * 4, "trainer_state": None, "log_extra": None}
    types = ["choice", "choice", "math", "bool"]
    assert answer_reward(completions, ["B", "B", "7", "True"], answer_type=types, **kwargs) == [1.0, 0.0, 1.0, 1.0]
    assert choice_reward(completions[:2], ["B", "B"], **kwargs) == [1.0, 0.0]
    assert answer_reward(completions[2:3], ["7"], **kwargs) == [1.0]  # no answer_type column: math
    assert choice_reward(completions[:1], ["?"]) == [None]


# Minerva's symbolic answers make math-verify slow (about 30 s on 2 cores): a slow test.
SHARED_FILES = ["math500", "aime24", "amc23", pytest.param("minerva_math", marks=pytest.mark.slow), "gsm8k"]


@pytest.mark.parametrize("name", SHARED_FILES)
def test_agreement_on_shared_files(shared_data, name):
    """A compliant response boxing a problem's reference is accepted; one boxing the next problem's reference, when
    the two references differ, is rejected. The rates are in docs/evaluation.md."""
    rows = list(load_benchmark(name, str(shared_data / name / "test.jsonl")))
    solutions = [row["solution"] for row in rows]
    accepted = [verify_answer(response_answer(compliant(s)), s) for s in solutions]
    accept_rate = sum(v is True for v in accepted) / len(rows)
    pairs = [(solutions[(i + 1) % len(rows)], s) for i, s in enumerate(solutions)]
    pairs = [(other, own) for other, own in pairs if other.replace(" ", "") != own.replace(" ", "")]
    false_accept_rate = sum(verify_answer(response_answer(compliant(o)), s) is True for o, s in pairs) / len(pairs)
    print(
        f"{name}: {len(rows)} problems, accepted {accept_rate:.4f}, other reference accepted {false_accept_rate:.4f}"
    )
    assert accept_rate >= 0.98
    assert false_accept_rate <= 0.02
    # The math verifier agrees with the training reward.
    assert accuracy_reward([compliant(s) for s in solutions[:50]], solutions[:50]) == [
        None if v is None else float(v) for v in accepted[:50]
    ]
