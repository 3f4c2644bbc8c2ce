"""The grid "pawn" game (docs/rules.md, the grid game): one test per rule and ruling, every flag at each value.

Scenarios run through :class:`companion.replay.Replay` so they read like the table's JSON lines.
The standard grid (pawn on the centre ``red-5``)::

        col 0      1             2               3                4
    0   red-1      blue-2        green-3         yellow-4         blue-5
    1   green-5    red-skip      red-draw-two    blue-7           red-6
    2   yellow-8   red-reverse   red-5 (pawn)    wild             yellow-9
    3   blue-1     green-7       blue-5          wild-draw-four   green-2
    4   red-9      yellow-3      green-skip      blue-reverse     yellow-1
"""

from __future__ import annotations

import copy

import pytest

from companion.cards import CLASSIC, parse_card
from companion.decks import classic_deck
from companion.engine import SetupError
from companion.engine.actions import Discard, Move, Play, Timeout
from companion.engine.grid import GridGame
from companion.engine.grid_rules import match_champions
from companion.replay import Replay

GRID = [
    ["red-1", "blue-2", "green-3", "yellow-4", "blue-5"],
    ["green-5", "red-skip", "red-draw-two", "blue-7", "red-6"],
    ["yellow-8", "red-reverse", "red-5", "wild", "yellow-9"],
    ["blue-1", "green-7", "blue-5", "wild-draw-four", "green-2"],
    ["red-9", "yellow-3", "green-skip", "blue-reverse", "yellow-1"],
]


def setup(seats=("north", "south"), first=None, grid=None, **options):
    s = {"game": "grid", "seats": list(seats), "grid": copy.deepcopy(grid or GRID),
         "options": options}
    if first is not None:
        s["first"] = first
    return s


def start(seats=("north", "south"), first=None, grid=None, **options) -> Replay:
    return Replay({"setup": setup(seats, first, grid, **options)})


def do(r: Replay, by: str, what: str, **fields) -> dict:
    return r.answer({"by": by, "do": what, **fields})


def ok(r: Replay, by: str, what: str, **fields) -> dict:
    answer = do(r, by, what, **fields)
    assert answer["ok"], answer
    return answer


def refused(r: Replay, code: str, by: str, what: str, **fields) -> dict:
    before = r.game.to_json(r.state)
    answer = do(r, by, what, **fields)
    assert not answer["ok"] and answer["error"] == code, answer
    if r.game.options.illegal_penalty_draw == 0:
        assert answer["state"] == before, "a refused grid action leaves the state unchanged"
    return answer


def types(answer: dict) -> list[str]:
    return [e["type"] for e in answer["events"]]


def state(r: Replay) -> dict:
    return r.game.to_json(r.state)


def walk_to_corner(r: Replay, mover: str = "north") -> None:
    """Pawn to (0, 0): centre -> red-skip (2 players: mover again) -> red-1."""
    ok(r, mover, "move", to=[1, 1])
    ok(r, mover, "move", to=[0, 0])


def total_cards(s: dict) -> int:
    return (s["draw_pile"] + sum(s["hands"].values()) + sum(map(sum, s["stacks"]))
            + s["discard_pile"]["count"])


# --- set-up -------------------------------------------------------------------------------------

def test_setup_deals_five_each_pawn_on_centre_and_counts_the_draw_pile():
    s = state(start(turn_seconds=0))
    assert s["pawn"] == [2, 2] and s["last_cell"] is None
    assert s["hands"] == {"north": 5, "south": 5}
    assert s["draw_pile"] == 108 - 25 - 10
    assert s["turn"] == "north" and s["direction"] == "cw" and s["side"] is None
    assert s["top"] == "red-5" and s["color"] == "red"
    assert s["grid"] == GRID and s["stacks"] == [[1] * 5] * 5
    assert s["pending"] is None and s["winners"] == [] and s["over"] is False
    assert s["scores"] == {"north": 0, "south": 0} and s["champions"] == []
    assert s["game_starter"] == "north" and s["game_number"] == 1


def test_setup_four_players_deal_twenty_cards():
    s = state(start(seats=["north", "east", "south", "west"]))
    assert s["draw_pile"] == 108 - 25 - 20 and len(s["hands"]) == 4


@pytest.mark.parametrize("decks", [1, 2])
def test_flag_decks_sets_the_deck_size(decks):
    s = state(start(decks=decks))
    assert total_cards(s) == 108 * decks
    assert s["draw_pile"] == 108 * decks - 35


def test_first_defaults_to_the_first_seat_listed():
    assert state(start(seats=["south", "north"]))["turn"] == "south"


@pytest.mark.parametrize("bad, words", [
    ({"seats": ["north"]}, "2 to 4"),
    ({"seats": ["north", "east", "south", "west", "north"]}, "2 to 4"),
    ({"seats": ["north", "up"]}, "unknown side"),
    ({"seats": ["north", "north"]}, "listed twice"),
    ({"seats": ["north", "west", "south"]}, "clockwise"),
    ({"first": "east"}, "'first'"),
    ({"grid": [["red-1"] * 5] * 4}, "5 rows of 5"),
    ({"grid": [row[:4] for row in GRID]}, "5 rows of 5"),
    ({"grid": [["red-draw-one"] + GRID[0][1:]] + GRID[1:]}, "grid cell [0, 0]"),
    ({"grid": [["teal-1"] + GRID[0][1:]] + GRID[1:]}, "grid cell [0, 0]"),
    ({"grid": [["red-0", "red-0"] + GRID[0][2:]] + GRID[1:]}, "impossible grid"),
    ({"options": {"decks": 0}}, "'decks'"),
    ({"options": {"timeout_action": "beep"}}, "'timeout_action'"),
    ({"options": {"wild_matches_all": "yes"}}, "'wild_matches_all'"),
    ({"options": {"colour": 1}}, "unknown option"),
    ({"dealer": "north"}, "no field"),
])
def test_setup_refuses_a_bad_setup_with_a_clear_message(bad, words):
    s = setup()
    s.update(bad)
    with pytest.raises(SetupError, match=None) as info:
        GridGame.from_setup(s)
    assert words in str(info.value)


def test_setup_grid_copies_follow_the_decks_flag():
    grid = [["red-0", "red-0"] + GRID[0][2:]] + GRID[1:]
    assert state(start(grid=grid, decks=2))["grid"][0][:2] == ["red-0", "red-0"]


def test_two_players_may_sit_on_adjacent_sides():
    r = start(seats=["north", "east"], turn_seconds=0)
    ok(r, "north", "discard", card="red-2")
    assert state(r)["turn"] == "east"


def test_play_goes_clockwise_among_seated_sides_from_any_listed_start():
    r = start(seats=["east", "south", "west"], first="west", turn_seconds=0)
    order = []
    for card in ["red-2", "red-3", "red-4", "red-6"]:
        seat = state(r)["turn"]
        order.append(seat)
        ok(r, seat, "discard", card=card)
    assert order == ["west", "east", "south", "west"]


# --- playing a card -------------------------------------------------------------------------------

def test_play_same_colour_then_draw_one():
    r = start()
    a = ok(r, "north", "play", card="red-7", cell=[0, 0])
    assert types(a) == ["played", "drew", "turn"]
    assert a["events"][1] == {"type": "drew", "seat": "north", "count": 1, "reason": "play"}
    s = a["state"]
    assert s["grid"][0][0] == "red-7" and s["stacks"][0][0] == 2
    assert s["hands"]["north"] == 5 and s["draw_pile"] == 72 and s["turn"] == "south"


def test_play_same_number_matches():
    ok(start(), "north", "play", card="green-1", cell=[0, 0])


def test_play_same_symbol_matches():
    r = start()
    ok(r, "north", "play", card="red-skip", cell=[4, 2])          # skip on green-skip
    ok(r, "south", "play", card="yellow-reverse", cell=[4, 3])    # reverse on blue-reverse
    ok(r, "north", "play", card="blue-draw-two", cell=[1, 2])     # draw-two on red-draw-two


def test_play_not_matching_is_refused():
    a = refused(start(), "not-matching", "north", "play", card="green-9", cell=[0, 0])
    assert a["events"][0]["type"] == "illegal" and a["events"][0]["code"] == "not-matching"


def test_the_pawn_cell_is_not_playable():
    a = refused(start(), "pawn-cell", "north", "play", card="red-7", cell=[2, 2])
    assert "pawn" in a["message"]


@pytest.mark.parametrize("wild_matches_all", [True, False])
@pytest.mark.parametrize("card", ["wild", "wild-draw-four"])
def test_a_wild_from_the_hand_plays_on_any_card(wild_matches_all, card):
    r = start(wild_matches_all=wild_matches_all)
    ok(r, "north", "play", card=card, cell=[1, 3])      # on blue-7
    ok(r, "south", "play", card=card, cell=[2, 3])      # on a wild lying on the grid


def test_flag_wild_matches_all_true_any_card_goes_on_a_wild():
    ok(start(wild_matches_all=True), "north", "play", card="green-8", cell=[2, 3])


def test_flag_wild_matches_all_false_a_wild_on_the_grid_has_no_colour_for_plays():
    refused(start(wild_matches_all=False), "not-matching", "north", "play", card="green-8",
            cell=[2, 3])


def test_action_cards_played_on_the_grid_have_no_effect():
    r = start(seats=["north", "east", "south"], turn_seconds=0)
    for seat, card, cell in [("north", "red-skip", [1, 1]), ("east", "red-reverse", [2, 1]),
                             ("south", "red-draw-two", [1, 2]), ("north", "wild-draw-four", [0, 0])]:
        a = ok(r, seat, "play", card=card, cell=cell)
        assert types(a) == ["played", "drew", "turn"]
    s = state(r)
    assert s["direction"] == "cw" and s["turn"] == "east" and set(s["hands"].values()) == {5}


def test_a_play_outside_the_grid_is_bad_input():
    refused(start(), "bad-input", "north", "play", card="red-7", cell=[5, 0])


def test_a_grid_play_takes_no_colour():
    refused(start(), "bad-input", "north", "play", card="wild", cell=[0, 0], color="red")


def test_a_non_classic_card_is_bad_card():
    refused(start(), "bad-card", "north", "play", card="red-draw-one", cell=[0, 0])
    refused(start(), "bad-card", "north", "discard", card="teal-5")


@pytest.mark.parametrize("decks, code", [(1, "bad-card"), (2, None)])
def test_a_card_with_more_copies_visible_than_the_decks_hold_is_bad_card(decks, code):
    r = start(decks=decks)      # blue-5 lies twice on the grid; one deck holds two
    a = do(r, "north", "discard", card="blue-5")
    assert a.get("error") == code, a


def test_copies_count_covered_cards_and_the_discard_pile():
    r = start(turn_seconds=0)
    ok(r, "north", "play", card="red-0", cell=[0, 0])
    ok(r, "south", "play", card="green-0", cell=[0, 2])
    refused(r, "bad-card", "north", "discard", card="red-0")
    ok(r, "north", "discard", card="red-8")
    ok(r, "south", "discard", card="red-8")
    refused(r, "bad-card", "north", "play", card="red-8", cell=[0, 0])


# --- moving the pawn ------------------------------------------------------------------------------

@pytest.mark.parametrize("target, why", [([2, 1], "colour"), ([3, 2], "number"),
                                         ([2, 3], "wild")])
def test_move_to_a_matching_cell(target, why):
    r = start()
    a = ok(r, "north", "move", to=target)
    assert a["events"][0] == {"type": "moved", "seat": "north", "from": [2, 2], "to": target}
    assert a["state"]["pawn"] == target and a["state"]["last_cell"] == [2, 2]


def test_move_not_matching_is_refused():
    refused(start(), "not-matching", "north", "move", to=[1, 3])      # red-5 -> blue-7


@pytest.mark.parametrize("target", [[0, 0], [2, 4], [2, 2], [4, 2]])
def test_move_more_than_one_step_is_not_adjacent(target):
    refused(start(), "not-adjacent", "north", "move", to=target)


def test_move_not_back_to_the_last_cell_whatever_card_lies_there():
    r = start(turn_seconds=0)
    ok(r, "north", "move", to=[3, 2])                  # red-5 -> blue-5
    refused(r, "back-to-last-cell", "south", "move", to=[2, 2])
    ok(r, "south", "play", card="yellow-5", cell=[2, 2])  # another card, still matching
    refused(r, "back-to-last-cell", "north", "move", to=[2, 2])


def test_back_to_last_cell_lasts_only_until_the_pawn_moves_again():
    r = start(turn_seconds=0)
    ok(r, "north", "move", to=[3, 2])                  # last cell (2, 2)
    ok(r, "south", "move", to=[2, 3])                  # blue-5 -> wild; last cell (3, 2)
    ok(r, "north", "move", to=[2, 2])                  # wild -> red-5: allowed again


WILD_GRID = [row[:] for row in GRID]
WILD_GRID[2][2] = "wild"                 # centre wild, (2, 3) wild, (3, 3) wild-draw-four
WILD_GRID[0][4] = "red-5"


@pytest.mark.parametrize("wild_matches_all, target, code", [
    (True, [2, 3], None), (True, [2, 1], None), (True, [3, 3], None),
    (False, [2, 3], None),                    # wild -> wild: the same wild face
    (False, [2, 1], "not-matching"),          # off a wild onto red-reverse
    (False, [3, 3], "not-matching"),          # wild -> wild-draw-four: another wild face
])
def test_flag_wild_matches_all_for_pawn_steps_off_and_onto_wilds(wild_matches_all, target, code):
    r = start(grid=WILD_GRID, wild_matches_all=wild_matches_all)
    assert do(r, "north", "move", to=target).get("error") == code


@pytest.mark.parametrize("wild_matches_all, code", [(True, None), (False, "not-matching")])
def test_flag_wild_matches_all_for_a_pawn_step_onto_a_wild(wild_matches_all, code):
    r = start(wild_matches_all=wild_matches_all)      # red-5 -> wild on (2, 3)
    assert do(r, "north", "move", to=[2, 3]).get("error") == code


# --- moving off the board -------------------------------------------------------------------------

def test_moving_off_an_edge_is_a_solo_win_worth_two():
    r = start()
    walk_to_corner(r)
    a = ok(r, "south", "move", to=[-1, 0])    # crosses north: north wins, whoever moved
    assert types(a) == ["moved", "won", "game-over"]
    assert a["events"][1] == {"type": "won", "seats": ["north"], "points": 2}
    s = a["state"]
    assert s["over"] and s["winners"] == ["north"] and s["scores"] == {"north": 2, "south": 0}
    assert s["pawn"] is None and s["exit"] == [-1, 0] and s["champions"] == []


def test_off_a_corner_with_both_sides_seated_is_a_shared_win():
    r = start(seats=["north", "west"])
    walk_to_corner(r)
    a = ok(r, "west", "move", to=[-1, -1])
    assert a["events"][1] == {"type": "won", "seats": ["north", "west"], "points": 1}
    assert a["state"]["scores"] == {"north": 1, "west": 1}


def test_off_a_corner_with_one_side_seated_is_a_solo_win():
    r = start()
    walk_to_corner(r)
    a = ok(r, "south", "move", to=[-1, -1])
    assert a["state"]["winners"] == ["north"] and a["state"]["scores"]["north"] == 2


def test_a_diagonal_step_off_a_non_corner_border_cell_crosses_one_side():
    r = start(seats=["north", "east", "south", "west"], turn_seconds=0)
    ok(r, "north", "move", to=[1, 1])            # skip: east loses the turn
    ok(r, "south", "play", card="red-2", cell=[0, 1])
    ok(r, "west", "discard", card="red-3")
    ok(r, "north", "move", to=[0, 1])            # red-skip -> red-2
    a = ok(r, "east", "move", to=[-1, 2])
    assert a["state"]["winners"] == ["north"] and a["events"][1]["points"] == 2


@pytest.mark.parametrize("seats, target", [
    (["north", "south"], [0, -1]),                 # west edge, nobody there
    (["north", "south"], [1, -1]),                 # diagonal off a border cell, west only
    (["east", "south"], [-1, -1]),                 # corner of two empty sides
    (["east", "south"], [-1, 0]),
])
def test_a_step_crossing_only_empty_sides_is_refused(seats, target):
    r = start(seats=seats, turn_seconds=0)
    walk_to_corner(r, seats[0])
    refused(r, "empty-side", state(r)["turn"], "move", to=target)


def test_landing_effects_happen_only_on_landing_never_leaving():
    r = start()
    walk_to_corner(r)       # landing on red-skip counted (north went again); leaving red-1: nothing
    a = ok(r, "south", "move", to=[-1, 0])
    assert "drew" not in types(a) and "skipped" not in types(a)


# --- landing effects ------------------------------------------------------------------------------

@pytest.mark.parametrize("cell, face, count", [([1, 2], "draw-two", 2),
                                               ([3, 3], "wild-draw-four", 4)])
def test_landing_on_a_draw_card_draws_then_forces_that_many_plays(cell, face, count):
    r = start(turn_seconds=0)
    a = ok(r, "north", "move", to=cell)
    assert a["events"][1] == {"type": "drew", "seat": "north", "count": count, "reason": face}
    s = a["state"]
    assert s["hands"]["north"] == 5 + count and s["turn"] == "north"
    assert s["pending"] == {"what": "forced-plays", "seat": "north", "left": count,
                            "reason": face, "claimed_no_play": False}
    pile = s["draw_pile"]
    for i in range(count):
        # a card may go on one just played
        a = ok(r, "north", "play", card=["red-4", "red-6", "red-8", "red-9"][i], cell=[0, 0])
    assert types(a) == ["played", "turn"], "no draw after the forced plays"
    assert a["state"]["hands"]["north"] == 5 and a["state"]["draw_pile"] == pile
    assert a["state"]["pending"] is None and a["state"]["turn"] == "south"


def test_forced_plays_must_each_be_legal_and_allow_nothing_else():
    r = start(illegal_penalty_draw=0)
    ok(r, "north", "move", to=[1, 2])
    refused(r, "pawn-cell", "north", "play", card="red-4", cell=[1, 2])
    refused(r, "not-matching", "north", "play", card="green-4", cell=[0, 0])
    refused(r, "forced-play", "north", "move", to=[0, 2])
    refused(r, "not-your-turn", "south", "play", card="red-4", cell=[0, 0])


def test_forced_plays_accept_a_discard_only_as_a_claimed_no_play():
    r = start(turn_seconds=0)
    ok(r, "north", "move", to=[1, 2])
    a = ok(r, "north", "discard", card="green-9")
    assert a["events"] == [{"type": "discarded", "seat": "north", "card": "green-9",
                            "claimed_no_play": True}]
    assert a["state"]["pending"]["claimed_no_play"] is True
    # the grid has not changed since the claim, so a play now would prove it false
    refused(r, "claimed-no-play", "north", "play", card="red-4", cell=[0, 0])
    a = ok(r, "north", "discard", card="green-8")
    assert types(a) == ["discarded", "turn"] and a["state"]["hands"]["north"] == 5


def test_a_play_then_a_claimed_no_play_is_accepted():
    r = start(turn_seconds=0)
    ok(r, "north", "move", to=[3, 3])
    ok(r, "north", "play", card="red-4", cell=[0, 0])
    ok(r, "north", "discard", card="green-9")
    ok(r, "north", "discard", card="green-8")
    a = ok(r, "north", "discard", card="green-7")
    assert a["state"]["turn"] == "south" and a["state"]["hands"]["north"] == 5


def test_landing_on_reverse_reverses_the_direction_with_three_players():
    r = start(seats=["north", "east", "south"], turn_seconds=0)
    a = ok(r, "north", "move", to=[2, 1])
    assert types(a) == ["moved", "direction", "turn"]
    assert a["state"]["direction"] == "ccw" and a["state"]["turn"] == "south"
    ok(r, "south", "discard", card="red-2")
    assert state(r)["turn"] == "east"                    # still counter-clockwise
    ok(r, "east", "play", card="blue-reverse", cell=[3, 2])    # a reverse played has no effect
    assert state(r)["turn"] == "north" and state(r)["direction"] == "ccw"
    ok(r, "north", "move", to=[3, 2])                    # lands on a reverse again
    assert state(r)["direction"] == "cw" and state(r)["turn"] == "east"


def test_landing_on_reverse_with_two_players_acts_as_skip():
    r = start()
    a = ok(r, "north", "move", to=[2, 1])
    assert types(a) == ["moved", "skipped", "turn"]
    assert a["state"]["turn"] == "north" and a["state"]["direction"] == "cw"


def test_landing_on_skip_skips_the_next_player():
    r = start(seats=["north", "east", "south"])
    a = ok(r, "north", "move", to=[1, 1])
    assert a["events"][1:] == [{"type": "skipped", "seat": "east"},
                               {"type": "turn", "seat": "south"}]


def test_landing_on_skip_with_two_players_the_mover_goes_again():
    a = ok(start(), "north", "move", to=[1, 1])
    assert a["state"]["turn"] == "north"


@pytest.mark.parametrize("cell", [[3, 2], [2, 3]])
def test_landing_on_a_number_or_wild_does_nothing(cell):
    a = ok(start(), "north", "move", to=cell)
    assert types(a) == ["moved", "turn"] and a["state"]["turn"] == "south"


# --- discard and draw -----------------------------------------------------------------------------

def test_discard_and_draw_one():
    a = ok(start(), "north", "discard", card="green-9")
    assert types(a) == ["discarded", "drew", "turn"]
    assert a["events"][1]["reason"] == "discard"
    assert a["state"]["discard_pile"] == {"count": 1, "top": "green-9"}
    assert a["state"]["hands"]["north"] == 5 and a["state"]["draw_pile"] == 72


# --- illegal actions ------------------------------------------------------------------------------

@pytest.mark.parametrize("what, fields, code", [
    ("play", {"card": "green-9", "cell": [0, 0]}, "not-matching"),
    ("play", {"card": "red-9", "cell": [2, 2]}, "pawn-cell"),
    ("move", {"to": [1, 3]}, "not-matching"),
    ("move", {"to": [0, 0]}, "not-adjacent"),
])
def test_flag_illegal_penalty_draw_zero_leaves_the_state_unchanged(what, fields, code):
    r = start()
    before = r.state
    a = refused(r, code, "north", what, **fields)
    assert r.state == before and types(a) == ["illegal"]
    assert a["events"][0]["seat"] == "north" and a["events"][0]["message"] == a["message"]


@pytest.mark.parametrize("what, fields, code", [
    ("play", {"card": "green-9", "cell": [0, 0]}, "not-matching"),
    ("play", {"card": "red-9", "cell": [2, 2]}, "pawn-cell"),
    ("move", {"to": [1, 3]}, "not-matching"),
    ("move", {"to": [0, 0]}, "not-adjacent"),
])
def test_flag_illegal_penalty_draw_two_draws_a_penalty_and_the_turn_continues(what, fields, code):
    r = start(illegal_penalty_draw=2)
    before = state(r)
    a = refused(r, code, "north", what, **fields)
    assert types(a) == ["illegal", "penalty"]
    assert a["events"][1] == {"type": "penalty", "seat": "north", "count": 2,
                              "reason": "illegal-action"}
    after = a["state"]
    assert after["hands"]["north"] == 7 and after["draw_pile"] == before["draw_pile"] - 2
    assert after["turn"] == "north" and after["grid"] == before["grid"]
    assert after["pawn"] == before["pawn"]


def test_back_to_last_cell_and_empty_side_also_cost_the_penalty():
    r = start(illegal_penalty_draw=1, turn_seconds=0)
    ok(r, "north", "move", to=[3, 2])
    assert types(refused(r, "back-to-last-cell", "south", "move", to=[2, 2]))[-1] == "penalty"
    r = start(illegal_penalty_draw=1)
    walk_to_corner(r)
    assert types(refused(r, "empty-side", "south", "move", to=[0, -1]))[-1] == "penalty"


@pytest.mark.parametrize("what, fields, code", [
    ("discard", {"card": "red-9"}, "not-your-turn"),
    ("discard", {"card": "blue-5"}, "bad-card"),
    ("round", {"grid": GRID}, "game-not-over"),
])
def test_refusals_that_are_no_rule_of_play_cost_no_penalty(what, fields, code):
    r = start(illegal_penalty_draw=2)
    by = "south" if code == "not-your-turn" else "north"
    a = refused(r, code, by, what, **fields)
    assert types(a) == ["illegal"] and a["state"]["hands"][by] == 5


def test_anything_out_of_turn_is_not_your_turn():
    r = start()
    for what, fields in [("play", {"card": "red-7", "cell": [0, 0]}), ("move", {"to": [2, 1]}),
                         ("discard", {"card": "red-7"}), ("timeout", {})]:
        refused(r, "not-your-turn", "south", what, **fields)
    refused(r, "not-your-turn", "east", "discard", card="red-7")     # not seated


def test_a_flip_only_action_is_bad_input():
    refused(start(), "bad-input", "north", "pass")


# --- draw pile: counting, notice, refill -----------------------------------------------------------

def spare_cards(*played: str) -> list[str]:
    """The deck minus the standard grid and ``played``, in a fixed order: cards a hand may show."""
    left = list(classic_deck())
    for name in [name for row in GRID for name in row] + list(played):
        left.remove(parse_card(name))
    return [c.name for c in left]


def test_draw_pile_counting_conserves_every_card():
    r = start(seats=["north", "east", "south"], turn_seconds=0)
    ok(r, "north", "play", card="red-7", cell=[0, 0])
    ok(r, "east", "discard", card="green-9")
    ok(r, "south", "move", to=[1, 2])
    ok(r, "south", "play", card="red-8", cell=[0, 0])
    s = state(r)
    assert s["draw_pile"] == 108 - 25 - 15 - 1 - 1 - 2
    assert total_cards(s) == 108


def test_draw_pile_low_is_announced_once_then_the_refill_reshuffles_covered_and_discards():
    r = start(turn_seconds=0)
    cards = iter(spare_cards("red-7"))
    ok(r, "north", "play", card="red-7", cell=[0, 0])       # a covered grid card
    lows = []
    while state(r)["draw_pile"] > 0:
        seat = state(r)["turn"]
        a = ok(r, seat, "discard", card=next(cards))
        lows += [e for e in a["events"] if e["type"] == "draw-pile-low"]
    assert lows == [{"type": "draw-pile-low", "left": 4}]
    s = state(r)
    assert s["draw_pile_low"] and s["discard_pile"]["count"] == 72 and s["stacks"][0][0] == 2
    a = ok(r, s["turn"], "discard", card=next(cards))
    assert types(a) == ["discarded", "reshuffle", "drew", "turn"]
    assert a["events"][1] == {"type": "reshuffle", "draw_pile": 1 + 73}
    s = a["state"]
    assert s["draw_pile"] == 73 and s["discard_pile"] == {"count": 0, "top": None}
    assert s["stacks"] == [[1] * 5] * 5 and s["grid"][0][0] == "red-7"
    assert not s["draw_pile_low"] and total_cards(s) == 108


def test_after_a_refill_cards_seen_before_may_be_seen_again():
    r = start(turn_seconds=0)
    cards = iter(spare_cards())
    while state(r)["draw_pile"] > 0:
        ok(r, state(r)["turn"], "discard", card=next(cards))
    refused(r, "bad-card", state(r)["turn"], "discard", card="red-7")  # both copies face up
    a = ok(r, state(r)["turn"], "discard", card=next(cards))
    assert "reshuffle" in types(a)
    ok(r, state(r)["turn"], "discard", card="red-7")       # back in the draw pile, unseen


def test_a_refill_in_the_middle_of_a_draw_two():
    r = start(turn_seconds=0)
    cards = iter(spare_cards("red-7"))
    ok(r, "north", "play", card="red-7", cell=[0, 0])
    while state(r)["draw_pile"] > 1:
        ok(r, state(r)["turn"], "discard", card=next(cards))
    seat = state(r)["turn"]
    a = ok(r, seat, "move", to=[1, 2])
    assert types(a) == ["moved", "reshuffle", "drew"] and a["events"][2]["count"] == 2
    assert a["state"]["hands"][seat] == 7 and total_cards(a["state"]) == 108


# --- time limit -----------------------------------------------------------------------------------

def test_flag_turn_seconds_default_thirty_is_stored_in_the_state():
    assert state(start())["turn_seconds"] == 30


def test_flag_timeout_action_pass_ends_the_turn_with_no_action():
    r = start(turn_seconds=30, timeout_action="pass")
    a = ok(r, "north", "timeout")
    assert types(a) == ["timeout", "turn"]
    assert a["events"][0] == {"type": "timeout", "seat": "north", "action": "pass"}
    assert a["state"]["turn"] == "south" and a["state"]["hands"]["north"] == 5


def test_flag_timeout_action_warn_only_sounds():
    r = start(timeout_action="warn")
    before = state(r)
    a = ok(r, "north", "timeout")
    assert a["events"] == [{"type": "timeout", "seat": "north", "action": "warn"}]
    assert a["state"] == before


def test_flag_turn_seconds_zero_turns_the_timer_off():
    r = start(turn_seconds=0)
    refused(r, "timer-off", "north", "timeout")
    assert not any(isinstance(a, Timeout) for a in r.game.legal_actions(r.state))


def test_a_pass_timeout_during_forced_plays_ends_them_and_the_cards_stay_in_hand():
    r = start()
    ok(r, "north", "move", to=[1, 2])
    a = ok(r, "north", "timeout")
    assert a["state"]["pending"] is None and a["state"]["turn"] == "south"
    assert a["state"]["hands"]["north"] == 7


# --- winning, scoring, the next game, the match ------------------------------------------------------

def test_the_next_game_starts_anew_with_the_seat_after_the_previous_starter():
    r = start(seats=["north", "east", "south"], first="south", turn_seconds=0)
    ok(r, "south", "move", to=[2, 1])          # reverse: ccw, east next
    ok(r, "east", "move", to=[1, 1])           # skip north: south
    ok(r, "south", "move", to=[0, 0])
    a = ok(r, "east", "move", to=[-1, 0])
    assert a["state"]["pending"] == {"what": "round", "seat": "north"}
    refused(r, "game-over", "north", "discard", card="red-2")
    refused(r, "not-your-turn", "east", "round", grid=GRID)
    a = ok(r, "north", "round", grid=GRID)
    assert types(a) == ["new-game", "turn"]
    assert a["events"][0] == {"type": "new-game", "game": 2, "starter": "north"}
    s = a["state"]
    assert s["turn"] == "north" and s["game_starter"] == "north" and s["direction"] == "cw"
    assert s["pawn"] == [2, 2] and s["last_cell"] is None and s["winners"] == []
    assert s["hands"] == {"north": 5, "east": 5, "south": 5} and s["draw_pile"] == 68
    assert s["scores"]["north"] == 2 and not s["over"]


def test_round_refuses_a_bad_grid_with_bad_card():
    r = start()
    walk_to_corner(r)
    ok(r, "south", "move", to=[-1, 0])
    refused(r, "bad-card", "south", "round", grid=[["red-draw-one"] + GRID[0][1:]] + GRID[1:])
    refused(r, "bad-card", "south", "round", grid=[["red-0", "red-0"] + GRID[0][2:]] + GRID[1:])
    refused(r, "bad-input", "south", "round")


def play_a_solo_win_for_north(r: Replay) -> dict:
    """North wins: pawn to (0, 0) by whoever starts, then off the north edge."""
    starter = state(r)["turn"]
    other = "south" if starter == "north" else "north"
    walk_to_corner(r, starter)
    return ok(r, other, "move", to=[-1, 0])


@pytest.mark.parametrize("match_points, games", [(5, 3), (2, 1)])
def test_flag_match_points_the_first_to_reach_it_wins_the_match(match_points, games):
    r = start(match_points=match_points)
    for game in range(games):
        a = play_a_solo_win_for_north(r)
        if game < games - 1:
            assert a["state"]["champions"] == [] and "match-over" not in types(a)
            ok(r, a["state"]["turn"], "round", grid=GRID)
    assert a["events"][-1] == {"type": "match-over", "champions": ["north"]}
    assert a["state"]["champions"] == ["north"] and a["state"]["over"]
    assert a["state"]["pending"] is None and a["state"]["turn"] is None
    refused(r, "match-over", "south", "round", grid=GRID)
    assert list(r.game.legal_actions(r.state)) == []


def test_a_match_tie_is_shared():
    r = start(seats=["north", "west"], match_points=1)
    walk_to_corner(r)
    a = ok(r, "west", "move", to=[-1, -1])
    assert a["state"]["champions"] == ["north", "west"]


def test_match_champions_the_highest_total_of_those_reaching_the_target():
    assert match_champions(("north", "east", "south"), (6, 5, 1), 5) == ("north",)
    assert match_champions(("north", "east", "south"), (5, 5, 4), 5) == ("north", "east")
    assert match_champions(("north", "east"), (4, 3), 5) == ()


# --- legal_actions ----------------------------------------------------------------------------------

def test_legal_actions_list_every_face_on_every_cell_it_fits():
    game, st = GridGame.from_setup(setup(turn_seconds=0))
    actions = list(game.legal_actions(st))
    plays = {(a.card.name, a.cell) for a in actions if isinstance(a, Play)}
    assert all(cell != (2, 2) for _, cell in plays)
    on_red_1 = {card for card, cell in plays if cell == (0, 0)}
    assert on_red_1 == {c.name for c in CLASSIC.faces
                        if c.is_wild or c.color == "red" or c.face == "1"}
    assert ("green-8", (2, 3)) in plays        # any card on a wild by default
    discards = {a.card.name for a in actions if isinstance(a, Discard)}
    assert discards == {c.name for c in CLASSIC.faces} - {"blue-5"}   # both blue-5s are on the grid
    moves = {a.to for a in actions if isinstance(a, Move)}
    assert moves == {(1, 1), (1, 2), (2, 1), (2, 3), (3, 2), (3, 3)}
    assert all(a.by == "north" for a in actions)


def test_legal_actions_list_off_board_moves_only_over_seated_sides():
    r = start(turn_seconds=0)
    walk_to_corner(r)
    moves = {a.to for a in r.game.legal_actions(r.state) if isinstance(a, Move)}
    # not (0, -1) nor (1, -1): nobody sits west; not (1, 1): the last cell; the rest don't match
    assert moves == {(-1, -1), (-1, 0), (-1, 1)}


def test_legal_actions_during_forced_plays_only_plays_and_discards():
    r = start(turn_seconds=30)
    ok(r, "north", "move", to=[1, 2])
    kinds = {type(a).__name__ for a in r.game.legal_actions(r.state)}
    assert kinds == {"Play", "Discard", "Timeout"}
    assert all(a.cell != (1, 2) for a in r.game.legal_actions(r.state) if isinstance(a, Play))
    ok(r, "north", "discard", card="green-9")
    kinds = {type(a).__name__ for a in r.game.legal_actions(r.state)}
    assert kinds == {"Discard", "Timeout"}


@pytest.mark.parametrize("wild_matches_all", [True, False])
def test_every_listed_action_is_accepted(wild_matches_all):
    game, st = GridGame.from_setup(setup(grid=WILD_GRID, wild_matches_all=wild_matches_all))
    for action in game.legal_actions(st):
        assert game.apply(st, action).ok, action
