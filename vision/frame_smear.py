"""How the camera smeared a frame, measured on the mat's corner markers, and taken back out.

A camera on a wobbly arm (or a slow shutter) smears a whole frame along one short line. A card
read through a 7 px smear is read weakly (its digit blurs into its neighbours': a red-2 read
red-2 at 0.68 and red-3 at 0.10, a red-8 read red-0 at 0.39), and the referee must ask about
the play (motion-blur torture: 14 of 38 questions were such plays, each answered with the card
the camera had read likeliest or second).

The four corner markers are printed on every mat and their pattern is known exactly: each is
drawn where the view puts it (:func:`~vision.geometry.marker_image` through the view), smeared
along each line of a small bank, and compared with what the camera saw inside its white
margin (a smear there mixes only the marker's own print). The smear whose drawing fits best is
the frame's (:func:`measure_smear`), when it fits clearly better than no smear and than a
smear too short to matter (a sharp camera's own softness fits a 3 px smear a little better
than none: such a frame is left as it is). A marker under an arm or off the picture fits
badly and is left out; with fewer than two markers fitting, nothing is said.

The cards are then read from the frame with that smear taken out (:func:`unsmear_frame`, a
Wiener filter per colour: :func:`vision.desmear.unsmear`). The reader does this only for the
frames it reads cards from.

>>> import numpy as np
>>> unsmear_frame(np.zeros((8, 8, 3), np.uint8), (7, 0)).shape
(8, 8, 3)
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import cv2
import numpy as np

from .desmear import smear_kernel, unsmear, unsmear_colour, unsmear_colour_each
from .geometry import CORNER_IDS, Layout, View, marker_image

__all__ = ["measure_smear", "unsmear_frame", "unsmear_frame_each", "length_neighbours",
           "SMEAR_BANK", "CLEARLY_BETTER", "MARKER_FIT"]

#: The smears tried: (length px, angle degrees); length 1 is none.
SMEAR_BANK = ((1, 0),) + tuple((n, a) for n in (3, 5, 7, 9, 11) for a in range(0, 180, 10))
#: The few smears tried first: a frame none of them explains clearly is sharp.
COARSE_BANK = ((1, 0),) + tuple((n, a) for n in (3, 7) for a in range(0, 180, 30))
#: The shortest smear worth taking out (a sharp camera's own softness fits 3 px).
SHORTEST = 5
#: How much better (correlation, averaged over the markers) the best smear must fit than no
#: smear and than any smear shorter than :data:`SHORTEST` (sharp frames: 0.026 for 3 px; a 5 px
#: smear: 0.09, a 7 px one: 0.13 and more).
CLEARLY_BETTER = 0.015
#: A marker whose best drawing correlates less than this with the picture is covered (an arm)
#: or off the picture: left out.
MARKER_FIT = 0.8
_DRAWN_PX = 200   # the marker drawn this large, then brought to the picture's size
_KERNELS = {s: (smear_kernel(*s) if s[0] > 1 else np.ones((1, 1), np.float32)) for s in SMEAR_BANK}


class _Drawing:
    """Corner marker ``index`` as the view puts it in the picture, worked out once per view
    (it depends on nothing else): where it lies, its print drawn there, the part inside its
    white margin that only the marker's own print can smear into, and the drawing softened
    for the phase correlation."""

    def __init__(self, view: View, layout: Layout, index: int, shape: tuple[int, ...]):
        quad = view.to_image(layout.marker_square(index)).astype(np.float32)
        h, w = shape[:2]
        x0, y0 = (np.floor(quad.min(0)) - 2).astype(int)
        x1, y1 = (np.ceil(quad.max(0)) + 2).astype(int)
        self.box: tuple[int, int, int, int] | None = None
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h or min(x1 - x0, y1 - y0) < 16:
            return
        px = _DRAWN_PX
        square = np.float32([[0, 0], [px, 0], [px, px], [0, px]])
        M = cv2.getPerspectiveTransform(square, (quad - np.float32([x0, y0])).astype(np.float32))
        self.size = size = (int(x1 - x0), int(y1 - y0))
        self.drawn = cv2.warpPerspective(marker_image(CORNER_IDS[index], px).astype(np.float32),
                                         M, size, flags=cv2.INTER_AREA)
        inside = cv2.warpPerspective(np.ones((px, px), np.uint8), M, size, flags=cv2.INTER_NEAREST)
        # (the longest smear's half reaches no further in: what is left mixes only the marker)
        reach = max(n for n, _ in SMEAR_BANK)
        self.inside = cv2.erode(inside, np.ones((reach + 2, reach + 2), np.uint8)).astype(bool)
        if self.inside.sum() < 64:
            return
        self.box = (int(x0), int(y0), int(x1), int(y1))
        self.soft_drawn = cv2.GaussianBlur(self.drawn, (0, 0), _SOFT)
        self.window = cv2.createHanningWindow(size, cv2.CV_32F)
        for kept in (self.drawn, self.inside, self.soft_drawn, self.window):
            kept.flags.writeable = False  # (shared by every frame: nothing may work in them)


class _Drawings:
    """The :class:`_Drawing` of each corner marker for the views last measured on (a few:
    the view changes only when the camera moves), kept with the view they belong to."""

    def __init__(self, keep: int = 4):
        self.keep = keep
        self._kept: OrderedDict[tuple, tuple[View, list[_Drawing]]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, view: View, layout: Layout, shape: tuple[int, ...]) -> list[_Drawing]:
        key = (id(view), id(layout), shape[:2])
        with self._lock:
            found = self._kept.get(key)
            if found is not None and found[0] is view:
                self._kept.move_to_end(key)
                return found[1]
        drawings = [_Drawing(view, layout, i, shape) for i in range(len(CORNER_IDS))]
        with self._lock:
            self._kept[key] = (view, drawings)  # (the view kept alive: its id stays its own)
            while len(self._kept) > self.keep:
                self._kept.popitem(last=False)
        return drawings


_SOFT = max(n for n, _ in SMEAR_BANK) / 3.0
_DRAWINGS = _Drawings()


class _Marker:
    """One corner marker in one frame: its edges as the camera saw them and its drawing moved
    onto the picture, ready to be smeared by each smear of a bank (:meth:`fits`)."""

    def __init__(self, gray: np.ndarray, drawing: _Drawing):
        x0, y0, x1, y1 = drawing.box
        crop = gray[y0:y1, x0:x1].astype(np.float32)
        drawn = drawing.drawn
        # the view puts the marker a pixel or so off (its corners were found in smeared frames):
        # the drawing is moved onto the picture first, both softened alike so that the smear's
        # direction does not pull it
        # (a copy: phaseCorrelate may work in the array it is given)
        (dx, dy), _ = cv2.phaseCorrelate(drawing.soft_drawn.copy(),
                                         cv2.GaussianBlur(crop, (0, 0), _SOFT), drawing.window)
        if abs(dx) < 4 and abs(dy) < 4:
            drawn = cv2.warpAffine(drawn, np.float32([[1, 0, dx], [0, 1, dy]]), drawing.size,
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self.drawn = drawn
        self.inside = drawing.inside
        # compared by their edges (where a smear shows; the flat print says little)
        self.seen = _edges(crop, self.inside)

    def fits(self, bank: tuple[tuple[int, int], ...]) -> np.ndarray:
        """How well each smear of ``bank`` explains the marker (correlation of their edges
        inside its white margin)."""
        # every smear's drawing as one channel of an image: the edges of all at once, each
        # channel's steps as one row, normed and correlated as :func:`_edges` does one (row by
        # row: a sum over a 2-d array's rows rounds otherwise, and a tie would be another smear)
        drawn = np.dstack([cv2.filter2D(self.drawn, -1, _KERNELS[smear]) for smear in bank])
        gx = cv2.Sobel(drawn, cv2.CV_32F, 1, 0)[self.inside]
        gy = cv2.Sobel(drawn, cv2.CV_32F, 0, 1)[self.inside]
        out = np.empty(len(bank), np.float32)
        for k, v in enumerate(np.concatenate([gx.T, gy.T], axis=1)):
            out[k] = float((self.seen * (v / (np.sqrt((v * v).mean()) + 1e-6))).mean())
        return out


def _edges(image: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The horizontal and vertical steps of ``image`` inside the mask, as one unit vector."""
    gx = cv2.Sobel(image, cv2.CV_32F, 1, 0)[inside]
    gy = cv2.Sobel(image, cv2.CV_32F, 0, 1)[inside]
    v = np.concatenate([gx, gy])
    return v / (np.sqrt((v * v).mean()) + 1e-6)


def measure_smear(gray: np.ndarray, view: View, layout: Layout = Layout()) -> tuple[int, int] | None:
    """The straight smear (length px, angle degrees) of the frame ``gray``, measured on the
    corner markers, or None: the frame is sharp enough, or too few markers show. (What the
    view alone decides, each marker's drawing, is worked out once per view; each marker's
    edges and shift once per frame.)"""
    markers = [_Marker(gray, d) for d in _DRAWINGS.of(view, layout, gray.shape)
               if d.box is not None]
    # first a few smears (a sharp frame is told at a fifth of the work), then every one
    if _best(markers, COARSE_BANK) is None:
        return None
    return _best(markers, SMEAR_BANK)


def _best(markers: list[_Marker], bank: tuple[tuple[int, int], ...]) -> tuple[int, int] | None:
    """The smear of ``bank`` that explains the markers best, if long and clearly better."""
    fits = [f for f in (m.fits(bank) for m in markers) if f.max() >= MARKER_FIT]
    if len(fits) < 2:
        return None
    # the markers drawn most like the picture say most (the view fits some corners better)
    tops = np.array([f.max() for f in fits])
    weights = np.exp((tops - tops.max()) / 0.02)
    score = np.average(fits, axis=0, weights=weights)
    best = int(np.argmax(score))
    length, angle = bank[best]
    short = max(float(s) for s, (n, _) in zip(score, bank) if n < SHORTEST)
    if length < SHORTEST or score[best] - short < CLEARLY_BETTER:
        return None
    return int(length), int(angle)


def unsmear_frame(frame: np.ndarray, smear: tuple[int, int]) -> np.ndarray:
    """``frame`` (BGR or grey) with the straight ``smear`` (length, angle) taken out."""
    kernel = smear_kernel(*smear)
    if frame.ndim == 2:
        return unsmear(frame, kernel)
    return unsmear_colour(frame, kernel)


def length_neighbours(smear: tuple[int, int]) -> list[tuple[int, int]]:
    """``smear`` and the smear of the bank one length step shorter along the same line (if
    any is long enough to take out): a card is read through each, since the markers tell the
    smear's length less surely than its line (a 7 px smear measured 9 in about one frame of
    eight), and a card unsmeared too long rings and reads weakly or wrongly (a drawn green-5
    smeared 7 px and unsmeared as 9 px read green-8 0.25; as 7, green-5 0.79). Never a longer
    one: unsmeared 4 px too long, a yellow-9 read yellow-3 at 0.86, surer than the right read;
    too short a filter leaves the card soft, read weakly, not wrongly."""
    length, angle = smear
    shorter = [n for n, _ in SMEAR_BANK if SHORTEST <= n < length]
    return [smear] + ([(max(shorter), angle)] if shorter else [])


def unsmear_frame_each(frame: np.ndarray, smears: list[tuple[int, int]]) -> list[np.ndarray]:
    """:func:`unsmear_frame` of a colour ``frame`` for each of ``smears`` (one spectrum)."""
    return unsmear_colour_each(frame, [smear_kernel(*s) for s in smears])
