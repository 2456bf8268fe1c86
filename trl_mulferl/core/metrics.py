"""The `mulferl/*` metrics both MulFeRL trainers log: their names, the feedback counts as metrics, the run's totals
and the summary at the end of training, FCO's loss per optimizer step, and the warning when the schema is why groups
fail."""

import logging
import math
from collections.abc import Mapping

import torch
from tqdm.auto import tqdm
from transformers.trainer_callback import PrinterCallback, ProgressCallback

from .routing import Route
from .summary import RunSummary, run_summary, summary_lines
from .totals import feedback_totals


logger = logging.getLogger(__name__)

LOGGED_ROUTES = tuple(r for r in Route if r != Route.REGENERATE)
# The counts kept as `feedback/<name>`, logged as they are: `FeedbackStep.prepare`'s, the providers' (`pop_metrics`),
# the failed groups left without a request (`capped_groups` by `max_feedback_groups_per_step`, `skipped_truncated` by
# `feedback_skip_truncated`: `trl_mulferl.feedback.turn.asks_for_feedback`) and the control ids dropped from an
# injected feedback (`FeedbackStep.prefill_ids` and `context_ids`).
FEEDBACK_COUNTS = (
    "requests",
    "errors",
    "malformed_results",
    "leaks_redacted",
    "control_tokens_removed",
    "retries",
    "failed_reviews",
    "prompt_tokens",
    "completion_tokens",
    "capped_groups",
    "skipped_truncated",
)
REWARD_FINAL = "mulferl/reward_final"
REWARD_ROWS = "mulferl/reward_rows"
REGENERATED_TOKENS = "mulferl/regenerated_tokens"
REPLAYED_ROWS = "mulferl/replayed_rows"
FCO_DROPPED_PAIRS = "mulferl/fco/dropped_pairs"
# The turn-0 rows of the groups that failed at turn 0 whose completion breaks the schema (a count, as the failed groups).
SCHEMA_NONCOMPLIANT = "mulferl/schema_noncompliant"
# Failed groups whose feedback turn does not fit the server's context (asynchronous trainer: they end unresolved).
OVER_CONTEXT = "mulferl/feedback/over_context"
# Tool calls in the regenerated episodes, and those that failed (TRL's `tools/*` describe turn 0).
TOOL_CALLS = "mulferl/tools/calls"
TOOL_FAILURES = "mulferl/tools/failures"

# The asynchronous trainer's: the trained prompts its route fractions are over (TRL drops stale rows before they are),
# FCO pairs whose negative fits no micro-batch row with its positive under `token_budget`, and its rollout pipeline's.
ROUTED_PROMPTS = "mulferl/route/prompts_total"
OVER_BUDGET_PAIRS = "mulferl/fco/over_budget_pairs_total"
OPEN_TRAJECTORIES_MAX = "mulferl/pipeline/open_trajectories_max"  # generation places held, as a prompt opens
FEEDBACK_SLOTS_MAX = "mulferl/pipeline/feedback_slots_max"
FEEDBACK_TASKS_MAX = "mulferl/pipeline/feedback_tasks_max"  # failed groups waiting for a feedback slot or in one
TURN0_GROUPS = "mulferl/pipeline/turn0_groups"
EXPIRED_FEEDBACK = "mulferl/pipeline/expired_feedback"  # trajectories whose feedback turn passed max_feedback_age
FEEDBACK_AGE = "mulferl/pipeline/feedback_age_mean"  # policy versions from the attempt critiqued to its regeneration
FEEDBACK_AGE_MAX = "mulferl/pipeline/feedback_age_max"
# The keys of a row's per-sample metrics (the one field of a sample that TRL's queue dataset hands on as it is) under
# which the asynchronous trainer's rollout process sends what the row carries; `MulFeRLQueue` takes them out before any
# metric is logged. An FCO carrier's negatives and pair weight; a replayed row's advantage; the reward metrics of the
# prompt's turn-0 rollout, which a row trained at a feedback turn carries (TRL's reward metrics describe turn 0,
# decision 9, while the row's own stay its final reward); the route that ended the row's trajectory (a `Route` value).
FCO_PAIRS = "mulferl/fco_pairs"
REPLAY_ADVANTAGE = "mulferl/replay_advantage"
TURN0_REWARDS = "mulferl/turn0_rewards"
ROUTE = "mulferl/route"
# The key of the window the rollout process sends as it stops: the trainer waits for it before its last log.
LAST_WINDOW = "mulferl/last_window"


def route_metric(route: Route) -> str:
    """The fraction of prompts whose trajectory ended with `route`."""
    return f"mulferl/route/{route.value}"


def turn_metric(turn: int, name: str) -> str:
    """`failed_groups`, `reached_groups`, `escape_rate` (turns > 0) or `success_rate`, `varied_groups` (turn 0) of a
    turn."""
    return f"mulferl/turn_{turn}/{name}"


def feedback_metric(name: str) -> str:
    """A feedback count (`FEEDBACK_COUNTS`), the latency (`latency_s`, `latency_max_s`) or the cost."""
    return f"mulferl/feedback/{name}"


def feedback_metrics(counts: Mapping[str, float]) -> dict[str, float | tuple[float, float]]:
    """The counts of feedback turns (over processes, or over a window) as `mulferl/*` metrics, as both trainers log
    them: each feedback count (`FEEDBACK_COUNTS`), the regenerated tokens (`FeedbackStep.regenerated_row`), the mean
    latency as `(sum, requests)` and the largest latency (NaN without a request)."""
    requests = counts.get("feedback/requests", 0)
    metrics = {feedback_metric(name): counts.get(f"feedback/{name}", 0) for name in FEEDBACK_COUNTS}
    metrics[REGENERATED_TOKENS] = counts.get("regenerated_tokens", 0)
    metrics[feedback_metric("latency_s")] = (counts.get("feedback/latency_sum", 0.0), requests)
    metrics[feedback_metric("latency_max_s")] = counts.get("feedback/latency_max", 0.0) if requests else math.nan
    return metrics


def log_feedback_bill(trainer, counts: Mapping[str, float]):
    """Add counts (`RUN_COUNTS` names, over all processes) to the run's totals and, at configured prices, log its
    running cost (the latest value, not a mean)."""
    bill = feedback_totals(trainer)
    bill.add(counts)
    if bill.cost is not None:
        trainer._metrics["train"][feedback_metric("cost")] = [bill.cost]


def log_run_summary(trainer, logs: dict[str, float]):
    """In the summary that `train()` logs once at its end (the log with `train_runtime`): what feedback bought and what
    it cost over the run (`trl_mulferl.core.summary`), as `mulferl/*` totals, and as a block printed where the trainer
    prints its logs (the main process, with Transformers' progress bar or printer)."""
    if "train_runtime" not in logs:
        return
    summary = trainer_summary(trainer)
    logs.update(summary_metrics(summary))
    printers = (ProgressCallback, PrinterCallback)
    if trainer.is_world_process_zero() and any(isinstance(c, printers) for c in trainer.callback_handler.callbacks):
        lines = summary_lines(summary, feedback=trainer.feedback_provider is not None)
        tqdm.write("\n".join(["", f"{trainer._name} summary. {lines[0]}", *(f"  - {line}" for line in lines[1:])]))


def trainer_summary(trainer) -> RunSummary:
    """The run's summary from the trainer's `FeedbackTotals`."""
    bill, args = feedback_totals(trainer), trainer.args
    return run_summary(bill.totals, fco_trains=args.fco_enabled or args.feedback_replay, cost=bill.cost)


def drop_empty_windows(metrics: dict[str, list]):
    """Drop the `mulferl/*` metrics that hold no value over the logging window (every value NaN: a turn no group
    reached, a step without FCO pairs or trained rows), which TRL's `log` would log as None. TRL's own are left as
    GRPOTrainer logs them."""
    for key in [key for key, values in metrics.items() if key.startswith("mulferl/") and not has_value(values)]:
        del metrics[key]


def has_value(values: list) -> bool:
    """Whether a window holds a value: a number that is not NaN, or a rate `(numerator, denominator)` over something."""
    return any(value[1] != 0 if isinstance(value, tuple) else not math.isnan(value) for value in values)


class SchemaFailures:
    """Warns once per run when the schema is why groups fail: in a logging window, more than half of the rows of the
    groups that failed at turn 0 (`turn_0/failed_groups` x `num_generations`) break the schema
    (`SCHEMA_NONCOMPLIANT`), and a reward function requires it (`schema_rewards`, from the start-up check)."""

    def __init__(self, schema_rewards: list[str], group_size: int):
        self.schema_rewards = schema_rewards
        self.group_size = group_size
        self.warned = False

    def check(self, metrics: Mapping[str, list[float]]):
        """`metrics`: the window's values of each metric (TRL's `_metrics["train"]`), summed here."""
        if self.warned or not self.schema_rewards:
            return
        noncompliant = sum(metrics.get(SCHEMA_NONCOMPLIANT, []))
        failed_rows = sum(metrics.get(turn_metric(0, "failed_groups"), [])) * self.group_size
        if 2 * noncompliant <= failed_rows:
            return
        self.warned = True
        logger.warning(
            "%d of the %d rows of the groups that failed at turn 0 in this logging window break the answer schema "
            "(%s), which %s requires: they score 0 whatever their answer, so these groups fail on the format, not on "
            "the task. Ask for the schema in the prompts (trl_mulferl.make_conversation puts trl_mulferl.SYSTEM_PROMPT "
            "first), or use a reward that does not require it (trl.rewards.accuracy_reward). (Logged once.)",
            noncompliant,
            failed_rows,
            SCHEMA_NONCOMPLIANT,
            ", ".join(self.schema_rewards),
        )


class FCOWindow:
    """The FCO loss, score gap and pair count of the micro-batches of one optimizer step, summed over processes."""

    def __init__(self):
        self.sums = torch.zeros(3)

    def add(self, accelerator, loss_sum: float, gap_sum: float, pairs: float):
        """Every process calls this at every micro-step with FCO keys (a collective)."""
        local = torch.tensor([loss_sum, gap_sum, pairs], device=accelerator.device)
        self.sums += accelerator.reduce(local, reduction="sum").cpu()

    @property
    def has_pairs(self) -> bool:
        return bool(self.sums[2] > 0)

    def flush(self, metrics, totals):
        """Log the step's FCO metrics in `metrics` and add its pairs to `totals`, the run's `FeedbackTotals`."""
        loss_sum, gap_sum, pairs = self.sums.tolist()
        totals.add({"fco/pairs": pairs})
        metrics["mulferl/fco/loss"].append(loss_sum / pairs if pairs else math.nan)
        metrics["mulferl/fco/score_gap"].append(gap_sum / pairs if pairs else math.nan)
        metrics["mulferl/fco/pairs"].append(pairs)
        self.sums = torch.zeros(3)


def summary_metrics(summary: RunSummary) -> dict[str, float]:
    """The summary's numbers as the summary log's `mulferl/*` keys; one without a value (no prompt, no price) is left
    out, never logged as None."""
    metrics = {
        "mulferl/feedback/total_requests": summary.requests,
        "mulferl/feedback/total_prompt_tokens": summary.prompt_tokens,
        "mulferl/feedback/total_completion_tokens": summary.completion_tokens,
        "mulferl/feedback/total_latency_s": summary.latency_s,
        "mulferl/total_regenerated_tokens": summary.regenerated_tokens,
        "mulferl/turn_0/total_failed_groups": summary.turn_0_failed,
        "mulferl/fco/total_pairs": summary.fco_pairs,
    }
    for turn, (_, rescued) in summary.rescued.items():
        metrics[f"mulferl/turn_{turn}/total_rescued_groups"] = rescued
    if summary.groups:
        metrics["mulferl/total_gradient_share"] = summary.gradient_share
        metrics["mulferl/total_grpo_gradient_share"] = summary.grpo_gradient_share
    if summary.cost is not None:
        metrics["mulferl/feedback/total_cost"] = summary.cost
    return metrics
