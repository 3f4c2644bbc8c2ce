"""Card outlines found by vision.detect.find_quads in drawn scenes that defeat single cues.

These drawn scenes are cleaner than photos (the detector finds them through more than one map);
the figures that moved the detector are the composite tables of real crops (docs/vision.md)."""

import cv2
import numpy as np
import pytest

from vision.detect import BORDER, CARD_RATIO, find_quads, quad_iou

W, H = 1280, 720


def _card_quad(cx, cy, w, angle):
    h = w * CARD_RATIO
    return cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)


def _draw_card(img, quad, angle, field, oval, oval_axes=(0.3, 0.62), symbol=None):
    """White card, a coloured field inset by the border, a tilted oval in the field (clipped to
    it: at ``oval_axes`` of 0.3 x 0.62 of the card it cuts the field in two, corner to corner),
    and optionally a symbol of the field's colour in the oval."""
    c = quad.mean(0)
    cv2.fillConvexPoly(img, quad.astype(np.int32), (245, 245, 245), cv2.LINE_AA)
    inner = (c + (quad - c) * (1 - 2 * BORDER)).astype(np.int32)
    face = np.zeros_like(img)
    cv2.fillConvexPoly(face, inner, field, cv2.LINE_AA)
    w, h = sorted((np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
    centre = (int(c[0]), int(c[1]))
    cv2.ellipse(face, centre, (int(oval_axes[0] * w), int(oval_axes[1] * h)), angle + 30, 0, 360,
                oval, -1, cv2.LINE_AA)
    if symbol is not None:
        cv2.ellipse(face, centre, (int(0.12 * w), int(0.25 * h)), angle + 30, 0, 360, symbol, -1,
                    cv2.LINE_AA)
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inner, 255)
    img[mask > 0] = face[mask > 0]


def _best_iou(quads, truth):
    return max((quad_iou(q, truth) for q in quads), default=0.0)


def _light_table(seed):
    """A light, uneven table: a gradient and fine grain (white borders barely stand out)."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(-10, 10, W)[None, :, None] + np.linspace(-6, 6, H)[:, None, None]
    grain = cv2.GaussianBlur(rng.normal(0, 6, (H, W, 1)), (0, 0), 1.5)[..., None]
    return np.clip(228 + ramp + grain, 0, 255).astype(np.uint8).repeat(3, axis=2)


def _row(img, centre_field, angle, oval, symbol, oval_axes=(0.3, 0.62)):
    """Three touching cards in a row (their white borders merge into one light blob); the
    middle one has ``centre_field``. Returns the middle card's outline."""
    w = 150
    d = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))]) * w
    quads = [_card_quad(640 + k * d[0], 360 + k * d[1], w, angle) for k in (-1, 0, 1)]
    for k, (q, f) in enumerate(zip(quads, [(40, 40, 190), centre_field, (30, 180, 220)])):
        _draw_card(img, q, angle, f, oval if k == 1 else (245, 245, 245),
                   oval_axes if k == 1 else (0.3, 0.62), symbol if k == 1 else f)
    return quads[1]


@pytest.mark.parametrize("angle", [0, 20, 55])
def test_field_cut_in_three_by_the_oval_between_touching_cards(angle):
    """The green field is cut into two halves by the white oval, with the green symbol a third
    piece between them; the border is lost in the light table and the neighbours' borders."""
    img = _light_table(angle)
    truth = _row(img, (60, 150, 20), angle, oval=(245, 245, 245), symbol=(60, 150, 20))
    assert _best_iou(find_quads(img), truth) > 0.85


@pytest.mark.parametrize("angle", [0, 12, 40])
def test_black_field_between_touching_cards_on_a_light_table(angle):
    """A wild: a black field inside a white border, a coloured oval in it."""
    img = _light_table(angle + 1)
    truth = _row(img, (25, 25, 25), angle, oval=(40, 40, 200), symbol=None, oval_axes=(0.25, 0.4))
    assert _best_iou(find_quads(img), truth) > 0.85


def test_a_plain_table_has_no_card_outline():
    img = np.full((H, W, 3), 236, np.uint8)
    assert find_quads(img) == []
