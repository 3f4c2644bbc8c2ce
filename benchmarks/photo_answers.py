"""Single-card photos answered with a ruling of the whole-card reader on and off.

``companion evaluate --parts real`` scores each held-out photo by its surest reading
(:func:`vision.evaluate.photo_answer`). This
reads every photo of a split twice, once with each value of one constant of a module of the
reader (``--module``, by default :mod:`vision.index_vote`; ``--constant``, by default
:data:`vision.index_vote.NO_INDEX_DOUBT`, the doubt on readings whose corners show no index: 1
is off; ``--module vision.recognize --constant GROWN_MASS --off 0``, the card mass an outline
grown round a card must be read with), and prints how many photos each answers right
(per source folder), how many photos hold a reading of another label at least
:data:`FALSE_AT` sure (on a photo of one card: a false card, or the card misread), and every
photo whose answer changes. Rulings are chosen on ``train``
(the photos the card model was trained on: it has seen the cards, not which of a photo's
outlines is the card) or ``validation``, and measured once on ``test``.

    UNO_DATA=../shared/data .venv/bin/python benchmarks/photo_answers.py [--split train]
        [--module vision.index_vote] [--constant NO_INDEX_DOUBT] [--off 1.0] [--out F.json]

Without the photo data it says so and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.data import DataMissing, load_photos, require_data

SPLITS = ("train", "validation", "test")
#: A reading of another label than the photo's at least this sure counts as a false card (the
#: confidence ``companion recognize`` reports from by default).
FALSE_AT = 0.5


def photos_of(split: str) -> list:
    """The photos of ``split`` with a known label (``train``: every photo not held out, the
    validation ones included; the others as :func:`vision.evaluate.split_photos` gives them)."""
    if split != "train":
        from vision.evaluate import split_photos

        return split_photos(split)
    return [p for p in load_photos(require_data()) if p.split == "train" and not p.label.startswith("*")]


def read_photo(reader, image, deck: str = "auto") -> list:
    """``reader``'s readings of ``image``: none where the photo could not be read."""
    return reader.read(image, deck=deck) if image is not None else []


def false_cards(read: list, label: str) -> int:
    """The readings of ``read`` of another label than ``label`` at least :data:`FALSE_AT` sure."""
    return sum(1 for s in read if s.label != label and s.confidence >= FALSE_AT)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=SPLITS, default="train")
    ap.add_argument("--module", default="vision.index_vote", help="the module of the constant")
    ap.add_argument("--constant", default="NO_INDEX_DOUBT", help="a constant of that module")
    ap.add_argument("--off", type=float, default=1.0, help="its value with the ruling off (1.0)")
    ap.add_argument("--out", default=None, help="write the figures here (JSON)")
    args = ap.parse_args(argv)
    import importlib

    from vision.evaluate import photo_answer
    from vision.recognize import CardReader

    try:
        module = importlib.import_module(args.module)
    except ImportError:
        print(f"error: no module {args.module}", file=sys.stderr)
        return 2
    if not hasattr(module, args.constant):
        print(f"error: {args.module} has no constant {args.constant}", file=sys.stderr)
        return 2
    try:
        photos = photos_of(args.split)
    except DataMissing as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    on = getattr(module, args.constant)
    reader = CardReader()
    right = {"off": Counter(), "on": Counter()}
    false = {"off": [0, 0], "on": [0, 0]}   # photos with a false card, false cards
    total, changed = Counter(), []
    t0 = time.time()
    for p in photos:
        image = cv2.imread(str(p.path))
        got = {}
        for name, value in (("off", args.off), ("on", on)):
            setattr(module, args.constant, value)
            read = read_photo(reader, image)
            got[name] = photo_answer(read)
            right[name][p.source] += got[name] == p.label
            n = false_cards(read, p.label)
            false[name][0] += n > 0
            false[name][1] += n
        setattr(module, args.constant, on)
        total[p.source] += 1
        if got["off"] != got["on"]:
            changed.append({"photo": p.rel, "label": p.label, "off": got["off"], "on": got["on"]})
    out = {"split": args.split, "module": args.module, "constant": args.constant, "on": on, "off": args.off,
           "photos": sum(total.values()),
           "right_off": sum(right["off"].values()), "right_on": sum(right["on"].values()),
           "false_at": FALSE_AT,
           "photos_with_false_cards_off": false["off"][0], "false_cards_off": false["off"][1],
           "photos_with_false_cards_on": false["on"][0], "false_cards_on": false["on"][1],
           "per_source": {src: {"photos": n, "right_off": right["off"][src], "right_on": right["on"][src]}
                          for src, n in sorted(total.items())},
           "changed": changed, "seconds": round(time.time() - t0)}
    print(f"{args.split}: {out['photos']} photos; right with {args.constant}={args.off:g} (off): "
          f"{out['right_off']}, with {on:g} (on): {out['right_on']}")
    print(f"  photos with a reading of another label >= {FALSE_AT}: off {false['off'][0]} "
          f"({false['off'][1]} readings), on {false['on'][0]} ({false['on'][1]} readings)")
    for src, row in out["per_source"].items():
        if row["right_off"] != row["right_on"] or row["right_on"] < row["photos"]:
            print(f"  {src}: {row['right_off']} -> {row['right_on']} of {row['photos']}")
    for c in changed:
        print(f"  {c['photo']} ({c['label']}): {c['off']} -> {c['on']}")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
