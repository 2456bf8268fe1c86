"""MulFeRL and iGRPO trainers for Hugging Face TRL."""

from .igrpo_config import IGRPOConfig
from .igrpo_trainer import IGRPOTrainer
from .losses import drop_empty_pairs, fco_loss, fco_score, fco_surrogate_coefficients
from .mulferl_config import MulFeRLConfig
from .mulferl_trainer import MulFeRLTrainer
from .openai_provider import OpenAIFeedbackProvider
from .providers import CheckerFeedbackProvider, ColumnFeedbackProvider, build_feedback_provider
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
from .self_provider import SelfFeedbackProvider


__version__ = "0.1.0.dev0"

__all__ = [
    "SYSTEM_PROMPT",
    "CheckerFeedbackProvider",
    "ColumnFeedbackProvider",
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
