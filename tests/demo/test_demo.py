import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from trl_mulferl.cli import main as cli
from trl_mulferl.demo.addition import difficulty, make_splits, operands
from trl_mulferl.demo.compare import (
    EIGHT_SEEDS,
    FEEDBACK_REPLAY,
    ONE_SEED,
    RUNS,
    escape_rates,
    format_eight_seeds,
    signal_share,
    training_problems,
)
from trl_mulferl.tiny import checker_feedback, digit_reward, given_digit, sum_problems, sum_question


REPO = Path(__file__).resolve().parents[2]


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
    """The whole demo on a barely trained policy (--quick): four runs from one warm start, table, files; its settings
    partly from a YAML config (keys in either spelling), partly from flags in either spelling."""
    config = tmp_path / "demo.yaml"
    config.write_text("quick: true\nsteps: 50\nprompts_per_step: 2\nnum-generations: 4\nheld_out: 6\n")
    output_dir = tmp_path / "demo"
    # --steps on the command line wins over the config's.
    cli(["demo", "--config", str(config), "--steps", "2", "--samples", "1", "--output-dir", str(output_dir)])
    summary = json.loads((output_dir / "summary.json").read_text())
    runs = summary["runs"]
    assert [run["run"] for run in runs] == ["GRPO", "MulFeRL", "MulFeRL+replay", "iGRPO"]
    assert summary["warm_start"]["settings"]["steps"] == 4  # --quick's warm start, cached in the folder
    for evaluation in [summary["held_out_before"]] + [run["held_out_after"] for run in runs]:
        assert evaluation["feedback"]["mean"] >= evaluation["no_feedback"]["mean"]
    assert all(0.0 <= run["signal_share"] <= 1.0 and run["steps"] == 2 for run in runs)
    for mulferl in runs[1:3]:
        assert {"grpo", "fco", "solved_skip", "unresolved", "escape_rate"} <= set(mulferl)
        assert sum(mulferl[route] for route in ("grpo", "fco", "solved_skip", "unresolved")) == pytest.approx(1.0)
        assert mulferl["rollouts_per_step"] >= 8  # MulFeRL adds a turn per failed group
    # K rollouts per prompt for GRPO; N + G = K for iGRPO.
    assert runs[0]["rollouts_per_step"] == runs[3]["rollouts_per_step"] == 8
    entries = [json.loads(line) for line in (output_dir / "metrics.jsonl").read_text().splitlines()]
    assert [entry["run"] for entry in entries] == [name for name, _, _ in RUNS for _ in range(2)]
    # Only the run with feedback_replay replays the rows trained after feedback.
    assert {entry["run"] for entry in entries if "mulferl/replayed_rows" in entry} == {"MulFeRL+replay"}
    assert (output_dir / "curves.png").stat().st_size > 10_000
    # Only the warm start and the results: the trainers leave no folders of their own.
    assert sorted(path.name for path in output_dir.iterdir()) == [
        "curves.png",
        "metrics.jsonl",
        "summary.json",
        "warm-start",
    ]
    printed = capsys.readouterr().out
    assert "routed to FCO (fixed)" in printed and "held-out pass@1 after" in printed
    lines = printed.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("held-out pass@1 before")) - 1
    table = lines[start : lines.index("", start)]
    assert len({len(line) for line in table}) == 1, "the table's columns are not aligned"
    assert table[0].split()[-4:] == ["GRPO", "MulFeRL", "MulFeRL+replay", "iGRPO"]
    assert table[-4:] == format_eight_seeds([run["run"] for run in runs]).splitlines()
    assert " ".join(ONE_SEED.split()) in " ".join(printed.split())


def test_demo_prints_the_committed_eight_seed_benchmark():
    """`EIGHT_SEEDS` is benchmarks/learning.json's summary, to the printed digits, for the same runs."""
    learning = json.loads((REPO / "benchmarks" / "learning.json").read_text())
    summary = learning["summary"]
    assert learning["settings"]["seeds"] == list(range(8)) and learning["settings"]["split"] == "test"
    variant = summary["variants"]["feedback replay, plain ratio"]
    assert {k: v for k, v in variant["overrides"].items() if k.startswith("feedback_")} == FEEDBACK_REPLAY

    def rounded(values: dict) -> tuple:
        return tuple(round(values[key], 3) for key in ("mean", "low", "high"))

    expected = {
        name: {
            "pass@1": rounded(summary[name]["matched_steps"]["no_feedback"]),
            "with_feedback": round(summary[name]["matched_steps"]["feedback"]["mean"], 3),
            "vs_GRPO": rounded(summary["difference_vs_GRPO"][f"{name}, matched steps"]) if name != "GRPO" else None,
        }
        for name in ("GRPO", "MulFeRL", "iGRPO")
    }
    expected["MulFeRL+replay"] = {
        "pass@1": rounded(variant["pass@1"]),
        "with_feedback": round(variant["pass@1_with_feedback"], 3),
        "vs_GRPO": rounded(variant["difference_vs_GRPO"]),
    }
    assert EIGHT_SEEDS == expected
    grpo = [round(value, 3) for value in summary["GRPO"]["matched_steps"]["no_feedback"]["values"]]
    assert f"GRPO: {min(grpo):.3f} to {max(grpo):.3f} over the 8" in ONE_SEED
    assert f"up to {max(grpo) - min(grpo):.2f}" in ONE_SEED
    # The half-width of the Student-t interval: (0.160 - 0.029) / 2.
    last_row = format_eight_seeds(["GRPO", "MulFeRL+replay"]).splitlines()[-1]
    assert last_row.split() == ["difference", "to", "GRPO", "(same", "seed)", "-", "+0.094", "±", "0.066"]
