"""Slow clients cannot keep a player's tap waiting (slowloris): 500 connections that trickle a
request's header a byte at a time are held open beside the real server (``web.serve`` on
127.0.0.1), and a plain request from another address still answers at once. The attackers come
from other loopback addresses (127.0.0.2, ...), as other phones would from theirs; each sends for
a bounded time and stops by itself."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import ServerLimits, serve

pytestmark = pytest.mark.slow

FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}
HEADER = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000


class Trickle:
    """``count`` connections from ``addresses`` (in turn), each sending one more byte of a
    request's header every ``every_s`` seconds, for at most ``for_s`` seconds."""

    def __init__(self, port: int, count: int, addresses: list[str], every_s: float = 0.25,
                 for_s: float = 20.0):
        self.socks: list[socket.socket] = []
        for n in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((addresses[n % len(addresses)], 0))
            sock.setblocking(False)
            try:
                sock.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            self.socks.append(sock)
        self.every_s, self.for_s = every_s, for_s
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.sent = 0

    def __enter__(self) -> "Trickle":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        for sock in self.socks:
            sock.close()

    def _run(self) -> None:
        deadline = time.monotonic() + self.for_s
        at = 0
        while not self.stop.is_set() and time.monotonic() < deadline and at < len(HEADER):
            for sock in self.socks:
                try:
                    sock.send(HEADER[at:at + 1])
                    self.sent += 1
                except OSError:          # not connected yet, or closed by the server
                    pass
            at += 1
            self.stop.wait(self.every_s)


def _tap(port: int) -> tuple[float, dict]:
    """A player's request from 127.0.0.1: (seconds to the answer, the answer)."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:100]
    return time.monotonic() - t0, json.loads(body)


@pytest.fixture
def server():
    host = Host(EventLog(":memory:"))
    host.start_match(FLIP)
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok")
    yield web
    web.shutdown()


def _held(web, address: str) -> int:
    return sum(1 for c in list(web.server.active_channels.values())
               if isinstance(c.addr, tuple) and c.addr[0] == address)


def _taps_while_held(web, trickle: Trickle) -> list[float]:
    with trickle:
        time.sleep(2.0)                   # every connection is in, and trickling
        assert trickle.sent > 0
        times = []
        for _ in range(5):
            took, state = _tap(web.port)
            assert state["playing"] is True
            times.append(took)
            time.sleep(0.3)
    return times


def test_500_trickling_connections_from_one_address_do_not_delay_a_tap(server):
    times = _taps_while_held(server, Trickle(server.port, 500, ["127.0.0.2"]))
    assert max(times) < 1.0, times
    assert _held(server, "127.0.0.2") <= ServerLimits().per_address


def test_500_trickling_connections_from_many_addresses_do_not_delay_a_tap(server):
    addresses = [f"127.0.0.{n}" for n in range(2, 22)]          # 25 each: under the address cap
    times = _taps_while_held(server, Trickle(server.port, 500, addresses))
    assert max(times) < 1.0, times


def test_an_address_at_its_cap_still_gets_a_new_connection_answered():
    """The newest connection of an address is the one in use: it closes the oldest waiting one
    of that address rather than being turned away."""
    host = Host(EventLog(":memory:"))
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k",
                limits=ServerLimits(per_address=4))
    try:
        idle = [socket.create_connection(("127.0.0.1", web.port), timeout=10) for _ in range(10)]
        time.sleep(0.5)
        took, state = _tap(web.port)
        assert state["playing"] is False and took < 5
        assert _held(web, "127.0.0.1") <= 4
        for sock in idle:
            sock.close()
    finally:
        web.shutdown()
