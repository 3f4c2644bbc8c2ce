"""The broker's address, the topics, and a paho-mqtt client set up from ``[league]``.

>>> Topics("club", "t1").events
'uno/club/t1/events'
>>> Topics.parse("club", "uno/club/t1/state")
('t1', 'state')
>>> Topics.parse("club", "uno/other/t1/state") is None
True
>>> broker_address("mqtts://pi.local")
('pi.local', 8883, True)
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from companion.config import LeagueSection

if TYPE_CHECKING:   # (paho-mqtt: the league extra, imported when a client is made)
    from paho.mqtt.client import Client

__all__ = ["Topics", "broker_address", "make_client", "KINDS"]

#: The topics under each table: its log's entries, its state (retained), online or not (retained).
KINDS = ("events", "state", "online")


@dataclass(frozen=True)
class Topics:
    """The topics of one table (``table``) in one league."""

    league: str
    table: str

    @property
    def base(self) -> str:
        return f"uno/{self.league}/{self.table}"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def online(self) -> str:
        return f"{self.base}/online"

    @staticmethod
    def wildcard(league: str) -> str:
        """What the league subscribes to: every table's every topic."""
        return f"uno/{league}/+/+"

    @staticmethod
    def parse(league: str, topic: str) -> tuple[str, str] | None:
        """(table, kind) of a topic of ``league``; None for anything else."""
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != "uno" or parts[1] != league or not parts[2] \
                or parts[3] not in KINDS:
            return None
        return parts[2], parts[3]


def broker_address(url: str) -> tuple[str, int, bool]:
    """(host, port, tls) of ``mqtt://host[:port]`` or ``mqtts://host[:port]``."""
    parts = urlsplit(url)
    tls = parts.scheme == "mqtts"
    return parts.hostname or "", parts.port or (8883 if tls else 1883), tls


def make_client(section: LeagueSection, client_id: str, *, clean_session: bool = True) -> Client:
    """A paho-mqtt client (MQTT 3.1.1) with the section's account and TLS; not connected yet.

    It reconnects by itself after a lost connection (1 s, doubling up to 30 s)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=clean_session, protocol=mqtt.MQTTv311)
    if section.username:
        client.username_pw_set(section.username, section.password or None)
    _, _, tls = broker_address(section.broker)
    if tls:
        client.tls_set(ca_certs=section.ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    return client
