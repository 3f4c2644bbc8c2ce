"""How long ``make test`` takes on a fresh clone: the set-up and the suite, and how busy the machine was.

    python3 benchmarks/suite_time.py --runs 3 --out benchmarks/results/suite_time.json
    python3 benchmarks/suite_time.py --runs 2 --baseline 34bcbf5   # against an older commit, by turns

Each run clones the repository (its committed HEAD, nothing uncommitted) into a new folder,
times ``make install`` (the set-up: venv and pip) and then ``make test`` (which finds the venv
made and runs the suite), and reads from ``/proc/stat`` how many CPU-seconds the whole machine
was busy meanwhile (and its steal time: a virtual machine's neighbours). The pytest summary line
gives the tests passed and skipped and pytest's own time.

The machine's speed drifts (the same code took 280-364 CPU-seconds from one run to the next on
the 2-core development machine), so each run is bracketed by a **reference**: a fixed piece of
single-threaded work (pure Python and a little numpy, ``reference_work``) timed just before and
just after, and every time is also given as a ratio to it. Compare runs by their ratios; the
issue's target (at most 2:42 on the 2-core machine) is in seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
def _count(word: str, line: str) -> int:
    m = re.search(rf"(\d+) {word}", line)
    return int(m.group(1)) if m else 0


def reference_work() -> float:
    """Seconds of a fixed piece of single-threaded pure-Python work (the best of three)."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        total, seen = 0, {}
        for i in range(3_000_000):
            total += i * i % 7
            seen[i % 4096] = total
        best = min(best, time.perf_counter() - t)
    return best


def _busy() -> tuple[float, float]:
    """The machine's busy and steal CPU-seconds since boot (all cores)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def _timed(cmd: list[str], cwd: Path, log) -> tuple[float, float, float, int, str]:
    """(wall s, busy CPU-s, steal s, exit status, output) of one command."""
    b0, s0 = _busy()
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t
    b1, s1 = _busy()
    log.write(done.stdout)
    return wall, b1 - b0, s1 - s0, done.returncode, done.stdout


def one_run(source: Path, workdir: Path, log, rev: str | None = None) -> dict:
    clone = workdir / "clone"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
    if rev:
        subprocess.run(["git", "checkout", "-q", rev], cwd=clone, check=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True,
                          capture_output=True, text=True).stdout.strip()
    ref_before = reference_work()
    setup = _timed(["make", "install"], clone, log)
    suite = _timed(["make", "test"], clone, log)
    ref_after = reference_work()
    reference = statistics.mean([ref_before, ref_after])
    passed = skipped = failed = pytest_s = None
    for line in reversed(suite[4].splitlines()):
        seconds = re.search(r" in ([\d.]+)s", line)
        if seconds and ("passed" in line or "failed" in line):
            passed, skipped, failed = (_count(w, line) for w in ("passed", "skipped", "failed"))
            pytest_s = float(seconds.group(1))
            break
    total = setup[0] + suite[0]
    return {
        "commit": head,
        "ok": setup[3] == 0 and suite[3] == 0,
        "setup_s": round(setup[0], 1), "suite_s": round(suite[0], 1), "total_s": round(total, 1),
        "total_m_ss": f"{int(total // 60)}:{total % 60:04.1f}",
        "pytest_s": pytest_s, "passed": passed, "skipped": skipped, "failed": failed,
        "busy_cpu_s": round(setup[1] + suite[1], 1), "steal_s": round(setup[2] + suite[2], 1),
        "reference_s": round(reference, 3),
        "reference_before_after_s": [round(ref_before, 3), round(ref_after, 3)],
        "total_per_reference": round(total / reference, 1),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="fresh clones, one after another")
    ap.add_argument("--source", default=str(ROOT), help="the repository to clone (default: this one)")
    ap.add_argument("--out", help="write the results here as JSON")
    ap.add_argument("--log", help="make's output, every run (default: a file in the temp folder)")
    ap.add_argument("--baseline", metavar="REV",
                    help="also time a fresh clone at REV in each run, before or after HEAD's by turns "
                         "(the comparison made under the same load); the summary gives HEAD's time over it")
    args = ap.parse_args(argv)
    if not Path("/proc/stat").exists():
        print("error: needs Linux's /proc/stat for the machine's busy time", file=sys.stderr)
        return 2
    runs: list[dict] = []
    baselines: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="suite-time-") as tmp:
        log_path = Path(args.log or Path(tmp) / "make.log")
        with open(log_path, "w") as log:
            for i in range(args.runs):
                order = [None, args.baseline] if i % 2 else [args.baseline, None]
                for rev in (order if args.baseline else [None]):
                    run = one_run(Path(args.source), Path(tmp), log, rev)
                    run["baseline"] = rev is not None
                    (baselines if rev else runs).append(run)
                    print(json.dumps(run), flush=True)
    totals = [r["total_s"] for r in runs]
    result = {
        "command": "python3 benchmarks/suite_time.py " + " ".join(argv or sys.argv[1:]),
        "cores": os.cpu_count(),
        "runs": runs,
        "total_s": {"min": min(totals), "median": statistics.median(totals), "max": max(totals)},
        "target_s": 162,
        "runs_within_target": sum(t <= 162 for t in totals),
    }
    if baselines:
        base = [r["total_s"] for r in baselines]
        result["baseline"] = {"rev": args.baseline, "runs": baselines,
                              "total_s": {"min": min(base), "median": statistics.median(base), "max": max(base)}}
        result["head_over_baseline"] = {
            "per_run": [round(h / b, 3) for h, b in zip(totals, base)],
            "median": round(statistics.median(totals) / statistics.median(base), 3)}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["total_s"]), f"{result['runs_within_target']}/{len(runs)} within 2:42")
    if baselines:
        print("baseline", args.baseline, json.dumps(result["baseline"]["total_s"]),
              "HEAD/baseline", json.dumps(result["head_over_baseline"]))
    return 0 if all(r["ok"] for r in runs + baselines) else 1


if __name__ == "__main__":
    sys.exit(main())
