"""GPU check: a few MulFeRL steps with feedback turns and FCO on every generation backend and engine this machine has.

    python scripts/gpu_check.py               # CUDA, bf16: transformers generation, vLLM colocate, DeepSpeed ZeRO-3
    python scripts/gpu_check.py --cpu         # the same on CPU in float32, without vLLM (what CI runs)
    python scripts/gpu_check.py --output check.json

Needs no network: the model (a random 4-layer Qwen2; 2 smaller layers on CPU) and its tokenizer are built locally
(`trl_mulferl.tiny`). The reward and the feedback provider are scripted so that every step has both routes: half of
the prompts get a mixed group (GRPO); the others fail at turn 0, get a feedback turn whose text holds a marker word,
and are solved (FCO).

Each backend runs in a process of its own (its own GPU memory peak and a torch.distributed group of one, which
vLLM's colocate mode and DeepSpeed need): transformers generation; vLLM colocate when vLLM is importable (CUDA only);
ZeRO-3 when DeepSpeed is (in one process, every parameter partitioned over a world of one: ZeRO's hooks, gathers
and partitioned optimizer, not the traffic between GPUs, which tests/test_multiprocess.py checks on 2 CPU processes).
It prints one row per backend: whether it ran, the time of a training step (generation, feedback turn, FCO scores,
forward and backward), the peak GPU memory, the routes and the FCO pairs. Exit status 1 when an available backend
failed. Sized for under 5 minutes on one GPU (each backend is stopped after 150 s); not yet run on one.
"""

import argparse
import importlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


MARKER = "MARKERWORD"
FEEDBACK = f"Issue: the answer misses {MARKER}. Fix steps: 1. Write {MARKER} before the answer."
TOKENIZER_TEXT = [
    "<|im_start|>user\nWhat is 12 + 30? Put the final answer in a box.<|im_end|>\n<|im_start|>assistant\n",
    "<thinking><feedback>Issue: the carry was dropped. Fix steps: 1. Add the units.</feedback>",
    "First add 2 and 0, then 1 and 3.</thinking> The final answer is \\boxed{42} 0123456789",
]
BACKENDS = ("transformers", "vllm", "zero3")
ZERO3 = {
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},
    "bf16": {"enabled": "auto"},
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
}
TIMEOUT_S = {"gpu": 150, "cpu": 600}  # per backend; a loaded CI machine is slow


def scripted_reward(completions, kind, **kwargs):
    """`mixed` prompts: every other rollout succeeds (GRPO). `marker` prompts: success exactly when the feedback's
    marker is in the answer, which only the injected feedback puts there (a feedback turn, then FCO)."""
    texts = [c if isinstance(c, str) else c[0]["content"] for c in completions]
    return [float(i % 2 == 0) if k == "mixed" else float(MARKER in t) for i, (t, k) in enumerate(zip(texts, kind))]


def scripted_provider(prompt, completions, rewards, **columns):
    return FEEDBACK


def build_model(model_dir: Path, cpu: bool):
    import torch

    from trl_mulferl.tiny import build_qwen2, train_tokenizer

    tokenizer = train_tokenizer(TOKENIZER_TEXT * 20, vocab_size=512)
    if cpu:
        model = build_qwen2(tokenizer, hidden_size=64, num_layers=2)
    else:
        model = build_qwen2(tokenizer, hidden_size=256, num_layers=4).to(torch.bfloat16)  # heads of 64 suit vLLM
    model.save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)


def make_dataset(num_prompts: int):
    from datasets import Dataset

    from trl_mulferl import make_conversation

    rows = [
        {"prompt": make_conversation(f"What is {i} + {i}?"), "kind": "mixed" if i % 2 == 0 else "marker"}
        for i in range(num_prompts)
    ]
    return Dataset.from_list(rows)


def run_backend(backend: str, model_dir: Path, cpu: bool, steps: int, fco_weight: float) -> dict:
    """One backend's training run, in this process; returns its row of the table."""
    # A torch.distributed group of one, as `accelerate launch` would set up: vLLM's colocate mode (external launcher)
    # and DeepSpeed need one.
    for key, value in {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1"}.items():
        os.environ.setdefault(key, value)
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(probe.getsockname()[1])
    if backend == "zero3" and cpu:
        # On CPU, DeepSpeed JIT-compiles a shared-memory all-reduce op on first use (minutes); a world of one never
        # all-reduces across processes.
        importlib.import_module("deepspeed.comm.torch")
        sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None

    import torch
    from transformers import AutoTokenizer

    from trl_mulferl import MulFeRLConfig, MulFeRLTrainer

    settings = {
        "output_dir": str(model_dir.parent / f"run-{backend}"),
        "per_device_train_batch_size": 16,  # 4 prompts x 4 rollouts: 2 GRPO and 2 FCO groups per step
        "num_generations": 4,
        "max_completion_length": 8 if cpu else 32,
        "max_steps": steps,
        "learning_rate": 1e-5,
        "max_feedback_turns": 1,
        "fco_weight": fco_weight,
        "beta": 0.001,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": "none",
        "seed": 0,
        "use_cpu": cpu,
        "bf16": not cpu,
        "activation_checkpointing": True,
        "model_init_kwargs": {"dtype": "float32" if cpu else "bfloat16"},
    }
    if backend == "vllm":
        settings |= {
            "use_vllm": True,
            "vllm_mode": "colocate",
            "vllm_gpu_memory_utilization": 0.15,
            "vllm_max_model_length": 512,
        }
    if backend == "zero3":
        settings["deepspeed"] = ZERO3
    row = {"backend": backend, "ran": False}
    try:
        trainer = MulFeRLTrainer(
            model=str(model_dir),
            reward_funcs=scripted_reward,
            args=MulFeRLConfig(**settings),
            train_dataset=make_dataset(num_prompts=4 * steps),
            processing_class=AutoTokenizer.from_pretrained(model_dir),
            feedback_provider=scripted_provider,
        )
        if not cpu:
            torch.cuda.reset_peak_memory_stats()
        trainer.train()
    except Exception as error:  # reported in the table: one backend failing must not hide the others
        row["error"] = f"{type(error).__name__}: {error}"
        return row

    logs = [entry for entry in trainer.state.log_history if "mulferl/route/grpo" in entry]
    step_times = [entry["step_time"] for entry in logs]
    row |= {
        "ran": True,
        "steps": len(logs),
        "deepspeed": trainer.is_deepspeed_enabled,
        "vllm": trainer.use_vllm,
        "device": str(trainer.accelerator.device),
        "dtype": str(next(trainer.model.parameters()).dtype).removeprefix("torch."),
        # the first step also warms up (kernels, vLLM's first weight sync)
        "step_time_s": sum(step_times[1:]) / len(step_times[1:]) if len(step_times) > 1 else step_times[0],
        "peak_gpu_memory_gib": None if cpu else torch.cuda.max_memory_allocated() / 2**30,
    }
    for key in ("route/grpo", "route/fco", "route/unresolved", "feedback/requests", "fco/pairs", "fco/loss"):
        values = [entry[f"mulferl/{key}"] for entry in logs if f"mulferl/{key}" in entry]
        row[key] = sum(values) / len(values) if key.startswith("route") else sum(values)
    return row


def availability(backend: str, cpu: bool) -> str | None:
    """Why `backend` cannot run here, or None."""
    if backend == "vllm":
        if cpu:
            return "needs CUDA"
        if importlib.util.find_spec("vllm") is None:
            return "vLLM is not importable"
    if backend == "zero3" and importlib.util.find_spec("deepspeed") is None:
        return "DeepSpeed is not importable"
    return None


def format_table(rows: list[dict]) -> str:
    header = ["backend", "ran", "steps", "step time", "peak GPU mem", "grpo / fco", "FCO pairs", "note"]
    lines = []
    for row in rows:
        if not row["ran"]:
            note = row.get("skipped") or row.get("error", "")
            lines.append([row["backend"], "no", "-", "-", "-", "-", "-", note[:300]])
            continue
        memory = "-" if row["peak_gpu_memory_gib"] is None else f"{row['peak_gpu_memory_gib']:.2f} GiB"
        routes = f"{row['route/grpo']:.2f} / {row['route/fco']:.2f}"
        note = f"{row['dtype']} on {row['device']}, {row['feedback/requests']:.0f} feedback requests"
        lines.append(
            [row["backend"], "yes", str(row["steps"]), f"{row['step_time_s']:.2f} s", memory, routes]
            + [f"{row['fco/pairs']:.0f}", note]
        )
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False)) + "  " + line[-1]
        for line in [header, *lines]
    )


def versions() -> str:
    import torch
    import transformers
    import trl

    parts = [f"torch {torch.__version__}", f"transformers {transformers.__version__}", f"trl {trl.__version__}"]
    for name in ("vllm", "deepspeed"):
        if importlib.util.find_spec(name) is not None:
            parts.append(f"{name} {importlib.import_module(name).__version__}")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    return f"{device}; " + ", ".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", action="store_true", help="run on CPU in float32, without vLLM (CI)")
    parser.add_argument("--steps", type=int, default=None, help="training steps per backend (default 3, CPU 2)")
    parser.add_argument("--fco-weight", type=float, default=0.01, help="FCO weight (the paper's 0.01)")
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--output", type=Path, help="also write the rows as JSON to this file")
    parser.add_argument("--backend", choices=BACKENDS, help=argparse.SUPPRESS)  # a child process: one backend
    parser.add_argument("--model-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--row-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    steps = args.steps or (2 if args.cpu else 3)

    if args.backend:
        row = run_backend(args.backend, args.model_dir, args.cpu, steps, args.fco_weight)
        args.row_file.write_text(json.dumps(row))
        return 0

    import torch

    if not args.cpu and not torch.cuda.is_available():
        parser.error("no CUDA device: run with --cpu")
    print(f"MulFeRL GPU check: {versions()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as work_dir:
        model_dir = Path(work_dir) / "model"
        build_model(model_dir, args.cpu)
        for backend in args.backends:
            reason = availability(backend, args.cpu)
            if reason is not None:
                rows.append({"backend": backend, "ran": False, "skipped": f"skipped: {reason}"})
                continue
            row_file = Path(work_dir) / f"{backend}.json"
            command = [sys.executable, __file__, "--backend", backend, "--model-dir", str(model_dir)]
            command += ["--row-file", str(row_file), "--steps", str(steps), "--fco-weight", str(args.fco_weight)]
            command += ["--cpu"] if args.cpu else []
            start, timeout = time.perf_counter(), TIMEOUT_S["cpu" if args.cpu else "gpu"]
            try:
                child = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                rows.append({"backend": backend, "ran": False, "error": f"timed out after {timeout} s"})
                continue
            if row_file.exists():
                row = json.loads(row_file.read_text())
            else:
                last_lines = " | ".join(child.stderr.strip().splitlines()[-3:])
                row = {"backend": backend, "ran": False, "error": f"exit status {child.returncode}: {last_lines}"}
            row["wall_s"] = time.perf_counter() - start
            rows.append(row)
            print(f"  {backend}: {'ran' if row['ran'] else 'did not run'} ({row['wall_s']:.0f} s)", flush=True)
    print(format_table(rows))
    if args.output:
        args.output.write_text(json.dumps(rows, indent=2))
    return int(any("error" in row for row in rows))


if __name__ == "__main__":
    sys.exit(main())
