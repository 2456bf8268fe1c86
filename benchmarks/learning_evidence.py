"""The confirmation protocol of benchmarks/README.md ("Learning evidence: the protocol"), on both tasks in one command.

For each task (two-digit addition with a checker's diagnoses; programs from input/output examples with the
interpreter's reports), `benchmarks/learning.py` trains, on every seed, the preset (`--preset`, fixed before the
confirmation run), GRPO from the same warm start until it has generated as many rollouts, and the controls: the
preset with vague feedback, with another prompt's feedback, and GRPO given as many rollouts per prompt in a larger
group. Held-out pass@1 without feedback is read on the test split, with one turn of test-time feedback beside it.
It prints each task's table and the bar's verdict, writes the reports as JSON and plots held-out pass@1 against the
training tokens (prompts and generations, regenerations included), a line per run with its 95% seed band.

    OMP_NUM_THREADS=1 python benchmarks/learning_evidence.py --seeds 100 101 ... 119 --jobs 2 \
        --output benchmarks/learning_evidence.json --plot benchmarks/learning_evidence.png

Finished jobs are kept in `--work-dir` (one folder per task), so an interrupted run resumes where it stopped.
"""

import argparse
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path


HERE = Path(__file__).resolve().parent
TASK_NAMES = ("addition", "programs")
# The protocol's preset and controls (benchmarks/README.md); the preset was fixed on the development seeds.
PRESET = "replay"
CONTROLS = ("vague feedback", "shuffled feedback", "GRPO, larger K")
# The bar: the preset's mean gain over GRPO at matched rollouts, the lower end of its 95% interval, and its training
# time over GRPO's.
MINIMUM_GAIN, MAXIMUM_TIME_RATIO = 0.05, 1.3
RESERVED_SEEDS = 1000  # seeds from here on are kept for independent replication: never run here


def load_learning():
    spec = importlib.util.spec_from_file_location("learning_benchmark", HERE / "learning.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verdict(summary: dict) -> dict:
    """Whether the task's result meets the bar."""
    gain = summary["difference_vs_GRPO"]["MulFeRL, matched rollouts"]
    ratio = summary["wall_time_ratio_at_matched_rollouts"]
    return {
        "gain": gain["mean"],
        "gain_low": gain["low"],
        "time_ratio": ratio["mean"],
        "gain_met": gain["mean"] >= MINIMUM_GAIN and gain["low"] > 0,
        "time_met": ratio["mean"] <= MAXIMUM_TIME_RATIO,
    }


def curves(report: dict) -> dict[str, list[tuple[float, dict]]]:
    """Per run (GRPO, the preset, each control): (mean training tokens, pass@1 over seeds) at each evaluated step
    that every seed's run reached."""
    learning = load_learning()
    runs = {name: [seed[key] for seed in report["per_seed"].values()] for name, key in (("GRPO", "GRPO"),)}
    runs["preset"] = [seed["MulFeRL"] for seed in report["per_seed"].values()]
    runs |= {name: list(by_seed.values()) for name, by_seed in report["controls"].items()}
    result = {}
    for name, seed_runs in runs.items():
        steps = sorted(set.intersection(*(set(map(int, run["evaluations"])) for run in seed_runs)))
        points = []
        for step in steps:
            evaluations = [run["evaluations"][str(step)] for run in seed_runs]
            tokens = sum(e["train_tokens"] for e in evaluations) / len(evaluations)
            points.append((tokens, learning.seed_interval([e["no_feedback"]["mean"] for e in evaluations])))
        result[name] = points
    return result


def write_plot(reports: dict[str, dict], path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(reports), figsize=(6 * len(reports), 4.5), squeeze=False)
    for axis, (task, report) in zip(axes[0], reports.items(), strict=True):
        for name, points in curves(report).items():
            tokens = [t / 1e6 for t, _ in points]
            line = axis.plot(tokens, [p["mean"] for _, p in points], marker="o", label=name)[0]
            if all(not math.isnan(p["low"]) for _, p in points):
                lows, highs = [p["low"] for _, p in points], [p["high"] for _, p in points]
                axis.fill_between(tokens, lows, highs, color=line.get_color(), alpha=0.15)
        axis.set_title(f"{task}: {len(report['per_seed'])} seeds")
        axis.set_xlabel("training tokens, prompts and generations (millions)")
        axis.set_ylabel("held-out pass@1 without feedback")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", required=True)
    parser.add_argument("--tasks", nargs="+", choices=TASK_NAMES, default=list(TASK_NAMES))
    parser.add_argument("--split", choices=("test", "validation"), default="test")
    parser.add_argument("--curve-every", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work-dir", type=Path, default=Path("learning-runs"))
    parser.add_argument("--output", type=Path, default=None, help="the reports as JSON")
    parser.add_argument("--plot", type=Path, default=None, help="pass@1 against training tokens (PNG)")
    parser.add_argument("--quick", action="store_true", help="a barely trained warm start and 2 steps: a smoke run")
    args = parser.parse_args(argv)
    if any(seed >= RESERVED_SEEDS for seed in args.seeds):
        parser.error(f"--seeds: seeds from {RESERVED_SEEDS} on are reserved for independent replication")
    common = ["--split", args.split, "--methods", "MulFeRL", "GRPO", "--no-ablations", "--preset", PRESET]
    common += ["--controls", *CONTROLS, "--jobs", str(args.jobs), "--seeds", *map(str, args.seeds)]
    common += ["--curve-every", str(args.curve_every), "--work-dir", str(args.work_dir)]
    if args.quick:
        common += ["--quick", "--steps", "2", "--prompts-per-step", "2", "--num-generations", "4"]
        common += ["--held-out", "6", "--samples", "1", "--curve-every", "1"]
    reports = {}
    for task in args.tasks:
        task_output = args.work_dir / f"{task}.json"
        args.work_dir.mkdir(parents=True, exist_ok=True)
        # its own process: its jobs run in processes that import it by its path
        command = [sys.executable, str(HERE / "learning.py"), *common, "--task", task, "--output", str(task_output)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        reports[task] = json.loads(task_output.read_text())
    verdicts = {task: verdict(report["summary"]) for task, report in reports.items()}
    for task, report in reports.items():
        print(f"\n## {task}\n\n{report['table']}")
    for task, result in verdicts.items():
        print(
            f"{task}: gain {result['gain']:+.3f} (lower end {result['gain_low']:+.3f}; bar {MINIMUM_GAIN} and > 0: "
            f"{'met' if result['gain_met'] else 'not met'}), time {result['time_ratio']:.2f}x GRPO's "
            f"(bar {MAXIMUM_TIME_RATIO}x: {'met' if result['time_met'] else 'not met'})"
        )
    if args.output is not None:
        arguments = list(sys.argv[1:] if argv is None else argv)
        if "--work-dir" in arguments:  # a machine's path stays out of the report
            del arguments[arguments.index("--work-dir") : arguments.index("--work-dir") + 2]
        command = "OMP_NUM_THREADS=1 python benchmarks/learning_evidence.py " + " ".join(arguments)
        report = {"command": command, "preset": PRESET, "controls": list(CONTROLS), "verdicts": verdicts}
        args.output.write_text(json.dumps({**report, "tasks": reports}, indent=2) + "\n")
    if args.plot is not None:
        write_plot(reports, args.plot)


if __name__ == "__main__":
    main()
