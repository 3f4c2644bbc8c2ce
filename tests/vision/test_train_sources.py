"""Training sources that need no shared data: real non-card outlines cut from a photo."""

import cv2
import numpy as np

from vision.card_art import draw_card
from vision.data import Photo
from vision.synth import paste_card, table
from vision.train.sources import _colour_share, background_crops


def _photo(tmp_path, img, label="red-7"):
    path = tmp_path / "000.jpg"
    cv2.imwrite(str(path), img)
    return Photo(path=path, rel=f"classic_single/{label}/000.jpg", label=label, deck="classic", note="")


def _scene(rng):
    """A red-7 held up over a desk: two grey keys, a small blue icon, and a blue card as big as
    the red one (another card in the photo, which must not be taught as a non-card)."""
    img = table("white", 1000, 700, rng)

    def quad(x, y, w):
        return np.array([[x, y], [x + w, y], [x + w, y + 1.55 * w], [x, y + 1.55 * w]], np.float32)

    paste_card(img, draw_card("red-7", 160, 248, rng=rng), quad(120, 150, 220))
    paste_card(img, draw_card("blue-2", 160, 248, rng=rng), quad(420, 150, 220))
    for x in (720, 830):  # keys
        cv2.rectangle(img, (x, 500), (x + 70, 610), (60, 60, 60), -1)
        cv2.putText(img, "F5", (x + 12, 565), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (230, 230, 230), 2)
    cv2.rectangle(img, (760, 200), (830, 310), (170, 50, 150), -1)  # a purple icon
    return img


def test_background_crops_lie_outside_the_cards(tmp_path):
    img = _scene(np.random.default_rng(4))
    crops = background_crops([_photo(tmp_path, img)], per_photo=10, seed=0)
    assert crops, "the keys and the icon are outlines outside the card"
    for c in crops:
        assert c.shape == (192, 128, 3)
        assert _colour_share(c, "red") < 0.1  # nothing of the photo's red card
        assert _colour_share(c, "blue") < 0.5  # nor the other card, as big as it


def test_background_crops_skip_rectified_crops_and_unreadable_photos(tmp_path):
    img = _scene(np.random.default_rng(5))
    cv2.imwrite(str(tmp_path / "a.jpg"), img)
    crop = Photo(path=tmp_path / "a.jpg", rel="classic_crops/red-7.jpg", label="red-7",
                 deck="classic", note="")
    missing = Photo(path=tmp_path / "none.jpg", rel="classic_single/red-7/009.jpg", label="red-7",
                    deck="classic", note="")
    assert background_crops([crop, missing]) == []
