"""Checks on the real photos of the shared data (skipped when ../shared/data is absent)."""

import cv2
import pytest

from vision.data import DataMissing, load_photos, require_data, split_of

try:
    ROOT = require_data()
except DataMissing as e:  # pragma: no cover - depends on the machine
    ROOT = None
    REASON = str(e)

needs_data = pytest.mark.skipif(ROOT is None, reason=f"real-photo checks skipped: {REASON}"
                                 if ROOT is None else "")


def test_split_is_fixed_and_by_photo():
    assert split_of("classic_single/red-7/003.jpg") == split_of("classic_single/red-7/003.jpg")
    shares = [split_of(f"x/{i}.jpg") == "test" for i in range(2000)]
    assert 0.15 < sum(shares) / len(shares) < 0.25


@needs_data
def test_validation_photos_are_train_photos_set_aside_never_test_photos():
    from vision.data import VALIDATION_SHARE
    from vision.evaluate import split_photos

    photos = load_photos(ROOT)
    val = [p for p in photos if p.validation]
    train = [p for p in photos if p.split == "train"]
    assert val and all(p.split == "train" for p in val)
    assert abs(len(val) / len(train) - VALIDATION_SHARE) < 0.04
    assert {p.rel for p in split_photos("validation")} <= {p.rel for p in val}
    assert not {p.rel for p in split_photos("validation")} & {p.rel for p in split_photos("test")}
    with pytest.raises(ValueError, match="unknown split"):
        split_photos("train")


def test_evaluate_refuses_a_missing_model(tmp_path, capsys):
    from app.cli import main

    assert main(["evaluate", "--model", str(tmp_path / "nope.onnx"), "--parts", "real"]) == 2
    assert "card model not found" in capsys.readouterr().err


@needs_data
def test_held_out_photos_are_read():
    from vision.recognize import CardReader

    reader = CardReader()
    photos = [p for p in load_photos(ROOT) if p.split == "test" and not p.label.startswith("*")]
    sample = photos[::8]
    right = 0
    for p in sample:
        s = reader.read(cv2.imread(str(p.path)))
        right += bool(s) and max(s, key=lambda x: x.confidence).label == p.label
    # measured 97.4 % on the whole held-out split and 53/55 on this sample (docs/vision.md);
    # the target is 98 %: the bar leaves room for the noise of a 55-photo sample
    assert right / len(sample) >= 0.92, f"{right}/{len(sample)}"


def test_the_backs_part_counts_backs_and_faces_apart(monkeypatch, tmp_path, capsys):
    """eval_backs lays drawn backs among the crops and tallies them apart; without the photo
    data the part stops as the others do."""
    import numpy as np

    import vision.evaluate as ev
    from app.cli import main
    from companion.cards import CLASSIC
    from vision.card_art import draw_card
    from vision.recognize import CardReader

    rng = np.random.default_rng(4)
    faces = [c.name for c in CLASSIC.faces][:20]
    monkeypatch.setattr(ev, "_held_out_crops", lambda reader, split, progress: (
        [(lab, draw_card(lab, 160, 248, rng=rng)) for lab in faces], 0))
    backs, cards = ev.eval_backs(CardReader(), scenes=2, progress=False)
    assert (backs.total, cards.total) == (6, 24)
    assert set(backs.per_class) == {"back"} and "back" not in cards.per_class
    assert backs.found >= 5 and cards.found >= 22
    monkeypatch.undo()
    monkeypatch.setenv("UNO_DATA", str(tmp_path / "elsewhere"))
    assert main(["evaluate", "--data", str(tmp_path), "--parts", "backs"]) == 2
    assert "--parts renders" in capsys.readouterr().err
