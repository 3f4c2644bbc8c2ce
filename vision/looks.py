"""A region's look (its top-down grey patch) and how far two looks of it are apart; the reader's
memory of the look each region had when the referee last saw it hold its card.

**Two looks.** :func:`look_difference` is 0 for the same thing and about 4 and up for something
else (1 - correlation in percent, so drifting light does not count, plus half the mean absolute
difference left after the brightness change).

**Smears.** A camera on a wobbly arm (or a slow shutter) smears every frame along a short line,
and the line turns when the arm is knocked: the same card, untouched, looks different in a
reading taken after the smear turned (its edges blur along another line), by about as much as a
card of the same face put down in its place (:func:`look_difference` 6 to 12 where the same face
put down read 9 to 23).

Two smears commute: a card smeared along ``ka`` and then along ``kb`` looks exactly as when
smeared along ``kb`` and then ``ka``. So when two looks are smeared differently
(:func:`smeared_apart`: sharper than the other along some direction and blurrier along
another), each is smeared the way the other may have been, over a small bank of straight
smears, and the least difference is their difference (:func:`smear_free_difference`): the
same card comes out at about 2 and under, a card put down in its place still above 4 (its
outline lies elsewhere, which no smear undoes). Looks smeared alike (a sharp camera, or one
whose smear did not turn) are compared as they are.

**The look memory** (:class:`LookMemory`, the referee's
:class:`~companion.reading.LookKeeper`): each look a region settled on gets an id
(:attr:`~companion.reading.RegionReading.look_id`); the referee says which look it remembers a
region by (:meth:`LookMemory.remember`, pixel-free), and each reading it takes then carries, per
region, how far its look is from that one (:meth:`LookMemory.stamped`:
:attr:`~companion.reading.RegionReading.look_change`). The referee compares no pixels.

>>> rng = np.random.default_rng(0)
>>> card = rng.integers(0, 255, (40, 30)).astype(np.float32)
>>> a, b = smear(card, 7, 0), smear(card, 7, 90)
>>> smeared_apart(a, b), smeared_apart(a, a)
(True, False)
>>> smear_free_difference(a, b) < 1.0
True
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import threading
from collections import deque
from typing import Any

import numpy as np
from numpy.typing import NDArray

from companion.reading import LookChange, RegionReading, TableReading, cell_name

__all__ = ["look_difference", "smear", "edge_profile", "smeared_apart", "smear_free_difference",
           "least_smeared_difference", "look_apart", "look_change", "LookMemory", "SMEAR_LENGTHS",
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


def look_difference(a: NDArray[Any] | None, b: NDArray[Any] | None) -> float | None:
    """How different two looks of a region are: 0 for the same thing, about 4 and up for
    something else (1 - correlation in percent, so light drift does not count, plus half the
    mean absolute difference left after the brightness change); None when they cannot be
    compared (no look, or another size)."""
    if a is None or b is None or a.shape != b.shape or a.size < 4:
        return None
    a = a.astype(np.float32).ravel()
    b = b.astype(np.float32).ravel()
    va, vb = a.var(), b.var()
    if va < 30.0 and vb < 30.0:
        ncc = 1.0
    else:
        ncc = float(((a - a.mean()) * (b - b.mean())).mean() / max(np.sqrt(va * vb), 1e-6))
    mad = max(0.0, float(np.abs(a - b).mean()) - abs(float(a.mean() - b.mean())))
    return 100.0 * (1.0 - ncc) + 0.5 * mad


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
    """:func:`look_difference` of ``a`` and ``b`` with the smears taken out
    of the comparison: when the two looks are smeared differently (:func:`smeared_apart`),
    the least difference of ``a`` smeared like ``b`` may be and ``b`` smeared like ``a`` may
    be, over the bank of straight smears (none included); otherwise the plain difference."""
    plain = look_difference(a, b)
    if plain is None or a is None or b is None or not smeared_apart(a, b):   # (None: so is plain)
        return plain
    return least_smeared_difference(a, b, plain)


def least_smeared_difference(a: NDArray[Any] | None, b: NDArray[Any] | None,
                             plain: float | None = None) -> float | None:
    """The least :func:`look_difference` of ``a`` smeared like ``b`` may be
    and ``b`` smeared like ``a`` may be, over the bank of straight smears (none included),
    whether or not the looks seem smeared apart (``plain``: their plain difference, if known)."""
    plain = look_difference(a, b) if plain is None else plain
    if plain is None:
        return None
    assert a is not None and b is not None   # (looks that were compared)

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
    :func:`look_difference` when it is ``alike`` or less, else
    :func:`smear_free_difference` (the smear bank is worked only for looks that differ)."""
    d = look_difference(a, b)
    if d is not None and d > alike:
        d = smear_free_difference(a, b)
    return d


def look_change(now: NDArray[Any] | None, before: NDArray[Any] | None, since: int) -> LookChange | None:
    """How far look ``now`` of a region is from ``before`` (its look with id ``since``), both as
    they are and with a turned smear taken out (:func:`smear_free_difference`); None when they
    cannot be compared."""
    plain = look_difference(now, before)
    if plain is None:
        return None
    assert now is not None and before is not None   # (looks that were compared)
    free = least_smeared_difference(now, before, plain) if smeared_apart(now, before) else plain
    return LookChange(since, plain, free)


#: Look ids: one for every look any reader settled on, never given twice in a process.
_IDS = itertools.count(1)


class LookMemory:
    """The looks a reader's regions settled on (:meth:`add` gives each an id), the look the
    referee remembers each region by (:meth:`remember`: the region held the card the state says
    when it had that look), and each reading's look changes from those (:meth:`stamped`).

    It keeps the looks the last two readings given named (:meth:`given`), those added since and
    the remembered ones (a reading the referee takes names the looks it may remember). Thread-safe:
    the referee may remember and stamp while the reader adds; the comparisons run outside the
    lock.

    >>> memory = LookMemory()
    >>> card = np.random.default_rng(1).integers(0, 255, (20, 14)).astype(np.float32)
    >>> first = memory.add(card)
    >>> memory.remember("discard", first)
    >>> memory.change_of("discard", memory.add(card + 3.0)).plain
    0.0
    >>> memory.change_of("discard", memory.add(np.roll(card, 3, axis=1))).plain > 4
    True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._looks: dict[int, NDArray[Any]] = {}
        self._named: deque[frozenset[int]] = deque(maxlen=2)   # the last readings' look ids
        self._remembered: dict[str, tuple[int, NDArray[Any]]] = {}
        self._changes: dict[tuple[str, int, int], LookChange | None] = {}

    def add(self, look: NDArray[Any] | None) -> int | None:
        """A look a region settled on (None: no look); its id."""
        if look is None:
            return None
        with self._lock:
            look_id = next(_IDS)
            self._looks[look_id] = look
        return look_id

    def remember(self, region: str, look_id: int) -> None:
        """The referee's word: ``region`` had the look ``look_id`` when it last showed the card
        the state has there; the next readings carry how far its look is from that one. (A look
        no longer kept is not remembered: the distances stay against the one before.)"""
        with self._lock:
            look = self._looks.get(look_id)
            if look is not None:
                self._remembered[region] = (look_id, look)

    def remembered(self, region: str) -> int | None:
        """The id of the look ``region`` is remembered by (None: none)."""
        with self._lock:
            kept = self._remembered.get(region)
        return kept[0] if kept is not None else None

    def change_of(self, region: str, look_id: int | None) -> LookChange | None:
        """How far look ``look_id`` of ``region`` is from the look it is remembered by (None: no
        look, none remembered, or looks that cannot be compared); the same look is 0 apart."""
        if look_id is None:
            return None
        with self._lock:
            kept = self._remembered.get(region)
            now = self._looks.get(look_id)
            key = (region, look_id, kept[0]) if kept is not None else None
            if key is not None and key in self._changes:
                return self._changes[key]
        if kept is None or key is None:
            return None
        since, before = kept
        change = LookChange(since, 0.0, 0.0) if since == look_id else look_change(now, before, since)
        with self._lock:
            self._changes[key] = change
        return change

    def stamped(self, reading: TableReading) -> TableReading:
        """``reading`` with each region's :attr:`~companion.reading.RegionReading.look_change`
        (from the look the referee remembers it by: the referee stamps each reading it takes)."""
        cells = tuple(self._stamp(cell_name(i // 5, i % 5), got) for i, got in enumerate(reading.cells))
        discard = self._stamp("discard", reading.discard) if reading.discard is not None else None
        self.given(reading)
        return dataclasses.replace(reading, cells=cells, discard=discard)

    def given(self, reading: TableReading) -> None:
        """``reading`` was given (by the reader, or to the referee): the looks it names and those
        of the reading before are kept, with the remembered ones and any added since; the others
        are let go."""
        named = frozenset(g.look_id for g in (*reading.cells, reading.discard)
                          if g is not None and g.look_id is not None)
        with self._lock:
            if not self._named or self._named[-1] != named:
                self._named.append(named)
            keep = set().union(*self._named) | {i for i, _ in self._remembered.values()}
            newest = max(named, default=0)
            self._looks = {i: a for i, a in self._looks.items() if i in keep or i > newest}
            self._changes = {k: c for k, c in self._changes.items() if k[1] in self._looks}

    def _stamp(self, region: str, got: RegionReading) -> RegionReading:
        change = self.change_of(region, got.look_id)
        return got if change == got.look_change else dataclasses.replace(got, look_change=change)
