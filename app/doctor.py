"""``companion doctor``: checks a table before a game and says how to fix what is wrong.

Each check is a small function that returns a :class:`CheckResult` (name, ok, detail, fix) and
takes what it checks as arguments, so that tests drive them one by one with fakes: a gpiozero
``MockFactory`` for the pins, any object with ``read()`` for the camera, a temporary database
path, a port the test holds. :func:`run_checks` runs them all from a configuration.

===========  ======================================================================
check        passes when
===========  ======================================================================
config       the configuration file loads (every key known, every value typed)
system       on a Pi: Raspberry Pi OS Trixie, lgpio, picamera2 and libcamera importable,
             /dev/gpiochip* open to this user and to lgpio; elsewhere "not a Pi: skipped"
camera       the camera opens and delivers frames that are neither black nor white
markers      at least three of the mat's four corner markers are seen in a frame, big enough
             (pixels a side) and sharp (variance of the Laplacian) to be read
model        the card model loads and reads a card
pins         every pin of the pin map can be claimed (none held by another program)
signals      the LEDs and the buzzer play a short self-test pattern
database     the event log's file can be created and written
port         the web port is free on the web server's address
addresses    phones can be sent to a LAN address (the one in the QR code)
===========  ======================================================================

A check that cannot run here (a module of the companion not installed, no frame to look at)
fails with ``cannot check: ...``: the table would not work either.

>>> r = check_port("127.0.0.1", 0)
>>> r.ok, r.name
(True, 'port')
"""

from __future__ import annotations

import errno
import socket
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["CheckResult", "CHECKS", "check_config", "check_system", "check_camera", "check_markers",
           "check_model", "check_pins", "check_signals", "check_database", "check_port",
           "check_addresses", "run_checks", "format_line", "service_hint", "summary"]

#: Every check, in the order they run and print.
CHECKS = ("config", "system", "camera", "markers", "model", "pins", "signals", "database", "port",
          "addresses")

#: Checks that only matter when the camera referees (mode ``referee``).
CAMERA_CHECKS = ("camera", "markers", "model")

SERVICE = "uno-companion"
GUIDE = "docs/hardware-guide.md"


@dataclass(frozen=True)
class CheckResult:
    """One check's outcome: ``detail`` says what was found, ``fix`` what to do when not ``ok``."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _ok(name: str, detail: str) -> CheckResult:
    return CheckResult(name, True, detail)


def _fail(name: str, detail: str, fix: str) -> CheckResult:
    return CheckResult(name, False, detail, fix)


def format_line(result: CheckResult) -> str:
    """One line for a terminal: ``ok   camera: ...`` or ``FAIL pins: ... Fix: ...``."""
    line = f"{'ok' if result.ok else 'FAIL':<4} {result.name}: {result.detail}"
    if not result.ok and result.fix:
        line += f" Fix: {result.fix}"
    return line


def service_hint(is_active: Callable[[], bool] | None = None) -> str:
    """A sentence for the fixes of "busy" failures when the companion's service is running."""
    active = (is_active or _service_active)()
    if not active:
        return ""
    return (f" The {SERVICE} service is running and holds it: stop it first "
            f"(sudo systemctl stop {SERVICE}), or run sudo uno-companion-doctor, which does.")


def _service_active() -> bool:
    import shutil
    import subprocess

    if shutil.which("systemctl") is None:
        return False
    try:
        return subprocess.run(["systemctl", "is-active", "--quiet", SERVICE], timeout=3,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


# --- config -------------------------------------------------------------------------------------

def check_config(path: str | Path | None, overrides: dict[str, Any] | None = None):
    """Load the configuration: returns ``(CheckResult, Config or None)``."""
    from companion.config import ConfigError, load_config

    try:
        config = load_config(path, overrides)
    except ConfigError as exc:
        return _fail("config", str(exc),
                     "Correct that key (every key is in docs/configuration.md; the example is "
                     "deploy/companion.toml)."), None
    try:
        from hardware.pinmap import PinMap
        from hardware.errors import PinMapError

        try:
            PinMap.from_config(config.pins)
        except PinMapError as exc:
            return _fail("config", str(exc),
                         "Correct the [pins] section (keys and defaults: docs/hardware.md)."), config
    except ImportError:
        pass
    where = str(path) if path else "no file (the defaults)"
    return _ok("config", f"{where}: mode {config.table.mode}, game {config.table.game}, "
                         f"camera {config.camera.source}, web {config.web.host}:{config.web.port}"), config


# --- system ---------------------------------------------------------------------------------------

#: The Raspberry Pi OS release the companion is built for (Python 3.13, numpy 2, its picamera2).
RELEASE = "trixie"


def _os_release(path: Path) -> dict[str, str]:
    values = {}
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition("=")
            if key and value:
                values[key.strip()] = value.strip().strip('"')
    except OSError:
        pass
    return values


def _import_error(name: str) -> str | None:
    """None when ``name`` imports; else why not, in its own words."""
    import importlib

    try:
        importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - an ImportError, or a library broken by its numpy
        return f"{type(exc).__name__}: {exc}"
    return None


def _chip_error(chip: Path) -> str | None:
    """None when lgpio opens ``chip`` (``/dev/gpiochipN``) and closes it again; else why not."""
    try:
        import lgpio

        handle = lgpio.gpiochip_open(int(chip.name.removeprefix("gpiochip")))
        lgpio.gpiochip_close(handle)
    except Exception as exc:  # noqa: BLE001 - lgpio.error, OSError, a bad name
        return f"{type(exc).__name__}: {exc}"
    return None


#: What only a Raspberry Pi has (Raspberry Pi OS's packages, the real pins): checked there only.
PI_ONLY = "picamera2, libcamera's Python bindings and lgpio on real pins"


def check_system(*, camera: bool = True, os_release: Path = Path("/etc/os-release"),
                 model_file: Path = Path("/proc/device-tree/model"), dev: Path = Path("/dev"),
                 import_error: Callable[[str], str | None] = _import_error,
                 access: Callable[[Path], bool] | None = None,
                 chip_error: Callable[[Path], str | None] = _chip_error) -> CheckResult:
    """On a Raspberry Pi: the OS release is Trixie, lgpio (and, with ``camera``, picamera2 and
    libcamera's Python bindings) import, this user may open ``/dev/gpiochip*`` and lgpio opens
    one of them. Elsewhere these cannot be had (Raspberry Pi OS's own packages, the real pins):
    ``not a Pi: skipped``.

    The arguments other than ``camera`` are for tests."""
    import os

    access = access or (lambda p: os.access(p, os.R_OK | os.W_OK))
    try:
        model = model_file.read_text(errors="replace").strip("\0\n ")
    except OSError:
        model = ""
    release = _os_release(os_release)
    name = release.get("PRETTY_NAME", "an unknown system")
    if "raspberry pi" not in model.lower():
        return _ok("system", f"not a Pi: skipped ({name}; {PI_ONLY} are checked on a "
                             "Raspberry Pi only): the camera and pins are what the configuration "
                             "names")
    problems, fixes = [], []
    codename = release.get("VERSION_CODENAME", "?")
    if codename != RELEASE:
        problems.append(f"{name} ({codename}), not {RELEASE}")
        fixes.append(f"Flash Raspberry Pi OS Lite (64-bit) {RELEASE.capitalize()} (Raspberry Pi "
                     "Imager) and install again: the pinned numpy 2 breaks an older release's "
                     "picamera2.")
    wanted = ["lgpio"] + (["picamera2", "libcamera"] if camera else [])
    missing = set()
    for module in wanted:
        why = import_error(module)
        if why is not None:
            missing.add(module)
            problems.append(f"{module} cannot be imported ({why})")
            package = {"lgpio": "python3-lgpio", "picamera2": "python3-picamera2",
                       "libcamera": "python3-libcamera"}[module]
            fixes.append(f"sudo apt install {package}; the venv must be made with "
                         "--system-site-packages (deploy/install.sh does both).")
    chips = sorted(dev.glob("gpiochip*"))
    open_chips = [c for c in chips if access(c)]
    if not chips:
        problems.append("no /dev/gpiochip*")
        fixes.append("Update the Pi's kernel (sudo apt full-upgrade) and reboot.")
    elif not open_chips:
        problems.append(f"this user may not open {', '.join(str(c) for c in chips)}")
        fixes.append("Add the user to the gpio group: sudo usermod -aG gpio $USER, then log in "
                     "again (the service's user is in it: deploy/install.sh).")
    elif "lgpio" not in missing:
        why = chip_error(open_chips[0])
        if why is not None:
            problems.append(f"lgpio cannot open {open_chips[0]} ({why})")
            fixes.append("Reinstall lgpio (sudo apt install --reinstall python3-lgpio) and "
                         "reboot; `gpioinfo` lists the chips the kernel offers.")
    if problems:
        return _fail("system", f"{model}: " + "; ".join(problems), " ".join(dict.fromkeys(fixes)))
    modules = "lgpio, picamera2 and libcamera" if camera else "lgpio"
    return _ok("system", f"{model}, {name}; {modules} import; lgpio opens {open_chips[0]}, "
                         "which is open to this user")


# --- camera ---------------------------------------------------------------------------------------

_RIBBON = ("with the Pi off, reseat the ribbon cable at both ends (contacts facing the "
           "connector's contacts; on the Pi 5 the narrow 22-pin end)")
_CAMERA_FIXES = {
    "busy": "The camera is in use by another program (only one may hold it: `rpicam-hello`, "
            "another companion, a browser preview); stop it.{service}",
    "not-installed": "Install the Pi camera's Python library and let the companion's venv see it: "
                     "sudo apt install python3-picamera2, and make the venv with "
                     "--system-site-packages (deploy/install.sh does both).",
    "missing": "No camera was detected: " + _RIBBON + ", then check that "
               "`rpicam-hello --list-cameras` lists it.",
    "hung": "The camera stopped giving frames: " + _RIBBON + ", and use the Pi's own power "
            "supply (a weak one stalls the camera); `rpicam-hello -t 5s` shows whether frames come.",
}


def _camera_cause(error: BaseException | str) -> str:
    """busy, not-installed, missing, hung or error (:func:`vision.sources.camera_fault`)."""
    text = str(error).lower()
    if "picamera2 is not installed" in text:
        return "not-installed"
    try:
        from vision.sources import camera_fault
    except ImportError:
        return "error"
    return camera_fault(error if isinstance(error, BaseException) else RuntimeError(error))[0]


def _camera_fix(error: BaseException | str, hint: str) -> str:
    fix = _CAMERA_FIXES.get(_camera_cause(error))
    if fix is not None:
        return fix.format(service=hint)
    return ("Check the camera: `rpicam-hello --list-cameras` (Pi camera), or the [camera] "
            "source in the configuration (docs/configuration.md)." + hint)


def check_camera(open_source: Callable[[], Any], *, spec: str = "auto", frames: int = 5,
                 keep: list | None = None, is_active: Callable[[], bool] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> CheckResult:
    """Open the camera with ``open_source()`` and read ``frames`` frames.

    The source is anything with ``read()`` (a :class:`vision.sources.Frame` with ``.image``, or
    None when a finite source ends), ``close()`` and ``name``. ``spec`` is the configured
    ``camera.source``: with ``auto``, falling back to the synthetic table is a failure (there
    is no camera). ``keep``, a list, receives the last frame's image for :func:`check_markers`.
    """
    import numpy as np

    try:
        from vision.sources import CameraLost
    except ImportError:  # the camera sources not installed: any error is the camera's
        CameraLost = RuntimeError
    start = clock()
    try:
        source = open_source()
    except ImportError as exc:
        return _fail("camera", f"cannot check: {exc}",
                     "Install the companion with its dependencies (deploy/install.sh).")
    except (CameraLost, RuntimeError, OSError, ValueError) as exc:
        return _fail("camera", f"the camera did not open: {exc}",
                     _camera_fix(exc, service_hint(is_active)))
    name = getattr(source, "name", type(source).__name__)
    try:
        images = []
        for _ in range(frames):
            frame = source.read()
            if frame is None:
                break
            images.append(getattr(frame, "image", frame))
    except (CameraLost, RuntimeError, OSError) as exc:
        return _fail("camera", f"{name} stopped after opening: {exc}",
                     _camera_fix(exc, service_hint(is_active)))
    finally:
        try:
            source.close()
        except Exception:  # noqa: BLE001 - closing must not hide the result
            pass
    elapsed = clock() - start
    if not images:
        return _fail("camera", f"{name} opened but gave no frame",
                     _camera_fix("no frame", service_hint(is_active)))
    image = np.asarray(images[-1])
    if image.ndim < 2 or image.size == 0:
        return _fail("camera", f"{name} gives empty frames (shape {image.shape})",
                     _camera_fix("empty", ""))
    height, width = image.shape[:2]
    brightness = float(image.mean())
    seen = f"{name}: {len(images)} frames of {width}x{height} in {elapsed:.1f} s"
    if brightness < 8:
        return _fail("camera", f"{seen}, but they are black (brightness {brightness:.0f}/255)",
                     "Take the lens cap off, turn the lights on, and check the camera looks "
                     f"down at the mat ({GUIDE}, 'Lighting').")
    if brightness > 247:
        return _fail("camera", f"{seen}, but they are white (brightness {brightness:.0f}/255)",
                     "The picture is overexposed: move lamps out of the view and avoid direct "
                     f"sunlight on the mat ({GUIDE}, 'Lighting').")
    if spec == "auto" and name == "synthetic":
        return _fail("camera", "no Pi camera found: `auto` falls back to the synthetic table",
                     _CAMERA_FIXES["missing"] +
                     " Off the Pi, set [camera] source (opencv:0 for a USB webcam).")
    if keep is not None:
        keep.append(image)  # only a good frame is worth looking for markers in
    return _ok("camera", f"{seen} (brightness {brightness:.0f}/255)")


# --- markers --------------------------------------------------------------------------------------

#: Below this many pixels a side the corner markers are found unreliably (and cards read badly).
MIN_MARKER_PX = 20
#: Below this variance of the Laplacian around the markers the picture is out of focus.
MIN_SHARPNESS = 100.0


def sharpness(image, markers: dict) -> float:
    """How sharp the picture is where the markers are: the variance of the Laplacian of the
    grey picture over each marker with a margin (black and white squares: high when in focus,
    low when blurred), the least of them."""
    import cv2
    import numpy as np

    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    values = []
    for corners in markers.values():
        points = np.asarray(corners).reshape(-1, 2)
        margin = max(4, int(np.ptp(points[:, 0]) * 0.25))
        x0, y0 = (points.min(axis=0) - margin).astype(int).clip(0)
        x1, y1 = (points.max(axis=0) + margin).astype(int)
        patch = grey[y0:y1, x0:x1]
        if patch.size:
            values.append(float(cv2.Laplacian(patch, cv2.CV_64F).var()))
    return min(values) if values else 0.0


def check_markers(image) -> CheckResult:
    """Find the mat's corner markers in a frame (``None``: the camera gave none), and measure
    them: pixels a side (:data:`MIN_MARKER_PX`) and sharpness (:func:`sharpness`)."""
    if image is None:
        return _fail("markers", "cannot check: no frame from the camera", "Fix the camera first.")
    try:
        from vision.geometry import (CORNER_IDS, CORNER_NAMES, CalibrationFailed,
                                     detect_markers, view_from_markers)
    except ImportError as exc:
        return _fail("markers", f"cannot check: vision.geometry not available ({exc})",
                     "Install the companion with its dependencies (deploy/install.sh).")
    import numpy as np

    markers = detect_markers(image)
    seen = [name for mid, name in zip(CORNER_IDS, CORNER_NAMES) if mid in markers]
    missing = [name for mid, name in zip(CORNER_IDS, CORNER_NAMES) if mid not in markers]
    place = (f"Lay the printed mat (`companion mat`) flat under the camera with all four "
             f"corners in view, the camera straight above it (the Camera Module 3 85-90 cm "
             f"high, the Wide 60-70 cm: the table of heights is in {GUIDE}), lit evenly "
             f"without glare on the markers.")
    if len(seen) < 3:
        return _fail("markers", f"saw {len(seen)} of the 4 corner markers"
                                f"{' (' + ', '.join(seen) + ')' if seen else ''}; missing: "
                                f"{', '.join(missing)}", place)
    try:
        view_from_markers(image, markers=markers)
    except CalibrationFailed as exc:
        return _fail("markers", f"the corner markers give no usable view: {exc}", place)
    corner_markers = {mid: c for mid, c in markers.items() if mid in CORNER_IDS}
    sides = [float(np.linalg.norm(np.asarray(c).reshape(-1, 2)[0] - np.asarray(c).reshape(-1, 2)[1]))
             for c in corner_markers.values()]
    size = min(sides)
    sharp = sharpness(image, corner_markers)
    detail = (f"{len(seen)} of 4 corner markers ({', '.join(seen)}), {size:.0f} px a side, "
              f"sharpness {sharp:.0f}")
    if size < MIN_MARKER_PX:
        return _fail("markers", f"{detail}: the markers are too small to read surely (at least "
                                f"{MIN_MARKER_PX} px, 30 or more is safe)",
                     "Bring the camera lower (the heights for each camera module are in "
                     f"{GUIDE}), or raise [camera] width and height (e.g. 1920 x 1080).")
    if sharp < MIN_SHARPNESS:
        return _fail("markers", f"{detail}: the picture is blurred (at least {MIN_SHARPNESS:.0f})",
                     "Focus on the mat: set [camera] height_cm to the lens's height above the mat "
                     "(Camera Module 3), or focus = \"once\" for one autofocus at start; turn the "
                     "focus ring of a v2 or HQ lens; clean the lens; hold the mount still.")
    if missing:
        detail += f"; {missing[0]} hidden (the view is found from three, four are safer)"
    return _ok("markers", detail)


# --- model ----------------------------------------------------------------------------------------

def check_model(load: Callable[[], Any] | None = None) -> CheckResult:
    """Load the card model (``load()`` returns a :class:`vision.recognize.CardReader`) and read
    one card-sized image with it."""
    import numpy as np

    if load is None:
        try:
            from vision.recognize import CardReader
        except ImportError as exc:
            return _fail("model", f"cannot check: vision.recognize not available ({exc})",
                         "Install the companion with its dependencies (deploy/install.sh).")
        load = CardReader
    start = time.monotonic()
    try:
        reader = load()
    except FileNotFoundError as exc:
        return _fail("model", str(exc),
                     "Copy the trained model to vision/models/cards.onnx and install again "
                     "(deploy/install.sh); until then the companion reads cards with its "
                     "procedural templates, less surely.")
    except Exception as exc:  # noqa: BLE001 - cv2.error and friends: the file is bad
        return _fail("model", f"the card model does not load: {type(exc).__name__}: {exc}",
                     "The model file is damaged or from another version: train it again "
                     "(python -m vision.train) or copy a good cards.onnx, then install again.")
    loaded = time.monotonic() - start
    try:
        reading = reader.classify(np.full((96, 64, 3), 128, np.uint8))
    except Exception as exc:  # noqa: BLE001 - whatever the model raises is the finding
        return _fail("model", f"the card model loads but cannot read a card: "
                              f"{type(exc).__name__}: {exc}",
                     "Train the model again (python -m vision.train) or copy a good cards.onnx.")
    classes = len(getattr(reader, "classes", ()) or ())
    return _ok("model", f"loaded in {loaded:.1f} s ({classes} classes); a blank card reads as "
                        f"{getattr(reading, 'label', reading)!s}")


# --- pins -----------------------------------------------------------------------------------------

def _roles(pinmap) -> dict[str, str]:
    """Pin key -> what it is for, as PinUnavailable says it."""
    roles = {}
    for key in pinmap.pins():
        kind, _, what = key.partition("_")
        roles[key] = {"seat": f"seat LED {what}", "side": f"side LED ({what})",
                      "status": f"status LED ({what})", "button": f"{what} button",
                      "buzzer": "buzzer"}[kind]
    return roles


def _pin_fix(failures: list, hint: str) -> str:
    """The fix :class:`hardware.errors.PinUnavailable` gives (busy, no access to the GPIO chip,
    no lgpio, no GPIO at all), with the service hint where another program holds a pin."""
    first = failures[0]
    fix = getattr(first, "fix", "")
    if getattr(first, "kind", "busy") in ("busy", "error"):
        return fix + hint
    return fix


def check_pins(pinmap=None, pin_factory=None, *,
               is_active: Callable[[], bool] | None = None) -> CheckResult:
    """Claim every pin of ``pinmap`` (default: the default pin map) and let it go.

    LED and buzzer pins are claimed as outputs, low; button pins as inputs with the pull-up
    (never driven: a pressed button shorts its pin to ground).
    """
    try:
        from gpiozero import DigitalInputDevice, DigitalOutputDevice

        from hardware.errors import PinUnavailable
        from hardware.pinmap import PinMap
    except ImportError as exc:
        return _fail("pins", f"cannot check: {exc}",
                     "Install the companion with its dependencies (deploy/install.sh).")
    pinmap = pinmap or PinMap()
    roles = _roles(pinmap)
    devices, failures = [], []
    try:
        for key, pin in pinmap.pins().items():
            try:
                if key.startswith("button_"):
                    devices.append(DigitalInputDevice(pin, pull_up=True, pin_factory=pin_factory))
                else:
                    devices.append(DigitalOutputDevice(pin, initial_value=False,
                                                       pin_factory=pin_factory))
            except Exception as exc:  # noqa: BLE001 - gpiozero's and lgpio's own errors
                failures.append(PinUnavailable(roles[key], pin, exc))
                if failures[-1].kind in ("no-gpio", "no-lgpio", "no-access"):
                    break
    finally:
        for device in devices:
            try:
                device.close()
            except Exception:  # noqa: BLE001 - closing must not hide the result
                pass
    if failures:
        if failures[0].kind in ("no-gpio", "no-lgpio", "no-access"):
            detail = f"no GPIO here: {failures[0].why}"
        else:
            detail = "; ".join(f"GPIO{f.pin} ({f.role}): {f.why}" for f in failures)
        return _fail("pins", detail, _pin_fix(failures, service_hint(is_active)))
    pins = pinmap.pins()
    return _ok("pins", f"all {len(pins)} pins free: "
                       + ", ".join(f"GPIO{pin} {roles[key]}" for key, pin in pins.items()))


# --- signals (the self-test) ---------------------------------------------------------------------

#: The self-test: (event, data, seconds to hold it), and what each step should look or sound like.
SELF_TEST = (
    ("turn", {"seat": "north"}, 0.4),
    ("turn", {"seat": "east"}, 0.4),
    ("turn", {"seat": "south"}, 0.4),
    ("turn", {"seat": "west"}, 0.4),
    ("turn", {"seat": None}, 0.1),
    ("flipped", {"side": "light"}, 0.6),
    ("flipped", {"side": "dark"}, 0.6),
    ("action", {"ok": True, "action": {"do": "doctor"}}, 0.3),
    ("refused", {"code": "doctor", "message": "self-test"}, 0.3),
    ("camera", {"status": "lost"}, 1.6),
    ("camera", {"status": "ok"}, 0.3),
    ("match-started", {}, 0.1),
)

SELF_TEST_WATCH = ("the seat LEDs light north, east, south, west in turn; the side LED shows "
                   "white then purple; the status LED flashes green, then red, then "
                   "double-blinks blue; the buzzer clicks, buzzes low, falls, rises and plays "
                   "two notes")


def check_signals(pinmap=None, pin_factory=None, *, clock=None,
                  wait: Callable[[float], None] | None = None,
                  is_active: Callable[[], bool] | None = None) -> CheckResult:
    """Play :data:`SELF_TEST` on the LEDs and the buzzer (about five seconds).

    A program cannot see an LED: this check passes when every device took every step, and
    its detail says what a person should have seen and heard. ``clock`` and ``wait`` are for
    tests (a :class:`hardware.timeline.ManualClock` and its ``advance``).
    """
    try:
        from hardware.errors import PinUnavailable
        from hardware.pinmap import SIDES, PinMap
        from hardware.signals import Signals
    except ImportError as exc:
        return _fail("signals", f"cannot check: {exc}",
                     "Install the companion with its dependencies (deploy/install.sh).")
    pinmap = pinmap or PinMap()
    wait = wait or time.sleep
    try:
        signals = Signals(None, pinmap, pin_factory, seats=list(SIDES), game="grid", clock=clock)
    except PinUnavailable as exc:
        return _fail("signals", str(exc).split(". ")[0],
                     _pin_fix([exc], service_hint(is_active)))
    except Exception as exc:  # noqa: BLE001 - lgpio's own errors are not gpiozero's
        failure = PinUnavailable("LEDs and buzzer", None, exc)
        return _fail("signals", f"the LEDs and buzzer cannot start: {type(exc).__name__}: {exc}",
                     _pin_fix([failure], service_hint(is_active)))
    try:
        for event, data, hold in SELF_TEST:
            signals.publish(event, **data)
            if not signals.flush(timeout=10.0):
                return _fail("signals", f"the self-test stalled at {event} {data}",
                             "Run it again; if it stalls again, report it with the output of "
                             "`companion doctor --json`.")
            wait(hold)
        buzzer = signals.snapshot()["buzzer"]["kind"]
    finally:
        signals.close()
    parts = [f"{len(pinmap.seat_pins())} seat LEDs"]
    parts += [f"{name} LED" for name in ("side", "status") if pinmap.rgb(name)]
    parts.append(f"{buzzer} buzzer" if buzzer != "none" else "no buzzer")
    return _ok("signals", f"played the self-test on {', '.join(parts)}: {SELF_TEST_WATCH} "
                          f"(if a part stayed dark or silent, check its wiring: {GUIDE})")


# --- database -------------------------------------------------------------------------------------

def check_database(path: str | Path, *, timeout: float = 2.0) -> CheckResult:
    """The event log at ``path`` can be created and written (a write lock, then rolled back).

    ``timeout`` is how long to wait for another writer's lock."""
    path = Path(path)
    folder_fix = (f"Let the companion's user write there (sudo install -d -o uno-companion "
                  f"{path.parent}), or set [log] path to a writable place.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _fail("database", f"cannot create the folder {path.parent}: {exc.strerror or exc}",
                     folder_fix)
    existed = path.exists()
    try:
        con = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("CREATE TABLE IF NOT EXISTS doctor_probe (x)")
            con.execute("ROLLBACK")
            mode = con.execute("PRAGMA journal_mode").fetchone()[0]
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            fix = ("Another program holds the event log's write lock: is a companion running? "
                   "Stop it, or give this one its own [log] path." + service_hint())
        elif "not a database" in text or "malformed" in text:
            fix = ("The file is not an event log: move it aside (the companion then starts a "
                   "new one), or set [log] path.")
        else:
            fix = folder_fix
        return _fail("database", f"cannot write the event log {path}: {text}", fix)
    finally:
        if not existed and path.exists() and path.stat().st_size == 0:
            path.unlink()  # leave nothing behind; the companion makes its own
    if not existed:
        return _ok("database", f"{path} is writable (new: the companion makes it at start)")
    return _ok("database", f"{path} is writable ({path.stat().st_size // 1024} KiB, journal {mode})")


# --- port -----------------------------------------------------------------------------------------

def check_port(host: str, port: int, *, is_active: Callable[[], bool] | None = None) -> CheckResult:
    """The web server could listen on ``host:port`` (bound, as werkzeug does, and let go)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return _fail("port", f"[web] host {host!r} is not an address: {exc}",
                     'Set [web] host to "0.0.0.0" (every network) or one of this machine\'s addresses.')
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(1)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return _fail("port", f"port {port} on {host} is in use",
                         f"Another program listens there (sudo ss -ltnp 'sport = :{port}' says "
                         f"which); stop it or change [web] port.{service_hint(is_active)}")
        if exc.errno == errno.EACCES:
            return _fail("port", f"port {port} needs privileges this user does not have",
                         "Ports below 1024 need root or CAP_NET_BIND_SERVICE: the service has it "
                         "(check with sudo uno-companion-doctor), or use a port from 1024 up.")
        if exc.errno == errno.EADDRNOTAVAIL:
            return _fail("port", f"{host} is not an address of this machine",
                         'Set [web] host to "0.0.0.0" (every network) or one of its addresses.')
        return _fail("port", f"cannot listen on {host}:{port}: {exc}",
                     "Change [web] host or port.")
    return _ok("port", f"{host}:{port} is free")


# --- addresses ------------------------------------------------------------------------------------

def check_addresses(host: str, port: int, public_url: str = "", *,
                    lan_ip: Callable[[], str] | None = None,
                    hostname: Callable[[], str] = socket.gethostname) -> CheckResult:
    """The address the QR code sends phones to, as the web page will make it."""
    from urllib.parse import urlsplit

    if lan_ip is None:
        try:
            from web.netinfo import lan_ip
        except ImportError as exc:
            return _fail("addresses", f"cannot check: web.netinfo not available ({exc})",
                         "Install the companion with its dependencies (deploy/install.sh).")
    from ipaddress import ip_address

    def loopback(address: str) -> bool:
        try:
            return ip_address(address).is_loopback
        except ValueError:
            return address == "localhost"

    if public_url:
        parts = urlsplit(public_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return _fail("addresses", f"[web] public_url {public_url!r} is not an http(s) address",
                         'Write it whole, like "http://192.168.1.20:8000", or leave it empty.')
        if loopback(parts.hostname):
            return _fail("addresses", f"[web] public_url {public_url} points at this machine "
                                      "itself: phones cannot use it",
                         "Use this machine's LAN address, or leave public_url empty.")
        return _ok("addresses", f"phones are sent to {public_url.rstrip('/')}/ ([web] public_url)")
    if loopback(host):
        return _fail("addresses", f"the web server listens on {host} only: phones cannot reach it",
                     'Set [web] host = "0.0.0.0" in the configuration.')
    address = lan_ip()
    if loopback(address):
        return _fail("addresses", "this machine has no LAN address: phones cannot reach it",
                     "Connect the Pi to the Wi-Fi the phones use (sudo nmtui) or to Ethernet.")
    if host not in ("", "0.0.0.0", "::") and host != address:
        address = host
    name = hostname().split(".")[0]
    return _ok("addresses", f"phones are sent to http://{address}:{port}/ (the QR code); "
                            f"also http://{name}.local:{port}/ where the phone resolves .local")


# --- all of them ----------------------------------------------------------------------------------

def _skipped(name: str, why: str) -> CheckResult:
    return _ok(name, f"not needed: {why}")


def run_checks(config, *, pin_factory=None, open_source: Callable[[], Any] | None = None,
               selftest: bool = True, only: Iterable[str] | None = None, frames: int = 5,
               load_model: Callable[[], Any] | None = None,
               is_active: Callable[[], bool] | None = None,
               on_result: Callable[[CheckResult], None] | None = None) -> list[CheckResult]:
    """Every check but ``config`` for ``config``, in :data:`CHECKS` order (``only``: some).

    ``on_result`` sees each result as soon as it is known (the command prints it at once: the
    camera and the self-test take seconds).
    """
    wanted = set(only or CHECKS)
    results: list[CheckResult] = []

    def add(result: CheckResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    pinmap = None
    if wanted & {"pins", "signals"}:
        try:
            from hardware.pinmap import PinMap
            pinmap = PinMap.from_config(config.pins)
        except ImportError:
            pinmap = None
        except Exception:  # noqa: BLE001 - check_config reports a bad pin map
            pinmap = False
    referee = config.table.mode == "referee"
    frame_kept: list = []
    if "system" in wanted:
        add(check_system(camera=referee and config.camera.source in ("auto", "picamera")))
    if "camera" in wanted:
        if not referee:
            add(_skipped("camera", f"mode {config.table.mode} uses no camera"))
        else:
            if open_source is None:
                def open_source():
                    import importlib.util

                    c = config.camera
                    pi = c.source == "picamera" or (
                        c.source == "auto" and importlib.util.find_spec("picamera2") is not None)
                    if pi:  # as `companion run` opens it: mode, focus, flicker
                        from app.runner import camera_opener
                        return camera_opener(c)()
                    from simulator.source import open_source as open_spec
                    return open_spec(c.source, width=c.width, height=c.height, fps=c.fps)
            add(check_camera(open_source, spec=config.camera.source, frames=frames,
                             keep=frame_kept, is_active=is_active))
    if "markers" in wanted:
        if not referee:
            add(_skipped("markers", f"mode {config.table.mode} uses no camera"))
        else:
            if "camera" not in wanted:
                add(_fail("markers", "cannot check: the camera check was left out",
                          "Run the markers check together with the camera check."))
            else:
                add(check_markers(frame_kept[-1] if frame_kept else None))
    if "model" in wanted:
        add(check_model(load_model) if referee
            else _skipped("model", f"mode {config.table.mode} reads no cards"))
    for name, check in (("pins", check_pins), ("signals", check_signals)):
        if name not in wanted:
            continue
        if pinmap is False:
            add(_fail(name, "cannot check: the [pins] section is wrong (see config)",
                      "Correct the [pins] section first."))
        elif name == "signals" and not selftest:
            add(_skipped("signals", "self-test left out (--no-selftest)"))
        else:
            add(check(pinmap, pin_factory, is_active=is_active))
    if "database" in wanted:
        add(check_database(config.log_path()))
    if "port" in wanted:
        add(check_port(config.web.host, config.web.port, is_active=is_active))
    if "addresses" in wanted:
        add(check_addresses(config.web.host, config.web.port, config.web.public_url))
    return results


def summary(results: list[CheckResult]) -> str:
    failed = [r.name for r in results if not r.ok]
    if not failed:
        return f"all {len(results)} checks passed: the table is ready"
    return f"{len(failed)} of {len(results)} checks failed: {', '.join(failed)}"

