"""scripts/gpu_check.py in its CPU mode, so that the GPU check cannot rot between GPU runs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "gpu_check.py"
STEPS, GROUPS_PER_ROUTE, K = 2, 2, 4  # per step: 4 prompts of 4 rollouts, half GRPO and half FCO


@pytest.mark.slow
def test_gpu_check_on_cpu(tmp_path):
    output = tmp_path / "rows.json"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--cpu", "--output", str(output)], capture_output=True, text=True, timeout=600
    )
    rows = {row["backend"]: row for row in json.loads(output.read_text())}
    assert list(rows) == ["transformers", "vllm", "zero3"]
    assert rows["vllm"] == {"backend": "vllm", "ran": False, "skipped": "skipped: needs CUDA"}
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
    assert table[-4].split()[:3] == ["backend", "ran", "steps"]
    assert [line.split()[:2] for line in table[-3:]] == [
        ["transformers", "yes"],
        ["vllm", "no"],
        ["zero3", "yes"],
    ]
