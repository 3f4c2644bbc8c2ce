"""The organiser in a real browser (Chromium, Playwright, the real waitress server on 127.0.0.1):
the table screen on this machine shows the organiser PIN, the join page takes it (a wrong one is
refused in words), and the set-up page lists the joined phones and removes one, which is then
logged out."""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "bypass_csp": True}  # CSP blocks the eval of wait_for_function
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 90}}}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    host = Host(EventLog(tmp_path_factory.mktemp("web") / "log.db"))
    host.start_match(FLIP)
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="phones", join_token="join-me",
                   heartbeat_s=5)
    yield host, server
    server.shutdown()


def test_the_pin_on_the_table_screen_lets_the_organiser_in_and_a_stranger_is_removed(table, browser):
    host, server = table
    tv = browser.new_context().new_page()
    tv.goto(server.url + "/")
    shown = tv.locator(".organiser-pin strong").inner_text()
    assert shown == server.organiser_pin
    tv.context.close()

    stranger = browser.new_context(**PHONE).new_page()
    stranger.goto(f"{server.url}/join/join-me")
    stranger.locator('.join-seat[data-seat="ann"]').click()
    stranger.wait_for_url("**/seat/ann")

    org = browser.new_context(**PHONE).new_page()
    org.goto(f"{server.url}/join/join-me")
    org.locator("#organiser-pin").fill("000000" if shown != "000000" else "111111")
    org.locator('.join-seat[data-seat=""]').click()
    org.wait_for_selector("#toast.bad:not([hidden])", timeout=WAIT)
    assert "not the organiser PIN" in org.locator("#toast").inner_text()
    assert "/join/" in org.url
    org.locator("#organiser-pin").fill(shown)
    org.locator('.join-seat[data-seat=""]').click()
    org.wait_for_url("**/setup")
    row = org.locator('.phone-row:has(button[data-remove])')
    row.first.wait_for(timeout=WAIT)
    assert row.count() == 1 and "ann" in row.inner_text() and "127.0.0.1" in row.inner_text()
    row.locator("button[data-remove]").click()
    org.locator(".sheet [data-yes]").click()
    org.wait_for_function("!document.querySelector('.phone-row button[data-remove]')", timeout=WAIT)
    state = stranger.evaluate("fetch('/api/state').then(r => r.json())")
    assert state["me"] == {"joined": False, "seat": None}
    org.context.close()
    stranger.context.close()
