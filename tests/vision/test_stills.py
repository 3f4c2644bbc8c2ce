"""Stills: the sharpest picture a source can take (hands laid open are read in one), and the
view found on the frames scaled to fit it."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.render import CameraPose, SyntheticTable
from simulator.scene import Placement, Scene
from simulator.source import SyntheticSource
from vision.geometry import LensModel, View
from vision.sources import Frame, FrameSource, ResilientSource


def test_a_scaled_view_maps_the_mat_where_the_larger_picture_shows_it():
    lens = LensModel.simple(1280, 720, k1=-0.08)
    H = np.array([[2.0, 0.1, 300.0], [-0.05, 2.1, 40.0], [0.0, 0.0001, 1.0]])
    view = View(H, (1280, 720), lens, "markers")
    big = view.scaled_to((2560, 1440))
    pts = [(0.0, 0.0), (250.0, 310.0), (480.0, 600.0)]
    assert np.allclose(big.to_image(pts), 2 * view.to_image(pts), atol=1e-6)
    assert np.allclose(big.to_mat(2 * view.to_image(pts)), pts, atol=1e-6)
    assert big.image_size == (2560, 1440) and big.source == "markers"
    assert big.px_per_mm() == pytest.approx(2 * view.px_per_mm())


@pytest.mark.parametrize("pose", [CameraPose(), CameraPose(rotate=3.0, shift=(14.0, -9.0), tilt=0.1, k1=-0.1)])
def test_a_sharper_synthetic_table_is_the_same_camera_in_a_larger_picture(pose):
    table = SyntheticTable(640, 360, seed=2, pose=pose)
    sharp = table.sharper(2.0)
    assert (sharp.width, sharp.height) == (1280, 720)
    pts = [(0.0, 0.0), (240.0, 300.0), (480.0, 600.0)]
    assert np.allclose(sharp.view.to_image(pts), table.view.scaled_to((1280, 720)).to_image(pts), atol=0.01)
    assert sharp.mat_px > table.mat_px                     # the table is drawn finer too
    # a card lies where the frame's view, scaled, says it does
    scene = Scene(extras=((Placement("red-7", 0.0, 0.0, 0.0, "classic"), (240.0, 300.0)),))
    changed = np.abs(sharp.render(scene, noise_seed=1).astype(int)
                     - sharp.render(Scene(), noise_seed=1).astype(int)).sum(2) > 60
    ys, xs = np.nonzero(changed)
    x, y = table.view.scaled_to((1280, 720)).to_image([(240.0, 300.0)])[0]
    assert abs(xs.mean() - x) < 4 and abs(ys.mean() - y) < 4


def test_the_synthetic_source_takes_its_still_of_the_table_the_last_frame_showed():
    source = SyntheticSource(320, 180, still_scale=2.0)
    frame = source.read()
    still = source.still()
    assert still.image.shape == (360, 640, 3) and frame.image.shape == (180, 320, 3)
    small = still.image.reshape(180, 2, 320, 2, 3).mean((1, 3))
    assert np.abs(small - frame.image.astype(float)).mean() < 20    # the same table, finer


class _Frames(FrameSource):
    name = "frames"

    def __init__(self):
        self.n = 0

    def read(self):
        self.n += 1
        return Frame(np.full((4, 4, 3), self.n, np.uint8), float(self.n), self.n)


def test_a_source_without_stills_gives_its_next_frame_and_a_lost_camera_none():
    inner = _Frames()
    source = ResilientSource(lambda: inner)
    assert source.still() is None                  # nothing opened yet: no picture to give
    source.read()
    assert source.still().index == 2
    source.status = "lost"
    assert source.still() is None
