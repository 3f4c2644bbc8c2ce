"""Card detection: quadrilaterals of card shape in a photo, and their rectification.

Cards are found as convex four-cornered outlines of card proportions in several edge and
region maps (Canny edges of the grey image, bright regions, saturated regions), because no
single cue holds for every table and every design:

* white-bordered cards on dark tables stand out as bright regions;
* dark-bordered cards (Flip dark side) and white cards on white tables still show their coloured
  field as a saturated region, which is grown by the border width to the card's outline;
* touching cards are split by the thin shadow line between them in the edge map.

Candidates are over-generated and deduplicated here; the classifier's ``none`` class and its
confidence decide which are cards (see :mod:`vision.recognize`).

A quad is a float32 array of four (x, y) corners in image pixels, ordered so that the first edge
(corner 0 -> 1) is a short edge and the corners go clockwise in the image: the rectified card is
portrait (:func:`vision.card_shape.order_quad`; the classifier reads cards either way up).
:func:`rectify` and :func:`order_quad` live in :mod:`vision.card_shape` and are named here too.
"""

from __future__ import annotations

import math
import queue
import threading

import cv2
import numpy as np

# the card's shape (size, corner order, rectification) lives in card_shape; named here too
from .card_shape import CARD_H, CARD_RATIO, CARD_W, Quad, order_quad, rectify
from .oval import card_around_oval

__all__ = ["CARD_W", "CARD_H", "find_quads", "find_quads_sized", "find_field_quads", "rectify", "order_quad",
           "quad_iou", "Quad"]

#: Share of the card width taken by the border around the coloured field.
BORDER = 0.075

_WORK_MAX = 960  # longest side the detector works at
#: The least area of a back's oval, as a share of the least card area (the oval is 0.46 of its card).
OVAL_OF_CARD = 0.3
_DEDUP_IOU = 0.9  # candidates overlapping a larger one by this IoU are dropped as duplicates


def quad_iou(a: Quad, b: Quad, areas: tuple[float, float] | None = None) -> float:
    """How much two convex quads overlap: their intersection over their union (0..1).
    ``areas`` (optional): the quads' own areas, where the caller keeps them."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    inter, _ = cv2.intersectConvexConvex(a, b)
    if inter <= 0:
        return 0.0
    area_a, area_b = areas if areas is not None else (abs(cv2.contourArea(a)), abs(cv2.contourArea(b)))
    ua = area_a + area_b - inter
    return float(inter / ua) if ua > 0 else 0.0


def _width_height(q: Quad) -> tuple[float, float]:
    """An ordered quad's width (the mean of its short edges) and height (of its long ones), in
    float64: for the shape tests only (:func:`_sides` computes the sides outlines are grown by)."""
    # plain floats: a few thousand quads a photo (numpy's norm costs 10x more on 2-vectors)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = q.tolist()
    w = (math.hypot(x1 - x0, y1 - y0) + math.hypot(x2 - x3, y2 - y3)) / 2
    h = (math.hypot(x3 - x0, y3 - y0) + math.hypot(x2 - x1, y2 - y1)) / 2
    return w, h


def _sides(quad: Quad) -> tuple[np.ndarray, float, float]:
    """An outline ordered (:func:`order_quad`), with its width (the mean of its short edges)
    and height (the mean of its long ones)."""
    # (in float32 as numpy computes it: the grown outlines keep their exact corners)
    q = order_quad(quad)
    w = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    h = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    return q, float(w), float(h)


def _scaled(q: Quad, fx: float, fy: float) -> Quad:
    """An ordered quad scaled about its centre by ``fx`` across and ``fy`` along."""
    c = q.mean(0)
    u = (q[1] - q[0] + q[2] - q[3]) / 2 / 2 * fx
    v = (q[3] - q[0] + q[2] - q[1]) / 2 / 2 * fy
    return order_quad(np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32))


def _grow(quad: Quad, border: float = BORDER) -> Quad:
    """A field outline (ordered: :func:`order_quad`) grown by the card border to the card's outline."""
    return _grow_many([quad], border)[0]


def _grow_many(quads: list[Quad], border: float = BORDER) -> list[Quad]:
    """Each field outline (ordered: :func:`order_quad`, as every outline found is) grown by the
    card border to the card's outline: :func:`_sides` and :func:`_scaled` for all of them at
    once, with the same float32 arithmetic (the same corners to the bit; a photo grows a few
    hundred outlines)."""
    if not quads:
        return []
    q = np.array(quads, np.float32)

    def length(d):
        return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])  # np.linalg.norm's float32 result

    w = ((length(q[:, 1] - q[:, 0]) + length(q[:, 2] - q[:, 3])) / 2).astype(np.float64)
    h = ((length(q[:, 3] - q[:, 0]) + length(q[:, 2] - q[:, 1])) / 2).astype(np.float64)
    fw = 1 / (1 - 2 * border)
    fy = (1 + 2 * border * (w * fw) / np.maximum(h, 1)).astype(np.float32)[:, None]
    c = q.mean(1)
    u = (q[:, 1] - q[:, 0] + q[:, 2] - q[:, 3]) / 2 / 2 * fw
    v = (q[:, 3] - q[:, 0] + q[:, 2] - q[:, 1]) / 2 / 2 * fy
    corners = np.stack([c - u - v, c + u - v, c + u + v, c - u + v], 1)
    return [order_quad(k) for k in corners]


#: Height / width of an outline that may be a card (a card seen from above: 1.55, give or take
#: perspective and detector error).
CARD_SHAPE = (1.2, 1.95)
#: The same for the second look at a close-up or hand-held card: a card tilted towards the
#: camera is foreshortened (rectifying its outline undoes that), down to a square outline.
TILTED_CARD_SHAPE = (1.0, 2.3)


def _contour_areas(contours) -> np.ndarray:
    """``cv2.contourArea`` of each contour (whole-pixel points), all at once: the shoelace sum of
    whole numbers is exact in float64, so each area is the same number to the bit. A photo's maps
    hold about a thousand contours, most of them specks that the area alone rejects."""
    if len(contours) == 0:
        return np.zeros(0)
    lens = np.fromiter(map(len, contours), np.intp, len(contours))
    pts = np.concatenate(contours).reshape(-1, 2).astype(np.float64)
    ends = np.cumsum(lens)
    starts = ends - lens
    nxt = np.arange(1, len(pts) + 1)
    nxt[ends - 1] = starts  # each contour closes on its first point
    x, y = pts[:, 0], pts[:, 1]
    return np.abs(np.add.reduceat(x * y[nxt] - x[nxt] * y, starts)) / 2


def _quad_from_contour(cnt, min_area: float, max_area: float, shape=CARD_SHAPE,
                       area: float | None = None):
    """The card outline a contour gives (``area``: its area, where the caller has it), or None."""
    area = cv2.contourArea(cnt) if area is None else area
    if area < min_area * 0.7 or area > max_area:
        return None
    hull = cv2.convexHull(cnt)
    harea = cv2.contourArea(hull)
    if harea < min_area or harea > max_area or area / harea < 0.6:
        return None
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            q = approx.reshape(4, 2).astype(np.float32)
            if cv2.contourArea(q) / harea > 0.85:
                quad = q
                break
        if len(approx) < 4:
            break
    if quad is None:
        rect = cv2.minAreaRect(hull)
        rw, rh = rect[1]
        if rw * rh <= 0 or harea / (rw * rh) < 0.72:
            return None
        quad = cv2.boxPoints(rect).astype(np.float32)
    quad = order_quad(quad)
    w, h = _width_height(quad)
    if w < 8:
        return None
    ratio = h / w
    if not shape[0] <= ratio <= shape[1]:
        return None
    if ratio < CARD_SHAPE[0] and harea < 0.9 * cv2.contourArea(quad):
        return None  # a near-square outline must be filled like a card's (a round pawn is not)
    # each corner angle: no more than ~45 degrees off square (a card under a steep perspective)
    p = quad.tolist()
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = p[i - 1], p[i], p[(i + 1) % 4]
        v1x, v1y, v2x, v2y = ax - bx, ay - by, cx - bx, cy - by
        cosang = (v1x * v2x + v1y * v2y) / (math.hypot(v1x, v1y) * math.hypot(v2x, v2y) + 1e-6)
        if abs(cosang) > 0.7:
            return None
    return quad


def percentile_u8(image: np.ndarray, q: float, channel: int = 0) -> float:
    """``np.percentile(image[..., channel], q)`` (linear interpolation) of a uint8 image, from its
    histogram: the same number, without sorting half a million pixels."""
    hist = cv2.calcHist([image], [channel], None, [256], [0, 256])
    return _percentile_of_hist(hist, q)


def _percentile_of_hist(hist: np.ndarray, q: float) -> float:
    """The ``q``-th percentile of the values counted in ``hist`` (256 bins), as numpy's default
    (linear) method computes it: the same arithmetic on the same two order statistics."""
    cum = np.cumsum(np.asarray(hist, np.float64).ravel())
    n = int(cum[-1])
    if n == 0:
        raise ValueError("percentile of no values")
    virtual = (n - 1) * (q / 100)
    below = min(int(math.floor(virtual)), n - 1)
    gamma = virtual - below
    a = float(np.searchsorted(cum, below, side="right"))
    b = float(np.searchsorted(cum, min(below + 1, n - 1), side="right"))
    diff = b - a
    return b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma


def _white_balanced(img: np.ndarray) -> np.ndarray:
    """The image with its brightest tones made neutral (white patch on the 98th percentile of
    each channel): under warm or cold light a card's white border is tinted and would read as
    a saturated colour."""
    sample = np.ascontiguousarray(img.reshape(-1, 3)[::29]).reshape(-1, 1, 3)
    p = np.array([percentile_u8(sample, 98, c) for c in range(3)]).astype(np.float32)
    if p.min() < 40:  # nothing bright to balance against (a dark, empty frame)
        return img
    gain = p.max() / p
    if gain.max() < 1.03:
        return img
    # each channel's 256 values scaled as convertScaleAbs would scale them (float32, rounded
    # half to even, saturated), applied by table lookup
    lut = np.clip(np.rint(np.arange(256, dtype=np.float32)[:, None] * gain[None, :]), 0, 255)
    return cv2.LUT(img, lut.astype(np.uint8).reshape(256, 1, 3))


#: Maps of coloured fields (a card is the outline grown by its border) and of light regions.
_FIELD_MAPS = ("fields", "balanced fields", "parted fields")
_LIGHT_MAPS = ("closed edges", "lighter", "bright", "white")


def _maps(small: np.ndarray, apart_px: int = 0):
    """Binary maps whose outer contours may be cards: (name, map, contour retrieval mode).

    ``apart_px``: the last map is the white-balanced coloured-field map eroded by this many
    pixels, which parts the fields of touching cards joined by thin bridges (outlines from it are
    grown back by :func:`_expand`)."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    med = percentile_u8(blur, 50)  # the median
    edges = cv2.Canny(blur, max(10, 0.45 * med), max(30, 1.1 * med) + 20)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    # the area between edges: the inside of closed outlines
    yield "edges", cv2.bitwise_not(edges), cv2.RETR_LIST
    # the same with gaps in outlines bridged (glare, low contrast against the table)
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    yield "closed edges", closed, cv2.RETR_EXTERNAL
    # local contrast: a card lighter than its surroundings (white border on a mid-grey table)
    adapt = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY,
                                  51 | 1, -5)
    yield "lighter", cv2.morphologyEx(adapt, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), cv2.RETR_EXTERNAL
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    # (its channels apart once: each use of a channel of ``hsv`` copied it first)
    hue, sat, val = cv2.split(hsv)
    sat = cv2.GaussianBlur(sat, (5, 5), 0)
    _, bright = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    yield "bright", cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), cv2.RETR_EXTERNAL
    # dark regions: a wild's black field, or a Flip dark-side card, on a light table
    yield "dark", cv2.morphologyEx(cv2.bitwise_not(bright), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), \
        cv2.RETR_EXTERNAL
    colourful = _colourful(hsv, hue, sat, val)
    yield "fields", colourful, cv2.RETR_EXTERNAL
    # white regions (card borders on dark or coloured tables)
    white = cv2.bitwise_and(_above(sat, 59, invert=True), _above(val, max(120.0, percentile_u8(val, 60))))
    yield "white", cv2.morphologyEx(white, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), cv2.RETR_EXTERNAL
    # the coloured fields again under neutral light (a tinted white border reads as colour),
    # then parted where touching cards' fields are joined by thin bridges
    balanced = _white_balanced(small)
    if balanced is not small:
        hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
        hue, sat, val = cv2.split(hsv)
        colourful = _colourful(hsv, hue, cv2.GaussianBlur(sat, (5, 5), 0), val)
    yield "balanced fields", colourful, cv2.RETR_EXTERNAL
    if apart_px > 0:
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * apart_px + 1,) * 2)
        yield "parted fields", cv2.erode(colourful, disc), cv2.RETR_EXTERNAL


def _map_contours(small: np.ndarray, apart_px: int):
    """(name, outer contours) of each of :func:`_maps`."""
    for name, m, mode in _maps(small, apart_px):
        yield name, cv2.findContours(m, mode, cv2.CHAIN_APPROX_SIMPLE)[0]


def _ahead(items):
    """The items of a generator, made on a helper thread while the caller works on the ones
    before (the maps are OpenCV's work, which lets go of the interpreter; their outlines are the
    caller's Python). In the caller's thread when OpenCV is limited to one thread."""
    if cv2.getNumThreads() <= 1:
        yield from items
        return
    made: queue.Queue = queue.Queue()  # unbounded: the helper never waits for the caller

    def make():
        try:
            for item in items:
                made.put((True, item))
            made.put((False, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
            made.put((None, exc))

    threading.Thread(target=make, name="detect-maps", daemon=True).start()
    while True:
        more, item = made.get()
        if more is None:
            raise item
        if not more:
            return
        yield item


def _colourful(hsv: np.ndarray, hue: np.ndarray, sat: np.ndarray, val: np.ndarray) -> np.ndarray:
    """Saturated (coloured field) regions: saturated pixels unlike the table, whose colour is
    the median of the frame's edge (a wooden or felt table is itself saturated, in one hue).
    ``hue`` and ``val``: ``hsv``'s channels, ``sat`` its saturation blurred."""
    colourful = cv2.bitwise_and(_unlike_table(hsv, sat, hue), _above(val, 50))
    # opened first: a wooden table's grain leaves specks of other hues (a thousand contours)
    colourful = cv2.morphologyEx(colourful, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(colourful, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _expand(quad: Quad, px: float) -> Quad:
    """A quad moved outwards by ``px`` on every side (undoing an erosion)."""
    q, w, h = _sides(quad)
    return _scaled(q, (w + 2 * px) / max(w, 1e-6), (h + 2 * px) / max(h, 1e-6))


def _unlike_table(hsv: np.ndarray, sat: np.ndarray, hue: np.ndarray) -> np.ndarray:
    """Pixels saturated enough to be a card's field and not the table's own colour (255).
    ``hue``: ``hsv``'s first channel, ``sat`` its saturation blurred."""
    h, w = sat.shape
    b = max(2, min(h, w) // 20)
    # the frame's edge (its corners twice): the median hue and saturation of its four strips
    strips = [np.ascontiguousarray(hsv[:b]), np.ascontiguousarray(hsv[-b:]),
              np.ascontiguousarray(hsv[:, :b]), np.ascontiguousarray(hsv[:, -b:])]
    t_hue, t_sat = (_percentile_of_hist(sum(cv2.calcHist([s], [c], None, [256], [0, 256]) for s in strips), 50)
                    for c in (0, 1))
    if t_sat < 60:  # a grey, white or dark table: any saturated pixel
        return _above(sat, max(70.0, t_sat + 45))
    # hue is circular: each hue's distance from the table's, looked up per pixel
    d = np.abs(np.arange(256, dtype=np.int16) - int(t_hue))
    far = cv2.LUT(hue, ((np.minimum(d, 180 - d) > 12) * 255).astype(np.uint8))
    return cv2.bitwise_and(_above(sat, 70), cv2.bitwise_or(far, _above(sat, t_sat + 60)))


def _above(channel: np.ndarray, threshold: float, invert: bool = False) -> np.ndarray:
    """255 where a uint8 ``channel`` is above ``threshold`` (at most, with ``invert``), else 0:
    numpy's ``channel > threshold`` as OpenCV's threshold computes it (a few times faster)."""
    kind = cv2.THRESH_BINARY_INV if invert else cv2.THRESH_BINARY
    # (8-bit thresholds are floored: ``v > 70.5`` is ``v > 70`` for whole values)
    return cv2.threshold(np.ascontiguousarray(channel), math.floor(threshold), 255, kind)[1]


def _paired_fields(contours, min_area: float, max_area: float, shape=CARD_SHAPE):
    """Fields cut apart by the centre oval (classic prints): hulls of nearby pairs of pieces,
    and of nearby threes (the oval cuts the field in two and the symbol inside the oval, of the
    field's colour, is a third piece between them)."""
    pieces, areas, centres = [], [], []
    every = _contour_areas(contours)
    for k in np.flatnonzero(every >= min_area * 0.12):
        m = cv2.moments(contours[k])
        if m["m00"] > 0:
            pieces.append(contours[k])
            areas.append(float(every[k]))
            centres.append((m["m10"] / m["m00"], m["m01"] / m["m00"]))
    n = len(pieces)
    if n < 2:
        return []
    a = np.array(areas)
    c = np.array(centres)
    dist = np.linalg.norm(c[:, None] - c[None], axis=2)
    joint = a[:, None] + a[None]  # two pieces' joint area
    near = np.triu(dist <= 1.6 * np.sqrt(joint), 1)
    pairs = {(i, j) for i, j in zip(*np.nonzero(near)) if max(a[i], a[j]) <= 3 * min(a[i], a[j])}
    groups = sorted(pairs)
    # threes: two halves too far apart for a pair, with a piece (the symbol) midway between them
    # that brings them within a pair's reach of the three's joint area
    for i, k in zip(*np.nonzero(np.triu(dist <= 1.6 * np.sqrt(joint + a.max()), 1))):
        if (i, k) in pairs or max(a[i], a[k]) > 3 * min(a[i], a[k]):
            continue
        off = np.linalg.norm(c - (c[i] + c[k]) / 2, axis=1)
        mid = np.nonzero((off <= 0.3 * dist[i, k]) & (dist[i, k] <= 1.6 * np.sqrt(joint[i, k] + a)))[0]
        mid = [j for j in mid if j != i and j != k]
        if mid:
            groups.append((i, k, max(mid, key=lambda j: a[j])))
    quads = [q for g in groups
             if (q := _quad_from_contour(cv2.convexHull(np.vstack([pieces[i] for i in g])),
                                         min_area, max_area, shape)) is not None]
    out = []
    for q, grown in zip(quads, _grow_many(quads)):
        out += [(cv2.contourArea(q), q), (cv2.contourArea(grown), grown)]
    return out


def _grid_cells(cnt, card_area: float | None, min_area: float, max_area: float, w: int, h: int,
                limit: int = 36):
    """A blob of touching cards (white borders merged): its minimum-area rectangle split into the
    rows x columns of card-shaped cells it holds. ``card_area`` is the typical card's area in the
    photo (from the coloured fields, which stay apart when cards touch): it says how many cards the
    blob holds (an n x n block of cards has a card's own proportions). The classifier decides
    which cells are cards."""
    area = cv2.contourArea(cnt)
    if area < 1.7 * min_area or area > max_area:
        return []
    x, y, bw, bh = cv2.boundingRect(cnt)
    if x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1:  # the table around the cards
        return []
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
    if rw * rh <= 0 or area / (rw * rh) < 0.8:
        return []
    n_est = rw * rh / card_area if card_area else None
    if n_est is not None and n_est < 1.6:
        return []
    best = None
    for nx in range(1, 7):
        for ny in range(1, 7):
            n = nx * ny
            if n > limit or (n_est is not None and not 0.7 * n_est <= n <= 1.4 * n_est):
                continue
            cw, ch = rw / nx, rh / ny
            r = max(cw, ch) / max(1e-6, min(cw, ch))
            err = abs(np.log(r / CARD_RATIO))
            if err < 0.12 and cw * ch >= min_area and (best is None or (n, err) < best[:2]):
                best = (n, err, nx, ny)
    if best is None or best[0] < 2:
        return []
    _, _, nx, ny = best
    a = np.radians(ang)
    u = np.array([np.cos(a), np.sin(a)], np.float32) * rw / nx
    v = np.array([-np.sin(a), np.cos(a)], np.float32) * rh / ny
    o = np.array([cx, cy], np.float32) - u * nx / 2 - v * ny / 2
    out = []
    for i in range(nx):
        for j in range(ny):
            p = o + u * i + v * j
            out.append(order_quad(np.array([p, p + u, p + u + v, p + v], np.float32)))
    return out


#: Proportions (height / width) of a card's coloured field inside its white border.
FIELD_RATIO = (CARD_RATIO - 2 * BORDER) / (1 - 2 * BORDER)


def _field_boxes(contours, min_area: float, max_area: float, n: int = 3):
    """The biggest coloured fields (alone, and the two biggest together: a field cut by the
    oval), boxed and brought to a field's proportions. For a card held in a hand or half
    covered, whose outline is broken by fingers but whose colour still shows."""
    big = sorted(contours, key=cv2.contourArea, reverse=True)[:n]
    big = [c for c in big if cv2.contourArea(c) >= 0.4 * min_area]
    groups = [[c] for c in big]
    if len(big) >= 2:
        groups.append(big[:2])
    boxes = []
    for g in groups:
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(np.vstack(g))
        if rw * rh < 0.5 * min_area:
            continue
        if rw <= rh:
            rw, rh = max(rw, rh / FIELD_RATIO), max(rh, rw * FIELD_RATIO)
        else:
            rw, rh = max(rw, rh * FIELD_RATIO), max(rh, rw / FIELD_RATIO)
        if rw * rh > max_area:
            continue
        boxes.append(order_quad(cv2.boxPoints(((cx, cy), (rw, rh), ang))))
    out = []
    for q, g2 in zip(boxes, _grow_many(boxes)):
        out += [(cv2.contourArea(q), q), (cv2.contourArea(g2), g2)]
    return out


def _work_image(image: np.ndarray, min_side: float | None):
    """The image the detector works on (longest side at most ``_WORK_MAX``), its scale, the
    smallest card width looked for there (``min_side`` of ``image``, by default 2.5 % of its
    longer side), and the smallest and largest card areas kept there."""
    H, W = image.shape[:2]
    scale = min(1.0, _WORK_MAX / max(H, W))
    small = image if scale == 1.0 else cv2.resize(image, (int(W * scale), int(H * scale)),
                                                  interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    ms = (min_side if min_side is not None else 0.025 * max(H, W)) * scale
    return small, scale, ms, ms * ms * CARD_RATIO, 0.9 * h * w


def find_quads(image: np.ndarray, min_side: float | None = None, max_quads: int = 120, *,
               extra: bool = True) -> list[Quad]:
    """Candidate card outlines in a BGR image, in image pixels, largest first, deduplicated.

    ``min_side`` is the smallest card width (pixels of ``image``) looked for; by default 2.5 % of
    the image's longer side. ``extra`` adds the loose candidates that only the classifier can
    judge (boxed biggest fields, cells of merged blobs of touching cards); without them the
    outlines are tight (what :func:`vision.train.sources.best_quad` crops training cards by).
    """
    return find_quads_sized(image, min_side, max_quads, extra=extra)[0]


def find_quads_sized(image: np.ndarray, min_side: float | None = None, max_quads: int = 120, *,
                     extra: bool = True) -> tuple[list[Quad], float | None]:
    """:func:`find_quads`'s outlines and the photo's typical card area in image pixels (the
    median of its coloured fields grown to cards, which stay apart when cards touch), or None
    where no coloured field was found."""
    small, scale, ms, min_area, max_area = _work_image(image, min_side)
    if small.ndim == 2:
        small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    h, w = small.shape[:2]
    cands: list = []
    blobs, field_areas = [], []
    field_grown_areas: list[float] = []  # each field outline's, grown to its card
    apart = max(2, int(round(ms * 0.06)))
    for name, contours in _ahead(_map_contours(small, apart)):
        is_field = name in _FIELD_MAPS
        grid = name in _LIGHT_MAPS  # touching white borders merge into one blob there
        parted = name == "parted fields"
        found = []
        areas = _contour_areas(contours)
        if grid and extra:  # (the blobs :func:`_grid_cells` would reject by area are left out)
            blobs += [contours[i] for i in np.flatnonzero((areas >= 1.7 * min_area) & (areas <= max_area))]
        least = min_area * (0.6 if parted else 1.0)
        # only contours that pass _quad_from_contour's first test (its area) are looked at
        for i in np.flatnonzero((areas >= least * 0.7) & (areas <= max_area)):
            q = _quad_from_contour(contours[i], least, max_area, area=float(areas[i]))
            if q is None:
                continue
            if parted:
                q = _expand(q, apart)
            found.append(q)
        # a coloured field (or an outline that may be the field inside a dark border):
        # the card is that outline grown by the border
        for q, g in zip(found, _grow_many(found)):
            cands.append((cv2.contourArea(q), q))
            cands.append((cv2.contourArea(g) * (1.0 if is_field else 0.999), g))
            if is_field:
                field_grown_areas.append(cv2.contourArea(g))
        if is_field and not parted:
            # a back's red oval (the card's black field and thin white border may not stand
            # out from a dark table): the card around it, at about the oval's own priority
            for i in np.flatnonzero((areas >= min_area * OVAL_OF_CARD) & (areas <= max_area)):
                q = card_around_oval(contours[i])
                if q is not None and min_area <= cv2.contourArea(q) <= max_area:
                    cands.append((float(areas[i]), q))
            if extra and name == "fields":
                cands.extend(_field_boxes(contours, min_area, max_area))
            paired = _paired_fields(contours, min_area, max_area)
            cands.extend(paired)
            field_areas += [a for a, _ in paired[1::2]]
            field_areas += field_grown_areas
    card_area = float(np.median(field_areas)) if field_areas else None
    for cnt in blobs:
        cands.extend((0.5 * cv2.contourArea(g), g)
                     for g in _grid_cells(cnt, card_area, min_area, max_area, w, h))
    quads = [order_quad(k / scale) for k in _dedup(cands, _DEDUP_IOU, max_quads)]
    return quads, (card_area / (scale * scale) if card_area else None)


def _dedup(cands: list[tuple[float, Quad]], iou: float, limit: int = 10**9) -> list[Quad]:
    """The candidates, largest first, without those overlapping a kept one by ``iou``. Only
    quads of about the same centre and area can overlap that much: the exact overlap is
    computed for those alone (a few hundred candidates otherwise cost ~20 ms), and which pairs
    those are is found for all candidates at once."""
    cands = sorted(cands, key=lambda t: -t[0])
    if not cands:
        return []
    quads = [np.asarray(q, np.float32) for _, q in cands]
    pts = np.array(quads, np.float64).reshape(-1, 4, 2)
    centres = pts.mean(1)
    x, y = pts[..., 0], pts[..., 1]
    areas = np.abs((x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y).sum(1)) / 2
    # [i, j]: j may overlap i by ``iou`` (a necessary condition: the exact test decides); the
    # centres within half the side of i's square on both axes
    reach = 0.5 * np.sqrt(np.maximum(areas, 1.0))[:, None]
    near = ((np.abs(centres[None, :, 0] - centres[:, None, 0]) < reach)
            & (np.abs(centres[None, :, 1] - centres[:, None, 1]) < reach)
            & (areas[None] > iou * areas[:, None]) & (areas[None] * iou < areas[:, None]))
    # each quad's own area as quad_iou computes it, once (the exact test reuses it)
    own = [None] * len(quads)

    def area(i):
        if own[i] is None:
            own[i] = abs(cv2.contourArea(quads[i]))
        return own[i]

    def overlaps(i, j) -> bool:
        return quad_iou(quads[i], quads[j], (area(i), area(j))) >= iou

    # each candidate's possible overlaps among those before it, found for all at once (most
    # candidates have none: they are kept without a numpy call of their own)
    before: dict[int, list[int]] = {}
    for i, j in zip(*np.nonzero(np.tril(near, -1))):
        before.setdefault(int(i), []).append(int(j))
    kept: list[int] = []
    is_kept = [False] * len(cands)
    for i in range(len(cands)):
        if not any(is_kept[j] and overlaps(i, j) for j in before.get(i, ())):
            kept.append(i)
            is_kept[i] = True
            if len(kept) >= limit:
                break
    return [cands[i][1] for i in kept]


#: Hue bands (OpenCV hue, 0-180) of the cards' field colours: red, orange/yellow, green,
#: blue/teal, purple/pink. Skin falls between red and yellow, so a hand holding a green or blue
#: card no longer merges with its field.
_HUE_BANDS = ((0, 8), (165, 181), (18, 38), (38, 85), (85, 130), (130, 165))


def find_field_quads(image: np.ndarray, min_side: float | None = None) -> list[Quad]:
    """Second-look candidates for a photo where :func:`find_quads` found no confident card: the
    biggest coloured field of each hue band, boxed to a field's proportions and grown by the
    border (a hand-held card whose outline is broken by fingers, whose field merges with the
    hand or the desk in the plain saturation map)."""
    small, scale, _, min_area, max_area = _work_image(image, min_side)
    hsv = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2HSV)
    hue, sat, val = np.ascontiguousarray(hsv[..., 0]), hsv[..., 1], hsv[..., 2]
    st = max(70.0, percentile_u8(hsv, 50, 1) + 45)
    colourful = cv2.bitwise_and(_above(sat, st), _above(val, 50))
    cands = []
    k = np.ones((5, 5), np.uint8)
    for lo, hi in _HUE_BANDS:
        m = cv2.bitwise_and(colourful, cv2.inRange(hue, lo, hi - 1))
        m = cv2.morphologyEx(cv2.morphologyEx(m, cv2.MORPH_CLOSE, k), cv2.MORPH_OPEN, k)
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            continue
        cands.extend(_field_boxes(contours, min_area, max_area, n=2))
        for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:2]:
            q = _quad_from_contour(cnt, min_area, max_area, TILTED_CARD_SHAPE)
            if q is not None:
                g = _grow(q)
                cands += [(cv2.contourArea(q), q), (cv2.contourArea(g), g)]
        cands.extend(_paired_fields(sorted(contours, key=cv2.contourArea, reverse=True)[:4],
                                    min_area, max_area, TILTED_CARD_SHAPE))
    out = [order_quad(k2 / scale) for k2 in _dedup(cands, _DEDUP_IOU)]
    both_ways = []
    for q in out:
        _, w, h = _sides(q)
        if h < 1.25 * w:  # near-square: maybe a card foreshortened along its length
            both_ways.append(np.roll(q, 1, axis=0))
    return out + both_ways
