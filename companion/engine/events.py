"""Events: what happened, in the order it happened. The referee publishes them on the event bus.

An event is a ``type`` (kebab-case, stable: part of the replay contract) and a few JSON-ready
fields. Engines build them with :func:`event`.

>>> event("drew", seat="ann", count=2, reason="draw-two").to_json()
{'type': 'drew', 'seat': 'ann', 'count': 2, 'reason': 'draw-two'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Event", "event"]


@dataclass(frozen=True)
class Event:
    type: str
    data: tuple[tuple[str, Any], ...] = ()

    def __getitem__(self, key: str) -> Any:
        return dict(self.data)[key]

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.data).get(key, default)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **dict(self.data)}


def _jsonable(value: Any) -> Any:
    if hasattr(value, "name") and hasattr(value, "face"):  # a Card
        return value.name
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def event(type: str, **data: Any) -> Event:
    """An event of ``type`` with ``data`` made JSON-ready (cards become names, tuples lists)."""
    return Event(type, tuple((k, _jsonable(v)) for k, v in data.items()))
