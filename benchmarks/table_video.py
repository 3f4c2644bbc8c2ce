"""The scripted synthetic games written to a video file (MJPG), then replayed through the OpenCV
source (:class:`vision.sources.OpenCVSource`) and the live pipeline: compression and a real
decoder in the loop. Same acceptance as ``table_e2e.py``: exactly the scripted events.

    .venv/bin/python benchmarks/table_video.py [ACTIONS] [--games grid,flip,classic] [--size WxH]

Prints one JSON line per game; exits 1 unless every game is exact. The video is deleted after.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2

from vision.sources import OpenCVSource
from simulator import SyntheticTable
from simulator.pile_script import PileScript
from simulator.script import GridScript, run_script


def main(game: str, n: int, w: int, h: int, seed: int = 1) -> dict:
    script = GridScript(n, seed=seed) if game == "grid" else PileScript(n, game=game, seed=seed)
    steps = list(script.frames())
    folder = Path(tempfile.mkdtemp())
    path = str(folder / f"{game}.avi")
    table = SyntheticTable(w, h, seed=seed)
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 30, (w, h))
    for step in steps:
        table.pose, table.lighting = step.pose, step.lighting
        writer.write(table.render(step.scene))
    writer.release()
    size = Path(path).stat().st_size
    started = time.perf_counter()
    source = OpenCVSource(path)
    frames = ((frame.image, step) for frame, step in zip(source, steps))
    result = run_script(script, frames_source=frames)
    source.close()
    Path(path).unlink()
    return {"game": game, "actions": len(script.table_actions), "frames": result.frames,
            "exact": result.exact, "first_difference": result.first_difference(),
            "questions": result.questions,
            "questions_by_kind": {k.split("-", 1)[1]: v for k, v in result.stats.items()
                                  if k.startswith("questions-")},
            "video_mb": round(size / 1e6, 1), "wall_s": round(time.perf_counter() - started, 1)}


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("actions", type=int, nargs="?", default=300)
    p.add_argument("--games", default="grid,flip,classic")
    p.add_argument("--size", default="1280x720")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    ok = True
    for game in a.games.split(","):
        out = main(game, a.actions, w, h, a.seed)
        ok &= bool(out["exact"])
        print(json.dumps(out), flush=True)
    sys.exit(0 if ok else 1)
