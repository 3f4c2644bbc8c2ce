"""Signals: the referee's events shown with LEDs and heard from a buzzer.

:class:`Signals` subscribes to the event bus and drives gpiozero devices from its own worker
thread, so a publisher (the referee) never waits for a blink or a tune. What each event looks
and sounds like:

============================  ===============================================================
event                         signal
============================  ===============================================================
``turn``                      the seat LED of the player whose turn it is, steady
``timer`` warning (10 s)      a double beep and an amber flash of the status LED
``timer`` tick (5..1 s)       a tick each second
``timer`` expired (0 s)       a one-second low tone and a red flash
``action`` accepted           a short green flash and a click
``refused``, ``penalty``      a red flash and a low buzz (a penalty that comes with a refused
                              action signals once)
``confirm-needed``            the status LED pulses amber (and a rising "question") until
                              ``confirmed``
``flipped``                   the side LED turns white (light) or purple (dark), with a rising
                              or falling tune
``won``, ``round-over`` ...   the winners' seat LEDs blink and a fanfare plays, until the next
                              round starts; ``match-over`` plays the champion's tune
``camera`` lost               the status LED double-blinks blue until the camera is back (it
                              hangs or fails); one long blue blink: not found; three short
                              ones: busy (another program holds it)
``camera`` ended              the status LED stays blue: the video being refereed ended
``uno``                       a two-note call
``match-started``             a two-note start
============================  ===============================================================

The status LED is dim green while all is well (dark when it has no PWM, so that the green
flash still shows). Which seat LED a seat lights is decided by
:func:`seat_sides`.

Patterns are data (:mod:`hardware.patterns`, :mod:`hardware.tunes`); the worker computes what
every output should be at each instant and writes only changes, so a pin's history is exactly
the pattern. With a :class:`~hardware.timeline.ManualClock` time moves only when told, which
makes the histories exact in tests:

>>> from gpiozero.pins.mock import MockFactory, MockPWMPin
>>> from companion.bus import EventBus
>>> from hardware.timeline import ManualClock
>>> bus, factory = EventBus(), MockFactory(pin_class=MockPWMPin)
>>> signals = Signals(bus, pin_factory=factory, seats=["north", "south"], clock=ManualClock())
>>> _ = bus.publish("turn", seat="south")
>>> signals.flush()
True
>>> signals.describe()
'N:○ E:○ S:● W:○ side:- status:green buzzer:-'
>>> [s.state for s in factory.pin(13).states]
[False, 1.0]
>>> signals.close()
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any, Iterable

from gpiozero import LED, RGBLED, Buzzer, TonalBuzzer
from gpiozero.exc import PinPWMUnsupported
from gpiozero.tones import Tone

from companion.seating import Seating

from .errors import PinUnavailable
from .patterns import (AMBER, CAMERA_BUSY, CAMERA_ENDED, CAMERA_LOST, CAMERA_MISSING, DARK_SIDE, DIM_GREEN, GREEN,
                       LIGHT_SIDE, OFF, RED, WIN_BLINK, colour_name, flash, full_colour, pulse)
from .pinmap import SIDES, PinMap
from .timeline import EPS, Loop, RealClock, Track
from .tunes import BUZZER_MID_TONE, BUZZER_OCTAVES, tune

__all__ = ["Signals", "seat_sides"]

log = logging.getLogger(__name__)

# Status LED flashes (over whatever the status LED shows).
LEGAL_FLASH = flash("legal", GREEN, 0.15)
ILLEGAL_FLASH = flash("illegal", RED, 0.6)
WARNING_FLASH = flash("warning", AMBER, 0.3)
TIME_UP_FLASH = flash("time-up", RED, 1.0)

#: A late real-time wake-up replays missed steps up to this far back; older ones are skipped.
_CATCH_UP_LIMIT = 2.0
#: At most this many patterns wait on one output; a flood drops the oldest waiting ones.
_QUEUE_LIMIT = 6
#: A pause between two patterns queued on one output, so that two buzzes are heard as two.
_GAP = 0.05


def seat_sides(seats: Iterable[str], game: str | None = None,
               overrides: dict[str, str] | None = None,
               seating: dict[str, str] | None = None) -> dict[str, str]:
    """Which seat LED (side) each seat lights: the side it sits at, as the table's set-up says
    (``seating``, seat -> side: :attr:`companion.referee.table.Table.seating`), else
    :meth:`companion.seating.Seating.default` (the set-up page's, the camera's and the pages'
    default): seats named after sides (the grid game) at their own side, players round the
    table in play order from the south side, clockwise seen from above; with more than four,
    neighbours share a side's LED and the phones say exactly who. ``overrides`` (seat -> side)
    wins over both. (``game`` is kept for callers; the seats' names say it all.)

    >>> seat_sides(["ann", "ben", "cai"])
    {'ann': 'south', 'ben': 'west', 'cai': 'north'}
    >>> seat_sides(["ann", "ben"], seating={"ann": "east", "ben": "west"})
    {'ann': 'east', 'ben': 'west'}
    >>> seat_sides(["south", "north"], "grid")
    {'south': 'south', 'north': 'north'}
    """
    seats = list(seats)
    mapping = Seating.default(seats).to_json()
    for seat, side in (seating or {}).items():
        if seat in mapping and side in SIDES:
            mapping[seat] = side
    for seat, side in (overrides or {}).items():
        if side not in SIDES:
            raise ValueError(f"seat {seat!r}: {side!r} is not a side ({', '.join(SIDES)})")
        mapping[seat] = side
    return mapping


class _Devices:
    """The gpiozero devices of a pin map; every pin problem becomes a :class:`PinUnavailable`."""

    def __init__(self, pinmap: PinMap, factory):
        self.pinmap = pinmap
        self.factory = factory
        self.seats: dict[str, LED] = {}
        self.rgb: dict[str, RGBLED] = {}
        self.rgb_pwm: dict[str, bool] = {}
        self.buzzer = None
        self.buzzer_kind = "none"
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _make(self, role: str, pin, build):
        try:
            return build()
        except PinPWMUnsupported:
            raise
        except Exception as exc:  # gpiozero's errors, and lgpio's own ("GPIO busy"
            raise PinUnavailable(role, pin if isinstance(pin, int) else None, exc) from exc

    def _build(self) -> None:
        pm, f = self.pinmap, self.factory
        for side, pin in pm.seat_pins().items():
            self.seats[side] = self._make(f"seat LED {side}", pin,
                                          lambda pin=pin: LED(pin, pin_factory=f))
        for name in ("side", "status"):
            pins = pm.rgb(name)
            if pins is None:
                continue
            role = f"{name} LED (RGB: GPIO{pins[0]}, GPIO{pins[1]}, GPIO{pins[2]})"

            def build(pwm, pins=pins):
                return RGBLED(*pins, active_high=not pm.common_anode, pwm=pwm, pin_factory=f)
            try:
                self.rgb[name] = self._make(role, pins[0], lambda: build(pm.pwm))
                self.rgb_pwm[name] = pm.pwm
            except PinPWMUnsupported:
                self.rgb[name] = self._make(role, pins[0], lambda: build(False))
                self.rgb_pwm[name] = False
        if pm.buzzer is not None and pm.buzzer_kind != "none":
            role = "buzzer"
            if pm.buzzer_kind == "tonal":
                try:
                    self.buzzer = self._make(role, pm.buzzer, lambda: TonalBuzzer(
                        pm.buzzer, mid_tone=Tone(BUZZER_MID_TONE), octaves=BUZZER_OCTAVES,
                        pin_factory=f))
                    self.buzzer_kind = "tonal"
                except PinPWMUnsupported:
                    log.info("GPIO%s cannot do PWM: the buzzer plays one pitch", pm.buzzer)
            if self.buzzer is None:
                self.buzzer = self._make(role, pm.buzzer, lambda: Buzzer(pm.buzzer, pin_factory=f))
                self.buzzer_kind = "plain"

    def channels(self) -> list[str]:
        return ([f"seat:{side}" for side in SIDES] + ["side", "status", "buzzer"])

    def write(self, channel: str, value: Any) -> None:
        if channel.startswith("seat:"):
            led = self.seats.get(channel[5:])
            if led is not None:
                led.value = bool(value)
        elif channel in ("side", "status"):
            led = self.rgb.get(channel)
            if led is not None:
                led.value = tuple(value) if self.rgb_pwm[channel] else full_colour(value)
        elif channel == "buzzer" and self.buzzer is not None:
            if self.buzzer_kind == "tonal":
                self.buzzer.play(Tone(value)) if value else self.buzzer.stop()
            else:
                self.buzzer.on() if value else self.buzzer.off()

    def factory_name(self) -> str:
        devices = [*self.seats.values(), *self.rgb.values(), self.buzzer]
        for d in devices:
            if d is not None:
                return type(d.pin_factory).__name__
        return type(self.factory).__name__ if self.factory is not None else "none"

    def close(self) -> None:
        for d in [*self.seats.values(), *self.rgb.values(), self.buzzer]:
            if d is not None:
                try:
                    d.close()
                except Exception:  # closing must finish
                    log.exception("closing %r failed", d)


class Signals:
    """LEDs and buzzer that follow the referee's events on ``bus``.

    ``pinmap`` says where things are wired (default :class:`PinMap`), ``pin_factory`` is a
    gpiozero pin factory (None: gpiozero's default, i.e. the real pins; tests pass a
    ``MockFactory``). ``seats`` and ``game`` describe a match already running (a resumed one);
    ``state`` its replay state, ``seating`` where its seats sit (seat -> side; a new match's
    comes with its ``match-started``). ``seat_overrides`` (seat -> side) pins seats to LEDs by
    hand.
    ``clock`` is a :class:`~hardware.timeline.RealClock` (default) or a
    :class:`~hardware.timeline.ManualClock`.

    Raises :class:`~hardware.errors.PinUnavailable` when a pin cannot be had.
    """

    def __init__(self, bus=None, pinmap: PinMap | None = None, pin_factory=None, *,
                 seats: Iterable[str] | None = None, game: str | None = None,
                 state: dict[str, Any] | None = None, seating: dict[str, str] | None = None,
                 seat_overrides: dict[str, str] | None = None, clock=None):
        self.pinmap = pinmap or PinMap()
        self._clock = clock or RealClock()
        self._devices = _Devices(self.pinmap, pin_factory)
        self._confirm_pulse = pulse("confirm", AMBER, pwm=self._devices.rgb_pwm.get("status", True))
        self._cond = threading.Condition(threading.RLock())
        self._inbox: deque = deque()
        self._closed = False
        self._waiting = False
        self._channels = self._devices.channels()
        self._outputs: dict[str, Any] = {ch: None for ch in self._channels}
        self._labels: dict[str, str | None] = {ch: None for ch in self._channels}
        self._tracks: dict[str, deque[tuple[float, Track]]] = {ch: deque() for ch in self._channels}
        # What the table is doing (the worker's model; only the worker thread changes it).
        self._overrides = dict(seat_overrides or {})
        self._game = game
        self._seats = list(seats or [])
        self._seating = dict(seating or {})
        self._sides = seat_sides(self._seats, game, self._overrides, self._seating)
        self._turn: str | None = None
        self._winners: list[str] = []
        self._win_anchor = 0.0
        self._side: str | None = None
        self._confirming = False
        self._confirm_anchor = 0.0
        self._camera = "ok"  # ok, lost or ended: the last ``camera`` status
        self._camera_cause: str | None = None  # missing, busy, hung or error while lost
        self._camera_anchor = 0.0
        self._last_action_ok: bool | None = None
        self._won_this_action = False
        self._applied_at = self._clock.now()
        if state is not None:
            self._inbox.append(("state", {"state": state}))
        self._thread = threading.Thread(target=self._run, name="signals", daemon=True)
        self._thread.start()
        handled = {name[4:].replace("_", "-") for name in dir(self) if name.startswith("_on_")}
        self._unsubscribe = bus.subscribe(self._receive, types=handled) if bus is not None else (lambda: None)

    @classmethod
    def for_host(cls, host, pinmap: PinMap | None = None, pin_factory=None, **kwargs) -> "Signals":
        """Signals following ``host``'s bus and current table; ``host.signals`` shows them."""
        table = host.table
        if table is not None:
            kwargs.setdefault("seats", table.seats)
            kwargs.setdefault("game", table.game.name)
            kwargs.setdefault("seating", table.seating.to_json())
            kwargs.setdefault("state", table.state_json())
        signals = cls(host.bus, pinmap, pin_factory, **kwargs)
        host.show_signals(signals.snapshot)
        return signals

    # --- the publisher's side: returns at once ---------------------------------------------

    def _receive(self, message) -> None:
        with self._cond:
            self._inbox.append((message.type, dict(message.data)))
            self._cond.notify_all()

    def publish(self, type: str, **data: Any) -> None:
        """Signal an event directly, without a bus (the demo, the buttons' own feedback)."""
        with self._cond:
            self._inbox.append((type, data))
            self._cond.notify_all()

    # --- what is shown ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready: which LEDs are lit, in what pattern, and what the buzzer plays."""
        with self._cond:
            winner_sides = {self._sides.get(s) for s in self._winners}
            turn_side = self._sides.get(self._turn) if self._turn else None
            leds = {}
            for side in self._devices.seats:
                pattern = ("blink" if side in winner_sides else "off" if self._winners
                           else "on" if side == turn_side else "off")
                leds[side] = {"on": bool(self._outputs[f"seat:{side}"]), "pattern": pattern,
                              "seats": [s for s, sd in self._sides.items() if sd == side]}
            status_rgb = self._outputs["status"] or OFF
            side_rgb = self._outputs["side"] or OFF
            mode = (f"camera-{self._camera}" if self._camera != "ok"
                    else "confirm" if self._confirming else "ok")
            return {
                "seats": leds,
                "turn": self._turn,
                "winners": list(self._winners),
                "side": {"side": self._side, "rgb": list(side_rgb), "color": colour_name(side_rgb)}
                if "side" in self._devices.rgb else None,
                "status": {"mode": mode, "rgb": list(status_rgb), "color": colour_name(status_rgb),
                           "showing": self._labels["status"], "camera": self._camera_cause}
                if "status" in self._devices.rgb else None,
                "buzzer": {"kind": self._devices.buzzer_kind, "playing": self._labels["buzzer"],
                           "note": self._outputs["buzzer"]},
                "pins": self._devices.factory_name(),
            }

    def describe(self) -> str:
        """One line for a terminal: ``N:● E:○ S:○ W:○ side:light status:green buzzer:tick``.

        ● lit, ◐ blinking (a winner), ○ off; a side with no LED wired is left out.
        """
        snap = self.snapshot()
        parts = []
        for side in SIDES:
            led = snap["seats"].get(side)
            if led is not None:
                glyph = "◐" if led["pattern"] == "blink" else "●" if led["on"] else "○"
                parts.append(f"{side[0].upper()}:{glyph}")
        side = snap["side"]
        parts.append(f"side:{(side and side['side']) or '-'}")
        status = snap["status"]
        if status is not None:
            extra = status["mode"] if status["mode"] != "ok" else status["showing"]
            parts.append(f"status:{status['color']}" + (f"/{extra}" if extra else ""))
        parts.append(f"buzzer:{snap['buzzer']['playing'] or '-'}")
        return " ".join(parts)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every event received so far has been shown and its patterns played out.

        With a real clock this waits (at most ``timeout`` seconds of real time) for the last
        flash or tune to end. With a :class:`ManualClock` it moves the clock to that end, so a
        test sees every step. Endless patterns (a pulse, a blink) do not hold it up. Returns
        False on timeout.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            if not self._cond.wait_for(self._settled, max(0.0, deadline - time.monotonic())):
                return False
            end = self._tracks_end()
            if end is not None and self._clock.manual:
                self._clock.advance_to(end)
            return self._cond.wait_for(
                lambda: self._settled() and (self._tracks_end() or 0.0) <= self._applied_at + EPS,
                max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        """Stop following the bus, turn everything off and release the pins."""
        self._unsubscribe()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        self._devices.close()

    def __enter__(self) -> "Signals":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the worker -------------------------------------------------------------------------

    def _settled(self) -> bool:
        return (not self._inbox and self._waiting
                and (not self._clock.manual or self._applied_at >= self._clock.now() - EPS))

    def _tracks_end(self) -> float | None:
        ends = [start + track.duration for q in self._tracks.values() for start, track in q]
        return max(ends) if ends else None

    def _run(self) -> None:
        with self._cond:
            self._apply(self._applied_at)
            while not self._closed:
                now = self._clock.now()
                try:
                    self._catch_up(now)
                    while self._inbox:
                        type_, data = self._inbox.popleft()
                        try:
                            getattr(self, "_on_" + type_.replace("-", "_"))(data, now)
                        except Exception:  # a bad event must not stop the lights
                            log.exception("signals: cannot show %s %r", type_, data)
                    self._apply(now)
                except Exception:  # the worker must outlive any bug
                    log.exception("signals: worker pass failed; dropping queued patterns")
                    for queue in self._tracks.values():
                        queue.clear()
                self._applied_at = now
                self._waiting = True
                self._cond.notify_all()
                self._clock.wait(self._cond, self._next_change(now))
                self._waiting = False
            for channel in self._channels:  # all off
                self._tracks[channel].clear()
                self._write(channel, OFF if channel in ("side", "status") else None, None)

    def _catch_up(self, now: float) -> None:
        """Apply every step due since the last pass, in order (exact histories)."""
        t = self._applied_at
        if not self._clock.manual and now - t > _CATCH_UP_LIMIT:
            t = now - _CATCH_UP_LIMIT
        while (nxt := self._next_change(t)) is not None and nxt <= now + EPS:
            self._apply(nxt)
            t = nxt
        self._applied_at = max(self._applied_at, t)

    def _next_change(self, t: float) -> float | None:
        nexts = [n for ch in self._channels if (n := self._value(ch, t)[1]) is not None]
        return min(nexts) if nexts else None

    def _apply(self, t: float) -> None:
        for channel in self._channels:
            value, _, label = self._value(channel, t)
            self._write(channel, value, label)

    def _write(self, channel: str, value: Any, label: str | None) -> None:
        self._labels[channel] = label
        if value == self._outputs[channel]:
            return
        self._outputs[channel] = value
        try:
            self._devices.write(channel, value)
        except Exception:  # a failing LED must not stop the others
            log.exception("signals: cannot set %s to %r", channel, value)

    def _value(self, channel: str, t: float) -> tuple[Any, float | None, str | None]:
        """(value, time of the next change, label) of ``channel`` at ``t``."""
        queue = self._tracks[channel]
        while queue and queue[0][0] + queue[0][1].duration <= t + EPS:
            queue.popleft()
        if queue and queue[0][0] <= t + EPS:
            start, track = queue[0]
            value, end = track.value_at(t - start)
            return value, start + end, track.name
        value, nxt, label = self._base(channel, t)
        if queue:
            nxt = queue[0][0] if nxt is None else min(nxt, queue[0][0])
        return value, nxt, label

    def _base(self, channel: str, t: float) -> tuple[Any, float | None, str | None]:
        """What an output shows when no pattern plays on it."""
        if channel.startswith("seat:"):
            side = channel[5:]
            if self._winners:
                if side in {self._sides.get(s) for s in self._winners}:
                    return self._loop(WIN_BLINK, self._win_anchor, t)
                return False, None, None
            return (self._turn is not None and self._sides.get(self._turn) == side), None, None
        if channel == "side":
            colour = {"light": LIGHT_SIDE, "dark": DARK_SIDE}.get(self._side or "", OFF)
            return colour, None, None
        if channel == "status":
            if self._camera != "ok":
                pattern = (CAMERA_ENDED if self._camera == "ended" else CAMERA_MISSING
                           if self._camera_cause == "missing" else CAMERA_BUSY
                           if self._camera_cause == "busy" else CAMERA_LOST)
                return self._loop(pattern, self._camera_anchor, t)
            if self._confirming:
                return self._loop(self._confirm_pulse, self._confirm_anchor, t)
            # Without PWM a "dim" green would be full green and hide the green flash: stay dark.
            return (DIM_GREEN if self._devices.rgb_pwm.get("status") else OFF), None, None
        return None, None, None

    @staticmethod
    def _loop(loop: Loop, anchor: float, t: float) -> tuple[Any, float, str]:
        value, end = loop.value_at(t - anchor)
        return value, anchor + end, loop.name

    def _play(self, channel: str, track: Track, now: float) -> None:
        """Queue ``track`` on ``channel``: it starts when what plays there now has ended."""
        queue = self._tracks[channel]
        start = max(now, queue[-1][0] + queue[-1][1].duration + _GAP) if queue else now
        queue.append((start, track))
        while len(queue) > _QUEUE_LIMIT:  # a flood: drop the oldest that has not started
            del queue[1]
            start = queue[0][0] + queue[0][1].duration + _GAP
            for i in range(1, len(queue)):
                queue[i] = (max(now, start), queue[i][1])
                start = queue[i][0] + queue[i][1].duration + _GAP

    def _signal(self, now: float, tune_name: str | None, status: Track | None = None) -> None:
        if tune_name is not None:
            self._play("buzzer", tune(tune_name), now)
        if status is not None:
            self._play("status", status, now)

    # --- events -------------------------------------------------------------------------------

    def _set_seats(self, seats: Iterable[str], game: str | None,
                   seating: dict[str, str] | None = None) -> None:
        self._seats = list(seats)
        self._game = game or self._game
        if seating is not None:
            self._seating = dict(seating)
        self._sides = seat_sides(self._seats, self._game, self._overrides, self._seating)

    def _set_winners(self, seats: Iterable[str], now: float) -> None:
        self._winners = list(seats or [])
        self._win_anchor = now

    def _on_match_started(self, data: dict, now: float) -> None:
        seating = data.get("seating")
        self._set_seats(data.get("seats") or self._seats, data.get("game"),
                        seating if isinstance(seating, dict) else {})
        self._winners, self._confirming = [], False
        if self._game != "flip":
            self._side = None
        self._signal(now, "start")

    def _on_match_ended(self, data: dict, now: float) -> None:
        self._turn, self._winners, self._side, self._confirming = None, [], None, False

    def _on_table_ready(self, data: dict, now: float) -> None:
        state = data.get("state") or {}
        self._game = data.get("game") or self._game
        if not self._seats and state.get("hands"):
            self._set_seats(state["hands"], self._game)
        self._winners = []
        self._on_state({"state": state}, now)

    def _on_state(self, data: dict, now: float) -> None:
        state = data.get("state") or {}
        if not self._seats and isinstance(state.get("hands"), dict):
            self._set_seats(state["hands"], self._game)
        if state.get("side") in ("light", "dark"):
            self._side = state["side"]
        if state.get("over"):
            self._turn = None
            if not self._winners and state.get("winners"):
                self._set_winners(state["winners"], now)
        else:
            self._turn = state.get("turn", self._turn)
            self._winners = []

    def _on_turn(self, data: dict, now: float) -> None:
        seat = data.get("seat")
        if seat is not None and seat not in self._sides:
            # Seats never announced (signals started mid-match without them): take them in the
            # order they first play, which is the order they sit in.
            self._set_seats([*self._seats, seat], self._game)
        self._turn = seat

    def _on_timer(self, data: dict, now: float) -> None:
        kind = data.get("kind")
        if kind == "warning":
            self._signal(now, "warning", WARNING_FLASH)
        elif kind == "tick":
            self._signal(now, "tick")
        elif kind == "expired":
            self._signal(now, "time-up", TIME_UP_FLASH)

    def _on_action(self, data: dict, now: float) -> None:
        self._last_action_ok = bool(data.get("ok"))
        self._won_this_action = False
        do = (data.get("action") or {}).get("do")
        if data.get("ok") and do != "timeout":  # a timeout already sounded its long tone
            self._signal(now, "click", LEGAL_FLASH)

    def _on_refused(self, data: dict, now: float) -> None:
        self._signal(now, "buzz", ILLEGAL_FLASH)

    def _on_penalty(self, data: dict, now: float) -> None:
        if self._last_action_ok is not False:  # else the refusal that follows signals it
            self._signal(now, "buzz", ILLEGAL_FLASH)

    def _on_flipped(self, data: dict, now: float) -> None:
        side = data.get("side")
        if side in ("light", "dark"):
            self._side = side
            self._signal(now, f"flip-{side}")

    def _on_won(self, data: dict, now: float) -> None:
        self._set_winners(data.get("seats") or [], now)
        self._won_this_action = True
        self._signal(now, "fanfare")

    def _on_round_over(self, data: dict, now: float) -> None:
        if not self._won_this_action:
            self._set_winners(data.get("winners") or [], now)
            self._won_this_action = True
            self._signal(now, "fanfare")

    _on_game_over = _on_round_over

    def _on_match_over(self, data: dict, now: float) -> None:
        if data.get("champions"):
            self._set_winners(data["champions"], now)
        self._signal(now, "champion")

    def _on_confirm_needed(self, data: dict, now: float) -> None:
        if not self._confirming:
            self._confirming, self._confirm_anchor = True, now
            self._signal(now, "question")

    def _on_confirmed(self, data: dict, now: float) -> None:
        self._confirming = False

    def _on_camera(self, data: dict, now: float) -> None:
        status = data.get("status") if data.get("status") in ("lost", "ended") else "ok"
        cause = data.get("cause") if status == "lost" else None
        if status == self._camera:
            if cause != self._camera_cause:  # still lost, for another reason: its own pattern
                self._camera_cause, self._camera_anchor = cause, now
            return
        self._camera_cause = cause
        was, self._camera, self._camera_anchor = self._camera, status, now
        self._signal(now, "camera-back" if status == "ok" and was == "lost"
                     else None if status == "ok" else "camera-lost")

    def _on_uno(self, data: dict, now: float) -> None:
        self._signal(now, "uno")
