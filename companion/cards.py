"""Card faces: the one card vocabulary used everywhere (engine, vision labels, JSON, web).

A face is written ``COLOUR-FACE`` (``red-7``, ``teal-skip-everyone``) or a wild name alone
(``wild``, ``wild-draw-four``). A declared colour travels beside the card, never inside its name.

Three face sets exist:

* :data:`CLASSIC` -- the 108-card classic deck (0-9, skip, reverse, draw-two, wild, wild-draw-four)
* :data:`LIGHT` -- the light side of UNO Flip (1-9, skip, reverse, draw-one, flip, wild, wild-draw-two)
* :data:`DARK` -- the dark side of UNO Flip (1-9, skip-everyone, reverse, draw-five, flip, wild,
  wild-draw-color)

>>> card = parse_card("red-7")
>>> card.color, card.face, str(card)
('red', '7', 'red-7')
>>> parse_card("wild").is_wild
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

__all__ = [
    "Card", "FaceSet", "UnknownCard", "parse_card", "CLASSIC", "LIGHT", "DARK", "FACE_SETS",
    "BACK", "LIGHT_COLORS", "DARK_COLORS", "ALL_LABELS",
]

LIGHT_COLORS = ("red", "yellow", "green", "blue")
DARK_COLORS = ("pink", "teal", "orange", "purple")
NUMBERS = tuple(str(n) for n in range(10))

#: The label vision gives a face-down card. It is not a playable face.
BACK = "back"


class UnknownCard(ValueError):
    """A card name that is not in the vocabulary (or not in the face set asked for)."""


@dataclass(frozen=True, order=True)
class Card:
    """One printed face. ``color`` is ``None`` for wilds.

    Cards are small immutable values: compare, hash and sort them freely.
    """

    color: str | None
    face: str

    @property
    def name(self) -> str:
        return self.face if self.color is None else f"{self.color}-{self.face}"

    def __str__(self) -> str:
        return self.name

    @property
    def is_wild(self) -> bool:
        return self.color is None

    @property
    def is_number(self) -> bool:
        return self.face in NUMBERS

    @property
    def number(self) -> int | None:
        return int(self.face) if self.is_number else None


@dataclass(frozen=True)
class FaceSet:
    """The faces of one card design (classic, Flip light or Flip dark) and their points."""

    name: str
    colors: tuple[str, ...]
    numbers: tuple[str, ...]
    actions: tuple[str, ...]
    wilds: tuple[str, ...]
    points_table: tuple[tuple[str, int], ...]

    @cached_property
    def faces(self) -> tuple[Card, ...]:
        """Every distinct face, coloured faces first then the wilds."""
        coloured = tuple(Card(c, f) for c in self.colors for f in self.numbers + self.actions)
        return coloured + tuple(Card(None, w) for w in self.wilds)

    @cached_property
    def _by_name(self) -> dict[str, Card]:
        return {card.name: card for card in self.faces}

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and card.name in self._by_name

    def parse(self, name: str) -> Card:
        """The face called ``name`` in this set, or :class:`UnknownCard` saying what was expected."""
        try:
            return self._by_name[name]
        except (KeyError, TypeError):
            raise UnknownCard(
                f"unknown {self.name} card {name!r}: expected COLOUR-FACE with a colour of "
                f"{'/'.join(self.colors)} and a face of {'/'.join(self.numbers + self.actions)}, "
                f"or one of {'/'.join(self.wilds)}"
            ) from None

    def points(self, card: Card) -> int:
        """Points the face scores in a hand at the end of a round."""
        if card not in self:
            raise UnknownCard(f"{card} is not a {self.name} card")
        if card.is_number:
            return int(card.face)
        return dict(self.points_table)[card.face]


CLASSIC = FaceSet(
    name="classic",
    colors=LIGHT_COLORS,
    numbers=NUMBERS,
    actions=("skip", "reverse", "draw-two"),
    wilds=("wild", "wild-draw-four"),
    points_table=(("skip", 20), ("reverse", 20), ("draw-two", 20), ("wild", 50),
                  ("wild-draw-four", 50)),
)
LIGHT = FaceSet(
    name="light",
    colors=LIGHT_COLORS,
    numbers=NUMBERS[1:],
    actions=("skip", "reverse", "draw-one", "flip"),
    wilds=("wild", "wild-draw-two"),
    points_table=(("draw-one", 10), ("reverse", 20), ("skip", 20), ("flip", 20), ("wild", 40),
                  ("wild-draw-two", 50)),
)
DARK = FaceSet(
    name="dark",
    colors=DARK_COLORS,
    numbers=NUMBERS[1:],
    actions=("skip-everyone", "reverse", "draw-five", "flip"),
    wilds=("wild", "wild-draw-color"),
    points_table=(("draw-five", 20), ("reverse", 20), ("skip-everyone", 30), ("flip", 20),
                  ("wild", 40), ("wild-draw-color", 60)),
)
FACE_SETS = {fs.name: fs for fs in (CLASSIC, LIGHT, DARK)}

#: Every label the vocabulary knows, ``back`` included (the vision classes draw from this).
ALL_LABELS: tuple[str, ...] = tuple(
    sorted({c.name for fs in FACE_SETS.values() for c in fs.faces} | {BACK})
)


def parse_card(name: str, face_set: FaceSet | None = None) -> Card:
    """Parse a card name; with ``face_set``, only faces of that set are accepted.

    >>> parse_card("teal-skip-everyone")
    Card(color='teal', face='skip-everyone')
    >>> parse_card("red-10")
    Traceback (most recent call last):
    ...
    companion.cards.UnknownCard: unknown card 'red-10': ...
    """
    if face_set is not None:
        return face_set.parse(name)
    for fs in FACE_SETS.values():
        try:
            return fs.parse(name)
        except UnknownCard:
            continue
    raise UnknownCard(
        f"unknown card {name!r}: expected COLOUR-FACE (colours "
        f"{'/'.join(LIGHT_COLORS + DARK_COLORS)}; faces 0-9, skip, reverse, draw-two, draw-one, flip, "
        "draw-five, skip-everyone) or wild, wild-draw-four, wild-draw-two, wild-draw-color"
    )
