"""Buzzer tunes as data: (note, seconds) steps, ``None`` for a rest.

Notes are names gpiozero's :class:`~gpiozero.tones.Tone` reads (``"A5"``, ``"C#6"``). Every
note lies between A3 and A7, the range of the :class:`~gpiozero.TonalBuzzer` the signals make
(``mid_tone="A5"``, two octaves); piezo buzzers are loudest high up, so most tunes sit there.
A plain (active) buzzer plays the same rhythm at its one pitch. Repeated notes are separated
by rests so that each is heard (and each shows in a pin's history).

>>> TUNES["tick"].duration
0.05
>>> [n for n, _ in TUNES["flip-dark"].steps]
['E6', 'C6', 'A5', 'E5']
"""

from __future__ import annotations

from .timeline import Track

__all__ = ["TUNES", "tune", "BUZZER_MID_TONE", "BUZZER_OCTAVES"]

BUZZER_MID_TONE = "A5"
BUZZER_OCTAVES = 2

_Q = 0.12  # a short note of the fanfares

TUNES: dict[str, Track] = {t.name: t for t in (
    # A legal play: a click, too short to be a tone.
    Track("click", (("E6", 0.03),)),
    # Illegal play, refusal or penalty: a low buzz.
    Track("buzz", (("A3", 0.6),)),
    # Turn timer: 10 s left, then each second from 5, then the long tone at 0.
    Track("warning", (("A5", 0.15), (None, 0.1), ("A5", 0.15))),
    Track("tick", (("A5", 0.05),)),
    Track("time-up", (("A4", 1.0),)),
    # The table must confirm something: a rising question.
    Track("question", (("A5", 0.08), (None, 0.05), ("E6", 0.12))),
    # A flip: up to the light side, down to the dark side.
    Track("flip-light", (("E5", 0.08), ("A5", 0.08), ("C6", 0.08), ("E6", 0.12))),
    Track("flip-dark", (("E6", 0.08), ("C6", 0.08), ("A5", 0.08), ("E5", 0.12))),
    # A round or game won, and the match.
    Track("fanfare", (("C5", _Q), ("E5", _Q), ("G5", _Q), ("C6", 0.4))),
    Track("champion", (("C5", _Q), ("E5", _Q), ("G5", _Q), ("C6", 0.25), (None, 0.08),
                       ("G5", _Q), ("C6", 0.6))),
    # Someone called UNO!
    Track("uno", (("G5", 0.08), (None, 0.04), ("C6", 0.15))),
    # A match starts.
    Track("start", (("C5", 0.1), ("G5", 0.15))),
    # The camera lost the table (and once more when it is back).
    Track("camera-lost", (("E5", 0.25), ("C5", 0.45))),
    Track("camera-back", (("C5", 0.1), ("E5", 0.15))),
)}


def tune(name: str) -> Track:
    """The tune called ``name`` (KeyError names the known ones)."""
    try:
        return TUNES[name]
    except KeyError:
        raise KeyError(f"no tune {name!r}; known: {', '.join(TUNES)}") from None
