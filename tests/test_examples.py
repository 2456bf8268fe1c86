"""Every example, run as a user would with `--tiny` (offline, CPU, 2 steps), must train: its weights move."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_tiny(example: str, folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}  # a Hub look-up would fail at once instead of passing unnoticed
    command = [sys.executable, str(EXAMPLES / f"{example}.py"), "--tiny"]
    result = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return result


def test_every_example_is_tested():
    assert sorted(path.stem for path in EXAMPLES.glob("*.py")) == ["grpo_to_mulferl", "igrpo", "lora"]


@pytest.mark.slow
@pytest.mark.parametrize("example", ["grpo_to_mulferl", "igrpo"])
def test_example_trains_the_tiny_model(example, tmp_path):
    run_tiny(example, tmp_path)
    before = load_file(tmp_path / "tiny-mulferl" / "model" / "model.safetensors")
    after = load_file(tmp_path / "tiny-mulferl" / example / "model.safetensors")
    assert before.keys() == after.keys()
    moved = [name for name in before if not torch.equal(before[name], after[name])]
    assert moved, "no weight changed: the example gave no learning signal"


@pytest.mark.slow
def test_lora_example_trains_its_adapter(tmp_path):
    run_tiny("lora", tmp_path)
    adapter = load_file(tmp_path / "tiny-mulferl" / "lora" / "adapter_model.safetensors")
    lora_b = {name: tensor for name, tensor in adapter.items() if "lora_B" in name}
    assert lora_b  # PEFT starts every B at zero: a non-zero B was trained
    assert any(tensor.abs().sum() > 0 for tensor in lora_b.values()), "the adapter did not move"


def test_examples_ask_for_the_schema_that_accuracy_reward_demands():
    # accuracy_reward pays only for the MulFeRL schema: a prompt that does not ask for it trains nothing (every
    # reward 0), which the --tiny runs above cannot see, as they use the sums' checker instead.
    for path in EXAMPLES.glob("*.py"):
        source = path.read_text()
        if "reward = accuracy_reward" in source:
            assert '"prompt": make_conversation(' in source, path.name
