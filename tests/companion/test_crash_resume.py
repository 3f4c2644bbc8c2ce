"""Killed at any moment (kill -9), restarted: the same state, nothing acknowledged is lost.

Real processes: a writer referees a scripted match into a SQLite event log and says ``acked N``
after each action; the test kills it with SIGKILL at random moments, restarts it, and checks
that every acknowledged action survived and that the final state is exactly the state of an
uninterrupted replay.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.replay import Replay
from tests.support.games import flip_setup, grid_setup, random_script

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PACE = 0.01  # seconds between two actions of the writer, so random kills land all over the match


def uninterrupted_state(setup, script):
    replay = Replay(setup)
    for action in script:
        answer = replay.answer(action)
        assert answer["ok"], answer
    return replay.game.to_json(replay.state)


def run_writer(db, script_path, kill_after_acks=None, kill_after_seconds=None):
    """Run the writer; kill -9 it once it has acknowledged ``kill_after_acks`` more actions,
    or ``kill_after_seconds`` after it started, whatever it is doing then."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.crash_writer", str(db),
                             str(script_path), str(PACE)], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True)
    timer = None
    if kill_after_seconds is not None:
        timer = threading.Timer(kill_after_seconds, lambda: proc.poll() is None and proc.kill())
        timer.start()
    resumed, acked, finished = None, 0, None
    try:
        for line in proc.stdout:
            word, _, rest = line.strip().partition(" ")
            if word == "resumed":
                resumed = int(rest)
                acked = resumed
            elif word == "acked":
                acked = int(rest)
                if kill_after_acks is not None and acked - (resumed or 0) >= kill_after_acks:
                    os.kill(proc.pid, signal.SIGKILL)
                    break
            elif word == "finished":
                finished = json.loads(rest)
    finally:
        if timer is not None:
            timer.cancel()
        proc.wait(timeout=60)
        proc.stdout.close()
    return resumed, acked, finished


@pytest.mark.parametrize("make_setup", [
    lambda: grid_setup(7),
    lambda: flip_setup("flip"),
    lambda: flip_setup("classic"),
], ids=["grid", "flip", "classic"])
def test_kill_minus_nine_at_random_points_loses_nothing(tmp_path, make_setup):
    setup = make_setup()
    # A finished match is not resumed (a new one starts), so the script stops just before the end.
    script = random_script(setup, length=200, seed=11, stop_before_match_end=True)
    script_path = tmp_path / "script.jsonl"
    script_path.write_text("\n".join(json.dumps(x) for x in [setup, *script]) + "\n")
    db = tmp_path / "events.sqlite3"
    rng = random.Random(3)
    last_acked, kills = 0, 0
    for attempt in range(60):
        if attempt % 2:
            kill = {"kill_after_seconds": rng.uniform(0.05, 0.6)}  # any moment, even mid-write
        else:
            kill = {"kill_after_acks": rng.randint(1, 20)}  # right after an acknowledgement
        resumed, acked, finished = run_writer(db, script_path, **kill)
        # Every acknowledged action is on disk (one more may be, if the kill came after the commit).
        if resumed is not None:  # None: killed before it could even say where it resumed
            assert resumed >= last_acked
        last_acked = max(last_acked, acked)
        if finished is not None:
            break
        kills += 1
    assert kills >= 8, f"only {kills} kills landed before the script finished"
    resumed, _, finished = run_writer(db, script_path)
    assert resumed >= last_acked
    assert finished == uninterrupted_state(setup, script)
