"""The camera referee: pure matching of readings to legal actions, and the live loop on a Table."""

from __future__ import annotations

import dataclasses

from companion.bus import EventBus
from companion.engine.actions import action_from_json
from companion.referee.camera import (CameraReferee, DecisionKind, NothingHappened, QuestionKind,
                                      decide, expected_of)
from companion.referee.table import Table
from tests.support.readings import GRID, SETUP, reading, with_cell


def make():
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    table = Table(SETUP, bus, clock=lambda: 0.0)
    ref = CameraReferee(lambda: table, bus)
    ref.on_reading(reading(GRID, seq=1, changed=tuple(f"cell-{r}-{c}" for r in range(5) for c in range(5))))
    return table, ref, seen


def test_expected_of_grid_state():
    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    exp = expected_of(table.view()[0])
    assert exp.labels["cell-0-0"] == "red-1" and exp.labels["discard"] == "empty"
    assert exp.pawn == (2, 2)


def test_decide_commits_a_clear_legal_play():
    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    exp = expected_of(table.view()[0])
    rd = reading(with_cell(GRID, 0, 0, "red-7"), changed=("cell-0-0",))
    d = decide(table.legal_actions(), exp, rd, {"cell-0-0"}, "north")
    assert d.kind is DecisionKind.COMMIT
    assert d.action == action_from_json({"by": "north", "do": "play", "card": "red-7", "cell": [0, 0]})


def test_decide_asks_when_two_faces_are_close():
    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    exp = expected_of(table.view()[0])
    rd = reading(GRID, probs={"cell-0-0": {"red-8": 0.55, "red-0": 0.40, "red-1": 0.05}})
    d = decide(table.legal_actions(), exp, rd, {"cell-0-0"}, "north")
    assert d.kind is DecisionKind.ASK
    cards = {a.card.name for a in d.choices}
    assert {"red-8", "red-0"} <= cards


def test_illegal_only_when_confident():
    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    exp = expected_of(table.view()[0])
    sure = reading(GRID, probs={"cell-0-0": {"blue-9": 0.995, "blue-8": 0.005}})
    d = decide(table.legal_actions(), exp, sure, {"cell-0-0"}, "north")
    assert d.kind is DecisionKind.ILLEGAL and d.action.card.name == "blue-9"
    unsure = reading(GRID, probs={"cell-0-0": {"blue-9": 0.7, "blue-8": 0.3}})
    d = decide(table.legal_actions(), exp, unsure, {"cell-0-0"}, "north")
    assert d.kind is DecisionKind.ASK
    # the card as read is offered, so the table can confirm the illegal play
    assert d.choices[0].card.name == "blue-9"


def test_pawn_move_is_committed():
    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    exp = expected_of(table.view()[0])
    rd = reading(GRID, pawn=(1, 2), changed=("pawn",))
    d = decide(table.legal_actions(), exp, rd, {"pawn"}, "north")
    assert d.kind is DecisionKind.COMMIT and d.action.to_json() == {"by": "north", "do": "move", "to": [1, 2]}


def test_nothing_changed_means_nothing_done():
    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    assert decide(table.legal_actions(), expected_of(table.view()[0]), reading(GRID), {"cell-0-0"}, "north") is None


def test_live_referee_commits_and_publishes():
    table, ref, seen = make()
    ref.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0",)))
    assert table.state_json()["grid"][0][0] == "red-7"
    table.bus.join()
    actions = [m for m in seen if m.type == "action"]
    assert actions[-1].data["source"] == "camera" and actions[-1].data["ok"]
    assert any(m.type == "reading" for m in seen)


def test_first_reading_is_the_baseline():
    bus = EventBus()
    table = Table(SETUP, bus, clock=lambda: 0.0)
    ref = CameraReferee(lambda: table, bus)
    ref.on_reading(reading(with_cell(GRID, 0, 0, "blue-9"), changed=("cell-0-0",)))
    assert table.state_json()["grid"][0][0] == "red-1"  # a misplaced card at set-up is no play
    assert ref.question is None  # and no legal play explains it: nothing to ask


def _first_look_question(label="red-7"):
    bus = EventBus()
    table = Table(SETUP, bus, clock=lambda: 0.0)
    ref = CameraReferee(lambda: table, bus)
    ref.on_reading(reading(with_cell(GRID, 0, 0, label), changed=("cell-0-0",)))
    return table, ref


def test_a_play_made_before_the_first_look_is_asked_about_never_committed():
    table, ref = _first_look_question()
    assert table.state_json()["grid"][0][0] == "red-1"
    q = ref.question
    assert q is not None and q.kind is QuestionKind.FIRST_LOOK and q.seat == "north"
    assert q.region == "cell-0-0" and q.card == "red-7"
    yes = next(c.id for c in q.choices if c.action is not None and c.action.card.name == "red-7")
    answer = ref.answer(yes, by="north")
    assert not answer.done()  # queued for the referee's thread
    ref.run_pending()
    assert answer.result(timeout=0).ok
    assert table.state_json()["grid"][0][0] == "red-7"


def test_a_first_look_answered_as_the_layout_is_left_alone():
    table, ref = _first_look_question()
    no = next(c.id for c in ref.question.choices if c.action is None)
    assert ref.question.choice(no).nothing is NothingHappened.LAID_OUT
    ref.answer(no, by="north")
    ref.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-4-4",)))
    assert ref.question is None and table.state_json()["grid"][0][0] == "red-1"


def _first_read_weakly_then_clearly(first: dict[str, float]):
    """The first reading reads cell 0,0 (a red-1 by the deal) as ``first``; the next reads a
    red-7 there at 0.999 with north's arm over it. Returns (the table, the referee)."""
    from companion.reading import Reach

    bus = EventBus()
    table = Table(SETUP, bus, clock=lambda: 0.0)
    ref = CameraReferee(lambda: table, bus)
    ref.on_reading(reading(GRID, changed=("cell-0-0",), probs={"cell-0-0": first}))
    ref.on_reading(dataclasses.replace(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0",)),
                                       reaches=(Reach("north", ("cell-0-0",)),)))
    bus.join()
    return table, ref


def test_a_card_read_weakly_unlike_the_deal_at_the_first_look_is_asked_when_read_clearly():
    # Motion blur (grid, real faces): a red-6 read red-9 at 0.78 (red-6 at
    # 0.20) in the first reading, then red-9 at 0.92 once a hand went by, was committed as
    # south's play of a red-9 that never happened
    table, ref = _first_read_weakly_then_clearly({"red-7": 0.78, "red-1": 0.20})
    assert table.state_json()["grid"][0][0] == "red-1"
    assert ref.question is not None and ref.question.kind is QuestionKind.FIRST_LOOK


def test_a_card_read_as_dealt_at_the_first_look_then_played_on_is_committed():
    # (the other way: the first look matched the deal; the red-7 put there later is a play)
    table, ref = _first_read_weakly_then_clearly({"red-1": 0.999})
    assert table.state_json()["grid"][0][0] == "red-7" and ref.question is None


def test_confident_illegal_play_is_called_once():
    table, ref, seen = make()
    rd = reading(GRID, seq=2, changed=("cell-0-0",), probs={"cell-0-0": {"blue-9": 0.999}})
    ref.on_reading(rd)
    ref.on_reading(reading(GRID, seq=3, changed=("cell-4-4",), probs={"cell-0-0": {"blue-9": 0.999}}))
    table.bus.join()
    illegal = [m for m in seen if m.type == "refused"]
    assert len(illegal) == 1 and illegal[0].data["code"] == "not-matching"
    assert table.state_json()["grid"][0][0] == "red-1"


def test_question_pauses_timer_and_answer_acts():
    bus = EventBus()
    now = [0.0]
    setup = {"setup": {**SETUP["setup"], "options": {"turn_seconds": 30}}}
    table = Table(setup, bus, clock=lambda: now[0])
    ref = CameraReferee(lambda: table, bus)
    asked = []
    bus.subscribe(asked.append, {"confirm-needed", "confirmed"})
    ref.on_reading(reading(GRID))
    ref.on_reading(reading(GRID, seq=2, changed=("cell-0-0",),
                           probs={"cell-0-0": {"red-8": 0.55, "red-0": 0.40, "red-1": 0.05}}))
    bus.join()
    assert asked and asked[0].type == "confirm-needed"
    assert table.timer.paused
    q = ref.question
    pick = next(c.id for c in q.choices if c.action is not None and c.action.card.name == "red-8")
    answer = ref.answer(pick, by="north")
    ref.run_pending()
    bus.join()
    assert answer.result(timeout=0).ok and table.state_json()["grid"][0][0] == "red-8"
    assert asked[-1].type == "confirmed" and not table.timer.paused


def test_undo_does_not_replay_what_lies_there():
    table, ref, seen = make()
    ref.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0",)))
    table.undo(by="table")
    table.bus.join()  # the referee hears of the undo (queued for its thread)
    ref.tick()
    assert table.state_json()["grid"][0][0] == "red-1"
    # a reading of some other region does not bring the undone play back
    ref.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=3, changed=("cell-4-4",)))
    assert table.state_json()["grid"][0][0] == "red-1"


def test_illegal_is_called_when_no_legal_reading_is_near_and_asked_when_one_is():
    """(the torture run, flip and classic: an illegal card read at 0.95-0.965 with no legal card
    near it was asked every time, just below the 0.97 the read card needed alone)"""
    from companion.referee.camera import legal_mass

    table = Table(SETUP, EventBus(), clock=lambda: 0.0)
    exp = expected_of(table.view()[0])
    legal = table.legal_actions()
    clear = reading(GRID, probs={"cell-0-0": {"blue-9": 0.955, "blue-8": 0.03, "green-9": 0.012}})
    assert legal_mass(clear.region("cell-0-0"), legal, "cell-0-0", exp) < 0.03
    d = decide(legal, exp, clear, {"cell-0-0"}, "north")
    assert d.kind is DecisionKind.ILLEGAL and d.action.card.name == "blue-9"
    # the same confidence, but a legal card (the same number) holds the rest: asked
    near = reading(GRID, probs={"cell-0-0": {"blue-9": 0.955, "blue-1": 0.04}})
    assert legal_mass(near.region("cell-0-0"), legal, "cell-0-0", exp) >= 0.04
    assert decide(legal, exp, near, {"cell-0-0"}, "north").kind is DecisionKind.ASK
    # or what the reading leaves unlisted could be legal: asked
    vague = reading(GRID, probs={"cell-0-0": {"blue-9": 0.955, "blue-8": 0.005}})
    assert decide(legal, exp, vague, {"cell-0-0"}, "north").kind is DecisionKind.ASK
    # and a read card below NAMED_CONFIDENCE is never called, whatever else it might be
    split = reading(GRID, probs={"cell-0-0": {"blue-9": 0.85, "blue-8": 0.149}})
    assert decide(legal, exp, split, {"cell-0-0"}, "north").kind is DecisionKind.ASK


def test_legal_mass_bounds_the_unlisted_labels_by_the_least_listed_one():
    """(flip: a pink-9 at 0.964 with six labels listed and none of the four legal ones
    among them: what the listing leaves out, 3 %, is not all legal)"""
    from companion.reading import RegionReading
    from companion.referee.camera import Expected, legal_mass

    listed = {"pink-9": 0.964, "pink-2": 0.002, "teal-9": 0.0018, "pink-3": 0.0015,
              "purple-9": 0.0012, "pink-6": 0.001}
    got = RegionReading.of(listed)
    legal = [action_from_json({"by": "ann", "do": "play", "card": c})
             for c in ("pink-draw-five", "teal-draw-five", "orange-draw-five")]
    exp = Expected({"discard": "purple-draw-five"})
    # four unlisted labels that are allowed (three plays and the card lying there), each no
    # likelier than the least listed (0.001): 0.004, not the 2.8 % left over
    assert abs(legal_mass(got, legal, "discard", exp) - 0.004) < 1e-9
    # one listed legal label counts in full
    del listed["pink-6"]
    listed["teal-draw-five"] = 0.02
    assert legal_mass(RegionReading.of(listed), legal, "discard", exp) > 0.02


def test_a_cell_that_reads_no_card_beside_a_new_card_is_not_asked_about():
    """(the torture's askew cards, grid: a card dropped askew on one cell reached over the next,
    which read "empty" and was asked about -- "several" or "unsure" -- every time for nothing)"""
    from companion.referee.camera import spill_over

    table, ref, seen = make()
    spill = {"empty": 0.6, "red-9": 0.2, "red-2": 0.1}  # the cell's red-2 half hidden
    ref.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), seq=2, changed=("cell-0-0", "cell-0-1"),
                           probs={"cell-0-1": spill}))
    table.bus.join()
    assert ref.question is None and ref.stats["questions"] == 0
    assert table.state_json()["grid"][0][0] == "red-7"
    assert [m.data["action"] for m in seen if m.type == "action"] == [
        {"by": "north", "do": "play", "card": "red-7", "cell": [0, 0]}]
    # far from any new card, a cell that reads no card is still a question or a wait, never
    # dropped unseen; and a card read beside it is no spill
    assert spill_over({"cell-3-3": "empty"}, ["cell-0-0"]) == set()
    assert spill_over({"cell-0-1": "red-9", "cell-0-0": "red-7"}) == set()


def test_a_cell_beside_a_new_card_that_only_looks_different_is_no_same_face_question():
    """(askew, grid: the card dropped askew on one cell lay over the corner of the next, whose
    card then looked different: "the same face played again?" -- answered "only moved")"""
    import numpy as np

    from tests.support.looks import Looks

    rng = np.random.default_rng(3)
    looks = {f"cell-{r}-{c}": rng.integers(0, 255, (20, 14)).astype(np.float32)
             for r in range(5) for c in range(5)}

    def looking(rd, changed_looks=()):
        return seen.of(rd, {name: look if name not in changed_looks
                            else rng.integers(0, 255, (20, 14)).astype(np.float32)
                            for name, look in looks.items()})

    bus = EventBus()
    table = Table(SETUP, bus, clock=lambda: 0.0)
    ref = CameraReferee(lambda: table, bus)
    seen = Looks(ref)   # the reader's look memory
    ref.on_reading(looking(reading(GRID, seq=1)))
    ref.on_reading(looking(reading(with_cell(GRID, 0, 0, "red-7"), seq=2,
                                   changed=("cell-0-0", "cell-0-1")), ("cell-0-0", "cell-0-1")))
    bus.join()
    assert table.state_json()["grid"][0][0] == "red-7"
    assert ref.question is None and ref.stats["questions"] == 0
    # the same look change on its own (no card put beside it) is still asked
    ref.on_reading(looking(reading(with_cell(GRID, 0, 0, "red-7"), seq=3, changed=("cell-3-3",)),
                           ("cell-3-3",)))
    bus.join()
    assert ref.question is not None and ref.question.kind.value == "same-face"


def test_the_pawns_body_read_as_a_card_where_its_marker_is_unseen_is_no_question():
    """(motion blur and the hand over the pawn, grid: the marker not found, the reader read the
    pawn's body on its cell as a card at 0.1-0.3, and asked; every answer was "misread")"""
    import dataclasses

    from companion.reading import PawnReading

    table, ref, seen = make()
    unseen = PawnReading(None, None, False)
    body = {"yellow-3": 0.29, "yellow-9": 0.14, "yellow-skip": 0.07}
    rd = reading(GRID, seq=2, changed=("cell-2-2", "pawn"), probs={"cell-2-2": body})
    decisions = ref.on_reading(dataclasses.replace(rd, pawn=unseen))
    table.bus.join()
    assert decisions == [] and ref.question is None and ref.stats["questions"] == 0
    assert table.state_json()["grid"] == GRID
    # a card read clearly there is still looked at (a card put on the pawn's cell)
    rd = reading(with_cell(GRID, 2, 2, "blue-9"), seq=3, changed=("cell-2-2",))
    decisions = ref.on_reading(dataclasses.replace(rd, pawn=unseen))
    assert decisions and decisions[0].region == "cell-2-2"
