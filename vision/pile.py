"""The top card of a messy pile: the one card whose outline shows all the way round.

A discard pile as it really lies is a stack of cards thrown on a little off and turned, the lower
ones peeking out on every side. Seen from above, the stack's blob is bigger than a card and its
outline is no card's; the top card is the one card-sized rectangle whose four edges all show (the
edges of the cards below are cut where the top card covers them). :func:`top_card` searches card
outlines over the turns a throw leaves (every :data:`STEP_DEG` degrees up to :data:`MOST_DEG`
either way) and every place in the patch, scoring each by the image's edges along its outline
less those along a ring just inside it, where the top card's own border is plain (a chamfer
match: the edge map blurred, then correlated with that kernel).

The table reader asks it the first time it reads the discard pile (a round's start, after a
recalibration) when what differs from the cloth there is bigger than a card (:func:`is_stack`):
of the best outlines (:func:`top_card_candidates`) the card classifier picks the one it reads
most surely, since only the top card shows whole. Once the pile has been read, a card thrown
on is found as what changed (:func:`vision.table_reader.locate_card`'s ``before``). What changed
is not always the whole card: where the new card's print lies on the same print of the card
below (blue on blue), nothing changed, and the outline found is short of a card; where the card
below peeks out, the outline holds both and is too big. :func:`likeliest_placement` then looks
for the top card's outline by the chamfer match, as at the first sight of a pile.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import cv2
import numpy as np

from vision.card_shape import order_quad
from vision.geometry import CARD_MM

__all__ = ["top_card", "top_card_candidates", "likeliest_placement", "is_stack", "STEP_DEG", "MOST_DEG",
           "PLACEMENT_SLACK"]

STEP_DEG = 3.0
MOST_DEG = 45.0
#: How much a lower card's crossed inner ring counts against its outline.
RING_WEIGHT = 1.0
#: The ring lies this far inside the outline (mm): on the white border, clear of the print.
RING_INSET_MM = 2.5
#: The outlines are searched at this scale (px/mm), at most.
SEARCH_PX_PER_MM = 1.4
#: A blob is a stack when its area is this many cards' or more.
STACK_AREA = 1.05
#: An outline short of a card's width or length by more than this share of it is no card's
#: outline (:func:`likeliest_placement`); within it, the outline is the card's.
PLACEMENT_SLACK = 0.04
#: The turns searched for a thrown card's outline: this many degrees either way of the turn of
#: what changed (a whole pile's first sight searches every turn).
NEAR_DEG = 9.0
#: An outline longer or wider than a card by more than this share holds the card below too.
STACK_SLACK = 0.15


def is_stack(patch: np.ndarray, px_per_mm: float, diff: float = 60.0) -> bool:
    """What differs from the cloth (the colour of the patch's edge, by ``diff`` summed |BGR|)
    in a top-down ``patch`` is more than one card: a stack whose lower cards peek out."""
    edge = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]]).astype(np.float32)
    mask = (np.abs(patch.astype(np.float32) - np.median(edge, 0)).sum(2) > diff).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return False
    area = cv2.contourArea(max(contours, key=cv2.contourArea))
    return area > STACK_AREA * CARD_MM[0] * CARD_MM[1] * px_per_mm ** 2


def _outline(w: float, h: float, angle: float, thickness: int, inset: float) -> np.ndarray:
    """The matching kernel of a card turned by ``angle`` (degrees): its outline (+) less a ring
    ``inset`` pixels inside it (-), where the top card's own border is plain: a lower card's
    ring is crossed by the edges of the cards over it."""
    box = cv2.boxPoints(((0.0, 0.0), (w, h), angle))
    ring = cv2.boxPoints(((0.0, 0.0), (w - 2 * inset, h - 2 * inset), angle))
    size = _outline_size(w, h, angle, thickness)
    k = np.zeros((size, size), np.float32)
    r = np.zeros((size, size), np.float32)
    cv2.polylines(k, [np.round(box + size / 2).astype(np.int32)], True, 1.0, thickness, cv2.LINE_AA)
    cv2.polylines(r, [np.round(ring + size / 2).astype(np.int32)], True, 1.0, thickness, cv2.LINE_AA)
    return k / max(1e-6, k.sum()) - RING_WEIGHT * r / max(1e-6, r.sum())


def _outline_size(w: float, h: float, angle: float, thickness: int) -> int:
    """The side of :func:`_outline`'s (square, odd) kernel."""
    box = cv2.boxPoints(((0.0, 0.0), (w, h), angle))
    return int(np.ceil(np.abs(box).max() * 2)) + 2 * thickness + 1


def _edge_map(patch: np.ndarray, px_per_mm: float) -> np.ndarray | None:
    """The patch's strongest edges (0..1), softened a pixel or two: an outline a little off
    still scores. None: no edge at all."""
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    mag = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3),
                        cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3))
    if float(mag.max()) <= 0:
        return None
    edges = np.minimum(mag / (np.percentile(mag, 90) + 1e-6), 1.0)
    return cv2.GaussianBlur(edges, (0, 0), max(0.8, 0.6 * px_per_mm))


def likeliest_placement(patch: np.ndarray, quad, px_per_mm: float) -> np.ndarray:
    """The top card's outline in the top-down ``patch`` where ``quad`` outlines what changed:
    ``quad`` itself unless it is short of a card (by :data:`PLACEMENT_SLACK`) or holds more
    than one (:data:`STACK_SLACK`), else the best chamfer
    match (:func:`top_card_candidates`) whose centre lies in it, the top card found as at the
    first sight of a pile (``quad`` when none does). The image's edges choose, never the
    classifier: a place picked for reading surest would pick a misread as readily as the card."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    rw, rh = float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1]))
    cw, ch = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    if (1 - PLACEMENT_SLACK) * cw <= rw <= (1 + STACK_SLACK) * cw \
            and (1 - PLACEMENT_SLACK) * ch <= rh <= (1 + STACK_SLACK) * ch:
        return q  # (a little bigger is the card's blurred edge more often than the card below)
    across = q[1] - q[0]  # (the short edge: the card's turn, as the outline has it)
    turn = float(np.degrees(np.arctan2(across[1], across[0])))
    turn = (turn + 90.0) % 180.0 - 90.0
    for found in top_card_candidates(patch, px_per_mm, keep=3, near_deg=turn):
        centre = found.mean(0)
        if cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0:
            return found
    return q


def _matches(patch: np.ndarray, px_per_mm: float, keep: int, angles=None
             ) -> list[tuple[float, float, float, float]]:
    """The ``keep`` best card outlines by the chamfer match, ``(score, cx, cy, angle)``, at
    least a quarter card's width apart or :data:`STEP_DEG` * 3 degrees apart."""
    edges = _edge_map(patch, px_per_mm)
    if edges is None:
        return []
    w, h = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    thickness = max(1, int(round(0.7 * px_per_mm)))
    m = int(w / 3)  # the card's centre lies a third of its width inside the patch at least
    if min(edges.shape) <= 2 * m + 1:
        return []
    turns = np.arange(-MOST_DEG, MOST_DEG + 1e-6, STEP_DEG) if angles is None else angles
    inset = RING_INSET_MM * px_per_mm
    kernels = [_OutlineKernel(w, h, float(angle), thickness, inset) for angle in turns]
    found = []
    for angle, score in zip(turns, correlate_each(edges, kernels)):
        inner = score[m:-m, m:-m]
        for _ in range(3):  # a few local bests per turn
            _, val, _, loc = cv2.minMaxLoc(inner)
            found.append((float(val), loc[0] + m, loc[1] + m, float(angle)))
            r = max(2, int(w / 4))
            cv2.rectangle(inner, (loc[0] - r, loc[1] - r), (loc[0] + r, loc[1] + r), -1e9, -1)
    found.sort(key=lambda f: -f[0])
    kept: list[tuple[float, float, float, float]] = []
    for f in found:
        if all(np.hypot(f[1] - k[1], f[2] - k[2]) > w / 4 or abs(f[3] - k[3]) > 3 * STEP_DEG
               for k in kept):
            kept.append(f)
        if len(kept) >= keep:
            break
    return kept


class _OutlineKernel:
    """The chamfer kernel of :func:`_outline` by what makes it: drawn only when its spectrum is
    not kept (:data:`_SPECTRA`)."""

    def __init__(self, w: float, h: float, angle: float, thickness: int, inset: float):
        self.key = (w, h, angle, thickness, inset)
        self.size = _outline_size(w, h, angle, thickness)

    def array(self) -> np.ndarray:
        return _outline(*self.key)


class _Spectra:
    """The spectra of the chamfer kernels at the padded sizes last searched, kept up to
    :data:`SPECTRA_BYTES` (least recently used out first). A region's patch has one size, so the
    same 31 kernels were transformed again at every search (two thirds of one); kept, a search
    takes a third of the CPU. At the reader's 1.4 px/mm a narrow patch's 31 spectra take 9 MB."""

    def __init__(self, budget: int):
        self.budget = budget
        self._kept: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> np.ndarray | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key: tuple, spectrum: np.ndarray) -> None:
        with self._lock:
            if key in self._kept or spectrum.nbytes > self.budget:
                return
            self._kept[key] = spectrum
            self._bytes += spectrum.nbytes
            while self._bytes > self.budget:
                _, old = self._kept.popitem(last=False)
                self._bytes -= old.nbytes


#: How many bytes of kernel spectra are kept (16 MB: a narrow and most of a wide patch's set).
SPECTRA_BYTES = 16 << 20
_SPECTRA = _Spectra(SPECTRA_BYTES)


def correlate_each(image: np.ndarray, kernels: list) -> list[np.ndarray]:
    """``cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_CONSTANT)`` for each (odd, square)
    kernel: the image's spectrum is taken once and each kernel's multiplied into it, where
    filter2D takes the image's DFT again for every kernel. The same scores to float32's
    rounding (a relative 3e-7 on 53 pile searches recorded from the tests, every search's best
    outlines the same) at 0.4 of the CPU. Borders are zeros, as the chamfer match needs: an
    outline reaching past the patch scores only what lies inside. A kernel given as an
    :class:`_OutlineKernel` has its spectrum kept for the next image of the same size."""
    h, w = image.shape
    size = max(k.size if isinstance(k, _OutlineKernel) else k.shape[0] for k in kernels)
    rows, cols = cv2.getOptimalDFTSize(h + size - 1), cv2.getOptimalDFTSize(w + size - 1)
    padded = np.zeros((rows, cols), np.float32)
    padded[:h, :w] = image
    spectrum = cv2.dft(padded, nonzeroRows=h)
    out = []
    for kernel in kernels:
        kept = key = None
        if isinstance(kernel, _OutlineKernel):
            key = (rows, cols, kernel.key)
            kept = _SPECTRA.get(key)
            k = kernel.size
        else:
            k = kernel.shape[0]
        if kept is None:
            padded[:] = 0
            padded[:k, :k] = kernel if key is None else kernel.array()
            kept = cv2.dft(padded, nonzeroRows=k)
            if key is not None:
                _SPECTRA.put(key, kept)
        corr = cv2.idft(cv2.mulSpectrums(spectrum, kept, 0, conjB=True),
                        flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        # corr[y, x] sums kernel[i, j] * image[y + i, x + j]; filter2D centres the kernel
        # (anchor k // 2): its (y, x) is corr's (y - k // 2, x - k // 2), wrapped round
        out.append(np.roll(corr, (k // 2, k // 2), axis=(0, 1))[:h, :w].copy())
    return out


def top_card_candidates(patch: np.ndarray, px_per_mm: float, keep: int = 8, near_deg: float | None = None
                        ) -> list[np.ndarray]:
    """Card outlines that may be a pile's top card, likeliest first (the best chamfer matches);
    turned up to :data:`MOST_DEG` either way, or within :data:`NEAR_DEG` of ``near_deg``."""
    k = min(1.0, SEARCH_PX_PER_MM / px_per_mm)  # searched smaller: the outline is coarse
    small = cv2.resize(patch, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else patch
    w, h = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    angles = np.arange(-MOST_DEG, MOST_DEG + 1e-6, STEP_DEG)  # (the same steps: a match is sharp)
    if near_deg is not None:
        angles = angles[np.abs(angles - near_deg) <= NEAR_DEG]
        if not len(angles):
            return []  # (an outline turned further than any card is searched: none near it)
    return [order_quad(cv2.boxPoints(((cx / k, cy / k), (w, h), angle)).astype(np.float32))
            for _s, cx, cy, angle in _matches(small, px_per_mm * k, keep, angles)]


def _card_sized(quads, px_per_mm: float, slack: float = 0.15) -> list[np.ndarray]:
    """The outlines of a card's size (within ``slack``) among ``quads``."""
    w, h = CARD_MM[0] * px_per_mm, CARD_MM[1] * px_per_mm
    out = []
    for q in quads:
        q = np.asarray(q, np.float32)
        a, b = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])
        short, long_ = min(a, b), max(a, b)
        if abs(short - w) <= slack * w and abs(long_ - h) <= slack * h:
            out.append(q)
    return out


def top_card(patch: np.ndarray, px_per_mm: float, classifier, *, size=(64, 96),
             also: list | None = None) -> tuple[np.ndarray, dict] | None:
    """The top card of the pile in a top-down ``patch``: of the candidate outlines
    (:func:`top_card_candidates`, and ``also``), the one ``classifier`` (``classify_many``:
    rectified cards in, ``{label: probability}`` out, ``empty`` for no card) reads as a card most
    surely: only the top card shows whole, every other outline holds parts of several cards.
    Returns ``(quad, probabilities)``, or None when no outline reads as a card."""
    from vision.card_shape import rectify
    from vision.detect import find_quads

    quads = top_card_candidates(patch, px_per_mm) + [np.asarray(q, np.float32) for q in also or ()]
    quads += _card_sized(find_quads(patch, extra=False), px_per_mm)
    if not quads:
        return None
    probs = classifier.classify_many([rectify(patch, q, size) for q in quads])
    best, best_p = None, 0.0
    for q, p in zip(quads, probs):
        label = max(p, key=p.get)
        if label in ("empty", "none") or p[label] <= best_p:
            continue
        best, best_p = (q, p), p[label]
    return best
