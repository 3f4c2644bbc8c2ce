"""What ``companion mat`` prints, read back from its files: each corner marker says its number and
which way is north inside its cut line (and is still found by the camera), the layout page shows
the hand zones, and ``--tiled a4|letter`` gives pages that piece together into the play area at
actual size."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.cli import main
from vision.geometry import CORNER_IDS, Layout, detect_markers
from vision.hands import HAND_ZONES
from vision.mat import LAYOUT_SCALE, PAPERS, TILE_MARGIN_MM, tiling

DPI = 100
PX = DPI / 25.4
CORNERS = ("north-west", "north-east", "south-east", "south-west")


def _p(mm: float) -> int:
    return int(round(mm * PX))


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """The folder ``companion mat --tiled PAPER`` wrote, by paper."""
    out = {}
    for paper in ("a4", "letter"):
        folder = tmp_path_factory.mktemp(f"mat-{paper}")
        assert main(["mat", "--out", str(folder), "--dpi", str(DPI), "--tiled", paper]) == 0
        out[paper] = folder
    return out


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    assert img is not None, path
    return img


def _cut_box(page):
    """The marker's grey cut line (px box) on a marker page: the marker is centred across the
    page, 60 mm from its top."""
    part = page[_p(55):_p(105), _p(82):_p(128)]
    grey = np.all((part > 135) & (part < 165), axis=2)
    ys, xs = np.nonzero(grey)
    return _p(82) + xs.min(), _p(55) + ys.min(), _p(82) + xs.max(), _p(55) + ys.max()


def _strips(page):
    """The top and bottom white margins inside the cut line (between it and the black square)."""
    x0, y0, x1, y1 = _cut_box(page)
    inner = page[y0 + 2:y1 - 1, x0 + 2:x1 - 1]
    dark = np.all(inner < 60, axis=2)
    ys = np.nonzero(dark.any(axis=1))[0]
    top, bottom = inner[:ys.min() - 1], inner[ys.max() + 2:]
    return top, bottom


def _ink(strip) -> int:
    return int(np.count_nonzero(np.all(strip < 150, axis=2)))


def test_each_marker_says_its_number_and_north_inside_its_cut_line(printed):
    pages = {name: _read(printed["a4"] / f"uno-mat-marker-{name}.png") for name in CORNERS}
    tops, bottoms = {}, {}
    for name, page in pages.items():
        top, bottom = _strips(page)
        assert _ink(top) > 40 and _ink(bottom) > 40, name  # words in both margins
        tops[name], bottoms[name] = top, bottom
    # the same "top faces north" on every marker; the number differs from marker to marker
    first = tops["north-west"]
    for name in CORNERS[1:]:
        assert tops[name].shape == first.shape and _differing(tops[name], first) == 0
    names = list(CORNERS)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert _differing(bottoms[a], bottoms[b]) > 10, (a, b)


def _differing(a, b) -> int:
    """Pixels where two strips of the same size differ clearly."""
    return int(np.count_nonzero(np.abs(a.astype(int) - b).max(axis=2) > 80))


@pytest.mark.parametrize("px_per_mm", [0.9, 1.6])
def test_a_marker_with_its_words_is_still_found_at_the_cameras_scale(printed, px_per_mm):
    # the camera 88 cm over the mat sees about 1-1.5 px a millimetre
    for name, marker_id in zip(CORNERS, CORNER_IDS):
        page = _read(printed["a4"] / f"uno-mat-marker-{name}.png")
        x0, y0, x1, y1 = _cut_box(page)
        pad = _p(20)
        crop = page[y0 - pad:y1 + pad, x0 - pad:x1 + pad]
        small = cv2.resize(crop, None, fx=px_per_mm / PX, fy=px_per_mm / PX,
                           interpolation=cv2.INTER_AREA)
        assert marker_id in detect_markers(small), (name, px_per_mm)


def _blue(img):
    b, g, r = (img[..., i].astype(int) for i in range(3))
    return (b > 120) & (r < 80) & (b - g > 40)


def test_the_layout_page_shows_the_hand_zones(printed):
    page = _read(printed["a4"] / "uno-mat-layout.png")
    blue = _blue(page)
    k = 1 / LAYOUT_SCALE
    ox, oy = (210 - Layout().width * k) / 2, 44.0
    for side, zone in HAND_ZONES.items():
        x0, x1 = max(ox + zone.x0 * k, 3.0), min(ox + zone.x1 * k, 207.0)
        y0, y1 = oy + zone.y0 * k, oy + zone.y1 * k
        # a dashed blue outline along the zone's north and south edges, across what the page shows
        for y in (y0, y1):
            row = blue[_p(y) - 2:_p(y) + 3, _p(x0):_p(x1)].any(axis=0)
            assert row.mean() > 0.3, (side, y)
    # nothing blue over the grid's middle cell, away from the zones
    g = Layout().cell_region(2, 2)
    assert not blue[_p(oy + g.y0 * k) + 3:_p(oy + g.y1 * k) - 3,
                    _p(ox + g.x0 * k) + 3:_p(ox + g.x1 * k) - 3].any()


def _pdf_pages(path: Path) -> list[tuple[float, float]]:
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    return [(float(w), float(h)) for w, h in
            re.findall(rb"/Type /Page /Parent \d+ 0 R /MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_tiled_layout_pieces_together_at_actual_size(printed, paper):
    layout = Layout()
    tiles = tiling(paper, layout)
    rows, cols = tiles.shape
    assert rows * cols >= 4
    folder = printed[paper]
    sizes = _pdf_pages(folder / f"uno-mat-tiled-{paper}.pdf")
    w_pt, h_pt = (v * 72 / 25.4 for v in PAPERS[paper])
    assert len(sizes) == rows * cols
    assert all(abs(w - w_pt) < 1.5 and abs(h - h_pt) < 1.5 for w, h in sizes)
    # the kit's own PDF is unchanged: six pages
    assert len(_pdf_pages(folder / "uno-mat.pdf")) == 6

    mat = np.full((_p(layout.height), _p(layout.width), 3), 255, np.uint8)
    filled = np.zeros(mat.shape[:2], bool)
    pw, ph = tiles.printable
    overlaps = 0
    for row in range(rows):
        for col in range(cols):
            page = _read(folder / f"uno-mat-tile-{paper}-{tiles.name(row, col)}.png")
            assert abs(page.shape[1] - _p(PAPERS[paper][0])) <= 1
            # a 100 mm ruler at actual size along the bottom margin
            run = _dark_run(page[_p(PAPERS[paper][1] - 4.3)])
            assert abs(run - 100) < 1.0
            mx, my = tiles.origin(row, col)
            x0, y0 = _p(mx), _p(my)
            x1, y1 = min(_p(mx + pw), mat.shape[1]), min(_p(my + ph), mat.shape[0])
            m = _p(TILE_MARGIN_MM)
            part = page[m:m + y1 - y0, m:m + x1 - x0]
            # the margin around the printed part holds nothing of the mat
            shared = filled[y0:y1, x0:x1]
            if shared.any():
                overlaps += 1
                # where two pages overlap they print the same (crosses included)
                diff = np.abs(part.astype(int) - mat[y0:y1, x0:x1])[shared]
                assert diff.mean() < 2, (paper, row, col)
                assert np.all(part[shared] < 100, axis=-1).sum() > 20  # crosses, lines to meet
            mat[y0:y1, x0:x1] = part
            filled[y0:y1, x0:x1] = True
    assert filled.all() and overlaps == rows * cols - 1
    # the play area pieced together: its edges are 540 and 605 mm long
    assert abs(_dark_run(mat[_p(0.2)]) - layout.width) < 2
    assert abs(_dark_run(mat[:, _p(0.2)]) - layout.height) < 2
    # a corner marker's place, with its number, lies where the layout says
    q = layout.marker_square(2)
    place = mat[_p(q[0][1]):_p(q[2][1]), _p(q[0][0]):_p(q[2][0])]
    assert np.all(place < 100, axis=-1).sum() > 50
    # the hand zones on the mat are drawn at actual size
    blue = _blue(mat)
    south = HAND_ZONES["south"]
    assert blue[_p(south.y1) - 2:_p(south.y1) + 3, _p(south.x0):_p(south.x1)].any(axis=0).mean() > 0.3


def _dark_run(line: np.ndarray) -> float:
    """The longest run of dark pixels along a row or column, in mm."""
    dark = np.concatenate([[False], np.all(line < 100, axis=-1), [False]])
    edges = np.flatnonzero(np.diff(dark.astype(int)))
    return float((edges[1::2] - edges[::2]).max()) / PX if len(edges) else 0.0


def test_an_unknown_paper_is_refused_by_the_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["mat", "--tiled", "a3"])
    assert exc.value.code == 2 and "invalid choice: 'a3'" in capsys.readouterr().err
