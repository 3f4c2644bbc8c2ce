"""The ``companion`` command line.

Each subcommand lives in its own module under :mod:`app.commands` and registers itself with
``register(subparsers)``; the module's ``run(args)`` returns the exit status. Add a command by
adding a module and naming it in :data:`COMMANDS`.

Output that goes to a reader who leaves early (``companion recognize *.jpg | head``) ends the
command quietly, as Unix tools do: no traceback, exit status 141 (128 + SIGPIPE).
"""

from __future__ import annotations

import argparse
import importlib
import os
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

#: The exit status of a command whose reader went away (a shell's status for SIGPIPE).
BROKEN_PIPE_STATUS = 128 + 13

#: The distribution ``companion --version`` reports.
DISTRIBUTION = "uno-companion"


def version() -> str:
    """The installed package's version (from its metadata), or ``unknown`` when not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (not installed: make install)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The Uno table companion: referees real Uno cards seen by a camera. "
                    "`companion COMMAND --help` says more about each command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in COMMANDS:
        importlib.import_module(f"app.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return 2
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # a reader gone now is found here, not in Python's exit
        return status
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE_STATUS


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit does not fail (and
    print a second traceback) on the pipe the reader closed."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (tests): nothing to flush to
        pass


if __name__ == "__main__":
    sys.exit(main())
