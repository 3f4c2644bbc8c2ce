"""Fanned hands seen through a worse camera than the photos': other cameras, other light.

The composed tables of overlapping hands (:func:`vision.evaluate.fanned_tables`: crops of the
validation or the held-out test photos) are the photos' phones' pictures. A Pi camera's are
softer, noisier and often off in colour. Each table is read after a camera's faults are put on it:

* ``soft``: taken at 0.45-0.6 of its resolution (pixel areas), scaled back, blurred (sigma
  0.5-1 px): a lens and sensor that resolve half the detail;
* ``light``: white balance off (blue x 0.8-0.95, red x 1.05-1.2) and exposure x 0.75-1.1;
* ``noise``: sensor noise (sigma 5 levels) and JPEG at quality 60;
* ``all``: the three together (the default);
* ``none``: no fault (with ``--scale``: the tables as photographed, only larger or smaller).

``--scale F`` first resizes each table by F (and its cards' outlines with it): 2.5 turns the
1600x1066 tables into 4000x2665 photos, a phone's or a Pi camera's full size, with cards about
300 pixels wide.

``--lean K`` then shows each table as a camera leaning away from the vertical sees it: the
photo's far (top) edge K times as wide as its near (bottom) edge, and its cards with it (0.8 is a
camera about 15 degrees off the vertical, 0.65 about 27 degrees). The reader puts outlines of one
card width on a photo; a leaning camera's photo has no one width. (The table's own camera reads
hands in zones warped top-down by the mat's markers, so its lean is undone before reading;
a phone's photo of a hand is not.)

The faults are drawn per table from the seed, so a seed's tables are the same for every model.
Card F1 as ``companion evaluate --parts fanned`` counts it (:class:`vision.evaluate.FannedTally`).

    UNO_DATA=../shared/data .venv/bin/python benchmarks/fanned_camera.py [--split test]
        [--seeds 505,506,507,508] [--camera all] [--scale 1] [--lean 1] [--out F.json]

Without the photo data it says so and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.data import DataMissing, require_data

CAMERAS = ("soft", "light", "noise", "all", "none")


def through_camera(image: np.ndarray, rng: np.random.Generator, kind: str = "all") -> np.ndarray:
    """``image`` (BGR) with a camera's faults of ``kind`` put on it (see the module's docstring)."""
    if kind == "none":
        return image
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    if kind in ("soft", "all"):
        f = rng.uniform(0.45, 0.6)
        small = cv2.resize(image, (max(1, int(w * f)), max(1, int(h * f))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.0))
    if kind in ("light", "all"):
        gains = np.float32([rng.uniform(0.8, 0.95), 1.0, rng.uniform(1.05, 1.2)])
        out = out * gains * np.float32(rng.uniform(0.75, 1.1))
    if kind in ("noise", "all"):
        out = out + rng.normal(0, 5, out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if kind in ("noise", "all"):
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 60])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def scaled(image: np.ndarray, truth: list, f: float) -> tuple[np.ndarray, list]:
    """``image`` resized by ``f`` and ``truth`` (its cards) with their outlines (and their
    indices' outlines) resized with it."""
    if f == 1:
        return image, truth
    h, w = image.shape[:2]
    size = (max(1, round(w * f)), max(1, round(h * f)))
    image = cv2.resize(image, size, interpolation=cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA)
    k = np.float32(f)
    return image, [replace(c, quad=np.asarray(c.quad, np.float32) * k,
                           indices=tuple((np.asarray(q, np.float32) * k, shown) for q, shown in c.indices))
                   for c in truth]


def leaned(image: np.ndarray, truth: list, k: float) -> tuple[np.ndarray, list]:
    """``image`` as a camera leaning away from the vertical sees it: the top edge ``k`` times as
    wide as the bottom edge, centred, and lowered by 0.3 of what the width lost (a far edge is
    seen nearer the horizon), the picture kept at its size; ``truth``'s outlines moved with it."""
    if k == 1:
        return image, truth
    h, w = image.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    top = h * (1 - k) * 0.3
    dst = np.float32([[w * (1 - k) / 2, top], [w * (1 + k) / 2, top], [w, h], [0, h]])
    M = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def moved(q):
        return cv2.perspectiveTransform(np.asarray(q, np.float32)[None], M)[0]

    return out, [replace(c, quad=moved(c.quad), indices=tuple((moved(q), shown) for q, shown in c.indices))
                 for c in truth]


def _at(scale: float, lean: float = 1.0) -> str:
    """The tallies' name for a scale and a lean: nothing at the tables' own size, seen from above."""
    return (f" at x{scale:g}" if scale != 1 else "") + (f" leaning {lean:g}" if lean != 1 else "")


def measure(split: str, seed: int, kind: str, scenes: int = 24, pooled=None, scale: float = 1.0,
            lean: float = 1.0):
    """One seed's tables read through camera ``kind`` (each table first resized by ``scale``,
    then seen by a camera leaning by ``lean``, :func:`leaned`): its tally (each table also added
    to ``pooled``, a tally of every seed, where given)."""
    from vision.evaluate import FannedTally, fanned_tables
    from vision.recognize import CardReader

    reader = CardReader(overlap=True)
    _name, tables = fanned_tables(reader, scenes, seed, split=split, progress=False)
    rng = np.random.default_rng(seed + 77)
    tally = FannedTally(f"{split} {seed} through '{kind}'{_at(scale, lean)}")
    for image, truth in tables:
        image, truth = leaned(*scaled(image, truth, scale), lean)
        read = reader.read(through_camera(image, rng, kind))
        for t in (tally, pooled):
            if t is not None:
                t.add(truth, read)
    return tally


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("validation", "test"), default="test")
    ap.add_argument("--seeds", default="505,506,507,508")
    ap.add_argument("--camera", choices=CAMERAS, default="all")
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--scale", type=float, default=1.0, help="resize each table by this first (1)")
    ap.add_argument("--lean", type=float, default=1.0,
                    help="the far edge this share of the near edge's width, as a leaning camera sees it (1)")
    ap.add_argument("--out", default=None, help="write the figures here (JSON)")
    args = ap.parse_args(argv)
    if not 0.3 <= args.lean <= 1:
        ap.error("--lean is the far edge's share of the near edge's width: 0.3 to 1")
    try:
        require_data()
    except DataMissing as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from vision.evaluate import FannedTally

    t0 = time.time()
    pooled = FannedTally(f"{args.split}, every seed, through '{args.camera}'{_at(args.scale, args.lean)}")
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        tally = measure(args.split, seed, args.camera, args.scenes, pooled, args.scale, args.lean)
        print(tally.report(), flush=True)
        rows.append({"split": args.split, "seed": seed, "camera": args.camera, "scale": args.scale,
                     "lean": args.lean,
                     **tally.summary()})
    pooled = {**pooled.summary(), "precision": round(pooled.precision, 4),
              "worst_seed_f1": min(x["f1"] for x in rows)}
    print(f"pooled: {json.dumps(pooled)}  ({time.time() - t0:.0f} s)")
    if args.out:
        Path(args.out).write_text(json.dumps({"seeds": rows, "pooled": pooled}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
