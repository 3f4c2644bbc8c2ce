"""End-to-end on the synthetic table: a scripted grid game of >= 300 actions (illegal attempts,
hands over the table, light drift, camera nudges) must give exactly the scripted events.

    .venv/bin/python benchmarks/table_e2e.py [ACTIONS] [WIDTH HEIGHT]
"""

from __future__ import annotations

import json
import sys

from companion.commands.bench import bench

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1280, 720)
    print(json.dumps(bench(w, h, n)))
