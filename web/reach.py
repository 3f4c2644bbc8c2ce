"""Can a phone reach this page, and at which address? The join link of the QR code.

The answer is worked out again for every request (never once at start): Wi-Fi that comes up
after the companion, or a new DHCP lease, changes the LAN address, and the next look at the table
view shows the new one. Finding the address sends nothing (see :func:`web.netinfo.lan_ip`).

Three cases, each with what the table view and the terminal say:

* ``ok``: the server listens on the network and this machine has a LAN address: the link
  carries it;
* ``loopback``: the server listens on loopback only (``127.0.0.1``, ``localhost``: the default of
  ``companion demo`` and ``make run``): no phone can reach it, whatever the link says;
* ``no-network``: the server listens on every network, but this machine has no LAN address yet.

>>> join_address("127.0.0.1", "127.0.0.1", lambda: "192.168.1.20")
Reach(status='loopback', address='127.0.0.1')
>>> join_address("0.0.0.0", "localhost", lambda: "192.168.1.20")
Reach(status='ok', address='192.168.1.20')
>>> join_address("0.0.0.0", "localhost", lambda: "127.0.0.1")
Reach(status='no-network', address='127.0.0.1')
>>> print(terminal_note("127.0.0.1", lambda: "192.168.1.20", 8000))  # doctest: +NORMALIZE_WHITESPACE
Phones cannot reach this page: it is served on 127.0.0.1 only. To let phones join, serve it on
the network: --host 0.0.0.0 (make run HOST=0.0.0.0).
>>> print(terminal_note("0.0.0.0", lambda: "192.168.1.20", 8000))
Phones join at http://192.168.1.20:8000/ (scan the QR code on the table view).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from .netinfo import is_loopback

__all__ = ["Reach", "join_address", "terminal_note", "SERVE_ON_NETWORK", "HOST_OPTION", "MAKE_RUN"]

#: How to serve on the network, as the page and the terminal say it: the command's option, and
#: the same with ``make run``.
HOST_OPTION = "--host 0.0.0.0"
MAKE_RUN = "make run HOST=0.0.0.0"
SERVE_ON_NETWORK = f"{HOST_OPTION} ({MAKE_RUN})"

_ANY = ("", "0.0.0.0", "::", "[::]")


class Reach(NamedTuple):
    """``status`` (``ok``, ``loopback``, ``no-network``) and the ``address`` for the link."""

    status: str
    address: str


def join_address(bound: str | None, asked: str, lan_ip: Callable[[], str]) -> Reach:
    """Where phones should go, for a server bound to ``bound`` and a page asked for as ``asked``
    (the request's host name); ``lan_ip`` finds this machine's LAN address now.

    A page asked for by a name (``raspberrypi.local``) or on loopback gets the LAN address: a
    phone needs an IP address. A page asked for by another IP address keeps it (the TV already
    reached the server there)."""
    if bound and bound not in _ANY and is_loopback(bound):
        return Reach("loopback", bound)
    if bound and bound not in _ANY:
        return Reach("ok", bound)           # one address only: the one phones must use
    if asked and not is_loopback(asked) and not asked.endswith(".local") and "." in asked:
        return Reach("ok", asked)
    address = lan_ip()
    return Reach("no-network" if is_loopback(address) else "ok", address)


def terminal_note(bound: str, lan_ip: Callable[[], str], port: int) -> str:
    """The line the terminal prints under the table view's address: how phones join, or plainly
    why they cannot."""
    reach = join_address(bound, "", lan_ip)
    if reach.status == "loopback":
        return (f"Phones cannot reach this page: it is served on {bound} only. To let phones "
                f"join, serve it on the network: {SERVE_ON_NETWORK}.")
    if reach.status == "no-network":
        return ("Phones cannot join yet: this machine has no network address. The QR code on "
                "the table view shows one as soon as it joins a network.")
    return f"Phones join at http://{reach.address}:{port}/ (scan the QR code on the table view)."
