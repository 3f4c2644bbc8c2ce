"""``companion demo`` watched in a real browser (Debian's Chromium driven by Playwright): past
the grid's first game, the table view's board moves on and the camera's reading is the new deal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.browser import WAIT

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

STATE_JS = "async () => (await (await fetch('/api/state', {cache: 'no-store'})).json())"


#: the demo's seed: one whose first grid game is short (a few plays), so that the second deal,
#: which the test is about, comes within seconds (the demo runs in real time)
SEED = "37"


@pytest.fixture()
def demo(tmp_path):
    """A ``companion demo`` process, its bots quick; yields its table view's address."""
    proc = subprocess.Popen([sys.executable, "-m", "app", "demo", "--port", "0", "--pace", "0.3",
                             "--seed", SEED, "--log", str(tmp_path / "events.sqlite3")],
                            cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    first = proc.stdout.readline()
    assert "table view on http://127.0.0.1:" in first, first
    # the terminal's lines are read away (a full pipe would stop the demo's printing thread)
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    try:
        yield first.split()[3].rstrip("/")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def _agree(state) -> int:
    """How many grid cells the camera's last reading reads as the board has them."""
    reading = (state.get("reading") or {}).get("grid") or []
    return sum(1 for r, row in enumerate(reading) for c, got in enumerate(row)
               if got and state["grid"][r][c] == got["label"])


def test_the_demo_page_plays_on_into_the_grids_second_game(demo, browser):
    page = browser.new_context(viewport={"width": 1366, "height": 768}, bypass_csp=True).new_page()
    page.goto(demo + "/")
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    page.wait_for_selector("#frame:not([hidden])", timeout=WAIT)  # the camera's picture
    deadline = time.monotonic() + 240
    state = page.evaluate(STATE_JS)
    while state.get("game_number", 1) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(1000)
        state = page.evaluate(STATE_JS)
    assert state.get("game") == "grid" and state.get("game_number") == 2, state.get("game")
    dealt = state["grid"]
    # within a minute of game 2 the camera reads its deal and the bots play it
    until = time.monotonic() + 60
    agreed = played = False
    while time.monotonic() < until and not (agreed and played):
        page.wait_for_timeout(1000)
        state = page.evaluate(STATE_JS)
        if state.get("game_number") != 2:
            played = agreed = agreed or state.get("game_number", 0) > 2 or state["game"] != "grid"
            break
        agreed = agreed or _agree(state) >= 20
        played = played or state["grid"] != dealt or state["pawn"] != [2, 2]
    read = [[(got or {}).get("label") for got in row]
            for row in (state.get("reading") or {}).get("grid") or []]
    assert agreed, f"the camera still reads {read} where the board has {state['grid']}"
    assert played, "no play in the grid's second game for a minute"
    # and the page's picture is still the camera's live one
    src = page.locator("#frame").get_attribute("src")
    page.wait_for_function(f"document.querySelector('#frame').src !== {src!r}", timeout=WAIT)
    page.context.close()
