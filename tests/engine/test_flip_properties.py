"""Property tests of UNO Flip and classic Uno: random legal games, random (often illegal) actions.

After every action: cards are conserved (draw pile + hands + discard pile = 112 / 108), no
count is negative, exactly one seat is on turn, a wild on top has a colour (unless its colour
is being declared), a round is over exactly when someone holds no card, no face lies open more
often than the deck holds it, and a refused action leaves the state as docs/rules.md says.
"""


from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine.actions import (
    Play,
)
from tests.support.flip_games import (
    CARDS,
    COLORS,
    SETTINGS,
    any_action,
    check_invariants,
    choices,
    play_match,
    setups,
    start,
)


@pytest.mark.slow
@SETTINGS
@given(setup=setups(), data=st.data())
def test_random_legal_games_keep_every_invariant(setup, data):
    game, s = start(setup)
    check_invariants(game, s)
    for step in range(data.draw(st.integers(20, 200), label="length")):
        acts = choices(game, s)
        if not acts:
            assert s.champions
            break
        action = data.draw(st.sampled_from(acts))
        outcome = game.apply(s, action)
        assert outcome.ok, (action, outcome.error)
        s = outcome.state
        check_invariants(game, s)
        if step % 25 == 0:                       # every listed action is accepted
            for other in game.legal_actions(s):
                assert game.apply(s, other).ok, other


@pytest.mark.slow
@SETTINGS
@given(setup=setups(), data=st.data())
def test_random_actions_never_crash_and_refusals_change_only_what_the_rules_say(setup, data):
    game, s = start(setup)
    random_action = any_action(setup["seats"])
    for _ in range(data.draw(st.integers(20, 150), label="length")):
        kind = data.draw(st.sampled_from(["legal", "any", "card on turn"]), label="kind")
        if kind == "legal":
            acts = choices(game, s)
            if not acts:
                break
            action = data.draw(st.sampled_from(acts))
        elif kind == "card on turn":                # the seat on turn, a card it may not play
            action = Play(by=s.seats[s.turn], card=data.draw(st.sampled_from(CARDS)),
                          color=data.draw(st.sampled_from(COLORS)))
        else:
            action = data.draw(random_action)
        outcome = game.apply(s, action)
        if outcome.ok:
            s = outcome.state
        else:
            code = outcome.error.code
            assert code and code == code.lower() and " " not in code
            if code == "not-matching":          # the card goes back, 2 cards, the turn passes
                new, seat = outcome.state, s.turn
                assert new.hands[seat] - s.hands[seat] == sum(
                    e["count"] for e in outcome.events if e.type == "drew")
                assert new.hands[seat] >= s.hands[seat]
                assert (new.top, new.color, new.pending) == (s.top, s.color, None)
                assert new.turn == (seat + s.direction) % len(s.seats)
                assert [e.type for e in outcome.events][:2] == ["illegal", "penalty"]
                s = new
            else:
                assert outcome.state is s and outcome.events == ()
        check_invariants(game, s)


def test_random_matches_end_with_champions():
    for game_name in ("flip", "classic"):
        for seed in range(4):
            game, s, seen = play_match(game_name, seed)
            assert s.champions, (game_name, seed)
            assert max(s.scores) >= 150 and seen["round-over"] >= 1
            if game_name == "classic":
                assert seen["flipped"] == 0

