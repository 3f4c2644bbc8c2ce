"""Render the sample table photos of ``samples/`` (``python scripts/render_samples.py``).

The photos are the project's own: the synthetic table (:mod:`simulator.render`: the mat, the
camera's perspective, light and noise) with the procedural card drawings of
:mod:`vision.card_art`. No real photo is used, so they may live in the repository and give
``companion recognize`` something to read on a fresh clone::

    .venv/bin/companion recognize samples/*.jpg

``samples/labels.json`` says which cards lie on each photo (and with which ``--deck`` to read
it); ``tests/vision/test_samples.py`` reads the photos and checks them against it. The output is the
same on every run (fixed seeds), so re-rendering changes nothing unless the renderer changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator import Placement, Scene, SyntheticTable

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "samples"
#: JPEG quality: every photo stays well under 200 KB.
QUALITY = 85


def _grid(cards: dict[int, Placement]) -> tuple[tuple[Placement, ...], ...]:
    return tuple((cards[i],) if i in cards else () for i in range(25))


def samples() -> list[tuple[str, str, Scene, dict]]:
    """(file name, deck, scene, table options) of every sample photo."""
    classic = {
        0: Placement("red-1", 2, -1, 3), 2: Placement("blue-7", -2, 1, -4),
        4: Placement("green-skip", 1, 2, 2), 6: Placement("yellow-4", -1, -2, -3),
        8: Placement("wild", 2, 0, 5), 12: Placement("red-6", 0, 1, 3),
        16: Placement("blue-reverse", -2, 2, 4), 18: Placement("green-draw-two", 1, -1, -5),
        20: Placement("wild-draw-four", 2, 1, 3), 24: Placement("yellow-0", -1, 0, -2),
    }
    light = {
        1: Placement("red-draw-one", 1, 1, 4, "light"), 7: Placement("yellow-flip", -2, 0, -3, "light"),
        11: Placement("blue-3", 0, 2, 6, "light"), 13: Placement("green-9", 2, -2, -4, "light"),
        17: Placement("wild", -1, 1, 2, "light"), 23: Placement("wild-draw-two", 1, 0, -6, "light"),
    }
    dark = {
        3: Placement("pink-5", 1, -1, 5, "dark"), 5: Placement("teal-skip-everyone", -2, 1, -3, "dark"),
        9: Placement("orange-draw-five", 2, 2, 4, "dark"), 15: Placement("purple-reverse", 0, -2, -5, "dark"),
        19: Placement("wild-draw-color", -1, 1, 3, "dark"),
    }
    return [
        ("grid-table.jpg", "classic",
         Scene(grid=_grid(classic), discard=(Placement("red-5", 1, -2, 8),), draw_count=30), {}),
        ("flip-light.jpg", "flip",
         Scene(grid=_grid(light), discard=(Placement("green-2", -2, 1, -12, "light"),),
               draw_count=20, draw_top=Placement("teal-4", face_set="dark")),
         {"nudge": (14.0, -9.0, 4.0)}),
        ("flip-dark.jpg", "flip",
         Scene(grid=_grid(dark), discard=(Placement("purple-7", 2, 0, 15, "dark"),),
               draw_count=0), {"nudge": (-10.0, 12.0, -5.0)}),
    ]


def labels_of(scene: Scene) -> list[str]:
    """Every card seen on the scene (a draw pile by its top: ``back``, or a Flip card's other
    side), sorted."""
    out = [stack[-1].label for stack in scene.grid if stack]
    out += [scene.discard[-1].label] if scene.discard else []
    out += [scene.draw_top.label] if scene.draw_count else []
    return sorted(out)


def render(name: str, scene: Scene, options: dict, seed: int) -> Path:
    table = SyntheticTable(1280, 720, seed=seed)
    if "nudge" in options:
        table.pose = table.pose.nudged(*options["nudge"])
    image = table.render(scene, noise_seed=seed)
    path = OUT / name
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    return path


def main() -> int:
    OUT.mkdir(exist_ok=True)
    labels = {}
    for seed, (name, deck, scene, options) in enumerate(samples(), start=1):
        path = render(name, scene, options, seed)
        labels[name] = {"deck": deck, "cards": labels_of(scene)}
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB, "
              f"{len(labels[name]['cards'])} cards")
    (OUT / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
