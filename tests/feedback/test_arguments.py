"""`FeedbackArguments`: the feedback fields both MulFeRL configs inherit, documented once, in TRL's docstring style."""

import re
from dataclasses import fields

import pytest
from trl import GRPOConfig
from trl.experimental.async_grpo import AsyncGRPOConfig

from trl_mulferl import AsyncMulFeRLConfig, MulFeRLConfig
from trl_mulferl.core.losses import FCO_SCORE_NORMALIZATIONS
from trl_mulferl.feedback.arguments import FeedbackArguments


@pytest.mark.parametrize(
    ("config_class", "trl_config"), [(MulFeRLConfig, GRPOConfig), (AsyncMulFeRLConfig, AsyncGRPOConfig)]
)
def test_every_field_a_config_adds_is_documented_once_in_its_parameters(config_class, trl_config):
    inherited = {f.name for f in fields(trl_config)}
    new = [f.name for f in fields(config_class) if f.name not in inherited]
    parameters = config_class.__doc__.split("    Parameters:\n", 1)[1]
    entries = re.findall(r"^        (\w+) \(`", parameters, re.MULTILINE)
    assert sorted(entries) == sorted(new)
    assert "max_open_trajectories" in entries or config_class is MulFeRLConfig
    assert all(f.metadata.get("help") for f in fields(config_class) if f.name in new)


def test_both_configs_inherit_the_feedback_fields_and_their_check(tmp_path):
    shared = {f.name for f in fields(FeedbackArguments)}
    redefined = {"feedback_max_concurrency", "feedback_turn_deadline"}  # their meaning in the rollout process
    for name in shared - redefined:
        assert AsyncMulFeRLConfig.__dataclass_fields__[name] is MulFeRLConfig.__dataclass_fields__[name]
    assert MulFeRLConfig.__dataclass_fields__["fco_score_normalization"].metadata["choices"] == list(
        FCO_SCORE_NORMALIZATIONS
    )
    for config_class in (MulFeRLConfig, AsyncMulFeRLConfig):
        with pytest.raises(ValueError, match="max_feedback_turns must be >= 0, got -1"):
            config_class(str(tmp_path), use_cpu=True, bf16=False, num_generations=2, max_feedback_turns=-1)
