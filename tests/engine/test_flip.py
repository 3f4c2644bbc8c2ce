"""UNO Flip (docs/rules.md, UNO Flip and classic): one test per rule and ruling, read like the rule book.

Every scenario drives the engine through the replay contract (``Replay.answer``). Where a
scenario needs a hand size the table would take many turns to reach, the state is adjusted
with ``dataclasses.replace`` keeping the cards conserved (see ``set_hands``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.engine.flip import FlipGame
from companion.engine.errors import SetupError
from companion.replay import Replay

SEATS = ("ann", "ben", "cai")


def table(start="red-5", seats=SEATS, dealer=None, game="flip", **options) -> Replay:
    setup = {"game": game, "seats": list(seats), "dealer": dealer or seats[-1], "start": start,
             "options": options}
    return Replay({"setup": setup})


def say(r: Replay, by: str, do: str, **fields) -> dict:
    return r.answer({"by": by, "do": do, **fields})


def ok(r: Replay, by: str, do: str, **fields) -> dict:
    answer = say(r, by, do, **fields)
    assert answer["ok"], answer
    return answer


def types(answer: dict) -> list[str]:
    return [e["type"] for e in answer["events"]]


def find(answer: dict, kind: str) -> list[dict]:
    return [e for e in answer["events"] if e["type"] == kind]


def set_hands(r: Replay, **counts: int) -> None:
    """Give seats new hand sizes, taking/returning the difference from the draw pile."""
    hands = list(r.state.hands)
    pile = r.state.draw_pile
    for name, n in counts.items():
        i = r.state.seats.index(name)
        pile -= n - hands[i]
        hands[i] = n
    assert pile >= 0
    r.state = replace(r.state, hands=tuple(hands), draw_pile=pile)


def conserved(r: Replay) -> bool:
    s = r.state
    return s.draw_pile + sum(s.hands) + len(s.discard) == r.game.variant.deck_size


def state(r: Replay) -> dict:
    return r.game.to_json(r.state)


# --- set-up ----------------------------------------------------------------------------------------

def test_setup_deals_seven_each_and_turns_the_opening_card():
    r = table()
    s = state(r)
    assert s["hands"] == {"ann": 7, "ben": 7, "cai": 7}
    assert s["draw_pile"] == 112 - 21 - 1 and s["discard_pile"] == 1
    assert (s["top"], s["color"], s["side"], s["direction"]) == ("red-5", "red", "light", "cw")
    assert s["pending"] is None and s["over"] is False and s["champions"] == []
    assert s["pawn"] is None and s["scores"] == {"ann": 0, "ben": 0, "cai": 0}


def test_setup_player_left_of_dealer_starts_clockwise():
    assert state(table(dealer="ann"))["turn"] == "ben"
    assert state(table(dealer="cai"))["turn"] == "ann"


def test_setup_two_to_ten_players():
    table(seats=("a", "b"))
    table(seats=tuple("abcdefghij"))
    for seats in (("a",), tuple("abcdefghijk"), ("a", "a")):
        with pytest.raises(SetupError):
            table(seats=seats)


@pytest.mark.parametrize("setup", [
    {"seats": ["a", "b"], "dealer": "x", "start": "red-5"},
    {"seats": ["a", "b"], "start": "pink-5"},          # a dark face cannot open
    {"seats": ["a", "b"], "start": "red-0"},           # no 0 in Flip
    {"seats": ["a", "b"]},
    {"seats": ["a", "b"], "start": "red-5", "options": {"opening_flip": "maybe"}},
    {"seats": ["a", "b"], "start": "red-5", "options": {"bogus": 1}},
    {"seats": ["a", "b"], "start": "red-5", "options": {"target": 0}},
    {"seats": ["a", "b"], "start": "red-5", "extra": 1},
])
def test_setup_refuses_a_bad_setup(setup):
    with pytest.raises(SetupError):
        FlipGame.from_setup(setup)


def test_options_defaults():
    o = table().game.options
    assert (o.turn_seconds, o.timeout_action, o.auto_uno_penalty, o.scoring, o.target,
            o.opening_flip, o.pairing) == (30, "pass", False, "winner-takes", 500, "redraw",
                                           "predict")


# --- opening card ----------------------------------------------------------------------------------

def test_opening_draw_one_first_player_draws_one_and_is_skipped():
    r = table(start="red-draw-one")
    s = state(r)
    assert s["hands"]["ann"] == 8 and s["turn"] == "ben" and conserved(r)


def test_opening_reverse_dealer_starts_counter_clockwise():
    r = table(start="red-reverse")
    s = state(r)
    assert (s["turn"], s["direction"]) == ("cai", "ccw")
    ok(r, "cai", "play", card="red-3")
    assert state(r)["turn"] == "ben"


def test_opening_skip_first_player_is_skipped():
    assert state(table(start="red-skip"))["turn"] == "ben"


def test_opening_wild_first_player_declares_then_plays():
    r = table(start="wild")
    assert state(r)["pending"] == {"what": "declare", "seat": "ann", "reason": "opening",
                                   "colors": ["red", "yellow", "green", "blue"]}
    assert say(r, "ann", "play", card="blue-3")["error"] == "declare-pending"
    assert say(r, "ben", "declare", color="blue")["error"] == "not-your-turn"
    assert say(r, "ann", "declare", color="teal")["error"] == "no-color"
    a = ok(r, "ann", "declare", color="blue")
    assert find(a, "color-declared") == [{"type": "color-declared", "seat": "ann", "color": "blue"}]
    assert (state(r)["turn"], state(r)["color"]) == ("ann", "blue")
    ok(r, "ann", "play", card="blue-3")


def test_opening_wild_draw_two_goes_back_and_the_next_card_is_revealed_by_any_seat():
    r = table(start="wild-draw-two")
    s = state(r)
    assert s["pending"] == {"what": "reveal", "seat": None, "reason": "opening"}
    assert s["draw_pile"] == 112 - 21 and s["top"] is None and conserved(r)
    assert say(r, "ann", "play", card="red-3")["error"] == "reveal-pending"
    ok(r, "cai", "reveal", card="wild-draw-two")  # again: back again
    assert state(r)["pending"]["what"] == "reveal"
    ok(r, "ben", "reveal", card="green-skip")       # a skip opens: ann is skipped
    s = state(r)
    assert (s["top"], s["turn"], s["draw_pile"]) == ("green-skip", "ben", 90) and conserved(r)


def test_opening_reveal_takes_no_colour():
    r = table(start="wild-draw-two")
    assert say(r, "ann", "reveal", card="wild", color="red")["error"] == "unexpected-color"
    ok(r, "ann", "reveal", card="wild")
    assert state(r)["pending"]["what"] == "declare"


def test_opening_flip_redraw():
    r = table(start="red-flip", opening_flip="redraw")
    s = state(r)
    assert (s["side"], s["pending"]["what"], s["pending"]["reason"]) == ("light", "reveal", "opening")


def test_opening_flip_apply_flips_and_the_revealed_card_has_no_effect():
    r = table(start="red-flip", opening_flip="apply", pairing="enforce")
    s = state(r)
    assert s["side"] == "dark"
    assert s["pending"] == {"what": "reveal", "seat": None, "reason": "opening-flip",
                            "faces": ["pink-8", "purple-3"]}
    assert say(r, "ben", "reveal", card="teal-8")["error"] == "not-other-face"
    ok(r, "ben", "reveal", card="pink-8")
    s = state(r)
    assert (s["top"], s["color"], s["turn"], s["hands"]["ann"]) == ("pink-8", "pink", "ann", 7)


def test_opening_flip_apply_revealing_a_wild_lets_the_first_player_declare():
    r = table(start="green-flip", opening_flip="apply")   # hides teal-3 / wild-draw-color
    assert say(r, "ann", "reveal", card="wild-draw-color", color="pink")["error"] == \
        "unexpected-color"
    ok(r, "cai", "reveal", card="wild-draw-color")
    s = state(r)
    assert s["pending"] == {"what": "declare", "seat": "ann", "reason": "opening",
                            "colors": ["pink", "teal", "orange", "purple"]}
    assert s["hands"]["ben"] == 7  # no effect: nobody draws
    ok(r, "ann", "declare", color="orange")
    ok(r, "ann", "play", card="orange-3")


def test_opening_flip_apply_needs_a_flip_to_flip():
    assert state(table(start="green-3", opening_flip="apply"))["side"] == "light"


# --- matching and wrong cards --------------------------------------------------------------------

def test_match_by_colour_number_and_symbol():
    r = table()
    ok(r, "ann", "play", card="red-9")       # colour
    ok(r, "ben", "play", card="blue-9")      # number
    ok(r, "cai", "play", card="blue-skip")   # colour
    ok(r, "ben", "play", card="green-skip")  # symbol (ann was skipped)


def test_wrong_card_goes_back_player_draws_two_and_the_turn_passes():
    r = table()
    a = say(r, "ann", "play", card="blue-7")
    assert not a["ok"] and a["error"] == "not-matching"
    assert types(a) == ["illegal", "penalty", "drew", "turn"]
    assert find(a, "penalty")[0] == {"type": "penalty", "seat": "ann", "count": 2,
                                     "reason": "not-matching"}
    s = a["state"]
    assert (s["hands"]["ann"], s["turn"], s["top"], s["discard_pile"]) == (9, "ben", "red-5", 1)
    assert conserved(r)


def test_wild_goes_on_anything_with_a_colour_of_the_side():
    r = table()
    assert say(r, "ann", "play", card="wild")["error"] == "no-color"
    assert say(r, "ann", "play", card="wild", color="pink")["error"] == "no-color"
    assert state(r)["hands"]["ann"] == 7  # no penalty for a missing colour
    a = ok(r, "ann", "play", card="wild", color="green")
    assert find(a, "played")[0]["color"] == "green"
    assert say(r, "ben", "play", card="red-2")["error"] == "not-matching"
    ok(r, "cai", "play", card="green-2")


def test_a_coloured_card_takes_no_other_colour():
    r = table()
    assert say(r, "ann", "play", card="red-2", color="blue")["error"] == "unexpected-color"


def test_faces_of_the_other_side_are_bad_cards():
    r = table()
    a = say(r, "ann", "play", card="pink-5")
    assert a["error"] == "bad-card" and a["state"]["hands"]["ann"] == 7


def test_playing_out_of_turn_is_refused_without_penalty():
    r = table()
    a = say(r, "ben", "play", card="red-2")
    assert a["error"] == "not-your-turn" and a["events"] == [] and a["state"]["hands"]["ben"] == 7


def test_unknown_seat_is_refused():
    assert say(table(), "zed", "play", card="red-2")["error"] == "unknown-seat"


def test_every_copy_open_means_a_misread():
    r = table(seats=("ann", "ben"))
    for _ in range(2):
        ok(r, "ann", "play", card="wild", color="red")
        ok(r, "ben", "play", card="wild", color="red")
    assert say(r, "ann", "play", card="wild", color="red")["error"] == "too-many-copies"


# --- drawing ---------------------------------------------------------------------------------------

def test_draw_keeps_the_turn_until_play_or_pass():
    r = table()
    a = ok(r, "ann", "draw")
    assert find(a, "drew") == [{"type": "drew", "seat": "ann", "count": 1, "reason": "draw"}]
    assert state(r)["pending"] == {"what": "play-or-pass", "seat": "ann"}
    assert say(r, "ann", "draw")["error"] == "play-or-pass-pending"
    ok(r, "ann", "play", card="red-8")  # the drawn card
    assert state(r)["turn"] == "ben"


def test_pass_after_drawing_keeps_the_card():
    r = table()
    assert say(r, "ann", "pass")["error"] == "draw-first"
    ok(r, "ann", "draw")
    ok(r, "ann", "pass")
    assert state(r)["turn"] == "ben" and state(r)["hands"]["ann"] == 8


def test_a_drawn_card_that_does_not_match_is_a_wrong_card():
    r = table()
    ok(r, "ann", "draw")
    a = say(r, "ann", "play", card="blue-2")
    assert a["error"] == "not-matching" and a["state"]["hands"]["ann"] == 10
    assert a["state"]["turn"] == "ben" and a["state"]["pending"] is None


def test_own_draw_is_one_card():
    assert say(table(), "ann", "draw", count=2)["error"] == "draw-count"


def test_empty_draw_pile_reshuffles_all_discards_but_the_top():
    r = table()
    for by, card in (("ann", "red-6"), ("ben", "red-7"), ("cai", "red-8")):
        ok(r, by, "play", card=card)
    set_hands(r, ben=r.state.hands[1] + r.state.draw_pile)  # the draw pile is empty now
    a = ok(r, "ann", "draw")
    assert find(a, "reshuffle") == [{"type": "reshuffle", "draw_pile": 3}]
    s = state(r)
    assert (s["draw_pile"], s["discard_pile"], s["top"]) == (2, 1, "red-8") and conserved(r)


def test_draw_pile_low_is_announced_once():
    r = table()
    set_hands(r, ben=7 + r.state.draw_pile - 6)
    a = ok(r, "ann", "draw")
    assert find(a, "draw-pile-low") == [{"type": "draw-pile-low", "left": 5}]
    ok(r, "ann", "pass")
    a = ok(r, "ben", "draw")
    assert find(a, "draw-pile-low") == []


# --- light side effects ----------------------------------------------------------------------------

def test_draw_one_next_draws_one_and_loses_the_turn():
    r = table()
    a = ok(r, "ann", "play", card="red-draw-one")
    assert find(a, "drew") == [{"type": "drew", "seat": "ben", "count": 1, "reason": "draw-one"}]
    assert find(a, "skipped") == [{"type": "skipped", "seat": "ben"}]
    assert state(r)["turn"] == "cai" and state(r)["hands"]["ben"] == 8


def test_no_stacking_the_hit_player_cannot_answer_with_a_draw_card():
    r = table()
    ok(r, "ann", "play", card="red-draw-one")
    assert say(r, "ben", "play", card="blue-draw-one")["error"] == "not-your-turn"


def test_reverse_reverses_direction():
    r = table()
    a = ok(r, "ann", "play", card="red-reverse")
    assert find(a, "direction") == [{"type": "direction", "direction": "ccw"}]
    assert state(r)["turn"] == "cai"


def test_reverse_with_two_players_acts_as_skip():
    r = table(seats=("ann", "ben"))
    ok(r, "ann", "play", card="red-reverse")
    assert state(r)["turn"] == "ann"


def test_skip_next_player_loses_the_turn():
    r = table()
    ok(r, "ann", "play", card="red-skip")
    assert state(r)["turn"] == "cai"


def test_wild_draw_two_accepted_next_draws_two_and_loses_the_turn():
    r = table()
    ok(r, "ann", "play", card="wild-draw-two", color="blue")
    assert state(r)["pending"] == {"what": "challenge", "seat": "ben", "reason": "wild-draw-two",
                                   "card": "wild-draw-two", "accused": "ann", "color": "blue"}
    assert say(r, "ben", "play", card="blue-2")["error"] == "challenge-pending"
    assert say(r, "cai", "accept")["error"] == "not-challenger"
    ok(r, "ben", "accept")
    s = state(r)
    assert (s["hands"]["ben"], s["turn"], s["color"]) == (9, "cai", "blue")


def test_wild_draw_two_challenge_guilty_wild_back_two_cards_previous_top_stands():
    r = table()
    ok(r, "ann", "play", card="wild-draw-two", color="blue")
    assert say(r, "cai", "challenge", verdict="guilty")["error"] == "not-challenger"
    assert say(r, "ben", "challenge", verdict="maybe")["error"] == "bad-input"
    a = ok(r, "ben", "challenge", verdict="guilty")
    assert find(a, "challenged") == [{"type": "challenged", "seat": "ben", "accused": "ann",
                                      "verdict": "guilty"}]
    s = state(r)
    assert s["hands"]["ann"] == 7 + 2  # the wild came back, plus 2
    assert (s["top"], s["color"], s["turn"], s["hands"]["ben"]) == ("red-5", "red", "ben", 7)
    assert s["discard_pile"] == 1 and conserved(r)
    ok(r, "ben", "play", card="red-1")  # a normal turn


def test_wild_draw_two_challenge_innocent_challenger_draws_four_and_loses_the_turn():
    r = table()
    ok(r, "ann", "play", card="wild-draw-two", color="blue")
    a = ok(r, "ben", "challenge", verdict="innocent")
    assert sum(e["count"] for e in find(a, "drew")) == 4
    s = state(r)
    assert (s["hands"]["ben"], s["turn"], s["top"]) == (11, "cai", "wild-draw-two")


def test_nothing_to_challenge_or_accept():
    r = table()
    assert say(r, "ben", "challenge", verdict="guilty")["error"] == "nothing-to-challenge"
    assert say(r, "ben", "accept")["error"] == "nothing-to-accept"


# --- flip ------------------------------------------------------------------------------------------

def flipped(r=None) -> Replay:
    """ann flips red-5 / red-flip: the pile turns over, red-5's dark face comes up."""
    r = r or table()
    a = ok(r, "ann", "play", card="red-flip")
    assert find(a, "flipped") == [{"type": "flipped", "side": "dark"}]
    return r


def test_flip_changes_side_at_once_and_waits_for_the_flippers_reveal():
    r = flipped()
    s = state(r)
    assert (s["side"], s["top"], s["turn"]) == ("dark", None, "ann")
    assert s["pending"] == {"what": "reveal", "seat": "ann", "reason": "flip",
                            "faces": ["pink-2", "teal-5"]}
    assert say(r, "ben", "reveal", card="teal-5")["error"] == "not-your-turn"
    assert say(r, "ben", "play", card="teal-2")["error"] == "not-your-turn"


def test_pairing_enforce_a_flip_reveal_must_be_the_other_face_of_the_bottom_card():
    r = flipped(table(pairing="enforce"))
    a = say(r, "ann", "reveal", card="orange-9")
    assert a["error"] == "not-other-face" and "pink-2, teal-5" in a["message"]
    assert say(r, "ann", "reveal", card="red-5")["error"] == "bad-card"


def test_pairing_predict_a_face_the_pairing_did_not_predict_is_accepted_and_said():
    # Another print of the deck may pair its faces otherwise: the table's card wins.
    r = flipped()
    assert r.game.options.pairing == "predict"
    a = ok(r, "ann", "reveal", card="orange-9")
    assert find(a, "face-not-predicted") == [{"type": "face-not-predicted", "card": "orange-9",
                                              "predicted": ["pink-2", "teal-5"]}]
    s = state(r)
    assert (s["top"], s["color"], s["turn"]) == ("orange-9", "orange", "ben")
    assert conserved(r)
    assert say(r, "ben", "reveal", card="red-5")["error"] in ("bad-card", "nothing-to-reveal")


def test_pairing_predict_a_predicted_face_says_nothing_more():
    r = flipped()
    a = ok(r, "ann", "reveal", card="teal-5")
    assert find(a, "face-not-predicted") == []


def test_flip_revealed_card_has_no_effect_and_the_next_player_plays():
    r = flipped()
    a = ok(r, "ann", "reveal", card="teal-5")
    assert find(a, "revealed") == [{"type": "revealed", "card": "teal-5"}]
    s = state(r)
    assert (s["top"], s["color"], s["turn"]) == ("teal-5", "teal", "ben")
    ok(r, "ben", "play", card="teal-skip-everyone")


def test_flip_revealed_draw_card_makes_nobody_draw():
    r = table(start="red-skip")       # ann is skipped: ben to play
    ok(r, "ben", "play", card="red-flip")
    ok(r, "ben", "reveal", card="orange-draw-five")  # red-skip hides orange-draw-five / wild
    assert state(r)["hands"] == {"ann": 7, "ben": 6, "cai": 7}
    assert state(r)["turn"] == "cai"


def test_flip_revealed_wild_the_flipper_declares_a_colour_of_the_new_side():
    r = table(start="red-skip")        # red-skip hides orange-draw-five / wild
    ok(r, "ben", "play", card="red-flip")
    ok(r, "ben", "reveal", card="wild")
    assert state(r)["pending"] == {"what": "declare", "seat": "ben", "reason": "flip",
                                   "colors": ["pink", "teal", "orange", "purple"]}
    assert say(r, "ben", "declare", color="red")["error"] == "no-color"
    ok(r, "ben", "declare", color="teal")
    assert (state(r)["color"], state(r)["turn"]) == ("teal", "cai")


def test_flip_revealed_wild_colour_may_come_with_the_reveal():
    r = table(start="red-skip")
    ok(r, "ben", "play", card="red-flip")
    ok(r, "ben", "reveal", card="wild", color="orange")
    assert (state(r)["color"], state(r)["turn"], state(r)["pending"]) == ("orange", "cai", None)


def test_flip_back_to_light_reveals_the_flip_card_that_went_to_the_bottom():
    r = flipped()
    ok(r, "ann", "reveal", card="teal-5")
    ok(r, "ben", "play", card="teal-flip")
    s = state(r)
    assert (s["side"], s["pending"]["faces"]) == ("light", ["red-flip"])
    ok(r, "ben", "reveal", card="red-flip")
    assert (state(r)["top"], state(r)["turn"]) == ("red-flip", "cai")


def test_flip_discard_pile_is_conserved():
    r = flipped()
    ok(r, "ann", "reveal", card="teal-5")
    assert state(r)["discard_pile"] == 2 and conserved(r)


# --- dark side effects -----------------------------------------------------------------------------

def dark() -> Replay:
    r = flipped()
    ok(r, "ann", "reveal", card="teal-5")
    return r  # ben to play on teal-5


def test_draw_five_next_draws_five_and_loses_the_turn():
    r = dark()
    ok(r, "ben", "play", card="teal-draw-five")
    assert (state(r)["hands"]["cai"], state(r)["turn"]) == (12, "ann")


def test_skip_everyone_the_same_player_plays_again():
    r = dark()
    a = ok(r, "ben", "play", card="teal-skip-everyone")
    assert [e["seat"] for e in find(a, "skipped")] == ["ann", "cai"]
    assert state(r)["turn"] == "ben"
    ok(r, "ben", "play", card="teal-3")


def test_dark_reverse_reverses_direction():
    r = dark()
    ok(r, "ben", "play", card="teal-reverse")
    assert (state(r)["direction"], state(r)["turn"]) == ("ccw", "ann")


def test_dark_wild_takes_a_dark_colour():
    r = dark()
    assert say(r, "ben", "play", card="wild", color="red")["error"] == "no-color"
    ok(r, "ben", "play", card="wild", color="purple")


def test_wild_draw_color_accepted_next_draws_until_the_colour_and_loses_the_turn():
    r = dark()
    ok(r, "ben", "play", card="wild-draw-color", color="orange")
    ok(r, "cai", "accept")
    s = state(r)
    assert s["pending"] == {"what": "draw", "seat": "cai", "reason": "wild-draw-color",
                            "color": "orange", "extra": 0, "most": s["draw_pile"] + 2}
    assert say(r, "ann", "draw", count=3)["error"] == "not-your-turn"
    assert say(r, "cai", "play", card="orange-2")["error"] == "draw-pending"
    a = ok(r, "cai", "draw", count=3)
    assert find(a, "drew")[0] == {"type": "drew", "seat": "cai", "count": 3,
                                  "reason": "wild-draw-color"}
    assert (state(r)["hands"]["cai"], state(r)["turn"]) == (10, "ann")


def test_wild_draw_color_challenge_innocent_until_the_colour_then_two_more():
    r = dark()
    ok(r, "ben", "play", card="wild-draw-color", color="orange")
    ok(r, "cai", "challenge", verdict="innocent")
    assert state(r)["pending"]["extra"] == 2
    a = ok(r, "cai", "draw", count=1)
    assert find(a, "penalty") == [{"type": "penalty", "seat": "cai", "count": 2,
                                   "reason": "challenge"}]
    assert (state(r)["hands"]["cai"], state(r)["turn"]) == (10, "ann")


def test_wild_draw_color_challenge_guilty_wild_back_and_two_cards():
    r = dark()
    ok(r, "ben", "play", card="wild-draw-color", color="orange")
    ok(r, "cai", "challenge", verdict="guilty")
    s = state(r)
    assert (s["hands"]["ben"], s["top"], s["color"], s["turn"]) == (9, "teal-5", "teal", "cai")


def test_draw_until_colour_terminates_with_the_pile_and_discards():
    r = dark()
    ok(r, "ben", "play", card="wild-draw-color", color="orange")
    ok(r, "cai", "accept")
    most = state(r)["pending"]["most"]
    assert say(r, "cai", "draw", count=most + 1)["error"] == "too-many-cards"
    a = ok(r, "cai", "draw", count=most)
    assert find(a, "reshuffle") and state(r)["draw_pile"] == 0 and conserved(r)


# --- UNO -------------------------------------------------------------------------------------------

def test_uno_called_on_turn_with_two_cards_protects():
    r = table()
    set_hands(r, ann=2)
    ok(r, "ann", "uno")
    a = ok(r, "ann", "play", card="red-2")
    assert find(a, "uno-window") == []
    assert say(r, "ben", "catch", target="ann")["error"] == "no-catch"


def test_uno_forgotten_caught_in_the_window_costs_two():
    r = table()
    set_hands(r, ann=2)
    a = ok(r, "ann", "play", card="red-2")
    assert find(a, "uno-window") == [{"type": "uno-window", "seat": "ann", "open": True}]
    assert say(r, "ann", "catch", target="ann")["error"] == "no-catch"
    a = ok(r, "cai", "catch", target="ann")
    assert find(a, "caught") == [{"type": "caught", "seat": "ann", "by": "cai"}]
    assert state(r)["hands"]["ann"] == 3 and state(r)["uno"]["window"] is None
    assert say(r, "ben", "catch", target="ann")["error"] == "no-catch"


def test_uno_catch_after_the_next_players_card_costs_nothing():
    r = table()
    set_hands(r, ann=2)
    ok(r, "ann", "play", card="red-2")
    ok(r, "ben", "draw")           # no card hit the pile: still open
    ok(r, "ben", "play", card="red-3")
    a = say(r, "cai", "catch", target="ann")
    assert a["error"] == "no-catch" and a["state"]["hands"]["ann"] == 1


def test_uno_late_call_with_one_card_before_being_caught_counts():
    r = table()
    set_hands(r, ann=2)
    ok(r, "ann", "play", card="red-2")
    a = ok(r, "ann", "uno")
    assert find(a, "uno-window")[0]["open"] is False
    assert say(r, "ben", "catch", target="ann")["error"] == "no-catch"


def test_uno_call_that_does_not_count():
    r = table()
    assert say(r, "ann", "uno")["error"] == "no-uno"      # 7 cards
    set_hands(r, ben=2)
    assert say(r, "ben", "uno")["error"] == "no-uno"      # not ben's turn


def test_uno_drawing_cancels_an_earlier_call():
    r = table()
    set_hands(r, ann=2)
    ok(r, "ann", "uno")
    ok(r, "ann", "draw")
    assert state(r)["uno"]["called"] == []


@pytest.mark.parametrize("auto", [False, True])
def test_auto_uno_penalty_flag(auto):
    r = table(auto_uno_penalty=auto)
    set_hands(r, ann=2)
    ok(r, "ann", "play", card="red-2")
    a = ok(r, "ben", "play", card="red-3")
    assert state(r)["uno"]["window"] is None
    if auto:
        assert find(a, "penalty") == [{"type": "penalty", "seat": "ann", "count": 2,
                                       "reason": "uno"}]
        assert state(r)["hands"]["ann"] == 3
    else:
        assert find(a, "penalty") == [] and state(r)["hands"]["ann"] == 1


# --- penalties by hand, timeouts -------------------------------------------------------------------

def test_penalty_by_hand_any_seat_any_time():
    r = table()
    a = ok(r, "cai", "penalty", target="ben", count=2)
    assert find(a, "penalty") == [{"type": "penalty", "seat": "ben", "count": 2,
                                   "reason": "table"}]
    assert state(r)["hands"]["ben"] == 9 and state(r)["turn"] == "ann"
    assert say(r, "cai", "penalty", target="nobody", count=2)["error"] == "unknown-seat"
    assert say(r, "cai", "penalty", target="ben", count=0)["error"] == "bad-input"


@pytest.mark.parametrize("action", ["pass", "warn"])
def test_timeout_action_flag(action):
    r = table(timeout_action=action)
    assert say(r, "ben", "timeout")["error"] == "not-your-turn"
    a = ok(r, "ann", "timeout")
    assert find(a, "timeout") == [{"type": "timeout", "seat": "ann", "action": action}]
    s = state(r)
    if action == "pass":
        assert (s["hands"]["ann"], s["turn"]) == (8, "ben")
    else:
        assert (s["hands"]["ann"], s["turn"]) == (7, "ann")


def test_timeout_after_drawing_only_passes():
    r = table()
    ok(r, "ann", "draw")
    ok(r, "ann", "timeout")
    assert (state(r)["hands"]["ann"], state(r)["turn"]) == (8, "ben")


def test_timeout_on_a_wild_draw_accepts_it():
    r = table()
    ok(r, "ann", "play", card="wild-draw-two", color="red")
    a = ok(r, "ben", "timeout")
    assert find(a, "timeout")[0]["action"] == "accept" and state(r)["hands"]["ben"] == 9


@pytest.mark.parametrize("seconds", [0, 30])
def test_turn_seconds_flag(seconds):
    r = table(turn_seconds=seconds)
    assert r.game.options.turn_seconds == seconds
    a = say(r, "ann", "timeout")
    assert a["ok"] is (seconds > 0)
    if not seconds:
        assert a["error"] == "timer-off"
    legal = {x.do for x in r.game.legal_actions(r.state)}
    assert ("timeout" in legal) is (seconds > 0)


# --- end of round, scoring -------------------------------------------------------------------------

def going_out(r: Replay, by: str, card: str, **fields) -> dict:
    """``by`` (made to hold 1 card and to be on turn) plays ``card`` as the last one."""
    set_hands(r, **{by: 1})
    r.state = replace(r.state, turn=r.state.seats.index(by))
    return ok(r, by, "play", card=card, **fields)


def test_round_ends_when_a_player_plays_the_last_card():
    r = table()
    a = going_out(r, "ann", "red-2")
    assert find(a, "went-out") == [{"type": "went-out", "seat": "ann"}]
    s = state(r)
    assert s["over"] and s["winners"] == ["ann"]
    assert s["pending"] == {"what": "show", "seat": "ben", "seats": ["ben", "cai"]}
    assert say(r, "ben", "play", card="red-3")["error"] == "round-over"
    assert say(r, "ben", "penalty", target="cai", count=2)["error"] == "round-over"


def test_scores_are_credited_once_every_losing_hand_is_shown():
    r = table()
    going_out(r, "ann", "red-2")
    set_hands(r, ben=2, cai=3)
    assert say(r, "ann", "show", cards=[])["error"] == "nothing-to-show"
    assert say(r, "ben", "show", cards=["red-9"])["error"] == "hand-count"
    assert say(r, "ben", "show", cards=["red-9", "pink-3"])["error"] == "bad-card"
    a = ok(r, "ben", "show", cards=["red-9", "wild-draw-two"])
    assert find(a, "hand-shown") == [{"type": "hand-shown", "seat": "ben", "points": 59}]
    assert state(r)["scores"]["ann"] == 0
    assert say(r, "round", "round", start="red-1")["error"] == "unknown-seat"
    assert say(r, "ann", "round", start="red-1")["error"] == "hands-not-shown"
    a = ok(r, "cai", "show", cards=["blue-draw-one", "green-flip", "wild"])
    assert find(a, "won") == [{"type": "won", "seats": ["ann"], "points": 59 + 10 + 20 + 40}]
    assert find(a, "round-over")[0]["scores"] == {"ann": 129, "ben": 0, "cai": 0}
    assert state(r)["pending"] == {"what": "round", "seat": "ann"}


def test_light_points_table():
    r = table()
    going_out(r, "ann", "red-2")
    set_hands(r, ben=6, cai=1)
    ok(r, "ben", "show", cards=["red-7", "red-draw-one", "red-reverse", "red-skip", "red-flip",
                                "wild"])
    a = ok(r, "cai", "show", cards=["wild-draw-two"])
    assert find(a, "won")[0]["points"] == 7 + 10 + 20 + 20 + 20 + 40 + 50


def test_dark_points_table():
    r = dark()
    going_out(r, "ben", "teal-2")
    set_hands(r, ann=6, cai=1)
    ok(r, "cai", "show", cards=["wild-draw-color"])
    a = ok(r, "ann", "show", cards=["pink-9", "pink-draw-five", "pink-reverse",
                                    "pink-skip-everyone", "pink-flip", "wild"])
    assert find(a, "won")[0]["points"] == 60 + 9 + 20 + 20 + 30 + 20 + 40


def test_shown_cards_cannot_exceed_the_deck():
    r = table()
    going_out(r, "ann", "red-2")
    set_hands(r, ben=5)
    assert say(r, "ben", "show", cards=["wild"] * 5)["error"] == "too-many-copies"


def test_going_out_on_a_draw_card_the_next_player_still_draws():
    r = table()
    a = going_out(r, "ann", "red-draw-one")
    assert find(a, "drew")[0]["seat"] == "ben" and state(r)["hands"]["ben"] == 8
    assert state(r)["pending"]["what"] == "show"


def test_going_out_on_wild_draw_two_next_draws_two_without_challenge():
    r = table()
    going_out(r, "ann", "wild-draw-two", color="red")
    assert state(r)["hands"]["ben"] == 9 and state(r)["pending"]["what"] == "show"


def test_going_out_on_wild_draw_color_next_draws_until_the_colour_then_hands_are_shown():
    r = dark()
    going_out(r, "ben", "wild-draw-color", color="pink")
    s = state(r)
    assert s["over"] and s["pending"]["what"] == "draw" and s["pending"]["seat"] == "cai"
    assert say(r, "cai", "show", cards=["pink-1"] * 7)["error"] == "draw-pending"
    ok(r, "cai", "draw", count=4)
    assert state(r)["hands"]["cai"] == 11
    assert state(r)["pending"] == {"what": "show", "seat": "ann", "seats": ["ann", "cai"]}


def test_going_out_on_a_flip_scores_on_the_side_it_turns_up():
    r = table()
    going_out(r, "ann", "red-flip")
    s = state(r)
    assert s["side"] == "dark" and s["pending"]["what"] == "show"
    set_hands(r, ben=1, cai=1)
    assert say(r, "ben", "show", cards=["red-5"])["error"] == "bad-card"
    ok(r, "ben", "show", cards=["pink-skip-everyone"])
    a = ok(r, "cai", "show", cards=["teal-1"])
    assert find(a, "won")[0]["points"] == 31


def finish_round(r: Replay, winner: str, shows: dict[str, list[str]], card="red-2") -> dict:
    going_out(r, winner, card)
    set_hands(r, **{seat: len(cards) for seat, cards in shows.items()})
    answer = None
    for seat, cards in shows.items():
        answer = ok(r, seat, "show", cards=cards)
    return answer


@pytest.mark.parametrize("scoring", ["winner-takes", "sheet"])
def test_scoring_flag(scoring):
    r = table(scoring=scoring)
    finish_round(r, "ann", {"ben": ["red-9"], "cai": ["wild"]})
    expected = {"winner-takes": {"ann": 49, "ben": 0, "cai": 0},
                "sheet": {"ann": 49, "ben": -9, "cai": -40}}[scoring]
    assert state(r)["scores"] == expected


@pytest.mark.parametrize("target", [40, 500])
def test_target_flag_first_to_target_wins_the_match(target):
    r = table(target=target)
    a = finish_round(r, "ann", {"ben": ["red-9"], "cai": ["wild"]})
    if target == 40:
        assert find(a, "match-over") == [{"type": "match-over", "champions": ["ann"]}]
        s = state(r)
        assert s["champions"] == ["ann"] and s["pending"] is None
        assert say(r, "ann", "round", start="red-1")["error"] == "match-over"
        assert list(r.game.legal_actions(r.state)) == []
    else:
        assert state(r)["champions"] == [] and find(a, "match-over") == []


def test_sheet_match_ends_when_anyone_reaches_target_highest_total_wins():
    r = table(scoring="sheet", target=60)
    finish_round(r, "ben", {"ann": ["red-9"], "cai": ["wild"]}, card="red-2")
    assert state(r)["champions"] == []
    ok(r, "ben", "round", start="blue-5")  # ann to play
    finish_round(r, "ann", {"ben": ["blue-9"], "cai": ["blue-8"]}, card="blue-2")
    s = state(r)
    assert s["scores"] == {"ann": -9 + 17, "ben": 49 - 9, "cai": -40 - 8}
    assert s["champions"] == []
    ok(r, "ann", "round", start="blue-5")
    finish_round(r, "ben", {"ann": ["wild"], "cai": ["blue-1"]}, card="blue-2")
    assert state(r)["scores"]["ben"] == 40 + 41 and state(r)["champions"] == ["ben"]


def test_rounds_flag_ends_the_match_after_the_agreed_rounds():
    r = table(scoring="sheet", rounds=1)
    finish_round(r, "ann", {"ben": ["red-9"], "cai": ["wild"]})
    assert state(r)["champions"] == ["ann"]


def test_next_round_the_winner_deals():
    r = table()
    finish_round(r, "ben", {"ann": ["red-9"], "cai": ["wild"]})
    assert say(r, "ben", "round", start="red-1", dealer="cai")["error"] == "wrong-dealer"
    assert say(r, "ann", "round", start="red-1")["error"] == "not-your-turn"
    assert say(r, "ben", "round", start="pink-1")["error"] == "bad-card"
    assert say(r, "ben", "round")["error"] == "bad-input"
    a = ok(r, "ben", "round", start="green-4")
    assert find(a, "round")[0] == {"type": "round", "round": 2, "dealer": "ben",
                                   "start": "green-4"}
    s = state(r)
    assert (s["dealer"], s["turn"], s["round"], s["top"], s["over"]) == ("ben", "cai", 2,
                                                                         "green-4", False)
    assert s["hands"] == {"ann": 7, "ben": 7, "cai": 7} and s["scores"]["ben"] == 49
    assert s["winners"] == [] and conserved(r)


def test_next_round_dealer_may_be_named():
    r = table()
    finish_round(r, "ben", {"ann": ["red-9"], "cai": ["wild"]})
    ok(r, "ben", "round", start="green-4", dealer="ben")


# --- legal actions ---------------------------------------------------------------------------------

def test_legal_actions_list_every_matching_face_and_each_colour_for_wilds():
    r = table()
    plays = [a for a in r.game.legal_actions(r.state) if a.do == "play"]
    names = {(a.card.name, a.color) for a in plays}
    assert ("red-9", None) in names and ("blue-5", None) in names
    assert ("blue-6", None) not in names
    assert {c for n, c in names if n == "wild"} == {"red", "yellow", "green", "blue"}
    assert all(a.by == "ann" for a in plays)
    dos = {a.do for a in r.game.legal_actions(r.state)}
    assert {"play", "draw", "penalty", "timeout"} <= dos and "pass" not in dos


def test_legal_actions_every_one_is_accepted():
    for r in (table(), flipped(), dark(), table(start="wild"), table(start="wild-draw-two")):
        for action in r.game.legal_actions(r.state):
            assert r.game.apply(r.state, action).ok, action


def test_legal_actions_challenge_reveal_and_show():
    r = table()
    ok(r, "ann", "play", card="wild-draw-two", color="red")
    got = {(a.do, getattr(a, "verdict", None)) for a in r.game.legal_actions(r.state)
           if a.by == "ben" and a.do != "penalty"}
    assert got >= {("accept", None), ("challenge", "guilty"), ("challenge", "innocent")}
    r = flipped()
    reveals = {a.card.name for a in r.game.legal_actions(r.state) if a.do == "reveal"}
    assert reveals == {"pink-2", "teal-5"}
    r = table()
    going_out(r, "ann", "red-2")
    shows = [a for a in r.game.legal_actions(r.state) if a.do == "show"]
    assert shows and all(len(a.cards) == 7 for a in shows)
    assert {a.by for a in shows} == {"ben", "cai"}


def test_legal_actions_uno_and_catch_only_when_they_count():
    r = table()
    assert not [a for a in r.game.legal_actions(r.state) if a.do in ("uno", "catch")]
    set_hands(r, ann=2)
    assert [a.by for a in r.game.legal_actions(r.state) if a.do == "uno"] == ["ann"]
    ok(r, "ann", "play", card="red-2")
    legal = [(a.do, a.by) for a in r.game.legal_actions(r.state) if a.do in ("uno", "catch")]
    assert sorted(legal) == [("catch", "ben"), ("catch", "cai"), ("uno", "ann")]


def test_flip_reveal_of_a_face_whose_other_copy_lies_open():
    """Both red-flips on the pile: the one at the bottom may still be revealed."""
    r = table()
    for by, flip, face in (("ann", "red-flip", "teal-5"), ("ben", "teal-flip", "red-flip"),
                           ("cai", "red-flip", "teal-flip"), ("ann", "teal-flip", "red-flip")):
        ok(r, by, "play", card=flip)
        ok(r, by, "reveal", card=face)
    s = state(r)
    assert (s["side"], s["top"], s["turn"]) == ("light", "red-flip", "ben") and conserved(r)
    assert say(r, "ben", "play", card="red-flip")["error"] == "too-many-copies"
