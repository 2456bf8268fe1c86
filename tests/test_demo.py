import json
import math
import re
import subprocess
import sys

import pytest

from trl_mulferl.cli import main as cli
from trl_mulferl.demo.addition import difficulty, make_splits, operands
from trl_mulferl.demo.compare import escape_rates, signal_share, training_problems
from trl_mulferl.tiny import checker_feedback, digit_reward, given_digit, sum_problems, sum_question


def test_tiny_sums_checker_and_feedback():
    """The one-digit sums of `make-tiny` and recipes/tiny_cpu.yaml."""
    problems = sum_problems(seed=0)
    assert len(set(problems)) == 55 and all(a + b <= 9 for a, b in problems)
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


def test_training_problems_interleave_the_kinds_of_sums():
    dataset = training_problems(make_splits(0).train, per_difficulty=5)
    kinds = [difficulty(*operands(row["prompt"])) for row in dataset]
    assert len(dataset) == 15
    assert all(set(kinds[i : i + 3]) == {"no_carry", "carry", "hundreds"} for i in range(0, 15, 3))
    assert all(row["solution"] == str(sum(operands(row["prompt"]))) for row in dataset)


def test_signal_share_and_escape_rates():
    assert signal_share({"frac_reward_zero_std": 0.25}) == 0.75
    assert signal_share({"mulferl/route/grpo": 0.5, "mulferl/route/fco": 0.25, "frac_reward_zero_std": 0.9}) == 0.75
    # Turn 1 regenerated 3 + 2 of the groups that failed at turn 0 (one got no feedback); 1 + 1 still failed, and
    # both were regenerated at turn 2, where 1 still failed.
    history = [
        {"mulferl/turn_1/reached_groups": 3, "mulferl/turn_1/failed_groups": 1},
        {"mulferl/turn_1/reached_groups": 2, "mulferl/turn_1/failed_groups": 1},
    ]
    history[0] |= {"mulferl/turn_2/reached_groups": 1, "mulferl/turn_2/failed_groups": 1}
    history[1] |= {"mulferl/turn_2/reached_groups": 1, "mulferl/turn_2/failed_groups": 0}
    assert escape_rates(history, 2) == [3 / 5, 1 / 2]
    assert math.isnan(escape_rates([{"mulferl/turn_1/reached_groups": 0, "mulferl/turn_1/failed_groups": 0}], 1)[0])


def test_demo_rejects_a_run_without_steps(capsys):
    with pytest.raises(SystemExit) as exit:
        cli(["demo", "--steps", "0"])
    assert exit.value.code == 2
    assert "argument --steps: must be at least 1, got 0" in capsys.readouterr().err


def test_demo_runs_as_a_module():
    """`python -m trl_mulferl.demo` is the demo command (the subpackage's `__main__`)."""
    result = subprocess.run(
        [sys.executable, "-m", "trl_mulferl.demo", "--steps", "0"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "trl-mulferl demo: error: argument --steps: must be at least 1, got 0" in result.stderr


def test_demo_quick_run_end_to_end(tmp_path, capsys):
    """The whole demo on a barely trained policy (--quick): three runs from one warm start, table, files."""
    arguments = ["demo", "--quick", "--steps", "2", "--prompts-per-step", "2", "--num-generations", "4"]
    cli([*arguments, "--held-out", "6", "--samples", "1", "--output-dir", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    runs = summary["runs"]
    assert [run["run"] for run in runs] == ["GRPO", "MulFeRL", "iGRPO"]
    assert summary["warm_start"]["settings"]["steps"] == 4  # --quick's warm start, cached in the folder
    for evaluation in [summary["held_out_before"]] + [run["held_out_after"] for run in runs]:
        assert evaluation["feedback"]["mean"] >= evaluation["no_feedback"]["mean"]
    assert all(0.0 <= run["signal_share"] <= 1.0 and run["steps"] == 2 for run in runs)
    assert {"grpo", "fco", "solved_skip", "unresolved", "escape_rate"} <= set(runs[1])
    assert sum(runs[1][route] for route in ("grpo", "fco", "solved_skip", "unresolved")) == pytest.approx(1.0)
    # K rollouts per prompt for GRPO; N + G = K for iGRPO; MulFeRL adds a turn per failed group.
    assert runs[0]["rollouts_per_step"] == runs[2]["rollouts_per_step"] == 8
    assert runs[1]["rollouts_per_step"] >= 8
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["run"] for line in lines] == ["GRPO"] * 2 + ["MulFeRL"] * 2 + ["iGRPO"] * 2
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    # Only the warm start and the results: the trainers leave no folders of their own.
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "curves.png",
        "metrics.jsonl",
        "summary.json",
        "warm-start",
    ]
    table = capsys.readouterr().out
    assert "routed to FCO (fixed)" in table and "held-out pass@1 after" in table
    lines = table[table.index("held-out pass@1 before") :].split("\n\n")[0].splitlines()
    assert len({len(line) for line in lines}) == 1, "the table's columns are not aligned"
