"""`trl-mulferl` command line: `trl-mulferl demo [options]`, `trl-mulferl train --config recipe.yaml [options]`."""

import argparse
import sys


COMMANDS = {
    "demo": "GRPO vs MulFeRL on a tiny model, offline, on CPU",
    "train": "train MulFeRL from a YAML recipe (one process; use `accelerate launch -m trl_mulferl.train` for more)",
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="trl-mulferl", description="MulFeRL for TRL.")
    parser.add_argument("command", choices=list(COMMANDS), help="; ".join(f"{k}: {v}" for k, v in COMMANDS.items()))
    args = parser.parse_args(argv[:1])
    if args.command == "demo":
        from .demo import main as demo

        demo(argv[1:])
    else:
        from .train import main as train

        train(argv[1:])


if __name__ == "__main__":
    main()
