"""Idempotency keys: a state-changing request sent again with its ``Idempotency-Key`` (a phone
retrying after its connection dropped) gets the first answer and changes nothing -- in one run,
after a restart from the same event log, and when the copies race; another key applies again."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid

import pytest

from companion.eventlog import ANSWERS_PER_SCOPE, EventLog
from companion.host import Host
from web import create_app, serve
from tests.support.phones import joined

TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben", "cai", "dee"],
                   "options": {"turn_seconds": 0}}}
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}


def key() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def host():
    h = Host(EventLog(":memory:"))
    h.start_match(TIMER)
    return h


@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token="tok")


def entries(host) -> int:
    return len(host.log.entries(host.table.match_id))


def same(first, again):
    assert again.status_code == first.status_code
    assert again.get_data() == first.get_data()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert first.headers.get("Idempotent-Replayed") is None


def test_an_action_sent_twice_with_one_key_applies_once_and_another_key_applies_again(host, app):
    c, h = joined(app, "ann")
    k = {**h, "Idempotency-Key": key()}
    first = c.post("/api/action", json={"do": "pass"}, headers=k)
    assert first.status_code == 200 and first.json["ok"]
    again = c.post("/api/action", json={"do": "pass"}, headers=k)
    same(first, again)
    assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
    assert entries(host) == 1
    # a new tap (a new key) is a new action: ben's turn now, so ann's pass is refused, once
    c2, h2 = joined(app, "ben")
    r = c2.post("/api/action", json={"do": "pass"}, headers={**h2, "Idempotency-Key": key()})
    assert r.json["ok"] and len(host.table.actions_taken()) == 2
    # a refusal is kept too: the same request is refused the same way
    k3 = {**h, "Idempotency-Key": key()}
    refused = c.post("/api/action", json={"do": "bogus"}, headers=k3)
    assert refused.status_code == 400
    same(refused, c.post("/api/action", json={"do": "bogus"}, headers=k3))


def test_every_state_changing_route_answers_a_repeated_key_as_the_first_time(host, app):
    ann, ha = joined(app, "ann")
    ben, hb = joined(app, "ben")
    org, ho = joined(app, None)

    def twice(client, headers, path, body):
        k = {**headers, "Idempotency-Key": key()}
        first = client.post(path, json=body, headers=k)
        host.bus.join()
        before = (host.log.matches(), host.table.actions_taken() if host.table else None,
                  client.get("/api/state").json["undo_request"])
        same(first, client.post(path, json=body, headers=k))
        host.bus.join()
        after = (host.log.matches(), host.table.actions_taken() if host.table else None,
                 client.get("/api/state").json["undo_request"])
        assert after == before, path
        return first

    assert twice(ann, ha, "/api/action", {"do": "pass"}).json["ok"]
    seq = ann.get("/api/state").json["undo_seq"]
    # the ask sent again is the same ask (202), not "waiting for agreement"
    assert twice(ann, ha, "/api/undo", {"seq": seq}).status_code == 202
    assert twice(ben, hb, "/api/undo", {"seq": seq}).json["ok"]     # agreed: one undo
    assert host.table.actions_taken() == []
    assert twice(org, ho, "/api/settings", {"phones_per_seat": 2}).json["phones_per_seat"] == 2
    host.bus.publish("confirm-needed", seat=None, question="who passed?",
                     choices=[{"label": "ann", "action": {"by": "ann", "do": "pass"}}])
    host.bus.join()
    assert twice(ben, hb, "/api/confirm", {"choice": 0}).json["ok"]
    assert len(host.table.actions_taken()) == 1
    matches = len(host.log.matches())
    assert twice(org, ho, "/api/match", {"setup": FLIP["setup"]}).json["game"] == "flip"
    assert len(host.log.matches()) == matches + 1                  # one new match, not two
    assert twice(org, ho, "/api/match/end", {}).json["ok"]


def test_a_join_sent_again_gets_the_same_seat_and_cookie(host, app):
    c = app.test_client()
    k = {"Idempotency-Key": key()}
    first = c.post("/api/join", json={"token": "tok", "seat": "cai"}, headers=k)
    assert first.status_code == 200
    # the phone never heard the answer: it sends the join again, from a fresh cookie jar
    again = app.test_client().post("/api/join", json={"token": "tok", "seat": "cai"}, headers=k)
    same(first, again)
    assert again.headers.getlist("Set-Cookie") == first.headers.getlist("Set-Cookie")
    assert app.extensions["companion"]["phones"].holders("cai") == 1   # not "seat taken"


def test_copies_of_one_request_racing_apply_exactly_once(host, app):
    c, h = joined(app, "ann")
    c2, h2 = joined(app, "ben")
    for trial in range(30):
        k = {**h, "Idempotency-Key": key()}
        before = len(host.table.actions_taken())
        barrier = threading.Barrier(6)
        answers = [None] * 6

        def send(i, barrier=barrier, answers=answers, k=k):
            barrier.wait()
            answers[i] = c.post("/api/action", json={"do": "pass"}, headers=k)
        threads = [threading.Thread(target=send, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(host.table.actions_taken()) == before + 1, f"trial {trial}"
        assert len({(a.status_code, a.get_data()) for a in answers}) == 1
        assert sum(a.headers.get("Idempotent-Replayed") is None for a in answers) == 1
        # the others play on: ben, cai, dee pass to bring ann's turn back
        assert c2.post("/api/action", json={"do": "pass"}, headers=h2).json["ok"]  # ben
        host.table.act({"by": "cai", "do": "pass"})
        host.table.act({"by": "dee", "do": "pass"})


def test_a_key_is_answered_the_same_after_a_restart_from_the_same_log(tmp_path):
    path = tmp_path / "events.sqlite3"
    host = Host(EventLog(path))
    host.start_match(TIMER)
    app = create_app(host, secret_key="k", join_token="tok")
    c, h = joined(app, "ann")
    k = key()
    first = c.post("/api/action", json={"do": "pass"}, headers={**h, "Idempotency-Key": k})
    assert first.json["ok"]
    host.log.close()
    # the companion restarts from the same log; the phone joins its seat again and retries
    host = Host(EventLog(path))
    assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
    app = create_app(host, secret_key="k", join_token="tok")
    c, h = joined(app, "ann")
    again = c.post("/api/action", json={"do": "pass"}, headers={**h, "Idempotency-Key": k})
    same(first, again)
    assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
    assert len(host.log.entries(host.table.match_id)) == 1
    host.log.close()


def test_a_request_applied_just_before_a_crash_is_not_applied_again(tmp_path):
    """The action and its key are written in one transaction: a crash before the answer was
    kept still leaves the key marked, and the retry changes nothing."""
    path = tmp_path / "events.sqlite3"
    log = EventLog(path)
    host = Host(log)
    host.start_match(TIMER)
    k = key()
    with log.keyed("seat:ann", k):                   # the request's change, then no answer
        assert host.table.act({"by": "ann", "do": "pass"}).ok
    log.close()
    host = Host(EventLog(path))
    app = create_app(host, secret_key="k", join_token="tok")
    c, h = joined(app, "ann")
    r = c.post("/api/action", json={"do": "pass"}, headers={**h, "Idempotency-Key": k})
    assert r.status_code == 200 and r.json == {"ok": True, "repeated": True}
    assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
    host.log.close()


def test_a_malformed_key_or_one_reused_on_another_route_is_bad_input(host, app):
    c, h = joined(app, "ann")
    for bad in ("", "a b", "x" * 101, "é"):
        r = c.post("/api/action", json={"do": "pass"}, headers={**h, "Idempotency-Key": bad})
        assert (r.status_code, r.json["error"]) == (400, "bad-input"), bad
    assert host.table.actions_taken() == []
    k = {**h, "Idempotency-Key": key()}
    assert c.post("/api/action", json={"do": "pass"}, headers=k).json["ok"]
    r = c.post("/api/hand-keep", json={}, headers=k)
    assert (r.status_code, r.json["error"]) == (400, "bad-input")


def test_the_answers_kept_are_bounded_per_scope(tmp_path):
    log = EventLog(tmp_path / "events.sqlite3")
    for i in range(ANSWERS_PER_SCOPE + 20):
        log.keep_answer("seat:ann", f"k{i}", 200, b"{}")
    log.keep_answer("seat:ben", "b0", 200, b"{}")
    assert log.answer_for("seat:ann", "k0") is None                    # the oldest went
    assert log.answer_for("seat:ann", f"k{ANSWERS_PER_SCOPE + 19}").status == 200
    assert log.answer_for("seat:ann", "k20").status == 200             # the last 100 stay
    assert log.answer_for("seat:ann", "k19") is None
    assert log.answer_for("seat:ben", "b0").status == 200               # another scope's stay


def _raw_post(port: int, path: str, body: dict, headers: dict[str, str]) -> bytes:
    data = json.dumps(body).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n{head}Connection: close\r\n\r\n").encode() + data


def test_a_retry_after_a_dropped_connection_on_the_real_server_applies_once(host):
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok")
    try:
        client = web.app.test_client()            # joined through the app, posted over TCP
        r = client.post("/api/join", json={"token": "tok", "seat": "ann"})
        cookie = r.headers["Set-Cookie"].split(";", 1)[0]
        headers = {"Cookie": cookie, "X-CSRF-Token": r.json["csrf"], "Idempotency-Key": key()}
        request = _raw_post(web.port, "/api/action", {"do": "pass"}, headers)
        with socket.create_connection(("127.0.0.1", web.port), timeout=10) as sock:
            sock.sendall(request)                 # ... and the connection drops unanswered
        deadline = time.monotonic() + 10
        while not host.table.actions_taken() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
        with socket.create_connection(("127.0.0.1", web.port), timeout=10) as sock:
            sock.sendall(request)                 # the phone retries with the same key
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"Idempotent-Replayed: true" in head
        assert json.loads(body)["ok"] is True
        assert host.table.actions_taken() == [{"by": "ann", "do": "pass"}]
    finally:
        web.shutdown()


def test_a_hand_photo_sent_again_with_its_key_is_read_once():
    host = Host(EventLog(":memory:"))
    host.start_match({"setup": {"game": "scoreboard", "seats": ["ann", "ben"],
                                "options": {"deck": "dark"}}})
    reads = []
    host.hands.photo_reader = lambda data, fs: reads.append(data) or [{"label": "teal-3"}]
    app = create_app(host, secret_key="k", join_token="tok")
    c, h = joined(app, "ben")
    k = {**h, "Content-Type": "image/jpeg", "Idempotency-Key": key()}
    first = c.post("/api/hand-photo", data=b"\xff\xd8" + b"x" * 100_000, headers=k)
    assert first.status_code == 200 and first.json["hand_read"]["total"] == 3
    same(first, c.post("/api/hand-photo", data=b"\xff\xd8" + b"x" * 100_000, headers=k))
    assert len(reads) == 1
    kk = {**h, "Idempotency-Key": key()}
    kept = c.post("/api/hand-keep", json={}, headers=kk)
    assert kept.json["hand_read"]["kept"] == 1
    same(kept, c.post("/api/hand-keep", json={}, headers=kk))     # not "nothing-to-keep"
