"""Whole-photo reading reads only the largest outline of each group of near-identical outlines
while it is surely a card, and no outline inside a card read surely (vision.recognize); the cards
of a batch are prepared alike on the preparing threads and in the caller's."""

import sys
import types

import numpy as np
import pytest

import vision.recognize as recognize
from tests.support.tables import drawn_table, quad, read_spied, stub_reader
from vision.recognize import CardReader


_quad = quad


def test_outlines_overlapping_by_the_group_iou_share_a_group():
    quads = [_quad(0, 0), _quad(2, 1), _quad(300, 0), _quad(0, 0, 40, 62), _quad(301, 2)]
    assert recognize._groups(quads, 0.7) == [[0, 1], [2, 4], [3]]
    # each on its own when no two overlap that much
    assert recognize._groups(quads, 0.99) == [[0], [1], [2], [3], [4]]
    assert recognize._groups([], 0.7) == []


@pytest.fixture(scope="module")
def table_photo():
    labels = ["red-7", "blue-skip", "green-2"]
    return drawn_table(labels, 800, 450, seed=11, kind="wood", spacing=1.9), labels


def _reads(reader, img, monkeypatch):
    """The sightings and how many outlines the model read."""
    seen = []
    labels = read_spied(reader, img, monkeypatch, "_probs", lambda cards, deck: seen.append(len(cards)))
    return labels, sum(seen)


@pytest.mark.slow
def test_a_sure_card_spares_the_rest_of_its_group_and_an_unsure_group_is_read_whole(table_photo,
                                                                                  monkeypatch):
    img, labels = table_photo
    reader = CardReader()
    monkeypatch.setattr(recognize, "COVER_SURE", 1.1)  # (no card spares the outlines inside it)
    monkeypatch.setattr(recognize, "MASK_SURE", 1.1)   # (nor any outline its cards explain)
    grouped, n_grouped = _reads(reader, img, monkeypatch)
    monkeypatch.setattr(recognize, "CARD_SURE", 1.1)  # nothing is sure: every group read whole
    unsure, n_unsure = _reads(reader, img, monkeypatch)
    monkeypatch.setattr(recognize, "GROUP_IOU", 1.01)  # every outline its own group: all read
    every, n_every = _reads(reader, img, monkeypatch)
    assert grouped == unsure == every == sorted(labels)
    assert n_grouped < n_unsure == n_every


def test_outlines_inside_a_larger_one_are_held_by_it():
    big, inner, beside = _quad(0, 0, 100, 155), _quad(20, 30, 50, 78), _quad(80, 0, 60, 93)
    half_in = _quad(60, 60, 60, 93)  # a third of it inside the big one
    assert recognize._holders([big, beside, inner, half_in], 0.9) == [[], [], [0], []]
    assert recognize._holders([big, inner], 0.99) == [[], [0]]  # exactly inside counts
    assert recognize._holders([], 0.9) == []


@pytest.mark.slow
def test_a_sure_card_spares_the_outlines_inside_it_and_reads_the_same(table_photo, monkeypatch):
    img, labels = table_photo
    reader = CardReader()
    covering, n_covering = _reads(reader, img, monkeypatch)
    monkeypatch.setattr(recognize, "COVER_SURE", 1.1)  # no card is sure enough to cover
    every, n_every = _reads(reader, img, monkeypatch)
    assert covering == every == sorted(labels)
    assert n_covering < n_every


def test_a_card_that_is_not_sure_does_not_spare_the_outlines_inside_it(monkeypatch):
    """A blob of touching cards or a table region read as a weak card still has its cards read."""
    reader = CardReader.__new__(CardReader)
    reader.none_index = 0
    sure, weak = np.array([0.0, 0.95, 0.05]), np.array([0.2, 0.6, 0.2])
    assert reader._covers(sure) and not reader._covers(weak) and not reader._covers(None)


def test_cards_are_prepared_alike_on_the_threads_and_in_the_caller(table_photo, monkeypatch):
    img, _ = table_photo
    quads = [_quad(10 + 30 * i, 20 + 7 * i, 40 + 5 * i, 62 + 8 * i) for i in range(9)]
    monkeypatch.setattr(recognize.cv2, "getNumThreads", lambda: 2)
    threaded = recognize._prepared(img, quads)
    monkeypatch.setattr(recognize, "_POOL_FROM", 100)
    inline = recognize._prepared(img, quads)
    assert len(threaded) == len(inline) == 9
    assert all(np.array_equal(a, b) for a, b in zip(threaded, inline))


@pytest.mark.parametrize("h,w", [(300, 300), (270, 480), (40, 400)])
def test_a_photo_without_outlines_reads_no_card(h, w):
    """A square photo has no whole-frame outline; a blank one no outline at all."""
    assert CardReader().read(np.full((h, w, 3), 128, np.uint8)) == []


_stub_reader = stub_reader


SURE, WEAK, NONE = [0.02, 0.95, 0.03], [0.3, 0.6, 0.1], [0.97, 0.02, 0.01]


def test_an_outline_met_twice_is_read_once():
    a, b = _quad(10, 10), _quad(100, 10)
    reader = _stub_reader({(10.0, 10.0): SURE, (100.0, 10.0): WEAK})
    reads = recognize._Reads(reader, np.zeros((300, 400, 3), np.uint8), "auto")
    first = reads.probs([a, b, a.copy()])
    again = reads.probs([b, a])
    assert reader.seen == [(10.0, 10.0), (100.0, 10.0)]
    assert np.array_equal(first[0], first[2]) and np.array_equal(again[0], first[1])
    assert reads.probs([]).shape == (0, 3)


def test_outlines_explained_by_cards_read_surely_are_covered_and_others_are_not():
    left, right, weak = _quad(10, 10), _quad(72, 10), _quad(200, 10)
    reader = _stub_reader({(10.0, 10.0): SURE, (72.0, 10.0): SURE, (200.0, 10.0): WEAK})
    reads = recognize._Reads(reader, np.zeros((300, 400, 3), np.uint8), "auto")
    reads.probs([left, right, weak])
    blob = _quad(8, 8, 128, 97)                 # the two touching cards as one outline
    inside = _quad(20, 25, 40, 60)              # the field inside the left card
    half = _quad(40, 10, 60, 93)                # half on the left card, half on the right
    over_weak = _quad(205, 15, 50, 80)          # inside a card read weakly
    region = _quad(0, 0, 160, 200)              # a table region holding both cards and more
    assert reads.covered(blob) and reads.covered(inside) and reads.covered(half)
    assert reads.covered(region)                # (it holds two cards apart: no card does)
    assert not reads.covered(over_weak) and not reads.covered(_quad(300, 150))
    assert reads.coverage(inside) == pytest.approx(1.0) and reads.coverage(_quad(300, 150)) == 0.0
    # one sure card in a bigger outline does not explain it: that may be the card's own outline
    assert not reads.covered(_quad(5, 5, 75, 110))
    # the rest of a group is spared only by cards apart inside it: cover by one card may be that
    # card's own outline read better
    assert reads.covered(blob, alone=False) and reads.covered(region, alone=False)
    assert not reads.covered(inside, alone=False) and not reads.covered(half, alone=False)


@pytest.mark.slow
def test_the_rest_of_a_group_explained_by_sure_cards_is_not_read_and_reads_the_same(table_photo,
                                                                                 monkeypatch):
    img, labels = table_photo
    reader = CardReader()
    monkeypatch.setattr(recognize, "CARD_SURE", 1.1)   # every group's rest is looked at
    covering, n_covering = _reads(reader, img, monkeypatch)
    monkeypatch.setattr(recognize, "MASK_SURE", 1.1)   # no card explains any outline
    every, n_every = _reads(reader, img, monkeypatch)
    assert covering == every == sorted(labels)
    assert n_covering < n_every


def test_a_second_look_outline_is_spared_only_by_a_card_read_as_surely_as_sure():
    """A region read as a card at 0.92 (a hand-held card's surroundings) must not hide the card the
    second look finds inside it; a card read at SURE does (its fields are pieces of it)."""
    fairly, surely = _quad(10, 10, 200, 280), _quad(250, 10)
    reader = _stub_reader({(10.0, 10.0): [0.05, 0.92, 0.03], (250.0, 10.0): SURE})
    reads = recognize._Reads(reader, np.zeros((300, 400, 3), np.uint8), "auto")
    reads.probs([fairly, surely])
    in_fairly, in_surely = _quad(60, 60), _quad(255, 15, 50, 80)
    assert reads.covered(in_fairly) and not reads.covered(in_fairly, recognize.SURE)
    assert reads.covered(in_surely) and reads.covered(in_surely, recognize.SURE)


@pytest.mark.parametrize("mass, grown", [(0.99, True), (0.6, False)])
def test_a_card_is_grown_only_onto_an_outline_read_as_a_card(monkeypatch, mass, grown):
    # the card's own outline round its field or oval reads as a card, and the sighting takes it;
    # an outline round the card and more (a neighbour's edge) that reads as no card so surely
    # is not the card's (GROWN_MASS): the sighting keeps its own outline
    reader = CardReader()
    inner, outer = _quad(100, 100, 60, 93), _quad(85, 80, 90, 140)
    sure = recognize.CardReading("wild-draw-four", 0.96, ())
    around = recognize.CardReading("wild-draw-four", 0.48, ())
    cands = [(sure, inner, 1.0), (around, outer, mass)]
    monkeypatch.setattr(reader, "_grouped_candidates", lambda *a, **k: cands)
    monkeypatch.setattr(reader, "_select", lambda cands, whole: [(sure, inner)])
    monkeypatch.setitem(sys.modules, "vision.index_vote",
                        types.SimpleNamespace(index_vote=lambda image, out, deck, **kw: out))
    image = np.full((300, 400, 3), 90, np.uint8)
    (seen,) = reader.read(image)
    assert np.allclose(seen.quad, outer if grown else inner)
    assert seen.confidence == 0.96
    monkeypatch.setattr(recognize, "GROWN_MASS", 0.0)       # the ruling off: grown whatever it reads
    (seen,) = reader.read(image)
    assert np.allclose(seen.quad, outer)
