"""``companion record OUT.avi``: save what the camera sees (video plus per-frame timestamps).

The video replays through the whole pipeline later: ``--source opencv:OUT.avi`` (the timestamps
in ``OUT.avi.times`` keep the real timing).
"""

from __future__ import annotations

import argparse
import sys
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("record", help="save what the camera sees (video plus timestamps) for replay")
    p.add_argument("out", help="video file to write (.avi, MJPG)")
    p.add_argument("--source", default="auto", help="camera source (see docs/live-table.md)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long to record (default 60)")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--fps", type=int, default=15)
    p.set_defaults(run=run)


def record(source, out: str, seconds: float, fps: float) -> int:
    """Write frames of ``source`` to ``out`` and their times to ``out.times``; returns the count."""
    import cv2

    writer = None
    times = []
    start = None
    try:
        for frame in source:
            if start is None:
                start = frame.time
            if frame.time - start > seconds:
                break
            if writer is None:
                h, w = frame.image.shape[:2]
                writer = cv2.VideoWriter(out, cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
                if not writer.isOpened():
                    raise OSError(f"cannot write video {out}")
            writer.write(frame.image)
            times.append(frame.time - start)
    finally:
        if writer is not None:
            writer.release()
        with open(out + ".times", "w") as fh:
            fh.write("\n".join(f"{t:.4f}" for t in times) + "\n")
    return len(times)


def run(args: argparse.Namespace) -> int:
    from vision.sources import CameraLost
    from simulator.source import open_source

    try:
        source = open_source(args.source, width=args.width, height=args.height, fps=args.fps)
    except (CameraLost, ValueError) as exc:
        print(f"companion record: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    with source:
        n = record(source, args.out, args.seconds, args.fps)
    print(f"{n} frames in {time.monotonic() - started:.1f} s -> {args.out} (+ .times)")
    return 0
