"""A stand-in for picamera2 that behaves as the real one does, as far as the companion uses it.

picamera2 exists only on a Raspberry Pi (Raspberry Pi OS's python3-picamera2, over libcamera).
:func:`install` puts a fake ``picamera2`` module into ``sys.modules``; its ``Picamera2`` class
follows picamera2's own code (raspberrypi/picamera2, ``picamera2/picamera2.py``):

* ``Picamera2.global_camera_info()`` lists the cameras libcamera sees (Model, Id, Num); with
  none, ``Picamera2()`` fails as the real one does: ``global_camera_info()[0]`` is an
  ``IndexError: list index out of range``.
* A camera another process holds: libcamera's ``Failed to acquire camera: Device or resource
  busy``, which picamera2 hides behind ``RuntimeError("Camera __init__ sequence did not
  complete.")`` (the first is only the second's ``__context__``).
* ``sensor_modes`` and ``camera_controls`` of the real sensors (IMX708: Camera Module 3,
  IMX219: v2, OV9281-like mono without colour controls), as ``rpicam-hello --list-cameras`` and
  ``camera_controls`` give them.
* ``configure()`` without a sensor mode picks the mode as libcamera does for the video
  configuration: the smallest mode at least the output size, of the nearest aspect ratio (a
  centre crop on the IMX708 and IMX219); with ``sensor={"output_size", "bit_depth"}`` that mode.
* ``set_controls()`` refuses a control the camera does not have ("Control X is not advertised
  by libcamera").
* ``capture_array(name, wait=False)`` and ``capture_metadata(wait=False)`` return jobs;
  ``wait(job, timeout)`` returns the result, or raises ``TimeoutError`` when the camera has
  stalled (a loose ribbon). A stalled camera waited on without a timeout would hang for ever:
  the fake raises ``AssertionError`` instead, so that a test says so rather than hanging.
* ``create_still_configuration()`` and ``switch_mode_and_capture_array(config, name,
  wait=False)``: the camera switches to the still's configuration (its sensor mode chosen as
  ``configure()`` does, its controls in force), captures one picture of the still's size and
  switches back to the frames' configuration, whose *configured* controls are then in force
  again: what was set with ``set_controls()`` since is lost, as with picamera2 (its
  ``switch_mode_`` configures and starts the camera anew). :attr:`active_controls` is what is
  in force.
* ``close()`` releases the camera (another ``Picamera2()`` may then open it); an instance that
  is never closed keeps it busy.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field

import numpy as np

# name -> (sensor modes, camera controls, metadata after settling)
IMX708_MODES = [
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (1536, 864),
     "fps": 120.13, "crop_limits": (768, 432, 3072, 1728), "exposure_limits": (9, 77193582)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (2304, 1296),
     "fps": 56.03, "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (13, 112015443)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (4608, 2592),
     "fps": 14.35, "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (26, 220417486)},
]
IMX219_MODES = [
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (640, 480),
     "fps": 103.33, "crop_limits": (1000, 752, 1280, 960), "exposure_limits": (75, 11766829)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (1640, 1232),
     "fps": 41.85, "crop_limits": (0, 0, 3280, 2464), "exposure_limits": (75, 11766829)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (1920, 1080),
     "fps": 47.57, "crop_limits": (680, 692, 1920, 1080), "exposure_limits": (75, 11766829)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (3280, 2464),
     "fps": 21.19, "crop_limits": (0, 0, 3280, 2464), "exposure_limits": (75, 11766829)},
]
MONO_MODES = [
    {"format": "R10_CSI2P", "unpacked": "R10", "bit_depth": 10, "size": (1280, 800),
     "fps": 144.0, "crop_limits": (0, 0, 1280, 800), "exposure_limits": (29, 15534385)},
]
_COMMON = {"AeEnable": (False, True, True), "ExposureTime": (1, 66666, 20000),
           "AnalogueGain": (1.0, 16.0, 1.0), "FrameDurationLimits": (8333, 120000, 33333),
           "ScalerCrop": ((0, 0, 0, 0), (0, 0, 4608, 2592), (0, 0, 4608, 2592)),
           "AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1000000, 0)}
_COLOUR = {"AwbEnable": (False, True, True), "ColourGains": (0.0, 32.0, None)}
_LENS = {"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 32.0, 1.0)}
SENSORS = {
    "imx708": (IMX708_MODES, {**_COMMON, **_COLOUR, **_LENS}),
    "imx219": (IMX219_MODES, {**_COMMON, **_COLOUR}),
    "ov9281": (MONO_MODES, dict(_COMMON)),
}


@dataclass
class CameraWorld:
    """What the fake libcamera sees: the cameras, who holds them, and how they behave.

    ``stall_after``: the camera gives that many frames, then none (a loose ribbon); None:
    frames for ever. ``fail_start``: ``start()`` raises this. Every ``Picamera2`` made is in
    ``opened``; ``held`` is the one holding the camera now (busy for the others).
    """

    models: list[str] = field(default_factory=lambda: ["imx708"])
    stall_after: int | None = None
    fail_start: Exception | None = None
    held_elsewhere: bool = False
    opened: list = field(default_factory=list)
    held: object | None = None
    metadata: dict = field(default_factory=lambda: {"ExposureTime": 23000, "AnalogueGain": 2.0,
                                                    "ColourGains": (1.8, 1.5), "Lux": 300.0})

    def module(self) -> types.ModuleType:
        """A ``picamera2`` module whose ``Picamera2`` lives in this world."""
        world = self

        class Picamera2(FakePicamera2):
            _world = world

        module = types.ModuleType("picamera2")
        module.Picamera2 = Picamera2
        module.__file__ = __file__
        return module


def install(monkeypatch, world: CameraWorld | None = None) -> CameraWorld:
    """Put a fake ``picamera2`` into ``sys.modules`` for one test; returns its world."""
    world = world or CameraWorld()
    monkeypatch.setitem(sys.modules, "picamera2", world.module())
    return world


class FakeJob:
    def __init__(self, result=None, stalled: bool = False):
        self.result, self.stalled = result, stalled


class FakePicamera2:
    """See the module docs; only what picamera2 really has, with its names and behaviour."""

    _world: CameraWorld

    @classmethod
    def global_camera_info(cls) -> list[dict]:
        return [{"Model": model, "Location": 2, "Rotation": 180, "Num": i,
                 "Id": f"/base/axi/pcie@120000/rp1/i2c@88000/{model}@1a"}
                for i, model in enumerate(cls._world.models)]

    def __init__(self, camera_num: int = 0, tuning=None):
        world = self._world
        self.is_open = False
        self.started = False
        self.closed = False
        self.controls_set: list[dict] = []
        self.camera_config: dict | None = None
        self.autofocus_cycles = 0
        self.frames = 0
        self.stills: list[dict] = []
        self.active_controls: dict = {}
        info = self.global_camera_info()[camera_num]  # IndexError with no camera, as picamera2
        world.opened.append(self)
        try:
            if world.held_elsewhere or world.held is not None:
                raise RuntimeError("Failed to acquire camera: Device or resource busy")
        except RuntimeError:
            raise RuntimeError("Camera __init__ sequence did not complete.")  # noqa: B904 - as picamera2
        world.held = self
        self.is_open = True
        self.model = info["Model"]
        self._modes, self._controls = SENSORS[self.model]
        self.sensor_mode: dict | None = None

    # --- what the camera has --------------------------------------------------------------------

    @property
    def sensor_modes(self) -> list[dict]:
        self._check_open()
        return [dict(m) for m in self._modes]

    @property
    def camera_controls(self) -> dict:
        self._check_open()
        return dict(self._controls)

    # --- configuration --------------------------------------------------------------------------

    # (picamera2's defaults are {}: None here, so that no two configurations share a dict)
    def create_video_configuration(self, main=None, lores=None, raw=None, transform=None,
                                   colour_space=None, buffer_count=6, controls=None, display="main",
                                   encode="main", queue=True, sensor=None, use_case="video") -> dict:
        self._check_open()
        main = {"format": "XBGR8888", "size": (1280, 720), "preserve_ar": True, **(main or {})}
        for key in sensor or {}:
            if key not in ("output_size", "bit_depth"):
                raise ValueError(f"Bad key {key!r} in sensor configuration")
        return {"use_case": use_case, "main": main, "lores": lores, "raw": {} if raw is None else raw,
                "controls": {"FrameDurationLimits": (33333, 33333), **(controls or {})},
                "sensor": dict(sensor or {}), "buffer_count": buffer_count}

    def configure(self, config: dict) -> None:
        self._check_open()
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        sensor = config.get("sensor") or {}
        if sensor.get("output_size"):
            matches = [m for m in self._modes if tuple(m["size"]) == tuple(sensor["output_size"])
                       and m["bit_depth"] == sensor.get("bit_depth", m["bit_depth"])]
            if not matches:
                raise RuntimeError("Invalid sensor configuration")
            self.sensor_mode = matches[0]
        else:
            self.sensor_mode = self._libcamera_choice(tuple(config["main"]["size"]))
        self._check_controls(config.get("controls") or {})
        self.camera_config = config
        self.active_controls = dict(config.get("controls") or {})

    def create_still_configuration(self, main=None, lores=None, raw=None, transform=None,
                                   colour_space=None, buffer_count=1, controls=None, display=None,
                                   encode=None, queue=True, sensor=None, use_case="still") -> dict:
        self._check_open()
        main = {"format": "BGR888", "size": tuple(self._modes[-1]["size"]), **(main or {})}
        return {"use_case": use_case, "main": main, "lores": lores, "raw": {} if raw is None else raw,
                "controls": {"FrameDurationLimits": (100, 1000000000), **(controls or {})},
                "sensor": dict(sensor or {}), "buffer_count": buffer_count}

    def _libcamera_choice(self, size: tuple[int, int]) -> dict:
        """The mode libcamera's Raspberry Pi pipeline scores best for this output size: the
        nearest aspect ratio, then the smallest at least as big (a centre crop, often)."""
        aspect = size[0] / size[1]
        big = [m for m in self._modes if m["size"][0] >= size[0] and m["size"][1] >= size[1]]
        return min(big or self._modes,
                   key=lambda m: (round(abs(m["size"][0] / m["size"][1] - aspect), 2),
                                  m["size"][0] * m["size"][1]))

    def field_of_view(self) -> float:
        """How much of the sensor's area the configured mode sees (1.0: all of it)."""
        full = max(m["crop_limits"][2] * m["crop_limits"][3] for m in self._modes)
        crop = self.sensor_mode["crop_limits"]
        return crop[2] * crop[3] / full

    # --- running --------------------------------------------------------------------------------

    def start(self, config=None, show_preview=False) -> None:
        self._check_open()
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        if self._world.fail_start is not None:
            raise self._world.fail_start
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        if not self.is_open:
            return
        self.stop()
        self.is_open = False
        self.closed = True
        if self._world.held is self:
            self._world.held = None

    def set_controls(self, controls: dict) -> None:
        self._check_open()
        self._check_controls(controls)
        self.controls_set.append(dict(controls))
        self.active_controls.update(controls)

    def _check_controls(self, controls: dict) -> None:
        for name in controls:
            if name not in self._controls and name not in ("FrameRate", "FrameDurationLimits"):
                raise RuntimeError(f"Control {name} is not advertised by libcamera")

    def autofocus_cycle(self, wait=None):
        self._check_running()
        if "AfMode" not in self._controls:
            raise RuntimeError("Control AfMode is not advertised by libcamera")
        self.autofocus_cycles += 1
        return True

    # --- reading --------------------------------------------------------------------------------

    def _stalled(self) -> bool:
        after = self._world.stall_after
        return after is not None and self.frames >= after

    def capture_array(self, name="main", wait=None, signal_function=None):
        self._check_running()
        if self._stalled():
            job = FakeJob(stalled=True)
        else:
            self.frames += 1
            w, h = self.camera_config["main"]["size"]
            job = FakeJob(np.full((h, w, 3), (self.frames * 7) % 256, np.uint8))
        return self._finish(job, wait)

    def switch_mode_and_capture_array(self, camera_config, name="main", wait=None, signal_function=None,
                                      delay=0):
        self._check_running()
        if self._stalled():
            return self._finish(FakeJob(stalled=True), wait)
        frames_config = self.camera_config
        self.started = False
        self.configure(camera_config)            # the still's mode and controls
        self.stills.append({"size": tuple(camera_config["main"]["size"]), "mode": self.sensor_mode,
                            "controls": dict(self.active_controls)})
        w, h = camera_config["main"]["size"]
        job = FakeJob(np.full((h, w, 3), 200, np.uint8))
        self.configure(frames_config)            # back: the frames' configured controls only
        self.started = True
        return self._finish(job, wait)

    def capture_metadata(self, wait=None, signal_function=None):
        self._check_running()
        job = FakeJob(stalled=True) if self._stalled() else FakeJob(dict(self._world.metadata))
        return self._finish(job, wait)

    def _finish(self, job: FakeJob, wait):
        if wait is False:
            return job
        timeout = None if wait in (None, True) else wait
        return self.wait(job, timeout=timeout)

    def wait(self, job: FakeJob, timeout=None):
        if job.stalled:
            if timeout is None:
                raise AssertionError("waited without a timeout on a stalled camera: this hangs for ever")
            raise TimeoutError()
        return job.result

    def _check_open(self) -> None:
        if not self.is_open:
            raise RuntimeError("Camera not opened")

    def _check_running(self) -> None:
        self._check_open()
        if not self.started:
            raise RuntimeError("Camera not started")
