import json

import pytest

from trl_mulferl.cli import main as cli
from trl_mulferl.demo import checker_feedback, digit_reward, given_digit, make_problems


def test_task_checker_and_feedback():
    train, held_out = make_problems(seed=0)
    assert len(train) == 35 and len(held_out) == 20
    assert not {row["answer"] for row in held_out} - {str(n) for n in range(10)}
    assert {(r["a"], r["b"]) for r in train}.isdisjoint({(r["a"], r["b"]) for r in held_out})
    # The checker reads the first digit after the feedback block, never one inside it.
    assert given_digit("<thinking><feedback>try 3</feedback> so 5 then 7") == "5"
    assert digit_reward(["x 5", "7", "none"], answer=["5", "5", "5"]) == [1.0, 0.0, 0.0]
    feedback = checker_feedback("What is 2 + 3?", ["7", "1", "no digit"], [0.0] * 3, a=2, b=3)
    assert feedback.startswith("Issue: 1 answers give no digit at all; 1 answers are larger than 2 + 3")
    assert "Fix steps:" in feedback and "5" not in feedback  # the answer itself is never given


@pytest.mark.slow
def test_demo_runs_end_to_end(tmp_path):
    cli(["demo", "--steps", "2", "--prompts-per-step", "2", "--num-generations", "4", "--output-dir", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [run["run"] for run in summary] == ["GRPO", "MulFeRL"]
    assert all(0.0 <= run["signal_share"] <= 1.0 for run in summary)
    assert "grpo" in summary[1] and "fco" in summary[1]
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[-1])["run"] == "MulFeRL"
    assert (tmp_path / "curves.png").stat().st_size > 10_000
