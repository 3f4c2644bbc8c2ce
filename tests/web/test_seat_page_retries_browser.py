"""The seat page in a real browser (Debian's Chromium, Playwright) against the real server: a tap
whose answer is lost on the way is sent again with the same ``Idempotency-Key`` and applied once,
and an undo names the action the page shows."""

from __future__ import annotations

import json

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "bypass_csp": True}
TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben", "cai"], "first": "ann",
                   "options": {"turn_seconds": 0}}}


@pytest.fixture
def table(tmp_path):
    host = Host(EventLog(tmp_path / "log.db"))
    host.start_match(TIMER)
    server = serve(host, "127.0.0.1", 0, block=False, secret_key="browser-test",
                   join_token="join-me", heartbeat_s=5)
    yield host, server
    server.shutdown()


def join(browser, server, seat):
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server.url}/join/join-me")
    page.locator(f'.join-seat[data-seat="{seat}"]').click()
    page.wait_for_url(f"**/seat/{seat}")
    page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    return page


def test_a_tap_whose_answer_is_lost_is_sent_again_with_its_key_and_applied_once(table, browser):
    host, server = table
    ann = join(browser, server, "ann")
    sent = []

    def lose_the_first_answer(route):
        sent.append(route.request.headers.get("idempotency-key"))
        if len(sent) == 1:
            route.fetch()                        # the table gets it and answers ...
            route.abort("connectionreset")       # ... and the answer never arrives
        else:
            route.continue_()

    ann.route("**/api/action", lose_the_first_answer)
    ann.get_by_role("button", name="End my turn").click()
    for _ in range(100):                         # the retry goes half a second later
        if len(sent) == 2:
            break
        ann.wait_for_timeout(100)
    ann.wait_for_timeout(300)
    assert len(sent) == 2 and sent[0] and sent[0] == sent[1], sent
    assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
    assert ann.locator("#toast.bad").count() == 0 or ann.locator("#toast.bad").is_hidden()
    # a new tap is a new key
    ann.unroute("**/api/action")
    ben = join(browser, server, "ben")
    keys = []
    ben.on("request", lambda r: keys.append(r.headers.get("idempotency-key"))
           if r.url.endswith("/api/action") else None)
    ben.get_by_role("button", name="End my turn").click()
    ben.wait_for_function("document.querySelector('#banner').dataset.mine === 'no'", timeout=WAIT)
    assert len(keys) == 1 and keys[0] not in sent
    assert len(host.table.actions_taken()) == 2


def test_the_undo_buttons_name_the_action_shown(table, browser):
    host, server = table
    host.table.act({"by": "ann", "do": "pass"})
    ann = join(browser, server, "ann")
    ben = join(browser, server, "ben")
    seq = host.table.last_seq
    bodies = []
    for page in (ann, ben):
        page.on("request", lambda r: bodies.append(json.loads(r.post_data or "{}"))
                if r.url.endswith("/api/undo") else None)
    ann.locator('[data-undo="ask"]').click()
    ben.wait_for_selector('[data-undo="agree"]', timeout=WAIT)
    ben.locator('[data-undo="agree"]').click()
    ben.wait_for_selector('[data-undo="agree"]', state="detached", timeout=WAIT)
    assert bodies == [{"seq": seq}, {"seq": seq}]
    assert host.table.actions_taken() == []
    # nothing left to take back: no undo button
    ann.wait_for_selector('[data-undo]', state="detached", timeout=WAIT)
