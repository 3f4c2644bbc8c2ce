"""Composed tables of drawn classic cards (no photo data needed): one hand of ``style``."""

from __future__ import annotations

import numpy as np

from companion.cards import CLASSIC
from vision.card_art import draw_card
from vision.overlap import compose_hands


def drawn_hand(style: str, seed: int, n: int = 5, kind: str = "wood", **kw):
    """``(image, truth)`` of a 960x640 table holding one hand of ``n`` different drawn number and
    action cards laid out as ``style`` (:data:`vision.overlap.STYLES`), cards 100 pixels wide, no
    thumb and no separated card unless ``kw`` says otherwise."""
    rng = np.random.default_rng(seed)
    faces = [c.name for c in CLASSIC.faces if not c.name.startswith("wild")]
    pick = [faces[int(i)] for i in rng.choice(len(faces), n, replace=False)]
    cards = [(lab, draw_card(lab, 160, 248, face_set=CLASSIC, rng=rng)) for lab in pick]
    kw = {"hands": 1, "singles": 0, "thumbs": 0.0, "card_width": 100, **kw}
    return compose_hands(cards, 960, 640, rng=rng, kind=kind, styles=(style,), **kw)
