"""What each Raspberry Pi camera module sees of the table from a given height, computed from the
sensor's data (active pixels, pixel size) and the lens's focal length: the table of heights in
docs/hardware-guide.md is this script's output, and a test checks that they agree.

    python scripts/field_of_view.py            # print the table
    python scripts/field_of_view.py --write    # put it into docs/hardware-guide.md

A pinhole lens: the picture's width on the table is ``height x sensor width / focal length``.
The picture is the largest centred rectangle of the output's shape (1280 x 720: 16:9) on the
sensor's whole area (the companion runs the camera in a full-field-of-view sensor mode), so a 4:3
sensor loses a strip at the top and bottom. Real lenses bend a little: the makers' field of
view differs from the pinhole one by up to 2 degrees on the standard lenses and 3 on the Wide.

>>> module = MODULES["Camera Module 3"]
>>> round(module.angles()[0], 1), round(module.angles()[1], 1)
(68.5, 41.9)
>>> view = module.view(88)
>>> round(view.width_cm), round(view.height_cm), round(view.marker_px)
(120, 67, 43)
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "hardware-guide.md"
START, END = "<!-- field-of-view table: scripts/field_of_view.py -->", "<!-- end of table -->"

#: The play area with its corner markers (mm), the markers' side (mm), the margin wanted around it.
MAT_MM = (605, 540)
MARKER_MM = 40
MARGIN_MM = 30
#: Heights of the table (cm) and the picture the companion asks for (pixels).
HEIGHTS_CM = (60, 70, 80, 90, 100)
OUTPUT = (1280, 720)
#: Fewer pixels a side than this and the corner markers are found unreliably (app/doctor.py).
MIN_MARKER_PX = 20


@dataclass(frozen=True)
class View:
    """What the picture covers on the table: its size (cm) and a corner marker's side (pixels)."""

    width_cm: float
    height_cm: float
    marker_px: float

    def fits(self) -> bool:
        """The mat, its long side along the picture's, fits with the margin all round."""
        return (self.width_cm * 10 >= MAT_MM[0] + 2 * MARGIN_MM
                and self.height_cm * 10 >= MAT_MM[1] + 2 * MARGIN_MM)


@dataclass(frozen=True)
class CameraModule:
    """A camera module: its sensor (active pixels and their size) and its lens."""

    name: str
    sensor: str
    pixels: tuple[int, int]
    pixel_um: float
    focal_mm: float
    lens: str

    def sensor_mm(self) -> tuple[float, float]:
        return self.pixels[0] * self.pixel_um / 1000, self.pixels[1] * self.pixel_um / 1000

    def used_mm(self, output: tuple[int, int] = OUTPUT) -> tuple[float, float]:
        """The part of the sensor the picture shows: its whole area cut to the output's shape."""
        w, h = self.sensor_mm()
        aspect = output[0] / output[1]
        return (w, w / aspect) if w / h <= aspect else (h * aspect, h)

    def angles(self, output: tuple[int, int] = OUTPUT) -> tuple[float, float]:
        """The picture's horizontal and vertical field of view, in degrees."""
        w, h = self.used_mm(output)
        return tuple(math.degrees(2 * math.atan(side / 2 / self.focal_mm)) for side in (w, h))

    def view(self, height_cm: float, output: tuple[int, int] = OUTPUT) -> View:
        w, h = self.used_mm(output)
        width_cm = height_cm * w / self.focal_mm
        return View(width_cm, height_cm * h / self.focal_mm, MARKER_MM / (width_cm * 10) * output[0])


MODULES = {m.name: m for m in (
    CameraModule("Camera Module v2", "Sony IMX219", (3280, 2464), 1.12, 3.04, "fixed, 3.04 mm"),
    CameraModule("Camera Module 3", "Sony IMX708", (4608, 2592), 1.4, 4.74, "autofocus, 4.74 mm"),
    CameraModule("Camera Module 3 Wide", "Sony IMX708", (4608, 2592), 1.4, 2.75,
                 "autofocus, 2.75 mm"),
    CameraModule("HQ Camera", "Sony IMX477", (4056, 3040), 1.55, 6.0,
                 "Raspberry Pi 6 mm wide-angle (CS mount)"),
)}


def cell(view: View) -> str:
    verdict = ("too small" if not view.fits() else
               "markers too small" if view.marker_px < MIN_MARKER_PX else "good")
    return f"{view.width_cm:.0f} × {view.height_cm:.0f} cm, {view.marker_px:.0f} px: {verdict}"


def table(heights=HEIGHTS_CM, output: tuple[int, int] = OUTPUT) -> str:
    """The guide's table: one row per camera module, one column per height."""
    head = "| camera module (sensor, lens) | field of view | " + " | ".join(
        f"{h} cm" for h in heights) + " |"
    lines = [head, "|" + "---|" * (len(heights) + 2)]
    for m in MODULES.values():
        hfov, vfov = m.angles(output)
        lines.append(f"| {m.name} ({m.sensor}, {m.lens}) | {hfov:.0f}° × {vfov:.0f}° | "
                     + " | ".join(cell(m.view(h, output)) for h in heights) + " |")
    return "\n".join(lines)


def write(guide: Path = GUIDE) -> bool:
    """Put :func:`table` between the markers in the guide; True when it changed."""
    text = guide.read_text()
    new = re.sub(re.escape(START) + ".*?" + re.escape(END), f"{START}\n{table()}\n{END}", text,
                 flags=re.S)
    if new != text:
        guide.write_text(new)
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"update {GUIDE.name}")
    args = parser.parse_args(argv)
    if args.write:
        print(f"{GUIDE}: {'updated' if write() else 'already up to date'}")
    else:
        print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
