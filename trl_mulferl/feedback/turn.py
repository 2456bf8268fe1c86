"""The rules of a feedback turn that both MulFeRL trainers apply around `FeedbackStep`, each to rows of its own shape:
which failed groups are asked for feedback, the ids of a regeneration's prompt, and which rows `feedback_replay`
trains without their feedback, and how.

`MulFeRLTrainer`'s turn loop (`trl_mulferl.mulferl.turn_loop`) calls them over this process's groups of a generation
batch, `AsyncMulFeRLTrainer`'s rollout process (`trl_mulferl.async_mulferl.async_rollout_worker`) over the one group
of a feedback task.
"""

from collections import Counter
from collections.abc import Callable

from ..core.routing import TRAINED_ROUTES, Route
from .step import without_feedback


def asks_for_feedback(step, group_completion_ids: list[list[int]], skip_truncated: bool, counts: Counter) -> bool:
    """Whether a failed group gets a feedback request: not with `feedback_skip_truncated` where every one of its
    rollouts hit the length limit (`FeedbackStep.all_truncated`), which adds 1 to `counts["feedback/skipped_truncated"]`
    (the group ends unresolved)."""
    skipped = skip_truncated and step.all_truncated(group_completion_ids)
    counts["feedback/skipped_truncated"] += skipped
    return not skipped


def regeneration_prompt_ids(
    step,
    contexts: list,
    prompts: list,
    injection: str,
    tokenize: Callable[[list], list[list[int]]],
    counts: Counter,
) -> list[list[int]]:
    """The ids of each regeneration's prompt: `contexts` (the prompts with the feedback injected, `inject_feedback`)
    tokenized by `tokenize` (a list of prompts to their lists of ids, as the trainer tokenizes prompts). Under plain
    injection the feedback is in the prompt, and so may be control ids: those it brought are dropped against `prompts`,
    the same prompts without it (`FeedbackStep.context_ids`, which counts them)."""
    ids = tokenize(contexts)
    if injection == "plain":
        ids = step.context_ids(ids, prompts, tokenize, counts)
    return ids


def replays_without_feedback(route: Route, turn: int) -> bool:
    """`feedback_replay`'s choice: a prompt whose trajectory ends on a trained route at a feedback turn (`turn` > 0)
    is trained on its rows, and its FCO negatives, without their feedback."""
    return route in TRAINED_ROUTES and turn > 0


def replayed_row(
    ids: list[int], mask: list[int], logprobs: list[float] | None, prefill_length: int, slot_ids: list[int]
) -> tuple[list[int], list[int], list[float] | None]:
    """A rollout's completion ids, mask and sampling log-probs as `feedback_replay` trains them: the `prefill_length`
    tokens of injected feedback at its head replaced by the empty slot `slot_ids` (`without_feedback`); a turn-0
    rollout (an FCO negative of a prompt solved at turn 1), which holds no injected feedback (`prefill_length` 0: its
    slot is the policy's own), as it is."""
    if not prefill_length:
        return ids, mask, logprobs
    return without_feedback(ids, mask, logprobs, prefill_length, slot_ids)
