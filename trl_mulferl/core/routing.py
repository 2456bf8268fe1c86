"""Group states, the per-prompt routing rule of Algorithm 1, and FCO pair sampling."""

import enum
import hashlib
import math
from collections.abc import Sequence

import torch
from trl.trainer.utils import nanstd


class GroupState(str, enum.Enum):
    """Reward state of a group of K rollouts (paper eq. 7, plus UNSCORABLE from decision 5)."""

    SOLVED = "solved"
    CONTRASTIVE = "contrastive"
    FAILED = "failed"
    UNSCORABLE = "unscorable"


class Route(str, enum.Enum):
    """What Algorithm 1 does with a prompt after the group of its latest turn is scored.

    Every value but `REGENERATE` ends the prompt's trajectory; the value names its `mulferl/route/*` metric.
    """

    GRPO = "grpo"
    FCO = "fco"
    SOLVED_SKIP = "solved_skip"
    UNRESOLVED = "unresolved"
    UNSCORABLE = "unscorable"
    REGENERATE = "regenerate"


# The routes whose rows a loss trains (GRPO's term, FCO's pairs, `feedback_replay`'s term).
TRAINED_ROUTES = (Route.GRPO, Route.FCO)


def group_state(rewards: Sequence[float | None] | torch.Tensor, success_threshold: float = 1.0) -> GroupState:
    """Classify one group from the rewards of its scorable rollouts (decision 5, TRL 1.16's rule: a rollout no
    reward function could score is left out of its group, as from GRPO's mean and std).

    Args:
        rewards: One reward per rollout: the weighted sum of the reward functions. `None` or NaN marks a rollout the
            reward functions could not score.
        success_threshold: A rollout succeeds when its reward is `>= success_threshold`.

    Returns:
        `UNSCORABLE` if no reward is present, else, over the present ones, `SOLVED` (all succeed), `FAILED` (none
        succeeds) or `CONTRASTIVE`.
    """
    if isinstance(rewards, torch.Tensor):
        rewards = rewards.tolist()
    if len(rewards) == 0:
        raise ValueError("A group needs at least one reward.")
    rewards = [r for r in rewards if r is not None and not math.isnan(r)]
    if not rewards:
        return GroupState.UNSCORABLE
    num_successes = sum(r >= success_threshold for r in rewards)
    if num_successes == len(rewards):
        return GroupState.SOLVED
    if num_successes == 0:
        return GroupState.FAILED
    return GroupState.CONTRASTIVE


def rewards_vary(rewards: Sequence[float] | torch.Tensor) -> bool:
    """Whether a group's weighted rewards have a non-zero spread, i.e. TRL's GRPO gives it non-zero advantages.

    Missing rewards (None or NaN) are ignored, as TRL's `nanstd` ignores them.
    """
    if isinstance(rewards, torch.Tensor):
        rewards = rewards.tolist()
    present = {r for r in rewards if r is not None and not math.isnan(r)}
    return len(present) > 1


def route(states: Sequence[GroupState], num_turns: int, varies: bool = False) -> Route:
    """Algorithm 1's decision for a prompt, given the states of its groups at turns 0..t.

    A prompt only reaches turn t+1 when its group at turn t is FAILED, so every state but the last must be FAILED.
    With binary rewards this is exactly Algorithm 1. Decision 12 keeps any group whose rewards vary
    (continuous or multi-function rewards): a SOLVED group at turn 0 and a FAILED group with no turn left go to GRPO
    when `varies`, so that with `max_feedback_turns=0` the trainer is GRPO for any reward.

    Args:
        states: The group state at each turn so far, oldest first.
        num_turns: The turn budget T = 1 + max_feedback_turns.
        varies: Whether the weighted rewards of the last state's group vary (`rewards_vary`).
    """
    if num_turns < 1:
        raise ValueError(f"num_turns must be >= 1, got {num_turns}.")
    if not 1 <= len(states) <= num_turns:
        raise ValueError(f"Expected between 1 and {num_turns} states, got {len(states)}.")
    if any(state != GroupState.FAILED for state in states[:-1]):
        raise ValueError(f"Only FAILED groups are regenerated, but the earlier states are {list(states[:-1])}.")

    turn, state = len(states) - 1, states[-1]
    if state == GroupState.UNSCORABLE:
        return Route.UNSCORABLE
    if state == GroupState.CONTRASTIVE:
        return Route.GRPO
    if state == GroupState.SOLVED:
        if turn > 0:
            return Route.FCO
        return Route.GRPO if varies else Route.SOLVED_SKIP
    if turn < num_turns - 1:
        return Route.REGENERATE
    return Route.GRPO if varies else Route.UNRESOLVED


def weighted_rewards(rewards_per_func: torch.Tensor, reward_weights: torch.Tensor) -> torch.Tensor:
    """Weighted sum of the reward functions per rollout, combined as TRL combines them (decision 5).

    A function that returned None (NaN) for a row is skipped (`nansum`), as in TRL's multi-task pattern; the row is
    NaN (unscorable) only when every function returned None.
    """
    weighted = (rewards_per_func * reward_weights.to(rewards_per_func.device).unsqueeze(0)).nansum(dim=1)
    return weighted.masked_fill(torch.isnan(rewards_per_func).all(dim=1), float("nan"))


def union_advantages(turn0_rewards: torch.Tensor, trained_rewards: torch.Tensor, scale: bool) -> torch.Tensor:
    """`feedback_replay`: the advantages of a group's trained rows over the union of its rows at turn 0 (feedback-free,
    all failed) and those it is trained on, as Critique-GRPO takes them over initial responses and refinements;
    GRPO's `(r - mean) / (std + 1e-4)` over the 2K rewards (unbiased std, NaN rewards skipped), unscaled without
    `scale`.

    Args:
        turn0_rewards: `(G, K)` the groups' rewards at turn 0.
        trained_rewards: `(G, K)` their rewards at the turn they are trained on.

    Returns:
        `(G, K)` the advantages of the trained rows.
    """
    union = torch.cat([turn0_rewards, trained_rewards], dim=1)
    advantages = trained_rewards - torch.nanmean(union, dim=1, keepdim=True)
    return advantages / (nanstd(union, dim=1).unsqueeze(1) + 1e-4) if scale else advantages


def make_generator(seed: int, global_step: int, prompt_index: int) -> torch.Generator:
    """A CPU generator seeded from `(seed, global_step, prompt_index)`, identical on every process.

    Random choices of the algorithm (feedback subgroups, FCO permutations, iGRPO tie-breaks) draw from it instead of
    the global RNG, which `set_seed(..., device_specific=True)` makes differ between processes.
    """
    digest = hashlib.blake2b(f"{seed}:{global_step}:{prompt_index}".encode(), digest_size=8).digest()
    return torch.Generator(device="cpu").manual_seed(int.from_bytes(digest, "little") % 2**63)


def sample_fco_pairs(num_generations: int, pairing: str, generator: torch.Generator) -> torch.Tensor:
    """Indices of the FCO pairs (positive j, negative i) of one FAILED -> SOLVED transition.

    Args:
        num_generations: K, the size of both groups.
        pairing: `"permutation"`: K pairs `(j, pi(j))` for a uniformly random permutation pi (paper eq. 17), an
            unbiased estimate of the all-pairs mean (paper Prop. 4). `"all"`: the K*K pairs of eq. 16, positive-major.
        generator: Source of the permutation.

    Returns:
        A `(num_pairs, 2)` long tensor of `(positive index, negative index)` rows.
    """
    positives = torch.arange(num_generations)
    if pairing == "permutation":
        negatives = torch.randperm(num_generations, generator=generator)
        return torch.stack([positives, negatives], dim=1)
    if pairing == "all":
        return torch.cartesian_prod(positives, positives)
    raise ValueError(f"pairing must be 'permutation' or 'all', got {pairing!r}.")
