"""The hardware guide's field-of-view table is computed from the sensors' data
(scripts/field_of_view.py), and the numbers agree with the makers' datasheets."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fov():
    spec = importlib.util.spec_from_file_location("field_of_view", REPO / "scripts" / "field_of_view.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_its_examples(fov):
    assert doctest.testmod(fov).failed == 0


def test_the_guide_shows_the_computed_table(fov):
    text = fov.GUIDE.read_text()
    start, end = text.index(fov.START) + len(fov.START), text.index(fov.END)
    assert text[start:end].strip() == fov.table(), \
        "docs/hardware-guide.md is stale: run python scripts/field_of_view.py --write"


@pytest.mark.parametrize("name, datasheet", [
    # the makers' horizontal x vertical field of view of the whole sensor, degrees
    ("Camera Module v2", (62.2, 48.8)),
    ("Camera Module 3", (66, 41)),
    ("Camera Module 3 Wide", (102, 67)),
])
def test_the_sensor_data_give_the_makers_field_of_view(fov, name, datasheet):
    module = fov.MODULES[name]
    w, h = module.sensor_mm()
    full = module.angles(output=module.pixels)  # the whole sensor, no cut to 16:9
    assert full[0] == pytest.approx(datasheet[0], abs=3.5)
    assert full[1] == pytest.approx(datasheet[1], abs=1.5)


def test_the_module_3_at_90_cm_covers_the_mat_and_a_centre_crop_would_not(fov):
    view = fov.MODULES["Camera Module 3"].view(90)
    assert view.fits() and view.marker_px >= fov.MIN_MARKER_PX
    # the 1536x864 mode is a centre crop of 3072x1728 of the 4608x2592 sensor: 2/3 the width
    cropped = fov.View(view.width_cm * 2 / 3, view.height_cm * 2 / 3, view.marker_px * 3 / 2)
    assert not cropped.fits()


def test_a_4_3_sensor_cut_to_16_9_loses_height_not_width(fov):
    hq = fov.MODULES["HQ Camera"]
    wide, square = hq.view(90, (1280, 720)), hq.view(90, (1280, 960))
    assert wide.width_cm == pytest.approx(square.width_cm, rel=1e-3)
    assert wide.height_cm < square.height_cm
