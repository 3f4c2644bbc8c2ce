"""Collecting the packages' doctests (``--doctest-modules``, see pyproject.toml).

A module whose import needs what only a training machine (the ``train`` extra: torch, onnx) or
a Raspberry Pi (picamera2, libcamera, RPi, lgpio) has is skipped there, with the reason, instead
of failing the collection; any other import error still fails it.
"""

from __future__ import annotations

import importlib

import pytest
from _pytest.doctest import DoctestModule
from _pytest.reports import CollectReport

#: Top-level modules some package modules may need that a development machine may lack.
OPTIONAL = {"torch", "onnx", "picamera2", "libcamera", "RPi", "lgpio"}


def _missing_optional(collector: DoctestModule) -> str | None:
    """The optional module that importing ``collector``'s module misses, or None."""
    root = collector.config.rootpath
    try:
        parts = collector.path.relative_to(root).with_suffix("").parts
    except ValueError:
        return None
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        return top if top in OPTIONAL else None
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector):
    if not isinstance(collector, DoctestModule):
        return None
    missing = _missing_optional(collector)
    if missing is None:
        return None  # collected (or failed) as usual
    reason = f"{collector.path.name} needs {missing}, which is not installed here"
    return CollectReport(collector.nodeid, "skipped", (str(collector.path), None, reason), [])
