"""iGRPO: draft selection (eq. 2), Prop. 3.1, the two-stage step, and training with and without LoRA."""

import pytest
import torch

from tests.helpers.igrpo import G, N, hashed_reward, make_igrpo_trainer
from tests.helpers.trainer import logged
from trl_mulferl import IGRPOConfig, make_generator
from trl_mulferl.igrpo.igrpo_config import DEFAULT_DRAFT_TEMPLATE
from trl_mulferl.igrpo.igrpo_trainer import append_draft, select_best_drafts


def test_append_draft_to_plain_and_conversational_prompts():
    template = "\nDraft: {draft}\n"
    assert append_draft("Solve x.", "x = 1", template) == "Solve x.\nDraft: x = 1\n"
    assert append_draft("q", "d", " \\boxed{} {draft}") == "q \\boxed{} d"  # other braces are kept as they are
    conversation = [{"role": "system", "content": "S"}, {"role": "user", "content": "Solve x."}]
    conditioned = append_draft(conversation, "x = 1", template)
    assert conditioned[-1]["content"] == "Solve x.\nDraft: x = 1\n" and conversation[-1]["content"] == "Solve x."
    typed = [{"role": "user", "content": [{"type": "text", "text": "Solve x."}]}]
    assert append_draft(typed, "x = 1", template)[0]["content"][-1] == {
        "type": "text",
        "text": template.format(draft="x = 1"),
    }


def test_select_best_drafts_is_an_argmax_with_random_ties():
    rewards = torch.tensor([[0.0, 1.0, 0.5], [float("nan"), 0.0, -1.0], [1.0, 0.0, 1.0]])
    picks = [select_best_drafts(rewards, [make_generator(0, step, p) for p in range(3)]) for step in range(400)]
    picks = torch.stack(picks)
    assert picks[:, 0].eq(1).all() and picks[:, 1].eq(1).all()  # the argmax; NaN never wins
    tie_share = picks[:, 2].eq(0).double().mean().item()
    assert set(picks[:, 2].tolist()) == {0, 2} and abs(tie_share - 0.5) < 0.1  # ties broken uniformly


@pytest.mark.parametrize(("p", "num_drafts"), [(0.1, 1), (0.1, 4), (0.3, 4), (0.3, 8), (0.7, 2)])
def test_prop_3_1_best_draft_reward(p, num_drafts):
    """Binary rewards with success probability p: E[R(best draft)] = 1 - (1 - p)^N (paper Prop. 3.1)."""
    trials, generator = 20_000, torch.Generator().manual_seed(1)
    rewards = (torch.rand(trials, num_drafts, generator=generator) < p).double()
    best = select_best_drafts(rewards, [generator] * trials)
    observed = rewards.gather(1, best.unsqueeze(1)).mean().item()
    expected = 1 - (1 - p) ** num_drafts
    standard_error = (expected * (1 - expected) / trials) ** 0.5
    assert abs(observed - expected) < 4 * standard_error + 1e-12


def test_two_stage_step(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = make_igrpo_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, max_steps=1)
    generations, outputs = [], []
    generate, score = trainer._generate_single_turn, trainer._generate_and_score_completions

    def recorded_generate(prompt_ids, *args, **kwargs):
        completion_ids, logprobs = generate(prompt_ids, *args, **kwargs)
        generations.append((prompt_ids, completion_ids))
        return completion_ids, logprobs

    trainer._generate_single_turn = recorded_generate
    trainer._generate_and_score_completions = lambda inputs: outputs.append(score(inputs)) or outputs[-1]
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()

    # N + G sequences per prompt, in two generation calls: 2 prompts x 3 drafts, then 2 prompts x 2 completions.
    assert [len(prompt_ids) for prompt_ids, _ in generations] == [2 * N, 2 * G]
    (_, draft_ids), batch = generations[0], outputs[0]
    prompts = tiny_tokenizer.batch_decode(batch["prompt_ids"], skip_special_tokens=True)
    completions = tiny_tokenizer.batch_decode(batch["completion_ids"], skip_special_tokens=True)
    for prompt_index in range(2):
        ids = draft_ids[prompt_index * N : (prompt_index + 1) * N]
        rewards = hashed_reward(tiny_tokenizer.batch_decode(ids, skip_special_tokens=True))
        kept = [tiny_tokenizer.decode(d[:6], skip_special_tokens=True) for d in ids]
        in_prompt = [
            i
            for i, draft in enumerate(kept)
            if DEFAULT_DRAFT_TEMPLATE.format(draft=draft) in prompts[prompt_index * G]
        ]
        assert in_prompt and any(rewards[i] == max(rewards) for i in in_prompt)  # the selected draft is an argmax
        for row in range(prompt_index * G, (prompt_index + 1) * G):  # every Stage 2 row of the prompt holds it
            assert prompts[row] == prompts[prompt_index * G]
            assert "previous attempt" not in completions[row]  # the completion (and its mask) is Stage 2 only
    assert batch["completion_mask"].sum() == sum(len(ids) for ids in generations[1][1])

    for key in ("draft_reward_mean", "best_draft_reward", "stage2_reward_mean", "frac_prompts_with_correct_draft"):
        assert len(logged(trainer, f"igrpo/{key}")) == 1
    assert logged(trainer, "igrpo/best_draft_reward")[0] >= logged(trainer, "igrpo/draft_reward_mean")[0]
    assert any(not torch.equal(p, q) for p, q in zip(trainer.model.parameters(), before, strict=True))


def test_stage_2_rewards_see_the_original_prompt(tmp_path, tiny_tokenizer, tiny_model_dir):
    """A reward function that reads the question (an LLM judge) gets it without the draft, in both stages."""
    trainer = make_igrpo_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, max_steps=1)
    seen = []

    def judge(prompts, completions, **kwargs):
        seen.append([prompt[-1]["content"] for prompt in prompts])
        return hashed_reward(completions)

    trainer.reward_funcs = [judge]
    trainer.train()
    questions = [f"What is {i} + 1?" for i in range(4)]
    drafts_seen, stage_2_seen = seen
    assert len(drafts_seen) == 2 * N and len(stage_2_seen) == 2 * G  # two prompts this step
    assert set(drafts_seen) <= set(questions) and set(stage_2_seen) <= set(questions)
    assert stage_2_seen == [question for question in dict.fromkeys(drafts_seen) for _ in range(G)]


def test_igrpo_with_lora(tmp_path, tiny_tokenizer, tiny_model_dir):
    from peft import LoraConfig

    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])
    trainer = make_igrpo_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, peft_config=lora)
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    changed = {name for name, p in trainer.model.named_parameters() if not torch.equal(p, before[name])}
    assert changed and all("lora_" in name for name in changed)
    assert len(logged(trainer, "igrpo/best_draft_reward")) == 2


def test_igrpo_config_validation(tmp_path):
    common = {"output_dir": str(tmp_path), "use_cpu": True, "per_device_train_batch_size": 4, "num_generations": 2}
    with pytest.raises(ValueError, match="num_drafts"):
        IGRPOConfig(**common, num_drafts=0)
    with pytest.raises(ValueError, match="{draft}"):
        IGRPOConfig(**common, draft_template="no placeholder")
    with pytest.raises(ValueError, match="num_generations must be >= 2"):
        IGRPOConfig(**{**common, "num_generations": 1})
