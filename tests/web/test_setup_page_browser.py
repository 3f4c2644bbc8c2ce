"""The set-up page in a real browser (Debian's Chromium driven by Playwright): ending the match
being played is apart from starting one, and both ask before a match is ended."""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben"], "first": "ann"}}


@pytest.fixture()
def served(tmp_path):
    host = Host(EventLog(tmp_path / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="setup-test",
                   join_token="join-me", heartbeat_s=5)
    yield host, server
    server.shutdown()


def organiser(browser, server):
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                               has_touch=True, bypass_csp=True).new_page()
    page.goto(f"{server.url}/join/join-me")
    page.locator("#organiser-pin").fill(server.organiser_pin)
    page.locator('.join-seat[data-seat=""]').click()
    page.wait_for_url("**/setup", timeout=WAIT)
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    return page


def test_end_the_match_is_apart_from_start_and_both_ask_before_ending_one(served, browser):
    host, server = served
    table = host.start_match(TIMER)
    page = organiser(browser, server)
    page.wait_for_selector("#match-now:not([hidden])", timeout=WAIT)
    start, end = page.locator("#start-match"), page.locator("#end-match")
    # not a neighbour of "Start the match": out of its form and row, well below it
    assert page.evaluate("!document.querySelector('#end-match').closest('form')")
    a, b = start.bounding_box(), end.bounding_box()
    assert b["y"] - (a["y"] + a["height"]) >= 40, (a, b)
    # starting a new match while one plays asks first; Esc keeps the match
    start.click()
    page.wait_for_selector("dialog.sheet[open]", timeout=WAIT)
    assert "a new one ends it" in page.locator("dialog.sheet h3").inner_text()
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.sheet[open]", state="detached", timeout=WAIT)
    assert host.table is table
    # ending asks too; yes ends it, and the part is gone until a match plays again
    end.click()
    page.locator("dialog.sheet[open] [data-yes]").click()
    page.wait_for_selector("#match-now", state="hidden", timeout=WAIT)
    assert host.table is None
    start.click()                       # nothing to end: no question
    page.wait_for_url(server.url + "/", timeout=WAIT)
    assert host.table is not None and host.table is not table
    page.context.close()


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_setup_pages_default_seating_is_the_tables(served, browser, n):
    """The side each seat is offered by default is where the table seats it when nobody
    changes it (companion.seating: the LEDs, the camera's arms)."""
    from companion.seating import Seating

    host, server = served
    page = organiser(browser, server)
    page.locator('input[name="game"][value="classic"]').check(force=True)
    seats = [f"p{i}" for i in range(1, n + 1)]
    page.locator('textarea[name="seats"]').fill("\n".join(seats))
    page.wait_for_function(f"document.querySelectorAll('select[name=seat-side]').length === {n}",
                           timeout=WAIT)
    offered = page.locator('select[name="seat-side"] option:first-child').all_inner_texts()
    for seat, text in zip(seats, offered):
        side = Seating.default(seats).side_of(seat)
        assert side in text, f"{seat}: the page offers {text!r}, the table seats it {side}"
    page.context.close()
