r"""Is a response's final answer right? One verifier per answer type, each also usable as a TRL reward function.

The answer is the `\boxed{...}` after `</thinking>` of a schema-compliant response (the schema check, as in
training), or, with `require_schema=False`, the last `\boxed{...}` anywhere in the response (for models not trained
with MulFeRL). Answer types:

- `math`: math-verify equivalence, as `trl_mulferl.core.rewards.accuracy_reward` checks it.
- `choice`: an option letter (MMLU-Pro, GPQA-Diamond): `B`, `(B)`, `B.`, `\text{B}`, `B. 42 m/s`, any case.
- TheoremQA's `number`, `list`, `bool` and `option`, with TheoremQA's own rules: an integer reference needs the
  rounded prediction to equal it, a decimal reference accepts 4% relative error, lists are compared element-wise
  after sorting, `True`/`False` (or yes/no), and option labels `(a)`-`(d)`.

A verdict is `True`, `False`, or `None` when the REFERENCE cannot be read (the row is unscorable).
"""

import math
import re
import threading
from collections.abc import Callable
from typing import Any

from math_verify import parse, verify


_TEXT_COMMAND = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textit|operatorname)\s*\{([^{}]*)\}")
_UNIT_COMMAND = re.compile(r"\\(?:text|mathrm|mbox)\s*\{[^{}]*\}")
_LETTER = re.compile(r"^\(?([A-Za-z])\)?(?=$|[\s.:,)\]])")
_INTEGER = re.compile(r"^[+-]?\d+$")
_DIGIT_GROUPING = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
TRUE_WORDS, FALSE_WORDS = {"true", "yes"}, {"false", "no"}
THEOREMQA_RELATIVE_TOLERANCE = 0.04


def _timeout() -> int | None:
    # math-verify's timeouts use signal.alarm, which only works in the main thread.
    return 5 if threading.current_thread() is threading.main_thread() else None


def response_answer(text: str, require_schema: bool = True) -> str | None:
    """The final answer of a response: the boxed answer of a schema-compliant response (`require_schema`), else
    the content of its last `\\boxed{...}`; None when there is none."""
    from ..core.schema import boxed_spans, extract_answer, schema_compliant  # schema imports TRL: keep imports light

    if require_schema:
        return extract_answer(text) if schema_compliant(text) else None
    spans = boxed_spans(text)
    return spans[-1][2] if spans else None


def _plain(text: str) -> str:
    """`\\text{B}` -> `B`, and no `$` or surrounding spaces."""
    previous = None
    while text != previous:
        previous, text = text, _TEXT_COMMAND.sub(r"\1", text)
    return text.replace("$", "").strip()


def choice_letter(text: str) -> str | None:
    """The option letter an answer names (`B`, `(b)`, `B. 42 m/s`, `\\text{B}`), upper-cased, or None."""
    match = _LETTER.match(_plain(text))
    return match.group(1).upper() if match else None


def to_number(text: str) -> float | int | None:
    """A number from an answer: `1,024`, `12\\%`, `5 \\text{ m}`, `\\frac{1}{3}`, `2\\sqrt{2}`, `3.2 \\times 10^{-3}`.
    An integer literal stays an `int` (TheoremQA compares those after rounding)."""
    text = _UNIT_COMMAND.sub("", text).replace("\\%", "").replace("%", "").replace("$", "")
    text = _DIGIT_GROUPING.sub("", text.replace("\\,", "").replace("\\!", "").replace("~", "")).strip()
    text = re.sub(r"\^\s*\{?\\circ\}?", "", text).strip()
    if _INTEGER.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        pass
    parsed = parse(f"\\boxed{{{text}}}", parsing_timeout=_timeout()) if text else []
    if not parsed:
        return None
    try:
        value = complex(parsed[0].evalf())
    except (TypeError, ValueError, AttributeError):
        return None
    return value.real if value.imag == 0 and math.isfinite(value.real) else None


def to_numbers(text: str) -> list[float | int] | None:
    """A list of numbers from `[1, 2, 3]`, `(1, 2)`, `\\left[1, 2\\right]` or `1, 2`; None if any item is not one."""
    text = text.replace("\\left", "").replace("\\right", "").strip()
    if text[:1] in "[(" and text[-1:] in "])":
        text = text[1:-1]
    items = [to_number(item) for item in text.split(",")] if text.strip() else []
    return items if items and all(item is not None for item in items) else None


def _number_matches(prediction: float | int, reference: float | int) -> bool:
    if isinstance(reference, int):
        return round(prediction) == reference
    return abs(prediction - reference) <= THEOREMQA_RELATIVE_TOLERANCE * abs(reference)


def _truth(text: str) -> bool | None:
    word = _plain(text).strip(" .").lower()
    return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None


def _math_reference(solution: str):
    from ..core.rewards import as_latex_answer  # imports TRL through schema: keep imports light

    return parse(as_latex_answer(solution), parsing_timeout=_timeout()) or None


def _math_check(answer: str, reference) -> bool:
    timeout = _timeout()
    return bool(verify(reference, parse(f"\\boxed{{{answer}}}", parsing_timeout=timeout), timeout_seconds=timeout))


def _choice_reference(solution: str) -> str | None:
    solution = solution.strip()
    return solution.upper() if len(solution) == 1 and solution.isalpha() else None


def _option_reference(solution: str) -> str | None:
    match = re.fullmatch(r"\(?([A-Za-z])\)?", solution.strip())
    return match.group(1).upper() if match else None


def _list_check(answer: str, reference: list) -> bool:
    prediction = to_numbers(answer)
    if prediction is None or len(prediction) != len(reference):
        return False
    return all(_number_matches(p, r) for p, r in zip(sorted(prediction), sorted(reference), strict=True))


def _number_check(answer: str, reference) -> bool:
    prediction = to_number(answer)
    return prediction is not None and _number_matches(prediction, reference)


# answer type -> (read the reference, or None when it cannot be read; check an answer against what was read)
VERIFIERS: dict[str, tuple[Callable[[str], Any], Callable[[str, Any], bool]]] = {
    "math": (_math_reference, _math_check),
    "choice": (_choice_reference, lambda answer, reference: choice_letter(answer) == reference),
    "option": (_option_reference, lambda answer, reference: choice_letter(answer) == reference),
    "number": (to_number, _number_check),
    "list": (to_numbers, _list_check),
    "bool": (_truth, lambda answer, reference: _truth(answer) is reference),
}


def verify_answer(answer: str | None, solution: str, answer_type: str = "math") -> bool | None:
    """Whether `answer` (an extracted final answer, None for none) matches the reference `solution`; None when the
    reference itself cannot be read as an `answer_type`."""
    if answer_type not in VERIFIERS:
        raise ValueError(f"Unknown answer_type {answer_type!r}; known: {', '.join(VERIFIERS)}.")
    read_reference, check = VERIFIERS[answer_type]
    reference = read_reference(solution)
    if reference is None:
        return None
    return answer is not None and check(answer, reference)


def make_reward(answer_type: str | None = None, require_schema: bool = True) -> Callable[..., list[float | None]]:
    """A TRL reward function `(completions, solution, **kwargs) -> list[float | None]` for one answer type, or, with
    `answer_type=None`, for the type in each row's `answer_type` column (`math` when the dataset has none).

    It gives 1.0 for a right answer, 0.0 for a wrong or missing one (or a broken schema with `require_schema`), and
    None for a reference it cannot read.
    """

    def reward(completions, solution, **kwargs) -> list[float | None]:
        types = kwargs.get("answer_type") if answer_type is None else None
        rewards = []
        for index, (completion, reference) in enumerate(zip(completions, solution, strict=True)):
            text = completion if isinstance(completion, str) else completion[0]["content"]
            row_type = answer_type or (types[index] if types is not None else "math")
            verdict = verify_answer(response_answer(text, require_schema), str(reference), row_type)
            rewards.append(None if verdict is None else float(verdict))
        return rewards

    schema = "" if require_schema else "_no_schema"
    reward.__name__ = f"{answer_type or 'answer'}_reward{schema}"
    return reward


# `answer_reward` reads each row's `answer_type`, so it scores any mix of benchmarks, TheoremQA's types included.
answer_reward = make_reward()
math_reward = make_reward("math")
choice_reward = make_reward("choice")
