"""Hands read by a camera (or a phone's photo), waiting for their player's word.

At a round's end (Flip, classic) the players who did not go out lay their hands open; on the
scoreboard any player may. Something that can see cards (the table's camera reading each seat's
hand zone, or a photo a phone sends) hands what it read to :meth:`HandReadings.propose`; the
reading is kept per seat, scored with the rules' points of the side being scored (the engines'
own :class:`~companion.cards.FaceSet` points) and told on the bus as ``hand-read``. It counts for
nothing yet: the seat's phone shows it card by card, and only when the player confirms it (or
corrects it with the card picker) does the phone send the ``show`` action, which the rule engine
scores. A reading is dropped once that seat's hand is entered, at the next round and when the
match changes.

A hand larger than its zone holds (a Flip loser's 30 cards) is read **in parts**: the player lays
out what the zone holds, and once it reads right :meth:`HandReadings.keep` keeps those cards; the
player takes them away, lays the next ones and asks for a read (:meth:`HandReadings.request_scan`)
or sends a photo; each reading after a keep is added after the kept cards (``kept`` counts them).
Between a keep and that request the camera proposes nothing for the seat: the cards just kept
still lie in the zone, and reading them again would count them twice.
:meth:`HandReadings.drop_kept` starts the hand again.

The core never sees a picture: whoever reads installs :attr:`HandReadings.photo_reader` (a
photo's bytes and a face set in, the cards read out) and :attr:`HandReadings.on_scan` (asked to
read the table's hand zones again); :mod:`app.runner` does, with :mod:`vision.hands`.

>>> from companion.host import Host
>>> host = Host(mode="scoreboard")
>>> _ = host.start_match({"setup": {"game": "scoreboard", "seats": ["ann", "ben"]}})
>>> read = host.hands.propose("ben", [{"label": "red-7"}, {"label": "wild", "confidence": 0.8}])
>>> read.total, [c.points for c in read.cards]
(57, [7, 50])
>>> host.table.act({"do": "show", "by": "ben", "cards": ["red-7", "wild"]}).ok
True
>>> _ = host.bus.join(); host.hands.get("ben") is None
True
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .cards import FACE_SETS, UnknownCard
from .engine.look import Awaiting
from .engine.scoreboard import ScoreGame

if TYPE_CHECKING:   # (the host holds the hand readings)
    from .bus import BusMessage
    from .host import Host
    from .referee.table import Table

__all__ = ["HandReadings", "HandRead", "ReadCard", "NoHandReader", "HandReadError",
           "SOURCES", "face_set_of_table"]

#: Where a reading came from.
SOURCES = ("camera", "photo")
#: The most cards one hand reading may hold (a hand of the whole deck is a misread).
MOST_CARDS = 60


class HandReadError(ValueError):
    """A reading that cannot be taken (no match, a seat not at the table, nothing to score)."""


class NoHandReader(RuntimeError):
    """Nothing here can read a photo (the companion runs without its vision part)."""


@dataclass(frozen=True)
class ReadCard:
    """One card of a hand as read: its face, its points, ``whole`` or ``partial``, how sure."""

    label: str
    points: int
    visible: str = "whole"
    confidence: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "points": self.points, "visible": self.visible,
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class HandRead:
    """What was read of ``seat``'s hand: the cards (scored on ``face_set``), their ``total``,
    where it came from (``camera`` or ``photo``), and how many cards the hand holds when the game
    knows (``expected``, Flip and classic; None on the scoreboard). ``left_out`` counts what was
    seen but is no face of the side scored (a back, a card of the other side)."""

    seat: str
    cards: tuple[ReadCard, ...]
    face_set: str
    source: str
    expected: int | None = None
    left_out: int = 0
    #: The first ``kept`` cards are earlier parts of a hand read in parts (:meth:`HandReadings.keep`).
    kept: int = 0

    @property
    def total(self) -> int:
        return sum(c.points for c in self.cards)

    @property
    def labels(self) -> list[str]:
        return [c.label for c in self.cards]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "cards": [c.to_json() for c in self.cards],
                "total": self.total, "face_set": self.face_set, "source": self.source,
                "expected": self.expected, "left_out": self.left_out, "kept": self.kept}


def face_set_of_table(table: Table) -> str | None:
    """The face set a hand is scored on now: the Flip side showing, classic, or the scoreboard's
    ``deck``; None for a game without hands (grid, timer)."""
    name = table.game.name
    if name == "flip":
        return table.state_json().get("side") or "light"
    if name == "classic":
        return "classic"
    if isinstance(table.game, ScoreGame):   # (the scoreboard)
        return table.game.options.deck
    return None


class HandReadings:
    """The hand readings of the current match, per seat (thread-safe; see the module docs)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._lock = threading.Lock()
        self._reads: dict[str, HandRead] = {}   # a hand read in parts: its first ``kept`` cards
        #: per seat, the bus's last sequence number when its reading was made: a message that
        #: ends a round drops only the readings made before it was published (it is delivered
        #: later, on the bus's thread, and must not drop a reading of the round it began)
        self._made_after: dict[str, int] = {}
        #: seats whose part was just kept: the camera waits to be asked for the next part
        self._between: set[str] = set()
        #: ``(photo bytes, face set) -> [{"label", "confidence", "visible"}, ...]``; raises
        #: ValueError for what is not a photo. None: photos cannot be read here.
        self.photo_reader: Callable[[bytes, str], list[dict[str, Any]]] | None = None
        #: ``(seats) -> None``: read these seats' hand zones on the next camera frame.
        self.on_scan: Callable[[tuple[str, ...]], None] | None = None
        host.bus.subscribe(self._on_message, {"hand-shown", "round", "round-over",
                                              "match-started", "match-ended", "undone"})

    # --- what is awaited --------------------------------------------------------------------

    def awaited(self) -> tuple[str, ...]:
        """The seats whose hands the table waits for: Flip and classic at a round's end; on the
        scoreboard every seat that has not entered its hand this round."""
        table = self.host.table
        if table is None:
            return ()
        if table.game.name == "scoreboard":
            entered = table.state_json().get("entered") or {}
            return tuple(s for s in table.seats if s not in entered)
        _look, waiting = table.view()
        return tuple(waiting.seats) if waiting.what is Awaiting.SHOW else ()

    def to_scan(self) -> tuple[str, ...]:
        """The awaited seats the camera may read now: not those whose part was just kept (their
        cards still lie in the zone) until the next part is asked for."""
        awaited = self.awaited()
        with self._lock:
            between = set(self._between)
        return tuple(s for s in awaited if s not in between)

    def face_set(self) -> str | None:
        table = self.host.table
        return None if table is None else face_set_of_table(table)

    # --- readings in ------------------------------------------------------------------------

    def propose(self, seat: str, cards: Iterable[dict[str, Any]], source: str = "camera") -> HandRead:
        """Keep what was read of ``seat``'s hand (``cards``: ``{"label", "confidence",
        "visible"}`` each) and say it (``hand-read``). Cards that are no face of the side scored
        are counted in ``left_out``, not scored. Raises :class:`HandReadError` (and keeps
        nothing) when there is no match with hands, the seat is not in it, the source is
        unknown, or the camera reads a seat whose part was just kept (until
        :meth:`request_scan` asks for the next part). After a :meth:`keep` the cards read are
        added after the kept ones."""
        table = self.host.table
        if table is None:
            raise HandReadError("no match is being played")
        face_set = face_set_of_table(table)
        if face_set is None:
            raise HandReadError(f"the {table.game.name} game has no hands to score")
        if seat not in table.seats:
            raise HandReadError(f"no seat {seat!r} in this match")
        if source not in SOURCES:
            raise HandReadError(f"unknown source {source!r}: expected {' or '.join(SOURCES)}")
        fs = FACE_SETS[face_set]
        read, left_out = [], 0
        for c in list(cards)[:MOST_CARDS]:   # a part's own cap: each part is one zone's reading
            try:
                card = fs.parse(str(c.get("label")))
            except UnknownCard:
                left_out += 1
                continue
            visible = "partial" if c.get("visible") == "partial" else "whole"
            read.append(ReadCard(card.name, fs.points(card), visible,
                                 float(c.get("confidence", 1.0))))
        expected = None
        if table.game.name in ("flip", "classic"):
            hands = table.state_json().get("hands") or {}
            expected = hands.get(seat) if isinstance(hands, dict) else None
        with self._lock:
            last = self._reads.get(seat)
            kept = last.cards[:last.kept] if last is not None else ()
            if source == "camera" and seat in self._between:
                raise HandReadError(f"{seat}'s part was just kept: the camera waits to be asked "
                                    "for the next part")
            self._between.discard(seat)
            reading = HandRead(seat, kept + tuple(read), face_set, source, expected, left_out,
                               kept=len(kept))
            self._reads[seat] = reading
            self._made_after[seat] = self.host.bus.last_seq
        self._say(reading)
        return reading

    def keep(self, seat: str) -> HandRead:
        """Keep ``seat``'s reading as a part of a hand read in parts: the next reading is added
        after it, and the camera waits to be asked for it (:meth:`request_scan`). Raises
        :class:`HandReadError` when the seat has no reading, or nothing new since the last keep."""
        with self._lock:
            reading = self._reads.get(seat)
            if reading is None or len(reading.cards) == reading.kept:
                raise HandReadError(f"nothing new read of {seat}'s hand to keep")
            self._between.add(seat)
            reading = HandRead(reading.seat, reading.cards, reading.face_set, reading.source,
                               reading.expected, reading.left_out, kept=len(reading.cards))
            self._reads[seat] = reading
        self._say(reading)
        return reading

    def drop_kept(self, seat: str) -> None:
        """Start ``seat``'s hand again: its kept parts and its reading are dropped (told as
        ``hand-dropped``)."""
        with self._lock:
            self._between.discard(seat)
            had = self._reads.pop(seat, None)
            self._made_after.pop(seat, None)
        if had is not None:
            self.host.bus.publish("hand-dropped", seat=seat)

    def _say(self, reading: HandRead) -> None:
        self.host.bus.publish("hand-read", **reading.to_json(), points=reading.total)  # after the lock

    def read_photo(self, seat: str, photo: bytes) -> HandRead:
        """Read a phone's photo of ``seat``'s hand and propose it. :class:`NoHandReader` when
        no photo reader is installed; :class:`HandReadError` when there is nothing to score or
        the bytes are no photo."""
        face_set = self.face_set()
        if face_set is None:
            raise HandReadError("no match with hands to score is being played")
        reader = self.photo_reader
        if reader is None:
            raise NoHandReader("this companion cannot read photos (its vision part is not running)")
        try:
            cards = reader(photo, face_set)
        except ValueError as exc:
            raise HandReadError(str(exc)) from None
        return self.propose(seat, cards, source="photo")

    def request_scan(self, seats: Iterable[str] | None = None) -> bool:
        """Ask the camera to read these seats' hand zones again (all awaited seats by default).
        False when no camera reads hands here."""
        scan = self.on_scan
        if scan is None:
            return False
        seats = tuple(seats) if seats is not None else self.awaited()
        with self._lock:
            self._between.difference_update(seats)   # asked: the next part lies there now
        scan(seats)                                   # after the lock
        return True

    # --- readings out -----------------------------------------------------------------------

    def get(self, seat: str) -> HandRead | None:
        with self._lock:
            return self._reads.get(seat)

    def to_json(self) -> dict[str, dict[str, Any]]:
        """``{seat: reading}`` for ``GET /api/state``'s ``hand_reads``."""
        with self._lock:
            reads = list(self._reads.values())
        return {r.seat: r.to_json() for r in reads}

    def _on_message(self, message: BusMessage) -> None:
        # a seat shown, a new round, another match, an undo: what was read before belongs to
        # what was; a reading made after the message was published is of what is now
        seats = {message.data.get("seat", "")} if message.type == "hand-shown" else None
        with self._lock:
            for seat in [s for s in self._reads if seats is None or s in seats]:
                if self._made_after.get(seat, 0) < message.seq:
                    del self._reads[seat]
                    self._made_after.pop(seat, None)
            self._between.intersection_update(self._reads)   # nothing kept of a seat unread
