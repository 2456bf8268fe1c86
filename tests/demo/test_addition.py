import asyncio
import random
import re
from collections import Counter

import pytest

from trl_mulferl.core.schema import schema_compliant
from trl_mulferl.demo.addition import (
    DROPPED_CARRY,
    DROPPED_HUNDREDS,
    EXTRA_CARRY,
    FORMAT,
    MISTAKE_DIAGNOSES,
    MISTAKES,
    ONES_SLIP,
    TENS_SLIP,
    WRONG_PLACE,
    WRONG_TOTAL,
    addition_reward,
    diagnose,
    difficulty,
    find_mistake,
    make_splits,
    operands,
    possible_mistakes,
    question,
    response,
    working,
)
from trl_mulferl.feedback import CheckerFeedbackProvider, redact_answer_leak


def test_worked_sums_and_their_mistakes():
    assert response(47, 38) == (
        "<thinking><feedback></feedback> 7+8=15, 4+3+1=8.</thinking> The final answer is \\boxed{85}"
    )
    assert schema_compliant(response(47, 38))
    rng = random.Random(0)
    expected = {
        WRONG_PLACE: ("7+3=10, 4+8+1=13.", 130),
        DROPPED_CARRY: ("7+8=15, 4+3=7.", 75),
        ONES_SLIP: ({"7+8=14, 4+3+1=8.", "7+8=16, 4+3+1=8."}, {84, 86}),
        TENS_SLIP: ({"7+8=15, 4+3+1=7.", "7+8=15, 4+3+1=9."}, {75, 95}),
    }
    for mistake, (text, total) in expected.items():
        written, written_total = working(47, 38, (mistake,), rng)
        assert written in text if isinstance(text, set) else written == text
        assert written_total in total if isinstance(total, set) else written_total == total
    assert working(78, 56, (DROPPED_HUNDREDS,)) == ("8+6=14, 7+5+1=13.", 34)
    assert working(23, 45, (EXTRA_CARRY,)) == ("3+5=8, 2+4+1=7.", 78)
    # Mistakes combine, each later step following the written digits; the hundreds habit drops what is there to drop.
    assert working(78, 56, (DROPPED_CARRY, DROPPED_HUNDREDS)) == ("8+6=14, 7+5=12.", 24)
    assert working(50, 50, (TENS_SLIP, DROPPED_HUNDREDS), random.Random(1))[1] in (90, 10)
    assert possible_mistakes(23, 45) == (WRONG_PLACE, ONES_SLIP, TENS_SLIP, EXTRA_CARRY)
    assert possible_mistakes(78, 56) == (WRONG_PLACE, ONES_SLIP, TENS_SLIP, DROPPED_CARRY, DROPPED_HUNDREDS)
    assert WRONG_PLACE not in possible_mistakes(33, 33)  # swapping places changes nothing there
    assert [difficulty(*pair) for pair in ((23, 45), (47, 38), (78, 56), (60, 40))] == [
        "no_carry",
        "carry",
        "hundreds",
        "hundreds",
    ]


def test_the_checker_finds_every_mistake_it_is_shown():
    rng = random.Random(0)
    for a in range(10, 100, 7):
        for b in range(10, 100, 3):
            assert find_mistake(a, b, response(a, b)) is None
            assert addition_reward([question(a, b)], [response(a, b)]) == [1.0]
            for mistake in possible_mistakes(a, b):
                wrong = response(a, b, (mistake,), rng=rng)
                assert find_mistake(a, b, wrong) == mistake, wrong
                # With the hundreds habit on top, the checker names the earliest mistake, as a pupil's teacher would.
                both = response(a, b, (mistake, DROPPED_HUNDREDS), rng=rng)
                assert find_mistake(a, b, both) == mistake or (mistake == DROPPED_HUNDREDS), both
                assert addition_reward([[{"role": "user", "content": question(a, b)}]], [wrong]) == [0.0]
    assert find_mistake(47, 38, "85") == FORMAT  # right total, but not in the schema: the reward is 0 too
    assert addition_reward([question(47, 38)], ["85"]) == [0.0]
    assert find_mistake(47, 38, "<thinking><feedback></feedback> 7+8=15, 4+3+1=8.</thinking> \\boxed{58}") == (
        WRONG_TOTAL
    )
    # Reads the working after an injected feedback block, as the trainer's rows hold it.
    injected = "<thinking><feedback>The carry was dropped.</feedback> 7+8=15, 4+3=7.</thinking> \\boxed{75}"
    assert find_mistake(47, 38, injected) == DROPPED_CARRY


def test_diagnoses_never_state_the_answer():
    assert set(MISTAKE_DIAGNOSES) == {*MISTAKES, FORMAT, WRONG_TOTAL}
    assert all(not re.search(r"\d", text) for text in MISTAKE_DIAGNOSES.values())
    assert diagnose(question(47, 38), response(47, 38)) is None
    assert diagnose(question(47, 38), response(47, 38, (DROPPED_CARRY,))) == MISTAKE_DIAGNOSES[DROPPED_CARRY]
    provider = CheckerFeedbackProvider(diagnose)
    rng = random.Random(0)
    for a, b in make_splits(0).test[:60]:
        failed = [response(a, b, (m,), rng=rng) for m in possible_mistakes(a, b)]
        feedback = asyncio.run(provider(question(a, b), failed, [0.0] * len(failed), solution=str(a + b)))
        # The provider counts attempts (at most K = 8), sums are at least 20: the leak guard leaves it whole.
        assert redact_answer_leak(feedback, str(a + b)) == (feedback, 0)
        assert feedback.startswith(f"The checker's reports on the {len(failed)} failed attempts")


def test_operands_from_every_prompt_form():
    assert operands("What is 12 + 34?") == (12, 34)
    assert operands([{"role": "system", "content": "x"}, {"role": "user", "content": "What is 9 + 99?"}]) == (9, 99)
    with pytest.raises(ValueError, match="Not an addition question"):
        operands("What is 2 - 1?")


def test_splits_are_disjoint_and_balanced():
    splits = make_splits(0)
    unordered = [{frozenset((a, b)) if a != b else frozenset((a,)) for a, b in s} for s in splits.__dict__.values()]
    assert all(len(x & y) == 0 for i, x in enumerate(unordered) for y in unordered[i + 1 :])
    assert sum(map(len, unordered)) == 90 * 91 // 2
    for split in (splits.validation, splits.test):
        assert Counter(difficulty(a, b) for a, b in split) == {"no_carry": 100, "carry": 100, "hundreds": 100}
    assert make_splits(0) == splits and make_splits(1) != splits
