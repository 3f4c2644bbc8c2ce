"""The Flask app: the table view, the phone seat pages, the scoreboard, the set-up, and the API.

Pages are rendered by the server and brought to life by small scripts in ``web/static`` that
follow ``GET /api/events`` (Server-Sent Events) and send actions with ``POST /api/action``.
Every asset is served from here: the companion works with no internet.

Refusals are JSON ``{"ok": false, "error": CODE, "message": ...}`` with a 4xx status when the
*request* is wrong (not joined, bad CSRF, wrong seat, malformed, no match) and nothing is
changed; when the request is fine but the rule engine refuses the action, the answer is the
replay answer with HTTP 200 and ``ok: false`` (a refused flip/classic play may still have cost
a penalty, and its ``events`` and ``state`` say so).
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections import deque
from dataclasses import fields
from typing import Any
from urllib.parse import urlsplit

from flask import (Blueprint, Flask, Response, current_app, g, jsonify, make_response, redirect,
                   render_template, request, stream_with_context, url_for)

from companion.bus import BusMessage
from companion.cards import CLASSIC, DARK, FACE_SETS, LIGHT
from companion.decks import classic_deck
from companion.engine import GAME_NAMES, RuleError, SetupError, game_class
from companion.engine.actions import action_from_json
from companion.host import Host, NoMatch

from . import i18n, qr
from .auth import COOKIE, CSRF_HEADER, Phone, Phones
from .netinfo import is_loopback, lan_ip
from .scores import chart_svg, scoreboard
from .stream import Broadcaster, TooManyClients

__all__ = ["create_app", "WebState"]

#: Actions a phone may send for its own seat (``timeout`` belongs to the turn timer).
PHONE_ACTIONS = frozenset({"play", "move", "discard", "draw", "pass", "uno", "catch", "challenge",
                           "accept", "reveal", "declare", "show", "score", "round", "penalty"})
#: What the organiser (joined with no seat) may send, naming the seat it is for: starting rounds,
#: penalties, and (scoreboard) typing a player's points for them.
ORGANISER_ACTIONS = frozenset({"round", "penalty", "score"})
#: The highest hand a phone may type on the scoreboard (more is a typo, not a hand).
MAX_HAND_POINTS = 9999
#: The only actions of the two table modes with no rules (anything else: 400, unseen by the table).
MODE_ACTIONS = {"timer": frozenset({"pass", "timeout"}),
                "scoreboard": frozenset({"score", "show", "round"})}
#: Bus events not worth a line in "what happened" (big or very frequent).
_QUIET = {"state", "table-ready", "action", "reading", "signals"}
UNDO_REQUEST_S = 60.0

bp = Blueprint("web", __name__)


class WebState:
    """What the web side remembers between requests: recent events, the open camera question,
    the pending undo request. Fed from the bus (fast: it only appends)."""

    def __init__(self, host: Host):
        self.host = host
        self.recent: deque[dict[str, Any]] = deque(maxlen=40)
        self.confirm: dict[str, Any] | None = None
        self.undo_request: dict[str, Any] | None = None
        self.lock = threading.Lock()
        self._unsubscribe = host.bus.subscribe(self._on_message)

    def _on_message(self, m: BusMessage) -> None:
        with self.lock:
            if m.type == "timer" and m.data.get("kind") == "tick":
                return
            if m.type == "match-started":
                self.recent.clear()           # the words are about this match
            if m.type not in _QUIET:
                self.recent.append(m.to_json())
            if m.type == "confirm-needed":
                self.confirm = m.to_json()
            elif m.type in ("confirmed", "match-started", "match-ended"):
                self.confirm = None
            # Anything that moves the game on makes an undo request stale.
            if m.type in ("action", "undone", "match-started", "match-ended", "undo-cancelled"):
                self.undo_request = None

    def pending_undo(self) -> dict[str, Any] | None:
        with self.lock:
            req = self.undo_request
            if req is not None and time.monotonic() - req["at"] > UNDO_REQUEST_S:
                self.undo_request = req = None
            return None if req is None else {"by": req["by"]}

    def close(self) -> None:
        self._unsubscribe()


def create_app(host: Host, *, secret_key: str | None = None, public_url: str | None = None,
               join_token: str | None = None, heartbeat_s: float = 15.0,
               max_streams: int = 64) -> Flask:
    """The web app for ``host``.

    ``secret_key`` signs the phone cookies (a random one per run when not given: phones then
    re-join after a restart). ``public_url`` (``http://192.168.1.20:8000``) overrides the address
    put in the QR code; by default it is this machine's LAN IP address and the port the page was
    asked on. ``join_token`` fixes the token of the join link (random by default).
    """
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_hex(32),
        PUBLIC_URL=public_url.rstrip("/") if public_url else None,
        JSON_SORT_KEYS=False,
        SEND_FILE_MAX_AGE_DEFAULT=300,
    )
    app.extensions["companion"] = {
        "host": host,
        "phones": Phones(app.config["SECRET_KEY"], join_token),
        "stream": Broadcaster(host.bus, heartbeat_s=heartbeat_s, max_clients=max_streams),
        "web": WebState(host),
        "lan_ip": lan_ip(),
    }
    app.register_blueprint(bp)
    app.before_request(_before)
    app.after_request(_after)
    app.context_processor(_template_globals)
    return app


# --- plumbing ------------------------------------------------------------------------------

def _ext() -> dict[str, Any]:
    return current_app.extensions["companion"]


def _host() -> Host:
    return _ext()["host"]


def _phones() -> Phones:
    return _ext()["phones"]


def _web() -> WebState:
    return _ext()["web"]


def _before() -> None:
    g.lang = i18n.choose(request.args.get("lang"), request.cookies.get("lang"),
                         request.accept_languages)
    g.phone = _phones().read_cookie(request.cookies.get(COOKIE))


def _after(response: Response) -> Response:
    if request.args.get("lang") in i18n.LANGS:
        response.set_cookie("lang", request.args["lang"], max_age=365 * 86400, samesite="Lax")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype == "text/html":
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
    return response


def _t(key: str, **values: Any) -> str:
    return i18n.translate(g.lang, key, **values)


def _template_globals() -> dict[str, Any]:
    phone: Phone | None = g.get("phone")
    return {
        "t": _t, "lang": g.get("lang", i18n.DEFAULT), "langs": i18n.LANGS, "phone": phone,
        "csrf": _phones().csrf_for(phone) if phone else "",
        "strings_json": json.dumps(i18n.strings(g.get("lang", i18n.DEFAULT)), ensure_ascii=False),
        "decks_json": json.dumps(_decks()),
    }


def _decks() -> dict[str, Any]:
    out = {}
    for fs in (CLASSIC, LIGHT, DARK):
        out[fs.name] = {"colors": list(fs.colors), "faces": list(fs.numbers + fs.actions),
                        "wilds": list(fs.wilds), "points": dict(fs.points_table)}
    return out


def error(status: int, code: str, message: str, **extra: Any) -> Response:
    response = jsonify({"ok": False, "error": code, "message": message, **extra})
    response.status_code = status
    return response


def _join_url() -> str:
    base = current_app.config["PUBLIC_URL"]
    if base is None:
        parts = urlsplit(request.host_url)
        hostname = parts.hostname or "127.0.0.1"
        bound = current_app.config.get("BIND_ADDRESS")
        if bound and is_loopback(bound):
            address = bound               # served only to this machine: say so honestly
        elif is_loopback(hostname) or hostname.endswith(".local") or "." not in hostname:
            address = _ext()["lan_ip"]    # phones need an IP address, not a host name
        else:
            address = hostname
        port = f":{parts.port}" if parts.port else ""
        base = f"{parts.scheme}://{address}{port}"
    return f"{base}/join/{_phones().join_token}"


def _guard(*, need_seat: bool = False) -> Response | Phone:
    """The checks of every POST: same origin, a joined phone, its CSRF header."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
        return error(403, "bad-origin", f"requests from {origin} are not accepted")
    phone: Phone | None = g.phone
    if phone is None:
        return error(401, "not-joined", "join the table first: scan the QR code on the table view")
    if not _phones().csrf_ok(phone, request.headers.get(CSRF_HEADER)):
        return error(403, "bad-csrf", f"missing or wrong {CSRF_HEADER} header: reload the page")
    if need_seat and phone.seat is None:
        return error(403, "no-seat", "this phone joined as the organiser: it has no seat to play")
    return phone


def _json_body() -> Response | dict[str, Any]:
    data = request.get_json(silent=True, force=True)
    if not isinstance(data, dict):
        return error(400, "bad-input", "the body must be a JSON object")
    return data


def _table_or_error():
    try:
        return _host().require_table()
    except NoMatch as exc:
        return error(409, "no-match", str(exc))


# --- pages ---------------------------------------------------------------------------------

@bp.get("/")
def table_view():
    url = _join_url()
    return render_template("table.html", page="table", join_url=url,
                           qr_svg=qr.svg(qr.encode(url, "M"), title=url))


@bp.get("/seat/<seat>")
def seat_page(seat: str):
    return render_template("seat.html", page="seat", seat=seat)


@bp.get("/scoreboard")
def scoreboard_page():
    host = _host()
    matches = host.log.matches()
    table = host.table
    current = live = None
    if table is not None:
        match = next((m for m in matches if m["id"] == table.match_id), None)
        if match is None:     # no log entry (should not happen): show the live totals
            match = {"id": None, "setup": table.setup, "rounds": []}
        live = table.state_json()
        current = scoreboard(match, live)
    chart = chart_svg(current, title=_t("scores_over_rounds")) if current and current.rounds else ""
    history = [(m, scoreboard(m)) for m in matches]
    return render_template("scoreboard.html", page="scoreboard", current=current, chart=chart,
                           live=live, history=history, fmt_time=_fmt_time)


@bp.get("/setup")
def setup_page():
    options = {name: _option_fields(name) for name in GAME_NAMES}
    reading_grid = _reading_grid()
    host = _host()
    default = host.default_game if host.default_game in GAME_NAMES else GAME_NAMES[0]
    return render_template("setup.html", page="setup", options=options,
                           options_json=json.dumps(options), games=GAME_NAMES,
                           default_game=default, mode=host.mode,
                           has_camera_grid=reading_grid is not None,
                           join_token=_phones().join_token)


@bp.get("/join/<token>")
def join_page(token: str):
    ok = _phones().token_ok(token)
    table = _host().table
    seats = table.seats if table is not None else []
    response = make_response(render_template("join.html", page="join", token=token,
                                             token_ok=ok, seats=seats))
    if not ok:
        response.status_code = 403
    return response


def _fmt_time(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else ""


def _option_fields(game: str) -> list[dict[str, Any]]:
    """The RULES.md flags of ``game`` as form fields, read from the engine's options class."""
    game_cls = game_class(game)
    cls = getattr(game_cls, "options_class", None)
    if cls is None:
        try:                      # the grid game keeps its options on the instance only
            cls = type(game_cls().options)
        except Exception:  # noqa: BLE001 - no options to show is better than no set-up page
            return []
    out = []
    for f in fields(cls):
        default = f.default
        kind = "bool" if isinstance(default, bool) else "int" if isinstance(default, int) else "choice"
        item = {"name": f.name, "kind": kind, "default": default}
        if f.metadata.get("choices"):
            item["choices"] = list(f.metadata["choices"])
        if "min" in f.metadata:
            item["min"] = f.metadata["min"]
        out.append(item)
    return out


def _reading_grid() -> list[list[str]] | None:
    """The 5x5 grid of card names in the last stable camera reading, if it holds one."""
    reading = _host().last_reading
    grid = reading.get("grid") if isinstance(reading, dict) else None
    if not isinstance(grid, list) or len(grid) != 5:
        return None
    out = []
    for row in grid:
        if not isinstance(row, list) or len(row) != 5:
            return None
        names = []
        for cell in row:
            if isinstance(cell, dict):
                cell = cell.get("label") or cell.get("top")
            if isinstance(cell, list):     # a stack: the top is last
                cell = cell[-1] if cell else None
            if not isinstance(cell, str):
                return None
            names.append(cell)
        out.append(names)
    return out


# --- API: reading --------------------------------------------------------------------------

@bp.get("/api/state")
def api_state():
    web = _web()
    with web.lock:
        recent = list(web.recent)
        confirm = web.confirm
    phone: Phone | None = g.phone
    return jsonify({**_host().snapshot(), "recent": recent, "confirm": confirm,
                    "undo_request": web.pending_undo(),
                    "me": {"joined": phone is not None, "seat": phone.seat if phone else None}})


@bp.get("/api/events")
def api_events():
    broadcaster: Broadcaster = _ext()["stream"]
    try:
        client = broadcaster.open()
    except TooManyClients as exc:
        return error(503, "too-many-streams", str(exc))
    response = Response(stream_with_context(broadcaster.stream(client)),
                        mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-transform"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/api/frame.jpg")
def api_frame():
    jpeg = _host().last_frame_jpeg
    if not jpeg:
        return Response(status=204, headers={"Cache-Control": "no-store"})
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/qr.svg")
def api_qr():
    url = _join_url()
    return Response(qr.svg(qr.encode(url, "M"), title=url), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


@bp.get("/api/legal")
def api_legal():
    """The actions the rules allow now for one seat (``?seat=``, default: this phone's seat)."""
    seat = request.args.get("seat") or (g.phone.seat if g.phone else None)
    table = _table_or_error()
    if isinstance(table, Response):
        return table
    if seat not in table.seats:
        return error(404, "unknown-seat", f"no seat {seat!r} in this match")
    seen, out = set(), []
    for action in table.legal_actions():
        if action.by != seat:
            continue
        data = action.to_json()
        key = json.dumps(data, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(data)
        if len(out) >= 3000:
            break
    return jsonify({"ok": True, "seat": seat, "actions": out})


@bp.get("/api/scoreboard")
def api_scoreboard():
    host = _host()
    matches = host.log.matches()
    table = host.table
    current = None
    if table is not None:
        match = next((m for m in matches if m["id"] == table.match_id), None)
        current = scoreboard(match or {"id": None, "setup": table.setup, "rounds": []},
                             table.state_json()).to_json()
    return jsonify({"current": current, "history": matches})


@bp.get("/api/deal-grid")
def api_deal_grid():
    """Demo helper: 25 cards dealt from a shuffled classic deck (``?seed=`` for a fixed one)."""
    seed = request.args.get("seed")
    rng = random.Random(seed)
    deck = list(classic_deck())
    rng.shuffle(deck)
    return jsonify({"ok": True, "grid": [[deck[r * 5 + c].name for c in range(5)] for r in range(5)]})


@bp.get("/api/camera-grid")
def api_camera_grid():
    grid = _reading_grid()
    if grid is None:
        return error(404, "no-reading", "the camera has not read a 5x5 grid yet")
    return jsonify({"ok": True, "grid": grid})


# --- API: acting ---------------------------------------------------------------------------

@bp.post("/api/join")
def api_join():
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
        return error(403, "bad-origin", f"requests from {origin} are not accepted")
    data = _json_body()
    if isinstance(data, Response):
        return data
    if not _phones().token_ok(data.get("token")):
        return error(403, "bad-token", "this join link is not valid: scan the QR code again")
    seat = data.get("seat")
    if seat is not None:
        table = _host().table
        if not isinstance(seat, str) or table is None or seat not in table.seats:
            return error(404, "unknown-seat", f"no seat {seat!r} in the match being played")
    phone, cookie = _phones().new_cookie(seat)
    response = jsonify({"ok": True, "seat": seat, "csrf": _phones().csrf_for(phone),
                        "next": url_for("web.seat_page", seat=seat) if seat else url_for("web.setup_page")})
    response.set_cookie(COOKIE, cookie, max_age=7 * 86400, httponly=True, samesite="Strict",
                        secure=request.is_secure)
    return response


@bp.post("/api/leave")
def api_leave():
    phone = _guard()
    if isinstance(phone, Response):
        return phone
    response = jsonify({"ok": True})
    response.delete_cookie(COOKIE)
    return response


@bp.post("/api/action")
def api_action():
    phone = _guard()
    if isinstance(phone, Response):
        return phone
    data = _json_body()
    if isinstance(data, Response):
        return data
    table = _table_or_error()
    if isinstance(table, Response):
        return table
    do = data.get("do")
    if phone.seat is None:
        if do not in ORGANISER_ACTIONS:
            return error(403, "no-seat", f"the organiser may only send {', '.join(sorted(ORGANISER_ACTIONS))}")
        if data.get("by") not in table.seats:
            return error(400, "bad-input", "'by' must name a seat of this match")
    else:
        data.setdefault("by", phone.seat)
        if data.get("by") != phone.seat:
            return error(403, "wrong-seat", f"this phone plays {phone.seat}, not {data.get('by')!r}")
        if phone.seat not in table.seats:
            return error(403, "wrong-seat", f"{phone.seat} has no seat in this match: join again")
    try:
        action = action_from_json(data)  # malformed or unknown cards: 400, the table never sees it
    except RuleError as exc:
        return error(400, exc.code, exc.message)
    refusal = _check_score_entry(table, action)
    if refusal is not None:
        return refusal
    if phone.seat is not None and do not in PHONE_ACTIONS:
        return error(403, "not-from-phone", f"{do!r} is not sent from a phone")
    answer = table.act(data, source="phone")
    return jsonify(answer.to_json())


def _check_score_entry(table, action) -> Response | None:
    """Actions the table would only refuse as malformed (or take as a typo): 400 before it sees
    them. The timer has only ``pass``; the scoreboard ``score``, ``show`` and ``round``."""
    allowed = MODE_ACTIONS.get(table.game.name)
    if allowed is not None and action.do not in allowed:
        return error(400, "bad-input", f"the {table.game.name} has no {action.do!r} action: "
                                       f"use {', '.join(sorted(allowed - {'timeout'}))}")
    if action.do == "score" and action.points > MAX_HAND_POINTS:
        return error(400, "bad-input", f"'points' must be 0..{MAX_HAND_POINTS}: a hand is never "
                                       f"worth {action.points}")
    if action.do == "show" and table.game.name == "scoreboard":
        deck = getattr(table.game.options, "deck", "classic")
        face_set = FACE_SETS.get(deck)
        wrong = [c.name for c in action.cards if face_set is not None and c not in face_set]
        if wrong:
            return error(400, "bad-card", f"{', '.join(wrong)}: not in the {deck} deck this "
                                          f"scoreboard counts")
    return None


@bp.post("/api/undo")
def api_undo():
    """Undo needs two: one seat asks, another agrees (``{"cancel": true}`` withdraws the ask)."""
    phone = _guard(need_seat=True)
    if isinstance(phone, Response):
        return phone
    data = _json_body()
    if isinstance(data, Response):
        return data
    table = _table_or_error()
    if isinstance(table, Response):
        return table
    if phone.seat not in table.seats:
        return error(403, "wrong-seat", f"{phone.seat} has no seat in this match")
    web, bus = _web(), _host().bus
    pending = web.pending_undo()
    if data.get("cancel"):
        if pending is None or pending["by"] != phone.seat:
            return error(409, "no-undo-request", "you have not asked for an undo")
        with web.lock:  # at once: the bus tells the other pages a moment later
            web.undo_request = None
        bus.publish("undo-cancelled", by=phone.seat)
        return jsonify({"ok": True, "undo_request": None})
    if pending is None:
        with web.lock:
            web.undo_request = {"by": phone.seat, "at": time.monotonic()}
        bus.publish("undo-requested", seat=phone.seat)
        return jsonify({"ok": True, "undo_request": {"by": phone.seat}}), 202
    if pending["by"] == phone.seat:
        return error(409, "waiting-for-agreement", "another player has to agree to the undo")
    answer = table.undo(by=pending["by"])
    with web.lock:
        web.undo_request = None
    return jsonify(answer.to_json())


@bp.post("/api/confirm")
def api_confirm():
    """Answer the camera's question (``confirm-needed``): ``{"choice": index}``.

    The answer is published as ``confirm-answer`` for the camera referee; a choice that carries
    an ``action`` (replay form) is also played at once.
    """
    phone = _guard(need_seat=True)
    if isinstance(phone, Response):
        return phone
    data = _json_body()
    if isinstance(data, Response):
        return data
    web = _web()
    with web.lock:
        question = web.confirm
    if question is None:
        return error(409, "no-question", "the camera is not asking anything now")
    if question.get("seat") not in (None, phone.seat):
        return error(403, "wrong-seat", f"this question is for {question['seat']}")
    choices = question.get("choices") or []
    index = data.get("choice")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(choices):
        return error(400, "bad-input", f"'choice' must be an index 0..{len(choices) - 1}")
    choice = choices[index]
    _host().bus.publish("confirm-answer", seat=phone.seat, question=question.get("question"),
                        choice=choice, index=index)
    with web.lock:
        web.confirm = None
    if isinstance(choice, dict) and isinstance(choice.get("action"), dict):
        table = _table_or_error()
        if isinstance(table, Response):
            return table
        return jsonify(table.act(choice["action"], source="phone").to_json())
    return jsonify({"ok": True}), 202


@bp.post("/api/match")
def api_match_start():
    """Start a match from a replay set-up object (``{"setup": {...}}``)."""
    phone = _guard()
    if isinstance(phone, Response):
        return phone
    data = _json_body()
    if isinstance(data, Response):
        return data
    if not isinstance(data.get("setup"), dict):
        return error(400, "bad-setup", 'the body must be {"setup": {"game": ..., "seats": [...]}}')
    try:
        table = _host().start_match(data)
    except (SetupError, RuleError, KeyError, TypeError, ValueError) as exc:
        return error(400, "bad-setup", str(exc) or type(exc).__name__)
    return jsonify({"ok": True, "game": table.game.name, "seats": table.seats,
                    "state": table.state_json()})


@bp.post("/api/match/end")
def api_match_end():
    phone = _guard()
    if isinstance(phone, Response):
        return phone
    table = _table_or_error()
    if isinstance(table, Response):
        return table
    _host().end_match()
    return jsonify({"ok": True})


@bp.app_errorhandler(404)
def _not_found(exc):
    if request.path.startswith("/api/"):
        return error(404, "not-found", f"no such API: {request.path}")
    return exc


@bp.app_errorhandler(405)
def _bad_method(exc):
    if request.path.startswith("/api/"):
        return error(405, "bad-method", f"{request.method} is not accepted on {request.path}")
    return exc
