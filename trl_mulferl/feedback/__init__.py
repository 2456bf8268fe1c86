"""Feedback for MulFeRL: the provider protocol and its runner, the answer-leak guard, and the built-in providers.

- `protocol`: `FeedbackRequest`, `FeedbackResult`, `request_feedback`, `collect_feedback` (read its docstring for
  the protocol a provider follows).
- `guard`: `redact_answer_leak`, the answer-leak guard (a subpackage, one module per part of the rule).
- `prepare`: `prepare_feedback`, the whole path from a provider's text to the injected one.
- `openai`, `self_feedback`, `checker`: [`OpenAIFeedbackProvider`], [`SelfFeedbackProvider`],
  [`ColumnFeedbackProvider`] and [`CheckerFeedbackProvider`]; `build`: the provider the config selects.
- `totals`: the run's counts (feedback bill, groups per turn and route), saved in checkpoints, for the summary.
"""

from .build import build_feedback_provider
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
    feedback_cost,
    is_batched,
    problem_text,
    request_feedback,
)
from .self_feedback import SelfFeedbackProvider
from .totals import FeedbackTotals, feedback_totals


__all__ = [
    "MERGE_PROMPT",
    "REDACTED",
    "REVIEWER_PROMPT",
    "CheckerFeedbackProvider",
    "ColumnFeedbackProvider",
    "FeedbackError",
    "FeedbackRequest",
    "FeedbackResult",
    "FeedbackTotals",
    "OpenAIFeedbackProvider",
    "PreparedFeedback",
    "RateLimiter",
    "SelfFeedbackProvider",
    "aggregate_diagnostics",
    "build_feedback_provider",
    "collect_feedback",
    "extract_feedback",
    "feedback_cost",
    "feedback_totals",
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
