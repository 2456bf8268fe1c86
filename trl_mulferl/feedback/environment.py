"""Feedback written by the environment itself: a failing test's output, a rejected action, a checker's report.

An environment of TRL's `environment_factory` opts in with one method, beside TRL's `reset` and `get_reward`::

    class CodeEnv:
        def reset(self, **row) -> str | None: ...
        def run_tests(self, code: str) -> str: ...  # a tool
        def get_feedback(self) -> str | None:  # sync or async
            return self.last_failure  # e.g. the first failing test and its output; None when it has nothing to say

`get_feedback` is called only for the episodes of a group whose rollouts all failed, after they ended and before their
environments are reset for the regeneration; an async one runs on TRL's event loop, where its async tools and
`get_reward` run. The trainer keeps it out of the policy's tools, as TRL keeps `reset` and `get_reward`: the policy
never sees the report except through the feedback slot, as data (never an action, never a control token).
"""

import asyncio
import inspect

from .checker import aggregate_diagnostics


FEEDBACK_METHOD = "get_feedback"


class EnvironmentFeedbackProvider:
    """
    Feedback from the environments of a failed group: each episode's `get_feedback()` report, merged over the group as
    [`CheckerFeedbackProvider`] merges its checker's (deduplicated, counted, most frequent first, capped).

    Needs `environment_factory`; an environment without `get_feedback`, or returning `None` or `""`, adds no report,
    and a group without any report is unresolved.

    Args:
        max_reports (`int`, defaults to `3`): Distinct reports kept; the others are counted in a last line.
        max_chars (`int`, defaults to `300`): Characters kept of each report.
    """

    def __init__(self, max_reports: int = 3, max_chars: int = 300):
        if max_reports < 1 or max_chars < 1:
            raise ValueError(f"max_reports and max_chars must be >= 1, got {max_reports} and {max_chars}.")
        self.max_reports, self.max_chars = max_reports, max_chars

    def __repr__(self):
        return f"EnvironmentFeedbackProvider(max_reports={self.max_reports}, max_chars={self.max_chars})"

    async def __call__(self, prompt, completions, rewards, environments=None, **columns) -> str | None:
        reports = await asyncio.gather(*(environment_report(environment) for environment in environments))
        return aggregate_diagnostics(list(reports), self.max_reports, self.max_chars)


async def environment_report(environment) -> str | None:
    """The environment's `get_feedback()`, awaited when async; None when it has no such method."""
    get_feedback = getattr(environment, FEEDBACK_METHOD, None)
    if get_feedback is None:
        return None
    report = get_feedback()
    return await report if inspect.isawaitable(report) else report


def takes_environments(provider) -> bool:
    """Whether the provider names an `environments` parameter: it then gets the failed group's environments."""
    try:
        parameters = inspect.signature(provider).parameters
    except (TypeError, ValueError):  # builtins and some C callables have no signature
        return False
    return "environments" in parameters


def feedback_runner(trainer, provider):
    """What runs the provider's requests: the trainer's feedback loop, or, for a provider that reads the environments,
    TRL's event loop (`async_loop`), where TRL runs their async tools and `get_reward`; their loop-bound state (a
    client, a session, a pending result) works only there."""
    loop = getattr(trainer, "async_loop", None)  # TRL starts it when a tool or reward function is async
    if loop is None or not trainer.environments or not takes_environments(provider):
        return trainer._run_async
    return lambda coroutine: asyncio.run_coroutine_threadsafe(coroutine, loop).result()


def check_environment_provider(provider, environment_factory):
    if takes_environments(provider) and environment_factory is None:
        raise ValueError(
            f"The feedback provider {provider!r} asks the environments for feedback, but the trainer has no "
            "`environment_factory`. Pass environment_factory=..., or another feedback provider."
        )


def is_feedback_method(tool) -> bool:
    """An environment's `get_feedback`, bound to its instance (a standalone tool of that name is a tool)."""
    return getattr(tool, "__name__", None) == FEEDBACK_METHOD and hasattr(tool, "__self__")


def hide_feedback_methods(trainer):
    """TRL makes every public environment method a tool: take `get_feedback` out of the tool schemas it renders and of
    the tools this batch can call (built per batch in `_generate_and_score_completions`)."""
    if not trainer.tools:
        return
    trainer.tools = [tool for tool in trainer.tools if not is_feedback_method(tool)]
    if trainer.environment_factories is not None:
        trainer._env_tools = {
            name: [tool for tool in tools if not is_feedback_method(tool)]
            for name, tools in trainer._env_tools.items()
        }
    for tool_dict in getattr(trainer, "_sync_tool_dicts", []) + getattr(trainer, "_async_tool_dicts", []):
        for name in [name for name, tool in tool_dict.items() if is_feedback_method(tool)]:
            del tool_dict[name]
