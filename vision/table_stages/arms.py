"""Arms: the arms over the table, followed on every frame, and the reaches they made.

Owns the :class:`~vision.reaches.ArmTracker` (built on the change detector's small frame and
boxes, and built again, carrying the arms seen so far, when the view changes) and the reaches
handed out so far (:attr:`Arms.log`: (the frame the arm came in, reach), in order).

The reader asks it three things besides feeding it frames: is a followed arm's hand at the cards
(what lies there may be under the fingers: wait), did a reach take from the draw pile or may it
have (a reading should say so), and may a reading go now, or wait up to ``pile_wait`` quiet
frames (``[reader]`` tuning) for the draw pile's verdict on a reach that is over.
"""

from __future__ import annotations

import numpy as np

from companion.reading import Reach
from companion.tuning import ReaderTuning

from ..geometry import Layout, View
from ..reaches import ArmTracker
from ..stabilise import ChangeDetector, FrameChange

__all__ = ["Arms"]


class Arms:
    """The arm tracker (None before the first view), the wait for the pile and the reach log."""

    def __init__(self, layout: Layout, tuning: ReaderTuning):
        self.layout = layout
        self.tuning = tuning
        self.tracker: ArmTracker | None = None
        self.pile_wait = 0  # quiet frames a ready reading has waited for the pile's verdict
        #: (the frame its arm came in, reach) for every reach handed out, in order
        self.log: list[tuple[int, Reach]] = []

    def set_view(self, view: View, detector: ChangeDetector, moved: float) -> None:
        """A new view (``moved``: how far from the last, in pixels): the arms seen so far still
        count, at the same places when the view barely moved (``arms_same_place_px``)."""
        old = self.tracker
        self.tracker = ArmTracker(view, self.layout, detector.boxes, detector.scale,
                                  detector.small_size, motion_threshold=detector.motion_threshold)
        if old is not None:
            self.tracker.carry(old, same_place=moved < self.tuning.arms_same_place_px)

    def update(self, cur: np.ndarray, change: FrameChange, frame: int) -> None:
        """Follow the arms on the small grey frame ``cur`` (number ``frame``)."""
        self.tracker.update(cur, change, frame)

    def hand_at_cards(self) -> bool:
        """A followed arm has its hand over a card region or within a hand's length of one."""
        return self.tracker.hand_at_cards()

    def none_over_rim(self) -> bool:
        """No arm is followed over the mat's rim, and the still table is known."""
        return not self.tracker.arms and self.tracker.still is not None

    def pending_draw(self) -> bool:
        """A reach that is over took from the draw pile, or may have."""
        return self.tracker.pending_draw()

    def waiting_for_pile(self) -> bool:
        """A reach that is over still waits for the draw pile's verdict, and a reading waits for
        it one more frame (``pile_wait`` frames at most; then the reach's draw is unknown)."""
        if any(not a.decided for a in self.tracker.done) and self.pile_wait < self.tuning.pile_wait:
            self.pile_wait += 1
            return True
        return False

    def take(self, reading: bool = True) -> list[tuple[int, Reach]]:
        """Every reach that is over (those still waiting for the pile: unknown), logged.
        ``reading``: a reading carries them, and the next one's wait for the pile starts anew."""
        if reading:
            self.pile_wait = 0
        came = self.tracker.take(force=True) if self.tracker is not None else []
        self.log += came
        return came
