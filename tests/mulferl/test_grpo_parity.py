"""Exactly GRPO with feedback off, for any reward (spec decisions 5 and 12): against a real `GRPOTrainer`, the same
weights, the same logged metrics and the same advantages, for every `scale_rewards` and `multi_objective_aggregation`,
with unscorable rows and with `beta > 0`."""

import pytest
import torch
from trl import GRPOConfig, GRPOTrainer

from tests.helpers.trainer import (
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    completion_texts,
    logged,
    make_dataset,
    make_trainer,
    round_provider,
    turn_of,
)
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_generator, sample_fco_pairs


G = 4  # rollouts per prompt here
# Per row of a generation batch of 4 groups of 4: a mixed group, a constant one (skipped by MulFeRL, zero advantage in
# GRPO), a mixed group with one unscorable rollout (every function None: out of its group's mean and std, advantage
# 0) and a group with no scorable rollout at all.
ACCURACY = [1.0, 0.0, 0.5, 0.0] + [1.0] * 4 + [None, 1.0, 0.0, 0.0] + [None] * 4
FORMAT = [0.5, 0.0, 0.0, 0.25] + [0.0] * 4 + [None, 0.5, 0.0, 0.0] + [None] * 4
PARITY_TRAINING = {**TINY_TRAINING, "num_generations": G, "per_device_train_batch_size": 4 * G, "max_steps": 1}
# Logged from the clock, not from training.
TIMING_KEYS = {"train_runtime", "train_samples_per_second", "train_steps_per_second", "step_time"}


# Two mixed groups and two constant ones, all scorable.
MIXED_AND_CONSTANT = [1.0, 0.0, 0.5, 0.0] + [1.0] * 4 + [0.0] * 4 + [1.0, 0.0, 0.0, 0.0]


def accuracy(completions, **kwargs):
    return [ACCURACY[i % len(ACCURACY)] for i in range(len(completions))]


def format_reward(completions, **kwargs):
    return [FORMAT[i % len(FORMAT)] for i in range(len(completions))]


def mixed_and_constant(completions, **kwargs):
    return [MIXED_AND_CONSTANT[i % len(MIXED_AND_CONSTANT)] for i in range(len(completions))]


def train_grpo_and_mulferl(tmp_path, model, reward_funcs, **settings):
    """The same run under `GRPOTrainer` and under `MulFeRLTrainer` with feedback off; returns both trainers and the
    generation outputs (advantages) of each step."""
    settings = {**PARITY_TRAINING, **settings}
    runs = []
    for name, trainer_class, config_class, extra in (
        ("grpo", GRPOTrainer, GRPOConfig, {}),
        ("mulferl", MulFeRLTrainer, MulFeRLConfig, {"max_feedback_turns": 0, "fco_weight": 0.0}),
    ):
        trainer = trainer_class(
            model=model,
            reward_funcs=reward_funcs,
            args=config_class(output_dir=str(tmp_path / name), **settings, **extra),
            train_dataset=make_dataset(),
        )
        outputs = capture_generation_outputs(trainer)
        trainer.train()
        runs.append((trainer, outputs))
    return runs


def assert_trains_like_grpo(grpo_run, mulferl_run):
    (grpo, grpo_outputs), (mulferl, mulferl_outputs) = grpo_run, mulferl_run
    for (name, p), q in zip(grpo.model.named_parameters(), mulferl.model.parameters(), strict=True):
        assert torch.equal(p, q), name
    for grpo_output, mulferl_output in zip(grpo_outputs, mulferl_outputs, strict=True):
        assert torch.equal(mulferl_output["advantages"], grpo_output["advantages"])
    assert list(mulferl._logs["advantages"]) == list(grpo._logs["advantages"])  # the completions table
    grpo_logs, mulferl_logs = grpo.state.log_history, mulferl.state.log_history
    assert len(mulferl_logs) == len(grpo_logs)
    for step, (grpo_entry, mulferl_entry) in enumerate(zip(grpo_logs, mulferl_logs, strict=True)):
        for key in grpo_entry.keys() - TIMING_KEYS:
            assert mulferl_entry[key] == grpo_entry[key], (step, key)


@pytest.mark.parametrize("aggregation", ["sum_then_normalize", "normalize_then_sum"])
@pytest.mark.parametrize("scale_rewards", ["group", "batch", "none"])
def test_feedback_off_trains_and_logs_like_grpo(tmp_path, tiny_model_dir, scale_rewards, aggregation):
    grpo_run, mulferl_run = train_grpo_and_mulferl(
        tmp_path,
        tiny_model_dir,
        [accuracy, format_reward],
        scale_rewards=scale_rewards,
        multi_objective_aggregation=aggregation,
        beta=0.0,
    )
    assert_trains_like_grpo(grpo_run, mulferl_run)
    mulferl = mulferl_run[0]
    # Routed on its scorable rows, the group with one unscorable rollout is trained; only the group with none is not.
    assert logged(mulferl, "mulferl/route/grpo") == [0.5]
    assert logged(mulferl, "mulferl/route/solved_skip") == [0.25]
    assert logged(mulferl, "mulferl/route/unscorable") == [0.25]


@pytest.mark.slow  # 2 steps of 2 trainers, each with its reference model
def test_feedback_off_with_kl_trains_and_logs_like_grpo(tmp_path, tiny_model_dir):
    """beta > 0: GRPO's KL is on every row, those of constant groups too, so with feedback off it is MulFeRL's as well
    (weights and the logged `kl`, which skipped rows with zero KL would dilute)."""
    grpo_run, mulferl_run = train_grpo_and_mulferl(
        tmp_path, tiny_model_dir, mixed_and_constant, beta=0.5, loss_type="grpo", max_steps=2
    )
    assert_trains_like_grpo(grpo_run, mulferl_run)
    assert logged(grpo_run[0], "kl")[-1] > 0  # the second step's policy is not the reference


def test_an_unscorable_rollout_is_left_out_of_its_group(tmp_path, tiny_model_dir):
    """Decision 5 (TRL 1.16's rule): rewards (None, 1, 0, 0) give advantages (0, 1.155, -0.577, -0.577), by hand,
    and the group is trained; a group with no scorable rollout is not."""
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=accuracy,
        args=MulFeRLConfig(output_dir=str(tmp_path), max_feedback_turns=0, fco_weight=0.0, **PARITY_TRAINING),
        train_dataset=make_dataset(),
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    scored = torch.tensor([1.0, 0.0, 0.0])
    std = ((scored - scored.mean()) ** 2).sum().div(2).sqrt()  # Bessel-corrected, over the 3 scorable rows
    expected = [0.0] + ((scored - scored.mean()) / (std + 1e-4)).tolist()
    assert expected[1:] == pytest.approx([1.1547, -0.5774, -0.5774], rel=1e-3)
    assert outputs[0]["advantages"][2 * G : 3 * G].tolist() == pytest.approx(expected, rel=1e-6)
    assert outputs[0]["mulferl_grpo_rows"].tolist() == [1.0] * G + [0.0] * G + [1.0] * G + [0.0] * G
    assert logged(trainer, "mulferl/reward_final") == [pytest.approx((1.5 + 1.0) / 7)]  # scorable trained rows


def first_rollout_unscorable(completions, **kwargs):
    """Per group of K = 2: (None, 0) at turn 0, (None, 1) after feedback."""
    per_turn = [[None, 0.0], [None, 1.0]]
    return [per_turn[turn_of(text)][i % K] for i, text in enumerate(completion_texts(completions))]


@pytest.mark.parametrize("pairing", ["permutation", "all"])
def test_an_unscorable_rollout_is_never_an_fco_member(tmp_path, tiny_tokenizer, tiny_model_dir, pairing):
    """Decision 5 with feedback on: (None, 0) is a failed group, so it gets feedback; (None, 1) after it is solved,
    so the prompt goes to FCO, whose pairs leave out the unscorable rollout on either side (not counted as dropped)."""
    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        first_rollout_unscorable,
        provider=round_provider,
        model=tiny_model_dir,
        max_steps=1,
        fco_weight=1.0,
        fco_pairing=pairing,
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    assert logged(trainer, "mulferl/feedback/requests") == [2.0]
    assert logged(trainer, "mulferl/route/fco") == [1.0]
    # Only the pairs (positive 1, negative 1) are left: every pair of "all"; the permutation's where pi(1) = 1.
    expected = []
    for group in range(2):
        pairs = sample_fco_pairs(K, pairing, make_generator(trainer.args.seed, 0, group))
        kept = [positive == 1 and negative == 1 for positive, negative in pairs.tolist()]
        expected += [0.0, float(sum(kept))]
    assert outputs[0]["mulferl_fco_pairs"].tolist() == expected
    assert logged(trainer, "mulferl/fco/pairs") == [sum(expected)]
    assert logged(trainer, "mulferl/fco/dropped_pairs") == [0.0]
