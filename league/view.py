"""The league's picture of the club: every table live, each match's summary, the standings.

:meth:`LeagueView.handle` takes one MQTT message (topic, payload bytes) and checks it: a topic
that is not one of a table's, a payload that is not the JSON the tables send, or an entry with
no sequence number is logged once as ignored, never raised. Entries are applied once per table
and sequence number (the store drops repeats first; the view checks again), in any order: a
match's summary is worked out from its entries in sequence order, undos resolved as the event
log resolves them.

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
import json
import logging
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .mqtt import Topics

if TYPE_CHECKING:
    from .store import LeagueStore

__all__ = ["LeagueView", "Rejected", "check_entry"]

log = logging.getLogger(__name__)

#: The largest message the league reads (a grid set-up and its state are a few kB).
MAX_PAYLOAD = 256 * 1024
#: Entries each table shows as its latest.
RECENT = 8


class Rejected(ValueError):
    """A message the league ignores; the text says why."""


def check_entry(body: Any) -> dict[str, Any]:
    """The entry a table published, checked (a :class:`Rejected` says what is wrong)."""
    if not isinstance(body, dict):
        raise Rejected("an entry must be a JSON object")
    for key in ("seq", "match"):
        if not isinstance(body.get(key), int) or isinstance(body.get(key), bool) or body[key] < 1:
            raise Rejected(f"an entry needs a whole number {key} of 1 or more")
    if not isinstance(body.get("events"), list) or not all(isinstance(e, dict) for e in body["events"]):
        raise Rejected("an entry's events must be a list of objects")
    if not isinstance(body.get("action"), dict):
        raise Rejected("an entry's action must be an object")
    seats = body.get("seats", [])
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise Rejected("an entry's seats must be a list of names")
    if not isinstance(body.get("game"), (str, type(None))):
        raise Rejected("an entry's game must be a name")
    return body


@dataclass
class _Match:
    """One match of one table: its entries' sequence numbers and what they scored."""

    table: str
    id: int
    game: str | None = None
    seats: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    #: per sequence number: ("undo" | "step", scores after it or None, champions or None)
    steps: dict[int, tuple[str, dict[str, Any] | None, list[str] | None]] = field(default_factory=dict)
    started: float | None = None
    last_time: float | None = None
    superseded: bool = False  # the table has started a later match
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
        when = entry.get("time") if isinstance(entry.get("time"), (int, float)) else None
        if when is not None:
            self.started = when if self.started is None else min(self.started, when)
            self.last_time = when if self.last_time is None else max(self.last_time, when)
        self._summary = None

    def summary(self) -> dict[str, Any]:
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
                "table": self.table, "match": self.id, "game": self.game, "seats": self.seats,
                "entries": len(self.seqs), "scores": scores, "champions": champions,
                "over": bool(champions), "abandoned": self.superseded and not champions,
                "started": self.started, "last_time": self.last_time}
        return self._summary


@dataclass
class _Table:
    name: str
    online: bool | None = None
    state: dict[str, Any] | None = None
    last_seq: int = 0
    entries: int = 0
    match: int = 0  # the latest match heard of
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT))


class LeagueView:
    """Everything the league page shows, fed by :meth:`handle` (thread-safe: one lock guards
    the tables and matches, and nothing is called while it is held)."""

    def __init__(self, league: str):
        self.league = league
        self._lock = threading.Lock()
        self._tables: dict[str, _Table] = {}
        self._matches: dict[tuple[str, int], _Match] = {}
        self.ignored = 0

    # --- feeding ------------------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes, store: LeagueStore | None = None) -> bool:
        """Apply one message; False (logged) when it is ignored. ``store``
        (:class:`~league.store.LeagueStore`) keeps an entry or state first."""
        try:
            where = Topics.parse(self.league, topic)
            if where is None:
                raise Rejected("not a table's topic of this league")
            table, kind = where
            if len(payload) > MAX_PAYLOAD:
                raise Rejected(f"{len(payload)} bytes is more than a table ever sends")
            text = payload.decode("utf-8")
            if kind == "online":
                if text not in ("true", "false"):
                    raise Rejected("online must be true or false")
                if store is not None:
                    store.set_online(table, text == "true")
                self.set_online(table, text == "true")
                return True
            try:
                body = json.loads(text)
            except ValueError as exc:
                raise Rejected(f"not JSON ({exc})") from None
            if kind == "state":
                if not isinstance(body, dict):
                    raise Rejected("a state must be a JSON object")
                if store is not None:
                    store.set_state(table, body)
                self.set_state(table, body)
                return True
            entry = check_entry(body)
            if store is not None and not store.add_entry(table, entry):
                return True  # a repeat: already kept and shown
            self.add_entry(table, entry)
            return True
        except (Rejected, UnicodeDecodeError) as exc:
            with self._lock:
                self.ignored += 1
            log.warning("league: ignored a message on %r: %s", topic[:200], exc)
            return False

    def set_online(self, table: str, online: bool) -> None:
        with self._lock:
            self._table(table).online = online

    def set_state(self, table: str, state: dict[str, Any]) -> None:
        with self._lock:
            self._table(table).state = state
            match = state.get("match")
            if isinstance(match, int):
                self._supersede(table, match)

    def add_entry(self, table: str, entry: dict[str, Any]) -> bool:
        """Apply one checked entry; False when this table's sequence number was already applied."""
        with self._lock:
            key = (table, entry["match"])
            match = self._matches.get(key)
            if match is not None and entry["seq"] in match.steps:
                return False
            if match is None:
                match = self._matches[key] = _Match(table, entry["match"])
            match.add(entry)
            t = self._table(table)
            t.entries += 1
            if entry["seq"] > t.last_seq:
                t.last_seq = entry["seq"]
                t.recent.append({"seq": entry["seq"], "match": entry["match"],
                                 "source": entry.get("source"), "action": entry["action"],
                                 "events": entry["events"]})
            self._supersede(table, entry["match"])
            return True

    def load(self, store: LeagueStore) -> None:
        """Rebuild from a :class:`~league.store.LeagueStore` (the league restarted)."""
        for table, state, online in store.tables():
            if state is not None:
                self.set_state(table, state)
            if online is not None:
                self.set_online(table, online)
        for table, entry in store.all_entries():
            self.add_entry(table, entry)

    def _table(self, name: str) -> _Table:
        if name not in self._tables:
            self._tables[name] = _Table(name)
        return self._tables[name]

    def _supersede(self, table: str, match: int) -> None:
        """A table that plays ``match`` has left its earlier ones (finished or abandoned)."""
        t = self._table(table)
        if match <= t.match:
            return
        t.match = match
        for (name, m), record in self._matches.items():
            if name == table and m < match and not record.superseded:
                record.superseded = True
                record._summary = None

    # --- reading ------------------------------------------------------------------------------

    def last_seq(self, table: str) -> int:
        """The highest sequence number heard from ``table`` (0: none)."""
        with self._lock:
            t = self._tables.get(table)
            return t.last_seq if t is not None else 0

    def snapshot(self) -> dict[str, Any]:
        """``GET /api/league``: every table, each match's summary (newest first), the standings."""
        with self._lock:
            tables = [{"name": t.name, "online": t.online, "state": t.state, "last_seq": t.last_seq,
                       "entries": t.entries, "recent": list(t.recent)}
                      for t in sorted(self._tables.values(), key=lambda t: t.name)]
            matches = [m.summary() for m in self._matches.values()]
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
