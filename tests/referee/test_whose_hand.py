"""Whose hand made each move: the camera referee reads the arms seen over the table
(``TableReading.reaches``) as seats through the table's seating, records the draws it sees,
infers the pass nobody tapped, and asks (never guesses) when the hand seen is not the hand of
the seat that must act. Each rule is tested with and without the hand evidence."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.bus import EventBus
from companion.reading import SIDES, PawnReading, Reach, RegionReading, TableReading
from companion.referee.camera import AwaitingColour, CameraReferee, NothingHappened, QuestionKind
from companion.referee.hands import seating_of
from companion.referee.table import Table
from companion.seating import SeatingError
from tests.support.looks import Looks

SEATS = ["ann", "ben", "cai"]  # round the table: ann south, ben west, cai north
CLASSIC = {"setup": {"game": "classic", "seats": SEATS, "dealer": "cai", "start": "red-5",
                     "options": {"turn_seconds": 0}}}


def pile(seq: int, card: str, *reaches: Reach, p: float = 0.999, changed=True) -> TableReading:
    """A reading of the discard pile showing ``card`` with the arms seen since the last one
    (``changed``: the pile was read again, as the reader does when it changed or a hand was
    over it)."""
    probs = {card: p} if p >= 0.999 else {card: p, "red-1": 1 - p}
    return TableReading(seq, float(seq), (), RegionReading.of(probs), PawnReading(None, None, False),
                        changed=("discard",) if changed else (), reaches=tuple(reaches))


def lift(side: str | None, n: int | None = 1) -> Reach:
    return Reach(side, ("draw",), n)


def play(side: str | None) -> Reach:
    return Reach(side, ("discard",), 0)


class Rig:
    """A table, its camera referee, the actions it took (with their source) and its questions."""

    def __init__(self, setup=CLASSIC, top="red-5"):
        self.bus = EventBus()
        self.table = Table(setup, self.bus, clock=lambda: 0.0)
        self.referee = CameraReferee(lambda: self.table, self.bus)
        self.looks = Looks(self.referee)  # the reader's look memory (hand-made looks)
        self.actions: list[tuple[str, dict]] = []       # the actions the rules took
        self.all_actions: list[tuple[str, dict]] = []   # and the refused ones (a penalty)
        self.asked: list[dict] = []
        self.bus.subscribe(self._heard, {"action"})
        self.bus.subscribe(lambda m: self.asked.append(m.data), {"confirm-needed"})
        self.seq, self.top = 1, None
        self.see(top)

    def _heard(self, m) -> None:
        self.all_actions.append((m.data["source"], m.data["action"]))
        if m.data.get("ok"):
            self.actions.append((m.data["source"], m.data["action"]))

    def looked(self, *args, **kw):
        """The referee fed :func:`_looked`'s reading, its look in the look memory."""
        return self.referee.on_reading(self.looks.pile(*_looked(*args, **kw)))

    def see(self, card: str, *reaches: Reach, p: float = 0.999):
        self.bus.join()
        changed = card != self.top or any("discard" in r.regions for r in reaches)
        self.referee.on_reading(pile(self.seq, card, *reaches, p=p, changed=changed))
        self.seq, self.top = self.seq + 1, card
        self.bus.join()

    def phone(self, action: dict):
        answer = self.table.act(action, source="phone")
        self.bus.join()
        self.referee.tick()
        self.bus.join()
        return answer

    def answer(self, choice: int):
        """The table answers through a phone: the web plays a choice's action, the referee
        only closes its question (as the live runner does)."""
        q = self.referee.question
        picked = q.choice(choice)
        if picked.action is not None:
            self.table.act(picked.action, source="phone")
        self.bus.join()
        self.referee.answer(choice, by="phone", act=False)
        self.referee.tick()
        self.bus.join()

    def done(self) -> list[str]:
        """What happened, as "source by do [card]" lines."""
        self.bus.join()
        return [" ".join([src, a["by"], a["do"]] + ([a["card"]] if "card" in a else []))
                for src, a in self.actions]

    @property
    def hands(self) -> dict[str, int]:
        return self.table.state_json()["hands"]


# --- draws seen ---------------------------------------------------------------------------------

def test_a_card_lifted_by_the_seat_on_turn_is_its_draw():
    rig = Rig()
    rig.see("red-5", lift("south"))
    assert rig.done() == ["camera ann draw"]
    assert rig.hands["ann"] == 8 and rig.table.state_json()["pending"]["what"] == "play-or-pass"


def test_without_a_lift_no_draw_is_recorded():
    rig = Rig()
    rig.see("red-5")                       # no arm at all
    rig.see("red-5", lift("south", 0))     # a hand at the pile that put the card back
    rig.see("red-5", Reach("south", ("discard",), 0))  # a hand straightening the pile
    assert rig.done() == [] and rig.referee.question is None


def test_a_lift_that_could_not_be_counted_is_asked_not_guessed():
    rig = Rig()
    rig.see("red-5", lift("south", None))
    assert rig.done() == []
    q = rig.referee.question
    assert q.kind is QuestionKind.DREW and q.seat == "ann" and q.region == "draw"
    assert [a.to_json() for a in q.actions] == [{"by": "ann", "do": "draw", "count": 1}]
    assert q.choices[-1].nothing is NothingHappened.MISREAD
    rig.answer(0)
    assert rig.done() == ["phone ann draw"] and rig.referee.question is None
    assert rig.referee.ledger.to_json() == {}  # the lift seen was that draw: nothing owed


def test_a_draw_question_is_dropped_when_the_table_moves_on():
    rig = Rig()
    rig.see("red-5", lift("south", None))
    assert rig.referee.question is not None
    rig.phone({"by": "ann", "do": "play", "card": "red-7"})
    assert rig.referee.question is None


# --- the pass nobody tapped ---------------------------------------------------------------------

def test_the_next_seat_playing_after_a_draw_seen_makes_the_pass():
    rig = Rig()
    rig.see("red-5", lift("south"))
    rig.see("red-7", play("west"))
    assert rig.done() == ["camera ann draw", "camera ann pass", "camera ben play red-7"]
    assert rig.hands == {"ann": 8, "ben": 6, "cai": 7}


def test_draw_and_next_play_in_one_reading():
    rig = Rig()
    rig.see("red-7", lift("south"), play("west"))
    assert rig.done() == ["camera ann draw", "camera ann pass", "camera ben play red-7"]


def test_the_drawer_playing_its_card_is_credited_to_the_drawer():
    rig = Rig()
    rig.see("red-5", lift("south"))
    rig.see("red-7", play("south"))
    assert rig.done() == ["camera ann draw", "camera ann play red-7"]


def test_without_hand_evidence_the_play_goes_to_the_seat_on_turn_as_before():
    rig = Rig()
    rig.see("red-5", lift("south"))
    rig.see("red-7")                      # no arm seen (or no side): today's behaviour
    rig.see("red-9", play(None))
    assert rig.done() == ["camera ann draw", "camera ann play red-7", "camera ben play red-9"]


def test_the_next_seat_drawing_after_a_draw_seen_makes_the_pass():
    rig = Rig()
    rig.see("red-5", lift("south"))
    rig.see("red-5", lift("west"))
    assert rig.done() == ["camera ann draw", "camera ann pass", "camera ben draw"]


# --- forgotten taps and out of turn -------------------------------------------------------------

def test_the_next_seat_playing_with_no_draw_seen_asks_did_ben_play_before_ann_drew():
    rig = Rig()
    rig.see("red-7", play("west"))
    assert rig.done() == []               # never credited to ann
    q = rig.referee.question
    assert (q.kind, q.seat, q.by, q.did, q.after) == (QuestionKind.OUT_OF_TURN, "ann", "ben",
                                                      "play", "drew")
    assert [a.to_json() for a in q.actions] == [
        {"by": "ann", "do": "draw", "count": 1}, {"by": "ann", "do": "play", "card": "red-7"}]
    assert q.choices[-1].nothing is NothingHappened.OUT_OF_TURN
    assert {"by": "ben", "did": "play", "after": "drew"}.items() <= rig.asked[-1].items()
    rig.answer(0)                         # no: ann drew and passed first
    assert rig.done() == ["phone ann draw", "camera ann pass", "camera ben play red-7"]
    assert rig.referee.question is None and rig.referee.ledger.to_json() == {}


def test_out_of_turn_answered_yes_credits_nobody():
    rig = Rig()
    rig.see("red-7", play("west"))
    rig.answer(len(rig.referee.question.choices) - 1)   # yes: ben takes it back
    rig.see("red-5")
    assert rig.done() == [] and rig.table.state_json()["turn"] == "ann"


def test_out_of_turn_answered_it_was_the_seat_on_turn():
    rig = Rig()
    rig.see("red-7", play("west"))
    rig.answer(1)                                       # it was ann's card after all
    assert rig.done() == ["phone ann play red-7"]


def test_a_hand_across_the_table_asks_without_the_draw_choice():
    rig = Rig()
    rig.see("red-7", play("north"))       # cai is not next after ann
    q = rig.referee.question
    assert (q.by, q.after) == ("cai", "turn")
    assert [a.to_json()["do"] for a in q.actions] == ["play"]
    assert rig.done() == []


def test_an_illegal_card_from_another_hand_is_no_penalty_on_the_seat_on_turn():
    rig = Rig()
    rig.see("blue-9", play("west"))
    assert rig.done() == [] and rig.hands == {"ann": 7, "ben": 7, "cai": 7}
    assert rig.referee.question.kind is QuestionKind.OUT_OF_TURN
    # the same card by ann's own hand is called on ann, as before
    rig = Rig()
    rig.see("blue-9", play("south"))
    assert rig.hands["ann"] == 9 and rig.referee.stats["illegal"] == 1


def test_the_next_seat_drawing_with_no_draw_seen_is_asked():
    rig = Rig()
    rig.see("red-5", lift("west"))
    q = rig.referee.question
    assert (q.kind, q.seat, q.by, q.did) == (QuestionKind.OUT_OF_TURN, "ann", "ben", "draw")
    assert rig.done() == []
    rig.answer(0)                          # it was ann who drew
    assert rig.done() == ["phone ann draw"] and rig.referee.ledger.to_json() == {}


# --- shared and unknown sides: weak evidence ----------------------------------------------------

FIVE = {"setup": {"game": "classic", "seats": ["a", "b", "c", "d", "e"], "dealer": "e",
                  "start": "red-5", "options": {"turn_seconds": 0}}}


def test_a_side_shared_with_the_seat_on_turn_credits_it_as_before():
    rig = Rig(FIVE)                        # a and b share the south side
    rig.see("red-7", play("south"))
    assert rig.done() == ["camera a play red-7"]
    rig.see("red-7", lift("south"))        # b (on turn) at the shared side: b's draw
    assert rig.done()[-1] == "camera b draw"


def test_a_shared_side_without_the_seat_on_turn_credits_nobody():
    rig = Rig(FIVE)                        # c and d sit west
    rig.see("red-7", play("west"))
    assert rig.done() == [] and rig.referee.question.kind is QuestionKind.OUT_OF_TURN
    rig = Rig(FIVE)
    rig.see("red-5", lift("west"))         # whose lift it was cannot be told: nothing
    assert rig.done() == [] and rig.referee.question is None


# --- a phone tap and a camera sighting of the same draw -----------------------------------------

def test_phone_then_camera_counts_the_draw_once():
    rig = Rig()
    rig.phone({"by": "ann", "do": "draw"})
    rig.see("red-5", lift("south"))
    assert rig.done() == ["phone ann draw"] and rig.hands["ann"] == 8
    assert rig.referee.ledger.to_json() == {}


def test_camera_then_phone_counts_the_draw_once():
    rig = Rig()
    rig.see("red-5", lift("south"))
    answer = rig.phone({"by": "ann", "do": "draw"})
    assert not answer.ok and answer.error == "play-or-pass-pending"
    assert rig.done() == ["camera ann draw"] and rig.hands["ann"] == 8


def test_a_second_card_lifted_after_a_phone_draw_is_not_a_second_draw():
    rig = Rig()
    rig.phone({"by": "ann", "do": "draw"})
    rig.see("red-5", lift("south", 2))
    assert rig.done() == ["phone ann draw"] and rig.hands["ann"] == 8


# --- draws the rules impose ---------------------------------------------------------------------

def test_a_penalty_taken_is_no_draw_and_no_question():
    rig = Rig()
    rig.see("red-draw-two", play("south"))   # ben draws 2 and is skipped: cai's turn
    assert rig.hands["ben"] == 9
    rig.see("red-draw-two", lift("west", 2))
    assert rig.referee.question is None and rig.done() == ["camera ann play red-draw-two"]
    rig.see("red-draw-two", lift("north"))   # cai's own draw
    assert rig.done()[-1] == "camera cai draw"


def test_without_the_ledger_a_penalty_lift_would_be_out_of_turn():
    # the penalty is counted: more than it, by the same hand, is asked about
    rig = Rig()
    rig.see("red-draw-two", play("south"))
    rig.see("red-draw-two", lift("west", 3))
    assert rig.referee.question.kind is QuestionKind.OUT_OF_TURN
    assert rig.referee.question.by == "ben" and rig.hands["ben"] == 9


FLIP = {"setup": {"game": "flip", "seats": SEATS, "dealer": "cai", "start": "red-5",
                  "options": {"turn_seconds": 0}}}


def _draw_color_rig() -> Rig:
    """A flip table where cai must draw until teal (ben's wild draw colour, accepted)."""
    rig = Rig(FLIP)
    t = rig.table
    assert t.act({"by": "ann", "do": "play", "card": "red-flip"}).ok
    reveal = next(a for a in t.legal_actions() if a.do == "reveal" and not a.card.is_wild)
    assert t.act(reveal).ok
    assert t.act({"by": "ben", "do": "play", "card": "wild-draw-color", "color": "teal"}).ok
    assert t.act({"by": "cai", "do": "accept"}).ok
    rig.bus.join()
    rig.referee.tick()
    rig.actions.clear()
    rig.see("wild-draw-color")
    return rig


def test_the_draw_until_colour_count_is_the_cards_seen_lifted():
    rig = _draw_color_rig()
    before = rig.hands["cai"]
    rig.see("wild-draw-color", lift("north"))
    rig.see("wild-draw-color", lift("north"), lift("north"))
    assert rig.done() == []                 # still drawing: the count closes when ann plays
    rig.see("teal-3", play("south"))
    assert rig.done() == ["camera cai draw", "camera ann play teal-3"]
    assert rig.actions[0][1]["count"] == 3 and rig.hands["cai"] == before + 3


def test_an_uncounted_lift_leaves_the_count_to_the_phone():
    rig = _draw_color_rig()
    rig.see("wild-draw-color", lift("north"), lift("north", None))
    rig.see("teal-3", play("south"))
    assert rig.done() == []                 # the phone enters it (its own prompt)
    rig.phone({"by": "cai", "do": "draw", "count": 4})
    assert rig.done() == ["phone cai draw", "camera ann play teal-3"]


def test_a_phone_count_before_the_camera_closes_it_wins():
    rig = _draw_color_rig()
    rig.see("wild-draw-color", lift("north"), lift("north"))
    rig.phone({"by": "cai", "do": "draw", "count": 2})
    rig.see("teal-3", play("south"))
    assert rig.done() == ["phone cai draw", "camera ann play teal-3"]
    assert rig.referee.ledger.to_json() == {}


# --- the grid game: sides are seats -------------------------------------------------------------

def test_grid_seats_sit_at_their_own_sides():
    from tests.support.readings import SETUP, GRID, reading, with_cell
    bus = EventBus()
    table = Table(SETUP, bus, clock=lambda: 0.0)
    assert table.seating.side_of("north") == "north"
    referee = CameraReferee(lambda: table, bus)
    referee.on_reading(reading(GRID, seq=1))
    r = reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0",))
    referee.on_reading(TableReading(r.seq, r.time, r.cells, r.discard, r.pawn, 0, r.changed,
                                    reaches=(Reach("south", ("cell-0-0",), 0),)))
    assert table.actions_taken() == [] and referee.question.kind is QuestionKind.OUT_OF_TURN
    assert referee.question.by == "south" and referee.question.seat == "north"


# --- the seating of a table ---------------------------------------------------------------------

def test_seating_defaults_and_checks():
    assert seating_of(CLASSIC).to_json() == {"ann": "south", "ben": "west", "cai": "north"}
    given = {**CLASSIC, "seating": {"ann": "north", "ben": "north", "cai": "east"}}
    assert Table(given, EventBus()).seating.seats_at("north") == ("ann", "ben")
    for bad, words in [({"ann": "up", "ben": "west", "cai": "north"}, "no such side"),
                       ({"ann": "south"}, "no side to 'ben'"),
                       ({"ann": "south", "ben": "west", "cai": "north", "dan": "east"},
                        "'dan', who is not a seat"),
                       (["south"], "must be an object")]:
        with pytest.raises(SeatingError, match=words):
            Table({**CLASSIC, "seating": bad}, EventBus())


def test_a_seating_given_moves_whose_hand_is_whose():
    # ben sits south with ann: ben's arm from the south is weak evidence, ann's play stands
    rig = Rig({**CLASSIC, "seating": {"ann": "south", "ben": "south", "cai": "north"}})
    rig.see("red-7", play("south"))
    assert rig.done() == ["camera ann play red-7"]
    rig = Rig({**CLASSIC, "seating": {"ann": "east", "ben": "west", "cai": "north"}})
    rig.see("red-7", play("south"))       # nobody sits south: no evidence, as before
    assert rig.done() == ["camera ann play red-7"]


def test_a_tapped_draw_seen_late_is_neither_a_draw_nor_out_of_turn():
    # ann taps draw and pass; the camera's reading with her arm at the pile comes after that
    rig = Rig()
    rig.phone({"by": "ann", "do": "draw"})
    rig.phone({"by": "ann", "do": "pass"})
    rig.see("red-5", lift("south"))
    assert rig.referee.question is None
    assert rig.done() == ["phone ann draw", "phone ann pass"]


# --- the property: no play credited to a seat whose side did not reach when another's did ---------

CARDS = ["red-7", "red-9", "blue-7", "blue-9", "green-7", "yellow-3", "red-skip",
         "red-draw-two", "red-reverse", "wild", "wild-draw-four"]
PHONE_DOES = {"draw", "pass", "accept", "challenge", "declare", "reveal", "uno"}
any_side = st.sampled_from([*SIDES, None])


@st.composite
def tables(draw):
    n = draw(st.integers(2, 5))
    seats = [f"p{i}" for i in range(n)]
    setup = {"setup": {"game": "classic", "seats": seats, "dealer": seats[-1], "start": "red-5",
                       "options": {"turn_seconds": 0}}}
    if draw(st.booleans()):
        setup["seating"] = {s: draw(st.sampled_from(SIDES)) for s in seats}
    return setup


def reaches(over_discard: bool):
    regions = (st.sampled_from([("discard",), ("draw", "discard"), ("discard", "draw")])
               if over_discard else st.just(("draw",)))
    one = st.builds(Reach, any_side, regions, st.sampled_from([0, 1, 1, 2, None]))
    other = st.builds(Reach, any_side, st.just(("draw",)), st.sampled_from([0, 1, None]))
    return st.lists(st.one_of(one, other), min_size=0, max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=tables(), data=st.data())
def test_no_play_is_credited_to_a_seat_whose_side_did_not_reach_when_another_did(setup, data):
    rig = Rig(setup)
    seating = rig.table.seating
    top, evidence, checked = "red-5", set(), 0
    for _ in range(data.draw(st.integers(5, 25), label="steps")):
        step = data.draw(st.sampled_from(["play", "play", "draw", "phone", "answer"]))
        if step == "play":
            top = data.draw(st.sampled_from([c for c in CARDS if c != top]))
            arms = data.draw(reaches(True))
            # the sides of the seats seen over the card now lying there
            evidence = {r.side for r in arms if "discard" in r.regions and seating.seats_at(r.side)}
            rig.see(top, *arms)
        elif step == "draw":
            rig.see(top, *data.draw(reaches(False)))
        elif step == "phone":
            acts = [a for a in rig.table.legal_actions() if a.do in PHONE_DOES]
            if acts:
                rig.phone(data.draw(st.sampled_from(acts)).to_json())
        elif rig.referee.question is not None:
            rig.answer(data.draw(st.integers(0, len(rig.referee.question.choices) - 1)))
        rig.bus.join()
        credited = [a for src, a in rig.all_actions[checked:] if src == "camera" and a["do"] == "play"]
        checked = len(rig.all_actions)
        for a in credited:
            if evidence:
                assert seating.side_of(a["by"]) in evidence, (a, evidence)


def test_after_a_draw_a_shared_side_makes_the_pass_but_calls_no_penalty():
    # a, b sit south; c, d west. b drew; a card from the west: c (next) played it
    rig = Rig(FIVE)
    rig.see("red-7", play("south"))          # a
    rig.see("red-7", lift("south"))          # b draws
    rig.see("red-9", play("west"))
    assert rig.done()[-3:] == ["camera b draw", "camera b pass", "camera c play red-9"]
    # an illegal card from the shared west side: c or d? no penalty on a guess
    rig = Rig(FIVE)
    rig.see("red-7", play("south"))
    rig.see("red-7", lift("south"))
    rig.see("blue-2", play("west"))
    assert rig.done() == ["camera a play red-7", "camera b draw"]
    assert rig.referee.question.kind is QuestionKind.OUT_OF_TURN
    assert rig.hands == {"a": 6, "b": 8, "c": 7, "d": 7, "e": 7}


def test_a_draw_seen_after_the_next_seats_play_in_one_reading_still_comes_first():
    # two arms at once: ben's card came in before ann's arm at the pile was done
    rig = Rig()
    rig.see("red-7", play("west"), lift("south"))
    assert rig.done() == ["camera ann draw", "camera ann pass", "camera ben play red-7"]
    assert rig.referee.question is None and rig.referee.ledger.to_json() == {}
    # no lift of ann's among them: asked, as before
    rig = Rig()
    rig.see("red-7", play("west"), lift("north"))
    assert rig.done() == [] and rig.referee.question.kind is QuestionKind.OUT_OF_TURN


def test_the_next_seats_tap_refused_after_a_draw_seen_makes_the_pass():
    # ann drew (seen) and kept her card without a tap; ben taps his own draw on his phone
    rig = Rig()
    rig.see("red-5", lift("south"))
    answer = rig.phone({"by": "ben", "do": "draw"})
    assert not answer.ok and answer.error == "not-your-turn"
    assert rig.done() == ["camera ann draw", "camera ann pass", "phone ben draw"]
    # with no draw of ann's seen, ben's tap stays refused: nothing is inferred
    rig = Rig()
    assert not rig.phone({"by": "ben", "do": "draw"}).ok
    assert rig.done() == [] and rig.table.state_json()["turn"] == "ann"


# --- misattributions met in the no-taps torture runs (benchmarks/table_torture.py) --------------

def _cai_drew(rig: Rig) -> Rig:
    """ann and ben played; cai took a card (seen): cai must play it or pass."""
    rig.see("red-7", play("south"))
    rig.see("red-9", play("west"))
    rig.see("red-9", lift("north"))
    assert rig.done() == ["camera ann play red-7", "camera ben play red-9", "camera cai draw"]
    return rig


def test_the_draw_until_colour_count_closes_when_the_next_seat_draws():
    # (flip) cai counted 3 cards, then ann (next) drew one; no card was played between
    rig = _draw_color_rig()
    before = rig.hands["cai"]
    rig.see("wild-draw-color", lift("north"), lift("north"), lift("north"))
    rig.see("wild-draw-color", lift("south"))
    assert rig.done() == ["camera cai draw", "camera ann draw"]
    assert rig.actions[0][1]["count"] == 3 and rig.hands["cai"] == before + 3
    # without another seat's lift the count stays open (cai may still be drawing)
    rig = _draw_color_rig()
    rig.see("wild-draw-color", lift("north"), lift("north"))
    rig.see("wild-draw-color", lift("north"))
    assert rig.done() == []


FACING_SWAP = (Reach("north", (), 0), Reach("south", ("discard",), 0))  # as the camera read it


def test_facing_arms_read_swapped_ask_when_either_seat_may_have_played():
    # (classic) cai (north, in play-or-pass) played yellow 5 while ann (south) reached to
    # the draw pile along the same line; the camera put the discard under ann's arm. ann may
    # also have played after cai's untapped pass: asked, credited to neither on a guess
    for choice, then in ((1, ["phone cai play red-2"]), (0, ["phone cai pass", "camera ann play red-2"])):
        rig = _cai_drew(Rig())
        rig.see("red-2", *FACING_SWAP)
        q = rig.referee.question
        assert q.kind is QuestionKind.OUT_OF_TURN and q.seat == "cai"
        assert [a.to_json() for a in q.actions] == [
            {"by": "cai", "do": "pass"}, {"by": "cai", "do": "play", "card": "red-2"}]
        assert len(rig.done()) == 3
        rig.answer(choice)
        assert rig.done()[3:] == then
    # the north arm over a region of its own: the south arm's play is ann's (pass inferred)
    rig = _cai_drew(Rig())
    rig.see("red-2", Reach("north", ("draw",), 0), Reach("south", ("discard",), 0))
    assert rig.done()[3:] == ["camera cai pass", "camera ann play red-2"]


def test_facing_arms_read_swapped_make_the_pass_when_only_the_next_seat_fits():
    # (classic) ben (west) drew; cai (north) played while ann (south) reached to the pile.
    # ben's arm is not there: the card is the next seat's (cai's) after ben's untapped pass
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-7", lift("west"))
    rig.see("red-9", *FACING_SWAP)
    assert rig.done() == ["camera ann play red-7", "camera ben draw", "camera ben pass",
                          "camera cai play red-9"]
    # ann's arm alone over the card: ann is not next after ben's pass: asked, never credited
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-7", lift("west"))
    rig.see("red-9", play("south"))
    assert rig.done() == ["camera ann play red-7", "camera ben draw"]
    assert rig.referee.question.kind is QuestionKind.OUT_OF_TURN


def test_facing_arms_with_the_seat_on_turn_among_them_credit_its_play():
    # ann on turn; cai's arm (north) over nothing, ann's over the card: ann's play stands
    rig = Rig()
    rig.see("red-7", *FACING_SWAP)
    assert rig.done() == ["camera ann play red-7"]
    # and read the other way round (ann's arm over nothing, cai's over the card) too
    rig = Rig()
    rig.see("red-7", Reach("south", (), 0), Reach("north", ("discard",), 0))
    assert rig.done() == ["camera ann play red-7"]


def test_a_same_face_after_an_untapped_pass_is_asked_as_the_next_seats():
    # (flip) ann drew and passed untapped; ben put a red 5
    # on the red 5 (same face, a new look): the question is ben's, after ann's pass
    rig = Rig()
    rig.looked(1, "red-5", 0)
    rig.looked(2, "red-5", 0, lift("south"))
    rig.bus.join()
    rig.looked(3, "red-5", 60, play("west"))
    rig.bus.join()
    assert rig.done() == ["camera ann draw", "camera ann pass"]
    q = rig.referee.question
    assert q.kind is QuestionKind.SAME_FACE and q.seat == "ben"
    # no hand seen over it: the question is the seat on turn's, as before
    rig = Rig()
    rig.looked(1, "red-5", 0)
    rig.looked(2, "red-5", 0, lift("south"))
    rig.looked(3, "red-5", 60)
    rig.bus.join()
    assert rig.done() == ["camera ann draw"] and rig.referee.question.seat == "ann"


def _looked(seq: int, card: str, shade: int, *reaches: Reach, p: float = 0.999):
    """A reading of the discard pile and its look (a small grey crop): ``shade`` draws a bar at
    another place for another physical card."""
    import numpy as np

    look = np.full((24, 16), 90, np.uint8)
    look[4 + shade // 10:8 + shade // 10, :] = 220
    probs = {card: p} if p >= 0.999 else {card: p, "red-1": 1 - p}
    return TableReading(seq, float(seq), (), RegionReading.of(probs),
                        PawnReading(None, None, False), changed=("discard",), reaches=tuple(reaches)), look


def test_a_wild_played_from_the_phone_while_awaited_is_no_same_face():
    # (flip) ben put a wild down and played it from his phone (its colour): the wild lying
    # there is that play, not "another wild on it"
    rig = Rig()
    rig.looked(1, "red-5", 0)
    rig.looked(2, "wild", 60, play("south"))
    rig.bus.join()
    assert rig.referee.question is None and rig.done() == []   # waiting for ann's phone
    rig.phone({"by": "ann", "do": "play", "card": "wild", "color": "blue"})
    assert rig.referee.question is None
    assert rig.done() == ["phone ann play wild"]
    # a red 5 put on a red 5 (a new look) is still asked about at once
    rig = Rig()
    rig.looked(1, "red-5", 0)
    rig.looked(2, "red-5", 60, play("south"))
    rig.bus.join()
    assert rig.referee.question.kind is QuestionKind.SAME_FACE


def test_a_wild_on_a_wild_waits_for_its_players_phone():
    # (flip) cai put a wild on the wild; his phone plays it (its colour) a moment later
    rig = Rig()
    rig.looked(1, "wild", 0)
    rig.phone({"by": "ann", "do": "play", "card": "wild", "color": "blue"})
    rig.looked(2, "wild", 60, play("west"))
    rig.bus.join()
    assert rig.referee.question is None                  # ben's phone is awaited
    rig.phone({"by": "ben", "do": "play", "card": "wild", "color": "red"})
    assert rig.referee.question is None and rig.done()[-1] == "phone ben play wild"
    # no phone before the next reading: the same face is asked after all
    rig.looked(3, "wild", 120, play("north"))
    rig.bus.join()
    assert rig.referee.question is None
    rig.looked(4, "wild", 120)
    rig.bus.join()
    q = rig.referee.question
    assert q.kind is QuestionKind.SAME_FACE and q.seat == "cai"


def test_a_wild_awaited_under_the_next_card_is_asked_its_colour_first():
    # (flip) a wild turned up by a flip lay there, its colour owed by a phone, when the next
    # player's card came: the wild is asked (its colour) before anything is made of that card
    rig = Rig()
    rig.see("wild", play("south"))
    assert rig.referee.question is None
    rig.see("red-9", play("west"))
    q = rig.referee.question
    assert q.kind is QuestionKind.COLOUR and q.seat == "ann" and rig.done() == []
    rig.answer(next(c.id for c in q.choices if c.action is not None and c.action.color == "red"))
    assert rig.done() == ["phone ann play wild"]
    assert "ann play red-9" not in " ".join(rig.done())


def test_a_wild_at_a_tenth_of_a_percent_beside_a_confident_card_is_no_colour_wait():
    # (flip) red draw one read at 97.5 %, wild draw two at 0.09 %: an illegal card (called),
    # not a wild whose colour is awaited (which left the penalty lifts to count as a draw)
    rig = Rig()
    probs = {"blue-draw-two": 0.975, "wild-draw-four": 0.0009, "blue-1": 0.0241}
    rig.referee.on_reading(TableReading(2, 2.0, (), RegionReading.of(probs), PawnReading(None, None, False),
                                        changed=("discard",), reaches=(play("south"),)))
    rig.bus.join()
    assert not isinstance(rig.referee.state, AwaitingColour)
    assert [a for src, a in rig.all_actions] == [{"by": "ann", "do": "play", "card": "blue-draw-two"}]
    # a wild read as likely as the rest is awaited as before
    rig = Rig()
    rig.see("wild-draw-four", play("south"))
    assert isinstance(rig.referee.state, AwaitingColour) and rig.done() == []


def test_a_draw_question_answered_late_keeps_the_hand_over_the_discard():
    # the known gap, found by the property above: ben's lift (count unseen) was asked; ann's
    # hand then went over the pile and put red 9 down; "yes, ben drew" came after. ann's hand
    # over the discard is still the evidence: ben's pass, then ann's play -- never ben's
    two = {"setup": {"game": "classic", "seats": ["ann", "ben"], "dealer": "ben", "start": "red-5",
                     "options": {"turn_seconds": 0}}}
    rig = Rig(two)
    rig.see("red-7")
    rig.see("red-7", lift("north", None))
    assert rig.referee.question.kind is QuestionKind.DREW
    rig.see("red-9", Reach("south", ("draw", "discard"), 0))
    rig.answer(0)
    assert "camera ben play red-9" not in rig.done()
    assert rig.done() == ["camera ann play red-7", "phone ben draw", "camera ben pass",
                          "camera ann play red-9"]


def test_two_arms_over_the_card_with_the_seat_on_turn_among_them_credit_its_play():
    # (classic) ann (on turn) played red 7 while ben's hand crossed the discard pile too
    rig = Rig()
    rig.see("red-7", play("south"), play("west"))
    assert rig.done() == ["camera ann play red-7"] and rig.referee.question is None
    # ben's hand alone over it: asked (did ben play before ann drew?), credited to nobody
    rig = Rig()
    rig.see("red-7", play("west"))
    assert rig.done() == [] and rig.referee.question.kind is QuestionKind.OUT_OF_TURN


def test_a_card_with_only_other_seats_arms_over_nothing_is_asked_not_credited_to_the_drawer():
    # (classic, real faces) ben (west) drew; cai put red 9 down from the north while ann reached
    # past from the south; the camera saw both arms but neither over the discard. ben's arm was
    # not there: asked (ben's pass first), never credited to ben
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-7", lift("west"))
    rig.see("red-9", Reach("north", (), 0), Reach("south", (), 0))
    assert rig.done() == ["camera ann play red-7", "camera ben draw"]
    q = rig.referee.question
    assert q.kind is QuestionKind.OUT_OF_TURN and q.by == "cai"
    assert [a.to_json() for a in q.actions] == [
        {"by": "ben", "do": "pass"}, {"by": "ben", "do": "play", "card": "red-9"}]
    rig.answer(0)
    # cai's arm and then ann's (who plays after cai): the card on top may be ann's, laid on
    # one of cai's: asked (tests/referee/test_card_hidden_under_the_pile.py), cai's answered
    q = rig.referee.question
    assert q.kind is QuestionKind.UNSURE and q.seat == "cai"
    rig.answer(next(c.id for c in q.choices if c.action is not None))
    assert rig.done()[2:] == ["phone ben pass", "phone cai play red-9"]
    # ben's own arm in the reading (over nothing as well): the decision stands, as before
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-7", lift("west"))
    rig.see("red-9", Reach("west", (), 0), Reach("south", (), 0))
    assert rig.done()[2:] == ["camera ben play red-9"]


# --- an answered card the camera read unsure of ----------------------------------------------------

def _unsure_pile(seq: int, probs: dict[str, float], *reaches: Reach) -> TableReading:
    return TableReading(seq, float(seq), (), RegionReading.of(probs), PawnReading(None, None, False),
                        changed=("discard",), reaches=tuple(reaches))


def test_an_answered_unsure_card_is_settled_and_the_next_card_still_read():
    """ann's red-6 read as red-3 (0.30) or red-6 (0.15): asked, answered red-6. The pile still
    reads red-3 at 0.30: that is the card answered, not a card ben laid on it (the referee
    asked ben about it: a question too many). ben's card, read surely next, is his play."""
    rig = Rig()
    unsure = {"red-3": 0.30, "red-6": 0.15, "red-8": 0.10, "red-9": 0.08}
    rig.referee.on_reading(_unsure_pile(rig.seq, unsure, play("south")))
    rig.seq += 1
    rig.bus.join()
    q = rig.referee.question
    assert q is not None and q.seat == "ann"
    rig.answer(next(c.id for c in q.choices if c.action is not None and c.action.to_json().get("card") == "red-6"))
    assert rig.done() == ["phone ann play red-6"]
    assert rig.referee.question is None and len(rig.asked) == 1
    rig.see("red-7", play("west"))
    assert rig.done() == ["phone ann play red-6", "camera ben play red-7"]
    assert len(rig.asked) == 1


def test_a_play_question_answered_leaves_the_penalty_cards_owed():
    """ann's wrong card is called (2 cards), ben is on turn; ann's hand taking her card back
    leaves a pile read unsure (a question: did ann play out of turn? no). The 2 cards she then
    takes from the draw pile are her penalty, dealt by the rules: no question (classic
    asked twice, the answer about the pile having wiped out what she owed)."""
    rig = Rig()
    rig.see("blue-9", play("south"))
    assert rig.hands["ann"] == 9 and rig.table.state_json()["turn"] == "ben"
    unsure = {"red-1": 0.30, "red-0": 0.20, "red-4": 0.15, "red-5": 0.12}
    rig.referee.on_reading(_unsure_pile(rig.seq, unsure, play("south")))
    rig.seq += 1
    rig.bus.join()
    q = rig.referee.question
    assert q is not None and q.by == "ann" and q.did == "play"
    rig.answer(len(q.choices) - 1)       # nothing was played
    rig.see("red-5")
    asked = len(rig.asked)
    rig.see("red-5", lift("south"))
    rig.see("red-5", lift("south"))
    assert len(rig.asked) == asked and rig.referee.question is None
    assert rig.done() == [] and rig.hands == {"ann": 9, "ben": 7, "cai": 7}
