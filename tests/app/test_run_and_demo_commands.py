"""``companion demo`` and ``companion run`` as processes, and the table loop that drives them."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from simulator.bots import Bot
from companion.eventlog import EventLog
from companion.host import Host
from app.runner import TableLoop, demo_setup

ROOT = Path(__file__).resolve().parents[2]


def companion(*args, env=None, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})}, **kwargs)


@pytest.mark.slow
def test_demo_serves_the_table_and_its_bots_play_until_stopped(tmp_path):
    proc = companion("demo", "--port", "0", "--pace", "0.05", "--seed", "4",
                     "--log", str(tmp_path / "events.sqlite3"))
    try:
        first = proc.stdout.readline()
        assert "table view on http://127.0.0.1:" in first
        url = first.split()[3].rstrip("/")
        # served on loopback: the terminal says plainly that phones cannot join, and how to
        assert "Phones cannot reach this page" in proc.stdout.readline()
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(" pins " in line for line in seen):
            seen.append(proc.stdout.readline())
        assert any(" turn " in line for line in seen), seen
        assert any("pins" in line and "N:" in line for line in seen)
        state = json.load(urllib.request.urlopen(url + "/api/state", timeout=10))
        assert state["playing"] and state["game"] in ("grid", "flip", "classic")
        assert state["signals"]  # the mock pins are shown
        # referee mode: the camera reads the synthetic table (the bots' cards land there)
        while time.monotonic() < deadline and not state.get("reading"):
            time.sleep(0.3)
            state = json.load(urllib.request.urlopen(url + "/api/state", timeout=10))
        assert state.get("reading") and state["reading"]["seq"] >= 1
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    # Everything the bots did went to the event log first.
    log = EventLog(tmp_path / "events.sqlite3")
    assert log.matches() and log.entries(log.matches()[0]["id"])


def test_a_bad_configuration_exits_2_naming_the_key(tmp_path):
    bad = tmp_path / "companion.toml"
    bad.write_text("[web]\nprot = 80\n")
    proc = subprocess.run([sys.executable, "-m", "app", "demo", "--config", str(bad)],
                          cwd=ROOT, text=True, capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert "no key 'prot'" in proc.stderr


def test_the_table_loop_lets_bots_finish_a_match_and_starts_the_next_game():
    host = Host(mode="referee")
    host.start_match(demo_setup("grid", random.Random(2), {"turn_seconds": 0}))
    loop = TableLoop(host, bots=Bot(seed=2, win_rate=0.6), pace=1.0, seed=2,
                     rules={"turn_seconds": 0})
    now = 0.0
    for _ in range(3000):
        now += 1.0
        loop.tick(now)
        if host.table.game.name != "grid":
            break
    assert host.table.game.name == "flip"  # grid, then flip, then classic, in turn
    assert host.log.matches()[1]["result"]["champions"]


def test_the_table_loop_times_turns_out_with_no_bots():
    clock = [0.0]
    host = Host(mode="timer", clock=lambda: clock[0])
    host.start_match(demo_setup("classic", random.Random(1), {"turn_seconds": 5}))
    loop = TableLoop(host)
    first = host.table.state_json()["turn"]
    clock[0] = 6.0
    loop.tick(6.0)
    assert host.table.state_json()["turn"] != first


@pytest.mark.parametrize("mode", ["timer", "scoreboard"])
def test_the_demo_of_a_mode_without_camera_plays_that_modes_game(mode):
    host = Host(mode=mode)
    said = []
    host.bus.subscribe(lambda m: said.append(m.type), {"refused", "action"})
    loop = TableLoop(host, bots=Bot(seed=3, illegal_rate=0.5), pace=1.0, seed=3)
    now = 0.0
    for _ in range(300):  # (a timer game's bot lets some turns run long)
        now += 1.0
        loop.tick(now)
    assert host.table.game.name == mode
    entries = host.log.entries(host.log.matches()[-1]["id"])
    assert len(entries) >= 20  # the bots play it
    assert {e["action"]["do"] for e in entries} <= {"pass", "timeout", "score", "show", "round"}
    assert host.bus.join(timeout=10)  # every message delivered
    assert "refused" not in said  # no card thrown at a timer or a scoreboard
