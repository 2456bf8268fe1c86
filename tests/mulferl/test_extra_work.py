"""MulFeRL's work beyond GRPO's is the regeneration itself: reward functions see each row once per turn in which it was
generated (and what they log describes the final rows), the reference scores only the rows whose loss uses it, and
only FCO rows carry a partner sequence."""

import pytest
import torch
from datasets import Dataset

from tests.helpers.trainer import (
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    completion_texts,
    logged,
    round_provider,
    turn_of,
)
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation


# Per prompt kind, the rewards of its K rollouts at each turn it reaches.
SCRIPTS = {
    "mixed": [[1.0, 0.0]],  # GRPO at turn 0: never regenerated
    "fixed_at_1": [[0.0, 0.0], [1.0, 0.0]],  # regenerated once
    "fco_at_1": [[0.0, 0.0], [1.0, 1.0]],  # regenerated once, then FCO
    "unresolved": [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],  # regenerated twice
}


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory, tiny_tokenizer, tiny_model_dir):
    """One step of 4 prompts (K rows each) whose groups end at turns 0, 1, 1 and 2; every reward call recorded."""
    calls = []

    def scripted_reward(completions, kind, log_extra, log_metric, **kwargs):
        turns = [turn_of(text) for text in completion_texts(completions)]
        calls.append(list(zip(kind, turns, strict=True)))
        log_extra("scored_turn", turns)
        log_metric("rows_per_call", float(len(completions)))
        return [SCRIPTS[kind[i]][turns[i]][i % K] for i in range(len(completions))]

    dataset = Dataset.from_list([{"prompt": make_conversation(f"Question {kind}?"), "kind": kind} for kind in SCRIPTS])
    settings = {**TINY_TRAINING, "per_device_train_batch_size": K * len(SCRIPTS), "max_steps": 1, "beta": 0.04}
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(**settings, output_dir=str(tmp_path_factory.mktemp("rescoring"))),
        train_dataset=dataset,
        processing_class=tiny_tokenizer,
        feedback_provider=round_provider,
    )
    outputs = capture_generation_outputs(trainer)
    get_logps = trainer._get_per_token_logps_and_entropies

    def counted_forward(model, input_ids, *args, **kwargs):
        if model is trainer.ref_model:
            reference_rows.append(input_ids.size(0))
        return get_logps(model, input_ids, *args, **kwargs)

    reference_rows = []
    trainer._get_per_token_logps_and_entropies = counted_forward
    trainer.train()
    del trainer._get_per_token_logps_and_entropies
    return trainer, calls, outputs[0], reference_rows


def kinds_of(batch, tokenizer):
    return [text.split("Question ", 1)[1].split("?")[0] for text in tokenizer.batch_decode(batch["prompt_ids"])]


def test_only_regenerated_rows_are_rescored(scripted_run):
    trainer, calls, _, _ = scripted_run
    # Turn 0 scores all 4 groups; turn 1 the 3 failed ones; turn 2 the one still failing; each row once per turn.
    assert [sorted(set(call)) for call in calls] == [
        [("fco_at_1", 0), ("fixed_at_1", 0), ("mixed", 0), ("unresolved", 0)],
        [("fco_at_1", 1), ("fixed_at_1", 1), ("unresolved", 1)],
        [("unresolved", 2)],
    ]
    assert [len(call) for call in calls] == [4 * K, 3 * K, K]
    assert logged(trainer, "mulferl/reward_rows") == [8.0 * K]  # P*K + regenerated rows, not P*K per turn
    assert logged(trainer, "mulferl/route/grpo") == [0.5]
    assert logged(trainer, "mulferl/route/fco") == [0.25]
    assert logged(trainer, "mulferl/route/unresolved") == [0.25]


def test_logged_columns_describe_the_final_rows(scripted_run):
    trainer, _, _, _ = scripted_run
    extra = trainer._logs["extra"]
    final_turn = {"mixed": 0, "fixed_at_1": 1, "fco_at_1": 1, "unresolved": 2}
    kinds = [prompt[-1]["content"].removeprefix("Question ").removesuffix("?") for prompt in trainer._logs["prompt"]]
    assert list(extra["scored_turn"]) == [final_turn[kind] for kind in kinds]
    assert list(extra["scored_turn"]) == list(extra["turn"])  # the turn the trainer says each row is from
    # Metrics a reward function logs describe turn 0, like TRL's reward metrics: one call of 4 groups.
    assert logged(trainer, "rows_per_call") == [4.0 * K]


def test_only_fco_rows_carry_a_partner(scripted_run, tiny_tokenizer):
    """Rows regenerated but not routed to FCO carry the one-token pad, so no partner forward spends on them."""
    trainer, _, batch, _ = scripted_run
    kinds = kinds_of(batch, tiny_tokenizer)
    partners = tiny_tokenizer.batch_decode(batch["mulferl_partner_completion_ids"], skip_special_tokens=True)
    scored_tokens = batch["mulferl_partner_score_mask"].sum(dim=1).tolist()
    for kind, partner, tokens in zip(kinds, partners, scored_tokens, strict=True):
        if kind == "fco_at_1":  # its negative: the same row at turn 0
            assert tokens > 0 and turn_of(partner) == 0 and partner
        else:
            assert tokens == 0 and partner == ""


def test_reference_scores_every_row_once_and_the_negatives(scripted_run, tiny_tokenizer):
    """With beta > 0, TRL scores every final row under the reference, as GRPOTrainer does (its scores serve the KL and
    FCO's positives); FCO adds one reference forward, over its negatives. The unresolved rows' KL is 0 in the loss."""
    trainer, _, batch, reference_rows = scripted_run
    assert reference_rows == [4 * K, K]  # every row; then fco_at_1's negatives
    prompt_completion_ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    attention_mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    with torch.no_grad():
        every_row, _, _ = trainer._get_per_token_logps_and_entropies(
            trainer.ref_model, prompt_completion_ids, attention_mask, batch["completion_ids"].size(1)
        )
    torch.testing.assert_close(batch["ref_per_token_logps"], every_row)

    trainer.model.train()
    unresolved = torch.tensor([kind == "unresolved" for kind in kinds_of(batch, tiny_tokenizer)])
    loss = trainer._compute_loss(trainer.model, batch)
    far = batch["ref_per_token_logps"].masked_fill(unresolved.unsqueeze(1), -5.0)  # no effect on the unresolved rows
    torch.testing.assert_close(trainer._compute_loss(trainer.model, dict(batch, ref_per_token_logps=far)), loss)
    assert trainer._metrics["train"]["kl"][-1] > 0.0  # the GRPO rows' KL is there
