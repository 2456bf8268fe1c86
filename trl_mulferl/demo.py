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
from .tiny import build_qwen2, checker_feedback, digit_reward, sum_problems, sum_question, train_tokenizer


def make_problems(seed: int) -> tuple[Dataset, Dataset]:
    """All 55 sums a + b <= 9, shuffled, split 35 for training and 20 held out."""
    rows = [{"prompt": [{"role": "user", "content": sum_question(a, b)}]} for a, b in sum_problems(seed)]
    return Dataset.from_list(rows[:35]), Dataset.from_list(rows[35:])


def build_model(output_dir: Path, seed: int):
    """Trains the tokenizer on the task's own text and saves a fresh tiny Qwen2 next to it."""
    train, held_out = make_problems(seed)
    texts = [row["prompt"][0]["content"] for row in train] + [row["prompt"][0]["content"] for row in held_out]
    texts += [
        checker_feedback(sum_question(2, 3), ["7", "1", "x"], [0.0] * 3),  # every kind of issue it names
        "<thinking><feedback></feedback></thinking> 0123456789",
    ]
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
    repeated_prompts = [row["prompt"] for row in dataset for _ in range(samples)]
    return sum(digit_reward(repeated_prompts, texts)) / len(texts)


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


def write_plot(results: list[dict], held_out_before: float, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def moving_average(values, window=10):
        return [
            sum(values[max(0, i - window + 1) : i + 1]) / len(values[max(0, i - window + 1) : i + 1])
            for i in range(len(values))
        ]

    figure, (reward_axis, signal_axis, held_out_axis) = plt.subplots(1, 3, figsize=(15, 4.4))
    for color, result in zip(("tab:blue", "tab:orange"), results, strict=False):
        steps = [e["step"] for e in result["history"]]
        for axis, values in (
            (reward_axis, [e["reward"] for e in result["history"]]),
            (signal_axis, [signal_share(e) for e in result["history"]]),
        ):
            axis.plot(steps, values, color=color, alpha=0.25, linewidth=0.8)
            axis.plot(steps, moving_average(values), color=color, label=f"{result['run']} (10-step mean)")
        held_out = (held_out_before, result["held_out_after"])
        held_out_axis.plot((0, steps[-1]), held_out, color=color, marker="o", label=result["run"])
        held_out_axis.annotate(
            f"{held_out[1]:.3f}", (steps[-1], held_out[1]), textcoords="offset points", xytext=(-30, 6), color=color
        )
    reward_axis.set(title="turn-0 training reward", xlabel="step", ylabel="mean reward")
    signal_axis.set(title="prompts giving a training signal", xlabel="step", ylabel="share of prompts", ylim=(0, 1.05))
    top = max(held_out_before, *(result["held_out_after"] for result in results))
    held_out_axis.set(
        title="held-out reward, before and after", xlabel="step", ylabel="mean reward", ylim=(0, 1.3 * top + 1e-3)
    )
    for axis in (reward_axis, signal_axis, held_out_axis):
        axis.legend()
    figure.text(
        0.5,
        0.01,
        "Faint lines: the value at each step; solid lines: its 10-step moving mean. Held-out reward: 8 sampled "
        "answers per held-out problem (temperature 1), before and after training.",
        ha="center",
        fontsize=9,
    )
    figure.tight_layout(rect=(0, 0.05, 1, 1))
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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="trl-mulferl demo", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=at_least(1), default=200, help="training steps per run (default 200)")
    parser.add_argument("--num-generations", type=at_least(2), default=8, help="rollouts per prompt, K (paper: 8)")
    parser.add_argument("--prompts-per-step", type=at_least(1), default=4)
    parser.add_argument("--max-completion-length", type=at_least(1), default=16)
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
        "activation_checkpointing": False,  # nothing to save on a tiny model; TRL's default would recompute
    }
    # Both runs use the demo's folder: with save_strategy "no" they write nothing there, so no empty subfolders.
    grpo = GRPOTrainer(
        model_dir,
        digit_reward,
        args=GRPOConfig(output_dir=str(output_dir), **common),
        train_dataset=train,
        processing_class=tokenizer,
    )
    mulferl = MulFeRLTrainer(
        model_dir,
        digit_reward,
        args=MulFeRLConfig(output_dir=str(output_dir), **common),
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
    write_plot(results, held_out_before, output_dir / "curves.png")

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
