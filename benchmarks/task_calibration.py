"""The learning benchmark's tasks at the warm start, as MulFeRL's first steps see them: the share of training groups
in which all K rollouts fail, and the first feedback turn's rescue rate (the share of those groups that no longer all
fail after one turn of the task's feedback). The protocol asks for 30-50% and at least 0.4 on the development seeds.

Each seed's warm start is `benchmarks/learning.py`'s (made there, or reused from its `--work-dir`); MulFeRL runs
`--steps` steps of `--prompts-per-step` training prompts (the kinds interleaved, as in training) at learning rate 0,
so that every step samples the warm start itself, with K = 8, one feedback turn and the task's provider.

    OMP_NUM_THREADS=1 python benchmarks/task_calibration.py --seeds 0 1 2 --json benchmarks/task_calibration.json
"""

import argparse
import json
import sys
from argparse import Namespace
from pathlib import Path


HERE = Path(__file__).resolve().parent
RESERVED_FROM = 100  # calibration is a choice: development seeds only (benchmarks/README.md, the protocol)


def calibrate(task_name: str, seed: int, work_dir: Path, prompts_per_step: int, steps: int, quick: bool) -> dict:
    sys.path.insert(0, str(HERE))
    import torch
    from learning import warm_start_dir, warm_start_job
    from transformers import AutoTokenizer, PrinterCallback
    from transformers.utils import logging as transformers_logging

    from trl_mulferl.demo.compare import escape_rates, make_trainer, training_problems, training_settings
    from trl_mulferl.demo.tasks import TASKS

    transformers_logging.set_verbosity_error()
    torch.set_num_threads(1)
    task = TASKS[task_name]
    learning_args = Namespace(task=task_name, work_dir=work_dir, quick=quick)
    warm_start_job(learning_args, seed)
    model_dir = str(warm_start_dir(learning_args, seed))
    # learning.py's training settings at learning rate 0, so that every step samples the warm start
    run = Namespace(prompts_per_step=prompts_per_step, num_generations=8, max_completion_length=40, learning_rate=0.0)
    settings = {
        **training_settings(run, seed),
        "max_steps": steps,
        "output_dir": str(work_dir / "calibration-trainer"),
    }
    settings["max_feedback_turns"] = 1
    dataset = training_problems(task.make_splits(seed).train, per_difficulty=100, task=task)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    trainer = make_trainer(
        "MulFeRL", model_dir, tokenizer, dataset, settings, None, task.checker_provider(), task.reward
    )
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    history = [entry for entry in trainer.state.log_history if "reward" in entry]
    failed = sum(entry["mulferl/turn_0/failed_groups"] for entry in history)
    reached = sum(entry["mulferl/turn_1/reached_groups"] for entry in history)
    groups = steps * prompts_per_step
    return {
        "groups": groups,
        "all_failed": failed,
        "all_failed_share": failed / groups,
        "regenerated": reached,
        "rescue_rate": escape_rates(history, 1)[0],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", choices=("addition", "programs"), default=["addition", "programs"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--prompts-per-step", type=int, default=32)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--work-dir", type=Path, default=Path("learning-runs"))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="a barely trained warm start: a smoke run")
    args = parser.parse_args(argv)
    if any(seed >= RESERVED_FROM for seed in args.seeds):
        parser.error("--seeds: calibration chooses the task, so it runs on development seeds (0-19) only")
    results = {
        task: {
            seed: calibrate(task, seed, args.work_dir, args.prompts_per_step, args.steps, args.quick)
            for seed in args.seeds
        }
        for task in args.tasks
    }
    print(f"{'task':<10}{'seed':>6}{'groups':>8}{'all failed':>12}{'share':>8}{'rescued at turn 1':>19}")
    for task, by_seed in results.items():
        for seed, result in by_seed.items():
            regenerated, rate = result["regenerated"], result["rescue_rate"]
            rescued = f"{round(rate * regenerated)} of {regenerated:.0f} ({rate:.2f})"
            share = result["all_failed_share"]
            print(f"{task:<10}{seed:>6}{result['groups']:>8}{result['all_failed']:>12.0f}{share:>8.2f}{rescued:>19}")
    if args.json is not None:
        command = "OMP_NUM_THREADS=1 python benchmarks/task_calibration.py " + " ".join(
            [*(["--tasks", *args.tasks]), "--seeds", *map(str, args.seeds), "--steps", str(args.steps)]
        )
        args.json.write_text(json.dumps({"command": command, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
