"""``companion replay``: JSON lines in, one JSON line out per input line (DESIGN.md contract).

The first line sets up a game (``{"setup": {...}}``); every later line is one action. A malformed
action line answers ``ok: false, error: "bad-input"`` and the run goes on; a bad set-up line is
fatal (:class:`SetupError`, exit status 2).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from .engine import Game, RuleError, SetupError, game_class
from .engine.actions import action_from_json
from .engine.errors import BadInput

__all__ = ["Replay", "start_game", "replay_lines"]


def start_game(line: str | dict[str, Any]) -> tuple[Game, Any]:
    """Read a set-up line (text or parsed JSON) and start the game it describes."""
    if isinstance(line, str):
        try:
            line = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SetupError(f"the set-up line is not JSON: {exc}") from None
    if not isinstance(line, dict) or not isinstance(line.get("setup"), dict):
        raise SetupError('the first line must be {"setup": {"game": ..., "seats": [...], ...}}')
    setup = line["setup"]
    return game_class(setup.get("game")).from_setup(setup)


class Replay:
    """A running replay: feed it action lines, get answer objects back."""

    def __init__(self, setup_line: str | dict[str, Any]):
        self.game, self.state = start_game(setup_line)

    def answer(self, line: str | dict[str, Any]) -> dict[str, Any]:
        try:
            obj = json.loads(line) if isinstance(line, str) else line
        except json.JSONDecodeError as exc:
            return self._refusal(BadInput(f"not a JSON line: {exc.msg} at column {exc.colno}"))
        try:
            action = action_from_json(obj)
        except RuleError as exc:
            return self._refusal(exc)
        outcome = self.game.apply(self.state, action)
        self.state = outcome.state
        events = [e.to_json() for e in outcome.events]
        if outcome.error is not None:
            return self._refusal(outcome.error, events)
        return {"ok": True, "events": events, "state": self.game.to_json(self.state)}

    def _refusal(self, error: RuleError, events: list | None = None) -> dict[str, Any]:
        return {"ok": False, "error": error.code, "message": error.message,
                "events": events or [], "state": self.game.to_json(self.state)}


def replay_lines(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Answer every non-blank line after the first (the set-up)."""
    it = (line for line in lines if line.strip())
    first = next(it, None)
    if first is None:
        raise SetupError("no set-up line: the input is empty")
    replay = Replay(first)
    for line in it:
        yield replay.answer(line)
