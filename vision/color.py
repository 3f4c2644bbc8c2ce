"""White balance of a rectified card against its own neutral parts.

Cards carry white (border, oval, symbol outlines, logo) and near-black (symbol outlines, dark
borders) print. Under warm or cold light those parts take the light's cast; scaling each channel
so that the card's own brightest near-neutral pixels come out grey removes most of the cast
before the classifier sees the card. The same function runs at training and at run time.
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalize_card"]


def normalize_card(card_bgr: np.ndarray) -> np.ndarray:
    """A white-balanced and contrast-stretched copy of a rectified card (uint8 BGR)."""
    img = card_bgr.astype(np.float32)
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
    keep = top[chroma <= np.median(chroma)]
    white = np.median(keep, axis=0) + 1.0
    gains = white.mean() / white
    # a coloured card with little white (Flip dark) must not be pushed to grey: limit the gains
    gains = np.clip(gains, 0.6, 1.6)
    gains /= gains.mean()
    img *= gains.astype(np.float32)
    allv = img.reshape(-1)
    lo = float(np.partition(allv, int(0.015 * (allv.size - 1)))[int(0.015 * (allv.size - 1))])
    mx = np.maximum(np.maximum(img[..., 0], img[..., 1]), img[..., 2]).reshape(-1)
    hi = float(np.partition(mx, int(0.97 * (mx.size - 1)))[int(0.97 * (mx.size - 1))])
    scale = 235.0 / max(hi - lo, 40.0)
    img = (img - lo) * scale + 10
    return np.clip(img, 0, 255).astype(np.uint8)
