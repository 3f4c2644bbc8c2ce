"""Why the engine refuses something. Every refusal carries a short, stable kebab-case ``code``.

The codes are part of the replay contract (docs/replay.md): outside tools match on them, so never
rename one. :class:`RuleError` is the base; the specific classes exist so callers can catch what
they mean (python-chess style), but all of them are reported the same way: ``code`` + message.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["RuleError", "BadInput", "BadCard", "NotYourTurn", "IllegalAction", "SetupError"]


class RuleError(Exception):
    """Base of every refusal: ``code`` is stable, ``message`` says what happened in English
    words (logs, the replay tool), ``params`` the values a page needs to say it in its own
    language (JSON-ready: card names, cells as ``[row, col]``, seat names), e.g. ``not-matching``
    with ``{"card": "green-8", "onto": "wild"}``. Only what the code's sentence names."""

    code = "illegal"

    def __init__(self, message: str, code: str | None = None, **params: object):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params = {k: _jsonable(v) for k, v in params.items() if v is not None}

    @property
    def message(self) -> str:
        return str(self)


class BadInput(RuleError):
    """A malformed action: not JSON, a missing or mistyped field, an unknown ``do`` word."""

    code = "bad-input"


class BadCard(RuleError):
    """A card name that is not in the vocabulary, or a face of the wrong deck or side."""

    code = "bad-card"


class NotYourTurn(RuleError):
    """An action that waits for one's turn, sent by another seat."""

    code = "not-your-turn"


class IllegalAction(RuleError):
    """An action the rules forbid now; ``code`` names the rule (``not-matching``, ``pawn-cell``...)."""


class SetupError(ValueError):
    """A set-up that cannot start a game: wrong seats, a bad grid, an unknown option."""


# A refusal quotes what was sent, cut short: a line or a body may hold megabytes or deep nesting.
_echo = reprlib.Repr()
_echo.maxlevel, _echo.maxstring, _echo.maxother, _echo.maxlong = 2, 40, 40, 40
_echo.maxlist = _echo.maxdict = 5


def shown(value: Any) -> str:
    """``repr(value)`` cut short, for error messages.

    >>> shown([[[[1]]]])
    '[[[...]]]'
    """
    return _echo.repr(value)


def _jsonable(value: object) -> object:
    if hasattr(value, "name") and hasattr(value, "face"):  # a Card
        return value.name
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
