"""A card's shape in pixels: its rounded outline, the order of its four corners, and the
portrait image of the card inside a quad.

One place for what the card drawer (:mod:`vision.card_art`), the synthetic photos
(:mod:`vision.synth`, :mod:`vision.train.augment`), the simulated camera (:mod:`simulator.render`),
the detector (:mod:`vision.detect`) and the table reader (:mod:`vision.table_reader`) all need.

A quad is a float32 array of four (x, y) corners in image pixels, ordered so that the first edge
(corner 0 -> 1) is a short edge and the corners go clockwise in the image (:func:`order_quad`):
the rectified card (:func:`rectify`) is portrait.

>>> mask = card_mask(20, 30, corner=0.1)
>>> mask.shape, int(mask[15, 10]), int(mask[0, 0])   # inside; a cut-off corner
((30, 20), 255, 0)
>>> order_quad([[0, 0], [0, 50], [80, 50], [80, 0]]).tolist()   # a landscape box, portrait
[[80.0, 0.0], [80.0, 50.0], [0.0, 50.0], [0.0, 0.0]]
"""

from __future__ import annotations

import math

import cv2
import numpy as np

__all__ = ["CARD_W", "CARD_H", "CARD_RATIO", "Quad", "card_mask", "draw_rounded_rect", "proportions_off",
           "order_quad", "rectify"]

Quad = np.ndarray

#: Canonical rectified card size (portrait), the classifier's input.
CARD_W, CARD_H = 64, 96
#: Printed card proportions (height / width), 87 x 56 mm.
CARD_RATIO = 87.0 / 56.0


def draw_rounded_rect(mask: np.ndarray, x0: int, y0: int, x1: int, y1: int, r: int, *,
                      antialias: bool = True, value: int = 255) -> None:
    """Fill the rectangle from (x0, y0) to (x1, y1), both included, with corners rounded to
    radius ``r``, into ``mask`` (in place). ``antialias`` smooths the corners' arcs."""
    line = cv2.LINE_AA if antialias else cv2.LINE_8
    cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), value, -1)
    cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), value, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(mask, (cx, cy), r, value, -1, line)


def card_mask(width: int, height: int, corner: float, *, antialias: bool = False) -> np.ndarray:
    """A ``height`` x ``width`` uint8 mask of a card filling the image: 255 on the card, 0 in
    the four cut-off corners, whose radius is ``corner`` of the width (at least 2 pixels)."""
    mask = np.zeros((height, width), np.uint8)
    draw_rounded_rect(mask, 0, 0, width - 1, height - 1, max(2, int(width * corner)),
                      antialias=antialias)
    return mask


def order_quad(pts) -> Quad:
    """Corners clockwise (in image coordinates) starting at a short edge, the upper one."""
    # plain floats: four points, called thousands of times a photo (numpy costs 6x more here)
    p = np.asarray(pts, np.float32).reshape(4, 2).tolist()
    cx = (p[0][0] + p[1][0] + p[2][0] + p[3][0]) / 4
    cy = (p[0][1] + p[1][1] + p[2][1] + p[3][1]) / 4
    p.sort(key=lambda q: math.atan2(q[1] - cy, q[0] - cx))  # clockwise on screen (y down)
    d = [math.hypot(p[(i + 1) % 4][0] - p[i][0], p[(i + 1) % 4][1] - p[i][1]) for i in range(4)]
    if d[0] + d[2] > d[1] + d[3]:  # edges 0-1 and 2-3 are the long ones
        p = p[1:] + p[:1]
    # a stable choice between the two short edges: start at the upper one
    if p[0][1] + p[1][1] > p[2][1] + p[3][1] + 1e-3:
        p = p[2:] + p[:2]
    return np.array(p, np.float32)


def proportions_off(quad: Quad) -> float:
    """How far ``quad``'s long side to short side is from a card's (:data:`CARD_RATIO`), as a
    share: 0 for a card's proportions, 0.1 for a tenth longer or shorter."""
    q = np.asarray(quad, np.float32)
    a, b = sorted((float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1]))))
    return abs(b / max(a, 1e-6) / CARD_RATIO - 1)


def rectify(image: np.ndarray, quad: Quad, size: tuple[int, int] = (CARD_W, CARD_H)) -> np.ndarray:
    """The card inside ``quad`` (corners as :func:`order_quad` gives them) warped to a portrait
    ``size`` (w, h) image. A card at least twice as wide as ``size`` is warped at twice the size
    and shrunk by area averaging (no aliasing); a smaller one is warped straight to ``size``."""
    w, h = size
    q = np.asarray(quad, np.float32)
    side = max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1]) / CARD_RATIO)
    f = 2 if side >= 2 * w else 1
    W, H = w * f, h * f
    dst = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    m = cv2.getPerspectiveTransform(q, dst)
    out = cv2.warpPerspective(image, m, (W, H), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    if f != 1:
        out = cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA)
    return out
