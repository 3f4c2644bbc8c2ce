"""The evidence terms: what a reading says about one region, each a pure function of the reading.
"""

from __future__ import annotations

import math
from typing import Iterable, TypeGuard

from ..engine.actions import Action
from ..reading import FLOOR, RegionReading, TableReading
from ..tuning import RefereeTuning
from .expected import EMPTY, NOT_A_CARD, Expected, label_of, next_to, region_of, tuned


def plausible_play(got: RegionReading, action: Action, margin: float, illegal: float = 0.0) -> bool:
    """The card ``action`` puts down is read about as likely as the likeliest label (which may
    be a card the rules refuse) and well clear of "no card", each within ``margin`` / 2: a
    legal card at 1 % beside an illegal one at 94 % is no legal play, and a card and no card at
    even odds is no read of either. ``illegal``: how likely the likeliest card no legal action
    puts there is read (:func:`illegal_rival`), to be cleared as "no card" is."""
    likely = math.log(got.p(label_of(action)))
    return (likely >= math.log(got.confidence) - margin / 2
            and likely >= math.log(max(no_card(got), illegal)) + margin / 2)


def no_card(got: RegionReading) -> float:
    """How likely the read says the region shows no card (a hand, a shadow, a face the reader
    cannot name): a play read there must be about as much likelier than that as it must be
    than the best read (:func:`decide`'s ``plausible``). (The torture's real-faced yellow-5
    read yellow-2 at 0.40 beside "empty" at 0.36, on a cell holding yellow-1, was committed as
    yellow-2: a card and no card at even odds is no read of either.)"""
    return max(got.p(label) for label in NOT_A_CARD)


def bare(diffs: dict[str, str], expected: Expected, reading: TableReading, margin: float) -> set[str]:
    """Regions where a card lies that read "no card" well above any card (by the margin): a
    card never leaves a grid cell or the discard pile but by a change the state knows (a new
    layout, a card taken back), so no play shows there; the light hid the card (in dim light a
    wild's black face on the pile read "no card" at 0.93 and was asked about, "misread"). What
    covers it, once lifted, shows the card again; a card put on it is a change."""
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
    """A region read clearly enough to call on or ask about at once."""
    return got is not None and got.agreed and got.confidence >= tuned(tuning).named_confidence


def formless(got: RegionReading | None, tuning: RefereeTuning | None = None) -> bool:
    """A read that shows no card: no card likeliest, or no face at even odds (the pawn's body,
    a hand). A card read at better odds, if weakly (a smeared green-7 read green-1 at 0.64),
    is a play to ask about at once."""
    t = tuned(tuning)
    return got is not None and not clear(got, t) and (got.label in NOT_A_CARD
                                                      or got.confidence < t.formless_confidence)


def legal_mass(got: RegionReading, actions: Iterable[Action], region: str, expected: Expected) -> float:
    """How likely the reading of ``region`` is, at most, to show something no illegal call may
    be made on: a card any seat may legally put there, or the card the state says lies there
    (nothing happened). The reading lists its likeliest labels only; a label it leaves out is
    no likelier than the least likely one listed, and all of them together hold no more than
    the probability left over: each unlisted legal label counts that much, so the figure never
    understates the risk of calling a legal move illegal."""
    allowed = {label_of(a) for a in actions if region_of(a) == region} | {
        expected.labels.get(region, EMPTY)}
    listed = dict(got.probs)
    left_over = max(0.0, 1.0 - sum(listed.values()))
    least = min(listed.values(), default=1.0)
    unlisted = sum(1 for label in allowed if label not in listed)
    return sum(p for label, p in listed.items() if label in allowed) + max(
        FLOOR * unlisted, min(left_over, least * unlisted))


def read_again_whole(reading: TableReading, expected: Expected, tuning: RefereeTuning | None = None) -> bool:
    """The reading read most of a grid's regions again (more than half of those the state has,
    and more than five: a pile game's one or two regions are never a whole table): the camera
    was nudged and the whole table is seen through a new view."""
    again = sum(1 for r in reading.changed if r in expected.labels)
    return again > tuned(tuning).nudged_regions and 2 * again > len(expected.labels)


def spill_over(diffs: dict[str, str], played: Iterable[str] = ()) -> set[str]:
    """Grid cells that read no card (a card never leaves the grid) next to a cell where a card
    was just put (one that reads a new card, or ``played``): the new card, dropped askew,
    reaches over them, or the hand that put it did. Nothing happened there (the torture's
    askew cards: every such cell asked about was answered "misread")."""
    new_cards = [r for r, label in diffs.items() if label not in NOT_A_CARD] + list(played)
    near = next_to(new_cards)
    return {name for name, label in diffs.items() if label in NOT_A_CARD and name in near}
