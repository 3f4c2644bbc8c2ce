"""The index model of the partial pass: the box round a corner index (vision.corners.index_crop),
read by vision/models/index.onnx (vision.partial.IndexReader), trained by vision.train.index."""

import numpy as np
import pytest

from companion.cards import CLASSIC
from vision.card_art import draw_card
from vision.classes import CLASSES, NONE
from vision.corners import INDEX_H, INDEX_W, index_crop, index_outline
from vision.partial import INDEX_MODEL_PATH, IndexReader

FACES = [c.name for c in CLASSIC.faces if not c.name.startswith("wild")]


def _card_on_table(label: str, seed: int = 0):
    """A drawn card on a plain grey table, turned a little: (image, its outline)."""
    import cv2

    rng = np.random.default_rng(seed)
    card = draw_card(label, 160, 248, face_set=CLASSIC, rng=rng)
    img = np.full((420, 420, 3), 90, np.uint8)
    quad = np.array([[130, 80], [290, 95], [272, 342], [112, 327]], np.float32)
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [160, 0], [160, 248], [0, 248]], np.float32), quad)
    warped = cv2.warpPerspective(card, m, (420, 420))
    mask = cv2.warpPerspective(np.full(card.shape[:2], 255, np.uint8), m, (420, 420)) > 0
    img[mask] = warped[mask]
    return img, quad


def test_the_bottom_right_index_is_cut_upside_down_as_the_top_left_one():
    img, quad = _card_on_table("green-7")
    turned = img[::-1, ::-1].copy()
    h, w = img.shape[:2]
    # the same card turned over: its corners, in the order an outline lists them, are the old
    # corners turned, starting from the old bottom right
    quad_turned = (np.float32([w - 1, h - 1]) - quad)[[2, 3, 0, 1]]
    a, b = index_crop(img, quad, 1), index_crop(turned, quad_turned, 0)
    assert a.shape == b.shape == (INDEX_H, INDEX_W, 3)
    assert np.abs(a.astype(int) - b.astype(int)).mean() < 6  # (interpolation of other pixels)
    # and the box is at the corner: its outline lies within a third of the card from it
    box = index_outline(quad, 0)
    assert np.linalg.norm(box.mean(0) - quad[0]) < 0.35 * np.linalg.norm(quad[2] - quad[0])


def test_a_large_card_is_shrunk_before_it_is_cut_and_reads_as_a_small_one():
    import cv2

    img, quad = _card_on_table("red-4")
    big = cv2.resize(img, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    small_crop, big_crop = index_crop(img, quad, 0), index_crop(big, quad * 4, 0)
    assert np.abs(small_crop.astype(int) - big_crop.astype(int)).mean() < 12


def test_training_tables_give_index_samples_of_cards_and_of_none():
    from vision.train.index import build

    rng = np.random.default_rng(8)
    pool = [(lab, draw_card(lab, 160, 248, face_set=CLASSIC, rng=rng)) for lab in FACES[:12]]
    x, y = build(2, pool, pool, seed=3, workers=1)
    assert x.shape[1:] == (INDEX_H, INDEX_W, 3) and len(x) == len(y)
    labels = {CLASSES[i] for i in y}
    assert NONE in labels and labels - {NONE} and labels - {NONE} <= set(FACES[:12])


def test_a_cut_index_is_its_cards_sample_only_where_the_trainer_is_told_to_teach_cut_indices():
    from vision.corners import index_outline
    from vision.overlap import HandCard
    from vision.train.index import samples_of_table

    img, quad = _card_on_table("green-7")
    # the card's top-left index 60 % shown (a fan's next card over it), the other hidden
    card = HandCard("green-7", quad, shown=0.5, index_shown=0.6,
                    indices=((index_outline(quad, 0), 0.6), (index_outline(quad, 1), 0.0)))
    none, green7 = CLASSES.index(NONE), CLASSES.index("green-7")

    def labels(**cut):
        _x, y = samples_of_table(img, [card], np.random.default_rng(2), jitter=0, **cut)
        return list(y)

    assert green7 not in labels()              # INDEX_VISIBLE (0.8): a cut index is no sample
    assert green7 in labels(cut=0.5)           # taught as its card
    assert none in labels() and none in labels(cut=0.5)   # the hidden corner is no card either way
    assert green7 not in labels(cut=0.7)       # 0.6 shown is under that cut


def test_a_backs_cut_corner_is_never_taught_as_a_back():
    from vision.corners import index_outline
    from vision.overlap import HandCard
    from vision.train.index import samples_of_table

    img, quad = _card_on_table("green-7")   # (the pixels do not matter to what is labelled)

    def labels(shown: float):
        back = HandCard("back", quad, shown=0.5, index_shown=shown,
                        indices=((index_outline(quad, 0), shown), (index_outline(quad, 1), 0.0)))
        _x, y = samples_of_table(img, [back], np.random.default_rng(2), jitter=0, cut=0.5)
        return list(y)

    assert CLASSES.index("back") not in labels(0.6)   # cut: a wild's black corner looks the same
    assert CLASSES.index("back") in labels(0.9)       # shown: a back


@pytest.fixture(scope="module")
def index_reader():
    if not INDEX_MODEL_PATH.is_file():
        pytest.fail(f"the index model is missing: {INDEX_MODEL_PATH} (python -m vision.train.index)")
    return IndexReader()


def test_the_committed_index_model_reads_drawn_indices_and_the_bare_table(index_reader):
    wrong = []
    for n, label in enumerate(FACES[::3]):
        img, quad = _card_on_table(label, seed=n)
        p = index_reader.probs([index_crop(img, quad, 0), index_crop(img, quad, 1)], "classic")
        got = [index_reader.classes[int(i)] for i in p.argmax(1)]
        wrong += [(label, g) for g in got if g != label]
    assert len(wrong) <= 1, wrong  # drawn cards are a quarter of its training cards
    img, quad = _card_on_table("blue-2")
    bare = np.full_like(img, 90)
    p = index_reader.probs([index_crop(bare, quad, 0)], "classic")[0]
    assert index_reader.classes[int(p.argmax())] == NONE


def test_labels_outside_the_deck_are_never_read(index_reader):
    img, quad = _card_on_table("yellow-5")
    p = index_reader.probs([index_crop(img, quad, 0)], "classic")[0]
    flip_only = [i for i, c in enumerate(index_reader.classes) if c.startswith(("pink", "teal", "orange", "purple"))]
    assert flip_only and p[flip_only].sum() == 0.0 and abs(p.sum() - 1.0) < 1e-9
    assert index_reader.probs([], "classic").shape == (0, len(CLASSES))
    with pytest.raises(ValueError, match="unknown deck"):
        index_reader.probs([index_crop(img, quad, 0)], "uno-moon")


def _index_cut_by_the_next_card(label: str, shown: float, seed: int) -> np.ndarray:
    """The index box of a drawn ``label`` whose top-left index the next card of a fan, laid
    over it from the right, cuts: ``shown`` of the box's width left showing."""
    from vision.card_art import draw_card as draw

    img, quad = _card_on_table(label, seed)
    box = index_outline(quad, 0)
    edge = int(box[:, 0].min() + shown * (box[:, 0].max() - box[:, 0].min()))
    nxt = draw(FACES[(FACES.index(label) + 7) % len(FACES)], 160, 248, face_set=CLASSIC,
               rng=np.random.default_rng(seed + 1))
    part = nxt[:, :min(160, img.shape[1] - edge)]
    img[60:308, edge:edge + part.shape[1]] = part
    return index_crop(img, quad, 0)


def test_the_hands_index_model_reads_indices_a_fan_cuts_that_the_general_one_misreads():
    from vision.partial import HANDS_INDEX_MODEL_PATH

    general, hands = IndexReader(INDEX_MODEL_PATH), IndexReader(HANDS_INDEX_MODEL_PATH)
    # (each share's crops cut once, both models read the same crops)
    crops = {shown: [_index_cut_by_the_next_card(lab, shown, i) for i, lab in enumerate(FACES)]
             for shown in (0.6, 1.0)}

    def right(reader, shown):
        return sum(reader.classes[int(np.argmax(p))] == lab
                   for p, lab in zip(reader.probs(crops[shown], "classic"), FACES))

    # (committed models, measured: 60 % of the box shown, general 45 of 52, hands 49)
    cut = right(hands, 0.6)
    assert cut >= 0.9 * len(FACES) and cut > right(general, 0.6)
    assert right(hands, 1.0) == right(general, 1.0) == len(FACES)   # whole indices: both


def test_the_hand_scanners_reader_reads_with_the_hands_index_model():
    from app.hand_scan import hand_card_reader
    from vision.partial import HANDS_INDEX_MODEL_PATH

    assert hand_card_reader().index_model_path == HANDS_INDEX_MODEL_PATH
