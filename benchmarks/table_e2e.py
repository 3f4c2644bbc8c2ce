"""End-to-end on the synthetic table: a scripted game of >= 300 actions for each game type (grid,
flip, classic: illegal attempts, hands over the table, light drift, camera nudges) must give
exactly the scripted events -- no missed action, no false penalty. Questions the referee asks are
answered as the table would (the script knows the truth) and counted.

    .venv/bin/python benchmarks/table_e2e.py [ACTIONS] [--games grid,flip,classic] [--seed N]
        [--size 1280x720] [--no-markers]

``--no-markers``: the mat's corner markers are left out of the picture (grid game: the view comes
from the 25 grid cards, and a nudged camera is followed by the table's texture).

Prints one JSON line per game; exits 1 unless every game is exact.
"""

from __future__ import annotations

import argparse
import json
import sys

from app.commands.bench import bench

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("actions", type=int, nargs="?", default=300)
    p.add_argument("--games", default="grid,flip,classic")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", default="1280x720")
    p.add_argument("--no-markers", action="store_true")
    a = p.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    ok = True
    for game in a.games.split(","):
        out = bench(w, h, a.actions, a.seed, game, markers=not a.no_markers)
        ok &= bool(out["exact"])
        print(json.dumps(out), flush=True)
    sys.exit(0 if ok else 1)
