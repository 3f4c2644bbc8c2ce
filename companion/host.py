"""The companion at run time: one object holding the bus, the event log and the current table.

The web app, the signals and the camera referee all reach the table through a :class:`Host`.
It starts and ends matches, resumes an unfinished one from the event log, and keeps the last
things worth showing that are not game state: the signal outputs and the last table reading.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from .bus import EventBus
from .engine.errors import SetupError
from .eventlog import EventLog
from .referee.table import Table

__all__ = ["Host", "NoMatch"]


class NoMatch(RuntimeError):
    """An action arrived while no match is being played."""


class Host:
    """Owns the bus, the log and the current :class:`Table` (``None`` between matches).

    ``mode`` is how the table is used: ``referee`` (the camera reads the table), ``timer`` (no
    camera: phones and buttons end turns) or ``scoreboard`` (scores typed or computed from hands).
    """

    MODES = ("referee", "timer", "scoreboard")
    #: The game the set-up page proposes first in each mode.
    DEFAULT_GAMES = {"referee": "grid", "timer": "timer", "scoreboard": "scoreboard"}

    def __init__(self, log: EventLog | None = None, bus: EventBus | None = None, *,
                 mode: str = "referee", clock: Callable[[], float] = time.monotonic):
        if mode not in self.MODES:
            raise SetupError(f"unknown mode {mode!r}: expected one of {', '.join(self.MODES)}")
        self.bus = bus or EventBus()
        self.log = log or EventLog(":memory:")
        self.mode = mode
        #: The game the set-up page proposes first (``[table] game`` in referee mode).
        self.default_game = self.DEFAULT_GAMES[mode]
        self.clock = clock
        self._lock = threading.RLock()
        self.table: Table | None = Table.resume(self.log, self.bus, clock=clock)
        #: Filled by the signals (which LEDs are lit, what the buzzer plays).
        self.signals: Callable[[], dict[str, Any]] = lambda: {}
        #: The last stable table reading (set by the camera referee), JSON-ready.
        self.last_reading: dict[str, Any] | None = None
        #: The latest camera frame with what was recognised drawn on it (JPEG bytes).
        self.last_frame_jpeg: bytes | None = None

    def start_match(self, setup: dict[str, Any]) -> Table:
        """Start a new match from a replay set-up object; an unfinished one is abandoned."""
        with self._lock:
            table = Table(setup, self.bus, log=self.log, clock=self.clock)
            self.table = table
            self.bus.publish("match-started", game=table.game.name, seats=table.seats)
            return table

    def end_match(self) -> None:
        with self._lock:
            if self.table is not None and self.table.match_id is not None:
                self.log.finish_match(self.table.match_id, {"ended_by": "table",
                                                            "scores": self.table.state_json().get("scores")})
            self.table = None
            self.bus.publish("match-ended")

    def require_table(self) -> Table:
        table = self.table
        if table is None:
            raise NoMatch("no match is being played: start one on the set-up page")
        return table

    def snapshot(self) -> dict[str, Any]:
        """``GET /api/state``: the replay state plus game, seats, signals and the last reading."""
        with self._lock:
            table = self.table
            out: dict[str, Any] = {"mode": self.mode, "signals": self.signals(),
                                   "reading": self.last_reading}
            if table is None:
                return {**out, "game": None, "seats": [], "playing": False}
            state = table.state_json()
            return {**state, **out, "game": table.game.name, "seats": table.seats,
                    "playing": True, "timer": {"seat": table.timer.seat,
                                               "left": round(table.timer.left(), 1),
                                               "seconds": table.timer.seconds,
                                               "paused": table.timer.paused}}
