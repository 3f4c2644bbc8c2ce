"""A table's broker account need not be its table name (docs/league.md, "Broker accounts"),
against a real Mosquitto set up from deploy/mosquitto/: with the shipped ACL alone such a table
is told once what the ACL needs (not a "connected"/"lost" line every second); once
``deploy/mosquitto/uno-league-account`` has let the account write its table's topics (and the
broker reread its ACL) it publishes as its table, and still cannot write as another."""

from __future__ import annotations

import logging
import random
import sqlite3
import subprocess
import time
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
from tests.support.mosquitto import Broker, mosquitto_or_skip, wait_until

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
ACCOUNT = REPO / "deploy" / "mosquitto" / "uno-league-account"
USERS = {"kitchen-pi": "pw-kitchen", "league": "pw-league"}


def section(broker: Broker, user: str, league: str, table: str = ""):
    return load_config(None, {"league.broker": broker.url, "league.league": league,
                              "league.table": table, "league.username": user,
                              "league.password": USERS[user]}).league


def played_host(path: Path, moves: int = 10) -> Host:
    host = Host(EventLog(path), mode="timer")
    rng, bot = random.Random(21), Bot(21)
    table = host.start_match(demo_setup("grid", rng))
    for _ in range(moves):
        table.act(bot.choose(table.game, table.state), source="bot")
    return host


def last_seq(host: Host) -> int:
    with sqlite3.connect(host.log.path) as db:
        return db.execute("SELECT max(id) FROM entries").fetchone()[0]


def account(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ACCOUNT), *args], capture_output=True, text=True, timeout=10)


@pytest.fixture
def broker(tmp_path):
    mosquitto_or_skip()
    b = Broker(tmp_path / "broker", USERS)
    yield b
    b.stop()


def test_without_an_acl_entry_the_table_is_told_once_what_the_acl_needs(broker, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="league.publisher")
    broker.start()
    league = League(section(broker, "league", "acct"), tmp_path / "league.sqlite3",
                    client_id="league-acct").start()
    host = played_host(tmp_path / "t1.sqlite3")
    # (tried again a second after each cut-off, not the table's 10 s: the test sees the cut-offs
    # repeat, and the table back soon after the reload)
    publisher = TablePublisher(host, section(broker, "kitchen-pi", "acct", table="t1"),
                               cut_off_retry_s=(1, 1)).start()
    try:
        wait_until(lambda: "hangs up" in publisher.status, 10, "the table to be told")
        assert "'kitchen-pi'" in publisher.status and "uno/acct/t1/" in publisher.status
        time.sleep(3)  # two more of Mosquitto's cut-offs would log two more lines each
        lines = [r.getMessage() for r in caplog.records]
        assert sum("hangs up" in line for line in lines) == 1, lines
        assert len(lines) <= 2 and not any("lost the broker" in line for line in lines), lines
        assert league.view.snapshot()["tables"] == []
        # the club lets the account write as t1 and reloads the broker: the table goes on
        done = account("kitchen-pi", "t1", "--acl", str(broker.acl))
        assert done.returncode == 0, done.stderr
        broker.reload()
        wait_until(lambda: league.view.last_seq("t1") == last_seq(host), 75,
                   "t1's entries at the league")
        wait_until(lambda: publisher.status.startswith("connected"), 10, "the table to say so")
        assert any(line.startswith("league: connected") for line in
                   [r.getMessage() for r in caplog.records][-2:])
    finally:
        publisher.stop(timeout=2)
        host.close()
        league.close()


def test_an_account_named_otherwise_publishes_as_its_table_and_no_other(broker, tmp_path):
    done = account("kitchen-pi", "t1", "--acl", str(broker.acl))
    assert done.returncode == 0 and "may now publish as table 't1'" in done.stdout, done.stderr
    broker.start()
    league = League(section(broker, "league", "acct2"), tmp_path / "league.sqlite3",
                    client_id="league-acct2").start()
    host = played_host(tmp_path / "t1.sqlite3", moves=12)
    publisher = TablePublisher(host, section(broker, "kitchen-pi", "acct2", table="t1")).start()
    try:
        wait_until(lambda: league.view.last_seq("t1") == last_seq(host), 20,
                   "t1's entries at the league")
        assert publisher.status.startswith("connected") and publisher.wait_caught_up(10)
        wait_until(lambda: league.view.snapshot()["tables"][0]["online"] is True, 10, "online")
        assert [t["name"] for t in league.view.snapshot()["tables"]] == ["t1"]
        # the same account writing as another table is dropped, and cut off
        forger = make_client(section(broker, "kitchen-pi", "acct2"), "forger")
        forger.reconnect_delay_set(60, 60)
        forger.connect("127.0.0.1", broker.port)
        forger.loop_start()
        try:
            wait_until(forger.is_connected, 10, "the forger to be let in")
            forger.publish("uno/acct2/t2/online", "true", qos=1)
            wait_until(lambda: not forger.is_connected(), 10, "the broker to cut the forger off")
        finally:
            forger.loop_stop()
            forger.disconnect()
        assert "Denied PUBLISH from forger" in broker.log(tail=None)
        assert [t["name"] for t in league.view.snapshot()["tables"]] == ["t1"]
    finally:
        publisher.stop(timeout=2)
        host.close()
        league.close()


def test_the_account_script_checks_what_it_is_given(tmp_path):
    acl = tmp_path / "uno-league.acl"
    acl.write_text((REPO / "deploy" / "mosquitto" / "uno-league.acl").read_text())
    assert account("kitchen-pi", "t1", "t2", "--acl", str(acl)).returncode == 0
    again = account("kitchen-pi", "t1", "--acl", str(acl))
    assert again.returncode == 0 and "already" in again.stdout
    text = acl.read_text()
    assert text.count("user kitchen-pi") == 2 and text.count("topic write uno/+/t1/") == 3
    for args, says in [(["league", "t1"], "only reads"), (["a b", "t1"], "must be letters"),
                       (["kitchen-pi", "t/1"], "must be letters"), (["kitchen-pi"], "usage"),
                       (["kitchen-pi", "t1", "--acl", str(tmp_path / "none")], "does not exist")]:
        done = account(*args, *(["--acl", str(acl)] if "--acl" not in args else []))
        assert done.returncode != 0 and says in done.stderr, (args, done.stderr)
    assert acl.read_text() == text  # nothing written by a refused call
