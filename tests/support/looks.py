"""The reader's look memory for hand-made readings: a test gives a region's look as an array, the
reading carries what the reader would measure (:class:`vision.looks.LookMemory`: the look's id
and its distance from the look the referee remembers the region by), and the referee is wired
to the memory as the pipeline wires it."""

from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from companion.reading import RegionReading, TableReading, cell_name
from vision.looks import LookMemory


class Looks:
    """A look memory, and the referees (:meth:`wire`) that tell it what they remember.

    A distance a reading carries counts for a referee only when measured from the look that
    referee remembers (:func:`companion.referee.evidence.look_distance`), so one memory may
    serve the referees of a module's tests one after the other, as long as each reading is
    made just before it is fed."""

    def __init__(self, referee=None) -> None:
        self.memory = LookMemory()
        if referee is not None:
            self.wire(referee)

    def wire(self, referee):
        """``referee`` tells this memory the looks it remembers (as the pipeline wires it);
        returns it."""
        referee.remember_look = self.memory.remember
        return referee

    def of(self, reading: TableReading, looks: Mapping[str, np.ndarray | None]) -> TableReading:
        """``reading`` with each region of ``looks`` (region -> its look) read on that look, and
        every region carrying its look change."""
        def put(name: str, got: RegionReading) -> RegionReading:
            if name not in looks:
                return got
            return dataclasses.replace(got, look_id=self.memory.add(looks[name]))

        cells = tuple(put(cell_name(i // 5, i % 5), got) for i, got in enumerate(reading.cells))
        discard = put("discard", reading.discard) if reading.discard is not None else None
        return self.memory.stamped(dataclasses.replace(reading, cells=cells, discard=discard))

    def pile(self, reading: TableReading, look: np.ndarray | None) -> TableReading:
        """``reading`` with its discard pile read on ``look``."""
        return self.of(reading, {"discard": look})
