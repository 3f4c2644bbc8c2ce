"""A board that fits, in a real browser (Debian's Chromium, driven by Playwright): no card text
clipped on a phone, a tablet, a laptop or a TV; cards that grow on a TV; a phone's grid cells
that are buttons of 44 px or more, reached by keyboard; row and column numbers that match the
coordinates of the event sentences; a colour cue besides the colour that the pawn does not cover;
"your turn" said in a live region; and no pulse when the phone asks for less motion.

One server and one Chromium for the module, in the ``browser`` xdist group (see
tests/web/test_pages_browser.py). ``scripts/screenshots.py`` writes the same pages to ``artifacts/``.
"""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from web import serve

SIZES = [(390, 844), (768, 1024), (1366, 768), (1920, 1080)]


pytestmark = pytest.mark.slow

#: The widest faces ("W+4", "+2", "⊘") and the longest names ("wild draw four"), red and green
#: side by side, the pawn on a green card.
GRID = [["wild-draw-four", "red-draw-two", "green-draw-two", "blue-skip", "yellow-reverse"],
        ["red-7", "green-7", "wild", "yellow-draw-two", "blue-reverse"],
        ["green-skip", "red-skip", "green-3", "wild-draw-four", "red-0"],
        ["yellow-1", "red-3", "blue-9", "green-reverse", "yellow-8"],
        ["blue-draw-two", "green-9", "red-reverse", "yellow-skip", "wild"]]
GRID_SETUP = {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                        "grid": GRID, "options": {"turn_seconds": 0}}}
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                  "start": "red-draw-one", "options": {"turn_seconds": 0}}}

#: Every card part drawn outside its card's inner box (clipped by its overflow: hidden), or
#: wider than itself: [] when everything fits.
CLIPPED = """(scope) => {
  const bad = [];
  for (const card of document.querySelectorAll(scope + " .card")) {
    const b = card.getBoundingClientRect();
    if (!b.width) continue;
    const left = b.left + card.clientLeft, top = b.top + card.clientTop;
    const right = left + card.clientWidth, bottom = top + card.clientHeight;
    for (const part of card.querySelectorAll(".face, .cname, .corner")) {
      if (getComputedStyle(part).display === "none") continue;
      const r = part.getBoundingClientRect();
      if (r.left < left - 0.5 || r.right > right + 0.5 || r.top < top - 0.5 || r.bottom > bottom + 0.5
          || part.scrollWidth > part.clientWidth + 1)
        bad.push(`${card.getAttribute("aria-label")}: ${part.className} "${part.textContent}"`
                 + ` ${Math.round(r.width)}x${Math.round(r.height)} in ${card.clientWidth}x${card.clientHeight}`);
    }
  }
  return bad;
}"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("fit") / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="fit", join_token="join-me",
                   heartbeat_s=5, phones_per_seat=8)
    yield host, server
    server.shutdown()


def _context(browser, width, height, **extra):
    phone = width < 600
    return browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True,
                               device_scale_factor=2 if phone else 1, is_mobile=phone,
                               has_touch=phone, **extra)


def _seat_phone(browser, server, seat, lang="en", **extra):
    page = _context(browser, 390, 844, **extra).new_page()
    page.goto(f"{server.url}/join/join-me?lang={lang}")
    page.locator(f'.join-seat[data-seat="{seat}"]').click()
    page.wait_for_url(f"**/seat/{seat}")
    page.wait_for_selector("#pile button.cell", timeout=WAIT)
    return page


def test_no_card_text_is_clipped_and_cards_grow_on_a_tv(table, browser):
    host, server = table
    widths = {}
    # one page a screen size for both games (a new context is a CPU-second of Chromium)
    pages = {(width, height): _context(browser, width, height).new_page() for width, height in SIZES}
    for game, setup in (("grid", GRID_SETUP), ("flip", FLIP)):
        host.start_match(setup)
        for width, height in SIZES:
            page = pages[width, height]
            for lang in ("en", "ja"):
                page.goto(f"{server.url}/?lang={lang}")
                page.wait_for_selector("#board .card", timeout=WAIT)
                assert page.evaluate(CLIPPED, "#board") == [], (game, width, lang)
                # nothing wider than the screen (a page that scrolls sideways hides the board)
                assert page.evaluate("document.documentElement.scrollWidth") <= width
            widths[game, width] = page.evaluate(
                "Math.min(...[...document.querySelectorAll('#board .card')]"
                ".map(c => c.getBoundingClientRect().width))")
    for page in pages.values():
        page.context.close()
    # a TV shows big cards: a grid card over 100 px wide, the pile's top card over 180 px
    assert widths["grid", 1920] >= 100 and widths["flip", 1920] >= 180, widths
    assert widths["grid", 1920] > widths["grid", 1366]
    # and the phone's own board: the seat page's grid (the compact cards)
    host.start_match(GRID_SETUP)
    phone = _seat_phone(browser, server, "north")
    assert phone.evaluate(CLIPPED, "#pile") == []
    phone.context.close()


def test_the_check_finds_clipped_text(table, browser):
    """The fit check above can fail: a card squeezed to 30 px clips its face."""
    host, server = table
    host.start_match(GRID_SETUP)
    page = _context(browser, 1366, 768).new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#board .card")
    page.add_style_tag(content=".board-panel .grid5 { max-width: 200px !important; min-width: 0 !important; }"
                               " .card .face { font-size: 2rem !important; }")
    assert page.evaluate(CLIPPED, "#board") != []
    page.context.close()


CELL_SIZES = ("[...document.querySelectorAll('#pile .cell')].map(c => {"
              " const r = c.getBoundingClientRect(); return [r.width, r.height]; })")


def test_phone_cells_are_big_buttons_reached_by_keyboard(table, browser):
    host, server = table
    host.start_match(GRID_SETUP)
    # a narrow Android phone too: 44 px cells and still no sideways scrolling
    narrow = _context(browser, 360, 740).new_page()
    narrow.goto(f"{server.url}/seat/north")
    narrow.wait_for_selector("#pile .cell", timeout=WAIT)
    assert min(min(w, h) for w, h in narrow.evaluate(CELL_SIZES)) >= 44
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 360
    narrow.context.close()
    page = _seat_phone(browser, server, "north")
    page.wait_for_selector("#pile .cell.target", timeout=WAIT)
    sizes = page.evaluate(CELL_SIZES)
    assert len(sizes) == 49 and min(min(w, h) for w, h in sizes) >= 44, sizes
    assert page.locator("#pile button.cell:not(.exit)").count() == 25      # every card a button
    # by keyboard alone: Tab to the first cell, Enter opens what can be done there
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#pile button.cell')"):
            break
    else:
        raise AssertionError("Tab never reached a cell of the board")
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label.startswith("cell (0, 0): ") and "wild draw four" in label
    page.keyboard.press("Enter")
    page.wait_for_selector("dialog.sheet[open]")
    assert "(0, 0)" in page.locator("dialog.sheet h3").inner_text()
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.sheet[open]", state="detached")
    page.context.close()


@pytest.mark.parametrize("lang, red, green", [("en", "▲R", "■G"), ("ja", "▲赤", "■緑")])
def test_row_and_column_numbers_and_a_colour_cue_the_pawn_leaves_free(table, browser, lang, red,
                                                                      green):
    host, server = table
    host.start_match(GRID_SETUP)
    page = _seat_phone(browser, server, "north", lang)
    # the event sentence says (row, column): the cell at (3, 1) is under column 1, beside row 3
    geometry = page.evaluate("""() => {
      const box = (el) => el.getBoundingClientRect();
      const cell = box(document.querySelector('#pile [data-cell="3,1"]'));
      const find = (cls, n) => [...document.querySelectorAll('#pile .axis.' + cls)].find(a => a.textContent === n);
      const row = box(find('row', '3')), col = box(find('col', '1'));
      return { rowMid: (row.top + row.bottom) / 2, colMid: (col.left + col.right) / 2,
               top: cell.top, bottom: cell.bottom, left: cell.left, right: cell.right };
    }""")
    assert geometry["top"] < geometry["rowMid"] < geometry["bottom"], geometry
    assert geometry["left"] < geometry["colMid"] < geometry["right"], geometry
    # red and green differ by more than their colour: a symbol and a letter in the corner
    assert page.locator('[data-cell="1,0"] .corner').inner_text().replace("\n", "") == red
    assert page.locator('[data-cell="1,1"] .corner').inner_text().replace("\n", "") == green
    # ... which the pawn (on the green 3 at (2, 2)) does not cover
    overlap = page.evaluate("""() => {
      const c = document.querySelector('#pile [data-cell="2,2"] .corner').getBoundingClientRect();
      const p = document.querySelector('#pile [data-cell="2,2"] .pawn').getBoundingClientRect();
      return Math.max(0, Math.min(c.right, p.right) - Math.max(c.left, p.left))
           * Math.max(0, Math.min(c.bottom, p.bottom) - Math.max(c.top, p.top));
    }""")
    assert overlap == 0
    page.context.close()


def test_your_turn_is_said_in_a_live_region(table, browser):
    host, server = table
    host.start_match(GRID_SETUP)
    south = _seat_phone(browser, server, "south")
    live = south.locator("#turn-live")
    assert live.get_attribute("aria-live") == "assertive" and live.inner_text() == ""
    move = next(a for a in host.table.legal_actions() if a.by == "north" and a.do == "move")
    assert host.table.act(move, source="test").ok
    south.wait_for_function("document.querySelector('#turn-live').textContent === 'Your turn, south!'",
                            timeout=WAIT)
    south.context.close()


@pytest.mark.parametrize("motion, animation", [("reduce", "none"), ("no-preference", "pulse")])
def test_the_turn_banner_pulses_only_when_motion_is_welcome(table, browser, motion, animation):
    host, server = table
    host.start_match(GRID_SETUP)
    page = _seat_phone(browser, server, "north", reduced_motion=motion)
    page.wait_for_selector('#banner[data-mine="yes"]', timeout=WAIT)
    assert page.evaluate("getComputedStyle(document.querySelector('#banner')).animationName") \
        == animation
    page.context.close()
