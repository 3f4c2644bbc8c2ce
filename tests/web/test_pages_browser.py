"""Real-browser tests: Debian's Chromium, driven by Playwright, on phone-sized pages of the app
served by the real waitress server (``web.serve``) on 127.0.0.1.

Skipped with a clear message when Chromium or Playwright is absent (``scripts/install-browser.sh``
installs Chromium; Playwright comes with the ``test`` extra). Screenshots of every page are kept
in ``artifacts/screenshots/``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.decks import classic_deck
from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from web import serve

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True, "bypass_csp": True}  # CSP blocks the eval of wait_for_function


# The tests in their written order, and every browser module on one worker with one Chromium
# (tests/conftest.py, by the module's name): a Chromium more costs more than the waits it would overlap.
pytestmark = pytest.mark.slow

TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben", "cai"], "first": "ann",
                   "options": {"turn_seconds": 45}}}
SCORES = {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"],
                    "options": {"deck": "light", "target": 300}}}
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
    host.show_signals(lambda: {
        "seats": {"north": {"on": True, "pattern": "on", "seats": ["ann"]},
                  "east": {"on": False, "pattern": "off", "seats": ["ben"]}},
        "side": {"side": None, "color": "off", "rgb": [0, 0, 0]},
        "status": {"color": "off", "mode": "ok", "rgb": [0, 0, 0], "showing": None},
        "buzzer": {"kind": "tonal", "note": None, "playing": None}})
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="browser-test",
                   join_token="join-me", heartbeat_s=5)
    yield host, server
    server.shutdown()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def join(browser, server, seat: str | None, *, from_table_view: bool = False,
         lang: str | None = None):
    """A phone that opens the join link and picks ``seat``: the QR code's link, read off the table
    view, where ``from_table_view`` (a page load more: the other tests go straight to the link)."""
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    link = f"{server.url}/join/join-me"
    if from_table_view:
        page.goto(server.url + "/")
        link = page.locator(".join-url a").get_attribute("href")
        assert link.startswith(server.url) and link.endswith("/join/join-me")
    page.goto(link + (f"?lang={lang}" if lang else ""))
    assert page.locator("#conn").count() == 0      # no live stream here: no "reconnecting" dot
    if seat is None:                               # the organiser types the PIN of the table
        page.locator("#organiser-pin").fill(server.organiser_pin)
    page.locator(f'.join-seat[data-seat="{seat or ""}"]').click()
    page.wait_for_url(f"**/seat/{seat}" if seat else "**/setup")
    return page


def start_from_setup(page, host) -> None:
    """Start the match set up on the page; one being played is ended (the page asks first)."""
    playing = host.table is not None
    page.locator("#start-match").click()
    if playing:
        page.locator("dialog.sheet[open] [data-yes]").click()


def wait_live(page) -> None:
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)


def test_join_and_see_the_turn_change_live(table, browser):
    host, server = table
    host.start_match(FLIP)
    ann = join(browser, server, "ann", from_table_view=True)
    ben = join(browser, server, "ben")
    wait_live(ann)
    wait_live(ben)
    ann.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=WAIT)
    assert ben.locator("#banner-text").inner_text() == "Waiting for ann"
    shot(ann, "seat-your-turn")
    # The referee plays ann's card; ben's phone shows his turn live, with no reload (how fast is
    # benchmarks/web_sse_load.py's business: a wall-clock bound here only fails on a busy machine)
    host.table.act({"by": "ann", "do": "play", "card": "red-7"}, source="test")
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=WAIT)
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
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=WAIT)
    ben.get_by_role("button", name="Play a card").click()
    ben.locator('.picker-colors [data-color="*"]').click()
    shot(ben, "seat-card-picker")
    ben.locator('.picker-faces [data-card="wild"]').click()
    # Only the light side's colours are offered, each with its symbol and name.
    names = ben.locator(".color-choices .btn").all_inner_texts()
    assert names == ["▲ red", "● yellow", "■ green", "◆ blue"]
    shot(ben, "seat-declare-colour")
    ben.locator('.color-choices [data-color="blue"]').click()
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'no'", timeout=WAIT)
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
    ann.wait_for_function("document.querySelector('#banner').dataset.mine === 'yes'", timeout=WAIT)
    ann.get_by_role("button", name="UNO!").click()
    ann.wait_for_function(
        "Array.from(document.querySelectorAll('#events li')).some(li => li.textContent.includes('ann: UNO!'))",
        timeout=WAIT)
    assert "ann" in host.table.state_json()["uno"]["called"]
    shot(ann, "seat-uno")
    ann.context.close()


def test_grid_game_seat_and_scoreboard(table, browser):
    host, server = table
    host.start_match(grid_setup(0))
    north = join(browser, server, "north")
    wait_live(north)
    north.wait_for_selector(".grid7 .cell.target", timeout=WAIT)
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
    tv.wait_for_function("document.querySelector('#turn').textContent === 'ben'", timeout=WAIT)
    # served on 127.0.0.1: no QR code a phone could not follow, and the page says why
    assert tv.locator(".qr svg").count() == 0
    assert "--host 0.0.0.0" in tv.locator(".join-panel .reach-note").inner_text()
    assert tv.locator("#frame-none").is_visible()          # no camera yet: the placeholder
    assert tv.locator(".led.on").count() == 1
    shot(tv, "table-view")
    host.start_match(grid_setup(3))
    tv.wait_for_selector(".grid5 .pawn", timeout=WAIT)
    shot(tv, "table-view-grid")
    ctx.close()

    organiser = join(browser, server, None)
    # the opening card is picked from the deck's faces (tests/web/test_setup_choices_browser.py)
    organiser.locator('input[name="game"][value="flip"]').check(force=True)
    assert organiser.locator("#start-card").is_visible()
    organiser.locator('input[name="game"][value="grid"]').check(force=True)
    organiser.locator("#deal-random").click()
    organiser.wait_for_selector("#grid-preview .grid5")
    assert organiser.locator("#deal-camera").is_disabled()
    shot(organiser, "setup")
    start_from_setup(organiser, host)
    organiser.wait_for_url(server.url + "/", timeout=WAIT)
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


def mine(page, yes: bool, timeout: int = 3000) -> None:
    page.wait_for_function(
        f"document.querySelector('#banner').dataset.mine === '{'yes' if yes else 'no'}'",
        timeout=timeout)


def test_timer_match_end_my_turn_arrives_live(table, browser):
    host, server = table
    organiser = join(browser, server, None)
    organiser.locator('input[name="game"][value="timer"]').check(force=True)
    # the timer takes seats, a first player and its own two options; no card, no grid
    assert organiser.locator('textarea[name="seats"]').is_visible()
    assert organiser.locator('select[name="first"]').is_visible()
    assert not organiser.locator("#start-card").is_visible()
    assert not organiser.locator("#deal-random").is_visible()
    assert organiser.locator("#options select, #options input").count() == 2
    organiser.locator('input[name="opt-turn_seconds"]').fill("45")
    shot(organiser, "setup-timer")
    start_from_setup(organiser, host)
    organiser.wait_for_url(server.url + "/", timeout=WAIT)
    assert host.table.game.name == "timer" and host.table.seats == ["ann", "ben", "cai"]
    organiser.wait_for_selector(".timer-board .bigclock", timeout=WAIT)
    shot(organiser, "table-view-timer-phone")
    organiser.context.close()

    ann = join(browser, server, "ann")
    ben = join(browser, server, "ben")
    wait_live(ann)
    wait_live(ben)
    mine(ann, True)
    end_turn = ann.get_by_role("button", name="End my turn")
    assert end_turn.is_enabled() and ben.get_by_role("button", name="End my turn").is_disabled()
    # the 45 s turn counting down: the phone's clock says what the table's timer has left (the
    # default 30 s turn would be 15 s off), however long a loaded machine took to get here
    assert host.table.timer.seconds == 45
    ann.wait_for_function("/^\\d+:\\d\\d$/.test(document.querySelector('.bigclock').textContent)",
                          timeout=WAIT)
    minutes, seconds = ann.evaluate("document.querySelector('.bigclock').textContent").split(":")
    assert abs(int(minutes) * 60 + int(seconds) - host.table.timer.left()) <= 3
    shot(ann, "seat-timer-your-turn")
    end_turn.click()
    mine(ben, True, timeout=WAIT)             # ben's phone hears it live (no reload)
    assert ben.locator(".clock-turn").inner_text() == "Turn 2"
    assert ben.get_by_role("button", name="End my turn").is_enabled()
    mine(ann, False)
    assert ann.locator("#banner-text").inner_text() == "Waiting for ben"
    assert host.table.state_json()["turn"] == "ben"
    shot(ben, "seat-timer-turn-arrived")
    ann.context.close()
    ben.context.close()

    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    tv = ctx.new_page()
    tv.goto(server.url + "/")
    wait_live(tv)
    tv.wait_for_function("document.querySelector('#turn').textContent === 'ben'", timeout=WAIT)
    assert not tv.locator(".camera-panel").is_visible()     # no camera in this mode
    assert "Turn 2" in tv.locator("#status-line").inner_text()
    shot(tv, "table-view-timer")
    ctx.close()


def test_scoreboard_round_from_the_phones(table, browser):
    host, server = table
    organiser = join(browser, server, None)
    organiser.locator('input[name="game"][value="scoreboard"]').check(force=True)
    assert organiser.locator('textarea[name="seats"]').is_visible()
    assert not organiser.locator('select[name="first"]').is_visible()   # no turns, no dealer
    assert not organiser.locator("#start-card").is_visible()
    organiser.locator('select[name="opt-deck"]').select_option("light")
    organiser.locator('input[name="opt-target"]').fill("300")
    shot(organiser, "setup-scoreboard")
    start_from_setup(organiser, host)
    organiser.wait_for_url(server.url + "/", timeout=WAIT)
    assert host.table.game.name == "scoreboard"
    assert host.table.state_json()["deck"] == "light"
    organiser.context.close()

    ann = join(browser, server, "ann")
    ben = join(browser, server, "ben")
    cai = join(browser, server, "cai")
    for p in (ann, ben, cai):
        wait_live(p)
    ann.wait_for_selector(".sb-table")
    ann.wait_for_function(
        "document.querySelector('#prompt').textContent.includes('Still missing: ben, cai')",
        timeout=WAIT)
    # one word on who is missing, never counting this phone's own seat among the others
    assert "Waiting for ann" not in ann.locator("#seat-app").inner_text()
    won = ann.locator('[data-do="won"]')
    assert won.is_disabled()
    # ben types his points on the number pad
    ben.get_by_role("button", name="Type my points").click()
    for key in ("3", "2", "⌫", "4"):
        ben.locator(f'.numpad [data-key="{key}"]').click()
    assert ben.locator(".pad-display").inner_text() == "34"
    shot(ben, "seat-scoreboard-numpad")
    ben.locator(".sheet [data-send]").click()
    ann.wait_for_function(
        "document.querySelector('#prompt').textContent.includes('Still missing: cai')", timeout=WAIT)
    # cai lays his cards open: a light-side draw one (10) and a yellow 9
    cai.get_by_role("button", name="Pick my cards").click()
    cai.locator('.picker-faces [data-card="red-draw-one"]').click()
    cai.locator('.picker-colors [data-color="yellow"]').click()
    cai.locator('.picker-faces [data-card="yellow-9"]').click()
    assert cai.locator(".hand-total").inner_text() == "Hand: 19 points"
    shot(cai, "seat-scoreboard-cards")
    cai.locator(".sheet [data-send]").click()
    ann.wait_for_function("!document.querySelector('[data-do=won]').disabled", timeout=WAIT)
    assert ann.locator("#banner-text").inner_text() == "Did you win? Close the round"
    cai.wait_for_function(
        "document.querySelector('#banner-text').textContent === 'Waiting for ann'", timeout=WAIT)
    shot(ann, "seat-scoreboard-all-in")
    won.click()
    ann.wait_for_function(
        "document.querySelector('.round-big').textContent === 'Round 2'", timeout=WAIT)
    assert ann.locator("#banner-text").inner_text() == "Enter your hand"
    assert host.table.state_json()["scores"] == {"ann": 53, "ben": 0, "cai": 0}
    totals = ann.locator(".sb-table td.total").all_inner_texts()
    assert totals == ["53", "0", "0"]
    shot(ann, "seat-scoreboard-round-2")
    ann.goto(server.url + "/scoreboard")
    assert ann.locator("table.scores tbody tr").count() == 2           # round 1 and round 2 (now)
    assert ann.locator(".chart-box svg polyline").count() == 3
    shot(ann, "scoreboard-scoreboard-mode")
    for p in (ann, ben, cai):
        p.context.close()

    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    tv = ctx.new_page()
    tv.goto(server.url + "/")
    wait_live(tv)
    tv.wait_for_selector(".score-board .round-big")
    assert tv.locator("#turn").inner_text() == "Round 2"
    shot(tv, "table-view-scoreboard")
    ctx.close()


def test_dialogs_take_the_focus_and_esc_cancels_them(table, browser):
    host, server = table
    host.start_match(SCORES)
    ben = join(browser, server, "ben")
    wait_live(ben)
    opener = ben.get_by_role("button", name="Type my points")
    opener.click()
    ben.wait_for_selector("dialog.sheet[open]")
    assert ben.evaluate("document.activeElement.closest('dialog.sheet') !== null")
    ben.locator('.numpad [data-key="7"]').click()
    # the pad is drawn again for each key: the focus stays on the key just pressed
    assert ben.evaluate("document.activeElement.dataset.key") == "7"
    ben.keyboard.press("Escape")
    ben.wait_for_selector("dialog.sheet[open]", state="detached")
    assert ben.evaluate("document.activeElement.dataset.do") == "score"   # back to the opener
    assert host.table.state_json()["entered"] == {}                     # nothing was sent
    opener.click()                                                     # it opens again after Esc
    ben.locator('.numpad [data-key="5"]').click()
    ben.locator(".sheet [data-send]").click()
    ben.wait_for_function("document.querySelector('#prompt').textContent.includes('5')",
                          timeout=WAIT)
    assert host.table.state_json()["entered"] == {"ben": 5}
    ben.context.close()

    organiser = join(browser, server, None)
    end = organiser.locator("#end-match")
    organiser.wait_for_function("!document.querySelector('#end-match').disabled", timeout=WAIT)
    end.click()                                          # asked in the page's dialog ...
    organiser.wait_for_selector("dialog.sheet[open]")
    assert organiser.evaluate("document.activeElement.hasAttribute('data-cancel')")
    organiser.keyboard.press("Escape")                   # ... Esc: the match goes on
    organiser.wait_for_selector("dialog.sheet[open]", state="detached")
    assert host.table is not None
    end.click()
    organiser.locator(".sheet [data-yes]").click()
    organiser.wait_for_function("document.querySelector('#end-match').disabled", timeout=WAIT)
    assert host.table is None
    organiser.context.close()


# --- the Japanese pages say the camera's questions, refusals and lights in Japanese ----------------

QUESTION_GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
                 ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
                 ["green-1", "green-2", "green-3", "green-4", "green-5"],
                 ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
                 ["red-6", "red-7", "red-8", "red-9", "blue-6"]]

#: The message families the camera, the refusals and the lights panel are said with.
_VOCABULARY = ("q_", "act_", "nothing_", "err_", "errp_", "led_", "status_", "sig_", "tune_",
               "where_", "read_", "ev_", "color_", "face_", "side_")


def _english_words() -> set[str]:
    """Words of the English event and question vocabulary that no Japanese string uses."""
    import re

    from web.i18n import strings

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", text))}

    en, ja = strings("en"), strings("ja")
    english = set().union(*(words(v) for k, v in en.items() if k.startswith(_VOCABULARY)))
    japanese = set().union(*(words(v) for k, v in ja.items() if k.startswith(_VOCABULARY)))
    return english - japanese


def _english_on(page, selector: str = "body") -> set[str]:
    import re

    text = re.sub(r"https?://\S+", " ", page.locator(selector).inner_text())  # the join link
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} & _english_words()


def _reading(grid, seq, changed=(), probs=None):
    from companion.reading import PawnReading, RegionReading, TableReading

    probs = probs or {}
    cells = tuple(RegionReading.of(probs.get(f"cell-{r}-{c}", {grid[r][c]: 0.999}))
                  for r in range(5) for c in range(5))
    return TableReading(seq, 0.0, cells, RegionReading.of({"empty": 0.999}), PawnReading((2, 2)),
                        0, tuple(changed))


def _phone(browser, server, seat: str, lang: str):
    page = join(browser, server, seat, lang=lang)
    wait_live(page)
    return page


def test_japanese_pages_word_the_camera_question_refusals_and_lights(table, browser):
    from companion.referee.camera import CameraReferee

    host, server = table
    host.start_match({"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                                "grid": QUESTION_GRID, "options": {"turn_seconds": 0}}})
    referee = CameraReferee(lambda: host.table, host.bus)
    signals = host.signals
    host.show_signals(lambda: {
        "seats": {"north": {"on": True, "pattern": "on", "seats": ["north"]}},
        "side": {"side": None, "color": "off", "rgb": [0, 0, 0]},
        "status": {"color": "amber", "mode": "confirm", "rgb": [1, 0.5, 0], "showing": "confirm"},
        "buzzer": {"kind": "tonal", "note": "A5", "playing": "question"}})
    try:
        ja = _phone(browser, server, "north", "ja")
        en = _phone(browser, server, "south", "en")
        # the camera's first look shows a card the deal does not: it asks north
        referee.on_reading(_reading([["red-7"] + QUESTION_GRID[0][1:]] + QUESTION_GRID[1:], 1,
                                    changed=("cell-0-0",)))
        assert referee.question is not None and referee.question.kind.value == "first-look"
        ja.wait_for_selector("#prompt:not([hidden]) button[data-confirm]", timeout=WAIT)
        prompt = ja.locator("#prompt").inner_text()
        assert "北" in prompt and "マス (0, 0)" in prompt and "最初" in prompt   # the seat too
        buttons = ja.locator("#prompt button[data-confirm]").all_inner_texts()
        assert buttons[-1] == "いいえ、最初からこう並べた"
        assert any("マス (0, 0)" in b and "出した" in b for b in buttons[:-1])
        # and under the choices, the answer that names the card put there
        assert ja.locator('#prompt button[data-do="other-card"]').inner_text() == "ほかのカード…"
        assert _english_on(ja) == set(), ja.locator("body").inner_text()
        shot(ja, "seat-camera-question-ja")
        # the same question on an English page is English (the check above can fail)
        en.goto(f"{server.url}/seat/north?lang=en")
        en.wait_for_selector("#events li", state="attached", timeout=WAIT)
        en.locator("details.recent summary").click()
        assert {"camera", "first", "look"} <= _english_on(en, "#events")
        # answered "no" from the phone; then a wild read in a region: which colour?
        ja.locator("#prompt button[data-confirm]").last.click()
        ja.wait_for_selector("#prompt", state="hidden", timeout=WAIT)
        referee.on_reading(_reading(QUESTION_GRID, 2, changed=("cell-0-1",), probs={
            "cell-0-1": {"red-8": 0.55, "red-0": 0.40, "red-2": 0.05}}))
        assert referee.question is not None and referee.question.kind.value == "unsure"
        ja.wait_for_selector("#prompt:not([hidden]) button[data-confirm]", timeout=WAIT)
        assert "何もしていない（カメラの読み違い）" in ja.locator("#prompt").inner_text()
        assert _english_on(ja) == set(), ja.locator("#prompt").inner_text()
        ja.locator("#prompt button[data-confirm]").last.click()
        ja.wait_for_selector("#prompt", state="hidden", timeout=WAIT)
        # a refusal: north plays a card that does not match
        answer = host.table.act({"by": "north", "do": "play", "card": "blue-9", "cell": [0, 3]},
                                source="test")
        assert answer.error == "not-matching"
        ja.locator("details.recent summary").click()
        ja.wait_for_function("document.querySelector('#events').innerText.includes('反則')",
                             timeout=WAIT)
        events = ja.locator("#events").inner_text()
        assert "合っていません" in events and "does not match" not in events
        assert _english_on(ja) == set(), events
        shot(ja, "seat-refusal-ja")
        # the table view: the lights panel and the events
        view = browser.new_context(locale="ja-JP", **PHONE).new_page()
        view.goto(f"{server.url}/?lang=ja")
        view.wait_for_selector("#signals .buzzer", timeout=WAIT)
        view.wait_for_function("document.querySelector('#events').innerText.includes('反則')",
                               timeout=WAIT)
        lights = view.locator("#signals").inner_text()
        assert "状態: カメラが確認中" in lights and "確認の音 (A5)" in lights and "消灯" in lights
        assert _english_on(view) == set(), view.locator("body").inner_text()
        shot(view, "table-lights-ja")
        view.goto(f"{server.url}/?lang=en")
        view.wait_for_selector("#signals .buzzer", timeout=WAIT)
        assert {"status", "camera", "asks", "question"} <= _english_on(view, "#signals")
        view.context.close()
        ja.context.close()
        en.context.close()
    finally:
        host.show_signals(signals)
        referee.close()


def test_the_table_view_follows_the_network(table, browser):
    """Wi-Fi that comes up after the companion: the open table view shows the QR code once the
    machine has an address (the page reads its join panel again; called at once here rather
    than waiting its 10 s)."""
    host, _ = table
    address = ["127.0.0.1"]
    server = serve(host, "0.0.0.0", 0, block=False, secret_key="browser-test",
                   join_token="join-me", lan_address=lambda: address[0])
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    try:
        tv = ctx.new_page()
        tv.goto(f"http://127.0.0.1:{server.port}/")
        assert tv.locator("#join-panel").get_attribute("data-reach") == "no-network"
        assert tv.locator(".qr svg").count() == 0
        address[0] = "192.168.1.20"
        tv.evaluate("refreshJoinPanel()")
        tv.wait_for_selector(".qr svg", timeout=WAIT)
        assert tv.locator(".join-url a").inner_text() == \
            f"http://192.168.1.20:{server.port}/join/join-me"
        assert tv.locator("#join-panel").get_attribute("data-reach") == "ok"
    finally:
        ctx.close()
        server.shutdown()


def test_setup_seats_a_player_at_another_side(table, browser):
    host, server = table
    organiser = join(browser, server, None)
    organiser.locator('input[name="game"][value="classic"]').check(force=True)
    organiser.locator('textarea[name="seats"]').fill("ann\nben\ncai")
    sides = organiser.locator('select[name="seat-side"]')
    assert sides.count() == 3
    # each seat offers its default (play order round the table) and the four sides
    assert "west" in sides.nth(1).locator("option").first.inner_text()
    sides.nth(1).select_option("east")
    start_from_setup(organiser, host)
    organiser.wait_for_url(server.url + "/", timeout=WAIT)
    assert host.table.seating.to_json() == {"ann": "south", "ben": "east", "cai": "north"}
    organiser.context.close()


def test_a_kept_context_comes_back_empty(table, browser):
    """The browser fixture keeps what a test closes for the next test (a new context costs
    Chromium a CPU-second): it must come back as a new one would, with no cookie and no page of
    the last test's."""
    host, server = table
    host.start_match(FLIP)
    ann = join(browser, server, "ann")
    context = ann.context
    assert context.cookies()                    # joined: a session cookie
    extra = context.new_page()                  # a second page of the same phone
    extra.goto(server.url + "/")
    context.close()
    again = browser.new_context(**PHONE)
    assert again is context and again.cookies() == []
    assert [p.url for p in again.pages] == ["about:blank"]
    again.close()
    ben = join(browser, server, "ben")          # and it serves the next phone as a new one
    assert ben.context is context
    wait_live(ben)
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'no'", timeout=WAIT)
    ben.context.close()
