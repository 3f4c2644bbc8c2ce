"""Pawn steps made while a hand hides the pawn's marker: asked about, never lost.

Regressions from the torture's pawn-hidden grid games: north stepped the pawn while a
hand half hid it, then south stepped it again; the referee waited ("unsure") and never asked, so
both steps were lost and the plays after them were asked about or called out of turn. And a same
face played while the hand rested by the pawn was lost twice: its look was taken as the cell's
own while a pawn question was open, and the regions the resting hand changed (with the pawn's
sighting and the draw pile) made the reading look like a nudged camera's.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from companion.bus import EventBus
from companion.reading import NO_PAWN, Reach
from companion.referee.camera import CameraReferee
from companion.referee.table import Table
from tests.support.looks import Looks
from tests.support.readings import ALL_CELLS, GRID, SETUP, reading, with_cell

BODY = {"empty": 0.74, "red-1": 0.1}  # the pawn's body (and a hand) read where no card shows

_rng = np.random.default_rng(7)
LOOKS = {f"cell-{r}-{c}": _rng.integers(0, 255, (20, 14)).astype(np.float32)
         for r in range(5) for c in range(5)}


#: the reader's look memory (every referee of this module is wired to it)
SEEN = Looks()


def _looking(rd, new_looks=()):
    """``rd`` with every cell's usual look, and a new look in the cells ``new_looks``."""
    rng = np.random.default_rng(len(new_looks) + rd.seq)
    return SEEN.of(rd, {name: (rng.integers(0, 255, (20, 14)).astype(np.float32)
                               if name in new_looks else LOOKS[name])
                        for name in (f"cell-{r}-{c}" for r in range(5) for c in range(5))})


def _hidden(seq, changed, probs=None, grid=GRID):
    """A reading with the pawn's marker hidden."""
    return dataclasses.replace(reading(grid, seq=seq, changed=changed, probs=probs), pawn=NO_PAWN)


def _table():
    bus = EventBus()
    table = Table(SETUP, bus, clock=lambda: 0.0)
    referee = SEEN.wire(CameraReferee(lambda: table, bus))
    referee.on_reading(_looking(reading(GRID, seq=1, changed=ALL_CELLS)))
    return bus, table, referee


def _answer(bus, referee, action):
    question = referee.question
    pick = next(c.id for c in question.choices if c.action is not None and c.action.to_json() == action)
    referee.answer(pick, by="north")
    referee.tick()
    bus.join()
    referee.tick()
    bus.join()


def test_a_step_made_unseen_is_asked_once_the_table_changes_again():
    # green-3 (2,2) -> green-4 (2,3) by north, marker hidden: the centre cell reads its card
    # again, the pawn's body reads on 2,3; then south steps it on to blue-4 (1,3), still hidden
    bus, table, referee = _table()
    referee.on_reading(_hidden(2, ("cell-2-2", "cell-2-3", "pawn"), {"cell-2-3": BODY}))
    bus.join()
    assert referee.question is None and table.actions_taken() == []  # the marker may show
    referee.on_reading(_hidden(3, ("cell-2-3", "cell-1-3", "cell-2-2"), {"cell-1-3": BODY}))
    bus.join()
    question = referee.question
    assert question is not None and question.region == "pawn"
    offered = [c.action.to_json() for c in question.choices if c.action is not None]
    assert offered[0] == {"by": "north", "do": "move", "to": [2, 3]}  # where the body read
    assert question.choices[-1].action is None  # and "nothing happened"
    _answer(bus, referee, offered[0])
    assert table.actions_taken() == [{"by": "north", "do": "move", "to": [2, 3]}]
    # the marker shows again where south's step took it: read as usual
    referee.on_reading(reading(GRID, seq=4, pawn=(1, 3), changed=("pawn", "cell-1-3")))
    bus.join()
    assert table.actions_taken() == [{"by": "north", "do": "move", "to": [2, 3]},
                                     {"by": "south", "do": "move", "to": [1, 3]}]


def test_a_play_while_the_pawn_still_hides_its_cell_asks_no_step():
    # the marker hidden but the pawn's body still on its cell: north's play is judged at once
    bus, table, referee = _table()
    referee.on_reading(_hidden(2, ("cell-2-2", "cell-0-0"), {"cell-2-2": BODY},
                               grid=with_cell(GRID, 0, 0, "red-6")))
    bus.join()
    assert referee.question is None
    assert table.actions_taken() == [{"by": "north", "do": "play", "card": "red-6", "cell": [0, 0]}]


def test_a_same_face_played_while_a_pawn_question_is_open_is_still_asked():
    # the pawn seen two steps away (asked), and a yellow-4 put on the yellow-4 at 3,3 meanwhile
    bus, table, referee = _table()
    referee.on_reading(_looking(reading(GRID, seq=2, pawn=(0, 2), changed=("pawn", "cell-3-3")),
                                ("cell-3-3",)))
    bus.join()
    assert referee.question is not None and referee.question.region == "pawn"
    _answer(bus, referee, {"by": "north", "do": "move", "to": [1, 2]})
    assert table.actions_taken() == [{"by": "north", "do": "move", "to": [1, 2]},
                                     {"by": "south", "do": "move", "to": [0, 2]}]
    assert referee.question is not None and referee.question.kind.value == "same-face"
    assert referee.question.region == "cell-3-3"


def test_a_same_face_played_while_a_hand_rests_by_the_pawn_is_asked():
    # north steps to blue-3 (1,2); south then plays a yellow-4 on the yellow-4 at 3,3 while a
    # hand rests by the pawn over 0,1, 0,3 and 1,1 (their looks change, no arm goes there)
    bus, table, referee = _table()
    referee.on_reading(_looking(reading(GRID, seq=2, pawn=(1, 2), changed=("pawn", "cell-2-2"))))
    bus.join()
    assert table.actions_taken() == [{"by": "north", "do": "move", "to": [1, 2]}]
    changed = ("pawn", "draw", "cell-0-1", "cell-0-3", "cell-1-1", "cell-3-3")
    rd = reading(GRID, seq=3, pawn=(1, 2), changed=changed)
    rd = dataclasses.replace(_looking(rd, changed), reaches=(Reach("south", ("cell-3-3",)),))
    referee.on_reading(rd)
    bus.join()
    assert referee.question is not None and referee.question.kind.value == "same-face"
    assert referee.question.region == "cell-3-3"


def test_a_step_noted_unseen_and_then_the_pawn_seen_on_its_cell_asks_nothing():
    # the centre cell read its card while the marker was hidden, then the marker showed the
    # pawn where it stood: north's next play is judged as usual, no step asked about
    bus, table, referee = _table()
    referee.on_reading(_hidden(2, ("cell-2-2", "cell-2-3", "pawn"), {"cell-2-3": BODY}))
    referee.on_reading(reading(GRID, seq=3, pawn=(2, 2), changed=("pawn", "cell-2-3")))
    referee.on_reading(reading(with_cell(GRID, 0, 0, "red-6"), seq=4, changed=("cell-0-0",)))
    bus.join()
    assert referee.question is None
    assert table.actions_taken() == [{"by": "north", "do": "play", "card": "red-6", "cell": [0, 0]}]


def test_a_step_asked_about_stays_asked_while_the_marker_is_hidden():
    bus, table, referee = _table()
    referee.on_reading(_hidden(2, ("cell-2-2", "cell-2-3", "pawn"), {"cell-2-3": BODY}))
    referee.on_reading(_hidden(3, ("cell-2-3", "cell-1-3", "cell-2-2"), {"cell-1-3": BODY}))
    bus.join()
    asked = referee.question
    assert asked is not None and asked.region == "pawn"
    # the hand shifts: the marker still hidden, nothing says where the pawn is
    referee.on_reading(_hidden(4, ("cell-1-3",), {"cell-1-3": BODY}))
    bus.join()
    assert referee.question is not None and referee.question.id == asked.id
    # the marker shows the pawn: the question is settled by the sighting
    referee.on_reading(reading(GRID, seq=5, pawn=(2, 3), changed=("pawn", "cell-1-3")))
    bus.join()
    assert table.actions_taken() == [{"by": "north", "do": "move", "to": [2, 3]}]
    assert referee.question is None
