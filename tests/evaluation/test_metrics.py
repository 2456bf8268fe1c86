"""pass@k, per-run mean ± std, and per-turn pass@1 from records."""

import itertools
import statistics

import pytest

from trl_mulferl.evaluation.metrics import benchmark_metrics, pass_at_k, reported_ks, summarize


@pytest.mark.parametrize(("n", "c"), [(5, 0), (5, 1), (5, 3), (5, 5), (8, 2), (8, 7)])
def test_pass_at_k_is_the_chance_that_k_of_n_samples_hold_a_correct_one(n, c):
    outcomes = [True] * c + [False] * (n - c)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(outcomes, k))
        assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


def test_pass_at_k_rejects_k_above_n():
    with pytest.raises(ValueError, match="0 < k <= n"):
        pass_at_k(4, 1, 5)


def test_reported_ks():
    assert reported_ks(1) == [1]
    assert reported_ks(5) == [1, 2, 4, 5]
    assert reported_ks(8) == [1, 2, 4, 8]


def test_benchmark_metrics_runs_and_std():
    correct = {"a": [True, True, False], "b": [False, True, False]}
    metrics = benchmark_metrics(correct, 3)
    runs = [0.5, 1.0, 0.0]
    assert metrics["runs"] == runs
    assert metrics["pass@1"] == pytest.approx(statistics.mean(runs)) == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert metrics["pass@1_std"] == pytest.approx(statistics.stdev(runs))
    assert metrics["pass@2"] == pytest.approx((1.0 + (1 - 1 / 3)) / 2)
    assert metrics["pass@3"] == 1.0
    with pytest.raises(ValueError, match="exactly 3 samples"):
        benchmark_metrics({"a": [True]}, 3)


def record(benchmark, problem, sample, turn, verdict, compliant=True):
    return {
        "benchmark": benchmark,
        "problem_id": problem,
        "sample": sample,
        "turn": turn,
        "verdict": verdict,
        "schema_compliant": compliant,
    }


def test_summarize_counts_each_sample_at_its_latest_turn():
    records = [
        record("x", "0", 0, 0, True),
        record("x", "0", 1, 0, False),
        record("x", "1", 0, 0, None, compliant=False),  # unscorable reference: wrong, counted
        record("x", "1", 1, 0, False),
        record("x", "0", 1, 1, True),  # revised and fixed at turn 1
        record("x", "1", 1, 1, False),
        record("x", "1", 1, 2, True),  # fixed at turn 2
        record("y", "0", 0, 0, False),
        record("y", "0", 1, 0, False),
    ]
    summary = summarize(records, num_samples=2, num_turns=2)
    x, y = summary["benchmarks"]["x"], summary["benchmarks"]["y"]
    assert x["pass@1"] == pytest.approx(0.25) and x["runs"] == [0.5, 0.0]
    assert x["pass@1_by_turn"] == pytest.approx([0.25, 0.5, 0.75])
    assert x["schema_compliance"] == 0.75 and x["unscorable"] == 1 and x["problems"] == 2
    assert y["pass@1_by_turn"] == [0.0, 0.0, 0.0]
    average = summary["average"]
    assert average["runs"] == [0.25, 0.0]
    assert average["pass@1"] == pytest.approx(0.125)
    assert average["pass@1_std"] == pytest.approx(statistics.stdev([0.25, 0.0]))
    assert average["pass@1_by_turn"] == pytest.approx([0.125, 0.25, 0.375])
