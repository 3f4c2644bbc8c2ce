"""Calibrate: the camera's view of the mat, found once and checked when the table stirs.

Without a view, the first frames calibrate it from the four corner markers
(:func:`vision.geometry.view_from_markers`; ``lens`` helps when the lens is known); the grid
game, which may be played without markers, falls back on its grid of cards
(:func:`~vision.geometry.view_from_grid_cards`).

When most regions change at once, or the border band changes as if hands were over it, the
camera may have been nudged. :meth:`Calibrate.moved` decides: the table's texture, compared
with the grey table kept at the last reading (:meth:`Calibrate.settled`), says first whether
the camera moved at all (a smear that turns shifts the markers' detected corners by 10-20 px,
the texture by under a pixel); then the markers are looked for again (without markers, the old
view is carried over by the texture when it moved by under ``max_follow_px``), on a sharp frame
only: with arms over the table the texture can seem to move, and the markers of a smeared frame
were once fitted 27 px off a camera that never moved. It returns the new view, and the reader
starts every other stage afresh on it.

Tuning (``[reader]``): ``view_still_px`` (markers) and ``grid_view_still_px`` (grid cards): a
view that moved by less is the same view; ``max_follow_px``: the largest nudge the texture
carries a markerless view over.
"""

from __future__ import annotations

import math

from companion.tuning import ReaderTuning

from ..geometry import CalibrationFailed, Layout, LensModel, View, follow_view, view_from_grid_cards, \
    view_from_markers
from ..frame_smear import measure_smear
from .frame import Frame

__all__ = ["Calibrate"]


class Calibrate:
    """The view (``view``, None until found) and the quiet table's grey to follow a nudge by."""

    def __init__(self, game: str, layout: Layout, tuning: ReaderTuning, *, view: View | None = None,
                 lens: LensModel | None = None, recalibrate: bool = True):
        self.game = game
        self.layout = layout
        self.tuning = tuning
        self.view = view
        self.lens = lens
        #: look for a nudged camera at all (a fixed test view: no)
        self.recalibrate = recalibrate
        self.quiet_grey = None  # the table at the last reading (no markers needed to compare)

    def find(self, frame: Frame, markers_only: bool = False) -> View:
        """The view from the corner markers; without them (grid game), from the grid's cards.
        Raises :class:`~vision.geometry.CalibrationFailed` when neither gives one."""
        try:
            return view_from_markers(frame.image, self.layout, self.lens)
        except CalibrationFailed as exc:
            if self.game != "grid" or markers_only:
                raise
            try:
                return view_from_grid_cards(frame.image, self.layout, self.lens)
            except CalibrationFailed as grid_exc:
                raise CalibrationFailed(f"{exc}; and {grid_exc}") from grid_exc

    def moved(self, frame: Frame, markers_only: bool = False) -> View | None:
        """The camera's new view when it moved (``markers_only``: hands may be over the table,
        so only the markers count), else None. The caller puts it in :attr:`view`."""
        if not self.recalibrate:
            return None
        t = self.tuning
        view = None
        if self.quiet_grey is not None:
            # without markers, the old view is carried over by the texture (exact): the grid's
            # cards lie a few millimetres off their places (a rough view), and a pawn or a hand
            # on one of them hides it
            followed = follow_view(self.view, self.quiet_grey, frame.grey)
            moved = followed.moved_by(self.view, self.layout) if followed is not None else math.inf
            if moved < t.view_still_px:
                return None
            if moved < t.max_follow_px and self.view.source != "markers" and not markers_only:
                view = followed
        if view is None:
            if measure_smear(frame.grey, self.view, self.layout) is not None:
                return None  # (the markers' corners shift with a smear: look again when sharp)
            try:
                view = self.find(frame, markers_only)
            except CalibrationFailed:
                return None
            still = t.view_still_px if view.source == "markers" else t.grid_view_still_px
            if view.moved_by(self.view, self.layout) < still:
                return None
        return view

    def moved_by(self, view: View) -> float:
        """How far ``view`` lies from the current one (mm on the mat; infinite without one)."""
        return view.moved_by(self.view, self.layout) if self.view is not None else math.inf

    def settled(self, frame: Frame) -> None:
        """A reading was given on ``frame``: its grey is the quiet table to follow a nudge by."""
        if self.recalibrate:
            self.quiet_grey = frame.grey
