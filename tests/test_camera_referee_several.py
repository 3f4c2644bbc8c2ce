"""Several regions changed at once (actions the camera could not see in between): the referee
never guesses their order; it asks which came first."""

from __future__ import annotations

from companion.bus import EventBus
from companion.referee.camera import CameraReferee
from companion.referee.table import Table
from vision.pawn import PawnReading
from vision.table_reader import RegionReading, TableReading

GRID = [["red-1", "red-2", "red-3", "red-4", "red-5"],
        ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5"],
        ["green-1", "green-2", "green-3", "green-4", "green-5"],
        ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"],
        ["red-6", "red-7", "red-8", "red-9", "blue-6"]]


def reading(seq, grid, discard="empty", changed=()):
    cells = tuple(RegionReading(label, 0.99, ((label, 0.99),)) for row in grid for label in row)
    return TableReading(seq, 0.0, cells, RegionReading(discard, 0.99, ((discard, 0.99),)),
                        PawnReading((2, 2), (225.0, 302.5), True), changed=tuple(changed))


def test_two_changes_at_once_are_asked_in_order_not_guessed():
    bus = EventBus()
    table = Table({"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                             "grid": GRID, "options": {"turn_seconds": 0}}}, bus)
    referee = CameraReferee(lambda: table, bus)
    asked = []
    bus.subscribe(lambda m: asked.append(m.data), {"confirm-needed"})
    referee.on_reading(reading(1, GRID))
    after = [row[:] for row in GRID]
    after[0][0] = "red-7"      # north's play ...
    after[1][1] = "blue-9"     # ... and south's, seen together
    referee.on_reading(reading(2, after, changed=("cell-0-0", "cell-1-1")))
    assert table.state_json()["grid"][0][0] == "red-1"  # nothing committed on a guess
    assert asked and "several" in asked[-1]["question"]
    first = next(c for c in asked[-1]["choices"] if c["action"] and c["action"].get("cell") == [0, 0])
    referee.answer(first["id"], by="north")
    referee.tick()
    state = table.state_json()
    assert state["grid"][0][0] == "red-7"
    assert state["grid"][1][1] == "blue-9" or referee.question is not None
