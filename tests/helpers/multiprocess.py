"""Launching the two-process scripts under an engine, and the checks of what each rank wrote (the multi-process and
vLLM tests)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest


CONFIGS = Path(__file__).parent / "engine_configs"


ROUTE_KEYS = (
    "mulferl/route/grpo",
    "mulferl/route/fco",
    "mulferl/route/solved_skip",
    "mulferl/route/unresolved",
    "mulferl/route/unscorable",
    "mulferl/turn_0/failed_groups",
    "mulferl/turn_1/failed_groups",
    "mulferl/turn_1/escape_rate",
    "mulferl/reward_final",
    "mulferl/feedback/requests",
    "mulferl/feedback/errors",
)
FCO_KEYS = ("mulferl/fco/pairs", "mulferl/fco/dropped_pairs")


def launch_pair(script: Path, engine: str, arguments: list[str], env: dict, timeout: int = 300) -> str:
    """`accelerate launch` of `script` on 2 processes under `engine`: "" when both exit cleanly, else why not."""
    command = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", f"{engine}.yaml", str(script)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", **env}
    if engine != "ddp":  # torch 2.13's DistributedDataParallel segfaults on CPU under DETAIL, as it is built
        # gloo checks that every process enters the same collective and names the one that does not.
        env["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    if engine == "fsdp1":
        env["ACCELERATE_TORCH_DEVICE"] = "cpu"  # else FSDP1 finds "cpu" and "cpu:0" inconsistent
    launch = subprocess.Popen(
        command + arguments, cwd=CONFIGS, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:  # a timeout, not a hang: a rank that skips a collective the other runs blocks forever
        _, stderr = launch.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # SIGTERM, which the launcher passes on to the ranks (each runs in a session of its own): after a SIGKILL they
        # would wait on in their collectives, holding the rendezvous port that the next launch needs.
        launch.terminate()
        _, stderr = launch.communicate()
        return f"timed out after {timeout} s (a hang?):\n{stderr[-6000:]}"
    return "" if launch.returncode == 0 else f"exit status {launch.returncode}:\n{stderr[-6000:]}"


def step_logs(result: dict, key: str = "mulferl/route/grpo") -> list[dict]:
    return [entry for entry in result["log_history"] if key in entry]


MATRIX = Path(__file__).parent / "scripts" / "two_process_matrix.py"


COLLECTIVE_GENERATION = {"zero3", "fsdp2"}  # where `generate` is collective (the tools' refusal)


def check_matrix_cell(engine: str, results: list[dict], keys=ROUTE_KEYS) -> list[dict]:
    """The engine ran on both processes, their weights are identical and moved, and they logged the same metrics;
    returns rank 0's step logs."""
    for result in results:
        facts = result["engine"]
        assert facts["num_processes"] == 2
        assert (facts["deepspeed"], facts["fsdp"]) == (engine.startswith("zero"), engine.startswith("fsdp"))
        assert facts.get("zero_stage", facts.get("fsdp_version")) == (int(engine[-1]) if engine != "ddp" else None)
        assert facts["local_parameter_fraction"] == pytest.approx(
            0.5 if engine in COLLECTIVE_GENERATION else 1.0, 0.02
        )
    assert results[0]["parameters"] == results[1]["parameters"]
    assert results[0]["moved"] > 1e-4
    logs = [step_logs(result) for result in results]
    assert len(logs[0]) == 2
    assert [{k: e[k] for k in keys if k in e} for e in logs[0]] == [{k: e[k] for k in keys if k in e} for e in logs[1]]
    return logs[0]


def check_varied_lengths(logs: list[dict]):
    """The policy stopped at end-of-sequence, after different numbers of tokens."""
    assert all(entry["completions/clipped_ratio"] < 1 for entry in logs)
    assert all(entry["completions/min_length"] < entry["completions/max_length"] for entry in logs)


def evaluation_logs(result: dict) -> list[float]:
    return [entry["eval/pass@1"] for entry in result["log_history"] if "eval/pass@1" in entry]
