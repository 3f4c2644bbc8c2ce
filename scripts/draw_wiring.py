"""Draws deploy/wiring.svg, the wiring diagram, from the default pin map (hardware.pinmap.PinMap).

    python scripts/draw_wiring.py            # (re)write deploy/wiring.svg
    python scripts/draw_wiring.py --check    # exit 1 if deploy/wiring.svg is not what it draws

The diagram is the Pi's 40-pin header seen from above (pin 1 top left, the SD card end at the
top), each wired pin with its part: odd pins (the left column) wire to the left, even pins to
the right. Every wire is a ``<g class="wire">`` with ``data-key``, ``data-bcm`` and
``data-board`` attributes, so tests/deploy/test_wiring.py checks it against the pin map.
Changing a default pin in hardware/pinmap.py means running this script again.
"""

from __future__ import annotations

import argparse
import sys
from html import escape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.pinmap import BOARD_TO_BCM, BCM_TO_BOARD, PinMap

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "deploy" / "wiring.svg"

#: The header's pins that are not GPIO.
POWER = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}
GROUND = (6, 9, 14, 20, 25, 30, 34, 39)

WIDTH, HEIGHT = 1280, 680
HEADER_X, HEADER_Y, ROW = 590, 110, 22      # the left column's pin centres; rows 22 px apart
COLUMN_GAP = 100                              # the right column is this far right
LED_COLOURS = {"red": "#e53935", "green": "#43a047", "blue": "#1e88e5"}


def part_of(key: str) -> dict[str, str]:
    """What hangs on the pin of ``key``: the label, the resistor and the symbol to draw."""
    kind, _, what = key.partition("_")
    if kind == "seat":
        return {"label": f"seat LED {what}", "resistor": "330 Ω", "symbol": "led",
                "colour": "#fdd835"}
    if kind in ("side", "status"):
        name = "side LED" if kind == "side" else "status LED"
        return {"label": f"{name}, {what} leg", "resistor": "220 Ω", "symbol": "led",
                "colour": LED_COLOURS[what]}
    if kind == "buzzer":
        return {"label": "buzzer (via NPN)", "resistor": "1 kΩ",
                "symbol": "buzzer", "colour": "#6d4c41"}
    names = {"uno": "UNO! button", "draw": "draw / pass button", "confirm": "confirm button"}
    return {"label": names[what], "resistor": "", "symbol": "button", "colour": "#546e7a"}


def pin_xy(board: int) -> tuple[float, float]:
    row = (board - 1) // 2
    x = HEADER_X + (COLUMN_GAP if board % 2 == 0 else 0)
    return x, HEADER_Y + row * ROW


def _resistor(x: float, y: float, direction: int) -> str:
    """A zig-zag 36 px long starting at x, going ``direction`` (+1 right, -1 left)."""
    points = [f"{x:.0f},{y:.0f}"]
    for i in range(1, 7):
        points.append(f"{x + direction * i * 6 - direction * 3:.0f},{y + (-5 if i % 2 else 5):.0f}")
    points.append(f"{x + direction * 36:.0f},{y:.0f}")
    return f'<polyline class="resistor" points="{" ".join(points)}"/>'


def _led(x: float, y: float, direction: int, colour: str) -> str:
    """A diode triangle pointing away from the pin, with its bar and two light arrows."""
    tip = x + direction * 14
    tri = f"{x:.0f},{y - 7:.0f} {x:.0f},{y + 7:.0f} {tip:.0f},{y:.0f}"
    return (f'<polygon class="led" points="{tri}" style="fill:{colour}"/>'
            f'<line x1="{tip:.0f}" y1="{y - 7:.0f}" x2="{tip:.0f}" y2="{y + 7:.0f}"/>'
            f'<line class="glow" x1="{x + direction * 6:.0f}" y1="{y - 8:.0f}" '
            f'x2="{x + direction * 10:.0f}" y2="{y - 13:.0f}"/>')


def _button(x: float, y: float, direction: int) -> str:
    return (f'<circle cx="{x:.0f}" cy="{y:.0f}" r="2"/>'
            f'<line x1="{x:.0f}" y1="{y:.0f}" x2="{x + direction * 16:.0f}" y2="{y - 7:.0f}"/>'
            f'<circle cx="{x + direction * 18:.0f}" cy="{y:.0f}" r="2"/>')


def _buzzer(x: float, y: float, direction: int, colour: str) -> str:
    cx = x + direction * 8
    return (f'<circle class="buzzer" cx="{cx:.0f}" cy="{y:.0f}" r="8" style="fill:{colour}"/>'
            f'<text class="tiny" x="{cx:.0f}" y="{y + 3:.0f}" text-anchor="middle" '
            f'fill="#fff">BZ</text>')


def _ground(x: float, y: float) -> str:
    return (f'<line x1="{x:.0f}" y1="{y - 6:.0f}" x2="{x:.0f}" y2="{y + 6:.0f}"/>'
            f'<line x1="{x + 3:.0f}" y1="{y - 4:.0f}" x2="{x + 3:.0f}" y2="{y + 4:.0f}"/>'
            f'<line x1="{x + 6:.0f}" y1="{y - 2:.0f}" x2="{x + 6:.0f}" y2="{y + 2:.0f}"/>')


def _wire(key: str, bcm: int) -> str:
    board = BCM_TO_BOARD[bcm]
    part = part_of(key)
    px, y = pin_xy(board)
    d = 1 if board % 2 == 0 else -1            # even pins wire right, odd pins left
    label_x = (HEADER_X - 24) if d < 0 else (HEADER_X + COLUMN_GAP + 24)
    start = label_x + d * 56                    # clear of the label
    out = [f'<g class="wire" data-key="{key}" data-bcm="{bcm}" data-board="{board}">',
           f'<text class="pinlabel" x="{label_x:.0f}" y="{y + 4:.0f}" '
           f'text-anchor="{"start" if d > 0 else "end"}">GPIO{bcm}</text>',
           f'<line class="copper" x1="{px + d * 6:.0f}" y1="{y:.0f}" x2="{label_x - d * 4:.0f}" y2="{y:.0f}"/>',
           f'<line class="copper" x1="{start:.0f}" y1="{y:.0f}" x2="{start + d * 30:.0f}" y2="{y:.0f}"/>']
    x = start + d * 30
    if part["resistor"]:
        out.append(_resistor(x, y, d))
        out.append(f'<text class="tiny" x="{x + d * 18:.0f}" y="{y - 8:.0f}" '
                   f'text-anchor="middle">{escape(part["resistor"])}</text>')
        x += d * 36
    out.append(f'<line class="copper" x1="{x:.0f}" y1="{y:.0f}" x2="{x + d * 10:.0f}" y2="{y:.0f}"/>')
    x += d * 10
    if part["symbol"] == "led":
        out.append(_led(x, y, d, part["colour"]))
        x += d * 14
    elif part["symbol"] == "button":
        out.append(_button(x, y, d))
        x += d * 20
    else:
        out.append(_buzzer(x, y, d, part["colour"]))
        x += d * 16
    out.append(f'<line class="copper" x1="{x:.0f}" y1="{y:.0f}" x2="{x + d * 14:.0f}" y2="{y:.0f}"/>')
    x += d * 14
    out.append(_ground(x if d > 0 else x - 6, y))
    text_x = x + d * 14
    out.append(f'<text class="part" x="{text_x:.0f}" y="{y + 4:.0f}" '
               f'text-anchor="{"start" if d > 0 else "end"}">{escape(part["label"])} '
               f'<tspan class="dim">(pin {board})</tspan></text>')
    out.append("</g>")
    return "".join(out)


def _header(used: dict[int, str]) -> str:
    out = [f'<rect class="board" x="{HEADER_X - 16}" y="{HEADER_Y - 16}" '
           f'width="{COLUMN_GAP + 32}" height="{20 * ROW + 10}" rx="6"/>']
    for board in range(1, 41):
        x, y = pin_xy(board)
        if board in POWER:
            cls, text = "power", POWER[board]
        elif board in GROUND:
            cls, text = "gnd", "GND"
        elif BOARD_TO_BCM[board] in used.values():
            cls, text = "used", ""
        else:
            cls, text = "free", ""
        shape = (f'<rect class="pin {cls}" x="{x - 6}" y="{y - 6}" width="12" height="12"/>'
                 if board == 1 else f'<circle class="pin {cls}" cx="{x}" cy="{y}" r="6"/>')
        out.append(f'<g class="header-pin" data-board="{board}">{shape}'
                   f'<text class="tiny num" x="{x + (14 if board % 2 else -14)}" y="{y + 3}" '
                   f'text-anchor="{"start" if board % 2 else "end"}">{board}</text>')
        if text:
            lx = HEADER_X - 24 if board % 2 else HEADER_X + COLUMN_GAP + 24
            out.append(f'<text class="pinlabel {cls}" x="{lx}" y="{y + 4}" '
                       f'text-anchor="{"end" if board % 2 else "start"}">{text}</text>')
        out.append("</g>")
    return "".join(out)


STYLE = """
text { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 12px; fill: #222; }
.title { font-size: 20px; font-weight: bold; }
.tiny { font-size: 9px; }
.num { fill: #fff; }
.dim { fill: #777; }
.pinlabel { font-size: 10px; font-weight: bold; }
.pinlabel.gnd { fill: #000; } .pinlabel.power { fill: #c62828; }
.board { fill: #1b5e20; stroke: #0d3311; }
.pin { stroke: #222; stroke-width: 1; }
.pin.free { fill: #bdbdbd; } .pin.used { fill: #ffb300; } .pin.gnd { fill: #111; }
.pin.power { fill: #e53935; }
line, polyline, polygon, .buzzer { stroke: #222; stroke-width: 1.5; fill: none; }
polygon.led { stroke-width: 1.2; }
.copper { stroke: #b87333; stroke-width: 2; }
.glow { stroke: #999; stroke-width: 1; }
.note { font-size: 11px; fill: #444; }
"""


def render(pinmap: PinMap | None = None) -> str:
    """The SVG text for ``pinmap`` (default: the defaults). Deterministic."""
    pinmap = pinmap or PinMap()
    used = pinmap.pins()
    wires = "".join(_wire(key, bcm) for key, bcm in sorted(used.items(),
                                                         key=lambda kv: BCM_TO_BOARD[kv[1]]))
    notes = [
        "Header seen from above, SD-card end at the top; pin 1 is the square one. "
        "Orange: wired; grey: free; black: ground; red: power.",
        "LED: GPIO → resistor → anode (long leg); cathode → any GND pin. "
        "RGB LEDs are common cathode (set pins.common_anode = true for common anode: common leg to 3V3).",
        "Buzzer: a passive piezo through an NPN transistor (2N2222/BC337): GPIO → 1 kΩ → base, "
        "piezo from 5V to collector, emitter → GND. A small piezo may sit straight between GPIO and GND.",
        "Buttons: GPIO → push button → GND; the Pi's internal pull-up does the rest. "
        "The camera uses its own CSI connector, no header pin.",
        "Drawn by scripts/draw_wiring.py from hardware.pinmap.PinMap() defaults; "
        "tests/deploy/test_wiring.py checks that they agree. Do not edit by hand.",
    ]
    note_y = HEADER_Y + 20 * ROW + 36
    note_svg = "".join(f'<text class="note" x="40" y="{note_y + i * 18}">{escape(n)}</text>'
                       for i, n in enumerate(notes))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="title">\n'
        f'<title id="title">Uno table companion: wiring of the default pin map</title>\n'
        f"<style>{STYLE}</style>\n"
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>\n'
        f'<text class="title" x="40" y="44">Uno table companion — wiring (default pin map)</text>\n'
        f'<text class="note" x="40" y="66">Raspberry Pi 4 or 5, 40-pin header, BCM numbers '
        f'(GPIO17 is header pin 11). Override any pin in the [pins] section: docs/hardware.md.</text>\n'
        f"{_header(used)}\n{wires}\n{note_svg}\n</svg>\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write: exit 1 if the file differs from the drawing")
    parser.add_argument("-o", "--out", type=Path, default=OUT, help="the SVG file")
    args = parser.parse_args(argv)
    svg = render()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != svg:
            print(f"{args.out} does not match the default pin map: run "
                  f"python scripts/draw_wiring.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
