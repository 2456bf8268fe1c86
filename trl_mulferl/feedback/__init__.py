"""Feedback for MulFeRL: the provider protocol and its runner, the answer-leak guard, and the built-in providers.

- `protocol`: `FeedbackRequest`, `FeedbackResult`, `request_feedback`, `collect_feedback` (read its docstring for
  the protocol a provider follows).
- `guard`: `redact_answer_leak`, the answer-leak guard (a subpackage, one module per part of the rule).
- `prepare`: `prepare_feedback`, the whole path from a provider's text to the injected one.
- `openai`, `self_feedback`, `checker`: [`OpenAIFeedbackProvider`], [`SelfFeedbackProvider`],
  [`ColumnFeedbackProvider`] and [`CheckerFeedbackProvider`]; `build`: the registry of built-in providers
  (`FEEDBACK_PROVIDERS`) and the one the config selects.
- `arguments`: [`FeedbackArguments`], the feedback fields and checks both MulFeRL configs inherit.
- `step`: [`FeedbackStep`], Algorithm 1's per-group feedback step both MulFeRL trainers call, and its settings.
- `checks`: the start-up checks of a feedback provider both MulFeRL trainers run.
- `turn`: the rules of a feedback turn around `FeedbackStep` (which groups are asked, a regeneration's prompt ids,
  `feedback_replay`'s rows), which both trainers apply.
"""

from .arguments import FeedbackArguments
from .build import FEEDBACK_PROVIDERS, BuiltinProvider, build_feedback_provider
from .checker import CheckerFeedbackProvider, ColumnFeedbackProvider, aggregate_diagnostics, load_checker
from .guard import REDACTED, final_answer, redact_answer_leak
from .openai import (
    MERGE_PROMPT,
    REVIEWER_PROMPT,
    FeedbackError,
    OpenAIFeedbackProvider,
    RateLimiter,
    extract_feedback,
    merge_request,
    retry_delay,
    review_request,
    split_subgroups,
)
from .prepare import PreparedFeedback, prepare_feedback
from .protocol import (
    FeedbackRequest,
    FeedbackResult,
    collect_feedback,
    is_batched,
    problem_text,
    request_feedback,
)
from .self_feedback import SelfFeedbackProvider
from .step import FeedbackStep, FeedbackStepSettings


__all__ = [
    "FEEDBACK_PROVIDERS",
    "BuiltinProvider",
    "FeedbackArguments",
    "FeedbackStep",
    "FeedbackStepSettings",
    "MERGE_PROMPT",
    "REDACTED",
    "REVIEWER_PROMPT",
    "CheckerFeedbackProvider",
    "ColumnFeedbackProvider",
    "FeedbackError",
    "FeedbackRequest",
    "FeedbackResult",
    "OpenAIFeedbackProvider",
    "PreparedFeedback",
    "RateLimiter",
    "SelfFeedbackProvider",
    "aggregate_diagnostics",
    "build_feedback_provider",
    "collect_feedback",
    "extract_feedback",
    "feedback_cost",
    "final_answer",
    "is_batched",
    "load_checker",
    "merge_request",
    "prepare_feedback",
    "problem_text",
    "redact_answer_leak",
    "request_feedback",
    "retry_delay",
    "review_request",
    "split_subgroups",
]
