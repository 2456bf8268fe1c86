"""The synchronous trainer's `mulferl/*` metrics of a generation batch (routing, turns, feedback, tokens), reduced over
processes by name so that every process logs the same values; and TRL's reward metrics made turn 0's."""

import math
from collections import Counter

import torch
from accelerate.utils import gather_object
from trl.trainer.utils import nanstd

from ..core.metrics import (
    FCO_DROPPED_PAIRS,
    LOGGED_ROUTES,
    REPLAYED_ROWS,
    REWARD_FINAL,
    REWARD_ROWS,
    SCHEMA_NONCOMPLIANT,
    TOOL_CALLS,
    TOOL_FAILURES,
    feedback_metric,
    feedback_metrics,
    log_feedback_bill,
    route_metric,
    turn_metric,
)
from ..core.routing import TRAINED_ROUTES, GroupState, weighted_rewards


# Counts reduced with max over processes; every other count is summed.
_MAX_COUNTS = ("feedback/latency_max",)


def reduce_counts(counts: dict) -> Counter:
    """Every process's counts, summed by name (maxima for `_MAX_COUNTS`); a collective."""
    totals = Counter()
    for process_counts in gather_object([dict(counts)]):
        for name, value in process_counts.items():
            totals[name] = max(totals[name], value) if name in _MAX_COUNTS else totals[name] + value
    return totals


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("nan")


def log_rollout(trainer, rollout):
    """Routing, feedback and token metrics of one generation batch; also the run's feedback totals."""
    group_size, args = trainer.num_generations, trainer.args
    counts = Counter(rollout.counts)
    for r in LOGGED_ROUTES:
        counts[f"route/{r.value}"] = rollout.routes.count(r)
    for turn in range(1 + args.max_feedback_turns):
        reached = [h for h in rollout.histories if len(h) > turn]
        counts[f"turn_{turn}/reached"] = len(reached)
        counts[f"turn_{turn}/failed"] = sum(h[turn] == GroupState.FAILED for h in reached)
    num_rows = len(rollout.routes) * group_size
    first_row = trainer.accelerator.process_index * num_rows
    local = weighted_rewards(rollout.final_rewards_per_func, trainer.reward_weights)[first_row : first_row + num_rows]
    routes = rollout.row_routes(group_size)
    trained = [reward for reward, r in zip(local.tolist(), routes) if r in TRAINED_ROUTES and not math.isnan(reward)]
    counts["reward_final/sum"], counts["reward_final/count"] = sum(trained), len(trained)
    totals = reduce_counts(counts)

    metrics = trainer._metrics["train"]
    num_groups = sum(totals[f"route/{r.value}"] for r in LOGGED_ROUTES)
    for r in LOGGED_ROUTES:
        metrics[route_metric(r)].append(totals[f"route/{r.value}"] / num_groups)
    successes = ratio(totals["turn_0/successes"], totals["turn_0/scored_rows"])
    metrics[turn_metric(0, "success_rate")].append(successes)
    metrics[turn_metric(0, "varied_groups")].append(totals["turn_0/varied"])
    for turn in range(1 + args.max_feedback_turns):
        metrics[turn_metric(turn, "failed_groups")].append(totals[f"turn_{turn}/failed"])
        if turn > 0:  # groups regenerated at this turn: those that failed one turn earlier and got feedback
            metrics[turn_metric(turn, "reached_groups")].append(totals[f"turn_{turn}/reached"])
            escaped = totals[f"turn_{turn}/reached"] - totals[f"turn_{turn}/failed"]
            metrics[turn_metric(turn, "escape_rate")].append(ratio(escaped, totals[f"turn_{turn}/reached"]))
    metrics[REWARD_FINAL].append(ratio(totals["reward_final/sum"], totals["reward_final/count"]))
    metrics[REWARD_ROWS].append(totals["reward_rows"])
    metrics[SCHEMA_NONCOMPLIANT].append(totals["schema_noncompliant"])
    if trainer.tools:  # in the regenerated episodes; TRL's `tools/*` describe turn 0
        metrics[TOOL_CALLS].append(totals["tools/calls"])
        metrics[TOOL_FAILURES].append(totals["tools/failures"])
    # TRL's `num_tokens` (and `num_input_tokens_seen`) counted turn 0 in `_generate`; the feedback turns add theirs,
    # also logged on their own (`mulferl/regenerated_tokens`, with `feedback_metrics`) as the asynchronous trainer does.
    trainer.state.num_input_tokens_seen += totals["regenerated_tokens"]
    metrics["num_tokens"] = [trainer.state.num_input_tokens_seen]
    for name, value in feedback_metrics(totals).items():
        metrics[name].append(ratio(*value) if isinstance(value, tuple) else value)
    metrics[feedback_metric("max_turns")].append(rollout.num_turns - 1)
    log_feedback_bill(trainer, totals)
    if args.fco_enabled:
        metrics[FCO_DROPPED_PAIRS].append(totals["fco/dropped_pairs"])
    if args.feedback_replay:
        metrics[REPLAYED_ROWS].append(totals["replayed_rows"])
    describe_turn_0(trainer, rollout.turn0_rewards_per_func, rollout.final_rewards_per_func)


def describe_turn_0(trainer, turn0_rewards_per_func: torch.Tensor, final_rewards_per_func: torch.Tensor):
    """Decision 9: TRL's reward metrics describe turn 0, as GRPO's would; its completions table the final rows.

    TRL logged both from the final rows' rewards: where a feedback turn changed them, the metrics are overwritten.
    """
    if torch.equal(turn0_rewards_per_func.isnan(), final_rewards_per_func.isnan()) and torch.equal(
        turn0_rewards_per_func.nan_to_num(), final_rewards_per_func.nan_to_num()
    ):
        return  # TRL described turn 0 itself, exactly as GRPOTrainer does
    rewards_per_func = turn0_rewards_per_func
    metrics = trainer._metrics["train"]
    weighted = weighted_rewards(rewards_per_func, trainer.reward_weights)
    metrics["reward"][-1] = torch.nanmean(weighted).item()
    metrics["reward_std"][-1] = nanstd(weighted).item()
    group_std = nanstd(weighted.view(-1, trainer.num_generations), dim=1)
    metrics["frac_reward_zero_std"][-1] = torch.isclose(group_std, torch.zeros_like(group_std)).float().mean().item()
    for i, name in enumerate(trainer.reward_func_names):
        metrics[f"rewards/{name}/mean"][-1] = torch.nanmean(rewards_per_func[:, i]).item()
        metrics[f"rewards/{name}/std"][-1] = nanstd(rewards_per_func[:, i]).item()
