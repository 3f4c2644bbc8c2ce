"""The ``companion`` command line.

Each subcommand lives in its own module under :mod:`app.commands` and registers itself with
``register(subparsers)``; the module's ``run(args)`` returns the exit status. Add a command by
adding a module and naming it in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Subcommand modules, in the order ``companion --help`` lists them.
COMMANDS = [
    "run",
    "demo",
    "replay",
    "recognize",
    "evaluate",
    "doctor",
    "record", "mat", "bench",
    "league",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The Uno table companion: referees real Uno cards seen by a camera.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in COMMANDS:
        importlib.import_module(f"app.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
