"""scripts/gpu_check.py in its CPU mode, so that the GPU check cannot rot between GPU runs: the main environment's
backends (transformers, ZeRO-3), and, marked `vllm`, the async backend on vLLM's CPU build."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "gpu_check.py"
STEPS, GROUPS_PER_ROUTE, K = 2, 2, 4  # per step: 4 prompts of 4 rollouts, half GRPO and half FCO


def script_environment() -> dict[str, str]:
    """This process's environment without a torch.distributed rendezvous: an earlier test's in-process group (TRL's
    `ensure_master_addr_port` sets MASTER_PORT=29500) may still hold that port, and the script starts a group of its
    own."""
    rendezvous = {"MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE"}
    return {key: value for key, value in os.environ.items() if key not in rendezvous}


@pytest.mark.slow
def test_gpu_check_on_cpu(tmp_path):
    output = tmp_path / "rows.json"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--cpu", "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=600,
        env=script_environment(),
    )
    rows = {row["backend"]: row for row in json.loads(output.read_text())}
    assert list(rows) == ["transformers", "vllm", "zero3", "async"]
    assert rows["vllm"] == {"backend": "vllm", "ran": False, "skipped": "skipped: needs CUDA"}
    assert rows["async"] == {"backend": "async", "ran": False, "skipped": "skipped: vLLM is not importable"}
    for backend in ("transformers", "zero3"):
        row = rows[backend]
        assert row["ran"], row.get("error")
        assert (row["steps"], row["route/grpo"], row["route/fco"], row["route/unresolved"]) == (STEPS, 0.5, 0.5, 0.0)
        assert row["feedback/requests"] == STEPS * GROUPS_PER_ROUTE
        assert row["fco/pairs"] == STEPS * GROUPS_PER_ROUTE * K
        assert row["step_time_s"] > 0 and row["peak_gpu_memory_gib"] is None
        assert (row["dtype"], row["deepspeed"], row["vllm"]) == ("float32", backend == "zero3", False)
    assert result.returncode == 0, result.stderr[-3000:]
    table = result.stdout.splitlines()
    assert table[-5].split()[:3] == ["backend", "ran", "steps"]
    assert [line.split()[:2] for line in table[-4:]] == [
        ["transformers", "yes"],
        ["vllm", "no"],
        ["zero3", "yes"],
        ["async", "no"],
    ]


@pytest.mark.vllm
def test_gpu_check_async_backend_on_cpu(tmp_path):
    """The async backend end to end on vLLM's CPU build: a `vllm serve` beside AsyncMulFeRLTrainer, weights synced
    through the disk. 5 steps, since an FCO prompt's samples reach the queue a feedback turn after the GRPO groups
    generated with it: by the fifth step some have been trained (by the third, not always on a loaded CI machine)."""
    steps, output = 5, tmp_path / "rows.json"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--cpu", "--backends", "async", "--steps", str(steps), "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=600,
        env=script_environment(),
    )
    (row,) = json.loads(output.read_text())
    assert row["ran"], row.get("error")
    assert (row["steps"], row["weight_syncs"]) == (steps, steps + 1)  # the initial sync, then one per step
    assert (row["dtype"], row["vllm"], row["tree_attention"]) == ("float32", True, "per-segment SDPA")
    # Routes over the groups routed while training: GRPO (mixed) and FCO (solved after the feedback turn) only.
    assert 0 < row["route/grpo"] < 1 and row["route/grpo"] + row["route/fco"] == pytest.approx(1.0)
    assert row["route/unresolved"] == 0 and row["feedback/requests"] > 0
    assert row["fco/pairs"] > 0 and row["fco/pairs"] % K == 0  # the permutation pairing: K pairs per FCO prompt
    assert row["fco/loss"] > 0 and row["step_time_s"] > 0 and row["peak_gpu_memory_gib"] is None
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1].split()[:3] == ["async", "yes", str(steps)]
