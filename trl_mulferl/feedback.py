"""Calling feedback providers and checking what they return (decision 8 of the spec).

A feedback provider is any callable, sync or async::

    provider(prompt: str, completions: list[str], rewards: list[float], **columns) -> str | None

called once per FAILED group with the problem text (the last user message), the group's full responses as decoded
(prefix included), their rewards, and the dataset columns of that prompt (e.g. `solution`), as TRL passes them to
reward functions. It returns the feedback text; `None`, an empty string or an exception leaves the group unresolved.
"""

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from math_verify import parse, verify
from trl.trainer.utils import is_async_callable

from .rewards import as_latex_answer
from .schema import boxed_spans


logger = logging.getLogger(__name__)

REDACTED = "[redacted]"
# A reference answer this long is redacted wherever it appears verbatim; shorter ones ("4") would hit step numbers.
MIN_VERBATIM_LEAK_LENGTH = 5
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)", re.DOTALL)
_FINAL_ANSWER = re.compile(r"(?:final answer|answer)\s*(?:is|:|=)\s*([^\n]+?)\s*(?:[.;]\s|[.;]?$|\n)", re.IGNORECASE)


@dataclass
class FeedbackRequest:
    """One FAILED group: what the provider is called with."""

    prompt: str
    completions: list[str]
    rewards: list[float]
    columns: dict[str, Any]


@dataclass
class FeedbackResult:
    text: str | None
    latency_s: float
    error: str | None = None


def problem_text(prompt: str | list[dict[str, Any]]) -> str:
    """The problem a provider is shown: the last user message of a conversation, or the plain prompt itself."""
    if isinstance(prompt, str):
        return prompt
    content = next(message["content"] for message in reversed(prompt) if message["role"] == "user")
    if isinstance(content, list):  # typed content blocks
        return "".join(block.get("text", "") for block in content)
    return content


async def _call(provider: Callable, request: FeedbackRequest, semaphore: asyncio.Semaphore) -> FeedbackResult:
    async with semaphore:
        start = time.perf_counter()
        try:
            if is_async_callable(provider):
                text = await provider(request.prompt, request.completions, request.rewards, **request.columns)
            else:
                text = await asyncio.to_thread(
                    provider, request.prompt, request.completions, request.rewards, **request.columns
                )
        except Exception as error:  # a failing provider must not stop training: the group becomes unresolved
            logger.warning("Feedback provider failed: %s: %s", type(error).__name__, error)
            return FeedbackResult(None, time.perf_counter() - start, error=type(error).__name__)
        latency = time.perf_counter() - start
        if text is not None and not isinstance(text, str):
            _warn_once(
                f"The feedback provider returned a {type(text).__name__}, not a str; its groups are unresolved. Return "
                "the feedback text (or None when there is none)."
            )
            return FeedbackResult(None, latency, error="not_a_string")
        if text is None or not text.strip():
            return FeedbackResult(None, latency, error="empty")
        return FeedbackResult(text, latency)


_warned: set[str] = set()


def _warn_once(message: str):
    if message not in _warned:
        _warned.add(message)
        logger.warning(message)


async def request_feedback(
    provider: Callable, requests: list[FeedbackRequest], max_concurrency: int, deadline: float | None = None
) -> list[FeedbackResult]:
    """Ask the provider about every request concurrently, at most `max_concurrency` at a time, in request order.

    Requests still unanswered after `deadline` seconds are cancelled and come back as errors ("deadline").
    """
    semaphore = asyncio.Semaphore(max_concurrency)
    tasks = [asyncio.ensure_future(_call(provider, request, semaphore)) for request in requests]
    if not tasks:
        return []
    _, pending = await asyncio.wait(tasks, timeout=deadline)
    for task in pending:
        task.cancel()
    if pending:
        logger.warning(
            "%d feedback requests missed the %.0f s turn deadline; their groups are unresolved.",
            len(pending),
            deadline,
        )
    return [
        task.result() if task not in pending else FeedbackResult(None, deadline, error="deadline") for task in tasks
    ]


def redact_answer_leak(feedback: str, reference: str | None) -> tuple[str, bool]:
    """Replace any statement of the reference answer in the feedback with `[redacted]`.

    Checked: the reference string itself when it has at least `MIN_VERBATIM_LEAK_LENGTH` characters, and every boxed
    expression, math span (`$...$`, `\\[...\\]`, `\\(...\\)`) and "answer is ..." phrase that math-verify finds
    equivalent to the reference.

    Returns:
        The redacted text and whether anything was redacted.
    """
    if not reference or not reference.strip():
        return feedback, False
    gold = parse(as_latex_answer(reference))
    candidates = [feedback[start:end] for start, end, _ in boxed_spans(feedback)]
    candidates += [match.group(0) for match in _MATH_SPAN.finditer(feedback)]
    candidates += [match.group(1) for match in _FINAL_ANSWER.finditer(feedback)]
    leaked = [
        candidate
        for candidate in dict.fromkeys(candidates)
        if gold and verify(gold, parse(as_latex_answer(candidate)) or parse(f"${candidate}$"))
    ]
    if len(reference.strip()) >= MIN_VERBATIM_LEAK_LENGTH and reference.strip() in feedback:
        leaked.append(reference.strip())
    for text in sorted(leaked, key=len, reverse=True):
        feedback = feedback.replace(text, REDACTED)
    return feedback, bool(leaked)
