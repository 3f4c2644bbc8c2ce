"""The overlap pass (vision.partial) looks only where the cards read whole do not explain what
shows: a photo whose cards were all read whole on their own outlines pays (almost) nothing for
it, and a photo with a hand beside separated cards is searched round the hand alone."""

from __future__ import annotations

import numpy as np
import pytest

import vision.partial as partial
from companion.cards import CLASSIC
from companion.tuning import PhotoTuning, default
from vision.card_art import draw_card
from vision.recognize import CardReader

from tests.support.drawn_hands import drawn_hand


@pytest.fixture(scope="module")
def separated():
    from vision.synth import compose_table

    rng = np.random.default_rng(4)
    cards = [(lab, draw_card(lab, 160, 248, face_set=CLASSIC, rng=rng))
             for lab in ("red-7", "blue-2", "green-skip", "yellow-0", "red-4", "blue-9")]
    img, placed = compose_table(cards, 1280, 720, rng=rng, kind="wood", spacing=1.9)
    return img, placed


class _Searches:
    """Counts the corner searches of the pass (vision.corners.partial_quads as partial calls it)
    and the image areas they were made on."""

    def __init__(self, monkeypatch):
        self.areas: list[int] = []
        real = partial.partial_quads

        def counted(image, width, known=(), **kw):
            self.areas.append(image.shape[0] * image.shape[1])
            return real(image, width, known=known, **kw)
        monkeypatch.setattr(partial, "partial_quads", counted)


@pytest.mark.parametrize("look", [True, False])
def test_a_table_of_cards_all_read_whole_is_not_searched(monkeypatch, separated, look):
    img, placed = separated
    monkeypatch.setattr(partial, "LOOK_WHERE_UNEXPLAINED", look)
    searches = _Searches(monkeypatch)
    read = CardReader(overlap=True).read(img, deck="classic")
    assert sorted(s.label for s in read) == sorted(p.label for p in placed)
    assert all(s.visible == "whole" for s in read)
    assert (searches.areas == []) is look     # without the places, the whole image is searched
    if not look:
        assert searches.areas == [img.shape[0] * img.shape[1]]


def test_a_row_of_overlapping_cards_is_searched_round_its_strips_and_read_as_before(monkeypatch):
    monkeypatch.setattr(partial, "WHOLE_SEARCH", 0.6)   # searched in places, not the whole image
    img, truth = drawn_hand("row", 7, card_width=140)   # the top card whole, four strips under it
    whole = CardReader(overlap=False).read(img, deck="classic")
    boxes = partial.unexplained_regions(img, whole)
    assert boxes, "the strips under the top card are not explained by it"
    H, W = img.shape[:2]
    assert sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) < H * W
    for c in truth:     # every index that shows lies in a place searched
        if c.visible == "partial" and c.readable:
            box, _share = max(c.indices, key=lambda b: b[1])
            x, y = box.mean(0)
            assert any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in boxes)
    searches = _Searches(monkeypatch)
    got = sorted((s.label, s.visible) for s in CardReader(overlap=True).read(img, deck="classic"))
    assert 0 < sum(searches.areas) < H * W
    monkeypatch.setattr(partial, "LOOK_WHERE_UNEXPLAINED", False)   # the whole image searched
    assert got == sorted((s.label, s.visible) for s in CardReader(overlap=True).read(img, deck="classic"))
    assert any(v == "partial" for _lab, v in got)


def test_the_photo_thresholds_come_from_the_tuning_file():
    t = default().photo
    assert isinstance(t, PhotoTuning)
    import vision.index_vote as vote

    for name in PhotoTuning.__dataclass_fields__:
        module = vote if hasattr(vote, name.upper()) else partial   # the indices' opinion, or the pass
        assert getattr(module, name.upper()) == getattr(t, name), name


def test_by_default_a_photo_with_something_unexplained_is_searched_whole(monkeypatch):
    img, _truth = drawn_hand("row", 7, card_width=140)
    searches = _Searches(monkeypatch)
    CardReader(overlap=True).read(img, deck="classic")
    assert searches.areas == [img.shape[0] * img.shape[1]]


@pytest.mark.parametrize("table", [1, 2, 3])
@pytest.mark.parametrize("check", [True, False])
def test_clutter_the_finder_takes_for_an_index_does_not_send_the_photo_to_the_pass(monkeypatch, table, check):
    """Separated cards beside clutter (a page of text, a round sticker, a pen: vision.synth's
    objects): what the index finder sees on the clutter reads as no index, so the pass does not
    run; with that check off (nothing dismissed) every such photo is searched whole."""
    from vision.synth import compose_table

    rng = np.random.default_rng(table)
    cards = [(lab, draw_card(lab, 160, 248, face_set=CLASSIC, rng=rng))
             for lab in ("red-7", "blue-2", "green-skip", "yellow-0", "red-4", "blue-9")]
    img, placed = compose_table(cards, 1280, 720, rng=rng, spacing=1.9, objects=True)
    whole = CardReader(overlap=False).read(img, deck="classic")
    assert sorted(s.label for s in whole) == sorted(p.label for p in placed)
    monkeypatch.setattr(partial, "SEEN_NOT_INDEX", default().photo.seen_not_index if check else 1.01)
    assert partial.unexplained_regions(img, whole) == ([] if check else None)


def _without_corner_indices(label: str, rng) -> np.ndarray:
    """A drawn card whose two corner indices are painted over in the white of its border: the
    whole-card pass still reads it by its centre, but the index model cannot read its label at
    its corners (as with a print whose indices it does not know), so its outline is not
    confirmed as its own."""
    from vision.overlap import index_boxes

    face = draw_card(label, 160, 248, face_set=CLASSIC, rng=rng)
    h, w = face.shape[:2]
    for x0, y0, x1, y1 in index_boxes(w, h):
        face[int(y0):int(y1) + 1, int(x0):int(x1) + 1] = 255
    return face


def test_a_card_read_surely_whose_corners_do_not_confirm_it_is_not_searched_whole(monkeypatch):
    """One card on the table, read surely by the whole-card pass on an outline its corners do
    not confirm, and nothing else card-like: the index finder, looking round it at its width,
    sees no index that is not its own, so the pass does not search the photo; its reading is
    the whole-card pass's."""
    from vision.synth import compose_table

    rng = np.random.default_rng(7)
    img, placed = compose_table([("green-7", _without_corner_indices("green-7", rng))], 900, 700,
                                rng=rng, kind="wood")
    whole = CardReader(overlap=False).read(img, deck="classic")
    assert [s.label for s in whole] == ["green-7"] and whole[0].confidence >= partial.ODD_SURE
    own, doubtful = partial._own_outlines(img, whole, partial.shared_reader(partial.IndexReader,
                                                                             partial.INDEX_MODEL_PATH))
    assert own == [] and [judged for _q, judged in doubtful] == [True]
    assert partial.unexplained_regions(img, whole) == []
    searches = _Searches(monkeypatch)
    assert [s.label for s in CardReader(overlap=True).read(img, deck="classic")] == ["green-7"]
    assert searches.areas == []
