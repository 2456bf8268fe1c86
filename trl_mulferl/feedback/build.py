"""The built-in feedback providers, by the name `feedback_provider` selects (`FEEDBACK_PROVIDERS`), and the one place
the config turns into one (`build_feedback_provider`).

A built-in provider is a module that holds it and one entry here: how the feedback arguments build it, and what they
must hold for it (checked by both configs).
"""

from collections.abc import Callable
from dataclasses import dataclass

from .checker import CheckerFeedbackProvider, ColumnFeedbackProvider
from .openai import OpenAIFeedbackProvider
from .self_feedback import SelfFeedbackProvider


def no_check(args):
    """A provider that reads no field beyond the feedback arguments' own checks."""


@dataclass(frozen=True)
class BuiltinProvider:
    """
    A built-in feedback provider, as `FEEDBACK_PROVIDERS` registers it.

    Args:
        build: The provider from the feedback arguments (a config's `FeedbackArguments` fields and `seed`), or None
            for no provider.
        check: Raises, naming the field and the fix, where the arguments cannot build it; run by both configs.
        unavailable_async: Why `AsyncMulFeRLTrainer`'s spawned rollout process cannot run it, with what to use instead;
            None where it can.
    """

    build: Callable
    check: Callable = no_check
    unavailable_async: str | None = None


def no_provider(args) -> None:
    return None


def check_no_feedback_turns(args):
    if args.max_feedback_turns > 0:
        raise ValueError(
            f"feedback_provider='none' gives no feedback, so there can be no feedback turns: set "
            f"max_feedback_turns=0 (got {args.max_feedback_turns}), the paper's no-regeneration ablation."
        )


FEEDBACK_PROVIDERS: dict[str, BuiltinProvider] = {
    "openai": BuiltinProvider(OpenAIFeedbackProvider.from_arguments, OpenAIFeedbackProvider.check_arguments),
    "self": BuiltinProvider(
        SelfFeedbackProvider.from_arguments,
        unavailable_async="the rollout process holds no copy of the policy. Serve the starting model (vllm serve) and "
        "use feedback_provider='openai'.",
    ),
    "column": BuiltinProvider(ColumnFeedbackProvider.from_arguments),
    "checker": BuiltinProvider(CheckerFeedbackProvider.from_arguments, CheckerFeedbackProvider.check_arguments),
    "none": BuiltinProvider(no_provider, check_no_feedback_turns),
}


def build_feedback_provider(args) -> Callable | None:
    """The built-in provider that `args.feedback_provider` selects (`FEEDBACK_PROVIDERS`), set up from the feedback
    arguments of `args` (a [`MulFeRLConfig`] or [`AsyncMulFeRLConfig`], or the rollout process's copy of their
    fields); `None` for `None` and `"none"`."""
    if args.feedback_provider is None:
        return None
    return FEEDBACK_PROVIDERS[args.feedback_provider].build(args)
