"""``POST /api/confirm-card``: the phone's "Another card..." answer to the camera's question,
through Flask's test client. Every refusal leaves the question open and the table as it was; a
card the rules take is played; a card they refuse, said put down all the same, is that illegal
attempt."""

from __future__ import annotations

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app
from tests.support.phones import joined

FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}
MISREAD = {"id": 1, "action": None, "nothing": "misread"}


@pytest.fixture
def host():
    host = Host(EventLog(":memory:"))
    host.start_match(FLIP)
    return host


@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token="tok", public_url=None)


def ask(host, other="play", id=3):
    """The camera referee's unsure question about the discard pile (ann's turn), as data."""
    extra = {"other": other} if other else {}
    host.bus.publish("confirm-needed", id=id, kind="unsure", seat="ann", region="discard",
                     card="red-7", choices=[{"id": 0, "action": {"by": "ann", "do": "play",
                                                                 "card": "red-7"}}, MISREAD],
                     **extra)
    host.bus.join()


@pytest.fixture
def answers(host):
    out = []
    host.bus.subscribe(out.append, types={"confirm-answer"})
    return out


def refused(r, status, code):
    assert (r.status_code, r.json["ok"], r.json["error"]) == (status, False, code), r.json
    return r.json


def still_open(host, client):
    host.bus.join()
    assert client.get("/api/state").json["confirm"]["id"] == 3
    assert host.table.actions_taken() == []


def test_a_card_the_rules_take_is_played_and_answers_the_question(host, app, answers):
    ann, h = joined(app, "ann")
    ask(host)
    r = ann.post("/api/confirm-card", json={"card": "red-9"}, headers=h)
    assert r.status_code == 200 and r.json["ok"], r.json
    host.bus.join()
    assert host.table.state_json()["top"] == "red-9" and host.table.state_json()["turn"] == "ben"
    assert answers[-1].data == {"seat": "ann", "question": 3, "illegal": False,
                                "other": {"by": "ann", "do": "play", "card": "red-9"}}
    assert ann.get("/api/state").json["confirm"] is None
    # answered once: a second tap finds no question
    refused(ann.post("/api/confirm-card", json={"card": "red-9"}, headers=h), 409, "no-question")


def test_a_card_the_rules_refuse_is_refused_with_their_reason_and_nothing_lost(host, app, answers):
    ann, h = joined(app, "ann")
    ask(host)
    body = refused(ann.post("/api/confirm-card", json={"card": "blue-8"}, headers=h),
                   409, "not-matching")
    assert body["illegal"] is True and body["params"]["card"] == "blue-8"
    still_open(host, ann)           # no penalty was dealt, nothing published
    assert answers == []


def test_a_refused_card_said_put_down_all_the_same_is_the_illegal_attempt(host, app, answers):
    ann, h = joined(app, "ann")
    ask(host)
    r = ann.post("/api/confirm-card", json={"card": "blue-8", "illegal": True}, headers=h)
    assert r.status_code == 200 and r.json["ok"] is False and r.json["error"] == "not-matching"
    host.bus.join()
    assert answers[-1].data["illegal"] is True and answers[-1].data["other"]["card"] == "blue-8"
    assert host.table.state_json()["top"] == "red-5"
    assert ann.get("/api/state").json["confirm"] is None


@pytest.mark.parametrize("card", ["blue-0", "gold-3", "red-77"])
def test_a_card_of_no_deck_of_the_game_is_refused_even_insisted(host, app, card):
    ann, h = joined(app, "ann")
    ask(host)
    for insist in (False, True):
        refused(ann.post("/api/confirm-card", json={"card": card, "illegal": insist}, headers=h),
                400, "bad-card")
    still_open(host, ann)


@pytest.mark.parametrize("body", [{}, {"card": 5}, {"card": ""}, {"card": "x" * 41},
                                  {"card": "red-9", "illegal": "yes"},
                                  {"card": "red-9", "color": ["red"]}])
def test_malformed_bodies_are_refused(host, app, body):
    ann, h = joined(app, "ann")
    ask(host)
    refused(ann.post("/api/confirm-card", json=body, headers=h), 400, "bad-input")
    still_open(host, ann)


def test_bad_json_is_refused(host, app):
    ann, h = joined(app, "ann")
    ask(host)
    for raw in (b"{not json", b"[1, 2]", b"\xff\xfe"):
        refused(ann.post("/api/confirm-card", data=raw,
                         headers={**h, "Content-Type": "application/json"}), 400, "bad-input")
    still_open(host, ann)


def test_a_phone_that_did_not_join_or_lost_its_token_is_refused(host, app):
    ask(host)
    refused(app.test_client().post("/api/confirm-card", json={"card": "red-9"}), 401, "not-joined")
    ann, _ = joined(app, "ann")
    refused(ann.post("/api/confirm-card", json={"card": "red-9"}), 403, "bad-csrf")
    org, ho = joined(app, None)
    refused(org.post("/api/confirm-card", json={"card": "red-9"}, headers=ho), 403, "no-seat")
    still_open(host, ann)


def test_another_seat_no_question_and_a_question_without_other_cards(host, app):
    ann, ha = joined(app, "ann")
    ben, hb = joined(app, "ben")
    refused(ann.post("/api/confirm-card", json={"card": "red-9"}, headers=ha), 409, "no-question")
    ask(host)
    refused(ben.post("/api/confirm-card", json={"card": "red-9"}, headers=hb), 403, "wrong-seat")
    ask(host, other=None)
    refused(ann.post("/api/confirm-card", json={"card": "red-9"}, headers=ha), 409, "no-other-card")
    still_open(host, ann)


def test_a_wild_on_the_pile_needs_its_colour(host, app):
    ann, h = joined(app, "ann")
    ask(host)
    r = ann.post("/api/confirm-card", json={"card": "wild"}, headers=h)
    assert r.status_code in (400, 409) and r.json["ok"] is False
    still_open(host, ann)
    r = ann.post("/api/confirm-card", json={"card": "wild", "color": "green"}, headers=h)
    assert r.status_code == 200 and r.json["ok"], r.json
    assert host.table.state_json()["top"] == "wild"
