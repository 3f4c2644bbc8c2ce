"""The printable kit: the four corner markers, the layout guide and the pawn marker.

``companion mat`` writes PNG pages (A4 at 150 dpi) and one PDF holding them all. The PDF is
written here, by hand: each page is one image (Flate-compressed RGB, the stdlib's zlib), which
every printer driver understands; no PDF library is needed.

Print at 100 % ("actual size", not "fit to page"): the markers' size is part of the geometry.
The kit is a measuring kit, and says so on paper:

* every marker is printed at its **cut line** (``Layout.marker_mm``, 40 mm; the pawn's
  ``Layout.pawn_marker_mm``, 22 mm), a grey square to cut along that holds the marker's white
  margin; the **black square** inside is three quarters of it (30 mm; the pawn's 16.5 mm);
  both sizes are printed beside each marker (:func:`marker_sizes`);
* every marker page carries a 100 mm ruler at actual size, to check the printer's scale;
* inside each corner marker's cut line, in its white margin, "top faces north" and its number;
* the layout page is drawn at 1:3 with a scale bar, the marker numbers beside the markers, the
  grid's and piles' offsets from the play area's north-west corner in millimetres, and the hand
  zones (:data:`vision.hands.HAND_ZONES`);
* ``companion mat --tiled a4|letter`` adds the layout at 1:1 (:func:`tiled_pages`), cut into
  pages that share a strip of the mat with crosses to lay them over each other.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .geometry import CORNER_IDS, CORNER_NAMES, MARKER_BLACK_SHARE, PAWN_ID, Layout
from .geometry import marker_image

__all__ = ["kit_pages", "write_kit", "write_pdf", "marker_sizes", "MarkerSizes", "A4_MM",
           "LAYOUT_SCALE", "BLACK_SHARE", "PAPERS", "Tiling", "tiling", "tiled_pages",
           "TILE_MARGIN_MM", "TILE_OVERLAP_MM"]

A4_MM = (210.0, 297.0)
#: The black square's share of the cut line (:data:`vision.geometry.MARKER_BLACK_SHARE`).
BLACK_SHARE = MARKER_BLACK_SHARE
#: The layout page shows the play area at 1 : LAYOUT_SCALE (540 x 605 mm fit an A4 page at 1:3).
LAYOUT_SCALE = 3
#: The length of the rulers printed at actual size, and of the layout page's scale bar (on the mat).
RULER_MM = 100
_GREY = (150, 150, 150)
_RED = (0, 0, 160)
_BLUE = (170, 90, 0)
#: The words inside a marker's cut line: dark enough to read, in its white margin.
_INK = (90, 90, 90)
#: Paper sizes of the tiled 1:1 layout (``companion mat --tiled``), in mm.
PAPERS = {"a4": A4_MM, "letter": (215.9, 279.4)}
#: The border of a tile page left unprinted (most printers cannot print to the edge), in mm.
TILE_MARGIN_MM = 10.0
#: How much of the mat two neighbouring tiles both show (to lay one over the other), in mm.
TILE_OVERLAP_MM = 15.0


@dataclass(frozen=True)
class MarkerSizes:
    """A printed marker's sizes in millimetres: the cut line (the whole printed square, white
    margin included) and the black square inside it (what the camera finds)."""

    cut_mm: float
    black_mm: float

    def text(self) -> str:
        return f"black square {_mm(self.black_mm)} mm, cut line {_mm(self.cut_mm)} mm"


def marker_sizes(layout: Layout = Layout()) -> dict[str, MarkerSizes]:
    """The printed sizes of the corner markers (``corner``) and of the pawn marker (``pawn``).

    >>> marker_sizes()["corner"].text()
    'black square 30 mm, cut line 40 mm'
    >>> marker_sizes()["pawn"].text()
    'black square 16.5 mm, cut line 22 mm'
    """
    return {"corner": MarkerSizes(layout.marker_mm, layout.marker_mm * BLACK_SHARE),
            "pawn": MarkerSizes(layout.pawn_marker_mm, layout.pawn_marker_mm * BLACK_SHARE)}


def _mm(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class _Page:
    """A white page (A4 unless ``size_mm`` says otherwise) drawn on in millimetres."""

    def __init__(self, dpi: int, size_mm: tuple[float, float] = A4_MM):
        self.px = dpi / 25.4
        self.size_mm = size_mm
        w, h = int(round(size_mm[0] * self.px)), int(round(size_mm[1] * self.px))
        self.img = np.full((h, w, 3), 255, np.uint8)

    def p(self, mm: float) -> int:
        return int(round(mm * self.px))

    def text(self, text: str, x: float, y: float, size: float = 3.0, color=(0, 0, 0)) -> None:
        """``text`` with its baseline at (x, y) mm, capitals about ``size`` mm high."""
        scale = size * self.px / 22.0  # Hershey simplex capitals are ~22 px high at scale 1
        thick = max(1, int(round(scale * 1.6)))
        cv2.putText(self.img, text, (self.p(x), self.p(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, color,
                    thick, cv2.LINE_AA)

    def text_in(self, text: str, cx: float, y: float, width: float, size: float,
                color=(0, 0, 0)) -> tuple[float, float]:
        """``text`` centred on ``cx`` with its baseline at ``y`` mm, capitals ``size`` mm high
        or smaller, so that it is at most ``width`` mm wide; returns its (left, right) in mm."""
        scale = size * self.px / 22.0
        thick = max(1, int(round(scale * 1.6)))
        (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        if w > width * self.px:
            scale *= width * self.px / w
            thick = max(1, int(round(scale * 1.6)))
            (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        left = cx - w / self.px / 2
        cv2.putText(self.img, text, (self.p(left), self.p(y)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    color, thick, cv2.LINE_AA)
        return left, left + w / self.px

    def dashed_box(self, x0, y0, x1, y1, color, width_mm: float = 0.35, dash: float = 4.0) -> None:
        """A rectangle (mm) drawn in dashes ``dash`` mm long."""
        for a, b, c, d in ((x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)):
            length = max(abs(c - a), abs(d - b))
            n = max(1, int(length / dash))
            for k in range(0, n, 2):
                t0, t1 = k / n, min(1.0, (k + 1) / n)
                self.line(a + (c - a) * t0, b + (d - b) * t0, a + (c - a) * t1, b + (d - b) * t1,
                          color, width_mm)

    def line(self, x0, y0, x1, y1, color=(0, 0, 0), width_mm: float = 0.35) -> None:
        cv2.line(self.img, (self.p(x0), self.p(y0)), (self.p(x1), self.p(y1)), color,
                 max(1, self.p(width_mm)))

    def marker(self, marker_id: int, x: float, y: float, sizes: MarkerSizes) -> None:
        """A marker with its white margin, its north-west corner at (x, y) mm, and its grey cut
        line drawn just outside the margin (the cut keeps the whole margin)."""
        x0, y0, side = self.p(x), self.p(y), self.p(sizes.cut_mm)
        self.img[y0:y0 + side, x0:x0 + side] = marker_image(marker_id, side)[..., None]
        t = max(1, self.p(0.25))
        cv2.rectangle(self.img, (x0 - t, y0 - t), (x0 + side + t - 1, y0 + side + t - 1), _GREY, t)

    def marker_words(self, marker_id: int, x: float, y: float, sizes: MarkerSizes) -> None:
        """Inside the cut line of the marker at (x, y) mm, in its white margin (clear of the
        black square, so the camera still finds it): "top faces north" with an arrow along its
        top edge, and the marker's number along its bottom edge, so that a marker once cut out
        says which it is and which way it lies."""
        margin = (sizes.cut_mm - sizes.black_mm) / 2
        cap = min(2.0, margin * 0.42)
        cx, inner = x + sizes.cut_mm / 2, sizes.cut_mm - 2 * 1.5
        base = y + margin / 2 + cap / 2
        left, _ = self.text_in("top faces north", cx + cap, base, inner - 3 * cap, cap, _INK)
        ax = left - cap * 0.9
        cv2.arrowedLine(self.img, (self.p(ax), self.p(base)), (self.p(ax), self.p(base - cap * 1.4)),
                        _INK, max(1, self.p(0.2)), cv2.LINE_AA, tipLength=0.45)
        self.text_in(f"marker {marker_id}", cx, y + sizes.cut_mm - margin / 2 + cap / 2, inner, cap,
                     _INK)

    def bar(self, x: float, y: float, length: float, step: float) -> None:
        """A bar ``length`` mm long from (x, y) (its ends exact: no line caps), ticked upwards
        every ``step`` mm (a longer tick every five)."""
        x1 = self.p(x + length) - 1
        cv2.rectangle(self.img, (self.p(x), self.p(y)), (x1, self.p(y + 0.6)), (0, 0, 0), -1)
        for k in range(11):
            tx = min(self.p(x + k * step), x1)
            top = self.p(y - (4 if k % 5 == 0 else 2.5))
            cv2.rectangle(self.img, (tx - max(0, self.p(0.15)), top), (tx, self.p(y)), (0, 0, 0), -1)

    def ruler(self, x: float, y: float) -> None:
        """A RULER_MM long bar at actual size with a tick every 10 mm, and what to do with it."""
        self.bar(x, y, RULER_MM, RULER_MM / 10)
        self.text(f"This ruler is {RULER_MM} mm long at 100 % (actual size): measure it.", x,
                  y + 6, 2.6)


def kit_pages(layout: Layout = Layout(), dpi: int = 150) -> list[tuple[str, np.ndarray]]:
    """(name, BGR image) of every page: one per corner marker, the pawn markers, the guide."""
    sizes = marker_sizes(layout)
    pages = []
    for index, marker_id in enumerate(CORNER_IDS):
        page = _Page(dpi)
        x0 = (A4_MM[0] - layout.marker_mm) / 2
        page.text(f"Marker {marker_id}: the {CORNER_NAMES[index].upper()} corner", 20, 30, 6)
        page.marker(marker_id, x0, 60, sizes["corner"])
        page.marker_words(marker_id, x0, 60, sizes["corner"])
        page.text(f"marker {marker_id}", x0 + layout.marker_mm + 4, 64, 3)
        y = 60 + layout.marker_mm + 15
        for line in (f"Corner marker {marker_id}: {sizes['corner'].text()}.",
                     "Cut along the grey cut line: the white margin belongs to the marker.",
                     f"Lay it {_mm(layout.marker_inset)} mm in from the {CORNER_NAMES[index]} "
                     "corner of the play area,",
                     "the marker's top edge facing north (it says so inside the cut line).",
                     f"Play area: {_mm(layout.width)} x {_mm(layout.height)} mm, a marker in "
                     "each corner."):
            page.text(line, 20, y, 3.4)
            y += 8
        page.ruler(20, 200)
        pages.append((f"marker-{CORNER_NAMES[index]}", page.img))
    page = _Page(dpi)
    page.text("Pawn markers: stick one on top of the pawn", 20, 30, 6)
    for k in range(6):
        page.marker(PAWN_ID, 25 + (k % 3) * 60, 60 + (k // 3) * 60, sizes["pawn"])
    page.text(f"Pawn marker {PAWN_ID}: {sizes['pawn'].text()}.", 20, 185, 3.4)
    page.text("Cut along the grey cut line; the spares are for lost ones.", 20, 193, 3.4)
    page.ruler(20, 215)
    pages.append(("pawn", page.img))
    pages.append(("layout", _layout_page(layout, dpi, sizes["corner"])))
    return pages


def _layout_page(layout: Layout, dpi: int, sizes: MarkerSizes) -> np.ndarray:
    """The play area at 1:LAYOUT_SCALE with its scale bar, marker numbers and offsets."""
    page = _Page(dpi)
    k = 1.0 / LAYOUT_SCALE
    ox, oy = (A4_MM[0] - layout.width * k) / 2, 44.0

    def at(x: float, y: float) -> tuple[float, float]:
        return ox + x * k, oy + y * k

    def box(x0, y0, x1, y1, color=(0, 0, 0), width_mm=0.35, fill=False):
        (a, b), (c, d) = at(x0, y0), at(x1, y1)
        cv2.rectangle(page.img, (page.p(a), page.p(b)), (page.p(c), page.p(d)), color,
                      -1 if fill else max(1, page.p(width_mm)))

    page.text("Layout of the play area (north at the top)", 15, 14, 5)
    page.text(f"Scale 1:{LAYOUT_SCALE}. Measures are on the mat, in mm, from its north-west "
              "corner.", 15, 22, 3)
    # the scale bar: RULER_MM of the mat
    bx, by = 15, 34
    page.bar(bx, by, RULER_MM * k, RULER_MM * k / 10)
    page.text(f"{RULER_MM} mm on the mat", bx + RULER_MM * k + 3, by + 1, 3)
    box(0, 0, layout.width, layout.height, width_mm=0.5)
    for index, marker_id in enumerate(CORNER_IDS):
        q = layout.marker_square(index)
        margin = (sizes.cut_mm - sizes.black_mm) / 2
        box(q[0][0], q[0][1], q[2][0], q[2][1], _GREY, 0.25)
        box(q[0][0] + margin, q[0][1] + margin, q[2][0] - margin, q[2][1] - margin, fill=True)
        cx, cy = at(q[0][0] + sizes.cut_mm / 2, q[0][1] + sizes.cut_mm / 2)
        page.text(str(marker_id), cx - 1.3, cy + 1.5, 3.2, (255, 255, 255))
        east = index in (1, 2)
        nx = q[0][0] - 4 - 95 if east else q[2][0] + 4
        page.text(f"marker {marker_id} {CORNER_NAMES[index]}", *at(nx, q[0][1] + 24), 2.6)
    for r in range(5):
        for c in range(5):
            g = layout.cell_region(r, c)
            box(g.x0 + 4, g.y0 + 4, g.x1 - 4, g.y1 - 4, (120, 120, 120), 0.25)
            page.text(f"{r},{c}", *at(g.x0 + 12, g.y0 + 50), 2.4)
    for name in ("draw", "discard"):
        g = layout.pile_region(name)
        box(g.x0 + 4, g.y0 + 4, g.x1 - 4, g.y1 - 4, _RED, 0.5)
        page.text(name, *at(g.x0 + 8, g.y0 + 50), 2.6, _RED)
    # the hand zones (Flip and classic): north and south on the mat, west and east beside it,
    # as far as the page reaches
    for side, zone in _hand_zones().items():
        (a, b), (c, d) = at(zone.x0, zone.y0), at(zone.x1, zone.y1)
        a, c = max(a, 3.0), min(c, A4_MM[0] - 3.0)
        page.dashed_box(a, b, c, d, _BLUE, 0.35, 2.0)
        if side in ("north", "south"):
            # (north: between the markers' names and the grid; south: below the grid)
            below = layout.grid_origin[1] + 5 * layout.pitch[1] + 14
            page.text(f"{side} hand zone", *at(zone.x0 + 6, layout.grid_origin[1] - 8
                                                if side == "north" else below), 2.4, _BLUE)
        else:
            page.text(side[0].upper(), (a + c) / 2 - 1.2, (b + d) / 2 + 1.2, 2.6, _BLUE)
    # the grid's offsets, as dimension lines from the play area's edges
    gx, gy = layout.grid_origin
    hy = gy + layout.pitch[1] / 2           # west of row 0
    page.line(*at(0, hy), *at(gx, hy), _RED, 0.25)
    page.line(*at(gx, hy - 6), *at(gx, hy + 6), _RED, 0.25)
    page.text(f"{_mm(gx)} mm", *at(8, hy - 5), 2.4, _RED)
    vx = gx + 2.5 * layout.pitch[0]         # north of column 2
    page.line(*at(vx, 0), *at(vx, gy), _RED, 0.25)
    page.line(*at(vx - 6, gy), *at(vx + 6, gy), _RED, 0.25)
    page.text(f"{_mm(gy)} mm", *at(vx + 5, gy / 2 + 6), 2.4, _RED)
    grid = layout.grid_rect
    draw, discard = layout.draw_pile, layout.discard_pile
    y = oy + layout.height * k + 8
    for line in (
            f"Play area {_mm(layout.width)} x {_mm(layout.height)} mm. Corner markers "
            f"{_mm(layout.marker_inset)} mm in from each corner: {sizes.text()}.",
            f"Grid: its north-west corner {_mm(gx)} mm east and {_mm(gy)} mm south of the play "
            "area's;",
            f"5 x 5 cells {_mm(layout.pitch[0])} x {_mm(layout.pitch[1])} mm apart "
            f"({_mm(grid.x1 - grid.x0)} x {_mm(grid.y1 - grid.y0)} mm), "
            "cell row,col from 0,0 in the north-west.",
            f"Pile centres: draw {_mm(draw[0])} mm east, {_mm(draw[1])} mm south; discard "
            f"{_mm(discard[0])} mm east, {_mm(discard[1])} mm south.",
            _zones_words(),
            "Camera 85-90 cm above the middle of the mat (Module 3; Wide: 60-70 cm)."):
        page.text(line, 15, y, 2.8)
        y += 5.8
    return page.img


def _hand_zones() -> dict:
    from .hands import HAND_ZONES

    return HAND_ZONES


def _zones_words() -> str:
    z = _hand_zones()
    w = z["west"]
    return (f"Hand zones (blue): N and S on the mat; W and E beside it, {_mm(-w.x1)}-{_mm(-w.x0)} "
            "mm out.")


# --- the layout at 1:1, in tiles ---------------------------------------------------------------

@dataclass(frozen=True)
class Tiling:
    """How the play area is cut into pages of ``paper`` (``a4``, ``letter``) at 1:1: each page
    prints ``TILE_MARGIN_MM`` in from its edges, and neighbouring pages share
    ``TILE_OVERLAP_MM`` of the mat."""

    paper: str
    width: float
    height: float

    @property
    def size_mm(self) -> tuple[float, float]:
        return PAPERS[self.paper]

    @property
    def printable(self) -> tuple[float, float]:
        w, h = self.size_mm
        return w - 2 * TILE_MARGIN_MM, h - 2 * TILE_MARGIN_MM

    @property
    def step(self) -> tuple[float, float]:
        w, h = self.printable
        return w - TILE_OVERLAP_MM, h - TILE_OVERLAP_MM

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of pages."""
        (sx, sy) = self.step
        cols = max(1, int(np.ceil((self.width - TILE_OVERLAP_MM) / sx)))
        rows = max(1, int(np.ceil((self.height - TILE_OVERLAP_MM) / sy)))
        return rows, cols

    def origin(self, row: int, col: int) -> tuple[float, float]:
        """Where on the mat (mm from its north-west corner) the page's printed part starts."""
        return col * self.step[0], row * self.step[1]

    @staticmethod
    def name(row: int, col: int) -> str:
        """A page's name: its row's letter (A north) and its column's number (1 west)."""
        return f"{chr(ord('A') + row)}{col + 1}"


def tiling(paper: str, layout: Layout = Layout()) -> Tiling:
    """The tiling of ``layout``'s play area on ``paper`` (``a4`` or ``letter``)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}: expected {' or '.join(PAPERS)}")
    return Tiling(paper, layout.width, layout.height)


def _mat_at_full_size(layout: Layout, dpi: int, tiles: Tiling) -> _Page:
    """The play area drawn at 1:1: its edge, where each corner marker goes (its cut line, its
    number, "top faces north"), the cells, the piles, the hand zones on the mat and, in every
    strip two pages share, crosses to lay one page over the other."""
    page = _Page(dpi, (layout.width, layout.height))
    w, h = layout.width, layout.height
    page.line(0, 0, w, 0, width_mm=0.6)
    page.line(w, 0, w, h, width_mm=0.6)
    page.line(w, h, 0, h, width_mm=0.6)
    page.line(0, h, 0, 0, width_mm=0.6)
    sizes = marker_sizes(layout)["corner"]
    for index, marker_id in enumerate(CORNER_IDS):
        q = layout.marker_square(index)
        x0, y0, x1, y1 = q[0][0], q[0][1], q[2][0], q[2][1]
        page.dashed_box(x0, y0, x1, y1, _GREY, 0.35, 3.0)
        cx = (x0 + x1) / 2
        page.text_in(f"marker {marker_id}", cx, y0 + 17, sizes.cut_mm - 6, 4.0)
        left, _ = page.text_in("top faces north", cx + 1.5, y0 + 27, sizes.cut_mm - 9, 2.2, _INK)
        cv2.arrowedLine(page.img, (page.p(left - 2), page.p(y0 + 27)),
                        (page.p(left - 2), page.p(y0 + 23.5)), _INK, max(1, page.p(0.3)),
                        cv2.LINE_AA, tipLength=0.4)
    for r in range(5):
        for c in range(5):
            g = layout.cell_region(r, c)
            page.dashed_box(g.x0 + 4, g.y0 + 4, g.x1 - 4, g.y1 - 4, (150, 150, 150), 0.3, 5.0)
            page.text(f"{r},{c}", g.x0 + 9, g.y0 + 16, 5, (150, 150, 150))
    for name in ("draw", "discard"):
        g = layout.pile_region(name)
        page.dashed_box(g.x0 + 4, g.y0 + 4, g.x1 - 4, g.y1 - 4, _RED, 0.5, 5.0)
        page.text(f"{name} pile", g.x0 + 9, g.y0 + 16, 5, _RED)
    for side in ("north", "south"):
        zone = _hand_zones()[side]
        page.dashed_box(zone.x0, zone.y0, zone.x1, zone.y1, _BLUE, 0.5, 8.0)
        page.text(f"{side} hand zone", zone.x0 + 6, zone.y0 + 10 if side == "north" else zone.y1 - 5,
                  4, _BLUE)
    # the crosses in the strips two pages share, in the gaps between the cells' rows and columns
    rows, cols = tiles.shape
    (gx, gy), (px, py) = layout.grid_origin, layout.pitch
    for col in range(1, cols):
        x = tiles.origin(0, col)[0] + TILE_OVERLAP_MM / 2
        for y in (20.0, *(gy + k * py for k in range(6)), h - 15.0):
            _cross(page, x, y)
    columns = [tiles.origin(0, col)[0] + TILE_OVERLAP_MM / 2 for col in range(1, cols)]
    for row in range(1, rows):
        y = tiles.origin(row, 0)[1] + TILE_OVERLAP_MM / 2
        for x in (20.0, *(gx + k * px for k in range(6)), w - 20.0):
            if all(abs(x - c) > 12 for c in columns):  # (not over a column strip's cross)
                _cross(page, x, y)
    return page


def _cross(page: _Page, x: float, y: float) -> None:
    """A registration cross at (x, y) mm: two pages laid over each other meet there."""
    page.line(x - 5, y, x + 5, y, width_mm=0.25)
    page.line(x, y - 5, x, y + 5, width_mm=0.25)
    cv2.circle(page.img, (page.p(x), page.p(y)), page.p(3), (0, 0, 0), max(1, page.p(0.25)),
               cv2.LINE_AA)


def tiled_pages(paper: str, layout: Layout = Layout(), dpi: int = 150
                ) -> list[tuple[str, np.ndarray]]:
    """(name, BGR image) of each page of the layout at 1:1 on ``paper``, row by row from the
    north-west: the mat's part at actual size ``TILE_MARGIN_MM`` in from the page's edges, corner
    marks where to trim it, the page's name and where it lies (a small map), and a 100 mm ruler."""
    tiles = tiling(paper, layout)
    whole = _mat_at_full_size(layout, dpi, tiles)
    rows, cols = tiles.shape
    pw, ph = tiles.printable
    out = []
    for row in range(rows):
        for col in range(cols):
            page = _Page(dpi, tiles.size_mm)
            mx, my = tiles.origin(row, col)
            part = whole.img[whole.p(my):whole.p(min(my + ph, layout.height)),
                             whole.p(mx):whole.p(min(mx + pw, layout.width))]
            top, left = page.p(TILE_MARGIN_MM), page.p(TILE_MARGIN_MM)
            page.img[top:top + part.shape[0], left:left + part.shape[1]] = part
            cw, ch = part.shape[1] / page.px, part.shape[0] / page.px
            _trim_marks(page, TILE_MARGIN_MM, TILE_MARGIN_MM, cw, ch)
            name = tiles.name(row, col)
            page.text(f"Mat at 1:1, page {name} of {rows} x {cols} ({paper.upper()}). Print at "
                      "100 % (actual size).", TILE_MARGIN_MM, 4.2, 2.2)
            where = []
            if col:
                where.append("over the page to its west")
            if row:
                where.append("over the page to its north")
            page.text("Trim at the corner marks" + (", lay it " + " and ".join(where) +
                                                     ": the crosses meet; tape." if where else
                                                     "; lay the next pages over it."),
                      TILE_MARGIN_MM, 8.0, 1.8)
            _tile_map(page, tiles, row, col)
            page.bar(TILE_MARGIN_MM, tiles.size_mm[1] - 4.5, RULER_MM, RULER_MM / 10)
            page.text(f"{RULER_MM} mm at 100 %", TILE_MARGIN_MM + RULER_MM + 3,
                      tiles.size_mm[1] - 4.5, 2.2)
            out.append((f"tile-{paper}-{name}", page.img))
    return out


def _trim_marks(page: _Page, x: float, y: float, w: float, h: float) -> None:
    """Corner marks in the margin, in line with the printed part's edges."""
    for cx, sx in ((x, -1), (x + w, 1)):
        for cy, sy in ((y, -1), (y + h, 1)):
            page.line(cx + sx * 1.5, cy, cx + sx * 7, cy, width_mm=0.25)
            page.line(cx, cy + sy * 1.5, cx, cy + sy * 7, width_mm=0.25)


def _tile_map(page: _Page, tiles: Tiling, row: int, col: int) -> None:
    """Where the page lies among the others: a small map in the top right margin, its square
    filled."""
    rows, cols = tiles.shape
    cell = min(2.4, 7.5 / rows)
    x0 = tiles.size_mm[0] - TILE_MARGIN_MM - cols * cell
    y0 = 1.2
    for r in range(rows):
        for c in range(cols):
            a, b = page.p(x0 + c * cell), page.p(y0 + r * cell)
            e, f = page.p(x0 + (c + 1) * cell) - 1, page.p(y0 + (r + 1) * cell) - 1
            cv2.rectangle(page.img, (a, b), (e, f), (0, 0, 0), -1 if (r, c) == (row, col) else 1)


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


def write_kit(folder: str | Path, layout: Layout = Layout(), dpi: int = 150,
              tiled: str | None = None) -> list[Path]:
    """Write every page as PNG and all of them as ``uno-mat.pdf`` into ``folder``; with
    ``tiled`` (``a4``, ``letter``) also the layout at 1:1 on that paper
    (:func:`tiled_pages`), as PNG pages and ``uno-mat-tiled-<paper>.pdf``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    sets = [("uno-mat.pdf", kit_pages(layout, dpi))]
    if tiled is not None:
        sets.append((f"uno-mat-tiled-{tiled}.pdf", tiled_pages(tiled, layout, dpi)))
    written = []
    for pdf_name, pages in sets:
        for name, img in pages:
            p = folder / f"uno-mat-{name}.png"
            cv2.imwrite(str(p), img)
            written.append(p)
        pdf = folder / pdf_name
        write_pdf(pdf, [img for _, img in pages], dpi)
        written.append(pdf)
    return written
