"""Classic cards drawn in many print styles, to teach what makes a card and not one print.

A club brings whatever deck it owns: the tilted white oval, the round white centre with a radial
sunburst (today's retail design), a coloured oval with a thin white outline, numerals in other
fonts and weights, slanted or upright, with or without a dark outline and a drop shadow, corner
indices of other sizes and places, other symbols for skip, reverse and the draws, other border
widths and colour shades, gloss and wear. :func:`random_style` draws one such print and
:func:`draw_print` draws a face in it; :func:`print_cards` gives the training sources
(``python -m vision.train --drawn-prints N``).

>>> import numpy as np
>>> img = draw_print("red-7", random_style(np.random.default_rng(1)), np.random.default_rng(2))
>>> img.shape
(192, 128, 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.cards import CLASSIC, parse_card
from vision.card_art import paint, quadrant_oval
from vision.card_shape import draw_rounded_rect

__all__ = ["CENTRES", "PrintStyle", "random_style", "draw_print", "print_cards"]

#: The centre designs: a white oval tilted about 30 degrees (the classic print), a round white
#: centre with thin radial lines (the current retail print), a round plain white centre, a thin
#: white oval outline on the coloured field, and no centre shape at all.
CENTRES = ("tilted-oval", "round-sunburst", "round-plain", "coloured-oval", "none")
_CENTRE_P = (0.3, 0.3, 0.1, 0.2, 0.1)
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
          cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL)
#: Base printed colours (BGR); each print shifts them (:attr:`PrintStyle.shades`).
_BASE = {"red": (40, 30, 215), "yellow": (10, 205, 250), "green": (75, 165, 50),
         "blue": (205, 120, 10)}
_SS = 2  # supersampling


@dataclass(frozen=True)
class PrintStyle:
    """One print: every face of a deck drawn in it shares these."""

    centre: str             # one of CENTRES
    centre_size: float      # the centre's half-width, a share of the card's width
    tilt: float             # the oval's tilt, degrees
    font: int               # cv2 Hershey font (FONT_ITALIC or-ed in for a slanted print)
    weight: float           # stroke thickness, a share of the glyph height
    outline: float          # the numeral's dark outline, a share of the card's width (0: none)
    shadow: float           # the numeral's drop shadow offset, a share of the width (0: none)
    symbol_ink: str         # 'field' (coloured on a white centre), 'white' or 'black'
    index_h: float          # corner index height, a share of the card's height
    index_x: float          # corner index position, shares of the card's width and height
    index_y: float
    index_outline: bool
    border: float           # white border, a share of the card's width
    radius: float           # card corner radius, a share of the width
    shades: tuple           # per colour (B, G, R) offsets, in the order of _BASE
    mini_cards: bool        # draw-two / wild-draw-four drawn as small cards (else "+2"/"+4")
    wild_round: bool        # the wild's four colours in a circle (else a tilted oval)
    gloss: float            # strength of a glossy highlight band (0: matt)
    wear: float             # 0 new .. 1 worn (edge whitening, scuffs, faded ink)


def random_style(rng: np.random.Generator) -> PrintStyle:
    centre = CENTRES[int(rng.choice(len(CENTRES), p=_CENTRE_P))]
    font = int(_FONTS[int(rng.integers(len(_FONTS)))])
    if rng.random() < 0.35:
        font |= cv2.FONT_ITALIC
    white_centre = centre in ("tilted-oval", "round-sunburst", "round-plain")
    ink = "field" if white_centre and rng.random() < 0.85 else ("black" if rng.random() < 0.1 else "white")
    return PrintStyle(
        centre=centre,
        centre_size=float(rng.uniform(0.32, 0.44) if centre.startswith("round") else rng.uniform(0.33, 0.4)),
        tilt=float(rng.uniform(18, 42)),
        font=font,
        weight=float(rng.uniform(0.09, 0.24)),
        outline=float(rng.choice([0.0, rng.uniform(0.012, 0.035)], p=[0.3, 0.7])),
        shadow=float(rng.choice([0.0, rng.uniform(0.015, 0.04)], p=[0.45, 0.55])),
        symbol_ink=ink,
        index_h=float(rng.uniform(0.08, 0.15)),
        index_x=float(rng.uniform(0.06, 0.12)),
        index_y=float(rng.uniform(0.035, 0.08)),
        index_outline=bool(rng.random() < 0.5),
        border=float(rng.uniform(0.04, 0.1)),
        radius=float(rng.uniform(0.04, 0.1)),
        shades=tuple(tuple(float(v) for v in rng.uniform(-28, 28, 3)) for _ in _BASE),
        mini_cards=bool(rng.random() < 0.5),
        wild_round=bool(rng.random() < 0.4),
        gloss=float(rng.choice([0.0, rng.uniform(0.08, 0.3)], p=[0.5, 0.5])),
        wear=float(rng.choice([0.0, rng.uniform(0.1, 0.8)], p=[0.6, 0.4])),
    )


def _colour(style: PrintStyle, name: str) -> tuple[float, float, float]:
    i = list(_BASE).index(name)
    return tuple(float(np.clip(b + d, 0, 255)) for b, d in zip(_BASE[name], style.shades[i]))


def _text(text: str, w: int, h: int, font: int, weight: float, fill: float = 0.9) -> np.ndarray:
    """A ``h`` x ``w`` mask with ``text`` fitted (``fill`` of the box) and centred."""
    (tw, th), base = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(w * fill / max(tw, 1), h * fill / max(th + base * 0.3, 1))
    thick = max(1, int(round(th * scale * weight)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    m = np.zeros((h, w), np.uint8)
    cv2.putText(m, text, ((w - tw) // 2, (h + th) // 2), font, scale, 255, thick, cv2.LINE_AA)
    return m


def _arrow(m, p0, p1, thick, head):
    cv2.line(m, p0, p1, 255, thick, cv2.LINE_AA)
    ang = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
    pts = [p1] + [(int(p1[0] + head * math.cos(ang + da)), int(p1[1] + head * math.sin(ang + da)))
                  for da in (2.5, -2.5)]
    cv2.fillConvexPoly(m, np.array(pts, np.int32), 255, cv2.LINE_AA)


def _symbol(face: str, w: int, h: int, style: PrintStyle, rng) -> np.ndarray:
    """The mask of a face's symbol (number, skip, reverse, +2, +4) in a ``h`` x ``w`` box."""
    s = min(w, h)
    t = max(2, int(s * rng.uniform(0.08, 0.14)))
    cx, cy = w // 2, h // 2
    m = np.zeros((h, w), np.uint8)
    if face.isdigit():
        m = _text(face, w, h, style.font, style.weight)
        if face in ("6", "9"):
            ys = np.nonzero(m.max(1))[0]
            xs = np.nonzero(m.max(0))[0]
            if len(ys) and len(xs):
                y = min(h - 2, int(ys[-1] + s * 0.08))
                cv2.line(m, (int(xs[0] + (xs[-1] - xs[0]) * 0.15), y),
                         (int(xs[-1] - (xs[-1] - xs[0]) * 0.15), y), 255, max(2, t // 2), cv2.LINE_AA)
        return m
    if face in ("draw-two", "wild-draw-four"):
        return _text("+2" if face == "draw-two" else "+4", w, h, style.font, style.weight)
    if face == "skip":
        r = int(s * rng.uniform(0.32, 0.42))
        cv2.circle(m, (cx, cy), r, 255, t, cv2.LINE_AA)
        d = int(r * 0.7)
        cv2.line(m, (cx - d, cy + d), (cx + d, cy - d), 255, t, cv2.LINE_AA)
        return m
    if face == "reverse":
        d, o = int(s * rng.uniform(0.26, 0.34)), int(s * rng.uniform(0.06, 0.12))
        head = int(s * rng.uniform(0.16, 0.24))
        _arrow(m, (cx - d + o, cy + d + o), (int(cx + d * 0.55) + o, int(cy - d * 0.55) + o), t, head)
        _arrow(m, (cx + d - o, cy - d - o), (int(cx - d * 0.55) - o, int(cy + d * 0.55) - o), t, head)
        return m
    raise ValueError(face)


def _ink(img, mask, x, y, fill, style: PrintStyle, W: int, rotate180=False, outline=True):
    """Paint ``mask`` at ``(x, y)``: drop shadow, dark outline, then the fill."""
    if rotate180:
        mask = mask[::-1, ::-1]
    H_, W_ = img.shape[:2]
    h, w = mask.shape
    full = np.zeros((H_, W_), np.uint8)
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W_, x + w), min(H_, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    full[y0:y1, x0:x1] = mask[y0 - y:y1 - y, x0 - x:x1 - x]
    if outline and style.shadow > 0:
        d = int(style.shadow * W) * (-1 if rotate180 else 1)
        sh = np.roll(np.roll(full, d, 0), d, 1)
        paint(img, cv2.GaussianBlur(sh, (0, 0), max(1.0, W * 0.006)), (20, 20, 20), 0.85)
    if outline and style.outline > 0:
        r = max(1, int(style.outline * W))
        paint(img, cv2.dilate(full, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))),
               (25, 25, 25))
    paint(img, full, fill)


def _mini_cards(img, cx, cy, s, colours, edge):
    cw, ch = int(s * 0.22), int(s * 0.33)
    offs = [(-0.26, -0.02), (0.0, 0.1), (0.02, -0.2), (0.26, -0.06)] if len(colours) == 4 else \
        [(-0.09, 0.08), (0.09, -0.08)]
    for (ox, oy), c in zip(offs, colours):
        x, y = int(cx + ox * s - cw / 2), int(cy + oy * s - ch / 2)
        cv2.rectangle(img, (x - 3, y - 3), (x + cw + 3, y + ch + 3), edge, -1, cv2.LINE_AA)
        cv2.rectangle(img, (x, y), (x + cw, y + ch), c, -1, cv2.LINE_AA)


def _sunburst(img, cx, cy, r, rng):
    """Thin pale radial lines from the centre to the edge of a round white centre."""
    lines = np.zeros(img.shape[:2], np.uint8)
    n = int(rng.integers(24, 64))
    a0 = rng.uniform(0, 2 * np.pi)
    for k in range(n):
        a = a0 + 2 * np.pi * k / n
        cv2.line(lines, (int(cx + r * 0.25 * math.cos(a)), int(cy + r * 0.25 * math.sin(a))),
                 (int(cx + r * 0.97 * math.cos(a)), int(cy + r * 0.97 * math.sin(a))), 255,
                 max(1, int(r * 0.012)), cv2.LINE_AA)
    paint(img, lines, (205, 205, 205), rng.uniform(0.4, 0.9))


def draw_print(label: str, style: PrintStyle, rng: np.random.Generator, width: int = 128,
               height: int = 192) -> np.ndarray:
    """A classic face ``label`` (``red-7``, ``blue-skip``, ``wild-draw-four``...) drawn in
    ``style``, a BGR image ``height`` x ``width`` that is the whole card."""
    card = parse_card(label)
    W, H = width * _SS, height * _SS
    img = np.full((H, W, 3), 128, np.float32)
    white = tuple(float(v) for v in np.clip(np.array([246, 246, 246]) + rng.uniform(-12, 8, 3), 0, 255))
    shape = np.zeros((H, W), np.uint8)
    draw_rounded_rect(shape, 0, 0, W - 1, H - 1, int(W * style.radius))
    paint(img, shape, white)
    b = int(W * style.border)
    field = np.zeros((H, W), np.uint8)
    draw_rounded_rect(field, b, b, W - 1 - b, H - 1 - b, int(W * max(0.02, style.radius - style.border / 2)))
    cx, cy = W // 2, H // 2
    face = card.face
    colours = [_colour(style, c) for c in ("red", "yellow", "green", "blue")]
    if card.is_wild:
        paint(img, field, (22, 22, 22))
        if face == "wild-draw-four":
            if style.mini_cards:
                _mini_cards(img, cx, cy, W, [colours[3], colours[2], colours[0], colours[1]], white)
            else:
                ax = (int(W * style.centre_size), int(W * style.centre_size * (1.0 if style.wild_round else 1.35)))
                quadrant_oval(img, (cx, cy), ax, 0 if style.wild_round else style.tilt, colours)
                m = _symbol(face, int(W * 0.6), int(W * 0.5), style, rng)
                _ink(img, m, cx - m.shape[1] // 2, cy - m.shape[0] // 2, white, style, W)
            idx = _symbol(face, int(W * 0.3), int(H * style.index_h), style, rng)
            ix, iy = int(W * style.index_x), int(H * style.index_y)
            _ink(img, idx, ix, iy, white, style, W, outline=style.index_outline)
            _ink(img, idx, W - ix - idx.shape[1], H - iy - idx.shape[0], white, style, W, True,
                 style.index_outline)
        else:
            ax = (int(W * style.centre_size), int(W * style.centre_size * (1.0 if style.wild_round else 1.35)))
            quadrant_oval(img, (cx, cy), ax, 0 if style.wild_round else style.tilt, colours)
            r = (int(W * 0.07), int(W * (0.07 if style.wild_round else 0.1)))
            for px, py in ((W * 0.17, H * 0.1), (W * 0.83, H * 0.9)):
                quadrant_oval(img, (int(px), int(py)), r, 0 if style.wild_round else style.tilt, colours)
        return _finish(img, style, rng, width, height)

    field_colour = _colour(style, card.color)
    paint(img, field, field_colour)
    centre = style.centre
    r = int(W * style.centre_size)
    ink = {"field": field_colour, "white": white, "black": (25, 25, 25)}[style.symbol_ink]
    if centre == "tilted-oval":
        m = np.zeros((H, W), np.uint8)
        cv2.ellipse(m, (cx, cy), (r, int(r * 1.4)), style.tilt, 0, 360, 255, -1, cv2.LINE_AA)
        paint(img, m, white)
    elif centre.startswith("round"):
        m = np.zeros((H, W), np.uint8)
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
        paint(img, m, white)
        if centre == "round-sunburst":
            _sunburst(img, cx, cy, r, rng)
    elif centre == "coloured-oval":
        m = np.zeros((H, W), np.uint8)
        cv2.ellipse(m, (cx, cy), (r, int(r * 1.4)), style.tilt, 0, 360, 255, max(2, int(W * 0.02)), cv2.LINE_AA)
        paint(img, m, white)
        if ink == field_colour:
            ink = white
    if centre in ("coloured-oval", "none") and ink == field_colour:
        ink = white
    elif centre not in ("coloured-oval", "none") and ink == white and style.outline == 0:
        ink = field_colour  # (a white symbol on a white centre needs its dark outline)
    if face == "draw-two" and style.mini_cards:
        _mini_cards(img, cx, cy, W, [field_colour, field_colour], (25, 25, 25) if centre != "none" else white)
    else:
        size = int(W * rng.uniform(0.5, 0.66) * (0.9 if centre.startswith("round") else 1.0))
        m = _symbol(face, size, int(size * 1.2), style, rng)
        _ink(img, m, cx - m.shape[1] // 2, cy - m.shape[0] // 2, ink, style, W)
    iw, ih = int(W * 0.28), int(H * style.index_h)
    idx = _symbol(face, iw, ih, style, rng)
    ix, iy = int(W * style.index_x), int(H * style.index_y)
    _ink(img, idx, ix, iy, white, style, W, outline=style.index_outline)
    _ink(img, idx, W - ix - iw, H - iy - ih, white, style, W, True, style.index_outline)
    return _finish(img, style, rng, width, height)


def _finish(img, style: PrintStyle, rng, width, height) -> np.ndarray:
    H, W = img.shape[:2]
    if style.gloss > 0:  # a soft highlight band across the card
        band = np.zeros((H, W), np.float32)
        a = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        d = (xx - rng.uniform(0, W)) * math.cos(a) + (yy - rng.uniform(0, H)) * math.sin(a)
        band = np.exp(-(d / (W * rng.uniform(0.05, 0.25))) ** 2)
        img += band[..., None] * 255 * style.gloss
    if style.wear > 0:
        fade = style.wear * rng.uniform(0.05, 0.2)  # faded ink: towards grey-white
        img[:] = img * (1 - fade) + 225 * fade
        scuff = np.zeros((H, W), np.uint8)
        for _ in range(int(style.wear * 40)):
            side = int(rng.integers(4))
            t = rng.uniform(0, 1)
            p = [(t * W, rng.uniform(0, 6)), (t * W, H - rng.uniform(0, 6)),
                 (rng.uniform(0, 6), t * H), (W - rng.uniform(0, 6), t * H)][side]
            cv2.circle(scuff, (int(p[0]), int(p[1])), int(rng.integers(2, 8)), 255, -1)
        for _ in range(int(style.wear * 12)):
            p0 = rng.uniform(0, [W, H])
            p1 = p0 + rng.normal(0, W * 0.08, 2)
            cv2.line(scuff, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), 160, 1, cv2.LINE_AA)
        paint(img, cv2.GaussianBlur(scuff, (0, 0), 1.0), (232, 232, 232), 0.8)
        img += rng.normal(0, 3 + 6 * style.wear, (H, W, 1))
    out = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.resize(out, (width, height), interpolation=cv2.INTER_AREA)


def print_cards(per_label: int, seed: int = 0, width: int = 128, height: int = 192) -> list:
    """Training sources (:class:`vision.train.sources.Source`, kind ``print``): ``per_label``
    drawings of every classic face, each in a print of its own (:func:`random_style`)."""
    from vision.train.sources import Source

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(per_label):
        style = random_style(rng)  # a deck: every face in one print
        for card in CLASSIC.faces:
            out.append(Source(draw_print(card.name, style, rng, width, height), card.name, "print", "classic"))
    return out
