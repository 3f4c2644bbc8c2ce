"""Load benchmark of a club night: N simulated tables publishing into one Mosquitto, one league.

It starts Mosquitto on a free loopback port (the club's configuration from deploy/mosquitto/,
as the tests do), ``companion league`` in its own process, and N demo tables in timer mode in
this process (bots, no camera, no web page), each at ``--pace`` seconds an action (a real game
is about 1.5 s an action; the default 0.15 is ten times that). It asks the league's
``/api/league`` 20 times a second: the lag of an entry is the time from its table writing it to
the log (the log's own time) to the league page's view first showing it. It also reads the
league process's peak memory (VmHWM).

    .venv/bin/python benchmarks/league_load.py [--tables 20] [--pace 0.15] [--seconds 60]
                                               [--budget-s 1.0] [--budget-mb 150] [--out F.json]

Exit status 1 if the p95 lag is over the budget, the league's memory over its budget, or an
entry never reached the league. Needs mosquitto (scripts/install-test-tools.sh) and paho-mqtt.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory, MockPWMPin

from app.runner import Companion
from companion.config import load_config
from tests.support.mosquitto import Broker, start_league, wait_until



def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def entry_times(path: Path) -> dict[int, float]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT id, time FROM entries"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--pace", type=float, default=0.15)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--budget-s", type=float, default=1.0)
    ap.add_argument("--budget-mb", type=float, default=150)
    ap.add_argument("--out", type=Path, help="also write the figures as JSON (with this command)")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="league-bench-"))
    names = [f"t{i}" for i in range(1, args.tables + 1)]
    users = {n: f"pw-{n}" for n in names} | {"league": "pw-league"}
    broker = Broker(work / "broker", users).start()
    league, port = start_league(work, broker, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/api/league"

    def ask():
        with urllib.request.urlopen(url, timeout=5) as reply:
            return json.load(reply)

    tables = []
    try:
        wait_until(lambda: _try(ask), 30, "the league page")
        for i, name in enumerate(names):
            cfg = load_config(None, {"league.broker": broker.url, "league.table": name,
                                     "league.username": name, "league.password": users[name],
                                     "table.mode": "timer"})
            tables.append(Companion(cfg, demo=True, pin_factory=MockFactory(pin_class=MockPWMPin),
                                    log_path=work / f"{name}.sqlite3", seed=i, pace=args.pace,
                                    web=False).start())
        seen: dict[str, dict[int, float]] = {n: {} for n in names}  # seq -> when first shown
        last = {n: 0 for n in names}
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            now = time.time()
            for t in ask()["tables"]:
                name = t["name"]
                for seq in range(last.get(name, 0) + 1, t["last_seq"] + 1):
                    seen[name].setdefault(seq, now)
                last[name] = max(last.get(name, 0), t["last_seq"])
            time.sleep(0.05)
    finally:
        for t in tables:
            t.stop()
    rss = peak_rss_mb(league.pid)
    lags, missing, total = [], 0, 0
    for name in names:
        times = entry_times(work / f"{name}.sqlite3")
        for seq, written in times.items():
            total += 1
            if seq in seen[name]:
                lags.append(max(0.0, seen[name][seq] - written))
            elif written < end - 5:
                missing += 1  # written well before the end and never shown
    league.terminate()
    league.wait(10)
    broker.stop()
    lags.sort()
    p50 = lags[len(lags) // 2] if lags else float("nan")
    p95 = lags[int(len(lags) * 0.95)] if lags else float("nan")
    print(f"{args.tables} tables at {args.pace} s an action for {args.seconds:.0f} s: {total} entries, "
          f"{len(lags)} seen by the league page; lag p50 {p50:.3f} s, p95 {p95:.3f} s, "
          f"max {lags[-1] if lags else float('nan'):.3f} s; league peak memory {rss:.0f} MB; "
          f"missing {missing}")
    ok = p95 <= args.budget_s and rss <= args.budget_mb and missing == 0
    print("OK" if ok else "OVER BUDGET")
    if args.out:
        args.out.write_text(json.dumps({
            "command": " ".join([".venv/bin/python", "benchmarks/league_load.py", *sys.argv[1:]]),
            "tables": args.tables, "pace_s": args.pace, "seconds": args.seconds,
            "entries": total, "seen": len(lags), "missing": missing,
            "lag_p50_s": round(p50, 3), "lag_p95_s": round(p95, 3),
            "lag_max_s": round(lags[-1], 3) if lags else None, "league_peak_mb": round(rss, 1),
            "budget_s": args.budget_s, "budget_mb": args.budget_mb, "ok": ok}, indent=1) + "\n")
    return 0 if ok else 1


def _try(call):
    try:
        return call()
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main())
