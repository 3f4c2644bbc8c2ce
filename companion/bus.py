"""The event bus: one place where everything that happens on the table is published.

The referee publishes; the signals (LEDs, buzzer), the web page (SSE) and the event log
subscribe. :meth:`EventBus.publish` only queues the message (it takes no lock a subscriber
could hold and calls no subscriber), so it may be called from anywhere, even while holding a
lock. One dispatcher thread (``event-bus``) delivers the queued messages in publish order,
outside every publisher's lock: a subscriber may take its own locks, call the table or publish
again without any risk of a deadlock with the publisher. A subscriber must still return
quickly (it holds up the messages behind it): anything slow (a buzzer tune, a phone's socket)
hands the message to its own thread or queue.

The dispatcher runs while there is something to deliver and ends when the queue is empty (the
next publish starts a new one), so a bus nobody closes leaves no thread behind. Tests and
scripted runs call :meth:`EventBus.join` to wait until what was published has been delivered.

>>> bus = EventBus()
>>> seen = []
>>> unsubscribe = bus.subscribe(seen.append)
>>> bus.publish("turn", seat="north").type
'turn'
>>> bus.join()
True
>>> [m.data["seat"] for m in seen]
['north']
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["BusMessage", "EventBus", "Outbox"]

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
_Entry = tuple[Subscriber, "frozenset[str] | None"]


class EventBus:
    """Publish/subscribe, thread-safe. ``types`` narrows what a subscriber receives.

    Its one lock (a condition) guards the subscriber list, the sequence counter and the queue;
    nothing is ever called while it is held.
    """

    def __init__(self, wall_clock: Callable[[], float] = time.time):
        self._wall_clock = wall_clock
        self._cond = threading.Condition(threading.Lock())
        self._subscribers: tuple[_Entry, ...] = ()
        self._queue: deque[tuple[BusMessage, tuple[_Entry, ...]]] = deque()
        self._seq = 0            # the last sequence number given out
        self._delivered = 0      # every message up to this one has been delivered
        self._dispatcher: threading.Thread | None = None
        self._closed = False

    def subscribe(self, callback: Subscriber, types: set[str] | None = None) -> Callable[[], None]:
        """Call ``callback`` (on the dispatcher thread) for every message (of ``types``) published
        from now on; returns a function that unsubscribes (a delivery already under way on the
        dispatcher may still reach the callback once)."""
        entry = (callback, frozenset(types) if types else None)
        with self._cond:
            self._subscribers = (*self._subscribers, entry)

        def unsubscribe() -> None:
            with self._cond:
                self._subscribers = tuple(e for e in self._subscribers if e is not entry)

        return unsubscribe

    def publish(self, type: str, **data: Any) -> BusMessage:
        """Queue one event for delivery and return it (with its sequence number).

        Subscribers are called later, on the dispatcher thread, in sequence order; a failing
        subscriber is logged and never stops the others. After :meth:`close` nothing is
        delivered any more (the message is logged as dropped)."""
        now = self._wall_clock()
        start = False
        with self._cond:
            self._seq += 1
            message = BusMessage(self._seq, type, data, now)
            closed = self._closed
            if closed:
                self._delivered = self._seq
            else:
                self._queue.append((message, self._subscribers))
                if self._dispatcher is None:
                    self._dispatcher = threading.Thread(target=self._dispatch, name="event-bus",
                                                        daemon=True)
                    start = True
            dispatcher = self._dispatcher
        if closed:
            log.warning("event %s published after the bus was closed: dropped", type)
        elif start and dispatcher is not None:
            try:
                dispatcher.start()  # outside the lock: the new thread takes it at once
            except RuntimeError:  # the interpreter is shutting down: no new threads
                with self._cond:
                    self._dispatcher = None  # (the next publish tries again)
                log.warning("event %s queued but no dispatcher could start", type)
        return message

    def join(self, timeout: float | None = None) -> bool:
        """Wait until every message published before this call has been delivered; False if
        ``timeout`` (seconds) ran out first. Called from a subscriber (the dispatcher thread),
        it returns False at once: the dispatcher cannot wait for itself. Never call it while
        holding a lock a subscriber may need."""
        if threading.current_thread() is self._dispatcher:
            return False
        with self._cond:
            target = self._seq
            return self._cond.wait_for(lambda: self._delivered >= target, timeout)

    def close(self, timeout: float | None = 5.0) -> bool:
        """Deliver what is queued, then stop: later publishes are dropped. True when everything
        was delivered within ``timeout``."""
        done = self.join(timeout)
        with self._cond:
            self._closed = True
        return done

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def last_seq(self) -> int:
        """The sequence number of the last message published (0 before the first): whatever
        happens now comes after every message up to it."""
        with self._cond:
            return self._seq

    def _dispatch(self) -> None:
        """The dispatcher thread: deliver queued messages in order until the queue is empty."""
        while True:
            with self._cond:
                if not self._queue:
                    self._dispatcher = None  # the next publish starts another one
                    self._cond.notify_all()
                    return
                message, subscribers = self._queue.popleft()
                live = set(map(id, self._subscribers))
            for entry in subscribers:
                callback, types = entry
                if (types is not None and message.type not in types) or id(entry) not in live:
                    continue
                try:
                    callback(message)
                except Exception:  # one broken subscriber must not silence the table
                    log.exception("event subscriber %r failed on %s", callback, message.type)
            with self._cond:
                self._delivered = max(self._delivered, message.seq)
                self._cond.notify_all()


class Outbox:
    """Events collected under their owner's lock, published in that order after it is released.

    A :class:`~companion.referee.table.Table` changes its state under its lock and must not
    publish while holding it; but two threads that change the state one after the other must
    publish in that same order. :meth:`add` (called under the owner's lock) queues a batch;
    :meth:`flush` (called after releasing it) publishes every queued batch in order. When
    another thread is already flushing, it publishes this batch too and flush returns at once.
    """

    def __init__(self, bus: EventBus):
        self.bus = bus
        self._lock = threading.Lock()
        self._batches: deque[list[tuple[str, dict[str, Any]]]] = deque()
        self._flushing = False

    def add(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Queue ``events`` ((type, data) pairs) as one batch."""
        if events:
            with self._lock:
                self._batches.append(events)

    def flush(self) -> None:
        """Publish every queued batch, in order (call it holding no lock)."""
        with self._lock:
            if self._flushing:
                return  # the thread flushing now publishes ours after its own
            self._flushing = True
        while True:
            with self._lock:
                if not self._batches:
                    self._flushing = False
                    return
                batch = self._batches.popleft()
            for type, data in batch:
                self.bus.publish(type, **data)
