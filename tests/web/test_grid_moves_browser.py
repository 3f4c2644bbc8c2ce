"""The grid game's legal moves on the pages, in a real browser (Chromium via Playwright): a joined
phone marks the pawn's legal steps (a dot in the cell) and the cells it may play on (a small dot),
from GET /api/legal; the off-board arrows point off their own edge; a tap off the board asks
before the pawn leaves (that ends the game); each phone can turn the board so that its own side
is at the bottom, and remembers it; the table view shows a large pawn and its legal steps.
"""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT, boxes
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True, "bypass_csp": True}
#: The classic deck's 25 red cards: any step matches, so the pawn goes where the test says (the
#: numbers first: the pawn lands on no action card).
_RED = ["red-0"] + [f"red-{n}" for n in range(1, 10)] * 2 + ["red-skip", "red-reverse", "red-draw-two"] * 2
GRID = [_RED[r * 5:r * 5 + 5] for r in range(5)]
SETUP = {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north", "grid": GRID,
                   "options": {"turn_seconds": 0}}}
ARROWS = {(-1, -1): "↖", (-1, 0): "↑", (-1, 1): "↗", (0, -1): "←", (0, 1): "→",
          (1, -1): "↙", (1, 0): "↓", (1, 1): "↘"}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("moves") / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="moves", join_token="join-me",
                   heartbeat_s=5, phones_per_seat=8)
    yield host, server
    server.shutdown()


def phone(browser, server, seat: str):
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server.url}/join/join-me")
    page.locator(f'.join-seat[data-seat="{seat}"]').click()
    page.wait_for_url(f"**/seat/{seat}")
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    return page


def legal(host, seat: str) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """(the pawn's steps, the cells a card may be played on) the rules allow ``seat`` now."""
    acts = [a.to_json() for a in host.table.legal_actions() if a.by == seat]
    return ({tuple(a["to"]) for a in acts if a["do"] == "move"},
            {tuple(a["cell"]) for a in acts if a["do"] == "play"})


def cells(page, selector: str) -> set[tuple[int, int]]:
    keys = page.eval_on_selector_all(selector, "els => els.map(e => e.closest('[data-cell]').dataset.cell)")
    return {tuple(int(x) for x in key.split(",")) for key in keys}


def to_border(host) -> None:
    """North steps the pawn to (1, 2), south to (0, 2): north's turn, the pawn on the north edge."""
    for seat, to in (("north", [1, 2]), ("south", [0, 2])):
        assert host.table.act({"by": seat, "do": "move", "to": to}, source="test").ok


def test_the_phone_marks_the_legal_steps_and_the_cells_to_play_on(table, browser):
    host, server = table
    host.start_match(SETUP)
    north = phone(browser, server, "north")
    steps, plays = legal(host, "north")
    north.wait_for_selector("#pile .step-dot", timeout=WAIT)
    assert cells(north, "#pile .step-dot") == steps and len(steps) >= 3
    assert cells(north, "#pile .play-dot") == plays and (2, 2) not in plays  # not the pawn's cell
    # a dot is drawn on its cell, clear of the card's face
    first = "#pile .cell.target"
    dot, cell, face = boxes(north, f"{first} .step-dot", first, f"{first} .face")
    assert cell["x"] <= dot["x"] and dot["x"] + dot["width"] <= cell["x"] + cell["width"]
    assert dot["y"] >= face["y"] + face["height"] or dot["x"] + dot["width"] <= face["x"], (dot, face)
    # the other seat, not on turn, sees no moves
    south = phone(browser, server, "south")
    south.wait_for_selector("#pile button.cell", timeout=WAIT)
    assert south.locator("#pile .step-dot, #pile .play-dot").count() == 0
    assert south.locator("#turn-board").is_hidden()          # south is at the bottom already
    south.context.close()
    north.context.close()


def test_the_arrows_point_off_their_edge_and_leaving_the_board_is_asked_first(table, browser):
    host, server = table
    host.start_match(SETUP)
    to_border(host)
    north = phone(browser, server, "north")
    north.wait_for_selector("#pile button.cell.exit.target", timeout=WAIT)
    exits = north.locator("#pile button.cell.exit.target")
    assert exits.count() == 3                          # (-1, 1), (-1, 2), (-1, 3)
    assert set(exits.all_inner_texts()) == {"↑"}       # off the top edge, every one
    # the whole ring: each ring cell's arrow (drawn on the targets) matches its edge
    ring = north.eval_on_selector_all(
        "#pile .cell.exit", "els => els.map(e => [e.dataset.cell, e.textContent.trim()])")
    for key, text in ring:
        if not text:
            continue
        r, c = (int(x) for x in key.split(","))
        assert text == ARROWS[(-1 if r < 0 else 1 if r > 4 else 0, -1 if c < 0 else 1 if c > 4 else 0)]
    north.locator('#pile button.cell.exit[data-cell="-1,2"]').click()
    north.wait_for_selector("dialog.sheet[open] [data-yes]", timeout=WAIT)
    assert "off the board" in north.locator("dialog.sheet[open]").inner_text()
    north.locator("dialog.sheet[open] [data-cancel]").click()
    assert host.table.state_json()["pawn"] == [0, 2] and not host.table.state_json()["over"]
    north.locator('#pile button.cell.exit[data-cell="-1,2"]').click()
    north.locator("dialog.sheet[open] [data-yes]").click()
    north.wait_for_function("document.querySelector('#banner-text').textContent !== 'Your turn!'",
                            timeout=WAIT)
    state = host.table.state_json()
    assert state["over"] and state["winners"] == ["north"]
    north.context.close()


def test_a_phone_turns_the_board_to_put_its_side_at_the_bottom(table, browser):
    host, server = table
    host.start_match(SETUP)
    to_border(host)
    north = phone(browser, server, "north")
    north.wait_for_selector("#pile button.cell.exit.target", timeout=WAIT)
    first = "document.querySelector('#pile .grid7 [data-cell]').dataset.cell"
    assert north.evaluate(first) == "-1,-1"
    assert north.locator("#pile .side.s .side-tag").inner_text() == "south"
    turn = north.locator("#turn-board")
    assert turn.is_visible() and turn.get_attribute("aria-pressed") == "false"
    turn.click()
    north.wait_for_function(f"{first} === '5,5'", timeout=WAIT)
    assert turn.get_attribute("aria-pressed") == "true"
    assert north.locator("#pile .side.s .side-tag").inner_text() == "north"
    assert north.locator("#pile .side.n .side-tag").inner_text() == "south"
    # the north edge is at the bottom now: its exits point down, and still leave north
    assert set(north.locator("#pile button.cell.exit.target").all_inner_texts()) == {"↓"}
    # the rows are numbered as the board's: row 4 at the top now
    rows = north.eval_on_selector_all("#pile .axis.row", "els => els.map(e => e.textContent)")
    assert rows == ["", "4", "3", "2", "1", "0", ""]
    # remembered by this phone, for this seat
    north.reload()
    north.wait_for_selector("#pile button.cell.exit.target", timeout=WAIT)
    assert north.evaluate(first) == "5,5"
    # and an east seat turns the board a quarter: east at the bottom
    host.start_match({"setup": {**SETUP["setup"], "seats": ["north", "east"]}})
    east = phone(browser, server, "east")
    east.wait_for_selector("#pile button.cell", timeout=WAIT)
    east.locator("#turn-board").click()
    east.wait_for_function("document.querySelector('#pile .side.s .side-tag').textContent === 'east'",
                           timeout=WAIT)
    assert east.locator("#pile .side.w .side-tag").inner_text() == "south"
    # the board's bottom row (above the ring) is the east column, from its south end on the left
    bottom = east.eval_on_selector_all("#pile .grid7 [data-cell]", "els => els.slice(-13, -8).map(e => e.dataset.cell)")
    assert bottom == ["4,4", "3,4", "2,4", "1,4", "0,4"]
    east.context.close()
    north.context.close()


def test_the_table_view_shows_a_large_pawn_and_its_legal_steps(table, browser):
    host, server = table
    host.start_match(SETUP)
    to_border(host)
    tv = browser.new_context(viewport={"width": 1920, "height": 1080}, bypass_csp=True).new_page()
    tv.goto(server.url + "/")
    tv.wait_for_selector("#board .cell.target", timeout=WAIT)
    steps, _ = legal(host, "north")
    on_board = {s for s in steps if 0 <= s[0] <= 4 and 0 <= s[1] <= 4}
    assert cells(tv, "#board .cell.target") == on_board
    assert cells(tv, "#board .step-dot") == on_board
    # the steps off the board: arrows on the pawn's cell, pointing off the north edge
    assert sorted(tv.locator("#board .exit-step").all_inner_texts()) == sorted(["↖", "↑", "↗"])
    pawn, cell = boxes(tv, "#board .pawn", "#board .cell.has-pawn")
    assert pawn["width"] >= 0.45 * cell["width"] and pawn["width"] >= 48, (pawn, cell)
    # the turn moves on: south's steps
    assert host.table.act({"by": "north", "do": "move", "to": [1, 1]}, source="test").ok
    tv.wait_for_function("document.querySelector('#board .cell.has-pawn').dataset.cell === '1,1'",
                         timeout=WAIT)
    steps, _ = legal(host, "south")
    tv.wait_for_function(f"document.querySelectorAll('#board .cell.target').length === {len(steps)}",
                         timeout=WAIT)
    assert cells(tv, "#board .cell.target") == steps
    tv.context.close()
