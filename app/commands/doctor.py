"""``companion doctor``: checks the camera, the mat, the pins, the LEDs and buzzer, the model,
the event log, the web port and the phones' address, one line each with a fix."""

from __future__ import annotations

import argparse
import json
import sys

from ._common import add_config_options

HELP = "check camera, markers, pins, LEDs and buzzer, model, database, port: one line each with a fix"


def register(sub: argparse._SubParsersAction) -> None:
    from app.doctor import CHECKS

    p = sub.add_parser(
        "doctor", help=HELP,
        description="Checks everything a table needs and says how to fix what fails, one line "
                    "per check: " + ", ".join(CHECKS) + ". The LEDs and the buzzer play a "
                    "five-second self-test (--no-selftest leaves it out). Exit status 0 when "
                    "every check passes, 1 otherwise. On an installed Pi run "
                    "`sudo uno-companion-doctor`: it runs this as the service would (its user, "
                    "configuration and state directory) and stops the service meanwhile.")
    add_config_options(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--only", action="append", choices=CHECKS, metavar="CHECK",
                   help="run only this check (repeat for more): " + ", ".join(CHECKS))
    p.add_argument("--skip", action="append", choices=CHECKS, metavar="CHECK", default=[],
                   help="leave this check out (repeat for more)")
    p.add_argument("--no-selftest", action="store_true",
                   help="do not blink the LEDs or sound the buzzer")
    p.add_argument("--mock-pins", action="store_true",
                   help="check with gpiozero's mock pins (to try the doctor off the Pi)")
    p.add_argument("--frames", type=int, default=5, help="frames to read from the camera")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from app import doctor

    wanted = [c for c in (args.only or doctor.CHECKS) if c not in args.skip]
    printed = []

    def show(result: doctor.CheckResult) -> None:
        printed.append(result)
        if not args.json:
            print(doctor.format_line(result), flush=True)

    overrides = {"web.host": args.host, "web.port": args.port, "table.mode": args.mode,
                 "camera.source": args.camera, "log.path": str(args.log) if args.log else None}
    config_result, config = doctor.check_config(args.config, overrides)
    if "config" in wanted or not config_result.ok:
        show(config_result)
    rest = [c for c in wanted if c != "config"]
    if config is not None and rest:  # (run_checks takes an empty list as "all of them")
        factory = None
        if args.mock_pins:
            from gpiozero.pins.mock import MockFactory, MockPWMPin
            factory = MockFactory(pin_class=MockPWMPin)
        else:
            import warnings

            from gpiozero.exc import PinFactoryFallback
            warnings.simplefilter("ignore", PinFactoryFallback)  # the pins line says it all
        doctor.run_checks(config, pin_factory=factory, selftest=not args.no_selftest,
                          only=rest, frames=args.frames,
                          on_result=show)
    ok = all(r.ok for r in printed)
    if args.json:
        print(json.dumps({"ok": ok, "checks": [r.to_json() for r in printed]}, indent=2))
    else:
        print(doctor.summary(printed), file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1
