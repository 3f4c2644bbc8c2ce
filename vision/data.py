"""Where the (unlicensed, never committed) training and evaluation data lives, and its split.

The photo data is not part of the repository. It is read from the folder named by the
``UNO_DATA`` environment variable (``companion evaluate --data DIR`` and ``python -m vision.train
--data DIR`` set it), by default a ``shared/data`` folder beside the repository's own folder. It
holds ``photos/labels.csv`` (with the photos) and ``card_art/``. Nothing under it is ever copied
into the project.
"""

from __future__ import annotations

import csv
import hashlib
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Seed of the held-out split of the real photos (split by photo path).
SPLIT_SEED = "uno-vision-split-1"
#: Share of real photos held out for evaluation.
TEST_SHARE = 0.2
#: Seed and share of the *train* photos set aside for choosing between model variants
#: (``python -m vision.train --hold-out-validation``, ``companion evaluate --split validation``),
#: so that the held-out test photos are never used to choose.
VALIDATION_SEED = "uno-vision-validation-1"
VALIDATION_SHARE = 0.15


#: The print a photo's card is of, from its ``note`` in labels.csv: the first phrase of the note
#: found, in this order, names it. Flip light cards are one print (``flip-light``); a classic photo
#: whose note names no print is ``unknown``.
PRINTS: tuple[tuple[str, str], ...] = (
    ("non-standard round-centre print", "round-centre"),
    ("coloured-oval print", "coloured-oval"),
    ("white-oval print", "white-oval"),
    ("older worn print", "older-worn"),
    ("newer print", "newer"),
)
#: How a photo was taken, from its ``note``: the first phrase found, in this order, names it
#: (a rectified crop, a close-up filling the frame, a card held in fingers, a webcam frame, a
#: phone photo); ``photo`` where the note names none of them.
CAPTURES: tuple[tuple[str, str], ...] = (
    ("crop", "crop"),
    ("close-up", "close-up"),
    ("fingers", "in-fingers"),
    ("webcam", "webcam"),
    ("phone", "phone"),
)


def print_of(note: str, deck: str = "classic") -> str:
    """The print named by a labels.csv ``note`` (see :data:`PRINTS`)."""
    if deck != "classic":
        return deck
    low = note.lower()
    return next((name for phrase, name in PRINTS if phrase in low), "unknown")


def capture_of(note: str) -> str:
    """How the photo of a labels.csv ``note`` was taken (see :data:`CAPTURES`)."""
    low = note.lower()
    return next((name for phrase, name in CAPTURES if phrase in low), "photo")


class DataMissing(RuntimeError):
    """The shared data folder (photos, card art) is not there."""


def data_dir() -> Path:
    """The photo data folder: ``$UNO_DATA``, by default ``shared/data`` beside the repository."""
    env = os.environ.get("UNO_DATA")
    return Path(env) if env else (REPO_ROOT / ".." / "shared" / "data").resolve()


@contextmanager
def data_folder(path: str | Path | None) -> Iterator[None]:
    """Within the block, :func:`data_dir` is ``path`` (when given): ``$UNO_DATA`` is set, so the
    worker processes started meanwhile read it too, and put back as it was afterwards (a
    command run in-process, as ``app.cli.main`` is by the tests, leaves no folder behind it).

    >>> with data_folder("/elsewhere"):
    ...     str(data_dir())
    '/elsewhere'
    """
    if path is None:
        yield
        return
    before = os.environ.get("UNO_DATA")
    os.environ["UNO_DATA"] = str(Path(path).resolve())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("UNO_DATA", None)
        else:
            os.environ["UNO_DATA"] = before


def require_data() -> Path:
    """The data folder, or :class:`DataMissing` saying where it was looked for."""
    root = data_dir()
    if not (root / "photos" / "labels.csv").is_file():
        raise DataMissing(
            f"the photo data is not at {root} (expected photos/labels.csv and card_art/ there). "
            "It is not part of the repository: point UNO_DATA at the folder that holds it"
        )
    return root


@dataclass(frozen=True)
class Photo:
    path: Path       # absolute
    rel: str         # path under photos/, as in labels.csv
    label: str       # docs/rules.md vocabulary; '*-FACE' when the colour is unknown
    deck: str        # 'classic' or 'flip-light'
    note: str

    @property
    def source(self) -> str:
        """The folder the photo comes from (e.g. ``classic_single``, ``classic_more/dark_phone``)."""
        parts = self.rel.split("/")
        return "/".join(parts[:2]) if parts[0] == "classic_more" else parts[0]

    @property
    def print_name(self) -> str:
        """The print of the photo's card (:func:`print_of`): ``newer``, ``white-oval``, ..."""
        return print_of(self.note, self.deck)

    @property
    def capture(self) -> str:
        """How the photo was taken (:func:`capture_of`): ``phone``, ``webcam``, ``close-up``..."""
        return capture_of(self.note)

    @property
    def is_crop(self) -> bool:
        """A photo that is one rectified card filling the frame (no detection needed)."""
        return self.source in ("classic_crops", "classic_more/rectified_crops")

    @property
    def reader_deck(self) -> str:
        """The deck to read the photo with (:meth:`vision.recognize.CardReader.read`):
        ``classic`` or ``flip``."""
        return "classic" if self.deck == "classic" else "flip"

    @property
    def split(self) -> str:
        return split_of(self.rel)

    @property
    def validation(self) -> bool:
        """A train photo set aside for choosing between model variants (see VALIDATION_SHARE)."""
        return self.split == "train" and split_of(self.rel, VALIDATION_SEED, VALIDATION_SHARE) == "test"


def split_of(rel: str, seed: str = SPLIT_SEED, share: float = TEST_SHARE) -> str:
    """``'test'`` or ``'train'``, fixed by hashing the photo path with the seed."""
    h = hashlib.sha256(f"{seed}:{rel}".encode()).digest()
    return "test" if int.from_bytes(h[:4], "big") / 2**32 < share else "train"


def load_photos(root: Path | None = None) -> list[Photo]:
    root = root or require_data()
    rows = []
    with open(root / "photos" / "labels.csv", newline="") as f:
        for row in csv.DictReader(f):
            rows.append(Photo(root / "photos" / row["path"], row["path"], row["label"],
                              row["deck"], row.get("note", "")))
    return rows
