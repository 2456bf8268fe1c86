import math

import pytest
import torch

from trl_mulferl import (
    drop_empty_pairs,
    fco_loss,
    fco_score,
    fco_surrogate_coefficients,
    make_generator,
    sample_fco_pairs,
)


def log_sigmoid(z: float) -> float:
    """log(1 / (1 + exp(-z))), evaluated without overflow for large |z|."""
    return -(max(0.0, -z) + math.log1p(math.exp(-abs(z))))


def hand_pair_loss(s_pos: float, s_neg: float, tau: float, margin: float) -> float:
    """Paper eq. 14: -log sigmoid(tau * (D - gamma)) with D = s+ - s-."""
    return -log_sigmoid(tau * (s_pos - s_neg - margin))


def test_fco_score_is_eq_13():
    logps = torch.tensor([[-1.0, -2.0, -3.0, -4.0], [-0.5, -0.25, 0.0, 0.0]])
    ref = torch.tensor([[-1.5, -1.0, -3.0, -9.0], [-1.0, -1.0, 0.0, 0.0]])
    # Row 0: the injected feedback (position 0) and the padding (position 3) are masked out.
    mask = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]])
    expected = []
    for row in range(2):
        body = [i for i in range(4) if mask[row, i]]
        expected.append(sum(logps[row, i].item() - ref[row, i].item() for i in body) / len(body))
    assert fco_score(logps, ref, mask).tolist() == pytest.approx(expected)
    assert expected == pytest.approx([(-2.0 + 1.0 + 0.0) / 2, (0.5 + 0.75) / 2])


def test_fco_score_ignores_values_at_masked_positions():
    logps, ref = torch.randn(3, 5), torch.randn(3, 5)
    mask = torch.tensor([[1, 1, 0, 0, 0], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    garbage_logps = torch.where(mask.bool(), logps, torch.full_like(logps, 1e6))
    garbage_ref = torch.where(mask.bool(), ref, torch.full_like(ref, -1e6))
    assert torch.allclose(fco_score(logps, ref, mask), fco_score(garbage_logps, garbage_ref, mask))


def test_fco_score_empty_mask_is_nan_free():
    logps = torch.randn(2, 3, requires_grad=True)
    ref = torch.randn(2, 3)
    mask = torch.tensor([[0, 0, 0], [1, 1, 0]])
    scores = fco_score(logps, ref, mask)
    assert scores[0].item() == 0.0
    scores.sum().backward()
    assert torch.isfinite(logps.grad).all()
    assert logps.grad[0].abs().sum().item() == 0.0


@pytest.mark.parametrize(("tau", "margin"), [(0.005, 0.0), (1.0, 0.0), (0.5, 0.3), (2.0, 1.5), (1e4, 0.0), (1e4, 2.0)])
def test_fco_loss_is_mean_of_eq_14(tau, margin):
    pos = torch.tensor([0.3, -1.2, 2.5, 0.0], dtype=torch.float64)
    neg = torch.tensor([-0.7, 0.4, 2.5, 1.1], dtype=torch.float64)
    expected = sum(hand_pair_loss(p, n, tau, margin) for p, n in zip(pos.tolist(), neg.tolist())) / 4
    loss = fco_loss(pos, neg, tau, margin)
    assert torch.isfinite(loss)
    assert loss.item() == pytest.approx(expected, rel=1e-9)


def test_fco_loss_at_equal_scores_is_log_2():
    # With the reference equal to the policy every score is 0, so the first FCO step sees log 2 per pair.
    assert fco_loss(torch.zeros(8), torch.zeros(8), tau=0.005, margin=0.0).item() == pytest.approx(math.log(2))


def test_fco_loss_without_pairs_is_zero():
    assert fco_loss(torch.zeros(0), torch.zeros(0), tau=1.0, margin=0.0).item() == 0.0


def test_drop_empty_pairs():
    pairs = torch.tensor([[0, 1], [1, 0], [2, 2], [0, 2]])
    kept, dropped = drop_empty_pairs(pairs, torch.tensor([True, False, True]), torch.tensor([True, True, False]))
    assert kept.tolist() == [[0, 1]]
    assert dropped == 3


def test_surrogate_coefficients_by_hand_k2():
    # K = 2, pairs (0, 1) and (1, 0): dL/ds+_j = -(tau / P) sigmoid(-tau (D_j - gamma)), dL/ds-_i = +... .
    tau, margin = 0.5, 0.1
    pos, neg = torch.tensor([1.0, -1.0]), torch.tensor([0.5, 2.0])
    pairs = torch.tensor([[0, 1], [1, 0]])
    pos_w, neg_w = fco_surrogate_coefficients(pos, neg, pairs, tau, margin)
    sig = lambda z: 1 / (1 + math.exp(-z))  # noqa: E731
    d0, d1 = 1.0 - 2.0, -1.0 - 0.5
    assert pos_w.tolist() == pytest.approx(
        [-tau / 2 * sig(-tau * (d0 - margin)), -tau / 2 * sig(-tau * (d1 - margin))]
    )
    assert neg_w.tolist() == pytest.approx([tau / 2 * sig(-tau * (d1 - margin)), tau / 2 * sig(-tau * (d0 - margin))])


@pytest.mark.parametrize("pairing", ["permutation", "all"])
@pytest.mark.parametrize(("tau", "margin"), [(0.005, 0.0), (3.0, 0.5)])
def test_surrogate_gradient_equals_fco_gradient_wrt_scores(pairing, tau, margin):
    k = 5
    pos = torch.randn(k, dtype=torch.float64, requires_grad=True)
    neg = torch.randn(k, dtype=torch.float64, requires_grad=True)
    pairs = sample_fco_pairs(k, pairing, make_generator(0, 1, 2))
    fco_loss(pos[pairs[:, 0]], neg[pairs[:, 1]], tau, margin).backward()
    pos_w, neg_w = fco_surrogate_coefficients(pos, neg, pairs, tau, margin)
    assert torch.allclose(pos.grad, pos_w)
    assert torch.allclose(neg.grad, neg_w)


def sequence_logps(model, context_ids: list[int], completion_ids: list[int]) -> torch.Tensor:
    """log pi(y_l | c, y_<l) for each completion token, from a plain forward pass."""
    input_ids = torch.tensor([context_ids + completion_ids])
    logits = model(input_ids=input_ids).logits[0, len(context_ids) - 1 : -1]
    return torch.log_softmax(logits.double(), dim=-1).gather(-1, torch.tensor(completion_ids)[:, None])[:, 0]


@pytest.mark.parametrize("pairing", ["permutation", "all"])
def test_surrogate_gradient_equals_fco_gradient_wrt_parameters(tiny_tokenizer, pairing):
    """Through a real model: each sequence under its own context, injected tokens masked, reference frozen."""
    from tests.helpers.tiny import build_tiny_model

    policy, reference = build_tiny_model(tiny_tokenizer, seed=0), build_tiny_model(tiny_tokenizer, seed=1)
    generator = torch.Generator().manual_seed(0)
    k, vocab = 3, len(tiny_tokenizer)
    context_neg = torch.randint(vocab, (6,), generator=generator).tolist()
    context_pos = torch.randint(vocab, (9,), generator=generator).tolist()
    injected = torch.randint(vocab, (4,), generator=generator).tolist()  # the feedback prefill, masked out
    negatives = [torch.randint(vocab, (n,), generator=generator).tolist() for n in (5, 3, 6)]
    positives = [injected + torch.randint(vocab, (n,), generator=generator).tolist() for n in (4, 7, 2)]

    def scores(model_logps, sequences, context, num_masked):
        values = []
        for sequence in sequences:
            logp = model_logps(policy, context, sequence)
            with torch.no_grad():
                ref = model_logps(reference, context, sequence)
            mask = torch.ones(len(sequence))
            mask[:num_masked] = 0
            values.append(fco_score(logp[None], ref[None], mask[None])[0])
        return torch.stack(values)

    tau, margin = 0.7, 0.05
    pairs = sample_fco_pairs(k, pairing, make_generator(3, 0, 1))

    # The paper's eq. 15 on these sequences, differentiated by autograd.
    pos, neg = scores(sequence_logps, positives, context_pos, 4), scores(sequence_logps, negatives, context_neg, 0)
    true_loss = fco_loss(pos[pairs[:, 0]], neg[pairs[:, 1]], tau, margin)
    true_grads = torch.autograd.grad(true_loss, list(policy.parameters()))

    # The surrogate: coefficients from detached scores, then sum_seq w * s_theta(seq).
    pos_w, neg_w = fco_surrogate_coefficients(pos.detach(), neg.detach(), pairs, tau, margin)
    pos, neg = scores(sequence_logps, positives, context_pos, 4), scores(sequence_logps, negatives, context_neg, 0)
    surrogate = (pos_w * pos).sum() + (neg_w * neg).sum()
    surrogate_grads = torch.autograd.grad(surrogate, list(policy.parameters()))

    assert sum(g.abs().sum().item() for g in true_grads) > 0
    for true_grad, surrogate_grad in zip(true_grads, surrogate_grads):
        assert torch.allclose(true_grad, surrogate_grad, rtol=1e-5, atol=1e-10)
