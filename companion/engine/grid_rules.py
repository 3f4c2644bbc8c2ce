"""The grid game's board geometry and matching rules (docs/rules.md, the grid game), as small pure functions.

Cells are ``(row, col)`` with row 0 on the north side and col 0 on the west side; the board is
5x5 and the pawn starts on the centre cell ``(2, 2)``.

>>> from companion.cards import parse_card as c
>>> card_fits(c("red-7"), onto=c("red-1"), wild_matches_all=True)
True
>>> card_fits(c("blue-7"), onto=c("wild"), wild_matches_all=False)
False
>>> sides_crossed((-1, -1))
('north', 'west')
"""

from __future__ import annotations

from typing import Iterator

from ..cards import Card

__all__ = [
    "Cell", "SIZE", "CENTRE", "SIDES", "CELLS", "DRAW_PILE_LOW", "on_board", "neighbours",
    "is_adjacent", "sides_crossed", "same_colour_or_face", "card_fits", "step_matches",
    "clockwise_order", "match_champions",
]

Cell = tuple[int, int]

SIZE = 5
CENTRE: Cell = (2, 2)
#: The four sides, clockwise as seen from above (north at the top of the camera view).
SIDES = ("north", "east", "south", "west")
#: Every cell, row by row.
CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
#: ``draw-pile-low`` is announced when the draw pile holds this many cards or fewer: the most a
#: single legal turn can draw (landing on a ``wild-draw-four``), so the next turn may need a refill.
DRAW_PILE_LOW = 4

_STEPS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))


def on_board(cell: Cell) -> bool:
    return 0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE


def neighbours(cell: Cell) -> Iterator[Cell]:
    """The 8 cells one step away (horizontally, vertically, diagonally), off-board ones included."""
    for dr, dc in _STEPS:
        yield (cell[0] + dr, cell[1] + dc)


def is_adjacent(a: Cell, b: Cell) -> bool:
    """One king's step apart (a cell is not adjacent to itself)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def sides_crossed(target: Cell) -> tuple[str, ...]:
    """The sides a step to the off-board ``target`` crosses: one off an edge, two off a corner."""
    row, col = target
    crossed = []
    if row < 0:
        crossed.append("north")
    if row >= SIZE:
        crossed.append("south")
    if col < 0:
        crossed.append("west")
    if col >= SIZE:
        crossed.append("east")
    return tuple(crossed)


def same_colour_or_face(a: Card, b: Card) -> bool:
    """Uno matching between two coloured cards: same colour, same number or same symbol."""
    return a.color == b.color or a.face == b.face


def card_fits(card: Card, onto: Card, wild_matches_all: bool) -> bool:
    """May ``card`` from a hand be played on the grid top ``onto``?

    A wild from a hand goes on anything (whatever ``wild_matches_all`` says). A wild lying on the
    grid takes any card when ``wild_matches_all``; otherwise it has no colour and only the same
    wild face would match it -- which, coming from a hand, is already a wild.
    """
    if card.is_wild:
        return True
    if onto.is_wild:
        return wild_matches_all
    return same_colour_or_face(card, onto)


def step_matches(leaving: Card, arriving: Card, wild_matches_all: bool) -> bool:
    """May the pawn step from a cell topped by ``leaving`` to one topped by ``arriving``?

    The arriving card must be playable on the leaving one. Both cards lie on the grid, so with
    ``wild_matches_all = false`` a wild on either end matches only the same wild face.
    """
    if leaving.is_wild or arriving.is_wild:
        return wild_matches_all or leaving.face == arriving.face
    return same_colour_or_face(leaving, arriving)


def clockwise_order(seats: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The seated sides in clockwise play order, starting from north."""
    return tuple(side for side in SIDES if side in seats)


def match_champions(seats: tuple[str, ...], scores: tuple[int, ...],
                    target: int) -> tuple[str, ...]:
    """Who has won the match: of the seats at ``target`` points or more, those with the highest
    total (several when tied: they share the match); nobody while no seat has reached it.

    >>> match_champions(("north", "south"), (6, 5), 5)
    ('north',)
    """
    best = max((s for s in scores if s >= target), default=None)
    return () if best is None else tuple(seat for seat, s in zip(seats, scores) if s == best)
