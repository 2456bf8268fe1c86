"""pass@1 averaged over n samples, the unbiased pass@k estimator, and per-run mean ± std, from per-sample records.

A record is one generated sample: `benchmark`, `problem_id`, `sample` (0..n-1), `turn` (0, or the revision turn
with feedback) and `verdict` (True, False, or None for an unscorable reference, which counts as wrong). Revision
turns exist only for samples that were wrong one turn earlier, so a sample's standing after turn t is the verdict of
its latest record at or before t.
"""

import math
from collections.abc import Iterable


def pass_at_k(num_samples: int, num_correct: int, k: int) -> float:
    """The unbiased estimator of pass@k from n samples with c correct: `1 - C(n - c, k) / C(n, k)` (Chen et al.,
    2021), computed as a product to stay exact for large n."""
    if not 0 < k <= num_samples:
        raise ValueError(f"pass@k needs 0 < k <= n (got k={k}, n={num_samples}).")
    if num_samples - num_correct < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(num_samples - num_correct + 1, num_samples + 1))


def reported_ks(num_samples: int) -> list[int]:
    """1, 2, 4, ... below n, and n."""
    ks = [2**i for i in range(num_samples.bit_length()) if 2**i < num_samples]
    return ks + [num_samples]


def mean_std(values: list[float]) -> tuple[float, float]:
    """The mean and the sample standard deviation (n - 1; 0.0 for a single value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def standing(records: Iterable[dict], turn: int) -> dict[tuple[str, str, int], bool]:
    """`(benchmark, problem_id, sample) -> correct` after `turn`: each sample's latest record at or before it."""
    latest = {}
    for record in records:
        key = (record["benchmark"], record["problem_id"], record["sample"])
        if record["turn"] <= turn and (key not in latest or record["turn"] > latest[key][0]):
            latest[key] = (record["turn"], record["verdict"] is True)
    return {key: correct for key, (_, correct) in latest.items()}


def benchmark_metrics(correct: dict[str, list[bool]], num_samples: int) -> dict[str, float | list[float]]:
    """`problem_id -> [correct of sample 0, ..., sample n-1]` -> pass@1, pass@k, and the accuracy of each run j
    (sample j of every problem) with their mean ± std. pass@1 equals the mean over runs."""
    if any(len(samples) != num_samples for samples in correct.values()):
        raise ValueError(f"every problem needs exactly {num_samples} samples to summarise.")
    problems = list(correct.values())
    metrics = {}
    for k in reported_ks(num_samples):
        metrics[f"pass@{k}"] = sum(pass_at_k(num_samples, sum(s), k) for s in problems) / len(problems)
    runs = [sum(samples[j] for samples in problems) / len(problems) for j in range(num_samples)]
    metrics["pass@1"], metrics["pass@1_std"] = mean_std(runs)
    metrics["runs"] = runs
    return metrics


def summarize(records: list[dict], num_samples: int, num_turns: int = 0) -> dict:
    """The summary of `records` (exactly `num_samples` samples of each problem, turns up to `num_turns`).

    Per benchmark: pass@1 (the mean over runs) ± std, pass@k, the per-run accuracies, pass@1 after each revision
    turn, schema compliance (turn 0) and the number of unscorable problems. The average over benchmarks averages each
    run over the benchmarks, then takes mean ± std over runs.
    """
    benchmarks = {}
    names = list(dict.fromkeys(record["benchmark"] for record in records))
    by_turn = [standing(records, turn) for turn in range(num_turns + 1)]
    for name in names:
        first = [r for r in records if r["benchmark"] == name and r["turn"] == 0]
        problem_ids = list(dict.fromkeys(r["problem_id"] for r in first))
        per_turn = []
        for turn_standing in by_turn:
            correct = {p: [turn_standing[(name, p, j)] for j in range(num_samples)] for p in problem_ids}
            per_turn.append(benchmark_metrics(correct, num_samples))
        metrics = {"problems": len(problem_ids), "num_samples": num_samples, **per_turn[0]}
        metrics["pass@1_by_turn"] = [m["pass@1"] for m in per_turn]
        metrics["schema_compliance"] = sum(r["schema_compliant"] for r in first) / len(first)
        metrics["unscorable"] = len({r["problem_id"] for r in first if r["verdict"] is None})
        benchmarks[name] = metrics
    summary = {"benchmarks": benchmarks}
    if benchmarks:
        runs = [sum(m["runs"][j] for m in benchmarks.values()) / len(benchmarks) for j in range(num_samples)]
        mean, std = mean_std(runs)
        by_turn_average = [
            sum(m["pass@1_by_turn"][t] for m in benchmarks.values()) / len(benchmarks) for t in range(num_turns + 1)
        ]
        summary["average"] = {"pass@1": mean, "pass@1_std": std, "runs": runs, "pass@1_by_turn": by_turn_average}
    return summary
