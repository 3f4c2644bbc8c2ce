"""Timer only: no rules, no camera; a phone or a table button ends each turn.

The companion as a turn-timer buzzer: the seat LEDs show whose turn it is, the buzzer times
every turn (docs/rules.md ``turn_seconds`` / ``timeout_action``), and ``pass`` (a phone, or the
draw/pass table button) hands the turn to the next seat clockwise.

>>> from companion.engine.actions import Pass
>>> game, state = TimerGame.from_setup({"game": "timer", "seats": ["ann", "ben", "cai"]})
>>> out = game.apply(state, Pass("ann"))
>>> [e.to_json() for e in out.events]
[{'type': 'turn', 'seat': 'ben'}]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from .actions import Action, Pass, Timeout
from .base import Game, Outcome, options_from_json, read_seats
from .errors import BadInput, IllegalAction, NotYourTurn, RuleError, SetupError
from .events import Event, event
from .look import Awaiting, TableLook, WaitingFor

__all__ = ["TimerGame", "TimerOptions", "TimerState", "read_seats"]


@dataclass(frozen=True)
class TimerOptions:
    """``turn_seconds`` (30; 0 = off) and ``timeout_action`` (``pass``: the turn moves on at 0;
    ``warn``: it only sounds)."""

    turn_seconds: int = 30
    timeout_action: str = field(default="pass", metadata={"choices": ("pass", "warn")})


@dataclass(frozen=True)
class TimerState:
    seats: tuple[str, ...]
    turn: int
    turns: int = 0


class TimerGame(Game[TimerState]):
    """Turns in seat order, ended by ``pass`` or by the timer."""

    name = "timer"
    options_class = TimerOptions
    takes = frozenset({"pass", "timeout"})

    def __init__(self, options: TimerOptions | None = None):
        self.options = options or TimerOptions()

    @classmethod
    def from_setup(cls, setup: dict[str, Any]) -> tuple["TimerGame", TimerState]:
        unknown = set(setup) - {"game", "seats", "first", "options"}
        if unknown:
            raise SetupError(f"a timer set-up takes no {', '.join(sorted(unknown))}")
        seats = read_seats(setup, minimum=1)
        first = setup.get("first", seats[0])
        if first not in seats:
            raise SetupError(f"'first' must be one of the seats, got {first!r}")
        options = options_from_json(TimerOptions, setup.get("options"))
        return cls(options), TimerState(seats, seats.index(first))

    def apply(self, state: TimerState, action: Action) -> Outcome[TimerState]:
        try:
            return Outcome(*self._accept(state, action))
        except RuleError as error:
            return Outcome(state, (), error)

    def _accept(self, state: TimerState, action: Action) -> tuple[TimerState, tuple[Event, ...]]:
        if action.by not in state.seats:
            raise NotYourTurn(f"{action.by!r} is not seated: the seats are {', '.join(state.seats)}")
        if action.by != state.seats[state.turn]:
            raise NotYourTurn(f"it is {state.seats[state.turn]}'s turn, not {action.by}'s")
        if isinstance(action, Timeout):
            if self.options.turn_seconds == 0:
                raise IllegalAction("the turn timer is off (turn_seconds = 0)", "timer-off")
            events = [event("timeout", seat=action.by, action=self.options.timeout_action)]
            if self.options.timeout_action == "warn":
                return state, tuple(events)
            return self._next(state, events)
        if isinstance(action, Pass):
            return self._next(state, [])
        raise self.malformed(action) or BadInput(f"the timer has no {action.do!r} action")

    @staticmethod
    def _next(state: TimerState, events: list[Event]) -> tuple[TimerState, tuple[Event, ...]]:
        new = replace(state, turn=(state.turn + 1) % len(state.seats), turns=state.turns + 1)
        return new, tuple(events + [event("turn", seat=new.seats[new.turn])])

    def legal_actions(self, state: TimerState) -> Iterator[Action]:
        seat = state.seats[state.turn]
        yield Pass(seat)
        if self.options.turn_seconds > 0:
            yield Timeout(seat)

    def table_look(self, state: TimerState) -> TableLook:
        """Nothing lies on the table in timer mode."""
        return TableLook()

    def waiting_for(self, state: TimerState) -> WaitingFor:
        """Always a turn: the seat on turn ends it."""
        return WaitingFor(Awaiting.TURN, state.seats[state.turn])

    def to_json(self, state: TimerState) -> dict[str, Any]:
        return {
            "game": self.name, "seats": list(state.seats), "turn": state.seats[state.turn],
            "direction": "cw", "side": None, "top": None, "color": None, "pawn": None,
            "last_cell": None, "hands": {}, "draw_pile": None, "pending": None, "winners": [],
            "scores": {}, "over": False, "champions": [], "turns": state.turns,
            "turn_seconds": self.options.turn_seconds,
        }
