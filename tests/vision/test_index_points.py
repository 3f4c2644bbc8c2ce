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


def _read_whole(card, conf, quad=None):
    """``card`` (a drawn hand's) as the whole-card pass reads it, at ``conf``, on its own outline
    or on ``quad``."""
    from vision.recognize import CardSighting

    q = np.asarray(card.quad if quad is None else quad, np.float32)
    return CardSighting(card.label, conf, (), tuple(map(tuple, q.tolist())), tuple(q.mean(0).tolist()))


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_the_finder_gives_the_card_width_from_the_indices_alone():
    from vision.index_points import width_from_indices
    from vision.overlap import table

    for k, (style, kind) in enumerate([("fan", "wood"), ("cascade", "dark")]):
        img, _truth = drawn_hand(style, 30 + k, n=7, kind=kind)     # cards 100 pixels wide
        if k == 0:
            assert 88 <= width_from_indices(img) <= 114, style    # searched over the image's size
        for around in (72.0, 150.0):                              # searched about a width measured
            assert 88 <= width_from_indices(img, around) <= 114, (style, around)
        assert width_from_indices(img, path=MODEL_PATH.with_name("missing.onnx")) is None
    bare = table("wood", 960, 640, np.random.default_rng(5))
    assert width_from_indices(bare) is None                        # no index in sight


def _grown(card, factor):
    """``card``'s outline grown ``factor`` times about its middle (a hand outlined as one card)."""
    q = np.asarray(card.quad, np.float32)
    return (q - q.mean(0)) * factor + q.mean(0)


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
@pytest.mark.parametrize("factor", [1.45, 0.75])
def test_a_width_measured_far_off_is_put_right_by_the_finder_unless_the_check_is_off(monkeypatch, factor):
    import vision.partial as partial
    from vision.recognize import CardReader

    img, truth = drawn_hand("fan", 40, n=6)                         # cards 100 pixels wide
    odd = _read_whole(truth[-1], 0.99, _grown(truth[-1], factor))
    monkeypatch.setattr(partial, "EDGE_WIDTH", False)               # the outline's own size, as read
    # (the whole image searched: read on its own outline, the top card explains a fan whose
    # other indices are all hidden, and the pass would not look at all)
    monkeypatch.setattr(partial, "LOOK_WHERE_UNEXPLAINED", False)
    reader = CardReader(overlap=False)
    assert 88 <= partial.read_outlines(reader, img, [odd]).width <= 114
    monkeypatch.setattr(partial, "WIDTH_AGREE", (0.0, math.inf))    # the check off: the width kept
    assert partial.read_outlines(reader, img, [odd]).width == pytest.approx(100 * factor, rel=0.05)
    fair = _read_whole(truth[-1], 0.99)                             # a fair measure is kept as it is
    monkeypatch.setattr(partial, "WIDTH_AGREE", (0.87, 1.15))
    assert partial.read_outlines(reader, img, [fair]).width == pytest.approx(100, rel=0.05)


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_with_no_card_read_whole_the_hand_is_read_at_the_finders_width():
    from vision.overlap import table
    from vision.partial import read_outlines, settle
    from vision.recognize import CardReader

    img, truth = drawn_hand("row", 43, n=6)                        # the whole-card pass missed all
    reader = CardReader(overlap=False)
    outlines = read_outlines(reader, img, [])
    assert 88 <= outlines.width <= 114
    assert sorted(s.label for s in settle(outlines)) == sorted(c.label for c in truth if c.readable)
    bare = read_outlines(reader, table("wood", 960, 640, np.random.default_rng(6)), [])
    assert bare.cands == [] and bare.width is None                  # an empty table: no search at all


def test_the_strip_map_of_a_reading_is_made_at_strip_px_pixels_a_card():
    """read_outlines hands the selection the strip map at ``STRIP_PX`` pixels a card's width
    (a tight fan's strips are lost on a coarser one: tests/vision/test_overlap.py)."""
    from vision.partial import STRIP_PX, read_outlines
    from vision.recognize import CardReader

    img, truth = drawn_hand("fan", 41, n=6)
    outlines = read_outlines(CardReader(overlap=False), img, [_read_whole(truth[-1], 0.99)])
    assert outlines.width and outlines.unlike is not None
    assert outlines.scale == pytest.approx(min(1.0, STRIP_PX / outlines.width))
    assert outlines.unlike.shape[1] == pytest.approx(img.shape[1] * outlines.scale, abs=1)


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
def test_a_hand_outlined_as_its_top_card_does_not_explain_the_cards_under_it(monkeypatch):
    """The cards read whole explain every card-like pixel when one outline holds a whole hand;
    once the width measured on it is put right, the pass reads the hand all the same."""
    import cv2

    import vision.partial as partial
    from vision.recognize import CardReader

    img, truth = drawn_hand("row", 45, n=6)
    box = cv2.boxPoints(cv2.minAreaRect(np.concatenate([np.asarray(c.quad, np.float32) for c in truth])))
    hand = _read_whole(truth[-1], 0.99, box)
    reader = CardReader(overlap=False)
    read = {s.label for s in partial.settle(partial.read_outlines(reader, img, [hand]))}
    assert len(read & {c.label for c in truth if c.readable}) >= 4 and read <= {c.label for c in truth}
    monkeypatch.setattr(partial, "WIDTH_AGREE", (0.0, math.inf))    # the check off ...
    # ... the outline, not of a card's proportions, still explains nothing (ODD_EXPLAINS_NOTHING)
    assert partial.read_outlines(reader, img, [hand]).cands != []
    monkeypatch.setattr(partial, "ODD_EXPLAINS_NOTHING", False)     # both off: nothing read
    assert partial.read_outlines(reader, img, [hand]).cands == []


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
@pytest.mark.parametrize("coarse", [True, False])
def test_the_coarse_first_search_finds_the_width_every_width_finds(monkeypatch, coarse):
    """Every other width first, then every width about the best: the same width as scoring
    every width."""
    import vision.index_points as ip

    img, _truth = drawn_hand("cascade", 31, n=7, kind="dark")
    monkeypatch.setattr(ip, "COARSE_FIRST", coarse)
    runs = []
    finder = ip._finder(str(MODEL_PATH))
    monkeypatch.setattr(ip, "_finder", lambda path: (lambda image, width: runs.append(width) or finder(image, width)))
    width = ip.width_from_indices(img, 72.0)
    assert 88 <= width <= 114
    steps = int(np.log(ip.WIDTH_AROUND[1] / ip.WIDTH_AROUND[0]) / np.log(ip.WIDTH_STEP)) + 1
    assert len(runs) == len(set(runs))                  # no width scored twice
    assert (len(runs) < steps) == coarse                # the coarse search skips some widths


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
@pytest.mark.parametrize("left", [1, 2, 3])
def test_a_search_over_one_or_two_widths_gives_one_of_them(monkeypatch, left):
    """A card measured tiny leaves one or two widths above MIN_CARD_PX: the width found is one of
    those searched (it once ran past their end: an IndexError on a real photo)."""
    import vision.index_points as ip

    img, _truth = drawn_hand("fan", 30, n=7, kind="wood")     # cards 100 pixels wide
    around = 36.0                                            # the widest widths searched about 105
    steps = 0.6 * around * ip.WIDTH_STEP ** np.arange(
        int(np.log(ip.WIDTH_AROUND[1] / ip.WIDTH_AROUND[0]) / np.log(ip.WIDTH_STEP)) + 1)
    monkeypatch.setattr(ip, "MIN_CARD_PX", float(steps[-left]) - 0.01)   # only `left` stay
    monkeypatch.setattr(ip, "WIDEN_AT_CEILING", False)       # (tested below: a search again)
    width = ip.width_from_indices(img, around)
    assert width is not None
    assert any(abs(width - w * ip.WIDTH_BIAS) < 0.15 * w for w in steps[-left:]), (width, steps[-left:])


@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="the index finder's model is not built")
@pytest.mark.parametrize("widen", [True, False])
def test_a_width_measured_far_too_small_is_searched_again_over_the_whole_range(monkeypatch, widen):
    """A card's own print read whole measured a quarter of the card: about that, the search
    stops at 3 times it, short of the card, and sees the indices best at its top
    (WIDEN_AT_CEILING): searched again over the image's range, the card's width."""
    import vision.index_points as ip

    img, _truth = drawn_hand("fan", 30, n=7, kind="wood")     # cards 100 pixels wide
    monkeypatch.setattr(ip, "WIDEN_AT_CEILING", widen)
    width = ip.width_from_indices(img, 26.0)                 # searched up to 78 pixels
    if widen:
        assert 88 <= width <= 114
    else:
        assert width < 88                                    # short of the card: outlines too small
