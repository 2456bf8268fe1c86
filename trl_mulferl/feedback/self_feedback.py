"""Self-feedback: the frozen starting policy reviews the failed rollouts (paper section 5.1, Tables 3 and 13)."""

import time
from collections import Counter
from contextlib import contextmanager

import torch
from transformers import GenerationConfig
from trl.models.utils import unwrap_model_for_generation
from trl.trainer.utils import use_adapter

from .openai import (
    MERGE_PROMPT,
    REVIEWER_PROMPT,
    FeedbackError,
    extract_feedback,
    merge_request,
    review_request,
    split_subgroups,
    successful_reviews,
)
from .protocol import FeedbackRequest, FeedbackResult


# What a process with no request of its own generates, one token long, so that every process calls `generate`.
_DUMMY_CONVERSATION = [{"role": "user", "content": "."}]


def _extracted(reply: str) -> str | FeedbackError:
    try:
        return extract_feedback(reply)
    except FeedbackError as error:
        return error


def _conversation(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


@contextmanager
def reference_policy(trainer):
    """The frozen starting policy of `trainer`, unwrapped for `generate`, as its FCO reference scores with it.

    That is `trainer.ref_model`, or with PEFT the policy with its adapter disabled (TRL's frozen "ref" adapter when a
    trained adapter was passed in). Under ZeRO-3 the parameters are gathered (`ds3_gather_for_generation`) and
    under FSDP1 summoned, as TRL's own generation does.
    """
    wrapped = trainer.ref_model if trainer.ref_model is not None else trainer.model_wrapped
    with (
        unwrap_model_for_generation(
            wrapped,
            trainer.accelerator,
            gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
            gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs,
        ) as model,
        trainer._dist.summon_full_params(wrapped, recurse=False),
    ):
        if trainer.ref_model is not None:
            yield model
        else:
            with use_adapter(model, adapter_name="ref" if "ref" in model.peft_config else None):
                yield model


class SelfFeedbackProvider:
    """
    Feedback written by the frozen starting policy: the paper's "self" simulator (the base checkpoint as its own
    reviewer, Tables 3 and 13).

    The writer is the trainer's FCO reference policy: its frozen reference model, or with PEFT the base model with
    the adapter disabled. It gets the reviewer and merge prompts of [`OpenAIFeedbackProvider`] (appendix A.4: random
    subgroups of `group_size` rollouts, one review each, then one merge), formatted with the tokenizer's chat
    template; the split is drawn from each request's generator (`(seed, global_step, prompt index)`, decision 4), and a
    review that comes back empty is left out of the merge (counted as `feedback/failed_reviews`). All reviews of a
    feedback turn are generated in one batched `generate` call and all merges in a
    second one, without gradients, each reply stopped at `</feedback>`. This is a batched provider (see
    `trl_mulferl.feedback`): under sharded engines (ZeRO-3, FSDP), whose forward passes are collective, every process
    makes both calls, with a one-token dummy request where it has none, so that none deadlocks; under DDP a process
    without a request makes none. It ignores
    `feedback_turn_deadline` (a generation cannot be abandoned by one process alone), and with `sync_ref_model=True`
    the reference, and so the reviewer, follows the policy.

    Args:
        max_new_tokens (`int`, defaults to `1024`): Reply budget per request (paper: 1024 feedback tokens).
        temperature (`float`, defaults to `0.0`): Sampling temperature; `0` is greedy decoding.
        group_size (`int`, defaults to `2`): Rollouts per review (paper: 2).
    """

    def __init__(self, max_new_tokens: int = 1024, temperature: float = 0.0, group_size: int = 2):
        if max_new_tokens < 1 or temperature < 0 or group_size < 1:
            raise ValueError(
                "SelfFeedbackProvider needs max_new_tokens >= 1, temperature >= 0 and group_size >= 1 (got "
                f"{max_new_tokens}, {temperature}, {group_size})."
            )
        self.max_new_tokens, self.temperature = max_new_tokens, temperature
        self.group_size = group_size
        self._metrics = Counter()

    def __repr__(self):
        return f"SelfFeedbackProvider(max_new_tokens={self.max_new_tokens}, temperature={self.temperature})"

    def pop_metrics(self) -> Counter:
        """Prompt and generated tokens and failed reviews since the last call; the trainer logs them as
        `mulferl/feedback/*`."""
        metrics, self._metrics = self._metrics, Counter()
        return metrics

    def feedback_batch(self, requests: list[FeedbackRequest], trainer) -> list[FeedbackResult]:
        """The feedback for each of this process's requests; every process calls this together."""
        start = time.perf_counter()
        splits = [split_subgroups(len(r.completions), self.group_size, r.generator()) for r in requests]
        replies = self._generate(
            trainer,
            [
                _conversation(REVIEWER_PROMPT, review_request(r.prompt, r.completions, r.rewards, indices))
                for r, subgroups in zip(requests, splits, strict=True)
                for indices in subgroups
            ],
        )
        reviews, first = [], 0
        for subgroups in splits:
            group_replies, first = replies[first : first + len(subgroups)], first + len(subgroups)
            reviews.append(successful_reviews([_extracted(reply) for reply in group_replies]))
            if len(reviews[-1]) < len(subgroups):
                self._metrics["feedback/failed_reviews"] += len(subgroups) - len(reviews[-1])
        to_merge = [index for index, texts in enumerate(reviews) if len(texts) > 1]
        merged = self._generate(
            trainer, [_conversation(MERGE_PROMPT, merge_request(requests[i].prompt, reviews[i])) for i in to_merge]
        )
        texts = [texts[0] if texts else None for texts in reviews]
        for index, text in zip(to_merge, merged, strict=True):
            texts[index] = _extracted(text)
        texts = [None if isinstance(text, FeedbackError) else text for text in texts]
        latency = time.perf_counter() - start
        return [FeedbackResult(text, latency, None if text is not None else "empty") for text in texts]

    def _generate(self, trainer, conversations: list[list[dict[str, str]]]) -> list[str]:
        """One batched `generate` of the frozen policy over the conversations, on every process; the replies."""
        accelerator = trainer.accelerator
        # `generate` on the transformers reference is a run of forwards: collective under ZeRO-3 and FSDP only.
        if trainer.lockstep.forward_rows(len(conversations)) == 0:
            return []
        tokenizer = trainer.processing_class
        texts = tokenizer.apply_chat_template(
            conversations or [_DUMMY_CONVERSATION], add_generation_prompt=True, tokenize=False
        )
        inputs = tokenizer(texts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False).to(
            accelerator.device
        )
        sampling = {"do_sample": True, "temperature": self.temperature, "top_p": 1.0, "top_k": 0}
        generation_config = GenerationConfig(
            max_new_tokens=self.max_new_tokens if conversations else 1,
            pad_token_id=tokenizer.pad_token_id,
            eos_token_id=trainer.eos_token_ids,
            stop_strings=["</feedback>"],
            disable_compile=True,
            **(sampling if self.temperature > 0 else {"do_sample": False}),
        )
        sharded = accelerator.num_processes > 1 and (trainer.is_deepspeed_enabled or trainer.is_fsdp_enabled)
        with reference_policy(trainer) as model, torch.no_grad():
            output = model.generate(
                **inputs, generation_config=generation_config, tokenizer=tokenizer, synced_gpus=sharded
            )
        if not conversations:
            return []
        replies = output[:, inputs["input_ids"].size(1) :]
        self._metrics["feedback/prompt_tokens"] += int(inputs["attention_mask"].sum())
        self._metrics["feedback/completion_tokens"] += int((replies != tokenizer.pad_token_id).sum())
        return tokenizer.batch_decode(replies, skip_special_tokens=True)
