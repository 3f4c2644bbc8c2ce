"""scripts/arch_compare.py, the verdict of `make arm64-check`: two probes (x86_64 and aarch64)
agree when every card's label is the same, its confidence within 0.005, and the scripted game's
events identical; anything else is a mismatch, named, with exit status 1."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "arch_compare.py"


def card(label, confidence, center, visible="whole"):
    return {"label": label, "confidence": confidence, "center": center, "visible": visible,
            "quad": [], "runners_up": []}


def probe(machine="x86_64", sysbench=2000.0, scale=1.0):
    return {
        "machine": machine, "python": "3.13.5", "numpy": "2.4.6", "opencv": "5.0.0",
        "sysbench_events_per_s": sysbench,
        "recognize": {
            "whole-only": {"command": "companion recognize --json --whole-only ...", "wall_s": 1.0,
                           "images": [
                               {"image": "samples/grid-table.jpg", "ms": 100.0 * scale,
                                "cards": [card("red-5", 0.9812, [10.0, 20.0]),
                                          card("back", 0.97, [300.0, 40.0])]},
                               {"image": "samples/flip-dark.jpg", "ms": 120.0 * scale,
                                "cards": [card("teal-4", 0.91, [50.0, 60.0])]}]},
            "two-passes": {"command": "companion recognize --json --deck flip ...", "wall_s": 3.0,
                           "images": [{"image": "samples/flip-dark.jpg", "ms": 2000.0 * scale,
                                       "cards": [card("teal-4", 0.91, [50.0, 60.0]),
                                                 card("pink-2", 0.8, [90.0, 60.0], "partial")]}]},
        },
        "game": {"script": "GridScript(8, seed=1) at 1280x720", "exact": True,
                 "events": [["action", "[('by', 'north')]"], ["discarded", "[('card', 'red-4')]"],
                            ["drew", "[('count', 1)]"]],
                 "stages_ms": {"quiet": 1.5 * scale, "change": 30.0 * scale, "event": 35.0 * scale},
                 "event_latency_s_median": 0.5},
    }


def verdict(tmp_path, a, b, *extra):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    return subprocess.run([sys.executable, str(SCRIPT), str(pa), str(pb), *extra],
                          capture_output=True, text=True)


def test_identical_probes_pass_with_a_clear_verdict(tmp_path):
    result = verdict(tmp_path, probe(), probe("aarch64"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SAME" in result.stdout and "3 game events identical" in result.stdout


def test_confidences_within_the_tolerance_pass(tmp_path):
    b = probe("aarch64")
    b["recognize"]["whole-only"]["images"][0]["cards"][0]["confidence"] = 0.9812 + 0.004
    # the same cards in another order (sorted by confidence there) are still the same cards
    b["recognize"]["two-passes"]["images"][0]["cards"].reverse()
    result = verdict(tmp_path, probe(), b)
    assert result.returncode == 0, result.stdout
    assert "largest difference 0.0040" in result.stdout


def test_a_changed_label_fails_and_is_named(tmp_path):
    b = probe("aarch64")
    b["recognize"]["whole-only"]["images"][0]["cards"][0]["label"] = "red-6"
    result = verdict(tmp_path, probe(), b)
    assert result.returncode == 1
    assert "MISMATCH" in result.stdout and "grid-table.jpg" in result.stdout
    assert "red-6" in result.stdout


def test_a_confidence_off_by_a_hundredth_fails(tmp_path):
    b = probe("aarch64")
    b["recognize"]["two-passes"]["images"][0]["cards"][1]["confidence"] = 0.81
    result = verdict(tmp_path, probe(), b)
    assert result.returncode == 1
    assert "pink-2: confidence 0.8 vs 0.81" in result.stdout


@pytest.mark.parametrize("change", ["event", "missing", "visible"])
def test_a_different_game_or_reading_fails(tmp_path, change):
    b = probe("aarch64")
    if change == "event":
        b["game"]["events"][1] = ["discarded", "[('card', 'red-5')]"]
    elif change == "missing":
        b["game"]["events"].pop()
    else:
        b["recognize"]["two-passes"]["images"][0]["cards"][1]["visible"] = "whole"
    result = verdict(tmp_path, probe(), b)
    assert result.returncode == 1, result.stdout
    expected = {"event": "event 1 differs", "missing": "3 events vs 2", "visible": "visible partial vs whole"}
    assert expected[change] in result.stdout


def test_the_cost_model_scales_by_the_published_sysbench_scores(tmp_path):
    native = probe(sysbench=2000.0)
    narrow = probe(sysbench=2000.0, scale=2.0)
    emulated = probe("aarch64", sysbench=500.0, scale=60.0)
    (tmp_path / "narrow.json").write_text(json.dumps(narrow))
    out = tmp_path / "model.json"
    result = verdict(tmp_path, native, copy.deepcopy(emulated), "--cost-model", str(out),
                     "--narrow", str(tmp_path / "narrow.json"))
    assert result.returncode == 0, result.stdout
    model = json.loads(out.read_text())
    quiet = model["stages"]["quiet frame"]
    assert quiet["x86_64_ms"] == 1.5 and quiet["emulated_ms"] == 90.0 and quiet["emulation_ratio"] == 60.0
    # Pi 4 sysbench 812: 1.5 ms x 2000 / 812; upper: the 128-bit run's 3 ms x 2000 / 812
    assert quiet["pi4_ms"] == round(1.5 * 2000 / 812, 1) and quiet["pi4_ms_upper"] == round(3 * 2000 / 812, 1)
    assert quiet["pi5_ms"] == round(1.5 * 2000 / 1847, 1)
    assert model["stages"]["recognize, both passes (flip-dark.jpg)"]["x86_64_ms"] == 2000.0
    latency = model["event_latency_s"]
    assert latency["camera_wait_s"] == 0.465
    assert latency["pi5"] == round(0.465 + 35.0 * 2000 / 1847 / 1000, 3)
    assert model["command"] and model["sources"] and model["assumptions"]
