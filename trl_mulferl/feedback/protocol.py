"""The feedback provider protocol, and calling providers (decision 8).

A feedback provider is any callable, sync or async::

    provider(prompt: str, completions: list[str], rewards: list[float], **columns) -> str | None

called once per FAILED group with the problem text (the last user message), the group's full responses as decoded
(prefix included), their rewards, and the dataset columns of that prompt (e.g. `solution`), as TRL passes them to
reward functions. A provider that takes a `feedback_turn` parameter (or `**kwargs`) also gets the turn the feedback
will condition: 1 for the first regeneration, 2 for the second; one that takes `feedback_generator` (or `**kwargs`)
gets a `torch.Generator` seeded from `(seed, global_step, prompt index)` for its random choices (decision 4), such as
the subgroup split of [`OpenAIFeedbackProvider`]. It returns the feedback text; `None`, an empty string, an exception
or a reply that is no str (`MALFORMED`, counted in `feedback/malformed_results`) leaves the group unresolved.

A *batched* provider (e.g. `SelfFeedbackProvider`, which generates with the policy's own weights) instead has a method
`feedback_batch(requests: list[FeedbackRequest], trainer) -> list[FeedbackResult]`: the trainer calls it once per
feedback turn on every process together, with this process's requests (possibly none), so that it can run
collective operations such as a generation under DeepSpeed ZeRO-3 or FSDP. It must make the same collective calls
on every process even where its own part fails: it then answers its requests with errors instead of raising, as
`SelfFeedbackProvider` does (a process that raised would skip the calls the others still make, and they would wait).
The one exception is a failed collective (`trl_mulferl.core.collectives.is_collective_error`): the processes are
already out of step, so the provider raises it, and so does `collect_feedback`, which stops the run with its message.
What it returns is checked (`checked_results`): a result that breaks the protocol leaves its group unresolved, and a
list that is not one result per request all of them.
"""

import asyncio
import functools
import inspect
import logging
import math
import numbers
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from trl.trainer.utils import is_async_callable

from ..core.collectives import is_collective_error
from ..core.routing import make_generator


logger = logging.getLogger(__name__)

# Keywords the trainer passes to providers that accept them; a dataset column may not take these names.
PROVIDER_KEYWORDS = ("feedback_turn", "feedback_generator")


@dataclass
class FeedbackRequest:
    """One FAILED group: what the provider is called with."""

    prompt: str
    completions: list[str]
    rewards: list[float]
    columns: dict[str, Any]
    turn: int = 1  # the turn the feedback will condition (1 = the first regeneration)
    # Seed the provider's random choices (decision 4): the run's seed, the step (the policy version in the asynchronous
    # trainer) and the prompt's index over processes (its group id there).
    seed: int = 0
    step: int = 0
    prompt_index: int = 0

    def generator(self):
        """A fresh `torch.Generator` seeded from `(seed, step, prompt_index)`, the same on every process."""
        return make_generator(self.seed, self.step, self.prompt_index)


@dataclass
class FeedbackResult:
    text: str | None
    latency_s: float
    error: str | None = None


# The error of a result that breaks the protocol (text neither a str nor None, a bad latency, a batched provider's
# list not one `FeedbackResult` per request): the group is unresolved, as for a provider that failed.
MALFORMED = "malformed_result"


def problem_text(prompt: str | list[dict[str, Any]]) -> str:
    """The problem a provider is shown: the last user message of a conversation, or the plain prompt itself."""
    if isinstance(prompt, str):
        return prompt
    content = next(message["content"] for message in reversed(prompt) if message["role"] == "user")
    if isinstance(content, list):  # typed content blocks
        return "".join(block.get("text", "") for block in content)
    return content


def is_batched(provider) -> bool:
    """Whether the provider answers a whole feedback turn at once (`feedback_batch`), on every process together."""
    return callable(getattr(provider, "feedback_batch", None))


def accepted_keywords(provider: Callable) -> tuple[str, ...]:
    """The keywords of `PROVIDER_KEYWORDS` the provider accepts (by name or through `**kwargs`)."""
    try:
        parameters = inspect.signature(provider).parameters.values()
    except (TypeError, ValueError):  # builtins and some C callables have no signature
        return ()
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return PROVIDER_KEYWORDS
    names = {p.name for p in parameters if p.kind is not inspect.Parameter.POSITIONAL_ONLY}
    return tuple(keyword for keyword in PROVIDER_KEYWORDS if keyword in names)


def _provider_columns(request: FeedbackRequest, keywords: tuple[str, ...]) -> dict[str, Any]:
    extra = {"feedback_turn": request.turn} if "feedback_turn" in keywords else {}
    if "feedback_generator" in keywords:
        extra["feedback_generator"] = request.generator()
    return {**request.columns, **extra}


def in_daemon_thread(call: Callable[[], Any]) -> asyncio.Future:
    """`call()` in a daemon thread of its own, awaitable from the running loop. Unlike an executor's threads, which the
    interpreter joins at exit, a call still running when training ends (a sync provider waiting on its endpoint) does
    not hold the process."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(outcome: str, value):
        if not future.done():
            getattr(future, outcome)(value)

    def run():
        try:
            outcome, value = "set_result", call()
        except BaseException as error:
            outcome, value = "set_exception", error
        try:
            loop.call_soon_threadsafe(settle, outcome, value)
        except RuntimeError:  # the loop has closed: nobody waits for this call any more
            pass

    threading.Thread(target=run, daemon=True, name="mulferl-feedback").start()
    return future


async def _call(provider: Callable, request: FeedbackRequest, semaphore: asyncio.Semaphore) -> FeedbackResult:
    async with semaphore:
        start = time.perf_counter()
        columns = _provider_columns(request, accepted_keywords(provider))
        try:
            if is_async_callable(provider):
                text = await provider(request.prompt, request.completions, request.rewards, **columns)
            else:
                call = functools.partial(provider, request.prompt, request.completions, request.rewards, **columns)
                text = await in_daemon_thread(call)
        except Exception as error:  # a failing provider must not stop training: the group becomes unresolved
            logger.warning("Feedback provider failed: %s: %s", type(error).__name__, error)
            return FeedbackResult(None, time.perf_counter() - start, error=type(error).__name__)
        latency = time.perf_counter() - start
        if text is not None and not isinstance(text, str):
            warn_malformed(
                provider, f"returned a text of type {type(text).__name__}", "Return the feedback text, or None."
            )
            return FeedbackResult(None, latency, error=MALFORMED)
        if text is None or not text.strip():
            return FeedbackResult(None, latency, error="empty")
        return FeedbackResult(text, latency)


_warned: set[str] = set()


def warn_once(message: str):
    if message not in _warned:
        _warned.add(message)
        logger.warning(message)


def provider_name(provider) -> str:
    """How messages name a provider: a function's name, else its class's."""
    return getattr(provider, "__name__", type(provider).__name__)


def warn_malformed(provider, problem: str, fix: str):
    """Warn once per provider and kind of `problem` that what it returned breaks the protocol."""
    warn_once(
        f"The feedback provider {provider_name(provider)} {problem}: the group is unresolved (counted in "
        f"mulferl/feedback/malformed_results). {fix}"
    )


_RESULTS_FIX = (
    "feedback_batch must return a list of one FeedbackResult(text: str | None, latency_s: float >= 0) per request, "
    "in the order of the requests."
)


def checked_results(provider, requests: list[FeedbackRequest], results) -> list[FeedbackResult]:
    """`results`, one per request, with each that breaks the protocol replaced by an error (`MALFORMED`, its latency
    kept when it is one): a text neither a str nor None, a latency that is not a finite number >= 0, an item that is
    no `FeedbackResult`. If `results` is no list (or tuple) of one item per request, every request gets an error
    (latency 0): which result answers which request is unknown. Warns once per kind of problem (`warn_malformed`).

    A per-request provider's results are well formed by construction (`request_feedback`); a batched provider's
    `feedback_batch` returns what it likes, and `FeedbackStep.prepare` must not stop training on it.
    """
    if not isinstance(results, (list, tuple)):
        warn_malformed(provider, f"returned a {type(results).__name__}, not a list of results", _RESULTS_FIX)
        return [FeedbackResult(None, 0.0, error=MALFORMED) for _ in requests]
    if len(results) != len(requests):
        number = "fewer" if len(results) < len(requests) else "more"
        warn_malformed(provider, f"returned {number} results than it was given requests", _RESULTS_FIX)
        return [FeedbackResult(None, 0.0, error=MALFORMED) for _ in requests]
    return [_checked_result(provider, result) for result in results]


def _checked_result(provider, result) -> FeedbackResult:
    if not isinstance(result, FeedbackResult):
        warn_malformed(provider, f"returned a {type(result).__name__} in place of a FeedbackResult", _RESULTS_FIX)
        return FeedbackResult(None, 0.0, error=MALFORMED)
    problems = []
    latency = result.latency_s
    if not isinstance(latency, numbers.Real) or isinstance(latency, bool):
        problems.append(f"returned a latency_s of type {type(latency).__name__}")
        latency = 0.0
    elif not math.isfinite(latency) or latency < 0:
        problems.append("returned a latency_s that is negative or not finite")
        latency = 0.0
    if result.text is not None and not isinstance(result.text, str):
        problems.append(f"returned a text of type {type(result.text).__name__}")
    for problem in problems:
        warn_malformed(provider, problem, _RESULTS_FIX)
    return FeedbackResult(None, float(latency), error=MALFORMED) if problems else result


async def request_feedback(
    provider: Callable, requests: list[FeedbackRequest], max_concurrency: int, deadline: float | None = None
) -> list[FeedbackResult]:
    """Ask the provider about every request concurrently, at most `max_concurrency` at a time, in request order.

    Requests still unanswered after `deadline` seconds are cancelled and come back as errors ("deadline"); so are
    they all when the caller is cancelled. A sync provider's calls run in daemon threads (`in_daemon_thread`): one past
    the deadline finishes in the background.
    """
    if not requests:
        return []
    semaphore = asyncio.Semaphore(max_concurrency)
    tasks = [asyncio.ensure_future(_call(provider, request, semaphore)) for request in requests]
    try:
        _, pending = await asyncio.wait(tasks, timeout=deadline)
    except asyncio.CancelledError:  # asyncio.wait leaves its tasks running
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
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


def collect_feedback(
    provider,
    requests: list[FeedbackRequest],
    trainer,
    run_async: Callable[[Coroutine], Any],
    max_concurrency: int,
    deadline: float | None,
) -> list[FeedbackResult]:
    """The results of one feedback turn, in request order, from a batched or a per-request provider.

    A batched provider is called with `trainer` (on every process together); if it raises anyway, all its requests
    come back as errors and training goes on, which keeps the processes in step only where it had no collective call
    left to make (see the module's docstring), unless a collective itself failed (`is_collective_error`): that error
    is raised. Any other provider gets every request concurrently through `request_feedback`, run by `run_async`
    (the trainer's feedback event loop).
    """
    if not is_batched(provider):
        return run_async(request_feedback(provider, requests, max_concurrency, deadline))
    start = time.perf_counter()
    try:
        return provider.feedback_batch(requests, trainer)
    except Exception as error:  # as for a per-request provider, a failure leaves the groups unresolved
        if is_collective_error(error):
            raise
        logger.warning("Batched feedback provider failed: %s: %s", type(error).__name__, error)
        latency = time.perf_counter() - start
        return [FeedbackResult(None, latency, error=type(error).__name__) for _ in requests]
