"""Train MulFeRL on a math dataset from a YAML recipe, as TRL's own scripts do.

    accelerate launch -m trl_mulferl.train --config recipes/mulferl_qwen2.5-7b-base.yaml
    trl-mulferl train --config recipes/mulferl_qwen3-4b-instruct-2507.yaml --max_steps 10   # same, one process

Every key of the recipe is a field of `MathScriptArguments`, `MulFeRLConfig`, `trl.ModelConfig` or
`trl.DatasetMixtureConfig` (the four dataclasses of TRL's `trl grpo`, with MulFeRL's in place of TRL's), and any of
them can be overridden on the command line. A dataset's `prompt` column is taken as TRL takes it, a `problem` column
becomes a conversational prompt asking for the MulFeRL schema, and the answer column becomes the reference final
answer (`solution`) that the reward functions receive (`make_math_dataset`).
"""

import atexit
import enum
import importlib
import logging
import os
import re
import shutil
import sys
import textwrap
import threading
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path

import torch
import yaml
from datasets import Value, load_dataset
from trl import (
    DatasetMixtureConfig,
    GRPOConfig,
    ModelConfig,
    ScriptArguments,
    TrlParser,
    get_dataset,
    get_peft_config,
    get_quantization_config,
)
from trl.data_utils import is_conversational

from .cli import did_you_mean
from .core.schema import SYSTEM_PROMPT, make_conversation
from .mulferl.mulferl_config import MulFeRLConfig
from .mulferl.mulferl_trainer import MulFeRLTrainer


logger = logging.getLogger(__name__)

USAGE = "trl-mulferl train [--config RECIPE.yaml] [--FIELD VALUE ...]"
DESCRIPTION = (
    "Train MulFeRL from a YAML recipe whose keys are the fields below; FIELD VALUE pairs on the command line override "
    "it. One process; for several: accelerate launch -m trl_mulferl.train --config RECIPE.yaml."
)
# A period and whitespace end a sentence, but not after these abbreviations ("e.g. `x`", "eq. 13").
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\beq)(?<!\bcf)(?<!\bvs)\.\s+")
# The sentence of a help text that says what an unset field (default None) does.
UNSET_DEFAULT = re.compile(r"^(None|Default)\b|\bnot set\b|\bdefaults? to\b")
HELP_COLUMN = 32  # where the short --help's texts start, after two spaces of indent and the flag
# The GRPOConfig and ModelConfig fields a recipe nearly always sets, listed by the short --help.
COMMON_FIELDS = (
    "model_name_or_path",
    "dtype",
    "use_peft",
    "output_dir",
    "max_steps",
    "learning_rate",
    "per_device_train_batch_size",
    "num_generations",
    "max_completion_length",
    "beta",
    "loss_type",
    "use_cpu",
    "bf16",
    "report_to",
)


# Short names for `reward_funcs`, as TRL's scripts/grpo.py has: the project's rewards, and TRL's own under TRL's names.
REWARD_FUNCS = {
    "accuracy": "trl_mulferl.core.rewards:accuracy_reward",
    "digit": "trl_mulferl.tiny:digit_reward",
    "addition": "trl_mulferl.demo.addition:addition_reward",
    "accuracy_reward": "trl.rewards:accuracy_reward",
    "reasoning_accuracy_reward": "trl.rewards:reasoning_accuracy_reward",
    "think_format_reward": "trl.rewards:think_format_reward",
    "get_soft_overlong_punishment": "trl.rewards:get_soft_overlong_punishment",
}


@dataclass
class MathScriptArguments(ScriptArguments):
    """
    Script arguments for `trl_mulferl.train`: TRL's dataset arguments and those of TRL's `GRPOScriptArguments`
    (`reward_model_name_or_path`, `reward_funcs`), the columns that hold the prompt or problem and its reference final
    answer, whether prompts get MulFeRL's system prompt, and an optional feedback function.
    """

    problem_column: str | None = field(
        default=None,
        metadata={
            "help": "Column of problem texts, each made a conversation that asks for the schema. A column of "
            "conversations is taken as the prompts. When not set, `prompt` as TRL takes it, or else `problem`."
        },
    )
    answer_column: str | None = field(
        default=None,
        metadata={
            "help": "Column of reference final answers. A solution whose \\boxed{} holds it serves too. When not "
            "set, `answer`, or else `solution` (TRL's name)."
        },
    )
    schema_system_prompt: bool = field(
        default=True,
        metadata={
            "help": "Give conversations without a system message MulFeRL's, which asks for the answer schema. The "
            "schema-gated `accuracy` and the feedback turns need it. False: conversations as the dataset has them, "
            "and a problem as a lone user message. Plain-text prompts are never changed."
        },
    )
    reward_model_name_or_path: str | None = field(
        default=None,
        metadata={
            "help": "A reward model (Hub id or folder), put before reward_funcs as in TRL's script. TRL loads it as "
            "a sequence classifier with one label."
        },
    )
    reward_funcs: list[str] | None = field(
        default=None,
        metadata={
            "help": "Reward functions, called as TRL calls them with the reference answer in `solution`: short names "
            f"({', '.join(REWARD_FUNCS)}) or import paths (`package.module.function` or `package.module:function`). "
            "`accuracy` is MulFeRL's schema-gated `trl_mulferl.core.rewards.accuracy_reward`, the `*_reward` ones "
            "TRL's; `get_soft_overlong_punishment` is built with TRL's script's proportions, a cache of a fifth of "
            "max_completion_length. Import paths are looked up from the current folder too. When not set, `accuracy` "
            "(none with a reward model)."
        },
    )
    feedback_function: str | None = field(
        default=None,
        metadata={
            "help": "A feedback provider as an import path (`package.module:function`), called as "
            "(prompt, completions, rewards, **columns) -> str, e.g. `trl_mulferl.tiny:checker_feedback`. The "
            "alternative to `feedback_provider: openai`."
        },
    )


BOOLEAN_STRINGS = {"true", "false", "yes", "no", "t", "f", "y", "n", "1", "0"}  # transformers' string_to_bool


class ScriptArgumentError(ValueError):
    """A script argument that cannot be used as given; `trl-mulferl train` reports it in one line."""


def make_math_dataset(
    dataset, problem_column: str | None, answer_column: str | None, schema_system_prompt: bool = True
):
    """Rows of `prompt` and `solution` (the reference answer, as text), with the dataset's other columns, which reward
    functions and feedback providers receive (as in TRL's scripts/grpo.py).

    The prompt is TRL's own `prompt` column when `problem_column` is not set and the dataset has one: a conversation
    is kept (wrapping it again would nest it in a second one), plain text is kept as it is (TRL applies no chat
    template to it, so it is the exact text the model continues). Otherwise each problem text becomes a conversation
    asking for the schema (`make_conversation`). With `schema_system_prompt`, a conversation without a system message
    gets MulFeRL's, as `make_conversation` gives one: MulFeRL's `accuracy` scores only answers in the schema, so a
    prompt that never asks for it would give every group a reward of 0. A conversation's own system message is kept.
    Feedback providers are shown the last user message either way (`trl_mulferl.feedback.problem_text`).
    """
    first_row = next(iter(dataset), {})
    columns = dataset.column_names or list(first_row)  # a streamed dataset may not know its columns before a row
    takes_trl_prompt = problem_column is None and "prompt" in columns
    problem_column = dataset_column(columns, problem_column, ("prompt", "problem"), "problem_column", "the problem")
    answer_column = dataset_column(columns, answer_column, ("answer", "solution"), "answer_column", "its answer")
    system_prompt = SYSTEM_PROMPT if schema_system_prompt else None

    def prompt(value):
        if is_conversational({"prompt": value}):
            has_system_message = value[0]["role"] == "system"
            if has_system_message or system_prompt is None:
                return value
            return [{"role": "system", "content": system_prompt}, *value]
        return value if takes_trl_prompt else make_conversation(value, system_prompt)

    dataset = dataset.map(
        lambda row: {"prompt": prompt(row[problem_column]), "solution": str(row[answer_column])},
        remove_columns=list({problem_column, answer_column}),
    )
    # `map` casts a column it rewrites back to its old type where it can: a numeric `solution` would stay numeric.
    if dataset.features is not None and dataset.features["solution"] != Value("string"):
        dataset = dataset.cast_column("solution", Value("string"))
    return dataset


def dataset_column(columns: list[str], name: str | None, defaults: tuple[str, ...], field_name: str, what: str) -> str:
    """The column `name`, or when it is not set the first of `defaults` that the dataset has."""
    if name is None:
        name = next((column for column in defaults if column in columns), None)
    if name in columns:
        return name
    wanted = " or ".join(repr(column) for column in defaults) if name is None else repr(name)
    raise ScriptArgumentError(
        f"The dataset has no column {wanted} (it has {columns}). Set --{field_name} ({field_name} in the recipe) to "
        f"the column that holds {what}."
    )


def import_function(path: str, field_name: str):
    """The function at the import path `package.module.function` or `package.module:function`, looked up from the
    current folder too, as `python -m` and TRL's scripts do (the console script does not put it on the path)."""
    module_name, _, name = path.partition(":") if ":" in path else path.rpartition(".")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as error:
        raise ScriptArgumentError(
            f"{field_name}: cannot import {path!r} ({error}); give an import path such as "
            "'trl_mulferl.tiny:checker_feedback'."
        ) from error


def reward_function(name: str, training_args: MulFeRLConfig):
    """The reward function `reward_funcs` names: a short name of `REWARD_FUNCS`, or an import path."""
    if name not in REWARD_FUNCS and "." not in name and ":" not in name:
        raise ScriptArgumentError(
            f"reward_funcs: no reward named {name!r}{did_you_mean(name, list(REWARD_FUNCS))}; give one of "
            f"{', '.join(REWARD_FUNCS)}, or an import path such as 'my_rewards.my_reward'."
        )
    function = import_function(REWARD_FUNCS.get(name, name), "reward_funcs")
    if name == "get_soft_overlong_punishment":  # a factory: TRL's script builds it with 1280 and 256 tokens
        length = training_args.max_completion_length
        return function(max_completion_len=length, soft_punish_cache=length // 5)
    return function


def load_datasets(script_args: MathScriptArguments, dataset_args: DatasetMixtureConfig):
    """The dataset's splits, loaded as TRL's scripts/grpo.py loads them: the `datasets` mixture when there is one
    (`dataset_name` then ignored, with a warning), else `dataset_name`, streamed with `dataset_streaming`."""
    if dataset_args.datasets:
        if script_args.dataset_name:
            logger.warning(
                "Both `datasets` and `dataset_name` are given: the `datasets` mixture is loaded, `dataset_name` ignored."
            )
        return get_dataset(dataset_args)
    return load_dataset(
        script_args.dataset_name, name=script_args.dataset_config, streaming=script_args.dataset_streaming
    )


def load_split(script_args: MathScriptArguments, dataset, field_name: str, source: str):
    """The split `script_args.<field_name>` names, in `make_math_dataset`'s rows."""
    split = getattr(script_args, field_name)
    if split not in dataset:
        raise ScriptArgumentError(
            f"{field_name}: {source} has no split {split!r} (it has {list(dataset)}); set --{field_name} "
            f"({field_name} in the recipe) to one of them."
        )
    return make_math_dataset(
        dataset[split], script_args.problem_column, script_args.answer_column, script_args.schema_system_prompt
    )


def build_trainer(
    script_args: MathScriptArguments,
    training_args: MulFeRLConfig,
    model_args: ModelConfig,
    dataset_args: DatasetMixtureConfig,
):
    """The `MulFeRLTrainer` a recipe describes, with its dataset loaded and its functions imported."""
    # As TRL's scripts/grpo.py: the reward model first (TRL loads it from its name), then the reward functions.
    reward_model = script_args.reward_model_name_or_path
    names = script_args.reward_funcs
    if names is None:  # a reward model alone is the whole reward, as in TRL's script; else MulFeRL's `accuracy`
        names = [] if reward_model else ["accuracy"]
    reward_funcs = ([reward_model] if reward_model else []) + [reward_function(name, training_args) for name in names]
    feedback_provider = None
    if script_args.feedback_function is not None:
        if training_args.feedback_provider is not None:
            raise ScriptArgumentError(
                f"feedback_function ({script_args.feedback_function}) and feedback_provider "
                f"({training_args.feedback_provider}) both choose the feedback provider; keep one."
            )
        feedback_provider = import_function(script_args.feedback_function, "feedback_function")
    # As TRL's own scripts/grpo.py: the model arguments become the policy's (and the reference's) loading arguments.
    training_args.model_init_kwargs = {
        "revision": model_args.model_revision,
        "trust_remote_code": training_args.trust_remote_code,
        "attn_implementation": model_args.attn_implementation,
        "dtype": model_args.dtype,
        **(training_args.model_init_kwargs or {}),
    }
    # As TRL's scripts/grpo.py: every split, the test split evaluated when an eval_strategy asks for it.
    dataset = load_datasets(script_args, dataset_args)
    # A mixture's splits are get_dataset's: `train`, and `test` when test_split_size makes one.
    source = "the `datasets` mixture" if dataset_args.datasets else f"the dataset {script_args.dataset_name}"
    evaluates = training_args.eval_strategy != "no"
    return MulFeRLTrainer(
        model=model_args.model_name_or_path,
        reward_funcs=reward_funcs,
        args=training_args,
        train_dataset=load_split(script_args, dataset, "dataset_train_split", source),
        eval_dataset=load_split(script_args, dataset, "dataset_test_split", source) if evaluates else None,
        feedback_provider=feedback_provider,
        quantization_config=get_quantization_config(model_args),
        peft_config=get_peft_config(model_args),
    )


def make_parser() -> TrlParser:
    return TrlParser(
        (MathScriptArguments, MulFeRLConfig, ModelConfig, DatasetMixtureConfig),
        prog="trl-mulferl train",
        usage=USAGE,
        description=DESCRIPTION,
    )


def help_sentences(text: str) -> list[str]:
    """The sentences of a help text, each with its period: split at a period and whitespace outside parentheses
    ("(eq. 13 as written)" stays whole), not after an abbreviation."""
    sentences, start = [], 0
    for end in SENTENCE_END.finditer(text):
        sentence = text[start : end.start() + 1]
        if sentence.count("(") == sentence.count(")"):
            sentences.append(sentence)
            start = end.end()
    last = text[start:].rstrip()
    return sentences + ([last if last.endswith(".") else last + "."] if last else [])


def short_help_text(help_text: str, default, choices) -> str:
    """A field's line in the short --help: its help's first sentence (argparse escapes % as %%), its choices and its
    default; for a default of None, the help's sentence that says what that means, if it has one."""
    sentences = help_sentences(help_text.replace("%%", "%"))
    text = sentences[0]
    if choices:
        text += f" One of {', '.join(str(choice) for choice in choices)}."
    if default is not None:
        text += f" Default: {default}."
    else:
        text += "".join(f" {sentence}" for sentence in sentences[1:] if UNSET_DEFAULT.search(sentence))
    return text


def short_help(parser: TrlParser) -> str:
    """`--help`: the recipe flags, the script arguments, the MulFeRL fields and the most used others, one entry each."""
    actions = {}
    for action in parser._actions:  # a boolean that defaults to true has a --no_FIELD too: the field's is the first
        actions.setdefault(action.dest, action)
    grpo_fields = {f.name for f in fields(GRPOConfig)}
    sections = {
        "script arguments": [f.name for f in fields(MathScriptArguments) + fields(DatasetMixtureConfig)],
        "MulFeRL fields (MulFeRLConfig)": [f.name for f in fields(MulFeRLConfig) if f.name not in grpo_fields],
        "most used GRPOConfig / ModelConfig fields": list(COMMON_FIELDS),
    }
    width = min(shutil.get_terminal_size().columns, 119)

    def entry(flag: str, text: str) -> str:
        indent = " " * HELP_COLUMN
        if len(flag) > HELP_COLUMN - 4:  # as argparse: a flag too wide for its column gets a line of its own
            return f"  {flag}\n" + textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent)
        return textwrap.fill(text, width, initial_indent=f"  {flag:<{HELP_COLUMN - 2}}", subsequent_indent=indent)

    lines = [f"usage: {USAGE}", "", textwrap.fill(DESCRIPTION, width), "", "recipe:"]
    lines.append(entry("--config RECIPE.yaml", "YAML file of FIELD: VALUE, e.g. recipes/tiny_cpu.yaml"))
    lines.append(entry("-h, --help", "this list"))
    lines.append(entry("--help-all", "every field: GRPOConfig's (with TrainingArguments') and ModelConfig's"))
    for title, names in sections.items():
        lines += ["", f"{title}:"]
        for name in names:
            action = actions[name]
            lines.append(entry(f"--{name}", short_help_text(action.help, action.default, action.choices)))
    return "\n".join(lines) + "\n"


def find_argument_problem(parser: TrlParser, argv: list[str]) -> str | None:
    """What keeps `argv` from describing a run, found before the configs are built.

    Building them runs their own checks first (bf16 on a machine without a GPU, for one), which would hide a missing
    recipe, a misspelled key or a missing model behind an unrelated message.
    """
    args, config, source = list(argv), {}, "the command line"
    if "--config" in args:
        index = args.index("--config")
        if index + 1 == len(args):
            return "--config needs a YAML file, e.g. --config recipes/tiny_cpu.yaml"
        path = Path(args[index + 1])
        if not path.is_file():
            return f"no recipe at {path} (--config takes a YAML file, e.g. recipes/tiny_cpu.yaml)"
        try:
            config = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            return f"{path} is not valid YAML: {' '.join(str(error).split())}"
        if not isinstance(config, dict):
            return f"{path} must be a YAML mapping of FIELD: VALUE"
        del args[index : index + 2]
        config.pop("env", None)  # TrlParser exports these as environment variables
        source = str(path)
    known = [action.dest for action in parser._actions]
    for key in config:
        if key not in known:
            return f"unknown field {key!r} in {source}{did_you_mean(key, known)}"
    problem = recipe_value_problem(parser, config, source)
    if problem is not None:
        return problem
    parser.set_defaults_with_config(**config)
    namespace, unknown = parser.parse_known_args(args)
    if unknown and unknown[0].startswith("-"):
        return f"unknown option {unknown[0]}{did_you_mean(unknown[0].lstrip('-'), known, prefix='--')}"
    if unknown:
        return f"unexpected argument {unknown[0]!r}: fields are given as --FIELD VALUE"
    if namespace.ignore_bias_buffers:
        return (
            "ignore_bias_buffers: `trl grpo` accepts it and does nothing with it (it is TRL's DPO script's DDP "
            "workaround for boolean buffers); use --ddp_broadcast_buffers false instead"
        )
    if namespace.model_name_or_path is None and namespace.dataset_name is None and not namespace.datasets:
        return (
            "nothing to train: give a recipe (--config RECIPE.yaml) or --model_name_or_path and --dataset_name (or "
            "--datasets)"
        )
    # A `datasets` mixture stands for dataset_name, as in TRL's scripts/grpo.py.
    for name in ("model_name_or_path",) + (() if namespace.datasets else ("dataset_name",)):
        value = getattr(namespace, name)
        if value is None:
            return f"no {name}: set it in the recipe or with --{name}"
        # A Hub id never starts with "." or "/": such a value is a local folder, and a missing one fails here, fast.
        if value.startswith((".", "/")) and not Path(value).exists():
            return f"{name}: no folder {value} (`trl-mulferl make-tiny` writes the tiny model and data the tiny recipe uses)"
    return None


def recipe_value_problem(parser: TrlParser, config: dict, source: str) -> str | None:
    """A recipe value of the wrong type for its field, which the configs would take as it is (the command line's
    values are converted by argparse; YAML's are not) and fail on later, or not at all."""
    hints = {}
    for dataclass_type in parser.dataclass_types:
        hints |= typing.get_type_hints(dataclass_type)
    defaults = {action.dest: action.default for action in parser._actions}
    for key, value in config.items():
        if value is not None and not fits(hints[key], value):
            hint = " (YAML reads yes/no/on/off as true/false: quote it)" if isinstance(value, bool) else ""
            return f"{key} in {source}: {value!r} is not {kind(hints[key])}{hint}; the default is {defaults[key]!r}"
    return None


def fits(annotation, value) -> bool:
    """Whether a YAML value can stand for a field of this type (a string where argparse would convert it)."""
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(fits(argument, value) for argument in arguments)
    if origin is typing.Literal:
        return value in arguments
    if annotation is list or origin is list:
        return isinstance(value, list) and all(fits(arguments[0], item) for item in value if arguments)
    if annotation is dict or origin is dict:
        return isinstance(value, dict)
    if annotation is type(None):
        return value is None
    if annotation is bool:
        return value in (0, 1) or (isinstance(value, str) and value.lower() in BOOLEAN_STRINGS)
    if annotation in (int, float):
        if isinstance(value, str):
            try:
                annotation(value)
            except ValueError:
                return False
            return True
        return isinstance(value, int if annotation is int else (int, float)) and not isinstance(value, bool)
    if annotation is str:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return value in {member.value for member in annotation} or value in annotation.__members__
    return True  # a class of its own (e.g. a parallelism config): its own checks judge it


def kind(annotation) -> str:
    """`fits`'s type in words."""
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(kind(a) for a in arguments if a is not type(None)))
    if origin is typing.Literal:
        return f"one of {', '.join(map(str, arguments))}"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return f"one of {', '.join(str(member.value) for member in annotation)}"
    words = {bool: "true or false", int: "an integer", float: "a number", str: "a string", dict: "a mapping"}
    return "a list" if annotation is list or origin is list else words.get(origin or annotation, str(annotation))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = make_parser()
    if "--help-all" in argv:
        parser.print_help()
        return
    if "-h" in argv or "--help" in argv:
        print(short_help(parser), end="")
        return
    problem = find_argument_problem(parser, argv)
    if problem is not None:
        parser.exit(2, f"trl-mulferl train: error: {problem}\n")
    try:
        script_args, training_args, model_args, dataset_args = parser.parse_args_and_config(argv)
    except ValueError as error:  # the configs' own checks, each naming its field
        parser.exit(2, f"trl-mulferl train: error: {error}\n")
    try:
        trainer = build_trainer(script_args, training_args, model_args, dataset_args)
    except (ValueError, TypeError, ConnectionError, PermissionError, FileNotFoundError) as error:
        # The trainer's own checks name the field and the fix (a missing API key, an unreachable feedback server, a
        # column the dataset lacks): as for the arguments, one line and status 2, not a traceback.
        parser.exit(2, f"trl-mulferl train: error: {' '.join(str(error).split())}\n")
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)
    trainer.create_model_card(dataset_name=script_args.dataset_name)  # README.md next to the weights, Hub-ready
    if training_args.push_to_hub:
        trainer.push_to_hub(dataset_name=script_args.dataset_name)
    launched = torch.distributed.is_available() and torch.distributed.is_initialized()
    trainer.end()  # as TRL's scripts: finish the trackers and destroy the process group
    if launched:
        exit_launched_process()
    return trainer


def exit_launched_process():
    """Ends a process of a distributed run as the interpreter would, less its teardown: destroys the process group,
    joins the threads that are not daemons, runs the exit handlers (trackers, logging), then exits with status 0.

    gloo's worker threads outlive `destroy_process_group` (DDP, DeepSpeed and `torch.distributed.nn.functional`'s
    default arguments keep the group), and one that still has a tensor or a callback to release when the interpreter
    finalises takes the GIL and aborts the rank ("terminate called without an active exception", SIGABRT) after a run
    that succeeded. Releasing the group before the teardown instead deadlocks: its destructor joins a worker that waits
    for the GIL the releasing thread holds.
    """
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
