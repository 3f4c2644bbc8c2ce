"""``companion replay [FILE|-]``: referee a game written as JSON lines."""

from __future__ import annotations

import argparse
import os
import sys

from companion.replay import replay_stream


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay", help="referee a game given as JSON lines (set-up, then one action a line)",
        description="Reads JSON lines: a set-up line, then one action per line; writes one JSON "
                    "answer per action line. See docs/replay.md.")
    p.add_argument("file", nargs="?", default="-", help="input file, or - for standard input")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Bytes, decoded line by line in the replay: a bad byte spoils only its own line.
    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    except OSError as exc:
        print(f"companion replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    with stream:
        try:
            return replay_stream(stream, sys.stdout, sys.stderr)
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, and keep Python from reporting the
            # failed flush of standard output at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
