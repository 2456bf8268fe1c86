"""GPU check: a few MulFeRL steps with feedback turns and FCO on every generation backend and engine this machine has.

    python scripts/gpu_check.py               # CUDA, bf16: transformers generation, vLLM colocate, DeepSpeed ZeRO-3,
                                              # AsyncMulFeRLTrainer beside a `vllm serve`
    python scripts/gpu_check.py --cpu         # on CPU in float32 (what CI runs): all but vLLM colocate; async with
                                              # vLLM's CPU build (CI's vLLM step: --cpu --backends async)
    python scripts/gpu_check.py --output check.json

Needs no network: the model (a random 4-layer Qwen2; 2 smaller layers on CPU) and its tokenizer are built locally
(`trl_mulferl.tiny`). The reward and the feedback provider are scripted so that every step has both routes: half of
the prompts get a mixed group (GRPO); the others fail at turn 0, get a feedback turn whose text holds a marker word,
and are solved (FCO).

Each backend runs in a process of its own (its own GPU memory peak and a torch.distributed group of one, which
vLLM's colocate mode and DeepSpeed need): transformers generation; vLLM colocate when vLLM is importable (CUDA only);
ZeRO-3 when DeepSpeed is (in one process, every parameter partitioned over a world of one: ZeRO's hooks, gathers
and partitioned optimizer, not the traffic between GPUs, which tests/mulferl/test_multiprocess.py checks on 2 CPU processes);
async when vLLM is importable: `AsyncMulFeRLTrainer` (its spawned rollout process asks the feedback and regenerates)
against a `vllm serve` that this script starts on the same GPU with a fifth of its memory and always stops, weights
synced through the disk (`train_async` says why), with tests/helpers/async_cpu.py's server, sync and CPU substitutions (on a
GPU only its tree attention, where TRL's flash-attention kernel cannot be loaded from the Hub or its cache).
It prints one row per backend: whether it ran, the time of a training step (generation, feedback turn, FCO scores,
forward and backward; for async, TRL's wall clock between steps), the peak GPU memory (of the trainer's process),
the routes and the FCO pairs. Exit status 1 when an available backend failed. Sized for under 5 minutes on one GPU
(each backend is stopped after 150 s, the server's start-up apart); not yet run on one.
"""

import argparse
import importlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests/helpers/async_cpu.py: the server, the disk weight sync and the CPU substitutions


MARKER = "MARKERWORD"
FEEDBACK = f"Issue: the answer misses {MARKER}. Fix steps: 1. Write {MARKER} before the answer."
TOKENIZER_TEXT = [
    "<|im_start|>user\nWhat is 12 + 30? Put the final answer in a box.<|im_end|>\n<|im_start|>assistant\n",
    "<thinking><feedback>Issue: the carry was dropped. Fix steps: 1. Add the units.</feedback>",
    "First add 2 and 0, then 1 and 3.</thinking> The final answer is \\boxed{42} 0123456789",
]
BACKENDS = ("transformers", "vllm", "zero3", "async")
ZERO3 = {
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},
    "bf16": {"enabled": "auto"},
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
}
TIMEOUT_S = {"gpu": 150, "cpu": 600}  # per backend; a loaded CI machine is slow
# vLLM's context: a prompt is 496 tokens of this tokenizer (`make_conversation`'s system prompt), its feedback prefill
# 59 more, then the completion.
MAX_MODEL_LEN = 1024
# The async backend's `vllm serve` on the trainer's GPU: a fifth of an H200's memory holds the tiny model and far more
# KV cache than it needs, and leaves the trainer (and the server's start-up profiling) room beside it.
SERVER_GPU_MEMORY_UTILIZATION = 0.2


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
        model = build_qwen2(tokenizer, hidden_size=128, num_layers=2)  # heads of 32: vLLM's CPU build takes no less
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


def run_backend(backend: str, model_dir: Path, cpu: bool, steps: int, fco_weight: float, server_url: str) -> dict:
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

    settings = {
        "output_dir": str(model_dir.parent / f"run-{backend}"),
        "per_device_train_batch_size": 16,  # 4 prompts x 4 rollouts: 2 GRPO and 2 FCO groups per step
        "num_generations": 4,
        "max_completion_length": 8 if cpu else 32,
        "max_steps": steps,
        "learning_rate": 1e-5,
        "max_feedback_turns": 1,
        "fco_weight": fco_weight,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": "none",
        "seed": 0,
        "use_cpu": cpu,
        "bf16": not cpu,
        "activation_checkpointing": True,
        "model_init_kwargs": {"dtype": "float32" if cpu else "bfloat16"},
    }
    row = {"backend": backend, "ran": False}
    try:
        if backend == "async":
            trainer, row_fields = train_async(model_dir, settings, cpu, server_url)
        else:
            trainer, row_fields = train_sync(backend, model_dir, settings, cpu)
    except Exception as error:  # reported in the table: one backend failing must not hide the others
        row["error"] = f"{type(error).__name__}: {error}"
        return row

    history = [entry for entry in trainer.state.log_history if "train_runtime" not in entry]
    if backend == "async":
        # TRL's wall clock between optimizer steps (rollout waits included; none before the first step), and the
        # routes of the groups routed in each step's window.
        step_times = [entry["perf/step_s"] for entry in history if "perf/step_s" in entry]
        logs = [entry for entry in history if "loss" in entry]
    else:
        logs = [entry for entry in history if "mulferl/route/grpo" in entry]
        step_times = [entry["step_time"] for entry in logs]
        step_times = step_times[1:] or step_times  # the first step also warms up (kernels, vLLM's first sync)
    row |= row_fields | {
        "ran": True,
        "steps": len(logs),
        "deepspeed": trainer.is_deepspeed_enabled,
        "device": str(trainer.accelerator.device),
        "dtype": str(next(trainer.model.parameters()).dtype).removeprefix("torch."),
        "step_time_s": sum(step_times) / len(step_times) if step_times else None,
        "peak_gpu_memory_gib": None if cpu else torch.cuda.max_memory_allocated() / 2**30,
    }
    for key in ("route/grpo", "route/fco", "route/unresolved", "feedback/requests", "fco/pairs", "fco/loss"):
        values = [entry[f"mulferl/{key}"] for entry in history if f"mulferl/{key}" in entry]
        row[key] = sum(values) / len(values) if key.startswith("route") else sum(values)
    return row


def train_sync(backend: str, model_dir: Path, settings: dict, cpu: bool):
    """`MulFeRLTrainer` on transformers generation, vLLM colocate or ZeRO-3, trained; with its row's own fields."""
    import torch
    from transformers import AutoTokenizer

    from trl_mulferl import MulFeRLConfig, MulFeRLTrainer

    settings = settings | {"beta": 0.001}
    if backend == "vllm":
        settings |= {
            "use_vllm": True,
            "vllm_mode": "colocate",
            "vllm_gpu_memory_utilization": 0.15,
            "vllm_max_model_length": MAX_MODEL_LEN,
        }
    if backend == "zero3":
        settings["deepspeed"] = ZERO3
    trainer = MulFeRLTrainer(
        model=str(model_dir),
        reward_funcs=scripted_reward,
        args=MulFeRLConfig(**settings),
        train_dataset=make_dataset(num_prompts=4 * settings["max_steps"]),
        processing_class=AutoTokenizer.from_pretrained(model_dir),
        feedback_provider=scripted_provider,
    )
    if not cpu:
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    return trainer, {"vllm": trainer.use_vllm}


def train_async(model_dir: Path, settings: dict, cpu: bool, server_url: str):
    """`AsyncMulFeRLTrainer` against the `vllm serve` at `server_url`, trained; with its row's own fields.

    The weights reach the server through the disk (`DiskWeightTransfer`: safetensors, then the server's
    `reload_weights` between `/pause` and `/resume`), which needs nothing of the device. TRL's default sync is NCCL
    between the trainer and the server, whose processes here share one GPU: NCCL refuses two ranks of one
    communicator on the same device, and that server would also need `--weight-transfer-config`. Its LoRA sync (an
    adapter over HTTP) would work beside it, but trains a PEFT adapter, unlike the other backends.
    """
    import contextlib

    import torch
    from trl.experimental.async_grpo import packing

    from tests.helpers.async_cpu import DiskWeightTransfer, cpu_substitutions, tree_attention_substitution
    from trl_mulferl import AsyncMulFeRLConfig, AsyncMulFeRLTrainer

    if cpu:
        # The server generates beside the trainer on the same few cores: 1 GRPO and 1 FCO prompt per step, and no
        # recomputation in the backward, keep a CPU step within seconds.
        settings |= {"per_device_train_batch_size": 8, "activation_checkpointing": False}
    settings = settings | {
        "vllm_server_base_url": server_url,
        "dtype": settings["model_init_kwargs"]["dtype"],
        "token_budget": 0,  # a fixed count of samples per micro-batch (an FCO prompt counts its K rows)
        # One step's rollouts in flight: the rollout process keeps about a step ahead, so that the FCO prompts, whose
        # samples come a feedback turn later, are trained in the first steps rather than behind many GRPO groups.
        "max_inflight_tasks": settings["per_device_train_batch_size"],
    }
    if cpu:
        substitutions, attention = cpu_substitutions(), "per-segment SDPA"
    else:
        # TRL's tree attention loads a flash-attention kernel from the Hub (or the Hub's cache); on a GPU that cannot
        # reach it, the per-segment attention of the CPU tests takes its place, and the row says so.
        try:
            packing._flash_attn()
            substitutions, attention = contextlib.nullcontext(), "flash-attn kernel"
        except Exception as error:
            substitutions = tree_attention_substitution()
            attention = f"per-segment SDPA (no kernel: {type(error).__name__})"
    weight_transfer = DiskWeightTransfer(server_url, str(model_dir.parent / "async-weights"))
    with substitutions:
        trainer = AsyncMulFeRLTrainer(
            model=str(model_dir),
            reward_funcs=scripted_reward,
            args=AsyncMulFeRLConfig(**settings),
            train_dataset=make_dataset(num_prompts=4 * settings["max_steps"]),
            weight_transfer=weight_transfer,
            feedback_provider=scripted_provider,
        )
        if not cpu:
            torch.cuda.reset_peak_memory_stats()
        trainer.train()
    return trainer, {"vllm": True, "weight_syncs": weight_transfer.syncs, "tree_attention": attention}


def run_in_process(backend: str, work_dir: Path, cpu: bool, steps: int, fco_weight: float) -> dict:
    """`backend`'s row from a process of its own (the async backend's `vllm serve` beside it, stopped always)."""
    row_file, timeout = work_dir / f"{backend}.json", TIMEOUT_S["cpu" if cpu else "gpu"]
    command = [sys.executable, __file__, "--backend", backend, "--model-dir", str(work_dir / "model")]
    command += ["--row-file", str(row_file), "--steps", str(steps), "--fco-weight", str(fco_weight)]
    command += ["--cpu"] if cpu else []
    server = None
    try:
        if backend == "async":
            from tests.helpers.async_cpu import VLLMServer

            server = VLLMServer(
                str(work_dir / "model"),
                work_dir / "vllm-serve.log",
                max_model_len=MAX_MODEL_LEN,
                gpu_memory_utilization=None if cpu else SERVER_GPU_MEMORY_UTILIZATION,
            )
            try:
                server.wait_until_healthy(timeout=timeout)
            except RuntimeError as error:
                return {"backend": backend, "ran": False, "error": f"vllm serve: {str(error)[-300:]}"}
            command += ["--server-url", server.url]
        # In a session of its own, so that a timeout also ends what it started (vLLM's engine, the rollout process).
        child = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            _, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"backend": backend, "ran": False, "error": f"timed out after {timeout} s"}
        finally:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            child.wait()
    finally:
        if server is not None:
            server.stop()
    if row_file.exists():
        return json.loads(row_file.read_text())
    last_lines = " | ".join(stderr.strip().splitlines()[-3:])
    return {"backend": backend, "ran": False, "error": f"exit status {child.returncode}: {last_lines}"}


def availability(backend: str, cpu: bool) -> str | None:
    """Why `backend` cannot run here, or None."""
    if backend == "vllm" and cpu:
        return "needs CUDA"
    if backend in ("vllm", "async") and importlib.util.find_spec("vllm") is None:
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
        step_time = "-" if row["step_time_s"] is None else f"{row['step_time_s']:.2f} s"
        routes = f"{row['route/grpo']:.2f} / {row['route/fco']:.2f}"
        note = f"{row['dtype']} on {row['device']}, {row['feedback/requests']:.0f} feedback requests"
        if "weight_syncs" in row:
            note += f", {row['weight_syncs']} weight syncs by disk, tree attention: {row['tree_attention']}"
        lines.append(
            [row["backend"], "yes", str(row["steps"]), step_time, memory, routes] + [f"{row['fco/pairs']:.0f}", note]
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
    parser.add_argument(
        "--cpu", action="store_true", help="run on CPU in float32 (CI); vLLM only as its CPU build's server (async)"
    )
    parser.add_argument("--steps", type=int, default=None, help="training steps per backend (default 3, CPU 2)")
    parser.add_argument("--fco-weight", type=float, default=0.01, help="FCO weight (the paper's 0.01)")
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--output", type=Path, help="also write the rows as JSON to this file")
    parser.add_argument("--backend", choices=BACKENDS, help=argparse.SUPPRESS)  # a child process: one backend
    parser.add_argument("--model-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--row-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--server-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    steps = args.steps or (2 if args.cpu else 3)

    if args.backend:
        row = run_backend(args.backend, args.model_dir, args.cpu, steps, args.fco_weight, args.server_url)
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
            start = time.perf_counter()
            row = run_in_process(backend, Path(work_dir), args.cpu, steps, args.fco_weight)
            row["wall_s"] = time.perf_counter() - start
            rows.append(row)
            print(f"  {backend}: {'ran' if row['ran'] else 'did not run'} ({row['wall_s']:.0f} s)", flush=True)
    print(format_table(rows))
    if args.output:
        args.output.write_text(json.dumps(rows, indent=2))
    return int(any("error" in row for row in rows))


if __name__ == "__main__":
    sys.exit(main())
