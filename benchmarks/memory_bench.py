"""Resident memory of ``companion run`` reading a recorded video through the real pipeline, and
what each part of it costs.

    .venv/bin/python benchmarks/memory_bench.py [--seconds 20] [--json OUT.json]

1. A video is recorded with the project's own tool (``companion record --camera synthetic``: the
   synthetic table playing, 1280x720 at 15 frames a second) into a temporary folder.
2. ``companion run --camera opencv:VIDEO`` (referee mode, its web server on a free port, its own
   event log in the temporary folder) reads it; its resident memory (``VmRSS``) is sampled until
   the video has been read (the process stops using the CPU), then the peak (``VmHWM``) is taken
   and the process stopped.
3. The parts, measured one after the other in a fresh interpreter (the growth of ``VmRSS`` after
   each step): the interpreter; numpy; OpenCV; the companion's packages (the composition root,
   the table reader, the web app: Flask and waitress); the card model (``CardReader``); the table
   video decoder; the table reader's state and working memory after reading the video's frames;
   and the frame buffers (a 1280x720 BGR frame
   is 2.8 MB: the frame being read, the reader's previous frame and the JPEG snapshot's).
4. What a Pi adds: picamera2's buffers, computed from the ``buffer_count`` the Pi source asks
   for (:class:`vision.sources.PiCameraSource`); and what it takes away: the video decoder (the
   camera's frames are raw). The picamera2 / libcamera libraries themselves are not installed
   here and are not counted (the output says so).

The goal: at most 150 MB on the Pi, its buffers counted. Memory is not a timing, so
no reference detector is needed here.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
W, H = 1280, 720
FRAME_MB = W * H * 3 / 2**20


def _status(pid: int) -> dict[str, float]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) / 1024
    except FileNotFoundError:
        pass
    return out


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _companion(*args: str) -> list[str]:
    return [sys.executable, "-m", "app", *args]


def record(folder: Path, seconds: float) -> Path:
    video = folder / "table.avi"
    subprocess.run(_companion("record", str(video), "--camera", "synthetic", "--seconds", str(seconds),
                              "--width", str(W), "--height", str(H), "--fps", "15"),
                   cwd=REPO, check=True, capture_output=True, timeout=600)
    return video


def run_companion(folder: Path, video: Path, limit_s: float) -> dict:
    # no GPIO here: mock pins (their memory is gpiozero's, counted like a Pi's)
    env = dict(os.environ, PYTHONUNBUFFERED="1", GPIOZERO_PIN_FACTORY="mock")
    proc = subprocess.Popen(_companion("run", "--camera", f"opencv:{video}", "--mode", "referee",
                                       "--host", "127.0.0.1", "--port", str(_free_port()),
                                       "--log", str(folder / "events.sqlite")),
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples, started = [], time.monotonic()
    idle_since, last_cpu = None, 0.0
    try:
        while time.monotonic() - started < limit_s and proc.poll() is None:
            time.sleep(0.5)
            st = _status(proc.pid)
            if "VmRSS" in st:
                samples.append(round(st["VmRSS"], 1))
            cpu = _cpu_s(proc.pid)
            # the video read: the camera thread only waits (0.5 s) for a frame that never comes
            if cpu - last_cpu < 0.05 and time.monotonic() - started > 5:
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since > 3:
                    break
            else:
                idle_since = None
            last_cpu = cpu
        peak = _status(proc.pid).get("VmHWM")
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    return {"peak_rss_mb": round(peak, 1) if peak else None,
            "rss_mb_last": samples[-1] if samples else None,
            "rss_mb_median": sorted(samples)[len(samples) // 2] if samples else None,
            "seconds_sampled": round(time.monotonic() - started, 1),
            "read_whole_video": idle_since is not None,
            "stderr_tail": err.decode(errors="replace")[-300:] if proc.returncode not in (0, -15) else ""}


_PARTS = r"""
import json, sys
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS'):
            return int(line.split()[1]) / 1024
steps = [('interpreter', rss())]
import numpy
steps.append(('numpy', rss()))
import cv2
steps.append(('opencv', rss()))
import app.runner, vision.table_reader, vision.recognize, web.app, web, flask, waitress
steps.append(('companion packages (composition root, reader, web: flask, waitress)', rss()))
from vision.recognize import CardReader
reader = CardReader()
steps.append(('card model (CardReader, ONNX Runtime)', rss()))
from vision.sources import OpenCVSource
from vision.table_reader import TableReader
source = OpenCVSource(sys.argv[1])
for n, frame in enumerate(source):
    if n >= 149:
        break
steps.append(('video decoder (150 frames decoded and dropped)', rss()))
source.close()
table = TableReader('grid')
n = 0
for frame in OpenCVSource(sys.argv[1]):
    table.process(frame.image)
    n += 1
    if n >= 150:
        break
steps.append(('table reader (its state and working memory after %d frames)' % n, rss()))
print(json.dumps(steps))
"""


def parts(video: Path) -> list[dict]:
    out = subprocess.run([sys.executable, "-c", _PARTS, str(video)], cwd=REPO, check=True,
                         capture_output=True, text=True, timeout=900)
    steps = json.loads(out.stdout.strip().splitlines()[-1])
    rows, before = [], 0.0
    for name, rss in steps:
        rows.append({"part": name, "mb": round(rss - before, 1), "rss_after_mb": round(rss, 1)})
        before = rss
    return rows


def pi_buffers() -> dict:
    """picamera2's buffers as the Pi source asks for them (read from vision/sources.py)."""
    import re

    text = (REPO / "vision" / "sources.py").read_text()
    m = re.search(r"buffer_count\s*=\s*(\d+)", text)
    count = int(m.group(1)) if m else 6  # picamera2's default for a video configuration
    return {"buffer_count": count, "asked_in_sources_py": bool(m),
            "buffers_mb": round(count * FRAME_MB, 1),
            "note": "RGB888 1280x720 buffers (2.6 MiB each); picamera2 and libcamera themselves are "
                    "not installed here and are not counted"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="length of the recorded video")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="uno-mem-") as tmp:
        folder = Path(tmp)
        video = record(folder, args.seconds)
        run = run_companion(folder, video, limit_s=max(120.0, 8 * args.seconds))
        rows = parts(video)
    frames = {"part": "frame buffers (the frame read, the reader's previous frame, the snapshot)",
              "mb": round(3 * FRAME_MB, 1), "computed": True}
    pi = pi_buffers()
    peak = run["peak_rss_mb"] or 0.0
    decoder = next(r["mb"] for r in rows if r["part"].startswith("video decoder"))
    out = {
        "benchmark": "memory_bench",
        "command": "python benchmarks/memory_bench.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "video": f"{W}x{H}, 15 fps, {args.seconds:g} s, companion record --camera synthetic (MJPG)",
        "companion_run": run,
        "parts": rows + [frames],
        "pi_adds": pi,
        # on the Pi frames come from picamera2's buffers, not from a video decoder
        "pi_estimate_mb": round(peak - decoder + pi["buffers_mb"], 1),
        "pi_estimate": "peak here - the video decoder + picamera2's buffers (picamera2's and "
                       "libcamera's own code not counted: not installed here)",
        "with_decoder_and_buffers_mb": round(peak + pi["buffers_mb"], 1),
        "goal_mb": 150,
        "machine": platform.machine(), "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0 if peak and out["pi_estimate_mb"] <= 150 else 1


if __name__ == "__main__":
    sys.exit(main())
