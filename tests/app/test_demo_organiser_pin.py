"""``companion demo`` prints the organiser PIN in its terminal at start, and a phone that types it
joins as the organiser (a wrong one is refused). The real process, over HTTP."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _join(url: str, token: str, pin: str) -> tuple[int, dict]:
    req = urllib.request.Request(url + "/api/join", method="POST",
                                 data=json.dumps({"token": token, "seat": None, "pin": pin}).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


@pytest.mark.slow
def test_the_demo_prints_the_organiser_pin_and_it_lets_a_phone_in(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "app", "demo", "--port", "0", "--pace", "5",
                             "--log", str(tmp_path / "events.sqlite3")],
                            cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ))
    try:
        url = pin = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and pin is None:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("table view on "):
                url = line.split()[3].rstrip("/")
            if m := re.match(r"Organiser PIN: (\d{6}) ", line):
                pin = m.group(1)
        assert url and pin, "the demo printed no organiser PIN"
        page = urllib.request.urlopen(url + "/", timeout=10).read().decode()
        token = re.search(r"/join/([A-Za-z0-9_-]+)", page).group(1)
        assert pin in page                           # the table view on this machine shows it too
        status, body = _join(url, token, "x" + pin)
        assert status == 403 and body["error"] == "bad-pin"
        status, body = _join(url, token, pin)
        assert status == 200 and body["next"] == "/setup"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
