"""Does MulFeRL learn more than GRPO and iGRPO? Held-out pass@1 from the warm-started addition policy, over seeds.

For each seed: a warm start (`trl_mulferl.demo.warm_start`, its own seed and model), then MulFeRL for `--steps` steps,
then GRPO and iGRPO from the same warm start, seed and data, each run until it has sampled as many completions as
MulFeRL did (MulFeRL regenerates failed groups, so it samples more per step) and measured twice: at MulFeRL's step
count (matched steps) and at the end (matched rollout budget). Held-out pass@1 is without feedback (the paper's
single-pass accuracy) on sums no run trains on. Every run is evaluated on the validation and the test sums (the
training is the same either way); `--split` says which the tables report: validation for choosing settings and for
the diagnosis (with `--curve-every`, pass@1 through training), test for the chosen ones. On the first seed, the paper's Table 2
ablations of MulFeRL: no regeneration (`max_feedback_turns=0`), no FCO (`fco_weight=0`), plain injection; and any
`--variants` (settings tried, see `VARIANTS`), on the first seed or on each of `--variant-seeds`.

Every job's result is written to `--work-dir` as soon as it ends, so an interrupted run resumes where it stopped.

    OMP_NUM_THREADS=1 python benchmarks/learning.py --seeds 0 1 2 --jobs 2 --output benchmarks/learning.json
"""

import argparse
import fcntl
import json
import math
import os
import random
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from statistics import fmean

from trl_mulferl.demo.compare import FEEDBACK_REPLAY, METHODS, ROUTES, training_settings
from trl_mulferl.demo.tasks import TASKS


# MulFeRL settings besides the recipe's, as overrides of MulFeRLConfig fields, and of the run itself: "feedback"
# ("checker" or "vague"), "warm_start" ("standard" or "own plan", `WarmStartConfig.own_plan`), "method" ("MulFeRL" or
# "GRPO") and "feedback_turn_grpo" (False: a group whose rewards are mixed after feedback is not trained, so feedback
# trains through FCO alone).
ABLATIONS = {
    "no regeneration": {"max_feedback_turns": 0},
    "no FCO": {"fco_weight": 0.0},
    "plain injection": {"feedback_injection": "plain"},
}
VARIANTS = {
    "one feedback turn": {"max_feedback_turns": 1},
    "FCO weight 1": {"fco_weight": 1.0},
    "FCO weight 1, tau 0.1": {"fco_weight": 1.0, "fco_tau": 0.1},
    "FCO weight 10, tau 0.1": {"fco_weight": 10.0, "fco_tau": 0.1},
    "FCO mean scores, tau 0.2": {"fco_score_normalization": "mean", "fco_tau": 0.2},
    "vague feedback": {"feedback": "vague"},
    "FCO only after feedback": {"feedback_turn_grpo": False},
    # `feedback_replay`: the prompts trained after feedback are trained without it (Critique-GRPO's shaping, or not)
    "feedback replay": {"feedback_replay": True},
    "feedback replay, plain ratio": {"feedback_replay": True, "feedback_replay_shaping": None},
    "feedback replay, plain ratio, one turn": {**FEEDBACK_REPLAY, "max_feedback_turns": 1},
    # an own plan makes responses about 15 tokens longer
    "own plan": {"warm_start": "own plan", "max_completion_length": 64},
    "GRPO, own plan": {"method": "GRPO", "warm_start": "own plan", "max_completion_length": 64},
}
# The named sets of MulFeRL settings the "MulFeRL" run of every seed trains with (`--preset`): the paper's defaults,
# and the preset fixed for the confirmation protocol (benchmarks/README.md): `feedback_replay` with the advantages
# over the group before and after feedback, as the demo's (on the development seeds 0-7 of addition, +0.098 held-out
# pass@1 over GRPO on the validation sums, benchmarks/learning_validation.json).
PRESETS = {"paper": {}, "replay": VARIANTS["feedback replay, plain ratio"]}
# The controls of the protocol (`--controls`), on every seed, each a change to the preset's run: its feedback made
# uninformative or another prompt's, or GRPO given as many generated rollouts per prompt in a larger group ("matched":
# the preset's rollouts per prompt on that seed, rounded) over the same steps.
CONTROLS = {
    "vague feedback": {"feedback": "vague"},
    "shuffled feedback": {"feedback": "shuffled"},
    "GRPO, larger K": {"method": "GRPO", "num_generations": "matched"},
}
# The run a variant is also compared with, on its own seeds, when it starts from another warm start than GRPO's.
VARIANT_BASELINES = {"own plan": "GRPO, own plan"}
# The arguments a job's result depends on: a saved result made with others is not reused.
RUN_SETTINGS = (
    "task",
    "steps",
    "num_generations",
    "prompts_per_step",
    "max_completion_length",
    "learning_rate",
    "held_out",
    "samples",
    "quick",
    "curve_every",
    "split",  # the curve's points are evaluated on it
)
# Every run is evaluated on both held-out splits (training does not depend on them): settings are chosen on the
# validation sums, the table is read on the test sums. Pass@1 through training (`--curve-every`) is on `--split` only.
SPLITS = ("validation", "test")
# 97.5% quantiles of Student's t, by degrees of freedom (the seed-level 95% intervals).
T_QUANTILE = {
    **{1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228},
    **{11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086},
}


def vague_feedback(prompt, completions, rewards, **columns) -> str:
    """Feedback that says only that the answers are wrong: what MulFeRL gets from a reviewer that finds nothing."""
    return "Your answer is wrong, try again."


class ShuffledFeedback:
    """Another prompt's feedback: the task's provider asked about this group, its answer kept, and one of the last
    `memory` answers it gave about other prompts returned instead (none yet: no feedback, the group is unresolved).
    A step has few failed groups, often one, so the other prompt is drawn from recent steps as well as this one."""

    def __init__(self, provider, seed: int, memory: int = 16):
        self.provider, self.rng, self.memory, self.answers = provider, random.Random(seed), memory, []

    async def __call__(self, prompt, completions, rewards, **columns) -> str | None:
        answer = await self.provider(prompt, completions, rewards, **columns)
        others = [text for other, text in self.answers if other != prompt]
        if answer is not None:
            self.answers = [*self.answers, (prompt, answer)][-self.memory :]
        return self.rng.choice(others) if others else None


def warm_start_dir(args, seed: int, own_plan: bool = False) -> Path:
    return args.work_dir / args.task / f"seed-{seed}" / ("warm-start-own-plan" if own_plan else "warm-start")


def warm_start_job(args, seed: int, own_plan: bool = False) -> str:
    """The seed's warm start, made once: a job that needs one being made elsewhere (another job or invocation) waits
    for it."""
    import torch

    from trl_mulferl.demo.warm_start import WarmStartConfig, warm_start

    torch.set_num_threads(1)
    task = TASKS[args.task]
    config = WarmStartConfig(seed=seed, own_plan=own_plan)
    if args.quick:
        quick = {"hidden_size": 32, "num_layers": 1, "steps": 4, "batch_size": 8, "warmup_steps": 1}
        config = WarmStartConfig(seed=seed, own_plan=own_plan, **quick)
    directory = warm_start_dir(args, seed, own_plan)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f"{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return warm_start(directory, task.make_splits(seed).train, config, log=None, task=task)


def without_mixed_groups_after_feedback(task_reward, group_size: int):
    """The task's reward, except that a group answered after the checker's feedback whose rewards are mixed gets
    none (unscorable), so MulFeRL trains it with no loss: feedback then trains through FCO alone. A group is K
    consecutive rows of one reward call, as the trainer scores them on one process."""
    from trl_mulferl.core.rewards import completion_text

    def reward(prompts, completions, **kwargs) -> list[float | None]:
        rewards = task_reward(prompts, completions, **kwargs)
        for start in range(0, len(rewards), group_size):
            group = rewards[start : start + group_size]
            after_feedback = CHECKER_REPORT_HEAD in completion_text(completions[start])
            if after_feedback and 0 < sum(group) < len(group):
                rewards[start : start + group_size] = [None] * group_size
        return rewards

    reward.__name__ = task_reward.__name__  # the name TRL logs rewards under
    return reward


# How the checker's feedback opens in the slot (`trl_mulferl.providers.aggregate_diagnostics`).
CHECKER_REPORT_HEAD = "<feedback>The checker's reports on the"


def escape_rates_by_window(history: list[dict], max_turns: int, window: int) -> dict[str, list[float]]:
    """The escape rate per feedback turn over the run's first and last `window` steps: does training change how well
    the policy reads feedback?"""
    from trl_mulferl.demo.compare import escape_rates

    return {"first": escape_rates(history[:window], max_turns), "last": escape_rates(history[-window:], max_turns)}


def all_failed_share_by_window(history: list[dict], prompts_per_step: int, window: int) -> dict[str, float]:
    """The share of turn-0 groups in which every rollout failed, over the run's first and last `window` steps (the
    task's calibration: 30-50% at the start)."""
    return {
        name: sum(e["mulferl/turn_0/failed_groups"] for e in steps) / (len(steps) * prompts_per_step)
        for name, steps in (("first", history[:window]), ("last", history[-window:]))
    }


def run_job(args, seed: int, name: str, method: str, overrides: dict, max_steps: int, eval_steps: list[int]) -> dict:
    """Train one run, evaluate it at `eval_steps`, and return its metrics (also written to the work folder)."""
    import torch
    from transformers import AutoTokenizer, PrinterCallback, TrainerCallback
    from transformers.utils import logging as transformers_logging

    from trl_mulferl.demo.compare import make_trainer, summarize_run, training_problems
    from trl_mulferl.demo.warm_start import evaluate_policy

    transformers_logging.set_verbosity_error()
    torch.set_num_threads(1)
    task = TASKS[args.task]
    splits = task.make_splits(seed)
    overrides = dict(overrides)
    feedback = overrides.pop("feedback", "checker")
    own_plan = overrides.pop("warm_start", "standard") == "own plan"
    method = overrides.pop("method", method)
    feedback_turn_grpo = overrides.pop("feedback_turn_grpo", True)
    model_dir = str(warm_start_dir(args, seed, own_plan))
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    settings = {**training_settings(args, seed), "output_dir": str(args.work_dir / "trainer"), "max_steps": max_steps}
    max_new_tokens = overrides.get("max_completion_length", args.max_completion_length)
    evaluation = {"samples": args.samples, "max_new_tokens": max_new_tokens, "seed": seed, "own_plan": own_plan}
    evaluation["task"] = task
    evaluations, eval_seconds = {split: {} for split in SPLITS}, [0.0]
    compared_steps = {args.steps, max_steps}  # the others are points of the validation curve

    class Evaluate(TrainerCallback):
        def on_step_end(self, state_args, state, control, model=None, **kwargs):
            if state.global_step in eval_steps:
                start = time.perf_counter()
                step = str(state.global_step)  # as JSON keeps it
                for split in SPLITS if state.global_step in compared_steps else (args.split,):
                    held_out = getattr(splits, split)[: args.held_out]
                    evaluations[split][step] = evaluate_policy(model, tokenizer, held_out, **evaluation)
                    evaluations[split][step]["train_wall_time_s"] = start - run_start - eval_seconds[0]
                    # prompt and generated tokens of every turn so far, MulFeRL's regenerations included
                    evaluations[split][step]["train_tokens"] = state.num_input_tokens_seen
                eval_seconds[0] += time.perf_counter() - start

    dataset = training_problems(splits.train, per_difficulty=100, own_plan=own_plan, task=task)
    provider = {
        "checker": task.checker_provider(),
        "vague": vague_feedback,
        "shuffled": ShuffledFeedback(task.checker_provider(), seed),
    }[feedback]
    reward = task.reward
    if not feedback_turn_grpo:
        reward = without_mixed_groups_after_feedback(task.reward, settings["num_generations"])
    trainer = make_trainer(method, model_dir, tokenizer, dataset, settings, overrides, provider, reward)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(Evaluate())
    run_start, cpu_start = time.perf_counter(), time.process_time()
    trainer.train()
    seconds = {"wall_time_s": time.perf_counter() - run_start - eval_seconds[0]}
    result = summarize_run(method, trainer, settings, seconds)
    history = result.pop("history")
    if "escape_rate" in result:
        result["escape_rate_by_window"] = escape_rates_by_window(history, trainer.args.max_feedback_turns, 50)
        result["all_failed_share_by_window"] = all_failed_share_by_window(history, args.prompts_per_step, 50)
    run_options = {"feedback": feedback, "warm_start": "own plan" if own_plan else "standard", "method": method}
    result.update(seed=seed, name=name, overrides=overrides | run_options, evaluations=evaluations)
    result.update(feedback_turn_grpo=feedback_turn_grpo, matched_steps=args.steps)
    result["cpu_time_s"] = time.process_time() - cpu_start
    return result


def warm_start_evaluation(args, seed: int, own_plan: bool = False) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trl_mulferl.demo.warm_start import evaluate_policy

    torch.set_num_threads(1)
    task = TASKS[args.task]
    model_dir = warm_start_dir(args, seed, own_plan)
    splits = task.make_splits(seed)
    model, tokenizer = AutoModelForCausalLM.from_pretrained(model_dir), AutoTokenizer.from_pretrained(model_dir)
    max_new_tokens = VARIANTS["own plan"]["max_completion_length"] if own_plan else args.max_completion_length
    evaluation = {"samples": args.samples, "max_new_tokens": max_new_tokens, "seed": seed, "own_plan": own_plan}
    evaluation["task"] = task
    result = {
        split: evaluate_policy(model, tokenizer, getattr(splits, split)[: args.held_out], **evaluation)
        for split in SPLITS
    }
    return {"evaluations": result, "fine_tuning": json.loads((model_dir / "warm_start.json").read_text())}


def on_split(result: dict, split: str) -> dict:
    """A job's result with the evaluations on `split` only: a warm start's evaluation, or a run's by step."""
    if "fine_tuning" in result:
        return {**result["evaluations"][split], "fine_tuning": result["fine_tuning"]}
    return {**result, "evaluations": result["evaluations"][split]}


def cached(path: Path, job, args, *job_args, own_plan: bool = False):
    """The job's result from `path` when it was made with the same settings, else run it and save it there; a job
    being run elsewhere (another invocation) is waited for."""
    warm_start_record = warm_start_dir(args, job_args[0], own_plan) / "warm_start.json"
    settings = {name: getattr(args, name) for name in RUN_SETTINGS} | {"job": [str(a) for a in job_args]}
    settings["warm_start"] = json.loads(warm_start_record.read_text())["settings"]  # a new warm start reruns the job
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.is_file():
            saved = json.loads(path.read_text())
            if saved["job_settings"] == settings:
                return saved
        result = {**job(args, *job_args), "job_settings": settings}
        path.write_text(json.dumps(result, indent=2) + "\n")
        return result


def seed_job(args, seed: int) -> dict:
    """Warm start, MulFeRL, then GRPO and iGRPO to MulFeRL's rollout budget, evaluated at its step count too."""
    folder = args.work_dir / args.task / f"seed-{seed}" / "runs"
    warm_start_job(args, seed)
    results = {"warm_start": cached(folder / "warm_start.json", warm_start_evaluation, args, seed)}
    results["MulFeRL"] = mulferl = preset_run(args, seed)
    rollouts_per_grpo_step = args.prompts_per_step * args.num_generations
    matched = max(args.steps, math.ceil(mulferl["rollouts"] / rollouts_per_grpo_step))
    for method in (m for m in args.methods if m != "MulFeRL"):
        eval_steps = sorted({*evaluation_steps(args, args.steps), matched})
        results[method] = cached(
            folder / f"{method}.json", run_job, args, seed, method, method, {}, matched, eval_steps
        )
    return {name: on_split(result, args.split) for name, result in results.items()}


def preset_run(args, seed: int) -> dict:
    """The seed's MulFeRL run with the preset's settings, made once (a job that needs it waits for it)."""
    folder = args.work_dir / args.task / f"seed-{seed}" / "runs"
    file_name = "MulFeRL.json" if args.preset == "paper" else f"MulFeRL, {args.preset}.json".replace(" ", "_")
    job = (seed, "MulFeRL", "MulFeRL", PRESETS[args.preset], args.steps, evaluation_steps(args, args.steps))
    return cached(folder / file_name.replace(",", ""), run_job, args, *job)


def control_job(args, seed: int, name: str) -> dict:
    """A control of the preset on one seed (`CONTROLS`), evaluated at the preset's step count."""
    warm_start_job(args, seed)
    control = dict(CONTROLS[name])
    overrides = control if control.get("method") == "GRPO" else {**PRESETS[args.preset], **control}
    if overrides.get("num_generations") == "matched":
        rollouts_per_prompt = preset_run(args, seed)["rollouts"] / (args.steps * args.prompts_per_step)
        group_size = max(2, round(rollouts_per_prompt))
        overrides |= {"num_generations": group_size, "per_device_train_batch_size": group_size * args.prompts_per_step}
    folder = args.work_dir / args.task / f"seed-{seed}" / "runs"
    file_name = f"control, {name}, {args.preset}.json".replace(" ", "_").replace(",", "")
    job = (seed, name, "MulFeRL", overrides, args.steps, evaluation_steps(args, args.steps))
    return on_split(cached(folder / file_name, run_job, args, *job), args.split)


def evaluation_steps(args, steps: int) -> list[int]:
    """The steps a run is evaluated at: its last, and every `--curve-every` steps before (pass@1 through training)."""
    curve = range(args.curve_every, steps, args.curve_every) if args.curve_every else []
    return sorted({*curve, steps})


def variant_job(args, seed: int, name: str, overrides: dict) -> dict:
    folder = args.work_dir / args.task / f"seed-{seed}" / "runs"
    own_plan = overrides.get("warm_start") == "own plan"
    warm_start_job(args, seed, own_plan)
    file_name = name.replace(" ", "_").replace(",", "") + ".json"
    job = (seed, name, "MulFeRL", overrides, args.steps, evaluation_steps(args, args.steps))
    result = cached(folder / file_name, run_job, args, *job, own_plan=own_plan)
    if own_plan:
        warm_start = cached(
            folder / "warm_start_own_plan.json", warm_start_evaluation, args, seed, True, own_plan=True
        )
        result = {**result, "warm_start_evaluation": on_split(warm_start, args.split)}
    return on_split(result, args.split)


def seed_interval(values: list[float]) -> dict:
    """Mean over seeds and its 95% Student-t interval (none for a single seed)."""
    from trl_mulferl.demo.warm_start import mean_interval

    if len(values) < 2:
        return {"mean": sum(values) / len(values), "low": math.nan, "high": math.nan, "values": values}
    return {**mean_interval(values, T_QUANTILE[len(values) - 1]), "values": values}


def evaluation_at(run: dict, budget: str) -> dict:
    """A run's held-out evaluation at MulFeRL's step count (`"matched_steps"`) or at the end of its run, when it has
    sampled as many completions as MulFeRL (`"matched_rollouts"`; MulFeRL's own run ends there)."""
    if budget == "matched_steps":
        return run["evaluations"][str(run["matched_steps"])]
    return run["evaluations"][str(max(map(int, run["evaluations"])))]


def summarize_variant(
    per_seed: dict, runs_by_seed: dict, kinds: tuple, baseline: dict | None = None, budget: str = "matched_steps"
) -> dict:
    """A variant over the seeds it ran on: its held-out pass@1 after MulFeRL's steps (with the interval over held-out
    problems when it ran on one seed) and its difference to GRPO's, within each seed, at the same steps or (`budget`
    "matched_rollouts", the controls') at the preset's rollouts; also to the `baseline` runs (by seed) when it has
    them, at the same steps."""
    runs = list(runs_by_seed.values())
    evaluations = [evaluation_at(run, "matched_steps") for run in runs]
    pass_at_1 = [e["no_feedback"]["mean"] for e in evaluations]

    def difference_to(runs_of: dict, budget: str = "matched_steps") -> dict:
        other = [evaluation_at(runs_of[seed], budget)["no_feedback"]["mean"] for seed in runs_by_seed]
        return seed_interval([p - o for p, o in zip(pass_at_1, other, strict=True)])

    summary = {
        "seeds": list(runs_by_seed),
        "overrides": runs[0]["overrides"],
        "pass@1": evaluations[0]["no_feedback"] if len(runs) == 1 else seed_interval(pass_at_1),
        "pass@1_per_seed": pass_at_1,
        "difference_vs_GRPO": difference_to({seed: per_seed[seed]["GRPO"] for seed in runs_by_seed}, budget),
        "pass@1_with_feedback": fmean([e["feedback"]["mean"] for e in evaluations]),
        "pass@1_by_difficulty": {
            kind: fmean([e["no_feedback_by_difficulty"].get(kind, math.nan) for e in evaluations]) for kind in kinds
        },
        "signal_share": fmean([run["signal_share"] for run in runs]),
        "curve": curve(runs),
        "wall_time_s": fmean([run["wall_time_s"] for run in runs]),
        "rollouts": [run["rollouts"] for run in runs],
    }
    if baseline is not None and set(runs_by_seed) <= set(baseline):
        summary["difference_vs_baseline"] = difference_to(baseline)
    if "escape_rate" in runs[0]:
        summary["routes"] = {route: fmean([run[route] for run in runs]) for route in ROUTES}
        summary["escape_rate"] = [fmean(rates) for rates in zip(*(run["escape_rate"] for run in runs))]
        summary["escape_rate_by_window"] = {
            window: [fmean(rates) for rates in zip(*(run["escape_rate_by_window"][window] for run in runs))]
            for window in ("first", "last")
        }
    if "warm_start_evaluation" in runs[0]:
        summary["warm_start"] = {
            setting: fmean([run["warm_start_evaluation"][setting]["mean"] for run in runs])
            for setting in ("no_feedback", "feedback")
        }
    return summary


def curve(runs: list[dict]) -> dict[str, dict[str, float]]:
    """Held-out pass@1 without and with one turn of feedback at each evaluated step, means over the runs' seeds."""
    steps = sorted(set.intersection(*(set(map(int, run["evaluations"])) for run in runs)))
    return {
        str(step): {
            setting: fmean([run["evaluations"][str(step)][setting]["mean"] for run in runs])
            for setting in ("no_feedback", "feedback")
        }
        for step in steps
    }


def summarize(per_seed: dict, variants: dict, kinds: tuple, controls: dict | None = None) -> dict:
    """Means over seeds with Student-t 95% intervals; differences to GRPO are taken within each seed."""
    seeds = list(per_seed.values())
    methods = [m for m in METHODS if m in seeds[0]]
    summary = {"seeds": list(per_seed), "methods": methods, "kinds": list(kinds)}
    summary |= {"warm_start": {}, "difference_vs_GRPO": {}}
    for setting in ("no_feedback", "feedback"):
        summary["warm_start"][setting] = seed_interval([s["warm_start"][setting]["mean"] for s in seeds])
    summary["warm_start"]["no_feedback_by_difficulty"] = {
        kind: seed_interval([s["warm_start"]["no_feedback_by_difficulty"].get(kind, math.nan) for s in seeds])
        for kind in kinds
    }
    for method in methods:
        runs = [s[method] for s in seeds]
        result = {}
        for budget in ("matched_steps", "matched_rollouts"):
            evaluations = [evaluation_at(r, budget) for r in runs]
            result[budget] = {
                setting: seed_interval([e[setting]["mean"] for e in evaluations])
                for setting in ("no_feedback", "feedback")
            }
            result[budget]["no_feedback_by_difficulty"] = {
                kind: seed_interval([e["no_feedback_by_difficulty"].get(kind, math.nan) for e in evaluations])
                for kind in kinds
            }
        result["signal_share"] = seed_interval([r["signal_share"] for r in runs])
        result["steps_to_matched_rollouts"] = [r["steps"] for r in runs]
        result["rollouts"] = [r["rollouts"] for r in runs]
        result["wall_time_s_at_matched_steps"] = seed_interval(
            [evaluation_at(r, "matched_steps")["train_wall_time_s"] for r in runs]
        )
        result["cpu_time_s"] = seed_interval([r["cpu_time_s"] for r in runs])
        result["curve"] = curve(runs)
        if method == "MulFeRL":
            result["escape_rate"] = [
                seed_interval([r["escape_rate"][turn] for r in runs]) for turn in range(len(runs[0]["escape_rate"]))
            ]
            result["routes"] = {route: seed_interval([r[route] for r in runs]) for route in ROUTES}
            result["feedback_requests"] = [r["feedback_requests"] for r in runs]
            result["escape_rate_by_window"] = {
                window: [fmean(rates) for rates in zip(*(r["escape_rate_by_window"][window] for r in runs))]
                for window in ("first", "last")
            }
        summary[method] = result
    for method in (m for m in methods if m != "GRPO"):
        for budget in ("matched_steps", "matched_rollouts"):
            summary["difference_vs_GRPO"][f"{method}, {budget.replace('_', ' ')}"] = seed_interval(
                [
                    evaluation_at(s[method], budget)["no_feedback"]["mean"]
                    - evaluation_at(s["GRPO"], budget)["no_feedback"]["mean"]
                    for s in seeds
                ]
            )
    summary["variants"] = {
        name: summarize_variant(per_seed, runs, kinds, variants.get(VARIANT_BASELINES.get(name)))
        for name, runs in variants.items()
    }
    preset = {seed: per_seed[seed]["MulFeRL"] for seed in per_seed}
    summary["controls"] = {
        name: summarize_variant(per_seed, runs, kinds, preset, "matched_rollouts")
        for name, runs in (controls or {}).items()
    }
    grpo, mulferl = (
        [evaluation_at(s[m], "matched_rollouts")["train_wall_time_s"] for s in seeds] for m in ("GRPO", "MulFeRL")
    )
    summary["wall_time_ratio_at_matched_rollouts"] = seed_interval([m / g for m, g in zip(mulferl, grpo, strict=True)])
    return summary


def markdown(summary: dict, steps: int) -> str:
    def cell(value: dict, digits: int = 3) -> str:
        if math.isnan(value["low"]):
            return f"{value['mean']:.{digits}f}"
        return f"{value['mean']:.{digits}f} ({value['low']:.{digits}f} to {value['high']:.{digits}f})"

    def row(label: str, cells) -> str:
        return f"| {label} | " + " | ".join(cells) + " |"

    warm = summary["warm_start"]
    mulferl = summary["MulFeRL"]
    methods = summary["methods"]
    kinds = summary["kinds"]
    only_mulferl = ["-" if m != "MulFeRL" else None for m in methods]  # cells of MulFeRL's own metrics
    lines = [
        row("", methods),
        "|---" * (len(methods) + 1) + "|",
        row("held-out pass@1, warm start", [cell(warm["no_feedback"])] + ["same"] * (len(methods) - 1)),
        row("  with one turn of feedback", [cell(warm["feedback"])] + ["same"] * (len(methods) - 1)),
        row(
            f"held-out pass@1 after {steps} steps", [cell(summary[m]["matched_steps"]["no_feedback"]) for m in methods]
        ),
        row(
            "held-out pass@1 at MulFeRL's rollout budget",
            [cell(summary[m]["matched_rollouts"]["no_feedback"]) for m in methods],
        ),
        row(
            f"  with one turn of feedback, {steps} steps",
            [cell(summary[m]["matched_steps"]["feedback"]) for m in methods],
        ),
        row(
            f"  by kind, {steps} steps: {' / '.join(kinds)}",
            [
                " / ".join(f"{summary[m]['matched_steps']['no_feedback_by_difficulty'][k]['mean']:.2f}" for k in kinds)
                for m in methods
            ],
        ),
        row("prompts with a training signal", [cell(summary[m]["signal_share"], 2) for m in methods]),
        row(
            "steps to MulFeRL's rollout budget",
            [", ".join(map(str, summary[m]["steps_to_matched_rollouts"])) for m in methods],
        ),
        row(f"wall time of {steps} steps (s)", [cell(summary[m]["wall_time_s_at_matched_steps"], 0) for m in methods]),
        row(
            "escape rate, feedback turn 1 / 2",
            [c or " / ".join(cell(e, 2) for e in mulferl["escape_rate"]) for c in only_mulferl],
        ),
        row(
            "routes: GRPO / FCO / solved / unresolved",
            [c or " / ".join(f"{mulferl['routes'][r]['mean']:.2f}" for r in ROUTES) for c in only_mulferl],
        ),
        "",
        "| held-out pass@1, difference to GRPO (same seed) | mean (95% interval) |",
        "|---|---|",
    ]
    lines += [f"| {name} | {cell(value)} |" for name, value in summary["difference_vs_GRPO"].items()]
    if summary["variants"]:
        lines += [
            "",
            "| variant | seeds | held-out pass@1 | difference to GRPO | difference to its baseline | with feedback "
            f"| {kinds[-1]} | signal | FCO | escape rate, turn 1 / 2 | turn 1's, first / last 50 steps |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, variant in summary["variants"].items():
            baseline = variant.get("difference_vs_baseline")
            windows = variant.get("escape_rate_by_window", {})
            escape = " / ".join(f"{window[0]:.2f}" for window in windows.values() if window) or "-"
            by_turn = " / ".join(f"{rate:.2f}" for rate in variant.get("escape_rate", [])) or "-"
            fco = f"{variant['routes']['fco']:.2f}" if "routes" in variant else "-"
            lines.append(
                f"| {name} | {', '.join(map(str, variant['seeds']))} | {cell(variant['pass@1'])} | "
                f"{cell(variant['difference_vs_GRPO'])} | {cell(baseline) if baseline else '-'} | "
                f"{variant['pass@1_with_feedback']:.3f} | {variant['pass@1_by_difficulty'][kinds[-1]]:.3f} | "
                f"{variant['signal_share']:.2f} | {fco} | {by_turn} | {escape} |"
            )
    lines += ["", *per_seed_table(summary), "", *curve_table(summary)]
    return "\n".join([*protocol_table(summary), *lines])


def protocol_table(summary: dict) -> list[str]:
    """The protocol's rows (benchmarks/README.md): the preset and its controls against GRPO at matched rollouts."""
    if not summary["controls"]:
        return []

    def cell(value: dict) -> str:
        return f"{value['mean']:.3f} ({value['low']:.3f} to {value['high']:.3f})"

    grpo, preset = summary["GRPO"]["matched_rollouts"], summary["MulFeRL"]["matched_steps"]
    lines = [
        "| run | held-out pass@1 | with one turn of feedback | difference to GRPO at matched rollouts "
        "| difference to the preset |",
        "|---|---|---|---|---|",
        f"| GRPO, more steps to the preset's rollouts | {cell(grpo['no_feedback'])} | {cell(grpo['feedback'])} | - | - |",
        f"| preset | {cell(preset['no_feedback'])} | {cell(preset['feedback'])} | "
        f"{cell(summary['difference_vs_GRPO']['MulFeRL, matched rollouts'])} | - |",
    ]
    for name, control in summary["controls"].items():
        lines.append(
            f"| {name} | {cell(control['pass@1'])} | {control['pass@1_with_feedback']:.3f} | "
            f"{cell(control['difference_vs_GRPO'])} | {cell(control['difference_vs_baseline'])} |"
        )
    ratio = summary["wall_time_ratio_at_matched_rollouts"]
    return [*lines, "", f"Training time, the preset's over GRPO's at matched rollouts: {cell(ratio)}.", ""]


def per_seed_table(summary: dict) -> list[str]:
    """Held-out pass@1 after MulFeRL's steps, per seed: every method and variant that ran on it."""
    runs = {
        m: dict(zip(summary["seeds"], summary[m]["matched_steps"]["no_feedback"]["values"]))
        for m in summary["methods"]
    }
    runs |= {name: dict(zip(v["seeds"], v["pass@1_per_seed"])) for name, v in summary["variants"].items()}
    lines = ["| seed | " + " | ".join(runs) + " |", "|---" * (len(runs) + 1) + "|"]
    for seed in summary["seeds"]:
        cells = [f"{run[seed]:.3f}" if seed in run else "-" for run in runs.values()]
        lines.append(f"| {seed} | " + " | ".join(cells) + " |")
    return lines


def curve_table(summary: dict) -> list[str]:
    """Held-out pass@1 without / with one turn of feedback through training (means over seeds); step 0 is the warm
    start."""
    curves = {m: summary[m]["curve"] for m in summary["methods"]} | {
        n: v["curve"] for n, v in summary["variants"].items()
    }
    if all(len(c) < 2 for c in curves.values()):
        return []
    warm = summary["warm_start"]
    starts = dict.fromkeys(curves, (warm["no_feedback"]["mean"], warm["feedback"]["mean"]))
    for name, variant in summary["variants"].items():
        if "warm_start" in variant:
            starts[name] = (variant["warm_start"]["no_feedback"], variant["warm_start"]["feedback"])
        else:  # the warm starts of its own seeds
            at_seeds = [summary["seeds"].index(seed) for seed in variant["seeds"]]
            starts[name] = tuple(fmean(warm[s]["values"][i] for i in at_seeds) for s in ("no_feedback", "feedback"))
    steps = sorted({int(step) for c in curves.values() for step in c})
    lines = [
        "| step: pass@1 without / with feedback | " + " | ".join(curves) + " |",
        "|---" * (len(curves) + 1) + "|",
        "| 0 | " + " | ".join(f"{a:.3f} / {b:.3f}" for a, b in starts.values()) + " |",
    ]
    for step in steps:
        cells = [
            f"{c[str(step)]['no_feedback']:.3f} / {c[str(step)]['feedback']:.3f}" if str(step) in c else "-"
            for c in curves.values()
        ]
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    return lines


def cpu_time_of_jobs(per_seed: dict, variants: dict) -> float:
    """CPU seconds the results took to make, however many invocations made them: fine-tuning, training and the
    evaluations during training (evaluations of the warm starts are not counted)."""
    runs = [run for seed in per_seed.values() for name, run in seed.items() if name != "warm_start"]
    fine_tuning = [seed["warm_start"]["fine_tuning"]["cpu_time_s"] for seed in per_seed.values()]
    runs += [run for runs_by_seed in variants.values() for run in runs_by_seed.values()]
    return sum(run["cpu_time_s"] for run in runs) + sum(fine_tuning)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=sorted(TASKS), default="addition")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--preset", choices=list(PRESETS), default="paper", help="the MulFeRL run's settings")
    parser.add_argument(
        "--controls", nargs="*", default=[], choices=list(CONTROLS), metavar="NAME", help="on every seed"
    )
    parser.add_argument("--steps", type=int, default=150, help="MulFeRL's steps, the matched step count")
    parser.add_argument("--num-generations", type=int, default=8)
    parser.add_argument("--prompts-per-step", type=int, default=4)
    parser.add_argument("--max-completion-length", type=int, default=40)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--split", choices=("test", "validation"), default="test")
    parser.add_argument(
        "--methods", nargs="+", choices=METHODS, default=list(METHODS), help="MulFeRL, GRPO and the others to run"
    )
    parser.add_argument("--held-out", type=int, default=300, help="held-out problems")
    parser.add_argument("--samples", type=int, default=4, help="answers per held-out problem")
    parser.add_argument("--ablations", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--variants", nargs="*", default=[], choices=[*ABLATIONS, *VARIANTS], metavar="NAME")
    parser.add_argument(
        "--curve-every",
        type=int,
        default=0,
        help="also evaluate every N steps (pass@1 through training; 0: at the end)",
    )
    parser.add_argument(
        "--variant-seeds", type=int, nargs="+", default=None, help="seeds of the variants (default: the first seed)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="runs in parallel, one process and thread each")
    parser.add_argument("--work-dir", type=Path, default=Path("learning-runs"))
    parser.add_argument("--output", type=Path, default=None, help="the results as JSON")
    parser.add_argument("--quick", action="store_true", help="a barely trained warm start: a smoke run, for tests")
    args = parser.parse_args(argv)
    if len(args.seeds) - 1 > max(T_QUANTILE):
        parser.error(f"--seeds: at most {max(T_QUANTILE) + 1} seeds (the Student-t quantiles of the 95% intervals)")
    if not {"MulFeRL", "GRPO"} <= set(args.methods):
        parser.error(
            "--methods: MulFeRL and GRPO must be among them (GRPO is the comparison, MulFeRL sets the budget)"
        )
    variant_seeds = args.variant_seeds or args.seeds[:1]
    if not set(variant_seeds) <= set(args.seeds):
        parser.error("--variant-seeds: every variant seed must be one of --seeds (its GRPO run is the comparison)")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    start = time.perf_counter()

    # The paper's ablations run on one seed, variants on the seeds asked for.
    extra = {name: (overrides, args.seeds[:1]) for name, overrides in ABLATIONS.items() if args.ablations}
    extra |= {name: ((ABLATIONS | VARIANTS)[name], variant_seeds) for name in args.variants}
    own_plan_seeds = sorted({s for overrides, seeds in extra.values() if overrides.get("warm_start") for s in seeds})
    # Jobs start in this order, each making the warm start it needs or waiting for the job making it (or for a run
    # another invocation is making): the own-plan warm starts first, since their variants wait for them.
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        for seed in own_plan_seeds:
            pool.submit(warm_start_job, args, seed, True)
        variant_futures = {
            name: {seed: pool.submit(variant_job, args, seed, name, overrides) for seed in seeds}
            for name, (overrides, seeds) in extra.items()
        }
        seed_futures = {seed: pool.submit(seed_job, args, seed) for seed in args.seeds}
        control_futures = {
            name: {seed: pool.submit(control_job, args, seed, name) for seed in args.seeds} for name in args.controls
        }
        per_seed = {seed: future.result() for seed, future in seed_futures.items()}
        variants = {
            name: {seed: f.result() for seed, f in futures.items()} for name, futures in variant_futures.items()
        }
        controls = {
            name: {seed: f.result() for seed, f in futures.items()} for name, futures in control_futures.items()
        }

    summary = summarize(per_seed, variants, TASKS[args.task].kinds, controls)
    table = markdown(summary, args.steps)
    print(table)
    if args.output is not None:
        # The work folder is a cache of finished jobs, not a setting: a machine's path stays out of the report.
        arguments = list(sys.argv[1:] if argv is None else argv)
        if "--work-dir" in arguments:
            del arguments[arguments.index("--work-dir") : arguments.index("--work-dir") + 2]
        command = "OMP_NUM_THREADS=1 python benchmarks/learning.py " + shlex.join(arguments)
        report = {
            "command": command,
            "settings": {
                k: str(v) if isinstance(v, Path) else v
                for k, v in vars(args).items()
                if k not in ("output", "work_dir")
            },
            "wall_time_s": time.perf_counter() - start,  # of this invocation: finished jobs are reused
            "cpu_time_s_of_all_jobs": cpu_time_of_jobs(
                per_seed, variants | {f"control: {n}": r for n, r in controls.items()}
            ),
            "summary": summary,
            "table": table,
            "per_seed": per_seed,
            "variants": variants,
            "controls": controls,
        }
        args.output.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
