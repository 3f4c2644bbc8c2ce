"""Whose turn, at a glance, on every screen (Debian's Chromium driven by Playwright): at a TV's,
a laptop's, a tablet's and two phones' sizes, in English and Japanese, the table view and a
joined phone's seat page, in each mode (the referee's grid game, UNO Flip on its Dark side, the
turn timer only, the scoreboard only):

* the seat on turn and its timer show whole without scrolling, and the turn is the page's
  largest text (card faces are pictures, not text); the join code starts on the first screen of
  a tablet, a laptop or a TV;
* nothing scrolls sideways, and no text is clipped (cut by its box's overflow, or outside the
  window);
* a Japanese page shows no English word of the pages' vocabulary;
* the Dark side is the whole page's look (its background), and the Light side's LED shows on
  its panel;
* a wild's chosen colour is shown as large as the card.

One browser context per size, its page reused for every mode and language.
"""

from __future__ import annotations

import re

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from tests.support.browser import WAIT, boxes
from tests.support.page_words import VOCABULARY, words
from web import serve
from tests.support.page_setups import LIGHTS, MODES
from tests.support.page_setups import SIZES as PAGE_SIZES
from web.reach import SERVE_ON_NETWORK

pytestmark = pytest.mark.slow

SIZES = list(PAGE_SIZES.values())

#: The page's geometry as one object: the turn's and the timer's boxes, the widest scroll, the
#: clipped texts, the largest text outside the turn.
MEASURE = """([turnSel, timerSel]) => {
  const W = innerWidth, H = innerHeight;
  const visible = (el) => {
    const cs = getComputedStyle(el);
    return cs.display !== "none" && cs.visibility !== "hidden" && el.getClientRects().length > 0;
  };
  const box = (sel) => {
    const el = sel && document.querySelector(sel);
    if (!el || !visible(el) || !el.textContent.trim()) return null;
    const r = el.getBoundingClientRect();
    return {top: r.top, left: r.left, bottom: r.bottom, right: r.right,
            size: parseFloat(getComputedStyle(el).fontSize), text: el.textContent.trim()};
  };
  const own = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const inTurn = (el) => el.closest(".turn-panel, .banner, .clock, .card, .chosen, .sr-only, dialog, .toast");
  const clipped = [];
  let largest = {size: 0, text: ""};
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el) || el.closest(".sr-only, dialog:not([open]), [hidden]")) continue;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const text = el.textContent.trim().slice(0, 40);
    if (own(el)) {
      if (!inTurn(el) && parseFloat(cs.fontSize) > largest.size)
        largest = {size: parseFloat(cs.fontSize), text};
      if (r.right > W + 1 || r.left < -1) clipped.push(`outside the window: ${el.tagName}.${el.className} "${text}"`);
    }
    const cuts = ["hidden", "clip", "auto", "scroll"].includes(cs.overflowX) || cs.textOverflow === "ellipsis";
    if (cuts && el.textContent.trim() && !el.closest(".card") && el.scrollWidth > el.clientWidth + 1)
      clipped.push(`cut (${el.scrollWidth} > ${el.clientWidth}): ${el.tagName}.${el.className} "${text}"`);
  }
  return {turn: box(turnSel), timer: box(timerSel), W, H, scrollY,
          scroll: document.scrollingElement.scrollWidth, clipped, largest,
          bg: getComputedStyle(document.body).backgroundColor};
}"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("sizes") / "log.db"))
    host.show_signals(lambda: LIGHTS)
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="sizes", join_token="join-me",
                   heartbeat_s=5, phones_per_seat=8)
    yield host, server
    server.shutdown()


def _start(host, mode: str) -> str:
    """Start ``mode``'s match, played into the state the test looks at; the seat to join."""
    table = host.start_match({"setup": MODES[mode]})
    if mode == "flip-dark":   # ann flips the table to its Dark side; a wild, its colour chosen
        assert table.act({"by": "ann", "do": "play", "card": "red-flip"}, source="test").ok
        assert table.act({"by": "ann", "do": "reveal", "card": "pink-2"}, source="test").ok
        assert table.act({"by": "ben", "do": "play", "card": "wild-draw-color", "color": "teal"},
                         source="test").ok
    if mode == "scoreboard":
        assert table.act({"by": "ben", "do": "score", "points": 12}, source="test").ok
    return table.seats[0]


def _spoken(page) -> str:
    text = page.evaluate("document.body.innerText").replace(SERVE_ON_NETWORK, " ")
    return re.sub(r"https?://\S+", " ", text)


def _check(page, where: str, turn: str, timer: str | None, lang: str) -> dict:
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    page.wait_for_function("(sel) => { const el = document.querySelector(sel);"
                           " return el && el.textContent.trim() && el.textContent.trim() !== '—'; }",
                           arg=turn, timeout=WAIT)
    page.evaluate("window.scrollTo(0, 0)")
    m = page.evaluate(MEASURE, [turn, timer])
    W, H = m["W"], m["H"]

    def shows(b):
        return b and b["top"] >= 0 and b["left"] >= 0 and b["bottom"] <= H + 0.5 and b["right"] <= W + 0.5

    assert shows(m["turn"]), f"{where}: the turn is not whole on screen: {m['turn']} in {W}x{H}"
    if timer:
        assert shows(m["timer"]), f"{where}: the timer is not whole on screen: {m['timer']} in {W}x{H}"
    assert m["turn"]["size"] >= m["largest"]["size"], \
        f"{where}: the turn ({m['turn']['size']} px) is smaller than {m['largest']}"
    assert m["scroll"] <= W, f"{where}: the page is {m['scroll']} px wide in a {W} px window"
    assert not m["clipped"], f"{where}: {m['clipped']}"
    if lang == "ja":
        english = words(_spoken(page)) & VOCABULARY
        assert not english, f"{where}: English on the Japanese page: {sorted(english)}"
    return m


def _luminance(css: str) -> float:
    r, g, b = (int(v) for v in re.findall(r"\d+", css)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_turn_and_its_timer_show_whole_on_every_screen_in_every_mode(table, browser, size):
    host, server = table
    width, height = size
    phone = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True,
                              device_scale_factor=2 if phone else 1, is_mobile=phone,
                              has_touch=phone)
    page = ctx.new_page()
    for mode in MODES:
        seat = _start(host, mode)
        page.goto(f"{server.url}/join/join-me")
        page.locator(f'.join-seat[data-seat="{seat}"]').click()
        page.wait_for_url(f"**/seat/{seat}", timeout=WAIT)
        for lang in ("en", "ja"):
            where = f"{width}x{height} {mode} {lang}"
            page.goto(f"{server.url}/?lang={lang}")
            timer = ".turn-panel #timer" if mode != "scoreboard" else None
            m = _check(page, f"table view {where}", "#turn", timer, lang)
            if not phone:   # the join code is found on the first screen of a tablet, laptop, TV
                join = page.locator("#join-panel").bounding_box()
                assert join["y"] < height - 100, f"{where}: the join code starts at {join['y']} px"
            if mode == "flip-dark":
                assert _luminance(m["bg"]) < 0.3, f"{where}: the Dark side's page is light: {m['bg']}"
                led = page.evaluate("""() => { const i = document.querySelector('.led.side-led i');
                    return i && getComputedStyle(i).outlineColor; }""")
                assert led and _luminance(led) < 0.5, f"{where}: the Light side's LED has no dark ring: {led}"
                card, chosen = boxes(page, "#board .pile-row .card.big", "#board .pile-row .chosen")
                assert card and chosen and chosen["height"] >= card["height"] - 1, (card, chosen)
                said = page.locator("#board .pile-row .card.big").inner_text()
                assert "?" not in said and page.locator("#board .face-sub").count() == 1, said
            assert page.locator(".uses-panel li").count() == 3   # the three ways to use it
            seat_timer = {"scoreboard": None, "timer": "[data-clock]"}.get(mode, "#banner #timer")
            page.goto(f"{server.url}/seat/{seat}?lang={lang}")
            page.wait_for_selector("#pile > *", timeout=WAIT)
            _check(page, f"seat page {where}", "#banner-text", seat_timer, lang)
    ctx.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_last_ten_seconds_turn_the_clock_red_and_pulse_unless_less_motion_is_asked(
        table, browser, motion):
    host, server = table
    host.start_match({"setup": {**MODES["timer"], "options": {"turn_seconds": 9}}})
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion=motion)
    page = ctx.new_page()
    page.goto(f"{server.url}/?lang=en")
    page.wait_for_selector(".turn-panel .timer.low", timeout=WAIT)
    look = page.evaluate("""() => { const t = document.querySelector('.turn-panel .timer');
        return {pulse: getComputedStyle(t).animationName,
                panel: getComputedStyle(t.closest('.turn-panel')).backgroundColor}; }""")
    red, green, blue = (int(v) for v in re.findall(r"\d+", look["panel"])[:3])
    assert red > 150 and green < 80 and blue < 80, f"the turn's panel is not red: {look}"
    assert look["pulse"] == ("none" if motion == "reduce" else "clock-pulse"), look
    ctx.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_with_no_match_the_table_view_says_the_three_ways_to_use_it_first(table, browser, lang):
    host, server = table
    host.end_match()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = ctx.new_page()
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector('.table-layout[data-game=""]', timeout=WAIT)
    uses = page.locator(".uses-panel")
    box = uses.bounding_box()
    assert uses.locator("li").count() == 3 and box["y"] < 844, box   # on the first screen
    said = uses.inner_text()
    assert (page.locator(".uses-panel a[href='/setup']").count() == 1
            and (lang == "ja") == ("タイマーのみ" in said)), said
    ctx.close()
