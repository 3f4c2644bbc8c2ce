"""The turn timer: docs/rules.md ``turn_seconds`` with a warning at 10 s left, ticks from 5 s, and 0.

The timer owns no thread and reads no clock of its own: the referee passes the time in
(``clock`` is injectable, tests use a fake one) and calls :meth:`TurnTimer.poll` often. It is
paused while the referee waits for the table to confirm something.

>>> now = [0.0]
>>> t = TurnTimer(30, clock=lambda: now[0])
>>> t.start("ann")
>>> now[0] = 20.5; [s.kind for s in t.poll()]
['warning']
>>> now[0] = 25.0; [s.kind for s in t.poll()]
['tick']
>>> now[0] = 31.0; [(s.kind, s.left) for s in t.poll()]
[('tick', 4), ('tick', 3), ('tick', 2), ('tick', 1), ('expired', 0)]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

__all__ = ["TimerSignal", "TurnTimer", "WARNING_AT", "TICKS_FROM"]

WARNING_AT = 10  # seconds left: warning beep
TICKS_FROM = 5   # seconds left: a tick each second from here down to 1


@dataclass(frozen=True)
class TimerSignal:
    """``kind`` is ``warning``, ``tick`` or ``expired``; ``left`` whole seconds left."""

    kind: str
    seat: str
    left: int


class TurnTimer:
    def __init__(self, seconds: int, clock: Callable[[], float] = time.monotonic):
        if seconds < 0:
            raise ValueError("turn_seconds must be >= 0 (0 turns the timer off)")
        self.seconds = seconds
        self._clock = clock
        self.seat: str | None = None
        self._elapsed_before_pause = 0.0
        self._started_at: float | None = None
        self._announced: set[int] = set()
        self._expired = False

    @property
    def enabled(self) -> bool:
        return self.seconds > 0

    @property
    def running(self) -> bool:
        return self._started_at is not None and not self._expired

    @property
    def paused(self) -> bool:
        return self.seat is not None and self._started_at is None and not self._expired

    def start(self, seat: str) -> None:
        """A new turn for ``seat``: the full time again."""
        self.seat = seat
        self._elapsed_before_pause = 0.0
        self._started_at = self._clock() if self.enabled else None
        self._announced = set()
        self._expired = False

    def stop(self) -> None:
        self.seat = None
        self._started_at = None

    def pause(self) -> None:
        if self._started_at is not None:
            self._elapsed_before_pause += self._clock() - self._started_at
            self._started_at = None

    def resume(self) -> None:
        if self.seat is not None and self._started_at is None and self.enabled and not self._expired:
            self._started_at = self._clock()

    def elapsed(self) -> float:
        running = self._clock() - self._started_at if self._started_at is not None else 0.0
        return self._elapsed_before_pause + running

    def left(self) -> float:
        """Seconds left (0 when off or expired)."""
        if not self.enabled or self.seat is None:
            return 0.0
        return max(0.0, self.seconds - self.elapsed())

    def poll(self) -> list[TimerSignal]:
        """The signals due since the last poll, in order (several if polls were late)."""
        seat = self.seat
        if not self.running or seat is None:   # (running: a seat's turn started)
            return []
        left = self.seconds - self.elapsed()
        signals = []
        whole_left = math.ceil(left) if left > 0 else 0
        due = [s for s in range(min(WARNING_AT, self.seconds), -1, -1) if s >= whole_left]
        for s in due:
            if s in self._announced:
                continue
            self._announced.add(s)
            if s == WARNING_AT:
                signals.append(TimerSignal("warning", seat, s))
            elif 0 < s <= TICKS_FROM:
                signals.append(TimerSignal("tick", seat, s))
            elif s == 0:
                signals.append(TimerSignal("expired", seat, 0))
                self._expired = True
        return signals
