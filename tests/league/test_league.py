"""The league without a broker: its configuration, the log read as a feed, the view (repeats,
order, undos, bad messages), the standings of a real match, the page and the command line.
The broker itself is tests/league/test_broker.py's."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import grimp
import pytest
from hypothesis import given, settings, strategies as st

from app.cli import main
from app.runner import demo_setup
from companion.config import ConfigError, load_config
from companion.eventlog import EventLog
from companion.host import Host
from league.feed import LogFeed
from league.page import create_app
from league.store import LeagueStore
from league.view import LeagueView
from simulator.bots import Bot

REPO = Path(__file__).resolve().parents[2]
#: A self-signed CA certificate (openssl req -x509, EC P-256), for the TLS settings only.
CA_PEM = """\
-----BEGIN CERTIFICATE-----
MIIBgzCCASmgAwIBAgIUeGs3p3tQyjo1oZmIfjl34O3ALhEwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLdW5vIHRlc3QgQ0EwIBcNMjYxMjAxMDg0MTIyWhgPMjEyNjEx
MDcwODQxMjJaMBYxFDASBgNVBAMMC3VubyB0ZXN0IENBMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEvg4sAJJtYPU0/hDOZby3Ms/36QjYl2kfi6yEzApvOQTcz467
0CZLUl8ZpyG2uwp0zJ9Ath+3/gFRxkjG+DHFS6NTMFEwHQYDVR0OBBYEFO9S/4D/
ht2Ouogg+mmTyKMLwv4UMB8GA1UdIwQYMBaAFO9S/4D/ht2Ouogg+mmTyKMLwv4U
MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgY+46g2CL/kzaKlF0
vK5Q1aRRk203tVw14RzNlyxYegYCIQDMIo0f6OcRuy/sgrq5ZATdkegc50DBr9N6
5kD0duTm3A==
-----END CERTIFICATE-----
"""

ROOT_DIR = Path(__file__).resolve().parents[2]


# --- configuration -------------------------------------------------------------------------------

def test_a_league_section_is_read():
    cfg = load_config(None, {"league.broker": "mqtts://pi.local:8883", "league.table": "north-2",
                             "league.username": "north-2", "league.password": "x"})
    assert (cfg.league.broker, cfg.league.table, cfg.league.league) == \
        ("mqtts://pi.local:8883", "north-2", "club")
    assert load_config(None).league.broker == ""  # opt-in: no broker, no league


@pytest.mark.parametrize("values, says", [
    ({"table": "t1"}, "[league] table is 't1' but broker is empty"),
    ({"broker": "http://pi:1883"}, "[league] broker must look like mqtt://host:1883"),
    ({"broker": "mqtt://"}, "[league] broker must look like"),
    ({"broker": "mqtt://pi:70000"}, "[league] broker has a bad port"),
    ({"broker": "mqtt://pi", "table": "a/b"}, "[league] table must be 1-64 characters"),
    ({"broker": "mqtt://pi", "table": "t#"}, "[league] table must be 1-64 characters"),
    ({"broker": "mqtt://pi", "league": ""}, "[league] league must be 1-64 characters"),
    ({"broker": "mqtt://pi", "league": "x" * 65}, "[league] league must be 1-64 characters"),
    ({"broker": "mqtt://pi", "password": "pw"}, "[league] password is set but username is empty"),
    ({"broker": "mqtt://pi", "ca_file": "/etc/ca.crt"}, "[league] ca_file is only used with"),
    ({"broker": "mqtts://pi", "ca_file": "/nowhere/ca.crt"}, "[league] ca_file /nowhere/ca.crt does not exist"),
    ({"broker": 1883}, "[league] broker must be a string"),
    ({"brokers": "mqtt://pi"}, "[league] has no key 'brokers'"),
    ({"broker": "mqtt://pi", "page_url": "club-pi:8100"}, "[league] page_url must look like http://"),
    ({"broker": "mqtt://pi", "page_url": "javascript:alert(1)"}, "[league] page_url must look like"),
])
def test_a_bad_league_section_is_one_clear_line(values, says):
    with pytest.raises(ConfigError) as err:
        load_config(None, {f"league.{k}": v for k, v in values.items()})
    assert says in str(err.value) and "\n" not in str(err.value)


def test_a_ca_file_must_be_a_certificate(tmp_path):
    ca = tmp_path / "ca.crt"
    ca.write_text("not a certificate")
    with pytest.raises(ConfigError, match=r"\[league\] ca_file .* is not a CA certificate"):
        load_config(None, {"league.broker": "mqtts://pi", "league.ca_file": str(ca)})
    ca.write_text(CA_PEM)
    assert load_config(None, {"league.broker": "mqtts://pi", "league.ca_file": str(ca)}).league.ca_file


def test_the_shipped_configuration_still_loads():
    assert load_config(REPO / "deploy" / "companion.toml").league == load_config(None).league


# --- the log as a feed ---------------------------------------------------------------------------

def played(path: Path, seed: int = 1, matches: int = 1) -> EventLog:
    """A log of ``matches`` grid matches played to the end by bots (no clock, no threads)."""
    log = EventLog(path)
    host = Host(log, mode="timer")
    rng, bot = random.Random(seed), Bot(seed)
    for _ in range(matches):
        table = host.start_match(demo_setup("grid", rng))
        while not table.state_json().get("champions"):
            table.act(bot.choose(table.game, table.state), source="bot")
    host.close()
    return log


def test_the_feed_reads_the_log_in_order_and_keeps_its_watermark(tmp_path):
    path = tmp_path / "events.sqlite3"
    played(path).close()
    feed = LogFeed(path, "broker/club/t1")
    every = feed.after(0, 10_000)
    assert [e["seq"] for e in every] == list(range(1, len(every) + 1)) == \
        list(range(1, feed.last_seq() + 1))
    assert every[0]["game"] == "grid" and every[0]["match"] == 1 and every[0]["events"]
    assert [e["seq"] for e in feed.after(5, 3)] == [6, 7, 8]
    assert feed.watermark() == 0
    feed.save_watermark(7)
    feed.close()
    again = LogFeed(path, "broker/club/t1")
    assert again.watermark() == 7  # durable: a restarted table goes on from here
    assert LogFeed(path, "broker/other-league/t1").watermark() == 0  # another league: from 0
    again.save_watermark(10**9)  # a log set aside and started afresh is behind its watermark
    assert again.watermark() == 0


# --- the view ------------------------------------------------------------------------------------

def entry(seq: int, match: int = 1, **more) -> dict:
    return {"seq": seq, "match": match, "game": "grid", "seats": ["ann", "ben"], "source": "phone",
            "action": {"do": "pass", "by": "ann"}, "events": [{"type": "turn", "seat": "ben"}],
            "time": 1000.0 + seq, **more}


def send(view: LeagueView, store, table: str, body: dict, kind: str = "events") -> bool:
    return view.handle(f"uno/club/{table}/{kind}", json.dumps(body).encode(), store)


def test_repeats_are_dropped_and_late_entries_taken_in_order():
    view, store = LeagueView("club"), LeagueStore(":memory:")
    for seq in (1, 2, 4, 2, 3, 4, 1):
        assert send(view, store, "t1", entry(seq))
    table = view.snapshot()["tables"][0]
    assert (table["entries"], table["last_seq"]) == (4, 4)
    assert [e["seq"] for e in store.match_entries("t1", 1)] == [1, 2, 3, 4]
    assert view.add_entry("t1", entry(3)) is False  # the view drops a repeat by itself too


def test_an_undo_takes_back_what_it_undid():
    view = LeagueView("club")
    win = entry(2, events=[{"type": "game-over", "scores": {"ann": 5, "ben": 0}},
                           {"type": "match-over", "champions": ["ann"]}])
    view.add_entry("t1", entry(1))
    view.add_entry("t1", win)
    assert view.snapshot()["matches"][0]["champions"] == ["ann"]
    view.add_entry("t1", entry(3, action={"do": "undo", "by": "ann"}, events=[]))
    match = view.snapshot()["matches"][0]
    assert (match["champions"], match["over"], match["scores"]) == ([], False, {})
    assert view.snapshot()["standings"] == {}


def test_a_table_that_starts_a_new_match_has_abandoned_the_unfinished_one():
    view = LeagueView("club")
    view.add_entry("t1", entry(1, match=1))
    assert view.snapshot()["matches"][0]["abandoned"] is False
    view.set_state("t1", {"match": 2, "game": "grid"})
    old = [m for m in view.snapshot()["matches"] if m["match"] == 1][0]
    assert old["abandoned"] is True and old["over"] is False


def test_the_standings_of_real_matches(tmp_path):
    log = played(tmp_path / "a.sqlite3", seed=4, matches=2)
    view = LeagueView("club")
    for e in LogFeed(log.path, "k").after(0, 100_000):
        view.add_entry("t1", e)
    for e in LogFeed(played(tmp_path / "b.sqlite3", seed=5).path, "k").after(0, 100_000):
        view.add_entry("t2", e)
    snapshot = view.snapshot()
    assert len(snapshot["matches"]) == 3 and all(m["over"] for m in snapshot["matches"])
    rows = {r["player"]: r for r in snapshot["standings"]["grid"]}
    assert set(rows) == {"north", "east", "south", "west"}
    assert all(r["played"] == 3 for r in rows.values())
    # each match's champions and final scores, as the log itself has them
    finals = [m["rounds"][-1]["scores"] for m in log.matches()] + \
             [m["rounds"][-1]["scores"] for m in EventLog(tmp_path / "b.sqlite3").matches()]
    for seat, row in rows.items():
        assert row["points"] == sum(f[seat] for f in finals)
    assert sum(r["won"] for r in rows.values()) >= 3
    order = [(-r["won"], -r["points"]) for r in snapshot["standings"]["grid"]]
    assert order == sorted(order)


@pytest.mark.parametrize("topic, payload", [
    ("uno/club/t1/bogus", b"{}"),            # not a table's topic
    ("uno/other/t1/events", b"{}"),          # another league
    ("uno/club/t1/events", b"\xff"),         # not UTF-8
    ("uno/club/t1/events", b"{"),            # not JSON
    ("uno/club/t1/events", b'{"seq": 1}'),   # no match
    ("uno/club/t1/events", b'{"seq": true, "match": 1, "events": [], "action": {}}'),
    ("uno/club/t1/events", b'{"seq": 1, "match": 1, "events": [1], "action": {}}'),
    ("uno/club/t1/events", b'{"seq": 1, "match": 1, "events": [], "action": {}, "seats": [1]}'),
    ("uno/club/t1/state", b"[]"),
    ("uno/club/t1/online", b"yes"),
])
def test_a_bad_message_is_ignored_with_a_log_line(topic, payload, caplog):
    view = LeagueView("club")
    with caplog.at_level(logging.WARNING, logger="league.view"):
        assert view.handle(topic, payload) is False
    assert view.ignored == 1 and "ignored a message" in caplog.text
    assert view.snapshot()["tables"] == []


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["events", "state", "online", "x"]), payload=st.one_of(
    st.binary(max_size=200),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                 lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                     st.sampled_from(["seq", "match", "events", "action", "seats", "game"]), inner,
                     max_size=6), max_leaves=12).map(lambda v: json.dumps(v).encode())))
def test_no_message_crashes_the_league(kind, payload):
    view, store = LeagueView("club"), LeagueStore(":memory:")
    view.handle(f"uno/club/t1/{kind}", payload, store)
    assert view.handle("uno/club/t9/events", json.dumps(entry(99)).encode(), store)
    assert view.last_seq("t9") == 99
    view.snapshot()


# --- the page ------------------------------------------------------------------------------------

@pytest.fixture
def page():
    view, store = LeagueView("club"), LeagueStore(":memory:")
    send(view, store, "t1", {"match": 1, "game": "grid", "turn": "ben", "scores": {"ann": 1}}, "state")
    view.handle("uno/club/t1/online", b"true", store)
    for seq in (1, 2, 3):
        send(view, store, "t1", entry(seq))
    return create_app(view, store, status=lambda: "hearing league 'club' on mqtt://pi",
                      state=lambda: "hearing").test_client()


def test_the_page_speaks_english_and_japanese(page):
    assert "Standings" in page.get("/").text
    assert "順位" in page.get("/", headers={"Accept-Language": "ja"}).text
    reply = page.get("/?lang=ja")
    assert "順位" in reply.text and "lang=ja" in reply.headers["Set-Cookie"]
    assert "Standings" in page.get("/?lang=en", headers={"Accept-Language": "ja"}).text


def test_every_state_of_the_broker_has_words_in_both_languages():
    # the page shows the state as a word of its own language, never the log's English sentence
    from types import SimpleNamespace

    from league.subscriber import LeagueSubscriber

    section = load_config(None, {"league.broker": "mqtt://127.0.0.1:1"}).league
    sub = LeagueSubscriber(section, LeagueView("club"), LeagueStore(":memory:"))
    states = [sub.state]
    sub._on_connect(sub.client, None, None, SimpleNamespace(is_failure=True))
    states.append(sub.state)
    sub._on_connect(sub.client, None, None, SimpleNamespace(is_failure=False))
    states.append(sub.state)
    sub._on_disconnect(sub.client, None, None, "gone")
    states.append(sub.state)
    sub._on_connect_fail(sub.client, None)
    states.append(sub.state)
    assert states == ["connecting", "refused", "hearing", "lost", "unreachable"]
    for lang in ("en", "ja"):
        words = json.loads((ROOT_DIR / "league" / "i18n" / f"{lang}.json").read_text("utf-8"))
        assert all(words.get(f"broker_{state}") for state in states), lang


def test_the_api_gives_every_table_and_each_match_history(page):
    league = page.get("/api/league").json
    assert league["broker"].startswith("hearing") and league["broker_state"] == "hearing"
    [t1] = league["tables"]
    assert (t1["name"], t1["online"], t1["state"]["turn"], t1["last_seq"]) == ("t1", True, "ben", 3)
    history = page.get("/api/match/t1/1").json
    assert [e["seq"] for e in history["entries"]] == [1, 2, 3]
    assert page.get("/api/match/t1/2").status_code == 404
    assert page.get("/api/match/t2/1").json["error"] == "no-such-match"


# --- layers and the command line -----------------------------------------------------------------

@pytest.mark.parametrize("league_url", ["http://club-pi:8100/", None])
def test_a_tables_page_links_to_its_league_only_when_it_plays_in_one(league_url):
    from web import create_app as table_app

    host = Host()
    client = table_app(host, league_url=league_url).test_client()
    for lang, word in (("en", "League"), ("ja", "リーグ")):
        html = client.get(f"/?lang={lang}").get_data(as_text=True)
        link = f'<a class="league-link" href="http://club-pi:8100/">{word}</a>'
        assert (link in html) == (league_url is not None)
    assert load_config(None, {"league.broker": "mqtt://pi", "league.table": "t1",
                              "league.page_url": "http://club-pi:8100/"}).league.page_url


def test_league_sits_beside_web_and_the_core_never_imports_it():
    graph = grimp.build_graph("companion", "league", "web", "vision", "hardware", cache_dir=None)
    assert not graph.find_matching_direct_imports(import_expression="companion.** -> league.**")
    for other in ("web", "vision", "hardware"):
        assert not graph.find_matching_direct_imports(import_expression=f"league.** -> {other}.**")
        assert not graph.find_matching_direct_imports(import_expression=f"{other}.** -> league.**")


def test_companion_league_needs_a_broker(capsys):
    assert main(["league"]) == 2
    assert "no broker: set [league] broker" in capsys.readouterr().err
    assert main(["league", "--broker", "ftp://x"]) == 2
    assert "[league] broker must look like" in capsys.readouterr().err


def test_a_tls_broker_gets_a_tls_client_with_the_ca_file(tmp_path):
    pytest.importorskip("paho.mqtt.client")
    import ssl

    from league.mqtt import make_client

    plain = make_client(load_config(None, {"league.broker": "mqtt://pi"}).league, "a")
    assert plain._ssl_context is None
    ca = tmp_path / "ca.crt"
    ca.write_text(CA_PEM)
    for more in ({}, {"league.ca_file": str(ca)}):
        tls = make_client(load_config(None, {"league.broker": "mqtts://pi", **more}).league, "c")
        assert tls._ssl_context.verify_mode == ssl.CERT_REQUIRED and tls._ssl_context.check_hostname


def test_a_table_with_no_broker_plays_on_and_says_so_once(tmp_path, caplog):
    pytest.importorskip("paho.mqtt.client")
    from league.publisher import TablePublisher
    from tests.support.mosquitto import free_port, wait_until

    caplog.set_level(logging.ERROR, logger="league.publisher")
    host = Host(EventLog(tmp_path / "t1.sqlite3"), mode="timer")
    section = load_config(None, {"league.broker": f"mqtt://127.0.0.1:{free_port()}",
                                 "league.table": "t1"}).league
    publisher = TablePublisher(host, section).start()
    try:
        table = host.start_match(demo_setup("grid", random.Random(1)))
        table.act(Bot(1).choose(table.game, table.state), source="bot")  # the table plays on
        wait_until(lambda: "cannot reach the broker" in publisher.status, 10, "the status")
        assert publisher.acked == 0 and len(host.log.entries(table.match_id)) == 1
    finally:
        publisher.stop(timeout=1)
        host.close()
    said = [r.getMessage() for r in caplog.records if "cannot reach" in r.getMessage()]
    assert len(said) == 1


def test_an_entry_published_as_the_connection_went_is_sent_again(tmp_path):
    """paho raises on a message published just as the connection went, for good: the publisher
    sends it and the entries after it again, and the watermark then passes them (a broker
    stopped mid-match once left it failing on that entry every second, never catching up)."""
    pytest.importorskip("paho.mqtt.client")
    from league.publisher import TablePublisher
    from tests.support.mosquitto import free_port

    class Sent:
        def __init__(self, ok):
            self.ok = ok

        def is_published(self):
            if not self.ok:
                raise RuntimeError("Message publish failed: The client is not currently connected.")
            return True

    class Client:
        def __init__(self):
            self.events, self.up = [], False

        def publish(self, topic, payload, qos=0, retain=False):
            if topic.endswith("/events"):
                self.events.append(json.loads(payload)["seq"])
            return Sent(self.up)

    host = Host(EventLog(tmp_path / "t1.sqlite3"), mode="timer")
    section = load_config(None, {"league.broker": f"mqtt://127.0.0.1:{free_port()}",
                                 "league.table": "t1"}).league
    publisher = TablePublisher(host, section)
    try:
        table = host.start_match(demo_setup("grid", random.Random(1)))
        for _ in range(3):
            table.act(Bot(1).choose(table.game, table.state), source="bot")
        last = publisher.feed.last_seq()
        publisher.client = client = Client()
        publisher._send_pending()            # the connection goes as these are published
        publisher._advance()
        assert publisher.acked == 0 and client.events == list(range(1, last + 1))
        client.up = True                     # back: the same entries again, delivered
        publisher._send_pending()
        publisher._advance()
        assert client.events[last:] == list(range(1, last + 1))
        assert publisher.acked == last and publisher.feed.watermark() == last
    finally:
        publisher.feed.close()
        host.close()
