"""Overlapping cards: composed hands (vision.overlap), card outlines on their edges
(vision.corners), the reader of partly covered cards (CardReader.read, visible="partial") and the
fanned-hands measure (vision.evaluate.FannedTally)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

from companion.cards import CLASSIC
from vision.card_art import draw_card
from vision.corners import index_point, partial_quads
from vision.detect import quad_iou
from vision.evaluate import FannedTally
from vision.overlap import HandCard
from vision.recognize import CardReader, CardSighting

from tests.support.drawn_hands import drawn_hand as _hand


@pytest.fixture(scope="module")
def row():
    return _hand("row", 3)


@pytest.fixture(scope="module")
def reader():
    return CardReader(overlap=True)


def test_a_row_shows_every_index_and_only_the_top_card_whole(row):
    _img, truth = row
    assert [t.readable for t in truth] == [True] * 5
    assert [t.visible for t in truth] == ["partial"] * 4 + ["whole"]
    assert all(t.shown < 0.8 for t in truth[:-1]) and truth[-1].shown > 0.99


def test_a_pile_hides_some_cards_whole():
    hidden = [t for seed in range(2) for t in _hand("pile", seed, n=6)[1] if not t.readable]
    assert hidden and all(t.index_shown < 0.8 and t.shown < 0.9 for t in hidden)


def test_a_thumb_covers_part_of_the_top_card():
    _img, truth = _hand("fan", 8, thumbs=1.0)
    assert truth[-1].shown < 0.99


def test_unknown_style_is_refused():
    with pytest.raises(ValueError, match="layout style"):
        _hand("spiral", 1)


def test_every_card_of_a_row_gets_an_outline_and_known_cards_none(row):
    img, truth = row
    quads = partial_quads(img, 100.0)
    assert all(max(quad_iou(t.quad, q) for q in quads) > 0.6 for t in truth)
    rest = partial_quads(img, 100.0, known=[t.quad for t in truth])
    assert all(quad_iou(t.quad, q) <= 0.7 for t in truth for q in rest)


def _matches(truth, sightings):
    """Each card's sightings: those that cover it best of all the cards, by IoU > 0.5 (as the
    evaluation counts them: neighbours in a row overlap each other by IoU 0.5-0.6, so a reading
    of one covers the next by as much)."""
    ious = [[quad_iou(t.quad, np.array(s.quad, np.float32)) for t in truth] for s in sightings]
    best = [int(np.argmax(v)) for v in ious]
    return [[s for s, b, v in zip(sightings, best, ious) if b == k and v[k] > 0.5] for k in range(len(truth))]


@pytest.fixture(scope="module")
def wide_row():
    return _hand("row", 7, card_width=140)


def test_cards_under_others_are_read_as_partial_and_never_twice(reader, wide_row):
    img, truth = wide_row
    sightings = reader.read(img, deck="classic")
    assert all(len(f) <= 1 for f in _matches(truth, sightings))
    partial = [s for s in sightings if s.visible == "partial"]
    assert partial
    # a partly covered card lies under a card found: its outline overlaps another sighting
    for s in partial:
        q = np.array(s.quad, np.float32)
        assert any(quad_iou(q, np.array(o.quad, np.float32)) > 0.05 for o in sightings if o is not s)
    top = _matches(truth, sightings)[-1]
    assert [(s.label, s.visible) for s in top] == [(truth[-1].label, "whole")]


def test_without_the_overlap_pass_no_card_is_partial(wide_row):
    img, truth = wide_row
    sightings = CardReader().read(img, deck="classic")  # overlap=False: the default
    assert sightings and all(s.visible == "whole" for s in sightings)


def test_a_table_of_separated_cards_has_no_partial_card(reader):
    from vision.synth import compose_table

    rng = np.random.default_rng(4)
    cards = [(lab, draw_card(lab, 160, 248, face_set=CLASSIC, rng=rng))
             for lab in ("red-7", "blue-2", "green-skip", "yellow-0")]
    img, placed = compose_table(cards, 960, 540, rng=rng, kind="wood", spacing=1.9)
    sightings = reader.read(img, deck="classic")
    assert sorted(s.label for s in sightings) == sorted(p.label for p in placed)
    assert all(s.visible == "whole" for s in sightings)


def test_a_sighting_says_how_it_was_seen():
    s = CardSighting("red-7", 0.9, (), ((0, 0), (1, 0), (1, 2), (0, 2)), (0.5, 1.0))
    assert s.visible == "whole" and s.to_json()["visible"] == "whole"
    keys = set(s.to_json())
    assert {"label", "confidence", "quad", "center", "runners_up"} <= keys


def _card(label, x, visible_share=1.0, index=1.0):
    q = np.array([[x, 0], [x + 10, 0], [x + 10, 15], [x, 15]], np.float32)
    return HandCard(label, q, visible_share, index)


def _seen(label, x, visible="whole"):
    return CardSighting(label, 0.9, (), ((x, 0), (x + 10, 0), (x + 10, 15), (x, 15)),
                        (x + 5, 7.5), visible=visible)


def _cand(mass, label, conf, quad, corner=0):
    from vision.corners import index_point
    from vision.partial import Candidate

    quad = np.asarray(quad, np.float32)
    return Candidate(mass, label, conf, (), quad, index_point(quad, corner))


def test_fanned_tally_counts_right_wrong_missed_extra_and_twice():
    truth = [_card("red-1", 0, 0.3), _card("red-2", 30, 0.3), _card("back", 60),
             _card("red-4", 90, 0.1, 0.2), _card("red-5", 120)]
    seen = [_seen("red-1", 0, "partial"), _seen("blue-2", 30), _seen("back", 60), _seen("back", 61),
            _seen("red-4", 90), _seen("red-9", 300)]
    t = FannedTally("t")
    t.add(truth, seen)
    assert (t.cards, t.right, t.wrong, t.missed, t.extra, t.twice) == \
        (4, 2, [("red-2", "blue-2")], ["red-5"], 1, 1)
    assert t.backs == [1, 1] and t.partial == [1, 2] and t.visible_right == 2
    assert t.recall == 0.5 and t.precision == 2 / 5
    assert "red-2 -> blue-2" in t.report()


def test_fanned_tally_matches_a_reading_to_a_card_of_its_label_in_a_tight_cascade():
    # two neighbours 3 px apart (IoU 0.54): the red 2's outline, 1.6 px off towards the red 1,
    # overlaps the red 1 a little more than its own card
    truth = [_card("red-1", 0), _card("red-2", 3)]
    seen = [_seen("red-1", 0), _seen("red-2", 1.4)]
    by_label, nearest = FannedTally("t"), FannedTally("t", matching="nearest")
    by_label.add(truth, seen)
    nearest.add(truth, seen)
    assert (by_label.right, by_label.twice, by_label.missed, by_label.wrong) == (2, 0, [], [])
    assert (nearest.right, nearest.twice, nearest.missed) == (1, 1, ["red-2"])


def test_fanned_tally_by_label_still_counts_a_second_reading_of_one_card_twice():
    truth = [_card("red-1", 0), _card("blue-5", 3)]
    seen = [_seen("red-1", 0), _seen("red-1", 1)]  # the red 1 again, nearer it than the blue 5
    t = FannedTally("t")
    t.add(truth, seen)
    assert (t.right, t.twice, t.wrong, t.missed) == (1, 1, [], ["blue-5"])
    seen = [_seen("red-1", 0), _seen("green-7", 2.5)]  # another label on the blue 5: read wrong
    t = FannedTally("t")
    t.add(truth, seen)
    assert (t.right, t.twice, t.wrong, t.extra) == (1, 0, [("blue-5", "green-7")], 0)


@pytest.mark.slow
def test_recognize_reports_partial_cards_in_json_unless_whole_only(tmp_path, wide_row, capsys):
    # (the command run in the test's process: tests/vision/test_recognize_cli.py runs it as a
    # process, its JSON contract and exit statuses)
    import json

    import cv2

    from app.cli import main

    path = str(tmp_path / "row.png")
    cv2.imwrite(path, wide_row[0])
    runs = {}
    for flag in ("", "--whole-only", "--overlap"):   # the second pass is on unless --whole-only
        status = main(["recognize", "--json", "--deck", "classic", *flag.split(), path])
        out, err = capsys.readouterr()
        assert status == 0, err
        runs[flag] = [c["visible"] for c in json.loads(out)["cards"]]
    assert "partial" in runs[""] and set(runs["--whole-only"]) == {"whole"}
    assert runs["--overlap"] == runs[""]


def test_thresholds_are_tried_on_one_reading_of_the_outlines(wide_row):
    from vision.partial import Thresholds, read_outlines, select

    img, _truth = wide_row
    whole_reader = CardReader()
    whole = whole_reader.read(img, deck="classic")
    outlines = read_outlines(whole_reader, img, whole, deck="classic")
    assert outlines.cands
    found = select(outlines)
    assert found and all(s.visible == "partial" for s in found)
    assert select(outlines, Thresholds(min_mass=1.01)) == []      # nothing is that sure
    looser = select(outlines, Thresholds(min_mass=0.3, min_label=0.3))
    assert len(looser) >= len(found)


def test_a_sure_outline_under_no_found_card_starts_its_own_chain_only_above_the_seed():
    from vision.partial import Outlines, Thresholds, select

    whole = [_seen("red-5", 0)]
    far = np.array([[100, 0], [110, 0], [110, 15], [100, 15]], np.float32)  # touches no card found
    under = np.array([[100, 5], [110, 5], [110, 20], [100, 20]], np.float32)  # under the far one
    outlines = Outlines([_cand(0.99, "blue-2", 0.97, far), _cand(0.9, "green-3", 0.8, under)], whole,
                        np.ones((40, 140), np.uint8), 1.0)
    assert select(outlines, Thresholds(seed=1.01)) == []  # a chain starts at a card found whole
    seeded = select(outlines, Thresholds(seed=0.9))
    assert [s.label for s in seeded] == ["blue-2", "green-3"]  # and then follows it
    assert all(s.visible == "partial" for s in seeded)
    assert [s.label for s in select(outlines, Thresholds(seed=0.99))] == []  # 0.99 x 0.97 < 0.99


def test_small_training_tables_give_corner_samples_of_cards_and_of_none():
    from vision.classes import CLASSES, NONE
    from vision.train.corners import build

    rng = np.random.default_rng(8)
    faces = [c.name for c in CLASSIC.faces if not c.name.startswith("wild")][:12]
    pool = [(lab, draw_card(lab, 160, 248, face_set=CLASSIC, rng=rng)) for lab in faces]
    x, y = build(1, pool, pool, seed=3, progress=False, jitter=1, size=(480, 480))
    assert x.shape[1:] == (96, 64, 3) and len(x) == len(y)
    labels = {CLASSES[i] for i in y}
    assert NONE in labels and labels - {NONE} and labels - {NONE} <= set(faces)


def test_a_card_read_whole_with_an_odd_outline_takes_its_corner_outline():
    from vision.partial import Outlines, Thresholds, reshaped_whole, settle

    card = _seen("red-5", 200)                                         # a card's own outline
    merged = CardSighting("blue-2", 0.9, (), ((0, 0), (10, 0), (10, 22), (0, 22)), (5, 11))  # card + strip
    own = np.array([[0, 7], [10, 7], [10, 22], [0, 22]], np.float32)  # blue-2's corner outline
    unlike = np.ones((40, 240), np.uint8)
    t = Thresholds(seed=1.01)
    for label, fixed in (("blue-2", True), ("green-3", False)):        # only the same label's
        outlines = Outlines([_cand(0.95, label, 0.9, own)], [card, merged], unlike, 1.0)
        got = reshaped_whole(outlines, t)
        assert got[0] == card
        assert (np.array(got[1].quad, np.float32) == own).all() == fixed
        assert got[1].label == "blue-2" and got[1].visible == "whole"
        assert [s.label for s in settle(outlines, t)][:2] == ["red-5", "blue-2"]
    # an outline with a card's shape stays as it was read, whatever lies over it
    square = Outlines([_cand(0.95, "red-5", 0.9, [[200, 5], [210, 5], [210, 20], [200, 20]])],
                      [card, _seen("blue-2", 0)], unlike, 1.0)
    assert reshaped_whole(square, t) == [card, _seen("blue-2", 0)]


def test_a_card_read_whole_whose_corners_read_it_keeps_its_odd_outline():
    from vision.partial import Outlines, Thresholds, reshaped_whole

    card = _seen("red-5", 200)
    merged = CardSighting("blue-2", 0.9, (), ((0, 0), (10, 0), (10, 22), (0, 22)), (5, 11))
    unsure = CardSighting("blue-draw-two", 0.6, (), ((300, 0), (324, 0), (324, 15), (300, 15)), (312, 7.5))
    own = np.array([[0, 7], [10, 7], [10, 22], [0, 22]], np.float32)
    t = Thresholds(seed=1.01)
    unlike = np.ones((40, 340), np.uint8)
    cands = [_cand(0.95, "blue-2", 0.9, own), _cand(0.95, "green-3", 0.9, [[500, 5], [510, 5], [510, 20], [500, 20]])]
    reshaped = reshaped_whole(Outlines(cands, [card, merged, unsure], unlike, 1.0), t)
    assert (np.array(reshaped[1].quad, np.float32) == own).all()           # not its own: reshaped
    assert [s.label for s in reshaped] == ["red-5", "blue-2"]               # the unsure one left out
    kept = reshaped_whole(Outlines(cands, [card, merged, unsure], unlike, 1.0, own=frozenset({1, 2})), t)
    assert kept == [card, merged, unsure]                                   # its own outline: as read


@pytest.mark.parametrize("label, shift, width, reads", [("red-7", 0.0, 110.0, True), ("blue-3", 0.0, 110.0, False),
                                                        ("red-7", 0.45, 110.0, False), ("red-7", 0.0, 140.0, False)])
def test_a_card_outline_reads_its_own_label_at_both_index_corners(label, shift, width, reads):
    # the card's own outline, of the width measured, reads it at both corners; another label, an
    # outline half a card off (a hand outlined as its top card: one corner on another card) or
    # an outline of another width than the one measured does not
    from pathlib import Path

    from vision.partial import INDEX_MODEL_PATH, IndexReader, _reads_its_corners, shared_reader

    img, quad = _card_on_table(width=110.0, turn=5.0)
    quad = quad + np.float32([shift * 110.0, 0.0])
    s = CardSighting(label, 0.98, (), tuple(map(tuple, quad)), tuple(quad.mean(0)))
    assert _reads_its_corners(img, s, shared_reader(IndexReader, Path(INDEX_MODEL_PATH)), width) is reads


@pytest.mark.parametrize("as_read, reads", [(True, True), (False, False)])
def test_a_card_outline_pulled_off_by_refining_is_tried_as_read(monkeypatch, as_read, reads):
    # refining can pull a right outline off its card (a fanned hand of the tests' own): OWN_AS_READ tries the
    # outline as it was read too, and that one reads the card's label at both corners
    from pathlib import Path

    from vision import partial

    img, quad = _card_on_table(width=110.0, turn=5.0)
    middle = quad.mean(0)
    monkeypatch.setattr(partial, "refine_outline", lambda _img, q, *a: (q - middle) * 0.8 + middle)
    monkeypatch.setattr(partial, "OWN_AS_READ", as_read)
    s = CardSighting("red-7", 0.98, (), tuple(map(tuple, quad)), tuple(middle))
    reader = partial.shared_reader(partial.IndexReader, Path(partial.INDEX_MODEL_PATH))
    assert partial._reads_its_corners(img, s, reader, 110.0) is reads


def _card_on_table(width=100.0, turn=7.0, kind="wood", label="red-7"):
    """One drawn card ``width`` pixels wide, turned, on a table; its true outline."""
    from vision.card_shape import CARD_RATIO, order_quad
    from vision.synth import paste_card, table

    rng = np.random.default_rng(5)
    img = table(kind, 480, 420, rng)
    a = np.radians(turn)
    u, v = np.array([np.cos(a), np.sin(a)]) * width / 2, np.array([-np.sin(a), np.cos(a)]) * width * CARD_RATIO / 2
    c = np.array([240.0, 210.0])
    quad = np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)
    paste_card(img, draw_card(label, 160, 248, face_set=CLASSIC, rng=rng), quad)
    return img, order_quad(quad)


def _scaled(quad, k, along=1.0):
    """``quad`` scaled by ``k`` about its centre (its long sides by ``k * along``)."""
    c = quad.mean(0)
    long_axis = (quad[3] - quad[0]) / np.linalg.norm(quad[3] - quad[0])
    d = quad - c
    a = d @ long_axis
    return (c + (d - np.outer(a, long_axis)) * k + np.outer(a * k * along, long_axis)).astype(np.float32)


@pytest.mark.parametrize("kind", ["wood", "dark"])
def test_the_card_width_is_measured_on_the_cards_own_edges(kind):
    from vision.corners import card_width_of, card_width_on_edges

    img, quad = _card_on_table(kind=kind)
    grown, inside = _scaled(quad, 1.1), _scaled(quad, 0.95)   # grown by the border; the field
    assert card_width_of([grown]) == pytest.approx(110, abs=1)     # the outline's own side: 10 % off
    assert card_width_on_edges(img, [grown]) == pytest.approx(100, rel=0.03)
    assert card_width_on_edges(img, [inside]) == pytest.approx(100, rel=0.03)
    # an outline of a card and the strip beside it is not a card's shape: it gives no width
    assert card_width_on_edges(img, [_scaled(quad, 1.0, along=1.35)]) is None


def test_on_a_white_table_a_drawn_card_is_measured_no_worse_than_its_grown_outline():
    from vision.corners import card_width_on_edges

    # the white border barely parts from a white table: the inner edge of the border may be
    # taken for the card's (a known weakness, docs/vision.md), never further off than the outline
    img, quad = _card_on_table(kind="white")
    assert abs(card_width_on_edges(img, [_scaled(quad, 1.1)]) - 100) <= 12


def _row_under(x, label, mass=0.95, conf=0.9, width=100.0):
    from vision.card_shape import CARD_RATIO

    return _cand(mass, label, conf, [[x, 50], [x + width, 50], [x + width, 50 + width * CARD_RATIO],
                                     [x, 50 + width * CARD_RATIO]])


def _turned(cand, deg, label, mass, conf):
    """The same card's index read again through an outline turned about that index."""
    from vision.partial import Candidate

    a = np.radians(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    q = ((cand.quad - cand.index) @ rot.T + cand.index).astype(np.float32)
    return Candidate(mass, label, conf, (), q, cand.index)


def test_one_index_is_one_card_however_far_apart_its_outlines_are():
    from vision.partial import SAME_PLACE_IOU, Outlines, Thresholds, select

    top = CardSighting("red-5", 0.99, (), ((200, 50), (300, 50), (300, 205), (200, 205)), (250, 128))
    under = _row_under(165, "yellow-8")                       # a card under the top one
    again = _turned(under, -25, "yellow-6", 0.9, 0.75)          # its index misread on another outline
    neighbour = _row_under(135, "green-3", 0.9, 0.85)          # the next card: its index 0.3 cards away
    assert quad_iou(under.quad, again.quad) < SAME_PLACE_IOU   # apart for the place rule
    outlines = Outlines([under, again, neighbour], [top], np.ones((300, 400), np.uint8), 1.0, 100.0)
    assert [s.label for s in select(outlines)] == ["yellow-8", "green-3"]
    assert [s.label for s in select(outlines, Thresholds(same_index=0.0))] == ["yellow-8", "yellow-6", "green-3"]


def test_a_partly_covered_wild_needs_a_surer_reading_than_a_coloured_card():
    from vision.partial import WILD_MIN_LABEL, Outlines, Thresholds, select

    top = CardSighting("red-5", 0.99, (), ((200, 50), (300, 50), (300, 205), (200, 205)), (250, 128))
    for label, conf, kept in [("wild", WILD_MIN_LABEL - 0.1, False), ("wild-draw-four", WILD_MIN_LABEL - 0.1, False),
                              ("wild", WILD_MIN_LABEL, True), ("blue-7", WILD_MIN_LABEL - 0.1, True)]:
        outlines = Outlines([_row_under(165, label, 0.95, conf)], [top], np.ones((300, 400), np.uint8), 1.0, 100.0)
        assert bool(select(outlines)) is kept, (label, conf)
        # the rule off: a wild as sure as any other card
        assert [s.label for s in select(outlines, Thresholds(wild_min_label=0.0))] == [label]


def test_an_unsure_card_read_whole_on_an_odd_outline_is_left_out():
    from vision.partial import Outlines, Thresholds, settle

    card = _seen("red-5", 200)
    unrelated = _cand(0.95, "green-3", 0.9, [[400, 5], [410, 5], [410, 20], [400, 20]])
    for conf, kept in ((0.6, False), (0.95, True)):
        strips = CardSighting("blue-draw-two", conf, (), ((0, 0), (24, 0), (24, 15), (0, 15)), (12, 7.5))
        outlines = Outlines([unrelated], [card, strips], np.ones((40, 440), np.uint8), 1.0)
        got = [s.label for s in settle(outlines, Thresholds(seed=1.01))]
        assert ("blue-draw-two" in got) == kept
        assert "blue-draw-two" in [s.label for s in settle(outlines, Thresholds(seed=1.01, odd_sure=0.0))]
    # without a corner reading at all (no second pass) nothing is left out
    assert settle(Outlines([], [card, strips]), Thresholds()) == [card, strips]


class _BrightIndex:
    """A stand-in for the corner model: a corner is a card as surely as its index box is bright."""

    classes = ("red-1", "none")
    none_index = 1

    def _probs(self, crops, deck):
        m = 0.5 + 0.5 * np.array([c[15:40, 8:31].mean() / 255.0 for c in crops])
        return np.stack([m, 1 - m], axis=1)

    def _reading(self, p):
        from vision.recognize import CardReading

        return CardReading("red-1", float(p[0]), ())


def test_an_outline_a_little_off_is_moved_onto_its_index():
    import vision.partial as partial
    from vision.card_shape import order_quad
    from vision.corners import index_point

    img = np.zeros((300, 300, 3), np.uint8)
    true = order_quad(np.array([[100, 60], [200, 60], [200, 215], [100, 215]], np.float32))
    idx = index_point(true, 0)
    cv2 = pytest.importorskip("cv2")
    cv2.circle(img, (int(idx[0]), int(idx[1])), 9, (255, 255, 255), -1)    # the index's print
    off = true + np.float32([9, 7])                                        # an outline a little off
    start = partial._read(_BrightIndex(), img, [off], "auto")
    moved = partial._refine(_BrightIndex(), img, start, "auto", 100.0)
    assert moved[0].mass > start[0].mass
    assert np.linalg.norm(moved[0].index - idx) < np.linalg.norm(start[0].index - idx)
    # an outline read as a card less surely than REFINE_MASS is not moved
    dull = partial._read(_BrightIndex(), np.zeros_like(img), [off], "auto")
    assert partial._refine(_BrightIndex(), img, dull, "auto", 100.0, min_mass=0.6)[0] is dull[0]


def test_cards_read_whole_all_outlined_larger_than_the_width_are_kept():
    from vision.partial import Outlines, settle

    # the whole-card pass outlined every card 16 % larger than the width measured on the edges
    # (drawn cards in a hand zone): an unsure card among them is like its neighbours, not odd
    def seen(label, x, conf):
        return CardSighting(label, conf, (), ((x, 0), (x + 116, 0), (x + 116, 180), (x, 180)), (x + 58, 90))

    hand = [seen("yellow-6", 0, 0.98), seen("red-skip", 130, 0.96), seen("red-5", 260, 0.71)]
    unrelated = _cand(0.95, "green-3", 0.9, [[600, 5], [700, 5], [700, 160], [600, 160]])
    outlines = Outlines([unrelated], hand, np.ones((200, 720), np.uint8), 1.0, 100.0)
    assert [s.label for s in settle(outlines)][:3] == ["yellow-6", "red-skip", "red-5"]
    # an unsure outline larger than its neighbours' (a card and the strips beside it) is not
    merged = CardSighting("blue-draw-two", 0.71, (), ((400, 0), (560, 0), (560, 180), (400, 180)), (480, 90))
    outlines = Outlines([unrelated], [*hand, merged], np.ones((200, 720), np.uint8), 1.0, 100.0)
    assert "blue-draw-two" not in [s.label for s in settle(outlines)]


def test_an_index_inside_a_card_read_whole_of_its_label_is_that_card():
    from vision.partial import Candidate, Outlines, select

    top = CardSighting("green-7", 0.99, (), ((200, 50), (300, 50), (300, 205), (200, 205)), (250, 128))
    # the top card read again through an outline put beside it: another place, its index read
    # on the top card but away from the top card's own index boxes (the rule of one index)
    beside = _row_under(120, "green-7", 0.95, 0.8)
    again = Candidate(*beside[:5], np.float32([250, 128]), 1)
    under = _row_under(135, "green-7", 0.95, 0.8)               # an identical card under the top one
    unlike = np.ones((300, 400), np.uint8)
    assert [s.label for s in select(Outlines([again], [top], unlike, 1.0, 100.0))] == []
    assert [s.label for s in select(Outlines([under], [top], unlike, 1.0, 100.0))] == ["green-7"]


def test_backs_of_a_fan_overlapping_as_neighbours_are_two_cards_one_back_read_twice_is_one():
    """Every back has the one label: two outlines of backs are one card only when they overlap
    by more than ``back_same_iou`` (0.55), not the faces' 0.3."""
    from dataclasses import replace

    from vision.partial import BACK_SAME_IOU, SAME_CARD_IOU, Outlines, Thresholds, select

    top = CardSighting("back", 0.99, (), ((0, 0), (100, 0), (100, 150), (0, 150)), (50, 75))
    unlike = np.ones((200, 300), np.uint8)
    t = Thresholds(seed=1.01)

    def under_by(shift, label="back"):
        return _cand(0.99, label, 0.99, [[shift, 0], [100 + shift, 0], [100 + shift, 150], [shift, 150]], corner=1)

    for shift, apart in ((33, True), (25, False)):   # IoU 0.50 and 0.60 with the top card
        under = under_by(shift)
        iou = quad_iou(under.quad, np.array(top.quad, np.float32))
        assert SAME_CARD_IOU < iou and (iou < BACK_SAME_IOU) == apart
        got = select(Outlines([under], [top], unlike, 1.0, 100.0), t)
        assert [s.label for s in got] == (["back"] if apart else [])
        # a looser rule for backs takes the second one too (BACK_CORNER off: this ruling alone)
        assert len(select(Outlines([under], [top], unlike, 1.0, 100.0),
                          Thresholds(seed=1.01, back_same_iou=0.7, back_corner=0.0))) == 1
    for shift, apart in ((50, True), (45, False)):   # IoU 0.33 and 0.38 with the top card
        # the same outlines read as one face: the faces' rule (0.3) holds there, but for a second
        # face whose index is half a card from the first's (SAME_LABEL_CORNER, tested below)
        under = under_by(shift)
        face = Outlines([under._replace(label="red-5")], [replace(top, label="red-5")], unlike,
                        1.0, 100.0)
        assert select(face, Thresholds(seed=1.01, same_label_corner=0.0)) == []
        assert len(select(face, t)) == (1 if apart else 0)


def test_a_sure_strip_that_looks_like_the_table_is_a_card_unless_it_lies_on_one_found():
    """A narrow strip on a white table looks like the table: a reading at least ``strip_sure``
    sure is kept all the same, unless it overlaps a card found by more than ``strip_sure_iou``."""
    from vision.partial import Outlines, Thresholds, select

    top = CardSighting("red-5", 0.99, (), ((40, 0), (140, 0), (140, 150), (40, 150)), (90, 75))
    strip = _cand(0.99, "blue-2", 0.98, [[0, 0], [100, 0], [100, 150], [0, 150]])
    table_like = np.zeros((200, 300), np.uint8)          # nothing unlike the table anywhere
    base = dict(seed=1.01)
    iou = quad_iou(strip.quad, np.array(top.quad, np.float32))   # 0.43: a fan's neighbour
    assert 0.4 < iou < 0.5
    for (sure, most), kept in (((0.9, 0.5), True), ((1.01, 0.5), False), ((0.9, 0.4), False)):
        got = select(Outlines([strip], [top], table_like, 1.0, 100.0),
                     Thresholds(**base, strip_sure=sure, strip_sure_iou=most))
        assert [s.label for s in got] == (["blue-2"] if kept else []), (sure, most)
    # less sure than strip_sure: the table-like strip is left out
    unsure = strip._replace(conf=0.85)
    assert select(Outlines([unsure], [top], table_like, 1.0, 100.0),
                  Thresholds(**base, strip_sure=0.9, strip_sure_iou=0.5)) == []
    # card-like strips pass whatever the sureness
    assert [s.label for s in select(Outlines([unsure], [top], np.ones((200, 300), np.uint8), 1.0,
                                             100.0), Thresholds(**base))] == ["blue-2"]


def test_neighbours_of_a_tight_fan_are_two_cards_and_one_card_read_twice_is_one():
    """Outlines of two labels are one card only when they overlap by more than
    ``same_place_iou`` (0.8): neighbours in a tight fan, outlined on their own indices, overlap
    by IoU 0.6-0.8."""
    from vision.partial import SAME_PLACE_IOU, Outlines, Thresholds, select

    top = CardSighting("red-5", 0.99, (), ((100, 40), (200, 40), (200, 190), (100, 190)), (150, 115))
    unlike = np.ones((300, 300), np.uint8)
    t = Thresholds(seed=1.01)
    # IoU 0.70, 0.76 (a tight cascade's neighbours) and 0.85 with the top card
    for drop, apart in ((26, True), (20, True), (12, False)):
        under = _cand(0.99, "blue-2", 0.98, [[100, 40 + drop], [200, 40 + drop],
                                              [200, 190 + drop], [100, 190 + drop]], corner=1)
        iou = quad_iou(under.quad, np.array(top.quad, np.float32))
        assert (iou < SAME_PLACE_IOU) == apart
        got = select(Outlines([under], [top], unlike, 1.0, 100.0), t)
        assert [s.label for s in got] == (["blue-2"] if apart else []), drop
        # the rule as it was (0.6) took the neighbour for the top card read again, and so did
        # 0.75 where the neighbours overlap by more
        assert select(Outlines([under], [top], unlike, 1.0, 100.0),
                      Thresholds(seed=1.01, same_place_iou=0.6)) == []
        assert len(select(Outlines([under], [top], unlike, 1.0, 100.0),
                          Thresholds(seed=1.01, same_place_iou=0.75))) == (1 if drop == 26 else 0)


def test_an_unsure_card_read_whole_over_another_cards_sure_index_is_left_out():
    """A card read whole lies on top, so no other card's index shows inside it: an unsure
    reading over a sure index of another label is an outline across a hand's strips."""
    from vision.card_shape import CARD_RATIO
    from vision.partial import HIDDEN_BELOW, Outlines, Thresholds, settle

    h = 100 * CARD_RATIO
    unlike = np.ones((400, 500), np.uint8)
    under = _row_under(160, "blue-2", mass=0.99, conf=0.99)   # its index at about (172, 66)
    assert under.index[0] < 200

    def across(conf):   # a card-shaped outline over the strips of the row
        return CardSighting("blue-6", conf, (), ((150, 40), (250, 40), (250, 40 + h), (150, 40 + h)),
                            (200, 40 + h / 2))

    def kept(conf, cand, **t):
        return "blue-6" in [s.label for s in settle(Outlines([cand], [across(conf)], unlike, 1.0, 100.0),
                                                    Thresholds(seed=1.01, **t))]

    assert not kept(0.5, under)
    assert kept(0.5, under, hidden_indices=2)                 # one index is not enough then
    assert kept(HIDDEN_BELOW, under)                          # a sure reading stays
    assert kept(0.5, under._replace(conf=0.8))                # an unsure index proves nothing
    assert kept(0.5, under._replace(label="blue-6"))          # its own index, read again
    outside = _row_under(300, "blue-2", mass=0.99, conf=0.99)
    assert kept(0.5, outside)                                 # an index beside it, not under it


def test_a_card_read_whole_on_its_oval_takes_the_corner_outline_that_holds_it():
    """A card's outline is the card, never its centre oval: a sure reading on an outline a fifth
    of a card, inside a corner outline of its label, takes that outline; an unsure one is not
    brought back by it."""
    from vision.card_shape import CARD_RATIO
    from vision.partial import ODD_SURE, Outlines, Thresholds, reshaped_whole

    h = 100 * CARD_RATIO
    card = _row_under(150, "green-3", mass=0.99, conf=0.99)

    def oval(conf):
        return CardSighting("green-3", conf, (), ((175, 90), (225, 90), (225, 160), (175, 160)), (200, 125))

    other = CardSighting("red-5", 0.99, (), ((400, 50), (500, 50), (500, 50 + h), (400, 50 + h)), (450, 125))
    unlike = np.ones((400, 600), np.uint8)

    def outline(conf, cand, **t):
        got = [s for s in reshaped_whole(Outlines([cand], [other, oval(conf)], unlike, 1.0, 100.0),
                                         Thresholds(**t)) if s.label == "green-3"]
        return np.array(got[0].quad, np.float32) if got else None

    assert np.allclose(outline(0.85, card), card.quad)                       # the card's own
    assert np.allclose(outline(0.85, card, reshape_inside=1.01), oval(0).quad)  # the oval, as read
    assert outline(ODD_SURE - 0.1, card) is None                              # unsure: left out
    assert np.allclose(outline(0.85, card._replace(label="blue-2")), oval(0).quad)  # not its label


def test_two_cards_of_one_label_side_by_side_are_two_and_one_card_read_again_is_one():
    """Players sort their hands: a fan's two red 8s overlap by IoU 0.3-0.75. A second reading of
    the label is another card when its index is far from both index corners of the first
    (``same_label_corner``); one card read again is read at one of its own indices."""
    from vision.corners import index_point
    from vision.partial import SAME_LABEL_CORNER, SAME_PLACE_IOU, Outlines, Thresholds, select

    top = CardSighting("red-8", 0.99, (), ((200, 50), (300, 50), (300, 205), (200, 205)), (250, 128))
    top_q = np.array(top.quad, np.float32)
    unlike = np.ones((400, 500), np.uint8)
    t = Thresholds(seed=1.01)

    def turned(deg, label="red-8"):   # the top card turned about its bottom middle: a fan
        a = np.radians(deg)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
        pivot = np.float32([250, 205])
        return _cand(0.99, label, 0.98, (top_q - pivot) @ rot.T + pivot)

    second = turned(-24)
    iou = quad_iou(second.quad, top_q)
    assert 0.3 < iou < SAME_PLACE_IOU
    assert min(np.linalg.norm(second.index - index_point(top_q, k)) for k in (0, 1)) > SAME_LABEL_CORNER * 100
    assert [s.label for s in select(Outlines([second], [top], unlike, 1.0, 100.0), t)] == ["red-8"]
    # the rule off: any two of the label overlapping by more than 0.3 were one card
    assert select(Outlines([second], [top], unlike, 1.0, 100.0), Thresholds(seed=1.01, same_label_corner=0.0)) == []
    # the top card read again at its other index, on an outline a fifth of a card off
    again = _cand(0.99, "red-8", 0.98, top_q + np.float32([20, 0]), corner=1)
    assert 0.3 < quad_iou(again.quad, top_q) < SAME_PLACE_IOU
    assert select(Outlines([again], [top], unlike, 1.0, 100.0), t) == []


def test_a_strip_a_twentieth_of_a_card_wide_shows_on_the_strip_map_and_the_cloth_does_not():
    """What shows of a card under another is measured on a map of what is unlike the table at
    ``STRIP_PX`` pixels a card's width: at 48 a strip a twentieth of a card wide (a tight fan)
    is card-like; at 16, as before, it was lost in the map. An outline beside the card, on the
    cloth, is the table either way."""
    from vision.corners import strip_outside, unlike_table
    from vision.partial import STRIP_CARD_LIKE, STRIP_PX

    img = np.full((400, 500, 3), (40, 110, 60), np.uint8)       # green cloth
    top = np.float32([[200, 100], [300, 100], [300, 255], [200, 255]])
    under = top - np.float32([6, 0])                            # 6 pixels of it show
    beside = top + np.float32([112, 0])
    cv2.fillConvexPoly(img, np.int32(under), (235, 235, 235))
    cv2.fillConvexPoly(img, np.int32(top), (228, 228, 228))
    for px, shows in ((STRIP_PX, True), (16.0, False)):
        unlike, s = unlike_table(img, 100.0, px)
        share, free = strip_outside(unlike, s, under, [top])
        assert free > 0 and (share >= STRIP_CARD_LIKE) == shows, (px, share)
        assert strip_outside(unlike, s, beside, [top])[0] == 0.0


@pytest.mark.parametrize("shrink", [0.05, 0.0])
def test_a_strip_under_an_overhanging_outline_is_measured_outside_the_outline_shrunk(monkeypatch, shrink):
    """The card found on top is outlined 10 pixels wider than it is, over all but 2 pixels of the
    12-pixel strip of the card under it, whose own outline overhangs the table by 10: what shows
    is measured outside the outlines found shrunk by ``STRIP_SHRINK`` (5 pixels of strip: kept),
    not outside the outlines as they are (2: the table, dropped)."""
    import vision.partial as partial
    from vision.partial import Outlines, Thresholds, select

    unlike = np.zeros((200, 300), np.uint8)
    unlike[20:170, 20:132] = 1                       # the two cards: under at x 20-120, top at 32-132
    top = CardSighting("red-5", 0.99, (), ((22, 12), (142, 12), (142, 178), (22, 178)), (82, 95))
    under = _cand(0.99, "blue-2", 0.85, [[10, 20], [110, 20], [110, 170], [10, 170]])  # below strip_sure
    monkeypatch.setattr(partial, "STRIP_SHRINK", shrink)
    got = select(Outlines([under], [top], unlike, 1.0, 100.0), Thresholds())
    assert [s.label for s in got] == (["blue-2"] if shrink else [])


@pytest.mark.parametrize("label", ["back", "red-5"])
def test_a_back_read_whole_is_not_moved_onto_a_back_candidate_half_off_it(label, monkeypatch):
    """A back's corner reads "back" wherever an outline puts it on the back's pattern: a back
    read whole, its outline odd for the width measured, keeps its outline against a candidate
    overlapping it by IoU 0.4 (below ``BACK_RESHAPE_IOU``); a face takes it (``RESHAPE_IOU``)."""
    import vision.partial as partial
    from vision.partial import BACK_RESHAPE_IOU, RESHAPE_IOU, Outlines, reshaped_whole

    card = CardSighting(label, 0.95, (), ((0, 0), (100, 0), (100, 155), (0, 155)), (50, 77.5))
    beside = _cand(0.99, label, 0.97, [[43, 0], [143, 0], [143, 155], [43, 155]])
    iou = quad_iou(beside.quad, np.array(card.quad, np.float32))
    assert RESHAPE_IOU[0] < iou < BACK_RESHAPE_IOU
    # measured at 90 pixels a card, the outline read whole is 23 % too large: odd
    (got,) = reshaped_whole(Outlines([beside], [card], np.ones((200, 300), np.uint8), 1.0, 90.0))
    moved = got.quad != card.quad
    assert moved == (label != "back")
    # with the faces' rule for backs too, the back is moved onto the candidate
    monkeypatch.setattr(partial, "BACK_RESHAPE_IOU", RESHAPE_IOU[0])
    (got,) = reshaped_whole(Outlines([beside], [card], np.ones((200, 300), np.uint8), 1.0, 90.0))
    assert got.quad != card.quad


@pytest.mark.parametrize("confidence, flag, read_there", [(0.6, True, True), (0.95, True, False), (0.6, False, False)])
def test_the_place_of_a_doubtful_card_read_whole_is_read_by_its_corners_too(wide_row, monkeypatch,
                                                                             confidence, flag, read_there):
    # a card read whole on an outline that is not one card's, unsurely, may be left out by the
    # selection: its corners are read then (READ_UNDER_DOUBTFUL); a sure one's, or with the
    # ruling off, are not (that card is read)
    from vision import partial

    img, truth = wide_row
    top = truth[-1]
    middle = top.quad.mean(0)
    grown = (top.quad - middle) * 1.15 + middle                        # area 1.32: not one card's
    monkeypatch.setattr(partial, "READ_UNDER_DOUBTFUL", flag)
    whole = CardSighting(top.label, confidence, (), tuple(map(tuple, grown.tolist())), tuple(middle.tolist()))
    outlines = partial.read_outlines(CardReader(overlap=False), img, [whole], card_width=140.0)
    on_it = [c for c in outlines.cands if quad_iou(c.quad, top.quad) > 0.8]
    assert bool(on_it) == read_there
    if read_there:
        assert max(on_it, key=lambda c: c.mass * c.conf).label == top.label


def test_two_patches_of_one_card_reshaped_onto_its_outline_are_one_card():
    from vision.partial import Outlines, Thresholds, reshaped_whole

    # two patches of a green 3, each read as the card whole (outlines half a card's size), both
    # take the green 3's corner outline: one card, the surer reading
    own = np.array([[0, 0], [10, 0], [10, 15], [0, 15]], np.float32)
    patch_a = CardSighting("green-3", 0.74, (), ((0, 0), (10, 0), (10, 7), (0, 7)), (5, 3.5))
    patch_b = CardSighting("green-3", 0.73, (), ((0, 6), (10, 6), (10, 15), (0, 15)), (5, 10.5))
    card = _seen("red-5", 200)
    unlike = np.ones((40, 240), np.uint8)
    t = Thresholds(seed=1.01)
    got = reshaped_whole(Outlines([_cand(0.95, "green-3", 0.9, own)], [card, patch_a, patch_b], unlike, 1.0), t)
    assert [s.label for s in got] == ["red-5", "green-3"]
    assert got[1].confidence == 0.74 and (np.array(got[1].quad, np.float32) == own).all()
    # two cards of one label apart, neither reshaped, are two cards
    apart = [card, _seen("red-5", 0)]
    assert reshaped_whole(Outlines([_cand(0.95, "green-3", 0.9, own)], apart, unlike, 1.0), t) == apart


@pytest.mark.parametrize("least, width_right", [(0.8, True), (0.0, False)])
def test_a_hand_outlined_as_one_card_unsurely_does_not_give_the_card_width(wide_row, monkeypatch, least,
                                                                           width_right):
    # a whole row outlined as one card (2.9 times a card's width, not a card's proportions, as
    # on a validation table) and read unsurely: its size is not taken for a card's
    # (WIDTH_UNREFINED_SURE) and the index finder measures the width from the whole image; with
    # the ruling off it is, beyond the finder's check around it, and the width stays far off
    from vision import partial

    img, truth = wide_row
    points = np.concatenate([t.quad for t in truth]).astype(np.float32)
    (cx, cy), (w, h), angle = cv2.minAreaRect(points)
    short = 2.9 * 140.0
    box = cv2.boxPoints(((cx, cy), (short, short * 2.2) if w < h else (short * 2.2, short), angle))
    hand = CardSighting(truth[-1].label, 0.48, (), tuple(map(tuple, box.tolist())), (cx, cy))
    monkeypatch.setattr(partial, "WIDTH_UNREFINED_SURE", least)
    monkeypatch.setattr(partial, "EDGE_WIDTH_SURE", 0.0)   # this ruling alone
    outlines = partial.read_outlines(CardReader(overlap=False), img, [hand])
    got = outlines.width or 0.0
    assert (abs(got / 140.0 - 1) < 0.15) == width_right
    if width_right:
        assert {c.label for c in outlines.cands if c.mass * c.conf > 0.9} & {t.label for t in truth}


@pytest.mark.parametrize("flag", [0.5, 0.0])
def test_a_card_read_whole_on_an_outline_that_shows_no_index_of_it_takes_its_corner_outline(monkeypatch, flag):
    # a card read whole on an outline of a card's shape turned 45 degrees about its middle (a
    # wild outlined round its oval): neither of that outline's index corners shows its index, so
    # it takes the corner reading's outline, and the corner reading is that card, not a second
    # one (INDEXLESS); with the ruling off the card is counted twice. The card's own outline
    # shows its index at both corners and keeps it.
    from pathlib import Path

    from vision import partial

    monkeypatch.setattr(partial, "INDEXLESS", flag)
    img, quad = _card_on_table(width=110.0, turn=5.0)
    middle = quad.mean(0)
    a = np.radians(45.0)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    turned = ((quad - middle) @ rot.T + middle).astype(np.float32)
    assert 0.45 < quad_iou(turned, quad) < partial.SAME_PLACE_IOU
    index = partial.shared_reader(partial.IndexReader, Path(partial.INDEX_MODEL_PATH))
    astray = CardSighting("red-7", 0.89, (), tuple(map(tuple, turned.tolist())), tuple(middle.tolist()))
    own = CardSighting("red-7", 0.89, (), tuple(map(tuple, quad.tolist())), tuple(middle.tolist()))
    assert partial._corner_rulings(img, [own, astray], index, 110.0)[0] == (frozenset({1}) if flag else frozenset())

    corner = _cand(0.99, "red-7", 0.98, partial.order_quad(quad), corner=1)
    unlike = np.ones(img.shape[:2], np.uint8)
    outlines = partial.Outlines([corner], [astray], unlike, 1.0, 110.0, frozenset(),
                                partial._corner_rulings(img, [astray], index, 110.0)[0])
    got = partial.settle(outlines, partial.Thresholds(seed=1.01))
    assert [s.label for s in got] == (["red-7"] if flag else ["red-7", "red-7"])
    assert np.allclose(got[0].quad, corner.quad) == bool(flag)
    assert got[0].visible == "whole"


@pytest.mark.parametrize("flag", [2.5, 0.0])
def test_a_whole_hand_outlined_as_one_card_is_no_card_however_surely_read(monkeypatch, flag):
    # a whole reading on an outline four cards large (a hand outlined as its top card) hides the
    # cards under it: left out (BIG_OUTLINE), the hand's cards are found by their corners; with
    # the ruling off it stays, and the card under it is lost (nothing of it shows outside it).
    # An outline a little larger than a card (1.4 times) is a card's and stays either way.
    from vision import partial
    from vision.card_shape import CARD_RATIO

    monkeypatch.setattr(partial, "BIG_OUTLINE", flag)
    w, h = 100.0, 100.0 * CARD_RATIO
    hand = CardSighting("blue-6", 0.95, (), ((100, 50), (100 + 2 * w, 50), (100 + 2 * w, 50 + 2 * h),
                                              (100, 50 + 2 * h)), (100 + w, 50 + h))
    grown = 1.18
    card = CardSighting("red-5", 0.95, (), ((400, 50), (400 + grown * w, 50), (400 + grown * w, 50 + grown * h),
                                             (400, 50 + grown * h)), (400 + w / 2, 50 + h / 2))
    under = _cand(0.99, "green-2", 0.98, [[140, 90], [140 + w, 90], [140 + w, 90 + h], [140, 90 + h]])
    unlike = np.ones((500, 700), np.uint8)
    got = partial.settle(partial.Outlines([under], [hand, card], unlike, 1.0, w), partial.Thresholds())
    labels = [s.label for s in got]
    assert "red-5" in labels
    assert ("blue-6" in labels) == (not flag)
    assert ("green-2" in labels) == bool(flag)


@pytest.mark.parametrize("flag", [True, False])
def test_an_outline_that_is_no_card_explains_nothing_under_it(monkeypatch, flag):
    # a card read whole on an outline 1.8 times its size each way (a hand outlined as one card,
    # 3.2 card areas) covers every card-like pixel: it explains none of them
    # (EXPLAINED_BY_CARDS) and the second pass reads the corners there; with the ruling off the
    # pass does not run at all
    from vision import partial

    img, quad = _card_on_table(width=110.0, turn=5.0)
    grown = (quad - quad.mean(0)) * 1.8 + quad.mean(0)
    hand = CardSighting("blue-2", 0.53, (), tuple(map(tuple, grown.tolist())), tuple(quad.mean(0).tolist()))
    monkeypatch.setattr(partial, "EXPLAINED_BY_CARDS", flag)
    outlines = partial.read_outlines(CardReader(overlap=False), img, [hand], card_width=110.0)
    assert bool(outlines.cands) == flag
    if flag:
        assert max(outlines.cands, key=lambda c: c.mass * c.conf).label == "red-7"


@pytest.mark.parametrize("flag", [True, False])
def test_an_outline_not_of_a_cards_shape_explains_nothing_under_it(monkeypatch, flag):
    # a card read whole, surely, on an outline 1.3 times its width and its own height (a fan of
    # two outlined as its top card, the strip of the card under it inside): it explains none of
    # the card-like pixels under it (ODD_EXPLAINS_NOTHING) and the second pass reads the corners
    # there; with the ruling off the pass does not run at all
    from vision import partial

    img, quad = _card_on_table(width=110.0, turn=5.0)
    pair = _scaled(quad, 1.3, along=1 / 1.3)
    top = CardSighting("red-7", 0.95, (), tuple(map(tuple, pair.tolist())), tuple(quad.mean(0).tolist()))
    monkeypatch.setattr(partial, "ODD_EXPLAINS_NOTHING", flag)
    outlines = partial.read_outlines(CardReader(overlap=False), img, [top], card_width=110.0)
    assert bool(outlines.cands) == flag
    # an outline of the card's own shape explains its pixels either way
    own = CardSighting("red-7", 0.95, (), tuple(map(tuple, quad.tolist())), tuple(quad.mean(0).tolist()))
    assert partial.read_outlines(CardReader(overlap=False), img, [own], card_width=110.0).cands == []


@pytest.mark.parametrize("flag", [True, False])
def test_only_an_outline_of_a_cards_shape_shows_its_indices(monkeypatch, flag):
    # SHOWN_CARD_SHAPED: a card read whole on an outline grown over the strip of the card under
    # it puts its index corners on that strip; the indices judged shown (nothing lies on them)
    # are those of outlines of a card's shape only. (The corners are taken to read the card's
    # label here, as the grown outline's did on the synthetic table's fan of two.)
    from vision import partial
    from vision.card_shape import CARD_RATIO, order_quad
    from vision.synth import paste_card

    img, quad = _card_on_table(width=100.0, turn=0.0)
    loose = order_quad(np.array([[20, 20], [90, 20], [90, 20 + 70 * CARD_RATIO], [20, 20 + 70 * CARD_RATIO]],
                                np.float32))
    paste_card(img, draw_card("blue-4", 160, 248, face_set=CLASSIC, rng=np.random.default_rng(1)), loose)
    monkeypatch.setattr(partial, "SHOWN_CARD_SHAPED", flag)
    monkeypatch.setattr(partial, "_own_label_at_corners",
                        lambda _img, _whole, _reader, which: {i: np.array([0.99, 0.99]) for i in which})
    for outline, shown in ((quad, True), (_scaled(quad, 1.3, along=1 / 1.3), not flag)):
        card = CardSighting("red-7", 0.95, (), tuple(map(tuple, outline.tolist())),
                            tuple(outline.mean(0).tolist()))
        outlines = partial.read_outlines(CardReader(overlap=False), img, [card], card_width=100.0)
        assert outlines.cands, "the loose card is unexplained: the pass runs"
        assert len(outlines.shown) == (2 if shown else 0)


@pytest.mark.parametrize("least, measured", [(0.8, False), (0.0, True)])
def test_no_card_width_is_measured_on_the_edges_of_cards_read_unsurely(monkeypatch, least, measured):
    # a card read whole at 0.6 gives no width, even on its own edges (EDGE_WIDTH_SURE): the
    # index finder searches it; with the ruling off its edges give it. Read surely, it does.
    from vision import partial

    img, quad = _card_on_table(width=110.0, turn=5.0)
    monkeypatch.setattr(partial, "EDGE_WIDTH_SURE", least)
    unsure = CardSighting("red-7", 0.6, (), tuple(map(tuple, quad.tolist())), tuple(quad.mean(0).tolist()))
    got = partial._measured_width(img, [unsure], [quad])
    assert (got is not None and abs(got / 110.0 - 1) < 0.1) == measured
    got = partial._measured_width(img, [replace(unsure, confidence=0.95)], [quad])
    assert got is not None and abs(got / 110.0 - 1) < 0.1


def test_a_back_read_again_at_a_corner_of_a_back_found_is_that_back():
    """A back has no index: every corner of it reads alike, and an outline put on its strip's
    other corner runs the other way (IoU 0.3-0.55 with the first). ``back_corner``: a back read
    within BACK_CORNER (0.25) of a card width of a corner of a back found, overlapping it by more than
    BACK_CORNER_IOU, is that back."""
    from vision.partial import BACK_CORNER, BACK_CORNER_IOU, BACK_SAME_IOU, Candidate, Outlines, Thresholds, select

    first_quad = np.float32([[0, 0], [100, 0], [100, 150], [0, 150]])
    first = Candidate(0.999, "back", 0.999, (), first_quad, np.float32([15, 21]), 0)   # found first
    unlike = np.ones((200, 300), np.uint8)
    quad = np.float32([[40, 10], [140, 10], [140, 160], [40, 160]])
    iou = quad_iou(quad, first_quad)
    assert BACK_CORNER_IOU < iou < BACK_SAME_IOU             # 0.39: not one card by overlap alone

    def read_at(index, label="back"):
        return Candidate(0.99, label, 0.99, (), quad, np.float32(index), 1)

    def labels(second, t=Thresholds(), first=first):
        return [s.label for s in select(Outlines([first, second], [], unlike, 1.0, 100.0), t)]

    at_corner = read_at([95, 145])              # 7 pixels from the first back's bottom right corner
    assert np.hypot(5, 5) < BACK_CORNER * 100
    assert labels(at_corner) == ["back"]
    assert labels(at_corner, Thresholds(back_corner=0.0)) == ["back", "back"]   # the ruling off
    # read at a corner of its own, away from the first back's corners: a second back
    assert labels(read_at([125, 139])) == ["back", "back"]    # 27 pixels from (100, 150)
    # a face there is no back's corner: faces keep their own rules
    face_first = first._replace(label="green-7")
    assert labels(read_at([95, 145], "red-5"), first=face_first) == ["green-7", "red-5"]
    # backs fanned about one corner (a fan's pivot) have corners together but overlap little:
    # two backs, unless the overlap is not asked for
    pivot = Candidate(0.99, "back", 0.99, (), np.float32([[70, 100], [170, 100], [170, 250], [70, 250]]),
                      np.float32([95, 145]), 0)
    assert quad_iou(pivot.quad, first_quad) < BACK_CORNER_IOU
    assert labels(pivot) == ["back", "back"]
    assert labels(pivot, Thresholds(back_corner_iou=0.0)) == ["back"]


def test_a_card_read_at_both_of_its_ends_is_one_card():
    """Outlines put too small (a card width taken 0.75 of the true one) at the two ends of one
    card do not overlap as one card's: the second end's index lies on the line from the first
    index through the first outline's other index corner, beyond it (``far_end``)."""
    from vision.partial import Candidate, Outlines, Thresholds, select

    unlike = np.ones((300, 300), np.uint8)
    one_end = np.float32([[0, 0], [75, 0], [75, 112], [0, 112]])          # 0.75 of a 100x150 card
    other_end = np.float32([[25, 38], [100, 38], [100, 150], [25, 150]])
    first = Candidate(0.999, "red-8", 0.99, (), one_end, index_point(one_end, 0), 0)

    def labels(second, t=Thresholds()):
        return [s.label for s in select(Outlines([first, second], [], unlike, 1.0, 100.0), t)]

    at_other_end = Candidate(0.99, "red-8", 0.98, (), other_end, index_point(other_end, 1), 1)
    assert quad_iou(one_end, other_end) < 0.3                 # not one card by overlap
    assert labels(at_other_end) == ["red-8"]
    assert labels(at_other_end, Thresholds(far_end=0.0)) == ["red-8", "red-8"]    # the ruling off
    # another label there is another card
    assert labels(at_other_end._replace(label="red-6")) == ["red-8", "red-6"]
    # a second red 8 beside the first, facing the same way (a hand sorted by label): two cards
    beside = one_end + np.float32([90, 0])
    assert labels(Candidate(0.99, "red-8", 0.98, (), beside, index_point(beside, 0), 0)) == ["red-8", "red-8"]
    # an index there on an outline facing the same way as the first (a card lying beyond it,
    # end to end): another card
    ahead = one_end + (index_point(other_end, 1) - index_point(one_end, 0))
    assert labels(Candidate(0.99, "red-8", 0.98, (), ahead, index_point(ahead, 0), 0)) == ["red-8", "red-8"]


@pytest.mark.parametrize("kept", [True, False])
def test_a_sure_card_left_out_comes_back_where_no_covered_card_is_found(monkeypatch, kept):
    """WHOLE_KEPT: a close-up card read surely whole, on an outline four cards large for the
    width found (the index finder took it for a smaller card), is left out as a hand's outline;
    it comes back unless the second pass finds a partly covered card in its place."""
    import vision.partial as partial
    from vision.partial import Outlines, settle

    monkeypatch.setattr(partial, "WHOLE_KEPT", kept)
    close = CardSighting("blue-7", 0.98, (), ((20, 20), (220, 20), (220, 330), (20, 330)), (120, 175))
    unrelated = _cand(0.95, "green-3", 0.9, [[600, 5], [700, 5], [700, 160], [600, 160]])
    table = np.ones((400, 720), np.uint8)
    got = settle(Outlines([unrelated], [close], table, 1.0, 100.0), partial.Thresholds(seed=1.01))
    assert ("blue-7" in [s.label for s in got]) is kept
    # a partly covered card read surely in its place: the outline was a hand's, it stays out
    inside = _cand(0.99, "red-2", 0.97, [[30, 30], [130, 30], [130, 185], [30, 185]])
    got = settle(Outlines([inside], [close], table, 1.0, 100.0), partial.Thresholds())
    assert [(s.label, s.visible) for s in got] == [("red-2", "partial")]
    # a part of a card read unsurely on an odd outline (its centre oval) does not come back
    oval = CardSighting("red-1", 0.45, (), ((300, 20), (340, 20), (340, 60), (300, 60)), (320, 40))
    top = CardSighting("green-7", 0.99, (), ((400, 20), (500, 20), (500, 175), (400, 175)), (450, 97))
    got = settle(Outlines([unrelated], [oval, top, top], table, 1.0, 100.0), partial.Thresholds(seed=1.01))
    assert "red-1" not in [s.label for s in got]
    # nor one read surely, left out for the sure index of another card inside it, the card of
    # that index found with its centre outside it: smaller than a card, it is a part of one
    part = CardSighting("yellow-1", 0.85, (), ((300, 20), (345, 20), (345, 80), (300, 80)), (322, 50))
    other = _cand(0.99, "blue-5", 0.97, [[330, 40], [430, 40], [430, 195], [330, 195]])
    got = [s.label for s in settle(Outlines([other], [part, top, top], table, 1.0, 100.0), partial.Thresholds())]
    assert "blue-5" in got and "yellow-1" not in got


@pytest.mark.slow
@pytest.mark.parametrize("rule", [0.03, None])
def test_no_card_is_read_across_a_card_whose_indices_show(monkeypatch, rule):
    """SHOWN_OVER: on the sample table, read with the second pass, the black wild draw four's
    corner reads as a back's on an outline across it; that card's two indices show, so nothing
    lies on it there, and the back's corner would lie under it: no card."""
    from pathlib import Path

    import cv2

    import vision.partial as partial

    monkeypatch.setattr(partial, "SHOWN_OVER", rule)
    # (the whole image searched: the wild draw four's own outline explains what lies there, and
    # the pass would not look at it at all)
    monkeypatch.setattr(partial, "LOOK_WHERE_UNEXPLAINED", False)
    img = cv2.imread(str(Path(__file__).resolve().parents[2] / "samples" / "grid-table.jpg"))
    read = CardReader(overlap=True).read(img, deck="classic")
    partly = [s.label for s in read if s.visible == "partial"]
    assert ("back" in partly) is (rule is None)
    assert "wild-draw-four" in [s.label for s in read]


@pytest.mark.parametrize("on", [True, False])
def test_a_corner_reading_alone_on_the_table_needs_a_sure_label_and_a_card_like_outline(monkeypatch, on):
    """ISOLATED_SURE / ISOLATED_CARD_LIKE: a reading that overlaps no card found (a sweater's
    knit read as a green 9) is kept alone only when read at 0.9 or more on an outline unlike the
    table; beside a card found the usual thresholds apply."""
    import vision.partial as partial
    from vision.partial import Outlines, Thresholds, settle

    if not on:
        monkeypatch.setattr(partial, "ISOLATED_SURE", 0)
        monkeypatch.setattr(partial, "ISOLATED_CARD_LIKE", 0)
    top = CardSighting("red-2", 0.99, (), ((20, 20), (120, 20), (120, 175), (20, 175)), (70, 97))
    unlike = np.zeros((400, 720), np.uint8)
    unlike[:, :360] = 1                                       # cards on the left, the table on the right
    alone_on_table = _cand(0.99, "green-9", 0.97, [[500, 20], [600, 20], [600, 175], [500, 175]])
    alone_unsure = _cand(0.99, "blue-4", 0.85, [[200, 200], [300, 200], [300, 355], [200, 355]])
    alone_sure = _cand(0.99, "yellow-1", 0.95, [[200, 20], [300, 20], [300, 175], [200, 175]])
    beside = _cand(0.95, "blue-6", 0.85, [[90, 30], [190, 30], [190, 185], [90, 185]])
    got = [s.label for s in settle(Outlines([alone_on_table, alone_unsure, alone_sure, beside], [top],
                                            unlike, 1.0, 100.0), Thresholds())]
    assert "yellow-1" in got and "blue-6" in got            # alone but sure and card-like; beside a card
    assert ("green-9" in got) is not on                      # sure, on what looks like the table
    assert ("blue-4" in got) is not on                       # card-like, read at 0.85


@pytest.mark.parametrize("rule", [0.95, 0])
def test_a_back_inside_the_outline_a_reshaped_back_was_read_on_is_that_back(monkeypatch, rule):
    """AS_READ_INSIDE: a back read whole on its own outline, the card width found too small,
    is reshaped onto a corner outline inside it; its other corner, read as a back lying inside
    the outline as read, is that back again."""
    import vision.partial as partial
    from vision.partial import Outlines, Thresholds, settle

    monkeypatch.setattr(partial, "AS_READ_INSIDE", rule)
    back = CardSighting("back", 0.83, (), ((0, 0), (130, 0), (130, 200), (0, 200)), (65, 100))
    corner = _cand(0.99, "back", 0.99, [[0, 0], [100, 0], [100, 155], [0, 155]])
    other_end = _cand(0.99, "back", 0.98, [[30, 45], [130, 45], [130, 200], [30, 200]], corner=1)
    table = np.ones((300, 400), np.uint8)
    got = settle(Outlines([corner, other_end], [back], table, 1.0, 100.0), Thresholds())
    assert [s.visible for s in got].count("whole") == 1
    assert len(got) == (1 if rule else 2)
    # a back lying partly outside that outline is another back
    beside = _cand(0.99, "back", 0.98, [[60, 45], [160, 45], [160, 200], [60, 200]], corner=1)
    got = settle(Outlines([corner, beside], [back], table, 1.0, 100.0), Thresholds())
    assert len(got) == 2


# --- several seeds' tables, pooled (companion evaluate --seeds) -------------------------------

@given(st.integers(0, 10**6), st.integers(0, 50))
def test_a_range_of_seeds_is_every_seed_in_it_once(first, more):
    from vision.evaluate import parse_seeds

    assert parse_seeds(f"{first}-{first + more}") == list(range(first, first + more + 1))
    assert parse_seeds(f"{first},{first}-{first + more}") == list(range(first, first + more + 1))


def test_pooled_tallies_count_every_card_of_every_seed():
    a = FannedTally("a", cards=10, right=8, wrong=[("red-1", "red-7")], missed=["blue-2"], extra=1,
                    twice=0, backs=[1, 2], partial=[5, 6], visible_right=8)
    b = FannedTally("b", cards=5, right=5, extra=0, twice=1, backs=[0, 0], partial=[3, 3], visible_right=4)
    p = FannedTally.pooled("both", [a, b])
    assert (p.cards, p.right, p.extra, p.twice, p.visible_right) == (15, 13, 1, 1, 12)
    assert p.wrong == [("red-1", "red-7")] and p.missed == ["blue-2"]
    assert p.backs == [1, 2] and p.partial == [8, 9]
    assert p.precision == 13 / 16 and p.recall == 13 / 15
    assert a.wrong == [("red-1", "red-7")] and a.missed == ["blue-2"]  # the seeds' own tallies untouched


def _fanned_twin(deg=-18.5):
    """A red 8's outline and its twin's, the first turned by ``deg`` about its bottom middle as a
    fan's next card: their indices 0.4-0.5 of a card (100 pixels) apart."""
    first = np.float32([[200, 50], [300, 50], [300, 205], [200, 205]])
    a = np.radians(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    pivot = np.float32([250, 205])
    return first, (first - pivot) @ rot.T + pivot


def test_a_twin_in_a_tight_fan_is_a_second_card_beside_a_partly_covered_one():
    """Twins of a label in a tight fan show their indices 0.4-0.5
    of a card's width apart; beside a partly covered card found first, SAME_LABEL_CORNER 0.4
    takes that for a second card, 0.5 (before) took it for the first card read again."""
    from vision.corners import index_point
    from vision.partial import SAME_LABEL_CORNER, Outlines, Thresholds, select

    first_q, twin_q = _fanned_twin()
    first, twin = _cand(0.99, "red-8", 0.99, first_q), _cand(0.99, "red-8", 0.98, twin_q)
    apart = min(np.linalg.norm(twin.index - index_point(first_q, k)) for k in (0, 1)) / 100
    assert SAME_LABEL_CORNER < apart < 0.5
    outlines = Outlines([first, twin], [], np.ones((400, 500), np.uint8), 1.0, 100.0)
    assert [s.label for s in select(outlines, Thresholds(seed=0.0))] == ["red-8", "red-8"]
    assert [s.label for s in select(outlines, Thresholds(seed=0.0, same_label_corner=0.5))] == ["red-8"]


def test_beside_a_card_read_whole_the_same_distance_is_that_card_read_again():
    """A card read whole is often outlined a little off (a hand outlined as it, moved onto a
    corner reading): a fanned hand of the tests' own read a whole green 2 again at its other index, 0.46 of
    a card from the whole outline's index corners. There SAME_LABEL_CORNER_WHOLE (0.5) rules."""
    from vision.partial import SAME_LABEL_CORNER_WHOLE, Outlines, Thresholds, select

    first_q, twin_q = _fanned_twin()
    top = CardSighting("red-8", 0.99, (), tuple(map(tuple, first_q.tolist())), (250, 128))
    outlines = Outlines([_cand(0.99, "red-8", 0.98, twin_q)], [top], np.ones((400, 500), np.uint8), 1.0, 100.0)
    assert SAME_LABEL_CORNER_WHOLE == 0.5
    assert select(outlines, Thresholds(seed=0.0)) == []
    assert [s.label for s in select(outlines, Thresholds(seed=0.0, same_label_corner_whole=0.4))] == ["red-8"]


@pytest.mark.parametrize("rule", [True, False])
def test_two_readings_each_with_its_index_under_the_other_are_one_card(monkeypatch, rule):
    """MUTUAL_INDEX: an index that shows lies on no card above it, so two readings of a label
    each of whose index lies inside the other's outline are one card read at both ends. In a
    fanned hand of the tests' own a blue 7 smaller than the table's card width was read at its two ends on
    outlines too large, too far apart for SAME_LABEL_CORNER and FAR_END."""
    import vision.partial as partial
    from vision.corners import index_point
    from vision.partial import Candidate, Outlines, Thresholds, select

    monkeypatch.setattr(partial, "MUTUAL_INDEX", rule)
    w, h = 125.0, 187.5   # outlines a quarter too large for the 100x150 card at (200, 50)
    one_end = np.float32([[200, 50], [200 + w, 50], [200 + w, 50 + h], [200, 50 + h]])
    other_end = np.float32([[300 - w, 200 - h], [300, 200 - h], [300, 200], [300 - w, 200]])
    first = Candidate(0.999, "blue-7", 0.99, (), one_end, index_point(one_end, 0), 0)
    second = Candidate(0.99, "blue-7", 0.8, (), other_end, index_point(other_end, 1), 1)

    def labels(*cands):
        outlines = Outlines(list(cands), [], np.ones((400, 500), np.uint8), 1.0, 100.0)
        return [s.label for s in select(outlines, Thresholds(seed=0.0))]

    # the other rules for one card read twice do not reach it
    assert min(np.linalg.norm(second.index - index_point(one_end, k)) for k in (0, 1)) > 0.4 * 100
    assert not partial._at_far_end(second, first.index, index_point(one_end, 1), partial.FAR_END, 100.0)
    assert labels(first, second) == (["blue-7"] if rule else ["blue-7", "blue-7"])
    # a twin lying under the first, its index showing beside it: two cards either way
    under = one_end - np.float32([0.45 * w, 0])
    twin = Candidate(0.99, "blue-7", 0.8, (), under, index_point(under, 0), 0)
    assert partial._inside(first.index, under) and not partial._inside(twin.index, one_end)
    assert labels(first, twin) == ["blue-7", "blue-7"]
    # another label there is another card
    assert labels(first, second._replace(label="blue-1")) == ["blue-7", "blue-1"]


@pytest.mark.parametrize("side, facing", [(0.3, 0.9), (0.15, 0.9), (0.3, 0.0)])
def test_the_far_end_of_a_card_allows_a_leaning_cameras_slant_but_not_a_crossed_twin(monkeypatch, side, facing):
    """FAR_END_SIDE and FAR_END_FACING: a leaning camera's outlines, a third too small, put a
    card's second index a fifth of a card off the first outline's axis (one card: 0.3 allows
    it, 0.15 did not); a twin of the label laid across the first, its index at the same place,
    faces another way and is a second card (FAR_END_FACING 0.9; 0 took it for the first)."""
    import vision.partial as partial
    from vision.corners import index_point
    from vision.partial import Candidate, Outlines, Thresholds, select

    monkeypatch.setattr(partial, "FAR_END_SIDE", side)
    monkeypatch.setattr(partial, "FAR_END_FACING", facing)
    one_end = np.float32([[0, 0], [75, 0], [75, 112], [0, 112]])          # 0.75 of a 100x150 card
    first = Candidate(0.999, "red-8", 0.99, (), one_end, index_point(one_end, 0), 0)
    far = index_point(one_end, 1)
    axis = (far - first.index) / np.linalg.norm(far - first.index)
    normal = np.float32([-axis[1], axis[0]])
    # the card's other end read 1.5 times as far, 0.22 of a card off the axis, facing back
    index = first.index + (far - first.index) * 1.5 + normal * 22
    other_end = one_end + (index - index_point(one_end, 1))
    slanted = Candidate(0.99, "red-8", 0.98, (), other_end, index_point(other_end, 1), 1)
    # a twin laid across, its index at the same place, turned 120 degrees: 60 off facing back
    a = np.radians(120)
    turn = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    across_q = (one_end - one_end.mean(0)) @ turn.T
    across_q = (across_q + (index - index_point(across_q, 0))).astype(np.float32)
    across = Candidate(0.99, "red-8", 0.98, (), across_q, index_point(across_q, 0), 0)

    def labels(second):
        outlines = Outlines([first, second], [], np.ones((400, 400), np.uint8), 1.0, 100.0)
        return [s.label for s in select(outlines, Thresholds(seed=0.0))]

    # too far from the first outline's index corners to be that card by SAME_LABEL_CORNER
    assert min(np.linalg.norm(index - index_point(one_end, k)) for k in (0, 1)) > 0.4 * 100
    assert labels(slanted) == (["red-8"] if side >= 0.22 else ["red-8", "red-8"])
    assert labels(across) == (["red-8", "red-8"] if facing > 0 else ["red-8"])


@pytest.mark.parametrize("rule", [2, 0])
def test_outlines_that_agree_on_an_index_read_below_the_threshold_make_a_card(monkeypatch, rule):
    """AGREEING_READS: an index cut by the next card of a tight fan reads its value less surely
    (0.5-0.75 on each outline); two outlines with their index at one place reading the label,
    at 0.6 on average, make the card. One such outline alone, outlines that agree less surely,
    or that lie apart do not; nor does a wild (WILD_MIN_LABEL), nor an index on a card read
    whole (a hand side by side: a red 5 read whole, read again at its index as a red 8)."""
    import vision.partial as partial
    from vision.partial import Outlines, Thresholds, select

    monkeypatch.setattr(partial, "AGREEING_READS", rule)
    quad = np.float32([[200, 50], [300, 50], [300, 200], [200, 200]])   # 100x150: the card width 100
    near = quad + np.float32([4, 3])       # a refined variant: its index 5 px away
    apart = quad + np.float32([60, 0])     # another place

    top = CardSighting("red-9", 0.99, (), tuple(map(tuple, (quad + np.float32([70, 0])).tolist())),
                       (320.0, 125.0))   # the card above it, over a third of it

    def labels(*cands):
        outlines = Outlines(list(cands), [top], np.ones((400, 500), np.uint8), 1.0, 100.0)
        return [s.label for s in select(outlines, Thresholds(seed=0.0))]

    first = _cand(0.99, "blue-3", 0.7, quad)
    assert labels(first, _cand(0.99, "blue-3", 0.55, near)) == (["blue-3"] if rule else [])
    assert labels(first) == []                                           # alone
    assert labels(first, _cand(0.99, "blue-3", 0.45, near)) == []      # 0.575 on average
    assert labels(_cand(0.99, "blue-3", 0.45, quad), _cand(0.99, "blue-3", 0.8, near)) == ["blue-3"]
    assert labels(first, _cand(0.99, "blue-3", 0.55, apart)) == []      # not at one place
    assert labels(first, _cand(0.99, "blue-5", 0.55, near)) == []       # another label
    assert labels(_cand(0.99, "wild", 0.7, quad), _cand(0.99, "wild", 0.7, near)) == []
    # an index on the card read whole: that card's own print misread, not a card under it
    on_top = quad + np.float32([80, 10])
    assert partial._inside(_cand(0.99, "blue-3", 0.7, on_top).index, quad + np.float32([70, 0]))
    assert labels(_cand(0.99, "blue-3", 0.7, on_top), _cand(0.99, "blue-3", 0.7, on_top + 3)) == []
    assert labels(_cand(0.99, "blue-3", 0.8, on_top)) == ["blue-3"]   # (read surely, it is kept)
