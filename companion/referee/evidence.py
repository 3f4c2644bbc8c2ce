"""The evidence terms about what lies in a region: each a pure function of the reading (and, for
the look terms, of how the region looked when it last matched the state).

Each term says what it measures in the reading's own terms (the card model's probabilities for a
region, :class:`~companion.reading.RegionReading`; how far a region's look is from the one it
had when it last matched the state, :func:`look_distance`, measured by the reader) and what it
does to the decision: a gate a candidate must pass to be committed (:func:`plausible_play`), a
bound an illegal call must stay under (:func:`legal_mass`), or a reason to set a region aside as
"nothing happened" this reading (:func:`bare`, :func:`untouched`, :func:`looks_as_before`,
:func:`spill_over`). Which seat's hand an arm was is in :mod:`.arms`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, TypeGuard

from ..engine.actions import Action, Move
from ..reading import FLOOR, Reach, RegionReading, TableReading, cell_name
from ..tuning import RefereeTuning
from .expected import EMPTY, NOT_A_CARD, Expected, label_of, next_to, region_of, short_of, tuned
from .hands import over


@dataclass(frozen=True)
class Sight:
    """What the evidence terms that need more than one read look at: the ``reading`` being
    settled, the ``arms`` seen and not yet accounted for (oldest first), which look each region
    had when it last matched the state (``looks``: region -> (the label the state gave it, the
    look's id, :attr:`~companion.reading.RegionReading.look_id`)), and the ``tuning``."""

    reading: TableReading
    arms: tuple[Reach, ...]
    looks: Mapping[str, tuple[str, int]]
    tuning: RefereeTuning


# --- one region's read --------------------------------------------------------------------------

def plausible_play(got: RegionReading, action: Action, margin: float, illegal: float = 0.0) -> bool:
    """Gate on committing ``action``: the card it puts down is read about as likely as the
    likeliest label (which may be a card the rules refuse) and well clear of "no card", each
    within ``margin`` / 2 (natural log). A legal card at 1 % beside an illegal one at 94 % is no
    legal play, and a card and no card at even odds is no read of either. ``illegal``: how likely
    the likeliest card no legal action puts there is read (:func:`.decide.illegal_rival`), to be
    cleared as "no card" is."""
    likely = math.log(got.p(label_of(action)))
    return (likely >= math.log(got.confidence) - margin / 2
            and likely >= math.log(max(no_card(got), illegal)) + margin / 2)


def no_card(got: RegionReading) -> float:
    """How likely the read says the region shows no card (a hand, a shadow, a face the reader
    cannot name): the likeliest of the "no card" labels. :func:`plausible_play` holds a play's
    card clear of it: a card read at 0.40 beside "empty" at 0.36 is no read of either."""
    return max(got.p(label) for label in NOT_A_CARD)


def bare(diffs: dict[str, str], expected: Expected, reading: TableReading, margin: float) -> set[str]:
    """Regions where the state has a card that read "no card" above any card by ``margin``
    (natural log): set aside as nothing happened (unless a card was put down there:
    :func:`put_down_there`). A card never leaves a grid cell or the discard pile but by a change
    the state knows (a new layout, a card taken back), so no play shows there: the light hid the
    card (a wild's black face in dim light). What covers it, once lifted, shows the card again;
    a card put on it is a change."""
    out = set()
    for region, label in diffs.items():
        if region == "pawn" or label not in NOT_A_CARD or expected.labels.get(region, EMPTY) in NOT_A_CARD:
            continue
        got = reading.region(region)
        assert got is not None   # (a region that differs was read)
        cards = [p for name, p in got.probs if name not in NOT_A_CARD]
        if math.log(got.confidence) - math.log(max(cards, default=FLOOR)) >= margin:
            out.add(region)
    return out


def read_of(reading: TableReading, region: str) -> RegionReading:
    """The reading of ``region``, one that was read (a region that differs from the state)."""
    got = reading.region(region)
    assert got is not None
    return got


def clear(got: RegionReading | None, tuning: RefereeTuning | None = None) -> TypeGuard[RegionReading]:
    """A region read clearly (agreed by the votes, at ``named_confidence`` or more): enough to
    call on or ask about at once, and to count as a card where the hidden pawn stands."""
    return got is not None and got.agreed and got.confidence >= tuned(tuning).named_confidence


def formless(got: RegionReading | None, tuning: RefereeTuning | None = None) -> bool:
    """A read that shows no card: not :func:`clear`, and no card likeliest or no face at
    ``formless_confidence`` (the pawn's body, a hand). Near the pawn whose marker is hidden such
    a read waits instead of being asked (:func:`.decide.decide`); a card read at better odds, if
    weakly, is a play to ask about at once."""
    t = tuned(tuning)
    return got is not None and not clear(got, t) and (got.label in NOT_A_CARD
                                                      or got.confidence < t.formless_confidence)


def legal_mass(got: RegionReading, actions: Iterable[Action], region: str, expected: Expected) -> float:
    """Bound on an illegal call: how likely the reading of ``region`` is, at most, to show
    something no illegal call may be made on -- a card any seat may legally put there, or the
    card the state says lies there (nothing happened). The reading lists its likeliest labels
    only; a label it leaves out is no likelier than the least likely one listed, and all of them
    together hold no more than the probability left over: each unlisted legal label counts that
    much, so the figure never understates the risk of calling a legal move illegal."""
    allowed = {label_of(a) for a in actions if region_of(a) == region} | {
        expected.labels.get(region, EMPTY)}
    listed = dict(got.probs)
    left_over = max(0.0, 1.0 - sum(listed.values()))
    least = min(listed.values(), default=1.0)
    unlisted = sum(1 for label in allowed if label not in listed)
    return sum(p for label, p in listed.items() if label in allowed) + max(
        FLOOR * unlisted, min(left_over, least * unlisted))


def read_again_whole(reading: TableReading, expected: Expected, tuning: RefereeTuning | None = None) -> bool:
    """The reading read most of a grid's card regions again (more than half of those the state
    has, and more than ``nudged_regions``: a pile game's one or two regions are never a whole
    table): the camera was nudged and the whole table is seen through a new view, so every look
    is off by the view's misfit (:meth:`.sightings.Sightings._same_face_play` raises its bar)."""
    again = sum(1 for r in reading.changed if r in expected.labels)
    return again > tuned(tuning).nudged_regions and 2 * again > len(expected.labels)


def spill_over(diffs: dict[str, str], played: Iterable[str] = ()) -> set[str]:
    """Grid cells that read no card (a card never leaves the grid) next to a cell where a card
    was just put (one that reads a new card, or ``played``): set aside as nothing happened --
    the new card, dropped askew, reaches over them, or the hand that put it did."""
    new_cards = [r for r, label in diffs.items() if label not in NOT_A_CARD] + list(played)
    near = next_to(new_cards)
    return {name for name, label in diffs.items() if label in NOT_A_CARD and name in near}


def uncovered(pawn_was: tuple[int, int] | None, pawn_now: tuple[int, int] | None) -> str | None:
    """The cell the pawn stood on when the reading came and has left since (a step committed in
    this reading): its card shows now for the first time since the pawn covered it, so a read
    there that differs from the state is as likely a misread of that card as the next seat's
    play -- a commit or a call there is asked instead. None when the pawn has not moved."""
    if pawn_was is None or pawn_now is None or tuple(pawn_now) == tuple(pawn_was):
        return None
    return cell_name(*pawn_was)


def shows_more(reading: TableReading | None, action: Action | None, region: str, margin: float,
               expected_odds: float) -> bool:
    """An answer's card (``action``'s) is not the card read in its region now: an agreed read
    of another card, the answer's card below ``expected_odds`` and ``margin`` (natural log)
    under the likeliest -- a card laid on top of it since, a later action to ask about. A read
    the answer's card explains about as well (the card the camera was unsure of) shows nothing
    more."""
    label = label_of(action) if action is not None else None
    if label is None or reading is None or region == "pawn":
        return False
    got = reading.region(region)
    return (got is not None and got.label not in NOT_A_CARD and got.label != label
            and got.agreed and got.p(label) < expected_odds
            and math.log(got.confidence) - math.log(got.p(label)) >= margin)


def leads_further(reading: TableReading | None, action: Action | None) -> bool:
    """An answer's pawn step does not end where the pawn's marker is seen now: the pawn went on
    (a step the camera missed), read against the state once the answer is played."""
    return (isinstance(action, Move) and reading is not None and reading.pawn is not None
            and reading.pawn.seen and reading.pawn.cell is not None   # (seen: on a cell)
            and tuple(action.to) != tuple(reading.pawn.cell))


# --- the arms seen over a region -----------------------------------------------------------------

def arm_over(sight: Sight, region: str) -> bool:
    """One of the arms not yet accounted for went over ``region`` (a hand that may have put down
    what lies there)."""
    return any(over(a, region) for a in sight.arms)


def no_hand_over(sight: Sight, region: str) -> bool:
    """The reading saw arms, and none of the arms not yet accounted for went over ``region``
    (a reading with no arms at all says nothing of where hands were)."""
    return bool(sight.reading.reaches) and not arm_over(sight, region)


def arm_short_of(sight: Sight, region: str) -> bool:
    """One of the arms not yet accounted for was seen a cell short of ``region`` on its own
    side (:func:`.expected.short_of`: the hand's point is measured short of the fingers)."""
    return any(short_of(a, region) for a in sight.arms)


# --- a region's look against how it last matched the state -----------------------------------

def look_distance(sight: Sight, region: str, got: RegionReading | None) -> float | None:
    """How far the look of ``region`` read as ``got`` is from the look it had when it last
    matched the state (:class:`~companion.reading.LookChange`, measured by the reader: a turned
    smear taken out where the looks differ by more than ``same_face_look``); 0 for that very
    look; None when there is no look to compare (none remembered, none read, or a distance the
    reader measured against another look)."""
    _, since = sight.looks.get(region, (None, None))
    if got is None or since is None or got.look_id is None:
        return None
    if got.look_id == since:
        return 0.0
    change = got.look_change
    if change is None or change.since != since:
        return None
    return change.apart(sight.tuning.same_face_look)


def untouched(sight: Sight, diffs: dict[str, str], expected: Expected, margin: float) -> set[str]:
    """Regions that differ from the state but that no hand touched, set aside as nothing
    happened: the reading saw arms, none of the arms not yet accounted for went over the region
    (:func:`no_hand_over`), and its read still gives the card the state has there within
    ``margin`` (natural log) of its likeliest label (nothing happened explains it about as well
    as anything). A card is put down by a hand: such a read is the light or a smear. A read that
    clearly shows another card is still looked at (an arm may have been missed), and so is every
    region of a reading with no arms at all."""
    out = set()
    for region in diffs:
        if region == "pawn" or not no_hand_over(sight, region):
            continue
        got = sight.reading.region(region)
        want = expected.labels.get(region, EMPTY)
        if got is not None and math.log(got.confidence) - math.log(got.p(want)) < margin:
            out.add(region)
    return out


def looks_as_before(sight: Sight, diffs: dict[str, str], expected: Expected) -> set[str]:
    """Regions whose read differs from the state but whose look is within ``same_face_look`` of
    the look they had when they last matched it (:func:`look_distance`), set aside as nothing
    happened: a card put down, even of the same face, looks different; the read changed (a
    smear, light). Not a region read clearly as another card where a hand went over it: two
    cards of one colour can look alike through a smear."""
    same_face = sight.tuning.same_face_look
    out = set()
    for region in diffs:
        if region == "pawn":
            continue
        got = sight.reading.region(region)
        if clear(got, sight.tuning) and arm_over(sight, region):
            continue
        seen_as, _ = sight.looks.get(region, (None, None))
        if seen_as is None or seen_as != expected.labels.get(region):
            continue
        d = look_distance(sight, region, got)
        if d is not None and d <= same_face:
            out.add(region)
    return out


def put_down_there(sight: Sight, region: str) -> bool:
    """A card was put down in ``region`` whatever the read says: its look is further than
    ``same_face_look`` from when it last matched the state where a hand went over it (an arm not
    yet accounted for), or further than ``new_face_look`` where no hand was seen (gloss may hide
    the arm's way there). Keeps a region that reads no card (:func:`bare`) from being set aside:
    it is asked about instead."""
    d = look_distance(sight, region, sight.reading.region(region))
    if d is None:
        return False
    hand = bool(sight.reading.reaches) and arm_over(sight, region)
    return d > (sight.tuning.same_face_look if hand else sight.tuning.new_face_look)


def look_changes(sight: Sight, fresh: Iterable[str], expected: Expected,
                 pawn: tuple[int, int] | None) -> tuple[dict[str, float], list[str]]:
    """For the regions read again (``fresh``) that still read the card the state has there (at
    ``expected_odds`` or better), not under the ``pawn``: how far each looks from when it last
    matched the state (region -> look distance; a look remembered for another card says nothing
    of this one), and those never seen as the state has them that an arm went over (no look to
    compare: a hand there may have put the same face on it). A same face played shows as a
    large distance (:meth:`.sightings.Sightings._same_face_play`)."""
    scores: dict[str, float] = {}
    never_seen: list[str] = []
    for region in fresh:
        if pawn is not None and region == cell_name(*pawn):
            continue
        got = sight.reading.region(region)
        want = expected.labels.get(region)
        if got is None or want is None or (got.label != want and got.p(want) < sight.tuning.expected_odds):
            continue
        if region not in sight.looks and got.look_id is not None:
            if arm_over(sight, region):
                never_seen.append(region)
            continue
        seen_as, _ = sight.looks.get(region, (None, None))
        d = look_distance(sight, region, got) if seen_as == want else None
        if d is not None:
            scores[region] = d
    return scores, never_seen
