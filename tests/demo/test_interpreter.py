import builtins
import inspect
import pickle
import time

import pytest

from trl_mulferl.demo import interpreter
from trl_mulferl.demo.interpreter import (
    MAX_DEPTH,
    MAX_MAGNITUDE,
    MAX_SOURCE_CHARS,
    MAX_STEPS,
    ParseError,
    ProgramError,
    RunError,
    failures,
    parse,
    run,
)


@pytest.mark.parametrize(
    ("source", "x", "expected"),
    [
        ("x*3+2", 4, 14),
        ("2+x*3", 4, 14),
        ("x - 1 - 1", 4, 2),  # left to right
        ("-x*2", 4, -8),
        ("--x", 4, 4),
        ("-(x+1)", 4, -5),
        ("(x+1)*(x-1)", 4, 15),
        ("7/2", 0, 3),
        ("-7/2", 0, -4),  # floor division
        ("7/-2", 0, -4),
        ("-7%3", 0, 2),  # Python's modulo
        ("7%-3", 0, -2),
        ("x*6/4%5", 3, 4),  # same precedence, left to right: (18 // 4) % 5
        ("min(x, 3)", 4, 3),
        ("max(x, 3)", 4, 4),
        ("abs(3 - x * 2)", 4, 5),
        ("max(min(x, 10), -10)", -40, -10),
        ("total(1, x, i*i)", 3, 14),
        ("total(1, 3, total(1, i, i))", 0, 10),  # the inner i counts to the outer one: 1 + 3 + 6
        ("total(1, 2, total(10, 11, i) + i)", 0, 21 + 1 + 21 + 2),  # the inner i shadows the outer one
        ("total(5, 1, i)", 0, 0),
        ("total(x, x, i)", 7, 7),
        ("  x\t*\n3 + 2 ", 4, 14),
        ("1000000", 0, MAX_MAGNITUDE),
        ("007", 0, 7),
    ],
)
def test_values(source, x, expected):
    assert run(source, x) == expected
    assert run(parse(source), x) == expected


@pytest.mark.parametrize(
    ("source", "position", "message"),
    [
        ("3x+2", 1, "unexpected 'x'"),
        ("x+", 2, "unexpected end"),
        ("", 0, "unexpected end"),
        ("   ", 3, "unexpected end"),
        ("(x+1", 4, "unexpected end"),
        ("x)", 1, "unexpected ')'"),
        ("x x", 2, "unexpected 'x'"),
        ("x.__class__", 1, "unexpected '.'"),
        ("import os", 0, "unknown name 'import'"),
        ("__import__('os')", 0, "unknown name '__import__'"),
        ("x + __import__('os')", 4, "unknown name '__import__'"),
        ('"x"', 0, "unexpected '\"'"),
        ("'x'", 0, 'unexpected "\'"'),
        ("x; 1", 1, "unexpected ';'"),
        ("x = 1", 2, "unexpected '='"),
        ("[x]", 0, "unexpected '['"),
        ("{x}", 0, "unexpected '{'"),
        ("lambda: 1", 0, "unknown name 'lambda'"),
        ("if x", 0, "unknown name 'if'"),
        ("foo(x)", 0, "unknown name 'foo'"),
        ("x1", 0, "unknown name 'x1'"),
        ("X", 0, "unknown name 'X'"),
        ("x**2", 2, "unexpected '*'"),
        ("x//2", 2, "unexpected '/'"),
        ("x(2)", 1, "unexpected '('"),
        ("x + ٣", 4, "unexpected '٣'"),  # only ASCII digits are numbers
        ("1.5", 1, "unexpected '.'"),
        ("i+1", 0, "'i' outside total(...)"),
        ("total(i, 3, 1)", 6, "'i' outside total(...)"),  # the bounds are outside the body
        ("total(1, 3, 1) + i", 17, "'i' outside total(...)"),
        ("min(x)", 5, "min(...) takes 2 arguments"),
        ("abs(x, 1)", 5, "abs(...) takes 1 argument"),
        ("total(1, x)", 10, "total(...) takes 3 arguments"),
        ("min x", 4, "unexpected 'x'"),
        ("min()", 4, "unexpected ')'"),
        ("999999999999999999999999", 0, "number too large: more than 6 digits"),
        ("x + 1000001", 4, "number too large: more than 6 digits"),
    ],
)
def test_parse_errors(source, position, message):
    with pytest.raises(ParseError) as raised:
        parse(source)
    assert (raised.value.position, raised.value.message) == (position, message)
    assert str(raised.value) == f"parse error at {position}: {message}"
    with pytest.raises(ParseError):
        run(source, 1)


def test_the_first_problem_is_reported():
    # characters outside the language are reported where the parser reaches them, after earlier problems
    assert parse_error("3x.y") == "parse error at 1: unexpected 'x'"
    assert parse_error("x + foo.bar") == "parse error at 4: unknown name 'foo'"


def parse_error(source: str) -> str:
    with pytest.raises(ParseError) as raised:
        parse(source)
    return str(raised.value)


def test_length_and_depth_limits():
    longest = "x" + "+1" * ((MAX_SOURCE_CHARS - 1) // 2)
    assert len(longest) <= MAX_SOURCE_CHARS and run(longest, 0) == (MAX_SOURCE_CHARS - 1) // 2
    assert parse_error(longest + " +1") == (
        f"parse error at {MAX_SOURCE_CHARS}: program longer than {MAX_SOURCE_CHARS} characters"
    )
    assert run("(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH, 5) == 5
    assert run("-" * MAX_DEPTH + "x", 5) == 5
    # refused by the depth limit at the first level too many, not by Python's recursion limit
    assert parse_error("(" * 40 + "x" + ")" * 40) == f"parse error at {MAX_DEPTH}: nesting deeper than {MAX_DEPTH}"
    assert parse_error("-" * 40 + "x") == f"parse error at {MAX_DEPTH}: nesting deeper than {MAX_DEPTH}"
    assert parse_error("abs(" * 35 + "x" + ")" * 35) == (
        f"parse error at {4 * MAX_DEPTH}: nesting deeper than {MAX_DEPTH}"
    )
    # a long run of operators is wide, not deep
    assert run("x" + "*1" * 99, 3) == 3


def test_step_limit_stops_huge_loops_fast():
    for source in ("total(1, 1000000, total(1, 1000000, 0))", "total(-1000000, 1000000, 1)"):
        start = time.perf_counter()
        with pytest.raises(RunError) as raised:
            run(source, 0)
        assert time.perf_counter() - start < 0.5
        assert raised.value.message == str(raised.value) == f"step limit: more than {MAX_STEPS} steps"
    # the sum of i reaches the magnitude limit (at i = 1414) before the step limit: still fast
    start = time.perf_counter()
    with pytest.raises(RunError, match="^number too large: more than 6 digits$"):
        run("total(1, 1000000, total(1, 1000000, i))", 0)
    assert time.perf_counter() - start < 0.5


def test_steps_count_every_node_and_iteration():
    assert run("total(1, 10, 1)", 0, max_steps=13) == 10  # the total, its bounds, 10 bodies
    with pytest.raises(RunError, match="^step limit: more than 12 steps$"):
        run("total(1, 10, 1)", 0, max_steps=12)
    with pytest.raises(RunError, match="^step limit: more than 2 steps$"):
        run("x+x", 1, max_steps=2)


def test_numbers_stay_small():
    with pytest.raises(RunError, match="^number too large: more than 6 digits$"):
        run("x*x*x*x*x*x*x*x", 100)
    assert run("x*x*x", 100) == 10**6
    with pytest.raises(RunError, match="^number too large: more than 6 digits$"):
        run("x*x*x + 1", 100)
    with pytest.raises(RunError, match="^number too large: more than 6 digits$"):
        run("-x*x*x - 1", 100)
    with pytest.raises(RunError, match="^number too large: more than 6 digits$"):
        run("total(1, 2000, 1000)", 0)
    with pytest.raises(ValueError, match="input x"):
        run("0", MAX_MAGNITUDE + 1)


@pytest.mark.parametrize("source", ["x/0", "1/(x-x)", "x%0", "7 % (x*0)", "total(0, 3, 10/i)"])
def test_division_by_zero(source):
    with pytest.raises(RunError) as raised:
        run(source, 5)
    assert str(raised.value) == raised.value.message == "division by zero"


def test_errors_are_program_errors_and_pickle():
    assert issubclass(ParseError, ProgramError) and issubclass(RunError, ProgramError)
    error = pickle.loads(pickle.dumps(ParseError("unexpected 'x'", 1)))
    assert (str(error), error.message, error.position) == ("parse error at 1: unexpected 'x'", "unexpected 'x'", 1)
    assert pickle.loads(pickle.dumps(RunError("division by zero"))).message == "division by zero"


def test_the_interpreter_never_reaches_eval_exec_or_compile(monkeypatch):
    source = inspect.getsource(interpreter)
    for forbidden in ("eval(", "exec(", "compile(", "import ast", "getattr("):
        assert forbidden not in source

    def refuse(*args, **kwargs):
        raise AssertionError("the interpreter called a Python evaluator")

    for name in ("eval", "exec", "compile", "__import__"):
        monkeypatch.setattr(builtins, name, refuse)
    assert run("x*3+2", 4) == 14
    assert run("total(1, x, i*i) - max(x, abs(-7)) % 4", 3) == 11
    with pytest.raises(ParseError):
        run("__import__('os').system('true')", 0)
    with pytest.raises(ParseError):
        run("x.__class__.__bases__", 0)
    assert failures("x*2", [(1, 2), (2, 5)]) == ["f(2): got 4, expected 5"]


def test_failures_reports():
    cases = [(0, 1), (1, 4), (2, 7), (3, 10)]
    assert failures("x*3+1", cases) == []
    assert failures("3x+1", cases) == ["parse error at 1: unexpected 'x'"]
    assert failures("x*3", cases) == ["f(0): got 0, expected 1", "f(1): got 3, expected 4"]
    assert failures("x*3", cases, max_failures=3) == [
        "f(0): got 0, expected 1",
        "f(1): got 3, expected 4",
        "f(2): got 6, expected 7",
    ]
    assert failures("x*3", cases, max_failures=1) == ["f(0): got 0, expected 1"]
    # in case order, right cases skipped
    assert failures("min(x*3+1, 5)", cases) == ["f(2): got 5, expected 7", "f(3): got 5, expected 10"]
    assert failures("12/x", [(4, 3), (0, 1), (5, 3)]) == ["f(0): division by zero", "f(5): got 2, expected 3"]
    assert failures("x*x*x*x", [(100, 0)]) == ["f(100): number too large: more than 6 digits"]
    assert failures("total(1, 1000000, total(1, 1000000, 0))", [(4, 0)]) == ["f(4): step limit: more than 10000 steps"]
    assert failures("-x", [(-4, 4), (4, -4)]) == []


def test_a_second_input():
    """`y` is the second input (0 when a task gives one), and a case's inputs are reported as the call they make."""
    assert run("x*5+y*2+4", 2, 3) == 20 and run("x*5+y*2+4", 2) == 14
    assert failures("x*5+y*2+4", [((2, 3), 20), ((3, 1), 20)]) == ["f(3,1): got 21, expected 20"]
    assert failures("x*5+y*2+4", [((2, 3), 20)]) == []
    with pytest.raises(ValueError, match="The input y must be at most"):
        run("y", 0, MAX_MAGNITUDE + 1)
