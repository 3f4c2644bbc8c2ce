"""The web app through Flask's test client: every route, every refusal, nothing changed by a
refused request."""

from __future__ import annotations

import json
import random
import re
import socket

import pytest

from companion.bus import EventBus
from companion.decks import classic_deck
from companion.eventlog import EventLog
from companion.host import Host
from web import create_app
from web.stream import Broadcaster
from tests.support.phones import joined

FLIP = {"setup": {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}


def grid_setup(seed=0):
    deck = list(classic_deck())
    random.Random(seed).shuffle(deck)
    return {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                      "grid": [[deck[r * 5 + c].name for c in range(5)] for r in range(5)],
                      "options": {"turn_seconds": 0}}}


@pytest.fixture
def host():
    return Host(EventLog(":memory:"))


@pytest.fixture
def app(host):
    return create_app(host, secret_key="test-secret", join_token="tok", public_url=None)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def flip(host):
    host.start_match(FLIP)
    return host


# --- pages ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/seat/ann", "/scoreboard", "/setup", "/join/tok"])
def test_pages_render_without_a_match(client, path):
    r = client.get(path)
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/", "/seat/ann", "/seat/nobody", "/scoreboard", "/setup", "/join/tok"])
def test_pages_render_during_a_match(flip, client, path):
    assert client.get(path).status_code == 200


def test_pages_use_no_outside_assets(flip, client):
    for path in ("/", "/seat/ann", "/scoreboard", "/setup"):
        html = client.get(path).get_data(as_text=True)
        assert not re.search(r'src="(https?:)?//', html)
        assert not re.search(r'<link[^>]+href="(https?:)?//', html)
        assert "https://" not in html


def test_static_assets_are_served(client):
    for name in ("app.css", "common.js", "table.js", "seat.js", "setup.js", "join.js",
                 "scoreboard.js", "icon.svg"):
        assert client.get(f"/static/{name}").status_code == 200


def test_table_view_shows_a_qr_code_of_the_join_link(client):
    html = client.get("/").get_data(as_text=True)
    assert "<svg" in html and "/join/tok" in html


def test_join_link_uses_an_ip_address_not_a_host_name(app, client):
    name = socket.gethostname().lower().split(".")[0] + ".local"     # e.g. raspberrypi.local
    html = client.get("/", base_url=f"http://{name}:8000").get_data(as_text=True)
    ip = app.extensions["companion"]["lan_ip"]()
    assert f"http://{ip}:8000/join/tok" in html


# --- phones that can join: a page on loopback says so; the QR code follows the network ----------

def _table_view(app, host_name="localhost:8000"):
    return app.test_client().get("/", base_url=f"http://{host_name}").get_data(as_text=True)


def test_a_page_served_on_loopback_says_phones_cannot_reach_it(host):
    app = create_app(host, secret_key="k", join_token="tok", lan_address=lambda: "192.168.1.20")
    app.config["BIND_ADDRESS"] = "127.0.0.1"          # what serve() records: companion demo's default
    html = _table_view(app)
    assert 'data-reach="loopback"' in html and "Phones cannot reach this page" in html
    assert "--host 0.0.0.0" in html and "make run HOST=0.0.0.0" in html
    assert "<svg" not in html                          # no code that no phone could follow
    assert "http://127.0.0.1:8000/join/tok" in html    # the link still works on this machine
    ja = app.test_client().get("/?lang=ja", base_url="http://localhost:8000").get_data(as_text=True)
    assert "スマホからはこのページに接続できません" in ja


def test_the_qr_code_follows_the_network_not_the_address_at_start(host):
    address = ["127.0.0.1"]                            # Wi-Fi not up yet when the companion starts
    app = create_app(host, secret_key="k", join_token="tok", lan_address=lambda: address[0])
    app.config["BIND_ADDRESS"] = "0.0.0.0"
    html = _table_view(app)
    assert 'data-reach="no-network"' in html and "<svg" not in html
    address[0] = "192.168.1.20"                         # the network comes up
    html = _table_view(app)
    assert 'data-reach="ok"' in html and "<svg" in html
    assert "<title>http://192.168.1.20:8000/join/tok</title>" in html
    address[0] = "10.0.0.7"                             # a new DHCP lease
    assert "<title>http://10.0.0.7:8000/join/tok</title>" in _table_view(app)
    # a server bound to one address sends phones there
    app.config["BIND_ADDRESS"] = "192.168.1.99"
    assert "<title>http://192.168.1.99:8000/join/tok</title>" in _table_view(app)


def test_public_url_overrides_the_join_link(host):
    app = create_app(host, secret_key="k", join_token="tok", public_url="http://10.1.2.3:9000/")
    html = app.test_client().get("/").get_data(as_text=True)
    assert "http://10.1.2.3:9000/join/tok" in html
    organiser = app.test_client()
    organiser.post("/api/join", json={"token": "tok", "seat": None,
                                      "pin": app.extensions["companion"]["phones"].organiser_pin})
    svg = organiser.get("/api/qr.svg")
    assert svg.mimetype == "image/svg+xml" and b"http://10.1.2.3:9000/join/tok" in svg.data


def test_join_page_with_a_bad_token(client):
    r = client.get("/join/wrong")
    assert r.status_code == 403
    assert "out of date" in r.get_data(as_text=True)


def test_join_page_lists_the_seats(flip, client):
    html = client.get("/join/tok").get_data(as_text=True)
    for seat in ("ann", "ben", "cai"):
        assert f'data-seat="{seat}"' in html


def test_language_from_accept_language_and_the_switch(client):
    ja = client.get("/scoreboard", headers={"Accept-Language": "ja,en;q=0.5"})
    assert "スコアボード" in ja.get_data(as_text=True)
    en = client.get("/scoreboard?lang=en", headers={"Accept-Language": "ja"})
    assert "Scoreboard" in en.get_data(as_text=True)
    assert "lang=en" in en.headers["Set-Cookie"]
    again = client.get("/scoreboard", headers={"Accept-Language": "ja"})  # the cookie wins
    assert "Scoreboard" in again.get_data(as_text=True)


def test_both_languages_have_the_same_words():
    from web import i18n
    assert set(i18n.strings("en")) == set(json.load(open(i18n._HERE / "ja.json", encoding="utf-8")))


# --- reading ----------------------------------------------------------------------------------

def test_state_without_a_match(client):
    s = client.get("/api/state").json
    assert s["playing"] is False and s["game"] is None and s["seats"] == []
    assert s["me"] == {"joined": False, "seat": None}


def test_state_has_the_replay_fields_and_more(flip, client):
    flip.show_signals(lambda: {"leds": {"green": True}, "buzzer": "tick"})
    flip.show_reading({"discard": "red-5"})
    s = client.get("/api/state").json
    for key in ("turn", "direction", "side", "top", "color", "pawn", "last_cell", "hands",
                "draw_pile", "pending", "winners", "scores", "over", "champions", "game", "seats",
                "signals", "reading", "recent", "timer"):
        assert key in s, key
    assert s["game"] == "flip" and s["turn"] == "ann"
    assert s["signals"]["buzzer"] == "tick" and s["reading"] == {"discard": "red-5"}


def test_frame_is_204_until_the_camera_sends_one(host, client):
    r = client.get("/api/frame.jpg")
    assert r.status_code == 204
    host.show_frame(b"\xff\xd8fake\xff\xd9")
    r = client.get("/api/frame.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data.startswith(b"\xff\xd8")
    assert r.headers["Cache-Control"] == "no-store"
    assert "X-Camera-View" not in r.headers
    # what the camera was doing goes beside the picture, as a word the page translates
    host.show_frame(b"\xff\xd8fake\xff\xd9", view="hands")
    assert client.get("/api/frame.jpg").headers["X-Camera-View"] == "hands"
    host.show_frame(b"\xff\xd8fake\xff\xd9", view="bad\r\nheader")    # never a header of its own
    assert "X-Camera-View" not in client.get("/api/frame.jpg").headers


def test_legal_actions_for_a_seat(flip, client):
    r = client.get("/api/legal?seat=ann")
    assert r.status_code == 200
    dos = {a["do"] for a in r.json["actions"]}
    assert "play" in dos and all(a["by"] == "ann" for a in r.json["actions"])
    assert client.get("/api/legal?seat=zed").status_code == 404


def test_legal_without_a_match(client):
    r = client.get("/api/legal?seat=ann")
    assert r.status_code == 409 and r.json["error"] == "no-match"


def test_deal_grid_is_a_legal_grid(client, host):
    grid = client.get("/api/deal-grid?seed=7").json["grid"]
    assert len(grid) == 5 and all(len(row) == 5 for row in grid)
    assert grid == client.get("/api/deal-grid?seed=7").json["grid"]
    host.start_match({"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                                "grid": grid, "options": {}}})


def test_camera_grid_needs_a_reading(host, client):
    assert client.get("/api/camera-grid").status_code == 404
    grid = [[{"label": "red-1", "confidence": .9}] * 5 for _ in range(5)]
    host.show_reading({"grid": grid})
    assert client.get("/api/camera-grid").json["grid"][0][0] == "red-1"
    assert 'id="deal-camera" >' in client.get("/setup").get_data(as_text=True).replace(
        'id="deal-camera"  >', 'id="deal-camera" >')


def test_unknown_api_and_wrong_method_are_json(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json["error"] == "not-found"
    r = client.get("/api/action")
    assert r.status_code == 405 and r.json["error"] == "bad-method"


# --- joining and acting ------------------------------------------------------------------------

def test_join_needs_the_token(flip, client):
    r = client.post("/api/join", json={"token": "nope", "seat": "ann"})
    assert r.status_code == 403 and r.json["error"] == "bad-token"
    assert "Set-Cookie" not in r.headers


def test_join_needs_a_seat_of_the_match(flip, client):
    r = client.post("/api/join", json={"token": "tok", "seat": "zed"})
    assert r.status_code == 404 and r.json["error"] == "unknown-seat"


def test_join_from_another_origin_is_refused(flip, client):
    r = client.post("/api/join", json={"token": "tok", "seat": "ann"},
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and r.json["error"] == "bad-origin"


def test_join_sets_a_signed_httponly_cookie(flip, client):
    r = client.post("/api/join", json={"token": "tok", "seat": "ann"})
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert r.json["next"] == "/seat/ann"
    assert client.get("/api/state").json["me"] == {"joined": True, "seat": "ann"}


def test_a_joined_phone_plays_for_its_seat(flip, app):
    c, h = joined(app, "ann")
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers=h)
    assert r.status_code == 200 and r.json["ok"] is True
    assert r.json["state"]["turn"] == "ben"
    assert flip.log.entries(flip.table.match_id)[-1]["source"] == "phone"


def _unchanged(host, action):
    before = host.table.state_json()
    n = len(host.table.actions_taken())
    response = action()
    assert host.table.state_json() == before
    assert len(host.table.actions_taken()) == n
    return response


def test_not_joined_is_refused(flip, client):
    r = _unchanged(flip, lambda: client.post("/api/action", json={"by": "ann", "do": "play", "card": "red-7"}))
    assert r.status_code == 401 and r.json["error"] == "not-joined"


def test_missing_or_wrong_csrf_is_refused(flip, app):
    c, _ = joined(app, "ann")
    r = _unchanged(flip, lambda: c.post("/api/action", json={"do": "play", "card": "red-7"}))
    assert r.status_code == 403 and r.json["error"] == "bad-csrf"
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers={"X-CSRF-Token": "x" * 32})
    assert r.status_code == 403


def test_csrf_of_another_phone_is_refused(flip, app):
    c, _ = joined(app, "ann")
    _, other = joined(app, "ben")
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers=other)
    assert r.status_code == 403 and r.json["error"] == "bad-csrf"


def test_forged_cookie_is_not_joined(flip, app):
    c = app.test_client()
    c.set_cookie("companion_phone", "eyJwaWQiOiJ4Iiwic2VhdCI6ImFubiJ9.forged")
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers={"X-CSRF-Token": "x"})
    assert r.status_code == 401


def test_other_origin_is_refused(flip, app):
    c, h = joined(app, "ann")
    r = _unchanged(flip, lambda: c.post("/api/action", json={"do": "play", "card": "red-7"},
                                        headers={**h, "Origin": "http://evil.example"}))
    assert r.status_code == 403 and r.json["error"] == "bad-origin"


def test_same_origin_is_accepted(flip, app):
    c, h = joined(app, "ann")
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers={**h, "Origin": "http://localhost"})
    assert r.status_code == 200 and r.json["ok"]


def test_wrong_seat_is_refused(flip, app):
    c, h = joined(app, "ben")
    r = _unchanged(flip, lambda: c.post("/api/action", json={"by": "ann", "do": "play", "card": "red-7"}, headers=h))
    assert r.status_code == 403 and r.json["error"] == "wrong-seat"


@pytest.mark.parametrize("body, code", [
    (b"{not json", "bad-input"),
    (b"[1, 2]", "bad-input"),
    (json.dumps({"do": "play", "card": "red-77"}).encode(), "bad-card"),
    (json.dumps({"do": "play"}).encode(), "bad-input"),
    (json.dumps({"do": "dance"}).encode(), "bad-input"),
    (json.dumps({"do": "play", "card": "red-7", "extra": 1}).encode(), "bad-input"),
])
def test_malformed_actions_are_400_and_change_nothing(flip, app, body, code):
    c, h = joined(app, "ann")
    events = []
    flip.bus.subscribe(events.append)
    r = _unchanged(flip, lambda: c.post("/api/action", data=body, headers={**h, "Content-Type": "application/json"}))
    assert r.status_code == 400 and r.json["error"] == code and r.json["message"]
    assert events == []          # not even a "refused" event: the table never saw it


def test_timeout_is_not_sent_from_a_phone(flip, app):
    c, h = joined(app, "ann")
    r = _unchanged(flip, lambda: c.post("/api/action", json={"do": "timeout"}, headers=h))
    assert r.status_code == 403 and r.json["error"] == "not-from-phone"


def test_no_match_is_409(host, app):
    host.start_match(FLIP)
    c, h = joined(app, "ann")
    host.end_match()
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers=h)
    assert r.status_code == 409 and r.json["error"] == "no-match"


def test_a_seat_of_an_older_match_is_refused(host, app):
    host.start_match(FLIP)
    c, h = joined(app, "ann")
    host.start_match(grid_setup())            # a new match: every seated phone joins again
    r = c.post("/api/action", json={"do": "move", "to": [1, 1]}, headers=h)
    assert r.status_code == 401 and r.json["error"] == "not-joined"


def test_engine_refusal_is_the_replay_answer_with_200(flip, app):
    c, h = joined(app, "ben")
    r = c.post("/api/action", json={"do": "play", "card": "red-7"}, headers=h)
    assert r.status_code == 200
    assert r.json["ok"] is False and r.json["error"] == "not-your-turn"
    assert set(r.json) >= {"ok", "error", "message", "events", "state"}


def test_organiser_cannot_play_but_may_start_rounds(flip, app):
    c, h = joined(app, None)
    r = c.post("/api/action", json={"by": "ann", "do": "play", "card": "red-7"}, headers=h)
    assert r.status_code == 403 and r.json["error"] == "no-seat"
    r = c.post("/api/action", json={"by": "zed", "do": "round"}, headers=h)
    assert r.status_code == 400


# --- undo with the table's agreement -------------------------------------------------------------

def test_undo_needs_another_seat_to_agree(flip, app):
    ann, ha = joined(app, "ann")
    ben, hb = joined(app, "ben")
    assert ann.post("/api/action", json={"do": "play", "card": "red-7"}, headers=ha).json["ok"]
    seq = ann.get("/api/state").json["undo_seq"]
    r = ann.post("/api/undo", json={"seq": seq}, headers=ha)
    assert r.status_code == 202 and r.json["undo_request"] == {"by": "ann", "seq": seq}
    assert ann.get("/api/state").json["undo_request"] == {"by": "ann", "seq": seq}
    r = ann.post("/api/undo", json={"seq": seq}, headers=ha)
    assert r.status_code == 409 and r.json["error"] == "waiting-for-agreement"
    assert flip.table.state_json()["turn"] == "ben"
    r = ben.post("/api/undo", json={"seq": seq}, headers=hb)
    assert r.status_code == 200 and r.json["ok"]
    assert flip.table.state_json()["turn"] == "ann"
    assert ann.get("/api/state").json["undo_request"] is None


def test_undo_request_can_be_withdrawn_and_goes_stale(flip, app):
    ann, ha = joined(app, "ann")
    ben, hb = joined(app, "ben")
    assert ann.post("/api/undo", json={"cancel": True}, headers=ha).status_code == 409
    ann.post("/api/action", json={"do": "play", "card": "red-7"}, headers=ha)
    seq = ann.get("/api/state").json["undo_seq"]
    ann.post("/api/undo", json={"seq": seq}, headers=ha)
    assert ann.post("/api/undo", json={"cancel": True}, headers=ha).json["undo_request"] is None
    assert ann.post("/api/undo", json={"seq": seq}, headers=ha).status_code == 202  # asked again
    assert ben.post("/api/action", json={"do": "draw"}, headers=hb).json["ok"]   # the game moved on
    flip.bus.join()
    assert ann.get("/api/state").json["undo_request"] is None


def test_undo_refusals(host, app, client):
    r = client.post("/api/undo", json={})
    assert r.status_code == 401
    org, h = joined(app, None)
    host.start_match(FLIP)
    assert org.post("/api/undo", json={"seq": 1}, headers=h).json["error"] == "no-seat"


# --- the camera's questions ------------------------------------------------------------------------

def test_confirm_answers_the_camera(flip, app):
    c, h = joined(app, "ann")
    assert c.post("/api/confirm", json={"choice": 0}, headers=h).status_code == 409
    answers = []
    flip.bus.subscribe(answers.append, types={"confirm-answer"})
    # the camera referee's question, as data (the page words it)
    misread = {"id": 1, "action": None, "nothing": "misread"}
    flip.bus.publish("confirm-needed", id=3, kind="unsure", seat=None, region="discard",
                     card="red-7", choices=[{"id": 0, "action": {"by": "ann", "do": "play",
                                                                 "card": "red-7"}}, misread])
    flip.bus.join()
    confirm = c.get("/api/state").json["confirm"]
    assert (confirm["kind"], confirm["card"], confirm["choices"][1]) == ("unsure", "red-7", misread)
    assert c.post("/api/confirm", json={"choice": 5}, headers=h).status_code == 400
    r = c.post("/api/confirm", json={"choice": 1}, headers=h)
    assert r.status_code == 202
    flip.bus.join()
    assert answers[0].data["choice"] == misread and answers[0].data["seat"] == "ann"
    assert answers[0].data["question"] == 3
    assert c.get("/api/state").json["confirm"] is None


def test_confirm_for_another_seat_and_with_an_action(flip, app):
    ann, ha = joined(app, "ann")
    ben, hb = joined(app, "ben")
    play = {"by": "ann", "do": "play", "card": "red-7"}
    flip.bus.publish("confirm-needed", id=1, kind="unsure", seat="ann", region="discard",
                     card="red-7", choices=[{"id": 0, "action": play},
                                            {"id": 1, "action": None, "nothing": "misread"}])
    flip.bus.join()
    assert ben.post("/api/confirm", json={"choice": 0}, headers=hb).json["error"] == "wrong-seat"
    r = ann.post("/api/confirm", json={"choice": 0}, headers=ha)
    assert r.status_code == 200 and r.json["ok"] and flip.table.state_json()["turn"] == "ben"


# --- set-up -------------------------------------------------------------------------------------------

def test_setup_starts_and_ends_a_match(host, app):
    c, h = joined(app, None)
    r = c.post("/api/match", json=grid_setup(), headers=h)
    assert r.status_code == 200 and r.json["game"] == "grid"
    assert host.table.seats == ["north", "south"]
    assert c.post("/api/match/end", json={}, headers=h).json["ok"]
    assert host.table is None
    r = c.post("/api/match/end", json={}, headers=h)
    assert r.status_code == 409 and r.json["error"] == "no-match"


@pytest.mark.parametrize("body", [
    {"nope": 1},
    {"setup": {"game": "chess", "seats": ["a", "b"]}},
    {"setup": {"game": "flip", "seats": ["ann"], "dealer": "ann", "start": "red-5"}},
    {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north", "grid": [["red-1"]]}},
    {"setup": {"game": "flip", "seats": ["a", "b"], "dealer": "a", "start": "red-5", "options": {"bogus": 1}}},
])
def test_bad_setups_are_400(host, app, body):
    c, h = joined(app, None)
    r = c.post("/api/match", json=body, headers=h)
    assert r.status_code == 400 and r.json["error"] == "bad-setup" and r.json["message"]
    assert host.table is None


def test_setup_needs_a_joined_device(host, client):
    r = client.post("/api/match", json=FLIP)
    assert r.status_code == 401 and host.table is None


def test_setup_page_offers_the_rules_flags(client):
    html = client.get("/setup").get_data(as_text=True)
    data = json.loads(html.split('id="options-data" type="application/json">')[1].split("</script>")[0])
    assert {o["name"] for o in data["grid"]} >= {"decks", "wild_matches_all", "illegal_penalty_draw",
                                                 "turn_seconds", "timeout_action", "match_points"}
    assert {o["name"] for o in data["flip"]} >= {"opening_flip", "auto_uno_penalty", "scoring", "target"}


def test_leave_drops_the_cookie(flip, app):
    c, h = joined(app, "ann")
    assert c.post("/api/leave", json={}, headers=h).json["ok"]
    assert c.get("/api/state").json["me"]["joined"] is False


# --- scoreboard ------------------------------------------------------------------------------------------

def _play_grid_game_out(table):
    for _ in range(200):
        s = table.state_json()
        if s["over"]:
            return
        acts = [a for a in table.legal_actions() if a.by == s["turn"]]
        moves = [a for a in acts if a.do == "move"]
        if moves:
            def edge(a):
                r, c = a.to
                return -1 if not (0 <= r <= 4 and 0 <= c <= 4) else min(r, c, 4 - r, 4 - c)
            table.act(min(moves, key=edge), source="test")
        else:
            table.act(next(a for a in acts if a.do in ("discard", "play")), source="test")
    raise AssertionError("the game did not end")


def test_scoreboard_rounds_totals_chart_and_history(host, client):
    host.start_match(grid_setup(0))
    _play_grid_game_out(host.table)
    html = client.get("/scoreboard").get_data(as_text=True)
    assert "Round 1" in html and "<polyline" in html and "Match history" in html
    data = client.get("/api/scoreboard").json
    assert len(data["current"]["rounds"]) == 1
    assert sorted(data["current"]["totals"].values()) == [0, 2]
    assert data["history"][0]["id"] == host.table.match_id


def test_scoreboard_without_matches(client):
    html = client.get("/scoreboard").get_data(as_text=True)
    assert "No matches yet." in html
    assert client.get("/api/scoreboard").json == {"current": None, "history": []}


# --- the event stream ---------------------------------------------------------------------------------

def test_events_stream_sends_bus_messages_as_data_lines(flip, app):
    broadcaster: Broadcaster = app.extensions["companion"]["stream"]
    client = broadcaster.open()
    stream = broadcaster.stream(client)
    assert next(stream).startswith("retry:")
    assert json.loads(next(stream)[len("data: "):])["type"] == "hello"
    flip.bus.publish("turn", seat="ben")
    chunk = next(stream)
    assert chunk.startswith("data: ") and chunk.endswith("\n\n")
    assert json.loads(chunk[6:]).items() >= {"type": "turn", "seat": "ben"}.items()
    stream.close()
    assert broadcaster.client_count == 0


def test_events_route_is_an_sse_response(app):
    r = app.test_client().get("/api/events", buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"].startswith("no-cache")
    first = next(r.response)
    assert b"retry:" in first
    r.close()


def test_heartbeat_when_nothing_happens():
    bus = EventBus()
    b = Broadcaster(bus, heartbeat_s=0.01)
    stream = b.stream(b.open())
    next(stream), next(stream)
    assert next(stream) == ": heartbeat\n\n"
    stream.close()


def test_a_client_that_stops_reading_never_blocks_the_bus():
    bus = EventBus()
    b = Broadcaster(bus, queue_size=4)
    slow = b.open()
    for i in range(50):
        bus.publish("turn", seat=f"s{i}")        # returns at once although nobody reads
    assert bus.join(timeout=30)                  # and delivery never waits for a reader
    items = [slow.queue.get_nowait() for _ in range(slow.queue.qsize())]
    assert json.loads(items[0])["type"] == "resync"
    assert slow.dropped > 0


def test_too_many_streams_is_503(host):
    app = create_app(host, secret_key="k", table_streams=1)
    c = app.test_client()
    first = c.get("/api/events", buffered=False)
    second = c.get("/api/events")
    assert second.status_code == 503 and second.json["error"] == "too-many-streams"
    first.close()


def test_close_ends_every_stream():
    bus = EventBus()
    b = Broadcaster(bus, heartbeat_s=5)
    stream = b.stream(b.open())
    next(stream), next(stream)
    b.close()
    assert list(stream) == []


def test_recent_events_in_state(flip, app):
    c, h = joined(app, "ann")
    c.post("/api/action", json={"do": "play", "card": "red-7"}, headers=h)
    flip.bus.join()
    kinds = [e["type"] for e in c.get("/api/state").json["recent"]]
    assert "played" in kinds and "turn" in kinds and "state" not in kinds


def test_every_refusal_code_of_the_app_has_words_in_both_languages():
    """The codes the web app refuses with (read from its source, so a new one is checked too)
    have their sentence: the page never shows a bare code, in English or in Japanese."""
    from pathlib import Path

    from web import app as web_app
    from web.i18n import LANGS

    source = "\n".join(p.read_text(encoding="utf-8")
                       for p in Path(web_app.__file__).parent.glob("*.py"))
    codes = set(re.findall(r'(?:ApiError|error)\(\d+, "([a-z-]+)"', source))
    codes |= set(re.findall(r'\bcode = "([a-z-]+)"', source))
    codes |= set(web_app._HTTP_CODES.values()) | {"bad-request", "bad-response"}
    assert {"seat-taken", "organiser-only", "bad-host", "not-joined", "too-large"} <= codes
    for lang in LANGS:
        words = json.loads((Path(web_app.__file__).parent / "i18n" / f"{lang}.json")
                           .read_text(encoding="utf-8"))
        assert sorted(c for c in codes if f"err_{c}" not in words) == [], lang
