"""Mock pins for the hardware tests: a PWM pin that remembers what it was told, the default pin
map's numbers by role, and :class:`SignalsRig`, the signals on a bus, mock pins and a manual
clock (the ``rig`` fixture of tests/conftest.py)."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from companion.bus import EventBus
from hardware import PinMap
from hardware.signals import Signals
from hardware.timeline import ManualClock
from hardware.tunes import TUNES

# The default pin map, by role.
NORTH, EAST, SOUTH, WEST = 5, 6, 13, 19
SIDE_R, SIDE_G, SIDE_B = 16, 20, 21
ST_R, ST_G, ST_B = 17, 27, 22
BUZZER = 18
DIM = 0.15  # the status LED's idle green


class RecordingPWMPin(MockPWMPin):
    """A mock PWM pin that also remembers every frequency set (the buzzer's notes) and every
    function (input, output) it was given."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.frequencies = []
        self.functions = []

    def _set_frequency(self, value):
        super()._set_frequency(value)
        self.frequencies.append(value)

    def _set_function(self, value):
        super()._set_function(value)
        self.functions.append(value)


def hz(note):
    return Tone(note).frequency


def notes_of(name):
    """The frequencies a tonal buzzer is given for tune ``name`` (rests stop it: None)."""
    out = []
    for note, _ in TUNES[name].steps:
        out.append(hz(note) if note else None)
    if out[-1] is not None:
        out.append(None)  # the buzzer stops at the end
    return out


class SignalsRig:
    """A bus, mock pins, a manual clock and the signals under test."""

    def __init__(self, pwm=True, pinmap=None, **kwargs):
        self.bus = EventBus()
        self.factory = MockFactory(pin_class=RecordingPWMPin) if pwm else MockFactory()
        self.clock = ManualClock()
        self.signals = Signals(self.bus, pinmap or PinMap(), pin_factory=self.factory,
                               clock=self.clock, **kwargs)
        assert self.signals.flush()
        self.reset()

    def reset(self):
        """Forget the histories so far (each test checks the history of its own signal)."""
        for pin in self.factory.pins.values():
            pin.clear_states()
            if hasattr(pin, "frequencies"):
                pin.frequencies.clear()

    def send(self, type, **data):
        self.bus.publish(type, **data)
        assert self.bus.join()  # delivered to the signals' inbox ...
        assert self.signals.flush()  # ... and shown

    def advance(self, seconds):
        self.clock.advance(seconds)
        assert self.signals.flush()

    def states(self, pin):
        return [s.state for s in self.factory.pin(pin).states]

    def freqs(self):
        return self.factory.pin(BUZZER).frequencies
