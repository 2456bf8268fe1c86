import asyncio
import threading
import time

from trl_mulferl.feedback import FeedbackRequest, problem_text, redact_answer_leak, request_feedback


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
