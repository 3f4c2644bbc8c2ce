"""The printable kit: markers that calibrate, a PDF that is a PDF."""

from __future__ import annotations

import cv2

from vision.geometry import CORNER_IDS, PAWN_ID, detect_markers
from vision.mat import kit_pages, write_kit


def test_kit_pages_hold_detectable_markers():
    pages = dict(kit_pages(dpi=100))
    for name, marker_id in zip(("north-west", "north-east", "south-east", "south-west"), CORNER_IDS):
        assert marker_id in detect_markers(pages[f"marker-{name}"])
    assert PAWN_ID in detect_markers(pages["pawn"])


def test_write_kit(tmp_path):
    paths = write_kit(tmp_path, dpi=60)
    pdf = tmp_path / "uno-mat.pdf"
    assert pdf in paths
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert data.count(b"/Type /Page ") == 6
    assert cv2.imread(str(tmp_path / "uno-mat-layout.png")) is not None
