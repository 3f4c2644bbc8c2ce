"""The live table's cost per frame, as a fraction of a detector's forward pass timed alongside.

Scripted games on the synthetic table (the reader and the camera referee, as ``companion bench``
plays them; rendering is not timed) report each frame's own time (``FrameReport.ms``). A frame
is *quiet* when the reader stopped early (``quiet``, ``moving``, ``settling``, ``hands``) and
*with a change* otherwise (it read regions). The reference (:mod:`benchmarks.reference`:
YOLOv8n's architecture at 640, cv2.dnn) runs once every ``--every`` frames in the same
process, between frames, so both are timed under the same load; OpenCV uses ``--threads``.

    .venv/bin/python benchmarks/live_frame_bench.py [--games grid,flip,classic] [--seed 5]
        [--actions 20] [--size 1280x720] [--threads 2] [--json OUT.json]

Reported per game and over all: median, 10th/90th/95th percentile and worst frame (ms) of each
kind, and the reference's median; ``*_ratio`` is the frame's median over the reference's
(goals: a quiet frame <= 1/50, a frame with a change <= 1/10).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

QUIET_STATES = ("quiet", "moving", "settling", "hands")
GOALS = {"quiet": 1 / 50, "change": 1 / 10}


def _spread(values: list[float]) -> dict:
    if not values:
        return {"frames": 0}
    s = sorted(values)

    def pct(q: float) -> float:
        return round(s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))], 3)

    return {"frames": len(s), "median": round(statistics.median(s), 3), "p10": pct(10),
            "p90": pct(90), "p95": pct(95), "worst": round(s[-1], 3)}


class _Timed:
    """The reader, each frame's kind and time kept, the reference run every ``every`` frames."""

    def __init__(self, reader, reference, every: int):
        self.reader = reader
        self.reference = reference
        self.every = every
        self.ms: dict[str, list[float]] = {"quiet": [], "change": []}
        self.reference_ms: list[float] = []

    def process(self, image, t=None):
        report = self.reader.process(image, t=t)
        self.ms["quiet" if report.state in QUIET_STATES else "change"].append(report.ms)
        if (self.reader.frames % self.every) == 0:
            self.reference_ms.append(self.reference.once())
        return report

    def __getattr__(self, name):
        # the rest of the reader's interface (game, view, forget, flush_reaches, ...) as it is
        return getattr(self.reader, name)


def play(game: str, seed: int, actions: int, size: tuple[int, int], reference, every: int) -> dict:
    from simulator.pile_script import PileScript
    from simulator.script import GridScript, run_script
    from vision.table_reader import TableReader

    script = GridScript(actions, seed=seed) if game == "grid" else PileScript(actions, game=game, seed=seed)
    timed = _Timed(TableReader(game), reference, every)
    started = time.perf_counter()
    result = run_script(script, width=size[0], height=size[1], seed=seed, reader=timed)
    return {"game": game, "seed": seed, "exact": result.exact, "frames": result.frames,
            "wall_s": round(time.perf_counter() - started, 1), "ms": timed.ms,
            "reference_ms": timed.reference_ms}


def summary(ms: dict[str, list[float]], reference_ms: list[float]) -> dict:
    ref = statistics.median(reference_ms)
    out: dict = {"reference_ms_median": round(ref, 2), "reference_runs": len(reference_ms)}
    for kind in ("quiet", "change"):
        spread = _spread(ms[kind])
        out[kind + "_ms"] = spread
        if spread["frames"]:
            out[kind + "_ratio"] = round(spread["median"] / ref, 4)
            out[kind + "_reference_over_frame"] = round(ref / spread["median"], 1)
            out[kind + "_goal_met"] = spread["median"] / ref <= GOALS[kind]
    return out


def main(argv=None) -> int:
    from reference import RUNTIMES, Reference, ReferenceMissing

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="grid,flip,classic")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--actions", type=int, default=20)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--threads", type=int, default=2, help="OpenCV threads (default 2)")
    ap.add_argument("--every", type=int, default=20, help="frames between reference runs (default 20)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--reference-runtime", choices=RUNTIMES, default=RUNTIMES[0],
                    help="what runs the reference (default OpenCV's dnn; onnxruntime: as the reader's models)")
    args = ap.parse_args(argv)
    import cv2

    cv2.setNumThreads(args.threads)
    try:
        reference = Reference(runtime=args.reference_runtime)
    except ReferenceMissing as e:
        print(f"live_frame_bench: {e}", file=sys.stderr)
        return 2
    size = tuple(int(v) for v in args.size.split("x"))
    runs, all_ms, all_ref = [], {"quiet": [], "change": []}, []
    for game in args.games.split(","):
        run = play(game, args.seed, args.actions, size, reference, args.every)
        for kind in all_ms:
            all_ms[kind] += run["ms"][kind]
        all_ref += run["reference_ms"]
        runs.append({"game": game, "seed": run["seed"], "exact": run["exact"], "frames": run["frames"],
                     "wall_s": run["wall_s"], **summary(run["ms"], run["reference_ms"])})
    out = {"benchmark": "live_frame_bench",
           "command": "python benchmarks/live_frame_bench.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "size": args.size, "opencv_threads": args.threads,
           "reference": f"YOLOv8n architecture, 640x640, {args.reference_runtime}", "goals": {"quiet_ratio": "<= 1/50",
                                                                         "change_ratio": "<= 1/10"},
           **summary(all_ms, all_ref), "games": runs, "machine": platform.machine(),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0 if all(r["exact"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
