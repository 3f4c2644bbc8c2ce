"""benchmarks/calibrate_referee.py: the torture benchmark over several commit ratios on tuning
seeds, and the ratio its rule recommends."""

from __future__ import annotations

import json

import pytest

from companion.tuning import default, load
from tests.support.scripts import load_script

calibrate = load_script("benchmarks/calibrate_referee.py")


def _point(ratio: float, wrong: int, per_100: float) -> dict:
    return {"commit_ratio": ratio, "wrong_commits": wrong, "questions_per_100": per_100}


def test_a_tuning_written_out_reads_back_the_same(tmp_path):
    for ratio in (3.0, 12.5, 1e30):
        tuning = default().replace(referee={"commit_ratio": ratio})
        path = tmp_path / "tuning.toml"
        path.write_text(calibrate.tuning_toml(tuning))
        assert load(path) == tuning


def test_the_fewest_questions_without_a_wrong_commit_is_recommended():
    curve = [_point(2.0, 3, 0.5), _point(4.0, 1, 1.0), _point(8.0, 0, 2.0), _point(16.0, 0, 3.5)]
    assert calibrate.recommend(curve)["commit_ratio"] == 8.0


def test_of_equal_questions_the_higher_ratio_is_recommended():
    curve = [_point(8.0, 0, 2.0), _point(16.0, 0, 2.0), _point(4.0, 0, 2.5)]
    assert calibrate.recommend(curve)["commit_ratio"] == 16.0


def test_no_ratio_is_recommended_when_every_one_commits_wrongly():
    got = calibrate.recommend([_point(8.0, 1, 2.0), _point(32.0, 2, 6.0)])
    assert got["commit_ratio"] is None and "wrong commit" in got["why"]


@pytest.mark.parametrize("argv", [
    ["--seeds", f"1-3,{calibrate.table_torture.HOLDOUT_FIRST + 2}"],
    ["--seeds", "1", "--ratios", "8,0.5"],
    ["--seeds", "1", "--ratios", "8,inf"],
])
def test_holdout_seeds_and_ratios_that_cannot_be_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as exit:
        calibrate.main(argv)
    assert exit.value.code == 2
    assert capsys.readouterr().err


@pytest.mark.slow
def test_a_small_calibration_gives_a_curve_and_a_recommendation(tmp_path):
    out = tmp_path / "calibration.json"
    code = calibrate.main(["--ratios", "8,1e30", "--seeds", "1", "--games", "grid", "--conditions", "plain",
                           "--actions", "3", "--jobs", "1", "--out", str(out)])
    report = json.loads(out.read_text())
    low, high = report["curve"]
    assert (low["commit_ratio"], high["commit_ratio"]) == (8.0, 1e30)
    assert high["questions_per_100"] > low["questions_per_100"]  # a ratio no evidence reaches: it asks
    assert low["conditions"][0]["condition"] == "plain" and low["runs"] == 1
    recommended = report["recommended"]["commit_ratio"]
    assert code == (0 if recommended is not None else 1)
    if low["wrong_commits"] == 0:
        assert recommended == 8.0
