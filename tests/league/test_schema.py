"""What the league accepts from a table (league/schema.py): hostile messages (NaN, Infinity, a
number beyond 2^63, nesting 100,000 deep, wrong types where the page reads) are each ignored
with exactly one "ignored" log line and no traceback, and ``GET /api/league`` stays valid JSON;
every state and entry a real table sends passes."""

from __future__ import annotations

import json
import logging
import random

import pytest

from app.runner import demo_setup
from companion.eventlog import EventLog
from companion.host import Host
from league.feed import LogFeed
from league.page import create_app
from league.publisher import state_message
from league.schema import Rejected, parse
from league.store import LeagueStore
from league.view import LeagueView
from simulator.bots import Bot


def entry(seq: int, **more) -> dict:
    return {"seq": seq, "match": 1, "game": "grid", "seats": ["ann", "ben"], "source": "phone",
            "action": {"do": "pass", "by": "ann"}, "events": [{"type": "turn", "seat": "ben"}],
            "time": 1000.0 + seq, **more}


def strict_json(text: str):
    """JSON as a browser's JSON.parse reads it: NaN, Infinity and -Infinity are not JSON."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def deep(n: int) -> bytes:
    return b'{"seq": 1, "match": 1, "action": {}, "events": [], "x": ' + b"[" * n + b"]" * n + b"}"


HOSTILE = [
    ("state", b'{"match": 1, "game": "grid", "scores": {"ann": NaN}}'),
    ("state", b'{"match": 1, "game": "grid", "scores": {"ann": Infinity}}'),
    ("state", b'{"match": 1, "game": "grid", "scores": {"ann": -Infinity}}'),
    ("state", b'{"match": 1, "game": "grid", "scores": {"ann": 1e999}}'),
    ("events", json.dumps(entry(2, events=[{"type": "game-over", "scores": {"ann": float("nan")}}])
                          ).encode()),
    ("events", json.dumps(entry(2**63 + 1)).encode()),
    ("events", json.dumps(entry(2**64)).encode()),
    ("state", b'{"match": 1, "seq": 9223372036854775808}'),
    ("events", json.dumps(entry(3, match=-(2**63) - 1)).encode()),
    ("events", deep(100_000)),
    ("state", b"[" * 100_000 + b"]" * 100_000),
    ("events", deep(40)),
    ("events", b"1" * 5000),  # an integer of 5,000 digits
    ("state", b'{"game": "grid", "grid": [5]}'),  # the page walks grid rows
    ("state", b'{"game": "grid", "champions": "ann"}'),  # ... and joins champions
    ("state", b'{"game": {"x": 1}}'),
    ("state", json.dumps({"game": "grid", "turn": "x" * 10_000}).encode()),
    ("events", json.dumps(entry(4, epoch="a/b")).encode()),
    ("events", json.dumps(entry(4, events=[{"type": "t"}] * 3000)).encode()),
    ("events", json.dumps(entry(5, time="soon")).encode()),
]


@pytest.mark.parametrize("kind, payload", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_message_is_one_ignored_line_and_the_api_stays_json(kind, payload, caplog):
    view, store = LeagueView("club"), LeagueStore(":memory:")
    app = create_app(view, store).test_client()
    assert view.handle("uno/club/t1/events", json.dumps(entry(1)).encode(), store)
    with caplog.at_level(logging.DEBUG):
        assert view.handle(f"uno/club/t1/{kind}", payload, store) is False
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "ignored" in lines[0].getMessage(), [r.getMessage() for r in lines]
    assert lines[0].exc_info is None and len(lines[0].getMessage()) < 400  # no traceback
    assert view.ignored == 1
    reply = app.get("/api/league")
    assert reply.status_code == 200
    league = strict_json(reply.get_data(as_text=True))
    json.dumps(league, allow_nan=False)
    assert league["tables"][0]["last_seq"] == 1 and league["tables"][0]["entries"] == 1
    # the league goes on with the next good message
    assert view.handle("uno/club/t1/events", json.dumps(entry(2)).encode(), store)
    assert strict_json(app.get("/api/league").get_data(as_text=True))["tables"][0]["last_seq"] == 2


def test_a_hostile_message_through_the_subscriber_logs_no_traceback(caplog):
    # what paho hands the league: the subscriber's handler must log one line, not an exception
    from types import SimpleNamespace

    from companion.config import load_config
    from league.subscriber import LeagueSubscriber

    section = load_config(None, {"league.broker": "mqtt://127.0.0.1:1"}).league
    sub = LeagueSubscriber(section, LeagueView("club"), LeagueStore(":memory:"))
    with caplog.at_level(logging.DEBUG):
        for kind, payload in HOSTILE:
            sub._on_message(sub.client, None, SimpleNamespace(topic=f"uno/club/t1/{kind}",
                                                              payload=payload))
    assert [r.levelname for r in caplog.records] == ["WARNING"] * len(HOSTILE)
    assert all("ignored" in r.getMessage() and r.exc_info is None for r in caplog.records)


def test_a_kept_store_with_nan_from_an_older_league_still_serves_json(tmp_path, caplog):
    path = tmp_path / "league.sqlite3"
    store = LeagueStore(path)
    store._db.execute("INSERT INTO tables (tbl, state) VALUES ('t1', ?)",
                      ('{"game": "grid", "scores": {"ann": NaN}}',))
    store.add_entry("t2", entry(1))
    store.close()
    league = LeagueView("club")
    with caplog.at_level(logging.WARNING, logger="league.view"):
        league.load(LeagueStore(path))
    assert league.ignored == 1 and "ignored a kept state" in caplog.text
    app = create_app(league, LeagueStore(path)).test_client()
    strict_json(app.get("/api/league").get_data(as_text=True))


@pytest.mark.parametrize("game", ["classic", "flip", "grid", "timer", "scoreboard"])
def test_what_a_real_table_sends_passes(game, tmp_path):
    log = EventLog(tmp_path / "events.sqlite3")
    host = Host(log, mode="timer")
    rng, bot = random.Random(7), Bot(7)
    table = host.start_match(demo_setup(game, rng))
    feed = LogFeed(log.path, "k")
    for _ in range(120):
        parse("state", json.dumps(state_message(host, feed.last_seq(), feed.epoch)).encode())
        if table.state_json().get("champions"):
            break
        try:
            table.act(bot.choose(table.game, table.state), source="bot")
        except Exception:  # noqa: BLE001 - a game the bot cannot play: its set-up state is enough
            break
    for sent in feed.after(0, 10_000):
        assert parse("events", json.dumps(sent).encode())["epoch"] == feed.epoch
    feed.close()
    host.close()


def test_a_rejection_says_where():
    with pytest.raises(Rejected, match=r"state\.grid\[0\] must be a list"):
        parse("state", b'{"grid": [5]}')
    with pytest.raises(Rejected, match="nested more than 32 deep"):
        parse("events", deep(100_000))
    with pytest.raises(Rejected, match="is not a kind of message"):
        parse("bogus", b"{}")
