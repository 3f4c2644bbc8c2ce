"""Hands laid open on the synthetic table, and the discard pile as it really lies.

:func:`laid_hands` puts each seat's cards in its hand zone (:func:`vision.hands.zones_for`), turned
to face the seat (a north seat's cards are upside down in the camera's view), as
:class:`~simulator.scene.Scene` ``extras``:

* ``spread``: side by side, a finger's width apart (rows of them when the zone is full; more
  than fit overlap evenly, each showing a strip): what the table asks the players to do;
* ``fan``: an arc fan (:func:`vision.overlap.hand_layout`), each card over the last: how players
  often put a hand down anyway.

:func:`messy_discard` is a discard pile as it lies after a few plays: every card thrown on
slightly off and turned, the lower ones peeking out on every side; the last card is the top.

>>> from companion.seating import Seating
>>> extras = laid_hands({"ann": ["red-7", "wild"], "ben": ["blue-2"]},
...                     Seating.around(["ann", "ben"]), "classic")
>>> [(p.label, round(p.angle / 90) * 90) for p, _at in extras]   # a few degrees off, as laid
[('red-7', 0), ('wild', 0), ('blue-2', 180)]
>>> len(messy_discard(["red-1", "red-2", "blue-2"], "classic", seed=1))
3
"""

from __future__ import annotations

import numpy as np

from vision.geometry import CARD_MM, Layout, Region
from vision.hands import zones_for
from vision.overlap import hand_layout

from .scene import Placement

__all__ = ["laid_hands", "messy_discard", "FACING", "LAY_STYLES"]

#: How a card lies to face a seat on each side (degrees clockwise on the camera's image).
FACING = {"south": 0.0, "west": 90.0, "north": 180.0, "east": 270.0}
LAY_STYLES = ("spread", "fan")
#: The gap between cards laid side by side (mm): a finger's width.
GAP_MM = 10.0


def _side_of(zone: Region) -> str:
    return zone.name.partition("-")[0]


def laid_hands(hands: dict[str, list[str]], seating, face_set: str, *, style: str = "spread",
               seed: int = 0) -> tuple[tuple[Placement, tuple[float, float]], ...]:
    """``extras`` for a :class:`~simulator.scene.Scene`: each seat's ``hands[seat]`` laid in its
    zone the ``style`` way (:data:`LAY_STYLES`), with the few millimetres and degrees a hand
    leaves (``seed``)."""
    if style not in LAY_STYLES:
        raise ValueError(f"unknown style {style!r}: expected one of {', '.join(LAY_STYLES)}")
    rng = np.random.default_rng(seed)
    zones = zones_for(seating)
    out = []
    for seat, labels in hands.items():
        zone = zones[seat]
        facing = FACING[_side_of(zone)]
        if style == "spread":
            spots = _spread(zone, len(labels), facing)
        else:
            spots = _fan(zone, len(labels), facing, rng)
        for label, ((x, y), angle) in zip(labels, spots):
            jitter = rng.normal(0, 1.5, 2) if style == "spread" else (0.0, 0.0)
            turn = float(rng.normal(0, 2.5)) if style == "spread" else 0.0
            out.append((Placement(label, 0.0, 0.0, round(angle + turn, 2) if turn else angle,
                                  face_set),
                        (float(x + jitter[0]), float(y + jitter[1]))))
    return tuple(out)


def _spread(zone: Region, n: int, facing: float) -> list[tuple[tuple[float, float], float]]:
    """Places side by side along the zone's long side, rows of them from the seat inwards."""
    cw, ch = CARD_MM
    along_x = facing in (0.0, 180.0)
    length = (zone.x1 - zone.x0) if along_x else (zone.y1 - zone.y0)
    depth = (zone.y1 - zone.y0) if along_x else (zone.x1 - zone.x0)
    rows = max(1, int((depth + GAP_MM) // (ch + GAP_MM)))
    fit = max(1, int((length + GAP_MM) // (cw + GAP_MM)))
    rows = min(rows, -(-n // fit)) if n else 1
    per_row = max(1, -(-n // rows))
    # more cards than fit a finger apart: each row overlaps, as evenly as the zone allows
    pitch = cw + GAP_MM if per_row <= fit else (length - cw) / (per_row - 1)
    out = []
    for i in range(n):
        row, col = divmod(i, per_row)
        in_row = min(per_row, n - row * per_row)
        a = (col - (in_row - 1) / 2) * pitch                    # along the side
        b = (row - (rows - 1) / 2) * (ch + GAP_MM)              # away from the seat: row 0 nearest
        cx, cy = zone.center
        if facing == 0.0:          # south: nearest row at the bottom
            at = (cx + a, cy - b)
        elif facing == 180.0:      # north: upside down, nearest row at the top
            at = (cx - a, cy + b)
        elif facing == 90.0:       # west: nearest row at the left
            at = (cx + b, cy - a)
        else:                      # east
            at = (cx - b, cy + a)
        out.append((at, facing))
    return out


def _fan(zone: Region, n: int, facing: float, rng) -> list[tuple[tuple[float, float], float]]:
    """An arc fan in the middle of the zone, turned to face the seat."""
    r = np.radians(facing)
    rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    centre = np.array(zone.center) + rot @ np.array([0.0, CARD_MM[1] * 0.25])
    return [(tuple(centre + rot @ c), float(angle + facing))
            for c, angle in hand_layout("fan", n, CARD_MM[0], rng)]


def messy_discard(labels: list[str], face_set: str | None, *, seed: int = 0, spread_mm: float = 9.0,
                  turn_deg: float = 25.0,
                  layout: Layout = Layout()) -> tuple[tuple[Placement, tuple[float, float]], ...]:
    """``extras`` for a discard pile of ``labels`` (bottom first; the last is the top card) lying
    on the mat's discard place: each card thrown on up to ``spread_mm`` off the pile's centre
    and turned up to ``turn_deg``, so that the lower cards peek out on every side."""
    rng = np.random.default_rng(seed)
    at = layout.discard_pile
    out = []
    for label in labels:
        dx, dy = rng.uniform(-spread_mm, spread_mm, 2)
        angle = float(rng.uniform(-turn_deg, turn_deg)) + (180.0 if rng.random() < 0.5 else 0.0)
        out.append((Placement(label, float(dx), float(dy), round(angle, 2), face_set), at))
    return tuple(out)
