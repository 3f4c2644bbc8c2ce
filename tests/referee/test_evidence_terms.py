"""The referee's evidence terms, each a pure function, checked on hand-made readings: what each
measures and the way it turns as its input crosses the line."""

from __future__ import annotations

import dataclasses
import math

from companion.engine.actions import action_from_json
from companion.reading import LookChange, PawnReading, Reach, RegionReading, TableReading
from companion.referee import arms, evidence
from companion.referee.evidence import Sight
from companion.referee.expected import Expected, pawn_hidden_cells
from companion.referee.hands import seating_of
from companion.tuning import default

T = default().referee
MARGIN = math.log(T.margin_ratio)
#: the pile as the referee remembers it: its red-5, whose look had the id 1
LOOKS = {"discard": ("red-5", 1)}
SEATING = seating_of({"setup": {"game": "classic", "seats": ["ann", "ben", "cai"]},
                      "seating": {"ann": "south", "ben": "west", "cai": "north"}})


def play(card, by="ann", cell=None):
    data = {"by": by, "do": "play", "card": card}
    if cell is not None:
        data["cell"] = list(cell)
    return action_from_json(data)


def pile(probs, *, apart=None, smear_free=None, look_id=2, since=1, agreed=True, reaches=(), seq=2,
         pawn=None):
    """A reading of the pile, read on look ``look_id``, ``apart`` from the look ``since`` (as it
    is; ``smear_free``: with a turned smear taken out, default the same) as the reader measured."""
    change = LookChange(since, apart, apart if smear_free is None else smear_free) if apart is not None else None
    got = RegionReading.of(probs, agreed=agreed, look_id=look_id if apart is not None or look_id == since else None)
    return TableReading(seq, 0.0, (), dataclasses.replace(got, look_change=change),
                        pawn or PawnReading(None, None, False), changed=("discard",), reaches=tuple(reaches))


def grid(probs=None, *, changed=(), pawn=None, reaches=()):
    probs = probs or {}
    pawn = pawn or PawnReading((2, 2))
    cells = tuple(RegionReading.of(probs.get(f"cell-{r}-{c}", {"red-1": 0.999}))
                  for r in range(5) for c in range(5))
    return TableReading(2, 0.0, cells, RegionReading.of({"empty": 0.999}), pawn, 0, tuple(changed),
                        reaches=tuple(reaches))


ON_RED_5 = Expected({"discard": "red-5"})


def sight(reading, *, arms_left=None, looks=None):
    return Sight(reading, tuple(reading.reaches if arms_left is None else arms_left), looks or {}, T)


# --- one region's read ---------------------------------------------------------------------------

def test_a_play_is_plausible_only_near_the_best_read_and_clear_of_no_card():
    near = RegionReading.of({"red-7": 0.55, "red-1": 0.40, "empty": 0.05})
    assert evidence.plausible_play(near, play("red-1"), MARGIN)
    # a legal card at 1 % beside an illegal one at 94 %
    far = RegionReading.of({"blue-9": 0.94, "red-1": 0.01, "empty": 0.05})
    assert not evidence.plausible_play(far, play("red-1"), MARGIN)
    # a card and no card at even odds is no read of either
    even = RegionReading.of({"red-1": 0.45, "empty": 0.40, "red-2": 0.15})
    assert not evidence.plausible_play(even, play("red-1"), MARGIN)
    # nor beside an illegal card read about as likely
    assert not evidence.plausible_play(near, play("red-7"), MARGIN, illegal=0.45)


def test_no_card_is_the_likeliest_of_the_no_card_labels():
    assert evidence.no_card(RegionReading.of({"red-1": 0.5, "empty": 0.3, "back": 0.2})) == 0.3


def test_a_card_read_as_no_card_well_above_any_card_is_bare():
    diffs = {"discard": "empty"}
    assert evidence.bare(diffs, ON_RED_5, pile({"empty": 0.93, "red-5": 0.05}), MARGIN) == {"discard"}
    assert evidence.bare(diffs, ON_RED_5, pile({"empty": 0.6, "red-5": 0.3}), MARGIN) == set()
    # where the state has no card, no card read is no evidence of a hidden card
    assert evidence.bare(diffs, Expected({"discard": "empty"}), pile({"empty": 0.99}), MARGIN) == set()


def test_clear_needs_agreement_and_the_named_confidence():
    assert evidence.clear(RegionReading.of({"red-1": T.named_confidence}))
    assert not evidence.clear(RegionReading.of({"red-1": T.named_confidence - 0.01, "red-2": 0.01}))
    assert not evidence.clear(RegionReading.of({"red-1": 0.99}, agreed=False))
    assert not evidence.clear(None)


def test_a_formless_read_shows_no_card_or_no_face_at_even_odds():
    assert evidence.formless(RegionReading.of({"empty": 0.6, "red-1": 0.4}))
    assert evidence.formless(RegionReading.of({"red-1": 0.45, "red-2": 0.35, "red-3": 0.2}))
    assert not evidence.formless(RegionReading.of({"red-1": 0.64, "red-2": 0.36}))
    assert not evidence.formless(RegionReading.of({"empty": 0.99}))  # (a clear read is a read)


def test_legal_mass_counts_every_legal_label_and_the_states_card():
    got = RegionReading.of({"blue-9": 0.80, "red-7": 0.06, "red-5": 0.04})
    assert math.isclose(evidence.legal_mass(got, [play("red-7")], "discard", ON_RED_5), 0.10)
    # a legal card the read leaves out is counted as likely as the least listed one (the
    # probability left over allowing)
    assert math.isclose(evidence.legal_mass(got, [play("green-5")], "discard", ON_RED_5), 0.04 + 0.04)


def test_most_card_regions_read_again_is_a_whole_table_read_again():
    cells = {f"cell-{r}-{c}": "red-1" for r in range(5) for c in range(5)}
    expected = Expected(cells)
    many = grid(changed=[f"cell-{i // 5}-{i % 5}" for i in range(14)])
    few = grid(changed=[f"cell-0-{c}" for c in range(5)])
    assert evidence.read_again_whole(many, expected) and not evidence.read_again_whole(few, expected)
    # a pile game's one or two regions are never a whole table
    assert not evidence.read_again_whole(pile({"red-5": 0.9}), ON_RED_5)


def test_a_cell_reading_no_card_beside_a_new_card_is_spilled_over():
    diffs = {"cell-1-1": "blue-7", "cell-1-2": "empty", "cell-4-4": "empty"}
    assert evidence.spill_over(diffs) == {"cell-1-2"}
    assert evidence.spill_over({"cell-3-3": "empty"}, played=["cell-3-4"]) == {"cell-3-3"}


def test_the_cell_the_pawn_just_left_is_uncovered():
    assert evidence.uncovered((2, 2), (2, 3)) == "cell-2-2"
    assert evidence.uncovered((2, 2), (2, 2)) is None and evidence.uncovered(None, (1, 1)) is None


def test_an_answer_shows_more_when_another_card_is_read_clearly_on_top():
    reading = pile({"blue-9": 0.95, "red-7": 0.05})
    assert evidence.shows_more(reading, play("red-7"), "discard", MARGIN, T.expected_odds)
    unsure = pile({"blue-9": 0.55, "red-7": 0.45})
    assert not evidence.shows_more(unsure, play("red-7"), "discard", MARGIN, T.expected_odds)
    assert not evidence.shows_more(reading, None, "discard", MARGIN, T.expected_odds)


def test_an_answered_step_leads_further_when_the_marker_is_seen_elsewhere():
    step = action_from_json({"by": "north", "do": "move", "to": [2, 3]})
    assert evidence.leads_further(grid(pawn=PawnReading((2, 4))), step)
    assert not evidence.leads_further(grid(pawn=PawnReading((2, 3))), step)
    assert not evidence.leads_further(grid(pawn=PawnReading(None, None, False)), step)


def test_the_cells_by_a_hidden_pawn_are_held():
    expected = Expected({}, pawn=(0, 0))
    assert pawn_hidden_cells(expected, grid(pawn=PawnReading(None, None, False))) == {
        "cell-0-0", "cell-0-1", "cell-1-0", "cell-1-1"}
    assert pawn_hidden_cells(expected, grid(pawn=PawnReading((0, 0)))) == set()


# --- the arms over a region ----------------------------------------------------------------------

def test_arms_over_a_region_short_of_it_and_no_hand_over_it():
    over_pile = Reach("south", ("discard",))
    s = sight(pile({"red-5": 0.9}, reaches=[over_pile]))
    assert evidence.arm_over(s, "discard") and not evidence.no_hand_over(s, "discard")
    assert evidence.no_hand_over(s, "draw-pile")
    s = sight(pile({"red-5": 0.9}, reaches=[Reach("west", ("draw-pile",))]))
    assert not evidence.arm_over(s, "discard") and evidence.no_hand_over(s, "discard")
    # a reading with no arms says nothing of where hands were
    assert not evidence.no_hand_over(sight(pile({"red-5": 0.9})), "discard")
    # an arm from the south seen over the cell north of (3, 3): its hand may have reached (3, 3)
    s = sight(grid(reaches=[Reach("south", ("cell-4-3",))]))
    assert evidence.arm_short_of(s, "cell-3-3") and not evidence.arm_short_of(s, "cell-2-3")


def test_a_read_still_giving_the_states_card_where_no_hand_went_is_untouched():
    elsewhere = [Reach("west", ("draw-pile",))]
    smeared = pile({"red-3": 0.37, "red-5": 0.28, "red-2": 0.35}, reaches=elsewhere)
    assert evidence.untouched(sight(smeared), {"discard": "red-3"}, ON_RED_5, MARGIN) == {"discard"}
    # a hand went there: looked at
    touched = pile({"red-3": 0.37, "red-5": 0.28, "red-2": 0.35}, reaches=[Reach("south", ("discard",))])
    assert evidence.untouched(sight(touched), {"discard": "red-3"}, ON_RED_5, MARGIN) == set()
    # another card read clearly: looked at (an arm may have been missed)
    clear = pile({"red-3": 0.97, "red-5": 0.01}, reaches=elsewhere)
    assert evidence.untouched(sight(clear), {"discard": "red-3"}, ON_RED_5, MARGIN) == set()


def test_a_region_that_looks_as_when_it_matched_the_state_looks_as_before():
    same = pile({"red-3": 0.6, "red-5": 0.4}, apart=1.0)
    assert evidence.looks_as_before(sight(same, looks=LOOKS), {"discard": "red-3"}, ON_RED_5) == {"discard"}
    # the very look it was remembered by
    very = pile({"red-3": 0.6, "red-5": 0.4}, look_id=1)
    assert evidence.looks_as_before(sight(very, looks=LOOKS), {"discard": "red-3"}, ON_RED_5) == {"discard"}
    moved = pile({"red-3": 0.6, "red-5": 0.4}, apart=12.0)
    assert evidence.looks_as_before(sight(moved, looks=LOOKS), {"discard": "red-3"}, ON_RED_5) == set()
    # apart only by a smear that turned: the smear-free distance counts
    smeared = pile({"red-3": 0.6, "red-5": 0.4}, apart=9.0, smear_free=1.5)
    assert evidence.looks_as_before(sight(smeared, looks=LOOKS), {"discard": "red-3"}, ON_RED_5) == {"discard"}
    # read clearly as another card where a hand went: two cards of a colour look alike
    clear = pile({"red-3": 0.97, "red-5": 0.01}, apart=1.0, reaches=[Reach("south", ("discard",))])
    assert evidence.looks_as_before(sight(clear, looks=LOOKS), {"discard": "red-3"}, ON_RED_5) == set()
    # a look remembered for another card says nothing of this one
    other = {"discard": ("blue-1", 1)}
    assert evidence.looks_as_before(sight(same, looks=other), {"discard": "red-3"}, ON_RED_5) == set()
    # nor does a distance the reader measured from another look than the one remembered
    elsewhere = pile({"red-3": 0.6, "red-5": 0.4}, apart=1.0, since=7)
    assert evidence.looks_as_before(sight(elsewhere, looks=LOOKS), {"discard": "red-3"}, ON_RED_5) == set()


def test_a_look_distance_is_the_plain_one_up_to_same_face_look_then_the_smear_free_one():
    near = pile({"red-5": 1.0}, apart=3.0, smear_free=1.0)
    assert evidence.look_distance(sight(near, looks=LOOKS), "discard", near.discard) == 3.0
    far = pile({"red-5": 1.0}, apart=9.0, smear_free=1.0)
    assert evidence.look_distance(sight(far, looks=LOOKS), "discard", far.discard) == 1.0
    assert evidence.look_distance(sight(far), "discard", far.discard) is None   # none remembered


def test_a_card_is_put_down_where_the_look_changed_past_the_bar_for_the_hand_seen():
    hand = pile({"empty": 0.9}, apart=12.0, reaches=[Reach("south", ("discard",))])
    assert evidence.put_down_there(sight(hand, looks=LOOKS), "discard")
    # no hand seen: only a look past new_face_look says so
    assert T.same_face_look < 12.0 < T.new_face_look < 30.0
    assert not evidence.put_down_there(sight(pile({"empty": 0.9}, apart=12.0), looks=LOOKS), "discard")
    assert evidence.put_down_there(sight(pile({"empty": 0.9}, apart=30.0), looks=LOOKS), "discard")
    same = pile({"empty": 0.9}, apart=1.0, reaches=[Reach("south", ("discard",))])
    assert not evidence.put_down_there(sight(same, looks=LOOKS), "discard")
    assert not evidence.put_down_there(sight(hand), "discard")  # (no look remembered)


def test_look_changes_measure_regions_that_still_read_the_states_card():
    reading = pile({"red-5": 0.95}, apart=12.0)
    scores, never = evidence.look_changes(sight(reading, looks=LOOKS), ["discard"], ON_RED_5, None)
    assert scores == {"discard": 12.0} and never == []
    # another card read: not a same face
    other = pile({"blue-2": 0.95, "red-5": 0.05}, apart=12.0)
    assert evidence.look_changes(sight(other, looks=LOOKS), ["discard"], ON_RED_5, None) == ({}, [])
    # never seen as the state has it: a hand over it is all there is to go on
    hand = pile({"red-5": 0.95}, apart=12.0, reaches=[Reach("south", ("discard",))])
    assert evidence.look_changes(sight(hand), ["discard"], ON_RED_5, None) == ({}, ["discard"])


# --- whose hand ----------------------------------------------------------------------------------

def test_two_arms_over_the_card_are_a_facing_pair():
    both = [Reach("south", ("discard",)), Reach("north", ("discard",))]
    assert arms.facing_pair(both, "discard", SEATING) == ("ann", "cai")
    # an arm from the facing side seen over no region counts too
    facing = [Reach("south", ("discard",)), Reach("north", ())]
    assert arms.facing_pair(facing, "discard", SEATING) == ("ann", "cai")
    assert arms.facing_pair([Reach("south", ("discard",))], "discard", SEATING) is None


def test_other_seats_arms_over_nothing_may_have_played():
    idle = [Reach("west", ()), Reach("north", ("draw-pile",))]
    assert arms.other_seats_arms(idle, "discard", "ann", SEATING) == ("ben",)
    # the acting seat's own arm was there: no other seat to suspect
    own = [Reach("south", ()), Reach("west", ())]
    assert arms.other_seats_arms(own, "discard", "ann", SEATING) == ()
    # the arm over the card came in by a side nobody sits at: every seat's arm seen
    corner = [Reach("east", ("discard",)), Reach("west", ("draw-pile",))]
    assert arms.other_seats_arms(corner, "discard", "ann", SEATING) == ("ben",)


def test_an_own_lift_beyond_what_the_rules_owe_is_the_seats_draw():
    lift = Reach("south", ("draw-pile",), 1)
    assert arms.own_lift([Reach("west", ("draw-pile",), 1), lift], "ann", SEATING, lambda s: 0) is lift
    assert arms.own_lift([lift], "ann", SEATING, lambda s: 1) is None  # the rules dealt it
    assert arms.own_lift([lift], "ben", SEATING, lambda s: 0) is None


# --- the scorer's terms --------------------------------------------------------------------------

def test_the_card_term_is_how_much_likelier_the_read_makes_the_card_than_nothing_happened():
    from companion.referee.decide import card_term
    got = RegionReading.of({"red-7": 0.8, "red-5": 0.1, "red-1": 0.1})
    assert math.isclose(card_term(got, "red-7", "red-5"), math.log(8.0))
    assert card_term(got, "red-5", "red-5") == 0.0 and card_term(got, "red-1", "red-5") == 0.0


def test_each_candidates_gain_is_the_sum_of_its_named_terms():
    from companion.referee.decide import score_actions
    reading = pile({"red-7": 0.8, "red-5": 0.1, "red-1": 0.1})
    cands = score_actions([play("red-7"), play("red-1")], ON_RED_5, reading, {"discard": "red-7"})
    assert [c.action.card.name for c in cands] == ["red-7", "red-1"]
    for c in cands:
        assert [name for name, _ in c.terms] == ["card"] and math.isclose(c.gain, sum(v for _, v in c.terms))
    step = action_from_json({"by": "north", "do": "move", "to": [2, 3]})
    seen = grid(pawn=PawnReading((2, 3)))
    (c,) = score_actions([step], Expected({}, pawn=(2, 2)), seen, {"pawn": "2,3"})
    assert c.terms == (("pawn-seen", math.log(T.pawn_ratio)),) and c.gain == math.log(T.pawn_ratio)


def _rivals(probs, actions, want="red-5"):
    from companion.referee.decide import rivals_of, score_actions
    reading = pile(probs)
    expected = Expected({"discard": want})
    here = score_actions(actions, expected, reading, {"discard": reading.discard.label})
    rivals = rivals_of(here[0], here, reading.discard, expected, "discard", math.log(T.commit_ratio), MARGIN)
    return here[0], {r.name: r for r in rivals}


def test_a_clear_play_beats_every_rival_explanation_by_its_bar():
    from companion.referee.decide import beats
    best, rivals = _rivals({"red-7": 0.95, "red-5": 0.02, "red-1": 0.02}, [play("red-7"), play("red-1")])
    assert set(rivals) == {"nothing-happened", "another-play", "no-card", "illegal-card", "best-read"}
    assert rivals["nothing-happened"].bar == math.log(T.commit_ratio) and rivals["another-play"].bar == MARGIN
    assert all(beats(best, r) for r in rivals.values())


def test_each_rival_explanation_can_stop_a_commit():
    from companion.referee.decide import beats
    # nothing happened: the state's card read about as likely
    best, rivals = _rivals({"red-7": 0.5, "red-5": 0.3, "blue-9": 0.2}, [play("red-7")])
    assert not beats(best, rivals["nothing-happened"])
    # another legal play read about as likely
    best, rivals = _rivals({"red-7": 0.5, "red-1": 0.45, "red-5": 0.01}, [play("red-7"), play("red-1")])
    assert not beats(best, rivals["another-play"]) and beats(best, rivals["nothing-happened"])
    # no card at even odds
    best, rivals = _rivals({"red-7": 0.5, "empty": 0.45, "red-5": 0.01}, [play("red-7")])
    assert not beats(best, rivals["no-card"]) and beats(best, rivals["nothing-happened"])
    # a card no legal play puts there, read about as likely, or far likelier
    best, rivals = _rivals({"red-7": 0.5, "blue-9": 0.45, "red-5": 0.01}, [play("red-7")])
    assert not beats(best, rivals["illegal-card"]) and beats(best, rivals["best-read"])
    best, rivals = _rivals({"blue-9": 0.94, "red-7": 0.05, "red-5": 0.001}, [play("red-7")])
    assert not beats(best, rivals["best-read"]) and beats(best, rivals["nothing-happened"])
