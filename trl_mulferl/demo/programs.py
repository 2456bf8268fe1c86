"""Writing a program from input/output examples, with the interpreter's report as the feedback: the learning
benchmark's second task.

The policy sees three values of f(x, y) = a * x + b * y + c and writes f in the interpreter's language
(`trl_mulferl.demo.interpreter`), working its coefficients out first from the value at the origin::

    What is f? f(0,0)=4, f(1,0)=9, f(0,1)=6
    <thinking><feedback></feedback> 9-4=5, 6-4=2.</thinking> The final answer is \\boxed{x*5+y*2+4}

It is scored on hidden inputs (`HIDDEN_INPUTS`) by running the program, and the feedback on a failed attempt is what
the interpreter reports on them, never a hint: the first failing case, `f(2,0): got 13, expected 1`, or where the
program does not parse, `parse error at 7: unexpected 'y'` (`interpreter_report`). Nothing names the mistake: the
policy has to read it off the report.

The pupil the warm start imitates (`sample_mistakes`) makes the task's characteristic mistakes: a constant copied
from the wrong example, a difference off by one, products written without their `*` (a parse error), and one habit
per kind of function with a negative coefficient (`HABITS`, at `HABIT_RATE`): a negative x coefficient subtracted
the wrong way round (a wrong value), a negative y coefficient written `-2y` (a parse error). Without feedback such a
group fails whole. After feedback the pupil avoids what the report points at (`NAMED_BY_REPORT`), whichever attempts
it was written about; a share of its feedback examples (`OTHER_MISTAKE_REPORTS`) report another mistake than its
habit, which it then keeps. The report, not the question alone, decides the fix: another prompt's report points at
the other kind's habit. Every difference it works is of numbers below 19 with one digit to find, as the addition
task's column sums are: facts a tiny model learns.
"""

import random
import re
from dataclasses import dataclass

from ..core.rewards import completion_text
from ..core.schema import (
    PLAIN_FEEDBACK_HEADER,
    THINKING_CLOSE,
    append_to_prompt,
    extract_answer,
    feedback_prefill,
    sanitize_feedback,
    schema_compliant,
)
from ..feedback import aggregate_diagnostics
from ..igrpo.igrpo_config import DEFAULT_DRAFT_TEMPLATE
from ..igrpo.igrpo_trainer import append_draft
from .interpreter import failures
from .warm_start import FEEDBACK_GROUP_SIZES, FEEDBACK_SLIP_RATE, SFT_MIX, Example, Task


EXAMPLE_INPUTS = ((0, 0), (1, 0), (0, 1))
# The cases the program is scored on, in the order the interpreter reports the first failing one: (2,0) fails first
# when the constant or x's coefficient is wrong, (0,2) when only y's is.
HIDDEN_INPUTS = ((2, 0), (0, 2), (2, 3))

WRONG_CONSTANT = "wrong_constant"  # the constant copied from f(1,0) instead of f(0,0)
SLIP_X, SLIP_Y = "slip_x", "slip_y"  # a coefficient's difference off by one
MISSING_PRODUCT = "missing_product"  # `5x+2y` for `x*5+y*2`: the interpreter does not parse it
# The two habits, each of one kind of function: a negative x coefficient's values subtracted the wrong way round (the
# smaller from the larger, so that it comes out positive: a wrong value), and a negative y coefficient written before
# its `y` without the `*` (`-2y`: a parse error). The interpreter reports them differently, so that another prompt's
# report points at the other habit.
SWAPPED_X = "swapped_x"
BARE_Y = "bare_y"
HABITS = {"falling_x": SWAPPED_X, "falling_y": BARE_Y}
MISTAKES = (WRONG_CONSTANT, SLIP_X, SLIP_Y, MISSING_PRODUCT, SWAPPED_X, BARE_Y)
# What the pupil reads in a report line, by how it starts: the mistakes it then looks for (and avoids). A wrong value
# at (2,0) is the constant's or x's; at (0,2), with (2,0) right, y's.
NAMED_BY_REPORT = {
    "parse error": frozenset({MISSING_PRODUCT, BARE_Y}),
    "f(2,0):": frozenset({WRONG_CONSTANT, SLIP_X, SWAPPED_X}),
    "f(0,2):": frozenset({SLIP_Y}),
}

KINDS = ("rising", "falling_x", "falling_y")

# The pupil's slips without feedback, per kind: relative weights of at most one slip (None: no slip); on a negative
# coefficient the habit comes on top.
NOISE = {
    "rising": {None: 0.70, WRONG_CONSTANT: 0.12, SLIP_X: 0.04, SLIP_Y: 0.04, MISSING_PRODUCT: 0.10},
    "falling_x": {None: 0.75, WRONG_CONSTANT: 0.10, SLIP_X: 0.025, SLIP_Y: 0.025, MISSING_PRODUCT: 0.10},
    "falling_y": {None: 0.75, WRONG_CONSTANT: 0.10, SLIP_X: 0.025, SLIP_Y: 0.025, MISSING_PRODUCT: 0.10},
}
HABIT_RATE = 0.92
# The share of feedback examples written about attempts whose one mistake is elsewhere than the habit's (a slip of
# the other coefficient, a missing `*`), not the pupil's usual ones: the pupil fixes what the report points at and
# keeps its habit, so that the report, not the question alone, decides the fix.
OTHER_MISTAKE_REPORTS = 0.3
NO_PROGRAM = "no program: write it boxed after the reasoning"

_QUESTION = re.compile(r"What is f\? f\(0,0\)=(-?\d+), f\(1,0\)=(-?\d+), f\(0,1\)=(-?\d+)")


@dataclass(frozen=True)
class Function:
    """f(x, y) = a * x + b * y + c."""

    a: int
    b: int
    c: int

    def __call__(self, x: int, y: int) -> int:
        return self.a * x + self.b * y + self.c


def kind(function: Function) -> str:
    """`"rising"`, `"falling_x"` (a < 0) or `"falling_y"` (b < 0): they invite different mistakes."""
    return "falling_x" if function.a < 0 else "falling_y" if function.b < 0 else "rising"


def question(function: Function) -> str:
    return "What is f? " + ", ".join(f"f({x},{y})={function(x, y)}" for x, y in EXAMPLE_INPUTS)


def function_of(prompt) -> Function:
    """The function a prompt asks for: a plain prompt, a conversation, or the problem text a provider gets."""
    text = prompt if isinstance(prompt, str) else next(m["content"] for m in reversed(prompt) if m["role"] == "user")
    match = _QUESTION.search(text)
    if match is None:
        raise ValueError(f"Not a program question ('What is f? f(0,0)=.., f(1,0)=.., f(0,1)=..'): {text!r}")
    origin, along_x, along_y = map(int, match.groups())
    return Function(along_x - origin, along_y - origin, origin)


def hidden_cases(function: Function) -> list[tuple[tuple[int, int], int]]:
    return [((x, y), function(x, y)) for x, y in HIDDEN_INPUTS]


def program_text(a: int, b: int, c: int, missing_product: bool = False, bare_y: bool = False) -> str:
    """`x*5+y*2+4`, `x*-3+y*2+7`, `x*5+y*2`; `5x+2y+4` with `missing_product`, `x*5+-2y+4` with `bare_y`."""
    terms = [f"{a}x" if missing_product else f"x*{a}", f"{b}y" if missing_product or bare_y else f"y*{b}"]
    return "+".join(terms + ([str(c)] if c else []))


def working(function: Function, mistakes=(), rng: random.Random | None = None) -> tuple[str, str]:
    """The worked coefficients of `function` with `mistakes` (some of `MISTAKES`), and the program written from them.
    Every later step follows from the written numbers, as a pupil's working does."""
    rng = rng or random.Random(0)
    origin = function(0, 0)
    steps, coefficients = [], []
    for value, swapped, slip in ((function(1, 0), SWAPPED_X in mistakes, SLIP_X), (function(0, 1), False, SLIP_Y)):
        first, second = (origin, value) if swapped and value < origin else (value, origin)
        coefficient = first - second
        if slip in mistakes:
            coefficient += -1 if coefficient > 1 and rng.random() < 0.5 else 1
        steps.append(f"{first}-{second}={coefficient}")
        coefficients.append(coefficient)
    constant = function(1, 0) if WRONG_CONSTANT in mistakes else origin
    program = program_text(*coefficients, constant, MISSING_PRODUCT in mistakes, BARE_Y in mistakes)
    return ", ".join(steps) + ".", program


def continuation(text: str, program: str) -> str:
    """What follows the feedback block: the working, `</thinking>` and the boxed program."""
    return f"{text}{THINKING_CLOSE} The final answer is \\boxed{{{program}}}"


def response(function: Function, mistakes=(), feedback: str = "", rng: random.Random | None = None) -> str:
    """A whole response in the schema: the feedback block (empty at turn 0), the working, and the boxed program."""
    return f"{feedback_prefill(feedback)} {continuation(*working(function, mistakes, rng))}"


def possible_mistakes(function: Function) -> tuple[str, ...]:
    """The single mistakes that make the program wrong for `function`."""
    possible = [SLIP_X, SLIP_Y, MISSING_PRODUCT]
    if function(1, 0) != function(0, 0):
        possible.insert(0, WRONG_CONSTANT)
    return (*possible, *([HABITS[kind(function)]] if kind(function) in HABITS else []))


def sample_mistakes(function: Function, rng: random.Random, avoid=frozenset(), slip_rate_after_feedback: float = 0.05):
    """The pupil's mistakes on `function` (none: the program is right): a slip drawn from `NOISE`, and the habit of
    its kind (`HABITS`). After feedback that points at the mistakes `avoid`, none of those comes back and any other
    slip comes in at `slip_rate_after_feedback`; the habit stays unless it was among them."""
    possible = possible_mistakes(function)
    weights = NOISE[kind(function)]
    slips = [m for m in possible if m in weights and m not in avoid]
    if avoid:
        slip = rng.choice(slips) if slips and rng.random() < slip_rate_after_feedback else None
    else:
        choices = [None, *slips]
        slip = rng.choices(choices, weights=[weights[m] for m in choices])[0]
    mistakes = () if slip is None else (slip,)
    habit = HABITS.get(kind(function))
    if habit is not None and habit not in avoid and rng.random() < HABIT_RATE:
        mistakes += (habit,)
    return mistakes


def boxed_program(completion) -> str | None:
    """The program of a schema-compliant response, None for any other."""
    text = completion_text(completion)
    return extract_answer(text) if schema_compliant(text) else None


def interpreter_report(problem: str, completion, columns: dict | None = None) -> str | None:
    """The checker of `CheckerFeedbackProvider`: what the interpreter reports on the hidden cases for one response
    (its first failing case, or the parse error), or that there is no program; None when every case passes."""
    program = boxed_program(completion)
    if program is None:
        return NO_PROGRAM
    reports = failures(program, hidden_cases(function_of(problem)), max_failures=1)
    return reports[0] if reports else None


def passes(program: str | None, function: Function) -> bool:
    return program is not None and not failures(program, hidden_cases(function), max_failures=1)


def program_reward(prompts, completions, **kwargs) -> list[float]:
    """1.0 when a response is schema-compliant and its boxed program returns the right value on every hidden case."""
    return [
        float(passes(boxed_program(completion), function_of(prompt)))
        for prompt, completion in zip(prompts, completions, strict=True)
    ]


@dataclass(frozen=True)
class Splits:
    """Disjoint sets of functions."""

    train: list[Function]
    validation: list[Function]
    test: list[Function]


def functions_of_kind(function_kind: str) -> list[Function]:
    """Every function of a kind: coefficients of one digit, a constant of 0 to 9 (1 to 9 where a coefficient is
    negative, at most the constant in size, so that every example value is a number below 19)."""
    digits = range(1, 10)
    if function_kind == "rising":
        return [Function(a, b, c) for a in digits for b in digits for c in range(10)]
    negative = [(-n, c) for c in digits for n in range(1, c + 1)]
    if function_kind == "falling_x":
        return [Function(a, b, c) for a, c in negative for b in digits]
    return [Function(a, b, c) for b, c in negative for a in digits]


def make_splits(seed: int, validation: int = 150, test: int = 150) -> Splits:
    """Every function of each kind (`functions_of_kind`), shuffled by `seed`, with as many of each `kind` in the
    validation and test splits (the training split gets the rest)."""
    for name, size in (("validation", validation), ("test", test)):
        if size % len(KINDS):
            raise ValueError(f"`{name}` must be a multiple of {len(KINDS)} (as many of each kind), got {size}.")
    rng = random.Random(seed)
    splits = {"train": [], "validation": [], "test": []}
    for function_kind in KINDS:
        functions = functions_of_kind(function_kind)
        rng.shuffle(functions)
        per_kind = validation // len(KINDS), test // len(KINDS)
        splits["validation"] += functions[: per_kind[0]]
        splits["test"] += functions[per_kind[0] : sum(per_kind)]
        splits["train"] += functions[sum(per_kind) :]
    for functions in splits.values():
        rng.shuffle(functions)
    return Splits(**splits)


def prompt_messages(function: Function, own_plan: bool = False) -> list[dict[str, str]]:
    if own_plan:
        raise ValueError("The program task has no own-plan pupil (WarmStartConfig.own_plan is the addition task's).")
    return [{"role": "user", "content": question(function)}]


def failed_responses(
    function: Function, rng: random.Random, count: int, one_mistake: bool = False
) -> list[tuple[str, tuple[str, ...]]]:
    """`count` wrong turn-0 responses to `function`, drawn as the pupil makes them, or (`one_mistake`) each with one
    possible mistake whose report does not point at the habit's coefficient, uniformly; each with its mistakes."""
    possible = possible_mistakes(function)
    habits = {HABITS.get(kind(function))}
    elsewhere = [m for m in possible if not any(m in named and named & habits for named in NAMED_BY_REPORT.values())]
    responses = []
    while len(responses) < count:
        mistakes = (rng.choice(elsewhere),) if one_mistake else sample_mistakes(function, rng)
        text, program = working(function, mistakes, rng)
        if not passes(program, function):
            responses.append((f"{feedback_prefill('')} {continuation(text, program)}", mistakes))
    return responses


def interpreter_feedback(
    function: Function, responses: list[tuple[str, tuple[str, ...]]]
) -> tuple[str, frozenset[str]]:
    """What the task's provider answers about these failed responses, cleaned as the trainer cleans feedback before
    injecting it, and the mistakes its report lines point at (`mistakes_pointed_at`): those the pupil then avoids."""
    reports = [interpreter_report(question(function), text) for text, _ in responses]
    provider = PROGRAMS.checker_provider()
    feedback = sanitize_feedback(aggregate_diagnostics(reports, provider.max_reports, provider.max_chars))
    return feedback, mistakes_pointed_at(feedback)


def mistakes_pointed_at(feedback: str) -> frozenset[str]:
    """The mistakes a feedback text's report lines point at (`NAMED_BY_REPORT`), whatever attempts it was written
    about: the pupil reads the report, not the attempts."""
    lines = [line.split(". ", 1)[-1] for line in feedback.splitlines()]
    return frozenset().union(
        *(named for line in lines for opening, named in NAMED_BY_REPORT.items() if line.startswith(opening))
    )


def sft_example(function: Function, rng: random.Random, own_plan: bool = False) -> Example:
    """One supervised example for `function`, of a kind drawn from `SFT_MIX` (the addition pupil's mix): a turn-0
    answer, an answer after the interpreter's reports (prefilled, or appended to the question), or after a draft."""
    kind_of_example = rng.choices(list(SFT_MIX), weights=list(SFT_MIX.values()))[0]
    prompt = prompt_messages(function, own_plan)
    if kind_of_example == "turn_0":
        return Example(prompt, "", response(function, sample_mistakes(function, rng), rng=rng))
    if kind_of_example == "draft":
        draft_text, draft_program = working(function, sample_mistakes(function, rng), rng)
        mistakes = () if passes(draft_program, function) else sample_mistakes(function, rng)
        draft = f"{feedback_prefill('')} {continuation(draft_text, draft_program)}"
        return Example(append_draft(prompt, draft, DEFAULT_DRAFT_TEMPLATE), "", response(function, mistakes, rng=rng))
    one_mistake = rng.random() < OTHER_MISTAKE_REPORTS
    failed = failed_responses(function, rng, rng.choice(FEEDBACK_GROUP_SIZES), one_mistake)
    feedback, named = interpreter_feedback(function, failed)
    mistakes = sample_mistakes(function, rng, avoid=named, slip_rate_after_feedback=FEEDBACK_SLIP_RATE)
    if kind_of_example == "plain":
        prompt = append_to_prompt(prompt, PLAIN_FEEDBACK_HEADER + feedback)
        return Example(prompt, "", response(function, mistakes, rng=rng))
    return Example(prompt, feedback_prefill(feedback), " " + continuation(*working(function, mistakes, rng)))


def function_id(function: Function) -> str:
    return program_text(function.a, function.b, function.c)


def verify_program(answer: str | None, row: dict) -> bool:
    """The evaluation's verdict: the extracted program passes the row's function's hidden cases."""
    return passes(answer, function_of(row["prompt"]))


PROGRAMS = Task(
    name="programs",
    kinds=KINDS,
    make_splits=make_splits,
    kind=kind,
    prompt_messages=prompt_messages,
    solution=function_id,
    problem_id=function_id,
    sft_example=sft_example,
    check=interpreter_report,
    reward=program_reward,
    verify=verify_program,
    data={
        "noise": NOISE,
        "habit": HABIT_RATE,
        "other_mistake_reports": OTHER_MISTAKE_REPORTS,
        "feedback_slip_rate": FEEDBACK_SLIP_RATE,
        "mix": SFT_MIX,
        "hidden_inputs": HIDDEN_INPUTS,
    },
)
