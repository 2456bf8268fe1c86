import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).parent / "scripts" / "two_process_training.py"


def launch_two_processes(mode: str, output_dir: Path) -> list[dict]:
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2"]
    command += ["--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", str(SCRIPT), mode]
    # `--cpu` would start a single process; torchrun's launcher with `use_cpu=True` in the config gives gloo on CPU.
    env = {**os.environ, "MULFERL_TEST_OUTPUT": str(output_dir)}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return [json.loads((output_dir / f"result_rank{rank}.json").read_text()) for rank in (0, 1)]


@pytest.mark.slow
def test_two_processes_one_needing_feedback(tmp_path):
    """DDP on CPU (gloo): rank 1 needs a feedback turn every step, rank 0 never; no hang, and gathered metrics."""
    results = launch_two_processes("mulferl", tmp_path)
    # Rank 1 back-propagates FCO partner sequences that rank 0 does not have; gradients must still be all-reduced.
    assert results[0]["parameters"] == results[1]["parameters"]
    step_logs = [[entry for entry in result["log_history"] if "mulferl/route/grpo" in entry] for result in results]
    assert len(step_logs[0]) == 3
    routing_keys = [key for key in step_logs[0][0] if key.startswith("mulferl/") and "latency" not in key]
    for rank0_entry, rank1_entry in zip(*step_logs, strict=True):
        assert {k: rank0_entry[k] for k in routing_keys} == {k: rank1_entry[k] for k in routing_keys}
    # 2 groups per rank: rank 0's are mixed, rank 1's fail and are solved by the feedback turn.
    for entry in step_logs[0]:
        assert entry["mulferl/route/grpo"] == 0.5
        assert entry["mulferl/route/fco"] == 0.5
        assert entry["mulferl/turn_0/failed_groups"] == 2.0
        assert entry["mulferl/turn_1/escape_rate"] == 1.0
        assert entry["mulferl/feedback/requests"] == 2.0
        assert entry["mulferl/fco/pairs"] == 4.0
    # One request per failed group in total, each asked by the rank that holds the group.
    assert not (tmp_path / "requests_rank0.txt").exists()
    assert len((tmp_path / "requests_rank1.txt").read_text().splitlines()) == 2 * 3


@pytest.mark.slow
def test_igrpo_on_two_processes(tmp_path):
    results = launch_two_processes("igrpo", tmp_path)
    assert results[0]["parameters"] == results[1]["parameters"]
    step_logs = [
        [entry for entry in result["log_history"] if "igrpo/best_draft_reward" in entry] for result in results
    ]
    assert len(step_logs[0]) == 2
    for rank0_entry, rank1_entry in zip(*step_logs, strict=True):
        assert {k: v for k, v in rank0_entry.items() if k.startswith("igrpo/")} == {
            k: v for k, v in rank1_entry.items() if k.startswith("igrpo/")
        }
