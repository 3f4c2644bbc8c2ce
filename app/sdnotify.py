"""systemd's service notification (``sd_notify``): "ready", and the watchdog's "still alive".

With ``Type=notify`` and ``WatchdogSec=`` in the unit (deploy/uno-companion.service), systemd
passes ``NOTIFY_SOCKET`` (a unix datagram socket) and ``WATCHDOG_USEC``; the companion sends
``READY=1`` once it serves, then ``WATCHDOG=1`` while its threads make progress. A companion
that hangs stops sending, and systemd restarts it. Off systemd every call does nothing.

>>> notify("READY=1", environ={})
False
>>> watchdog_seconds({"WATCHDOG_USEC": "30000000"})
30.0
"""

from __future__ import annotations

import os
import socket
from typing import Mapping

__all__ = ["notify", "watchdog_seconds"]


def notify(state: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``state`` ("READY=1", "WATCHDOG=1", "STATUS=...", "STOPPING=1") to systemd; False
    when not run by systemd (no ``NOTIFY_SOCKET``) or the socket is gone."""
    address = (os.environ if environ is None else environ).get("NOTIFY_SOCKET", "")
    if not address or address[0] not in "/@":
        return False
    if address[0] == "@":  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError:
        return False
    return True


def watchdog_seconds(environ: Mapping[str, str] | None = None) -> float | None:
    """The watchdog's timeout systemd asked for (``WatchdogSec``), None without one (or when it
    was meant for another process: ``WATCHDOG_PID``)."""
    env = os.environ if environ is None else environ
    pid = env.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", "0"))
    except ValueError:
        return None
    return usec / 1e6 if usec > 0 else None
