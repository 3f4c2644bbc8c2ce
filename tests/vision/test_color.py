"""vision.color.normalize_card: by lookup tables and partial sorts, the same pixels as the plain
numpy arithmetic it replaced (which the card model was trained on), and a clear error on bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.color import normalize_card


def _plain(card_bgr):
    """The white balance as first written (float32 arithmetic on every pixel): the oracle."""
    img = card_bgr.astype(np.float32)
    flat = img.reshape(-1, 3)
    n = len(flat)
    lum = flat[:, 0] + flat[:, 1] + flat[:, 2]
    k = max(8, n // 10)
    top = flat[np.argpartition(lum, n - k)[n - k:]]
    chroma = top.max(1) - top.min(1)
    keep = top[chroma <= np.median(chroma)]
    white = np.median(keep, axis=0) + 1.0
    gains = white.mean() / white
    gains = np.clip(gains, 0.6, 1.6)
    gains /= gains.mean()
    img *= gains.astype(np.float32)
    allv = img.reshape(-1)
    lo = float(np.partition(allv, int(0.015 * (allv.size - 1)))[int(0.015 * (allv.size - 1))])
    mx = img.max(2).reshape(-1)
    hi = float(np.partition(mx, int(0.97 * (mx.size - 1)))[int(0.97 * (mx.size - 1))])
    scale = 235.0 / max(hi - lo, 40.0)
    img = (img - lo) * scale + 10
    return np.clip(img, 0, 255).astype(np.uint8)


@settings(max_examples=40, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(3, 40), st.integers(3, 30), st.just(3)),
              elements=st.integers(0, 255)))
def test_the_same_pixels_as_the_plain_arithmetic(card):
    assert np.array_equal(normalize_card(card), _plain(card))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 2, 6, 60]))
def test_the_same_pixels_on_card_sized_images_with_few_levels(seed, levels):
    """Many equal values (flat fields, a border of one white) stress the partial sorts' ties."""
    rng = np.random.default_rng(seed)
    card = rng.integers(0, 256, (96, 64, 3), np.uint8)
    if levels:
        card = (card // (256 // levels) * (256 // levels)).astype(np.uint8)
    card[::7] = card[0, 0]
    out = normalize_card(card[:, ::-1])  # (a view that is not contiguous)
    assert out.dtype == np.uint8 and out.shape == card.shape
    assert np.array_equal(out, _plain(np.ascontiguousarray(card[:, ::-1])))


@pytest.mark.parametrize("bad", [np.zeros((4, 4), np.uint8), np.zeros((4, 4, 3), np.float32),
                                 np.zeros((4, 4, 4), np.uint8), np.zeros((0, 4, 3), np.uint8),
                                 np.zeros((1, 7, 3), np.uint8)])
def test_anything_but_a_bgr_uint8_image_is_refused_clearly(bad):
    with pytest.raises(ValueError, match="uint8 BGR"):
        normalize_card(bad)
