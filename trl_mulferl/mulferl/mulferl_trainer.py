import asyncio
import functools
import logging
import math
import os
import textwrap
from dataclasses import dataclass

import torch
from accelerate.utils import is_peft_model
from trl import GRPOTrainer
from trl.trainer.utils import get_config_model_id, start_event_loop_in_daemon

from ..core.losses import policy_shaping_weights
from ..core.metrics import FCOWindow, SchemaFailures, drop_empty_windows, log_run_summary
from ..core.model_card import trainer_model_card
from ..core.routing import union_advantages, weighted_rewards
from ..core.totals import FeedbackTotals, feedback_totals
from ..core.validation import (
    check_dataset_columns,
    check_prompts_ask_for_schema,
    check_reward_outputs,
    refuse_episodes_out_of_step,
    resolve_args,
)
from ..feedback import SelfFeedbackProvider, build_feedback_provider
from ..feedback.checks import check_provider_at_start
from ..feedback.environment import check_environment_provider, hide_feedback_methods
from ..feedback.step import FeedbackStep, FeedbackStepSettings
from .agentic import check_generation_owners, merge_extra_fields
from .fco_rows import (
    PARTNER_CHUNKS_PER_MICRO_BATCH,
    PARTNER_KEYS,
    add_fco_rows,
    backward_fco_partners,
    fco_partner_pass,
    fco_reference_in_loss,
    fco_term,
    forward_rows,
    join_partners,
    partner_rows,
    partner_scores,
    positive_scores,
    reference_logps,
)
from .lockstep import Lockstep
from .metrics import log_rollout
from .mulferl_config import MulFeRLConfig
from .turn_loop import GenerationBatch, Rollout, Rows, TurnLoop
from .width_buckets import row_lengths, rows_with_a_loss, width_buckets


logger = logging.getLogger(__name__)

# Any non-zero beta makes GRPOTrainer.__init__ build the reference policy; FCO needs one even when beta is 0.
_REFERENCE_ONLY_BETA = 1.0


@dataclass
class _LossForward:
    """What `_compute_loss` hands to the forward TRL's loss runs: the inputs whose reference log-probs it aligns, and
    the FCO partners, which the forward appends as extra rows (`joined`) or back-propagates right after it (`after`);
    after the forward, the policy log-probs FCO scores."""

    inputs: dict
    partners: dict[str, torch.Tensor] | None
    logps: torch.Tensor | None = None
    reference_logps: torch.Tensor | None = None  # of the rows whose FCO score the loss takes, from the same shapes
    partner_logps: torch.Tensor | None = None
    partner: torch.Tensor | None = None  # the partners' scores, detached, after a pass of their own


class MulFeRLTrainer(GRPOTrainer):
    """
    [`~trl.GRPOTrainer`] with MulFeRL's feedback turns (Multi-turn Feedback-guided Reinforcement Learning): a prompt
    whose K rollouts all fail is regenerated with verbal feedback, and each prompt is trained on its first turn that
    shows contrast, with TRL's GRPO loss or the FCO loss.

    After TRL generates and scores the K rollouts of each prompt, every prompt whose group all failed gets verbal
    feedback from `feedback_provider`, which is injected into the `<feedback>` slot of the answer
    (`<thinking><feedback>{feedback}</feedback>` prefilled at the head of the completion, masked out of the loss), and
    the group is regenerated, up to `max_feedback_turns` times. Each prompt is trained on the first turn that shows
    contrast: a group whose rewards vary gets TRL's GRPO loss; a group turned from all-failed into all-solved gets
    the FCO loss; every other prompt (solved at turn 0, still failing, unscorable) gets no loss. With
    `max_feedback_turns=0` TRL's GRPO term is kept whole, KL included: exactly GRPOTrainer. Everything else
    (generation backends, reward gathering, log-probs, logging) is [`~trl.GRPOTrainer`]'s.

    Args:
        model, reward_funcs, args, train_dataset, ...: As for [`~trl.GRPOTrainer`], in the same order; `args` is a
            [`MulFeRLConfig`]. `tools` and `environment_factory` are GRPOTrainer's; a failed group of episodes is
            regenerated through TRL's tool loop (`trl_mulferl.mulferl.agentic`). `rollout_func` works with
            `max_feedback_turns=0` only.
        feedback_provider (`Callable`, *optional*, keyword-only):
            Any callable `(prompt, completions, rewards, **columns) -> str`, sync or async; see
            `trl_mulferl.feedback`. Without it, `args.feedback_provider` selects a built-in one. Required when
            `max_feedback_turns > 0`.
    """

    _tag_names = ["trl", "mulferl"]
    _name = "MulFeRL"
    _paper = {
        "title": "MulFeRL: Enhancing Reinforcement Learning with Verbal Feedback in a Multi-turn Loop",
        # docstyle-ignore
        "citation": textwrap.dedent("""\
            @misc{li2026mulferl,
                title        = {{MulFeRL: Enhancing Reinforcement Learning with Verbal Feedback in a Multi-turn Loop}},
                author       = {Xuancheng Li and Haitao Li and Yujia Zhou and Yiqun Liu and Min Zhang and Qingyao Ai},
                year         = 2026,
            }"""),
    }

    def __init__(
        self,
        model,
        reward_funcs=None,
        args: MulFeRLConfig | None = None,
        train_dataset=None,
        eval_dataset=None,
        processing_class=None,
        reward_processing_classes=None,
        callbacks=None,
        optimizers=(None, None),
        quantization_config=None,
        peft_config=None,
        tools=None,
        rollout_func=None,
        environment_factory=None,
        *,
        feedback_provider=None,
    ):
        args = resolve_args(args, MulFeRLConfig, model, "MulFeRL")
        check_generation_owners(args, rollout_func, environment_factory, train_dataset)
        if feedback_provider is None:
            feedback_provider = build_feedback_provider(args)
        schema_rewards = check_prompts_ask_for_schema(reward_funcs, train_dataset, args)
        if args.max_feedback_turns > 0 and args.feedback_replay and (tools or environment_factory is not None):
            raise ValueError(
                "feedback_replay does not support tools or environment_factory: an episode regenerated after "
                "feedback depends on the feedback beyond its first turn. Set feedback_replay=False."
            )
        check_provider_at_start(
            feedback_provider,
            train_dataset,
            args,
            "MulFeRLTrainer",
            "plain GRPO",
            [functools.partial(check_environment_provider, environment_factory=environment_factory)],
        )

        # Self-feedback is written by the frozen starting policy: the reference.
        self_feedback = isinstance(feedback_provider, SelfFeedbackProvider) and args.max_feedback_turns > 0
        needs_reference = args.beta != 0.0 or args.fco_enabled or self_feedback
        if needs_reference and not isinstance(model, str) and peft_config is None:
            if not is_peft_model(model) and not get_config_model_id(model.config):
                raise ValueError(
                    "MulFeRLTrainer needs a reference policy (FCO with fco_weight > 0, beta > 0, or self-feedback), "
                    "which TRL loads from the model's name or path, but this model has neither. Pass the model as a "
                    "Hub id or local path (model.save_pretrained(path) first), train a PEFT adapter "
                    "(peft_config=...), or set fco_weight=0, beta=0 and another feedback provider."
                )
        beta = args.beta
        if needs_reference and beta == 0.0:
            # TRL builds the reference (or the PEFT "ref" adapter) only for beta != 0: let its own code build it.
            args.beta = _REFERENCE_ONLY_BETA
        try:
            super().__init__(
                model,
                reward_funcs,
                args=args,
                train_dataset=train_dataset,
                eval_dataset=eval_dataset,
                processing_class=processing_class,
                reward_processing_classes=reward_processing_classes,
                callbacks=callbacks,
                optimizers=optimizers,
                quantization_config=quantization_config,
                peft_config=peft_config,
                tools=tools,
                rollout_func=rollout_func,
                environment_factory=environment_factory,
            )
        finally:
            args.beta = beta
        self.beta = beta

        if self._is_vlm:
            raise ValueError("MulFeRLTrainer does not support vision-language models yet; use a text-only model.")
        if self_feedback and not self.processing_class.chat_template:
            raise ValueError(
                "Self-feedback formats the reviewer prompts with the tokenizer's chat template, and this tokenizer has "
                "none. Set processing_class.chat_template (e.g. TRL's templates in trl/chat_templates/), or serve the "
                "model (vllm serve) and use feedback_provider='openai'."
            )
        check_dataset_columns(
            "MulFeRLTrainer",
            self.reward_funcs,
            self.reward_func_names,
            train_dataset,
            has_environments=environment_factory is not None,
            has_rollout_func=rollout_func is not None,
        )
        self.reward_funcs = check_reward_outputs(self.reward_funcs, self.reward_func_names)
        hide_feedback_methods(self)
        self.feedback_provider = feedback_provider
        # Over the run and all processes, for the summary at the end of training and the card; saved in checkpoints.
        self.add_callback(FeedbackTotals(args.feedback_input_token_price, args.feedback_output_token_price))
        self._feedback_loop = None
        self._warned_unscorable_step = False
        self._schema_failures = SchemaFailures(schema_rewards, self.num_generations)
        self.lockstep = Lockstep.of(self)
        refuse_episodes_out_of_step(args, self.lockstep, self.tools)
        self._generation_batch: GenerationBatch | None = None  # from `_generate_and_score_completions` to `_generate`
        self._loss_forward: _LossForward | None = None  # from `_compute_loss` into its forward
        self._fco_window = FCOWindow()
        self.feedback_step = FeedbackStep(FeedbackStepSettings.of(args), self._tokenizer, self.eos_token_ids)

    # ----------------------------------------------------------------------------------------------------------------
    # Generation: Algorithm 1's turn loop (`trl_mulferl.mulferl.turn_loop`), inside TRL's `_generate`

    # The turn loop needs the dataset rows, but `_generate` only receives the prompts.
    def _generate_and_score_completions(self, inputs):
        if not self.model.training:
            return super()._generate_and_score_completions(inputs)  # evaluation is plain GRPO: no feedback turns
        self._generation_batch = batch = GenerationBatch(inputs)
        try:
            output = super()._generate_and_score_completions(inputs)
        finally:
            self._generation_batch = None
        rollout = batch.rollout
        # TRL's advantages, from the real rewards of every scorable row (decision 5); zeroed off the GRPO rows.
        grpo_rows = rollout.grpo_rows(self.num_generations, output["advantages"].device)
        if self._skips_rows_outside_grpo:
            mask = grpo_rows if output["advantages"].dim() == 1 else grpo_rows.unsqueeze(1)
            output["advantages"] = output["advantages"] * mask
        if self.args.feedback_replay:
            grpo_rows = self._replay_advantages(output, rollout, grpo_rows)
        output["mulferl_grpo_rows"] = grpo_rows.float()
        # Per row, for the loss's micro-batches: whether a row of this generation batch holds a feedback prefill.
        holds_prefill = bool(rollout.prefill_lengths.keys() - rollout.replayed)
        output["mulferl_width_buckets"] = torch.full_like(output["mulferl_grpo_rows"], float(holds_prefill))
        self._log_trained_advantages(output["advantages"])
        if self.args.fco_enabled:
            add_fco_rows(self, output, rollout)
        log_rollout(self, rollout)
        return output

    @property
    def _skips_rows_outside_grpo(self) -> bool:
        """Whether the rows outside the GRPO route lose their advantage and KL (the paper's skip). With feedback off
        the GRPO term is TRL's, untouched, so that the trainer is exactly GRPOTrainer for any reward (decision 12):
        there those rows are groups without spread (zero advantage, up to TRL's rounding) or unscorable ones."""
        return self.args.max_feedback_turns > 0

    def _replay_advantages(self, output: dict, rollout: Rollout, grpo_rows: torch.Tensor) -> torch.Tensor:
        """`feedback_replay`: the replayed rows' advantages over the union with their turn-0 group, which makes them
        GRPO rows (an FCO prompt's too); returns the GRPO rows."""
        replayed = rollout.replayed_rows(grpo_rows.device)
        output["mulferl_replayed"] = replayed
        first_row, k = self.accelerator.process_index * len(replayed), self.num_generations
        local = slice(first_row, first_row + len(replayed))
        turn0, final = (
            weighted_rewards(rewards[local], self.reward_weights).view(-1, k)
            for rewards in (rollout.turn0_rewards_per_func, rollout.final_rewards_per_func)
        )
        # An unscorable row (NaN) gets advantage 0, as in TRL.
        advantages = union_advantages(turn0, final, scale=self.scale_rewards != "none").flatten().nan_to_num(0.0)
        replayed = replayed.bool()
        shape = (-1,) + (1,) * (output["advantages"].dim() - 1)  # TRL's advantages may be per token
        output["advantages"] = torch.where(replayed.view(shape), advantages.view(shape), output["advantages"])
        return grpo_rows | replayed

    def _log_trained_advantages(self, advantages: torch.Tensor):
        """The completions table shows the advantages trained: TRL logged its own, before routing and replay."""
        trained = self.accelerator.gather(advantages).tolist()
        logged = self._logs["advantages"]
        for _ in range(len(trained)):
            logged.pop()
        logged.extend(trained)

    def _generate(self, prompts):
        hide_feedback_methods(self)  # from this batch's tool dicts, which TRL has just built
        generated = super()._generate(prompts)
        batch = self._generation_batch
        if batch is None:
            return generated
        prompt_ids, completion_ids, tool_mask, completions, logprobs, extra_fields, images, tool_images = generated
        tool_mask = tool_mask if tool_mask is not None else [[1] * len(ids) for ids in completion_ids]
        merge_extra_fields(batch.inputs, extra_fields)
        rows = Rows(prompt_ids, completion_ids, tool_mask, completions, logprobs)
        batch.rollout = TurnLoop(self, batch.inputs, prompts).run(rows)
        batch.rewards_per_func = batch.rollout.final_rewards_per_func
        # The completions table gets each row's turn (its group's last) and the feedback it was conditioned on.
        k = self.num_generations
        self._log_completion_extra("turn", [len(h) - 1 for h in batch.rollout.histories for _ in range(k)])
        self._log_completion_extra("feedback", [f for f in batch.rollout.feedback for _ in range(k)])
        rows_out = (rows.prompt_ids, rows.completion_ids, rows.tool_mask, rows.completions, rows.logprobs)
        return (*rows_out, extra_fields, images, tool_images)

    # Hand TRL the turn loop's rewards for the final rows, so routing and advantages use the same values; TRL takes
    # its advantages' statistics over every scorable row, as GRPOTrainer does (decision 5).
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        batch = self._generation_batch
        if batch is not None and batch.rewards_per_func is not None:
            rewards, batch.rewards_per_func = batch.rewards_per_func, None
            return rewards
        return super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)

    def _warn_if_unscorable(self, rewards_per_func: torch.Tensor):
        if self._warned_unscorable_step or not torch.isnan(rewards_per_func).all():
            return
        self._warned_unscorable_step = True
        logger.warning(
            "Every reward function (%s) returned None for every completion of this step, so nothing is trained. "
            "Check that the reward functions cover the dataset's rows. (Logged once.)",
            ", ".join(self.reward_func_names),
        )

    def _run_async(self, coroutine):
        # A loop of our own in a daemon thread: the trainer may itself run inside an event loop (notebooks).
        if self._feedback_loop is None:
            _, self._feedback_loop, ready = start_event_loop_in_daemon(name="mulferl-feedback")
            ready.wait()
        return asyncio.run_coroutine_threadsafe(coroutine, self._feedback_loop).result()

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        self._schema_failures.check(self._metrics["train"])
        drop_empty_windows(self._metrics["train"])
        log_run_summary(self, logs)
        super().log(logs, start_time)

    def create_model_card(self, model_name=None, dataset_name=None, tags=None):
        """
        Writes the model card, README.md in `output_dir`: TRL's card with the MulFeRL settings of the run and its
        feedback statistics (from `state.log_history`); a local model or dataset is named, only a Hub one linked.

        Args:
            model_name (`str`, *optional*): Defaults to the name of `hub_model_id`, else of `output_dir`.
            dataset_name (`str`, *optional*): A Hub id (linked) or a local path.
            tags (`str` or `list[str]`, *optional*): Added to the trainer's tags.
        """
        if not self.is_world_process_zero():
            return
        card = trainer_model_card(self, model_name, dataset_name, tags)
        card.save(os.path.join(self.args.output_dir, "README.md"))

    # ----------------------------------------------------------------------------------------------------------------
    # The loss: TRL's GRPO term (advantages and KL zero off the GRPO rows), plus FCO from the same policy

    @property
    def _fco_partner_pass(self) -> str:
        # A property of the trainer's, so that a test or a benchmark can set the pass its case runs.
        return fco_partner_pass(self)

    def _compute_loss(self, model, inputs):
        fco = "mulferl_partner_forwarded" in inputs
        if "mulferl_grpo_rows" not in inputs:
            return super()._compute_loss(model, inputs)
        inputs = dict(inputs)  # the forward aligns its reference log-probs
        forward = _LossForward(inputs, partners=None)
        if fco and len(rows := partner_rows(inputs)):
            partners = {key: inputs[f"mulferl_partner_{key}"][rows] for key in PARTNER_KEYS}
            if self._fco_partner_pass == "first":
                positive = None
                if self.args.fco_pairing == "permutation":
                    logps = forward_rows(self, inputs, rows.tolist(), policy=True)
                    reference = (
                        forward_rows(self, inputs, rows.tolist(), False) if fco_reference_in_loss(self) else None
                    )
                    positive = positive_scores(self.args, inputs, logps, rows, reference)
                forward.partner = backward_fco_partners(self, model, inputs, partners, positive)
            else:
                forward.partners = partners  # for the loss's forward
        self._loss_forward = forward
        try:
            loss = super()._compute_loss(model, inputs)
        finally:
            self._loss_forward = None
        if not fco:
            return loss
        partner = forward.partner
        if partner is None:
            partner_logps = forward.partner_logps
            partner = partner_scores(
                self.args, inputs, forward.logps.new_zeros(0, 1) if partner_logps is None else partner_logps
            )
        scores = positive_scores(self.args, inputs, forward.logps, reference=forward.reference_logps)
        term, logged = fco_term(self.args, inputs, scores, partner)
        self._fco_window.add(self.accelerator, *logged)
        if self.accelerator.sync_gradients:
            self._fco_window.flush(self._metrics["train"], feedback_totals(self))
        return loss + term

    # Under DeepSpeed and FSDP the loss forward also scores the FCO partners (extra rows: one forward, one backward);
    # on one process they are back-propagated right after it. It keeps the policy's log-probs for FCO, weights the
    # replayed rows' advantages, and with beta != 0 makes the KL of skipped rows (`_skips_rows_outside_grpo`) 0.
    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs):
        forward, self._loss_forward = self._loss_forward, None
        if forward is None:
            return super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
        num_rows = input_ids.size(0)
        partner_pass = None if forward.partners is None else self._fco_partner_pass
        joined = partner_pass == "joined"
        if joined:
            input_ids, attention_mask, width = join_partners(
                input_ids, attention_mask, logits_to_keep, forward.partners, self._tokenizer.pad_token_id
            )
            logps, entropies, aux_loss = super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, width, *args, **kwargs
            )
            forward.partner_logps = logps[num_rows:, : forward.partners["completion_ids"].size(1)]
            logps = logps[:num_rows, :logits_to_keep]
            entropies = None if entropies is None else entropies[:num_rows, :logits_to_keep]
        else:
            logps, entropies, aux_loss = self._forward_loss_rows(
                model, forward, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
        forward.logps = logps
        if partner_pass == "after":
            rows = partner_rows(forward.inputs)
            reference = None if forward.reference_logps is None else forward.reference_logps[rows]
            positive = positive_scores(self.args, forward.inputs, logps.detach()[rows], rows, reference)
            chunk_size = math.ceil(num_rows / PARTNER_CHUNKS_PER_MICRO_BATCH)
            forward.partner = backward_fco_partners(
                self, model, forward.inputs, forward.partners, positive, chunk_size
            )
        if "mulferl_replayed" in forward.inputs and self.args.feedback_replay_shaping is not None:
            # The GRPO term is linear in the ratio: a per-token weight on the replayed rows' advantages gives their
            # tokens the shaping's gradient, and leaves the KL term, which reads the same log-probs, alone.
            replayed = forward.inputs["mulferl_replayed"].bool().unsqueeze(1)
            advantages = forward.inputs["advantages"]
            advantages = advantages.unsqueeze(1) if advantages.dim() == 1 else advantages
            weights = policy_shaping_weights(logps, self.args.feedback_replay_shaping)
            forward.inputs["advantages"] = torch.where(replayed, advantages * weights, advantages)
        if self.beta != 0.0 and self._skips_rows_outside_grpo:
            # TRL adds beta * KL(ref, policy) on every row; a row outside the GRPO route gets no loss (the paper's
            # skip), so its reference is the policy itself: KL 0, gradient 0.
            grpo_rows = forward.inputs["mulferl_grpo_rows"].bool().unsqueeze(1)
            forward.inputs["ref_per_token_logps"] = torch.where(
                grpo_rows, forward.inputs["ref_per_token_logps"], logps.detach()
            )
        return logps, entropies, aux_loss

    def _forward_loss_rows(
        self, model, forward: _LossForward, input_ids, attention_mask, logits_to_keep, *args, **kwargs
    ):
        """TRL's loss forward of a micro-batch: after a feedback turn, one forward per width bucket of the rows that
        carry a loss (decision 14), else one of every row; and, for the rows whose FCO score the loss takes, the
        reference's log-probs from forwards of the same tensors (`forward.reference_logps`)."""
        inputs = forward.inputs
        reference_rows = set()
        if "mulferl_partner_forwarded" in inputs and fco_reference_in_loss(self):
            reference_rows = set(partner_rows(inputs).tolist())
        bucketed = self._forwards_in_width_buckets(inputs, kwargs)
        if not bucketed and not reference_rows:
            return super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
        num_rows, prompt_width = input_ids.size(0), input_ids.size(1) - logits_to_keep
        forwarded = list(range(num_rows))
        if bucketed:
            prompt_lengths, completion_lengths = row_lengths(attention_mask, logits_to_keep)
            if self._forwards_only_rows_with_a_loss:
                forwarded = rows_with_a_loss(inputs)
            if not forwarded:
                # DDP all-reduces in the backward of a forward through its wrapper: the shortest row, for nothing.
                forwarded = [min(range(num_rows), key=lambda row: prompt_lengths[row] + completion_lengths[row])]
            lengths = [prompt_lengths[row] for row in forwarded], [completion_lengths[row] for row in forwarded]
            buckets = [[forwarded[index] for index in bucket] for bucket in width_buckets(*lengths)]
        else:
            buckets = [forwarded]
        unwrapped = self.accelerator.unwrap_model(model)
        # Positions outside a bucket's width are padding, out of the loss's mask: the old log-probs there make the
        # ratio 1, as TRL's own forward does at the first iteration.
        old = inputs.get("old_per_token_logps")
        logps = (
            input_ids.new_zeros(input_ids.size(0), logits_to_keep, dtype=torch.float32) if old is None else old.clone()
        )
        entropies = reference = aux_loss = None
        for index, rows in enumerate(buckets):
            index_rows = torch.tensor(rows, device=input_ids.device)
            width, columns = logits_to_keep, slice(None)
            if bucketed:
                width = max(max(completion_lengths[row] for row in rows), 1)
                columns = slice(prompt_width - max(prompt_lengths[row] for row in rows), prompt_width + width)
            chunk = {
                "input_ids": input_ids[index_rows][:, columns],
                "attention_mask": attention_mask[index_rows][:, columns],
                "logits_to_keep": width,
            }
            # DDP syncs buffers in each forward through its wrapper (a collective, so once per micro-batch on every
            # process); the other buckets run through the module it wraps, into the same backward.
            chunk_logps, chunk_entropies, aux_loss = super()._get_per_token_logps_and_entropies(
                model if index == 0 else unwrapped, chunk["input_ids"], chunk["attention_mask"], width, *args, **kwargs
            )
            logps = logps.to(chunk_logps.dtype)
            logps[index_rows, :width] = chunk_logps
            if chunk_entropies is not None:
                entropies = chunk_entropies.new_zeros(logps.shape) if entropies is None else entropies
                entropies[index_rows, :width] = chunk_entropies
            if reference_rows.intersection(rows):
                with torch.no_grad():
                    chunk_reference = reference_logps(self, chunk, policy_model=unwrapped)
                reference = torch.zeros_like(logps, requires_grad=False) if reference is None else reference
                reference[index_rows, :width] = chunk_reference
        skipped = sorted(set(range(num_rows)) - set(forwarded))
        if skipped and entropies is not None:
            # TRL logs the entropy's mean over every row's tokens: the rows not forwarded take the others' mean.
            forwarded_tokens = (inputs["completion_mask"] * inputs.get("tool_mask", 1)).bool()
            forwarded_tokens[skipped] = False
            entropies[skipped] = entropies[forwarded_tokens].mean() if forwarded_tokens.any() else 0.0
        forward.reference_logps = reference
        return logps, entropies, aux_loss

    @property
    def _forwards_only_rows_with_a_loss(self) -> bool:
        """Whether the loss forward leaves out the rows without a loss (outside the GRPO route and FCO: advantage 0,
        KL 0, so their gradient is 0): not where every row's entropy enters the loss (TRL's entropy mask or bonus)."""
        return self._skips_rows_outside_grpo and self.top_entropy_quantile == 1.0 and not self._entropy_bonus_enabled

    def _forwards_in_width_buckets(self, inputs, kwargs) -> bool:
        """Whether the loss forward runs per width bucket: after a feedback turn, where one micro-step may hold several
        forwards and they are not collectives (not DeepSpeed or FSDP), for a text-only model without an auxiliary
        loss."""
        flags = ("compute_entropy", "compute_aux_loss")
        images = any(value is not None for key, value in kwargs.items() if key not in flags)
        plain = not (self.is_deepspeed_enabled or self.is_fsdp_enabled or images or kwargs.get("compute_aux_loss"))
        return plain and bool(inputs["mulferl_width_buckets"].any())
