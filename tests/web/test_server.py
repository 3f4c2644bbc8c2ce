"""The real server (waitress, web.serve) under abuse from clients that never logged in: a huge body,
hundreds of idle connections, a request that is never finished, a silent connection, all the
event streams taken. Each runs against a server on 127.0.0.1 in this process."""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
import urllib.request

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import ServerLimits, serve

FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}


@pytest.fixture
def host():
    h = Host(EventLog(":memory:"))
    h.start_match(FLIP)
    return h


def _start(host, **options):
    return serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok", **options)


@pytest.fixture
def server(host):
    web = _start(host)
    yield web
    web.shutdown()


def _connect(web) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", web.port), timeout=10)
    return sock


def _status(sock: socket.socket) -> int:
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return int(head.split(b" ", 2)[1])


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """Whether the server closes ``sock`` (reads end) before ``within_s`` seconds pass."""
    sock.settimeout(within_s)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:            # reset by the server: closed too
        return True
    return True


def _state(web) -> dict:
    with urllib.request.urlopen(web.url + "/api/state", timeout=10) as r:
        return json.load(r)


def test_a_50_mb_body_is_refused_with_413_without_being_read_into_memory(server, host):
    size = 50 * 1024 * 1024
    block = b"x" * (1024 * 1024)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        sock = _connect(server)
        sock.sendall(b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                     b"application/json\r\nContent-Length: %d\r\n\r\n" % size)
        try:
            for _ in range(size // len(block)):
                sock.sendall(block)
        except OSError:
            pass                       # the server answered and closed: it stopped reading
        status = _status(sock)
        sock.close()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak / 2**20:.1f} MB held while refusing the body"
    assert status == 413
    assert host.table.state_json()["turn"] == "ann"


def test_a_chunked_body_over_the_limit_is_refused(server):
    sock = _connect(server)
    chunk = b"x" * 32 * 1024
    sock.sendall(b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    try:
        for _ in range(8):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass
    assert _status(sock) == 413
    sock.close()


def test_headers_over_the_limit_are_refused(server):
    sock = _connect(server)
    sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 40_000
                 + b"\r\n\r\n")
    assert _status(sock) == 431
    sock.close()


def test_300_idle_connections_do_not_make_300_threads(server):
    before = threading.active_count()
    socks = [_connect(server) for _ in range(300)]
    try:
        for i, sock in enumerate(socks):
            if i % 2:                                  # half of them send half a request
                sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert _state(server)["playing"] is True       # the server still answers
        assert threading.active_count() - before < 10
    finally:
        for sock in socks:
            sock.close()


def test_a_request_that_is_never_finished_is_dropped(host):
    web = _start(host, limits=ServerLimits(request_timeout_s=1, idle_timeout_s=600,
                                           check_every_s=1))
    try:
        sock = _connect(web)
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        dropped = False
        for _ in range(60):                            # one header line every half second
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except OSError:
                dropped = True
                break
            if _closed_by_server(sock, 0.5):
                dropped = True
                break
        assert dropped, "a request trickling in for 30 s was still open"
        assert _state(web)["playing"] is True
    finally:
        web.shutdown()


def test_a_silent_connection_is_closed(host):
    web = _start(host, limits=ServerLimits(idle_timeout_s=1, check_every_s=1))
    try:
        sock = _connect(web)
        assert _closed_by_server(sock, 30)
    finally:
        web.shutdown()


def test_a_finished_request_is_not_dropped_by_the_request_timeout(host):
    web = _start(host, limits=ServerLimits(request_timeout_s=1, check_every_s=1))
    try:
        for _ in range(3):
            assert _state(web)["playing"] is True
            time.sleep(0.6)
    finally:
        web.shutdown()


def _open_stream(web, cookie: str | None = None) -> tuple[socket.socket, int]:
    sock = _connect(web)
    extra = f"Cookie: companion_phone={cookie}\r\n" if cookie else ""
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    return sock, _status(sock)


def _join(web, seat: str) -> str:
    body = json.dumps({"token": "tok", "seat": seat}).encode()
    req = urllib.request.Request(web.url + "/api/join", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]


def test_clients_without_a_cookie_cannot_hold_every_stream(host):
    web = _start(host, max_phones=3, table_streams=2)
    socks = []
    try:
        for _ in range(2):
            sock, status = _open_stream(web)
            socks.append(sock)
            assert status == 200
        sock, status = _open_stream(web)
        socks.append(sock)
        assert status == 503                        # the pool for pages without a cookie is full
        for seat in ("ann", "ben", "cai"):          # every joined phone still follows the table
            sock, status = _open_stream(web, _join(web, seat))
            socks.append(sock)
            assert status == 200
        assert _state(web)["playing"] is True       # and plain requests still have a thread
    finally:
        for sock in socks:
            sock.close()
        web.shutdown()


def test_a_foreign_host_is_refused_by_the_real_server(server):
    sock = _connect(server)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: rebind.evil.example:%d\r\n\r\n" % server.port)
    assert _status(sock) == 400
    sock.close()


def test_shutdown_ends_the_streams_and_the_threads(host):
    before = threading.active_count()
    web = _start(host)
    sock, status = _open_stream(web)
    assert status == 200
    web.shutdown()
    sock.close()
    for _ in range(100):          # a worker may still be returning from its last task
        if threading.active_count() <= before:
            break
        time.sleep(0.1)
    assert threading.active_count() <= before


def test_the_terminal_says_how_phones_join(host):
    web = _start(host)                                   # 127.0.0.1: phones cannot reach it
    try:
        note = web.phones_note()
        assert note.startswith("Phones cannot reach this page") and "--host 0.0.0.0" in note
    finally:
        web.shutdown()
    address = ["127.0.0.1"]
    web = serve(host, "0.0.0.0", 0, block=False, secret_key="k", join_token="tok",
                lan_address=lambda: address[0])
    try:
        assert "no network address" in web.phones_note()
        address[0] = "192.168.1.20"                      # looked up when asked, not at start
        assert web.phones_note() == (f"Phones join at http://192.168.1.20:{web.port}/ "
                                     "(scan the QR code on the table view).")
    finally:
        web.shutdown()
