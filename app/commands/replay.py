"""``companion replay [FILE|-]``: referee a game written as JSON lines."""

from __future__ import annotations

import argparse
import json
import sys

from companion.engine.errors import SetupError
from companion.replay import replay_lines


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay", help="referee a game given as JSON lines (set-up, then one action a line)",
        description="Reads JSON lines: a set-up line, then one action per line; writes one JSON "
                    "answer per action line. See docs/replay.md.")
    p.add_argument("file", nargs="?", default="-", help="input file, or - for standard input")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print(f"companion replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    with stream:
        try:
            for answer in replay_lines(stream):
                sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
                sys.stdout.flush()
        except SetupError as exc:
            print(f"companion replay: bad set-up line: {exc}", file=sys.stderr)
            return 2
    return 0
