import asyncio
import textwrap
from collections import Counter
from dataclasses import dataclass, field

import torch
from accelerate.utils import is_peft_model
from trl import GRPOTrainer
from trl.models.utils import disable_gradient_checkpointing
from trl.trainer.utils import get_config_model_id, nanstd, pad, start_event_loop_in_daemon, use_adapter

from .feedback import FeedbackRequest, problem_text, redact_answer_leak, request_feedback
from .losses import drop_empty_pairs, fco_loss, fco_score, fco_surrogate_coefficients
from .mulferl_config import MulFeRLConfig
from .openai_provider import OpenAIFeedbackProvider
from .rewards import completion_text
from .routing import GroupState, Route, group_state, make_generator, route, sample_fco_pairs
from .schema import inject_feedback, sanitize_feedback, truncate_to_tokens
from .validation import check_dataset_columns, refuse_unsupported, resolve_args, weighted_rewards


_TRAINED_ROUTES = (Route.GRPO, Route.FCO)
# Any non-zero beta makes GRPOTrainer.__init__ build the reference policy; FCO needs one even when beta is 0.
_REFERENCE_ONLY_BETA = 1.0
_PARTNER_KEYS = ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "score_mask")


class _GRPORowsBeta(float):
    """`beta` that weights the KL of GRPO-routed rows only.

    TRL's `_compute_loss` adds `self.beta * per_token_kl` to every row; multiplying by this float applies a per-row
    0/1 mask instead, so the KL of skipped, unresolved, unscorable and FCO rows is exactly zero.
    """

    def __new__(cls, beta: float, grpo_rows: torch.Tensor):
        instance = super().__new__(cls, beta)
        instance.grpo_rows = grpo_rows
        return instance

    def __mul__(self, other):
        if isinstance(other, torch.Tensor):
            return float(self) * self.grpo_rows.to(other.dtype).unsqueeze(-1) * other
        return float(self) * other


@dataclass
class _Rollout:
    """What the turn loop leaves for `_generate_and_score_completions`: this process's groups and rows."""

    histories: list[list[GroupState]]  # per group, its state at each turn it reached
    group_feedback: list[str]  # per group, the feedback injected at its last turn ("" at turn 0)
    final_rewards_per_func: torch.Tensor | None  # gathered over processes; handed to TRL once, then None
    turn0_rewards_per_func: torch.Tensor  # gathered over processes
    routes: list[Route] = field(default_factory=list)  # per group
    # per local row, its (prompt_ids, completion_ids, scored-token mask) one turn before its last: the FCO negatives
    previous_rows: dict[int, tuple[list[int], list[int], list[int]]] = field(default_factory=dict)
    local_final_rewards: torch.Tensor | None = None  # weighted, per row of this process
    latency_max: float = 0.0  # the slowest feedback request of this process
    counts: Counter = field(default_factory=Counter)


class MulFeRLTrainer(GRPOTrainer):
    """
    Trainer for MulFeRL (Multi-turn Feedback-guided Reinforcement Learning).

    After TRL generates and scores the K rollouts of each prompt, every prompt whose group all failed gets verbal
    feedback from `feedback_provider`, which is injected into the `<feedback>` slot of the answer
    (`<thinking><feedback>{feedback}</feedback>` prefilled at the head of the completion, masked out of the loss), and
    the group is regenerated, up to `max_feedback_turns` times. Each prompt is trained on the first turn that shows
    contrast: a mixed group gets TRL's GRPO loss; every other prompt (solved at turn 0, still failing, unscorable, or
    turned from failed to solved, the FCO case) gets zero advantage and zero KL. Everything else (generation backends,
    reward gathering, log-probs, logging) is [`~trl.GRPOTrainer`]'s.

    Args:
        model, reward_funcs, args, **kwargs: As for [`~trl.GRPOTrainer`]; `args` is a [`MulFeRLConfig`].
        feedback_provider (`Callable`, *optional*):
            Any callable `(prompt, completions, rewards, **columns) -> str`, sync or async; see
            `trl_mulferl.feedback`. Required when `max_feedback_turns > 0`.
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

    def __init__(self, model, reward_funcs, args: MulFeRLConfig | None = None, feedback_provider=None, **kwargs):
        args = resolve_args(args, MulFeRLConfig, model, "MulFeRL")
        refuse_unsupported("MulFeRLTrainer", kwargs)
        if feedback_provider is None and args.feedback_provider == "openai":
            feedback_provider = OpenAIFeedbackProvider(
                model=args.feedback_model,
                base_url=args.feedback_base_url,
                api_key_env=args.feedback_api_key_env,
                max_tokens=args.max_feedback_length,
                temperature=args.feedback_temperature,
                group_size=args.feedback_group_size,
                max_concurrency=args.feedback_max_concurrency,
                timeout=args.feedback_timeout,
                max_retries=args.feedback_max_retries,
                reasoning_model=args.feedback_reasoning_model,
                seed=args.seed,
            )
        if args.max_feedback_turns > 0 and feedback_provider is None:
            raise ValueError(
                f"MulFeRLTrainer needs a `feedback_provider` when max_feedback_turns > 0 (got "
                f"{args.max_feedback_turns}). Pass feedback_provider=..., or set max_feedback_turns=0 for plain GRPO."
            )
        if feedback_provider is not None and not callable(feedback_provider):
            raise TypeError(f"feedback_provider must be callable, got {type(feedback_provider).__name__}.")
        if args.max_feedback_turns > 0 and hasattr(feedback_provider, "check_connection"):
            feedback_provider.check_connection()  # an unreachable endpoint fails here, not mid-run

        needs_reference = args.beta != 0.0 or (args.fco_weight > 0 and args.max_feedback_turns > 0)
        if needs_reference and args.beta == 0.0 and args.sync_ref_model:
            raise ValueError(
                "sync_ref_model=True needs beta != 0: with beta = 0 the reference serves FCO only, and FCO scores "
                "against the frozen starting policy. Set sync_ref_model=False."
            )
        if needs_reference and not isinstance(model, str) and kwargs.get("peft_config") is None:
            if not is_peft_model(model) and not get_config_model_id(model.config):
                raise ValueError(
                    "MulFeRLTrainer needs a reference policy (FCO with fco_weight > 0, or beta > 0), which TRL loads "
                    "from the model's name or path, but this model has neither. Pass the model as a Hub id or local "
                    "path (model.save_pretrained(path) first), train a PEFT adapter (peft_config=...), or set "
                    "fco_weight=0 and beta=0."
                )
        beta = args.beta
        if args.fco_weight > 0 and args.max_feedback_turns > 0 and beta == 0.0:
            args.beta = _REFERENCE_ONLY_BETA  # TRL's own code then builds the reference (or the PEFT "ref" adapter)
        try:
            super().__init__(model, reward_funcs, args=args, **kwargs)
        finally:
            args.beta = beta
        self.beta = beta

        if self._is_vlm:
            raise ValueError("MulFeRLTrainer does not support vision-language models yet; use a text-only model.")
        if self._fco_enabled and (self.is_deepspeed_enabled or self.is_fsdp_enabled):
            raise ValueError(
                "FCO (fco_weight > 0) is not supported with DeepSpeed or FSDP yet: its negatives are back-propagated "
                "in a pass of their own, which those engines do not allow. Use DDP, or set fco_weight=0."
            )
        check_dataset_columns("MulFeRLTrainer", self.reward_funcs, self.reward_func_names, kwargs.get("train_dataset"))
        self.feedback_provider = feedback_provider
        self._feedback_loop = None
        self._turn_inputs = None
        self._rollout = None
        self._loss_logps = None

    @property
    def _fco_enabled(self) -> bool:
        return self.args.fco_weight > 0 and self.args.max_feedback_turns > 0

    # The turn loop needs the dataset rows, but `_generate` only receives the prompts.
    def _generate_and_score_completions(self, inputs):
        self._turn_inputs = inputs
        output = super()._generate_and_score_completions(inputs)
        rollout, self._rollout = self._rollout, None
        if rollout is not None:
            grpo_rows = torch.tensor(
                [rollout.routes[i // self.num_generations] == Route.GRPO for i in range(len(inputs))],
                device=output["advantages"].device,
            )
            mask = grpo_rows if output["advantages"].dim() == 1 else grpo_rows.unsqueeze(1)
            output["advantages"] = output["advantages"] * mask
            output["mulferl_grpo_rows"] = grpo_rows.float()
            if self._fco_enabled:
                self._add_fco_rows(output, rollout)
            self._log_rollout(rollout)
        return output

    def _add_fco_rows(self, output, rollout):
        """Generation-time FCO scores and surrogate coefficients (decision 2); each FCO row carries its negative.

        Row k of a FAILED -> SOLVED prompt is positive k; negative k (the same row one turn earlier) rides along as the
        row's partner sequence. Coefficients are `fco_weight * dL/ds / (prompts in the generation batch)`, so the
        per-micro-batch terms of `_compute_loss` add up to the FCO term of the whole generation batch.
        """
        group_size, num_rows = self.num_generations, output["prompt_ids"].size(0)
        device, num_groups = output["prompt_ids"].device, num_rows // group_size
        fco_groups = [group for group in range(num_groups) if rollout.routes[group] == Route.FCO]
        fco_rows = [group * group_size + k for group in fco_groups for k in range(group_size)]
        no_partner = ([self._tokenizer.pad_token_id], [self._tokenizer.pad_token_id], [0])
        fco_row_set = set(fco_rows)
        partner_rows = [rollout.previous_rows[row] if row in fco_row_set else no_partner for row in range(num_rows)]
        prompt_ids, completion_ids, score_mask = (
            [torch.tensor(values, device=device) for values in column] for column in zip(*partner_rows, strict=True)
        )
        partner = {
            "prompt_ids": pad(prompt_ids, padding_value=self._tokenizer.pad_token_id, padding_side="left"),
            "prompt_mask": pad([torch.ones_like(ids) for ids in prompt_ids], padding_side="left"),
            "completion_ids": pad(completion_ids, padding_value=self._tokenizer.pad_token_id),
            "completion_mask": pad([torch.ones_like(ids) for ids in completion_ids]),
            "score_mask": pad(score_mask),
        }
        pos_coefficients = torch.zeros(num_rows, device=device)
        neg_coefficients = torch.zeros(num_rows, device=device)
        loss_shares = torch.zeros(num_rows, device=device)
        if fco_rows:
            rows = torch.tensor(fco_rows, device=device)
            completion_mask = output["completion_mask"] * output.get("tool_mask", 1)
            positive = {key: output[key][rows] for key in _PARTNER_KEYS if key != "score_mask"}
            positive["score_mask"] = completion_mask[rows]
            ref_logps = output.get("ref_per_token_logps")  # TRL's, when beta != 0
            pos_scores, pos_has_tokens = self._fco_scores(positive, None if ref_logps is None else ref_logps[rows])
            neg_scores, neg_has_tokens = self._fco_scores({key: value[rows] for key, value in partner.items()})
            first_group = self.accelerator.process_index * num_groups
            scale = self.args.fco_weight / num_groups
            tau, margin = self.args.fco_tau, self.args.fco_margin
            for index, group in enumerate(fco_groups):
                members = slice(index * group_size, (index + 1) * group_size)
                generator = make_generator(self.args.seed, self.state.global_step, first_group + group)
                pairs = sample_fco_pairs(group_size, self.args.fco_pairing, generator).to(device)
                pairs, dropped = drop_empty_pairs(pairs, pos_has_tokens[members], neg_has_tokens[members])
                pos, neg = pos_scores[members], neg_scores[members]
                pos_c, neg_c = fco_surrogate_coefficients(pos, neg, pairs, tau, margin)
                pos_coefficients[rows[members]] = scale * pos_c
                neg_coefficients[rows[members]] = scale * neg_c
                rollout.counts["fco/dropped_pairs"] += dropped
                if len(pairs):
                    pair_loss = fco_loss(pos[pairs[:, 0]], neg[pairs[:, 1]], tau, margin)
                    loss_shares[rows[members]] = scale * pair_loss / group_size
                    rollout.counts["fco/groups"] += 1
                    rollout.counts["fco/loss_sum"] += pair_loss.item()
                    rollout.counts["fco/pairs"] += len(pairs)
                    rollout.counts["fco/gap_sum"] += (pos[pairs[:, 0]] - neg[pairs[:, 1]]).sum().item()
        output["mulferl_fco_coefficient"] = pos_coefficients
        output["mulferl_fco_loss_share"] = loss_shares
        output["mulferl_partner_coefficient"] = neg_coefficients
        for key, value in partner.items():
            output[f"mulferl_partner_{key}"] = value

    def _fco_scores(self, sequences, ref_logps=None):
        """Scores `s = (log pi - log pi_ref) / |y|` (eq. 13) without grad, from TRL's temperature-scaled log-probs."""
        input_ids = torch.cat([sequences["prompt_ids"], sequences["completion_ids"]], dim=1)
        attention_mask = torch.cat([sequences["prompt_mask"], sequences["completion_mask"]], dim=1)
        forward = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "logits_to_keep": sequences["completion_ids"].size(1),
            "batch_size": self.args.per_device_train_batch_size,
        }
        with torch.no_grad(), disable_gradient_checkpointing(self.model, self.args.gradient_checkpointing_kwargs):
            logps, _, _ = self._get_per_token_logps_and_entropies(self.model, **forward)
            ref_logps = self._reference_logps(forward) if ref_logps is None else ref_logps
        score_mask = sequences["score_mask"]
        return fco_score(logps, ref_logps, score_mask), score_mask.sum(dim=1) > 0

    def _reference_logps(self, forward):
        if self.ref_model is not None:
            return self._get_per_token_logps_and_entropies(self.ref_model, **forward)[0]
        # PEFT: the adapter-free base model, or TRL's frozen "ref" copy of an adapter passed in trained.
        unwrapped = self.accelerator.unwrap_model(self.model)
        with use_adapter(unwrapped, adapter_name="ref" if "ref" in unwrapped.peft_config else None):
            return self._get_per_token_logps_and_entropies(self.model, **forward)[0]

    # Route the KL of non-GRPO rows to zero (TRL adds `beta * KL` to every row) and add the FCO surrogate.
    def _compute_loss(self, model, inputs):
        fco = "mulferl_fco_coefficient" in inputs and torch.is_grad_enabled()
        if fco:
            self._backward_fco_partners(model, inputs)
        beta = self.beta
        if beta != 0.0 and "mulferl_grpo_rows" in inputs:
            self.beta = _GRPORowsBeta(beta, inputs["mulferl_grpo_rows"])
        self._loss_logps = [] if fco else None
        try:
            loss = super()._compute_loss(model, inputs)
            if fco:
                # `s - s.detach()` is 0 with the gradient of s (the reference cancels); the share adds the true loss.
                logps = self._loss_logps[0]
                surrogate = fco_score(logps, logps.detach(), inputs["completion_mask"] * inputs.get("tool_mask", 1))
                loss = loss + (inputs["mulferl_fco_coefficient"] * surrogate).sum()
                loss = loss + inputs["mulferl_fco_loss_share"].sum()
            return loss
        finally:
            self.beta = beta
            self._loss_logps = None

    def _backward_fco_partners(self, model, inputs):
        """The FCO gradient of the negatives, in a backward pass of their own so peak memory stays near GRPO's.

        The forward runs on the unwrapped model before the step's main forward, so under DDP these gradients just
        accumulate locally and are reduced with the main backward, even when ranks hold different numbers of partners.
        """
        rows = inputs["mulferl_partner_coefficient"] != 0
        if not rows.any():
            return
        partner = {key: inputs[f"mulferl_partner_{key}"][rows] for key in _PARTNER_KEYS}
        logps, _, _ = self._get_per_token_logps_and_entropies(
            self.accelerator.unwrap_model(model),
            torch.cat([partner["prompt_ids"], partner["completion_ids"]], dim=1),
            torch.cat([partner["prompt_mask"], partner["completion_mask"]], dim=1),
            partner["completion_ids"].size(1),
        )
        surrogate = fco_score(logps, logps.detach(), partner["score_mask"])
        self.accelerator.backward((inputs["mulferl_partner_coefficient"][rows] * surrogate).sum())

    # Keep the policy log-probs of `_compute_loss`'s forward so that the FCO positives need no second forward.
    def _get_per_token_logps_and_entropies(self, *args, **kwargs):
        result = super()._get_per_token_logps_and_entropies(*args, **kwargs)
        if self._loss_logps is not None:
            self._loss_logps.append(result[0])
        return result

    # Return the turn loop's rewards when TRL scores the final rows, so routing and advantages use the same values.
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        if self._rollout is not None and self._rollout.final_rewards_per_func is not None:
            rewards, self._rollout.final_rewards_per_func = self._rollout.final_rewards_per_func, None
            return rewards
        return super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)

    def _score(self, inputs, prompts, completions, completion_ids):
        # Columns and metrics logged by the reward functions must describe the final rows only: keep the last call's.
        self._pending_extra_logs.clear()
        self._pending_metrics.clear()
        return self._calculate_rewards(inputs, prompts, completions, completion_ids)

    def _generate(self, prompts):
        result = super()._generate(prompts)
        if not self.model.training:
            return result  # evaluation is plain GRPO: no feedback turns
        prompt_ids, completion_ids, tool_mask, completions, logprobs, extra_fields, images, tool_images = result
        inputs, group_size = self._turn_inputs, self.num_generations
        num_groups, num_turns = len(prompts) // group_size, 1 + self.args.max_feedback_turns
        first_row = self.accelerator.process_index * len(prompts)
        group_rows = [slice(first_row + g * group_size, first_row + (g + 1) * group_size) for g in range(num_groups)]
        tool_mask = tool_mask if tool_mask is not None else [[1] * len(ids) for ids in completion_ids]

        rewards_per_func = self._score(inputs, prompts, completions, completion_ids)
        rollout = _Rollout(
            histories=[[self._group_state(rewards_per_func[rows])] for rows in group_rows],
            group_feedback=[""] * num_groups,
            final_rewards_per_func=rewards_per_func.clone(),
            turn0_rewards_per_func=rewards_per_func,
        )
        rollout.routes = [route(history, num_turns) for history in rollout.histories]

        for turn in range(1, num_turns):
            failed = [group for group in range(num_groups) if rollout.routes[group] == Route.REGENERATE]
            feedback = self._ask_for_feedback(failed, prompts, completions, rewards_per_func, group_rows, rollout)
            regenerate = [group for group in failed if feedback[group] is not None]
            for group in set(failed) - set(regenerate):
                rollout.routes[group] = Route.UNRESOLVED
            rows = [group * group_size + k for group in regenerate for k in range(group_size)]
            most_rows = self._max_over_processes(len(rows))
            if most_rows == 0:
                break

            contexts = [
                inject_feedback(prompts[row], feedback[row // group_size], self.args.feedback_injection)
                for row in rows
            ]
            new_prompt_ids, prefill_ids, continuation_ids, continuation_logprobs = self._regenerate(
                rows, contexts, prompt_ids, most_rows
            )
            eos_and_pad = [*self.eos_token_ids, self._tokenizer.pad_token_id]
            for index, row in enumerate(rows):
                scored = tool_mask[row]
                if self.mask_truncated_completions and completion_ids[row][-1] not in eos_and_pad:
                    scored = [0] * len(scored)  # as TRL masks a truncated row out of the loss, so for a negative
                rollout.previous_rows[row] = (prompt_ids[row], completion_ids[row], scored)
                prompt_ids[row] = new_prompt_ids[index]
                completion_ids[row] = prefill_ids[index] + continuation_ids[index]
                tool_mask[row] = [0] * len(prefill_ids[index]) + [1] * len(continuation_ids[index])
                if logprobs is not None:
                    logprobs[row] = [0.0] * len(prefill_ids[index]) + continuation_logprobs[index]
            texts = self._tokenizer.batch_decode([completion_ids[row] for row in rows], skip_special_tokens=True)
            for row, text in zip(rows, texts, strict=True):
                completions[row] = (
                    [{"role": "assistant", "content": text}] if isinstance(completions[row], list) else text
                )

            rewards_per_func = self._score(inputs, prompts, completions, completion_ids)
            regenerated = torch.zeros(len(prompts), dtype=torch.long, device=rewards_per_func.device)
            regenerated[rows] = 1
            regenerated = self.accelerator.gather(regenerated).bool()
            rollout.final_rewards_per_func[regenerated] = rewards_per_func[regenerated]
            for group in regenerate:
                rollout.group_feedback[group] = feedback[group]
                rollout.histories[group].append(self._group_state(rewards_per_func[group_rows[group]]))
                rollout.routes[group] = route(rollout.histories[group], num_turns)

        # A group still marked for regeneration after the last turn ran out of budget.
        rollout.routes = [Route.UNRESOLVED if r == Route.REGENERATE else r for r in rollout.routes]
        rollout.local_final_rewards = self._weighted(
            rollout.final_rewards_per_func[first_row : first_row + len(prompts)]
        )
        # The completions table gets each row's turn (its group's last) and the feedback it was conditioned on.
        self._log_completion_extra("turn", [len(h) - 1 for h in rollout.histories for _ in range(group_size)])
        self._log_completion_extra("feedback", [f for f in rollout.group_feedback for _ in range(group_size)])
        self._rollout = rollout
        return prompt_ids, completion_ids, tool_mask, completions, logprobs, extra_fields, images, tool_images

    def _weighted(self, rewards_per_func: torch.Tensor) -> torch.Tensor:
        return weighted_rewards(rewards_per_func, self.reward_weights)

    def _group_state(self, rewards_per_func: torch.Tensor) -> GroupState:
        return group_state(self._weighted(rewards_per_func), self.args.success_threshold)

    def _max_over_processes(self, value: int) -> int:
        """The largest `value` over processes; every process must call this together."""
        return int(self.accelerator.gather(torch.tensor([value], device=self.accelerator.device)).max())

    def _regenerate(self, rows, contexts, prompt_ids, num_rows):
        """One batched generation for every row that needs the next turn.

        Every process sends `num_rows` rows (the most any process has), padding with whole groups of dummy rows:
        vLLM's server and tensor-parallel modes slice the gathered results by process, assuming equal counts.
        """
        if self.args.feedback_injection == "plain" and rows:
            new_prompt_ids, _, _ = self._tokenize_prompts([prompt for prompt, _ in contexts])
        else:
            new_prompt_ids = [prompt_ids[row] for row in rows]
        prefills = [prefill for _, prefill in contexts]
        prefill_ids = self._tokenizer(prefills, add_special_tokens=False)["input_ids"] if rows else []
        generation_ids = [p + f for p, f in zip(new_prompt_ids, prefill_ids, strict=True)]
        generation_ids += [prompt_ids[0]] * (num_rows - len(rows))
        continuation_ids, logprobs = self._generate_single_turn(generation_ids, None, {}, self.num_generations)
        logprobs = logprobs if logprobs is not None else [None] * len(continuation_ids)
        return new_prompt_ids, prefill_ids, continuation_ids[: len(rows)], logprobs[: len(rows)]

    def _ask_for_feedback(self, failed, prompts, completions, rewards_per_func, group_rows, rollout):
        """Feedback text per failed group of this process (None when the provider gave none), asked concurrently."""
        group_size, requests = self.num_generations, []
        for group in failed:
            first = group * group_size
            columns = {k: v for k, v in self._turn_inputs[first].items() if k not in ("prompt", "completion")}
            requests.append(
                FeedbackRequest(
                    prompt=problem_text(prompts[first]),
                    completions=[completion_text(c) for c in completions[first : first + group_size]],
                    rewards=self._weighted(rewards_per_func[group_rows[group]]).tolist(),
                    columns=columns,
                )
            )
        results = self._run_async(
            request_feedback(
                self.feedback_provider, requests, self.args.feedback_max_concurrency, self.args.feedback_turn_deadline
            )
        )
        if hasattr(self.feedback_provider, "pop_metrics"):  # e.g. retries and token usage of a remote provider
            rollout.counts.update(self.feedback_provider.pop_metrics())
        feedback = {}
        special_tokens = tuple(self._tokenizer.all_special_tokens)
        for group, request, result in zip(failed, requests, results, strict=True):
            rollout.counts["feedback/requests"] += 1
            rollout.counts["feedback/latency_sum"] += result.latency_s
            rollout.latency_max = max(rollout.latency_max, result.latency_s)
            text = result.text
            if text is not None:
                reference = request.columns.get("solution")
                text, leaked = redact_answer_leak(text, reference if isinstance(reference, str) else None)
                rollout.counts["feedback/leaks_redacted"] += leaked
                text = sanitize_feedback(text, special_tokens)
                text = truncate_to_tokens(text, self._tokenizer, self.args.max_feedback_length)
                text = sanitize_feedback(text, special_tokens) or None
            rollout.counts["feedback/errors"] += text is None
            feedback[group] = text
        return feedback

    def _run_async(self, coroutine):
        # A loop of our own in a daemon thread: the trainer may itself run inside an event loop (notebooks).
        if self._feedback_loop is None:
            _, self._feedback_loop, ready = start_event_loop_in_daemon(name="mulferl-feedback")
            ready.wait()
        return asyncio.run_coroutine_threadsafe(coroutine, self._feedback_loop).result()

    def _log_rollout(self, rollout: _Rollout):
        """Routing and feedback metrics, summed over processes so that every process logs the same values."""
        num_turns = 1 + self.args.max_feedback_turns
        logged_routes = [r for r in Route if r != Route.REGENERATE]
        values = [sum(r == logged for r in rollout.routes) for logged in logged_routes]
        for turn in range(num_turns):
            reached = [h for h in rollout.histories if len(h) > turn]
            values += [len(reached), sum(h[turn] == GroupState.FAILED for h in reached)]
        trained_rewards = [
            reward
            for row, reward in enumerate(rollout.local_final_rewards.tolist())
            if rollout.routes[row // self.num_generations] in _TRAINED_ROUTES
        ]
        values += [sum(trained_rewards), len(trained_rewards)]
        feedback_keys = ["feedback/requests", "feedback/errors", "feedback/leaks_redacted", "feedback/latency_sum"]
        feedback_keys += ["feedback/retries", "feedback/prompt_tokens", "feedback/completion_tokens"]
        fco_keys = ["fco/groups", "fco/loss_sum", "fco/gap_sum", "fco/pairs", "fco/dropped_pairs"]
        values += [rollout.counts[key] for key in feedback_keys + fco_keys]
        totals = self.accelerator.gather(torch.tensor([values], dtype=torch.float64, device=self.accelerator.device))
        totals = totals.sum(dim=0).tolist()

        metrics = self._metrics["train"]
        num_groups = sum(totals[: len(logged_routes)])
        for logged, count in zip(logged_routes, totals, strict=False):
            metrics[f"mulferl/route/{logged.value}"].append(count / num_groups)
        offset = len(logged_routes)
        for turn in range(num_turns):
            reached, failed = totals[offset + 2 * turn], totals[offset + 2 * turn + 1]
            metrics[f"mulferl/turn_{turn}/failed_groups"].append(failed)
            if turn > 0:
                metrics[f"mulferl/turn_{turn}/escape_rate"].append(1 - failed / reached if reached else float("nan"))
        offset += 2 * num_turns
        reward_sum, reward_count, requests, errors, leaks, latency_sum = totals[offset : offset + 6]
        retries, prompt_tokens, completion_tokens = totals[offset + 6 : offset + 9]
        fco_groups, fco_loss_sum, gap_sum, pairs, dropped_pairs = totals[offset + 9 :]
        latency_max = self.accelerator.gather(
            torch.tensor([rollout.latency_max], dtype=torch.float64, device=self.accelerator.device)
        ).max()
        metrics["mulferl/reward_final"].append(reward_sum / reward_count if reward_count else float("nan"))
        metrics["mulferl/feedback/requests"].append(requests)
        metrics["mulferl/feedback/errors"].append(errors)
        metrics["mulferl/feedback/leaks_redacted"].append(leaks)
        metrics["mulferl/feedback/latency_s"].append(latency_sum / requests if requests else float("nan"))
        metrics["mulferl/feedback/latency_max_s"].append(latency_max.item() if requests else float("nan"))
        metrics["mulferl/feedback/retries"].append(retries)
        metrics["mulferl/feedback/prompt_tokens"].append(prompt_tokens)
        metrics["mulferl/feedback/completion_tokens"].append(completion_tokens)
        if self._fco_enabled:
            metrics["mulferl/fco/loss"].append(fco_loss_sum / fco_groups if fco_groups else float("nan"))
            metrics["mulferl/fco/score_gap"].append(gap_sum / pairs if pairs else float("nan"))
            metrics["mulferl/fco/pairs"].append(pairs)
            metrics["mulferl/fco/dropped_pairs"].append(dropped_pairs)

        # TRL logged `reward` from the final rows; decision 9 keeps TRL's reward metrics on turn 0, like GRPO's.
        turn0 = rollout.turn0_rewards_per_func
        weighted = (turn0 * self.reward_weights.to(turn0.device).unsqueeze(0)).nansum(dim=1)
        weighted[torch.isnan(turn0).all(dim=1)] = float("nan")
        metrics["reward"][-1] = torch.nanmean(weighted).item()
        metrics["reward_std"][-1] = nanstd(weighted).item()
        for i, name in enumerate(self.reward_func_names):
            metrics[f"rewards/{name}/mean"][-1] = torch.nanmean(turn0[:, i]).item()
            metrics[f"rewards/{name}/std"][-1] = nanstd(turn0[:, i]).item()
