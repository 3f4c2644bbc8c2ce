"""Who reached: every arm over the table, the side of the mat it came in by, where its hand went,
and how many cards it took from the draw pile.

:class:`ArmTracker` works on the change detector's small grey frames (:mod:`vision.stabilise`).
It compares each frame with the table as it last lay still (no arm over it, nothing moving):
what differs and crosses the mat's rim (its outermost :data:`RIM_MM`, outside the border band
where the cards never lie) is an arm, and the rim it crosses is its **side**. What "differs"
follows the light: in light flatter than a good lamp's (the corner markers' black and white
closer together, :data:`GOOD_CONTRAST`) the threshold shrinks in proportion, as every
difference does. An arm comes in
from its owner's side of the table, so a player reaching over the table to the far half still
crosses their own side's rim; an arm's shadow or flank that brushes a neighbouring side's rim
belongs to the arm already seen (a new arm is a new blob, moving). Two arms at once are two
blobs, or one blob that crosses two rims (arms crossing each other, or side by side): each
arm is then the part of the blob in line with where it crosses its rim (less the lines of arms
along the same axis).

An arm's **hand** is its deepest point (the farthest from its band, less a few centimetres for
the shadow it throws); the regions its hand was over in two frames in a row or more (a hand
passing on its way, in or out, is over a region for one frame), or else the region of its
deepest point, are the reach's ``regions``, in the order it went there.

**Draws**: the draw pile's look (its crop of the small frame) is kept whenever no arm is over it
and nothing moves there. A real pile is never squared: its top card lies a little off the one
below, so the pile looks different once a card is gone (and in Flip the next card's other face
shows). A reach whose hand went to the pile is compared with the pile's look before it came
and once the pile is clear and still again: the same look is no draw (``lifted=0``: it reached
and put back, or straightened the pile), another look is one card (``lifted=1``); a look in
between, or two arms at the pile between two clear looks that changed it, cannot be told
(``lifted=None``: the referee asks).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.reading import SIDES, Reach

from .geometry import Layout, View
from .looks import least_smeared_difference, look_difference

__all__ = ["ArmTracker", "SAME_PILE", "OTHER_PILE", "RIM_MM", "percentile_spread"]

_OPEN = np.ones((3, 3), np.uint8)   # (a mask opened by it keeps patches, not single pixels)

#: The outermost strip of the mat on each side (mm): an arm from a side crosses its strip.
RIM_MM = 15.0
#: An arm (or hand) is at least this wide (mm); its depth is measured in steps of TIP_STEP_MM.
ARM_WIDTH_MM = 40.0
TIP_STEP_MM = 8.0
#: Steps narrower than an arm that are bridged walking in (where the arm looks like the table).
TIP_GAP = 4
#: The draw pile's look, grey pixels (width, height): about its size in the small frame.
PILE_LOOK = (18, 26)
#: Frames with nothing moving after which whatever lies on the mat's edge is the table.
SETTLED_FRAMES = 30
#: An arm whose blob lies still and reaches no deeper than :data:`RESTING_DEPTH_MM` for this
#: many frames in a row has gone: what is left is no hand (a strip of the mat's edge that the
#: still table, taken under another smear or before a nudge, no longer matches).
RESTING_FRAMES = 2
#: ... its hand this deep at most (mm from its rim): over the border band, short of every card
#: (the nearest lie 44 mm in). The rim's depth alone was too little: the misfit a turned smear
#: left on the north edge measured a hand 0 mm deep in one frame and 16.7 mm in the next, so
#: the arm that had put its card down never left, and the next seat's card was asked about as
#: played out of turn by both (a camera whose smear turns between frames).
RESTING_DEPTH_MM = 30.0
#: The corner markers' contrast (grey levels from their printed black to their white, in the
#: small frame) in good light and above: an arm's difference from the table shrinks with the
#: light's contrast, and the threshold that tells arm from table shrinks with it below this
#: (the torture's lamps: 200 to 245; its dim light 61 to 75, where a hand over a white or yellow
#: card differed from it by less than the good light's 12 and the arms seemed to end a card or
#: two short of where they put their cards down).
GOOD_CONTRAST = 180.0
#: ... never below this share of the good light's threshold (the sensor's noise).
LEAST_CONTRAST_SHARE = 0.25
#: A marker's place whose black-to-white spread is under this shows no marker (a table without
#: them, a cup over one): it says nothing of the light.
NO_MARKER_SPREAD = 20.0

#: The draw pile's look differs by less than this after a reach: nothing was taken (sensor noise
#: and slow light measure under 1; a pile whose top card went mostly 10 and up, but 4.4 where
#: the next card happens to lie almost as the last one did).
SAME_PILE = 2.0
#: ... by more than this: a card was taken. In between: cannot be told.
OTHER_PILE = 4.0


@dataclass
class _Arm:
    side: str | None
    entry: float            # where along its side's edge it crosses the rim (mm)
    came: int               # the frame it was first seen
    seen: int               # the last frame it was seen
    hand: tuple[float, float] | None = None
    regions: list[str] = field(default_factory=list)
    last_region: str | None = None  # the region its hand was over in the last frame
    streak: int = 0                 # ... for so many frames in a row
    deepest: tuple[float, str | None] = (-1e9, None)
    lifted: int | None = 0
    at_pile: bool = False   # its hand went to the draw pile (it waits for the pile's verdict)
    decided: bool = True    # its ``lifted`` is known
    resting: int = 0        # frames in a row its blob lay still, its hand over the border band
    unmoved: int = 0        # frames in a row its blob lay still, wherever its hand

    def reach(self) -> Reach:
        regions = list(self.regions) or ([self.deepest[1]] if self.deepest[1] else [])
        return Reach(self.side, tuple(regions), self.lifted)


class ArmTracker:
    """Follows the arms over the table frame by frame and hands out their :class:`Reach` es.

    ``boxes`` are the change detector's boxes (small-frame pixels) of the card regions (band
    pieces are left out); ``scale`` and ``small_size`` its small frame's. Call :meth:`update`
    with every small frame and its :class:`~vision.stabilise.FrameChange`, :meth:`take` for the
    reaches that are over.
    """

    def __init__(self, view: View, layout: Layout, boxes: dict[str, tuple[int, int, int, int]],
                 scale: float, small_size: tuple[int, int], *, motion_threshold: float = 4.0,
                 skin_threshold: float = 12.0, hand_back_mm: float = 25.0):
        self.layout = layout
        self.motion_threshold = motion_threshold
        #: grey levels a pixel differs from the still table to be arm (or its shadow), in good
        #: light; the dark skin tones differ from green cloth by only ~20
        self.skin_threshold = skin_threshold
        #: ... in the light of the table as it last lay still (:meth:`_light_share`)
        self.arm_threshold = skin_threshold
        self.hand_back_mm = hand_back_mm
        w, h = small_size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        pts = np.stack([(xs.ravel() + 0.5) / scale - 0.5, (ys.ravel() + 0.5) / scale - 0.5], 1)
        mm = view.to_mat(pts)
        self.mmx = mm[:, 0].reshape(h, w).astype(np.float32)
        self.mmy = mm[:, 1].reshape(h, w).astype(np.float32)
        self.inside = ((self.mmx >= 0) & (self.mmx <= layout.width) & (self.mmy >= 0)
                       & (self.mmy <= layout.height)).astype(np.uint8)
        #: the mat's area one small pixel covers (mm^2), about the same everywhere
        self.px_area_mm2 = float(layout.width * layout.height) / max(1, int(self.inside.sum()))
        self.cards = {n: b for n, b in boxes.items() if not n.startswith("band")}
        # the corner markers' pixels (their printed square less a few mm), each as the indices of
        # its pixels (the same pixels in the same order as its mask, without scanning the whole
        # small frame for them at every still frame: a third of the contrast's cost)
        self._markers = []
        for index in range(4):
            square = layout.marker_square(index)
            (x0, y0), (x1, y1) = square.min(0) + 3.0, square.max(0) - 3.0
            inside = (self.mmx >= x0) & (self.mmx <= x1) & (self.mmy >= y0) & (self.mmy <= y1)
            if inside.sum() >= 12:
                self._markers.append(np.nonzero(inside))
        self._still: np.ndarray | None = None      # the table as it last lay still, no arm over it
        self.arms: list[_Arm] = []
        self.done: list[_Arm] = []
        self.frame = 0
        #: the draw pile as last seen clear and still: (the box it was cut from, its look)
        self._pile_look: tuple[tuple[int, int, int, int], np.ndarray] | None = None
        self._pile_still = 0
        self._pile_group: list[_Arm] = []          # arms at the pile since its last clear look
        self._pile_before: tuple[tuple[int, int, int, int], np.ndarray] | None = None
        self._prev: np.ndarray | None = None
        self._calm = 0
        # the mat's rim on each side (its outermost RIM_MM): an arm from a side crosses it
        self._rims = {}
        for side in SIDES:
            along, depth = _along_depth(side, self.mmx, self.mmy, layout)
            ys, xs = np.nonzero((depth <= RIM_MM) & (self.inside > 0))
            self._rims[side] = (ys, xs, along[ys, xs])

    @property
    def still(self) -> np.ndarray | None:
        """The small grey frame of the table as it last lay still, no arm over it."""
        return self._still

    @still.setter
    def still(self, frame: np.ndarray | None) -> None:
        self._still = frame
        if frame is not None:
            self.arm_threshold = self.skin_threshold * self._light_share(frame)

    def _light_share(self, frame: np.ndarray) -> float:
        """How much of good light's contrast ``frame`` shows: its corner markers' black-to-white
        spread (the median of the markers seen) against :data:`GOOD_CONTRAST`, at most 1 and at
        least :data:`LEAST_CONTRAST_SHARE`; 1 when no marker is seen (:data:`NO_MARKER_SPREAD`)."""
        spreads = [percentile_spread(frame[m]) for m in self._markers]
        seen = [s for s in spreads if s >= NO_MARKER_SPREAD]
        if not seen:
            return 1.0
        return min(max(statistics.median(seen) / GOOD_CONTRAST, LEAST_CONTRAST_SHARE), 1.0)

    def carry(self, old: "ArmTracker", same_place: bool) -> None:
        """Go on from ``old``, the tracker of the previous view: its arms and reaches, and where
        the camera barely moved (a view fitted again to the markers), what the table looked like
        (else the draw pile's verdicts pending are unknown)."""
        self.arms, self.done, self.frame = old.arms, old.done, old.frame
        if same_place and old.still is not None and old.still.shape == self.inside.shape:
            # the still table moved as the picture moved since: a camera nudged by a few pixels
            # left it off by a pixel of the small frame, and the mat's edge, off by as much,
            # stayed on its rim as an arm that never left (it took in the next arm from that
            # side, whose reach was never handed out). (The views say less: two fits of the
            # markers of an unmoved camera differ by as much.)
            self.still, self._prev, self._calm = _aligned(old.still, old._prev), old._prev, old._calm
            self._pile_look, self._pile_group = old._pile_look, old._pile_group
            self._pile_before, self._pile_still = old._pile_before, old._pile_still
            return
        for a in old._pile_group:
            a.lifted, a.decided = None, True

    # --- per frame ----------------------------------------------------------------------------

    def update(self, cur: np.ndarray, change, frame: int | None = None) -> None:
        """Take one small grey frame and what the change detector measured on it (``frame``: its
        number, which the reaches' arrival is told in; else the tracker counts)."""
        self.frame = self.frame + 1 if frame is None else frame
        prev, self._prev = self._prev, cur
        # (the tracker's own measure only where the detector saw nothing move and an arm is
        # followed: most frames pay nothing for it)
        moving = change.moving or (bool(self.arms) and self._stirring(cur, prev))
        self._calm = 0 if moving else self._calm + 1
        if self.still is None or prev is None:
            if not change.moving and not change.hands:
                self.still = cur.copy()
            return
        if self._calm >= SETTLED_FRAMES and self.arms:
            # nothing has moved for a second: what lies on the edge is the table now (a pawn off
            # the board, a cup), not an arm
            for arm in list(self.arms):
                self._close(arm)
            self.still = cur.copy()
        covered = self._follow(cur, prev, change)
        self._watch_pile(cur, change, covered)

    def _stirring(self, cur: np.ndarray, prev: np.ndarray | None) -> bool:
        """Whether something moved over the mat since the previous frame by the arms' own
        measure (:attr:`arm_threshold`, which follows the light): a patch of pixels, not the
        odd noisy one. The change detector's motion is measured against a fixed threshold over
        whole regions; in dim light an arm coming in stayed under it, the table seemed to have
        lain still for a second, and the arm followed was taken for the table."""
        return prev is not None and bool(cv2.countNonZero(self._apart(cur, prev)))

    def _apart(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The mat's pixels where ``a`` and ``b`` differ by more than :attr:`arm_threshold`, in
        patches (a 3x3 opening drops the odd noisy pixel): uint8, 1 where they differ."""
        mask = (cv2.absdiff(a, b) > self.arm_threshold).astype(np.uint8) & self.inside
        return cv2.morphologyEx(mask, cv2.MORPH_OPEN, _OPEN)

    def _follow(self, cur: np.ndarray, prev: np.ndarray, change) -> np.ndarray | None:
        """Find this frame's arms, match them to the arms already over the table; returns the
        mask of arm pixels (None: no arm)."""
        mask = self._apart(cur, self.still)
        entries = []  # (blob, side, first, last) along the edge it crosses
        if cv2.countNonZero(mask):  # (a still table, most frames: nothing to look for)
            # an arm's outline or a wrist's crease can cut it in two where it looks like the cloth
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            mask = _filled(mask)
            count, labels = cv2.connectedComponents(mask, connectivity=8)
            for side, (rys, rxs, ralong) in self._rims.items():
                at = labels[rys, rxs]
                for blob in np.unique(at[at > 0]):
                    for lo, hi in _runs(np.sort(ralong[at == blob])):
                        entries.append((int(blob), side, lo, hi))
        if not entries:
            if not self.arms and not change.moving:
                self.still = cur.copy()  # the table at rest: what arms are measured against
            for arm in [a for a in self.arms if self.frame - a.seen >= 2]:
                self._close(arm)
            return None
        arm_mask = np.zeros_like(mask)
        blobs: dict[int, int] = {}   # an arm (its id) -> the blob it is seen as in this frame
        pixels = {}
        for blob in {e[0] for e in entries}:
            ys, xs = np.nonzero(labels == blob)
            arm_mask[ys, xs] = 1
            moved = float((cv2.absdiff(cur[ys, xs], prev[ys, xs]) > self.arm_threshold).mean())
            pixels[blob] = (ys, xs, moved > 0.03)
        entries = self._one_per_corner(entries)
        # an arm seen before that runs along a neighbouring edge (an arm from the north to the
        # piles, along the east edge) spills over that edge's rim with its flank or its shadow:
        # that is no new arm; an arm coming in over another edge and crossing it is
        known = [e for e in entries if self._match(e[1], (e[2] + e[3]) / 2) is not None]
        spills = {(e[0], side) for e in known for side in SIDES if _runs_along(e, side, self.layout)}
        seen: set[int] = set()
        for blob, side, lo, hi in entries:
            ys, xs, moving = pixels[blob]
            # arms side by side along one axis in one blob (from facing sides, or neighbours on
            # one side): each is found where the other's line is not
            others = [(o_lo, o_hi) for o_blob, o_side, o_lo, o_hi in entries
                      if o_blob == blob and (o_lo, o_hi, o_side) != (lo, hi, side)
                      and _axis(o_side) == _axis(side)]
            # an arm from a neighbouring side in the same blob (arms crossing, or a hand that
            # stops by another arm's band, their shadows joined)
            across = [(o_side, o_lo, o_hi) for o_blob, o_side, o_lo, o_hi in entries
                      if o_blob == blob and o_side is not None and side is not None
                      and _axis(o_side) != _axis(side)]
            hand, depth = self._hand(side or "north", xs, ys, lo, hi, others, across)
            entry = (lo + hi) / 2
            arm = self._match(side, entry)
            if arm is None or id(arm) in seen:
                if not moving or (blob, side) in spills:
                    continue  # something lying still on the edge, or a known arm's spill
                arm = _Arm(side, entry, self.frame, self.frame)
                self.arms.append(arm)
            seen.add(id(arm))
            arm.seen, arm.entry = self.frame, entry
            arm.resting = arm.resting + 1 if not moving and depth <= RESTING_DEPTH_MM else 0
            arm.unmoved = 0 if moving else arm.unmoved + 1
            blobs[id(arm)] = blob
            if side is not None:
                self._place_hand(arm, hand, depth)
        for arm in [a for a in self.arms if (id(a) not in seen and self.frame - a.seen >= 2)
                    or a.resting >= RESTING_FRAMES]:
            # (an arm's last blob lying still on the rim: the hand went, the edge's misfit stays)
            self._close(arm)
        for arm in [a for a in self.arms if a.unmoved >= SETTLED_FRAMES and id(a) in blobs]:
            # its blob has not stirred for a second while the rest of the table went on: what
            # lies there is the table now (a card or the pawn by the edge that the still table,
            # taken before, lacks), and the still table takes it
            ys, xs, _ = pixels[blobs[id(arm)]]
            self._still[ys, xs] = cur[ys, xs]
            self._close(arm)
        if not self.arms and not change.moving and not any(m for _, _, m in pixels.values()):
            self.still = cur.copy()  # nothing but still misfits on the rim: the table at rest
        return arm_mask

    def _one_per_corner(self, entries: list) -> list:
        """One blob crossing two neighbouring sides near their shared corner is one arm that came
        in at the corner: the side it crosses most widely, or no side when that is not clear."""
        out = list(entries)
        L = self.layout
        for a in entries:
            for b in entries:
                if a is b or a[0] != b[0] or a not in out or b not in out:
                    continue
                corner = _corner(a[1], b[1])
                if corner is None:
                    continue
                if not (_near_corner(a, corner, L) and _near_corner(b, corner, L)):
                    continue
                wa, wb = a[3] - a[2], b[3] - b[2]
                out.remove(a)
                out.remove(b)
                keep = a if wa >= wb else b
                side = keep[1] if max(wa, wb) >= 1.5 * min(wa, wb) else None
                known = [e for e in (a, b) if self._match(e[1], (e[2] + e[3]) / 2)]
                if len(known) == 2:
                    out += [a, b]  # two arms seen before, one over the other now
                elif known:
                    out.append(known[0])  # an arm seen before, spilling over the corner
                else:
                    out.append((keep[0], side, keep[2], keep[3]))
        return out

    def _along_depth(self, side: str, xs, ys) -> tuple[np.ndarray, np.ndarray]:
        """Each pixel's place along ``side``'s edge and its depth into the table from it (mm)."""
        return _along_depth(side, self.mmx[ys, xs], self.mmy[ys, xs], self.layout)

    def _hand(self, side: str, xs, ys, lo: float, hi: float,
              others=(), across=()) -> tuple[tuple[float, float], float]:
        """The hand of the arm from ``side`` that crosses its edge between ``lo`` and ``hi``:
        (the hand's point in mat mm, its depth). Only the part of the blob in line with where
        the arm crosses the edge counts (arms crossing each other make one blob), less the
        lines of ``others`` (the stretches where arms along the same axis cross their edges)."""
        along, depth = self._along_depth(side, xs, ys)
        keep = (along >= lo - 15.0) & (along <= hi + 15.0)
        if others:  # (along is x for north and south alike, y for west and east)
            alone = keep.copy()
            for o_lo, o_hi in others:  # the other's middle: where arms overlap, both count
                mid, half = (o_lo + o_hi) / 2, 0.3 * (o_hi - o_lo)
                alone &= (along < mid - half) | (along > mid + half)
            if alone.sum() >= 20:
                keep = alone
            keep &= self._joined(side, xs, ys, keep, lo, hi)
        point, d = self._hand_at(side, along[keep], depth[keep], lo, hi)
        if across and self._region_at(point) is None:
            # measured through an arm from a neighbouring side, the hand is over nothing: short
            # of that arm's band it may be over a region (see _short_of_band)
            short = keep
            for o_side, o_lo, o_hi in across:
                short = self._short_of_band(side, xs, ys, depth, short, lo, hi, o_side, o_lo, o_hi)
            if short is not keep:
                p2, d2 = self._hand_at(side, along[short], depth[short], lo, hi)
                if self._region_at(p2) is not None:
                    return p2, d2
        return point, d

    def _hand_at(self, side: str, along, depth, lo: float, hi: float) -> tuple[tuple[float, float], float]:
        """The hand's point and depth from the arm's pixels (their place along the edge and
        depth): its tip less :attr:`hand_back_mm`, in the middle of its last 5 cm."""
        if not depth.size:
            return self._point(side, (lo + hi) / 2, 0.0), 0.0
        tip = self._tip(depth)
        at = float(np.median(along[(depth >= tip - 50.0) & (depth <= tip)]))  # the hand's middle
        d = max(0.0, tip - self.hand_back_mm)
        return self._point(side, at, d), d

    def _short_of_band(self, side: str, xs, ys, depth, keep, lo: float, hi: float, o_side: str,
                       o_lo: float, o_hi: float) -> np.ndarray:
        """``keep`` without the band of the arm that crosses ``o_side``'s edge between ``o_lo``
        and ``o_hi`` (where it crosses this arm's line, taken as running straight in), when
        nothing of this arm shows past that band: the arm ends there, by the other or under
        it, and the band is the other's. (A hand on the discard pile whose shadow joins another
        arm coming in from the side just past the pile would otherwise be measured
        at the far edge of that arm, over no region, and the same face discarded was missed.
        Used only where the hand measured through the band is over no region: a hand under
        the other arm's band, a west arm drawing where a north arm passes over the pile, is
        measured through it.) An arm that shows past the band reaches over or under it:
        ``keep`` as it was. (``depth``: each pixel's depth from ``side``'s edge, as
        :meth:`_hand` measured it.)"""
        other_along, _ = self._along_depth(o_side, xs, ys)
        band = (other_along >= o_lo) & (other_along <= o_hi)
        inband = keep & band
        if not inband.any():
            return keep
        past = keep & ~band & (depth > float(depth[inband].max()))
        if past.sum() * self.px_area_mm2 >= 3 * ARM_WIDTH_MM * TIP_STEP_MM:  # (a sliver is not)
            return keep
        rest = keep & ~band
        if not rest.any():
            return keep
        return rest & self._joined(side, xs, ys, rest, lo, hi)

    def _tip(self, depth: np.ndarray) -> float:
        """How deep the arm reaches: walking in from the rim, the last stretch where the blob is
        still an arm's width (a sliver alongside -- another arm's shadow -- is not; a gap of a
        few centimetres where the arm looks like what it passes over is bridged)."""
        bins = np.bincount((depth / TIP_STEP_MM).astype(int).clip(0))
        wide = bins * self.px_area_mm2 / TIP_STEP_MM >= ARM_WIDTH_MM
        last, gap = 0, 0
        for i, ok in enumerate(wide):
            if ok:
                last, gap = i, 0
            else:
                gap += 1
                if gap > TIP_GAP and last > 0:
                    break
        inner = depth[depth < (last + 1) * TIP_STEP_MM]
        return float(inner.max()) if inner.size else float(depth.max())

    def _joined(self, side: str, xs, ys, keep, lo: float, hi: float) -> np.ndarray:
        """Which of the kept pixels hang together with the arm's own stretch of the rim (a
        sliver of another arm or its shadow left in its line is not its hand)."""
        canvas = np.zeros(self.inside.shape, np.uint8)
        canvas[ys[keep], xs[keep]] = 1
        _, labels = cv2.connectedComponents(canvas, connectivity=8)
        rys, rxs, ralong = self._rims[side]
        on = (ralong >= lo) & (ralong <= hi)
        roots = np.unique(labels[rys[on], rxs[on]])
        roots = roots[roots > 0]
        if not roots.size:
            return np.ones_like(keep)
        return np.isin(labels[ys, xs], roots)

    def _point(self, side: str, along: float, depth: float) -> tuple[float, float]:
        L = self.layout
        return {"north": (along, depth), "south": (along, L.height - depth), "west": (depth, along),
                "east": (L.width - depth, along)}[side]

    def _match(self, side: str | None, entry: float) -> _Arm | None:
        near = [a for a in self.arms if a.side == side and abs(a.entry - entry) < 120.0]
        return min(near, key=lambda a: abs(a.entry - entry)) if near else None

    def _place_hand(self, arm: _Arm, hand: tuple[float, float], depth: float) -> None:
        region = self._region_at(hand)
        if depth > arm.deepest[0]:
            arm.deepest = (depth, region)
        arm.hand = hand
        arm.streak = arm.streak + 1 if region is not None and region == arm.last_region else 1
        arm.last_region = region
        if region is not None and arm.streak >= 2 and region not in arm.regions:
            arm.regions.append(region)
            if region == "draw":
                self._join_pile(arm)

    def _region_at(self, point: tuple[float, float], slack: float = 5.0) -> str | None:
        x, y = point
        for name in self.cards:
            r = self.layout.regions.get(name)
            if r is not None and r.x0 - slack <= x <= r.x1 + slack and r.y0 - slack <= y <= r.y1 + slack:
                return name
        return None

    def _close(self, arm: _Arm) -> None:
        self.arms.remove(arm)
        if not arm.regions and arm.deepest[1] == "draw":
            self._join_pile(arm)  # its deepest point was at the pile: judge it all the same
        self.done.append(arm)

    # --- the draw pile ------------------------------------------------------------------------

    def _join_pile(self, arm: _Arm) -> None:
        if not self._pile_group:
            self._pile_before = self._pile_look
        arm.at_pile, arm.decided, arm.lifted = True, False, None
        self._pile_group.append(arm)

    def _watch_pile(self, cur: np.ndarray, change, covered: np.ndarray | None) -> None:
        box = self.cards.get("draw")
        if box is None:
            return
        x0, y0, x1, y1 = box
        clear = change.motion.get("draw", 0.0) <= self.motion_threshold and (
            covered is None or covered[y0:y1, x0:x1].mean() < 0.02)
        self._pile_still = self._pile_still + 1 if clear else 0
        if self._pile_still < 2:
            return
        self._pile_look = (box, _cut(cur, box))
        if self._pile_group and not any(a in self.arms and a.hand is not None
                                        and self._region_at(a.hand) == "draw" for a in self._pile_group):
            self._judge_pile(cur)

    def _judge_pile(self, cur: np.ndarray) -> None:
        """The pile is clear again: how many cards the arms at it since its last clear look took.
        (The look after is cut where the look before was: a view fitted again under the arms,
        the camera not moved, shifts the region's box by a pixel or two, and a pile's top card
        shifted by as much is a draw.)"""
        before = self._pile_before
        d = look_difference(before[1], _cut(cur, before[0])) if before is not None else None
        group, self._pile_group = self._pile_group, []
        if d is None:
            lifted = None
        elif d < SAME_PILE:
            lifted = 0
        elif d > OTHER_PILE and len(group) == 1:
            # (unless the camera's smear turned between the two looks and, taken out, leaves
            # them alike: then the count cannot be told -- an arm that passes over the draw
            # pile on its way to the discard pile while the smear turns would otherwise count
            # as a draw nobody made)
            lifted = None if _smear_explains(before[1], _cut(cur, before[0])) else 1
        else:
            lifted = None  # a look in between, or several arms and the pile changed
        for arm in group:
            arm.lifted, arm.decided = lifted, True

    # --- out ----------------------------------------------------------------------------------

    def take(self, force: bool = False) -> list[tuple[int, Reach]]:
        """The reaches that are over, (the frame the arm came in, reach) in the order they came
        in; those still waiting for the pile's verdict stay unless ``force`` (then unknown)."""
        ready = [a for a in self.done if a.decided or force]
        if any(not a.decided for a in self.done) and not force:
            # keep the order: nothing after a reach still waiting is handed out before it
            first = min(a.came for a in self.done if not a.decided)
            ready = [a for a in ready if a.came < first]
        for a in ready:
            self.done.remove(a)
            if not a.decided:
                a.lifted, a.decided = None, True
                if a in self._pile_group:
                    self._pile_group.remove(a)
        ready.sort(key=lambda a: a.came)
        return [(a.came, a.reach()) for a in ready]

    def hand_at_cards(self) -> bool:
        """An arm is over the table now with its hand over a card region or within a hand's
        length of one (its point is :attr:`hand_back_mm` short of the fingertips): what lies
        there may be under the fingers. (Dim light: ann's hand held still over the green-6 she
        put down, its fingers over the card's lower half, was taken for the table after five
        frames, and the card was read green-4 under it and committed.)"""
        return any(a.hand is not None and self._region_at(a.hand, self.hand_back_mm + 5.0)
                   for a in self.arms)

    def pending_draw(self) -> bool:
        """A reach that is over took from the draw pile, or may have (a reading should say so)."""
        return any(a.decided and a.lifted != 0 and a.at_pile for a in self.done)


def percentile_spread(values: np.ndarray, high: float = 95.0, low: float = 5.0) -> float:
    """``np.percentile(values, high) - np.percentile(values, low)`` of a 1-d array, to the bit
    (numpy's linear method: the same partition and the same interpolation, in the same types), at
    a tenth of the time: the still table is taken on most quiet frames, and the light is measured
    on its four markers each time.

    >>> v = np.array([3, 9, 1, 7, 250, 4, 8, 2, 6, 5, 0, 100], np.float32)
    >>> percentile_spread(v) == float(np.subtract(*np.percentile(v, [95, 5])))
    True
    """
    n = len(values)
    ends = []
    for q in (high / 100, low / 100):
        at = (n - 1) * q
        i = math.floor(at)
        ends.append((i, min(i + 1, n - 1), at - i))
    part = np.partition(values, sorted({k for i, j, _ in ends for k in (i, j)}))
    out = []
    for i, j, t in ends:
        a, b = part[i], part[j]
        d = float(b - a)  # (in the values' own type, as numpy's interpolation takes it)
        out.append(float(b) - d * (1 - t) if t >= 0.5 else float(a) + d * t)
    return out[0] - out[1]


def _smear_explains(before: np.ndarray, after: np.ndarray) -> bool:
    """Some straight smear of one look of the pile or the other leaves them alike (by less than
    :data:`SAME_PILE`: :func:`vision.looks.least_smeared_difference`). A pile whose
    top card went differs by 4 and up that way too (4.0-10.2 on the motion-blur runs measured);
    the turned smear's 5.1 came down to 0.85."""
    d = least_smeared_difference(before, after)
    return d is not None and d < SAME_PILE


def _along_depth(side: str, X: np.ndarray, Y: np.ndarray, L: Layout) -> tuple[np.ndarray, np.ndarray]:
    return {"north": (X, Y), "south": (X, L.height - Y), "west": (Y, X),
            "east": (Y, L.width - X)}[side]


def _runs_along(entry, side: str, L: Layout, within: float = 45.0) -> bool:
    """Whether the arm that crosses its edge at ``entry`` runs along the neighbouring ``side``'s
    edge (its stretch of its own edge comes within ``within`` mm of that side)."""
    _, own, lo, hi = entry
    if own is None or _corner(own, side) is None:
        return False
    length = L.width if own in ("north", "south") else L.height
    low_end = side in ("west", "north")  # along x, west is 0; along y, north is 0
    return lo <= within if low_end else hi >= length - within


def _aligned(still: np.ndarray, now: np.ndarray | None) -> np.ndarray:
    """``still`` (a small grey frame) moved onto ``now`` (a later one of the same table): the
    turn and shift between them (:func:`cv2.findTransformECC`), where it is a quarter of a
    pixel or more; else (none found, or no ``now``) ``still`` as it is."""
    if now is None or now.shape != still.shape:
        return still
    warp = np.eye(2, 3, dtype=np.float32)
    try:
        _, warp = cv2.findTransformECC(now.astype(np.float32), still.astype(np.float32), warp,
                                       cv2.MOTION_EUCLIDEAN,
                                       (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4),
                                       None, 5)
    except cv2.error:
        return still
    h, w = still.shape[:2]
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float32)
    if np.abs(corners @ warp.T - corners[:, :2]).max() < 0.25:
        return still
    return cv2.warpAffine(still, warp, (w, h), flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _filled(mask: np.ndarray) -> np.ndarray:
    """``mask`` with its holes filled: where an arm passes over something of its own grey (a
    dark card under a dark arm) the mask has a hole, and the arm seemed to end there (a Flip
    reveal's arm was once taken for a reach to the draw pile it passed over)."""
    outside = np.pad(mask, 1)
    cv2.floodFill(outside, None, (0, 0), 1)
    return mask | (outside[1:-1, 1:-1] == 0).astype(np.uint8)


def _cut(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The look of a box of the small frame, at a set size."""
    x0, y0, x1, y1 = box
    return cv2.resize(frame[y0:y1, x0:x1], PILE_LOOK, interpolation=cv2.INTER_AREA)


def _axis(side: str | None) -> str | None:
    """Which way an arm from ``side`` lies on the mat: ``y`` (north, south) or ``x``."""
    return None if side is None else ("y" if side in ("north", "south") else "x")


def _runs(along: np.ndarray, gap: float = 20.0, least: float = 25.0) -> list[tuple[float, float]]:
    """The stretches of the edge a blob covers (sorted positions, mm): split where it leaves a
    gap, kept when an arm's width could fill them."""
    if not along.size:
        return []
    cut = np.nonzero(np.diff(along) > gap)[0]
    out = []
    for part in np.split(along, cut + 1):
        if part[-1] - part[0] >= least:
            out.append((float(part[0]), float(part[-1])))
    return out


_CORNERS = {frozenset(("north", "west")): "nw", frozenset(("north", "east")): "ne",
            frozenset(("south", "west")): "sw", frozenset(("south", "east")): "se"}


def _corner(a: str | None, b: str | None) -> str | None:
    return _CORNERS.get(frozenset((a, b)))


def _near_corner(entry, corner: str, L: Layout, within: float = 80.0) -> bool:
    """Whether an edge stretch reaches within ``within`` mm of ``corner``."""
    _, side, lo, hi = entry
    length = L.width if side in ("north", "south") else L.height
    low_end = (side in ("north", "south") and "w" in corner) or (side in ("west", "east") and "n" in corner)
    return lo <= within if low_end else hi >= length - within
