"""Measure card recognition: held-out real photos, renders, and composited multi-card tables.

* ``real``: every photo of the fixed held-out split (:func:`vision.data.split_of`), read whole
  with :meth:`CardReader.read`; the photo's reading is its most confident card (none found counts
  as a miss). Reported per deck (classic, Flip light) and per source folder, with per-class
  accuracy and the confusions; then per print (``print / white-oval``...) and per way the photo
  was taken (``capture / webcam``...), both read from labels.csv's note
  (:data:`vision.data.PRINTS`, :data:`vision.data.CAPTURES`). Centre-symbol crops of unknown
  colour (``*-FACE``) are skipped.
* ``renders``: tables composed from art-sheet cells and procedural drawings (seeds the training
  never used), per face set: classic, Flip light, Flip dark. Card recall and label accuracy.
* ``composite``: tables composed from real card crops of held-out photos, 15 per table, touching
  and slightly overlapping, on wood, cloth, white and dark tables: recall of the cards. Each
  photo's card is cut out by its label with the model's help (:func:`best_quad`: the outline the
  model reads as that label most surely, on a white border): the photos are of hand-held cards in
  front of screens, where the biggest outline of the right colour is often the screen. Photos
  whose card the model cannot place are left out (the count is reported).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.data import load_photos, require_data
from vision.detect import quad_iou
from vision.recognize import CardReader
from vision.synth import TABLES, compose_table


@dataclass
class Tally:
    name: str
    total: int = 0
    correct: int = 0
    found: int = 0
    per_class: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    confusions: Counter = field(default_factory=Counter)

    def add(self, truth: str, pred: str | None):
        self.total += 1
        self.per_class[truth][1] += 1
        if pred is not None:
            self.found += 1
        if pred == truth:
            self.correct += 1
            self.per_class[truth][0] += 1
        else:
            self.confusions[(truth, pred or "(no card)")] += 1

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else float("nan")

    @property
    def recall(self) -> float:
        """The share of the cards found at all (0 with no card)."""
        return self.found / max(1, self.total)

    def report(self, per_class: bool = True) -> str:
        lines = [f"{self.name}: label accuracy {self.correct}/{self.total} = {100 * self.accuracy:.2f}%"
                 f"  (a card found in {self.found}/{self.total})"]
        if per_class:
            worst = sorted(self.per_class.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0]))
            cells = [f"{k} {v[0]}/{v[1]}" for k, v in worst]
            lines.append("  per class (worst first): " + ", ".join(cells))
        if self.confusions:
            lines.append("  confusions (true -> read: count): " + ", ".join(
                f"{t} -> {p}: {n}" for (t, p), n in self.confusions.most_common()))
        return "\n".join(lines)

    def matrix(self) -> tuple[list[str], np.ndarray]:
        labels = sorted(set(self.per_class) | {p for _, p in self.confusions})
        idx = {label: i for i, label in enumerate(labels)}
        m = np.zeros((len(labels), len(labels)), np.int64)
        for t, (ok, _n) in self.per_class.items():
            m[idx[t], idx[t]] += ok
        for (t, p), n in self.confusions.items():
            m[idx[t], idx[p]] += n
        return labels, m


#: The groups of :func:`eval_real`'s tallies that are not a deck's source folders (reported
#: after them).
GROUPED_BY = ("print", "capture")


def split_photos(split: str, photos: list | None = None):
    """The photos of ``split``: ``test`` (the held-out photos) or ``validation`` (train photos
    set aside by ``--hold-out-validation`` training, for choosing between model variants); from
    ``photos`` where given, else from the photo data."""
    if split not in ("test", "validation"):
        raise ValueError(f"unknown split {split!r}: expected test or validation")
    keep = (lambda p: p.split == "test") if split == "test" else (lambda p: p.validation)
    photos = load_photos(require_data()) if photos is None else photos
    return [p for p in photos if keep(p) and not p.label.startswith("*")]


def photo_answer(sightings: list) -> str | None:
    """A photo of one card's answer: its surest reading's label (None where nothing was read)."""
    return max(sightings, key=lambda s: s.confidence).label if sightings else None


def eval_real(reader: CardReader, deck_mode: str = "auto", progress: bool = True,
              split: str = "test") -> dict[str, Tally]:
    from tqdm import tqdm

    photos = split_photos(split)
    tallies: dict[str, Tally] = {}
    for p in tqdm(photos, desc="held-out photos", unit="photo", disable=not progress):
        img = cv2.imread(str(p.path))
        deck = deck_mode if deck_mode != "known" else p.reader_deck
        pred = photo_answer(reader.read(img, deck=deck) if img is not None else [])
        for key in (p.deck, f"{p.deck} / {p.source}", f"print / {p.print_name}",
                    f"capture / {p.capture}"):
            tallies.setdefault(key, Tally(key)).add(p.label, pred)
    return tallies


def _match(placed, sightings, tally: Tally, iou: float = 0.5):
    used = set()
    for t in placed:
        best, bi = None, iou
        for i, s in enumerate(sightings):
            if i in used:
                continue
            v = quad_iou(t.quad, np.array(s.quad, np.float32))
            if v >= bi:
                best, bi = i, v
        if best is None:
            tally.add(t.label, None)
        else:
            used.add(best)
            tally.add(t.label, sightings[best].label)
    return len(sightings) - len(used)  # extra sightings (false positives)


def eval_renders(reader: CardReader, scenes: int = 12, per_scene: int = 15, seed: int = 2024,
                 progress: bool = True) -> dict[str, Tally]:
    """Tables of art-sheet and procedural cards, one face set at a time."""
    from tqdm import tqdm

    from companion.cards import BACK, CLASSIC, DARK, LIGHT
    from vision.card_art import draw_card
    from vision.train.sources import art_cards

    rng = np.random.default_rng(seed)
    art = defaultdict(list)
    try:
        for s in art_cards():
            art[(s.group, s.label)].append(s.image)
    except Exception:  # noqa: BLE001 - no shared data, or none readable: procedural cards only
        pass
    out = {}
    for fs, group in ((CLASSIC, "classic"), (LIGHT, "flip_light"), (DARK, "flip_dark")):
        tally = Tally(f"renders {fs.name}")
        extra = 0
        labels = [c.name for c in fs.faces] + ([BACK] if fs is CLASSIC else [])
        deck = "classic" if fs is CLASSIC else "flip"
        for k in tqdm(range(scenes), desc=f"renders {fs.name}", unit="table", disable=not progress):
            pick = [labels[int(i)] for i in rng.choice(len(labels), per_scene, replace=False)]
            cards = []
            for lab in pick:
                arts = art.get((group, lab))
                if arts and rng.random() < 0.5:
                    cards.append((lab, arts[0]))
                else:
                    cards.append((lab, draw_card(lab, 160, 248, face_set=fs, rng=rng)))
            img, placed = compose_table(cards, 1920, 1080, rng=rng, kind=TABLES[k % 4],
                                        spacing=(1.9, 1.08, 1.3)[k % 3])
            extra += _match(placed, reader.read(img, deck=deck), tally)
        tally.name += f" (false cards: {extra})"
        out[fs.name] = tally
    return out


def _held_out_crops(reader: CardReader, split: str, progress: bool) -> tuple[list, int]:
    """``(crops, skipped)``: a (label, rectified card) crop of every photo of ``split`` where
    the card can be placed, and how many photos gave none. Photos whose crop is not the card
    (:data:`vision.overlap.UNFIT_CROPS`) are left out."""
    from tqdm import tqdm

    from vision.detect import rectify
    from vision.overlap import UNFIT_CROPS
    from vision.train.sources import best_quad

    crops = []
    skipped = 0
    photos = [p for p in split_photos(split) if p.rel not in UNFIT_CROPS]
    for p in tqdm(photos, desc="held-out crops", unit="photo", disable=not progress):
        img = cv2.imread(str(p.path))
        if img is None:
            continue
        if p.is_crop:
            if img.shape[1] > img.shape[0]:
                img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
            crops.append((p.label, img))
            continue
        q = best_quad(img, p.label, reader, p.reader_deck)
        if q is not None:
            crops.append((p.label, rectify(img, q, (160, 248))))
        else:
            skipped += 1
    return crops, skipped


def _separated_table(cards: list, k: int, rng: np.random.Generator):
    """The ``k``-th 1920x1080 table of separated ``cards`` (:func:`vision.synth.compose_table`):
    the four table kinds and three spacings (touching, spaced, loose) in turn, objects on every
    fourth."""
    return compose_table(cards, 1920, 1080, rng=rng, kind=TABLES[k % 4],
                         spacing=(1.9, 1.05, 1.3)[k % 3], objects=k % 4 == 1)


def eval_composite(reader: CardReader, scenes: int = 16, per_scene: int = 15, seed: int = 77,
                   progress: bool = True, split: str = "test") -> Tally:
    """Tables of real card crops from held-out photos: recall and label accuracy."""
    from tqdm import tqdm

    crops, skipped = _held_out_crops(reader, split, progress)
    rng = np.random.default_rng(seed)
    tally = Tally("composite real crops")
    extra = 0
    for k in tqdm(range(scenes), desc="composite tables", unit="table", disable=not progress):
        pick = [crops[int(i)] for i in rng.choice(len(crops), per_scene, replace=False)]
        img, placed = _separated_table(pick, k, rng)
        extra += _match(placed, reader.read(img), tally)
    tally.name += f" (false cards: {extra}; {len(crops)} crops, {skipped} photos without a placeable card)"
    return tally


class _Routed:
    """A tally that hands each card to the tally ``route(truth)`` names."""

    def __init__(self, route):
        self.route = route

    def add(self, truth: str, pred: str | None):
        self.route(truth).add(truth, pred)


def eval_backs(reader: CardReader, scenes: int = 16, faces: int = 12, backs: int = 3, seed: int = 91,
               progress: bool = True, split: str = "test") -> tuple[Tally, Tally]:
    """Separated cards with backs among them: tables as :func:`eval_composite`'s, each of
    ``faces`` real crops of held-out photos and ``backs`` drawn card backs (there are no photos
    of backs; drawn with seeds no training used). ``(backs, faces)``: each set's recall and
    label accuracy."""
    from tqdm import tqdm

    from companion.cards import BACK
    from vision.card_art import draw_card

    crops, _skipped = _held_out_crops(reader, split, progress)
    rng = np.random.default_rng(seed)
    drawn = [(BACK, draw_card(BACK, 160, 248, rng=rng)) for _ in range(8)]
    back_tally, face_tally = Tally("backs among separated cards"), Tally("faces beside the backs")
    extra = 0
    for k in tqdm(range(scenes), desc="tables with backs", unit="table", disable=not progress):
        pick = [crops[int(i)] for i in rng.choice(len(crops), faces, replace=False)]
        pick += [drawn[int(i)] for i in rng.choice(len(drawn), backs, replace=False)]
        order = rng.permutation(len(pick))
        img, placed = _separated_table([pick[int(i)] for i in order], k, rng)
        extra += _match(placed, reader.read(img), _Routed(lambda truth: back_tally if truth == BACK else face_tally))
    back_tally.name += f" (false cards on the tables: {extra})"
    return back_tally, face_tally


@dataclass
class FannedTally:
    """Cards on tables of overlapping hands (:func:`vision.overlap.compose_hands`): every card
    whose corner index shows must be found, once, with its label."""

    name: str
    cards: int = 0            # readable cards on the tables
    right: int = 0            # found with the right label
    wrong: list = field(default_factory=list)   # (truth, read) of cards found with another label
    missed: list = field(default_factory=list)  # labels of cards not found
    extra: int = 0            # readings on no card
    twice: int = 0            # second readings of a card already found
    backs: list = field(default_factory=lambda: [0, 0])   # backs found right, backs
    partial: list = field(default_factory=lambda: [0, 0])  # partly covered cards found right, all
    visible_right: int = 0    # cards found whose "visible" is right
    matching: str = "label"   # how readings are matched to cards (see add)

    @property
    def recall(self) -> float:
        return self.right / self.cards if self.cards else float("nan")

    @property
    def precision(self) -> float:
        n = self.right + len(self.wrong) + self.extra + self.twice
        return self.right / n if n else float("nan")

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def label_accuracy(self) -> float:
        n = self.right + len(self.wrong)
        return self.right / n if n else float("nan")

    def summary(self) -> dict:
        return {"cards": self.cards, "right": self.right, "wrong": len(self.wrong),
                "missed": len(self.missed), "extra": self.extra, "twice": self.twice,
                "f1": round(self.f1, 4), "recall": round(self.recall, 4),
                "label_accuracy": round(self.label_accuracy, 4),
                "backs": f"{self.backs[0]}/{self.backs[1]}",
                "partly_covered": f"{self.partial[0]}/{self.partial[1]}"}

    @classmethod
    def pooled(cls, name: str, tallies) -> "FannedTally":
        """One tally of every card of ``tallies`` (the tables of several seeds): pooled F1,
        recall and counts, as if all their tables had been read as one set."""
        out = cls(name)
        for t in tallies:
            out.cards += t.cards
            out.right += t.right
            out.wrong += t.wrong
            out.missed += t.missed
            out.extra += t.extra
            out.twice += t.twice
            out.backs = [a + b for a, b in zip(out.backs, t.backs)]
            out.partial = [a + b for a, b in zip(out.partial, t.partial)]
            out.visible_right += t.visible_right
        return out

    def report(self) -> str:
        s = self.summary()
        lines = [f"{self.name}: card F1 {s['f1']:.4f}, recall {s['recall']:.4f} ({self.right}/{self.cards}), "
                 f"label accuracy {s['label_accuracy']:.4f}; {len(self.missed)} missed, "
                 f"{len(self.wrong)} wrong, {self.extra} extra, {self.twice} counted twice; "
                 f"backs {s['backs']}, partly covered cards {s['partly_covered']}, "
                 f"'visible' right for {self.visible_right}/{self.right + len(self.wrong)}"]
        if self.wrong:
            lines.append("  wrong reads (true -> read): " + ", ".join(
                f"{t} -> {p}: {n}" for (t, p), n in Counter(self.wrong).most_common()))
        if self.missed:
            lines.append("  missed: " + ", ".join(f"{t}: {n}" for t, n in Counter(self.missed).most_common()))
        return "\n".join(lines)

    def add(self, truth, sightings, iou: float = 0.5):
        """Match one table's readings to its cards, one reading to one card.

        ``matching="label"`` (the default, as detection benchmarks such as COCO match within a
        class): surest reading first, each reading takes the card of its own label it overlaps
        most (IoU >= ``iou``) that no surer reading took: that card is found right. A reading
        left over is counted twice where the card it overlaps most is of its label, else it is
        the reading of a card not yet found that it lies on (read wrong), else extra. In a tight
        cascade two neighbours' outlines overlap each other's card by 0.75-0.85, so the card an
        outline overlaps most is not always the one it was read as.

        ``matching="nearest"`` (the older, stricter measure): each reading is the
        card it overlaps most, and a second reading on a card is counted twice, whatever its
        label."""
        if self.matching == "nearest":
            return self._add_nearest(truth, sightings, iou)
        order = sorted(range(len(sightings)), key=lambda i: -sightings[i].confidence)
        ious = [[quad_iou(t.quad, np.array(sightings[i].quad, np.float32)) for t in truth] for i in order]
        taken: dict[int, int] = {}  # card -> reading
        left = []
        for i, v in zip(order, ious):
            own = [k for k, t in enumerate(truth) if t.label == sightings[i].label and k not in taken
                   and v[k] >= iou]
            if own:
                taken[max(own, key=lambda k: v[k])] = i
            else:
                left.append((i, v))
        wrong: dict[int, int] = {}
        for i, v in left:
            free = [k for k in range(len(truth)) if k not in taken and k not in wrong and v[k] >= iou]
            near = int(np.argmax(v)) if v else -1
            on = truth[near] if near >= 0 and v[near] >= iou else None   # the card it lies on most
            if on is not None and on.label == sightings[i].label:
                self.twice += on.readable  # a second reading of the card it lies on
            elif free:
                wrong[max(free, key=lambda k: v[k])] = i
            elif on is not None and not on.readable:
                continue  # no index shows: reading it or not is both fine
            else:
                self.extra += 1  # on no card, or another label on a card already found
        for k, t in enumerate(truth):
            if t.readable:  # (an unreadable card read as anything is fine)
                self._count(t, sightings[taken[k]] if k in taken else
                            sightings[wrong[k]] if k in wrong else None)

    def _add_nearest(self, truth, sightings, iou):
        best_of = {}
        for i, s in enumerate(sightings):
            q = np.array(s.quad, np.float32)
            v = [quad_iou(t.quad, q) for t in truth]
            k = int(np.argmax(v)) if v else -1
            if k < 0 or v[k] < iou:
                self.extra += 1
                continue
            best_of.setdefault(k, []).append(i)
        for k, t in enumerate(truth):
            found = sorted(best_of.get(k, []), key=lambda i: -sightings[i].confidence)
            if not t.readable:
                continue  # no index shows: reading it or not is both fine
            self.twice += max(0, len(found) - 1)
            self._count(t, sightings[found[0]] if found else None)

    def _count(self, t, s) -> None:
        """Tally readable card ``t``, read as ``s`` (None: missed)."""
        from companion.cards import BACK

        self.cards += 1
        if t.label == BACK:
            self.backs[1] += 1
        if t.visible == "partial":
            self.partial[1] += 1
        if s is None:
            self.missed.append(t.label)
            return
        self.visible_right += s.visible == t.visible
        if s.label == t.label:
            self.right += 1
            self.backs[0] += t.label == BACK
            self.partial[0] += t.visible == "partial"
        else:
            self.wrong.append((t.label, s.label))


def fanned_photos(split: str, per_label: int = 2, photos: list | None = None) -> list:
    """The photos the fanned tables of ``split`` cut their crops from: every validation photo,
    or up to ``per_label`` held-out test photos a label (:func:`vision.overlap.crop_photos`);
    from ``photos`` where given, else from the photo data."""
    from vision.overlap import crop_photos

    photos = load_photos(require_data()) if photos is None else photos
    if split == "validation":
        return [p for p in crop_photos(photos, "train", 10**6) if p.validation]
    return crop_photos(photos, "test", per_label)


def fanned_tables(reader: CardReader, scenes: int = 24, seed: int = 505, split: str = "test",
                  per_label: int = 2, progress: bool = True):
    """``(name, tables)``: the composed tables of :func:`eval_fanned`, ``(image, truth)`` each,
    made lazily (the same tables for the same arguments)."""
    from tqdm import tqdm

    from companion.cards import BACK
    from vision.card_art import draw_card
    from vision.overlap import compose_hands
    from vision.train.sources import real_cards

    photos = fanned_photos(split, per_label)
    crops = [(s.label, s.image) for s in real_cards(photos, reader)]
    rng = np.random.default_rng(seed)
    backs = [(BACK, draw_card(BACK, 160, 248, rng=rng)) for _ in range(6)]

    def tables():
        for k in tqdm(range(scenes), desc="fanned tables", unit="table", disable=not progress):
            cards = []
            for _ in range(int(rng.integers(8, 17))):
                pool = backs if rng.random() < 0.1 else crops
                label, img = pool[int(rng.integers(len(pool)))]
                if img.shape[1] > img.shape[0]:
                    img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
                cards.append((label, img))
            yield compose_hands(cards, rng=rng, kind=TABLES[k % len(TABLES)])

    return f"fanned hands ({split} crops: {len(crops)} from {len(photos)} photos)", tables()


def parse_seeds(text: str) -> list[int]:
    """The seeds ``text`` names: numbers and ranges, comma-separated (``"505-512"``,
    ``"505,561-576"``), each once, in the order given. :class:`ValueError` says what is wrong."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        lo, dash, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi if dash else lo)
        except ValueError:
            raise ValueError(f"not a seed or a range of seeds: {part!r} (expected e.g. 505 or 505-512)") from None
        if first < 0 or last < first:
            raise ValueError(f"not a range of seeds: {part!r} (expected the lower seed first, none negative)")
        seeds += [n for n in range(first, last + 1) if n not in seeds]
    return seeds


def _fanned_seed(job) -> tuple[int, "FannedTally"]:
    """One seed's tables read (a worker of :func:`eval_fanned_seeds`; its own reader)."""
    model, overlap, seed, scenes, split, per_label = job
    return seed, eval_fanned(CardReader(model, overlap=overlap), scenes, seed, progress=False,
                             split=split, per_label=per_label)


#: The seeds whose fanned tables ``companion evaluate`` pools by default: 24 tables a seed, about
#: 1,700 readable cards in all. One seed's 220 cards move its F1 by about 0.01 from seed to seed
#: (a card missed in 220 is 0.0025), too little to judge a target of 0.97 on: eight seeds pool
#: enough cards that one card moves F1 by about 0.0006.
FANNED_SEEDS = tuple(range(505, 513))


def eval_fanned_seeds(seeds: list[int], scenes: int = 24, split: str = "test", model=None,
                      overlap: bool = True, jobs: int = 1, per_label: int = 2,
                      progress: bool = True) -> tuple["FannedTally", dict]:
    """:func:`eval_fanned` on the tables of each of ``seeds``, ``jobs`` seeds at once (processes,
    each with its own reader): ``(pooled, {seed: tally})``. One seed's 24 tables hold about 220
    readable cards, so one seed's F1 moves by about 0.01 from seed to seed: a target is judged on
    the pooled tally, and the worst seed is reported beside it."""
    from concurrent.futures import ProcessPoolExecutor
    from contextlib import nullcontext

    from tqdm import tqdm

    work = [(model, overlap, s, scenes, split, per_label) for s in seeds]
    with ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else nullcontext() as pool:
        done = pool.map(_fanned_seed, work) if pool else map(_fanned_seed, work)
        by_seed = dict(tqdm(done, total=len(work), desc="fanned seeds", unit="seed", disable=not progress))
    name = f"fanned hands ({split} crops), {len(seeds)} seeds pooled"
    return FannedTally.pooled(name, by_seed.values()), by_seed


def eval_fanned(reader: CardReader, scenes: int = 24, seed: int = 505, progress: bool = True,
                split: str = "test", per_label: int = 2) -> FannedTally:
    """Tables of overlapping hands (fans, rows, cascades, piles, thumbs; wood, cloth, white and
    dark) of real card crops cut from ``split``'s photos (up to ``per_label`` photos a label,
    :func:`vision.overlap.crop_photos`) and drawn backs (seeds no training used: there are no
    photos of backs): card F1, recall, label accuracy, every wrong read."""
    name, tables = fanned_tables(reader, scenes, seed, split, per_label, progress)
    tally = FannedTally(name)
    for img, truth in tables:
        tally.add(truth, reader.read(img))
    return tally
