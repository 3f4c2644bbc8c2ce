"""Table photos for the whole-photo reader's tests: drawn cards laid on a drawn table, and a spy
on what the reader sends to its model."""

from __future__ import annotations

import numpy as np

from vision.card_art import draw_card
from vision.synth import compose_table


def drawn_table(labels: list[str], width: int, height: int, *, seed: int, kind: str,
                spacing: float) -> np.ndarray:
    """``labels`` drawn 120 x 186 px and laid ``spacing`` card widths apart on a ``kind`` table."""
    rng = np.random.default_rng(seed)
    img, _ = compose_table([(lab, draw_card(lab, 120, 186, rng=rng)) for lab in labels], width,
                           height, rng=rng, kind=kind, spacing=spacing)
    return img


def read_spied(reader, img, monkeypatch, method: str, record) -> list[str]:
    """The labels ``reader`` reads in ``img``, sorted, with the arguments of every call of its
    ``method`` shown to ``record`` on the way."""
    real = getattr(reader, method)

    def spy(*args):
        record(*args)
        return real(*args)

    monkeypatch.setattr(reader, method, spy)
    out = reader.read(img)
    monkeypatch.setattr(reader, method, real)
    return sorted(s.label for s in out)


def quad(x: float, y: float, w: float = 60.0, h: float = 93.0) -> np.ndarray:
    """An upright outline ``w`` x ``h`` px with its top-left corner at (x, y)."""
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def stub_reader(rows_by_corner: dict, **settings):
    """A :class:`~vision.recognize.CardReader` without its model: it reads each quad as the row
    of ``rows_by_corner`` (none, red-1, blue-2) given for the quad's first corner, and notes the
    first corners of the quads it reads in ``reader.seen``. ``settings``: reader attributes."""
    from vision.recognize import CardReader

    reader = CardReader.__new__(CardReader)
    reader.classes = ("none", "red-1", "blue-2")
    reader.none_index = 0
    reader.seen = []
    for name, value in settings.items():
        setattr(reader, name, value)

    def quad_probs(image, quads, deck):
        reader.seen += [tuple(q[0]) for q in quads]
        return np.array([rows_by_corner[tuple(q[0])] for q in quads], np.float64)

    reader._quad_probs = quad_probs
    return reader
