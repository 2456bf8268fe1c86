"""FCO's plumbing in the asynchronous trainer (trl_mulferl/async_mulferl/async_samples.py), on TRL's own planner and
collator, and the packed score against the padded one of the synchronous trainer."""

import math
from collections import defaultdict

import numpy as np
import pytest
import torch
from trl.experimental.async_grpo.async_grpo_trainer import DataCollatorForRollout, FixedCountBatcher
from trl.experimental.async_grpo.async_rollout_worker import RolloutSample

from trl_mulferl.async_mulferl.async_samples import MulFeRLCollator, MulFeRLQueue, fco_carriers, strip_feedback
from trl_mulferl.core.losses import packed_sequence_logp, replay_token_losses, sequence_logp
from trl_mulferl.core.metrics import FCO_PAIRS, REPLAY_ADVANTAGE, ROUTE, TURN0_REWARDS


@pytest.mark.parametrize("normalization", ["sum", "mean"])
def test_packed_sequence_logp_equals_the_padded_one(normalization):
    generator = torch.Generator().manual_seed(0)
    lengths = [3, 0, 5, 1]
    padded = torch.randn(len(lengths), 6, generator=generator)
    mask = torch.zeros_like(padded)
    for row, length in enumerate(lengths):
        mask[row, 6 - length :] = 1.0  # scored tokens after a masked prefill
    flat, segment = padded[mask.bool()], mask.nonzero()[:, 0]
    packed = packed_sequence_logp(flat, segment, len(lengths), normalization)
    assert packed.tolist() == pytest.approx(sequence_logp(padded, mask, normalization).tolist(), abs=1e-6)
    assert packed[1] == 0.0  # no scored token: 0, not NaN (decision 10)


PROMPT = [5, 6, 7]
K = 2


def sample(group_id: int, completion: list[int], reward: float, prefill: int = 0, route="grpo") -> RolloutSample:
    """A training row of a prompt that ended on `route`: the shared prompt, then `completion`, its first `prefill`
    tokens context (mask 0)."""
    ids = PROMPT + completion
    mask = [0] * (len(PROMPT) + prefill) + [1] * (len(completion) - prefill)
    return RolloutSample(
        prompt=[],
        completion=[],
        input_ids=np.asarray(ids, dtype=np.int64),
        completion_mask=np.asarray(mask, dtype=np.int64),
        old_log_probs=np.full(len(ids), -0.5, dtype=np.float32),
        advantage=0.0,
        model_version=3,
        group_id=group_id,
        metrics={"reward": reward, ROUTE: route},
    )


def queued(row: RolloutSample) -> dict:
    """The dict TRL's queue dataset yields for a sample."""
    keys = ("input_ids", "completion_mask", "old_log_probs", "advantage", "group_id", "metrics")
    return {key: getattr(row, key) for key in keys}


def test_an_fco_pair_is_trained_in_one_row_with_its_members_as_segments():
    """K = 2: positives (turn 1, a prefill of 2 tokens), negatives (turn 0), the permutation (0, 1), (1, 0); a GRPO
    group beside them, on 2 ranks. Negative 1 has no reward, so pair (0, 1) is dropped and positive 0 goes as it is;
    positive 1 carries negative 0. The planner counts the prompt's 2 rows; the collator unfolds the negative after its
    positive in the same rank's row, and the pair points at their segments."""
    positives = [sample(7, [1, 1, 8, 9], 1.0, prefill=2), sample(7, [1, 1, 9], 1.0, prefill=2)]
    negatives = [sample(7, [4], 0.0), sample(7, [4, 4, 4], math.nan)]
    carriers, dropped = fco_carriers(positives, negatives, torch.tensor([[0, 1], [1, 0]]))
    assert dropped == 0 and carriers[0] is positives[0]
    assert carriers[1].model_version == 3 and carriers[1].input_ids.tolist() == positives[1].input_ids.tolist()
    grpo = [sample(8, [2, 3], 1.0), sample(8, [3], 0.0)]

    metrics = defaultdict(list)
    queue = MulFeRLQueue([*map(queued, carriers), *map(queued, grpo)], defaultdict(list), K)
    (rows,) = list(FixedCountBatcher(queue, num_processes=2, microbatch_size=4))
    batch = MulFeRLCollator(DataCollatorForRollout(pad_token_id=0, num_processes=2, metrics=metrics), K)([rows])

    assert FCO_PAIRS in carriers[1].metrics  # the queued carrier is left as it was (TRL's trace logger may hold it)
    fco_rank = next(rank for rank, row in enumerate(rows) if row.samples[0]["group_id"] == 7)
    # Segments of the FCO rank's row: positive 0, positive 1, then its negative 0.
    assert batch["mulferl_fco_pairs"][fco_rank].tolist() == [[1, 2]]
    assert batch["mulferl_fco_pair_weights"][fco_rank].tolist() == [1.0]
    assert batch["mulferl_fco_pairs"][1 - fco_rank].tolist() == [[-1, -1]]
    assert batch["mulferl_fco_prompts"].tolist() == [2.0, 2.0]  # 4 samples counted by the planner, K = 2
    segments = batch["segment_id"][fco_rank][batch["token_index"][fco_rank] >= 0]
    assert torch.bincount(segments).tolist() == [2, 1]  # TRL's loss terms, the positives': the prefill is not scored
    # The negative's scored token, for the FCO term alone (TRL's loss and its ratio/kl metrics do not see it).
    assert batch["mulferl_negative_segment_id"].tolist() == [[2], [-1]][:: 1 if fco_rank == 0 else -1]
    (position,) = batch["mulferl_negative_token_index"][fco_rank].tolist()
    assert batch["shift_labels"][fco_rank][position] == 4  # it predicts the negative's token
    # TRL's token normalizer counts the rows it would train, not the negative (1 token).
    assert batch["global_n_tokens"].tolist() == [2 + 1 + 2 + 1] * 2
    assert metrics["reward"] == [0.75]  # over the trained rows: the negative has no reward metric
    assert not any(FCO_PAIRS in key for key in metrics)


def test_the_all_pairs_pairing_carries_every_negative_with_each_positive():
    positives = [sample(7, [1], 1.0), sample(7, [2], 1.0)]
    negatives = [sample(7, [3], 0.0), sample(7, [4], 0.0)]
    carriers, dropped = fco_carriers(positives, negatives, torch.cartesian_prod(torch.arange(2), torch.arange(2)))
    assert dropped == 0
    for carrier in carriers:
        pairs = carrier.metrics[FCO_PAIRS]
        assert [negative["input_ids"].tolist() for negative in pairs["negatives"]] == [PROMPT + [3], PROMPT + [4]]
        assert pairs["pair_weight"] == 0.25  # the prompt's 4 pairs


def test_a_micro_batch_without_a_pair_is_trls():
    metrics = defaultdict(list)
    queue = MulFeRLQueue([queued(sample(1, [2, 3], 1.0))], defaultdict(list), K)
    rows = list(FixedCountBatcher(queue, num_processes=1, microbatch_size=1))
    trl_collator = DataCollatorForRollout(pad_token_id=0, num_processes=1, metrics=defaultdict(list))
    batch = MulFeRLCollator(DataCollatorForRollout(pad_token_id=0, num_processes=1, metrics=metrics), K)(rows)
    expected = trl_collator(rows)
    assert batch.keys() == expected.keys()
    assert all(torch.equal(batch[key], expected[key]) for key in batch)


@pytest.mark.parametrize("gamma", [0.1, None])
def test_replay_token_losses_have_the_shaped_gradient(gamma):
    """At the policy that scores them, the replayed tokens' gradient is -A d f(p) with Critique-GRPO's
    f(p) = p / (p + gamma) (or -A d log p without shaping), computed here by autograd on f itself."""
    logits = torch.randn(5, 7, generator=torch.Generator().manual_seed(1), requires_grad=True)
    tokens, advantages = torch.tensor([0, 3, 6, 2, 2]), torch.tensor([1.5, 1.5, -0.5, -0.5, 0.0])

    def token_logps():
        return logits.log_softmax(-1).gather(1, tokens[:, None]).squeeze(1)

    losses = replay_token_losses(token_logps(), advantages, gamma)
    (gradient,) = torch.autograd.grad(losses.sum(), logits)
    p = token_logps().exp()
    objective = p.log() if gamma is None else p / (p + gamma)
    (expected,) = torch.autograd.grad(-(advantages * objective).sum(), logits)
    assert torch.allclose(gradient, expected, atol=1e-6)
    weights = 1.0 if gamma is None else gamma * p / (p + gamma) ** 2
    assert losses.tolist() == pytest.approx((-advantages * weights).tolist(), abs=1e-6)  # TRL's term at ratio 1


def test_strip_feedback_leaves_the_empty_slot_masked():
    row = sample(1, [1, 1, 1, 8, 9], 1.0, prefill=3)
    row.old_log_probs[-2:] = [-0.25, -0.75]
    strip_feedback(row, len(PROMPT), 3, slot_ids=[30, 31])
    assert row.input_ids.tolist() == PROMPT + [30, 31, 8, 9]
    assert row.completion_mask.tolist() == [0] * len(PROMPT) + [0, 0, 1, 1]
    assert row.old_log_probs.tolist()[len(PROMPT) :] == [0.0, 0.0, -0.25, -0.75]


def test_replay_advantages_are_laid_out_per_segment():
    """A replayed FCO prompt (its positives replayed, their negatives not) beside a replayed GRPO row and a plain one:
    each segment's replay advantage, NaN where the row is not replayed; TRL's own advantage stays the sample's."""
    positives = [sample(7, [1, 2], 1.0), sample(7, [1, 3], 1.0)]
    for row in positives:
        row.metrics[REPLAY_ADVANTAGE] = 0.866
    carriers, _ = fco_carriers(positives, [sample(7, [4], 0.0), sample(7, [5], 0.0)], torch.tensor([[0, 0], [1, 1]]))
    replayed = sample(8, [2, 3], 1.0)
    replayed.metrics[REPLAY_ADVANTAGE] = 1.5
    plain = sample(9, [6], 1.0)
    queue = [*map(queued, carriers), queued(replayed), queued(plain)]
    metrics = defaultdict(list)
    (rows,) = list(FixedCountBatcher(MulFeRLQueue(queue, defaultdict(list), K), num_processes=1, microbatch_size=4))
    batch = MulFeRLCollator(DataCollatorForRollout(pad_token_id=0, num_processes=1, metrics=metrics), K)([rows])
    by_group = {7: [0.866, math.nan], 8: [1.5], 9: [math.nan]}  # a carrier's segments: its positive, its negative
    layout = [value for sample in rows[0].samples for value in by_group[sample["group_id"]]]
    assert batch["mulferl_replay_advantages"][0].tolist() == pytest.approx(layout, nan_ok=True)
    assert batch["advantages"][0].eq(0).all()
    assert not any(REPLAY_ADVANTAGE in key for key in metrics)


def test_a_row_trained_at_a_feedback_turn_is_logged_with_its_turn_0_rewards():
    """TRL's reward metrics describe turn 0 (decision 9): the queue hands TRL's planner and collator a regenerated
    row's turn-0 reward metrics in place of its own, which the rollout process routed it on."""
    row = sample(7, [1, 2], 1.0)
    row.metrics |= {"rewards/f": 1.0, "reward_std": 0.0, TURN0_REWARDS: {"reward": 0.0, "rewards/f": 0.0}}
    metrics = defaultdict(list)
    queue = MulFeRLQueue([queued(row)], defaultdict(list), K)
    rows = list(FixedCountBatcher(queue, num_processes=1, microbatch_size=1))
    MulFeRLCollator(DataCollatorForRollout(pad_token_id=0, num_processes=1, metrics=metrics), K)(rows)
    assert (metrics["reward"], metrics["rewards/f"], metrics["reward_std"]) == ([0.0], [0.0], [0.0])
    assert not any(TURN0_REWARDS in key for key in metrics) and row.metrics["reward"] == 1.0


def fco_prompt(group_id: int, generator: torch.Generator, group_size: int, pairing: str) -> list[RolloutSample]:
    """The carriers of an FCO prompt of `group_size` rollouts of 2 to 9 tokens, under `pairing`."""
    from trl_mulferl.core.routing import sample_fco_pairs

    def completion():
        length = int(torch.randint(2, 10, (1,), generator=generator))
        return torch.randint(10, 60, (length,), generator=generator).tolist()

    positives = [sample(group_id, completion(), 1.0, route="fco") for _ in range(group_size)]
    negatives = [sample(group_id, completion(), 0.0, route="fco") for _ in range(group_size)]
    carriers, _ = fco_carriers(positives, negatives, sample_fco_pairs(group_size, pairing, generator))
    return carriers


@pytest.mark.parametrize("pairing", ["permutation", "all"])
def test_no_micro_batch_row_exceeds_the_token_budget_with_its_fco_negatives(pairing):
    """K = 8, 2 ranks, a budget of 40 tokens: TRL's planner prices a carrier alone, so its rows exceed the budget once
    the collator unfolds the negatives; priced with them, no row does, every pair stays whole in its positive's row,
    and the pairs that fit in no row with their positive (the all-pairs carriers are up to 3 + 9 x 9 tokens) are
    dropped and counted."""
    from trl.experimental.async_grpo.async_grpo_trainer import TokenBudgetBatcher

    from trl_mulferl.async_mulferl.async_samples import FCOTokenBudgetBatcher
    from trl_mulferl.core.metrics import OVER_BUDGET_PAIRS

    budget, group_size, generator = 40, 8, torch.Generator().manual_seed(0)
    queue = [queued(carrier) for group_id in range(12) for carrier in fco_prompt(group_id, generator, 8, pairing)]
    total_pairs = sum(len(item["metrics"].get(FCO_PAIRS, {"negatives": []})["negatives"]) for item in queue)
    for planner, priced in ((TokenBudgetBatcher, False), (FCOTokenBudgetBatcher, True)):
        metrics = defaultdict(list)
        source = MulFeRLQueue(queue, metrics, group_size)
        collator = MulFeRLCollator(DataCollatorForRollout(pad_token_id=0, num_processes=2, metrics=metrics), 8)
        trained_pairs, trained_tokens = 0, []
        for rows in planner(source, num_processes=2, token_budget=budget, metrics=metrics):
            batch = collator([rows])
            trained_pairs += int((batch.get("mulferl_fco_pairs", torch.empty(0, 2))[..., 0] >= 0).sum())
            negative_terms = batch.get("mulferl_negative_token_index", torch.full((2, 1), -1))
            trained_tokens += ((batch["token_index"] >= 0).sum(1) + (negative_terms >= 0).sum(1)).tolist()
        row_tokens_max = max(metrics["batch/row_tokens_max"])
        if not priced:
            assert row_tokens_max > budget
            continue
        assert row_tokens_max <= budget
        assert max(trained_tokens) <= budget
        dropped = sum(metrics[OVER_BUDGET_PAIRS])
        assert (dropped > 0) == (pairing == "all")
        assert trained_pairs + dropped <= total_pairs and trained_pairs > 0


def test_the_trained_rows_routes_are_logged_where_they_are_trained():
    """Each prompt's K rows that reach TRL's planner (TRL's queue has dropped the stale ones) are logged: the routes as
    fractions of the window's prompts, their count, and the reward of the rows trained (GRPO and FCO)."""
    metrics = defaultdict(list)
    rows = [
        *[sample(1, [2], reward, route="grpo") for reward in (1.0, 0.0)],
        *[sample(2, [2], 1.0, route="fco") for _ in range(K)],
        *[sample(3, [2], 0.0, route="unresolved") for _ in range(K)],
        *[sample(4, [2], math.nan, route="unscorable") for _ in range(K)],
    ]
    opened = list(MulFeRLQueue(list(map(queued, rows)), metrics, K))
    assert not any(ROUTE in row["metrics"] for row in opened)

    def rate(key):
        numerator, denominator = (sum(values) for values in zip(*metrics[key], strict=True))
        return numerator / denominator

    assert [rate(f"mulferl/route/{r}") for r in ("grpo", "fco", "solved_skip", "unresolved", "unscorable")] == [
        0.25,
        0.25,
        0.0,
        0.25,
        0.25,
    ]
    assert sum(metrics["mulferl/route/prompts_total"]) == 4
    assert rate("mulferl/reward_final") == pytest.approx(3 / 4)  # the GRPO and FCO rows


def test_the_collator_counts_trls_per_sample_metrics_over_the_rows_it_trains():
    """An FCO carrier's negative is forwarded, not trained: TRL's `sample/trained_tokens_mean` and its samples per step
    (forwarded tokens / `mean_seq_len`) are over the positives."""
    positives = [sample(7, [1, 2, 3], 1.0, route="fco"), sample(7, [1, 4], 1.0, route="fco")]
    negatives = [sample(7, [5, 6, 7, 8], 0.0, route="fco"), sample(7, [9], 0.0, route="fco")]
    carriers, _ = fco_carriers(positives, negatives, torch.tensor([[0, 0], [1, 1]]))
    metrics = defaultdict(list)
    (rows,) = list(FixedCountBatcher(MulFeRLQueue(list(map(queued, carriers)), metrics, K), 1, K))
    batch = MulFeRLCollator(DataCollatorForRollout(pad_token_id=0, num_processes=1, metrics=metrics), K)([rows])
    assert metrics["sample/trained_tokens_mean"] == [2.5]
    assert float(batch["global_n_forward_tokens"][0] / batch["mean_seq_len"][0]) == pytest.approx(2.0)
    assert metrics["sample/forwarded_tokens_max"] == [len(PROMPT) + 4]  # the negatives are forwarded


def test_the_rollout_processs_metric_window_goes_as_one_entry_and_waits_for_room():
    """Counts are summed, rates summed as (numerator, denominator), maxima kept (a NaN maximum, over nothing, is not);
    a window that finds TRL's metrics queue full stays and grows, so no count is lost."""
    import queue as queues

    from trl_mulferl.async_mulferl.metrics import MetricWindow

    window, metrics_queue = MetricWindow(), queues.Queue(maxsize=1)
    metrics_queue.put({"rollout/duration_s": 1.0})  # full
    window.add({"mulferl/feedback/requests": 1.0, "mulferl/turn_1/escape_rate": (1.0, 1.0)})
    window.add({"mulferl/feedback/latency_max_s": 2.0})
    assert not window.send(metrics_queue)
    window.add({"mulferl/feedback/requests": 1.0, "mulferl/turn_1/escape_rate": (0.0, 1.0)})
    window.add({"mulferl/feedback/latency_max_s": math.nan})
    metrics_queue.get()
    assert window.send(metrics_queue) and window.send(metrics_queue)  # the second, empty, sends nothing
    assert metrics_queue.get_nowait() == {
        "mulferl/feedback/requests": 2.0,
        "mulferl/turn_1/escape_rate": (1.0, 2.0),
        "mulferl/feedback/latency_max_s": 2.0,
    }
    assert metrics_queue.empty()
