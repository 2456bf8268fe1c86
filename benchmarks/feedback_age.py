"""Rescue rate against the feedback's age: what `AsyncMulFeRLConfig.max_feedback_age`'s default rests on.

In the asynchronous trainer a failed group's feedback critiques its turn-0 attempt, sampled by the policy of version
t, and the group is regenerated with it by the policy of a later version t + a (a: the feedback's age, in optimizer
steps). This measures, on the learning benchmark's task (two-digit addition, the warm-started policy of
`trl_mulferl.demo.warm_start`, the checker's feedback), how often such a regeneration rescues a wrong answer as the
age grows:

1. For each seed: the warm start, then the synchronous `MulFeRLTrainer` at `benchmarks/learning.py`'s settings (4
   prompts a step, K = 8, learning rate 1e-4, constant; `--learning-rate` to move the policy faster) for
   `max(--bases) + max(--ages)` steps, keeping the policy of every step asked for.
2. For each base t: the policy of version t answers every validation sum `--samples` times; each wrong answer gets
   the checker's feedback on that answer.
3. For each age a: the policy of version t + a answers again with that feedback in its slot (as the trainer injects
   it), and, as the comparison, answers the same sum afresh without feedback (sample for sample, an independent draw).

Per (seed, t, a): `rescue` (the share of the wrong answers of version t that version t + a gets right with their
feedback), `without_feedback` (the share of the same (sum, sample) that version t + a gets right from scratch, in a
draw of its own), and `lift` = rescue - without_feedback, what the feedback itself buys at that age. The table pools
bases and seeds by age, with the per-seed 95% interval of the lift's change from age 0.

    OMP_NUM_THREADS=1 python benchmarks/feedback_age.py --json benchmarks/feedback_age.json
    OMP_NUM_THREADS=1 python benchmarks/feedback_age.py --learning-rate 3e-4 --json benchmarks/feedback_age_lr3e-4.json
    python benchmarks/feedback_age.py --smoke   # a barely trained warm start, 2 steps: checks that it runs

The full run (seeds 0-2, bases 0, 25 and 50, ages up to 40) takes about 17 minutes on one core. Development seeds
only (0-19): the others are kept for runs that choose nothing.
"""

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path
from statistics import fmean

from learning import seed_interval  # the learning benchmark's seed-level 95% interval (benchmarks/learning.py)


AGES = [0, 2, 5, 10, 15, 20, 30, 40]
BASES = [0, 25, 50]


def train_snapshots(
    seed: int, steps: list[int], learning_rate: float, work_dir: Path, smoke: bool
) -> tuple[dict, str, list]:
    """Warm start, then train MulFeRL with the learning benchmark's settings, keeping the weights at `steps`."""
    import torch
    from transformers import AutoTokenizer, PrinterCallback, TrainerCallback
    from transformers.utils import logging as transformers_logging

    from trl_mulferl.demo.addition import make_splits
    from trl_mulferl.demo.compare import make_trainer, training_problems, training_settings
    from trl_mulferl.demo.warm_start import WarmStartConfig, warm_start

    transformers_logging.set_verbosity_error()
    torch.set_num_threads(1)
    splits = make_splits(seed)
    quick = {"hidden_size": 32, "num_layers": 1, "steps": 4, "batch_size": 8, "warmup_steps": 1} if smoke else {}
    model_dir = warm_start(work_dir / f"warm-start-{seed}", splits.train, WarmStartConfig(seed=seed, **quick), None)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    # The learning benchmark's settings (4 prompts a step, K = 8, 40 new tokens, a constant learning rate).
    run = argparse.Namespace(
        prompts_per_step=4, num_generations=8, max_completion_length=40, learning_rate=learning_rate
    )
    settings = {
        **training_settings(run, seed),
        "output_dir": str(work_dir / "trainer"),
        "max_steps": max(steps),
    }
    snapshots = {}

    class Keep(TrainerCallback):
        def on_step_end(self, args, state, control, model=None, **kwargs):
            if state.global_step in steps:
                snapshots[state.global_step] = {k: v.detach().clone() for k, v in model.state_dict().items()}

    dataset = training_problems(splits.train, per_difficulty=100)
    trainer = make_trainer("MulFeRL", model_dir, tokenizer, dataset, settings)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(Keep())
    if 0 in steps:
        snapshots[0] = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    trainer.train()
    return snapshots, model_dir, splits.validation


def measure(seed: int, args, work_dir: Path):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trl_mulferl.demo.warm_start import addition_problems, checker_provider
    from trl_mulferl.evaluation.backends import TransformersBackend
    from trl_mulferl.evaluation.metrics import standing
    from trl_mulferl.evaluation.runner import FeedbackSettings, evaluate, record_key

    bases, ages, samples = args.bases, args.ages, args.samples
    versions = sorted({t + a for t in bases for a in ages} | set(bases))
    start = time.perf_counter()
    snapshots, model_dir, validation = train_snapshots(seed, versions, args.learning_rate, work_dir, args.smoke)
    train_seconds = time.perf_counter() - start
    problems = addition_problems(validation[: args.held_out])
    # A fresh copy of the warm start takes each version's weights: a deep copy of the trained model, given the warm
    # start's weights, gave logits up to 3.8 away from the warm start's (the trained model itself matches a fresh copy
    # of its weights; the deep copy's fault was not traced).
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)

    def backend_at(version: int) -> TransformersBackend:
        model.load_state_dict(snapshots[version])
        return TransformersBackend(model, tokenizer, max_tokens=40, temperature=1.0, batch_size=256)

    def run(version: int, draw: int = 0, **kwargs) -> list[dict]:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed * 1_000_000 + draw * 1000 + version)
            return evaluate(
                problems, backend_at(version), num_samples=samples, seed=seed, show_progress=False, **kwargs
            )

    # Turn 0 of every version, no feedback: the answers critiqued (draw 0), and an independent draw to compare with.
    fresh = {version: run(version) for version in versions}
    redrawn = {version: run(version, draw=1) for version in versions}
    rows = []
    for base in bases:
        at_base = standing(fresh[base], 0)
        wrong = {key for key, right in at_base.items() if not right}
        for age in ages:
            revised = run(
                base + age,
                feedback_turns=1,
                feedback=FeedbackSettings(checker_provider()),
                finished={record_key(r): r for r in fresh[base]},
            )
            after = standing(revised, 1)
            plain = standing(redrawn[base + age], 0)
            rows.append(
                {
                    "seed": seed,
                    "base": base,
                    "age": age,
                    "wrong_at_base": len(wrong),
                    "pass_at_1_base": 1 - len(wrong) / len(at_base),
                    "pass_at_1_later": fmean(plain.values()),
                    "rescue": fmean(after[key] for key in wrong) if wrong else math.nan,
                    "without_feedback": fmean(plain[key] for key in wrong) if wrong else math.nan,
                }
            )
            rows[-1]["lift"] = rows[-1]["rescue"] - rows[-1]["without_feedback"]
    return rows, train_seconds


def summarize(rows: list[dict], ages: list[int]) -> dict:
    """By age, pooled over bases: the mean rescue, the rate without feedback and the lift; and the lift's change from
    age 0, per seed (its mean over bases), with its 95% interval over seeds."""
    seeds = sorted({r["seed"] for r in rows})

    def seed_mean(seed, age, name):
        return fmean(r[name] for r in rows if r["seed"] == seed and r["age"] == age)

    table = {}
    for age in ages:
        at_age = [r for r in rows if r["age"] == age]
        table[age] = {name: fmean(r[name] for r in at_age) for name in ("rescue", "without_feedback", "lift")}
        table[age]["pass_at_1_change"] = fmean(r["pass_at_1_later"] - r["pass_at_1_base"] for r in at_age)
        table[age]["lift_change"] = seed_interval([seed_mean(s, age, "lift") - seed_mean(s, 0, "lift") for s in seeds])
    return table


def markdown(table: dict) -> str:
    lines = [
        "| feedback age (steps) | pass@1 change, t to t + age | rescue with feedback | right without feedback | lift | "
        "lift - lift at age 0 (95% over seeds) |",
        "|---|---|---|---|---|---|",
    ]
    for age, row in table.items():
        change = row["lift_change"]
        lines.append(
            f"| {age} | {row['pass_at_1_change']:+.3f} | {row['rescue']:.3f} | {row['without_feedback']:.3f} | {row['lift']:.3f} | "
            f"{change['mean']:+.3f} ({change['low']:+.3f}, {change['high']:+.3f}) |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--bases", type=int, nargs="+", default=BASES, help="policy versions whose answers are critiqued"
    )
    parser.add_argument(
        "--ages", type=int, nargs="+", default=AGES, help="steps from the critiqued answer to the regeneration"
    )
    parser.add_argument("--held-out", type=int, default=300, help="validation sums")
    parser.add_argument("--samples", type=int, default=4, help="answers per sum")
    parser.add_argument(
        "--learning-rate",
        type=float,
        default=1e-4,
        help="the learning benchmark's (the committed runs: 1e-4, and 3e-4 to move the policy faster)",
    )
    parser.add_argument("--smoke", action="store_true", help="a barely trained warm start, bases 0, ages 0 and 2")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    if any(seed >= 20 for seed in args.seeds):
        parser.error("--seeds: development seeds only (0-19)")
    if args.smoke:
        args.seeds, args.bases, args.ages, args.held_out, args.samples = [0], [0], [0, 2], 12, 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rows, seconds = [], {}
    with tempfile.TemporaryDirectory() as work_dir:
        for seed in args.seeds:
            seed_rows, seconds[seed] = measure(seed, args, Path(work_dir))
            rows += seed_rows
            print(f"seed {seed}: trained in {seconds[seed]:.0f} s", flush=True)
    table = summarize(rows, args.ages)
    print(markdown(table))
    if args.json is not None:
        settings = {k: v for k, v in vars(args).items() if k != "json"}
        args.json.write_text(json.dumps({"settings": settings, "by_age": table, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
