"""The reward that reads the injected feedback, for the self-feedback tests and the two-process scripts."""

from tests.helpers.trainer import completion_texts


def injected_feedback_reward(completions, **kwargs):
    """1 when the answer opens with a non-empty injected feedback block: only regenerated rows can have one."""
    rewards = []
    for text in completion_texts(completions):
        head, closed, _ = text.partition("</feedback>")
        rewards.append(float(bool(closed) and head.startswith("<thinking><feedback>") and len(head) > 20))
    return rewards
