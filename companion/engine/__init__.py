"""The rule engines: pure functions of (state, action). See :mod:`companion.engine.base`.

>>> game_class("grid").__name__
'GridGame'
"""

from __future__ import annotations

from typing import Any

from .base import Game, Outcome
from .look import Awaiting, TableLook, WaitingFor
from .errors import BadCard, BadInput, IllegalAction, NotYourTurn, RuleError, SetupError

__all__ = ["GAME_NAMES", "game_class", "Game", "Outcome", "RuleError", "BadInput", "BadCard",
           "NotYourTurn", "IllegalAction", "SetupError", "TableLook", "WaitingFor", "Awaiting"]

#: The rule engines (``game`` of a set-up line), then the two table modes with no rules:
#: ``timer`` (turns ended by a phone or a button) and ``scoreboard`` (scores only).
GAME_NAMES = ("grid", "flip", "classic", "timer", "scoreboard")


def game_class(name: str) -> type[Game[Any]]:
    """The :class:`Game` subclass for a set-up's ``game`` word."""
    if name == "grid":
        from .grid import GridGame
        return GridGame
    if name == "flip":
        from .flip import FlipGame
        return FlipGame
    if name == "classic":
        from .flip import ClassicGame
        return ClassicGame
    if name == "timer":
        from .timer import TimerGame
        return TimerGame
    if name == "scoreboard":
        from .scoreboard import ScoreGame
        return ScoreGame
    raise SetupError(f"unknown game {name!r}: expected one of {', '.join(GAME_NAMES)}")
