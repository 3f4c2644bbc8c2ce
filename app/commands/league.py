"""``companion league``: the league page of a club night, fed by every table over MQTT."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "league", help="the club's league page: every table live, standings, match histories",
        description="Hears every table of the league on the MQTT broker of [league] broker and "
                    "serves a page with each table live, the standings and each match's history; "
                    "what it heard is kept (--store), so a restart loses nothing. See "
                    "docs/league.md. Stop with Ctrl-C or SIGTERM.")
    p.add_argument("--config", type=Path, default=None, help="the TOML configuration file")
    p.add_argument("--broker", default=None, help="mqtt://host:port (overrides [league] broker)")
    p.add_argument("--league", default=None, help="the league's name (overrides [league] league)")
    p.add_argument("--host", default="0.0.0.0", help="address the page listens on")
    p.add_argument("--port", type=int, default=8100, help="the page's port")
    p.add_argument("--store", type=Path, default=None,
                   help="the league's SQLite file (overrides [league] store)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import logging

    from app.runner import start_league
    from companion.config import ConfigError, load_config

    try:
        config = load_config(args.config, {
            "league.broker": args.broker, "league.league": args.league,
            "league.store": str(args.store) if args.store else None})
    except ConfigError as exc:
        print(f"companion league: {exc}", file=sys.stderr)
        return 2
    if not config.league.broker:
        print("companion league: no broker: set [league] broker (mqtt://host:1883) or --broker",
              file=sys.stderr)
        return 2
    # the connection's news (hearing, refused, lost) and the messages ignored, one line each
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("waitress").setLevel(logging.WARNING)
    try:
        league, server = start_league(config, args.host, args.port)
    except OSError as exc:
        print(f"companion league: cannot serve on {args.host}:{args.port}: "
              f"{exc.strerror or exc}. Try --port.", file=sys.stderr)
        return 1
    print(f"league {config.league.league!r} on http://{args.host}:{server.effective_port}/ "
          f"(broker {config.league.broker})", flush=True)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    try:
        while not stopped.wait(0.5):
            pass
    finally:
        league.close()
    return 0
