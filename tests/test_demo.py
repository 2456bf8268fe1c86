import json
import re

import pytest

from trl_mulferl.cli import main as cli
from trl_mulferl.demo import make_problems
from trl_mulferl.tiny import checker_feedback, digit_reward, given_digit, sum_operands, sum_problems, sum_question


def test_task_checker_and_feedback():
    train, held_out = make_problems(seed=0)
    assert len(train) == 35 and len(held_out) == 20
    operands = [{sum_operands(row["prompt"]) for row in split} for split in (train, held_out)]
    assert operands[0].isdisjoint(operands[1]) and len(operands[0] | operands[1]) == 55
    assert all(a + b <= 9 for a, b in operands[0] | operands[1])
    # The checker reads the first digit after the feedback block, never one inside it.
    assert given_digit("<thinking><feedback>try 3</feedback> so 5 then 7") == "5"
    prompts = [[{"role": "user", "content": sum_question(2, 3)}]] * 3
    assert digit_reward(prompts, ["x 5", "7", "none"]) == [1.0, 0.0, 0.0]
    feedback = checker_feedback(sum_question(2, 3), ["7", "1", "no digit"], [0.0] * 3)
    assert feedback == (
        "Issue: some answers give no digit at all; some answers are larger than the sum; some answers are smaller "
        "than the sum. Fix steps: 1. Start from the first number and count up by the second. 2. Write that single "
        "digit first, before any other digit."
    )
    assert checker_feedback(sum_question(4, 0), ["9", "8"], [0.0] * 2).startswith(
        "Issue: all answers are larger than the sum."
    )


def test_checker_feedback_never_states_a_number():
    """Not the answer, and not an operand either (with the other one 0, the operand is the answer)."""
    for a, b in sum_problems(seed=0):
        for answers in (["0", "9", "x"], [str(a + b)] * 2 + ["<feedback>1</feedback>"], ["9", "9"]):
            feedback = checker_feedback(sum_question(a, b), answers, [0.0] * len(answers))
            assert re.findall(r"\d", re.sub(r"\b[12]\. ", "", feedback)) == [], feedback


def test_demo_rejects_a_run_without_steps(capsys):
    with pytest.raises(SystemExit) as exit:
        cli(["demo", "--steps", "0"])
    assert exit.value.code == 2
    assert "argument --steps: must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_runs_end_to_end(tmp_path):
    cli(["demo", "--steps", "2", "--prompts-per-step", "2", "--num-generations", "4", "--output-dir", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [run["run"] for run in summary] == ["GRPO", "MulFeRL"]
    assert all(0.0 <= run["signal_share"] <= 1.0 for run in summary)
    assert "grpo" in summary[1] and "fco" in summary[1]
    assert all(run["held_out_before"] == summary[0]["held_out_before"] for run in summary)
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[-1])["run"] == "MulFeRL"
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    # Only the model and the results: the trainers leave no folders of their own.
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "curves.png",
        "metrics.jsonl",
        "summary.json",
        "tiny-qwen2",
    ]
