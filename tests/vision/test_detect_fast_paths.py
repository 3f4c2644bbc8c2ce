"""The detector's fast paths compute the same numbers as the plain numpy they replace
(vision.detect): percentiles of uint8 images from their histograms, the white balance by table
lookup, and the duplicate removal with its candidate pairs found at once."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import vision.detect as detect
from vision.detect import percentile_u8

_images = arrays(np.uint8, st.tuples(st.integers(1, 24), st.integers(1, 24), st.just(3)),
                 elements=st.integers(0, 255) | st.sampled_from([0, 17, 128, 255]))


@settings(max_examples=50, deadline=None)
@given(_images, st.sampled_from([0.0, 2.5, 37.5, 50.0, 60.0, 98.0, 100.0]), st.integers(0, 2))
def test_percentile_from_the_histogram_is_numpys(img, q, channel):
    assert percentile_u8(img, q, channel) == float(np.percentile(img[..., channel], q))


@settings(max_examples=25, deadline=None)
@given(_images)
def test_the_median_from_the_histogram_is_numpys(img):
    assert percentile_u8(img, 50) == float(np.median(img[..., 0]))


def _white_balanced_plain(img):
    """The white balance as it was written first (numpy percentile, float32 gains)."""
    p = np.percentile(img.reshape(-1, 3)[::29], 98, axis=0).astype(np.float32)
    if p.min() < 40:
        return img
    gain = p.max() / p
    if gain.max() < 1.03:
        return img
    return cv2.convertScaleAbs(img.astype(np.float32) * gain[None, None, :])


@settings(max_examples=15, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(8, 40), st.integers(8, 40), st.just(3))),
       st.tuples(*[st.floats(0.3, 1.0)] * 3))
def test_white_balance_by_lookup_is_the_float_product(img, tint):
    img = (img.astype(np.float32) * np.float32(tint)).astype(np.uint8)  # a cast to balance away
    assert np.array_equal(detect._white_balanced(img), _white_balanced_plain(img))


def _dedup_plain(cands, iou):
    """Every candidate against every kept one (no pre-selection of pairs)."""
    kept = []
    for _, q in sorted(cands, key=lambda t: -t[0]):
        if all(detect.quad_iou(q, k) < iou for k in kept):
            kept.append(q)
    return kept


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.floats(20, 200), st.floats(20, 200), st.floats(10, 60), st.floats(0, 90)),
                min_size=0, max_size=25))
def test_duplicates_are_dropped_as_comparing_every_pair_would(boxes):
    cands = []
    for cx, cy, w, ang in boxes:
        for grow in (1.0, 1.02, 1.3):  # near-duplicates and a bigger outline around each
            q = detect.order_quad(cv2.boxPoints(((cx, cy), (w * grow, 1.55 * w * grow), ang)))
            cands.append((cv2.contourArea(q), q))
    got = detect._dedup(cands, 0.9)
    want = _dedup_plain(cands, 0.9)
    assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))


def test_maps_made_ahead_come_in_order_and_their_errors_reach_the_caller(monkeypatch):
    assert list(detect._ahead(iter(range(50)))) == list(range(50))

    def broken():
        yield 1
        raise ValueError("a map failed")

    got = []
    with pytest.raises(ValueError, match="a map failed"):
        for item in detect._ahead(broken()):
            got.append(item)
    assert got == [1]
    monkeypatch.setattr(detect.cv2, "getNumThreads", lambda: 1)  # one thread: made in the caller's
    assert list(detect._ahead(iter("abc"))) == ["a", "b", "c"]


def test_outlines_are_the_same_with_the_maps_made_ahead_or_in_turn(monkeypatch):
    rng = np.random.default_rng(3)
    img = rng.integers(90, 140, (360, 640, 3), dtype=np.uint8)
    for x in (60, 260, 460):  # three white cards with a coloured field on a grey table
        cv2.rectangle(img, (x, 90), (x + 110, 260), (245, 245, 245), -1)
        cv2.rectangle(img, (x + 9, 99), (x + 101, 251), (40, 40, 210), -1)
    ahead = detect.find_quads(img)
    monkeypatch.setattr(detect.cv2, "getNumThreads", lambda: 1)
    in_turn = detect.find_quads(img)
    assert len(ahead) >= 3 and len(ahead) == len(in_turn)
    assert all(np.array_equal(a, b) for a, b in zip(ahead, in_turn))


@settings(max_examples=30, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 40), st.integers(1, 40)), elements=st.sampled_from([0, 255])),
       st.sampled_from([cv2.RETR_LIST, cv2.RETR_EXTERNAL]))
def test_contour_areas_at_once_are_opencvs_to_the_bit(mask, mode):
    contours = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)[0]
    areas = detect._contour_areas(contours)
    assert areas.tolist() == [cv2.contourArea(c) for c in contours]


def test_contour_areas_tell_specks_from_shapes():
    square = np.array([[[0, 0]], [[10, 0]], [[10, 10]], [[0, 10]]], np.int32)
    point, line = square[:1], square[:2]
    triangle = np.array([[[5, 5]], [[5, 25]], [[45, 5]]], np.int32)  # clockwise or not: unsigned
    assert detect._contour_areas((point, square, line, triangle)).tolist() == [0.0, 100.0, 0.0, 400.0]
    assert detect._contour_areas(()).tolist() == []


def _colour_maps_plain(small):
    """The coloured-field and white maps as written before the HSV channels were split apart
    once (each use took its channel of the HSV image): the oracle."""
    def unlike_table(hsv, sat):
        h, w = sat.shape
        b = max(2, min(h, w) // 20)
        edge = np.concatenate([hsv[:b].reshape(-1, 3), hsv[-b:].reshape(-1, 3),
                               hsv[:, :b].reshape(-1, 3), hsv[:, -b:].reshape(-1, 3)])
        t_hue, t_sat = (float(np.percentile(edge[:, c], 50)) for c in (0, 1))
        if t_sat < 60:
            return detect._above(sat, max(70.0, t_sat + 45))
        d = np.abs(np.arange(256, dtype=np.int16) - int(t_hue))
        far = cv2.LUT(np.ascontiguousarray(hsv[..., 0]), ((np.minimum(d, 180 - d) > 12) * 255).astype(np.uint8))
        return cv2.bitwise_and(detect._above(sat, 70), cv2.bitwise_or(far, detect._above(sat, t_sat + 60)))

    def colourful(hsv, sat, val):
        m = cv2.bitwise_and(unlike_table(hsv, sat), detect._above(val, 50))
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        return cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))

    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    sat = cv2.GaussianBlur(hsv[..., 1], (5, 5), 0)
    val = hsv[..., 2]
    out = {"fields": colourful(hsv, sat, val)}
    white = cv2.bitwise_and(detect._above(sat, 59, invert=True),
                            detect._above(val, max(120.0, float(np.percentile(hsv[..., 2], 60)))))
    out["white"] = cv2.morphologyEx(white, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    balanced = detect._white_balanced(small)
    if balanced is not small:
        hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
        out["balanced fields"] = colourful(hsv, cv2.GaussianBlur(hsv[..., 1], (5, 5), 0), hsv[..., 2])
    else:
        out["balanced fields"] = out["fields"]
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["grey", "wood", "felt"]), st.booleans())
def test_colour_maps_from_the_split_channels_are_the_plain_ones(seed, table, tinted):
    """Cards on a grey table (any saturated pixel is a field) and on saturated wooden and felt
    ones (the table's hue is told apart), under neutral light and tinted (the balanced map)."""
    rng = np.random.default_rng(seed)
    base = {"grey": (120, 120, 120), "wood": (60, 110, 170), "felt": (60, 140, 40)}[table]
    img = np.clip(rng.normal(base, 12, (72, 120, 3)), 0, 255).astype(np.uint8)
    for x in (8, 46, 84):  # white cards with coloured fields of random hues
        cv2.rectangle(img, (x, 14), (x + 28, 58), (245, 245, 245), -1)
        cv2.rectangle(img, (x + 3, 17), (x + 25, 55), tuple(int(v) for v in rng.integers(0, 256, 3)), -1)
    if tinted:
        img = cv2.convertScaleAbs(img.astype(np.float32) * np.float32([0.8, 0.95, 1.15]))
    maps = {name: m for name, m, _ in detect._maps(img, 2)}
    for name, plain in _colour_maps_plain(img).items():
        assert np.array_equal(maps[name], plain), name
