"""``companion demo`` keeps house: its throw-away log folder is gone once it exits (Ctrl-C,
SIGTERM), and its synthetic table reads hands at a round's end like a camera, with no error."""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.runner import CameraWorker
from companion.host import Host
from simulator.demo_table import DemoTable
from tests.support.hands import round_to_show

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_demo_without_a_log_leaves_no_folder_behind(tmp_path, stop):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "app", "demo", "--port", "0", "--pace", "0.05",
                             "--seed", "4", "--mode", "timer"],
                            cwd=ROOT, text=True, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert "table view on http://127.0.0.1:" in proc.stdout.readline()
        made = list(tmp_path.glob("uno-demo-*"))
        assert len(made) == 1 and (made[0] / "events.sqlite3").exists()   # the log it plays in
    finally:
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert list(tmp_path.glob("uno-demo-*")) == []


def test_a_given_log_is_kept(tmp_path):
    from app.runner import Companion
    from companion.config import Config
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    config = Config()
    config = dataclasses.replace(config, table=dataclasses.replace(config.table, mode="timer"))
    companion = Companion(config, demo=True, pin_factory=MockFactory(pin_class=MockPWMPin),
                          log_path=tmp_path / "kept" / "events.sqlite3", web=False)
    companion.stop()
    assert (tmp_path / "kept" / "events.sqlite3").exists()


def test_a_hand_read_on_the_demo_table_reads_its_still_without_an_error(caplog):
    host = Host(mode="referee")
    round_to_show(host, "classic", seed=1)
    table = DemoTable(host, 1280, 720, seed=2, realtime=False)
    worker = CameraWorker(host, lambda: table, first=table)
    stills = []
    still = table.still
    table.still = lambda: stills.append(1) or still()
    with caplog.at_level(logging.WARNING):
        for _ in range(30):
            worker.process(worker.source.read().image)
            if host.hands.to_json():
                break
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert stills, "the hand read took no still"
    reads = host.hands.to_json()
    assert set(reads) == {"ben", "cai", "dee"}        # every awaited seat was read
    assert all(r["source"] == "camera" for r in reads.values())
