"""Feedback without a model: precomputed in the dataset, or a checker's diagnostics.

- [`ColumnFeedbackProvider`]: feedback or hints precomputed in a dataset column (SDPO's `privileged_context`).
- [`CheckerFeedbackProvider`]: a checker's diagnostics of each failed attempt (a unit-test failure, a CAS result, a
  compiler error), aggregated over the group.
"""

import asyncio
import importlib
import os
import re
import sys
from collections import Counter
from collections.abc import Callable

from trl.trainer.utils import is_async_callable

from .protocol import PROVIDER_KEYWORDS


_WHITESPACE = re.compile(r"\s+")


class ColumnFeedbackProvider:
    """
    Feedback precomputed in a dataset column: written hints, reference critiques, or TRL SDPO's
    `privileged_context`.

    The column of the failed prompt's row is the feedback: a string for every turn, or a list of strings, one per
    turn (turn t gets element t - 1, so the first regeneration gets the first hint; a group that reaches a turn past
    the end of the list is unresolved). `None` or `""` leaves the group unresolved. The trainer's answer-leak guard
    still redacts the reference answer from it.

    Args:
        column (`str`, defaults to `"privileged_context"`): The dataset column holding the feedback.
    """

    def __init__(self, column: str = "privileged_context"):
        self.column = column
        self.required_columns = (column,)  # checked against the training dataset at start-up

    @classmethod
    def from_arguments(cls, args) -> "ColumnFeedbackProvider":
        """`feedback_provider="column"`: the provider of `feedback_column`."""
        return cls(args.feedback_column)

    def __repr__(self):
        return f"ColumnFeedbackProvider(column={self.column!r})"

    def __call__(self, prompt: str, completions: list[str], rewards: list[float], feedback_turn: int = 1, **columns):
        value = columns[self.column]
        if isinstance(value, list):
            return value[feedback_turn - 1] if feedback_turn <= len(value) else None
        if value is None or isinstance(value, str):
            return value
        raise TypeError(
            f"The feedback column {self.column!r} holds a {type(value).__name__}; it must hold a string, or a list of "
            "strings with one hint per feedback turn."
        )


class CheckerFeedbackProvider:
    """
    Feedback from a checker that diagnoses each failed attempt: a unit-test failure, a CAS result, a compiler error.

    `check(problem, completion, columns) -> str | None`, sync or async, is called on every rollout of the failed
    group (`columns` are the row's dataset columns). Its diagnostics are deduplicated (whitespace-insensitive),
    counted, ordered by frequency (first seen first on ties), each cut at `max_chars` characters, and the
    `max_reports` most frequent become one feedback text::

        The checker's reports on the 4 failed attempts, most frequent first:
        1. add(2, 2) returned 5 (3 attempts)
        2. SyntaxError: invalid syntax (1 attempt)

    A checker that returns `None` or `""` for every attempt leaves the group unresolved.

    Args:
        check (`Callable`): The checker, `(problem, completion, columns) -> str | None`, sync or async.
        max_reports (`int`, defaults to `3`): Distinct diagnostics kept; the others are counted in a last line.
        max_chars (`int`, defaults to `300`): Characters kept of each diagnostic.
    """

    def __init__(self, check: Callable, max_reports: int = 3, max_chars: int = 300):
        if not callable(check):
            raise TypeError(f"CheckerFeedbackProvider needs a callable check, got {type(check).__name__}.")
        if max_reports < 1 or max_chars < 1:
            raise ValueError(f"max_reports and max_chars must be >= 1, got {max_reports} and {max_chars}.")
        self.check, self.max_reports, self.max_chars = check, max_reports, max_chars

    @classmethod
    def from_arguments(cls, args) -> "CheckerFeedbackProvider":
        """`feedback_provider="checker"`: the provider around the function `feedback_checker`."""
        return cls(
            load_checker(args.feedback_checker),
            max_reports=args.feedback_checker_max_reports,
            max_chars=args.feedback_checker_max_chars,
        )

    @staticmethod
    def check_arguments(args):
        if not args.feedback_checker:
            raise ValueError(
                "feedback_provider='checker' needs feedback_checker, the import path of a function "
                "check(problem, completion, columns) -> str, e.g. feedback_checker='my_checks.unit_tests'."
            )

    def __repr__(self):
        return f"CheckerFeedbackProvider(check={getattr(self.check, '__name__', self.check)!r})"

    async def __call__(self, prompt: str, completions: list[str], rewards: list[float], **columns) -> str | None:
        for keyword in PROVIDER_KEYWORDS:  # `columns` given to the check are the row's dataset columns only
            columns.pop(keyword, None)
        if is_async_callable(self.check):
            diagnostics = await asyncio.gather(*(self.check(prompt, c, columns) for c in completions))
        else:
            diagnostics = await asyncio.gather(
                *(asyncio.to_thread(self.check, prompt, c, columns) for c in completions)
            )
        return aggregate_diagnostics(diagnostics, self.max_reports, self.max_chars)


def aggregate_diagnostics(diagnostics: list[str | None], max_reports: int, max_chars: int) -> str | None:
    """One feedback text from per-attempt diagnostics: deduplicated, counted, most frequent first, capped."""
    counts = Counter(
        _WHITESPACE.sub(" ", diagnostic).strip() for diagnostic in diagnostics if diagnostic and diagnostic.strip()
    )
    if not counts:
        return None
    lines = [f"The checker's reports on the {len(diagnostics)} failed attempts, most frequent first:"]
    for number, (diagnostic, count) in enumerate(counts.most_common(max_reports), 1):
        text = diagnostic if len(diagnostic) <= max_chars else diagnostic[: max_chars - 3] + "..."
        lines.append(f"{number}. {text} ({count} attempt{'s' if count > 1 else ''})")
    if len(counts) > max_reports:
        omitted = len(counts) - max_reports
        lines.append(f"({omitted} more distinct report{'s' if omitted > 1 else ''} omitted)")
    return "\n".join(lines)


def load_checker(path: str) -> Callable:
    """The function at the import path `package.module.function` (looked up from the working directory too, as
    TRL's scripts load reward functions)."""
    module_name, _, name = path.rpartition(".")
    if not module_name:
        raise ValueError(f"feedback_checker must be an import path such as 'my_checks.unit_tests', got {path!r}.")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        check = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as error:
        raise ValueError(
            f"feedback_checker {path!r} cannot be loaded ({type(error).__name__}: {error}). Give the import path of "
            "a function check(problem, completion, columns) -> str, importable from the working directory."
        ) from None
    return check
