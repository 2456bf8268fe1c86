import asyncio
import logging
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from accelerate.utils import gather_object, is_peft_model
from trl import GRPOTrainer
from trl.models.utils import disable_gradient_checkpointing
from trl.trainer.utils import get_config_model_id, nanstd, pad, start_event_loop_in_daemon, use_adapter

from .context_length import check_feedback_turn_fits
from .feedback import FeedbackRequest, feedback_cost, is_batched, problem_text, redact_answer_leak, request_feedback
from .losses import drop_empty_pairs, fco_loss, fco_score, fco_surrogate_coefficients
from .mulferl_config import MulFeRLConfig
from .providers import build_feedback_provider
from .rewards import completion_text
from .routing import GroupState, Route, group_state, make_generator, rewards_vary, route, sample_fco_pairs
from .sampled_logps import SampledLogpsRecorder
from .schema import inject_feedback, sanitize_feedback, truncate_to_tokens
from .self_provider import SelfFeedbackProvider
from .validation import (
    check_dataset_columns,
    check_feedback_provider,
    check_reward_outputs,
    refuse_unsupported,
    resolve_args,
    weighted_rewards,
)


logger = logging.getLogger(__name__)

_TRAINED_ROUTES = (Route.GRPO, Route.FCO)
_LOGGED_ROUTES = tuple(r for r in Route if r != Route.REGENERATE)
# Any non-zero beta makes GRPOTrainer.__init__ build the reference policy; FCO needs one even when beta is 0.
_REFERENCE_ONLY_BETA = 1.0
# The reference log-prob of rows outside the loss (no KL term): any value whose masked KL stays finite.
_UNUSED_REFERENCE_LOGP = -1e4
_PARTNER_KEYS = ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "score_mask")
# Metrics reduced with max over processes; every other count is summed.
_MAX_METRICS = ("feedback/latency_max",)
_FEEDBACK_COUNTS = (
    "requests",
    "errors",
    "leaks_redacted",
    "retries",
    "prompt_tokens",
    "completion_tokens",
    "capped_groups",
    "skipped_truncated",
)


@dataclass
class _Rows:
    """This process's rows of the generation batch, as TRL's `_generate` returns them; regenerated rows replace the
    failed ones in place (decision 3), so the row count never changes."""

    prompt_ids: list[list[int]]
    completion_ids: list[list[int]]
    tool_mask: list[list[int]]
    completions: list
    logprobs: list[list[float]] | None
    policy_logps: list[list[float]] | None  # the policy's, recorded as transformers sampled (FCO only; 0 on prefills)


@dataclass
class _Rollout:
    """This process's groups through the turns of one generation batch (Algorithm 1's state)."""

    histories: list[list[GroupState]]  # per group, its state at each turn it reached
    routes: list[Route]  # per group, updated after each turn
    feedback: list[str]  # per group, the feedback its last turn was conditioned on ("" at turn 0)
    final_rewards_per_func: torch.Tensor  # gathered over processes; a row's rewards at its group's last turn
    turn0_rewards_per_func: torch.Tensor  # gathered over processes
    num_turns: int  # 1 + this step's feedback turns (`max_feedback_turns`, or its annealed value)
    feedback_groups_left: int | None = None  # this step's `max_feedback_groups_per_step` budget, over all processes
    # per local row, (prompt_ids, completion_ids, scored-token mask, policy log-probs or None) one turn before its
    # last: the FCO negatives
    negatives: dict[int, tuple[list[int], list[int], list[int], list[float] | None]] = field(default_factory=dict)
    policy_logps: list[list[float]] | None = None  # the final rows', as `_Rows.policy_logps`
    # handed to TRL's advantage computation: the rewards of GRPO-routed rows, NaN elsewhere
    trained_rewards_per_func: torch.Tensor | None = None
    counts: Counter = field(default_factory=Counter)  # local sums, logged as mulferl/<name> after a gather

    def groups(self, route_: Route) -> list[int]:
        return [group for group, r in enumerate(self.routes) if r == route_]


class MulFeRLTrainer(GRPOTrainer):
    """
    Trainer for MulFeRL (Multi-turn Feedback-guided Reinforcement Learning).

    After TRL generates and scores the K rollouts of each prompt, every prompt whose group all failed gets verbal
    feedback from `feedback_provider`, which is injected into the `<feedback>` slot of the answer
    (`<thinking><feedback>{feedback}</feedback>` prefilled at the head of the completion, masked out of the loss), and
    the group is regenerated, up to `max_feedback_turns` times. Each prompt is trained on the first turn that shows
    contrast: a group whose rewards vary gets TRL's GRPO loss; a group turned from all-failed into all-solved gets
    the FCO loss; every other prompt (solved at turn 0, still failing, unscorable) gets no loss. Everything else
    (generation backends, reward gathering, log-probs, logging) is [`~trl.GRPOTrainer`]'s.

    Args:
        model, reward_funcs, args, train_dataset, ...: As for [`~trl.GRPOTrainer`], in the same order; `args` is a
            [`MulFeRLConfig`]. `tools`, `rollout_func` and `environment_factory` are refused: the feedback turns own
            the prompts and the completion mask.
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
        refuse_unsupported(
            "MulFeRLTrainer", tools=tools, rollout_func=rollout_func, environment_factory=environment_factory
        )
        if feedback_provider is None:
            feedback_provider = build_feedback_provider(args)
        if args.max_feedback_turns > 0:
            if feedback_provider is None:
                raise ValueError(
                    f"MulFeRLTrainer needs a `feedback_provider` when max_feedback_turns > 0 (got "
                    f"{args.max_feedback_turns}). Pass feedback_provider=..., or set max_feedback_turns=0 for plain "
                    "GRPO."
                )
            check_feedback_provider(feedback_provider, train_dataset)
            if hasattr(feedback_provider, "check_connection"):
                feedback_provider.check_connection()  # an unreachable endpoint fails here, not mid-run

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
            args.beta = _REFERENCE_ONLY_BETA  # TRL's own code then builds the reference (or the PEFT "ref" adapter)
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
        check_dataset_columns("MulFeRLTrainer", self.reward_funcs, self.reward_func_names, train_dataset)
        self.reward_funcs = check_reward_outputs(self.reward_funcs, self.reward_func_names)
        self.feedback_provider = feedback_provider
        # Over the run and all processes, for the summary logged at the end of training.
        self._feedback_totals = Counter(dict.fromkeys(("requests", "prompt_tokens", "completion_tokens", "cost"), 0))
        self._feedback_loop = None
        self._turn_inputs = None
        self._rollout = None
        self._sampled_logps = None
        self._loss_logps = None
        self._joined_partners = None
        self._warned_unscorable_step = False

    # ----------------------------------------------------------------------------------------------------------------
    # Generation: Algorithm 1's turn loop, inside TRL's `_generate`

    def _generate(self, prompts):
        generated = super()._generate(prompts)
        if not self.model.training:
            return generated  # evaluation is plain GRPO: no feedback turns
        prompt_ids, completion_ids, tool_mask, completions, logprobs, extra_fields, images, tool_images = generated
        tool_mask = tool_mask if tool_mask is not None else [[1] * len(ids) for ids in completion_ids]
        rows = _Rows(prompt_ids, completion_ids, tool_mask, completions, logprobs, self._take_sampled_logps())
        rollout = self._start_rollout(prompts, rows)

        for turn in range(1, rollout.num_turns):
            failed = rollout.groups(Route.REGENERATE)
            feedback = self._ask_for_feedback(turn, failed, prompts, rows, rollout)
            regenerated = [group for group in failed if feedback[group] is not None]
            for group in failed:
                if feedback[group] is None:
                    rollout.routes[group] = Route.UNRESOLVED
            # Every process regenerates and scores as many rows: the most any process needs (dummies elsewhere).
            num_rows = self._max_over_processes(len(regenerated)) * self._group_size
            if num_rows == 0:
                break
            contexts = self._inject(regenerated, feedback, prompts)
            new_rows = self._regenerate(contexts, rows, num_rows)
            self._replace_rows(rows, regenerated, new_rows, rollout)
            self._rescore(prompts, rows, regenerated, rollout, num_rows)
            for group in regenerated:
                rollout.feedback[group] = feedback[group]
            self._route(rollout, regenerated)

        self._finish_rollout(rollout)
        rollout.policy_logps = rows.policy_logps
        self._rollout = rollout
        rows_out = (rows.prompt_ids, rows.completion_ids, rows.tool_mask, rows.completions, rows.logprobs)
        return (*rows_out, extra_fields, images, tool_images)

    @property
    def _group_size(self) -> int:
        return self.num_generations

    def _local_rows(self, num_rows: int) -> slice:
        """This process's rows within tensors gathered over processes."""
        first_row = self.accelerator.process_index * num_rows
        return slice(first_row, first_row + num_rows)

    def _group_rows(self, group: int) -> range:
        return range(group * self._group_size, (group + 1) * self._group_size)

    def _start_rollout(self, prompts, rows: _Rows) -> _Rollout:
        """Score turn 0 and route every group."""
        rewards_per_func = self._calculate_rewards(self._turn_inputs, prompts, rows.completions, rows.completion_ids)
        self._warn_if_unscorable(rewards_per_func)
        num_groups = len(prompts) // self._group_size
        rollout = _Rollout(
            histories=[[] for _ in range(num_groups)],
            routes=[Route.REGENERATE] * num_groups,
            feedback=[""] * num_groups,
            final_rewards_per_func=rewards_per_func.clone(),
            turn0_rewards_per_func=rewards_per_func,
            num_turns=1 + self.args.feedback_turns_at(self.state.global_step),
            feedback_groups_left=self.args.max_feedback_groups_per_step,
        )
        local = weighted_rewards(rewards_per_func[self._local_rows(len(prompts))], self.reward_weights)
        scored = local[~torch.isnan(local)]
        rollout.counts["turn_0/successes"] = (scored >= self.args.success_threshold).sum().item()
        rollout.counts["turn_0/scored_rows"] = scored.numel()
        rollout.counts["reward_rows"] = len(prompts)
        self._route(rollout, range(num_groups))
        return rollout

    def _route(self, rollout: _Rollout, groups):
        """Classify each group from its latest rewards and apply Algorithm 1 (with decision 12)."""
        local = rollout.final_rewards_per_func[self._local_rows(len(rollout.routes) * self._group_size)]
        rewards = weighted_rewards(local, self.reward_weights)
        for group in groups:
            group_rewards = rewards[self._group_rows(group)]
            rollout.histories[group].append(group_state(group_rewards, self.args.success_threshold))
            rollout.routes[group] = route(rollout.histories[group], rollout.num_turns, rewards_vary(group_rewards))

    def _ask_for_feedback(self, turn: int, groups, prompts, rows: _Rows, rollout: _Rollout) -> dict[int, str | None]:
        """Feedback text for turn `turn` per failed group of this process (None when there is none), all at once.

        A batched provider (self-feedback) is called on every process, even one with no request; any other provider
        gets every request concurrently on the feedback event loop, under `feedback_turn_deadline`.
        """
        asked = self._groups_to_ask(turn, groups, rows, rollout)
        local = rollout.final_rewards_per_func[self._local_rows(len(prompts))]
        requests = []
        for group in asked:
            first = group * self._group_size
            columns = {k: v for k, v in self._turn_inputs[first].items() if k not in ("prompt", "completion")}
            requests.append(
                FeedbackRequest(
                    prompt=problem_text(prompts[first]),
                    completions=[completion_text(rows.completions[row]) for row in self._group_rows(group)],
                    rewards=weighted_rewards(local[self._group_rows(group)], self.reward_weights).tolist(),
                    columns=columns,
                    turn=turn,
                )
            )
        if is_batched(self.feedback_provider):
            results = self.feedback_provider.feedback_batch(requests, self)
        else:
            results = self._run_async(
                request_feedback(
                    self.feedback_provider,
                    requests,
                    self.args.feedback_max_concurrency,
                    self.args.feedback_turn_deadline,
                )
            )
        if hasattr(self.feedback_provider, "pop_metrics"):  # `feedback/*` counts, e.g. retries and token usage
            rollout.counts.update(self.feedback_provider.pop_metrics())
        feedback = dict.fromkeys(groups)
        for group, request, result in zip(asked, requests, results, strict=True):
            rollout.counts["feedback/requests"] += 1
            rollout.counts["feedback/latency_sum"] += result.latency_s
            rollout.counts["feedback/latency_max"] = max(rollout.counts["feedback/latency_max"], result.latency_s)
            feedback[group] = None if result.text is None else self._prepare_feedback(result.text, request, rollout)
            rollout.counts["feedback/errors"] += feedback[group] is None
        return feedback

    def _groups_to_ask(self, turn: int, groups, rows: _Rows, rollout: _Rollout) -> list[int]:
        """The failed groups that get a feedback request; the others stay without feedback and end unresolved.

        With `feedback_skip_truncated`, groups whose rollouts all hit the length limit are skipped. With
        `max_feedback_groups_per_step`, groups beyond the step's budget are dropped at random, by a draw that every
        process makes alike from the gathered counts (a collective: every process calls this at every turn).
        """
        if self.args.feedback_skip_truncated:
            eos_and_pad = {*self.eos_token_ids, self._tokenizer.pad_token_id}

            def hit_length_limit(row: int) -> bool:
                return bool(rows.completion_ids[row]) and rows.completion_ids[row][-1] not in eos_and_pad

            truncated = [group for group in groups if all(map(hit_length_limit, self._group_rows(group)))]
            rollout.counts["feedback/skipped_truncated"] += len(truncated)
            groups = [group for group in groups if group not in truncated]
        if rollout.feedback_groups_left is None:
            return groups
        counts = self.accelerator.gather(torch.tensor([len(groups)], device=self.accelerator.device)).tolist()
        budget, total = rollout.feedback_groups_left, sum(counts)
        rollout.feedback_groups_left = max(0, budget - total)
        if total <= budget:
            return groups
        generator = make_generator(self.args.seed, self.state.global_step, -turn)  # prompt indices are >= 0
        first = sum(counts[: self.accelerator.process_index])
        chosen = torch.randperm(total, generator=generator)[:budget].tolist()
        kept = sorted(index - first for index in chosen if first <= index < first + len(groups))
        rollout.counts["feedback/capped_groups"] += len(groups) - len(kept)
        return [groups[index] for index in kept]

    def _prepare_feedback(self, text: str, request: FeedbackRequest, rollout: _Rollout) -> str | None:
        """Redact answer leaks, sanitise and cap the feedback (decisions 6 and 8); None when nothing is left."""
        try:
            text, leaked = redact_answer_leak(text, request.columns.get(self.args.feedback_reference_column))
        except Exception as error:  # the guard must never stop training: the group becomes unresolved
            logger.warning("Answer-leak check failed, the group is unresolved: %s: %s", type(error).__name__, error)
            return None
        rollout.counts["feedback/leaks_redacted"] += leaked
        special_tokens = tuple(self._tokenizer.all_special_tokens)
        text = sanitize_feedback(text, special_tokens)
        text = truncate_to_tokens(text, self._tokenizer, self.args.max_feedback_length)
        return sanitize_feedback(text, special_tokens) or None

    def _inject(self, groups, feedback, prompts) -> list[tuple[int, object, str]]:
        """`(row, context prompt, prefill)` for every row of the groups to regenerate."""
        contexts = []
        for group in groups:
            for row in self._group_rows(group):
                prompt, prefill = inject_feedback(prompts[row], feedback[group], self.args.feedback_injection)
                contexts.append((row, prompt, prefill))
        return contexts

    def _regenerate(self, contexts, rows: _Rows, num_rows: int):
        """One batched generation for every row that needs the next turn.

        Every process sends `num_rows` rows (the most any process has), padding with dummy rows: vLLM's server and
        tensor-parallel modes slice the gathered results by process, assuming equal counts, and sharded engines need
        every process to generate.

        Returns:
            Per regenerated row: its prompt ids, the prefill ids, the continuation ids, their sampling log-probs and
            the policy's as it sampled them (or None).
        """
        if self.args.feedback_injection == "plain" and contexts:
            prompt_ids, _, _ = self._tokenize_prompts([prompt for _, prompt, _ in contexts])
        else:
            prompt_ids = [rows.prompt_ids[row] for row, _, _ in contexts]
        prefills = [prefill for _, _, prefill in contexts]
        prefill_ids = self._tokenizer(prefills, add_special_tokens=False)["input_ids"] if contexts else []
        generation_ids = [p + f for p, f in zip(prompt_ids, prefill_ids, strict=True)]
        check_feedback_turn_fits(self, generation_ids)
        generation_ids += [rows.prompt_ids[0]] * (num_rows - len(contexts))
        continuation_ids, logprobs = self._generate_single_turn(generation_ids, None, {}, self._group_size)
        logprobs = logprobs if logprobs is not None else [None] * len(continuation_ids)
        policy_logps = self._take_sampled_logps() or [None] * len(continuation_ids)
        return list(zip(prompt_ids, prefill_ids, continuation_ids, logprobs, policy_logps, strict=False))

    # FCO scores need the policy's log-probs of every sampled token: transformers' `generate` computes them anyway.
    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        arguments = (prompt_ids, images, multimodal_fields, num_generations, has_tool_images)
        if not self._records_sampled_logps or multimodal_fields:
            return super()._generate_single_turn(*arguments)
        with SampledLogpsRecorder(self.accelerator.unwrap_model(self.model), self.temperature) as recorder:
            completion_ids, logprobs = super()._generate_single_turn(*arguments)
        self._sampled_logps = recorder.logps(completion_ids)
        return completion_ids, logprobs

    @property
    def _records_sampled_logps(self) -> bool:
        """FCO training on transformers' `generate`: one call per turn (vLLM's log-probs are another model's)."""
        generates_once = not (self.use_vllm or self.use_transformers_continuous_batching or self.tools)
        return self.args.fco_enabled and self.model.training and generates_once

    def _take_sampled_logps(self) -> list[list[float]] | None:
        logps, self._sampled_logps = self._sampled_logps, None
        return logps

    def _replace_rows(self, rows: _Rows, groups, new_rows, rollout: _Rollout):
        """Overwrite the failed rows with the regenerated ones; the old rows become the FCO negatives."""
        eos_and_pad = [*self.eos_token_ids, self._tokenizer.pad_token_id]
        regenerated_rows = [row for group in groups for row in self._group_rows(group)]
        turn_policy_logps = rows.policy_logps
        if any(new_row[4] is None for new_row in new_rows[: len(regenerated_rows)]):
            rows.policy_logps = None  # this turn was not recorded: the scores forward the policy
        for row, (prompt_ids, prefill_ids, continuation_ids, logprobs, policy_logps) in zip(
            regenerated_rows, new_rows, strict=False
        ):
            scored = rows.tool_mask[row]
            if self.mask_truncated_completions and rows.completion_ids[row][-1] not in eos_and_pad:
                scored = [0] * len(scored)  # as TRL masks a truncated row out of the loss, so for a negative
            old_policy_logps = None if turn_policy_logps is None else turn_policy_logps[row]
            rollout.negatives[row] = (rows.prompt_ids[row], rows.completion_ids[row], scored, old_policy_logps)
            rows.prompt_ids[row] = prompt_ids
            rows.completion_ids[row] = prefill_ids + continuation_ids
            rows.tool_mask[row] = [0] * len(prefill_ids) + [1] * len(continuation_ids)
            if rows.logprobs is not None:
                rows.logprobs[row] = [0.0] * len(prefill_ids) + logprobs
            if rows.policy_logps is not None:
                rows.policy_logps[row] = [0.0] * len(prefill_ids) + policy_logps
        texts = self._tokenizer.batch_decode(
            [rows.completion_ids[row] for row in regenerated_rows], skip_special_tokens=True
        )
        for row, text in zip(regenerated_rows, texts, strict=True):
            conversational = isinstance(rows.completions[row], list)
            rows.completions[row] = [{"role": "assistant", "content": text}] if conversational else text

    def _rescore(self, prompts, rows: _Rows, groups, rollout: _Rollout, num_rows: int):
        """Score the regenerated rows, and only them: each row is scored once per turn in which it was generated.

        Every process scores `num_rows` rows (copies of its first row as padding), since TRL gathers the rewards. The
        completions table's columns that reward functions log (`log_extra`) are merged into the final rows; the
        metrics they log (`log_metric`) stay those of turn 0, like TRL's own reward metrics.
        """
        regenerated = [row for group in groups for row in self._group_rows(group)]
        scored = regenerated + [0] * (num_rows - len(regenerated))
        extra_logs, metrics = self._pending_extra_logs, self._pending_metrics
        self._pending_extra_logs, self._pending_metrics = defaultdict(list), defaultdict(list)
        rewards_per_func = self._calculate_rewards(
            [self._turn_inputs[row] for row in scored],
            [prompts[row] for row in scored],
            [rows.completions[row] for row in scored],
            [rows.completion_ids[row] for row in scored],
        )
        for column, values in self._pending_extra_logs.items():
            column_values = extra_logs.setdefault(column, [None] * len(prompts))
            for row, value in zip(regenerated, values, strict=False):
                column_values[row] = value
        self._pending_extra_logs, self._pending_metrics = extra_logs, metrics
        first_row = self._local_rows(len(prompts)).start
        positions = [first_row + row for row in regenerated] + [-1] * (num_rows - len(regenerated))
        positions = self.accelerator.gather(torch.tensor(positions, device=rewards_per_func.device))
        scored_rows = positions >= 0
        rollout.final_rewards_per_func[positions[scored_rows]] = rewards_per_func[scored_rows]
        rollout.counts["reward_rows"] += len(regenerated)

    def _finish_rollout(self, rollout: _Rollout):
        """Close the groups out of turns, and the rewards TRL turns into advantages: those of GRPO-routed rows only.

        Every other row is NaN, i.e. unscorable for TRL, so every statistic TRL's advantages take (group and batch
        std, `normalize_then_sum`) covers the GRPO rows alone, and the other rows get zero advantage.
        """
        rollout.routes = [Route.UNRESOLVED if r == Route.REGENERATE else r for r in rollout.routes]
        grpo_rows = torch.tensor(
            [r == Route.GRPO for r in rollout.routes for _ in range(self._group_size)], device=self.accelerator.device
        )
        grpo_rows = self.accelerator.gather(grpo_rows)
        rollout.trained_rewards_per_func = rollout.final_rewards_per_func.masked_fill(
            ~grpo_rows.unsqueeze(1), torch.nan
        )
        # The completions table gets each row's turn (its group's last) and the feedback it was conditioned on.
        self._log_completion_extra("turn", [len(h) - 1 for h in rollout.histories for _ in range(self._group_size)])
        self._log_completion_extra("feedback", [f for f in rollout.feedback for _ in range(self._group_size)])

    # Hand TRL the turn loop's rewards for the final rows, so routing and advantages use the same values.
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        if self._rollout is not None and self._rollout.trained_rewards_per_func is not None:
            rewards, self._rollout.trained_rewards_per_func = self._rollout.trained_rewards_per_func, None
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

    def _max_over_processes(self, value: int) -> int:
        """The largest `value` over processes; every process must call this together."""
        return int(self.accelerator.gather(torch.tensor([value], device=self.accelerator.device)).max())

    def _run_async(self, coroutine):
        # A loop of our own in a daemon thread: the trainer may itself run inside an event loop (notebooks).
        if self._feedback_loop is None:
            _, self._feedback_loop, ready = start_event_loop_in_daemon(name="mulferl-feedback")
            ready.wait()
        return asyncio.run_coroutine_threadsafe(coroutine, self._feedback_loop).result()

    # ----------------------------------------------------------------------------------------------------------------
    # The generation batch: routes into per-row keys, FCO scores and coefficients, metrics

    # The turn loop needs the dataset rows, but `_generate` only receives the prompts.
    def _generate_and_score_completions(self, inputs):
        self._turn_inputs = inputs
        beta = self.beta
        if self.model.training:  # TRL would score every row under the reference; `_add_reference_logps` does it
            self.beta = 0.0
        try:
            output = super()._generate_and_score_completions(inputs)
        finally:
            self.beta = beta
        rollout, self._rollout = self._rollout, None
        if rollout is None:
            return output
        if self.beta != 0.0:
            self._add_reference_logps(output, rollout)
        grpo_rows = torch.tensor(
            [r == Route.GRPO for r in rollout.routes for _ in range(self._group_size)],
            device=output["advantages"].device,
        )
        mask = grpo_rows if output["advantages"].dim() == 1 else grpo_rows.unsqueeze(1)
        output["advantages"] = output["advantages"] * mask
        output["mulferl_grpo_rows"] = grpo_rows.float()
        if self.args.fco_enabled:
            self._add_fco_rows(output, rollout)
        self._log_rollout(rollout)
        return output

    def _add_reference_logps(self, output, rollout: _Rollout):
        """TRL's `ref_per_token_logps` for the rows whose loss uses them: GRPO rows (the KL term) and FCO rows (their
        scores). Every other row is outside the loss mask: it gets `_UNUSED_REFERENCE_LOGP`, far below any log-prob,
        so that its masked KL term is finite (`inf * 0` would be NaN)."""
        device = output["prompt_ids"].device
        uses_reference = (Route.GRPO, Route.FCO) if self.args.fco_enabled else (Route.GRPO,)
        rows = [
            row for group, r in enumerate(rollout.routes) if r in uses_reference for row in self._group_rows(group)
        ]
        completion_ids = output["completion_ids"]
        reference = torch.full(completion_ids.shape, _UNUSED_REFERENCE_LOGP, device=device)
        # Under ZeRO-3 and FSDP every forward is collective: all processes score as many rows (dummies: row 0).
        num_scored = self._max_over_processes(len(rows)) if self._sharded else len(rows)
        if num_scored > 0:
            scored_rows = torch.tensor(rows + [0] * (num_scored - len(rows)), device=device)
            forward = {
                "input_ids": torch.cat([output["prompt_ids"], completion_ids], dim=1)[scored_rows],
                "attention_mask": torch.cat([output["prompt_mask"], output["completion_mask"]], dim=1)[scored_rows],
                "logits_to_keep": completion_ids.size(1),
                "batch_size": self.args.per_device_train_batch_size,
            }
            with torch.no_grad(), disable_gradient_checkpointing(self.model, self.args.gradient_checkpointing_kwargs):
                logps = self._reference_logps(forward)
            reference = reference.to(logps.dtype)
            reference[scored_rows[: len(rows)]] = logps[: len(rows)]
        output["ref_per_token_logps"] = reference

    def _add_fco_rows(self, output, rollout: _Rollout):
        """Generation-time FCO scores and surrogate coefficients (decision 2); each FCO row carries its negative.

        Row k of a FAILED -> SOLVED prompt is positive k; negative k (the same row one turn earlier) rides along as the
        row's partner sequence. Coefficients are `fco_weight * dL/ds / (prompts in the generation batch)`, so the
        per-micro-batch terms of `_compute_loss` add up to the FCO term of the whole generation batch.
        """
        num_rows, device = output["prompt_ids"].size(0), output["prompt_ids"].device
        num_groups = num_rows // self._group_size
        fco_groups = rollout.groups(Route.FCO)
        fco_rows = [row for group in fco_groups for row in self._group_rows(group)]
        partner, partner_policy_logps = self._partner_batch(
            {row: rollout.negatives[row] for row in fco_rows}, num_rows, device
        )
        for key in ("mulferl_fco_coefficient", "mulferl_partner_coefficient", "mulferl_fco_loss_share"):
            output[key] = torch.zeros(num_rows, device=device)
        for key, value in partner.items():
            output[f"mulferl_partner_{key}"] = value
        most_fco_rows = self._max_over_processes(len(fco_rows))
        output["mulferl_fco_active"] = torch.tensor(most_fco_rows > 0, device=device)  # on every process alike
        # Under ZeRO-3 and FSDP every forward is collective: all processes score as many rows (dummies: row 0).
        num_scored = most_fco_rows if self._sharded else len(fco_rows)
        if num_scored == 0:
            return
        scored_rows = torch.tensor(fco_rows + [0] * (num_scored - len(fco_rows)), device=device)
        positive = {key: output[key][scored_rows] for key in _PARTNER_KEYS if key != "score_mask"}
        positive["score_mask"] = (output["completion_mask"] * output.get("tool_mask", 1))[scored_rows]
        ref_logps = output.get("ref_per_token_logps")  # TRL's, when beta != 0
        ref_logps = None if ref_logps is None else ref_logps[scored_rows]
        policy_logps = self._generation_time_policy_logps(output, rollout)
        policy_logps = None if policy_logps is None else policy_logps[scored_rows]
        pos_scores, pos_has_tokens = self._fco_scores(positive, ref_logps, policy_logps)
        negative = {key: value[scored_rows] for key, value in partner.items()}
        partner_policy_logps = None if partner_policy_logps is None else partner_policy_logps[scored_rows]
        neg_scores, neg_has_tokens = self._fco_scores(negative, policy_logps=partner_policy_logps)
        rows = scored_rows[: len(fco_rows)]
        first_group = self.accelerator.process_index * num_groups
        scale = self.args.fco_weight / num_groups
        tau, margin = self.args.fco_tau, self.args.fco_margin
        for index, group in enumerate(fco_groups):
            members = slice(index * self._group_size, (index + 1) * self._group_size)
            generator = make_generator(self.args.seed, self.state.global_step, first_group + group)
            pairs = sample_fco_pairs(self._group_size, self.args.fco_pairing, generator).to(device)
            pairs, dropped = drop_empty_pairs(pairs, pos_has_tokens[members], neg_has_tokens[members])
            pos, neg = pos_scores[members], neg_scores[members]
            pos_coefficients, neg_coefficients = fco_surrogate_coefficients(pos, neg, pairs, tau, margin)
            output["mulferl_fco_coefficient"][rows[members]] = scale * pos_coefficients
            output["mulferl_partner_coefficient"][rows[members]] = scale * neg_coefficients
            rollout.counts["fco/dropped_pairs"] += dropped
            if len(pairs):
                pair_loss = fco_loss(pos[pairs[:, 0]], neg[pairs[:, 1]], tau, margin)
                output["mulferl_fco_loss_share"][rows[members]] = scale * pair_loss / self._group_size
                rollout.counts["fco/groups"] += 1
                rollout.counts["fco/loss_sum"] += pair_loss.item()
                rollout.counts["fco/pairs"] += len(pairs)
                rollout.counts["fco/gap_sum"] += (pos[pairs[:, 0]] - neg[pairs[:, 1]]).sum().item()

    def _partner_batch(self, negatives, num_rows: int, device) -> tuple[dict[str, torch.Tensor], torch.Tensor | None]:
        """The FCO negatives as padded partner tensors, one per row (a one-token pad where a row has none), and their
        policy log-probs as sampled (None unless recorded for every negative)."""
        no_partner = ([self._tokenizer.pad_token_id], [self._tokenizer.pad_token_id], [0], [0.0])
        partner_rows = [negatives.get(row, no_partner) for row in range(num_rows)]
        columns = list(zip(*partner_rows, strict=True))
        prompt_ids, completion_ids, score_mask = (
            [torch.tensor(values, device=device) for values in column] for column in columns[:3]
        )
        sampled = columns[3]
        policy_logps = None
        if all(logps is not None for logps in sampled):
            policy_logps = pad([torch.tensor(logps, device=device) for logps in sampled])
        return {
            "prompt_ids": pad(prompt_ids, padding_value=self._tokenizer.pad_token_id, padding_side="left"),
            "prompt_mask": pad([torch.ones_like(ids) for ids in prompt_ids], padding_side="left"),
            "completion_ids": pad(completion_ids, padding_value=self._tokenizer.pad_token_id),
            "completion_mask": pad([torch.ones_like(ids) for ids in completion_ids]),
            "score_mask": pad(score_mask),
        }, policy_logps

    def _generation_time_policy_logps(self, output, rollout: _Rollout) -> torch.Tensor | None:
        """The final rows' policy log-probs if generation computed them: TRL's forward (for vLLM's importance
        sampling), or transformers' as it sampled; None otherwise."""
        if "old_per_token_logps" in output:
            return output["old_per_token_logps"]
        if rollout.policy_logps is None:
            return None
        device = output["completion_ids"].device
        logps = pad([torch.tensor(row, device=device) for row in rollout.policy_logps])
        return F.pad(logps, (0, output["completion_ids"].size(1) - logps.size(1)))  # TRL may pad to a multiple

    def _fco_scores(self, sequences, ref_logps=None, policy_logps=None):
        """FCO scores `s` (eq. 13, or its sum) without grad, from TRL's temperature-scaled log-probs; log-probs
        already computed at generation time are reused instead of forwarded again."""
        input_ids = torch.cat([sequences["prompt_ids"], sequences["completion_ids"]], dim=1)
        attention_mask = torch.cat([sequences["prompt_mask"], sequences["completion_mask"]], dim=1)
        forward = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "logits_to_keep": sequences["completion_ids"].size(1),
            "batch_size": self.args.per_device_train_batch_size,
        }
        with torch.no_grad(), disable_gradient_checkpointing(self.model, self.args.gradient_checkpointing_kwargs):
            if policy_logps is None:
                policy_logps, _, _ = self._get_per_token_logps_and_entropies(self.model, **forward)
            if ref_logps is None:
                ref_logps = self._reference_logps(forward)
        score_mask = sequences["score_mask"]
        scores = fco_score(policy_logps, ref_logps, score_mask, self.args.fco_score_normalization)
        return scores, score_mask.sum(dim=1) > 0

    def _reference_logps(self, forward):
        if self.ref_model is not None:
            return self._get_per_token_logps_and_entropies(self.ref_model, **forward)[0]
        # PEFT: the adapter-free base model, or TRL's frozen "ref" copy of an adapter passed in trained.
        unwrapped = self.accelerator.unwrap_model(self.model)
        with use_adapter(unwrapped, adapter_name="ref" if "ref" in unwrapped.peft_config else None):
            return self._get_per_token_logps_and_entropies(self.model, **forward)[0]

    def _log_rollout(self, rollout: _Rollout):
        """Routing, feedback and FCO metrics, reduced over processes by name so every process logs the same values."""
        counts = Counter(rollout.counts)
        for r in _LOGGED_ROUTES:
            counts[f"route/{r.value}"] = rollout.routes.count(r)
        for turn in range(1 + self.args.max_feedback_turns):
            reached = [h for h in rollout.histories if len(h) > turn]
            counts[f"turn_{turn}/reached"] = len(reached)
            counts[f"turn_{turn}/failed"] = sum(h[turn] == GroupState.FAILED for h in reached)
        local = weighted_rewards(rollout.final_rewards_per_func, self.reward_weights)
        local = local[self._local_rows(len(rollout.routes) * self._group_size)].tolist()
        trained = [
            reward for row, reward in enumerate(local) if rollout.routes[row // self._group_size] in _TRAINED_ROUTES
        ]
        counts["reward_final/sum"], counts["reward_final/count"] = sum(trained), len(trained)
        totals = Counter()
        for process_counts in gather_object([dict(counts)]):
            for name, value in process_counts.items():
                totals[name] = max(totals[name], value) if name in _MAX_METRICS else totals[name] + value

        metrics = self._metrics["train"]

        def ratio(numerator: float, denominator: float) -> float:
            return numerator / denominator if denominator else float("nan")

        num_groups = sum(totals[f"route/{r.value}"] for r in _LOGGED_ROUTES)
        for r in _LOGGED_ROUTES:
            metrics[f"mulferl/route/{r.value}"].append(totals[f"route/{r.value}"] / num_groups)
        metrics["mulferl/turn_0/success_rate"].append(ratio(totals["turn_0/successes"], totals["turn_0/scored_rows"]))
        for turn in range(1 + self.args.max_feedback_turns):
            metrics[f"mulferl/turn_{turn}/failed_groups"].append(totals[f"turn_{turn}/failed"])
            if turn > 0:  # groups regenerated at this turn: those that failed one turn earlier and got feedback
                metrics[f"mulferl/turn_{turn}/reached_groups"].append(totals[f"turn_{turn}/reached"])
                escaped = totals[f"turn_{turn}/reached"] - totals[f"turn_{turn}/failed"]
                metrics[f"mulferl/turn_{turn}/escape_rate"].append(ratio(escaped, totals[f"turn_{turn}/reached"]))
        metrics["mulferl/reward_final"].append(ratio(totals["reward_final/sum"], totals["reward_final/count"]))
        metrics["mulferl/reward_rows"].append(totals["reward_rows"])
        requests = totals["feedback/requests"]
        for name in _FEEDBACK_COUNTS:
            metrics[f"mulferl/feedback/{name}"].append(totals[f"feedback/{name}"])
        metrics["mulferl/feedback/latency_s"].append(ratio(totals["feedback/latency_sum"], requests))
        metrics["mulferl/feedback/latency_max_s"].append(totals["feedback/latency_max"] if requests else float("nan"))
        metrics["mulferl/feedback/max_turns"].append(rollout.num_turns - 1)
        for name in ("requests", "prompt_tokens", "completion_tokens"):
            self._feedback_totals[name] += totals[f"feedback/{name}"]
        self._feedback_totals["cost"] = feedback_cost(
            self._feedback_totals["prompt_tokens"],
            self._feedback_totals["completion_tokens"],
            self.args.feedback_input_token_price,
            self.args.feedback_output_token_price,
        )
        metrics["mulferl/feedback/cost"] = [self._feedback_totals["cost"]]  # a running total: the latest, not a mean
        if self.args.fco_enabled:
            metrics["mulferl/fco/loss"].append(ratio(totals["fco/loss_sum"], totals["fco/groups"]))
            metrics["mulferl/fco/score_gap"].append(ratio(totals["fco/gap_sum"], totals["fco/pairs"]))
            metrics["mulferl/fco/pairs"].append(totals["fco/pairs"])
            metrics["mulferl/fco/dropped_pairs"].append(totals["fco/dropped_pairs"])

        self._describe_turn_0(rollout.turn0_rewards_per_func, rollout.final_rewards_per_func)

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        # The summary `train()` logs once at its end (the only log with `train_runtime`) gets the feedback bill.
        if "train_runtime" in logs and self.feedback_provider is not None:
            logs.update({f"mulferl/feedback/total_{name}": value for name, value in self._feedback_totals.items()})
        super().log(logs, start_time)

    def _describe_turn_0(self, turn0_rewards_per_func: torch.Tensor, final_rewards_per_func: torch.Tensor):
        """Decision 9: TRL's reward metrics describe turn 0, as GRPO's would; its completions table the final rows.

        TRL logged both from the rewards it was handed (GRPO-routed rows only): overwrite them.
        """
        for i, name in enumerate(self.reward_func_names):
            column = self._logs["rewards"][name]
            for _ in range(min(len(column), len(final_rewards_per_func))):
                column.pop()
            column.extend(final_rewards_per_func[:, i].tolist())
        rewards_per_func = turn0_rewards_per_func
        metrics = self._metrics["train"]
        weighted = weighted_rewards(rewards_per_func, self.reward_weights)
        metrics["reward"][-1] = torch.nanmean(weighted).item()
        metrics["reward_std"][-1] = nanstd(weighted).item()
        group_std = nanstd(weighted.view(-1, self._group_size), dim=1)
        metrics["frac_reward_zero_std"][-1] = (
            torch.isclose(group_std, torch.zeros_like(group_std)).float().mean().item()
        )
        for i, name in enumerate(self.reward_func_names):
            metrics[f"rewards/{name}/mean"][-1] = torch.nanmean(rewards_per_func[:, i]).item()
            metrics[f"rewards/{name}/std"][-1] = nanstd(rewards_per_func[:, i]).item()

    # ----------------------------------------------------------------------------------------------------------------
    # The loss: TRL's GRPO term on GRPO-routed rows, plus the FCO surrogate

    @property
    def _sharded(self) -> bool:
        """DeepSpeed and FSDP: one backward per micro-step through the wrapped model, and collective forwards."""
        return self.is_deepspeed_enabled or self.is_fsdp_enabled

    def _compute_loss(self, model, inputs):
        fco = "mulferl_fco_coefficient" in inputs and torch.is_grad_enabled()
        # DeepSpeed and FSDP allow one backward per micro-step: the negatives ride in the main forward as extra rows.
        joined = fco and self._sharded and bool(inputs["mulferl_fco_active"])
        if fco and not self._sharded:
            self._backward_fco_partners(model, inputs)
        self._loss_logps = [] if fco else None
        self._joined_partners = {key: inputs[f"mulferl_partner_{key}"] for key in _PARTNER_KEYS} if joined else None
        try:
            loss = super()._compute_loss(model, self._grpo_rows_only(inputs))
        finally:
            logps, self._loss_logps, self._joined_partners = self._loss_logps, None, None
        if "mulferl_grpo_rows" in inputs and self.loss_type == "bnpo":
            loss = loss * self._bnpo_correction(inputs)
        if fco:
            # `s - s.detach()` is 0 with the gradient of s (the reference cancels); the share adds the true loss.
            score_mask = inputs["completion_mask"] * inputs.get("tool_mask", 1)
            surrogate = fco_score(logps[0], logps[0].detach(), score_mask, self.args.fco_score_normalization)
            loss = loss + (inputs["mulferl_fco_coefficient"] * surrogate).sum()
            loss = loss + inputs["mulferl_fco_loss_share"].sum()
            if joined:
                loss = loss + self._partner_term(inputs, logps[1], rows=slice(None))
        return loss

    @staticmethod
    def _grpo_rows_only(inputs):
        """The inputs with rows not routed to GRPO outside TRL's loss mask (`completion_mask * tool_mask`).

        Their advantage is already zero; masking also keeps their KL, entropy bonus and the logged `kl`, `entropy` and
        `clip_ratio/*` to the GRPO rows. `num_items_in_batch` (dapo's normaliser) was counted before, over all rows.
        """
        if "mulferl_grpo_rows" not in inputs:
            return inputs
        tool_mask = inputs.get("tool_mask", torch.ones_like(inputs["completion_mask"]))
        return {**inputs, "tool_mask": tool_mask * inputs["mulferl_grpo_rows"].to(tool_mask.dtype).unsqueeze(1)}

    @staticmethod
    def _bnpo_correction(inputs) -> torch.Tensor:
        # bnpo divides by the micro-batch's loss tokens; GRPOTrainer counts every row's, not only the GRPO rows'.
        loss_tokens = inputs["completion_mask"] * inputs.get("tool_mask", 1)
        grpo_tokens = (loss_tokens * inputs["mulferl_grpo_rows"].unsqueeze(1)).sum()
        return grpo_tokens / loss_tokens.sum().clamp(min=1.0)

    def _backward_fco_partners(self, model, inputs):
        """DDP: the negatives' FCO gradient in a backward pass of their own, so peak memory stays near GRPO's.

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
        self.accelerator.backward(self._partner_term(inputs, logps, rows))

    def _partner_term(self, inputs, logps, rows):
        """`sum w- * (s - s.detach())` over the partner sequences (the FCO negatives) of `rows`: FCO's gradient."""
        score_mask = inputs["mulferl_partner_score_mask"][rows]
        surrogate = fco_score(logps, logps.detach(), score_mask, self.args.fco_score_normalization)
        return (inputs["mulferl_partner_coefficient"][rows] * surrogate).sum()

    # Keep the policy log-probs of `_compute_loss`'s forward so that the FCO positives need no second forward.
    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs):
        partners, self._joined_partners = self._joined_partners, None
        if partners is not None:
            return self._forward_with_partners(
                model, input_ids, attention_mask, logits_to_keep, partners, *args, **kwargs
            )
        result = super()._get_per_token_logps_and_entropies(
            model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
        )
        if self._loss_logps is not None:
            self._loss_logps.append(result[0])
        return result

    def _forward_with_partners(self, model, input_ids, attention_mask, logits_to_keep, partners, *args, **kwargs):
        """The loss forward with the FCO negatives appended as extra rows (DeepSpeed and FSDP).

        One forward and one backward carry both: a second forward into the same backward reduces some gradients twice
        (ZeRO-3 with the reentrant checkpointing TRL uses for PEFT). Prompts are left-padded and completions
        right-padded to the longer of the two; rotary positions only shift, which leaves attention unchanged. Every
        process does this every micro-step with FCO anywhere (rows without a negative carry a one-token pad).
        """
        num_rows, prompt_length = input_ids.size(0), input_ids.size(1) - logits_to_keep
        partner_completion_length = partners["completion_ids"].size(1)
        prompt_width = max(prompt_length, partners["prompt_ids"].size(1))
        completion_width = max(logits_to_keep, partner_completion_length)
        pad_id = self._tokenizer.pad_token_id

        def arrange(prompt_ids, prompt_mask, completion_ids, completion_mask):
            left, right = prompt_width - prompt_ids.size(1), completion_width - completion_ids.size(1)
            ids = [F.pad(prompt_ids, (left, 0), value=pad_id), F.pad(completion_ids, (0, right), value=pad_id)]
            mask = [F.pad(prompt_mask, (left, 0)), F.pad(completion_mask, (0, right))]
            return torch.cat(ids, dim=1), torch.cat(mask, dim=1)

        main = arrange(
            input_ids[:, :prompt_length],
            attention_mask[:, :prompt_length],
            input_ids[:, prompt_length:],
            attention_mask[:, prompt_length:],
        )
        partner = arrange(
            partners["prompt_ids"], partners["prompt_mask"], partners["completion_ids"], partners["completion_mask"]
        )
        logps, entropies, aux_loss = super()._get_per_token_logps_and_entropies(
            model,
            torch.cat([main[0], partner[0]]),
            torch.cat([main[1], partner[1]]),
            completion_width,
            *args,
            **kwargs,
        )
        main_logps = logps[:num_rows, :logits_to_keep]
        self._loss_logps += [main_logps, logps[num_rows:, :partner_completion_length]]
        entropies = None if entropies is None else entropies[:num_rows, :logits_to_keep]
        return main_logps, entropies, aux_loss
