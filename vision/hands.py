"""Hands laid open at a round's end: where each seat lays its hand, and what the camera reads there.

When a Flip or classic round ends, every player who did not go out lays the cards left in hand
open on the table in front of them, in their **hand zone**: a rectangle on the seat's side of the
mat (:data:`HAND_ZONES`, mat millimetres, x east and y south as in :mod:`vision.geometry`). The
north and south zones lie inside the play area, over the grid's rows (the Flip and classic games
do not use the grid); the west and east zones lie on the table beside the mat, where the camera
still sees (the camera of ``companion mat``'s set-up sees about 250 mm either side). Seats that share a side
(more than four players) share its zone, cut in equal parts along the side, in seat order
(:func:`zones_for`).

Each zone is warped out of the picture top-down at :data:`ZONE_PX_PER_MM`, or at
:data:`ZONE_MAX_PX_PER_MM` in a sharp still (:func:`zone_px_per_mm`), and read by the card
reader (with its second pass for cards that others partly cover); only faces of the side being
scored are kept (:func:`read_zone`). A phone's photo of a hand is read the same way, whole
(:func:`read_hand_photo`). What is read is a proposal: the player confirms or corrects it on the
phone before it counts (:mod:`companion.hand_reading`).

Lay the cards side by side, a finger's width apart, and every card is read (the synthetic
table's scripted rounds: every hand exact, but for hands of 17 or more cards in rows that
overlap); a fanned hand is read exactly three to four times in five, in a still (see
``docs/vision.md``, Hands laid open), and the phone's card picker completes the others.

>>> from companion.seating import Seating
>>> z = zones_for(Seating.around(["ann", "ben", "cy", "dee", "eve"]))
>>> z["ann"].name, z["ben"].name, z["cy"].name, z["eve"].name
('south-1', 'south-2', 'west-1', 'north')
>>> round(z["ann"].x1 - z["ann"].x0), round(z["cy"].y1 - z["cy"].y0)
(190, 210)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.cards import FACE_SETS, UnknownCard
from vision.geometry import Region, View

__all__ = ["HAND_ZONES", "ZONE_PX_PER_MM", "ZONE_MAX_PX_PER_MM", "SHARP_PX_PER_MM", "zone_px_per_mm",
           "zones_for", "deck_for", "HandCard", "read_zone", "read_hands", "read_hand_photo",
           "PHOTO_MAX_SIDE"]

#: Each side's hand zone (mat mm). North and south: inside the play area clear of the corner
#: markers and of the piles' column; west and east: beside the mat.
HAND_ZONES = {
    "south": Region("south", 50.0, 400.0, 430.0, 598.0),
    "north": Region("north", 50.0, 7.0, 430.0, 205.0),
    "west": Region("west", -225.0, 92.0, -15.0, 512.0),
    "east": Region("east", 555.0, 92.0, 765.0, 512.0),
}
#: The zones are read warped top-down at this scale (a card about 112 px wide) ...
ZONE_PX_PER_MM = 2.0
#: ... or at this one (143 px) where the picture has at least :data:`SHARP_PX_PER_MM` of its own
#: pixels a millimetre there: a still at the sensor's full resolution
#: (:meth:`vision.sources.FrameSource.still`). On the synthetic table's hands in stills twice as
#: wide as the frames (2.1-2.3 pixels a millimetre of their own): a finer warp than the picture's
#: own pixels adds pixels to read and no detail, and a much finer one puts whole-card outlines on
#: a card's corner (a strip of it read again as one card too many). Higher: more pixels per hand,
#: slower and more of those extra cards; lower: the indices of a fanned hand blur.
ZONE_MAX_PX_PER_MM = 2.5
SHARP_PX_PER_MM = 1.8
#: A phone photo is shrunk to at most this many pixels on its longer side before reading.
PHOTO_MAX_SIDE = 1600


def zones_for(seating) -> dict[str, Region]:
    """Each seat's hand zone for a :class:`companion.seating.Seating`: its side's zone, cut in
    equal parts along the side when seats share it (named ``south-1``, ``south-2``...)."""
    out: dict[str, Region] = {}
    for side, zone in HAND_ZONES.items():
        seats = seating.seats_at(side)
        if len(seats) == 1:
            out[seats[0]] = zone
            continue
        along_x = zone.x1 - zone.x0 >= zone.y1 - zone.y0
        for i, seat in enumerate(seats):
            a, b = i / len(seats), (i + 1) / len(seats)
            if along_x:
                w = zone.x1 - zone.x0
                out[seat] = Region(f"{side}-{i + 1}", zone.x0 + a * w, zone.y0, zone.x0 + b * w, zone.y1)
            else:
                h = zone.y1 - zone.y0
                out[seat] = Region(f"{side}-{i + 1}", zone.x0, zone.y0 + a * h, zone.x1, zone.y0 + b * h)
    return out


def deck_for(face_set: str) -> str:
    """The card reader's ``deck`` for a face set: ``classic``, or ``flip`` for either Flip side."""
    if face_set not in FACE_SETS:
        raise ValueError(f"unknown face set {face_set!r}: expected classic, light or dark")
    return "classic" if face_set == "classic" else "flip"


@dataclass(frozen=True)
class HandCard:
    """One card read in a hand: its face (of the side scored), how sure, whole or partly covered,
    and where (centre, in the pixels of the image read)."""

    label: str
    confidence: float
    visible: str
    center: tuple[float, float]

    def to_json(self) -> dict:
        return {"label": self.label, "confidence": round(self.confidence, 3),
                "visible": self.visible}


def _of_face_set(sightings, face_set: str) -> list[HandCard]:
    """The sightings whose label (or, failing it, a runner-up) is a face of ``face_set``, in
    reading order (left to right, then top to bottom); backs and other sides are left out."""
    fs = FACE_SETS[face_set]
    out = []
    for s in sightings:
        for label, p in ((s.label, s.confidence), *tuple(getattr(s, "runners_up", ()))):
            try:
                fs.parse(label)
            except UnknownCard:
                continue
            out.append(HandCard(label, float(p), getattr(s, "visible", "whole"),
                                (float(s.center[0]), float(s.center[1]))))
            break
    return sorted(out, key=lambda c: (c.center[0], c.center[1]))


def zone_px_per_mm(view: View, zone: Region) -> float:
    """The scale ``zone`` is read at in pictures of ``view``: :data:`ZONE_MAX_PX_PER_MM` where the
    picture has at least :data:`SHARP_PX_PER_MM` pixels a millimetre of its own at the zone's
    middle, else :data:`ZONE_PX_PER_MM`.

    >>> from vision.geometry import View
    >>> zone = HAND_ZONES["south"]
    >>> zone_px_per_mm(View(np.eye(3), (1280, 720)), zone)
    2.0
    >>> zone_px_per_mm(View(np.diag([2.0, 2.0, 1.0]), (2560, 1440)), zone)
    2.5
    """
    sharp = view.px_per_mm(zone.center) >= SHARP_PX_PER_MM
    return ZONE_MAX_PX_PER_MM if sharp else ZONE_PX_PER_MM


def read_zone(image: np.ndarray, view: View, zone: Region, reader, face_set: str,
              px_per_mm: float | None = None) -> list[HandCard]:
    """The cards of ``face_set`` lying in ``zone`` of a camera picture (a card counts for the zone
    its centre lies in; its ``center`` is in the warped zone's pixels), warped at ``px_per_mm``
    (by default :func:`zone_px_per_mm`)."""
    warped = view.warp_region(image, zone, px_per_mm or zone_px_per_mm(view, zone))
    cards = _of_face_set(reader.read(warped, deck=deck_for(face_set)), face_set)
    h, w = warped.shape[:2]
    return [c for c in cards if 0 <= c.center[0] < w and 0 <= c.center[1] < h]


def read_hands(image: np.ndarray, view: View, zones: dict[str, Region], reader,
               face_set: str) -> dict[str, list[HandCard]]:
    """:func:`read_zone` for each seat's zone: ``{seat: [HandCard, ...]}``."""
    return {seat: read_zone(image, view, zone, reader, face_set) for seat, zone in zones.items()}


def read_hand_photo(image: np.ndarray, reader, face_set: str) -> list[HandCard]:
    """The cards of ``face_set`` in a photo of one hand (a phone's, any angle), shrunk first to
    :data:`PHOTO_MAX_SIDE`."""
    if image is None or image.ndim != 3 or min(image.shape[:2]) < 16:
        raise ValueError("not a colour photo")
    scale = PHOTO_MAX_SIDE / max(image.shape[:2])
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return _of_face_set(reader.read(image, deck=deck_for(face_set)), face_set)


def decode_photo(data: bytes) -> np.ndarray:
    """A JPEG or PNG photo's bytes as a BGR image; :class:`ValueError` when it is neither."""
    arr = np.frombuffer(data, np.uint8)
    image = cv2.imdecode(arr, cv2.IMREAD_COLOR) if arr.size else None
    if image is None:
        raise ValueError("the photo is not a JPEG or PNG image")
    return image
