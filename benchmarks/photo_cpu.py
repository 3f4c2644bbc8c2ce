"""Outlines read and CPU time per photo of the whole-photo reader before the second round of issue
#18's changes (commit 3133bdd, loaded from git) and today's, interleaved, over the photo
benchmark's sets (:mod:`benchmarks.photo_bench`), with OpenCV on one thread.

    .venv/bin/python benchmarks/photo_cpu.py [--runs 3] [--json OUT.json]

CPU time (the process's, every thread counted) moves far less with the machine's load than wall
time does, and the number of outlines the card model reads does not move at all: on the shared
machine they tell what a change bought where the wall-time ratios to the reference swing by a
third. ``same_labels``: photos whose sightings read the same labels both ways. Needs git and the
repository's history, and the photo data (``$UNO_DATA``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2

import photo_bench as pb
import vision.recognize as recognize
from vision.data import load_photos

ROOT = Path(__file__).resolve().parent.parent

BEFORE = "3133bdd"


def _old_module(name: str, path: str, fix=lambda s: s):
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:{path}"], check=True,
                         capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__file__ = str(ROOT / path)
    sys.modules[name] = mod
    exec(compile(fix(src), f"{BEFORE}:{path}", "exec"), mod.__dict__)
    return mod


def before_reader():
    det = _old_module("before_detect", "vision/detect.py",
                      lambda s: s.replace("from .card_shape import", "from vision.card_shape import"))
    rec = _old_module("before_recognize", "vision/recognize.py")
    rec.find_quads, rec.find_field_quads = det.find_quads, det.find_field_quads
    return rec.CardReader(recognize.MODEL_PATH)


def _timed(reader, img):
    """(sightings, outlines read, CPU ms) of one read."""
    n = [0]
    probs = reader._probs
    reader._probs = lambda cards, deck: n.__setitem__(0, n[0] + len(cards)) or probs(cards, deck)
    try:
        c = time.process_time()
        out = reader.read(img)
        return out, n[0], (time.process_time() - c) * 1000
    finally:
        del reader._probs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="reads of each photo each way")
    ap.add_argument("--real-photos", type=int, default=8, help="held-out photos per source folder")
    ap.add_argument("--only", help="time only the sets whose name holds this text (e.g. 'crops 1920')")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    old, new = before_reader(), recognize.CardReader()
    crops = pb.real_crops()
    sets = [("rendered 1920x1080, 15 cards", [pb.rendered_table()]),
            ("real crops 1920x1080, 15 cards", pb.crop_tables(crops, 1920, 1080, 15)),
            ("real crops 4000x2662, 10 cards", pb.crop_tables(crops, 4000, 2662, 10, n=3))]
    photos = [p for p in load_photos() if p.split == "test" and not p.label.startswith("*")]
    for src in pb.REAL_SOURCES:
        chosen = [p for p in photos if p.source == src][::3][:args.real_photos]
        sets.append((f"real photos {src}", [(cv2.imread(str(p.path)), [p.label]) for p in chosen]))
    rows = []
    for name, imgs in sets:
        if args.only and args.only not in name:
            continue
        cpu = {"before": [], "after": []}
        reads = {"before": 0, "after": 0}
        same = 0
        for run in range(args.runs):
            for img, _ in imgs:
                a, na, ta = _timed(old, img)
                b, nb, tb = _timed(new, img)
                cpu["before"].append(ta)
                cpu["after"].append(tb)
                if run == 0:
                    reads["before"] += na
                    reads["after"] += nb
                    same += sorted(s.label for s in a) == sorted(s.label for s in b)
        n = len(imgs)
        row = {"set": name, "photos": n,
               "outlines_read_before": round(reads["before"] / n, 1),
               "outlines_read_after": round(reads["after"] / n, 1),
               "cpu_ms_before": round(statistics.median(cpu["before"]), 1),
               "cpu_ms_after": round(statistics.median(cpu["after"]), 1),
               "cpu_after_over_before": round(statistics.median(cpu["after"]) / statistics.median(cpu["before"]), 3),
               "same_labels": f"{same}/{n}"}
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {"benchmark": "photo_cpu", "before": BEFORE,
           "command": "python benchmarks/photo_cpu.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "opencv_threads": 1, "load_average": [round(v, 1) for v in os.getloadavg()],
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "sets": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
