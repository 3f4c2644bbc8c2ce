"""Heavy augmentation: a clean card image becomes what the detector would hand the classifier.

Each sample places the card on a random table with a random perspective, sometimes next to or
under another card or a finger, lights it (colour cast, shadow, glare, exposure), blurs and
compresses it, then rectifies it back through a slightly wrong quad (detector error), exactly as
:func:`vision.card_shape.rectify` and :func:`vision.color.normalize_card` do at run time.
Negatives (class ``none``) are table patches, non-card objects and badly placed quads.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_shape import CARD_H, CARD_W, card_mask, rectify
from vision.color import normalize_card

T = 160  # template card width; height T * 1.5


def _template(img: np.ndarray) -> np.ndarray:
    return cv2.resize(img, (T, int(T * 1.5)), interpolation=cv2.INTER_AREA)


def card_quad(centre: np.ndarray, cw: float, ch: float, angle: float) -> np.ndarray:
    """The corners (top left, clockwise) of a ``cw`` x ``ch`` card at ``centre``, turned ``angle``
    radians."""
    u = np.array([np.cos(angle), np.sin(angle)]) * cw / 2
    v = np.array([-np.sin(angle), np.cos(angle)]) * ch / 2
    return np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v], np.float32)


def random_table(rng, h, w, textures: list[np.ndarray]) -> np.ndarray:
    k = rng.random()
    if textures and k < 0.45:
        tex = textures[rng.integers(len(textures))]
        th, tw = tex.shape[:2]
        s = rng.uniform(0.3, 1.5)
        cw, ch = min(tw, int(w / s) + 1), min(th, int(h / s) + 1)
        x, y = rng.integers(0, tw - cw + 1), rng.integers(0, th - ch + 1)
        out = cv2.resize(tex[y:y + ch, x:x + cw], (w, h))
    else:
        base = rng.uniform(0, 255, 3)
        if rng.random() < 0.3:
            base = np.array([rng.uniform(200, 255)] * 3) + rng.uniform(-10, 10, 3)  # white table
        elif rng.random() < 0.3:
            base = np.array([rng.uniform(5, 60)] * 3) + rng.uniform(-5, 5, 3)  # dark table
        out = np.ones((h, w, 3), np.float32) * base
        if rng.random() < 0.5:  # wood-ish stripes
            yy = np.linspace(0, rng.uniform(5, 40), h)[:, None]
            xx = np.linspace(0, rng.uniform(0, 5), w)[None, :]
            stripes = np.sin(yy + xx + rng.uniform(0, 6)) * rng.uniform(5, 35)
            out += stripes[..., None]
        noise = cv2.resize(rng.normal(0, rng.uniform(2, 25), (h // 4 + 1, w // 4 + 1, 3)).astype(np.float32), (w, h))
        out = out + noise + rng.normal(0, rng.uniform(0, 8), (h, w, 3))
        out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        out = np.ascontiguousarray(np.rot90(out, rng.integers(4)))
        out = cv2.resize(out, (w, h))
    return out


def _light(rng, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    # colour cast (warm/cold light, camera white balance)
    cast = rng.uniform(0.65, 1.35, 3) if rng.random() < 0.8 else np.ones(3)
    f *= cast * rng.uniform(0.45, 1.35)
    # soft shadow gradient
    if rng.random() < 0.5:
        ang = rng.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        g = (np.cos(ang) * xx / w + np.sin(ang) * yy / h)
        g = (g - g.min()) / (np.ptp(g) + 1e-6)
        f *= (1 - rng.uniform(0.2, 0.6) * g)[..., None]
    # hard shadow edge
    if rng.random() < 0.2:
        m = np.zeros((h, w), np.float32)
        p = rng.integers(0, [w, h, w, h])
        cv2.line(m, (int(p[0]), 0), (int(p[2]), h), 1.0, int(w * rng.uniform(0.2, 1.0)))
        m = cv2.GaussianBlur(m, (0, 0), 3)
        f *= (1 - 0.45 * m)[..., None]
    # glare
    if rng.random() < 0.3:
        m = np.zeros((h, w), np.float32)
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.ellipse(m, c, (int(w * rng.uniform(0.05, 0.3)), int(h * rng.uniform(0.03, 0.2))),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(2, 8))
        f += m[..., None] * rng.uniform(60, 220)
    gamma = rng.uniform(0.7, 1.4)
    f = 255.0 * (np.clip(f, 0, 255) / 255.0) ** gamma
    return np.clip(f, 0, 255).astype(np.uint8)


def _degrade(rng, img: np.ndarray) -> np.ndarray:
    r = rng.random()
    if r < 0.35:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.6))
    elif r < 0.5:
        k = int(rng.integers(3, 8))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        img = cv2.filter2D(img, -1, cv2.warpAffine(ker, M, (k, k)))
    if rng.random() < 0.5:
        img = np.clip(img + rng.normal(0, rng.uniform(1, 10), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        q = int(rng.integers(30, 90))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def _finger(rng, canvas, quad):
    """A skin-coloured blob over one edge of the card."""
    i = int(rng.integers(4))
    a, b = quad[i], quad[(i + 1) % 4]
    t = rng.uniform(0.2, 0.8)
    p = a + (b - a) * t
    skin = np.array([rng.uniform(60, 190), rng.uniform(90, 200), rng.uniform(140, 250)])
    skin *= rng.uniform(0.4, 1.0)
    side = np.linalg.norm(quad[1] - quad[0])
    ax = (int(side * rng.uniform(0.12, 0.2)), int(side * rng.uniform(0.3, 0.7)))
    cv2.ellipse(canvas, (int(p[0]), int(p[1])), ax, rng.uniform(0, 180), 0, 360,
                tuple(float(x) for x in skin), -1, cv2.LINE_AA)


def _cut_by_edge(rng, canvas, quad):
    """The picture's edge across the card: beyond a line parallel to one image side, cutting off
    10-45 % of the card's extent on that axis, the picture repeats its last row or column (as
    :func:`vision.card_shape.rectify` fills what lies outside the photo). At most one corner
    index is cut off."""
    axis = int(rng.integers(2))  # 0: x, 1: y
    lo, hi = float(quad[:, axis].min()), float(quad[:, axis].max())
    f = rng.uniform(0.1, 0.45)
    if rng.random() < 0.5:
        cut = int(max(1, lo + f * (hi - lo)))
        if axis == 0:
            canvas[:, :cut] = canvas[:, cut:cut + 1]
        else:
            canvas[:cut] = canvas[cut:cut + 1]
    else:
        cut = int(min(canvas.shape[1 - axis] - 1, hi - f * (hi - lo)))
        if axis == 0:
            canvas[:, cut:] = canvas[:, cut - 1:cut]
        else:
            canvas[cut:] = canvas[cut - 1:cut]


def _skin(rng):
    skin = np.array([rng.uniform(60, 190), rng.uniform(90, 200), rng.uniform(140, 250)])
    return tuple(float(x) for x in skin * rng.uniform(0.4, 1.0))


def _fingertips(rng, canvas, quad):
    """Big fingers over a card held up close: one to three skin-coloured blobs reaching in from
    one long side (the index corners, top-left and bottom-right, are left showing)."""
    c = quad.mean(0)
    side = (quad[1] - quad[0]) if rng.random() < 0.5 else (quad[3] - quad[0])
    w = np.linalg.norm(quad[1] - quad[0])
    normal = np.array([-side[1], side[0]]) / (np.linalg.norm(side) + 1e-6)
    normal *= rng.choice([-1, 1])
    for _ in range(int(rng.integers(1, 4))):
        along = side / (np.linalg.norm(side) + 1e-6) * rng.uniform(-0.25, 0.25) * np.linalg.norm(side)
        p = c + along + normal * w * rng.uniform(0.45, 0.75)
        ax = (int(w * rng.uniform(0.12, 0.22)), int(w * rng.uniform(0.35, 0.6)))
        ang = np.degrees(np.arctan2(normal[1], normal[0])) + rng.uniform(-20, 20)
        cv2.ellipse(canvas, (int(p[0]), int(p[1])), ax, ang + 90, 0, 360, _skin(rng), -1, cv2.LINE_AA)


def card_sample(rng, card: np.ndarray, textures, neighbours=None, out_size=(CARD_W, CARD_H),
                close_up: float = 0.0):
    """One augmented, rectified, normalised positive sample of ``card``. With probability
    ``close_up`` the card is seen up close: cut by the picture's edge, or held by big fingers
    over one long side (some of the card still shows both its colour and an index)."""
    tpl = _template(card)
    if rng.random() < 0.5:
        tpl = tpl[::-1, ::-1]
    th, tw = tpl.shape[:2]
    S = 224
    canvas = random_table(rng, S, S, textures)
    # card placement: centre, size, rotation, perspective
    cw = rng.uniform(40, 85)
    ch = cw * rng.uniform(1.48, 1.62)
    ang = rng.uniform(0, 2 * np.pi)
    c = np.array([S / 2, S / 2]) + rng.uniform(-10, 10, 2)
    # (not card_quad: the half-sides u and v also place the neighbours below)
    u = np.array([np.cos(ang), np.sin(ang)]) * cw / 2
    v = np.array([-np.sin(ang), np.cos(ang)]) * ch / 2
    quad = np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)
    quad += rng.normal(0, cw * 0.04, (4, 2)).astype(np.float32)  # perspective
    # neighbours under the card (touching / overlapping)
    if neighbours is not None and rng.random() < 0.35:
        for _ in range(int(rng.integers(1, 3))):
            nb = _template(neighbours[rng.integers(len(neighbours))])
            d = (u if rng.random() < 0.5 else v) * 2 * rng.uniform(0.85, 1.1) * rng.choice([-1, 1])
            nq = quad + d.astype(np.float32) + rng.normal(0, 4, (4, 2)).astype(np.float32)
            _paste(canvas, nb, nq)
    shadow = rng.random() < 0.4
    if shadow:  # drop shadow of the card itself
        sh = canvas.copy()
        cv2.fillConvexPoly(sh, (quad + rng.uniform(-4, 6, 2)).astype(np.int32), (0, 0, 0), cv2.LINE_AA)
        canvas = cv2.addWeighted(canvas, 0.6, sh, 0.4, 0)
    _paste(canvas, tpl, quad)
    if neighbours is not None and rng.random() < 0.1:  # a card slightly over this one
        nb = _template(neighbours[rng.integers(len(neighbours))])
        d = (u if rng.random() < 0.5 else v) * 2 * rng.uniform(0.8, 0.9) * rng.choice([-1, 1])
        _paste(canvas, nb, quad + d.astype(np.float32))
    if rng.random() < 0.3:  # fingers holding the card (hand-held cards)
        for _ in range(int(rng.integers(1, 3))):
            _finger(rng, canvas, quad)
    close = close_up > 0 and rng.random() < close_up
    if close and rng.random() < 0.5:
        _fingertips(rng, canvas, quad)
    canvas = _light(rng, canvas)
    canvas = _degrade(rng, canvas)
    if close and rng.random() < 0.7:
        _cut_by_edge(rng, canvas, quad)
    # the detector's view: a slightly wrong quad, sometimes the coloured field grown to the card
    jq = quad + rng.normal(0, cw * 0.025, (4, 2)).astype(np.float32)
    if rng.random() < 0.2:
        jq = c + (jq - c) * rng.uniform(0.88, 1.08)
    jq = np.roll(jq, int(rng.integers(2)) * 2, axis=0)
    return normalize_card(rectify(canvas, jq.astype(np.float32), out_size))


def _paste(canvas, tpl, quad):
    th, tw = tpl.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    M = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    S = canvas.shape[1], canvas.shape[0]
    warped = cv2.warpPerspective(tpl, M, S, flags=cv2.INTER_LINEAR)
    mask = card_mask(tw, th, corner=0.06)
    wm = cv2.warpPerspective(mask, M, S, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    canvas[:] = (canvas * (1 - wm) + warped * wm).astype(np.uint8)


def _object(rng, canvas):
    """Draw a non-card object in the middle of the canvas: phone, pawn, rules card, hand, coin."""
    S = canvas.shape[0]
    c = (S // 2 + int(rng.integers(-20, 20)), S // 2 + int(rng.integers(-20, 20)))
    k = int(rng.integers(6))
    ang = rng.uniform(0, 180)
    if k == 0:  # phone
        w, h = rng.uniform(60, 110), rng.uniform(120, 220)
        box = cv2.boxPoints(((c[0], c[1]), (w, h), ang)).astype(np.int32)
        cv2.fillConvexPoly(canvas, box, tuple(float(x) for x in rng.uniform(0, 60, 3)), cv2.LINE_AA)
        inner = cv2.boxPoints(((c[0], c[1]), (w * 0.88, h * 0.85), ang)).astype(np.int32)
        cv2.fillConvexPoly(canvas, inner, tuple(float(x) for x in rng.uniform(0, 255, 3)), cv2.LINE_AA)
    elif k == 1:  # pawn: round base and head
        col = tuple(float(x) for x in rng.uniform(0, 255, 3))
        r = int(rng.uniform(20, 45))
        cv2.circle(canvas, c, r, col, -1, cv2.LINE_AA)
        cv2.circle(canvas, c, int(r * 0.55), tuple(min(255.0, x * 1.3) for x in col), -1, cv2.LINE_AA)
    elif k == 2:  # rules card / paper with text, card sized
        w = rng.uniform(70, 140)
        h = w * rng.uniform(1.3, 1.6)
        box = cv2.boxPoints(((c[0], c[1]), (w, h), ang)).astype(np.int32)
        cv2.fillConvexPoly(canvas, box, (235, 235, 235), cv2.LINE_AA)
        M = cv2.getRotationMatrix2D(c, -ang, 1.0)
        for i in range(int(rng.integers(5, 14))):
            y = c[1] - h / 2 + 10 + i * (h - 20) / 14
            p = np.array([[c[0] - w / 2 + 8, y, 1], [c[0] + w / 2 - 8 - rng.uniform(0, 30), y, 1]])
            q = (M @ p.T).T.astype(np.int32)
            cv2.line(canvas, tuple(q[0]), tuple(q[1]), (40, 40, 40), int(rng.integers(1, 4)))
        if rng.random() < 0.5:
            cv2.putText(canvas, "UNO", (c[0] - 30, c[1]), cv2.FONT_HERSHEY_DUPLEX, 1.0, (30, 30, 200), 2)
    elif k == 3:  # hand
        skin = tuple(float(x) for x in np.array([rng.uniform(60, 190), rng.uniform(90, 200),
                                                 rng.uniform(140, 250)]) * rng.uniform(0.5, 1.0))
        cv2.ellipse(canvas, c, (int(rng.uniform(40, 70)), int(rng.uniform(55, 90))), ang, 0, 360, skin, -1)
        for i in range(4):
            a = np.radians(ang + 60 + i * 20)
            p2 = (int(c[0] + 120 * np.cos(a)), int(c[1] + 120 * np.sin(a)))
            cv2.line(canvas, c, p2, skin, int(rng.uniform(14, 24)))
    elif k == 4:  # random coloured box or book
        box = cv2.boxPoints(((c[0], c[1]), (rng.uniform(60, 200), rng.uniform(60, 250)), ang)).astype(np.int32)
        cv2.fillConvexPoly(canvas, box, tuple(float(x) for x in rng.uniform(0, 255, 3)), cv2.LINE_AA)
    # k == 5: plain table
    return canvas


def covered_sample(rng, textures, cards, out_size=(CARD_W, CARD_H)):
    """A card whose centre and both corner indices are covered (fingers, or the picture's edge):
    nothing on it says which card it is, so the reader must say ``none``."""
    S = 224
    canvas = random_table(rng, S, S, textures)
    cw = rng.uniform(50, 85)
    ch = cw * rng.uniform(1.48, 1.62)
    ang = rng.uniform(0, 2 * np.pi)
    c = np.array([S / 2, S / 2]) + rng.uniform(-8, 8, 2)
    quad = card_quad(c, cw, ch, ang)
    tpl = _template(cards[rng.integers(len(cards))])
    _paste(canvas, tpl if rng.random() < 0.5 else tpl[::-1, ::-1], quad)
    for corner in (quad[0] + (quad[2] - quad[0]) * 0.12, quad[2] + (quad[0] - quad[2]) * 0.12, c):
        ax = (int(cw * rng.uniform(0.28, 0.4)), int(cw * rng.uniform(0.35, 0.55)))
        cv2.ellipse(canvas, (int(corner[0]), int(corner[1])), ax, rng.uniform(0, 180), 0, 360,
                    _skin(rng), -1, cv2.LINE_AA)
    canvas = _degrade(rng, _light(rng, canvas))
    jq = quad + rng.normal(0, cw * 0.025, (4, 2)).astype(np.float32)
    return normalize_card(rectify(canvas, jq, out_size))


def negative_sample(rng, textures, cards, out_size=(CARD_W, CARD_H), covered: float = 0.0):
    """One negative (class ``none``) sample; with probability ``covered`` a card with nothing
    readable left showing (:func:`covered_sample`)."""
    if covered > 0 and cards and rng.random() < covered:
        return covered_sample(rng, textures, cards, out_size)
    S = 224
    canvas = random_table(rng, S, S, textures)
    kind = rng.random()
    cw = rng.uniform(35, 85)
    ch = cw * rng.uniform(1.3, 1.7)
    c = np.array([S / 2, S / 2])
    if kind < 0.22 and cards:
        # a card, seen through a quad that misses most of it (only part of the card inside)
        tpl = _template(cards[rng.integers(len(cards))])
        u0, v0 = np.array([cw / 2, 0]), np.array([0, ch / 2])
        q = np.array([c - u0 - v0, c + u0 - v0, c + u0 + v0, c - u0 + v0], np.float32)
        _paste(canvas, tpl, q)
        off = (u0 if rng.random() < 0.5 else v0) * 2 * rng.uniform(0.5, 0.9) * rng.choice([-1, 1])
        c = c + off
    elif kind < 0.52 and cards:
        # a quad well inside one card: a corner index, the centre oval, half the face (a card's
        # small print must not read as a card of its own)
        tpl = _template(cards[rng.integers(len(cards))])
        bw = rng.uniform(60, 110)
        bh = bw * rng.uniform(1.48, 1.62)
        u0, v0 = np.array([bw / 2, 0]), np.array([0, bh / 2])
        _paste(canvas, tpl if rng.random() < 0.5 else tpl[::-1, ::-1],
               np.array([c - u0 - v0, c + u0 - v0, c + u0 + v0, c - u0 + v0], np.float32))
        f = rng.uniform(0.15, 0.62)
        cw = bw * f
        ch = cw * rng.uniform(1.3, 1.7)
        if rng.random() < 0.5:  # on a corner index
            c = c + np.array([bw * rng.choice([-1, 1]) * rng.uniform(0.25, 0.4),
                              bh * rng.choice([-1, 1]) * rng.uniform(0.25, 0.4)])
        else:
            c = c + rng.uniform(-0.12, 0.12, 2) * np.array([bw, bh])
    elif kind < 0.6 and cards:
        # a quad spanning two cards (two cards side by side read as one)
        for sgn in (-1, 1):
            tpl = _template(cards[rng.integers(len(cards))])
            w2 = cw / 2
            cc = c + np.array([sgn * w2 / 2, 0])
            u0, v0 = np.array([w2 / 2, 0]), np.array([0, w2 * 0.78])
            _paste(canvas, tpl, np.array([cc - u0 - v0, cc + u0 - v0, cc + u0 + v0, cc - u0 + v0], np.float32))
        ch = cw * 0.78 * 2 / 1.0 if rng.random() < 0.0 else cw * 1.56 / 2 * 2 * 0.5
        cw, ch = ch, cw  # the pair of cards is landscape: read it portrait
    else:
        big = _object(rng, random_table(rng, 400, 400, textures))
        canvas = cv2.resize(big, (S, S), interpolation=cv2.INTER_AREA)
        cw, ch = cw * 1.2, ch * 1.2
    ang = rng.uniform(0, 2 * np.pi)
    quad = card_quad(c, cw, ch, ang)
    quad += rng.normal(0, cw * 0.03, (4, 2)).astype(np.float32)
    canvas = _degrade(rng, _light(rng, canvas))
    return normalize_card(rectify(canvas, quad, out_size))


def background_sample(rng, crop: np.ndarray, out_size=(CARD_W, CARD_H)):
    """A real non-card outline (see :func:`vision.train.sources.background_crops`), either way
    up, under another light and blur."""
    if rng.random() < 0.5:
        crop = crop[::-1, ::-1]
    img = _degrade(rng, _light(rng, np.ascontiguousarray(crop)))
    return normalize_card(cv2.resize(img, out_size, interpolation=cv2.INTER_AREA))
