"""Contact sheets of the card crops the composed tables are made of, to look at every one.

``python -m vision.train.crop_sheets [--split validation|test|train] [--all] [--per-label N]
[--out DIR]`` cuts the crops of :func:`vision.evaluate.fanned_tables` (the validation photos,
or the held-out test photos, two a label; ``--all``: every photo of the split, as the separated
tables of ``companion evaluate --parts composite,backs`` use them; ``train``: the training
photos the overlap trainers cut, ``--per-label`` a label) as the tables cut them, then those of
the split's photos in :data:`vision.overlap.UNFIT_CROPS`, framed in red, and writes them 40 to
a PNG (10 by 4), each captioned with its number, label and photo, its two corner index boxes
(:func:`vision.overlap.index_boxes`, where the tables' truth says the indices print) framed in
magenta. A crop that is not the whole card (a close-up of the centre, a hand round a smaller
card, a box on the table instead of the index) puts a card or an index where none shows; such
photos go in ``UNFIT_CROPS`` with what is wrong with them.
Exits 2 when the photo data is absent.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.overlap import index_boxes

__all__ = ["main", "sheets"]

TILE = (100, 150)   # width, height of a crop on the sheet
PER_SHEET = 40
COLUMNS = 10


def _tile(number: int, label: str, rel: str, crop: np.ndarray, unfit: bool) -> np.ndarray:
    if crop.shape[1] > crop.shape[0]:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    t = cv2.resize(crop, TILE, interpolation=cv2.INTER_AREA)
    for x0, y0, x1, y1 in index_boxes(*TILE):  # where the tables' truth puts the two indices
        cv2.rectangle(t, (int(x0), int(y0)), (int(x1), int(y1)), (255, 0, 255), 1)
    if unfit:
        cv2.rectangle(t, (0, 0), (TILE[0] - 1, TILE[1] - 1), (0, 0, 255), 4)
    t = cv2.copyMakeBorder(t, 0, 30, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(t, f"{number} {label}"[:17], (1, TILE[1] + 12), font, 0.33, (0, 0, 0), 1)
    cv2.putText(t, rel.split("/", 1)[-1][-19:], (1, TILE[1] + 25), font, 0.3, (80, 80, 80), 1)
    return t


def _of_split(photo, split: str) -> bool:
    """Whether ``photo`` is one of ``split``'s: validation, held-out test, or training (the
    train photos but the validation ones)."""
    if split == "validation":
        return photo.validation
    return photo.split == split and not photo.validation


def sheets(tiles: list[np.ndarray]) -> list[np.ndarray]:
    """``tiles`` (one size) laid out PER_SHEET a sheet, COLUMNS a row, blanks filling the last."""
    out = []
    for k in range(0, len(tiles), PER_SHEET):
        chunk = list(tiles[k:k + PER_SHEET])
        while len(chunk) % COLUMNS:
            chunk.append(np.full_like(tiles[0], 255))
        out.append(np.vstack([np.hstack(chunk[r:r + COLUMNS]) for r in range(0, len(chunk), COLUMNS)]))
    return out


def main(argv=None) -> int:
    from vision.data import DataMissing, load_photos, require_data
    from vision.evaluate import fanned_photos, split_photos
    from vision.overlap import UNFIT_CROPS
    from vision.recognize import CardReader
    from vision.train.corners import training_photos
    from vision.train.sources import real_cards

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("validation", "test", "train"), default="validation",
                    help="train: the training photos the overlap trainers cut their crops from "
                         "(vision.train.corners, vision.train.index), --per-label a label")
    ap.add_argument("--per-label", type=int, default=12,
                    help="with --split train: photos a label, as the trainers' --per-label (12)")
    ap.add_argument("--out", default="crop_sheets", help="the folder the sheets are written to")
    ap.add_argument("--all", action="store_true",
                    help="every photo of the split, as the separated tables of companion evaluate "
                         "(composite, backs) cut them, not only the fanned tables' two a label")
    args = ap.parse_args(argv)
    try:
        photos = load_photos(require_data())
    except DataMissing as e:
        print(e, file=sys.stderr)
        return 2
    if args.split == "train":
        chosen = training_photos("train", 10**6 if args.all else args.per_label, photos)
    elif args.all:
        chosen = [p for p in split_photos(args.split, photos) if p.rel not in UNFIT_CROPS]
    else:
        chosen = fanned_photos(args.split, photos=photos)
    unfit = [p for p in photos if p.rel in UNFIT_CROPS and _of_split(p, args.split)]
    chosen += unfit   # last, framed: the tables use the others (a photo of the label in their place)
    reader = CardReader(overlap=False)
    tiles = []
    for p in chosen:
        for s in real_cards([p], reader, progress=False):   # one photo at a time: each crop keeps its photo
            tiles.append(_tile(len(tiles), s.label, p.rel, s.image, p.rel in UNFIT_CROPS))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    laid_out = sheets(tiles)
    for k, sheet in enumerate(laid_out):
        cv2.imwrite(str(out / f"{args.split}_{k:02d}.png"), sheet)
    print(f"{len(tiles)} crops of {len(chosen)} photos ({args.split}), "
          f"{len(unfit)} unfit, on {len(laid_out)} sheets in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
