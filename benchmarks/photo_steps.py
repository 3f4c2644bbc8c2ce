"""What each change of issue #18 bought on whole photos: the reader before them (commit 41f6266,
loaded from git) and with each change added in turn, all in one process, interleaved with each
other and with the reference detector's forward pass (:mod:`benchmarks.reference`), over the
photo benchmark's tables of real crops (:mod:`benchmarks.photo_bench`).

    .venv/bin/python benchmarks/photo_steps.py [--size 1920x1080] [--rounds 5] [--json OUT.json]

Steps (each includes the ones above it):

1. ``before``: the reader and detector of 41f6266;
2. ``detector``: the detector's maps and outlines computed faster, its maps made on a helper
   thread (the same outlines, bit for bit);
3. ``reading``: outlines read from the outside in, none inside a card read surely, groups
   settled at a lower probability (:data:`vision.recognize.COVER_SURE`, ``CARD_SURE``,
   ``REST_UNLESS_NONE``);
4. ``engine``: the card model run by OpenCV's classic dnn engine;
5. ``threads``: the cards of a batch rectified and balanced on OpenCV's threads (now).

Needs git and the repository's history (the old modules are read with ``git show``).
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import cv2  # noqa: E402

import vision.recognize as recognize  # noqa: E402
from photo_bench import crop_tables, real_crops  # noqa: E402
from reference import Reference, ReferenceMissing  # noqa: E402

BEFORE = "41f6266"


def _old_module(name: str, path: str, fix=lambda s: s):
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:{path}"], check=True,
                         capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__file__ = str(ROOT / path)  # (the model is found beside it)
    sys.modules[name] = mod  # (dataclasses look their module up)
    exec(compile(fix(src), f"{BEFORE}:{path}", "exec"), mod.__dict__)
    return mod


def readers():
    """(step name, reader) in the order of the module docstring."""
    old_detect = _old_module("old_detect", "vision/detect.py",
                             lambda s: s.replace("from .card_shape import", "from vision.card_shape import"))
    old_recognize = _old_module("old_recognize", "vision/recognize.py")
    before = old_recognize.CardReader()
    old_recognize.find_quads, old_recognize.find_field_quads = old_detect.find_quads, old_detect.find_field_quads
    detector = _old_module("old_recognize2", "vision/recognize.py").CardReader()  # new detector, old reading

    reader = recognize.CardReader()
    auto = recognize.CardReader()
    auto.net = cv2.dnn.readNetFromONNX(str(recognize.MODEL_PATH))  # the engine OpenCV picks itself

    def without_threads(card_reader):
        """``card_reader.read`` with the cards prepared inline (no thread pool)."""
        def read(img):
            saved = recognize._POOL_FROM
            recognize._POOL_FROM = 10**9
            try:
                return card_reader.read(img)
            finally:
                recognize._POOL_FROM = saved
        return read

    return [("before", before.read), ("detector", detector.read),
            ("reading", without_threads(auto)), ("engine", without_threads(reader)),
            ("threads", reader.read)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    try:
        ref = Reference()
    except ReferenceMissing as e:
        print(e, file=sys.stderr)
        return 2
    tables = crop_tables(real_crops(), w, h, 15 if w < 3000 else 10, n=4 if w < 3000 else 3)
    steps = readers()
    ms = {name: [] for name, _ in steps} | {"reference": []}
    right = {name: 0 for name, _ in steps}
    for name, read in steps:  # warm up
        read(tables[0][0])
    for r in range(args.rounds):
        for img, truth in tables:
            ms["reference"].append(ref.once())
            for name, read in steps:
                t = time.perf_counter()
                found = read(img)
                ms[name].append((time.perf_counter() - t) * 1000)
                if r == 0:
                    labels = [s.label for s in found]
                    right[name] += sum(min(labels.count(x), truth.count(x)) for x in set(truth))
    ref_med = statistics.median(ms["reference"])
    rows = []
    prev = None
    for name, _ in steps:
        med = statistics.median(ms[name])
        rows.append({"step": name, "ms_median": round(med, 1), "ratio_to_reference": round(med / ref_med, 3),
                     "of_previous": round(med / prev, 3) if prev else None,
                     "cards_read_right": f"{right[name]}/{sum(len(t) for _, t in tables)}"})
        prev = med
    out = {"benchmark": "photo_steps",
           "command": "python benchmarks/photo_steps.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "size": args.size, "tables": len(tables), "rounds": args.rounds,
           "reference_ms_median": round(ref_med, 1), "steps": rows,
           "load_average": [round(v, 1) for v in os.getloadavg()],
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
