"""`feedback_leak_guard`: the answer-leak guard without (`"strict"`, the default) or with (`"exempt_given"`) the
exemption of what the problem states, from `redact_answer_leak(strict=...)` through the configs and the feedback step
to the CLI."""

from collections import Counter

import pytest

from tests.helpers.trainer import CPU
from trl_mulferl import AsyncMulFeRLConfig, MulFeRLConfig
from trl_mulferl.async_mulferl.async_rollout_worker import FeedbackSettings
from trl_mulferl.feedback import FeedbackRequest, FeedbackResult, prepare_feedback, redact_answer_leak
from trl_mulferl.feedback.step import FeedbackStep, FeedbackStepSettings


# The answer, 6, is a number the problem states.
SHELVES = "A box holds 6 red and 4 blue marbles. How many red marbles are in the box?"
GIVEN_QUOTE = "Start from the 6 red marbles the problem gives."
OPTIONS = "Which surface is flat? (A) Sphere (B) Cone (C) Plane (D) Torus"


def config(**kwargs) -> MulFeRLConfig:
    return MulFeRLConfig(output_dir="unused", report_to="none", **CPU, **kwargs)


def test_strict_by_default_redacts_a_quote_of_a_given_number_the_exemption_keeps():
    assert redact_answer_leak(GIVEN_QUOTE, "6", problem=SHELVES, strict=False) == (GIVEN_QUOTE, False)
    assert redact_answer_leak(GIVEN_QUOTE, "6", problem=SHELVES) == (
        "Start from the [redacted] red marbles the problem gives.",
        True,
    )
    # strict reads the problem as if there were none: the same text either way.
    assert redact_answer_leak(GIVEN_QUOTE, "6", problem=SHELVES) == redact_answer_leak(GIVEN_QUOTE, "6")


def test_both_redact_a_given_number_stated_as_the_result():
    for strict in (False, True):
        assert redact_answer_leak("The answer is 6.", "6", problem=SHELVES, strict=strict) == (
            "The answer is [redacted].",
            True,
        )


@pytest.mark.parametrize("strict", [False, True])
def test_strict_still_reads_a_multiple_choice_options_words(strict):
    # The option's words are only in the problem: without reading it the guard would miss "Plane".
    assert redact_answer_leak("The answer is Plane.", "\\text{(C)}", problem=OPTIONS, strict=strict) == (
        "The answer is [redacted].",
        True,
    )
    assert redact_answer_leak("The answer is Plane.", "\\text{(C)}") == ("The answer is Plane.", False)


@pytest.mark.parametrize("strict", [False, True])
def test_a_value_the_problem_does_not_state_is_redacted_either_way(strict):
    problem = "A shelf holds 4 books. How many books do 3 shelves hold?"
    assert redact_answer_leak("Count 12 books in all.", "12", problem=problem, strict=strict) == (
        "Count [redacted] books in all.",
        True,
    )


def test_prepare_feedback_passes_strict_to_the_guard():
    assert prepare_feedback(GIVEN_QUOTE, "6", None, 64, problem=SHELVES, strict=False).text == GIVEN_QUOTE
    prepared = prepare_feedback(GIVEN_QUOTE, "6", None, 64, problem=SHELVES)
    assert (prepared.text, prepared.leaked) == ("Start from the [redacted] red marbles the problem gives.", True)


def test_the_config_defaults_to_strict_and_refuses_an_unknown_guard():
    assert config().feedback_leak_guard == "strict"
    assert config(feedback_leak_guard="exempt_given").feedback_leak_guard == "exempt_given"
    with pytest.raises(
        ValueError, match=r"feedback_leak_guard must be one of \('strict', 'exempt_given'\), got 'lax'"
    ):
        config(feedback_leak_guard="lax")


@pytest.mark.parametrize(
    "guard, expected",
    [("exempt_given", GIVEN_QUOTE), ("strict", "Start from the [redacted] red marbles the problem gives.")],
)
def test_the_feedback_step_guards_as_the_config_says(guard, expected, tiny_tokenizer):
    settings = FeedbackStepSettings.of(config(feedback_leak_guard=guard))
    assert settings.feedback_leak_guard == guard
    step = FeedbackStep(settings, tiny_tokenizer, eos_token_ids=[tiny_tokenizer.eos_token_id])
    request = FeedbackRequest(prompt=SHELVES, completions=["18"], rewards=[0.0], columns={"solution": "6"})
    counts = Counter()
    assert step.prepare(None, [request], [FeedbackResult(GIVEN_QUOTE, 0.1)], counts) == [expected]
    assert counts["feedback/leaks_redacted"] == (guard == "strict")


def test_the_rollout_process_of_the_async_trainer_gets_the_setting(tmp_path):
    args = AsyncMulFeRLConfig(str(tmp_path), **CPU, num_generations=2, feedback_leak_guard="exempt_given")
    assert FeedbackSettings.of(args).feedback_leak_guard == "exempt_given"


def test_train_takes_the_flag(capsys):
    from trl_mulferl.train import main, make_parser

    cpu_run = ["--output_dir", "unused", "--use_cpu", "true", "--bf16", "false", "--report_to", "none"]
    parsed = make_parser().parse_args_and_config([*cpu_run, "--feedback_leak_guard", "exempt_given"])
    training_args = next(args for args in parsed if isinstance(args, MulFeRLConfig))
    assert training_args.feedback_leak_guard == "exempt_given"
    with pytest.raises(SystemExit) as exit_info:
        main([*cpu_run, "--feedback_leak_guard", "lax"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert (
        "argument --feedback_leak_guard" in error
        and "invalid choice: 'lax' (choose from 'strict', 'exempt_given')" in error
    )
