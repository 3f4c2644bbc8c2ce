"""Which step of the partly covered cards' pass loses each card, on the validation photos' tables.

``python -m vision.train.fanned_misses [--scenes 24] [--seed N] [--cache FILE] [--split test]``
composes the tables of :mod:`vision.train.tune_partial` (crops of the **validation** photos only;
``--split test``: of the held-out test photos, for measuring on other seeds than ``companion
evaluate``'s 505, never for choosing), reads each
once (:func:`vision.partial.read_outlines`), settles them with the module's thresholds and puts
every readable card that is not read right in one bin, the first that applies:

* ``outline``: no outline (whole or put on a corner) lies within IoU 0.5 of the card;
* ``corner read``: outlines lie on it, but none of those is read as the card's label;
* ``threshold``: the label is read on one, but below the thresholds;
* ``selection``: a reading above the thresholds lies on it, but the selection dropped it;
* ``neighbour``: a kept reading of its label lies on it (IoU >= 0.5) but matches a neighbour
  better (the outline is off towards the neighbour);
* ``wrong label``: found, read as another label.

It prints the bins' counts and every card in them (a JSON line each with ``--list``).
``--cache`` keeps the readings (a pickle) so that rules can be tried again without reading.
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections import Counter
from pathlib import Path

import numpy as np

__all__ = ["main", "bins", "read_tables", "cached_readings"]


def _best(truth, quad) -> tuple[int, float]:
    from vision.detect import quad_iou

    v = [quad_iou(t.quad, np.asarray(quad, np.float32)) for t in truth]
    k = int(np.argmax(v)) if v else -1
    return k, (v[k] if k >= 0 else 0.0)


def bins(truth, outlines, sightings, thresholds) -> list[tuple[str, str, dict]]:
    """``(bin, label, detail)`` of every readable card of one table not read right."""
    from vision.detect import quad_iou

    t = thresholds
    matched = {}
    for s in sightings:
        k, v = _best(truth, s.quad)
        if v >= 0.5:
            matched.setdefault(k, []).append(s)
    out = []
    for k, card in enumerate(truth):
        if not card.readable:
            continue
        found = sorted(matched.get(k, []), key=lambda s: -s.confidence)
        if found and found[0].label == card.label:
            continue
        detail = {"visible": card.visible, "shown": round(card.shown, 2),
                  "index_shown": round(card.index_shown, 2)}
        if found:
            detail["read"] = found[0].label
            out.append(("wrong label", card.label, detail))
            continue
        on = [c for c in outlines.cands if quad_iou(card.quad, c.quad) >= 0.5]
        whole_on = [s for s in outlines.whole if quad_iou(card.quad, np.asarray(s.quad, np.float32)) >= 0.5]
        near = [s for s in sightings if quad_iou(card.quad, np.asarray(s.quad, np.float32)) >= 0.5
                 and s.label == card.label]
        if near:  # its own reading, on an outline closer to a neighbour
            detail["iou"] = round(max(quad_iou(card.quad, np.asarray(s.quad, np.float32)) for s in near), 2)
            out.append(("neighbour", card.label, detail))
            continue
        if not on and not whole_on:
            out.append(("outline", card.label, detail))
            continue
        right = [c for c in on if c.label == card.label]
        if not right:
            detail["reads"] = Counter(c.label for c in on).most_common(3)
            detail["best_iou"] = round(max(quad_iou(card.quad, c.quad) for c in on), 2) if on else None
            out.append(("corner read", card.label, detail))
            continue
        best = max(right, key=lambda c: c.mass * c.conf)
        detail["mass"], detail["conf"] = round(best.mass, 3), round(best.conf, 3)
        if not any(c.mass >= t.min_mass and c.conf >= t.min_label for c in right):
            out.append(("threshold", card.label, detail))
            continue
        out.append(("selection", card.label, detail))
    return out


def read_tables(scenes: int, seed: int, model=None, split: str = "validation",
                index_model=None):
    from vision.evaluate import fanned_tables
    from vision.partial import INDEX_MODEL_PATH, read_outlines
    from vision.recognize import CardReader

    reader = CardReader(overlap=False)
    _name, tables = fanned_tables(reader, scenes, seed, split=split)
    read = []
    for img, truth in tables:
        whole = reader.read(img)
        read.append((img, truth, read_outlines(reader, img, whole, model_path=model,
                                               index_model_path=index_model or INDEX_MODEL_PATH)))
    return read


def cached_readings(scenes: int, seed: int, model=None, cache: str | None = None,
                    split: str = "validation", index_model=None) -> list:
    """:func:`read_tables`, or the readings ``cache`` (a pickle) holds; written there when it
    is missing, so that rules and thresholds can be tried again without reading
    (``vision.train.tune_partial`` reads the same file)."""
    if cache and Path(cache).is_file():
        return pickle.loads(Path(cache).read_bytes())
    read = read_tables(scenes, seed, model, split=split, index_model=index_model)
    if cache:
        Path(cache).write_bytes(pickle.dumps(read))
    return read


def main(argv=None) -> int:
    from vision.evaluate import FannedTally
    from vision.partial import Thresholds, settle

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--seed", type=int, default=606)
    ap.add_argument("--model", default=None, help="the partial model (default: the committed one)")
    ap.add_argument("--index-model", default=None,
                    help="the index model (default: the general one, vision/models/index.onnx; "
                         "vision/models/index_hands.onnx is the hand zones')")
    ap.add_argument("--cache", default=None, help="a pickle of the readings, written once, then read")
    ap.add_argument("--list", action="store_true", help="print every card lost, a JSON line each")
    ap.add_argument("--split", choices=("validation", "test"), default="validation",
                    help="the photos the tables' crops are cut from: the validation photos (the "
                         "default: choose on these) or the held-out test photos (measure only)")
    args = ap.parse_args(argv)
    read = cached_readings(args.scenes, args.seed, args.model, args.cache, args.split,
                           args.index_model)
    t = Thresholds()
    tally = FannedTally(args.split)
    lost = []
    for _img, truth, outlines in read:
        sightings = settle(outlines, t)
        tally.add(truth, sightings)
        lost += bins(truth, outlines, sightings, t)
    print(tally.report())
    print(json.dumps(dict(Counter(b for b, _l, _d in lost).most_common())))
    if args.list:
        for b, label, d in lost:
            print(json.dumps({"bin": b, "label": label, **d}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
