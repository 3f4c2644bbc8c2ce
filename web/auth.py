"""Who may act: phones that joined through the QR code, each for its own seat, and the organiser.

* The table view's QR code holds a join link with the app's *join token*; nothing else serves it
  (the set-up page sends a visitor to the table view, ``/api/qr.svg`` answers the organiser only).
  A phone that opens the link picks a seat, or joins as the *organiser* (no seat), and gets a
  signed, HttpOnly, SameSite=Strict cookie naming a random phone id and that seat.
* The server remembers every phone it let in (:class:`Phones`): a cookie is good only while its
  phone id is on that list. Leaving, the cookie's age (``max_age_s``, 12 hours) and a new match
  (for the seats; the organiser stays) take it off, and a restart forgets everybody, so a copied
  or old cookie is refused even though its signature is right.
* One phone per seat unless the organiser allows more (``per_seat``): a second phone asking for a
  taken seat is refused with :class:`SeatTaken`.
* Only the organiser starts and ends matches; a seated phone acts only for its own seat.
* Every POST carries the phone's CSRF token in the ``X-CSRF-Token`` header (an HMAC of the phone
  id, put in the page by the server).
* The server answers only to its own names (:class:`AllowedHosts`): loopback, this machine's LAN
  address and host name, the configured address. A page that renamed itself to this machine's
  address (DNS rebinding) sends its own name in ``Host`` and is refused; a browser's ``Origin``
  must be one of these names too, on the port the request came to.
* Spectators (no cookie) see everything and can do nothing.

>>> phones = Phones("key", "tok")
>>> ann, cookie = phones.join("ann")
>>> phones.read_cookie(cookie) == ann
True
>>> phones.join("ann")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
web.auth.SeatTaken: ann is taken by another phone: ask the organiser to allow more phones per seat
>>> phones.leave(ann); phones.read_cookie(cookie) is None
True
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlsplit

from itsdangerous import BadSignature, URLSafeSerializer

__all__ = ["Phone", "Phones", "SeatTaken", "AllowedHosts", "COOKIE", "CSRF_HEADER",
           "COOKIE_MAX_AGE_S", "MAX_PHONES_PER_SEAT"]

COOKIE = "companion_phone"
CSRF_HEADER = "X-CSRF-Token"
#: How long a join lasts: a long evening of games; then the phone scans the QR code again.
COOKIE_MAX_AGE_S = 12 * 3600
#: The most phones the organiser may allow on one seat.
MAX_PHONES_PER_SEAT = 8


@dataclass(frozen=True)
class Phone:
    """A joined device: ``seat`` is None for an organiser (may set up, may not play)."""

    pid: str
    seat: str | None

    @property
    def is_organiser(self) -> bool:
        return self.seat is None


class SeatTaken(Exception):
    """The seat already has as many phones as the organiser allows."""

    code = "seat-taken"


class Phones:
    """Join tokens, phone cookies and CSRF tokens (derived from one secret key), and the list of
    phones let in: a cookie names a phone id, the list says whether it still counts."""

    def __init__(self, secret_key: str, join_token: str | None = None, *,
                 max_age_s: float = COOKIE_MAX_AGE_S, per_seat: int = 1,
                 clock: Callable[[], float] = time.monotonic):
        self._secret = secret_key.encode()
        self._serializer = URLSafeSerializer(secret_key, salt="companion-phone")
        self.join_token = join_token or secrets.token_urlsafe(12)
        self.max_age_s = max_age_s
        self._clock = clock
        self._lock = threading.Lock()
        self._joined: dict[str, tuple[str | None, float]] = {}   # pid -> (seat, expires)
        self._per_seat = 1
        self.per_seat = per_seat

    @property
    def per_seat(self) -> int:
        """How many phones may hold one seat (1 to :data:`MAX_PHONES_PER_SEAT`)."""
        return self._per_seat

    @per_seat.setter
    def per_seat(self, value: int) -> None:
        self._per_seat = self.check_per_seat(value)

    @staticmethod
    def check_per_seat(value: object) -> int:
        """``value`` if it is a valid number of phones per seat, else ValueError."""
        if (not isinstance(value, int) or isinstance(value, bool)
                or not 1 <= value <= MAX_PHONES_PER_SEAT):
            raise ValueError(f"phones per seat must be a whole number 1..{MAX_PHONES_PER_SEAT}, "
                             f"got {value!r}")
        return value

    def token_ok(self, token: object) -> bool:
        return isinstance(token, str) and hmac.compare_digest(token, self.join_token)

    def join(self, seat: str | None, replacing: Phone | None = None) -> tuple[Phone, str]:
        """Let a new phone in on ``seat`` (None: organiser); its cookie value comes back.

        ``replacing``: the phone's current join, if it has one (it picks a seat again); it is
        dropped once the new one is made, and does not count against the seat.
        Raises :class:`SeatTaken` when the seat already has :attr:`per_seat` phones."""
        phone = Phone(secrets.token_urlsafe(12), seat)
        old = replacing.pid if replacing is not None else None
        now = self._clock()
        with self._lock:
            self._forget_expired(now)
            if seat is not None:
                holders = sum(1 for pid, (held, _) in self._joined.items()
                              if held == seat and pid != old)
                if holders >= self._per_seat:
                    raise SeatTaken(f"{seat} is taken by another phone: ask the organiser to "
                                    f"allow more phones per seat")
            self._joined.pop(old, None)
            self._joined[phone.pid] = (seat, now + self.max_age_s)
        return phone, self._serializer.dumps({"pid": phone.pid, "seat": seat})

    def read_cookie(self, value: str | None) -> Phone | None:
        """The phone a cookie names, or None: forged, expired, left, or revoked."""
        if not value:
            return None
        try:
            data = self._serializer.loads(value)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("pid"), str):
            return None
        seat = data.get("seat")
        phone = Phone(data["pid"], seat if isinstance(seat, str) else None)
        with self._lock:
            entry = self._joined.get(phone.pid)
            if entry is None or entry[0] != phone.seat:
                return None
            if entry[1] <= self._clock():
                del self._joined[phone.pid]
                return None
        return phone

    def leave(self, phone: Phone) -> None:
        """The phone's cookie no longer counts (its seat is free again)."""
        with self._lock:
            self._joined.pop(phone.pid, None)

    def revoke_seats(self) -> list[str]:
        """A new match: every seated phone joins again (the organiser stays). Returns their ids."""
        with self._lock:
            gone = [pid for pid, (seat, _) in self._joined.items() if seat is not None]
            for pid in gone:
                del self._joined[pid]
        return gone

    def holders(self, seat: str) -> int:
        """How many joined phones hold ``seat`` now."""
        now = self._clock()
        with self._lock:
            self._forget_expired(now)
            return sum(1 for held, _ in self._joined.values() if held == seat)

    def _forget_expired(self, now: float) -> None:
        for pid in [pid for pid, (_, expires) in self._joined.items() if expires <= now]:
            del self._joined[pid]

    def csrf_for(self, phone: Phone) -> str:
        return hmac.new(self._secret, b"csrf:" + phone.pid.encode(), hashlib.sha256).hexdigest()[:32]

    def csrf_ok(self, phone: Phone, header: str | None) -> bool:
        return isinstance(header, str) and hmac.compare_digest(header, self.csrf_for(phone))


def split_host(value: str) -> tuple[str, int | None] | None:
    """``"Name:8000"`` -> ``("name", 8000)``; ``"[::1]"`` -> ``("::1", None)``; None if malformed."""
    try:
        parts = urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.path or parts.query:
        return None
    return parts.hostname.lower(), port


class AllowedHosts:
    """The names this server answers to, for the ``Host`` and ``Origin`` checks.

    ``names`` are host names or addresses (no port). ``is_local`` (optional) says whether an IP
    address belongs to this machine: a new DHCP address then still works without a restart. An IP
    address in ``Host`` cannot come from DNS rebinding, which always sends the attacker's name.

    >>> hosts = AllowedHosts(["localhost", "192.168.1.20"])
    >>> hosts.host_ok("192.168.1.20:8000"), hosts.host_ok("evil.example:8000")
    (True, False)
    >>> hosts.origin_ok("http://192.168.1.20:8000", "192.168.1.20:8000")
    True
    >>> hosts.origin_ok("http://evil.example:8000", "evil.example:8000")
    False
    """

    def __init__(self, names: Iterable[str], is_local: Callable[[str], bool] | None = None):
        self.names = frozenset(n.strip("[]").lower() for n in names if n)
        self._is_local = is_local

    def name_ok(self, name: str) -> bool:
        if name in self.names:
            return True
        if self._is_local is None:
            return False
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return self._is_local(name)

    def host_ok(self, host_header: str | None) -> bool:
        """Whether a request's ``Host`` header names this server."""
        parsed = split_host(host_header or "")
        return parsed is not None and self.name_ok(parsed[0])

    def origin_ok(self, origin: str, host_header: str | None) -> bool:
        """Whether a browser's ``Origin`` is one of this server's names on the port asked."""
        try:
            parts = urlsplit(origin)
            origin_port = parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        asked = split_host(host_header or "")
        if asked is None:
            return False
        default = 443 if parts.scheme == "https" else 80
        return (self.name_ok(parts.hostname.lower())
                and (origin_port or default) == (asked[1] or default))
