"""Algorithm 1's turn loop over one generation batch: score, route, ask for feedback, inject, regenerate, replace,
rescore, route again, until every prompt has a route or the turns run out."""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import torch

from ..core.rewards import schema_noncompliant_rows
from ..core.routing import GroupState, Route, group_state, make_generator, rewards_vary, route, weighted_rewards
from ..core.schema import inject_feedback
from ..feedback import collect_feedback
from ..feedback.environment import feedback_runner, takes_environments
from ..feedback.step import check_fits_context
from ..feedback.turn import asks_for_feedback, regeneration_prompt_ids, replayed_row, replays_without_feedback
from .agentic import batch_rows, continue_episodes, reset_episodes
from .lockstep import padded


@dataclass
class Rows:
    """This process's rows of the generation batch, as TRL's `_generate` returns them; regenerated rows replace the
    failed ones in place (decision 3), so the row count never changes."""

    prompt_ids: list[list[int]]
    completion_ids: list[list[int]]
    tool_mask: list[list[int]]
    completions: list
    logprobs: list[list[float]] | None


@dataclass
class Negative:
    """A row as it was one turn before its last: the FCO negative of a FAILED -> SOLVED prompt."""

    prompt_ids: list[int]
    completion_ids: list[int]
    score_mask: list[int]  # 1 on the tokens the model wrote, 0 on an injected prefill (and on a truncated row)
    prefill_length: int = 0  # tokens of injected feedback at the head of the completion
    scorable: bool = True  # some reward function scored it (an unscorable row is never an FCO member, decision 5)


@dataclass
class Rollout:
    """This process's groups through the turns of one generation batch (Algorithm 1's state)."""

    rows: Rows
    histories: list[list[GroupState]]  # per group, its state at each turn it reached
    routes: list[Route]  # per group, updated after each turn
    feedback: list[str]  # per group, the feedback its last turn was conditioned on ("" at turn 0)
    final_rewards_per_func: torch.Tensor  # gathered over processes; a row's rewards at its group's last turn
    turn0_rewards_per_func: torch.Tensor  # gathered over processes
    num_turns: int  # 1 + this step's feedback turns (`max_feedback_turns`, or its annealed value)
    feedback_groups_left: int | None = None  # this step's `max_feedback_groups_per_step` budget, over all processes
    negatives: dict[int, Negative] = field(default_factory=dict)  # per local row of a regenerated group
    prefill_lengths: dict[int, int] = field(default_factory=dict)  # per regenerated local row, its injected tokens
    replayed: set[int] = field(default_factory=set)  # local rows trained without their feedback (`feedback_replay`)
    counts: Counter = field(default_factory=Counter)  # local sums, logged as mulferl/<name> after a gather

    def groups(self, route_: Route) -> list[int]:
        return [group for group, r in enumerate(self.routes) if r == route_]

    def row_routes(self, group_size: int) -> list[Route]:
        return [r for r in self.routes for _ in range(group_size)]

    def grpo_rows(self, group_size: int, device) -> torch.Tensor:
        """`(rows,)` bool, True on the rows of GRPO-routed groups."""
        return torch.tensor([r == Route.GRPO for r in self.row_routes(group_size)], device=device)

    def replayed_rows(self, device) -> torch.Tensor:
        """`(rows,)` float, 1 on the rows trained without their feedback (`feedback_replay`)."""
        return torch.tensor([float(row in self.replayed) for row in range(len(self.rows.prompt_ids))], device=device)


@dataclass
class GenerationBatch:
    """What one generation batch carries from TRL's `_generate_and_score_completions` through `_generate` (which
    only receives the prompts) and back: the dataset rows, then the rollout and the rewards handed to TRL."""

    inputs: list[dict]
    rollout: Rollout | None = None
    # The final rows' rewards, which TRL's `_calculate_rewards` returns instead of scoring them again.
    rewards_per_func: torch.Tensor | None = None


def vllm_context_length(trainer) -> int | None:
    """The context of the trainer's colocated vLLM engine, which a feedback turn's prompt and injected feedback must
    fit (`check_fits_context`); None without one (a server keeps its own)."""
    if not (trainer.use_vllm and trainer.vllm_mode == "colocate"):
        return None
    return trainer.vllm_generation.llm.llm_engine.model_config.max_model_len


class TurnLoop:
    """Runs the feedback turns of one generation batch on a `MulFeRLTrainer`, with its backends and providers."""

    def __init__(self, trainer, inputs: list[dict], prompts: list):
        self.trainer = trainer
        self.args = trainer.args
        self.inputs = inputs
        self.prompts = prompts
        self.group_size = trainer.num_generations
        self.num_rows = len(prompts)
        self.step = trainer.feedback_step

    def run(self, rows: Rows) -> Rollout:
        rollout = self.start(rows)
        for turn in range(1, rollout.num_turns):
            failed = rollout.groups(Route.REGENERATE)
            feedback = self.ask_for_feedback(turn, failed, rollout)
            regenerated = [group for group in failed if feedback[group] is not None]
            for group in failed:
                if feedback[group] is None:
                    rollout.routes[group] = Route.UNRESOLVED
            most_regenerated = self.trainer.lockstep.most(len(regenerated))  # another turn anywhere?
            if most_regenerated == 0:
                break
            if self.trainer.environments:  # a new episode in each environment of the regenerated rows
                self.new_episodes(regenerated)
            contexts = self.inject(regenerated, feedback)
            new_rows = self.regenerate(contexts, rows, rollout)
            self.replace_rows(rows, regenerated, new_rows, rollout)
            self.rescore(rows, regenerated, rollout, most_regenerated * self.group_size)
            for group in regenerated:
                rollout.feedback[group] = feedback[group]
            self.route(rollout, regenerated)
        rollout.routes = [Route.UNRESOLVED if r == Route.REGENERATE else r for r in rollout.routes]
        if self.args.feedback_replay:
            self.replay_without_feedback(rollout)
        return rollout

    def local_rows(self) -> slice:
        """This process's rows within tensors gathered over processes."""
        first_row = self.trainer.accelerator.process_index * self.num_rows
        return slice(first_row, first_row + self.num_rows)

    def group_rows(self, group: int) -> range:
        return range(group * self.group_size, (group + 1) * self.group_size)

    def start(self, rows: Rows) -> Rollout:
        """Score turn 0 and route every group."""
        trainer = self.trainer
        rewards_per_func = trainer._calculate_rewards(self.inputs, self.prompts, rows.completions, rows.completion_ids)
        trainer._warn_if_unscorable(rewards_per_func)
        num_groups = self.num_rows // self.group_size
        rollout = Rollout(
            rows=rows,
            histories=[[] for _ in range(num_groups)],
            routes=[Route.REGENERATE] * num_groups,
            feedback=[""] * num_groups,
            final_rewards_per_func=rewards_per_func.clone(),
            turn0_rewards_per_func=rewards_per_func,
            num_turns=1 + self.args.feedback_turns_at(trainer.state.global_step),
            feedback_groups_left=self.args.max_feedback_groups_per_step,
        )
        local = weighted_rewards(rewards_per_func[self.local_rows()], trainer.reward_weights)
        scored = local[~torch.isnan(local)]
        rollout.counts["turn_0/successes"] = (scored >= self.args.success_threshold).sum().item()
        rollout.counts["turn_0/scored_rows"] = scored.numel()
        rollout.counts["turn_0/varied"] = sum(rewards_vary(group) for group in local.view(-1, self.group_size))
        rollout.counts["reward_rows"] = self.num_rows
        self.route(rollout, range(num_groups))
        failed = [group for group, history in enumerate(rollout.histories) if history[0] == GroupState.FAILED]
        rollout.counts["schema_noncompliant"] = schema_noncompliant_rows(
            [rows.completions[row] for group in failed for row in self.group_rows(group)]
        )
        return rollout

    def route(self, rollout: Rollout, groups):
        """Classify each group from its latest rewards and apply Algorithm 1 (with decision 12)."""
        rewards = weighted_rewards(rollout.final_rewards_per_func[self.local_rows()], self.trainer.reward_weights)
        for group in groups:
            group_rewards = rewards[self.group_rows(group)]
            rollout.histories[group].append(group_state(group_rewards, self.args.success_threshold))
            rollout.routes[group] = route(rollout.histories[group], rollout.num_turns, rewards_vary(group_rewards))

    def ask_for_feedback(self, turn: int, groups, rollout: Rollout) -> dict[int, str | None]:
        """Feedback text for turn `turn` per failed group of this process (None when there is none), all at once.

        A batched provider (self-feedback) is called on every process, even one with no request; any other provider
        gets every request concurrently on the feedback event loop (one that reads the environments: on TRL's), under
        `feedback_turn_deadline`. A provider that fails leaves its groups without feedback (unresolved).
        """
        trainer, rows = self.trainer, rollout.rows
        asked = self.groups_to_ask(turn, groups, rollout)
        local = rollout.final_rewards_per_func[self.local_rows()]
        requests, first_group = [], trainer.accelerator.process_index * (self.num_rows // self.group_size)
        for group in asked:
            first = group * self.group_size
            columns = {k: v for k, v in self.inputs[first].items() if k not in ("prompt", "completion")}
            if trainer.environments and takes_environments(trainer.feedback_provider):
                columns["environments"] = [trainer.environments[row] for row in self.group_rows(group)]
            requests.append(
                self.step.request(
                    self.prompts[first],
                    [rows.completions[row] for row in self.group_rows(group)],
                    weighted_rewards(local[self.group_rows(group)], trainer.reward_weights).tolist(),
                    columns,
                    turn,
                    trainer.state.global_step,
                    first_group + group,
                )
            )
        provider = trainer.feedback_provider
        results = collect_feedback(
            provider,
            requests,
            trainer,
            feedback_runner(trainer, provider),
            self.args.feedback_max_concurrency,
            self.args.feedback_turn_deadline,
        )
        feedback = dict.fromkeys(groups)
        feedback.update(zip(asked, self.step.prepare(provider, requests, results, rollout.counts), strict=True))
        return feedback

    def groups_to_ask(self, turn: int, groups, rollout: Rollout) -> list[int]:
        """The failed groups that get a feedback request; the others stay without feedback and end unresolved.

        With `feedback_skip_truncated`, groups whose rollouts all hit the length limit are skipped. With
        `max_feedback_groups_per_step`, groups beyond the step's budget are dropped at random, by a draw that every
        process makes alike from the gathered counts (a collective: every process calls this at every turn).
        """
        trainer, rows = self.trainer, rollout.rows
        groups = [
            group
            for group in groups
            if asks_for_feedback(
                self.step,
                [rows.completion_ids[row] for row in self.group_rows(group)],
                self.args.feedback_skip_truncated,
                rollout.counts,
            )
        ]
        if rollout.feedback_groups_left is None:
            return groups
        accelerator = trainer.accelerator
        counts = accelerator.gather(torch.tensor([len(groups)], device=accelerator.device)).tolist()
        budget, total = rollout.feedback_groups_left, sum(counts)
        rollout.feedback_groups_left = max(0, budget - total)
        if total <= budget:
            return groups
        generator = make_generator(self.args.seed, trainer.state.global_step, -turn)  # prompt indices are >= 0
        first = sum(counts[: accelerator.process_index])
        chosen = torch.randperm(total, generator=generator)[:budget].tolist()
        kept = sorted(index - first for index in chosen if first <= index < first + len(groups))
        rollout.counts["feedback/capped_groups"] += len(groups) - len(kept)
        return [groups[index] for index in kept]

    def new_episodes(self, groups):
        """Reset the environments of the groups' rows; their prompts get the text `reset()` returns, as at turn 0."""
        rows = [row for group in groups for row in self.group_rows(group)]
        for row, prompt in zip(rows, reset_episodes(self.trainer, rows, self.inputs), strict=True):
            self.prompts[row] = prompt

    def inject(self, groups, feedback) -> list[tuple[int, object, str]]:
        """`(row, context prompt, prefill)` for every row of the groups to regenerate."""
        contexts = []
        for group in groups:
            for row in self.group_rows(group):
                prompt, prefill = inject_feedback(self.prompts[row], feedback[group], self.args.feedback_injection)
                contexts.append((row, prompt, prefill))
        return contexts

    def regenerate(self, contexts, rows: Rows, rollout: Rollout):
        """One batched generation for every row that needs the next turn.

        Where generation is collective (see `Lockstep`), every process sends as many rows as the busiest one,
        padding with dummy rows; elsewhere a process generates only its own rows, or nothing. With tools, each episode
        then runs through TRL's tool loop to its end (dummy rows do not).

        Returns:
            Per regenerated row: its prompt ids, the prefill ids, the continuation ids, their tool mask (0 on tool
            results) and their sampling log-probs, and the episode's messages (None: decode the completion).
        """
        trainer = self.trainer
        regenerated_rows = [row for row, _, _ in contexts]
        plain = self.args.feedback_injection == "plain"
        if (plain or trainer.environments) and contexts:
            with batch_rows(trainer, regenerated_rows):  # a reset environment's observation is part of the prompt
                prompt_ids = regeneration_prompt_ids(
                    self.step,
                    [prompt for _, prompt, _ in contexts],
                    [self.prompts[row] for row in regenerated_rows],
                    self.args.feedback_injection,
                    lambda prompts: trainer._tokenize_prompts(prompts)[0],
                    rollout.counts,
                )
        else:
            prompt_ids = [rows.prompt_ids[row] for row in regenerated_rows]
        prefill_ids = self.step.prefill_ids([prefill for _, _, prefill in contexts], rollout.counts)
        generation_ids = [p + f for p, f in zip(prompt_ids, prefill_ids, strict=True)]
        check_fits_context(generation_ids, trainer.max_completion_length, vllm_context_length(trainer))
        num_generated = trainer.lockstep.generation_rows(len(generation_ids))
        if num_generated == 0:
            return []
        dummies_only = not generation_ids
        generation_ids += [rows.prompt_ids[0]] * (num_generated - len(generation_ids))
        device = trainer.accelerator.device
        # A process that only joins the collective keeps its random state, as where it skips the call (DDP).
        with torch.random.fork_rng(devices=[device.index or 0] if device.type == "cuda" else [], enabled=dummies_only):
            continuation_ids, logprobs = trainer._generate_single_turn(generation_ids, None, {}, self.group_size)
        logprobs = logprobs if logprobs is not None else [None] * len(continuation_ids)
        masks = [[1] * len(ids) for ids in continuation_ids]
        completions = [None] * len(continuation_ids)
        if trainer.tools:
            continuation_ids, masks, logprobs, completions, calls, failures = continue_episodes(
                trainer, contexts, prompt_ids, prefill_ids, continuation_ids, logprobs
            )
            rollout.counts["tools/calls"] += calls
            rollout.counts["tools/failures"] += failures
        return list(zip(prompt_ids, prefill_ids, continuation_ids, masks, logprobs, completions, strict=False))

    def replace_rows(self, rows: Rows, groups, new_rows, rollout: Rollout):
        """Overwrite the failed rows with the regenerated ones; the old rows become the FCO negatives."""
        trainer = self.trainer
        regenerated_rows = [row for group in groups for row in self.group_rows(group)]
        scorable = ~rollout.final_rewards_per_func[self.local_rows()].isnan().all(dim=1)  # before `rescore`
        for row, (prompt_ids, prefill_ids, continuation_ids, mask, logprobs, completion) in zip(
            regenerated_rows, new_rows, strict=False
        ):
            scored = rows.tool_mask[row]
            if trainer.mask_truncated_completions and self.step.hit_length_limit(rows.completion_ids[row]):
                scored = [0] * len(scored)  # as TRL masks a truncated row out of the loss, so for a negative
            previous_prefill = rollout.prefill_lengths.get(row, 0)
            rollout.negatives[row] = Negative(
                rows.prompt_ids[row], rows.completion_ids[row], scored, previous_prefill, bool(scorable[row])
            )
            rollout.prefill_lengths[row] = len(prefill_ids)
            rows.prompt_ids[row] = prompt_ids
            rows.completion_ids[row], rows.tool_mask[row], logprobs = self.step.regenerated_row(
                prompt_ids, prefill_ids, continuation_ids, mask, logprobs, rollout.counts
            )
            if rows.logprobs is not None:
                rows.logprobs[row] = logprobs
            if completion is not None:  # an episode's messages, from TRL's tool loop
                rows.completions[row] = completion
        self.decode(
            [row for row, new_row in zip(regenerated_rows, new_rows, strict=False) if new_row[5] is None], rows
        )

    def decode(self, decoded: list[int], rows: Rows):
        """The completions of the `decoded` rows from their ids."""
        texts = self.trainer._tokenizer.batch_decode(
            [rows.completion_ids[row] for row in decoded], skip_special_tokens=True
        )
        for row, text in zip(decoded, texts, strict=True):
            conversational = isinstance(rows.completions[row], list)
            rows.completions[row] = [{"role": "assistant", "content": text}] if conversational else text

    def replay_without_feedback(self, rollout: Rollout):
        """`feedback_replay`: the rows of every prompt trained at a feedback turn, and their FCO negatives, with the
        injected feedback cut out of the slot; the empty slot, as at turn 0, stays masked."""
        rows, slot_ids = rollout.rows, self.step.empty_slot_ids
        for group, route_ in enumerate(rollout.routes):
            if not replays_without_feedback(route_, len(rollout.histories[group]) - 1):
                continue
            for row in self.group_rows(group):
                logprobs = None if rows.logprobs is None else rows.logprobs[row]
                rows.completion_ids[row], rows.tool_mask[row], logprobs = replayed_row(
                    rows.completion_ids[row], rows.tool_mask[row], logprobs, rollout.prefill_lengths[row], slot_ids
                )
                if rows.logprobs is not None:
                    rows.logprobs[row] = logprobs
                negative = rollout.negatives[row]
                negative.completion_ids, negative.score_mask, _ = replayed_row(
                    negative.completion_ids, negative.score_mask, None, negative.prefill_length, slot_ids
                )
                negative.prefill_length = len(slot_ids) if negative.prefill_length else 0
                rollout.replayed.add(row)
        rollout.counts["replayed_rows"] = len(rollout.replayed)
        self.decode(sorted(rollout.replayed), rows)

    def rescore(self, rows: Rows, groups, rollout: Rollout, num_scored: int):
        """Score the regenerated rows, and only them: each row is scored once per turn in which it was generated.

        Every process scores `num_scored` rows (copies of its first row as padding), since TRL gathers the rewards
        (equal counts). The completions table's columns that reward functions log (`log_extra`) are merged into the
        final rows; the metrics they log (`log_metric`) stay those of turn 0, like TRL's own reward metrics.
        """
        trainer = self.trainer
        regenerated = [row for group in groups for row in self.group_rows(group)]
        scored = padded(regenerated, num_scored)
        extra_logs, metrics = trainer._pending_extra_logs, trainer._pending_metrics
        trainer._pending_extra_logs, trainer._pending_metrics = defaultdict(list), defaultdict(list)
        with batch_rows(trainer, scored):  # the environments of the scored rows, for `get_reward` and reward functions
            rewards_per_func = trainer._calculate_rewards(
                [self.inputs[row] for row in scored],
                [self.prompts[row] for row in scored],
                [rows.completions[row] for row in scored],
                [rows.completion_ids[row] for row in scored],
            )
        for column, values in trainer._pending_extra_logs.items():
            column_values = extra_logs.setdefault(column, [None] * self.num_rows)
            for row, value in zip(regenerated, values, strict=False):
                column_values[row] = value
        trainer._pending_extra_logs, trainer._pending_metrics = extra_logs, metrics
        first_row = self.local_rows().start
        positions = padded([first_row + row for row in regenerated], num_scored, filler=-1)
        positions = trainer.accelerator.gather(torch.tensor(positions, device=rewards_per_func.device))
        scored_rows = positions >= 0
        rollout.final_rewards_per_func[positions[scored_rows]] = rewards_per_func[scored_rows]
        rollout.counts["reward_rows"] += len(regenerated)
