"""Algorithm 1's per-group feedback step, which both MulFeRL trainers call: from a scored group to the provider's
request, from the provider's reply to the text injected (and its counts), from that text to the regeneration's
prompt and masked prefill, and back out of the slot for `feedback_replay`; the FCO pairs of a fixed group and their
weights.

`MulFeRLTrainer`'s turn loop (`trl_mulferl.mulferl.turn_loop`) runs the step over this process's failed groups of a
generation batch, every process together; `AsyncMulFeRLTrainer`'s rollout process
(`trl_mulferl.async_mulferl.async_rollout_worker`) over the one group of a feedback task. Where a method takes a list,
the first passes a batch and the second one group.
"""

from collections import Counter
from dataclasses import dataclass

import torch

from ..core.losses import drop_empty_pairs
from ..core.rewards import response_text
from ..core.routing import make_generator, sample_fco_pairs
from ..core.schema import (
    FEEDBACK_OPEN,
    THINKING_OPEN,
    control_token_ids,
    control_tokens,
    feedback_prefill,
    inject_feedback,
)
from .prepare import prepare_feedback
from .protocol import MALFORMED, FeedbackRequest, FeedbackResult, checked_results, problem_text


@dataclass(frozen=True)
class FeedbackStepSettings:
    """What the feedback step reads of a run's config (`of`), with the config's names; it pickles, for the
    asynchronous trainer's rollout process."""

    max_feedback_length: int
    feedback_reference_column: str
    seed: int
    fco_pairing: str | None  # None: FCO off
    feedback_leak_guard: str

    @classmethod
    def of(cls, args) -> "FeedbackStepSettings":
        """The settings of a [`MulFeRLConfig`] or [`AsyncMulFeRLConfig`]."""
        return cls(
            max_feedback_length=args.max_feedback_length,
            feedback_reference_column=args.feedback_reference_column,
            seed=args.seed,
            fco_pairing=args.fco_pairing if args.fco_enabled else None,
            feedback_leak_guard=args.feedback_leak_guard,
        )


class FeedbackStep:
    """
    The per-group feedback step for one policy tokenizer and one run's feedback settings.

    Args:
        settings: The run's [`FeedbackStepSettings`] (`FeedbackStepSettings.of(args)`).
        tokenizer: The policy's tokenizer.
        eos_token_ids: The ids that end a completion, TRL's `eos_token_ids`.
    """

    def __init__(self, settings: FeedbackStepSettings, tokenizer, eos_token_ids):
        self.tokenizer = tokenizer
        self.max_feedback_length = settings.max_feedback_length
        self.reference_column = settings.feedback_reference_column
        self.seed = settings.seed
        self.fco_pairing = settings.fco_pairing
        self.strict_leak_guard = settings.feedback_leak_guard == "strict"
        # A completion that ends on none of these hit the length limit, as TRL's `completions/clipped_ratio` reads it.
        self.stop_ids = frozenset({*eos_token_ids, tokenizer.pad_token_id})
        self.control_tokens = control_tokens(tokenizer)
        self.control_ids = control_token_ids(tokenizer)
        # `feedback_replay` puts it where the feedback was: the slot the policy writes at turn 0, empty.
        self.empty_slot_ids = tokenizer(feedback_prefill(""), add_special_tokens=False)["input_ids"]
        self.probes = control_probes(tokenizer)

    def request(
        self, prompt, completions: list, rewards: list[float], columns: dict, turn: int, step: int, prompt_index: int
    ) -> FeedbackRequest:
        """What the provider is asked about one failed group (decision 8): the problem text, the group's responses in
        full (a tool episode's turns with their calls and results), their rewards and the prompt's dataset columns;
        its random choices seeded from `(seed, step, prompt_index)` (decision 4)."""
        return FeedbackRequest(
            prompt=problem_text(prompt),
            completions=[response_text(completion) for completion in completions],
            rewards=list(rewards),
            columns=columns,
            turn=turn,
            seed=self.seed,
            step=step,
            prompt_index=prompt_index,
        )

    def hit_length_limit(self, completion_ids: list[int]) -> bool:
        return bool(completion_ids) and completion_ids[-1] not in self.stop_ids

    def all_truncated(self, group_completion_ids: list[list[int]]) -> bool:
        """Whether every rollout of a group hit the length limit (`feedback_skip_truncated` asks no feedback then)."""
        return all(map(self.hit_length_limit, group_completion_ids))

    def prepare(
        self, provider, requests: list[FeedbackRequest], results: list[FeedbackResult], counts: Counter
    ) -> list[str | None]:
        """The text to inject for each request (sanitised, answer leaks redacted, capped: decisions 6 and 8), None
        where nothing usable came back, or where the result breaks the protocol (`checked_results`).

        Adds to `counts` the requests, errors (malformed results among them), malformed results, redacted leaks and
        latencies (`feedback/<name>`), and the provider's own counts since its last call (`pop_metrics`: retries,
        token usage).
        """
        if hasattr(provider, "pop_metrics"):
            counts.update(provider.pop_metrics())
        texts = []
        for request, result in zip(requests, checked_results(provider, requests, results), strict=True):
            text = None
            if result.text is not None:
                reference = request.columns.get(self.reference_column)
                prepared = prepare_feedback(
                    result.text,
                    reference,
                    self.tokenizer,
                    self.max_feedback_length,
                    self.control_tokens,
                    problem=request.prompt,
                    strict=self.strict_leak_guard,
                )
                text = prepared.text
                counts["feedback/leaks_redacted"] += prepared.leaked
            counts["feedback/requests"] += 1
            counts["feedback/errors"] += text is None
            counts["feedback/malformed_results"] += result.error == MALFORMED
            counts["feedback/latency_sum"] += result.latency_s
            counts["feedback/latency_max"] = max(counts["feedback/latency_max"], result.latency_s)
            texts.append(text)
        return texts

    def prefill_ids(self, prefills: list[str], counts: Counter) -> list[list[int]]:
        """The token ids of each regeneration's prefill (`<thinking><feedback>...</feedback>`; empty under plain
        injection). No control-token id comes from the feedback (decision 6): it holds no added or special token
        string (sanitised), none of its text is read as a special token, and ids that a normaliser makes of what is
        left are dropped (`prefills_without_injected_control_ids`); adds how many to
        `counts["feedback/control_tokens_removed"]`."""
        cleaned = []
        for ids, removed in prefills_without_injected_control_ids(self.tokenizer, prefills, self.control_ids):
            counts["feedback/control_tokens_removed"] += removed
            cleaned.append(ids)
        return cleaned

    def context_ids(self, ids: list[list[int]], prompts: list, tokenize, counts: Counter) -> list[list[int]]:
        """Each of `ids`, a prompt of `prompts` with feedback appended by plain injection and tokenized by `tokenize`
        (a list of prompts to their lists of ids, as the trainer tokenizes prompts), without the control ids the
        feedback brought; adds how many to `counts["feedback/control_tokens_removed"]`.

        The feedback's place among the template's control ids (the prompt with empty feedback) comes from the same
        prompt with a control token as its feedback (`feedback_controls_before`): ids alone cannot tell a forged
        `<|im_end|><|im_start|>assistant` at the feedback's start from the template's own right after it. The
        probes go through `tokenize`, as the context did (a chat template, tools, a processor), rather than through
        character offsets, which a processor or a slow tokenizer does not give and which would need the template's
        text; an added token is read whole by every tokenizer, so its place among the control ids is exact.
        """
        if not ids:
            return []
        templates = tokenize([inject_feedback(prompt, "", "plain")[0] for prompt in prompts])
        renders = [
            (probe_id, tokenize([inject_feedback(prompt, probe, "plain")[0] for prompt in prompts]))
            for probe, probe_id in self.probes
        ]
        cleaned = []
        for row, (context, template) in enumerate(zip(ids, templates, strict=True)):
            controls = [token for token in template if token in self.control_ids]
            probed = [(probe_id, [t for t in rows[row] if t in self.control_ids]) for probe_id, rows in renders]
            before = feedback_controls_before(controls, probed)
            context, removed = without_injected_control_ids(context, template, self.control_ids, before)
            counts["feedback/control_tokens_removed"] += removed
            cleaned.append(context)
        return cleaned

    def regenerated_row(
        self,
        prompt_ids: list[int],
        prefill_ids: list[int],
        continuation_ids: list[int],
        mask: list[int],
        logprobs: list[float] | None,
        counts: Counter,
    ) -> tuple[list[int], list[int], list[float] | None]:
        """A regenerated rollout's completion ids, loss mask and sampling log-probs: the prefill at the head, outside
        the loss (mask 0, log-prob 0), then the continuation with `mask` (0 on tool results).

        Adds its tokens to `counts["regenerated_tokens"]`, counted as TRL's `num_input_tokens_seen` counts turn 0's:
        prompt and completion, tool results excepted.
        """
        counts["regenerated_tokens"] += len(prompt_ids) + len(prefill_ids) + sum(mask)
        logprobs = None if logprobs is None else [0.0] * len(prefill_ids) + list(logprobs)
        return prefill_ids + continuation_ids, [0] * len(prefill_ids) + list(mask), logprobs

    def fco_pairs(self, group_size: int, step: int, prompt_index: int) -> torch.Tensor:
        """The `(positive, negative)` pairs of a FAILED -> SOLVED prompt (`fco_pairing`), drawn from the prompt's own
        generator (decision 4)."""
        return sample_fco_pairs(group_size, self.fco_pairing, make_generator(self.seed, step, prompt_index))


def control_probes(tokenizer) -> list[tuple[str, int]]:
    """Two control tokens (string and id) that `tokenizer` reads back as their own id, for `feedback_controls_before`
    to put in the feedback's place; fewer where the tokenizer has fewer. Special tokens first, and none of white space
    (some tokenizers add runs of spaces as tokens, which a chat template may trim from a message)."""
    probes = []
    for token_id, token in sorted(
        tokenizer.added_tokens_decoder.items(), key=lambda item: (not item[1].special, item[0])
    ):
        readable = tokenizer(token.content, add_special_tokens=False)["input_ids"] == [token_id]
        if len(probes) < 2 and token.content.strip() and readable:
            probes.append((token.content, token_id))
    return probes


def feedback_controls_before(template_controls: list[int], probed: list[tuple[int, list[int]]]) -> int:
    """How many of `template_controls` (a template's control ids, in order) come before its feedback's place.

    `probed` holds, per probe, its id and the control ids of the template with that control token as the feedback:
    the template's with the probe's inserted at the feedback's place. A place that one probe allows may be any in a run
    of ids equal to the probe; a place both of two different probes allow is the one place, since a run of one's ids
    and a run of the other's do not overlap.
    """
    places = set(range(len(template_controls) + 1))
    for probe_id, controls in probed:
        places &= {
            place
            for place in range(len(template_controls) + 1)
            if controls == template_controls[:place] + [probe_id] + template_controls[place:]
        }
    if len(places) != 1:
        raise ValueError(
            f"Cannot place plain-injected feedback among the prompt's control tokens (it may be at any of "
            f"{sorted(places)} of {template_controls}): the tokenizer has too few added or special tokens to mark "
            "the place, or its chat template changes a message's text. Add a special token to the tokenizer "
            '(`tokenizer.add_special_tokens`), or use feedback_injection="structured".'
        )
    return places.pop()


def without_injected_control_ids(
    ids: list[int], template_ids: list[int], control_ids: frozenset[int], controls_before: int
) -> tuple[list[int], int]:
    """`ids`, a context tokenized with feedback in it, less the control-token ids the feedback brought, and how many.

    `template_ids` is the same context with empty feedback, and `controls_before` how many of its control ids come
    before the feedback. The result holds the template's control ids and no other, each where the template has it:
    `ids` must be the template's up to its last control id before the feedback and from its first control id after
    it, and every control id between the two is the feedback's and goes (a tokenizer whose normaliser is NFKC,
    lowercase or BERT's reads text that sanitising leaves, `＜|im_end|＞` or `<START_OF_TURN>`, as the added token).
    Where `ids` is not the template around the feedback (its text joined with the template's into another token),
    the result is the template: the context without the feedback.
    """
    template_positions = [position for position, token in enumerate(template_ids) if token in control_ids]
    controls = sum(token in control_ids for token in ids)
    injected = controls - len(template_positions)
    head = template_positions[controls_before - 1] + 1 if controls_before else 0
    tail = len(template_ids) - template_positions[controls_before] if controls_before < len(template_positions) else 0
    if (
        injected < 0
        or len(ids) < head + tail
        or ids[:head] != template_ids[:head]
        or ids[len(ids) - tail :] != template_ids[len(template_ids) - tail :]
    ):
        return list(template_ids), max(injected, 0)
    feedback = [token for token in ids[head : len(ids) - tail] if token not in control_ids]
    return ids[:head] + feedback + ids[len(ids) - tail :], injected


def prefills_without_injected_control_ids(
    tokenizer, prefills: list[str], control_ids: frozenset[int]
) -> list[tuple[list[int], int]]:
    """Each prefill's token ids (`split_special_tokens=True`) less the control ids its feedback brought, and how many
    (`without_injected_control_ids` against the empty slot). The control ids before the feedback are those of the
    slot's opening tags tokenized alone: they are the prefill's fixed head."""
    if not prefills:
        return []
    tokenized = tokenizer(
        [*prefills, feedback_prefill(""), THINKING_OPEN + FEEDBACK_OPEN],
        add_special_tokens=False,
        split_special_tokens=True,
    )["input_ids"]
    *prefill_ids, empty_slot_ids, head_ids = tokenized
    before = sum(token in control_ids for token in head_ids)
    return [without_injected_control_ids(ids, empty_slot_ids, control_ids, before) for ids in prefill_ids]


def without_prefill(ids: list, mask: list, prefill_length: int, slot_ids: list[int]) -> tuple[list, list]:
    """A completion's ids and per-token mask with its first `prefill_length` tokens (the injected feedback) replaced by
    `slot_ids` (the empty slot), masked with 0."""
    return slot_ids + ids[prefill_length:], [0] * len(slot_ids) + mask[prefill_length:]


def without_feedback(
    ids: list[int], mask: list[int], logprobs: list[float] | None, prefill_length: int, slot_ids: list[int]
) -> tuple[list[int], list[int], list[float] | None]:
    """`feedback_replay`: a regenerated completion's ids, mask and sampling log-probs with its `prefill_length` tokens
    of injected feedback replaced by the empty slot `slot_ids` (`FeedbackStep.empty_slot_ids`), masked with log-prob
    0."""
    ids, mask = without_prefill(ids, mask, prefill_length, slot_ids)
    if logprobs is not None:
        logprobs = [0.0] * len(slot_ids) + list(logprobs[prefill_length:])
    return ids, mask, logprobs


def check_fits_context(
    generation_ids: list[list[int]],
    max_completion_length: int,
    max_model_len: int | None,
    setting: str = "vllm_max_model_length",
):
    """Raise if the longest regeneration input (prompt and prefilled feedback) plus `max_completion_length` new tokens
    exceeds the generation backend's context, `max_model_len` (None: no limit known), naming the setting of that
    context and the length it needs.

    Without the check, vLLM stops the run with an error of its own (a prompt longer than its context), or cuts the
    turn's completions short without a word (a prompt that leaves fewer than `max_completion_length` tokens).
    """
    if max_model_len is None or not generation_ids:
        return
    longest = max(len(ids) for ids in generation_ids)
    needed = longest + max_completion_length
    if needed > max_model_len:
        raise ValueError(
            f"A feedback turn's prompt does not fit vLLM's context: its longest prompt with the injected feedback is "
            f"{longest} tokens, plus max_completion_length={max_completion_length} makes {needed}, over vLLM's "
            f"max_model_len of {max_model_len}. Set {setting} to at least {needed} (the longest prompt "
            "+ max_feedback_length + the prefill's tags + max_completion_length), or lower max_feedback_length."
        )


def kept_fco_pairs(
    pairs: torch.Tensor,
    scorable: tuple[torch.Tensor, torch.Tensor],
    has_tokens: tuple[torch.Tensor, torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """The pairs FCO trains, the weight of each, and the number dropped.

    A pair with an unscorable side is left out without a count (an unscorable rollout is no FCO member, decision 5);
    of the others, one with a side that has no scored token is dropped and counted (decision 10). Each kept pair
    weighs `1 / (pairs kept)`, so that the prompt adds its mean pair loss.

    Args:
        pairs: `(P, 2)` `(positive, negative)` indices into the solved group and the failed group before it.
        scorable: `(K,)` bool per positive and per negative: some reward function scored it.
        has_tokens: `(K,)` bool per positive and per negative: it has a scored token.
    """
    pairs = pairs[scorable[0][pairs[:, 0]] & scorable[1][pairs[:, 1]]]
    pairs, dropped = drop_empty_pairs(pairs, *has_tokens)
    weights = torch.full((len(pairs),), 1.0 / max(len(pairs), 1))
    return pairs, weights, dropped
