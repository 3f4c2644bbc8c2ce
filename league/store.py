"""What the league heard, kept in one SQLite file so that a restarted league loses nothing.

Every table's log entries (one row per table, log id (``epoch``: a table whose log was replaced
starts a new stream) and sequence number: a repeat is dropped by the primary key) and each table's
last state and presence. ``companion league`` rebuilds its view
from here, then hears the retained states and the entries published while it was away (the
broker keeps them for its persistent session).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterator

__all__ = ["LeagueStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    tbl TEXT NOT NULL, epoch TEXT NOT NULL, seq INTEGER NOT NULL, match INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tbl, epoch, seq)
);
CREATE INDEX IF NOT EXISTS entries_by_match ON entries(tbl, epoch, match, seq);
CREATE TABLE IF NOT EXISTS tables (
    tbl TEXT PRIMARY KEY, state TEXT, online INTEGER
);
"""

#: A store of a league that kept one stream per table (no epoch): its entries become stream "".
_UPGRADE = """
DROP INDEX IF EXISTS entries_by_match;
ALTER TABLE entries RENAME TO entries_without_epoch;
CREATE TABLE entries (
    tbl TEXT NOT NULL, epoch TEXT NOT NULL, seq INTEGER NOT NULL, match INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tbl, epoch, seq)
);
INSERT INTO entries SELECT tbl, '', seq, match, body FROM entries_without_epoch;
DROP TABLE entries_without_epoch;
"""


class LeagueStore:
    """The league's own file (``":memory:"`` for a throw-away one)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        columns = [row[1] for row in self._db.execute("PRAGMA table_info(entries)")]
        if columns and "epoch" not in columns:
            self._db.executescript(f"BEGIN; {_UPGRADE} COMMIT;")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add_entry(self, table: str, entry: dict[str, Any]) -> bool:
        """Keep one entry; False when this table's stream already has its sequence number (a
        repeat). An entry with no ``epoch`` belongs to the stream ``""``."""
        with self._lock:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO entries (tbl, epoch, seq, match, body) VALUES (?, ?, ?, ?, ?)",
                (table, entry.get("epoch", ""), entry["seq"], entry["match"],
                 json.dumps(entry, separators=(",", ":"), allow_nan=False)))
            return cur.rowcount == 1

    def set_state(self, table: str, state: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT INTO tables (tbl, state) VALUES (?, ?) ON CONFLICT(tbl) "
                             "DO UPDATE SET state=excluded.state",
                             (table, json.dumps(state, allow_nan=False)))

    def set_online(self, table: str, online: bool) -> None:
        with self._lock:
            self._db.execute("INSERT INTO tables (tbl, online) VALUES (?, ?) ON CONFLICT(tbl) "
                             "DO UPDATE SET online=excluded.online", (table, int(online)))

    def tables(self) -> list[tuple[str, dict[str, Any] | None, bool | None]]:
        """(table, last state, online) of every table heard of."""
        with self._lock:
            rows = self._db.execute("SELECT tbl, state, online FROM tables ORDER BY tbl").fetchall()
        return [(t, json.loads(s) if s else None, None if o is None else bool(o)) for t, s, o in rows]

    def all_entries(self, batch: int = 1000) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every entry kept, table by table and stream by stream, in sequence order (read in
        batches)."""
        last = ("", "", 0)
        while True:
            with self._lock:
                rows = self._db.execute(
                    "SELECT tbl, epoch, seq, body FROM entries WHERE (tbl, epoch, seq) > (?, ?, ?) "
                    "ORDER BY tbl, epoch, seq LIMIT ?", (*last, batch)).fetchall()
            if not rows:
                return
            for table, _epoch, _seq, body in rows:
                yield table, json.loads(body)
            last = rows[-1][:3]

    def match_entries(self, table: str, match: int, epoch: str | None = None) -> list[dict[str, Any]]:
        """One match's entries, in sequence order (the match's history): of the table's stream
        ``epoch`` (None: the stream heard from last that has such a match)."""
        with self._lock:
            if epoch is None:
                row = self._db.execute("SELECT epoch FROM entries WHERE tbl=? AND match=? "
                                       "ORDER BY rowid DESC LIMIT 1", (table, match)).fetchone()
                epoch = row[0] if row else ""
            rows = self._db.execute("SELECT body FROM entries WHERE tbl=? AND epoch=? AND match=? "
                                    "ORDER BY seq", (table, epoch, match)).fetchall()
        return [json.loads(body) for (body,) in rows]
