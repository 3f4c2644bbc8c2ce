"""The synthetic table: what the overhead camera would see, for any :class:`Scene`.

The table is drawn flat in *mat space* (millimetres, at ``mat_px_per_mm``): a cloth texture, the
four corner markers, the cards as :mod:`vision.card_art` draws them (each with the offset and
angle a hand leaves), the draw pile's stack, the pawn with its marker. That flat image is then
seen through a camera: a perspective (the camera is never exactly overhead), barrel distortion,
a light gradient that drifts, arms and hands with soft shadows, sensor noise and blur.

Rendering is cached in layers so that a long scripted game renders quickly: the flat table is
redrawn only when the scene under the arms changes, the camera's pixel maps only when the camera
moves, and the flat table seen through the camera only when either does. What depends on nothing
but the geometry (the empty table, the pixel maps, the drawn card faces) is shared by every table
of the process, so that tests and benchmarks that make hundreds of tables draw each once. Caching
never changes a pixel: a frame is the same with or without it.

>>> table = SyntheticTable(320, 180, seed=1)
>>> table.render(Scene()).shape
(180, 320, 3)
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.card_shape import card_mask
from vision.geometry import CARD_MM, CORNER_IDS, PAWN_ID, Layout, LensModel, View, marker_image
from .faces import ArtFaces
from .scene import Arm, Placement, Scene

__all__ = ["CameraPose", "Lighting", "SyntheticTable", "marker_image", "pile_offset"]

#: The finest a sharper table's flat table is drawn (pixels a millimetre): a photographed card
#: face (:class:`simulator.faces.RealFaces`) holds about this much detail.
STILL_MAT_PX = 4.0
#: How far the drawn table reaches beyond the play area (mm): the camera sees some table around it.
_APRON = (230.0, 120.0)
#: A shadow's darkening by its strength (0..255): at most 110/255 of the light taken away.
_SHADOW_FACTOR = (255 - np.arange(256, dtype=np.uint16) * 110 // 255).astype(np.uint8)
_SKINS = ((120, 160, 215), (95, 130, 185), (60, 90, 140), (140, 175, 225), (80, 110, 160))


@dataclass(frozen=True)
class CameraPose:
    """Where the camera looks from. ``fill`` is the share of the image height the play area
    takes; ``rotate`` (degrees) turns the view; ``tilt`` makes the far side smaller (perspective);
    ``shift`` moves the image (pixels); ``k1`` is the barrel distortion."""

    fill: float = 0.92
    rotate: float = 0.0
    tilt: float = 0.06
    shift: tuple[float, float] = (0.0, 0.0)
    k1: float = -0.06

    def nudged(self, dx: float, dy: float, drot: float = 0.0) -> "CameraPose":
        return replace(self, shift=(self.shift[0] + dx, self.shift[1] + dy), rotate=self.rotate + drot)


@dataclass(frozen=True)
class Lighting:
    """A light gradient: overall ``gain``, a ramp of ``slope`` across the table along ``angle``
    (degrees), a warm/cold ``tint`` (-1..1)."""

    gain: float = 1.0
    slope: float = 0.25
    angle: float = 30.0
    tint: float = 0.0


class SyntheticTable:
    """Renders frames ``width`` x ``height`` of a :class:`Scene` seen by a simulated camera."""

    def __init__(self, width: int = 1280, height: int = 720, *, layout: Layout = Layout(),
                 pose: CameraPose = CameraPose(), lighting: Lighting = Lighting(), seed: int = 0,
                 noise: float = 3.0, blur: float = 0.6, cloth=(70, 105, 40), markers: bool = True,
                 mat_px_per_mm: float | None = None, faces=None):
        self.width, self.height = width, height
        #: where the card faces come from (:mod:`simulator.faces`: drawn art, or real photos)
        self.faces = faces if faces is not None else ArtFaces()
        self._sprites: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.layout = layout
        self.pose = pose
        self.lighting = lighting
        self.noise = noise
        self.blur = blur
        self.markers = markers
        self.cloth = cloth
        self.seed = seed
        self._frame = 0
        scale = pose.fill * height / layout.height
        self.mat_px = mat_px_per_mm or float(min(2.4, max(1.0, 1.6 * scale)))
        self._canvas_key = None
        self._canvas = None
        self._canvas_ops: list[tuple] = []
        #: how the canvas last changed: (the table before, the table after, the box redrawn), or
        #: None when it was drawn whole
        self._canvas_change: tuple | None = None
        self._seen_key = None
        self._seen = None
        self._background = _background(layout, self.mat_px, tuple(cloth), markers)
        # four frames of sensor noise, drawn from the table's seed (shared by every table of the
        # same seed and size: drawing them is a third of a short game's rendering)
        self._noise_frames = 4 if noise > 0 else 0
        self._finished: dict[tuple, np.ndarray] = {}  # the last quiet frames, by what they show
        self._lit_quiet: tuple[tuple, np.ndarray] | None = None  # the lit table under the arms

    # --- the camera -------------------------------------------------------------------------

    def sharper(self, scale: float) -> "SyntheticTable":
        """This table seen by the same camera in pictures ``scale`` times as wide and high: a
        still at the sensor's full resolution (:meth:`vision.sources.FrameSource.still`). The
        flat table is drawn finer to match (up to :data:`STILL_MAT_PX` pixels a millimetre);
        keep its :attr:`pose` and :attr:`lighting` those of this table with :meth:`follow`."""
        sharp = SyntheticTable(int(round(self.width * scale)), int(round(self.height * scale)),
                               layout=self.layout, lighting=self.lighting, seed=self.seed,
                               noise=self.noise, blur=self.blur, cloth=self.cloth, markers=self.markers,
                               mat_px_per_mm=max(self.mat_px, min(STILL_MAT_PX, self.mat_px * scale)),
                               faces=self.faces)
        sharp.follow(self)
        return sharp

    def follow(self, other: "SyntheticTable") -> None:
        """Take ``other``'s camera pose and light (this table being ``other.sharper(...)``; the
        pose's shift is in pixels, so it grows with the picture)."""
        k = self.width / other.width
        self.pose = replace(other.pose, shift=(other.pose.shift[0] * k, other.pose.shift[1] * k))
        self.lighting = other.lighting

    @property
    def view(self) -> View:
        """The true view of the current pose (what calibration should find)."""
        return self._view_of(self.pose)

    def _view_of(self, pose: CameraPose) -> View:
        return _true_view(pose, self.layout, self.width, self.height)

    def _camera_maps(self):
        return _camera_maps(self.pose, self.layout, self.width, self.height, self.mat_px)

    def _seen_table(self, scene: Scene) -> np.ndarray:
        """The flat table seen through the camera (no arms, light or noise yet); read-only.
        Where the flat table changed in a box only (a card came or went) and the camera stayed,
        only the pixels that look into that box are looked up again: each pixel of the picture
        comes from its own place on the table, so the rest is as it was (a whole lookup was
        most of a card's move on the synthetic table)."""
        key = (scene.static_key(), self.pose)
        if key != self._seen_key:
            before = self._seen_key
            flat = self._flat(scene)
            m1, m2 = self._camera_maps()
            change = self._canvas_change
            if before is not None and before[1] == self.pose and change is not None \
                    and change[:2] == (before[0], key[0]):
                seen = self._seen.copy()
                box = _seen_box(self.pose, self.layout, self.width, self.height, self.mat_px,
                                change[2], flat.shape[:2])
                if box is not None:
                    x0, y0, x1, y1 = box
                    seen[y0:y1, x0:x1] = cv2.remap(flat, m1[y0:y1, x0:x1], m2[y0:y1, x0:x1],
                                                   cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            else:
                seen = cv2.remap(flat, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            seen.flags.writeable = False
            self._seen_key, self._seen = key, seen
        return self._seen

    # --- the flat table -----------------------------------------------------------------------

    def _mm_to_canvas(self, x: float, y: float) -> tuple[float, float]:
        return ((x + _APRON[0]) * self.mat_px, (y + _APRON[1]) * self.mat_px)

    def _sprite(self, label: str, face_set: str | None, copy: int = 0) -> tuple[np.ndarray, np.ndarray]:
        # cached per table (a cache on the method would keep every table ever made alive, each
        # with its noise bank: gigabytes over a benchmark's hundreds of tables)
        key = (label, face_set, copy)
        found = self._sprites.get(key)
        if found is None:
            w, h = self._card_size()
            if isinstance(self.faces, ArtFaces):
                found = _art_sprite(label, face_set, w, h)
            else:
                found = (self.faces.card(label, face_set, copy, w, h), _card_mask(w, h))
            if len(self._sprites) >= 512:
                self._sprites.pop(next(iter(self._sprites)))
            self._sprites[key] = found
        return found

    def _card_size(self) -> tuple[int, int]:
        """A card's (width, height) on the canvas, in pixels (its sprite's size)."""
        return int(round(CARD_MM[0] * self.mat_px)), int(round(CARD_MM[1] * self.mat_px))

    def _card_square(self, p: Placement, center_mm: tuple[float, float]) -> tuple[float, float, int]:
        """Where card ``p`` lies on the canvas: its centre (px) and the half side of the square
        that pasting it may change (the card turned any way, with its contact shadow)."""
        w, h = self._card_size()
        cx, cy = self._mm_to_canvas(center_mm[0] + p.dx, center_mm[1] + p.dy)
        return cx, cy, int(math.hypot(w, h) / 2) + 6

    def _paste(self, canvas: np.ndarray, p: Placement, center_mm: tuple[float, float],
               lift: float = 0.0) -> None:
        copy = _copy_of(p) if self.faces.varies_by_copy else 0
        img, mask = self._sprite(p.label, p.face_set, copy)
        h, w = mask.shape
        cx, cy, d = self._card_square(p, center_mm)
        M = cv2.getRotationMatrix2D((w / 2, h / 2), -p.angle, 1.0)
        M[0, 2] += cx - w / 2
        M[1, 2] += cy - h / 2
        x0, y0 = max(0, int(cx) - d), max(0, int(cy) - d)
        x1, y1 = min(canvas.shape[1], int(cx) + d), min(canvas.shape[0], int(cy) + d)
        if x1 <= x0 or y1 <= y0:
            return
        M[0, 2] -= x0
        M[1, 2] -= y0
        size = (x1 - x0, y1 - y0)
        # a thin contact shadow first, then the card; blended only where either covers the
        # canvas (the square around a card is half empty), warped over the whole square (the
        # warp's fixed-point steps depend on where it starts: the same pixels as always)
        sm = cv2.GaussianBlur(cv2.warpAffine(mask, M + np.array([[0, 0, 1.5], [0, 0, 2.0]]), size),
                              (5, 5), 0)
        wm = cv2.warpAffine(mask, M, size)
        bx, by, bw, bh = cv2.boundingRect(cv2.bitwise_or(sm, wm))
        if bw == 0 or bh == 0:
            return
        inside = (slice(by, by + bh), slice(bx, bx + bw))
        roi = canvas[y0:y1, x0:x1][inside]
        shade = sm[inside].astype(np.float32) / 255.0 * 0.35
        roi[:] = (roi * (1 - shade[..., None])).astype(np.uint8)
        wi = cv2.warpAffine(img, M, size, flags=cv2.INTER_LINEAR)[inside]
        cover = wm[inside].astype(np.float32)[..., None] / 255.0
        roi[:] = (roi * (1 - cover) + wi * cover).astype(np.uint8)

    def _draw_pawn(self, canvas: np.ndarray, at_mm: tuple[float, float]) -> None:
        L = self.layout
        cx, cy = self._mm_to_canvas(*at_mm)
        r = int(L.pawn_marker_mm * 0.95 * self.mat_px)
        cv2.circle(canvas, (int(cx + 3 * self.mat_px), int(cy + 4 * self.mat_px)), r, (30, 30, 30), -1, cv2.LINE_AA)
        cv2.circle(canvas, (int(cx), int(cy)), r, (40, 40, 200), -1, cv2.LINE_AA)
        px = int(L.pawn_marker_mm * self.mat_px)
        m = marker_image(PAWN_ID, px)
        x0, y0 = int(cx - px / 2), int(cy - px / 2)
        if 0 <= x0 and 0 <= y0 and y0 + px <= canvas.shape[0] and x0 + px <= canvas.shape[1]:
            canvas[y0:y0 + px, x0:x0 + px] = m[..., None]

    def _flat_ops(self, scene: Scene) -> list[tuple]:
        """What the flat table is drawn from, in drawing order: ("card", placement, centre mm)
        and ("pawn", at mm) steps on the background."""
        L = self.layout
        ops: list[tuple] = []
        # the grid's cards in the order they were put down (the deal cell by cell): a card
        # reaching over a neighbouring cell covers that cell's card only if it came later
        ops += sorted((("card", p, L.cell_center(*divmod(i, 5)))
                       for i, stack in enumerate(scene.grid) for p in stack[-3:]), key=lambda op: op[1].laid)
        # the draw pile: a stack whose edge thickens with the count, its top cards each lying a
        # little off the one below (a real pile is messy: taking its top card shows another look)
        dp = L.draw_pile
        n = scene.draw_count
        if n > 0:
            top = scene.draw_top
            layers = min(6, 1 + n // 12)
            ops += [("card", Placement(top.label, 0.5 * k, 0.6 * k, 0.0, top.face_set), dp)
                    for k in range(layers, 0, -1)]
            for i in range(max(0, n - PILE_MESS), n - 1):
                dx, dy, angle = pile_offset(i)
                ops.append(("card", Placement(top.label, dx, dy, angle, top.face_set), dp))
            dx, dy, angle = pile_offset(n - 1)
            ops.append(("card", replace(top, dx=top.dx + dx, dy=top.dy + dy,
                                        angle=top.angle + angle), dp))
        ops += [("card", p, L.discard_pile) for p in scene.discard[-3:]]
        ops += [("card", p, at) for p, at in scene.extras]
        if scene.pawn is not None:
            ops.append(("pawn", scene.pawn))
        return ops

    def _draw_op(self, canvas: np.ndarray, op: tuple) -> None:
        if op[0] == "card":
            self._paste(canvas, op[1], op[2])
        else:
            self._draw_pawn(canvas, op[1])

    def _footprint(self, op: tuple) -> tuple[int, int, int, int]:
        """The canvas box (x0, y0, x1, y1) outside which ``op`` changes no pixel."""
        if op[0] == "card":
            cx, cy, d = self._card_square(op[1], op[2])
        else:
            cx, cy = self._mm_to_canvas(*op[1])
            d = int(self.layout.pawn_marker_mm * self.mat_px) + int(5 * self.mat_px) + 4
        return int(cx) - d - 1, int(cy) - d - 1, int(cx) + d + 2, int(cy) + d + 2

    def _flat(self, scene: Scene) -> np.ndarray:
        key = scene.static_key()
        if key == self._canvas_key:
            return self._canvas
        ops = self._flat_ops(scene)
        redrawn = self._redrawn(ops) if self._canvas is not None else None
        if redrawn is None:
            canvas = self._background.copy()
            for op in ops:
                self._draw_op(canvas, op)
            self._canvas_change = None
        else:
            # (what changed, from which table to which: _seen_table looks up only that again)
            canvas, box = redrawn
            self._canvas_change = (self._canvas_key, key, box)
        self._canvas_key, self._canvas, self._canvas_ops = key, canvas, ops
        return canvas

    def _redrawn(self, ops: list[tuple]) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
        """The last flat table changed into the one ``ops`` draw, redrawing only the box where
        steps came or went (from the background up, with every step that reaches into it, in
        order): the same pixels as drawing it all. Returns it with the box (x0, y0, x1, y1; empty
        when nothing changed); None when most of it would be redrawn."""
        old = self._canvas_ops
        gone, came = Counter(old), Counter(ops)
        changed = (gone - came) + (came - gone)
        kept_old = [op for op in old if op not in changed]
        kept_new = [op for op in ops if op not in changed]
        if not changed or kept_old != kept_new:
            return None     # the same steps in another order: draw it all
        H, W = self._background.shape[:2]
        boxes = [self._footprint(op) for op in changed]
        x0, y0 = max(0, min(b[0] for b in boxes)), max(0, min(b[1] for b in boxes))
        x1, y1 = min(W, max(b[2] for b in boxes)), min(H, max(b[3] for b in boxes))
        if x1 <= x0 or y1 <= y0:
            return self._canvas.copy(), (0, 0, 0, 0)
        if (x1 - x0) * (y1 - y0) > 0.4 * W * H:
            return None
        scratch = self._background.copy()
        for op in ops:
            fx0, fy0, fx1, fy1 = self._footprint(op)
            if fx0 < x1 and x0 < fx1 and fy0 < y1 and y0 < fy1:
                self._draw_op(scratch, op)
        canvas = self._canvas.copy()
        canvas[y0:y1, x0:x1] = scratch[y0:y1, x0:x1]
        return canvas, (x0, y0, x1, y1)

    # --- light, arms, noise -----------------------------------------------------------------

    def _light_field(self) -> np.ndarray:
        return _light_field(self.lighting, self.width, self.height)

    def _arm_polygon(self, view: View, arm: Arm) -> tuple[np.ndarray, tuple[int, int], int]:
        # the arm comes in from the table's edge on the seat's side: drawn on the mat (mm) and
        # then seen through the camera (a point far beyond the image would come back through the
        # lens's distortion on the wrong side: the arm is drawn to 400 mm beyond the mat's edge)
        L = self.layout
        d = np.array({"north": (0, -1), "south": (0, 1), "west": (-1, 0), "east": (1, 0)}[arm.side], float)
        tip = np.array(arm.tip, float)
        reach = {"north": tip[1] + 400.0, "south": L.height + 400.0 - tip[1],
                 "west": tip[0] + 400.0, "east": L.width + 400.0 - tip[0]}[arm.side]
        w = arm.width_mm
        n = np.array([-d[1], d[0]])
        wrist = tip + d * w * 0.9
        start = tip + d * max(reach, w)
        pts = view.to_image([wrist + n * w * 0.42, start + n * w * 0.6, start - n * w * 0.6,
                             wrist - n * w * 0.42, tip + d * w * 0.45]).astype(np.float32)
        hand_center = pts[4]
        return pts[:4], (int(hand_center[0]), int(hand_center[1])), int(w * 0.5 * view.px_per_mm(tuple(tip)))

    def _draw_arms(self, img: np.ndarray, view: View, arms) -> tuple[int, int, int, int]:
        """Draw ``arms`` and their shadows into ``img``; returns the box (x0, y0, x1, y1) outside
        which no pixel changed."""
        if not arms:
            return (0, 0, 0, 0)
        q = 4  # shadows at a quarter of the resolution: soft and cheap
        sh = np.zeros((self.height // q, self.width // q), np.uint8)
        shapes = []
        for arm in arms:
            poly, hand, hr = self._arm_polygon(view, arm)
            shapes.append((arm, poly, hand, hr))
            off = np.array([14, 20], np.float32) * (self.height / 720)  # the same mm at any size
            cv2.fillPoly(sh, [((poly + off) / q).astype(np.int32)], 255)
            cv2.circle(sh, (int((hand[0] + off[0]) / q), int((hand[1] + off[1]) / q)), max(1, hr // q), 255, -1)
        sh, (ox, oy) = shadow_seen(sh, q, self.width, self.height)
        # the shadow darkens only where it falls (elsewhere its factor is 255: no change)
        x, y, bw, bh = cv2.boundingRect(sh)
        factor = cv2.LUT(sh[y:y + bh, x:x + bw], _SHADOW_FACTOR) if bw and bh else None
        x, y = x + ox, y + oy
        boxes = [(x, y, x + bw, y + bh)]
        if bw and bh:
            part = img[y:y + bh, x:x + bw]
            cv2.multiply(part, cv2.merge([factor] * 3), part, scale=1 / 255)
        for arm, poly, hand, hr in shapes:
            skin = _SKINS[arm.skin % len(_SKINS)]
            cv2.fillPoly(img, [poly.astype(np.int32)], skin, cv2.LINE_AA)
            cv2.ellipse(img, hand, (hr, int(hr * 0.8)), 0, 0, 360, skin, -1, cv2.LINE_AA)
            # a little shading along the arm
            cv2.polylines(img, [poly.astype(np.int32)], True, tuple(int(c * 0.7) for c in skin), 2, cv2.LINE_AA)
            px, py, pw, ph = cv2.boundingRect(poly.astype(np.int32))
            boxes.append((px - 3, py - 3, px + pw + 3, py + ph + 3))
            boxes.append((hand[0] - hr - 3, hand[1] - hr - 3, hand[0] + hr + 4, hand[1] + hr + 4))
            if arm.holds:
                img_card, _ = self._sprite(arm.holds, None)
                s = max(8, int(hr * 1.1))
                small = cv2.resize(img_card, (s, int(s * 1.55)))
                x0, y0 = hand[0] - s // 2, hand[1] - int(s * 0.77)
                if 0 <= x0 and 0 <= y0 and x0 + small.shape[1] <= self.width and y0 + small.shape[0] <= self.height:
                    img[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
                    boxes.append((x0, y0, x0 + small.shape[1], y0 + small.shape[0]))
        x0, y0 = max(0, min(b[0] for b in boxes)), max(0, min(b[1] for b in boxes))
        x1 = min(self.width, max(b[2] for b in boxes))
        y1 = min(self.height, max(b[3] for b in boxes))
        return (x0, y0, max(x0, x1), max(y0, y1))

    def _lit(self, seen: np.ndarray) -> np.ndarray:
        """``seen`` under the light, through the lens's blur (a new image)."""
        img = cv2.multiply(seen, self._light_field(), scale=1 / 128)
        return cv2.GaussianBlur(img, (0, 0), self.blur) if self.blur > 0 else img

    def _lit_table(self, seen: np.ndarray) -> np.ndarray:
        """:meth:`_lit` of the table as it lies, kept while the table and the light stay the
        same (every noisy frame of a quiet table and every frame with arms starts from it)."""
        key = (self._seen_key, self.lighting, self.blur)
        if self._lit_quiet is None or self._lit_quiet[0] != key:
            self._lit_quiet = (key, self._lit(seen))
        return self._lit_quiet[1]

    def _lit_with_arms(self, seen: np.ndarray, arms) -> np.ndarray:
        """:meth:`_lit` of ``seen`` with ``arms`` drawn over it, the same pixels, computed only
        where the arms (and the blur around them) change anything: the rest is the quiet table's
        lit frame, kept while the table and the light stay the same."""
        img = seen.copy()
        x0, y0, x1, y1 = self._draw_arms(img, self._view_of(self.pose), arms)
        out = self._lit_table(seen).copy()
        if x1 <= x0 or y1 <= y0:
            return out
        # a blurred pixel depends on the pixels up to the kernel's radius away: the arms change
        # the box grown by one radius, computed from the box grown by two (clipped to the frame,
        # where the blur mirrors the frame's own edge either way)
        r = int(math.ceil(self.blur * 4)) + 2 if self.blur > 0 else 0
        ax0, ay0 = max(0, x0 - r), max(0, y0 - r)
        ax1, ay1 = min(self.width, x1 + r), min(self.height, y1 + r)
        ix0, iy0 = max(0, ax0 - r), max(0, ay0 - r)
        ix1, iy1 = min(self.width, ax1 + r), min(self.height, ay1 + r)
        part = cv2.multiply(img[iy0:iy1, ix0:ix1], self._light_field()[iy0:iy1, ix0:ix1],
                            scale=1 / 128)
        if self.blur > 0:
            part = cv2.GaussianBlur(part, (0, 0), self.blur)
        out[ay0:ay1, ax0:ax1] = part[ay0 - iy0:ay1 - iy0, ax0 - ix0:ax1 - ix0]
        return out

    def render(self, scene: Scene, *, noise_seed: int | None = None) -> np.ndarray:
        """One camera frame (BGR, uint8) of ``scene``."""
        k = (self._frame if noise_seed is None else noise_seed) % max(1, self._noise_frames)
        self._frame += 1
        seen = self._seen_table(scene)
        # a quiet table shows the same frame every few frames (the noise repeats): keep those
        quiet = None if scene.arms else (self._seen_key, self.lighting, self.blur, self.noise, k)
        if quiet is not None and quiet in self._finished:
            return self._finished[quiet].copy()
        if scene.arms:
            img = self._lit_with_arms(seen, scene.arms)
        else:
            img = self._lit_table(seen)  # shared: not to be changed in place
        if self._noise_frames:
            up, down = self._noise(k)
            img = cv2.add(img, up)
            cv2.subtract(img, down, img)
        elif not scene.arms:
            img = img.copy()
        if quiet is not None:
            if len(self._finished) >= max(1, self._noise_frames):
                self._finished.pop(next(iter(self._finished)))
            self._finished[quiet] = img.copy()
        return img

    def _noise(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        return _noise_bank(self.seed, self.width, self.height, self.noise).frame(k)


#: The margin (pixels of the quarter-size shadow) kept round the arms' shadow where it is softened
#: and enlarged: past the blur's reach (sigma 3: a 19-pixel kernel, 9 either side) and the
#: enlarging's (one pixel), so that the piece's own edge changes nothing.
_SHADOW_MARGIN = 12

def shadow_seen(sh: np.ndarray, q: int, width: int, height: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The arms' shadow ``sh`` drawn at 1/``q`` of the picture's size (``width`` x ``height``),
    softened (a Gaussian of sigma 3) and brought to the picture's size: the piece of it outside
    which it is zero, and the piece's top-left pixel. The blur and the enlarging are worked on
    the piece round what was drawn, with a margin wider than either's reach (the same pixels as
    working the whole picture: beyond the margin lie zeros either way, and at the picture's edge
    the piece's edge is the picture's); a picture whose size is no multiple of ``q`` is worked
    whole (the enlarging's steps would differ)."""
    x, y, bw, bh = cv2.boundingRect(sh)
    if bw == 0 or bh == 0 or width % q or height % q:
        whole = cv2.resize(cv2.GaussianBlur(sh, (0, 0), 3), (width, height),
                           interpolation=cv2.INTER_LINEAR)
        return whole, (0, 0)
    m = _SHADOW_MARGIN
    x0, y0 = max(0, x - m), max(0, y - m)
    x1, y1 = min(sh.shape[1], x + bw + m), min(sh.shape[0], y + bh + m)
    piece = cv2.GaussianBlur(sh[y0:y1, x0:x1], (0, 0), 3)
    piece = cv2.resize(piece, ((x1 - x0) * q, (y1 - y0) * q), interpolation=cv2.INTER_LINEAR)
    return piece, (x0 * q, y0 * q)


#: How many of the draw pile's top cards are drawn each with its own offset.
PILE_MESS = 3


def pile_offset(index: int) -> tuple[float, float, float]:
    """How the draw pile's card ``index`` (0: the bottom one) lies off the pile's place: (dx mm,
    dy mm, degrees), the same for a card wherever the pile is drawn. Within 2.5 mm and 5 degrees:
    a pile players draw from is never squared up, so the top card drawn shows another look."""
    rng = np.random.default_rng(index + 7919)
    dx, dy = rng.uniform(-2.5, 2.5, 2)
    return float(dx), float(dy), float(rng.uniform(-5.0, 5.0))


def _copy_of(p: Placement) -> int:
    """Which physical copy of its face a card is: the same card wherever it lies, two cards put
    down in different places usually different copies (stable across runs, unlike ``hash``)."""
    key = f"{p.label}/{p.dx:.3f}/{p.dy:.3f}/{p.angle:.3f}".encode()
    return int.from_bytes(hashlib.blake2s(key, digest_size=4).digest(), "big")


# (8: the tests and benchmarks use up to 6 in one process, 13 MB each at 1280x720)
@lru_cache(maxsize=8)
def _background(L: Layout, mat_px: float, cloth: tuple, markers: bool) -> np.ndarray:
    """The empty table in mat space (cloth, wood around it, the corner markers); read-only."""

    def to_canvas(x: float, y: float) -> tuple[float, float]:
        return ((x + _APRON[0]) * mat_px, (y + _APRON[1]) * mat_px)

    w = int((L.width + 2 * _APRON[0]) * mat_px)
    h = int((L.height + 2 * _APRON[1]) * mat_px)
    rng = np.random.default_rng(12345)
    base = np.empty((h, w, 3), np.float32)
    base[:] = cloth
    # (standard_normal: normal(0, 1)'s draws without its add and multiply)
    texture = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.2) * 9
    base += texture[..., None]
    # the wooden table beyond the cloth
    x0, y0 = to_canvas(-25, -25)
    x1, y1 = to_canvas(L.width + 25, L.height + 25)
    wood = np.ones((h, w), bool)
    wood[int(y0):int(y1), int(x0):int(x1)] = False
    # the grain worked out on the wood's pixels only (the sine of the whole canvas was most of
    # a table's set-up; the same floats pixel for pixel)
    rows, cols = np.nonzero(wood)
    grain = (np.sin(rows / 7.0 + texture[rows, cols] * 0.05) * 10).astype(np.float32)
    base[rows, cols] = np.array((45, 80, 120), np.float32) + grain[:, None]
    if markers:
        for index, marker_id in enumerate(CORNER_IDS):
            sq = L.marker_square(index)
            (mx0, my0), (mx1, _) = to_canvas(*sq[0]), to_canvas(*sq[1])
            px = int(round(mx1 - mx0))
            # the printed square: marker with a white margin around it
            paper = int(px * 1.25)
            o = int(mx0 - (paper - px) / 2), int(my0 - (paper - px) / 2)
            base[o[1]:o[1] + paper, o[0]:o[0] + paper] = 240
            m = marker_image(marker_id, px).astype(np.float32)
            base[int(my0):int(my0) + px, int(mx0):int(mx0) + px] = m[..., None]
    out = np.clip(base, 0, 255).astype(np.uint8)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=32)
def _true_view(pose: CameraPose, L: Layout, width: int, height: int) -> View:
    """Where ``pose`` puts the mat in a ``width`` x ``height`` image."""
    s = pose.fill * height / L.height
    cx = width / 2 + pose.shift[0]
    cy = height / 2 + pose.shift[1]
    a = math.radians(pose.rotate)
    corners = np.array([[0, 0], [L.width, 0], [L.width, L.height], [0, L.height]], np.float64)
    out = []
    for x, y in corners:
        u, v = (x - L.width / 2) * s, (y - L.height / 2) * s
        # the far (north) side a little smaller: the camera leans towards the south
        k = 1.0 + pose.tilt * (v / (L.height * s / 2))
        u *= k
        out.append((cx + u * math.cos(a) - v * math.sin(a), cy + u * math.sin(a) + v * math.cos(a)))
    H = cv2.getPerspectiveTransform(corners.astype(np.float32), np.array(out, np.float32))
    lens = LensModel.simple(width, height, k1=pose.k1) if pose.k1 else None
    return View(H.astype(np.float64), (width, height), lens, "true")


class _NoiseBank:
    """The noise frames of a table seed and size, drawn in order from the seed's generator as they
    are first needed (so the same as drawing them all at once), each rounded and split in what
    it adds and what it takes away: two saturating uint8 operations give the pixels a float add
    would (a pixel gets one or the other), at a third of the cost of adding a float frame."""

    def __init__(self, seed: int, w: int, h: int, noise: float):
        self._rng = np.random.default_rng(seed)
        self._shape = (h, w, 3)
        self._noise = noise
        self._frames: list[tuple[np.ndarray, np.ndarray]] = []

    def frame(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        while len(self._frames) <= k:
            # (standard_normal: the same draws as normal(0, 1), which adds 0 and multiplies by
            # 1 after drawing them, a quarter of the bank's CPU)
            step = self._rng.standard_normal(self._shape).astype(np.float32)
            step *= self._noise
            np.rint(step, out=step)
            # (whole numbers far inside int16: the same pixels as clipping the floats, at a
            # quarter of the CPU)
            whole = step.astype(np.int16)
            up = np.clip(whole, 0, 255).astype(np.uint8)
            np.negative(whole, out=whole)
            self._frames.append((_frozen(up), _frozen(np.clip(whole, 0, 255).astype(np.uint8))))
        return self._frames[k]


@lru_cache(maxsize=4)
def _noise_bank(seed: int, w: int, h: int, noise: float) -> _NoiseBank:
    """One bank per seed and size, shared by every table made with them."""
    return _NoiseBank(seed, w, h, noise)


@lru_cache(maxsize=8)
def _light_field(li: "Lighting", w: int, h: int) -> np.ndarray:
    """The light over the image (uint8, 128 = 1.0): a ramp, a vignette, a tint. Worked out on a
    row and a column and broadcast (the same floats as on the whole grid, a third of the work),
    then tinted one colour plane at a time, in place, and the planes merged (the same floats as
    tinting the interleaved image: a quarter of the CPU, and the light changes every few frames
    where it drifts)."""
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    a = math.radians(li.angle)
    ramp = ((xs - w / 2) * math.cos(a) + (ys - h / 2) * math.sin(a)) / max(w, h)
    vign = 1.0 - 0.18 * (((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2) * 2
    g = li.gain * (1.0 + li.slope * ramp) * vign
    tint = np.array([1.0 - 0.12 * li.tint, 1.0, 1.0 + 0.12 * li.tint], np.float32)
    planes = []
    plane = np.empty_like(g)
    for channel in tint:
        np.multiply(g, channel, out=plane)
        plane *= 128
        np.clip(plane, 0, 255, out=plane)
        planes.append(plane.astype(np.uint8))
    return _frozen(cv2.merge(planes))


@lru_cache(maxsize=8)
def _camera_maps(pose: CameraPose, L: Layout, w: int, h: int, mat_px: float):
    """The pixel maps from the camera image to the flat table (cv2.remap's), for ``pose``."""
    return cv2.convertMaps(*_camera_float_maps(pose, L, w, h, mat_px), cv2.CV_16SC2)


@lru_cache(maxsize=8)
def _camera_float_maps(pose: CameraPose, L: Layout, w: int, h: int, mat_px: float):
    """Where each pixel of the picture looks on the flat table (canvas pixels, x and y maps)."""
    view = _true_view(pose, L, w, h)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xs.ravel(), ys.ravel()], 1)
    mm = view.to_mat(pts)
    mx = ((mm[:, 0] + _APRON[0]) * mat_px).reshape(h, w).astype(np.float32)
    my = ((mm[:, 1] + _APRON[1]) * mat_px).reshape(h, w).astype(np.float32)
    return _frozen(mx), _frozen(my)


#: How far (canvas pixels) past a changed box of the flat table a picture pixel may look and still
#: take something from the box: the bilinear lookup reads the two pixels either side of where it
#: lands, rounded to its fixed-point steps (one pixel past the box at most; three for margin).
_LOOKUP_REACH = 3


def _seen_box(pose: CameraPose, L: Layout, w: int, h: int, mat_px: float,
              box: tuple[int, int, int, int], canvas_shape: tuple[int, int]
              ) -> tuple[int, int, int, int] | None:
    """The box of the picture (x0, y0, x1, y1) outside which no pixel looks into the canvas's
    ``box`` (x0, y0, x1, y1), or None when none does. A box at the canvas's edge also takes the
    pixels that look past that edge (the lookup repeats the edge there)."""
    bx0, by0, bx1, by1 = box
    if bx1 <= bx0 or by1 <= by0:
        return None
    ch, cw = canvas_shape
    mx, my = _camera_float_maps(pose, L, w, h, mat_px)
    r = _LOOKUP_REACH
    lo_x, hi_x = (bx0 - r if bx0 > 0 else -np.inf), (bx1 + r if bx1 < cw else np.inf)
    lo_y, hi_y = (by0 - r if by0 > 0 else -np.inf), (by1 + r if by1 < ch else np.inf)
    hit = (mx >= lo_x) & (mx < hi_x) & (my >= lo_y) & (my < hi_y)
    rows, cols = np.flatnonzero(hit.any(1)), np.flatnonzero(hit.any(0))
    if not len(rows):
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


@lru_cache(maxsize=16)
def _card_mask(w: int, h: int) -> np.ndarray:
    return _frozen(card_mask(w, h, corner=0.07, antialias=True))


@lru_cache(maxsize=512)
def _art_sprite(label: str, face_set: str | None, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """A drawn card face and its mask, ``w`` x ``h`` pixels (the same for every copy)."""
    return _frozen(ArtFaces().card(label, face_set, 0, w, h)), _card_mask(w, h)


def _frozen(image: np.ndarray) -> np.ndarray:
    """``image``, read-only: a shared cache's arrays must never be drawn on."""
    image.flags.writeable = False
    return image
