"""The paper recipes on 8 GPUs: accelerate configs, batch arithmetic, vLLM colocate settings."""

import dataclasses
import re
from pathlib import Path

import pytest
import yaml
from accelerate.commands.config.config_args import load_config_from_file
from accelerate.utils import DistributedType
from trl import ModelConfig

from trl_mulferl import MulFeRLConfig
from trl_mulferl.train import MathScriptArguments, make_parser


RECIPES = sorted((Path(__file__).resolve().parents[1] / "recipes").glob("mulferl_*.yaml"))  # the paper's
ACCELERATE = Path(__file__).resolve().parents[1] / "recipes" / "accelerate"
PROMPT_TOKENS = 2048  # the paper's prompt budget
PROMPTS_PER_STEP, ROLLOUTS_PER_PROMPT = 16, 8


def parse(recipe: Path, *overrides: str):
    return make_parser().parse_args_and_config(
        ["--config", str(recipe), "--use_cpu", "true", "--bf16", "false", "--report_to", "none", *overrides]
    )


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_every_recipe_key_is_a_field(recipe):
    fields = {
        field.name for cls in (MathScriptArguments, MulFeRLConfig, ModelConfig) for field in dataclasses.fields(cls)
    }
    assert set(yaml.safe_load(recipe.read_text())) - fields == set()


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
@pytest.mark.parametrize("num_gpus", [8, 4])
def test_recipe_gives_16_prompts_x_8_rollouts_per_step(recipe, num_gpus):
    # 4 GPUs: the recipe's comment says to double the accumulation; the config's own checks must still pass.
    overrides = [] if num_gpus == 8 else ["--gradient_accumulation_steps", "16"]
    _, config, _, _ = parse(recipe, *overrides)
    assert config.num_generations == ROLLOUTS_PER_PROMPT
    rollouts = num_gpus * config.per_device_train_batch_size * config.gradient_accumulation_steps
    assert rollouts == PROMPTS_PER_STEP * ROLLOUTS_PER_PROMPT
    # FCO: one generation batch per optimizer step, and whole groups on each process.
    assert config.steps_per_generation == config.gradient_accumulation_steps
    assert config.per_device_train_batch_size * config.steps_per_generation % config.num_generations == 0
    if num_gpus == 4:
        assert "4 GPUs: gradient_accumulation_steps: 16" in recipe.read_text()


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_recipe_generates_with_vllm_colocated(recipe):
    _, config, _, _ = parse(recipe)
    assert (config.use_vllm, config.vllm_mode, config.vllm_tensor_parallel_size) == (True, "colocate", 1)
    needed = PROMPT_TOKENS + config.max_feedback_length + config.max_completion_length
    assert needed <= config.vllm_max_model_length <= needed + 128
    # vLLM's share leaves the sharded training state, the activations and the reference their half of the GPU.
    assert 0.3 <= config.vllm_gpu_memory_utilization <= 0.5


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_recipe_names_a_sharded_accelerate_config(recipe):
    named = re.search(r"accelerate launch --config_file (recipes/accelerate/\S+)", recipe.read_text()).group(1)
    config = load_config_from_file(str(ACCELERATE.parents[1] / named))
    assert config.distributed_type == DistributedType.DEEPSPEED and config.deepspeed_config["zero_stage"] == 3


@pytest.mark.parametrize(
    ("name", "distributed_type"),
    [
        ("ddp", DistributedType.MULTI_GPU),
        ("zero2", DistributedType.DEEPSPEED),
        ("zero3", DistributedType.DEEPSPEED),
        ("fsdp2", DistributedType.FSDP),
    ],
)
def test_accelerate_configs_are_for_8_gpus_in_bf16(name, distributed_type):
    config = load_config_from_file(str(ACCELERATE / f"{name}.yaml"))
    assert (config.distributed_type, config.num_processes, config.mixed_precision) == (distributed_type, 8, "bf16")
    assert not config.use_cpu
    if name.startswith("zero"):
        assert config.deepspeed_config["zero_stage"] == int(name[-1])
    if name == "fsdp2":
        assert config.fsdp_config["fsdp_version"] == 2
        assert not config.fsdp_config["fsdp_activation_checkpointing"]  # the recipes' activation_checkpointing does it


def test_there_is_an_accelerate_config_per_engine():
    assert sorted(path.stem for path in ACCELERATE.glob("*.yaml")) == ["ddp", "fsdp2", "zero2", "zero3"]
