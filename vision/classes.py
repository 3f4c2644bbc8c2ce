"""The classifier's classes: every label of the card vocabulary, ``back``, and ``none``."""

from __future__ import annotations

from companion.cards import ALL_LABELS, BACK, CLASSIC, DARK, LIGHT

__all__ = ["CLASSES", "NONE", "deck_labels", "DECKS"]

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
    raise ValueError(f"unknown deck {deck!r}: expected one of {', '.join(DECKS)}")
