"""`benchmarks/learning_cost.py` on a barely trained warm start, 2 steps, 1 round: it runs, and its split adds up."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "learning_cost.py"


@pytest.mark.slow
@pytest.mark.parametrize("task", ["addition", "programs"])
def test_learning_cost_smoke_run(tmp_path, task):
    output = tmp_path / "learning_cost.json"
    command = [sys.executable, str(SCRIPT), "--steps", "2", "--rounds", "1", "--quick", "--warmup-steps", "0"]
    command += ["--task", task]
    completed = subprocess.run(
        [*command, "--work-dir", str(tmp_path / "runs"), "--json", str(output)],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "MulFeRL's loss part <= 1.25 x GRPO's" in completed.stdout

    methods = json.loads(output.read_text())["methods"]
    assert list(methods) == ["GRPO", "MulFeRL", "MulFeRL + replay", "preset"]
    for name, method in methods.items():
        parts = sum(method[part] for part in ("generation_s", "feedback_s", "reward_s", "turn_loop_s", "loss_s"))
        assert 0 < parts <= method["step_s"] * 1.001, name  # TRL's own scoring work is the rest
        assert method["padding_per_scored_token"] >= 0 and method["seconds_per_rollout"] > 0
        assert method["x_GRPO"]["step_s"] == (1.0 if name == "GRPO" else method["x_GRPO"]["step_s"])
    assert methods["GRPO"]["feedback_s"] == methods["GRPO"]["turn_loop_s"] == 0.0
    assert methods["GRPO"]["escape_by_turn"] == {}
    for name in ("MulFeRL", "MulFeRL + replay", "preset"):
        assert methods[name]["feedback_s"] > 0  # the quick warm start fails groups: the checker is asked
        turns = methods[name]["escape_by_turn"]
        assert list(turns) == ["1", "2"]
        assert all(0 <= t["escaped"] <= t["reached"] for t in turns.values())
