"""Speed of whole-photo card reading (``companion recognize``) as a ratio to a detector's forward
pass timed in the same run (:mod:`benchmarks.reference`: YOLOv8n's architecture at 640, cv2.dnn).

    nice -n 10 .venv/bin/python benchmarks/photo_bench.py [--rounds 7] [--threads 1] [--only TEXT]
        [--whole-only] [--json OUT.json]

The reader is ``companion recognize``'s default (whole cards, then the cards others partly cover:
the overlap pass); ``--whole-only`` times the whole-card pass alone, as ``recognize --whole-only``.

The machine it runs on is shared and its wall-clock timings swing by a quarter even when it is
quiet, so the ratio is made robust three ways:

* both the reader and the reference run on **one thread** (``cv2.setNumThreads(1)``; ``--threads``
  to change it): other jobs on the machine then take nothing from one that the other keeps;
* they are **interleaved**: each round reads every photo of a set once, each read next to one
  forward pass of the reference (the reference first in even rounds, the reader first in odd
  ones), and the round's ratio is the reader's total over the reference's;
* each round's ratio is taken of the **process's CPU time** (``time.process_time``: what load
  from other processes moves least) as well as of wall time, and the median over the rounds is
  reported with its spread (the lowest and highest round, and every round's).

Sets:

* ``rendered 1920x1080``: a table of 15 procedurally drawn cards (``recognize_bench.py``'s photo;
  no shared data needed);
* ``real crops 1920x1080``: 15 real card crops of the held-out photos (``classic_crops`` and
  ``classic_more/rectified_crops``: rectified real cards, no detector in their making) laid on
  wood, cloth, white and dark tables with clutter (:func:`vision.synth.compose_table`, as
  ``companion evaluate``'s composite tables);
* ``real crops 4000x2662``: the same at a 4000x2662 phone photo's size, 10 cards (a game seen
  from above). The shared data holds no photo of that size: every real photo in it is at most
  about 1200 px on its longer side;
* ``real photos <source>``: the held-out real photos of a source folder, read whole, as they are
  (their sizes are in the output).

Goals: a real 1920x1080 table <= 0.5x the reference, a single card <= 0.25x. The real
photos are read from the shared data (``../shared/data`` or ``$UNO_DATA``); without it only the
rendered table is timed, and the output says so.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2
import numpy as np

from reference import RUNTIMES, Reference, ReferenceMissing
from vision.data import DataMissing, load_photos, require_data
from vision.recognize import CardReader
from vision.synth import TABLES, compose_table

REAL_SOURCES = ("classic_single", "classic_more/black_surface_phone", "flip_light")


def rendered_table() -> tuple[np.ndarray, list[str]]:
    from companion.cards import ALL_LABELS, BACK
    from vision.card_art import draw_card

    rng = np.random.default_rng(5)
    labels = [lab for lab in ALL_LABELS if lab != BACK]
    pick = [labels[int(i)] for i in rng.choice(len(labels), 15, replace=False)]
    img, _ = compose_table([(lab, draw_card(lab, 160, 248, rng=rng)) for lab in pick], 1920, 1080,
                           rng=rng, kind="wood", spacing=1.9)
    return img, pick


def real_crops() -> list[tuple[str, np.ndarray]]:
    crops = []
    for p in load_photos(require_data()):
        if p.split == "test" and p.is_crop and not p.label.startswith("*"):
            img = cv2.imread(str(p.path))
            if img is not None:
                crops.append((p.label, cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
                              if img.shape[1] > img.shape[0] else img))
    return crops


def crop_tables(crops, w: int, h: int, per_table: int, n: int = 4, seed: int = 77):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        pick = [crops[int(i)] for i in rng.choice(len(crops), per_table, replace=False)]
        img, placed = compose_table(pick, w, h, rng=rng, kind=TABLES[k % 4],
                                    spacing=(1.9, 1.05, 1.3)[k % 3], objects=k % 4 == 1)
        out.append((img, [p.label for p in placed]))
    return out


def _spread(values: list[float], digits: int = 3) -> dict:
    """Median, lowest and highest of ``values``, and every value, rounded."""
    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits), "rounds": [round(v, digits) for v in values]}


def time_set(name: str, photos, reader: CardReader, ref: Reference, rounds: int) -> dict:
    """``photos``: (image, true labels or None) pairs. ``rounds`` rounds, each reading every photo
    once next to one forward pass of the reference (interleaved; the order flips every round):
    each round's ratio of the reader's time to the reference's, wall and CPU."""
    for img, _ in photos[:2]:
        reader.read(img)  # warm up
    per_round = {"wall": [], "cpu": [], "ref_wall": [], "ref_cpu": []}
    found = []
    per_photo: list[list[float]] = [[] for _ in photos]   # each photo's CPU ms, every round
    for k in range(rounds):
        tot = dict.fromkeys(per_round, 0.0)
        for n, (img, _) in enumerate(photos):
            if k % 2 == 0:
                rw, rc = ref.timed()
            t, c = time.perf_counter(), time.process_time()
            sightings = reader.read(img)
            cpu_ms = (time.process_time() - c) * 1000
            tot["cpu"] += cpu_ms
            per_photo[n].append(cpu_ms)
            tot["wall"] += (time.perf_counter() - t) * 1000
            if k % 2 == 1:
                rw, rc = ref.timed()
            tot["ref_wall"] += rw
            tot["ref_cpu"] += rc
            if k == 0:
                found.append(sightings)
        for key, v in tot.items():
            per_round[key].append(v / len(photos))
    right = total = 0
    for k, sightings in enumerate(found):
        truth = photos[k][1]
        if truth is not None:
            labels = [s.label for s in sightings]
            total += len(truth)
            right += sum(min(labels.count(t), truth.count(t)) for t in set(truth))
    sizes = sorted({f"{img.shape[1]}x{img.shape[0]}" for img, _ in photos})
    cpu_ratio = [a / b for a, b in zip(per_round["cpu"], per_round["ref_cpu"])]
    wall_ratio = [a / b for a, b in zip(per_round["wall"], per_round["ref_wall"])]
    out = {"set": name, "photos": len(photos), "sizes": sizes[:3] + (["..."] if len(sizes) > 3 else []),
           "rounds": rounds,
           "cpu_ratio": _spread(cpu_ratio), "wall_ratio": _spread(wall_ratio),
           "reader_cpu_ms": _spread(per_round["cpu"], 1), "reference_cpu_ms": _spread(per_round["ref_cpu"], 1),
           "reader_wall_ms": _spread(per_round["wall"], 1), "reference_wall_ms": _spread(per_round["ref_wall"], 1)}
    # the slowest photo: its median CPU time over the rounds, to the reference's median
    worst = max(range(len(photos)), key=lambda n: statistics.median(per_photo[n]))
    out["worst_photo"] = {"photo": worst, "size": f"{photos[worst][0].shape[1]}x{photos[worst][0].shape[0]}",
                          "reader_cpu_ms": round(statistics.median(per_photo[worst]), 1),
                          "cpu_ratio": round(statistics.median(per_photo[worst])
                                             / statistics.median(per_round["ref_cpu"]), 3)}
    if total:
        out["cards_read_right"] = f"{right}/{total}"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds per set (each reads every photo)")
    ap.add_argument("--threads", type=int, default=1, help="OpenCV's threads (both the reader and the reference)")
    ap.add_argument("--real-photos", type=int, default=12, help="held-out photos per source folder")
    ap.add_argument("--only", help="time only the sets whose name holds this text (e.g. 'crops 1920')")
    ap.add_argument("--whole-only", action="store_true",
                    help="time the whole-card pass alone (companion recognize --whole-only)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--reference-runtime", choices=RUNTIMES, default=RUNTIMES[0],
                    help="what runs the reference (default OpenCV's dnn; onnxruntime: as the reader's models)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    try:
        ref = Reference(runtime=args.reference_runtime)
    except ReferenceMissing as e:
        print(e, file=sys.stderr)
        return 2
    reader = CardReader(overlap=not args.whole_only)
    sets = [("rendered 1920x1080, 15 cards", [rendered_table()])]
    notes = []
    try:
        crops = real_crops()
        sets.append(("real crops 1920x1080, 15 cards", crop_tables(crops, 1920, 1080, 15)))
        sets.append(("real crops 4000x2662, 10 cards", crop_tables(crops, 4000, 2662, 10, n=3)))
        photos = [p for p in load_photos() if p.split == "test" and not p.label.startswith("*")]
        for src in REAL_SOURCES:
            chosen = [p for p in photos if p.source == src][::3][:args.real_photos]
            sets.append((f"real photos {src}", [(cv2.imread(str(p.path)), [p.label]) for p in chosen]))
    except DataMissing as e:
        notes.append(f"real photos not timed: {e}")
        print(notes[-1], file=sys.stderr)
    if args.only:
        sets = [(name, photos) for name, photos in sets if args.only in name]
    results = []
    for name, photos in sets:
        res = time_set(name, photos, reader, ref, args.rounds)
        results.append(res)
        keys = ("set", "cpu_ratio", "wall_ratio", "worst_photo", "cards_read_right")
        print(json.dumps({k: res[k] for k in keys if k in res}), flush=True)
    out = {
        "benchmark": "photo_bench",
        "command": "python benchmarks/photo_bench.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "mode": "whole-only" if args.whole_only else "default (whole cards and the overlap pass)",
        "reference": f"YOLOv8n architecture, 640x640, {args.reference_runtime} forward pass (no NMS), "
                     "benchmarks/reference.py",
        "timing": "both single-threaded unless --threads says otherwise; interleaved rounds; per round "
                  "the reader's time over the reference's, as process CPU time (time.process_time) and "
                  "as wall time; median, lowest and highest round",
        "opencv": cv2.__version__, "opencv_threads": cv2.getNumThreads(), "cpus": os.cpu_count(),
        "niceness": os.nice(0),
        "load_average": [round(v, 1) for v in os.getloadavg()], "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "notes": notes + ["The shared data holds no 4000x2662 photo (its real photos are at most "
                          "about 1200 px): that size is timed on real crops laid on a table."],
        "sets": results,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
