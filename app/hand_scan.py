"""The camera and the phones' photos read hands for the scores (composition of vision and core).

:class:`HandScanner` runs on the camera thread (:class:`app.runner.CameraWorker` hands it every
frame): while the table waits for hands to be laid open (a Flip or classic round's end), it reads
the hand zone of each awaited seat (:func:`vision.hands.read_hands`; the seats' sides from
the table's :class:`companion.seating.Seating`, as the organiser set it) when the camera sees a quiet table, every
:attr:`HandScanner.every_s` seconds and at once when a phone asks (``POST /api/hand-read``), and
proposes each seat's cards to :attr:`companion.host.Host.hands`, where the player confirms them.
A seat's reading is proposed again only when what is read there changed. A seat reading its hand
in parts is left alone from the keeping of a part until its phone asks for the next one
(:meth:`companion.hand_reading.HandReadings.to_scan`).

:func:`photo_reader` is what reads a phone's photo of a hand (``POST /api/hand-photo``).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

__all__ = ["HandScanner", "photo_reader", "hand_card_reader"]

_reader_lock = threading.Lock()
_reader = None


def hand_card_reader():
    """The card reader for hands (one per process: it loads its models once), with its second
    pass for partly covered cards on, reading the corner indices with the hands' index model
    (:data:`vision.partial.HANDS_INDEX_MODEL_PATH`: taught the indices a tight fan cuts)."""
    global _reader
    with _reader_lock:
        if _reader is None:
            from vision.partial import HANDS_INDEX_MODEL_PATH
            from vision.recognize import CardReader

            _reader = CardReader(overlap=True, index_model_path=HANDS_INDEX_MODEL_PATH)
        return _reader


def photo_reader(reader_factory: Callable[[], Any] = hand_card_reader):
    """``(photo bytes, face set) -> cards``, for :attr:`companion.hand_reading.HandReadings.photo_reader`."""
    def read(photo: bytes, face_set: str) -> list[dict[str, Any]]:
        from vision.hands import decode_photo, read_hand_photo

        image = decode_photo(photo)
        return [c.to_json() for c in read_hand_photo(image, reader_factory(), face_set)]
    return read


class HandScanner:
    """Reads the awaited seats' hand zones from camera frames (see the module docs)."""

    #: The camera's words (``vision.table_reader``) for a table it sees still.
    QUIET = ("quiet", "reading")

    def __init__(self, host, *, every_s: float = 4.0, reader_factory=hand_card_reader,
                 clock: Callable[[], float] = time.monotonic):
        self.host = host
        self.every_s = every_s
        self.reader_factory = reader_factory
        self.clock = clock
        self._asked: tuple[str, ...] | None = None
        self._asked_lock = threading.Lock()
        self._last_at: float | None = None
        self._last: dict[str, list[str]] = {}
        host.hands.on_scan = self.ask

    def ask(self, seats: tuple[str, ...]) -> None:
        """Read these seats on the next quiet frame (any thread)."""
        with self._asked_lock:
            self._asked = tuple(seats) + (self._asked or ())

    def on_frame(self, image, view, state: str | None = "quiet", still=None) -> dict[str, Any]:
        """One camera frame (the camera thread): read and propose when due. Returns what was
        proposed, ``{seat: HandRead}`` (empty when nothing was due or nothing changed).

        ``still``: the source's :meth:`~vision.sources.FrameSource.still`; when a read is due the
        hands are read in a still taken then (a Pi camera's is its sensor's full width: the
        indices of a fanned hand are a few pixels wide in a 1280x720 frame), and in the frame
        when there is none (None, or it failed)."""
        hands = self.host.hands
        awaited = hands.awaited()
        if not awaited:
            self._last.clear()
            return {}
        if view is None or (state is not None and state not in self.QUIET):
            return {}
        with self._asked_lock:
            asked, self._asked = self._asked, None
        now = self.clock()
        due = self._last_at is None or now - self._last_at >= self.every_s
        if not due and not asked:
            return {}
        scannable = hands.to_scan()     # a seat whose part was just kept waits to be asked
        seats = scannable if due else tuple(s for s in scannable if s in asked)
        image, view = _sharpest(image, view, still)
        out = self.scan(image, view, seats, force=set(asked or ()))
        # counted from the scan's end: a slow reader (seconds on a Pi) leaves the camera frames
        # between two scans, never scanning back to back
        self._last_at = self.clock()
        return out

    def scan(self, image, view, seats, force=()) -> dict[str, Any]:
        from companion.hand_reading import HandReadError
        from vision.hands import read_hands, zones_for

        table = self.host.table
        face_set = self.host.hands.face_set()
        if table is None or face_set is None or not seats:
            return {}
        zones = zones_for(table.seating)   # where the organiser said each seat sits
        read = read_hands(image, view, {s: zones[s] for s in seats if s in zones},
                          self.reader_factory(), face_set)
        out = {}
        for seat, cards in read.items():
            labels = [c.label for c in cards]
            if seat not in force and self._last.get(seat) == labels:
                continue
            try:
                out[seat] = self.host.hands.propose(seat, [c.to_json() for c in cards], "camera")
            except HandReadError:   # its part was kept while the zone was read: not this one
                continue
            self._last[seat] = labels
        return out


def _sharpest(image, view, still):
    """``(image, view)`` of a still when ``still`` gives one, else the frame's."""
    frame = still() if still is not None else None
    if frame is None:
        return image, view
    h, w = frame.image.shape[:2]
    return frame.image, view.scaled_to((w, h))
