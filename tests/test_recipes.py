import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from trl import ModelConfig, TrlParser

from trl_mulferl import MulFeRLConfig
from trl_mulferl.train import MathScriptArguments, build_trainer, make_parser


REPO = Path(__file__).resolve().parents[1]
RECIPES = sorted((REPO / "recipes").glob("*.yaml"))
PAPER_RECIPES = [path for path in RECIPES if path.stem.startswith("mulferl_")]
TINY_RECIPE = REPO / "recipes" / "tiny_cpu.yaml"


@pytest.mark.parametrize("recipe", PAPER_RECIPES, ids=lambda path: path.stem)
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


def test_there_is_a_recipe_per_paper_backbone_and_one_for_cpu():
    assert [path.stem for path in PAPER_RECIPES] == ["mulferl_qwen2.5-7b-base", "mulferl_qwen3-4b-instruct-2507"]
    assert [path.name for path in RECIPES] == [path.name for path in PAPER_RECIPES] + ["tiny_cpu.yaml"]


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """What `trl-mulferl make-tiny` writes: the folder the tiny recipe's relative paths point into."""
    from trl_mulferl.tiny import write_tiny

    folder = tmp_path_factory.mktemp("tiny-run")
    write_tiny(folder / "tiny-mulferl")
    return folder


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_every_recipe_builds_its_trainer(recipe, tiny_folder, monkeypatch):
    """With the installed extras: the recipe's own logging, feedback and training settings, a tiny local model and
    dataset for the Hub ones, CPU instead of bf16 GPUs, and a local server for GPT-4o."""
    from tests.helpers.fault_server import FaultServer

    monkeypatch.chdir(tiny_folder)  # the tiny recipe's paths are relative to the current folder
    overrides = ["--use_cpu", "true", "--bf16", "false", "--max_steps", "1", "--output_dir", str(tiny_folder / "out")]
    with FaultServer() as server:
        if recipe in PAPER_RECIPES:
            overrides += ["--model_name_or_path", "./tiny-mulferl/model", "--dataset_name", "./tiny-mulferl/data"]
            overrides += ["--feedback_base_url", server.base_url, "--feedback_model", "fault-model"]
            overrides += ["--use_vllm", "false"]  # the paper recipes generate with vLLM on GPUs
        script_args, config, model_args, dataset_args = make_parser().parse_args_and_config(
            ["--config", str(recipe), *overrides]
        )
        trainer = build_trainer(script_args, config, model_args, dataset_args)
    assert len(trainer.train_dataset) == 35 and set(trainer.train_dataset.column_names) == {"prompt", "solution"}
    expected_reward = "digit_reward" if recipe == TINY_RECIPE else "accuracy_reward"
    assert [func.__name__ for func in trainer.reward_funcs] == [expected_reward]
    assert trainer.args.report_to == []  # no logging integration is a dependency; recipes name none
    assert trainer.args.activation_checkpointing is (recipe != TINY_RECIPE)


def tiny_recipe_command(folder: Path) -> list[str]:
    """docs/mulferl_trainer.md's `trl-mulferl train --config recipes/tiny_cpu.yaml`, with the console script of this environment."""
    script = Path(sys.executable).parent / "trl-mulferl"
    assert script.exists(), "the package is not installed (pip install -e .): no trl-mulferl command"
    return [str(script), "train", "--config", str(TINY_RECIPE)]


def assert_trained(output_dir: Path, result: subprocess.CompletedProcess):
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Traceback" not in result.stderr
    assert "`gradient_checkpointing` is deprecated" not in result.stderr
    before = load_file(output_dir.parent / "model" / "model.safetensors")
    after = load_file(output_dir / "model.safetensors")
    assert before.keys() == after.keys()
    assert any(not torch.equal(before[name], after[name]) for name in before), "no weight moved"
    assert "MulFeRL" in (output_dir / "README.md").read_text()


@pytest.mark.slow
def test_tiny_cpu_recipe_runs_through_the_cli(tiny_folder):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}  # nothing may reach for the Hub
    result = subprocess.run(
        tiny_recipe_command(tiny_folder), cwd=tiny_folder, env=env, capture_output=True, text=True, timeout=600
    )
    assert_trained(tiny_folder / "tiny-mulferl" / "output", result)
    # The metrics the Trainer prints at every step, e.g. {'loss': '0.01', ..., 'mulferl/fco/loss': None, ...}.
    steps = [ast.literal_eval(text) for text in re.findall(r"\{'loss': .*?\}", result.stdout)]
    assert len(steps) == 10
    assert sum(float(entry["mulferl/feedback/requests"]) for entry in steps) > 0  # the checker was asked
    assert all(float(entry["mulferl/feedback/errors"]) == 0 for entry in steps)


@pytest.mark.slow
def test_tiny_cpu_recipe_runs_on_two_processes(tiny_folder):
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2"]
    launch += ["--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
    command = launch + ["-m", "trl_mulferl.train", "--config", str(TINY_RECIPE), "--max_steps", "2"]
    command += ["--output_dir", "tiny-mulferl/output-2-processes"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(command, cwd=tiny_folder, env=env, capture_output=True, text=True, timeout=600)
    assert_trained(tiny_folder / "tiny-mulferl" / "output-2-processes", result)


def test_train_script_runs_a_recipe_offline(tmp_path, tiny_model_dir):
    """The recipe entry point on a local JSONL dataset, a local model and a local OpenAI-compatible server."""
    import json

    from tests.helpers.fault_server import FaultServer
    from trl_mulferl.cli import main as cli

    rows = [{"problem": f"What is {i} + {i}?", "answer": 2 * i, "level": 1} for i in range(8)]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.jsonl").write_text("\n".join(json.dumps(row) for row in rows))
    with FaultServer() as server:
        cli(
            ["train", "--config", str(PAPER_RECIPES[0]), "--model_name_or_path", tiny_model_dir, "--dtype", "float32"]
            + ["--dataset_name", str(tmp_path / "data"), "--output_dir", str(tmp_path / "out")]
            + ["--feedback_base_url", server.base_url, "--feedback_model", "fault-model", "--max_steps", "1"]
            + ["--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "1", "--num_generations", "2"]
            + ["--max_completion_length", "8", "--max_feedback_turns", "1", "--activation_checkpointing", "false"]
            + ["--use_cpu", "true", "--bf16", "false", "--report_to", "none", "--save_strategy", "no"]
            + ["--use_vllm", "false"]  # the recipes generate with vLLM on GPUs
        )
        assert {kind for _, _, kind in server.requests} == {"review"}  # K = 2: one subgroup, no merge
    assert (tmp_path / "out" / "model.safetensors").exists()
    assert "MulFeRL" in (tmp_path / "out" / "README.md").read_text()


def test_train_script_names_a_missing_column(tmp_path):
    from datasets import Dataset

    from trl_mulferl.train import make_math_dataset

    with pytest.raises(ValueError, match="no column 'answer'.*--answer_column"):
        make_math_dataset(Dataset.from_list([{"problem": "1 + 1?", "solution": "2"}]), "problem", "answer")
