"""Run by `accelerate launch --num_processes 2 --cpu` from tests/test_multiprocess.py.

Rank 0's reward is mixed (GRPO, no feedback turn); rank 1's is 1 exactly when the feedback marker is in the response
(every group fails at turn 0 and needs a turn). Each rank writes its provider calls and its log history to files.
"""

import json
import os
import sys
from pathlib import Path

import torch


sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.test_trainer import MARKER, TINY_TRAINING, completion_texts, make_dataset  # noqa: E402
from tests.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer  # noqa: E402


def main(output_dir: Path):
    settings = {**TINY_TRAINING, "per_device_train_batch_size": 4, "max_steps": 3, "max_feedback_turns": 1}
    args = MulFeRLConfig(output_dir=str(output_dir), **settings)
    rank = args.process_index  # the config sets up the (CPU, gloo) process group

    def rank_dependent_reward(completions, **kwargs):
        if rank == 0:
            return [float(i % 2 == 0) for i in range(len(completions))]
        return [float(MARKER in text) for text in completion_texts(completions)]

    def provider(prompt, completions, rewards, **columns):
        with open(output_dir / f"requests_rank{rank}.txt", "a") as requests:
            requests.write(prompt + "\n")
        return f"Issue: the answer misses {MARKER}. Fix steps: 1. write it."

    tokenizer = build_tiny_tokenizer()
    model_dir = output_dir / "model"  # FCO's reference policy is loaded by path
    with args.main_process_first(desc="save the tiny model"):
        if rank == 0:
            build_tiny_model(tokenizer).save_pretrained(model_dir)
    trainer = MulFeRLTrainer(
        model=str(model_dir),
        reward_funcs=rank_dependent_reward,
        args=args,
        train_dataset=make_dataset(num_prompts=8),
        processing_class=tokenizer,
        feedback_provider=provider,
    )
    trainer.train()
    parameters = [p.detach().flatten() for p in trainer.model.parameters()]
    result = {"log_history": trainer.state.log_history, "parameters": torch.cat(parameters).tolist()}
    (output_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(Path(os.environ["MULFERL_TEST_OUTPUT"]))
