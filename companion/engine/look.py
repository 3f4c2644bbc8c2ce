"""What a table looks like and what it waits for, as typed values (for the camera referee).

Every engine answers two questions about a state besides the replay ``state`` object:

* :meth:`Game.table_look` -- a :class:`TableLook`: the cards a camera should see face up (the
  grid's top cards by cell, the discard pile's top card) and the pawn's cell;
* :meth:`Game.waiting_for` -- a :class:`WaitingFor`: what the table waits for
  (:class:`Awaiting`), the seat that must act and, for forced plays, how many are owed.

Both are pure functions of the state and agree with the replay ``state`` object (the property
tests check that), but a caller never has to read JSON keys to know them::

    >>> from companion.engine.flip import ClassicGame
    >>> game, state = ClassicGame.from_setup({"seats": ["ann", "ben"], "dealer": "ben",
    ...                                       "start": "red-5"})
    >>> game.table_look(state).discard
    'red-5'
    >>> w = game.waiting_for(state)
    >>> w.what, w.seat, w.camera_watches
    (<Awaiting.TURN: 'turn'>, 'ann', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterator

__all__ = ["Cell", "TableLook", "Awaiting", "WaitingFor", "CAMERA_WATCHES"]

Cell = tuple[int, int]


@dataclass(frozen=True)
class TableLook:
    """The face-up cards as the state says they lie.

    ``grid``: the grid game's top card names, row by row (empty for the card games);
    ``discard``: the discard pile's top card name (``None``: the pile is empty, or its top is not
    known yet -- a flip card waiting to be read); ``pawn``: the pawn's cell (``None``: no pawn, or
    it left the board).
    """

    grid: tuple[tuple[str, ...], ...] = ()
    discard: str | None = None
    pawn: Cell | None = None

    def cells(self) -> Iterator[tuple[Cell, str]]:
        """Every grid cell with the name of its top card, row by row."""
        for r, row in enumerate(self.grid):
            for c, name in enumerate(row):
                yield (r, c), name

    @property
    def has_grid(self) -> bool:
        return bool(self.grid)


class Awaiting(Enum):
    """What the table waits for before play goes on."""

    #: a normal turn: play, draw, move, discard...
    TURN = "turn"
    #: the grid's pawn landed on a draw card: ``left`` more plays are owed by ``seat``
    FORCED_PLAYS = "forced-plays"
    #: ``seat`` drew voluntarily: play the drawn card or pass
    PLAY_OR_PASS = "play-or-pass"
    #: a face newly turned up (a flip, a redrawn opening card) to be read
    REVEAL = "reveal"
    #: ``seat`` declares the colour of a wild nobody played
    COLOUR = "colour"
    #: ``seat`` accepts or challenges a wild draw
    CHALLENGE = "challenge"
    #: ``seat`` says how many cards they drew until the colour came
    DRAW_COUNT = "draw-count"
    #: the round is over; ``seats`` still lay their hands open (or enter them)
    SHOW = "show"
    #: the round or game is scored; ``seat`` starts the next one
    ROUND = "round"
    #: the match is decided: nothing more
    OVER = "over"


#: What a camera can referee: a card or the pawn put down on the table.
CAMERA_WATCHES = frozenset({Awaiting.TURN, Awaiting.FORCED_PLAYS, Awaiting.PLAY_OR_PASS,
                            Awaiting.REVEAL})


@dataclass(frozen=True)
class WaitingFor:
    """What the table waits for and who must act.

    ``seat``: the seat that must act (for a reveal any seat may send, the seat on turn, who is
    expected to turn it up; ``anyone`` is then true); ``None`` when no one seat acts (the match
    is over, several hands are awaited). ``left``: forced plays still owed (1 otherwise).
    ``seats``: the seats whose hands are awaited (:attr:`Awaiting.SHOW`).
    """

    what: Awaiting
    seat: str | None = None
    left: int = 1
    anyone: bool = False
    seats: tuple[str, ...] = ()

    @property
    def camera_watches(self) -> bool:
        """True when the camera has something to referee: a turn in play (not a round's end)."""
        return self.what in CAMERA_WATCHES
