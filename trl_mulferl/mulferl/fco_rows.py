"""FCO's rows in the synchronous trainer (decision 2), the plumbing around `core.losses`: each FCO row carries its
partner negative, and the loss scores both.

At generation time every FAILED -> SOLVED prompt draws its pairs; row j (positive j) gets its partner, the negative
sequence of its pair. In the loss, the policy's side of every score comes from a training forward. In reduced
precision the reference's side comes from a no-grad forward of the same tensors (`fco_reference_in_loss`): under bf16
a row's log-probs depend on the shape of the batch it is forwarded in, so both sides of a score see one shape, and at
the first step every score is 0. Elsewhere (float32, the all-pairs surrogate's coefficients, the partners joined into
the loss's forward) the reference's side is scored at generation:

- `fco_pairing="permutation"` (default): pair j is (positive j, negative pi(j)), one row each, and its loss
  `-log sigmoid(tau * (s+ - s- - margin))` is computed exactly, with autograd, at every iteration.
- `fco_pairing="all"`: the K*K pairs span rows, so the loss takes the per-sequence surrogate `w * s` with
  `w = dL/ds` from a generation-time policy forward (no grad); its gradient is the FCO gradient while the
  parameters are those of generation time (`num_iterations == 1`).

Under DeepSpeed and FSDP (one backward per micro-step) the partners ride in TRL's loss forward as extra rows
(`join_partners`), so one graph holds both sequences of every pair. Elsewhere they get forwards and backwards of their
own (`partner_term`), and the loss's term then takes their scores detached, so peak memory stays near GRPO's: under
one process right after the loss's forward (whose positive scores they need), a quarter of the micro-batch at a time;
under DDP before it, with the positives' scores from a no-grad forward.
"""

import torch
import torch.nn.functional as F
from trl.models.utils import disable_gradient_checkpointing
from trl.trainer.utils import pad, use_adapter

from ..core.losses import fco_pair_losses, fco_surrogate_coefficients, sequence_logp
from ..core.routing import Route
from ..feedback.step import kept_fco_pairs
from .lockstep import padded


PARTNER_KEYS = ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "score_mask")
# The FCO partners' pass under one process: a quarter of the micro-batch's rows at a time, beside its graph.
PARTNER_CHUNKS_PER_MICRO_BATCH = 4


def reference_logps(trainer, forward: dict, policy_model=None) -> torch.Tensor:
    """Per-token log-probs of the frozen reference (TRL's forward), as TRL scores its KL.

    Args:
        policy_model: Under PEFT, the module whose adapter-free forward is the reference: `trainer.model` by default;
            the unwrapped model inside the loss, where a forward through DDP's wrapper would be a collective.
    """
    if trainer.ref_model is not None:
        return trainer._get_per_token_logps_and_entropies(trainer.ref_model, **forward)[0]
    # PEFT: the adapter-free base model, or TRL's frozen "ref" copy of an adapter passed in trained.
    unwrapped = trainer.accelerator.unwrap_model(trainer.model)
    with use_adapter(unwrapped, adapter_name="ref" if "ref" in unwrapped.peft_config else None):
        return trainer._get_per_token_logps_and_entropies(policy_model or trainer.model, **forward)[0]


def fco_reference_in_loss(trainer) -> bool:
    """Whether the reference's side of the FCO scores is forwarded in the loss, beside the policy's, rather than at
    generation: in reduced precision (bf16, fp16, TF32 autocast or weights), where a row's log-probs depend on the
    shape of the batch it is forwarded in, under the permutation pairing outside DeepSpeed and FSDP. In float32 the
    two shapes agree to rounding, and generation's forward costs less (TRL's own reference when beta > 0)."""
    args = trainer.args
    weights = trainer.accelerator.unwrap_model(trainer.model).dtype
    reduced = args.bf16 or args.fp16 or bool(args.tf32) or weights != torch.float32
    return reduced and args.fco_pairing == "permutation" and trainer._fco_partner_pass != "joined"


def forward_rows(trainer, sequences: dict, rows: list[int], policy: bool) -> torch.Tensor | None:
    """No-grad per-token log-probs of `rows` of `sequences` (the reference's, or the policy's with `policy`).

    Every process forwards as many rows as `trainer.lockstep` says (dummies: row 0); None when it forwards none.
    """
    num_forwarded = trainer.lockstep.forward_rows(len(rows))
    if num_forwarded == 0:
        return None
    selected = torch.tensor(padded(rows, num_forwarded), device=sequences["prompt_ids"].device)
    forward = {
        "input_ids": torch.cat([sequences["prompt_ids"], sequences["completion_ids"]], dim=1)[selected],
        "attention_mask": torch.cat([sequences["prompt_mask"], sequences["completion_mask"]], dim=1)[selected],
        "logits_to_keep": sequences["completion_ids"].size(1),
        "batch_size": trainer.args.per_device_train_batch_size,
    }
    with torch.no_grad(), disable_gradient_checkpointing(trainer.model, trainer.args.gradient_checkpointing_kwargs):
        if policy:
            logps = trainer._get_per_token_logps_and_entropies(trainer.model, **forward)[0]
        else:
            logps = reference_logps(trainer, forward)
    return logps[: len(rows)]


def partner_tensors(negatives: list, num_rows: int, pad_token_id: int, device) -> dict[str, torch.Tensor]:
    """The partner sequence of every row as padded tensors (a one-token pad where a row has none)."""
    no_partner = ([pad_token_id], [pad_token_id], [0])
    columns = list(zip(*[negatives[row] or no_partner for row in range(num_rows)], strict=True))
    prompt_ids, completion_ids, score_mask = ([torch.tensor(v, device=device) for v in column] for column in columns)
    return {
        "prompt_ids": pad(prompt_ids, padding_value=pad_token_id, padding_side="left"),
        "prompt_mask": pad([torch.ones_like(ids) for ids in prompt_ids], padding_side="left"),
        "completion_ids": pad(completion_ids, padding_value=pad_token_id),
        "completion_mask": pad([torch.ones_like(ids) for ids in completion_ids]),
        "score_mask": pad(score_mask),
    }


def add_fco_rows(trainer, output: dict, rollout):
    """Pairs, partners, reference scores and per-row weights of the FCO rows, as per-row keys of `output`.

    The per-row weights add up, over the micro-batches of one optimizer step, to `fco_weight * (mean pair loss of
    each FCO prompt) / (prompts in the step)`, the FCO term of decision 2 (over the prompts of the optimizer step).
    """
    args, group_size = trainer.args, trainer.num_generations
    num_rows, device = output["prompt_ids"].size(0), output["prompt_ids"].device
    num_groups = num_rows // group_size
    groups_per_step = num_groups * args.gradient_accumulation_steps / args.steps_per_generation
    scale = args.fco_weight / groups_per_step
    positive_mask = output["completion_mask"] * output.get("tool_mask", 1)
    first_group = trainer.accelerator.process_index * num_groups
    fco_groups = rollout.groups(Route.FCO)
    first_row = first_group * group_size
    scorable = ~rollout.final_rewards_per_func[first_row : first_row + num_rows].isnan().all(dim=1).to(device)

    # Row j's partner: the negative of its pair (pi(j) for the permutation, j itself for the all-pairs surrogate).
    pairs_of, negatives = {}, [None] * num_rows
    for group in fco_groups:
        first = group * group_size
        pairs_of[group] = trainer.feedback_step.fco_pairs(group_size, trainer.state.global_step, first_group + group)
        for j in range(group_size):
            partner = pairs_of[group][j, 1].item() if args.fco_pairing == "permutation" else j
            negative = rollout.negatives[first + partner]
            negatives[first + j] = (negative.prompt_ids, negative.completion_ids, negative.score_mask)
    partners = partner_tensors(negatives, num_rows, trainer._tokenizer.pad_token_id, device)
    for key, value in partners.items():
        output[f"mulferl_partner_{key}"] = value

    fco_rows = [row for group in fco_groups for row in range(group * group_size, (group + 1) * group_size)]
    normalization = args.fco_score_normalization
    reference_at_generation = not fco_reference_in_loss(trainer)
    if reference_at_generation:
        reference = output.get("ref_per_token_logps")  # TRL's, when beta != 0
        if reference is None:
            reference = forward_rows(trainer, output, fco_rows, policy=False)
        else:
            reference = reference[fco_rows]
        partner_reference = forward_rows(trainer, partners, fco_rows, policy=False)
    if args.fco_pairing == "all":
        policy = output.get("old_per_token_logps")  # TRL's forward for vLLM's importance sampling
        policy = forward_rows(trainer, output, fco_rows, policy=True) if policy is None else policy[fco_rows]
        partner_policy = forward_rows(trainer, partners, fco_rows, policy=True)

    keys = ("fco_weight", "fco_ref_score", "partner_ref_score", "fco_coefficient", "partner_coefficient")
    for key in (*keys, "partner_forwarded", "fco_loss_sum", "fco_gap_sum", "fco_pairs"):
        output[f"mulferl_{key}"] = torch.zeros(num_rows, device=device)
    if not fco_rows:
        return
    rows = torch.tensor(fco_rows, device=device)
    has_tokens = positive_mask[rows].sum(dim=1) > 0
    if reference_at_generation:
        ref_scores = sequence_logp(reference, positive_mask[rows], normalization)
        partner_ref_scores = sequence_logp(partner_reference, partners["score_mask"][rows], normalization)
        output["mulferl_fco_ref_score"][rows] = ref_scores
        output["mulferl_partner_ref_score"][rows] = partner_ref_scores
    if args.fco_pairing == "all":
        scores = sequence_logp(policy, positive_mask[rows], normalization) - ref_scores
        partner_scores = (
            sequence_logp(partner_policy, partners["score_mask"][rows], normalization) - partner_ref_scores
        )
    for index, group in enumerate(fco_groups):
        members = slice(index * group_size, (index + 1) * group_size)
        group_rows = rows[members]
        pairs = pairs_of[group].to(device)
        group_negatives = [rollout.negatives[group * group_size + i] for i in range(group_size)]
        negative_scorable = torch.tensor([negative.scorable for negative in group_negatives], device=device)
        negative_has_tokens = torch.tensor([any(negative.score_mask) for negative in group_negatives], device=device)
        pairs, weights, dropped = kept_fco_pairs(
            pairs, (scorable[group_rows], negative_scorable), (has_tokens[members], negative_has_tokens)
        )
        weights = weights.to(device)
        if args.fco_pairing == "permutation":
            # Row j holds pair j whole: positive j and its partner.
            kept = torch.zeros(group_size, device=device)
            kept[pairs[:, 0]] = 1.0
            output["mulferl_fco_weight"][group_rows[pairs[:, 0]]] = scale * weights
            output["mulferl_fco_pairs"][group_rows] = kept
            output["mulferl_partner_forwarded"][group_rows] = kept
        else:
            pos, neg = scores[members], partner_scores[members]
            pos_coefficients, neg_coefficients = fco_surrogate_coefficients(
                pos, neg, pairs, args.fco_tau, args.fco_margin
            )
            output["mulferl_fco_coefficient"][group_rows] = scale * pos_coefficients
            output["mulferl_partner_coefficient"][group_rows] = scale * neg_coefficients
            output["mulferl_partner_forwarded"][group_rows] = (neg_coefficients != 0).float()
            if len(pairs):
                pair_losses = fco_pair_losses(pos[pairs[:, 0]], neg[pairs[:, 1]], args.fco_tau, args.fco_margin)
                gaps = pos[pairs[:, 0]] - neg[pairs[:, 1]]
                # Logged from the rows of each pair's positive; the weights carry the value of the loss.
                for key, values in (("loss_sum", pair_losses), ("gap_sum", gaps), ("pairs", torch.ones_like(gaps))):
                    output[f"mulferl_fco_{key}"].index_add_(0, group_rows[pairs[:, 0]], values)
                output["mulferl_fco_weight"][group_rows] = scale * (weights * pair_losses).sum() / group_size
        rollout.counts["fco/dropped_pairs"] += dropped


def partner_rows(inputs) -> torch.Tensor:
    """The rows of a micro-batch whose partner sequence the loss forwards."""
    return inputs["mulferl_partner_forwarded"].nonzero().squeeze(1)


def positive_scores(
    args, inputs, logps: torch.Tensor, rows=slice(None), reference: torch.Tensor | None = None
) -> torch.Tensor:
    """The scores `s = log pi - log pi_ref` of the micro-batch's `rows` (all by default) from the policy's per-token
    log-probs of those rows, `(len(rows), T)`, and the reference's from the same forward shape (`reference`, same
    shape) or, without it, from generation."""
    return _scores(
        args, inputs, "fco", (inputs["completion_mask"] * inputs.get("tool_mask", 1))[rows], logps, rows, reference
    )


def partner_scores(
    args, inputs, partner_logps: torch.Tensor, rows: torch.Tensor | None = None, reference: torch.Tensor | None = None
) -> torch.Tensor:
    """The scores of the partners of `rows` (by default `partner_rows(inputs)`) from the policy's per-token log-probs
    of them, `(P, T')` (P may be 0), and the reference's as in `positive_scores`."""
    rows = partner_rows(inputs) if rows is None else rows
    return _scores(args, inputs, "partner", inputs["mulferl_partner_score_mask"][rows], partner_logps, rows, reference)


def _scores(args, inputs, side: str, mask, logps, rows, reference) -> torch.Tensor:
    normalization = args.fco_score_normalization
    if reference is None:
        return sequence_logp(logps, mask, normalization) - inputs[f"mulferl_{side}_ref_score"][rows]
    return sequence_logp(logps, mask, normalization) - sequence_logp(reference, mask, normalization)


def surrogate(coefficients: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """`sum c * (s - s.detach())`: 0, with the gradient of `sum c * s` (the reference's side of `s` cancels)."""
    return (coefficients * (scores - scores.detach())).sum()


def fco_term(args, inputs, scores: torch.Tensor, partner: torch.Tensor) -> tuple[torch.Tensor, list[float]]:
    """The FCO term of one micro-batch, and `[loss sum, gap sum, pairs]` to log.

    The gradient flows through whichever scores carry one: both sides when the partners joined the loss's forward;
    the positives' only when the partners had a backward of their own (`partner_term`) and come here detached.

    Args:
        args: The trainer's `MulFeRLConfig`.
        inputs: The micro-batch (the `mulferl_*` keys of `add_fco_rows`).
        scores: `(B,)` every row's score (`positive_scores`).
        partner: `(P,)` the scores of the partners of `partner_rows(inputs)` (`partner_scores`).
    """
    rows = partner_rows(inputs)
    if args.fco_pairing == "permutation":
        pair_losses = fco_pair_losses(scores[rows], partner, args.fco_tau, args.fco_margin)
        term = (inputs["mulferl_fco_weight"][rows] * pair_losses).sum()
        return term, [pair_losses.sum().item(), (scores[rows] - partner).sum().item(), float(len(rows))]
    # The weights carry the loss value.
    term = surrogate(inputs["mulferl_fco_coefficient"], scores)
    term = term + surrogate(inputs["mulferl_partner_coefficient"][rows], partner) + inputs["mulferl_fco_weight"].sum()
    return term, [inputs[f"mulferl_fco_{key}"].sum().item() for key in ("loss_sum", "gap_sum", "pairs")]


def partner_term(
    args, inputs, partner: torch.Tensor, positive: torch.Tensor | None, rows: torch.Tensor | None = None
) -> torch.Tensor:
    """The partners' side of `fco_term`, for a backward of their own: its gradient is `fco_term`'s with respect to
    the partner scores `partner`, and it has none with respect to the positives.

    Args:
        partner: `(P,)` the scores of the partners of `rows` (by default `partner_rows(inputs)`).
        positive: `(P,)` the scores of the positives of `rows` (permutation; their values only), else None.
    """
    rows = partner_rows(inputs) if rows is None else rows
    if args.fco_pairing == "permutation":
        pair_losses = fco_pair_losses(positive.detach(), partner, args.fco_tau, args.fco_margin)
        return (inputs["mulferl_fco_weight"][rows] * pair_losses).sum()
    return surrogate(inputs["mulferl_partner_coefficient"][rows], partner)


def fco_partner_pass(trainer) -> str:
    """Where the FCO partners' forward and backward run, so that the pair loss is exact and, outside DeepSpeed and
    FSDP, no graph holds both sequences of every pair (peak memory near GRPO's):

    - "joined": extra rows of TRL's loss forward (`join_partners`). DeepSpeed and FSDP allow one backward per
      micro-step, and a forward there may be a collective.
    - "first": a forward and backward of their own before TRL's loss forward (DDP: no forward of the micro-step has
      prepared the reducer yet, so their gradients accumulate locally and the loss's backward all-reduces them). The
      permutation's pair loss needs the positives' scores first: a no-grad forward over them.
    - "after": right after TRL's loss forward, from which the positives' scores come, in chunks beside its graph (one
      process, permutation: no extra forward). Not under DDP: a backward between DDP's forward and its backward
      leaves wrong gradients after the all-reduce.
    """
    if trainer.is_deepspeed_enabled or trainer.is_fsdp_enabled:
        return "joined"
    if trainer.accelerator.num_processes > 1 or trainer.args.fco_pairing == "all":
        return "first"  # the all-pairs surrogate needs no positive score: nothing to save after the forward
    return "after"


def backward_fco_partners(
    trainer, model, inputs, partners: dict, positive: torch.Tensor | None, chunk_size: int | None = None
) -> torch.Tensor:
    """The partners' FCO gradient from forwards and backwards of their own on the unwrapped model, `chunk_size`
    partners at a time (the passes "first" and "after" of `fco_partner_pass`); returns their scores, detached.

    Args:
        positive: `(P,)` the scores of the positives of `partner_rows(inputs)` (permutation; their values only), else
            None.
    """
    args, rows = trainer.args, partner_rows(inputs)
    unwrapped, reference_in_loss = trainer.accelerator.unwrap_model(model), fco_reference_in_loss(trainer)
    scores = []
    for chunk in torch.arange(len(rows), device=rows.device).split(chunk_size or len(rows)):
        forward = {
            "input_ids": torch.cat([partners["prompt_ids"][chunk], partners["completion_ids"][chunk]], dim=1),
            "attention_mask": torch.cat([partners["prompt_mask"][chunk], partners["completion_mask"][chunk]], 1),
            "logits_to_keep": partners["completion_ids"].size(1),
        }
        logps = trainer._get_per_token_logps_and_entropies(unwrapped, **forward)[0]
        reference = None
        if reference_in_loss:
            with torch.no_grad():
                reference = reference_logps(trainer, forward, policy_model=unwrapped)
        partner = partner_scores(args, inputs, logps, rows[chunk], reference)
        trainer.accelerator.backward(
            partner_term(args, inputs, partner, None if positive is None else positive[chunk], rows[chunk])
        )
        scores.append(partner.detach())
    return torch.cat(scores)


def join_partners(input_ids, attention_mask, logits_to_keep: int, partners: dict, pad_token_id: int):
    """The loss forward's rows with the partner sequences appended as extra rows, on one common width.

    Prompts are left-padded and completions right-padded to the longer of the two; rotary positions only shift, which
    leaves attention unchanged. One forward and one backward carry both: a second forward into the same backward
    reduces some gradients twice (ZeRO-3 with the reentrant checkpointing TRL uses for PEFT).

    Returns:
        `(input_ids, attention_mask, completion_width)` of the joined batch.
    """
    prompt_length = input_ids.size(1) - logits_to_keep
    prompt_width = max(prompt_length, partners["prompt_ids"].size(1))
    completion_width = max(logits_to_keep, partners["completion_ids"].size(1))

    def arrange(prompt_ids, prompt_mask, completion_ids, completion_mask):
        left, right = prompt_width - prompt_ids.size(1), completion_width - completion_ids.size(1)
        ids = [F.pad(prompt_ids, (left, 0), value=pad_token_id), F.pad(completion_ids, (0, right), value=pad_token_id)]
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
    return torch.cat([main[0], partner[0]]), torch.cat([main[1], partner[1]]), completion_width
