"""The pawn (grid game): where it stands, voted over frames, and what a hand leaves of it.

The pawn is found by its marker (:func:`vision.pawn.find_pawn`; through the camera's smear, with
the pawn's own bank of smears, :class:`vision.desmear.Desmear`); a marker a hand half covers is
read from what shows within a step of where the pawn was last seen
(:func:`vision.pawn_partial.find_partly_hidden`). A pawn cannot vanish from the table: a marker
missed in a frame or two is no news, and the places it was seen vote among themselves.

:attr:`PawnWatch.dirty` says the pawn has no settled place yet (the reading waits for it);
:meth:`PawnWatch.look` returns True when the settled pawn moved or was lost or found.
:meth:`PawnWatch.left_over_band` tells a border band changed only by the pawn lying there
(it left the board over the edge) from hands over the table.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.reading import NO_PAWN, PawnReading

from ..desmear import Desmear
from ..geometry import Layout, View
from ..pawn import find_pawn
from ..pawn_partial import find_partly_hidden
from ..stabilise import ChangeDetector, FrameChange
from .frame import Frame

__all__ = ["PawnWatch"]


class PawnWatch:
    """The pawn's votes and its settled :attr:`reading` (``votes`` sightings must agree)."""

    def __init__(self, game: str, layout: Layout, votes: int = 2):
        self.game = game
        self.layout = layout
        self.needed = votes
        self.votes: list[PawnReading] = []
        self.reading: PawnReading = NO_PAWN
        self.last_mm: tuple[float, float] | None = None  # where the pawn was last seen (mm)
        self.sighting: PawnReading = NO_PAWN  # what the last look found
        self.dirty = game == "grid"
        self.desmear = Desmear()  # a camera's smear taken out of the pawn's marker

    @property
    def near(self) -> tuple[float, float] | None:
        """Where the settled pawn is seen (mm), or None."""
        return self.reading.mm if self.reading.seen else None

    @property
    def standing_on(self) -> tuple[int, int] | None:
        """The grid cell the last look saw the pawn on (its marker's centre), or None (not
        seen, or off the board)."""
        return self.sighting.cell if self.sighting.seen and self.sighting.on_board else None

    def look(self, frame: Frame, view: View, sharp: np.ndarray | None = None) -> bool:
        """One frame's vote (``sharp``: the frame with the camera's smear taken out, looked at
        first); True when the settled pawn changed cell or was lost or found."""
        if sharp is not None:
            found = find_pawn(cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY), view, self.layout,
                              near=self.near)
            if found.seen:
                self.sighting = found
                self.votes.append(found)
                return self._count()
        # (a smeared marker is looked for where the pawn was last seen: it cannot vanish; before
        # any sighting, around the centre cell, where every game starts it)
        seen = find_pawn(frame.grey, view, self.layout, near=self.near, desmear=self.desmear,
                         smeared_near=self.reading.mm or self.layout.cell_center(2, 2))
        if not seen.seen and self.last_mm is not None:
            # a hand resting by the pawn over a corner of its marker
            seen = find_partly_hidden(sharp if sharp is not None else frame.image, view,
                                      self.layout, self.last_mm)
        self.sighting = seen
        self.votes.append(seen)
        return self._count()

    def _count(self) -> bool:
        """Settle the pawn when its votes agree (or it stayed unseen long enough)."""
        votes = self.votes
        need = self.needed
        sightings = [p for p in votes if p.seen]
        misses = _trailing_misses(votes)
        if len(sightings) >= need and len({p.cell for p in sightings[-need:]}) == 1:
            return self._settle(sightings[-1])
        if misses >= (need if not self.reading.seen else 3 * need):
            return self._settle(votes[-1])  # missing for long (lifted off, hidden): not seen
        if len(votes) > 4 * need + 2:
            # the votes never agreed: where the pawn was last seen, but not seen there now (a
            # stale place reported as seen would be called an illegal move)
            return self._settle(PawnReading(self.reading.cell, self.reading.mm, False))
        # no agreement yet: keep voting on the next frames, quiet ones included, and hold the
        # reading back meanwhile (it would carry the pawn's old place)
        self.dirty = True
        return False

    def _settle(self, pawn: PawnReading) -> bool:
        changed = pawn.cell != self.reading.cell or pawn.seen != self.reading.seen
        self.reading = pawn
        if pawn.seen and pawn.mm is not None:
            self.last_mm = pawn.mm
        self.votes.clear()
        self.dirty = False
        return changed

    def left_over_band(self, frame: Frame, view: View, change: FrameChange,
                       detector: ChangeDetector) -> list[str] | None:
        """The band pieces that changed, when they changed only where the pawn now lies off the
        board (it left over the edge: no hand); the pawn is then voted on again. Else None."""
        if self.game != "grid":
            return None
        changed = [n for n, v in change.change.items()
                   if n.startswith("band") and v > detector.band_threshold]
        pawn = find_pawn(frame.grey, view, self.layout)
        if not pawn.seen or pawn.on_board or pawn.mm is None:
            return None
        x, y = pawn.mm
        reach = self.layout.pawn_marker_mm + 15.0  # the pawn's body and shadow around its marker
        for name in changed:
            b = detector.region(name)
            if not (b.x0 - reach <= x <= b.x1 + reach and b.y0 - reach <= y <= b.y1 + reach):
                return None
        self.dirty = True
        return changed


def _trailing_misses(votes: list[PawnReading]) -> int:
    """How many of the last pawn votes in a row missed the marker."""
    n = 0
    for vote in reversed(votes):
        if vote.seen:
            break
        n += 1
    return n
