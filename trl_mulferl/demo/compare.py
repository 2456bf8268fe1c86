"""Offline demo: GRPO, MulFeRL (the paper's defaults, and with `feedback_replay`) and iGRPO from the same
warm-started policy, seed and data, on CPU in minutes, next to the 8-seed benchmark of the same task.

The task is two-digit addition worked column by column (`trl_mulferl.demo.addition`). The policy is a tiny Qwen2
fine-tuned here to add with a pupil's characteristic mistakes, and to avoid the mistakes a checker names in its
feedback slot (`trl_mulferl.demo.warm_start`); it is cached in the output folder, so a rerun there starts training at
once. The feedback provider is that checker (`CheckerFeedbackProvider(diagnose)`): what went wrong and how to fix it,
never the answer. Every run starts from the warm start and is measured on held-out sums before and after, without
feedback and with one turn of test-time feedback.

    trl-mulferl demo                 # or: python -m trl_mulferl.demo
"""

import argparse
import json
import math
import os
import sys
import textwrap
import time
import warnings
from datetime import datetime
from pathlib import Path

from datasets import Dataset
from tqdm.auto import tqdm
from transformers import AutoModelForCausalLM, AutoTokenizer, PrinterCallback, TrainerCallback
from transformers.utils import logging as transformers_logging

from ..cli import add_config_option, parse_arguments
from ..core.metrics import REWARD_ROWS
from .addition import addition_reward, make_splits
from .warm_start import ADDITION, Task, WarmStartConfig, checker_provider, evaluate_policy, warm_start


METHODS = ("GRPO", "MulFeRL", "iGRPO")
ROUTES = ("grpo", "fco", "solved_skip", "unresolved")
# The setting the validation sums chose (benchmarks/README.md, "feedback replay, plain ratio"): the prompts trained
# after feedback are trained again without it, with the advantages over the group before and after feedback.
FEEDBACK_REPLAY = {"feedback_replay": True, "feedback_replay_shaping": None}
# The demo's runs: (name, method, the method config's overrides).
RUNS = (
    ("GRPO", "GRPO", {}),
    ("MulFeRL", "MulFeRL", {}),
    ("MulFeRL+replay", "MulFeRL", FEEDBACK_REPLAY),
    ("iGRPO", "iGRPO", {}),
)
# benchmarks/learning.json's summary (8 seeds, 150 steps, 300 held-out test sums, 4 answers each; Student-t 95%
# intervals over the seeds), embedded so that an installed package prints it; tests/demo/test_demo.py checks that the two
# agree. pass@1 without feedback (mean, low, high), with one turn of it (mean), and its difference to GRPO's within
# each seed at matched steps (mean, low, high).
EIGHT_SEEDS = {
    "GRPO": {"pass@1": (0.695, 0.604, 0.787), "with_feedback": 0.888, "vs_GRPO": None},
    "MulFeRL": {"pass@1": (0.687, 0.611, 0.763), "with_feedback": 0.883, "vs_GRPO": (-0.008, -0.052, 0.035)},
    "MulFeRL+replay": {"pass@1": (0.790, 0.715, 0.864), "with_feedback": 0.836, "vs_GRPO": (0.094, 0.029, 0.160)},
    "iGRPO": {"pass@1": (0.556, 0.505, 0.607), "with_feedback": 0.825, "vs_GRPO": (-0.139, -0.232, -0.047)},
}
# GRPO's pass@1 ranged over 0.610 to 0.880 across those 8 seeds (benchmarks/learning.json, per_seed).
ONE_SEED = (
    "One seed shows how each method trains (signal, routes, rollouts, time), not which one generalizes better: "
    "a single method's held-out pass@1 moves by up to 0.27 from seed to seed (GRPO: 0.610 to 0.880 over the 8), "
    "so compare the methods by the 8-seed rows (benchmarks/learning.py; its README tells how they were run)."
)


def training_problems(problems: list, per_difficulty: int, own_plan: bool = False, task: Task = ADDITION) -> Dataset:
    """`per_difficulty` problems of each kind from `problems`, interleaved, as a conversational dataset with the
    reference answer in `solution` (the column the answer-leak guard reads); for an own-plan policy, with its system
    prompt."""
    by_kind = {}
    for problem in problems:
        by_kind.setdefault(task.kind(problem), []).append(problem)
    chosen = [problem for group in zip(*(v[:per_difficulty] for v in by_kind.values())) for problem in group]
    return Dataset.from_list(
        [{"prompt": task.prompt_messages(problem, own_plan), "solution": task.solution(problem)} for problem in chosen]
    )


def make_trainer(
    method: str,
    model_dir: str,
    tokenizer,
    dataset: Dataset,
    settings: dict,
    overrides=None,
    feedback_provider=None,
    reward_func=addition_reward,
):
    """A GRPO, MulFeRL or iGRPO trainer on the same model, data and settings.

    `settings` are GRPOConfig fields shared by all three; `num_generations` is the group size K of GRPO and MulFeRL,
    and iGRPO splits the same rollouts per prompt between K/2 drafts and K/2 trained completions (the paper's matched
    budget). `overrides` are fields of the method's own config (e.g. MulFeRL's `fco_weight`); MulFeRL's feedback comes
    from `feedback_provider`, by default the task's checker; `reward_func` scores every method's rollouts.
    """
    from trl import GRPOConfig, GRPOTrainer

    from ..igrpo.igrpo_config import IGRPOConfig
    from ..igrpo.igrpo_trainer import IGRPOTrainer
    from ..mulferl.mulferl_config import MulFeRLConfig
    from ..mulferl.mulferl_trainer import MulFeRLTrainer

    settings = {**settings, **(overrides or {})}
    common = {"train_dataset": dataset, "processing_class": tokenizer}
    if method == "GRPO":
        return GRPOTrainer(model_dir, reward_func, args=GRPOConfig(**settings), **common)
    if method == "MulFeRL":
        args = MulFeRLConfig(**settings)
        provider = (feedback_provider or checker_provider()) if args.max_feedback_turns > 0 else None
        return MulFeRLTrainer(model_dir, reward_func, args=args, feedback_provider=provider, **common)
    if method == "iGRPO":
        group_size = settings["num_generations"]
        prompts = settings["per_device_train_batch_size"] // group_size
        igrpo = {
            **settings,
            "num_drafts": group_size // 2,
            "num_generations": group_size - group_size // 2,
            "per_device_train_batch_size": prompts * (group_size - group_size // 2),
            "sampling_budget": group_size,
        }
        return IGRPOTrainer(model_dir, reward_func, args=IGRPOConfig(**igrpo), **common)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}.")


class _StepBar(TrainerCallback):
    """One progress bar per run, showing the latest reward and share of prompts that gave a training signal."""

    def __init__(self, name: str):
        self.name, self.bar = name, None

    def on_train_begin(self, args, state, control, **kwargs):
        self.bar = tqdm(total=state.max_steps, desc=f"{self.name:<14}", unit="step")

    def on_step_end(self, args, state, control, **kwargs):
        self.bar.update(1)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "reward" in logs:
            self.bar.set_postfix(reward=f"{logs['reward']:.3f}", signal=f"{signal_share(logs):.2f}")

    def on_train_end(self, args, state, control, **kwargs):
        self.bar.close()


def signal_share(entry: dict) -> float:
    """Share of the step's prompts whose group gave a gradient: mixed for GRPO and iGRPO (its Stage 2 group); mixed
    or FAILED -> SOLVED for MulFeRL."""
    if "mulferl/route/grpo" in entry:
        return entry["mulferl/route/grpo"] + entry["mulferl/route/fco"]
    return 1.0 - entry["frac_reward_zero_std"]


def rollouts_per_step(entry: dict, settings: dict) -> float:
    """Completions sampled in a step: K per prompt for GRPO and iGRPO (drafts included), and for MulFeRL every turn's."""
    if REWARD_ROWS in entry:
        return entry[REWARD_ROWS]
    return settings["per_device_train_batch_size"]


def escape_rates(history: list[dict], max_turns: int) -> list[float]:
    """Per feedback turn t, the share of the groups regenerated at t that no longer all fail, pooled over the run
    (a group that failed but got no feedback is not regenerated, so it does not count)."""
    rates = []
    for turn in range(1, max_turns + 1):
        reached = sum(e[f"mulferl/turn_{turn}/reached_groups"] for e in history)
        failed = sum(e[f"mulferl/turn_{turn}/failed_groups"] for e in history)
        rates.append((reached - failed) / reached if reached else math.nan)
    return rates


def summarize_run(method: str, trainer, settings: dict, seconds: dict) -> dict:
    """The run's training metrics, averaged over steps."""
    history = [entry for entry in trainer.state.log_history if "reward" in entry]
    rollouts = sum(rollouts_per_step(e, settings) for e in history)
    result = {
        "run": method,
        **seconds,
        "steps": len(history),
        "signal_share": sum(signal_share(e) for e in history) / len(history),
        "train_reward": sum(e["reward"] for e in history) / len(history),
        "rollouts": rollouts,
        "rollouts_per_step": rollouts / len(history),
        "history": history,
    }
    if "mulferl/route/grpo" in history[0]:
        for route in ROUTES:
            result[route] = sum(e[f"mulferl/route/{route}"] for e in history) / len(history)
        max_turns = trainer.args.max_feedback_turns
        result["escape_rate"] = escape_rates(history, max_turns)
        result["regenerated_groups"] = [
            sum(e[f"mulferl/turn_{turn}/reached_groups"] for e in history) for turn in range(1, max_turns + 1)
        ]
        result["feedback_requests"] = sum(e["mulferl/feedback/requests"] for e in history)
    return result


def train_and_evaluate(
    name, method, model_dir, tokenizer, dataset, settings, held_out, evaluation, overrides=None
) -> dict:
    trainer = make_trainer(method, model_dir, tokenizer, dataset, settings, overrides)
    trainer.remove_callback(PrinterCallback)  # the bar shows the step's reward instead of every metric
    trainer.add_callback(_StepBar(name))
    start, cpu_start = time.perf_counter(), time.process_time()
    trainer.train()
    seconds = {"wall_time_s": time.perf_counter() - start, "cpu_time_s": time.process_time() - cpu_start}
    result = summarize_run(name, trainer, settings, seconds)
    result["held_out_after"] = evaluate_policy(trainer.model, tokenizer, held_out, **evaluation)
    return result


def write_plot(results: list[dict], before: dict, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.patches
    import matplotlib.pyplot as plt

    def moving_average(values, window=10):
        return [
            sum(values[max(0, i - window + 1) : i + 1]) / len(values[max(0, i - window + 1) : i + 1])
            for i in range(len(values))
        ]

    colors = {"GRPO": "tab:blue", "MulFeRL": "tab:orange", "MulFeRL+replay": "tab:red", "iGRPO": "tab:green"}
    figure, (reward_axis, signal_axis, held_out_axis) = plt.subplots(1, 3, figsize=(17, 4.6))
    for result in results:
        steps = [e["step"] for e in result["history"]]
        for axis, values in (
            (reward_axis, [e["reward"] for e in result["history"]]),
            (signal_axis, [signal_share(e) for e in result["history"]]),
        ):
            axis.plot(steps, values, color=colors[result["run"]], alpha=0.25, linewidth=0.8)
            axis.plot(
                steps, moving_average(values), color=colors[result["run"]], label=f"{result['run']} (10-step mean)"
            )
    reward_axis.set(title="turn-0 training reward", xlabel="step", ylabel="mean reward")
    signal_axis.set(title="prompts giving a training signal", xlabel="step", ylabel="share of prompts", ylim=(0, 1.05))
    bars = [("warm start", before, "tab:gray")] + [(r["run"], r["held_out_after"], colors[r["run"]]) for r in results]
    for offset, (setting, hatch) in enumerate((("no_feedback", ""), ("feedback", "//"))):
        for index, (name, evaluation, color) in enumerate(bars):
            value = evaluation[setting]
            held_out_axis.bar(
                index + 0.4 * offset - 0.2,
                value["mean"],
                width=0.38,
                color=color,
                alpha=1.0 if offset == 0 else 0.45,
                hatch=hatch,
                yerr=[[value["mean"] - value["low"]], [value["high"] - value["mean"]]],
                capsize=3,
            )
            held_out_axis.annotate(
                f"{value['mean']:.2f}",
                (index + 0.4 * offset - 0.2, value["high"]),
                ha="center",
                va="bottom",
                fontsize=8,
            )
    held_out_axis.set_xticks(range(len(bars)), [name for name, _, _ in bars])
    held_out_axis.set(title="held-out pass@1", ylabel="share of sampled answers right", ylim=(0, 1.1))
    held_out_axis.legend(
        handles=[
            matplotlib.patches.Patch(facecolor="tab:gray", label="without feedback"),
            matplotlib.patches.Patch(facecolor="tab:gray", alpha=0.45, hatch="//", label="with one turn of feedback"),
        ],
        loc="upper left",
    )
    for axis in (reward_axis, signal_axis):
        axis.legend()
    figure.text(
        0.5,
        0.01,
        "Faint lines: the value at each step; solid lines: its 10-step moving mean (iGRPO: its Stage 2 reward, with the "
        "best draft in the prompt).\nHeld-out pass@1: sampled answers (temperature 1) to held-out sums, with 95% "
        "intervals; with feedback, each wrong answer gets the checker's diagnosis injected and is answered again.",
        ha="center",
        fontsize=9,
    )
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    figure.savefig(path, dpi=120)
    plt.close(figure)


def at_least(minimum: int):
    """An argparse type: an integer no smaller than `minimum`."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def training_settings(args, seed: int) -> dict:
    """The config fields every run of the demo and of `benchmarks/learning.py` shares, from their arguments."""
    return {
        "per_device_train_batch_size": args.prompts_per_step * args.num_generations,
        "num_generations": args.num_generations,
        "max_completion_length": args.max_completion_length,
        "learning_rate": args.learning_rate,
        "lr_scheduler_type": "constant",  # so that a run's state at step S is that of a run of S steps
        "logging_steps": 1,
        "disable_tqdm": True,
        "save_strategy": "no",
        "report_to": "none",
        "use_cpu": True,
        "bf16": False,
        "seed": seed,
        "loss_type": "grpo",
        "activation_checkpointing": False,  # nothing to save on a tiny model; TRL's default would recompute
    }


def format_table(results: list[dict], before: dict) -> str:
    def pass_at_1(value: dict) -> str:
        return f"{value['mean']:.3f} ({value['low']:.2f}-{value['high']:.2f})"

    rows = [
        ("held-out pass@1 before", lambda r: pass_at_1(before["no_feedback"])),
        ("  with one turn of feedback", lambda r: pass_at_1(before["feedback"])),
        ("prompts with training signal", lambda r: f"{r['signal_share']:.2f}"),
    ]
    rows += [
        (f"  {label}", lambda r, route=route: f"{r[route]:.2f}" if route in r else "-")
        for label, route in (
            ("routed to GRPO (mixed)", "grpo"),
            ("routed to FCO (fixed)", "fco"),
            ("solved at turn 0 (skip)", "solved_skip"),
            ("unresolved", "unresolved"),
        )
    ]
    rows += [
        ("training reward (turn 0; iGRPO: Stage 2)", lambda r: f"{r['train_reward']:.3f}"),
        ("rollouts per step", lambda r: f"{r['rollouts_per_step']:.1f}"),
        ("held-out pass@1 after", lambda r: pass_at_1(r["held_out_after"]["no_feedback"])),
        ("  with one turn of feedback", lambda r: pass_at_1(r["held_out_after"]["feedback"])),
        ("wall time (s)", lambda r: f"{r['wall_time_s']:.0f}"),
    ]
    names = [r["run"] for r in results]
    return aligned(names, [(label, [cell(r) for r in results]) for label, cell in rows], title="this run (1 seed)")


def format_eight_seeds(names: list[str]) -> str:
    """`EIGHT_SEEDS` for the demo's runs, in the columns of its table."""

    def interval(values: tuple, sign: str = "") -> str:
        mean, low, high = values
        return f"{mean:{sign}.3f} ± {(high - low) / 2:.3f}"  # Student-t intervals are symmetric

    rows = [
        ("held-out pass@1 after 150 steps", [interval(EIGHT_SEEDS[n]["pass@1"]) for n in names]),
        ("  with one turn of feedback", [f"{EIGHT_SEEDS[n]['with_feedback']:.3f}" for n in names]),
        (
            "  difference to GRPO (same seed)",
            [interval(d, "+") if (d := EIGHT_SEEDS[n]["vs_GRPO"]) else "-" for n in names],
        ),
    ]
    return aligned(names, rows, title="8 seeds, mean ± 95% interval")


def aligned(names: list[str], rows: list[tuple[str, list[str]]], title: str = "", width: int = 19) -> str:
    """A text table: `title` and the run names as column heads, then a label and a cell per run on each row."""
    label_width = 40
    lines = [f"{title:<{label_width}}" + "".join(f"{name:>{width}}" for name in names)]
    lines += [f"{label:<{label_width}}" + "".join(f"{cell:>{width}}" for cell in cells) for label, cells in rows]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="trl-mulferl demo",
        description=" ".join(__doc__.split("\n\n")[0].split()),
        epilog="Flags may be spelled with underscores or dashes (--num_generations, --num-generations).",
    )
    add_config_option(parser)
    parser.add_argument("--steps", type=at_least(1), default=100, help="training steps per run (default 100)")
    parser.add_argument("--num_generations", type=at_least(2), default=8, help="rollouts per prompt, K (paper: 8)")
    parser.add_argument("--prompts_per_step", type=at_least(1), default=4)
    parser.add_argument("--max_completion_length", type=at_least(1), default=40)
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--held_out", type=at_least(3), default=150, help="held-out sums (default 150)")
    parser.add_argument("--samples", type=at_least(1), default=4, help="answers per held-out sum (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output_dir", type=Path, default=None, help="default: ./mulferl-demo-<date-time>")
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run in seconds: a barely trained policy, for tests only"
    )
    args = parse_arguments(parser, sys.argv[1:] if argv is None else list(argv))
    output_dir = args.output_dir or Path(f"mulferl-demo-{datetime.now():%Y%m%d-%H%M%S}")
    output_dir.mkdir(parents=True, exist_ok=True)
    if "OMP_NUM_THREADS" not in os.environ:
        import torch

        # A model this small gains little from a second thread, and loses much on a machine that is busy.
        torch.set_num_threads(1)
    # The demo's own progress bars and table are the output; library notices about a tiny local model are noise.
    transformers_logging.set_verbosity_error()
    transformers_logging.disable_progress_bar()
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)

    splits = make_splits(args.seed)
    config = WarmStartConfig(seed=args.seed)
    if args.quick:
        config = WarmStartConfig(seed=args.seed, hidden_size=32, num_layers=1, steps=4, batch_size=8, warmup_steps=1)
    model_dir = warm_start(output_dir / "warm-start", splits.train, config, log=tqdm.write)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    held_out = splits.test[: args.held_out]
    evaluation = {"samples": args.samples, "max_new_tokens": args.max_completion_length, "seed": args.seed}
    before = evaluate_policy(AutoModelForCausalLM.from_pretrained(model_dir), tokenizer, held_out, **evaluation)
    settings = {
        "output_dir": str(output_dir),  # with save_strategy "no" the trainers write nothing there
        "max_steps": args.steps,
        **training_settings(args, args.seed),
    }
    dataset = training_problems(splits.train, per_difficulty=100)
    results = [
        train_and_evaluate(name, method, model_dir, tokenizer, dataset, settings, held_out, evaluation, overrides)
        for name, method, overrides in RUNS
    ]

    with open(output_dir / "metrics.jsonl", "w") as metrics:
        for result in results:
            for entry in result["history"]:
                metrics.write(json.dumps({"run": result["run"], **entry}) + "\n")
    summary = {
        "warm_start": json.loads((Path(model_dir) / "warm_start.json").read_text()),
        "held_out_before": before,
        "runs": [{k: v for k, v in r.items() if k != "history"} for r in results],
    }
    (output_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    write_plot(results, before, output_dir / "curves.png")
    print("\n" + format_table(results, before))
    print(format_eight_seeds([r["run"] for r in results]))
    print("\n" + textwrap.fill(ONE_SEED, 119))
    print(f"\nMetrics (metrics.jsonl), summary.json and curves.png are in {output_dir.resolve()}")
    return summary


if __name__ == "__main__":
    main()
