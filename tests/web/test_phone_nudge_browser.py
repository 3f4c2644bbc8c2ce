"""A player's phone nudges its player and stays awake, in a real browser (Chromium via Playwright):
it vibrates when the seat's turn starts and when a camera question is asked of the seat, beeps
too once the player turned the sound on (remembered by the phone), and holds a screen wake lock
during a match, asked for again when the page is seen again; where the browser has no wake lock
the page says to keep the screen on.

The browser's vibration, wake lock and WebAudio are stand-ins put in before the page's scripts
(``add_init_script``): they record what the page asked of them.
"""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True, "bypass_csp": True}
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}
GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
        ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
        ["green-1", "green-2", "green-3", "green-4", "green-5"],
        ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
        ["red-6", "red-7", "red-8", "red-9", "blue-6"]]

#: Stand-ins that record: navigator.vibrate, navigator.wakeLock, AudioContext.
STUBS = """
window.__vibrations = [];
Object.defineProperty(Navigator.prototype, "vibrate", { configurable: true, writable: true,
  value: function (pattern) { window.__vibrations.push(pattern); return true; } });
window.__wake = { requests: [], sentinels: [] };
const fakeWakeLock = { request(type) {
  const s = new EventTarget();
  s.type = type; s.released = false;
  s.release = async () => { if (!s.released) { s.released = true; s.dispatchEvent(new Event("release")); } };
  window.__wake.requests.push(type); window.__wake.sentinels.push(s);
  return Promise.resolve(s);
} };
Object.defineProperty(Navigator.prototype, "wakeLock", { configurable: true, get: () => fakeWakeLock });
window.__beeps = 0;
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    return { type: "", frequency: { value: 0 }, connect() {}, start() { window.__beeps++; }, stop() {} };
  }
  createGain() { return { gain: { value: 0 }, connect() {} }; }
  resume() { return Promise.resolve(); }
};
"""
#: A browser without a wake lock (iOS Safari before 16.4, Firefox before 126).
NO_WAKE_LOCK = """
Object.defineProperty(Navigator.prototype, "wakeLock", { configurable: true, get: () => undefined });
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("nudge") / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="nudge", join_token="join-me",
                   heartbeat_s=5, phones_per_seat=8)
    yield host, server
    server.shutdown()


def phone(browser, server, seat: str, script: str, name: str):
    # a context of its own (the header only keys it apart): the stand-ins stay out of other tests
    ctx = browser.new_context(extra_http_headers={"X-Test-Stubs": name}, **PHONE)
    ctx.add_init_script(script)
    page = ctx.new_page()
    page.goto(f"{server.url}/join/join-me")
    page.locator(f'.join-seat[data-seat="{seat}"]').click()
    page.wait_for_url(f"**/seat/{seat}")
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    return page


def count(page, what: str) -> int:
    return page.evaluate(what)


def wait_count(page, what: str, n: int) -> None:
    page.wait_for_function(f"({what}) >= {n}", timeout=WAIT)


def test_the_phone_vibrates_when_the_turn_starts_and_beeps_once_the_sound_is_on(table, browser):
    host, server = table
    host.start_match(FLIP)
    ann = phone(browser, server, "ann", STUBS, "stubs")
    ben = phone(browser, server, "ben", STUBS, "stubs")
    wait_count(ann, "window.__vibrations.length", 1)      # ann's turn: the match's first
    assert ann.evaluate("window.__vibrations[0]") == [200, 100, 200]
    assert count(ann, "window.__beeps") == 0               # the sound is off until turned on
    assert count(ben, "window.__vibrations.length") == 0   # not ben's turn
    assert ann.locator("#sound-on").is_checked() is False
    ann.locator("#sound-on").check()
    for seat, card in (("ann", "red-7"), ("ben", "red-8")):
        assert host.table.act({"by": seat, "do": "play", "card": card}, source="test").ok
    wait_count(ben, "window.__vibrations.length", 1)
    assert count(ben, "window.__beeps") == 0
    assert count(ann, "window.__vibrations.length") == 1   # no nudge for another seat's turn
    assert host.table.act({"by": "cai", "do": "play", "card": "red-9"}, source="test").ok
    wait_count(ann, "window.__vibrations.length", 2)       # ann's turn again: buzz and beep
    wait_count(ann, "window.__beeps", 1)
    # the phone remembers the sound
    ann.reload()
    ann.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    assert ann.locator("#sound-on").is_checked()
    ann.context.close()
    ben.context.close()


def test_the_phone_vibrates_when_the_camera_asks_its_seat(table, browser):
    from companion.reading import PawnReading, RegionReading, TableReading
    from companion.referee.camera import CameraReferee

    host, server = table
    host.start_match({"setup": {"game": "grid", "seats": ["north", "south"], "first": "south",
                                "grid": GRID, "options": {"turn_seconds": 0}}})
    referee = CameraReferee(lambda: host.table, host.bus)
    try:
        south = phone(browser, server, "south", STUBS, "stubs")
        south.wait_for_selector("#pile button.cell", timeout=WAIT)
        wait_count(south, "window.__vibrations.length", 1)     # south's turn
        # the camera's first look shows a card the deal does not: it asks the seat on turn
        grid = [["red-7"] + GRID[0][1:]] + GRID[1:]
        cells = tuple(RegionReading.of({grid[r][c]: 0.999}) for r in range(5) for c in range(5))
        referee.on_reading(TableReading(1, 0.0, cells, RegionReading.of({"empty": 0.999}),
                                        PawnReading((2, 2)), 0, ("cell-0-0",)))
        assert referee.question is not None
        south.wait_for_selector("#prompt:not([hidden]) button[data-confirm]", timeout=WAIT)
        wait_count(south, "window.__vibrations.length", 2)
        assert host.table.state_json()["turn"] == "south"     # still its turn: the question buzzed
        south.context.close()
    finally:
        referee.close()


def test_the_screen_is_kept_awake_during_a_match_and_asked_again_when_seen_again(table, browser):
    host, server = table
    host.end_match()
    host.start_match(FLIP)
    ben = phone(browser, server, "ben", STUBS, "stubs")
    wait_count(ben, "window.__wake.requests.length", 1)
    assert ben.evaluate("window.__wake.requests") == ["screen"]
    assert ben.locator("#wake-hint").is_hidden()
    # hidden, the browser lets the lock go; seen again, the page asks for it again
    ben.evaluate("window.__wake.sentinels[0].release()")
    ben.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    wait_count(ben, "window.__wake.requests.length", 2)
    # the match ends: the lock is let go
    host.end_match()
    ben.wait_for_function("window.__wake.sentinels[1].released === true", timeout=WAIT)
    ben.context.close()


def test_a_browser_without_a_wake_lock_says_to_keep_the_screen_on(table, browser):
    host, server = table
    host.start_match(FLIP)
    ben = phone(browser, server, "ben", NO_WAKE_LOCK, "no-wake-lock")
    ben.wait_for_selector("#wake-hint", state="visible", timeout=WAIT)
    assert "screen" in ben.locator("#wake-hint").inner_text()
    ja = ben.context.new_page()
    ja.goto(f"{server.url}/seat/ben?lang=ja")
    ja.wait_for_selector("#wake-hint", state="visible", timeout=WAIT)
    assert "画面" in ja.locator("#wake-hint").inner_text()
    ben.context.close()
