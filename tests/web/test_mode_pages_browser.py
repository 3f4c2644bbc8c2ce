"""The timer-only and scoreboard-only pages in a real browser (Debian's Chromium driven by
Playwright): the timer's table view fits a phone's width, and the scoreboard's banner says what
comes next once every seat has entered its points."""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben", "cai"], "first": "ann",
                   "options": {"turn_seconds": 45}}}
SCORES = {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"]}}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("modes") / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="modes-test",
                   join_token="join-me", heartbeat_s=5)
    yield host, server
    server.shutdown()


def phone(browser, width, height):
    return browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=2,
                               is_mobile=True, has_touch=True, bypass_csp=True).new_page()


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_the_timer_table_view_fits_a_phone_without_sideways_scrolling(served, browser, size):
    host, server = served
    host.start_match(TIMER)
    width, height = size
    page = phone(browser, width, height)
    page.goto(server.url + "/")
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    page.wait_for_selector(".timer-board .clock", timeout=WAIT)
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page is {scroll} px wide on a {width} px phone"
    ring = page.locator(".timer-board .clock").bounding_box()
    assert ring["x"] >= 0 and ring["x"] + ring["width"] <= width, ring  # the whole ring shows
    page.context.close()


def test_the_scoreboard_banner_says_the_round_is_to_close_once_every_seat_entered(served, browser):
    host, server = served
    table = host.start_match(SCORES)
    for seat, points in (("ann", 0), ("ben", 12), ("cai", 30)):
        assert table.act({"by": seat, "do": "score", "points": points}, source="test").ok
    page = phone(browser, 390, 844)
    page.goto(f"{server.url}/join/join-me")
    page.locator('.join-seat[data-seat="ben"]').click()
    page.wait_for_url("**/seat/ben", timeout=WAIT)
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    page.wait_for_selector(".sb-table", timeout=WAIT)
    banner = page.locator("#banner-text").inner_text()
    assert banner == "Everyone has entered: the winner closes the round.", banner
    assert not page.locator('[data-do="won"]').is_disabled()   # whoever won closes it here
    page.context.close()
