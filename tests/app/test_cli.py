"""The ``companion`` command line as a newcomer meets it: its help, ``--version``, and the
smaller commands' answers when something is missing (each a message and an exit status, never
a traceback)."""

from __future__ import annotations

import argparse
import json
import os
import re
from importlib.metadata import version
from pathlib import Path

import cv2
import pytest

from app.cli import build_parser, main
from app.commands.record import measured_fps, record
from simulator.source import SyntheticSource
from vision.sources import pi_camera_present

ROOT = Path(__file__).resolve().parents[2]
#: What a reader who cloned the repository does not have.
OUTSIDE = ("../shared", "shared/RULES", "RULES.md", "DESIGN.md")


def _subparsers(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_version_is_the_installed_packages(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"companion {version('uno-companion')}"


def test_every_command_has_a_description_and_a_help_line():
    for name, sub in _subparsers(build_parser()).items():
        assert sub.description and len(sub.description) > 40, name
    listing = build_parser().format_help()
    assert "bench" in listing and "record" in listing and "mat" in listing


def test_the_demo_says_it_plays_three_games():
    parser = build_parser()
    text = parser.format_help() + _subparsers(parser)["demo"].format_help()
    assert "both games" not in text and "three games" in text


def _help_texts():
    parser = build_parser()
    yield "companion --help", parser.format_help()
    for name, sub in _subparsers(parser).items():
        yield f"companion {name} --help", sub.format_help()


def _manual_pages():
    yield from [ROOT / "README.md", ROOT / "samples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_no_page_of_the_manual_and_no_help_points_outside_the_repository(capsys):
    from vision.train.__main__ import main as train_main

    texts = [(str(p.relative_to(ROOT)), p.read_text()) for p in _manual_pages()]
    texts += list(_help_texts())
    with pytest.raises(SystemExit):
        train_main(["--help"])
    texts.append(("python -m vision.train --help", capsys.readouterr().out))
    found = [f"{where}: {word}" for where, text in texts for word in OUTSIDE if word in text]
    assert not found, found
    # and the check itself sees such a pointer
    assert any(word in "see ../shared/RULES.md" for word in OUTSIDE)


def test_doctor_only_config_runs_only_that_check(capsys):
    assert main(["doctor", "--only", "config", "--json"]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert [c["name"] for c in checks] == ["config"]


# --- record -----------------------------------------------------------------------------------------

def test_record_into_a_missing_folder_says_so(tmp_path, capsys):
    out = tmp_path / "no-such-folder" / "game.avi"
    assert main(["record", str(out), "--camera", "synthetic", "--seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err
    assert not out.parent.exists()


@pytest.mark.skipif(pi_camera_present(), reason="this machine has a Pi camera")
def test_record_with_auto_and_no_pi_camera_refuses_rather_than_recording_the_synthetic_table(tmp_path, capsys):
    out = tmp_path / "game.avi"
    assert main(["record", str(out), "--seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "no Pi camera" in err and "--camera synthetic" in err
    assert not out.exists()


def test_record_writes_the_frame_rate_it_measured(tmp_path):
    out = str(tmp_path / "game.avi")
    # frames 1/30 s apart, while 15 frames a second were asked for
    n = record(SyntheticSource(160, 90, fps=30.0), out, seconds=0.5, fps=15)
    video = cv2.VideoCapture(out)
    assert video.get(cv2.CAP_PROP_FPS) == pytest.approx(30, abs=0.1)
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == n == 15  # 0.5 s at 30 frames a second
    times = Path(out + ".times").read_text().split()
    assert len(times) == n and float(times[1]) == pytest.approx(1 / 30, abs=1e-3)


def test_record_takes_the_old_option_name_too(tmp_path):
    args = build_parser().parse_args(["record", "x.avi", "--source", "synthetic"])
    assert args.camera == "synthetic"
    assert build_parser().parse_args(["record", "x.avi"]).camera == "auto"


def test_the_measured_frame_rate_ignores_a_late_frame():
    assert measured_fps([0, 0.1, 0.2, 0.5, 0.6], 15) == 10.0


# --- where the photo data comes from ------------------------------------------------------------------

def test_evaluate_without_the_photo_data_says_where_it_looked_and_what_to_do(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("UNO_DATA", str(tmp_path / "elsewhere"))  # restored after the test
    assert main(["evaluate", "--data", str(tmp_path), "--parts", "real"]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "UNO_DATA" in err and "--parts renders" in err
    assert "Traceback" not in err
    # --data was $UNO_DATA for the run (the error names it), and only for the run
    assert os.environ["UNO_DATA"] == str(tmp_path / "elsewhere")


def test_evaluate_says_where_its_data_comes_from():
    text = _subparsers(build_parser())["evaluate"].format_help()
    assert "--data" in text and "UNO_DATA" in text and "not part of" in " ".join(text.split())


@pytest.mark.parametrize("seed", [None, 92])
def test_evaluate_composes_its_tables_from_the_seed_given_else_each_parts_own(monkeypatch, capsys, seed):
    import vision.evaluate as ev

    got = {}

    def part(name, result):
        def run(reader, **kwargs):
            got[name] = kwargs.get("seed", "own")
            return result
        return run

    monkeypatch.setattr(ev, "eval_composite", part("composite", ev.Tally("composite")))
    monkeypatch.setattr(ev, "eval_backs", part("backs", (ev.Tally("backs"), ev.Tally("faces"))))
    monkeypatch.setattr(ev, "eval_fanned", part("fanned", ev.FannedTally("fanned")))

    def pooled(seeds, **kwargs):  # the fanned part's default: the tables of several seeds pooled
        got["fanned"] = tuple(seeds)
        return ev.FannedTally("pooled"), {s: ev.FannedTally(str(s)) for s in seeds}

    monkeypatch.setattr(ev, "eval_fanned_seeds", pooled)
    argv = ["evaluate", "--parts", "composite,backs,fanned"] + ([] if seed is None else ["--seed", str(seed)])
    assert main(argv) == 0
    if seed is None:
        assert got == {"composite": "own", "backs": "own", "fanned": ev.FANNED_SEEDS}
        assert len(ev.FANNED_SEEDS) >= 4
    else:
        assert got == dict.fromkeys(("composite", "backs", "fanned"), seed)


def test_evaluate_refuses_jobs_for_the_one_seed_it_reads(capsys):
    assert main(["evaluate", "--parts", "fanned", "--seed", "505", "--jobs", "2"]) == 2
    err = capsys.readouterr().err
    assert "--jobs 2" in err and "--seeds" in err


@pytest.mark.parametrize("jobs, cores, expected", [(None, 2, 2), (None, 1, 1), (None, 16, 3), (3, 2, 3)])
def test_evaluate_reads_the_seeds_a_core_each_unless_told(monkeypatch, capsys, jobs, cores, expected):
    import vision.evaluate as ev

    got = {}

    def pooled(seeds, **kwargs):
        got["jobs"] = kwargs["jobs"]
        return ev.FannedTally("pooled"), {s: ev.FannedTally(str(s)) for s in seeds}

    monkeypatch.setattr(ev, "eval_fanned_seeds", pooled)
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    argv = ["evaluate", "--parts", "fanned", "--seeds", "505-507"] + ([] if jobs is None else ["--jobs", str(jobs)])
    assert main(argv) == 0
    assert got["jobs"] == expected


def test_evaluate_pools_the_fanned_tables_of_the_seeds_given_and_names_the_worst(monkeypatch, capsys):
    import vision.evaluate as ev

    def one(right, cards, extra):  # a seed's tally: `right` of `cards` found, `extra` readings on no card
        return ev.FannedTally("seed", cards=cards, right=right, missed=["red-1"] * (cards - right), extra=extra)

    tallies = {505: one(210, 220, 1), 506: one(200, 220, 0), 507: one(219, 220, 2)}
    asked = []

    def read(reader, scenes, seed, **kwargs):
        asked.append(seed)
        return tallies[seed]

    monkeypatch.setattr(ev, "eval_fanned", read)
    assert main(["evaluate", "--parts", "fanned", "--seeds", "505-507", "--jobs", "1", "--json"]) == 0
    assert asked == [505, 506, 507]
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    pooled = ev.FannedTally("all", cards=660, right=629, missed=["x"] * 31, extra=3)
    assert summary["fanned right"] == 629 and summary["fanned cards"] == 660
    assert summary["fanned f1"] == round(pooled.f1, 4)
    assert summary["fanned seeds"] == {str(n): round(t.f1, 4) for n, t in tallies.items()}
    assert summary["fanned worst seed"] == 506
    assert "seeds 505-507" in out and "worst, seed 506" in out


@pytest.mark.parametrize("seeds", ["9-3", "505-", "a,b", "-4"])
def test_evaluate_refuses_seeds_it_cannot_read_and_says_why(capsys, seeds):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", "--parts", "fanned", "--seeds", seeds])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--seeds" in err and "Traceback" not in err


@pytest.mark.parametrize("flag, overlap", [([], False), (["--second-pass"], True)])
def test_evaluate_reads_separated_cards_with_the_second_pass_only_when_asked(monkeypatch, capsys, flag, overlap):
    # companion recognize and the hand scanner read with the second pass: --second-pass measures
    # the photos and separated tables that way; without it they are read whole, as the live
    # table reads
    import vision.evaluate as ev

    got = {}

    def part(name, result):
        def run(reader, **kwargs):
            got[name] = reader.overlap
            return result
        return run

    monkeypatch.setattr(ev, "eval_real", lambda reader, deck, split: got.update(real=reader.overlap) or {})
    monkeypatch.setattr(ev, "eval_composite", part("composite", ev.Tally("composite")))
    monkeypatch.setattr(ev, "eval_backs", part("backs", (ev.Tally("backs"), ev.Tally("faces"))))
    assert main(["evaluate", "--parts", "real,composite,backs", "--json"] + flag) == 0
    assert got == {"real": overlap, "composite": overlap, "backs": overlap}
    out = capsys.readouterr().out
    assert ("read with the second pass" in out) is overlap
    assert json.loads(out.strip().splitlines()[-1]).get("separated second pass", False) is overlap


def test_training_without_the_photo_data_says_so(tmp_path, capsys, monkeypatch):
    from vision.train.__main__ import main as train_main

    monkeypatch.setenv("UNO_DATA", str(tmp_path / "elsewhere"))  # restored after the test
    assert train_main(["--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "UNO_DATA" in err and "cards.onnx" in err


def test_training_without_torch_names_the_extra(tmp_path, capsys, monkeypatch):
    import importlib.util

    from vision.train.__main__ import main as train_main

    if importlib.util.find_spec("torch") and importlib.util.find_spec("onnx"):
        pytest.skip("the train extra is installed here")
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "labels.csv").write_text("path,label,deck,note\n")
    monkeypatch.setenv("UNO_DATA", str(tmp_path / "elsewhere"))  # restored after the test
    assert train_main(["--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"(torch|onnx).* not installed", err) and ".[train]" in err


# --- bench ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("actions", ["-3", "0", "many"])
def test_bench_refuses_a_count_of_actions_that_is_not_one_or_more(actions, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--actions", actions])
    assert exit_.value.code == 2 and "--actions" in capsys.readouterr().err


@pytest.mark.parametrize("exact,status", [(True, 0), (False, 1)])
def test_bench_fails_when_the_referee_did_not_follow_exactly(exact, status, monkeypatch, capsys):
    import app.commands.bench as bench

    monkeypatch.setattr(bench, "bench", lambda *a, **k: {"frames": 10, "exact": exact})
    assert main(["bench", "--actions", "2"]) == status
    assert "playing 2 scripted actions" in capsys.readouterr().err  # not silent while it plays


@pytest.mark.skipif(pi_camera_present(), reason="this machine has a Pi camera")
def test_auto_is_never_quietly_the_synthetic_table():
    from simulator.source import open_source
    from vision.sources import CameraLost

    with pytest.raises(CameraLost, match="no Pi camera found"):
        open_source("auto", width=160, height=90)
    with open_source("synthetic", width=160, height=90, fps=10) as table:  # asked for by name
        assert table.name == "synthetic" and table.read().time == 0 and table.read().time == 0.1
