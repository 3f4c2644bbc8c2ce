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
