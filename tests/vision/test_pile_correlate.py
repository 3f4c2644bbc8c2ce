"""``vision.pile.correlate_each``: the chamfer search's correlation by one image spectrum gives
``cv2.filter2D``'s scores (zero borders), for any patch and outline sizes."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.pile import _outline, correlate_each


@settings(max_examples=25, deadline=None)
@given(h=st.integers(8, 90), w=st.integers(8, 90), sizes=st.lists(st.integers(0, 20), min_size=1,
       max_size=4), seed=st.integers(0, 2**16))
def test_each_kernel_scores_as_filter2d_does(h, w, sizes, seed):
    rng = np.random.default_rng(seed)
    image = rng.random((h, w), dtype=np.float32)
    kernels = [rng.standard_normal((2 * s + 1, 2 * s + 1)).astype(np.float32) for s in sizes]
    for kernel, got in zip(kernels, correlate_each(image, kernels)):
        want = cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_CONSTANT)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(kernel).sum()))


def test_a_card_outline_scores_best_where_the_card_lies():
    edges = np.zeros((120, 100), np.float32)
    box = cv2.boxPoints(((48.0, 63.0), (40.0, 62.0), 12.0))
    cv2.polylines(edges, [np.round(box).astype(np.int32)], True, 1.0, 1, cv2.LINE_AA)
    kernels = [_outline(40.0, 62.0, angle, 1, 3.0) for angle in (0.0, 12.0, 30.0)]
    scores = correlate_each(edges, kernels)
    best = [float(s.max()) for s in scores]
    assert max(range(3), key=best.__getitem__) == 1  # the card's own turn
    y, x = np.unravel_index(np.argmax(scores[1]), scores[1].shape)
    assert abs(x - 48) <= 1 and abs(y - 63) <= 1


def test_kept_kernel_spectra_give_the_same_scores_to_the_bit(monkeypatch):
    import vision.pile as pile

    rng = np.random.default_rng(3)
    image = rng.random((104, 147), dtype=np.float32)
    made = [(40.0, 62.0, angle, 1, 3.5) for angle in (-6.0, 0.0, 27.0)]
    drawn = correlate_each(image, [_outline(*m) for m in made])
    first = correlate_each(image, [pile._OutlineKernel(*m) for m in made])  # spectra made, kept
    draws = []
    monkeypatch.setattr(pile, "_outline", lambda *a: draws.append(a) or _outline(*a))
    again = correlate_each(image, [pile._OutlineKernel(*m) for m in made])  # from the kept ones
    assert draws == []  # no kernel drawn, none transformed again
    for d, f, a in zip(drawn, first, again):
        assert np.array_equal(d, f) and np.array_equal(f, a)


def test_the_kept_spectra_stay_within_their_budget():
    from vision.pile import _Spectra

    kept = _Spectra(budget=3 * 400)
    for i in range(5):
        kept.put(("k", i), np.zeros(100, np.float32))       # 400 bytes each
    assert [kept.get(("k", i)) is not None for i in range(5)] == [False, False, True, True, True]
    kept.get(("k", 2))                                        # used: kept over 3 and 4
    kept.put(("k", 5), np.zeros(100, np.float32))
    assert kept.get(("k", 2)) is not None and kept.get(("k", 3)) is None
    kept.put(("big",), np.zeros(1000, np.float32))          # bigger than the whole budget: not kept
    assert kept.get(("big",)) is None and kept.get(("k", 5)) is not None
