"""The league's picture of the club: every table live, each match's summary, the standings.

:meth:`LeagueView.handle` takes one MQTT message (topic, payload bytes) and checks it against the
league's schema (:mod:`league.schema`): a topic that is not one of a table's, or a payload that
is not what tables send (not JSON, a wrong type, ``NaN``, a number beyond 2^53, nested too deep,
too long) is logged once as ignored, never raised. Entries are applied once per table, log id
(``epoch``) and sequence number (the store drops repeats first; the view checks again), in any
order: a match's summary is worked out from its entries in sequence order, undos resolved as
the event log resolves them. A table whose log was replaced numbers its entries from 1 again
under a new epoch: a new stream of the same table, its matches new ones, the old stream's
finished matches still in the standings.

>>> view = LeagueView("club")
>>> view.handle("uno/club/t1/online", b"true")
True
>>> view.handle("uno/club/t1/events", b"not json")
False
>>> view.snapshot()["tables"][0]["online"]
True
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .mqtt import Topics
from .schema import MAX_PAYLOAD, Rejected, check, parse

if TYPE_CHECKING:
    from .store import LeagueStore

__all__ = ["LeagueView", "Rejected", "MAX_PAYLOAD"]

log = logging.getLogger(__name__)

#: Entries each table shows as its latest.
RECENT = 8


@dataclass
class _Match:
    """One match of one stream of one table: its entries' sequence numbers and what they scored."""

    table: str
    epoch: str
    id: int
    game: str | None = None
    seats: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    #: per sequence number: ("undo" | "step", scores after it or None, champions or None)
    steps: dict[int, tuple[str, dict[str, Any] | None, list[str] | None]] = field(default_factory=dict)
    started: float | None = None
    last_time: float | None = None
    _summary: dict[str, Any] | None = None

    def add(self, entry: dict[str, Any]) -> None:
        scores = champions = None
        for event in entry["events"]:
            if event.get("type") in ("round-over", "game-over") and isinstance(event.get("scores"), dict):
                scores = event["scores"]
            if event.get("type") == "match-over" and isinstance(event.get("champions"), list):
                champions = [str(c) for c in event["champions"]]
        kind = "undo" if entry["action"].get("do") == "undo" else "step"
        bisect.insort(self.seqs, entry["seq"])
        self.steps[entry["seq"]] = (kind, scores, champions)
        self.game = entry.get("game") or self.game
        self.seats = entry.get("seats") or self.seats
        when = entry.get("time")
        if when is not None:
            self.started = when if self.started is None else min(self.started, when)
            self.last_time = when if self.last_time is None else max(self.last_time, when)
        self._summary = None

    def summary(self, superseded: bool) -> dict[str, Any]:
        """``superseded``: the table has gone on to a later match, or to another log."""
        if self._summary is None:
            standing: list[tuple[dict[str, Any] | None, list[str] | None]] = []
            for seq in self.seqs:
                kind, scores, champions = self.steps[seq]
                if kind == "undo":
                    if standing:
                        standing.pop()
                else:
                    standing.append((scores, champions))
            scores = next((s for s, _ in reversed(standing) if s is not None), {})
            champions = next((c for _, c in reversed(standing) if c is not None), [])
            self._summary = {
                "table": self.table, "epoch": self.epoch, "match": self.id, "game": self.game,
                "seats": self.seats, "entries": len(self.seqs), "scores": scores,
                "champions": champions, "over": bool(champions), "started": self.started,
                "last_time": self.last_time}
        return {**self._summary, "abandoned": superseded and not self._summary["over"]}


@dataclass
class _Stream:
    """One log of a table (its ``epoch``): the last sequence number, time and match heard, and
    the latest entries."""

    last_seq: int = 0
    last_time: float | None = None
    match: int = 0
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT))


@dataclass
class _Table:
    name: str
    online: bool | None = None
    state: dict[str, Any] | None = None
    epoch: str | None = None  # the stream the table plays in now (its latest log)
    streams: dict[str, _Stream] = field(default_factory=dict)
    entries: int = 0

    def stream(self, epoch: str) -> _Stream:
        return self.streams.setdefault(epoch, _Stream())

    def newer(self, epoch: str, when: float | None) -> bool:
        """Whether an entry of another stream at ``when`` shows the table plays in that stream
        now. Once a state has been heard, only a state says so (it names the log, and a table's
        clock may have gone back since its old log); before, the later entry does."""
        if self.epoch is None:
            return True
        if self.state is not None:
            return False
        now = self.streams.get(self.epoch)
        return now is None or now.last_time is None or (when is not None and when > now.last_time)

    def superseded(self, match: _Match) -> bool:
        return match.epoch != self.epoch or match.id < self.stream(match.epoch).match


class LeagueView:
    """Everything the league page shows, fed by :meth:`handle` (thread-safe: one lock guards
    the tables and matches, and nothing is called while it is held)."""

    def __init__(self, league: str):
        self.league = league
        self._lock = threading.Lock()
        self._tables: dict[str, _Table] = {}
        self._matches: dict[tuple[str, str, int], _Match] = {}
        self.ignored = 0

    # --- feeding ------------------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes, store: LeagueStore | None = None) -> bool:
        """Apply one message; False (one log line: ``ignored ...: <why>``) when it is ignored.
        ``store`` (:class:`~league.store.LeagueStore`) keeps an entry or state first."""
        try:
            where = Topics.parse(self.league, topic)
            if where is None:
                raise Rejected("not a table's topic of this league")
            table, kind = where
            body = parse(kind, payload)
        except Rejected as exc:
            with self._lock:
                self.ignored += 1
            log.warning("league: ignored a message on %r: %s", topic[:200], exc)
            return False
        if kind == "online":
            if store is not None:
                store.set_online(table, body)
            self.set_online(table, body)
        elif kind == "state":
            if store is not None:
                store.set_state(table, body)
            self.set_state(table, body)
        elif store is None or store.add_entry(table, body):  # (a repeat: already kept and shown)
            self.add_entry(table, body)
        return True

    def set_online(self, table: str, online: bool) -> None:
        with self._lock:
            self._table(table).online = online

    def set_state(self, table: str, state: dict[str, Any]) -> None:
        """The table's latest state: it names the stream the table plays in now."""
        with self._lock:
            t = self._table(table)
            t.state = state
            t.epoch = state.get("epoch", "")
            match = state.get("match")
            if isinstance(match, int):
                stream = t.stream(t.epoch)
                stream.match = max(stream.match, match)

    def add_entry(self, table: str, entry: dict[str, Any]) -> bool:
        """Apply one checked entry; False when this table's stream already had its sequence
        number."""
        epoch = entry.get("epoch", "")
        when = entry.get("time")
        with self._lock:
            key = (table, epoch, entry["match"])
            match = self._matches.get(key)
            if match is not None and entry["seq"] in match.steps:
                return False
            if match is None:
                match = self._matches[key] = _Match(table, epoch, entry["match"])
            match.add(entry)
            t = self._table(table)
            t.entries += 1
            if epoch != t.epoch and t.newer(epoch, when):
                t.epoch = epoch
            stream = t.stream(epoch)
            stream.match = max(stream.match, entry["match"])
            if when is not None:
                stream.last_time = when if stream.last_time is None else max(stream.last_time, when)
            if entry["seq"] > stream.last_seq:
                stream.last_seq = entry["seq"]
                stream.recent.append({"seq": entry["seq"], "match": entry["match"],
                                      "source": entry.get("source"), "action": entry["action"],
                                      "events": entry["events"]})
            return True

    def load(self, store: LeagueStore) -> None:
        """Rebuild from a :class:`~league.store.LeagueStore` (the league restarted)."""
        states = []
        for table, state, online in store.tables():
            if state is not None and self._kept("state", table, state):
                states.append((table, state))
            if online is not None:
                self.set_online(table, online)
        for table, entry in store.all_entries():
            if self._kept("events", table, entry):
                self.add_entry(table, entry)
        for table, state in states:  # the latest state names the stream each table plays in
            self.set_state(table, state)

    def _kept(self, kind: str, table: str, body: Any) -> bool:
        """Whether what the store kept passes the schema (a store of an older league may hold
        what this one refuses); logged as ignored when not."""
        try:
            check(kind, body)
            return True
        except Rejected as exc:
            with self._lock:
                self.ignored += 1
            log.warning("league: ignored a kept %s of table %r: %s", kind, table[:200], exc)
            return False

    def _table(self, name: str) -> _Table:
        if name not in self._tables:
            self._tables[name] = _Table(name)
        return self._tables[name]

    # --- reading ------------------------------------------------------------------------------

    def last_seq(self, table: str) -> int:
        """The highest sequence number heard from ``table``'s current log (0: none)."""
        with self._lock:
            t = self._tables.get(table)
            if t is None or t.epoch not in t.streams:
                return 0
            return t.streams[t.epoch].last_seq

    def epoch(self, table: str) -> str | None:
        """The id of the log ``table`` plays in now (None: nothing heard)."""
        with self._lock:
            t = self._tables.get(table)
            return t.epoch if t is not None else None

    def snapshot(self) -> dict[str, Any]:
        """``GET /api/league``: every table, each match's summary (newest first), the standings."""
        with self._lock:
            tables = []
            for t in sorted(self._tables.values(), key=lambda t: t.name):
                now = t.streams.get(t.epoch, _Stream()) if t.epoch is not None else _Stream()
                tables.append({"name": t.name, "online": t.online, "state": t.state,
                               "epoch": t.epoch, "last_seq": now.last_seq, "entries": t.entries,
                               "recent": list(now.recent)})
            matches = [m.summary(self._tables[m.table].superseded(m))
                       for m in self._matches.values()]
        matches.sort(key=lambda m: (m["started"] or 0, m["table"], m["match"]), reverse=True)
        return {"league": self.league, "tables": tables, "matches": matches,
                "standings": standings(matches)}


def standings(matches: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per game, every player of a finished match: matches played, won (a shared win counts for
    each), and points (their final score in each match, per that game's scoring), best first.

    >>> standings([{"game": "grid", "over": True, "seats": ["ann", "ben"],
    ...             "scores": {"ann": 5, "ben": 2}, "champions": ["ann"]}])["grid"][0]
    {'player': 'ann', 'played': 1, 'won': 1, 'points': 5}
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for match in matches:
        if not match["over"]:
            continue
        rows = out.setdefault(match["game"] or "?", {})
        for seat in match["seats"]:
            row = rows.setdefault(seat, {"player": seat, "played": 0, "won": 0, "points": 0})
            row["played"] += 1
            row["won"] += seat in match["champions"]
            score = match["scores"].get(seat, 0)
            row["points"] += score if isinstance(score, (int, float)) else 0
    return {game: sorted(rows.values(), key=lambda r: (-r["won"], -r["points"], r["player"]))
            for game, rows in sorted(out.items())}
