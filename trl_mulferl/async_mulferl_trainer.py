"""MulFeRL on TRL's asynchronous GRPO: feedback turns in the rollout process, while the trainer trains.

TRL's `AsyncGRPOTrainer` trains on scored samples that a spawned rollout process generates against a vLLM server. Here
that process runs Algorithm 1 per group: a group whose K rollouts all fail is handed to a task of its own, which asks
the feedback provider, regenerates the K rollouts with the feedback prefilled (masked out of the loss, not counted in
the continuation budget), rescores them and routes the group again, while the score loop goes on with other groups.
"""

import asyncio
import logging
import pickle
import queue
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import torch
from accelerate.utils import is_peft_model
from trl.chat_template_utils import parse_response
from trl.experimental.async_grpo import AsyncGRPOTrainer
from trl.experimental.async_grpo.async_rollout_worker import (
    AsyncRolloutWorker,
    RolloutGroup,
    RolloutSample,
    TurnRecord,
    _AsyncRolloutLoop,
    _chain_to_sequences,
)
from trl.experimental.utils import create_reference_model
from trl.models.utils import prepare_fsdp
from trl.trainer.utils import get_callable_name, use_adapter

from .async_mulferl_config import AsyncMulFeRLConfig
from .async_samples import REPLAY_ADVANTAGE, MulFeRLCollator, MulFeRLQueue, fco_carriers
from .feedback import (
    FeedbackRequest,
    FeedbackTotals,
    build_feedback_provider,
    feedback_totals,
    is_batched,
    prepare_feedback,
    problem_text,
    request_feedback,
)
from .feedback.totals import TOTAL_COUNTS
from .losses import fco_pair_losses, packed_sequence_logp, replay_token_losses
from .metrics import LOGGED_ROUTES, TRAINED_ROUTES, FCOWindow
from .rewards import completion_text
from .rollout import without_prefill
from .routing import (
    GroupState,
    Route,
    group_state,
    make_generator,
    rewards_vary,
    route,
    sample_fco_pairs,
    union_advantages,
)
from .schema import control_tokens, feedback_prefill, inject_feedback
from .validation import check_dataset_columns, check_feedback_provider, resolve_args


logger = logging.getLogger(__name__)


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


# The config fields `build_feedback_provider` reads.
PROVIDER_FIELDS = tuple(
    name
    for name in AsyncMulFeRLConfig.__dataclass_fields__
    if name.startswith("feedback_") or name in ("max_feedback_length", "seed")
)

_FEEDBACK_COUNT_PREFIX = "mulferl/feedback/"


class AsyncMulFeRLTrainer(AsyncGRPOTrainer):
    """
    MulFeRL on TRL's [`~trl.experimental.async_grpo.AsyncGRPOTrainer`]: the rollout process runs Algorithm 1 per
    group, so that a failed group's feedback request and regeneration never stall training.

    A group whose K rollouts all fail gets feedback from `feedback_provider`, is regenerated with the feedback
    injected (structured: prefilled at the head of the completion, masked out of the loss), rescored and routed
    again, up to `max_feedback_turns` times, in a task of its own while the trainer trains on other groups. A prompt
    is trained on the rows of the turn that ends its trajectory: TRL's loss with its advantages on a mixed group
    (GRPO), advantage 0 on every other route. Logged: the `mulferl/*` routes, turns and feedback metrics of
    `MulFeRLTrainer` over each logging window, and the run's feedback totals at the end.

    Args:
        model, reward_funcs, args, train_dataset, processing_class, callbacks, optimizers, peft_config,
            weight_transfer: As for `AsyncGRPOTrainer`; `args` is an [`AsyncMulFeRLConfig`]. Reward functions and the
            feedback provider run in the spawned rollout process, so they must pickle (module-level functions or
            instances of module-level classes).
        feedback_provider (`Callable`, *optional*, keyword-only):
            Any callable `(prompt, completions, rewards, **columns) -> str`, sync or async (see
            `trl_mulferl.feedback`). Without it, `args.feedback_provider` selects a built-in one. Required when
            `max_feedback_turns > 0`.
    """

    _tag_names = ["trl", "async-grpo", "mulferl"]
    _name = "AsyncMulFeRL"

    def __init__(
        self,
        model: str,
        reward_funcs=None,
        args: AsyncMulFeRLConfig | None = None,
        train_dataset=None,
        processing_class=None,
        callbacks=None,
        optimizers=(None, None),
        peft_config=None,
        weight_transfer=None,
        *,
        feedback_provider=None,
    ):
        args = resolve_args(args, AsyncMulFeRLConfig, model, "AsyncMulFeRL")
        # What the rollout process gets: the caller's provider (pickled), or the fields it builds a built-in one from.
        sent_provider, feedback_fields = feedback_provider, None
        if feedback_provider is None:
            feedback_provider = build_feedback_provider(args)
            feedback_fields = SimpleNamespace(**{name: getattr(args, name) for name in PROVIDER_FIELDS})
        if args.max_feedback_turns > 0:
            check_async_feedback_provider(feedback_provider, train_dataset, args, pickled=sent_provider is not None)
        reward_funcs = (
            [] if reward_funcs is None else reward_funcs if isinstance(reward_funcs, list) else [reward_funcs]
        )
        check_dataset_columns(
            "AsyncMulFeRLTrainer", reward_funcs, [get_callable_name(f) for f in reward_funcs], train_dataset
        )
        super().__init__(
            model,
            reward_funcs,
            args=args,
            train_dataset=train_dataset,
            processing_class=processing_class,
            callbacks=callbacks,
            optimizers=optimizers,
            peft_config=peft_config,
            weight_transfer=weight_transfer,
        )
        self.feedback_provider = feedback_provider
        # Over the run, for the summary logged at the end of training; saved in checkpoints.
        self.add_callback(FeedbackTotals(args.feedback_input_token_price, args.feedback_output_token_price))
        if self.accelerator.is_main_process:
            # TRL's worker got the arguments TRL derives (eos ids, adapter name, in-flight bound); ours adds feedback.
            self.rollout_worker = MulFeRLRolloutWorker.replacing(
                self.rollout_worker,
                feedback_provider=sent_provider,
                feedback_fields=feedback_fields,
                feedback_settings=FeedbackSettings.of(args),
            )
            self.rollout_queue = self.rollout_worker.rollout_buffer
        # FCO's reference policy: the adapter-free base model under PEFT, else a frozen copy (AsyncGRPO has none).
        self.ref_model = None
        if args.fco_enabled and not is_peft_model(self.model):
            reference = create_reference_model(self.model)
            if self.is_fsdp_enabled:
                self.ref_model = prepare_fsdp(reference, self.accelerator)
            else:
                self.ref_model = self.accelerator.prepare_model(reference, evaluation_mode=True)
        self._fco_window = FCOWindow()

    def get_train_dataloader(self):
        dataloader = super().get_train_dataloader()
        if (self.args.fco_enabled or self.args.feedback_replay) and self.accelerator.is_main_process:
            # TRL builds its planner and collator inline: MulFeRL's fields are taken out of the samples before the
            # planner, and FCO carriers unfolded in the collator, so that an FCO prompt's two groups are trained in
            # one rank's row of one micro-batch.
            loader = dataloader.base_dataloader  # the torch DataLoader inside accelerate's adapter
            loader.dataset.dataset = MulFeRLQueue(loader.dataset.dataset)  # the planner's source: TRL's queue dataset
            loader.collate_fn = MulFeRLCollator(loader.collate_fn, self.args.num_generations)
        return dataloader

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        fco, replay = "mulferl_fco_pairs" in inputs, "mulferl_replay_advantages" in inputs
        if not (fco or replay):
            loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        else:
            # TRL's loss does not return its forward: MulFeRL's terms read the log-probs it computed.
            forwards = []
            hook = model.register_forward_hook(lambda module, args, output: forwards.append(output))
            try:
                loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
            finally:
                hook.remove()
            selected = inputs["token_index"] >= 0
            token_index, segment_id = inputs["token_index"][selected], inputs["segment_id"][selected]
            logps = forwards[0].log_probs.flatten()[token_index]
            if replay:
                loss = loss + self._replay_term(inputs, logps, segment_id)
            if fco:
                loss = loss + self._fco_term(model, inputs, logps, token_index, segment_id)
        if self.accelerator.sync_gradients and self._fco_window.has_pairs:  # the step's last micro-batch
            self._fco_window.flush(self._metrics["train"])
        return loss

    def _replay_term(self, inputs, logps: torch.Tensor, segment_id: torch.Tensor) -> torch.Tensor:
        """The replayed tokens' loss, normalized and scaled for gradient accumulation as TRL's term."""
        advantages = inputs["mulferl_replay_advantages"][0][segment_id]
        replayed = ~advantages.isnan()
        losses = replay_token_losses(logps[replayed], advantages[replayed], self.args.feedback_replay_shaping)
        tokens_per_rank = (inputs["global_n_tokens"][0] / self.accelerator.num_processes).clamp(min=1.0)
        return losses.sum() / tokens_per_rank / self.current_gradient_accumulation_steps

    def _fco_term(self, model, inputs, logps: torch.Tensor, token_index, segment_id: torch.Tensor) -> torch.Tensor:
        """The micro-batch's FCO term; logs its pair losses and score gaps."""
        with torch.no_grad():
            reference = self._reference_log_probs(model, inputs).flatten()[token_index]
        normalization, num_sequences = self.args.fco_score_normalization, int(segment_id.max()) + 1
        scores = packed_sequence_logp(logps, segment_id, num_sequences, normalization) - packed_sequence_logp(
            reference, segment_id, num_sequences, normalization
        )
        kept = inputs["mulferl_fco_pairs"][0, :, 0] >= 0
        pairs, weights = inputs["mulferl_fco_pairs"][0][kept], inputs["mulferl_fco_pair_weights"][0][kept]
        pair_losses = fco_pair_losses(
            scores[pairs[:, 0]], scores[pairs[:, 1]], self.args.fco_tau, self.args.fco_margin
        )
        # Each FCO prompt adds fco_weight x its mean pair loss, over the prompts of the micro-batch (every rank's:
        # data parallelism averages the ranks' gradients), scaled for gradient accumulation as TRL's term is.
        scale = self.args.fco_weight * self.accelerator.num_processes / inputs["mulferl_fco_prompts"][0]
        gaps = scores[pairs[:, 0]] - scores[pairs[:, 1]]
        self._fco_window.add(self.accelerator, pair_losses.sum().item(), gaps.sum().item(), float(len(pairs)))
        return scale * (weights * pair_losses).sum() / self.current_gradient_accumulation_steps

    def _reference_log_probs(self, model, inputs) -> torch.Tensor:
        """The reference's per-position log-probs of the packed row, from the inputs of TRL's forward."""
        packed = inputs["attention_mask"].bool()
        tree = {
            key: inputs[key][inputs[key] >= 0] for key in ("tree_kv_index", "tree_cu_seqlens_q", "tree_cu_seqlens_k")
        }
        tree["tree_max_seqlen_q"], tree["tree_max_seqlen_k"] = inputs["tree_max_seqlens"][0].tolist()
        forward = {key: inputs[key][packed].unsqueeze(0) for key in ("input_ids", "position_ids", "shift_labels")}
        if self.ref_model is not None:
            return self.ref_model(**forward, **tree, fused_lm_head=True).log_probs
        with use_adapter(self.accelerator.unwrap_model(model), adapter_name=None):
            return model(**forward, **tree, fused_lm_head=True).log_probs

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        # Drained here rather than in TRL's `log`, so that the counts the rollout process sends per group are summed
        # over the window (rates and maxima keep TRL's reductions) and added to the run's feedback totals.
        metrics, counts = self._metrics["train"], Counter()
        if self.accelerator.is_main_process and self.rollout_worker:
            while True:
                try:
                    for key, value in self.rollout_worker.metrics_queue.get_nowait().items():
                        if is_rollout_count(key, value):
                            counts[key] += value
                        else:
                            metrics[key].append(value)
                except queue.Empty:
                    break
        for key, value in counts.items():
            metrics[key] = [value]
        if self.feedback_provider is not None:
            bill = feedback_totals(self)
            bill.add(
                {f"feedback/{name}": sum(metrics.get(_FEEDBACK_COUNT_PREFIX + name, [])) for name in TOTAL_COUNTS}
            )
            if self.accelerator.is_main_process and metrics.get(_FEEDBACK_COUNT_PREFIX + "requests"):
                metrics["mulferl/feedback/cost"] = [bill.cost]
            if "train_runtime" in logs:  # the summary `train()` logs once at its end
                logs.update({f"mulferl/feedback/{name}": value for name, value in bill.summary().items()})
        # TRL's `log` drains the queue too: what arrived since would be averaged with the sums. It waits instead.
        rollout_worker, self.rollout_worker = self.rollout_worker, None
        try:
            super().log(logs, start_time)
        finally:
            self.rollout_worker = rollout_worker


def is_rollout_count(key: str, value) -> bool:
    """Whether a metric the rollout process sends is a `mulferl/*` count, summed over a logging window (not a rate,
    which TRL reduces as one, or a maximum)."""
    return key.startswith("mulferl/") and not isinstance(value, tuple) and "max" not in key.split("/")[-1].split("_")


def check_async_feedback_provider(provider, dataset, args: AsyncMulFeRLConfig, pickled: bool):
    """A provider the spawned rollout process can call: present, per-request (not batched), and picklable when it is
    `pickled` (a built-in one is built there again)."""
    if provider is None:
        raise ValueError(
            f"AsyncMulFeRLTrainer needs a `feedback_provider` when max_feedback_turns > 0 (got "
            f"{args.max_feedback_turns}). Pass feedback_provider=..., or set max_feedback_turns=0 for AsyncGRPO."
        )
    if is_batched(provider):
        raise ValueError(
            f"The feedback provider {provider!r} is batched (feedback_batch): it generates in the trainer, which "
            "the rollout process cannot call. Use a per-request provider, e.g. feedback_provider='openai' on a "
            "served model."
        )
    check_feedback_provider(provider, dataset, args)
    try:
        if pickled:
            pickle.dumps(provider)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise TypeError(
            f"The feedback provider {provider!r} runs in the spawned rollout process, so it must pickle: use a "
            "module-level function or an instance of a module-level class, not a lambda or a closure."
        ) from error
    if hasattr(provider, "check_connection"):
        provider.check_connection()  # an unreachable endpoint fails here, not mid-run


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
