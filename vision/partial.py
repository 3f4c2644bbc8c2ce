"""Read the cards that other cards partly cover (a fanned hand, an overlapping row, a pile).

:meth:`vision.recognize.CardReader.read` reads the cards whose outline shows whole; this module
then looks for the cards under them. Every square corner of straight edges in the photo gets a
card outline of the size of the cards already read (:func:`vision.corners.partial_quads`), and a
second small classifier, ``vision/models/partial.onnx`` (trained by ``python -m
vision.train.corners`` on composed tables of overlapping cards), reads each outline: the card
whose corner index and strip of face show, or ``none``. Outlines that are a card already read,
or another outline of a card already found here, are dropped, so that no card is counted twice.
The cards found here are reported with ``visible="partial"``.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from vision.color import normalize_card
from vision.corners import card_width_of, partial_quads
from vision.detect import quad_iou, rectify

__all__ = ["PARTIAL_MODEL_PATH", "partly_covered"]

PARTIAL_MODEL_PATH = Path(__file__).resolve().parent / "models" / "partial.onnx"
#: A partly covered card is reported when its card mass (1 - p(none)) and its label's
#: probability reach these (a strip of a card is less sure than a whole one: stricter).
MIN_MASS = 0.7
MIN_LABEL = 0.6
#: Outlines of one label that overlap by this IoU are the same card (two outlines of one card
#: differ by which of its corners they were put on); any two overlapping by SAME_PLACE_IOU are.
SAME_CARD_IOU = 0.3
SAME_PLACE_IOU = 0.75

_readers: dict = {}
_lock = threading.Lock()


def _reader(reader_cls, path: Path):
    with _lock:
        if path not in _readers:
            _readers[path] = reader_cls(path)
        return _readers[path]


def partly_covered(reader, image_bgr: np.ndarray, whole: list, deck: str = "auto",
                   model_path: Path | None = None) -> list:
    """The partly covered cards of ``image_bgr`` (:class:`vision.recognize.CardSighting`, with
    ``visible="partial"``), given the ``whole`` sightings already read. Needs at least one card
    read whole (its size sets the outlines' size); none without the partial model's file."""
    from vision.recognize import CardSighting

    path = model_path or PARTIAL_MODEL_PATH
    if not whole or not Path(path).is_file():
        return []
    width = card_width_of([np.asarray(s.quad, np.float32) for s in whole])
    known = [np.asarray(s.quad, np.float32) for s in whole]
    quads = partial_quads(image_bgr, width, known=known)
    if not quads:
        return []
    part = _reader(type(reader), Path(path))
    probs = part._probs([normalize_card(rectify(image_bgr, q)) for q in quads], deck)
    none = part.none_index
    cands = []
    for q, p in zip(quads, probs):
        mass = 1.0 - float(p[none])
        if mass < MIN_MASS:
            continue
        p_card = p.copy()
        p_card[none] = 0.0
        r = part._reading(p_card)
        conf = float(p[part.classes.index(r.label)])
        if conf < MIN_LABEL:
            continue
        cands.append((conf * mass, r.label, conf, r.runners_up, q))
    cands.sort(key=lambda c: -c[0])
    kept = [(s.label, np.asarray(s.quad, np.float32)) for s in whole]
    out = []
    for _score, label, conf, runners, q in cands:
        if any(quad_iou(q, k) > (SAME_CARD_IOU if lab == label else SAME_PLACE_IOU) for lab, k in kept):
            continue
        kept.append((label, q))
        c = q.mean(0)
        out.append(CardSighting(label, conf, runners, tuple((float(x), float(y)) for x, y in q),
                                (float(c[0]), float(c[1])), visible="partial"))
    return out
