"""``companion recognize IMAGE... [--json] [--deck classic|flip|auto]``: read every card in photos."""

from __future__ import annotations

import json
import os
import sys
import time

NAME = "recognize"
HELP = "find and read every card in photos"
DESCRIPTION = """\
Finds every card in each photo (any layout, any rotation) and reads it. With --json, prints one
JSON object per image and line: {"image": PATH, "width": W, "height": H, "ms": T, "cards":
[{"label": "red-7", "confidence": 0.97, "quad": [[x, y] x4], "center": [x, y], "runners_up":
[[label, p], ...]}]}. Labels follow docs/rules.md; a face-down card is "back"; objects that are not
cards are left out. Cards that others partly cover (a fanned hand, a messy pile) are found by
their corner index and reported with "visible": "partial" ("whole" for a card seen whole);
--whole-only reads whole cards only. An unreadable image is reported on stderr, the others are
still read, and the exit status is then 1."""


def register(sub) -> None:
    p = sub.add_parser(NAME, help=HELP, description=DESCRIPTION)
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    p.add_argument("--json", action="store_true", help="one JSON object per image and line")
    p.add_argument("--deck", choices=("auto", "classic", "flip"), default="auto",
                   help="narrow the labels: classic, flip (light and dark faces), or auto (all)")
    p.add_argument("--min-confidence", type=float, default=0.5,
                   help="leave out cards read with less confidence (default 0.5)")
    p.add_argument("--model", default=None, help="ONNX model (default: the packaged one)")
    whole = p.add_mutually_exclusive_group()
    whole.add_argument("--whole-only", dest="overlap", action="store_false",
                       help="read whole cards only: no second pass for cards that others partly "
                            "cover (faster; on cluttered photos of one card, fewer false cards)")
    whole.add_argument("--overlap", dest="overlap", action="store_true",
                       help="read cards that others partly cover too, from their corner index "
                            "(the default; kept for scripts written when it was not)")
    p.set_defaults(overlap=True)
    p.set_defaults(run=run)


def run(args) -> int:
    import cv2

    from vision.recognize import CardReader

    try:
        reader = CardReader(args.model, min_confidence=args.min_confidence, overlap=args.overlap)
    except (FileNotFoundError, cv2.error) as e:
        print(f"companion recognize: error: {e}", file=sys.stderr)
        return 2
    try:  # our own message says what went wrong; no OpenCV warnings on stderr
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except AttributeError:  # pragma: no cover
        pass
    status = 0
    for path in args.images:
        if not os.path.isfile(path):
            print(f"companion recognize: error: {path}: no such file", file=sys.stderr)
            status = 1
            continue
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            print(f"companion recognize: error: {path}: cannot read image (missing, unreadable or not "
                  "an image)", file=sys.stderr)
            status = 1
            continue
        t0 = time.perf_counter()
        sightings = reader.read(img, deck=args.deck)
        ms = (time.perf_counter() - t0) * 1000
        h, w = img.shape[:2]
        if args.json:
            print(json.dumps({"image": path, "width": w, "height": h, "ms": round(ms, 1),
                              "cards": [s.to_json() for s in sightings]}), flush=True)
        else:
            print(f"{path}: {w}x{h}, {len(sightings)} card{'s' if len(sightings) != 1 else ''} "
                  f"({ms:.0f} ms)")
            for s in sorted(sightings, key=lambda s: (s.center[1], s.center[0])):
                alt = ", ".join(f"{lab} {p:.2f}" for lab, p in s.runners_up[:2])
                print(f"  {s.label:<20} {s.confidence:5.2f}  at ({s.center[0]:.0f}, {s.center[1]:.0f})"
                      f"   next: {alt}" + ("   (partly covered)" if s.visible == "partial" else ""))
    return status
