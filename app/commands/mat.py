"""``companion mat [--out DIR]``: write the printable kit (corner markers, pawn marker, layout)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mat", help="write the printable kit: corner markers, pawn marker, layout (PDF and PNG)")
    p.add_argument("--out", default="uno-mat", help="folder to write into (default: ./uno-mat)")
    p.add_argument("--dpi", type=int, default=150, help="resolution of the pages (default 150)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from vision.mat import write_kit

    for path in write_kit(args.out, dpi=args.dpi):
        print(path)
    print("Print at 100 % (actual size). See docs/live-table.md.")
    return 0
