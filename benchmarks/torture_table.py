"""The torture benchmark's figures over several of its reports, as one Markdown table.

    benchmarks/torture_table.py REPORT.json[:CONDITION,...][@GAME,...] ...

Each report is a ``benchmarks/table_torture.py --out`` JSON of its own seeds; a ``:`` after its
name keeps only the conditions listed, an ``@`` only the games listed (a later report of the
same seeds under newer code replaces a condition, or a game). A condition's runs, actions, wrong
calls and questions are summed over the reports (a game's from the report's figures per game);
its worst run is the worst of any (where only some of a report's games are kept, the worst run
of all its games: the report keeps no worst run per game). Reports of overlapping seeds would
count runs twice: that is the caller's to avoid (each report's seeds are printed on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

#: The counts summed over the reports, in the table's order.
COUNTS = ("runs", "exact_runs", "actions", "wrong_commits", "false_illegal_calls", "missed_actions",
          "missed_illegal_attempts")


def combined(reports: list[tuple[dict, set[str] | None, set[str] | None]]) -> dict[tuple[str, str], dict]:
    """(condition, faces) -> the summed :data:`COUNTS`, ``questions`` and ``worst_run`` (per 100
    actions), in the order the reports first list them. Each report comes with the conditions
    and the games to keep (None: all)."""
    out: dict[tuple[str, str], dict] = {}
    for report, keep, games in reports:
        for row in report["conditions"]:
            if keep is not None and row["condition"] not in keep:
                continue
            parts = [row] if games is None else [g for name, g in row["games"].items() if name in games]
            if not parts:
                continue
            key = (row["condition"], row["faces"])
            got = out.setdefault(key, {"counts": Counter(), "questions": 0, "worst_run": 0.0})
            for part in parts:
                got["counts"].update({k: part[k] for k in COUNTS})
                # (a game's questions from its rate: exact, as its actions are few)
                got["questions"] += (sum(part["question_kinds"].values()) if part is row
                                     else round(part["questions_per_100"] * part["actions"] / 100.0))
            got["worst_run"] = max(got["worst_run"], row["questions_per_100_worst_run"])
    return out


def markdown(rows: dict[tuple[str, str], dict]) -> str:
    lines = ["| condition | faces | runs | exact | actions | wrong commits | false illegal calls | "
             "missed actions | missed illegal attempts | questions / 100 | worst run |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (condition, faces), got in rows.items():
        c = got["counts"]
        per_100 = 100.0 * got["questions"] / c["actions"] if c["actions"] else 0.0
        lines.append(f"| {condition} | {faces} | " + " | ".join(str(c[k]) for k in COUNTS)
                     + f" | {per_100:.2f} | {got['worst_run']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+", metavar="REPORT[:CONDITIONS][@GAMES]")
    a = p.parse_args(argv)
    reports = []
    for spec in a.reports:
        spec, _, games = spec.partition("@")
        name, _, only = spec.partition(":")
        try:
            report = json.loads(Path(name).read_text())
        except (OSError, ValueError) as exc:
            p.error(f"cannot read {name}: {exc}")
        print(f"{name}: seeds {report['seeds'][0]}-{report['seeds'][1]}", file=sys.stderr)
        reports.append((report, set(only.split(",")) if only else None,
                        set(games.split(",")) if games else None))
    print(markdown(combined(reports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
