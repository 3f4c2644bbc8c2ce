"""Where things are on the table: the mat layout in millimetres and the camera's view of it.

The play area is a rectangle on the table, its corners marked by four ArUco markers (printed by
``companion mat``). Everything the referee cares about has a fixed place inside it, in *mat
millimetres* (x to the east, y to the south, origin at the north-west corner)::

    +--------------------------------------------+
    | [NW]                                 [NE]  |
    |   c00 c01 c02 c03 c04                      |
    |   c10 ...                       [draw ]    |
    |   ...            5x5 grid                  |
    |                                 [disc.]    |
    |   c40 ...             c44                  |
    | [SW]                                 [SE]  |
    +--------------------------------------------+

:class:`Layout` holds those places; :class:`View` maps mat millimetres to camera pixels (a
homography, then the lens distortion if one is known) and back. A view is found from the four
markers (:func:`view_from_markers`) or, without markers, from the 25 cards of the grid laid out
at set-up (:func:`view_from_grid_cards`).

>>> layout = Layout()
>>> layout.cell_center(2, 2)
(225.0, 302.5)
>>> layout.cell_at(225.0, 302.5)
(2, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import cv2
import numpy as np

from companion.reading import cell_name  # (the reading contract names the regions)

__all__ = [
    "CARD_MM", "Layout", "View", "Region", "LensModel", "CalibrationFailed", "ARUCO_DICT", "marker_image",
    "CORNER_IDS", "PAWN_ID", "aruco_detector", "detect_markers", "view_from_markers",
    "view_from_grid_cards", "card_blobs", "REGION_NAMES",
]

#: A printed Uno card, width x height in millimetres.
CARD_MM = (56.0, 87.0)
#: The ArUco dictionary of every marker in the kit (small and robust at ~30 px a side).
ARUCO_DICT = cv2.aruco.DICT_4X4_50
#: Marker ids at the play area's corners: north-west, north-east, south-east, south-west.
CORNER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("north-west", "north-east", "south-east", "south-west")
#: The marker to stick on the pawn.
PAWN_ID = 7
#: The black square's share of a printed marker's side (its cut line): the ArUco marker's six
#: modules (4x4 bits and a black border) inside a white margin of one module each side.
MARKER_BLACK_SHARE = 6 / 8


class CalibrationFailed(RuntimeError):
    """The camera's view of the play area could not be found (say which cue was missing)."""


@dataclass(frozen=True)
class Region:
    """A named rectangle of the mat (mm): a grid cell, the draw pile or the discard pile."""

    name: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    @property
    def corners(self) -> np.ndarray:
        """Four corners (mm), clockwise from the north-west one."""
        return np.array([[self.x0, self.y0], [self.x1, self.y0], [self.x1, self.y1],
                         [self.x0, self.y1]], np.float32)

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1


#: Every region the reader reads, grid cells row by row, then the piles.
REGION_NAMES = tuple(cell_name(r, c) for r in range(5) for c in range(5)) + ("discard", "draw")


@dataclass(frozen=True)
class Layout:
    """The printed mat's geometry, in millimetres. The defaults are what ``companion mat`` prints.

    Cells are ``pitch`` apart (a card plus a finger's gap); the draw pile and discard pile lie
    in a column east of the grid.
    """

    width: float = 540.0
    height: float = 605.0
    grid_origin: tuple[float, float] = (60.0, 60.0)
    pitch: tuple[float, float] = (66.0, 97.0)
    draw_pile: tuple[float, float] = (463.0, 228.0)     # centre
    discard_pile: tuple[float, float] = (463.0, 368.0)  # centre
    marker_mm: float = 40.0
    marker_inset: float = 5.0
    pawn_marker_mm: float = 22.0

    def cell_center(self, row: int, col: int) -> tuple[float, float]:
        """The centre of cell (row, col); also defined one step off the board (row -1, col 5...)."""
        return (self.grid_origin[0] + (col + 0.5) * self.pitch[0],
                self.grid_origin[1] + (row + 0.5) * self.pitch[1])

    def cell_region(self, row: int, col: int) -> Region:
        x, y = self.cell_center(row, col)
        px, py = self.pitch
        return Region(cell_name(row, col), x - px / 2, y - py / 2, x + px / 2, y + py / 2)

    @cached_property
    def grid_rect(self) -> Region:
        x0, y0 = self.grid_origin
        return Region("grid", x0, y0, x0 + 5 * self.pitch[0], y0 + 5 * self.pitch[1])

    def pile_region(self, name: str) -> Region:
        x, y = self.draw_pile if name == "draw" else self.discard_pile
        px, py = self.pitch
        return Region(name, x - px / 2, y - py / 2, x + px / 2, y + py / 2)

    @cached_property
    def regions(self) -> dict[str, Region]:
        out = {cell_name(r, c): self.cell_region(r, c) for r in range(5) for c in range(5)}
        out["discard"] = self.pile_region("discard")
        out["draw"] = self.pile_region("draw")
        return out

    def cell_at(self, x: float, y: float) -> tuple[int, int]:
        """The cell (row, col) under a mat point; outside the grid: -1 or 5 on the crossed side(s)."""
        col = int(np.floor((x - self.grid_origin[0]) / self.pitch[0]))
        row = int(np.floor((y - self.grid_origin[1]) / self.pitch[1]))
        return (min(max(row, -1), 5), min(max(col, -1), 5))

    def marker_square(self, index: int) -> np.ndarray:
        """The four corners (mm, marker's own clockwise order from its top-left) of corner marker
        ``index`` as printed: its cut line, ``marker_mm`` a side, white margin included."""
        m, i = self.marker_mm, self.marker_inset
        x0 = i if index in (0, 3) else self.width - i - m
        y0 = i if index in (0, 1) else self.height - i - m
        return np.array([[x0, y0], [x0 + m, y0], [x0 + m, y0 + m], [x0, y0 + m]], np.float32)

    def marker_black_square(self, index: int) -> np.ndarray:
        """The corners of corner marker ``index``'s black square (what the detector finds):
        :data:`MARKER_BLACK_SHARE` of the printed square, about the same centre."""
        q = self.marker_square(index)
        centre = q.mean(axis=0)
        return (centre + (q - centre) * MARKER_BLACK_SHARE).astype(np.float32)


@dataclass(frozen=True)
class LensModel:
    """A pinhole camera with radial/tangential distortion (OpenCV's model), in pixels."""

    camera_matrix: tuple[tuple[float, ...], ...]
    dist_coeffs: tuple[float, ...]

    @classmethod
    def simple(cls, width: int, height: int, k1: float = 0.0, k2: float = 0.0) -> "LensModel":
        f = 0.9 * width
        return cls(((f, 0.0, width / 2), (0.0, f, height / 2), (0.0, 0.0, 1.0)), (k1, k2, 0.0, 0.0, 0.0))

    @cached_property
    def K(self) -> np.ndarray:
        return np.array(self.camera_matrix, np.float64)

    @cached_property
    def D(self) -> np.ndarray:
        return np.array(self.dist_coeffs, np.float64)

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Ideal (undistorted) pixel points -> where the lens puts them."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        norm = (pts - self.K[:2, 2]) / np.array([self.K[0, 0], self.K[1, 1]])
        obj = np.concatenate([norm, np.ones((len(norm), 1))], 1).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), self.K, self.D)
        return out.reshape(-1, 2)

    def undistort(self, pts: np.ndarray) -> np.ndarray:
        """Pixel points as seen -> ideal (undistorted) pixel points."""
        pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.undistortPoints(pts, self.K, self.D, P=self.K).reshape(-1, 2)


@dataclass(frozen=True)
class View:
    """How the camera sees the mat: ``H`` maps mat mm to ideal pixels, ``lens`` bends them.

    ``source`` says how it was found (``markers``, ``grid``, ``given``).
    """

    H: np.ndarray = field(compare=False)
    image_size: tuple[int, int]
    lens: LensModel | None = None
    source: str = "given"

    @cached_property
    def H_inv(self) -> np.ndarray:
        return np.linalg.inv(self.H)

    def to_image(self, pts_mm) -> np.ndarray:
        pts = np.asarray(pts_mm, np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(pts, self.H).reshape(-1, 2)
        return self.lens.distort(out) if self.lens is not None else out

    def to_mat(self, pts_px) -> np.ndarray:
        pts = np.asarray(pts_px, np.float64).reshape(-1, 2)
        if self.lens is not None:
            pts = self.lens.undistort(pts)
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.H_inv).reshape(-1, 2)

    def scaled_to(self, image_size: tuple[int, int]) -> "View":
        """The same camera's view in an image of another size (``(width, height)``): a still
        taken at the sensor's full resolution (:meth:`vision.sources.FrameSource.still`) sees
        what the video frames see, each pixel split into finer ones.

        >>> v = View(np.eye(3), (1280, 720))
        >>> v.scaled_to((2560, 1440)).to_image([(10.0, 20.0)]).tolist()
        [[20.0, 40.0]]
        """
        sx, sy = image_size[0] / self.image_size[0], image_size[1] / self.image_size[1]
        S = np.diag([sx, sy, 1.0])
        lens = None
        if self.lens is not None:
            K = S @ self.lens.K   # the distortion coefficients act on normalised points: unchanged
            lens = LensModel(tuple(tuple(float(v) for v in row) for row in K), self.lens.dist_coeffs)
        return View(S @ self.H, (int(image_size[0]), int(image_size[1])), lens, self.source)

    def px_per_mm(self, at_mm=(270.0, 300.0)) -> float:
        p = self.to_image([at_mm, (at_mm[0] + 10, at_mm[1])])
        return float(np.linalg.norm(p[1] - p[0]) / 10)

    def region_quad(self, region: Region, margin: float = 0.0) -> np.ndarray:
        """The region's corners in camera pixels (``margin`` mm added around it)."""
        r = Region(region.name, region.x0 - margin, region.y0 - margin, region.x1 + margin,
                   region.y1 + margin)
        return self.to_image(r.corners).astype(np.float32)

    def warp_region(self, image: np.ndarray, region: Region, px_per_mm: float,
                    margin: float = 0.0) -> np.ndarray:
        """The region (plus ``margin`` mm) as a top-down image at ``px_per_mm``."""
        quad = self.region_quad(region, margin)
        w = int(round((region.x1 - region.x0 + 2 * margin) * px_per_mm))
        h = int(round((region.y1 - region.y0 + 2 * margin) * px_per_mm))
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        M = cv2.getPerspectiveTransform(quad, dst)
        return cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)

    def moved_by(self, other: "View", layout: Layout) -> float:
        """Largest pixel distance between the two views' images of the play area's corners."""
        pts = np.array([[0, 0], [layout.width, 0], [layout.width, layout.height], [0, layout.height]])
        return float(np.abs(self.to_image(pts) - other.to_image(pts)).max())

    def to_json(self) -> dict:
        return {"H": [[round(float(v), 6) for v in row] for row in self.H],
                "image_size": list(self.image_size), "source": self.source}


# --- markers -----------------------------------------------------------------------------------

_DETECTOR = None


def aruco_detector() -> "cv2.aruco.ArucoDetector":
    """One shared detector of the kit's dictionary (cheap to reuse, costly to build)."""
    global _DETECTOR
    if _DETECTOR is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        # a marker a few pixels a module wide (the pawn's, at 1280x720) is read bit by bit from
        # a finer warp, with more of each cell's noisy edge ignored: the pawn was found in 14 of
        # 30 quiet noisy frames with the defaults (4 px a cell, 0.13 margin), 27 with these
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.2
        _DETECTOR = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)
    return _DETECTOR


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its four corners (pixels, clockwise from the marker's own top-left)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = aruco_detector().detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def view_from_markers(image: np.ndarray, layout: Layout = Layout(), lens: LensModel | None = None,
                      markers: dict[int, np.ndarray] | None = None) -> View:
    """The view from the corner markers seen in ``image`` (at least three of the four)."""
    if markers is None:
        markers = detect_markers(image)
    src, dst = [], []
    for index, marker_id in enumerate(CORNER_IDS):
        if marker_id in markers:
            src.append(layout.marker_black_square(index))  # the detector finds the black square
            dst.append(markers[marker_id])
    if len(src) < 3:
        seen = sorted(set(markers) & set(CORNER_IDS))
        raise CalibrationFailed(
            f"saw {len(seen)} of the 4 corner markers ({', '.join(CORNER_NAMES[i] for i in seen) or 'none'}); "
            "need at least 3: check that the play area's corners are in view and uncovered")
    src = np.concatenate(src).astype(np.float64)
    dst = np.concatenate(dst).astype(np.float64)
    if lens is not None:
        dst = lens.undistort(dst)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        raise CalibrationFailed("the corner markers do not give a usable view")
    h, w = image.shape[:2]
    return View(H, (w, h), lens, "markers")


def card_blobs(image: np.ndarray) -> list[tuple[np.ndarray, float, np.ndarray]]:
    """Card-like blobs of a frame: (centre in pixels, area, unit vector along the card's long
    side). A card's white border stands out from any cloth or table (little saturation,
    bright); filled, each card is one blob."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    s, v = hsv[..., 1].astype(np.int16), hsv[..., 2].astype(np.int16)
    bright = np.percentile(v, 97)
    white = ((s < 70) & (v > 0.72 * bright)).astype(np.uint8) * 255
    white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(white, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < 150:
            continue
        rect = cv2.minAreaRect(c)
        (cx, cy), (w, h), _ = rect
        if min(w, h) < 4:
            continue
        ratio = max(w, h) / min(w, h)
        fill = area / max(w * h, 1e-6)
        if 1.25 < ratio < 1.95 and fill > 0.75:
            box = cv2.boxPoints(rect)
            e1, e2 = box[1] - box[0], box[2] - box[1]
            long = e1 if np.linalg.norm(e1) >= np.linalg.norm(e2) else e2
            out.append((np.array([cx, cy]), float(w * h), long / max(np.linalg.norm(long), 1e-6)))
    return out


#: Cards of the grid that must be found to calibrate from them (the pawn or glare may hide a few;
#: a row with fewer than 4 cards found is left out).
MIN_GRID_CARDS = 16


def view_from_grid_cards(image: np.ndarray, layout: Layout = Layout(),
                         lens: LensModel | None = None, north_up: bool = True) -> View:
    """The view from the face-up cards of the grid at set-up (no markers needed).

    Finds card-shaped blobs (:func:`card_blobs`), keeps those of the grid's common size, and
    finds the grid's axes (the principal directions of the centres: its rows are further apart
    than its columns, 97 against 66 mm). Along each axis the centres fall into 5 bands, split at
    the 4 widest gaps between them; each card's row and column band is its cell. Cards beside
    the grid (the piles) and doubled cells are dropped, and the homography of the cell centres is
    fitted to the cards found: at least :data:`MIN_GRID_CARDS` of the 25 (the pawn on a card,
    glare or a hand may hide a few). North is at the top of the image unless ``north_up`` is
    false.
    """
    blobs = card_blobs(image)
    if len(blobs) < MIN_GRID_CARDS:
        raise CalibrationFailed(f"found {len(blobs)} card shapes, need the 25 of the grid face up "
                                "and apart (no hands over the table)")
    areas = np.array([a for _, a, _ in blobs])
    centers = np.array([c for c, _, _ in blobs], np.float64)
    longs = np.array([d for _, _, d in blobs], np.float64)
    ref = np.median(np.sort(areas)[-25:])
    keep = (areas > 0.55 * ref) & (areas < 1.6 * ref)
    pts = centers[keep]
    # the grid's columns run along the cards' long sides (the cards lie portrait): their mean
    # direction (angles doubled: a card's side has no front or back) is the down axis
    a2 = 2 * np.arctan2(longs[keep][:, 1], longs[keep][:, 0])
    mean2 = np.arctan2(np.sin(a2).mean(), np.cos(a2).mean()) / 2
    card_down = np.array([np.cos(mean2), np.sin(mean2)])
    if len(pts) < MIN_GRID_CARDS:
        raise CalibrationFailed(f"found {len(pts)} grid-sized cards, need 25")
    if lens is not None:
        pts = lens.undistort(pts)
    # drop the farthest (by the spread of the rest) until 25 are left: the piles beside the
    # grid fall away first (the grid is taller than wide, so plain distance would not do)
    chosen = pts
    while len(chosen) > 25:
        mid = np.median(chosen, 0)
        inv = np.linalg.pinv(np.cov((chosen - mid).T))
        d = np.einsum("ij,jk,ik->i", chosen - mid, inv, chosen - mid)
        chosen = np.delete(chosen, int(np.argmax(d)), 0)
    mid = chosen.mean(0)
    down = card_down
    if down[1] < 0:            # pointing down the image
        down = -down
    across = np.array([down[1], -down[0]])
    if across[0] < 0:
        across = -across
    rows = _bands((chosen - mid) @ down)
    if rows is None:
        raise CalibrationFailed("the grid's cards do not lie in 5 rows")
    side = (chosen - mid) @ across
    cells = _columns(rows, side)
    if len(cells) < MIN_GRID_CARDS:
        raise CalibrationFailed(f"only {len(cells)} of the grid's cells hold one card each, "
                                f"need {MIN_GRID_CARDS}")
    order = sorted(cells)
    img_pts = np.array([chosen[cells[c]] for c in order], np.float64)
    if not north_up:
        order = [(4 - r, 4 - c) for r, c in order]
    mat_pts = np.array([layout.cell_center(r, c) for r, c in order], np.float64)
    H, inliers = cv2.findHomography(mat_pts, img_pts, cv2.RANSAC, 0.2 * np.sqrt(ref))
    if H is None or inliers is None or inliers.sum() < max(MIN_GRID_CARDS, 0.7 * len(order)):
        raise CalibrationFailed("the grid's cards do not lie in 5 straight rows of 5")
    h, w = image.shape[:2]
    return View(H, (w, h), lens, "grid")


def _columns(rows: np.ndarray, side: np.ndarray) -> dict[tuple[int, int], int]:
    """Cell -> card index: in each row the cards in order across; a row of 4 lacks the column
    where its gap is twice the pitch (or, without such a gap, the end its first card is not
    at). Rows of fewer cards are left out (the homography needs no more)."""
    full = [np.sort(side[rows == r]) for r in range(5) if (rows == r).sum() == 5]
    if not full:
        return {}
    pitch = float(np.median(np.concatenate([np.diff(f) for f in full])))
    first = float(np.median([f[0] for f in full]))
    cells: dict[tuple[int, int], int] = {}
    for r in range(5):
        idx = np.flatnonzero(rows == r)
        idx = idx[np.argsort(side[idx])]
        if len(idx) > 5:  # a card of a pile in line with the row: keep the run nearest the grid
            while len(idx) > 5:
                idx = idx[1:] if abs(side[idx[0]] - first) > abs(side[idx[-1]] - (first + 4 * pitch)) \
                    else idx[:-1]
        if len(idx) == 5:
            cols = list(range(5))
        elif len(idx) == 4:
            gaps = np.diff(side[idx])
            k = int(np.argmax(gaps))
            if gaps[k] > 1.5 * pitch:
                cols = [c if c <= k else c + 1 for c in range(4)]
            elif abs(side[idx[0]] - first) < pitch / 2:
                cols = [0, 1, 2, 3]
            else:
                cols = [1, 2, 3, 4]
        else:
            continue
        for c, i in zip(cols, idx):
            cells[(r, c)] = int(i)
    return cells


def _bands(x: np.ndarray, n: int = 5) -> np.ndarray | None:
    """Each value's band (0..n-1) when the values fall into ``n`` bands: split at the n-1
    widest gaps of the sorted values, which must be clearly wider than the gaps inside bands."""
    order = np.argsort(x)
    gaps = np.diff(x[order])
    if len(gaps) < n - 1:
        return None
    cuts = np.sort(np.argsort(gaps)[-(n - 1):])
    inside = np.delete(gaps, cuts)
    if len(inside) and gaps[cuts].min() < 2.0 * max(float(inside.max()), 1e-6):
        return None
    band = np.zeros(len(x), int)
    for k, cut in enumerate(cuts, 1):
        band[order[cut + 1:]] = k
    return band


# --- following a nudged camera ------------------------------------------------------------------

def follow_view(view: View, before: np.ndarray, after: np.ndarray, min_inliers: int = 40) -> View | None:
    """``view`` carried over to a camera that moved between the grey frames ``before`` (seen
    through ``view``) and ``after``, by matching the table's own texture (ORB features, RANSAC
    homography): far more exact than a new view from the grid's cards, which lie a few mm off
    their places. None when the two frames do not match well enough."""
    orb = cv2.ORB_create(1500)  # as exact as 3000 (a few px over 12 nudges), a third of the matching
    ka, da = orb.detectAndCompute(before, None)
    kb, db = orb.detectAndCompute(after, None)
    if da is None or db is None or len(ka) < min_inliers or len(kb) < min_inliers:
        return None
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(da, db)
    if len(matches) < min_inliers:
        return None
    pa = np.float64([ka[m.queryIdx].pt for m in matches])
    pb = np.float64([kb[m.trainIdx].pt for m in matches])
    if view.lens is not None:  # the homography holds between ideal (undistorted) pixels
        pa, pb = view.lens.undistort(pa), view.lens.undistort(pb)
    M, inliers = cv2.findHomography(pa, pb, cv2.RANSAC, 2.0)
    if M is None or inliers is None or int(inliers.sum()) < min_inliers:
        return None
    return View(M @ view.H, view.image_size, view.lens, view.source)


@lru_cache(maxsize=64)
def marker_image(marker_id: int, px: int) -> np.ndarray:
    """An ArUco marker of the kit's dictionary, ``px`` square, with its white quiet zone included
    (the black square is :data:`MARKER_BLACK_SHARE` of it)."""
    inner = int(round(px * MARKER_BLACK_SHARE))
    mk = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), marker_id, inner)
    out = np.full((px, px), 255, np.uint8)
    o = (px - inner) // 2
    out[o:o + inner, o:o + inner] = mk
    return out
