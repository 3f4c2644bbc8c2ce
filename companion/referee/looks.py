"""Comparing two looks of a region that the camera smeared differently.

A camera on a wobbly arm (or a slow shutter) smears every frame along a short line, and the
line turns when the arm is knocked: the same card, untouched, looks different in a reading
taken after the smear turned (its edges blur along another line), by about as much as a card
of the same face put down in its place (:func:`companion.reading.look_difference` 6 to 12
where the same face put down read 9 to 23). The referee asked about every such region
(each answered "only moved" or "it goes back").

Two smears commute: a card smeared along ``ka`` and then along ``kb`` looks exactly as when
smeared along ``kb`` and then ``ka``. So when two looks are smeared differently
(:func:`smeared_apart`: sharper than the other along some direction and blurrier along
another), each is smeared the way the other may have been, over a small bank of straight
smears, and the least difference is their difference (:func:`smear_free_difference`): the
same card comes out at about 2 and under, a card put down in its place still above 4 (its
outline lies elsewhere, which no smear undoes). Looks smeared alike (a sharp camera, or one
whose smear did not turn) are compared as they are.

Only numpy (imported when first needed: the core runs without it).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> card = rng.integers(0, 255, (40, 30)).astype(np.float32)
>>> a, b = smear(card, 7, 0), smear(card, 7, 90)
>>> smeared_apart(a, b), smeared_apart(a, a)
(True, False)
>>> smear_free_difference(a, b) < 1.0
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..reading import look_difference

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["smear", "edge_profile", "smeared_apart", "smear_free_difference", "look_apart",
           "SMEAR_LENGTHS",
           "SMEAR_ANGLES", "APART"]

#: Straight smears tried (pixels of a look, about a millimetre each) and their directions.
SMEAR_LENGTHS = (5, 7, 9)
SMEAR_ANGLES = tuple(range(0, 180, 15))
#: Two looks are smeared differently when one's edges, against the other's, are this many times
#: sharper along one direction than along another (a turned 7 px smear measures 2.3 to 5.8; the
#: same face put down again by a sharp camera, under 1.3).
APART = 1.8
#: The pairs of smears (likeliest by correlation) whose full difference is worked out.
_BEST_PAIRS = 6


def _line(length: int, angle: float) -> list[tuple[int, int]]:
    """The pixel offsets (dx, dy) of a straight smear ``length`` long along ``angle`` degrees."""
    c = (length - 1) / 2
    out = []
    for i in range(length):
        d = i - c
        out.append((int(round(d * math.cos(math.radians(angle)))),
                    int(round(d * math.sin(math.radians(angle))))))
    return out


def smear(image: NDArray[Any], length: int, angle: float) -> NDArray[np.floating[Any]]:
    """``image`` (2-D) smeared along a straight line ``length`` px long at ``angle`` degrees
    (the mean of the shifted copies; edges repeated)."""
    import numpy as np

    img = np.asarray(image, np.float32)
    if length <= 1:
        return img
    offsets = _line(length, angle)
    pad = max(max(abs(dx), abs(dy)) for dx, dy in offsets)
    p = np.pad(img, pad, mode="edge")
    h, w = img.shape
    out = np.zeros_like(img)
    for dx, dy in offsets:
        out += p[pad + dy:pad + dy + h, pad + dx:pad + dx + w]
    return out / len(offsets)


def edge_profile(image: NDArray[Any]) -> NDArray[np.float32]:
    """How sharp ``image`` is along 0, 45, 90 and 135 degrees: the 99th percentile of its step
    to the next pixel in that direction (a smear flattens the steps along it)."""
    import numpy as np

    g = np.asarray(image, np.float32)
    steps = (g[:, 1:] - g[:, :-1], g[1:, 1:] - g[:-1, :-1], g[1:, :] - g[:-1, :], g[1:, :-1] - g[:-1, 1:])
    return np.array([np.percentile(np.abs(s), 99) if s.size else 0.0 for s in steps], np.float32)


def smeared_apart(a: NDArray[Any], b: NDArray[Any]) -> bool:
    """Whether looks ``a`` and ``b`` are smeared differently: against ``b``, ``a`` is sharper
    along some direction than along another by :data:`APART` or more. (Looks smeared alike, or
    a sharper and a blurrier look of the same kind, keep the same ratio in every direction.)"""
    pa, pb = edge_profile(a), edge_profile(b)
    if pa.min() <= 1e-3 or pb.min() <= 1e-3:
        return False  # a blank look (the cloth): nothing to tell a smear by
    ratio = pa / pb
    return bool(ratio.max() / ratio.min() >= APART)


def smear_free_difference(a: NDArray[Any] | None, b: NDArray[Any] | None) -> float | None:
    """:func:`~companion.reading.look_difference` of ``a`` and ``b`` with the smears taken out
    of the comparison: when the two looks are smeared differently (:func:`smeared_apart`),
    the least difference of ``a`` smeared like ``b`` may be and ``b`` smeared like ``a`` may
    be, over the bank of straight smears (none included); otherwise the plain difference."""
    plain = look_difference(a, b)
    if plain is None or a is None or b is None or not smeared_apart(a, b):   # (None: so is plain)
        return plain
    return least_smeared_difference(a, b, plain)


def least_smeared_difference(a: NDArray[Any] | None, b: NDArray[Any] | None,
                             plain: float | None = None) -> float | None:
    """The least :func:`~companion.reading.look_difference` of ``a`` smeared like ``b`` may be
    and ``b`` smeared like ``a`` may be, over the bank of straight smears (none included),
    whether or not the looks seem smeared apart (``plain``: their plain difference, if known)."""
    plain = look_difference(a, b) if plain is None else plain
    if plain is None:
        return None
    assert a is not None and b is not None   # (looks that were compared)
    import numpy as np

    bank = [(1, 0)] + [(n, t) for n in SMEAR_LENGTHS for t in SMEAR_ANGLES]
    sa = np.stack([smear(a, n, t).ravel() for n, t in bank])
    sb = np.stack([smear(b, n, t).ravel() for n, t in bank])

    def unit(rows: NDArray[np.floating[Any]]) -> NDArray[np.floating[Any]]:
        rows = rows - rows.mean(1, keepdims=True)
        units: NDArray[np.floating[Any]] = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
        return units

    # a smeared by bank[j] against b smeared by bank[i]: the likeliest pairs by correlation
    corr = unit(sb) @ unit(sa).T
    best = np.argsort(-corr.ravel())[:_BEST_PAIRS]
    shape = np.asarray(a).shape
    found = plain
    for k in best:
        i, j = divmod(int(k), len(bank))
        d = look_difference(sa[j].reshape(shape), sb[i].reshape(shape))
        if d is not None:
            found = min(found, d)
    return found


def look_apart(a: NDArray[Any] | None, b: NDArray[Any] | None, alike: float) -> float | None:
    """How far apart looks ``a`` and ``b`` are: their plain
    :func:`~companion.reading.look_difference` when it is ``alike`` or less, else
    :func:`smear_free_difference` (the smear bank is worked only for looks that differ)."""
    d = look_difference(a, b)
    if d is not None and d > alike:
        d = smear_free_difference(a, b)
    return d
