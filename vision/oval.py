"""The card around its centre oval: a card back's (or a wild's) outline from its tilted oval.

A card back is a black field inside a thin white border, with a large red oval tilted across
it. On a dark table the black field is the table's colour and the white border a thin, broken
ring, so no map of the detector (:mod:`vision.detect`) outlines the card; its saturated oval is
what stands out, and it was outlined instead (a back so outlined is read on an outline of IoU
about 0.6 with the card, too little to count as that card).

The oval's place on the card is the same on every classic card: centred, its long axis tilted
:data:`TILT` degrees from the card's, its axes :data:`AXES` of the card's width and height
(measured on the classic art sheet, 164 x 255-pixel cards: the back's red oval 113.8 x 216.8,
the wild's four-colour oval 109.8 x 210.8, a number face's white oval 112.2 x 213.3, each tilted
30 degrees; our drawn backs' are within 5 % of that). So an oval outline gives the card's, where
the oval is what stands out: a back's red one, a wild's four colours on a black field that is
the dark table's colour:

>>> import cv2, numpy as np
>>> img = np.zeros((400, 400), np.uint8)
>>> _ = cv2.ellipse(img, ((200, 200), (0.694 * 160, 0.85 * 160 * 1.553), TILT + 20), 255, -1)
>>> quad = card_around_oval(cv2.findContours(img, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0][0])
>>> w, h = cv2.minAreaRect(quad)[1]
>>> round(min(w, h)), round(max(w, h))     # a 160-pixel card, turned 20 degrees
(160, 249)

Only an outline filled like an ellipse (:data:`FILLED`) and as long as the classic oval
(:data:`LONG`) gives a card: a card's coloured field is a rectangle, a round-centre print's
disc or a pawn's top is round.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_shape import CARD_RATIO, Quad, order_quad

__all__ = ["TILT", "AXES", "FILLED", "LONG", "card_around_oval"]

#: The oval's long axis, clockwise from the card's long axis on the image (degrees; the card is
#: never mirrored, so the sign is fixed).
TILT = 30.0
#: The oval's short and long axes, as shares of the card's width and height.
AXES = (0.694, 0.85)
#: An outline's area over its fitted ellipse's: an oval fills its ellipse (0.99 on the art
#: sheet's back, the letters closed), a rectangle overfills it (1.27).
FILLED = (0.92, 1.08)
#: The oval's long axis over its short one: 1.90-1.92 on the art sheet, 2.05 on our drawn backs.
LONG = (1.7, 2.3)


def card_around_oval(contour: np.ndarray) -> Quad | None:
    """The outline (ordered, :func:`vision.card_shape.order_quad`) of the card whose centre oval
    ``contour`` (an OpenCV contour) is, or None when it is not a back's oval."""
    if len(contour) < 5:
        return None
    (cx, cy), (a, b), angle = cv2.fitEllipse(contour)
    short, long_ = min(a, b), max(a, b)
    if short <= 0 or not LONG[0] <= long_ / short <= LONG[1]:
        return None
    if not FILLED[0] <= cv2.contourArea(contour) / (np.pi / 4 * a * b) <= FILLED[1]:
        return None
    # fitEllipse's angle turns its first axis from the image's x axis; the long axis's turn from
    # the image's y axis is that angle, or that angle less 90 where the first axis is the long one
    turn = angle if a <= b else angle - 90.0
    # the card's width from both axes (the short one is the surer: the long one meets the
    # letters that stick out of the oval)
    width = (2 * short / AXES[0] + long_ / (AXES[1] * CARD_RATIO)) / 3
    box = ((float(cx), float(cy)), (float(width), float(width * CARD_RATIO)), float(turn - TILT))
    return order_quad(cv2.boxPoints(box).astype(np.float32))
