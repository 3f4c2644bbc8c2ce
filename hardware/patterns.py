"""Light patterns and colours as data (the buzzer's are in :mod:`hardware.tunes`).

Colours are (red, green, blue) in 0..1, what :class:`gpiozero.RGBLED` takes. Without PWM an
RGB LED can only be full on or off per colour: :func:`full_colour` rounds any lit component up,
so amber becomes yellow and a dim green a full one.

>>> colour_name((1, 0.5, 0)), colour_name((0, 0.15, 0)), colour_name((0, 0, 0))
('amber', 'green', 'off')
>>> full_colour((1, 0.5, 0))
(1, 1, 0)
"""

from __future__ import annotations

from .timeline import Loop, Track

__all__ = ["OFF", "RED", "GREEN", "BLUE", "AMBER", "YELLOW", "WHITE", "PURPLE", "DIM_GREEN",
           "LIGHT_SIDE", "DARK_SIDE", "COLOURS", "colour_name", "full_colour",
           "flash", "pulse", "WIN_BLINK", "CAMERA_LOST", "CAMERA_MISSING", "CAMERA_BUSY", "CAMERA_ENDED"]

Colour = tuple[float, float, float]

OFF: Colour = (0, 0, 0)
RED: Colour = (1, 0, 0)
GREEN: Colour = (0, 1, 0)
BLUE: Colour = (0, 0, 1)
AMBER: Colour = (1, 0.5, 0)
YELLOW: Colour = (1, 1, 0)
WHITE: Colour = (1, 1, 1)
PURPLE: Colour = (0.5, 0, 1)
MAGENTA: Colour = (1, 0, 1)
CYAN: Colour = (0, 1, 1)
#: The status LED when all is well: the companion is on and watching.
DIM_GREEN: Colour = (0, 0.15, 0)
#: The side LED: white for the light side, purple for the dark side.
LIGHT_SIDE: Colour = WHITE
DARK_SIDE: Colour = PURPLE

COLOURS: dict[str, Colour] = {"red": RED, "green": GREEN, "blue": BLUE, "amber": AMBER,
                              "yellow": YELLOW, "white": WHITE, "purple": PURPLE,
                              "magenta": MAGENTA, "cyan": CYAN}


def colour_name(rgb) -> str:
    """The nearest named colour of ``rgb`` at full brightness ("off" when dark)."""
    top = max(rgb)
    if top <= 0:
        return "off"
    norm = tuple(c / top for c in rgb)
    return min(COLOURS, key=lambda n: sum((a - b) ** 2 for a, b in zip(COLOURS[n], norm)))


def full_colour(rgb) -> tuple[int, int, int]:
    """``rgb`` for an RGB LED without PWM: each lit component full on."""
    return tuple(1 if c > 0 else 0 for c in rgb)  # type: ignore[return-value]


def flash(name: str, colour: Colour, seconds: float) -> Track:
    """The status LED in ``colour`` for ``seconds``, then back to what it showed."""
    return Track(name, ((colour, seconds),))


def pulse(name: str, colour: Colour, period: float = 1.0, steps: int = 10, pwm: bool = True) -> Loop:
    """A slow breathe of ``colour`` (up and down in ``steps`` each way); without PWM a blink."""
    if not pwm:
        return Loop(name, ((full_colour(colour), period / 2), (OFF, period / 2)))
    levels = [(i + 1) / steps for i in range(steps)]
    ramp = levels + levels[-2::-1] + [0.0]  # 0.1 .. 1.0 .. 0.1, 0
    step = period / len(ramp)
    return Loop(name, tuple((tuple(round(c * b, 3) for c in colour), step) for b in ramp))


#: A winner's seat LED: a quick blink until the next round starts.
WIN_BLINK = Loop("win", ((True, 0.25), (False, 0.25)))
#: The status LED while the camera has lost the table: a blue double blink every 1.5 s.
CAMERA_LOST = Loop("camera-lost", ((BLUE, 0.15), (OFF, 0.15), (BLUE, 0.15), (OFF, 1.05)))
#: No camera found (none connected, or no picamera2): one long blue blink every two seconds.
CAMERA_MISSING = Loop("camera-missing", ((BLUE, 1.0), (OFF, 1.0)))
#: The camera is held by another program: three short blue blinks.
CAMERA_BUSY = Loop("camera-busy", ((BLUE, 0.15), (OFF, 0.15), (BLUE, 0.15), (OFF, 0.15),
                                   (BLUE, 0.15), (OFF, 0.75)))
#: The status LED once the video being refereed has ended: steady blue (nothing more to see).
CAMERA_ENDED = Loop("camera-ended", ((BLUE, 1.0),))
