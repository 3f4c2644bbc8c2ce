"""Clean card images to train from: real photo crops, art-sheet cells, procedural drawings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.cards import BACK, CLASSIC, DARK, LIGHT
from vision.card_art import draw_card
from vision.data import Photo, require_data
from vision.detect import find_quads, rectify

# Art sheets: 12 cards a row. Row 0 holds the back (Flip dark: a purple flip) and the wilds,
# with colour-tinted wild variants and a blank wild that are not real cards (None: skipped).
_ROW0 = {
    "classic": [BACK, "wild", None, None, None, None, "wild-draw-four", None, None, None, None, None],
    "flip_light": [BACK, "wild", None, None, None, None, "wild-draw-two", None, None, None, None, None],
    "flip_dark": ["purple-flip", "wild", None, None, None, None, "wild-draw-color", None, None, None,
                  None, None],
}
_COLOURED = {
    "classic": (("yellow", "red", "blue", "green"),
                [str(n) for n in range(1, 10)] + ["0", "draw-two", "skip", "reverse"]),
    "flip_light": (("yellow", "red", "blue", "green"),
                   [str(n) for n in range(1, 10)] + ["flip", "draw-one", "skip", "reverse"]),
    "flip_dark": (("orange", "pink", "purple", "teal"),
                  [str(n) for n in range(1, 10)] + ["flip", "draw-five", "skip-everyone", "reverse"]),
}
SHEET_SET = {"classic": CLASSIC, "flip_light": LIGHT, "flip_dark": DARK}


@dataclass
class Source:
    image: np.ndarray  # the card, upright or upside down, filling the image (BGR)
    label: str
    kind: str          # 'real', 'art', 'proc'
    group: str         # deck/folder name for reporting


def sheet_labels(sheet: str) -> list[str | None]:
    colours, faces = _COLOURED[sheet]
    return _ROW0[sheet] + [f"{c}-{f}" for c in colours for f in faces]


def art_cards(root: Path | None = None) -> list[Source]:
    """Every real face cut from the three art sheets."""
    root = root or require_data()
    out = []
    for sheet in ("classic", "flip_light", "flip_dark"):
        img = cv2.imread(str(root / "card_art" / f"{sheet}.png"))
        if img is None:
            continue
        s = img.shape[1] / 2048.0
        px, py = 2010 / 12 * s, 258.2 * s
        for i, label in enumerate(sheet_labels(sheet)):
            if label is None:
                continue
            r, c = divmod(i, 12)
            x0, y0 = int(c * px + 1 * s), int(r * py + 1 * s)
            x1, y1 = int((c + 1) * px - 3 * s), int((r + 1) * py - 3 * s)
            out.append(Source(img[y0:y1, x0:x1].copy(), label, "art", sheet))
    return out


def proc_cards(per_label: int, seed: int = 0) -> list[Source]:
    rng = np.random.default_rng(seed)
    out = []
    for fs, group in ((CLASSIC, "classic"), (LIGHT, "flip_light"), (DARK, "flip_dark")):
        for card in fs.faces:
            for _ in range(per_label):
                out.append(Source(draw_card(card.name, 128, 192, face_set=fs, rng=rng), card.name,
                                  "proc", group))
    for _ in range(per_label * 2):
        out.append(Source(draw_card(BACK, 128, 192, rng=rng), BACK, "proc", "classic"))
    return out


# hue ranges (OpenCV 0-180) of the classic/light colours, to pick the card among detections
_HUES = {"red": [(0, 10), (165, 180)], "yellow": [(18, 38)], "green": [(40, 90)], "blue": [(90, 130)]}


def _label_colour(label: str) -> str | None:
    """The label's colour among :data:`_HUES`, or None (a wild, a back)."""
    colour = label.split("-")[0]
    return colour if colour in _HUES else None


def _colour_share(card: np.ndarray, colour: str | None) -> float:
    hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    sat = (s > 80) & (v > 50)
    if colour is None:
        return float(((v < 70) | sat).mean())
    m = np.zeros_like(sat)
    for lo, hi in _HUES[colour]:
        m |= (h >= lo) & (h <= hi)
    return float((m & sat).mean())


def white_ring(card: np.ndarray) -> float:
    """Share of white print in a thin ring along the rectified card's four edges: near 1 for a
    quad on a card's own white border, low for a quad that is loose (table inside it) or cuts
    through the card's field."""
    hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV).astype(np.float32)
    s, v = hsv[..., 1], hsv[..., 2]
    white = (s < 70) & (v > 0.6 * np.percentile(v, 95))
    b = max(2, int(round(card.shape[1] * 0.05)))
    return float(np.mean([white[:b].mean(), white[-b:].mean(), white[:, :b].mean(),
                          white[:, -b:].mean()]))


def best_quad(image: np.ndarray, label: str, reader=None, deck: str = "auto"):
    """The detected quad most likely to be the photo's one card of ``label``, or None.

    With a ``reader`` (a :class:`vision.recognize.CardReader`, the teacher) the choice is guided
    by the label: among all candidate outlines, the one the model reads as ``label`` most
    surely, favouring outlines on the card's white border and whole cards over parts of one.
    The photos are of hand-held cards in front of screens and keyboards, where the biggest
    outline of the right colour is often a monitor or half the card. Without a reader (the
    first training, before any model exists) the biggest outline of the label's colour wins.
    """
    if reader is not None:
        return _taught_quad(image, label, reader, deck)
    colour = _label_colour(label)
    best, best_score = None, 0.0
    for q in find_quads(image, extra=False)[:30]:
        card = rectify(image, q)
        share = _colour_share(card, colour)
        if share < 0.22:
            continue
        score = cv2.contourArea(q) * (0.5 + share)
        if score > best_score:
            best, best_score = q, score
    return best


#: The teacher must give the label at least this probability on the chosen outline.
TEACHER_MIN_P = 0.3


def _taught_quad(image, label, reader, deck):
    from vision.detect import find_field_quads

    quads = find_quads(image, extra=True)[:80] + find_field_quads(image)
    if not quads or label not in reader.classes:
        return None
    cards = [rectify(image, q) for q in quads]
    p = reader.probabilities(cards, deck)[:, reader.classes.index(label)]
    ring = np.array([white_ring(c) for c in cards])
    area = np.array([cv2.contourArea(q) for q in quads])
    score = p * (0.3 + ring) * (area / area.max()) ** 0.15
    k = int(np.argmax(score))
    return quads[k] if p[k] >= TEACHER_MIN_P else None


def real_cards(photos: list[Photo], reader=None, progress: bool = True) -> list[Source]:
    """Card images from real photos: rectified sources as they are, the others via detection
    (guided by ``reader``, the teacher model, when given: see :func:`best_quad`)."""
    from tqdm import tqdm

    out = []
    for p in tqdm(photos, desc="real crops", unit="photo", disable=not progress):
        if p.label.startswith("*"):
            continue  # colour unknown (centre symbol crops)
        img = cv2.imread(str(p.path))
        if img is None:
            continue
        group = "flip_light" if p.deck == "flip-light" else "classic"
        if p.is_crop or p.rel.endswith(
                "flip_light_symbols/wild.jpg"):
            if img.shape[1] > img.shape[0]:
                img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
            out.append(Source(img, p.label, "real", group))
            continue
        q = best_quad(img, p.label, reader, p.reader_deck)
        if q is None:
            continue
        out.append(Source(rectify(img, q, (128, 192)), p.label, "real", group))
    return out


def background_crops(photos: list[Photo], per_photo: int = 3, seed: int = 0,
                     max_share: float = 0.4) -> list[np.ndarray]:
    """Real non-card outlines (class ``none``): candidate quads of the photos that lie outside
    the photo's card (keyboard keys, screen icons, window corners, mugs), rectified as the
    reader would see them. Drawn negatives miss these; the model read some as cards.

    No model is asked where the card is: every outline holding a fair share of the label's
    colour may be (part of) it, and only outlines clear of all of those, without that colour,
    and smaller than ``max_share`` of the biggest of them are taken (another card lying in the
    photo, the labels naming one card a photo, is not taught as ``none``)."""
    from tqdm import tqdm

    from vision.recognize import _overlap

    rng = np.random.default_rng(seed)
    out = []
    for p in tqdm(photos, desc="background crops", unit="photo"):
        if p.label.startswith("*") or p.is_crop:
            continue
        img = cv2.imread(str(p.path))
        if img is None:
            continue
        colour = _label_colour(p.label)
        quads = find_quads(img)
        crops = [rectify(img, q, (128, 192)) for q in quads]
        share = [_colour_share(c, colour) for c in crops]
        cardlike = [q for q, s in zip(quads, share) if s >= 0.15]
        if not cardlike:
            continue
        limit = max_share * max(cv2.contourArea(q) for q in cardlike)
        outside = [c for q, c, s in zip(quads, crops, share)
                   if s < 0.1 and cv2.contourArea(q) < limit
                   and all(_overlap(q, k) < 0.05 for k in cardlike)]
        for i in rng.permutation(len(outside))[:per_photo]:
            out.append(outside[int(i)])
    return out
