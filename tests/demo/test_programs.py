"""The program task (`trl_mulferl.demo.programs`): its problems, the pupil's mistakes, the interpreter's reports as
feedback, the reward and the warm start's examples."""

import asyncio
import random
from collections import Counter

import pytest

from trl_mulferl.core.schema import feedback_prefill
from trl_mulferl.demo.interpreter import run
from trl_mulferl.demo.programs import (
    BARE_Y,
    KINDS,
    MISSING_PRODUCT,
    NO_PROGRAM,
    PROGRAMS,
    SLIP_X,
    SLIP_Y,
    SWAPPED_X,
    WRONG_CONSTANT,
    Function,
    function_of,
    functions_of_kind,
    interpreter_feedback,
    interpreter_report,
    kind,
    make_splits,
    mistakes_pointed_at,
    possible_mistakes,
    program_reward,
    question,
    response,
    sample_mistakes,
    sft_example,
    working,
)
from trl_mulferl.feedback.prepare import prepare_feedback


def test_the_question_determines_the_function():
    for function_kind in KINDS:
        for function in functions_of_kind(function_kind):
            assert kind(function) == function_kind
            assert function_of(question(function)) == function
            # every value the pupil subtracts is below 19 and not negative: one-digit facts, as addition's columns
            assert all(0 <= function(x, y) <= 18 for x, y in ((0, 0), (1, 0), (0, 1)))
    assert question(Function(-3, 2, 7)) == "What is f? f(0,0)=7, f(1,0)=4, f(0,1)=9"
    with pytest.raises(ValueError, match="Not a program question"):
        function_of("What is 2 + 3?")


def test_splits_are_disjoint_and_balanced():
    splits = make_splits(0)
    assert (len(splits.validation), len(splits.test)) == (150, 150)
    assert sum(len(functions_of_kind(k)) for k in KINDS) == len(splits.train) + 300
    assert not set(splits.train) & set(splits.test) and not set(splits.validation) & set(splits.test)
    for held_out in (splits.validation, splits.test):
        assert Counter(map(kind, held_out)) == dict.fromkeys(KINDS, 50)
    assert make_splits(0) == splits and make_splits(1).test != splits.test
    with pytest.raises(ValueError, match="`test` must be a multiple of 3"):
        make_splits(0, test=100)


def test_the_working_and_each_mistake():
    function = Function(-3, 2, 7)  # f(0,0)=7, f(1,0)=4, f(0,1)=9
    assert working(function) == ("4-7=-3, 9-7=2.", "x*-3+y*2+7")
    assert working(function, (SWAPPED_X,)) == ("7-4=3, 9-7=2.", "x*3+y*2+7")
    assert working(Function(2, -3, 5), (BARE_Y,)) == ("7-5=2, 2-5=-3.", "x*2+-3y+5")
    assert working(function, (WRONG_CONSTANT,)) == ("4-7=-3, 9-7=2.", "x*-3+y*2+4")
    assert working(function, (MISSING_PRODUCT,))[1] == "-3x+2y+7"
    assert working(function, (SLIP_Y,), random.Random(0))[0] in ("4-7=-3, 9-7=1.", "4-7=-3, 9-7=3.")
    assert possible_mistakes(function) == (WRONG_CONSTANT, SLIP_X, SLIP_Y, MISSING_PRODUCT, SWAPPED_X)
    assert possible_mistakes(Function(2, -3, 5)) == (WRONG_CONSTANT, SLIP_X, SLIP_Y, MISSING_PRODUCT, BARE_Y)
    assert possible_mistakes(Function(2, 3, 5)) == (WRONG_CONSTANT, SLIP_X, SLIP_Y, MISSING_PRODUCT)
    for function_kind in KINDS:
        for function in functions_of_kind(function_kind)[::7]:
            assert run(working(function)[1], 2, 3) == function(2, 3)
            for mistake in possible_mistakes(function):
                assert program_reward([question(function)], [response(function, (mistake,))]) == [0.0]
            assert program_reward([question(function)], [response(function)]) == [1.0]


def test_the_interpreter_reports_the_first_failing_hidden_case():
    """The hidden inputs are (2,0), (0,2), (2,3): x's coefficient or the constant fail at (2,0) first, y's at (0,2);
    each kind's habit is reported differently: a wrong value, a parse error."""
    function = Function(-3, 2, 7)  # f(2,0) = 1, f(0,2) = 11, f(2,3) = 7
    problem = question(function)
    assert interpreter_report(problem, response(function)) is None
    assert interpreter_report(problem, response(function, (SWAPPED_X,))) == "f(2,0): got 13, expected 1"
    assert interpreter_report(problem, response(function, (WRONG_CONSTANT,))) == "f(2,0): got -2, expected 1"
    slipped = response(function, (SLIP_Y,), rng=random.Random(0))
    assert interpreter_report(problem, slipped) in ("f(0,2): got 9, expected 11", "f(0,2): got 13, expected 11")
    falling_y = Function(2, -3, 5)
    bare = response(falling_y, (BARE_Y,))
    assert interpreter_report(question(falling_y), bare) == "parse error at 6: unexpected 'y'"
    assert interpreter_report(problem, response(function, (MISSING_PRODUCT,))) == "parse error at 2: unexpected 'x'"
    assert interpreter_report(problem, "x*-3+y*2+7") == NO_PROGRAM  # not in the schema: no program to run
    almost = response(function).replace("x*-3+y*2+7", "x*-3+y*2+7+min(x*y, 1)")  # right where x or y is 0
    assert interpreter_report(problem, almost) == "f(2,3): got 8, expected 7"
    escape = response(function).replace("x*-3+y*2+7", "x.__class__")
    assert interpreter_report(problem, escape) == "parse error at 1: unexpected '.'"


def test_the_provider_merges_a_groups_reports_and_the_guard_keeps_them():
    function = Function(-3, 2, 7)
    completions = [response(function, m) for m in [(SWAPPED_X,)] * 3 + [(MISSING_PRODUCT, SWAPPED_X)]]
    feedback = asyncio.run(PROGRAMS.checker_provider()(question(function), completions, [0.0] * 4))
    assert feedback == (
        "The checker's reports on the 4 failed attempts, most frequent first:\n"
        "1. f(2,0): got 13, expected 1 (3 attempts)\n"
        "2. parse error at 1: unexpected 'x' (1 attempt)"  # `3x+2y+7`: swapped, then written without its `*`
    )
    # the reports state no program: the answer-leak guard leaves them as they are
    prepared = prepare_feedback(feedback, PROGRAMS.solution(function), None, 1024, problem=question(function))
    assert prepared.text == feedback
    assert mistakes_pointed_at(feedback) == {WRONG_CONSTANT, SLIP_X, SWAPPED_X, MISSING_PRODUCT, BARE_Y}


def test_the_pupil_fixes_what_the_report_points_at():
    """Feedback names no mistake; the pupil reads what the report points at: a wrong value at (2,0) points at x's
    coefficient (and the constant), which breaks the habit on a negative x; one at (0,2) points at y's, and leaves
    it."""
    rng = random.Random(0)
    function = Function(-3, 2, 7)
    turn_0 = [sample_mistakes(function, rng) for _ in range(2000)]
    assert 0.89 < sum(SWAPPED_X in m for m in turn_0) / 2000 < 0.95  # the habit, HABIT_RATE = 0.92
    feedback, named = interpreter_feedback(function, [(response(function, (SWAPPED_X,)), (SWAPPED_X,))] * 2)
    assert named == {WRONG_CONSTANT, SLIP_X, SWAPPED_X} and "f(2,0): got 13, expected 1" in feedback
    after = [sample_mistakes(function, rng, avoid=named) for _ in range(2000)]
    assert not any(SWAPPED_X in m for m in after) and sum(bool(m) for m in after) / 2000 < 0.1
    slipped = response(function, (SLIP_Y,), rng=random.Random(0))
    feedback, named = interpreter_feedback(function, [(slipped, (SLIP_Y,))])
    assert named == {SLIP_Y} and feedback.count("f(0,2): got") == 1
    after = [sample_mistakes(function, rng, avoid=named) for _ in range(2000)]
    assert 0.89 < sum(SWAPPED_X in m for m in after) / 2000 < 0.95


def test_warm_start_examples_are_right_after_feedback():
    """The supervised examples after feedback are mostly right (a report about another mistake than the habit's
    leaves it, `OTHER_MISTAKE_REPORTS`), and their feedback is prefilled exactly as the trainer injects it; the
    turn-0 examples of a negative coefficient are rarely right."""
    rng = random.Random(0)
    functions = [f for f in make_splits(0).train if kind(f) != "rising"][:300]
    right = {"turn_0": [], "structured": []}
    for function in functions:
        example = sft_example(function, rng)
        completion = example.prefill + example.target
        if example.prefill:
            assert example.prefill.startswith(feedback_prefill("")[: -len("</feedback>")])
            right["structured"].append(program_reward([question(function)], [completion])[0])
        elif example.prompt == PROGRAMS.prompt_messages(function, False):
            right["turn_0"].append(program_reward([question(function)], [completion])[0])
    assert sum(right["structured"]) / len(right["structured"]) > 0.6
    assert sum(right["turn_0"]) / len(right["turn_0"]) < 0.25


def test_the_task_evaluates_by_running_the_program():
    function = Function(4, 1, 3)
    (row,) = PROGRAMS.evaluation_rows([function])
    assert row["benchmark"] == "programs" and row["problem_id"] == row["solution"] == "x*4+y*1+3"
    assert PROGRAMS.verify("y+x*4+3", row) and PROGRAMS.verify("x*4+y+3", row)
    assert not PROGRAMS.verify("4x+y+3", row) and not PROGRAMS.verify(None, row)
    with pytest.raises(ValueError, match="no own-plan pupil"):
        PROGRAMS.prompt_messages(function, True)
