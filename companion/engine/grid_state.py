"""The grid game's options (docs/rules.md flags), its immutable state, and reading the set-up line.

Hands are hidden: the state knows hand *sizes* and the draw pile *count*, and every card that lies
face up (all grid cards ever played, covered or not, and the discard pile), which is what the
card-counting and the ``bad-card`` copy check need.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..cards import CLASSIC, Card, UnknownCard
from ..decks import classic_deck, copies
from .base import options_from_json
from .errors import SetupError
from .grid_rules import CELLS, CENTRE, SIDES, SIZE, Cell

__all__ = ["GridOptions", "Forced", "GridState", "read_setup", "read_grid_names", "check_copies",
           "visible_counts", "fresh_game"]

HAND_SIZE = 5


@dataclass(frozen=True)
class GridOptions:
    """The docs/rules.md, the grid game flags, with their defaults.

    - ``decks``: classic 108-card decks combined (at least 1).
    - ``wild_matches_all``: a wild lying on the grid matches every card (``false``: it has no
      colour; only the same wild face matches it, for pawn steps and for plays onto it).
    - ``illegal_penalty_draw``: cards drawn as a penalty for an illegal action.
    - ``turn_seconds``: the turn timer the referee runs (0 = off). The engine only stores it.
    - ``timeout_action``: ``pass`` (a timeout ends the turn) or ``warn`` (it only sounds).
    - ``match_points``: points that win the match.
    """

    decks: int = field(default=1, metadata={"min": 1})
    wild_matches_all: bool = True
    illegal_penalty_draw: int = field(default=0, metadata={"min": 0})
    turn_seconds: int = field(default=30, metadata={"min": 0})
    timeout_action: str = field(default="pass", metadata={"choices": ("pass", "warn")})
    match_points: int = field(default=5, metadata={"min": 1})


@dataclass(frozen=True)
class Forced:
    """The plays a pawn landing on ``draw-two`` / ``wild-draw-four`` still demands of ``seat``.

    ``claimed_no_play`` turns true once the seat discards instead of playing: the claim is that no
    card in hand fits anywhere; the grid has not changed since, so only discards may follow.
    """

    seat: str
    left: int
    reason: str
    claimed_no_play: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"what": "forced-plays", "seat": self.seat, "left": self.left,
                "reason": self.reason, "claimed_no_play": self.claimed_no_play}


@dataclass(frozen=True)
class GridState:
    """One moment of a grid match. Never mutated: every action builds a new value.

    ``stacks`` holds the 25 cell stacks row by row, bottom card first (the last is the top).
    ``hands`` and ``scores`` are aligned with ``seats`` (clockwise play order). When the game is
    over, ``turn`` already names the seat that starts the next game (it sends ``round``).
    """

    seats: tuple[str, ...]
    stacks: tuple[tuple[Card, ...], ...]
    pawn: Cell | None
    last_cell: Cell | None
    turn: str
    direction: str
    hands: tuple[int, ...]
    draw_pile: int
    discards: tuple[Card, ...]
    pending: Forced | None
    game_starter: str
    scores: tuple[int, ...]
    game_number: int = 1
    winners: tuple[str, ...] = ()
    exit: Cell | None = None
    over: bool = False
    champions: tuple[str, ...] = ()
    low_announced: bool = False

    # --- small readers ---------------------------------------------------------------------
    def top(self, cell: Cell) -> Card:
        return self.stacks[cell[0] * SIZE + cell[1]][-1]

    def hand(self, seat: str) -> int:
        return self.hands[self.seats.index(seat)]

    def score(self, seat: str) -> int:
        return self.scores[self.seats.index(seat)]

    @property
    def acting_seat(self) -> str:
        """The one seat the table waits for (forced plays belong to the mover)."""
        return self.pending.seat if self.pending is not None else self.turn

    @property
    def match_over(self) -> bool:
        return bool(self.champions)

    @property
    def covered(self) -> int:
        """Grid cards under the top ones (they go back into the draw pile at a refill)."""
        return sum(len(stack) - 1 for stack in self.stacks)


def visible_counts(state: GridState) -> Counter[Card]:
    """Copies of each face lying face up: every grid card (covered ones too) and the discards."""
    seen: Counter[Card] = Counter(state.discards)
    for stack in state.stacks:
        seen.update(stack)
    return seen


def check_copies(cards: list[Card] | tuple[Card, ...], decks: int) -> str | None:
    """A message if some face appears more often than ``decks`` classic decks hold, else None."""
    deck = copies("classic", decks)
    for card, n in sorted(Counter(cards).items(), key=lambda item: item[0].name):
        if n > deck[card]:
            return f"{card} appears {n} times but {decks} deck(s) hold only {deck[card]}"
    return None


def read_grid_names(grid: Any) -> tuple[Card, ...]:
    """The 25 classic faces of a 5x5 grid of names; ``ValueError`` saying what is wrong."""
    if (not isinstance(grid, (list, tuple)) or len(grid) != SIZE
            or not all(isinstance(row, (list, tuple)) and len(row) == SIZE for row in grid)):
        raise ValueError("'grid' must be 5 rows of 5 card names (row 0 on the north side)")
    cards = []
    for r, row in enumerate(grid):
        for c, item in enumerate(row):
            name = item.name if isinstance(item, Card) else item
            try:
                cards.append(CLASSIC.parse(name))
            except UnknownCard as exc:
                raise ValueError(f"grid cell [{r}, {c}]: {exc}") from None
    return tuple(cards)


def fresh_game(seats: tuple[str, ...], grid: tuple[Card, ...], starter: str, decks: int,
               scores: tuple[int, ...], game_number: int) -> GridState:
    """A newly dealt game: 5 cards a hand, the 25 grid cards, pawn in the centre, clockwise."""
    deck_size = len(classic_deck(decks))
    return GridState(
        seats=seats,
        stacks=tuple((card,) for card in grid),
        pawn=CENTRE,
        last_cell=None,
        turn=starter,
        direction="cw",
        hands=(HAND_SIZE,) * len(seats),
        draw_pile=deck_size - len(CELLS) - HAND_SIZE * len(seats),
        discards=(),
        pending=None,
        game_starter=starter,
        scores=scores,
        game_number=game_number,
    )


_SETUP_KEYS = {"game", "seats", "first", "grid", "options"}


def read_setup(setup: Any) -> tuple[GridOptions, GridState]:
    """Check the replay set-up object and build the options and the first state.

    Seats are side names, 2 to 4, no duplicates, listed clockwise (any starting side). ``first``
    (default: the first seat listed) starts. Every problem raises :class:`SetupError`.
    """
    if not isinstance(setup, dict):
        raise SetupError("the set-up must be a JSON object")
    unknown = sorted(set(setup) - _SETUP_KEYS)
    if unknown:
        raise SetupError(f"the grid set-up takes no field(s) {', '.join(unknown)}: "
                         f"expected {', '.join(sorted(_SETUP_KEYS))}")
    options = options_from_json(GridOptions, setup.get("options"))
    seats = _read_seats(setup.get("seats"))
    first = setup.get("first", seats[0])
    if first not in seats:
        raise SetupError(f"'first' must be one of the seats {', '.join(seats)}, got {first!r}")
    try:
        grid = read_grid_names(setup.get("grid"))
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    too_many = check_copies(grid, options.decks)
    if too_many:
        raise SetupError(f"impossible grid: {too_many}")
    state = fresh_game(seats, grid, first, options.decks, (0,) * len(seats), 1)
    return options, state


def _read_seats(seats: Any) -> tuple[str, ...]:
    if not isinstance(seats, list) or not 2 <= len(seats) <= 4:
        raise SetupError("'seats' must list 2 to 4 sides of the grid: north, east, south, west")
    for seat in seats:
        if seat not in SIDES:
            raise SetupError(f"unknown side {seat!r}: grid seats are side names "
                             f"({', '.join(SIDES)})")
    if len(set(seats)) != len(seats):
        raise SetupError(f"a side is listed twice in 'seats': {seats}")
    # Listed clockwise means: some rotation of the north -> east -> south -> west order.
    order = tuple(side for side in SIDES if side in seats)
    start = order.index(seats[0])
    if tuple(seats) != order[start:] + order[:start]:
        raise SetupError(f"'seats' must be listed clockwise (north, east, south, west), e.g. "
                         f"{list(order)}; got {seats}")
    return tuple(seats)
