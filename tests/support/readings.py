"""Hand-made stable readings of a grid table and of a discard pile (what the camera referee is
fed in tests), and a classic table on red-5 with its referee."""

from __future__ import annotations

from companion.bus import EventBus
from companion.reading import PawnReading, RegionReading, TableReading
from companion.referee.camera import CameraReferee
from companion.referee.table import Table

GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
        ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
        ["green-1", "green-2", "green-3", "green-4", "green-5"],
        ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
        ["red-6", "red-7", "red-8", "red-9", "blue-6"]]
SETUP = {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north", "grid": GRID,
                   "options": {"turn_seconds": 0}}}
ALL_CELLS = tuple(f"cell-{r}-{c}" for r in range(5) for c in range(5))


def reading(grid, *, seq=1, pawn=(2, 2), changed=(), discard="empty", probs=None) -> TableReading:
    """A confident reading of ``grid`` (``probs``: region -> {label: p} where it is less sure)."""
    probs = probs or {}
    cells = []
    for r in range(5):
        for c in range(5):
            name = f"cell-{r}-{c}"
            cells.append(RegionReading.of(probs.get(name, {grid[r][c]: 0.999})))
    d = RegionReading.of(probs.get("discard", {discard: 0.999}))
    return TableReading(seq, 0.0, tuple(cells), d, PawnReading(pawn), 0, tuple(changed))


def with_cell(grid, r, c, label):
    g = [row[:] for row in grid]
    g[r][c] = label
    return g


def pile_reading(seq, label, changed=("discard",)) -> TableReading:
    """A reading of a table with no grid whose discard pile shows ``label`` (read at 0.99); its
    look is given by :meth:`tests.support.looks.Looks.pile`."""
    return TableReading(seq, 0.0, (), RegionReading(label, 0.99, ((label, 0.99),)),
                        PawnReading(None, None, False), changed=tuple(changed))


def classic_pile_table(start: str = "red-5"):
    """A classic table on ``start`` (ann, ben, cai; ann first, at the south side), its camera
    referee, and the questions asked: ``(bus, table, referee, asked)``."""
    bus = EventBus()
    table = Table({"setup": {"game": "classic", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                             "start": start, "options": {"turn_seconds": 0}}}, bus)
    referee = CameraReferee(lambda: table, bus)
    asked = []
    bus.subscribe(lambda m: asked.append(m.data), {"confirm-needed"})
    return bus, table, referee, asked


def grid_referee(first: TableReading, looks=None):
    """A grid table on :data:`GRID` (north, south), its camera referee fed ``first`` (wired to
    ``looks``, a :class:`tests.support.looks.Looks`, when given), and the questions asked:
    ``(table, referee, asked)``."""
    bus = EventBus()
    asked = []
    bus.subscribe(lambda m: asked.append(m.data), {"confirm-needed"})
    table = Table(SETUP, bus, clock=lambda: 0.0)
    referee = CameraReferee(lambda: table, bus)
    if looks is not None:
        looks.wire(referee)
    referee.on_reading(first)
    return table, referee, asked


def settle(table, referee) -> None:
    """Let the referee act on what it has (its queued answers, then a tick of its clock), the
    bus delivering after each step."""
    referee.run_pending()
    table.bus.join()
    referee.tick()
    table.bus.join()
