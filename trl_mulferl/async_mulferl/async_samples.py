"""MulFeRL's samples on TRL's asynchronous GRPO, from the rollout queue to the loss: FCO pairs and replayed rows.

FCO: the rollout process sends each positive of a FAILED -> SOLVED prompt (a row of its solved group) as a carrier
sample that holds the negatives it is paired with (rows of the failed group of the turn before: one under the
permutation pairing, all K under the all-pairs one) and the weight of its pairs (`fco_carriers`). In the trainer,
`MulFeRLQueue` opens each carrier for TRL's planner, which places it as the one sample it counts (so a prompt counts
K samples, as its K rows do in `MulFeRLTrainer`, and no micro-batch or rank row cuts a pair; under `token_budget`
`FCOTokenBudgetBatcher` prices it with its negatives); `MulFeRLCollator` unfolds it after its positive, in the same
rank row, adds the pairs as segment indices of that row and takes the negatives' tokens out of TRL's loss terms. The
loss scores every member on TRL's own forward (its segments), so each pair's loss
`-log sigmoid(tau * (s+ - s- - margin))` is exact for either pairing, at the parameters it trains.

`feedback_replay`: a row trained without its feedback carries its advantage under `REPLAY_ADVANTAGE` (TRL's own is
0, so TRL's clipped term leaves it alone), which the collator lays out per segment for the loss's term of its own.
"""

import copy
import logging
import math
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np
import torch
from trl.chat_template_utils import parse_response
from trl.experimental.async_grpo.async_grpo_trainer import FixedCountBatcher, TokenBudgetBatcher
from trl.experimental.async_grpo.packing import TreeRow
from trl.trainer.utils import pad

from ..core.metrics import (
    FCO_PAIRS,
    LOGGED_ROUTES,
    OVER_BUDGET_PAIRS,
    REPLAY_ADVANTAGE,
    REWARD_FINAL,
    ROUTE,
    ROUTED_PROMPTS,
    TURN0_REWARDS,
    route_metric,
)
from ..core.routing import TRAINED_ROUTES, Route, union_advantages
from ..feedback.protocol import warn_once
from ..feedback.step import kept_fco_pairs
from ..feedback.turn import replayed_row
from .pipeline import LookaheadMicroBatch, TrainerProgress, planned_run


logger = logging.getLogger(__name__)


def fco_carriers(positives: list, negatives: list, pairs: torch.Tensor) -> tuple[list, int]:
    """The rows that carry an FCO prompt through TRL's queue, and the number of its pairs dropped.

    Each positive in a kept pair (`kept_fco_pairs`: both sides scored, with a scored token) carries its negatives (as
    the dicts TRL's queue dataset yields) and the weight of its pairs, `1 / (pairs kept of the prompt)`, so that the
    prompt adds its mean pair loss; a positive in no kept pair goes as it is.

    Args:
        positives, negatives: The K rows of the solved group and of the failed group before it (`RolloutSample`s).
        pairs: `(P, 2)` `(positive, negative)` indices.
    """
    positive_scorable, positive_tokens = member_flags(positives)
    negative_scorable, negative_tokens = member_flags(negatives)
    kept, weights, dropped = kept_fco_pairs(
        pairs, (positive_scorable, negative_scorable), (positive_tokens, negative_tokens)
    )
    carriers = []
    for j, positive in enumerate(positives):
        own = kept[:, 0] == j
        partners = [negatives[i] for i in kept[own, 1].tolist()]
        if not partners:
            carriers.append(positive)
            continue
        members = [
            {key: getattr(sample, key) for key in ("input_ids", "completion_mask", "old_log_probs", "advantage")}
            | {"group_id": sample.group_id, "metrics": {}}  # no reward metric: TRL's are over the trained rows
            for sample in partners
        ]
        carrier = copy.copy(positive)
        pair_weight = weights[own][0].item()
        carrier.metrics = {**positive.metrics, FCO_PAIRS: {"negatives": members, "pair_weight": pair_weight}}
        carriers.append(carrier)
    return carriers, dropped


def replay_without_feedback(group, samples: list, slot_ids: list[int], tokenizer):
    """`feedback_replay` on the rows of `group` (a `RegeneratedGroup`) trained at a feedback turn, in place: the rows
    and their FCO negatives (`group.previous`) with the injected feedback cut out of the slot (`strip_feedback`); the
    rows' advantages over the union with the prompt's turn-0 group, under `REPLAY_ADVANTAGE` for the loss's replay term
    (TRL's own advantage stays 0)."""
    turn0 = torch.tensor([[metrics["reward"] for metrics in group.turn0_metrics]])
    rewards = torch.tensor([[sample.metrics["reward"] for sample in samples]])
    advantages = union_advantages(turn0, rewards, scale=True)[0].nan_to_num(0.0)
    for sample, advantage in zip(samples, advantages.tolist(), strict=True):
        strip_feedback(sample, group.prompt_length, group.prefill_length, slot_ids)
        prompt_ids, completion_ids = (ids.tolist() for ids in np.split(sample.input_ids, [group.prompt_length]))
        sample.completion = [parse_response(tokenizer, completion_ids, prefix=prompt_ids)]  # as trained
        sample.advantage = 0.0
        sample.metrics[REPLAY_ADVANTAGE] = advantage
    for sample in group.previous:
        strip_feedback(sample, group.prompt_length, group.previous_prefill_length, slot_ids)


def strip_feedback(sample, prompt_length: int, prefill_length: int, slot_ids: list[int]):
    """`sample`'s training row as `feedback_replay` trains it (`replayed_row`), in place: the `prefill_length` tokens
    of injected feedback after its prompt replaced by the empty slot `slot_ids` (mask 0, log-prob 0)."""
    completion = slice(prompt_length, None)
    ids, mask, logps = replayed_row(
        sample.input_ids[completion].tolist(),
        sample.completion_mask[completion].tolist(),
        sample.old_log_probs[completion].tolist(),
        prefill_length,
        slot_ids,
    )
    sample.input_ids = np.concatenate([sample.input_ids[:prompt_length], np.asarray(ids, dtype=np.int64)])
    sample.completion_mask = np.concatenate([sample.completion_mask[:prompt_length], np.asarray(mask, dtype=np.int64)])
    sample.old_log_probs = np.concatenate([sample.old_log_probs[:prompt_length], np.asarray(logps, dtype=np.float32)])


def member_flags(rows: list) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row, whether it is scorable (it has a reward, decision 5) and has a scored token (decision 10)."""
    scorable = torch.tensor([not math.isnan(row.metrics["reward"]) for row in rows])
    return scorable, torch.tensor([int(row.completion_mask.sum()) > 0 for row in rows])


class MulFeRLQueue(torch.utils.data.IterableDataset):
    """TRL's rollout queue dataset, with MulFeRL's fields taken out of each sample's metrics: an FCO carrier's
    `fco_negatives` and `fco_pair_weight` (which the collator unfolds), a replayed row's `replay_advantage` (None
    on a row that is not replayed), and the turn-0 reward metrics that replace a regenerated row's.

    The rows it yields are trained (TRL's queue dataset has dropped the stale ones): their routes go to `metrics`,
    the trainer's sink, as `mulferl/route/*` (each prompt's K rows, a fraction of the window's prompts),
    `mulferl/route/prompts_total` and `mulferl/reward_final`, and their count to `progress`, which the rollout
    process reads."""

    def __init__(self, dataset, metrics: dict, group_size: int, progress: TrainerProgress | None = None):
        self.dataset = dataset
        self.metrics = metrics
        self.group_size = group_size
        self.progress = progress

    def __iter__(self):
        for sample in self.dataset:
            if self.progress is not None:
                self.progress.planned(sample["group_id"])
            self._log_route(sample["metrics"])
            pairs = sample["metrics"].get(FCO_PAIRS)
            opened = opened_sample(sample)
            if pairs is not None:
                opened |= {
                    "fco_negatives": [opened_sample(member) for member in pairs["negatives"]],
                    "fco_pair_weight": pairs["pair_weight"],
                }
            yield opened

    def _log_route(self, metrics: dict):
        route = Route(metrics[ROUTE])
        for logged in LOGGED_ROUTES:
            self.metrics[route_metric(logged)].append((float(logged is route), 1.0))
        self.metrics[ROUTED_PROMPTS].append(1.0 / self.group_size)
        if route in TRAINED_ROUTES and not math.isnan(metrics["reward"]):
            self.metrics[REWARD_FINAL].append((metrics["reward"], 1.0))


class PricedRow(TreeRow):
    """A planner's row that prices an FCO carrier with the negatives the collator unfolds after it: they count in its
    tokens and trained tokens as they will in the micro-batch, while its `samples` stay the planner's."""

    def fits(self, sample: dict, budget: int) -> bool:
        members = [sample, *sample.get("fco_negatives", ())]
        trained = sum(int(member["completion_mask"].sum()) for member in members)
        return len(self.tokens) + self.novel_tokens(members) <= budget and self.trained + trained <= budget

    def novel_tokens(self, members: list[dict]) -> int:
        """The unique tokens `members` add to the row together (the negatives share their prompt with the positive),
        keyed as TRL's trie keys them: a token with the next one."""
        beyond = {}  # per trie node where members leave the trie (None: the roots), the trie of what they add there
        novel = 0
        for member in members:
            ids = member["input_ids"].tolist()
            keys = list(zip(ids, [*ids[1:], None], strict=True))
            children, node, depth = self.roots, None, 0
            while depth < len(keys) and keys[depth] in children:
                node = children[keys[depth]]
                children, depth = self.children[node], depth + 1
            added = beyond.setdefault(node, {})
            for key in keys[depth:]:
                if key not in added:
                    added[key] = {}
                    novel += 1
                added = added[key]
        return novel

    def add(self, sample: dict) -> None:
        super().add(sample)
        for negative in sample.get("fco_negatives", ()):
            super().add(negative)
            self.samples.pop()
            self.sample_nodes.pop()


class FCOTokenBudgetBatcher(TokenBudgetBatcher):
    """TRL's token-budget planner, with each FCO carrier priced with its negatives (`PricedRow`), so that no
    micro-batch row exceeds `token_budget` once the collator unfolds them. A carrier whose negatives do not all fit in
    an empty row with it keeps those that do; the others' pairs are dropped (`mulferl/fco/over_budget_pairs_total`)."""

    def __iter__(self):
        # TRL's loop, on `PricedRow`s: TRL's rows price a carrier alone.
        rows = [PricedRow() for _ in range(self.num_processes)]
        for sample in self.dataset:
            if len(sample["input_ids"]) > self.token_budget:
                logger.warning(
                    f"Dropping a rollout sample of {len(sample['input_ids'])} tokens that exceeds token_budget="
                    f"{self.token_budget}. Raise token_budget to avoid dropping samples."
                )
                self.metrics["batch/dropped_oversize_total"].append(1.0)
                continue
            sample = self._within_budget(sample)
            while (row := self._place(rows, sample)) is None:
                yield rows
                rows = [PricedRow() for _ in range(self.num_processes)]
            row.add(sample)

    def _within_budget(self, carrier: dict) -> dict:
        """`carrier` with the negatives that fit in an empty row with it, in order."""
        negatives = carrier.get("fco_negatives", ())
        kept = len(negatives)
        while kept and not PricedRow().fits({**carrier, "fco_negatives": negatives[:kept]}, self.token_budget):
            kept -= 1
        if kept == len(negatives):
            return carrier
        self.metrics[OVER_BUDGET_PAIRS].append(float(len(negatives) - kept))
        warn_once(
            f"Dropping FCO pairs whose negative does not fit in one row of token_budget={self.token_budget} with its "
            f"positive (counted in {OVER_BUDGET_PAIRS}). Raise token_budget to train them."
        )
        if not kept:
            return {key: value for key, value in carrier.items() if key not in ("fco_negatives", "fco_pair_weight")}
        return {**carrier, "fco_negatives": negatives[:kept]}


class RunFixedCountBatcher(FixedCountBatcher):
    """TRL's fixed-count planner, ending with the run (`planned_run`)."""

    progress: TrainerProgress

    def __iter__(self):
        return planned_run(super().__iter__(), self.progress)


class RunTokenBudgetBatcher(FCOTokenBudgetBatcher):
    """`FCOTokenBudgetBatcher`, ending with the run (`planned_run`)."""

    progress: TrainerProgress

    def __iter__(self):
        return planned_run(super().__iter__(), self.progress)


def planning_the_run(planner, progress: TrainerProgress):
    """TRL's `planner`, made in place the one that ends with the run (TRL builds it inside `get_train_dataloader`, and
    a torch DataLoader's dataset cannot be replaced): it counts its micro-batches in `progress`, and under a token
    budget prices FCO carriers with their negatives."""
    planner.__class__ = RunTokenBudgetBatcher if isinstance(planner, TokenBudgetBatcher) else RunFixedCountBatcher
    planner.progress = progress
    return planner


def opened_sample(sample: dict) -> dict:
    """`sample` with MulFeRL's fields out of its metrics, and TRL's reward metrics its turn 0's where it carries them,
    in a new dict (TRL's trace logger may hold the old one)."""
    fields = (FCO_PAIRS, REPLAY_ADVANTAGE, TURN0_REWARDS, ROUTE)
    metrics = {key: value for key, value in sample["metrics"].items() if key not in fields}
    metrics.update(sample["metrics"].get(TURN0_REWARDS, {}))
    return {**sample, "metrics": metrics, "replay_advantage": sample["metrics"].get(REPLAY_ADVANTAGE)}


@dataclass
class UnfoldedRow:
    """One rank's row with its FCO carriers unfolded: the row, its pairs as segment (sample) indices, and the
    replayed segments' advantages."""

    row: TreeRow
    pairs: list[tuple[int, int]]
    weights: list[float]  # per pair: 1 / (pairs kept of its prompt), so that each prompt adds its mean pair loss
    negative_tokens: int  # scored tokens of the negatives, which TRL's token normalizer must not count
    replay_advantages: list[float | None]  # per segment: None where the row is not replayed


def unfold_fco_carriers(row: TreeRow) -> UnfoldedRow:
    """`row` with each FCO carrier's negatives after it, and the pairs of each carrier."""
    unfolded = TreeRow()
    pairs, weights, negative_tokens = [], [], 0
    for sample in row.samples:
        unfolded.add(sample)
        positive = len(unfolded.samples) - 1
        for negative in sample.get("fco_negatives", ()):
            unfolded.add(negative)
            pairs.append((positive, len(unfolded.samples) - 1))
            weights.append(sample["fco_pair_weight"])
            negative_tokens += int(negative["completion_mask"].sum())
    replay_advantages = [sample["replay_advantage"] for sample in unfolded.samples]
    return UnfoldedRow(unfolded, pairs, weights, negative_tokens, replay_advantages)


@dataclass
class MulFeRLCollator:
    """TRL's rollout collator, with the FCO carriers of each row unfolded first, and MulFeRL's per-segment inputs of
    the loss added to the batch, each only to a micro-batch that needs it:

    - `mulferl_fco_pairs` `(num_processes, P, 2)`: segment indices of each rank's row, -1 padded;
      `mulferl_fco_pair_weights` `(num_processes, P)`; `mulferl_fco_prompts` `(num_processes,)`: the prompts the
      micro-batch trains, over all ranks (the samples its planner counted / K), which the FCO term is divided by;
    - `mulferl_replay_advantages` `(num_processes, S)`: each segment's replay advantage, NaN where it is not replayed.
    """

    collator: object  # TRL's `DataCollatorForRollout`
    group_size: int  # K

    def __call__(self, examples: list) -> dict:
        (rows,) = examples
        collator = self.collator
        if isinstance(rows, LookaheadMicroBatch):  # never trained: counted in no metric and no epoch
            collator = replace(collator, groups_trained=set(), metrics=defaultdict(list))
        unfolded = [unfold_fco_carriers(row) for row in rows]
        batch = collator([[item.row for item in unfolded]])
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
        prompts = sum(len(row.samples) for row in rows) / self.group_size
        batch["mulferl_fco_prompts"] = torch.full((num_processes,), prompts)
        batch["global_n_tokens"] -= sum(item.negative_tokens for item in unfolded)
        self._take_out_negatives(batch, unfolded, collator.metrics)
        return batch

    def _take_out_negatives(self, batch: dict, unfolded: list[UnfoldedRow], metrics: dict):
        """The negatives' tokens out of TRL's loss terms into `mulferl_negative_token_index` and
        `mulferl_negative_segment_id` (-1 padded), for the FCO term alone: TRL's loss would give them advantage 0, and
        its `ratio`, `kl`, `entropy` and clip metrics would count them. TRL's per-sample counts of the micro-batch
        (`sample/trained_tokens_mean`, the samples per step) are made those of the rows it trains."""
        token_index, segment_id, trained = [], [], []
        for rank, item in enumerate(unfolded):
            negatives = {negative for _, negative in item.pairs}
            is_negative = (batch["token_index"][rank] >= 0) & torch.isin(
                batch["segment_id"][rank], torch.tensor(sorted(negatives), dtype=torch.long)
            )
            token_index.append(batch["token_index"][rank][is_negative])
            segment_id.append(batch["segment_id"][rank][is_negative])
            batch["token_index"][rank][is_negative] = -1
            trained += [
                int(sample["completion_mask"].sum())
                for index, sample in enumerate(item.row.samples)
                if index not in negatives
            ]
        batch["mulferl_negative_token_index"] = pad(token_index, padding_value=-1)
        batch["mulferl_negative_segment_id"] = pad(segment_id, padding_value=-1)
        metrics["sample/trained_tokens_mean"][-1] = sum(trained) / len(trained)
        batch["mean_seq_len"] = batch["global_n_forward_tokens"] / len(trained)
