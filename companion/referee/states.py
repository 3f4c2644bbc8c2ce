"""The camera referee's state, as values: what it is doing now (:data:`State`) and the small
records it keeps between readings.

The referee is :class:`Watching` the table, :class:`Asking` it a question, or
:class:`AwaitingColour` of a wild from its player's phone. A colour may still be awaited while a
question about something else is open (a draw seen meanwhile): :class:`Asking` then carries the
:class:`Wild` too, and closing the question goes back to awaiting it. Each transition is a
function from one state to the next (:func:`ask`, :func:`closed`, :func:`await_colour`,
:func:`colour_done`); the states are frozen, so another thread reading ``referee.state`` sees
one whole state.

>>> from companion.referee.decide import Decision, DecisionKind
>>> wild = Wild("discard", "wild", seq=3, since=0.0, decision=Decision(DecisionKind.ASK, "discard"))
>>> s = await_colour(Watching(), wild)
>>> colour_of(s) is wild, question_of(s)
(True, None)
>>> colour_done(s)
Watching()
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypeAlias

from ..engine.look import WaitingFor
from .decide import Decision
from .questions import Question

__all__ = ["State", "Watching", "Asking", "AwaitingColour", "Wild", "PawnTrail", "Regions",
           "ask", "closed", "await_colour", "colour_done", "question_of", "colour_of"]


@dataclass(frozen=True)
class Wild:
    """A wild seen whose colour its player's phone is expected to give (no question yet): its
    ``region``, the label ``read`` there, the reading (``seq``) and clock time (``since``) it was
    first seen at, and the ``decision`` that asks its colour once the wait is over. ``on_wild``:
    what the table waited for when it was seen played on a wild of the same face (the phone's
    play then changes it); None for a wild where a play was expected."""

    region: str
    read: str | None
    seq: int
    since: float
    decision: Decision
    on_wild: WaitingFor | None = None


@dataclass(frozen=True)
class Watching:
    """Nothing asked and no colour awaited: each reading is settled as it comes."""


@dataclass(frozen=True)
class Asking:
    """A question is open (the turn timer paused): only its region is decided on until an
    answer comes or the table answers it itself. ``asked_in``: what the table waited for when a
    draw-pile question was asked (the question is stale once that changes). ``colour``: a wild's
    colour still awaited behind the question."""

    question: Question
    asked_in: WaitingFor | None = None
    colour: Wild | None = None


@dataclass(frozen=True)
class AwaitingColour:
    """A wild's colour is awaited from its player's phone (the turn timer paused)."""

    wild: Wild


State: TypeAlias = Watching | Asking | AwaitingColour


def question_of(state: State) -> Question | None:
    """The open question, if any."""
    return state.question if isinstance(state, Asking) else None


def colour_of(state: State) -> Wild | None:
    """The wild whose colour is awaited, if any."""
    if isinstance(state, AwaitingColour):
        return state.wild
    return state.colour if isinstance(state, Asking) else None


def ask(state: State, question: Question, asked_in: WaitingFor | None = None) -> Asking:
    """A question asked (replacing any open one); a colour awaited stays awaited behind it."""
    return Asking(question, asked_in, colour_of(state))


def closed(state: State) -> State:
    """The open question closed: back to awaiting the colour behind it, or to watching."""
    wild = colour_of(state)
    return AwaitingColour(wild) if wild is not None else Watching()


def await_colour(state: State, wild: Wild) -> State:
    """Await ``wild``'s colour (instead of any other wild's), behind the open question if any."""
    if isinstance(state, Asking):
        return replace(state, colour=wild)
    return AwaitingColour(wild)


def colour_done(state: State) -> State:
    """No colour awaited any more (given, asked about, or the card went)."""
    if isinstance(state, Asking):
        return replace(state, colour=None)
    return Watching()


@dataclass(frozen=True)
class PawnTrail:
    """The pawn's step the camera did not see, while its marker was hidden: the cell it was
    seen to leave (``left``: its card read clearly where the pawn stood) and the reading that
    showed it (``left_at``), the cells next to it where the pawn's body read then (``body``: no
    card, where it went), and the (reading, cell) last looked at (``noted``)."""

    left: tuple[int, int] | None = None
    left_at: int = -1
    body: frozenset[str] = frozenset()
    noted: tuple[int, tuple[int, int] | None] | None = None


@dataclass
class Regions:
    """The regions the referee keeps an eye on (sets of region names, changed in place):

    * ``actionable``: changed since they were last settled;
    * ``doubts``: differed from the deal in the first look (a move made before the camera
      looked, or the layout): asked about, never committed;
    * ``blind``: changed together while the camera could not look (several at once): how many
      actions each hides is unknown, so none of them is committed unasked."""

    actionable: set[str] = field(default_factory=set)
    doubts: set[str] = field(default_factory=set)
    blind: set[str] = field(default_factory=set)
