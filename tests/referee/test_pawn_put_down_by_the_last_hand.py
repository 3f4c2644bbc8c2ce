"""Whose hand stepped the pawn: the one that put it down on the cell it stands on. An arm of the
seat on turn over the cell the pawn left and then another seat's arm over the cell it stands on
now (a reading missed in between: a nudged camera recalibrating) is two steps, the seat on
turn's and the other's: asked (the seat on turn's steps from which the other's reaches that
cell are offered), never one step credited to the seat on turn."""

from __future__ import annotations

import dataclasses

from companion.reading import Reach
from companion.referee.camera import QuestionKind
from tests.support.referee_rig import GRID, GRID_SETUP, Rig, grid_reading, with_cell

#: green-9 at (3, 3): one step from the pawn's green-3 at (2, 2) and from green-4 at (2, 3)
BOARD = with_cell(3, 3, "green-9", GRID)
SETUP = {"setup": {**GRID_SETUP["setup"], "grid": BOARD}}


def _rig() -> Rig:
    rig = Rig(SETUP)   # north on turn, the pawn on (2, 2)
    rig.referee.on_reading(grid_reading(BOARD))
    rig.bus.join()
    return rig


def _pawn_seen(rig: Rig, seq: int, cell: tuple[int, int], *reaches: Reach) -> None:
    rig.referee.on_reading(dataclasses.replace(grid_reading(BOARD, seq=seq, pawn=cell, changed=("pawn",)),
                                               reaches=reaches))
    rig.referee.tick()
    rig.bus.join()


def test_the_other_seats_hand_last_on_the_pawn_asks_about_two_steps():
    rig = _rig()
    _pawn_seen(rig, 2, (3, 3), Reach("north", ("cell-2-2",)), Reach("south", ("cell-3-3",)))
    q = rig.referee.question
    assert q is not None and q.kind is QuestionKind.OUT_OF_TURN and q.by == "south"
    offered = [c.action.to_json() for c in q.choices if c.action is not None]
    first = {"by": "north", "do": "move", "to": [2, 3]}
    assert first in offered
    assert rig.table.state_json()["pawn"] == [2, 2]
    # north's step answered: south's hand put the pawn on (3, 3), south's step
    rig.answer(next(c.id for c in q.choices if c.action is not None and c.action.to_json() == first),
               by="north")
    rig.referee.tick()
    rig.bus.join()
    assert rig.table.state_json()["pawn"] == [3, 3]
    assert rig.referee.question is None


def test_the_seat_on_turn_s_hand_on_both_cells_is_its_step():
    rig = _rig()
    _pawn_seen(rig, 2, (3, 3), Reach("north", ("cell-2-2", "cell-3-3")))
    assert rig.referee.question is None and rig.table.state_json()["pawn"] == [3, 3]
