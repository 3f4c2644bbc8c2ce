"""A camera referee on a table, fed hand-made readings (a grid or a discard pile), with what it
decided and asked."""

from __future__ import annotations

import numpy as np

from companion.bus import EventBus
from companion.reading import PawnReading, RegionReading, TableReading
from companion.referee.camera import (
    CameraReferee,
    Question,
    decide,
    expected_of,
)
from companion.referee.table import Table
from tests.support.looks import Looks

GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
        ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
        ["green-1", "green-2", "green-3", "green-4", "green-5"],
        ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
        ["red-6", "red-7", "red-8", "red-9", "blue-6"]]


GRID_SETUP = {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                        "grid": GRID, "options": {"turn_seconds": 0}}}


CLASSIC_SETUP = {"setup": {"game": "classic", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                           "start": "red-5", "options": {"turn_seconds": 0}}}


def grid_reading(grid=GRID, *, seq=1, changed=(), probs=None, pawn=(2, 2)):
    probs = probs or {}
    cells = tuple(RegionReading.of(probs.get(f"cell-{r}-{c}", {grid[r][c]: 0.999}))
                  for r in range(5) for c in range(5))
    return TableReading(seq, 0.0, cells, RegionReading.of({"empty": 0.999}), PawnReading(pawn), 0,
                        tuple(changed))


def pile_reading(seq, probs, changed=("discard",)):
    return TableReading(seq, 0.0, (), RegionReading.of(probs),
                        PawnReading(None, None, False), changed=tuple(changed))


def with_cell(r, c, label, grid=GRID):
    g = [row[:] for row in grid]
    g[r][c] = label
    return g


class Rig:
    """A table, its referee and the questions it published."""

    def __init__(self, setup):
        self.bus = EventBus()
        self.table = Table(setup, self.bus, clock=lambda: 0.0)
        self.referee = CameraReferee(lambda: self.table, self.bus)
        #: the reader's look memory, the referee wired to it (hand-made looks)
        self.looks = Looks(self.referee)
        self.asked: list[dict] = []
        self.bus.subscribe(lambda m: self.asked.append(m.data), {"confirm-needed"})

    def answer(self, choice: int, by: str):
        """A phone's answer, handled on the referee's thread (here: this one), heard back."""
        future = self.referee.answer(choice, by=by)
        self.referee.run_pending()
        self.bus.join()
        return future.result(timeout=0)

    def check_event(self) -> Question:
        """The open question went out on the bus as its data, and only as its data."""
        self.bus.join()
        q = self.referee.question
        assert q is not None and self.asked[-1] == q.to_json()
        # ("other": the question also takes another card than its choices, named)
        assert set(self.asked[-1]) - {"other"} == {"id", "kind", "seat", "region", "card",
                                                   "choices"}
        assert self.referee.stats[f"questions-{q.kind.value}"] >= 1
        return q


def actions_of(q: Question) -> list[dict]:
    return [a.to_json() for a in q.actions]


def decide_for(table, reading, regions, seat):
    look, waiting = table.view()
    return decide(table.legal_actions(), expected_of(look), reading, regions, seat)


def same_face_asked(setup=CLASSIC_SETUP) -> tuple["Rig", Question]:
    """A table on red-5 (classic, or ``setup``) whose pile shows a red-5 again, put down apart:
    the rig and the same-face question it asks."""
    rig = Rig(setup)
    rng = np.random.default_rng(1)
    first = rng.integers(0, 255, (20, 14)).astype(np.float32)
    rig.referee.on_reading(rig.looks.pile(pile_reading(1, {"red-5": 0.999}), first))
    rig.referee.on_reading(rig.looks.pile(pile_reading(2, {"red-5": 0.999}), np.roll(first, 3, axis=1)))
    return rig, rig.check_event()

