"""Change-driven, stable readings: what changed on the table, and when a reading can be trusted.

Two small pieces the :class:`~vision.table_reader.TableReader` combines:

* :class:`ChangeDetector` keeps a small grey copy of each frame (a few hundred pixels wide). From
  it, per region of the mat, it measures *motion* (difference to the previous frame) and *change*
  (difference to the reference: how the region looked when it was last read). It also watches
  the border band of the play area, between its edge and the cards: arms reaching over the table
  always cross it, so a changed band means hands are over the table. A quiet frame costs one
  resize and a few box sums.
* :class:`Votes` collects the readings of one region over consecutive quiet frames; the region
  is stable when the last ``needed`` reads agree.

Lighting that drifts slowly is followed: quiet regions that did not change pull their reference
towards what they look like now, and each region's difference is measured after removing its
mean shift. Light that moves over the table (a glare highlight, a lamp turned) changes a region
as much as a card would, but never with motion: nothing crossed the region between its
reference and now. The detector remembers which regions something moved over (``stirred``)
since their reference was taken; a band piece that differs without having been stirred is light,
not an arm, and takes the new look as its reference at once.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import math

import cv2
import numpy as np

from .geometry import Layout, Region, View

__all__ = ["ChangeDetector", "FrameChange", "Votes", "BAND_NAMES"]

BAND_NAMES = ("band-north", "band-east", "band-south", "band-west")
#: Share of the card regions that move in one frame for the camera to have done it (an arm
#: reaching over the grid moves a third at most), where there are that many regions at least
#: (the two piles alone: an arm may cover both).
WHOLE_SHARE, WHOLE_MIN_REGIONS = 0.8, 10


@dataclass(frozen=True)
class FrameChange:
    """What one frame shows compared to the previous one and to the reference."""

    motion: dict[str, float]     # region -> mean |frame - previous| (grey levels)
    change: dict[str, float]     # region -> mean |frame - reference| less the mean shift
    moving: bool                 # something moved since the previous frame
    hands: bool                  # the border band differs from its reference (arms over the table)
    #: the whole picture changed at once since the previous frame (nearly every region and band
    #: piece moved): the camera, not a hand (a smear turning, a jolt, the camera nudged)
    whole: bool = False

    def changed(self, threshold: float, names=None) -> list[str]:
        return [n for n, d in self.change.items()
                if d > threshold and (names is None or n in names)]


def _bands(layout: Layout) -> list[Region]:
    """Four strips just inside the play area's edge, clear of cards and markers."""
    m = layout.marker_mm + layout.marker_inset + 4
    g = layout.grid_rect
    w, h = layout.width, layout.height
    strips = [Region("band-north", m, 8, w - m, g.y0 - 12),
              Region("band-east", layout.draw_pile[0] + layout.pitch[0] / 2 + 10, m, w - 6, h - m),
              Region("band-south", m, g.y1 + 12, w - m, h - 8),
              Region("band-west", 8, m, g.x0 - 12, h - m)]
    # cut into pieces of ~100 mm: over a short piece, a light gradient is nearly flat
    out = []
    for s in strips:
        along_x = (s.x1 - s.x0) >= (s.y1 - s.y0)
        length = (s.x1 - s.x0) if along_x else (s.y1 - s.y0)
        n = max(1, int(round(length / 100.0)))
        for k in range(n):
            if along_x:
                a, b = s.x0 + k * length / n, s.x0 + (k + 1) * length / n
                out.append(Region(f"{s.name}-{k}", a, s.y0, b, s.y1))
            else:
                a, b = s.y0 + k * length / n, s.y0 + (k + 1) * length / n
                out.append(Region(f"{s.name}-{k}", s.x0, a, s.x1, b))
    return out


def _outlines(small: np.ndarray) -> np.ndarray:
    """The small frame's outlines: a difference of Gaussians that keeps edges a few pixels wide
    and drops both sensor noise and broad light (a highlight, a gradient)."""
    return cv2.GaussianBlur(small, (0, 0), 1.0) - cv2.GaussianBlur(small, (0, 0), 4.0)


class ChangeDetector:
    """Measures motion and change per region on a small grey copy of each frame."""

    def __init__(self, view: View, layout: Layout, regions: dict[str, Region], *,
                 small_width: int = 320, motion_threshold: float = 4.0,
                 change_threshold: float = 4.0, band_threshold: float = 9.0,
                 drift: float = 0.05, band_edges: float = 3.5):
        self.layout = layout
        self.motion_threshold = motion_threshold
        #: a card region differs from its reference above this (two faces of one colour that
        #: differ only by their digit measure ~7-10 at 320 px; sensor noise and drift < 1)
        self.change_threshold = change_threshold
        #: the border band differs (hands over the table) above this (its measure is coarser)
        self.band_threshold = band_threshold
        self.drift = drift
        #: outlines (a band-pass of the small frame) that differ from the reference's by more
        #: than this in a band piece show an arm at rest; light moving over the cloth stays
        #: below ~2.9, an arm measures 5 and more in the piece its edge crosses
        self.band_edges = band_edges
        self.small_width = small_width
        self._regions = dict(regions)
        for band in _bands(layout):
            self._regions[band.name] = band
        self.view = view
        self._prev: np.ndarray | None = None
        self.reference: np.ndarray | None = None
        #: regions something moved over since their reference was taken
        self.stirred: set[str] = set()
        self._set_view(view)

    def _set_view(self, view: View) -> None:
        self.view = view
        w, h = view.image_size
        self.scale = min(1.0, self.small_width / w)
        self.small_size = (max(1, int(round(w * self.scale))), max(1, int(round(h * self.scale))))
        boxes = {}
        for name, region in self._regions.items():
            margin = -4.0 if name.startswith("band") else -3.0  # stay inside: neighbours don't leak
            q = view.region_quad(region, margin) * self.scale
            x0, y0 = np.floor(q.min(0)).astype(int)
            x1, y1 = np.ceil(q.max(0)).astype(int)
            x0, x1 = np.clip([x0, x1], 0, self.small_size[0])
            y0, y1 = np.clip([y0, y1], 0, self.small_size[1])
            if x1 - x0 >= 2 and y1 - y0 >= 2:
                boxes[name] = (int(x0), int(y0), int(x1), int(y1))
        self.boxes = boxes
        # the boxes' names, corners (index arrays) and areas: every box's sums are taken at once
        # (_box_sums) instead of one box at a time, a frame's largest Python cost
        names = list(boxes)
        corners = tuple(np.array([boxes[n][k] for n in names], np.intp) for k in range(4))
        area = ((corners[2] - corners[0]) * (corners[3] - corners[1])).astype(np.float64)
        self._index = (names, corners, area)
        bands = np.array([n.startswith("band") for n in names], bool)
        self._card_rows, self._band_rows = np.flatnonzero(~bands), np.flatnonzero(bands)

    def region(self, name: str) -> Region:
        """The mat region (mm) behind a box name (a card region or a piece of the band)."""
        return self._regions[name]

    def set_view(self, view: View) -> None:
        """A new view (the camera moved): everything is new, no reference survives."""
        self._set_view(view)
        self._prev = None
        self.reference = None
        self.stirred = set()

    def small(self, frame: np.ndarray) -> np.ndarray:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if self.scale == 1.0:
            return gray.astype(np.float32)
        return cv2.resize(gray, self.small_size, interpolation=cv2.INTER_AREA).astype(np.float32)

    def _outline_change(self, cur: np.ndarray, name: str) -> float:
        """Mean difference of the outlines in one box, frame against reference (each box on its
        own: the reference is pieced together from boxes taken at different times, and its
        seams are no outline)."""
        x0, y0, x1, y1 = self.boxes[name]
        a, b = cur[y0:y1, x0:x1], self.reference[y0:y1, x0:x1]
        return float(cv2.absdiff(_outlines(a), _outlines(b)).mean())

    def _box_sums(self, integrals: list[np.ndarray]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Every box's sum in each integral image (rows: integrals), with the names and areas."""
        names, (x0, y0, x1, y1), area = self._index
        sums = np.stack([ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0] for ii in integrals])
        return names, sums, area

    def _box_means(self, integral: np.ndarray) -> dict[str, float]:
        names, sums, area = self._box_sums([integral])
        return dict(zip(names, (sums[0] / area).tolist()))

    def measure(self, frame: np.ndarray) -> tuple[FrameChange, np.ndarray]:
        """Compare ``frame`` with the previous frame and with the reference."""
        cur = self.small(frame)
        prev = self._prev if self._prev is not None else cur
        self._prev = cur
        motion = self._box_means(cv2.integral(cv2.absdiff(cur, prev)))
        if self.reference is None:
            change = {n: float("inf") for n in self.boxes}
        else:
            change = self._ncc_change(cur, self.reference)
        moved = {n for n, v in motion.items() if v > self.motion_threshold}
        moving = bool(moved)
        # a frame where nearly every card region moved at once is the camera's doing (no arm
        # covers the whole grid; bare cloth shows no smear): it stirs nothing; whether the
        # camera moved is the reader's to check
        cards = [n for n in motion if not n.startswith("band")]
        whole = len(cards) >= WHOLE_MIN_REGIONS and \
            sum(1 for n in cards if n in moved) >= WHOLE_SHARE * len(cards)
        if not whole:
            self.stirred |= moved
        if self.reference is not None:
            # a region back to its reference with nothing moving: whatever crossed it has gone
            self.stirred -= {n for n in self.stirred if motion.get(n, 0.0) <= self.motion_threshold
                             and change.get(n, math.inf) <= self._limit(n) / 2}
            # a band piece that changed with nothing moving over it: light, not an arm; nor are
            # pieces that something crossed and that now lie still, when none of them shows an
            # outline its reference lacks (an arm at rest shows its outline, its shadow)
            over = [n for n, v in change.items() if n.startswith("band") and v > self.band_threshold]
            lit = [n for n in over if n not in self.stirred]
            still = [n for n in over if n in self.stirred and motion.get(n, 0.0) <= self.motion_threshold]
            if still and all(self._outline_change(cur, n) < self.band_edges for n in still):
                lit += still
            if lit:
                self.accept(cur, lit)
                change = {**change, **{n: 0.0 for n in lit}}
        hands = self.reference is not None and any(
            v > self.band_threshold for n, v in change.items() if n.startswith("band"))
        return FrameChange(motion, change, moving, hands, whole), cur

    def _ncc_change(self, cur: np.ndarray, ref: np.ndarray) -> dict[str, float]:
        """Per region, 100 x (1 - normalised correlation) of frame and reference, plus a small
        share of the absolute difference: light that brightens, dims or tilts over a region
        hardly changes its correlation; a different card does."""
        integrals = [cv2.integral(x) for x in (cur, ref, cur * cur, ref * ref, cur * ref)]
        integrals.append(cv2.integral(cv2.absdiff(cur, ref)))
        names, sums, area = self._box_sums(integrals)
        # every box at once (the same float64 steps, in the same order, as one box at a time:
        # the same measures)
        mc, mr = sums[0] / area, sums[1] / area
        vc, vr = sums[2] / area - mc * mc, sums[3] / area - mr * mr
        vc[0.0 > vc] = 0.0  # (max(v, 0.0))
        vr[0.0 > vr] = 0.0
        cov = sums[4] / area - mc * mr
        prod = vc * vr
        prod[1e-6 > prod] = 1e-6
        ncc = cov / np.sqrt(prod)
        ncc[(vc < 30.0) & (vr < 30.0)] = 1.0  # both flat (bare cloth): compare levels only
        mad = sums[5] / area - np.abs(mc - mr)
        mad[~(mad > 0.0)] = 0.0  # (max(0.0, m))
        band = self._band_rows
        score = 100.0 * (1.0 - ncc) + 0.5 * mad
        out = {names[i]: v for i, v in zip(self._card_rows.tolist(), score[self._card_rows].tolist())}
        if len(band):
            # bare cloth: the light moves every piece's level alike; an arm moves a few a lot
            shift = (mc - mr)[band]
            common = float(np.median(shift))
            for i, m, v in zip(band.tolist(), mad[band].tolist(), shift.tolist()):
                out[names[i]] = m + abs(v - common)
        return out

    def accept(self, cur: np.ndarray, names=None) -> None:
        """Take ``cur`` as the reference of ``names`` (all regions when None)."""
        if self.reference is None or names is None:
            self.reference = cur.copy()
            self.stirred = set()
            return
        self.stirred -= set(names)
        for name in names:
            if name in self.boxes:
                x0, y0, x1, y1 = self.boxes[name]
                self.reference[y0:y1, x0:x1] = cur[y0:y1, x0:x1]

    def _limit(self, name: str) -> float:
        return self.band_threshold if name.startswith("band") else self.change_threshold

    def follow_drift(self, cur: np.ndarray, change: FrameChange, exclude=()) -> None:
        """Pull the reference of quiet, unchanged regions towards the current frame (slow light)."""
        if self.reference is None:
            return
        a = self.drift
        for name, (x0, y0, x1, y1) in self.boxes.items():
            limit = self.band_threshold if name.startswith("band") else self.change_threshold
            if name in exclude or change.change.get(name, 0) > limit / 2:
                continue
            ref = self.reference[y0:y1, x0:x1]
            cv2.addWeighted(ref, 1 - a, cur[y0:y1, x0:x1], a, 0, dst=ref)


class Votes:
    """Reads of one region over consecutive quiet frames; stable once ``needed`` agree.

    >>> v = Votes(needed=2)
    >>> v.add("red-1", {"red-1": 0.9, "red-7": 0.1}); v.stable
    False
    >>> v.add("red-1", {"red-1": 0.8, "red-7": 0.2}); v.stable, v.result()[0]
    (True, 'red-1')
    """

    def __init__(self, needed: int = 2, give_up: int = 8):
        self.needed = needed
        self.give_up = give_up
        self._reads: deque = deque(maxlen=max(needed, give_up))

    def add(self, label: str, probs: dict[str, float]) -> None:
        self._reads.append((label, probs))

    def clear(self) -> None:
        self._reads.clear()

    def __len__(self) -> int:
        return len(self._reads)

    @property
    def stable(self) -> bool:
        last = list(self._reads)[-self.needed:]
        return len(last) == self.needed and len({label for label, _ in last}) == 1

    @property
    def exhausted(self) -> bool:
        """Many reads and still no agreement: take what there is, flagged unsure."""
        return len(self._reads) >= self.give_up

    def result(self) -> tuple[str, dict[str, float], bool]:
        """(label, mean probabilities, agreed) over the agreeing reads (or all, if none agree)."""
        reads = list(self._reads)[-self.needed:] if self.stable else list(self._reads)
        total: dict[str, float] = {}
        for _, probs in reads:
            for k, p in probs.items():
                total[k] = total.get(k, 0.0) + p / len(reads)
        label = max(total, key=total.get) if total else "empty"
        return label, total, self.stable
