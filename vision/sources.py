"""Frame sources: the Pi camera, an OpenCV capture (USB webcam or video file), a folder of
images (and, through the simulator, the synthetic table). All give :class:`Frame` values (BGR image, time, index).

Chosen by a spec string (``camera.source`` in the configuration, ``--source`` on the command
line)::

    auto                   the Pi camera where there is one, else the synthetic table (when given)
    picamera               the Raspberry Pi camera (picamera2, imported only here)
    opencv:0               a USB webcam by index
    opencv:/path/game.mp4  a video file (its own timestamps, or a ``.times`` file from ``record``)
    folder:/path/images    every image of a folder, in name order
    synthetic              the synthetic table (a scripted demo game; :mod:`simulator.source`
                           lends it, this module knows only real frames)

A camera that fails never crashes the table: :class:`ResilientSource` publishes ``camera``
{status: "lost", reason} on the bus after a few failed reads in a row, retries with a growing
pause, and publishes ``camera`` {status: "ok"} after a few good frames in a row; a video that
ends says ``camera`` {status: "ended"}.

>>> open_source("webcam:3")
Traceback (most recent call last):
...
ValueError: unknown camera source 'webcam:3': expected auto, picamera, opencv:N, opencv:PATH, folder:PATH or synthetic
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

__all__ = ["Frame", "FrameSource", "PiCameraSource", "OpenCVSource", "FolderSource",
           "ResilientSource", "CameraLost", "open_source", "pi_camera_present",
           "read_times"]

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


class CameraLost(RuntimeError):
    """The camera stopped giving frames (unplugged, driver error, file ended unexpectedly)."""


@dataclass(frozen=True)
class Frame:
    """One frame: a BGR image, its time (seconds, the source's clock) and its index."""

    image: np.ndarray
    time: float
    index: int


class FrameSource:
    """Base of all sources: iterate for frames; ``close()`` releases the device."""

    name = "source"
    #: True when the source ends (a file, a folder, a script); a camera never ends.
    finite = False

    def read(self) -> Frame | None:
        """The next frame; None when a finite source has ended. Raises CameraLost."""
        raise NotImplementedError

    @property
    def position(self) -> int | None:
        """The index of the next frame of a finite source; None for a live camera."""
        return None

    def seek(self, index: int) -> None:
        """Go on from frame ``index`` (a finite source opened again); a live camera ignores it."""

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported here only: nothing else needs it).

    Frames are ``RGB888``, which numpy sees in OpenCV's BGR order. Once the automatic white
    balance and exposure have settled (``settle_s``), they are fixed so that the cards' colours
    do not wander with what lies on the table.
    """

    name = "picamera"

    def __init__(self, width: int = 1280, height: int = 720, fps: int = 15, settle_s: float = 2.0):
        try:
            from picamera2 import Picamera2  # noqa: PLC0415 - only on the Pi
        except ImportError as exc:
            raise CameraLost("picamera2 is not installed: no Pi camera here") from exc
        try:
            self.cam = Picamera2()
            config = self.cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"},
                buffer_count=3,  # frames are copied out at once: 3, not 6 (2.6 MB each at 720p)
                controls={"FrameRate": fps})
            self.cam.configure(config)
            self.cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise CameraLost(f"the Pi camera did not start: {exc}") from exc
        self._index = 0
        self._settle_until = time.monotonic() + settle_s
        self._locked = False

    def _lock_exposure(self) -> None:
        metadata = self.cam.capture_metadata()
        controls = {"AwbEnable": False, "AeEnable": False}
        if "ColourGains" in metadata:
            controls["ColourGains"] = metadata["ColourGains"]
        if "ExposureTime" in metadata:
            controls["ExposureTime"] = metadata["ExposureTime"]
        if "AnalogueGain" in metadata:
            controls["AnalogueGain"] = metadata["AnalogueGain"]
        self.cam.set_controls(controls)
        self._locked = True

    def read(self) -> Frame | None:
        try:
            if not self._locked and time.monotonic() > self._settle_until:
                self._lock_exposure()
            image = self.cam.capture_array("main")
        except Exception as exc:  # noqa: BLE001
            raise CameraLost(f"the Pi camera stopped: {exc}") from exc
        self._index += 1
        return Frame(np.ascontiguousarray(image[..., :3]), time.monotonic(), self._index - 1)

    def close(self) -> None:
        try:
            self.cam.stop()
            self.cam.close()
        except Exception:  # noqa: BLE001
            pass


def read_times(video: str | Path) -> list[float] | None:
    """The per-frame timestamps ``companion record`` wrote beside a video (``NAME.times``)."""
    path = Path(str(video) + ".times")
    if not path.is_file():
        path = Path(video).with_suffix(".times")
    if not path.is_file():
        return None
    return [float(line) for line in path.read_text().split() if line.strip()]


class OpenCVSource(FrameSource):
    """A USB webcam (``device`` an int) or a video file (a path) through ``cv2.VideoCapture``."""

    name = "opencv"

    def __init__(self, device: int | str = 0, width: int | None = None, height: int | None = None,
                 fps: int | None = None, clock: Callable[[], float] = time.monotonic):
        self.device = device
        self.finite = not isinstance(device, int)
        self.clock = clock
        self.cap = cv2.VideoCapture(device)
        if not self.cap.isOpened():
            raise CameraLost(f"cannot open {'camera' if not self.finite else 'video'} {device!r}")
        if not self.finite:
            if width:
                self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            if height:
                self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            if fps:
                self.cap.set(cv2.CAP_PROP_FPS, fps)
        self._times = read_times(device) if self.finite else None
        self._fps = self.cap.get(cv2.CAP_PROP_FPS) or 30.0
        self._index = 0

    def read(self) -> Frame | None:
        ok, image = self.cap.read()
        if not ok or image is None:
            if self.finite:
                return None
            raise CameraLost(f"camera {self.device!r} gave no frame")
        i = self._index
        self._index += 1
        if self.finite:
            t = self._times[i] if self._times and i < len(self._times) else i / self._fps
        else:
            t = self.clock()
        return Frame(image, t, i)

    @property
    def position(self) -> int | None:
        return self._index if self.finite else None

    def seek(self, index: int) -> None:
        if self.finite and index > 0:
            self.cap.set(cv2.CAP_PROP_POS_FRAMES, index)
            self._index = index

    def close(self) -> None:
        self.cap.release()


class FolderSource(FrameSource):
    """Every image in a folder, in name order, ``fps`` apart in time (a still table: ``repeat``)."""

    name = "folder"
    finite = True

    def __init__(self, folder: str | Path, fps: float = 15.0, repeat: int = 1):
        self.paths = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise CameraLost(f"no images in {folder}")
        self.fps = fps
        self.repeat = max(1, repeat)
        self._index = 0

    def read(self) -> Frame | None:
        i = self._index
        if i >= len(self.paths) * self.repeat:
            return None
        self._index += 1
        image = cv2.imread(str(self.paths[i // self.repeat]), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraLost(f"cannot read {self.paths[i // self.repeat]}")
        return Frame(image, i / self.fps, i)

    @property
    def position(self) -> int:
        return self._index

    def seek(self, index: int) -> None:
        self._index = max(0, index)


class ResilientSource(FrameSource):
    """Wraps a source that may fail; never raises, and tells the table what it sees.

    * Any error of the source is a failed read: :class:`CameraLost`, an OpenCV error, an
      ``OSError``, whatever a driver raises. The source is closed and opened again
      (``open_fn``) after a pause that doubles with each failure in a row, from ``retry_s`` up
      to ``max_retry_s``.
    * Hysteresis: ``camera`` {status: "lost", reason} is published (and logged, once, without a
      traceback) only after ``lost_after`` failed reads in a row, and {status: "ok"} only after
      ``ok_after`` good frames in a row, so that a source failing now and then never flaps.
    * A finite source that ends (a video, a folder) publishes ``camera`` {status: "ended"} once
      and reads None from then on.
    * A source opened again resumes where the last one stopped when it can (:meth:`FrameSource.seek`:
      a folder, a video file), so a reopened folder does not start over at its first image.
    """

    name = "resilient"

    def __init__(self, open_fn: Callable[[], FrameSource], bus=None, *, retry_s: float = 1.0,
                 max_retry_s: float = 15.0, lost_after: int = 3, ok_after: int = 5,
                 sleep: Callable[[float], None] = time.sleep,
                 stop: Callable[[], bool] = lambda: False):
        self.open_fn = open_fn
        self.bus = bus
        self.retry_s = retry_s
        self.max_retry_s = max_retry_s
        self.lost_after = max(1, lost_after)
        self.ok_after = max(1, ok_after)
        self.sleep = sleep
        self.stop = stop
        self.source: FrameSource | None = None
        #: ok, lost or ended: what the table was last told
        self.status = "ok"
        #: failed reads in a row, and good frames in a row since the camera was lost
        self.failures = 0
        self.good = 0
        self.reason: str | None = None
        self._resume_at: int | None = None

    @property
    def lost(self) -> bool:
        return self.status == "lost"

    def _publish(self, status: str, **data) -> None:
        self.status = status
        if self.bus is not None:
            self.bus.publish("camera", status=status, **data)

    def read(self) -> Frame | None:
        while self.status != "ended" and not self.stop():
            try:
                if self.source is None:
                    self.source = self._open()
                frame = self.source.read()
            except Exception as exc:  # noqa: BLE001 - every driver fails in its own words
                self._failed(exc)
                continue
            if frame is None:
                self._ended()
                return None
            self._good()
            return frame
        return None

    def _open(self) -> FrameSource:
        source = self.open_fn()
        if self._resume_at is not None:
            source.seek(self._resume_at)
        return source

    def _failed(self, exc: Exception) -> None:
        self.reason = str(exc) if isinstance(exc, CameraLost) else f"{type(exc).__name__}: {exc}"
        self.failures += 1
        self.good = 0
        if self.source is not None:
            position = self.source.position
            if position is not None:
                self._resume_at = position
            self._close_quietly()
        if self.status == "ok" and self.failures >= self.lost_after:
            log.warning("camera lost: %s", self.reason)
            self._publish("lost", reason=self.reason)
        else:
            log.debug("camera read failed (%d in a row): %s", self.failures, self.reason)
        self.sleep(min(self.max_retry_s, self.retry_s * 2 ** min(self.failures - 1, 16)))

    def _good(self) -> None:
        self.failures = 0
        if self.status == "lost":
            self.good += 1
            if self.good >= self.ok_after:
                self.good = 0
                log.warning("camera back: %s", self.source.name)
                self._publish("ok", source=self.source.name)

    def _ended(self) -> None:
        name = self.source.name if self.source is not None else self.name
        reason = {"opencv": "the video ended", "folder": "the last image was read"}.get(
            name, f"the {name} source has no more frames")
        log.warning("camera: %s; nothing more to see", reason)
        self._publish("ended", source=name, reason=reason)

    def _close_quietly(self) -> None:
        source, self.source = self.source, None
        try:
            source.close()
        except Exception:  # noqa: BLE001 - a broken device may fail to close too
            log.debug("closing the failed camera source failed", exc_info=True)

    def close(self) -> None:
        if self.source is not None:
            self._close_quietly()


def pi_camera_present() -> bool:
    """A Pi camera is connected (libcamera lists it) and picamera2 can be imported."""
    try:
        import importlib.util
        if importlib.util.find_spec("picamera2") is None:
            return False
    except (ImportError, ValueError):
        return False
    return any(Path("/dev").glob("media*")) and os.path.exists("/proc/device-tree/model")


def open_source(spec: str = "auto", *, width: int = 1280, height: int = 720, fps: int = 15,
                synthetic: Callable[[], FrameSource] | None = None) -> FrameSource:
    """The source a spec string names (see the module docs).

    ``synthetic`` opens the synthetic table (the simulator passes it, see
    :func:`simulator.source.open_source`); without it ``synthetic`` and an ``auto`` with no Pi
    camera are refused."""
    kind, _, arg = spec.partition(":")
    if kind == "auto":
        if pi_camera_present():
            return PiCameraSource(width, height, fps)
        if synthetic is None:
            raise CameraLost("no Pi camera found, and no synthetic table to fall back to")
        return synthetic()
    if kind == "picamera":
        return PiCameraSource(width, height, fps)
    if kind == "opencv":
        device: int | str = int(arg) if arg.isdigit() else (arg or 0)
        return OpenCVSource(device, width, height, fps)
    if kind == "folder":
        return FolderSource(arg, fps=fps)
    if kind == "synthetic" and synthetic is not None:
        return synthetic()
    raise ValueError(f"unknown camera source {spec!r}: expected auto, picamera, opencv:N, "
                     "opencv:PATH, folder:PATH or synthetic")
