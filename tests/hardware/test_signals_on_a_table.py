"""Signals and buttons on a real Host and Table (the rule engines), mock pins, manual clock."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from companion.host import Host
from hardware import PinMap
from hardware.buttons import TableButtons
from hardware.signals import Signals
from hardware.timeline import ManualClock
from tests.support.pins import BUZZER, NORTH, SIDE_G, SOUTH, ST_G, ST_R, WEST, RecordingPWMPin

DRAW = 24


def flip(seats=("ann", "ben", "cai")):
    return {"setup": {"game": "flip", "seats": list(seats), "dealer": seats[-1], "start": "red-5",
                      "options": {"turn_seconds": 0}}}


@pytest.fixture
def table():
    host = Host(mode="timer")
    factory = MockFactory(pin_class=RecordingPWMPin)
    signals = Signals.for_host(host, PinMap(), pin_factory=factory, clock=ManualClock())
    buttons = TableButtons.for_host(host, PinMap(), pin_factory=factory, clock=lambda: 0.0,
                                    debounce=0)
    yield host, factory, signals
    buttons.close()
    signals.close()


def states(factory, pin):
    return [s.state for s in factory.pin(pin).states]


def clear(factory):
    for pin in factory.pins.values():
        pin.clear_states()
        pin.frequencies.clear()


def test_a_flip_round_on_the_lights(table):
    host, factory, signals = table
    table_ = host.start_match(flip())
    host.bus.join()
    assert signals.flush()
    assert states(factory, SOUTH) == [0, 1]  # ann (south) starts, left of the dealer cai
    assert states(factory, SIDE_G)[-1] == 1  # the light side: white
    clear(factory)

    assert table_.act({"by": "ann", "do": "play", "card": "red-7"}).ok
    host.bus.join()
    assert signals.flush()
    assert states(factory, ST_G) == [0.15, 1, 0.15]  # a legal play: green flash ...
    assert factory.pin(BUZZER).frequencies == [Tone("E6").frequency, None]  # ... and a click
    assert states(factory, SOUTH) == [1, 0] and states(factory, WEST) == [0, 1]
    clear(factory)

    answer = table_.act({"by": "ben", "do": "play", "card": "blue-3"})  # wrong card: penalty
    assert not answer.ok and answer.error == "not-matching"
    host.bus.join()
    assert signals.flush()
    assert states(factory, ST_R) == [0, 1, 0]  # one red flash, one low buzz
    assert factory.pin(BUZZER).frequencies == [Tone("A3").frequency, None]
    assert states(factory, WEST) == [1, 0] and states(factory, NORTH) == [0, 1]
    clear(factory)

    assert table_.act({"by": "cai", "do": "play", "card": "red-flip"}).ok
    host.bus.join()
    assert signals.flush()
    assert states(factory, SIDE_G) == [1, 0]  # dark side: purple
    assert factory.pin(BUZZER).frequencies == [  # the click, then the falling flip tune
        Tone(n).frequency if n else None for n in ("E6", None, "E6", "C6", "A5", "E5", None)]
    snap = host.snapshot()["signals"]
    assert snap["side"]["side"] == "dark" and snap["side"]["color"] == "purple"
    assert snap["seats"]["north"]["pattern"] == "on"  # cai reveals the new top card


def test_the_draw_button_draws_then_passes_for_the_seat_on_turn(table):
    host, factory, signals = table
    table_ = host.start_match(flip())
    host.bus.join()  # the buttons follow the table through the bus
    pin = factory.pin(DRAW)
    pin.drive_low()
    pin.drive_high()
    state = table_.state_json()
    assert state["hands"]["ann"] == 8 and state["turn"] == "ann"
    host.bus.join()
    pin.drive_low()
    pin.drive_high()
    state = table_.state_json()
    assert state["turn"] == "ben" and state["hands"]["ann"] == 8
    assert [a["do"] for a in table_.actions_taken()] == ["draw", "pass"]
    host.bus.join()
    assert signals.flush()


def test_signals_pick_up_a_resumed_match():
    host = Host(mode="timer")
    host.start_match(flip(("ann", "ben")))
    host.require_table().act({"by": "ann", "do": "play", "card": "red-7"})
    factory = MockFactory(pin_class=MockPWMPin)
    signals = Signals.for_host(host, PinMap(), pin_factory=factory, clock=ManualClock())
    try:
        assert signals.flush()
        assert states(factory, NORTH) == [0, 1]  # ben's (facing ann) turn, known before any event
        assert signals.describe() == "N:● E:○ S:○ W:○ side:light status:green buzzer:-"
    finally:
        signals.close()
