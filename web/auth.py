"""Who may act: phones that joined through the QR code, each for its own seat.

* The table view's QR code holds a join link with the app's *join token*. A phone that opens it
  picks a seat (or joins as the organiser, with no seat) and gets a signed, HttpOnly,
  SameSite=Strict cookie naming a random phone id and that seat.
* Every POST carries the phone's CSRF token in the ``X-CSRF-Token`` header (an HMAC of the phone
  id, put in the page by the server), and a browser's ``Origin`` must be this server's.
* Spectators (no cookie) see everything and can do nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeSerializer

__all__ = ["Phone", "Phones", "COOKIE", "CSRF_HEADER"]

COOKIE = "companion_phone"
CSRF_HEADER = "X-CSRF-Token"


@dataclass(frozen=True)
class Phone:
    """A joined device: ``seat`` is None for an organiser (may set up, may not play)."""

    pid: str
    seat: str | None


class Phones:
    """Join tokens, phone cookies and CSRF tokens, all derived from one secret key."""

    def __init__(self, secret_key: str, join_token: str | None = None):
        self._secret = secret_key.encode()
        self._serializer = URLSafeSerializer(secret_key, salt="companion-phone")
        self.join_token = join_token or secrets.token_urlsafe(12)

    def token_ok(self, token: object) -> bool:
        return isinstance(token, str) and hmac.compare_digest(token, self.join_token)

    def new_cookie(self, seat: str | None) -> tuple[Phone, str]:
        phone = Phone(secrets.token_urlsafe(12), seat)
        return phone, self._serializer.dumps({"pid": phone.pid, "seat": seat})

    def read_cookie(self, value: str | None) -> Phone | None:
        if not value:
            return None
        try:
            data = self._serializer.loads(value)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("pid"), str):
            return None
        seat = data.get("seat")
        return Phone(data["pid"], seat if isinstance(seat, str) else None)

    def csrf_for(self, phone: Phone) -> str:
        return hmac.new(self._secret, b"csrf:" + phone.pid.encode(), hashlib.sha256).hexdigest()[:32]

    def csrf_ok(self, phone: Phone, header: str | None) -> bool:
        return isinstance(header, str) and hmac.compare_digest(header, self.csrf_for(phone))
