"""The pawn: found by the printed marker stuck on it (``companion mat`` prints it).

:func:`find_pawn` looks for the pawn marker (ArUco id :data:`~vision.geometry.PAWN_ID`) around
the grid, and :func:`pawn_place` says where that is for the game: a cell, or the side(s) of the
board the pawn left by. Only the area around the grid is searched (a few milliseconds), and only
when the table changed.

>>> from vision.geometry import Layout
>>> pawn_place(Layout(), (225.0, 302.5))
PawnReading(cell=(2, 2), mm=(225.0, 302.5), seen=True)
>>> pawn_place(Layout(), (30.0, 302.5)).cell
(2, -1)
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.reading import NO_PAWN, PawnReading

from .desmear import Desmear
from .geometry import PAWN_ID, Layout, View, aruco_detector

__all__ = ["PawnReading", "find_pawn", "pawn_place", "search_boxes", "NO_PAWN", "upscale_for",
           "MARKER_PX"]


def pawn_place(layout: Layout, mm: tuple[float, float]) -> PawnReading:
    """The cell under a pawn centre at ``mm``; off the grid, the cell one step beyond the edge."""
    return PawnReading(layout.cell_at(*mm), (round(float(mm[0]), 1), round(float(mm[1]), 1)), True)


def find_pawn(gray: np.ndarray, view: View, layout: Layout, search_margin_mm: float = 80.0,
              upscale: float | None = None, near: tuple[float, float] | None = None,
              desmear: Desmear | None = None,
              smeared_near: tuple[float, float] | None = None) -> PawnReading:
    """The pawn seen in the grey frame ``gray`` (its marker's centre), or :data:`NO_PAWN`.

    The search window is the grid plus ``search_margin_mm`` (a pawn that left the board lies just
    beyond it), upscaled so that a small marker still has a few pixels per module (by default
    enough for the marker to span :data:`MARKER_PX` pixels, 2x to 4x). ``near``
    (mm: where the pawn was) looks right there first (a fifteenth of a step's area), then
    within a step of it (a quarter of the work).

    ``desmear`` (a :class:`~vision.desmear.Desmear`): when no marker is found, the camera may
    have smeared it (a wobbly arm): a few straight smears are taken out of the window around
    ``smeared_near`` (mm: where the pawn was last seen, or stands at the start; else ``near``;
    else the whole search window, fewer tries) and each looked at again.
    """
    if upscale is None:
        upscale = upscale_for(view, layout)
    if near is not None:
        # where it stood (most looks: a pawn stays put while a card is played), then a step round
        for box in (_at(near, layout), _around(near, layout)):
            seen = _search(gray, view, layout, box, upscale)
            if seen.seen:
                return _saw_sharp(seen, gray, view, layout, desmear)
    whole = search_boxes(layout, None, search_margin_mm)[0]
    seen = _search(gray, view, layout, whole, upscale)
    if seen.seen:
        return _saw_sharp(seen, gray, view, layout, desmear)
    if desmear is None:
        return seen
    # a smeared marker: the window around where it was (a quarter of the work), else all of it
    around = smeared_near if smeared_near is not None else near
    box = _around(around, layout) if around is not None else whole
    window = _window(gray, view, box)[0]
    if not desmear.looks_smeared(window):
        return NO_PAWN   # as sharp as when the marker was last seen: hidden, not smeared
    for smear, sharp in desmear.candidates(window, budget=6 if around else 2):
        seen = _search(gray, view, layout, box, upscale, window=sharp)
        if seen.seen:
            desmear.worked(smear)
            return seen
    return NO_PAWN


def search_boxes(layout: Layout, near: tuple[float, float] | None = None,
                 search_margin_mm: float = 80.0) -> list[tuple[float, float, float, float]]:
    """The boxes of the mat (mm: x0, y0, x1, y1) that :func:`find_pawn` looks in without a
    ``desmear``: the grid with ``search_margin_mm`` around it, and the step around ``near``."""
    g = layout.grid_rect
    whole = (g.x0 - search_margin_mm, g.y0 - search_margin_mm, g.x1 + search_margin_mm,
             g.y1 + search_margin_mm)
    return [whole] if near is None else [whole, _around(near, layout)]


def _at(mm: tuple[float, float], layout: Layout) -> tuple[float, float, float, float]:
    """The mat's box (mm) round a marker centred at ``mm``, its width again on every side: the
    marker where it stood, nudged a little."""
    r = 1.5 * layout.pawn_marker_mm
    return (mm[0] - r, mm[1] - r, mm[0] + r, mm[1] + r)


def _around(mm: tuple[float, float], layout: Layout) -> tuple[float, float, float, float]:
    """The mat's box (mm) within a step (and a half) of ``mm``."""
    px, py = layout.pitch
    return (mm[0] - 1.6 * px, mm[1] - 1.6 * py, mm[0] + 1.6 * px, mm[1] + 1.6 * py)


def _saw_sharp(seen: PawnReading, gray: np.ndarray, view: View, layout: Layout,
               desmear: Desmear | None) -> PawnReading:
    """``seen`` (found as the frame is): how sharp its window is, told to ``desmear``."""
    if desmear is not None and seen.mm is not None:
        desmear.saw_sharp(_window(gray, view, _around(seen.mm, layout))[0])
    return seen


#: How many pixels the pawn's marker should span once upscaled for the detector.
MARKER_PX = 48.0


def upscale_for(view: View, layout: Layout) -> float:
    """The upscale that makes the pawn's marker about :data:`MARKER_PX` wide (2x to 4x)."""
    marker_px = layout.pawn_marker_mm * view.px_per_mm()
    return float(min(4.0, max(2.0, MARKER_PX / max(marker_px, 1.0))))


def _window(gray: np.ndarray, view: View, box) -> tuple[np.ndarray, tuple[int, int]]:
    """The part of ``gray`` that shows the mat's ``box`` (mm), and its top-left pixel."""
    bx0, by0, bx1, by1 = box
    quad = view.to_image(np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]]))
    h, w = gray.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(0)), 0, [w, h]).astype(int)
    x1, y1 = np.clip(np.ceil(quad.max(0)), 0, [w, h]).astype(int)
    return gray[y0:y1, x0:x1], (int(x0), int(y0))


def _search(gray: np.ndarray, view: View, layout: Layout, box, upscale: float,
            window: np.ndarray | None = None) -> PawnReading:
    """The pawn's marker in the mat's ``box`` (``window``: that part of the frame, as
    :func:`_window` cuts it, already worked on)."""
    roi, (x0, y0) = _window(gray, view, box)
    if window is not None:
        roi = window
    if roi.size == 0:
        return NO_PAWN
    if upscale != 1.0:
        # cubic keeps a small marker's module edges sharp: at 640x480 (a 22 mm marker about 16 px)
        # the pawn was found in 24 of 48 noisy frames at 2x linear, 36 at 3x cubic
        roi = cv2.resize(roi, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
    corners, ids, _ = aruco_detector().detectMarkers(roi)
    if ids is None:
        return NO_PAWN
    for c, i in zip(corners, ids.ravel()):
        if int(i) == PAWN_ID:
            center = c.reshape(4, 2).mean(0) / upscale + (x0, y0)
            mm = view.to_mat([center])[0]
            return pawn_place(layout, (float(mm[0]), float(mm[1])))
    return NO_PAWN
