"""Dealing: random grids and opening cards, for the demo table, the set-up page and tests.

The engine never shuffles (it is pure); whoever needs a random deal asks here with its own
random generator, so every deal is reproducible from a seed.
"""

from __future__ import annotations

import random

from .decks import classic_deck, flip_deck

__all__ = ["deal_grid", "opening_card"]


def deal_grid(rng: random.Random, decks: int = 1) -> list[list[str]]:
    """25 cards of a shuffled classic deck, as 5 rows of 5 card names."""
    deck = list(classic_deck(decks))
    rng.shuffle(deck)
    return [[deck[r * 5 + c].name for c in range(5)] for r in range(5)]


def opening_card(rng: random.Random, game: str) -> str:
    """The top card of a shuffled deck, turned face-up as the first discard (light side in Flip)."""
    if game == "flip":
        return rng.choice(flip_deck()).light.name
    return rng.choice(classic_deck()).name
