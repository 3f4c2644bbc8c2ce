"""Where the seats sit, on the set-up page and through the web API: the organiser's seating
goes beside the replay set-up (``{"setup": {...}, "seating": {seat: side}}``), is stored with the
match in the event log and resumed with it, read by the referee as ``Table.seating`` and shown in
``GET /api/state``; a bad one is refused with a clear error and changes nothing."""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from companion.referee.table import Table
from web import create_app

FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                  "start": "red-5", "options": {"turn_seconds": 0}}}
SEATING = {"ann": "east", "ben": "east", "cai": "west"}


@pytest.fixture
def rig(tmp_path):
    host = Host(EventLog(tmp_path / "log.db"))
    app = create_app(host, secret_key="test-secret", join_token="tok", public_url=None)
    c = app.test_client()
    r = c.post("/api/join", json={"token": "tok", "seat": None,
                                  "pin": app.extensions["companion"]["phones"].organiser_pin})
    return host, c, {"X-CSRF-Token": r.json["csrf"]}


def test_a_seating_is_stored_sent_to_the_referee_and_shown(rig, tmp_path):
    host, c, h = rig
    r = c.post("/api/match", json={**FLIP, "seating": SEATING}, headers=h)
    assert r.status_code == 200, r.json
    assert host.table.seating.seats_at("east") == ("ann", "ben")
    assert c.get("/api/state").json["seating"] == SEATING
    # stored with the match: a restart resumes it with the same seating
    resumed = Table.resume(EventLog(tmp_path / "log.db"))
    assert resumed.seating.to_json() == SEATING


def test_without_a_seating_the_default_is_shown(rig):
    host, c, h = rig
    assert c.post("/api/match", json=FLIP, headers=h).status_code == 200
    assert c.get("/api/state").json["seating"] == {"ann": "south", "ben": "west", "cai": "north"}


@pytest.mark.parametrize("seating, words", [
    ({"ann": "up", "ben": "east", "cai": "west"}, "no such side"),
    ({"ann": "east"}, "no side to 'ben'"),
    ({**SEATING, "dan": "north"}, "'dan', who is not a seat"),
    ("east", "must be an object"),
])
def test_a_bad_seating_is_refused_and_changes_nothing(rig, seating, words):
    host, c, h = rig
    assert c.post("/api/match", json=FLIP, headers=h).status_code == 200
    playing = host.table
    r = c.post("/api/match", json={**FLIP, "seating": seating}, headers=h)
    assert r.status_code == 400 and r.json["error"] == "bad-setup" and words in r.json["message"]
    assert host.table is playing and host.log.current_match_id() == playing.match_id


def test_the_setup_page_asks_where_the_seats_sit(rig):
    _, c, _ = rig
    html = c.get("/setup").get_data(as_text=True)
    assert 'id="seating"' in html and "Where the players sit" in html
    assert "プレイヤーの座る辺" in c.get("/setup?lang=ja").get_data(as_text=True)
