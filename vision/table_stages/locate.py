"""Where a card lies in a region's top-down patch: its four corners, or none.

The read stage (:mod:`vision.table_stages.read_regions`) warps each region it reads top-down
and asks :func:`locate_card` for the card's outline there; where no outline is told from the
cloth, :func:`placed_card` gives the place the region puts its card.

What "differs from the cloth" means follows the light: the cloth's own variation at the patch's
edge (its noise and texture) sets the threshold, up to ``card_diff`` (the tuning's
``reader.card_diff``: summed |BGR| difference that makes a pixel card in good light; down to
40 % of it in dim light, where every difference shrinks).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..card_shape import order_quad
from ..geometry import CARD_MM

__all__ = ["locate_card", "placed_card"]


def locate_card(patch: np.ndarray, px_per_mm: float, before: np.ndarray | None = None,
                card_diff: float | None = None) -> np.ndarray | None:
    """The card's four corners in a top-down ``patch`` of one region, or None when it holds none.

    The cloth is the colour of the patch's edge; what differs from it is card. The card's
    outline is the rotated rectangle of the largest such blob, kept to a card's size. When the
    region held a card ``before`` (the patch as last read), the new card is what differs from
    it: the card below that peeks out of a stack is left out.

    The cloth's own variation at the patch's edge sets the threshold (at most ``card_diff``,
    the tuning's ``reader.card_diff`` when None), so that a dark card on dark cloth in dim
    light is still found. When neither finds a card in a region that held one, what changed
    from ``before`` is looked at once more against the frames' own noise at the patch's edge (a
    dim blue card put on a yellow one in dim light: too close to the cloth and to the card below
    for the cloth's threshold); only a whole card's outline counts there.
    """
    if card_diff is None:
        from companion.tuning import default

        card_diff = default().reader.card_diff
    edge = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]]).astype(np.float32)
    cloth = np.median(edge, 0)
    spread = float(np.percentile(np.abs(edge - cloth).sum(1), 90))
    threshold = float(np.clip(6.0 * spread, 0.4 * card_diff, card_diff))
    if before is not None and before.shape == patch.shape:
        moved = np.abs(patch.astype(np.int16) - before.astype(np.int16)).sum(2) > 1.5 * threshold
        moved = cv2.morphologyEx(moved.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        quad = _card_from_mask(moved, px_per_mm, strict=True)
        if quad is not None:
            return quad
    diff = np.abs(patch.astype(np.float32) - cloth).sum(2)
    quad = _card_from_mask((diff > threshold).astype(np.uint8), px_per_mm)
    if quad is None and before is not None and before.shape == patch.shape:
        # what the frames' own noise changed at the patch's edge (the cloth there lies as it
        # lay) sets a lower bar for what changed; the card's whole outline must still show
        step = np.abs(patch.astype(np.int16) - before.astype(np.int16)).sum(2)
        rim = np.concatenate([step[0], step[-1], step[:, 0], step[:, -1]])
        quiet = max(6.0 * float(np.percentile(rim, 90)), 0.4 * card_diff)
        if quiet < 1.5 * threshold:
            moved = cv2.morphologyEx((step > quiet).astype(np.uint8), cv2.MORPH_CLOSE,
                                     np.ones((5, 5), np.uint8))
            quad = _card_from_mask(moved, px_per_mm, strict=True)
    return quad


def placed_card(patch: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The outline of a card lying square in the middle of a region's top-down ``patch``: where
    the region puts its card (corners clockwise from the upper short edge's left one)."""
    h, w = patch.shape[:2]
    cw, ch = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    return order_quad(cv2.boxPoints(((w / 2, h / 2), (cw, ch), 0.0)))


def _card_from_mask(mask: np.ndarray, px_per_mm: float, strict: bool = False) -> np.ndarray | None:
    """The card-sized rotated rectangle of ``mask``'s largest blob (``strict``: only one that
    is a card's size within 15 %), or None when the blob is under a third of a card."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    big = max(contours, key=cv2.contourArea)
    card_area = CARD_MM[0] * CARD_MM[1] * px_per_mm ** 2
    if cv2.contourArea(big) < 0.35 * card_area:
        return None
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(big)
    if rw > rh:  # keep the rectangle portrait: swap the sides and turn the angle
        rw, rh, ang = rh, rw, ang - 90
    cw, ch = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    fits = 0.85 * cw < rw < 1.15 * cw and 0.85 * ch < rh < 1.15 * ch
    if strict and not fits:
        return None
    if not (0.8 * cw < rw < 1.25 * cw and 0.8 * ch < rh < 1.25 * ch):
        # a stack peeking out, or a hand's shadow: the card's size, centred on the blob
        m = cv2.moments(big)
        if m["m00"] > 0:
            cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        rw, rh = cw, ch
        if abs(ang) > 20:
            ang = 0.0
    # corners clockwise from the upper short edge: the top-left one, the card lying portrait
    return order_quad(cv2.boxPoints(((cx, cy), (rw, rh), ang)))
