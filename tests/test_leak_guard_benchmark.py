"""`benchmarks/leak_guard.py` on two MATH-500 problems runs end to end, so the benchmark cannot rot."""

import json
import subprocess
import sys
from pathlib import Path


SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "leak_guard.py"


def test_leak_guard_benchmark_on_two_problems(shared_data, tmp_path):
    output = tmp_path / "leak_guard.json"
    data = shared_data / "math500" / "test.jsonl"
    command = [sys.executable, str(SCRIPT), "--data", str(data), "--problems", "2", "--expressions", "600"]
    command += ["--given-problems", "40"]
    command += ["--output", str(output)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["bare_answer_table"]["leaks"] == 37 and result["bare_answer_table"]["non_leaks"] == 24
    now = result["worked_solutions"]["now: solution's final answer"]
    assert now["leaks"] == 2 * 6 and now["recall"] == 1.0 and now["false_positive_rate"] == 0.0
    shapes = result["short_answer_shapes"]
    counts = {shape: (rates["leaks"], rates["non_leaks"]) for shape, rates in shapes.items()}
    assert counts == {
        "instruction": (144, 60),
        "spelled out": (95, 40),
        "other digits": (360, 150),
        "split digits": (80, 24),
    }
    assert all(rates["recall"] == 1.0 and rates["false_positive_rate"] == 0.0 for rates in shapes.values())
    everyday = result["everyday_words"]
    assert {name: (rates["leaks"], rates["non_leaks"]) for name, rates in everyday.items()} == {
        "first held-out set, digits": (140, 50),
        "first held-out set, words": (140, 50),
        "second held-out set, digits": (100, 0),
        "second held-out set, words": (100, 0),
    }
    assert all(rates["recall"] == 1.0 and rates["false_positive_rate"] in (0.0, None) for rates in everyday.values())
    others = result["other_shapes"]
    assert len(others) == 6 and all(
        rates["recall"] == 1.0 and rates["false_positive_rate"] == 0.0 for rates in others.values()
    )
    assert result["math500_given_value_equal_to_answer"]["redacted"] == 0
    reply = result["long_reply"]
    assert reply["expressions"] == 600 and reply["characters"] == 600 * 28
    assert (
        reply["cpu_seconds"]["prepare_feedback"] < reply["cpu_seconds"]["guard on the whole reply"]
    )  # the reply is cut before the guard runs
    assert set(result["milliseconds_per_1000_token_feedback"]) == {
        "42",
        "2\\sqrt{3}",
        "x^2 + 3x - 10",
        "MATH-500 #1 solution",
    }
