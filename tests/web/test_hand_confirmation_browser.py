"""The phone's confirmation of a hand read by camera, in a real browser (Chromium, Playwright,
the real waitress server): one phone confirms what the camera read, the other corrects a misread
with the card picker, and only then does the round's score count."""

from __future__ import annotations

import pytest

from companion.cards import CLASSIC
from companion.eventlog import EventLog
from companion.host import Host

from tests.support.browser import WAIT
from tests.support.hands import round_to_show
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "bypass_csp": True}  # CSP blocks the eval of wait_for_function


def phone(browser, server, seat):
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/join/join-me")
    page.locator(f'.join-seat[data-seat="{seat}"]').click()
    page.wait_for_url(f"**/seat/{seat}")
    return page


def _served(tmp_path):
    """A table host and its real server, on a free port."""
    host = Host(EventLog(tmp_path / "log.db"))
    return host, serve(host, "127.0.0.1", 0, block=False, secret_key="hands", join_token="join-me",
                       heartbeat_s=5)


def points(cards):
    return sum(CLASSIC.points(CLASSIC.parse(c)) for c in cards)


def test_a_phone_confirms_the_hand_read_and_another_corrects_a_misread(browser, tmp_path):
    host, server = _served(tmp_path)
    try:
        hands = round_to_show(host, "classic", seed=1)
        (good, good_cards), (bad, bad_cards) = list(hands.items())[:2]
        winner = host.table.state_json()["winners"][0]
        before = host.table.state_json()["scores"][winner]
        pages = {seat: phone(browser, server, seat) for seat in (good, bad)}
        # the camera reads one hand right and misreads the other's first card as a wild
        host.hands.propose(good, [{"label": c, "confidence": 0.95} for c in good_cards])
        misread = ["wild"] + bad_cards[1:]
        host.hands.propose(bad, [{"label": c, "confidence": 0.9} for c in misread])
        page = pages[good]
        page.wait_for_selector(".hand-read .hand-card", timeout=WAIT)
        assert len(good_cards) <= 10 and page.locator("[data-in-parts]").count() == 0
        shown = page.locator(".hand-card").evaluate_all("els => els.map(e => e.dataset.label)")
        assert shown == good_cards
        total = page.locator(".hand-total[data-total]").get_attribute("data-total")
        assert int(total) == points(good_cards)
        assert host.table.state_json()["scores"][winner] == before     # not counted yet
        page.locator('[data-do="hand-confirm"]').click()
        page.wait_for_selector(".hand-read", state="detached", timeout=WAIT)
        # the other phone corrects the misread: the picker opens with what was read
        page = pages[bad]
        page.wait_for_selector(".hand-read .hand-card", timeout=WAIT)
        page.locator('[data-do="hand-correct"]').click()
        page.wait_for_selector(".hand-list [data-remove]", timeout=WAIT)   # the picker drawn
        listed = page.locator(".hand-list [data-remove]")
        assert listed.count() == len(misread)
        listed.first.click()                                            # drop the wild
        color, _, face = bad_cards[0].partition("-")
        page.locator(f'.picker-colors [data-color="{color}"]').click()
        page.locator(f'.picker-faces [data-card="{bad_cards[0]}"]').click()
        page.locator("[data-send]").click()
        page.wait_for_selector(".hand-read", state="detached", timeout=WAIT)
        shown_so_far = {good: good_cards, bad: bad_cards}
        for seat, cards in hands.items():                              # any other loser types theirs
            if seat not in shown_so_far:
                assert host.table.act({"do": "show", "by": seat, "cards": cards}).ok
        after = host.table.state_json()["scores"][winner]
        assert after == before + sum(points(c) for c in hands.values())
        for p in pages.values():
            p.context.close()
    finally:
        server.shutdown()


def test_another_seat_confirming_leaves_the_buttons_under_a_finger_in_place(browser, tmp_path):
    """A state that leaves a phone's prompt as it was (another seat confirms its hand) does not
    draw the prompt again: its buttons stay the same elements, so a tap that lands as the update
    arrives is not lost (it was, under load: the correct button swapped mid-tap, no picker)."""
    host, server = _served(tmp_path)
    try:
        hands = round_to_show(host, "classic", seed=1)
        (good, good_cards), (bad, bad_cards) = list(hands.items())[:2]
        page = phone(browser, server, bad)
        host.hands.propose(good, [{"label": c, "confidence": 0.95} for c in good_cards])
        host.hands.propose(bad, [{"label": c, "confidence": 0.9} for c in bad_cards])
        page.wait_for_function(f"() => App.state && (App.state.hand_reads || {{}})[{good!r}]", timeout=WAIT)
        page.wait_for_selector(".hand-read .hand-card", timeout=WAIT)
        button = page.locator('[data-do="hand-correct"]').element_handle()
        assert host.table.act({"do": "show", "by": good, "cards": good_cards}).ok
        page.wait_for_function(f"() => !(App.state.hand_reads || {{}})[{good!r}]", timeout=WAIT)
        assert button.evaluate("b => b.isConnected")
        button.click()
        page.wait_for_selector(".hand-list [data-remove]", timeout=WAIT)   # the picker drawn
        page.context.close()
    finally:
        server.shutdown()


def test_a_phone_reads_a_hand_too_large_for_its_zone_in_parts(browser, tmp_path):
    """The first cards read are kept, the next read after them: the phone shows them all, the
    total of all, and confirms the whole hand; "Start again" drops what was kept."""
    host, server = _served(tmp_path)
    try:
        hands = round_to_show(host, "classic", seed=1)
        seat, cards = max(hands.items(), key=lambda kv: len(kv[1]))
        first, rest = cards[:len(cards) // 2], cards[len(cards) // 2:]
        parts = iter([first, rest])
        # the camera, asked for the next part, reads it
        host.hands.on_scan = lambda seats: host.hands.propose(seat, [{"label": c} for c in next(parts)])
        shown = []
        host.bus.subscribe(shown.append, {"hand-shown"})
        page = phone(browser, server, seat)
        assert len(cards) > 10                                  # more than a zone holds: in parts
        page.wait_for_selector("[data-in-parts]", timeout=WAIT)
        for attempt in ("dropped", "kept"):
            host.hands.propose(seat, [{"label": c, "confidence": 0.9} for c in first])
            page.wait_for_selector('.hand-read [data-do="hand-keep"]', timeout=WAIT)
            assert page.locator('[data-do="hand-confirm"]').is_disabled()   # not the whole hand
            page.locator('[data-do="hand-keep"]').click()
            page.wait_for_selector(f'.hand-read[data-kept="{len(first)}"] [data-do="hand-drop"]', timeout=WAIT)
            assert page.locator('[data-do="hand-keep"]').count() == 0
            assert page.locator(".hand-card.kept").count() == len(first)
            if attempt == "dropped":
                page.locator('[data-do="hand-drop"]').click()
                page.locator("dialog.sheet [data-yes]").click()
                page.wait_for_selector(".hand-read .hand-card", state="detached", timeout=WAIT)
                assert host.hands.get(seat) is None
                parts = iter([rest])
        page.locator('[data-do="hand-rescan"]').click()                      # "Read the next cards"
        page.wait_for_selector(f'.hand-read .hand-card >> nth={len(cards) - 1}', timeout=WAIT)
        labels = page.locator(".hand-card").evaluate_all("els => els.map(e => e.dataset.label)")
        assert labels == cards
        total = page.locator(".hand-total[data-total]").get_attribute("data-total")
        assert int(total) == points(cards)
        page.locator('[data-do="hand-confirm"]').click()
        page.wait_for_selector(".hand-read", state="detached", timeout=WAIT)
        host.bus.join()
        assert [(m.data["seat"], m.data["points"]) for m in shown] == [(seat, points(cards))]
        page.context.close()
    finally:
        server.shutdown()
