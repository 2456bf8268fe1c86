"""The `mulferl/*` metrics both MulFeRL trainers log: their names, the feedback counts as metrics, the run's feedback
bill, FCO's loss per optimizer step, and the warning when the schema is why groups fail."""

import logging
import math
from collections.abc import Mapping

import torch

from ..feedback import feedback_totals
from .routing import Route


logger = logging.getLogger(__name__)

TRAINED_ROUTES = (Route.GRPO, Route.FCO)
LOGGED_ROUTES = tuple(r for r in Route if r != Route.REGENERATE)
# The counts `FeedbackStep.prepare` and the providers' `pop_metrics` keep as `feedback/<name>`, logged as they are.
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


def route_metric(route: Route) -> str:
    """The fraction of prompts whose trajectory ended with `route`."""
    return f"mulferl/route/{route.value}"


def turn_metric(turn: int, name: str) -> str:
    """`failed_groups`, `reached_groups`, `escape_rate` (turns > 0) or `success_rate` (turn 0) of a turn."""
    return f"mulferl/turn_{turn}/{name}"


def feedback_metric(name: str) -> str:
    """A feedback count (`FEEDBACK_COUNTS`), the latency (`latency_s`, `latency_max_s`) or the cost."""
    return f"mulferl/feedback/{name}"


def feedback_metrics(counts: Mapping[str, float]) -> dict[str, float | tuple[float, float]]:
    """The feedback counts of `FeedbackStep.prepare` (over processes, or over a window) as `mulferl/feedback/*`
    metrics: each count, the mean latency as `(sum, requests)` and the largest latency (NaN without a request)."""
    requests = counts.get("feedback/requests", 0)
    metrics = {feedback_metric(name): counts.get(f"feedback/{name}", 0) for name in FEEDBACK_COUNTS}
    metrics[feedback_metric("latency_s")] = (counts.get("feedback/latency_sum", 0.0), requests)
    metrics[feedback_metric("latency_max_s")] = counts.get("feedback/latency_max", 0.0) if requests else math.nan
    return metrics


def log_feedback_bill(trainer, counts: Mapping[str, float]):
    """Add feedback counts (`feedback/<name>`, over all processes) to the run's bill and log its running cost (the
    latest value, not a mean)."""
    bill = feedback_totals(trainer)
    bill.add(counts)
    trainer._metrics["train"][feedback_metric("cost")] = [bill.cost]


def log_feedback_summary(trainer, logs: dict[str, float]):
    """The run's feedback totals, in the summary that `train()` logs once at its end (the log with `train_runtime`)."""
    if "train_runtime" in logs and trainer.feedback_provider is not None:
        logs.update({feedback_metric(name): value for name, value in feedback_totals(trainer).summary().items()})


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

    def flush(self, metrics):
        loss_sum, gap_sum, pairs = self.sums.tolist()
        metrics["mulferl/fco/loss"].append(loss_sum / pairs if pairs else math.nan)
        metrics["mulferl/fco/score_gap"].append(gap_sum / pairs if pairs else math.nan)
        metrics["mulferl/fco/pairs"].append(pairs)
        self.sums = torch.zeros(3)
