import pytest
import torch
from datasets import Dataset

from tests.helpers.trainer import (
    MARKER,
    SCRIPTED_REWARDS,
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    completion_texts,
    count_generation_calls,
    logged,
    loss_and_gradients,
    make_dataset,
    make_trainer,
    marker_provider,
    marker_reward,
    round_provider,
    scripted_reward,
    turn_of,
)
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation


def continuation_marker_reward(completions, **kwargs):
    """Looks only after the feedback block, so it never sees the injected marker."""
    return [float(MARKER in text.split("</feedback>", 1)[-1]) for text in completion_texts(completions)]


def mixed_reward(completions, **kwargs):
    return [float(i % K == 0) for i in range(len(completions))]


def test_feedback_marker_routes_every_prompt_to_fco(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir)
    calls = count_generation_calls(trainer)
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0, 1.0]
    assert logged(trainer, "mulferl/route/grpo") == [0.0, 0.0]
    assert logged(trainer, "mulferl/turn_0/failed_groups") == [2.0, 2.0]
    assert logged(trainer, "mulferl/turn_1/escape_rate") == [1.0, 1.0]
    assert logged(trainer, "mulferl/feedback/requests") == [2.0, 2.0]
    assert logged(trainer, "mulferl/feedback/errors") == [0.0, 0.0]
    assert logged(trainer, "mulferl/reward_final") == [1.0, 1.0]
    assert logged(trainer, "reward") == [0.0, 0.0]  # TRL's reward describes turn 0
    # One call for turn 0 and one for turn 1, with all 4 rows regenerated together.
    assert calls == [(0, 4), (0, 4), (1, 4), (1, 4)]
    # The completions table shows the turn each row was trained on and the feedback it saw.
    assert list(trainer._logs["extra"]["turn"]) == [1] * 4  # the last generation batch
    assert set(trainer._logs["extra"]["feedback"]) == {marker_provider("", [], [])}


def test_mixed_reward_routes_to_grpo_and_trains(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, mixed_reward, model=tiny_model_dir)
    calls = count_generation_calls(trainer)
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    assert logged(trainer, "mulferl/route/grpo") == [1.0, 1.0]
    assert logged(trainer, "mulferl/feedback/requests") == [0.0, 0.0]
    assert len(calls) == 2  # no feedback turn needed
    changed = [name for name, p in trainer.model.named_parameters() if not torch.equal(p, before[name])]
    assert changed


def zero_reward(completions, **kwargs):
    return [0.0] * len(completions)


@pytest.mark.parametrize("reward", [mixed_reward, zero_reward])
def test_no_metric_is_logged_as_none(tmp_path, tiny_tokenizer, tiny_model_dir, reward):
    """Mixed groups: no FCO pair, no group regenerated, no feedback request; failing ones: no row trained. TRL logs a
    window of only NaN as None: a metric without a value this step is not logged at all."""
    trainer = make_trainer(tmp_path, tiny_tokenizer, reward, model=tiny_model_dir, max_feedback_turns=1)
    trainer.train()
    history = trainer.state.log_history
    assert [(entry["step"], key) for entry in history for key, value in entry.items() if value is None] == []
    assert logged(trainer, "mulferl/fco/loss") == logged(trainer, "mulferl/fco/score_gap") == []
    assert logged(trainer, "mulferl/fco/pairs") == [0.0, 0.0]
    if reward is mixed_reward:
        assert logged(trainer, "mulferl/turn_1/escape_rate") == logged(trainer, "mulferl/feedback/latency_s") == []
        assert logged(trainer, "mulferl/turn_1/reached_groups") == [0.0, 0.0]
        assert logged(trainer, "mulferl/reward_final") == [0.5, 0.5]
    else:
        assert logged(trainer, "mulferl/reward_final") == []
        assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]
        assert logged(trainer, "mulferl/turn_1/escape_rate") == [0.0, 0.0]


def test_reward_ignoring_the_prefix_sees_no_marker(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, continuation_marker_reward, model=tiny_model_dir)
    calls = count_generation_calls(trainer)
    trainer.train()
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]
    assert logged(trainer, "mulferl/turn_2/failed_groups") == [2.0, 2.0]
    assert len(calls) == 6  # 1 + 2 feedback turns per step


@pytest.mark.parametrize("provider", [lambda *a, **k: None, lambda *a, **k: 1 / 0])
def test_failing_provider_leaves_groups_unresolved(tmp_path, tiny_tokenizer, provider, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, provider=provider)
    calls = count_generation_calls(trainer)
    trainer.train()
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]
    assert logged(trainer, "mulferl/feedback/errors") == [2.0, 2.0]
    assert logged(trainer, "mulferl/turn_1/reached_groups") == [0.0, 0.0]  # failed, but without feedback
    assert len(calls) == 2


LOSS_TYPES = ["grpo", "bnpo", "dr_grpo", "dapo", "cispo", "sapo", "luspo", "vespo"]


@pytest.mark.parametrize("loss_type", LOSS_TYPES)
def test_parity_with_grpo_trainer_without_feedback(tmp_path, tiny_tokenizer, loss_type):
    """max_feedback_turns=0, fco_weight=0, beta=0: the same losses and weights as GRPOTrainer, same seed and data."""
    from trl import GRPOConfig, GRPOTrainer

    from tests.helpers.tiny import build_tiny_model

    settings = {**TINY_TRAINING, "loss_type": loss_type, "beta": 0.0}
    grpo = GRPOTrainer(
        model=build_tiny_model(tiny_tokenizer),
        reward_funcs=mixed_reward,
        args=GRPOConfig(output_dir=str(tmp_path / "grpo"), **settings),
        train_dataset=make_dataset(),
        processing_class=tiny_tokenizer,
    )
    grpo.train()
    mulferl = MulFeRLTrainer(
        model=build_tiny_model(tiny_tokenizer),
        reward_funcs=mixed_reward,
        args=MulFeRLConfig(output_dir=str(tmp_path / "mulferl"), max_feedback_turns=0, fco_weight=0.0, **settings),
        train_dataset=make_dataset(),
        processing_class=tiny_tokenizer,
    )
    mulferl.train()
    assert logged(mulferl, "loss") == logged(grpo, "loss")
    for (name, p), q in zip(grpo.model.named_parameters(), mulferl.model.parameters(), strict=True):
        assert torch.equal(p, q), name


def test_injected_span_is_masked_context(tmp_path, tiny_tokenizer, tiny_model_dir):
    from trl_mulferl import feedback_prefill, sanitize_feedback

    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1, beta=0.04)
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    loss_mask = batch["completion_mask"] * batch["tool_mask"]
    expected = feedback_prefill(sanitize_feedback(marker_provider("", [], [])))
    for ids, tool_mask in zip(batch["completion_ids"], batch["tool_mask"], strict=True):
        injected = ids[: int((tool_mask == 0).sum())]
        assert tool_mask[: len(injected)].eq(0).all()  # the prefill is the head of the completion
        assert tiny_tokenizer.decode(injected) == expected
    assert batch["num_items_in_batch"].item() == loss_mask.sum().item()

    # Arbitrary reference log-probs at injected positions change nothing; at generated positions they do.
    trainer.model.train()
    reference_loss = trainer._compute_loss(trainer.model, batch).item()
    garbage = dict(batch, ref_per_token_logps=batch["ref_per_token_logps"].masked_fill(batch["tool_mask"] == 0, 7.0))
    assert trainer._compute_loss(trainer.model, garbage).item() == reference_loss


def test_kl_and_advantage_are_zero_on_rows_not_routed_to_grpo(tmp_path, tiny_tokenizer, tiny_model_dir):
    """Every prompt is routed to FCO here (FCO itself off), so with beta > 0 the GRPO term must be exactly 0."""
    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        marker_reward,
        model=tiny_model_dir,
        max_steps=1,
        beta=0.5,
        loss_type="grpo",
        fco_weight=0.0,
    )
    outputs = capture_generation_outputs(trainer)
    trainer.train()
    batch = outputs[0]
    assert batch["mulferl_grpo_rows"].tolist() == [0.0] * 4
    assert batch["advantages"].abs().sum().item() == 0.0
    trainer.model.train()
    shifted = dict(batch, ref_per_token_logps=batch["ref_per_token_logps"] - 3.0)
    assert trainer._compute_loss(trainer.model, shifted).item() == 0.0
    # The same rows routed to GRPO get the KL back.
    grpo_rows = dict(shifted, mulferl_grpo_rows=torch.ones(4))
    assert trainer._compute_loss(trainer.model, grpo_rows).item() > 0.0


def test_start_up_validation(tmp_path, tiny_tokenizer):
    from tests.helpers.tiny import build_tiny_model

    settings = {"output_dir": str(tmp_path), "per_device_train_batch_size": 4, "num_generations": K, "use_cpu": True}
    args = MulFeRLConfig(**settings, fco_weight=0.0)
    model = build_tiny_model(tiny_tokenizer)
    common = {"model": model, "args": args, "processing_class": tiny_tokenizer}
    with pytest.raises(ValueError, match="sync_ref_model=True moves the reference"):
        MulFeRLTrainer(
            model=model,
            args=MulFeRLConfig(**settings, sync_ref_model=True),
            processing_class=tiny_tokenizer,
            reward_funcs=marker_reward,
            feedback_provider=marker_provider,
        )
    with pytest.raises(ValueError, match="needs a reference policy"):  # FCO on, and a model with no name or path
        MulFeRLTrainer(
            model=model,
            args=MulFeRLConfig(**settings),
            processing_class=tiny_tokenizer,
            reward_funcs=marker_reward,
            feedback_provider=marker_provider,
        )
    with pytest.raises(ValueError, match="feedback_provider"):
        MulFeRLTrainer(reward_funcs=marker_reward, train_dataset=make_dataset(), **common)
    with pytest.raises(ValueError, match="rollout_func"):
        MulFeRLTrainer(
            reward_funcs=marker_reward, rollout_func=lambda p, t: {}, feedback_provider=marker_provider, **common
        )

    def needs_answer(completions, answer, **kwargs):
        return [0.0] * len(completions)

    with pytest.raises(ValueError, match="'answer' column"):
        MulFeRLTrainer(
            reward_funcs=needs_answer, train_dataset=make_dataset(), feedback_provider=marker_provider, **common
        )


def test_three_turn_oracle_routes_every_branch(tmp_path, tiny_tokenizer, tiny_model_dir):
    """Scripted rewards send the 7 prompts of one batch down every branch of Algorithm 1 over 3 turns; the GRPO term
    equals GRPOTrainer's loss computed on the GRPO-routed rows alone (so non-GRPO rows carry no advantage or KL)."""
    from trl import GRPOTrainer

    dataset = Dataset.from_list(
        [{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in SCRIPTED_REWARDS]
    )
    num_rows = K * len(SCRIPTED_REWARDS)
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(
            **{**TINY_TRAINING, "per_device_train_batch_size": num_rows, "max_steps": 1},
            output_dir=str(tmp_path),
            beta=0.04,
            loss_type="grpo",
        ),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=round_provider,
    )
    calls = count_generation_calls(trainer)
    outputs = capture_generation_outputs(trainer)
    trainer.train()

    assert [rows for _, rows in calls] == [14, 8, 4]  # all groups, then the 4 failed, then the 2 still failing
    route_fractions = {name: logged(trainer, f"mulferl/route/{name}")[0] * 7 for name in ("grpo", "fco")}
    assert route_fractions == {"grpo": 2.0, "fco": 2.0}
    for name in ("solved_skip", "unresolved", "unscorable"):
        assert logged(trainer, f"mulferl/route/{name}")[0] * 7 == pytest.approx(1.0)
    assert logged(trainer, "mulferl/turn_0/failed_groups") == [4.0]
    assert logged(trainer, "mulferl/turn_1/escape_rate") == [0.5]
    assert logged(trainer, "mulferl/turn_2/escape_rate") == [0.5]
    assert logged(trainer, "mulferl/turn_1/reached_groups") == [4.0]
    assert logged(trainer, "mulferl/turn_2/reached_groups") == [2.0]
    assert logged(trainer, "mulferl/feedback/requests") == [6.0]

    batch = outputs[0]
    texts = tiny_tokenizer.batch_decode(batch["completion_ids"], skip_special_tokens=True)
    expected_turn = {"grpo_turn1": 1, "fco_turn1": 1, "fco_turn2": 2, "unresolved": 2}
    grpo_rows = batch["mulferl_grpo_rows"].bool()
    prompt_texts = tiny_tokenizer.batch_decode(batch["prompt_ids"], skip_special_tokens=True)
    partner_texts = tiny_tokenizer.batch_decode(batch["mulferl_partner_completion_ids"], skip_special_tokens=True)
    rows = zip(texts, partner_texts, prompt_texts, grpo_rows, batch["advantages"], strict=True)
    for text, partner_text, prompt, is_grpo, advantage in rows:
        kind = next(kind for kind in SCRIPTED_REWARDS if f"Question {kind}?" in prompt)
        assert turn_of(text) == expected_turn.get(kind, 0)  # each row sits at its group's last turn
        if kind.startswith("fco"):  # the FCO negative is the row one turn before the solved one, not turn 0
            assert turn_of(partner_text) == expected_turn[kind] - 1
        assert bool(is_grpo) == kind.startswith("grpo")
        assert (advantage != 0) == kind.startswith("grpo")

    # A reference that differs from the policy, so that the KL of every row is non-zero unless it is masked.
    batch = dict(batch, ref_per_token_logps=batch["ref_per_token_logps"] - 0.5)
    subset = {
        key: value[grpo_rows] if isinstance(value, torch.Tensor) and value.dim() > 0 else value
        for key, value in batch.items()
        if key != "mulferl_grpo_rows"
    }
    trainer.model.train()
    # The GRPO term: the batch without its FCO keys (the FCO term has tests of its own).
    grpo_batch = {key: value for key, value in batch.items() if not key.startswith(("mulferl_fco", "mulferl_partner"))}
    loss, gradients = loss_and_gradients(trainer.model, lambda: trainer._compute_loss(trainer.model, grpo_batch))
    oracle, oracle_gradients = loss_and_gradients(
        trainer.model,
        lambda: GRPOTrainer._compute_loss(trainer, trainer.model, subset) * grpo_rows.sum() / num_rows,
    )
    assert oracle.abs() > 1e-4 and gradients
    torch.testing.assert_close(loss, oracle, rtol=1e-6, atol=1e-8)
    for gradient, oracle_gradient in zip(gradients, oracle_gradients, strict=True):
        torch.testing.assert_close(gradient, oracle_gradient, rtol=1e-5, atol=1e-7)


def test_evaluation_is_plain_grpo(tmp_path, tiny_tokenizer, tiny_model_dir):
    """`eval_strategy` evaluates like GRPOTrainer: one generation per prompt group, no feedback turn."""
    requests = []

    def counting_provider(prompt, completions, rewards, **columns):
        requests.append(prompt)
        return marker_provider(prompt, completions, rewards)

    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        marker_reward,
        model=tiny_model_dir,
        provider=counting_provider,
        max_steps=1,
        eval_strategy="steps",
        eval_steps=1,
        per_device_eval_batch_size=8,
        eval_dataset=make_dataset(),
    )
    calls = count_generation_calls(trainer)
    trainer.train()
    assert len(requests) == 2  # the 2 failed training groups only
    assert len(calls) == 3  # training: turn 0 and turn 1; evaluation of all 4 prompts: a single call
    assert logged(trainer, "eval_reward") == [0.0]  # the marker only ever comes from feedback
    assert not [key for entry in trainer.state.log_history for key in entry if key.startswith("eval_mulferl")]


def test_model_card_names_the_method(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, model=tiny_model_dir, max_steps=1)
    trainer.create_model_card(model_name="tiny-mulferl")
    card = (tmp_path / "README.md").read_text()
    assert "MulFeRL: Enhancing Reinforcement Learning with Verbal Feedback in a Multi-turn Loop" in card
    assert "li2026mulferl" in card and "- mulferl" in card
