"""The companion's web side: the table view, the phones' seat pages, the scoreboard, the set-up.

>>> from companion.host import Host
>>> app = create_app(Host(), secret_key="test")
>>> app.test_client().get("/api/state").json["playing"]
False

Run it with :func:`serve` (a threaded werkzeug server: one thread per open phone). See
``docs/web.md`` for the pages, the API and how phones join.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server

from .app import create_app

__all__ = ["create_app", "serve", "WebServer"]

log = logging.getLogger(__name__)


class WebServer:
    """A running app: ``url``, ``app``, ``server``; :meth:`shutdown` stops it and ends the streams."""

    def __init__(self, app, server: BaseWSGIServer, address: str):
        self.app = app
        self.server = server
        self.port = server.server_port
        shown = "127.0.0.1" if address in ("0.0.0.0", "") else address
        self.url = f"http://{shown}:{self.port}"
        self._thread: threading.Thread | None = None

    def start(self) -> "WebServer":
        """Serve in a background (daemon) thread and return at once."""
        self._thread = threading.Thread(target=self.server.serve_forever, name="web-server",
                                        daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        try:
            self.server.serve_forever()
        finally:
            self._close_streams()

    def shutdown(self) -> None:
        self._close_streams()
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _close_streams(self) -> None:
        ext = self.app.extensions["companion"]
        ext["stream"].close()


def serve(host, address: str = "0.0.0.0", port: int = 8000, *, block: bool = True,
          **app_options: Any) -> WebServer:
    """Serve the app for ``host`` on ``address:port`` with a threaded werkzeug server.

    With ``block=True`` (the default, for ``companion run``/``demo``) it serves until
    KeyboardInterrupt or :meth:`WebServer.shutdown` from another thread, then returns the
    stopped server. With ``block=False`` it serves in a daemon thread and returns the running
    :class:`WebServer` (tests and benchmarks; ``port=0`` picks a free port). ``app_options`` go
    to :func:`create_app` (``secret_key``, ``public_url``...).
    """
    app = create_app(host, **app_options)
    app.config["BIND_ADDRESS"] = address
    server = make_server(address, port, app, threaded=True)
    server.daemon_threads = True
    web = WebServer(app, server, address)
    log.info("web page on %s (join link in the QR code on the table view)", web.url)
    if not block:
        return web.start()
    try:
        web.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        web.server.server_close()
    return web
