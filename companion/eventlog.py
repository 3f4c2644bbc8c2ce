"""The event log: every action and its events, in SQLite, written before anything is signalled.

A match is its set-up line plus the actions that followed, so any match can be replayed through
the pure engine: that is how the companion resumes an unfinished match after a crash or a power
cut. The database runs in WAL mode with ``synchronous=FULL``: a committed action survives
``kill -9`` and pulling the plug.

A file that is not a database of ours (corrupt, or written by a newer version) is moved aside
with a clear message and a fresh log starts; nothing is deleted.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

__all__ = ["EventLog", "FORMAT_VERSION", "LogFileSetAside", "StoredAnswer", "ANSWERS_PER_SCOPE",
           "ANSWERS_KEPT"]

log = logging.getLogger(__name__)

FORMAT_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    setup TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    source TEXT NOT NULL,
    action TEXT NOT NULL,
    events TEXT NOT NULL,
    time REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_match ON entries(match_id, id);
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    status INTEGER,
    body BLOB,
    headers TEXT,
    path TEXT,
    time REAL NOT NULL,
    UNIQUE (scope, key)
);
"""

#: The answers kept for each scope (a seat, the organiser): a retry comes seconds after its
#: request, so the last taps of a phone are what is needed.
ANSWERS_PER_SCOPE = 100
#: The answers kept in all (the oldest go first).
ANSWERS_KEPT = 2000

#: The request being answered on this thread, ``(scope, key)`` (:meth:`EventLog.keyed`).
_KEYED: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("keyed", default=None)


@dataclass(frozen=True)
class StoredAnswer:
    """The answer given to a keyed request (:meth:`EventLog.answer_for`). ``status`` is None
    when the request's change was written but its answer never was (the companion stopped in
    between): the change stands, the words of the answer are lost."""

    status: int | None
    body: bytes
    headers: tuple[tuple[str, str], ...]
    path: str | None


class LogFileSetAside(Warning):
    """The database file could not be used and was renamed; ``path`` is where it now is."""

    def __init__(self, message: str, path: Path):
        super().__init__(message)
        self.path = path


class EventLog:
    """An append-only log of matches in one SQLite file (``":memory:"`` for a throw-away one)."""

    def __init__(self, path: str | Path, wall_clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self._clock = wall_clock
        self._lock = threading.Lock()
        self.set_aside: LogFileSetAside | None = None
        try:
            self._db = self._open()
        except (sqlite3.DatabaseError, _NewerFormat) as exc:
            self.set_aside = self._move_aside(exc)
            log.warning("%s", self.set_aside)
            self._db = self._open()

    # --- opening ------------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT_VERSION),))
            elif int(row[0]) > FORMAT_VERSION:
                raise _NewerFormat(f"format {row[0]} is newer than this companion's ({FORMAT_VERSION})")
            # The log's id, made with the file: a new log is a new stream of entries (league/feed.py).
            db.execute("INSERT OR IGNORE INTO meta VALUES ('epoch', ?)", (secrets.token_hex(8),))
            db.execute("PRAGMA quick_check").fetchone()
        except Exception:
            db.close()
            raise
        return db

    def _move_aside(self, exc: Exception) -> LogFileSetAside:
        src = Path(self.path)
        dest = src.with_name(f"{src.name}.unusable-{time.strftime('%Y%m%d-%H%M%S')}")
        src.rename(dest)
        for suffix in ("-wal", "-shm"):
            extra = Path(self.path + suffix)
            if extra.exists():
                extra.rename(Path(str(dest) + suffix))
        return LogFileSetAside(
            f"event log {src} could not be used ({exc}); kept it as {dest} and started a fresh log",
            dest)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- writing ------------------------------------------------------------------------------

    def start_match(self, setup: dict[str, Any]) -> int:
        """Record a new match; an unfinished earlier one is closed as abandoned."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("UPDATE matches SET ended=?, result=? WHERE ended IS NULL",
                             (self._clock(), json.dumps({"abandoned": True})))
            cur = self._db.execute("INSERT INTO matches (setup, started) VALUES (?, ?)",
                                   (json.dumps(setup), self._clock()))
            self._mark_keyed()
            assert cur.lastrowid is not None   # (the row just inserted)
            return cur.lastrowid

    def append(self, match_id: int, action: dict[str, Any], events: Iterable[dict[str, Any]],
               source: str = "phone", *, finish: dict[str, Any] | None = None) -> None:
        """Append one action and its events; returns once it is on disk.

        ``finish`` (the match's result) closes the match in the same transaction: the action
        that won a match and the match's end are on disk together or not at all, so a kill
        between them can never leave a won match unfinished (and later "abandoned")."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT INTO entries (match_id, source, action, events, time) VALUES (?,?,?,?,?)",
                (match_id, source, json.dumps(action), json.dumps(list(events)), self._clock()))
            if finish is not None:
                self._finish(match_id, finish)
            self._mark_keyed()

    def _finish(self, match_id: int, result: dict[str, Any]) -> None:
        self._db.execute("UPDATE matches SET ended=?, result=? WHERE id=? AND ended IS NULL",
                         (self._clock(), json.dumps(result), match_id))

    def finish_match(self, match_id: int, result: dict[str, Any]) -> None:
        """Close a match with no action of its own (the table ended it)."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._finish(match_id, result)
            self._mark_keyed()

    # --- answers to keyed requests (idempotency keys) -------------------------------------------

    @contextlib.contextmanager
    def keyed(self, scope: str, key: str) -> Iterator[None]:
        """While in this block, what this thread writes to the log (an action, an undo, a
        match's start or end) is written with a mark that request ``key`` of ``scope`` was
        applied, in the same transaction: a retry after a crash between the change and
        :meth:`keep_answer` finds the mark (:meth:`answer_for` with ``status`` None) and is
        not applied again."""
        token = _KEYED.set((scope, key))
        try:
            yield
        finally:
            _KEYED.reset(token)

    def _mark_keyed(self) -> None:
        """In a write transaction: mark the keyed request of this thread as applied."""
        keyed = _KEYED.get()
        if keyed is not None:
            self._db.execute("INSERT OR IGNORE INTO answers (scope, key, time) VALUES (?,?,?)",
                             (*keyed, self._clock()))

    def keep_answer(self, scope: str, key: str, status: int, body: bytes,
                    headers: Iterable[tuple[str, str]] = (), path: str | None = None) -> None:
        """Keep the answer to request ``key`` of ``scope`` (on disk when this returns). The
        last :data:`ANSWERS_PER_SCOPE` of a scope and :data:`ANSWERS_KEPT` in all are kept."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT INTO answers (scope, key, status, body, headers, path, time) "
                "VALUES (?,?,?,?,?,?,?) ON CONFLICT (scope, key) DO UPDATE SET "
                "status=excluded.status, body=excluded.body, headers=excluded.headers, "
                "path=excluded.path",
                (scope, key, int(status), bytes(body), json.dumps([list(h) for h in headers]),
                 path, self._clock()))
            self._db.execute(
                "DELETE FROM answers WHERE scope=? AND id <= (SELECT id FROM answers WHERE "
                "scope=? ORDER BY id DESC LIMIT 1 OFFSET ?)", (scope, scope, ANSWERS_PER_SCOPE))
            self._db.execute(
                "DELETE FROM answers WHERE id <= (SELECT id FROM answers ORDER BY id DESC "
                "LIMIT 1 OFFSET ?)", (ANSWERS_KEPT,))

    def answer_for(self, scope: str, key: str) -> StoredAnswer | None:
        """The answer kept for request ``key`` of ``scope``; None when it was never applied
        (or is older than the answers kept)."""
        with self._lock:
            row = self._db.execute(
                "SELECT status, body, headers, path FROM answers WHERE scope=? AND key=?",
                (scope, key)).fetchone()
        if row is None:
            return None
        status, body, headers, path = row
        return StoredAnswer(status, bytes(body or b""),
                            tuple(tuple(h) for h in json.loads(headers or "[]")), path)

    # --- reading ------------------------------------------------------------------------------

    def current_match_id(self) -> int | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM matches WHERE ended IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def unfinished(self) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The set-up and the standing actions of the unfinished match (undos resolved), or None."""
        match_id = self.current_match_id()
        if match_id is None:
            return None
        with self._lock:
            setup = self._db.execute("SELECT setup FROM matches WHERE id=?", (match_id,)).fetchone()
            rows = self._db.execute("SELECT action FROM entries WHERE match_id=? ORDER BY id",
                                    (match_id,)).fetchall()
        actions: list[dict[str, Any]] = []
        for (text,) in rows:
            action = json.loads(text)
            if action.get("do") == "undo":
                if actions:
                    actions.pop()
            else:
                actions.append(action)
        return json.loads(setup[0]), actions

    def entries(self, match_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT source, action, events, time FROM entries WHERE match_id=? ORDER BY id",
                (match_id,)).fetchall()
        return [{"source": s, "action": json.loads(a), "events": json.loads(e), "time": t}
                for s, a, e, t in rows]

    def matches(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest matches, newest first, with the rounds' results read from their events."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, setup, started, ended, result FROM matches ORDER BY id DESC LIMIT ?",
                (limit,)).fetchall()
        out = []
        for match_id, setup, started, ended, result in rows:
            rounds = [
                {"winners": e.get("winners", []), "scores": e.get("scores", {})}
                for entry in self.entries(match_id) for e in entry["events"]
                if e.get("type") in ("round-over", "game-over")
            ]
            out.append({"id": match_id, "setup": json.loads(setup), "started": started,
                        "ended": ended, "result": json.loads(result) if result else None,
                        "rounds": rounds})
        return out


class _NewerFormat(Exception):
    pass
