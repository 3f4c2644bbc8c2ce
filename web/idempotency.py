"""Idempotency keys: a request sent again (a phone retrying after its connection dropped) is
answered as the first time and changes nothing.

Every ``POST`` may carry an ``Idempotency-Key`` header (the seat page makes one per tap and sends
it again with each retry of that tap). The first request with a key is applied and its answer
(status, body, cookies set) kept in the event log (:meth:`companion.eventlog.EventLog.keep_answer`);
the same key again gets that answer back, with ``Idempotent-Replayed: true``, and nothing is
applied. The keys are per scope: a seat's phones, the organiser, or phones joining. A request
with a key that is still being answered waits for that answer (up to :attr:`Answers.wait_s`,
then 409 ``in-progress``), so two copies racing apply once.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from companion.eventlog import EventLog, StoredAnswer

__all__ = ["HEADER", "REPLAYED_HEADER", "Answers", "InProgress", "valid_key"]

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
_KEY = re.compile(r"[A-Za-z0-9_.:-]{1,100}")


def valid_key(value: str) -> bool:
    """1 to 100 characters of letters, digits and ``_ . : -`` (a UUID, or 32 hex digits)."""
    return _KEY.fullmatch(value) is not None


class InProgress(Exception):
    """The same key's first request is still being answered after the wait."""


class Answers:
    """Who holds which key now (in memory) and the answers given (in the event log)."""

    def __init__(self, log: EventLog, wait_s: float = 20.0):
        self.log = log
        self.wait_s = wait_s
        self._lock = threading.Lock()
        self._busy: dict[tuple[str, str], threading.Event] = {}

    def claim(self, scope: str, key: str) -> StoredAnswer | None:
        """The answer already given to ``key`` of ``scope``; or None: the key is now this
        caller's, who answers the request and then calls :meth:`release` (always). Waits while
        another request holds the key; raises :class:`InProgress` after :attr:`wait_s`."""
        deadline = time.monotonic() + self.wait_s
        name = (scope, key)
        while True:
            with self._lock:
                busy = self._busy.get(name)
                if busy is None:
                    self._busy[name] = threading.Event()
            if busy is None:
                # the log is read by the key's holder only: a request still being answered
                # has marked its change (EventLog.keyed) but not yet kept its answer
                try:
                    stored = self.log.answer_for(scope, key)
                except BaseException:
                    self.release(scope, key)
                    raise
                if stored is not None:
                    self.release(scope, key)
                return stored
            left = deadline - time.monotonic()
            if left <= 0 or not busy.wait(left):
                raise InProgress(f"the request with {HEADER} {key!r} is still being answered")

    def keep(self, scope: str, key: str, status: int, body: bytes,
             headers: list[tuple[str, str]], path: str) -> None:
        """Keep the answer of the key this caller holds (before :meth:`release`)."""
        self.log.keep_answer(scope, key, status, body, headers, path)

    def release(self, scope: str, key: str) -> None:
        with self._lock:
            busy = self._busy.pop((scope, key), None)
        if busy is not None:
            busy.set()

    def busy(self) -> int:
        """How many keys are being answered now."""
        with self._lock:
            return len(self._busy)


def scope_of(phone: Any) -> str:
    """The scope of a request's keys: its seat's phones, the organiser, or phones joining."""
    if phone is None:
        return "join"
    return "organiser" if phone.seat is None else f"seat:{phone.seat}"
