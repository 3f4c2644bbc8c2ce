"""The scripted synthetic game written to a video file, then replayed through the OpenCV source.

    .venv/bin/python benchmarks/table_video.py [ACTIONS] [WIDTH HEIGHT]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import cv2

from vision.sources import OpenCVSource
from vision.synthetic import SyntheticTable
from vision.synthetic.script import GridScript, run_script


def main(n: int, w: int, h: int) -> dict:
    script = GridScript(n, seed=1)
    steps = list(script.frames())
    path = str(Path(tempfile.mkdtemp()) / "table.avi")
    table = SyntheticTable(w, h, seed=1)
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 30, (w, h))
    for step in steps:
        table.pose, table.lighting = step.pose, step.lighting
        writer.write(table.render(step.scene))
    writer.release()
    source = OpenCVSource(path)
    frames = ((frame.image, step) for frame, step in zip(source, steps))
    result = run_script(script, frames_source=frames)
    return {"actions": n, "frames": result.frames, "exact": result.exact,
            "first_difference": result.first_difference(), "questions": result.questions,
            "video_mb": round(Path(path).stat().st_size / 1e6, 1)}


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1280, 720)
    print(json.dumps(main(n, w, h)))
