"""The pawn's marker read when a hand hides part of it (:mod:`vision.pawn_partial`).

Regression (the torture's pawn-hidden grid games): a hand resting beside the pawn hid a
corner of its marker; the marker detector found nothing, the pawn's steps went unseen, and the
referee lost them (13 missed actions, a wrong commit and two false illegal calls in five games).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry import PAWN_ID, Layout, View, marker_image
from vision.pawn import find_pawn
from vision.pawn_partial import find_partly_hidden

LAYOUT = Layout()
SCALE = 1.09  # px per mm: the torture's 1280x720 camera over the mat


def _table(pawn_cell=(2, 2), marker_id=PAWN_ID, hand_side=1, turn=0.0, hand=True):
    """A top-down frame of the mat: the pawn (a red disc and its marker) on ``pawn_cell``, a
    hand (a skin-coloured ellipse) resting beside it on ``hand_side`` over a third of it."""
    view = View(np.diag([SCALE, SCALE, 1.0]), (int(LAYOUT.width * SCALE), int(LAYOUT.height * SCALE)))
    img = np.full((view.image_size[1], view.image_size[0], 3), (40, 110, 40), np.uint8)
    x, y = LAYOUT.cell_center(*pawn_cell)
    cx, cy = int(x * SCALE), int(y * SCALE)
    cv2.circle(img, (cx, cy), int(21 * SCALE), (40, 40, 200), -1, cv2.LINE_AA)
    px = int(LAYOUT.pawn_marker_mm * SCALE * 3)  # drawn 3x, then shrunk: a camera's blur
    m = cv2.cvtColor(marker_image(marker_id, px), cv2.COLOR_GRAY2BGR)
    m = cv2.warpAffine(m, cv2.getRotationMatrix2D((px / 2, px / 2), turn, 1.0), (px, px),
                       borderValue=(40, 40, 200))
    m = cv2.resize(m, (px // 3, px // 3), interpolation=cv2.INTER_AREA)
    s = m.shape[0]
    img[cy - s // 2:cy - s // 2 + s, cx - s // 2:cx - s // 2 + s] = m
    if hand:
        hx, hy = int((x + hand_side * 26.0) * SCALE), int((y + 10.0) * SCALE)
        cv2.ellipse(img, (hx, hy), (int(26 * SCALE), int(40 * SCALE)), 20 * hand_side, 0, 360,
                    (120, 160, 215), -1, cv2.LINE_AA)
    return img, view


@pytest.mark.parametrize("side", [1, -1])
def test_a_marker_a_hand_partly_hides_is_read_where_it_lies(side):
    img, view = _table((1, 3), hand_side=side)
    near = LAYOUT.cell_center(2, 2)  # where the pawn was last seen: a step away
    assert not find_pawn(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), view, LAYOUT).seen
    found = find_partly_hidden(img, view, LAYOUT, near)
    assert found.seen and found.cell == (1, 3)
    assert abs(found.mm[0] - LAYOUT.cell_center(1, 3)[0]) < 3.0


def test_a_turned_marker_a_hand_partly_hides_is_read_too():
    img, view = _table((2, 1), hand_side=1, turn=30.0)
    found = find_partly_hidden(img, view, LAYOUT, LAYOUT.cell_center(2, 2))
    assert found.seen and found.cell == (2, 1)


def test_another_marker_partly_hidden_is_no_pawn():
    img, view = _table((2, 2), marker_id=PAWN_ID + 1)
    assert not find_partly_hidden(img, view, LAYOUT, LAYOUT.cell_center(2, 2)).seen


def test_no_pawn_near_where_it_was_is_no_pawn():
    img, view = _table((4, 4))  # the pawn lies three steps from where it is looked for
    assert not find_partly_hidden(img, view, LAYOUT, LAYOUT.cell_center(1, 1)).seen
