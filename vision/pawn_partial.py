"""The pawn's marker read when a hand hides part of it.

The marker detector (:func:`vision.pawn.find_pawn`) needs the marker's whole black square: a
hand resting beside the pawn over one corner of it hides the pawn from it, and the referee is
left not knowing where the pawn went. :func:`find_partly_hidden` looks for what is left of the
marker within a step and a half of where the pawn was last seen. The mat there is warped
top-down (the marker is then a square of known size, whatever the camera's angle); each dark
patch about the size of the marker's black square is a place to try, turned as its outline is
(two whole sides of the square stay in sight), a couple of modules around its centre. There
the marker's 8x8 modules are read: its black border around 4x4 bits, and the ring of white quiet
zone round them. A module the hand covers shows neither the marker's black nor its white (a
skin tone is coloured, a module half covered is in between): it is left out. The marker is
taken as found only when at least :data:`MIN_SEEN` modules are seen, :data:`MIN_INNER_SEEN`
bits among them, and every one seen is the pawn marker's in one of its four turns: a card's
print that happens to hold a dark square does not pass that.

>>> pawn_modules().shape
(6, 6)
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from companion.reading import NO_PAWN, PawnReading

from .geometry import ARUCO_DICT, MARKER_BLACK_SHARE, PAWN_ID, Layout, Region, View

__all__ = ["find_partly_hidden", "pawn_modules", "MIN_SEEN", "MIN_INNER_SEEN"]

#: Modules that must be seen, of the marker's 8x8: a ring of white (the quiet zone) round a
#: ring of black around 4x4 bits.
MIN_SEEN = 24
#: Of them, the inner (data) modules that must be seen.
MIN_INNER_SEEN = 6
#: Pixels per module of the top-down window.
_MODULE_PX = 6.0
#: A module whose colour (max minus min of its BGR, the most of a few samples) is over this is
#: no marker's module (a hand, the pawn's body).
_COLOURED = 45.0


@lru_cache(maxsize=1)
def pawn_modules() -> np.ndarray:
    """The pawn marker's 6x6 modules (1: white), border included."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    return (cv2.aruco.generateImageMarker(dictionary, PAWN_ID, 6) > 127).astype(np.uint8)


def find_partly_hidden(frame: np.ndarray, view: View, layout: Layout,
                       near: tuple[float, float]) -> PawnReading:
    """The pawn's marker, part of it hidden, within a step of ``near`` (mm: where the pawn was
    last seen), or
    :data:`~companion.reading.NO_PAWN`. ``frame`` is the colour frame (BGR): a hand is told from
    the marker's black and white by its colour."""
    module_mm = layout.pawn_marker_mm * MARKER_BLACK_SHARE / 6.0
    scale = _MODULE_PX / module_mm  # px per mm of the top-down window
    px, py = layout.pitch
    x0, y0 = near[0] - 1.5 * px, near[1] - 1.5 * py
    w, h = int(3.0 * px * scale), int(3.0 * py * scale)
    top = view.warp_region(frame, Region("pawn", x0, y0, x0 + w / scale, y0 + h / scale), scale)
    gray = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # colour: how far a pixel is from grey (a hand, the pawn's body; the marker has none)
    b, g, r = cv2.split(top)
    sat = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r)).astype(np.float32)
    # the marker's black square, part of it hidden, is a dark patch of about its size; its
    # centre lies within a couple of modules of the patch's, turned as the patch's outline is
    ref = float(np.percentile(gray, 95))
    dark = ((gray < 0.35 * ref) & (sat < _COLOURED)).astype(np.uint8)
    count, labels, boxes, centres = cv2.connectedComponentsWithStats(dark, connectivity=8)
    black = 6 * _MODULE_PX
    steps = np.arange(-2.0, 2.01, 0.5) * _MODULE_PX
    shifts = np.array([(dx, dy) for dy in steps for dx in steps])
    by_turn: dict[int, list] = {}
    for i in range(1, count):
        x, y, bw, bh, area = boxes[i]
        if not (0.12 * black * black <= area <= 1.1 * black * black
                and 0.45 * black <= max(bw, bh) <= 1.5 * black):
            continue
        # the patch's outline keeps two whole sides of the square: its turn
        ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == i)
        angle = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))[2] % 90.0
        for turn in {0, int(round(angle)) % 90, int(round(-angle)) % 90}:
            by_turn.setdefault(turn, []).append(centres[i])
    for turn, patches in sorted(by_turn.items()):
        tries = (np.asarray(patches)[:, None, :] + shifts[None]).reshape(-1, 2)
        hit = _first_pawn(gray, sat, tries, turn)
        if hit is not None:
            mm = (x0 + hit[0] / scale, y0 + hit[1] / scale)
            return PawnReading(layout.cell_at(*mm), (round(float(mm[0]), 1), round(float(mm[1]), 1)), True)
    return NO_PAWN


def _module_samples(gray: np.ndarray, sat: np.ndarray, centres: np.ndarray,
                    turn: float) -> tuple[np.ndarray, np.ndarray]:
    """Each of the 8x8 modules' (the marker's 6x6 and its quiet zone) mean grey and colour (the
    most of a few samples), for a marker centred at each of ``centres`` (px, n x 2) and turned
    ``turn`` degrees: two arrays n x 8 x 8."""
    a = np.deg2rad(turn)
    u = np.array([np.cos(a), np.sin(a)]) * _MODULE_PX
    v = np.array([-np.sin(a), np.cos(a)]) * _MODULE_PX
    k = np.arange(8) - 3.5
    # the middle of each module only (its edges blur into the neighbours')
    offsets = np.array([(-0.2, -0.2), (0.2, -0.2), (-0.2, 0.2), (0.2, 0.2), (0.0, 0.0)])
    cols = k[None, :, None] + offsets[None, None, :, 0]          # 1 x 8 x 5
    rows = k[:, None, None] + offsets[None, None, :, 1]          # 8 x 1 x 5
    p = (np.asarray(centres, np.float64)[:, None, None, None, :]
         + cols[None, ..., None] * u + rows[None, ..., None] * v)  # n x 8 x 8 x 5 x 2
    n = p.shape[0]
    xs = p[..., 0].reshape(n * 8, -1).astype(np.float32)
    ys = p[..., 1].reshape(n * 8, -1).astype(np.float32)
    g = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(n, 8, 8, -1)
    s = cv2.remap(sat, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(n, 8, 8, -1)
    return g.mean(-1), s.max(-1)


def _first_pawn(gray: np.ndarray, sat: np.ndarray, centres: np.ndarray, turn: int):
    """The first of ``centres`` (px) where the pawn's marker reads (:func:`reads_as_pawn`)."""
    ok = reads_as_pawn(*_module_samples(gray, sat, centres, turn))
    return tuple(centres[int(np.argmax(ok))]) if ok.any() else None


def _quantile(g: np.ndarray, where: np.ndarray, q: float) -> np.ndarray:
    """Per row of ``g`` (n x 8 x 8), the ``q`` quantile of the values ``where`` holds (a row
    with none: 0)."""
    flat = np.sort(np.where(where, g, np.inf).reshape(len(g), -1), 1)
    m = where.reshape(len(g), -1).sum(1)
    out = np.take_along_axis(flat, np.floor(q * np.maximum(m - 1, 0)).astype(int)[:, None], 1)[:, 0]
    return np.where(m > 0, out, 0.0)


def reads_as_pawn(g: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Which modules read (grey ``g`` and colour ``s``, n x 8 x 8: :func:`_module_samples`) are
    the pawn's marker: enough of them seen, the marker's and its quiet zone's, every one as the
    marker has it in one of its four turns."""
    want = np.pad(pawn_modules(), 1, constant_values=1).astype(bool)
    inner = np.zeros((8, 8), bool)
    inner[2:6, 2:6] = True
    ring = ~want & ~inner  # the black border, the same in every turn
    plain = s < _COLOURED  # black and white show no colour; a hand (or a card's print) does
    ok = ((plain & ring).sum((1, 2)) >= 6) & (plain & inner).any((1, 2))
    dark = _quantile(g, plain & ring, 0.5)
    light = _quantile(g, plain, 0.9)
    ok &= (light - dark) >= 40.0
    # a module between black and white is half covered, or not the marker: left out
    lo = (dark + 0.35 * (light - dark))[:, None, None]
    hi = (dark + 0.6 * (light - dark))[:, None, None]
    seen = plain & ((g <= lo) | (g >= hi))
    white = g >= hi
    ok &= (seen.sum((1, 2)) >= MIN_SEEN) & (seen[:, inner].sum(1) >= MIN_INNER_SEEN)
    wrong = np.stack([((white != np.rot90(want, k)) & seen).sum((1, 2)) for k in range(4)], 1)
    return ok & (wrong.min(1) == 0)
