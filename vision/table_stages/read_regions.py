"""ReadRegions: the regions that need it, warped top-down, their card found and classified.

For each region to read, :meth:`ReadRegions.read` warps its patch top-down from the frame, finds
the card's outline (:func:`~vision.table_stages.locate.locate_card`, against the region's patch
as it last settled so that the card below a new one is left out), and classifies the card
rectified from it, all the frame's cards in one call to the classifier. Along the way:

* a card reaching out of its region (dropped askew) is read whole from a wider look
  (:class:`vision.rectify.AskewFinder`);
* where no outline is told from the cloth (a dark card on dark cloth in dim light), the card, if
  any, lies where the region puts it, and counts only when read at ``sure_outline`` or surer
  (else the region reads "no card");
* at first sight of a messy discard pile, its top card is found among the outlines there
  (:mod:`vision.pile`); on a region read before, the top card's outline within what changed;
* a read no surer than ``weak_read`` (or "no card" on the pile or reaching out of its region) is
  looked at again: of the card outlines in the patch, the one read surest replaces it when surer
  and at least ``sure_outline`` (any card, for "no card");
* with the camera's smear measured, the card is also read from each sharpened frame
  (:mod:`vision.table_stages.sharpen`) and weighed against the read as seen
  (``contradicted_odds``, ``contradicting_read``).

What is found for one outline (the top card's outline, a surer outline, a card reaching out of
the region) is kept (by the outline to 3 px) while the frames vote on the same change. A
region's patch becomes its reference look when its votes settle (:meth:`ReadRegions.settled`).
The tuning names above are fields of ``[reader]``.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.reading import EMPTY
from companion.tuning import ReaderTuning

from ..card_shape import CARD_H, CARD_W, rectify
from ..geometry import Layout, View
from ..pile import is_stack, likeliest_placement, top_card
from ..rectify import NARROW_MARGIN, AskewFinder, rival_outlines
from .locate import locate_card, placed_card
from .sharpen import contradicted, same_outline, surest_supported

__all__ = ["ReadRegions"]


class ReadRegions:
    """Reads regions with ``classifier`` (``classify_many(cards) -> [label -> probability]``)
    on patches of ``read_px`` pixels per mm."""

    def __init__(self, classifier, tuning: ReaderTuning, read_px: float = 1.4):
        self.classifier = classifier
        self.tuning = tuning
        self.read_px = read_px
        self.patches: dict[str, np.ndarray] = {}          # each region as last settled
        self.sharp_patches: dict[str, np.ndarray] = {}    # ... with the camera's smear taken out
        self._pending: dict[str, np.ndarray] = {}         # each region as being read
        self._pending_sharp: dict[str, np.ndarray] = {}
        #: (region, outline of what changed) -> the top card's outline found there (vision.pile);
        #: (region, "surer", outline read weakly) -> a surer card outline there, or None
        self._placed: dict[tuple, np.ndarray | None] = {}
        self._askew = AskewFinder()  # a card dropped askew reaches out of its region's patch

    def read(self, frame: np.ndarray, view: View, layout: Layout, names: list[str],
             sharp: list[np.ndarray] = (), covered: str | None = None
             ) -> list[tuple[str, str, dict[str, float]]]:
        """This frame's read of each region in ``names``: (region, label, probabilities).
        ``sharp``: the frame with the camera's smear taken out, through each smear tried (the
        measured one first). Where each card lies and how each region looks come from
        ``frame`` as the camera saw it; a card is also read from each of ``sharp``.
        ``covered``: a region something covers whose read will not be used (the cell under
        the pawn): its weak read is not looked at again."""
        if not names:
            return []
        px = self.read_px
        out: list[tuple[str, str, dict[str, float]]] = []
        patches, kept = [], []
        sharpened: dict[int, list[int]] = {}  # kept index -> where its reads from ``sharp`` are
        looked: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # region -> (patch, outline) read
        wide: set[str] = set()  # regions read from the askew finder's wide patch
        placed: set[str] = set()  # regions read where their card would lie (no outline found)
        rivals: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # region -> a rival (wide patch, outline)
        for name in names:
            region = layout.regions[name]
            patch = view.warp_region(frame, region, px, margin=NARROW_MARGIN)
            quad = locate_card(patch, px, self.patches.get(name), self.tuning.card_diff)
            self._pending[name] = patch
            askew = self._askew.look(frame, view, region, name, px, patch,
                                     self.patches.get(name), quad,
                                     change=None if quad is None else _outline_key(quad))
            if askew is not None:  # the card reaches out of the patch: read it whole
                patch, quad = askew
                wide.add(name)
            elif (rival := self._askew.rival(name)) is not None:
                rivals[name] = rival
            if quad is None:  # a card, if any, lies where the region puts it
                patches.append(rectify(patch, placed_card(patch, px), (CARD_W, CARD_H)))
                kept.append(name)
                placed.add(name)
                continue
            top = self._top_of_pile(name, patch, quad)
            if top is not None:
                out.append((name, max(top, key=top.get), top))
                continue
            if name in self.patches and askew is None:
                # what changed may be short of the new card (its print on the same print below)
                # or hold the card below too: the top card's outline is looked for
                key = (name, _outline_key(quad))
                if key not in self._placed:
                    self._placed[key] = likeliest_placement(patch, quad, px)
                quad = self._placed[key]
            patches.append(rectify(patch, quad, (CARD_W, CARD_H)))
            if sharp and askew is None:
                clears = [view.warp_region(s, region, px, margin=NARROW_MARGIN) for s in sharp]
                # the outline found with the measured smear out is sharper, when it is the same
                # outline (the other smears' ripples would move it: one outline for all)
                found = locate_card(clears[0], px, self.sharp_patches.get(name),
                                    self.tuning.card_diff)
                outline = same_outline(found, quad, px)
                self._pending_sharp[name] = clears[0]
                sharpened[len(kept)] = list(range(len(patches), len(patches) + len(clears)))
                patches.extend(rectify(clear, outline, (CARD_W, CARD_H)) for clear in clears)
            looked[name] = (patch, quad)
            kept.append(name)
        # (a region read where its card would lie, or read as a pile's top card, has no outline
        # to rival)
        rivals = {name: r for name, r in rivals.items() if name in kept and name not in placed}
        first_rival = len(patches)
        patches.extend(rectify(w, q, (CARD_W, CARD_H)) for w, q in rivals.values())
        classified = self.classifier.classify_many(patches)
        rival_reads = dict(zip(rivals, classified[first_rival:]))
        classified = classified[:first_rival]
        second = {i for where in sharpened.values() for i in where}
        reads = [p for i, p in enumerate(classified) if i not in second]
        for k, (name, probs) in enumerate(zip(kept, reads)):
            if k in sharpened:
                probs = self._weigh_sharp([classified[i] for i in sharpened[k]], probs)
            if name in rival_reads and _surer_card(rival_reads[name], probs):
                # the card that fits what changed reads surer than the narrow patch's outline
                probs = rival_reads[name]
                looked[name] = rivals[name]
                wide.add(name)
            out.append((name, *self._judged(name, probs, looked, placed, wide,
                                            again=name != covered)))
        return out

    def _weigh_sharp(self, sharp_reads: list[dict[str, float]],
                     probs: dict[str, float]) -> dict[str, float]:
        taken = surest_supported(sharp_reads, probs)
        if taken is not probs:
            return taken
        t = self.tuning
        return contradicted(sharp_reads[0], probs, t.contradicted_odds, t.contradicting_read)

    def _judged(self, name: str, probs: dict[str, float], looked, placed: set[str],
                wide: set[str], again: bool = True) -> tuple[str, dict[str, float]]:
        """A region's read as voted: "no card" for a weak read where no outline was found; an
        outline looked for again (``again``) for a weak read or for "no card" where a card
        reaches out."""
        t = self.tuning
        if name in placed:  # no outline to look at again: a sure card, or none
            best = max(probs, key=probs.get)
            if best in (EMPTY, "none") or probs[best] < t.sure_outline:
                return EMPTY, {EMPTY: 1.0}
            return best, probs
        label = max(probs, key=probs.get)
        # "no card" where a card reaches out of the region, or on the discard pile, where a card
        # always lies once the round has begun: the outline fitted may hold more cloth than card
        reaching_out = label == EMPTY and (name in wide or name == "discard")
        if again and (probs[label] <= t.weak_read or reaching_out):
            probs = self._surer_outline(name, *looked[name], probs, any_card=reaching_out,
                                        rivals=name in wide)
            label = max(probs, key=probs.get)
        return label, probs

    def _surer_outline(self, name: str, patch: np.ndarray, quad: np.ndarray,
                       probs: dict[str, float], any_card: bool = False,
                       rivals: bool = False) -> dict[str, float]:
        """A weak read of a card's fitted outline looked at again: the fit may land between the
        card and the one below and hold cloth or the card below more than the card. Of the card
        outlines in the patch, the one read most surely as a card (only the top card shows
        whole) replaces the read when it is surer and sure (``sure_outline``), or whenever it
        is a card (``any_card``). ``rivals``: ``patch`` is the askew finder's wide patch; the
        outlines there at other turns that nearly tie with the strongest are looked at too."""
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
            any_card or alt[best] >= max(self.tuning.sure_outline, max(probs.values())))
        return alt if surer else probs

    def _top_of_pile(self, name: str, patch: np.ndarray, quad) -> dict[str, float] | None:
        """At first sight of a messy discard pile, the top card's probabilities."""
        if name != "discard" or self.patches.get(name) is not None \
                or not is_stack(patch, self.read_px):
            return None
        found = top_card(patch, self.read_px, self.classifier, also=[quad])
        return None if found is None else found[1]

    def settled(self, name: str) -> np.ndarray | None:
        """Region ``name``'s votes settled: the patch it was read on is its reference now.
        Returns its look (the patch in grey, mat coordinates), or None."""
        if name in self._pending:
            self.patches[name] = self._pending.pop(name)
        if name in self._pending_sharp:
            self.sharp_patches[name] = self._pending_sharp.pop(name)
        else:
            self.sharp_patches.pop(name, None)
        self._askew.settled(name)
        self._placed = {k: q for k, q in self._placed.items() if k[0] != name}
        return _look(self.patches.get(name))

    def forget(self) -> None:
        """A new view: no patch, outline or askew card found so far holds."""
        self.patches.clear()
        self.sharp_patches.clear()
        self._placed.clear()
        self._askew.forget()


def _outline_key(quad) -> tuple[int, ...]:
    """An outline's corners to 3 pixels: the key under which what was found for it is kept
    while the frames vote on one change (each frame's outline of it differs by a pixel or two)."""
    return tuple(np.round(np.asarray(quad) / 3.0).astype(int).ravel())


def _look(patch: np.ndarray | None) -> np.ndarray | None:
    """A region's look: its top-down patch, grey (in mat coordinates, so a nudged camera's new
    view still compares with the old one)."""
    if patch is None:
        return None
    return cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch


def _surer_card(rival: dict[str, float], probs: dict[str, float]) -> bool:
    """Whether ``rival`` reads a card (not "no card") more surely than ``probs`` reads anything."""
    best = max(rival, key=rival.get)
    return best not in (EMPTY, "none") and rival[best] > max(probs.values())
