"""The live reader spends a frame's work only where it can change the reading: what it skips,
seen through the classifier it is given (how many cards it is asked to read, and in how many
calls) and through each stage's own interface."""

from __future__ import annotations

import numpy as np

from companion.reading import EMPTY
from companion.tuning import default
from simulator.render import SyntheticTable
from simulator.scene import Placement, Scene
from vision.geometry import Layout
from vision.table_reader import TableReader
from vision.table_stages import Frame, PawnWatch, ReadRegions

L = Layout()
KNOBS = default().reader


def _grid_scene(pawn_mm) -> Scene:
    labels = ["red-1", "blue-7", "green-skip", "yellow-4", "red-6"]
    grid = tuple((Placement(labels[i % 5], 1.0, -1.0, 2.0),) for i in range(25))
    return Scene(grid=grid, pawn=pawn_mm, discard=(Placement("red-5"),), draw_count=40)


class _Weak:
    """Reads every card as a weak red 1 (under the tuning's ``weak_read``) and counts the
    cards it is asked to read, call by call."""

    def __init__(self):
        self.calls: list[int] = []

    def classify_many(self, cards):
        self.calls.append(len(cards))
        return [{"red-1": 0.5, "red-7": 0.3, EMPTY: 0.2} for _ in cards]


def test_a_weak_read_is_looked_at_again_unless_something_covers_its_region():
    table = SyntheticTable(640, 480, seed=2)
    image = table.render(_grid_scene(L.cell_center(2, 2)))
    weak = _Weak()
    (_, label, _), = ReadRegions(weak, KNOBS).read(image, table.view, L, ["cell-2-2"])
    assert label == "red-1" and len(weak.calls) > 1  # the outlines in the patch read again
    weak = _Weak()
    (name, label, probs), = ReadRegions(weak, KNOBS).read(image, table.view, L, ["cell-2-2"],
                                                          covered="cell-2-2")
    assert (name, label, probs["red-1"]) == ("cell-2-2", "red-1", 0.5) and weak.calls == [1]
    weak = _Weak()  # another region covered: this one is looked at again
    ReadRegions(weak, KNOBS).read(image, table.view, L, ["cell-2-2"], covered="cell-1-1")
    assert len(weak.calls) > 1


def test_pawn_watch_says_which_cell_its_last_look_saw_the_pawn_on():
    table = SyntheticTable(1120, 630, seed=3)
    stage = PawnWatch("grid", L)
    assert stage.standing_on is None  # not looked yet
    stage.look(Frame(table.render(_grid_scene(L.cell_center(1, 3)))), table.view)
    assert stage.standing_on == (1, 3)
    stage.look(Frame(table.render(_grid_scene(None))), table.view)  # lifted off the table
    assert stage.standing_on is None


def test_the_card_under_the_pawn_is_not_looked_at_again_once_a_reading_was_given():
    # the reading keeps the card read under the pawn before it came: a weak read there is
    # not looked at again (every other weak read is)
    table = SyntheticTable(1120, 630, seed=3)
    weak = _Weak()
    reader = TableReader("grid", view=table.view, classifier=weak)
    centre = L.cell_center(2, 2)
    first = [reader.process(table.render(_grid_scene(centre)), t=n / 30).reading
             for n in range(24)]
    assert any(r is not None for r in first)
    # the pawn nudged within its cell: only that cell changed
    nudged = _grid_scene((centre[0] + 4.0, centre[1] - 3.0))
    weak.calls.clear()
    reads = []
    for n in range(24, 36):
        report = reader.process(table.render(nudged), t=n / 30)
        reads += report.read
    assert "cell-2-2" in reads and reader.last_reading.pawn.cell == (2, 2)
    assert weak.calls and all(n == 1 for n in weak.calls), weak.calls


def test_the_askew_card_found_for_one_change_is_kept_until_its_region_settles():
    from vision.rectify import AskewFinder

    class _Counting(AskewFinder):
        def __init__(self):
            super().__init__()
            self.located = 0

        def locate(self, *args, **kwargs):
            self.located += 1
            return super().locate(*args, **kwargs)

    table = SyntheticTable(1280, 720, seed=1)
    region, view, px = L.regions["discard"], table.view, 1.4
    calm = Scene(discard=(Placement("red-5"),), draw_count=20)
    thrown = Scene(discard=(Placement("red-5"), Placement("blue-7", 6.0, 4.0, 25.0)), draw_count=20)
    finder = _Counting()

    def look(scene, before, change):
        frame = table.render(scene)
        patch = view.warp_region(frame, region, px, margin=4.0)
        return patch, finder.look(frame, view, region, "discard", px, patch, before, None,
                                  change=change)

    settled, _ = look(calm, None, None)
    finder.settled("discard")
    finder.located = 0
    _, found = look(thrown, settled, ("outline", 1))
    assert found is not None and finder.located == 1  # the thrown card reaches out
    _, again = look(thrown, settled, ("outline", 1))  # the next frame, the same change
    assert finder.located == 1 and np.array_equal(again[1], found[1])
    look(thrown, settled, ("outline", 2))  # another change: looked for
    assert finder.located == 2
    finder.settled("discard")  # settled: nothing found before holds
    look(thrown, settled, ("outline", 1))
    assert finder.located == 3
