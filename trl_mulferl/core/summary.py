"""What a run's feedback bought and what it cost, from the counts kept over the run (`FeedbackTotals`): the block
both MulFeRL trainers print when training ends and the model card's statistics (its summary-log keys are
`core.metrics.summary_metrics`'s, with every other `mulferl/*` name)."""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .routing import Route


# The routes a prompt's trajectory ends with (every one but REGENERATE), as the run's counts name them.
ROUTE_COUNTS = tuple(f"route/{r.value}" for r in Route if r != Route.REGENERATE)
# The counts summed over the run (over all processes): feedback requests, tokens and request latency; the policy
# tokens generated in feedback turns; turn 0's successes over its scored rows and its groups whose rewards vary (those
# GRPO alone trains); the FCO pairs trained; the routes; and, per turn t, `turn_<t>/{reached,failed}`.
RUN_COUNTS = (
    "feedback/requests",
    "feedback/prompt_tokens",
    "feedback/completion_tokens",
    "feedback/latency_sum",
    "regenerated_tokens",
    "turn_0/successes",
    "turn_0/scored_rows",
    "turn_0/varied",
    "fco/pairs",
    *ROUTE_COUNTS,
)
_TURN_COUNT = re.compile(r"turn_(\d+)/(reached|failed)")


def is_run_count(name: str) -> bool:
    return name in RUN_COUNTS or _TURN_COUNT.fullmatch(name) is not None


@dataclass(frozen=True)
class RunSummary:
    """What feedback bought (the groups it rescued, the prompts with a gradient against GRPO alone, FCO) and what it
    cost (requests, tokens, time, and the cost at the configured prices, None when there are none)."""

    groups: int  # prompts whose trajectory ended (each prompt's group, routed)
    turn_0_success_rate: float  # NaN without a scored row
    turn_0_failed: int  # groups whose K rollouts all failed on the first turn
    rescued: dict[int, tuple[int, int]]  # per feedback turn t: (groups regenerated at t, of them no longer all-failed)
    gradient_groups: int  # prompts trained: the GRPO route, and the FCO route when FCO or replay trains it
    grpo_gradient_groups: int  # prompts whose turn-0 rewards vary: those GRPO alone would have trained
    fco_groups: int
    fco_pairs: int
    requests: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float  # the feedback requests' latencies, summed
    regenerated_tokens: int  # policy tokens generated in feedback turns
    cost: float | None

    @property
    def gradient_share(self) -> float:
        return self.gradient_groups / self.groups

    @property
    def grpo_gradient_share(self) -> float:
        return self.grpo_gradient_groups / self.groups


def run_summary(counts: Mapping[str, float], fco_trains: bool, cost: float | None) -> RunSummary:
    """The run's summary from its counts (`RUN_COUNTS` and the per-turn ones; a missing count is 0).

    Args:
        fco_trains: Whether the FCO route gives a gradient (`fco_weight > 0` or `feedback_replay`).
        cost: The feedback model's cost at the configured prices; None when no price is set.
    """

    def count(name: str) -> int:
        return round(counts.get(name, 0))

    turns = sorted({int(m.group(1)) for name in counts if (m := _TURN_COUNT.fullmatch(name))} - {0})
    rescued = {t: (count(f"turn_{t}/reached"), count(f"turn_{t}/reached") - count(f"turn_{t}/failed")) for t in turns}
    trained_routes = ("route/grpo", "route/fco") if fco_trains else ("route/grpo",)
    scored_rows = counts.get("turn_0/scored_rows", 0)
    return RunSummary(
        groups=sum(count(name) for name in ROUTE_COUNTS),
        turn_0_success_rate=counts.get("turn_0/successes", 0) / scored_rows if scored_rows else math.nan,
        turn_0_failed=count("turn_0/failed"),
        rescued=rescued,
        gradient_groups=sum(count(name) for name in trained_routes),
        grpo_gradient_groups=count("turn_0/varied"),
        fco_groups=count("route/fco"),
        fco_pairs=count("fco/pairs"),
        requests=count("feedback/requests"),
        prompt_tokens=count("feedback/prompt_tokens"),
        completion_tokens=count("feedback/completion_tokens"),
        latency_s=counts.get("feedback/latency_sum", 0.0),
        regenerated_tokens=count("regenerated_tokens"),
        cost=cost,
    )


def summary_lines(summary: RunSummary, feedback: bool) -> list[str]:
    """The summary in words: a heading sentence, then one line each (the printed block's lines, the card's list).

    Args:
        feedback: Whether the run had feedback turns (a provider); without, only the gradient share is told.
    """
    if summary.groups == 0:
        return ["No generation batch was trained yet."]
    lines = [f"Over the {summary.groups} prompts of the run (each a group of K rollouts):"]
    if not math.isnan(summary.turn_0_success_rate):
        lines.append(f"turn-0 success rate: {summary.turn_0_success_rate:.3g}")
    lines.append(f"groups that failed on the first turn (all K rollouts): {summary.turn_0_failed}")
    for turn, (reached, rescued) in summary.rescued.items():
        share = f" ({rescued / reached:.0%})" if reached else ""
        lines.append(f"feedback turn {turn}: rescued {rescued} of the {reached} failed groups it regenerated{share}")
    lines.append(
        f"prompts with a gradient: {summary.gradient_share:.1%} ({summary.gradient_groups}) with MulFeRL, against "
        f"{summary.grpo_gradient_share:.1%} ({summary.grpo_gradient_groups}) that GRPO alone would have had (turn-0 "
        "rewards that vary)"
    )
    if summary.fco_groups or summary.fco_pairs:
        lines.append(
            f"FCO: {summary.fco_groups} prompts turned from all-failed to all-solved, {summary.fco_pairs} pairs"
        )
    if not feedback:
        lines.append("feedback: none (max_feedback_turns=0: GRPO)")
        return lines
    tokens = ""
    if summary.prompt_tokens or summary.completion_tokens:
        tokens = f", {summary.prompt_tokens} prompt and {summary.completion_tokens} completion tokens"
    lines.append(
        f"feedback cost: {summary.requests} requests{tokens}, {summary.latency_s:.1f} s of request latency (summed), "
        f"{summary.regenerated_tokens} policy tokens regenerated"
    )
    if summary.cost is None and tokens:
        lines.append(
            "cost: not priced (set feedback_input_token_price and feedback_output_token_price, per 1M tokens)"
        )
    elif summary.cost is None:
        lines.append("cost: not priced")
    else:
        lines.append(f"cost: {summary.cost:.4g} at the configured prices")
    return lines
