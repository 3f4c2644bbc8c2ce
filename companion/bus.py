"""The event bus: one place where everything that happens on the table is published.

The referee publishes; the signals (LEDs, buzzer), the web page (SSE) and the event log
subscribe. Delivery is synchronous in the publisher's thread and in publish order, so a
subscriber must return quickly: anything slow (a buzzer tune, a phone's socket) hands the
message to its own thread or queue.

>>> bus = EventBus()
>>> seen = []
>>> unsubscribe = bus.subscribe(seen.append)
>>> bus.publish("turn", seat="north").type
'turn'
>>> [m.data["seat"] for m in seen]
['north']
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["BusMessage", "EventBus"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BusMessage:
    """One published event: a sequence number, wall time, a kebab-case type and JSON-ready data."""

    seq: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)
    time: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": self.type, "time": round(self.time, 3), **self.data}


Subscriber = Callable[[BusMessage], None]


class EventBus:
    """Publish/subscribe, thread-safe. ``types`` narrows what a subscriber receives."""

    def __init__(self, wall_clock: Callable[[], float] = time.time):
        self._subscribers: list[tuple[Subscriber, frozenset[str] | None]] = []
        self._lock = threading.RLock()
        self._seq = itertools.count(1)
        self._wall_clock = wall_clock

    def subscribe(self, callback: Subscriber, types: set[str] | None = None) -> Callable[[], None]:
        """Call ``callback`` for every message (of ``types``); returns a function that unsubscribes."""
        entry = (callback, frozenset(types) if types else None)
        with self._lock:
            self._subscribers.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._subscribers:
                    self._subscribers.remove(entry)

        return unsubscribe

    def publish(self, type: str, **data: Any) -> BusMessage:
        """Publish one event. A failing subscriber is logged and never stops the others."""
        with self._lock:
            message = BusMessage(next(self._seq), type, data, self._wall_clock())
            subscribers = list(self._subscribers)
            # Deliver under the lock so every subscriber sees messages in sequence order.
            for callback, types in subscribers:
                if types is not None and type not in types:
                    continue
                try:
                    callback(message)
                except Exception:  # noqa: BLE001 - one broken subscriber must not silence the table
                    log.exception("event subscriber %r failed on %s", callback, type)
        return message
