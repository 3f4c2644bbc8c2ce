"""Frames in, stable table readings out.

:class:`TableReader` watches a stream of frames of the table and, whenever the table has settled
after a change, produces a :class:`TableReading`: a frozen value with, for each grid cell and the
discard pile, the card read there with its class probabilities, where the pawn stands, how
many times the draw pile changed, and the arms seen over the table since the previous reading:
the side each came in by, where its hand went, the cards it took from the draw pile
(:mod:`vision.reaches`). The camera referee (:mod:`companion.referee.camera`) matches
those readings against the legal actions.

How a frame is handled (see :mod:`vision.stabilise`):

1. a small grey copy measures motion and change per region; a moving frame stops there (cheap);
2. hands over the table (the border band changed) pause reading;
3. after ``quiet_frames`` frames without motion, only the regions that differ from their
   reference are read again: the region is warped top-down, the card is found in it and
   classified; the reads of consecutive frames vote;
4. once every region being read has agreed, a new reading is produced (if anything changed,
   or an arm took from the draw pile or may have).

Every frame also goes to the arm tracker (:class:`vision.reaches.ArmTracker`), which follows
the arms over the table on the same small grey copy; their reaches go on the next reading.

The pawn is found by its marker (:mod:`vision.pawn`; what a hand leaves of it,
:mod:`vision.pawn_partial`); the cell it stands on keeps the card it covers from memory. When
most of the table seems to change at once, the camera may have been nudged: the corner markers
are looked for again and the view replaced if it moved.

Card classification goes through a *classifier*: anything with ``classify_many(cards) ->
[dict label -> probability]``. :class:`ModelClassifier` adapts the trained card model
(:class:`vision.recognize.CardReader`); :class:`TemplateClassifier` compares with the procedural
card art and needs no model (good on the synthetic table, weak on real cards).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

import cv2
import numpy as np

from companion.cards import BACK, FACE_SETS
from .geometry import (CARD_MM, REGION_NAMES, CalibrationFailed, Layout, LensModel, Region, View,
                       cell_name, follow_view, view_from_grid_cards,
                       view_from_markers)
from companion.reading import (EMPTY, NO_PAWN, PawnReading, Reach, RegionReading,
                               TableReading, look_difference)

from .card_shape import CARD_H, CARD_W, order_quad, rectify
from .desmear import Desmear
from .frame_smear import length_neighbours, measure_smear, unsmear_frame_each
from .pawn import find_pawn, search_boxes
from .pawn_partial import find_partly_hidden
from .pile import likeliest_placement, top_card
from .reaches import ArmTracker
from .rectify import NARROW_MARGIN, AskewFinder, rival_outlines
from .stabilise import ChangeDetector, FrameChange, Votes

__all__ = ["TableReading", "RegionReading", "TableReader", "FrameReport", "TemplateClassifier",
           "ModelClassifier", "default_classifier", "labels_for_game", "EMPTY", "locate_card",
           "look_difference"]

log = logging.getLogger(__name__)

#: The likeliest labels a region's reading keeps with their probabilities. The referee bounds
#: the probability of every label left out by what is left over (``legal_mass``): with only the
#: best four or six kept, a card read at 0.95 whose legal look-alikes share the rest could not be
#: called illegal, though the model had said how little they were worth.
READING_LABELS = 16
#: A card's fitted outline read no surer than this is looked at again: of the card outlines in
#: its patch, the one read most surely is taken when it reads surer (``vision.pile.top_card``:
#: only the top card shows whole). A card dropped askew on one of its own colour, or thrown
#: on a pile a little off, gets an outline between the two: the torture's askew red-reverse on
#: red-6 read red-1 at 0.59 (red-reverse at 0.95 from its own outline), its pink-8 on a
#: discard pile "no card" at 0.22 (pink-8 at 0.97).
WEAK_READ = 0.8
#: A card read as seen through a smear that the read with the measured smear taken out
#: contradicts (it names another card, more likely than the one seen, at
#: :data:`CONTRADICTING_READ` or more) is held within these odds of that card: still the
#: likeliest, never clear enough to commit on (the referee commits at odds of 8), so it is
#: asked about. (Motion blur, classic seed 24: cai's smeared blue-9 read blue-2 at 0.77 as seen
#: and blue-9 at 0.31 with the smear out, and blue-2 was committed.)
CONTRADICTED_ODDS = 4.0
CONTRADICTING_READ = 0.25
#: ... and the outline found replaces the read only when it reads this surely: the surest of a
#: dozen outlines is surer than the card shows where every outline is unsure (a blurred red-8
#: read red-0 at 0.78 from one of them, and was committed).
SURE_OUTLINE = 0.9
#: The camera's smear is taken out of a piece of the frame this many pixels (at least; a dozen
#: smears' length for a long one) wider on every side than what is read: a piece's edges ring
#: (a 7 px smear at 1280x720, the discard pile: within 3 grey levels of the whole frame's
#: pixels with 48 px, within 1 with 96 and more, a thousandth of a level on average).
UNSMEAR_PAD = 96


def _outline_key(quad) -> tuple[int, ...]:
    """An outline's corners to 3 pixels: the key under which what was found for it is kept
    while the frames vote on one change (each frame's outline of it differs by a pixel or two)."""
    return tuple(np.round(np.asarray(quad) / 3.0).astype(int).ravel())


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


# --- finding and classifying the card in a region ------------------------------------------------

def locate_card(patch: np.ndarray, px_per_mm: float, before: np.ndarray | None = None) -> np.ndarray | None:
    """The card's four corners in a top-down ``patch`` of one region, or None when it holds none.

    The cloth is the colour of the patch's edge; what differs from it is card. The card's
    outline is the rotated rectangle of the largest such blob, kept to a card's size. When the
    region held a card ``before`` (the patch as last read), the new card is what differs from
    it: the card below that peeks out of a stack is left out.

    What "differs" means follows the light: the cloth's own variation at the patch's edge (its
    noise and texture) sets the threshold, so that a dark card on dark cloth in dim light, where
    every difference shrinks, is still found (:data:`CARD_DIFF` in good light). When neither
    finds a card in a region that held one, what changed from ``before`` is looked at once more
    against the frames' own noise at the patch's edge (a dim blue card put on a yellow one in
    dim light: too close to the cloth and to the card below for the cloth's threshold); only a
    whole card's outline counts there.
    """
    edge = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]]).astype(np.float32)
    cloth = np.median(edge, 0)
    spread = float(np.percentile(np.abs(edge - cloth).sum(1), 90))
    threshold = float(np.clip(6.0 * spread, 0.4 * CARD_DIFF, CARD_DIFF))
    if before is not None and before.shape == patch.shape:
        moved = np.abs(patch.astype(np.int16) - before.astype(np.int16)).sum(2) > 1.5 * threshold
        moved = cv2.morphologyEx(moved.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        quad = _card_from_mask(moved, px_per_mm, strict=True)
        if quad is not None:
            return quad
    diff = np.abs(patch.astype(np.float32) - cloth).sum(2)
    quad = _card_from_mask((diff > threshold).astype(np.uint8), px_per_mm)
    if quad is None and before is not None and before.shape == patch.shape:
        # a dim card on a lit one in dim light (a blue card put on a yellow one): too close to
        # the cloth for the threshold its texture sets, and changed by less than that. What the
        # frames' own noise changed at the patch's edge (the cloth there lies as it lay) sets a
        # lower bar for what changed; the card's whole outline must still show (strict)
        step = np.abs(patch.astype(np.int16) - before.astype(np.int16)).sum(2)
        rim = np.concatenate([step[0], step[-1], step[:, 0], step[:, -1]])
        quiet = max(6.0 * float(np.percentile(rim, 90)), 0.4 * CARD_DIFF)
        if quiet < 1.5 * threshold:
            moved = cv2.morphologyEx((step > quiet).astype(np.uint8), cv2.MORPH_CLOSE,
                                     np.ones((5, 5), np.uint8))
            quad = _card_from_mask(moved, px_per_mm, strict=True)
    return quad


#: Summed |BGR| difference from the cloth that makes a pixel card in good light (in dim light,
#: down to 40 % of it, as the cloth's own variation shrinks).
CARD_DIFF = 60.0


def placed_card(patch: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The outline of a card lying square in the middle of a region's top-down ``patch``: where
    the region puts its card (corners clockwise from the upper short edge's left one)."""
    h, w = patch.shape[:2]
    cw, ch = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    return order_quad(cv2.boxPoints(((w / 2, h / 2), (cw, ch), 0.0)))


def _card_from_mask(mask: np.ndarray, px_per_mm: float, strict: bool = False) -> np.ndarray | None:
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    big = max(contours, key=cv2.contourArea)
    card_area = CARD_MM[0] * CARD_MM[1] * px_per_mm ** 2
    if cv2.contourArea(big) < 0.35 * card_area:
        return None
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(big)
    if rw > rh:  # keep the rectangle portrait: swap the sides and turn the angle
        rw, rh, ang = rh, rw, ang - 90
    cw, ch = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    fits = 0.85 * cw < rw < 1.15 * cw and 0.85 * ch < rh < 1.15 * ch
    if strict and not fits:
        return None
    if not (0.8 * cw < rw < 1.25 * cw and 0.8 * ch < rh < 1.25 * ch):
        # a stack peeking out, or a hand's shadow: the card's size, centred on the blob
        m = cv2.moments(big)
        if m["m00"] > 0:
            cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        rw, rh = cw, ch
        if abs(ang) > 20:
            ang = 0.0
    # corners clockwise from the upper short edge: the top-left one, the card lying portrait
    return order_quad(cv2.boxPoints(((cx, cy), (rw, rh), ang)))


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


def _top_of_pile(name, patch, quad, px_per_mm, classifier, before) -> dict[str, float] | None:
    """At first sight of a messy discard pile, the top card's probabilities (vision.pile)."""
    from .pile import is_stack, top_card

    if name != "discard" or before is not None or not is_stack(patch, px_per_mm):
        return None
    found = top_card(patch, px_per_mm, classifier, also=[quad])
    return None if found is None else found[1]


# --- the reader ----------------------------------------------------------------------------------

class TableReader:
    """Reads the table from frames. ``game`` (grid, flip, classic) says which regions matter.

    ``view`` is the camera's view of the mat; without one, the first frames calibrate it from the
    corner markers (``lens`` helps when the lens is known). ``clock`` stamps readings whose frames
    carry no time.
    """

    def __init__(self, game: str = "grid", *, view: View | None = None, layout: Layout = Layout(),
                 classifier=None, lens: LensModel | None = None, quiet_frames: int = 2,
                 votes: int = 2, read_px_per_mm: float = 1.4, recalibrate: bool = True,
                 max_reads: int = 7,
                 clock: Callable[[], float] = time.monotonic):
        self.game = game
        self.layout = layout
        self.lens = lens
        self.classifier = classifier if classifier is not None else default_classifier(game)
        self.quiet_frames = quiet_frames
        self.votes_needed = votes
        self.read_px = read_px_per_mm
        self.recalibrate = recalibrate
        #: regions read in one frame at most (a full re-read is spread: the frame time stays low)
        self.max_reads = max_reads
        self.clock = clock
        names = [n for n in REGION_NAMES if (n.startswith("cell-") and game == "grid")
                 or n in ("discard", "draw")]
        self.region_names = tuple(names)
        self.view = view
        self.detector: ChangeDetector | None = None
        self._arms: ArmTracker | None = None
        self._pile_wait = 0
        #: (the frame its arm came in, reach) for every reach handed out on a reading, in order
        self.reach_log: list[tuple[int, Reach]] = []
        if view is not None:
            self._make_detector(view)
        self._quiet = 0
        self._postponed: set[str] = set()
        self._votes = {n: Votes(votes) for n in names}
        self._pawn_votes: list[PawnReading] = []
        self._state: dict[str, RegionReading] = {}
        self._pawn: PawnReading = NO_PAWN
        self._pawn_mm: tuple[float, float] | None = None  # where the pawn was last seen (mm)
        self._draw_changes = 0
        self._seq = 0
        self._dirty: set[str] = set()
        self._pawn_dirty = game == "grid"
        self._last: TableReading | None = None
        self._hand_frames = 0
        self._held_frames = 0  # quiet frames in a row with a followed hand at the cards
        self.frames = 0
        self._patches: dict[str, np.ndarray] = {}          # each region as last settled
        #: (region, outline of what changed) -> the top card's outline found there (vision.pile);
        #: (region, "surer", outline read weakly) -> a surer card outline there, or None
        self._placed: dict[tuple, np.ndarray | None] = {}
        self._pending_patches: dict[str, np.ndarray] = {}
        #: each region as last settled with the camera's smear taken out (and being read)
        self._sharp_patches: dict[str, np.ndarray] = {}
        self._pending_sharp: dict[str, np.ndarray] = {}
        self._askew = AskewFinder()  # a card dropped askew reaches out of its region's patch
        self._desmear = Desmear()  # a camera's smear taken out of the pawn's marker
        self._quiet_gray: np.ndarray | None = None  # the table at the last reading (no markers)
        self._grey: tuple[np.ndarray, np.ndarray] | None = None  # (frame, its grey): _grey_of
        self._touched: set[str] = set()  # regions a hand or arm was over since the last look
        self._smeared = False  # the whole picture moved at once since the last look

    def _make_detector(self, view: View) -> None:
        moved = view.moved_by(self.view, self.layout) if self.view is not None else math.inf
        regions = {n: self.layout.regions[n] for n in self.region_names}
        if self.detector is None:
            self.detector = ChangeDetector(view, self.layout, regions)
        else:
            self.detector.set_view(view)
        self.view = view
        det = self.detector
        old = self._arms
        self._arms = ArmTracker(view, self.layout, det.boxes, det.scale, det.small_size,
                                motion_threshold=det.motion_threshold)
        if old is not None:  # a new view: the arms seen so far still count
            self._arms.carry(old, same_place=moved < 8.0)

    @property
    def last_reading(self) -> TableReading | None:
        return self._last

    # --- the per-frame work -----------------------------------------------------------------

    def process(self, frame: np.ndarray, t: float | None = None) -> FrameReport:
        """Look at one frame; the report carries a new :class:`TableReading` when one is ready."""
        start = time.perf_counter()
        self.frames += 1
        self._grey = None  # (a camera may fill the same array with the next frame)
        t = self.clock() if t is None else t
        if self.view is None:
            try:
                self._make_detector(self._find_view(frame))
            except CalibrationFailed as exc:
                log.debug("no view yet: %s", exc)
                return FrameReport("no-view", _ms(start))
        change, cur = self.detector.measure(self._grey_of(frame))
        self.last_change = change
        self._arms.update(cur, change, self.frames)
        if change.moving:
            self._quiet = 0
            self._restart_votes()
            if change.whole:  # the camera's smear or jolt touches no card ...
                self._smeared = True
            else:
                self._note_touched(change)
            return FrameReport("moving", _ms(start))
        self._quiet += 1
        if self._quiet < self.quiet_frames:
            return FrameReport("settling", _ms(start))
        if change.hands and self._hand_frames in (0, 3, 8) and self._pawn_on_band(frame, change, cur):
            change = FrameChange(change.motion, change.change, False, False)
        if change.hands:
            self._hand_frames += 1
            if self._hand_frames in (1, 10) and self._camera_moved(frame, markers_only=True):
                return FrameReport("calibrating", _ms(start))
            # an arm changes the band a lot; a band piece barely over the line and still (a
            # shadow's edge, light that turned) is taken as the table after a few frames
            strong = any(v > 1.6 * self.detector.band_threshold for n, v in change.change.items()
                         if n.startswith("band"))
            if self._hand_frames < (20 if strong else 5) and not self._armless_band(frame):
                self._restart_votes()
                self._note_touched(change)
                return FrameReport("hands", _ms(start))
            # something lies still on the border (a cup, a phone): it is the table now
            self.detector.accept(cur, [n for n in self.detector.boxes if n.startswith("band")])
        self._hand_frames = 0
        if self._arms.hand_at_cards():
            # an arm the tracker follows has its hand at the cards, however faintly it changes
            # the band (dim light: a hand held still over the card it put down, its fingers over
            # the card, was read as part of the card). It is waited for, a while at most (an
            # arm that is no arm: the tracker lets it go after a still second)
            self._held_frames += 1
            if self._held_frames <= HELD_HAND_FRAMES:
                self._restart_votes()
                self._note_touched(change)
                return FrameReport("hands", _ms(start))
        else:
            self._held_frames = 0
        th = self.detector.change_threshold
        changed = [n for n in self.region_names if change.change.get(n, 0) > th]
        if (self.recalibrate and self.detector.reference is not None
                and len(changed) > 0.6 * len(self.region_names) and self._camera_moved(frame)):
            return FrameReport("calibrating", _ms(start))  # (before the light: a nudge stirs none)
        # a region that changed with nothing moving over it since it was read shows the same
        # card in other light (a glare highlight, a lamp): no card comes without a hand
        lit = [n for n in changed if n not in self.detector.stirred and n not in self._touched
               and math.isfinite(change.change[n]) and (n in self._state or n == "draw")]
        if lit:
            self.detector.accept(cur, lit)
            changed = [n for n in changed if n not in lit]
        # a region a hand was over and that now differs a little from before: a card may lie
        # there almost exactly where the same face lay (read again; the referee compares looks)
        changed += [n for n in self._touched if n not in changed
                    and change.change.get(n, 0) > TOUCHED_CHANGE]
        self._touched.clear()
        self._smeared = False
        voting = {n for n in self.region_names if len(self._votes[n])}
        todo = set(changed) | voting | self._postponed
        if not todo and not self._dirty and not self._pawn_dirty and not self._arms.pending_draw():
            self.detector.follow_drift(cur, change)
            return FrameReport("quiet", _ms(start))
        self._postponed = set()
        if len(todo) > self.max_reads:
            # a whole table to read (a new game, the camera nudged): spread it over frames,
            # finishing the regions already voting first; the others wait their turn (their
            # reference may be taken meanwhile with the first settled ones)
            picked = set(sorted(todo, key=lambda n: (n not in voting, n))[:self.max_reads])
            self._postponed = todo - picked
            todo = picked
        grid_touched = any(n.startswith("cell-") for n in todo)
        names = sorted(todo - {"draw"})
        pawn_look = self.game == "grid" and (grid_touched or self._pawn_dirty)
        sharp = self._unsmeared(frame, names, pawn_look) if names or pawn_look else []
        read = self._read_regions(frame, names, cur, sharp)
        if "draw" in todo:
            self._draw_changes += 1 if self._last is not None or self._seq else 0
            self.detector.accept(cur, ["draw"])
            self._votes["draw"].clear()
            self._dirty.add("draw")
        if pawn_look:
            # (the pawn's marker with the smear out is found as in a sharp frame; a smear
            # measured a little off leaves the marker to the pawn's own bank of smears)
            self._vote_pawn(frame, sharp[0] if sharp else None)
        reading = self._maybe_emit(t)
        if reading is not None and self.recalibrate:
            self._quiet_gray = self._grey_of(frame)  # to follow a nudge by
        return FrameReport("reading", _ms(start), reading, tuple(read))

    def _grey_of(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` in grey (read-only), worked out once a frame: the change detector, the
        smear's measure, the pawn's search and the camera's check each took it afresh."""
        if self._grey is None or self._grey[0] is not frame:
            # (a grey frame copied: the grey is kept as the quiet table's, and a camera may
            # refill the frame's array)
            grey = frame.copy() if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            grey.flags.writeable = False
            self._grey = (frame, grey)
        return self._grey[1]

    def _armless_band(self, frame: np.ndarray) -> bool:
        """The band differs, still, and no arm crosses the mat's rim (the arm tracker follows
        none, for :data:`ARMLESS_FRAMES` quiet frames): what differs lies there (a card of a
        messy pile reaching into the band, a cup) and is no hand; the band takes it at once
        rather than after 20 frames. (Askew classic seed 9: ann's green-5, thrown askew on the
        discard pile, reached into the band, the reader waited for a hand that had gone, ben
        played on it first and the green-5 was never read.) Unless the camera moved."""
        if self._hand_frames < ARMLESS_FRAMES or self._arms.arms or self._arms.still is None:
            return False
        return not self._camera_moved(frame, markers_only=True)

    def _unsmeared(self, frame: np.ndarray, names: list[str], pawn_look: bool) -> list[np.ndarray]:
        """The frame with the camera's smear taken out when the corner markers show one
        (:mod:`vision.frame_smear`): through the smear measured first, then through the
        next shorter smear of the bank (:func:`~vision.frame_smear.length_neighbours`); none
        for a sharp frame. Only where the regions ``names`` (and, with ``pawn_look``, the
        pawn's search) will look is it taken out: the rest of the frame is left as it is,
        never read (a pile game's discard pile is a tenth of the frame, and the filter's work
        goes with the pixels)."""
        if self.view is None or self.view.source == "grid":  # (no markers to measure on)
            return []
        smear = measure_smear(self._grey_of(frame), self.view, self.layout)
        if smear is None:
            return []
        smears = length_neighbours(smear)
        corners = [self.view.region_quad(self.layout.regions[n], NARROW_MARGIN + 2.0) for n in names]
        if pawn_look:
            near = self._pawn.mm if self._pawn.seen else None
            corners += [self.view.region_quad(Region("pawn", *box))
                        for box in search_boxes(self.layout, near)]
        h, w = frame.shape[:2]
        # (the filter is worked on a piece with a margin round what is read: a piece's own edges
        # ring; from UNSMEAR_PAD px in, it gives the whole frame's pixels within 1)
        pad = max(UNSMEAR_PAD, 12 * max(n for n, _ in smears))
        pts = np.concatenate([np.asarray(c, np.float32).reshape(-1, 2) for c in corners])
        x0, y0 = np.clip(np.floor(pts.min(0)) - 1, 0, [w, h]).astype(int)
        x1, y1 = np.clip(np.ceil(pts.max(0)) + 2, 0, [w, h]).astype(int)
        px0, py0, px1, py1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
        if (px1 - px0) * (py1 - py0) >= 0.7 * w * h:
            return unsmear_frame_each(frame, smears)
        out = []
        for piece in unsmear_frame_each(frame[py0:py1, px0:px1], smears):
            sharp = frame.copy()
            sharp[y0:y1, x0:x1] = piece[y0 - py0:y1 - py0, x0 - px0:x1 - px0]
            out.append(sharp)
        return out

    def _note_touched(self, change: FrameChange) -> None:
        """Card regions something moved over (not the draw pile: no card is read there)."""
        th = self.detector.change_threshold
        # ... and after it, every region differs from its reference: touched are only those
        # something moved over (stirred; in dim light an arm may stir too little to say)
        self._touched |= {n for n in self.region_names
                          if n != "draw" and change.change.get(n, 0) > th
                          and (not self._smeared or n in self.detector.stirred)}

    def _restart_votes(self) -> None:
        """Something moves over the table: votes cast before it may show what it has since
        changed (a card put down while a region was half read), so those regions are read again
        from scratch once the table is quiet. Otherwise a region could settle on the old card
        while taking the new one as its reference, and never see the change."""
        for name, v in self._votes.items():
            if name != "draw" and len(v):
                v.clear()
                self._postponed.add(name)

    def _pawn_on_band(self, frame: np.ndarray, change: FrameChange, cur: np.ndarray) -> bool:
        """The border band changed only where the pawn now lies (it left the board over the
        edge): that is no hand. The band takes it as its reference at once."""
        if self.game != "grid":
            return False
        det = self.detector
        changed = [n for n, v in change.change.items()
                   if n.startswith("band") and v > det.band_threshold]
        pawn = find_pawn(self._grey_of(frame), self.view, self.layout)
        if not pawn.seen or pawn.on_board or pawn.mm is None:
            return False
        x, y = pawn.mm
        reach = self.layout.pawn_marker_mm + 15.0  # the pawn's body and shadow around its marker
        for name in changed:
            b = det.region(name)
            if not (b.x0 - reach <= x <= b.x1 + reach and b.y0 - reach <= y <= b.y1 + reach):
                return False
        det.accept(cur, changed)
        self._pawn_dirty = True
        return True

    def _find_view(self, frame: np.ndarray, markers_only: bool = False) -> View:
        """The view from the corner markers; without them (grid game), from the grid's cards."""
        try:
            return view_from_markers(frame, self.layout, self.lens)
        except CalibrationFailed as exc:
            if self.game != "grid" or markers_only:
                raise
            try:
                return view_from_grid_cards(frame, self.layout, self.lens)
            except CalibrationFailed as grid_exc:
                raise CalibrationFailed(f"{exc}; and {grid_exc}") from grid_exc

    def _camera_moved(self, frame: np.ndarray, markers_only: bool = False) -> bool:
        """Look for the corner markers again (without markers: follow the table's texture, or
        the grid's cards; not under hands); replace the view if the camera moved."""
        if not self.recalibrate:
            return False
        view = None
        if self._quiet_gray is not None:
            # the table's texture says first whether the camera moved at all: a smear that
            # turns shifts the markers' detected corners by 10-20 px, the texture by < 1 px.
            # Without markers, the old view is carried over by it (exact): the grid's cards lie
            # a few millimetres off their places (a rough view), and a pawn or a hand on one of
            # them hides it
            followed = follow_view(self.view, self._quiet_gray, self._grey_of(frame))
            moved = followed.moved_by(self.view, self.layout) if followed is not None else math.inf
            if moved < 1.5:
                return False
            if moved < _MAX_FOLLOW_PX and self.view.source != "markers" and not markers_only:
                view = followed
        if view is None:
            try:
                view = self._find_view(frame, markers_only)
            except CalibrationFailed:
                return False
            if view.moved_by(self.view, self.layout) < (1.5 if view.source == "markers" else 8.0):
                return False
        log.info("camera moved: new view (%s)", "followed" if view.source != "markers" else "markers")
        self._make_detector(view)
        for v in self._votes.values():
            v.clear()
        self._patches.clear()
        self._sharp_patches.clear()
        self._placed.clear()
        self._askew.forget()
        self._dirty |= set(self.region_names)
        self._pawn_dirty = self.game == "grid"
        self._quiet = 0
        return True

    def _read_regions(self, frame: np.ndarray, names: list[str], cur: np.ndarray,
                      sharp: list[np.ndarray] = ()) -> list[str]:
        """Read the regions ``names`` in ``frame``. ``sharp``: the frame with the camera's
        smear taken out, through each smear tried (:meth:`_unsmeared`; the measured one
        first). Where each card lies and how each region looks (what the referee compares
        from one reading to the next) come from the frame as the camera saw it; a card is also
        read from each of ``sharp``, and the surest of those reads that the read as seen
        supports is taken (:func:`_surest_supported`). (A smear taken out along a line a
        little off leaves ripples, which hid a card's outline or made another, and differ
        with the line: the same card would look different from one smear to the next.)"""
        if not names:
            return []
        patches, kept = [], []
        sharpened: dict[int, list[int]] = {}  # kept index -> where its reads from ``sharp`` are
        looked: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # region -> (patch, outline) read
        wide: set[str] = set()  # regions read from the askew finder's wide patch
        placed: set[str] = set()  # regions read where their card would lie (no outline found)
        for name in names:
            region = self.layout.regions[name]
            # the piles too: a card lying well off a pile's place (a messy pile, a card dropped
            # askew) is read whole from the askew finder's wider look; a 20 mm margin for the
            # piles hid such a card from it (read as no card: tests/referee/test_hard_light_and_noise.py)
            patch = self.view.warp_region(frame, region, self.read_px, margin=NARROW_MARGIN)
            quad = locate_card(patch, self.read_px, self._patches.get(name))
            self._pending_patches[name] = patch
            askew = self._askew.look(frame, self.view, region, name, self.read_px, patch,
                                     self._patches.get(name), quad)
            if askew is not None:  # the card reaches out of the patch: read it whole
                patch, quad = askew
                wide.add(name)
            if quad is None:
                # no outline told from the cloth (a dark card on dark cloth in dim light: a
                # blue-9 on the grid read "no card" at 1.0 in every reading, and the play on it
                # was missed): a card, if any, lies where the region puts it, and the model
                # says whether one surely does
                patches.append(rectify(patch, placed_card(patch, self.read_px), (CARD_W, CARD_H)))
                kept.append(name)
                placed.add(name)
                continue
            top = _top_of_pile(name, patch, quad, self.read_px, self.classifier,
                               self._patches.get(name))
            if top is not None:
                self._votes[name].add(max(top, key=top.get), top)
                continue
            if name in self._patches and askew is None:
                # what changed may be short of the new card (its print on the same print below)
                # or hold the card below too: the top card's outline is looked for (once per
                # change: the frames that vote on it show the same)
                key = (name, _outline_key(quad))
                if key not in self._placed:
                    self._placed[key] = likeliest_placement(patch, quad, self.read_px)
                quad = self._placed[key]
            patches.append(rectify(patch, quad, (CARD_W, CARD_H)))
            if sharp and askew is None:
                clears = [self.view.warp_region(s, region, self.read_px, margin=NARROW_MARGIN)
                          for s in sharp]
                # the outline found with the measured smear out is sharper, when it is the same
                # outline (the other smears' ripples would move it: one outline for all)
                found = locate_card(clears[0], self.read_px, self._sharp_patches.get(name))
                outline = _same_outline(found, quad, self.read_px)
                self._pending_sharp[name] = clears[0]
                sharpened[len(kept)] = list(range(len(patches), len(patches) + len(clears)))
                patches.extend(rectify(clear, outline, (CARD_W, CARD_H)) for clear in clears)
            looked[name] = (patch, quad)
            kept.append(name)
        classified = self.classifier.classify_many(patches)
        second = {i for where in sharpened.values() for i in where}
        reads = [p for i, p in enumerate(classified) if i not in second]
        for k, (name, probs) in enumerate(zip(kept, reads)):
            if k in sharpened:
                sharp_reads = [classified[i] for i in sharpened[k]]
                taken = _surest_supported(sharp_reads, probs)
                probs = taken if taken is not probs else _contradicted(sharp_reads[0], probs)
            if name in placed:
                # a card only where the model reads one surely (SURE_OUTLINE): a weak read of
                # a dim patch is no card, as before (the referee lets "no card" be where a card
                # lies; asked about, weak reads of dim cloth added 3.7 questions per 100 actions)
                best = max(probs, key=probs.get)
                if best in (EMPTY, "none") or probs[best] < SURE_OUTLINE:
                    self._votes[name].add(EMPTY, {EMPTY: 1.0})
                    continue
            label = max(probs, key=probs.get)
            # "no card" read where a card reaches out of the region, or on the discard pile,
            # where a card always lies once the round has begun: the outline fitted may hold
            # more cloth than card (a Flip pile turned over askew, the lower card peeking out,
            # read "no card" at 0.88 from a straight outline: askew Flip seed 21), so the
            # likeliest card outline in the patch is read instead
            reaching_out = label == EMPTY and (name in wide or name == "discard")
            if probs[label] <= WEAK_READ or reaching_out:
                probs = self._surer_outline(name, *looked[name], probs, any_card=reaching_out,
                                            rivals=name in wide)
                label = max(probs, key=probs.get)
            self._votes[name].add(label, probs)
        settled = []
        for name in names:
            v = self._votes[name]
            if v.stable or v.exhausted:
                if name in self._pending_patches:
                    self._patches[name] = self._pending_patches.pop(name)
                if name in self._pending_sharp:
                    self._sharp_patches[name] = self._pending_sharp.pop(name)
                else:
                    self._sharp_patches.pop(name, None)
                self._askew.settled(name)
                label, probs, agreed = v.result()
                self._placed = {k: q for k, q in self._placed.items() if k[0] != name}
                self._state[name] = RegionReading.of(probs, agreed, top=READING_LABELS,
                                                     look=_look(self._patches.get(name)))
                v.clear()
                settled.append(name)
                self._dirty.add(name)
        if settled:
            self.detector.accept(cur, settled)
        return names

    def _surer_outline(self, name: str, patch: np.ndarray, quad: np.ndarray,
                       probs: dict[str, float], any_card: bool = False,
                       rivals: bool = False) -> dict[str, float]:
        """A weak read of a card's fitted outline (its likeliest label at no more than
        :data:`WEAK_READ`) looked at again: the fit may land between the card and the one below
        (a card dropped askew on one of its own colour, thrown on a pile a little off) and hold
        cloth or the card below more than the card. Of the card outlines in the patch (the wide
        one for a card reaching out of its region), the one read most surely as a card, as at
        the first sight of a messy pile (only the top card shows whole), replaces the read when
        it is surer and sure (:data:`SURE_OUTLINE`), or whenever it is a card (``any_card``:
        "no card" read where a card reaches out of the region). The outline found is kept for the
        frames that vote on the same change. ``rivals``: ``patch`` is the askew finder's wide
        patch (a card reaching out of its region); the outlines there at other turns that nearly
        tie with the strongest are looked at too (:func:`vision.rectify.rival_outlines`)."""
        key = (name, "surer", _outline_key(quad))
        if key not in self._placed:
            also = [quad] + (rival_outlines(patch, self.read_px, quad) if rivals else [])
            found = top_card(patch, self.read_px, self.classifier, also=also)
            self._placed[key] = None if found is None else found[0]
            if found is None:
                return probs
            alt = found[1]
        elif self._placed[key] is None:
            return probs
        else:
            alt = self.classifier.classify_many(
                [rectify(patch, self._placed[key], (CARD_W, CARD_H))])[0]
        best = max(alt, key=alt.get)
        surer = best not in (EMPTY, "none") and (
            any_card or alt[best] >= max(SURE_OUTLINE, max(probs.values())))
        return alt if surer else probs

    def _vote_pawn(self, frame: np.ndarray, sharp: np.ndarray | None = None) -> None:
        if sharp is not None:
            found = find_pawn(cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY), self.view, self.layout,
                              near=self._pawn.mm if self._pawn.seen else None)
            if found.seen:
                self._pawn_votes.append(found)
                self._count_pawn_votes()
                return
        # (a smeared marker is looked for where the pawn was last seen: it cannot vanish; before
        # any sighting, around the centre cell, where every game starts it)
        seen = find_pawn(self._grey_of(frame), self.view, self.layout, near=self._pawn.mm if self._pawn.seen else None,
                         desmear=self._desmear,
                         smeared_near=self._pawn.mm or self.layout.cell_center(2, 2))
        if not seen.seen and self._pawn_mm is not None:
            # a hand resting by the pawn over a corner of its marker: what is left of the marker
            # is read, within a step of where the pawn was last seen
            seen = find_partly_hidden(sharp if sharp is not None else frame, self.view, self.layout,
                                      self._pawn_mm)
        self._pawn_votes.append(seen)
        self._count_pawn_votes()

    def _count_pawn_votes(self) -> None:
        """Settle the pawn when its votes agree (or it stayed unseen long enough)."""
        votes = self._pawn_votes
        seen = votes[-1]
        need = self.votes_needed
        sightings = [p for p in votes if p.seen]
        misses = _trailing_misses(votes)
        # a pawn cannot vanish from the table: its marker missed in a frame or two (compression,
        # glare, a small marker in noise) is no news; the places it was seen vote among themselves
        if len(sightings) >= need and len({p.cell for p in sightings[-need:]}) == 1:
            self._settle_pawn(sightings[-1])
        elif misses >= (need if not self._pawn.seen else 3 * need):
            self._settle_pawn(seen)  # missing for long (lifted off, hidden): not seen
        elif len(votes) > 4 * need + 2:
            # the votes never agreed: say where the pawn was last seen, but not that it is seen
            # there now (a stale place reported as seen was once called an illegal move)
            self._settle_pawn(PawnReading(self._pawn.cell, self._pawn.mm, False))
        else:
            # no agreement yet: keep voting on the next frames, quiet ones included, and hold the
            # reading back meanwhile (it would carry the pawn's old place)
            self._pawn_dirty = True

    def _settle_pawn(self, pawn: PawnReading) -> None:
        if pawn.cell != self._pawn.cell or pawn.seen != self._pawn.seen:
            self._dirty.add("pawn")
        self._pawn = pawn
        if pawn.seen and pawn.mm is not None:
            self._pawn_mm = pawn.mm
        self._pawn_votes.clear()
        self._pawn_dirty = False

    def _maybe_emit(self, t: float) -> TableReading | None:
        if any(len(v) for n, v in self._votes.items() if n != "draw") or self._pawn_dirty \
                or self._postponed - {"draw"}:
            return None
        if not self._dirty and not self._arms.pending_draw():
            return None
        if any(not a.decided for a in self._arms.done) and self._pile_wait < PILE_WAIT:
            self._pile_wait += 1  # a reach waits for the draw pile's verdict: a frame or two
            return None
        if self.game == "grid" and any(cell_name(r, c) not in self._state
                                       for r in range(5) for c in range(5)):
            return None
        cells: tuple[RegionReading, ...] = ()
        if self.game == "grid":
            prev = self._last
            out = []
            for r in range(5):
                for c in range(5):
                    name = cell_name(r, c)
                    reading = self._state[name]
                    if self._pawn.on_board and self._pawn.cell == (r, c) and prev is not None:
                        # the pawn covers the card: keep the card read before it came
                        before = prev.cell(r, c)
                        reading = RegionReading(before.label, before.confidence, before.probs,
                                                before.agreed, True, before.look)
                        self._state[name] = reading
                    out.append(reading)
            cells = tuple(out)
        self._seq += 1
        changed = tuple(sorted(self._dirty))
        self._dirty = set()
        self._pile_wait = 0
        came = self._arms.take(force=True)
        self.reach_log += came
        reading = TableReading(self._seq, t, cells, self._state.get("discard"), self._pawn,
                               self._draw_changes, changed, self.view.source if self.view else "",
                               tuple(r for _, r in came))
        self._last = reading
        return reading

    def flush_reaches(self) -> list[tuple[int, Reach]]:
        """The reaches seen and not yet handed out on a reading (the end of a recording), as
        (the frame the arm came in, reach); those still waiting for the draw pile are unknown."""
        came = self._arms.take(force=True) if self._arms is not None else []
        self.reach_log += came
        return came

    def forget(self) -> None:
        """Read everything again on the next quiet frames (a new game was laid out)."""
        if self.detector is not None:
            self.detector.reference = None
        self._state.clear()
        self._last = None
        self._pawn_dirty = self.game == "grid"


#: Quiet frames the band may differ with no arm over the mat's rim before what differs is taken
#: as the table (the arm tracker lets an arm go two frames after it left).
ARMLESS_FRAMES = 3

#: Quiet frames a reading waits for the draw pile's verdict on a reach (then: unknown).
PILE_WAIT = 10
#: Quiet frames at most that a reading waits while a followed arm's hand is at the cards (half a
#: second at 30 fps: a hand held still over the card it put down is waited out; two seconds
#: held every reading back while something the tracker took for an arm lay by the cards, and at
#: 640x480 a grid game's five turns went by unread, grid seed 6).
HELD_HAND_FRAMES = 15

#: Change (the detector's measure) that makes a region a hand was over worth reading again;
#: sensor noise and compression stay near 0.3, a card put down where its twin lay about 1.
TOUCHED_CHANGE = 0.8

#: A nudge followed by the table's texture moves the play area's corners by less than this
#: (more is a bad match: the grid's cards calibrate the view again instead).
_MAX_FOLLOW_PX = 120.0


def _trailing_misses(votes: list[PawnReading]) -> int:
    """How many of the last pawn votes in a row missed the marker."""
    n = 0
    for vote in reversed(votes):
        if vote.seen:
            break
        n += 1
    return n


def _same_outline(sharp, seen, px_per_mm: float):
    """The card's outline found with the smear taken out (``sharp``) when it is the one found as
    the camera saw it (``seen``: centres within 4 mm, turned alike), else ``seen``."""
    if sharp is None or seen is None:
        return seen
    a, b = np.asarray(sharp, np.float32).reshape(4, 2), np.asarray(seen, np.float32).reshape(4, 2)
    near = np.linalg.norm(a.mean(0) - b.mean(0)) <= 4.0 * px_per_mm

    def turn(q):
        return np.degrees(np.arctan2(q[1, 1] - q[0, 1], q[1, 0] - q[0, 0]))

    alike = abs((turn(a) - turn(b) + 90.0) % 180.0 - 90.0) <= 6.0
    return sharp if near and alike else seen


def _supported(sharp: dict[str, float], seen: dict[str, float]) -> dict[str, float]:
    """A card's read with the smear taken out (``sharp``) when it is surer than the read as the
    camera saw it (``seen``) and ``seen`` supports it: the card it names is among the three
    ``seen`` finds likeliest. Otherwise ``seen`` (ripples left by a smear taken out along a line
    a little off can read as another card, or as none: a weak read is asked about, a wrong sure
    one could be committed)."""
    best = max(sharp, key=sharp.get)
    likeliest = sorted(seen, key=seen.get, reverse=True)[:3]
    if best in (EMPTY, "none") or best not in likeliest or sharp[best] <= max(seen.values()):
        return seen
    return sharp


def _contradicted(sharp: dict[str, float], seen: dict[str, float]) -> dict[str, float]:
    """The read as seen (``seen``), with the card that the read with the measured smear taken
    out (``sharp``) names instead raised to within :data:`CONTRADICTED_ODDS` of the card seen,
    where ``sharp`` finds its card likelier than the one seen and at :data:`CONTRADICTING_READ`
    or more; else ``seen`` as it is. (The card seen stays the likeliest: taking the mean of the
    two reads instead once made a filter's ripples the likeliest card, and a wrong card was
    committed.)"""
    seen_best = max(seen, key=seen.get)
    named = max(sharp, key=sharp.get)
    if named in (EMPTY, "none", seen_best) or sharp[named] < CONTRADICTING_READ \
            or sharp[named] <= sharp.get(seen_best, 0.0):
        return seen
    floor = seen[seen_best] / CONTRADICTED_ODDS
    if seen.get(named, 0.0) >= floor:
        return seen
    raised = dict(seen)
    raised[named] = floor
    total = sum(raised.values())
    return {label: p / total for label, p in raised.items()}


def _surest_supported(sharp: list[dict[str, float]], seen: dict[str, float]) -> dict[str, float]:
    """Of a card's reads with the smear taken out, one per smear tried (``sharp``), the surest
    that :func:`_supported` takes over the read as seen; else ``seen``. (A smear taken out
    2 px too long rings, and the card reads weakly: the right length reads surest.)"""
    best = seen
    for read in sharp:
        if _supported(read, seen) is read and (best is seen or max(read.values()) > max(best.values())):
            best = read
    return best


def _look(patch: np.ndarray | None) -> np.ndarray | None:
    """A region's look: its top-down patch, grey (in mat coordinates, so a nudged camera's new
    view still compares with the old one)."""
    if patch is None:
        return None
    return cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
