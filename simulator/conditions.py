"""Hard conditions for the synthetic table: other cameras, other light, other tables.

A :class:`Condition` changes how a scripted game looks to the camera, and nothing of what
happens: the resolution, the light's level and colour, a glare highlight moving over the cards,
motion blur, JPEG compression, a camera nudged several times, cards dropped askew and off their
places, a sleeve's gloss on every card, a hand resting over part of the pawn, a cup and a phone
left on the table's edge. ``benchmarks/table_torture.py`` plays every game under each of them.

Effects on a whole frame are plain functions of (image, frame number, context) so that they can
be tested alone; effects on the script (askew cards, nudges) are keyword arguments of the
script; the sleeve is a face source wrapped around the real one.

>>> CONDITIONS["jpeg-60"].hard, CONDITIONS["plain"].hard
(True, False)
>>> jpeg(np.full((8, 8, 3), 128, np.uint8), 0, None).shape
(8, 8, 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import cv2
import numpy as np

from vision.desmear import smear_kernel

from .render import Lighting

__all__ = ["Condition", "CONDITIONS", "FrameContext", "jpeg", "glare", "motion_blur",
           "low_contrast", "GlossyFaces", "cup_and_phone", "hand_over_pawn"]


@dataclass
class FrameContext:
    """What a frame effect may look at: the renderer (its view maps mat mm to pixels) and the
    frame's scripted step (its scene: where the pawn is)."""

    renderer: Any
    step: Any


FrameEffect = Callable[[np.ndarray, int, "FrameContext | None"], np.ndarray]


@dataclass(frozen=True)
class Condition:
    """One way the table can look. ``size`` overrides the resolution; ``lighting`` the light;
    ``effects`` run on every frame in order; ``script`` are keyword arguments of the scripted
    game; ``glossy`` wraps the faces in a sleeve; ``hard`` says which target applies (questions
    at most 10 per 100 actions instead of 5)."""

    name: str
    size: tuple[int, int] | None = None
    lighting: Lighting | None = None
    effects: tuple[FrameEffect, ...] = ()
    script: dict = field(default_factory=dict)
    glossy: bool = False
    hard: bool = True


# --- frame effects ---------------------------------------------------------------------------

def jpeg(image: np.ndarray, n: int, ctx: FrameContext | None, quality: int = 60) -> np.ndarray:
    """The frame through a JPEG encoder at ``quality`` (a phone's or a cheap webcam's stream)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else image


def low_contrast(image: np.ndarray, n: int, ctx: FrameContext | None) -> np.ndarray:
    """Dim, flat light: contrast squeezed to 55 % around a dark grey."""
    return cv2.convertScaleAbs(image, alpha=0.55, beta=18)


def glare(image: np.ndarray, n: int, ctx: FrameContext | None) -> np.ndarray:
    """A bright soft highlight (a lamp's or a window's reflection) drifting over the table: one
    sweep a minute at 30 fps, as light that moves with the sun or a lamp turned now and then."""
    h, w = image.shape[:2]
    t = n / 1800.0
    cx = w * (0.5 + 0.3 * math.sin(2 * math.pi * t))
    cy = h * (0.5 + 0.25 * math.sin(2 * math.pi * t * 0.7 + 1.0))
    r = 0.09 * w
    # Beyond 3.5 r the highlight adds under half a grey level, which the cast back to uint8 drops:
    # only the box around it is lit (the same pixels as lighting the whole frame, a third the work).
    x0, x1 = max(0, int(cx - 3.5 * r)), min(w, int(cx + 3.5 * r) + 2)
    y0, y1 = max(0, int(cy - 3.5 * r)), min(h, int(cy + 3.5 * r) + 2)
    out = image.copy()
    if x0 >= x1 or y0 >= y1:
        return out
    ys, xs = np.ogrid[y0:y1, x0:x1]
    # the Gaussian as a column times a row (exp of a sum: the same float32 blob in 515 frames
    # out of 515 compared, a quarter of the frame's CPU)
    blob = (np.exp(-((ys - cy) ** 2) / (2 * r * r))
            * np.exp(-((xs - cx) ** 2) / (2 * r * r))).astype(np.float32)
    lift = blob * 150.0
    # Lit as whole grey levels, saturating (uint8 + floor(lift): half the CPU of float32 pixels),
    # the same frames as float32 pixels cut back to uint8 (600 frames compared): only where the
    # lift is within 2^-10 of the next level can the float32 sum round up to it, and those few
    # pixels are lit as float32.
    whole = np.floor(lift)
    step = whole.astype(np.uint8)
    box = out[y0:y1, x0:x1]
    cv2.add(box, cv2.merge([step, step, step]), dst=box)
    ry, rx = np.nonzero(lift - whole > 1 - 2.0 ** -10)
    lit = image[y0:y1, x0:x1][ry, rx].astype(np.float32) + lift[ry, rx, None]
    box[ry, rx] = np.clip(lit, 0, 255).astype(np.uint8)
    return out


def motion_blur(image: np.ndarray, n: int, ctx: FrameContext | None, length: int = 7) -> np.ndarray:
    """A camera on a wobbly arm: every frame smeared ``length`` px, along a direction that
    changes from one move at the table to the next (a smear turning every frame would look like
    endless motion, which no real table shows)."""
    beat = ctx.step.beat if ctx is not None and ctx.step is not None else n // 30
    return cv2.filter2D(image, -1, smear_kernel(length, (beat * 37) % 180))


def cup_and_phone(image: np.ndarray, n: int, ctx: FrameContext | None) -> np.ndarray:
    """A mug just off the mat's east edge, clear of the piles, and a phone half on the mat's south
    edge, from the start on."""
    if ctx is None:
        return image
    view, layout = ctx.renderer.view, ctx.renderer.layout
    out = image.copy()
    cup = view.to_image([(layout.width + 15.0, layout.height * 0.82)])[0]
    r = int(40 * view.px_per_mm())
    cv2.circle(out, (int(cup[0]) + 4, int(cup[1]) + 5), r, (35, 35, 35), -1, cv2.LINE_AA)
    cv2.circle(out, (int(cup[0]), int(cup[1])), r, (200, 200, 215), -1, cv2.LINE_AA)
    cv2.circle(out, (int(cup[0]), int(cup[1])), int(r * 0.78), (40, 60, 90), -1, cv2.LINE_AA)
    phone = view.to_image([(layout.width * 0.3, layout.height - 20.0),
                           (layout.width * 0.3 + 150, layout.height - 20.0),
                           (layout.width * 0.3 + 150, layout.height + 55.0),
                           (layout.width * 0.3, layout.height + 55.0)])
    cv2.fillConvexPoly(out, phone.astype(np.int32), (25, 25, 28), cv2.LINE_AA)
    return out


def hand_over_pawn(image: np.ndarray, n: int, ctx: FrameContext | None) -> np.ndarray:
    """In two beats of three, a hand resting beside the pawn covers a third of it (its body and a
    corner of its marker) while nothing else moves."""
    if ctx is None or ctx.step is None or ctx.step.scene.pawn is None or ctx.step.beat % 3 == 0:
        return image
    if ctx.step.scene.arms:  # an arm at work: the resting hand is the one working
        return image
    view = ctx.renderer.view
    x, y = ctx.step.scene.pawn
    side = 1 if ctx.step.beat % 2 else -1
    centre = view.to_image([(x + side * 26.0, y + 10.0)])[0]
    s = view.px_per_mm()
    out = image.copy()
    cv2.ellipse(out, (int(centre[0]), int(centre[1])), (int(26 * s), int(40 * s)), 20 * side, 0, 360,
                (120, 160, 215), -1, cv2.LINE_AA)
    return out


class GlossyFaces:
    """A face source in plastic sleeves: a soft diagonal sheen of reflected light on every card."""

    def __init__(self, base):
        self.base = base
        self.name = f"{base.name}+sleeve"
        self.varies_by_copy = base.varies_by_copy
        self.fallbacks = getattr(base, "fallbacks", set())

    def card(self, label: str, face_set: str | None, copy: int, width: int, height: int) -> np.ndarray:
        img = self.base.card(label, face_set, copy, width, height).astype(np.float32)
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        band = (xs / width + ys / height) - 0.8  # the sheen runs corner to corner
        sheen = np.exp(-(band ** 2) / (2 * 0.12 ** 2)) * 70.0
        return np.clip(img + sheen[..., None], 0, 255).astype(np.uint8)


#: Every condition the torture benchmark plays, by name. ``plain`` is today's table.
CONDITIONS: dict[str, Condition] = {c.name: c for c in (
    Condition("plain", hard=False),
    Condition("640x480", size=(640, 480)),
    Condition("1920x1080", size=(1920, 1080), hard=False),
    Condition("dim", lighting=Lighting(gain=0.55, slope=0.3), effects=(low_contrast,)),
    Condition("tungsten", lighting=Lighting(tint=2.2, gain=0.85)),
    Condition("daylight", lighting=Lighting(tint=-1.8, gain=1.05)),
    Condition("glare", effects=(glare,)),
    Condition("motion-blur", effects=(motion_blur,)),
    Condition("jpeg-60", effects=(jpeg,)),
    Condition("nudged", script={"nudge_every": 5}),
    Condition("askew", script={"askew": (15.0, 25.0)}),
    # nobody taps a draw or a pass: the camera sees who reached for the pile (the grid game
    # has no draw pile taps to leave out: it plays as plain)
    Condition("no-taps", script={"phone_draws": False}, hard=False),
    Condition("sleeve-gloss", glossy=True),
    Condition("pawn-hidden", effects=(hand_over_pawn,)),
    Condition("cup-phone", effects=(cup_and_phone,)),
)}
