"""Read the cards that other cards partly cover (a fanned hand, an overlapping row, a pile).

:meth:`vision.recognize.CardReader.read` reads the cards whose outline shows whole; this module
then looks for the cards under them. Every square corner of straight edges in the photo gets a
card outline of the size of the cards already read, measured on their own edges
(:func:`vision.corners.card_width_on_edges`, :func:`vision.corners.partial_quads`), and a
second small classifier, ``vision/models/partial.onnx`` (trained by ``python -m
vision.train.corners`` on composed tables of overlapping cards), reads each outline's two index
corners (:func:`vision.corners.corner_crops`: a quarter card), a third,
``vision/models/index.onnx`` (``python -m vision.train.index``), reads the box round each index
alone (:func:`vision.corners.index_crop`), the two readings are combined (:data:`INDEX_WEIGHT`),
and the surer corner is kept: the card whose corner index shows there, or ``none``. An outline
read as a card is then moved a little, turned and shifted, to where its index reads surest
(:data:`REFINE_MASS`); the place of a card read whole is not read, unless that reading is
doubtful (:data:`READ_UNDER_DOUBTFUL`). Outlines that are a card already read, another outline
of a card already found here, or an outline whose index is a found card's (:data:`SAME_INDEX`),
are dropped, so that no card is counted twice. The cards found here are reported with ``visible="partial"``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from companion.cards import BACK, parse_card
from companion.tuning import default as default_tuning
from vision.card_shape import CARD_RATIO, order_quad, proportions_off
from vision.color import normalize_card
from vision.corners import (WIDTH_SURE, card_width_of, card_width_on_edges, corner_crops,
                            index_crop, index_outline, index_point, partial_quads, refine_outline, strip_outside,
                            unexplained_cards, unlike_table)
from vision.detect import quad_iou
from vision.onnx_model import OnnxModel
from vision.index_points import MODEL_PATH as INDEX_POINTS_PATH, index_points, width_from_indices

__all__ = ["PARTIAL_MODEL_PATH", "INDEX_MODEL_PATH", "HANDS_INDEX_MODEL_PATH", "IndexReader", "partly_covered",
           "read_outlines", "select", "settle", "reshaped_whole", "shared_reader", "Thresholds", "Outlines",
           "Candidate"]

#: The thresholds below come from the ``[photo]`` section of ``companion/tuning.toml``
#: (:class:`companion.tuning.PhotoTuning`); each comment says what its value measures and trades.
_PHOTO = default_tuning().photo

PARTIAL_MODEL_PATH = Path(__file__).resolve().parent / "models" / "partial.onnx"
INDEX_MODEL_PATH = Path(__file__).resolve().parent / "models" / "index.onnx"
#: The index model the hands laid open are read with (:func:`vision.hands.read_zone`): trained
#: also on indices that the card over them cuts (half of the index or more showing, ``python -m
#: vision.train.index --cut 0.5``), as a tight fan cuts them. It finds more cut indices in a
#: hand's zone, where only cards lie; over a whole photo it reads more backs on wilds' corners
#: and more single photos wrong, so ``companion recognize`` keeps the general model.
HANDS_INDEX_MODEL_PATH = Path(__file__).resolve().parent / "models" / "index_hands.onnx"
#: An outline overlapping a card read whole by more than this (IoU) is that card, not read again.
#: Lower drops more outlines of cards under it; higher reads the whole card's place again.
KNOWN_IOU = _PHOTO.known_iou
#: A corner is read by both models, the index model's probabilities weighted by this in their
#: geometric mean (0: the corner model alone, 1: the index model alone). The index model sees
#: the printed index alone, sharply; the corner model a quarter card, with the colour round the
#: index. More weight to the index reads cut values better and the table's patterns worse.
INDEX_WEIGHT = _PHOTO.index_weight
#: A partly covered card is reported when its card mass (1 - p(none)) and its label's
#: probability reach these. Lower finds more covered cards whose index is half hidden, and
#: reports more strips misread (a red draw two's index read as a red 2) and table patterns.
MIN_MASS = _PHOTO.min_mass
MIN_LABEL = _PHOTO.min_label
#: ... or, read less surely (but at least AGREEING_LEAST), where AGREEING_READS outlines or more
#: with their index at one place (within SAME_INDEX of the card width: the refined variants of
#: one outline, an outline put on a corner and one on the index the finder found) read the label,
#: their probabilities averaging AGREEING_MEAN or more. In a tight fan the next card cuts each
#: index: its colour reads surely, its value less, spread over like values on each outline, and
#: no one outline reaches MIN_LABEL; outlines that agree are evidence one outline is not. An
#: index inside a card read whole is not lifted so (its own print, misread). 0 turns it off.
AGREEING_READS = _PHOTO.agreeing_reads
AGREEING_LEAST = _PHOTO.agreeing_least
AGREEING_MEAN = _PHOTO.agreeing_mean
#: ... and a wild's (a black card's) label at least this: its corner index is a small oval of the
#: four colours, and the edge of a strip of coloured cards can look like one. Wilds whose index
#: shows read at 0.95 or more; wilds read on the edges of coloured strips read lower.
WILD_MIN_LABEL = _PHOTO.wild_min_label
#: Outlines of one label that overlap by this IoU are the same card (two outlines of one card
#: differ by which of its corners they were put on); any two overlapping by SAME_PLACE_IOU are.
#: Neighbours in a tight fan or cascade overlap by IoU 0.6-0.8: a lower SAME_PLACE_IOU drops
#: them, a higher one counts a card read twice (once misread) twice. One card read under two
#: labels is still one: its two readings' indices lie together (SAME_INDEX).
SAME_CARD_IOU = _PHOTO.same_card_iou
SAME_PLACE_IOU = _PHOTO.same_place_iou
#: ... unless, overlapping by no more than SAME_PLACE_IOU, the second reading's index lies
#: further than this share of the card width from both index corners of the first: a second card
#: of the label (players sort their hands, so a hand's two red 8s lie side by side, their indices
#: 0.4-0.5 of a card apart). One card read again is read at one of its own two indices, so near
#: one of them however its outline is off. Lower finds more twins and counts more cards on
#: outlines a little off twice. 0 turns it off.
SAME_LABEL_CORNER = _PHOTO.same_label_corner
#: ... but beside a card read whole the distance is this: that outline is often a little off
#: (a hand outlined as its top card, moved onto a corner reading), and the card's other index
#: then lies further from the outline's corners.
SAME_LABEL_CORNER_WHOLE = _PHOTO.same_label_corner_whole
#: ... but every back has the one label and no index: backs overlapping by more than this (IoU)
#: are one back. Neighbours in a fan of backs overlap by IoU 0.3-0.35, two outlines of one back
#: by more; higher counts one back twice more often, lower drops backs of a tight fan.
BACK_SAME_IOU = _PHOTO.back_same_iou
#: ... and a back read where its corner lies within BACK_CORNER of the card width of any of the
#: four corners of a back already found, overlapping that back by more than BACK_CORNER_IOU, is
#: that back: a back has no index, every corner of it reads alike, and a second outline put on
#: its strip's other corner runs another way (IoU 0.4-0.45 with the first). Backs fanned about
#: one corner (a fan's pivot) have their corners together too, but overlap less; a larger
#: BACK_CORNER drops more of those. A face's corner reads ``none`` away from its two index
#: corners, so faces need no such rule. 0 turns it off.
BACK_CORNER = _PHOTO.back_corner
BACK_CORNER_IOU = _PHOTO.back_corner_iou
#: What shows of a partly covered card (its outline outside the cards found) is card-like
#: (unlike the table) by at least this share. A strip a tenth of a card wide is mostly its white
#: border; lower keeps such strips and also outlines that stick out over the table.
STRIP_CARD_LIKE = _PHOTO.strip_card_like
#: ... measured on a map of what is unlike the table at this many pixels a card's width: a strip
#: a tenth of a card wide, as a tight fan shows, is then about five pixels (at 16 it was one or
#: two, lost in the map). Finer costs more per photo.
STRIP_PX = _PHOTO.strip_px
#: ... unless its reading is this sure (mass x label probability) and it overlaps no card found
#: by more than STRIP_SURE_IOU: on a white table the white border and the small index of a
#: narrow strip look like the table on the map, and a sure index is the better evidence.
#: Neighbours in a tight fan overlap by IoU 0.66-0.74; a card read whole whose outline grew over
#: the strip under it overlaps it by more.
STRIP_SURE = _PHOTO.strip_sure
STRIP_SURE_IOU = _PHOTO.strip_sure_iou
#: What shows of a strip is measured outside the cards found each shrunk by this share about
#: its middle: their outlines overhang their cards by a few per cent (a width measured 5 % off,
#: a whole-card outline grown by the border), which hid a narrow strip (0.13-0.4 of a card
#: showing) under them. Larger lets outlines beside a card count its overhang as their own.
STRIP_SHRINK = _PHOTO.strip_shrink
#: A partly covered card's outline overlaps a card found by at least this share of its area: a
#: card under others lies under one of them, so a fan is followed card by card from its top card
#: and lines on the table (a rules sheet) stay out.
COVERED = _PHOTO.covered
#: ... unless the partial model is this sure of it (mass x label probability): the top card of a
#: hand that the whole-card pass missed (its outline merged with the strips under it) starts the
#: hand's chain itself. Above 1: never.
SEED = _PHOTO.seed

#: A card read whole whose outline is not a card's (its area or its proportions off by more than
#: this share from a card of the width measured on the cards read whole: the outline of a strip
#: and the card on it, merged) takes the outline of the surest partly covered candidate of the
#: same label that overlaps it by RESHAPE_IOU (IoU): the corner model put that one on the card's
#: own corner. Lower reshapes cards whose outline is only a little off (a border grown by a few
#: per cent); higher keeps merged outlines that hide the strips beside them.
ODD_SHAPE = _PHOTO.odd_shape
RESHAPE_IOU = (0.3, 0.95)
#: ... or, when it is read at least ODD_SURE (kept anyway), that holds it by at least this share
#: of its area: a card's outline is the card, never its centre oval or a patch of its face.
#: Unsure ones are not brought back this way: put on a covered card's outline as if whole, they
#: hide the neighbour's index under that card's far corner.
RESHAPE_INSIDE = _PHOTO.reshape_inside
#: A back read whole is reshaped only by a candidate overlapping it by more than this (IoU),
#: not RESHAPE_IOU's 0.3: a back has no index, and its corner reads "back" wherever an outline
#: puts the corner on its pattern, so a back candidate half off the outline says nothing of
#: where the card lies. Higher keeps more backs on outlines grown over their neighbours.
BACK_RESHAPE_IOU = _PHOTO.back_reshape_iou
#: A card read whole whose outline is not a card's and that no corner reading of its label
#: reshapes is left out unless read at least this surely, when it is unlike the other outlines
#: of cards read whole too (:func:`_odd_among`: the whole-card pass may outline every card of a
#: photo larger than the card): such an outline spans the strips of several cards of a hand, and
#: the corner readings find those cards. Higher leaves out more cards read whole on loose
#: outlines; lower keeps more hands' outlines read as one card.
ODD_SURE = _PHOTO.odd_sure

#: ... and one whose outline is more than this many times a card's area (of the width measured)
#: is left out however surely it was read, unless reshaped: no card's outline is that large (one
#: card's loosest is about 1.8 card areas); it is a hand's or a pile's, read as its top card or
#: misread, and the cards under it are read by their corners. 0 turns it off.
BIG_OUTLINE = _PHOTO.big_outline

#: A card read whole lies on top: what lies under it does not show. A reading of it below
#: HIDDEN_BELOW whose outline holds the indices of at least HIDDEN_INDICES other cards read
#: surely there (corner readings of another label, card mass x label probability at least
#: STRIP_SURE, not the same place) is an outline across a hand's strips, or a covered card read as
#: if whole: it is left out and the corner readings find the cards there. A reading at 0.9 or
#: more can hold a sure index and be its card (a green 0 read at 0.99), so it stays.
HIDDEN_INDICES = _PHOTO.hidden_indices
HIDDEN_BELOW = _PHOTO.hidden_below

#: The second pass runs only when at least this many cards' worth of card-like pixels lie
#: outside the cards read whole (vision.corners.unexplained_cards): a tight fan's strip is about
#: a tenth of a card; less than this is a card's shadow or the table's grain.
UNEXPLAINED = _PHOTO.unexplained

#: The card width is measured on the cards read whole, each outline first put on its card's own
#: edges (:func:`vision.corners.card_width_on_edges`): the outlines of the whole-card pass are
#: grown by the border or merged with strips (their short side 0.78-1.18 of the true width, on
#: the edges 0.93-1.03), and every outline put on a corner is that much too large or small.
EDGE_WIDTH = True

#: The width measured on the cards read whole is checked against the width at which the index
#: finder sees its indices best (:func:`vision.index_points.width_from_indices`, 0.92-1.10 of the
#: true width): outside WIDTH_AGREE of it, the finder's width is taken. A hand of two or three
#: cards outlined and read as its top card measures 1.15-1.49 of the true width, a strip read as
#: a card 0.79-0.85; a fair measure, 0.89-1.06, is kept (it is the finer one). With no card read
#: whole, the finder's width alone is used. (0, inf): never checked.
WIDTH_AGREE = (0.87, 1.15)
#: Where the finder's width overruled the width measured on the cards' edges (WIDTH_AGREE), a
#: card read whole at least :data:`vision.corners.WIDTH_SURE` whose outline is not one card's at
#: the finder's width (:func:`reshaped_whole`) keeps its outline when, put on its own edges, it
#: is a card of the width measured and reads its own label at both index corners by the index
#: model at least OWN_CORNERS: the outline is that card's. In a tight fan the finder sees the
#: strips' indices best at about three quarters of the true width, and without this the top
#: card, right on its edges, was reshaped to that width and its strip read again as a second
#: card. A hand outlined as its top card reads that label at one corner at most. The same
#: probability tells which outlines explain what lies under them (:func:`unexplained_regions`).
OWN_CORNERS = _PHOTO.own_corners
#: ... trying the outline as it was read as well as the one put on its own edges: refining can
#: pull an outline off a card (a card read at 0.98 on an outline 1.04 of its width refined to
#: 0.96, no longer a card of the width measured), and as read its corners show its label.
#: False: the refined outline alone.
OWN_AS_READ = True
#: The outlines put on the place of a card read whole (the corner finder's and the index
#: finder's, KNOWN_IOU) are not read: that card is. Unless that card's reading is doubtful, its
#: outline not one card's and read below ODD_SURE, which :func:`reshaped_whole` may leave out:
#: its place is read by its corners as well, and the selection keeps one of the two (a corner
#: reading of the label on the card kept whole is that card); else a card three quarters shown,
#: read whole unsurely on a loose outline, is lost twice over.
READ_UNDER_DOUBTFUL = True
#: A card read whole on an outline of a card's shape is reshaped as an odd one is
#: (:data:`RESHAPE_IOU`) when the index model reads its label below this at both of the
#: outline's index corners: a card read whole shows its indices there, so an outline that shows
#: neither is not its card's (a wild outlined round its oval, turned 45 degrees, read again by
#: its corners as a second wild). Higher reshapes more cards whose corner outline lies a little
#: off their index. 0 turns it off.
INDEXLESS = _PHOTO.indexless
#: Where no outline of a card read whole, put on its edges, has a card's proportions
#: (:func:`vision.corners.card_width_on_edges` gives no width), the outlines as they are give
#: it, but only when one of them was read at least this surely; else the index finder searches
#: the width as if no card were read whole. A whole hand outlined as one card and read unsurely
#: as a card measures several times the true width, beyond the finder's check around it
#: (WIDTH_AROUND), and every card of the table is then lost.
WIDTH_UNREFINED_SURE = _PHOTO.width_unrefined_sure
#: ... and the width measured on their edges is taken only where one of them was read at least
#: this surely too; else the index finder searches the width as if no card were read whole (a
#: whole table of cards outlined as one card and read unsurely has edges of a card's proportions
#: three times a card wide). 0 turns it off.
EDGE_WIDTH_SURE = _PHOTO.edge_width_sure
#: The second pass does not run where the cards read whole explain every card-like pixel
#: (UNEXPLAINED); with this, an outline of more than BIG_OUTLINE card areas explains none: it is
#: a hand's, and the selection leaves it out (two hands outlined as one card each otherwise
#: explain a table's cards, and the pass does not run). False: every card read whole explains
#: its pixels.
EXPLAINED_BY_CARDS = True
#: ... nor does an outline whose sides are not a card's proportions (:func:`_odd_proportions`,
#: however surely it was read): a fan of two or three cards outlined as its top card (0.14-0.17
#: off) explains the strips of the cards under it. Not every outline of an odd size
#: (:func:`_odd_shape`): a hand laid side by side is outlined 8-23 % larger than its cards.
#: False: only BIG_OUTLINE's.
ODD_EXPLAINS_NOTHING = True
#: With no card read whole, the second pass runs only where card-like pixels lie, measured at
#: this rough width (a share of the image's short side): an empty table costs no search.
ROUGH_WIDTH = _PHOTO.rough_width
#: The second pass looks only where the cards read whole do not explain what shows
#: (:func:`unexplained_regions`). A card read whole explains its own outline when the outline has
#: a card's proportions and the index model reads the card's label at both of its index corners
#: at least OWN_CORNERS: a hand or a pile outlined as its top card shows that label at one corner
#: at most, a card's centre oval or a strip read as a card at neither. Card-like pixels outside
#: those outlines are the places to search; a patch smaller than a corner index
#: (:data:`vision.overlap.INDEX_BOX`'s area) cannot show one and is left out, and the pass does
#: not run at all where what is left comes to less than UNEXPLAINED cards. False: the whole image
#: is searched wherever the pass runs.
LOOK_WHERE_UNEXPLAINED = True
#: The index finder looks for indices within this many card widths round each card-like patch
#: left (its view of an index needs the print round it).
LOOK_MARGIN = _PHOTO.look_margin
#: ... each place searched reaching this many card heights round an index seen (the outline of a
#: card whose index shows there lies within a card's height of it, and the edges and indices it
#: is found by lie in the margin); where the places searched cover more than WHOLE_SEARCH of the
#: image, the whole image is searched. At 0 the places only decide whether the pass runs, and
#: where it runs it searches the whole image: searched in places (0.6), the fanned hands of
#: real crops lost about one card in 200 (the width checked on the places alone, outlines cut
#: at their edges) for a third of the CPU on the tables that clutter sends to the pass.
SEARCH_MARGIN = _PHOTO.search_margin
WHOLE_SEARCH = _PHOTO.whole_search
#: What the index finder sees left of the cards read whole counts as a card not yet read only
#: where the index model, reading the index box there, gives "none" less than this: the finder
#: also fires on print that only looks like an index (a page of text, a round sticker), and each
#: such sighting sent the whole photo to the pass.
SEEN_NOT_INDEX = _PHOTO.seen_not_index

#: A card read at one end (its index corner) and kept is not read again at its other end: a
#: corner reading of its label whose outline faces back towards it, with its index on the line
#: from the first index through the other index corner of the first outline, from FAR_END_NEAR
#: to FAR_END times as far and within FAR_END_SIDE of the card width of that line, is that card.
#: Where the card width is taken too small, the two outlines put at a card's two ends are too
#: short to overlap as one card's (outlines 0.75 of the width put the second index 1.5 times as
#: far as the first outline's other corner). A second card of one label lies beside the first
#: in a hand, facing the same way, and is not taken for it. 0 turns it off.
#: The second outline must face back along the first's axis, the cosine of the angle between
#: them above FAR_END_FACING (0.9, within 25 degrees): a twin of the label laid across the first
#: (two wilds crossed) lies on that line too. FAR_END_SIDE allows for a camera leaning so that
#: the far edge is two thirds of the near one, which puts the second index up to a quarter of a
#: card off the first outline's axis; wider takes more neighbours for the same card.
FAR_END = _PHOTO.far_end
FAR_END_NEAR = _PHOTO.far_end_near
FAR_END_SIDE = _PHOTO.far_end_side
FAR_END_FACING = _PHOTO.far_end_facing

#: Outlines read as a card with at least this card mass are moved a little (turned by
#: REFINE_TURN degrees about each corner, shifted by REFINE_SHIFT of the card width each way) and
#: read again, up to REFINE_ROUNDS times, keeping the surest reading (mass x label probability):
#: an outline put on a corner from short edge segments is a few degrees or pixels off, enough to
#: cut the index out of its corner crop. A moved outline is read at the corner it was read at.
#: Each round reads 12 outlines more for each outline refined: the costliest step of the pass.
REFINE_MASS = _PHOTO.refine_mass
REFINE_TURN = _PHOTO.refine_turn
REFINE_SHIFT = _PHOTO.refine_shift
REFINE_ROUNDS = _PHOTO.refine_rounds

#: A card read whole that :func:`reshaped_whole` leaves out (its outline not a card's of the width
#: found, or over other cards' indices), read surely (ODD_SURE) or on an outline larger than
#: BIG_OUTLINE cards, and on an outline no smaller than a card (1 - ODD_SHAPE card areas), comes
#: back when the second pass keeps no partly covered card in its place (none whose centre lies
#: inside its outline): those rules leave a hand's outline out so that the cards under it are
#: read by their corners, and where none is, the reading as it was is the best answer there is
#: (a close-up whose card is wider than the index finder looks for). False turns it off.
WHOLE_KEPT = True

#: A corner reading whose outline covers an index of a card read whole (at HIDDEN_BELOW or more,
#: both its index corners reading its label, OWN_CORNERS: it lies on top, its outline its own),
#: and whose own index lies inside that card's outline or within this share of the card width of
#: it, is no card: that card's index shows, so nothing lies on it there, and the reading's own
#: index would lie under it (the black side of a wild draw four read again at its corner as a
#: back's on an outline across it). Both corners must read the label: a card read "whole" that
#: others cover shows one. None turns it off.
SHOWN_OVER = _PHOTO.shown_over
#: ... judged only on an outline of a card's proportions (not :func:`_odd_proportions`): a card
#: read whole on an outline grown over the strip of the card under it (a fan of two or three,
#: outlined as its top card) puts "its" index corners on that strip, where the card under it
#: shows its own index, which would then pass for the top card's. Not on every outline of an odd
#: size (:func:`_odd_shape`): a hand laid side by side, outlined 8-23 % larger than its cards,
#: then has a card read again at its index as another. False: every card read whole at
#: HIDDEN_BELOW whose corners read its label.
SHOWN_CARD_SHAPED = True

#: A back read by a corner, lying at least this share inside the outline a back read whole and
#: reshaped (:func:`reshaped_whole`) was read on (no more than BIG_OUTLINE cards), is that back
#: read again (reshaped onto a corner outline inside it, its other corner reads as a second
#: back). Backs only: a face has an index to tell two cards apart, and for faces the rule drops
#: right cards. Lower drops more backs lying half under a back read whole. 0 turns it off.
AS_READ_INSIDE = _PHOTO.as_read_inside

#: A corner reading that overlaps no card found (COVERED) is a card alone on the table, one the
#: whole-card pass missed: it is kept only when read at least ISOLATED_SURE and its outline is at
#: least ISOLATED_CARD_LIKE unlike the table (:func:`vision.corners.strip_outside`), however
#: surely its mass reads (STRIP_SURE does not spare it); else it waits for a card found beside
#: it. A knitted sweater read as green 9s, keyboard keys read as backs, alone, read at
#: 0.84-0.97; real cards alone read at 0.93 or more and are 0.38 or more unlike the table.
#: 0 turns it off.
ISOLATED_SURE = _PHOTO.isolated_sure
ISOLATED_CARD_LIKE = _PHOTO.isolated_card_like

#: Two readings of one label, each of whose index (the corner print read) lies inside the other's
#: outline, are one card read at its two ends: an index that shows lies on no card above it, so of
#: two cards one's index would be hidden by the other. The outlines are first shrunk by
#: MUTUAL_SHRINK of their size, as an outline a little too large takes in its neighbour's index
#: (a card a tenth smaller than the table's width read at both ends). False turns it off.
MUTUAL_SHRINK = _PHOTO.mutual_shrink
MUTUAL_INDEX = True

#: Two readings whose index (the corner print read) lies within this share of the card width
#: are the same card: one index, one card. Neighbours in a fan or a row show their indices at
#: least ~0.2 of a card's width apart; two outlines of one card, one of them misread (a yellow 8
#: read again as a yellow 6), overlap by IoU 0.6-0.73, as fanned neighbours do.
SAME_INDEX = _PHOTO.same_index


class Candidate(NamedTuple):
    """One outline of a partly covered card, read at the index corner that shows more surely."""

    mass: float           # 1 - p(none)
    label: str
    conf: float           # the label's probability
    runners_up: tuple
    quad: np.ndarray      # the whole card's outline (4x2, ordered)
    index: np.ndarray     # where the index read lies (image pixels)
    corner: int = 0       # the corner read: 0 top left, 1 bottom right (turned)

_readers: dict = {}
_lock = threading.Lock()


def shared_reader(reader_cls, path: Path):
    """The one ``reader_cls(path)`` of this process (models are loaded once, and each reader is
    safe to share between threads): the partial pass and the indices' vote
    (:mod:`vision.index_vote`) read with the same index model."""
    with _lock:
        if path not in _readers:
            _readers[path] = reader_cls(path)
        return _readers[path]


@dataclass(frozen=True)
class Thresholds:
    """What makes an outline a partly covered card (the module's constants by default)."""

    min_mass: float = MIN_MASS
    min_label: float = MIN_LABEL
    wild_min_label: float = WILD_MIN_LABEL
    strip_card_like: float = STRIP_CARD_LIKE
    covered: float = COVERED
    seed: float = SEED
    same_index: float = SAME_INDEX
    odd_sure: float = ODD_SURE
    back_same_iou: float = BACK_SAME_IOU
    same_place_iou: float = SAME_PLACE_IOU
    strip_sure: float = STRIP_SURE
    strip_sure_iou: float = STRIP_SURE_IOU
    hidden_indices: int = HIDDEN_INDICES
    hidden_below: float = HIDDEN_BELOW
    reshape_inside: float = RESHAPE_INSIDE
    same_label_corner: float = SAME_LABEL_CORNER
    same_label_corner_whole: float = SAME_LABEL_CORNER_WHOLE
    back_corner: float = BACK_CORNER
    back_corner_iou: float = BACK_CORNER_IOU
    far_end: float = FAR_END


@dataclass
class Outlines:
    """One photo's outlines of partly covered cards, read: the candidates (surest first), before
    any threshold, so that thresholds can be tried on them (:func:`select`)."""

    cands: list            # Candidate, surest first
    whole: list            # the cards read whole
    unlike: np.ndarray | None = None
    scale: float = 1.0
    width: float | None = None   # the card width (pixels)
    own: frozenset = frozenset()  # the cards read whole (indices) whose outline is theirs (OWN_CORNERS)
    indexless: frozenset = frozenset()  # the cards read whole whose corners show no index of theirs (INDEXLESS)
    shown: tuple = ()  # (outline, index point) of each index of a card read whole that reads its label (SHOWN_OVER)


class IndexReader:
    """The index model (``vision/models/index.onnx``): the probability of every label (and
    ``none``) of corner index boxes (:func:`vision.corners.index_crop`). Safe to share between
    threads."""

    def __init__(self, path: Path = INDEX_MODEL_PATH):
        import json

        from vision.classes import NONE, DeckFilter

        self.model = OnnxModel(path)
        self.classes = tuple(json.loads(Path(path).with_suffix(".json").read_text())["classes"])
        self.none_index = self.classes.index(NONE)
        self._decks = DeckFilter(self.classes)

    def probs(self, crops: list[np.ndarray], deck: str = "auto") -> np.ndarray:
        """Each crop's probabilities (columns in :attr:`classes` order), labels outside ``deck`` 0."""
        self._decks.check(deck)
        if not crops:
            return np.zeros((0, len(self.classes)), np.float64)
        blob = np.ascontiguousarray(np.stack(crops).transpose(0, 3, 1, 2), np.float32)
        p = self.model.run(blob).astype(np.float64)
        return self._decks.narrow(p, deck)

    def probs_narrowed(self, p: np.ndarray, deck: str) -> np.ndarray:
        """Probabilities read with ``deck="auto"`` narrowed to ``deck``'s labels."""
        self._decks.check(deck)
        return self._decks.narrow(p, deck)


#: The index model's readings of the last photo's card outlines at their corners
#: (:func:`corner_probs`): (the reader, the photo's key, {outline: 2 x classes}).
_corners_kept: list = [None, None, {}]
_corners_lock = threading.Lock()


def corner_probs(index_reader, image_bgr: np.ndarray, quads: list, deck: str = "auto") -> np.ndarray:
    """``(len(quads), 2, classes)``: ``index_reader``'s probabilities of both index corners (0,
    1) of each card outline of ``image_bgr``, labels outside ``deck`` 0. The last photo's readings
    are kept, so that the cards read whole are read at their corners once a photo
    (:mod:`vision.index_vote` and this module both judge them by it)."""
    # (the photo's identity and a sample of its pixels: a new photo may reuse the memory)
    key = (id(image_bgr), image_bgr.__array_interface__["data"][0], image_bgr.shape,
           hash(image_bgr[::29, ::31].tobytes()))
    keys = [np.asarray(q, np.float32).tobytes() for q in quads]
    with _corners_lock:
        if _corners_kept[0] is not index_reader or _corners_kept[1] != key:
            _corners_kept[:] = [index_reader, key, {}]
        kept = dict(_corners_kept[2])
    new = [(k, q) for k, q in zip(keys, quads) if k not in kept]
    if new:
        crops = [index_crop(image_bgr, np.asarray(q, np.float32), c) for _k, q in new for c in (0, 1)]
        rows = np.asarray(index_reader.probs(crops)).reshape(len(new), 2, -1)
        for (k, _q), row in zip(new, rows):
            kept[k] = row
        with _corners_lock:
            if _corners_kept[0] is index_reader and _corners_kept[1] == key:
                _corners_kept[2].update({k: kept[k] for k, _q in new})
    n = len(getattr(index_reader, "classes", ())) or (next(iter(kept.values())).shape[-1] if kept else 0)
    if not quads:
        return np.zeros((0, 2, n), np.float64)
    raw = np.stack([kept[k] for k in keys])
    if deck == "auto":
        return raw
    return index_reader.probs_narrowed(raw.reshape(-1, raw.shape[-1]), deck).reshape(raw.shape)


def read_outlines(reader, image_bgr: np.ndarray, whole: list, deck: str = "auto",
                  model_path: Path | None = None, card_width: float | None = None,
                  index_model_path: Path | None = INDEX_MODEL_PATH,
                  points_model_path: Path | None = INDEX_POINTS_PATH) -> Outlines:
    """Every outline put on a corner (:func:`vision.corners.partial_quads`) and on a corner index
    the index finder found (:mod:`vision.index_points`, from ``points_model_path`` where that file
    is: None, the corners alone) with the partial model's reading (and the index model's, from
    ``index_model_path`` where that file is: None, the corner model alone); empty when there is
    no model, nothing card-like outside the cards read whole, or no card width (no card read
    whole and no index in sight). The card width is measured on the cards read whole and
    checked against the index finder's (:data:`WIDTH_AGREE`)."""
    path = model_path or PARTIAL_MODEL_PATH
    empty = Outlines([], whole)
    if not Path(path).is_file():
        return empty
    known = [np.asarray(s.quad, np.float32) for s in whole]
    boxes = None  # the places searched: None, the whole image
    if LOOK_WHERE_UNEXPLAINED:
        # (before the width is measured on the cards' edges: a photo whose cards are all read
        # whole pays for neither)
        boxes = unexplained_regions(image_bgr, whole, index_model_path, points_model_path)
        if boxes == []:
            return empty  # every card-like pixel lies on a card read whole, its own outline
    measured = card_width or _measured_width(image_bgr, whole, known)
    if measured is None and unexplained_cards(image_bgr, [], ROUGH_WIDTH * min(image_bgr.shape[:2])) < UNEXPLAINED:
        return empty  # nothing card-like on the table
    # (the finder checks the width where it searches, and on the cards read whole there: their
    # indices are what it measures a fair width by)
    width = card_width or _checked_width(image_bgr, measured, points_model_path,
                                         boxes and boxes + [_box(*q.min(0), *q.max(0), 0, *image_bgr.shape[1::-1])
                                                            for q in known if any(_touches(q, b) for b in boxes)])
    if not width:
        return empty
    # every card-like pixel is a card read whole: nothing lies under them. (Not when the width
    # measured on them was put right: they are hands outlined as one card, and explain nothing.)
    if width == measured and unexplained_cards(image_bgr, _explaining(whole, known, width), width) < UNEXPLAINED:
        return empty
    sure = [k for k, s in zip(known, whole) if not _doubtful(k, s.confidence, width)]
    quads = []
    for (x0, y0, _x1, _y1), part_img in _search_parts(image_bgr, boxes):
        at = np.float32([x0, y0])
        near = [k - at for k in sure]
        quads += [q + at for q in partial_quads(part_img, width, known=near)]
        if points_model_path is not None:
            quads += [q + at for q, _heat in index_points(part_img, width, points_model_path)
                      if not any(quad_iou(q, k) > KNOWN_IOU for k in near)]
    if not quads:
        return empty
    part = shared_reader(type(reader), Path(path))
    if index_model_path is not None and Path(index_model_path).is_file():
        part = _Both(part, shared_reader(IndexReader, Path(index_model_path)))
    cands = _refine(part, image_bgr, _read(part, image_bgr, quads, deck), deck, width)
    cands.sort(key=lambda c: -c.mass * c.conf)
    unlike, scale = unlike_table(image_bgr, width, STRIP_PX)
    own = frozenset()
    if isinstance(part, _Both) and measured and width != measured:   # the finder overruled the edges
        own = frozenset(i for i, s in enumerate(whole)
                        if s.confidence >= WIDTH_SURE and _odd_shape(np.asarray(s.quad, np.float32), width)
                        and _reads_its_corners(image_bgr, s, part.index, measured))
    indexless, shown = _corner_rulings(image_bgr, whole, part.index, width) if isinstance(part, _Both) \
        else (frozenset(), ())
    return Outlines(cands, whole, unlike, scale, width, own, indexless, shown)


def _measured_width(image_bgr: np.ndarray, whole: list, known: list) -> float | None:
    """The card width measured on the cards read whole: on their edges, else their outlines as
    they are (:data:`WIDTH_UNREFINED_SURE`); None where neither gives one, or where none of them
    was read surely enough to be trusted (:data:`EDGE_WIDTH_SURE`)."""
    if EDGE_WIDTH_SURE and not any(s.confidence >= EDGE_WIDTH_SURE for s in whole):
        return None
    return (EDGE_WIDTH and card_width_on_edges(image_bgr, known, [s.confidence for s in whole])) \
        or (card_width_of(known) if any(s.confidence >= WIDTH_UNREFINED_SURE for s in whole) else None)


def _explaining(whole: list, known: list, width: float) -> list:
    """The outlines of the cards read whole that explain the card-like pixels under them: all of
    them, or (:data:`EXPLAINED_BY_CARDS`) those of no more than :data:`BIG_OUTLINE` card areas
    (and, :data:`ODD_EXPLAINS_NOTHING`, of a card's proportions)."""
    if not EXPLAINED_BY_CARDS:
        return known
    return [k for k in known if not _big(k, width) and not (ODD_EXPLAINS_NOTHING and _odd_proportions(k))]


def _big(quad: np.ndarray, width: float) -> bool:
    """Whether ``quad`` is more than :data:`BIG_OUTLINE` times a card ``width`` pixels wide."""
    return bool(BIG_OUTLINE) and _card_areas(quad, width) > BIG_OUTLINE


def _card_areas(quad: np.ndarray, width: float) -> float:
    """``quad``'s area in areas of a card ``width`` pixels wide."""
    return abs(cv2.contourArea(quad)) / (width * width * CARD_RATIO)


def _doubtful(quad: np.ndarray, confidence: float, width: float) -> bool:
    """Whether a card read whole may be left out by :func:`reshaped_whole` (its outline not one
    card's, read below ODD_SURE): its place is read by its corners all the same
    (:data:`READ_UNDER_DOUBTFUL`)."""
    return READ_UNDER_DOUBTFUL and confidence < ODD_SURE and _odd_shape(quad, width)


def _checked_width(image_bgr: np.ndarray, measured: float | None, points_model_path: Path | None,
                   boxes: list | None = None) -> float | None:
    """The card width measured on the cards read whole, checked against the index finder's
    (:data:`WIDTH_AGREE`), which looks within the bounds of the places searched (``boxes``; None:
    the whole image); the finder's alone when no card was read whole; None when neither gives
    one."""
    if points_model_path is None:
        return measured
    short = min(image_bgr.shape[:2])
    if boxes:
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        image_bgr = image_bgr[y0:y1, x0:x1]
    seen = width_from_indices(image_bgr, measured, points_model_path, short_side=short)
    if measured is None or (seen and not WIDTH_AGREE[0] <= measured / seen <= WIDTH_AGREE[1]):
        return seen
    return measured


def unexplained_regions(image_bgr: np.ndarray, whole: list,
                        index_model_path: Path | None = INDEX_MODEL_PATH,
                        points_model_path: Path | None = INDEX_POINTS_PATH) -> list | None:
    """The places of ``image_bgr`` the second pass searches, as boxes ``(x0, y0, x1, y1)``
    (image pixels), given the cards read ``whole`` (:data:`LOOK_WHERE_UNEXPLAINED`): ``[]`` where
    they explain everything, None where the whole image is searched.

    The cards read whole whose outlines are their own (:func:`_own_outlines`) explain the
    card-like pixels (unlike the table, :func:`vision.corners.unlike_table`) inside them. What is
    left, in patches no smaller than a corner index, is looked at by the index finder at those
    cards' width (its own scale, :data:`vision.index_points.CARD_PX` pixels a card, within
    :data:`LOOK_MARGIN` of a card's width round each patch): an index it sees there, outside
    those outlines, is a card not yet read, and the pass searches :data:`SEARCH_MARGIN` card
    heights round it. An index at an index corner of a face read whole on an outline not its own
    (within :func:`vision.corners.index_outline`) is that card's; any other index inside it is
    another card's. The pass searches round the backs read whole (they show no index to be
    judged by) and the faces read whole below :data:`ODD_SURE` on outlines not their own (the
    selection judges whether they stay).
    With no card read whole on its own outline, the faces read at least :data:`ODD_SURE` on
    outlines of a card's proportions give the width the finder looks at (a print whose corner
    indices the index model does not read still has its face read whole); with none of those
    either, or no index model, the whole image is searched."""
    if index_model_path is None or not Path(index_model_path).is_file():
        return None
    index_reader = shared_reader(IndexReader, Path(index_model_path))
    own, doubtful = _own_outlines(image_bgr, whole, index_reader)
    # (with none confirmed, the faces read surely on outlines of a card's proportions give the
    # width: a print whose indices the index model does not know still has its centre read)
    judged = [q for q, judged in doubtful if judged and not _odd_proportions(q)]
    if not own and not judged:
        return None
    unit = card_width_of(own or judged)
    H, W = image_bgr.shape[:2]
    unlike, s = unlike_table(image_bgr, unit)
    known = cv2.dilate(_fill_quads(unlike.shape, own, s), np.ones((3, 3), np.uint8))
    left = (unlike & (1 - known)).astype(np.uint8)
    n, _labels, stats, _ = cv2.connectedComponentsWithStats(left, connectivity=8)
    from vision.overlap import INDEX_BOX

    card_px = (unit * s) ** 2 * CARD_RATIO
    x0, y0, x1, y1 = INDEX_BOX
    smallest = (x1 - x0) * (y1 - y0) * card_px    # a corner index's area
    patches = [stats[i] for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= smallest]
    if sum(int(p[cv2.CC_STAT_AREA]) for p in patches) < UNEXPLAINED * card_px:
        return []
    if points_model_path is None or not Path(points_model_path).is_file():
        return None
    look = LOOK_MARGIN * unit
    # a face read whole on an outline not its own shows its own indices at its index corners
    # (where the outline puts them) and nowhere else; another index inside it is another card's
    corners = [index_outline(q, k) for q, judged in doubtful if judged for k in (0, 1)]
    seen = []   # the indices seen that no card read whole explains
    for bx0, by0, bx1, by1 in _merged([_box(p[0] / s, p[1] / s, (p[0] + p[2]) / s, (p[1] + p[3]) / s, look, W, H)
                                       for p in patches]):
        for point, right, _heat in _points_finder(points_model_path)(image_bgr[by0:by1, bx0:bx1], unit):
            point = point + np.float32([bx0, by0])
            if not any(_inside(point, q) for q in own) and not any(_inside(point, c) for c in corners):
                seen.append((point, right))
    seen = _read_as_indices(image_bgr, seen, unit, index_reader)
    reach = SEARCH_MARGIN * unit * CARD_RATIO
    boxes = [_box(x, y, x, y, reach, W, H) for x, y in seen]
    for q, judged in doubtful:
        if not judged:
            (qx0, qy0), (qx1, qy1) = q.min(0), q.max(0)
            boxes.append(_box(qx0, qy0, qx1, qy1, reach, W, H))
    if not boxes:
        return []
    boxes = _merged(boxes)
    if sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) > WHOLE_SEARCH * W * H:
        return None
    return boxes


def _read_as_indices(image_bgr: np.ndarray, seen: list, unit: float, index_reader: IndexReader) -> list:
    """The points of ``seen`` (``(point, right)`` from the index finder) whose index box, on a
    card ``unit`` wide, the index model reads as an index: "none" below :data:`SEEN_NOT_INDEX`."""
    if not seen:
        return []
    from vision.index_points import outline_at

    crops = [index_crop(image_bgr, outline_at(point, right, unit, ordered=False), 0) for point, right in seen]
    none = index_reader.probs(crops)[:, index_reader.none_index]
    return [point for (point, _right), p in zip(seen, none) if p < SEEN_NOT_INDEX]


def _touches(quad: np.ndarray, box: tuple) -> bool:
    """Whether ``quad``'s bounding box and ``box`` overlap."""
    (x0, y0), (x1, y1) = quad.min(0), quad.max(0)
    return bool(x0 < box[2] and box[0] < x1 and y0 < box[3] and box[1] < y1)


def _points_finder(path: Path):
    from vision.index_points import _finder

    return _finder(str(path))


def _box(x0: float, y0: float, x1: float, y1: float, margin: float, W: int, H: int) -> tuple:
    """The box round ``(x0, y0)``-``(x1, y1)`` grown by ``margin`` each way, within the image."""
    return (max(0, int(x0 - margin)), max(0, int(y0 - margin)), min(W, int(x1 + margin) + 1),
            min(H, int(y1 + margin) + 1))


def _own_outlines(image_bgr: np.ndarray, whole: list, index_reader) -> tuple[list, list]:
    """``(own, doubtful)``: the outlines of the cards read whole that are their cards' own (of a
    card's proportions, the card's label read at both index corners at least
    :data:`OWN_CORNERS`), and ``(outline, judged by the indices seen)`` of the others: a face
    read at least :data:`ODD_SURE` (the selection keeps it whatever its outline) is judged by
    the indices the finder sees in it; a back, or a face read less surely (which the selection
    may leave out, :func:`reshaped_whole`), is searched round."""
    which = [i for i, s in enumerate(whole) if s.label in index_reader.classes and s.label != BACK
             and not _odd_proportions(np.asarray(s.quad, np.float32))]
    at = _own_label_at_corners(image_bgr, whole, index_reader, which)
    mine = {i for i, p in at.items() if (p >= OWN_CORNERS).all()}
    quads = [np.asarray(s.quad, np.float32) for s in whole]
    return ([q for i, q in enumerate(quads) if i in mine],
            [(q, whole[i].label != BACK and whole[i].confidence >= ODD_SURE)
             for i, q in enumerate(quads) if i not in mine])


def _fill_quads(shape, quads, s: float) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for q in quads:
        cv2.fillConvexPoly(m, np.round(np.asarray(q, np.float32) * s).astype(np.int32), 1)
    return m


def _merged(boxes: list) -> list:
    """``boxes`` with every two that overlap replaced by the box round both, until none do."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _search_parts(image_bgr: np.ndarray, boxes: list | None):
    """``((x0, y0, x1, y1), the image within)`` of each place searched (the whole image for None)."""
    if boxes is None:
        H, W = image_bgr.shape[:2]
        return [((0, 0, W, H), image_bgr)]
    return [((x0, y0, x1, y1), image_bgr[y0:y1, x0:x1]) for x0, y0, x1, y1 in boxes]


def _reads_its_corners(image_bgr: np.ndarray, sighting, index_reader, width: float) -> bool:
    """Whether a card read whole, its outline put on its own edges (or as read,
    :data:`OWN_AS_READ`), is a card ``width`` pixels wide (:data:`ODD_SHAPE`) that reads its own
    label at both index corners by the index model (:data:`OWN_CORNERS`): the outline is that
    card's."""
    if sighting.label not in index_reader.classes:
        return False
    raw = np.asarray(sighting.quad, np.float32)
    outlines = [refine_outline(image_bgr, raw)] + ([raw] if OWN_AS_READ else [])
    for q in outlines:
        if _odd_shape(q, width):
            continue
        p = index_reader.probs([index_crop(image_bgr, q, 0), index_crop(image_bgr, q, 1)])
        if (p[:, index_reader.classes.index(sighting.label)] >= OWN_CORNERS).all():
            return True
    return False


def _own_label_at_corners(image_bgr: np.ndarray, whole: list, index_reader, which: list) -> dict:
    """``{i: the index model's probability of whole[i]'s label at the two index corners of its
    outline as read}`` for the cards read whole ``which`` (indices into ``whole``), in one batch:
    :data:`INDEXLESS` and :data:`SHOWN_OVER` both judge by it."""
    if not which:
        return {}
    p = corner_probs(index_reader, image_bgr, [whole[i].quad for i in which])
    return {i: row[:, index_reader.classes.index(whole[i].label)] for i, row in zip(which, p)}


def _indexless_judged(sighting, width: float) -> bool:
    """Whether :data:`INDEXLESS` judges a face read whole: an odd outline is reshaped anyway
    (:func:`reshaped_whole`)."""
    return bool(INDEXLESS) and not _odd_shape(np.asarray(sighting.quad, np.float32), width)


def _shown_judged(sighting) -> bool:
    """Whether :data:`SHOWN_OVER` judges a face read whole: one read at HIDDEN_BELOW or more, on
    an outline of a card's proportions (:data:`SHOWN_CARD_SHAPED`)."""
    return (SHOWN_OVER is not None and sighting.confidence >= HIDDEN_BELOW
            and not (SHOWN_CARD_SHAPED and _odd_proportions(np.asarray(sighting.quad, np.float32))))


def _corner_rulings(image_bgr: np.ndarray, whole: list, index_reader, width: float) -> tuple[frozenset, tuple]:
    """``(indexless, shown)``. ``indexless``: the cards read whole (indices into ``whole``) on an
    outline of a card ``width`` pixels wide whose label the index model reads below
    :data:`INDEXLESS` at both index corners of that outline. ``shown``: ``(outline, index
    point)`` of both index corners of each card read whole at HIDDEN_BELOW or more whose label
    the index model reads at both at OWN_CORNERS or more, on an outline of a card's proportions
    (:data:`SHOWN_OVER`, :data:`SHOWN_CARD_SHAPED`). Backs have no
    index, so neither is read."""
    faces = [i for i, s in enumerate(whole) if s.label in index_reader.classes and s.label != BACK]
    at = _own_label_at_corners(image_bgr, whole, index_reader,
                               [i for i in faces if _indexless_judged(whole[i], width) or _shown_judged(whole[i])])
    indexless = frozenset(i for i, p in at.items() if _indexless_judged(whole[i], width) and (p < INDEXLESS).all())
    shown = tuple((q, index_point(q, k)) for i, p in at.items()
                  if _shown_judged(whole[i]) and (p >= OWN_CORNERS).all()
                  for q in (np.asarray(whole[i].quad, np.float32),) for k in (0, 1))
    return indexless, shown


def _over_a_shown_index(cand: Candidate, shown: tuple, width: float) -> bool:
    """Whether ``cand`` covers a shown index of a card read whole while its own index lies
    inside that card's outline or within SHOWN_OVER of the card width of it."""
    return SHOWN_OVER is not None and any(
        _inside(point, cand.quad)
        and cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(cand.index[0]), float(cand.index[1])), True)
        >= -SHOWN_OVER * width
        for quad, point in shown)


class _Both:
    """The corner model and the index model read as one (:data:`INDEX_WEIGHT`)."""

    def __init__(self, corner, index):
        self.corner, self.index = corner, index
        if tuple(index.classes) != tuple(corner.classes):
            raise ValueError("the index model's classes are not the corner model's")
        self.classes, self.none_index = corner.classes, corner.none_index
        self._reading = corner._reading

    def probs(self, image_bgr: np.ndarray, quads: list, corners: list, deck: str) -> np.ndarray:
        p = _corner_probs(self.corner, image_bgr, quads, corners, deck)
        i = self.index.probs([index_crop(image_bgr, q, k) for q, k in zip(quads, corners)], deck)
        mean = np.exp(INDEX_WEIGHT * np.log(i + 1e-9) + (1 - INDEX_WEIGHT) * np.log(p + 1e-9))
        return mean / mean.sum(1, keepdims=True)


def _corner_probs(part, image_bgr: np.ndarray, quads: list, corners: list, deck: str) -> np.ndarray:
    """The corner model's probabilities of each outline's quarter card at its corner."""
    return part._probs([normalize_card(corner_crops(image_bgr, q, k)[0]) for q, k in zip(quads, corners)], deck)


def _probs_at(part, image_bgr: np.ndarray, quads: list, corners: list, deck: str) -> np.ndarray:
    """The probabilities of each outline's index at its corner (one row an outline)."""
    if isinstance(part, _Both):
        return part.probs(image_bgr, quads, corners, deck)
    return _corner_probs(part, image_bgr, quads, corners, deck)


def _read(part, image_bgr: np.ndarray, quads: list, deck: str, corners: list | None = None) -> list[Candidate]:
    """Each outline read at the index corner that shows more surely of its two, or at the
    given ``corners`` (0: top left, 1: bottom right, one an outline)."""
    if corners is None:
        both = _probs_at(part, image_bgr, [q for q in quads for _k in (0, 1)], [0, 1] * len(quads),
                         deck).reshape(len(quads), 2, -1)
        pick = np.argmax(1 - both[:, :, part.none_index], axis=1)
        probs = both[np.arange(len(quads)), pick]
    else:
        pick = corners
        probs = _probs_at(part, image_bgr, quads, corners, deck)
    none = part.none_index
    out = []
    for q, k, p in zip(quads, pick, probs):
        p_card = p.copy()
        p_card[none] = 0.0
        r = part._reading(p_card)
        out.append(Candidate(1.0 - float(p[none]), r.label, float(p[part.classes.index(r.label)]),
                             r.runners_up, q, index_point(q, int(k)), int(k)))
    return out


def _variants(quad: np.ndarray, width: float) -> list[np.ndarray]:
    """``quad`` turned by +-REFINE_TURN degrees about each of its corners and shifted by
    REFINE_SHIFT of ``width`` each way (12 outlines)."""
    out = []
    for deg in (-REFINE_TURN, REFINE_TURN):
        a = np.radians(deg)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
        out += [((quad - v) @ rot.T + v).astype(np.float32) for v in quad]
    step = REFINE_SHIFT * width
    out += [quad + np.float32(d) * step for d in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return [order_quad(q) for q in out]


def _refine(part, image_bgr: np.ndarray, cands: list[Candidate], deck: str, width: float,
            min_mass: float | None = None) -> list[Candidate]:
    """``cands`` with those read at ``min_mass`` (REFINE_MASS) moved to their surest nearby
    outline (see REFINE_MASS): all the outlines of a round read in one batch."""
    cands = list(cands)
    floor = REFINE_MASS if min_mass is None else min_mass
    active = [i for i, c in enumerate(cands) if c.mass >= floor]
    for _ in range(REFINE_ROUNDS):
        if not active:
            break
        tried = [_variants(cands[i].quad, width) for i in active]
        # a moved outline is read at the corner its index was read at (half the reading)
        reads = _read(part, image_bgr, [q for qs in tried for q in qs], deck,
                      [cands[i].corner for i, qs in zip(active, tried) for _q in qs])
        still, k = [], 0
        for i, qs in zip(active, tried):
            best = max(reads[k:k + len(qs)], key=lambda c: c.mass * c.conf)
            k += len(qs)
            if best.mass * best.conf > cands[i].mass * cands[i].conf:
                cands[i] = best
                still.append(i)
        active = still
    return cands


def _odd_proportions(quad: np.ndarray) -> bool:
    """Whether ``quad``'s sides are not a card's proportions (:data:`ODD_SHAPE`), whatever its
    size: a measured card width can be off (the inner edge of a white border on a light table)."""
    return proportions_off(quad) > ODD_SHAPE


def _odd_among(quad: np.ndarray, typical_area: float) -> bool:
    """Whether ``quad`` is not the outline of one card among outlines of ``typical_area`` (the
    median of the whole-card pass's outlines of a card's proportions): its proportions or its
    area off by more than :data:`ODD_SHAPE`. The whole-card pass may outline every card a little
    larger than the card (drawn cards in a hand zone: 16 %); a strip merged with the card on it
    is larger than its neighbours' outlines as well."""
    return _odd_proportions(quad) or abs(abs(cv2.contourArea(quad)) / max(typical_area, 1e-6) - 1) > ODD_SHAPE


def _odd_shape(quad: np.ndarray, width: float) -> bool:
    """Whether ``quad`` is not the outline of one card ``width`` pixels wide (:data:`ODD_SHAPE`)."""
    return abs(_card_areas(quad, width) - 1) > ODD_SHAPE or _odd_proportions(quad)


def reshaped_whole(outlines: Outlines, thresholds: Thresholds = Thresholds()) -> list:
    """The cards read whole, those whose outline is not a card's (unless its own index corners
    say it is, :data:`OWN_CORNERS`), or whose corners show no index of theirs
    (:data:`INDEXLESS`), given the outline of the surest
    candidate of the same label over it (:data:`ODD_SHAPE`, :data:`RESHAPE_IOU`,
    :data:`RESHAPE_INSIDE`); label,
    confidence and ``visible`` stay. One whose outline is not a card's, with no such candidate,
    read less surely than ``thresholds.odd_sure``, is left out (:data:`ODD_SURE`), and so is one
    over the indices of other cards read surely (:data:`HIDDEN_INDICES`). Two readings of a
    label on one outline, one of them reshaped onto it, are one card: the surer stays."""
    return _reshaped(outlines, thresholds)[0]


def _reshaped(outlines: Outlines, thresholds: Thresholds) -> tuple[list, list, list]:
    """:func:`reshaped_whole`, the cards read whole it leaves out (not those it finds twice),
    and ``(label, outline as read)`` of each card it reshaped."""
    t = thresholds
    if not outlines.whole or not outlines.cands:
        return list(outlines.whole), [], []
    width = outlines.width or card_width_of([np.asarray(s.quad, np.float32) for s in outlines.whole])
    lo, hi = RESHAPE_IOU
    quads = [np.asarray(s.quad, np.float32) for s in outlines.whole]
    shaped = [abs(cv2.contourArea(q)) for q in quads if not _odd_proportions(q)]
    typical = float(np.median(shaped)) if shaped else width * width * CARD_RATIO
    out, moved, left_out = [], set(), []
    as_read = []  # (label, outline as read) of each card reshaped
    for i, s in enumerate(outlines.whole):
        q = np.asarray(s.quad, np.float32)
        odd = _odd_shape(q, width)
        if (odd and i not in outlines.own) or i in outlines.indexless:
            least = BACK_RESHAPE_IOU if s.label == BACK else lo
            sure = [c for c in outlines.cands if c.label == s.label and c.mass >= t.min_mass
                    and c.conf >= t.min_label
                    and (least < quad_iou(q, c.quad) < hi
                         or (s.confidence >= t.odd_sure and _covered_share(q, c.quad) >= t.reshape_inside))]
            if sure:  # cands are surest first
                best = sure[0].quad
                c = best.mean(0)
                s = replace(s, quad=tuple((float(x), float(y)) for x, y in best), center=(float(c[0]), float(c[1])))
                moved.add(len(out))
                as_read.append((s.label, q))
            elif s.confidence < t.odd_sure and _odd_among(q, typical) and odd:
                left_out.append(s)
                continue  # (an outline of a card's shape whose corners show no index stays)
            elif _big(q, width):
                left_out.append(s)
                continue
        if (s.confidence < t.hidden_below
                and _indices_under(s.label, np.asarray(s.quad, np.float32), outlines.cands, t) >= t.hidden_indices):
            left_out.append(s)
            continue
        out.append(s)
    return _one_reading_an_outline(out, moved), left_out, as_read


def _comes_back(sighting, partial: list, width: float, t: Thresholds) -> bool:
    """Whether a card read whole that :func:`reshaped_whole` left out comes back
    (:data:`WHOLE_KEPT`): read surely (``t.odd_sure``) or on an outline larger than
    :data:`BIG_OUTLINE` cards (a card closer than the width found), on an outline no smaller than
    a card, with no partly covered card of ``partial`` in its place. (A part of a card read as a
    card, its centre oval or a strip, stays out: brought back, it is an extra card, however
    surely it was read.)"""
    q = np.asarray(sighting.quad, np.float32)
    if sighting.confidence < t.odd_sure and not _big(q, width):
        return False
    if _card_areas(q, width) < 1 - ODD_SHAPE:
        return False  # a part of a card read as one
    return not any(_inside(np.asarray(p.center, np.float32), q) for p in partial)


def _one_reading_an_outline(whole: list, moved: set) -> list:
    """``whole`` less each reading that lies on the outline of a surer reading of its label
    (IoU > KNOWN_IOU) where either of the two was reshaped (its index in ``moved``): two
    patches of one card, each read as that card whole and both reshaped onto its corner
    outline, are one card."""
    quads = [np.asarray(s.quad, np.float32) for s in whole]
    order = sorted(range(len(whole)), key=lambda i: -whole[i].confidence)
    kept: list[int] = []
    for i in order:
        if any(whole[j].label == whole[i].label and (i in moved or j in moved)
               and quad_iou(quads[i], quads[j]) > KNOWN_IOU for j in kept):
            continue
        kept.append(i)
    return [whole[i] for i in sorted(kept)]


def _indices_under(label: str, quad: np.ndarray, cands: list, t: Thresholds) -> int:
    """How many corner readings of another label than ``label``, sure (:data:`STRIP_SURE`) and
    not in ``quad``'s place, read their index inside ``quad``."""
    return sum(1 for c in cands
               if c.label != label and c.mass * c.conf >= t.strip_sure
               and _inside(c.index, quad) and quad_iou(quad, c.quad) <= t.same_place_iou)


def settle(outlines: Outlines, thresholds: Thresholds = Thresholds()) -> list:
    """Every card of the photo: the cards read whole (:func:`reshaped_whole`) and the partly
    covered ones (:func:`select`)."""
    whole, left_out, as_read = _reshaped(outlines, thresholds)
    partial = _select(outlines, whole, thresholds, as_read)
    if WHOLE_KEPT and left_out:  # a card left out comes back where no covered card was found in its place
        width = outlines.width or card_width_of([np.asarray(s.quad, np.float32) for s in outlines.whole])
        whole = whole + [s for s in left_out if _comes_back(s, partial, width, thresholds)]
    return whole + partial


def select(outlines: Outlines, thresholds: Thresholds = Thresholds()) -> list:
    """The partly covered cards among ``outlines`` under ``thresholds`` (see the module docs)."""
    whole, _left_out, as_read = _reshaped(outlines, thresholds)
    return _select(outlines, whole, thresholds, as_read)


def _select(outlines: Outlines, whole: list, thresholds: Thresholds, as_read: list = ()) -> list:
    from vision.recognize import CardSighting

    t = thresholds
    kept = [(s.label, np.asarray(s.quad, np.float32)) for s in whole]
    whole_quads = [q for _lab, q in kept]
    width = outlines.width or card_width_of(whole_quads) or 0.0
    agreed = _agreed(outlines.cands, t, width, whole_quads)
    cands = [c for c in outlines.cands if c.mass >= t.min_mass
             and (c.conf >= t.min_label or id(c) in agreed)
             and (c.conf >= t.wild_min_label or not _is_wild(c.label))]
    whole_kept = list(kept)
    # the indices of the cards found (a card read whole: both of its corners)
    indices = [index_point(q, k) for _lab, q in kept for k in (0, 1)]
    near = t.same_index * width
    out = []
    # a partly covered card lies under another card: an outline is taken only once it overlaps a
    # card found (whole, or partial before it), so a fan is followed card by card from its top
    # card and junk outlines on the table (a rules sheet's lines) stay out
    ends = []   # (label, index read, the other index corner, outline) of each partly covered card kept
    pending = cands
    while pending:
        rest = []
        for cand in pending:
            label, conf, runners, q = cand.label, cand.conf, cand.runners_up, cand.quad
            ious = [quad_iou(q, k) for _lab, k in kept]
            if any(_one_card(cand, v, lab, k, t, width, whole=j < len(whole_kept))
                   for j, (v, (lab, k)) in enumerate(zip(ious, kept))):
                continue
            if any(float(np.linalg.norm(cand.index - i)) < near for i in indices):
                continue  # one index, one card: this one's index is a card found already
            if label == BACK and t.back_corner > 0 and any(
                    lab == BACK and v > t.back_corner_iou
                    and float(np.linalg.norm(k - cand.index, axis=1).min()) < t.back_corner * width
                    for v, (lab, k) in zip(ious, kept)):
                continue  # a corner of a back found already: that back
            if any(lab == label and _inside(cand.index, k) for lab, k in whole_kept):
                continue  # an index of a card read whole's label inside its outline: that card
            if AS_READ_INSIDE and label == BACK and any(lab == label and _covered_share(q, k) >= AS_READ_INSIDE
                                      and not _big(k, width) for lab, k in as_read):
                continue  # inside the outline a card reshaped was read on: that card again
            if _over_a_shown_index(cand, outlines.shown, width):
                continue  # over a card's index that shows, its own under that card: no card
            if label != BACK and any(lab == label and _at_far_end(cand, i, far, t.far_end, width)
                                     for lab, i, far, _k in ends):
                continue  # the other end of a card found by one end: that card
            if MUTUAL_INDEX and label != BACK and any(lab == label and _each_index_in_the_other(cand, i, k)
                                                      for lab, i, _far, k in ends):
                continue  # each index under the other's outline: one card read at both ends
            beside = any(_covered_share(q, k) >= t.covered for _lab, k in kept)
            if cand.mass * conf < t.seed and not beside:
                rest.append(cand)
                continue
            share, free = strip_outside(outlines.unlike, outlines.scale, q,
                                        [_shrunk(k, STRIP_SHRINK) for _lab, k in kept])
            if (ISOLATED_SURE or ISOLATED_CARD_LIKE) and (conf < ISOLATED_SURE or share < ISOLATED_CARD_LIKE) \
                    and not beside:
                rest.append(cand)
                continue  # alone, not sure enough: it waits for a card found beside it
            sure = cand.mass * conf >= t.strip_sure and not any(v > t.strip_sure_iou for v in ious)
            if not free or (share < t.strip_card_like and not sure):
                continue  # nothing of it shows, or what shows is the table: no card lies there
            kept.append((label, q))
            indices.append(cand.index)
            ends.append((label, cand.index, index_point(q, 1 - cand.corner), q))
            c = q.mean(0)
            out.append(CardSighting(label, conf, runners, tuple((float(x), float(y)) for x, y in q),
                                    (float(c[0]), float(c[1])), visible="partial"))
        if len(rest) == len(pending):
            break
        pending = rest
    return out


def _agreed(cands: list, t: Thresholds, width: float, whole: list) -> set:
    """``id`` of each candidate read below ``t.min_label`` whose label the outlines with their
    index at its place agree on (:data:`AGREEING_READS`), its index on none of the cards read
    whole (``whole``, their outlines shrunk by :data:`MUTUAL_SHRINK`)."""
    if AGREEING_READS <= 0 or width <= 0:
        return set()
    tops = [_shrunk(q, MUTUAL_SHRINK) for q in whole]
    # (one array of every outline's index: a table holds hundreds of outlines)
    as_cards = [d for d in cands if d.mass >= t.min_mass]   # (read as some card, not "none")
    at = np.array([d.index for d in as_cards], np.float32).reshape(-1, 2)
    out = set()
    for c in as_cards:
        if not AGREEING_LEAST <= c.conf < t.min_label:
            continue
        if any(_inside(c.index, q) for q in tops):
            continue  # a card read whole lies over it: its own print misread, not a card under it
        here = np.linalg.norm(at - c.index, axis=1) < SAME_INDEX * width
        confs = [d.conf for d, h in zip(as_cards, here) if h and d.label == c.label]  # c's own included
        if len(confs) >= AGREEING_READS and float(np.mean(confs)) >= AGREEING_MEAN:
            out.add(id(c))
    return out


def partly_covered(reader, image_bgr: np.ndarray, whole: list, deck: str = "auto",
                   model_path: Path | None = None, thresholds: Thresholds | None = None,
                   index_model_path: Path | None = INDEX_MODEL_PATH) -> list:
    """Every card of ``image_bgr`` given the ``whole`` sightings already read: those (an odd
    outline reshaped, :func:`reshaped_whole`) and the partly covered cards
    (:class:`vision.recognize.CardSighting`, with ``visible="partial"``). The outlines' size is
    the card width of :func:`read_outlines` (the cards read whole, checked by the index finder,
    or the finder's alone); only ``whole`` without the partial model's file. The corner indices
    are read with the index model of ``index_model_path`` (:data:`HANDS_INDEX_MODEL_PATH` for a
    hand laid open)."""
    return settle(read_outlines(reader, image_bgr, whole, deck, model_path, index_model_path=index_model_path),
                  thresholds or Thresholds())


def _shrunk(quad: np.ndarray, share: float) -> np.ndarray:
    """``quad`` shrunk by ``share`` of its size about its middle."""
    middle = quad.mean(0)
    return ((quad - middle) * (1.0 - share) + middle).astype(np.float32)


def _is_wild(label: str) -> bool:
    return label != BACK and parse_card(label).is_wild


def _one_card(cand: Candidate, iou: float, label: str, quad: np.ndarray, t: Thresholds, width: float,
              whole: bool = False) -> bool:
    """Whether ``cand`` is the card already found at ``quad`` (read as ``label``), given the
    IoU of their outlines."""
    if iou <= _same_iou(label, cand.label, t):
        return False
    if label != cand.label or label == BACK or iou > t.same_place_iou or t.same_label_corner <= 0:
        return True
    # the same label a little apart: the same card read at its other corner, or on an outline a
    # little off, has its index near one of that card's two index corners; a second card of the
    # label (a hand sorted by label) has it elsewhere
    return _near_an_index(cand, quad, (t.same_label_corner_whole if whole else t.same_label_corner) * width)


def _at_far_end(cand: Candidate, index: np.ndarray, far: np.ndarray, reach: float, width: float) -> bool:
    """Whether ``cand`` reads the other end of the card read by its index at ``index``, whose
    outline put the other index corner at ``far``: ``cand`` faces back towards ``index``, and
    its index lies on the line from ``index`` through ``far``, :data:`FAR_END_NEAR` to ``reach``
    times as far from ``index`` as ``far`` is (an outline too small puts ``far`` short), within
    :data:`FAR_END_SIDE` of the card ``width`` of that line, its own axis within
    :data:`FAR_END_FACING` (a cosine) of the first's, turned back (:data:`FAR_END`)."""
    if reach <= 0:
        return False
    axis = far - index
    length = float(np.linalg.norm(axis))
    if length == 0:
        return False
    axis = axis / length
    d = cand.index - index
    along, side = float(d @ axis), abs(float(d[0] * axis[1] - d[1] * axis[0]))
    back = index_point(cand.quad, 1 - cand.corner) - cand.index
    facing = -float(back @ axis) / max(1e-6, float(np.linalg.norm(back)))
    return (length * FAR_END_NEAR <= along <= length * reach and side <= FAR_END_SIDE * width
            and facing > FAR_END_FACING)


def _each_index_in_the_other(cand: Candidate, index: np.ndarray, quad: np.ndarray) -> bool:
    """Whether ``cand``'s index lies inside ``quad`` and the index at ``index`` (of the card
    found at ``quad``) inside ``cand``'s outline, both outlines shrunk by :data:`MUTUAL_SHRINK`
    (:data:`MUTUAL_INDEX`)."""
    return (_inside(cand.index, _shrunk(quad, MUTUAL_SHRINK))
            and _inside(index, _shrunk(cand.quad, MUTUAL_SHRINK)))


def _near_an_index(cand: Candidate, quad: np.ndarray, distance: float) -> bool:
    """Whether ``cand``'s index lies within ``distance`` of either index corner of ``quad``."""
    return any(float(np.linalg.norm(cand.index - index_point(quad, k))) < distance for k in (0, 1))


def _same_iou(a: str, b: str, t: Thresholds) -> float:
    """The IoU above which outlines read as ``a`` and ``b`` are one card."""
    if a != b:
        return t.same_place_iou
    return t.back_same_iou if a == BACK else SAME_CARD_IOU


def _inside(point: np.ndarray, quad: np.ndarray) -> bool:
    """Whether ``point`` lies in ``quad`` (its edge included)."""
    return cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2),
                                (float(point[0]), float(point[1])), False) >= 0


def _covered_share(q: np.ndarray, other: np.ndarray) -> float:
    """Share of outline ``q`` that ``other`` covers."""
    inter, _ = cv2.intersectConvexConvex(np.asarray(q, np.float32), np.asarray(other, np.float32))
    return float(inter / max(1e-6, abs(cv2.contourArea(np.asarray(q, np.float32)))))
