"""An undo names the action it means (``{"seq": n}``, ``undo_seq`` of ``GET /api/state``): however
many phones agree at once, one action is taken back, and an agreement to an action already taken
back, or to an older one once another was played, is refused ``undo-stale``."""

from __future__ import annotations


import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app
from tests.support.phones import joined
from tests.support.racing import race

SEATS = ("ann", "ben", "cai", "dee")
TIMER = {"setup": {"game": "timer", "seats": list(SEATS), "options": {"turn_seconds": 0}}}


@pytest.fixture
def host():
    return Host(EventLog(":memory:"))


@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token="tok")


def _play(host, app, n):
    """A new match, four phones joined, the first ``n`` seats passed once each."""
    host.start_match(TIMER)
    phones = {seat: joined(app, seat) for seat in SEATS}
    for seat in SEATS[:n]:
        c, h = phones[seat]
        assert c.post("/api/action", json={"do": "pass"}, headers=h).json["ok"]
    host.bus.join()     # the actions' events are heard (each drops an open undo request)
    return phones


def _undo(phones, seat, **body):
    c, h = phones[seat]
    return c.post("/api/undo", json=body, headers=h)


def test_three_phones_agreeing_at_once_take_back_exactly_one_action(host, app):
    for trial in range(60):
        phones = _play(host, app, 3)
        c, _ = phones["ann"]
        seq = c.get("/api/state").json["undo_seq"]
        assert isinstance(seq, int)
        r = _undo(phones, "ann", seq=seq)
        assert r.status_code == 202 and r.json["undo_request"] == {"by": "ann", "seq": seq}
        answers = race(*(lambda s=s, phones=phones, seq=seq: _undo(phones, s, seq=seq) for s in ("ben", "cai", "dee")))
        host.bus.join()
        assert len(host.table.actions_taken()) == 2, f"trial {trial}: {len(host.table.actions_taken())}"
        assert sorted(a.status_code for a in answers) == [200, 409, 409], \
            [(a.status_code, a.json) for a in answers]
        assert all(a.json["error"] == "undo-stale" for a in answers if a.status_code == 409)
        # nobody is left asking to take back the action that is gone
        assert c.get("/api/state").json["undo_request"] is None
        assert c.get("/api/state").json["undo_seq"] != seq


def test_an_agreement_to_an_action_already_taken_back_is_refused(host, app):
    phones = _play(host, app, 3)
    seq = phones["ann"][0].get("/api/state").json["undo_seq"]
    assert _undo(phones, "ann", seq=seq).status_code == 202
    assert _undo(phones, "ben", seq=seq).status_code == 200
    host.bus.join()
    taken = host.table.actions_taken()
    assert len(taken) == 2
    r = _undo(phones, "cai", seq=seq)                    # a late tap on the same agreement
    assert (r.status_code, r.json["error"]) == (409, "undo-stale") and r.json["message"]
    assert host.table.actions_taken() == taken
    # the seat's next tap names the action now last: a new request, agreed as usual
    seq2 = phones["cai"][0].get("/api/state").json["undo_seq"]
    assert seq2 != seq
    assert _undo(phones, "cai", seq=seq2).status_code == 202
    assert _undo(phones, "dee", seq=seq2).status_code == 200
    assert len(host.table.actions_taken()) == 1


def test_an_agreement_to_an_older_action_once_another_was_played_is_refused(host, app):
    phones = _play(host, app, 2)
    seq = phones["ann"][0].get("/api/state").json["undo_seq"]
    assert _undo(phones, "ann", seq=seq).status_code == 202
    c, h = phones["cai"]
    assert c.post("/api/action", json={"do": "pass"}, headers=h).json["ok"]   # the game moves on
    r = _undo(phones, "ben", seq=seq)
    assert (r.status_code, r.json["error"]) == (409, "undo-stale")
    assert len(host.table.actions_taken()) == 3


def test_an_agreement_racing_a_new_action_never_takes_that_action_back(host, app):
    """The request may still be open when the agreement arrives just after another action:
    the table undoes only the action named, never the newer one."""
    phones = _play(host, app, 2)
    seq = phones["ann"][0].get("/api/state").json["undo_seq"]
    assert _undo(phones, "ann", seq=seq).status_code == 202
    host.table.act({"by": "cai", "do": "pass"})                # played, the bus not yet heard
    r = _undo(phones, "ben", seq=seq)
    assert (r.status_code, r.json["error"]) == (409, "undo-stale")
    assert len(host.table.actions_taken()) == 3


def test_an_undo_must_name_its_action(host, app):
    phones = _play(host, app, 1)
    for body in ({}, {"seq": "1"}, {"seq": True}, {"seq": 0}, {"seq": 2 ** 80}):
        r = _undo(phones, "ann", **body)
        assert (r.status_code, r.json["error"]) == (400, "bad-input"), body
    r = _undo(phones, "ann", seq=99)
    assert (r.status_code, r.json["error"]) == (409, "undo-stale")
    assert phones["ann"][0].get("/api/state").json["undo_request"] is None
    assert len(host.table.actions_taken()) == 1
