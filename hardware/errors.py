"""The hardware's own exceptions: specific, and saying which pin, why, and what to do.

A pin can be unavailable for four reasons, each with its own fix (:func:`gpio_fault`):

=============  =====================================================================
kind           what it is
=============  =====================================================================
``busy``       another program holds the pin (lgpio raises its own ``error``: "GPIO busy")
``no-access``  this user may not open ``/dev/gpiochip*`` (not in the ``gpio`` group)
``no-lgpio``   a Raspberry Pi without lgpio, gpiozero's backend (python3-lgpio not installed,
               or a venv that does not see the system's packages)
``no-gpio``    not a Raspberry Pi: no GPIO at all (use mock pins)
``error``      anything else the driver says
=============  =====================================================================
"""

from __future__ import annotations

import errno
import importlib.util
import os
from pathlib import Path
from typing import Callable

__all__ = ["HardwareError", "PinMapError", "PinUnavailable", "gpio_fault"]


class HardwareError(RuntimeError):
    """Something about the GPIO side of the companion (pins, LEDs, buzzer, buttons)."""


class PinMapError(HardwareError, ValueError):
    """A pin map that cannot be used: an unknown key, a bad pin number, a pin used twice."""


def _gpio_chips(dev: Path) -> list[Path]:
    return sorted(dev.glob("gpiochip*"))


def _is_pi(model_file: Path) -> bool:
    try:
        return "raspberry pi" in model_file.read_text(errors="replace").lower()
    except OSError:
        return False


def gpio_fault(cause: BaseException, *, dev: Path = Path("/dev"),
               model_file: Path = Path("/proc/device-tree/model"),
               has_lgpio: Callable[[], bool] | None = None,
               access: Callable[[Path], bool] | None = None) -> tuple[str, str]:
    """``(kind, why)`` for a pin error (the table in the module docs).

    gpiozero says "Unable to load any default pin factory!" for a missing lgpio, for a
    ``/dev/gpiochip*`` this user may not open and for a machine with no GPIO alike: this looks
    at the machine to tell them apart. ``dev``, ``model_file``, ``has_lgpio`` and ``access``
    are for tests.

    >>> error = type("error", (Exception,), {"__module__": "lgpio"})  # lgpio's own exception
    >>> gpio_fault(error("GPIO busy"))
    ('busy', 'another program holds it (lgpio: GPIO busy)')
    """
    has_lgpio = has_lgpio or (lambda: importlib.util.find_spec("lgpio") is not None)
    access = access or (lambda p: os.access(p, os.R_OK | os.W_OK))
    text = str(cause)
    low = text.lower()
    if "busy" in low or getattr(cause, "errno", None) == errno.EBUSY or "already in use" in low:
        label = "lgpio" if type(cause).__module__.startswith("lgpio") else type(cause).__name__
        return "busy", f"another program holds it ({label}: {text})"
    chips = _gpio_chips(dev)
    if isinstance(cause, PermissionError) or "can not open gpiochip" in low or "permission" in low \
            or (chips and not any(access(c) for c in chips)):
        names = ", ".join(str(c) for c in chips) or "/dev/gpiochip*"
        return "no-access", f"this user may not open {names} (not in the gpio group)"
    if type(cause).__name__ == "BadPinFactory" or isinstance(cause, ImportError):
        if _is_pi(model_file) or chips:
            if not has_lgpio():
                return "no-lgpio", "lgpio, gpiozero's backend on the Pi, is not installed (or the " \
                                   "venv does not see the system's python3-lgpio)"
            return "error", f"{type(cause).__name__}: {text}"
        return "no-gpio", "no GPIO that gpiozero can drive on this machine"
    return "error", f"{type(cause).__name__}: {text.rstrip('.!')}"


_FIXES = {
    "busy": "Stop the program that holds it (`gpioinfo` names the holder of each line; is another "
            "companion running?), or move the {role} to a free pin in the [pins] section "
            "(docs/hardware.md).",
    "no-access": "Add the user to the gpio group (sudo usermod -aG gpio $USER, then log in again); "
                 "the service's own user is in it (deploy/install.sh).",
    "no-lgpio": "Install it: sudo apt install python3-lgpio, with a venv made with "
                "--system-site-packages (deploy/install.sh does both).",
    "no-gpio": "Is this a Raspberry Pi? To try the table on another computer, run `companion "
               "demo` (bots, a simulated camera, the lights on the web page); `companion doctor "
               "--mock-pins` checks the pins' logic on mock pins (GPIOZERO_PIN_FACTORY=mock).",
    "error": "Is another program or device using it? Change it in the [pins] section of the "
             "configuration (see docs/hardware.md).",
}


class PinUnavailable(HardwareError):
    """A pin that gpiozero could not give us: in use by another device or process, no access
    to the GPIO chip, no lgpio, not a valid pin on this board, or no GPIO at all here.

    ``role`` says what the pin was for (``"seat LED north"``), ``pin`` its BCM number, ``cause``
    the exception of gpiozero or lgpio, ``kind`` and ``why`` what :func:`gpio_fault` made of it
    and ``fix`` what to do.
    """

    def __init__(self, role: str, pin: int | None, cause: BaseException):
        self.role = role
        self.pin = pin
        self.cause = cause
        self.kind, self.why = gpio_fault(cause)
        self.fix = _FIXES[self.kind].format(role=role)
        where = f"GPIO{pin}" if pin is not None else "a pin"
        if self.kind in ("no-gpio", "no-lgpio", "no-access"):
            message = f"{self.why} (needed for {where}, {role}). {self.fix}"
        else:
            message = f"{where} ({role}) is unavailable: {self.why}. {self.fix}"
        super().__init__(message)
