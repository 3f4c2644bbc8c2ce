"""Server-Sent Events: the bus fanned out to every open page, one bounded queue per client.

The bus delivers in the publisher's thread (the referee's), so :class:`Broadcaster` only
serialises each message once and drops it into every client's queue without waiting. Each
client's response generator runs in that client's own server thread and blocks on its queue.

A client that stops reading must never hold up the table: when its queue is full its backlog
is thrown away and replaced by one ``resync`` event (the page then reloads ``/api/state``).
Heartbeat comments go out when nothing happened for a while, so a dead connection is noticed
(the write fails) and its thread ends.

Each stream holds a server thread, so they are counted in two pools: ``max_clients`` for joined
phones (each phone at most ``per_owner`` at once: a phone that opens another closes its oldest,
so a reload never locks it out) and ``max_anonymous`` for pages with no cookie (the table view on
a TV, spectators). A client with no cookie can fill only its own small pool, never the phones'.
The app sizes the phones' pool at ``per_owner`` streams for every phone it may let in, and ends
the streams of every phone it drops: each joined phone's two streams are its own, and no other
phone can take them.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from typing import Iterator

from companion.bus import BusMessage, EventBus

__all__ = ["Broadcaster", "Client", "TooManyClients"]

_CLOSE = object()


class TooManyClients(RuntimeError):
    """More open streams than ``max_clients``: each holds a server thread."""


class Client:
    """One open event stream. ``dropped`` counts messages lost to a full queue."""

    def __init__(self, ident: int, maxsize: int, owner: str | None = None):
        self.ident = ident
        self.owner = owner
        self.queue: queue.Queue = queue.Queue(maxsize=maxsize)
        self.dropped = 0

    def offer(self, line: str) -> None:
        """Queue one ``data:`` payload without ever blocking the publisher."""
        try:
            self.queue.put_nowait(line)
        except queue.Full:
            self._resync()

    def _resync(self) -> None:
        while True:
            try:
                self.queue.get_nowait()
                self.dropped += 1
            except queue.Empty:
                break
        try:
            self.queue.put_nowait(json.dumps({"type": "resync", "dropped": self.dropped}))
        except queue.Full:  # pragma: no cover - just emptied; another publisher raced us
            pass


class Broadcaster:
    """Subscribes once to ``bus``; :meth:`stream` yields the SSE text for one client."""

    def __init__(self, bus: EventBus, *, queue_size: int = 256, heartbeat_s: float = 15.0,
                 max_clients: int = 32, max_anonymous: int = 8, per_owner: int = 2):
        self.queue_size = queue_size
        self.heartbeat_s = heartbeat_s
        self.max_clients = max_clients
        self.max_anonymous = max_anonymous
        self.per_owner = per_owner
        self._clients: dict[int, Client] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._unsubscribe = bus.subscribe(self._on_message)
        self.last_seq = 0

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._clients)

    def _on_message(self, message: BusMessage) -> None:
        payload = json.dumps(message.to_json(), separators=(",", ":"), default=str)
        self.last_seq = message.seq
        with self._lock:
            clients = list(self._clients.values())
        for client in clients:
            client.offer(payload)

    def open(self, owner: str | None = None) -> Client:
        """A new stream for ``owner`` (a joined phone's id; None: a page with no cookie).

        Raises :class:`TooManyClients` when the owner's pool is full. A phone over
        ``per_owner`` streams gets one more by closing its oldest."""
        with self._lock:
            pool = [c for c in self._clients.values() if (c.owner is None) == (owner is None)]
            evicted: list[Client] = []
            if owner is not None:
                own = [c for c in pool if c.owner == owner]
                evicted = own[:max(0, len(own) - self.per_owner + 1)]
            limit = self.max_anonymous if owner is None else self.max_clients
            if len(pool) - len(evicted) >= limit:
                who = "pages without a joined phone" if owner is None else "joined phones"
                raise TooManyClients(f"at most {limit} streams for {who} at once")
            for old in evicted:
                del self._clients[old.ident]
            client = Client(next(self._ids), self.queue_size, owner)
            self._clients[client.ident] = client
        for old in evicted:          # delivered after the lock: never call out while holding it
            _end(old)
        return client

    def owners(self) -> dict[str, int]:
        """How many streams each joined phone has open now (by phone id)."""
        with self._lock:
            out: dict[str, int] = {}
            for client in self._clients.values():
                if client.owner is not None:
                    out[client.owner] = out.get(client.owner, 0) + 1
        return out

    def close_client(self, client: Client) -> None:
        with self._lock:
            self._clients.pop(client.ident, None)

    def close_owners(self, owners: set[str] | list[str]) -> int:
        """End every stream of these phones (they left or were revoked); returns how many."""
        wanted = set(owners)
        with self._lock:
            gone = [c for c in self._clients.values() if c.owner in wanted]
            for client in gone:
                del self._clients[client.ident]
        for client in gone:
            _end(client)
        return len(gone)

    def stream(self, client: Client) -> Iterator[str]:
        """The SSE text for ``client`` until it disconnects or :meth:`close` is called."""
        try:
            yield "retry: 2000\n"
            yield f"data: {json.dumps({'type': 'hello', 'seq': self.last_seq})}\n\n"
            while True:
                try:
                    item = client.queue.get(timeout=self.heartbeat_s)
                except queue.Empty:
                    yield ": heartbeat\n\n"      # a dead socket fails here and ends the thread
                    continue
                if item is _CLOSE:
                    return
                yield f"data: {item}\n\n"
        finally:
            self.close_client(client)

    def close(self) -> None:
        """End every stream (the server is shutting down) and leave the bus."""
        self._unsubscribe()
        with self._lock:
            clients = list(self._clients.values())
        for client in clients:
            _end(client)


def _end(client: Client) -> None:
    """Make ``client``'s stream return at its next read."""
    try:
        client.queue.put_nowait(_CLOSE)
    except queue.Full:
        client._resync()
        client.queue.put_nowait(_CLOSE)
