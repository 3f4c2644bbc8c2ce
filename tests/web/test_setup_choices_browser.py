"""The set-up page's choices in a real browser (Chromium via Playwright): every rule choice shows
its whole text in its list on a phone and a laptop, in English and Japanese; the opening card is
picked from the deck's faces (no card name typed); the Japanese page's default players have
Japanese names.
"""

from __future__ import annotations

import re

import pytest

from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

SIZES = [(360, 740), (390, 844), (768, 1024), (1366, 768)]

#: Each choice of each list in the rules and seating parts, wider than the room its list gives
#: text (its inner width, less the arrow): [] when every one fits.
CUT_CHOICES = """() => {
  const ctx = document.createElement("canvas").getContext("2d");
  const cut = [];
  for (const sel of document.querySelectorAll("#options select, #seating select")) {
    if (!sel.offsetParent) continue;
    const st = getComputedStyle(sel);
    ctx.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    const room = sel.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 20;
    for (const o of sel.options) {
      const w = ctx.measureText(o.textContent).width;
      if (w > room + 1) cut.push(`${sel.name}: "${o.textContent}" ${Math.round(w)} > ${Math.round(room)}`);
    }
  }
  for (const span of document.querySelectorAll("#options label > span")) {
    if (span.offsetParent && span.scrollWidth > span.clientWidth + 1) cut.push(span.textContent);
  }
  return cut;
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("choices") / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="choices",
                   join_token="join-me", heartbeat_s=5)
    yield host, server
    server.shutdown()


def organiser(browser, server, lang: str = "en", width: int = 390, height: int = 844):
    phone = width < 600
    page = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                               has_touch=phone, bypass_csp=True).new_page()
    page.goto(f"{server.url}/join/join-me?lang={lang}")
    page.locator("#organiser-pin").fill(server.organiser_pin)
    page.locator('.join-seat[data-seat=""]').click()
    page.wait_for_url("**/setup", timeout=WAIT)
    return page


def test_every_rule_choice_shows_its_whole_text(served, browser):
    host, server = served
    for width, height in SIZES:
        page = organiser(browser, server, "en", width, height)
        for lang in ("en", "ja"):
            page.goto(f"{server.url}/setup?lang={lang}")
            for game in ("grid", "flip", "classic", "timer", "scoreboard"):
                page.locator(f'input[name="game"][value="{game}"]').check()
                assert page.evaluate(CUT_CHOICES) == [], (width, lang, game)
        page.context.close()


def test_the_check_finds_a_cut_choice(served, browser):
    """The check above can fail: a list squeezed to 6 rem cuts "winner takes all"."""
    host, server = served
    page = organiser(browser, server, "en", 1366, 768)
    page.locator('input[name="game"][value="classic"]').check()
    page.add_style_tag(content="#options select { width: 6rem !important; min-width: 0 !important; }")
    assert any("winner takes all" in c for c in page.evaluate(CUT_CHOICES))
    page.context.close()


def test_the_opening_card_is_picked_from_the_deck(served, browser):
    host, server = served
    page = organiser(browser, server)
    page.locator('input[name="game"][value="flip"]').check()
    button = page.locator("#start-card")
    assert button.is_visible() and "red 5" in button.inner_text()
    assert page.locator('input[name="start"]').get_attribute("type") == "hidden"   # nothing typed
    button.click()
    page.locator('dialog.sheet[open] .picker-colors [data-color="blue"]').click()
    # the Light side's faces: draw-one, not draw-two
    faces = page.eval_on_selector_all("dialog.sheet[open] [data-card]", "els => els.map(e => e.dataset.card)")
    assert "blue-draw-one" in faces and "blue-draw-two" not in faces and "blue-7" in faces
    page.locator('dialog.sheet[open] [data-card="blue-7"]').click()
    page.wait_for_selector("dialog.sheet[open]", state="detached", timeout=WAIT)
    assert "blue 7" in button.inner_text()
    # the wilds too
    button.click()
    page.locator('dialog.sheet[open] .picker-colors [data-color="*"]').click()
    assert "wild" in page.eval_on_selector_all("dialog.sheet[open] [data-card]", "els => els.map(e => e.dataset.card)")
    page.keyboard.press("Escape")
    page.locator("#start-match").click()
    page.wait_for_url(server.url + "/", timeout=WAIT)
    assert host.table.setup["setup"]["start"] == "blue-7" and host.table.game.name == "flip"
    host.end_match()
    # classic has no draw-one: a Flip face is put back to one of its own
    page.goto(f"{server.url}/setup")
    page.locator('input[name="game"][value="flip"]').check()
    page.locator("#start-card").click()
    page.locator('dialog.sheet[open] .picker-colors [data-color="red"]').click()
    page.locator('dialog.sheet[open] [data-card="red-draw-one"]').click()
    page.locator('input[name="game"][value="classic"]').check()
    assert page.locator('input[name="start"]').input_value() == "red-5"
    page.context.close()


def test_the_japanese_page_names_its_default_players_in_japanese(served, browser):
    host, server = served
    page = organiser(browser, server, "ja")
    page.locator('input[name="game"][value="flip"]').check()
    names = page.locator('textarea[name="seats"]').input_value().split("\n")
    assert len(names) == 3 and not any(re.search("[A-Za-z]", n) for n in names), names
    assert not re.search("[A-Za-z]", page.locator('textarea[name="seats"]').get_attribute("placeholder"))
    # the opening card's button is in Japanese too
    assert not re.search("[A-Za-z]{3,}", page.locator("#start-card").inner_text())
    page.locator("#start-match").click()
    page.wait_for_url(server.url + "/", timeout=WAIT)
    assert list(host.table.seats) == names
    host.end_match()
    en = organiser(browser, server, "en")
    assert en.locator('textarea[name="seats"]').input_value().split("\n") == ["ann", "ben", "cai"]
    en.context.close()
    page.context.close()
