"""Hands read by camera or photo (companion.hand_reading, web.hands): proposed, shown with their
points, counted only once the player sends them as ``show``."""

from __future__ import annotations

import pytest

from companion.cards import FACE_SETS
from companion.eventlog import EventLog
from companion.hand_reading import HandReadError, NoHandReader
from companion.host import Host
from web import create_app

from tests.support.hands import round_to_show
from tests.support.phones import joined

SCORES = {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"],
                    "options": {"deck": "dark"}}}


@pytest.fixture
def host():
    return Host(EventLog(":memory:"))


# --- the core -----------------------------------------------------------------------------------

def test_a_reading_is_scored_with_the_side_showing_and_counts_only_when_shown(host):
    hands = round_to_show(host, "classic", seed=1)
    seat, cards = next(iter(hands.items()))
    before = host.table.state_json()["scores"]
    read = host.hands.propose(seat, [{"label": c, "confidence": 0.9} for c in cards])
    assert read.total == sum(FACE_SETS["classic"].points(FACE_SETS["classic"].parse(c)) for c in cards)
    assert read.expected == len(cards) and read.face_set == "classic"
    host.bus.join()
    assert host.table.state_json()["scores"] == before          # a proposal counts for nothing
    assert host.snapshot()["hand_reads"][seat]["total"] == read.total
    assert host.table.act({"do": "show", "by": seat, "cards": read.labels}).ok
    host.bus.join()
    assert host.hands.get(seat) is None                           # shown: the reading is done


def test_faces_of_another_side_and_backs_are_left_out_not_scored(host):
    host.start_match(SCORES)                                      # the dark side is counted
    read = host.hands.propose("ben", [{"label": "pink-skip-everyone"}, {"label": "red-7"},
                                      {"label": "back"}, {"label": "wild"}])
    assert read.labels == ["pink-skip-everyone", "wild"] and read.left_out == 2
    assert read.total == 30 + 40


def test_a_reading_without_a_match_or_for_a_stranger_is_refused(host):
    with pytest.raises(HandReadError):
        host.hands.propose("ann", [{"label": "red-1"}])
    host.start_match(SCORES)
    with pytest.raises(HandReadError):
        host.hands.propose("zed", [{"label": "red-1"}])
    with pytest.raises(NoHandReader):
        host.hands.read_photo("ann", b"\xff\xd8")
    assert host.hands.to_json() == {}


def test_the_scoreboard_awaits_every_seat_not_yet_entered(host):
    host.start_match(SCORES)
    assert host.hands.awaited() == ("ann", "ben", "cai")
    host.table.act({"do": "score", "by": "ben", "points": 12})
    assert host.hands.awaited() == ("ann", "cai")


# --- the web API --------------------------------------------------------------------------------

@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token="tok")


def test_a_photo_is_read_into_the_seats_reading(app, host):
    host.start_match(SCORES)
    seen = []
    host.hands.photo_reader = lambda data, fs: seen.append((data, fs)) or [
        {"label": "teal-3", "confidence": 0.9, "visible": "partial"}]
    c, h = joined(app, "ben")
    r = c.post("/api/hand-photo", data=b"\xff\xd8jpeg", headers={**h, "Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.json
    assert r.json["hand_read"]["cards"] == [{"label": "teal-3", "points": 3, "visible": "partial",
                                             "confidence": 0.9}]
    assert seen == [(b"\xff\xd8jpeg", "dark")]
    assert c.get("/api/hand-reads").json["hand_reads"]["ben"]["source"] == "photo"


def test_a_photo_is_refused_when_unreadable_misaddressed_or_unread(app, host):
    host.start_match(SCORES)
    c, h = joined(app, "ben")
    jpeg = {**h, "Content-Type": "image/jpeg"}
    r = c.post("/api/hand-photo", data=b"x", headers=jpeg)
    assert (r.status_code, r.json["error"]) == (503, "no-reader")
    def refuse(data, fs):
        raise ValueError("the photo is not a JPEG or PNG image")
    host.hands.photo_reader = refuse
    assert c.post("/api/hand-photo", data=b"x", headers=jpeg).json["error"] == "bad-photo"
    r = c.post("/api/hand-photo", data=b"x", headers={**h, "Content-Type": "text/plain"})
    assert (r.status_code, r.json["error"]) == (400, "bad-photo")
    r = c.post("/api/hand-photo?seat=ann", data=b"x", headers=jpeg)
    assert (r.status_code, r.json["error"]) == (403, "wrong-seat")
    r = c.post("/api/hand-photo", data=b"x", headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 403                                   # no CSRF header
    assert host.hands.to_json() == {}


def test_a_photo_larger_than_a_json_body_is_taken(app, host):
    host.start_match(SCORES)
    host.hands.photo_reader = lambda data, fs: [{"label": "wild"}] if len(data) > 100_000 else []
    c, h = joined(app, "cai")
    r = c.post("/api/hand-photo", data=b"\x00" * 200_000, headers={**h, "Content-Type": "image/png"})
    assert r.status_code == 200 and r.json["hand_read"]["total"] == 40


def test_the_organiser_sends_a_photo_for_a_named_seat(app, host):
    host.start_match(SCORES)
    host.hands.photo_reader = lambda data, fs: [{"label": "orange-5"}]
    c, h = joined(app, None)
    assert c.post("/api/hand-photo?seat=cai", data=b"x",
                  headers={**h, "Content-Type": "image/jpeg"}).json["hand_read"]["seat"] == "cai"
    r = c.post("/api/hand-photo", data=b"x", headers={**h, "Content-Type": "image/jpeg"})
    assert (r.status_code, r.json["error"]) == (404, "unknown-seat")


def test_asking_the_camera_to_read_again(app, host):
    hands = round_to_show(host, "classic", seed=1)
    seat = next(iter(hands))
    c, h = joined(app, seat)
    r = c.post("/api/hand-read", json={}, headers=h)
    assert (r.status_code, r.json["error"]) == (503, "no-camera")
    asked = []
    host.hands.on_scan = asked.append
    r = c.post("/api/hand-read", json={}, headers=h)
    assert r.status_code == 202 and asked == [(seat,)]
    other = next(s for s in host.table.seats if s != seat)
    assert c.post("/api/hand-read", json={"seat": other}, headers=h).status_code == 403
