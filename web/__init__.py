"""The companion's web side: the table view, the phones' seat pages, the scoreboard, the set-up.

>>> from companion.host import Host
>>> app = create_app(Host(), secret_key="test")
>>> app.test_client().get("/api/state").json["playing"]
False

Run it with :func:`serve`: waitress, a production WSGI server in pure Python. One thread (the
main loop) holds every connection, idle or half-sent, and a fixed pool of worker threads runs the
requests; an open event stream keeps its worker, so the pool is sized for the streams allowed plus
a few for the other requests. Slow clients cannot crowd the others out: each address holds at
most ``per_address`` connections, and at the limit a new connection closes the one that has
waited longest without sending a whole request (:class:`ServerLimits`). See ``docs/web.md`` for
the pages, the API and how phones join.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress import wasyncore

from .app import MAX_BODY_BYTES, MAX_PHOTO_BYTES, create_app
from .reach import terminal_note

__all__ = ["create_app", "serve", "WebServer", "ServerLimits"]

log = logging.getLogger(__name__)


class ServerLimits:
    """What one connection may cost (see docs/web.md). The defaults suit a Pi on a home network.

    ``max_body``: the largest JSON request body (the biggest real one, a grid set-up, is ~2 kB);
    ``max_photo``: the largest hand photo (``POST /api/hand-photo``); the server reads bodies up
    to the larger of the two and the app refuses each route's excess (413);
    ``max_header``: the request line and headers together; ``request_timeout_s``: a request must
    arrive whole (headers and body) within this time once it has begun, or its connection is
    dropped (a slow-sending client holds no thread, but it would hold a connection);
    ``idle_timeout_s``: a connection with nothing sent either way is closed; ``connections``: the
    most open connections (more wait in the kernel's queue; each costs a file descriptor and a
    few kB, never a thread); ``per_address``: the most open connections from one client address
    (a phone's browser uses six at most); ``spare_threads``: workers beyond one per event stream,
    for the other requests; ``check_every_s``: how often the timeouts are checked.

    A new connection over ``per_address`` (from its address) or ``connections`` (in all) is
    still taken at once: it closes the connection, of that address or of anybody, that has gone
    longest without sending a whole request (half-sent or idle; never one being answered, such
    as an event stream), so slow senders never keep a new client waiting in the kernel's queue.
    """

    def __init__(self, *, max_body: int = MAX_BODY_BYTES, max_photo: int = MAX_PHOTO_BYTES,
                 max_header: int = 32 * 1024,
                 request_timeout_s: float = 10.0, idle_timeout_s: int = 30,
                 connections: int = 500, per_address: int = 64, spare_threads: int = 8,
                 check_every_s: int = 2):
        self.max_body = max_body
        self.max_photo = max_photo
        self.max_header = max_header
        self.request_timeout_s = request_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.connections = connections
        self.per_address = per_address
        self.spare_threads = spare_threads
        self.check_every_s = check_every_s


class _Channel(HTTPChannel):
    """A connection that remembers when its unfinished request began."""

    request_began: float | None = None

    def received(self, data):
        waiting = self.request is not None
        result = super().received(data)
        if self.request is None:
            self.request_began = None
        elif not waiting or self.request_began is None:
            self.request_began = time.time()
        return result

    def waiting_since(self) -> float | None:
        """Since when this connection has sent no whole request (its unfinished request's first
        byte, or its last activity when idle); None while a request of it is being answered."""
        if self.requests:
            return None
        if self.will_close:
            return float("-inf")
        return self.request_began if self.request_began is not None else self.last_activity


class _Server(TcpWSGIServer):
    """waitress, plus: a request that has not arrived whole within ``request_timeout_s`` of its
    first byte has its connection closed (waitress itself only closes connections that are
    silent for ``channel_timeout``; one byte every few seconds would keep a half-sent request)."""

    channel_class = _Channel
    request_timeout_s = 10.0
    per_address = 64

    def maintenance(self, now):
        super().maintenance(now)
        cutoff = now - self.request_timeout_s
        for channel in list(self.active_channels.values()):
            began = getattr(channel, "request_began", None)
            if began is not None and began < cutoff and not channel.requests:
                channel.will_close = True

    def readable(self):
        """Always take new connections (:meth:`handle_accept` makes room): waitress would stop
        accepting at ``connection_limit``, and a new client would wait behind the slow ones."""
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        return self.accepting

    def handle_accept(self):
        try:
            accepted = self.accept()
            if accepted is None:
                return
            conn, addr = accepted
            self.set_socket_options(conn)
        except OSError:
            return                   # the client went before it was taken (as waitress does)
        addr = self.fix_addr(addr)
        if not self._make_room(addr[0] if isinstance(addr, tuple) else addr):
            conn.close()             # every connection of that address is being answered
            return
        self.channel_class(self, conn, addr, self.adj, map=self._map)

    def _make_room(self, address) -> bool:
        """Close one waiting connection if ``address`` holds :attr:`per_address` or everybody
        :attr:`connection_limit`; False when none can be closed (all are being answered).
        Runs in the main loop, like every change to the channels."""
        channels = list(self.active_channels.values())
        mine = [c for c in channels if _address(c) == address]
        if len(mine) >= self.per_address:
            pool = mine
        elif len(channels) >= self.adj.connection_limit:
            pool = channels
        else:
            return True
        waiting = [(since, c) for c in pool
                   if (since := getattr(c, "waiting_since", lambda: None)()) is not None]
        if not waiting:
            return False
        min(waiting, key=lambda item: item[0])[1].handle_close()
        return True


def _address(channel) -> object:
    addr = channel.addr
    return addr[0] if isinstance(addr, tuple) else addr


class WebServer:
    """A running app: ``url``, ``app``, ``server``; :meth:`shutdown` stops it and ends the streams;
    :meth:`phones_note` says how phones join (or why they cannot)."""

    def __init__(self, app, server: _Server, address: str):
        self.app = app
        self.server = server
        self.address = address
        self.port = int(server.effective_port)
        shown = "127.0.0.1" if address in ("0.0.0.0", "") else address
        self.url = f"http://{shown}:{self.port}"
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    @property
    def organiser_pin(self) -> str:
        """The PIN a phone gives to join as the organiser (printed in the terminal at start)."""
        return self.app.extensions["companion"]["phones"].organiser_pin

    def pin_note(self) -> str:
        """One line for the terminal: the organiser PIN."""
        return (f"Organiser PIN: {self.organiser_pin} (a phone joining as the organiser types it; "
                f"also on the table view on this machine).")

    def phones_note(self) -> str:
        """One line for the terminal: where phones join, or plainly that they cannot (a page
        served on loopback only) and how to serve on the network (:mod:`web.reach`). The LAN
        address is looked up now, not at start."""
        lan_ip = self.app.extensions["companion"]["lan_ip"]
        return terminal_note(self.address, lan_ip, self.port)

    def start(self) -> "WebServer":
        """Serve in a background (daemon) thread and return at once."""
        self._thread = threading.Thread(target=self.serve_forever, name="web-server", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        try:
            self.server.run()
        finally:
            self._close_streams()
            self._stopped.set()

    def shutdown(self) -> None:
        self._close_streams()
        # The streams have ended: the workers finish their last writes, then stop.
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        # Closing every socket from the server's own loop makes that loop return.
        try:
            self.server.trigger.pull_trigger(lambda: wasyncore.close_all(self.server._map))
        except OSError:      # another thread's wake-up ran our close first: already closed
            pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _close_streams(self) -> None:
        ext = self.app.extensions["companion"]
        ext["stream"].close()


def _allow_open_files(wanted: int) -> None:
    """Raise this process's soft limit of open files towards ``wanted`` (a Pi's systemd gives
    services 1024), never above the hard limit."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Linux
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def serve(host, address: str = "0.0.0.0", port: int = 8000, *, block: bool = True,
          limits: ServerLimits | None = None, **app_options: Any) -> WebServer:
    """Serve the app for ``host`` on ``address:port`` with waitress.

    With ``block=True`` (the default) it serves until KeyboardInterrupt or
    :meth:`WebServer.shutdown` from another thread, then returns the stopped server. With
    ``block=False`` it serves in a daemon thread and returns the running :class:`WebServer`
    (``companion run``/``demo``, tests and benchmarks; ``port=0`` picks a free port).
    ``app_options`` go to :func:`create_app` (``secret_key``, ``public_url``, ``max_phones``...);
    ``address`` is added to the names the app answers to. ``limits``: :class:`ServerLimits`.
    """
    limits = limits or ServerLimits()
    allowed = tuple(app_options.pop("allowed_hosts", ()) or ())
    app = create_app(host, allowed_hosts=(address, *allowed), max_body=limits.max_body,
                     max_photo=limits.max_photo, **app_options)
    app.config["BIND_ADDRESS"] = address
    streams = app.extensions["companion"]["stream"]
    adj = Adjustments(
        host=address, port=port,
        threads=streams.max_clients + streams.max_anonymous + limits.spare_threads,
        # the largest body any route takes: each route's own limit is the app's (413 JSON)
        max_request_body_size=max(limits.max_body, limits.max_photo),
        max_request_header_size=limits.max_header,
        channel_timeout=limits.idle_timeout_s, cleanup_interval=limits.check_every_s,
        connection_limit=limits.connections, ident="companion",
        # poll, not select: select fails on a descriptor numbered over 1023
        asyncore_use_poll=True,
        # The table never sits behind a proxy: X-Forwarded-* headers are dropped, not believed.
        clear_untrusted_proxy_headers=True)
    _allow_open_files(limits.connections + 64)
    server = _Server(app, map={}, adj=adj)
    server.request_timeout_s = limits.request_timeout_s
    server.per_address = limits.per_address
    app.config["BIND_PORT"] = int(server.effective_port)
    web = WebServer(app, server, address)
    log.info("web page on %s. %s %s", web.url, web.phones_note(), web.pin_note())
    if not block:
        return web.start()
    try:
        web.serve_forever()
    except KeyboardInterrupt:
        pass
    return web
