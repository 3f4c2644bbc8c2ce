"""The photos composed tables are cut from: unfit crops are left out, and the sheets to find them."""

from pathlib import Path

import numpy as np

from vision.data import Photo, split_of
from vision.overlap import UNFIT_CROPS, crop_photos
from vision.train import crop_sheets


def _photo(rel: str, label: str) -> Photo:
    return Photo(Path("/nowhere") / rel, rel, label, "classic", "")


def _test_photos(label: str, stems: range) -> list[Photo]:
    """Photos of ``label`` in the held-out test split."""
    out = [_photo(f"classic_single/{label}/{k:03d}.jpg", label) for k in stems]
    return [p for p in out if split_of(p.rel) == "test"]


def test_an_unfit_crop_is_left_out_and_the_next_photo_of_its_label_takes_its_place():
    unfit = next(rel for rel in UNFIT_CROPS if split_of(rel) == "test")
    label = unfit.split("/")[1]
    photos = _test_photos(label, range(60))
    assert any(p.rel == unfit for p in photos), "the listed photo is a test photo"
    kept = crop_photos(photos, "test", 2)
    assert unfit not in {p.rel for p in kept}
    assert len(kept) == 2                      # still two of the label
    with_unfit = crop_photos(photos, "test", 2, keep_unfit=True)
    assert unfit in {p.rel for p in crop_photos(photos, "test", 10**6, keep_unfit=True)}
    assert len(with_unfit) == 2


def test_every_unfit_crop_says_what_is_wrong_with_it():
    assert UNFIT_CROPS
    for rel, why in UNFIT_CROPS.items():
        assert "/" in rel and rel.endswith(".jpg") and not rel.startswith("/")
        assert len(why) > 10


def test_sheets_lay_tiles_out_ten_a_row_forty_a_sheet():
    tile = np.zeros((180, 100, 3), np.uint8)
    out = crop_sheets.sheets([tile] * 45)
    assert [s.shape for s in out] == [(4 * 180, 1000, 3), (180, 1000, 3)]
    assert out[1][:, 500:].min() == 255        # the last row filled with blanks


def test_crop_sheets_says_when_the_photo_data_is_absent(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("UNO_DATA", str(tmp_path / "none"))
    assert crop_sheets.main(["--out", str(tmp_path / "sheets")]) == 2
    assert "UNO_DATA" in capsys.readouterr().err


def test_the_separated_tables_leave_the_unfit_crops_out_too(tmp_path, monkeypatch):
    import cv2

    from vision import evaluate

    unfit = next(iter(UNFIT_CROPS))
    photos = []
    for rel in ("classic_crops/red-3/000.jpg", unfit):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), np.full((192, 128, 3), 200, np.uint8))
        photos.append(Photo(path, rel, rel.split("/")[-2], "classic", ""))
    monkeypatch.setattr(evaluate, "split_photos", lambda split: photos)
    crops, skipped = evaluate._held_out_crops(None, "test", progress=False)
    assert [label for label, _img in crops] == ["red-3"] and skipped == 0
