"""The reading contract: what the camera tells the referee, as frozen values.

:mod:`vision` produces these (:class:`vision.table_reader.TableReader`), the camera referee
(:mod:`companion.referee.camera`) consumes them. They live in the core so that both can import
them without the core ever importing the vision code.

>>> r = RegionReading.of({"red-7": 0.9, "red-1": 0.1})
>>> r.label, r.p("red-1"), r.p("blue-2")
('red-7', 0.1, 0.0001)
>>> NO_PAWN.seen
False
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["EMPTY", "FLOOR", "SIDES", "Reach", "LookChange", "LookKeeper", "RegionReading",
           "TableReading", "PawnReading", "NO_PAWN", "cell_name"]

def cell_name(row: int, col: int) -> str:
    """The region name of a grid cell (``TableReading.region`` reads it back).

    >>> cell_name(2, 0)
    'cell-2-0'
    """
    return f"cell-{row}-{col}"


#: The label of a region where no card lies.
EMPTY = "empty"
#: Probability given to a label a reading does not list (never zero: scores are logarithms).
FLOOR = 1e-4


@dataclass(frozen=True)
class PawnReading:
    """Where the pawn is: ``cell`` (row, col) -- one step outside 0..4 when it left the board --
    its centre on the mat (mm), and whether it was ``seen`` at all (False: off the table or hidden).
    """

    cell: tuple[int, int] | None
    mm: tuple[float, float] | None = None
    seen: bool = True

    @property
    def on_board(self) -> bool:
        return self.cell is not None and 0 <= self.cell[0] < 5 and 0 <= self.cell[1] < 5

    def to_json(self) -> dict[str, Any]:
        return {"cell": list(self.cell) if self.cell else None,
                "mm": [round(v, 1) for v in self.mm] if self.mm else None, "seen": self.seen}


NO_PAWN = PawnReading(None, None, False)

#: The four sides of the mat, as the camera sees it (north is the top of the mat's image).
SIDES = ("north", "east", "south", "west")


@dataclass(frozen=True)
class Reach:
    """One arm's visit over the table, seen between two readings: the ``side`` of the mat it came
    in by (one of :data:`SIDES`; None when it could not be told), the card regions it was over
    (``"draw"`` for the draw pile), and ``lifted``: the cards it took from the draw pile (0 when it
    reached there and put back or never went there; None when that could not be told).

    The reader knows sides, never seats: which seat sits at which side is the table's set-up
    (:mod:`companion.seating`), so the referee maps a reach to a seat.
    """

    side: str | None
    regions: tuple[str, ...] = ()
    lifted: int | None = 0

    @property
    def drew(self) -> bool:
        return bool(self.lifted)

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "regions": list(self.regions), "lifted": self.lifted}


# --- readings ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LookChange:
    """How far a region's look (its top-down grey patch, which the reader keeps) is from the look
    it had when the referee last saw it hold the card the state has there (the look with id
    ``since``: the referee says which, :attr:`RegionReading.look_id`), measured by the reader
    (:mod:`vision.looks`): ``plain``, 0 for the same thing and about 4 and up for another card,
    even of the same face; ``smear_free``, the same with a camera smear that turned between the
    two looks taken out of the comparison (no more than ``plain``).

    >>> LookChange(3, plain=9.0, smear_free=1.5).apart(alike=4.0)
    1.5
    >>> LookChange(3, plain=2.0, smear_free=2.0).apart(alike=4.0)
    2.0
    """

    since: int
    plain: float
    smear_free: float

    def apart(self, alike: float) -> float:
        """How far apart the looks are: ``plain`` when it is ``alike`` or less, else the
        smear-free distance (two looks that differ may differ only by the camera's smear)."""
        return self.plain if self.plain <= alike else self.smear_free


@dataclass(frozen=True)
class RegionReading:
    """What one region (a grid cell, the discard pile) shows: the best label, its confidence,
    the likeliest labels with their probabilities, and whether the votes agreed."""

    label: str
    confidence: float
    probs: tuple[tuple[str, float], ...] = ()
    agreed: bool = True
    remembered: bool = False  # covered by the pawn: the card from memory
    #: which look the region was read on (the reader keeps the pixels; one id, one look): the
    #: referee remembers a region by it (None: no look)
    look_id: int | None = field(default=None, compare=False)
    #: how far that look is from the one the referee remembers the region by (None: none
    #: remembered, or no look): tells a new card of the same face from the card that was there
    look_change: LookChange | None = field(default=None, compare=False)

    def p(self, label: str | None) -> float:
        """Probability of ``label`` (a small floor for labels not listed, and for None: no
        label)."""
        for k, v in self.probs:
            if k == label:
                return max(v, FLOOR)
        return FLOOR

    @classmethod
    def of(cls, probs: dict[str, float], agreed: bool = True, top: int = 6,
           look_id: int | None = None) -> "RegionReading":
        items = sorted(probs.items(), key=lambda kv: -kv[1])[:top]
        if not items:
            return cls(EMPTY, 1.0, ((EMPTY, 1.0),), agreed, look_id=look_id)
        label, conf = items[0]
        return cls(label, float(conf), tuple((k, round(float(v), 5)) for k, v in items), agreed,
                   look_id=look_id)

    def to_json(self) -> dict[str, Any]:
        out = {"label": self.label, "confidence": round(self.confidence, 4),
               "probs": [[k, round(v, 4)] for k, v in self.probs[:4]]}
        if not self.agreed:
            out["agreed"] = False
        if self.remembered:
            out["remembered"] = True
        return out


@dataclass(frozen=True)
class TableReading:
    """A stable reading of the whole table (frozen).

    ``cells`` is 25 region readings row by row (empty tuple when the game has no grid);
    ``discard`` the discard pile's top; ``pawn`` where the pawn stands; ``draw_changes`` counts
    the times the draw pile changed since reading started; ``changed`` names the regions read
    again for this reading; ``reaches`` the arms seen since the previous reading (who did it).
    """

    seq: int
    time: float
    cells: tuple[RegionReading, ...]
    discard: RegionReading | None
    pawn: PawnReading
    draw_changes: int = 0
    changed: tuple[str, ...] = ()
    view_source: str = ""
    #: the arms seen over the table since the previous reading, in the order they came in
    reaches: tuple[Reach, ...] = ()

    def cell(self, row: int, col: int) -> RegionReading:
        return self.cells[row * 5 + col]

    @property
    def grid_labels(self) -> list[list[str]]:
        return [[self.cell(r, c).label for c in range(5)] for r in range(5)] if self.cells else []

    @property
    def confident(self) -> float:
        """The lowest confidence of any region read again for this reading."""
        regions = [self.region(n) for n in self.changed]
        confs = [r.confidence for r in regions if r is not None]
        return min(confs) if confs else 1.0

    def region(self, name: str) -> RegionReading | None:
        if name == "discard":
            return self.discard
        if name.startswith("cell-") and self.cells:
            _, r, c = name.split("-")
            return self.cell(int(r), int(c))
        return None

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "time": round(self.time, 3),
                "grid": [[self.cell(r, c).to_json() for c in range(5)] for r in range(5)] if self.cells else None,
                "discard": self.discard.to_json() if self.discard else None,
                "pawn": self.pawn.to_json(), "draw_changes": self.draw_changes,
                "changed": list(self.changed), "view": self.view_source,
                "reaches": [r.to_json() for r in self.reaches]}


class LookKeeper(Protocol):
    """Who keeps the regions' looks (the reader's memory: :class:`vision.looks.LookMemory`), for
    the referee, which compares no pixels: told the look the referee remembers each region by
    (:meth:`remember`), it gives a reading back with each region's :class:`LookChange` from that
    look (:meth:`stamped`)."""

    def remember(self, region: str, look_id: int) -> None: ...

    def stamped(self, reading: TableReading) -> TableReading: ...
