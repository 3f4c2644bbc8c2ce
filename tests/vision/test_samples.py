"""The sample photos of ``samples/`` read as ``samples/labels.json`` says, through the
``companion recognize`` command, and a reader who leaves early ends the command quietly."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
LABELS = json.loads((SAMPLES / "labels.json").read_text())


def test_the_samples_are_small_jpeg_photos():
    assert len(LABELS) >= 3
    for name in LABELS:
        data = (SAMPLES / name).read_bytes()
        assert data[:3] == b"\xff\xd8\xff" and len(data) < 200_000, name


@pytest.mark.parametrize("name", sorted(LABELS))
def test_recognize_reads_every_card_of_a_sample(name, capsys):
    expected = LABELS[name]
    status = main(["recognize", "--json", "--deck", expected["deck"], str(SAMPLES / name)])
    assert status == 0
    answer = json.loads(capsys.readouterr().out)
    assert sorted(card["label"] for card in answer["cards"]) == expected["cards"]


def test_the_readme_reads_the_samples():
    readme = (ROOT / "README.md").read_text()
    assert "companion recognize samples/" in readme
    named = set(re.findall(r"samples/([\w-]+\.jpg)", readme))
    assert named and named <= set(LABELS)


def test_recognize_into_a_pipe_closed_early_exits_quietly(tmp_path):
    # the reader takes one line and leaves; four more pictures are still to be written (bare
    # table cloths: a line each as soon as read, without the samples' minutes of card reading)
    import cv2
    import numpy as np

    images = []
    for i in range(6):
        images.append(str(tmp_path / f"cloth-{i}.png"))
        cv2.imwrite(images[-1], np.full((180, 320, 3), (40, 90 + 10 * i, 40), np.uint8))
    proc = subprocess.run(
        f"{sys.executable} -m app recognize {' '.join(images)} | head -n 1",
        shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
