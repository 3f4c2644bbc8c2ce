"""``vision.card_art.paint``: the blend of a colour through a mask, worked only where the mask is
set, gives the bytes of blending every pixel."""

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.card_art import paint


def _blended_everywhere(img, mask, color, alpha):
    a = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    return (img * (1 - a) + np.array(color, np.float32) * a).astype(img.dtype)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), alpha=st.sampled_from([1.0, 0.5, 0.25, 0.999]),
       color=st.tuples(*[st.floats(0, 255, width=32)] * 3),
       edge=st.sampled_from(["anti-aliased", "hard", "empty", "soft"]))
def test_paint_gives_the_bytes_of_blending_every_pixel(seed, alpha, color, edge):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (24, 30, 3), dtype=np.uint8)
    mask = np.zeros((24, 30), np.uint8)
    if edge == "soft":
        mask[:] = rng.integers(0, 256, mask.shape, dtype=np.uint8)
    elif edge != "empty":
        r = int(rng.integers(3, 10))
        cv2.circle(mask, (int(rng.integers(0, 30)), int(rng.integers(0, 24))), r, 255, -1,
                   cv2.LINE_AA if edge == "anti-aliased" else cv2.LINE_8)
    want = _blended_everywhere(img, mask, color, alpha)
    got = img.copy()
    paint(got, mask, color, alpha)
    assert np.array_equal(got, want)
    assert np.array_equal(got[mask == 0], img[mask == 0])


def test_paint_on_a_grey_image_blends_its_one_channel():
    img = np.full((4, 4), 100, np.uint8)
    mask = np.zeros((4, 4), np.uint8)
    mask[1, 1], mask[2, 2] = 255, 128
    paint(img, mask, 200)
    assert (img[1, 1], img[2, 2], img[0, 0]) == (200, 150, 100)
