"""The answer-leak guard on expressions whose sympy assumptions contradict each other: an unevaluated product with a
zero factor, as math-verify reads `-1 0`. sympy asks its assumption handlers in a shuffled order and raises
`InconsistentAssumptions` for some orders; the tests fix an order that raises."""

import sys

import pytest
import sympy
from math_verify.parser import parse_expr_cached, parse_latex_cached
from sympy.core.cache import clear_cache

from trl_mulferl.feedback import REDACTED, prepare_feedback, redact_answer_leak
from trl_mulferl.feedback.guard.values import _gold, _is_real, _math_verify_equal


MATRIX = r"\begin{pmatrix} -1 & 0 \\ 0 & -1 \end{pmatrix}"
# A worked reference (MATH-500's, shortened) whose final answer is a matrix; the feedback states it in plain text.
WORKED_REFERENCE = (
    "Note that\n\\[\\mathbf{A}^3 = " + MATRIX + " = -\\mathbf{I}.\\]Then\n\\begin{align*}\n"
    "\\mathbf{A}^{27} + \\mathbf{A}^{31} + \\mathbf{A}^{40} &= -\\mathbf{I} + \\mathbf{A} - \\mathbf{A} \\\\\n"
    "&= -\\mathbf{I} = \\boxed{" + MATRIX + "}.\n\\end{align*}"
)
FEEDBACK = "The first two steps are fine. **Answer:** -1 0; 0 -1"


@pytest.fixture
def contradicting_order(monkeypatch):
    """sympy asks `even`, `odd` and `integer` first, in that order: `Mul._eval_is_even` calls `(-1)*0*1` not even,
    `odd` is False too, and then `integer` is True, which implies even. Fresh sympy objects before (math-verify keeps
    its last parses, the guard its comparisons), and none of the contradicted facts left in a cache after."""
    first = ("even", "odd", "integer")

    def in_contradicting_order(facts: list[str]):
        facts.sort(key=lambda fact: (first.index(fact) if fact in first else len(first), fact))

    monkeypatch.setattr(sys.modules["sympy.core.assumptions"], "shuffle", in_contradicting_order)
    for cache in (_math_verify_equal, _gold, parse_latex_cached, parse_expr_cached):
        cache.cache_clear()
    clear_cache()
    yield
    for cache in (_math_verify_equal, _gold, parse_latex_cached, parse_expr_cached):
        cache.cache_clear()
    clear_cache()


def test_is_real_is_unknown_where_sympy_contradicts_itself(contradicting_order):
    product = sympy.Mul(sympy.Integer(-1), sympy.Integer(0), sympy.Integer(1), evaluate=False)
    assert _is_real(product) is None
    assert _is_real(sympy.Integer(-1)) is True
    assert _is_real(sympy.I) is False


def test_guard_redacts_where_sympy_contradicts_itself(contradicting_order):
    assert redact_answer_leak(FEEDBACK, WORKED_REFERENCE) == (
        f"The first two steps are fine. **Answer:** {REDACTED}",
        True,
    )


def test_prepare_feedback_keeps_the_feedback_where_sympy_contradicts_itself(contradicting_order):
    prepared = prepare_feedback(FEEDBACK, WORKED_REFERENCE, None, 1024, ())
    assert (prepared.text, prepared.leaked) == (f"The first two steps are fine. **Answer:** {REDACTED}", True)
