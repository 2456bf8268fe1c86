"""`check_provider_at_start`: the one start-up check of a feedback provider that both MulFeRL trainers call."""

from dataclasses import dataclass

import pytest

from trl_mulferl.feedback.checks import check_provider_at_start


@dataclass
class Args:
    """The fields the check reads of a config (it reads `feedback_group_size`'s default from the class)."""

    max_feedback_turns: int = 1
    feedback_group_size: int = 2
    feedback_input_token_price: float = 0.0
    feedback_output_token_price: float = 0.0


class ReachableProvider:
    def __init__(self, calls: list):
        self.calls = calls

    def __call__(self, prompt, completions, rewards, **columns):
        return "Issue: x. Fix steps: 1. y."

    def check_connection(self):
        self.calls.append("connection")


def test_no_feedback_turns_check_nothing():
    check_provider_at_start(None, None, Args(max_feedback_turns=0), "MulFeRLTrainer", "plain GRPO")


@pytest.mark.parametrize(
    ("trainer", "without"), [("MulFeRLTrainer", "plain GRPO"), ("AsyncMulFeRLTrainer", "AsyncGRPO")]
)
def test_a_missing_provider_names_the_trainer_and_what_it_is_without_feedback(trainer, without):
    with pytest.raises(ValueError) as error:
        check_provider_at_start(None, None, Args(max_feedback_turns=2), trainer, without)
    assert str(error.value) == (
        f"{trainer} needs a `feedback_provider` when max_feedback_turns > 0 (got 2). Pass feedback_provider=..., or set "
        f"max_feedback_turns=0 for {without}."
    )


def test_the_trainers_checks_run_before_the_connection_is_checked():
    args, calls = Args(), []
    provider = ReachableProvider(calls)
    check_provider_at_start(provider, None, args, "MulFeRLTrainer", "plain GRPO", [lambda p: calls.append(("own", p))])
    assert calls == [("own", provider), "connection"]

    def refuse(provider):
        raise TypeError("not this one")

    calls.clear()
    with pytest.raises(TypeError, match="not this one"):
        check_provider_at_start(provider, None, args, "MulFeRLTrainer", "plain GRPO", [refuse])
    assert calls == []  # an endpoint is not reached for a provider the trainer refuses
