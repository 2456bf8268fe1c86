from pathlib import Path

import pytest
from trl import ModelConfig, ScriptArguments, TrlParser

from trl_mulferl import MulFeRLConfig


RECIPES = sorted((Path(__file__).resolve().parents[1] / "recipes").glob("*.yaml"))


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_recipe_parses_with_the_paper_values(recipe):
    # The recipes target 8 processes; parse them as one process with CPU overrides from the command line.
    parser = TrlParser((ScriptArguments, MulFeRLConfig, ModelConfig))
    script_args, config, model_args = parser.parse_args_and_config(
        ["--config", str(recipe), "--use_cpu", "true", "--bf16", "false", "--report_to", "none"]
    )
    assert model_args.model_name_or_path.startswith("Qwen/")
    assert script_args.dataset_name == "open-r1/OpenR1-Math-220k"
    assert (config.loss_type, config.beta, config.use_bias_correction_kl) == ("grpo", 0.001, False)
    assert (config.learning_rate, config.num_generations, config.temperature) == (1e-6, 8, 1.0)
    assert (config.max_completion_length, config.max_steps) == (8192, 400)
    assert (config.max_feedback_turns, config.feedback_group_size, config.max_feedback_length) == (2, 2, 1024)
    assert (config.fco_weight, config.fco_tau, config.fco_margin, config.fco_pairing) == (
        0.01,
        0.005,
        0.0,
        "permutation",
    )


def test_there_is_a_recipe_per_paper_backbone():
    assert [path.stem for path in RECIPES] == ["mulferl_qwen2.5-7b-base", "mulferl_qwen3-4b-instruct-2507"]
