"""MulFeRL and iGRPO trainers for Hugging Face TRL."""

import importlib
from typing import TYPE_CHECKING


__version__ = "0.1.0.dev0"

# Exports are imported on first use (PEP 562), so that `trl-mulferl --help` and other light entry points do not pay
# for importing torch, transformers and TRL.
_EXPORTS = {
    "AsyncMulFeRLConfig": "async_mulferl_config",
    "AsyncMulFeRLTrainer": "async_mulferl_trainer",
    "EnvironmentFeedbackProvider": "environment_provider",
    "IGRPOConfig": "igrpo_config",
    "IGRPOTrainer": "igrpo_trainer",
    "drop_empty_pairs": "losses",
    "fco_loss": "losses",
    "fco_score": "losses",
    "fco_surrogate_coefficients": "losses",
    "MulFeRLConfig": "mulferl_config",
    "MulFeRLTrainer": "mulferl_trainer",
    "OpenAIFeedbackProvider": "feedback",
    "CheckerFeedbackProvider": "feedback",
    "ColumnFeedbackProvider": "feedback",
    "build_feedback_provider": "feedback",
    "SelfFeedbackProvider": "feedback",
    "accuracy_reward": "rewards",
    "GroupState": "routing",
    "Route": "routing",
    "group_state": "routing",
    "make_generator": "routing",
    "route": "routing",
    "sample_fco_pairs": "routing",
    "SYSTEM_PROMPT": "schema",
    "extract_answer": "schema",
    "feedback_prefill": "schema",
    "inject_feedback": "schema",
    "make_conversation": "schema",
    "sanitize_feedback": "schema",
    "schema_compliant": "schema",
    "truncate_to_tokens": "schema",
}

__all__ = [
    "SYSTEM_PROMPT",
    "AsyncMulFeRLConfig",
    "AsyncMulFeRLTrainer",
    "CheckerFeedbackProvider",
    "ColumnFeedbackProvider",
    "EnvironmentFeedbackProvider",
    "GroupState",
    "IGRPOConfig",
    "IGRPOTrainer",
    "MulFeRLConfig",
    "MulFeRLTrainer",
    "OpenAIFeedbackProvider",
    "Route",
    "SelfFeedbackProvider",
    "accuracy_reward",
    "build_feedback_provider",
    "drop_empty_pairs",
    "extract_answer",
    "fco_loss",
    "fco_score",
    "fco_surrogate_coefficients",
    "feedback_prefill",
    "group_state",
    "inject_feedback",
    "make_conversation",
    "make_generator",
    "route",
    "sample_fco_pairs",
    "sanitize_feedback",
    "schema_compliant",
    "truncate_to_tokens",
]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:
    from .async_mulferl_config import AsyncMulFeRLConfig
    from .async_mulferl_trainer import AsyncMulFeRLTrainer
    from .feedback import (
        CheckerFeedbackProvider,
        ColumnFeedbackProvider,
        OpenAIFeedbackProvider,
        SelfFeedbackProvider,
        build_feedback_provider,
    )
    from .igrpo_config import IGRPOConfig
    from .igrpo_trainer import IGRPOTrainer
    from .losses import drop_empty_pairs, fco_loss, fco_score, fco_surrogate_coefficients
    from .mulferl_config import MulFeRLConfig
    from .mulferl_trainer import MulFeRLTrainer
    from .rewards import accuracy_reward
    from .routing import GroupState, Route, group_state, make_generator, route, sample_fco_pairs
    from .schema import (
        SYSTEM_PROMPT,
        extract_answer,
        feedback_prefill,
        inject_feedback,
        make_conversation,
        sanitize_feedback,
        schema_compliant,
        truncate_to_tokens,
    )
