from pathlib import Path

import pytest
from trl import ModelConfig, TrlParser

from trl_mulferl import MulFeRLConfig
from trl_mulferl.train import MathScriptArguments


RECIPES = sorted((Path(__file__).resolve().parents[1] / "recipes").glob("*.yaml"))


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_recipe_parses_with_the_paper_values(recipe):
    # The recipes target 8 processes; parse them as one process with CPU overrides from the command line.
    parser = TrlParser((MathScriptArguments, MulFeRLConfig, ModelConfig))
    script_args, config, model_args = parser.parse_args_and_config(
        ["--config", str(recipe), "--use_cpu", "true", "--bf16", "false", "--report_to", "none"]
    )
    assert model_args.model_name_or_path.startswith("Qwen/")
    assert script_args.dataset_name == "open-r1/OpenR1-Math-220k"
    assert (script_args.problem_column, script_args.answer_column) == ("problem", "answer")
    assert (config.feedback_provider, config.feedback_model) == ("openai", "gpt-4o")
    assert (config.feedback_input_token_price, config.feedback_output_token_price) == (2.5, 10.0)  # GPT-4o's
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


def test_train_script_runs_a_recipe_offline(tmp_path, tiny_model_dir):
    """The recipe entry point on a local JSONL dataset, a local model and a local OpenAI-compatible server."""
    import json

    from tests.fault_server import FaultServer
    from trl_mulferl.cli import main as cli

    rows = [{"problem": f"What is {i} + {i}?", "answer": 2 * i, "level": 1} for i in range(8)]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.jsonl").write_text("\n".join(json.dumps(row) for row in rows))
    with FaultServer() as server:
        cli(
            ["train", "--config", str(RECIPES[0]), "--model_name_or_path", tiny_model_dir, "--dtype", "float32"]
            + ["--dataset_name", str(tmp_path / "data"), "--output_dir", str(tmp_path / "out")]
            + ["--feedback_base_url", server.base_url, "--feedback_model", "fault-model", "--max_steps", "1"]
            + ["--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "1", "--num_generations", "2"]
            + ["--max_completion_length", "8", "--max_feedback_turns", "1", "--gradient_checkpointing", "false"]
            + ["--use_cpu", "true", "--bf16", "false", "--report_to", "none", "--save_strategy", "no"]
        )
        assert {kind for _, _, kind in server.requests} == {"review"}  # K = 2: one subgroup, no merge
    assert (tmp_path / "out" / "model.safetensors").exists()
    assert "MulFeRL" in (tmp_path / "out" / "README.md").read_text()


def test_train_script_names_a_missing_column(tmp_path):
    from datasets import Dataset

    from trl_mulferl.train import make_math_dataset

    with pytest.raises(ValueError, match="no column 'answer'.*--answer_column"):
        make_math_dataset(Dataset.from_list([{"problem": "1 + 1?", "solution": "2"}]), "problem", "answer")
