"""Frames in, stable table readings out.

:class:`TableReader` watches a stream of frames of the table and, whenever the table has settled
after a change, produces a :class:`TableReading`: a frozen value with, for each grid cell and the
discard pile, the card read there with its class probabilities, where the pawn stands, how
many times the draw pile changed, and the arms seen over the table since the previous reading:
the side each came in by, where its hand went, the cards it took from the draw pile
(:mod:`vision.reaches`). The camera referee (:mod:`companion.referee.camera`) matches
those readings against the legal actions.

A frame goes through a pipeline of small stages (:mod:`vision.table_stages`), each owning its
own state and documented in its module:

1. **Calibrate** (:mod:`~vision.table_stages.calibrate`): the camera's view of the mat, from the
   corner markers (or the grid's cards), checked again when the camera may have been nudged;
2. **Changes** (:mod:`~vision.table_stages.changes`): a small grey copy measures motion and
   change per region; a moving frame stops there (cheap); hands over the table (the border band
   changed) pause reading; after ``quiet_frames`` still frames only the regions that differ from
   their reference (or that a hand was over) are read again;
3. **Arms** (:mod:`~vision.table_stages.arms`): every frame also goes to the arm tracker, which
   follows the arms over the table on the same small grey copy; their reaches go on the next
   reading;
4. **ReadRegions** (:mod:`~vision.table_stages.read_regions`): each region to read is warped
   top-down, its card found and classified (through the camera's smear too:
   :mod:`~vision.table_stages.sharpen`); the pawn is found by its marker
   (:mod:`~vision.table_stages.pawn`);
5. **Vote** (:mod:`~vision.table_stages.vote`): the reads of consecutive frames vote; once every
   region being read has agreed, a new reading is produced (if anything changed, or an arm took
   from the draw pile or may have). The cell the pawn stands on keeps the card it covers.

Every threshold that trades one mistake for another is a field of the ``[reader]`` tuning
(:class:`companion.tuning.ReaderTuning`; ``TableReader(tuning=...)``).

Card classification goes through a *classifier*: anything with ``classify_many(cards) ->
[dict label -> probability]``. :class:`ModelClassifier` adapts the trained card model
(:class:`vision.recognize.CardReader`); :class:`TemplateClassifier` compares with the procedural
card art and needs no model (good on the synthetic table, weak on real cards).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

import cv2
import numpy as np

from companion.cards import BACK, FACE_SETS
from companion.reading import EMPTY, Reach, RegionReading, TableReading
from companion.tuning import Tuning, default as default_tuning

from .geometry import REGION_NAMES, CalibrationFailed, Layout, LensModel, View, cell_name
from .looks import LookMemory, look_difference
from .stabilise import ChangeDetector, FrameChange
from .table_stages import (READING_LABELS, Arms, Calibrate, Changes, Frame, PawnWatch,
                           ReadRegions, Vote, locate_card, placed_card, unsmeared)

__all__ = ["TableReading", "RegionReading", "TableReader", "FrameReport", "TemplateClassifier",
           "ModelClassifier", "default_classifier", "labels_for_game", "EMPTY", "locate_card",
           "placed_card", "look_difference", "READING_LABELS"]

log = logging.getLogger(__name__)


def labels_for_game(game: str) -> tuple[str, ...]:
    """Labels the cards of a game can show: classic faces, or both Flip sides (and ``back``)."""
    if game in ("grid", "classic"):
        sets = ("classic",)
    else:
        sets = ("light", "dark")
    names = sorted({c.name for s in sets for c in FACE_SETS[s].faces})
    return tuple(names) + (BACK,)


@dataclass(frozen=True)
class FrameReport:
    """What the reader did with one frame (for the benchmark, the live view and the tests)."""

    state: str              # "moving", "hands", "settling", "reading", "quiet", "calibrating", "no-view"
    ms: float
    reading: TableReading | None = None
    read: tuple[str, ...] = ()


# --- classifying the card in a region ------------------------------------------------------

class Classifier(Protocol):
    def classify_many(self, cards: list[np.ndarray]) -> list[dict[str, float]]: ...


def _edges(card: np.ndarray) -> np.ndarray:
    """Gradient magnitude of the grey card: strokes, not the oval's fill, tell digits apart."""
    g = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))


class TemplateClassifier:
    """Nearest templates among the procedural card art (:mod:`vision.card_art`), either way up.

    Needs no trained model. Two stages: a small colour-and-shape feature picks the likeliest
    labels, then the centre symbol is matched by normalised cross-correlation (a few pixels of
    slack) against each of them. It is as good as the art is like the cards: near perfect on the
    synthetic table, not meant for real cards.
    """

    SIZE = (16, 24)
    _CENTRE = (slice(20, 76), slice(12, 52))   # template: the symbol, 40 x 56
    _SEARCH = (slice(16, 80), slice(8, 56))    # card: the same with 4 px of slack

    def __init__(self, labels: Iterable[str], temperature: float = 30.0, shortlist: int = 10):
        from .card_art import draw_card

        self.labels = tuple(labels)
        feats, owners, centres = [], [], []
        for label in self.labels:
            sets = [None] if label == BACK else self._sets_of(label)
            for fs in sets:
                styles = ("oval", "outline") if fs in (None, "classic") and label != BACK else (None,)
                for style in styles:
                    img = draw_card(label, 64, 96, face_set=fs, style=style)
                    for k in (0, 2):
                        turned = np.ascontiguousarray(np.rot90(img, k))
                        feats.append(self._feature(turned))
                        owners.append(self.labels.index(label))
                        centres.append(_edges(turned)[self._CENTRE])
        self._feats = np.stack(feats)
        self._owners = np.array(owners)
        self._centres = centres
        self.temperature = temperature
        self.shortlist = shortlist

    @staticmethod
    def _sets_of(label: str) -> list[str]:
        from companion.cards import parse_card
        card = parse_card(label)
        return [name for name, fs in FACE_SETS.items() if card in fs] or [None]

    def _feature(self, card: np.ndarray) -> np.ndarray:
        img = cv2.resize(card, self.SIZE, interpolation=cv2.INTER_AREA)
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
        lab -= lab.reshape(-1, 3).mean(0)
        lab[..., 0] *= 0.5
        v = lab.ravel()
        return v / (np.linalg.norm(v) + 1e-6)

    def classify_many(self, cards: list[np.ndarray]) -> list[dict[str, float]]:
        out = []
        n = len(self.labels)
        for card in cards:
            card = np.ascontiguousarray(card)
            if card.shape[:2] != (96, 64):
                card = cv2.resize(card, (64, 96), interpolation=cv2.INTER_AREA)
            sims = self._feats @ self._feature(card)
            best = np.full(n, -1.0)
            np.maximum.at(best, self._owners, sims)
            short = [int(i) for i in np.argsort(-best)[:self.shortlist]]
            gray = _edges(card)[self._SEARCH]
            score = {}
            for t, owner in enumerate(self._owners):
                if owner in short:
                    ncc = float(cv2.matchTemplate(gray, self._centres[t], cv2.TM_CCOEFF_NORMED).max())
                    # colour decides between colours, the symbol between faces
                    value = ncc + 0.5 * float(sims[t])
                    score[owner] = max(score.get(owner, -9.0), value)
            keys = list(score)
            vals = np.array([score[k] for k in keys])
            z = np.exp((vals - vals.max()) * self.temperature)
            p = z / z.sum()
            out.append({self.labels[keys[i]]: float(p[i]) for i in np.argsort(-p)[:8]})
        return out


class ModelClassifier:
    """The trained card model (:class:`vision.recognize.CardReader`) behind the classifier
    interface: its best label and runners-up become the probabilities; ``none`` is ``empty``."""

    def __init__(self, reader, deck: str = "auto"):
        self.reader = reader
        self.deck = deck

    def classify_many(self, cards: list[np.ndarray]) -> list[dict[str, float]]:
        out = []
        for r in self.reader.classify_many(cards, self.deck):
            probs = {r.label: r.confidence, **{k: v for k, v in r.runners_up}}
            if "none" in probs:
                probs[EMPTY] = probs.pop("none")
            out.append(probs)
        return out


def default_classifier(game: str, prefer: str = "auto"):
    """The trained model if it is installed (``prefer`` = ``model``/``auto``), else the templates."""
    if prefer in ("auto", "model"):
        try:
            from .recognize import CardReader
            # runners-up enough for the reading's labels (READING_LABELS): what the model gave
            # the cards left out is what bounds the risk of calling a legal play illegal
            return ModelClassifier(CardReader(runners_up=READING_LABELS - 1),
                                   "classic" if game in ("grid", "classic") else "flip")
        except (ImportError, FileNotFoundError, cv2.error) as exc:
            if prefer == "model":
                raise
            log.info("card model unavailable (%s): using the procedural templates", exc)
    return TemplateClassifier(labels_for_game(game))



# --- the reader ----------------------------------------------------------------------------------

class TableReader:
    """Reads the table from frames. ``game`` (grid, flip, classic) says which regions matter.

    ``view`` is the camera's view of the mat; without one, the first frames calibrate it from the
    corner markers (``lens`` helps when the lens is known). ``clock`` stamps readings whose frames
    carry no time. ``tuning``: the thresholds (:func:`companion.tuning.default` when None).
    ``looks``: the memory of the regions' looks (:class:`vision.looks.LookMemory`; a new one when
    None): each region's reading names its look there (``look_id``), and the referee, given the
    memory, has its readings measured from the looks it remembers.
    """

    def __init__(self, game: str = "grid", *, view: View | None = None, layout: Layout = Layout(),
                 classifier=None, lens: LensModel | None = None, quiet_frames: int = 2,
                 votes: int = 2, read_px_per_mm: float = 1.4, recalibrate: bool = True,
                 max_reads: int = 7, clock: Callable[[], float] = time.monotonic,
                 tuning: Tuning | None = None, looks: LookMemory | None = None):
        knobs = (tuning or default_tuning()).reader
        self.game = game
        self.layout = layout
        self.clock = clock
        self.frames = 0
        names = tuple(n for n in REGION_NAMES if (n.startswith("cell-") and game == "grid")
                      or n in ("discard", "draw"))
        self._calibrate = Calibrate(game, layout, knobs, lens=lens, recalibrate=recalibrate)
        self._changes = Changes(layout, names, knobs, quiet_frames)
        self._arms = Arms(layout, knobs)
        self._regions = ReadRegions(classifier if classifier is not None else default_classifier(game),
                                    knobs, read_px_per_mm)
        self._pawn = PawnWatch(game, layout, votes)
        self._vote = Vote(game, names, votes, max_reads, looks)
        if view is not None:
            self._new_view(view)

    # --- what it shows ------------------------------------------------------------------------

    @property
    def view(self) -> View | None:
        """The camera's view of the mat (None until calibrated)."""
        return self._calibrate.view

    @property
    def region_names(self) -> tuple[str, ...]:
        """The regions this game reads (the grid's cells, the discard and draw piles)."""
        return self._vote.region_names

    @property
    def looks(self) -> LookMemory:
        """The looks the regions settled on and those the referee remembers them by."""
        return self._vote.looks

    @property
    def classifier(self):
        return self._regions.classifier

    @property
    def detector(self) -> ChangeDetector | None:
        """The change detector (None until calibrated)."""
        return self._changes.detector

    @property
    def last_reading(self) -> TableReading | None:
        return self._vote.last

    @property
    def reach_log(self) -> list[tuple[int, Reach]]:
        """(the frame its arm came in, reach) for every reach handed out on a reading, in order."""
        return self._arms.log

    # --- the per-frame work -----------------------------------------------------------------

    def process(self, frame: np.ndarray, t: float | None = None) -> FrameReport:
        """Look at one frame; the report carries a new :class:`TableReading` when one is ready."""
        start = time.perf_counter()
        self.frames += 1
        seen = Frame(frame)  # (a camera may fill the same array with the next frame)
        t = self.clock() if t is None else t
        if self.view is None:
            try:
                self._new_view(self._calibrate.find(seen))
            except CalibrationFailed as exc:
                log.debug("no view yet: %s", exc)
                return FrameReport("no-view", _ms(start))
        changes = self._changes
        change, cur = changes.measure(seen)
        self._arms.update(cur, change, self.frames)
        if change.moving:
            self._vote.restart()
            changes.moving(change)
            return FrameReport("moving", _ms(start))
        if changes.settling():
            return FrameReport("settling", _ms(start))
        state, change = self._hands(seen, change, cur)
        if state is not None:
            return FrameReport(state, _ms(start))
        changed = changes.changed(change)
        if changes.nudged(changed) and self._camera_moved(seen):
            return FrameReport("calibrating", _ms(start))  # (before the light: a nudge stirs none)
        # a region that changed with nothing moving over it since it was read shows the same
        # card in other light (a glare highlight, a lamp): no card comes without a hand
        lit = changes.lit(cur, change, changed, self._vote.known)
        changed = [n for n in changed if n not in lit]
        changed += changes.touched_again(change, changed)
        todo = self._vote.todo(changed)
        if not todo and not self._vote.dirty and not self._pawn.dirty \
                and not self._arms.pending_draw():
            changes.follow_drift(cur, change)
            return FrameReport("quiet", _ms(start))
        read = self._read(seen, cur, self._vote.pick(todo))
        reading = self._vote.emit(t, self._pawn.reading, self._pawn.dirty, self._arms,
                                  self.view.source if self.view else "")
        if reading is not None:
            self._calibrate.settled(seen)  # to follow a nudge by
        return FrameReport("reading", _ms(start), reading, tuple(read))

    def _hands(self, frame: Frame, change: FrameChange,
               cur: np.ndarray) -> tuple[str | None, FrameChange]:
        """Hands over the table on a settled frame: the state that stops the frame there
        ("hands", "calibrating"), or None and the change to go on with."""
        changes = self._changes
        if change.hands and changes.hand_frames in (0, 3, 8):
            band = self._pawn.left_over_band(frame, self.view, change, changes.detector)
            if band is not None:  # the pawn left the board over the band: no hand
                changes.accept(cur, band)
                change = FrameChange(change.motion, change.change, False, False)
        if change.hands:
            n = changes.hands(change)
            if n in (1, 10) and self._camera_moved(frame, markers_only=True):
                return "calibrating", change
            if n < changes.band_waits(change) and not self._armless_band(frame):
                self._vote.restart()
                changes.touch(change)
                return "hands", change
            changes.take_band(cur)  # something lies still on the border: the table now
        changes.no_hands()
        # an arm the tracker follows with its hand at the cards, however faintly it changes the
        # band (a hand held still over the card it put down), is waited for, a while at most
        if changes.held(self._arms.hand_at_cards()):
            self._vote.restart()
            changes.touch(change)
            return "hands", change
        return None, change

    def _armless_band(self, frame: Frame) -> bool:
        """The band differs, still, and no arm crosses the mat's rim (for ``armless_frames``
        settled frames): what differs lies there (a card of a messy pile reaching into the
        band, a cup) and is no hand; the band takes it at once. Unless the camera moved."""
        if self._changes.hand_frames < self._changes.tuning.armless_frames \
                or not self._arms.none_over_rim():
            return False
        return not self._camera_moved(frame, markers_only=True)

    def _read(self, frame: Frame, cur: np.ndarray, todo: set[str]) -> list[str]:
        """Read the regions ``todo`` (and the pawn where a cell may have changed); the card
        regions read, in order."""
        names = sorted(todo - {"draw"})
        pawn_look = self.game == "grid" and (any(n.startswith("cell-") for n in todo)
                                             or self._pawn.dirty)
        sharp = unsmeared(frame, self.view, self.layout, names, pawn_look, self._pawn.near,
                          self._changes.tuning.unsmear_pad) if names or pawn_look else []
        if pawn_look and self._pawn.look(frame, self.view, sharp[0] if sharp else None):
            self._vote.dirty.add("pawn")
        # the card under the pawn: once a reading was given, the next keeps the card read there
        # before the pawn came (Vote.emit), so its weak read is not looked at again
        cell = self._pawn.standing_on if pawn_look and self._vote.last is not None else None
        covered = cell_name(*cell) if cell is not None else None
        for name, label, probs in self._regions.read(frame.image, self.view, self.layout,
                                                     names, sharp, covered=covered):
            self._vote.add(name, label, probs)
        settled = self._vote.settle(names, self._regions.settled) if names else []
        if settled:
            self._changes.accept(cur, settled)
        if "draw" in todo:
            self._vote.draw_changed()
            self._changes.accept(cur, ["draw"])
        return names

    # --- the camera's view ------------------------------------------------------------------

    def _new_view(self, view: View) -> None:
        """Every stage on the view ``view`` (the first, or the camera moved)."""
        moved = self._calibrate.moved_by(view)
        detector = self._changes.set_view(view)
        self._calibrate.view = view
        self._arms.set_view(view, detector, moved)

    def _camera_moved(self, frame: Frame, markers_only: bool = False) -> bool:
        """Look for the corner markers again (without markers: follow the table's texture, or
        the grid's cards; not under hands); start afresh on the new view if the camera moved."""
        view = self._calibrate.moved(frame, markers_only)
        if view is None:
            return False
        log.info("camera moved: new view (%s)", "followed" if view.source != "markers" else "markers")
        self._new_view(view)
        self._vote.anew()
        self._regions.forget()
        self._pawn.dirty = self.game == "grid"
        self._changes.quiet = 0
        return True

    def flush_reaches(self) -> list[tuple[int, Reach]]:
        """The reaches seen and not yet handed out on a reading (the end of a recording), as
        (the frame the arm came in, reach); those still waiting for the draw pile are unknown."""
        return self._arms.take(reading=False)

    def forget(self) -> None:
        """Read everything again on the next quiet frames (a new game was laid out)."""
        self._changes.forget()
        self._vote.forget()
        self._pawn.dirty = self.game == "grid"


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
