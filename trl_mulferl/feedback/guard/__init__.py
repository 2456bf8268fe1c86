"""The answer-leak guard (decision 8): `redact_answer_leak` redacts every statement of the reference answer in a
feedback text.

Its parts, from the bottom up: `normalise` (the text as the guard reads it), `text` (runs of math), `values` (the
value of an expression, equality), `collection` (tuples, sets, intervals, matrices), `reference` (the reference
answer, read once), `statements` (which spans state it) and `redact` (the guard). `prepare_feedback`, the whole path
from a provider's text to the injected one, is `feedback/prepare.py`.
"""

from .normalise import MAX_CANDIDATE_LENGTH
from .redact import REDACTED, redact_answer_leak
from .reference import final_answer
from .statements import (
    MAX_MATH_VERIFY_CHECKS,
    MAX_MATH_VERIFY_SECONDS,
    MIN_APPROXIMATION_DIGITS,
    MIN_VERBATIM_LEAK_LENGTH,
)


__all__ = [
    "MAX_CANDIDATE_LENGTH",
    "MAX_MATH_VERIFY_CHECKS",
    "MAX_MATH_VERIFY_SECONDS",
    "MIN_APPROXIMATION_DIGITS",
    "MIN_VERBATIM_LEAK_LENGTH",
    "REDACTED",
    "final_answer",
    "redact_answer_leak",
]
