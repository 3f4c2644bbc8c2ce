"""Whole-photo reading leaves for last the outlines that hold several cards (a blob of touching
cards, a table region) and the whole frame, and reads them only where the cards read do not
explain them; a group whose largest outline is surely no card is not read further
(vision.recognize)."""

import numpy as np
import pytest

import vision.recognize as recognize
from vision.card_art import draw_card
from tests.support.tables import drawn_table, quad, read_spied, stub_reader
from vision.recognize import CardReader


_quad = quad


def _stub_reader(rows_by_corner):
    return stub_reader(rows_by_corner, min_confidence=0.5, min_label_confidence=0.4, n_runners=2)


RED, BLUE = [0.02, 0.95, 0.03], [0.02, 0.03, 0.95]
WEAK, NONE, FAIRLY_NONE = [0.3, 0.6, 0.1], [0.97, 0.02, 0.01], [0.6, 0.3, 0.1]


def _reads(rows):
    reader = _stub_reader(rows)
    return reader, recognize._Reads(reader, np.zeros((300, 400, 3), np.uint8), "auto")


def test_an_outline_holding_two_sure_cards_of_different_labels_apart_holds_cards():
    left, right = _quad(10, 10), _quad(72, 10)
    _, reads = _reads({(10.0, 10.0): RED, (72.0, 10.0): BLUE})
    reads.probs([left, right])
    assert reads.holds_cards(_quad(8, 8, 128, 97))      # the two touching cards as one blob
    assert reads.holds_cards(_quad(0, 0, 300, 200))     # a table region around them
    assert not reads.holds_cards(_quad(5, 5, 75, 110))  # around one of them only
    assert not reads.holds_cards(_quad(40, 10, 60, 93))  # across both, holding neither


def test_pieces_of_one_card_read_alike_or_weak_cards_do_not_hold_cards():
    """The two halves of a classic card's field (cut by its oval) are apart and both read as the
    card: the card's outline around them must still be read."""
    top, bottom, weak = _quad(10, 10, 60, 40), _quad(10, 60, 60, 40), _quad(200, 10)
    _, reads = _reads({(10.0, 10.0): RED, (10.0, 60.0): RED, (200.0, 10.0): WEAK,
                       (265.0, 10.0): WEAK})
    reads.probs([top, bottom, weak, _quad(265, 10)])
    assert not reads.holds_cards(_quad(5, 5, 70, 100))
    assert not reads.holds_cards(_quad(195, 5, 140, 100))  # two cards, but read weakly
    assert reads.covered(_quad(5, 5, 70, 100), alone=False)  # (the rule the rest of a group uses)


def test_only_a_far_bigger_outline_with_two_card_sized_outlines_apart_inside_is_a_blob():
    card = 60 * 93
    blob, a, b = _quad(0, 0, 124, 95), _quad(1, 1), _quad(63, 1)
    field, half = _quad(70, 8, 45, 78), _quad(70, 8, 45, 35)
    region = _quad(0, 0, 124, 200)
    firsts = [region, blob, a, b, field, half]
    holders = recognize._holders(firsts, recognize.INSIDE)
    assert recognize._blobs(firsts, holders, card) == {0, 1}
    # a card holding its field and a half of it (smaller than a card) is no blob
    assert recognize._blobs([b, field, half], recognize._holders([b, field, half], 0.9), card) == set()
    # nor an outline under DEFER_AREA cards, whatever it holds
    assert recognize._blobs(firsts, holders, card * 1.2) == {0}


def test_a_blob_is_read_last_and_only_where_its_cards_do_not_explain_it():
    blob, a, b = _quad(0, 0, 124, 95), _quad(1, 1), _quad(63, 1)
    for rows, blob_read in (({(1.0, 1.0): RED, (63.0, 1.0): BLUE}, False),   # two cards: explained
                            ({(1.0, 1.0): RED, (63.0, 1.0): WEAK}, True)):   # one sure card only
        reader, reads = _reads({**rows, (0.0, 0.0): WEAK})
        reader._grouped_candidates(reads, [blob, a, b], None, card_area=60 * 93)
        assert ((0.0, 0.0) in reader.seen) == blob_read
        assert reader.seen[:2] == [(1.0, 1.0), (63.0, 1.0)]  # the cards before the blob
    # with no card size known, outside in as before: the blob first
    reader, reads = _reads({(1.0, 1.0): RED, (63.0, 1.0): BLUE, (0.0, 0.0): WEAK})
    reader._grouped_candidates(reads, [blob, a, b], None)
    assert reader.seen[0] == (0.0, 0.0)


def test_the_rest_of_a_group_is_not_read_where_its_largest_outline_is_surely_no_card():
    big, twin = _quad(10, 10, 100, 155), _quad(11, 11, 99, 153)
    for first, twin_read in ((NONE, False), (FAIRLY_NONE, True), (WEAK, True), (RED, False)):
        reader, reads = _reads({(10.0, 10.0): first, (11.0, 11.0): RED})
        reader._grouped_candidates(reads, [big, twin], None)
        assert ((11.0, 11.0) in reader.seen) == twin_read, first


@pytest.fixture(scope="module")
def touching_table():
    labels = ["red-7", "blue-skip", "green-2", "yellow-4", "red-1", "blue-9"]
    return drawn_table(labels, 900, 506, seed=3, kind="cloth", spacing=1.05), labels


def _read(reader, img, monkeypatch):
    """The sightings' labels and the quads the model read."""
    seen = []
    labels = read_spied(reader, img, monkeypatch, "_quad_probs",
                        lambda image, quads, deck: seen.extend(quads))
    return labels, seen


@pytest.mark.slow
def test_a_table_of_touching_cards_reads_the_same_with_fewer_outlines(touching_table, monkeypatch):
    img, labels = touching_table
    reader = CardReader()
    h, w = img.shape[:2]
    last, seen = _read(reader, img, monkeypatch)
    whole = [q for q in seen if q.max(0)[0] - q.min(0)[0] > 0.9 * w and q.max(0)[1] - q.min(0)[1] > 0.9 * h]
    monkeypatch.setattr(recognize, "_blobs", lambda firsts, holders, card_area: set())
    monkeypatch.setattr(recognize._Reads, "holds_cards", lambda self, quad, inside=None: False)
    first, seen_before = _read(reader, img, monkeypatch)
    whole_before = [q for q in seen_before if q.max(0)[0] - q.min(0)[0] > 0.9 * w
                    and q.max(0)[1] - q.min(0)[1] > 0.9 * h]
    assert last == first == sorted(labels)
    assert len(seen) < len(seen_before)
    assert whole_before and not whole  # the whole frame holds six cards: not read as one


@pytest.mark.slow
def test_a_close_up_still_reads_the_whole_frame(monkeypatch):
    card = draw_card("green-2", 300, 466, rng=np.random.default_rng(1))
    reader = CardReader()
    labels, seen = _read(reader, card, monkeypatch)
    assert labels == ["green-2"]
    assert any(q.min(0)[0] < 10 and q.max(0)[0] > 290 and q.max(0)[1] > 455 for q in seen)
