"""What each of the photo reader's speed changes bought on whole photos: the reader before them (commit 41f6266,
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
5. ``threads``: the cards of a batch rectified and balanced on OpenCV's threads (the reader and
   detector of 3133bdd);
6. ``cover``: an outline met twice read once, and the rest of a group or a second-look outline
   not read where the cards read surely explain it (:meth:`vision.recognize._Reads.covered`);
   a read's card probability by slices and the groups' candidate pairs found at once (the
   reading of today, the detector of 3133bdd);
7. ``masks``: the detector's colour masks made by OpenCV's threshold, LUT and bitwise ops, the
   grown outlines not ordered again (the same outlines, bit for bit): today's reader.

``--only threads,cover,masks`` times some of the steps alone. Each step's CPU time (the process's,
every thread counted) is reported beside its wall time: it moves less with the machine's load.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2

import vision.recognize as recognize
from photo_bench import crop_tables, real_crops
from reference import Reference, ReferenceMissing

ROOT = Path(__file__).resolve().parent.parent

BEFORE = "41f6266"
#: The reader and detector before the second set of speed changes (``cover``, ``masks``).
BEFORE_COVER = "3133bdd"
#: The reading of the ``cover`` step: today's (with the detector of 3133bdd).
COVER = "e448609"


def _old_module(name: str, path: str, fix=lambda s: s, commit: str = BEFORE):
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], check=True,
                         capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__file__ = str(ROOT / path)  # (the model is found beside it)
    sys.modules[name] = mod  # (dataclasses look their module up)
    exec(compile(fix(src), f"{commit}:{path}", "exec"), mod.__dict__)
    return mod


def readers(only: set[str] | None = None):
    """(step name, reader) in the order of the module docstring (those in ``only``, if given)."""
    def fixed(src):
        return src.replace("from .card_shape import", "from vision.card_shape import")

    def old_reader(tag: str, commit: str, detector_commit: str | None):
        """The reader of ``commit`` with the detector of ``detector_commit`` (None: today's)."""
        mod = _old_module(f"old_recognize_{tag}", "vision/recognize.py", commit=commit)
        if detector_commit is not None:
            det = _old_module(f"old_detect_{tag}", "vision/detect.py", fixed, detector_commit)
            mod.find_quads, mod.find_field_quads = det.find_quads, det.find_field_quads
        return mod

    def without_threads(mod, card_reader):
        """``card_reader.read`` with the cards prepared inline (no thread pool)."""
        def read(img):
            saved = mod._POOL_FROM
            mod._POOL_FROM = 10**9
            try:
                return card_reader.read(img)
            finally:
                mod._POOL_FROM = saved
        return read

    def make(name):
        if name == "before":
            return old_reader("before", BEFORE, BEFORE).CardReader().read
        if name == "detector":  # the detector of 3133bdd (the same outlines as 41f6266's), old reading
            return old_reader("detector", BEFORE, BEFORE_COVER).CardReader().read
        if name in ("reading", "engine"):
            mod = old_reader(name, BEFORE_COVER, BEFORE_COVER)
            reader = mod.CardReader(recognize.MODEL_PATH)
            if name == "reading":
                reader.net = cv2.dnn.readNetFromONNX(str(recognize.MODEL_PATH))  # the engine OpenCV picks
            return without_threads(mod, reader)
        if name == "threads":
            return old_reader("threads", BEFORE_COVER, BEFORE_COVER).CardReader(recognize.MODEL_PATH).read
        if name == "cover":
            mod = old_reader("cover", COVER, BEFORE_COVER)  # (its reading, the old detector)
            return mod.CardReader(recognize.MODEL_PATH).read
        return recognize.CardReader().read

    return [(name, make(name)) for name in STEPS if only is None or name in only]


STEPS = ("before", "detector", "reading", "engine", "threads", "cover", "masks")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", help=f"comma-separated steps to time (of {', '.join(STEPS)})")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    if only is not None and not only <= set(STEPS):
        ap.error(f"unknown step(s): {', '.join(sorted(only - set(STEPS)))}")
    w, h = (int(v) for v in args.size.split("x"))
    try:
        ref = Reference()
    except ReferenceMissing as e:
        print(e, file=sys.stderr)
        return 2
    tables = crop_tables(real_crops(), w, h, 15 if w < 3000 else 10, n=4 if w < 3000 else 3)
    steps = readers(only)
    ms = {name: [] for name, _ in steps} | {"reference": []}
    cpu = {name: [] for name in ms}
    right = {name: 0 for name, _ in steps}
    for _name, read in steps:  # warm up
        read(tables[0][0])
    for r in range(args.rounds):
        for img, truth in tables:
            c = time.process_time()
            ms["reference"].append(ref.once())
            cpu["reference"].append((time.process_time() - c) * 1000)
            for name, read in steps:
                t, c = time.perf_counter(), time.process_time()
                found = read(img)
                ms[name].append((time.perf_counter() - t) * 1000)
                cpu[name].append((time.process_time() - c) * 1000)
                if r == 0:
                    labels = [s.label for s in found]
                    right[name] += sum(min(labels.count(x), truth.count(x)) for x in set(truth))
    ref_med = statistics.median(ms["reference"])
    ref_cpu = statistics.median(cpu["reference"])
    rows = []
    prev = None
    for name, _ in steps:
        med = statistics.median(ms[name])
        cpu_med = statistics.median(cpu[name])
        rows.append({"step": name, "ms_median": round(med, 1), "ratio_to_reference": round(med / ref_med, 3),
                     "of_previous": round(med / prev, 3) if prev else None,
                     "cpu_ms_median": round(cpu_med, 1), "cpu_ratio_to_reference": round(cpu_med / ref_cpu, 3),
                     "cards_read_right": f"{right[name]}/{sum(len(t) for _, t in tables)}"})
        prev = med
    out = {"benchmark": "photo_steps",
           "command": "python benchmarks/photo_steps.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "size": args.size, "tables": len(tables), "rounds": args.rounds,
           "reference_ms_median": round(ref_med, 1), "reference_cpu_ms_median": round(ref_cpu, 1),
           "steps": rows,
           "load_average": [round(v, 1) for v in os.getloadavg()],
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
