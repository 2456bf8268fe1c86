"""MulFeRL and iGRPO trainers for Hugging Face TRL."""

import importlib
from typing import TYPE_CHECKING


__version__ = "0.1.0.dev0"

# Exports are imported on first use (PEP 562), so that `trl-mulferl --help` and other light entry points do not pay
# for importing torch, transformers and TRL.
_EXPORTS = {
    "AsyncMulFeRLConfig": "async_mulferl.async_mulferl_config",
    "AsyncMulFeRLTrainer": "async_mulferl.async_mulferl_trainer",
    "EnvironmentFeedbackProvider": "feedback.environment",
    "IGRPOConfig": "igrpo.igrpo_config",
    "IGRPOTrainer": "igrpo.igrpo_trainer",
    "drop_empty_pairs": "core.losses",
    "fco_loss": "core.losses",
    "fco_score": "core.losses",
    "fco_surrogate_coefficients": "core.losses",
    "MulFeRLConfig": "mulferl.mulferl_config",
    "MulFeRLTrainer": "mulferl.mulferl_trainer",
    "OpenAIFeedbackProvider": "feedback",
    "CheckerFeedbackProvider": "feedback",
    "ColumnFeedbackProvider": "feedback",
    "build_feedback_provider": "feedback",
    "SelfFeedbackProvider": "feedback",
    "accuracy_reward": "core.rewards",
    "GroupState": "core.routing",
    "Route": "core.routing",
    "group_state": "core.routing",
    "make_generator": "core.routing",
    "route": "core.routing",
    "sample_fco_pairs": "core.routing",
    "SYSTEM_PROMPT": "core.schema",
    "extract_answer": "core.schema",
    "feedback_prefill": "core.schema",
    "inject_feedback": "core.schema",
    "make_conversation": "core.schema",
    "sanitize_feedback": "core.schema",
    "schema_compliant": "core.schema",
    "truncate_to_tokens": "core.schema",
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
    from .async_mulferl.async_mulferl_config import AsyncMulFeRLConfig
    from .async_mulferl.async_mulferl_trainer import AsyncMulFeRLTrainer
    from .core.losses import drop_empty_pairs, fco_loss, fco_score, fco_surrogate_coefficients
    from .core.rewards import accuracy_reward
    from .core.routing import GroupState, Route, group_state, make_generator, route, sample_fco_pairs
    from .core.schema import (
        SYSTEM_PROMPT,
        extract_answer,
        feedback_prefill,
        inject_feedback,
        make_conversation,
        sanitize_feedback,
        schema_compliant,
        truncate_to_tokens,
    )
    from .feedback import (
        CheckerFeedbackProvider,
        ColumnFeedbackProvider,
        OpenAIFeedbackProvider,
        SelfFeedbackProvider,
        build_feedback_provider,
    )
    from .igrpo.igrpo_config import IGRPOConfig
    from .igrpo.igrpo_trainer import IGRPOTrainer
    from .mulferl.mulferl_config import MulFeRLConfig
    from .mulferl.mulferl_trainer import MulFeRLTrainer
