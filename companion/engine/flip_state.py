"""UNO Flip and classic Uno: options (docs/rules.md, UNO Flip and classic flags), the state value
and the deck's physics.

Everything here is an immutable value. The state keeps seats as indexes (``0`` is the first
seat listed at set-up, seats go clockwise); :meth:`FlipGame.to_json` writes names.

Cards are tracked physically where the table lets us see them: hands and the draw pile are
counts, the discard pile is a tuple of *entries*, one per physical card, each entry the set of
physical cards it may be. A classic card is its face; an UNO Flip card is a
:class:`~companion.decks.FlipCard` (light face + dark face). After a flip the cards under the
top of the discard pile show faces nobody reads, so an entry may stand for several physical
cards; the top one is read again by ``reveal``. At every moment::

    draw_pile + sum(hands) + len(discard) == deck size   (112 Flip, 108 classic)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import cast

from ..cards import CLASSIC, DARK, LIGHT, Card, FaceSet
from ..decks import FlipCard, classic_deck, flip_deck

__all__ = [
    "FlipOptions", "ClassicOptions", "Pending", "FlipState", "Physical", "Entry",
    "face_set_of", "entry_for_face", "face_of_entry", "faces_of_entry", "narrow_entry",
    "HAND_SIZE", "CW", "CCW",
]

HAND_SIZE = 7
CW, CCW = 1, -1

#: One physical card: a classic :class:`Card`, or an UNO Flip :class:`FlipCard`.
Physical = Card | FlipCard
#: A card lying on the discard pile: the physical cards it may be (one, once read).
Entry = frozenset[Physical]


def _choices(*values: str) -> dict[str, tuple[str, ...]]:
    return {"choices": values}


@dataclass(frozen=True)
class ClassicOptions:
    """The docs/rules.md, UNO Flip and classic flags shared by classic Uno and UNO Flip.

    * ``turn_seconds`` (30; 0 = off): stored only, the referee owns time; with 0 a ``timeout``
      is refused (``timer-off``).
    * ``timeout_action`` (``"pass"``): ``pass`` = the player draws one and the turn passes (after
      a voluntary draw: only passes; a pending challenge is accepted); ``warn`` = only sounds.
    * ``auto_uno_penalty`` (false): when the UNO catch window closes with nobody having caught
      a player who forgot to call, the engine gives the 2 cards itself.
    * ``scoring`` (``"winner-takes"``): or ``"sheet"`` (winner plus, every other player minus
      their own hand; the highest total wins once anyone reaches ``target``).
    * ``target`` (500): the match ends when someone reaches it.
    * ``rounds`` (0 = no limit): the agreed number of rounds; after it the highest total wins.
      Not a docs/rules.md flag; docs/rules.md mentions "the agreed rounds" of the sheet method.
    """

    turn_seconds: int = 30
    timeout_action: str = field(default="pass", metadata=_choices("pass", "warn"))
    auto_uno_penalty: bool = False
    scoring: str = field(default="winner-takes", metadata=_choices("winner-takes", "sheet"))
    target: int = field(default=500, metadata={"min": 1})
    rounds: int = 0


@dataclass(frozen=True)
class FlipOptions(ClassicOptions):
    """Classic flags plus ``opening_flip`` (``"redraw"``): an opening ``flip`` goes back into
    the draw pile and the next card is turned (``redraw``), or it flips the table at once
    (``apply``: the dark face of the opening card is revealed, has no effect, and the first
    player starts)."""

    opening_flip: str = field(default="redraw", metadata=_choices("redraw", "apply"))
    #: ``predict`` (default): the published pairing only predicts the face a flip exposes; a
    #: revealed face outside it is accepted with a ``face-not-predicted`` event (a deck of
    #: another print may pair its faces differently, and that must never stall a game).
    #: ``enforce``: such a reveal is refused (``not-other-face``). Not a docs/rules.md flag.
    pairing: str = field(default="predict", metadata=_choices("predict", "enforce"))


@dataclass(frozen=True)
class Pending:
    """What the table waits for before play goes on; ``None`` in the state means a normal turn.

    ``what`` is one of:

    * ``declare`` -- ``seat`` declares the colour of a wild nobody played (``reason``
      ``opening``: the opening wild, then that seat plays; ``flip``: a wild revealed by a flip).
    * ``reveal`` -- a face newly turned up: ``reason`` ``flip`` (``seat`` = who played the flip,
      ``faces`` = what the card can show), ``opening`` (the opening card had to be redrawn; any
      seat sends it) or ``opening-flip`` (``opening_flip = apply``; any seat).
    * ``challenge`` -- ``seat`` (hit by ``card`` from ``accused``) answers accept/challenge.
    * ``draw`` -- ``seat`` says how many cards they drew until ``color`` came
      (``wild-draw-color``); the engine adds ``extra`` penalty cards.
    * ``play-or-pass`` -- ``seat`` drew voluntarily: play the drawn card or pass.
    * ``show`` -- the round is over; ``seats`` still have to lay their hands open.
    * ``round`` -- the round is scored; a ``round`` line starts the next one (``seat`` deals).
    """

    what: str
    seat: int | None
    reason: str = ""
    card: Card | None = None
    accused: int | None = None
    prev_top: Card | None = None
    prev_color: str | None = None
    color: str | None = None
    extra: int = 0
    seats: tuple[int, ...] = ()
    faces: tuple[Card, ...] = ()


@dataclass(frozen=True)
class FlipState:
    """One moment of a UNO Flip or classic round (and the match around it)."""

    seats: tuple[str, ...]
    dealer: int
    turn: int
    direction: int
    side: str | None  # "light"/"dark" for Flip, None for classic
    top: Card | None  # the face showing on the discard pile, None while it is unread
    color: str | None  # the active colour (a wild's declared colour)
    hands: tuple[int, ...]
    draw_pile: int
    discard: tuple[Entry, ...]  # bottom first
    pending: Pending | None = None
    called: frozenset[int] = frozenset()  # seats whose UNO call protects them
    window: int | None = None  # the seat that may be caught for not calling UNO
    over: bool = False  # the round is over
    winners: tuple[int, ...] = ()
    shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    scores: tuple[int, ...] = ()
    champions: tuple[int, ...] = ()
    round_no: int = 1

    @property
    def match_over(self) -> bool:
        return bool(self.champions)

    def seat_index(self, name: str) -> int | None:
        try:
            return self.seats.index(name)
        except ValueError:
            return None


# --- physics of the deck -----------------------------------------------------------------------

def face_set_of(side: str | None) -> FaceSet:
    """The faces in play: classic when ``side`` is None, else the Flip side showing."""
    return CLASSIC if side is None else (LIGHT if side == "light" else DARK)


def _face(card: Physical, side: str | None) -> Card:
    # (side is None in a classic game, whose cards are classic ones; a Flip card has two faces)
    return cast(Card, card) if side is None else cast(FlipCard, card).face(side)


@cache
def _physical_by_face(side: str | None) -> dict[Card, Entry]:
    deck: tuple[Physical, ...] = classic_deck() if side is None else flip_deck()
    out: dict[Card, set[Physical]] = {}
    for card in deck:
        out.setdefault(_face(card, side), set()).add(card)
    return {face: frozenset(cards) for face, cards in out.items()}


def entry_for_face(face: Card, side: str | None) -> Entry:
    """The physical cards that show ``face`` on ``side``."""
    return _physical_by_face(side).get(face, frozenset())


def faces_of_entry(entry: Entry, side: str | None) -> tuple[Card, ...]:
    """The faces a discard entry may show on ``side``, sorted."""
    return tuple(sorted({_face(c, side) for c in entry}, key=lambda c: c.name))


def face_of_entry(entry: Entry, side: str | None) -> Card | None:
    """The face the entry shows on ``side`` when it is certain, else ``None``."""
    faces = faces_of_entry(entry, side)
    return faces[0] if len(faces) == 1 else None


def narrow_entry(entry: Entry, face: Card, side: str | None) -> Entry:
    """Keep the physical cards of ``entry`` that show ``face`` on ``side``."""
    return frozenset(c for c in entry if _face(c, side) == face)
