"""What the reader works out once per camera view (each corner marker's drawing for the
smear's measure) follows the view it is given, and the pawn is looked for where it stood first,
then a step round, then everywhere."""

from __future__ import annotations

import cv2
import numpy as np

from simulator.render import CameraPose, SyntheticTable
from simulator.scene import Placement, Scene
from vision.desmear import smear_kernel
from vision.frame_smear import measure_smear
from vision.geometry import Layout
from vision.pawn import find_pawn

L = Layout()


def _grey(table: SyntheticTable, scene: Scene, smear=None) -> np.ndarray:
    image = table.render(scene)
    if smear is not None:
        image = cv2.filter2D(image, -1, smear_kernel(*smear))
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def test_the_smear_is_measured_on_the_markers_of_the_view_given_whichever_came_before():
    scene = Scene(discard=(Placement("blue-1"),), draw_count=20)
    # two cameras, frames of one size: the markers lie elsewhere in each
    a = SyntheticTable(1280, 720, seed=1)
    b = SyntheticTable(1280, 720, seed=4, pose=CameraPose(rotate=4.0, shift=(40.0, -20.0)))
    assert np.abs(a.view.to_image([(20.0, 20.0)]) - b.view.to_image([(20.0, 20.0)])).max() > 5
    sharp_a, sharp_b = _grey(a, scene), _grey(b, scene)
    smeared_a, smeared_b = _grey(a, scene, (7, 40)), _grey(b, scene, (7, 130))
    for _ in range(2):  # each view in turn, twice: what is kept for one never serves the other
        found_a = measure_smear(smeared_a, a.view, a.layout)
        found_b = measure_smear(smeared_b, b.view, b.layout)
        assert found_a is not None and abs(found_a[1] - 40) <= 25 and 5 <= found_a[0] <= 9
        assert found_b is not None and abs(found_b[1] - 130) <= 25 and 5 <= found_b[0] <= 9
        assert measure_smear(sharp_a, a.view, a.layout) is None
        assert measure_smear(sharp_b, b.view, b.layout) is None


def test_the_pawn_is_found_where_it_stood_a_step_away_and_anywhere_on_the_board():
    table = SyntheticTable(1280, 720, seed=5)
    grid = tuple((Placement(("red-1", "blue-7", "green-skip")[i % 3], 1.0, -1.0, 2.0),)
                 for i in range(25))
    centre = L.cell_center(1, 3)
    gray = _grey(table, Scene(grid=grid, pawn=(centre[0] + 5.0, centre[1] - 4.0), draw_count=20))
    for near, why in ((centre, "where it stood"), (L.cell_center(2, 2), "a step away"),
                      (L.cell_center(4, 0), "across the board"), (None, "anywhere")):
        seen = find_pawn(gray, table.view, L, near=near)
        assert seen.seen and seen.cell == (1, 3), why
        assert abs(seen.mm[0] - centre[0] - 5.0) < 2.0 and abs(seen.mm[1] - centre[1] + 4.0) < 2.0


def test_a_smear_measured_again_and_again_on_one_view_is_measured_alike():
    # what is kept for a view serves every frame as it was made: a frame measured after many
    # others gives what it gave first, and what a view never used before gives
    from dataclasses import replace

    table = SyntheticTable(1280, 720, seed=6)
    scene = Scene(discard=(Placement("blue-1"),), draw_count=20)
    frames = [_grey(table, scene, (7, angle)) for angle in (20, 40, 160)]
    for index in (1, 3):  # two markers under arms: the other two measure alone
        corners = table.view.to_image(table.layout.marker_square(index))
        (x0, y0), (x1, y1) = corners.min(0).astype(int) - 4, corners.max(0).astype(int) + 4
        for f in frames:
            f[y0:y1, x0:x1] = 90
    first = [measure_smear(f, table.view, table.layout) for f in frames]
    assert any(found is not None for found in first)
    for _ in range(10):
        assert [measure_smear(f, table.view, table.layout) for f in frames] == first
    fresh = replace(table.view, H=table.view.H.copy())  # another view object: nothing kept
    assert [measure_smear(f, fresh, table.layout) for f in frames] == first
