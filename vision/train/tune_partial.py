"""Choose the thresholds of the partly covered cards' pass on the validation photos' tables.

``python -m vision.train.tune_partial [--scenes 24] [--seed N]`` composes tables of fanned and
overlapping hands (:func:`vision.evaluate.fanned_tables`) from crops of the **validation**
photos only (part of the training split, never trained on by the card model's final fit and
never used by ``companion evaluate``, which measures on the test photos), reads each table once
(the cards read whole, and every outline of a partly covered card with the partial model's
reading: :func:`vision.partial.read_outlines`), then tries every combination of the thresholds
(:class:`vision.partial.Thresholds`) on those readings and prints the card F1 of each, best
last. The chosen values go into ``vision/partial.py``'s constants by hand; ``companion evaluate
--parts fanned`` then measures them on the test photos' tables.
"""

from __future__ import annotations

import argparse
import itertools
import json

__all__ = ["main"]

GRID = {
    "min_mass": (0.5, 0.7, 0.8),
    "min_label": (0.4, 0.5, 0.6, 0.7),
    "strip_card_like": (0.4, 0.6),
    "covered": (0.05, 0.1),
    "seed": (0.8, 0.9, 1.01),
    "same_index": (0.0, 0.12),
    "odd_sure": (0.0, 0.8, 0.9, 0.95),
}


def main(argv=None) -> int:
    from vision.evaluate import FannedTally
    from vision.partial import Thresholds, settle
    from vision.train.fanned_misses import cached_readings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--seed", type=int, default=606)
    ap.add_argument("--top", type=int, default=8, help="print the best N combinations")
    ap.add_argument("--model", default=None, help="the partial model to read with (default: the committed one)")
    ap.add_argument("--cache", default=None,
                    help="a pickle of the readings (python -m vision.train.fanned_misses --cache): read, "
                         "or written when missing")
    args = ap.parse_args(argv)
    read = [(truth, outlines) for _img, truth, outlines
            in cached_readings(args.scenes, args.seed, args.model, args.cache)]
    results = []
    for values in itertools.product(*GRID.values()):
        t = Thresholds(**dict(zip(GRID, values)))
        tally = FannedTally("validation")
        for truth, outlines in read:
            tally.add(truth, settle(outlines, t))
        results.append((tally.f1, t, tally.summary()))
    results.sort(key=lambda r: r[0])
    default = Thresholds()
    tally = FannedTally("validation")
    for truth, outlines in read:
        tally.add(truth, settle(outlines, default))
    print(json.dumps({"now": True, "f1": round(tally.f1, 4), **default.__dict__, **tally.summary()}))
    for f1, t, summary in results[-args.top:]:
        print(json.dumps({"f1": round(f1, 4), **t.__dict__, **summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
