"""`feedback_replay`: the rows of a prompt trained at a feedback turn are trained without their feedback, with
Critique-GRPO's policy shaping as their off-policy weight."""

import math

import pytest
import torch
from datasets import Dataset

from tests.helpers.trainer import (
    MARKER,
    capture_generation_outputs,
    completion_texts,
    logged,
    make_dataset,
    make_trainer,
    marker_provider,
    marker_reward,
)
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, feedback_prefill, make_conversation
from trl_mulferl.core.losses import policy_shaping_weights
from trl_mulferl.core.routing import union_advantages
from trl_mulferl.feedback.step import without_prefill


def test_policy_shaping_weights_give_the_shaping_gradient():
    logps = torch.tensor([-0.01, -0.7, -2.3, -9.0], dtype=torch.float64, requires_grad=True)
    gamma = 0.1
    weights = policy_shaping_weights(logps, gamma)
    assert not weights.requires_grad
    # A loss linear in the weighted ratio w * exp(l - l_old), at ratio 1, against f(p) = p / (p + gamma) written out.
    (ratio_gradient,) = torch.autograd.grad((weights * torch.exp(logps - logps.detach())).sum(), logps)
    probs = [math.exp(value) for value in logps.tolist()]
    expected = [gamma * p / (p + gamma) ** 2 for p in probs]  # d/dl of e^l / (e^l + gamma)
    assert ratio_gradient.tolist() == pytest.approx(expected, rel=1e-12)
    (direct,) = torch.autograd.grad((logps.exp() / (logps.exp() + gamma)).sum(), logps)
    assert torch.allclose(ratio_gradient, direct)


def test_union_advantages_against_the_union_by_hand():
    turn0 = torch.tensor([[0.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0]])
    trained = torch.tensor([[1.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    for group in range(2):
        union = turn0[group].tolist() + trained[group].tolist()
        mean = sum(union) / 8
        std = math.sqrt(sum((r - mean) ** 2 for r in union) / 7)
        expected = [(r - mean) / (std + 1e-4) for r in trained[group].tolist()]
        assert union_advantages(turn0, trained, scale=True)[group].tolist() == pytest.approx(expected, rel=1e-6)
        unscaled = [r - mean for r in trained[group].tolist()]
        assert union_advantages(turn0, trained, scale=False)[group].tolist() == pytest.approx(unscaled, rel=1e-6)
    # An unscorable row (NaN) is left out of the baseline.
    with_nan = union_advantages(torch.tensor([[0.0, float("nan")]]), torch.tensor([[1.0, 0.0]]), scale=False)
    assert with_nan[0].tolist() == pytest.approx([2 / 3, -1 / 3])


def test_without_prefill_puts_the_empty_slot_in_place_of_the_feedback():
    ids, mask = without_prefill([7, 8, 9, 1, 2], [0, 0, 0, 1, 1], 3, [5, 6])
    assert (ids, mask) == ([5, 6, 1, 2], [0, 0, 1, 1])


def marker_mixed_reward(completions, **kwargs):
    """0 at turn 0; after the marker feedback, the even rows solve: every group goes to GRPO at turn 1."""
    return [float(MARKER in text and i % 2 == 0) for i, text in enumerate(completion_texts(completions))]


@pytest.mark.parametrize("reward", [marker_reward, marker_mixed_reward], ids=["fco", "grpo"])
def test_replay_trains_the_feedback_turn_without_the_feedback(tmp_path, tiny_tokenizer, tiny_model_dir, reward):
    batches = {}
    for replay in (False, True):
        trainer = make_trainer(
            tmp_path / str(replay), tiny_tokenizer, reward, model=tiny_model_dir, max_steps=1, feedback_replay=replay
        )
        outputs = capture_generation_outputs(trainer)
        trainer.train()
        batches[replay] = outputs[0]
    plain, replayed = batches[False], batches[True]
    slot = tiny_tokenizer(feedback_prefill(""), add_special_tokens=False)["input_ids"]
    assert replayed["mulferl_replayed"].tolist() == [1.0] * 4
    assert logged(trainer, "mulferl/replayed_rows") == [4.0]
    for row in range(4):
        injected = int((plain["tool_mask"][row] == 0).sum())
        continuation = plain["completion_ids"][row][injected:][plain["completion_mask"][row][injected:].bool()]
        length = int(replayed["completion_mask"][row].sum())
        assert replayed["completion_ids"][row][:length].tolist() == slot + continuation.tolist()
        assert (
            replayed["tool_mask"][row][: len(slot)].eq(0).all() and replayed["tool_mask"][row][len(slot) :].eq(1).all()
        )
        assert torch.equal(replayed["prompt_ids"][row], plain["prompt_ids"][row])
    # Over the union with turn 0's rewards (0, 0): (r - mean) / (std + 1e-4), by hand.
    if reward is marker_reward:  # turn 1: (1, 1); union (0, 0, 1, 1): mean 0.5, std sqrt(1/3)
        expected = [0.5 / (math.sqrt(1 / 3) + 1e-4)] * 4
    else:  # turn 1: (1, 0); union (0, 0, 1, 0): mean 0.25, std 0.5
        expected = [0.75 / 0.5001, -0.25 / 0.5001] * 2
    assert replayed["advantages"].tolist() == pytest.approx(expected, rel=1e-6)
    assert replayed["mulferl_grpo_rows"].tolist() == [1.0] * 4  # an FCO prompt's replayed rows are GRPO rows too
    assert list(trainer._logs["advantages"]) == pytest.approx(expected, rel=1e-6)  # the completions table's
    if reward is marker_reward:  # the FCO negatives, turn 0's rows, had no feedback to remove
        for key in ("completion_ids", "score_mask"):
            assert torch.equal(replayed[f"mulferl_partner_{key}"], plain[f"mulferl_partner_{key}"])


@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_replay_gradient_is_the_shaped_grpo_gradient(tmp_path, tiny_tokenizer, tiny_model_dir, beta):
    """One micro-batch of replayed GRPO rows: the trainer's gradient equals that of
    mean_i mean_t (-A_i f(p_it) + beta KL_it), by hand: the shaping weighs the policy term only, the KL keeps the plain
    log-probs."""
    gamma = 0.1
    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        marker_mixed_reward,
        model=tiny_model_dir,
        max_steps=1,
        feedback_replay=True,
        fco_weight=0.0,
        beta=beta,
        loss_type="grpo",
        use_bias_correction_kl=False,  # the recipes' value
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    assert batch["mulferl_grpo_rows"].tolist() == [1.0] * 4 and batch["advantages"].abs().sum() > 0
    if beta:  # a reference away from the policy, so that the KL has a gradient
        batch = dict(batch, ref_per_token_logps=batch["ref_per_token_logps"] - 0.5)
    model = trainer.model
    model.train()

    def gradient(loss):
        model.zero_grad()
        loss.backward()
        return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])

    trainer_gradient = gradient(trainer._compute_loss(model, batch))
    input_ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    attention_mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    width = batch["completion_ids"].size(1)
    logits = model(input_ids=input_ids, attention_mask=attention_mask).logits[:, -width - 1 : -1]
    logps = (
        (logits / trainer.temperature).log_softmax(-1).gather(-1, batch["completion_ids"].unsqueeze(-1)).squeeze(-1)
    )
    mask = batch["completion_mask"] * batch["tool_mask"]
    shaped = logps.exp() / (logps.exp() + gamma)
    per_token = -batch["advantages"].unsqueeze(1) * shaped
    if beta:
        log_ratio = batch["ref_per_token_logps"] - logps
        per_token = per_token + beta * (log_ratio.exp() - log_ratio - 1)
    per_row = (per_token * mask).sum(1) / mask.sum(1)
    expected = gradient(per_row.mean())
    assert torch.allclose(trainer_gradient, expected, atol=1e-6, rtol=1e-4)
    # The plain ratio instead (shaping off) is another gradient.
    trainer.args.feedback_replay_shaping = None
    assert not torch.allclose(gradient(trainer._compute_loss(model, batch)), expected, atol=1e-6, rtol=1e-4)


def test_replay_config_errors():
    with pytest.raises(ValueError, match="feedback_injection='structured'"):
        MulFeRLConfig(
            output_dir="out",
            feedback_replay=True,
            feedback_injection="plain",
            report_to="none",
            use_cpu=True,
            bf16=False,
        )
    with pytest.raises(ValueError, match="scale_rewards='group' or 'none'"):
        MulFeRLConfig(output_dir="out", feedback_replay=True, scale_rewards="batch", report_to="none", use_cpu=True)
    with pytest.raises(ValueError, match="feedback_replay_shaping must be > 0"):
        MulFeRLConfig(output_dir="out", feedback_replay_shaping=0.0, report_to="none", use_cpu=True, bf16=False)
    with pytest.raises(ValueError, match="vllm_importance_sampling_correction=False"):
        MulFeRLConfig(
            output_dir="out", feedback_replay=True, use_vllm=True, report_to="none", use_cpu=True, bf16=False
        )


def test_replay_refuses_tools(tmp_path, tiny_tokenizer, tiny_model_dir):
    def multiply(a: int, b: int) -> int:
        """Multiply two integers.

        Args:
            a: The first integer.
            b: The second integer.
        """
        return a * b

    with pytest.raises(ValueError, match="feedback_replay does not support tools"):
        MulFeRLTrainer(
            model=tiny_model_dir,
            reward_funcs=marker_reward,
            args=MulFeRLConfig(output_dir=str(tmp_path), feedback_replay=True, report_to="none", use_cpu=True),
            train_dataset=make_dataset(),
            processing_class=tiny_tokenizer,
            feedback_provider=marker_provider,
            tools=[multiply],
        )


def test_replay_on_every_branch_of_three_turns(tmp_path, tiny_tokenizer, tiny_model_dir):
    """The scripted oracle of Algorithm 1's branches: exactly the prompts trained at a feedback turn are replayed,
    and an FCO negative from turn 1 loses its feedback too; unresolved rows keep theirs (they train nothing)."""
    from tests.helpers.trainer import SCRIPTED_REWARDS, TINY_TRAINING, round_provider, scripted_reward, turn_of

    kinds = list(SCRIPTED_REWARDS)
    dataset = Dataset.from_list([{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in kinds])
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(
            **{**TINY_TRAINING, "per_device_train_batch_size": 2 * len(kinds), "max_steps": 1},
            output_dir=str(tmp_path),
            feedback_replay=True,
        ),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=round_provider,
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    slot = feedback_prefill("")
    decode = tiny_tokenizer.decode
    for row in range(batch["prompt_ids"].size(0)):
        kind = next(kind for kind in kinds if f"Question {kind}?" in decode(batch["prompt_ids"][row]))
        text = decode(batch["completion_ids"][row][batch["completion_mask"][row].bool()])
        replayed = kind in ("grpo_turn1", "fco_turn1", "fco_turn2")
        assert batch["mulferl_replayed"][row].item() == float(replayed)
        if replayed:
            assert text.startswith(slot) and turn_of(text) == 0
        if kind == "unresolved":
            assert turn_of(text) == 2
        if kind == "fco_turn2":
            partner = batch["mulferl_partner_completion_ids"][row][
                batch["mulferl_partner_completion_mask"][row].bool()
            ]
            assert decode(partner).startswith(slot) and turn_of(decode(partner)) == 0
