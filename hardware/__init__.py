"""GPIO out and in: seat, side and status LEDs, the buzzer, the optional table buttons.

Everything runs on gpiozero and takes a ``pin_factory``: the real pins on a Raspberry Pi
(lgpio on a Pi 5), gpiozero's ``MockFactory`` (with ``MockPWMPin`` for dimming and tones)
anywhere else. See docs/hardware.md for the pin map, the wiring and what each signal means.
"""

from .errors import HardwareError, PinMapError, PinUnavailable
from .pinmap import SIDES, PinMap

__all__ = ["HardwareError", "PinMapError", "PinUnavailable", "PinMap", "SIDES",
           "Signals", "TableButtons"]


def __getattr__(name):
    # Signals and buttons import gpiozero; the pin map alone does not need it.
    if name == "Signals":
        from .signals import Signals
        return Signals
    if name == "TableButtons":
        from .buttons import TableButtons
        return TableButtons
    raise AttributeError(name)
