"""`trl-mulferl` command line: `trl-mulferl demo [options]`."""

import argparse
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="trl-mulferl", description="MulFeRL for TRL.")
    parser.add_argument("command", choices=["demo"], help="demo: GRPO vs MulFeRL on a tiny model, offline, on CPU")
    args, rest = parser.parse_known_args(argv[:1])
    if args.command == "demo":
        from .demo import main as demo

        demo(argv[1:])


if __name__ == "__main__":
    main()
