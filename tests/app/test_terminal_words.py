"""What the companion says in the terminal is words: camera questions, the GPIO problem off a
Pi (once, with what to do), the mat's help."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from app.runner import Companion
from companion.config import load_config
from companion.engine.actions import action_from_json
from companion.referee.camera import Choice, NothingHappened, Question, QuestionKind

ROOT = Path(__file__).resolve().parents[2]


def test_mat_help_says_100_percent():
    out = subprocess.run([sys.executable, "-m", "app", "mat", "--help"], cwd=ROOT, text=True,
                         capture_output=True, timeout=60).stdout
    flat = " ".join(out.split())
    assert "Print at 100 % (actual size)" in flat and "%%" not in out


def test_a_camera_question_is_printed_in_words(tmp_path):
    config = load_config(None, {"table.mode": "timer"})
    out = io.StringIO()
    companion = Companion(config, demo=True, pin_factory=MockFactory(pin_class=MockPWMPin),
                          web=False, out=out, log_path=tmp_path / "e.sqlite3")
    try:
        play = action_from_json({"by": "ann", "do": "play", "card": "red-5"})
        wild = action_from_json({"by": "ann", "do": "play", "card": "wild", "color": "blue"})
        question = Question(7, QuestionKind.UNSURE, "discard", "ann", "red-5",
                            (Choice(0, action=play), Choice(1, action=wild),
                             Choice(2, nothing=NothingHappened.MISREAD)), other="play")
        companion.host.bus.publish("confirm-needed", **question.to_json())
        deadline = time.monotonic() + 10
        while "confirm-needed" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        line = next(x for x in out.getvalue().splitlines() if "confirm-needed" in x)
    finally:
        companion.stop()
    assert not re.search(r"[{}\[\]']", line), line  # no Python dicts, lists or quotes
    assert "ann plays red-5" in line and "ann plays wild (blue)" in line
    assert "the discard pile" in line and "nothing happened (misread)" in line
    assert "0) ann plays red-5" in line and "2) nothing happened" in line


@pytest.mark.slow
@pytest.mark.skipif(any(Path("/dev").glob("gpiochip*")), reason="this machine has GPIO")
def test_run_off_a_pi_says_the_gpio_problem_once_and_points_to_the_demo(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    proc = subprocess.Popen([sys.executable, "-m", "app", "run", "--port", "0", "--host",
                             "127.0.0.1", "--mode", "timer", "--log", str(tmp_path / "e.sqlite3")],
                            cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    try:
        assert "table view on" in proc.stdout.readline()  # (the GPIO was said before it)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert err.count("no GPIO that gpiozero can drive") == 1, err
    assert "MockFactory" not in err and "pin_factory" not in err
    assert "companion demo" in err and "web page" in err
