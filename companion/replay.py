"""``companion replay``: JSON lines in, one JSON line out per input line (the replay contract, docs/replay.md).

The first line sets up a game (``{"setup": {...}}``); every later line is one action. A malformed
action line answers ``ok: false, error: "bad-input"`` and the run goes on; a bad set-up line is
fatal (:class:`SetupError`, exit status 2).

Lines may come as text or as raw bytes. Bytes are decoded one line at a time, so invalid UTF-8
spoils only its own line (that line's ``bad-input``), never the answers around it. Whatever a
line holds (any JSON shape in any field, nesting thousands deep, an integer of thousands of
digits, ``NaN``) it gets one answer that is itself valid JSON: :func:`replay_stream` is what the
command runs, and it never raises on input.
"""

from __future__ import annotations

import json
import math
from typing import IO, Any, Iterable, Iterator

from .engine import Game, RuleError, SetupError, game_class
from .engine.actions import action_from_json
from .engine.errors import BadInput

__all__ = ["Replay", "start_game", "replay_lines", "replay_stream", "read_json_line"]

_BOM = "\ufeff"


def _no_constant(name: str) -> Any:
    raise BadInput(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadInput(f"the number {text[:40]} is too large")
    return value


def read_json_line(line: str | bytes | bytearray) -> Any:
    """One line's JSON value; :class:`BadInput` says in words why a line cannot be read.

    >>> read_json_line(b'{"by": "ann", "do": "uno"}')
    {'by': 'ann', 'do': 'uno'}
    >>> read_json_line(b'{"by": "\\xff"}')
    Traceback (most recent call last):
    ...
    companion.engine.errors.BadInput: not UTF-8: byte 0xff at byte 9
    """
    if isinstance(line, (bytes, bytearray)):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadInput(f"not UTF-8: byte 0x{exc.object[exc.start]:02x} "
                           f"at byte {exc.start + 1}") from None
    try:
        return json.loads(line, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise BadInput(f"not a JSON line: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise BadInput("not a JSON line this companion can read: nested too deeply") from None
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        raise BadInput("not a JSON line this companion can read: a number with too many "
                       "digits") from None


def start_game(line: str | bytes | dict[str, Any]) -> tuple[Game[Any], Any]:
    """Read a set-up line (text, bytes or parsed JSON) and start the game it describes."""
    if isinstance(line, (str, bytes, bytearray)):
        if isinstance(line, str):
            line = line.removeprefix(_BOM)
        elif line.startswith(_BOM.encode()):
            line = line[len(_BOM.encode()):]
        try:
            line = read_json_line(line)
        except BadInput as exc:
            raise SetupError(f"the set-up line is {exc.message}") from None
    if not isinstance(line, dict) or not isinstance(line.get("setup"), dict):
        raise SetupError('the first line must be {"setup": {"game": ..., "seats": [...], ...}}')
    setup = line["setup"]
    return game_class(setup.get("game")).from_setup(setup)


class Replay:
    """A running replay: feed it action lines, get answer objects back."""

    def __init__(self, setup_line: str | bytes | dict[str, Any]):
        self.game, self.state = start_game(setup_line)

    def answer(self, line: str | bytes | Any) -> dict[str, Any]:
        """The answer to one action line (text, bytes or parsed JSON); never raises on input."""
        try:
            obj = read_json_line(line) if isinstance(line, (str, bytes, bytearray)) else line
            action = action_from_json(obj)
        except RuleError as exc:
            return self._refusal(exc)
        outcome = self.game.apply(self.state, action)
        self.state = outcome.state
        events = [e.to_json() for e in outcome.events]
        if outcome.error is not None:
            return self._refusal(outcome.error, events)
        return {"ok": True, "events": events, "state": self.game.to_json(self.state)}

    def _refusal(self, error: RuleError, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        return {"ok": False, "error": error.code, "message": error.message,
                "events": events or [], "state": self.game.to_json(self.state)}


def _content(line: str | bytes) -> str | bytes:
    """The line without its end (``\n`` or ``\r\n``): the end is not part of a value."""
    return line.rstrip(b"\r\n") if isinstance(line, (bytes, bytearray)) else line.rstrip("\r\n")


def replay_lines(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
    """Answer every non-blank line after the first (the set-up); lines are text or bytes."""
    it = (_content(line) for line in lines if line.strip())
    first = next(it, None)
    if first is None:
        raise SetupError("no set-up line: the input is empty")
    replay = Replay(first)
    for line in it:
        yield replay.answer(line)


def replay_stream(source: IO[bytes], out: IO[str], errors: IO[str],
                  prog: str = "companion replay") -> int:
    """Run a replay from a binary stream to a text stream: the ``companion replay`` command.

    Writes one compact JSON line per action line and flushes it at once (a tool driving the
    replay line by line sees each answer as soon as it is made). A bad set-up line is one
    message on ``errors`` and exit status 2; otherwise 0.
    """
    try:
        for answer in replay_lines(source):
            out.write(json.dumps(answer, separators=(",", ":"), allow_nan=False) + "\n")
            out.flush()
    except SetupError as exc:
        print(f"{prog}: bad set-up line: {exc}", file=errors)
        return 2
    return 0
