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


def _fits(gray: np.ndarray, view: View, layout: Layout, index: int,
          bank: tuple[tuple[int, int], ...] = SMEAR_BANK) -> np.ndarray | None:
    """How well each smear of ``bank`` explains corner marker ``index`` in ``gray``
    (correlation of their edges inside its white margin), or None when the marker is not in
    the picture."""
    quad = view.to_image(layout.marker_square(index)).astype(np.float32)
    h, w = gray.shape[:2]
    x0, y0 = (np.floor(quad.min(0)) - 2).astype(int)
    x1, y1 = (np.ceil(quad.max(0)) + 2).astype(int)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or min(x1 - x0, y1 - y0) < 16:
        return None
    crop = gray[y0:y1, x0:x1].astype(np.float32)
    px = _DRAWN_PX
    square = np.float32([[0, 0], [px, 0], [px, px], [0, px]])
    M = cv2.getPerspectiveTransform(square, (quad - np.float32([x0, y0])).astype(np.float32))
    size = (int(x1 - x0), int(y1 - y0))
    drawn = cv2.warpPerspective(marker_image(CORNER_IDS[index], px).astype(np.float32), M, size,
                                flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.ones((px, px), np.uint8), M, size, flags=cv2.INTER_NEAREST)
    # (the longest smear's half reaches no further in: what is left mixes only the marker)
    reach = max(n for n, _ in SMEAR_BANK)
    inside = cv2.erode(inside, np.ones((reach + 2, reach + 2), np.uint8)).astype(bool)
    if inside.sum() < 64:
        return None
    # the view puts the marker a pixel or so off (its corners were found in smeared frames): the
    # drawing is moved onto the picture first, both softened alike so that the smear's
    # direction does not pull it
    soft = max(n for n, _ in SMEAR_BANK) / 3.0
    win = cv2.createHanningWindow(size, cv2.CV_32F)
    (dx, dy), _ = cv2.phaseCorrelate(cv2.GaussianBlur(drawn, (0, 0), soft),
                                     cv2.GaussianBlur(crop, (0, 0), soft), win)
    if abs(dx) < 4 and abs(dy) < 4:
        drawn = cv2.warpAffine(drawn, np.float32([[1, 0, dx], [0, 1, dy]]), size,
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # compared by their edges (where a smear shows; the flat print says little)
    seen = _edges(crop, inside)
    out = np.empty(len(bank), np.float32)
    for k, smear in enumerate(bank):
        m = _edges(cv2.filter2D(drawn, -1, _KERNELS[smear]), inside)
        out[k] = float((seen * m).mean())
    return out


def _edges(image: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The horizontal and vertical steps of ``image`` inside the mask, as one unit vector."""
    gx = cv2.Sobel(image, cv2.CV_32F, 1, 0)[inside]
    gy = cv2.Sobel(image, cv2.CV_32F, 0, 1)[inside]
    v = np.concatenate([gx, gy])
    return v / (np.sqrt((v * v).mean()) + 1e-6)


def measure_smear(gray: np.ndarray, view: View, layout: Layout = Layout()) -> tuple[int, int] | None:
    """The straight smear (length px, angle degrees) of the frame ``gray``, measured on the
    corner markers, or None: the frame is sharp enough, or too few markers show."""
    # first a few smears (a sharp frame is told at a fifth of the work), then every one
    if _best(gray, view, layout, COARSE_BANK) is None:
        return None
    return _best(gray, view, layout, SMEAR_BANK)


def _best(gray: np.ndarray, view: View, layout: Layout,
          bank: tuple[tuple[int, int], ...]) -> tuple[int, int] | None:
    """The smear of ``bank`` that explains the markers best, if long and clearly better."""
    fits = [f for f in (_fits(gray, view, layout, i, bank) for i in range(len(CORNER_IDS)))
            if f is not None and f.max() >= MARKER_FIT]
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
