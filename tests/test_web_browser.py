"""Real-browser tests: Debian's Chromium, driven by Playwright, on phone-sized pages of the app
served by a real threaded werkzeug server on 127.0.0.1.

Skipped with a clear message when Chromium or Playwright is absent (``scripts/install-browser.sh``
installs Chromium; Playwright comes with the ``test`` extra). Screenshots of every page are kept
in ``artifacts/screenshots/``.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest

from companion.decks import classic_deck
from companion.eventlog import EventLog
from companion.host import Host

CHROMIUM = os.environ.get("COMPANION_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True, "bypass_csp": True}  # CSP blocks the eval of wait_for_function

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed: pip install -e '.[test]'")
if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
    pytest.skip(f"Chromium is not installed at {CHROMIUM}: run scripts/install-browser.sh "
                "(apt-get install -y chromium)", allow_module_level=True)

from web import serve  # noqa: E402

FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 90}}}


def grid_setup(seed: int = 0) -> dict:
    deck = list(classic_deck())
    random.Random(seed).shuffle(deck)
    return {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                      "grid": [[deck[r * 5 + c].name for c in range(5)] for r in range(5)],
                      "options": {"turn_seconds": 0}}}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("web") / "log.db"))
    # The shape of hardware.signals.Signals.snapshot(): one seat LED lit, the rest dark.
    host.signals = lambda: {
        "seats": {"north": {"on": True, "pattern": "on", "seats": ["ann"]},
                  "east": {"on": False, "pattern": "off", "seats": ["ben"]}},
        "side": {"side": None, "color": "off", "rgb": [0, 0, 0]},
        "status": {"color": "off", "mode": "ok", "rgb": [0, 0, 0], "showing": None},
        "buzzer": {"kind": "tonal", "note": None, "playing": None}}
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="browser-test",
                   join_token="join-me", heartbeat_s=5)
    yield host, server
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    pw = sync_api.sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    except Exception as exc:  # noqa: BLE001 - an unusable browser is a skip, with the reason
        pw.stop()
        pytest.skip(f"Chromium at {CHROMIUM} did not start: {exc}")
    yield b
    b.close()
    pw.stop()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def join(browser, server, seat: str | None):
    """A phone that scans the QR code's link and picks ``seat``."""
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(server.url + "/")
    link = page.locator(".join-url a").get_attribute("href")
    assert link.startswith(server.url) and link.endswith("/join/join-me")
    page.goto(link)
    page.locator(f'.join-seat[data-seat="{seat or ""}"]').click()
    page.wait_for_url(f"**/seat/{seat}" if seat else "**/setup")
    return page


def wait_live(page) -> None:
    page.wait_for_selector('#conn[data-state="on"]', timeout=5000)


def test_join_and_see_the_turn_change_live(table, browser):
    host, server = table
    host.start_match(FLIP)
    ann = join(browser, server, "ann")
    ben = join(browser, server, "ben")
    wait_live(ann)
    wait_live(ben)
    ann.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=3000)
    assert ben.locator("#banner-text").inner_text() == "Waiting for ann"
    shot(ann, "seat-your-turn")
    # The referee plays ann's card; ben's phone must show his turn within a second.
    host.table.act({"by": "ann", "do": "play", "card": "red-7"}, source="test")
    started = time.monotonic()
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=1000)
    assert time.monotonic() - started < 1.0
    assert ben.locator("#banner-text").inner_text() == "Your turn!"
    shot(ben, "seat-turn-arrived")
    ann.context.close()
    ben.context.close()


def test_declare_a_wild_colour(table, browser):
    host, server = table
    host.start_match(FLIP)
    host.table.act({"by": "ann", "do": "play", "card": "red-7"}, source="test")
    ben = join(browser, server, "ben")
    wait_live(ben)
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=3000)
    ben.get_by_role("button", name="Play a card").click()
    ben.locator('.picker-colors [data-color="*"]').click()
    shot(ben, "seat-card-picker")
    ben.locator('.picker-faces [data-card="wild"]').click()
    # Only the light side's colours are offered, each with its symbol and name.
    names = ben.locator(".color-choices .btn").all_inner_texts()
    assert names == ["▲ red", "● yellow", "■ green", "◆ blue"]
    shot(ben, "seat-declare-colour")
    ben.locator('.color-choices [data-color="blue"]').click()
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'no'", timeout=3000)
    state = host.table.state_json()
    assert (state["top"], state["color"], state["turn"]) == ("wild", "blue", "cai")
    ben.wait_for_selector(".swatch.c-blue")
    ben.context.close()


def test_press_uno(table, browser):
    host, server = table
    host.start_match(FLIP)
    plays = {"ann": [7, 1, 4, 8, 2], "ben": [8, 2, 6, 9, 3], "cai": [9, 3, 7, 1, 4]}
    for i in range(5):
        for seat in ("ann", "ben", "cai"):
            answer = host.table.act({"by": seat, "do": "play", "card": f"red-{plays[seat][i]}"},
                                    source="test")
            assert answer.ok, answer
    assert host.table.state_json()["hands"]["ann"] == 2
    ann = join(browser, server, "ann")
    wait_live(ann)
    ann.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=3000)
    ann.get_by_role("button", name="UNO!").click()
    ann.wait_for_function(
        "Array.from(document.querySelectorAll('#events li')).some(li => li.textContent.includes('ann: UNO!'))",
        timeout=3000)
    assert "ann" in host.table.state_json()["uno"]["called"]
    shot(ann, "seat-uno")
    ann.context.close()


def test_grid_game_seat_and_scoreboard(table, browser):
    host, server = table
    host.start_match(grid_setup(0))
    north = join(browser, server, "north")
    wait_live(north)
    north.wait_for_selector(".grid7 .cell.target", timeout=3000)
    shot(north, "seat-grid")
    # Play the game out from the referee's side (moves toward the nearest border).
    t = host.table
    for _ in range(100):
        s = t.state_json()
        if s["over"]:
            break
        acts = [a for a in t.legal_actions() if a.by == s["turn"]]
        moves = [a for a in acts if a.do == "move"]
        if moves:
            def edge(a):
                r, c = a.to
                return -1 if not (0 <= r <= 4 and 0 <= c <= 4) else min(r, c, 4 - r, 4 - c)
            action = min(moves, key=edge)
        else:
            action = next(a for a in acts if a.do in ("discard", "play"))
        assert t.act(action, source="test").ok
    winners = t.state_json()["winners"]
    assert winners
    north.goto(server.url + "/scoreboard")
    north.wait_for_selector("table.scores")
    assert north.locator("table.scores tbody tr").count() == 1
    assert north.locator(".chart-box svg polyline").count() == 2
    totals = north.locator("table.scores tfoot td").all_inner_texts()
    assert sorted(totals) == ["0", "2"]
    shot(north, "scoreboard")
    north.context.close()


def test_table_view_and_setup_screens(table, browser):
    host, server = table
    host.start_match(FLIP)
    host.table.act({"by": "ann", "do": "play", "card": "red-7"}, source="test")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    tv = ctx.new_page()
    tv.goto(server.url + "/")
    wait_live(tv)
    tv.wait_for_function("document.querySelector('#turn').textContent === 'ben'", timeout=3000)
    assert tv.locator(".qr svg").count() == 1
    assert tv.locator("#frame-none").is_visible()          # no camera yet: the placeholder
    assert tv.locator(".led.on").count() == 1
    shot(tv, "table-view")
    host.start_match(grid_setup(3))
    tv.wait_for_selector(".grid5 .pawn", timeout=3000)
    shot(tv, "table-view-grid")
    ctx.close()

    organiser = join(browser, server, None)
    organiser.locator('input[name="game"][value="grid"]').check(force=True)
    organiser.locator("#deal-random").click()
    organiser.wait_for_selector("#grid-preview .grid5")
    assert organiser.locator("#deal-camera").is_disabled()
    shot(organiser, "setup")
    organiser.locator("#start-match").click()
    organiser.wait_for_url(server.url + "/", timeout=5000)
    assert host.table.game.name == "grid" and host.table.seats == ["north", "south"]
    organiser.context.close()


def test_japanese_from_accept_language(table, browser):
    host, server = table
    ctx = browser.new_context(locale="ja-JP", extra_http_headers={"Accept-Language": "ja"}, **PHONE)
    page = ctx.new_page()
    page.goto(server.url + "/scoreboard")
    assert page.locator("h1").inner_text() == "スコアボード"
    shot(page, "scoreboard-ja")
    page.goto(server.url + "/?lang=en")
    assert page.locator(".topbar nav a").first.inner_text() == "Table"
    ctx.close()
