"""``companion evaluate`` reports the real photos per print and per way they were taken, read
from labels.csv's note (a small photo folder of drawn cards stands in for the photo data)."""

import csv
import json
import os

import cv2
import numpy as np
import pytest

from vision.data import capture_of, print_of, split_of


@pytest.mark.parametrize("note, deck, expected", [
    ("single card, newer print, on a desk", "classic", "newer"),
    ("phone, White-Oval print on a table", "classic", "white-oval"),
    ("webcam, dim light; coloured-oval print", "classic", "coloured-oval"),
    ("rectified crop, older worn print", "classic", "older-worn"),
    ("phone, non-standard round-centre print, in hand", "classic", "round-centre"),
    ("a card on a table", "classic", "unknown"),
    ("single card on cloth", "flip-light", "flip-light"),
])
def test_the_print_is_read_from_the_note(note, deck, expected):
    assert print_of(note, deck) == expected


@pytest.mark.parametrize("note, expected", [
    ("rectified crop of a real photo, coloured-oval print", "crop"),
    ("phone close-up, card fills the frame, white-oval print", "close-up"),
    ("webcam frame, card held by fingers against a sweater", "in-fingers"),
    ("webcam, card small on a dark background", "webcam"),
    ("phone, card on a wooden table", "phone"),
    ("single card, newer print", "photo"),
])
def test_the_way_the_photo_was_taken_is_read_from_the_note(note, expected):
    assert capture_of(note) == expected


def _test_names(prefix: str, n: int) -> list[str]:
    """``n`` photo paths the fixed split holds out (the real part reads only those)."""
    out, i = [], 0
    while len(out) < n:
        rel = f"{prefix}/{i:03d}.jpg"
        if split_of(rel) == "test":
            out.append(rel)
        i += 1
    return out


def test_evaluate_reports_accuracy_per_print_and_per_capture(tmp_path, capsys):
    from app.cli import main
    from vision.card_art import draw_card

    rows = []
    plan = [("white-oval", "phone, white-oval print on a table", "red-7"),
            ("white-oval", "webcam frame, card held by fingers; white-oval print", "blue-2"),
            ("coloured-oval", "webcam, small on a grey wall; coloured-oval print", "green-5")]
    for k, (_print, note, label) in enumerate(plan):
        for rel in _test_names(f"set{k}/{label}", 2):
            table = np.full((480, 640, 3), (60, 110, 40), np.uint8)
            table[120:360, 240:400] = draw_card(label, 160, 240)
            (tmp_path / "photos" / rel).parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(tmp_path / "photos" / rel), table)
            rows.append({"path": rel, "label": label, "deck": "classic", "note": note})
    with open(tmp_path / "photos" / "labels.csv", "w", newline="") as f:
        w = csv.DictWriter(f, ["path", "label", "deck", "note"])
        w.writeheader()
        w.writerows(rows)
    (tmp_path / "card_art").mkdir()

    data_before = os.environ.get("UNO_DATA")
    assert main(["evaluate", "--data", str(tmp_path), "--parts", "real", "--json"]) == 0
    # run in-process, the command leaves the data folder as it found it (the next test that
    # reads the photo data would read these drawn cards)
    assert os.environ.get("UNO_DATA") == data_before
    out = capsys.readouterr().out
    lines = out.splitlines()
    summary = json.loads(lines[-1])
    # the deck and the source folders as before, then the prints and the captures
    assert "real classic" in summary and "real classic / set0" in summary
    assert {k for k in summary if k.startswith("real print / ")} == {
        "real print / white-oval", "real print / coloured-oval"}
    assert {k for k in summary if k.startswith("real capture / ")} == {
        "real capture / phone", "real capture / in-fingers", "real capture / webcam"}
    print_line = next(i for i, s in enumerate(lines) if s.startswith("print / white-oval:"))
    assert "4 photos" not in lines[print_line] and "/4 =" in lines[print_line]
    source_line = next(i for i, s in enumerate(lines) if s.startswith("classic / set2:"))
    assert source_line < print_line
    assert any(s.startswith("capture / in-fingers:") and "/2 =" in s for s in lines)
