"""benchmarks/fanned_camera.py: the camera's faults it puts on a table, and its answer without
the photo data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fanned_camera.py"


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/fanned_camera.py")


def _table():
    rng = np.random.default_rng(3)
    img = np.full((120, 160, 3), 200, np.uint8)
    img[30:90, 40:80] = (30, 40, 220)                       # a red card
    img[50:60, 50:60] = 255                                  # a sharp white index
    return img + rng.integers(0, 3, img.shape, dtype=np.uint8)


def _sharpest_step(img):
    return np.abs(np.diff(img[:, :, 1].astype(int), axis=1)).max()


def test_each_fault_changes_the_picture_the_way_it_says(bench):
    img = _table()
    soft = bench.through_camera(img, np.random.default_rng(1), "soft")
    light = bench.through_camera(img, np.random.default_rng(1), "light")
    assert soft.shape == img.shape and soft.dtype == np.uint8
    # lower resolution and blur: the white index's hard edge is spread
    assert _sharpest_step(soft) < _sharpest_step(img)
    # white balance off: blue down and red up against green
    b, g, r = (light[..., c].astype(float).mean() / max(1.0, img[..., c].astype(float).mean()) for c in range(3))
    assert b < g < r


def test_the_faults_are_drawn_from_the_seed(bench):
    img = _table()
    a = bench.through_camera(img, np.random.default_rng(7), "all")
    b = bench.through_camera(img, np.random.default_rng(7), "all")
    c = bench.through_camera(img, np.random.default_rng(8), "all")
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_without_the_photo_data_it_says_so(tmp_path):
    env = {"UNO_DATA": str(tmp_path / "nowhere"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, str(SCRIPT), "--seeds", "505"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 2 and "UNO_DATA" in r.stderr


def test_no_fault_leaves_the_picture_and_a_scale_resizes_the_cards_with_it(bench):
    from vision.overlap import HandCard

    img = _table()
    assert np.array_equal(bench.through_camera(img, np.random.default_rng(1), "none"), img)
    quad = np.float32([[40, 30], [80, 30], [80, 90], [40, 90]])
    card = HandCard("red-7", quad, 1.0, 1.0, ())
    big, [big_card] = bench.scaled(img, [card], 2.5)
    assert big.shape == (300, 400, 3)
    assert np.allclose(big_card.quad, quad * 2.5) and big_card.label == "red-7"
    # the red card is still where its outline says
    x0, y0 = big_card.quad.min(0).astype(int) + 5
    x1, y1 = big_card.quad.max(0).astype(int) - 5
    assert big[y0:y1, x0:x1, 2].mean() > 200 and big[y0:y1, x0:x1, 0].mean() < 60
    same, [same_card] = bench.scaled(img, [card], 1.0)
    assert same is img and same_card is card


def _widths(quads):
    return [float(np.ptp(np.asarray(q)[:, 0])) for q in quads]


def test_a_leaning_camera_shrinks_the_far_cards_and_moves_their_outlines_with_them(bench):
    from vision.overlap import HandCard

    img = np.full((200, 200, 3), 200, np.uint8)
    far_q = np.float32([[80, 10], [120, 10], [120, 60], [80, 60]])
    near_q = np.float32([[80, 140], [120, 140], [120, 190], [80, 190]])
    img[10:60, 80:120] = (30, 40, 220)                       # a red card far off
    img[140:190, 80:120] = (220, 40, 30)                     # a blue card near by
    cards = [HandCard("red-7", far_q, 1.0, 1.0, ((far_q[:2].copy(), 1.0),)),
             HandCard("blue-7", near_q, 1.0, 1.0, ())]
    out, (far, near) = bench.leaned(img, cards, 0.65)
    assert out.shape == img.shape
    w_far, w_near = _widths([far.quad, near.quad])
    assert w_far < 0.8 * 40 and w_near > 0.9 * 40 and w_far < 0.8 * w_near
    # the truth follows the pixels: each outline still frames its own colour
    for card, channel in ((far, 2), (near, 0)):
        x0, y0 = np.ceil(card.quad.min(0)).astype(int) + 2
        x1, y1 = np.floor(card.quad.max(0)).astype(int) - 2
        assert out[y0:y1, x0:x1, channel].mean() > 200
    assert far.indices[0][0].shape == (2, 2) and far.label == "red-7"
    # seen from straight above nothing changes
    same, same_cards = bench.leaned(img, cards, 1.0)
    assert same is img and same_cards is cards


def test_a_lean_outside_its_range_is_refused(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--lean", "1.5"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "--lean" in r.stderr
