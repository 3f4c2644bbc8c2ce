"""benchmarks/false_cards.py: false cards on photos without a card against label accuracy."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.support.scripts import load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/false_cards.py")


def test_the_curve_counts_readings_over_each_threshold(bench):
    nocard = [{"confidences": [0.95, 0.6]}, {"confidences": []}, {"confidences": [0.45]}]
    real = [{"confidences": [0.97], "labels": ["red-7"], "truth": "red-7"},
            {"confidences": [0.65], "labels": ["blue-2"], "truth": "blue-2"},
            {"confidences": [0.99], "labels": ["green-1"], "truth": "green-0"},
            {"confidences": [], "labels": [], "truth": "wild"}]
    rows = {r["threshold"]: r for r in bench.curve(nocard, real)}
    assert rows[0.4]["false_cards"] == 3 and rows[0.4]["photos_with_false_cards"] == 2
    assert rows[0.5]["false_cards"] == 2 and rows[0.5]["false_cards_per_100_photos"] == pytest.approx(66.67)
    assert rows[0.7]["false_cards"] == 1 and rows[0.99]["false_cards"] == 0
    # a real photo read under the threshold counts as not found; a wrong label is never right
    assert rows[0.5]["real_right"] == 2 and rows[0.7]["real_right"] == 1
    assert rows[0.5]["real_label_accuracy"] == 0.5


def test_photos_without_cards_are_drawn_and_cut_from_the_images_given(bench, tmp_path):
    img = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "wall.png"), img)
    cv2.imwrite(str(tmp_path / "tiny.png"), img[:20, :20])
    views = list(bench.natural_views([tmp_path / "wall.png", tmp_path / "tiny.png"]))
    assert [n for n, _ in views] == ["wall.png whole", "wall.png crop 1", "wall.png crop 2"]
    assert all(max(v.shape[:2]) == bench.LONG_SIDE for _, v in views)
    drawn = list(bench.drawn_views(8))
    assert len(drawn) == 8 and {n.split()[0] for n, _ in drawn} == {"table", "texture"}
    assert all(v.shape == (720, 1280, 3) and v.dtype == np.uint8 for _, v in drawn)
