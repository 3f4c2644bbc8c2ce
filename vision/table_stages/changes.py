"""Changes: what changed on the table since each region was last read, and whether to look.

Owns the :class:`~vision.stabilise.ChangeDetector` (a small grey copy of each frame: motion
since the previous frame and change since each region's reference, per region and per piece of
the border band) and the counters that say whether a frame is worth reading:

* a frame where something moves is not read; what moved over a region marks it *touched*
  (a card may have come where its twin lay), unless the whole picture moved at once (the
  camera's smear or jolt: no card comes without a hand);
* after ``quiet_frames`` still frames the table has *settled*;
* a border band that differs means hands over the table (:meth:`Changes.hands`), waited out
  ``faint_band_frames`` frames (a band barely over the line) or ``strong_band_frames``
  (more than ``strong_band`` times the band's threshold) before it is taken as the table;
* a region that changed with nothing moving over it since it was read shows the same card in
  other light (:meth:`Changes.lit`), and a touched region that changed by more than
  ``touched_change`` is read again though under the threshold (:meth:`Changes.touched_again`).

The tuning names above are fields of ``[reader]`` (:class:`companion.tuning.ReaderTuning`).
"""

from __future__ import annotations

import math

import numpy as np

from companion.tuning import ReaderTuning

from ..geometry import Layout, View
from ..stabilise import ChangeDetector, FrameChange
from .frame import Frame

__all__ = ["Changes"]


class Changes:
    """The change detector over the card regions ``region_names`` and the frames' counters."""

    def __init__(self, layout: Layout, region_names: tuple[str, ...], tuning: ReaderTuning,
                 quiet_frames: int = 2):
        self.layout = layout
        self.region_names = region_names
        self.tuning = tuning
        self.quiet_frames = quiet_frames
        self.detector: ChangeDetector | None = None
        self.quiet = 0            # still frames in a row
        self.hand_frames = 0      # settled frames in a row with the band changed
        self.held_frames = 0      # settled frames in a row with a followed hand at the cards
        self.touched: set[str] = set()  # regions a hand or arm was over since the last look
        self.smeared = False      # the whole picture moved at once since the last look

    def set_view(self, view: View) -> ChangeDetector:
        """A (new) view: the detector's boxes follow it and no reference survives."""
        if self.detector is None:
            regions = {n: self.layout.regions[n] for n in self.region_names}
            self.detector = ChangeDetector(view, self.layout, regions)
        else:
            self.detector.set_view(view)
        return self.detector

    def measure(self, frame: Frame) -> tuple[FrameChange, np.ndarray]:
        """The frame's motion and change per region, and its small grey copy."""
        return self.detector.measure(frame.grey)

    def moving(self, change: FrameChange) -> None:
        """Something moved in this frame: the quiet count starts again."""
        self.quiet = 0
        if change.whole:  # the camera's smear or jolt touches no card ...
            self.smeared = True
        else:
            self.touch(change)

    def settling(self) -> bool:
        """One more still frame; True while fewer than ``quiet_frames`` in a row."""
        self.quiet += 1
        return self.quiet < self.quiet_frames

    def touch(self, change: FrameChange) -> None:
        """Mark the card regions something moved over (not the draw pile: no card is read
        there). After the whole picture moved every region differs from its reference:
        touched are then only those something moved over (stirred)."""
        th = self.detector.change_threshold
        self.touched |= {n for n in self.region_names
                         if n != "draw" and change.change.get(n, 0) > th
                         and (not self.smeared or n in self.detector.stirred)}

    def hands(self, change: FrameChange) -> int:
        """The band differs on a settled frame: how many such frames in a row, this one too."""
        self.hand_frames += 1
        return self.hand_frames

    def band_waits(self, change: FrameChange) -> int:
        """How many settled frames a changed band is taken for hands: an arm changes the band
        a lot; a piece barely over the line and still (a shadow's edge, light that turned)
        is taken as the table after a few."""
        t = self.tuning
        strong = any(v > t.strong_band * self.detector.band_threshold
                     for n, v in change.change.items() if n.startswith("band"))
        return t.strong_band_frames if strong else t.faint_band_frames

    def take_band(self, cur: np.ndarray) -> None:
        """Something lies still on the border (a cup, a phone): it is the table now."""
        self.detector.accept(cur, [n for n in self.detector.boxes if n.startswith("band")])

    def no_hands(self) -> None:
        """The band is clear (or taken as the table)."""
        self.hand_frames = 0

    def held(self, at_cards: bool) -> bool:
        """Whether a followed hand at the cards still holds reading back: for at most
        ``held_hand_frames`` settled frames in a row."""
        if not at_cards:
            self.held_frames = 0
            return False
        self.held_frames += 1
        return self.held_frames <= self.tuning.held_hand_frames

    def changed(self, change: FrameChange) -> list[str]:
        """The card regions that differ from their reference."""
        th = self.detector.change_threshold
        return [n for n in self.region_names if change.change.get(n, 0) > th]

    def nudged(self, changed: list[str]) -> bool:
        """So many regions changed at once (``nudge_share`` of them) that the camera may have
        moved (only once there is a reference to differ from)."""
        return (self.detector.reference is not None
                and len(changed) > self.tuning.nudge_share * len(self.region_names))

    def lit(self, cur: np.ndarray, change: FrameChange, changed: list[str], known) -> list[str]:
        """Of ``changed``, those nothing moved over since they were read (``known(name)``: the
        region has a reading) or the draw pile: the same card in other light (a glare
        highlight, a lamp). They take the new look as their reference and are returned."""
        lit = [n for n in changed if n not in self.detector.stirred and n not in self.touched
               and math.isfinite(change.change[n]) and (known(n) or n == "draw")]
        if lit:
            self.detector.accept(cur, lit)
        return lit

    def touched_again(self, change: FrameChange, changed: list[str]) -> list[str]:
        """The regions a hand was over that now differ a little from before (``touched_change``,
        under the change threshold): a card may lie there almost exactly where the same face
        lay. The touched and smeared marks are cleared: the table is looked at now."""
        again = [n for n in self.touched if n not in changed
                 and change.change.get(n, 0) > self.tuning.touched_change]
        self.touched.clear()
        self.smeared = False
        return again

    def accept(self, cur: np.ndarray, names: list[str]) -> None:
        """Take ``cur`` as the reference of the regions ``names`` (they were read)."""
        self.detector.accept(cur, names)

    def follow_drift(self, cur: np.ndarray, change: FrameChange) -> None:
        """A quiet frame: unchanged regions follow slowly drifting light."""
        self.detector.follow_drift(cur, change)

    def forget(self) -> None:
        """Every region differs from no reference: all are read again."""
        if self.detector is not None:
            self.detector.reference = None
