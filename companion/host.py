"""The companion at run time: one object holding the bus, the event log and the current table.

The web app, the signals and the camera referee all reach the table through a :class:`Host`.
It starts and ends matches, resumes an unfinished one from the event log, and keeps the last
things worth showing that are not game state: the signal outputs, the last table reading and
the last camera frame (handed in with :meth:`Host.show_signals`, :meth:`Host.show_reading`
and :meth:`Host.show_frame`). Its lock only guards which table is current; matches start and
end outside it, and their events are published after it is released.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from .bus import EventBus, Outbox
from .engine.errors import SetupError
from .eventlog import EventLog
from .hand_reading import HandReadings
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
        self._outbox = Outbox(self.bus)
        self._table: Table | None = Table.resume(self.log, self.bus, clock=clock)
        self._signals: Callable[[], dict[str, Any]] = lambda: {}
        self._reading: dict[str, Any] | None = None
        self._frame: bytes | None = None
        self._frame_view: str | None = None
        #: hands read by the camera or a phone's photo, awaiting their players' word
        self.hands = HandReadings(self)

    # --- what others hand in (each a single reference swap: no lock needed to read it) ------

    @property
    def table(self) -> Table | None:
        """The match being played (None between matches)."""
        return self._table

    @property
    def signals(self) -> Callable[[], dict[str, Any]]:
        """Which LEDs are lit and what the buzzer plays (a snapshot function)."""
        return self._signals

    def show_signals(self, snapshot: Callable[[], dict[str, Any]]) -> None:
        """The signals say how to read their outputs (``snapshot()`` -> JSON-ready dict)."""
        self._signals = snapshot

    @property
    def last_reading(self) -> dict[str, Any] | None:
        """The last stable table reading (from the camera referee), JSON-ready."""
        return self._reading

    def show_reading(self, reading: dict[str, Any] | None) -> None:
        """The camera referee's latest stable reading, JSON-ready (``GET /api/state``)."""
        self._reading = reading

    @property
    def last_frame_jpeg(self) -> bytes | None:
        """The latest camera frame with what was recognised drawn on it (JPEG bytes)."""
        return self._frame

    @property
    def last_frame_view(self) -> str | None:
        """What the camera was doing when it took the latest frame, as a word of
        ``vision.table_reader``'s (``moving``, ``hands``, ``settling``, ``reading``, ``quiet``,
        ``calibrating``, ``no-view``) or ``no-match``; the page says it in its own language."""
        return self._frame_view

    def show_frame(self, jpeg: bytes | None, view: str | None = None) -> None:
        """The camera's latest annotated frame (``GET /api/frame.jpg``) and what the camera was
        doing (:attr:`last_frame_view`; never written on the picture, which has no language)."""
        self._frame, self._frame_view = jpeg, view

    # --- matches --------------------------------------------------------------------------

    def start_match(self, setup: dict[str, Any]) -> Table:
        """Start a new match from a replay set-up object; an unfinished one is abandoned."""
        table = Table(setup, self.bus, log=self.log, clock=self.clock)  # publishes table-ready
        with self._lock:
            self._table = table
            self._outbox.add([("match-started", {"game": table.game.name, "seats": table.seats,
                                                  "seating": table.seating.to_json()})])
        self._outbox.flush()
        return table

    def end_match(self) -> None:
        with self._lock:
            table, self._table = self._table, None
            if table is not None and table.match_id is not None:
                # written before anything is said (the log's and the table's locks are leaves)
                self.log.finish_match(table.match_id, {"ended_by": "table",
                                                       "scores": table.state_json().get("scores")})
            self._outbox.add([("match-ended", {})])
        self._outbox.flush()

    def close(self) -> None:
        """Deliver the events still queued on the bus and stop it (the companion is stopping)."""
        self.bus.close()

    def require_table(self) -> Table:
        table = self.table
        if table is None:
            raise NoMatch("no match is being played: start one on the set-up page")
        return table

    def snapshot(self) -> dict[str, Any]:
        """``GET /api/state``: the replay state plus game, seats, signals and the last reading."""
        table = self._table
        out: dict[str, Any] = {"mode": self.mode, "signals": self._signals(),
                               "reading": self._reading, "hand_reads": self.hands.to_json()}
        if table is None:
            return {**out, "game": None, "seats": [], "playing": False}
        state = table.state_json()
        return {**state, **out, "game": table.game.name, "seats": table.seats,
                "seating": table.seating.to_json(), "playing": True, "timer": {"seat": table.timer.seat,
                                           "left": round(table.timer.left(), 1),
                                           "seconds": table.timer.seconds,
                                           "paused": table.timer.paused}}
