"""The corner indices' second opinion on cards read whole (vision.index_vote)."""

import numpy as np
import pytest

import vision.index_vote as vote
import vision.partial as partial
from vision.recognize import CardSighting

CLASSES = ("none", "yellow-1", "yellow-4", "yellow-7", "red-9")


class _FakeIndexReader:
    """Reads every index crop as ``reads`` says (one row of probabilities for all crops)."""

    classes = CLASSES
    none_index = 0

    def __init__(self, reads):
        self.reads = np.asarray(reads, np.float64)
        self.crops = 0

    def probs(self, crops, deck="auto"):
        self.crops += len(crops)
        return np.tile(self.reads, (len(crops), 1))


def _seen(label="yellow-4", conf=0.46, runners=(("yellow-1", 0.33), ("yellow-7", 0.05)), visible="whole"):
    q = ((100.0, 100.0), (200.0, 100.0), (200.0, 255.0), (100.0, 255.0))
    return CardSighting(label, conf, runners, q, (150.0, 177.5), visible=visible)


@pytest.fixture
def index_reads(monkeypatch):
    """Installs a fake index model reading ``probs`` (over CLASSES) at every corner."""
    def install(probs):
        fake = _FakeIndexReader(probs)
        monkeypatch.setattr(partial, "shared_reader", lambda cls, path: fake)
        return fake
    return install


IMAGE = np.full((400, 400, 3), 128, np.uint8)
MODEL = partial.INDEX_MODEL_PATH


@pytest.fixture(autouse=True)
def no_confirmation(request, monkeypatch):
    """The relabelling and the doubt beside a card whose index reads, each on its own: the
    confirmation by a corner (SURE_ALONE) off, except in the tests of it (``confirmation``)."""
    if "confirmation" not in request.fixturenames:
        monkeypatch.setattr(vote, "SURE_ALONE", 0.0)


@pytest.fixture
def confirmation():
    """The confirmation by a corner on, as configured."""


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_both_indices_read_as_a_runner_up_relabel_the_card(index_reads):
    fake = index_reads([0.02, 0.95, 0.01, 0.01, 0.01])        # both corners: a yellow 1
    [s] = vote.index_vote(IMAGE, [_seen()])
    assert fake.crops == 2                                      # its two corners read
    assert s.label == "yellow-1"
    assert s.confidence == pytest.approx(0.84 * 1.0, abs=0.05)  # the card model's 0.84, shared out
    assert [lab for lab, _p in s.runners_up] == ["yellow-4", "yellow-7"]
    assert s.quad == _seen().quad and s.visible == "whole"


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_the_vote_off_leaves_every_reading_as_it_was(index_reads, monkeypatch):
    index_reads([0.02, 0.95, 0.01, 0.01, 0.01])
    monkeypatch.setattr(vote, "INDEX_VOTE", 0.0)
    assert vote.index_vote(IMAGE, [_seen()]) == [_seen()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_an_index_agreeing_or_unsure_keeps_the_reading_untouched(index_reads):
    index_reads([0.02, 0.01, 0.95, 0.01, 0.01])                # the indices agree: a yellow 4
    assert vote.index_vote(IMAGE, [_seen()]) == [_seen()]
    index_reads([0.6, 0.1, 0.1, 0.1, 0.1])                     # no index in the boxes: no say
    assert vote.index_vote(IMAGE, [_seen()]) == [_seen()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_only_a_label_the_card_model_offered_can_win(index_reads):
    index_reads([0.01, 0.01, 0.01, 0.01, 0.96])                # a red 9, offered by no one
    assert vote.index_vote(IMAGE, [_seen()]) == [_seen()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_partly_covered_readings_and_a_missing_model_are_left_alone(index_reads, tmp_path):
    fake = index_reads([0.02, 0.95, 0.01, 0.01, 0.01])
    part = _seen(visible="partial")
    assert vote.index_vote(IMAGE, [part]) == [part] and fake.crops == 0
    assert vote.index_vote(IMAGE, [_seen()], path=tmp_path / "missing.onnx") == [_seen()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_a_drawn_card_read_whole_keeps_its_label_with_the_real_index_model():
    from vision.card_art import draw_card
    from vision.recognize import CardReader
    from vision.synth import compose_table

    rng = np.random.default_rng(3)
    labels = ["red-6", "blue-9", "green-1", "yellow-4", "red-draw-two"]
    cards = [(lab, draw_card(lab, 160, 248, rng=rng)) for lab in labels]
    img, placed = compose_table(cards, 1280, 720, rng=rng, kind="wood", spacing=1.6)
    read = CardReader().read(img)
    assert sorted(s.label for s in read) == sorted(labels)


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_a_label_moves_only_to_what_a_seen_index_reads_best(index_reads, monkeypatch):
    # no index in the boxes (none 0.9), but the little left favours the runner-up
    index_reads([0.90, 0.06, 0.001, 0.02, 0.019])
    assert vote.index_vote(IMAGE, [_seen()]) == [_seen()]
    monkeypatch.setattr(vote, "INDEX_SEEN", 1.01)                   # every corner seen: it moves
    assert vote.index_vote(IMAGE, [_seen()])[0].label == "yellow-1"
    monkeypatch.setattr(vote, "INDEX_SEEN", 0.5)
    # an index seen, read best as a label the card model did not offer: no move to yellow-1
    index_reads([0.05, 0.30, 0.001, 0.05, 0.599])
    assert vote.index_vote(IMAGE, [_seen()]) == [_seen()]


class _ReadsInTurn:
    """Reads the index crops row by row from ``rows`` (two corners a card, in the order given)."""

    classes = CLASSES + ("back",)
    none_index = 0

    def __init__(self, rows):
        self.rows = np.asarray([list(r) + [0.0] * (len(self.classes) - len(r)) for r in rows], np.float64)

    def probs(self, crops, deck="auto"):
        assert len(crops) == len(self.rows)
        return self.rows.copy()


NO_INDEX = [0.97, 0.01, 0.01, 0.005, 0.005]      # a corner box holding no index
RED_9 = [0.02, 0.01, 0.01, 0.01, 0.95]           # a corner box holding a red 9's index


def _red_9():
    q = ((300.0, 100.0), (380.0, 100.0), (380.0, 224.0), (300.0, 224.0))
    return CardSighting("red-9", 0.7, (("red-6", 0.2),), q, (340.0, 162.0))


def _doubt(monkeypatch, rows, sightings):
    monkeypatch.setattr(partial, "shared_reader", lambda cls, path: _ReadsInTurn(rows))
    return vote.index_vote(IMAGE, sightings)


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_a_reading_without_an_index_is_doubted_beside_a_card_whose_index_reads(monkeypatch):
    junk = _seen("yellow-7", 0.8, (("yellow-1", 0.1),))       # a yellow mug read as a yellow 7
    got = _doubt(monkeypatch, [NO_INDEX, NO_INDEX, RED_9, NO_INDEX], [junk, _red_9()])
    assert got[1] == _red_9()                                   # the card: untouched
    assert got[0].label == "yellow-7" and got[0].quad == junk.quad
    assert got[0].confidence == pytest.approx(0.8 * vote.NO_INDEX_DOUBT)
    assert got[0].runners_up == (("yellow-1", pytest.approx(0.1 * vote.NO_INDEX_DOUBT)),)
    assert max(got, key=lambda s: s.confidence).label == "red-9"   # the card is now the surest

    monkeypatch.setattr(vote, "NO_INDEX_DOUBT", 1.0)            # the ruling off
    assert _doubt(monkeypatch, [NO_INDEX, NO_INDEX, RED_9, NO_INDEX], [junk, _red_9()]) == [junk, _red_9()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_no_doubt_where_no_index_reads_or_the_index_is_another_label(monkeypatch):
    junk = _seen("yellow-7", 0.8, (("yellow-1", 0.1),))
    # no corner in the picture shows an index (a dim, far card): nothing to go by
    assert _doubt(monkeypatch, [NO_INDEX] * 4, [junk, _red_9()]) == [junk, _red_9()]
    # the other card's index shows, but reads no label of its own card: it backs nothing
    other = [0.02, 0.95, 0.01, 0.01, 0.01]
    assert _doubt(monkeypatch, [NO_INDEX, NO_INDEX, other, NO_INDEX], [junk, _red_9()]) == [junk, _red_9()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_a_back_and_a_partly_covered_card_are_never_doubted(monkeypatch):
    back = _seen("back", 0.9, ())
    assert _doubt(monkeypatch, [NO_INDEX, NO_INDEX, RED_9, RED_9], [back, _red_9()]) == [back, _red_9()]
    part = _seen("yellow-7", 0.8, (), visible="partial")        # not read at its corners here
    assert _doubt(monkeypatch, [RED_9, RED_9], [part, _red_9()]) == [part, _red_9()]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_an_unsure_card_no_corner_confirms_is_doubted_and_dropped_under_the_threshold(monkeypatch, confirmation):
    junk = _seen("yellow-7", 0.7, (("yellow-1", 0.1),))         # gravel read as a yellow 7
    [got] = _doubt(monkeypatch, [NO_INDEX, NO_INDEX], [junk])    # alone in the picture
    assert got.confidence == pytest.approx(0.7 * vote.NO_INDEX_DOUBT)
    monkeypatch.setattr(partial, "shared_reader", lambda cls, path: _ReadsInTurn([NO_INDEX, NO_INDEX]))
    assert vote.index_vote(IMAGE, [junk], keep_above=0.4) == []  # 0.35: no card at all
    monkeypatch.setattr(vote, "SURE_ALONE", 0.0)                 # the ruling off: kept as read
    monkeypatch.setattr(partial, "shared_reader", lambda cls, path: _ReadsInTurn([NO_INDEX, NO_INDEX]))
    assert vote.index_vote(IMAGE, [junk], keep_above=0.4) == [junk]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_a_corner_reading_the_label_or_a_sure_card_model_needs_no_confirmation(monkeypatch, confirmation):
    nine = _red_9()                                               # 0.7, one corner reads a red 9
    assert _doubt(monkeypatch, [NO_INDEX, RED_9], [nine]) == [nine]
    sure = _seen("yellow-7", 0.95, (("yellow-1", 0.03),))        # sure: its corners under a thumb
    assert _doubt(monkeypatch, [NO_INDEX, NO_INDEX], [sure]) == [sure]
    back = _seen("back", 0.6, ())                                  # a back shows no index
    assert _doubt(monkeypatch, [NO_INDEX, NO_INDEX], [back]) == [back]


@pytest.mark.skipif(not MODEL.is_file(), reason="the index model is not built")
def test_a_card_doubted_beside_another_is_doubted_once(monkeypatch, confirmation):
    junk = _seen("yellow-7", 0.8, (("yellow-1", 0.1),))
    got = _doubt(monkeypatch, [NO_INDEX, NO_INDEX, RED_9, NO_INDEX], [junk, _red_9()])
    assert got[0].confidence == pytest.approx(0.8 * vote.NO_INDEX_DOUBT)
    assert got[1] == _red_9()
