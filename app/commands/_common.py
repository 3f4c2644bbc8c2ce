"""Options shared by the commands that run the companion (run, demo)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.config import Config, ConfigError, load_config


def add_config_options(p: argparse.ArgumentParser, default_host: str | None = None) -> None:
    p.add_argument("--config", type=Path, default=None, help="the TOML configuration file")
    p.add_argument("--host", default=default_host,
                   help="address the web server listens on (overrides [web] host)")
    p.add_argument("--port", type=int, default=None, help="web port (overrides [web] port)")
    p.add_argument("--mode", choices=["referee", "timer", "scoreboard"], default=None,
                   help="how the table is used (overrides [table] mode)")
    p.add_argument("--camera", default=None,
                   help="camera source: auto, picamera, opencv:0, opencv:FILE, folder:DIR, "
                        "synthetic (overrides [camera] source)")
    p.add_argument("--log", type=Path, default=None, help="the SQLite event log file")


def load_from_args(args: argparse.Namespace) -> Config | None:
    """The configuration with the command line's overrides; None (after a message) if bad."""
    try:
        return load_config(args.config, {
            "web.host": args.host, "web.port": args.port, "table.mode": args.mode,
            "camera.source": args.camera,
            "log.path": str(args.log) if args.log else None,
        })
    except ConfigError as exc:
        print(f"companion {args.command}: {exc}", file=sys.stderr)
        return None


def open_faces(name: str, command: str):
    """The face source ``--faces NAME`` names; False (after a message) when its data is missing."""
    from simulator.faces import faces_named
    from vision.data import DataMissing

    try:
        return faces_named(name)
    except DataMissing as exc:
        print(f"companion {command}: --faces {name}: {exc}", file=sys.stderr)
        return False
