"""Where the learning benchmark's training time goes: seconds a step, split into generation, feedback, rewards, the
turn loop's own work and the loss, for GRPO, MulFeRL (defaults), MulFeRL + `feedback_replay` (Critique-GRPO's
shaping) and the protocol's preset (`learning.py`'s PRESETS: `feedback_replay` with the plain ratio).

The task and settings are `benchmarks/learning.py`'s (`--task`: two-digit addition or programs, from the warm-started
policy, K=8, 4 prompts a step, the task's feedback), on one development seed. Each run trains `--steps` steps with no evaluation, alone, in
a process pinned to one core (`--core`), one torch thread; `--rounds` rounds, each running the methods in a rotated
order, so that a drift of the machine falls on every method alike. The loss part of a step is the step less TRL's
`_generate_and_score_completions` (generation, rewards, feedback turns, the reference's and old log-probs at
generation): the forward and backward of the loss, and the optimizer. The loss's forwards also report the padding
they compute, against the tokens the loss scores (the completion tokens the model wrote).

    python benchmarks/learning_cost.py --json benchmarks/learning_cost.json   # 3 rounds of 40 steps: about 15 min
    python benchmarks/learning_cost.py --task programs --json benchmarks/learning_cost_programs.json
    python benchmarks/learning_cost.py --steps 2 --rounds 1 --quick           # a smoke run
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from learning import PRESETS  # noqa: E402


PRESET = "replay"
METHODS = {
    "GRPO": ("GRPO", {}),
    "MulFeRL": ("MulFeRL", {}),
    "MulFeRL + replay": ("MulFeRL", {"feedback_replay": True}),
    "preset": ("MulFeRL", PRESETS[PRESET]),
}
MESSAGE = "COST "
PARTS = ("generation_s", "feedback_s", "reward_s", "turn_loop_s", "loss_s")


def run_method(name: str, settings: dict):
    """One method's run in this process: per-step seconds by part, and the loss's padded and scored tokens."""
    import torch
    from learning import warm_start_dir
    from transformers import AutoTokenizer, PrinterCallback, TrainerCallback
    from transformers.utils import logging as transformers_logging
    from trl import GRPOTrainer

    from trl_mulferl.demo.compare import make_trainer, training_problems, training_settings
    from trl_mulferl.demo.tasks import TASKS
    from trl_mulferl.mulferl.turn_loop import TurnLoop

    transformers_logging.set_verbosity_error()
    torch.set_num_threads(1)
    args = argparse.Namespace(**{**settings, "work_dir": Path(settings["work_dir"])})
    method, overrides = METHODS[name]
    model_dir = str(warm_start_dir(args, args.seed))
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    run_settings = {
        **training_settings(args, args.seed),
        "output_dir": str(Path(args.work_dir) / f"trainer-{name}"),
        "max_steps": args.steps,
    }
    task = TASKS[args.task]
    dataset = training_problems(task.make_splits(args.seed).train, per_difficulty=100, task=task)
    provider = task.checker_provider()
    trainer = make_trainer(method, model_dir, tokenizer, dataset, run_settings, overrides, provider, task.reward)
    trainer.remove_callback(PrinterCallback)
    step = {}

    def timed(key, function):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            inside_turn_loop = step["turn_loop_depth"] > 0
            step["turn_loop_depth"] += key == "turn_loop_run_s"
            try:
                return function(*args, **kwargs)
            finally:
                seconds = time.perf_counter() - start
                step[key] += seconds
                step["turn_loop_depth"] -= key == "turn_loop_run_s"
                if inside_turn_loop:  # generation, feedback or rewards of a feedback turn
                    step["turn_loop_calls_s"] += seconds

        return wrapper

    trainer._generate_single_turn = timed("generation_s", trainer._generate_single_turn)
    trainer._generate_and_score_completions = timed("generate_and_score_s", trainer._generate_and_score_completions)
    trainer._calculate_rewards = timed("reward_s", trainer._calculate_rewards)
    TurnLoop.ask_for_feedback = timed("feedback_s", TurnLoop.ask_for_feedback)
    TurnLoop.run = timed("turn_loop_run_s", TurnLoop.run)
    forward = GRPOTrainer._get_per_token_logps_and_entropies

    def counted_forward(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs):
        if torch.is_grad_enabled():  # the loss's forwards
            completion_mask = attention_mask[:, -logits_to_keep:]
            step["loss_positions"] += attention_mask.numel()
            step["loss_tokens"] += int(attention_mask.sum())
            step["loss_completion_positions"] += completion_mask.numel()
        return forward(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs)

    GRPOTrainer._get_per_token_logps_and_entropies = counted_forward
    compute_loss = trainer._compute_loss

    def counted_loss(model, inputs):
        mask = inputs["completion_mask"] * inputs.get("tool_mask", 1)
        step["scored_tokens"] += int(mask.sum())
        return compute_loss(model, inputs)

    trainer._compute_loss = counted_loss
    steps = []

    class Timer(TrainerCallback):
        def on_step_begin(self, state_args, state, control, **kwargs):
            step.clear()
            step.update(dict.fromkeys(("generation_s", "generate_and_score_s", "reward_s", "feedback_s"), 0.0))
            step.update(dict.fromkeys(("turn_loop_run_s", "turn_loop_calls_s", "turn_loop_depth"), 0))
            step.update(dict.fromkeys(("loss_positions", "loss_tokens"), 0))
            step.update(dict.fromkeys(("loss_completion_positions", "scored_tokens"), 0))
            step["start"] = time.perf_counter()

        def on_step_end(self, state_args, state, control, **kwargs):
            seconds = time.perf_counter() - step.pop("start")
            own = step.pop("turn_loop_run_s") - step.pop("turn_loop_calls_s")  # less its generation, feedback, rewards
            del step["turn_loop_depth"]
            steps.append(
                {**step, "step_s": seconds, "loss_s": seconds - step["generate_and_score_s"], "turn_loop_s": own}
            )

    trainer.add_callback(Timer())
    trainer.train()
    history = [entry for entry in trainer.state.log_history if "reward" in entry]
    rollouts = sum(entry.get("mulferl/reward_rows", args.prompts_per_step * args.num_generations) for entry in history)
    escape = {}
    for turn in range(1, getattr(trainer.args, "max_feedback_turns", 0) + 1):
        reached = sum(entry[f"mulferl/turn_{turn}/reached_groups"] for entry in history)
        failed = sum(entry[f"mulferl/turn_{turn}/failed_groups"] for entry in history)
        escape[str(turn)] = {"reached": reached, "escaped": reached - failed}
    print(MESSAGE + json.dumps({"steps": steps, "rollouts": rollouts, "escape_by_turn": escape}), flush=True)


def run_in_process(name: str, settings: dict) -> dict:
    command = [sys.executable, __file__, "--run-method", name, "--settings", json.dumps(settings)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TRL_EXPERIMENTAL_SILENCE": "1"}
    completed = subprocess.run(
        ["taskset", "-c", str(settings["core"]), *command], capture_output=True, text=True, env=env
    )
    for line in completed.stdout.splitlines():
        if line.startswith(MESSAGE):
            return json.loads(line[len(MESSAGE) :])
    raise RuntimeError(f"{name} exited with {completed.returncode}:\n{completed.stderr[-3000:]}")


def summarize(runs: dict[str, list[dict]], warmup_steps: int) -> dict:
    """Per method, the median over rounds of each part's mean seconds a step (after `warmup_steps`), its padding,
    time per generated rollout, and escape counts by turn; ratios to GRPO within each round, then their median."""
    summary = {}
    for name, rounds in runs.items():
        per_round = []
        for run in rounds:
            steps = run["steps"][warmup_steps:]
            means = {key: statistics.fmean(s[key] for s in steps) for key in ("step_s", *PARTS)}
            padded = sum(s["loss_completion_positions"] for s in steps) - sum(s["scored_tokens"] for s in steps)
            means["padding_per_scored_token"] = sum(s["loss_positions"] - s["loss_tokens"] for s in steps) / sum(
                s["scored_tokens"] for s in steps
            )
            means["unscored_completion_positions_per_scored_token"] = padded / sum(s["scored_tokens"] for s in steps)
            means["seconds_per_rollout"] = sum(s["step_s"] for s in run["steps"]) / run["rollouts"]
            per_round.append(means)
        summary[name] = {key: statistics.median(r[key] for r in per_round) for key in per_round[0]}
        summary[name]["rounds"] = per_round
        summary[name]["escape_by_turn"] = rounds[0]["escape_by_turn"]
    grpo = runs["GRPO"]
    for name in runs:
        ratios = {}
        for key in ("step_s", "loss_s", "seconds_per_rollout"):
            ratios[key] = statistics.median(
                summary[name]["rounds"][i][key] / summary["GRPO"]["rounds"][i][key] for i in range(len(grpo))
            )
        summary[name]["x_GRPO"] = ratios
    return summary


def checks(summary: dict) -> list[tuple[str, bool, str]]:
    found = []
    loss = summary["MulFeRL"]["x_GRPO"]["loss_s"]
    found.append(("MulFeRL's loss part <= 1.25 x GRPO's", loss <= 1.25, f"{loss:.2f}"))
    for name in ("MulFeRL + replay", "preset"):
        ratio = summary[name]["x_GRPO"]["seconds_per_rollout"]
        found.append((f"{name}: training time per generated rollout <= 1.3 x GRPO's", ratio <= 1.3, f"{ratio:.2f}"))
    for name in ("MulFeRL", "MulFeRL + replay", "preset"):
        padding = summary[name]["padding_per_scored_token"]
        found.append((f"{name}: loss padding <= 10% of the scored tokens", padding <= 0.1, f"{padding:.3f}"))
    return found


def print_table(summary: dict):
    header = f"{'seconds a step':<18}" + "".join(f"{name:>18}" for name in summary)
    print(header)
    print("-" * len(header))
    for key, label in (
        ("step_s", "step"),
        ("generation_s", "  generation"),
        ("feedback_s", "  feedback"),
        ("reward_s", "  rewards"),
        ("turn_loop_s", "  turn loop's own"),
        ("loss_s", "  loss"),
    ):
        row = f"{label:<18}"
        for name, s in summary.items():
            ratio = f" ({s['x_GRPO'][key]:.2f}x)" if key in s["x_GRPO"] and name != "GRPO" else ""
            row += f"{s[key]:>11.3f}{ratio:>7}"
        print(row)
    rows = (
        ("s per rollout", lambda s: f"{s['seconds_per_rollout']:.4f}"),
        ("loss padding/tok", lambda s: f"{s['padding_per_scored_token']:.3f}"),
    )
    for label, value in rows:
        print(f"{label:<18}" + "".join(f"{value(s):>18}" for s in summary.values()))
    for name, s in summary.items():
        for turn, counts in s["escape_by_turn"].items():
            rate = counts["escaped"] / counts["reached"] if counts["reached"] else float("nan")
            print(f"{name}: turn {turn} escape rate {rate:.2f} ({counts['escaped']:.0f} of {counts['reached']:.0f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=("addition", "programs"), default="addition")
    parser.add_argument("--seed", type=int, default=0, help="a development seed (learning.py's seeds 0-19)")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup-steps", type=int, default=2, help="steps left out of the means")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--core", type=int, default=0, help="the CPU core every run is pinned to")
    parser.add_argument("--quick", action="store_true", help="a barely trained warm start: a smoke run")
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--run-method", choices=list(METHODS), help=argparse.SUPPRESS)
    parser.add_argument("--settings", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_method:
        run_method(args.run_method, json.loads(args.settings))
        return

    from learning import warm_start_job

    with tempfile.TemporaryDirectory() as temporary:
        work_dir = args.work_dir or Path(temporary)
        # learning.py's defaults: its task, K, prompts per step, completion length and learning rate
        settings = {
            "task": args.task,
            "seed": args.seed,
            "steps": args.steps,
            "core": args.core,
            "quick": args.quick,
            "work_dir": str(work_dir),
            "num_generations": 8,
            "prompts_per_step": 4,
            "max_completion_length": 40,
            "learning_rate": 1e-4,
        }
        warm_start_job(argparse.Namespace(**{**settings, "work_dir": work_dir}), args.seed)
        names, runs = list(METHODS), {name: [] for name in METHODS}
        for round_index in range(args.rounds):
            order = names[round_index % len(names) :] + names[: round_index % len(names)]
            for name in order:
                start = time.perf_counter()
                runs[name].append(run_in_process(name, settings))
                print(f"round {round_index}: {name} {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    summary = summarize(runs, min(args.warmup_steps, args.steps - 1))
    print_table(summary)
    found = checks(summary)
    print()
    for criterion, met, numbers in found:
        print(f"[{'met' if met else 'NOT MET'}] {criterion}: {numbers}")
    if args.json:
        run_settings = {key: value for key, value in settings.items() if key != "work_dir"}  # a path of this machine
        result = {"settings": run_settings, "methods": summary, "checks": [list(check) for check in found]}
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
