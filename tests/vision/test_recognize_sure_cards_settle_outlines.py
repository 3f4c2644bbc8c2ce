"""Whole-photo reading (vision.recognize) reads fewer outlines:
the rest of a group is not read where a card read surely inside its largest outline reads as that
outline does; a blob is explained by two cards read surely that lie BLOB_HOLDS (not INSIDE) in
it; and the rest of the other groups is read before the blobs, so that the cards it finds explain
them. Each rule both ways, on a stub reader (no model)."""

import numpy as np

import vision.recognize as recognize
from tests.support.tables import quad, stub_reader

# rows: (none, red-1, blue-2)
RED, BLUE = [0.02, 0.95, 0.03], [0.02, 0.03, 0.95]
WEAK_RED, WEAK_BLUE = [0.3, 0.6, 0.1], [0.3, 0.1, 0.6]
CARD_AREA = 60 * 93


def _reads(rows):
    reader = stub_reader(rows, min_confidence=0.5, min_label_confidence=0.4, n_runners=2)
    return reader, recognize._Reads(reader, np.zeros((300, 400, 3), np.uint8), "auto")


def test_the_rest_of_a_group_is_not_read_where_a_sure_card_inside_reads_as_its_largest():
    """A loose outline around a card reads it weakly; the card's own outline inside reads it
    surely: the loose outline's twin would only read the same card again. A card of another label
    inside does not settle the group (the twin may read the card better)."""
    big, twin, inner = quad(10, 10, 100, 155), quad(11, 11, 99, 153), quad(30, 40)
    for inner_row, twin_read in ((RED, False), (BLUE, True), (WEAK_RED, True)):
        reader, reads = _reads({(10.0, 10.0): WEAK_RED, (11.0, 11.0): RED, (30.0, 40.0): inner_row})
        reader._grouped_candidates(reads, [big, twin, inner], None)
        assert reader.seen[:2] == [(10.0, 10.0), (30.0, 40.0)]  # outside in, the rest after
        assert ((11.0, 11.0) in reader.seen) == twin_read, inner_row


def test_holds_label_wants_the_card_inside():
    big, inside, across = quad(10, 10, 100, 155), quad(30, 40), quad(80, 40)
    _, reads = _reads({(30.0, 40.0): RED, (80.0, 40.0): BLUE})
    reads.probs([inside, across])
    assert reads.holds_label(big, 1)          # red-1, inside
    assert not reads.holds_label(big, 2)      # blue-2 sticks half out (30 of its 60 px)


def test_two_sure_cards_partly_in_a_blob_hold_it():
    """Two cards of different labels each 0.87 inside a blob (they stick out of it a little):
    not INSIDE (0.9), but BLOB_HOLDS (0.6) of each: the blob is not read. Half-in cards still
    hold no blob."""
    blob, a, b = quad(0, 0, 124, 95), quad(-8, 1), quad(72, 1)
    for right, blob_read in ((BLUE, False), (WEAK_BLUE, True)):
        reader, reads = _reads({(-8.0, 1.0): RED, (72.0, 1.0): right, (0.0, 0.0): WEAK_RED})
        reader._grouped_candidates(reads, [blob, a, b], None, card_area=CARD_AREA)
        assert ((0.0, 0.0) in reader.seen) == blob_read, right
        assert not reads.holds_cards(blob)  # (the INSIDE test alone would read it)
    _, reads = _reads({(-30.0, 1.0): RED, (94.0, 1.0): BLUE})
    reads.probs([quad(-30, 1), quad(94, 1)])
    assert not reads.holds_cards(blob, recognize.BLOB_HOLDS)  # each only half inside


def test_the_rest_of_the_groups_is_read_before_the_blobs():
    """A blob holding a sure red card and a group whose largest outline reads a blue card weakly:
    the group's twin, read before the blob, reads the blue card surely, and the two cards explain
    the blob; where the twin reads weakly too, the blob is read."""
    blob, a, g1, g2 = quad(0, 0, 124, 95), quad(1, 1), quad(63, 1), quad(64, 2, 59, 91)
    for twin_row, blob_read in ((BLUE, False), (WEAK_BLUE, True)):
        reader, reads = _reads({(0.0, 0.0): WEAK_RED, (1.0, 1.0): RED, (63.0, 1.0): WEAK_BLUE,
                                (64.0, 2.0): twin_row})
        cands = reader._grouped_candidates(reads, [blob, a, g1, g2], None, card_area=CARD_AREA)
        assert reader.seen[:3] == [(1.0, 1.0), (63.0, 1.0), (64.0, 2.0)]
        assert ((0.0, 0.0) in reader.seen) == blob_read, twin_row
        assert len(cands) == 3 + blob_read  # every outline read is a candidate
