"""In a real browser: tapping an event the camera decided shows the frame it was decided on, on
the table view and on a seat's phone (with the undo request), and again after a restart."""

from __future__ import annotations

import pytest

from app.evidence import EvidenceStore
from app.runner import CameraWorker
from companion.eventlog import EventLog
from companion.host import Host
from simulator.demo_table import DemoTable
from tests.support.readings import ALL_CELLS, GRID, SETUP, reading, with_cell

from tests.support.browser import WAIT
from web import serve

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True,
         "has_touch": True, "bypass_csp": True}


def _serve(host, store):
    return serve(host, "127.0.0.1", 0, block=False, secret_key="evidence-test",
                 join_token="join-me", heartbeat_s=5, evidence=store)


def _open_evidence(page, url, steady=False):
    if url is not None:
        page.goto(url)
        page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
    link = page.locator('.evidence-open').first
    link.wait_for(timeout=WAIT)
    if steady:
        # the list is not drawn anew while nothing changed (the table view refreshes its state
        # every 3 s): a finger's tap, slower than a test's click, and the keyboard's focus stay
        # on the event they began on
        page.evaluate("window._tapped = document.querySelector('.evidence-open')")
        page.wait_for_timeout(3500)
        assert page.evaluate("window._tapped.isConnected")
    link.click()
    img = page.locator("#sheet [data-evidence-img]")
    img.wait_for(timeout=WAIT)
    page.wait_for_function(
        "(() => { const i = document.querySelector('#sheet [data-evidence-img]');"
        " return i && i.complete && i.naturalWidth > 0; })()", timeout=WAIT)
    return img


def test_tapping_a_camera_decided_event_shows_its_frame_also_after_a_restart(tmp_path, browser):
    host = Host(EventLog(tmp_path / "events.sqlite3"))
    host.start_match(SETUP)
    store = EvidenceStore(tmp_path / "evidence")
    table = DemoTable(host, 1280, 720, seed=1, realtime=False)
    worker = CameraWorker(host, lambda: table, first=table, evidence=store)
    server = _serve(host, store)
    ctx = browser.new_context(**PHONE)
    try:
        page = ctx.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
        # the camera decides while the page is open: the event comes on the live stream
        worker.process(table.read().image)
        worker.referee.on_reading(reading(GRID, seq=1, changed=ALL_CELLS))
        worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2,
                                          changed=("cell-0-0",)))
        host.bus.join()
        evidence = host.table.last_evidence
        assert evidence is not None
        img = _open_evidence(page, None, steady=True)
        assert img.get_attribute("src") == f"/api/evidence/{evidence}.jpg"
        assert page.evaluate("document.querySelector('#sheet [data-evidence-img]').naturalWidth") == 640
        # the table view holds no seat: it says how to ask for the undo
        assert page.locator("#sheet [data-evidence-undo]").count() == 0
        page.keyboard.press("Escape")

        # a seat's phone: the undo request goes out from the frame (another seat must agree)
        page.goto(server.url + "/join/join-me")
        page.locator('.join-seat[data-seat="south"]').click()
        page.wait_for_url("**/seat/south")
        page.locator("details.recent summary").click()
        _open_evidence_here(page)
        asked = []
        host.bus.subscribe(lambda m: asked.append(m.data), {"undo-requested"})
        page.locator("#sheet [data-evidence-undo]").click()
        page.wait_for_function("!document.querySelector('#sheet').open", timeout=WAIT)
        host.bus.join()
        assert asked == [{"seat": "south", "seq": host.table.last_seq}]
        assert host.table.last_evidence == evidence  # asked only: nothing undone yet

        # a question: its frame and the question asked, and nothing to undo yet
        played = with_cell(GRID, 0, 0, "red-7")
        worker.referee.on_reading(reading(with_cell(played, 4, 4, "blue-9"), seq=3,
                                          changed=("cell-4-4",),
                                          probs={"cell-4-4": {"blue-9": 0.55, "blue-6": 0.45}}))
        host.bus.join()
        question = worker.referee.question
        assert question is not None and question.evidence not in (None, evidence)
        link = page.locator(f'#events .evidence-open[data-evidence="{question.evidence}"]').first
        link.wait_for(timeout=WAIT)
        link.click()
        page.wait_for_function(
            "(() => { const i = document.querySelector('#sheet [data-evidence-img]');"
            " return i && i.complete && i.naturalWidth > 0; })()", timeout=WAIT)
        assert "(4, 4)" in page.locator("#sheet .evidence-question").inner_text()
        assert page.locator("#sheet [data-evidence-undo]").count() == 0
        page.keyboard.press("Escape")
        # the question answered: its play is logged with the question's frame
        yes = next(c.id for c in question.choices
                   if c.action is not None and getattr(c.action, "card", None) is not None)
        worker.referee.answer(yes, by="south")
        worker.step()
        host.bus.join()
        assert host.table.last_evidence == question.evidence
    finally:
        ctx.close()
        server.shutdown()
        worker.stop()
        host.log.close()

    # the companion restarts over the same state folder: the event and its frame are still there
    host2 = Host(EventLog(tmp_path / "events.sqlite3"))
    server2 = _serve(host2, EvidenceStore(tmp_path / "evidence"))
    ctx = browser.new_context(**PHONE)
    try:
        page = ctx.new_page()
        page.goto(server2.url + "/")
        page.wait_for_selector('#conn[data-state="on"]', timeout=WAIT)
        link = page.locator(f'#events .evidence-open[data-evidence="{evidence}"]').first
        link.wait_for(timeout=WAIT)
        link.click()
        page.wait_for_function(
            "(() => { const i = document.querySelector('#sheet [data-evidence-img]');"
            " return i && i.complete && i.naturalWidth > 0; })()", timeout=WAIT)
        page.keyboard.press("Escape")
        # the question's play: its frame, and what the camera asked (kept beside the frame: the
        # event log keeps no questions)
        link = page.locator(f'#events .evidence-open[data-evidence="{question.evidence}"]').first
        link.wait_for(timeout=WAIT)
        link.click()
        page.wait_for_selector("#sheet .evidence-question", timeout=WAIT)
        assert "(4, 4)" in page.locator("#sheet .evidence-question").inner_text()
    finally:
        ctx.close()
        server2.shutdown()
        host2.log.close()


def _open_evidence_here(page):
    link = page.locator('#events .evidence-open').first
    link.wait_for(timeout=WAIT)
    link.click()
    page.wait_for_function(
        "(() => { const i = document.querySelector('#sheet [data-evidence-img]');"
        " return i && i.complete && i.naturalWidth > 0; })()", timeout=WAIT)
