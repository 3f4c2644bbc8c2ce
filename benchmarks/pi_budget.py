"""The live pipeline's frame budget in a Pi 4's shape: OpenCV on one thread and limited to 128-bit
SIMD (AVX, AVX2, FMA3, FP16 and AVX-512 switched off, as a Pi 4's NEON is 128 bits), on the
scripted synthetic table (``companion bench``'s run: reader and camera referee).

    .venv/bin/python benchmarks/pi_budget.py [--actions 40] [--json OUT.json]

Reported as ratios to the reference detector's forward pass (:mod:`benchmarks.reference`:
YOLOv8n's architecture at 640, cv2.dnn) under the same limits, timed in the same process before,
between and after the game (the median of all): quiet frames, frames with a change, and the event
latency after the hand leaves (frame time plus the work of the frame that publishes it; it must
stay <= 0.3 s). A quiet frame must cost <= 1/50 of the reference, a frame with a change <= 1/5.
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

# before OpenCV is imported: it reads this once (names as OpenCV spells them)
os.environ["OPENCV_CPU_DISABLE"] = "AVX512-SKX,AVX512-COMMON,AVX512F,AVX2,FMA3,AVX,FP16"

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2

from reference import Reference, ReferenceMissing

DISABLED = os.environ["OPENCV_CPU_DISABLE"]

#: OpenCV's CPU feature ids (cv::CpuFeatures), checked with cv2.checkHardwareSupport.
FEATURES = {"SSE2": 2, "SSE4_2": 7, "FP16": 9, "AVX": 10, "AVX2": 11, "FMA3": 12, "AVX_512F": 13,
            "AVX512_COMMON": 257, "AVX512_SKX": 256}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--actions", type=int, default=40)
    ap.add_argument("--game", default="grid", choices=["grid", "flip", "classic"])
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    features = {k: bool(cv2.checkHardwareSupport(v)) for k, v in FEATURES.items()}
    wide = [k for k in ("AVX", "AVX2", "FMA3", "AVX_512F", "AVX512_SKX") if features[k]]
    if wide:
        print(f"OpenCV still uses {', '.join(wide)}: not a Pi's shape", file=sys.stderr)
        return 2
    try:
        ref = Reference()
    except ReferenceMissing as e:
        print(e, file=sys.stderr)
        return 2
    from app.commands.bench import bench

    ref_ms = [ref.once() for _ in range(5)]
    halves = []
    for k in range(2):  # two halves of the game, the reference timed around each
        halves.append(bench(1280, 720, args.actions // 2, seed=k, game=args.game))
        ref_ms += [ref.once() for _ in range(5)]
    ref_med = statistics.median(ref_ms)
    quiet = statistics.median(h["quiet_ms_median"] for h in halves)
    change = statistics.median(h["change_ms_median"] for h in halves)
    event = max(h["event_latency_s_median"] or 0.0 for h in halves)
    event_p95 = max(h["event_latency_s_p95"] or 0.0 for h in halves)
    out = {
        "benchmark": "pi_budget",
        "command": "python benchmarks/pi_budget.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "opencv_cpu_disable": DISABLED, "opencv_threads": cv2.getNumThreads(), "cpu_features": features,
        "reference_ms_median": round(ref_med, 1), "reference_runs": len(ref_ms),
        "quiet_ms_median": quiet, "quiet_ratio": round(quiet / ref_med, 4),
        "quiet_goal": "<= reference / 50 (0.02)",
        "change_ms_median": change, "change_ratio": round(change / ref_med, 4),
        "change_goal": "<= reference / 5 (0.2)",
        "event_latency_s_median": event, "event_latency_s_p95": event_p95, "event_goal_s": 0.3,
        "exact": all(h["exact"] for h in halves),
        "halves": [{k: h[k] for k in ("frames", "actions", "exact", "quiet_ms_p95", "change_ms_p95",
                                      "event_latency_s_median", "peak_rss_mb")} for h in halves],
        "load_average": [round(v, 1) for v in os.getloadavg()], "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    ok = out["exact"] and event <= 0.3 and out["quiet_ratio"] <= 0.02 and out["change_ratio"] <= 0.2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
