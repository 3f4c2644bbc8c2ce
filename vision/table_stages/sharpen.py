"""The camera's smear taken out where the reader will look, and how a sharp read is weighed.

A moving camera (or a long exposure) smears the picture along one line; the corner markers
measure it (:func:`vision.frame_smear.measure_smear`). :func:`unsmeared` gives the frame with
that smear taken out, once through the smear measured and once through the next shorter one of
the bank (:func:`~vision.frame_smear.length_neighbours`), and only in the piece of the frame
the regions being read (and the pawn's search) cover: the filter's work goes with the pixels.

A card is then read both as the camera saw it and from each sharpened frame. The read as seen
decides where the card lies; a sharp read replaces it only when the read as seen supports it
(:func:`surest_supported`), and a sharp read that names another card holds the card seen
within ``contradicted_odds`` of it (:func:`contradicted`) so that the referee asks instead of
committing. Ripples left by a smear taken out along a line a little off can make another card,
and differ from one smear to the next: the read as seen is the anchor.
"""

from __future__ import annotations

import numpy as np

from companion.reading import EMPTY

from ..frame_smear import length_neighbours, measure_smear, unsmear_frame_each
from ..geometry import Layout, Region, View
from ..pawn import search_boxes
from ..rectify import NARROW_MARGIN
from .frame import Frame

__all__ = ["unsmeared", "same_outline", "supported", "contradicted", "surest_supported"]


def unsmeared(frame: Frame, view: View | None, layout: Layout, names: list[str],
              pawn_look: bool = False, pawn_near: tuple[float, float] | None = None,
              pad: int = 96) -> list[np.ndarray]:
    """``frame`` with the camera's smear taken out when the corner markers show one: through
    the smear measured first, then through the next shorter smear of the bank; none for a sharp
    frame or a view without markers. Only the piece round the regions ``names`` (and, with
    ``pawn_look``, the pawn's search boxes near ``pawn_near``) is filtered, ``pad`` pixels
    wider on every side (at least a dozen smears' length: a piece's own edges ring); the rest
    of each frame is the camera's. A piece that would cover 70 % of the frame filters it
    whole."""
    if view is None or view.source == "grid":  # (no markers to measure on)
        return []
    smear = measure_smear(frame.grey, view, layout)
    if smear is None:
        return []
    smears = length_neighbours(smear)
    corners = [view.region_quad(layout.regions[n], NARROW_MARGIN + 2.0) for n in names]
    if pawn_look:
        corners += [view.region_quad(Region("pawn", *box)) for box in search_boxes(layout, pawn_near)]
    image = frame.image
    h, w = image.shape[:2]
    pad = max(pad, 12 * max(n for n, _ in smears))
    pts = np.concatenate([np.asarray(c, np.float32).reshape(-1, 2) for c in corners])
    x0, y0 = np.clip(np.floor(pts.min(0)) - 1, 0, [w, h]).astype(int)
    x1, y1 = np.clip(np.ceil(pts.max(0)) + 2, 0, [w, h]).astype(int)
    px0, py0, px1, py1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    if (px1 - px0) * (py1 - py0) >= 0.7 * w * h:
        return unsmear_frame_each(image, smears)
    out = []
    for piece in unsmear_frame_each(image[py0:py1, px0:px1], smears):
        sharp = image.copy()
        sharp[y0:y1, x0:x1] = piece[y0 - py0:y1 - py0, x0 - px0:x1 - px0]
        out.append(sharp)
    return out


def same_outline(sharp, seen, px_per_mm: float):
    """The card's outline found with the smear taken out (``sharp``) when it is the one found as
    the camera saw it (``seen``: centres within 4 mm, turned alike), else ``seen``."""
    if sharp is None or seen is None:
        return seen
    a, b = np.asarray(sharp, np.float32).reshape(4, 2), np.asarray(seen, np.float32).reshape(4, 2)
    near = np.linalg.norm(a.mean(0) - b.mean(0)) <= 4.0 * px_per_mm

    def turn(q):
        return np.degrees(np.arctan2(q[1, 1] - q[0, 1], q[1, 0] - q[0, 0]))

    alike = abs((turn(a) - turn(b) + 90.0) % 180.0 - 90.0) <= 6.0
    return sharp if near and alike else seen


def supported(sharp: dict[str, float], seen: dict[str, float]) -> dict[str, float]:
    """A card's read with the smear taken out (``sharp``) when it is surer than the read as the
    camera saw it (``seen``) and ``seen`` supports it: the card it names is among the three
    ``seen`` finds likeliest. Otherwise ``seen`` (a weak read is asked about, a wrong sure one
    could be committed)."""
    best = max(sharp, key=sharp.get)
    likeliest = sorted(seen, key=seen.get, reverse=True)[:3]
    if best in (EMPTY, "none") or best not in likeliest or sharp[best] <= max(seen.values()):
        return seen
    return sharp


def contradicted(sharp: dict[str, float], seen: dict[str, float], odds: float,
                 least: float) -> dict[str, float]:
    """The read as seen (``seen``), with the card that the read with the measured smear taken
    out (``sharp``) names instead raised to within ``odds`` of the card seen, where ``sharp``
    finds its card likelier than the one seen and at ``least`` or more; else ``seen`` as it is.
    (The card seen stays the likeliest: a mean of the two reads can make a filter's ripples the
    likeliest card.)"""
    seen_best = max(seen, key=seen.get)
    named = max(sharp, key=sharp.get)
    if named in (EMPTY, "none", seen_best) or sharp[named] < least \
            or sharp[named] <= sharp.get(seen_best, 0.0):
        return seen
    floor = seen[seen_best] / odds
    if seen.get(named, 0.0) >= floor:
        return seen
    raised = dict(seen)
    raised[named] = floor
    total = sum(raised.values())
    return {label: p / total for label, p in raised.items()}


def surest_supported(sharp: list[dict[str, float]], seen: dict[str, float]) -> dict[str, float]:
    """Of a card's reads with the smear taken out, one per smear tried (``sharp``), the surest
    that :func:`supported` takes over the read as seen; else ``seen``. (A smear taken out
    2 px too long rings, and the card reads weakly: the right length reads surest.)"""
    best = seen
    for read in sharp:
        if supported(read, seen) is read and (best is seen or max(read.values()) > max(best.values())):
            best = read
    return best
