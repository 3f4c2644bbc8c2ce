"""The turn timer (docs/rules.md turn_seconds): warning at 10 s left, ticks from 5 s, 0, pauses."""

import pytest

from companion.referee.timer import TurnTimer


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def kinds(signals):
    return [(s.kind, s.left) for s in signals]


def test_warning_at_ten_seconds_left_ticks_from_five_and_expiry_at_zero():
    clock = FakeClock()
    timer = TurnTimer(30, clock=clock)
    timer.start("north")
    clock.now += 19.9
    assert timer.poll() == []
    clock.now += 0.1
    assert kinds(timer.poll()) == [("warning", 10)]
    clock.now += 5.0
    assert kinds(timer.poll()) == [("tick", 5)]
    clock.now += 1.0
    assert kinds(timer.poll()) == [("tick", 4)]
    clock.now += 4.0
    assert kinds(timer.poll()) == [("tick", 3), ("tick", 2), ("tick", 1), ("expired", 0)]
    clock.now += 10
    assert timer.poll() == []  # expiry is said once


def test_each_signal_is_given_once_even_when_polled_often():
    clock = FakeClock()
    timer = TurnTimer(12, clock=clock)
    timer.start("ann")
    seen = []
    for _ in range(130):
        clock.now += 0.1
        seen += kinds(timer.poll())
    assert seen == [("warning", 10), ("tick", 5), ("tick", 4), ("tick", 3), ("tick", 2),
                    ("tick", 1), ("expired", 0)]


def test_a_short_turn_has_no_warning_but_still_ticks():
    clock = FakeClock()
    timer = TurnTimer(3, clock=clock)
    timer.start("ann")
    clock.now += 3
    assert kinds(timer.poll()) == [("tick", 3), ("tick", 2), ("tick", 1), ("expired", 0)]


def test_pause_stops_the_clock_and_resume_continues_it():
    clock = FakeClock()
    timer = TurnTimer(30, clock=clock)
    timer.start("south")
    clock.now += 15
    timer.pause()
    assert timer.paused
    clock.now += 1000
    assert timer.poll() == []
    assert timer.left() == pytest.approx(15)
    timer.resume()
    clock.now += 5
    assert kinds(timer.poll()) == [("warning", 10)]


def test_a_new_turn_restarts_the_full_time():
    clock = FakeClock()
    timer = TurnTimer(30, clock=clock)
    timer.start("north")
    clock.now += 25
    timer.poll()
    timer.start("east")
    assert timer.left() == pytest.approx(30)
    assert timer.seat == "east"


def test_zero_seconds_turns_the_timer_off():
    clock = FakeClock()
    timer = TurnTimer(0, clock=clock)
    timer.start("north")
    clock.now += 10_000
    assert timer.poll() == []
    assert not timer.enabled


def test_negative_turn_seconds_are_refused():
    with pytest.raises(ValueError, match="turn_seconds"):
        TurnTimer(-1)
