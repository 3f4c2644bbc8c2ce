"""The table session: actions from every source meet the engine, events reach the bus and the log."""

from __future__ import annotations

import pytest

from companion.bus import EventBus
from companion.eventlog import EventLog
from companion.host import Host, NoMatch
from companion.referee.table import Table
from tests.support.games import flip_setup, grid_setup


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def bus_and_seen():
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    return bus, seen


def types(seen):
    return [m.type for m in seen]


def test_an_accepted_action_is_published_with_the_engine_events_and_the_new_state(bus_and_seen):
    bus, seen = bus_and_seen
    table = Table(flip_setup("classic", seats=("ann", "ben"), start="red-5"), bus)
    bus.join()
    seen.clear()
    answer = table.act({"by": "ann", "do": "play", "card": "red-9"})
    assert answer.ok and answer.state["top"] == "red-9"
    bus.join()
    assert types(seen)[0] == "action"
    assert "played" in types(seen) and types(seen)[-1] == "state"
    assert seen[0].data["action"] == {"by": "ann", "do": "play", "card": "red-9"}


def test_a_malformed_action_is_refused_with_bad_input_and_changes_nothing(bus_and_seen):
    bus, seen = bus_and_seen
    table = Table(flip_setup("classic", seats=("ann", "ben")), bus)
    before = table.state_json()
    answer = table.act({"by": "ann", "do": "dance"})
    assert not answer.ok and answer.error == "bad-input"
    assert table.state_json() == before
    bus.join()
    assert seen[-1].type == "refused" and seen[-1].data["code"] == "bad-input"


def test_an_unknown_card_is_refused_with_bad_card():
    table = Table(flip_setup("classic", seats=("ann", "ben")))
    answer = table.act({"by": "ann", "do": "play", "card": "red-10"})
    assert (answer.ok, answer.error) == (False, "bad-card")


def test_an_illegal_grid_play_is_published_as_refused_and_leaves_the_state(bus_and_seen):
    bus, seen = bus_and_seen
    table = Table(grid_setup(1, seats=("north", "south")), bus)
    before = table.state_json()
    answer = table.act({"by": "north", "do": "play", "card": "red-1", "cell": [0, 0]})
    assert (answer.ok, answer.error) == (False, "not-matching")
    assert table.state_json() == before
    bus.join()
    assert "illegal" in types(seen) and "refused" in types(seen)


def test_undo_takes_back_the_last_action():
    table = Table(flip_setup("classic", seats=("ann", "ben"), start="red-5"))
    before = table.state_json()
    table.act({"by": "ann", "do": "play", "card": "red-9"})
    assert table.undo().ok
    assert table.state_json() == before
    assert table.undo().error == "nothing-to-undo"


def test_the_timer_restarts_on_each_turn_and_a_timeout_passes_the_turn(bus_and_seen):
    bus, seen = bus_and_seen
    clock = FakeClock()
    table = Table(flip_setup("classic", seats=("ann", "ben"), start="red-5", turn_seconds=30),
                  bus, clock=clock)
    assert table.timer.seat == "ann"
    clock.now = 20
    table.poll_timer()
    table.act({"by": "ann", "do": "play", "card": "red-9"})
    assert table.timer.seat == "ben" and table.timer.left() == 30
    clock.now = 51
    answer = table.poll_timer()
    bus.join()
    timer_kinds = [m.data["kind"] for m in seen if m.type == "timer"]
    assert timer_kinds[-2:] == ["tick", "expired"]
    assert answer.ok and answer.action == {"by": "ben", "do": "timeout"}
    # docs/rules.md: in classic a timeout with timeout_action=pass draws one and passes the turn
    assert table.state_json()["turn"] == "ann"
    assert table.state_json()["hands"]["ben"] == 8


def test_a_paused_timer_does_not_expire_while_the_table_confirms():
    clock = FakeClock()
    table = Table(flip_setup("classic", seats=("ann", "ben"), turn_seconds=10), clock=clock)
    table.pause_timer()
    clock.now = 100
    assert table.poll_timer() is None
    table.resume_timer()
    clock.now = 110
    assert table.poll_timer().action["do"] == "timeout"


def test_the_log_gets_every_changing_action_and_a_resumed_table_is_identical(tmp_path):
    log = EventLog(tmp_path / "events.sqlite3")
    table = Table(flip_setup("classic", seats=("ann", "ben"), start="red-5"), log=log)
    table.act({"by": "ann", "do": "play", "card": "red-9"})
    table.act({"by": "ben", "do": "play", "card": "blue-3"})  # wrong card: penalty, logged
    table.act({"by": "ann", "do": "dance"})  # malformed: nothing to log
    table.undo()
    expected = table.state_json()
    assert [e["action"]["do"] for e in log.entries(table.match_id)] == ["play", "play", "undo"]
    resumed = Table.resume(EventLog(tmp_path / "events.sqlite3"))
    assert resumed.state_json() == expected
    assert resumed.match_id == table.match_id


def test_the_host_starts_resumes_and_ends_matches(tmp_path):
    path = tmp_path / "events.sqlite3"
    host = Host(EventLog(path))
    with pytest.raises(NoMatch):
        host.require_table()
    assert host.snapshot()["playing"] is False
    host.start_match(flip_setup("flip", seats=("ann", "ben"), start="red-5"))
    host.require_table().act({"by": "ann", "do": "play", "card": "red-9"})
    again = Host(EventLog(path))
    snap = again.snapshot()
    assert snap["playing"] and snap["game"] == "flip" and snap["top"] == "red-9"
    assert snap["seats"] == ["ann", "ben"] and "signals" in snap and "timer" in snap
    again.end_match()
    assert Host(EventLog(path)).table is None


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown mode"):
        Host(mode="karaoke")


def test_timer_only_mode_the_buzzer_times_every_turn_and_zero_moves_it_on(bus_and_seen):
    bus, seen = bus_and_seen
    clock = FakeClock()
    host = Host(mode="timer", bus=bus, clock=clock)
    assert host.default_game == "timer"
    table = host.start_match({"setup": {"game": "timer", "seats": ["ann", "ben"],
                                        "options": {"turn_seconds": 10}}})
    table.act({"by": "ann", "do": "pass"}, source="button")
    assert table.timer.seat == "ben"
    clock.now = 10
    table.poll_timer()
    assert table.state_json()["turn"] == "ann"
    bus.join()
    kinds = [m.data["kind"] for m in seen if m.type == "timer"]
    assert kinds == ["warning", "tick", "tick", "tick", "tick", "tick", "expired"]


def test_scoreboard_only_mode_has_no_turn_so_no_timer():
    host = Host(mode="scoreboard")
    assert host.default_game == "scoreboard"
    table = host.start_match({"setup": {"game": "scoreboard", "seats": ["ann", "ben"]}})
    assert table.timer.seat is None
    table.act({"by": "ben", "do": "score", "points": 12})
    assert table.act({"by": "ann", "do": "round"}).state["scores"] == {"ann": 12, "ben": 0}


def test_the_host_says_a_match_started_and_ended_in_order_and_after_logging_it(tmp_path):
    log = EventLog(tmp_path / "events.sqlite3")
    host = Host(log)
    said = []
    host.bus.subscribe(lambda m: said.append((m.type, log.unfinished() is None)),
                       {"table-ready", "match-started", "match-ended"})
    host.start_match(flip_setup("flip", seats=("ann", "ben"), start="red-5"))
    # heard before the match ends (delivery is on the bus's own thread, a moment later)
    assert host.bus.join(timeout=30)
    host.end_match()
    assert host.bus.join(timeout=30)
    # the log already holds what each event says: a match being played, then finished
    assert said == [("table-ready", False), ("match-started", False), ("match-ended", True)]
    assert host.table is None
