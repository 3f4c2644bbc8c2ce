"""The address phones use to reach this machine (for the QR code's join link).

A phone cannot resolve ``raspberrypi.local`` everywhere, so the link carries the machine's LAN
IP address. It is found without sending anything: ``connect()`` on a UDP socket only asks the
kernel which source address it would route from; no packet leaves the machine.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["lan_ip", "is_loopback", "is_local_address", "own_names"]

#: The names every machine has for itself.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")

# Any private address works as the routing question; nothing is sent to it.
_PROBE = ("10.255.255.255", 1)


def lan_ip() -> str:
    """This machine's LAN IPv4 address, or ``127.0.0.1`` when there is no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(_PROBE)
            address = sock.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    return address if address and address != "0.0.0.0" else "127.0.0.1"


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"


def is_local_address(address: str) -> bool:
    """Whether ``address`` (an IP address) belongs to this machine: binding to it works only then.

    Nothing is sent; the socket is closed at once. Used so that a phone that reaches the Pi on a
    new DHCP address is still let in."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    if ip.is_unspecified or ip.is_multicast:
        return False
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.bind((address, 0))
    except OSError:
        return False
    return True


def own_names(*configured: str | None) -> set[str]:
    """The names this machine answers to: loopback, its LAN address, its host name (and
    ``<name>.local`` for mDNS), and the ``configured`` host names or addresses (the bind address,
    the public URL's host). Wildcards (``0.0.0.0``, ``::``) and empty values are left out."""
    names = set(LOOPBACK_NAMES) | {lan_ip()}
    hostname = socket.gethostname().lower()
    if hostname:
        names |= {hostname, hostname.split(".")[0] + ".local"}
    for name in configured:
        if name and name not in ("0.0.0.0", "::", "[::]"):
            names.add(name.strip("[]").lower())
    return names
