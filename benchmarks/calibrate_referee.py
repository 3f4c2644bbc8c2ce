"""Calibrate the camera referee's commit ratio on the tuning seeds: the torture benchmark run
over a few values of ``[referee] commit_ratio``, and the value a stated rule picks.

    .venv/bin/python benchmarks/calibrate_referee.py [--ratios 2,4,8,16,32] [--seeds 1-10]
        [--games grid,flip,classic] [--conditions plain,dim,...] [--faces art] [--actions 20]
        [--tuning companion/tuning.toml] [--jobs 2] [--out FILE.json]

For each ratio it writes a copy of the base tuning file (``--tuning``, default the product's)
with that ratio, runs ``benchmarks/table_torture.py --tuning COPY`` on the seeds, and records
(the curve, per ratio and per condition): wrong commits, false illegal calls, missed actions,
missed illegal attempts and questions per 100 actions. A higher ratio asks more and commits
wrongly less.

The rule (:func:`recommend`): of the ratios with no wrong commit, the one that asks the fewest
questions per 100 actions; of equals, the higher (the safer). None when every ratio committed
wrongly: the terms of the evidence need work, not the ratio.

Only tuning seeds run: a seed of the hold-out range (``table_torture.HOLDOUT_FIRST`` up) is
refused. Exit status 0 when a ratio is recommended, 1 when none is.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import table_torture  # noqa: E402 - beside this script, found through the path set above

#: What the curve keeps of each condition's row of the torture report.
ROW_KEYS = ("condition", "faces", "runs", "actions", *table_torture.ZERO_TARGETS, "questions_per_100",
            "questions_limit", "meets_targets")


def tuning_toml(tuning) -> str:
    """``tuning`` (a :class:`companion.tuning.Tuning`) as the text of a tuning file."""
    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            if not math.isfinite(v):
                raise ValueError(f"not a finite number: {v!r}")
            return repr(v)
        if isinstance(v, int):
            return str(v)
        return json.dumps(v)

    lines = ["# written by benchmarks/calibrate_referee.py", f"version = {tuning.version}"]
    for section in (f.name for f in dataclasses.fields(tuning) if f.name != "version"):
        lines += ["", f"[{section}]"]
        lines += [f"{k} = {value(v)}" for k, v in dataclasses.asdict(getattr(tuning, section)).items()]
    return "\n".join(lines) + "\n"


def point(ratio: float, report: dict) -> dict:
    """One point of the curve: a torture report's totals over its conditions, and its rows."""
    rows = [{k: row[k] for k in ROW_KEYS} for row in report["conditions"]]
    actions = sum(r["actions"] for r in rows)
    questions = sum(r["questions_per_100"] * r["actions"] / 100.0 for r in rows)
    return {"commit_ratio": ratio, "runs": sum(r["runs"] for r in rows), "actions": actions,
            **{k: sum(r[k] for r in rows) for k in table_torture.ZERO_TARGETS},
            "questions_per_100": round(100.0 * questions / actions, 2) if actions else None,
            "complete": report["complete"], "conditions": rows}


def recommend(curve: list[dict]) -> dict:
    """The rule: of the points with no wrong commit, the fewest questions per 100 actions; of
    equals, the higher ratio. ``commit_ratio`` None when every point committed wrongly."""
    safe = [p for p in curve if p["wrong_commits"] == 0 and p["questions_per_100"] is not None]
    rule = ("of the ratios with no wrong commit, the one with the fewest questions per 100 "
            "actions; of equals, the higher")
    if not safe:
        return {"commit_ratio": None, "rule": rule, "why": "every ratio made a wrong commit"}
    best = min(safe, key=lambda p: (p["questions_per_100"], -p["commit_ratio"]))
    return {"commit_ratio": best["commit_ratio"], "rule": rule,
            "why": f"{best['questions_per_100']} questions per 100 actions, no wrong commit"}


def main(argv: list[str] | None = None) -> int:
    from companion.tuning import DEFAULT_PATH, TuningError, load

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ratios", default="2,4,8,16,32", help="the commit ratios to try (default 2,4,8,16,32)")
    p.add_argument("--seeds", default="1-10", help="tuning seeds, e.g. 1-10 or 1,4,7 (default 1-10)")
    p.add_argument("--games", default="grid,flip,classic")
    p.add_argument("--conditions", default=None, help="default: every condition")
    p.add_argument("--faces", default="art")
    p.add_argument("--actions", type=int, default=20, help="scripted actions per run (default 20)")
    p.add_argument("--tuning", type=Path, default=DEFAULT_PATH, help="the base tuning file")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=None, help="write the JSON here too")
    a = p.parse_args(argv)
    try:
        seeds = table_torture.parse_seeds(a.seeds)
        ratios = [float(r) for r in a.ratios.split(",")]
    except ValueError as exc:
        p.error(str(exc))
    if not seeds or not ratios or any(not (r > 1.0 and math.isfinite(r)) for r in ratios):
        p.error("give seeds, and ratios each a finite number above 1")
    try:
        base = load(a.tuning)
    except TuningError as exc:
        p.error(str(exc))
    started = time.perf_counter()
    curve = []
    with tempfile.TemporaryDirectory(prefix="calibrate-referee-") as tmp:
        for ratio in ratios:
            tuning = base.replace(referee={"commit_ratio": ratio})
            path = Path(tmp) / f"tuning-{ratio:g}.toml"
            path.write_text(tuning_toml(tuning))
            assert load(path) == tuning, "the written tuning file reads back as another"
            out = Path(tmp) / f"torture-{ratio:g}.json"
            cmd = [sys.executable, str(ROOT / "benchmarks" / "table_torture.py"), "--tuning-seeds", a.seeds,
                   "--games", a.games, "--faces", a.faces, "--actions", str(a.actions),
                   "--tuning", str(path), "--jobs", str(a.jobs), "--out", str(out)]
            if a.conditions:
                cmd += ["--conditions", a.conditions]
            print(f"calibrate_referee: commit_ratio {ratio:g}", file=sys.stderr, flush=True)
            proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
            if proc.returncode not in (0, 1):  # (1: some target missed, a point of the curve all the same)
                print(f"calibrate_referee: the torture benchmark failed (exit {proc.returncode})", file=sys.stderr)
                return 2
            curve.append(point(ratio, json.loads(out.read_text())))
    report = {"command": " ".join(["benchmarks/calibrate_referee.py", *(argv if argv is not None else sys.argv[1:])]),
              "wall_s": round(time.perf_counter() - started, 1), "base_tuning": table_torture.tuning_of(a.tuning),
              "seeds": a.seeds, "games": a.games.split(","), "faces": a.faces.split(","),
              "actions_per_run": a.actions, "curve": curve, "recommended": recommend(curve)}
    if a.out is not None:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0 if report["recommended"]["commit_ratio"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
