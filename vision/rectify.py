"""Cards dropped askew: the card that reaches out of its region, found whole and rectified.

The reader reads each region from a top-down patch 4 mm larger than the region on every side
(:meth:`vision.table_reader.TableReader`): a card put down with care lies inside it. A card
dropped up to 25 degrees askew and 15 mm off its place reaches out of that patch by up to
26 mm, and the patch shows it clipped: its outline has no card's size, a card-sized box is
centred on what is left, upright, and the classifier reads a slice of two cards (under the
torture benchmark's ``askew`` condition a purple draw-five dropped on a purple 8 read as "no
card", the play was missed, and the next ones were called illegal).

:class:`AskewFinder` looks at every region read again through a wider patch
(:data:`WIDE_MARGIN` around the region) and finds there the card whose outline holds the
region's centre (a card played on a region always covers its centre: it is off by 15 mm at
most, and 56 mm wide) and has a card's size: first among what changed since the region was
last settled (the card on top of a stack), else among what differs from the cloth (a card on
bare cloth). Only a card that reaches out of the narrow patch is taken from the wide one; a card
lying inside it is read as before, from the narrow patch.

>>> import numpy as np
>>> finder = AskewFinder()
>>> finder.locate(np.zeros((200, 160, 3), np.uint8), 1.4) is None
True
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .card_shape import order_quad
from .geometry import CARD_MM, Region, View

__all__ = ["AskewFinder", "WIDE_MARGIN", "card_in_wide_patch", "fit_card", "reaches_out",
           "rival_outlines"]

#: mm around a region in the wide patch: a card 15 mm off its place and turned 25 degrees
#: reaches 26 mm beyond the region's side (its half-diagonal, turned, plus the offset).
WIDE_MARGIN = 28.0
#: the reader's own margin around a region (its narrow patch)
NARROW_MARGIN = 4.0


def _cloth_threshold(patch: np.ndarray) -> tuple[np.ndarray, float]:
    """The cloth's colour (the patch edge's median) and the summed |BGR| difference that makes
    a pixel card (as :func:`vision.table_reader.locate_card`: six times the cloth's own
    variation, between 24 and 60)."""
    edge = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]]).astype(np.float32)
    cloth = np.median(edge, 0)
    spread = float(np.percentile(np.abs(edge - cloth).sum(1), 90))
    return cloth, float(np.clip(6.0 * spread, 24.0, 60.0))


def _card_at_centre(mask: np.ndarray, px_per_mm: float, close: int) -> np.ndarray | None:
    """The rotated rectangle (4 corners) of the blob of ``mask`` whose outline holds the
    patch's centre, when it has a card's size (within 15 %); else None."""
    if close > 1:
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = mask.shape[:2]
    centre = (w / 2.0, h / 2.0)
    held = [c for c in contours if cv2.pointPolygonTest(c, centre, False) >= 0]
    if not held:
        return None
    hull = cv2.convexHull(max(held, key=cv2.contourArea))
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(hull)
    if rw > rh:
        rw, rh, ang = rh, rw, ang - 90
    cw, ch = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    if not (0.85 * cw < rw < 1.15 * cw and 0.85 * ch < rh < 1.15 * ch):
        return None
    # corners as the rectifier takes them (clockwise from the upper short edge)
    return order_quad(cv2.boxPoints(((cx, cy), (rw, rh), ang)))


def _best_box(score: np.ndarray, px_per_mm: float, angles, centre, reach: int):
    """(sum, turn matrix, x, y) of the best card-sized box over ``angles``, its centre within
    ``reach`` px of ``centre`` (a summed-area box filter of the turned score map per angle)."""
    h, w = score.shape[:2]
    cw, ch = int(round(CARD_MM[0] * px_per_mm)), int(round(CARD_MM[1] * px_per_mm))
    cx, cy = centre
    x0, x1 = max(0, int(cx) - reach), min(w, int(cx) + reach + 1)
    y0, y1 = max(0, int(cy) - reach), min(h, int(cy) + reach + 1)
    best = None
    for angle in angles:
        turn = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), float(angle), 1.0)
        turned = cv2.warpAffine(score, turn, (w, h), flags=cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
        sums = cv2.boxFilter(turned, -1, (cw, ch), normalize=False, borderType=cv2.BORDER_CONSTANT)
        window = sums[y0:y1, x0:x1]
        j = int(np.argmax(window))
        value = float(window.flat[j])
        if best is None or value > best[0]:
            best = (value, turn, x0 + j % window.shape[1], y0 + j // window.shape[1], angle, cw, ch)
    return best


def fit_card(mask: np.ndarray, px_per_mm: float, reach_mm: float = 16.0,
             angles=range(-30, 31, 3)) -> tuple[np.ndarray, float] | None:
    """The card-sized rectangle that best covers ``mask`` (1: the card's pixels): the one whose
    inside holds the most mask pixels less the most others, its centre within ``reach_mm`` of
    the patch's centre, turned by about one of ``angles`` (degrees; refined to a degree).
    (its 4 corners, the score: the share of the inside in the mask less the share out of it),
    or None.

    Unlike the outline of a blob, the fit is not thrown off by what changed beside the card (a
    card of the stack beneath that moved, a corner revealed) nor by the inside of a card of the
    same colour as the one under it, which did not change. It searches a half-size copy first,
    then refines around the best at full size (about 2 ms a region)."""
    h, w = mask.shape[:2]
    score = np.where(mask > 0, 1.0, -1.0).astype(np.float32)
    small = cv2.resize(score, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    coarse = _best_box(small, px_per_mm / 2, angles, (w / 4.0, h / 4.0),
                       max(1, int(round(reach_mm * px_per_mm / 2))))
    if coarse is None:
        return None
    _, turn, x, y, angle, _, _ = coarse
    # the coarse centre, back in the unturned half-size patch, then at full size
    back = cv2.invertAffineTransform(turn)
    ux, uy = back[:, :2] @ np.array([x, y], np.float64) + back[:, 2]
    step = float(angles[1] - angles[0]) if len(angles) > 1 else 1.0
    near = [angle + d for d in np.arange(-step + 1, step, 1.0)]
    # the fine search's window is about the coarse centre, turned with each fine angle: the
    # turn is about the patch's centre, so the window is placed in the turned frame per angle
    best = None
    for a in near:
        t = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), float(a), 1.0)
        fx, fy = t[:, :2] @ np.array([2 * ux, 2 * uy]) + t[:, 2]
        found = _best_box(score, px_per_mm, (a,), (fx, fy), 3)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    value, turn, x, y, _, cw, ch = best
    left, top = x - cw // 2, y - ch // 2
    corners = np.array([[left, top], [left + cw, top], [left + cw, top + ch], [left, top + ch]],
                       np.float32)
    back = cv2.invertAffineTransform(turn)
    corners = corners @ back[:, :2].T + back[:, 2]
    return order_quad(corners), value / float(cw * ch)


#: What a fitted card must explain: its inside at least this share changed, less the rest
#: (a card on one of its colour: its print changed, its face's colour did not).
FIT_SCORE = 0.15
#: ... and at least this share of its inside card, not cloth (a card taken away leaves cloth).
FIT_ON_CARD = 0.85


def _inside(quad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.asarray(quad, np.float32).astype(np.int32), 1)
    return mask.astype(bool)


def _summed_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the summed |BGR| difference of two images of one size."""
    return cv2.absdiff(a, b).astype(np.uint16).sum(2)


def edge_share(patch: np.ndarray, quad: np.ndarray, px_per_mm: float, threshold: float,
               depth_mm: float = 2.0, samples: int = 12) -> float:
    """The share of a card outline's length (``quad``) where the patch differs across it: the
    colour ``depth_mm`` inside against the colour as far outside, their summed |BGR|
    difference above ``threshold``. A card lying on top shows its whole outline (near 1); the
    place of a card taken away shows the cards beneath it running on across (well under 1)."""
    q = np.asarray(quad, np.float64)
    centre = q.mean(0)
    h, w = patch.shape[:2]
    t = np.linspace(0.12, 0.88, samples)[:, None]
    inner, outer = [], []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        along = (b - a) / max(np.linalg.norm(b - a), 1e-6)
        normal = np.array([-along[1], along[0]])
        if np.dot(centre - a, normal) < 0:
            normal = -normal  # pointing in
        points = a + t * (b - a)
        inner.append(points + normal * depth_mm * px_per_mm)
        outer.append(points - normal * depth_mm * px_per_mm)
    inner, outer = np.rint(np.concatenate(inner)).astype(int), np.rint(np.concatenate(outer)).astype(int)
    ok = ((inner >= 0) & (inner < [w, h]) & (outer >= 0) & (outer < [w, h])).all(1)
    if not ok.any():
        return 0.0
    i, o = inner[ok], outer[ok]
    across = np.abs(patch[i[:, 1], i[:, 0]].astype(np.int32) - patch[o[:, 1], o[:, 0]].astype(np.int32)).sum(1)
    return float((across > threshold).mean())


def _edges(patch: np.ndarray) -> np.ndarray:
    """The patch's colour gradient magnitude (summed over the channels)."""
    grey = patch.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    return np.sqrt(gx * gx + gy * gy).sum(2)


def _ring_search(edges: np.ndarray, px_per_mm: float, angles, centre, reach: int):
    """(ring sum, angle, centre x, y in the unturned patch) of the card outline along the
    strongest edges, turned by one of ``angles``, its centre within ``reach`` px of ``centre``."""
    h, w = edges.shape
    cw, ch = int(round(CARD_MM[0] * px_per_mm)), int(round(CARD_MM[1] * px_per_mm))
    ring = max(2, int(round(2.0 * px_per_mm)))
    best = None
    for angle in angles:
        turn = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), float(angle), 1.0)
        cx, cy = turn[:, :2] @ np.asarray(centre, np.float64) + turn[:, 2]
        x0, x1 = max(0, int(cx) - reach), min(w, int(cx) + reach + 1)
        y0, y1 = max(0, int(cy) - reach), min(h, int(cy) + reach + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        turned = cv2.warpAffine(edges, turn, (w, h), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
        outer = cv2.boxFilter(turned, -1, (cw + ring, ch + ring), normalize=False,
                              borderType=cv2.BORDER_CONSTANT)
        inner = cv2.boxFilter(turned, -1, (cw - ring, ch - ring), normalize=False,
                              borderType=cv2.BORDER_CONSTANT)
        window = (outer - inner)[y0:y1, x0:x1]
        j = int(np.argmax(window))
        value = float(window.flat[j])
        if best is None or value > best[0]:
            x, y = x0 + j % window.shape[1], y0 + j // window.shape[1]
            back = cv2.invertAffineTransform(turn)
            ux, uy = back[:, :2] @ np.array([x, y], np.float64) + back[:, 2]
            best = (value, float(angle), ux, uy)
    return best


def _quad_at(centre, angle: float, px_per_mm: float, shape) -> np.ndarray:
    """The corners of a card turned by ``angle`` (as the searches turn it) centred at ``centre``."""
    h, w = shape[:2]
    cw, ch = int(round(CARD_MM[0] * px_per_mm)), int(round(CARD_MM[1] * px_per_mm))
    turn = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), float(angle), 1.0)
    cx, cy = turn[:, :2] @ np.asarray(centre, np.float64) + turn[:, 2]
    left, top = cx - cw / 2.0, cy - ch / 2.0
    corners = np.array([[left, top], [left + cw, top], [left + cw, top + ch], [left, top + ch]],
                       np.float32)
    back = cv2.invertAffineTransform(turn)
    return order_quad(corners @ back[:, :2].T + back[:, 2])


def fit_outline(patch: np.ndarray, px_per_mm: float, reach_mm: float = 16.0,
                angles=range(-30, 31, 2), near: tuple | None = None) -> np.ndarray | None:
    """The card-sized rectangle whose outline runs along the patch's strongest edges (the card
    on top: the only one whose outline is whole): a ring 2 mm wide along the outline, summed
    over the patch's colour gradient. Its centre within ``reach_mm`` of the patch's centre, or,
    ``near=(centre, angle)``, refined within 4 mm and 3 degrees of a card found otherwise."""
    edges = _edges(patch)
    h, w = edges.shape
    if near is None:
        found = _ring_search(edges, px_per_mm, angles, (w / 2.0, h / 2.0),
                             max(1, int(round(reach_mm * px_per_mm))))
    else:
        (cx, cy), angle = near
        found = _ring_search(edges, px_per_mm, [angle + d for d in range(-3, 4)], (cx, cy),
                             max(1, int(round(4.0 * px_per_mm))))
    if found is None:
        return None
    _, angle, ux, uy = found
    return _quad_at((ux, uy), angle, px_per_mm, patch.shape)


#: An outline at another turn whose edges sum to this share of the strongest one's nearly ties
#: with it: either may be the card on top.
RIVAL_SHARE = 0.95
#: ... when turned at least this much (degrees) from it (nearer is the same card).
RIVAL_TURN = 6.0


def rival_outlines(patch: np.ndarray, px_per_mm: float, quad: np.ndarray, reach_mm: float = 16.0,
                   angles=range(-30, 31, 2)) -> list[np.ndarray]:
    """Card outlines at other turns than ``quad``'s (by :data:`RIVAL_TURN` or more) whose edges
    sum nearly as strongly as the strongest (:data:`RIVAL_SHARE`), strongest first: on a stack
    of cards turned alike, the outlines of the cards beneath add up to as much as the one on
    top (a card 24 degrees askew on two cards lying 12 degrees askew: the strongest outline
    may be the two below, the top card's nearly as strong). The reader lets the model say
    which shows a whole card."""
    edges = _edges(patch)
    h, w = edges.shape
    reach = max(1, int(round(reach_mm * px_per_mm)))
    _, turn = _pose(quad, patch.shape)
    found = [f for f in (_ring_search(edges, px_per_mm, [a], (w / 2.0, h / 2.0), reach) for a in angles)
             if f is not None]
    if not found:
        return []
    best = max(f[0] for f in found)
    rivals = sorted((f for f in found if f[0] >= RIVAL_SHARE * best and abs(f[1] - turn) >= RIVAL_TURN),
                    key=lambda f: -f[0])
    return [_quad_at((f[2], f[3]), f[1], px_per_mm, patch.shape) for f in rivals]


def _pose(quad: np.ndarray, shape) -> tuple:
    """(centre, angle as the searches turn a card) of a card's corners."""
    q = np.asarray(quad, np.float64)
    centre = tuple(q.mean(0))
    # the short top edge (order_quad's first two corners) runs along x turned by the angle
    dx, dy = q[1] - q[0]
    angle = math.degrees(math.atan2(dy, dx))
    angle = (angle + 90.0) % 180.0 - 90.0
    return centre, angle


#: A card's outline is whole when the patch differs across it (by half the cloth's threshold:
#: a dim green card on green cloth) over at least this share of it.
WHOLE_OUTLINE = 0.7


def card_in_wide_patch(wide: np.ndarray, px_per_mm: float, before: np.ndarray | None = None,
                       older: np.ndarray | None = None) -> np.ndarray | None:
    """The card on top in a wide top-down patch, covering the patch's centre: the card-sized
    rectangle that best fits what changed since ``before`` (the patch as last settled), when
    there is a ``before`` and that rectangle shows a whole outline; else the rectangle whose
    outline runs along the strongest edges, when its outline is whole (a card taken away: what
    changed is the place it left, and the card on top is one beneath it: the patch then looks
    there as it did ``older``, the settled patch before ``before``); without a ``before``, the
    blob that differs from the cloth, when it has a card's size. Four corners (patch pixels),
    or None."""
    cloth, threshold = _cloth_threshold(wide)
    if before is not None and before.shape == wide.shape:
        fit = changed_card_fit(wide, px_per_mm, before)
        back = (fit is not None and older is not None and older.shape == wide.shape
                and _summed_difference(wide, older)[_inside(fit, wide.shape)].mean() < 0.5 * threshold)
        if fit is not None and not back:
            # what changed places the card within a few mm (a card on one of its colour
            # changed only where their prints differ); its outline places it exactly
            quad = fit_outline(wide, px_per_mm, near=_pose(fit, wide.shape))
            if quad is not None and edge_share(wide, quad, px_per_mm, 0.5 * threshold) >= WHOLE_OUTLINE:
                return quad
            # the strongest edges near it may run along a card beneath (a white border on
            # the white border of the card below shows no edge): the fit itself, when its
            # own outline is whole (a card on an askew card of its colour: the strongest
            # outline anywhere may run across several cards and read "no card")
            if edge_share(wide, fit, px_per_mm, 0.5 * threshold) >= WHOLE_OUTLINE:
                return fit
        quad = fit_outline(wide, px_per_mm)
        if quad is not None and edge_share(wide, quad, px_per_mm, 0.5 * threshold) >= WHOLE_OUTLINE:
            return quad
        return None
    cloth_image = np.empty_like(wide)
    cloth_image[:] = np.round(cloth).astype(np.uint8)
    card = _summed_difference(wide, cloth_image) > threshold
    quad = _card_at_centre(card.astype(np.uint8), px_per_mm, 1)
    if quad is None:  # a stack: the card on top is the one whose outline is whole
        quad = fit_outline(wide, px_per_mm)
        if quad is not None and edge_share(wide, quad, px_per_mm, 0.5 * threshold) < WHOLE_OUTLINE:
            return None
    return quad


def changed_card_fit(wide: np.ndarray, px_per_mm: float, before: np.ndarray | None) -> np.ndarray | None:
    """The card-sized rectangle that best fits what changed in a wide patch since ``before``
    (at least :data:`FIT_SCORE`, its inside :data:`FIT_ON_CARD` card), whether or not its outline
    shows whole: a card dropped askew with its white border on the white border of the cards
    below shows little edge there, yet what changed places it. Four corners, or None. Only a
    rival to the narrow patch's outline (:meth:`AskewFinder.rival`): the two are read, and the
    surer read is kept."""
    if before is None or before.shape != wide.shape:
        return None
    cloth, threshold = _cloth_threshold(wide)
    fit = fit_card((_summed_difference(wide, before) > 1.5 * threshold).astype(np.uint8), px_per_mm)
    if fit is None or fit[1] < FIT_SCORE:
        return None
    inside = _inside(fit[0], wide.shape)
    cloth_image = np.empty_like(wide)
    cloth_image[:] = np.round(cloth).astype(np.uint8)
    if not inside.any() or (_summed_difference(wide, cloth_image)[inside] > 0.5 * threshold).mean() < FIT_ON_CARD:
        return None
    return fit[0]


def change_reaches_edge(patch: np.ndarray, before: np.ndarray | None, px_per_mm: float,
                        edge_mm: float = 1.5, least_mm: float = 4.0) -> bool:
    """What changed in a region's narrow patch since ``before`` reaches the patch's edge over
    at least ``least_mm`` (a card put down with care lies 4 mm inside it: this one may reach
    out of it)."""
    if before is None or before.shape != patch.shape:
        return False
    _, threshold = _cloth_threshold(patch)
    moved = _summed_difference(patch, before) > 1.5 * threshold
    e = max(1, int(round(edge_mm * px_per_mm)))
    border = int(moved[:e].sum() + moved[-e:].sum() + moved[e:-e, :e].sum() + moved[e:-e, -e:].sum())
    return border / e >= least_mm * px_per_mm


def reaches_out(quad: np.ndarray, wide_shape: tuple[int, ...], px_per_mm: float,
                slack_mm: float = 1.0) -> bool:
    """A card (corners in the wide patch) reaches beyond the narrow patch (the region plus
    :data:`NARROW_MARGIN`), less ``slack_mm``."""
    h, w = wide_shape[:2]
    inset = (WIDE_MARGIN - NARROW_MARGIN - slack_mm) * px_per_mm
    q = np.asarray(quad, np.float32)
    return bool((q[:, 0] < inset).any() or (q[:, 0] > w - inset).any()
                or (q[:, 1] < inset).any() or (q[:, 1] > h - inset).any())


class AskewFinder:
    """The wide patches of the regions being read and as last settled, and the askew card in
    them. The reader calls :meth:`look` for each region it reads (the card's image to rectify
    from, and its corners, when the card reaches out of the narrow patch), :meth:`settled` when
    a region's reading settles and :meth:`forget` when the view is replaced."""

    def __init__(self, margin: float = WIDE_MARGIN):
        self.margin = margin
        self._settled: dict[str, np.ndarray] = {}
        self._older: dict[str, np.ndarray] = {}  # as settled the time before
        self._pending: dict[str, np.ndarray] = {}
        #: (region, what changed there) -> the askew card found for it and the rival outline
        #: (see :meth:`rival`), each or None
        self._found: dict[tuple, tuple[np.ndarray | None, np.ndarray | None]] = {}
        #: region -> (wide patch, the rival outline) from the last look
        self._rivals: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def locate(self, wide: np.ndarray, px_per_mm: float, before: np.ndarray | None = None,
               older: np.ndarray | None = None) -> np.ndarray | None:
        """The card reaching out of the narrow patch in ``wide``, or None (no card there, or
        one that lies inside the narrow patch: the reader's own reading stands)."""
        quad = card_in_wide_patch(wide, px_per_mm, before, older)
        if quad is None or not reaches_out(quad, wide.shape, px_per_mm):
            return None
        return quad

    def look(self, frame: np.ndarray, view: View, region: Region, name: str, px_per_mm: float,
             patch: np.ndarray, before: np.ndarray | None, quad: np.ndarray | None,
             change: tuple | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """(the wide patch, the card's corners in it) when the region's card reaches out of
        the narrow ``patch`` (``before``: that patch as last settled; ``quad``: the card the
        reader found in it); None otherwise. The wide patch is looked at only where what
        changed in the narrow one reaches its edge, or (on a first look) where the reader found
        no card in it. ``change`` names what changed (the outline found, to a few pixels):
        what was found for it is kept until the region settles (the frames voting on one
        change look at the same card against the same settled patches)."""
        wide = view.warp_region(frame, region, px_per_mm, margin=self.margin)
        self._pending[name] = wide
        self._rivals.pop(name, None)
        wide_before = self._settled.get(name)
        if wide_before is not None and before is not None:
            if not change_reaches_edge(patch, before, px_per_mm):
                return None
        elif quad is not None:
            return None  # a first look: the whole table is read (3x the time with every patch)
        key = None if change is None else (name, change)
        if key is not None and key in self._found:
            quad, rival = self._found[key]
        else:
            quad = self.locate(wide, px_per_mm, wide_before, self._older.get(name))
            # what changed reaches out of the narrow patch, but no whole outline shows: the
            # card that best fits the change is a rival to the narrow patch's outline
            rival = None if quad is not None or wide_before is None \
                else changed_card_fit(wide, px_per_mm, wide_before)
            if rival is not None and not reaches_out(rival, wide.shape, px_per_mm):
                rival = None
            if key is not None:
                self._found[key] = (quad, rival)
        if rival is not None:
            self._rivals[name] = (wide, rival)
        return None if quad is None else (wide, quad)

    def rival(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(the wide patch, a card's corners in it) where the last :meth:`look` at region
        ``name`` found what changed reaching out of its patch without a whole outline
        (:func:`changed_card_fit`); None otherwise. Taken once."""
        return self._rivals.pop(name, None)

    def settled(self, name: str) -> None:
        """The region's reading settled: its wide patch is the one to compare with next."""
        if name in self._pending:
            if name in self._settled:
                self._older[name] = self._settled[name]
            self._settled[name] = self._pending.pop(name)
        self._found = {k: q for k, q in self._found.items() if k[0] != name}

    def forget(self) -> None:
        self._settled.clear()
        self._older.clear()
        self._pending.clear()
        self._found.clear()
