import importlib.util
import os
from pathlib import Path

import pytest


os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def pytest_collection_modifyitems(config, items):
    """Tests marked `vllm` are deselected where vLLM is not installed (the main suite's environment), unless `-m`
    names them: then they run, and fail on the missing import instead of skipping (CI's vLLM step)."""
    if "vllm" in config.option.markexpr or importlib.util.find_spec("vllm") is not None:
        return
    deselected = [item for item in items if item.get_closest_marker("vllm")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("vllm")]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The benchmark files in `../shared/data/`; tests that need them skip where the folder is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tiny_tokenizer():
    from tests.helpers.tiny import build_tiny_tokenizer

    return build_tiny_tokenizer()


@pytest.fixture(scope="session")
def tiny_model(tiny_tokenizer):
    from tests.helpers.tiny import build_tiny_model

    return build_tiny_model(tiny_tokenizer)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory, tiny_tokenizer):
    """The tiny model and tokenizer saved to disk, for code paths that load a model by name (e.g. the reference)."""
    from tests.helpers.tiny import build_tiny_model

    path = tmp_path_factory.mktemp("tiny-model")
    build_tiny_model(tiny_tokenizer).save_pretrained(path)
    tiny_tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory) -> str:
    """SmolLM2-135M-Instruct written once per test run by `write_smollm2` (540 MB, in a temporary folder)."""
    from trl_mulferl.smollm2 import gguf_path, write_smollm2

    try:
        gguf_path()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    return write_smollm2(tmp_path_factory.mktemp("smollm2"))
