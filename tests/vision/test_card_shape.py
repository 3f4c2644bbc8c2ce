"""vision.card_shape: the one rounded card mask, corner order and rectifier.

Each was written out again in several modules (the mask in vision.synth, vision.train.augment,
simulator.render and vision.card_art; the corner order and the rectifier in vision.table_reader
and vision.detect). The references below are those copies, word for word: the shared piece must
give the very same pixels and corners where they did.
"""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.card_shape import CARD_H, CARD_W, card_mask, draw_rounded_rect, order_quad, rectify
from vision.card_art import draw_card


# --- the former copies ------------------------------------------------------------------------

def former_mask(tw, th, ratio=0.06, line=cv2.LINE_8):
    """vision.synth.paste_card's and vision.train.augment._paste's mask, as they were; with
    ``ratio=0.07, line=cv2.LINE_AA``, simulator.render.SyntheticTable._sprite's."""
    mask = np.zeros((th, tw), np.uint8)
    r = max(2, int(tw * ratio))
    cv2.rectangle(mask, (r, 0), (tw - 1 - r, th - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (tw - 1, th - 1 - r), 255, -1)
    for cx, cy in ((r, r), (tw - 1 - r, r), (r, th - 1 - r), (tw - 1 - r, th - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, line)
    return mask


def card_art_rounded(mask, x0, y0, x1, y1, r):
    """vision.card_art._rounded, as it was."""
    cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)


def table_reader_order(box):
    """vision.table_reader._card_from_mask's corner order, as it was."""
    s = box.sum(1)
    box = np.roll(box, -int(np.argmin(s)), 0)
    a, b = box[1] - box[0], box[2] - box[1]
    if a[0] * b[1] - a[1] * b[0] < 0:
        box = box[[0, 3, 2, 1]]
    return box


def table_reader_rectify(patch, quad, size=(64, 96)):
    """vision.table_reader.rectify_card, as it was."""
    dst = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32)
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(patch, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


sizes = st.tuples(st.integers(8, 260), st.integers(8, 390))


# --- the mask -----------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(sizes)
def test_the_mask_is_the_synthetic_photos_mask_pixel_for_pixel(size):
    w, h = size
    assert np.array_equal(card_mask(w, h, corner=0.06), former_mask(w, h))


@settings(max_examples=60, deadline=None)
@given(sizes)
def test_the_antialiased_mask_is_the_simulated_cameras_mask_pixel_for_pixel(size):
    w, h = size
    assert np.array_equal(card_mask(w, h, corner=0.07, antialias=True), former_mask(w, h, 0.07, cv2.LINE_AA))


def test_the_two_kinds_of_corner_differ_so_the_comparisons_above_can_fail():
    assert not np.array_equal(card_mask(128, 192, corner=0.07, antialias=True), former_mask(128, 192))
    assert not np.array_equal(card_mask(128, 192, corner=0.06), former_mask(128, 192, 0.07, cv2.LINE_AA))


@settings(max_examples=60, deadline=None)
@given(sizes, st.integers(0, 20), st.integers(1, 30))
def test_a_rounded_box_inside_an_image_is_the_card_drawers_pixel_for_pixel(size, inset, r):
    w, h = size
    got, want = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
    draw_rounded_rect(got, inset, inset, w - 1 - inset, h - 1 - inset, r)
    card_art_rounded(want, inset, inset, w - 1 - inset, h - 1 - inset, r)
    assert np.array_equal(got, want)


def test_a_mask_is_the_card_inside_and_empty_in_its_cut_off_corners():
    mask = card_mask(100, 150, corner=0.1)
    assert mask[75, 50] == 255 and mask[0, 50] == 255 and mask[75, 0] == 255
    assert mask[0, 0] == mask[0, 99] == mask[149, 0] == mask[149, 99] == 0


# --- the corners --------------------------------------------------------------------------------

portrait_boxes = st.tuples(st.floats(40, 600), st.floats(40, 400), st.floats(20, 120),
                           st.floats(1.3, 1.7), st.floats(-40, 40))


def box_points(cx, cy, w, ratio, angle):
    return cv2.boxPoints(((cx, cy), (w, w * ratio), angle)).astype(np.float32)


@settings(max_examples=200, deadline=None)
@given(portrait_boxes)
def test_a_portrait_box_gets_the_corners_the_table_reader_gave_it(box):
    corners = box_points(*box)
    assert np.array_equal(order_quad(corners), table_reader_order(corners))


@settings(max_examples=200, deadline=None)
@given(portrait_boxes, st.permutations(range(4)))
def test_the_order_is_clockwise_from_a_short_edge_whatever_order_the_corners_come_in(box, perm):
    corners = box_points(*box)
    q = order_quad(corners[list(perm)])
    assert np.array_equal(q, order_quad(corners))
    edges = [np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)]
    assert edges[0] < edges[1] and edges[2] < edges[3]
    a, b = q[1] - q[0], q[2] - q[1]
    assert a[0] * b[1] - a[1] * b[0] > 0  # clockwise with y down
    assert q[0][1] + q[1][1] <= q[2][1] + q[3][1] + 1e-3  # the upper short edge first


def test_a_landscape_box_is_turned_portrait():
    q = order_quad(np.array([[0, 0], [0, 50], [80, 50], [80, 0]], np.float32))
    assert np.linalg.norm(q[1] - q[0]) == 50


# --- the rectifier ------------------------------------------------------------------------------

def _scene(seed=0):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 255, (300, 400, 3), np.uint8)
    img[60:260, 100:260] = draw_card("blue-7", 160, 200)
    return img


@settings(max_examples=40, deadline=None)
@given(st.floats(100, 300), st.floats(80, 220), st.floats(30, 120), st.floats(-30, 30))
def test_a_small_card_is_rectified_as_the_table_reader_did_pixel_for_pixel(cx, cy, w, angle):
    img = _scene()
    quad = order_quad(box_points(cx, cy, w, 1.5, angle))  # under twice CARD_W wide
    assert np.array_equal(rectify(img, quad, (CARD_W, CARD_H)), table_reader_rectify(img, quad))


def test_a_big_card_is_warped_at_twice_the_size_and_shrunk():
    img = _scene()
    quad = order_quad(box_points(180, 160, 150, 1.5, 5))  # over twice CARD_W wide
    smooth = rectify(img, quad)
    assert smooth.shape == (CARD_H, CARD_W, 3)
    assert not np.array_equal(smooth, table_reader_rectify(img, quad))
    straight = table_reader_rectify(img, quad)
    # area averaging keeps less of the noise's high frequencies than a straight warp
    assert cv2.Laplacian(smooth, cv2.CV_32F).var() < cv2.Laplacian(straight, cv2.CV_32F).var()
