"""Card faces for the synthetic table: the procedural drawings, or real photographed cards.

The synthetic table (:class:`~simulator.render.SyntheticTable`) asks a face source for the image
of each card it lays down. :class:`ArtFaces` draws them (:func:`vision.card_art.draw_card`):
the referee then only ever sees what our own drawings look like. :class:`RealFaces` cuts each
face out of a real photo of that card, rectified, with the photo's own light kept, so that the
scripted games and the benchmarks show the referee real prints.

Which photos: only the **held-out test split** of the real photos (:func:`vision.data.split_of`),
the photos the committed card model was never trained on, so that a benchmark on real faces is
never scored on cards the model has seen. Each physical copy of a face gets a photo of its own
where there are several (``copy`` picks among them). A face with no usable photo (every Flip dark
face: there are no real photos of the dark side) is drawn as art instead, and the source says so
(:attr:`RealFaces.fallbacks`, and one log line per face).

The photos are never copied into the project: they are read from the data folder
(``../shared/data`` or ``$UNO_DATA``; :class:`vision.data.DataMissing` when it is absent), and the
rectified crops are cached outside the repository (``$XDG_CACHE_HOME/uno-companion/real-faces``).

>>> ArtFaces().card("red-7", None, 0, 40, 62).shape
(62, 40, 3)
>>> faces_named("art").name
'art'
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import threading
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

__all__ = ["ArtFaces", "RealFaces", "faces_named", "FACE_SOURCES"]

log = logging.getLogger(__name__)

#: Photo folders never used as faces: close-ups that fill the frame (no whole card to cut out),
#: and a non-standard print (a round centre) no table is likely to use.
EXCLUDED_SOURCES = ("classic_more/black_surface_phone", "classic_more/round_print")

#: The names ``--faces`` takes.
FACE_SOURCES = ("art", "real")

#: A crop must show this much of a card's light border on each of its four sides (share of the
#: side's pixels that are light) to serve as a face; less is a monitor, a hand or a close-up.
MIN_BORDER_SHARE = 0.4
#: ... and this much of its label's colour (a coloured card; wilds are exempt): less is a whole
#: photo of a small card in a hand, or a wall.
MIN_COLOUR_SHARE = 0.25


class ArtFaces:
    """The procedural drawings of :mod:`vision.card_art` (every face of all three sets)."""

    name = "art"
    #: every copy of a face looks the same (the renderer caches one image a face)
    varies_by_copy = False

    def card(self, label: str, face_set: str | None, copy: int, width: int, height: int) -> np.ndarray:
        from vision.card_art import draw_card

        return draw_card(label, width, height, face_set=face_set)


class RealFaces:
    """Faces cut out of the real photos of the held-out split (see the module docs).

    ``root`` is the data folder (default: :func:`vision.data.require_data`); ``cache`` the folder
    for the rectified crops. Crops are made the first time a face is asked for.
    """

    name = "real"
    varies_by_copy = True

    def __init__(self, root: Path | None = None, cache: Path | None = None, split: str = "test"):
        from vision.data import load_photos, require_data

        self.root = root or require_data()
        self.cache = cache or _cache_dir()
        self.split = split
        self._photos: dict[str, list] = {}
        for p in load_photos(self.root):
            if p.split == split and not p.label.startswith("*") and p.source not in EXCLUDED_SOURCES:
                self._photos.setdefault(p.label, []).append(p)
        for photos in self._photos.values():
            photos.sort(key=lambda p: p.rel)
        self._crops: dict[str, list[np.ndarray]] = {}
        self._lock = threading.Lock()
        self._art = ArtFaces()
        self._card_reader = None
        #: Faces drawn as art for want of a photo (each logged once).
        self.fallbacks: set[str] = set()

    def labels(self) -> list[str]:
        """The faces that have at least one held-out photo."""
        return sorted(self._photos)

    def crops(self, label: str) -> list[np.ndarray]:
        """The usable rectified crops of ``label`` (portrait BGR, 128 x 192), cached."""
        with self._lock:
            if label not in self._crops:
                self._crops[label] = [c for p in self._photos.get(label, ())
                                      if (c := self._crop(p)) is not None]
            return self._crops[label]

    def card(self, label: str, face_set: str | None, copy: int, width: int, height: int) -> np.ndarray:
        found = self.crops(label) if face_set in (None, "classic", "light") else []
        if not found:
            if label not in self.fallbacks:
                self.fallbacks.add(label)
                log.warning("no real photo of %s (%s faces): drawn as art", label, face_set or "any")
            return self._art.card(label, face_set, copy, width, height)
        crop = found[copy % len(found)]
        return cv2.resize(crop, (width, height), interpolation=cv2.INTER_AREA)

    def _reader(self):
        if self._card_reader is None:
            from vision.recognize import CardReader

            self._card_reader = CardReader()
        return self._card_reader

    def _crop(self, photo) -> np.ndarray | None:
        key = hashlib.sha256(photo.rel.encode()).hexdigest()[:20]
        path = self.cache / f"{key}.png"
        meta = self.cache / f"{key}.json"
        if meta.is_file():
            return _cached(path, meta)
        self.cache.mkdir(parents=True, exist_ok=True)
        # one process cuts each photo out; the others (a benchmark's workers, the test
        # workers) wait for it and read its crop: each made them all again at once, a photo's
        # model passes several times over, and one could read a crop half written
        with _locked(self.cache / f"{key}.lock"):
            if meta.is_file():
                return _cached(path, meta)
            crop = _rectified(photo, self._reader())
            usable = crop is not None and _looks_like_a_card(crop, photo.label)
            if usable:
                _write_whole(path, cv2.imencode(".png", crop)[1].tobytes())
            _write_whole(meta, json.dumps({"photo": photo.rel, "label": photo.label,
                                           "usable": usable}).encode())
        return crop if usable else None


def _cached(path: Path, meta: Path) -> np.ndarray | None:
    """A photo's crop as cached (None: the photo has no usable card)."""
    if json.loads(meta.read_text()).get("usable") and path.is_file():
        return cv2.imread(str(path))
    return None


@contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on ``path`` across processes (``flock``: released by the system
    if the holder dies; the standard library's, where a lock-file package would add a
    dependency for these few lines)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``path`` so that no reader ever sees it half written (a new file renamed over)."""
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    part.write_bytes(data)
    os.replace(part, path)


def faces_named(name: str, **kwargs) -> ArtFaces | RealFaces:
    """The face source ``--faces NAME`` means (``art`` or ``real``)."""
    if name == "art":
        return ArtFaces()
    if name == "real":
        return RealFaces(**kwargs)
    raise ValueError(f"unknown face source {name!r}: expected one of {', '.join(FACE_SOURCES)}")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "uno-companion" / "real-faces"


def _rectified(photo, reader) -> np.ndarray | None:
    """The photo's card, upright portrait 128 x 192: a rectified crop as it is, else the outline
    the card model reads as the photo's label most surely, on a light border and whole
    (:func:`vision.train.sources.best_quad`; the colour heuristic alone took the white oval of a
    card on a white wall for the card)."""
    from vision.detect import rectify
    from vision.train.sources import best_quad

    image = cv2.imread(str(photo.path))
    if image is None:
        return None
    if photo.is_crop:
        if image.shape[1] > image.shape[0]:
            image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        return cv2.resize(image, (128, 192), interpolation=cv2.INTER_AREA)
    quad = best_quad(image, photo.label, reader, photo.reader_deck)
    if quad is None or _cut_by_the_frame(np.asarray(quad, np.float64), image.shape):
        return None
    return rectify(image, quad, (128, 192))


def _cut_by_the_frame(quad: np.ndarray, shape) -> bool:
    """The outline touches the photo's edge or fills most of it: a close-up or a card the frame
    cuts, not a whole card to lay on a table."""
    h, w = shape[:2]
    m = 0.01 * max(w, h)
    touches = (quad[:, 0] < m).any() or (quad[:, 1] < m).any() or \
        (quad[:, 0] > w - m).any() or (quad[:, 1] > h - m).any()
    return bool(touches) or cv2.contourArea(quad.astype(np.float32)) > 0.5 * w * h


def _looks_like_a_card(card: np.ndarray, label: str) -> bool:
    """A whole card fills the crop: a light border on all four sides, its colour inside."""
    from vision.train.sources import _colour_share, _label_colour

    if min(_border_shares(card)) < MIN_BORDER_SHARE:
        return False
    colour = _label_colour(label)
    return colour is None or _colour_share(card, colour) >= MIN_COLOUR_SHARE


def _border_shares(card: np.ndarray) -> list[float]:
    """Per side, the share of the card's outer band that is light and unsaturated (a card's
    white border), less the share just inside it that is still light: a whole card's coloured
    field starts right there, a close-up's white oval or a wall does not."""
    hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)
    light = (hsv[..., 2] > 110) & (hsv[..., 1] < 90)
    b = max(2, int(round(card.shape[1] * 0.05)))
    outer = [light[:b], light[-b:], light[:, :b], light[:, -b:]]
    inner = [light[2 * b:4 * b, 2 * b:-2 * b], light[-4 * b:-2 * b, 2 * b:-2 * b],
             light[2 * b:-2 * b, 2 * b:4 * b], light[2 * b:-2 * b, -4 * b:-2 * b]]
    return [float(o.mean()) - 0.5 * float(i.mean()) for o, i in zip(outer, inner)]
