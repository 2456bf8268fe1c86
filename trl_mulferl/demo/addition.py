"""Two-digit addition worked column by column: the task, its characteristic mistakes, and a checker that names them.

A response in MulFeRL's schema adds the ones digits, then the tens digits with the carry, and boxes the total::

    <thinking><feedback></feedback> 7+8=15, 4+3+1=8.</thinking> The final answer is \\boxed{85}

The mistakes a pupil makes on such sums are the task's noise: adding digits of different places together, a slip
by one in a column, a dropped carry, a carry where there is none, and a total that loses its hundreds digit.
`diagnose` finds the earliest of them in a response and says what went wrong and how to fix it, never the answer
(it writes no digit at all); `CheckerFeedbackProvider(diagnose)` turns it into MulFeRL's feedback provider, and
`addition_reward` is the verifiable reward (schema-compliant and the right total).
"""

import random
import re
from dataclasses import dataclass

from ..core.rewards import completion_text
from ..core.schema import FEEDBACK_CLOSE, THINKING_CLOSE, extract_answer, feedback_prefill, schema_compliant


# A mistake is named by what goes wrong; `MISTAKE_DIAGNOSES` holds what the checker says about each.
WRONG_PLACE = "wrong_place"  # a ones digit added to a tens digit
ONES_SLIP = "ones_slip"  # the ones sum off by one
DROPPED_CARRY = "dropped_carry"  # the ones make ten or more, but the tens column gets no carry
EXTRA_CARRY = "extra_carry"  # a carry although the ones make less than ten
TENS_SLIP = "tens_slip"  # the tens sum off by one
DROPPED_HUNDREDS = "dropped_hundreds"  # the tens column makes ten or more, but the total keeps only its ones digit
MISTAKES = (WRONG_PLACE, ONES_SLIP, DROPPED_CARRY, EXTRA_CARRY, TENS_SLIP, DROPPED_HUNDREDS)
# What the checker finds beyond the mistakes above.
FORMAT = "format"  # not a worked column sum in the schema
WRONG_TOTAL = "wrong_total"  # right columns, but the total is not written from them

MISTAKE_DIAGNOSES = {
    WRONG_PLACE: "Digits of different places were added. Add ones to ones, tens to tens.",
    ONES_SLIP: "The ones were added wrong. Add the two ones digits again.",
    DROPPED_CARRY: "The carry was dropped. The ones make ten or more: add one to the tens.",
    EXTRA_CARRY: "A carry was added, but the ones make less than ten. Add the tens alone.",
    TENS_SLIP: "The tens were added wrong. Add the two tens digits and the carry again.",
    DROPPED_HUNDREDS: "The hundreds digit is missing. The tens make ten or more: write their whole sum.",
    FORMAT: "This is not a column sum. Add the ones, then the tens with any carry, then box the total.",
    WRONG_TOTAL: "The total does not match the columns. Write the tens sum, then the last digit of the ones.",
}

# "7+8=15, 4+3+1=8." between the feedback block and </thinking>.
_WORKING = re.compile(r"\s*(\d)\+(\d)=(\d+), (\d)\+(\d)(\+1)?=(\d+)\.\s*")
_QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")


def question(a: int, b: int) -> str:
    return f"What is {a} + {b}?"


def operands(prompt) -> tuple[int, int]:
    """The a and b of "What is a + b?": a plain prompt, a conversation, or the problem text a provider gets."""
    text = prompt if isinstance(prompt, str) else next(m["content"] for m in reversed(prompt) if m["role"] == "user")
    match = _QUESTION.search(text)
    if match is None:
        raise ValueError(f"Not an addition question ('What is a + b?'): {text!r}")
    return int(match.group(1)), int(match.group(2))


KINDS = ("no_carry", "carry", "hundreds")


def difficulty(a: int, b: int) -> str:
    """`"no_carry"`, `"carry"` (the ones make ten or more, the total stays below 100) or `"hundreds"` (a total of
    100 or more): the three kinds of sums, which differ in the mistakes they invite."""
    if a + b >= 100:
        return "hundreds"
    return "carry" if a % 10 + b % 10 >= 10 else "no_carry"


def possible_mistakes(a: int, b: int) -> tuple[str, ...]:
    """The single mistakes that change the total of a + b."""
    carry = a % 10 + b % 10 >= 10
    possible = [WRONG_PLACE, ONES_SLIP, TENS_SLIP, DROPPED_CARRY if carry else EXTRA_CARRY]
    if a + b >= 100:
        possible.append(DROPPED_HUNDREDS)
    return tuple(m for m in possible if working(a, b, (m,), random.Random(0))[1] != a + b)


def working(a: int, b: int, mistakes=(), rng: random.Random | None = None) -> tuple[str, int]:
    """The worked column sum of a + b with `mistakes` (some of `MISTAKES`; none for the right working), and the
    total it arrives at.

    Slips go one up or one down (`rng` chooses; never below 0), and every later step follows from the written
    digits, as a pupil's working does: a dropped hundreds digit only drops something when the written tens sum
    reaches ten.
    """
    rng = rng or random.Random(0)
    ones_digits = (a % 10, b % 10)
    tens_digits = (a // 10, b // 10)
    if WRONG_PLACE in mistakes:
        ones_digits, tens_digits = (a % 10, b // 10), (a // 10, b % 10)
    ones = sum(ones_digits)
    if ONES_SLIP in mistakes:
        ones = ones - 1 if ones > 0 and rng.random() < 0.5 else ones + 1
    carry = ones >= 10
    if DROPPED_CARRY in mistakes:
        carry = False
    elif EXTRA_CARRY in mistakes:
        carry = True
    tens = sum(tens_digits) + carry
    if TENS_SLIP in mistakes:
        tens = tens - 1 if tens > 0 and rng.random() < 0.5 else tens + 1
    total = (tens % 10 if DROPPED_HUNDREDS in mistakes else tens) * 10 + ones % 10
    text = (
        f"{ones_digits[0]}+{ones_digits[1]}={ones}, {tens_digits[0]}+{tens_digits[1]}{'+1' if carry else ''}={tens}."
    )
    return text, total


def response(a: int, b: int, mistakes=(), feedback: str = "", rng: random.Random | None = None) -> str:
    """A whole response in the schema: the feedback block (empty at turn 0), the working, and the boxed total."""
    text, total = working(a, b, mistakes, rng)
    return f"{feedback_prefill(feedback)} {continuation(text, total)}"


def continuation(text: str, total: int) -> str:
    """What follows the feedback block: the working, `</thinking>` and the boxed total."""
    return f"{text}{THINKING_CLOSE} The final answer is \\boxed{{{total}}}"


def find_mistake(a: int, b: int, completion) -> str | None:
    """The earliest mistake in a response to a + b (`MISTAKES`, `FORMAT` or `WRONG_TOTAL`), None when it is right.

    Read in the order a pupil works: the digits of the ones column, their sum, the tens digits, the carry, the tens
    sum, then the total written from the two columns.
    """
    text = completion_text(completion)
    answer = extract_answer(text) if schema_compliant(text) else None
    if answer is not None and answer.strip() == str(a + b):
        return None
    reasoning = text.split(FEEDBACK_CLOSE, 1)[-1].split(THINKING_CLOSE, 1)[0]
    match = _WORKING.fullmatch(reasoning)
    if answer is None or match is None:
        return FORMAT
    ones_a, ones_b, ones, tens_a, tens_b, carry, tens = match.groups()
    if {int(ones_a), int(ones_b)} != {a % 10, b % 10} or {int(tens_a), int(tens_b)} != {a // 10, b // 10}:
        return WRONG_PLACE
    if int(ones) != a % 10 + b % 10:
        return ONES_SLIP
    if bool(carry) != (int(ones) >= 10):
        return DROPPED_CARRY if int(ones) >= 10 else EXTRA_CARRY
    if int(tens) != a // 10 + b // 10 + bool(carry):
        return TENS_SLIP
    if answer.strip() == str(int(tens) % 10 * 10 + int(ones) % 10) and int(tens) >= 10:
        return DROPPED_HUNDREDS
    return WRONG_TOTAL


def diagnose(problem: str, completion: str, columns: dict | None = None) -> str | None:
    """The checker of `CheckerFeedbackProvider`: what went wrong in one response and how to fix it; None when right.

    It writes no digit, so it can never state the answer.
    """
    mistake = find_mistake(*operands(problem), completion)
    return None if mistake is None else MISTAKE_DIAGNOSES[mistake]


def addition_reward(prompts, completions, **kwargs) -> list[float]:
    """1.0 when a response is schema-compliant and its boxed answer is the sum the prompt asks for, else 0.0."""
    rewards = []
    for prompt, completion in zip(prompts, completions, strict=True):
        text = completion_text(completion)
        answer = extract_answer(text) if schema_compliant(text) else None
        rewards.append(float(answer is not None and answer.strip() == str(sum(operands(prompt)))))
    return rewards


@dataclass(frozen=True)
class Splits:
    """Disjoint sets of sums (a, b), 10 <= a, b <= 99: no unordered pair is in two of them."""

    train: list[tuple[int, int]]
    validation: list[tuple[int, int]]
    test: list[tuple[int, int]]


def make_splits(seed: int, validation: int = 300, test: int = 300) -> Splits:
    """Every two-digit sum, shuffled by `seed` and split by unordered pair, with as many of each `difficulty` in the
    validation and test splits (the training split gets the rest)."""
    for name, size in (("validation", validation), ("test", test)):
        if size % len(KINDS):
            raise ValueError(f"`{name}` must be a multiple of {len(KINDS)} (as many sums of each kind), got {size}.")
    rng = random.Random(seed)
    by_kind = {kind: [] for kind in KINDS}
    for a in range(10, 100):
        for b in range(a, 100):
            by_kind[difficulty(a, b)].append((a, b))
    splits = {"train": [], "validation": [], "test": []}
    for pairs in by_kind.values():
        rng.shuffle(pairs)
        per_kind = validation // len(KINDS), test // len(KINDS)
        held = [pairs[: per_kind[0]], pairs[per_kind[0] : sum(per_kind)]]
        rest = pairs[sum(per_kind) :]
        for name, chosen in zip(("validation", "test", "train"), (*held, rest), strict=True):
            # each pair in a random order: a + b and b + a are the same sum, only one of them is asked
            splits[name] += [(a, b) if rng.random() < 0.5 else (b, a) for a, b in chosen]
    for pairs in splits.values():
        rng.shuffle(pairs)
    return Splits(**splits)
