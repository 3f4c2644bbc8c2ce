"""Synthetic tables: card images composited onto a table photo-like background.

Used by the tests, the evaluation (multi-card recall on composited real crops, accuracy on
renders) and the benchmark. ``compose_table`` returns the image and the true quad of each card.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_shape import CARD_RATIO, card_mask, order_quad

__all__ = ["TABLES", "table", "compose_table", "Placed", "paste_card", "non_card_objects", "cast_light"]

TABLES = ("wood", "cloth", "white", "dark")


@dataclass(frozen=True)
class Placed:
    label: str
    quad: np.ndarray  # 4x2 float32, image pixels

    @property
    def center(self) -> tuple[float, float]:
        c = self.quad.mean(0)
        return float(c[0]), float(c[1])


def table(kind: str, width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A plain table surface: ``wood``, ``cloth`` (green felt), ``white`` or ``dark``."""
    h, w = height, width
    if kind == "wood":
        base = np.array([60, 110, 160], np.float32) * rng.uniform(0.7, 1.2)
        yy = np.linspace(0, rng.uniform(20, 60), h, dtype=np.float32)[:, None]
        xx = np.linspace(0, rng.uniform(0, 8), w, dtype=np.float32)[None, :]
        grain = np.sin(yy + xx + 3 * np.sin(xx * 0.3)) * 18
        img = base + grain[..., None]
    elif kind == "cloth":
        img = np.ones((h, w, 3), np.float32) * np.array([60, 120, 40], np.float32) * rng.uniform(0.7, 1.2)
    elif kind == "white":
        img = np.ones((h, w, 3), np.float32) * rng.uniform(215, 245)
    elif kind == "dark":
        img = np.ones((h, w, 3), np.float32) * rng.uniform(20, 50)
    else:
        raise ValueError(f"unknown table {kind!r}: expected one of {', '.join(TABLES)}")
    small = rng.normal(0, 8, (h // 8 + 1, w // 8 + 1, 3)).astype(np.float32)
    img = img + cv2.resize(small, (w, h)) + rng.normal(0, 3, (h, w, 3)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def paste_card(canvas: np.ndarray, card: np.ndarray, quad: np.ndarray, shadow: bool = True) -> None:
    """Warp ``card`` (the card filling the image) onto ``canvas`` at ``quad``, rounded corners."""
    th, tw = card.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    M = cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32))
    size = canvas.shape[1], canvas.shape[0]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 8
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 8
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(size[0], x1), min(size[1], y1)
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
    roi = canvas[y0:y1, x0:x1]
    warped = cv2.warpPerspective(card, T, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA
                                 if tw > (x1 - x0) else cv2.INTER_LINEAR)
    mask = card_mask(tw, th, corner=0.06)
    wm = cv2.warpPerspective(mask, T, (x1 - x0, y1 - y0)).astype(np.float32)[..., None] / 255
    if shadow:
        sm = cv2.GaussianBlur(wm, (0, 0), 2.0)
        sm = np.roll(sm, (2, 2), axis=(0, 1))[..., None] if sm.ndim == 2 else np.roll(sm, (2, 2), (0, 1))
        roi[:] = (roi * (1 - 0.35 * sm.reshape(wm.shape))).astype(np.uint8)
    roi[:] = (roi * (1 - wm) + warped * wm).astype(np.uint8)


def _card_quad(center, width, angle_deg, perspective, rng):
    h = width * CARD_RATIO
    a = np.radians(angle_deg)
    u = np.array([np.cos(a), np.sin(a)]) * width / 2
    v = np.array([-np.sin(a), np.cos(a)]) * h / 2
    c = np.asarray(center, np.float64)
    q = np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)
    if perspective:
        q += rng.normal(0, width * perspective, (4, 2)).astype(np.float32)
    return q


def compose_table(cards: list[tuple[str, np.ndarray]], width: int = 1920, height: int = 1080, *,
                  rng: np.random.Generator | None = None, kind: str | None = None,
                  card_width: float | None = None, spacing: float = 1.25,
                  rotate: bool = True, perspective: float = 0.02, light: bool = True,
                  objects: bool = False) -> tuple[np.ndarray, list[Placed]]:
    """Lay ``cards`` (label, image) out on a table in a loose grid; returns image and placements.

    ``spacing`` is the grid pitch in card sizes: 1.0 makes neighbours touch (they may overlap a
    little with rotation), larger leaves gaps. ``light`` adds a colour cast, a shadow gradient and
    slight blur. ``objects`` adds non-card things (a phone, pawns, a hand, a rules sheet).
    """
    rng = rng or np.random.default_rng(0)
    kind = kind or TABLES[int(rng.integers(len(TABLES)))]
    img = table(kind, width, height, rng)
    n = len(cards)
    cols = max(1, int(np.ceil(np.sqrt(n * width / height / 1.5))))
    rows = max(1, int(np.ceil(n / cols)))
    cw = card_width or min(width / (cols * spacing + 0.5), height / (rows * spacing * CARD_RATIO + 0.5))
    ch = cw * CARD_RATIO
    x0 = (width - cols * cw * spacing) / 2 + cw * spacing / 2
    y0 = (height - rows * ch * spacing) / 2 + ch * spacing / 2
    if objects:
        img = non_card_objects(img, rng)
    placed = []
    for i, (label, card) in enumerate(cards):
        r, c = divmod(i, cols)
        jitter = rng.uniform(-0.04, 0.04, 2) * cw * (spacing - 0.95) * 4 if spacing > 1.0 else 0
        center = (x0 + c * cw * spacing + (jitter[0] if spacing > 1 else 0),
                  y0 + r * ch * spacing + (jitter[1] if spacing > 1 else 0))
        # free rotation only where the grid leaves room for it; otherwise either way up, tilted
        if rotate and spacing >= 1.85:
            angle = rng.uniform(0, 360)
        else:
            tilt = 10 if rotate and spacing >= 1.2 else 4
            angle = rng.choice([0.0, 180.0]) + rng.uniform(-tilt, tilt)
        q = _card_quad(center, cw * rng.uniform(0.97, 1.03), angle, perspective, rng)
        paste_card(img, card, q)
        placed.append(Placed(label, order_quad(q)))
    if light:
        img = cast_light(img, rng)
    return img, placed


def cast_light(img: np.ndarray, rng: np.random.Generator, *, cast: tuple[float, float] = (0.8, 1.2),
               gain: tuple[float, float] = (0.75, 1.15), shade: float = 0.3, blur_chance: float = 0.5,
               blur: tuple[float, float] = (0.5, 1.2)) -> np.ndarray:
    """``img`` under another light: a colour cast (each channel times ``cast``), an overall
    ``gain``, a shadow gradient darkening up to ``shade`` in a random direction, and with
    ``blur_chance`` a slight blur (sigma in ``blur``)."""
    h, w = img.shape[:2]
    f = img.astype(np.float32) * rng.uniform(*cast, 3) * rng.uniform(*gain)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    g = np.cos(a) * xx / w + np.sin(a) * yy / h
    g = (g - g.min()) / (np.ptp(g) + 1e-6)
    f *= (1 - shade * g)[..., None]
    img = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < blur_chance:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(*blur))
    return img


def non_card_objects(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw a phone, two pawns, a hand and a rules sheet along the table's edges."""
    h, w = img.shape[:2]
    s = min(h, w) / 1080
    # phone (top-left)
    box = cv2.boxPoints(((int(120 * s), int(200 * s)), (150 * s, 300 * s), 12)).astype(np.int32)
    cv2.fillConvexPoly(img, box, (20, 20, 20), cv2.LINE_AA)
    inner = cv2.boxPoints(((int(120 * s), int(200 * s)), (130 * s, 260 * s), 12)).astype(np.int32)
    cv2.fillConvexPoly(img, inner, (200, 140, 60), cv2.LINE_AA)
    # pawns (right edge)
    for k, col in enumerate(((30, 30, 200), (200, 60, 30))):
        c = (w - int(80 * s), int((300 + 200 * k) * s))
        cv2.circle(img, c, int(35 * s), col, -1, cv2.LINE_AA)
        cv2.circle(img, c, int(18 * s), tuple(min(255, x + 60) for x in col), -1, cv2.LINE_AA)
    # rules sheet (bottom-left), white paper with lines of text
    c = (int(130 * s), h - int(250 * s))
    box = cv2.boxPoints((c, (160 * s, 230 * s), -8)).astype(np.int32)
    cv2.fillConvexPoly(img, box, (235, 235, 235), cv2.LINE_AA)
    for i in range(10):
        y = int(c[1] - 95 * s + i * 20 * s)
        cv2.line(img, (int(c[0] - 60 * s), y), (int(c[0] + 55 * s - rng.uniform(0, 40) * s), y),
                 (40, 40, 40), max(1, int(3 * s)))
    # hand (bottom-right)
    skin = (120, 160, 215)
    hc = (w - int(170 * s), h - int(120 * s))
    cv2.ellipse(img, hc, (int(90 * s), int(70 * s)), 20, 0, 360, skin, -1, cv2.LINE_AA)
    for i in range(4):
        a = np.radians(200 + i * 18)
        p = (int(hc[0] + 190 * s * np.cos(a)), int(hc[1] + 190 * s * np.sin(a)))
        cv2.line(img, hc, p, skin, max(2, int(26 * s)), cv2.LINE_AA)
    return img
