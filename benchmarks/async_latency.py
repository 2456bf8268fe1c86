"""Feedback latency against throughput: asynchronous MulFeRL, the synchronous MulFeRLTrainer and asynchronous GRPO
with a feedback provider that takes L seconds per request, L in 0, 2 and 5.

The task is `overhead.py`'s `slow_feedback` regime (16 prompts, K = 2, every group fails at turn 0 and is mixed
after one feedback turn; rewards and feedback scripted, the turn read from the marker its feedback injected), with
the scripted provider's sleep set to L (the dataset column `feedback_seconds`). The trainers and the model are
`async_overhead.py`'s (a randomly initialised Qwen2 from `trl_mulferl.tiny`, each run in a process of its own):

- `async_mulferl`: `AsyncMulFeRLTrainer` against a `vllm serve` of vLLM's CPU build, at its defaults: generation
  places `max(max_staleness - 1, 1)` x prompts per step (the JSON's `budget`), feedback slots the prompts of the
  steps `max_feedback_age` leaves beyond the places, one step under it (the JSON's `feedback_slots`);
- `mulferl`: the synchronous `MulFeRLTrainer`, generating with TRL's vLLM colocate mode;
- `async_grpo`: TRL's `AsyncGRPOTrainer` against the same server, the compute reference. It calls no feedback
  provider, so it runs once per round and that run is recorded under every L (`"async_grpo_runs_once_per_round"`).

Once per round, `async_mulferl` and `async_grpo` also train on the `none_failed` regime (no group fails), for the
target "asynchronous MulFeRL within 10% of AsyncGRPO where no group fails". After the rounds, one more
`async_mulferl` run at the largest L trains `--memory-steps` steps and records its rollout process's RSS at every
step, to show that memory stays flat.

Placement, as in the paper's setup where the server has GPUs of its own: the server is pinned to CPU core 0 (vLLM's
`--scheduling-policy priority`, which MulFeRL's regenerations use), each asynchronous trainer process and its rollout
process to core 1. The synchronous trainer generates and trains in turn, so it gets both cores (the server is idle
meanwhile). Every trainer runs one torch thread. The trainers run in a rotated order each round.

Per run: steps/s over the measured steps (wall clock from the end of the last warm-up step to the end of the last
one); feedback requests and turn-0 groups scored over the whole run (warm-up and work never trained included: the
provider and the reward log each call to the file `$ASYNC_LATENCY_LOG`) per trained prompt (steps x 16); the
largest `mulferl/pipeline/open_trajectories_max` (generation places held as a prompt opens) and
`feedback_slots_max` logged (async_mulferl); the peak RSS of the process that generates (the rollout process of an
asynchronous trainer, the trainer itself for the synchronous one, sampled every 0.5 s); the largest
`sample/staleness_max` logged (policy versions from the (re)generation of a trained row to its training step; 0 for
the synchronous trainer); the largest `mulferl/pipeline/feedback_age_max` logged (policy versions from the attempt a
feedback critiques to the regeneration with it). The JSON has each measure's median over rounds, the ratios of the targets computed per
round (median over rounds), and every run.

    python benchmarks/async_latency.py --json benchmarks/async_latency.json   # the full run: 3 rounds, 20 steps
    python benchmarks/async_latency.py --trainers async_mulferl --rounds 1 --latencies 0 2 --max-staleness 5
    python benchmarks/async_latency.py --smoke                                # tiny sizes: checks that it runs

The full run (3 rounds, 2 + 20 steps, L in 0, 2 and 5, a memory run of 40 steps at 5 s) takes about 50 minutes on
the project's 2 CPU cores; the smoke (1 round, 1 warm-up and 2 measured steps, L in 0 and 0.5, a memory run of 3
steps at 0.5) about 7.
Needs vLLM's CPU build (the environment
`.ci/vllm-env` makes) and CPU cores 0 and 1.
"""

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from async_overhead import (  # noqa: E402
    FULL,
    SMOKE,
    build_model,
    run_in_process,
    run_trainer,
    run_worker,
    scripted_provider,
    scripted_reward,
)
from overhead import REGIMES, turn_of  # noqa: E402


TRAINERS = ("async_mulferl", "mulferl", "async_grpo")
ASYNC_TRAINERS = ("async_mulferl", "async_grpo")
LATENCIES = (0.0, 2.0, 5.0)
SMOKE_LATENCIES = (0.0, 0.5)
TASK, NO_FAILURE = "slow_feedback", "none_failed"
LOG_VARIABLE = "ASYNC_LATENCY_LOG"  # the file the scripted reward and provider append a line to per call
SERVER_CPUS, TRAINER_CPUS, SYNC_TRAINER_CPUS = {0}, {1}, {0, 1}
SCHEDULING_POLICY = "priority"
MEASURES = (
    "steps_per_s",
    "feedback_requests_per_trained_prompt",
    "turn0_groups_per_trained_prompt",
    "open_trajectories_max",
    "feedback_slots_max",
    "rollout_peak_rss_mb",
    "trained_staleness_max",
    "feedback_age_max",
)
MB = 2**20


def log_call(line: str):
    if os.environ.get(LOG_VARIABLE):
        with open(os.environ[LOG_VARIABLE], "a") as stream:
            stream.write(line + "\n")


def counted_reward(completions, **kwargs):
    """`scripted_reward`, logging `reward TURN ROWS` for the rows of each turn it scores."""
    for turn, rows in sorted(Counter(turn_of(completion) for completion in completions).items()):
        log_call(f"reward {turn} {rows}")
    return scripted_reward(completions, **kwargs)


def counted_provider(prompt, completions, rewards, **columns):
    """`scripted_provider`, logging `feedback` per request."""
    log_call("feedback")
    return scripted_provider(prompt, completions, rewards, **columns)


def count_calls(path: Path, num_generations: int) -> tuple[int, float]:
    """The feedback requests and the turn-0 groups scored that a run's log file records."""
    lines = [line.split() for line in path.read_text().splitlines()] if path.exists() else []
    turn0_rows = sum(int(line[2]) for line in lines if line[:2] == ["reward", "0"])
    return sum(line == ["feedback"] for line in lines), turn0_rows / num_generations


class RSSSampler(threading.Thread):
    """Every `interval` seconds, the RSS of the process that generates: this process's spawned rollout process
    (`rollout`; the largest, should there be more than one), else this process."""

    def __init__(self, rollout: bool, interval: float = 0.5):
        super().__init__(daemon=True)
        self.rollout, self.interval = rollout, interval
        self.peak, self.done = 0, threading.Event()

    def sample(self) -> int | None:
        import psutil

        processes = [psutil.Process()]
        if self.rollout:
            processes = processes[0].children(recursive=True)
        sizes = []
        for process in processes:
            try:
                if not self.rollout or "spawn_main" in " ".join(process.cmdline()):
                    sizes.append(process.memory_info().rss)
            except psutil.Error:  # it ended between the listing and the reading
                pass
        if not sizes:
            return None
        self.peak = max(self.peak, max(sizes))
        return max(sizes)

    def run(self):
        while not self.done.wait(self.interval):
            self.sample()


def run_measured(name: str, regime_name: str, settings: dict, model_dir: str, server_url: str) -> dict:
    """In the trainer process: `async_overhead.run_trainer` with the counted reward and provider, and what this
    benchmark reads from the trainer (its budget, its log history, the RSS of its generating process)."""
    from transformers import TrainerCallback

    from trl_mulferl.core.metrics import FEEDBACK_AGE_MAX, FEEDBACK_SLOTS_MAX, OPEN_TRAJECTORIES_MAX

    sampler, seen = RSSSampler(rollout=name != "mulferl"), {"rss_by_step": []}

    class Probe(TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            seen["budget"] = getattr(args, "max_open_trajectories", None)
            seen["feedback_slots"] = getattr(args, "feedback_max_concurrency", None)
            seen["max_staleness"] = getattr(args, "max_staleness", None)
            seen["max_feedback_age"] = getattr(args, "max_feedback_age", None)

        def on_step_end(self, args, state, control, **kwargs):
            rss = sampler.sample()
            seen["rss_by_step"].append(None if rss is None else rss / MB)

        def on_train_end(self, args, state, control, **kwargs):
            seen["history"] = list(state.log_history)

    # TRL's default in-flight bound (max_staleness x samples per step); async_mulferl keeps its default budget.
    config = {} if name == "mulferl" else {"max_inflight_tasks": -1}
    if name != "mulferl" and settings.get("max_staleness") is not None:
        config["max_staleness"] = settings["max_staleness"]  # and with it async_mulferl's default budget
    sampler.start()
    try:
        result = run_trainer(
            name,
            regime_name,
            settings,
            model_dir,
            server_url,
            feedback_seconds=settings["feedback_seconds"],
            reward_func=counted_reward,
            feedback_provider=counted_provider,
            config=config,
            callbacks=[Probe()],
        )
    finally:
        sampler.done.set()
        sampler.join()

    def largest(metric: str):
        values = [entry[metric] for entry in seen.get("history", ()) if entry.get(metric) is not None]
        return max(values) if values else None

    return {
        **result,
        **{name: seen.get(name) for name in ("budget", "feedback_slots", "max_staleness", "max_feedback_age")},
        "open_trajectories_max": largest(OPEN_TRAJECTORIES_MAX),
        "feedback_slots_max": largest(FEEDBACK_SLOTS_MAX),
        "rollout_peak_rss_mb": sampler.peak / MB if sampler.peak else None,
        "trained_staleness_max": result.get("staleness_max", 0),  # TRL's sample/staleness_max, largest logged
        "feedback_age_max": largest(FEEDBACK_AGE_MAX),
        "rss_mb_by_step": seen["rss_by_step"],
    }


def one_run(name: str, regime: str, latency: float, settings: dict, model_dir: Path, server, work: Path, tag: str):
    """A trainer's run in a process of its own, pinned, with the calls it logs counted; its measures."""
    settings = {**settings, "feedback_seconds": latency}
    stem = f"{tag}-{name}-{regime}-L{latency:g}"
    calls = work / f"{stem}.calls"
    cpus = SYNC_TRAINER_CPUS if name == "mulferl" else TRAINER_CPUS
    result = run_in_process(
        name,
        regime,
        settings,
        str(model_dir),
        server.url,
        work / f"{stem}.log",
        script=__file__,
        cpus=cpus,
        env={LOG_VARIABLE: str(calls)},
    )
    feedback, turn0_groups = count_calls(calls, REGIMES[regime].num_generations)
    trained_prompts = (settings["warmup_steps"] + settings["steps"]) * len(REGIMES[regime].scripts)
    result.update(
        trainer=name,
        regime=regime,
        feedback_seconds=latency,
        feedback_requests=feedback,
        turn0_groups=turn0_groups,
        trained_prompts=trained_prompts,
        feedback_requests_per_trained_prompt=feedback / trained_prompts,
        turn0_groups_per_trained_prompt=turn0_groups / trained_prompts,
    )
    return result


def median(values):
    """The median of the values that are not None; None when none is."""
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def key(latency: float) -> str:
    return f"{latency:g}"


def placed(runs: list, latencies: list) -> list:
    """(L, run) for every run of the rounds: AsyncGRPO's one `slow_feedback` run per round under every L."""
    return [
        (latency, run)
        for run in runs
        if run.get("round") is not None
        for latency in (
            latencies if (run["trainer"], run["regime"]) == ("async_grpo", TASK) else [run["feedback_seconds"]]
        )
    ]


def summarize(runs: list, trainers: list, latencies: list) -> tuple[dict, dict]:
    """Per trainer and L, and on `none_failed`, each measure's median over rounds."""

    def medians(name, regime, latency):
        selected = [
            run
            for at, run in placed(runs, latencies)
            if (run["trainer"], run["regime"], at) == (name, regime, latency)
        ]
        return {measure: median(run.get(measure) for run in selected) for measure in MEASURES}

    results = {name: {key(latency): medians(name, TASK, latency) for latency in latencies} for name in trainers}
    none_failed = {name: medians(name, NO_FAILURE, 0.0) for name in trainers if name in ASYNC_TRAINERS}
    return results, none_failed


def ratios(runs: list, rounds: int, latencies: list) -> dict:
    """Steps/s ratios measured within one round, median over rounds: async_mulferl at each L over itself at 0, over
    mulferl at each L, and over async_grpo on `none_failed`."""
    rate = {
        (run["round"], run["trainer"], run["regime"], at): run["steps_per_s"] for at, run in placed(runs, latencies)
    }

    def over(numerator: tuple, denominator: tuple):
        return median(
            rate[(r, *numerator)] / rate[(r, *denominator)]
            for r in range(rounds)
            if (r, *numerator) in rate and (r, *denominator) in rate
        )

    table = {}
    for latency in latencies:
        mine = ("async_mulferl", TASK, latency)
        if latency > 0:
            table[f"async_mulferl_at_{key(latency)}_over_at_0"] = over(mine, ("async_mulferl", TASK, 0.0))
        table[f"async_mulferl_over_mulferl_at_{key(latency)}"] = over(mine, ("mulferl", TASK, latency))
    table["async_mulferl_over_async_grpo_none_failed"] = over(
        ("async_mulferl", NO_FAILURE, 0.0), ("async_grpo", NO_FAILURE, 0.0)
    )
    return table


def fmt(value, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def verdict(passed) -> str:
    return "n/a (not measured)" if passed is None else ("PASS" if passed else "FAIL")


def report(payload: dict):
    """The table (trainer x L, then `none_failed`), the targets and the checks."""
    header = [
        "steps/s",
        "fb req/prompt",
        "turn0 grp/prompt",
        "gen places max",
        "fb slots max",
        "peak RSS MB",
        "staleness max",
        "fb age max",
    ]
    print(f"\n{'trainer':<14} {'L s':>11} " + " ".join(f"{column:>16}" for column in header))
    rows = [
        (name, latency, measured) for name, by_l in payload["results"].items() for latency, measured in by_l.items()
    ]
    rows += [(name, NO_FAILURE, measured) for name, measured in payload["none_failed"].items()]
    for name, latency, measured in rows:
        cells = [fmt(measured[measure], ".0f" if measure == "rollout_peak_rss_mb" else ".2f") for measure in MEASURES]
        print(f"{name:<14} {latency:>11} " + " ".join(f"{cell:>16}" for cell in cells))

    table = payload["ratios"]

    def at_least(name, bound, strict=False):
        value = table.get(name)
        return value, None if value is None else (value > bound if strict else value >= bound)

    targets = [
        ("async_mulferl steps/s at 2 s >= 0.9 x at 0 s", *at_least("async_mulferl_at_2_over_at_0", 0.9)),
        ("async_mulferl steps/s at 5 s >= 0.85 x at 0 s", *at_least("async_mulferl_at_5_over_at_0", 0.85)),
        ("async_mulferl steps/s > mulferl at 2 s", *at_least("async_mulferl_over_mulferl_at_2", 1.0, strict=True)),
        ("async_mulferl steps/s > mulferl at 5 s", *at_least("async_mulferl_over_mulferl_at_5", 1.0, strict=True)),
        (
            "async_mulferl steps/s >= 0.9 x async_grpo, none_failed",
            *at_least("async_mulferl_over_async_grpo_none_failed", 0.9),
        ),
    ]
    mine = [run for run in payload["runs"] if run["trainer"] == "async_mulferl" and run["regime"] == TASK]
    checks = []
    for measure, label in (
        ("feedback_requests_per_trained_prompt", "feedback requests"),
        ("turn0_groups_per_trained_prompt", "turn-0 groups"),
    ):
        worst = max((run[measure] for run in mine), default=None)
        passed = None if worst is None else worst <= 1.05
        checks.append((f"async_mulferl {label} per trained prompt <= 1.05 (worst run, every L)", worst, passed))
    for measure, bound_name, label in (
        ("open_trajectories_max", "budget", "generation places"),
        ("feedback_slots_max", "feedback_slots", "feedback slots"),
        ("trained_staleness_max", "max_staleness", "trained rows' staleness"),
        ("feedback_age_max", "max_feedback_age", "feedback age"),
    ):
        values = [run[measure] for run in mine if run.get(measure) is not None]
        most, bound = (max(values) if values else None), payload.get(bound_name)
        passed = None if most is None or bound is None else most <= bound
        checks.append((f"async_mulferl {label} max <= {bound_name} ({bound})", most, passed))
    memory = payload.get("memory") or {}
    first, last = memory.get("rss_mb_first_measured_step"), memory.get("rss_mb_last_step")
    flat = None if None in (first, last) else last <= 1.1 * first
    checks.append(
        ("rollout RSS flat: last step <= 1.1 x first measured step", None if flat is None else last / first, flat)
    )
    print("\ntargets")
    for label, value, passed in targets:
        print(f"  {label:<80} {fmt(value):>8}  {verdict(passed)}")
    print("checks")
    for label, value, passed in checks:
        print(f"  {label:<80} {fmt(value):>8}  {verdict(passed)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trainers", nargs="+", choices=TRAINERS, default=list(TRAINERS))
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every run, in a rotated trainer order")
    parser.add_argument("--steps", type=int, default=20, help="measured steps per run")
    parser.add_argument("--warmup-steps", type=int, default=2, help="steps before the measured ones")
    parser.add_argument("--latencies", type=float, nargs="+", help=f"the provider's seconds (default: {LATENCIES})")
    parser.add_argument(
        "--max-staleness", type=int, help="the asynchronous trainers' max_staleness (default: async_overhead's 4)"
    )
    parser.add_argument(
        "--memory-steps",
        type=int,
        default=40,
        help="measured steps of the async_mulferl memory run at the largest L (0: none; 3 under --smoke)",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: 1 round, 2 steps, L in 0 and 0.5")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, run_measured)
        return

    from tests.helpers.async_cpu import VLLMServer

    if args.smoke:
        settings, latencies, rounds, memory_steps = dict(SMOKE), list(SMOKE_LATENCIES), 1, 3
    else:
        settings, latencies, rounds = dict(FULL), list(args.latencies or LATENCIES), args.rounds
        settings.update(steps=args.steps, warmup_steps=args.warmup_steps, max_staleness=args.max_staleness)
        memory_steps = args.memory_steps
    trainers = args.trainers
    work = Path(tempfile.mkdtemp(prefix="async-latency-"))
    model_dir = work / "model"
    build_model(settings, model_dir)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))  # stopped: the server too, in `finally`
    server = VLLMServer(
        str(model_dir),
        work / "vllm-serve.log",
        max_model_len=1024,
        cpus=SERVER_CPUS,
        scheduling_policy=SCHEDULING_POLICY,
    )
    runs, memory = [], None
    print(f"logs: {work}", flush=True)

    def write():
        """The results so far (after every run: a run cut short keeps what it measured)."""
        results, none_failed = summarize(runs, trainers, latencies)
        mine = [run for run in runs if run["trainer"] == "async_mulferl" and run.get("budget")]
        bounds = ("budget", "feedback_slots", "max_staleness", "max_feedback_age")
        payload = {
            **{name: mine[0][name] if mine else None for name in bounds},
            "settings": {
                **settings,
                "latencies": latencies,
                "memory_steps": memory_steps,
                "task": TASK,
                "server_cpus": sorted(SERVER_CPUS),
                "trainer_cpus": sorted(TRAINER_CPUS),
                "sync_trainer_cpus": sorted(SYNC_TRAINER_CPUS),
                "scheduling_policy": SCHEDULING_POLICY,
            },
            "rounds": rounds,
            "async_grpo_runs_once_per_round": True,
            "results": results,
            "none_failed": none_failed,
            "memory": memory,
            "ratios": ratios(runs, rounds, latencies),
            "runs": runs,
        }
        if args.json:
            args.json.write_text(json.dumps(payload, indent=2) + "\n")
        return payload

    try:
        server.wait_until_healthy()
        for round_ in range(rounds):
            # The order rotates, so that no trainer always runs first on a fresh server or last on a warm one.
            order = trainers[round_ % len(trainers) :] + trainers[: round_ % len(trainers)]
            plan = [(name, TASK, latency) for latency in latencies for name in order]
            plan = [step for step in plan if step[0] != "async_grpo" or step[2] == latencies[0]]  # once per round
            plan += [(name, NO_FAILURE, 0.0) for name in order if name in ASYNC_TRAINERS]
            for name, regime, latency in plan:
                run = one_run(name, regime, latency, settings, model_dir, server, work, f"round{round_}")
                runs.append({**run, "round": round_})
                print(f"round {round_} {name} {regime} L={latency:g}: {json.dumps(runs[-1])}", flush=True)
                write()
        if memory_steps and "async_mulferl" in trainers:
            long = {**settings, "steps": memory_steps}
            run = one_run("async_mulferl", TASK, latencies[-1], long, model_dir, server, work, "memory")
            warmup, rss = settings["warmup_steps"], run["rss_mb_by_step"]
            memory = {
                "feedback_seconds": latencies[-1],
                "steps": memory_steps,
                "warmup_steps": warmup,
                "rss_mb_first_measured_step": rss[warmup] if len(rss) > warmup else None,
                "rss_mb_last_step": rss[-1] if rss else None,
                "rss_mb_peak": run["rollout_peak_rss_mb"],
                "rss_mb_by_step": rss,
            }
            runs.append({**run, "round": None})
            print(f"memory: {json.dumps(memory)}", flush=True)
    finally:
        server.stop()
    report(write())


if __name__ == "__main__":
    main()
