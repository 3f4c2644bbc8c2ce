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
