"""Self-feedback: the frozen starting policy reviews the failed rollouts (paper section 5.1, Tables 3 and 13)."""

import logging
import time
from collections import Counter
from contextlib import contextmanager

import torch
from transformers import GenerationConfig
from trl.models.utils import unwrap_model_for_generation
from trl.trainer.utils import use_adapter

from ..core.collectives import is_collective_error
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


logger = logging.getLogger(__name__)

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

    @classmethod
    def from_arguments(cls, args) -> "SelfFeedbackProvider":
        """`feedback_provider="self"`: the provider the feedback arguments (`FeedbackArguments`) set up."""
        return cls(
            max_new_tokens=args.max_feedback_length,
            temperature=args.feedback_temperature,
            group_size=args.feedback_group_size,
        )

    def __repr__(self):
        return f"SelfFeedbackProvider(max_new_tokens={self.max_new_tokens}, temperature={self.temperature})"

    def pop_metrics(self) -> Counter:
        """Prompt and generated tokens and failed reviews since the last call; the trainer logs them as
        `mulferl/feedback/*`."""
        metrics, self._metrics = self._metrics, Counter()
        return metrics

    def feedback_batch(self, requests: list[FeedbackRequest], trainer) -> list[FeedbackResult]:
        """The feedback for each of this process's requests; every process calls this together.

        Where generation is collective, a process whose own part fails (e.g. a prompt its chat template rejects) must
        still make both `generate` calls the others make: it goes on with no request, and its requests come back
        as errors (their groups unresolved). A failed collective is no such failure: it is raised.
        """
        start = time.perf_counter()
        failure = None
        try:
            splits = [split_subgroups(len(r.completions), self.group_size, r.generator()) for r in requests]
            review_conversations = [
                _conversation(REVIEWER_PROMPT, review_request(r.prompt, r.completions, r.rewards, indices))
                for r, subgroups in zip(requests, splits, strict=True)
                for indices in subgroups
            ]
        except Exception as error:
            failure, review_conversations = error, []
        replies, failure = self._generate_or_fail(trainer, review_conversations, failure)
        merge_conversations = []
        if failure is None:
            try:
                reviews, to_merge = self._reviews(splits, replies)
                merge_conversations = [
                    _conversation(MERGE_PROMPT, merge_request(requests[i].prompt, reviews[i])) for i in to_merge
                ]
            except Exception as error:
                failure = error
        merged, failure = self._generate_or_fail(trainer, merge_conversations, failure)
        latency = time.perf_counter() - start
        if failure is not None:
            logger.warning("Self-feedback failed on this process: %s: %s", type(failure).__name__, failure)
            return [FeedbackResult(None, latency, error=type(failure).__name__) for _ in requests]
        texts = [texts[0] if texts else None for texts in reviews]
        for index, text in zip(to_merge, merged, strict=True):
            texts[index] = _extracted(text)
        texts = [None if isinstance(text, FeedbackError) else text for text in texts]
        return [FeedbackResult(text, latency, None if text is not None else "empty") for text in texts]

    def _reviews(self, splits: list[list], replies: list[str]) -> tuple[list[list[str]], list[int]]:
        """Each request's successful reviews, and the requests with more than one (to merge)."""
        reviews, first = [], 0
        for subgroups in splits:
            group_replies, first = replies[first : first + len(subgroups)], first + len(subgroups)
            reviews.append(successful_reviews([_extracted(reply) for reply in group_replies]))
            if len(reviews[-1]) < len(subgroups):
                self._metrics["feedback/failed_reviews"] += len(subgroups) - len(reviews[-1])
        return reviews, [index for index, texts in enumerate(reviews) if len(texts) > 1]

    def _generate_or_fail(
        self, trainer, conversations, failure: Exception | None
    ) -> tuple[list[str], Exception | None]:
        """`_generate` of the conversations, or with none after a failure; the replies and the failure, if any."""
        try:
            return self._generate(trainer, [] if failure is not None else conversations), failure
        except Exception as error:  # raised before the collective call or where there is none (see `_generate`)
            if is_collective_error(error):
                raise
            return [], failure or error

    def _generate(self, trainer, conversations: list[list[dict[str, str]]]) -> list[str]:
        """One batched `generate` of the frozen policy over the conversations, on every process; the replies."""
        lockstep = trainer.lockstep
        if lockstep.forward_rows(len(conversations)) == 0:
            return []
        tokenizer, failure = trainer.processing_class, None
        try:
            inputs = _tokenized(tokenizer, conversations, trainer.accelerator.device)
        except Exception as error:
            if not lockstep.collective_forwards:
                raise
            # The others are about to generate: join them with the dummy request, then fail.
            failure, conversations = error, []
            inputs = _tokenized(tokenizer, conversations, trainer.accelerator.device)
        sampling = {"do_sample": True, "temperature": self.temperature, "top_p": 1.0, "top_k": 0}
        generation_config = GenerationConfig(
            max_new_tokens=self.max_new_tokens if conversations else 1,
            pad_token_id=tokenizer.pad_token_id,
            eos_token_id=trainer.eos_token_ids,
            stop_strings=["</feedback>"],
            disable_compile=True,
            **(sampling if self.temperature > 0 else {"do_sample": False}),
        )
        # A run of forwards: synchronised exactly where forwards are collective (not under ZeRO-1/2, see `Lockstep`).
        with reference_policy(trainer) as model, torch.no_grad():
            output = model.generate(
                **inputs,
                generation_config=generation_config,
                tokenizer=tokenizer,
                synced_gpus=lockstep.collective_forwards,
            )
        if failure is not None:
            raise failure
        if not conversations:
            return []
        replies = output[:, inputs["input_ids"].size(1) :]
        self._metrics["feedback/prompt_tokens"] += int(inputs["attention_mask"].sum())
        self._metrics["feedback/completion_tokens"] += int((replies != tokenizer.pad_token_id).sum())
        return tokenizer.batch_decode(replies, skip_special_tokens=True)


def _tokenized(tokenizer, conversations: list[list[dict[str, str]]], device) -> dict:
    """The conversations (the dummy request when there are none) in the chat template, left-padded."""
    texts = tokenizer.apply_chat_template(
        conversations or [_DUMMY_CONVERSATION], add_generation_prompt=True, tokenize=False
    )
    return tokenizer(texts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False).to(
        device
    )
