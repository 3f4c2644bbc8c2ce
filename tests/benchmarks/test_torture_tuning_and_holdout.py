"""The torture benchmark with another tuning file, and its report of the tuning seeds and the
hold-out side by side. No hold-out seed is run here: the hold-out block is fed tuning seeds' runs."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import pytest

from companion.tuning import DEFAULT_PATH
from tests.support.torture import ROOT, torture_module

torture = torture_module()


def _run(game="grid", seed=1, condition="plain", faces="art", actions=20, questions=0, **counts) -> dict:
    """A run's report as :func:`table_torture.play` gives it, with the counts given."""
    zero = {k: 0 for k in ("wrong_commits", "false_illegal_calls", "missed_actions",
                           "missed_illegal_attempts", "pending_at_end")}
    zero.update(counts)
    calls = {k: [{"by": "north", "do": "play", "card": "red-1", "cell": [0, 0]}] * n
             for k, n in zero.items()}
    return {"game": game, "seed": seed, "condition": condition, "faces": faces, "actions": actions,
            "questions": questions, "latencies_s": [0.5], "question_kinds": {}, "exact": not any(zero.values()),
            "first_difference": None, "wrong_calls": calls, **zero}


def test_seeds_are_read_as_ranges_and_the_holdout_range_is_refused():
    assert torture.parse_seeds("1-3,7,2") == [1, 2, 3, 7]
    held = torture.HOLDOUT_FIRST + 3
    with pytest.raises(ValueError, match="hold-out"):
        torture.parse_seeds(f"1,{held}")
    with pytest.raises(ValueError, match="hold-out"):
        torture.parse_seeds(f"{torture.HOLDOUT_FIRST - 1}-{torture.HOLDOUT_FIRST}")
    with pytest.raises(ValueError):
        torture.parse_seeds("5-2")


@pytest.mark.parametrize("argv, words", [
    (["--first-seed", str(torture.HOLDOUT_FIRST - 1), "--seeds", "2"], "hold-out"),
    (["--tuning-seeds", f"1,{torture.HOLDOUT_FIRST}"], "hold-out"),
    (["--holdout-seeds", "2"], "goes with"),
    (["--tuning-seeds", "1-2", "--holdout-seeds", "0"], "goes with"),
])
def test_seeds_of_the_holdout_run_only_beside_the_tuning_seeds(argv, words, capsys):
    with pytest.raises(SystemExit) as exit:
        torture.main(["--games", "grid", "--conditions", "plain", "--faces", "art", *argv])
    assert exit.value.code == 2
    assert words in capsys.readouterr().err


def test_a_tuning_file_that_is_not_one_is_refused_by_name(tmp_path, capsys):
    bad = tmp_path / "tuning.toml"
    bad.write_text(DEFAULT_PATH.read_text().replace("commit_ratio", "commit_ration"))
    with pytest.raises(SystemExit) as exit:
        torture.main(["--games", "grid", "--seeds", "1", "--tuning", str(bad)])
    assert exit.value.code == 2
    assert "commit_ration" in capsys.readouterr().err


def test_the_blocks_are_kept_apart_with_the_targets_per_condition():
    tuning_runs = [_run(seed=1), _run(seed=2, questions=1),   # plain: 1 in 40, within 4 per 100
                   _run(seed=1, condition="dim", questions=2),  # hard: 2 in 20, over 8 per 100
                   _run(seed=2, game="flip", condition="dim", questions=0)]
    holdout_runs = [_run(seed=5, wrong_commits=1, missed_actions=1), _run(seed=6)]
    report = torture.side_by_side(tuning_runs, holdout_runs, [1, 2], 2)
    json.dumps(report)  # a JSON report
    tuning, holdout = report["tuning_seeds"], report["holdout_seeds"]
    assert tuning["seeds"] == "1-2" and tuning["runs"] == 4 and tuning["actions"] == 80
    plain, dim = tuning["conditions"]
    assert (plain["condition"], plain["runs"], plain["questions_per_100"], plain["questions_limit"]) == (
        "plain", 2, 2.5, 4.0)
    assert plain["meets_targets"]
    assert (dim["questions_per_100"], dim["questions_limit"], dim["meets_targets"]) == (5.0, 8.0, True)
    assert dim["games"]["grid"]["questions_per_100"] == 10.0
    assert tuning["all_targets_met"]
    [row] = holdout["conditions"]
    assert (row["runs"], row["wrong_commits"], row["missed_actions"], row["meets_targets"]) == (2, 1, 1, False)
    assert (holdout["wrong_commits"], holdout["all_targets_met"]) == (1, False)


def test_a_hard_condition_over_eight_questions_per_100_misses_its_target():
    report = torture.side_by_side([_run(condition="glare", questions=2)], [_run(condition="glare")], [1], 1)
    [row] = report["tuning_seeds"]["conditions"]
    assert (row["questions_per_100"], row["meets_targets"]) == (10.0, False)


def test_the_holdout_block_names_no_seed():
    report = torture.side_by_side([_run(seed=3, wrong_commits=1)], [_run(seed=4, wrong_commits=1)], [3], 1)
    assert report["tuning_seeds"]["conditions"][0]["wrong_calls"][0]["seed"] == 3
    holdout = report["holdout_seeds"]
    assert holdout["seeds"] == {"first_of_holdout_range": 1}
    assert holdout["conditions"][0]["wrong_calls"][0]["game"] == "grid"
    assert '"seed"' not in json.dumps(holdout)


@pytest.mark.slow
def test_real_runs_fill_both_blocks():
    # two tuning seeds' runs in the place of the hold-out's: the harness, not the hold-out
    def runs(seeds):
        return [torture.play({"game": "grid", "seed": s, "condition": "plain", "faces": "art",
                              "actions": 3, "block": "x"}) for s in seeds]

    report = torture.side_by_side(runs([1]), runs([1, 2]), [1], 2)
    json.dumps(report)
    for name, n in (("tuning_seeds", 1), ("holdout_seeds", 2)):
        block = report[name]
        [row] = block["conditions"]
        assert block["runs"] == row["runs"] == n and row["actions"] >= 3 * n
        assert {"wrong_commits", "false_illegal_calls", "missed_actions", "missed_illegal_attempts",
                "questions_per_100", "meets_targets"} <= set(row)
    assert '"seed"' not in json.dumps(report["holdout_seeds"])


@pytest.mark.slow
def test_a_run_with_another_tuning_file_uses_it_and_records_it(tmp_path):
    strict = tmp_path / "strict.toml"
    # a ratio no evidence reaches: the referee asks about every action the camera sees
    strict.write_text(re.sub(r"(?m)^commit_ratio\s*=.*$", "commit_ratio = 1e30", DEFAULT_PATH.read_text()))
    assert "1e30" in strict.read_text()
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "benchmarks/table_torture.py", "--games", "grid", "--seeds", "1",
                           "--actions", "3", "--conditions", "plain", "--faces", "art", "--jobs", "1",
                           "--tuning", str(strict), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = json.loads(out.read_text())
    assert report["tuning"] == {"file": str(strict), "sha256": hashlib.sha256(strict.read_bytes()).hexdigest()}
    [row] = report["conditions"]
    assert row["questions_per_100"] >= 100.0 / 3 and proc.returncode == 1  # over the target: exit 1


def test_the_plan_alternates_a_tuning_seed_and_a_holdout_seed_over_every_condition():
    jobs = torture.plan([1, 2, 3], 2, games=["grid", "flip"], conditions=["plain", "pawn-hidden"],
                        faces=["art"], actions=20, tuning=DEFAULT_PATH)
    first = torture.HOLDOUT_FIRST
    seeds = [j["seed"] for j in jobs]
    # per seed: grid and flip plain, grid pawn-hidden (only the grid has a pawn)
    assert seeds == [1] * 3 + [first] * 3 + [2] * 3 + [first + 1] * 3 + [3] * 3
    assert {j["block"] for j in jobs if j["seed"] < first} == {"tuning"}
    assert {j["block"] for j in jobs if j["seed"] >= first} == {"holdout"}
    assert {(j["tuning"], j["actions"]) for j in jobs} == {(str(DEFAULT_PATH), 20)}
    assert torture.plan([4], 0, games=["grid"], conditions=["plain"], faces=["art"], actions=6,
                        tuning=DEFAULT_PATH)[0]["seed"] == 4
