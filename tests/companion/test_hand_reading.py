"""Hands read by camera or photo (companion.hand_reading, web.hands): proposed, shown with their
points, counted only once the player sends them as ``show``."""

from __future__ import annotations

import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cards import CLASSIC, FACE_SETS
from companion.eventlog import EventLog
from companion.hand_reading import HandReadError, NoHandReader
from companion.host import Host
from web import create_app

from app.runner import demo_setup

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


# --- a hand read in parts -----------------------------------------------------------------------

def _cards(labels):
    return [{"label": c, "confidence": 0.9} for c in labels]


def test_a_hand_larger_than_its_zone_is_read_in_parts_and_scored_whole(host):
    hands = round_to_show(host, "classic", seed=1)
    seat, cards = max(hands.items(), key=lambda kv: len(kv[1]))
    assert len(cards) >= 2
    first, rest = cards[:len(cards) // 2], cards[len(cards) // 2:]
    asked = []
    host.hands.on_scan = asked.append
    host.hands.propose(seat, _cards(first))
    kept = host.hands.keep(seat)
    assert (kept.labels, kept.kept) == (first, len(first))
    # the kept cards still lie in the zone: the camera may not read them again until asked
    assert seat not in host.hands.to_scan() and seat in host.hands.awaited()
    with pytest.raises(HandReadError):
        host.hands.propose(seat, _cards(first))
    assert host.hands.get(seat).labels == first
    with pytest.raises(HandReadError):                              # nothing new to keep
        host.hands.keep(seat)
    assert host.hands.request_scan([seat]) and asked == [(seat,)]
    assert seat in host.hands.to_scan()
    read = host.hands.propose(seat, _cards(rest))
    assert (read.labels, read.kept, read.expected) == (cards, len(first), len(cards))
    assert read.total == sum(CLASSIC.points(CLASSIC.parse(c)) for c in cards)
    assert host.hands.to_json()[seat]["kept"] == len(first)
    shown = []
    host.bus.subscribe(shown.append, {"hand-shown"})
    assert host.table.act({"do": "show", "by": seat, "cards": read.labels}).ok
    host.bus.join()
    assert host.hands.get(seat) is None
    assert [(m.data["seat"], m.data["points"]) for m in shown] == [(seat, read.total)]


def test_without_a_keep_each_reading_replaces_the_last(host):
    hands = round_to_show(host, "classic", seed=1)
    seat, cards = next(iter(hands.items()))
    host.hands.propose(seat, _cards(cards[:1]))
    read = host.hands.propose(seat, _cards(cards))
    assert (read.labels, read.kept) == (cards, 0)
    assert seat in host.hands.to_scan()


def test_a_photo_after_a_keep_is_the_next_part_without_asking(host):
    host.start_match(SCORES)
    host.hands.photo_reader = lambda data, fs: _cards(["teal-3"] if data == b"1" else ["wild"])
    host.hands.read_photo("ann", b"1")
    host.hands.keep("ann")
    read = host.hands.read_photo("ann", b"2")
    assert (read.labels, read.kept, read.total) == (["teal-3", "wild"], 1, 3 + 40)


def test_starting_again_drops_the_kept_parts(host):
    hands = round_to_show(host, "classic", seed=1)
    seat, cards = next(iter(hands.items()))
    seen = []
    host.bus.subscribe(seen.append, {"hand-dropped"})
    host.hands.propose(seat, _cards(cards[:1]))
    host.hands.keep(seat)
    host.hands.drop_kept(seat)
    host.bus.join()
    assert host.hands.get(seat) is None and seat in host.hands.to_scan()
    assert [m.data["seat"] for m in seen] == [seat]
    read = host.hands.propose(seat, _cards(cards))               # the camera may read at once
    assert (read.labels, read.kept) == (cards, 0)


def test_kept_parts_end_with_the_round(host):
    hands = round_to_show(host, "classic", seed=1)
    seat, cards = next(iter(hands.items()))
    host.hands.propose(seat, _cards(cards[:1]))
    host.hands.keep(seat)
    host.start_match(SCORES)                                      # another match
    host.bus.join()
    assert host.hands.to_json() == {}
    assert host.hands.propose("ann", _cards(["teal-3"])).kept == 0


def test_a_reading_made_while_the_new_match_is_still_being_told_is_kept(host):
    """The bus tells of a new match later, on its own thread: a reading made in between is of the
    new match and stays; one made before the match started is dropped."""
    host.start_match(SCORES)
    host.hands.propose("ann", _cards(["wild"]))                  # of the first match
    host.bus.join()
    held, release = threading.Event(), threading.Event()
    host.bus.subscribe(lambda m: (held.set(), release.wait(5)), {"hold"})
    host.bus.publish("hold")
    assert held.wait(5)                                           # the bus's thread waits here
    host.start_match(SCORES)                                      # told after the hold
    read = host.hands.propose("ben", _cards(["teal-3"]))         # of the second match
    release.set()
    host.bus.join()
    assert host.hands.get("ben") == read and host.hands.get("ann") is None
    assert host.hands.keep("ben").kept == 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.lists(st.sampled_from(["teal-3", "pink-7", "wild", "orange-skip-everyone"]),
                               min_size=1, max_size=5), min_size=1, max_size=5))
def test_a_hand_read_in_any_parts_is_the_parts_in_order(parts):
    host = Host(EventLog(":memory:"))
    host.start_match(SCORES)
    for part in parts[:-1]:
        host.hands.propose("ben", _cards(part), source="photo")
        assert host.hands.keep("ben").kept == len(host.hands.get("ben").cards)
    read = host.hands.propose("ben", _cards(parts[-1]), source="photo")
    assert read.labels == [c for part in parts for c in part]
    assert read.kept == sum(len(p) for p in parts[:-1])
    assert read.total == sum(FACE_SETS["dark"].points(FACE_SETS["dark"].parse(c))
                             for part in parts for c in part)


def test_racing_keeps_and_readings_never_count_a_kept_part_twice(host):
    """The camera thread proposes while a phone keeps: whatever the interleaving, a reading is
    the kept cards (each once, in order) and then one camera reading."""
    host.start_match(SCORES)
    host.hands.on_scan = lambda seats: None
    errors, stop = [], threading.Event()

    def camera():
        while not stop.is_set():
            try:
                host.hands.propose("cai", _cards(["teal-3", "wild"]))
            except HandReadError:
                pass

    def phone():
        for _ in range(200):
            try:
                host.hands.keep("cai")
            except HandReadError:
                pass
            host.hands.request_scan(["cai"])

    threads = [threading.Thread(target=camera), threading.Thread(target=phone)]
    for t in threads:
        t.start()
    threads[1].join()
    stop.set()
    threads[0].join()
    read = host.hands.get("cai")
    assert read is not None and read.kept % 2 == 0 and len(read.cards) in (read.kept, read.kept + 2)
    assert read.labels == ["teal-3", "wild"] * (len(read.cards) // 2)
    assert not errors


def test_keeping_a_part_over_the_web(app, host):
    host.start_match(SCORES)
    host.hands.photo_reader = lambda data, fs: _cards(["teal-3"])
    c, h = joined(app, "ben")
    r = c.post("/api/hand-keep", json={}, headers=h)
    assert (r.status_code, r.json["error"]) == (409, "nothing-to-keep")
    c.post("/api/hand-photo", data=b"x", headers={**h, "Content-Type": "image/jpeg"})
    r = c.post("/api/hand-keep", json={}, headers=h)
    assert r.status_code == 200 and r.json["hand_read"]["kept"] == 1
    assert c.post("/api/hand-keep", json={}, headers=h).json["error"] == "nothing-to-keep"
    r = c.post("/api/hand-photo", data=b"x", headers={**h, "Content-Type": "image/jpeg"})
    assert [x["label"] for x in r.json["hand_read"]["cards"]] == ["teal-3", "teal-3"]
    assert c.post("/api/hand-keep", json={"seat": "ann"}, headers=h).status_code == 403
    assert c.post("/api/hand-keep", json={"drop": "yes"}, headers=h).json["error"] == "bad-input"
    assert host.hands.get("ben").kept == 1                        # a refusal changes nothing
    r = c.post("/api/hand-keep", json={"drop": True}, headers=h)
    assert r.status_code == 200 and r.json["hand_read"] is None
    assert host.hands.get("ben") is None
    o, oh = joined(app, None)                                      # the organiser names the seat
    assert o.post("/api/hand-keep", json={}, headers=oh).json["error"] == "unknown-seat"
    assert c.post("/api/hand-keep", json={}).status_code == 403   # no CSRF header


def test_keeping_a_part_in_a_game_without_hands_is_refused(app, host):
    host.start_match(demo_setup("grid", random.Random(1)))
    c, h = joined(app, host.table.seats[0])
    r = c.post("/api/hand-keep", json={}, headers=h)
    assert (r.status_code, r.json["error"]) == (409, "no-hands")
