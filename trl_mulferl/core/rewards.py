"""Verifiable rewards for MulFeRL: answer correctness gated by schema compliance (paper eq. 8)."""

import json
import re
import threading
from collections.abc import Callable

from math_verify import parse, verify

from .schema import BOXED, extract_answer, schema_compliant


_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z]{3,}")
MATH_VERIFY_TIMEOUT_S = 5


def math_verify_timeout() -> int | None:
    """The timeout to give math-verify's `parse` and `verify`: `MATH_VERIFY_TIMEOUT_S`, or `None` off the main thread.

    math-verify times out with `signal.alarm`, which only works in the main thread: elsewhere a timeout raises
    "signal only works in main thread", so there math-verify must run without one.
    """
    return MATH_VERIFY_TIMEOUT_S if threading.current_thread() is threading.main_thread() else None


def completion_text(completion: str | list[dict]) -> str:
    """The text the policy wrote in a completion as TRL passes it to rewards: a string, or a conversation's assistant
    messages (a tool episode's turns, tool results left out), in order, one per line."""
    if isinstance(completion, str):
        return completion
    return "\n".join(
        message["content"] for message in completion if message["role"] == "assistant" and message["content"]
    )


def response_text(completion: str | list[dict]) -> str:
    """A completion in full, as a feedback provider reads it (decision 8): a tool episode's turns with their tool calls
    and the tool results, in order, one per line, in the `<tool_call>`/`<tool_response>` form of Qwen's template."""
    if isinstance(completion, str):
        return completion
    parts = []
    for message in completion:
        if message["role"] == "tool":
            parts.append(f"<tool_response>\n{message['content']}\n</tool_response>")
            continue
        if message["content"]:
            parts.append(message["content"])
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            called = {"name": function.get("name"), "arguments": function.get("arguments")}
            parts.append(f"<tool_call>\n{json.dumps(called)}\n</tool_call>")
    return "\n".join(parts)


def schema_noncompliant_rows(completions: list[str] | list[list[dict]]) -> int:
    """How many completions break the schema, read as `accuracy_reward` reads them (`completion_text`)."""
    return sum(not schema_compliant(completion_text(completion)) for completion in completions)


def requires_schema(reward_func) -> bool:
    """Whether a reward function scores a response that breaks the schema 0 whatever its answer: it says so with a
    `requires_schema = True` attribute, as `accuracy_reward` does."""
    return getattr(reward_func, "requires_schema", False) is True


def as_latex_answer(solution: str) -> str:
    """Give a bare reference answer (`\\frac{1}{3}`, `27.0`) the `\\boxed{}` anchor math-verify extracts from."""
    if BOXED in solution or _UNESCAPED_DOLLAR.search(solution):
        return solution
    return f"{BOXED}{{{solution}}}"


def accuracy_reward(
    completions: list[str] | list[list[dict[str, str]]],
    solution: list[str],
    log_extra: Callable[[str, list], None] | None = None,
    **kwargs,
) -> list[float | None]:
    r"""1.0 when a response is schema-compliant and its boxed answer verifies against `solution`, else 0.0.

    A correct answer without the schema (`"... \boxed{7}."`) scores 0.0, where TRL's `accuracy_reward` gives it 1.0:
    the prompts must ask for the schema (`make_conversation` puts `SYSTEM_PROMPT` first). The trainers check a sample
    of them at start-up and warn when they do not (`requires_schema`).

    The answer is the `\boxed{...}` after `</thinking>`, checked for mathematical equivalence with math-verify.
    `solution` is the reference final answer, LaTeX or plain (`\frac{1}{3}`, `27.0`), or a text whose `\boxed{}`
    holds it. A solution math-verify cannot parse gives `None`, which makes the group UNSCORABLE.

    Unlike [`trl.rewards.accuracy_reward`], the prediction is parsed with math-verify's default normalisation, which
    accepts brace-less LaTeX such as `\frac43` or `11\sqrt2` (MATH-500 writes 8 of its answers that way).

    Args:
        completions: Completions as TRL passes them: strings, or conversations; a tool episode's final answer is
            scored (the schema runs over its assistant turns).
        solution: The reference answer of each completion's problem (a dataset column).
        log_extra: Provided by the trainer to add columns to the completions table.
        **kwargs: Other dataset columns and trainer callbacks, unused.

    Example:
    ```python
    >>> from trl_mulferl import accuracy_reward

    >>> good = "<thinking><feedback></feedback>2 + 2 = 4.</thinking> The final answer is \\boxed{4}"
    >>> accuracy_reward([good, "The final answer is \\boxed{4}"], ["4", "4"])
    [1.0, 0.0]
    ```
    """
    timeout = math_verify_timeout()
    rewards, compliant, answers = [], [], []
    for completion, reference in zip(completions, solution, strict=True):
        text = completion_text(completion)
        gold = parse(as_latex_answer(reference), parsing_timeout=timeout)
        compliant.append(schema_compliant(text))
        answers.append(extract_answer(text) if compliant[-1] else None)
        if not gold:
            rewards.append(None)
        elif answers[-1] is None:
            rewards.append(0.0)
        else:
            prediction = parse(f"{BOXED}{{{answers[-1]}}}", parsing_timeout=timeout)
            rewards.append(float(verify(gold, prediction, timeout_seconds=timeout)))

    if log_extra is not None:
        log_extra("schema_compliant", compliant)
        log_extra("answer", answers)
    return rewards


# Read by the trainers' start-up check (`trl_mulferl.core.validation.check_prompts_ask_for_schema`) and their run-time
# warning: the prompts must ask for what this reward requires, or every group fails and goes to the feedback model.
accuracy_reward.requires_schema = True


def looks_like_worked_solution(solution: str) -> bool:
    """Whether a reference answer looks like a worked solution rather than a final answer: several lines, a
    GSM8K `####` marker, a `\\boxed{}`, or a run of words outside LaTeX commands."""
    if "\n" in solution.strip() or "####" in solution or "\\boxed" in solution:
        return True
    return len(_WORD.findall(_LATEX_COMMAND.sub(" ", solution))) > 8
