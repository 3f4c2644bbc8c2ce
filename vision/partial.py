"""Read the cards that other cards partly cover (a fanned hand, an overlapping row, a pile).

:meth:`vision.recognize.CardReader.read` reads the cards whose outline shows whole; this module
then looks for the cards under them. Every square corner of straight edges in the photo gets a
card outline of the size of the cards already read (:func:`vision.corners.partial_quads`), and a
second small classifier, ``vision/models/partial.onnx`` (trained by ``python -m
vision.train.corners`` on composed tables of overlapping cards), reads each outline's two index
corners (:func:`vision.corners.corner_crops`) and keeps the surer: the card whose corner index
shows there, or ``none``. Outlines that are a card already read,
or another outline of a card already found here, are dropped, so that no card is counted twice.
The cards found here are reported with ``visible="partial"``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.card_shape import CARD_RATIO
from vision.color import normalize_card
from vision.corners import (card_width_of, corner_crops, partial_quads, strip_share, unexplained_cards,
                            unlike_table)
from vision.detect import quad_iou

__all__ = ["PARTIAL_MODEL_PATH", "partly_covered", "read_outlines", "select", "settle", "reshaped_whole",
           "Thresholds", "Outlines"]

PARTIAL_MODEL_PATH = Path(__file__).resolve().parent / "models" / "partial.onnx"
#: A partly covered card is reported when its card mass (1 - p(none)) and its label's
#: probability reach these. Chosen with the corner model of issue #17 on the validation photos'
#: tables (``python -m vision.train.tune_partial``: its training never saw those photos), with
#: STRIP_CARD_LIKE, COVERED and SEED: MIN_LABEL 0.6 -> 0.4, STRIP_CARD_LIKE 0.6 -> 0.4 and SEED
#: 0.8 took the validation F1 from 0.636 to 0.722 (docs/vision.md, Measured: overlapping cards).
MIN_MASS = 0.7
MIN_LABEL = 0.4
#: Outlines of one label that overlap by this IoU are the same card (two outlines of one card
#: differ by which of its corners they were put on); any two overlapping by SAME_PLACE_IOU are.
SAME_CARD_IOU = 0.3
SAME_PLACE_IOU = 0.75
#: What shows of a partly covered card (its outline outside the cards found) is card-like
#: (unlike the table) by at least this share.
STRIP_CARD_LIKE = 0.4
#: A partly covered card's outline overlaps a card found by at least this share of its area.
COVERED = 0.1
#: ... unless the partial model is this sure of it (mass x label probability): the top card of a
#: hand that the whole-card pass missed (its outline merged with the strips under it) starts the
#: hand's chain itself. Above 1: never.
SEED = 0.8

#: A card read whole whose outline is not a card's (its area or its proportions off by more than
#: this share from a card of the width measured on the cards read whole: the outline of a strip
#: and the card on it, merged) takes the outline of the surest partly covered candidate of the
#: same label that overlaps it by RESHAPE_IOU (IoU): the corner model put that one on the card's
#: own corner. Chosen on the validation photos' tables (F1 0.685 -> 0.720, an earlier corner
#: model), where most of the extra readings were such outlines.
ODD_SHAPE = 0.1
RESHAPE_IOU = (0.3, 0.95)

#: The second pass runs only when at least this many cards' worth of card-like pixels lie
#: outside the cards read whole (vision.corners.unexplained_cards).
UNEXPLAINED = 0.15

_readers: dict = {}
_lock = threading.Lock()


def _reader(reader_cls, path: Path):
    with _lock:
        if path not in _readers:
            _readers[path] = reader_cls(path)
        return _readers[path]


@dataclass(frozen=True)
class Thresholds:
    """What makes an outline a partly covered card (the module's constants by default)."""

    min_mass: float = MIN_MASS
    min_label: float = MIN_LABEL
    strip_card_like: float = STRIP_CARD_LIKE
    covered: float = COVERED
    seed: float = SEED


@dataclass
class Outlines:
    """One photo's outlines of partly covered cards, read: the candidates (surest first), before
    any threshold, so that thresholds can be tried on them (:func:`select`)."""

    cands: list            # (mass, label, conf, runners_up, quad), surest first
    whole: list            # the cards read whole
    unlike: np.ndarray | None = None
    scale: float = 1.0


def read_outlines(reader, image_bgr: np.ndarray, whole: list, deck: str = "auto",
                  model_path: Path | None = None) -> Outlines:
    """Every outline put on a corner (:func:`vision.corners.partial_quads`) with the partial
    model's reading; empty when there is no model, no card read whole, or nothing card-like
    outside the cards read whole."""
    path = model_path or PARTIAL_MODEL_PATH
    empty = Outlines([], whole)
    if not whole or not Path(path).is_file():
        return empty
    width = card_width_of([np.asarray(s.quad, np.float32) for s in whole])
    known = [np.asarray(s.quad, np.float32) for s in whole]
    if unexplained_cards(image_bgr, known, width) < UNEXPLAINED:
        return empty  # every card-like pixel is a card read whole: nothing lies under them
    quads = partial_quads(image_bgr, width, known=known)
    if not quads:
        return empty
    part = _reader(type(reader), Path(path))
    crops = [normalize_card(c) for q in quads for c in corner_crops(image_bgr, q)]
    both = part._probs(crops, deck).reshape(len(quads), 2, -1)
    none = part.none_index
    # each outline is read at the index corner that shows more surely of its two
    pick = np.argmax([[1 - b[0][none], 1 - b[1][none]] for b in both], axis=1)
    probs = both[np.arange(len(quads)), pick]
    cands = []
    for q, p in zip(quads, probs):
        mass = 1.0 - float(p[none])
        p_card = p.copy()
        p_card[none] = 0.0
        r = part._reading(p_card)
        conf = float(p[part.classes.index(r.label)])
        cands.append((mass, r.label, conf, r.runners_up, q))
    cands.sort(key=lambda c: -c[0] * c[2])
    unlike, scale = unlike_table(image_bgr, width)
    return Outlines(cands, whole, unlike, scale)


def _odd_shape(quad: np.ndarray, width: float) -> bool:
    """Whether ``quad`` is not the outline of one card ``width`` pixels wide (:data:`ODD_SHAPE`)."""
    area = abs(cv2.contourArea(quad))
    a, b = sorted((float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[1]))))
    return abs(area / (width * width * CARD_RATIO) - 1) > ODD_SHAPE or abs(b / max(a, 1e-6) / CARD_RATIO - 1) > ODD_SHAPE


def reshaped_whole(outlines: Outlines, thresholds: Thresholds = Thresholds()) -> list:
    """The cards read whole, those whose outline is not a card's given the outline of the surest
    candidate of the same label over it (:data:`ODD_SHAPE`, :data:`RESHAPE_IOU`); label,
    confidence and ``visible`` stay."""
    t = thresholds
    if not outlines.whole or not outlines.cands:
        return list(outlines.whole)
    width = card_width_of([np.asarray(s.quad, np.float32) for s in outlines.whole])
    lo, hi = RESHAPE_IOU
    out = []
    for s in outlines.whole:
        q = np.asarray(s.quad, np.float32)
        if _odd_shape(q, width):
            sure = [c for c in outlines.cands if c[1] == s.label and c[0] >= t.min_mass and c[2] >= t.min_label
                    and lo < quad_iou(q, c[4]) < hi]
            if sure:  # cands are surest first
                best = sure[0][4]
                c = best.mean(0)
                s = replace(s, quad=tuple((float(x), float(y)) for x, y in best), center=(float(c[0]), float(c[1])))
        out.append(s)
    return out


def settle(outlines: Outlines, thresholds: Thresholds = Thresholds()) -> list:
    """Every card of the photo: the cards read whole (:func:`reshaped_whole`) and the partly
    covered ones (:func:`select`)."""
    whole = reshaped_whole(outlines, thresholds)
    return whole + _select(outlines, whole, thresholds)


def select(outlines: Outlines, thresholds: Thresholds = Thresholds()) -> list:
    """The partly covered cards among ``outlines`` under ``thresholds`` (see the module docs)."""
    return _select(outlines, reshaped_whole(outlines, thresholds), thresholds)


def _select(outlines: Outlines, whole: list, thresholds: Thresholds) -> list:
    from vision.recognize import CardSighting

    t = thresholds
    cands = [c for c in outlines.cands if c[0] >= t.min_mass and c[2] >= t.min_label]
    kept = [(s.label, np.asarray(s.quad, np.float32)) for s in whole]
    out = []
    # a partly covered card lies under another card: an outline is taken only once it overlaps a
    # card found (whole, or partial before it), so a fan is followed card by card from its top
    # card and junk outlines on the table (a rules sheet's lines) stay out
    pending = cands
    while pending:
        rest = []
        for cand in pending:
            _mass, label, conf, runners, q = cand
            if any(quad_iou(q, k) > (SAME_CARD_IOU if lab == label else SAME_PLACE_IOU) for lab, k in kept):
                continue
            if cand[0] * conf < t.seed and not any(_covered_share(q, k) >= t.covered for _lab, k in kept):
                rest.append(cand)
                continue
            if strip_share(outlines.unlike, outlines.scale, q, [k for _lab, k in kept]) \
                    < t.strip_card_like:
                continue  # what shows of it is the table: no card lies there
            kept.append((label, q))
            c = q.mean(0)
            out.append(CardSighting(label, conf, runners, tuple((float(x), float(y)) for x, y in q),
                                    (float(c[0]), float(c[1])), visible="partial"))
        if len(rest) == len(pending):
            break
        pending = rest
    return out


def partly_covered(reader, image_bgr: np.ndarray, whole: list, deck: str = "auto",
                   model_path: Path | None = None, thresholds: Thresholds | None = None) -> list:
    """Every card of ``image_bgr`` given the ``whole`` sightings already read: those (an odd
    outline reshaped, :func:`reshaped_whole`) and the partly covered cards
    (:class:`vision.recognize.CardSighting`, with ``visible="partial"``). Needs at least one card
    read whole (its size sets the outlines' size); only ``whole`` without the partial model's
    file."""
    return settle(read_outlines(reader, image_bgr, whole, deck, model_path), thresholds or Thresholds())


def _covered_share(q: np.ndarray, other: np.ndarray) -> float:
    """Share of outline ``q`` that ``other`` covers."""
    inter, _ = cv2.intersectConvexConvex(np.asarray(q, np.float32), np.asarray(other, np.float32))
    return float(inter / max(1e-6, abs(cv2.contourArea(np.asarray(q, np.float32)))))
