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

At least 10,000 requests a run (``FUZZ_REQUESTS`` in all, shared by the match kinds), drawn by
a seeded ``random.Random``: a new seed each run, printed with a failure (``FUZZ_SEED`` replays
it). Not hypothesis: with no shrinking and no example database (50-request examples shrink far
too slowly to be worth it) it gave nothing a seed does not, and its drawing cost as much CPU as
the requests themselves.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
from urllib.parse import quote

import pytest

from companion.cards import CLASSIC, DARK, LIGHT
from companion.engine.actions import ACTIONS
from companion.eventlog import EventLog
from companion.host import Host
from companion.replay import Replay
from tests.support.games import flip_setup, grid_setup
from tests.support.flip_games import check_invariants as flip_invariants
from tests.support.grid_games import check_invariants as grid_invariants
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

# Any text: control characters, lone surrogates and characters beyond the BMP included.
_CODE_POINTS = [(0x20, 0x7E)] * 6 + [(0x00, 0x1F), (0x7F, 0x9F), (0xA0, 0x2FF), (0x3000, 0x30FF),
                                     (0xD800, 0xDFFF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]


def text(rng: random.Random, max_size: int = 12) -> str:
    """Any text, up to ``max_size`` characters: mostly printable ASCII, else from every plane."""
    out = []
    for _ in range(rng.randint(0, max_size)):
        low, high = rng.choice(_CODE_POINTS)
        out.append(chr(rng.randint(low, high)))
    return "".join(out)


#: Values a clumsy or hostile client sends where something else belongs (one draw each).
HOSTILE = [None, True, False, 0, -1, 1, 2**31, 2**63, 10**30, -10**30, 1e308, -0.0, 3.5, "",
           " ", "\ud800", "\udfff", "é", "\x00", "\x1b[2J", "a" * 5000, "red-5", "RED-5", "wild",
           "wild-draw-four", "dark-pink-skip-everyone", "1", "ann", "north", "zed", [], {}, [[[]]],
           {"a": {"b": [None]}}, ["red-5"], [0, 0], [0], [0, 0, 0], [-1, 5], [10**30, 0],
           ["0", "0"], [True, False], [[0, 0]], {"do": "play"}, ["red-5"] * 40]
_FLOATS = [0.0, -0.0, 0.5, -1.5, 1e-308, 5e-324, 1e308, -1e308, math.inf, -math.inf, 2.0**53]


def _json_leaf(rng: random.Random):
    pick = rng.randrange(5)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice([rng.randint(-2**70, 2**70), rng.randint(-3, 3)])
    if pick == 3:
        return rng.choice(_FLOATS + [rng.uniform(-1e6, 1e6)])
    return text(rng)


def _json_value(rng: random.Random, leaves: list[int]):
    """A JSON-like value of at most ``leaves[0]`` leaves (lists and objects up to 3 items)."""
    if leaves[0] <= 1 or rng.random() < 0.5:
        leaves[0] -= 1
        return _json_leaf(rng)
    size = rng.randint(0, 3)
    if rng.random() < 0.5:
        return [_json_value(rng, leaves) for _ in range(size) if leaves[0] > 0]
    return {text(rng): _json_value(rng, leaves) for _ in range(size) if leaves[0] > 0}


def junk(rng: random.Random):
    """Something that does not belong: a hostile value (5 in 7), text, or nested JSON."""
    pick = rng.randrange(7)
    if pick < 5:
        return rng.choice(HOSTILE)
    return text(rng) if pick == 5 else _json_value(rng, [6])


HUGE_INTS = [0, -1, 1, 2**31, 2**63, 10**30, -10**30, 9999, 10000]


def wire(text: str) -> str:
    """``text`` as a real server hands a header to the app: its UTF-8 bytes read as latin-1
    (less line breaks, which end a header: no request can carry them in one)."""
    raw = text.encode("utf-8", "surrogatepass").decode("latin-1")
    return raw.replace("\r", "").replace("\n", "")


def wire_text(rng: random.Random) -> str:
    return wire(text(rng))


EXTRA_HEADER_NAMES = ["Origin", "Content-Type", "Accept-Language", "Accept", "Host",
                      "X-Forwarded-For", "Range", "If-None-Match", "Content-Encoding"]
EXTRA_HEADER_VALUES = ["http://localhost", "http://evil.example", "application/json",
                       "multipart/form-data; boundary=x", "ja,en;q=0.5", "*/*", "bytes=0-1",
                       "gzip", "a" * 20_000]


def extra_headers(rng: random.Random) -> dict[str, str]:
    return {rng.choice(EXTRA_HEADER_NAMES): rng.choice(EXTRA_HEADER_VALUES)
            if rng.random() < 0.5 else wire_text(rng) for _ in range(rng.randint(0, 3))}


def _path_text(text: str) -> str:
    return quote(text, safe="", errors="surrogatepass")


def _query_text(text: str) -> str:
    return quote(text, errors="surrogatepass")


def _int_list(rng: random.Random, low: int, high: int, sizes: tuple[int, int], huge=False):
    return [rng.choice(HUGE_INTS) if huge and rng.random() < 0.5 else rng.randint(low, high)
            for _ in range(rng.randint(*sizes))]


def _one_of(rng: random.Random, *makers):
    """One of ``makers`` picked evenly, then called with ``rng`` (as ``a | b | c`` in hypothesis:
    only the one picked draws anything)."""
    return rng.choice(makers)(rng)


def _either(rng: random.Random, right, wrong=junk):
    """Half the time ``right(rng)``, else ``wrong(rng)``."""
    return _one_of(rng, right, wrong)


def action_body(rng: random.Random, seats: list[str]) -> dict:
    """An action in the replay form, right or subtly wrong: a ``do`` and up to three fields."""
    fields = {"by": lambda r: _either(r, lambda r: r.choice(seats + ["zed", ""])),
              "card": lambda r: _one_of(r, lambda r: r.choice(CARD_NAMES), text, junk),
              "cell": lambda r: _either(r, lambda r: _int_list(r, -2, 6, (0, 3), huge=True)),
              "to": lambda r: _either(r, lambda r: _int_list(r, -2, 6, (2, 2))),
              "count": lambda r: _one_of(r, lambda r: r.choice(HUGE_INTS),
                                         lambda r: r.randint(0, 5), junk),
              "points": lambda r: _one_of(r, lambda r: r.choice(HUGE_INTS),
                                          lambda r: r.randint(0, 50), junk),
              "color": lambda r: _either(r, lambda r: r.choice(["red", "blue", "pink", "black"])),
              "target": lambda r: _either(r, lambda r: r.choice(seats)),
              "verdict": lambda r: r.choice(["guilty", "innocent", "maybe"]),
              "cards": lambda r: _either(r, lambda r: [r.choice(CARD_NAMES)
                                                       for _ in range(r.randint(0, 8))])}
    body = {"do": _either(rng, lambda r: r.choice(ACTION_NAMES))}
    for name in rng.sample(FIELD_NAMES, rng.randint(0, 3)):
        body[name] = fields[name](rng)
    return body


ACTION_NAMES = sorted(ACTIONS)
FIELD_NAMES = ["by", "card", "cell", "cards", "color", "count", "points", "target", "to",
               "verdict"]
SETUP_FIELDS = ["game", "seats", "first", "dealer", "start", "grid", "options"]


def setup_body(rng: random.Random) -> dict:
    """A set-up: one of the real ones, perhaps with a field broken."""
    game = rng.choice([g for g in SETUPS if g])
    setup = json.loads(json.dumps(SETUPS[game]))
    if rng.random() < 0.5:
        setup["setup"][rng.choice(SETUP_FIELDS)] = _either(
            rng, junk, lambda r: [text(r) for _ in range(r.randint(0, 4))])
    return setup


RAW_BODIES = [b"[" * 30_000 + b"]" * 30_000, b"{" * 50 + b"}" * 50, b'{"do": "\xff\xfe"}',
              b'{"do": "draw", "count": ' + b"9" * 5000 + b"}", b'{"count": NaN}', b"\x00" * 64,
              b"", b"null", b"[]", b'"x"', b"{", b'{"do": "draw"}' * 2,
              b'{"x": "' + b"a" * 70_000 + b'"}', b'{"\xed\xa0\x80": 1}']
KINDS = ["legal"] * 4 + ["action"] * 3 + ["route"] * 3 + ["odd", "raw", "setup", "undo"]
UNDO_PATHS = ["/api/undo", "/api/confirm", "/api/match/end", "/api/leave"]
UNDO_BODIES = [{}, {"cancel": True}, {"choice": 0}, {"choice": 1}]
CSRF_KINDS = ["right"] * 6 + ["none", "wrong", "text", "huge"]


def route_path(rng: random.Random) -> str:
    pick = rng.randrange(4)
    if pick == 0:
        return rng.choice(ROUTES)
    if pick == 1:
        return "/seat/" + _path_text(text(rng))
    if pick == 2:
        return "/join/" + _path_text(text(rng))
    return "/api/legal?seat=" + _query_text(text(rng))


def undo_body(rng: random.Random) -> dict:
    if rng.random() < 0.5:
        return rng.choice(UNDO_BODIES)
    return {rng.choice(["cancel", "choice"]): junk(rng) for _ in range(rng.randint(0, 2))}


def request(rng: random.Random, world: "World"):
    """One request: (role, method, path, headers, body bytes or None)."""
    role = rng.choice(world.role_names)
    kind = rng.choice(KINDS)
    method, path, body = "POST", "/api/action", None
    if kind == "legal":
        body = world.legal_action(rng, role)
    elif kind == "action":
        body = action_body(rng, world.seats)
    elif kind == "setup":
        path, body = "/api/match", setup_body(rng)
    elif kind == "undo":
        path, body = rng.choice(UNDO_PATHS), undo_body(rng)
    elif kind == "route":
        method, path = rng.choice(METHODS), route_path(rng)
        if method == "POST" and rng.random() < 0.5:
            path = rng.choice(POSTS)
        body = _one_of(rng, lambda r: None, lambda r: action_body(r, world.seats),
                       lambda r: {"token": "tok", "seat": None})
    elif kind == "odd":
        method, path = rng.choice(METHODS), rng.choice(ODD_PATHS)
    else:
        path, body = rng.choice(POSTS), rng.choice(RAW_BODIES)
    if isinstance(body, dict):
        body = json.dumps(body).encode()
    if rng.randrange(8) == 0:
        path += ("&" if "?" in path else "?") + "lang=" + _query_text(text(rng))
    return role, method, path, world.headers(rng, role), body


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
            r = self.client.post("/api/join", json={"token": "tok", "seat": seat,
                                                    "pin": self.app.extensions["companion"]
                                                    ["phones"].organiser_pin})
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

    def legal_action(self, rng, role):
        table = self.host.table
        if table is None:
            return {"do": "pass"}
        # only the drawn action is turned into JSON (each of 150 cost a third of a grid run's CPU)
        legal = list(itertools.islice(table.game.legal_actions(table.state), 150))
        mine = [a for a in legal if a.by == role] or legal
        if not mine:
            return {"do": "round", "by": self.seats[0]}
        return rng.choice(mine).to_json()

    def headers(self, rng, role):
        cookie, csrf = self.roles[role]
        headers = {}
        csrf_kind = rng.choice(CSRF_KINDS)
        if csrf_kind == "right" and csrf:
            headers["X-CSRF-Token"] = csrf
        elif csrf_kind == "wrong":
            headers["X-CSRF-Token"] = "0" * 32
        elif csrf_kind == "text":
            headers["X-CSRF-Token"] = wire_text(rng)
        elif csrf_kind == "huge":
            headers["X-CSRF-Token"] = "é" * 100_000
        cookies = [f"{COOKIE}={cookie}"] if cookie else []
        if rng.randrange(8) == 0:
            cookies.append(f"{COOKIE}={wire_text(rng)}")
        if rng.randrange(8) == 0:
            cookies.append("lang=" + wire_text(rng))
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        if rng.randrange(4) == 0:
            headers.update(extra_headers(rng))
        return headers

    def snapshot(self):
        self.host.bus.join()     # what earlier requests published has reached self.published
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
    # A new seed each run (as hypothesis draws anew), printed with any failure: FUZZ_SEED=<seed>
    # replays that run's requests exactly.
    seed = int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(2**32))
    rng = random.Random(f"{seed}/{game}")
    sent = 0
    for example in range(EXAMPLES):
        world = World(game)     # a fresh app every PER_EXAMPLE requests
        for _ in range(PER_EXAMPLE):
            request_ = request(rng, world)
            try:
                world.send(request_)
            except AssertionError as failure:
                raise AssertionError(f"{failure}\n(FUZZ_SEED={seed}, world {example}, "
                                     f"request {world.sent}: {request_!r:.2000})") from None
        sent += world.sent
    assert sent >= FUZZ_REQUESTS / len(SETUPS)
