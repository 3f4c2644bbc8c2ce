"""Signals: every referee event has its light and sound, checked as full pin histories.

Mock pins only (gpiozero's MockFactory / MockPWMPin), and a ManualClock: time moves only when
a test says so, so every history is exact and nothing here waits on the wall clock.
"""

from __future__ import annotations

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.bus import EventBus
from hardware import PinMap, PinUnavailable
from hardware.patterns import CAMERA_LOST, WIN_BLINK
from hardware.signals import Signals, seat_sides
from hardware.timeline import ManualClock, RealClock
from tests.support.pins import (BUZZER, DIM, EAST, NORTH, SIDE_B, SIDE_G, SIDE_R, SOUTH, ST_B, ST_G, ST_R,
                                WEST, SignalsRig as Rig, hz, notes_of)

# --- seat LEDs -------------------------------------------------------------------------------

def test_turn_lights_the_seat_led_and_moves_with_the_turn(rig):
    rig.send("turn", seat="ann")
    rig.send("turn", seat="ben")
    rig.send("turn", seat="cai")
    # ann sits south, ben west, cai north (play order round the table from the south side)
    assert rig.states(SOUTH) == [0, 1, 0]
    assert rig.states(WEST) == [0, 1, 0]
    assert rig.states(NORTH) == [0, 1]
    assert rig.states(EAST) == [0]
    assert rig.freqs() == []  # a turn is silent


def test_seat_sides_rulings():
    assert seat_sides(["north", "west"], "grid") == {"north": "north", "west": "west"}
    assert seat_sides(["ann", "ben", "cai", "dee"]) == {
        "ann": "south", "ben": "west", "cai": "north", "dee": "east"}
    # More than four players: neighbours share the LED of their side.
    eight = seat_sides([f"p{i}" for i in range(8)])
    assert list(eight.values()) == ["south", "south", "west", "west", "north", "north", "east", "east"]
    # the set-up's seating, then a by-hand override
    assert seat_sides(["ann", "ben"], seating={"ann": "east", "ben": "west"}) == {
        "ann": "east", "ben": "west"}
    assert seat_sides(["ann", "ben"], overrides={"ben": "south"}) == {"ann": "south", "ben": "south"}
    with pytest.raises(ValueError, match="not a side"):
        seat_sides(["ann"], overrides={"ann": "up"})


def test_six_players_share_the_leds_of_their_side():
    r = Rig(seats=[f"p{i}" for i in range(6)], game="flip")
    try:
        r.send("turn", seat="p1")  # p0 and p1 sit south
        r.send("turn", seat="p2")
        r.send("turn", seat="p5")
        assert r.states(SOUTH) == [0, 1, 0]
        assert r.states(WEST) == [0, 1, 0]
        assert r.states(NORTH) == [0, 1]
        assert r.signals.snapshot()["seats"]["south"]["seats"] == ["p0", "p1"]
    finally:
        r.signals.close()


# --- plays -----------------------------------------------------------------------------------

def test_legal_play_is_a_short_green_flash_and_a_click(rig):
    rig.send("action", action={"by": "ann", "do": "play", "card": "red-7"}, ok=True, error=None)
    assert rig.states(ST_G) == [DIM, 1, DIM]
    assert rig.states(ST_R) == [0] and rig.states(ST_B) == [0]
    assert rig.states(BUZZER) == [0, 0.5, 0]
    assert rig.freqs() == notes_of("click")
    assert rig.clock.now() == pytest.approx(0.15)  # the flash is the longer of the two


def test_refused_play_is_red_and_a_low_buzz(rig):
    rig.send("refused", code="not-your-turn", message="...", seat="ben", source="phone")
    assert rig.states(ST_R) == [0, 1, 0]
    assert rig.states(ST_G) == [DIM, 0, DIM]
    assert rig.freqs() == [hz("A3"), None]
    assert rig.clock.now() == pytest.approx(0.6)


def test_penalty_signals_once_whether_or_not_the_action_was_refused(rig):
    # A wrong card: the refused action brings a penalty; one red flash, one buzz.
    rig.send("action", action={"by": "ben", "do": "play", "card": "blue-3"}, ok=False,
             error="not-matching")
    rig.send("illegal", seat="ben", code="not-matching", message="...")
    rig.send("penalty", seat="ben", count=2, reason="not-matching")
    rig.send("refused", code="not-matching", message="...", seat="ben", source="phone")
    assert rig.states(ST_R) == [0, 1, 0]
    assert rig.freqs() == [hz("A3"), None]
    rig.reset()
    # A penalty on an accepted action (a catch): the click, then the red flash and buzz.
    rig.send("action", action={"by": "cai", "do": "catch", "target": "ann"}, ok=True, error=None)
    rig.send("penalty", seat="ann", count=2, reason="uno")
    assert rig.states(ST_G) == [DIM, 1, DIM, 0, DIM]
    assert rig.states(ST_R) == [0, 1, 0]
    assert rig.freqs() == notes_of("click") + [hz("A3"), None]


def test_a_timeout_action_does_not_click(rig):
    rig.send("action", action={"by": "ann", "do": "timeout"}, ok=True, error=None)
    assert rig.states(ST_G) == [DIM] and rig.freqs() == []


# --- the turn timer --------------------------------------------------------------------------

def test_timer_warning_ticks_and_long_tone(rig):
    rig.send("timer", kind="warning", seat="ann", left=10)
    assert rig.freqs() == [hz("A5"), None, hz("A5"), None]
    assert rig.states(BUZZER) == [0, 0.5, 0, 0.5, 0]
    assert rig.states(ST_R) == [0, 1, 0]          # amber = full red ...
    assert rig.states(ST_G) == [DIM, 0.5, DIM]    # ... and half green
    rig.reset()
    for left in (5, 4, 3, 2, 1):
        rig.advance(1.0)
        rig.send("timer", kind="tick", seat="ann", left=left)
    assert rig.freqs() == [hz("A5"), None] * 5
    assert rig.states(BUZZER) == [0] + [0.5, 0] * 5
    assert rig.states(ST_R) == [0]
    rig.reset()
    start = rig.clock.now()
    rig.send("timer", kind="expired", seat="ann", left=0)
    assert rig.freqs() == [hz("A4"), None]
    assert rig.states(ST_R) == [0, 1, 0]
    assert rig.clock.now() - start == pytest.approx(1.0)
    rig.reset()
    rig.send("timer", kind="paused", seat="ann", left=7)
    rig.send("timer", kind="resumed", seat="ann", left=7)
    assert rig.freqs() == [] and rig.states(ST_R) == [0]


# --- confirmation, camera --------------------------------------------------------------------

def test_confirmation_pulses_amber_until_confirmed(rig):
    rig.send("confirm-needed", question="red-7 on (1, 2)?", choices=["yes", "no"])
    assert rig.freqs() == [hz("A5"), None, hz("E6"), None]
    assert rig.signals.snapshot()["status"]["mode"] == "confirm"
    rig.advance(1.0 - rig.clock.now())  # exactly one breath (1 s) since the question
    levels = [round(0.1 * i, 1) for i in range(1, 11)] + [round(0.1 * i, 1) for i in range(9, 0, -1)]
    assert rig.states(ST_R) == [0] + levels + [0, levels[0]]  # and the next breath begins
    assert rig.states(ST_G) == [DIM] + [round(v / 2, 3) for v in levels] + [0, 0.05]
    rig.reset()
    rig.send("confirmed")
    assert rig.states(ST_R) == [0.1, 0] and rig.states(ST_G) == [0.05, DIM]
    assert rig.signals.snapshot()["status"]["mode"] == "ok"


def test_camera_lost_double_blinks_blue_until_back(rig):
    rig.send("camera", status="lost")
    assert rig.freqs() == notes_of("camera-lost")
    rig.reset()
    rig.advance(3.0 - rig.clock.now())  # two periods of 1.5 s from the loss
    # The second period's double blink, and the third one begins at exactly 3 s.
    assert rig.states(ST_B) == [0, 1, 0, 1, 0, 1]
    assert rig.states(ST_G) == [0]  # the dim green stays off while the camera is lost
    rig.send("camera", status="lost")  # again: nothing new
    assert rig.freqs() == []
    rig.send("camera", status="ok")
    assert rig.freqs() == notes_of("camera-back")
    assert rig.states(ST_G)[-1] == DIM
    assert rig.signals.snapshot()["status"]["mode"] == "ok"


def test_camera_lost_wins_over_a_pending_confirmation(rig):
    rig.send("confirm-needed", question="?", choices=[])
    rig.send("camera", status="lost")
    assert rig.signals.snapshot()["status"]["mode"] == "camera-lost"
    rig.send("camera", status="ok")
    assert rig.signals.snapshot()["status"]["mode"] == "confirm"



def test_a_video_that_ends_leaves_the_status_led_blue_and_says_so(rig):
    rig.send("camera", status="ended", source="opencv", reason="the video ended")
    assert rig.freqs() == notes_of("camera-lost")
    rig.reset()
    rig.advance(3.0 - rig.clock.now())
    snap = rig.signals.snapshot()["status"]
    assert snap["mode"] == "camera-ended" and snap["color"] == "blue"
    rig.send("camera", status="ended")  # again: nothing new
    assert rig.freqs() == []

# --- flip, wins ------------------------------------------------------------------------------

def test_flip_changes_the_side_led_with_a_falling_or_rising_tune(rig):
    rig.send("state", state={"turn": "ann", "side": "light", "over": False})
    assert (rig.states(SIDE_R), rig.states(SIDE_G), rig.states(SIDE_B)) == ([0, 1], [0, 1], [0, 1])
    rig.reset()
    rig.send("flipped", side="dark")
    assert (rig.states(SIDE_R), rig.states(SIDE_G), rig.states(SIDE_B)) == ([1, 0.5], [1, 0], [1])
    assert rig.freqs() == notes_of("flip-dark")
    assert rig.freqs()[0] > rig.freqs()[3]
    rig.reset()
    rig.send("flipped", side="light")
    assert (rig.states(SIDE_R), rig.states(SIDE_G), rig.states(SIDE_B)) == ([0.5, 1], [0, 1], [1])
    assert rig.freqs() == notes_of("flip-light")
    assert rig.freqs()[0] < rig.freqs()[3]


def test_a_win_blinks_the_winners_led_with_a_fanfare_until_the_next_round(rig):
    rig.send("turn", seat="ann")
    rig.reset()
    rig.send("action", action={"by": "ann", "do": "play", "card": "red-2"}, ok=True, error=None)
    rig.send("won", seats=["ann"], points=120)
    rig.send("round-over", winners=["ann"], scores={"ann": 120})  # the same win: one fanfare
    rig.send("state", state={"turn": "ben", "over": True, "winners": ["ann"]})
    assert rig.freqs() == notes_of("click") + notes_of("fanfare")
    rig.reset()
    rig.advance(1.0)
    # The blink is anchored at the win: find where we are in it, then expect whole blinks.
    ups = rig.states(SOUTH)  # ann's
    assert set(ups) <= {0, 1} and len(ups) == 1 + round(1.0 / 0.25)
    assert all(a != b for a, b in zip(ups, ups[1:]))
    assert rig.states(WEST) == [0]  # the next seat's LED stays off while the win shows
    assert rig.signals.snapshot()["seats"]["south"]["pattern"] == "blink"
    assert "S:◐" in rig.signals.describe()
    rig.send("state", state={"turn": "ben", "over": False, "winners": []})
    assert rig.states(WEST)[-1] == 1 and rig.states(SOUTH)[-1] == 0
    assert WIN_BLINK.duration == 0.5


def test_a_shared_win_blinks_both_and_the_match_plays_the_champion_tune():
    r = Rig(seats=["north", "east", "south"], game="grid")
    try:
        r.send("won", seats=["north", "east"], points=1)
        r.send("game-over", winners=["north", "east"], scores={})
        r.send("match-over", champions=["north"])
        assert r.freqs() == notes_of("fanfare") + notes_of("champion")
        r.reset()
        r.advance(0.5)
        assert len(r.states(NORTH)) == 3 and r.states(EAST) == [r.states(EAST)[0]]
        assert r.signals.snapshot()["winners"] == ["north"]
    finally:
        r.signals.close()


# --- the rest ---------------------------------------------------------------------------------

def test_uno_and_match_start_have_their_tunes(rig):
    rig.send("uno", seat="ann")
    rig.send("match-started", game="flip", seats=["ann", "ben"])
    assert rig.freqs() == notes_of("uno") + notes_of("start")


def test_match_end_turns_the_table_dark(rig):
    rig.send("state", state={"turn": "ben", "side": "dark", "over": False})
    rig.send("match-ended")
    assert rig.states(WEST) == [0, 1, 0]  # ben's
    assert rig.states(SIDE_R) == [0, 0.5, 0] and rig.states(SIDE_B) == [0, 1, 0]
    assert rig.states(ST_G) == [DIM]


def test_a_flood_of_refusals_is_capped(rig):
    for _ in range(30):
        rig.bus.publish("refused", code="bad-input", message="...", source="phone")
    assert rig.bus.join()
    assert rig.signals.flush()
    assert rig.freqs() == [hz("A3"), None] * 6  # each heard on its own
    assert rig.clock.now() == pytest.approx(6 * 0.6 + 5 * 0.05)


def test_snapshot_and_describe(rig):
    rig.send("state", state={"turn": "ben", "side": "light", "over": False})
    snap = rig.signals.snapshot()
    assert snap["turn"] == "ben" and snap["pins"] == "MockFactory" and snap["winners"] == []
    assert snap["side"] == {"side": "light", "rgb": [1, 1, 1], "color": "white"}
    assert snap["seats"]["west"] == {"on": True, "pattern": "on", "seats": ["ben"]}
    assert snap["seats"]["east"] == {"on": False, "pattern": "off", "seats": []}
    assert snap["status"] == {"mode": "ok", "rgb": [0, DIM, 0], "color": "green", "showing": None,
                              "camera": None}
    assert snap["buzzer"] == {"kind": "tonal", "playing": None, "note": None}
    assert rig.signals.describe() == "N:○ E:○ S:○ W:● side:light status:green buzzer:-"


def test_describe_while_a_tune_plays():
    r = Rig(seats=["ann", "ben"], game="classic")
    try:
        r.bus.publish("turn", seat="ann")
        r.bus.publish("timer", kind="expired", seat="ann", left=0)
        assert r.bus.join()
        with r.signals._cond:  # let the worker take the events, without ending the tone
            r.signals._cond.wait_for(r.signals._settled, 5)
            assert r.signals.describe() == "N:○ E:○ S:● W:○ side:- status:red/time-up buzzer:time-up"
            assert r.signals.snapshot()["buzzer"]["note"] == "A4"
    finally:
        r.signals.close()


# --- without PWM, partial wiring, pins in use -------------------------------------------------

def test_without_pwm_full_colours_and_a_plain_buzzer():
    r = Rig(pwm=False, seats=["ann", "ben"], game="flip")
    try:
        assert r.signals.snapshot()["buzzer"]["kind"] == "plain"
        r.send("action", action={"by": "ann", "do": "play", "card": "red-7"}, ok=True, error=None)
        assert r.states(ST_G) == [0, 1, 0]  # dark when idle, so the green flash shows
        assert r.states(BUZZER) == [0, 1, 0]
        r.reset()
        r.send("flipped", side="dark")
        assert (r.states(SIDE_R), r.states(SIDE_G), r.states(SIDE_B)) == ([0, 1], [0], [0, 1])
        assert r.states(BUZZER) == [0, 1, 0]  # the four notes are one long buzz ...
        r.reset()
        r.send("timer", kind="warning", seat="ann", left=10)
        assert r.states(BUZZER) == [0, 1, 0, 1, 0]  # ... but rests still part beeps
        assert r.states(ST_R) == [0, 1, 0] and r.states(ST_G) == [0, 1, 0]  # amber -> yellow
        r.reset()
        r.send("confirm-needed", question="?", choices=[])
        r.advance(1.0 - (r.clock.now() % 1.0) if r.clock.now() % 1.0 else 1.0)
        assert set(r.states(ST_R)) == {0, 1}  # a blink, not a breath
    finally:
        r.signals.close()


def test_unwired_parts_are_left_out():
    pinmap = PinMap(seat_east=None, seat_west=None, side_red=None, side_green=None,
                    side_blue=None, buzzer_kind="none")
    r = Rig(pinmap=pinmap, seats=["north", "east"], game="grid")
    try:
        r.send("turn", seat="east")
        r.send("refused", code="not-your-turn", message="...", source="phone")
        snap = r.signals.snapshot()
        assert set(snap["seats"]) == {"north", "south"}
        assert snap["side"] is None and snap["buzzer"]["kind"] == "none"
        assert r.signals.describe() == "N:○ S:○ side:- status:green buzzer:-"
        assert r.states(ST_R) == [0, 1, 0]
        assert f"GPIO{BUZZER}" not in [info.name for info in r.factory.pins]
    finally:
        r.signals.close()


def test_a_pin_in_use_names_the_pin_and_its_role_and_frees_the_others():
    factory = MockFactory(pin_class=MockPWMPin)
    squatter = LED(SOUTH, pin_factory=factory)
    with pytest.raises(PinUnavailable, match=r"GPIO13 \(seat LED south\)") as info:
        Signals(EventBus(), PinMap(), pin_factory=factory, clock=ManualClock())
    assert info.value.pin == SOUTH and info.value.role == "seat LED south"
    squatter.close()
    # Nothing was left reserved by the failed attempt.
    s = Signals(EventBus(), PinMap(), pin_factory=factory, clock=ManualClock())
    s.close()


def test_a_pin_the_board_does_not_have_is_unavailable():
    factory = MockFactory(revision="0002")  # a first Model B: a 26-pin header, no GPIO5
    with pytest.raises(PinUnavailable, match=r"GPIO5 \(seat LED north\).*PinInvalidPin"):
        Signals(EventBus(), PinMap(), pin_factory=factory, clock=ManualClock())


def test_close_turns_everything_off_and_releases_the_pins():
    r = Rig(seats=["ann", "ben"], game="flip")
    r.send("state", state={"turn": "ann", "side": "light", "over": False})
    r.signals.close()
    assert r.states(NORTH)[-1] == 0 and r.states(SIDE_R)[-1] == 0 and r.states(ST_G)[-1] == 0
    again = Signals(r.bus, PinMap(), pin_factory=r.factory, clock=ManualClock())
    again.close()


def test_publishing_never_waits_for_a_pattern():
    """With the real clock, publish returns while the champion tune (1.4 s) is still playing."""
    bus, factory = EventBus(), MockFactory(pin_class=MockPWMPin)
    s = Signals(bus, PinMap(), pin_factory=factory, clock=RealClock())
    try:
        bus.publish("match-over", champions=["ann"])
        assert bus.join()  # in the signals' inbox
        assert s.flush(timeout=0) is False  # still playing: the publisher did not wait
        assert factory.pin(BUZZER).state in (0, 0.5)
    finally:
        s.close()
    assert factory.pin(BUZZER).state == 0


def test_real_clock_flush_waits_for_a_short_pattern_to_end():
    bus, factory = EventBus(), MockFactory(pin_class=MockPWMPin)
    s = Signals(bus, PinMap(), pin_factory=factory, clock=RealClock())
    try:
        bus.publish("action", action={"by": "a", "do": "play"}, ok=True, error=None)
        assert bus.join()
        assert s.flush(timeout=5)
        assert [p.state for p in factory.pin(ST_G).states] == [0, DIM, 1, DIM]
        assert [p.state for p in factory.pin(BUZZER).states] == [0, 0.5, 0]
    finally:
        s.close()


def test_a_bad_event_is_logged_and_the_lights_go_on(rig, caplog):
    rig.send("won", seats=None, points=0)
    rig.send("state", state=None)
    rig.send("turn", seat="ann")
    assert rig.states(SOUTH)[-1] == 1


def test_loop_patterns_are_as_documented():
    assert CAMERA_LOST.duration == pytest.approx(1.5)
    assert [v for v, _ in CAMERA_LOST.steps][:3] == [(0, 0, 1), (0, 0, 0), (0, 0, 1)]


def test_no_gpio_at_all_says_to_use_mock_pins():
    from gpiozero.exc import BadPinFactory
    error = PinUnavailable("seat LED north", 5, BadPinFactory("Unable to load any default pin factory!"))
    assert "no GPIO that gpiozero can drive on this machine" in str(error)
    assert "GPIOZERO_PIN_FACTORY=mock" in str(error) and "GPIO5, seat LED north" in str(error)


def test_unannounced_seats_are_learnt_from_the_turns():
    r = Rig()
    try:
        for seat in ("ann", "ben", "cai"):
            r.send("turn", seat=seat)
        # (the seats as learnt so far sit round the table: ann south, ben west, cai north)
        assert r.states(SOUTH) == [0, 1, 0] and r.states(NORTH)[-1] == 1
        assert {side: led["seats"] for side, led in r.signals.snapshot()["seats"].items()} == {
            "north": ["cai"], "east": [], "south": ["ann"], "west": ["ben"]}
    finally:
        r.signals.close()
    r = Rig()
    try:
        r.send("turn", seat="west")  # the grid game's seats are sides
        assert r.states(WEST) == [0, 1] and r.states(NORTH) == [0]
    finally:
        r.signals.close()
