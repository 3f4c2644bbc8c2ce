"""``companion run``: the real table (Pi camera, real pins, web server)."""

from __future__ import annotations

import argparse
import sys

from ._common import add_config_options, load_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="the real table: Pi camera, GPIO pins and the web page",
        description="Starts the companion on the Pi: the camera referees the table (mode "
                    "referee), or phones and buttons end turns (timer) or only keep scores "
                    "(scoreboard). Resumes an unfinished match from the event log. Stop with "
                    "Ctrl-C or SIGTERM.")
    add_config_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import warnings

    from gpiozero.exc import PinFactoryFallback
    from hardware.errors import HardwareError

    from app.runner import CameraUnavailable, Companion

    config = load_from_args(args)
    if config is None:
        return 2
    # gpiozero warns once per factory it tries; the one error below says it all.
    warnings.simplefilter("ignore", PinFactoryFallback)
    # A camera or pin that is missing, busy or hangs does not stop the table: it is said on the
    # page, the status LED and here, and the companion goes on (see app/runner.py).
    try:
        companion = Companion(config, demo=False, out=sys.stdout, mock_pins_on_fault=True)
    except HardwareError as exc:  # a pin map that cannot be used even on mock pins
        print(f"companion run: {exc}", file=sys.stderr)
        return 2
    except CameraUnavailable as exc:  # an unknown camera source: a configuration error
        print(f"companion run: {exc}", file=sys.stderr)
        return 2
    companion.stop_on_signals()   # Ctrl-C while starting stops it cleanly too
    try:
        companion.start()
    except OSError as exc:
        print(f"companion run: cannot serve on {config.web.host}:{config.web.port}: "
              f"{exc.strerror or exc}. Is another companion running? Change [web] port.",
              file=sys.stderr)
        companion.stop()
        return 1
    companion.run_until_stopped()
    return 0
