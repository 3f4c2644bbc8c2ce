"""The `companion recognize` contract, run as a subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.card_art import draw_card
from vision.synth import compose_table

REPO = Path(__file__).resolve().parents[2]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "app", "recognize", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def _table(tmp_path, labels, name):
    cards = [(lab, draw_card(lab, 160, 248)) for lab in labels]
    img, placed = compose_table(cards, 1280, 720, rng=np.random.default_rng(4), kind="wood",
                                spacing=1.9)
    path = tmp_path / name
    cv2.imwrite(str(path), img)
    return str(path), placed


@pytest.mark.slow
def test_json_contract(tmp_path):
    path, placed = _table(tmp_path, ["red-7", "wild", "back"], "t.png")
    r = _run(path, "--json")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.strip()]
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert out["image"] == path and out["width"] == 1280 and out["height"] == 720
    assert isinstance(out["ms"], (int, float)) and out["ms"] >= 0
    assert sorted(c["label"] for c in out["cards"]) == ["back", "red-7", "wild"]
    for c in out["cards"]:
        assert 0 <= c["confidence"] <= 1
        assert len(c["quad"]) == 4 and all(len(p) == 2 for p in c["quad"])
        assert len(c["center"]) == 2
        assert all(isinstance(lab, str) and 0 <= p <= 1 for lab, p in c["runners_up"])
        assert c["visible"] == "whole"  # spaced cards: none covers another


@pytest.mark.slow
def test_bad_images_are_reported_and_the_rest_read(tmp_path):
    good, _ = _table(tmp_path, ["blue-3"], "good.png")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    missing = str(tmp_path / "missing.png")
    r = _run(str(corrupt), good, missing, "--json")
    assert r.returncode == 1
    outs = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    assert [o["image"] for o in outs] == [good]
    assert [c["label"] for c in outs[0]["cards"]] == ["blue-3"]
    assert "corrupt.jpg" in r.stderr and "missing.png" in r.stderr


@pytest.mark.slow
def test_human_summary_and_deck(tmp_path):
    path, _ = _table(tmp_path, ["purple-skip-everyone"], "d.png")
    r = _run(path, "--deck", "flip")
    assert r.returncode == 0, r.stderr
    assert "1 card" in r.stdout and "purple-skip-everyone" in r.stdout
