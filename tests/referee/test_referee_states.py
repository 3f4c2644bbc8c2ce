"""The camera referee's state is one frozen value: watching, asking a question, or awaiting a wild's
colour from its player's phone (with a question about something else open meanwhile)."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from companion.referee.camera import COLOUR_WAIT_S, Asking, AwaitingColour, Watching, Wild
from companion.referee.decide import Decision, DecisionKind, Reason
from companion.referee.questions import Question, QuestionKind
from companion.referee.states import ask, await_colour, closed, colour_done, colour_of, question_of
from tests.support.referee_rig import CLASSIC_SETUP, Rig, pile_reading

WILD = Wild("discard", "wild", seq=2, since=100.0, decision=Decision(DecisionKind.ASK, "discard",
                                                                     reason=Reason.COLOUR))
QUESTION = Question.of(1, Decision(DecisionKind.ASK, "draw-pile", reason=Reason.DREW), "ann", None)


def test_watching_asks_and_goes_back_to_watching_when_the_question_closes():
    s = ask(Watching(), QUESTION)
    assert s == Asking(QUESTION) and question_of(s) is QUESTION and colour_of(s) is None
    assert closed(s) == Watching()


def test_a_colour_awaited_stays_awaited_behind_a_question_and_comes_back_after_it():
    s = ask(await_colour(Watching(), WILD), QUESTION, asked_in=None)
    assert question_of(s) is QUESTION and colour_of(s) is WILD
    assert closed(s) == AwaitingColour(WILD)
    # the colour given (or asked) while the question is still open: the question stays
    assert colour_done(s) == Asking(QUESTION)
    assert colour_done(AwaitingColour(WILD)) == Watching()


def test_the_states_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Asking(QUESTION).question = None  # type: ignore[misc]


def test_a_wild_seen_is_awaited_then_asked_once_the_wait_is_over():
    rig = Rig(CLASSIC_SETUP)
    now = [100.0]
    rig.referee.clock = lambda: now[0]
    rig.referee.on_reading(pile_reading(1, {"red-5": 0.999}))
    assert rig.referee.state == Watching()
    rig.referee.on_reading(pile_reading(2, {"wild": 0.999}))
    rig.bus.join()
    state = rig.referee.state
    assert isinstance(state, AwaitingColour) and (state.wild.region, state.wild.read) == ("discard", "wild")
    assert state.wild.on_wild is None and rig.referee.question is None
    now[0] += COLOUR_WAIT_S
    rig.referee.tick()
    state = rig.referee.state
    assert isinstance(state, Asking) and state.question.kind is QuestionKind.COLOUR and state.colour is None
    assert rig.check_event() is state.question


def test_other_threads_read_one_whole_state_while_the_referee_settles():
    rig = Rig(CLASSIC_SETUP)
    now = [100.0]
    rig.referee.clock = lambda: now[0]
    rig.referee.on_reading(pile_reading(1, {"red-5": 0.999}))
    seen: list[object] = []
    bad: list[object] = []
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            s = rig.referee.state
            seen.append(s)
            if not isinstance(s, (Watching, Asking, AwaitingColour)) or (
                    question_of(s) is not None) != isinstance(s, Asking):
                bad.append(s)

    reader = threading.Thread(target=watch)
    reader.start()
    try:
        for seq in range(2, 40):
            label = "wild" if seq % 2 else "red-5"
            rig.referee.on_reading(pile_reading(seq, {label: 0.999}))
            now[0] += COLOUR_WAIT_S
            rig.referee.tick()
    finally:
        stop.set()
        reader.join(timeout=5)
    assert not reader.is_alive() and seen and bad == []
    assert any(isinstance(s, AwaitingColour) for s in seen) or any(isinstance(s, Asking) for s in seen)
