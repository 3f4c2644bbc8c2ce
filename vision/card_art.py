"""Procedurally drawn Uno cards: every face of classic, Flip light and Flip dark, and the back.

>>> img = draw_card("red-7", 128, 192)
>>> img.shape
(192, 128, 3)

The drawings follow the layout of the real cards closely enough to train and test the card
reader and to show cards on the demo table: a rounded card, a white border (black on the Flip
dark side), a coloured field, the tilted centre oval, the centre symbol, the corner indices (the
bottom one upside down), the underline under 6 and 9, the UNO FLIP logo on Flip cards.

``style`` picks one of the print styles (``"oval"``: white filled oval and coloured symbol, like
older classic prints; ``"outline"``: thin oval outline and white symbol, like newer prints and
Flip cards); ``rng`` varies colours and proportions slightly (for training data).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.cards import BACK, CLASSIC, DARK, LIGHT, FaceSet, parse_card

from .card_shape import draw_rounded_rect

__all__ = ["draw_card", "face_set_of", "COLORS_BGR"]

#: Printed colours (BGR) of each card colour.
COLORS_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 30, 215),
    "yellow": (10, 205, 250),
    "green": (75, 165, 50),
    "blue": (205, 120, 10),
    "pink": (150, 30, 230),
    "teal": (150, 150, 10),
    "orange": (10, 125, 250),
    "purple": (135, 35, 105),
}
WHITE = (250, 250, 250)
BLACK = (25, 25, 25)
_SS = 2  # supersampling factor


def face_set_of(label: str, face_set: FaceSet | str | None = None) -> FaceSet | None:
    """The face set a label is drawn from (classic first for labels classic and light share)."""
    if isinstance(face_set, str):
        face_set = {"classic": CLASSIC, "light": LIGHT, "dark": DARK}[face_set]
    if label == BACK:
        return face_set
    card = parse_card(label)
    if face_set is not None and card in face_set:
        return face_set
    for fs in (CLASSIC, LIGHT, DARK):
        if card in fs:
            return fs
    return None  # pragma: no cover


def _jit(rng, v, amount):
    return v if rng is None else v + rng.uniform(-amount, amount)


def _color(rng, bgr):
    if rng is None:
        return tuple(int(c) for c in bgr)
    return tuple(int(np.clip(c + rng.uniform(-18, 18), 0, 255)) for c in bgr)


# --------------------------------------------------------------------------- symbol masks
def _text_mask(text: str, w: int, h: int, thick_ratio: float = 0.16,
               underline: bool = False) -> np.ndarray:
    """A mask ``h`` x ``w`` holding ``text`` fitted and centred."""
    font = cv2.FONT_HERSHEY_DUPLEX
    (tw, th), base = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(w * 0.86 / tw, h * (0.62 if underline else 0.78) / th)
    thick = max(1, int(round(th * scale * thick_ratio)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    m = np.zeros((h, w), np.uint8)
    x = (w - tw) // 2
    y = (h + th) // 2 - (int(h * 0.06) if underline else 0)
    cv2.putText(m, text, (x, y), font, scale, 255, thick, cv2.LINE_AA)
    if underline:
        uy = y + max(2, int(h * 0.09))
        cv2.line(m, (x + tw // 8, uy), (x + tw - tw // 8, uy), 255, max(2, thick), cv2.LINE_AA)
    return m


def _arrow(m, p0, p1, thick, head):
    cv2.line(m, p0, p1, 255, thick, cv2.LINE_AA)
    ang = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
    pts = [p1]
    for da in (2.5, -2.5):
        pts.append((int(p1[0] + head * math.cos(ang + da)), int(p1[1] + head * math.sin(ang + da))))
    cv2.fillConvexPoly(m, np.array(pts, np.int32), 255, cv2.LINE_AA)


def _symbol_mask(face: str, w: int, h: int) -> np.ndarray:
    """The white/black symbol of a face as a mask of size ``h`` x ``w``."""
    s = min(w, h)
    m = np.zeros((h, w), np.uint8)
    cx, cy = w // 2, h // 2
    t = max(2, s // 9)
    if face.isdigit():
        return _text_mask(face, w, h, underline=face in ("6", "9"))
    if face in ("draw-two", "draw-one", "draw-five", "wild-draw-two"):
        n = {"draw-two": "2", "draw-one": "1", "draw-five": "5", "wild-draw-two": "2"}[face]
        return _text_mask("+" + n, w, h, thick_ratio=0.15)
    if face == "wild-draw-four":
        return _text_mask("+4", w, h, thick_ratio=0.15)
    if face == "skip":
        r = int(s * 0.36)
        cv2.circle(m, (cx, cy), r, 255, t, cv2.LINE_AA)
        d = int(r * 0.7)
        cv2.line(m, (cx - d, cy + d), (cx + d, cy - d), 255, t, cv2.LINE_AA)
        return m
    if face == "reverse":
        d = int(s * 0.30)
        o = int(s * 0.09)
        _arrow(m, (cx - d + o, cy + d + o), (int(cx + d * 0.55) + o, int(cy - d * 0.55) + o),
               t, int(s * 0.2))
        _arrow(m, (cx + d - o, cy - d - o), (int(cx - d * 0.55) - o, int(cy + d * 0.55) - o),
               t, int(s * 0.2))
        return m
    if face == "skip-everyone":
        r = int(s * 0.33)
        cv2.ellipse(m, (cx, cy), (r, r), 0, 60, 380, 255, t, cv2.LINE_AA)
        a = math.radians(60)
        tip = (int(cx + r * math.cos(a)), int(cy + r * math.sin(a)))
        hd = int(s * 0.2)
        pts = np.array([(tip[0] + hd // 2, tip[1] - hd // 2), (tip[0] - hd // 2, tip[1] - hd // 3),
                        (tip[0] + hd // 6, tip[1] + hd // 2)], np.int32)
        cv2.fillConvexPoly(m, pts, 255, cv2.LINE_AA)
        return m
    if face == "flip":
        b = int(s * 0.30)
        cv2.rectangle(m, (cx - b // 3, cy - b), (cx + b, cy + b), 255, t, cv2.LINE_AA)
        _arrow(m, (cx - b - b // 2, cy), (cx + b // 3, cy), t, int(s * 0.22))
        return m
    if face == "back":
        return m
    raise ValueError(face)  # pragma: no cover


# --------------------------------------------------------------------------- compositing
def paint(img, mask, color, alpha=1.0):
    """Blend ``color`` into ``img`` where ``mask`` (0-255) is set, ``alpha`` at full mask.

    Only the mask's set pixels are worked (elsewhere the blend leaves every pixel as it is), and
    at full mask and ``alpha`` 1 the blend gives ``color`` itself: only a stroke's anti-aliased
    rim is blended (the same bytes as blending every pixel of the mask's box, at two thirds of
    the time a card takes to draw)."""
    m = np.asarray(mask)
    ys, xs = np.nonzero(m.any(axis=1)), np.nonzero(m.any(axis=0))
    if not ys[0].size:
        return
    box = np.s_[ys[0][0]:ys[0][-1] + 1, xs[0][0]:xs[0][-1] + 1]
    roi, mb = img[box], m[box]
    c = np.array(color, np.float32)
    if roi.ndim != 3:   # (a grey image: blended whole)
        a = mb.astype(np.float32) / 255.0 * alpha
        roi[:] = (roi * (1 - a) + c * a).astype(img.dtype)
        return
    part = mb > 0
    if alpha == 1.0:
        full = mb == 255
        roi[full] = c.astype(img.dtype)
        part &= ~full
    a = (mb[part].astype(np.float32) / 255.0 * alpha)[:, None]
    roi[part] = (roi[part] * (1 - a) + c * a).astype(img.dtype)


def _place(img, mask, x, y, fill, outline=None, outline_px=0, rotate180=False):
    if rotate180:
        mask = mask[::-1, ::-1]
    h, w = mask.shape
    H, W = img.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    sub = mask[y0 - y:y1 - y, x0 - x:x1 - x]
    roi = img[y0:y1, x0:x1]
    if outline is not None and outline_px > 0:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * outline_px + 1, 2 * outline_px + 1))
        paint(roi, cv2.dilate(sub, k), outline)
    paint(roi, sub, fill)


def quadrant_oval(img, center, axes, angle, colors):
    """A tilted oval split in four colours (the wild)."""
    h, w = img.shape[:2]
    oval = np.zeros((h, w), np.uint8)
    cv2.ellipse(oval, center, axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    yy, xx = np.mgrid[0:h, 0:w]
    # split along the oval's own axes
    a = math.radians(angle)
    u = (xx - center[0]) * math.cos(a) + (yy - center[1]) * math.sin(a)
    v = -(xx - center[0]) * math.sin(a) + (yy - center[1]) * math.cos(a)
    quads = [(u < 0) & (v < 0), (u >= 0) & (v < 0), (u < 0) & (v >= 0), (u >= 0) & (v >= 0)]
    for q, c in zip(quads, colors):
        paint(img, (oval * q).astype(np.uint8), c)


def _mini_cards(img, cx, cy, s, colors, outline):
    """The small tilted cards of wild-draw-four / draw-two."""
    cw, ch = int(s * 0.24), int(s * 0.36)
    offs = [(-0.26, -0.02), (0.0, 0.1), (0.02, -0.2), (0.26, -0.06)][:len(colors)]
    if len(colors) == 2:
        offs = [(-0.1, 0.08), (0.1, -0.08)]
    for (ox, oy), c in zip(offs, colors):
        x, y = int(cx + ox * s - cw / 2), int(cy + oy * s - ch / 2)
        cv2.rectangle(img, (x - 2, y - 2), (x + cw + 2, y + ch + 2), outline, -1, cv2.LINE_AA)
        cv2.rectangle(img, (x, y), (x + cw, y + ch), c, -1, cv2.LINE_AA)


def _stack(img, cx, cy, s, fill, outline):
    """The stacked-cards icon of wild-draw-color."""
    for i in range(4):
        y = int(cy + s * (0.18 - i * 0.1))
        pts = np.array([(cx - s * 0.25, y), (cx, y - s * 0.08), (cx + s * 0.25, y), (cx, y + s * 0.08)],
                       np.int32)
        cv2.fillConvexPoly(img, pts, outline, cv2.LINE_AA)
        cv2.polylines(img, [pts], True, fill, max(1, int(s * 0.02)), cv2.LINE_AA)


def _flip_logo(img, x, y, w, h):
    cv2.rectangle(img, (x, y), (x + w, y + h), (20, 200, 250), -1, cv2.LINE_AA)
    m = _text_mask("UNO", w, h, thick_ratio=0.2)
    _place(img, m, x, y, (30, 30, 30))


def draw_card(label: str, width: int = 128, height: int = 192, *,
              face_set: FaceSet | str | None = None, style: str | None = None,
              rng: np.random.Generator | None = None) -> np.ndarray:
    """A BGR image ``height`` x ``width`` of the face ``label`` (or the back, ``"back"``).

    ``face_set`` chooses the design for labels several sets share (``red-7`` is drawn as a classic
    card unless ``face_set`` is ``LIGHT``). The whole image is the card (no table around it); the
    four corners outside the rounded card are filled with the border colour's neighbour grey.
    """
    fs = face_set_of(label, face_set)
    dark = fs is DARK
    flip = fs in (LIGHT, DARK)
    if style is None:
        style = "outline" if flip else ("oval" if rng is None or rng.random() < 0.6 else "outline")
    W, H = width * _SS, height * _SS
    img = np.zeros((H, W, 3), np.float32)
    img[:] = (120, 120, 120)
    border = _color(rng, BLACK if dark else WHITE)
    card = np.zeros((H, W), np.uint8)
    draw_rounded_rect(card, 0, 0, W - 1, H - 1, int(W * 0.07))
    paint(img, card, border)
    inset = int(W * _jit(rng, 0.075, 0.015))
    field_mask = np.zeros((H, W), np.uint8)
    draw_rounded_rect(field_mask, inset, inset, W - 1 - inset, H - 1 - inset, int(W * 0.05))
    cx, cy = W // 2, H // 2
    axes = (int(W * _jit(rng, 0.36, 0.03)), int(H * _jit(rng, 0.45, 0.03)))
    angle = _jit(rng, 30, 6)
    s = W  # symbol scale unit

    if label == BACK:
        paint(img, field_mask, _color(rng, BLACK))
        oval = np.zeros((H, W), np.uint8)
        cv2.ellipse(oval, (cx, cy), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
        paint(img, oval, _color(rng, (30, 30, 220)))
        word = cv2.warpAffine(_text_mask("UNO", int(W * 0.8), int(H * 0.3), thick_ratio=0.22),
                              cv2.getRotationMatrix2D((W * 0.4, H * 0.15), 20, 1.0),
                              (int(W * 0.8), int(H * 0.3)))
        _place(img, word, int(W * 0.1), int(H * 0.35), _color(rng, (20, 215, 250)), BLACK, max(2, W // 60))
        return _finish(img, width, height)

    card_obj = parse_card(label)
    face = card_obj.face
    if card_obj.is_wild:
        field = _color(rng, BLACK if not dark else (235, 235, 235))
        paint(img, field_mask, field)
        cols = [COLORS_BGR[c] for c in (fs.colors if fs else CLASSIC.colors)]
        # order: top-left, top-right, bottom-left, bottom-right
        quad_cols = [cols[0], cols[3], cols[1], cols[2]]
        if face == "wild-draw-four":
            _mini_cards(img, cx, cy, s, [cols[3], cols[2], cols[0], cols[1]], WHITE)
            idx = "+4"
        else:
            quadrant_oval(img, (cx, cy), axes, angle, quad_cols)
            idx = {"wild-draw-two": "+2", "wild-draw-color": "", "wild": ""}[face]
            if face == "wild-draw-two":
                m = _text_mask("+2", int(s * 0.7), int(s * 0.5), thick_ratio=0.16)
                _place(img, m, cx - m.shape[1] // 2, cy - m.shape[0] // 2, WHITE, BLACK, max(2, W // 40))
            if face == "wild-draw-color":
                _stack(img, cx, cy, s, WHITE, BLACK)
        # corner marks: small quadrant ovals for wild, the number for the draws
        ix, iy = int(W * 0.09), int(H * 0.06)
        if idx:
            m = _text_mask(idx, int(W * 0.26), int(H * 0.11), thick_ratio=0.15)
            ink = WHITE if not dark else BLACK
            _place(img, m, ix, iy, ink)
            _place(img, m, W - ix - m.shape[1], H - iy - m.shape[0], ink, rotate180=True)
        else:
            r = (int(W * 0.07), int(H * 0.06))
            quadrant_oval(img, (int(W * 0.18), int(H * 0.11)), r, angle, quad_cols)
            quadrant_oval(img, (W - int(W * 0.18), H - int(H * 0.11)), r, angle, quad_cols)
        if flip:
            _flip_logo(img, int(W * 0.62), int(H * 0.03), int(W * 0.3), int(H * 0.08))
        return _finish(img, width, height)

    colour = _color(rng, COLORS_BGR[card_obj.color])
    paint(img, field_mask, colour)
    oval = np.zeros((H, W), np.uint8)
    if style == "oval" and not dark:
        cv2.ellipse(oval, (cx, cy), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
        paint(img, oval, _color(rng, WHITE))
        sym_fill, sym_line = colour, BLACK
    else:
        cv2.ellipse(oval, (cx, cy), axes, angle, 0, 360, 255, max(2, W // 45), cv2.LINE_AA)
        paint(img, oval, BLACK if dark else WHITE)
        sym_fill, sym_line = (BLACK, WHITE) if dark else (WHITE, BLACK)

    size = int(s * _jit(rng, 0.62, 0.05))
    if face == "draw-two" and fs is CLASSIC:
        _mini_cards(img, cx, cy, s, [colour, colour], BLACK)
        m = np.zeros((1, 1), np.uint8)
    else:
        m = _symbol_mask(face, size, int(size * 1.15))
        _place(img, m, cx - m.shape[1] // 2, cy - m.shape[0] // 2, sym_fill, sym_line,
               max(2, W // 28))
    # corner indices
    idx_face = face
    iw, ih = int(W * 0.24), int(H * 0.13)
    if face.startswith("draw-"):
        mi = _text_mask("+" + {"draw-two": "2", "draw-one": "1", "draw-five": "5"}[face], iw, ih,
                        thick_ratio=0.14)
    else:
        mi = _symbol_mask(idx_face, iw, ih)
    ix, iy = int(W * 0.08), int(H * 0.045)
    ink = WHITE if not dark else BLACK
    _place(img, mi, ix, iy, ink)
    _place(img, mi, W - ix - iw, H - iy - ih, ink, rotate180=True)
    if flip:
        _flip_logo(img, int(W * 0.62), int(H * 0.03), int(W * 0.3), int(H * 0.08))
    return _finish(img, width, height)


def _finish(img: np.ndarray, width: int, height: int) -> np.ndarray:
    out = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.resize(out, (width, height), interpolation=cv2.INTER_AREA)
