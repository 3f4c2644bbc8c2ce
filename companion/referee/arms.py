"""The evidence terms about whose hand it was: the arms seen in a reading (each
:class:`~companion.reading.Reach` comes in by one side of the mat), set against the table's seating.

Each is a pure function of the arms and the seating; what the referee does with it (credit the
seat on turn, infer a pass nobody tapped, ask an out-of-turn question) is decided by
:meth:`.whose.WhoseHand._whose`, which also reads the turn from the rules.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..reading import Reach
from ..seating import Seating
from .expected import FACING
from .hands import hand_of, over


def facing_pair(arms: Iterable[Reach], region: str, seating: Seating) -> tuple[str, ...] | None:
    """The seats whose arms in this reading may each have put down what lies in ``region``, when
    there are two or more (each arm one seat's): every arm seen over it (arms at once: the
    camera cannot tell which hand let go of the card), and an arm from the facing side seen over
    no region (an arm reaching along the line of another from the other side can be read as the
    other's: both lie in the same strip of the image). Two seats: the turn decides, or the table
    is asked; never a guess between them."""
    arms = tuple(arms)
    seats: list[str] = []
    for a in arms:
        if not over(a, region):
            continue
        found = [a] + [b for b in arms if not b.regions and b.side is not None
                       and b.side == FACING.get(a.side or "")]
        for r in found:
            hand = hand_of(r, seating)
            if hand.strong and hand.seats[0] not in seats:
                seats.append(hand.seats[0])
    return tuple(seats) if len(seats) > 1 else None


def other_seats_arms(arms: Iterable[Reach], region: str, seat: str | None, seating: Seating) -> tuple[str, ...]:
    """The seats other than ``seat`` whose arms in this reading may have put down what lies in
    ``region`` when no arm of ``seat`` (nor of a side it shares) was seen: arms seen over no
    region (one putting the card down and one reaching past it can both be read as over
    nothing), or, when none, every seat's arm seen while the arm over the card came in by a side
    nobody sits at. Empty: ``seat``'s own arm was there, or no other seat's. A play with such
    arms is asked about (out of turn), never credited to ``seat``."""
    arms = tuple(arms)
    hands = [hand_of(r, seating) for r in arms]
    if any(h.known and not h.excludes(seat) for h in hands):
        return ()
    idle = [h.seats[0] for r, h in zip(arms, hands) if h.strong and not r.regions]
    if not idle and any(over(r, region) and not h.known for r, h in zip(arms, hands)):
        idle = [h.seats[0] for h in hands if h.strong]
    return tuple(idle)


def later_next_arm(arms: Iterable[Reach], seat: str | None, next_seat: str | None,
                   seating: Seating) -> bool:
    """An arm of ``next_seat`` (the seat on turn once ``seat`` has played) came in after the last
    arm of ``seat``'s side, both seen over no region: a pile shows only its top card, which may
    be ``next_seat``'s, laid on a card of ``seat``'s that the camera never saw settle (the two
    arms one after another with no still frame between). False when ``seat``'s arm came in last,
    when no arm of ``seat``'s was seen, or when the later arm is another seat's (a hand reaching
    past: no play follows ``seat``'s but ``next_seat``'s)."""
    if seat is None or next_seat is None or next_seat == seat:
        return False
    last_own = None
    later = False
    for i, reach in enumerate(arms):
        hand = hand_of(reach, seating)
        if not hand.strong or reach.regions:
            continue
        if hand.seats[0] == seat:
            last_own, later = i, False
        elif hand.seats[0] == next_seat and last_own is not None:
            later = True
    return later


def own_lift(arms: Iterable[Reach], seat: str, seating: Seating, owed: Callable[[str], int]) -> Reach | None:
    """The first arm of ``seat``'s own side (no one else's) that lifted more cards from the draw
    pile than the rules still owe it (``owed``): its own draw, seen. Makes the play of the seat
    after it wait for that draw (arms at once: hers came in after his)."""
    for reach in arms:
        hand = hand_of(reach, seating)
        if reach.lifted and hand.seats == (seat,) and owed(seat) < reach.lifted:
            return reach
    return None
