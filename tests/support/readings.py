"""Hand-made stable readings of a grid table (what the camera referee is fed in tests)."""

from __future__ import annotations

from companion.reading import PawnReading, RegionReading, TableReading

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
