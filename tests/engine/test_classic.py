"""Classic Uno (docs/rules.md, UNO Flip and classic, "classic"): the Flip flow with the 108-card deck, no flip,
``draw-two``, ``wild-draw-four`` and its challenge rulings, 0s and classic points."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.engine.errors import SetupError
from companion.engine.flip import ClassicGame
from companion.replay import Replay

SEATS = ("ann", "ben", "cai")


def table(start="red-5", seats=SEATS, **options) -> Replay:
    return Replay({"setup": {"game": "classic", "seats": list(seats), "dealer": seats[-1],
                             "start": start, "options": options}})


def say(r: Replay, by: str, do: str, **fields) -> dict:
    return r.answer({"by": by, "do": do, **fields})


def ok(r: Replay, by: str, do: str, **fields) -> dict:
    answer = say(r, by, do, **fields)
    assert answer["ok"], answer
    return answer


def find(answer: dict, kind: str) -> list[dict]:
    return [e for e in answer["events"] if e["type"] == kind]


def state(r: Replay) -> dict:
    return r.game.to_json(r.state)


def set_hands(r: Replay, **counts: int) -> None:
    hands, pile = list(r.state.hands), r.state.draw_pile
    for name, n in counts.items():
        i = r.state.seats.index(name)
        pile -= n - hands[i]
        hands[i] = n
    r.state = replace(r.state, hands=tuple(hands), draw_pile=pile)


def conserved(r: Replay) -> bool:
    s = r.state
    return s.draw_pile + sum(s.hands) + len(s.discard) == 108


def test_classic_deck_108_cards_no_side():
    r = table()
    s = state(r)
    assert s["game"] == "classic" and s["side"] is None
    assert s["draw_pile"] == 108 - 21 - 1 and conserved(r)


def test_classic_options_have_no_opening_flip():
    with pytest.raises(SetupError):
        ClassicGame.from_setup({"seats": ["a", "b"], "start": "red-5",
                                "options": {"opening_flip": "apply"}})


@pytest.mark.parametrize("start", ["red-flip", "red-draw-one", "pink-5", "wild-draw-two"])
def test_classic_has_no_flip_faces(start):
    with pytest.raises(SetupError):
        ClassicGame.from_setup({"seats": ["a", "b"], "start": start})


def test_classic_zeros_exist_and_match():
    r = table(start="red-0")
    ok(r, "ann", "play", card="blue-0")
    assert say(table(), "ann", "play", card="red-flip")["error"] == "bad-card"


def test_classic_colours_are_the_four_classic_ones():
    r = table()
    assert say(r, "ann", "play", card="wild", color="teal")["error"] == "no-color"
    ok(r, "ann", "play", card="wild", color="yellow")


def test_classic_opening_draw_two_first_draws_two_and_is_skipped():
    r = table(start="green-draw-two")
    assert (state(r)["hands"]["ann"], state(r)["turn"]) == (9, "ben") and conserved(r)


def test_classic_opening_wild_draw_four_is_redrawn():
    r = table(start="wild-draw-four")
    assert state(r)["pending"] == {"what": "reveal", "seat": None, "reason": "opening"}
    ok(r, "ben", "reveal", card="yellow-reverse")
    assert (state(r)["turn"], state(r)["direction"]) == ("cai", "ccw") and conserved(r)


def test_classic_opening_wild_first_player_declares():
    r = table(start="wild")
    ok(r, "ann", "declare", color="green")
    ok(r, "ann", "play", card="green-0")


def test_classic_draw_two_next_draws_two_and_loses_the_turn():
    r = table()
    ok(r, "ann", "play", card="red-draw-two")
    assert (state(r)["hands"]["ben"], state(r)["turn"]) == (9, "cai")


def test_classic_wild_draw_four_accepted_next_draws_four():
    r = table()
    ok(r, "ann", "play", card="wild-draw-four", color="green")
    ok(r, "ben", "accept")
    assert (state(r)["hands"]["ben"], state(r)["turn"], state(r)["color"]) == (11, "cai",
                                                                                "green")


def test_classic_wild_draw_four_guilty_card_stays_with_its_colour_accused_draws_four():
    r = table()
    ok(r, "ann", "play", card="wild-draw-four", color="green")
    a = ok(r, "ben", "challenge", verdict="guilty")
    assert find(a, "penalty") == [{"type": "penalty", "seat": "ann", "count": 4,
                                   "reason": "challenge"}]
    s = state(r)
    assert (s["top"], s["color"], s["hands"]["ann"]) == ("wild-draw-four", "green", 10)
    assert (s["turn"], s["hands"]["ben"]) == ("ben", 7)
    ok(r, "ben", "play", card="green-3")   # the challenger takes a normal turn


def test_classic_wild_draw_four_innocent_challenger_draws_six_and_loses_the_turn():
    r = table()
    ok(r, "ann", "play", card="wild-draw-four", color="green")
    a = ok(r, "ben", "challenge", verdict="innocent")
    assert sum(e["count"] for e in find(a, "drew")) == 6
    assert (state(r)["hands"]["ben"], state(r)["turn"]) == (13, "cai")


def test_classic_going_out_on_wild_draw_four_next_draws_four():
    r = table()
    set_hands(r, ann=1)
    ok(r, "ann", "play", card="wild-draw-four", color="red")
    assert state(r)["hands"]["ben"] == 11 and state(r)["pending"]["what"] == "show"


def test_classic_points_table():
    r = table()
    set_hands(r, ann=1)
    ok(r, "ann", "play", card="red-2")
    set_hands(r, ben=6, cai=1)
    ok(r, "ben", "show", cards=["red-0", "red-9", "red-draw-two", "red-reverse", "red-skip",
                                "wild"])
    a = ok(r, "cai", "show", cards=["wild-draw-four"])
    assert find(a, "won")[0]["points"] == 0 + 9 + 20 + 20 + 20 + 50 + 50


def test_classic_shown_faces_must_be_classic():
    r = table()
    set_hands(r, ann=1)
    ok(r, "ann", "play", card="red-2")
    set_hands(r, ben=1)
    assert say(r, "ben", "show", cards=["red-flip"])["error"] == "bad-card"


def test_classic_next_round_opening_card_is_classic():
    r = table(target=1000)
    set_hands(r, ann=1)
    ok(r, "ann", "play", card="red-2")
    set_hands(r, ben=1, cai=1)
    ok(r, "ben", "show", cards=["red-1"])
    ok(r, "cai", "show", cards=["red-1"])
    assert say(r, "ann", "round", start="red-flip")["error"] == "bad-card"
    ok(r, "ann", "round", start="red-0")
    assert (state(r)["dealer"], state(r)["turn"], state(r)["side"]) == ("ann", "ben", None)


def test_classic_legal_actions_are_accepted():
    r = table()
    plays = [a for a in r.game.legal_actions(r.state) if a.do == "play"]
    assert {a.card.name for a in plays} >= {"red-0", "blue-5", "wild-draw-four", "red-draw-two"}
    assert not any("flip" in a.card.name for a in plays)
    for a in r.game.legal_actions(r.state):
        assert r.game.apply(r.state, a).ok, a


@pytest.mark.parametrize("scoring, expected", [("winner-takes", {"ann": 59, "ben": 0, "cai": 0}),
                                               ("sheet", {"ann": 59, "ben": -9, "cai": -50})])
def test_classic_scoring_flag(scoring, expected):
    r = table(scoring=scoring, target=50)
    set_hands(r, ann=1)
    ok(r, "ann", "play", card="red-2")
    set_hands(r, ben=1, cai=1)
    ok(r, "ben", "show", cards=["red-9"])
    a = ok(r, "cai", "show", cards=["wild"])
    assert state(r)["scores"] == expected
    assert find(a, "match-over") == [{"type": "match-over", "champions": ["ann"]}]


@pytest.mark.parametrize("auto", [False, True])
def test_classic_auto_uno_penalty_flag(auto):
    r = table(auto_uno_penalty=auto)
    set_hands(r, ann=2)
    ok(r, "ann", "play", card="red-2")
    ok(r, "ben", "play", card="red-3")
    assert state(r)["hands"]["ann"] == (3 if auto else 1)


@pytest.mark.parametrize("action, hands", [("pass", 8), ("warn", 7)])
def test_classic_timeout_action_flag(action, hands):
    r = table(timeout_action=action)
    ok(r, "ann", "timeout")
    assert state(r)["hands"]["ann"] == hands


def test_classic_grid_words_are_bad_input():
    r = table()
    assert r.answer({"by": "ann", "do": "move", "to": [1, 1]})["error"] == "bad-input"
    assert r.answer({"by": "ann", "do": "discard", "card": "red-1"})["error"] == "bad-input"
    assert r.answer({"by": "ann", "do": "play", "card": "red-1", "cell": [0, 0]})["error"] == \
        "bad-input"
