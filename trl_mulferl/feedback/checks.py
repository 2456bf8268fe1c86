"""The start-up checks of a feedback provider that both MulFeRL trainers run: present where there are feedback turns,
callable with the dataset's columns, priced where it may bill, and reachable."""

import inspect
import logging
from collections.abc import Callable, Iterable

from .openai import warn_if_unpriced
from .protocol import PROVIDER_KEYWORDS, is_batched, provider_name


logger = logging.getLogger(__name__)


def check_provider_at_start(
    provider,
    dataset,
    args,
    trainer_name: str,
    without_feedback: str,
    trainer_checks: Iterable[Callable] = (),
):
    """What a trainer checks of its feedback provider before training, where `args.max_feedback_turns > 0`: that it
    has one, the trainer's own checks (`trainer_checks`, each called with the provider), `check_feedback_provider`,
    then its connection (`check_connection`, where it has one), so that an unreachable endpoint fails here, not
    mid-run.

    Args:
        trainer_name: The trainer's class name, for the error.
        without_feedback: What the trainer is with `max_feedback_turns=0` ("plain GRPO"), for the error.
    """
    if args.max_feedback_turns == 0:
        return
    if provider is None:
        raise ValueError(
            f"{trainer_name} needs a `feedback_provider` when max_feedback_turns > 0 (got {args.max_feedback_turns}). "
            f"Pass feedback_provider=..., or set max_feedback_turns=0 for {without_feedback}."
        )
    for check in trainer_checks:
        check(provider)
    check_feedback_provider(provider, dataset, args)
    if hasattr(provider, "check_connection"):
        provider.check_connection()


def check_feedback_provider(provider, dataset, args):
    """The provider must be callable as `(prompt, completions, rewards, **columns)` with the dataset's columns (a
    batched provider has `feedback_batch` instead), and the dataset must hold the columns it declares it needs.

    `args.feedback_group_size` configures the built-in providers only (they have a `group_size`): a provider of your
    own sees the whole group, since splitting it would need a merge step that only the provider can define. Setting
    it for one is warned about, as is an OpenAI-compatible endpoint that may bill with no price set.
    """
    warn_if_unpriced(provider, args.feedback_input_token_price, args.feedback_output_token_price)
    columns = [c for c in getattr(dataset, "column_names", None) or [] if c not in ("prompt", "completion")]
    reserved = [c for c in columns if c in PROVIDER_KEYWORDS]
    if reserved:
        raise ValueError(
            f"The training dataset has a column {reserved[0]!r}, a name the trainer passes to feedback providers "
            f"({', '.join(PROVIDER_KEYWORDS)}). Rename the column."
        )
    default_group_size = type(args).__dataclass_fields__["feedback_group_size"].default
    if not hasattr(provider, "group_size") and args.feedback_group_size != default_group_size:
        logger.warning(
            "feedback_group_size=%d is ignored: it splits the group for the built-in 'openai' and 'self' providers, "
            "and %r gets the whole group. Split inside the provider if it should see subgroups.",
            args.feedback_group_size,
            provider,
        )
    required = getattr(provider, "required_columns", ())
    missing = [c for c in required if c not in columns] if getattr(dataset, "column_names", None) is not None else []
    if missing:
        raise ValueError(
            f"The feedback provider {provider!r} reads the column {missing[0]!r}, which the training dataset lacks "
            f"(it has {columns}). Add it, or name the column that holds the feedback (feedback_column=...)."
        )
    if is_batched(provider):
        return
    if not callable(provider):
        raise TypeError(
            f"feedback_provider must be a callable (prompt, completions, rewards, **columns) -> str, got "
            f"{type(provider).__name__}."
        )
    try:
        signature = inspect.signature(provider)
    except (TypeError, ValueError):  # builtins and some C callables have no signature: nothing to check
        return
    try:
        signature.bind("problem", ["completion"], [0.0], **dict.fromkeys(columns))
    except TypeError as error:
        raise TypeError(
            f"The feedback provider '{provider_name(provider)}' cannot be called as "
            f"provider(prompt, completions, rewards, **columns) with the dataset's columns {columns}: {error}. Give "
            "it that signature, e.g. def provider(prompt, completions, rewards, **columns) -> str."
        ) from None
