"""Random UNO Flip and classic games for property tests: the set-ups, the actions (legal or not)
and the invariants every state keeps."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from companion.cards import ALL_LABELS, DARK_COLORS, LIGHT_COLORS, parse_card
from companion.engine.actions import (
    Accept,
    Catch,
    Challenge,
    Declare,
    Draw,
    Pass,
    Penalty,
    Play,
    Reveal,
    Round,
    Show,
    Timeout,
    Uno,
)
from companion.engine.flip import ClassicGame, FlipGame
from companion.engine.flip_rules import copies_left
from companion.engine.flip_state import face_set_of

GAMES = {"flip": FlipGame, "classic": ClassicGame}


SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def setups(draw) -> dict:
    game = draw(st.sampled_from(sorted(GAMES)))
    seats = [f"p{i}" for i in range(draw(st.integers(2, 10)))]
    faces = face_set_of("light" if game == "flip" else None).faces
    options = {
        "turn_seconds": draw(st.sampled_from([0, 30])),
        "timeout_action": draw(st.sampled_from(["pass", "warn"])),
        "auto_uno_penalty": draw(st.booleans()),
        "scoring": draw(st.sampled_from(["winner-takes", "sheet"])),
        "target": draw(st.sampled_from([60, 200, 500])),
        "rounds": draw(st.sampled_from([0, 2])),
    }
    if game == "flip":
        options["opening_flip"] = draw(st.sampled_from(["redraw", "apply"]))
    return {"game": game, "seats": seats, "dealer": draw(st.sampled_from(seats)),
            "start": draw(st.sampled_from(faces)).name, "options": options}


def start(setup: dict):
    return GAMES[setup["game"]].from_setup(setup)


def check_invariants(game, s) -> None:
    n = len(s.seats)
    assert s.draw_pile + sum(s.hands) + len(s.discard) == game.variant.deck_size
    assert s.draw_pile >= 0 and min(s.hands) >= 0
    assert 0 <= s.turn < n                               # exactly one seat on turn
    fs = face_set_of(s.side)
    if s.top is not None:
        assert s.top in fs
        if s.top.is_wild and not (s.pending and s.pending.what == "declare"):
            assert s.color is not None, "a wild on top has a colour"
    if s.color is not None:
        assert s.color in fs.colors
    if s.over:
        assert len(s.winners) == 1 and s.hands[s.winners[0]] == 0
    else:
        assert min(s.hands) > 0, "a round ends when a player has played their last card"
    if s.window is not None:
        assert s.hands[s.window] == 1 and s.window not in s.called
    assert min(copies_left(s).values()) >= 0
    if s.champions:
        best = max(s.scores)
        assert all(s.scores[c] == best for c in s.champions)
        assert list(game.legal_actions(s)) == []
    json.dumps(game.to_json(s))


def choices(game, s) -> list:
    """The legal actions, with penalties (which any seat may hand out at any time) thinned."""
    acts = list(game.legal_actions(s))
    penalties = [a for a in acts if a.do == "penalty"]
    return [a for a in acts if a.do != "penalty"] + penalties[:1]


CARDS = [parse_card(name) for name in ALL_LABELS if name != "back"]


COLORS = list(LIGHT_COLORS + DARK_COLORS) + [None, "mauve"]


def any_action(seats: list[str]):
    by = st.sampled_from(seats + ["zed"])
    card = st.sampled_from(CARDS)
    color = st.sampled_from(COLORS)
    return st.one_of(
        st.builds(Play, by=by, card=card, color=color),
        st.builds(Draw, by=by, count=st.integers(0, 120)),
        st.builds(Pass, by=by), st.builds(Uno, by=by), st.builds(Timeout, by=by),
        st.builds(Catch, by=by, target=st.sampled_from(seats + ["zed"])),
        st.builds(Challenge, by=by, verdict=st.sampled_from(["guilty", "innocent", "maybe"])),
        st.builds(Accept, by=by),
        st.builds(Reveal, by=by, card=card, color=color),
        st.builds(Declare, by=by, color=st.sampled_from([c for c in COLORS if c])),
        st.builds(Penalty, by=by, target=st.sampled_from(seats), count=st.integers(1, 4)),
        st.builds(Show, by=by, cards=st.lists(card, max_size=9).map(tuple)),
        st.builds(Round, by=by, start=card, dealer=st.sampled_from(seats + [None])),
    )


def play_match(game_name: str, seed: int, max_steps: int = 4000):
    """A seeded random match, preferring plays (as players do) over draws."""
    rng = random.Random(seed)
    seats = [f"p{i}" for i in range(rng.randint(2, 6))]
    game, s = start({"game": game_name, "seats": seats, "dealer": seats[-1], "start": "red-5",
                     "options": {"target": 150}})
    rounds = Counter()
    for _ in range(max_steps):
        acts = [a for a in game.legal_actions(s) if a.do not in ("penalty", "timeout")]
        if not acts:
            return game, s, rounds
        plays = [a for a in acts if a.do in ("play", "pass")]
        action = rng.choice(plays if plays and rng.random() < 0.8 else acts)
        outcome = game.apply(s, action)
        assert outcome.ok, (action, outcome.error)
        rounds.update(e.type for e in outcome.events if e.type in ("round-over", "flipped"))
        s = outcome.state
        check_invariants(game, s)
    return game, s, rounds

