"""White balance of a rectified card against its own neutral parts.

Cards carry white (border, oval, symbol outlines, logo) and near-black (symbol outlines, dark
borders) print. Under warm or cold light those parts take the light's cast; scaling each channel
so that the card's own brightest near-neutral pixels come out grey removes most of the cast
before the classifier sees the card. The same function runs at training and at run time.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["normalize_card"]

_LEVELS = np.arange(256, dtype=np.float32)[:, None]


def _median(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=0)`` of whole numbers held as float32 (the mean of the two
    middle ones is then exact): the same numbers by one partial sort, without np.median's
    overhead (a few hundred reads a photo)."""
    h = len(values) // 2
    if len(values) % 2:
        return np.partition(values, h, axis=0)[h]
    part = np.partition(values, (h - 1, h), axis=0)
    return (part[h - 1] + part[h]) / np.float32(2)


def normalize_card(card_bgr: np.ndarray) -> np.ndarray:
    """A white-balanced and contrast-stretched copy of a rectified card (uint8 BGR)."""
    card = np.ascontiguousarray(card_bgr)
    if card.dtype != np.uint8 or card.ndim != 3 or card.shape[2] != 3 or card.size < 24:
        raise ValueError(f"normalize_card takes a uint8 BGR image of 8 pixels or more, got "
                         f"{card.dtype} {card.shape}")
    img = card.astype(np.float32)
    flat = img.reshape(-1, 3)
    n = len(flat)
    # (channel-wise operations: numpy's reductions over a last axis of 3 are slow)
    b, g, r = flat[:, 0], flat[:, 1], flat[:, 2]
    lum = b + g + r
    # white reference: the brightest pixels that are not strongly coloured
    k = max(8, n // 10)
    top = flat[np.argpartition(lum, n - k)[n - k:]]
    chroma = np.maximum(np.maximum(top[:, 0], top[:, 1]), top[:, 2]) - \
        np.minimum(np.minimum(top[:, 0], top[:, 1]), top[:, 2])
    keep = top[chroma <= _median(chroma)]
    white = _median(keep) + np.float32(1.0)
    gains = white.mean() / white
    # a coloured card with little white (Flip dark) must not be pushed to grey: limit the gains
    gains = np.minimum(np.maximum(gains, np.float32(0.6)), np.float32(1.6))
    gains /= gains.mean()
    # every pixel's value depends on its channel's value alone: each channel's 256 values are
    # scaled (in float32, as the pixels would be) and the card is mapped by lookup tables
    levels = _LEVELS * gains  # [value, channel]
    # the 1.5th percentile of all scaled values, from each channel's histogram
    hist = np.stack([cv2.calcHist([card], [c], None, [256], [0, 256]).ravel() for c in range(3)], 1)
    order = np.argsort(levels, axis=None)
    below = np.cumsum(hist.ravel()[order])
    lo = float(levels.ravel()[order[np.searchsorted(below, int(0.015 * (3 * n - 1)), side="right")]])
    # the 97th percentile of each pixel's largest scaled channel
    scaled = cv2.LUT(card, levels.reshape(256, 1, 3)).reshape(-1, 3)
    mx = np.maximum(np.maximum(scaled[:, 0], scaled[:, 1]), scaled[:, 2])
    at = int(0.97 * (n - 1))
    hi = float(np.partition(mx, at)[at])
    scale = 235.0 / max(hi - lo, 40.0)
    lut = np.clip((levels - lo) * scale + 10, 0, 255).astype(np.uint8)
    return cv2.LUT(card, lut.reshape(256, 1, 3))
