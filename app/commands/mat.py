"""``companion mat [--out DIR]``: write the printable kit (corner markers, pawn marker, layout)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mat", help="write the printable kit: corner markers, pawn marker, layout (PDF and PNG)",
        description="Writes the printable kit into a folder: one page per corner marker, a page "
                    "of pawn markers and the layout guide (the grid's and the piles' places in "
                    "millimetres, a scale bar), as PNG pages and one PDF. Print at 100 % "
                    "(actual size), cut each marker along its grey cut line and check a marker "
                    "with a ruler against the sizes printed beside it. See "
                    "docs/hardware-guide.md, 'The mat'.")
    p.add_argument("--out", default="uno-mat", help="folder to write into (default: ./uno-mat)")
    p.add_argument("--dpi", type=int, default=150, help="resolution of the pages (default 150)")
    p.add_argument("--tiled", choices=("a4", "letter"), default=None,
                   help="also write the layout at 1:1 (actual size) on pages of this paper, "
                        "to trim and tape together (crosses where two pages overlap)")
    p.set_defaults(run=run)


#: What the command says after writing the kit.
PRINT_HINT = ("Print at 100 % (actual size), then measure the 100 mm ruler on a marker page. "
              "See docs/hardware-guide.md, 'The mat'.")


def run(args: argparse.Namespace) -> int:
    from vision.mat import write_kit

    for path in write_kit(args.out, dpi=args.dpi, tiled=args.tiled):
        print(path)
    print(PRINT_HINT)
    return 0
