"""Random grid games for property tests: the set-ups, the actions (legal or not) and the invariants
every state keeps."""

from __future__ import annotations

import functools
import random
from dataclasses import fields

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from companion.cards import CLASSIC, FACE_SETS
from companion.decks import classic_deck, copies
from companion.engine.actions import Action, Discard, Move, Play, Round, Timeout
from companion.engine.grid import GridGame, GridState
from companion.engine.grid_rules import on_board, sides_crossed
from companion.engine.grid_state import visible_counts

SEATINGS = [["north", "south"], ["east", "west"], ["north", "east"], ["south", "west"],
            ["north", "east", "south"], ["east", "south", "west"],
            ["north", "east", "south", "west"], ["west", "north", "east", "south"]]


FAST = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def random_grid(rng: random.Random, decks: int) -> list[list[str]]:
    cards = rng.sample(classic_deck(decks), 25)
    return [[c.name for c in cards[r * 5:r * 5 + 5]] for r in range(5)]


@st.composite
def games(draw):
    """A set-up with random seats, flags and grid (dealt from a shuffled deck)."""
    seats = draw(st.sampled_from(SEATINGS))
    options = {
        "decks": draw(st.sampled_from([1, 2])),
        "wild_matches_all": draw(st.booleans()),
        "illegal_penalty_draw": draw(st.sampled_from([0, 0, 1, 2])),
        "turn_seconds": draw(st.sampled_from([0, 30])),
        "timeout_action": draw(st.sampled_from(["pass", "warn"])),
        "match_points": draw(st.integers(1, 5)),
    }
    rng = draw(st.randoms(use_true_random=False))
    setup = {"game": "grid", "seats": seats, "first": draw(st.sampled_from(seats)),
             "grid": random_grid(rng, options["decks"]), "options": options}
    game, state = GridGame.from_setup(setup)
    return game, state, rng


def check_invariants(game: GridGame, state: GridState) -> None:
    deck = 108 * game.options.decks
    on_table = sum(len(s) for s in state.stacks) + len(state.discards)
    assert state.draw_pile + sum(state.hands) + on_table == deck, "cards are conserved"
    assert state.draw_pile >= 0 and min(state.hands) >= 0
    assert all(len(stack) >= 1 for stack in state.stacks)
    seen = visible_counts(state)
    assert all(n <= copies("classic", game.options.decks)[c] for c, n in seen.items())
    assert state.turn in state.seats, "exactly one seat to act"
    assert state.direction in ("cw", "ccw")
    if state.pending is not None:
        assert state.pending.seat == state.turn and 1 <= state.pending.left <= 4
    if state.over:
        assert state.pawn is None and state.exit is not None and state.pending is None
        assert state.winners == tuple(s for s in state.seats if s in sides_crossed(state.exit))
    else:
        assert state.pawn is not None and on_board(state.pawn) and not state.winners
        assert state.last_cell is None or state.last_cell != state.pawn
    assert sum(state.scores) % 2 == 0, "a game gives 2 points: solo 2, shared 1 + 1"
    if state.champions:
        assert state.over
        best = max(state.scores)
        assert best >= game.options.match_points
        assert set(state.champions) == {s for s, p in zip(state.seats, state.scores) if p == best}
    else:
        assert max(state.scores) < game.options.match_points
    json = game.to_json(state)
    assert json["turn"] in (*state.seats, None) and len(json["grid"]) == 5


def pick_legal(data, game: GridGame, state: GridState) -> Action:
    """A legal action, choosing the kind first so pawn moves (few) are tried often."""
    by_kind: dict[str, list[Action]] = {}
    for action in game.legal_actions(state):
        by_kind.setdefault(type(action).__name__, []).append(action)
    kind = data.draw(st.sampled_from(sorted(by_kind)))
    # an index, not sampled_from(actions): hypothesis hashes a sampled list to cache the
    # strategy, hundreds of actions at every step
    return by_kind[kind][data.draw(st.integers(0, len(by_kind[kind]) - 1))]


_CARDS = st.sampled_from([c for fs in FACE_SETS.values() for c in fs.faces]) | st.sampled_from(
    CLASSIC.faces)


_CELLS = st.tuples(st.integers(0, 4), st.integers(0, 4)) | st.tuples(st.integers(-2, 6),
                                                                     st.integers(-2, 6))


_GRIDS = st.lists(st.sampled_from(CLASSIC.faces), min_size=25, max_size=25).map(
    lambda cs: tuple(tuple(cs[r * 5:r * 5 + 5]) for r in range(5)))


@functools.cache
def any_action(turn: str):
    """Actions of every grid kind, mostly nonsense: any face, any cell in -2..6, mostly by the
    seat to act, ``turn`` (so that rule refusals, not only ``not-your-turn``, come up). One
    strategy per seat: building strategies at every step costs more than the game."""
    by = st.sampled_from([turn] * 6 + ["east", "west", "north", "south", "nobody"])
    return st.one_of(
        st.builds(Play, by, _CARDS, _CELLS),
        st.builds(Move, by, _CELLS),
        st.builds(Discard, by, _CARDS),
        st.builds(Timeout, by),
        st.builds(Round, by, grid=st.none() | _GRIDS),
    )


def same_except_penalty(before: GridState, after: GridState, seat: str) -> bool:
    """Only the penalty draw changed: the seat's hand, the pile (maybe refilled)."""
    changed = {f.name for f in fields(GridState)
               if getattr(before, f.name) != getattr(after, f.name)}
    allowed = {"hands", "draw_pile", "low_announced", "stacks", "discards"}
    if not changed <= allowed:
        return False
    i = before.seats.index(seat)
    return (all(a == b for j, (a, b) in enumerate(zip(before.hands, after.hands)) if j != i)
            and after.hands[i] >= before.hands[i]
            and [s[-1] for s in before.stacks] == [s[-1] for s in after.stacks])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 7) | st.sampled_from(
        ["north", "south", "red-5", "wild", "play", "move", "discard", "round", "timeout", "x"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["by", "do", "card", "cell", "to", "grid", "color", "count"]), inner,
        max_size=5),
    max_leaves=12)

