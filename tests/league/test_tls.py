"""The league over TLS against a real Mosquitto: a certificate authority and the broker's
certificate made in the test (tests/support/mosquitto.py: ``openssl``), the broker listening
with TLS only, a table (league/publisher.py) and the league (league/subscriber.py) naming the
CA in ``[league] ca_file``: every entry arrives. A table or league trusting another CA, and a
client without TLS, are not let in and the league hears nothing from them."""

from __future__ import annotations

import logging
import random
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is the league's extra: pip install -e '.[league]'")

from app.runner import demo_setup
from companion.config import load_config
from companion.eventlog import EventLog
from companion.host import Host
from league.mqtt import make_client
from league.publisher import TablePublisher
from league.service import League
from simulator.bots import Bot
from tests.support.mosquitto import Broker, TLSFiles, mosquitto_or_skip, wait_until

pytestmark = pytest.mark.slow

USERS = {"t1": "pw-t1", "league": "pw-league"}


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    mosquitto_or_skip()
    files = TLSFiles(tmp_path_factory.mktemp("tls"))
    broker = Broker(tmp_path_factory.mktemp("broker"), USERS, tls=files).start()
    yield broker, files
    broker.stop()


def section(broker: Broker, user: str, ca: Path, league: str, table: str = ""):
    return load_config(None, {"league.broker": broker.url, "league.league": league,
                              "league.table": table, "league.username": user,
                              "league.password": USERS[user], "league.ca_file": str(ca)}).league


def played_host(path: Path, moves: int = 15) -> Host:
    """A table (no web page, no clock) with ``moves`` actions of a grid match in its log."""
    host = Host(EventLog(path), mode="timer")
    rng, bot = random.Random(11), Bot(11)
    table = host.start_match(demo_setup("grid", rng))
    for _ in range(moves):
        table.act(bot.choose(table.game, table.state), source="bot")
    return host


def log_seqs(path: Path) -> list[int]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT id FROM entries ORDER BY id")]


def test_a_table_and_the_league_over_tls(tls, tmp_path):
    broker, files = tls
    assert broker.url.startswith("mqtts://")
    league = League(section(broker, "league", files.ca, "tls"), tmp_path / "league.sqlite3",
                    client_id="league-tls").start()
    host = played_host(tmp_path / "t1.sqlite3")
    publisher = TablePublisher(host, section(broker, "t1", files.ca, "tls", table="t1")).start()
    try:
        wait_until(league.subscriber.connected.is_set, 15, "the league to connect over TLS")
        wait_until(lambda: publisher.status.startswith("connected"), 15, "the table to connect")
        assert publisher.wait_caught_up(15)
        table = host.table
        bot = Bot(12)
        for _ in range(5):  # played while connected: sent as they happen
            table.act(bot.choose(table.game, table.state), source="bot")
        seqs = log_seqs(tmp_path / "t1.sqlite3")
        wait_until(lambda: league.view.last_seq("t1") == seqs[-1], 15, "every entry at the league")
        assert [e["seq"] for e in league.store.match_entries("t1", 1)] == seqs
        wait_until(lambda: (league.view.snapshot()["tables"][0]["state"] or {}).get("seq") == seqs[-1],
                   10, "the table's latest state")
        snapshot = league.view.snapshot()["tables"][0]
        assert snapshot["online"] is True and snapshot["state"]["game"] == "grid"
    finally:
        publisher.stop()
        host.close()
        league.close()


def test_a_client_trusting_another_ca_or_without_tls_is_not_let_in(tls, tmp_path, caplog):
    caplog.set_level(logging.ERROR)
    broker, files = tls
    stranger = TLSFiles(tmp_path / "other-ca", name="another CA")
    league = League(section(broker, "league", files.ca, "tls-refused"), tmp_path / "league.sqlite3",
                    client_id="league-tls-refused").start()
    host = played_host(tmp_path / "t1.sqlite3", moves=3)
    wrong = TablePublisher(host, section(broker, "t1", stranger.ca, "tls-refused", table="t1")).start()
    try:
        wait_until(league.subscriber.connected.is_set, 15, "the league to connect over TLS")
        wait_until(lambda: "cannot reach the broker" in wrong.status, 15,
                   "the table to give up on a broker its CA did not sign")
        assert not wrong._connected.is_set() and wrong.acked == 0
        # without TLS at all: the TLS port does not let an MQTT client in
        plain = make_client(load_config(None, {
            "league.broker": broker.url.replace("mqtts://", "mqtt://"), "league.username": "t1",
            "league.password": USERS["t1"]}).league, "plain-t1")
        with pytest.raises(Exception):  # noqa: B017 - the connection is reset or refused
            plain.connect("127.0.0.1", broker.port)
            plain.loop_start()
            wait_until(plain.is_connected, 3, "(never)")
        plain.loop_stop()
        assert league.view.snapshot()["tables"] == []  # nothing reached the league
        assert any("cannot reach the broker" in r.getMessage() for r in caplog.records)
    finally:
        wrong.stop(timeout=1)
        host.close()
        league.close()
