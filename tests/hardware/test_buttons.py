"""Table buttons: each press acts for the right seat, with debouncing; mock pins only."""

from __future__ import annotations

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory

from companion.bus import EventBus
from hardware import PinMap, PinUnavailable
from hardware.buttons import TableButtons

UNO, DRAW, CONFIRM = 23, 24, 25


class Rig:
    def __init__(self, game="flip", **kwargs):
        self.bus = EventBus()
        self.factory = MockFactory()
        self.now = 0.0
        self.actions = []
        self.confirms = []
        self.buttons = TableButtons(self.bus, PinMap(), self.actions.append,
                                    confirm=lambda: self.confirms.append(self.now),
                                    pin_factory=self.factory, clock=lambda: self.now, **kwargs)
        self.bus.publish("match-started", game=game, seats=["ann", "ben", "cai"])

    def press(self, pin):
        """Press and release (once what was published reached the buttons), then let time
        pass beyond the debounce."""
        self.bus.join()
        self.factory.pin(pin).drive_low()
        self.factory.pin(pin).drive_high()
        self.now += 1.0


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.buttons.close()


def test_draw_then_pass_for_the_seat_whose_turn_it_is(rig):
    rig.bus.publish("turn", seat="ann")
    rig.press(DRAW)
    # The table accepted the draw: the turn stays with ann, the next press passes.
    rig.bus.publish("action", action={"by": "ann", "do": "draw", "count": 1}, ok=True, error=None)
    rig.bus.publish("state", state={"turn": "ann", "over": False})
    rig.press(DRAW)
    rig.bus.publish("action", action={"by": "ann", "do": "pass"}, ok=True, error=None)
    rig.bus.publish("turn", seat="ben")
    rig.bus.publish("state", state={"turn": "ben", "over": False})
    rig.press(DRAW)
    assert rig.actions == [{"by": "ann", "do": "draw", "count": 1}, {"by": "ann", "do": "pass"},
                           {"by": "ben", "do": "draw", "count": 1}]


def test_a_refused_draw_does_not_turn_the_button_into_pass(rig):
    rig.bus.publish("turn", seat="ann")
    rig.bus.publish("action", action={"by": "ann", "do": "draw"}, ok=False, error="not-your-turn")
    rig.press(DRAW)
    assert rig.actions == [{"by": "ann", "do": "draw", "count": 1}]


def test_playing_the_drawn_card_resets_the_pass(rig):
    rig.bus.publish("turn", seat="ann")
    rig.bus.publish("action", action={"by": "ann", "do": "draw"}, ok=True, error=None)
    rig.bus.publish("action", action={"by": "ann", "do": "play", "card": "red-3"}, ok=True, error=None)
    rig.press(DRAW)  # a skip came back to ann, say: a new draw
    assert rig.actions == [{"by": "ann", "do": "draw", "count": 1}]


def test_uno_is_for_the_open_window_else_for_the_turn(rig):
    rig.bus.publish("turn", seat="ann")
    rig.press(UNO)
    rig.bus.publish("uno-window", seat="ann", open=True)
    rig.bus.publish("turn", seat="ben")
    rig.press(UNO)  # ann just went down to one card: the call is hers
    rig.bus.publish("uno-window", seat="ann", open=False)
    rig.press(UNO)
    assert rig.actions == [{"by": "ann", "do": "uno"}, {"by": "ann", "do": "uno"},
                           {"by": "ben", "do": "uno"}]


def test_confirm_calls_back(rig):
    rig.press(CONFIRM)
    assert rig.confirms == [0.0] and rig.actions == []


def test_bounces_and_double_presses_count_once(rig):
    rig.bus.publish("turn", seat="cai")
    rig.bus.join()
    pin = rig.factory.pin(UNO)
    for _ in range(5):  # contact bounce: five edges within the debounce time
        pin.drive_low()
        pin.drive_high()
        rig.now += 0.01
    rig.now += 0.3
    pin.drive_low()
    assert rig.actions == [{"by": "cai", "do": "uno"}] * 2


def test_nothing_to_do_between_matches_and_in_the_grid_game():
    r = Rig(game="grid")
    try:
        r.press(DRAW)  # no turn yet
        r.bus.publish("turn", seat="north")
        r.press(DRAW)  # the grid game has no draw or pass
        r.press(UNO)
        assert r.actions == []
        assert r.buttons.press("draw") is None
        with pytest.raises(ValueError, match="no button 'pass'"):
            r.buttons.press("pass")
    finally:
        r.buttons.close()


def test_a_failing_act_does_not_break_the_button(rig):
    def broken(action):
        raise RuntimeError("table on fire")
    rig.buttons._act = broken
    rig.bus.publish("turn", seat="ann")
    rig.press(DRAW)
    rig.buttons._act = rig.actions.append
    rig.press(DRAW)
    assert rig.actions == [{"by": "ann", "do": "draw", "count": 1}]


def test_a_pin_in_use_names_the_button():
    factory = MockFactory()
    squatter = LED(DRAW, pin_factory=factory)
    with pytest.raises(PinUnavailable, match=r"GPIO24 \(draw button\)"):
        TableButtons(EventBus(), PinMap(), pin_factory=factory)
    squatter.close()
    TableButtons(EventBus(), PinMap(), pin_factory=factory).close()  # nothing was left held


def test_buttons_off_or_unwired_make_no_devices():
    factory = MockFactory()
    off = TableButtons(EventBus(), PinMap(buttons=False), pin_factory=factory)
    some = TableButtons(EventBus(), PinMap(button_uno=None, button_confirm=None), pin_factory=factory)
    assert off.buttons == {} and list(some.buttons) == ["draw"]
    off.close()
    some.close()


def test_timer_only_the_draw_pass_button_ends_the_turn_and_uno_does_nothing():
    r = Rig(game="timer")
    try:
        r.bus.publish("turn", seat="ben")
        r.press(DRAW)
        r.press(UNO)
        assert r.actions == [{"by": "ben", "do": "pass"}]
    finally:
        r.buttons.close()


def test_scoreboard_only_the_buttons_do_nothing():
    r = Rig(game="scoreboard")
    try:
        r.bus.publish("turn", seat="ben")
        r.press(DRAW)
        r.press(UNO)
        assert r.actions == []
    finally:
        r.buttons.close()
