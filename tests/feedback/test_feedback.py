import asyncio
import json
import logging
import math
import threading
from collections import Counter
from decimal import Decimal

import pytest
import torch
from datasets import Dataset

from tests.helpers.trainer import MARKER, K, logged, make_trainer, marker_provider, marker_reward
from trl_mulferl import make_conversation, make_generator
from trl_mulferl.feedback import (
    FeedbackRequest,
    FeedbackResult,
    PreparedFeedback,
    collect_feedback,
    prepare_feedback,
    problem_text,
    protocol,
    redact_answer_leak,
    request_feedback,
)
from trl_mulferl.feedback.step import FeedbackStep, FeedbackStepSettings


def test_problem_text_is_the_last_user_message():
    prompt = [
        {"role": "system", "content": "Answer in the schema."},
        {"role": "user", "content": "What is 2 + 2?"},
        {"role": "assistant", "content": "5"},
        {"role": "user", "content": "Try again: what is 2 + 2?"},
    ]
    assert problem_text(prompt) == "Try again: what is 2 + 2?"
    assert problem_text("Q: 2 + 2 =") == "Q: 2 + 2 ="
    assert (
        problem_text([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
        == "ab"
    )


def test_redacts_equivalent_boxed_math_and_final_answers():
    feedback = "Issue: sign error. Fix steps: 1. Recompute; you should get $\\frac{2}{4}$, i.e. \\boxed{0.5}."
    redacted, leaked = redact_answer_leak(feedback, "\\frac{1}{2}")
    assert leaked
    assert "\\frac{2}{4}" not in redacted and "0.5" not in redacted
    assert redacted.count("[redacted]") == 2
    redacted, leaked = redact_answer_leak("Issue: x. The final answer is 42.\nFix steps: 1.", "42")
    assert leaked and "42" not in redacted


def test_redacts_a_long_reference_verbatim_but_not_short_numbers_in_steps():
    redacted, leaked = redact_answer_leak("Compare with x^2 + 3x - 10 carefully.", "x^2 + 3x - 10")
    assert leaked and "x^2 + 3x - 10" not in redacted
    text = "Issue: step 4 drops a term. Fix steps: 1. redo step 4."
    assert redact_answer_leak(text, "4") == (text, False)


def test_no_reference_means_no_check():
    assert redact_answer_leak("\\boxed{3}", None) == ("\\boxed{3}", False)


def test_requests_run_concurrently_within_the_bound():
    active, peak = 0, 0

    async def slow_provider(prompt, completions, rewards, **columns):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.2)
        active -= 1
        return f"feedback for {prompt} ({columns['solution']})"

    requests = [FeedbackRequest(f"p{i}", ["a", "b"], [0.0, 0.0], {"solution": str(i)}) for i in range(8)]
    results = asyncio.run(request_feedback(slow_provider, requests, max_concurrency=4))
    assert [r.text for r in results] == [f"feedback for p{i} ({i})" for i in range(8)]
    assert peak == 4  # four at a time: two waves, not eight


def test_sync_provider_errors_and_empty_replies_are_reported():
    def provider(prompt, completions, rewards, **columns):
        if prompt == "boom":
            raise RuntimeError("endpoint down")
        return "" if prompt == "empty" else "ok"

    requests = [FeedbackRequest(p, ["x"], [0.0], {}) for p in ("fine", "boom", "empty")]
    results = asyncio.run(request_feedback(provider, requests, max_concurrency=2))
    assert [(r.text, r.error) for r in results] == [("ok", None), (None, "RuntimeError"), (None, "empty")]


def test_sync_providers_run_as_concurrently_as_async_ones():
    """asyncio's default executor has min(32, CPUs + 4) threads; a sync provider must not be capped below the bound."""
    everyone_in_flight = threading.Barrier(40, timeout=10)

    def blocking_provider(prompt, completions, rewards, **columns):
        everyone_in_flight.wait()  # raises BrokenBarrierError (an unresolved group) unless all 40 run at once
        return "ok"

    requests = [FeedbackRequest(f"p{i}", ["a"], [0.0], {}) for i in range(40)]
    results = asyncio.run(request_feedback(blocking_provider, requests, max_concurrency=40))
    assert [(r.text, r.error) for r in results] == [("ok", None)] * 40


def test_cancelling_a_request_cancels_the_providers_calls():
    """The asynchronous trainer cancels a feedback task at the end of training: the provider calls it awaits end with
    it, none is left pending on the loop (asyncio.wait alone leaves them running)."""
    started, cancelled = asyncio.Event(), []

    async def hanging_provider(prompt, completions, rewards, **columns):
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(prompt)
            raise

    async def cancel_mid_request():
        requests = [FeedbackRequest(f"p{i}", ["a"], [0.0], {}) for i in range(3)]
        task = asyncio.ensure_future(request_feedback(hanging_provider, requests, max_concurrency=3))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    assert asyncio.run(cancel_mid_request()) == []
    assert sorted(cancelled) == ["p0", "p1", "p2"]


def test_a_sync_providers_call_past_its_deadline_does_not_hold_the_process(tmp_path):
    """A sync provider still waiting on its endpoint when the run ends: the process exits at once (an executor's
    threads are joined at exit, which held the asynchronous trainer's rollout process until TRL killed it)."""
    import subprocess
    import sys
    import time

    script = tmp_path / "hang.py"
    script.write_text(
        "import asyncio, time\n"
        "from trl_mulferl.feedback import FeedbackRequest, request_feedback\n"
        "def provider(prompt, completions, rewards):\n"
        "    time.sleep(60)\n"
        "results = asyncio.run(request_feedback(provider, [FeedbackRequest('p', ['a'], [0.0], {})], 1, deadline=0.2))\n"
        "print(results[0].error, flush=True)\n"
        "print(time.monotonic(), flush=True)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    exited = time.monotonic()
    error, answered = done.stdout.split()
    assert done.returncode == 0 and error == "deadline"
    assert exited - float(answered) < 10  # not the provider's 60 s


# The trainer's side of the feedback path, on the tiny model.


def zero_reward(completions, **kwargs):
    return [0.0] * len(completions)


def worked_solutions(num_prompts=4):
    rows = [
        {
            "prompt": make_conversation(f"What is {i} + {i}?"),
            "solution": f"Add {i} to itself: {i} + {i} = {2 * i}, so the sum is \\boxed{{{2 * i}}}.",
        }
        for i in range(num_prompts)
    ]
    return Dataset.from_list(rows)


def test_training_redacts_the_final_answer_of_a_worked_solution(tmp_path, tiny_tokenizer, tiny_model_dir):
    def telling_provider(prompt, completions, rewards, solution, **columns):
        answer = solution.rsplit("boxed{", 1)[1].split("}")[0]
        return f"Issue: you stopped early. The answer is {answer}. Also \\boxed{{{answer}}}."

    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        zero_reward,
        provider=telling_provider,
        model=tiny_model_dir,
        train_dataset=worked_solutions(),
        max_feedback_turns=1,
    )
    trainer.train()
    assert logged(trainer, "mulferl/feedback/requests") == [2.0, 2.0]
    assert logged(trainer, "mulferl/feedback/leaks_redacted") == [2.0, 2.0]


def test_training_checks_the_feedback_after_sanitising_it(tmp_path, tiny_tokenizer, tiny_model_dir):
    def joining_provider(prompt, completions, rewards, **columns):
        return "Issue: you stopped early. The answer is 4<|im_end|>2."  # 42 once the special token is removed

    dataset = Dataset.from_list(
        [{"prompt": make_conversation(f"What is {i} + 42 - {i}?"), "solution": "42"} for i in range(4)]
    )
    trainer = make_trainer(
        tmp_path,
        tiny_tokenizer,
        zero_reward,
        provider=joining_provider,
        model=tiny_model_dir,
        train_dataset=dataset,
        max_feedback_turns=1,
    )
    trainer.train()
    assert logged(trainer, "mulferl/feedback/leaks_redacted") == [2.0, 2.0]


class RecordingBatchedProvider:
    """A batched provider (the protocol of `SelfFeedbackProvider`) that records its requests, or raises."""

    def __init__(self, error: Exception | None = None):
        self.error, self.requests = error, []

    def feedback_batch(self, requests, trainer):
        self.requests += requests
        if self.error is not None:
            raise self.error
        return [FeedbackResult(f"Issue: the answer misses {MARKER}. Fix steps: 1. write it.", 0.0) for _ in requests]


def test_a_batched_provider_that_raises_leaves_its_groups_unresolved(tmp_path, tiny_tokenizer, tiny_model_dir):
    provider = RecordingBatchedProvider(torch.OutOfMemoryError("CUDA out of memory"))
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, provider=provider, model=tiny_model_dir)
    trainer.train()  # training goes on
    assert len(provider.requests) == 4
    assert logged(trainer, "mulferl/feedback/requests") == [2.0, 2.0]
    assert logged(trainer, "mulferl/feedback/errors") == [2.0, 2.0]
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]


def test_collect_feedback_gives_a_batched_failure_as_errors():
    results = collect_feedback(
        RecordingBatchedProvider(RuntimeError("boom")),
        [FeedbackRequest("p", ["a"], [0.0], {})] * 2,
        None,
        None,
        4,
        None,
    )
    assert [(r.text, r.error) for r in results] == [(None, "RuntimeError")] * 2


class MalformedBatchedProvider:
    """A batched provider whose `feedback_batch` returns `make_results(requests)`, whatever that is."""

    def __init__(self, make_results):
        self.make_results = make_results

    def feedback_batch(self, requests, trainer):
        return self.make_results(requests)


GOOD = FeedbackResult("Issue: a sign. Fix steps: 1. flip it.", 0.5)
# What a batched provider returns for two requests: the texts `FeedbackStep.prepare` makes of them, the latency it
# counts (a malformed result keeps a valid latency; a latency it cannot pair with a request counts as 0) and the
# problem it warns about.
MALFORMED_BATCHES = {
    "int-text": ([FeedbackResult(42, 0.5), GOOD], [None, GOOD.text], 1.0, "a text of type int"),
    "dict-text": ([GOOD, FeedbackResult({"text": "hi"}, 0.5)], [GOOD.text, None], 1.0, "a text of type dict"),
    "decimal-text": ([FeedbackResult(Decimal("1.5"), 0.5), GOOD], [None, GOOD.text], 1.0, "a text of type Decimal"),
    "bytes-text": ([FeedbackResult(b"hi", 0.5), GOOD], [None, GOOD.text], 1.0, "a text of type bytes"),
    "str-for-result": ([GOOD.text, GOOD], [None, GOOD.text], 0.5, "a str in place of a FeedbackResult"),
    "too-few": ([GOOD], [None, None], 0.0, "fewer results than it was given requests"),
    "too-many": ([GOOD, GOOD, GOOD], [None, None], 0.0, "more results than it was given requests"),
    "not-a-list": (None, [None, None], 0.0, "a NoneType, not a list of results"),
    "latency-none": ([FeedbackResult(GOOD.text, None), GOOD], [None, GOOD.text], 0.5, "a latency_s of type NoneType"),
    "latency-negative": (
        [GOOD, FeedbackResult(GOOD.text, -1.0)],
        [GOOD.text, None],
        0.5,
        "a latency_s that is negative or not finite",
    ),
    "latency-nan": (
        [FeedbackResult(GOOD.text, math.nan), GOOD],
        [None, GOOD.text],
        0.5,
        "a latency_s that is negative or not finite",
    ),
    "latency-str": ([FeedbackResult(GOOD.text, "0.5"), GOOD], [None, GOOD.text], 0.5, "a latency_s of type str"),
}


def feedback_step(tokenizer, max_feedback_length=64):
    settings = FeedbackStepSettings(
        max_feedback_length=max_feedback_length,
        feedback_reference_column="solution",
        seed=0,
        fco_pairing=None,
        feedback_leak_guard="exempt_given",
    )
    return FeedbackStep(settings, tokenizer, eos_token_ids=[tokenizer.eos_token_id])


@pytest.mark.parametrize("batch, texts, latency, problem", MALFORMED_BATCHES.values(), ids=MALFORMED_BATCHES.keys())
def test_a_malformed_batched_result_is_an_unresolved_group(
    batch, texts, latency, problem, tiny_tokenizer, caplog, monkeypatch
):
    monkeypatch.setattr(protocol, "_warned", set())  # earlier tests may have warned already
    provider = MalformedBatchedProvider(lambda requests: batch)
    requests = [FeedbackRequest("Halve 4.", ["3"], [0.0], {"solution": "2"}) for _ in range(2)]
    step, counts = feedback_step(tiny_tokenizer), Counter()
    with caplog.at_level(logging.WARNING, logger=protocol.__name__):
        for _ in range(2):
            results = collect_feedback(provider, requests, None, None, 4, None)
            assert step.prepare(provider, requests, results, counts) == texts
    unresolved = texts.count(None)
    assert counts["feedback/requests"] == 4
    assert counts["feedback/errors"] == counts["feedback/malformed_results"] == 2 * unresolved
    assert counts["feedback/latency_sum"] == 2 * latency and counts["feedback/latency_max"] == (latency > 0) * 0.5
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 1  # once, however often it happens
    assert (
        f"MalformedBatchedProvider returned {problem}" in warnings[0] and "feedback_batch must return" in warnings[0]
    )


def test_a_malformed_result_keeps_its_latency():
    results = protocol.checked_results("provider", [None], [FeedbackResult(7, 1.25)])
    assert results == [FeedbackResult(None, 1.25, error=protocol.MALFORMED)]


def test_a_per_request_providers_non_string_reply_counts_as_malformed(tiny_tokenizer, caplog, monkeypatch):
    monkeypatch.setattr(protocol, "_warned", set())

    def numeric_provider(prompt, completions, rewards, **columns):
        return 42 if prompt == "Halve 4." else "Issue: a sign. Fix steps: 1. flip it."

    requests = [FeedbackRequest(prompt, ["3"], [0.0], {"solution": "2"}) for prompt in ("Halve 4.", "Halve 6.")]
    counts = Counter()
    with caplog.at_level(logging.WARNING, logger=protocol.__name__):
        results = asyncio.run(request_feedback(numeric_provider, requests, max_concurrency=2))
        texts = feedback_step(tiny_tokenizer).prepare(numeric_provider, requests, results, counts)
    assert texts == [None, "Issue: a sign. Fix steps: 1. flip it."]
    assert (counts["feedback/errors"], counts["feedback/malformed_results"]) == (1, 1)
    assert any("numeric_provider returned a text of type int" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("text", [42, {"text": "hi"}, Decimal("42"), None])
def test_prepare_feedback_leaves_a_text_that_is_no_str_unresolved(text, tiny_tokenizer):
    assert prepare_feedback(text, "42", tiny_tokenizer, 64) == PreparedFeedback(None, False)


def test_training_goes_on_past_a_batched_provider_that_returns_too_few_results(
    tmp_path, tiny_tokenizer, tiny_model_dir
):
    provider = MalformedBatchedProvider(lambda requests: [GOOD] * (len(requests) - 1))
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, provider=provider, model=tiny_model_dir)
    trainer.train()
    assert logged(trainer, "mulferl/feedback/requests") == [2.0, 2.0]
    assert logged(trainer, "mulferl/feedback/errors") == [2.0, 2.0]
    assert logged(trainer, "mulferl/feedback/malformed_results") == [2.0, 2.0]
    assert logged(trainer, "mulferl/route/unresolved") == [1.0, 1.0]


# Collective failures as torch 2.13 raises them (tests/mulferl/test_multiprocess.py checks gloo's for real): a mismatch that
# TORCH_DISTRIBUTED_DEBUG=DETAIL detects, a gloo timeout, DETAIL's barrier timeout, NCCL's `DistBackendError`.
COLLECTIVE_ERRORS = [
    RuntimeError(
        "Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint("
        "SequenceNumber=7, OpType=ALLGATHER, TensorShape=[1]), but Rank 0 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=7, OpType=ALLREDUCE, TensorShape=[1])."
    ),
    RuntimeError(
        "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 90000ms "
        "for recv operation to complete"
    ),
    RuntimeError("[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 90000 ms"),
    torch.distributed.DistBackendError("NCCL error in: ProcessGroupNCCL.cpp:3356, unhandled system error"),
]


@pytest.mark.parametrize("error", COLLECTIVE_ERRORS, ids=["mismatch", "gloo-timeout", "barrier-timeout", "nccl"])
def test_collect_feedback_raises_a_collective_error(error):
    """Not the provider's failure: the processes are out of step, and carrying on would hang or mix up their calls."""
    with pytest.raises(type(error)) as raised:
        collect_feedback(
            RecordingBatchedProvider(error), [FeedbackRequest("p", ["a"], [0.0], {})], None, None, 4, None
        )
    assert raised.value is error


def test_requests_carry_seed_step_and_prompt_index(tmp_path, tiny_tokenizer, tiny_model_dir):
    provider = RecordingBatchedProvider()
    trainer = make_trainer(tmp_path, tiny_tokenizer, marker_reward, provider=provider, model=tiny_model_dir, seed=7)
    trainer.train()
    # 2 steps of 2 prompts on one process: prompt indices 0 and 1 at each step.
    assert [(r.seed, r.step, r.prompt_index) for r in provider.requests] == [
        (7, 0, 0),
        (7, 0, 1),
        (7, 1, 0),
        (7, 1, 1),
    ]
    expected = torch.randperm(K, generator=make_generator(7, 1, 0))
    assert torch.equal(torch.randperm(K, generator=provider.requests[2].generator()), expected)


def test_a_provider_that_takes_feedback_generator_gets_the_requests_generator():
    received = []

    def provider(prompt, completions, rewards, feedback_generator):
        received.append(torch.randperm(8, generator=feedback_generator))
        return "Issue: x. Fix steps: 1. y."

    requests = [FeedbackRequest("p", ["a"], [0.0], {}, seed=3, step=5, prompt_index=i) for i in range(2)]
    asyncio.run(request_feedback(provider, requests, max_concurrency=1))
    assert [r.tolist() for r in received] == [
        torch.randperm(8, generator=make_generator(3, 5, i)).tolist() for i in range(2)
    ]


def test_feedback_group_size_is_for_built_in_providers(tmp_path, tiny_tokenizer, tiny_model_dir, caplog):
    sizes = []

    def provider(prompt, completions, rewards, **columns):
        sizes.append(len(completions))
        return marker_provider(prompt, completions, rewards)

    with caplog.at_level(logging.WARNING, logger="trl_mulferl"):
        trainer = make_trainer(
            tmp_path,
            tiny_tokenizer,
            marker_reward,
            provider=provider,
            model=tiny_model_dir,
            feedback_group_size=1,
            max_steps=1,
        )
    assert "feedback_group_size=1 is ignored" in caplog.text
    trainer.train()
    assert sizes == [K, K]  # the whole group, unsplit


def test_feedback_totals_survive_a_resume(tmp_path, tiny_tokenizer, tiny_model_dir):
    saving = {"save_strategy": "steps", "save_steps": 1, "feedback_input_token_price": 1.0}
    whole = make_trainer(tmp_path / "whole", tiny_tokenizer, marker_reward, model=tiny_model_dir, **saving)
    whole.train()
    total = logged(whole, "mulferl/feedback/total_requests")
    assert total == [4]
    state = json.loads((tmp_path / "whole" / "checkpoint-1" / "trainer_state.json").read_text())
    assert state["stateful_callbacks"]["FeedbackTotals"]["attributes"]["totals"]["feedback/requests"] == 2

    resumed = make_trainer(tmp_path / "whole", tiny_tokenizer, marker_reward, model=tiny_model_dir, **saving)
    resumed.train(resume_from_checkpoint=str(tmp_path / "whole" / "checkpoint-1"))
    assert logged(resumed, "mulferl/feedback/requests")[-1] == 2.0  # only step 2 ran
    assert logged(resumed, "mulferl/feedback/total_requests") == total
