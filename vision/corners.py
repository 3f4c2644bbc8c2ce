"""Outlines of cards that other cards cover: hypotheses from the straight edges that show.

A card under others in a fanned hand shows a strip: one or two of its edges, a corner and the
corner index next to it. Its whole outline follows from one straight edge that shows, the card
size (the cards of one deck are all the same size, measured on the cards read whole) and which
side of the edge the card lies on. :func:`partial_quads` finds the straight edges (Canny edges,
probabilistic Hough segments) and puts a card outline on every edge, each way: the edge as a long
or a short side, anchored at either end, the card on either side. The classifier of partly
covered cards (:mod:`vision.partial`) then says which outlines are a card and which card.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_shape import CARD_RATIO, order_quad, proportions_off
from vision.detect import quad_iou

__all__ = ["refine_outline", "card_width_on_edges", "unlike_table", "strip_outside", "unexplained_cards",
           "card_width_of", "edge_segments", "partial_quads", "corner_crops", "corner_outlines", "index_point",
           "index_outline", "index_crop", "INDEX_REGION", "INDEX_W", "INDEX_H"]

#: The work image is scaled so that a card is this many pixels wide.
WORK_CARD_WIDTH = 80.0
#: At most this many edge segments, the longest.
MAX_SEGMENTS = 200
#: Outlines closer than this (IoU) to one already put are the same hypothesis.
SAME_HYPOTHESIS_IOU = 0.8


#: Where a card's side is looked for, as shares of its width along the side's outward normal
#: (an outline grown by the border lies outside the card, the coloured field's edge inside it).
SIDE_SEARCH = (-0.15, 0.06)
#: The outermost edge at least this share of the side's strongest is the card's own edge (the
#: inner edge of the white border, inside, is often stronger on a white or light table).
OUTER_EDGE = 0.6
#: Outlines refined to card proportions within this share give the card width; those of cards
#: read at least WIDTH_SURE first.
WIDTH_ASPECT = 0.05
WIDTH_SURE = 0.9


def _short_side(quad) -> float:
    """The shorter of an ordered outline's two first sides (pixels): a card's width."""
    return min(float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[1])))


def _gradients(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    g = cv2.GaussianBlur(g.astype(np.float32), (3, 3), 0)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)


def refine_outline(image: np.ndarray, quad, grads=None) -> np.ndarray:
    """``quad`` (a card's outline, roughly: grown by the border, or its coloured field) with
    each side moved along its normal onto the card's own edge: the outermost offset within
    :data:`SIDE_SEARCH` where the brightness changes across the side (the middle 60 % of it, the
    median of the gradient along the normal) at least :data:`OUTER_EDGE` as strongly as at the
    side's strongest offset. The sides keep their directions; the corners are where they cross."""
    gx, gy = grads if grads is not None else _gradients(image)
    H, W = gx.shape
    q = order_quad(np.asarray(quad, np.float32))
    c = q.mean(0)
    w = _short_side(q)
    offsets = np.linspace(SIDE_SEARCH[0], SIDE_SEARCH[1], 22) * w
    ts = np.linspace(0.2, 0.8, 24)
    lines = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
        n = np.array([-d[1], d[0]], np.float32)
        if n @ ((a + b) / 2 - c) < 0:
            n = -n
        p = a[None, None] + (b - a)[None, None] * ts[None, :, None] + n[None, None] * offsets[:, None, None]
        xs = np.clip(p[..., 0], 0, W - 1).astype(np.float32)
        ys = np.clip(p[..., 1], 0, H - 1).astype(np.float32)
        vx = cv2.remap(gx, xs, ys, cv2.INTER_LINEAR)
        vy = cv2.remap(gy, xs, ys, cv2.INTER_LINEAR)
        score = np.median(np.abs(vx * n[0] + vy * n[1]), axis=1)
        peak = (score >= OUTER_EDGE * score.max()) & (score >= np.r_[-1, score[:-1]]) & (score >= np.r_[score[1:], -1])
        lines.append((a + n * offsets[np.nonzero(peak)[0].max()], d))
    pts = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2], np.float64).T
        if abs(np.linalg.det(m)) < 1e-6:
            return q
        t = np.linalg.solve(m, (p2 - p1).astype(np.float64))
        pts.append(p1 + d1 * t[0])
    return order_quad(np.array(pts, np.float32))


def card_width_on_edges(image: np.ndarray, quads, confidences=None) -> float | None:
    """The card width (short side, pixels) of the given outlines of cards read whole, each
    refined onto its own edges (:func:`refine_outline`); those that are then not a card's
    proportions (:data:`WIDTH_ASPECT`: the outline of a card and the strips under it) are left out.
    With ``confidences`` (each outline's reading), only the outlines read at least
    :data:`WIDTH_SURE` count when any of them is left (a card's centre oval or a strip read as a
    card, unsurely, has a card's proportions too). None when none is left."""
    if not len(quads):
        return None
    grads = _gradients(image)
    confidences = [1.0] * len(quads) if confidences is None else confidences
    widths = []
    for q, conf in zip(quads, confidences):
        r = refine_outline(image, q, grads)
        if proportions_off(r) < WIDTH_ASPECT:
            widths.append((_short_side(r), conf >= WIDTH_SURE))
    sure = [a for a, ok in widths if ok]
    return float(np.median(sure or [a for a, _ok in widths])) if widths else None


def card_width_of(quads) -> float | None:
    """The typical card width (short side, pixels) of the given card outlines, or None."""
    sides = [min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])) for q in quads]
    return float(np.median(sides)) if sides else None


def _near_cards(small: np.ndarray, w: float) -> np.ndarray:
    """255 where the work image is unlike the table (the median of the frame's edge) or near
    such a pixel: the cards and a border's width around them; the table's grain is left out."""
    if small.ndim != 3:
        return np.full(small.shape[:2], 255, np.uint8)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    rim = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    dist = np.linalg.norm(lab - np.median(rim, axis=0), axis=2)
    unlike = (dist > 28).astype(np.uint8) * 255
    k = max(3, int(w * 0.08)) | 1
    unlike = cv2.morphologyEx(unlike, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    g = max(3, int(w * 0.25)) | 1
    return cv2.dilate(unlike, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (g, g)))


def unlike_table(image: np.ndarray, card_width: float, px: float = 16.0) -> tuple[np.ndarray, float]:
    """A 0/1 map of the pixels unlike the table (the median of the frame's edge), at ~``px``
    pixels a card's width, and its scale."""
    s = min(1.0, px / max(card_width, 1.0))
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
    if small.ndim != 3:
        return np.ones(small.shape[:2], np.uint8), s
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    rim = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    unlike = (np.linalg.norm(lab - np.median(rim, axis=0), axis=2) > 28).astype(np.uint8)
    return cv2.morphologyEx(unlike, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)), s


def _fill(shape, quads, s) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for q in quads:
        cv2.fillConvexPoly(m, np.round(np.asarray(q, np.float32) * s).astype(np.int32), 1)
    return m


def unexplained_cards(image: np.ndarray, quads, card_width: float) -> float:
    """How many cards' worth of card-like pixels (unlike the table) lie outside the given card
    outlines: about 0 when every card shows whole and was read, more when cards lie under
    others (their strips) or other things lie on the table. Cheap: measured at ~16 pixels a card."""
    unlike, s = unlike_table(image, card_width)
    w = card_width * s
    known = cv2.dilate(_fill(unlike.shape, quads, s), np.ones((3, 3), np.uint8))
    return float((unlike & (1 - known)).sum() / (w * w * CARD_RATIO))


def strip_outside(unlike: np.ndarray, s: float, quad, others) -> tuple[float, int]:
    """The share of the part of ``quad`` outside the ``others`` that is card-like in ``unlike``
    (:func:`unlike_table`), and that part's size (pixels of ``unlike``): a card under others
    shows its strip there, a wrong outline beside a card shows the table. The share is 0 when
    nothing of it is outside the others."""
    own = _fill(unlike.shape, [quad], s)
    free = own & (1 - _fill(unlike.shape, others, s))
    n = int(free.sum())
    return (float((free & unlike).sum() / n) if n else 0.0), n


def edge_segments(image: np.ndarray, card_width: float) -> tuple[np.ndarray, float]:
    """Straight edge segments (N x 4: x0, y0, x1, y1 in the image's pixels) at least a third of
    a card's width long, and the scale of the work image they were found on."""
    s = min(1.0, WORK_CARD_WIDTH / max(card_width, 1.0))
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    edges = cv2.Canny(grey, 20, 60)
    if small.ndim == 3:  # a colour edge the grey misses (a red field on a green one)
        sat = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[..., 1]
        edges |= cv2.Canny(cv2.GaussianBlur(sat, (3, 3), 0), 30, 90)
    w = card_width * s
    edges &= _near_cards(small, w)
    lines = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=max(8, int(w * 0.2)),
                            minLineLength=w * 0.25, maxLineGap=max(2.0, w * 0.06))
    if lines is None:
        return np.zeros((0, 4), np.float32), s
    segs = lines.reshape(-1, 4).astype(np.float32) / s
    # the longest first, at most MAX_SEGMENTS (a grained table gives hundreds of short ones)
    order = np.argsort(-np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1]))
    return segs[order[:MAX_SEGMENTS]], s


def _corners(segs: np.ndarray, card_width: float):
    """Card corners where two segments meet square: (corner point, unit direction along the
    first segment, along the second, the first's length, the second's) for each pair of
    segment ends that lie near their lines' crossing, the segments leading away from it."""
    n = len(segs)
    if n < 2:
        return []
    ends = np.concatenate([segs[:, :2], segs[:, 2:]])                 # 2N x 2
    other = np.concatenate([segs[:, 2:], segs[:, :2]])
    vec = other - ends
    length = np.maximum(np.linalg.norm(vec, axis=1), 1e-6)
    u = vec / length[:, None]                                         # along the segment, away
    seg_id = np.concatenate([np.arange(n), np.arange(n)])
    near = card_width * 0.22
    d = np.linalg.norm(ends[:, None] - ends[None], axis=2)
    cos = u @ u.T
    i, j = np.nonzero((d < 2 * near) & (np.abs(cos) < 0.26) & (seg_id[:, None] < seg_id[None]))
    ua, ub = u[i], u[j]
    det = -ua[:, 0] * ub[:, 1] + ub[:, 0] * ua[:, 1]
    ok = np.abs(det) > 1e-6
    i, j, ua, ub, det = i[ok], j[ok], ua[ok], ub[ok], det[ok]
    # crossing of the two lines: ends[i] + t u[i] = ends[j] + s u[j] (Cramer's rule)
    r = ends[j] - ends[i]
    t = (-r[:, 0] * ub[:, 1] + ub[:, 0] * r[:, 1]) / det
    s = (ua[:, 0] * r[:, 1] - ua[:, 1] * r[:, 0]) / det
    # the crossing lies just behind both ends (a rounded corner leaves a small gap)
    lo, hi = -near, 0.05 * card_width
    ok = (t >= lo) & (t <= hi) & (s >= lo) & (s <= hi)
    x = ends[i] + t[:, None] * ua
    return [(x[k], ua[k], ub[k], float(length[i[k]] - t[k]), float(length[j[k]] - s[k]))
            for k in np.nonzero(ok)[0]]


def partial_quads(image: np.ndarray, card_width: float, known=(), limit: int = 400) -> list[np.ndarray]:
    """Card outlines on the square corners of straight edges in ``image``, for cards
    ``card_width`` pixels wide (each corner twice: either edge as the card's long side), leaving
    out those that are one of the ``known`` outlines (cards already read) and those mostly outside
    the image. Ordered (:func:`vision.card_shape.order_quad`), the longest edges' first."""
    H, W = image.shape[:2]
    w, h = card_width, card_width * CARD_RATIO
    segs, _ = edge_segments(image, card_width)
    known = [np.asarray(k, np.float32) for k in known]
    corners = sorted(_corners(segs, w), key=lambda c: -(c[3] + c[4]))
    # a long edge that shows nearly whole is a card's long side, whichever corner shows
    for x0, y0, x1, y1 in segs:
        a, b = np.array([x0, y0], np.float32), np.array([x1, y1], np.float32)
        ln = float(np.linalg.norm(b - a))
        if 0.85 * h <= ln <= 1.15 * h:
            d = (b - a) / ln
            mid = (a + b) / 2
            n = np.array([-d[1], d[0]], np.float32)
            for sign in (1.0, -1.0):
                corners.append((mid - d * h / 2, d, n * sign, h, 0.0))
    out: list[np.ndarray] = []
    seen = set()
    for x, ua, ub, la, lb in corners:
        for sa, sb in ((h, w), (w, h)):
            if la > sa * 1.25 or lb > sb * 1.25:
                continue
            quad = np.array([x, x + ua * sa, x + ua * sa + ub * sb, x + ub * sb], np.float32)
            c = quad.mean(0)
            if not (0 <= c[0] <= W and 0 <= c[1] <= H):
                continue
            long_axis = ua if sa == h else ub
            angle = np.degrees(np.arctan2(long_axis[1], long_axis[0])) % 180
            key = (int(round(c[0] / (0.12 * w))), int(round(c[1] / (0.12 * w))), int(round(angle / 7)) % 26)
            if key in seen:
                continue
            seen.add(key)
            q = order_quad(quad)
            if any(quad_iou(q, kq) > 0.7 for kq in known):
                continue
            out.append(q)
            if len(out) >= limit:
                return out
    return out


def _card_point(q: np.ndarray, u: float, v: float) -> np.ndarray:
    """The point of card outline ``q`` (ordered, float32) at ``u`` of its width and ``v`` of its
    height from its top left corner (bilinear between its corners)."""
    top = q[0] + (q[1] - q[0]) * u
    bottom = q[3] + (q[2] - q[3]) * u
    return top + (bottom - top) * v


def corner_outlines(quad: np.ndarray) -> list[np.ndarray]:
    """The outlines (4x2, image pixels) of the two index corners of a card outline (ordered):
    its top left quarter and its bottom right one, each a CARD_W x CARD_H portrait when
    rectified, the bottom right one turned upside down (as the print is)."""
    q = np.asarray(quad, np.float32)

    def at(u, v):
        return _card_point(q, u, v)
    tl = np.array([at(0, 0), at(0.5, 0), at(0.5, 0.5), at(0, 0.5)], np.float32)
    br = np.array([at(1, 1), at(0.5, 1), at(0.5, 0.5), at(1, 0.5)], np.float32)
    return [tl, br]


def index_point(quad: np.ndarray, corner: int) -> np.ndarray:
    """Where the index printed at ``corner`` of a card outline (ordered) lies: the middle of
    :data:`vision.overlap.INDEX_BOX` at its top left (0) or, turned, its bottom right (1)."""
    from vision.overlap import INDEX_BOX

    q = np.asarray(quad, np.float32)
    u = (INDEX_BOX[0] + INDEX_BOX[2]) / 2
    v = (INDEX_BOX[1] + INDEX_BOX[3]) / 2
    if corner:
        u, v = 1 - u, 1 - v
    return _card_point(q, u, v).astype(np.float32)


def corner_crops(image: np.ndarray, quad: np.ndarray, corner: int | None = None) -> list[np.ndarray]:
    """The two index corners of a card outline, each warped to a portrait CARD_W x CARD_H image
    (the top left quarter of the card as it is, the bottom right one upside down); only the
    one of ``corner`` (0 or 1) if given."""
    from vision.card_shape import CARD_H, CARD_W, rectify

    outlines = corner_outlines(quad)
    if corner is not None:
        outlines = [outlines[corner]]
    return [rectify(image, c, (CARD_W, CARD_H)) for c in outlines]


#: The box round a corner index that the index model reads (:func:`index_crop`), as shares of the
#: card's width and height from its corner: the printed index (:data:`vision.overlap.INDEX_BOX`,
#: 0.03-0.27 x 0.03-0.25) with a margin, so that an outline a few pixels off still holds it. A
#: quarter card (:func:`corner_crops`) holds the neighbour's face as well, in a tight fan most of it.
INDEX_REGION = (-0.02, -0.02, 0.34, 0.30)
#: The index model's input: the box above rectified to this many pixels (upright).
INDEX_W, INDEX_H = 32, 40
_INDEX_DST = np.array([[0, 0], [INDEX_W, 0], [INDEX_W, INDEX_H], [0, INDEX_H]], np.float32)


def index_outline(quad: np.ndarray, corner: int) -> np.ndarray:
    """The outline (4x2, image pixels) of :data:`INDEX_REGION` at ``corner`` of a card outline
    (ordered): 0 the top left, 1 the bottom right, turned upside down as the print is."""
    q = np.asarray(quad, np.float32)

    def at(u, v):
        return _card_point(q, u, v)
    u0, v0, u1, v1 = INDEX_REGION
    if corner:
        u0, v0, u1, v1 = 1 - u0, 1 - v0, 1 - u1, 1 - v1
    return np.array([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)], np.float32)


def index_crop(image: np.ndarray, quad: np.ndarray, corner: int) -> np.ndarray:
    """The corner index box at ``corner`` of a card outline, upright, INDEX_W x INDEX_H, white
    balanced (:func:`vision.color.normalize_card`): the index model's input.

    >>> card = np.full((200, 130, 3), 255, np.uint8)
    >>> quad = np.array([[0, 0], [130, 0], [130, 200], [0, 200]], np.float32)
    >>> index_crop(card, quad, 1).shape
    (40, 32, 3)
    """
    from vision.color import normalize_card

    src = index_outline(quad, corner)
    side = float(np.linalg.norm(src[1] - src[0]))
    if side > 2 * INDEX_W:
        # shrunk first (INTER_AREA): a straight warp to a few pixels drops the thin strokes
        f = 1.5 * INDEX_W / side
        x0, y0 = np.floor(src.min(0)).astype(int) - 2
        x1, y1 = np.ceil(src.max(0)).astype(int) + 2
        x0, y0 = max(0, x0), max(0, y0)
        piece = image[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)]
        if piece.size:
            ph, pw = piece.shape[:2]
            dw, dh = max(1, round(pw * f)), max(1, round(ph * f))
            image = cv2.resize(piece, (dw, dh), interpolation=cv2.INTER_AREA)
            src = (src - np.float32([x0, y0])) * np.float32([dw / pw, dh / ph])
    m = cv2.getPerspectiveTransform(src, _INDEX_DST)
    crop = cv2.warpPerspective(image, m, (INDEX_W, INDEX_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return normalize_card(crop)
