"""Property tests of the grid game: random legal games with invariants checked after every action,
and random (often illegal) actions that must never crash and must leave the state as docs/rules.md says.
"""


from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import CLASSIC
from companion.engine.actions import Action, Move, Round
from companion.engine.grid import PENALISED_CODES
from companion.engine.grid_rules import on_board
from companion.replay import Replay
from tests.support.grid_games import (
    FAST,
    any_action,
    check_invariants,
    games,
    json_values,
    pick_legal,
    random_grid,
    same_except_penalty,
)


@pytest.mark.slow
@FAST
@given(setup=games(), data=st.data())
def test_random_legal_games_keep_every_invariant(setup, data):
    game, state, rng = setup
    check_invariants(game, state)
    games_played = 1
    for _ in range(150):
        if state.match_over:
            assert list(game.legal_actions(state)) == []
            break
        if state.over:
            action: Action = Round(state.turn, grid=tuple(
                tuple(CLASSIC.parse(n) for n in row) for row in random_grid(rng, game.options.decks)))
            games_played += 1
        else:
            action = pick_legal(data, game, state)
        outcome = game.apply(state, action)
        assert outcome.ok, (action, outcome.error)
        before, state = state, outcome.state
        check_invariants(game, state)
        types = [e.type for e in outcome.events]
        # the game ends exactly when the pawn leaves the board
        left_board = isinstance(action, Move) and not on_board(action.to)
        assert state.over == (left_board or (before.over and not isinstance(action, Round)))
        if left_board:
            assert types[:3] == ["moved", "won", "game-over"]
        if game.options.illegal_penalty_draw == 0 and not (
                game.options.turn_seconds and game.options.timeout_action == "pass"):
            # hands are back to 5 whenever no forced plays are pending
            extra = state.pending.left if state.pending else 0
            for seat, n in zip(state.seats, state.hands):
                assert n == 5 + (extra if seat == state.turn else 0)
    assert sum(state.scores) <= 2 * games_played


@pytest.mark.slow
@FAST
@given(setup=games(), data=st.data())
def test_random_actions_never_crash_and_a_refusal_changes_only_the_penalty(setup, data):
    game, state, _ = setup
    for _ in range(60):
        if data.draw(st.booleans()) and not state.over:
            action = pick_legal(data, game, state)
        else:
            action = data.draw(any_action(state.turn))
        outcome = game.apply(state, action)
        assert outcome.events and outcome.state is not None
        if outcome.ok:
            if not isinstance(action, Round):   # legal_actions lists every accepted action
                assert any(a == action for a in game.legal_actions(state)), action
            state = outcome.state
        else:
            error = outcome.error
            assert outcome.events[0].type == "illegal" and outcome.events[0]["code"] == error.code
            if error.code in PENALISED_CODES and game.options.illegal_penalty_draw:
                assert same_except_penalty(state, outcome.state, action.by)
                assert [e.type for e in outcome.events][1] in ("penalty", "reshuffle")
                state = outcome.state
            else:
                assert outcome.state == state, error.code
        check_invariants(game, state)
        if state.match_over:
            break


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True)
@given(line=st.fixed_dictionaries({"by": st.sampled_from(["north", "south", "east"]),
                                   "do": st.sampled_from(["play", "move", "discard", "timeout",
                                                          "round", "draw", "uno"])},
                                  optional={"card": json_values, "cell": json_values,
                                            "to": json_values, "grid": json_values})
       | json_values)
def test_replay_answers_any_json_line_without_crashing(line):
    replay = Replay({"setup": {"game": "grid", "seats": ["north", "south"],
                               "grid": random_grid(random.Random(7), 1)}})
    before = replay.game.to_json(replay.state)
    answer = replay.answer(line)
    assert set(answer) >= {"ok", "events", "state"}
    if not answer["ok"]:
        assert isinstance(answer["error"], str) and answer["state"] == before

