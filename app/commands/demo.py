"""``companion demo``: the simulated table with bots, mock pins, and the web page."""

from __future__ import annotations

import argparse
import sys

from ._common import add_config_options, load_from_args, open_faces


#: Seconds between bot actions from which the demo is watched by a person; a shorter pace is a
#: script's run (tests, timing), where every turn ends at its pace.
HUMAN_PACE_S = 1.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo", help="the simulated table: bots play the three games, mock pins, web page",
        description="Starts the companion with no Pi: bots play the grid game, UNO Flip and "
                    "classic Uno in turn on the synthetic table, read by the camera referee "
                    "(--mode timer: the timer game, --mode scoreboard: the scoreboard, both "
                    "without a camera); the LEDs and buzzer are gpiozero mock pins, shown on "
                    "the web page and in this terminal. Stop with Ctrl-C.")
    add_config_options(p, default_host="127.0.0.1")
    p.add_argument("--seed", type=int, default=None, help="seed the bots and the deals")
    p.add_argument("--pace", type=float, default=1.5,
                   help="seconds between two bot actions; at a person's pace (1 s or more) some "
                        "turns of the timer game run into their last 10 s or run out")
    p.add_argument("--quiet", action="store_true", help="do not print events in the terminal")
    p.add_argument("--faces", choices=["art", "real"], default="art",
                   help="the demo table's card faces: the drawings (default) or real photographed "
                        "cards (needs the photo data, see docs/live-table.md)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from app.runner import Companion

    config = load_from_args(args)
    if config is None:
        return 2
    faces = open_faces(args.faces, "demo")
    if faces is False:
        return 2
    companion = Companion(config, demo=True, pin_factory=MockFactory(pin_class=MockPWMPin),
                          log_path=args.log, seed=args.seed, pace=args.pace,
                          out=None if args.quiet else sys.stdout, faces=faces,
                          slow_turns=args.pace >= HUMAN_PACE_S)
    companion.stop_on_signals()   # Ctrl-C while starting stops it cleanly too
    try:
        companion.start()
    except OSError as exc:
        print(f"companion demo: cannot serve on {config.web.host}:{config.web.port}: "
              f"{exc.strerror or exc}. Is another companion running? Try --port.", file=sys.stderr)
        companion.stop()
        return 1
    companion.run_until_stopped()
    return 0
