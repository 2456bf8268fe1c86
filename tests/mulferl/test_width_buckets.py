"""The loss forward in width buckets (decision 14): the rows that carry a feedback prefill are not padded into the
others, the rows without a loss are not forwarded, and the loss, its gradient and every logged metric equal those of
the padded forward (the entropy: over the rows forwarded)."""

import itertools
from collections import defaultdict

import pytest
import torch
from datasets import Dataset
from trl import GRPOTrainer

from tests.helpers.trainer import (
    SCRIPTED_REWARDS,
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    loss_and_gradients,
    round_provider,
    scripted_reward,
)
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation
from trl_mulferl.mulferl.width_buckets import row_lengths, rows_with_a_loss, width_buckets


def positions(prompt_lengths, completion_lengths, buckets) -> int:
    return sum(
        len(rows) * (max(prompt_lengths[row] for row in rows) + max(completion_lengths[row] for row in rows))
        for rows in buckets
    )


def set_partitions(items: list[int]):
    """Every partition of `items` into non-empty blocks."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]
        for index in range(len(partition)):
            yield [*partition[:index], [first, *partition[index]], *partition[index + 1 :]]


@pytest.mark.parametrize("seed", range(20))
def test_buckets_are_the_fewest_whose_padding_is_a_tenth_or_the_cheapest(seed):
    """Against every partition of up to 7 rows of one prompt length (where sorting by completion length loses
    nothing): the fewest buckets whose forwarded positions are within 10% of the tokens, or, when 4 buckets cannot,
    the fewest positions 4 buckets reach."""
    generator = torch.Generator().manual_seed(seed)
    num_rows = int(torch.randint(1, 8, (1,), generator=generator))
    completion_lengths = torch.randint(1, 60, (num_rows,), generator=generator).tolist()
    prompt_lengths = [int(torch.randint(1, 20, (1,), generator=generator))] * num_rows
    buckets = width_buckets(prompt_lengths, completion_lengths)

    assert sorted(row for rows in buckets for row in rows) == list(range(num_rows))
    tokens = sum(prompt_lengths) + sum(completion_lengths)
    best = defaultdict(lambda: float("inf"))  # the fewest positions of each bucket count
    for partition in set_partitions(list(range(num_rows))):
        best[len(partition)] = min(best[len(partition)], positions(prompt_lengths, completion_lengths, partition))
    within = [count for count in sorted(best) if count <= 4 and best[count] <= 1.1 * tokens]
    expected_count = within[0] if within else min(range(1, min(4, num_rows) + 1), key=lambda c: (best[c], c))
    assert len(buckets) == expected_count
    assert positions(prompt_lengths, completion_lengths, buckets) == best[expected_count]


def test_row_lengths_read_the_left_padded_prompt_and_the_right_padded_completion():
    prompt_mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 1]])
    completion_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    assert row_lengths(torch.cat([prompt_mask, completion_mask], dim=1), 5) == ([2, 4, 1], [3, 1, 5])


def test_a_prefill_row_gets_a_bucket_of_its_own():
    prompt_lengths, completion_lengths = [10] * 8, [36, 37, 36, 37, 36, 37, 36, 130]
    assert width_buckets(prompt_lengths, completion_lengths) == [[0, 1, 2, 3, 4, 5, 6], [7]]
    assert width_buckets([10] * 4, [36, 37, 36, 37]) == [[0, 1, 2, 3]]  # 1 padded token in 190: one forward


def three_turn_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, **overrides):
    """The seven scripted prompts of `test_three_turn_oracle_routes_every_branch` (every route, up to two feedback
    turns, so rows of three widths) in one micro-batch, with a KL term."""
    dataset = Dataset.from_list([{"prompt": f"Question {kind}?", "kind": kind} for kind in SCRIPTED_REWARDS])
    settings = {**TINY_TRAINING, "per_device_train_batch_size": K * len(SCRIPTED_REWARDS), "max_steps": 1}
    peft_config = overrides.pop("peft_config", None)
    return MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(**{**settings, **overrides}, output_dir=str(tmp_path), beta=0.04, loss_type="grpo"),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=round_provider,
        peft_config=peft_config,
    )


def loss_forward(trainer, batch, buckets: bool):
    """The loss, gradients, logged metrics and model forwards (with grad, input shape, entropies) of one micro-batch,
    in width buckets or padded."""
    batch = dict(batch, mulferl_width_buckets=torch.full_like(batch["mulferl_width_buckets"], float(buckets)))
    forwards, original = [], GRPOTrainer._get_per_token_logps_and_entropies

    def counted(self, model, input_ids, *args, **kwargs):
        result = original(self, model, input_ids, *args, **kwargs)
        forwards.append((torch.is_grad_enabled(), tuple(input_ids.shape), result[1]))
        return result

    metrics = trainer._metrics["train"] = defaultdict(list)
    trainer.model.train()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GRPOTrainer, "_get_per_token_logps_and_entropies", counted)
        loss, gradients = loss_and_gradients(trainer.model, lambda: trainer._compute_loss(trainer.model, batch))
    return loss, gradients, dict(metrics), forwards


VARIANTS = {
    "fco_after": {},
    "fco_first": {},  # the partner pass of DDP, on one process
    "replay": {"feedback_replay": True},
    "two_iterations": {"num_iterations": 2},  # TRL's old log-probs fill the positions outside a bucket
    "lora": {"lora": True},
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_width_buckets_equal_the_padded_forward(tmp_path, tiny_tokenizer, tiny_model_dir, monkeypatch, variant):
    overrides = dict(VARIANTS[variant])
    if overrides.pop("lora", False):
        from peft import LoraConfig

        overrides["peft_config"] = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])
    trainer = three_turn_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, **overrides)
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    if variant == "fco_first":
        monkeypatch.setattr(MulFeRLTrainer, "_fco_partner_pass", "first")
    if "ref_per_token_logps" in batch:  # a reference apart from the policy, so that the KL is not trivially 0
        batch["ref_per_token_logps"] = batch["ref_per_token_logps"] - 0.5

    bucketed = loss_forward(trainer, batch, buckets=True)
    padded = loss_forward(trainer, batch, buckets=False)

    loss, gradients, metrics, forwards = bucketed
    padded_loss, padded_gradients, padded_metrics, padded_forwards = padded
    assert batch["mulferl_width_buckets"].all()
    trained = rows_with_a_loss(batch)
    assert 0 < len(trained) < batch["prompt_ids"].size(0)  # the solved, unresolved and unscorable rows have none
    with_grad = [shape for grad, shape, _ in forwards if grad]
    padded_with_grad = [shape for grad, shape, _ in padded_forwards if grad]
    num_rows = batch["prompt_ids"].size(0)
    assert [rows for rows, _ in padded_with_grad].count(num_rows) == 1  # the padded loss forward (and FCO partners')
    assert sum(rows for rows, _ in padded_with_grad) - sum(rows for rows, _ in with_grad) == num_rows - len(trained)
    assert sum(rows * width for rows, width in with_grad) < sum(rows * width for rows, width in padded_with_grad)
    torch.testing.assert_close(loss, padded_loss, rtol=1e-5, atol=1e-7)
    assert metrics.keys() == padded_metrics.keys() >= {"kl", "entropy", "clip_ratio/region_mean"}
    for key, values in padded_metrics.items():
        if key != "entropy":
            assert metrics[key] == pytest.approx(values, rel=1e-5, abs=1e-6), key
    # The entropy logged is the forwarded rows' mean.
    mask = (batch["completion_mask"] * batch["tool_mask"]).bool()
    mask[[row for row in range(len(mask)) if row not in trained]] = False
    padded_entropies = next(entropies for grad, shape, entropies in padded_forwards if grad and shape[0] == num_rows)
    assert metrics["entropy"] == [pytest.approx(padded_entropies[mask].mean().item(), rel=1e-5)]
    assert len(gradients) == len(padded_gradients) > 0
    assert sum(g.abs().sum() for g in padded_gradients) > 1e-4
    for gradient, padded_gradient in zip(gradients, padded_gradients, strict=True):
        torch.testing.assert_close(gradient, padded_gradient, rtol=1e-4, atol=1e-6)


def test_a_batch_without_a_prefill_row_is_forwarded_as_grpo_does(tmp_path, tiny_tokenizer, tiny_model_dir):
    """No row holds feedback (every group solved or mixed at turn 0): one forward of the whole micro-batch, TRL's."""
    dataset = Dataset.from_list([{"prompt": make_conversation("Question grpo_turn0?"), "kind": "grpo_turn0"}] * 2)
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(**{**TINY_TRAINING, "max_steps": 1}, output_dir=str(tmp_path)),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=round_provider,
    )
    outputs = capture_generation_outputs(trainer)
    shapes = []
    original = trainer._get_per_token_logps_and_entropies

    def recorded(model, input_ids, *args, **kwargs):
        shapes.append(tuple(input_ids.shape))
        return original(model, input_ids, *args, **kwargs)

    trainer._get_per_token_logps_and_entropies = recorded
    trainer.train()
    batch = outputs[0]
    assert not batch["mulferl_width_buckets"].any()
    width = batch["prompt_ids"].size(1) + batch["completion_ids"].size(1)
    assert shapes[-1] == (batch["prompt_ids"].size(0), width)


def test_set_partitions_counts_the_bell_numbers():
    assert [sum(1 for _ in set_partitions(list(range(n)))) for n in range(6)] == [1, 1, 2, 5, 15, 52]
    assert all(sorted(itertools.chain(*partition)) == [0, 1, 2, 3] for partition in set_partitions([0, 1, 2, 3]))
