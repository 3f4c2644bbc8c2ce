"""Where the seats sit around the mat: which side of the table each seat's arms come from.

The camera tells sides (:data:`companion.reading.SIDES`: north is the top of the mat's image),
never seats; the table's set-up says who sits where. By default the seats go round the table in
play order (clockwise seen from above: south, west, north, east), one side each; with more seats
than sides, neighbours share a side.

>>> s = Seating.around(["ann", "ben", "cy"])
>>> s.side_of("ben"), s.seats_at("south")
('west', ('ann',))
>>> Seating.around(["a", "b", "c", "d", "e", "f"]).seats_at("south")
('a', 'b')
>>> Seating.of({"ann": "north", "ben": "south"}).side_of("ann")
'north'
"""

from __future__ import annotations

from dataclasses import dataclass

from .reading import SIDES

__all__ = ["Seating", "CLOCKWISE", "SeatingError"]

#: The sides in play order (clockwise seen from above, starting at the mat's bottom edge).
CLOCKWISE = ("south", "west", "north", "east")


class SeatingError(ValueError):
    """A seating names a side that does not exist or leaves a seat without one."""


@dataclass(frozen=True)
class Seating:
    """Each seat's side of the mat, as ``(seat, side)`` pairs in seat order (frozen)."""

    pairs: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        bad = [side for _, side in self.pairs if side not in SIDES]
        if bad:
            raise SeatingError(f"no such side {bad[0]!r}: the sides are {', '.join(SIDES)}")
        seats = [seat for seat, _ in self.pairs]
        if len(set(seats)) != len(seats):
            raise SeatingError("a seat is given two sides")

    @classmethod
    def around(cls, seats: list[str] | tuple[str, ...]) -> "Seating":
        """The default: seats in play order round the table, neighbours sharing a side when
        there are more seats than sides (two seats: face to face)."""
        n = len(seats)
        if n == 2:
            return cls(((seats[0], "south"), (seats[1], "north")))
        per_side = -(-n // len(CLOCKWISE))  # ceil
        return cls(tuple((seat, CLOCKWISE[i // per_side]) for i, seat in enumerate(seats)))

    @classmethod
    def default(cls, seats: list[str] | tuple[str, ...]) -> "Seating":
        """Where the seats sit when nobody said: seats named after the mat's sides (the grid
        game's ``north``...) at their own side, others round the table (:meth:`around`). The
        one mapping the set-up, the seat LEDs, the camera's arms and the pages follow.

        >>> Seating.default(["north", "west"]).to_json()
        {'north': 'north', 'west': 'west'}
        >>> Seating.default(["ann", "ben", "cai", "dee"]).to_json()
        {'ann': 'south', 'ben': 'west', 'cai': 'north', 'dee': 'east'}
        """
        if seats and all(s in SIDES for s in seats):
            return cls(tuple((s, s) for s in seats))
        return cls.around(seats)

    @classmethod
    def of(cls, sides: dict[str, str]) -> "Seating":
        """A seating the organiser set: ``{seat: side}``."""
        return cls(tuple(sides.items()))

    def side_of(self, seat: str) -> str:
        for s, side in self.pairs:
            if s == seat:
                return side
        raise SeatingError(f"seat {seat!r} has no side")

    def seats_at(self, side: str | None) -> tuple[str, ...]:
        """The seats whose arms come in by ``side`` (empty when nobody sits there or unknown)."""
        return tuple(s for s, sd in self.pairs if sd == side)

    def to_json(self) -> dict[str, str]:
        return dict(self.pairs)
