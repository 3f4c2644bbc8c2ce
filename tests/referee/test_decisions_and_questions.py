"""The camera referee's decisions and questions as typed values: every decision reason, every
question kind (with its seat, region, card read and choices), the ``confirm-needed`` event that
carries the question's data (and no words), and answers by choice id."""

from __future__ import annotations

import pytest

from companion.bus import EventBus
from companion.engine.actions import action_from_json
from companion.referee.camera import (
    COLOUR_WAIT_S,
    Choice,
    Decision,
    DecisionKind,
    NothingHappened,
    Question,
    QuestionKind,
    Reason,
)
from companion.referee.table import Table
from tests.support.referee_rig import (
    CLASSIC_SETUP,
    GRID_SETUP,
    Rig,
    decide_for,
    actions_of,
    grid_reading,
    pile_reading,
    same_face_asked,
    with_cell,
)


def test_a_clear_play_is_committed_with_its_gain():
    table = Table(GRID_SETUP, EventBus())
    d = decide_for(table, grid_reading(with_cell(0, 0, "red-7")), {"cell-0-0"}, "north")
    assert (d.kind, d.reason, d.region, d.read) == (DecisionKind.COMMIT, Reason.CLEAR, "cell-0-0",
                                                    "red-7")
    assert d.gain > 5 and d.action.to_json() == {"by": "north", "do": "play", "card": "red-7",
                                                 "cell": [0, 0]}


def test_a_confident_illegal_card_is_called_and_an_unsure_one_asked():
    table = Table(GRID_SETUP, EventBus())
    d = decide_for(table, grid_reading(probs={"cell-0-0": {"blue-9": 0.999}}), {"cell-0-0"}, "north")
    assert (d.kind, d.reason, d.read) == (DecisionKind.ILLEGAL, Reason.READ_CONFIDENTLY, "blue-9")
    d = decide_for(table, grid_reading(probs={"cell-0-0": {"blue-9": 0.7, "blue-8": 0.3}}),
                {"cell-0-0"}, "north")
    assert (d.kind, d.reason, d.read) == (DecisionKind.ASK, Reason.UNSURE, "blue-9")


def test_no_card_where_one_lay_is_waited_for():
    # the pawn is lifted (a hand moves it): its cell reads empty, and no play may go there
    table = Table(GRID_SETUP, EventBus())
    d = decide_for(table, grid_reading(with_cell(2, 2, "empty"), pawn=None), {"cell-2-2"}, "north")
    assert (d.kind, d.reason, d.read, d.choices) == (DecisionKind.WAIT, Reason.NO_CARD, "empty", ())


def test_a_wild_on_the_pile_asks_its_colour():
    table = Table(CLASSIC_SETUP, EventBus())
    d = decide_for(table, pile_reading(2, {"wild": 0.999}), {"discard"}, "ann")
    assert (d.kind, d.reason, d.read) == (DecisionKind.ASK, Reason.COLOUR, "wild")
    assert sorted(a.color for a in d.choices) == ["blue", "green", "red", "yellow"]


def test_unsure_question():
    rig = Rig(GRID_SETUP)
    rig.referee.on_reading(grid_reading())
    rig.referee.on_reading(grid_reading(seq=2, changed=("cell-0-0",), probs={
        "cell-0-0": {"red-8": 0.55, "red-0": 0.40, "red-1": 0.05}}))
    q = rig.check_event()
    assert (q.kind, q.seat, q.region, q.card) == (QuestionKind.UNSURE, "north", "cell-0-0", "red-8")
    assert {a["card"] for a in actions_of(q)} >= {"red-8", "red-0"}
    assert q.choices[-1] == Choice(len(q.choices) - 1, nothing=NothingHappened.MISREAD)
    assert q.to_json()["choices"][-1] == {"id": len(q.choices) - 1, "action": None,
                                          "nothing": "misread"}
    closed = []
    rig.bus.subscribe(lambda m: closed.append(m.data), {"confirmed"})
    pick = next(c.id for c in q.choices if c.action is not None and c.action.card.name == "red-8")
    assert rig.answer(pick, by="north").ok
    assert rig.table.state_json()["grid"][0][0] == "red-8" and rig.referee.question is None
    assert closed == [{"id": q.id, "action": q.choice(pick).to_json()["action"], "by": "north",
                       "why": "answered"}]


def test_colour_question():
    # the colour is asked only when the player's phone has not given it in time
    rig = Rig(CLASSIC_SETUP)
    now = [100.0]
    rig.referee.clock = lambda: now[0]
    rig.referee.on_reading(pile_reading(1, {"red-5": 0.999}))
    rig.referee.on_reading(pile_reading(2, {"wild": 0.999}))
    rig.bus.join()
    assert rig.referee.question is None
    now[0] += COLOUR_WAIT_S
    rig.referee.tick()
    q = rig.check_event()
    assert (q.kind, q.seat, q.region, q.card) == (QuestionKind.COLOUR, "ann", "discard", "wild")
    assert {(a["card"], a["color"]) for a in actions_of(q)} == {
        ("wild", c) for c in ("red", "yellow", "green", "blue")}
    assert q.choices[-1].nothing is NothingHappened.MISREAD
    blue = next(c.id for c in q.choices if c.action is not None and c.action.color == "blue")
    assert rig.answer(blue, by="ann").ok
    assert rig.table.state_json()["color"] == "blue"


def test_a_wild_played_from_the_phone_needs_no_question():
    # the seat page's play of a wild asks its colour: the camera saw the card and waits for it
    timed = {"setup": {**CLASSIC_SETUP["setup"], "options": {"turn_seconds": 30}}}
    rig = Rig(timed)
    rig.referee.on_reading(pile_reading(1, {"red-5": 0.999}))
    rig.referee.on_reading(pile_reading(2, {"wild": 0.999}))
    rig.bus.join()
    assert rig.referee.question is None and rig.table.timer.paused
    assert rig.table.act({"by": "ann", "do": "play", "card": "wild", "color": "green"}, source="phone").ok
    rig.bus.join()
    rig.referee.tick()
    rig.bus.join()
    assert rig.referee.question is None and not rig.asked and not rig.table.timer.paused
    assert rig.table.state_json()["color"] == "green" and rig.referee.stats["commits"] == 0


def test_a_new_reading_before_the_phone_gives_the_colour_asks_it():
    rig = Rig(CLASSIC_SETUP)
    rig.referee.on_reading(pile_reading(1, {"red-5": 0.999}))
    rig.referee.on_reading(pile_reading(2, {"wild": 0.999}))
    rig.bus.join()
    assert rig.referee.question is None
    rig.referee.on_reading(pile_reading(3, {"wild": 0.999}))  # a hand passed: still a wild
    assert rig.check_event().kind is QuestionKind.COLOUR


def test_first_look_question():
    rig = Rig(GRID_SETUP)
    rig.referee.on_reading(grid_reading(with_cell(0, 0, "red-7"), changed=("cell-0-0",)))
    q = rig.check_event()
    assert (q.kind, q.seat, q.region, q.card) == (QuestionKind.FIRST_LOOK, "north", "cell-0-0",
                                                  "red-7")
    assert actions_of(q) == [{"by": "north", "do": "play", "card": "red-7", "cell": [0, 0]}]
    assert q.choices[-1].nothing is NothingHappened.LAID_OUT
    assert rig.answer(q.choices[-1].id, by="north") is None  # laid out like this: nothing played
    assert rig.table.state_json()["grid"][0][0] == "red-1" and rig.referee.question is None


def test_several_question():
    rig = Rig(GRID_SETUP)
    rig.referee.on_reading(grid_reading())
    two = with_cell(1, 1, "blue-9", with_cell(0, 0, "red-7"))
    rig.referee.on_reading(grid_reading(two, seq=2, changed=("cell-0-0", "cell-1-1")))
    q = rig.check_event()
    assert (q.kind, q.seat, q.region, q.card) == (QuestionKind.SEVERAL, "north", "cell-0-0", "red-7")
    assert len(q.actions) >= 2 and q.choices[-1].nothing is NothingHappened.MISREAD


def test_same_face_question():
    rig, q = same_face_asked()
    assert (q.kind, q.seat, q.region, q.card) == (QuestionKind.SAME_FACE, "ann", "discard", "red-5")
    assert actions_of(q)[0] == {"by": "ann", "do": "play", "card": "red-5"}
    assert q.choices[-1].nothing is NothingHappened.ONLY_MOVED


def test_the_pawn_is_asked_about_with_no_card():
    decision = Decision(DecisionKind.ASK, "pawn", choices=(
        action_from_json({"by": "north", "do": "move", "to": [1, 2]}),), reason=Reason.UNSURE)
    q = Question.of(7, decision, "north", None)
    assert q.to_json() == {"id": 7, "kind": "unsure", "seat": "north", "region": "pawn",
                           "card": None, "choices": [
                               {"id": 0, "action": {"by": "north", "do": "move", "to": [1, 2]}},
                               {"id": 1, "action": None, "nothing": "misread"}]}
    assert q.choice(1).nothing is NothingHappened.MISREAD and q.choice(2) is None


@pytest.mark.parametrize("reason,kind", [
    (Reason.COLOUR, QuestionKind.COLOUR), (Reason.SAME_FACE, QuestionKind.SAME_FACE),
    (Reason.SEVERAL, QuestionKind.SEVERAL), (Reason.FIRST_LOOK, QuestionKind.FIRST_LOOK),
    (Reason.UNSURE, QuestionKind.UNSURE)])
def test_each_asking_reason_has_its_question_kind(reason, kind):
    q = Question.of(1, Decision(DecisionKind.ASK, "discard", reason=reason), "ann", "red-5")
    assert q.kind is kind
    assert len(q.choices) == 1 and q.choices[0].nothing is not None


def test_the_same_question_is_not_asked_twice():
    rig = Rig(GRID_SETUP)
    rig.referee.on_reading(grid_reading())
    unsure = {"cell-0-0": {"red-8": 0.55, "red-0": 0.40, "red-1": 0.05}}
    rig.referee.on_reading(grid_reading(seq=2, changed=("cell-0-0",), probs=unsure))
    rig.referee.on_reading(grid_reading(seq=3, changed=("cell-0-0",), probs=unsure))
    assert len(rig.asked) == 1 and rig.referee.stats["questions"] == 1

