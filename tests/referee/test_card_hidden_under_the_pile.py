"""A discard pile shows only its top card: when the seat on turn's arm came in and then the arm
of the seat after it, each seen over no region (dim light, a hand held at the rim), the card on
top may be the later seat's, laid on a card the camera never saw settle. The read card is then
asked about (the player names the card put down: "another card..."), never credited to the seat
on turn. The arms in the other order, or the later arm another seat's than the next one, leave
the play as read."""

from __future__ import annotations

from companion.reading import Reach
from companion.referee.camera import QuestionKind
from tests.referee.test_whose_hand import Rig, play


def over_nothing(side: str) -> Reach:
    return Reach(side, (), 0)


def test_the_next_seats_arm_after_the_seat_on_turn_s_asks_about_the_top_card():
    # ann (south) played; ben (west) is on turn; cai (north) sits after him
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-4", over_nothing("west"), over_nothing("north"))
    assert rig.done() == ["camera ann play red-7"]
    q = rig.referee.question
    assert q is not None and q.kind is QuestionKind.UNSURE and q.seat == "ben" and q.other == "play"
    # ben names the card he put down; cai's card on it is read again and is cai's play
    answer = rig.referee.answer_other("red-1", by="ben")
    rig.referee.run_pending()
    assert answer.result(timeout=0).ok
    rig.see("red-4")
    assert rig.done() == ["camera ann play red-7", "confirm ben play red-1", "camera cai play red-4"]


def test_the_seat_on_turn_s_arm_last_leaves_its_play():
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-4", over_nothing("north"), over_nothing("west"))
    assert rig.done() == ["camera ann play red-7", "camera ben play red-4"]
    assert rig.referee.question is None


def test_a_later_arm_of_a_seat_not_next_leaves_its_play():
    # ann's arm after ben's: ann does not play after ben (cai does): a hand reaching past
    rig = Rig()
    rig.see("red-7", play("south"))
    rig.see("red-4", over_nothing("west"), over_nothing("south"))
    assert rig.done() == ["camera ann play red-7", "camera ben play red-4"]
    assert rig.referee.question is None
