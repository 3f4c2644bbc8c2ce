"""The mode rules the web asks the engines (which actions a game takes, the typed-hand bound,
the scoreboard's deck) and the seat-name rule of every set-up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import parse_card
from companion.engine import SetupError, game_class
from companion.engine.actions import Pass, Play, Score, Show
from companion.engine.base import SEAT_NAME_MAX, seat_name_problem
from companion.replay import Replay, start_game

SEATS = ["ann", "ben", "cai"]


def game(name, **options):
    setup = {"game": name, "seats": SEATS, "options": options}
    if name in ("flip", "classic"):
        setup["start"] = "red-5"
    return start_game({"setup": setup})[0]


def test_each_mode_says_which_actions_it_takes():
    assert game_class("timer").takes == {"pass", "timeout"}
    assert game_class("scoreboard").takes == {"score", "show", "round"}
    assert {"play", "draw", "round", "penalty"} <= game_class("flip").takes


@pytest.mark.parametrize("name, action, code", [
    ("timer", Play("ann", parse_card("red-5")), "bad-input"),
    ("timer", Score("ann", 3), "bad-input"),
    ("scoreboard", Pass("ann"), "bad-input"),
    ("scoreboard", Score("ann", 10_000), "bad-input"),
    ("scoreboard", Show("ann", (parse_card("pink-5"),)), "bad-card"),
    ("flip", Score("ann", 10_000), "bad-input"),
])
def test_malformed_actions_are_named_by_the_engine(name, action, code):
    assert game(name).malformed(action).code == code


@pytest.mark.parametrize("name, action", [
    ("timer", Pass("ann")), ("scoreboard", Score("ann", 9999)),
    ("scoreboard", Show("ann", (parse_card("red-5"), parse_card("wild")))),
    ("flip", Play("ann", parse_card("red-7"))),
])
def test_well_formed_actions_are_left_to_the_rules(name, action):
    assert game(name).malformed(action) is None


def test_the_replay_refuses_a_typed_hand_over_the_bound_like_the_web():
    replay = Replay({"setup": {"game": "scoreboard", "seats": SEATS}})
    answer = replay.answer({"by": "ben", "do": "score", "points": 10_000})
    assert answer["ok"] is False and answer["error"] == "bad-input"
    assert replay.answer({"by": "ben", "do": "score", "points": 9999})["ok"]


def is_good_name(name: str) -> bool:
    return 1 <= len(name) <= SEAT_NAME_MAX and name.isprintable() and bool(name.strip())


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec=None, categories=None), max_size=30))
def test_a_seat_name_is_one_to_24_printable_characters(name):
    assert (seat_name_problem(name) is None) == is_good_name(name)
    setup = {"setup": {"game": "timer", "seats": [name, "zz-other"]}}
    if is_good_name(name):
        assert start_game(setup)[0].name == "timer"
    else:
        with pytest.raises(SetupError, match="seat name"):
            start_game(setup)
