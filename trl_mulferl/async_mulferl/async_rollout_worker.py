"""The rollout process of `AsyncMulFeRLTrainer`: TRL's asynchronous rollout loop with Algorithm 1 per group.

TRL's `AsyncGRPOTrainer` trains on scored samples that a spawned rollout process generates against a vLLM server. Here
that process routes each scored group; a group whose K rollouts all fail is handed to a task of its own, which runs
the per-group feedback step (`trl_mulferl.feedback.step`): it asks the feedback provider, regenerates the K
rollouts with the feedback prefilled (masked out of the loss, not counted in the continuation budget), rescores them
and routes the group again, while the score loop goes on with other groups. A prompt's trajectory holds a generation
place of the pipeline's budget (`pipeline`) while it is generated and its rows wait for the trainer, and a feedback
slot while it waits for feedback; its rows are as old as the policy that (re)generated them, and its feedback as old
as the attempt it critiques.
"""

import asyncio
import functools
import queue
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from trl.chat_template_utils import parse_response
from trl.experimental.async_grpo.async_rollout_worker import (
    AsyncRolloutWorker,
    RolloutGroup,
    RolloutSample,
    TurnRecord,
    _AsyncRolloutLoop,
    _chain_to_sequences,
)

from ..core.metrics import (
    EXPIRED_FEEDBACK,
    FCO_DROPPED_PAIRS,
    FEEDBACK_AGE,
    FEEDBACK_AGE_MAX,
    FEEDBACK_SLOTS_MAX,
    FEEDBACK_TASKS_MAX,
    LAST_WINDOW,
    OPEN_TRAJECTORIES_MAX,
    OVER_CONTEXT,
    REPLAYED_ROWS,
    REWARD_ROWS,
    ROUTE,
    SCHEMA_NONCOMPLIANT,
    TURN0_GROUPS,
    TURN0_REWARDS,
    feedback_metrics,
    turn_metric,
)
from ..core.rewards import schema_noncompliant_rows
from ..core.routing import GroupState, Route, group_state, rewards_vary, route
from ..core.schema import inject_feedback
from ..feedback import build_feedback_provider, request_feedback
from ..feedback.protocol import in_daemon_thread, warn_once
from ..feedback.step import FeedbackStep, FeedbackStepSettings, check_fits_context
from ..feedback.turn import asks_for_feedback, regeneration_prompt_ids, replays_without_feedback
from .async_mulferl_config import AsyncMulFeRLConfig
from .async_samples import fco_carriers, replay_without_feedback
from .metrics import MetricWindow
from .pipeline import PipelineClosed, RolloutBudget, TrainerProgress


# How often the rollout process sends its window of MulFeRL metrics to the trainer.
METRICS_INTERVAL_S = 1.0
# vLLM serves lower values first under `--scheduling-policy priority` (turn-0 requests have 0); FCFS ignores it.
REGENERATION_PRIORITY = -1


@dataclass(frozen=True)
class FeedbackSettings(FeedbackStepSettings):
    """What the rollout process needs of an `AsyncMulFeRLConfig` (it pickles this, not the config): the feedback
    step's settings, and those of the turns and the pipeline, with the config's names."""

    num_turns: int  # 1 + max_feedback_turns
    success_threshold: float
    feedback_injection: str
    feedback_max_concurrency: int
    feedback_turn_deadline: float
    feedback_skip_truncated: bool
    feedback_replay: bool
    max_open_trajectories: int
    max_feedback_age: int

    @classmethod
    def of(cls, args: AsyncMulFeRLConfig) -> "FeedbackSettings":
        return cls(
            **asdict(FeedbackStepSettings.of(args)),
            num_turns=1 + args.max_feedback_turns,
            success_threshold=args.success_threshold,
            feedback_injection=args.feedback_injection,
            feedback_max_concurrency=args.feedback_max_concurrency,
            feedback_turn_deadline=args.feedback_turn_deadline,
            feedback_skip_truncated=args.feedback_skip_truncated,
            feedback_replay=args.feedback_replay,
            max_open_trajectories=args.max_open_trajectories,
            max_feedback_age=args.max_feedback_age,
        )


def regeneration_session():
    """The aiohttp session regenerations are sent on, with no limit of connections: the places and slots bound
    them."""
    import aiohttp  # with vLLM, as TRL's rollout worker imports it: the package imports without it

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))


def turn0_reward_metrics(sample: RolloutSample) -> dict[str, float]:
    """A turn-0 row's metrics that TRL's trainer logs as its `reward` metrics, for the rows that end its prompt's
    trajectory at a feedback turn to carry (decision 9)."""
    return {
        key: value
        for key, value in sample.metrics.items()
        if key in ("reward", "reward_std") or key.startswith("rewards/")
    }


@dataclass(slots=True)
class RegeneratedGroup(RolloutGroup):
    """A group regenerated with feedback: TRL's group plus what the prompt's trajectory needs of its earlier turns."""

    states: list[GroupState] = field(default_factory=list)
    previous: list[RolloutSample] = field(default_factory=list)  # the turn before's rows: FCO's negatives
    turn0_metrics: list[dict] = field(default_factory=list)  # per row, turn 0's `turn0_reward_metrics`
    prompt_length: int = 0
    prefill_length: int = 0  # of this turn's rows
    previous_prefill_length: int = 0  # of the turn before's (0 at turn 0)


class MulFeRLRolloutLoop(_AsyncRolloutLoop):
    """TRL's rollout loop with Algorithm 1 per group: routing in `_score_group`, feedback turns in tasks of their own.

    Training rows: only the rows of the turn that ends a group's trajectory reach the trainer, in place of its earlier
    turns' (decision 3), with TRL's advantages on a GRPO-routed group and advantage 0 on every other route, as in
    `MulFeRLTrainer`; TRL's reward metrics of the rows are turn 0's (decision 9).
    """

    def __init__(
        self,
        *,
        feedback_provider,
        feedback_settings: FeedbackSettings,
        feedback_fields,
        trainer_progress: TrainerProgress,
        **kwargs,
    ):
        super().__init__(**kwargs)
        # A built-in provider is built here from the config's fields: some hold locks and clients, which do not pickle.
        self.feedback_provider = feedback_provider or build_feedback_provider(feedback_fields)
        self.settings = feedback_settings
        self.feedback_step = FeedbackStep(feedback_settings, self.tokenizer, self.eos_token_ids)
        self._feedback_tasks: set[asyncio.Task] = set()
        self._feedback_slots: asyncio.Semaphore | None = None
        self._task_failure: asyncio.Future | None = None
        self._stopping: asyncio.Event | None = None
        self._server_context: int | None = None  # the server's max_model_len, asked at the first feedback turn
        self._window = MetricWindow()
        self.trainer_progress = trainer_progress
        self.budget = RolloutBudget(
            self.num_generations,
            feedback_settings.max_open_trajectories,
            feedback_settings.max_feedback_age,
            trainer_progress,
        )
        self.trajectories = self.budget.trajectories
        # Regenerations' requests: TRL's session holds `max_inflight_tasks` connections, all of which turn-0 rollouts
        # may take.
        self._regeneration_session = None

    async def _run_loops(self, stop_event: asyncio.Event) -> None:
        # A feedback task that fails (vLLM unreachable after TRL's retries) fails the rollout process, as a failed
        # generation does, unless training is ending (TRL closes its HTTP session then); on stop, the feedback turns
        # still running are cancelled, and the last window of metrics is sent.
        self._feedback_slots = asyncio.Semaphore(self.settings.feedback_max_concurrency)
        self._task_failure = asyncio.get_running_loop().create_future()
        self._stopping = stop_event
        self._regeneration_session = regeneration_session()
        loops = asyncio.ensure_future(super()._run_loops(stop_event))
        sender = asyncio.ensure_future(self._send_metrics_until(stop_event))
        try:
            await asyncio.wait([loops, self._task_failure], return_when=asyncio.FIRST_COMPLETED)
            if self._task_failure.done():
                raise self._task_failure.exception()
            await loops
        finally:
            for task in [loops, sender, *self._feedback_tasks]:
                task.cancel()
            await asyncio.gather(loops, sender, *self._feedback_tasks, return_exceptions=True)
            await self._regeneration_session.close()
            await self._send_last_window()
            # Rows still in the queue's pipe when training ends are never trained; flushing them at exit would hold
            # this process until TRL terminates it, since the trainer reads no more.
            self.rollout_buffer.cancel_join_thread()

    async def _send_metrics_until(self, stop_event: asyncio.Event):
        """Send the window of metrics every `METRICS_INTERVAL_S` until `stop_event`."""
        while not stop_event.is_set():
            self._window.send(self._metrics_queue)
            await asyncio.sleep(METRICS_INTERVAL_S)

    async def _send_last_window(self):
        """Send the last window, marked `LAST_WINDOW`, waiting up to 10 s for the trainer to make room."""
        self._window.add({LAST_WINDOW: 1.0})
        for _ in range(100):
            if self._window.send(self._metrics_queue):
                return
            await asyncio.sleep(0.1)

    async def _generate_loop(self, stop_event: asyncio.Event) -> None:
        # TRL's loop ends on stop once its rollouts in flight are done; one waiting for a place ends it at once.
        try:
            await super()._generate_loop(stop_event)
        except PipelineClosed:
            pass

    async def _generate_one(self, prompt, tool_dict, tools, group_id: int = 0):
        # The place is taken here, not in TRL's generate loop (which starts a group's K rollouts inline): a rollout
        # of a prompt not yet open waits for one, holding TRL's in-flight slot but no request to the server.
        places = await self.budget.open(group_id, self._stopping, self.model_version)
        if places is not None:
            self._window.add({TURN0_GROUPS: 1.0, OPEN_TRAJECTORIES_MAX: float(places)})
        return await super()._generate_one(prompt, tool_dict, tools, group_id)

    async def _score_group(self, group: RolloutGroup) -> list[RolloutSample]:
        if not isinstance(group, RegeneratedGroup):
            # Its rollouts started when its trajectory opened, which may be later than TRL made the group.
            group.model_version = self.budget.turn0_versions.pop(group.group_id)
        samples = await super()._score_group(group)
        if len(samples) != len(group.completions):  # one training row per rollout: no tools, no forks
            raise RuntimeError(
                f"Expected one training row per rollout, got {len(samples)} for {len(group.completions)}."
            )
        rewards = [sample.metrics["reward"] for sample in samples]
        states = [*getattr(group, "states", []), group_state(rewards, self.settings.success_threshold)]
        self._push_turn_metrics(rewards, states, group.completions)
        decision = route(states, self.settings.num_turns, rewards_vary(rewards))
        counts = Counter()
        skip_truncated = self.settings.feedback_skip_truncated
        if decision is Route.REGENERATE and not asks_for_feedback(
            self.feedback_step, group.completions_ids, skip_truncated, counts
        ):
            self._window.add(feedback_metrics(counts))
            decision = Route.UNRESOLVED
        if decision is Route.REGENERATE:
            self._spawn(self._feedback_turn(group, samples, states))
            return []  # the task hands this prompt's rows to the trainer when its trajectory ends
        return self._end_trajectory(group, samples, decision)

    def _end_trajectory(self, group: RolloutGroup, samples: list[RolloutSample], decision: Route) -> list:
        """The rows the trainer gets of a prompt whose trajectory ends with `decision` at `group`'s turn, each with
        its route (the trainer logs the routes of the rows it trains: TRL may drop rows as stale)."""
        rows = self._trajectory_rows(group, samples, decision)
        self.trajectories.close(group.group_id, len(rows))
        return rows

    def _trajectory_rows(self, group: RolloutGroup, samples: list[RolloutSample], decision: Route) -> list:
        for sample in samples:
            sample.metrics[ROUTE] = decision.value
            if decision is not Route.GRPO:
                sample.advantage = 0.0
        if not isinstance(group, RegeneratedGroup):
            return samples
        for sample, metrics in zip(samples, group.turn0_metrics, strict=True):
            sample.metrics[TURN0_REWARDS] = metrics
        turn = len(group.states)  # a regenerated group's states are those of the turns before its own
        if self.settings.feedback_replay and replays_without_feedback(decision, turn):
            replay_without_feedback(group, samples, self.feedback_step.empty_slot_ids, self.tokenizer)
            self._window.add({REPLAYED_ROWS: float(len(samples))})
        if decision is Route.FCO and self.settings.fco_pairing is not None:
            return self._fco_carriers(group, samples)
        return samples

    def _fco_carriers(self, group: "RegeneratedGroup", positives: list[RolloutSample]) -> list[RolloutSample]:
        """The prompt's solved group, each positive carrying the negatives of its FCO pairs."""
        negatives = group.previous
        for sample in negatives:
            sample.advantage = 0.0
        # A group id is unique over the run: it seeds the prompt's pairing on its own.
        pairs = self.feedback_step.fco_pairs(len(positives), 0, positives[0].group_id)
        carriers, dropped = fco_carriers(positives, negatives, pairs)
        self._window.add({FCO_DROPPED_PAIRS: float(dropped)})
        return carriers

    def _push_turn_metrics(self, rewards: list[float], states: list[GroupState], completions: list):
        turn, failed = len(states) - 1, float(states[-1] == GroupState.FAILED)
        metrics = {turn_metric(turn, "failed_groups"): failed, REWARD_ROWS: float(len(rewards))}
        if turn == 0:
            metrics[SCHEMA_NONCOMPLIANT] = float(schema_noncompliant_rows(completions)) if failed else 0.0
            scored_rewards = [reward for reward in rewards if reward == reward]  # not NaN
            successes = sum(reward >= self.settings.success_threshold for reward in scored_rewards)
            metrics[turn_metric(0, "success_rate")] = (float(successes), float(len(scored_rewards)))
            metrics[turn_metric(0, "varied_groups")] = float(rewards_vary(rewards))
        else:
            metrics[turn_metric(turn, "reached_groups")] = 1.0
            metrics[turn_metric(turn, "escape_rate")] = (1.0 - failed, 1.0)
        self._window.add(metrics)

    def _spawn(self, coroutine):
        task = asyncio.ensure_future(coroutine)
        self._feedback_tasks.add(task)
        task.add_done_callback(self._feedback_task_done)
        self._window.add({FEEDBACK_TASKS_MAX: float(len(self._feedback_tasks))})

    def _feedback_task_done(self, task: asyncio.Task):
        self._feedback_tasks.discard(task)
        if task.cancelled() or task.exception() is None or self._stopping.is_set():
            return  # as training ends, a regeneration may meet the HTTP session TRL closes: no failure
        if not self._task_failure.done():
            self._task_failure.set_exception(task.exception())

    async def _feedback_turn(self, group: RolloutGroup, samples: list[RolloutSample], states: list[GroupState]):
        """One feedback turn of one failed group: wait for a feedback slot (holding its generation place, so that a
        full feedback pipeline holds back new prompts), ask, regenerate, rescore; then the next turn or the trainer."""
        counts = Counter()
        request = self.feedback_step.request(
            group.prompts[0],
            group.completions,
            [sample.metrics["reward"] for sample in samples],
            {name: values[0] for name, values in group.reward_kwargs.items()},
            turn=len(states),
            step=self.model_version,
            prompt_index=group.group_id,
        )
        async with self._feedback_slots:
            if self.budget.expired(group.model_version, self.model_version):  # while it waited for a slot
                self._expire(group)
                return
            self.trajectories.to_feedback(group.group_id)
            self._window.add({FEEDBACK_SLOTS_MAX: float(len(self.trajectories.waiting_for_feedback))})
            asked = time.monotonic()
            try:
                results = await request_feedback(
                    self.feedback_provider, [request], 1, self.settings.feedback_turn_deadline
                )
                # The leak guard can take a CPU-second on a long reply: in a thread, off the loop that generates and
                # scores.
                prepare = functools.partial(
                    self.feedback_step.prepare, self.feedback_provider, [request], results, counts
                )
                (feedback,) = await in_daemon_thread(prepare)
            except asyncio.CancelledError:  # training ended mid-request: the request was made all the same
                waited = time.monotonic() - asked
                cut_short = {"feedback/requests": 1, "feedback/errors": 1}
                self._window.add(
                    feedback_metrics({**cut_short, "feedback/latency_sum": waited, "feedback/latency_max": waited})
                )
                raise
            finally:
                self.trajectories.feedback_done(group.group_id)
        self._window.add(feedback_metrics(counts))
        if feedback is None:  # no usable feedback: the prompt is unresolved, trained on nothing
            await self._hand_over(self._end_trajectory(group, samples, Route.UNRESOLVED))
            return
        await self.budget.take_place(group.group_id)
        # While its feedback was written, or it waited for a place.
        if self.budget.expired(group.model_version, self.model_version):
            self._expire(group)
            return
        age = float(self.model_version - group.model_version)
        self._window.add({FEEDBACK_AGE: (age, 1.0), FEEDBACK_AGE_MAX: age})
        regenerated = await self._regenerate(group, feedback, states, samples)
        if regenerated is None:  # the feedback turn does not fit the server's context: unresolved, as without feedback
            self._window.add({OVER_CONTEXT: 1.0})
            await self._hand_over(self._end_trajectory(group, samples, Route.UNRESOLVED))
            return
        await self._hand_over(await self._score_group(regenerated))

    def _expire(self, group: RolloutGroup):
        self.trajectories.close(group.group_id, 0)
        self._window.add({EXPIRED_FEEDBACK: 1.0})

    def _prompts_ids(self, prompts: list) -> list[list[int]]:
        """The prompts' ids as TRL's rollout worker makes them: the chat template with the generation prompt."""
        return [
            self.tokenizer.apply_chat_template(
                prompt,
                return_dict=False,
                add_generation_prompt=True,
                chat_template=self.chat_template,
                **self.chat_template_kwargs,
            )
            for prompt in prompts
        ]

    async def _max_model_len(self) -> int:
        """The server's context (prompt and completion), asked once."""
        if self._server_context is None:
            async with self.session.get(f"{self.vllm_server_url}/v1/models") as response:
                response.raise_for_status()
                self._server_context = (await response.json())["data"][0]["max_model_len"]
        return self._server_context

    async def _regenerate(
        self, group: RolloutGroup, feedback: str, states: list[GroupState], previous: list[RolloutSample]
    ) -> RegeneratedGroup | None:
        """The group's K rollouts generated again from its prompt with the feedback injected; None where the prompt
        and the feedback leave fewer than `max_completion_length` tokens of the server's context.

        With structured injection the prefill `<thinking><feedback>...</feedback>` heads each completion with
        `output_mask` 0 (context, outside the loss) and zero log-probs; the continuation has the full
        `max_completion_length` budget.
        """
        counts = Counter()
        version = self.model_version  # of the policy that samples the regenerated tokens
        injection = self.settings.feedback_injection
        context, prefill = inject_feedback(group.prompts[0], feedback, injection)
        (prompt_ids,) = regeneration_prompt_ids(
            self.feedback_step, [context], [group.prompts[0]], injection, self._prompts_ids, counts
        )
        (prefill_ids,) = self.feedback_step.prefill_ids([prefill], counts)
        try:
            setting = "the server's --max-model-len"
            check_fits_context([prompt_ids + prefill_ids], self.max_tokens, await self._max_model_len(), setting)
        except ValueError as error:
            # A failing rollout process would stop the run; only this prompt's feedback turn is lost.
            warn_once(f"{error} Until then such groups end unresolved ({OVER_CONTEXT}).")
            self._window.add(feedback_metrics(counts))
            return None
        started = time.monotonic()
        generations = await self._generate_group_turn(prompt_ids + prefill_ids)
        completions, completions_ids, completions_sequences = [], [], []
        for continuation_ids, logprobs in generations:
            output_ids, mask, logprobs = self.feedback_step.regenerated_row(
                prompt_ids, prefill_ids, continuation_ids, [1] * len(continuation_ids), logprobs, counts
            )
            turn = TurnRecord(prompt_ids, output_ids, logprobs, mask)
            sequences, tally = _chain_to_sequences([turn], uuid.uuid4().hex, self._fork_threshold_tokens)
            completions.append([parse_response(self.tokenizer, output_ids, prefix=prompt_ids)])
            completions_ids.append(output_ids)
            completions_sequences.append(sequences)
            # TRL's own count of generated tokens (`rollout/generated_tok_s`) takes the regenerated ones too.
            self._total_completion_tokens += len(continuation_ids)
            self._push_rollout_metrics(
                turns=1,
                sequences=len(sequences),
                completion_ids=output_ids,
                tally=tally,
                loop_exhausted=False,
                duration_s=time.monotonic() - started,
            )
        self._window.add(feedback_metrics(counts))
        k = self.num_generations
        return RegeneratedGroup(
            prompts=list(group.prompts),
            reward_kwargs=group.reward_kwargs,
            completions=completions,
            completions_ids=completions_ids,
            completions_sequences=completions_sequences,
            tool_call_counts=[0] * k,
            tool_failure_counts=[0] * k,
            model_version=version,  # the trained tokens' staleness counts from their (re)generation
            group_id=group.group_id,
            env_rewards=[None] * k,
            rollout_rewards=[None] * k,
            queued_at=time.monotonic(),
            states=states,
            previous=previous,
            turn0_metrics=group.turn0_metrics
            if isinstance(group, RegeneratedGroup)
            else [turn0_reward_metrics(sample) for sample in previous],
            prompt_length=len(prompt_ids),
            prefill_length=len(prefill_ids),
            previous_prefill_length=group.prefill_length if isinstance(group, RegeneratedGroup) else 0,
        )

    async def _generate_group_turn(self, prompt_ids: list[int]) -> list[tuple[list[int], list[float]]]:
        """A regenerated group's K continuations of `prompt_ids`, sampled as TRL's `_generate_one_turn` samples one,
        in one request served before turn-0 work (`REGENERATION_PRIORITY`): vLLM seeds its K samples `seed + i`,
        independent."""
        payload = {
            "model": self._request_model,
            "prompt": prompt_ids,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "repetition_penalty": self.repetition_penalty,
            "n": self.num_generations,
            "return_token_ids": True,
            "logprobs": 0,
            "seed": random.getrandbits(62),  # below 2**63 with the K - 1 vLLM adds
            "priority": REGENERATION_PRIORITY,
        }
        if self.min_p is not None:
            payload["min_p"] = self.min_p

        async def post() -> dict:
            url = f"{self.vllm_server_url}/v1/completions"
            async with self._regeneration_session.post(url, json=payload, timeout=self.request_timeout) as response:
                response.raise_for_status()
                return await response.json()

        output = await self._retry(post, max_attempts=30, label="vllm /v1/completions")
        choices = sorted(output["choices"], key=lambda choice: choice["index"])
        return [(choice["token_ids"], choice["logprobs"]["token_logprobs"]) for choice in choices]

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

    def stop_reading_metrics(self, take: Callable[[dict], bool], timeout: float = 15.0):
        """TRL's `stop`, reading the metrics queue while the rollout process stops, each entry handed to `take`
        (True on the last window): the process sends its last counts as it stops, and TRL's `stop` joins it without
        reading, which a full queue would hold up."""
        if self._process is None:
            return
        self._stop_event_mp.set()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if take(self.metrics_queue.get(timeout=0.1)):
                    break
            except queue.Empty:
                if not self._process.is_alive():
                    break
        self.stop()
