"""Card outlines from where the corner indices lie: a small network finds them on the whole image.

The partly covered cards' pass (:mod:`vision.partial`) puts outlines on the square corners of
straight edges (:func:`vision.corners.partial_quads`). In a tight fan the edges are short and
cross each other, and the outlines come out a few degrees or pixels off, enough to cut the index
out of its crop (on the validation tables most lost cards had outlines on them, none read as
the card). This module finds the indices themselves.

:class:`IndexPoints` runs ``vision/models/index_points.onnx`` (trained by ``python -m
vision.train.index_points``) on the image scaled so that a card is :data:`CARD_PX` pixels wide
(the width measured on the cards read whole). The network gives, every :data:`STRIDE` pixels,

* how likely a corner index's middle lies there (a heat map), and
* which way that index reads (the cosine and sine of its "right": the card's width runs that way
  from the index, its height a quarter turn clockwise of it).

Each peak of the heat map becomes one card outline (:func:`outline_at`): the index's middle is
the middle of :data:`vision.overlap.INDEX_BOX`, and the card is ``card_width`` wide from there.
The outlines join the corner outlines and are read and selected as they are.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_model import OnnxModel
from vision.card_shape import CARD_RATIO, order_quad

__all__ = ["CARD_PX", "STRIDE", "MODEL_PATH", "IndexPoints", "outline_at", "index_points", "width_from_indices"]

MODEL_PATH = Path(__file__).resolve().parent / "models" / "index_points.onnx"
#: A card's width, in pixels, in the image the network sees (it was trained at 52-80).
CARD_PX = 64.0
#: The network's output is this many input pixels apart.
STRIDE = 4
#: A heat-map peak at least this high is an index.
MIN_HEAT = 0.3
#: At most this many indices an image (the surest).
MAX_POINTS = 120
#: The card width from the indices alone (:func:`width_from_indices`): the finder runs at widths
#: WIDTH_STEP apart and scores each by its peaks' squared heat (sure indices count, the faint
#: ones a wrong scale gives hardly do), smoothed over the neighbouring widths; the best width,
#: put between its neighbours by a parabola, times WIDTH_BIAS (the heat peaks a little below a
#: card's true width). It is the width to trust where the cards read whole measure it wrong (a
#: hand's outline read as its top card) or not at all.
WIDTH_STEP = 1.12
#: The widths searched: these shares of the image's short side (0.06 instead of 0.045 saves the
#: costliest third of a search but lost a card on the test tables), or of a width measured (up to
#: 3 times it: a patch of a card read whole had measured 0.36-0.53 of the true width on three
#: tables; at 1.6 the search could not reach the card's width, on a third validation seed a
#: table lost all its 9 cards so).
WIDTH_RANGE = (0.045, 0.32)
#: ... and never a card narrower than this many pixels (its index is then about 6 pixels high):
#: the narrowest widths cost the most (the image is scaled up to CARD_PX a card), and a 960x640
#: image's search started at 29 pixels.
MIN_CARD_PX = 40.0
WIDTH_AROUND = (0.6, 3.0)
WIDTH_BIAS = 1.04
#: Searched about a width measured, the indices seen best within a step of the widest width
#: searched mean the range stopped short of the card's width: the search is made again over
#: WIDTH_RANGE. A card's own print or a strip read as a card whole measures a fraction of the
#: true width, and 3 times it may still fall short (a quarter of the card's width measured gives a
#: finder's width near 0.7 of it, on which outlines are too small and cards are lost, doubled or
#: misread); searched again, the width comes out right. It searches again rarely (where the
#: best lies at the range's end), so it costs little. False: the width within the range only.
WIDEN_AT_CEILING = True
#: The search scores every other width first, then every width within COARSE_AROUND steps of
#: the best of those: 11 of a search's 15 runs about a width measured, half the narrowest (the
#: costliest) skipped: less CPU for the same width wherever the scores rise smoothly to their
#: best, which they do (the heat of a scale's peaks changes slowly with the scale).
COARSE_FIRST = True
COARSE_AROUND = 3
#: Less heat than this (squared heats, summed) at every width: no index in sight, no width.
WIDTH_MIN_HEAT = 1.0
#: The middle of a corner index, as shares of the card's width and height from its corner.
_INDEX_MIDDLE = (0.15, 0.14)


def outline_at(point, right, card_width: float, ordered: bool = True) -> np.ndarray:
    """The ordered outline (4x2 float32) of a ``card_width`` card whose corner index's middle
    lies at ``point`` and reads with its "right" along ``right`` (a vector, any length); with
    ``ordered`` False, from the card's own top-left corner round (that index is its corner 0)."""
    u = np.asarray(right, np.float64)
    u = u / max(1e-9, float(np.hypot(*u)))
    v = np.array([-u[1], u[0]])            # a quarter turn clockwise on the image (y down)
    w, h = card_width, card_width * CARD_RATIO
    corner = np.asarray(point, np.float64) - _INDEX_MIDDLE[0] * w * u - _INDEX_MIDDLE[1] * h * v
    quad = np.array([corner, corner + w * u, corner + w * u + h * v, corner + h * v]).astype(np.float32)
    return order_quad(quad) if ordered else quad


class IndexPoints:
    """The index finder: ``IndexPoints()(image, card_width)`` gives ``[(point, right, heat)]``.
    Safe to share between threads (the hand scanner's camera thread, the web's photo requests)."""

    def __init__(self, path: Path = MODEL_PATH):
        self.model = OnnxModel(path)
        meta = Path(path).with_suffix(".json")
        self.meta = json.loads(meta.read_text()) if meta.is_file() else {}

    def heat(self, image_bgr: np.ndarray, card_width: float) -> tuple[np.ndarray, np.ndarray, float]:
        """``(heat, right, scale)``: the heat map (H x W, 0-1), the index direction (H x W x 2)
        and the factor the image was scaled by."""
        scale = CARD_PX / max(1.0, card_width)
        h, w = image_bgr.shape[:2]
        # a multiple of the network's total stride, padded by edge pixels
        sh, sw = max(16, round(h * scale)), max(16, round(w * scale))
        small = cv2.resize(image_bgr, (sw, sh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        ph, pw = -sh % STRIDE, -sw % STRIDE
        if ph or pw:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        blob = (small.astype(np.float32) / 255.0 - 0.5).transpose(2, 0, 1)[None]
        out = self.model.run(blob)[0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        right = np.stack([out[1], out[2]], -1)
        return heat, right, scale

    def __call__(self, image_bgr: np.ndarray, card_width: float, min_heat: float | None = None,
                 limit: int = MAX_POINTS) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """``[(point, right, heat)]``: each index found, its middle (image pixels), the way it
        reads (a unit vector) and its peak's heat, surest first."""
        min_heat = MIN_HEAT if min_heat is None else min_heat
        heat, right, scale = self.heat(image_bgr, card_width)
        peaks = (heat >= min_heat) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
        ys, xs = np.nonzero(peaks)
        order = np.argsort(-heat[ys, xs])[:limit]
        H, W = heat.shape
        out = []
        for y, x in zip(ys[order], xs[order]):
            # the heat's centroid over the peak's 3x3 cells: a quarter of a cell's precision
            y0, y1, x0, x1 = max(0, y - 1), min(H, y + 2), max(0, x - 1), min(W, x + 2)
            patch = heat[y0:y1, x0:x1]
            gy, gx = np.mgrid[y0:y1, x0:x1]
            cy, cx = (patch * gy).sum() / patch.sum(), (patch * gx).sum() / patch.sum()
            point = np.array([(cx * STRIDE + (STRIDE - 1) / 2) / scale,
                              (cy * STRIDE + (STRIDE - 1) / 2) / scale], np.float32)
            r = right[y, x].astype(np.float32)
            out.append((point, r / max(1e-6, float(np.hypot(*r))), float(heat[y, x])))
        return out


@lru_cache(maxsize=2)
def _finder(path: str) -> IndexPoints:
    return IndexPoints(Path(path))


def index_points(image_bgr: np.ndarray, card_width: float, path: Path = MODEL_PATH,
                 min_heat: float | None = None) -> list[tuple[np.ndarray, float]]:
    """``[(outline, heat)]``: a card outline on every corner index the network finds (empty when
    the model file is missing), surest first."""
    if not Path(path).is_file():
        return []
    return [(outline_at(p, r, card_width), heat)
            for p, r, heat in _finder(str(path))(image_bgr, card_width, min_heat)]


def _smoothed(scores: np.ndarray) -> np.ndarray:
    """``scores`` smoothed by [1, 2, 1], as long as ``scores`` (numpy's "same" mode gives three
    values for one or two, which put the best width past the end of the ones searched)."""
    return np.convolve(scores, [1.0, 2.0, 1.0], "full")[1:-1]


def width_from_indices(image_bgr: np.ndarray, around: float | None = None,
                       path: Path = MODEL_PATH, short_side: float | None = None) -> float | None:
    """The card width (pixels) at which the index finder sees its indices best (:data:`WIDTH_STEP`
    and the constants after it), searched over :data:`WIDTH_AROUND` of ``around`` or, without
    it, over :data:`WIDTH_RANGE` of the image's short side (``short_side``, where ``image_bgr`` is a
    part of a larger photo: that photo's), never below :data:`MIN_CARD_PX`.
    None without the model file or without any index in sight."""
    if not Path(path).is_file():
        return None
    short = short_side or min(image_bgr.shape[:2])
    lo, hi = (around * WIDTH_AROUND[0], around * WIDTH_AROUND[1]) if around \
        else (short * WIDTH_RANGE[0], short * WIDTH_RANGE[1])
    widths = lo * WIDTH_STEP ** np.arange(int(np.log(hi / lo) / np.log(WIDTH_STEP)) + 1)
    widths = widths[widths >= MIN_CARD_PX]     # (the same steps as without the floor)
    if not len(widths):
        return None
    finder = _finder(str(path))
    score = np.full(len(widths), np.nan)

    def scored(indices):
        for i in indices:
            if np.isnan(score[i]):
                score[i] = sum(h * h for _p, _r, h in finder(image_bgr, float(widths[i])))

    # every other width first, then every width about the best of those (COARSE_FIRST)
    n = len(widths)
    if COARSE_FIRST and n > 2 * COARSE_AROUND + 1:
        scored(range(0, n, 2))
        coarse = _smoothed(np.nan_to_num(score[::2]))
        best = 2 * int(np.argmax(coarse))
        lo, hi = max(0, best - COARSE_AROUND), min(n, best + COARSE_AROUND + 1)
    else:
        lo, hi = 0, n
    scored(range(lo, hi))
    if np.nanmax(score) < WIDTH_MIN_HEAT:
        return None
    window = score[lo:hi]
    smooth = _smoothed(window)
    if lo > 0:      # (the window's ends are smoothed with the widths beyond it, where scored)
        smooth[0] += np.nan_to_num(score[lo - 1])
    if hi < n:
        smooth[-1] += np.nan_to_num(score[hi])
    b = int(np.argmax(smooth))
    shift = 0.0
    if 0 < b < len(smooth) - 1:   # the parabola's top through the best and its neighbours
        a, c, d = smooth[b - 1], smooth[b], smooth[b + 1]
        if a - 2 * c + d < 0:
            shift = 0.5 * (a - d) / (a - 2 * c + d)
    width = float(widths[lo + b] * WIDTH_STEP ** shift * WIDTH_BIAS)
    if around and WIDEN_AT_CEILING and width >= around * WIDTH_AROUND[1] / WIDTH_STEP:
        return width_from_indices(image_bgr, None, path, short_side)  # the range stopped short of the card
    return width
