"""The Flask app: the table view, the phone seat pages, the scoreboard, the set-up, and the API.

Pages are rendered by the server and brought to life by small scripts in ``web/static`` that
follow ``GET /api/events`` (Server-Sent Events) and send actions with ``POST /api/action``.
Every asset is served from here: the companion works with no internet.

Refusals are JSON ``{"ok": false, "error": CODE, "message": ...}`` with a 4xx status when the
*request* is wrong (not joined, bad CSRF, wrong seat, malformed, no match) and nothing is
changed: every view raises :class:`ApiError` for that, and every ``POST`` goes through
:func:`post_guard` (origin, joined phone, CSRF header, a JSON object body, the match). Every
input from the request (body, headers, path, query, cookies) is checked here, at the edge, so
that nothing the network sends reaches the engines unread or answers a 500. When the request
is fine but the rule engine refuses the action, the answer is the replay answer with HTTP 200
and ``ok: false`` (a refused flip/classic play may still have cost a penalty, and its
``events`` and ``state`` say so).
"""

from __future__ import annotations

import functools
import json
import random
import re
import secrets
import threading
import time
from collections import deque
from dataclasses import fields
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import (Blueprint, Flask, Response, current_app, g, jsonify, render_template, request,
                   stream_with_context, url_for)
from jinja2 import BytecodeCache
from werkzeug.exceptions import HTTPException

from companion.bus import BusMessage
from companion.cards import CLASSIC, DARK, LIGHT
from companion.decks import classic_deck
from companion.engine import GAME_NAMES, RuleError, SetupError, game_class
from companion.engine.actions import action_from_json
from companion.engine.errors import shown
from companion.eventlog import StoredAnswer
from companion.host import Host, NoMatch
from companion.referee.camera import AnswerRefused, other_card_action, other_card_attempt

from . import i18n, qr
from .idempotency import HEADER as IDEMPOTENCY_HEADER
from .idempotency import REPLAYED_HEADER, Answers, InProgress, scope_of, valid_key
from .auth import (COOKIE, COOKIE_MAX_AGE_S, CSRF_HEADER, MAX_ORGANISERS, MAX_PHONES, AllowedHosts,
                   BadPin, Phone, Phones, SeatTaken, TooManyPhones, TooManyTries)
from .netinfo import is_local_address, is_loopback, lan_ip, own_names
from .reach import HOST_OPTION, MAKE_RUN, join_address
from .scores import chart_svg, scoreboard
from .stream import Broadcaster, TooManyClients

__all__ = ["create_app", "WebState", "ApiError", "post_guard", "MAX_BODY_BYTES", "MAX_PHOTO_BYTES"]

#: Actions a phone may send for its own seat (``timeout`` belongs to the turn timer).
PHONE_ACTIONS = frozenset({"play", "move", "discard", "draw", "pass", "uno", "catch", "challenge",
                           "accept", "reveal", "declare", "show", "score", "round", "penalty"})
#: What the organiser (joined with no seat) may send, naming the seat it is for: starting rounds,
#: penalties, and (scoreboard) typing a player's points for them.
ORGANISER_ACTIONS = frozenset({"round", "penalty", "score"})
#: The largest request body (a set-up with a 5x5 grid is under 2 KiB): more is refused, 413.
MAX_BODY_BYTES = 64 * 1024
#: The largest hand photo (``POST /api/hand-photo``; a phone's full-size JPEG is 2-6 MB, the page
#: sends it smaller): the one route whose body may be larger than :data:`MAX_BODY_BYTES`. The
#: server (:func:`web.serve`) takes bodies up to the larger of the two; the app refuses the rest.
MAX_PHOTO_BYTES = 12 * 1024 * 1024
#: The deepest JSON nesting a body may have (a set-up is 4 deep): deeper is refused unread.
MAX_JSON_DEPTH = 16
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
        #: (table, seq) of the last undo agreed to: a tap naming it is stale at once
        self._taking: tuple[Any, int | None] | None = None
        self.lock = threading.Lock()
        self._unsubscribe = host.bus.subscribe(self._on_message)
        self._recall()

    def _recall(self) -> None:
        """After a restart: the resumed match's events so far, from the event log (what the
        camera decided keeps its ``evidence``; the questions asked were not logged)."""
        table = self.host.table
        if table is None or table.match_id is None:
            return
        recalled: list[dict[str, Any]] = []
        for entry in self.host.log.entries(table.match_id):
            action, at = entry["action"], entry["time"]
            if action.get("do") == "undo":
                recalled.append({"seq": 0, "type": "undone", "time": at, "by": action.get("by")})
                continue
            for e in entry["events"]:
                if isinstance(e, dict) and isinstance(e.get("type"), str):
                    recalled.append({"seq": 0, **e, "time": at})
        with self.lock:
            if not self.recent:  # (nothing said since: the bus's events are newer)
                self.recent.extend(recalled)

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
            if m.type in ("match-started", "match-ended"):
                self._taking = None

    def pending_undo(self) -> dict[str, Any] | None:
        with self.lock:
            req = self._live_undo_request()
            return None if req is None else {"by": req["by"], "seq": req["seq"]}

    def _live_undo_request(self) -> dict[str, Any] | None:
        """The undo request, dropped once stale (the caller holds the lock)."""
        req = self.undo_request
        if req is not None and time.monotonic() - req["at"] > UNDO_REQUEST_S:
            self.undo_request = req = None
        return req

    def undo_step(self, seat: str, cancel: bool, seq: int | None = None,
                  table: Any = None) -> tuple[str, str]:
        """Decide and record, in one step under the lock, what ``seat``'s undo tap means.

        ``seq`` is the action the tap names (``table``'s :attr:`~Table.last_seq` when it was
        checked). Returns ``(what, by)``: ``asked`` (a new request by ``seat``), ``agreed`` (the
        request of ``by`` for ``seq`` is taken: the caller undoes that action, and no other tap
        can take it too), ``cancelled``; raises :class:`ApiError` (409) when there is nothing to
        do: ``undo-stale`` when ``seq`` is being taken back already, or another action is asked
        about. Nothing is published here: the caller tells the bus after the lock is let go.
        """
        with self.lock:
            req = self._live_undo_request()
            if cancel:
                if req is None or req["by"] != seat:
                    raise ApiError(409, "no-undo-request", "you have not asked for an undo")
                self.undo_request = None
                return "cancelled", seat
            if self._taking is not None and self._taking[0] is table and self._taking[1] == seq:
                raise ApiError(409, "undo-stale", f"action {seq} is being taken back already",
                               params={"seq": seq})
            if req is None or (req["by"] == seat and req["seq"] != seq):
                self.undo_request = {"by": seat, "seq": seq, "at": time.monotonic()}
                return "asked", seat
            if req["seq"] != seq:
                raise ApiError(409, "undo-stale", f"the undo asked for is of action {req['seq']}, "
                                                  f"not {seq}: look again", params={"seq": seq})
            if req["by"] == seat:
                raise ApiError(409, "waiting-for-agreement",
                               "another player has to agree to the undo")
            self.undo_request = None
            self._taking = (table, seq)
            return "agreed", req["by"]

    def take_answer(self, seat: str, index: Any) -> tuple[dict[str, Any], Any]:
        """Check ``seat``'s answer ``index`` to the open camera question and take the question,
        in one step under the lock (so one question is answered once): ``(question, choice)``.
        Raises :class:`ApiError` (and leaves the question open) when the answer is refused."""
        with self.lock:
            question = self._answerable(seat)
            choices = question.get("choices") or []
            if (not isinstance(index, int) or isinstance(index, bool)
                    or not 0 <= index < len(choices)):
                raise ApiError(400, "bad-input", f"'choice' must be an index 0..{len(choices) - 1}")
            self.confirm = None
            return question, choices[index]

    def question_for(self, seat: str) -> dict[str, Any]:
        """The open camera question, if ``seat`` may answer it; else :class:`ApiError`."""
        with self.lock:
            return self._answerable(seat)

    def _answerable(self, seat: str) -> dict[str, Any]:
        """The open camera question if ``seat`` may answer it, else :class:`ApiError` (called
        with :attr:`lock` held)."""
        question = self.confirm
        if question is None:
            raise ApiError(409, "no-question", "the camera is not asking anything now")
        if question.get("seat") not in (None, seat):
            raise ApiError(403, "wrong-seat", f"this question is for {question['seat']}")
        return question

    def take_question(self, question: dict[str, Any]) -> None:
        """Take ``question`` (checked before, outside the lock) if it is still the open one:
        one question is answered once. :class:`ApiError` (409) when it is not."""
        with self.lock:
            if self.confirm is None or self.confirm.get("id") != question.get("id"):
                raise ApiError(409, "no-question", "the camera is not asking that question now")
            self.confirm = None

    def close(self) -> None:
        self._unsubscribe()


def create_app(host: Host, *, secret_key: str | None = None, public_url: str | None = None,
               join_token: str | None = None, heartbeat_s: float = 15.0,
               max_phones: int = MAX_PHONES, max_organisers: int = MAX_ORGANISERS,
               organiser_pin: str | None = None, table_streams: int = 8, phones_per_seat: int = 1,
               cookie_max_age_s: float = COOKIE_MAX_AGE_S, allowed_hosts: tuple[str, ...] = (),
               max_body: int = MAX_BODY_BYTES, max_photo: int = MAX_PHOTO_BYTES,
               lan_address: Callable[[], str] = lan_ip, league_url: str | None = None,
               evidence: Any = None) -> Flask:
    """The web app for ``host``.

    ``secret_key`` signs the phone cookies (a random one per run when not given). Joined phones
    are remembered in memory only: after a restart they scan the QR code again. ``public_url``
    (``http://192.168.1.20:8000``) overrides the address put in the QR code; by default it is
    this machine's LAN IP address and the port the page was asked on. ``join_token`` fixes the
    token of the join link (random by default) and ``organiser_pin`` the organiser PIN (random
    digits by default). At most ``max_phones`` seated phones and ``max_organisers`` organisers
    are joined at once; each joined phone has two event streams of its own, and
    ``table_streams`` are shared by pages without a cookie (table screens, spectators).
    ``phones_per_seat`` (1) is how many phones may hold one seat (the organiser may change it when
    starting a match); ``cookie_max_age_s`` how long a join lasts. The app answers only to
    loopback, this machine's names and addresses, ``public_url``'s host and ``allowed_hosts``.
    ``max_body`` bytes is the largest request body (413 beyond), ``max_photo`` the largest hand
    photo. ``lan_address`` finds this
    machine's LAN address; it is asked again for every page (:mod:`web.reach`), so the QR code
    follows the network. ``league_url`` (``http://club-pi:8100/``), where the table plays in a
    league (``companion league``), puts a link to the league's page in every page's menu.
    ``evidence`` is where the frames of the camera's calls are kept (anything with
    ``jpeg(id) -> bytes | None``, e.g. ``app.evidence.EvidenceStore``): ``GET
    /api/evidence/<id>.jpg`` serves them; None: that answers 404.
    """
    if league_url and urlsplit(league_url).scheme not in ("http", "https"):
        raise ValueError(f"league_url must be an http(s) address, got {league_url!r}")
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_hex(32),
        PUBLIC_URL=public_url.rstrip("/") if public_url else None,
        LEAGUE_URL=league_url or None,
        JSON_SORT_KEYS=False,
        SEND_FILE_MAX_AGE_DEFAULT=300,
        MAX_CONTENT_LENGTH=max_body,
        MAX_PHOTO_BYTES=max_photo,
    )
    public_host = urlsplit(public_url).hostname if public_url else None
    phones = Phones(app.config["SECRET_KEY"], join_token, max_age_s=cookie_max_age_s,
                    per_seat=phones_per_seat, organiser_pin=organiser_pin,
                    max_phones=max_phones, max_organisers=max_organisers)
    per_phone = 2
    broadcaster = Broadcaster(host.bus, heartbeat_s=heartbeat_s, per_owner=per_phone,
                              max_clients=per_phone * (max_phones + max_organisers),
                              max_anonymous=table_streams)
    phones.on_gone = broadcaster.close_owners     # every join that ends ends its streams too
    app.extensions["companion"] = {
        "host": host,
        "phones": phones,
        "hosts": AllowedHosts(own_names(public_host, *allowed_hosts), is_local=is_local_address),
        "stream": broadcaster,
        "web": WebState(host),
        "answers": Answers(host.log),
        "lan_ip": lan_address,
        "evidence": evidence,
    }

    def revoke_seats_on_a_new_match(message: BusMessage) -> None:
        if message.type == "match-started":
            phones.revoke_seats()       # (their streams end: phones.on_gone)

    host.bus.subscribe(revoke_seats_on_a_new_match)
    app.register_blueprint(bp)
    from .hands import bp as hands_bp   # here: web.hands uses this module's guards

    app.register_blueprint(hands_bp)
    from .phones import bp as phones_bp

    app.register_blueprint(phones_bp)
    app.before_request(_before)
    app.after_request(_after)
    app.context_processor(_template_globals)
    app.jinja_env.filters["seat_name"] = _seat_name
    app.jinja_env.bytecode_cache = _COMPILED
    return app


class _CompiledTemplates(BytecodeCache):
    """The pages' templates compiled once a process and shared by every app made in it (a test
    run makes hundreds; compiling a page took a tenth of the web fuzz's CPU). Jinja keys each
    entry by the template's name and a checksum of its source, so an edited template is compiled
    afresh. Every app here sets its Jinja environment up the same way, which a shared compiled
    template needs."""

    def __init__(self) -> None:
        self._code: dict[tuple[str, str], Any] = {}

    def load_bytecode(self, bucket) -> None:
        code = self._code.get((bucket.key, bucket.checksum))
        if code is not None:
            bucket.code = code

    def dump_bytecode(self, bucket) -> None:
        self._code[(bucket.key, bucket.checksum)] = bucket.code


_COMPILED = _CompiledTemplates()


# --- plumbing ------------------------------------------------------------------------------

def _ext() -> dict[str, Any]:
    return current_app.extensions["companion"]


def _host() -> Host:
    return _ext()["host"]


def _phones() -> Phones:
    return _ext()["phones"]


def _web() -> WebState:
    return _ext()["web"]


def _before() -> Response | None:
    if not _ext()["hosts"].host_ok(request.host):
        return error(400, "bad-host", f"this server does not answer to {request.host!r}: open "
                                      f"the address shown on the table view")
    g.lang = i18n.choose(request.args.get("lang"), request.cookies.get("lang"),
                         request.accept_languages)
    cookie = request.cookies.get(COOKIE)
    # A real cookie is URL-safe ASCII; anything else is nobody's (and never reaches the signer).
    g.phone = _phones().read_cookie(cookie) if cookie and cookie.isascii() else None


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


def _seat_name(seat: Any) -> str:
    """A seat as the page says it: the grid game's sides in the page's language (common.js's
    ``seatName``), any other seat by the name it was given."""
    key = f"side_name_{seat}"
    return _t(key) if key in i18n.strings(g.get("lang", i18n.DEFAULT)) else str(seat)


def _template_globals() -> dict[str, Any]:
    phone: Phone | None = g.get("phone")
    return {
        "t": _t, "seat_name": _seat_name,
        "lang": g.get("lang", i18n.DEFAULT), "langs": i18n.LANGS, "phone": phone,
        "csrf": _phones().csrf_for(phone) if phone else "",
        "strings_json": json.dumps(i18n.strings(g.get("lang", i18n.DEFAULT)), ensure_ascii=False),
        "decks_json": json.dumps(_decks()),
        "league_url": current_app.config["LEAGUE_URL"],
    }


def _decks() -> dict[str, Any]:
    out = {}
    for fs in (CLASSIC, LIGHT, DARK):
        out[fs.name] = {"colors": list(fs.colors), "faces": list(fs.numbers + fs.actions),
                        "wilds": list(fs.wilds), "points": dict(fs.points_table)}
    return out


class ApiError(Exception):
    """A refused request: answered ``{"ok": false, "error": code, "message": ...}`` with the 4xx
    ``status``. Raise it before anything is changed: a refused request changes nothing."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        #: more fields of the answer (JSON-ready), e.g. a refusal's ``params``
        self.extra = extra


def error(status: int, code: str, message: str, **extra: Any) -> Response:
    response = jsonify({"ok": False, "error": code, "message": message, **extra})
    response.status_code = status
    return response


def _page(template: str, status: int = 200, **context: Any) -> Response:
    """A rendered page. Text from old event logs may hold what UTF-8 cannot carry (a lone
    surrogate in a seat name): it is shown as ``?`` rather than failing the page."""
    html = render_template(template, **context)
    return Response(html.encode("utf-8", "replace"), status=status, mimetype="text/html")


def _join() -> tuple[str, str]:
    """The join link of the QR code and whether phones can reach it (``ok``, ``loopback``,
    ``no-network``: :func:`web.reach.join_address`), worked out anew for this request."""
    base = current_app.config["PUBLIC_URL"]
    status = "ok"
    if base is None:
        parts = urlsplit(request.host_url)
        reach = join_address(current_app.config.get("BIND_ADDRESS"), parts.hostname or "",
                             _ext()["lan_ip"])
        status = reach.status
        # the port this server listens on, never the one the Host header names
        port = current_app.config.get("BIND_PORT") or request.environ.get("SERVER_PORT")
        default = "443" if parts.scheme == "https" else "80"
        port = f":{port}" if port and str(port) != default else ""
        host_part = f"[{reach.address}]" if ":" in reach.address else reach.address
        base = f"{parts.scheme}://{host_part}{port}"
    return f"{base}/join/{_phones().join_token}", status


def _join_url() -> str:
    return _join()[0]


def post_guard(*, joined: bool = True, seat: bool = False, organiser: bool = False,
               body: bool = True, table: bool = False):
    """The checks of every ``POST``, in this order, each refusing with :class:`ApiError`:

    * a browser's ``Origin``, when sent, is this server (403 ``bad-origin``);
    * ``joined``: a joined phone (401 ``not-joined``) with its ``X-CSRF-Token`` (403
      ``bad-csrf``); ``seat``: and a seat, not the organiser (403 ``no-seat``); ``organiser``:
      the organiser, not a seated phone (403 ``organiser-only``);
    * ``body``: the body is one JSON object (400 ``bad-input``); without ``body``, a JSON body
      sent all the same must be one too (the body is checked before the phone's role);
    * an ``Idempotency-Key`` header, when sent (400 ``bad-input`` when malformed): a key seen
      before gets its first answer back and nothing else is done (:func:`_answer_once`);
    * ``table``: a match is being played (409 ``no-match``).

    The view is called with ``phone`` (None when ``joined`` is False), and ``data`` / ``table``
    when asked for.
    """
    def wrap(view):
        @functools.wraps(view)
        def guarded(**kwargs: Any):
            phone = _check_phone() if joined else _check_origin()
            data = _json_body() if body or (request.is_json and request.get_data(cache=True)) \
                else None
            if joined:
                _check_role(phone, seat, organiser)
            kwargs["phone"] = phone
            if body:
                kwargs["data"] = data
            key = _idempotency_key()
            if key is None:
                return _answer(view, table, kwargs)
            return _answer_once(view, table, kwargs, scope_of(phone), key)
        return guarded
    return wrap


def _answer(view, table: bool, kwargs: dict[str, Any]):
    if table:
        kwargs["table"] = _require_table()
    return view(**kwargs)


def _idempotency_key() -> str | None:
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is not None and not valid_key(key):
        raise ApiError(400, "bad-input", f"{IDEMPOTENCY_HEADER} must be 1 to 100 letters, digits "
                                         f"or _.:- (one random key per tap)")
    return key


def _answer_once(view, table: bool, kwargs: dict[str, Any], scope: str, key: str) -> Response:
    """The view's answer to a request with an idempotency key (:mod:`web.idempotency`): the
    answer kept for the key when it was seen before (nothing is applied), else the view's,
    then kept (a refusal too: the same request is refused the same way; a 5xx is not kept)."""
    answers: Answers = _ext()["answers"]
    try:
        stored = answers.claim(scope, key)
    except InProgress as exc:
        raise ApiError(409, "in-progress", str(exc)) from None
    if stored is not None:
        if stored.path is not None and stored.path != request.path:
            raise ApiError(400, "bad-input", f"this {IDEMPOTENCY_HEADER} was sent with another "
                                             f"request ({stored.path}): make one per tap")
        return _replayed(stored)
    try:
        with _host().log.keyed(scope, key):
            try:
                answer = _answer(view, table, kwargs)
            except ApiError as exc:
                answer = _refused(exc)
        response = current_app.make_response(answer)
        if response.status_code < 500 and not response.is_streamed:
            answers.keep(scope, key, response.status_code, response.get_data(),
                         [("Set-Cookie", v) for v in response.headers.getlist("Set-Cookie")],
                         request.path)
    finally:
        answers.release(scope, key)
    return response


def _replayed(stored: StoredAnswer) -> Response:
    if stored.status is None:        # applied, and the companion stopped before it answered
        response = jsonify({"ok": True, "repeated": True})
    else:
        response = Response(stored.body, status=stored.status, mimetype="application/json")
        for name, value in stored.headers:
            response.headers.add(name, value)
    response.headers[REPLAYED_HEADER] = "true"
    return response


def _check_origin() -> None:
    origin = request.headers.get("Origin")
    # compared with the allowed hosts, never with the Host header (a DNS-rebinding page sets both)
    if origin is not None and not _ext()["hosts"].origin_ok(origin, request.host):
        raise ApiError(403, "bad-origin", f"requests from {shown(origin)} are not accepted")


def _check_phone() -> Phone:
    """The joined phone of a request that carries its CSRF token (refused otherwise)."""
    _check_origin()
    phone: Phone | None = g.phone
    if phone is None:
        raise ApiError(401, "not-joined",
                       "join the table first: scan the QR code on the table view")
    header = request.headers.get(CSRF_HEADER)
    # The token is hex: anything else is wrong before the (ASCII-only) constant-time compare.
    if header is None or not header.isascii() or not _phones().csrf_ok(phone, header):
        raise ApiError(403, "bad-csrf", f"missing or wrong {CSRF_HEADER} header: reload the page")
    return phone


def _check_role(phone: Phone, need_seat: bool, organiser: bool) -> None:
    if need_seat and phone.seat is None:
        raise ApiError(403, "no-seat", "this phone joined as the organiser: it has no seat to play")
    if organiser and not phone.is_organiser:
        raise ApiError(403, "organiser-only", f"this phone plays {phone.seat}: only the organiser "
                                              f"sets up, starts and ends matches")


def _json_body() -> dict[str, Any]:
    """The request body as one JSON object, or 400 ``bad-input`` (not UTF-8, not JSON, too deep,
    numbers too long, not an object)."""
    raw = request.get_data(cache=True)
    if _json_depth(raw) > MAX_JSON_DEPTH:
        raise ApiError(400, "bad-input", f"the body nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:   # UnicodeDecodeError is a ValueError
        raise ApiError(400, "bad-input",
                       f"the body is not UTF-8 JSON: {type(exc).__name__}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad-input", "the body must be a JSON object")
    return data


def _json_depth(raw: bytes) -> int:
    """How deep brackets nest in ``raw``, outside strings (read only when it has many)."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:          # backslash
                escaped = True
            elif byte == 0x22:          # closing quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _require_table():
    try:
        return _host().require_table()
    except NoMatch as exc:
        raise ApiError(409, "no-match", str(exc)) from None


def _text_arg(name: str, most: int = 200) -> str | None:
    """A query argument, refused (400 ``bad-input``) when longer than ``most`` characters."""
    value = request.args.get(name)
    if value is not None and len(value) > most:
        raise ApiError(400, "bad-input", f"?{name}= is longer than {most} characters")
    return value


# --- pages ---------------------------------------------------------------------------------

@bp.get("/")
def table_view():
    url, reach = _join()
    # the organiser PIN only on this machine's own screen (loopback), never to the network
    pin = _phones().organiser_pin if is_loopback(request.remote_addr or "") else None
    return _page("table.html", page="table", join_url=url, reach=reach, host_option=HOST_OPTION,
                 make_run=MAKE_RUN, qr_svg=qr.svg(url) if reach == "ok" else "",
                 organiser_pin=pin)


@bp.get("/seat/<seat>")
def seat_page(seat: str):
    return _page("seat.html", page="seat", seat=seat)


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
    chart = (chart_svg(current, title=_t("scores_over_rounds"), seat_name=_seat_name)
             if current and current.rounds else "")
    history = [(m, scoreboard(m)) for m in matches]
    return _page("scoreboard.html", page="scoreboard", current=current, chart=chart,
                 live=live, history=history, fmt_time=_fmt_time)


@bp.get("/setup")
def setup_page():
    options = {name: _option_fields(name) for name in GAME_NAMES}
    reading_grid = _reading_grid()
    host = _host()
    default = host.default_game if host.default_game in GAME_NAMES else GAME_NAMES[0]
    return _page("setup.html", page="setup", options=options,
                 options_json=json.dumps(options), games=GAME_NAMES,
                 default_game=default, mode=host.mode,
                 has_camera_grid=reading_grid is not None,
                 phones_per_seat=_phones().per_seat,
                 organiser_pin=_phones().organiser_pin if g.phone and g.phone.is_organiser else None)


@bp.get("/join/<token>")
def join_page(token: str):
    ok = _token_ok(token)
    table = _host().table
    seats = table.seats if table is not None else []
    # where each seat sits (the camera's games) and whether a phone holds it (only to a phone
    # with the join code, and only "taken" or "free": never which phone)
    sides = (table.seating.to_json()
             if table is not None and ok and table.game.name in ("flip", "classic") else {})
    taken = {seat: _phones().holders(seat) > 0 for seat in seats} if ok else {}
    return _page("join.html", 200 if ok else 403, page="join", token=token,
                 token_ok=ok, seats=seats, sides=sides, taken=taken)


def _token_ok(token: Any) -> bool:
    """The join token, checked in constant time (which takes ASCII only: the token is)."""
    return isinstance(token, str) and token.isascii() and _phones().token_ok(token)


def _fmt_time(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else ""


def _option_fields(game: str) -> list[dict[str, Any]]:
    """The docs/rules.md flags of ``game`` as form fields, read from the engine's options class."""
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
    table = _host().table
    return jsonify({**_host().snapshot(), "recent": recent, "confirm": confirm,
                    "undo_request": web.pending_undo(),
                    # the action an undo would take back (POST /api/undo names it)
                    "undo_seq": table.last_seq if table is not None else None,
                    "last_evidence": table.last_evidence if table is not None else None,
                    "me": {"joined": phone is not None, "seat": phone.seat if phone else None}})


@bp.get("/api/events")
def api_events():
    broadcaster: Broadcaster = _ext()["stream"]
    try:
        client = broadcaster.open(g.phone.pid if g.phone else None)
    except TooManyClients as exc:
        return error(503, "too-many-streams", str(exc))
    if g.phone is not None and not _phones().is_joined(g.phone.pid):
        broadcaster.close_client(client)          # removed while this request began: no stream
        return error(401, "not-joined", "join the table first: scan the QR code on the table view")
    response = Response(stream_with_context(broadcaster.stream(client)),
                        mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-transform"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/api/frame.jpg")
def api_frame():
    """The camera frame; ``X-Camera-View`` says what the camera was doing (a word the page
    translates: ``moving``, ``hands``, ``settling``, ``reading``, ``quiet``, ``calibrating``,
    ``no-view``, ``no-match``), so that no English is drawn on the picture."""
    host = _host()
    jpeg = host.last_frame_jpeg
    if not jpeg:
        return Response(status=204, headers={"Cache-Control": "no-store"})
    headers = {"Cache-Control": "no-store"}
    view = host.last_frame_view
    if isinstance(view, str) and view.replace("-", "").isalpha() and len(view) < 40:
        headers["X-Camera-View"] = view
    return Response(jpeg, mimetype="image/jpeg", headers=headers)


#: What an evidence id looks like in a path (``app.evidence``: ``<match>-<n>``).
_EVIDENCE_ID = re.compile(r"\d{1,12}-\d{1,12}")


@bp.get("/api/evidence/<evidence_id>.json")
def api_evidence_question(evidence_id: str):
    """The question the camera asked on a frame (``{"question": {...}}``, the ``confirm-needed``
    event as it went out; ``null`` when none was asked on it): the event log keeps no questions,
    so after a restart the frame's page still says what was asked."""
    if _EVIDENCE_ID.fullmatch(evidence_id) is None:
        return error(400, "bad-input", "an evidence id looks like 12-345")
    store = _ext()["evidence"]
    asked = getattr(store, "question", None)
    return jsonify({"question": asked(evidence_id) if asked is not None else None})


@bp.get("/api/evidence/<evidence_id>.jpg")
def api_evidence(evidence_id: str):
    """The frame a camera call was taken on (its events' ``evidence``), with the regions read
    outlined; 404 once dropped (only the current match's and the one before are kept)."""
    if _EVIDENCE_ID.fullmatch(evidence_id) is None:
        return error(400, "bad-input", "an evidence id looks like 12-345")
    store = _ext()["evidence"]
    jpeg = store.jpeg(evidence_id) if store is not None else None
    if not jpeg:
        return error(404, "no-evidence", f"no frame {evidence_id} is kept (only the current "
                                         "match's and the one before)")
    return Response(jpeg, mimetype="image/jpeg",
                    headers={"Cache-Control": "private, max-age=86400"})


@bp.get("/api/qr.svg")
def api_qr():
    """The join QR code, for the organiser only (the table view draws its own)."""
    phone: Phone | None = g.phone
    if phone is None or not phone.is_organiser:
        return error(403, "organiser-only", "the join code is shown on the table view")
    url = _join_url()
    return Response(qr.svg(url), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


@bp.get("/api/legal")
def api_legal():
    """The actions the rules allow now for one seat (``?seat=``, default: this phone's seat)."""
    seat = _text_arg("seat") or (g.phone.seat if g.phone else None)
    table = _require_table()
    if seat not in table.seats:
        raise ApiError(404, "unknown-seat", f"no seat {seat!r} in this match")
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
    seed = _text_arg("seed")
    rng = random.Random(seed)
    deck = list(classic_deck())
    rng.shuffle(deck)
    return jsonify({"ok": True, "grid": [[deck[r * 5 + c].name for c in range(5)] for r in range(5)]})


@bp.get("/api/camera-grid")
def api_camera_grid():
    grid = _reading_grid()
    if grid is None:
        raise ApiError(404, "no-reading", "the camera has not read a 5x5 grid yet")
    return jsonify({"ok": True, "grid": grid})


# --- API: acting ---------------------------------------------------------------------------

@bp.post("/api/join")
@post_guard(joined=False)
def api_join(phone: None, data: dict[str, Any]):
    if not _token_ok(data.get("token")):
        raise ApiError(403, "bad-token", "this join link is not valid: scan the QR code again")
    seat = data.get("seat")
    # a match started just before this request revokes the seats it replaces when the bus
    # delivers match-started: let that happen first, so the new seat is free and stays joined
    _host().bus.join(timeout=2.0)
    if seat is not None:
        table = _host().table
        if not isinstance(seat, str) or table is None or seat not in table.seats:
            raise ApiError(404, "unknown-seat", f"no seat {shown(seat)} in the match being played")
    elif not (g.phone is not None and g.phone.is_organiser):   # an organiser joining again: no PIN
        try:
            _phones().check_pin(data.get("pin"), request.remote_addr)
        except TooManyTries as exc:
            raise ApiError(429, exc.code, str(exc), retry_after_s=exc.retry_after_s,
                           params={"seconds": exc.retry_after_s}) from None
        except BadPin as exc:
            raise ApiError(403, exc.code, str(exc)) from None
    try:
        phone, cookie = _phones().join(seat, replacing=g.phone, address=request.remote_addr)
    except (SeatTaken, TooManyPhones) as exc:
        raise ApiError(409, exc.code, str(exc)) from None
    response = jsonify({"ok": True, "seat": seat, "csrf": _phones().csrf_for(phone),
                        "next": url_for("web.seat_page", seat=seat) if seat else url_for("web.setup_page")})
    response.set_cookie(COOKIE, cookie, max_age=int(_phones().max_age_s), httponly=True,
                        samesite="Strict",
                        secure=request.is_secure)
    return response


@bp.post("/api/leave")
@post_guard(body=False)
def api_leave(phone: Phone):
    _phones().leave(phone)      # the cookie is refused from now on, even if kept; its streams end
    response = jsonify({"ok": True})
    response.delete_cookie(COOKIE)
    return response


@bp.post("/api/action")
@post_guard(table=True)
def api_action(phone: Phone, data: dict[str, Any], table):
    do = data.get("do")
    if not isinstance(do, str):
        raise ApiError(400, "bad-input", f"'do' must be an action word, got {shown(do)}")
    if phone.seat is None:
        if do not in ORGANISER_ACTIONS:
            raise ApiError(403, "no-seat", "the organiser may only send "
                                           f"{', '.join(sorted(ORGANISER_ACTIONS))}")
        if not isinstance(data.get("by"), str) or data["by"] not in table.seats:
            raise ApiError(400, "bad-input", "'by' must name a seat of this match")
    else:
        data.setdefault("by", phone.seat)
        if data.get("by") != phone.seat:
            raise ApiError(403, "wrong-seat",
                           f"this phone plays {phone.seat}, not {shown(data.get('by'))}")
        if phone.seat not in table.seats:
            raise ApiError(403, "wrong-seat", f"{phone.seat} has no seat in this match: join again")
    try:
        action = action_from_json(data)  # malformed or unknown cards: 400, the table never sees it
    except RuleError as exc:
        raise ApiError(400, exc.code, exc.message) from None
    # What the game would only refuse as malformed (a mode's missing action, a typo of a hand,
    # a card of another deck): 400 before the table sees it. The engine says which.
    problem = table.game.malformed(action)
    if problem is not None:
        raise ApiError(400, problem.code, problem.message)
    if phone.seat is not None and do not in PHONE_ACTIONS:
        raise ApiError(403, "not-from-phone", f"{do!r} is not sent from a phone")
    return jsonify(table.act(action, source="phone").to_json())


@bp.post("/api/undo")
@post_guard(seat=True, table=True)
def api_undo(phone: Phone, data: dict[str, Any], table):
    """Undo needs two: one seat asks, another agrees, each naming the action meant by its
    sequence number (``{"seq": n}``, ``undo_seq`` of ``GET /api/state``); ``{"cancel": true}``
    withdraws the ask.

    The request is asked, taken or withdrawn in one step under the web state's lock
    (:meth:`WebState.undo_step`), and the table undoes only the action named
    (:meth:`Table.undo`): however many seats agree at once, one action is taken back. A tap
    naming an action that is not the last one standing (taken back already, or another was
    played since) is refused, 409 ``undo-stale``.
    """
    if phone.seat not in table.seats:
        raise ApiError(403, "wrong-seat", f"{phone.seat} has no seat in this match")
    cancel = data.get("cancel", False)
    if not isinstance(cancel, bool):
        raise ApiError(400, "bad-input", "'cancel' must be true or false")
    seq = data.get("seq")
    if not cancel:
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 < seq < 2 ** 53:
            raise ApiError(400, "bad-input",
                           "'seq' must name the action to undo (undo_seq of /api/state)")
        last = table.last_seq
        if seq != last:
            raise ApiError(409, "undo-stale", f"action {seq} is not the last action standing"
                                              + (f" ({last} is)" if last else ""),
                           params={"seq": seq})
    what, by = _web().undo_step(phone.seat, cancel, seq, table)
    bus = _host().bus
    if what == "cancelled":
        bus.publish("undo-cancelled", by=by)
        return jsonify({"ok": True, "undo_request": None})
    if what == "asked":
        bus.publish("undo-requested", seat=by, seq=seq)
        return jsonify({"ok": True, "undo_request": {"by": by, "seq": seq}}), 202
    answer = table.undo(by=by, seq=seq)
    if answer.error == "undo-stale":
        raise ApiError(409, "undo-stale", answer.message or "", params={"seq": seq})
    return jsonify(answer.to_json())


@bp.post("/api/confirm")
@post_guard(seat=True)
def api_confirm(phone: Phone, data: dict[str, Any]):
    """Answer the camera's question (``confirm-needed``): ``{"choice": index}``.

    The answer is published as ``confirm-answer`` for the camera referee; a choice that carries
    an ``action`` (replay form) is also played at once. The question is taken in one step under
    the lock (:meth:`WebState.take_answer`): two taps at once answer it once.
    """
    table = _host().table
    question, choice = _web().take_answer(phone.seat, data.get("choice"))
    _host().bus.publish("confirm-answer", seat=phone.seat, question=question.get("id"),
                        choice=choice, index=data["choice"])
    if isinstance(choice, dict) and isinstance(choice.get("action"), dict):
        if table is None:
            raise ApiError(409, "no-match",
                           "no match is being played: start one on the set-up page")
        return jsonify(table.act(choice["action"], source="phone",
                                 evidence=_evidence_of(question)).to_json())
    return jsonify({"ok": True}), 202


def _evidence_of(question: dict[str, Any]) -> str | None:
    """The id of the frame the camera asked ``question`` on (its answer is played with it)."""
    evidence = question.get("evidence")
    return evidence if isinstance(evidence, str) and _EVIDENCE_ID.fullmatch(evidence) else None


@bp.post("/api/confirm-card")
@post_guard(seat=True, table=True)
def api_confirm_card(phone: Phone, data: dict[str, Any], table):
    """Answer the camera's question with another card than its choices ("another card..."):
    ``{"card": name}``, with ``"color"`` for a wild on the discard pile, and ``"illegal":
    true`` to say the card was put down although the rules refuse it.

    Only a question that carries ``other`` takes it (``other`` is the ``do`` word: the card is
    the question's seat's ``play`` in the cell or on the discard pile it asks about, or the grid
    game's ``discard``). The action is checked before anything is done, the question left open
    when it is refused: 400 for a name that is no card of this game (``bad-card``) or a
    malformed body, 409 ``no-other-card`` for a question that takes none, 409 with the rules'
    own code (``not-matching``...), its ``params`` and ``"illegal": true`` for a play the rules
    refuse there -- sent again with ``"illegal": true``, it is recorded as that illegal attempt
    (the rules' refusal; in Flip and classic their penalty). Taken, the answer is published as
    ``confirm-answer`` {seat, question, other (the action), illegal} and the action is played;
    the reply is the table's answer.
    """
    card, color, illegal = data.get("card"), data.get("color"), data.get("illegal", False)
    if not isinstance(card, str) or not 0 < len(card) <= 40:
        raise ApiError(400, "bad-input", "'card' must be a card name")
    if color is not None and (not isinstance(color, str) or len(color) > 20):
        raise ApiError(400, "bad-input", "'color' must be a colour name")
    if not isinstance(illegal, bool):
        raise ApiError(400, "bad-input", "'illegal' must be true or false")
    question = _web().question_for(phone.seat)
    other, region = question.get("other"), question.get("region")
    if not isinstance(other, str) or not isinstance(region, str):
        raise ApiError(409, "no-other-card", "this question is answered by its choices only")
    try:
        action = other_card_action(region, question.get("seat") or phone.seat, other, card, color)
        attempt = other_card_attempt(table, action, illegal)
    except AnswerRefused as exc:
        status = 409 if exc.illegal or exc.code == "no-other-card" else 400
        raise ApiError(status, exc.code, exc.message, params=exc.params,
                       **({"illegal": True} if exc.illegal else {})) from None
    _web().take_question(question)
    _host().bus.publish("confirm-answer", seat=phone.seat, question=question.get("id"),
                        other=action.to_json(), illegal=attempt)
    return jsonify(table.act(action, source="phone", evidence=_evidence_of(question)).to_json())


@bp.post("/api/match")
@post_guard(organiser=True)
def api_match_start(phone: Phone, data: dict[str, Any]):
    """Start a match from a replay set-up object (``{"setup": {...}}``, and optionally
    ``"phones_per_seat": n``). The organiser only; every seated phone joins again."""
    if not isinstance(data.get("setup"), dict):
        raise ApiError(400, "bad-setup",
                       'the body must be {"setup": {"game": ..., "seats": [...]}}')
    per_seat = data.pop("phones_per_seat", _phones().per_seat)
    try:
        Phones.check_per_seat(per_seat)
    except ValueError as exc:
        raise ApiError(400, "bad-input", str(exc)) from None
    try:
        table = _host().start_match(data)
    except (SetupError, RuleError, KeyError, TypeError, ValueError) as exc:
        raise ApiError(400, "bad-setup", str(exc) or type(exc).__name__) from None
    _phones().per_seat = per_seat
    return jsonify({"ok": True, "game": table.game.name, "seats": table.seats,
                    "state": table.state_json()})


@bp.post("/api/settings")
@post_guard(organiser=True)
def api_settings(phone: Phone, data: dict[str, Any]):
    """The organiser changes ``{"phones_per_seat": n}`` during a match (a player changed phones)."""
    try:
        _phones().per_seat = data.get("phones_per_seat")
    except ValueError as exc:
        raise ApiError(400, "bad-input", str(exc)) from None
    return jsonify({"ok": True, "phones_per_seat": _phones().per_seat})


@bp.post("/api/match/end")
@post_guard(organiser=True, body=False, table=True)
def api_match_end(phone: Phone, table):
    _host().end_match()
    return jsonify({"ok": True})


# --- refusals ------------------------------------------------------------------------------

@bp.app_errorhandler(ApiError)
def _refused(exc: ApiError):
    return error(exc.status, exc.code, exc.message, **exc.extra)


#: The JSON codes of the HTTP errors werkzeug raises itself (the API answers them as JSON).
_HTTP_CODES = {400: "bad-input", 404: "not-found", 405: "bad-method", 413: "too-large",
               414: "too-large", 431: "too-large"}


@bp.app_errorhandler(HTTPException)
def _http_error(exc: HTTPException):
    """Werkzeug's own refusals (no such route, wrong method, body too large, a malformed
    request): JSON under ``/api/``, the plain page elsewhere; never a traceback."""
    if not request.path.startswith("/api/") or exc.code is None or exc.code >= 500:
        return exc
    if exc.code == 404:
        return error(404, "not-found", f"no such API: {request.path[:200]}")
    if exc.code == 405:
        return error(405, "bad-method", f"{request.method} is not accepted on {request.path[:200]}")
    if exc.code == 413:
        return error(413, "too-large",
                     f"the body is over {current_app.config['MAX_CONTENT_LENGTH']} bytes")
    return error(exc.code, _HTTP_CODES.get(exc.code, "bad-request"), exc.description or exc.name)
