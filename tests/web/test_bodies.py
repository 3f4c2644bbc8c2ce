"""Request bodies at the edge: a real phone photo reaches the app through the real server
(waitress's body limit agrees with the app's), and a JSON body that is not an object is a clear
400 ``bad-input`` on every ``POST`` route, never a 500."""

from __future__ import annotations

import http.client
import json
import socket

import cv2
import numpy as np
import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app, serve
from tests.support.phones import joined

SCORES = {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"],
                    "options": {"deck": "dark"}}}


@pytest.fixture
def host():
    h = Host(EventLog(":memory:"))
    h.start_match(SCORES)
    return h


def phone_photo(min_bytes: int = 2_000_000) -> bytes:
    """A JPEG the size of a phone's photo (noise compresses badly: ~2 MB at 1,600 x 1,200)."""
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, size=(1200, 1600, 3), dtype=np.uint8)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    data = jpeg.tobytes()
    assert len(data) >= min_bytes, len(data)
    return data


def _post(port: int, path: str, body: bytes, headers: dict[str, str]):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers={"Host": f"127.0.0.1:{port}", **headers})
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type") or "", r.read()
    finally:
        conn.close()


def _join(port: int, seat: str | None) -> dict[str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/api/join", body=json.dumps({"token": "tok", "seat": seat}),
                     headers={"Host": f"127.0.0.1:{port}", "Content-Type": "application/json"})
        r = conn.getresponse()
        data = json.loads(r.read())
        assert r.status == 200, data
        cookie = r.getheader("Set-Cookie").split(";", 1)[0]
    finally:
        conn.close()
    return {"Cookie": cookie, "X-CSRF-Token": data["csrf"]}


def test_a_2_mb_phone_photo_reaches_the_app_through_the_real_server(host):
    photo = phone_photo()
    seen = []
    host.hands.photo_reader = lambda data, fs: seen.append(data) or [{"label": "teal-3"}]
    web = serve(host, "127.0.0.1", 0, block=False, secret_key="k", join_token="tok")
    try:
        headers = _join(web.port, "ben")
        status, kind, body = _post(web.port, "/api/hand-photo", photo,
                                   {**headers, "Content-Type": "image/jpeg"})
        assert status == 200, body[:300]
        assert kind.startswith("application/json")
        assert json.loads(body)["hand_read"]["seat"] == "ben"
        assert seen == [photo]                             # every byte reached the reader
        # a JSON route still refuses a body that large, with the app's JSON answer
        status, kind, body = _post(web.port, "/api/action", b"{" + b" " * 2_000_000 + b"}",
                                   {**headers, "Content-Type": "application/json"})
        assert status == 413 and json.loads(body)["error"] == "too-large"
        # and a photo over the app's limit is refused before it is read
        with socket.create_connection(("127.0.0.1", web.port), timeout=10) as sock:
            sock.sendall(b"POST /api/hand-photo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                         b"image/jpeg\r\nContent-Length: %d\r\n\r\n" % (13 * 1024 * 1024))
            assert sock.recv(4096).split(b" ", 2)[1] == b"413"
    finally:
        web.shutdown()
    assert host.hands.to_json()["ben"]["cards"][0]["label"] == "teal-3"


NOT_OBJECTS = [b"5", b"[1]", b'"s"', b"true", b"null", b"[]", b"1.5"]


def _post_routes(app) -> list[str]:
    return sorted(rule.rule for rule in app.url_map.iter_rules()
                  if "POST" in (rule.methods or ()) and rule.rule.startswith("/api/"))


@pytest.mark.parametrize("seat", ["ben", None], ids=["seated", "organiser"])
def test_a_json_body_that_is_not_an_object_is_bad_input_on_every_post_route(host, seat):
    app = create_app(host, secret_key="k", join_token="tok")
    routes = _post_routes(app)
    assert {"/api/action", "/api/undo", "/api/hand-photo", "/api/join", "/api/leave",
            "/api/match/end", "/api/settings"} <= set(routes)
    c, h = joined(app, seat)
    for route in routes:
        for body in NOT_OBJECTS:
            r = c.post(route, data=body, headers={**h, "Content-Type": "application/json"})
            text = r.get_data(as_text=True)
            assert r.status_code == 400, (route, body, r.status_code, text[:300])
            assert r.json["error"] == "bad-input" and r.json["message"], (route, body, text)
    assert host.table is not None and host.table.actions_taken() == []
    assert c.get("/api/state").json["me"] == {"joined": True, "seat": seat}   # not left
