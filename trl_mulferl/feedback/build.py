"""The one place the config turns into a feedback provider."""

from collections.abc import Callable

from .checker import CheckerFeedbackProvider, ColumnFeedbackProvider, load_checker
from .openai import OpenAIFeedbackProvider
from .self_feedback import SelfFeedbackProvider


def build_feedback_provider(args) -> Callable | None:
    """The built-in provider that `args.feedback_provider` selects, set up from the `feedback_*` fields of `args` (a
    [`MulFeRLConfig`]); `None` for `None` and `"none"`."""
    if args.feedback_provider == "openai":
        return OpenAIFeedbackProvider(
            model=args.feedback_model,
            base_url=args.feedback_base_url,
            api_key_env=args.feedback_api_key_env,
            max_tokens=args.max_feedback_length,
            temperature=args.feedback_temperature,
            group_size=args.feedback_group_size,
            max_concurrency=args.feedback_max_concurrency,
            timeout=args.feedback_timeout,
            max_retries=args.feedback_max_retries,
            reasoning_model=args.feedback_reasoning_model,
            seed=args.seed,
            requests_per_minute=args.feedback_requests_per_minute,
            tokens_per_minute=args.feedback_tokens_per_minute,
        )
    if args.feedback_provider == "self":
        return SelfFeedbackProvider(
            max_new_tokens=args.max_feedback_length,
            temperature=args.feedback_temperature,
            group_size=args.feedback_group_size,
        )
    if args.feedback_provider == "column":
        return ColumnFeedbackProvider(args.feedback_column)
    if args.feedback_provider == "checker":
        return CheckerFeedbackProvider(
            load_checker(args.feedback_checker),
            max_reports=args.feedback_checker_max_reports,
            max_chars=args.feedback_checker_max_chars,
        )
    return None
