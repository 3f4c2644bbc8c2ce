"""Player actions: small immutable values, one class per ``do`` word of the replay contract.

Every action names the seat that acts (``by``). :func:`action_from_json` reads the replay form
(``{"by": "ann", "do": "play", "card": "red-5"}``) and :meth:`Action.to_json` writes it back.

>>> a = action_from_json({"by": "north", "do": "play", "card": "red-1", "cell": [0, 4]})
>>> a
Play(by='north', card=Card(color='red', face='1'), cell=(0, 4), color=None)
>>> a.to_json()
{'by': 'north', 'do': 'play', 'card': 'red-1', 'cell': [0, 4]}
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ..cards import Card, UnknownCard, parse_card
from .errors import BadCard, BadInput, shown

__all__ = [
    "Action", "Play", "Move", "Discard", "Timeout", "Draw", "Pass", "Uno", "Catch", "Challenge",
    "Accept", "Reveal", "Declare", "Penalty", "Show", "Score", "Round", "action_from_json",
    "ACTIONS",
]

Cell = tuple[int, int]


@dataclass(frozen=True)
class Action:
    """Base of all actions. ``do`` is the replay word of the subclass."""

    by: str
    do: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"by": self.by, "do": self.do}
        for f in fields(self):
            if f.name == "by":
                continue
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = _to_json_value(value)
        return out


def _to_json_value(value: Any) -> Any:
    if isinstance(value, Card):
        return value.name
    if isinstance(value, tuple):
        return [_to_json_value(v) for v in value]
    return value


@dataclass(frozen=True)
class Play(Action):
    """Play ``card``: onto grid ``cell`` (grid game) or onto the discard pile (``color`` for wilds)."""

    card: Card
    cell: Cell | None = None
    color: str | None = None
    do: ClassVar[str] = "play"


@dataclass(frozen=True)
class Move(Action):
    """Grid game: move the pawn to ``to``; a target outside 0..4 moves it off the board."""

    to: Cell
    do: ClassVar[str] = "move"


@dataclass(frozen=True)
class Discard(Action):
    """Grid game: put ``card`` on the discard pile (and draw one, or as a claimed no-play)."""

    card: Card
    do: ClassVar[str] = "discard"


@dataclass(frozen=True)
class Timeout(Action):
    """The turn timer ran out for ``by``."""

    do: ClassVar[str] = "timeout"


@dataclass(frozen=True)
class Draw(Action):
    """Flip/classic: draw ``count`` cards (a voluntary draw, or a draw-until-colour count)."""

    count: int = 1
    do: ClassVar[str] = "draw"


@dataclass(frozen=True)
class Pass(Action):
    """Flip/classic: keep the card just drawn; the turn passes."""

    do: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Uno(Action):
    """``by`` calls UNO!"""

    do: ClassVar[str] = "uno"


@dataclass(frozen=True)
class Catch(Action):
    """``by`` catches ``target``, who did not call UNO!"""

    target: str
    do: ClassVar[str] = "catch"


@dataclass(frozen=True)
class Challenge(Action):
    """The player hit by a wild draw challenges it; ``verdict`` is ``guilty`` or ``innocent``."""

    verdict: str
    do: ClassVar[str] = "challenge"


@dataclass(frozen=True)
class Accept(Action):
    """The player hit by a wild draw does not challenge and takes the draw."""

    do: ClassVar[str] = "accept"


@dataclass(frozen=True)
class Reveal(Action):
    """A face newly turned up: the top after a flip, or a redrawn opening card."""

    card: Card
    color: str | None = None
    do: ClassVar[str] = "reveal"


@dataclass(frozen=True)
class Declare(Action):
    """The colour of a wild that nobody played (an opening wild, a wild revealed by a flip)."""

    color: str
    do: ClassVar[str] = "declare"


@dataclass(frozen=True)
class Penalty(Action):
    """A penalty the table hands out by hand: ``target`` draws ``count``."""

    target: str
    count: int
    do: ClassVar[str] = "penalty"


@dataclass(frozen=True)
class Show(Action):
    """A hand laid open at the end of a round, for scoring."""

    cards: tuple[Card, ...]
    do: ClassVar[str] = "show"


@dataclass(frozen=True)
class Score(Action):
    """Scoreboard only: the points of ``by``'s hand this round, typed instead of shown."""

    points: int
    do: ClassVar[str] = "score"


@dataclass(frozen=True)
class Round(Action):
    """The next round or game: ``start`` and ``dealer`` (flip/classic) or ``grid`` (grid game)."""

    start: Card | None = None
    dealer: str | None = None
    grid: tuple[tuple[Card, ...], ...] | None = None
    do: ClassVar[str] = "round"


ACTIONS: dict[str, type[Action]] = {
    cls.do: cls
    for cls in (Play, Move, Discard, Timeout, Draw, Pass, Uno, Catch, Challenge, Accept, Reveal,
                Declare, Penalty, Show, Score, Round)
}


# --- reading the replay form -------------------------------------------------------------------

#: The largest count or points an action may carry: far above any real table, far below a
#: number whose sums could no longer be written as JSON.
MAX_INT = 1_000_000

def _card(value: Any, field: str) -> Card:
    if not isinstance(value, str):
        raise BadInput(f"{field!r} must be a card name string, got {shown(value)}")
    try:
        return parse_card(value)
    except UnknownCard as exc:
        raise BadCard(str(exc)) from None


def _cell(value: Any, field: str) -> Cell:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise BadInput(f"{field!r} must be [row, col] with two integers, got {shown(value)}")
    return (value[0], value[1])


def _int(value: Any, field: str, minimum: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= MAX_INT:
        raise BadInput(f"{field!r} must be an integer from {minimum} to {MAX_INT}, "
                       f"got {shown(value)}")
    return value


def _str(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise BadInput(f"{field!r} must be a non-empty string, got {shown(value)}")
    return value


def _grid(value: Any, field: str) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(value, list) or len(value) != 5 or not all(
            isinstance(row, list) and len(row) == 5 for row in value):
        raise BadInput(f"{field!r} must be 5 rows of 5 card names")
    return tuple(tuple(_card(c, field) for c in row) for row in value)


def _cards(value: Any, field: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise BadInput(f"{field!r} must be a list of card names, got {shown(value)}")
    return tuple(_card(c, field) for c in value)


# field name -> (reader, minimum for ints)
_READERS = {
    "card": _card, "cell": _cell, "to": _cell, "color": _str, "target": _str, "verdict": _str,
    "dealer": _str, "start": _card, "grid": _grid, "cards": _cards,
}


def action_from_json(obj: Any) -> Action:
    """Read one action in the replay form; :class:`BadInput` or :class:`BadCard` when malformed."""
    if not isinstance(obj, dict):
        raise BadInput(f"an action must be a JSON object, got {type(obj).__name__}")
    by, do = obj.get("by"), obj.get("do")
    if not isinstance(by, str) or not by:
        raise BadInput("an action needs 'by': the seat that acts")
    if not isinstance(do, str) or do not in ACTIONS:
        raise BadInput(f"unknown 'do' {shown(do)}: expected one of {', '.join(sorted(ACTIONS))}")
    cls = ACTIONS[do]
    kwargs: dict[str, Any] = {"by": by}
    wanted = {f.name: f for f in fields(cls) if f.name != "by"}
    unknown = set(obj) - set(wanted) - {"by", "do"}
    if unknown:
        raise BadInput(f"{do!r} takes no field(s) {', '.join(shown(k) for k in sorted(unknown)[:5])}")
    for name, f in wanted.items():
        if name not in obj or obj[name] is None:
            if f.default is f.default_factory:  # both MISSING: a required field
                raise BadInput(f"{do!r} needs {name!r}")
            continue
        value = obj[name]
        if name == "count":
            kwargs[name] = _int(value, name, 1 if do == "penalty" else 0)
        elif name == "points":
            kwargs[name] = _int(value, name, 0)
        else:
            kwargs[name] = _READERS[name](value, name)
    return cls(**kwargs)
