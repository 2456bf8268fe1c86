"""Peak memory and time of an all-FCO MulFeRL step against a GRPO step at the same batch settings.

Each case runs in a fresh process (so peaks do not mix): GRPOTrainer with a reward that is mixed in every group,
MulFeRLTrainer with the same reward (every prompt routed to GRPO), and MulFeRLTrainer with a scripted feedback marker
that turns every group from all-failed into all-solved (every prompt routed to FCO: two generations, the reference's
scores at generation time, and, as on one process, forwards and backwards of the negatives right after the loss's
forward, a quarter of the micro-batch at a time). The same all-FCO step then runs on one process with the other two
partner passes, to compare their peak memory: DDP's (`mulferl_fco_first`: a no-grad forward over the positives, then
the negatives' forward and backward, before the loss's), and that of DeepSpeed and FSDP (`mulferl_fco_joined`: the
negatives as extra rows of the loss's forward). Prints a table and writes JSON.

    python benchmarks/fco_memory.py --output benchmarks/fco_memory.json
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
CASES = ("grpo_trainer", "mulferl_grpo", "mulferl_fco", "mulferl_fco_first", "mulferl_fco_joined")
MARKER = "MARKERWORD"


def run_case(case: str, settings: dict) -> dict:
    sys.path.insert(0, str(ROOT))
    import psutil
    import torch
    from datasets import Dataset
    from transformers import Qwen2Config, Qwen2ForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    from tests.helpers.tiny import build_tiny_tokenizer
    from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation

    torch.set_num_threads(settings["threads"])
    k = settings["num_generations"]
    tokenizer = build_tiny_tokenizer()
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=settings["hidden_size"],
        intermediate_size=4 * settings["hidden_size"],
        num_hidden_layers=settings["layers"],
        num_attention_heads=8,
        num_key_value_heads=4,
        max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    model_dir = Path(tempfile.mkdtemp()) / "model"
    Qwen2ForCausalLM(config).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    dataset = Dataset.from_list([{"prompt": make_conversation(f"What is {i} + {i}?")} for i in range(64)])

    def mixed_reward(completions, **kwargs):
        return [float(i % k == 0) for i in range(len(completions))]

    def marker_reward(completions, **kwargs):
        return [float(MARKER in c[0]["content"]) for c in completions]

    def marker_provider(prompt, completions, rewards, **columns):
        return f"Issue: the answer misses {MARKER}. Fix steps: 1. write it."

    common = {
        "output_dir": str(model_dir.parent / "out"),
        "per_device_train_batch_size": settings["rows"],
        "num_generations": k,
        "max_completion_length": settings["completion_length"],
        "max_steps": settings["steps"],
        "learning_rate": 1e-5,
        "save_strategy": "no",
        "report_to": "none",
        "use_cpu": True,
        "bf16": False,
        "seed": 0,
        "logging_steps": 1,
    }
    if case == "grpo_trainer":
        trainer = GRPOTrainer(
            str(model_dir), mixed_reward, args=GRPOConfig(**common), train_dataset=dataset, processing_class=tokenizer
        )
    else:
        reward = mixed_reward if case == "mulferl_grpo" else marker_reward
        trainer_class = MulFeRLTrainer
        if case in ("mulferl_fco_first", "mulferl_fco_joined"):

            class PartnerPassTrainer(MulFeRLTrainer):
                _fco_partner_pass = case.removeprefix("mulferl_fco_")  # the path of DDP, or of DeepSpeed and FSDP

            trainer_class = PartnerPassTrainer
        trainer = trainer_class(
            str(model_dir),
            reward,
            args=MulFeRLConfig(**common, max_feedback_turns=1),
            train_dataset=dataset,
            processing_class=tokenizer,
            feedback_provider=marker_provider,
        )
    process = psutil.Process()
    rss_before = process.memory_info().rss
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    routes = {key: trainer.state.log_history[0].get(key) for key in ("mulferl/route/grpo", "mulferl/route/fco")}
    return {
        "case": case,
        "train_peak_increase_mib": max(peak_after - rss_before, 0) / 2**20,
        "process_peak_mib": peak_after / 2**20,
        "peak_rose_during_training": peak_after > peak_before,
        "seconds_per_step": seconds / settings["steps"],
        **routes,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16, help="rows per step (prompts x num_generations)")
    parser.add_argument("--num-generations", type=int, default=8)
    parser.add_argument("--completion-length", type=int, default=256)
    parser.add_argument("--hidden-size", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "fco_memory.json")
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)  # internal: run one case in this process
    args = parser.parse_args()
    settings = {
        "rows": args.rows,
        "num_generations": args.num_generations,
        "completion_length": args.completion_length,
        "hidden_size": args.hidden_size,
        "layers": args.layers,
        "steps": args.steps,
        "threads": args.threads,
    }
    if args.case:
        print(json.dumps(run_case(args.case, settings)))
        return

    results = []
    for case in CASES:
        command = [sys.executable, __file__, "--case", case] + [
            f"--{key.replace('_', '-')}={value}" for key, value in settings.items()
        ]
        completed = subprocess.run(command, capture_output=True, text=True, check=True)
        results.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    baseline = results[0]
    print(f"{'case':<18} {'peak increase MiB':>18} {'x GRPOTrainer':>14} {'s/step':>8} {'x GRPOTrainer':>14}")
    for result in results:
        result["memory_ratio"] = result["train_peak_increase_mib"] / baseline["train_peak_increase_mib"]
        result["time_ratio"] = result["seconds_per_step"] / baseline["seconds_per_step"]
        print(
            f"{result['case']:<18} {result['train_peak_increase_mib']:>18.1f} {result['memory_ratio']:>14.2f} "
            f"{result['seconds_per_step']:>8.2f} {result['time_ratio']:>14.2f}"
        )
    args.output.write_text(json.dumps({"settings": settings, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
