"""Who may act (docs/web.md, "Joining: who may act"): the join token only on the table view, one
phone per seat, cookies that expire and are revoked, the organiser's role, the Host allow-list
and the Origin check against it, the event streams kept for joined phones. Flask's test client."""

from __future__ import annotations

import re
import socket

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app, qr
from web.auth import COOKIE, AllowedHosts, Phones, SeatTaken

TOKEN = "Qz7-join-token"
JOIN_PATH = f"/join/{TOKEN}"
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}
TIMER = {"setup": {"game": "timer", "seats": ["ann", "ben"], "first": "ann",
                   "options": {"turn_seconds": 0}}}


@pytest.fixture
def host():
    return Host(EventLog(":memory:"))


@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token=TOKEN)


@pytest.fixture
def flip(host):
    host.start_match(FLIP)
    return host


def join(app, seat, **kwargs):
    c = app.test_client(**kwargs)
    r = c.post("/api/join", json={"token": TOKEN, "seat": seat,
                                  "pin": app.extensions["companion"]["phones"].organiser_pin})
    return c, r


def joined(app, seat):
    c, r = join(app, seat)
    assert r.status_code == 200, r.json
    return c, {"X-CSRF-Token": r.json["csrf"]}


def cookie_of(client) -> str:
    return client.get_cookie(COOKIE).value


# --- the join token is on the table view only ----------------------------------------------------

def test_the_table_view_shows_the_join_token_and_the_setup_page_does_not(flip, app):
    spectator = app.test_client()
    assert JOIN_PATH in spectator.get("/").get_data(as_text=True)
    setup = spectator.get("/setup").get_data(as_text=True)
    assert TOKEN not in setup
    organiser, _ = joined(app, None)
    assert JOIN_PATH not in organiser.get("/setup").get_data(as_text=True)


def test_the_qr_code_api_is_for_the_organiser_only(flip, app):
    spectator = app.test_client()
    r = spectator.get("/api/qr.svg")
    assert r.status_code == 403 and r.json["error"] == "organiser-only" and TOKEN.encode() not in r.data
    seated, _ = joined(app, "ann")
    assert seated.get("/api/qr.svg").status_code == 403
    organiser, _ = joined(app, None)
    r = organiser.get("/api/qr.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and JOIN_PATH.encode() in r.data


def _svg_modules(svg: str) -> np.ndarray:
    """The dark modules of segno's inline SVG (``M x y.5`` then relative ``h``/``m`` strokes of
    width 1) as a 0/255 image, one pixel per module."""
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    path = re.search(r'class="qrline"[^>]* d="([^"]+)"', svg).group(1)
    image = np.full((size, size), 255, np.uint8)
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            image[int(y), int(x):int(x + float(a))] = 0
            x += float(a)
    return image


def _read(image: np.ndarray) -> str:
    """The text of the QR code in ``image``, read by OpenCV. Its classic detector misses a few
    valid codes (a 5-byte ``X;TQN%;Wd|`` path once); its ArUco-based one reads those."""
    for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        text = detector.detectAndDecode(image)[0]
        if text:
            return text
    raise AssertionError("OpenCV found no QR code")


def _decode(modules: np.ndarray) -> str:
    return _read(np.kron(modules, np.ones((8, 8), np.uint8)))


def test_the_table_views_qr_code_decodes_to_the_join_link(flip, app):
    html = app.test_client().get("/").get_data(as_text=True)
    link = re.search(r'<p class="join-url"><a href="([^"]+)"', html).group(1)
    assert link.endswith(JOIN_PATH)
    svg = re.search(r'<div class="qr">(<svg.*?</svg>)</div>', html, re.S).group(1)
    assert _decode(_svg_modules(svg)) == link
    png = cv2.imdecode(np.frombuffer(qr.png(link), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert _read(png) == link


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1,
               max_size=120))
def test_any_join_link_round_trips_through_the_qr_code(path):
    url = "http://192.168.1.20:8000/join/" + path
    assert _decode(_svg_modules(qr.svg(url))) == url


# --- one phone per seat --------------------------------------------------------------------------

def test_a_second_phone_on_a_taken_seat_is_refused(flip, app):
    joined(app, "ann")
    second, r = join(app, "ann")
    assert r.status_code == 409 and r.json["error"] == "seat-taken"
    assert second.get_cookie(COOKIE) is None
    assert second.get("/api/state").json["me"]["joined"] is False
    joined(app, "ben")                       # other seats are free
    joined(app, None)                        # and the organiser is no seat
    joined(app, None)


def test_a_phone_that_joins_again_keeps_its_seat_and_drops_its_old_cookie(flip, app):
    ann, _ = joined(app, "ann")
    old = cookie_of(ann)
    r = ann.post("/api/join", json={"token": TOKEN, "seat": "ann"})     # scanned the code again
    assert r.status_code == 200
    assert ann.get("/api/state").json["me"] == {"joined": True, "seat": "ann"}
    other = app.test_client()
    other.set_cookie(COOKIE, old)
    assert other.get("/api/state").json["me"]["joined"] is False
    assert ann.post("/api/join", json={"token": TOKEN, "seat": "ben"}).status_code == 200
    joined(app, "ann")                       # moving to ben freed ann


def test_a_seat_is_free_again_once_its_phone_leaves(flip, app):
    first, h = joined(app, "ann")
    assert first.post("/api/leave", json={}, headers=h).json["ok"]
    joined(app, "ann")


def test_the_organiser_allows_more_phones_per_seat(host, app):
    organiser, h = joined(app, None)
    r = organiser.post("/api/match", json={**FLIP, "phones_per_seat": 2}, headers=h)
    assert r.status_code == 200, r.json
    joined(app, "ann")
    joined(app, "ann")
    assert join(app, "ann")[1].json["error"] == "seat-taken"


def test_the_organiser_allows_a_second_phone_during_a_match(flip, app):
    joined(app, "ann")
    assert join(app, "ann")[1].status_code == 409
    organiser, h = joined(app, None)
    r = organiser.post("/api/settings", json={"phones_per_seat": 2}, headers=h)
    assert r.status_code == 200 and r.json == {"ok": True, "phones_per_seat": 2}
    joined(app, "ann")                       # the new phone gets the seat, the match goes on
    assert flip.table.state_json()["turn"] == "ann"


@pytest.mark.parametrize("value", [0, 9, "2", True, None])
def test_bad_settings_are_400_and_only_the_organiser_may_change_them(flip, app, value):
    organiser, h = joined(app, None)
    r = organiser.post("/api/settings", json={"phones_per_seat": value}, headers=h)
    assert r.status_code == 400 and r.json["error"] == "bad-input"
    ann, ha = joined(app, "ann")
    r = ann.post("/api/settings", json={"phones_per_seat": 3}, headers=ha)
    assert r.status_code == 403 and r.json["error"] == "organiser-only"
    assert app.extensions["companion"]["phones"].per_seat == 1


@pytest.mark.parametrize("value", [0, 9, "2", True, None, 1.5])
def test_a_bad_phones_per_seat_is_400_and_starts_nothing(host, app, value):
    organiser, h = joined(app, None)
    r = organiser.post("/api/match", json={**FLIP, "phones_per_seat": value}, headers=h)
    assert r.status_code == 400 and r.json["error"] == "bad-input"
    assert host.table is None and app.extensions["companion"]["phones"].per_seat == 1


def test_phones_per_seat_comes_from_the_configuration(flip):
    app = create_app(flip, secret_key="k", join_token=TOKEN, phones_per_seat=2)
    joined(app, "ann")
    joined(app, "ann")
    assert join(app, "ann")[1].status_code == 409
    assert 'name="phones_per_seat"' in app.test_client().get("/setup").get_data(as_text=True)


# --- cookies: expiry and revocation -------------------------------------------------------------------

def test_the_cookie_has_an_expiry(flip, app):
    _, r = join(app, "ann")
    assert "Max-Age=43200" in r.headers["Set-Cookie"]


def test_a_cookie_kept_after_leave_is_refused(flip, app):
    c, h = joined(app, "ann")
    kept = cookie_of(c)
    assert c.post("/api/leave", json={}, headers=h).json["ok"]
    c.set_cookie(COOKIE, kept)                   # a phone (or a copy) that kept the cookie
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers=h)
    assert r.status_code == 401 and r.json["error"] == "not-joined"
    assert c.get("/api/state").json["me"]["joined"] is False


def test_a_new_match_revokes_the_seats_but_not_the_organiser(flip, app):
    ann, ha = joined(app, "ann")
    organiser, ho = joined(app, None)
    assert organiser.post("/api/match", json=FLIP, headers=ho).status_code == 200
    r = ann.post("/api/action", json={"do": "play", "card": "red-7"}, headers=ha)
    assert r.status_code == 401 and r.json["error"] == "not-joined"
    assert organiser.get("/api/state").json["me"] == {"joined": True, "seat": None}
    joined(app, "ann")                        # the seat is free for the new match


def test_a_cookie_from_before_a_restart_is_refused(flip):
    before = create_app(flip, secret_key="same-key", join_token=TOKEN)
    c, h = joined(before, "ann")
    after = create_app(flip, secret_key="same-key", join_token=TOKEN)     # the same signing key
    phone = after.test_client()
    phone.set_cookie(COOKIE, cookie_of(c))
    r = phone.post("/api/action", json={"do": "play", "card": "red-7"}, headers=h)
    assert r.status_code == 401


def test_a_cookie_expires():
    now = [1000.0]
    phones = Phones("key", TOKEN, max_age_s=60, clock=lambda: now[0])
    phone, cookie = phones.join("ann")
    now[0] += 59
    assert phones.read_cookie(cookie) == phone
    now[0] += 2
    assert phones.read_cookie(cookie) is None
    assert phones.holders("ann") == 0
    phones.join("ann")                          # an expired phone frees its seat


def test_a_forged_seat_in_a_valid_phone_id_is_refused():
    phones = Phones("key", TOKEN)
    phone, _ = phones.join("ann")
    forged = phones._serializer.dumps({"pid": phone.pid, "seat": "ben"})
    assert phones.read_cookie(forged) is None


def test_seat_taken_is_an_error_with_a_code():
    phones = Phones("key", TOKEN)
    phones.join("ann")
    with pytest.raises(SeatTaken) as exc:
        phones.join("ann")
    assert exc.value.code == "seat-taken" and "organiser" in str(exc.value)


# --- roles --------------------------------------------------------------------------------------

def test_a_seated_phone_cannot_start_or_end_a_match(flip, app):
    ann, h = joined(app, "ann")
    match_id = flip.table.match_id
    r = ann.post("/api/match", json=TIMER, headers=h)
    assert r.status_code == 403 and r.json["error"] == "organiser-only"
    r = ann.post("/api/match/end", json={}, headers=h)
    assert r.status_code == 403 and r.json["error"] == "organiser-only"
    assert flip.table is not None and flip.table.match_id == match_id and flip.table.game.name == "flip"


def test_the_setup_page_tells_a_seated_phone_to_join_as_the_organiser(flip, app):
    ann, _ = joined(app, "ann")
    note = '<p class="note">Only the organiser sets up a match'
    assert note in ann.get("/setup").get_data(as_text=True)
    organiser, _ = joined(app, None)
    assert note not in organiser.get("/setup").get_data(as_text=True)


def test_the_organiser_starts_and_ends_a_match(host, app):
    organiser, h = joined(app, None)
    assert organiser.post("/api/match", json=TIMER, headers=h).json["ok"]
    assert host.table.game.name == "timer"
    assert organiser.post("/api/match/end", json={}, headers=h).json["ok"]
    assert host.table is None


# --- Host allow-list and Origin ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["evil.example", "evil.example:8000", "attacker.test",
                                  "192.168.1.20.nip.io", "localhost.evil.example", "", "a b"])
def test_a_foreign_host_is_refused(flip, app, name):
    c, h = joined(app, "ann")
    for r in (c.get("/", headers={"Host": name}),
              c.get("/api/state", headers={"Host": name}),
              c.post("/api/action", json={"do": "play", "card": "red-7"},
                     headers={**h, "Host": name})):
        assert r.status_code == 400 and r.json["error"] == "bad-host"
    assert flip.table.state_json()["turn"] == "ann"       # the play was never made


def test_this_machines_names_are_accepted(flip, app):
    c = app.test_client()
    lan = app.extensions["companion"]["lan_ip"]()
    hostname = socket.gethostname().lower()
    for name in ("localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000", f"{lan}:8000",
                 hostname, hostname.split(".")[0] + ".local:8000", "LOCALHOST"):
        assert c.get("/api/state", headers={"Host": name}).status_code == 200, name


def test_configured_names_are_accepted(flip):
    app = create_app(flip, secret_key="k", join_token=TOKEN, public_url="http://table.home:8000",
                     allowed_hosts=("uno.lan",))
    c = app.test_client()
    assert c.get("/", headers={"Host": "table.home:8000"}).status_code == 200
    assert c.get("/", headers={"Host": "uno.lan"}).status_code == 200
    assert c.get("/", headers={"Host": "other.lan"}).status_code == 400


def test_the_origin_is_checked_against_the_allow_list_not_the_host(flip, app):
    c, h = joined(app, "ann")
    # A rebinding page's Origin matches its own Host header: the old check let it through.
    r = c.post("/api/action", json={"do": "play", "card": "red-7"},
               headers={**h, "Origin": "http://evil.example", "Host": "evil.example"})
    assert r.status_code == 400 and r.json["error"] == "bad-host"
    r = c.post("/api/action", json={"do": "play", "card": "red-7"},
               headers={**h, "Origin": "http://localhost:9999"})       # another port, another site
    assert r.status_code == 403 and r.json["error"] == "bad-origin"
    r = c.post("/api/action", json={"do": "play", "card": "red-7"},
               headers={**h, "Origin": "http://127.0.0.1"})            # this machine's other name
    assert r.status_code == 200 and r.json["ok"]


def test_join_checks_the_origin_against_the_allow_list(flip, app):
    c = app.test_client()
    r = c.post("/api/join", json={"token": TOKEN, "seat": "ann"},
               headers={"Origin": "http://evil.example:80"})
    assert r.status_code == 403 and r.json["error"] == "bad-origin"


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z0-9-]{1,20}(\.[a-z0-9-]{1,20}){0,3}(:[0-9]{1,5})?", fullmatch=True))
def test_no_name_outside_the_allow_list_passes(name):
    hosts = AllowedHosts(["localhost", "127.0.0.1", "192.168.1.20"])
    bare = name.split(":")[0]
    assert hosts.host_ok(name) == (bare in hosts.names)
    assert hosts.origin_ok(f"http://{name}", name) == (bare in hosts.names)


# --- event streams --------------------------------------------------------------------------------

def test_pages_without_a_cookie_cannot_take_the_phones_streams(flip):
    app = create_app(flip, secret_key="k", join_token=TOKEN, max_phones=2, table_streams=2)
    held = [app.test_client().get("/api/events", buffered=False) for _ in range(2)]
    assert all(r.status_code == 200 for r in held)
    r = app.test_client().get("/api/events")
    assert r.status_code == 503 and r.json["error"] == "too-many-streams"
    ann, _ = joined(app, "ann")
    ben, _ = joined(app, "ben")
    mine = [c.get("/api/events", buffered=False) for c in (ann, ben)]
    assert all(r.status_code == 200 for r in mine)
    for r in reversed(held + mine):          # the test client pops contexts last-in first-out
        r.close()


def test_a_phone_that_opens_another_stream_closes_its_oldest(flip):
    app = create_app(flip, secret_key="k", join_token=TOKEN, max_phones=2)
    broadcaster = app.extensions["companion"]["stream"]
    ann, _ = joined(app, "ann")
    streams = [ann.get("/api/events", buffered=False) for _ in range(4)]
    assert all(r.status_code == 200 for r in streams)
    assert broadcaster.client_count == 2            # one phone never holds more than two
    ben, _ = joined(app, "ben")
    r = ben.get("/api/events", buffered=False)
    assert r.status_code == 200                     # its own two, whatever ann opened
    for s in reversed(streams + [r]):
        s.close()


def test_leaving_ends_the_phones_streams(flip, app):
    broadcaster = app.extensions["companion"]["stream"]
    ann, h = joined(app, "ann")
    stream = ann.get("/api/events", buffered=False)
    chunks = stream.response
    assert next(chunks).startswith(b"retry:") and b"hello" in next(chunks)
    assert ann.post("/api/leave", json={}, headers=h).json["ok"]
    assert list(chunks) == [] and broadcaster.client_count == 0


def test_a_body_over_the_limit_is_413(flip):
    app = create_app(flip, secret_key="k", join_token=TOKEN, max_body=1024)
    c, h = joined(app, "ann")
    r = c.post("/api/action", data=b'{"do": "play", "card": "red-7", "x": "' + b"a" * 2000 + b'"}',
               headers={**h, "Content-Type": "application/json"})
    assert r.status_code == 413 and r.json["error"] == "too-large"
    assert flip.table.state_json()["turn"] == "ann"
