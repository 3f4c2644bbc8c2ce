"""The join page says, on each seat's button, where the seat sits and whether a phone holds it
("taken" or "free", never which phone), in a real browser (Chromium via Playwright); a wrong join
code shows no seats at all.
"""

from __future__ import annotations

import pytest

from companion.decks import classic_deck
from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True, "bypass_csp": True}
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}},
        "seating": {"ann": "south", "ben": "west", "cai": "north"}}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("join") / "log.db"))
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="join", join_token="join-me",
                   heartbeat_s=5)
    yield host, server
    server.shutdown()


def seat_buttons(page) -> dict[str, str]:
    return {b.get_attribute("data-seat"): " ".join(b.inner_text().split())
            for b in page.locator(".join-seat[data-seat]:not([data-seat=''])").all()}


def test_the_join_page_says_where_each_seat_sits_and_which_are_taken(table, browser):
    host, server = table
    host.start_match(FLIP)
    ann = browser.new_context(**PHONE).new_page()
    ann.goto(f"{server.url}/join/join-me")
    assert seat_buttons(ann) == {"ann": "ann sits south free", "ben": "ben sits west free",
                                 "cai": "cai sits north free"}
    ann.locator('.join-seat[data-seat="ann"]').click()
    ann.wait_for_url("**/seat/ann", timeout=WAIT)
    # the next phone sees ann's seat taken
    ben = browser.new_context(**PHONE).new_page()
    ben.goto(f"{server.url}/join/join-me?lang=ja")
    assert seat_buttons(ben) == {"ann": "ann 南側 使用中", "ben": "ben 西側 空き", "cai": "cai 北側 空き"}
    assert ben.locator('.join-seat[data-seat="ann"]').get_attribute("data-taken") == "yes"
    # a wrong code: no seats, nothing about them
    ben.goto(f"{server.url}/join/wrong")
    assert ben.locator(".join-seat").count() == 0
    assert "使用中" not in ben.locator("main").inner_text()
    ann.context.close()
    ben.context.close()


def test_grid_sides_are_the_seats_themselves_and_the_timer_has_none(table, browser):
    host, server = table
    deck = [card.name for card in classic_deck()][:25]
    host.start_match({"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                                "grid": [deck[r * 5:r * 5 + 5] for r in range(5)],
                                "options": {"turn_seconds": 0}}})
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server.url}/join/join-me")
    assert seat_buttons(page) == {"north": "north free", "south": "south free"}
    # the timer has no camera: no sides, only taken or free
    host.start_match({"setup": {"game": "timer", "seats": ["ann", "ben"], "first": "ann"}})
    page.goto(f"{server.url}/join/join-me")
    assert seat_buttons(page) == {"ann": "ann free", "ben": "ben free"}
    page.context.close()
