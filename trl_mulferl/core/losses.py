"""The equations of MulFeRL's losses, as pure functions of tensors: Feedback-Contrastive Optimization (paper eqs.
13-17: scores, pair losses, the per-sequence surrogate of the all-pairs loss, decision 2) and `feedback_replay`'s
shaped term. Each trainer's plumbing feeds them: `mulferl.fco_rows`, `async_mulferl.async_mulferl_trainer`."""

import torch
import torch.nn.functional as F


FCO_SCORE_NORMALIZATIONS = ("mean", "sum")


def fco_score(
    per_token_logps: torch.Tensor,
    ref_per_token_logps: torch.Tensor,
    mask: torch.Tensor,
    normalization: str = "mean",
) -> torch.Tensor:
    """Reference score of each sequence: its log-ratio to the reference over the model-generated tokens b(y).

    `"mean"` is eq. 13, `s(c, y) = (log pi(b(y)|c) - log pi_ref(b(y)|c)) / |b(y)|`; `"sum"` drops the division by
    `|b(y)|`, as the authors' released code does (standard DPO with beta = tau), which is how the paper's tau = 0.005
    was run.

    Args:
        per_token_logps: `(B, T)` policy log-probs of each completion token under its own context.
        ref_per_token_logps: `(B, T)` reference log-probs of the same tokens.
        mask: `(B, T)` 1 on the model-generated tokens b(y), 0 on padding and injected feedback.
        normalization: `"mean"` (eq. 13) or `"sum"` (released code).

    Returns:
        `(B,)` scores. A sequence without any scored token gets 0 (and a zero gradient), never NaN; callers drop its
        pairs (decision 10).
    """
    return sequence_logp(per_token_logps, mask, normalization) - sequence_logp(
        ref_per_token_logps, mask, normalization
    )


def sequence_logp(per_token_logps: torch.Tensor, mask: torch.Tensor, normalization: str = "mean") -> torch.Tensor:
    """One policy's side of the FCO score: `log pi(b(y)|c)` summed over the scored tokens, or their mean.

    The score is linear in it, `s = sequence_logp(policy) - sequence_logp(reference)`, so the reference's side can be
    computed once without grad and the policy's in the loss.

    Args:
        per_token_logps: `(B, T)` log-probs of each completion token under its own context.
        mask: `(B, T)` 1 on the model-generated tokens b(y).
        normalization: `"mean"` (eq. 13) or `"sum"` (released code).
    """
    if normalization not in FCO_SCORE_NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {FCO_SCORE_NORMALIZATIONS}, got {normalization!r}.")
    mask = mask.to(per_token_logps.dtype)
    total = (per_token_logps * mask).sum(dim=-1)
    if normalization == "sum":
        return total
    return total / mask.sum(dim=-1).clamp(min=1.0)


def packed_sequence_logp(
    token_logps: torch.Tensor, segment_id: torch.Tensor, num_sequences: int, normalization: str = "mean"
) -> torch.Tensor:
    """`sequence_logp` of packed sequences: the log-probs of the scored tokens of `num_sequences` sequences laid end to
    end, as TRL's asynchronous trainer selects them from a packed row.

    Args:
        token_logps: `(M,)` log-probs of the scored tokens.
        segment_id: `(M,)` the sequence each token belongs to, in `[0, num_sequences)`.
        num_sequences: S; a sequence without a scored token gets 0.
        normalization: `"mean"` (eq. 13) or `"sum"` (released code).

    Returns:
        `(S,)`.
    """
    if normalization not in FCO_SCORE_NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {FCO_SCORE_NORMALIZATIONS}, got {normalization!r}.")
    total = token_logps.new_zeros(num_sequences).index_add(0, segment_id, token_logps)
    if normalization == "sum":
        return total
    counts = token_logps.new_zeros(num_sequences).index_add(0, segment_id, torch.ones_like(token_logps))
    return total / counts.clamp(min=1.0)


def fco_loss(pos_scores: torch.Tensor, neg_scores: torch.Tensor, tau: float, margin: float) -> torch.Tensor:
    """Mean pair loss `mean -log sigmoid(tau * (s+ - s- - margin))` over aligned pairs (eqs. 14-15).

    Args:
        pos_scores: `(P,)` scores of the positive side of each pair.
        neg_scores: `(P,)` scores of the negative side of each pair.
        tau: Inverse temperature.
        margin: Margin gamma.

    Returns:
        A 0-dim tensor; 0 when there is no pair.
    """
    if pos_scores.numel() == 0:
        return pos_scores.new_zeros(())
    return fco_pair_losses(pos_scores, neg_scores, tau, margin).mean()


def fco_pair_losses(pos_scores: torch.Tensor, neg_scores: torch.Tensor, tau: float, margin: float) -> torch.Tensor:
    """`-log sigmoid(tau * (s+ - s- - margin))` of each aligned pair (eq. 14), `(P,)`."""
    return F.softplus(-tau * (pos_scores - neg_scores - margin))


def drop_empty_pairs(
    pairs: torch.Tensor, pos_has_tokens: torch.Tensor, neg_has_tokens: torch.Tensor
) -> tuple[torch.Tensor, int]:
    """Remove the pairs with a side that has no scored token (decision 10).

    Args:
        pairs: `(P, 2)` `(positive index, negative index)` rows.
        pos_has_tokens: `(K,)` bool, True where the positive sequence has at least one scored token.
        neg_has_tokens: `(K,)` bool, the same for the negatives.

    Returns:
        The kept pairs and the number dropped.
    """
    keep = pos_has_tokens[pairs[:, 0]] & neg_has_tokens[pairs[:, 1]]
    return pairs[keep], int((~keep).sum())


def fco_surrogate_coefficients(
    pos_scores: torch.Tensor, neg_scores: torch.Tensor, pairs: torch.Tensor, tau: float, margin: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sequence weights `w = dL_FCO/ds`, summed over the pairs each sequence is in.

    With the scores held fixed at their generation-time values, `sum_j w+_j s(y+_j) + sum_i w-_i s(y-_i)` has exactly
    the gradient of `fco_loss(pos_scores[pairs[:, 0]], neg_scores[pairs[:, 1]], tau, margin)`, whatever the pairing,
    while every sequence is forwarded once.

    Args:
        pos_scores: `(K,)` scores of the solved group at turn t*.
        neg_scores: `(K,)` scores of the failed group at turn t*-1.
        pairs: `(P, 2)` `(positive index, negative index)` rows.
        tau: Inverse temperature.
        margin: Margin gamma.

    Returns:
        `(pos_coefficients, neg_coefficients)`, each `(K,)`; zeros when there is no pair.
    """
    pos_coefficients = torch.zeros_like(pos_scores)
    neg_coefficients = torch.zeros_like(neg_scores)
    if pairs.numel() == 0:
        return pos_coefficients, neg_coefficients
    pos_scores, neg_scores = pos_scores.detach(), neg_scores.detach()
    gaps = pos_scores[pairs[:, 0]] - neg_scores[pairs[:, 1]]
    # d/dD of softplus(-tau * (D - margin)) is -tau * sigmoid(-tau * (D - margin)); the mean divides by P.
    d_loss_d_gap = -tau * torch.sigmoid(-tau * (gaps - margin)) / pairs.size(0)
    pos_coefficients.index_add_(0, pairs[:, 0], d_loss_d_gap)
    neg_coefficients.index_add_(0, pairs[:, 1], -d_loss_d_gap)
    return pos_coefficients, neg_coefficients


def policy_shaping_weights(per_token_logps: torch.Tensor, gamma: float) -> torch.Tensor:
    """Per-token weights, detached, that turn the ratio's gradient into that of Critique-GRPO's policy shaping
    `f(p) = p / (p + gamma)`: the off-policy weight of the `feedback_replay` rows.

    `w = d f(exp(l)) / dl = gamma * p / (p + gamma)**2`, so a loss linear in `A * w * exp(l - l_old)` gets, at ratio 1,
    the gradient of `A * f(p)`; weighting the advantages, not the log-probs, leaves any other term (the KL) alone.
    """
    probs = per_token_logps.detach().exp()
    return gamma * probs / (probs + gamma) ** 2


def replay_token_losses(token_logps: torch.Tensor, advantages: torch.Tensor, gamma: float | None) -> torch.Tensor:
    """Per-token losses of `feedback_replay` rows in a term of their own, `-A * w * exp(l - l.detach())`: at the policy
    that scores them, TRL's clipped term at ratio 1 with the shaping weight `w` (`policy_shaping_weights`), whose
    gradient is `-A * d f(p)` for `f(p) = p / (p + gamma)`, or `-A * d log p` without shaping (`gamma` None).

    Args:
        token_logps: `(M,)` log-probs of the replayed tokens under the policy, with grad.
        advantages: `(M,)` their rows' advantages.
        gamma: `feedback_replay_shaping`.
    """
    ratio = torch.exp(token_logps - token_logps.detach())
    weights = 1.0 if gamma is None else policy_shaping_weights(token_logps, gamma)
    return -advantages * weights * ratio
