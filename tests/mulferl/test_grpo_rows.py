"""GRPO parity for any reward (decisions 5 and 12) and every entropy term; TRL's advantages over every scorable row,
zeroed off the GRPO route, and no KL there when feedback turns run."""

import inspect

import pytest
import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from tests.helpers.trainer import (
    SCRIPTED_REWARDS,
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    completion_texts,
    logged,
    make_dataset,
    make_trainer,
    marker_reward,
    round_provider,
    scripted_reward,
)
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation


def distinct_characters(completions, **kwargs):
    """TRL's own test reward: always >= 1, so every rollout 'succeeds' at success_threshold=1.0."""
    return [float(len(set(text))) for text in completion_texts(completions)]


def multi_task_dataset(num_prompts=4):
    rows = [{"prompt": make_conversation(f"What is {i} + {i}?"), "task": "ab"[i % 2]} for i in range(num_prompts)]
    return Dataset.from_list(rows)


def task_a_length(completions, task, **kwargs):
    """TRL's multi-task pattern: a reward function returns None for the rows it does not cover."""
    return [float(len(text)) / 10 if t == "a" else None for text, t in zip(completion_texts(completions), task)]


def task_b_distinct(completions, task, **kwargs):
    return [float(len(set(text))) if t == "b" else None for text, t in zip(completion_texts(completions), task)]


def train_both(tmp_path, tiny_tokenizer, reward_funcs, dataset, mulferl_overrides=None, **settings):
    from tests.helpers.tiny import build_tiny_model

    settings = {**TINY_TRAINING, "beta": 0.0, **settings}
    grpo = GRPOTrainer(
        model=build_tiny_model(tiny_tokenizer),
        reward_funcs=reward_funcs,
        args=GRPOConfig(output_dir=str(tmp_path / "grpo"), **settings),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
    )
    grpo.train()
    mulferl_settings = {"max_feedback_turns": 0, "fco_weight": 0.0, **settings, **(mulferl_overrides or {})}
    mulferl = MulFeRLTrainer(
        model=build_tiny_model(tiny_tokenizer),
        reward_funcs=reward_funcs,
        args=MulFeRLConfig(output_dir=str(tmp_path / "mulferl"), **mulferl_settings),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
    )
    mulferl.train()
    return grpo, mulferl


def assert_same_training(grpo, mulferl, tiny_tokenizer):
    from tests.helpers.tiny import build_tiny_model

    start = build_tiny_model(tiny_tokenizer)
    assert logged(mulferl, "loss") == logged(grpo, "loss")
    for (name, p), q, p0 in zip(grpo.model.named_parameters(), mulferl.model.parameters(), start.parameters()):
        assert torch.equal(p, q), name
    assert any(not torch.equal(p, p0) for p, p0 in zip(mulferl.model.parameters(), start.parameters()))


def test_continuous_reward_trains_like_grpo(tmp_path, tiny_tokenizer):
    """Decision 12: every rollout succeeds, but the rewards vary, so the groups are trained (GRPO), not skipped."""
    grpo, mulferl = train_both(tmp_path, tiny_tokenizer, distinct_characters, make_dataset())
    assert_same_training(grpo, mulferl, tiny_tokenizer)
    assert logged(mulferl, "mulferl/route/grpo") == [1.0, 1.0]
    assert logged(mulferl, "mulferl/turn_0/success_rate") == [1.0, 1.0]


def test_continuous_reward_with_feedback_on_trains(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, distinct_characters, model=tiny_model_dir)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    assert logged(trainer, "mulferl/route/grpo") == [1.0, 1.0]
    assert logged(trainer, "mulferl/feedback/requests") == [0.0, 0.0]
    assert all(not torch.equal(p, q) for p, q in zip(trainer.model.parameters(), before))


def test_multi_task_none_rewards_train_like_grpo(tmp_path, tiny_tokenizer):
    """Decision 5: a function's None skips that function (TRL's nansum); the row is not unscorable."""
    grpo, mulferl = train_both(tmp_path, tiny_tokenizer, [task_a_length, task_b_distinct], multi_task_dataset())
    assert_same_training(grpo, mulferl, tiny_tokenizer)
    assert logged(mulferl, "mulferl/route/unscorable") == [0.0, 0.0]
    assert all(share > 0 for share in logged(mulferl, "mulferl/route/grpo"))


def oracle_batch(tmp_path, tiny_tokenizer, tiny_model_dir, **overrides):
    """One step over the 7 scripted prompts of test_trainer's oracle: every route of Algorithm 1 in one batch."""
    dataset = Dataset.from_list(
        [{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in SCRIPTED_REWARDS]
    )
    settings = {**TINY_TRAINING, "per_device_train_batch_size": K * len(SCRIPTED_REWARDS), "max_steps": 1}
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(**{**settings, **overrides}, output_dir=str(tmp_path)),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=round_provider,
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    return trainer, outputs[0]


def final_rewards(batch, tokenizer):
    """The scripted rewards of every row at its group's last turn, in row order (NaN: unscorable)."""
    prompts = tokenizer.batch_decode(batch["prompt_ids"], skip_special_tokens=True)
    kinds = [next(kind for kind in SCRIPTED_REWARDS if f"Question {kind}?" in prompt) for prompt in prompts]
    rewards = [SCRIPTED_REWARDS[kind][-1][row % K] for row, kind in enumerate(kinds)]
    return torch.tensor([float("nan") if reward is None else reward for reward in rewards])


def nanstd(values):
    """Bessel-corrected std over the present values, by hand."""
    present = values[~values.isnan()]
    return ((present - present.mean()) ** 2).sum().div(len(present) - 1).sqrt()


def test_batch_scaled_advantages_use_every_scorable_row(tmp_path, tiny_tokenizer, tiny_model_dir):
    """scale_rewards='batch' (decision 5): TRL's std over every scorable row's final reward, FCO (all 1) and
    unresolved (all 0) rows included, as GRPOTrainer takes it; then the rows outside GRPO are zeroed."""
    trainer, batch = oracle_batch(tmp_path, tiny_tokenizer, tiny_model_dir, scale_rewards="batch", fco_weight=0.0)
    grpo_rows, rewards = batch["mulferl_grpo_rows"].bool(), final_rewards(batch, tiny_tokenizer)
    group_means = rewards.view(-1, K).mean(dim=1).repeat_interleave(K)
    expected = (rewards - group_means) / (nanstd(rewards) + 1e-4)
    assert grpo_rows.sum() == 2 * K and nanstd(rewards) != nanstd(rewards[grpo_rows])
    torch.testing.assert_close(batch["advantages"][grpo_rows], expected[grpo_rows])
    assert batch["advantages"][~grpo_rows].eq(0).all()


def test_normalize_then_sum_uses_every_scorable_row(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer, batch = oracle_batch(
        tmp_path, tiny_tokenizer, tiny_model_dir, multi_objective_aggregation="normalize_then_sum", fco_weight=0.0
    )
    grpo_rows, rewards = batch["mulferl_grpo_rows"].bool(), final_rewards(batch, tiny_tokenizer)
    grouped = rewards.view(-1, K)
    std = torch.stack([nanstd(group) if (~group.isnan()).sum() > 1 else torch.tensor(0.0) for group in grouped])
    per_group = ((grouped - grouped.nanmean(dim=1, keepdim=True)) / (std.unsqueeze(1) + 1e-4)).flatten()
    expected = (per_group - per_group.nanmean()) / (nanstd(per_group) + 1e-4)
    torch.testing.assert_close(batch["advantages"][grpo_rows], expected[grpo_rows])
    assert batch["advantages"][~grpo_rows].eq(0).all()


def test_the_completions_table_shows_the_final_rewards(tmp_path, tiny_tokenizer, tiny_model_dir):
    """TRL's table shows every row's reward at its last turn, and the advantages trained."""
    trainer, batch = oracle_batch(tmp_path, tiny_tokenizer, tiny_model_dir, fco_weight=0.0)
    table = list(trainer._logs["rewards"]["scripted_reward"])
    prompts = [prompt[-1]["content"] for prompt in trainer._logs["prompt"]]
    final = {kind: rewards[-1] for kind, rewards in SCRIPTED_REWARDS.items()}
    for row, (reward, prompt) in enumerate(zip(table, prompts, strict=True)):
        kind = next(kind for kind in SCRIPTED_REWARDS if f"Question {kind}?" == prompt)
        expected = final[kind][row % K]
        assert (expected is None and reward != reward) or reward == expected, kind
    assert list(trainer._logs["advantages"]) == batch["advantages"].tolist()
    # As GRPO's, the reward metrics describe turn 0: 5 of the 7 groups have zero spread there.
    assert logged(trainer, "frac_reward_zero_std") == [pytest.approx(5 / 7)]


def all_fco_batch(tmp_path, tiny_tokenizer, tiny_model_dir, **overrides):
    """Every prompt is routed to FCO (FCO itself off): no row is a GRPO row."""
    settings = {"max_steps": 1, "beta": 0.5, "loss_type": "grpo", "fco_weight": 0.0, **overrides}
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, **settings)
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    assert batch["mulferl_grpo_rows"].eq(0).all()
    trainer.model.train()
    return trainer, dict(batch, ref_per_token_logps=batch["ref_per_token_logps"] - 3.0)


def test_no_kl_off_the_grpo_rows(tmp_path, tiny_tokenizer, tiny_model_dir):
    """A row outside the GRPO route gets no loss (the paper's skip): its KL term is exactly 0, value and gradient."""
    trainer, batch = all_fco_batch(tmp_path, tiny_tokenizer, tiny_model_dir)
    loss, gradients = loss_and_gradients(trainer, batch)
    assert loss.item() == 0.0 and trainer._metrics["train"]["kl"][-1] == 0.0
    assert all(gradient.abs().max() == 0 for gradient in gradients)
    # The same rows routed to GRPO: their KL comes back.
    loss, _ = loss_and_gradients(trainer, dict(batch, mulferl_grpo_rows=torch.ones(4)))
    assert loss.item() > 0.0 and trainer._metrics["train"]["kl"][-1] > 0.0


def loss_and_gradients(trainer, batch):
    trainer.model.zero_grad()
    loss = trainer._compute_loss(trainer.model, batch)
    loss.backward()
    return loss, [p.grad for p in trainer.model.parameters() if p.grad is not None]


def one_mixed_one_constant(completions, **kwargs):
    """Per group of K = 2: group 0 mixed ([1, 0]), group 1 constant ([0, 0], zero advantage)."""
    return [float(i % 4 == 0) for i in range(len(completions))]


@pytest.mark.parametrize(
    "entropy", [{"entropy_coef": 0.1}, {"top_entropy_quantile": 0.5}], ids=["entropy_bonus", "entropy_quantile"]
)
def test_entropy_terms_train_like_grpo(tmp_path, tiny_tokenizer, entropy):
    """The entropy bonus and the top-entropy quantile cover every row's generated tokens, as in GRPOTrainer: rows
    with zero advantage (a constant group, skipped by MulFeRL) stay in both."""
    grpo, mulferl = train_both(tmp_path, tiny_tokenizer, one_mixed_one_constant, make_dataset(), **entropy)
    assert_same_training(grpo, mulferl, tiny_tokenizer)
    assert logged(mulferl, "mulferl/route/unresolved") == [0.5, 0.5]
    assert logged(mulferl, "entropy") == logged(grpo, "entropy")


def test_kl_zeroing_relies_on_trls_order_of_reads():
    """The loss forward sets the reference of rows outside GRPO to the policy's log-probs (KL 0) and weighs the
    replayed rows' advantages, which TRL 1.16 reads from the inputs after that forward, adding `beta * KL`. A TRL that
    reads them earlier must fail here."""
    source = inspect.getsource(GRPOTrainer._compute_loss)
    forward = source.index("per_token_logps, entropies, aux_loss = self._get_per_token_logps_and_entropies(")
    assert forward < source.index('ref_per_token_logps = inputs["ref_per_token_logps"]')
    assert forward < source.index('advantages = inputs["advantages"]')
    assert "per_token_loss = per_token_loss + self.beta * per_token_kl" in source


@pytest.mark.parametrize("loss_type", ["bnpo", "grpo", "dapo"])
def test_grpo_term_normaliser_counts_every_row(tmp_path, tiny_tokenizer, tiny_model_dir, loss_type):
    """Masking non-GRPO rows must not change the normaliser GRPOTrainer uses for the same rows (bnpo: tokens)."""
    trainer, batch = oracle_batch(tmp_path, tiny_tokenizer, tiny_model_dir, loss_type=loss_type, fco_weight=0.0)
    trainer.model.train()
    # Advantages that do not sum to 0 over the GRPO rows, so that the loss depends on its normaliser.
    batch = dict(batch, advantages=batch["advantages"] + 0.7 * batch["mulferl_grpo_rows"])
    plain = {key: value for key, value in batch.items() if not key.startswith("mulferl_")}
    expected = GRPOTrainer._compute_loss(trainer, trainer.model, plain)  # advantages are 0 off the GRPO rows
    assert expected.abs() > 1e-6
    torch.testing.assert_close(trainer._compute_loss(trainer.model, batch), expected, rtol=1e-6, atol=1e-8)
