"""The demo watched in Chromium through three matches (grid, Flip, classic): the table view's board
shows what the engine says and its camera picture keeps coming, while the demo keeps playing and
the camera's reading keeps showing the board.

The demo (:class:`tests.support.demo_run.DemoRun`: the demo's table, camera referee and bots on a
simulated clock, which fails on no play for 60 s or the camera reading another board for 20 s)
is driven frame by frame in the test's thread; its host is served by the real web server and the
table view ``/`` is open in Chromium. At each match's start and every :data:`CHECK_EVERY_S`
simulated seconds the camera draws that frame's picture for the page and the test waits until
the page shows the engine's board, game and turn (the grid's 25 cards and its pawn; the top card,
the active colour and Flip's side) and that picture in ``#frame``; a page that does not get there
within ``WAIT`` fails.
"""

from __future__ import annotations

import hashlib
import math
import random
import time

import pytest

from app.runner import demo_setup
from tests.support.browser import WAIT
from tests.support.demo_run import DemoRun
from web import serve

pytestmark = pytest.mark.slow

#: simulated seconds between two looks at the page
CHECK_EVERY_S = 10.0
#: the demo's seed (its bots and its deals): one whose three matches are short, as the test's
#: time goes into drawing and reading the matches' frames
SEED = 27
#: short matches: a grid match of two games at least (the second deal is where a camera that
#: does not read a new layout afresh goes dead), Flip and classic of a round each
RULES = {"turn_seconds": 30, "match_points": 2, "rounds": 1}

#: What the table view shows (its board, game and turn) beside what it should show for the
#: engine's state ``want`` (the card words and seat names are the page's own).
COMPARE_JS = """(want) => {
  const $ = (q) => document.querySelector(q);
  const layout = $(".table-layout");
  const shown = { game: layout ? layout.dataset.game : null, turn: $("#turn").textContent };
  const expect = { game: want.game, turn: turnText({ ...want, playing: true }) };
  if (want.game === "grid") {
    shown.cells = []; expect.cells = [];
    for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) {
      const cell = $(`#board .cell[data-cell="${r},${c}"]`);
      const card = cell && cell.querySelector(".card");
      shown.cells.push(card ? card.getAttribute("title") : "no cell");
      expect.cells.push(want.grid[r][c] ? cardWords(want.grid[r][c]) : null);
    }
    const pawn = $("#board .cell.has-pawn");
    shown.pawn = pawn ? pawn.dataset.cell : null;
    expect.pawn = want.pawn ? want.pawn.join(",") : null;
  } else {
    const top = $("#board .pile-row > .card.big");
    shown.top = top ? top.getAttribute("title") : null;
    expect.top = cardWords(want.top);
    const swatch = $("#board .facts .swatch");
    shown.color = swatch ? [...swatch.classList].find((c) => c.startsWith("c-")) || null : null;
    expect.color = want.color ? "c-" + want.color : null;
    const side = $("#status-line .pill.light, #status-line .pill.dark");
    shown.side = side ? (side.classList.contains("dark") ? "dark" : "light") : null;
    expect.side = want.side || null;
  }
  return { shown, expect, same: JSON.stringify(shown) === JSON.stringify(expect) };
}"""

#: The SHA-256 of the picture the page shows in ``#frame`` (null while it shows none).
PICTURE_JS = """async () => {
  const img = document.querySelector("#frame");
  if (!img || img.hidden || !img.src) return null;
  try {
    const bytes = await (await fetch(img.src)).arrayBuffer();
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  } catch (e) { return null; }  // (the page swapped its picture meanwhile: look again)
}"""


def _engine_state(run: DemoRun) -> dict:
    table = run.host.table
    return {**table.state_json(), "game": table.game.name}


def _check_board(page, run: DemoRun) -> None:
    """The page catches up with the engine: its board, game and turn are the engine's."""
    want = _engine_state(run)
    try:
        page.wait_for_function(f"(want) => ({COMPARE_JS})(want).same", arg=want, timeout=WAIT)
    except Exception:  # noqa: BLE001 - Playwright's timeout: say what differs
        got = page.evaluate(COMPARE_JS, want)
        pytest.fail(f"the table view shows {got['shown']} where the engine has {got['expect']} "
                    f"in {run.where()}")


def _frame_with_picture(run: DemoRun) -> None:
    """One more frame of the demo, whose picture the camera draws for the page (the demo's
    camera draws a few a second; frames on a simulated clock come faster than real ones)."""
    run.camera.jpeg_every = 0.0
    try:
        run.frame()
    finally:
        run.camera.jpeg_every = math.inf


def _check_picture(page, run: DemoRun, before: str | None) -> str:
    """The page shows the camera's latest picture, another than at the last look; returns its
    digest."""
    jpeg = run.host.last_frame_jpeg
    assert jpeg, f"the camera has drawn no picture for the page in {run.where()}"
    latest = hashlib.sha256(jpeg).hexdigest()
    assert latest != before, f"the camera's picture is the last look's in {run.where()}"
    deadline = time.monotonic() + WAIT / 1000
    shown = page.evaluate(PICTURE_JS)
    while shown != latest and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        shown = page.evaluate(PICTURE_JS)
    assert shown == latest, f"the page's #frame is not the camera's latest picture in {run.where()}"
    return latest


def test_the_table_view_follows_the_demo_through_three_matches(browser):
    run = DemoRun(seed=SEED, rules=RULES)
    server = serve(run.host, "127.0.0.1", 0, block=False, secret_key="demo-three",
                   join_token="demo-three")
    # (bypass_csp: the page's policy lets it fetch only its own server, not the picture's blob
    # that the test reads back)
    page = browser.new_context(viewport={"width": 1366, "height": 768},
                               bypass_csp=True).new_page()
    try:
        page.goto(server.url.rstrip("/") + "/")
        page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
        run.host.start_match(demo_setup("grid", random.Random(SEED), run.loop.rules))
        limit = run.now + 3 * 3600  # simulated
        next_look, matches, picture, looks = run.now, 0, None, 0
        while run.matches_won < 3 and run.now < limit:
            run.frame()
            if run.now >= next_look or len(run.games) > matches:
                _frame_with_picture(run)
                if run.host.table is not None:
                    _check_board(page, run)
                    picture = _check_picture(page, run, picture)
                    looks += 1
                matches = len(run.games)
                next_look = run.now + CHECK_EVERY_S
        assert run.matches_won >= 3, run.where()
        assert run.games[:3] == ["grid", "flip", "classic"]
        _check_board(page, run)   # the last match's end, as the engine has it
        assert looks >= 3 * 3, looks
    finally:
        page.context.close()
        server.shutdown()
