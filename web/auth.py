"""Who may act: phones that joined through the QR code, each for its own seat, and the organiser.

* The table view's QR code holds a join link with the app's *join token*; nothing else serves it
  (the set-up page sends a visitor to the table view, ``/api/qr.svg`` answers the organiser only).
  A phone that opens the link picks a seat, or joins as the *organiser* (no seat) by giving the
  *organiser PIN* (:class:`PinGuard`: random per start, shown on the table screen of this
  machine and in its terminal; wrong PINs are limited), and gets a signed, HttpOnly,
  SameSite=Strict cookie naming a random phone id and that seat.
* The server remembers every phone it let in (:class:`Phones`): a cookie is good only while its
  phone id is on that list. Leaving, the cookie's age (``max_age_s``, 12 hours) and a new match
  (for the seats; the organiser stays) take it off, and a restart forgets everybody, so a copied
  or old cookie is refused even though its signature is right.
* One phone per seat unless the organiser allows more (``per_seat``): a second phone asking for a
  taken seat is refused with :class:`SeatTaken`. The list is bounded (:class:`TooManyPhones`),
  and the organiser sees it and removes a phone from it.
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
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlsplit

from itsdangerous import BadSignature, URLSafeSerializer

from .netinfo import is_loopback

__all__ = ["Phone", "Phones", "SeatTaken", "TooManyPhones", "BadPin", "TooManyTries", "PinGuard",
           "AllowedHosts", "COOKIE", "CSRF_HEADER", "COOKIE_MAX_AGE_S", "MAX_PHONES_PER_SEAT",
           "MAX_PHONES", "MAX_ORGANISERS", "PIN_DIGITS"]

COOKIE = "companion_phone"
CSRF_HEADER = "X-CSRF-Token"
#: How long a join lasts: a long evening of games; then the phone scans the QR code again.
COOKIE_MAX_AGE_S = 12 * 3600
#: The most phones the organiser may allow on one seat.
MAX_PHONES_PER_SEAT = 8
#: The most seated phones joined at once (10 seats of two phones, and some spare), and the most
#: organisers (a fifth ends the oldest organiser's join).
MAX_PHONES = 24
MAX_ORGANISERS = 4
#: How many digits the organiser PIN has.
PIN_DIGITS = 6


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


class TooManyPhones(Exception):
    """The table has let in as many seated phones as it takes (:attr:`Phones.max_phones`)."""

    code = "too-many-phones"


class BadPin(Exception):
    """An organiser join without the right organiser PIN."""

    code = "bad-pin"


class TooManyTries(Exception):
    """Too many wrong organiser PINs lately: no PIN is checked for ``retry_after_s`` seconds."""

    code = "too-many-tries"

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s


def new_pin() -> str:
    """A random organiser PIN of :data:`PIN_DIGITS` digits."""
    return f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"


class PinGuard:
    """The organiser PIN and the limit on wrong guesses: at most ``per_address`` wrong PINs from
    one address and ``overall`` from everybody within ``window_s``; beyond, every PIN (right or
    wrong) is refused with :class:`TooManyTries` until the oldest wrong one is ``window_s`` old.
    ``exempt(address)`` (loopback: the person at the table, who sees the PIN anyway) is never
    limited. Wrong guesses are counted per address in a dict that holds only the last window's."""

    def __init__(self, pin: str | None = None, *, per_address: int = 5, overall: int = 10,
                 window_s: float = 60.0, exempt: Callable[[str], bool] = lambda a: False,
                 clock: Callable[[], float] = time.monotonic):
        if pin is not None and not (isinstance(pin, str) and pin.isdigit() and pin.isascii()
                                    and 4 <= len(pin) <= 12):
            raise ValueError("the organiser PIN must be 4 to 12 digits")
        self.pin = pin or new_pin()
        self.per_address, self.overall, self.window_s = per_address, overall, window_s
        self._exempt = exempt
        self._clock = clock
        self._lock = threading.Lock()
        self._wrong: deque[tuple[float, str]] = deque()          # (when, address), oldest first
        self._by_address: dict[str, int] = {}

    def check(self, guess: object, address: str | None) -> None:
        """Nothing if ``guess`` is the PIN; else :class:`BadPin` (counted), or
        :class:`TooManyTries` while ``address`` or everybody is over the limit."""
        address = address or "?"
        limited = not self._exempt(address)
        now = self._clock()
        with self._lock:
            while self._wrong and self._wrong[0][0] <= now - self.window_s:
                _, old = self._wrong.popleft()
                left = self._by_address[old] - 1
                if left:
                    self._by_address[old] = left
                else:
                    del self._by_address[old]
            if limited and (len(self._wrong) >= self.overall
                            or self._by_address.get(address, 0) >= self.per_address):
                mine = [t for t, a in self._wrong if a == address]
                oldest = (mine[0] if len(self._wrong) < self.overall and mine
                          else self._wrong[0][0])
                wait = max(1, int(oldest + self.window_s - now + 0.999))
                raise TooManyTries(f"too many wrong organiser PINs: try again in {wait} s", wait)
            ok = (isinstance(guess, str) and guess.isascii()
                  and hmac.compare_digest(guess, self.pin))
            if not ok:
                if limited:
                    self._wrong.append((now, address))
                    self._by_address[address] = self._by_address.get(address, 0) + 1
                raise BadPin("that is not the organiser PIN: it is shown on the table screen "
                             "and in the table's terminal")


@dataclass
class _Joined:
    seat: str | None
    expires: float
    address: str | None
    joined_at: float


class Phones:
    """Join tokens, phone cookies and CSRF tokens (derived from one secret key), the organiser
    PIN (:class:`PinGuard`), and the list of phones let in: a cookie names a phone id, the list
    (a dict keyed by phone id, so a cookie is checked in constant time) says whether it still
    counts.

    At most ``max_phones`` seated phones and ``max_organisers`` organisers: one more seated phone
    is refused (:class:`TooManyPhones`); one more organiser (who knew the PIN) ends the oldest
    organiser's join. ``on_gone(pids)`` is told, after the lock is let go, of every join that
    ends: expired, left, removed, replaced by the same phone's new join, a seat revoked by a new
    match, an organiser ended by a newer one."""

    def __init__(self, secret_key: str, join_token: str | None = None, *,
                 max_age_s: float = COOKIE_MAX_AGE_S, per_seat: int = 1,
                 organiser_pin: str | None = None, max_phones: int = MAX_PHONES,
                 max_organisers: int = MAX_ORGANISERS,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time,
                 on_gone: Callable[[list[str]], object] | None = None):
        self._secret = secret_key.encode()
        self._serializer = URLSafeSerializer(secret_key, salt="companion-phone")
        self.join_token = join_token or secrets.token_urlsafe(12)
        self.max_age_s = max_age_s
        self.max_phones = max_phones
        self.max_organisers = max_organisers
        self.pins = PinGuard(organiser_pin, exempt=is_loopback)
        self.on_gone = on_gone
        self._clock = clock
        self._wall = wall_clock
        self._lock = threading.Lock()
        # pid -> join, oldest first (every join lasts max_age_s: the first to expire come first)
        self._joined: dict[str, _Joined] = {}
        self._by_seat: dict[str | None, dict[str, None]] = {}     # seat -> its pids, oldest first
        self._per_seat = 1
        self.per_seat = per_seat

    @property
    def organiser_pin(self) -> str:
        """The PIN a phone gives to join as the organiser (shown on the table screen on this
        machine and printed in its terminal)."""
        return self.pins.pin

    def check_pin(self, guess: object, address: str | None) -> None:
        """:meth:`PinGuard.check`: :class:`BadPin` or :class:`TooManyTries` unless right."""
        self.pins.check(guess, address)

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

    def join(self, seat: str | None, replacing: Phone | None = None, *,
             address: str | None = None) -> tuple[Phone, str]:
        """Let a new phone in on ``seat`` (None: organiser, whose PIN the caller checked); its
        cookie value comes back. ``address``: where it joined from (shown to the organiser).

        ``replacing``: the phone's current join, if it has one (it picks a seat again); it is
        dropped once the new one is made, and does not count against the seat.
        Raises :class:`SeatTaken` when the seat already has :attr:`per_seat` phones and
        :class:`TooManyPhones` when :attr:`max_phones` seated phones have joined."""
        phone = Phone(secrets.token_urlsafe(12), seat)
        gone: list[str] = []
        try:
            return self._join(phone, replacing, address, gone)
        finally:
            self._tell_gone(gone)          # after the lock, refused or not

    def _join(self, phone: Phone, replacing: Phone | None, address: str | None,
              gone: list[str]) -> tuple[Phone, str]:
        seat = phone.seat
        old = replacing.pid if replacing is not None else None
        now = self._clock()
        with self._lock:
            gone += self._forget_expired(now)
            if old is not None and old not in self._joined:
                old = None
            old_seat = self._joined[old].seat if old is not None else None
            if seat is not None:
                holders = self._count(seat) - (old is not None and old_seat == seat)
                if holders >= self._per_seat:
                    raise SeatTaken(f"{seat} is taken by another phone: ask the organiser to "
                                    f"allow more phones per seat")
                seated = len(self._joined) - self._count(None)
                seated -= old is not None and old_seat is not None
                if seated >= self.max_phones:
                    raise TooManyPhones(f"{self.max_phones} phones have joined this table, the "
                                        f"most it takes: the organiser can remove one on the "
                                        f"set-up page")
            if old is not None:
                self._drop(old)
                gone.append(old)           # this phone's old join ends: its streams too
            if seat is None:
                organisers = self._by_seat.get(None, {})
                while len(organisers) >= self.max_organisers:
                    oldest = next(iter(organisers))
                    self._drop(oldest)
                    gone.append(oldest)
            self._joined[phone.pid] = _Joined(seat, now + self.max_age_s, address, self._wall())
            self._by_seat.setdefault(seat, {})[phone.pid] = None
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
            if entry is None or entry.seat != phone.seat:
                return None
            expired = entry.expires <= self._clock()
            if expired:
                self._drop(phone.pid)
        if expired:
            self._tell_gone([phone.pid])
            return None
        return phone

    def is_joined(self, pid: str) -> bool:
        """Whether the phone ``pid`` is on the list now."""
        with self._lock:
            return pid in self._joined

    def leave(self, phone: Phone) -> None:
        """The phone's cookie no longer counts (its seat is free again)."""
        with self._lock:
            self._drop(phone.pid)
        self._tell_gone([phone.pid])

    def remove(self, pid: str) -> bool:
        """Take the phone ``pid`` off the list (the organiser removed it): its cookie is refused
        from now on. False when no such phone is joined."""
        with self._lock:
            if pid not in self._joined:
                return False
            self._drop(pid)
        self._tell_gone([pid])
        return True

    def listed(self) -> list[dict[str, object]]:
        """The joined phones, oldest first: ``{"id", "seat", "address", "joined_at"}`` (wall
        clock seconds)."""
        with self._lock:
            gone = self._forget_expired(self._clock())
            out = [{"id": pid, "seat": e.seat, "address": e.address, "joined_at": e.joined_at}
                   for pid, e in self._joined.items()]
        self._tell_gone(gone)
        return out

    def revoke_seats(self) -> list[str]:
        """A new match: every seated phone joins again (the organiser stays). Returns their ids."""
        with self._lock:
            gone = [pid for seat, pids in self._by_seat.items() if seat is not None for pid in pids]
            for pid in gone:
                self._drop(pid)
        self._tell_gone(gone)
        return gone

    def holders(self, seat: str) -> int:
        """How many joined phones hold ``seat`` now."""
        now = self._clock()
        with self._lock:
            gone = self._forget_expired(now)
            count = self._count(seat)
        self._tell_gone(gone)
        return count

    def _count(self, seat: str | None) -> int:
        return len(self._by_seat.get(seat, ()))

    def _drop(self, pid: str) -> None:
        entry = self._joined.pop(pid, None)
        if entry is not None:
            pids = self._by_seat[entry.seat]
            del pids[pid]
            if not pids:
                del self._by_seat[entry.seat]

    def _forget_expired(self, now: float) -> list[str]:
        """Drop the expired joins (the first ones: every join lasts as long); their ids."""
        gone = []
        while self._joined:
            pid = next(iter(self._joined))
            if self._joined[pid].expires > now:
                break
            self._drop(pid)
            gone.append(pid)
        return gone

    def _tell_gone(self, pids: list[str]) -> None:
        if pids and self.on_gone is not None:
            self.on_gone(pids)

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
