"""Classic cards drawn in many print styles (vision.train.prints) and the close-up samples the
card model is trained on (vision.train.augment)."""

import numpy as np
import pytest

from companion.cards import CLASSIC
from vision.train.augment import card_sample, covered_sample, negative_sample
from vision.train.prints import CENTRES, draw_print, print_cards, random_style


def _style(centre, seed=1):
    rng = np.random.default_rng(seed)
    while True:
        s = random_style(rng)
        if s.centre == centre:
            return s


def test_every_classic_face_is_drawn_in_each_centre_design():
    rng = np.random.default_rng(2)
    for centre in CENTRES:
        style = _style(centre)
        for card in CLASSIC.faces:
            img = draw_print(card.name, style, rng)
            assert img.shape == (192, 128, 3) and img.dtype == np.uint8
            assert img.std() > 20, (centre, card.name)  # not a blank card


def test_the_round_centre_is_round_and_white_and_the_oval_is_tilted():
    rng = np.random.default_rng(3)
    round_ = draw_print("red-1", _style("round-sunburst"), rng).astype(int)
    oval = draw_print("red-1", _style("tilted-oval"), rng).astype(int)

    def white(img, y, x):
        return img[y, x].min() > 170

    # beside the centre, level with it: white on both designs; a third of the height above the
    # centre: inside the tall tilted oval, outside the round centre
    h, w = 192, 128
    assert white(round_, h // 2, w // 2 - 30) and white(oval, h // 2, w // 2 - 30)
    assert white(oval, h // 2 - 52, w // 2 + 14) and not white(round_, h // 2 - 52, w // 2 + 14)


def test_the_faces_of_one_deck_share_a_print_and_decks_differ():
    cards = print_cards(2, seed=4)
    assert len(cards) == 2 * len(CLASSIC.faces)
    assert {c.kind for c in cards} == {"print"}
    assert [c.label for c in cards[:len(CLASSIC.faces)]] == [f.name for f in CLASSIC.faces]
    assert np.abs(cards[0].image.astype(int) - cards[len(CLASSIC.faces)].image.astype(int)).mean() > 5


def test_a_close_up_sample_keeps_the_card_and_a_plain_one_draws_as_before():
    card = print_cards(1, seed=5)[7].image
    plain = [card_sample(np.random.default_rng(k), card, [], None) for k in range(3)]
    again = [card_sample(np.random.default_rng(k), card, [], None, close_up=0.0) for k in range(3)]
    assert all((a == b).all() for a, b in zip(plain, again))
    close = [card_sample(np.random.default_rng(k), card, [], None, close_up=1.0) for k in range(3)]
    assert all(c.shape == plain[0].shape for c in close)
    assert any((c != p).any() for c, p in zip(close, plain))


def test_a_card_with_nothing_readable_showing_is_a_negative():
    cards = [c.image for c in print_cards(1, seed=6)]
    img = covered_sample(np.random.default_rng(1), [], cards)
    assert img.shape == (96, 64, 3)
    # without the share the negatives draw as before
    a = negative_sample(np.random.default_rng(9), [], cards)
    b = negative_sample(np.random.default_rng(9), [], cards, covered=0.0)
    assert (a == b).all()


@pytest.mark.parametrize("name", ["sunburst", "Newer"])
def test_training_refuses_a_print_it_does_not_know(name, capsys, tmp_path, monkeypatch):
    from vision.train.__main__ import main as train_main

    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "labels.csv").write_text("path,label,deck,note\n")
    monkeypatch.setenv("UNO_DATA", str(tmp_path))
    assert train_main(["--data", str(tmp_path), "--leave-out-print", name]) == 2
    err = capsys.readouterr().err
    assert f"no print named {name}" in err and "round-centre" in err
