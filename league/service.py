"""One league process: the store, the view rebuilt from it, the broker connection, the page.

>>> from companion.config import load_config
>>> league = League(load_config(None, {"league.broker": "mqtt://127.0.0.1:1"}).league, ":memory:")
>>> league.view.snapshot()["standings"]
{}
>>> league.close()
"""

from __future__ import annotations

import logging
import threading
from typing import Any
from pathlib import Path

from companion.config import LeagueSection

from .page import create_app
from .store import LeagueStore
from .subscriber import LeagueSubscriber
from .view import LeagueView

__all__ = ["League"]

log = logging.getLogger(__name__)


class League:
    """Build it (the view is rebuilt from the store at once), :meth:`start` the broker
    connection, :meth:`serve` the page, :meth:`close` it all."""

    def __init__(self, section: LeagueSection, store_path: str | Path, *,
                 client_id: str | None = None):
        if store_path != ":memory:":
            Path(store_path).parent.mkdir(parents=True, exist_ok=True)
        self.section = section
        self.store = LeagueStore(store_path)
        self.view = LeagueView(section.league)
        self.view.load(self.store)
        self.subscriber = LeagueSubscriber(section, self.view, self.store, client_id=client_id)
        self._server: Any = None   # waitress's server (waitress has no type hints)
        self._thread: threading.Thread | None = None

    def start(self) -> "League":
        self.subscriber.start()
        return self

    def serve(self, address: str, port: int) -> Any:
        """Serve the page in a daemon thread (waitress); returns the server (its
        ``effective_port`` is the port, when ``port`` was 0)."""
        from waitress import create_server

        app = create_app(self.view, self.store, status=lambda: self.subscriber.status,
                         state=lambda: self.subscriber.state)
        self._server = create_server(app, host=address, port=port, threads=8, ident="league")
        self._thread = threading.Thread(target=self._server.run, name="league-page", daemon=True)
        self._thread.start()
        return self._server

    def close(self) -> None:
        if self._server is not None:
            from waitress import wasyncore

            # Close the sockets from the server's own loop, as web.WebServer.shutdown does (a
            # sibling layer: not importable here): closed from this thread, the loop's select()
            # could see a closed descriptor and the server thread die of EBADF.
            self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
            try:
                self._server.trigger.pull_trigger(lambda: wasyncore.close_all(self._server._map))
            except OSError:  # the loop closed the trigger first: already closed
                pass
            if self._thread is not None:   # (started with the server)
                self._thread.join(5)
        self.subscriber.stop()
        self.store.close()
