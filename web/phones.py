"""The organiser's list of joined phones (docs/web.md, "Joining: who may act").

* ``GET /api/phones`` (the organiser only): ``{"ok": true, "phones": [{"id", "seat" (null: an
  organiser), "address" (where it joined from), "joined_at" (seconds since the epoch), "streams"
  (event streams open now), "you" (this phone)}], "max_phones", "max_organisers"}``, oldest
  first;
* ``POST /api/phones/remove`` ``{"id": ...}`` (the organiser only): the phone is taken off the
  list, its cookie is refused from then on and its event streams end; it may scan the QR code
  again (an organiser needs the PIN again). 404 ``unknown-phone`` for an id not on the list.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify

from .app import ApiError, _ext, _phones, post_guard
from .auth import Phone

__all__ = ["bp"]

bp = Blueprint("phones", __name__)


@bp.get("/api/phones")
def api_phones():
    phone: Phone | None = g.phone
    if phone is None or not phone.is_organiser:
        raise ApiError(403, "organiser-only", "only the organiser sees the joined phones")
    phones = _phones()
    streams = _ext()["stream"].owners()
    listed = [{**p, "streams": streams.get(p["id"], 0), "you": p["id"] == phone.pid}
              for p in phones.listed()]
    return jsonify({"ok": True, "phones": listed, "max_phones": phones.max_phones,
                    "max_organisers": phones.max_organisers})


@bp.post("/api/phones/remove")
@post_guard(organiser=True)
def api_phones_remove(phone: Phone, data: dict[str, Any]):
    pid = data.get("id")
    if not isinstance(pid, str) or not 0 < len(pid) <= 64:
        raise ApiError(400, "bad-input", "'id' must name a joined phone")
    if not _phones().remove(pid):    # (its streams end: Phones.on_gone)
        raise ApiError(404, "unknown-phone", "no such phone has joined (it may have left)")
    return jsonify({"ok": True, "removed": pid})
