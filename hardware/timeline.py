"""Patterns as data, and the clocks that play them.

A :class:`Track` is a list of (value, seconds) steps played once: a flash of the status LED
(value: an RGB tuple), a buzzer tune (value: a note name, ``None`` for a rest). A :class:`Loop`
is the same played over and over from an anchor time: a pulse, a blink. Values are pure data,
so tests can check a pattern without any pin, and the signals worker can say at any instant
what every output should be and when it next changes.

The worker waits on a clock. :class:`RealClock` is the wall's. :class:`ManualClock` moves only
when told (tests and the demo's "fast" mode), so that every pin history is exact.

>>> blink = Loop("blink", ((True, 0.5), (False, 0.5)))
>>> blink.value_at(0.7), blink.value_at(1.0)
((False, 1.0), (True, 1.5))
>>> Track("click", (("E6", 0.03),)).value_at(0.05)
(None, None)
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["Track", "Loop", "RealClock", "ManualClock", "EPS"]

#: Times closer than this (seconds) are the same instant; it keeps float sums from making
#: steps of zero length at pattern boundaries.
EPS = 1e-6


@dataclass(frozen=True)
class Track:
    """Steps of (value, seconds), played once. Past the end the value is ``None``."""

    name: str
    steps: tuple[tuple[Any, float], ...]

    def __post_init__(self) -> None:
        if not self.steps or any(d <= 0 for _, d in self.steps):
            raise ValueError(f"{self.name}: a pattern needs steps of positive duration")

    @property
    def duration(self) -> float:
        return math.fsum(d for _, d in self.steps)

    def value_at(self, offset: float) -> tuple[Any, float | None]:
        """(value, offset of the next change) at ``offset`` seconds from the start."""
        end = 0.0
        for value, seconds in self.steps:
            end += seconds
            if end > offset + EPS:
                return value, end
        return None, None


@dataclass(frozen=True)
class Loop(Track):
    """Steps played over and over."""

    def value_at(self, offset: float) -> tuple[Any, float | None]:
        period = self.duration
        cycle = math.floor((offset + EPS) / period)
        value, end = Track.value_at(self, offset - cycle * period)
        if end is None:  # rounding at the very end of a cycle
            value, end = self.steps[0][0], self.steps[0][1]
            cycle += 1
        return value, cycle * period + end


class RealClock:
    """The monotonic wall clock."""

    manual = False

    def now(self) -> float:
        return time.monotonic()

    def wait(self, condition: threading.Condition, deadline: float | None) -> None:
        """Wait on ``condition`` (held) until notified or ``deadline``."""
        timeout = None if deadline is None else max(0.0, deadline - self.now())
        condition.wait(timeout)


class ManualClock:
    """A clock that moves only by :meth:`advance`: patterns then play in exact, repeatable steps.

    Waiting on it never times out by itself; :meth:`advance` wakes every waiter.
    """

    manual = True

    def __init__(self, start: float = 0.0):
        self._now = start
        self._lock = threading.Lock()
        self._waiters: set[threading.Condition] = set()

    def now(self) -> float:
        return self._now

    def wait(self, condition: threading.Condition, deadline: float | None) -> None:
        with self._lock:
            self._waiters.add(condition)
        try:
            if deadline is None or deadline > self._now + EPS:
                condition.wait()
        finally:
            with self._lock:
                self._waiters.discard(condition)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self.advance_to(self._now + seconds)

    def advance_to(self, when: float) -> None:
        with self._lock:
            self._now = max(self._now, when)
            waiters = list(self._waiters)
        for condition in waiters:
            with condition:
                condition.notify_all()
