"""The hardware's own exceptions: specific, and saying which pin and what it was for."""

from __future__ import annotations

__all__ = ["HardwareError", "PinMapError", "PinUnavailable"]


class HardwareError(RuntimeError):
    """Something about the GPIO side of the companion (pins, LEDs, buzzer, buttons)."""


class PinMapError(HardwareError, ValueError):
    """A pin map that cannot be used: an unknown key, a bad pin number, a pin used twice."""


class PinUnavailable(HardwareError):
    """A pin that gpiozero could not give us: in use by another device or process, not a
    valid pin on this board, no PWM where PWM is needed, or no GPIO at all on this machine.

    ``role`` says what the pin was for (``"seat LED north"``), ``pin`` its BCM number and
    ``cause`` the gpiozero exception.
    """

    def __init__(self, role: str, pin: int | None, cause: BaseException):
        self.role = role
        self.pin = pin
        self.cause = cause
        where = f"GPIO{pin}" if pin is not None else "a pin"
        reason = f"{type(cause).__name__}: {str(cause).rstrip('.!')}"
        if type(cause).__name__ == "BadPinFactory":
            message = (f"no GPIO that gpiozero can drive on this machine (needed for {where}, "
                       f"{role}): {reason}. Run with mock pins: GPIOZERO_PIN_FACTORY=mock, or "
                       f"pin_factory=MockFactory().")
        else:
            message = (f"{where} ({role}) is unavailable: {reason}. Is another program or device "
                       f"using it? Change it in the [pins] section of the configuration "
                       f"(see docs/hardware.md).")
        super().__init__(message)
