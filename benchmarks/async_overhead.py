"""Asynchronous MulFeRL against asynchronous GRPO and the synchronous MulFeRLTrainer: steps/s, trained tokens/s, staleness.

For each regime of `overhead.py` (scripted rewards and feedback: each prompt has a script of per-turn group states,
the turn read from the marker its feedback injected), three trainers train the same local model (a randomly
initialised Qwen2 from `trl_mulferl.tiny`) on the same seed and prompts, each in a process of its own, one after the
other, within one run of this script:

- `async_grpo`: TRL's `AsyncGRPOTrainer`, generating against a `vllm serve` of vLLM's CPU build;
- `async_mulferl`: `AsyncMulFeRLTrainer` against the same server;
- `mulferl`: the synchronous `MulFeRLTrainer`, generating with TRL's vLLM colocate mode (tests/helpers/vllm_cpu.py).

The asynchronous trainers sync their weights through the disk and run TRL's tree attention as per-segment SDPA
(tests/helpers/async_cpu.py: the CPU substitutions). Each step trains `len(scripts) * K` samples. Steps/s and trained tokens/s
are measured over the steps after the warm-up ones (wall clock from the end of the last warm-up step); trained tokens
are those the loss is taken over (the prefilled feedback excluded). Staleness: TRL's `sample/staleness_mean` and
`_max`, the policy versions between a trained sample's generation and its training step.

    python benchmarks/async_overhead.py --repeats 3 --json benchmarks/async_overhead.json   # the full run
    python benchmarks/async_overhead.py --smoke                                  # tiny sizes: checks that it runs

Needs vLLM's CPU build (the environment `.ci/vllm-env` makes).
"""

import argparse
import functools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from overhead import MAX_FEEDBACK_TURNS, REGIMES, group_rewards, turn_of  # noqa: E402


TRAINERS = ("async_grpo", "async_mulferl", "mulferl")
DEFAULT_REGIMES = ("none_failed", "solve_at_1", "slow_feedback")
FULL = {"completion_length": 32, "hidden_size": 128, "layers": 2, "warmup_steps": 2, "steps": 6}
SMOKE = {"completion_length": 8, "hidden_size": 128, "layers": 2, "warmup_steps": 1, "steps": 2}


def scripted_reward(completions, script, k, **kwargs):
    """Row i of a call is rollout i % K of its group (both trainers pass whole groups, in order)."""
    rewards = []
    for i, completion in enumerate(completions):
        states = script[i].split(",")
        rewards.append(group_rewards(states[min(turn_of(completion), len(states) - 1)], k[i])[i % k[i]])
    return rewards


def scripted_provider(prompt, completions, rewards, feedback_seconds, **columns):
    time.sleep(feedback_seconds)
    return f"Issue: ROUND{turn_of(completions[0]) + 1} is still wrong. Fix steps: 1. Retry."


def run_trainer(
    name: str,
    regime_name: str,
    settings: dict,
    model_dir: str,
    server_url: str,
    *,
    feedback_seconds: float | None = None,
    reward_func=scripted_reward,
    feedback_provider=scripted_provider,
    config: dict | None = None,
    callbacks=(),
) -> dict:
    """One trainer's run (in a process of its own); its step times, trained tokens and staleness. `feedback_seconds`
    replaces the regime's sleep per feedback request, `config` adds or replaces fields of the trainer's config, and
    `callbacks` are added to the trainer."""
    import torch
    from datasets import Dataset
    from transformers import TrainerCallback

    from tests.helpers.async_cpu import DiskWeightTransfer, cpu_substitutions
    from tests.helpers.vllm_cpu import SharedEngines, colocate_on_cpu
    from trl_mulferl import make_conversation

    torch.set_num_threads(1)
    regime = REGIMES[regime_name]
    k = regime.num_generations
    rows = [
        {
            "prompt": make_conversation(f"Question {case}: what is {case} + {case}?"),
            "script": ",".join(script),
            "k": k,
            "feedback_seconds": regime.feedback_seconds_per_request if feedback_seconds is None else feedback_seconds,
        }
        for case, script in enumerate(regime.scripts)
    ]
    dataset = Dataset.from_list(rows)
    output_dir = tempfile.mkdtemp(prefix=f"async-overhead-{name}-")
    common = {
        "output_dir": output_dir,
        "per_device_train_batch_size": len(rows) * k,
        "num_generations": k,
        "max_completion_length": settings["completion_length"],
        "max_steps": settings["warmup_steps"] + settings["steps"],
        "learning_rate": 1e-6,
        "save_strategy": "no",
        "report_to": "none",
        "disable_tqdm": True,
        "use_cpu": True,
        "bf16": False,
        "seed": 0,
        "logging_steps": 1,
        "activation_checkpointing": False,
    }
    step_ends, trained_tokens = [], []

    class StepClock(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            step_ends.append(time.perf_counter())

    if name == "mulferl":
        from trl_mulferl import MulFeRLConfig, MulFeRLTrainer

        colocate = {"use_vllm": True, "vllm_mode": "colocate", "vllm_max_model_length": 1024, "loss_type": "grpo"}
        args = MulFeRLConfig(**{**common, **colocate, "max_feedback_turns": MAX_FEEDBACK_TURNS, **(config or {})})
        trainer = MulFeRLTrainer(
            model_dir, reward_func, args=args, train_dataset=dataset, feedback_provider=feedback_provider
        )
        compute_loss, step_tokens = trainer._compute_loss, [0]

        def counted_loss(model, inputs):
            mask = inputs["completion_mask"] * inputs.get("tool_mask", 1)
            step_tokens[0] += int(mask.sum())
            return compute_loss(model, inputs)

        class TokenCount(TrainerCallback):
            def on_step_end(self, args, state, control, **kwargs):
                trained_tokens.append(step_tokens[0])
                step_tokens[0] = 0

        trainer._compute_loss = counted_loss
        for callback in (TokenCount(), StepClock(), *callbacks):
            trainer.add_callback(callback)
        with colocate_on_cpu(SharedEngines()):
            trainer.train()
    else:
        from trl.experimental.async_grpo import AsyncGRPOConfig, AsyncGRPOTrainer

        from trl_mulferl import AsyncMulFeRLConfig, AsyncMulFeRLTrainer

        asynchronous = {
            "vllm_server_base_url": server_url,
            "token_budget": 0,
            "max_staleness": 4,
            "max_inflight_tasks": len(rows) * k,
        }
        weight_transfer = DiskWeightTransfer(server_url, os.path.join(output_dir, "weights"))
        with cpu_substitutions():
            if name == "async_grpo":
                args = AsyncGRPOConfig(**{**common, **asynchronous, **(config or {})})
                trainer = AsyncGRPOTrainer(
                    model_dir, reward_func, args=args, train_dataset=dataset, weight_transfer=weight_transfer
                )
            else:
                turns = {"max_feedback_turns": MAX_FEEDBACK_TURNS}
                args = AsyncMulFeRLConfig(**{**common, **asynchronous, **turns, **(config or {})})
                trainer = AsyncMulFeRLTrainer(
                    model_dir,
                    reward_func,
                    args=args,
                    train_dataset=dataset,
                    weight_transfer=weight_transfer,
                    feedback_provider=feedback_provider,
                )
            for callback in (StepClock(), *callbacks):
                trainer.add_callback(callback)
            trainer.train()
        trained_tokens = [e["batch/trained_tokens_per_step"] for e in trainer.state.log_history if "perf/fwd_s" in e]
    history = trainer.state.log_history
    warmup = settings["warmup_steps"]
    measured = len(step_ends) - warmup
    seconds = step_ends[-1] - step_ends[warmup - 1]
    result = {
        "steps_per_s": measured / seconds,
        "trained_tokens_per_s": sum(trained_tokens[warmup:]) / seconds,
        "trained_tokens_per_step": sum(trained_tokens[warmup:]) / measured,
    }
    staleness = [e["sample/staleness_mean"] for e in history[warmup:] if e.get("sample/staleness_mean") is not None]
    if staleness:
        result["staleness_mean"] = sum(staleness) / len(staleness)
        result["staleness_max"] = max(e["sample/staleness_max"] for e in history if "sample/staleness_max" in e)
    return result


def build_model(settings: dict, path: Path):
    from tests.helpers.tiny import build_tiny_tokenizer
    from trl_mulferl.tiny import build_qwen2

    tokenizer = build_tiny_tokenizer()
    build_qwen2(tokenizer, hidden_size=settings["hidden_size"], num_layers=settings["layers"]).save_pretrained(path)
    tokenizer.save_pretrained(path)


def run_in_process(
    name: str,
    regime: str,
    settings: dict,
    model_dir: str,
    server_url: str,
    log: Path,
    *,
    script: str = __file__,
    cpus: set[int] | None = None,
    env: dict | None = None,
) -> dict:
    """`script --worker ...` in a process of its own (pinned to `cpus`, with `env` added to the environment); the
    JSON it writes."""
    output = log.with_suffix(".json")
    command = [sys.executable, script, "--worker", name, regime, json.dumps(settings), model_dir, server_url]
    command += [str(output)]
    pin = None if cpus is None else functools.partial(os.sched_setaffinity, 0, cpus)
    with log.open("w") as stream:
        completed = subprocess.run(
            command, stdout=stream, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}, preexec_fn=pin
        )
    if completed.returncode != 0:
        raise RuntimeError(f"{name} on {regime} failed:\n{log.read_text()[-4000:]}")
    return json.loads(output.read_text())


def run_worker(worker: list[str], run: Callable[..., dict]):
    """The `--worker` side of `run_in_process`: `run` with its arguments, its result written as JSON."""
    name, regime, settings, model_dir, server_url, output = worker
    Path(output).write_text(json.dumps(run(name, regime, json.loads(settings), model_dir, server_url)))


def ratios(runs: dict) -> dict:
    """Per regime, the median over repeats of each trainer's steps/s and trained tokens/s over AsyncGRPOTrainer's
    in the same repeat."""
    table = {}
    for regime, by_trainer in runs.items():
        grpo = by_trainer["async_grpo"]
        table[regime] = {
            name: {
                key: statistics.median(run[key] / base[key] for run, base in zip(measured, grpo, strict=True))
                for key in ("steps_per_s", "trained_tokens_per_s")
            }
            for name, measured in by_trainer.items()
        }
    return table


def medians(runs: dict) -> dict:
    """Per regime and trainer, the median over repeats of each measure."""
    return {
        regime: {
            name: {key: statistics.median(run[key] for run in measured) for key in measured[0]}
            for name, measured in by_trainer.items()
        }
        for regime, by_trainer in runs.items()
    }


def print_table(runs: dict):
    results = medians(runs)
    table = ratios(runs) if all("async_grpo" in by_trainer for by_trainer in runs.values()) else None
    print(f"{'regime':<14} {'trainer':<14} {'steps/s':>8} {'tok/s':>8} {'x AsyncGRPO':>12} {'staleness':>10}")
    for regime, by_trainer in results.items():
        for name, measured in by_trainer.items():
            staleness = measured.get("staleness_mean")
            ratio = "" if table is None else f"{table[regime][name]['steps_per_s']:.2f}"
            print(
                f"{regime:<14} {name:<14} {measured['steps_per_s']:>8.2f} {measured['trained_tokens_per_s']:>8.0f} "
                f"{ratio:>12} {'' if staleness is None else f'{staleness:.2f}':>10}"
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--regimes", nargs="+", choices=list(REGIMES), default=list(DEFAULT_REGIMES))
    parser.add_argument("--trainers", nargs="+", choices=TRAINERS, default=list(TRAINERS))
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, 1 measured step")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs of each trainer per regime, in a rotated order; medians reported"
    )
    parser.add_argument("--steps", type=int, help="measured steps (after the warm-up ones) instead of the default 6")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, run_trainer)
        return

    from tests.helpers.async_cpu import VLLMServer

    settings = dict(SMOKE if args.smoke else FULL)
    if args.steps:
        settings["steps"] = args.steps
    work = Path(tempfile.mkdtemp(prefix="async-overhead-"))
    model_dir = work / "model"
    build_model(settings, model_dir)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))  # stopped: the server too, in `finally`
    server = VLLMServer(str(model_dir), work / "vllm-serve.log", max_model_len=1024)
    runs = {}
    try:
        server.wait_until_healthy()
        for regime in args.regimes:
            runs[regime] = {name: [] for name in args.trainers}
            for repeat in range(args.repeats):
                # The order rotates, so that no trainer always runs first on a fresh server or last on a warm one.
                for name in (
                    args.trainers[repeat % len(args.trainers) :] + args.trainers[: repeat % len(args.trainers)]
                ):
                    log = work / f"{regime}-{name}-{repeat}.log"
                    runs[regime][name].append(run_in_process(name, regime, settings, str(model_dir), server.url, log))
                    print(f"{regime} {name} #{repeat}: {runs[regime][name][-1]}", flush=True)
    finally:
        server.stop()
    print_table(runs)
    if args.json:
        payload = {"settings": settings, "repeats": args.repeats, "results": medians(runs), "runs": runs}
        if "async_grpo" in args.trainers:
            payload["ratios_to_async_grpo"] = ratios(runs)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    main()
