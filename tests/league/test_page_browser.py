"""The league page in Chromium: every table, the standings and a match's history drawn from
``/api/league``, in English and Japanese, and what tables send shown as text, never as HTML.
No broker: the view is fed directly (tests/league/test_broker.py does the broker)."""

from __future__ import annotations

import json

import pytest

from companion.config import load_config
from tests.support.browser import WAIT
from league.service import League

pytestmark = pytest.mark.slow

EVIL = '<img src=x onerror="document.title=\'pwned\'">'


def entry(seq, **more):
    return {"seq": seq, "match": 1, "game": "grid", "seats": ["ann", "ben"], "source": "bot",
            "action": {"do": "pass", "by": "ann"}, "events": [{"type": "turn", "seat": "ben"}],
            "time": 1000.0 + seq, **more}


def test_the_league_page_shows_tables_standings_and_history(tmp_path, browser):
    section = load_config(None, {"league.broker": "mqtt://127.0.0.1:1"}).league
    league = League(section, tmp_path / "league.sqlite3")  # never started: fed directly
    view, store = league.view, league.store
    view.handle("uno/club/t1/state", json.dumps(
        {"match": 1, "game": "grid", "turn": "ben", "scores": {"ann": 5, "ben": 2},
         "grid": [["red-1"] * 5] * 5, "pawn": [2, 2]}).encode(), store)
    view.handle("uno/club/t1/online", b"true", store)
    view.handle("uno/club/t2/state", json.dumps({"match": 1, "game": "flip", "turn": EVIL}).encode(),
                store)
    view.handle("uno/club/t1/events", json.dumps(entry(1)).encode(), store)
    view.handle("uno/club/t1/events", json.dumps(entry(2, events=[
        {"type": "game-over", "scores": {"ann": 5, "ben": 2}},
        {"type": "match-over", "champions": ["ann"]}])).encode(), store)
    server = league.serve("127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.effective_port}/"
    try:
        page = browser.new_page()
        page.set_default_timeout(10_000)
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        page.goto(url)
        page.wait_for_selector("#table-t1", timeout=WAIT)
        t1 = page.inner_text("#table-t1")
        assert "online" in t1 and "ben" in t1 and "ann 5" in t1
        assert "null" not in t1 and "undefined" not in t1  # lines with no value left out
        assert page.locator("#table-t1 .grid span").count() == 25
        assert page.locator("#table-t1 .grid span.pawn").count() == 1
        assert EVIL in page.inner_text("#table-t2")  # shown as text
        assert page.title() != "pwned" and page.locator("#table-t2 img").count() == 0
        assert page.inner_text("table.standings tbody tr:first-child td:first-child") == "ann"
        page.click("#matches button")
        page.wait_for_selector("#history-list li:nth-child(2)", timeout=WAIT)
        assert "#2 bot" in page.inner_text("#history-list")
        page.goto(url + "?lang=ja")
        page.wait_for_selector("#table-t1", timeout=WAIT)
        assert "順位" in page.inner_text("main") and "接続中" in page.inner_text("#table-t1")
        assert errors == []
        page.context.close()
    finally:
        league.close()
