"""The league page: every table live, the standings and each match's history (en + ja).

``GET /`` is the page; it asks ``GET /api/league`` (every table, each match's summary, the
standings: :meth:`LeagueView.snapshot <league.view.LeagueView.snapshot>`) once a second and
``GET /api/match/<table>/<id>?epoch=<log id>`` (one match's entries, from the store; without
``epoch``, of the table's stream heard from last) when a match is opened.
The page only reads: it changes nothing anywhere, so it needs no account.

>>> from league.store import LeagueStore
>>> from league.view import LeagueView
>>> client = create_app(LeagueView("club"), LeagueStore(":memory:")).test_client()
>>> client.get("/api/league").json["tables"]
[]
>>> client.get("/api/match/t1/1").status_code
404
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from flask import Flask, Response, g, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider

from .store import LeagueStore
from .view import LeagueView

__all__ = ["create_app", "LANGS", "strings"]

LANGS = ("en", "ja")
_HERE = Path(__file__).parent


def strings(lang: str) -> dict[str, str]:
    """The page's words in ``lang`` (English where it has none)."""
    base: dict[str, str] = json.loads((_HERE / "i18n" / "en.json").read_text(encoding="utf-8"))
    if lang != "en":
        base.update(json.loads((_HERE / "i18n" / f"{lang}.json").read_text(encoding="utf-8")))
    return base


def create_app(view: LeagueView, store: LeagueStore, *, status: Callable[[], str] = lambda: "",
               state: Callable[[], str] = lambda: "") -> Flask:
    """The Flask app of the league page; ``status()`` says how the broker connection is (a
    sentence for the log), ``state()`` the same as one word the page translates (``hearing``,
    ``connecting``, ``refused``, ``unreachable``, ``lost``)."""
    app = Flask(__name__)
    if isinstance(app.json, DefaultJSONProvider):   # (Flask's own, always)
        app.json.ensure_ascii = False

    @app.before_request
    def _language() -> None:
        asked = request.args.get("lang") or request.cookies.get("lang")
        g.lang = asked if asked in LANGS else (request.accept_languages.best_match(LANGS) or "en")

    @app.after_request
    def _headers(response: Response) -> Response:
        if request.args.get("lang") in LANGS:
            response.set_cookie("lang", request.args["lang"], max_age=365 * 86400, samesite="Lax")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Content-Security-Policy",
                                    "default-src 'self'; script-src 'self'; style-src 'self'; "
                                    "frame-ancestors 'none'")
        return response

    @app.get("/")
    def page() -> str:
        words = strings(g.lang)
        return render_template("league.html", t=words, lang=g.lang, langs=LANGS,
                               league=view.league,
                               strings_json=json.dumps(words, ensure_ascii=False))

    @app.get("/favicon.ico")
    def no_icon() -> Response:
        return Response(status=204)  # (browsers ask; the page has no icon of its own)

    @app.get("/api/league")
    def league_state() -> Response:
        # allow_nan=False: the page's JSON.parse takes nothing else (the schema keeps NaN out)
        body = json.dumps({**view.snapshot(), "broker": status(), "broker_state": state()},
                          ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return Response(body, mimetype="application/json")

    @app.get("/api/match/<table>/<int:match>")
    def match_history(table: str, match: int) -> Any:
        entries = store.match_entries(table, match, request.args.get("epoch"))
        if not entries:
            return jsonify({"error": "no-such-match",
                            "message": f"no match {match} of table {table!r} was heard"}), 404
        return jsonify({"table": table, "match": match, "entries": entries})

    return app
