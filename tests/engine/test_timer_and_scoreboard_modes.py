"""Timer only and scoreboard only: the two table modes with no rules (issue: three ways to use it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import SetupError, game_class
from companion.replay import Replay, replay_lines
from tests.support.doc_examples import contains, doc_examples


def timer(*seats, **options):
    return Replay({"setup": {"game": "timer", "seats": list(seats), "options": options}})


def board(*seats, **options):
    return Replay({"setup": {"game": "scoreboard", "seats": list(seats), "options": options}})


def say(r, by, do, **fields):
    return r.answer({"by": by, "do": do, **fields})


# --- timer only ----------------------------------------------------------------------------------

def test_timer_pass_hands_the_turn_to_the_next_seat_clockwise_and_round_again():
    r = timer("ann", "ben", "cai")
    assert r.game.to_json(r.state)["turn"] == "ann"
    assert [e["seat"] for e in say(r, "ann", "pass")["events"]] == ["ben"]
    say(r, "ben", "pass")
    answer = say(r, "cai", "pass")
    assert answer["state"]["turn"] == "ann" and answer["state"]["turns"] == 3


def test_timer_first_seat_is_chosen_at_set_up():
    r = Replay({"setup": {"game": "timer", "seats": ["ann", "ben"], "first": "ben"}})
    assert r.game.to_json(r.state)["turn"] == "ben"


def test_timer_only_the_seat_whose_turn_it_is_ends_it():
    r = timer("ann", "ben")
    assert say(r, "ben", "pass")["error"] == "not-your-turn"
    assert say(r, "zed", "pass")["error"] == "not-your-turn"


def test_timer_timeout_action_pass_moves_the_turn_on():
    r = timer("ann", "ben", turn_seconds=20)
    answer = say(r, "ann", "timeout")
    assert answer["ok"] and answer["state"]["turn"] == "ben"
    assert answer["events"][0] == {"type": "timeout", "seat": "ann", "action": "pass"}


def test_timer_timeout_action_warn_only_sounds():
    r = timer("ann", "ben", timeout_action="warn")
    answer = say(r, "ann", "timeout")
    assert answer["ok"] and answer["state"]["turn"] == "ann"
    assert answer["events"] == [{"type": "timeout", "seat": "ann", "action": "warn"}]


def test_timer_turn_seconds_zero_refuses_a_timeout():
    assert say(timer("ann", "ben", turn_seconds=0), "ann", "timeout")["error"] == "timer-off"


def test_timer_has_no_card_actions():
    assert say(timer("ann", "ben"), "ann", "play", card="red-5")["error"] == "bad-input"


@pytest.mark.parametrize("setup", [
    {"game": "timer", "seats": []},
    {"game": "timer", "seats": ["ann", "ann"]},
    {"game": "timer", "seats": ["ann"], "first": "ben"},
    {"game": "timer", "seats": ["ann"], "dealer": "ann"},
    {"game": "timer", "seats": ["ann"], "options": {"turn_seconds": -1}},
])
def test_timer_bad_set_up_is_refused(setup):
    with pytest.raises(SetupError):
        game_class("timer").from_setup(setup)


# --- scoreboard only -----------------------------------------------------------------------------

def test_scoreboard_winner_takes_the_sum_of_the_other_hands():
    r = board("ann", "ben", "cai")
    say(r, "ben", "score", points=30)
    say(r, "cai", "show", cards=["red-7", "wild", "blue-skip"])  # 7 + 50 + 20, classic points
    answer = say(r, "ann", "round")
    assert answer["ok"]
    assert answer["state"]["scores"] == {"ann": 107, "ben": 0, "cai": 0}
    assert answer["state"]["winners"] == ["ann"] and answer["state"]["round"] == 2
    assert answer["state"]["entered"] == {}


def test_scoreboard_deck_chooses_the_points_table():
    r = board("ann", "ben", deck="dark")
    assert say(r, "ben", "show", cards=["teal-skip-everyone", "wild-draw-color"])["events"][0]["points"] == 90
    assert say(r, "ben", "show", cards=["red-7"])["error"] == "bad-card"


def test_scoreboard_sheet_scoring_winner_plus_others_minus_their_hand():
    r = board("ann", "ben", "cai", scoring="sheet")
    say(r, "ben", "score", points=30)
    say(r, "cai", "score", points=12)
    assert say(r, "ann", "round")["state"]["scores"] == {"ann": 42, "ben": -30, "cai": -12}


def test_scoreboard_a_round_waits_for_every_losing_hand():
    r = board("ann", "ben", "cai")
    say(r, "ben", "score", points=30)
    answer = say(r, "ann", "round")
    assert answer["error"] == "hands-not-shown" and "cai" in answer["message"]
    assert answer["state"]["pending"] == {"what": "hands", "seats": ["ann", "cai"]}


def test_scoreboard_a_hand_entered_twice_counts_the_last_entry():
    r = board("ann", "ben")
    say(r, "ben", "score", points=30)
    say(r, "ben", "score", points=3)
    assert say(r, "ann", "round")["state"]["scores"]["ann"] == 3


def test_scoreboard_target_ends_the_match_with_the_highest_total():
    r = board("ann", "ben", target=50)
    say(r, "ben", "score", points=60)
    answer = say(r, "ann", "round")
    assert answer["state"]["champions"] == ["ann"] and answer["state"]["over"]
    assert {"type": "match-over", "champions": ["ann"]} in answer["events"]
    assert say(r, "ben", "score", points=1)["error"] == "match-over"


def test_scoreboard_agreed_rounds_end_the_match():
    r = board("ann", "ben", rounds=2, scoring="sheet")
    say(r, "ben", "score", points=10)
    say(r, "ann", "round")
    say(r, "ann", "score", points=4)
    answer = say(r, "ben", "round")
    assert answer["state"]["scores"] == {"ann": 6, "ben": -6}
    assert answer["state"]["champions"] == ["ann"]


def test_scoreboard_without_rounds_plays_to_the_target():
    r = board("ann", "ben", rounds=0, target=500)
    for _ in range(3):
        say(r, "ben", "score", points=10)
        say(r, "ann", "round")
    assert r.game.to_json(r.state)["champions"] == []


def test_scoreboard_negative_points_are_bad_input():
    assert say(board("ann", "ben"), "ben", "score", points=-5)["error"] == "bad-input"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_scoreboard_random_rounds_keep_the_totals_consistent(data):
    scoring = data.draw(st.sampled_from(["winner-takes", "sheet"]))
    r = board("ann", "ben", "cai", scoring=scoring, target=10_000)
    expected = {"ann": 0, "ben": 0, "cai": 0}
    for _ in range(data.draw(st.integers(1, 6))):
        winner = data.draw(st.sampled_from(["ann", "ben", "cai"]))
        hands = {s: data.draw(st.integers(0, 200)) for s in expected if s != winner}
        for seat, points in hands.items():
            assert say(r, seat, "score", points=points)["ok"]
        assert say(r, winner, "round")["ok"]
        expected[winner] += sum(hands.values())
        if scoring == "sheet":
            for seat, points in hands.items():
                expected[seat] -= points
    state = r.game.to_json(r.state)
    assert state["scores"] == expected
    if scoring == "sheet":
        assert sum(state["scores"].values()) == 0  # a sheet always balances


MODES_DOC = Path(__file__).resolve().parents[2] / "docs" / "replay-modes.md"


@pytest.mark.parametrize("line, lines, expected", doc_examples(MODES_DOC))
def test_the_examples_in_docs_replay_modes_do_what_the_page_says(line, lines, expected):
    answers = list(replay_lines(lines))
    assert all(a["ok"] for a in answers), (line, answers)
    contains(answers[-1], expected)
