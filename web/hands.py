"""The API of hands read by the camera or a phone's photo (docs/web.md, "Hands read by camera").

* ``GET /api/hand-reads``: ``{"ok": true, "hand_reads": {seat: reading}, "awaited": [seats]}``
  (the same readings as ``GET /api/state``'s ``hand_reads``);
* ``POST /api/hand-photo``: the body is a JPEG or PNG photo of one hand (at most
  :data:`web.app.MAX_PHOTO_BYTES`), from a seated phone for its own seat, or from the organiser for
  ``?seat=``; answers ``{"ok": true, "hand_read": reading}``;
* ``POST /api/hand-read``: ``{"seat": S}`` (or ``{}``: every awaited seat) asks the table's camera
  to read the hand zones again now; 202 ``{"ok": true, "asked": [seats]}``;
* ``POST /api/hand-keep``: ``{"seat": S}`` keeps the seat's reading as a part of a hand read in
  parts (the next reading is added after it), ``{"seat": S, "drop": true}`` drops the kept parts
  and the reading; answers ``{"ok": true, "hand_read": reading}`` (null once dropped).

A reading is only a proposal: the phone shows it card by card with the points, and the player
sends it (or corrects it with the card picker) as the usual ``show`` action (``POST
/api/action``); only then is it scored. Refusals: 400 ``bad-input`` / ``bad-photo`` (not a photo),
404 ``unknown-seat``, 409 ``no-match`` / ``no-hands`` (no game with hands) / ``nothing-to-keep``
(nothing new read to keep), 413 ``too-large``,
503 ``no-reader`` / ``no-camera`` (nothing here reads photos or the table).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from companion.hand_reading import HandReadError, NoHandReader

from .app import MAX_PHOTO_BYTES, ApiError, _host, post_guard
from .auth import Phone

__all__ = ["bp", "MAX_PHOTO_BYTES"]

PHOTO_TYPES = ("image/jpeg", "image/png")

bp = Blueprint("hands", __name__)


def _seat_for(phone: Phone, table) -> str:
    """The seat a request is about: a seated phone's own; the organiser names it (``?seat=``)."""
    seat = phone.seat
    if seat is None:
        seat = request.args.get("seat")
        body = request.get_json(silent=True) if request.is_json else None
        if seat is None and isinstance(body, dict):
            seat = body.get("seat")
    if not isinstance(seat, str) or seat not in table.seats:
        raise ApiError(404, "unknown-seat", f"no seat {str(seat)[:60]!r} in this match")
    return seat


@bp.get("/api/hand-reads")
def api_hand_reads():
    hands = _host().hands
    return jsonify({"ok": True, "hand_reads": hands.to_json(), "awaited": list(hands.awaited())})


@bp.post("/api/hand-photo")
@post_guard(body=False, table=True)
def api_hand_photo(phone: Phone, table):
    if phone.seat is not None and request.args.get("seat") not in (None, phone.seat):
        raise ApiError(403, "wrong-seat", f"this phone plays {phone.seat}")
    seat = _seat_for(phone, table)
    if request.mimetype not in PHOTO_TYPES:
        raise ApiError(400, "bad-photo", "send the photo as image/jpeg or image/png")
    # a photo is larger than any JSON body (the server lets bodies this large through)
    request.max_content_length = current_app.config["MAX_PHOTO_BYTES"]
    data = request.get_data(cache=False)
    if not data:
        raise ApiError(400, "bad-photo", "the photo is empty")
    try:
        reading = _host().hands.read_photo(seat, data)
    except NoHandReader as exc:
        raise ApiError(503, "no-reader", str(exc)) from None
    except HandReadError as exc:
        code = "no-hands" if _host().hands.face_set() is None else "bad-photo"
        raise ApiError(409 if code == "no-hands" else 400, code, str(exc)) from None
    return jsonify({"ok": True, "hand_read": reading.to_json()})


def _hands_for(phone: Phone, data: dict[str, Any], table, *, seat_needed: bool):
    """The host's hand readings and the seat a JSON request names (a seated phone's own when it
    names none; None when it names none and ``seat_needed`` is False), refused as the API says."""
    hands = _host().hands
    if hands.face_set() is None:
        raise ApiError(409, "no-hands", f"the {table.game.name} game has no hands to score")
    seat = data.get("seat", phone.seat)
    if (seat is not None or seat_needed) and (not isinstance(seat, str) or seat not in table.seats):
        raise ApiError(404, "unknown-seat", f"no seat {str(seat)[:60]!r} in this match")
    if phone.seat is not None and seat not in (None, phone.seat):
        raise ApiError(403, "wrong-seat", f"this phone plays {phone.seat}")
    return hands, seat


@bp.post("/api/hand-read")
@post_guard(table=True)
def api_hand_read(phone: Phone, data: dict[str, Any], table):
    hands, seat = _hands_for(phone, data, table, seat_needed=False)
    seats = (seat,) if seat is not None else hands.awaited()
    if not hands.request_scan(seats):
        raise ApiError(503, "no-camera", "no camera reads the table here: send a photo instead")
    return jsonify({"ok": True, "asked": list(seats)}), 202


@bp.post("/api/hand-keep")
@post_guard(table=True)
def api_hand_keep(phone: Phone, data: dict[str, Any], table):
    hands, seat = _hands_for(phone, data, table, seat_needed=True)
    drop = data.get("drop", False)
    if not isinstance(drop, bool):
        raise ApiError(400, "bad-input", "drop is true or false")
    if drop:
        hands.drop_kept(seat)
        return jsonify({"ok": True, "hand_read": None})
    try:
        reading = hands.keep(seat)
    except HandReadError as exc:
        raise ApiError(409, "nothing-to-keep", str(exc)) from None
    return jsonify({"ok": True, "hand_read": reading.to_json()})
