"""Whole-photo reading reads only the largest outline of each group of near-identical outlines
while it is surely a card, and no outline inside a card read surely (vision.recognize); the cards
of a batch are prepared alike on the preparing threads and in the caller's."""

import sys
import types

import numpy as np
import pytest

import vision.recognize as recognize
from vision.card_art import draw_card
from vision.recognize import CardReader
from vision.synth import compose_table


def _quad(x, y, w=60.0, h=93.0):
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_outlines_overlapping_by_the_group_iou_share_a_group():
    quads = [_quad(0, 0), _quad(2, 1), _quad(300, 0), _quad(0, 0, 40, 62), _quad(301, 2)]
    assert recognize._groups(quads, 0.7) == [[0, 1], [2, 4], [3]]
    # each on its own when no two overlap that much
    assert recognize._groups(quads, 0.99) == [[0], [1], [2], [3], [4]]
    assert recognize._groups([], 0.7) == []


@pytest.fixture(scope="module")
def table_photo():
    rng = np.random.default_rng(11)
    labels = ["red-7", "blue-skip", "green-2"]
    img, _ = compose_table([(lab, draw_card(lab, 120, 186, rng=rng)) for lab in labels], 800, 450,
                           rng=rng, kind="wood", spacing=1.9)
    return img, labels


def _reads(reader, img, monkeypatch):
    """The sightings and how many outlines the model read."""
    seen = []
    probs = reader._probs
    monkeypatch.setattr(reader, "_probs", lambda cards, deck: seen.append(len(cards)) or probs(cards, deck))
    out = reader.read(img)
    monkeypatch.setattr(reader, "_probs", probs)
    return sorted(s.label for s in out), sum(seen)


@pytest.mark.slow
def test_a_sure_card_spares_the_rest_of_its_group_and_an_unsure_group_is_read_whole(table_photo,
                                                                                  monkeypatch):
    img, labels = table_photo
    reader = CardReader()
    monkeypatch.setattr(recognize, "COVER_SURE", 1.1)  # (no card spares the outlines inside it)
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
