"""Fuzzing the web app as an attacker and a clumsy user would, through Flask's test client.

Every match kind (no match, grid, flip, classic, timer, scoreboard) gets random requests from
every role (no phone, a forged or stale cookie, the organiser, a joined phone of each seat):
every route and odd paths, every method, headers that are wrong, non-ASCII or huge, bodies
nested deep, of the wrong types, with huge numbers or not UTF-8, and (to get past the guards)
actions the rules allow now. After each request:

* never a 5xx, never a traceback in the body;
* a refused request (4xx), and any GET, changed nothing: the table, its state and history,
  the event log, the web state (open question, undo request) and the bus (nothing published);
* after an accepted one the replay invariants hold: replaying the set-up and the actions the
  table took gives the table's state, the event log holds those same actions, the state is
  well formed (seats, turn, scores, hands), and the engine's own invariants (those of its
  property tests: cards conserved, one seat on turn, ...) hold.

At least 10,000 requests a run (``FUZZ_REQUESTS`` in all, shared by the match kinds).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from companion.cards import CLASSIC, DARK, LIGHT
from companion.engine.actions import ACTIONS
from companion.eventlog import EventLog
from companion.host import Host
from companion.replay import Replay
from tests.support.games import flip_setup, grid_setup
from tests.test_engine_flip_props import check_invariants as flip_invariants
from tests.test_engine_grid_props import check_invariants as grid_invariants
from web import create_app
from web.auth import COOKIE

FUZZ_REQUESTS = int(os.environ.get("FUZZ_REQUESTS", "10000"))
PER_EXAMPLE = 100

SETUPS = {
    None: None,
    "grid": grid_setup(7, seats=("north", "south")),
    "flip": flip_setup("flip"),
    "classic": flip_setup("classic"),
    "timer": {"setup": {"game": "timer", "seats": ["ann", "ben", "cai"],
                        "options": {"turn_seconds": 0}}},
    "scoreboard": {"setup": {"game": "scoreboard", "seats": ["ann", "ben", "cai"],
                             "options": {"target": 60}}},
}
#: The engines' own state invariants (their property tests'), checked after accepted requests.
ENGINE_INVARIANTS = {"grid": grid_invariants, "flip": flip_invariants, "classic": flip_invariants}
EXAMPLES = math.ceil(FUZZ_REQUESTS / PER_EXAMPLE / len(SETUPS))

ROUTES = ["/", "/setup", "/scoreboard", "/seat/ann", "/seat/north", "/join/tok",
          "/api/state", "/api/scoreboard", "/api/frame.jpg", "/api/qr.svg", "/api/camera-grid",
          "/api/deal-grid", "/api/deal-grid?seed=3", "/api/legal", "/api/legal?seat=ann",
          "/api/events", "/api/action", "/api/undo", "/api/confirm", "/api/join", "/api/leave",
          "/api/match", "/api/match/end", "/static/common.js", "/static/app.css"]
POSTS = ["/api/action", "/api/undo", "/api/confirm", "/api/join", "/api/leave", "/api/match",
         "/api/match/end"]
ODD_PATHS = ["/api/", "/api/nope", "//", "/%ff%fe", "/seat/%ed%a0%80", "/join/%ed%a0%80",
             "/join/%C3%A9", "/api/action/", "/static/../web/app.py", "/join/%00", "/seat/",
             "/" + "a" * 5000, "/api/legal?seat=%ff", "/?lang=%ed%a0%80", "/api/state?lang=xx",
             "/api/legal?seat=" + "x" * 5000, "/api/deal-grid?seed=" + "9" * 5000]
METHODS = ["GET", "GET", "POST", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD",
           "OPTIONS"]
CARD_NAMES = sorted({c.name for fs in (CLASSIC, LIGHT, DARK) for c in fs.faces})

# Any text: control characters and lone surrogates included.
texts = st.text(st.characters(codec=None, categories=None), max_size=12)
#: Values a clumsy or hostile client sends where something else belongs (one draw each).
HOSTILE = [None, True, False, 0, -1, 1, 2**31, 2**63, 10**30, -10**30, 1e308, -0.0, 3.5, "",
           " ", "\ud800", "\udfff", "é", "\x00", "\x1b[2J", "a" * 5000, "red-5", "RED-5", "wild",
           "wild-draw-four", "dark-pink-skip-everyone", "1", "ann", "north", "zed", [], {}, [[[]]],
           {"a": {"b": [None]}}, ["red-5"], [0, 0], [0], [0, 0, 0], [-1, 5], [10**30, 0],
           ["0", "0"], [True, False], [[0, 0]], {"do": "play"}, ["red-5"] * 40]
junk = st.one_of([st.sampled_from(HOSTILE)] * 5 + [texts, st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6)])
huge_ints = st.sampled_from([0, -1, 1, 2**31, 2**63, 10**30, -10**30, 9999, 10000])


def wire(text: str) -> str:
    """``text`` as a real server hands a header to the app: its UTF-8 bytes read as latin-1
    (less line breaks, which end a header: no request can carry them in one)."""
    raw = text.encode("utf-8", "surrogatepass").decode("latin-1")
    return raw.replace("\r", "").replace("\n", "")


WIRE_TEXTS = texts.map(wire)
EXTRA_HEADERS = st.dictionaries(
    st.sampled_from(["Origin", "Content-Type", "Accept-Language", "Accept", "Host",
                     "X-Forwarded-For", "Range", "If-None-Match", "Content-Encoding"]),
    st.sampled_from(["http://localhost", "http://evil.example", "application/json",
                     "multipart/form-data; boundary=x", "ja,en;q=0.5", "*/*", "bytes=0-1",
                     "gzip", "a" * 20_000]) | WIRE_TEXTS,
    max_size=3)


def _path_text(text: str) -> str:
    return quote(text, safe="", errors="surrogatepass")


def _query_text(text: str) -> str:
    return quote(text, errors="surrogatepass")


@functools.lru_cache(maxsize=None)
def action_bodies(seats: tuple[str, ...]):
    """Actions in the replay form, right or subtly wrong: a ``do`` and up to three fields."""
    seat_list = list(seats)
    fields = {"by": st.sampled_from(seat_list + ["zed", ""]) | junk,
              "card": st.sampled_from(CARD_NAMES) | texts | junk,
              "cell": st.lists(huge_ints | st.integers(-2, 6), max_size=3) | junk,
              "to": st.lists(st.integers(-2, 6), min_size=2, max_size=2) | junk,
              "count": huge_ints | st.integers(0, 5) | junk,
              "points": huge_ints | st.integers(0, 50) | junk,
              "color": st.sampled_from(["red", "blue", "pink", "black"]) | junk,
              "target": st.sampled_from(seat_list) | junk,
              "verdict": st.sampled_from(["guilty", "innocent", "maybe"]),
              "cards": st.lists(st.sampled_from(CARD_NAMES), max_size=8) | junk}
    names = st.lists(st.sampled_from(sorted(fields)), max_size=3, unique=True)
    dos = st.sampled_from(sorted(ACTIONS)) | junk

    @st.composite
    def bodies(draw):
        body = {"do": draw(dos)}
        for name in draw(names):
            body[name] = draw(fields[name])
        return body
    return bodies()


SETUP_FIELDS = st.sampled_from(["game", "seats", "first", "dealer", "start", "grid", "options"])
SETUP_JUNK = junk | st.lists(texts, max_size=4)


@st.composite
def setup_bodies(draw):
    """A set-up: one of the real ones, perhaps with a field broken."""
    game = draw(st.sampled_from([g for g in SETUPS if g]))
    setup = json.loads(json.dumps(SETUPS[game]))
    if draw(st.booleans()):
        setup["setup"][draw(SETUP_FIELDS)] = draw(SETUP_JUNK)
    return setup


RAW_BODIES = [b"[" * 30_000 + b"]" * 30_000, b"{" * 50 + b"}" * 50, b'{"do": "\xff\xfe"}',
              b'{"do": "draw", "count": ' + b"9" * 5000 + b"}", b'{"count": NaN}', b"\x00" * 64,
              b"", b"null", b"[]", b'"x"', b"{", b'{"do": "draw"}' * 2,
              b'{"x": "' + b"a" * 70_000 + b'"}', b'{"\xed\xa0\x80": 1}']
KINDS = st.sampled_from(["legal"] * 4 + ["action"] * 3 + ["route"] * 3
                        + ["odd", "raw", "setup", "undo"])
ROUTE_PATHS = (st.sampled_from(ROUTES) | texts.map(_path_text).map("/seat/".__add__)
               | texts.map(_path_text).map("/join/".__add__)
               | texts.map(_query_text).map("/api/legal?seat=".__add__))
UNDO_PATHS = st.sampled_from(["/api/undo", "/api/confirm", "/api/match/end", "/api/leave"])
UNDO_BODIES = (st.sampled_from([{}, {"cancel": True}, {"choice": 0}, {"choice": 1}])
               | st.dictionaries(st.sampled_from(["cancel", "choice"]), junk, max_size=2))
LANGS = texts.map(_query_text)
CSRF_KINDS = st.sampled_from(["right"] * 6 + ["none", "wrong", "text", "huge"])
ONE_IN_8 = st.integers(0, 7)
ONE_IN_4 = st.integers(0, 3)


@st.composite
def requests(draw, world):
    """One request: (role, method, path, headers, body bytes or None)."""
    role = draw(st.sampled_from(world.role_names))
    kind = draw(KINDS)
    method, path, body = "POST", "/api/action", None
    if kind == "legal":
        body = world.legal_action(draw, role)
    elif kind == "action":
        body = draw(action_bodies(tuple(world.seats)))
    elif kind == "setup":
        path, body = "/api/match", draw(setup_bodies())
    elif kind == "undo":
        path, body = draw(UNDO_PATHS), draw(UNDO_BODIES)
    elif kind == "route":
        method, path = draw(st.sampled_from(METHODS)), draw(ROUTE_PATHS)
        if method == "POST" and draw(st.booleans()):
            path = draw(st.sampled_from(POSTS))
        body = draw(st.none() | action_bodies(tuple(world.seats))
                    | st.just({"token": "tok", "seat": None}))
    elif kind == "odd":
        method, path = draw(st.sampled_from(METHODS)), draw(st.sampled_from(ODD_PATHS))
    else:
        path, body = draw(st.sampled_from(POSTS)), draw(st.sampled_from(RAW_BODIES))
    if isinstance(body, dict):
        body = json.dumps(body).encode()
    if draw(ONE_IN_8) == 0:
        path += ("&" if "?" in path else "?") + "lang=" + draw(LANGS)
    return role, method, path, world.headers(draw, role), body


class World:
    """One app with a match (or none) and a phone (cookie, CSRF token) for every role."""

    def __init__(self, game):
        self.host = Host(EventLog(":memory:"))
        if SETUPS[game] is not None:
            self.host.start_match(SETUPS[game])
        self.app = create_app(self.host, secret_key="fuzz", join_token="tok")
        self.client = self.app.test_client(use_cookies=False)
        self.seats = self.host.table.seats if self.host.table else ["ann"]
        self.roles = {"nobody": (None, None), "forged": ("x.y.z", "0" * 32)}
        for seat in ([None] + self.host.table.seats if self.host.table else [None]):
            r = self.client.post("/api/join", json={"token": "tok", "seat": seat})
            cookie = r.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
            self.roles["organiser" if seat is None else seat] = (cookie, r.json["csrf"])
        phones = self.app.extensions["companion"]["phones"]
        # a cookie signed by this server but revoked (its phone left): refused like any other
        stale_phone, stale_cookie = phones.join(None)
        phones.leave(stale_phone)
        self.roles["stale"] = (stale_cookie, phones.csrf_for(stale_phone))
        self.published = []
        self.host.bus.subscribe(lambda m: self.published.append(m.type))
        if self.host.table is not None and game != "grid":   # a camera question to answer
            seat = self.seats[0]
            self.host.bus.publish("confirm-needed", seat=None, question="who?", choices=[
                {"label": seat, "action": {"by": seat, "do": "pass"}}, "nobody"])
        self.role_names = sorted(self.roles)
        self.replay, self.replay_table = (None, []), None
        self.sent = 0

    def legal_action(self, draw, role):
        table = self.host.table
        if table is None:
            return {"do": "pass"}
        legal = [a.to_json() for a in itertools.islice(table.game.legal_actions(table.state), 150)]
        mine = [a for a in legal if a["by"] == role] or legal
        if not mine:
            return {"do": "round", "by": self.seats[0]}
        return draw(st.sampled_from(mine))

    def headers(self, draw, role):
        cookie, csrf = self.roles[role]
        headers = {}
        csrf_kind = draw(CSRF_KINDS)
        if csrf_kind == "right" and csrf:
            headers["X-CSRF-Token"] = csrf
        elif csrf_kind == "wrong":
            headers["X-CSRF-Token"] = "0" * 32
        elif csrf_kind == "text":
            headers["X-CSRF-Token"] = draw(WIRE_TEXTS)
        elif csrf_kind == "huge":
            headers["X-CSRF-Token"] = "é" * 100_000
        cookies = [f"{COOKIE}={cookie}"] if cookie else []
        if draw(ONE_IN_8) == 0:
            cookies.append(f"{COOKIE}={draw(WIRE_TEXTS)}")
        if draw(ONE_IN_8) == 0:
            cookies.append("lang=" + draw(WIRE_TEXTS))
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        if draw(ONE_IN_4) == 0:
            headers.update(draw(EXTRA_HEADERS))
        return headers

    def snapshot(self):
        table = self.host.table
        web = self.app.extensions["companion"]["web"]
        # The two newest matches: a request can only start one, or touch the one being played.
        log = [(m["id"], m["ended"], m["result"], len(self.host.log.entries(m["id"])))
               for m in self.host.log.matches(limit=2)]
        return (id(table), table and table.state_json(), table and table.actions_taken(), log,
                web.confirm, web.undo_request, len(self.published))

    def send(self, request):
        role, method, path, headers, body = request
        before = self.snapshot()
        response = self.client.open(path, method=method, headers=headers, data=body)
        self.sent += 1
        status = response.status_code
        if response.mimetype == "text/event-stream":
            response.close()       # an endless stream: its status is all there is to check
            text = ""
        else:
            text = response.get_data(as_text=True)
        where = f"{method} {path[:120]} as {role}: {status}"
        assert status < 500, where
        assert "Traceback" not in text and 'File "' not in text, where
        if 400 <= status < 500 or method in ("GET", "HEAD", "OPTIONS"):
            assert self.snapshot() == before, f"{where} changed something"
        if 400 <= status < 500 and path.startswith("/api/") and method != "HEAD":
            answer = json.loads(text)
            assert answer["ok"] is False and isinstance(answer["error"], str), where
            assert answer["message"], where
        if status < 300:
            self.check_invariants(where)

    def check_invariants(self, where):
        table = self.host.table
        if table is None:
            return
        taken = table.actions_taken()
        # The replay goes on from where it was while the table only grew (else it starts over).
        replay, done = self.replay
        if replay is None or self.replay_table is not table or taken[:len(done)] != done:
            replay, done = Replay(table.setup), []
        for action in taken[len(done):]:
            replay.answer(action)
        self.replay, self.replay_table = (replay, list(taken)), table
        state = table.state_json()
        assert replay.game.to_json(replay.state) == state, f"{where}: the replay disagrees"
        logged = []
        for entry in self.host.log.entries(table.match_id):
            if entry["action"].get("do") == "undo":
                if logged:
                    logged.pop()
            else:
                logged.append(entry["action"])
        assert logged == taken, f"{where}: the event log disagrees with the table"
        seats = table.seats
        assert state.get("seats", seats) == seats and set(state["hands"]) <= set(seats)
        assert state["turn"] is None or state["turn"] in seats
        assert set(state["scores"]) <= set(seats)
        assert set(state["winners"]) <= set(seats) and set(state["champions"]) <= set(seats)
        assert all(isinstance(n, int) and n >= 0 for n in state["hands"].values())
        assert state["draw_pile"] is None or state["draw_pile"] >= 0
        engine_invariants = ENGINE_INVARIANTS.get(table.game.name)
        if engine_invariants is not None:
            engine_invariants(table.game, table.state)


@pytest.mark.parametrize("game", list(SETUPS))
def test_no_request_breaks_the_app_or_changes_anything_when_refused(game):
    sent = []

    # No shrinking: a failure's request is printed as drawn (shrinking 50 requests is slow).
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(st.data())
    def fuzz(data):
        world = World(game)
        for _ in range(PER_EXAMPLE):
            world.send(data.draw(requests(world)))
        sent.append(world.sent)

    fuzz()
    assert sum(sent) >= FUZZ_REQUESTS / len(SETUPS)
