"""Self-feedback: the frozen starting policy writes the feedback (`SelfFeedbackProvider`, `feedback_provider="self"`)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM

from tests.helpers.multiprocess import CONFIGS
from tests.helpers.self_feedback import injected_feedback_reward
from tests.helpers.tiny import build_tiny_model
from tests.helpers.trainer import TINY_TRAINING, logged, make_dataset
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, SelfFeedbackProvider
from trl_mulferl.feedback import FeedbackRequest


REQUEST = FeedbackRequest(
    prompt="What is 2 + 2?",
    completions=["<thinking><feedback></feedback> 2 + 2 = 5</thinking> The final answer is \\boxed{5}", "It is 3."],
    rewards=[0.0, 0.0],
    columns={"solution": "4"},
)
# A large FCO step (weight and tau 1, learning rate 0.05), so that a few steps visibly change the policy's replies.
MOVING = {"learning_rate": 5e-2, "fco_weight": 1.0, "fco_tau": 1.0}


def self_trainer(tmp_path, tokenizer, model, **overrides):
    settings = {**TINY_TRAINING, "output_dir": str(tmp_path), "max_feedback_turns": 1, "max_feedback_length": 24}
    return MulFeRLTrainer(
        model=model,
        reward_funcs=injected_feedback_reward,
        args=MulFeRLConfig(**{**settings, **overrides}, feedback_provider="self"),
        train_dataset=make_dataset(),
        processing_class=tokenizer,
    )


class WithReviewer:
    """The trainer, with another model in place of its reference: the feedback that model would write."""

    def __init__(self, trainer, model):
        self._trainer, self.ref_model = trainer, model

    def __getattr__(self, name):
        return getattr(self._trainer, name)


def test_self_feedback_comes_from_the_starting_weights(tmp_path, tiny_tokenizer, tiny_model_dir):
    trainer = self_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, max_steps=3, **MOVING)
    provider = trainer.feedback_provider
    assert isinstance(provider, SelfFeedbackProvider) and trainer.ref_model is not None
    assert (provider.max_new_tokens, provider.temperature, provider.group_size) == (24, 0.0, 2)
    before = provider.feedback_batch([REQUEST], trainer)[0]
    assert before.error is None and before.text
    assert provider.pop_metrics()["feedback/completion_tokens"] == 24  # a random model never writes </feedback>
    parameters = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}

    trainer.train()

    # Injected and trained on: every group failed at turn 0, got self-feedback, and its feedback turn was trained.
    assert logged(trainer, "mulferl/feedback/requests") == [2.0] * 3
    assert logged(trainer, "mulferl/feedback/errors") == [0.0] * 3
    assert logged(trainer, "mulferl/route/fco") == [1.0] * 3
    assert all(tokens > 0 for tokens in logged(trainer, "mulferl/feedback/prompt_tokens"))
    assert list(trainer._logs["extra"]["turn"]) == [1] * 4
    assert all(text for text in trainer._logs["extra"]["feedback"])
    assert any(not torch.equal(p, parameters[name]) for name, p in trainer.model.named_parameters())

    # The starting weights still write the same feedback; the updated policy would write another.
    after = provider.feedback_batch([REQUEST], trainer)[0]
    assert after.text == before.text
    assert provider.feedback_batch([REQUEST], WithReviewer(trainer, trainer.model))[0].text != before.text


def test_self_feedback_with_lora_uses_the_base_model(tmp_path, tiny_tokenizer, tiny_model_dir):
    from peft import LoraConfig

    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "o_proj", "down_proj"])
    trainer = MulFeRLTrainer(
        model=tiny_model_dir,
        reward_funcs=injected_feedback_reward,
        args=MulFeRLConfig(
            **{**TINY_TRAINING, "output_dir": str(tmp_path), "max_steps": 3, **MOVING},
            max_feedback_turns=1,
            max_feedback_length=24,
            feedback_provider="self",
        ),
        train_dataset=make_dataset(),
        processing_class=tiny_tokenizer,
        peft_config=lora,
    )
    assert trainer.ref_model is None
    provider = trainer.feedback_provider
    before = provider.feedback_batch([REQUEST], trainer)[0].text
    trainer.train()
    assert logged(trainer, "mulferl/route/fco") == [1.0] * 3
    assert provider.feedback_batch([REQUEST], trainer)[0].text == before
    # The adapter trained, so the policy with it enabled now reviews differently; the base model did not move.
    assert provider.feedback_batch([REQUEST], WithReviewer(trainer, trainer.model))[0].text != before
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    assert provider.feedback_batch([REQUEST], WithReviewer(trainer, base))[0].text == before


def scripted_reviewer(tokenizer, reply: str, filler: str = "Z"):
    """A tiny Qwen2 whose greedy continuation of any chat prompt is `reply`, then `filler` forever.

    Its layers add nothing to the residual stream, so the logits depend on the current token alone, and its LM head
    maps each token of the chain (end of the generation prompt, the reply's tokens, the filler) to the next one.
    """
    model = build_tiny_model(tokenizer)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "."}], add_generation_prompt=True, tokenize=False
    )
    chain = [tokenizer(prompt, add_special_tokens=False)["input_ids"][-1]]
    chain += tokenizer(reply + filler, add_special_tokens=False)["input_ids"]
    assert len(set(chain)) == len(chain), "the chain needs distinct tokens"
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        embeddings = model.model.embed_tokens.weight
        model.lm_head.weight.zero_()
        for token, next_token in zip(chain, chain[1:] + chain[-1:], strict=True):
            model.lm_head.weight[next_token] = 50.0 * embeddings[token] / embeddings[token].norm()
    return model


@pytest.mark.parametrize(
    ("reply", "text", "error"),
    [("Issue: carry</feedback>", "Issue: carry", None), ("</feedback>", None, "empty")],
    ids=["stops-at-the-tag", "empty-reply"],
)
def test_replies_stop_at_the_feedback_tag(tmp_path, tiny_tokenizer, reply, text, error):
    model_dir = tmp_path / "reviewer"
    scripted_reviewer(tiny_tokenizer, reply).save_pretrained(model_dir)
    trainer = self_trainer(tmp_path, tiny_tokenizer, str(model_dir), max_feedback_length=64)
    provider = trainer.feedback_provider
    four_rollouts = FeedbackRequest("What is 2 + 2?", ["5", "3", "22", "0"], [0.0] * 4, {})
    results = provider.feedback_batch([four_rollouts, REQUEST], trainer)
    assert [(r.text, r.error) for r in results] == [(text, error)] * 2
    reply_tokens = len(tiny_tokenizer(reply, add_special_tokens=False)["input_ids"])
    # 3 reviews (2 subgroups + 1), each stopped right after </feedback> instead of at 64 tokens; 1 merge if any.
    assert provider.pop_metrics()["feedback/completion_tokens"] == reply_tokens * (3 + (error is None))


def test_sampled_self_feedback(tmp_path, tiny_tokenizer, tiny_model_dir):
    """`feedback_temperature > 0` samples: two calls differ, where greedy decoding (the default) repeats itself."""
    trainer = self_trainer(tmp_path, tiny_tokenizer, tiny_model_dir, feedback_temperature=1.0)
    assert trainer.feedback_provider.temperature == 1.0
    torch.manual_seed(0)
    first, second = (trainer.feedback_provider.feedback_batch([REQUEST], trainer)[0].text for _ in range(2))
    assert first and second and first != second


def test_a_collective_error_in_the_writer_stops_the_run(tmp_path, tiny_tokenizer, tiny_model_dir, monkeypatch):
    """A failed `generate` collective (here the mismatch that TORCH_DISTRIBUTED_DEBUG=DETAIL reports) is raised, not
    taken for the provider's own failure: the processes are out of step, and carrying on would hang or mix up their
    calls."""
    trainer = self_trainer(tmp_path, tiny_tokenizer, tiny_model_dir)
    mismatch = RuntimeError(
        "Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint("
        "SequenceNumber=7, OpType=ALLGATHER, TensorShape=[1]), but Rank 0 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=7, OpType=ALLREDUCE, TensorShape=[1])."
    )

    def out_of_step(*args, **kwargs):
        raise mismatch

    monkeypatch.setattr(trainer.ref_model, "generate", out_of_step)
    with pytest.raises(RuntimeError) as raised:
        trainer.feedback_provider.feedback_batch([REQUEST], trainer)
    assert raised.value is mismatch


def test_self_feedback_start_up_errors(tmp_path, tiny_tokenizer, tiny_model_dir, tiny_model):
    from tests.helpers.tiny import build_tiny_tokenizer

    no_template = build_tiny_tokenizer()
    no_template.chat_template = None
    with pytest.raises(ValueError, match="chat template"):
        self_trainer(tmp_path, no_template, tiny_model_dir)
    with pytest.raises(ValueError, match="self-feedback"):  # the starting policy must be loadable: a model object
        self_trainer(tmp_path, tiny_tokenizer, tiny_model, fco_weight=0.0)


ZERO3 = {
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},  # 0: really partition a tiny model
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
}


def launch_two_processes(output_dir: Path, engine: str, kl_only: bool = False) -> list[dict]:
    command = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--num_machines", "1"]
    if engine == "zero2":
        command += ["--config_file", "zero2.yaml"]
    elif engine == "zero3":
        (output_dir / "zero3.json").write_text(json.dumps(ZERO3))
        accelerate_config = {
            "distributed_type": "DEEPSPEED",
            "deepspeed_config": {"deepspeed_config_file": str(output_dir / "zero3.json"), "zero3_init_flag": False},
            "num_machines": 1,
            "num_processes": 2,
        }
        (output_dir / "accelerate.yaml").write_text(json.dumps(accelerate_config))  # YAML reads JSON
        command += ["--config_file", str(output_dir / "accelerate.yaml")]
    else:
        command += ["--multi_gpu", "--mixed_precision", "no", "--dynamo_backend", "no"]
    command.append(str(Path(__file__).parents[1] / "helpers" / "scripts" / "two_process_self_feedback.py"))
    env = {
        **os.environ,
        "MULFERL_TEST_OUTPUT": str(output_dir),
        "MULFERL_TEST_ENGINE": engine,
        "MULFERL_TEST_KL_ONLY": str(int(kl_only)),
        "OMP_NUM_THREADS": "1",
    }
    if engine != "ddp":  # torch 2.13's DistributedDataParallel segfaults on CPU under DETAIL
        env["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"  # gloo names a mismatched collective instead of hanging
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=CONFIGS)
    assert result.returncode == 0, result.stderr[-4000:]
    return [json.loads((output_dir / f"result_rank{rank}.json").read_text()) for rank in (0, 1)]


@pytest.mark.slow
# ZeRO-2 generates as DDP does (not collectively); the matrix's `self` run covers it.
@pytest.mark.parametrize("engine, kl_only", [("ddp", False), ("zero3", False), ("zero3", True)])
def test_self_feedback_on_two_processes_with_one_failing_rank(tmp_path, engine, kl_only):
    """2 processes on CPU (gloo): only rank 1 has failed groups; both ranks cap and route alike.

    `kl_only` (beta > 0, FCO off): only rank 0's rows are scored under the reference (its GRPO rows' KL); under ZeRO-3,
    whose forwards are collective, rank 1 must still run as many reference forwards.
    """
    if engine.startswith("zero"):
        pytest.importorskip("deepspeed")
    results = launch_two_processes(tmp_path, engine, kl_only)
    zero_stage = int(engine[-1]) if engine.startswith("zero") else None
    assert [r["engine"] for r in results] == [{"processes": 2, "zero_stage": zero_stage}] * 2  # engine on
    if engine != "zero3":  # ZeRO-3 partitions the weights
        assert results[0]["parameters"] == results[1]["parameters"]
    step_logs = [[entry for entry in result["log_history"] if "mulferl/route/grpo" in entry] for result in results]
    assert len(step_logs[0]) == 2
    keys = [key for key in step_logs[0][0] if key.startswith("mulferl/") and "latency" not in key]
    for rank0_entry, rank1_entry in zip(*step_logs, strict=True):
        assert {k: rank0_entry[k] for k in keys} == {k: rank1_entry[k] for k in keys}
    for entry in step_logs[0]:
        # 2 groups per rank: rank 0's mixed; rank 1's failed, one of them capped, the other solved by self-feedback.
        assert [entry[f"mulferl/route/{r}"] for r in ("grpo", "fco", "unresolved")] == [0.5, 0.25, 0.25]
        assert entry["mulferl/feedback/requests"] == 1.0 and entry["mulferl/feedback/capped_groups"] == 1.0
        assert entry["mulferl/feedback/errors"] == 0.0 and entry.get("mulferl/fco/pairs") == (None if kl_only else 4.0)
    # Rank 0 has no request. Under ZeRO-3 it generates as often as rank 1 (a dummy each time: the reviews, then the
    # merge); under DDP and ZeRO-2, where generation is not collective, it generates nothing.
    assert results[1]["requests_per_call"] == [2, 1, 2, 1]  # K = 4: 2 reviews of 2 rollouts, then 1 merge
    assert results[0]["requests_per_call"] == [0, 0, 0, 0]
    assert results[1]["generate_calls"] == 4
    assert results[0]["generate_calls"] == (4 if engine == "zero3" else 0)
