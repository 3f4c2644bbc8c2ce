"""The organiser's trust (docs/web.md, "Joining: who may act"): an organiser join needs the PIN
shown on the table's own screen, wrong PINs are limited, the PIN never reaches the network, each
joined phone keeps its own event streams, the organiser sees and removes phones, and the list of
phones is bounded and looked up by phone id. Flask's test client; a phone "on the Wi-Fi" is a
client whose REMOTE_ADDR is a LAN address."""

from __future__ import annotations

import sys

import pytest

from companion.eventlog import EventLog
from companion.host import Host
from web import create_app
from web.auth import BadPin, Phones, PinGuard, TooManyTries

TOKEN = "tok"
FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}
WIFI = "192.168.1.50"


@pytest.fixture
def host():
    h = Host(EventLog(":memory:"))
    h.start_match(FLIP)
    return h


@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token=TOKEN)


def pin_of(app) -> str:
    return app.extensions["companion"]["phones"].organiser_pin


def client(app, address: str = WIFI):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def join(c, seat, pin=None):
    body = {"token": TOKEN, "seat": seat}
    if pin is not None:
        body["pin"] = pin
    return c.post("/api/join", json=body)


def organiser(app, address: str = WIFI):
    c = client(app, address)
    r = join(c, None, pin_of(app))
    assert r.status_code == 200, r.json
    return c, {"X-CSRF-Token": r.json["csrf"]}


def wrong(pin: str) -> str:
    return f"{(int(pin) + 1) % 10 ** len(pin):0{len(pin)}d}"


# --- the PIN ---------------------------------------------------------------------------------------

def test_an_organiser_join_needs_the_pin(app):
    pin = pin_of(app)
    assert len(pin) == 6 and pin.isdigit()
    c = client(app)
    for body_pin in (None, wrong(pin), 123456, ["x"]):
        r = join(c, None, body_pin)
        assert r.status_code == 403 and r.json["error"] == "bad-pin", body_pin
    assert c.get("/api/state").json["me"] == {"joined": False, "seat": None}
    r = join(c, None, pin)
    assert r.status_code == 200 and r.json["next"] == "/setup"
    assert c.get("/api/state").json["me"] == {"joined": True, "seat": None}


def test_a_seat_joins_by_the_qr_code_alone(app):
    r = join(client(app), "ann")
    assert r.status_code == 200 and r.json["seat"] == "ann"


def test_a_seated_phone_needs_the_pin_to_become_the_organiser(app):
    c = client(app)
    assert join(c, "ann").status_code == 200
    r = join(c, None)
    assert r.status_code == 403 and r.json["error"] == "bad-pin"
    assert c.get("/api/state").json["me"] == {"joined": True, "seat": "ann"}


def test_each_start_has_its_own_pin_and_a_configured_one_is_kept(host):
    pins = {pin_of(create_app(host, secret_key="k")) for _ in range(5)}
    assert len(pins) > 1
    assert pin_of(create_app(host, secret_key="k", organiser_pin="424242")) == "424242"
    with pytest.raises(ValueError):
        create_app(host, secret_key="k", organiser_pin="12ab")


def test_the_pin_is_shown_on_the_table_screen_of_this_machine_only(host):
    pin = "8642097531"                               # long: found in a page only if put there
    app = create_app(host, secret_key="k", join_token=TOKEN, organiser_pin=pin)
    here = client(app, "127.0.0.1").get("/").get_data(as_text=True)
    assert pin in here and 'class="organiser-pin"' in here
    assert "進行役のPIN" in client(app, "127.0.0.1").get("/?lang=ja").get_data(as_text=True)
    for address in (WIFI, "10.0.0.9", "::ffff:192.168.1.7"):
        page = client(app, address).get("/").get_data(as_text=True)
        assert pin not in page and 'class="organiser-pin"' not in page
    # nor on any other page or answer a stranger can fetch
    stranger = client(app)
    for path in ("/setup", "/join/tok", "/api/state", "/scoreboard", "/seat/ann", "/api/phones"):
        assert pin not in stranger.get(path).get_data(as_text=True), path


def test_the_organiser_sees_the_pin_on_the_setup_page(app):
    c, _ = organiser(app)
    assert pin_of(app) in c.get("/setup").get_data(as_text=True)
    seated = client(app, "10.0.0.5")
    join(seated, "ann")
    assert pin_of(app) not in seated.get("/setup").get_data(as_text=True)


# --- wrong PINs are limited ------------------------------------------------------------------------

def test_wrong_pins_are_limited_per_address_and_in_all(app):
    pin = pin_of(app)
    guesser = client(app, "192.168.1.66")
    for _ in range(5):
        assert join(guesser, None, wrong(pin)).json["error"] == "bad-pin"
    r = join(guesser, None, pin)                     # even the right PIN: no more guesses now
    assert r.status_code == 429 and r.json["error"] == "too-many-tries"
    assert r.json["retry_after_s"] >= 1 and r.json["params"] == {"seconds": r.json["retry_after_s"]}
    assert join(client(app, "192.168.1.66"), None, pin).status_code == 429   # a new cookie jar
    # another address still may, until everybody together has guessed wrong 10 times
    assert join(client(app, "192.168.1.67"), None, pin).status_code == 200
    for n in range(5):
        assert join(client(app, f"192.168.1.{70 + n}"), None, wrong(pin)).status_code == 403
    r = join(client(app, "192.168.1.90"), None, pin)
    assert r.status_code == 429 and r.json["error"] == "too-many-tries"
    # the person at the table (this machine) is never locked out
    assert join(client(app, "127.0.0.1"), None, pin).status_code == 200


def test_guesses_are_allowed_again_after_a_minute():
    now = [0.0]
    guard = PinGuard("135790", per_address=2, overall=3, window_s=60, clock=lambda: now[0])
    for _ in range(2):
        with pytest.raises(BadPin):
            guard.check("000000", "a")
    with pytest.raises(TooManyTries) as exc:
        guard.check("135790", "a")
    assert exc.value.retry_after_s == 60
    now[0] = 30.0
    with pytest.raises(BadPin):
        guard.check("000000", "b")
    with pytest.raises(TooManyTries):               # three wrong in all: nobody for now
        guard.check("135790", "c")
    now[0] = 60.0                                    # the first two are a minute old
    guard.check("135790", "a")
    guard.check("135790", "c")


# --- event streams are per phone -------------------------------------------------------------------

def test_sixteen_organisers_cannot_take_a_players_event_stream(app):
    held = []
    for n in range(16):
        c, _ = organiser(app, "127.0.0.1" if n % 2 else f"192.168.1.{100 + n}")
        held += [c.get("/api/events", buffered=False) for _ in range(2)]
    ann = client(app, "192.168.1.20")
    assert join(ann, "ann").status_code == 200
    r = ann.get("/api/events", buffered=False)
    assert r.status_code == 200
    held.append(r)
    for s in reversed(held):
        s.close()


def test_every_joined_phone_has_its_two_streams_when_the_table_is_full(host):
    app = create_app(host, secret_key="k", join_token=TOKEN, max_phones=6, phones_per_seat=2)
    phones = [client(app, f"10.0.0.{n}") for n in range(6)]
    for n, c in enumerate(phones):
        assert join(c, ["ann", "ben", "cai"][n % 3]).status_code == 200
    orgs = [organiser(app, f"10.0.1.{n}")[0] for n in range(10)]
    streams = []
    for c in orgs[-4:] + phones:                     # four organisers stay: the oldest went
        for _ in range(3):                           # a third closes the phone's oldest
            r = c.get("/api/events", buffered=False)
            assert r.status_code == 200
            streams.append(r)
    owners = app.extensions["companion"]["stream"].owners()
    assert sorted(owners.values()) == [2] * (6 + 4)
    for s in reversed(streams):
        s.close()


# --- the organiser sees and removes phones ---------------------------------------------------------

def test_the_organiser_lists_the_joined_phones_and_removes_one(app):
    org, h = organiser(app, "192.168.1.10")
    ann = client(app, "192.168.1.21")
    join(ann, "ann")
    ann_stream = ann.get("/api/events", buffered=False)
    chunks = ann_stream.response
    assert next(chunks).startswith(b"retry:") and b"hello" in next(chunks)
    listed = org.get("/api/phones").json
    assert listed["ok"] and listed["max_phones"] >= 16
    rows = {p["seat"]: p for p in listed["phones"]}
    assert rows["ann"]["address"] == "192.168.1.21" and rows["ann"]["streams"] == 1
    assert rows[None]["you"] is True and rows["ann"]["you"] is False
    assert isinstance(rows["ann"]["joined_at"], float)
    # only the organiser sees the list or removes a phone
    assert ann.get("/api/phones").status_code == 403
    assert client(app).get("/api/phones").status_code == 403
    r = org.post("/api/phones/remove", json={"id": rows["ann"]["id"]}, headers=h)
    assert r.status_code == 200 and r.json["removed"] == rows["ann"]["id"]
    # its cookie is refused from now on, its stream ended, and the seat is free again
    assert ann.get("/api/state").json["me"] == {"joined": False, "seat": None}
    assert ann.post("/api/action", json={"do": "draw"}, headers={"X-CSRF-Token": "x"}
                    ).status_code == 401
    assert list(chunks) == []
    assert [p["seat"] for p in org.get("/api/phones").json["phones"]] == [None]
    assert join(client(app, "192.168.1.22"), "ann").status_code == 200
    r = org.post("/api/phones/remove", json={"id": rows["ann"]["id"]}, headers=h)
    assert r.status_code == 404 and r.json["error"] == "unknown-phone"
    assert org.post("/api/phones/remove", json={"id": 5}, headers=h).json["error"] == "bad-input"
    seated, hs = client(app, "192.168.1.23"), None
    r = join(seated, "ben")
    hs = {"X-CSRF-Token": r.json["csrf"]}
    r = seated.post("/api/phones/remove", json={"id": rows[None]["id"]}, headers=hs)
    assert r.status_code == 403 and r.json["error"] == "organiser-only"


def test_the_setup_page_has_the_phones_list_for_the_organiser_only(app):
    org, _ = organiser(app)
    assert 'id="phones"' in org.get("/setup").get_data(as_text=True)
    assert 'id="phones"' not in client(app).get("/setup").get_data(as_text=True)


# --- joins are bounded, the lookup is a dict -------------------------------------------------------

def test_joins_are_bounded_with_a_clear_refusal(host):
    app = create_app(host, secret_key="k", join_token=TOKEN, max_phones=3, phones_per_seat=8)
    phones = [client(app, f"10.0.0.{n}") for n in range(4)]
    for c in phones[:3]:
        assert join(c, "ann").status_code == 200
    r = join(phones[3], "ben")
    assert r.status_code == 409 and r.json["error"] == "too-many-phones"
    assert "3 phones" in r.json["message"]
    # a phone already in may change seats; the organiser makes room by removing one
    assert join(phones[0], "cai").status_code == 200
    org, h = organiser(app)
    victim = next(p for p in org.get("/api/phones").json["phones"] if p["seat"] == "ann")
    assert org.post("/api/phones/remove", json={"id": victim["id"]}, headers=h).json["ok"]
    assert join(phones[3], "ben").status_code == 200


def test_a_fifth_organiser_ends_the_oldest_organisers_join(app):
    orgs = [organiser(app, f"10.0.2.{n}")[0] for n in range(5)]
    me = [c.get("/api/state").json["me"]["joined"] for c in orgs]
    assert me == [False, True, True, True, True]


def _work(call) -> int:
    """How many lines of Python ``call`` runs (every frame, the library's included)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


def test_joining_and_reading_a_cookie_do_not_grow_with_40000_phones():
    """A bound on work, not a timing: a join and a cookie check run as many lines of Python with
    40,000 phones joined as with ten (the old list was scanned under the lock)."""
    def work(joined: int) -> tuple[int, int]:
        phones = Phones("k", "tok", max_phones=50_000, per_seat=8)
        seats = [f"s{n}" for n in range(joined // 8 + 1)]
        for n in range(joined):
            phones.join(seats[n // 8])
        last, cookie = phones.join(None)
        joins = _work(lambda: phones.join("new-seat"))
        reads = _work(lambda: phones.read_cookie(cookie))
        return joins, reads

    few, many = work(10), work(40_000)
    assert many[0] <= few[0] * 1.2 + 20, (few, many)
    assert many[1] <= few[1] * 1.2 + 20, (few, many)


def test_racing_joins_never_pass_the_caps():
    import threading

    from web.auth import TooManyPhones

    for _ in range(20):
        gone: list[str] = []
        phones = Phones("k", "tok", max_phones=10, max_organisers=4, per_seat=8,
                        on_gone=gone.extend)
        results: list[str] = []
        start = threading.Barrier(40)

        def one(n: int, start=start, phones=phones, results=results) -> None:
            start.wait()
            try:
                phones.join(None if n % 2 else f"s{n % 3}")
                results.append("in")
            except TooManyPhones:
                results.append("full")

        threads = [threading.Thread(target=one, args=(n,)) for n in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        listed = phones.listed()
        assert sum(p["seat"] is not None for p in listed) == 10
        assert sum(p["seat"] is None for p in listed) == 4
        assert results.count("full") == 10 and len(gone) == 20 - 4   # ended organisers told
