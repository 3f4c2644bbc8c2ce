"""What this machine reads and referees, and how long each stage takes: one JSON file that
scripts/arch_compare.py compares between two architectures (scripts/arm64-check.sh runs it on
x86_64 and, under emulation, on aarch64).

    python scripts/arch_probe.py --out probe.json [--actions 8] [--seed 1]

* ``recognize``: ``companion recognize --json`` of the same venv on the samples/ photos, as
  the README runs them (``--whole-only`` on all three, and the default two passes on one), each
  line as printed, the command's wall time beside it.
* ``game``: a scripted grid game (``simulator.script.GridScript``, as ``companion bench``
  plays it) through the live pipeline -- synthetic frames, the table reader, the camera
  referee: every engine event in order, and each frame's time by stage: a quiet frame, a frame
  with a change, and an event (the frame whose reading the referee takes, plus the referee's
  work on it).
OpenCV runs on one thread (``OPENCV_FOR_THREADS_NUM=1``); ``OPENCV_CPU_DISABLE`` in the
environment (as benchmarks/pi_budget.py sets it: no AVX, 128-bit vectors as on a Pi's NEON) is
recorded and honoured.

* ``sysbench_events_per_s``: sysbench's single-thread CPU score here (where it is installed),
  the figure the cost model scales by (published for the Pi 4 and Pi 5).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# One thread for OpenCV here and in the `companion recognize` it starts (read when OpenCV loads):
# the cost model scales by a single-thread score.
os.environ["OPENCV_FOR_THREADS_NUM"] = "1"

#: The recognize commands run: (name, arguments after ``companion recognize --json``).
RECOGNIZE = (
    ("whole-only", ["--whole-only", "samples/grid-table.jpg", "samples/flip-light.jpg",
                    "samples/flip-dark.jpg"]),
    ("two-passes", ["--deck", "flip", "samples/flip-dark.jpg"]),
)

#: the reader's states whose frames are "quiet" (nothing new on the table), as companion bench
#: counts them; every other state's frame is a frame with a change
QUIET_STATES = ("quiet", "moving", "settling", "hands")


def _median(values):
    return round(statistics.median(values), 3) if values else None


def recognize(companion: str) -> dict:
    out = {}
    for name, args in RECOGNIZE:
        started = time.perf_counter()
        proc = subprocess.run([companion, "recognize", "--json", *args], cwd=REPO,
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"companion recognize {' '.join(args)} failed ({proc.returncode}):\n"
                             + proc.stderr[-2000:])
        images = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        out[name] = {"command": "companion recognize --json " + " ".join(args),
                     "wall_s": round(wall, 2), "images": images}
    return out


class _TimedReader:
    """The table reader, each frame's state and time kept (and whether it gave a reading)."""

    def __init__(self, reader):
        self.reader = reader
        self.frames: list[tuple[str, float, bool]] = []

    def process(self, image, t):
        report = self.reader.process(image, t=t)
        self.frames.append((report.state, report.ms, report.reading is not None))
        return report


def game(actions: int, seed: int, width: int, height: int) -> dict:
    from companion.referee.camera import CameraReferee
    from simulator.script import GridScript, run_script
    from vision.table_reader import TableReader

    script = GridScript(actions, seed=seed)
    reader = _TimedReader(TableReader(script.game))
    referee_ms: list[float] = []
    original = CameraReferee.on_reading

    def timed(self, reading):
        started = time.perf_counter()
        try:
            return original(self, reading)
        finally:
            referee_ms.append((time.perf_counter() - started) * 1000.0)

    CameraReferee.on_reading = timed
    try:
        started = time.perf_counter()
        result = run_script(script, width=width, height=height, seed=seed, reader=reader)
        wall = time.perf_counter() - started
    finally:
        CameraReferee.on_reading = original
    quiet = [ms for state, ms, _ in reader.frames if state in QUIET_STATES]
    change = [ms for state, ms, _ in reader.frames if state not in QUIET_STATES]
    reading_ms = [ms for _, ms, gave in reader.frames if gave]
    event = [a + b for a, b in zip(reading_ms, referee_ms)]
    return {
        "script": f"GridScript({actions}, seed={seed}) at {width}x{height}",
        "frames": result.frames, "exact": result.exact,
        "first_difference": result.first_difference(),
        "events": [list(e) for e in result.got],
        "wall_s": round(wall, 2),
        "stages_ms": {"quiet": _median(quiet), "change": _median(change), "event": _median(event)},
        "counts": {"quiet": len(quiet), "change": len(change), "event": len(event)},
        "event_latency_s_median": _median(result.latencies_s),
    }


def sysbench() -> float | None:
    """sysbench's single-thread CPU score (events per second, its default prime test, the best
    of three runs), the figure published for the Pi 4 and Pi 5: None where sysbench is not
    installed."""
    import shutil

    if shutil.which("sysbench") is None:
        return None
    best = None
    for _ in range(3):  # the best of three: the least disturbed by other programs
        proc = subprocess.run(["sysbench", "cpu", "--threads=1", "--time=3", "run"],
                              capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            if "events per second" in line:
                score = float(line.split(":")[1])
                best = score if best is None else max(best, score)
    return best


def probe(actions: int, seed: int, width: int, height: int) -> dict:
    import cv2
    import numpy

    companion = str(Path(sys.executable).with_name("companion"))
    started = time.perf_counter()
    out = {
        "machine": platform.machine(), "python": platform.python_version(),
        "numpy": numpy.__version__, "opencv": cv2.__version__,
        "opencv_threads": cv2.getNumThreads(),
        "opencv_cpu_disable": os.environ.get("OPENCV_CPU_DISABLE", ""),
        "opencv_avx2": bool(cv2.checkHardwareSupport(11)),
        "recognize": recognize(companion),
        "game": game(actions, seed, width, height),
        "sysbench_events_per_s": sysbench(),
    }
    out["wall_s"] = round(time.perf_counter() - started, 1)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the JSON file to write")
    ap.add_argument("--actions", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    args = ap.parse_args(argv)
    out = probe(args.actions, args.seed, args.width, args.height)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    g = out["game"]
    print(f"    {out['machine']}: Python {out['python']}, numpy {out['numpy']}, OpenCV "
          f"{out['opencv']}; recognize {sum(r['wall_s'] for r in out['recognize'].values()):.1f} s, "
          f"game {g['frames']} frames {g['wall_s']} s, {len(g['events'])} events, "
          f"exact {g['exact']}; sysbench {out['sysbench_events_per_s']} events/s; "
          f"{out['wall_s']} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
