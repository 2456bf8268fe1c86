import itertools
import math

import pytest
import torch

from trl_mulferl import GroupState, Route, group_state, make_generator, route, sample_fco_pairs
from trl_mulferl.core.routing import rewards_vary, weighted_rewards


S, C, F, U = GroupState.SOLVED, GroupState.CONTRASTIVE, GroupState.FAILED, GroupState.UNSCORABLE


@pytest.mark.parametrize(
    ("rewards", "expected"),
    [
        ([1.0, 1.0], S),  # K = 2
        ([0.0, 0.0], F),
        ([1.0, 0.0], C),
        ([1.0, 1.0, 1.0, 0.0], C),
        ([0.0] * 8, F),
        ([1.0] * 8, S),
        # Decision 5 (TRL 1.16's rule): an unscorable rollout is left out; only a group with no score is UNSCORABLE.
        ([1.0, float("nan")], S),
        ([None, 0.0, 0.0], F),
        ([float("nan"), 1.0, 0.0, 0.0], C),
        ([float("nan")] * 4, U),  # all-NaN group
        ([None, None], U),
        ([1.0, None, 1.0], S),
        (torch.tensor([0.0, 1.0, 1.0]), C),
    ],
)
def test_group_state_matches_eq_7(rewards, expected):
    assert group_state(rewards) == expected


def test_group_state_uses_weighted_sum_threshold():
    # Weighted sums of (accuracy, format) rewards: 1.2 = 1.0 + 0.2 succeeds, 0.9 does not.
    assert group_state([1.2, 0.9], success_threshold=1.0) == C
    assert group_state([1.2, 0.9], success_threshold=0.5) == S
    assert group_state([0.2, 0.4], success_threshold=0.5) == F


def test_group_state_rejects_empty_group():
    with pytest.raises(ValueError):
        group_state([])


def algorithm_1(states, num_turns):
    """Algorithm 1 of the paper transcribed as a loop over turns, returning the action at the last state."""
    for t, z in enumerate(states):
        if z == U:
            return "unscorable"
        if z == C:
            return "grpo"
        if z == S:
            return "solved_skip" if t == 0 else "fco"
        if t == num_turns - 1:
            return "unresolved"
    return "regenerate"


@pytest.mark.parametrize("num_turns", [1, 2, 3, 4])
def test_route_matches_algorithm_1_on_every_trajectory(num_turns):
    for length in range(1, num_turns + 1):
        for last in (S, C, F, U):
            states = [F] * (length - 1) + [last]
            assert route(states, num_turns).value == algorithm_1(states, num_turns), states


def test_route_table():
    assert route([C], 3) == Route.GRPO
    assert route([S], 3) == Route.SOLVED_SKIP
    assert route([F], 3) == Route.REGENERATE
    assert route([F, S], 3) == Route.FCO
    assert route([F, C], 3) == Route.GRPO
    assert route([F, F], 3) == Route.REGENERATE
    assert route([F, F, F], 3) == Route.UNRESOLVED
    assert route([F, F, S], 3) == Route.FCO
    assert route([F], 1) == Route.UNRESOLVED  # max_feedback_turns = 0
    assert route([U], 3) == Route.UNSCORABLE
    assert route([F, U], 3) == Route.UNSCORABLE


@pytest.mark.parametrize("states", [[], [S, S], [C, F], [F, F, F, F]])
def test_route_rejects_impossible_histories(states):
    with pytest.raises(ValueError):
        route(states, 3)


def test_generator_is_deterministic_and_distinct():
    draw = lambda *key: torch.randperm(16, generator=make_generator(*key)).tolist()  # noqa: E731
    assert draw(42, 3, 7) == draw(42, 3, 7)
    keys = [(42, 3, 7), (42, 3, 8), (42, 4, 7), (43, 3, 7), (0, 0, 0)]
    assert len({tuple(draw(*key)) for key in keys}) == len(keys)


def test_generator_leaves_global_rng_untouched():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    sample_fco_pairs(8, "permutation", make_generator(0, 0, 0))
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("k", [2, 3, 8])
def test_permutation_pairs_use_every_rollout_once(k):
    pairs = sample_fco_pairs(k, "permutation", make_generator(1, 2, 3))
    assert pairs.shape == (k, 2)
    assert pairs[:, 0].tolist() == list(range(k))
    assert sorted(pairs[:, 1].tolist()) == list(range(k))


def test_all_pairs_is_the_cartesian_product():
    pairs = sample_fco_pairs(3, "all", make_generator(0, 0, 0))
    assert [tuple(p) for p in pairs.tolist()] == list(itertools.product(range(3), range(3)))


def test_unknown_pairing_is_rejected():
    with pytest.raises(ValueError, match="pairing"):
        sample_fco_pairs(4, "index", make_generator(0, 0, 0))


def test_permutation_estimator_is_unbiased_prop_4():
    # Paper Prop. 4 / eq. 18: E_pi[(1/K) sum_j l(j, pi(j))] = (1/K^2) sum_{j,i} l(j, i).
    k, draws = 4, 20000
    losses = torch.rand(k, k, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    all_pairs_mean = sum(losses[j, i].item() for j in range(k) for i in range(k)) / k**2

    # Exact: the uniform average over all K! permutations equals the all-pairs mean.
    exact = [sum(losses[j, perm[j]].item() for j in range(k)) / k for perm in itertools.permutations(range(k))]
    assert math.isclose(sum(exact) / len(exact), all_pairs_mean, rel_tol=1e-12)

    # Empirical: the sampler's mean over many draws, within 5 standard errors.
    generator = torch.Generator().manual_seed(123)
    estimates = torch.empty(draws, dtype=torch.float64)
    for n in range(draws):
        pairs = sample_fco_pairs(k, "permutation", generator)
        estimates[n] = losses[pairs[:, 0], pairs[:, 1]].mean()
    standard_error = estimates.std().item() / math.sqrt(draws)
    assert abs(estimates.mean().item() - all_pairs_mean) < 5 * standard_error
    # Every permutation appears about equally often (each with probability 1/24).
    assert len(set(estimates.tolist())) == math.factorial(k)


def test_rewards_vary_ignores_missing_rewards():
    assert rewards_vary([1.0, 2.0])
    assert not rewards_vary([3.0, 3.0, 3.0])
    assert not rewards_vary([1.0, float("nan")])  # TRL's nanstd ignores the missing reward
    assert rewards_vary(torch.tensor([0.5, float("nan"), 0.25]))


@pytest.mark.parametrize(
    ("states", "num_turns", "varies", "expected"),
    [
        # Decision 12: a group whose rewards vary is never thrown away.
        ([S], 3, True, Route.GRPO),  # all succeed at turn 0, e.g. 3.0 and 5.0 with threshold 1
        ([S], 3, False, Route.SOLVED_SKIP),
        ([F], 1, True, Route.GRPO),  # none succeed and no turn left (max_feedback_turns=0): GRPO
        ([F], 1, False, Route.UNRESOLVED),
        ([F, F, F], 3, True, Route.GRPO),  # none succeed at the last turn, rewards vary: GRPO on that turn
        ([F], 3, True, Route.REGENERATE),  # none succeed, turns left: feedback first, as before
        ([F, S], 3, True, Route.FCO),  # the previous turn failed: FCO, whatever the spread
        ([C], 3, True, Route.GRPO),
        ([U], 3, True, Route.UNSCORABLE),
    ],
)
def test_route_keeps_groups_whose_rewards_vary(states, num_turns, varies, expected):
    assert route(states, num_turns, varies) == expected


def test_binary_rewards_route_exactly_as_algorithm_1():
    """With rewards in {0, 1}, 'vary' is the same as CONTRASTIVE, so decision 12 changes nothing."""
    for length in range(1, 4):
        for rewards in itertools.product([0.0, 1.0], repeat=3):
            states = [F] * (length - 1) + [group_state(list(rewards))]
            with_spread = route(states, 3, rewards_vary(list(rewards)))
            assert with_spread == route(states, 3) and with_spread.value == algorithm_1(states, 3)


def test_weighted_rewards_combine_like_trl():
    """nansum over functions (a None skips that function), NaN only when every function is None (decision 5)."""
    nan = float("nan")
    rewards_per_func = torch.tensor([[1.0, nan], [nan, 0.5], [nan, nan], [1.0, 0.5]])
    weighted = weighted_rewards(rewards_per_func, torch.tensor([1.0, 2.0]))
    assert weighted[[0, 1, 3]].tolist() == [1.0, 1.0, 2.0]
    assert torch.isnan(weighted[2])
