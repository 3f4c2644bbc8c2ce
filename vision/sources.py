"""Frame sources: the Pi camera, an OpenCV capture (USB webcam or video file), a folder of
images (and, through the simulator, the synthetic table). All give :class:`Frame` values (BGR image, time, index).

Chosen by a spec string (``camera.source`` in the configuration, ``--camera`` on the command
line)::

    auto                   the Pi camera; refused (CameraLost) where there is none
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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

__all__ = ["Frame", "FrameSource", "PiCameraSource", "OpenCVSource", "FolderSource",
           "ResilientSource", "CameraLost", "camera_fault", "camera_lost", "choose_sensor_mode",
           "camera_controls_for", "locked_exposure", "open_source", "pi_camera_present",
           "pi_cameras", "read_times", "still_size_for"]

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


class CameraLost(RuntimeError):
    """The camera stopped giving frames (unplugged, driver error, file ended unexpectedly).

    ``cause`` says what the table should hear: ``missing`` (no camera found), ``busy`` (another
    program holds it), ``hung`` (no frame within the read timeout), ``error`` (anything else).
    """

    def __init__(self, message: str, cause: str = "error"):
        super().__init__(message)
        self.cause = cause


#: What libcamera and picamera2 say, in their own words, for each cause (lower case).
_FAULT_WORDS = (
    ("busy", ("device or resource busy", "resource busy", "in use", "ebusy", "failed to acquire")),
    ("missing", ("camera(s) not found", "no camera", "list index out of range", "not detected",
                 "failed to initialize camera", "picamera2 is not installed")),
)


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    """``exc`` and every exception behind it (``__cause__`` and ``__context__``), once each."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def camera_fault(exc: BaseException) -> tuple[str, str]:
    """``(cause, words)`` for a camera error: the cause (see :class:`CameraLost`) and the
    message that says it, found anywhere in the exception's chain.

    picamera2 hides the real reason: a busy camera raises "Camera __init__ sequence did not
    complete" with libcamera's "Failed to acquire camera: Device or resource busy" behind it.

    >>> try:
    ...     try:
    ...         raise RuntimeError("Failed to acquire camera: Device or resource busy")
    ...     except RuntimeError:
    ...         raise RuntimeError("Camera __init__ sequence did not complete.")
    ... except RuntimeError as exc:
    ...     camera_fault(exc)
    ('busy', 'Failed to acquire camera: Device or resource busy')
    >>> camera_fault(IndexError("list index out of range"))
    ('missing', 'list index out of range')
    """
    chain = list(_chain(exc))
    for link in chain:
        if isinstance(link, CameraLost) and link.cause != "error":
            return link.cause, str(link)
    for cause, words in _FAULT_WORDS:
        for link in chain:
            text = str(link).lower()
            if any(w in text for w in words) or (cause == "busy" and getattr(link, "errno", None) == 16):
                return cause, str(link)
    for link in chain:
        if isinstance(link, TimeoutError):
            return "hung", str(link) or "timed out"
    return "error", f"{type(chain[-1]).__name__}: {chain[-1]}" if str(chain[-1]) else type(chain[-1]).__name__


def camera_lost(what: str, exc: BaseException) -> CameraLost:
    """A :class:`CameraLost` for ``exc`` that names its real cause: ``what: the cause's words``."""
    cause, words = camera_fault(exc)
    said = {"busy": f"the camera is busy: another program holds it ({words})",
            "missing": f"no camera found ({words})",
            "hung": f"the camera gave no frame in time: it hangs ({words})"}.get(cause, words)
    return CameraLost(f"{what}: {said}", cause)


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

    def still(self) -> Frame | None:
        """The sharpest picture the source can take now, for reading small print (the hands
        laid open at a round's end, :class:`app.hand_scan.HandScanner`): a camera takes it at its
        sensor's full resolution, with the same field of view as its frames (a view found on
        the frames fits it once scaled, :meth:`vision.geometry.View.scaled_to`). By default the
        next frame; None where the source takes none (the frame in hand is read). Raises as
        :meth:`read` does."""
        return self.read()

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


def choose_sensor_mode(modes: list[dict], output: tuple[int, int], fps: float,
                       want: str = "full") -> dict | None:
    """The sensor mode (one of picamera2's ``sensor_modes``) to run the camera in.

    ``full``: of the modes that see the sensor's whole area (the largest ``crop_limits``), the
    smallest that is at least ``output`` and at least ``fps`` fast; else the fastest of them.
    Without it, picamera2 picks the mode nearest the output size, which on the Camera Module 3
    (1536x864 for a 1280x720 picture) and the v2 (1920x1080) is a centre crop: the picture then
    covers a third less of the table. ``auto``: None (leave it to picamera2). ``WxH``: that mode.

    >>> modes = [{"size": (1536, 864), "bit_depth": 10, "fps": 120.1, "crop_limits": (768, 432, 3072, 1728)},
    ...          {"size": (2304, 1296), "bit_depth": 10, "fps": 56.0, "crop_limits": (0, 0, 4608, 2592)},
    ...          {"size": (4608, 2592), "bit_depth": 10, "fps": 14.3, "crop_limits": (0, 0, 4608, 2592)}]
    >>> choose_sensor_mode(modes, (1280, 720), 15)["size"]
    (2304, 1296)
    >>> choose_sensor_mode(modes, (1280, 720), 15, "4608x2592")["size"]
    (4608, 2592)
    >>> choose_sensor_mode(modes, (1280, 720), 15, "auto") is None
    True
    """
    raw = [m for m in modes if "size" in m]
    if want == "auto" or not raw:
        return None
    if want != "full":
        size = tuple(int(v) for v in want.lower().split("x"))
        for mode in raw:
            if tuple(mode["size"]) == size:
                return mode
        listed = ", ".join(f"{m['size'][0]}x{m['size'][1]}" for m in raw)
        raise CameraLost(f"the camera has no sensor mode {want} (it has {listed}): set [camera] "
                         "sensor_mode to one of them, or to full")

    def area(mode):
        crop = mode.get("crop_limits") or (0, 0, *mode["size"])
        return crop[2] * crop[3]
    widest = max(area(m) for m in raw)
    full = [m for m in raw if area(m) == widest]
    big_enough = [m for m in full if m["size"][0] >= output[0] and m["size"][1] >= output[1]
                  and m.get("fps", fps) >= fps]
    if big_enough:
        return min(big_enough, key=lambda m: (m["size"][0] * m["size"][1], -m.get("bit_depth", 0)))
    return max(full, key=lambda m: (m.get("fps", 0), m["size"][0] * m["size"][1]))


#: libcamera's AfModeEnum (Manual, Auto) and AeFlickerModeEnum (Manual) as numbers.
AF_MANUAL, AF_AUTO, FLICKER_MANUAL = 0, 1, 1


def still_size_for(modes: list[dict], frame_size: tuple[int, int]) -> tuple[int, int]:
    """The size of a still that sees what frames of ``frame_size`` see: the widest sensor
    mode's width, at the frames' aspect ratio (even sizes, as the ISP wants).

    >>> still_size_for([{"size": (2304, 1296)}, {"size": (4608, 2592)}], (1280, 720))
    (4608, 2592)
    >>> still_size_for([{"size": (3280, 2464)}], (1280, 720))   # a 4:3 sensor, 16:9 frames
    (3280, 1844)
    """
    width = max((int(m["size"][0]) for m in modes), default=frame_size[0])
    width = max(width, frame_size[0]) // 2 * 2
    height = int(round(width * frame_size[1] / frame_size[0] / 2)) * 2
    return width, height


def flicker_period_us(mains_hz: int) -> int | None:
    """The flicker period of lamps on ``mains_hz`` mains, in microseconds (they flicker at twice
    the mains frequency); None for 0 (no flicker handling).

    >>> flicker_period_us(50), flicker_period_us(60), flicker_period_us(0)
    (10000, 8333, None)
    """
    return int(1_000_000 / (2 * mains_hz)) if mains_hz else None


def camera_controls_for(available: dict, *, fps: int, height_cm: int = 0, focus: str = "manual",
                        mains_hz: int = 0) -> dict:
    """The controls the camera starts with, only those it has (``available`` is picamera2's
    ``camera_controls``: name -> (min, max, default)).

    Focus: a camera with a lens control (``AfMode``, ``LensPosition``: the Camera Module 3)
    starts in manual focus at ``height_cm`` (LensPosition is in dioptres, 1 / metres), or in
    ``Auto`` for one autofocus cycle (``focus = "once"``); never continuous, which hunts
    whenever a hand passes. Flicker: ``AeFlickerMode`` manual with the lamps' period.

    >>> imx708 = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 32.0, 1.0),
    ...           "AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1000000, 10000)}
    >>> camera_controls_for(imx708, fps=15, height_cm=88, mains_hz=50)
    {'FrameRate': 15, 'AfMode': 0, 'LensPosition': 1.136, 'AeFlickerMode': 1, 'AeFlickerPeriod': 10000}
    >>> camera_controls_for({"ExposureTime": (1, 66666, 20000)}, fps=15, height_cm=88, mains_hz=50)
    {'FrameRate': 15}
    """
    controls: dict = {"FrameRate": fps}  # picamera2's own: it sets FrameDurationLimits from it
    if "AfMode" in available:
        if focus == "once":
            controls["AfMode"] = AF_AUTO
        elif height_cm and "LensPosition" in available:
            low, high, _ = available["LensPosition"]
            dioptres = 100.0 / height_cm
            controls["AfMode"] = AF_MANUAL
            controls["LensPosition"] = round(min(max(dioptres, low or 0.0), high or dioptres), 3)
    period = flicker_period_us(mains_hz)
    if period and "AeFlickerMode" in available and "AeFlickerPeriod" in available:
        controls["AeFlickerMode"] = FLICKER_MANUAL
        controls["AeFlickerPeriod"] = period
    return controls


def locked_exposure(metadata: dict, available: dict, mains_hz: int = 0) -> dict:
    """The controls that hold the exposure and white balance the camera settled on.

    Only controls the camera has: a mono sensor has no ``AwbEnable`` (setting it fails, and
    reopening would fail again, for ever). With ``mains_hz`` the exposure time is rounded to a
    whole number of the lamps' flicker periods (the gain makes up the difference), so that a
    fixed exposure neither bands nor pulses.

    >>> controls = {"AeEnable": (False, True, True), "AwbEnable": (False, True, True),
    ...             "ExposureTime": (1, 66666, 20000), "AnalogueGain": (1.0, 16.0, 1.0),
    ...             "ColourGains": (0.0, 32.0, None)}
    >>> locked_exposure({"ExposureTime": 23000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)},
    ...                 controls, 50)
    {'AeEnable': False, 'ExposureTime': 20000, 'AnalogueGain': 2.3, 'AwbEnable': False, 'ColourGains': (1.8, 1.5)}
    >>> locked_exposure({"ExposureTime": 23000, "AnalogueGain": 2.0}, {"AeEnable": (False, True, True),
    ...                 "ExposureTime": (1, 66666, 20000), "AnalogueGain": (1.0, 16.0, 1.0)})
    {'AeEnable': False, 'ExposureTime': 23000, 'AnalogueGain': 2.0}
    """
    controls: dict = {}
    if "AeEnable" in available:
        controls["AeEnable"] = False
        exposure, gain = metadata.get("ExposureTime"), metadata.get("AnalogueGain")
        period = flicker_period_us(mains_hz)
        if exposure and gain and period and exposure >= period:
            rounded = period * max(1, round(exposure / period))
            low, high, _ = available.get("AnalogueGain", (None, None, None))
            gain = gain * exposure / rounded
            gain = min(max(gain, low or gain), high or gain)
            exposure = rounded
        if exposure and "ExposureTime" in available:
            controls["ExposureTime"] = int(exposure)
        if gain and "AnalogueGain" in available:
            controls["AnalogueGain"] = round(float(gain), 3)
    if "AwbEnable" in available:
        controls["AwbEnable"] = False
        if "ColourGains" in metadata and "ColourGains" in available:
            controls["ColourGains"] = tuple(metadata["ColourGains"])
    return controls


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported here only: nothing else needs it).

    Frames are ``RGB888``, which numpy sees in OpenCV's BGR order. The camera runs in the sensor
    mode that shows its whole field of view (:func:`choose_sensor_mode`), focused on the mat and
    with the lamps' flicker period (:func:`camera_controls_for`). Once the automatic white
    balance and exposure have settled (``settle_s``), they are fixed (:func:`locked_exposure`)
    so that the cards' colours do not wander with what lies on the table; :meth:`relock` lets
    them settle again (a new layout is read: the companion calls it at each new match).

    Every read waits at most ``read_timeout_s`` for a frame: a camera that hangs (a loose
    ribbon, a weak supply) is :class:`CameraLost` with cause ``hung``, never a frozen table. A
    start that fails closes what was opened (else the camera stays "busy" until the process
    ends) and says the real cause (:func:`camera_fault`).
    """

    name = "picamera"

    def __init__(self, width: int = 1280, height: int = 720, fps: int = 15, settle_s: float = 2.0,
                 *, sensor_mode: str = "full", height_cm: int = 0, focus: str = "manual",
                 mains_hz: int = 0, read_timeout_s: float = 3.0, still_timeout_s: float = 6.0,
                 still: str = "full", clock: Callable[[], float] = time.monotonic):
        try:
            from picamera2 import Picamera2  # only on the Pi
        except ImportError as exc:
            raise CameraLost("picamera2 is not installed: no Pi camera here", "missing") from exc
        self.cam = None
        self.clock = clock
        self.settle_s = settle_s
        self.mains_hz = mains_hz
        self.read_timeout_s = read_timeout_s
        self.mode: dict | None = None
        try:
            if not Picamera2.global_camera_info():
                raise CameraLost("no camera found: libcamera lists none", "missing")
            self.cam = Picamera2()
            self.available = dict(self.cam.camera_controls)
            self.mode = choose_sensor_mode(self.cam.sensor_modes, (width, height), fps, sensor_mode)
            sensor = ({"output_size": tuple(self.mode["size"]), "bit_depth": self.mode["bit_depth"]}
                      if self.mode is not None else {})
            self.controls = camera_controls_for(self.available, fps=fps, height_cm=height_cm,
                                                focus=focus, mains_hz=mains_hz)
            config = self.cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"}, sensor=sensor,
                buffer_count=3,  # frames are copied out at once: 3, not 6 (2.6 MB each at 720p)
                controls=self.controls)
            self.cam.configure(config)
            self.cam.start()
            if self.controls.get("AfMode") == AF_AUTO:
                self.cam.autofocus_cycle()  # once: the lens then stays where it found the mat
        except Exception as exc:  # libcamera raises many kinds
            self._close_camera()
            if isinstance(exc, CameraLost) and exc.cause == "missing":
                raise
            raise camera_lost("the Pi camera did not start", exc) from exc
        self._index = 0
        self._settle_until = clock() + settle_s
        self._locked = False
        self._relock = False
        self._locked_controls: dict = {}
        #: the size of :meth:`still`: the sensor's full width, at the frames' aspect ratio (the
        #: ISP crops both alike, so the still sees what the frames see); None: stills are off
        self.still_size = still_size_for(self.cam.sensor_modes, (width, height)) if still == "full" else None
        self.still_timeout_s = still_timeout_s

    def relock(self) -> None:
        """Let exposure and white balance settle again, then fix them anew (at the next reads;
        safe to call from another thread)."""
        self._relock = True

    def _wait(self, job, timeout: float | None = None, what: str = "frame"):
        timeout = self.read_timeout_s if timeout is None else timeout
        try:
            return self.cam.wait(job, timeout=timeout)
        except TimeoutError as exc:
            raise CameraLost(f"the Pi camera gave no {what} in {timeout:g} s: it hangs "
                             "(a loose ribbon cable or a weak power supply?)", "hung") from exc

    def _lock_exposure(self) -> None:
        metadata = self._wait(self.cam.capture_metadata(wait=False))
        controls = locked_exposure(metadata, self.available, self.mains_hz)
        if controls:
            self.cam.set_controls(controls)
        self._locked_controls = controls
        self._locked = True

    def _unlock_exposure(self) -> None:
        self._relock = False
        controls = {name: True for name in ("AeEnable", "AwbEnable") if name in self.available}
        if controls:
            self.cam.set_controls(controls)
        self._locked = False
        self._locked_controls = {}
        self._settle_until = self.clock() + self.settle_s

    def read(self) -> Frame | None:
        try:
            if self._relock:
                self._unlock_exposure()
            if not self._locked and self.clock() > self._settle_until:
                self._lock_exposure()
            image = self._wait(self.cam.capture_array("main", wait=False))
        except CameraLost:
            raise
        except Exception as exc:
            raise camera_lost("the Pi camera stopped", exc) from exc
        self._index += 1
        return Frame(np.ascontiguousarray(image[..., :3]), self.clock(), self._index - 1)

    def still(self) -> Frame | None:
        """A picture at :attr:`still_size` (picamera2's still configuration, switched to for one
        capture and back), exposed and coloured as the frames are: the locked exposure and white
        balance go with it, and are set again after it (picamera2 switches back to the frames'
        configuration, whose controls are those the camera started with, not those set since).
        A still that takes more than ``still_timeout_s`` is :class:`CameraLost` (``hung``).
        None when stills are off (``still="off"``, ``[camera] still``: the frame is read)."""
        if self.still_size is None:
            return None
        try:
            steady = {k: v for k, v in self.controls.items()
                      if k not in ("FrameRate", "FrameDurationLimits")}
            config = self.cam.create_still_configuration(
                main={"size": self.still_size, "format": "RGB888"}, buffer_count=1,
                controls={**steady, **self._locked_controls})
            image = self._wait(self.cam.switch_mode_and_capture_array(config, "main", wait=False),
                               self.still_timeout_s, "still")
            if self._locked_controls:
                self.cam.set_controls(self._locked_controls)
        except CameraLost:
            raise
        except Exception as exc:
            raise camera_lost("the Pi camera's still failed", exc) from exc
        return Frame(np.ascontiguousarray(image[..., :3]), self.clock(), max(0, self._index - 1))

    def _close_camera(self) -> None:
        cam, self.cam = self.cam, None
        if cam is None:
            return
        for step in (cam.stop, cam.close):
            try:
                step()
            except Exception:  # a broken camera may fail to stop; close anyway
                log.debug("picamera2 %s failed", step.__name__, exc_info=True)

    def close(self) -> None:
        self._close_camera()


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
    * Hysteresis: ``camera`` {status: "lost", reason, cause} is published (and logged, once,
      without a traceback) only after ``lost_after`` failed reads in a row, and {status: "ok"}
      only after ``ok_after`` good frames in a row, so that a source failing now and then never
      flaps. A camera that has not given a single frame yet (the companion started without
      one: not found, busy) is said lost at its first failure. ``cause`` is ``missing``,
      ``busy``, ``hung`` or ``error`` (:func:`camera_fault`).
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
        self.cause: str | None = None
        self._resume_at: int | None = None
        self._ever_read = False

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

    def still(self) -> Frame | None:
        """The source's :meth:`FrameSource.still`; None while the camera is lost or when the
        still fails. A failed still is logged, and the frames go on: a camera that cannot take
        a full-resolution picture (not enough memory for its buffer) still referees the game, and
        a camera that is really gone fails its next read."""
        if self.source is None or self.status != "ok":
            return None
        try:
            return self.source.still()
        except Exception as exc:  # noqa: BLE001 - every driver fails in its own words
            log.warning("the camera's still failed, the frame is read instead: %s", exc)
            return None

    def _open(self) -> FrameSource:
        source = self.open_fn()
        if self._resume_at is not None:
            source.seek(self._resume_at)
        return source

    def relock(self) -> None:
        """Let the camera's exposure and white balance settle again (:meth:`PiCameraSource.relock`);
        sources without them ignore it."""
        relock = getattr(self.source, "relock", None)
        if relock is not None:
            relock()

    def _failed(self, exc: Exception) -> None:
        self.reason = str(exc) if isinstance(exc, CameraLost) else f"{type(exc).__name__}: {exc}"
        self.cause = camera_fault(exc)[0]
        self.failures += 1
        self.good = 0
        if self.source is not None:
            position = self.source.position
            if position is not None:
                self._resume_at = position
            self._close_quietly()
        if self.status == "ok" and (self.failures >= self.lost_after or not self._ever_read):
            log.warning("camera lost: %s", self.reason)
            self._publish("lost", reason=self.reason, cause=self.cause)
        else:
            log.debug("camera read failed (%d in a row): %s", self.failures, self.reason)
        self.sleep(min(self.max_retry_s, self.retry_s * 2 ** min(self.failures - 1, 16)))

    def _good(self) -> None:
        self.failures = 0
        self._ever_read = True
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
        except Exception:  # a broken device may fail to close too
            log.debug("closing the failed camera source failed", exc_info=True)

    def close(self) -> None:
        if self.source is not None:
            self._close_quietly()


def pi_cameras() -> list[dict]:
    """The cameras libcamera lists (picamera2's ``global_camera_info()``: Model, Id, ...); empty
    where there is no picamera2 or it cannot ask libcamera."""
    try:
        from picamera2 import Picamera2  # only on the Pi
    except Exception:  # noqa: BLE001 - ImportError, or a picamera2 broken by its numpy
        return []
    try:
        return list(Picamera2.global_camera_info())
    except Exception:
        log.debug("libcamera could not list the cameras", exc_info=True)
        return []


def pi_camera_present() -> bool:
    """A Pi camera is connected: libcamera lists one (not merely: this is a Pi)."""
    return bool(pi_cameras())


def open_source(spec: str = "auto", *, width: int = 1280, height: int = 720, fps: int = 15,
                synthetic: Callable[[], FrameSource] | None = None, **picamera) -> FrameSource:
    """The source a spec string names (see the module docs).

    ``synthetic`` opens the synthetic table (the simulator passes it, see
    :func:`simulator.source.open_source`); without it ``synthetic`` is refused. ``auto`` is the
    Pi camera, and :class:`CameraLost` where there is none: a table that asked for a camera is
    never quietly given the synthetic one. ``picamera`` are :class:`PiCameraSource`'s keyword
    options."""
    kind, _, arg = spec.partition(":")
    if kind == "auto":
        if pi_camera_present():
            return PiCameraSource(width, height, fps, **picamera)
        raise CameraLost("no Pi camera found (camera source 'auto'): connect and enable it, or "
                         "name another source (opencv:0 for a USB webcam, synthetic)")
    if kind == "picamera":
        return PiCameraSource(width, height, fps, **picamera)
    if kind == "opencv":
        device: int | str = int(arg) if arg.isdigit() else (arg or 0)
        return OpenCVSource(device, width, height, fps)
    if kind == "folder":
        return FolderSource(arg, fps=fps)
    if kind == "synthetic" and synthetic is not None:
        return synthetic()
    raise ValueError(f"unknown camera source {spec!r}: expected auto, picamera, opencv:N, "
                     "opencv:PATH, folder:PATH or synthetic")
