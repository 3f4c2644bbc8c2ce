"""Decks: the classic 108-card deck (one or more combined) and the 112 two-faced UNO Flip cards.

>>> len(classic_deck()), len(classic_deck(decks=2))
(108, 216)
>>> deck = flip_deck()
>>> len(deck), deck[0].light.name, deck[0].dark.name
(112, 'wild-draw-two', 'orange-4')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .cards import CLASSIC, DARK, LIGHT, Card

__all__ = ["FlipCard", "classic_deck", "flip_deck", "copies", "dark_faces_of"]


@dataclass(frozen=True)
class FlipCard:
    """One physical UNO Flip card: a light face and a dark face."""

    light: Card
    dark: Card

    def face(self, side: str) -> Card:
        return self.light if side == "light" else self.dark


@cache
def classic_deck(decks: int = 1) -> tuple[Card, ...]:
    """The classic deck: per colour one 0, two each of 1-9, skip, reverse, draw-two; 4 wild, 4 wild-draw-four."""
    if decks < 1:
        raise ValueError("decks must be at least 1")
    one: list[Card] = []
    for card in CLASSIC.faces:
        if card.is_wild:
            one += [card] * 4
        elif card.face == "0":
            one.append(card)
        else:
            one += [card] * 2
    return tuple(one) * decks


@cache
def flip_deck() -> tuple[FlipCard, ...]:
    """The 112 Flip cards, paired as in one real deck (``companion/data/flip_pairs.tsv``)."""
    text = resources.files("companion").joinpath("data/flip_pairs.tsv").read_text(encoding="utf-8")
    cards = []
    for line in text.splitlines():
        if not line or line.startswith("#") or line.startswith("light\t"):
            continue
        light, dark = line.split("\t")
        cards.append(FlipCard(LIGHT.parse(light.strip()), DARK.parse(dark.strip())))
    return tuple(cards)


@cache
def copies(side: str, decks: int = 1) -> Counter[Card]:
    """How many copies of each face a full deck holds: ``side`` is classic, light or dark."""
    if side == "classic":
        return Counter(classic_deck(decks))
    return Counter(card.face(side) for card in flip_deck())


def dark_faces_of(light: Card) -> tuple[Card, ...]:
    """The dark faces a light face may hide (a face appears on up to four physical cards)."""
    return tuple(sorted({c.dark for c in flip_deck() if c.light == light}, key=lambda c: c.name))
