"""The pin map: which GPIO drives which LED, the buzzer, and which reads which button.

Pins are BCM numbers (what gpiozero calls ``GPIO17``). The defaults suit a Raspberry Pi 4 or
5 and stay off the pins that other parts of a table companion may want: GPIO0/1 (the HAT ID
EEPROM), GPIO2/3 (I2C), GPIO7-11 (SPI), GPIO14/15 (the serial console). The camera uses its
own CSI connector and no header pin. docs/hardware.md has the wiring table.

The ``[pins]`` section of the configuration overrides any key; a pin may be given as a BCM
number (``17``), ``"GPIO17"``, ``"BCM17"`` or a header position (``"BOARD11"``, ``"J8:11"``),
and ``false`` (or ``"none"``) leaves a part out.

>>> PinMap().seat_pins()["north"]
5
>>> pm = PinMap.from_config({"seat_north": "BOARD11", "status_red": 4, "buttons": False})
>>> pm.seat_north, pm.buttons
(17, False)
>>> PinMap.from_config({"seat_east": 5})
Traceback (most recent call last):
  ...
hardware.errors.PinMapError: GPIO5 is used twice: seat_north and seat_east
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Mapping

from .errors import PinMapError

__all__ = ["PinMap", "SIDES", "BOARD_TO_BCM", "parse_pin"]

#: The four sides of the table, clockwise, as seen on the camera's top-down view.
SIDES = ("north", "east", "south", "west")

#: The 40-pin header: physical position -> BCM number (power and ground pins left out).
BOARD_TO_BCM = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10,
    21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19,
    36: 16, 37: 26, 38: 20, 40: 21,
}
BCM_TO_BOARD = {bcm: board for board, bcm in BOARD_TO_BCM.items()}

_RESERVED = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)"}
_BUZZER_KINDS = ("tonal", "plain", "none")


def parse_pin(key: str, value: Any) -> int | None:
    """One pin value from the configuration as a BCM number, or None for "not wired"."""
    if value is None or value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise PinMapError(f"pins.{key} must be a BCM number, \"GPIOn\", \"BOARDn\" or false, "
                          f"got {value!r}")
    if isinstance(value, str):
        text = value.strip().upper()
        if text in ("", "NONE", "OFF"):
            return None
        if m := re.fullmatch(r"(?:GPIO|BCM)?(\d+)", text):
            value = int(m.group(1))
        elif m := re.fullmatch(r"(?:BOARD|J8:)(\d+)", text):
            board = int(m.group(1))
            if board not in BOARD_TO_BCM:
                raise PinMapError(f"pins.{key}: header pin {board} is not a GPIO pin "
                                  f"(power, ground or out of 1-40)")
            value = BOARD_TO_BCM[board]
        else:
            raise PinMapError(f"pins.{key}: cannot read {value!r} as a pin "
                              f"(use 17, \"GPIO17\" or \"BOARD11\")")
    if not 0 <= value <= 27:
        raise PinMapError(f"pins.{key}: GPIO{value} does not exist on the 40-pin header (0-27)")
    if value in _RESERVED:
        raise PinMapError(f"pins.{key}: GPIO{value} is reserved for {_RESERVED[value]}")
    return value


@dataclass(frozen=True)
class PinMap:
    """Where everything is wired. Every pin is a BCM number or None (not wired).

    An RGB LED needs all three of its pins or none. ``buzzer_kind`` is ``tonal`` (a passive
    piezo played as a :class:`gpiozero.TonalBuzzer`; falls back to ``plain`` where the pin
    cannot do PWM), ``plain`` (an active buzzer: on/off only) or ``none``. ``pwm`` lets the RGB
    LEDs dim and pulse (off: full colours only). ``common_anode`` is for RGB LEDs whose common
    leg goes to 3V3. ``buttons`` turns the optional table buttons on. ``bounce`` is the
    buttons' debounce time in seconds.
    """

    seat_north: int | None = 5       # header pin 29
    seat_east: int | None = 6        # 31
    seat_south: int | None = 13      # 33
    seat_west: int | None = 19       # 35
    side_red: int | None = 16        # 36   the Light/Dark side LED (RGB)
    side_green: int | None = 20      # 38
    side_blue: int | None = 21       # 40
    status_red: int | None = 17      # 11   the status LED (RGB)
    status_green: int | None = 27    # 13
    status_blue: int | None = 22     # 15
    buzzer: int | None = 18          # 12   (lgpio: software PWM, as on every pin)
    button_uno: int | None = 23      # 16
    button_draw: int | None = 24     # 18   draw, or pass after a draw
    button_confirm: int | None = 25  # 22
    buzzer_kind: str = "tonal"
    pwm: bool = True
    common_anode: bool = False
    buttons: bool = True
    bounce: float = 0.05

    def __post_init__(self) -> None:
        if self.buzzer_kind not in _BUZZER_KINDS:
            raise PinMapError(f"pins.buzzer_kind must be one of {', '.join(_BUZZER_KINDS)}, "
                              f"got {self.buzzer_kind!r}")
        if not isinstance(self.bounce, (int, float)) or isinstance(self.bounce, bool) \
                or not 0 <= self.bounce <= 1:
            raise PinMapError(f"pins.bounce must be seconds between 0 and 1, got {self.bounce!r}")
        for flag in ("pwm", "common_anode", "buttons"):
            if not isinstance(getattr(self, flag), bool):
                raise PinMapError(f"pins.{flag} must be true or false, got {getattr(self, flag)!r}")
        for key in self.pin_keys():
            parse_pin(key, getattr(self, key))  # the same checks as from_config
        for rgb in ("side", "status"):
            wired = [getattr(self, f"{rgb}_{c}") is not None for c in ("red", "green", "blue")]
            if any(wired) and not all(wired):
                raise PinMapError(f"pins.{rgb}_red/_green/_blue: an RGB LED needs all three "
                                  f"pins, or none (set all three to false)")
        used: dict[int, str] = {}
        for key, pin in self.pins().items():
            if pin in used:
                raise PinMapError(f"GPIO{pin} is used twice: {used[pin]} and {key}")
            used[pin] = key

    @classmethod
    def pin_keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls)
                     if f.name.startswith(("seat_", "side_", "status_", "button_")) or f.name == "buzzer")

    @classmethod
    def from_config(cls, table: Mapping[str, Any] | None) -> "PinMap":
        """The pin map from the configuration's ``[pins]`` table; missing keys keep the defaults."""
        table = dict(table or {})
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise PinMapError(f"[pins] has no key {', '.join(map(repr, unknown))}; "
                              f"known keys: {', '.join(f.name for f in dataclasses.fields(cls))}")
        values = {k: (parse_pin(k, v) if k in cls.pin_keys() else v) for k, v in table.items()}
        return cls(**values)

    def pins(self) -> dict[str, int]:
        """Every wired pin by key (buttons only when they are turned on)."""
        return {k: getattr(self, k) for k in self.pin_keys()
                if getattr(self, k) is not None and (self.buttons or not k.startswith("button_"))}

    def seat_pins(self) -> dict[str, int]:
        """Side -> pin of the seat LEDs that are wired."""
        return {side: getattr(self, f"seat_{side}") for side in SIDES
                if getattr(self, f"seat_{side}") is not None}

    def rgb(self, name: str) -> tuple[int, int, int] | None:
        """The (red, green, blue) pins of the ``side`` or ``status`` LED, or None."""
        pins = tuple(getattr(self, f"{name}_{c}") for c in ("red", "green", "blue"))
        return None if pins[0] is None else pins  # type: ignore[return-value]

    def button_pins(self) -> dict[str, int]:
        """Button name (uno, draw, confirm) -> pin, when buttons are on."""
        if not self.buttons:
            return {}
        return {name: getattr(self, f"button_{name}") for name in ("uno", "draw", "confirm")
                if getattr(self, f"button_{name}") is not None}

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)
