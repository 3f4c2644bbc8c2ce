"""The referee: turns phone taps, button presses, the turn timer and (later) camera readings
into engine actions, and publishes what happened on the event bus."""

from .table import Answer, Table
from .timer import TimerSignal, TurnTimer

__all__ = ["Table", "Answer", "TurnTimer", "TimerSignal"]
