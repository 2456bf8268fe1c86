"""`benchmarks/overhead.py --smoke` runs end to end, so the benchmark cannot rot."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "overhead.py"


@pytest.mark.slow
def test_overhead_smoke_run(tmp_path):
    output = tmp_path / "overhead.json"
    command = [sys.executable, str(SCRIPT), "--smoke", "--regimes", "slow_reward", "--json", str(output)]
    completed = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "slow_reward" in completed.stdout and "reward rows per step" in completed.stdout

    result = json.loads(output.read_text())["slow_reward"]
    # 4 prompts x K=4 at turn 0; one group regenerated once, one twice: 3 generation calls, 16 + 4 + 8 rows scored.
    assert result["generation_calls"] == 3 and result["grpo"]["generation_calls"] == 1
    assert result["reward_rows"] == result["expected_reward_rows"] == 28
    assert result["grpo"]["reward_rows"] == 16
    assert result["mulferl"]["logged_reward_rows"] == [28.0]  # the trainer's own count agrees
    assert result["token_ratio"] == 28 / 16  # every completion has exactly the smoke run's 8 tokens
    for key in ("step_time_ratio", "cpu_time_ratio", "peak_memory_ratio"):
        assert result[key] > 0
    assert result["mulferl"]["reference_forwards"] == 1  # beta > 0: the GRPO rows' KL; no FCO here
