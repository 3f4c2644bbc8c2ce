"""One running companion: the host, the signals, the web server and the table loop, together.

``companion run`` builds a :class:`Companion` with the real pins and the Pi camera;
``companion demo`` builds one with gpiozero's mock pins, the synthetic table and bots.
Both stop cleanly on Ctrl-C or SIGTERM (systemd).
"""

from __future__ import annotations

import logging
import queue
import random
import secrets
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, TextIO

from .config import Config
from .deal import deal_grid, opening_card
from .demo.bots import Bot
from .eventlog import EventLog
from .host import Host

__all__ = ["Companion", "TableLoop", "demo_setup", "CameraUnavailable"]

log = logging.getLogger(__name__)

#: The games the demo plays in turn.
DEMO_GAMES = ("grid", "flip", "classic")


def demo_setup(game: str, rng: random.Random, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """A set-up line for a demo match of ``game``, dealt with ``rng``."""
    options = {k: v for k, v in (rules or {}).items() if k in ("turn_seconds", "timeout_action")}
    if game == "grid":
        return {"setup": {"game": "grid", "seats": ["north", "east", "south", "west"],
                          "first": "north", "grid": deal_grid(rng), "options": options}}
    return {"setup": {"game": game, "seats": ["ann", "ben", "cai", "dee"], "dealer": "dee",
                      "start": opening_card(rng, game), "options": options}}


class CameraUnavailable(RuntimeError):
    """The configured camera cannot be opened; the message says which and what to do."""


class TableLoop:
    """The referee's heartbeat: polls the turn timer and lets bots act, in its own thread.

    ``pace`` is the seconds between two bot actions; with ``bots`` None nobody plays for the
    table (the real table: phones, buttons and the camera act).
    """

    def __init__(self, host: Host, *, bots: Bot | None = None, pace: float = 1.5,
                 rules: dict[str, Any] | None = None, seed: int | None = None,
                 step: Callable[[], None] | None = None, period: float = 0.05):
        self.host = host
        self.bots = bots
        self.pace = pace
        self.rules = rules or {}
        self.rng = random.Random(seed)
        self.step = step  # the camera referee's step, when there is a camera
        self.period = period
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_bot = time.monotonic() + pace
        self._games = iter(())
        self._match_over_since: float | None = None

    def start(self) -> "TableLoop":
        self._thread = threading.Thread(target=self._run, name="table-loop", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            try:
                self.tick(time.monotonic())
            except Exception:  # noqa: BLE001 - the loop must outlive one bad moment
                log.exception("table loop step failed")

    def tick(self, now: float) -> None:
        """One heartbeat: the camera step, the timer, and (demo) the bots' next move."""
        if self.step is not None:
            self.step()
        table = self.host.table
        if table is not None:
            table.poll_timer()
        if self.bots is None or now < self._next_bot:
            return
        self._next_bot = now + self.pace
        if table is None or table.state_json().get("champions"):
            self._start_next_demo_match(now)
            return
        action = self.bots.choose(table.game, table.state)
        if action is not None:
            table.act(action, source="bot")

    def _start_next_demo_match(self, now: float) -> None:
        # Leave the winner's fanfare a moment before the next match.
        if self._match_over_since is None and self.host.table is not None:
            self._match_over_since = now
            return
        if self._match_over_since is not None and now - self._match_over_since < 4 * self.pace:
            return
        self._match_over_since = None
        game = self._next_game()
        self.host.start_match(demo_setup(game, self.rng, self.rules))

    def _next_game(self) -> str:
        current = self.host.table.game.name if self.host.table else DEMO_GAMES[-1]
        return DEMO_GAMES[(DEMO_GAMES.index(current) + 1) % len(DEMO_GAMES)]


class Companion:
    """Everything of one running companion. Build it, :meth:`start` it, :meth:`stop` it."""

    def __init__(self, config: Config, *, demo: bool, pin_factory=None, log_path: Path | None = None,
                 seed: int | None = None, pace: float = 1.5, out: TextIO | None = None,
                 web: bool = True):
        from hardware.buttons import TableButtons
        from hardware.pinmap import PinMap
        from hardware.signals import Signals

        self.config = config
        self.demo = demo
        self.out = out
        if log_path is None and demo:
            log_path = Path(tempfile.mkdtemp(prefix="uno-demo-")) / "events.sqlite3"
        path = log_path or config.log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.event_log = EventLog(path)
        if self.event_log.set_aside is not None:
            print(f"warning: {self.event_log.set_aside}", file=self.out)
        self.host = Host(self.event_log, mode=config.table.mode)
        pinmap = PinMap.from_config(config.pins)
        self.signals = Signals.for_host(self.host, pinmap, pin_factory)
        try:
            self.buttons = TableButtons.for_host(self.host, pinmap, pin_factory=pin_factory)
        except Exception:
            self.signals.close()
            raise
        self.loop = TableLoop(self.host, bots=Bot(seed) if demo else None, pace=pace,
                              rules=config.rules, seed=seed)
        self.web_server = None
        self._want_web = web
        self._stopped = threading.Event()
        self._lines: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        if out is not None:
            self.host.bus.subscribe(self._lines.put)
            threading.Thread(target=self._print_events, name="terminal", daemon=True).start()

    def start(self) -> "Companion":
        if self._want_web:
            from web import serve

            address = self.config.web.host
            self.web_server = serve(self.host, address, self.config.web.port, block=False,
                                    public_url=self.config.web.public_url or None,
                                    secret_key=self._secret_key())
            if self.out is not None:
                print(f"table view on {self.web_server.url}/  (phones join from its QR code)",
                      file=self.out, flush=True)
        self.loop.start()
        return self

    def _secret_key(self) -> str:
        """The key that signs the phones' cookies, kept beside the event log so that joined
        phones stay joined when the companion restarts."""
        path = Path(self.event_log.path).with_name("web-secret")
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            key = secrets.token_hex(32)
            path.touch(mode=0o600)
            path.write_text(key)
            return key

    def run_until_stopped(self) -> None:
        """Block until Ctrl-C or SIGTERM, then stop everything."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self._stopped.set())
        try:
            while not self._stopped.wait(0.5):
                pass
        finally:
            self.stop()

    def stop(self) -> None:
        self.loop.stop()
        if self.web_server is not None:
            self.web_server.shutdown()
        self.buttons.close()
        self.signals.close()
        self.event_log.close()

    # --- the terminal -----------------------------------------------------------------------

    _QUIET = {"state", "action", "timer", "table-ready"}

    def _print_events(self) -> None:
        """The demo's terminal: events in a line each, and the virtual pins after key ones.

        Runs in its own thread so a slow terminal never holds up the bus."""
        while True:
            message = self._lines.get()
            if message.type in self._QUIET and not (message.type == "timer"
                                                    and message.data.get("kind") == "expired"):
                continue
            fields = " ".join(f"{k}={v}" for k, v in message.data.items()
                              if k not in ("state", "message") and v not in (None, "", [], {}))
            print(f"{time.strftime('%H:%M:%S')} {message.type:<14} {fields}", file=self.out,
                  flush=True)
            if message.type in ("turn", "illegal", "flipped", "won", "match-over", "penalty"):
                self.signals.flush(0.2)  # so the line shows what the pins show now
                print(f"{'':9}{'pins':<14} {self.signals.describe()}", file=self.out, flush=True)
