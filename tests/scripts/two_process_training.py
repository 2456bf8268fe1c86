"""Run by `accelerate launch --multi_gpu --num_processes 2` (CPU, gloo) from tests/test_multiprocess.py.

`mulferl`: rank 0's reward is mixed (GRPO, no feedback turn); rank 1's is 1 exactly when the feedback marker is in
the response (every group fails at turn 0 and needs a turn, then FCO). `igrpo`: IGRPOTrainer with a reward that
differs between ranks. Each rank writes its provider calls, log history and final weights to files.
"""

import json
import os
import sys
from pathlib import Path

import torch


sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.test_trainer import MARKER, TINY_TRAINING, completion_texts, make_dataset  # noqa: E402
from tests.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from trl_mulferl import IGRPOConfig, IGRPOTrainer, MulFeRLConfig, MulFeRLTrainer  # noqa: E402


def write_result(trainer, output_dir: Path, rank: int):
    parameters = [p.detach().flatten() for p in trainer.model.parameters()]
    result = {"log_history": trainer.state.log_history, "parameters": torch.cat(parameters).tolist()}
    (output_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


def igrpo(output_dir: Path):
    args = IGRPOConfig(output_dir=str(output_dir), num_drafts=3, **{**TINY_TRAINING, "max_steps": 2})
    rank = args.process_index

    def rank_dependent_reward(completions, **kwargs):
        return [float((len(text) + rank) % 2) for text in completion_texts(completions)]

    tokenizer = build_tiny_tokenizer()
    trainer = IGRPOTrainer(
        model=build_tiny_model(tokenizer),
        reward_funcs=rank_dependent_reward,
        args=args,
        train_dataset=make_dataset(num_prompts=8),
        processing_class=tokenizer,
    )
    trainer.train()
    write_result(trainer, output_dir, rank)


def mulferl(output_dir: Path):
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
    write_result(trainer, output_dir, rank)


if __name__ == "__main__":
    {"mulferl": mulferl, "igrpo": igrpo}[sys.argv[1]](Path(os.environ["MULFERL_TEST_OUTPUT"]))
