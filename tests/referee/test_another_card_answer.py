"""The answer "another card..." to the camera's questions: the player names the card put down
when the choices do not offer it (the card model read it with the true card far down its list).
The referee checks it as the rules would, nothing applied: a card of no deck, or a play the
rules refuse, is refused with its own code and the question stays open; a card the rules take
is played and closes the question like a choice. Said put down all the same, a refused card is
the illegal attempt the camera would have called."""

from __future__ import annotations

import pytest

from companion.referee.camera import AnswerRefused, Closed, Question, QuestionKind
from tests.support.referee_rig import (CLASSIC_SETUP, GRID_SETUP, Rig, grid_reading,
                                       same_face_asked, with_cell)

#: a smeared card at (1, 1) (blue-2 laid out there) read red-3, green-3 or blue-9
UNSURE_PROBS = {"cell-1-1": {"red-3": 0.45, "green-3": 0.40, "blue-9": 0.15}}


def unsure_grid() -> Rig:
    rig = Rig(GRID_SETUP)
    rig.confirmed: list[dict] = []
    rig.bus.subscribe(lambda m: rig.confirmed.append(m.data), {"confirmed"})
    rig.referee.on_reading(grid_reading())
    rig.referee.on_reading(grid_reading(with_cell(1, 1, "red-3"), seq=2, changed=("cell-1-1",),
                                        probs=UNSURE_PROBS))
    rig.bus.join()
    return rig


def other(rig: Rig, card: str, **kw):
    """A phone's "another card" answer, handled on the referee's thread (here: this one)."""
    future = rig.referee.answer_other(card, by="north", **kw)
    rig.referee.run_pending()
    rig.bus.join()
    return future


def test_the_unsure_question_takes_another_card_on_its_cell():
    rig = unsure_grid()
    q = rig.referee.question
    assert q.kind is QuestionKind.UNSURE and q.region == "cell-1-1" and q.other == "play"
    assert rig.asked[-1]["other"] == "play"          # the page shows "Another card..."
    assert "blue-7" not in {a.card.name for a in q.actions}


def test_a_legal_other_card_is_played_and_answers_the_question():
    rig = unsure_grid()
    q = rig.referee.question
    answer = other(rig, "blue-7", question_id=q.id).result(timeout=0)
    assert answer.ok and rig.table.state_json()["grid"][1][1] == "blue-7"
    assert rig.referee.question is None
    assert rig.confirmed[-1] == {"id": q.id, "by": "north", "why": Closed.ANSWERED.value,
                                 "action": {"by": "north", "do": "play", "card": "blue-7",
                                            "cell": [1, 1]}}
    assert rig.referee.stats["questions"] == 1 and rig.referee.stats["other-cards"] == 1
    # the region is settled: the same smeared look read again is no new play nor a question
    rig.referee.on_reading(grid_reading(with_cell(1, 1, "red-3"), seq=3, probs=UNSURE_PROBS))
    rig.bus.join()
    assert rig.referee.question is None and rig.referee.stats["questions"] == 1
    assert len(rig.table.actions_taken()) == 1


@pytest.mark.parametrize("card, code, illegal", [
    ("green-9", "not-matching", True),    # the rules refuse it on blue-2
    ("purple-3", "bad-card", False),      # no card of the grid game's deck
    ("red-10", "bad-card", False),        # no card at all
])
def test_a_refused_other_card_changes_nothing_and_the_question_stays_open(card, code, illegal):
    rig = unsure_grid()
    q = rig.referee.question
    refused = other(rig, card).exception(timeout=0)
    assert isinstance(refused, AnswerRefused)
    assert (refused.code, refused.illegal) == (code, illegal)
    assert rig.referee.question == q and rig.table.actions_taken() == []
    assert rig.confirmed == []
    # still answerable: the card really put there
    assert other(rig, "blue-7").result(timeout=0).ok and rig.referee.question is None


def test_a_refused_card_said_put_down_all_the_same_is_the_illegal_attempt():
    rig = unsure_grid()
    answer = other(rig, "green-9", illegal=True).result(timeout=0)
    assert not answer.ok and answer.error == "not-matching"
    assert rig.table.state_json()["grid"][1][1] == "blue-2"   # nothing played
    assert rig.referee.question is None and rig.confirmed[-1]["why"] == "answered"
    # an unknown card stays refused, whatever the player insists
    rig2 = unsure_grid()
    assert other(rig2, "purple-3", illegal=True).exception(timeout=0).code == "bad-card"
    assert rig2.referee.question is not None


def test_a_face_of_the_side_not_showing_is_no_card_put_down():
    # Flip, light side up: a dark face names no card that could lie on the pile (the card's
    # light face would show); refused as no card in play, never an attempt to confirm
    flip = {"setup": {**CLASSIC_SETUP["setup"], "game": "flip"}}
    rig, q = same_face_asked(flip)
    assert q.other == "play"
    for insist in (False, True):
        refused = other(rig, "orange-4", illegal=insist).exception(timeout=0)
        assert (refused.code, refused.illegal) == ("bad-card", False)
        assert rig.referee.question == q and rig.table.actions_taken() == []
    # a light face the rules refuse there is an attempt the player may confirm
    refused = other(rig, "green-9").exception(timeout=0)
    assert (refused.code, refused.illegal) == ("not-matching", True)


def test_another_answer_of_a_closed_or_replaced_question_is_refused():
    rig = unsure_grid()
    q = rig.referee.question
    refused = other(rig, "blue-7", question_id=q.id + 1).exception(timeout=0)
    assert refused.code == "no-question" and rig.referee.question == q


def test_on_the_discard_pile_another_card_is_that_seats_play():
    rig, q = same_face_asked()
    assert (q.kind, q.region, q.other) == (QuestionKind.SAME_FACE, "discard", "play")
    # a wild needs its colour, as any play of it does
    assert other(rig, "wild").exception(timeout=0).code not in ("bad-card", None)
    assert rig.referee.question == q
    answer = rig.referee.answer_other("wild", by="ann", color="green")
    rig.referee.run_pending()
    assert answer.result(timeout=0).ok
    assert rig.table.state_json()["top"] == "wild" and rig.referee.question is None


def test_questions_about_hands_take_no_other_card():
    from companion.engine.actions import action_from_json
    from companion.referee.camera import Decision, DecisionKind, Reason

    draw = action_from_json({"by": "ann", "do": "draw"})
    for reason in (Reason.OUT_OF_TURN, Reason.DREW, Reason.SEVERAL):
        q = Question.of(1, Decision(DecisionKind.ASK, "discard", choices=(draw,), reason=reason,
                                    by="ben" if reason is Reason.OUT_OF_TURN else None),
                        "ann", "red-5")
        assert q.other is None and "other" not in q.to_json()
        with pytest.raises(AnswerRefused) as refused:
            q.other_action("red-7")
        assert refused.value.code == "no-other-card"
    grid_pile = Question.of(1, Decision(DecisionKind.ASK, "discard", reason=Reason.UNSURE),
                            "north", "red-5", pile="discard")
    assert grid_pile.other_action("red-7").to_json() == {"by": "north", "do": "discard",
                                                         "card": "red-7"}
