"""``companion record OUT.avi``: save what the camera sees (video plus per-frame timestamps).

The video replays through the whole pipeline later: ``--camera opencv:OUT.avi`` (the timestamps
in ``OUT.avi.times`` keep the real timing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

#: Frames looked at before the video is opened: its header's frame rate is measured on them.
RATE_FRAMES = 8


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "record", help="save what the camera sees (video plus timestamps) for replay",
        description="Records the camera to an MJPG video OUT.avi and the time of every frame to "
                    "OUT.avi.times, so that a session can be replayed through the whole "
                    "pipeline later (companion run --camera opencv:OUT.avi). --camera takes the "
                    "sources [camera] source takes: auto is the Pi camera and is refused where "
                    "there is none (name opencv:0 for a USB webcam, or synthetic to record the "
                    "synthetic table). --seconds is the video's length in the camera's time "
                    "(the synthetic table's may run slower than real time). Exit status 2 when "
                    "the camera or the output folder is missing.")
    p.add_argument("out", metavar="OUT.avi", help="video file to write (.avi, MJPG); its folder must exist")
    p.add_argument("--camera", default="auto",
                   help="camera source: auto (the Pi camera), picamera, opencv:0, opencv:FILE, "
                        "folder:DIR, synthetic (see docs/live-table.md)")
    # the option's old name, still taken (not shown: the manual says --camera everywhere)
    p.add_argument("--source", dest="camera", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--seconds", type=_positive_float, default=60.0,
                   help="how long a video to record (default 60)")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--fps", type=int, default=15, help="frame rate asked of the camera (default 15)")
    p.set_defaults(run=run)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def measured_fps(times: list[float], fallback: float) -> float:
    """The frame rate the timestamps show (median gap), or ``fallback`` with fewer than two.

    >>> measured_fps([0.0, 1 / 30, 2 / 30, 3 / 30], 15)
    30.0
    >>> measured_fps([0.0], 15)
    15
    """
    gaps = [b - a for a, b in zip(times, times[1:]) if b > a]
    return round(1.0 / statistics.median(gaps), 2) if gaps else fallback


def record(source, out: str, seconds: float, fps: float) -> int:
    """Write frames of ``source`` to ``out`` and their times to ``out.times``; returns the count.

    The video's header gets the frame rate measured on its first frames (``fps`` only when
    there are too few), so that a player shows it at the speed it was taken; the ``.times``
    file has the exact time of every frame.
    """
    import cv2

    writer = None
    times: list[float] = []
    waiting = []  # the first frames, held until their rate is known
    start = None

    def write(image) -> None:
        nonlocal writer
        if writer is None:
            h, w = image.shape[:2]
            rate = measured_fps(times[:RATE_FRAMES], fps)
            writer = cv2.VideoWriter(out, cv2.VideoWriter_fourcc(*"MJPG"), rate, (w, h))
            if not writer.isOpened():
                raise OSError(f"cannot write the video {out}")
        writer.write(image)

    try:
        for frame in source:
            if start is None:
                start = frame.time
            if frame.time - start >= seconds:  # [0, seconds): N s at F fps is N*F frames
                break
            times.append(frame.time - start)
            if writer is None and len(times) < RATE_FRAMES:
                waiting.append(frame.image)
                continue
            for image in waiting:
                write(image)
            waiting.clear()
            write(frame.image)
        for image in waiting:
            write(image)
    finally:
        if writer is not None:
            writer.release()
    with open(out + ".times", "w") as fh:
        fh.write("\n".join(f"{t:.4f}" for t in times) + "\n")
    return len(times)


def run(args: argparse.Namespace) -> int:
    from vision.sources import CameraLost, pi_camera_present
    from simulator.source import open_source

    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        print(f"companion record: cannot write {args.out}: the folder {folder} does not exist",
              file=sys.stderr)
        return 2
    if args.camera == "auto" and not pi_camera_present():
        print("companion record: no Pi camera found (--camera auto). Name the camera: "
              "--camera opencv:0 (a USB webcam), or --camera synthetic to record the synthetic "
              "table.", file=sys.stderr)
        return 2
    try:
        source = open_source(args.camera, width=args.width, height=args.height, fps=args.fps)
    except (CameraLost, ValueError) as exc:
        print(f"companion record: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        with source:
            n = record(source, args.out, args.seconds, args.fps)
    except OSError as exc:
        print(f"companion record: {exc}", file=sys.stderr)
        return 1
    print(f"{n} frames in {time.monotonic() - started:.1f} s -> {args.out} (+ .times)")
    return 0
