"""Run by `accelerate launch` with 2 processes on CPU (gloo) from tests/feedback/test_self_feedback.py: plain DDP, or DeepSpeed
ZeRO-2 or ZeRO-3 when MULFERL_TEST_ENGINE=zero2 or zero3 (the accelerate config then names the DeepSpeed config).

Self-feedback where only rank 1 has failed groups: rank 0's rewards are mixed (GRPO at turn 0), rank 1's reward is 1
exactly when the answer opens with an injected feedback block, so its groups fail at turn 0, get feedback written by
the frozen starting policy, and are solved at turn 1 (FCO); `max_feedback_groups_per_step=1` lets one of them through,
drawn alike on both ranks. Each rank records how many requests each of the
provider's batched generations held and how often the reference model's `generate` ran, with its log history and
final weights (not under ZeRO-3, which partitions them).
"""

import importlib
import json
import os
import sys
from pathlib import Path

import torch


sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helpers.self_feedback import injected_feedback_reward  # noqa: E402
from tests.helpers.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from tests.helpers.trainer import TINY_TRAINING, make_dataset  # noqa: E402
from trl_mulferl import MulFeRLConfig, MulFeRLTrainer  # noqa: E402
from trl_mulferl.train import exit_launched_process  # noqa: E402


def main(output_dir: Path, engine: str):
    if engine.startswith("zero"):
        # Skip DeepSpeed's JIT-compiled shared-memory all-reduce (minutes on 2 cores); plain torch.distributed is used.
        importlib.import_module("deepspeed.comm.torch")
        sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None
    settings = {**TINY_TRAINING, "per_device_train_batch_size": 8, "num_generations": 4, "max_steps": 2}
    settings["ddp_timeout"] = 60  # a rank left waiting in a collective fails in a minute, not half an hour
    if os.environ.get("MULFERL_TEST_KL_ONLY") == "1":
        # Only rank 0 (GRPO rows, for their KL) has rows to score under the reference, rank 1 (FCO off) none.
        settings.update(beta=0.04, fco_weight=0.0)
    args = MulFeRLConfig(
        output_dir=str(output_dir),
        **settings,
        max_feedback_turns=1,
        max_feedback_length=16,
        feedback_provider="self",
        max_feedback_groups_per_step=1,
    )
    rank = args.process_index

    def rank_dependent_reward(completions, **kwargs):
        if rank == 0:
            return [float(i % 2 == 0) for i in range(len(completions))]
        return injected_feedback_reward(completions)

    tokenizer = build_tiny_tokenizer()
    model_dir = output_dir / "model"  # the reference (the feedback writer) is loaded by path
    with args.main_process_first(desc="save the tiny model"):
        if rank == 0:
            build_tiny_model(tokenizer).save_pretrained(model_dir)
    trainer = MulFeRLTrainer(
        model=str(model_dir),
        reward_funcs=rank_dependent_reward,
        args=args,
        train_dataset=make_dataset(num_prompts=8),
        processing_class=tokenizer,
    )
    requests_per_call, generate_calls = [], []
    reference = trainer.accelerator.unwrap_model(trainer.ref_model)
    provider_generate, reference_generate = trainer.feedback_provider._generate, reference.generate

    def recorded_provider_generate(trainer, conversations):
        requests_per_call.append(len(conversations))
        return provider_generate(trainer, conversations)

    def counted_reference_generate(*args, **kwargs):
        generate_calls.append(1)
        return reference_generate(*args, **kwargs)

    trainer.feedback_provider._generate = recorded_provider_generate
    reference.generate = counted_reference_generate
    trainer.train()
    zero_stage = trainer.accelerator.state.deepspeed_plugin.zero_stage if trainer.is_deepspeed_enabled else None
    result = {
        "log_history": trainer.state.log_history,
        "requests_per_call": requests_per_call,
        "generate_calls": len(generate_calls),
        "engine": {
            "processes": trainer.accelerator.num_processes,
            "zero_stage": zero_stage,
        },
    }
    if engine != "zero3":  # ZeRO-3 partitions the weights
        result["parameters"] = torch.cat([p.detach().flatten() for p in trainer.model.parameters()]).tolist()
    (output_dir / f"result_rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(Path(os.environ["MULFERL_TEST_OUTPUT"]), os.environ.get("MULFERL_TEST_ENGINE", "ddp"))
    exit_launched_process()
