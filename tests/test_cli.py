import importlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import trl_mulferl
from trl_mulferl.cli import COMMANDS
from trl_mulferl.cli import main as cli


REPO = Path(__file__).resolve().parents[1]
HEAVY_MODULES = ("torch", "transformers", "trl", "datasets")


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)


def test_top_level_help_imports_no_heavy_module():
    code = (
        "import sys, json\n"
        "from trl_mulferl.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as exit:\n    assert exit.code == 0\n"
        f"print(json.dumps([name for name in {HEAVY_MODULES!r} if name in sys.modules]))"
    )
    start = time.perf_counter()
    result = run_python(code)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr
    help_text, loaded = result.stdout.rsplit("\n", 2)[0], json.loads(result.stdout.splitlines()[-1])
    assert loaded == []
    assert "usage: trl-mulferl COMMAND" in help_text
    assert all(name in help_text for name in COMMANDS)
    print(f"trl-mulferl --help in a fresh interpreter: {seconds:.2f} s")


def test_package_import_is_lazy_and_exports_stay_importable():
    result = run_python(
        "import sys, trl_mulferl\n"
        f"print([name for name in {HEAVY_MODULES!r} if name in sys.modules])\n"
        "from trl_mulferl import MulFeRLTrainer, make_conversation\n"
        "print(MulFeRLTrainer.__name__, make_conversation('1 + 1?')[-1]['content'], 'torch' in sys.modules)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "MulFeRLTrainer 1 + 1? True"]


def test_every_export_resolves():
    assert sorted(trl_mulferl.__all__) == sorted(trl_mulferl._EXPORTS)
    for name, module in trl_mulferl._EXPORTS.items():
        assert getattr(trl_mulferl, name) is getattr(importlib.import_module(f"trl_mulferl.{module}"), name)
    assert set(trl_mulferl.__all__) <= set(dir(trl_mulferl))
    with pytest.raises(AttributeError, match="no attribute 'MulFeRLTrainr'"):
        trl_mulferl.MulFeRLTrainr  # noqa: B018


def test_every_command_is_a_module_with_main():
    for command in COMMANDS.values():
        assert callable(importlib.import_module(command.module).main)


def test_unknown_command_is_refused(capsys):
    with pytest.raises(SystemExit) as exit:
        cli(["trian"])
    assert exit.value.code == 2
    assert "invalid choice: 'trian'" in capsys.readouterr().err


def test_train_help_is_short_and_points_to_every_field(capsys):
    with pytest.raises(SystemExit) as exit:  # as the console script ends: sys.exit(main())
        sys.exit(cli(["train", "--help"]))
    assert exit.value.code is None
    text = capsys.readouterr().out
    assert text.startswith("usage: trl-mulferl train [--config RECIPE.yaml]")
    for flag in ("--config RECIPE.yaml", "--help-all", "--problem_column", "--feedback_function", "--reward_funcs"):
        assert flag in text
    for flag in ("--max_feedback_turns", "--fco_weight", "--feedback_model", "--model_name_or_path", "--use_cpu"):
        assert flag in text
    assert "--gradient_accumulation_steps" not in text
    assert len(text.splitlines()) < 200  # every MulFeRL field and a few common ones; --help-all lists ~1,400 lines


def test_train_help_all_lists_every_field(capsys):
    cli(["train", "--help-all"])
    text = capsys.readouterr().out
    assert text.startswith("usage: trl-mulferl train")
    for flag in ("--gradient_accumulation_steps", "--lora_r", "--max_feedback_turns", "--problem_column"):
        assert flag in text


def train_error(capsys, argv: list[str]) -> str:
    """Runs `trl-mulferl train ARGV`, expecting exit code 2 and a one-line message."""
    with pytest.raises(SystemExit) as exit:
        cli(["train", *argv])
    assert exit.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trl-mulferl train: error: "), captured.err
    return lines[0]


def test_train_without_arguments_says_what_is_missing(capsys):
    message = train_error(capsys, [])
    assert "nothing to train" in message and "--config" in message and "--model_name_or_path" in message


def test_train_with_a_missing_recipe_is_one_line(capsys):
    assert "no recipe at missing.yaml" in train_error(capsys, ["--config", "missing.yaml"])


def test_train_names_a_misspelled_recipe_key_before_the_bf16_check(capsys, tmp_path):
    # A GPU recipe on this CPU machine would fail on bf16 first and hide the typo.
    recipe = (REPO / "recipes" / "mulferl_qwen2.5-7b-base.yaml").read_text() + "learnig_rate: 1.0e-5\n"
    (tmp_path / "recipe.yaml").write_text(recipe)
    message = train_error(capsys, ["--config", str(tmp_path / "recipe.yaml")])
    assert "unknown field 'learnig_rate'" in message and "did you mean learning_rate?" in message


def test_train_names_a_misspelled_option(capsys):
    message = train_error(capsys, ["--config", str(REPO / "recipes" / "tiny_cpu.yaml"), "--max_stpes", "3"])
    assert "unknown option --max_stpes (did you mean --max_steps?)" in message


def test_train_names_a_missing_local_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no tiny-mulferl/ here
    message = train_error(capsys, ["--config", str(REPO / "recipes" / "tiny_cpu.yaml")])
    assert "model_name_or_path: no folder ./tiny-mulferl/model" in message and "make-tiny" in message


def test_train_reports_a_config_error_in_one_line(capsys, tmp_path):
    (tmp_path / "model").mkdir()
    message = train_error(
        capsys,
        ["--model_name_or_path", str(tmp_path / "model"), "--dataset_name", "x", "--use_cpu", "true"]
        + ["--bf16", "false", "--output_dir", str(tmp_path), "--num_generations", "1"],
    )
    assert "num_generations" in message


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tiny") / "tiny-mulferl"
    cli(["make-tiny", str(directory)])
    return directory


def test_make_tiny_writes_a_model_and_sums(tiny_dir):
    from datasets import load_dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trl_mulferl import make_conversation
    from trl_mulferl.tiny import sum_operands

    dataset = load_dataset(str(tiny_dir / "data"))
    assert {split: len(rows) for split, rows in dataset.items()} == {"train": 35, "test": 20}
    train_pairs = {sum_operands(row["problem"]) for row in dataset["train"]}
    assert train_pairs.isdisjoint({sum_operands(row["problem"]) for row in dataset["test"]})
    assert all(int(row["answer"]) == sum(sum_operands(row["problem"])) for row in dataset["train"])
    tokenizer = AutoTokenizer.from_pretrained(tiny_dir / "model")
    model = AutoModelForCausalLM.from_pretrained(tiny_dir / "model")
    assert model.config.vocab_size == len(tokenizer) and model.config.num_hidden_layers == 2
    # Trained on the system prompt: a schema-asking prompt stays short enough for CPU runs.
    prompt = tokenizer.apply_chat_template(make_conversation(dataset["train"][0]["problem"]), tokenize=True)
    assert len(prompt["input_ids"] if isinstance(prompt, dict) else prompt) < 200


def test_train_reports_an_unimportable_function_in_one_line(capsys, tiny_dir, tmp_path):
    arguments = ["--model_name_or_path", str(tiny_dir / "model"), "--dataset_name", str(tiny_dir / "data")]
    arguments += ["--use_cpu", "true", "--bf16", "false", "--output_dir", str(tmp_path), "--max_feedback_turns", "0"]
    message = train_error(capsys, arguments + ["--reward_funcs", "trl_mulferl.tiny.no_such_reward"])
    assert "reward_funcs: cannot import 'trl_mulferl.tiny.no_such_reward'" in message
    message = train_error(
        capsys,
        arguments
        + ["--feedback_function", "trl_mulferl.tiny:checker_feedback", "--feedback_provider", "openai"]
        + ["--feedback_model", "gpt-4o"],
    )
    assert "feedback_function" in message and "feedback_provider" in message and "keep one" in message
