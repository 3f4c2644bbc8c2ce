"""The league page in Chromium while a table sends hostile messages between its good ones
(``NaN`` and ``Infinity`` scores, a sequence number beyond 2^63, a message nested 100,000
deep, a state whose grid or champions are not what the page draws): the page keeps showing
every good entry and state as it comes, with no error in the browser, and ``/api/league``
stays JSON that the browser's ``JSON.parse`` reads. No broker: the view is fed directly."""

from __future__ import annotations

import json

import pytest

from companion.config import load_config
from tests.support.browser import WAIT
from league.service import League

pytestmark = pytest.mark.slow

HOSTILE = [
    ("state", b'{"match": 1, "game": "grid", "turn": "ben", "scores": {"ann": NaN, "ben": 1}}'),
    ("state", b'{"match": 1, "game": "grid", "scores": {"ann": Infinity}}'),
    ("events", b'{"seq": 9223372036854775809, "match": 1, "action": {}, "events": []}'),
    ("events", b'{"seq": 1, "match": 1, "action": {}, "events": [], "x": '
     + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ("state", b'{"match": 1, "game": "grid", "grid": [5, 6]}'),
    ("state", b'{"match": 1, "game": "grid", "champions": "ann"}'),
    ("events", b'{"seq": 2, "match": 1, "action": {}, "events": [{"type": "game-over", '
     b'"scores": {"ann": -Infinity}}]}'),
]


def entry(seq: int) -> bytes:
    return json.dumps({"seq": seq, "match": 1, "game": "grid", "seats": ["ann", "ben"],
                       "source": "bot", "action": {"do": "pass", "by": "ann"},
                       "events": [{"type": "turn", "seat": "ben"}], "time": 1000.0 + seq}).encode()


def state(points: int) -> bytes:
    return json.dumps({"match": 1, "game": "grid", "turn": "ben", "seq": points,
                       "scores": {"ann": points, "ben": 1}}).encode()


def test_the_page_keeps_updating_while_hostile_messages_arrive(tmp_path, browser):
    section = load_config(None, {"league.broker": "mqtt://127.0.0.1:1"}).league
    league = League(section, tmp_path / "league.sqlite3")  # never started: fed directly
    view, store = league.view, league.store
    server = league.serve("127.0.0.1", 0)
    try:
        page = browser.new_page()
        page.set_default_timeout(WAIT)
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        view.handle("uno/club/t1/online", b"true", store)
        page.goto(f"http://127.0.0.1:{server.effective_port}/")
        page.wait_for_selector("#table-t1")
        for seq in range(1, len(HOSTILE) + 2):
            assert view.handle("uno/club/t1/events", entry(seq), store)
            assert view.handle("uno/club/t1/state", state(10 * seq), store)
            if seq <= len(HOSTILE):  # then a hostile one: the page must show the good ones
                kind, payload = HOSTILE[seq - 1]
                assert view.handle(f"uno/club/t1/{kind}", payload, store) is False
            page.wait_for_function(
                "want => document.querySelector('#table-t1').innerText.includes(want)",
                arg=f"ann {10 * seq}")
            text = page.inner_text("#table-t1")
            assert f"{seq}" in text.split("last entry")[-1]
        assert view.ignored == len(HOSTILE)
        strict = page.evaluate("""async () => {
            const text = await (await fetch('api/league', {cache: 'no-store'})).text();
            return JSON.parse(text).tables[0].last_seq; }""")
        assert strict == len(HOSTILE) + 1
        assert errors == []
        page.context.close()
    finally:
        league.close()
