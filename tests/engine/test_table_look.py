"""The engines' typed views of a state (``table_look``, ``waiting_for``) agree with the replay
``state`` object, for random legal play in every game (Hypothesis), and say what the camera
referee used to read from the JSON."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from companion.cards import CLASSIC
from companion.engine import game_class
from companion.engine.actions import Action, Pass, Play, Round, Show
from companion.engine.look import CAMERA_WATCHES, Awaiting, TableLook, WaitingFor
from tests.support.flip_games import SETTINGS, choices, setups, start
from tests.support.grid_games import FAST, games, pick_legal, random_grid

#: ``pending.what`` of the replay state -> what the table waits for.
AWAITING = {None: Awaiting.TURN, "forced-plays": Awaiting.FORCED_PLAYS,
            "play-or-pass": Awaiting.PLAY_OR_PASS, "reveal": Awaiting.REVEAL,
            "declare": Awaiting.COLOUR, "challenge": Awaiting.CHALLENGE,
            "draw": Awaiting.DRAW_COUNT, "show": Awaiting.SHOW, "round": Awaiting.ROUND}


def look_in_json(j: dict) -> TableLook:
    """What the replay state says lies face up."""
    pile = j["discard_pile"]
    return TableLook(grid=tuple(tuple(row) for row in j.get("grid") or ()),
                     discard=pile["top"] if isinstance(pile, dict) else j["top"],
                     pawn=tuple(j["pawn"]) if j["pawn"] else None)


def check_agrees(game, state) -> None:
    j = game.to_json(state)
    assert game.table_look(state) == look_in_json(j)
    w = game.waiting_for(state)
    pending = j["pending"] or {}
    what = pending.get("what")
    # the camera referee's old reading of the JSON: what it watches, and whose actions
    watched = not (j["over"] or j["champions"]) and what in (None, "forced-plays", "play-or-pass",
                                                             "reveal")
    assert w.camera_watches == watched, (w, j)
    if watched:
        acting = pending["seat"] if what in ("forced-plays", "reveal") and pending.get("seat") \
            else j["turn"]
        assert w.seat == acting
        assert w.anyone == (what == "reveal" and pending.get("seat") is None)
    assert w.left == (pending["left"] if what == "forced-plays" else 1)
    if j["champions"]:
        assert w.what is Awaiting.OVER and w.seat is None
    elif j["over"]:
        assert w.what in (Awaiting.SHOW, Awaiting.ROUND)
        assert w.what is AWAITING.get(what, Awaiting.ROUND)
    else:
        assert w.what is AWAITING[what]
        if what is not None and not watched:
            assert w.seat == pending.get("seat")
    if w.what is Awaiting.SHOW:
        assert list(w.seats) == pending["seats"]


@FAST
@given(setup=games(), data=st.data())
def test_grid_views_agree_with_the_replay_state_in_random_games(setup, data):
    game, state, rng = setup
    check_agrees(game, state)
    for _ in range(120):
        if state.match_over:
            break
        if state.over:
            action: Action = Round(state.turn, grid=tuple(
                tuple(CLASSIC.parse(n) for n in row) for row in random_grid(rng, game.options.decks)))
        else:
            action = pick_legal(data, game, state)
        outcome = game.apply(state, action)
        assert outcome.ok, (action, outcome.error)
        state = outcome.state
        check_agrees(game, state)


@SETTINGS
@given(setup=setups(), data=st.data())
def test_flip_and_classic_views_agree_with_the_replay_state_in_random_games(setup, data):
    game, state = start(setup)
    check_agrees(game, state)
    for _ in range(data.draw(st.integers(20, 150), label="length")):
        acts = choices(game, state)
        if not acts:
            break
        outcome = game.apply(state, data.draw(st.sampled_from(acts)))
        assert outcome.ok
        state = outcome.state
        check_agrees(game, state)


def _played_out(name: str, seed: int, start: str = "red-5"):
    """A seeded match of ``name`` to its end, every state checked; the kinds of wait seen."""
    rng = random.Random(seed)
    game, state = game_class(name).from_setup(
        {"game": name, "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": start,
         "options": {"target": 60}})
    seen = set()
    for _ in range(3000):
        check_agrees(game, state)
        seen.add(game.waiting_for(state).what)
        acts = [a for a in game.legal_actions(state) if a.do not in ("penalty", "timeout")]
        if not acts:
            break
        plays = [a for a in acts if isinstance(a, (Play, Pass))]
        state = game.apply(state, rng.choice(plays if plays and rng.random() < 0.8 else acts)).state
    return seen


def test_whole_matches_pass_through_every_kind_of_wait():
    seen = set()
    for name in ("flip", "classic"):
        for seed in range(3):
            seen |= _played_out(name, seed)
    seen |= _played_out("classic", 0, start="wild")  # an opening wild: its colour is declared
    assert {Awaiting.TURN, Awaiting.REVEAL, Awaiting.COLOUR, Awaiting.CHALLENGE,
            Awaiting.PLAY_OR_PASS, Awaiting.SHOW, Awaiting.ROUND, Awaiting.OVER} <= seen


def test_a_flip_waits_for_its_player_to_reveal_and_the_pile_top_is_unread():
    game, state = game_class("flip").from_setup(
        {"seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5"})
    assert game.table_look(state) == TableLook(discard="red-5")
    assert game.waiting_for(state) == WaitingFor(Awaiting.TURN, "ann")
    state = game.apply(state, Play("ann", _card("red-flip"))).state
    assert game.table_look(state).discard is None  # the dark face is not read yet
    w = game.waiting_for(state)
    assert (w.what, w.seat, w.anyone, w.camera_watches) == (Awaiting.REVEAL, "ann", False, True)


def _card(name: str):
    from companion.cards import parse_card
    return parse_card(name)


def test_grid_forced_plays_say_how_many_are_owed():
    grid = [["red-1", "blue-2", "green-3", "yellow-4", "blue-5"],
            ["green-5", "red-skip", "red-draw-two", "blue-7", "red-6"],
            ["yellow-8", "red-reverse", "red-5", "wild", "yellow-9"],
            ["blue-1", "green-7", "blue-5", "wild-draw-four", "green-2"],
            ["red-9", "yellow-3", "green-skip", "blue-reverse", "yellow-1"]]
    game, state = game_class("grid").from_setup(
        {"game": "grid", "seats": ["north", "south"], "first": "north", "grid": grid})
    look = game.table_look(state)
    assert look.pawn == (2, 2) and look.discard is None and dict(look.cells())[(1, 2)] == "red-draw-two"
    from companion.engine.actions import Move
    state = game.apply(state, Move("north", (1, 2))).state
    w = game.waiting_for(state)
    assert (w.what, w.seat, w.left, w.camera_watches) == (Awaiting.FORCED_PLAYS, "north", 2, True)


def test_timer_and_scoreboard_views():
    game, state = game_class("timer").from_setup({"game": "timer", "seats": ["ann", "ben"]})
    assert game.table_look(state) == TableLook()
    assert game.waiting_for(state) == WaitingFor(Awaiting.TURN, "ann")
    game, state = game_class("scoreboard").from_setup({"game": "scoreboard", "seats": ["ann", "ben"]})
    w = game.waiting_for(state)
    assert (w.what, w.seats, w.camera_watches) == (Awaiting.SHOW, ("ann", "ben"), False)
    state = game.apply(state, Show("ann", cards=())).state
    assert game.waiting_for(state).seats == ("ben",)


def test_what_the_camera_watches():
    assert CAMERA_WATCHES == {Awaiting.TURN, Awaiting.FORCED_PLAYS, Awaiting.PLAY_OR_PASS,
                              Awaiting.REVEAL}
