"""Taking a camera's smear back out of a small picture, so that a marker in it can be read.

A camera on a wobbly arm smears every frame along a line a few pixels long. The pawn's marker
is small (a few pixels a module at 1280x720): a 7 px smear blurs its modules together and the
marker detector finds nothing, so the pawn was never seen and every move of it was missed (the
torture benchmark's ``motion-blur`` condition: 0 of 13 quiet frames). Undoing a straight smear
of the right length and direction (a Wiener filter) gives the marker back (13 of 13).

The smear's direction is not known, and it changes when the camera is knocked: :class:`Desmear`
tries a small bank of straight smears, the one that last gave a marker back first (a camera
smears the same way for a while), so that a smeared table costs one try a frame, not a dozen;
and a few at most a look (``budget``), going on through the bank where the last look stopped:
a pawn that is simply hidden (a hand over it) costs a few tries a frame, never the whole bank.

>>> import numpy as np
>>> d = Desmear()
>>> [smear for smear, _ in d.candidates(np.zeros((16, 16), np.uint8), 3)]
[(7, 0), (7, 15), (7, 30)]
>>> d.worked((7, 90)); [smear for smear, _ in d.candidates(np.zeros((16, 16), np.uint8), 3)]
[(7, 90), (7, 45), (7, 60)]
"""

from __future__ import annotations

import math
from typing import Iterator

import cv2
import numpy as np

__all__ = ["Desmear", "edge_strength", "smear_kernel", "unsmear", "unsmear_colour",
           "unsmear_colour_each"]

#: Smear lengths (pixels) tried, likeliest first, and the directions (degrees), 15 apart.
LENGTHS = (7, 5, 9)
ANGLES = tuple(range(0, 180, 15))
#: A window whose edges in some direction are under this share of the same window's edges when
#: the marker was last found as it was is smeared (a 5 px smear leaves at most 0.71 of them, a
#: sharp frame with the pawn a cell away 0.98): only then is the smear taken out.
SMEARED_SHARE = 0.8
#: The directions (degrees) edges are measured along.
EDGE_ANGLES = (0, 45, 90, 135)
#: The Wiener filter's noise-to-signal ratio: lower sharpens more and rings more (0.003 and
#: 0.01 gave every marker back on the smeared frames, 0.03 lost a quarter).
NOISE = 0.01


def smear_kernel(length: int, angle: float) -> np.ndarray:
    """A straight smear ``length`` px long along ``angle`` degrees (normalised)."""
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    for i in range(length):
        d = i - c
        x = int(round(c + d * math.cos(math.radians(angle))))
        y = int(round(c + d * math.sin(math.radians(angle))))
        k[y, x] = 1.0
    return k / k.sum()


def unsmear(gray: np.ndarray, kernel: np.ndarray, noise: float = NOISE) -> np.ndarray:
    """``gray`` with the smear ``kernel`` taken back out (a Wiener filter)."""
    return _unsmeared(np.fft.rfft2(gray.astype(np.float32)), gray.shape, kernel, noise)


def unsmear_colour(image: np.ndarray, kernel: np.ndarray, noise: float = NOISE) -> np.ndarray:
    """:func:`unsmear` of each colour of ``image`` (h x w x channels): the same pixels, the
    smear's inverse worked out once for all of them."""
    return unsmear_colour_each(image, [kernel], noise)[0]


def unsmear_colour_each(image: np.ndarray, kernels: list[np.ndarray],
                        noise: float = NOISE) -> list[np.ndarray]:
    """:func:`unsmear_colour` of ``image`` with each of ``kernels`` (the picture's spectrum
    worked out once for all of them, each smear's inverse once for all colours)."""
    h, w = image.shape[:2]
    spectra = [np.fft.rfft2(image[..., c].astype(np.float32)) for c in range(image.shape[2])]
    out = []
    for kernel in kernels:
        inverse = _inverse(h, w, kernel, noise)
        out.append(np.dstack([_filtered(s, inverse, (h, w)) for s in spectra]))
    return out


def _inverse(h: int, w: int, kernel: np.ndarray, noise: float) -> np.ndarray:
    """The Wiener filter that takes ``kernel``'s smear out of an ``h`` x ``w`` picture's
    spectrum."""
    kh, kw = kernel.shape
    k = np.zeros((h, w), np.float32)
    k[:kh, :kw] = kernel
    k = np.roll(k, (-(kh // 2), -(kw // 2)), (0, 1))
    spectrum = np.fft.rfft2(k)
    return np.conj(spectrum) / (np.abs(spectrum) ** 2 + noise)


def _unsmeared(picture: np.ndarray, shape: tuple[int, int], kernel: np.ndarray,
               noise: float = NOISE) -> np.ndarray:
    """:func:`unsmear` of a picture of ``shape`` given by its spectrum (``np.fft.rfft2``), which
    several smears tried on one picture share."""
    return _filtered(picture, _inverse(*shape, kernel, noise), shape)


def _filtered(picture: np.ndarray, inverse: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The picture of ``shape`` whose spectrum is ``picture``, through the filter ``inverse``."""
    return np.clip(np.fft.irfft2(picture * inverse, s=shape), 0, 255).astype(np.uint8)


def edge_strength(gray: np.ndarray) -> np.ndarray:
    """How sharp ``gray`` is along each of :data:`EDGE_ANGLES`: the 99th percentile of its
    derivative in that direction (a smear flattens the edges across its direction)."""
    g = gray.astype(np.float32)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    return np.array([np.percentile(np.abs(gx * math.cos(math.radians(a)) + gy * math.sin(math.radians(a))), 99)
                     for a in EDGE_ANGLES], np.float32)


class Desmear:
    """The bank of smears to take out of a picture, the one that last worked first.

    It also remembers how sharp the pawn's window was when the marker was last found as it was
    (:meth:`saw_sharp`): a window as sharp now is not smeared (the marker is hidden, by a hand
    say), and :meth:`looks_smeared` spares it the bank's tries, a tenth of a second a frame.
    """

    def __init__(self) -> None:
        self.last: tuple[int, int] | None = None  # (length, angle) that last gave a marker back
        # the window when the marker was last read as it was, and its edge_strength once asked
        self._sharp_window: np.ndarray | None = None
        self._sharp: np.ndarray | None = None
        self._bank = [(n, a) for n in LENGTHS for a in ANGLES]
        self._next = 0  # where the bank goes on at the next look

    def candidates(self, gray: np.ndarray, budget: int = 4
                   ) -> Iterator[tuple[tuple[int, int], np.ndarray]]:
        """``((length, angle), the picture unsmeared)``: the smear that last worked, then the
        bank's next ones, ``budget`` in all."""
        tries = [self.last] if self.last is not None else []
        while len(tries) < min(budget, len(self._bank)):
            smear = self._bank[self._next]
            self._next = (self._next + 1) % len(self._bank)
            if smear not in tries:
                tries.append(smear)
        picture = np.fft.rfft2(gray.astype(np.float32))  # once for every smear tried
        for length, angle in tries:
            yield (length, angle), _unsmeared(picture, gray.shape, smear_kernel(length, angle))

    def saw_sharp(self, window: np.ndarray) -> None:
        """The marker was found in ``window`` as it was (no smear taken out). Kept as it is: its
        edges are measured only when a marker goes missing (:meth:`looks_smeared`), not on every
        frame that finds it."""
        if window.size:
            self._sharp_window, self._sharp = window.copy(), None

    @property
    def sharp(self) -> np.ndarray | None:
        """:func:`edge_strength` of the window when the marker was last found as it was."""
        if self._sharp is None and self._sharp_window is not None:
            self._sharp = edge_strength(self._sharp_window)
        return self._sharp

    def looks_smeared(self, window: np.ndarray) -> bool:
        """Whether ``window`` is less sharp in some direction than when the marker was last found
        as it was (True when it never was: nothing to tell a smear by)."""
        sharp = self.sharp
        if sharp is None or not window.size:
            return True
        share = edge_strength(window) / np.maximum(sharp, 1e-3)
        return bool(share.min() < SMEARED_SHARE)

    def worked(self, smear: tuple[int, int]) -> None:
        """``smear`` gave the marker back: try it first next time."""
        self.last = smear
