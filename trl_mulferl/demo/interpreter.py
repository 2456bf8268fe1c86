"""A tiny integer language in which a policy writes programs `f(x, y)`, and a safe interpreter of our own for it.

The program-synthesis task shows input/output examples and asks for a program such as ``x*3+y*2+1``. A program is
one expression in the integers ``x`` and ``y`` (a program of one input uses ``x`` alone, and ``y`` is 0)::

    expr    := product (('+' | '-') product)*
    product := unary (('*' | '/' | '%') unary)*
    unary   := '-' unary | atom
    atom    := INT | 'x' | 'y' | 'i' | '(' expr ')' | call
    call    := 'min' '(' expr ',' expr ')' | 'max' '(' expr ',' expr ')' | 'abs' '(' expr ')'
             | 'total' '(' expr ',' expr ',' expr ')'

`/` and `%` are Python's floor division and modulo. ``total(lo, hi, body)`` is the only loop: the sum of ``body``
with ``i`` = lo, lo+1, ..., hi (0 when hi < lo); ``i`` exists only in a body, an inner total's ``i`` shadows the
outer one.

Why it is safe: the model's text never reaches Python's eval, exec, compile or ast. A hand-written tokenizer and
recursive-descent parser turn it into a tree of tuples holding only node names and bounded integers, and the
evaluator knows nothing but the operations above: there is no name, attribute, string or call that could reach
Python. Every program also finishes fast and small: the source is at most `MAX_SOURCE_CHARS` long and nests at most
`MAX_DEPTH` deep (refused by the parser, long before Python's recursion limit), a run evaluates at most `MAX_STEPS`
nodes (a loop's iterations count their body's nodes), and every value, literals included, stays within
`MAX_MAGNITUDE`, checked after each operation so that no huge number is ever built.

`parse` and `run` raise `ProgramError`s whose messages are the environment's reports; `failures` gives the report
lines of a program on (input, expected) cases.
"""

import operator
import string
from dataclasses import dataclass, field


MAX_SOURCE_CHARS = 200
MAX_DEPTH = 32  # nesting of parentheses, unary minus and calls
MAX_STEPS = 10_000  # nodes evaluated in one run
MAX_MAGNITUDE = 10**6  # the largest absolute value of any number a program writes or computes

_DIGITS = string.digits
# Names may hold underscores and digits only so that `__import__` or `x1` is refused as an unknown name, which says
# more than an unexpected character would.
_NAME_START = string.ascii_letters + "_"
_NAME_CHARS = _NAME_START + _DIGITS
_ARITIES = {"min": 2, "max": 2, "abs": 1, "total": 3}
_ARITHMETIC = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.floordiv,
    "%": operator.mod,
}


class ProgramError(Exception):
    """A program that cannot be parsed or run; `message` is what the environment reports."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ParseError(ProgramError):
    """A source that is not a program; `position` is the 0-based index of the character where the problem is."""

    def __init__(self, message: str, position: int):
        super().__init__(message)
        self.position = position
        # the arguments it is built from, so that it survives pickling (an error raised in a worker process)
        self.args = (message, position)

    def __str__(self) -> str:
        return f"parse error at {self.position}: {self.message}"


class RunError(ProgramError):
    """A program that fails on an input: too many steps, too large a number, or division by zero."""


def _too_large() -> str:
    return f"number too large: more than {len(str(MAX_MAGNITUDE)) - 1} digits"


@dataclass(frozen=True)
class Program:
    """A parsed program: its source and its tree, nested tuples whose first item names the node."""

    source: str
    tree: tuple = field(repr=False)


@dataclass(frozen=True)
class _Token:
    kind: str  # "number", "name", "other" (one character: a symbol, or one outside the language) or "end"
    text: str
    position: int


def _tokens(source: str) -> list[_Token]:
    """The tokens of `source`. A character outside the language is a token of its own that the parser never
    expects, so the error it makes is reported in source order, after any earlier one."""
    tokens = []
    position = 0
    while position < len(source):
        if source[position].isspace():
            position += 1
            continue
        kind, characters = "other", ""
        if source[position] in _DIGITS:
            kind, characters = "number", _DIGITS
        elif source[position] in _NAME_START:
            kind, characters = "name", _NAME_CHARS
        end = position + 1
        while end < len(source) and source[end] in characters:
            end += 1
        tokens.append(_Token(kind, source[position:end], position))
        position = end
    tokens.append(_Token("end", "", len(source)))
    return tokens


class _Parser:
    """Recursive descent over the grammar, one method a rule; `depth` counts the levels open around the current
    token and `loops` the total bodies, where `i` is defined."""

    def __init__(self, source: str):
        self.tokens = _tokens(source)
        self.index = 0
        self.depth = 0
        self.loops = 0

    @property
    def token(self) -> _Token:
        return self.tokens[self.index]

    def unexpected(self) -> ParseError:
        token = self.token
        return ParseError("unexpected end" if token.kind == "end" else f"unexpected {token.text!r}", token.position)

    def take(self, text: str) -> None:
        if self.token.text != text:
            raise self.unexpected()
        self.index += 1

    def enter(self, opening: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"nesting deeper than {MAX_DEPTH}", opening.position)

    def program(self) -> tuple:
        tree = self.expression()
        if self.token.kind != "end":
            raise self.unexpected()
        return tree

    def expression(self) -> tuple:
        return self.operations(("+", "-"), self.product)

    def product(self) -> tuple:
        return self.operations(("*", "/", "%"), self.unary)

    def operations(self, symbols: tuple[str, ...], operand) -> tuple:
        # a run of same-precedence operators is one flat node, evaluated left to right: a long sum makes a wide
        # tree, not a deep one
        first = operand()
        rest = []
        while self.token.text in symbols:
            symbol = self.token.text
            self.index += 1
            rest.append((symbol, operand()))
        return ("operations", first, tuple(rest)) if rest else first

    def unary(self) -> tuple:
        if self.token.text != "-":
            return self.atom()
        self.enter(self.token)
        self.index += 1
        tree = ("negate", self.unary())
        self.depth -= 1
        return tree

    def atom(self) -> tuple:
        token = self.token
        if token.kind == "number":
            if int(token.text) > MAX_MAGNITUDE:
                raise ParseError(_too_large(), token.position)
            self.index += 1
            return ("number", int(token.text))
        if token.text == "(":
            self.enter(token)
            self.index += 1
            tree = self.expression()
            self.take(")")
            self.depth -= 1
            return tree
        if token.kind != "name":
            raise self.unexpected()
        if token.text == "i" and not self.loops:
            raise ParseError("'i' outside total(...)", token.position)
        if token.text in ("x", "y", "i"):
            self.index += 1
            return (token.text,)
        if token.text not in _ARITIES:
            raise ParseError(f"unknown name {token.text!r}", token.position)
        return self.call(token)

    def call(self, name: _Token) -> tuple:
        arity = _ARITIES[name.text]
        self.enter(name)
        self.index += 1
        self.take("(")
        arguments = []
        for index in range(arity):
            in_loop_body = name.text == "total" and index == arity - 1
            self.loops += in_loop_body
            arguments.append(self.expression())
            self.loops -= in_loop_body
            expected = ")" if index == arity - 1 else ","
            if self.token.text in (",", ")") and self.token.text != expected:
                plural = "s" if arity > 1 else ""
                raise ParseError(f"{name.text}(...) takes {arity} argument{plural}", self.token.position)
            self.take(expected)
        self.depth -= 1
        return (name.text, *arguments)


def parse(source: str) -> Program:
    """The program `source` writes; raises `ParseError` at the first problem."""
    if len(source) > MAX_SOURCE_CHARS:
        raise ParseError(f"program longer than {MAX_SOURCE_CHARS} characters", MAX_SOURCE_CHARS)
    return Program(source, _Parser(source).program())


def _bounded(value: int) -> int:
    if abs(value) > MAX_MAGNITUDE:
        raise RunError(_too_large())
    return value


class _Evaluation:
    """One run of a program on `x` and `y`, counting the nodes it evaluates."""

    def __init__(self, x: int, y: int, max_steps: int):
        self.x, self.y = x, y
        self.max_steps = max_steps
        self.steps = 0

    def value(self, node: tuple, i: int | None) -> int:
        """The value of `node` with the innermost loop's `i` (None outside every loop, where the parser allows
        no `i`)."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise RunError(f"step limit: more than {self.max_steps} steps")
        match node:
            case ("number", number):
                return number
            case ("x",):
                return self.x
            case ("y",):
                return self.y
            case ("i",):
                return i
            case ("negate", operand):
                return -self.value(operand, i)
            case ("abs", operand):
                return abs(self.value(operand, i))
            case ("min", left, right):
                return min(self.value(left, i), self.value(right, i))
            case ("max", left, right):
                return max(self.value(left, i), self.value(right, i))
            case ("operations", first, rest):
                result = self.value(first, i)
                for symbol, operand in rest:
                    right = self.value(operand, i)
                    if symbol in ("/", "%") and right == 0:
                        raise RunError("division by zero")
                    result = _bounded(_ARITHMETIC[symbol](result, right))
                return result
            case ("total", low, high, body):
                result = 0
                # range is lazy: a loop of a million iterations costs only the steps it runs before the limit
                for loop_i in range(self.value(low, i), self.value(high, i) + 1):
                    result = _bounded(result + self.value(body, loop_i))
                return result


def run(program: Program | str, x: int, y: int = 0, max_steps: int = MAX_STEPS) -> int:
    """`program` (parsed first when a string) applied to `x` and `y`; raises `ProgramError` (`ParseError`,
    `RunError`).

    The inputs are the task's, not the program's: one beyond `MAX_MAGNITUDE` is the caller's mistake, a ValueError.
    """
    if isinstance(program, str):
        program = parse(program)
    for name, value in (("x", x), ("y", y)):
        if abs(value) > MAX_MAGNITUDE:
            raise ValueError(f"The input {name} must be at most {MAX_MAGNITUDE} in absolute value, got {value}.")
    return _Evaluation(x, y, max_steps).value(program.tree, None)


def failures(source: str, cases: list[tuple[int | tuple[int, int], int]], max_failures: int = 2) -> list[str]:
    """The interpreter's report on a program and (input, expected) cases, an input being `x` or `(x, y)`: [] when
    it returns the expected value on every case, one line for a parse error, else a line for each failing case, at
    most `max_failures`, in case order ("f(4): got 19, expected 21", "f(2,3): division by zero")."""
    try:
        program = parse(source)
    except ParseError as error:
        return [str(error)]
    lines = []
    for inputs, expected in cases:
        if len(lines) == max_failures:
            break
        inputs = inputs if isinstance(inputs, tuple) else (inputs,)
        call = f"f({','.join(map(str, inputs))})"
        try:
            got = run(program, *inputs)
        except RunError as error:
            lines.append(f"{call}: {error.message}")
            continue
        if got != expected:
            lines.append(f"{call}: got {got}, expected {expected}")
    return lines
