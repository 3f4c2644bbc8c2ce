"""Whole-photo reading (vision.recognize) skips outlines the cards read surely explain:
the rest of a group whose largest outline reads ``none`` where the
cards cover it, a blob the cards cover, the rest of a group once one of its outlines reads
surely as a card, an outline 0.8 inside a card read surely (HOLD_INSIDE), and an outline inside
a card read with 0.8 (COVER_SURE). Each rule both ways, on a stub reader (no model)."""

import numpy as np

import vision.recognize as recognize
from tests.support.tables import quad, stub_reader

RED, BLUE = [0.02, 0.95, 0.03], [0.02, 0.03, 0.95]
WEAK, FAIRLY_NONE = [0.3, 0.6, 0.1], [0.6, 0.3, 0.1]


def _reads(rows):
    reader = stub_reader(rows, min_confidence=0.5, min_label_confidence=0.4, n_runners=2)
    return reader, recognize._Reads(reader, np.zeros((300, 400, 3), np.uint8), "auto")


# an outline (and its twin, one group) with two cards read surely across it: together they cover
# all of the twin, but neither lies inside it (each sticks out on its own side)
BIG, TWIN = quad(10, 10, 100, 155), quad(11, 11, 99, 153)
LEFT, RIGHT = quad(0, 10, 62, 155), quad(58, 10, 62, 155)


def test_the_rest_of_a_group_read_as_none_is_not_read_where_sure_cards_cover_it():
    for first, twin_read in ((FAIRLY_NONE, False), (WEAK, True)):
        reader, reads = _reads({(10.0, 10.0): first, (11.0, 11.0): RED, (0.0, 10.0): RED,
                                (58.0, 10.0): BLUE})
        reader._grouped_candidates(reads, [BIG, TWIN, LEFT, RIGHT], None)
        # (a largest outline read as a weak card still has its group read: the same card may
        # read better from another of its outlines)
        assert ((11.0, 11.0) in reader.seen) == twin_read, first


def test_the_rest_of_a_group_read_as_none_is_read_where_the_cards_do_not_cover_it():
    reader, reads = _reads({(10.0, 10.0): FAIRLY_NONE, (11.0, 11.0): RED, (0.0, 10.0): RED,
                            (58.0, 10.0): WEAK})
    reader._grouped_candidates(reads, [BIG, TWIN, LEFT, RIGHT], None)
    assert (11.0, 11.0) in reader.seen


def test_a_blob_covered_by_sure_cards_of_one_label_is_not_read():
    """Two cards of one label do not make a blob hold cards (a card's field halves read alike),
    but where the cards read surely cover it the blob is no card of its own either."""
    blob, a, b = quad(0, 0, 124, 95), quad(1, 1), quad(63, 1)
    for second, blob_read in ((RED, False), (WEAK, True)):
        reader, reads = _reads({(1.0, 1.0): RED, (63.0, 1.0): second, (0.0, 0.0): WEAK})
        reader._grouped_candidates(reads, [blob, a, b], None, card_area=60 * 93)
        assert ((0.0, 0.0) in reader.seen) == blob_read, second


def test_the_rest_of_a_group_is_read_one_outline_at_a_time_until_one_is_surely_a_card():
    big, twin, third = quad(10, 10, 100, 155), quad(11, 11, 99, 153), quad(12, 12, 98, 151)
    for twin_row, third_read in ((RED, False), (WEAK, True)):
        reader, reads = _reads({(10.0, 10.0): WEAK, (11.0, 11.0): twin_row, (12.0, 12.0): BLUE})
        cands = reader._grouped_candidates(reads, [big, twin, third], None)
        assert reader.seen[:2] == [(10.0, 10.0), (11.0, 11.0)]  # the largest of the rest first
        assert ((12.0, 12.0) in reader.seen) == third_read, twin_row
        assert len(cands) == 2 + third_read  # every outline read is a candidate


def test_an_outline_mostly_inside_a_sure_card_is_not_read():
    """An outline 85 % inside a card read surely is that card's outline again, a little off; one
    only 70 % inside it may be a neighbour's and is read."""
    card = quad(10, 10, 100, 155)
    for x, read in ((25.0, False), (40.0, True)):
        other = quad(x, 20, 100, 140)
        reader, reads = _reads({(10.0, 10.0): RED, (x, 20.0): BLUE})
        reader._grouped_candidates(reads, [card, other], None)
        assert reader.seen[0] == (10.0, 10.0)
        assert ((x, 20.0) in reader.seen) == read, x


def test_an_outline_inside_a_card_read_with_0_8_is_not_read():
    card, field = quad(10, 10, 100, 155), quad(20, 25, 80, 125)
    for card_row, field_read in (([0.15, 0.82, 0.03], False), ([0.25, 0.72, 0.03], True)):
        reader, reads = _reads({(10.0, 10.0): card_row, (20.0, 25.0): RED})
        reader._grouped_candidates(reads, [card, field], None)
        assert ((20.0, 25.0) in reader.seen) == field_read, card_row
