"""MulFeRL's samples on TRL's asynchronous GRPO, from the rollout queue to the loss: FCO prompts and replayed rows.

FCO: the rollout process sends the 2K rows of a FAILED -> SOLVED prompt (its solved group, positives 0..K-1, and the
failed group of the turn before, negatives K..2K-1) and its pairs as one carrier sample (`fco_carrier`). In the
trainer, `MulFeRLQueue` opens it for TRL's planner, which places it as one sample, so no micro-batch or rank row cuts
a prompt's pairs; `MulFeRLCollator` unfolds each carrier into its members, in the same rank row, and adds the pairs as
segment indices of that row. The loss scores every member from TRL's own forward (its segments), so each pair's loss
`-log sigmoid(tau * (s+ - s- - margin))` is exact for either pairing, at the parameters it trains.

`feedback_replay`: a row trained without its feedback carries its advantage under `REPLAY_ADVANTAGE` (TRL's own is
0, so TRL's clipped term leaves it alone), which the collator lays out per segment for the loss's term of its own.
"""

import copy
import math
from dataclasses import dataclass

import torch
from trl.experimental.async_grpo.packing import TreeRow
from trl.trainer.utils import pad


# The key of a carrier's per-sample metrics (the one field of a sample that TRL's queue dataset hands on as it is)
# under which the rollout process sends the prompt's members and pairs; `MulFeRLQueue` takes it out before any metric is
# logged.
FCO_UNIT = "mulferl/fco_unit"
REPLAY_ADVANTAGE = "mulferl/replay_advantage"  # likewise, a replayed row's advantage


def fco_carrier(positives: list, negatives: list, pairs: torch.Tensor):
    """The sample that carries an FCO prompt through TRL's queue: its first positive, with every member (positives
    0..K-1, then negatives K..2K-1) as the dicts TRL's queue dataset yields, and the `(P, 2)` `(positive, negative)`
    pairs. Sent whole, it is kept or dropped as stale whole."""
    members = [
        {
            "input_ids": sample.input_ids,
            "completion_mask": sample.completion_mask,
            "old_log_probs": sample.old_log_probs,
            "advantage": sample.advantage,
            "group_id": sample.group_id,
            "metrics": sample.metrics,
        }
        for sample in [*positives, *negatives]
    ]
    carrier = copy.copy(positives[0])
    carrier.metrics = {**carrier.metrics, FCO_UNIT: {"members": members, "pairs": pairs.tolist()}}
    return carrier


class MulFeRLQueue(torch.utils.data.IterableDataset):
    """TRL's rollout queue dataset, with MulFeRL's fields taken out of each sample's metrics: an FCO carrier opened
    for the planner (its first positive, what the planner measures: the members share its prompt, so the row that
    takes it takes them nearly for free, with `fco_members` and `fco_pairs`, which the collator unfolds), and a
    replayed row's `replay_advantage` (None on a row that is not replayed)."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __iter__(self):
        for sample in self.dataset:
            unit = sample["metrics"].get(FCO_UNIT)
            opened = opened_sample(sample)
            if unit is not None:
                opened |= {
                    "fco_members": [opened_sample(member) for member in unit["members"]],
                    "fco_pairs": unit["pairs"],
                }
            yield opened


def opened_sample(sample: dict) -> dict:
    """`sample` with MulFeRL's fields out of its metrics, in a new dict (TRL's trace logger may hold the old one)."""
    metrics = {key: value for key, value in sample["metrics"].items() if key not in (FCO_UNIT, REPLAY_ADVANTAGE)}
    return {**sample, "metrics": metrics, "replay_advantage": sample["metrics"].get(REPLAY_ADVANTAGE)}


@dataclass
class UnfoldedRow:
    """One rank's row with its FCO carriers unfolded: the row, its pairs as segment (sample) indices, and the
    replayed segments' advantages."""

    row: TreeRow
    pairs: list[tuple[int, int]]
    weights: list[float]  # per pair: 1 / (pairs kept of its prompt), so that each prompt adds its mean pair loss
    dropped: int  # pairs left out: a member without a reward (decision 5) or without a scored token (decision 10)
    negative_tokens: int  # scored tokens of the negatives, which TRL's token normalizer must not count
    replay_advantages: list[float | None]  # per segment: None where the row is not replayed


def unfold_fco_units(row: TreeRow) -> UnfoldedRow:
    """`row` with each FCO carrier replaced by its members, in order, and the pairs of each carrier kept."""
    unfolded = TreeRow()
    pairs, weights, dropped, negative_tokens = [], [], 0, 0
    for sample in row.samples:
        members = sample.get("fco_members")
        if members is None:
            unfolded.add(sample)
            continue
        first = len(unfolded.samples)
        for member in members:
            unfolded.add(member)
        k = len(members) // 2
        negative_tokens += sum(int(member["completion_mask"].sum()) for member in members[k:])
        scored = [
            not math.isnan(member["metrics"].get("reward", math.nan)) and int(member["completion_mask"].sum()) > 0
            for member in members
        ]
        kept = [(first + j, first + k + i) for j, i in sample["fco_pairs"] if scored[j] and scored[k + i]]
        pairs += kept
        weights += [1.0 / len(kept)] * len(kept)
        dropped += len(sample["fco_pairs"]) - len(kept)
    replay_advantages = [sample["replay_advantage"] for sample in unfolded.samples]
    return UnfoldedRow(unfolded, pairs, weights, dropped, negative_tokens, replay_advantages)


@dataclass
class MulFeRLCollator:
    """TRL's rollout collator, with the FCO carriers of each row unfolded first, and MulFeRL's per-segment inputs of
    the loss added to the batch, each only to a micro-batch that needs it:

    - `mulferl_fco_pairs` `(num_processes, P, 2)`: segment indices of each rank's row, -1 padded;
      `mulferl_fco_pair_weights` `(num_processes, P)`; `mulferl_fco_prompts` `(num_processes,)`: the prompts the
      micro-batch trains, over all ranks, which the FCO term is divided by;
    - `mulferl_replay_advantages` `(num_processes, S)`: each segment's replay advantage, NaN where it is not replayed.
    """

    collator: object  # TRL's `DataCollatorForRollout`
    metrics: dict

    def __call__(self, examples: list) -> dict:
        (rows,) = examples
        unfolded = [unfold_fco_units(row) for row in rows]
        batch = self.collator([[item.row for item in unfolded]])
        dropped = sum(item.dropped for item in unfolded)
        if dropped:
            self.metrics["mulferl/fco/dropped_pairs"].append(float(dropped))
        num_processes = len(rows)
        if any(advantage is not None for item in unfolded for advantage in item.replay_advantages):
            batch["mulferl_replay_advantages"] = pad(
                [
                    torch.tensor([math.nan if a is None else a for a in item.replay_advantages], dtype=torch.float32)
                    for item in unfolded
                ],
                padding_value=math.nan,
            )
        if not any(item.pairs for item in unfolded):
            return batch
        batch["mulferl_fco_pairs"] = pad(
            [torch.tensor(item.pairs, dtype=torch.long).view(-1, 2) for item in unfolded], padding_value=-1
        )
        batch["mulferl_fco_pair_weights"] = pad([torch.tensor(item.weights) for item in unfolded], padding_value=0.0)
        prompts = {sample["group_id"] for row in rows for sample in row.samples}
        batch["mulferl_fco_prompts"] = torch.full((num_processes,), float(len(prompts)))
        batch["global_n_tokens"] -= sum(item.negative_tokens for item in unfolded)
        return batch
