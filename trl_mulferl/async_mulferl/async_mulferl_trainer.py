"""`AsyncMulFeRLTrainer`: MulFeRL on TRL's asynchronous GRPO. The rollout process (`async_rollout_worker`) runs the
feedback turns while this trainer trains; here, the FCO and replay terms of the loss and the `mulferl/*` logging."""

import os
import pickle
import queue
from collections import Counter
from dataclasses import fields
from types import SimpleNamespace

import torch
from accelerate.utils import is_peft_model
from trl.experimental.async_grpo import AsyncGRPOTrainer
from trl.experimental.utils import create_reference_model
from trl.models.utils import prepare_fsdp
from trl.trainer.utils import get_callable_name, use_adapter

from ..core.losses import fco_pair_losses, packed_sequence_logp, replay_token_losses
from ..core.metrics import (
    LAST_WINDOW,
    LOGGED_ROUTES,
    REGENERATED_TOKENS,
    FCOWindow,
    SchemaFailures,
    drop_empty_windows,
    feedback_metric,
    log_feedback_bill,
    log_run_summary,
    route_metric,
    turn_metric,
)
from ..core.model_card import trainer_model_card
from ..core.totals import FeedbackTotals, feedback_totals
from ..core.validation import check_dataset_columns, check_prompts_ask_for_schema, resolve_args
from ..feedback import build_feedback_provider, is_batched
from ..feedback.arguments import FeedbackArguments
from ..feedback.checks import check_provider_at_start
from ..mulferl.mulferl_trainer import MulFeRLTrainer
from .async_mulferl_config import AsyncMulFeRLConfig
from .async_rollout_worker import FeedbackSettings, MulFeRLRolloutWorker
from .async_samples import MulFeRLCollator, MulFeRLQueue, planning_the_run
from .metrics import is_maximum
from .pipeline import CountingQueue, TrainerProgress, feedback_requests_per_group


# What the rollout process builds a built-in provider from (`build_feedback_provider`): the feedback arguments and the
# seed.
PROVIDER_FIELDS = (*(f.name for f in fields(FeedbackArguments)), "seed")


class AsyncMulFeRLTrainer(AsyncGRPOTrainer):
    """
    [`~trl.experimental.async_grpo.AsyncGRPOTrainer`] with MulFeRL's feedback turns in its rollout process: a group
    whose K rollouts all fail is regenerated with verbal feedback in a task of its own while training goes on, and the
    loss adds FCO's pairs (and `feedback_replay`'s rows) to TRL's.

    A group whose K rollouts all fail gets feedback from `feedback_provider`, is regenerated with the feedback
    injected (structured: prefilled at the head of the completion, masked out of the loss), rescored and routed
    again, up to `max_feedback_turns` times, in a task of its own while the trainer trains on other groups. A prompt
    is trained on the rows of the turn that ends its trajectory: TRL's loss with its advantages on a mixed group
    (GRPO), advantage 0 on every other route. Logged: the `mulferl/*` routes, turns and feedback metrics of
    `MulFeRLTrainer` over each logging window, and the run's summary at the end (what feedback bought and cost).

    Args:
        model, reward_funcs, args, train_dataset, processing_class, callbacks, optimizers, peft_config,
            weight_transfer: As for `AsyncGRPOTrainer`, in its order; `args` is an [`AsyncMulFeRLConfig`]. Reward
            functions and the feedback provider run in the spawned rollout process, so they must pickle
            (module-level functions or instances of module-level classes).
        tools, environment_factory, rollout_worker: `AsyncGRPOTrainer`'s, refused: not supported yet.
        feedback_provider (`Callable`, *optional*, keyword-only):
            Any callable `(prompt, completions, rewards, **columns) -> str`, sync or async (see
            `trl_mulferl.feedback`). Without it, `args.feedback_provider` selects a built-in one. Required when
            `max_feedback_turns > 0`.
    """

    _tag_names = ["trl", "async-grpo", "mulferl"]
    _name = "AsyncMulFeRL"
    _paper = MulFeRLTrainer._paper

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
        tools=None,
        environment_factory=None,
        rollout_worker=None,
        weight_transfer=None,
        *,
        feedback_provider=None,
    ):
        unsupported = {"tools": tools, "environment_factory": environment_factory, "rollout_worker": rollout_worker}
        if given := [name for name, value in unsupported.items() if value is not None]:
            raise ValueError(
                f"AsyncMulFeRLTrainer does not support {', '.join(given)} yet: its rollout process runs MulFeRL's "
                "feedback turns on single-turn rollouts. Use MulFeRLTrainer for tools and environments."
            )
        args = resolve_args(args, AsyncMulFeRLConfig, model, "AsyncMulFeRL")
        # What the rollout process gets: the caller's provider (pickled), or the fields it builds a built-in one from.
        sent_provider, feedback_fields = feedback_provider, None
        if feedback_provider is None:
            feedback_provider = build_feedback_provider(args)
            feedback_fields = SimpleNamespace(**{name: getattr(args, name) for name in PROVIDER_FIELDS})
            # Little's law: the OpenAI provider's requests in flight are its groups' reviews and merges.
            feedback_fields.feedback_max_concurrency *= feedback_requests_per_group(
                args.num_generations, args.feedback_group_size
            )
        schema_rewards = check_prompts_ask_for_schema(reward_funcs, train_dataset, args)
        check_provider_at_start(
            feedback_provider,
            train_dataset,
            args,
            "AsyncMulFeRLTrainer",
            "AsyncGRPO",
            [refuse_batched_provider] + ([check_provider_pickles] if sent_provider is not None else []),
        )
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
        # Over the run, for the summary at the end of training; saved in checkpoints.
        self.add_callback(FeedbackTotals(args.feedback_input_token_price, args.feedback_output_token_price))
        self.trainer_progress = None
        if self.accelerator.is_main_process:
            fixed_count = args.token_budget == 0  # else TRL's token budget packs a micro-batch's rows
            self.trainer_progress = TrainerProgress(
                args.gradient_accumulation_steps,
                args.per_device_train_batch_size * self.accelerator.num_processes if fixed_count else None,
                args.num_generations,
                self._epoch_groups_to_train,
            )
            self.add_callback(self.trainer_progress)
            # TRL's worker got the arguments TRL derives (eos ids, adapter name, in-flight bound); ours adds feedback.
            self.rollout_worker = MulFeRLRolloutWorker.replacing(
                self.rollout_worker,
                feedback_provider=sent_provider,
                feedback_fields=feedback_fields,
                feedback_settings=FeedbackSettings.of(args),
                trainer_progress=self.trainer_progress,
            )
            self.rollout_queue = CountingQueue(self.rollout_worker.rollout_buffer, self.trainer_progress)
        # FCO's reference policy: the adapter-free base model under PEFT, else a frozen copy (AsyncGRPO has none).
        self.ref_model = None
        if args.fco_enabled and not is_peft_model(self.model):
            reference = create_reference_model(self.model)
            if self.is_fsdp_enabled:
                self.ref_model = prepare_fsdp(reference, self.accelerator)
            else:
                self.ref_model = self.accelerator.prepare_model(reference, evaluation_mode=True)
        self._fco_window = FCOWindow()
        self._schema_failures = SchemaFailures(schema_rewards, args.num_generations)

    def get_train_dataloader(self):
        dataloader = super().get_train_dataloader()
        if self.accelerator.is_main_process:
            # TRL builds its planner and collator inline: MulFeRL's fields are taken out of the samples before the
            # planner (TRL's reward metrics made turn 0's, the routes of the trained rows logged), FCO carriers priced
            # with their negatives under a token budget, and unfolded in the collator, so that an FCO prompt's two
            # groups are trained in one rank's row of one micro-batch.
            loader = dataloader.base_dataloader  # the torch DataLoader inside accelerate's adapter
            planner = planning_the_run(loader.dataset, self.trainer_progress)
            planner.dataset = MulFeRLQueue(
                planner.dataset, self._metrics["train"], self.args.num_generations, self.trainer_progress
            )
            loader.collate_fn = MulFeRLCollator(loader.collate_fn, self.args.num_generations)
        return dataloader

    def _epoch_groups_to_train(self) -> int | None:
        """The prompts an epoch stop still trains in this call of `train` (None: the run ends at `max_steps`)."""
        if self._epoch_stop_groups is None:
            return None
        return self._epoch_stop_groups - self._groups_before_resume

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
            forward_logps = forwards[0].log_probs.flatten()
            if replay:
                loss = loss + self._replay_term(inputs, forward_logps[token_index], segment_id)
            if fco:
                loss = loss + self._fco_term(model, inputs, forward_logps, token_index, segment_id)
        if self.accelerator.sync_gradients and self._fco_window.has_pairs:  # the step's last micro-batch
            self._fco_window.flush(self._metrics["train"], feedback_totals(self))
        return loss

    def _replay_term(self, inputs, logps: torch.Tensor, segment_id: torch.Tensor) -> torch.Tensor:
        """The replayed tokens' loss, normalized and scaled for gradient accumulation as TRL's term."""
        advantages = inputs["mulferl_replay_advantages"][0][segment_id]
        replayed = ~advantages.isnan()
        losses = replay_token_losses(logps[replayed], advantages[replayed], self.args.feedback_replay_shaping)
        tokens_per_rank = (inputs["global_n_tokens"][0] / self.accelerator.num_processes).clamp(min=1.0)
        return losses.sum() / tokens_per_rank / self.current_gradient_accumulation_steps

    def _fco_term(
        self, model, inputs, forward_logps: torch.Tensor, token_index: torch.Tensor, segment_id: torch.Tensor
    ) -> torch.Tensor:
        """The micro-batch's FCO term, over TRL's loss terms and the negatives' (which TRL's loss does not see); logs
        its pair losses and score gaps."""
        negatives = inputs["mulferl_negative_token_index"][0] >= 0
        token_index = torch.cat([token_index, inputs["mulferl_negative_token_index"][0][negatives]])
        segment_id = torch.cat([segment_id, inputs["mulferl_negative_segment_id"][0][negatives]])
        logps = forward_logps[token_index]
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

    def create_model_card(self, model_name=None, dataset_name=None, tags=None):
        """Writes the model card, README.md in `output_dir`, as `MulFeRLTrainer.create_model_card` does (TRL's card
        for AsyncGRPO would be named None and link local paths to the Hub)."""
        if not self.is_world_process_zero():
            return
        card = trainer_model_card(self, model_name, dataset_name, tags)
        card.save(os.path.join(self.args.output_dir, "README.md"))

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        # Drained here rather than in TRL's `log`, so that the counts the rollout process sends are summed over the
        # window (rates and maxima keep TRL's reductions) and added to the run's feedback totals. The summary at the
        # end of training first stops the rollout process, which sends its last counts as it stops.
        metrics, counts = self._metrics["train"], Counter()

        def take(entry: dict) -> bool:
            for key, value in entry.items():
                if key == LAST_WINDOW:
                    continue
                if is_rollout_count(key, value):
                    counts[key] += value
                else:
                    metrics[key].append(value)
            return LAST_WINDOW in entry

        if self.accelerator.is_main_process and self.rollout_worker:
            if "train_runtime" in logs:
                self.rollout_worker.stop_reading_metrics(take)
            while True:
                try:
                    take(self.rollout_worker.metrics_queue.get_nowait())
                except queue.Empty:
                    break
        for key, value in counts.items():
            metrics[key] = [value]
        self._schema_failures.check(metrics)
        drop_empty_windows(metrics)
        # The rollout process's counts and the trained rows' routes, on process 0.
        log_feedback_bill(self, window_counts(metrics, self.args.num_generations, self.args.max_feedback_turns))
        log_run_summary(self, logs)
        # TRL's `log` drains the queue too: what arrived since would be averaged with the sums. It waits instead.
        rollout_worker, self.rollout_worker = self.rollout_worker, None
        try:
            super().log(logs, start_time)
        finally:
            self.rollout_worker = rollout_worker


def is_rollout_count(key: str, value) -> bool:
    """Whether a metric the rollout process sends is a `mulferl/*` count, summed over a logging window (not a rate,
    which TRL reduces as one, or a maximum)."""
    return key.startswith("mulferl/") and not isinstance(value, tuple) and not is_maximum(key)


def window_counts(metrics: dict[str, list], group_size: int, max_feedback_turns: int) -> dict[str, float]:
    """The run's counts (`trl_mulferl.core.summary.RUN_COUNTS` and each turn's) in a logging window: the rollout
    process's counts (summed by `log`) and rates `(numerator, denominator)`, and the routes of the trained rows, a rate
    per row (each prompt has K rows)."""

    def total(key: str) -> float:
        return sum(metrics.get(key, []))

    def rate_sums(key: str) -> tuple[float, float]:
        return tuple(sum(values) for values in zip(*metrics.get(key, []), strict=True)) or (0.0, 0.0)

    counts = {
        f"feedback/{name}": total(feedback_metric(name)) for name in ("requests", "prompt_tokens", "completion_tokens")
    }
    counts["feedback/latency_sum"] = rate_sums(feedback_metric("latency_s"))[0]
    counts["regenerated_tokens"] = total(REGENERATED_TOKENS)
    counts["turn_0/successes"], counts["turn_0/scored_rows"] = rate_sums(turn_metric(0, "success_rate"))
    counts["turn_0/varied"] = total(turn_metric(0, "varied_groups"))
    for turn in range(1 + max_feedback_turns):
        counts[f"turn_{turn}/failed"] = total(turn_metric(turn, "failed_groups"))
        if turn > 0:
            counts[f"turn_{turn}/reached"] = total(turn_metric(turn, "reached_groups"))
    for route in LOGGED_ROUTES:
        counts[f"route/{route.value}"] = rate_sums(route_metric(route))[0] / group_size
    return counts


def refuse_batched_provider(provider):
    """The spawned rollout process calls the provider per request: a batched one generates in the trainer."""
    if is_batched(provider):
        raise ValueError(
            f"The feedback provider {provider!r} is batched (feedback_batch): it generates in the trainer, which "
            "the rollout process cannot call. Use a per-request provider, e.g. feedback_provider='openai' on a "
            "served model."
        )


def check_provider_pickles(provider):
    """A provider of the caller's runs in the spawned rollout process (a built-in one is built there again)."""
    try:
        pickle.dumps(provider)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise TypeError(
            f"The feedback provider {provider!r} runs in the spawned rollout process, so it must pickle: use a "
            "module-level function or an instance of a module-level class, not a lambda or a closure."
        ) from error
