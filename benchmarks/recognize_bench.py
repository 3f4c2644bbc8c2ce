"""Speed of card reading: a 1920x1080 table with 15 cards, and one rectified card.

    .venv/bin/python benchmarks/recognize_bench.py [--runs 30]

Single process, the packaged model, OpenCV's dnn on the CPU. Targets: <= 150 ms a photo,
<= 3 ms a card. The table is drawn with the procedural card drawer (no shared data needed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np

from companion.cards import ALL_LABELS, BACK
from vision.card_art import draw_card
from vision.recognize import CardReader
from vision.synth import compose_table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(max(1, cv2.getNumThreads()))
    rng = np.random.default_rng(5)
    labels = [label for label in ALL_LABELS if label != BACK]
    pick = [labels[int(i)] for i in rng.choice(len(labels), 15, replace=False)]
    img, placed = compose_table([(label, draw_card(label, 160, 248, rng=rng)) for label in pick], 1920, 1080,
                                rng=rng, kind="wood", spacing=1.9)
    reader = CardReader()
    reader.read(img)  # warm up
    photo_ms = []
    for _ in range(args.runs):
        t = time.perf_counter()
        found = reader.read(img)
        photo_ms.append((time.perf_counter() - t) * 1000)
    card = draw_card("red-7", 64, 96)
    reader.classify(card)
    card_ms = []
    for _ in range(args.runs * 5):
        t = time.perf_counter()
        reader.classify(card)
        card_ms.append((time.perf_counter() - t) * 1000)
    res = {
        "photo": "1920x1080, 15 cards", "cards_found": len(found),
        "cards_right": sum(1 for s in found if s.label in pick),
        "photo_ms_median": round(statistics.median(photo_ms), 1),
        "photo_ms_p95": round(sorted(photo_ms)[int(0.95 * (len(photo_ms) - 1))], 1),
        "card_ms_median": round(statistics.median(card_ms), 2),
        "card_ms_p95": round(sorted(card_ms)[int(0.95 * (len(card_ms) - 1))], 2),
        "opencv_threads": cv2.getNumThreads(),
    }
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>16}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
