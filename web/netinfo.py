"""The address phones use to reach this machine (for the QR code's join link).

A phone cannot resolve ``raspberrypi.local`` everywhere, so the link carries the machine's LAN
IP address. It is found without sending anything: ``connect()`` on a UDP socket only asks the
kernel which source address it would route from; no packet leaves the machine.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["lan_ip", "is_loopback"]

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
