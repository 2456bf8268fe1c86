import json
import random
from collections import Counter
from pathlib import Path

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from trl_mulferl.core.schema import PLAIN_FEEDBACK_HEADER, feedback_prefill, schema_compliant
from trl_mulferl.demo.addition import (
    DROPPED_CARRY,
    DROPPED_HUNDREDS,
    MISTAKE_DIAGNOSES,
    MISTAKES,
    WRONG_PLACE,
    addition_reward,
    find_mistake,
    make_splits,
    operands,
    possible_mistakes,
    question,
)
from trl_mulferl.demo.warm_start import (
    FEEDBACK_SLIP_RATE,
    GENERIC_PLAN,
    HUNDREDS_HABIT,
    MAX_REPORTS,
    NOISE,
    OWN_PLAN_SYSTEM_PROMPT,
    PLAN_NAMES_A_SLIP,
    PLAN_NAMES_HUNDREDS,
    WarmStartConfig,
    checker_report,
    evaluate_policy,
    failed_responses,
    mean_interval,
    planned_response,
    sample_mistakes,
    sft_example,
    tokenize_example,
    warm_start,
)
from trl_mulferl.igrpo.igrpo_config import DEFAULT_DRAFT_TEMPLATE


def slip_of(mistakes: tuple[str, ...]) -> str | None:
    """The slip among a response's mistakes (the hundreds habit aside)."""
    return next((m for m in mistakes if m != DROPPED_HUNDREDS), None)


def test_noise_follows_the_kind_of_sum():
    rng = random.Random(0)
    for (a, b), kind in (((23, 45), "no_carry"), ((47, 38), "carry"), ((78, 56), "hundreds")):
        counts = Counter(sample_mistakes(a, b, rng) for _ in range(4000))
        weights = NOISE[kind]
        slips = [None, *(m for m in possible_mistakes(a, b) if m in weights)]
        total = sum(weights[m] for m in slips)
        habit = HUNDREDS_HABIT if kind == "hundreds" else 0.0
        slip_counts = Counter()
        for mistakes, n in counts.items():
            slip_counts[slip_of(mistakes)] += n
        for slip in slips:
            assert slip_counts[slip] / 4000 == pytest.approx(weights[slip] / total, abs=0.025), slip
        assert sum(n for m, n in counts.items() if DROPPED_HUNDREDS in m) / 4000 == pytest.approx(habit, abs=0.01)
    # With feedback the named mistakes never come back, another slip at FEEDBACK_SLIP_RATE, and the habit stays
    # unless named.
    named = frozenset({DROPPED_CARRY})
    counts = Counter(sample_mistakes(78, 56, rng, avoid=named) for _ in range(4000))
    assert not any(DROPPED_CARRY in m for m in counts)
    slipped = sum(n for m, n in counts.items() if slip_of(m) is not None) / 4000
    assert slipped == pytest.approx(FEEDBACK_SLIP_RATE, abs=0.02)
    assert sum(n for m, n in counts.items() if DROPPED_HUNDREDS in m) / 4000 == pytest.approx(HUNDREDS_HABIT, abs=0.01)
    counts = Counter(sample_mistakes(78, 56, rng, avoid=frozenset({DROPPED_HUNDREDS})) for _ in range(1000))
    assert not any(DROPPED_HUNDREDS in m for m in counts) and counts[()] / 1000 > 0.85


def test_no_miscopy_is_taught():
    """Digits added across places are diagnosed but never taught, with feedback or without: the small policy
    miscopies by itself, and taught miscopies would make its copying worse."""
    rng = random.Random(0)
    for a, b in ((47, 38), (23, 45), (78, 56)):
        assert WRONG_PLACE in possible_mistakes(a, b)
        for avoid in (frozenset(), frozenset({DROPPED_CARRY}), frozenset({DROPPED_HUNDREDS})):
            assert not any(WRONG_PLACE in sample_mistakes(a, b, rng, avoid=avoid) for _ in range(2000))


def test_examples_of_every_kind():
    rng = random.Random(0)
    kinds = Counter()
    for _ in range(400):
        a, b = 47, 38
        example = sft_example(a, b, rng)
        user = example.prompt[-1]["content"]
        assert operands(example.prompt) == (a, b) and user.startswith(question(a, b))
        if example.prefill:  # structured: the checker's report, then a working that avoids what it names
            kinds["structured"] += 1
            assert example.prefill.startswith("<thinking><feedback>The checker's reports on the ")
            named = {m for m in possible_mistakes(a, b) if MISTAKE_DIAGNOSES[m] in example.prefill}
            assert named and find_mistake(a, b, example.prefill + example.target) not in named
        elif PLAIN_FEEDBACK_HEADER.strip() in user:
            kinds["plain"] += 1
            assert example.target.startswith("<thinking><feedback></feedback> ")
        elif DEFAULT_DRAFT_TEMPLATE.split("{draft}")[0].strip() in user:
            kinds["draft"] += 1
            draft = user.split("previous attempt at this problem:\n\n")[1].split("\n\nUse it")[0]
            if find_mistake(a, b, draft) is None:  # a right draft is confirmed
                assert find_mistake(a, b, example.target) is None
        else:
            kinds["turn_0"] += 1
            assert example.target.startswith("<thinking><feedback></feedback> ")
    assert set(kinds) == {"turn_0", "structured", "plain", "draft"}


def test_own_plan_names_a_mistake_and_the_working_avoids_it():
    """The own-plan pupil's plan: generic, or one usual slip (PLAN_NAMES_A_SLIP), or the missing hundreds digit
    only as often as the habit breaks; a named mistake never comes, so a group of hundreds still mostly fails."""
    rng = random.Random(0)
    plans, right, draws = Counter(), 0, 4000
    for _ in range(draws):
        text = planned_response(78, 56, rng)  # a carry and a hundreds digit
        assert schema_compliant(text) and text.startswith("<thinking><feedback>")
        plan = text.split("<feedback>")[1].split("</feedback>")[0]
        named = [m for m in MISTAKES if MISTAKE_DIAGNOSES[m] in plan]
        assert plan == GENERIC_PLAN or plan == f"Pitfall: {MISTAKE_DIAGNOSES[named[0]]}"
        assert not named or find_mistake(78, 56, text) != named[0]
        plans[named[0] if named else None] += 1
        right += addition_reward([question(78, 56)], [text])[0]
    assert plans[DROPPED_HUNDREDS] / draws == pytest.approx(PLAN_NAMES_HUNDREDS, abs=0.006)
    slips = [m for m in possible_mistakes(78, 56) if m in NOISE["hundreds"]]
    for slip in slips:  # the rest of the plans: a usual slip at PLAN_NAMES_A_SLIP, uniformly
        expected = (1 - PLAN_NAMES_HUNDREDS) * PLAN_NAMES_A_SLIP / len(slips)
        assert plans[slip] / draws == pytest.approx(expected, abs=0.02), slip
    # right only when the habit breaks or the plan names the hundreds digit, and no slip comes
    assert right / draws < 2 * (1 - HUNDREDS_HABIT) + PLAN_NAMES_HUNDREDS
    example = sft_example(78, 56, random.Random(3), own_plan=True)
    assert example.prompt[0] == {"role": "system", "content": OWN_PLAN_SYSTEM_PROMPT}
    assert operands(example.prompt) == (78, 56)


def test_checker_report_names_the_failed_responses_mistakes():
    rng = random.Random(0)
    failed = failed_responses(78, 56, rng, 8)
    assert all(addition_reward([question(78, 56)], [r]) == [0.0] for r in failed)
    report, named = checker_report(78, 56, failed)
    assert report.startswith("The checker's reports on the 8 failed attempts, most frequent first:\n1. ")
    assert "<feedback>" not in report and "\\boxed" not in report
    assert named == {m for m in MISTAKES if MISTAKE_DIAGNOSES[m] in report} and 1 <= len(named) <= MAX_REPORTS
    assert Counter(find_mistake(78, 56, r) for r in failed).most_common(1)[0][0] in named


@pytest.fixture(scope="module")
def tiny_warm_start(tmp_path_factory):
    config = WarmStartConfig(hidden_size=32, num_layers=1, steps=3, batch_size=4, warmup_steps=1)
    directory = tmp_path_factory.mktemp("warm") / "policy"
    pairs = make_splits(0).train[:50]
    logs = []
    path = warm_start(directory, pairs, config, log=logs.append)
    return path, pairs, config, logs


def test_tokenized_like_the_trainer(tiny_warm_start):
    path, pairs, _, _ = tiny_warm_start
    tokenizer = AutoTokenizer.from_pretrained(path)
    rng = random.Random(1)
    example = next(e for e in (sft_example(47, 38, rng) for _ in range(100)) if e.prefill)
    input_ids, labels = tokenize_example(tokenizer, example)
    # GRPOTrainer._tokenize_prompts's call
    tokenized = tokenizer.apply_chat_template(
        conversation=[example.prompt], add_generation_prompt=True, tokenize=True, return_dict=True
    )
    prompt_ids = tokenized["input_ids"][0]
    prefill_ids = tokenizer(example.prefill, add_special_tokens=False)["input_ids"]
    context = len(prompt_ids) + len(prefill_ids)
    assert input_ids[:context] == list(prompt_ids) + prefill_ids  # what MulFeRL's regeneration generates from
    assert labels[:context] == [-100] * context  # neither the prompt nor the injected feedback is learned
    assert labels[context:] == input_ids[context:] and input_ids[-1] == tokenizer.eos_token_id
    assert tokenizer.decode(input_ids[context:-1]) == example.target
    # The tokenizer is trained on the task: a question is a dozen tokens, not one per character.
    assert len(tokenizer("What is 47 + 38?")["input_ids"]) <= 12


def test_warm_start_is_cached(tiny_warm_start):
    path, pairs, config, logs = tiny_warm_start
    saved = json.loads((Path(path) / "warm_start.json").read_text())
    assert saved["settings"]["steps"] == 3 and len(logs) == 0  # no 100-step log line in 3 steps
    reused = []
    assert warm_start(path, pairs, config, log=reused.append) == path
    assert reused == [f"warm start: reusing {path}"]
    # Other settings make a new policy: the record is rewritten.
    other = WarmStartConfig(**{**config.__dict__, "steps": 2})
    assert warm_start(path, pairs, other, log=None) == path
    assert json.loads((Path(path) / "warm_start.json").read_text())["settings"]["steps"] == 2


def test_evaluation_without_and_with_feedback(tiny_warm_start, monkeypatch):
    """Every wrong answer, and only those, is answered again from its own question with the checker's report on it
    prefilled as the trainer injects it; pass@1 with feedback counts the revised answers."""
    from trl_mulferl.evaluation.backends import TransformersBackend

    path, _, _, _ = tiny_warm_start
    model, tokenizer = AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    pairs = make_splits(0).test[:6]
    calls = []
    generate = TransformersBackend.generate

    def recorded(backend, requests, progress=None):
        responses = generate(backend, requests, progress)
        calls.append(list(zip(requests, responses, strict=True)))
        return responses

    monkeypatch.setattr(TransformersBackend, "generate", recorded)
    result = evaluate_policy(model, tokenizer, pairs, samples=2, max_new_tokens=8, seed=0)
    first, revisions = calls
    assert len(first) == 12 and all(request.prefill == "" for request, _ in first)
    wrong = [(request, answer) for request, answer in first if addition_reward([request.prompt], [answer]) == [0.0]]
    assert len(revisions) == len(wrong) > 0
    for (request, answer), (revision, _) in zip(wrong, revisions, strict=True):
        assert revision.prompt == request.prompt
        report, _ = checker_report(*operands(request.prompt), [answer])
        assert revision.prefill == feedback_prefill(report)
    right = {True: 0, False: 0}
    for request, answer in first:
        right[addition_reward([request.prompt], [answer]) == [1.0]] += 1
    assert result["no_feedback"]["mean"] == pytest.approx(right[True] / 12)
    revised = sum(addition_reward([r.prompt], [a]) == [1.0] for r, a in revisions)
    assert result["feedback"]["mean"] == pytest.approx((right[True] + revised) / 12)
    assert evaluate_policy(model, tokenizer, pairs, samples=2, max_new_tokens=8, seed=0) == result


def test_mean_interval():
    half_width = 1.96 * (1 / 3) ** 0.5 / 2  # 1.96 standard errors of 0, 1, 0, 1: sample std (1/3)**0.5, n = 4
    assert mean_interval([1.0, 0.0, 1.0, 0.0]) == pytest.approx(
        {"mean": 0.5, "low": 0.5 - half_width, "high": 0.5 + half_width}
    )
    assert mean_interval([1.0, 0.0, 1.0, 0.0], quantile=3.182)["high"] == pytest.approx(
        0.5 + 3.182 * (1 / 3) ** 0.5 / 2
    )
    assert mean_interval([0.25]) == {"mean": 0.25, "low": 0.25, "high": 0.25}
