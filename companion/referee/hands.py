"""Whose hand: the camera's arms (:class:`companion.reading.Reach`) as seats, and the draws seen.

The reader reports sides of the mat, never seats. The table's set-up says who sits where
(:func:`seating_of`: the organiser's ``"seating"`` beside the replay ``"setup"``, else the
default); :func:`hand_of` turns one reach into the seats it may belong to. A reach is **strong**
evidence when its side is known and one seat sits there; a reach with no side, or from a side
nobody sits at, says nothing; a side shared by several seats says only "one of these".

:class:`DrawLedger` counts, per seat, the cards the rules put in the seat's hand (the engine's
``drew`` events: a voluntary draw tapped on a phone, a penalty, a draw-two, a timeout) against
the cards the camera saw that seat lift from the draw pile. A lift the engine already accounts
for is no new draw: that is how a phone tap and a camera sighting of the same draw count once.

>>> from companion.reading import Reach
>>> seating = seating_of({"setup": {"game": "classic", "seats": ["ann", "ben", "cy"]}})
>>> hand_of(Reach("west"), seating)
Hand(side='west', seats=('ben',))
>>> hand_of(Reach(None), seating).seats
()
>>> ledger = DrawLedger()
>>> ledger.engine_drew("ann", 1)     # ann tapped "draw" on her phone
>>> ledger.lifted("ann", 1)          # the camera saw her take it: nothing new
0
>>> ledger.lifted("ann", 1)          # a second card: the camera sees a draw of its own
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ..reading import SIDES, Reach
from ..seating import Seating, SeatingError

__all__ = ["Hand", "hand_of", "seating_of", "DrawLedger", "SeatingError", "over", "lifts",
           "lifter", "DRAW_PILE"]

#: The draw pile's region name in a reach (and the region of a question about it).
DRAW_PILE = "draw"


def seating_of(setup: dict[str, Any]) -> Seating:
    """The seating of a table's set-up object (``{"setup": {...}, "seating": {seat: side}}``).

    Without ``"seating"``: the seats round the table (:meth:`Seating.around`), except in a game
    whose seats are the mat's sides (the grid game: ``north`` sits at the north side). A given
    seating must name every seat and only them, each with one of the four sides; anything else
    raises :class:`SeatingError` (a :class:`ValueError`) with what is wrong.
    """
    seats = list(setup["setup"]["seats"])
    given = setup.get("seating")
    if given is None:
        return Seating.default(seats)
    if not isinstance(given, dict):
        raise SeatingError('"seating" must be an object {seat: side}, e.g. {"ann": "south"}')
    unknown = [s for s in given if s not in seats]
    if unknown:
        raise SeatingError(f"seating names {unknown[0]!r}, who is not a seat of this table "
                           f"({', '.join(seats)})")
    missing = [s for s in seats if s not in given]
    if missing:
        raise SeatingError(f"seating gives no side to {missing[0]!r}: give every seat a side "
                           f"({', '.join(SIDES)})")
    for seat in seats:
        if not isinstance(given[seat], str) or given[seat] not in SIDES:
            raise SeatingError(f"{seat!r} sits at {given[seat]!r}: no such side (the sides are "
                               f"{', '.join(SIDES)})")
    return Seating(tuple((s, given[s]) for s in seats))


@dataclass(frozen=True)
class Hand:
    """The seats one reach may belong to: ``seats`` in seat order (empty: nobody can be told)."""

    side: str | None
    seats: tuple[str, ...]

    @property
    def known(self) -> bool:
        """Some seat sits at the side the arm came in by."""
        return bool(self.seats)

    @property
    def strong(self) -> bool:
        """Exactly one seat sits there: the arm is that seat's."""
        return len(self.seats) == 1

    def excludes(self, seat: str | None) -> bool:
        """The arm is known to be someone else's than ``seat``'s."""
        return self.known and seat not in self.seats


def hand_of(reach: Reach, seating: Seating) -> Hand:
    """The seats whose arms come in by ``reach``'s side."""
    return Hand(reach.side, seating.seats_at(reach.side) if reach.side is not None else ())


def over(reach: Reach, region: str) -> bool:
    """The arm was over ``region`` (the pawn: over it or any cell, where the pawn stands)."""
    if region == "pawn":
        return any(r == "pawn" or r.startswith("cell-") for r in reach.regions)
    return region in reach.regions


def lifts(reach: Reach) -> bool:
    """The arm took cards from the draw pile, or was there and may have (``lifted`` None)."""
    return bool(reach.lifted) or (reach.lifted is None and DRAW_PILE in reach.regions)


def lifter(hand: Hand, seat: str | None, seats: Iterable[str], ledger: "DrawLedger") -> str | None:
    """Whose hand took cards from the pile: one the rules dealt cards to (``ledger``) among the
    seats at that side (all ``seats`` when the side tells nothing), else the seat that must act
    (``seat``) when it may be its hand, else the one seat at that side; None when that cannot be
    told (a shared side without the seat that must act)."""
    cands = hand.seats or tuple(seats)
    owing = [c for c in cands if ledger.owed(c) > 0]
    if seat in owing:
        return seat
    if len(owing) == 1:
        return owing[0]
    if seat in cands:
        return seat  # weak evidence: the seat that must act, as without a camera to tell
    return cands[0] if len(cands) == 1 else None


class DrawLedger:
    """Per seat: cards the engine put in the seat's hand, less the cards the camera saw it lift.

    Positive: cards the seat still has to be seen taking (a penalty, a draw tapped on a phone);
    negative: cards seen lifted that the engine does not know of yet (a draw-until-colour being
    counted, a draw nobody tapped). Owned by the referee's thread; no lock.
    """

    def __init__(self) -> None:
        self._balance: dict[str, int] = {}
        #: seats seen at the draw pile with a count the camera could not tell
        self.unsure: set[str] = set()

    def engine_drew(self, seat: str, count: int) -> None:
        """The rules put ``count`` cards in ``seat``'s hand."""
        self._balance[seat] = self._balance.get(seat, 0) + int(count)

    def lifted(self, seat: str, count: int) -> int:
        """The camera saw ``seat`` lift ``count`` cards: returns how many of them the engine did
        not already account for (0: this was a draw, a penalty, already counted)."""
        before = self._balance.get(seat, 0)
        self._balance[seat] = before - count
        return count - min(count, max(before, 0))

    def owed(self, seat: str) -> int:
        """Cards the engine dealt ``seat`` that the camera has not seen taken yet."""
        return max(self._balance.get(seat, 0), 0)

    def unexplained(self, seat: str) -> int:
        """Cards the camera saw ``seat`` lift that the engine does not know of."""
        return max(-self._balance.get(seat, 0), 0)

    def settle(self, seat: str) -> None:
        """What ``seat`` drew is now known for sure (the table said so): start again from 0."""
        self._balance.pop(seat, None)
        self.unsure.discard(seat)

    def clear(self) -> None:
        """A new layout, an undo: nothing is owed, nothing unexplained."""
        self._balance.clear()
        self.unsure.clear()

    def to_json(self) -> dict[str, int]:
        return {s: b for s, b in sorted(self._balance.items()) if b}
