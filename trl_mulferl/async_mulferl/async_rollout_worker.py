"""MulFeRL on TRL's asynchronous GRPO: feedback turns in the rollout process, while the trainer trains.

TRL's `AsyncGRPOTrainer` trains on scored samples that a spawned rollout process generates against a vLLM server. Here
that process runs Algorithm 1 per group: a group whose K rollouts all fail is handed to a task of its own, which asks
the feedback provider, regenerates the K rollouts with the feedback prefilled (masked out of the loss, not counted in
the continuation budget), rescores them and routes the group again, while the score loop goes on with other groups.
"""

import asyncio
import queue
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import torch
from trl.chat_template_utils import parse_response
from trl.experimental.async_grpo.async_rollout_worker import (
    AsyncRolloutWorker,
    RolloutGroup,
    RolloutSample,
    TurnRecord,
    _AsyncRolloutLoop,
    _chain_to_sequences,
)

from ..core.rewards import completion_text
from ..core.routing import (
    GroupState,
    Route,
    group_state,
    make_generator,
    rewards_vary,
    route,
    sample_fco_pairs,
    union_advantages,
)
from ..core.schema import control_tokens, feedback_prefill, inject_feedback
from ..feedback import (
    FeedbackRequest,
    build_feedback_provider,
    prepare_feedback,
    problem_text,
    request_feedback,
)
from ..mulferl.metrics import LOGGED_ROUTES, TRAINED_ROUTES
from ..mulferl.turn_loop import without_prefill
from .async_mulferl_config import AsyncMulFeRLConfig
from .async_samples import REPLAY_ADVANTAGE, fco_carriers


@dataclass(frozen=True)
class FeedbackSettings:
    """What the rollout process needs of an `AsyncMulFeRLConfig` (it pickles this, not the config)."""

    num_turns: int  # 1 + max_feedback_turns
    success_threshold: float
    injection: str
    max_feedback_length: int
    max_concurrency: int
    deadline: float
    skip_truncated: bool
    reference_column: str
    seed: int
    fco_pairing: str | None  # None: FCO off
    replay: bool

    @classmethod
    def of(cls, args: AsyncMulFeRLConfig) -> "FeedbackSettings":
        return cls(
            num_turns=1 + args.max_feedback_turns,
            success_threshold=args.success_threshold,
            injection=args.feedback_injection,
            max_feedback_length=args.max_feedback_length,
            max_concurrency=args.feedback_max_concurrency,
            deadline=args.feedback_turn_deadline,
            skip_truncated=args.feedback_skip_truncated,
            reference_column=args.feedback_reference_column,
            seed=args.seed,
            fco_pairing=args.fco_pairing if args.fco_enabled else None,
            replay=args.feedback_replay,
        )


@dataclass(slots=True)
class RegeneratedGroup(RolloutGroup):
    """A group regenerated with feedback: TRL's group plus what the prompt's trajectory needs of its earlier turns."""

    states: list[GroupState] = field(default_factory=list)
    previous: list[RolloutSample] = field(default_factory=list)  # the turn before's rows: FCO's negatives
    turn0_rewards: list[float] = field(default_factory=list)  # `feedback_replay`'s baseline
    prompt_length: int = 0
    prefill_length: int = 0  # of this turn's rows
    previous_prefill_length: int = 0  # of the turn before's (0 at turn 0)


class MulFeRLRolloutLoop(_AsyncRolloutLoop):
    """TRL's rollout loop with Algorithm 1 per group: routing in `_score_group`, feedback turns in tasks of their own.

    Training rows: a group's rows at the turn that ends its trajectory replace those of its earlier turns (decision
    3), with TRL's advantages on a GRPO-routed group and advantage 0 on every other route, as in `MulFeRLTrainer`.
    """

    def __init__(self, *, feedback_provider, feedback_settings: FeedbackSettings, feedback_fields, **kwargs):
        super().__init__(**kwargs)
        if self.tools or self.environment_factories is not None:
            raise ValueError("AsyncMulFeRLTrainer does not support tools or environments yet.")
        # A built-in provider is built here from the config's fields: some hold locks and clients, which do not pickle.
        self.feedback_provider = feedback_provider or build_feedback_provider(feedback_fields)
        self.settings = feedback_settings
        self._feedback_tasks: set[asyncio.Task] = set()
        self._feedback_slots: asyncio.Semaphore | None = None
        # `feedback_replay` puts it where the feedback was: the slot the policy writes at turn 0, empty.
        self._empty_slot_ids = self.tokenizer(feedback_prefill(""), add_special_tokens=False)["input_ids"]
        self._task_failure: asyncio.Future | None = None

    async def _run_loops(self, stop_event: asyncio.Event) -> None:
        # A feedback task that fails (vLLM unreachable after TRL's retries) fails the rollout process, as a failed
        # generation does; on stop, the feedback turns still running are cancelled.
        self._feedback_slots = asyncio.Semaphore(self.settings.max_concurrency)
        self._task_failure = asyncio.get_running_loop().create_future()
        loops = asyncio.ensure_future(super()._run_loops(stop_event))
        try:
            await asyncio.wait([loops, self._task_failure], return_when=asyncio.FIRST_COMPLETED)
            if self._task_failure.done():
                raise self._task_failure.exception()
            await loops
        finally:
            for task in [loops, *self._feedback_tasks]:
                task.cancel()
            await asyncio.gather(loops, *self._feedback_tasks, return_exceptions=True)

    async def _score_group(self, group: RolloutGroup) -> list[RolloutSample]:
        samples = await super()._score_group(group)
        if len(samples) != len(group.completions):  # one training row per rollout: no tools, no forks
            raise RuntimeError(
                f"Expected one training row per rollout, got {len(samples)} for {len(group.completions)}."
            )
        rewards = [sample.metrics["reward"] for sample in samples]
        states = [*getattr(group, "states", []), group_state(rewards, self.settings.success_threshold)]
        self._push_turn_metrics(rewards, states)
        decision = route(states, self.settings.num_turns, rewards_vary(rewards))
        if decision is Route.REGENERATE and self.settings.skip_truncated and self._all_truncated(group):
            self._push_metrics({"mulferl/feedback/skipped_truncated": 1.0})
            decision = Route.UNRESOLVED
        if decision is Route.REGENERATE:
            self._spawn(self._feedback_turn(group, samples, states))
            return []  # the task hands this prompt's rows to the trainer when its trajectory ends
        samples = self._finish(samples, decision)
        if self.settings.replay and decision in (Route.GRPO, Route.FCO) and len(states) > 1:
            self._replay_without_feedback(group, samples)
        if decision is Route.FCO and self.settings.fco_pairing is not None:
            return self._fco_carriers(samples, group.previous)
        return samples

    def _replay_without_feedback(self, group: "RegeneratedGroup", samples: list[RolloutSample]):
        """`feedback_replay`: the rows trained at a feedback turn, and their FCO negatives, with the injected feedback
        cut out of the slot (the empty slot, as at turn 0, masked); the rows' advantages over the union with the
        prompt's turn-0 group, for the loss's replay term (TRL's own advantage stays 0)."""
        rewards = torch.tensor([[sample.metrics["reward"] for sample in samples]])
        advantages = union_advantages(torch.tensor([group.turn0_rewards]), rewards, scale=True)[0].nan_to_num(0.0)
        for sample, advantage in zip(samples, advantages.tolist(), strict=True):
            strip_feedback(sample, group.prompt_length, group.prefill_length, self._empty_slot_ids)
            sample.advantage = 0.0
            sample.metrics[REPLAY_ADVANTAGE] = advantage
        if group.previous_prefill_length:
            for sample in group.previous:
                strip_feedback(sample, group.prompt_length, group.previous_prefill_length, self._empty_slot_ids)
        self._push_metrics({"mulferl/replayed_rows": float(len(samples))})

    def _fco_carriers(self, positives: list[RolloutSample], negatives: list[RolloutSample]) -> list[RolloutSample]:
        """The prompt's solved group, each positive carrying the negatives of its FCO pairs."""
        for sample in negatives:
            sample.advantage = 0.0
        # A group id is unique over the run: it seeds the prompt's pairing on its own.
        generator = make_generator(self.settings.seed, 0, positives[0].group_id)
        pairs = sample_fco_pairs(len(positives), self.settings.fco_pairing, generator)
        carriers, dropped = fco_carriers(positives, negatives, pairs)
        self._push_metrics({"mulferl/fco/dropped_pairs": float(dropped)})
        return carriers

    def _finish(self, samples: list[RolloutSample], decision: Route) -> list[RolloutSample]:
        """The rows of a prompt whose trajectory ends with `decision`, and its route metrics."""
        if decision is not Route.GRPO:
            for sample in samples:
                sample.advantage = 0.0
        metrics = {f"mulferl/route/{r.value}": (float(r is decision), 1.0) for r in LOGGED_ROUTES}
        if decision in TRAINED_ROUTES:
            metrics["mulferl/reward_final"] = (sum(sample.metrics["reward"] for sample in samples), len(samples))
        self._push_metrics(metrics)
        return samples

    def _push_turn_metrics(self, rewards: list[float], states: list[GroupState]):
        turn, failed = len(states) - 1, float(states[-1] == GroupState.FAILED)
        metrics = {f"mulferl/turn_{turn}/failed_groups": failed, "mulferl/reward_rows": float(len(rewards))}
        if turn == 0:
            scored = [reward for reward in rewards if reward == reward]  # not NaN
            successes = sum(reward >= self.settings.success_threshold for reward in scored)
            metrics["mulferl/turn_0/success_rate"] = (float(successes), float(len(scored)))
        else:
            metrics[f"mulferl/turn_{turn}/reached_groups"] = 1.0
            metrics[f"mulferl/turn_{turn}/escape_rate"] = (1.0 - failed, 1.0)
        self._push_metrics(metrics)

    def _all_truncated(self, group: RolloutGroup) -> bool:
        eos_and_pad = {*self.eos_token_ids, self.tokenizer.pad_token_id}
        return all(ids and ids[-1] not in eos_and_pad for ids in group.completions_ids)

    def _spawn(self, coroutine):
        task = asyncio.ensure_future(coroutine)
        self._feedback_tasks.add(task)
        task.add_done_callback(self._feedback_task_done)

    def _feedback_task_done(self, task: asyncio.Task):
        self._feedback_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None and not self._task_failure.done():
            self._task_failure.set_exception(task.exception())

    async def _feedback_turn(self, group: RolloutGroup, samples: list[RolloutSample], states: list[GroupState]):
        """One feedback turn of one failed group: ask, regenerate, rescore; then the next turn or the trainer."""
        feedback = await self._ask_for_feedback(group, samples, len(states))
        if feedback is None:  # no usable feedback: the prompt is unresolved, trained on nothing
            await self._hand_over(self._finish(samples, Route.UNRESOLVED))
            return
        regenerated = await self._regenerate(group, feedback, states, samples)
        await self._hand_over(await self._score_group(regenerated))

    async def _ask_for_feedback(self, group: RolloutGroup, samples: list[RolloutSample], turn: int) -> str | None:
        """The injected text of the feedback on the group's rollouts (sanitised, guarded, capped), or None."""
        columns = {name: values[0] for name, values in group.reward_kwargs.items()}
        request = FeedbackRequest(
            prompt=problem_text(group.prompts[0]),
            completions=[completion_text(completion) for completion in group.completions],
            rewards=[sample.metrics["reward"] for sample in samples],
            columns=columns,
            turn=turn,
            seed=self.settings.seed,
            step=self.model_version,
            prompt_index=group.group_id,
        )
        async with self._feedback_slots:
            (result,) = await request_feedback(self.feedback_provider, [request], 1, self.settings.deadline)
        counts = Counter({"feedback/requests": 1})
        if hasattr(self.feedback_provider, "pop_metrics"):  # `feedback/*` counts, e.g. retries and token usage
            counts.update(self.feedback_provider.pop_metrics())
        text, leaked = None, False
        if result.text is not None:
            prepared = prepare_feedback(
                result.text,
                columns.get(self.settings.reference_column),
                self.tokenizer,
                self.settings.max_feedback_length,
                control_tokens(self.tokenizer),
            )
            text, leaked = prepared.text, prepared.leaked
        metrics = {f"mulferl/{name}": float(value) for name, value in counts.items()}
        metrics["mulferl/feedback/errors"] = float(text is None)
        metrics["mulferl/feedback/leaks_redacted"] = float(leaked)
        metrics["mulferl/feedback/latency_s"] = (result.latency_s, 1.0)
        metrics["mulferl/feedback/latency_max_s"] = result.latency_s
        self._push_metrics(metrics)
        return text

    async def _regenerate(
        self, group: RolloutGroup, feedback: str, states: list[GroupState], previous: list[RolloutSample]
    ) -> RegeneratedGroup:
        """The group's K rollouts generated again from its prompt with the feedback injected.

        With structured injection the prefill `<thinking><feedback>...</feedback>` heads each completion with
        `output_mask` 0 (context, outside the loss) and zero log-probs; the continuation has the full
        `max_completion_length` budget.
        """
        model_version = self.model_version  # the policy these rollouts are sampled from, for their staleness
        context, prefill = inject_feedback(group.prompts[0], feedback, self.settings.injection)
        prompt_ids = self.tokenizer.apply_chat_template(
            context,
            return_dict=False,
            add_generation_prompt=True,
            chat_template=self.chat_template,
            **self.chat_template_kwargs,
        )
        prefill_ids = (
            self.tokenizer(prefill, add_special_tokens=False, split_special_tokens=True)["input_ids"]
            if prefill
            else []
        )
        started = time.monotonic()
        generations = await asyncio.gather(
            *[self._generate_one_turn(prompt_ids + prefill_ids) for _ in range(self.num_generations)]
        )
        completions, completions_ids, completions_sequences = [], [], []
        for continuation_ids, logprobs in generations:
            output_ids = prefill_ids + continuation_ids
            turn = TurnRecord(
                prompt_ids,
                output_ids,
                [0.0] * len(prefill_ids) + list(logprobs),
                [0] * len(prefill_ids) + [1] * len(continuation_ids),
            )
            sequences, tally = _chain_to_sequences([turn], uuid.uuid4().hex, self._fork_threshold_tokens)
            completions.append([parse_response(self.tokenizer, output_ids, prefix=prompt_ids)])
            completions_ids.append(output_ids)
            completions_sequences.append(sequences)
            self._total_completion_tokens += len(continuation_ids)
            self._push_rollout_metrics(
                turns=1,
                sequences=len(sequences),
                completion_ids=output_ids,
                tally=tally,
                loop_exhausted=False,
                duration_s=time.monotonic() - started,
            )
            self._push_metrics(
                {"mulferl/regenerated_tokens": float(len(prompt_ids) + len(prefill_ids) + len(continuation_ids))}
            )
        k = self.num_generations
        return RegeneratedGroup(
            prompts=list(group.prompts),
            reward_kwargs=group.reward_kwargs,
            completions=completions,
            completions_ids=completions_ids,
            completions_sequences=completions_sequences,
            tool_call_counts=[0] * k,
            tool_failure_counts=[0] * k,
            model_version=model_version,
            group_id=group.group_id,
            env_rewards=[None] * k,
            rollout_rewards=[None] * k,
            queued_at=time.monotonic(),
            states=states,
            previous=previous,
            turn0_rewards=group.turn0_rewards
            if isinstance(group, RegeneratedGroup)
            else [sample.metrics["reward"] for sample in previous],
            prompt_length=len(prompt_ids),
            prefill_length=len(prefill_ids),
            previous_prefill_length=group.prefill_length if isinstance(group, RegeneratedGroup) else 0,
        )

    async def _hand_over(self, samples: list[RolloutSample]):
        """Put a feedback task's finished rows in the trainer's queue, waiting while it is full, as the score loop
        does."""
        for sample in samples:
            while True:
                try:
                    sample.enqueued_at = time.time()
                    self.rollout_buffer.put_nowait(sample)
                    break
                except queue.Full:
                    await asyncio.sleep(0.1)


class MulFeRLRolloutWorker(AsyncRolloutWorker):
    """TRL's rollout worker, running `MulFeRLRolloutLoop` in its spawned process."""

    _loop_cls = MulFeRLRolloutLoop

    @classmethod
    def replacing(cls, worker: AsyncRolloutWorker, **loop_kwargs) -> "MulFeRLRolloutWorker":
        """A worker with the loop arguments TRL's trainer gave `worker`, and `loop_kwargs`."""
        kwargs = {**worker._loop_kwargs, **loop_kwargs}
        return cls(queue_maxsize=kwargs.pop("queue_maxsize"), **kwargs)


def strip_feedback(sample: RolloutSample, prompt_length: int, prefill_length: int, slot_ids: list[int]):
    """`sample`'s training row with the `prefill_length` tokens of injected feedback after its prompt replaced by the
    empty slot `slot_ids` (mask 0, log-prob 0), in place."""
    completion = slice(prompt_length, None)
    ids, mask = without_prefill(
        sample.input_ids[completion].tolist(), sample.completion_mask[completion].tolist(), prefill_length, slot_ids
    )
    logps = [0.0] * len(slot_ids) + sample.old_log_probs[prompt_length + prefill_length :].tolist()
    sample.input_ids = np.concatenate([sample.input_ids[:prompt_length], np.asarray(ids, dtype=np.int64)])
    sample.completion_mask = np.concatenate([sample.completion_mask[:prompt_length], np.asarray(mask, dtype=np.int64)])
    sample.old_log_probs = np.concatenate([sample.old_log_probs[:prompt_length], np.asarray(logps, dtype=np.float32)])
