import importlib
import json
import re
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


def help_entries(text: str) -> dict[str, str]:
    """Each flag of the short --help and its text: an entry is a line `  FLAG  TEXT` or `  FLAG` alone, continued by
    the lines indented to the text's column."""
    entries, flag = {}, None
    for line in text.splitlines():
        if line.startswith("  -"):
            flag, _, rest = line[2:].partition("  ")
            entries[flag] = rest.strip()
        elif flag is not None and line.startswith(" " * 32):
            entries[flag] += " " + line.strip()
        else:
            flag = None
    return {flag: entry.strip() for flag, entry in entries.items()}


def test_train_help_gives_every_flag_its_own_text_in_whole_sentences(capsys):
    from dataclasses import fields

    from trl import GRPOConfig

    from trl_mulferl.mulferl.mulferl_config import MulFeRLConfig
    from trl_mulferl.train import COMMON_FIELDS, MathScriptArguments

    cli(["train", "--help"])
    text = capsys.readouterr().out
    entries = help_entries(text)
    grpo_fields = {f.name for f in fields(GRPOConfig)}
    names = [f.name for f in fields(MathScriptArguments)] + list(COMMON_FIELDS)
    names += [f.name for f in fields(MulFeRLConfig) if f.name not in grpo_fields]
    for name in names:
        # The flag, then whitespace (spaces or a line break), then its text: never run into it.
        assert re.search(rf"^  --{name}\s+\S", text, re.MULTILINE), name
        assert entries[f"--{name}"].endswith("."), name
    for flag, entry in entries.items():
        # No sentence cut inside a parenthesis ("(eq. 13 as written)" was cut to "(eq.").
        assert entry.count("(") == entry.count(")"), (flag, entry)
    assert "(eq. 13 as written)" in entries["--fco_score_normalization"]
    # An unset default says what it means, in the field's own words.
    assert entries["--bf16"].endswith("If not set, it defaults to `True` if `fp16` is not set.")
    assert entries["--max_feedback_groups_per_step"].endswith("None: no cap (paper).")


@pytest.mark.parametrize(
    ("help_text", "sentences"),
    [
        (
            "Score: 'sum' or their 'mean' (eq. 13 as written). Next.",
            ["Score: 'sum' or their 'mean' (eq. 13 as written).", "Next."],
        ),
        ("A path, e.g. `a.b:c`. The alternative", ["A path, e.g. `a.b:c`.", "The alternative."]),
        ("Paper (a. b) here, i.e. there", ["Paper (a. b) here, i.e. there."]),
        ("One. 0 disables it.", ["One.", "0 disables it."]),
    ],
)
def test_help_sentences_split_outside_parentheses_and_abbreviations(help_text, sentences):
    from trl_mulferl.train import help_sentences

    assert help_sentences(help_text) == sentences


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
    # Besides it, only progress bars (of loading the dataset or the model), if it got that far.
    lines = [line for line in captured.err.splitlines() if line.strip() and not re.search(r"%\||examples/s\]", line)]
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


def tiny_arguments(tiny_dir, tmp_path) -> list[str]:
    """A one-process CPU run of the tiny model on its sums, without feedback turns unless the test adds them."""
    arguments = ["--model_name_or_path", str(tiny_dir / "model"), "--dataset_name", str(tiny_dir / "data")]
    arguments += ["--use_cpu", "true", "--bf16", "false", "--output_dir", str(tmp_path / "out")]
    return arguments + ["--reward_funcs", "digit", "--report_to", "none", "--max_steps", "1"]


NO_FEEDBACK = ["--max_feedback_turns", "0"]


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("mistake", "expected"),
    [
        (
            ["--feedback_provider", "openai", "--feedback_model", "m"]
            + ["--feedback_base_url", "http://127.0.0.1:{port}/v1"],
            "feedback endpoint http://127.0.0.1:{port}/v1 is unreachable",
        ),
        (["--feedback_provider", "openai", "--feedback_model", "gpt-4o"], "OPENAI_API_KEY is not set"),
        (["--feedback_provider", "column", "--feedback_column", "hint"], "reads the column 'hint'"),
        (
            ["--feedback_function", "trl_mulferl.tiny:digit_reward"],
            "The feedback provider 'digit_reward' cannot be called as provider(prompt, completions, rewards, **columns)",
        ),
        (["--dataset_train_split", "training"], "dataset_train_split: the dataset"),
        (["--eval_strategy", "steps", "--dataset_test_split", "dev"], "has no split 'dev' (it has ['train', 'test'])"),
    ],
    ids=[
        "unreachable server",
        "missing API key",
        "missing feedback column",
        "provider of another signature",
        "unknown train split",
        "unknown test split",
    ],
)
def test_train_reports_a_mistake_found_building_the_trainer_in_one_line(
    capsys, tiny_dir, tmp_path, monkeypatch, mistake, expected
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    port = closed_port()
    message = train_error(capsys, tiny_arguments(tiny_dir, tmp_path) + [part.format(port=port) for part in mistake])
    assert expected.format(port=port) in message


def test_train_reports_a_refused_api_key_in_one_line(capsys, tiny_dir, tmp_path, monkeypatch):
    from tests.helpers.fault_server import FaultServer

    monkeypatch.setenv("FEEDBACK_KEY", "wrong")
    with FaultServer(api_key="right") as server:
        feedback = ["--feedback_provider", "openai", "--feedback_model", "fault-model", "--feedback_base_url"]
        feedback += [server.base_url, "--feedback_api_key_env", "FEEDBACK_KEY"]
        message = train_error(capsys, tiny_arguments(tiny_dir, tmp_path) + feedback)
    assert message.endswith(
        f"The feedback endpoint {server.base_url} refused the API key from the variable named by api_key_env "
        "(feedback_api_key_env in the config) (HTTP 401)."
    )


def test_train_names_a_wrongly_typed_recipe_value(capsys, tmp_path):
    recipe = (REPO / "recipes" / "tiny_cpu.yaml").read_text().replace("fco_weight: 0.01", "fco_weight: [1, 2]")
    (tmp_path / "recipe.yaml").write_text(recipe)
    message = train_error(capsys, ["--config", str(tmp_path / "recipe.yaml")])
    assert message.endswith(f"fco_weight in {tmp_path / 'recipe.yaml'}: [1, 2] is not a number; the default is 0.01")
    # YAML reads an unquoted no as false, which a strategy field cannot take.
    (tmp_path / "recipe.yaml").write_text(recipe.replace('save_strategy: "no"', "save_strategy: no"))
    message = train_error(capsys, ["--config", str(tmp_path / "recipe.yaml")])
    assert "save_strategy in" in message and "False is not one of no, steps" in message and "quote it" in message


def build_from(argv: list[str]):
    from trl_mulferl.train import build_trainer, make_parser

    return build_trainer(*make_parser().parse_args_and_config(argv))


def test_train_evaluates_on_dataset_test_split_as_trl_does(tiny_dir, tmp_path):
    arguments = tiny_arguments(tiny_dir, tmp_path) + NO_FEEDBACK
    trainer = build_from(arguments + ["--eval_strategy", "steps", "--eval_steps", "1"])
    test_rows = {row["problem"]: row["answer"] for row in load_tiny_split(tiny_dir, "test")}
    assert len(trainer.eval_dataset) == len(test_rows) == 20
    assert {row["prompt"][-1]["content"]: row["solution"] for row in trainer.eval_dataset} == test_rows
    assert build_from(arguments).eval_dataset is None  # eval_strategy "no": none loaded


def load_tiny_split(tiny_dir, split: str):
    from datasets import load_dataset

    return load_dataset(str(tiny_dir / "data"), split=split)


def test_train_keeps_the_dataset_columns_for_a_column_provider(tiny_dir, tmp_path):
    data = tmp_path / "hinted"
    train = load_tiny_split(tiny_dir, "train")
    train.map(lambda row: {"hint": f"count up from {row['problem'][:1]}"}).to_json(str(data / "train.jsonl"))
    arguments = tiny_arguments(tiny_dir, tmp_path) + ["--dataset_name", str(data), "--max_feedback_turns", "1"]
    trainer = build_from(arguments + ["--feedback_provider", "column", "--feedback_column", "hint"])
    assert trainer.train_dataset.column_names == ["hint", "prompt", "solution"]
    assert trainer.train_dataset[0]["hint"] == f"count up from {train[0]['problem'][:1]}"


def test_train_imports_reward_functions_from_the_current_folder(tiny_dir, tmp_path, monkeypatch):
    """As under `accelerate launch -m`: the console script does not put the current folder on sys.path itself."""
    (tmp_path / "my_rewards.py").write_text(
        "def my_reward(completions, **kwargs):\n    return [0.0] * len(completions)\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", ".", str(tmp_path))])
    trainer = build_from(tiny_arguments(tiny_dir, tmp_path) + NO_FEEDBACK + ["--reward_funcs", "my_rewards.my_reward"])
    assert [func.__name__ for func in trainer.reward_funcs] == ["my_reward"]


def test_train_takes_short_reward_names_as_trl_does(capsys, tiny_dir, tmp_path):
    arguments = tiny_arguments(tiny_dir, tmp_path) + NO_FEEDBACK + ["--max_completion_length", "20"]
    names = ["accuracy", "digit", "think_format_reward", "get_soft_overlong_punishment"]
    trainer = build_from(arguments + ["--reward_funcs", *names])
    assert [func.__module__ + "." + func.__name__ for func in trainer.reward_funcs[:3]] == [
        "trl_mulferl.core.rewards.accuracy_reward",
        "trl_mulferl.tiny.digit_reward",
        "trl.rewards.format_rewards.think_format_reward",
    ]
    # TRL's factory, built for this run's length: no penalty up to 16 tokens, -1 at 20.
    assert trainer.reward_funcs[3](completion_ids=[[0] * 16, [0] * 18, [0] * 20]) == [0.0, -0.5, -1.0]
    message = train_error(capsys, arguments + ["--reward_funcs", "acuracy"])
    assert "reward_funcs: no reward named 'acuracy' (did you mean accuracy?)" in message


def card_statistics(trainer) -> list[str]:
    """The card's statistics lines, computed here from the trainer's logged metrics (the same prompts each step)."""
    steps = [log for log in trainer.state.log_history if "mulferl/route/grpo" in log]
    share = sum(log["mulferl/route/grpo"] + log["mulferl/route/fco"] for log in steps) / len(steps)
    reached = sum(log["mulferl/turn_1/reached_groups"] for log in steps)
    rescued = reached - sum(log["mulferl/turn_1/failed_groups"] for log in steps)
    requests = sum(log["mulferl/feedback/requests"] for log in steps)  # one generation batch per logged step
    return [
        f"\n- feedback turn 1: rescued {rescued:g} of the {reached:g} failed groups it regenerated",
        f"\n- prompts with a gradient: {share:.1%} (",
        f"\n- feedback cost: {requests:g} requests, ",  # the checker reports no tokens
        "\n- cost: not priced\n",
    ]


def test_train_writes_a_model_card_of_the_run_and_resumes_it(tiny_dir, tmp_path):
    from trl_mulferl.train import main as train

    feedback = ["--max_feedback_turns", "1", "--feedback_function", "trl_mulferl.tiny:checker_feedback"]
    run = tiny_arguments(tiny_dir, tmp_path) + feedback + ["--logging_steps", "1", "--max_completion_length", "16"]
    run += ["--save_steps", "1"]
    trainer = train(run + ["--max_steps", "2"])
    card = (tmp_path / "out" / "README.md").read_text()
    assert "None" not in card
    assert card.startswith("---\n") and "model_name: out\n" in card and "\n# Model Card for out\n" in card
    # Local paths are named, never linked as Hub pages; the quick start loads the saved folder.
    assert f"of the local model `{tiny_dir / 'model'}` on the local dataset `{tiny_dir / 'data'}`.\n" in card
    assert "huggingface.co/datasets" not in card and f"huggingface.co/{tiny_dir}" not in card
    assert f'pipeline("text-generation", model="{tmp_path / "out"}"' in card
    for row in (
        "| `max_feedback_turns` | 1 |",
        "| `feedback_provider` | `trl_mulferl.tiny:checker_feedback` |",
        "| `feedback_injection` | structured |",
        "| `fco_weight` | 0.01 |",
        "| `fco_tau` | 0.005 |",
        "| `feedback_replay` | False |",
    ):
        assert row in card
    assert "@misc{li2026mulferl," in card
    assert len([log for log in trainer.state.log_history if "mulferl/route/grpo" in log]) == 2
    for line in card_statistics(trainer):
        assert line in card, (line, card)

    # Resumed from its last checkpoint for one more step: the card's statistics cover the whole run.
    resumed = train(run + ["--max_steps", "3", "--resume_from_checkpoint", str(tmp_path / "out" / "checkpoint-2")])
    card = (tmp_path / "out" / "README.md").read_text()
    assert len([log for log in resumed.state.log_history if "mulferl/route/grpo" in log]) == 3
    for line in card_statistics(resumed):
        assert line in card, (line, card)


def write_trl_dataset(tiny_dir, folder: Path, shape: str, system: str | None = None) -> list[dict]:
    """The tiny sums as TRL's math datasets have them: `prompt` (a conversation, or plain text) and `solution`."""
    rows = []
    for row in load_tiny_split(tiny_dir, "train"):
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": row["problem"]}
        ]
        rows.append({"prompt": messages if shape == "conversational" else row["problem"], "solution": row["answer"]})
    folder.mkdir(parents=True)
    (folder / "train.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return rows


PROBLEMS_SEEN = """seen = []


def recording_feedback(prompt, completions, rewards, **columns):
    seen.append(prompt)
    return "Issue: the sum is wrong. Fix steps: 1. Count up from the first number."
"""


@pytest.mark.parametrize("shape", ["conversational", "plain"])
def test_train_takes_trl_prompts_as_they_are(tiny_dir, tmp_path, monkeypatch, shape):
    """`trl-mulferl train` on a dataset of TRL's shape, one step with a feedback turn: a conversation gets MulFeRL's
    system prompt (it has none), plain text is kept as it is, and the feedback provider is shown the problem."""
    from trl_mulferl import SYSTEM_PROMPT
    from trl_mulferl.train import main as train

    rows = write_trl_dataset(tiny_dir, tmp_path / "data", shape)
    (tmp_path / f"feedback_{shape}.py").write_text(PROBLEMS_SEEN)
    monkeypatch.chdir(tmp_path)
    run = tiny_arguments(tiny_dir, tmp_path) + ["--dataset_name", str(tmp_path / "data")]
    run += ["--max_feedback_turns", "1", "--feedback_function", f"feedback_{shape}:recording_feedback"]
    trainer = train(run + ["--max_completion_length", "8"])
    assert trainer.state.global_step == 1 and (tmp_path / "out" / "model.safetensors").exists()
    assert trainer.train_dataset.column_names == ["prompt", "solution"]
    expected = [
        [{"role": "system", "content": SYSTEM_PROMPT}, *row["prompt"]] if shape == "conversational" else row["prompt"]
        for row in rows
    ]
    assert trainer.train_dataset["prompt"] == expected
    assert trainer.train_dataset["solution"] == [row["solution"] for row in rows]
    seen = sys.modules[f"feedback_{shape}"].seen
    problems = {row["prompt"][-1]["content"] if shape == "conversational" else row["prompt"] for row in rows}
    assert seen and set(seen) <= problems  # the last user message, or the plain prompt


def test_make_math_dataset_takes_a_column_of_conversations_as_the_prompts():
    """`--problem_column prompt` on conversations (the issue's command) used to nest each in a second conversation."""
    from datasets import Dataset

    from trl_mulferl import SYSTEM_PROMPT
    from trl_mulferl.train import make_math_dataset

    user = [{"role": "user", "content": "What is 1 + 1?"}]
    own_system = [{"role": "system", "content": "Think step by step."}, *user]
    dataset = Dataset.from_list([{"prompt": user, "solution": 2}, {"prompt": own_system, "solution": 3}])
    schema = [{"role": "system", "content": SYSTEM_PROMPT}, *user]
    for problem_column, answer_column in ((None, None), ("prompt", "solution")):
        rows = make_math_dataset(dataset, problem_column, answer_column).to_list()
        assert rows == [{"prompt": schema, "solution": "2"}, {"prompt": own_system, "solution": "3"}]
    # schema_system_prompt=False: the conversations exactly as they are, and a problem as a lone user message.
    assert make_math_dataset(dataset, None, None, schema_system_prompt=False)["prompt"] == [user, own_system]
    problems = Dataset.from_list([{"problem": "What is 1 + 1?", "answer": "2", "solution": "1 + 1 = \\boxed{2}"}])
    assert make_math_dataset(problems, None, None, schema_system_prompt=False).to_list() == [
        {"prompt": user, "solution": "2"}  # `answer` before `solution`, which it replaces
    ]
    # A plain `prompt` is TRL's and stays as it is; named as the problem column, it is a problem to put in the schema.
    plain = Dataset.from_list([{"prompt": "What is 1 + 1?", "solution": "2"}])
    assert make_math_dataset(plain, None, None)["prompt"] == ["What is 1 + 1?"]
    assert make_math_dataset(plain, "prompt", None)["prompt"] == [schema]
    with pytest.raises(ValueError, match=r"no column 'prompt' or 'problem' \(it has \['question', 'solution'\]\)"):
        make_math_dataset(Dataset.from_list([{"question": "1 + 1?", "solution": "2"}]), None, None)


def test_train_answers_every_flag_of_trl_grpo():
    """Every flag of `trl grpo` is a flag of `trl-mulferl train` (used with TRL's meaning, or refused in one line by
    `test_train_refuses_a_trl_flag_it_would_ignore_in_one_line`): none gets a misleading "did you mean"."""
    from trl.scripts.grpo import make_parser as trl_grpo_parser

    from trl_mulferl.train import make_parser

    ours = {action.dest for action in make_parser()._actions}
    assert {action.dest for action in trl_grpo_parser()._actions} - ours == set()


@pytest.mark.parametrize(
    ("flag", "replacement"),
    [(["--ignore_bias_buffers", "true"], "use --ddp_broadcast_buffers false instead")],
    ids=["ignore_bias_buffers"],
)
def test_train_refuses_a_trl_flag_it_would_ignore_in_one_line(capsys, tiny_dir, tmp_path, flag, replacement):
    message = train_error(capsys, tiny_arguments(tiny_dir, tmp_path) + flag)
    assert message.endswith(replacement) and "did you mean" not in message


def test_train_loads_a_reward_model_as_trl_does(tiny_dir, tmp_path):
    """As TRL's script: the reward model first, loaded by TRL as a one-label sequence classifier; alone when no
    reward_funcs are given."""
    from transformers import PreTrainedModel

    from trl_mulferl.train import main as train

    run = tiny_arguments(tiny_dir, tmp_path)
    run = run[: run.index("--reward_funcs")] + ["--max_steps", "1", "--report_to", "none"]
    run += ["--reward_model_name_or_path", str(tiny_dir / "model"), "--max_completion_length", "8"] + NO_FEEDBACK
    trainer = train(run)
    [reward_model] = trainer.reward_funcs
    assert isinstance(reward_model, PreTrainedModel) and reward_model.config.num_labels == 1
    assert type(reward_model).__name__ == "Qwen2ForSequenceClassification" and trainer.state.global_step == 1
    assert trainer.reward_func_names == [str(tiny_dir / "model").split("/")[-1]]
    both = build_from(run + ["--reward_funcs", "digit"])
    assert [type(func).__name__ for func in both.reward_funcs] == ["Qwen2ForSequenceClassification", "function"]


def test_train_loads_a_datasets_mixture_as_trl_does(tiny_dir, tmp_path):
    from trl_mulferl.train import find_argument_problem, make_parser

    write_trl_dataset(tiny_dir, tmp_path / "conversational", "conversational")
    write_trl_dataset(tiny_dir, tmp_path / "own_system", "conversational", system="Think step by step.")
    arguments = tiny_arguments(tiny_dir, tmp_path)
    arguments = arguments[arguments.index("--use_cpu") :] + ["--model_name_or_path", str(tiny_dir / "model")]
    mixture = ["--datasets", str(tmp_path / "conversational"), str(tmp_path / "own_system")]
    split = ["--test_split_size", "0.2", "--eval_strategy", "steps"]
    # As in TRL's script, the mixture wins over a dataset_name (the tiny sums: 35 train and 20 test rows).
    trainer = build_from(arguments + NO_FEEDBACK + mixture + split + ["--dataset_name", str(tiny_dir / "data")])
    assert (len(trainer.train_dataset), len(trainer.eval_dataset)) == (56, 14)
    own = [row for row in trainer.train_dataset if row["prompt"][0]["content"] == "Think step by step."]
    assert 0 < len(own) < 56 and all(len(row["prompt"]) == 2 for row in trainer.train_dataset)
    # In a recipe, as TRL's DatasetMixtureConfig documents it: a list of load_dataset arguments.
    recipe = {"datasets": [{"path": str(tmp_path / "conversational"), "fraction": 1}]}
    recipe["datasets"].append({"path": str(tmp_path / "own_system"), "fraction": 3})
    (tmp_path / "recipe.yaml").write_text(json.dumps(recipe))  # JSON is YAML
    from_recipe = ["--config", str(tmp_path / "recipe.yaml"), *arguments, *NO_FEEDBACK]
    assert find_argument_problem(make_parser(), from_recipe) is None
    prompts = build_from(from_recipe).train_dataset["prompt"]
    # TRL's fractions: 1 to 3, as large as the 35 rows of each allow without oversampling.
    assert (
        len(prompts) == 35 + round(35 / 3)
        and sum(prompt[0]["content"] == "Think step by step." for prompt in prompts) == 35
    )


def test_train_streams_the_dataset_as_trl_does(capsys, tiny_dir, tmp_path):
    from datasets import IterableDataset

    rows = write_trl_dataset(tiny_dir, tmp_path / "plain", "plain")
    arguments = tiny_arguments(tiny_dir, tmp_path) + NO_FEEDBACK + ["--dataset_name", str(tmp_path / "plain")]
    trainer = build_from(arguments + ["--dataset_streaming", "true"])
    assert isinstance(trainer.train_dataset, IterableDataset)
    assert next(iter(trainer.train_dataset)) == rows[0]
    message = train_error(capsys, arguments + ["--dataset_streaming", "true", "--max_steps", "-1"])
    assert "max_steps has to be specified" in message
