"""The printable kit: the four corner markers, the layout guide and the pawn marker.

``companion mat`` writes PNG pages (A4 at 150 dpi) and one PDF holding them all. The PDF is
written here, by hand: each page is one image (Flate-compressed RGB, the stdlib's zlib), which
every printer driver understands; no PDF library is needed.

Print at 100 % ("actual size", not "fit to page"): the markers' size is part of the geometry.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import cv2
import numpy as np

from .geometry import CORNER_IDS, CORNER_NAMES, PAWN_ID, Layout
from .geometry import marker_image

__all__ = ["kit_pages", "write_kit", "write_pdf", "A4_MM"]

A4_MM = (210.0, 297.0)


def _page(dpi: int) -> tuple[np.ndarray, float]:
    px = dpi / 25.4
    w, h = int(A4_MM[0] * px), int(A4_MM[1] * px)
    return np.full((h, w, 3), 255, np.uint8), px


def _text(img, text, x, y, scale=1.0, thick=2):
    cv2.putText(img, text, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick, cv2.LINE_AA)


def kit_pages(layout: Layout = Layout(), dpi: int = 150) -> list[tuple[str, np.ndarray]]:
    """(name, BGR image) of every page: one per corner marker, the pawn markers, the guide."""
    pages = []
    for index, marker_id in enumerate(CORNER_IDS):
        img, px = _page(dpi)
        side = int(layout.marker_mm * px)
        m = marker_image(marker_id, side)
        x0, y0 = (img.shape[1] - side) // 2, int(60 * px)
        img[y0:y0 + side, x0:x0 + side] = m[..., None]
        cv2.rectangle(img, (x0 - 2, y0 - 2), (x0 + side + 2, y0 + side + 2), (200, 200, 200), 1)
        _text(img, f"{CORNER_NAMES[index].upper()} corner of the play area", 20 * px, 40 * px, 1.1)
        _text(img, f"marker {marker_id}, {layout.marker_mm:.0f} mm: cut along the grey line", 20 * px, 150 * px, 0.8)
        _text(img, "Put it inside the corner, the marker's top edge facing north.", 20 * px, 165 * px, 0.8)
        _text(img, f"Play area: {layout.width:.0f} x {layout.height:.0f} mm (markers at its corners).", 20 * px, 180 * px, 0.8)
        pages.append((f"marker-{CORNER_NAMES[index]}", img))
    img, px = _page(dpi)
    side = int(layout.pawn_marker_mm * px)
    m = marker_image(PAWN_ID, side)
    for k in range(6):
        x0 = int((25 + (k % 3) * 60) * px)
        y0 = int((60 + (k // 3) * 60) * px)
        img[y0:y0 + side, x0:x0 + side] = m[..., None]
    _text(img, "Pawn markers: stick one on top of the pawn", 20 * px, 40 * px, 1.1)
    _text(img, f"{layout.pawn_marker_mm:.0f} mm, marker {PAWN_ID}. Spares for lost ones.", 20 * px, 200 * px, 0.8)
    pages.append(("pawn", img))
    # the layout guide, scaled to fit the page
    img, px = _page(dpi)
    s = min((A4_MM[0] - 30) / layout.width, (A4_MM[1] - 70) / layout.height) * px
    ox, oy = 15 * px, 50 * px

    def box(x0, y0, x1, y1, color=(0, 0, 0), t=2):
        cv2.rectangle(img, (int(ox + x0 * s), int(oy + y0 * s)), (int(ox + x1 * s), int(oy + y1 * s)), color, t)

    box(0, 0, layout.width, layout.height)
    for index in range(4):
        q = layout.marker_square(index)
        box(q[0][0], q[0][1], q[2][0], q[2][1], (0, 0, 0), -1)
    for r in range(5):
        for c in range(5):
            g = layout.cell_region(r, c)
            box(g.x0 + 4, g.y0 + 4, g.x1 - 4, g.y1 - 4, (120, 120, 120), 1)
            _text(img, f"{r},{c}", ox + (g.x0 + 12) * s, oy + (g.y0 + 50) * s, 0.45, 1)
    for name in ("draw", "discard"):
        g = layout.pile_region(name)
        box(g.x0 + 4, g.y0 + 4, g.x1 - 4, g.y1 - 4, (0, 0, 160), 2)
        _text(img, name, ox + (g.x0 + 8) * s, oy + (g.y0 + 50) * s, 0.5, 1)
    _text(img, "Layout (north at the top): 5x5 grid, draw and discard piles", 15 * px, 25 * px, 0.9)
    _text(img, f"cells {layout.pitch[0]:.0f} x {layout.pitch[1]:.0f} mm apart; camera 85-90 cm above (Module 3; Wide: 60-70)", 15 * px, 38 * px, 0.7)
    pages.append(("layout", img))
    return pages


def write_pdf(path: str | Path, pages: list[np.ndarray], dpi: int = 150) -> None:
    """A minimal PDF with one full-page image per page (page size from the image and ``dpi``)."""
    objects: list[bytes] = []

    def add(obj: bytes) -> int:
        objects.append(obj)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_obj = add(b"")
    kids = []
    for img in pages:
        rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        h, w = rgb.shape[:2]
        data = zlib.compress(rgb.tobytes(), 6)
        image = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                    b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (w, h, len(data))
                    + data + b"\nendstream")
        pw, ph = w * 72.0 / dpi, h * 72.0 / dpi
        content = b"q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q" % (pw, ph)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        page = add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] "
                   b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                   % (pages_obj, pw, ph, image, stream))
        kids.append(page)
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objects[pages_obj - 1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids)
                              + b"] /Count %d >>" % len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    Path(path).write_bytes(bytes(out))


def write_kit(folder: str | Path, layout: Layout = Layout(), dpi: int = 150) -> list[Path]:
    """Write every page as PNG and all of them as ``uno-mat.pdf`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pages = kit_pages(layout, dpi)
    written = []
    for name, img in pages:
        p = folder / f"uno-mat-{name}.png"
        cv2.imwrite(str(p), img)
        written.append(p)
    pdf = folder / "uno-mat.pdf"
    write_pdf(pdf, [img for _, img in pages], dpi)
    written.append(pdf)
    return written
