"""The card around its centre oval (:mod:`vision.oval`): a back whose black field and white border
do not stand out from a dark table is outlined as the card, never as its oval."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.detect as detect
from vision.card_art import draw_card
from vision.card_shape import CARD_RATIO
from vision.detect import find_quads, quad_iou
from vision.oval import AXES, TILT, card_around_oval


def _contour(mask: np.ndarray) -> np.ndarray:
    return max(cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)


def _oval_mask(card_width: float, turn: float, axes=AXES, tilt: float = TILT) -> np.ndarray:
    mask = np.zeros((500, 500), np.uint8)
    size = (axes[0] * card_width, axes[1] * card_width * CARD_RATIO)
    cv2.ellipse(mask, ((250, 250), size, turn + tilt), 255, -1)
    return mask


@pytest.mark.parametrize("turn", [0, 20, 75, 140, 200])
def test_a_backs_oval_gives_its_card_at_any_turn(turn):
    quad = card_around_oval(_contour(_oval_mask(150, turn)))
    truth = cv2.boxPoints(((250, 250), (150, 150 * CARD_RATIO), turn)).astype(np.float32)
    assert quad_iou(quad, truth) > 0.95


def test_the_card_is_turned_against_the_ovals_tilt_not_with_it():
    # the same oval tilted the other way round on its card is no card turned TILT one way
    quad = card_around_oval(_contour(_oval_mask(150, 0, tilt=-TILT)))
    upright = cv2.boxPoints(((250, 250), (150, 150 * CARD_RATIO), 0)).astype(np.float32)
    assert quad_iou(quad, upright) < 0.8


@pytest.mark.parametrize("shape", ["field", "round", "wide oval", "few points"])
def test_outlines_that_are_no_backs_oval_give_no_card(shape):
    mask = np.zeros((500, 500), np.uint8)
    if shape == "field":        # a card's coloured field: a rectangle overfills its ellipse
        cv2.rectangle(mask, (150, 120), (280, 330), 255, -1)
    elif shape == "round":      # a pawn's top, a coin
        cv2.circle(mask, (250, 250), 80, 255, -1)
    elif shape == "wide oval":  # wider than the classic card's oval
        cv2.ellipse(mask, ((250, 250), (140, 200), 30), 255, -1)
    if shape == "few points":
        assert card_around_oval(np.array([[[1, 1]], [[5, 1]], [[5, 9]], [[1, 9]]], np.int32)) is None
    else:
        assert card_around_oval(_contour(mask)) is None


def _back_on_a_dark_table(turn: float, seed: int = 0):
    """A drawn back whose black field and white border are the dark table's colour: only its red
    oval (and the letters on it) shows, as on a dark table the back's own outline hardly does."""
    rng = np.random.default_rng(seed)
    card = draw_card("back", 160, 248, rng=rng)
    table = (30, 30, 30)
    card[cv2.cvtColor(card, cv2.COLOR_BGR2HSV)[..., 1] < 100] = table
    img = np.full((600, 800, 3), table, np.uint8)
    m = cv2.getRotationMatrix2D((80, 124), turn, 1.0)
    m[:, 2] += (400 - 80, 300 - 124)
    warped = cv2.warpAffine(card, m, (800, 600))
    inside = cv2.warpAffine(np.full((248, 160), 255, np.uint8), m, (800, 600)) > 0
    img[inside] = warped[inside]
    img = np.clip(img.astype(np.int16) + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    quad = cv2.transform(np.float32([[0, 0], [160, 0], [160, 248], [0, 248]])[None], m)[0]
    return img, quad


@pytest.mark.parametrize("turn", [0, 25, 130])
def test_the_detector_outlines_a_back_by_its_card_not_its_oval(turn, monkeypatch):
    img, truth = _back_on_a_dark_table(turn)
    assert max(quad_iou(truth, q) for q in find_quads(img)) > 0.78
    # without the oval's card, the best outline is the oval's own box
    monkeypatch.setattr(detect, "card_around_oval", lambda contour: None)
    assert max(quad_iou(truth, q) for q in find_quads(img)) < 0.72
