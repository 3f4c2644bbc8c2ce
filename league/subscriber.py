"""The league's side: one MQTT connection hearing every table of the league.

:class:`LeagueSubscriber` subscribes (QoS 1) to ``uno/<league>/+/+`` with a persistent session
(a fixed client id, ``clean_session`` off): while the league is away the broker keeps the
entries published meanwhile, and gives them on its return together with every table's retained
state and presence. Each message is kept in the :class:`~league.store.LeagueStore` before it is
acknowledged (paho-mqtt acknowledges when the handler returns), then shown by the
:class:`~league.view.LeagueView`.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from companion.config import LeagueSection

from .mqtt import Topics, broker_address, make_client
from .store import LeagueStore
from .view import LeagueView

if TYPE_CHECKING:   # (paho-mqtt: the league extra)
    from paho.mqtt.client import Client, ConnectFlags, DisconnectFlags, MQTTMessage
    from paho.mqtt.properties import Properties
    from paho.mqtt.reasoncodes import ReasonCode

__all__ = ["LeagueSubscriber"]

log = logging.getLogger(__name__)


class LeagueSubscriber:
    """Feeds ``view`` (and ``store``) from the broker named in ``section``. :meth:`start`,
    :meth:`stop`; ``status`` says how the connection is."""

    def __init__(self, section: LeagueSection, view: LeagueView, store: LeagueStore, *,
                 client_id: str | None = None):
        self.section = section
        self.view = view
        self.store = store
        self.client = make_client(section, client_id or f"uno-league-{section.league}",
                                  clean_session=False)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_message = self._on_message
        self.connected = threading.Event()
        self.status = "connecting"
        #: the same as a word the page translates: connecting, hearing, refused, unreachable, lost
        self.state = "connecting"

    def start(self) -> "LeagueSubscriber":
        host, port, _ = broker_address(self.section.broker)
        self.client.connect_async(host, port, keepalive=15)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self.connected.clear()  # (so the disconnection is not reported as a loss)
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: Client, userdata: Any, flags: ConnectFlags, reason_code: ReasonCode,
                    properties: Properties | None = None) -> None:
        if reason_code.is_failure:
            self._say(f"refused by the broker {self.section.broker}: {reason_code} "
                      "(check [league] username and password)", "refused", error=True)
            return
        client.subscribe(Topics.wildcard(self.section.league), qos=1)
        self.connected.set()
        self._say(f"hearing league {self.section.league!r} on {self.section.broker}", "hearing")

    def _on_connect_fail(self, client: Client, userdata: Any) -> None:
        self._say(f"cannot reach the broker {self.section.broker}; trying again", "unreachable",
                  error=True)

    def _on_disconnect(self, client: Client, userdata: Any, flags: DisconnectFlags,
                       reason_code: ReasonCode, properties: Properties | None = None) -> None:
        if self.connected.is_set():
            self.connected.clear()
            self._say(f"lost the broker ({reason_code}); retrying", "lost", error=True)

    def _on_message(self, client: Client, userdata: Any, message: MQTTMessage) -> None:
        try:
            self.view.handle(message.topic, message.payload, self.store)
        except Exception:  # one bad message must not stop the league
            log.exception("league: a message on %r could not be handled", message.topic[:200])

    def _say(self, status: str, state: str, error: bool = False) -> None:
        if status != self.status:
            (log.error if error else log.info)("league: %s", status)
        self.status, self.state = status, state
