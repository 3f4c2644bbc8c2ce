"""The classifier's classes: every label of the card vocabulary, ``back``, and ``none``."""

from __future__ import annotations

import numpy as np

from companion.cards import ALL_LABELS, BACK, CLASSIC, DARK, LIGHT

__all__ = ["CLASSES", "NONE", "deck_labels", "DECKS", "DeckFilter"]

#: Not a card (table, phone, pawn, rules card, hand, a quad that misses the card).
NONE = "none"
CLASSES: tuple[str, ...] = tuple(ALL_LABELS) + (NONE,)
DECKS = ("auto", "classic", "flip")


def deck_labels(deck: str) -> frozenset[str]:
    """Labels a deck can show: ``classic``, ``flip`` (light and dark faces) or ``auto`` (all)."""
    if deck == "classic":
        return frozenset({c.name for c in CLASSIC.faces} | {BACK})
    if deck == "flip":
        return frozenset({c.name for c in LIGHT.faces} | {c.name for c in DARK.faces})
    if deck == "auto":
        return frozenset(ALL_LABELS)
    raise _unknown_deck(deck)


def _unknown_deck(deck: str) -> ValueError:
    return ValueError(f"unknown deck {deck!r}: expected one of {', '.join(DECKS)}")


class DeckFilter:
    """A model's probabilities (one row a reading, columns in ``classes`` order) narrowed to the
    labels a deck can show (``none`` always) and made to sum to 1 again.

    >>> f = DeckFilter(("red-7", "pink-7", NONE))
    >>> f.narrow(np.array([[0.2, 0.6, 0.2]]), "classic").round(2).tolist()
    [[0.5, 0.0, 0.5]]
    """

    def __init__(self, classes):
        self._masks = {d: np.array([c in deck_labels(d) or c == NONE for c in classes]) for d in DECKS}

    def check(self, deck: str) -> None:
        """A clear error for a deck that is not one of :data:`DECKS`."""
        if deck not in self._masks:
            raise _unknown_deck(deck)

    def narrow(self, p: np.ndarray, deck: str) -> np.ndarray:
        p = p * self._masks[deck]
        return p / np.maximum(p.sum(1, keepdims=True), 1e-12)
