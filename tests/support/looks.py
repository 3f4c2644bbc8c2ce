"""The reader's look memory for hand-made readings: a test gives a region's look as an array, the
reading names it by its id in a :class:`vision.looks.LookMemory`, and the referee, given the
memory as the pipeline gives it, has each reading it takes measured from the looks it
remembers."""

from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from companion.reading import RegionReading, TableReading, cell_name
from vision.looks import LookMemory


class Looks:
    """A look memory, and the referees (:meth:`wire`) that keep their looks in it.

    A distance a reading carries counts for a referee only when measured from the look that
    referee remembers (:func:`companion.referee.evidence.look_distance`), so one memory may
    serve the referees of a module's tests one after the other."""

    def __init__(self, referee=None) -> None:
        self.memory = LookMemory()
        if referee is not None:
            self.wire(referee)

    def wire(self, referee):
        """``referee`` keeps its looks in this memory (as the pipeline gives it the reader's);
        returns it."""
        referee.looks = self.memory
        return referee

    def of(self, reading: TableReading, looks: Mapping[str, np.ndarray | None]) -> TableReading:
        """``reading`` with each region of ``looks`` (region -> its look) read on that look."""
        def put(name: str, got: RegionReading) -> RegionReading:
            if name not in looks:
                return got
            return dataclasses.replace(got, look_id=self.memory.add(looks[name]))

        cells = tuple(put(cell_name(i // 5, i % 5), got) for i, got in enumerate(reading.cells))
        discard = put("discard", reading.discard) if reading.discard is not None else None
        return dataclasses.replace(reading, cells=cells, discard=discard)

    def pile(self, reading: TableReading, look: np.ndarray | None) -> TableReading:
        """``reading`` with its discard pile read on ``look``."""
        return self.of(reading, {"discard": look})


@dataclasses.dataclass
class RedSevenAsked:
    """A classic pile on a red-5 (its look kept) where an unsure red-7 was then read (0.45 beside
    red-1 at 0.40, on a new look) and asked about: the table, its referee and questions, the
    look memory, the seat on turn, and ``played``, the choice "that seat played the red-7"."""

    bus: object
    table: object
    referee: object
    asked: list
    looks: Looks
    seat: str
    played: dict
    rng: np.random.Generator

    def look(self) -> np.ndarray:
        """A new look of the pile (random grey levels: far from every other)."""
        return self.rng.integers(0, 255, (20, 14)).astype(np.float32)


def red_seven_asked_over_red_five() -> RedSevenAsked:
    """:class:`RedSevenAsked`: the question is open, not yet answered."""
    from companion.reading import PawnReading
    from tests.support.readings import classic_pile_table, pile_reading

    bus, table, referee, asked = classic_pile_table()
    scene = RedSevenAsked(bus, table, referee, asked, Looks(referee), "", {},
                          np.random.default_rng(36))
    referee.on_reading(scene.looks.pile(pile_reading(1, "red-5"), scene.look()))
    scene.seat = table.state_json()["turn"]
    unsure = RegionReading.of({"red-7": 0.45, "red-1": 0.40, "empty": 0.02})
    referee.on_reading(scene.looks.pile(TableReading(2, 0.0, (), unsure, PawnReading(None, None, False),
                                                     changed=("discard",)), scene.look()))
    bus.join()
    assert asked and asked[-1]["kind"] == "unsure", asked
    scene.played = next(c for c in asked[-1]["choices"]
                        if c["action"] and c["action"]["card"] == "red-7")
    return scene
