"""Optional table buttons: UNO!, draw/pass and confirm, for the seat whose turn it is.

The buttons are shared by the whole table, so a press acts for whoever it concerns:

* **UNO!** calls UNO for the player whose catch window is open (they just played their
  second-to-last card, and the turn may already have moved on), else for the player whose turn
  it is: ``{"by": seat, "do": "uno"}``.
* **draw/pass** draws one card for the player whose turn it is, or passes (keeps the drawn
  card) when that player has just drawn: ``{"do": "draw", "count": 1}`` / ``{"do": "pass"}``.
  The grid game has no draw or pass: the button does nothing there. With the timer only
  (game ``timer``) it ends the turn: ``{"do": "pass"}``.
* **confirm** calls the ``confirm`` callback (the camera referee's "yes, that is what
  happened").

:class:`TableButtons` follows the turn on the event bus, and hands every action to ``act``
(e.g. ``lambda a: host.require_table().act(a, source="button")``). Presses are debounced twice:
gpiozero's ``bounce_time`` on the pin and a minimum time between two accepted presses of the
same button (``debounce``), which also covers a finger that presses twice.

>>> from gpiozero.pins.mock import MockFactory
>>> from companion.bus import EventBus
>>> bus, factory, actions = EventBus(), MockFactory(), []
>>> buttons = TableButtons(bus, act=actions.append, pin_factory=factory)
>>> _ = bus.publish("match-started", game="classic", state={"turn": "ann"})
>>> factory.pin(24).drive_low(); factory.pin(24).drive_high()  # press and release draw/pass
>>> actions
[{'by': 'ann', 'do': 'draw', 'count': 1}]
>>> buttons.close()
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from gpiozero import Button

from .errors import PinUnavailable
from .pinmap import PinMap

__all__ = ["TableButtons", "BUTTONS"]

log = logging.getLogger(__name__)

#: The buttons there can be, by name.
BUTTONS = ("uno", "draw", "confirm")

#: Games with UNO calls and a draw pile (the grid game has neither; timer/scoreboard no cards).
_CARD_GAMES = ("flip", "classic")


class TableButtons:
    """The table's buttons on the pins of ``pinmap`` (those wired, if ``pinmap.buttons``).

    ``act(action)`` receives replay-form actions; ``confirm()`` is called by the confirm
    button. ``bus`` tells whose turn it is (``turn``, ``state``, ``action`` and ``uno-window``
    events). ``clock`` (seconds, monotonic) times the debounce. Buttons close to ground
    (internal pull-ups). Raises :class:`~hardware.errors.PinUnavailable` when a pin cannot be had.
    """

    def __init__(self, bus=None, pinmap: PinMap | None = None, act: Callable[[dict], Any] | None = None,
                 *, confirm: Callable[[], Any] | None = None, pin_factory=None,
                 debounce: float = 0.3, clock: Callable[[], float] = time.monotonic):
        self.pinmap = pinmap or PinMap()
        self._act = act or (lambda action: None)
        self._confirm = confirm
        self._debounce = debounce
        self._clock = clock
        self._lock = threading.Lock()
        self._last_press: dict[str, float] = {}
        self._game: str | None = None
        self._turn: str | None = None
        self._drawn_by: str | None = None
        self._uno_window: str | None = None
        self.buttons: dict[str, Button] = {}
        try:
            for name, pin in self.pinmap.button_pins().items():
                try:
                    button = Button(pin, pull_up=True, bounce_time=self.pinmap.bounce or None,
                                    pin_factory=pin_factory)
                except Exception as exc:  # gpiozero's errors, and lgpio's own
                    raise PinUnavailable(f"{name} button", pin, exc) from exc
                button.when_pressed = lambda name=name: self.press(name)
                self.buttons[name] = button
        except BaseException:
            self.close()
            raise
        self._unsubscribe = (bus.subscribe(self._follow, types={
            "turn", "state", "table-ready", "action", "uno-window", "match-started", "match-ended"})
            if bus is not None else (lambda: None))

    @classmethod
    def for_host(cls, host, pinmap: PinMap | None = None, *, confirm=None, **kwargs) -> "TableButtons":
        """Buttons acting on ``host``'s current table (presses between matches do nothing)."""
        def act(action: dict) -> Any:
            table = host.table
            return table.act(action, source="button") if table is not None else None
        buttons = cls(host.bus, pinmap, act, confirm=confirm, **kwargs)
        if host.table is not None:
            buttons._game = host.table.game.name
            buttons._turn = host.table.state_json().get("turn")
        return buttons

    def _follow(self, message) -> None:
        data = message.data
        with self._lock:
            if message.type in ("match-started", "table-ready"):
                self._game = data.get("game", self._game)
                self._drawn_by = self._uno_window = None
                self._turn = (data.get("state") or {}).get("turn", self._turn)
            elif message.type == "match-ended":
                self._turn = self._drawn_by = self._uno_window = None
            elif message.type == "turn":
                if data.get("seat") != self._turn:
                    self._drawn_by = None
                self._turn = data.get("seat")
            elif message.type == "state":
                state = data.get("state") or {}
                turn = None if state.get("over") else state.get("turn")
                if turn != self._turn:
                    self._drawn_by = None
                self._turn = turn
            elif message.type == "action":
                action = data.get("action") or {}
                if data.get("ok") and action.get("do") == "draw":
                    self._drawn_by = action.get("by")
                elif data.get("ok") and action.get("do") in ("play", "pass"):
                    self._drawn_by = None
            elif message.type == "uno-window":
                if data.get("open"):
                    self._uno_window = data.get("seat")
                elif self._uno_window == data.get("seat"):
                    self._uno_window = None

    def action_for(self, name: str) -> dict[str, Any] | None:
        """The action a press of button ``name`` means now (None: nothing to do)."""
        with self._lock:
            if name == "uno":
                seat = self._uno_window or self._turn
                return {"by": seat, "do": "uno"} if seat and self._game in _CARD_GAMES else None
            if name == "draw":
                if self._turn is not None and self._game == "timer":
                    return {"by": self._turn, "do": "pass"}  # timer only: the button ends a turn
                if self._turn is None or self._game not in _CARD_GAMES:
                    return None
                if self._drawn_by == self._turn:
                    return {"by": self._turn, "do": "pass"}
                return {"by": self._turn, "do": "draw", "count": 1}
        return None

    def press(self, name: str) -> Any:
        """Act as if button ``name`` (uno, draw, confirm) were pressed; returns what ``act`` or
        ``confirm`` returned, or None for a bounce or a press that means nothing now."""
        if name not in BUTTONS:
            raise ValueError(f"no button {name!r}; buttons: {', '.join(BUTTONS)}")
        now = self._clock()
        with self._lock:
            last = self._last_press.get(name)
            if last is not None and now - last < self._debounce:
                return None
            self._last_press[name] = now
        if name == "confirm":
            return self._confirm() if self._confirm is not None else None
        action = self.action_for(name)
        if action is None:
            log.info("button %s: nothing to do now", name)
            return None
        try:
            return self._act(action)
        except Exception:  # a button press must never kill the GPIO thread
            log.exception("button %s: %r failed", name, action)
            return None

    def close(self) -> None:
        getattr(self, "_unsubscribe", lambda: None)()
        for button in self.buttons.values():
            button.close()
        self.buttons = {}

    def __enter__(self) -> "TableButtons":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
