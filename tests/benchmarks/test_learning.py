import importlib.util
import json
import math
import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]


def load_benchmark():
    spec = importlib.util.spec_from_file_location("learning_benchmark", ROOT / "benchmarks" / "learning.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seed_interval_is_a_student_t_interval():
    learning = load_benchmark()
    interval = learning.seed_interval([0.5, 0.6, 0.7])
    error = 4.303 * 0.1 / math.sqrt(3)  # t(0.975, 2 degrees of freedom) * std / sqrt(n)
    assert interval["mean"] == pytest.approx(0.6)
    assert (interval["low"], interval["high"]) == pytest.approx((0.6 - error, 0.6 + error))
    assert math.isnan(learning.seed_interval([0.4])["low"])
    eleven = [0.0, 1.0] * 5 + [0.5]  # 10 degrees of freedom: t = 2.228, not the normal 1.96
    std = math.sqrt(sum((v - 0.5) ** 2 for v in eleven) / 10)
    assert learning.seed_interval(eleven)["high"] == pytest.approx(0.5 + 2.228 * std / math.sqrt(11))


def test_variant_seeds_must_have_a_grpo_run(capsys):
    learning = load_benchmark()
    with pytest.raises(SystemExit):
        learning.main(["--seeds", "0", "1", "--variants", "vague feedback", "--variant-seeds", "2"])
    assert "--variant-seeds: every variant seed must be one of --seeds" in capsys.readouterr().err


def test_shuffled_feedback_is_another_prompts():
    """The provider is asked about every group; what comes back is an earlier answer about another prompt, none
    before there is one."""
    import asyncio

    learning = load_benchmark()
    asked = []

    async def provider(prompt, completions, rewards, **columns):
        asked.append(prompt)
        return f"report on {prompt}"

    shuffled = learning.ShuffledFeedback(provider, seed=0, memory=2)
    answers = [asyncio.run(shuffled(prompt, ["<thinking>"], [0.0])) for prompt in ("a", "a", "b", "c", "d")]
    assert asked == ["a", "a", "b", "c", "d"]
    assert answers[:3] == [None, None, "report on a"]
    assert answers[3] in ("report on a", "report on b")  # the last two answers kept: about a and b
    assert answers[4] in ("report on b", "report on c")


def test_vague_feedback_names_no_mistake():
    from trl_mulferl.demo.addition import MISTAKE_DIAGNOSES

    learning = load_benchmark()
    text = learning.vague_feedback("What is 47 + 38?", ["<thinking>"], [0.0])
    assert not any(diagnosis in text for diagnosis in MISTAKE_DIAGNOSES.values())
    assert not any(sentence in text for diagnosis in MISTAKE_DIAGNOSES.values() for sentence in diagnosis.split(". "))


def test_fco_only_drops_mixed_groups_after_feedback():
    """Groups of K = 2 rows: after the checker's feedback a mixed group gets no rewards (MulFeRL does not train it); a
    group solved after feedback keeps its rewards (FCO), and so does a mixed group at turn 0 (GRPO)."""
    from trl_mulferl.core.schema import feedback_prefill
    from trl_mulferl.demo.addition import addition_reward, question, response

    learning = load_benchmark()
    reward = learning.without_mixed_groups_after_feedback(addition_reward, group_size=2)
    feedback = "The checker's reports on the 2 failed attempts, most frequent first:\n1. The carry was dropped."
    right, wrong = response(47, 38), response(47, 38, ("dropped_carry",))
    after = [feedback_prefill(feedback) + text.removeprefix(feedback_prefill("")) for text in (right, wrong)]
    completions = [right, wrong, after[0], after[1], after[0], after[0]]
    assert reward([question(47, 38)] * 6, completions) == [1.0, 0.0, None, None, 1.0, 1.0]
    assert reward.__name__ == "addition_reward"


def test_evaluation_steps_add_the_curve():
    learning = load_benchmark()
    assert learning.evaluation_steps(Namespace(curve_every=50), 150) == [50, 100, 150]
    assert learning.evaluation_steps(Namespace(curve_every=0), 150) == [150]


@pytest.mark.slow
def test_learning_benchmark_runs_and_resumes(tmp_path):
    """Two seeds, the three methods, the ablations on the first seed and a variant on both, on a barely trained warm
    start; a rerun reuses every finished job."""
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "learning.py"),
        "--quick",
        "--seeds",
        "0",
        "1",
        "--steps",
        "2",
        "--prompts-per-step",
        "2",
        "--num-generations",
        "4",
        "--held-out",
        "6",
        "--samples",
        "1",
        "--variants",
        "vague feedback",
        "--variant-seeds",
        "0",
        "1",
        "--work-dir",
        str(tmp_path / "runs"),
        "--output",
        str(tmp_path / "learning.json"),
    ]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    subprocess.run(command, check=True, env=environment, capture_output=True)
    report = json.loads((tmp_path / "learning.json").read_text())
    summary = report["summary"]
    assert summary["seeds"] == [0, 1] and {"GRPO", "MulFeRL", "iGRPO"} <= set(summary)
    assert set(summary["MulFeRL"]["matched_steps"]) == {"no_feedback", "feedback", "no_feedback_by_difficulty"}
    assert len(summary["MulFeRL"]["escape_rate"]) == 2 and set(summary["MulFeRL"]["routes"]) == {
        "grpo",
        "fco",
        "solved_skip",
        "unresolved",
    }
    assert set(summary["variants"]) == {"no regeneration", "no FCO", "plain injection", "vague feedback"}
    assert summary["variants"]["no regeneration"]["escape_rate"] == []
    assert summary["variants"]["no FCO"]["seeds"] == [0] and summary["variants"]["vague feedback"]["seeds"] == [0, 1]
    vague = summary["variants"]["vague feedback"]
    grpo = [runs["GRPO"]["evaluations"]["2"]["no_feedback"]["mean"] for runs in report["per_seed"].values()]
    variant = [run["evaluations"]["2"]["no_feedback"]["mean"] for run in report["variants"]["vague feedback"].values()]
    assert vague["difference_vs_GRPO"]["values"] == pytest.approx([v - g for v, g in zip(variant, grpo)])
    for seed in ("0", "1"):
        runs = report["per_seed"][seed]
        # GRPO and iGRPO run until they have sampled as many completions as MulFeRL, measured at both step counts.
        assert runs["MulFeRL"]["steps"] == 2 and list(runs["MulFeRL"]["evaluations"]) == ["2"]
        matched = math.ceil(runs["MulFeRL"]["rollouts"] / 8)
        for method in ("GRPO", "iGRPO"):
            assert runs[method]["steps"] == matched and runs[method]["rollouts"] >= runs["MulFeRL"]["rollouts"]
            assert sorted(map(int, runs[method]["evaluations"])) == sorted({2, matched})
    assert "| held-out pass@1 after 2 steps |" in report["table"]
    first = (tmp_path / "runs" / "addition" / "seed-0" / "runs" / "MulFeRL.json").stat().st_mtime
    subprocess.run(command, check=True, env=environment, capture_output=True)
    assert (tmp_path / "runs" / "addition" / "seed-0" / "runs" / "MulFeRL.json").stat().st_mtime == first
    assert json.loads((tmp_path / "learning.json").read_text())["table"] == report["table"]
