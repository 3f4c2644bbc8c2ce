"""A table whose event log is replaced numbers its entries from 1 again: each log has an id
(``epoch``, made with the log), carried in every message, so the league keeps the new log's
entries as a new stream of the same table (never as repeats of the old one) and the standings
still count the old log's finished matches, also after the league restarts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.runner import demo_setup
from companion.eventlog import EventLog
from companion.host import Host
from league.feed import LogFeed
from league.page import create_app
from league.publisher import state_message
from league.store import LeagueStore
from league.view import LeagueView
from simulator.bots import Bot


def play(path: Path, seed: int, finish: bool = True, moves: int = 10) -> dict:
    """One grid match at ``path`` played by bots, to the end (or ``moves`` actions); returns
    the state its publisher would send."""
    log = EventLog(path)
    host = Host(log, mode="timer")
    rng, bot = random.Random(seed), Bot(seed)
    table = host.start_match(demo_setup("grid", rng))
    done = 0
    while not table.state_json().get("champions") and (finish or done < moves):
        table.act(bot.choose(table.game, table.state), source="bot")
        done += 1
    feed = LogFeed(path, "k")
    state = state_message(host, feed.last_seq(), feed.epoch)
    feed.close()
    host.close()
    return state


def publish(view: LeagueView, store: LeagueStore, path: Path, state: dict) -> list[dict]:
    """What a table's publisher sends for the log at ``path``: every entry, then its state."""
    feed = LogFeed(path, "k")
    entries = feed.after(0, 100_000)
    feed.close()
    for sent in entries:
        assert view.handle("uno/club/t1/events", json.dumps(sent).encode(), store)
    assert view.handle("uno/club/t1/state", json.dumps(state).encode(), store)
    return entries


def test_a_log_keeps_its_id_and_a_new_log_has_another(tmp_path):
    path = tmp_path / "events.sqlite3"
    play(path, seed=1, finish=False)
    feed = LogFeed(path, "k")
    first = feed.epoch
    feed.close()
    EventLog(path).close()
    feed = LogFeed(path, "k")
    assert first and feed.epoch == first  # kept in the log: the same on reopening
    feed.close()
    path.unlink()
    play(path, seed=2, finish=False)
    feed = LogFeed(path, "k")
    assert feed.epoch not in ("", first)
    feed.close()


def test_a_replaced_log_is_a_new_stream_and_the_old_matches_still_count(tmp_path):
    path = tmp_path / "events.sqlite3"
    view, store = LeagueView("club"), LeagueStore(tmp_path / "league.sqlite3")
    old = publish(view, store, path, play(path, seed=3))  # one finished match
    path.unlink()
    new = publish(view, store, path, play(path, seed=4, finish=False, moves=12))
    assert [e["seq"] for e in new][:3] == [1, 2, 3]  # numbered from 1 again
    assert old[0]["epoch"] != new[0]["epoch"]

    def check(league: LeagueView) -> None:
        snapshot = league.snapshot()
        (table,) = snapshot["tables"]
        assert table["entries"] == len(old) + len(new)  # none dropped as a repeat
        assert table["epoch"] == new[0]["epoch"] and table["last_seq"] == len(new)
        assert league.last_seq("t1") == len(new)
        finished = [m for m in snapshot["matches"] if m["over"]]
        playing = [m for m in snapshot["matches"] if not m["over"]]
        assert [(m["epoch"], m["entries"]) for m in finished] == [(old[0]["epoch"], len(old))]
        assert [(m["epoch"], m["entries"], m["abandoned"]) for m in playing] == \
            [(new[0]["epoch"], len(new), False)]
        rows = snapshot["standings"]["grid"]
        assert sorted(r["played"] for r in rows) == [1, 1, 1, 1]  # the old log's match counts
        assert sum(r["won"] for r in rows) >= 1

    check(view)
    # both matches are "match 1" of table t1: the history of each is its own log's
    app = create_app(view, store).test_client()
    for sent in (old, new):
        reply = app.get(f"/api/match/t1/1?epoch={sent[0]['epoch']}").json
        assert [e["seq"] for e in reply["entries"]] == [e["seq"] for e in sent]
    assert len(app.get("/api/match/t1/1").json["entries"]) == len(new)  # the latest stream
    # a repeat within a stream is still a repeat
    assert view.handle("uno/club/t1/events", json.dumps(new[0]).encode(), store)
    assert view.snapshot()["tables"][0]["entries"] == len(old) + len(new)
    # the league restarted: rebuilt from its store, the same
    store.close()
    again = LeagueView("club")
    again.load(LeagueStore(tmp_path / "league.sqlite3"))
    check(again)


def test_an_unfinished_match_of_a_replaced_log_is_abandoned(tmp_path):
    path = tmp_path / "events.sqlite3"
    view, store = LeagueView("club"), LeagueStore(":memory:")
    publish(view, store, path, play(path, seed=5, finish=False, moves=6))
    path.unlink()
    publish(view, store, path, play(path, seed=6, finish=False, moves=3))
    matches = {m["entries"]: m for m in view.snapshot()["matches"]}
    assert matches[6]["abandoned"] is True and matches[3]["abandoned"] is False


def test_a_store_of_a_league_without_log_ids_is_upgraded(tmp_path):
    import sqlite3

    path = tmp_path / "league.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE entries (tbl TEXT NOT NULL, seq INTEGER NOT NULL, match INTEGER NOT NULL,
                                  body TEXT NOT NULL, PRIMARY KEY (tbl, seq));
            CREATE INDEX entries_by_match ON entries(tbl, match, seq);
            CREATE TABLE tables (tbl TEXT PRIMARY KEY, state TEXT, online INTEGER);""")
        body = {"seq": 1, "match": 1, "action": {"do": "pass"}, "events": []}
        db.execute("INSERT INTO entries VALUES ('t1', 1, 1, ?)", (json.dumps(body),))
    db.close()
    store = LeagueStore(path)
    assert [e["seq"] for e in store.match_entries("t1", 1)] == [1]
    assert store.add_entry("t1", {**body, "epoch": "abc"})  # a new stream, seq 1 again
    assert not store.add_entry("t1", body)  # the old stream's repeat


def test_the_state_names_the_current_log_even_when_the_clock_went_back():
    # a Pi has no clock of its own: a fresh log after a reboot may have earlier times than the
    # old one's; late entries of the old log (a league catching up) must not bring it back
    def sent(epoch: str, seq: int, when: float) -> bytes:
        return json.dumps({"epoch": epoch, "seq": seq, "match": 1, "action": {"do": "pass"},
                           "events": [], "time": when}).encode()

    view = LeagueView("club")
    for seq in (1, 2):
        assert view.handle("uno/club/t1/events", sent("old", seq, 5000.0 + seq))
    assert view.handle("uno/club/t1/state", json.dumps({"epoch": "old", "seq": 2}).encode())
    for seq in (1, 2, 3):  # the new log's first entries come before its state
        assert view.handle("uno/club/t1/events", sent("new", seq, 100.0 + seq))
    assert view.handle("uno/club/t1/state", json.dumps({"epoch": "new", "seq": 3}).encode())
    assert view.handle("uno/club/t1/events", sent("old", 3, 5003.0))  # late, and "later"
    (table,) = view.snapshot()["tables"]
    assert (table["epoch"], table["last_seq"], table["entries"]) == ("new", 3, 6)
    assert [e["seq"] for e in table["recent"]] == [1, 2, 3]
    assert view.last_seq("t1") == 3


@pytest.mark.slow
def test_a_table_whose_log_is_replaced_through_a_real_broker(tmp_path):
    pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is the league's extra")
    from companion.config import load_config
    from league.publisher import TablePublisher
    from league.service import League
    from tests.support.mosquitto import Broker, mosquitto_or_skip, wait_until

    mosquitto_or_skip()
    users = {"t1": "pw-t1", "league": "pw-league"}
    broker = Broker(tmp_path / "broker", users).start()

    def section(user: str, table: str = ""):
        return load_config(None, {"league.broker": broker.url, "league.table": table,
                                  "league.username": user, "league.password": users[user]}).league

    league = League(section("league"), tmp_path / "league.sqlite3", client_id="league-epoch").start()
    path = tmp_path / "t1.sqlite3"
    try:
        wait_until(league.subscriber.connected.is_set, 10, "the league to connect")
        counts = []
        for seed in (7, 8):  # a finished match, then the log replaced and a match begun
            play(path, seed=seed, finish=seed == 7, moves=8)
            host = Host(EventLog(path), mode="timer")
            publisher = TablePublisher(host, section("t1", "t1")).start()
            assert publisher.wait_caught_up(20)
            counts.append(publisher.feed.last_seq())
            publisher.stop()
            host.close()
            if seed == 7:
                path.unlink()
        wait_until(lambda: view_entries(league) == sum(counts), 20, "both logs at the league")
        snapshot = league.view.snapshot()
        assert league.view.last_seq("t1") == counts[1]
        assert len({m["epoch"] for m in snapshot["matches"]}) == 2
        assert [r["played"] for r in snapshot["standings"]["grid"]] == [1, 1, 1, 1]
    finally:
        league.close()
        broker.stop()


def view_entries(league) -> int:
    tables = league.view.snapshot()["tables"]
    return tables[0]["entries"] if tables else 0
