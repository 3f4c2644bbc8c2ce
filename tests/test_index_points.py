"""The corner-index finder (vision.index_points): a card's outline from its index's middle and
reading direction, the training targets (vision.train.index_points) and the committed network
on drawn hands."""

import math

import numpy as np
import pytest

from vision.detect import quad_iou
from vision.index_points import MODEL_PATH, IndexPoints, index_points, outline_at
from vision.overlap import INDEX_VISIBLE
from vision.train.index_points import crop_targets, index_targets

from tests.support.drawn_hands import drawn_hand


def _indices(truth, shown=INDEX_VISIBLE):
    """(middle, right, card, share shown) of every corner index showing at least ``shown``."""
    return [((x, y), (rx, ry), card, share) for card in truth
            for x, y, rx, ry, share in index_targets([card], 1.0) if share >= shown]


@pytest.mark.parametrize("style, seed", [("fan", 1), ("row", 2), ("cascade", 3), ("pile", 4)])
def test_a_card_is_outlined_from_either_index_and_the_way_it_reads(style, seed):
    _img, truth = drawn_hand(style, seed)
    seen = _indices(truth, shown=0.0)
    assert len(seen) == 2 * len(truth)      # both corners of every card, shown or not
    for middle, right, card, _share in seen:
        assert quad_iou(outline_at(middle, right, 100.0), card.quad) > 0.9
        # the same middle read a quarter turn off is another outline
        turned = (-right[1], right[0])
        assert quad_iou(outline_at(middle, turned, 100.0), card.quad) < 0.5


def test_the_targets_peak_on_each_index_shown_and_leave_half_shown_ones_out():
    points = np.array([[50.0, 50.0, 1.0, 0.0, 1.0],     # shown: a target
                       [150.0, 150.0, 0.0, 1.0, 0.5],   # half shown: neither
                       [200.0, 60.0, 0.0, -1.0, 0.1]],  # covered: background
                      np.float32)
    heat, right, weight, ignore = crop_targets(points, 0, 0)
    y, x = np.unravel_index(np.argmax(heat), heat.shape)
    assert heat[y, x] == 1.0 and (round((50 - 1.5) / 4), round((50 - 1.5) / 4)) == (y, x)
    assert tuple(right[:, y, x]) == (1.0, 0.0) and weight[y, x] == 1.0
    assert ignore[37, 37] == 1.0 and heat[37, 37] < 0.01        # 150 px: cell 37
    assert ignore[14, 49] == 0.0 and weight[14, 49] == 0.0      # the covered one
    assert (heat == 1.0).sum() == 1


def test_without_the_model_file_no_index_is_found(tmp_path):
    img, _truth = drawn_hand("fan", 1)
    assert index_points(img, 100.0, path=tmp_path / "missing.onnx") == []


def _found(points, indices, width):
    """Which ``indices`` have a point found within a tenth of a card's width of their middle and
    reading within 20 degrees of their way, and how many points lie near no index."""
    hit, stray = set(), 0
    near_any = [np.array(m) for m, _r, _c, _s in indices]
    for p, r, _heat in points:
        d = [float(np.hypot(*(p - m))) for m in near_any]
        k = int(np.argmin(d)) if d else -1
        if k < 0 or d[k] > 0.3 * width:
            stray += 1
            continue
        want = indices[k][1]
        turn = math.degrees(math.acos(max(-1.0, min(1.0, float(np.dot(r, want))))))
        if d[k] <= 0.1 * width and turn <= 20:
            hit.add(k)
    return hit, stray


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_the_committed_finder_finds_the_indices_that_show_on_drawn_hands():
    finder = IndexPoints()
    hits = total = strays = 0
    for k, (style, kind) in enumerate([("fan", "wood"), ("row", "white"), ("cascade", "dark"),
                                       ("fan", "cloth"), ("pile", "white"), ("row", "dark")]):
        img, truth = drawn_hand(style, 20 + k, n=7, kind=kind)
        # an index a third shown may be found or not; only those shown count, but a point on
        # either is no stray
        indices = _indices(truth, shown=0.3)
        found, stray = _found(finder(img, 100.0), indices, 100.0)
        shown = [k for k, (_m, _r, _c, share) in enumerate(indices) if share >= INDEX_VISIBLE]
        hits += len(found & set(shown))
        total += len(shown)
        strays += stray
    assert hits >= 0.85 * total, (hits, total)
    assert strays <= total // 5, (strays, total)


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_one_finder_shared_by_racing_threads_finds_what_it_finds_alone():
    import threading

    finder = IndexPoints()
    images = [drawn_hand(style, 40 + k)[0] for k, style in enumerate(("fan", "row", "cascade", "pile"))]
    alone = [finder(img, 100.0) for img in images]
    got: dict[int, list] = {}
    start = threading.Barrier(len(images))

    def find(k):
        start.wait()
        for _ in range(3):
            got.setdefault(k, []).append(finder(images[k], 100.0))

    threads = [threading.Thread(target=find, args=(k,)) for k in range(len(images))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for k, runs in got.items():
        for points in runs:
            assert len(points) == len(alone[k])
            for (p, r, h), (p0, r0, h0) in zip(points, alone[k]):
                assert np.allclose(p, p0) and np.allclose(r, r0) and h == pytest.approx(h0)
    assert sorted(got) == list(range(len(images)))


def _read_whole(card, conf):
    """``card`` (a drawn hand's) as the whole-card pass reads it, at ``conf``."""
    from vision.recognize import CardSighting

    q = card.quad
    return CardSighting(card.label, conf, (), tuple(map(tuple, q.tolist())), tuple(q.mean(0).tolist()))


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_a_card_width_far_off_is_put_right_by_the_finder_and_a_fair_one_kept(monkeypatch):
    import vision.index_points as ip

    for k, (style, kind) in enumerate([("fan", "wood"), ("row", "white"), ("cascade", "dark")]):
        img, _truth = drawn_hand(style, 30 + k, n=7, kind=kind)     # cards 100 pixels wide
        assert ip.checked_width(img, 100.0) == 100.0
        assert ip.checked_width(img, 80.0) == 80.0                 # within the finder's plateau
        for off in (58.0, 170.0):                                 # a junk outline measured
            assert 85 <= ip.checked_width(img, off) <= 115, (style, off)
        assert ip.checked_width(img, 58.0, path=MODEL_PATH.with_name("missing.onnx")) == 58.0
        with monkeypatch.context() as m:
            m.setattr(ip, "WIDTH_KEEP", 0.0)                         # the rule off: never moved
            assert ip.checked_width(img, 58.0) == 58.0


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_the_width_is_checked_only_when_every_card_read_whole_is_unsure(monkeypatch):
    import vision.partial as partial
    from vision.corners import WIDTH_SURE
    from vision.recognize import CardReader

    img, truth = drawn_hand("fan", 40, n=6)
    checked = []
    monkeypatch.setattr(partial, "checked_width", lambda image, width, path: checked.append(width) or width)
    for conf, want in ((WIDTH_SURE - 0.2, 1), (WIDTH_SURE, 0)):
        checked.clear()
        partial.read_outlines(CardReader(overlap=False), img, [_read_whole(truth[-1], conf)])
        assert len(checked) == want, conf


def test_the_strip_map_of_a_reading_is_made_at_strip_px_pixels_a_card():
    """read_outlines hands the selection the strip map at ``STRIP_PX`` pixels a card's width
    (a tight fan's strips are lost on a coarser one: tests/test_vision_overlap.py)."""
    from vision.partial import STRIP_PX, read_outlines
    from vision.recognize import CardReader

    img, truth = drawn_hand("fan", 41, n=6)
    outlines = read_outlines(CardReader(overlap=False), img, [_read_whole(truth[-1], 0.99)])
    assert outlines.width and outlines.unlike is not None
    assert outlines.scale == pytest.approx(min(1.0, STRIP_PX / outlines.width))
    assert outlines.unlike.shape[1] == pytest.approx(img.shape[1] * outlines.scale, abs=1)
