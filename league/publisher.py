"""The table's side of a league: its log, state and presence published to the MQTT broker.

A :class:`TablePublisher` runs its own thread (``league-publisher``). The bus only wakes it (the
bus's subscriber sets an event and returns); the thread then reads the log's entries after the
last one it sent (:class:`~league.feed.LogFeed`), publishes each (QoS 1) with its sequence
number, publishes the table's state (retained), and moves the watermark on over the entries the
broker has acknowledged, in order. While the broker is away the table plays on: nothing is
sent, paho-mqtt reconnects by itself (and sends again what was unacknowledged), and the thread
catches up from the log when the connection is back. It never holds a lock while it publishes.

The connection's last will sets ``online`` to ``false`` (retained) when the table vanishes; a
clean stop says so itself. A broker that hangs up as soon as the table publishes (its ACL does
not let the table's account write under the table's name) is said once, with that hint, and
tried again every 10-60 s.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable

from companion.bus import BusMessage
from companion.config import LeagueSection
from companion.host import Host

from .feed import LogFeed
from .mqtt import Topics, broker_address, make_client

if TYPE_CHECKING:   # (paho-mqtt: the league extra)
    from paho.mqtt.client import Client, ConnectFlags, DisconnectFlags
    from paho.mqtt.properties import Properties
    from paho.mqtt.reasoncodes import ReasonCode

__all__ = ["TablePublisher", "state_message"]

log = logging.getLogger(__name__)

#: A connection the broker closes within this many seconds was cut off, not lost (an ACL).
CUT_OFF_S = 2.0

#: What the table's state message leaves out of the host's snapshot (local to the table).
_LOCAL = ("signals", "reading", "timer")


def state_message(host: Host, seq: int, epoch: str) -> dict[str, Any]:
    """The retained state of the table: the host's snapshot less what is local to the table,
    with the match's id, the log's id (``epoch``) and last sequence number, and the time."""
    snapshot = {k: v for k, v in host.snapshot().items() if k not in _LOCAL}
    table = host.table
    return {**snapshot, "match": table.match_id if table is not None else None, "epoch": epoch,
            "seq": seq, "time": round(time.time(), 3)}


class TablePublisher:
    """Publishes one table to the league (see the module docs). :meth:`start`, :meth:`stop`.

    ``window``: entries sent and not yet acknowledged, at most; ``poll_s``: how often the
    thread looks at the log and the acknowledgements without being woken; ``cut_off_retry_s``:
    after the broker cut the table off (an ACL), the seconds before it tries again, the first
    and, doubling, the most (longer than after a lost connection: each try is cut off again)."""

    def __init__(self, host: Host, section: LeagueSection, *, window: int = 200,
                 poll_s: float = 0.25, cut_off_retry_s: tuple[int, int] = (10, 60)):
        self.host = host
        self.section = section
        self.topics = Topics(section.league, section.table)
        host_name, port, _ = broker_address(section.broker)
        self.feed = LogFeed(host.log.path, f"{host_name}:{port}/{section.league}/{section.table}")
        self.window = window
        self.poll_s = poll_s
        self.cut_off_retry_s = cut_off_retry_s
        self.client = make_client(section, f"uno-{section.league}-{section.table}")
        self.client.will_set(self.topics.online, "false", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self._wake = threading.Event()
        self._changed = threading.Event()  # the table said something: its state is sent again
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()  # guards status, acked and the in-flight queue
        self.acked = self.feed.watermark()
        self._sent = self.acked
        self._inflight: deque[tuple[int, Any]] = deque()  # (seq, paho MQTTMessageInfo)
        self.status = "connecting"
        self._said: str | None = None
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._connected_at = 0.0
        self._cut_off = False  # the broker hung up right after the last connection

    # --- running ------------------------------------------------------------------------------

    def start(self) -> "TablePublisher":
        host_name, port, _ = broker_address(self.section.broker)
        self._unsubscribe = self.host.bus.subscribe(self._on_bus)
        self.client.connect_async(host_name, port, keepalive=15)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name="league-publisher", daemon=True)
        self._thread.start()
        return self

    def _on_bus(self, _message: BusMessage) -> None:
        """On the bus's thread: only wake the publisher."""
        self._changed.set()
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Send what the log still holds (while connected, within ``timeout``), say offline and
        disconnect."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._connected.is_set():
            try:
                self._send_pending()
                self.client.publish(self.topics.online, "false", qos=1, retain=True) \
                    .wait_for_publish(timeout)
                self._advance()
            except (RuntimeError, ValueError):  # the connection went meanwhile: the will says it
                pass
        self.client.disconnect()
        self.client.loop_stop()
        self.feed.close()

    def wait_caught_up(self, timeout: float) -> bool:
        """True once the broker has acknowledged every entry of the log (tests, stopping)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.acked >= self.feed.last_seq():
                return True
            self._wake.set()
            time.sleep(0.05)
        return False

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.poll_s)
            self._wake.clear()
            try:
                if self._connected.is_set():
                    self._send_pending()
                self._advance()
                self._check_kept()
            except Exception:  # the league must never stop the table
                log.exception("league: publishing failed; trying again")
                self._stop.wait(1.0)

    def _send_pending(self) -> None:
        """Publish the entries after the last one sent (as many as the window allows), then the
        state when anything may have changed."""
        with self._lock:
            room = self.window - len(self._inflight)
            start = self._sent
        entries = self.feed.after(start, room) if room > 0 else []
        for entry in entries:
            info = self.client.publish(self.topics.events, json.dumps(entry, separators=(",", ":")),
                                       qos=1)
            with self._lock:
                self._inflight.append((entry["seq"], info))
                self._sent = entry["seq"]
        if not entries and not self._changed.is_set():
            return
        self._changed.clear()  # before the snapshot: a change after it is sent next time
        state = state_message(self.host, entries[-1]["seq"] if entries else start,
                              self.feed.epoch)
        self.client.publish(self.topics.state, json.dumps(state, separators=(",", ":")),
                            qos=1, retain=True)

    def _advance(self) -> None:
        """Move the watermark over the entries acknowledged in order, and store it. An entry
        published just as the connection went is never reported delivered (paho raises on it
        for good): it and the entries after it are sent again once connected (the league drops
        repeats). (A broker stopped mid-match once left the publisher failing on that entry
        every second, never catching up.)"""
        with self._lock:
            before = self.acked
            while self._inflight:
                try:
                    delivered = self._inflight[0][1].is_published()
                except (RuntimeError, ValueError):
                    self._inflight.clear()
                    self._sent = self.acked
                    break
                if not delivered:
                    break
                self.acked = self._inflight.popleft()[0]
            after = self.acked
        if after != before:
            self.feed.save_watermark(after)

    # --- paho's callbacks (its network thread) ------------------------------------------------

    def _on_connect(self, client: Client, userdata: Any, flags: ConnectFlags, reason_code: ReasonCode,
                    properties: Properties | None = None) -> None:
        if reason_code.is_failure:
            self._say(f"refused by the broker {self.section.broker}: {reason_code} "
                      f"(check [league] username and password)", error=True)
            return
        with self._lock:
            self._connected_at = time.monotonic()
            cut_off = self._cut_off
        client.publish(self.topics.online, "true", qos=1, retain=True)
        self._changed.set()
        self._connected.set()
        if not cut_off:  # (after a cut-off, said once the connection has lasted: _check_kept)
            self._say(f"connected to {self.section.broker} as table {self.section.table!r}")
        self._wake.set()

    def _check_kept(self) -> None:
        """A connection that lasted after the broker kept cutting it off: say it is back."""
        with self._lock:
            kept = self._cut_off and self._connected.is_set() and \
                time.monotonic() - self._connected_at > CUT_OFF_S
            if kept:
                self._cut_off = False
        if kept:
            self.client.reconnect_delay_set(min_delay=1, max_delay=30)
            self._say(f"connected to {self.section.broker} as table {self.section.table!r}")

    def _on_connect_fail(self, client: Client, userdata: Any) -> None:
        self._say(f"cannot reach the broker {self.section.broker}; the table plays on and "
                  "tries again", error=True)

    def _on_disconnect(self, client: Client, userdata: Any, flags: DisconnectFlags,
                       reason_code: ReasonCode, properties: Properties | None = None) -> None:
        was = self._connected.is_set()
        self._connected.clear()
        if not was or self._stop.is_set():
            return
        with self._lock:
            self._cut_off = time.monotonic() - self._connected_at < CUT_OFF_S
            cut_off = self._cut_off
        if cut_off:
            # What Mosquitto does to a client that writes where its ACL does not let it: most
            # often a table whose broker account may not write under its table's name. Said
            # once, and tried again every 10-60 s (not every second: cut_off_retry_s).
            first, most = self.cut_off_retry_s
            client.reconnect_delay_set(min_delay=first, max_delay=most)
            user = self.section.username or "(none)"
            self._say(f"the broker {self.section.broker} hangs up as soon as table "
                      f"{self.section.table!r} publishes: does its ACL let the account {user!r} "
                      f"write {self.topics.base}/...? (docs/league.md, 'Broker accounts'); "
                      "trying again", error=True)
        else:
            self._say(f"lost the broker {self.section.broker} ({reason_code}); the table plays "
                      "on and catches up when it is back", error=True)

    def _say(self, status: str, error: bool = False) -> None:
        """Log a new status once (a refused connection retried every second says it once)."""
        with self._lock:
            self.status = status
            new = status != self._said
            self._said = status
        if new:
            (log.error if error else log.info)("league: %s", status)
