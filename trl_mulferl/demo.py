"""Offline demo: GRPO and MulFeRL on the same tiny model, seed and data, on CPU in a few minutes.

The task is one-digit arithmetic ("What is 3 + 4?"); the verifier reads the first digit the model writes after any
feedback block. The feedback provider is programmatic: it runs the task's own checker on the failed answers and
says what went wrong and how to fix it, never the answer. A randomly initialised 2-layer Qwen2 rarely answers
right, so most GRPO groups fail entirely and give no gradient; MulFeRL regenerates those groups with feedback and
trains on the turn that shows contrast.

    trl-mulferl demo                 # or: python -m trl_mulferl.demo
"""

import argparse
import json
import re
import time
import warnings
from datetime import datetime
from pathlib import Path

import torch
from datasets import Dataset
from tqdm.auto import tqdm
from transformers import AutoModelForCausalLM, PrinterCallback, TrainerCallback
from transformers.utils import logging as transformers_logging
from trl import GRPOConfig, GRPOTrainer

from .mulferl_config import MulFeRLConfig
from .mulferl_trainer import MulFeRLTrainer
from .tiny import build_qwen2, train_tokenizer


_DIGIT = re.compile(r"\d")


def make_problems(seed: int) -> tuple[Dataset, Dataset]:
    """All 55 sums a + b <= 9, shuffled, split 35 for training and 20 held out."""
    problems = [(a, b) for a in range(10) for b in range(10) if a + b <= 9]
    order = torch.randperm(len(problems), generator=torch.Generator().manual_seed(seed)).tolist()
    rows = [
        {
            "prompt": [{"role": "user", "content": f"What is {a} + {b}? Answer with one digit."}],
            "a": a,
            "b": b,
            "answer": str(a + b),
        }
        for a, b in (problems[i] for i in order)
    ]
    return Dataset.from_list(rows[:35]), Dataset.from_list(rows[35:])


def given_digit(completion) -> str | None:
    """The first digit written after the feedback block (if any): the answer the checker reads."""
    text = completion if isinstance(completion, str) else completion[0]["content"]
    match = _DIGIT.search(text.split("</feedback>", 1)[-1])
    return match.group(0) if match else None


def digit_reward(completions, answer, **kwargs) -> list[float]:
    """1.0 when the first digit after the feedback block is the sum, else 0.0."""
    return [float(given_digit(c) == ref) for c, ref in zip(completions, answer, strict=True)]


def checker_feedback(prompt, completions, rewards, a, b, **kwargs) -> str:
    """Feedback from the task's checker: how the failed answers went wrong and the steps to fix them, no answer."""
    given = [given_digit(c) for c in completions]
    missing = sum(digit is None for digit in given)
    too_large = sum(digit is not None and int(digit) > a + b for digit in given)
    too_small = sum(digit is not None and int(digit) < a + b for digit in given)
    problems = []
    if missing:
        problems.append(f"{missing} answers give no digit at all")
    if too_large:
        problems.append(f"{too_large} answers are larger than {a} + {b}")
    if too_small:
        problems.append(f"{too_small} answers are smaller than {a} + {b}")
    return (
        f"Issue: {'; '.join(problems)}. Fix steps: 1. Start from {a} and count up {b} more. "
        "2. Write that single digit first, before any other digit."
    )


def build_model(output_dir: Path, seed: int):
    """Trains the tokenizer on the task's own text and saves a fresh tiny Qwen2 next to it."""
    train, held_out = make_problems(seed)
    texts = [row["prompt"][0]["content"] for row in train] + [row["prompt"][0]["content"] for row in held_out]
    texts += [checker_feedback(None, ["7"], [0.0], a=2, b=3), "<thinking><feedback></feedback></thinking> 0123456789"]
    tokenizer = train_tokenizer(texts * 10, vocab_size=320)
    model_dir = output_dir / "tiny-qwen2"
    build_qwen2(tokenizer, hidden_size=64, num_layers=2, seed=seed).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    return str(model_dir), tokenizer, train, held_out


@torch.no_grad()
def held_out_reward(model, tokenizer, dataset, samples: int, max_new_tokens: int, seed: int) -> float:
    """Mean reward of `samples` sampled answers per held-out problem (temperature 1, as in training)."""
    torch.manual_seed(seed)
    model.eval()
    tokenizer.padding_side = "left"
    prompts = [
        tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=False) for row in dataset
    ]
    inputs = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
    outputs = model.generate(
        **inputs,
        do_sample=True,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        max_new_tokens=max_new_tokens,
        num_return_sequences=samples,
        pad_token_id=tokenizer.pad_token_id,
    )
    texts = tokenizer.batch_decode(outputs[:, inputs["input_ids"].size(1) :], skip_special_tokens=True)
    answers = [row["answer"] for row in dataset for _ in range(samples)]
    return sum(digit_reward(texts, answers)) / len(texts)


class _StepBar(TrainerCallback):
    """One progress bar per run, showing the latest reward and share of prompts that gave a training signal."""

    def __init__(self, name: str):
        self.name, self.bar = name, None

    def on_train_begin(self, args, state, control, **kwargs):
        self.bar = tqdm(total=state.max_steps, desc=self.name, unit="step")

    def on_step_end(self, args, state, control, **kwargs):
        self.bar.update(1)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "reward" in logs:
            self.bar.set_postfix(reward=f"{logs['reward']:.3f}", signal=f"{signal_share(logs):.2f}")

    def on_train_end(self, args, state, control, **kwargs):
        self.bar.close()


def signal_share(entry: dict) -> float:
    """Share of the step's prompts whose group gave a gradient: mixed for GRPO; mixed or FAILED -> SOLVED for MulFeRL."""
    if "mulferl/route/grpo" in entry:
        return entry["mulferl/route/grpo"] + entry["mulferl/route/fco"]
    return 1.0 - entry["frac_reward_zero_std"]


def run(name: str, trainer, tokenizer, held_out, settings) -> dict:
    trainer.remove_callback(PrinterCallback)  # the bar below shows the step's reward instead of every metric
    trainer.add_callback(_StepBar(name))
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    history = [entry for entry in trainer.state.log_history if "reward" in entry]
    result = {
        "run": name,
        "wall_time_s": seconds,
        "signal_share": sum(signal_share(e) for e in history) / len(history),
        "train_reward": sum(e["reward"] for e in history) / len(history),
        "held_out_after": held_out_reward(trainer.model, tokenizer, held_out, **settings),
        "history": history,
    }
    for route in ("grpo", "fco", "solved_skip", "unresolved"):
        key = f"mulferl/route/{route}"
        if key in history[0]:
            result[route] = sum(e[key] for e in history) / len(history)
    return result


def write_plot(results: list[dict], path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def moving_average(values, window=10):
        return [
            sum(values[max(0, i - window + 1) : i + 1]) / len(values[max(0, i - window + 1) : i + 1])
            for i in range(len(values))
        ]

    figure, (reward_axis, signal_axis) = plt.subplots(1, 2, figsize=(10, 4))
    for color, result in zip(("tab:blue", "tab:orange"), results, strict=False):
        steps = [e["step"] for e in result["history"]]
        for axis, values in (
            (reward_axis, [e["reward"] for e in result["history"]]),
            (signal_axis, [signal_share(e) for e in result["history"]]),
        ):
            axis.plot(steps, values, color=color, alpha=0.25, linewidth=0.8)
            axis.plot(steps, moving_average(values), color=color, label=f"{result['run']} (10-step mean)")
    reward_axis.set(title="turn-0 training reward", xlabel="step", ylabel="mean reward")
    signal_axis.set(title="prompts giving a training signal", xlabel="step", ylabel="share of prompts", ylim=(0, 1.05))
    for axis in (reward_axis, signal_axis):
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="trl-mulferl demo", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="training steps per run (default 200)")
    parser.add_argument("--num-generations", type=int, default=8, help="rollouts per prompt, K (paper: 8)")
    parser.add_argument("--prompts-per-step", type=int, default=4)
    parser.add_argument("--max-completion-length", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output-dir", type=Path, default=None, help="default: ./mulferl-demo-<date-time>")
    args = parser.parse_args(argv)
    output_dir = args.output_dir or Path(f"mulferl-demo-{datetime.now():%Y%m%d-%H%M%S}")
    output_dir.mkdir(parents=True, exist_ok=True)
    # The demo's own progress bars and table are the output; library notices about a tiny local model are noise.
    transformers_logging.set_verbosity_error()
    transformers_logging.disable_progress_bar()
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)

    model_dir, tokenizer, train, held_out = build_model(output_dir, args.seed)
    evaluation = {"samples": 8, "max_new_tokens": args.max_completion_length, "seed": args.seed}
    held_out_before = held_out_reward(
        AutoModelForCausalLM.from_pretrained(model_dir), tokenizer, held_out, **evaluation
    )
    common = {
        "per_device_train_batch_size": args.prompts_per_step * args.num_generations,
        "num_generations": args.num_generations,
        "max_completion_length": args.max_completion_length,
        "max_steps": args.steps,
        "learning_rate": args.learning_rate,
        "logging_steps": 1,
        "disable_tqdm": True,
        "save_strategy": "no",
        "report_to": "none",
        "use_cpu": True,
        "bf16": False,
        "seed": args.seed,
        "loss_type": "grpo",
    }
    grpo = GRPOTrainer(
        model_dir,
        digit_reward,
        args=GRPOConfig(output_dir=str(output_dir / "grpo"), **common),
        train_dataset=train,
        processing_class=tokenizer,
    )
    mulferl = MulFeRLTrainer(
        model_dir,
        digit_reward,
        args=MulFeRLConfig(output_dir=str(output_dir / "mulferl"), **common),
        train_dataset=train,
        processing_class=tokenizer,
        feedback_provider=checker_feedback,
    )
    results = [run("GRPO", grpo, tokenizer, held_out, evaluation)]
    results.append(run("MulFeRL", mulferl, tokenizer, held_out, evaluation))

    with open(output_dir / "metrics.jsonl", "w") as metrics:
        for result in results:
            for entry in result["history"]:
                metrics.write(json.dumps({"run": result["run"], **entry}) + "\n")
    summary = [{k: v for k, v in r.items() if k != "history"} | {"held_out_before": held_out_before} for r in results]
    (output_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    write_plot(results, output_dir / "curves.png")

    print(f"\n{'':<28}{'GRPO':>10}{'MulFeRL':>10}")
    rows = [
        ("prompts with training signal", "signal_share", "{:.2f}"),
        ("  routed to GRPO (mixed)", "grpo", "{:.2f}"),
        ("  routed to FCO (fixed)", "fco", "{:.2f}"),
        ("  solved at turn 0 (skip)", "solved_skip", "{:.2f}"),
        ("  unresolved", "unresolved", "{:.2f}"),
        ("turn-0 training reward", "train_reward", "{:.3f}"),
        ("held-out reward after", "held_out_after", "{:.3f}"),
        ("wall time (s)", "wall_time_s", "{:.0f}"),
    ]
    print(f"{'held-out reward before':<28}{held_out_before:>10.3f}{held_out_before:>10.3f}")
    for label, key, fmt in rows:
        cells = [fmt.format(r[key]) if key in r else "-" for r in results]
        print(f"{label:<28}{cells[0]:>10}{cells[1]:>10}")
    print(f"\nMetrics (metrics.jsonl), summary.json and curves.png are in {output_dir.resolve()}")
    return summary


if __name__ == "__main__":
    main()
