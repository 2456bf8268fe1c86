"""Training runs on 2 CPU processes (gloo) under any engine, launched by tests/mulferl/test_multiprocess.py as
`accelerate launch --config_file tests/helpers/engine_configs/<engine>.yaml two_process_training.py OUTPUT_DIR RUN...`.

Runs (one after the other in the same processes, each into `OUTPUT_DIR/<run>/`):
- `mulferl`, `mulferl_fco`: rank 0's reward is mixed (GRPO, no feedback turn); rank 1's is 1 exactly when the feedback
  marker is in the response, so every group of rank 1 fails at turn 0, gets a feedback turn and is solved (FCO).
  `beta > 0`, so the reference policy runs under the engine even without FCO.
- `fco_all`: `mulferl_fco` with `fco_pairing="all"` (the surrogate, with generation-time policy forwards), `beta = 0`.
- `lora`, `lora_fco`: the same with a new LoRA adapter (FCO's reference is the adapter-disabled model).
- `replay`: `mulferl_fco` with `feedback_replay` (rank 1's rows trained without their feedback, union advantages).
- `igrpo`: IGRPOTrainer with a reward that differs between ranks.
`--resume` resumes each run from its `checkpoint-1` instead (a fresh process, as after a stop) and writes
`resumed_rank{r}.json` and `resumed_requests_rank{r}.txt`.

Each rank writes `result_rank{r}.json`: the engine actually in use, the log history, the full (gathered) weights and
how many generation calls it made.
The provider's calls go to `requests_rank{r}.txt`.
"""

import importlib
import json
import os
import sys
from datetime import timedelta
from pathlib import Path

import torch


sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.helpers.tiny import build_tiny_model, build_tiny_tokenizer  # noqa: E402
from tests.helpers.trainer import MARKER, TINY_TRAINING, completion_texts, make_dataset  # noqa: E402
from trl_mulferl import IGRPOConfig, IGRPOTrainer, MulFeRLConfig, MulFeRLTrainer  # noqa: E402
from trl_mulferl.train import exit_launched_process  # noqa: E402


STEPS = 2
# FCO strong enough to move the weights as much as GRPO does, so a wrong FCO gradient shows in the weights.
FCO = {"fco_weight": 1.0, "fco_tau": 1.0}
LORA = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}
# Activation (gradient) checkpointing is on for the engines that the test names.
ACTIVATION_CHECKPOINTING = os.environ.get("MULFERL_TEST_ACTIVATION_CHECKPOINTING") == "1"
# Seconds a process waits in a collective before it fails (`ddp_timeout`): a hang fails fast.
TIMEOUT = 90
# A checkpoint after every step, for the resume test.
CHECKPOINTS = os.environ.get("MULFERL_TEST_CHECKPOINTS") == "1"


def set_up_engine() -> dict:
    """Workarounds for CPU-only engines (see the design notes on DeepSpeed and FSDP on CPU); test code only."""
    if os.environ.get("ACCELERATE_USE_DEEPSPEED") == "true":
        # DeepSpeed would JIT-compile a shared-memory all-reduce op (minutes on 2 cores); plain torch.distributed
        # gives the same results.
        importlib.import_module("deepspeed.comm.torch")
        sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None
    if os.environ.get("ACCELERATE_USE_FSDP") == "true":
        # accelerate 1.15 keeps an FSDP config only for GPU-like distributed types and drops it on CPU (plain DDP).
        from accelerate import PartialState
        from accelerate.utils import DistributedType

        state = PartialState(cpu=True, timeout=timedelta(seconds=TIMEOUT))
        state._shared_state["distributed_type"] = DistributedType.MULTI_GPU
        return {"accelerator_config": {"use_configured_state": True}}
    return {}


def engine_facts(trainer) -> dict:
    """What the run really used: a CPU run can silently fall back to DDP, so the tests check these."""
    accelerator = trainer.accelerator
    unwrapped = accelerator.unwrap_model(trainer.model_wrapped)
    facts = {
        "num_processes": accelerator.num_processes,
        "process_index": accelerator.process_index,
        "deepspeed": trainer.is_deepspeed_enabled,
        "fsdp": trainer.is_fsdp_enabled,
        "activation_checkpointing": unwrapped.is_activation_checkpointing,
    }
    if trainer.is_deepspeed_enabled:
        facts["zero_stage"] = accelerator.state.deepspeed_plugin.zero_stage
    if trainer.is_fsdp_enabled:
        facts["fsdp_version"] = accelerator.state.fsdp_plugin.fsdp_version
    full, local = 0, 0
    for parameter in trainer.model_wrapped.parameters():
        if hasattr(parameter, "ds_numel"):  # ZeRO-3: the process holds `ds_tensor`, a slice of the parameter
            full, local = full + parameter.ds_numel, local + parameter.ds_tensor.numel()
        elif hasattr(parameter, "full_tensor"):  # FSDP2: a DTensor sharded over the processes
            full, local = full + parameter.numel(), local + parameter.to_local().numel()
        else:
            full, local = full + parameter.numel(), local + parameter.numel()
    if facts.get("fsdp_version") == 1:  # the original parameters are views into this process's flat shard
        full = sum(p.numel() for p in full_parameters(trainer).values())
    facts["local_parameter_fraction"] = local / full
    return facts


def full_parameters(trainer) -> dict[str, torch.Tensor]:
    """Every parameter, whole, by its name in the unwrapped model; every process must call this together."""
    model = trainer.model_wrapped
    if trainer.is_deepspeed_enabled and trainer.accelerator.state.deepspeed_plugin.zero_stage == 3:
        import deepspeed

        with deepspeed.zero.GatheredParameters(list(model.parameters())):
            return {canonical_name(name): p.detach().clone() for name, p in model.named_parameters()}
    if trainer.is_fsdp_enabled and trainer.accelerator.state.fsdp_plugin.fsdp_version == 1:
        from torch.distributed.fsdp import FullyShardedDataParallel

        with FullyShardedDataParallel.summon_full_params(model, writeback=False, rank0_only=False):
            return {canonical_name(name): p.detach().clone() for name, p in model.named_parameters()}
    return {  # FSDP2 parameters are DTensors
        canonical_name(name): (p.full_tensor() if hasattr(p, "full_tensor") else p).detach().clone()
        for name, p in model.named_parameters()
    }


def canonical_name(name: str) -> str:
    """The parameter's name in the unwrapped model (without DDP's and DeepSpeed's `module.`, FSDP1's wrappers)."""
    return name.replace("_fsdp_wrapped_module.", "").removeprefix("module.")


def write_result(run_dir: Path, rank: int, result: dict, resumed: bool):
    name = "resumed" if resumed else "result"
    (run_dir / f"{name}_rank{rank}.json").write_text(json.dumps(result))


def train(trainer_class, run_dir: Path, rank: int, resume: bool, **trainer_kwargs):
    trainer = trainer_class(**trainer_kwargs)
    generation_calls, generate = [], trainer._generate_single_turn

    def counted_generate(prompt_ids, *args, **kwargs):
        generation_calls.append(len(prompt_ids))
        return generate(prompt_ids, *args, **kwargs)

    trainer._generate_single_turn = counted_generate
    initial = full_parameters(trainer)  # under ZeRO-3 the model is already partitioned when loaded
    trainer.train(resume_from_checkpoint=str(run_dir / "checkpoint-1") if resume else None)
    facts = engine_facts(trainer)
    final = full_parameters(trainer)
    result = {
        "engine": facts,
        "log_history": trainer.state.log_history,
        "parameters": {name: p.flatten().tolist() for name, p in final.items()},
        # the largest change of any weight, so that "equal to DDP's within a tolerance" means something
        "moved": max((final[name] - p).abs().max().item() for name, p in initial.items()),
        "generation_calls": generation_calls,
    }
    write_result(run_dir, rank, result, resume)


def mulferl(run_dir: Path, engine_kwargs: dict, resume: bool, fco: bool, lora: bool, **overrides):
    # 2 micro-batches per step: 4 groups per process and generation batch; 8 of the 16 prompts per step, so the
    # checkpoint after step 1 lies inside an epoch.
    settings = {**TINY_TRAINING, "max_steps": STEPS, "gradient_accumulation_steps": 2, "max_feedback_turns": 1}
    settings |= engine_kwargs | {"ddp_timeout": TIMEOUT}
    if CHECKPOINTS:
        settings |= {"save_strategy": "steps", "save_steps": 1}
    settings |= {"activation_checkpointing": ACTIVATION_CHECKPOINTING}
    settings |= FCO if fco else {"fco_weight": 0.0}
    settings |= {"beta": 0.0} if lora else {"beta": 0.1}
    settings |= overrides
    args = MulFeRLConfig(output_dir=str(run_dir), **settings)
    rank = args.process_index  # the config sets up the (CPU, gloo) process group

    def rank_dependent_reward(completions, **kwargs):
        if rank == 0:
            return [float(i % 2 == 0) for i in range(len(completions))]
        return [float(MARKER in text) for text in completion_texts(completions)]

    def provider(prompt, completions, rewards, **columns):
        with open(run_dir / f"{'resumed_' if resume else ''}requests_rank{rank}.txt", "a") as requests:
            requests.write(prompt + "\n")
        return f"Issue: the answer misses {MARKER}. Fix steps: 1. write it."

    tokenizer = build_tiny_tokenizer()
    model_dir = run_dir.parent / "model"  # the reference policy is loaded by path
    with args.main_process_first(desc="save the tiny model"):
        if rank == 0 and not model_dir.exists():
            build_tiny_model(tokenizer).save_pretrained(model_dir)
    peft_config = None
    if lora:
        from peft import LoraConfig

        peft_config = LoraConfig(**LORA)
    train(
        MulFeRLTrainer,
        run_dir,
        rank,
        resume,
        model=str(model_dir),
        reward_funcs=rank_dependent_reward,
        args=args,
        train_dataset=make_dataset(num_prompts=16),
        processing_class=tokenizer,
        feedback_provider=provider,
        peft_config=peft_config,
    )


def igrpo(run_dir: Path, engine_kwargs: dict, resume: bool, model=None):
    """`model`: the tiny model unless given (a folder, for vLLM)."""
    settings = {**TINY_TRAINING, "max_steps": STEPS, "activation_checkpointing": ACTIVATION_CHECKPOINTING}
    settings |= engine_kwargs | {"ddp_timeout": TIMEOUT}
    args = IGRPOConfig(output_dir=str(run_dir), num_drafts=3, **settings)
    rank = args.process_index

    def rank_dependent_reward(completions, **kwargs):
        return [float((len(text) + rank) % 2) for text in completion_texts(completions)]

    tokenizer = build_tiny_tokenizer()
    train(
        IGRPOTrainer,
        run_dir,
        rank,
        resume,
        model=build_tiny_model(tokenizer) if model is None else model,
        reward_funcs=rank_dependent_reward,
        args=args,
        train_dataset=make_dataset(num_prompts=8),
        processing_class=tokenizer,
    )


RUNS = {
    "mulferl": lambda *a: mulferl(*a, fco=False, lora=False),
    "mulferl_fco": lambda *a: mulferl(*a, fco=True, lora=False),
    "fco_all": lambda *a: mulferl(*a, fco=True, lora=False, fco_pairing="all", beta=0.0),
    "replay": lambda *a: mulferl(*a, fco=True, lora=False, feedback_replay=True),
    "lora": lambda *a: mulferl(*a, fco=False, lora=True),
    "lora_fco": lambda *a: mulferl(*a, fco=True, lora=True),
    "igrpo": igrpo,
}


if __name__ == "__main__":
    output_dir, *run_names = sys.argv[1:]
    resume = "--resume" in run_names
    engine_kwargs = set_up_engine()
    for run_name in [name for name in run_names if name != "--resume"]:
        run_dir = Path(output_dir) / run_name
        run_dir.mkdir(parents=True, exist_ok=True)
        RUNS[run_name](run_dir, engine_kwargs, resume)
    exit_launched_process()
