"""What every rule engine offers: a pure function from (state, action) to an :class:`Outcome`.

A game variant is a subclass of :class:`Game` holding its options (docs/rules.md flags). States are
immutable values; nothing here does I/O, reads a clock or draws a random number. The live
referee and ``companion replay`` drive every variant through the same four calls::

    game, state = GridGame.from_setup(setup_json)      # or FlipGame / ClassicGame
    outcome = game.apply(state, action)                 # never raises for a refused action
    outcome.ok, outcome.error, outcome.events, outcome.state
    for action in game.legal_actions(outcome.state): ...   # lazy
    game.to_json(outcome.state)                          # the replay ``state`` object

and two typed views of a state (:mod:`companion.engine.look`), for the camera referee::

    game.table_look(state)     # TableLook: grid tops by cell, discard top, pawn cell
    game.waiting_for(state)    # WaitingFor: what is awaited (Awaiting), by which seat
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Iterator, TypeVar

from .actions import ACTIONS, Action
from .errors import BadInput, RuleError, SetupError, shown
from .events import Event
from .look import TableLook, WaitingFor

__all__ = ["Outcome", "Game", "options_from_json", "read_seats", "seat_name_problem",
           "SEAT_NAME_MAX", "S"]

#: The longest seat name (characters). Names are shown on phones, the TV and the terminal.
SEAT_NAME_MAX = 24

S = TypeVar("S")


@dataclass(frozen=True)
class Outcome(Generic[S]):
    """The result of applying one action.

    ``error`` is ``None`` when the action was accepted. A refused action still has a ``state``:
    unchanged in the grid game, or with the penalty applied (flip/classic wrong card), and the
    ``events`` say what the refusal did.
    """

    state: S
    events: tuple[Event, ...] = ()
    error: RuleError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def seat_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a seat, or None when it can.

    A seat name is 1 to :data:`SEAT_NAME_MAX` printable characters (``str.isprintable``: no
    control characters, no lone surrogates, which no page or terminal can show) and not only
    spaces.

    >>> seat_name_problem("ann") is None
    True
    >>> seat_name_problem("   ")
    "'   ' is only spaces"
    """
    if not isinstance(name, str):
        return f"{name!r} is not a string"
    if not 1 <= len(name) <= SEAT_NAME_MAX:
        return f"{name[:SEAT_NAME_MAX]!r}... is {len(name)} characters long" if name else \
            "an empty name"
    if not name.isprintable():
        return f"{name!r} holds a character that cannot be printed"
    if not name.strip():
        return f"{name!r} is only spaces"
    return None


def read_seats(setup: dict[str, Any], minimum: int = 2, maximum: int = 10) -> tuple[str, ...]:
    """The set-up's ``seats``: ``minimum``..``maximum`` distinct seat names, listed clockwise.

    Every name must pass :func:`seat_name_problem`; anything else raises :class:`SetupError`
    (so ``companion replay`` and the web's set-up refuse the same set-ups).
    """
    seats = setup.get("seats")
    if not isinstance(seats, list) or not minimum <= len(seats) <= maximum:
        raise SetupError(f"'seats' must list {minimum} to {maximum} distinct seat names, "
                         f"clockwise; got {shown(seats)}")
    for seat in seats:
        problem = seat_name_problem(seat)
        if problem is not None:
            raise SetupError(f"bad seat name: {problem} (a seat name is 1 to {SEAT_NAME_MAX} "
                             f"printable characters)")
    if len(set(seats)) != len(seats):
        raise SetupError(f"'seats' must list distinct seat names; got {shown(seats)}")
    return tuple(seats)


def options_from_json(cls: type, data: Any) -> Any:
    """Build the frozen options dataclass ``cls`` from a JSON object, checking names and types.

    Unknown names and wrongly typed values raise :class:`SetupError` naming what was expected;
    each field's ``metadata["choices"]`` (if any) lists its allowed values.
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SetupError("'options' must be a JSON object of docs/rules.md flags")
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise SetupError(
            f"unknown option(s) {', '.join(unknown)}: this game knows {', '.join(sorted(known))}")
    values = {}
    for name, value in data.items():
        f = known[name]
        default = f.default
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= f.metadata.get("min", 0)
        else:
            ok = isinstance(value, type(default))
        choices = f.metadata.get("choices")
        if ok and choices is not None and value not in choices:
            ok = False
        if not ok:
            expected = (f"one of {', '.join(map(repr, choices))}" if choices
                        else f"a {type(default).__name__}"
                        + (f" >= {f.metadata['min']}" if "min" in f.metadata else ""))
            raise SetupError(f"option {name!r} must be {expected}, got {value!r}")
        values[name] = value
    return cls(**values)


class Game(ABC, Generic[S]):
    """A rule variant with its options. Subclasses: ``GridGame``, ``FlipGame``, ``ClassicGame``."""

    #: The ``game`` word of the replay set-up line.
    name: ClassVar[str]
    #: The ``do`` words this game takes at all; any other action is malformed for it.
    takes: ClassVar[frozenset[str]] = frozenset(ACTIONS)
    #: The most points a typed hand (``score``) may hold; more is a typo, not a hand.
    max_hand_points: ClassVar[int] = 9999

    @classmethod
    @abstractmethod
    def from_setup(cls, setup: dict[str, Any]) -> tuple["Game[S]", S]:
        """Read the replay set-up object; :class:`SetupError` with a clear message if it is bad."""

    @abstractmethod
    def apply(self, state: S, action: Action) -> Outcome[S]:
        """Apply ``action``; a refusal comes back as ``Outcome.error``, never as an exception."""

    @abstractmethod
    def legal_actions(self, state: S) -> Iterator[Action]:
        """Every action the rules allow now (lazily), for every seat that may act.

        Hands are hidden, so for plays this lists every face that would be legal if held.
        """

    @abstractmethod
    def to_json(self, state: S) -> dict[str, Any]:
        """The replay ``state`` object (docs/replay.md): turn, direction, top, color, pawn, ..."""

    def malformed(self, action: Action) -> RuleError | None:
        """The refusal of an action that is malformed *for this game* whatever the state: a
        ``do`` it does not take, a typed hand over :attr:`max_hand_points`, (scoreboard) a card
        not in its deck. None when the rules should judge it. :meth:`apply` refuses these the
        same way; callers (the web) ask first so that the table never sees them.
        """
        if action.do not in self.takes:
            return BadInput(f"the {self.name} has no {action.do!r} action: use "
                            f"{', '.join(sorted(self.takes - {'timeout'}))}")
        points = getattr(action, "points", None)
        if action.do == "score" and isinstance(points, int) and points > self.max_hand_points:
            return BadInput(f"'points' must be 0..{self.max_hand_points}: a hand is never worth "
                            f"{points}")
        return None

    @abstractmethod
    def table_look(self, state: S) -> TableLook:
        """The face-up cards and the pawn as the state says they lie (agrees with ``to_json``)."""

    @abstractmethod
    def waiting_for(self, state: S) -> WaitingFor:
        """What the table waits for now, and the seat that must act (agrees with ``to_json``)."""

    def is_legal(self, state: S, action: Action) -> bool:
        return self.apply(state, action).ok
