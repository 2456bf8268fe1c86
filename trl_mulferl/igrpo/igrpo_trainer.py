import os

import torch
from trl import GRPOTrainer

from ..core.model_card import IGRPO, trainer_model_card
from ..core.routing import make_generator, weighted_rewards
from ..core.schema import append_to_prompt
from ..core.validation import check_dataset_columns, check_reward_outputs, refuse_unsupported, resolve_args
from .igrpo_config import IGRPOConfig


def append_draft(prompt, draft: str, template: str):
    """The paper's `Concat(q, d)`: the template with the draft, appended to a plain prompt or to the last user turn."""
    # not str.format: templates may hold other braces, e.g. \boxed{}
    return append_to_prompt(prompt, template.replace("{draft}", draft))


def select_best_drafts(rewards: torch.Tensor, generators: list[torch.Generator]) -> torch.Tensor:
    """Index of the best draft of each prompt (eq. 2), ties broken uniformly at random; a NaN reward never wins.

    Args:
        rewards: `(num_prompts, num_drafts)` weighted rewards.
        generators: One per prompt, the source of its tie-break.
    """
    rewards = torch.nan_to_num(rewards.double(), nan=-torch.inf)
    best = []
    for row, generator in zip(rewards, generators, strict=True):
        candidates = torch.nonzero(row == row.max()).flatten()
        best.append(candidates[torch.randint(len(candidates), (1,), generator=generator)].item())
    return torch.tensor(best)


class IGRPOTrainer(GRPOTrainer):
    """
    [`~trl.GRPOTrainer`] whose prompts carry the best of the policy's own drafts (iGRPO): it changes only what the
    prompts are, before TRL's own step.

    Each step, Stage 1 samples `num_drafts` drafts per prompt (one batched generation through TRL's backend), scores
    them with the reward functions and keeps the best; Stage 2 is [`~trl.GRPOTrainer`]'s own step on the prompts with
    that draft appended (`draft_template`), so the completion mask, advantages and loss cover Stage 2 only.
    Evaluation is plain GRPO on the original prompts, as the paper evaluates single-shot.

    Args:
        model, reward_funcs, args, **kwargs: As for [`~trl.GRPOTrainer`]; `args` is an [`IGRPOConfig`].
    """

    _tag_names = ["trl", "igrpo"]
    _name = "iGRPO"
    # Only the title: the paper's text we have (shared/seeds/igrpo-paper-part2.txt) names neither authors nor a year.
    _paper = {
        "title": "iGRPO: Self-Feedback-Driven LLM Reasoning",
        "citation": "@misc{igrpo,\n    title        = {{iGRPO: Self-Feedback-Driven LLM Reasoning}},\n}",
    }

    def __init__(
        self,
        model,
        reward_funcs=None,
        args: IGRPOConfig | None = None,
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
    ):
        args = resolve_args(args, IGRPOConfig, model, "iGRPO")
        refuse_unsupported(
            "IGRPOTrainer", tools=tools, rollout_func=rollout_func, environment_factory=environment_factory
        )
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
        if self._is_vlm:
            raise ValueError("IGRPOTrainer does not support vision-language models yet; use a text-only model.")
        check_dataset_columns("IGRPOTrainer", self.reward_funcs, self.reward_func_names, train_dataset)
        self.reward_funcs = check_reward_outputs(self.reward_funcs, self.reward_func_names)
        self._stage2_prompts = None  # during Stage 2, this process's original prompts, one per row

    def _generate_and_score_completions(self, inputs):
        if not self.model.training:
            return super()._generate_and_score_completions(inputs)
        group_size, num_drafts = self.num_generations, self.args.num_drafts
        prompt_rows = inputs[::group_size]  # the sampler repeats each prompt G times in a row

        # Stage 1: N drafts per prompt in one generation call, scored (and gathered) like any rollout.
        draft_inputs = [row for row in prompt_rows for _ in range(num_drafts)]
        draft_prompts = [row["prompt"] for row in draft_inputs]
        prompt_ids, _, _ = self._tokenize_prompts(draft_prompts)
        draft_ids, _ = self._generate_single_turn(prompt_ids, None, {}, num_drafts)
        drafts = self._tokenizer.batch_decode(draft_ids, skip_special_tokens=True)
        completions = [
            [{"role": "assistant", "content": d}] if isinstance(p, list) else d
            for p, d in zip(draft_prompts, drafts, strict=True)
        ]
        rewards_per_func = self._calculate_rewards(draft_inputs, draft_prompts, completions, draft_ids)
        # Columns and metrics logged by the reward functions describe Stage 2's rows.
        self._pending_extra_logs.clear()
        self._pending_metrics.clear()
        first_row = self.accelerator.process_index * len(draft_inputs)
        rewards = weighted_rewards(rewards_per_func, self.reward_weights)
        local_rewards = rewards[first_row : first_row + len(draft_inputs)].view(len(prompt_rows), num_drafts).cpu()
        first_prompt = self.accelerator.process_index * len(prompt_rows)
        generators = [
            make_generator(self.args.seed, self.state.global_step, first_prompt + p) for p in range(len(prompt_rows))
        ]
        best = select_best_drafts(local_rewards, generators)

        # Stage 2: GRPO on the prompts with the best draft appended whole (or cut to max_draft_length tokens).
        conditioned_inputs = []
        for p, row in enumerate(prompt_rows):
            kept_ids = draft_ids[p * num_drafts + best[p]][: self.args.max_draft_length]
            draft = self._tokenizer.decode(kept_ids, skip_special_tokens=True)
            conditioned = {**row, "prompt": append_draft(row["prompt"], draft, self.args.draft_template)}
            conditioned_inputs += [conditioned] * group_size
        self._stage2_prompts = [row["prompt"] for row in prompt_rows for _ in range(group_size)]
        try:
            output = super()._generate_and_score_completions(conditioned_inputs)
        finally:
            self._stage2_prompts = None
        self._log_drafts(rewards.view(-1, num_drafts), local_rewards.gather(1, best.unsqueeze(1)).squeeze(1))
        return output

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        # Stage 2's reward functions (an LLM judge reading the question) see the original prompt, not q + draft.
        if self._stage2_prompts is not None:
            prompts = self._stage2_prompts
        return super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)

    def _log_drafts(self, rewards: torch.Tensor, local_best_rewards: torch.Tensor):
        """Draft metrics over all processes (`rewards` is already gathered)."""
        best_rewards = self.accelerator.gather(local_best_rewards.to(self.accelerator.device).double())
        metrics = self._metrics["train"]
        metrics["igrpo/draft_reward_mean"].append(torch.nanmean(rewards).item())
        metrics["igrpo/best_draft_reward"].append(torch.nanmean(best_rewards).item())
        metrics["igrpo/stage2_reward_mean"].append(metrics["reward"][-1])
        correct = best_rewards >= self.args.success_threshold
        metrics["igrpo/frac_prompts_with_correct_draft"].append(correct.double().mean().item())

    def create_model_card(self, model_name=None, dataset_name=None, tags=None):
        """
        Writes the model card, README.md in `output_dir`: TRL's card with the iGRPO settings of the run; a local model
        or dataset is named, only a Hub one linked (TRL's card names them "None").

        Args:
            model_name (`str`, *optional*): Defaults to the name of `hub_model_id`, else of `output_dir`.
            dataset_name (`str`, *optional*): A Hub id (linked) or a local path.
            tags (`str` or `list[str]`, *optional*): Added to the trainer's tags.
        """
        if not self.is_world_process_zero():
            return
        card = trainer_model_card(self, model_name, dataset_name, tags, IGRPO)
        card.save(os.path.join(self.args.output_dir, "README.md"))
