"""One camera frame as the stages see it: the picture, and its grey worked out once.

The change detector, the smear's measure, the pawn's search and the camera's check all look at
the frame in grey; :class:`Frame` converts it the first time one asks and hands the same
read-only array to the others. A grey frame is copied (the grey is kept as the quiet table's
look, and a camera may refill the frame's array with the next picture).
"""

from __future__ import annotations

from functools import cached_property

import cv2
import numpy as np

__all__ = ["Frame"]


class Frame:
    """``image`` (BGR or grey, as the camera gave it) and its :attr:`grey`."""

    def __init__(self, image: np.ndarray):
        self.image = image

    @cached_property
    def grey(self) -> np.ndarray:
        """The frame in grey, read-only (computed once)."""
        image = self.image
        grey = image.copy() if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        grey.flags.writeable = False
        return grey
