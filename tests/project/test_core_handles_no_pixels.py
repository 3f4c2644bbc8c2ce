"""The core handles no pixels: the looks of the table's regions, and every distance between
them, are the camera code's (vision.looks); a reading carries the distances as plain numbers."""

from __future__ import annotations

import dataclasses
import typing

import grimp

from companion.reading import LookChange, RegionReading, TableReading

PIXEL_LIBRARIES = ("numpy", "cv2", "PIL", "scipy", "skimage")


def test_no_module_of_the_core_imports_a_pixel_library():
    # every import counts: at the top, inside a function, or for the type checker only
    graph = grimp.build_graph("companion", include_external_packages=True, cache_dir=None)
    core = sorted(m for m in graph.modules if m == "companion" or m.startswith("companion."))
    assert "companion.referee.camera" in core and "companion.reading" in core
    found = sorted((m, imported) for m in core for imported in graph.find_modules_directly_imported_by(m)
                   if imported.split(".")[0] in PIXEL_LIBRARIES)
    assert found == []


def _plain(hint) -> bool:
    """A type whose values are plain data (no array, no Any)."""
    if hint is typing.Any:
        return False
    if hint in (str, int, float, bool, type(None)):
        return True
    if dataclasses.is_dataclass(hint):
        return all(_plain(h) for h in typing.get_type_hints(hint).values())
    args = typing.get_args(hint)
    return bool(args) and all(_plain(a) for a in args if a is not Ellipsis)


def test_a_regions_reading_carries_its_look_as_plain_numbers():
    hints = typing.get_type_hints(RegionReading)
    assert {name: hint for name, hint in hints.items() if not _plain(hint)} == {}
    assert _plain(LookChange) and "look_change" in hints
    assert not _plain(typing.Any)   # (the check can fail)


def test_the_tables_reading_holds_only_region_readings_and_plain_data():
    hints = typing.get_type_hints(TableReading)
    assert typing.get_args(hints["cells"])[0] is RegionReading
