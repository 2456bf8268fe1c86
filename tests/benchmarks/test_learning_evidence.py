import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trl_mulferl.demo.tasks import TASKS


ROOT = Path(__file__).resolve().parents[2]


def load_protocol():
    spec = importlib.util.spec_from_file_location("learning_evidence", ROOT / "benchmarks" / "learning_evidence.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reserved_seeds_are_refused(capsys):
    protocol = load_protocol()
    with pytest.raises(SystemExit):
        protocol.main(["--seeds", "100", "1000"])
    assert "seeds from 1000 on are reserved for independent replication" in capsys.readouterr().err


def test_the_bar_needs_the_gain_its_lower_end_and_the_time():
    protocol = load_protocol()

    def summary(gain: float, low: float, ratio: float) -> dict:
        return {
            "difference_vs_GRPO": {"MulFeRL, matched rollouts": {"mean": gain, "low": low, "high": 2 * gain - low}},
            "wall_time_ratio_at_matched_rollouts": {"mean": ratio, "low": ratio, "high": ratio},
        }

    met = protocol.verdict(summary(0.06, 0.01, 1.2))
    assert met["gain_met"] and met["time_met"]
    assert not protocol.verdict(summary(0.04, 0.01, 1.2))["gain_met"]  # too small a gain
    assert not protocol.verdict(summary(0.08, -0.01, 1.2))["gain_met"]  # an interval that holds 0
    assert not protocol.verdict(summary(0.08, 0.01, 1.4))["time_met"]


@pytest.mark.slow
def test_one_command_runs_the_protocol_on_both_tasks(tmp_path):
    """The smoke run: a barely trained warm start per task, 2 steps, every control; the table, the verdicts, the JSON
    and the plot (under a minute on 2 cores)."""
    command = [sys.executable, str(ROOT / "benchmarks" / "learning_evidence.py"), "--quick", "--seeds", "0"]
    command += ["--work-dir", str(tmp_path / "runs"), "--output", str(tmp_path / "evidence.json")]
    command += ["--plot", str(tmp_path / "evidence.png")]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(command, check=True, env=environment, capture_output=True, text=True)
    report = json.loads((tmp_path / "evidence.json").read_text())
    assert set(report["tasks"]) == {"addition", "programs"} and set(report["verdicts"]) == {"addition", "programs"}
    assert report["preset"] == "replay" and str(tmp_path / "runs") not in report["command"]
    for task, task_report in report["tasks"].items():
        summary = task_report["summary"]
        assert set(summary["controls"]) == {"vague feedback", "shuffled feedback", "GRPO, larger K"}
        assert summary["kinds"] == list(TASKS[task].kinds)
        runs = task_report["per_seed"]["0"]
        assert runs["MulFeRL"]["overrides"]["feedback_replay"] and len(runs["MulFeRL"]["escape_rate"]) == 2
        larger_k = task_report["controls"]["GRPO, larger K"]["0"]
        assert larger_k["run"] == "GRPO" and larger_k["overrides"]["num_generations"] >= 4
        assert f"## {task}" in result.stdout and "| shuffled feedback |" in task_report["table"]
    assert "addition: gain" in result.stdout and "programs: gain" in result.stdout
    assert (tmp_path / "evidence.png").stat().st_size > 10_000


@pytest.mark.slow
def test_task_calibration_runs_on_development_seeds_only(tmp_path):
    """A barely trained warm start per task: its groups all fail, and the shares are counted from the trainer's own
    routing metrics; a confirmation seed is refused (calibration is a choice)."""
    script = ROOT / "benchmarks" / "task_calibration.py"
    command = [sys.executable, str(script), "--quick", "--seeds", "0", "--steps", "1", "--prompts-per-step", "4"]
    command += ["--work-dir", str(tmp_path / "runs"), "--json", str(tmp_path / "calibration.json")]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    subprocess.run(command, check=True, env=environment, capture_output=True)
    results = json.loads((tmp_path / "calibration.json").read_text())["results"]
    for task in ("addition", "programs"):
        result = results[task]["0"]
        assert result["groups"] == 4 and 0 <= result["all_failed"] <= 4
        assert result["all_failed_share"] == result["all_failed"] / 4 and result["regenerated"] <= result["all_failed"]
    refused = subprocess.run([*command[:4], "100"], env=environment, capture_output=True, text=True)
    assert refused.returncode == 2 and "development seeds (0-19) only" in refused.stderr
