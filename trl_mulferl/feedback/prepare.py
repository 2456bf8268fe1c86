"""`prepare_feedback`: the whole path from a provider's text to what is injected, the guard, the sanitiser
(decision 6) and the cap on policy tokens, in an order that leaves no statement of the answer in the final text.
"""

import logging
from dataclasses import dataclass
from typing import Any

from ..core.schema import sanitize_feedback, truncate_to_tokens
from .guard.normalise import _without_lone_surrogates
from .guard.redact import redact_answer_leak
from .protocol import warn_once


logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PreparedFeedback:
    text: str | None  # what is injected; None when nothing is left (the group is unresolved)
    leaked: bool  # whether the guard redacted anything


# A bound on the characters of `max_tokens` policy tokens: MATH-500's problems and solutions take 2.6 characters per
# SmolLM2 token on average, at most 5.6. The guard's cost grows with the text, so it checks only what can fit.
MAX_CHARS_PER_TOKEN = 8

# Redacting can lengthen the text past the token cap, and cutting it can end it on a new statement of the answer
# ("is 42" cut to "is 4"): cap and check again, a bounded number of times.
_PREPARE_PASSES = 3


def prepare_feedback(
    text: str,
    reference: Any,
    tokenizer,
    max_tokens: int,
    special_tokens: tuple[str, ...] = (),
    *,
    problem: str | None = None,
    strict: bool = True,
) -> PreparedFeedback:
    r"""A provider's feedback text made safe to inject (decisions 6 and 8): no statement of the reference answer, no
    schema tags, `\boxed` or special tokens, at most `max_tokens` policy tokens.

    The text is first cut to `max_tokens * MAX_CHARS_PER_TOKEN` characters, more than `max_tokens` tokens hold. The
    guard runs on that raw text (a `\boxed{}` is the plainest statement of the answer, and sanitising unwraps it),
    then on the final text, after sanitising (removing a special token can join "4" and "2" into "42") and capping. A
    guard that fails, or a `text` that is no str, leaves nothing (the group is unresolved) instead of stopping
    training. Lone surrogates in `text` and `problem` are read as U+FFFD.

    Args:
        text: The provider's feedback.
        reference: The reference answer (see `redact_answer_leak`); a worked solution is checked for its final answer.
        tokenizer: The policy tokenizer the cap counts in; `None` for no cap.
        max_tokens: The cap, in policy tokens.
        special_tokens: Strings removed from the text: every control token of the tokenizer (special and added
            tokens, `schema.control_tokens`).
        problem: The problem statement (see `redact_answer_leak`).
        strict: No exemption for what the problem states, the default (see `redact_answer_leak`).
    """
    if not isinstance(text, str):
        warn_once(
            f"prepare_feedback got a feedback text of type {type(text).__name__}; the group is unresolved. Pass the "
            "provider's text as a str."
        )
        return PreparedFeedback(None, False)
    text, problem = _without_lone_surrogates(text), _without_lone_surrogates(problem)
    if tokenizer is not None:
        text = text[: max_tokens * MAX_CHARS_PER_TOKEN]
    try:
        text, leaked = redact_answer_leak(text, reference, problem=problem, strict=strict)
        for _ in range(_PREPARE_PASSES):
            text = sanitize_feedback(text, special_tokens)
            if tokenizer is not None:
                text = sanitize_feedback(truncate_to_tokens(text, tokenizer, max_tokens), special_tokens)
            text, leaked_again = redact_answer_leak(text, reference, problem=problem, strict=strict)
            leaked |= leaked_again
            if not leaked_again:
                return PreparedFeedback(text or None, leaked)
    except Exception as error:  # the guard must never stop training: the group becomes unresolved
        logger.warning("Answer-leak check failed, the group is unresolved: %s: %s", type(error).__name__, error)
        return PreparedFeedback(None, False)
    return PreparedFeedback(None, leaked)  # every cut ended on a statement of the answer
