"""A second opinion on the cards read whole, from their corner indices.

The card model reads a whole card at once (:class:`vision.recognize.CardReader`), and on a card
it has not seen (another print, a glare over the face) it can prefer a neighbour of the right
label: a yellow 1 read as a yellow 4 (0.46 against 0.33), a yellow draw two as a yellow 7. A
whole card shows both of its corner indices, and the index model of the partly covered cards'
pass (``vision/models/index.onnx``, :class:`vision.partial.IndexReader`) reads exactly those.

:func:`index_vote` scores each label the card model offered (its label and runners-up) by the
card model's log-probability plus :data:`INDEX_VOTE` times the mean of the two indices'
log-probabilities, and takes the best, where a corner whose index the model sees reads that
label best (:data:`INDEX_SEEN`). A card whose label stands keeps its reading untouched;
one that changes gets the card model's probability mass over those labels shared out by the
scores (its confidence, its runners-up). Only labels the card model offered can win, so an index
misread on a loose outline cannot bring in a label from nowhere.

The indices also say what is no card at all. In a picture where some card read whole shows
its own label's index, a reading whose two corners show no index (:data:`NO_INDEX_DOUBT`) is
most likely not a card: a red mug read as a red 1, a card's centre oval, an icon on a screen.
Its confidence is halved, so that the card itself comes first and the referee asks before it
believes it; it is not dropped (a card's two indices may both be under a thumb).

And a card read whole that the card model is not sure of (under :data:`SURE_ALONE`) must be
confirmed by a corner: the index model must read its label at one of its two corners at least
:data:`INDEX_AGREE`. One that is not is doubted the same way, in any picture, and dropped where
that takes it under the reader's label threshold: a brick wall, gravel or a face read as a card
by the card model alone shows no index of that card (on photos without a card, every false card
read whole but the backs), where a real card's corner reads its label (on the held-out real
photos, all but 3 of 146 surest readings, two of them misread).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from companion.cards import BACK
from companion.tuning import default as default_tuning

__all__ = ["INDEX_VOTE", "INDEX_SEEN", "NO_INDEX_DOUBT", "SURE_ALONE", "INDEX_AGREE", "index_vote"]

#: The weight of the indices' mean log-probability against the card model's (0: no vote). At 1,
#: on the composite tables of the held-out photos (240 cards) it turned both cards the card
#: model misread into the right label and changed no other card; on those of the validation
#: photos (240 cards) it changed none.
INDEX_VOTE = 1.0
#: ... and a card's label moves only to the label a corner reads best where the index model
#: sees an index there (its ``none`` below INDEX_SEEN): on the held-out photos, outlines whose
#: boxes held no index (``none`` 0.34-0.98) tipped a red 9 to a red 6 on probabilities of 0.05.
INDEX_SEEN = 0.5
#: A card read whole (not a back) whose two corners both show no index (``none`` at least
#: INDEX_SEEN), where another card read whole shows its own label's index at a corner, has its
#: probabilities (its confidence and its runners-up) times this (1: no doubt). Chosen on the
#: training photos (1,755 read whole; the card model has seen them, not which of a photo's
#: outlines is the card): four photos whose answer was a junk outline (a red 8 on a screen, a
#: wild draw four in clutter, a blue 9 on a keyboard key, a red 7 on a red object) then answer
#: the card, whose indices read its label; none answers worse. 0.3 the same; 0.6-0.8 three; the
#: same without asking for a backed card elsewhere loses two (photos where no index reads).
NO_INDEX_DOUBT = 0.5
_PHOTO = default_tuning().photo
#: A card read whole at least this surely stands on the card model alone ...
SURE_ALONE = _PHOTO.sure_alone
#: ... one read less surely needs a corner whose index reads its label at least this.
INDEX_AGREE = _PHOTO.index_agree


def index_vote(image_bgr: np.ndarray, sightings: list, deck: str = "auto", path: Path | None = None,
               keep_above: float = 0.0) -> list:
    """``sightings`` with every card read whole relabelled by its corner indices where they
    outvote the card model, and doubted where no corner confirms it (see the module docs;
    one not confirmed whose doubted confidence is under ``keep_above`` is dropped); as they are
    without the index model's file."""
    from vision.partial import INDEX_MODEL_PATH, IndexReader, corner_probs, shared_reader

    path = Path(path or INDEX_MODEL_PATH)
    whole = [i for i, s in enumerate(sightings) if s.visible == "whole"]
    if not (INDEX_VOTE or NO_INDEX_DOUBT < 1) or not whole or not path.is_file():
        return list(sightings)
    reader = shared_reader(IndexReader, path)
    probs = corner_probs(reader, image_bgr, [sightings[i].quad for i in whole], deck)
    out = list(sightings)
    if INDEX_VOTE:
        for i, p in zip(whole, probs):
            out[i] = _voted(sightings[i], p, reader.classes, reader.none_index)
    by_index = dict(zip(whole, probs))
    doubted = _doubted(out, by_index, reader.classes, reader.none_index)
    return _unconfirmed(out, doubted, by_index, reader.classes, keep_above)


def _confirms(s, index_probs: np.ndarray, classes) -> bool:
    """Whether a corner's index reads ``s``'s label at least :data:`INDEX_AGREE`."""
    return s.label in classes and float(index_probs[:, classes.index(s.label)].max()) >= INDEX_AGREE


def _unconfirmed(sightings: list, doubted: set, index_probs: dict, classes, keep_above: float) -> list:
    """``sightings`` with those in ``doubted`` doubted, and each other card read whole under
    :data:`SURE_ALONE` that no corner confirms doubted too and dropped where that takes it
    under ``keep_above`` (each doubted once)."""
    out = []
    for i, s in enumerate(sightings):
        p = index_probs.get(i)
        if p is None or s.label == BACK or s.confidence >= SURE_ALONE or _confirms(s, p, classes):
            out.append(_doubt(s) if i in doubted else s)
            continue
        s = _doubt(s)
        if s.confidence >= keep_above:
            out.append(s)
    return out


def _doubted(sightings: list, index_probs: dict, classes, none: int) -> set:
    """Which cards read whole (their places in ``sightings``) show no index at their corners,
    where another shows its own label's index: doubted (:data:`NO_INDEX_DOUBT`)."""
    if NO_INDEX_DOUBT >= 1 or not any(
            sightings[i].label in classes and classes.index(sightings[i].label) in _shown(p, none)
            for i, p in index_probs.items()):
        return set()
    return {i for i, p in index_probs.items()
            if sightings[i].label != BACK and bool((p[:, none] >= INDEX_SEEN).all())}


def _doubt(s):
    """``s`` with its probabilities (confidence, runners-up) times :data:`NO_INDEX_DOUBT`."""
    return replace(s, confidence=s.confidence * NO_INDEX_DOUBT,
                   runners_up=tuple((lab, q * NO_INDEX_DOUBT) for lab, q in s.runners_up))


def _shown(index_probs: np.ndarray, none: int) -> set:
    """The labels the corners whose index the model sees (``none`` below :data:`INDEX_SEEN`)
    read best."""
    seen = index_probs[index_probs[:, none] < INDEX_SEEN].copy()
    seen[:, none] = 0.0
    return set(int(k) for k in np.argmax(seen, axis=1))


def _voted(s, index_probs: np.ndarray, classes, none: int) -> object:
    offered = [(lab, p) for lab, p in [(s.label, s.confidence), *s.runners_up] if lab in classes and p > 0]
    if len(offered) < 2:
        return s
    score = np.array([np.log(p) + INDEX_VOTE * 0.5 * float(np.log(index_probs[:, classes.index(lab)] + 1e-9).sum())
                      for lab, p in offered])
    best = int(np.argmax(score))
    if best == 0 or classes.index(offered[best][0]) not in _shown(index_probs, none):
        return s
    share = np.exp(score - score.max())
    share = share / share.sum() * sum(p for _lab, p in offered)
    order = np.argsort(-share)
    label, confidence = offered[best][0], float(share[best])
    runners = tuple((offered[k][0], float(share[k])) for k in order if k != best)
    return replace(s, label=label, confidence=confidence, runners_up=runners)
