"""`EvaluationCallback` on GRPOTrainer and MulFeRLTrainer with the tiny model."""

import json

import pytest
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation
from trl_mulferl.evaluation import backends
from trl_mulferl.evaluation.backends import TransformersBackend
from trl_mulferl.evaluation.callback import EvaluationCallback
from trl_mulferl.evaluation.runner import evaluate


SETTINGS = {
    "per_device_train_batch_size": 4,
    "num_generations": 2,
    "max_completion_length": 6,
    "max_steps": 2,
    "learning_rate": 1e-2,
    "logging_steps": 1,
    "save_strategy": "no",
    "report_to": "none",
    "use_cpu": True,
    "bf16": False,
    "seed": 0,
}


def half_reward(completions, **kwargs):
    return [float(i % 2) for i in range(len(completions))]


def make_trainer(kind, tmp_path, model_dir, tokenizer):
    dataset = Dataset.from_list([{"prompt": make_conversation(f"What is {i} + {i}?")} for i in range(4)])
    common = {"model": model_dir, "reward_funcs": half_reward, "train_dataset": dataset, "processing_class": tokenizer}
    if kind == "grpo":
        return GRPOTrainer(args=GRPOConfig(output_dir=str(tmp_path), **SETTINGS), **common)
    args = MulFeRLConfig(output_dir=str(tmp_path), max_feedback_turns=0, fco_weight=0.0, **SETTINGS)
    return MulFeRLTrainer(args=args, **common)


@pytest.mark.parametrize("kind", ["grpo", "mulferl"])
def test_callback_logs_pass_at_1_with_the_current_model(kind, tmp_path, tiny_model_dir, tiny_tokenizer, monkeypatch):
    path = tmp_path / "gsm8k.jsonl"
    rows = [{"question": f"What is {i} + {i}?", "answer": f"{i} + {i} = {2 * i}\n#### {2 * i}"} for i in range(3)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    trainer = make_trainer(kind, tmp_path, tiny_model_dir, tiny_tokenizer)
    callback = EvaluationCallback(trainer, [f"gsm8k={path}"], eval_steps=1, max_tokens=5, temperature=0.0)
    trainer.add_callback(callback)

    responses = []
    original = backends.TransformersBackend.generate

    def spied(self, requests, progress=None):
        responses.append(original(self, requests, progress))
        return responses[-1]

    monkeypatch.setattr(backends.TransformersBackend, "generate", spied)
    trainer.train()
    monkeypatch.undo()

    evaluations = [entry for entry in trainer.state.log_history if "eval/gsm8k/pass@1" in entry]
    assert [entry["step"] for entry in evaluations] == [1, 2]
    for entry in evaluations:
        assert 0.0 <= entry["eval/gsm8k/pass@1"] <= 1.0 and entry["eval/pass@1"] == entry["eval/gsm8k/pass@1"]
        assert "reward" not in entry and "loss" not in entry  # the training metrics stay in their own entries
    assert [entry["step"] for entry in trainer.state.log_history if "reward" in entry] == [1, 2]
    assert trainer.model.training

    # The last evaluation answered with the trained weights: greedy answers of the final model match.
    final = TransformersBackend(trainer.model, tiny_tokenizer, max_tokens=5, temperature=0.0)
    records = evaluate(callback.problems, final, num_samples=1, show_progress=False)
    assert responses[-1] == [record["response"] for record in records]
    assert [p["solution"] for p in callback.problems] == ["0", "2", "4"]
