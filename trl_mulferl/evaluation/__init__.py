"""Evaluation for MulFeRL: the paper's benchmarks, answer verifiers, pass@k, test-time feedback, and a callback.

    from trl_mulferl.evaluation import load_benchmark, answer_reward, EvaluationCallback

`trl-mulferl eval` is `trl_mulferl.evaluation.cli:main`. Names load on first use, so that importing this package (and
`trl-mulferl eval --help`) does not import torch.
"""

import importlib


_EXPORTS = {
    "BENCHMARKS": "benchmarks",
    "load_benchmark": "benchmarks",
    "parse_benchmarks": "benchmarks",
    "answer_reward": "verifiers",
    "choice_reward": "verifiers",
    "make_reward": "verifiers",
    "math_reward": "verifiers",
    "response_answer": "verifiers",
    "verify_answer": "verifiers",
    "pass_at_k": "metrics",
    "summarize": "metrics",
    "FeedbackSettings": "runner",
    "evaluate": "runner",
    "OpenAIBackend": "backends",
    "TransformersBackend": "backends",
    "VLLMBackend": "backends",
    "EvaluationCallback": "callback",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
