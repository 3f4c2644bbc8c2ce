"""deploy/wiring.svg is what scripts/draw_wiring.py draws from the default pin map, and every
wire in it names the pin the pin map gives its part."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from hardware.pinmap import BCM_TO_BOARD, PinMap
from tests.support.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
SVG = REPO / "deploy" / "wiring.svg"
NS = {"svg": "http://www.w3.org/2000/svg"}


def draw_wiring():
    return load_script("scripts/draw_wiring.py")


def wires(root) -> dict[str, tuple[int, int]]:
    return {g.get("data-key"): (int(g.get("data-bcm")), int(g.get("data-board")))
            for g in root.iterfind(".//svg:g[@class='wire']", NS)}


def test_the_committed_svg_is_the_drawing_of_the_defaults():
    assert SVG.read_text(encoding="utf-8") == draw_wiring().render(), \
        "deploy/wiring.svg is stale: run python scripts/draw_wiring.py"


def test_every_default_pin_is_wired_where_the_pin_map_says():
    root = ET.parse(SVG).getroot()
    expected = {key: (pin, BCM_TO_BOARD[pin]) for key, pin in PinMap().pins().items()}
    assert wires(root) == expected
    used_boards = {board for _, board in expected.values()}
    # the header shows 40 pins, and a wired pin is drawn as used
    pins = {int(g.get("data-board")): g for g in root.iterfind(".//svg:g[@class='header-pin']", NS)}
    assert sorted(pins) == list(range(1, 41))
    for board, g in pins.items():
        shape = next(iter(g))
        assert ("used" in shape.get("class")) == (board in used_boards), board


def test_a_changed_pin_map_draws_differently():
    draw = draw_wiring()
    moved = PinMap.from_config({"seat_north": 4, "buttons": False})
    root = ET.fromstring(draw.render(moved))
    drawn = wires(root)
    assert drawn["seat_north"] == (4, 7)
    assert not any(key.startswith("button_") for key in drawn)


def test_check_mode_agrees(tmp_path, capsys):
    draw = draw_wiring()
    assert draw.main(["--check"]) == 0
    stale = tmp_path / "wiring.svg"
    stale.write_text("<svg/>")
    assert draw.main(["--check", "--out", str(stale)]) == 1
    assert "does not match the default pin map" in capsys.readouterr().err
