"""Read every card in a photo: the public card-reading API of :mod:`vision`.

>>> reader = CardReader()                                  # doctest: +SKIP
>>> for s in reader.read(cv2.imread("table.jpg")):         # doctest: +SKIP
...     print(s.label, s.confidence, s.runners_up, s.center)

* :meth:`CardReader.read` finds card outlines (:mod:`vision.detect`), rectifies each to the
  canonical portrait card, balances its colour against its own white and black print
  (:mod:`vision.color`) and classifies them in batches with the small ONNX model run by OpenCV's
  dnn module: first the largest of each group of near-identical outlines, then the rest of the
  groups whose largest is not surely a card (:data:`GROUP_IOU`), one outline of a group at a
  time until one is surely a card, except where the cards read surely explain them
  (:data:`MASK_SURE`; where the largest reads ``none``, also where they cover it; where a card
  read surely inside the largest reads as it does) or the largest is surely no card
  (:data:`REST_UNLESS_NONE`); an outline met twice is read once. Outlines that hold several
  cards (a blob of touching cards, a table region: :data:`DEFER_AREA`) and the whole frame are
  read last, and only where two cards read surely inside them (for a blob, :data:`BLOB_HOLDS` of
  each) do not explain them (nor, for a blob, where they cover it). Outlines
  the model calls ``none`` (table, phone, pawn, rules sheet, hand, a quad that misses the
  card) are dropped; overlapping outlines of one card are merged.
* :meth:`CardReader.classify` reads one already rectified card (e.g. a grid cell).

Confidence is the model's probability of the label among the deck's labels and ``none``; the
runners-up are the next most likely labels, for the referee to decide when to ask.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASSES, DECKS, NONE, DeckFilter
from vision.color import normalize_card
from vision.onnx_model import OnnxModel
from vision.detect import (CARD_H, CARD_RATIO, CARD_W, find_field_quads, find_quads_sized, order_quad,
                           quad_iou, rectify)

__all__ = ["CardReader", "CardSighting", "CardReading", "MODEL_PATH", "DECKS"]

MODEL_PATH = Path(__file__).resolve().parent / "models" / "cards.onnx"
#: The whole frame is read as one card (a close-up) only with at least this confidence.
WHOLE_FRAME_CONFIDENCE = 0.9
#: A photo gets a second look for cards (the biggest coloured field of each hue) unless at least
#: SECOND_LOOK_UNLESS cards are read with SURE confidence: a close-up or a hand-held card, whose
#: outline fingers break and whose centre oval may be read alone, not a table of cards.
SURE = 0.95
SECOND_LOOK_UNLESS = 2
#: A sighting's outline is replaced by the largest same-label candidate around it up to this many
#: times its area: the card's own outline, when the kept one was its field (0.7 of the card) or
#: its centre oval (0.4-0.5).
OUTLINE_GROWTH = 2.5
#: ... and only onto an outline read as a card itself with at least this card mass (1 - p(none)):
#: a card read surely on an outline a little large (a black wild draw four on a dark table,
#: 1.4 card areas, read at 0.96) was otherwise grown onto an outline of 2.4 card areas round it
#: and its neighbour's edge, read with a card mass of 0.61 (0.48 its label), whose corners show no
#: index, and reported there at half its confidence. A card's own outline round its field or oval is read as a card
#: (0.97-1.0 where the growth was right). 0 turns it off.
GROWN_MASS = 0.7
#: Outlines overlapping by this IoU are one group (mostly one card: its outline, its field grown
#: by the border, the same from another map). Only the largest of a group is read first; the
#: others are read only when it is not surely a card (CARD_SURE).
GROUP_IOU = 0.7
#: A group's largest outline settles its group when its best label has at least this probability
#: (``none`` counted): every outline of one card reads the same face, the others would only repeat
#: it. (A card mass of 0.99 or 0.999 alone is not enough: a pink 7 read as purple 7 with the mass
#: all on cards lost its group's better outlines. Lower: fewer outlines read a photo; higher:
#: a face misread on its largest outline is read again on the others more often. Not reading the
#: rest of a group whose largest outline is surely no card, p(none) >= 0.9, can lose a card.)
CARD_SURE = 0.8
#: Nor is the rest of a group read whose largest outline is ``none`` with at least this
#: probability (at 0.9 a composite wild was lost: its largest outline read ``none`` at 0.90 and
#: another outline of its group read it; no group's rest whose largest outline read ``none`` at
#: 0.36-0.90 found a card on the photo benchmark's and ``companion evaluate``'s tables).
REST_UNLESS_NONE = 0.95
#: An outline lying inside (:data:`HOLD_INSIDE` of its area within) an outline read as a card
#: with at least this probability is not read: it is that card's field, centre oval or symbol, or
#: a piece of it, or the card's outline again a little off, and would only repeat it. An outline
#: inside a bigger one that is not surely a card (a blob of touching cards, a table region, a
#: hand) is read once that one has been.
#: Lower: fewer outlines read a photo (less CPU), and a card inside a card read less surely
#: is skipped more often.
COVER_SURE = 0.8
#: (lower: an outline counts as inside another with less of it inside; fewer outlines read)
HOLD_INSIDE = 0.8
INSIDE = 0.9
#: Outlines overlapping by less than this (intersection over the smaller) are apart: two cards.
APART = 0.2
#: A card read with at least this probability explains the rest of a group it covers (a
#: second-look outline only a card read with SURE does).
MASK_SURE = 0.8
#: Longer side (pixels) of the mask on which the cards read surely are drawn to tell how much of
#: an outline they cover together.
COVER_MASK = 480
#: A group whose largest outline is at least this many times the photo's typical card area (the
#: detector's estimate from the coloured fields) and holds two card-sized outlines apart from
#: each other (a blob of touching cards, a table region around cards) is read last, and not at
#: all where it holds two cards read with at least MASK_SURE, apart from each other and of
#: different labels (no card holds two cards; the two halves of one card's field read alike).
#: The outlines inside it are read without waiting for it. So is the whole frame.
DEFER_AREA = 1.8
#: A card read with at least MASK_SURE holds a blob's place (for the blob test: two of them,
#: apart, of different labels) where at least this share of its own area lies inside the blob:
#: a card half out of the blob is no less a card of another place than one inside it. (Lower:
#: more blobs set aside as holding two cards, fewer outlines read.)
BLOB_HOLDS = 0.6


@dataclass(frozen=True)
class CardReading:
    """What one rectified card reads as."""

    label: str                                   # a vocabulary label, ``back``, or ``none``
    confidence: float
    runners_up: tuple[tuple[str, float], ...]    # next labels, most likely first

    @property
    def is_card(self) -> bool:
        return self.label != NONE


@dataclass(frozen=True)
class CardSighting:
    """A card seen in a photo."""

    label: str
    confidence: float
    runners_up: tuple[tuple[str, float], ...]
    quad: tuple[tuple[float, float], ...]        # 4 corners (x, y), clockwise, short edge first
    center: tuple[float, float]
    visible: str = "whole"                       # "partial": read from a corner (vision.partial)

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "confidence": round(self.confidence, 4),
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "runners_up": [[lab, round(p, 4)] for lab, p in self.runners_up],
            "visible": self.visible,
        }


class CardReader:
    """Finds and reads cards. One instance is safe to share between threads (reads are serialised
    around the network). With ``overlap``, also the cards others partly cover
    (:func:`vision.partial.partly_covered`), their corner indices read by the index model of
    ``index_model_path`` (by default :data:`vision.partial.INDEX_MODEL_PATH`)."""

    def __init__(self, model_path: str | Path | None = None, *, min_confidence: float = 0.5,
                 min_label_confidence: float = 0.4, runners_up: int = 3, overlap: bool = False,
                 index_model_path: str | Path | None = None):
        path = Path(model_path) if model_path else MODEL_PATH
        if not path.is_file():
            raise FileNotFoundError(f"card model not found at {path} (train it: python -m vision.train)")
        self.model = OnnxModel(path)
        meta_path = path.with_suffix(".json")
        classes = json.loads(meta_path.read_text())["classes"] if meta_path.is_file() else list(CLASSES)
        self.classes = tuple(classes)
        self.none_index = self.classes.index(NONE)
        self.min_confidence = min_confidence              # card mass (1 - p(none)) to be a card
        self.min_label_confidence = min_label_confidence  # and its best label at least this
        self.n_runners = runners_up
        self.overlap = overlap                            # also read partly covered cards
        # the partial pass's index model (None: vision.partial's general one; the hands'
        # zones read with vision.partial.HANDS_INDEX_MODEL_PATH)
        self.index_model_path = Path(index_model_path) if index_model_path else None
        self._decks = DeckFilter(self.classes)

    # ------------------------------------------------------------------ classification
    def _probs(self, cards: list[np.ndarray], deck: str) -> np.ndarray:
        self._decks.check(deck)
        if not cards:
            return np.zeros((0, len(self.classes)), np.float32)
        blob = cv2.dnn.blobFromImages(cards, 1.0, (CARD_W, CARD_H), swapRB=False, crop=False)
        p = self.model.run(blob).reshape(len(cards), -1).astype(np.float64)
        return self._decks.narrow(p, deck)

    def _reading(self, p: np.ndarray) -> CardReading:
        order = np.argsort(-p)
        best = int(order[0])
        label = self.classes[best]
        runners = tuple((self.classes[int(i)], float(p[int(i)])) for i in order[1:1 + self.n_runners]
                        if p[int(i)] > 0)
        return CardReading(label, float(p[best]), runners)

    @staticmethod
    def prepare(card_bgr: np.ndarray) -> np.ndarray:
        """A rectified card (any size; landscape is turned portrait) as the model's input."""
        if card_bgr.ndim == 2:
            card_bgr = cv2.cvtColor(card_bgr, cv2.COLOR_GRAY2BGR)
        if card_bgr.shape[1] > card_bgr.shape[0]:
            card_bgr = cv2.rotate(card_bgr, cv2.ROTATE_90_CLOCKWISE)
        if card_bgr.shape[:2] != (CARD_H, CARD_W):
            interp = cv2.INTER_AREA if card_bgr.shape[0] > CARD_H else cv2.INTER_LINEAR
            card_bgr = cv2.resize(card_bgr, (CARD_W, CARD_H), interpolation=interp)
        return normalize_card(card_bgr)

    def classify(self, card_bgr: np.ndarray, deck: str = "auto") -> CardReading:
        """Read one rectified card image (the card filling the image, either way up)."""
        return self._reading(self._probs([self.prepare(card_bgr)], deck)[0])

    def probabilities(self, cards: list[np.ndarray], deck: str = "auto") -> np.ndarray:
        """Each rectified card's probability of every label (columns in :attr:`classes` order,
        ``none`` included; labels outside ``deck`` get 0)."""
        return self._probs([self.prepare(c) for c in cards], deck)

    def classify_many(self, cards: list[np.ndarray], deck: str = "auto") -> list[CardReading]:
        probs = self._probs([self.prepare(c) for c in cards], deck)
        return [self._reading(p) for p in probs]

    # ------------------------------------------------------------------ photos
    def read(self, image_bgr: np.ndarray, deck: str = "auto") -> list[CardSighting]:
        """Every card in a BGR photo, most confident first. Non-cards are left out."""
        if image_bgr is None or image_bgr.size == 0:
            raise ValueError("empty image")
        if image_bgr.ndim == 2:
            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
        quads, card_area = find_quads_sized(image_bgr)
        H, W = image_bgr.shape[:2]
        # a photo that is one card filling the frame
        whole = None
        ratio = max(H, W) / min(H, W)
        if 1.2 <= ratio <= 1.95:
            m = 0.01
            whole = order_quad(np.array([[W * m, H * m], [W * (1 - m), H * m],
                                         [W * (1 - m), H * (1 - m)], [W * m, H * (1 - m)]], np.float32))
            quads = quads + [whole]
        reads = _Reads(self, image_bgr, deck)
        cands = self._grouped_candidates(reads, quads, whole, card_area)
        kept = self._select(cands, whole)
        if sum(r.confidence >= SURE for r, _ in kept) < SECOND_LOOK_UNLESS:
            # (not the fields inside cards read as surely as SURE: pieces of those cards; a card
            # read less surely may be a region around the card the second look finds)
            more = [q for q in find_field_quads(image_bgr) if not reads.covered(q, SURE)]
            if more:
                cands = cands + self._candidates(more, reads.probs(more), None)
                kept = self._select(cands, whole)
        # report the card's outer outline: the largest candidate of the same label around the
        # kept one, up to OUTLINE_GROWTH times its area (the field or the oval inside the border)
        out = []
        areas = [cv2.contourArea(q2) for _, q2, _ in cands]
        for r, q in kept:
            best = q
            area = inner = cv2.contourArea(q)
            for (r2, q2, mass), a2 in zip(cands, areas):
                if r2.label == r.label and area < a2 < inner * OUTLINE_GROWTH \
                        and _overlap(q, q2) > 0.9 and _aspect_ok(q2) and mass >= GROWN_MASS:
                    best, area = q2, a2
            c = best.mean(0)
            out.append(CardSighting(r.label, r.confidence, r.runners_up,
                                    tuple((float(x), float(y)) for x, y in best),
                                    (float(c[0]), float(c[1]))))
        from vision.index_vote import index_vote

        out = index_vote(image_bgr, out, deck, keep_above=self.min_label_confidence)  # the indices' opinion
        if self.overlap:
            from vision.partial import INDEX_MODEL_PATH, partly_covered

            out = partly_covered(self, image_bgr, out, deck,
                                 index_model_path=self.index_model_path or INDEX_MODEL_PATH)
        out.sort(key=lambda s: -s.confidence)
        return out

    def _grouped_candidates(self, reads: "_Reads", quads, whole, card_area: float | None = None):
        """The candidates of ``quads`` (largest first) and ``whole``, read from the outside in:
        the largest outline of each group (:data:`GROUP_IOU`) once every larger outline it lies
        inside (:data:`HOLD_INSIDE`) has been read, and not at all inside a card read surely
        (:data:`COVER_SURE`); the
        rest of a group only when its largest outline is not surely a card (:data:`CARD_SURE`).
        Nor is the rest of a group read where the cards read surely explain it
        (:meth:`_Reads.covered`: a blob of touching cards, a table region holding cards; where
        its largest outline reads ``none``, also the cards covering :data:`INSIDE` of it
        together), nor where a card read surely inside its largest outline reads as that outline
        does (:meth:`_Reads.holds_label`: the group is that card), nor where its largest outline
        is surely no card (:data:`REST_UNLESS_NONE`);
        it is read one outline at a time, largest first, until one reads surely as a card
        (:data:`CARD_SURE`). The groups that may hold several cards (:func:`_blobs`, given the
        photo's typical ``card_area``) and the whole frame are read last, after the rest of the
        other groups, where :meth:`_Reads.holds_cards` finds they do not hold two cards read
        surely (for the groups, :data:`BLOB_HOLDS` of each within) and, for the groups, where
        the cards read surely do not cover :data:`INSIDE` of them. A table of 15 cards is
        read in about 20 outlines (of the 90 or so the detector finds)."""
        groups = _groups(quads, GROUP_IOU)
        firsts = [quads[g[0]] for g in groups]
        holders = _holders(firsts, HOLD_INSIDE)
        late = _blobs(firsts, holders, card_area) if card_area else set()
        holders = [[j for j in h if j not in late] for h in holders]
        probs: list = [None] * len(firsts)
        covered = [False] * len(firsts)
        todo = [i for i in range(len(firsts)) if i not in late]
        while todo:
            ready = [i for i in todo if all(probs[j] is not None or covered[j] for j in holders[i])]
            batch = []
            for i in ready:
                if any(covered[j] or self._covers(probs[j]) for j in holders[i]):
                    covered[i] = True
                else:
                    batch.append(i)
            done = set(ready)
            todo = [i for i in todo if i not in done]
            if batch:
                for i, row in zip(batch, reads.probs([firsts[i] for i in batch])):
                    probs[i] = row
        # the rest of the groups read so far, before the blobs: their cards then explain the blobs
        cands = self._rest_of_groups(reads, quads, groups, probs,
                                     [i for i in range(len(firsts)) if probs[i] is not None])
        # the outlines far bigger than a card and the whole frame, last: read where the cards
        # read do not explain them
        late_read = [i for i in sorted(late) if not reads.holds_cards(firsts[i], BLOB_HOLDS)
                     and reads.coverage(firsts[i]) < INSIDE]
        extra = [whole] if whole is not None and not reads.holds_cards(whole) else []
        p = reads.probs([firsts[i] for i in late_read] + extra)
        for i, row in zip(late_read, p):
            probs[i] = row
        whole_probs = p[len(late_read):]
        read = [i for i in range(len(firsts)) if probs[i] is not None]
        cands = self._candidates([firsts[i] for i in read], [probs[i] for i in read], whole) + cands
        if whole is not None:
            cands += self._candidates([whole], whole_probs, whole)
        return cands + self._rest_of_groups(reads, quads, groups, probs, late_read)

    def _rest_of_groups(self, reads: "_Reads", quads, groups, probs, read: list[int]):
        """The candidates of the rest of the groups ``read`` (indices into ``groups``, whose
        largest outline has been read: ``probs``) that their largest outline does not settle."""
        cands = []
        # (not by cover alone: an outline of the group that a card read surely covers may be the
        # same card read better, which a group's weak largest outline needs: a red 6 of a sample
        # table read as a red 1 without it)
        # (by cover alone where the largest outline reads ``none``: an outline the cards read
        # surely cover is no card of its own, and none of them was read as one)
        # (nor where a card read surely inside the largest outline reads as the largest outline
        # does: the group is that card, read; its other outlines would only repeat it)
        # (one outline of each such group at a time, largest first: the rest of a group is
        # settled, like its largest outline, by an outline read as surely a card, CARD_SURE)
        rest = [([quads[k] for k in groups[i][1:]], self._is_none(probs[i])) for i in read
                if self._card(probs[i]) < CARD_SURE and probs[i][self.none_index] < REST_UNLESS_NONE
                and not reads.holds_label(quads[groups[i][0]], self._label_index(probs[i]))]
        while rest:
            batch, left = [], []
            for outlines, alone in rest:
                outlines = [q for q in outlines if not reads.covered(q, alone=alone)]
                if outlines:
                    batch.append(outlines[0])
                    left.append((outlines[1:], alone))
            rows = reads.probs(batch)
            cands += self._candidates(batch, rows, None)
            rest = [(outlines, alone) for (outlines, alone), row in zip(left, rows)
                    if outlines and self._card(row) < CARD_SURE]
        return cands

    def _label_index(self, p) -> int:
        """The index of the most likely card label (``none`` left out)."""
        i = self.none_index
        return int(np.argmax(np.where(np.arange(len(p)) == i, -1.0, p)))

    def _card(self, p) -> float:
        """The probability of the most likely card label."""
        i = self.none_index  # (slices: np.delete copies, and this is asked a few hundred times a photo)
        return float(max(p[:i].max(initial=0.0), p[i + 1:].max(initial=0.0)))

    def _is_none(self, p) -> bool:
        """Whether a read outline's most likely label is ``none``."""
        return float(p[self.none_index]) >= self._card(p)

    def _covers(self, p) -> bool:
        """Whether a read outline (its probabilities, or None: not read) is surely a card."""
        return p is not None and self._card(p) >= COVER_SURE

    def _quad_probs(self, image_bgr, quads, deck):
        if not quads:
            return np.zeros((0, len(self.classes)), np.float32)
        return self._probs(_prepared(image_bgr, quads), deck)

    def _candidates(self, quads, probs, whole):
        """(reading among card labels, quad, card mass) of each quad the model calls a card
        (``probs``: each quad's probabilities).

        A candidate is a card when the model gives most of its probability to card labels (not
        to ``none``), even when it is unsure which face it is: a worn or half-covered card must
        still be found (its runners-up tell the referee it is unsure)."""
        cands = []
        for q, p in zip(quads, probs):
            mass = 1.0 - float(p[self.none_index])
            if mass < self.min_confidence:
                continue
            p_card = p.copy()
            p_card[self.none_index] = 0.0
            r = self._reading(p_card)
            r = CardReading(r.label, float(p[self.classes.index(r.label)]), r.runners_up)
            if r.confidence < self.min_label_confidence:
                continue
            if q is whole and r.confidence < max(self.min_confidence, WHOLE_FRAME_CONFIDENCE):
                continue
            cands.append((r, q, mass))
        return cands

    @staticmethod
    def _select(cands, whole):
        """One candidate per card: overlapping candidates of one card are settled by card mass."""
        kept: list[tuple[CardReading, np.ndarray]] = []
        boxes: list[tuple[np.ndarray, np.ndarray]] = []  # the kept outlines' bounding boxes
        for r, q, _ in sorted(cands, key=lambda t: -t[2]):
            lo, hi = q.min(0), q.max(0)
            # (outlines whose boxes are apart do not overlap: the exact test only for the others)
            if any(_overlap(q, k) > 0.35 for (_, k), (klo, khi) in zip(kept, boxes)
                   if (lo < khi).all() and (klo < hi).all()):
                continue
            kept.append((r, q))
            boxes.append((lo, hi))
        if whole is not None and len(kept) > 1:
            kept = [(r, q) for r, q in kept if q is not whole]
        return kept


def _groups(quads: list[np.ndarray], iou: float) -> list[list[int]]:
    """Indices of ``quads`` in groups: each quad joins the first group whose first quad it
    overlaps by ``iou`` (only quads of about the same centre and area can: the exact overlap is
    computed for those alone)."""
    groups: list[list[int]] = []
    if not quads:
        return groups
    # (each quad's mean, in float32 as q.mean(0) adds its corners: one call for all of them)
    centres = np.array(quads, np.float32).reshape(-1, 4, 2).mean(1)
    areas = np.array([abs(cv2.contourArea(q)) for q in quads], np.float32)
    # [i, k]: k may overlap i by ``iou`` (for all pairs at once: a numpy call per quad costs more)
    maybe = ((np.abs(centres[:, None] - centres[None]).max(2) < 0.5 * np.sqrt(np.maximum(areas, 1.0))[:, None])
             & (areas[None] * iou <= areas[:, None]) & (areas[:, None] * iou <= areas[None]))
    is_first = np.zeros(len(quads), bool)
    group_of: dict[int, int] = {}  # a group's first quad -> the group's index
    for i, q in enumerate(quads):
        for k in np.flatnonzero(maybe[i, :i] & is_first[:i]):
            if quad_iou(q, quads[k]) >= iou:
                groups[group_of[int(k)]].append(i)
                break
        else:
            is_first[i] = True
            group_of[i] = len(groups)
            groups.append([i])
    return groups


#: Threads that rectify and balance the cards of one batch (OpenCV and numpy let go of the
#: interpreter while they work); as many as OpenCV's own (the network's forward pass uses them).
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
#: Fewer cards than this are prepared in the calling thread (handing over costs more).
_POOL_FROM = 6


def _prepared(image_bgr: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """The card inside each quad, rectified and white-balanced (the model's input), in order."""
    global _POOL
    workers = max(1, cv2.getNumThreads())
    if len(quads) < _POOL_FROM or workers == 1:
        return [normalize_card(rectify(image_bgr, q)) for q in quads]
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(workers, thread_name_prefix="card-prep")
        pool = _POOL
    share = -(-len(quads) // workers)
    parts = pool.map(lambda part: [normalize_card(rectify(image_bgr, q)) for q in part],
                     [quads[i:i + share] for i in range(0, len(quads), share)])
    return [card for part in parts for card in part]


def _blobs(firsts: list[np.ndarray], holders: list[list[int]], card_area: float) -> set[int]:
    """The indices of ``firsts`` that may hold several cards: at least :data:`DEFER_AREA` times
    ``card_area``, with two card-sized outlines (0.6-1.6 of it) inside, apart from each other."""
    areas = [abs(cv2.contourArea(q)) for q in firsts]
    inside: dict[int, list[int]] = {}
    for i, hs in enumerate(holders):
        if 0.6 * card_area <= areas[i] <= 1.6 * card_area:
            for j in hs:
                if areas[j] >= DEFER_AREA * card_area:
                    inside.setdefault(j, []).append(i)
    return {j for j, ins in inside.items()
            if any(_overlap(firsts[a], firsts[b]) < APART for n, a in enumerate(ins) for b in ins[n + 1:])}


def _holders(quads: list[np.ndarray], inside: float) -> list[list[int]]:
    """For each of ``quads`` (largest first), the indices of the larger ones it lies inside (at
    least ``inside`` of its area within). Only pairs whose bounding boxes share that much area can:
    the exact overlap is computed for those alone."""
    n = len(quads)
    if n == 0:
        return []
    pts = np.array(quads, np.float32).reshape(n, 4, 2)
    lo, hi = pts.min(1), pts.max(1)
    areas = np.array([abs(cv2.contourArea(q)) for q in quads], np.float32)
    wh = np.clip(np.minimum(hi[:, None], hi[None]) - np.maximum(lo[:, None], lo[None]), 0, None)
    box_inter = wh[..., 0] * wh[..., 1]  # [i, j]: the boxes' common area
    maybe = (box_inter >= inside * areas[:, None]) & (areas[None] > areas[:, None])
    out: list[list[int]] = [[] for _ in range(n)]
    for i, j in zip(*np.nonzero(maybe)):
        if _overlap(quads[i], quads[j]) >= inside:
            out[int(i)].append(int(j))
    return out


class _Reads:
    """The outlines of one photo read so far: each one's probabilities (an outline met twice, the
    whole frame as one of the outlines too, is read once), and the cards read surely drawn on
    small masks (one per level of sureness asked about: :data:`MASK_SURE`, :data:`SURE`), to tell
    how much of an outline they cover."""

    def __init__(self, reader: CardReader, image_bgr: np.ndarray, deck: str):
        self.reader, self.image, self.deck = reader, image_bgr, deck
        self._probs: dict[bytes, np.ndarray] = {}
        H, W = image_bgr.shape[:2]
        self.scale = min(1.0, COVER_MASK / max(H, W))
        shape = (max(1, round(H * self.scale)), max(1, round(W * self.scale)))
        self.masks = {sure: np.zeros(shape, np.uint8) for sure in (MASK_SURE, SURE)}
        # (outline, card probability, label, its centre's x and y, its area) of the cards read surely
        self.cards: list[tuple[np.ndarray, float, int, float, float, float]] = []

    def probs(self, quads: list[np.ndarray]) -> np.ndarray:
        """Each quad's probabilities, in order (those not read before are read in one batch)."""
        keys = [np.asarray(q, np.float32).tobytes() for q in quads]
        new = {k: q for k, q in zip(keys, quads) if k not in self._probs}
        if new:
            for (k, q), row in zip(new.items(), self.reader._quad_probs(self.image, list(new.values()),
                                                                          self.deck)):
                self._probs[k] = row
                card = self.reader._card(row)
                for sure, mask in self.masks.items():
                    if card >= sure:
                        cv2.fillConvexPoly(mask, self._points(q), 1, cv2.LINE_8, _SHIFT)
                if card >= min(self.masks):
                    c = np.asarray(q, np.float32)
                    cx, cy = c.mean(0).tolist()
                    self.cards.append((c, card, self.reader._label_index(row), cx, cy,
                                       abs(cv2.contourArea(c))))
        return np.array([self._probs[k] for k in keys]).reshape(len(quads), len(self.reader.classes))

    def coverage(self, quad: np.ndarray, sure: float | None = None) -> float:
        """The share of ``quad``'s area that the cards read with at least ``sure`` (one of the
        masks' levels; :data:`MASK_SURE` by default) cover, all of them together."""
        sure = MASK_SURE if sure is None else sure
        pts = self._points(quad)
        lo = np.maximum(pts.min(0) >> _SHIFT, 0)
        hi = pts.max(0) >> _SHIFT
        if (hi < lo).any():
            return 0.0
        under = self.masks[sure][lo[1]:hi[1] + 1, lo[0]:hi[0] + 1]
        if under.size == 0 or not under.any():
            return 0.0
        own = np.zeros((hi[1] - lo[1] + 1, hi[0] - lo[0] + 1), np.uint8)
        cv2.fillConvexPoly(own, pts - (lo << _SHIFT), 1, cv2.LINE_8, _SHIFT)
        own = own[:under.shape[0], :under.shape[1]]
        n = cv2.countNonZero(own)
        return cv2.countNonZero(own & under) / n if n else 0.0

    def covered(self, quad: np.ndarray, sure: float | None = None, alone: bool = True) -> bool:
        """Whether ``quad`` is explained by the cards read with at least ``sure`` (by default
        :data:`MASK_SURE`): it holds two of them apart from each other (no card holds two cards),
        or (with ``alone``) they cover :data:`INSIDE` of it."""
        sure = MASK_SURE if sure is None else sure
        if alone and self.coverage(quad, sure) >= INSIDE:
            return True
        apart = self._apart_inside(quad, sure)
        return next(apart, None) is not None and next(apart, None) is not None  # two of them

    def holds_label(self, quad: np.ndarray, label: int) -> bool:
        """Whether a card read with at least :data:`MASK_SURE` as ``label`` (an index into the
        reader's classes) lies inside ``quad`` (:data:`INSIDE` of its area)."""
        return any(lab == label for _, lab in self._inside(quad, MASK_SURE, INSIDE))

    def holds_cards(self, quad: np.ndarray, inside: float = INSIDE) -> bool:
        """Whether ``quad`` holds two cards read with at least :data:`MASK_SURE` (``inside`` of
        each one's area within it), apart from each other and of different labels: a blob of cards
        or a region around them, never one card (the pieces of one card's field, cut by its oval,
        read as that card)."""
        labels: set[int] = set()
        for _, label in self._apart_inside(quad, MASK_SURE, inside):
            labels.add(label)
            if len(labels) >= 2:
                return True
        return False

    def _apart_inside(self, quad: np.ndarray, sure: float, inside: float = INSIDE):
        """(outline, label) of the cards read with at least ``sure`` that lie inside ``quad``
        (``inside`` of their area), each apart (:data:`APART`) from those yielded before."""
        kept: list[np.ndarray] = []
        for c, label in self._inside(quad, sure, inside):
            if all(_overlap(c, k) < APART for k in kept):
                kept.append(c)
                yield c, label

    def _inside(self, quad: np.ndarray, sure: float, inside: float):
        """(outline, label) of the cards read with at least ``sure`` that lie inside ``quad``
        (``inside`` of their area), in the order they were read."""
        q = np.asarray(quad, np.float32)
        (x0, y0), (x1, y1), area = q.min(0).tolist(), q.max(0).tolist(), abs(cv2.contourArea(q))
        for c, card, label, cx, cy, c_area in self.cards:
            # (a card inside has its centre inside the box: a cheap test first, on plain floats)
            if card >= sure and x0 <= cx <= x1 and y0 <= cy <= y1 and c_area < area \
                    and _overlap(c, q) >= inside:
                yield c, label

    def _points(self, quad: np.ndarray) -> np.ndarray:
        return np.round(np.asarray(quad, np.float64) * self.scale * (1 << _SHIFT)).astype(np.int32)


#: Fractional bits of the mask's polygon corners.
_SHIFT = 4


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over the smaller area."""
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    if inter <= 0:
        return 0.0
    return float(inter / max(1e-6, min(abs(cv2.contourArea(a)), abs(cv2.contourArea(b)))))


def _aspect_ok(q: np.ndarray) -> bool:
    w = np.linalg.norm(q[1] - q[0])
    h = np.linalg.norm(q[3] - q[0])
    return abs(h / max(w, 1e-6) - CARD_RATIO) < 0.25

