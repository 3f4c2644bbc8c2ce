"""The table's event log read as a feed: its entries after a sequence number, in order.

The event log (:mod:`companion.eventlog`) is the truth; an entry's sequence number is its row
id, which only grows. The publisher keeps, in the same SQLite file, the last sequence number
the broker acknowledged (``league_watermark``), so a table restarted (even by ``kill -9``) goes
on from there: the entries after it are published again, in order, and consumers drop the ones
they already have. Every entry carries the log's id (``epoch``, made with the log's file and kept
in its ``meta`` table): a table whose log is replaced numbers its entries from 1 again, and the
league keeps them as a new stream instead of dropping them as repeats. The feed has its own
connection (WAL: reading never blocks the table's
writes; the watermark's write is one short transaction).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

__all__ = ["LogFeed"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS league_watermark (key TEXT PRIMARY KEY, seq INTEGER NOT NULL)"


class LogFeed:
    """Entries of the event log at ``path`` and this publisher's watermark (named ``key``: the
    broker, league and table, so that another league starts from the beginning)."""

    def __init__(self, path: str | Path, key: str):
        self.key = key
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                                   timeout=10)
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='epoch'").fetchone()
        #: the log's id (:class:`~companion.eventlog.EventLog` makes it with the log)
        self.epoch: str = row[0] if row else ""

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def watermark(self) -> int:
        """The last sequence number the broker acknowledged (0: none yet). One larger than the
        log's last (the log was set aside and started afresh) counts as 0."""
        with self._lock:
            row = self._db.execute("SELECT seq FROM league_watermark WHERE key=?",
                                   (self.key,)).fetchone()
            last = self._db.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
        seq = int(row[0]) if row else 0
        return 0 if seq > last else seq

    def save_watermark(self, seq: int) -> None:
        """Durably (synchronous=FULL) remember that the broker has everything up to ``seq``."""
        with self._lock:
            self._db.execute("INSERT INTO league_watermark (key, seq) VALUES (?, ?) "
                             "ON CONFLICT(key) DO UPDATE SET seq=excluded.seq", (self.key, seq))

    def last_seq(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0])

    def after(self, seq: int, limit: int = 100) -> list[dict[str, Any]]:
        """Up to ``limit`` entries after ``seq``, oldest first, each as the league receives it."""
        with self._lock:
            rows = self._db.execute(
                "SELECT e.id, e.match_id, e.source, e.action, e.events, e.time, m.setup "
                "FROM entries e JOIN matches m ON m.id = e.match_id "
                "WHERE e.id > ? ORDER BY e.id LIMIT ?", (seq, limit)).fetchall()
        out = []
        for entry_id, match_id, source, action, events, time, setup in rows:
            head = json.loads(setup).get("setup", {})
            out.append({"epoch": self.epoch, "seq": entry_id, "match": match_id, "game": head.get("game"),
                        "seats": head.get("seats", []), "source": source,
                        "action": json.loads(action), "events": json.loads(events),
                        "time": round(time, 3)})
        return out
