"""``companion bench [--json]``: time the vision pipeline on a scripted synthetic table run.

A scripted game (grid, or Flip/classic with ``--game``) is rendered by the synthetic table and read
by the live pipeline (reader and camera referee). Rendering is not timed; only the reader's work per
frame is. ``accuracy`` is the share of scripted table actions whose events came out exactly as
scripted.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="time the vision pipeline on a scripted synthetic table (--json)",
                       description="Play a scripted game on the synthetic table through the live "
                                   "pipeline (reader and camera referee), time it and check that "
                                   "the referee saw every action exactly. Exits 1 when it did not.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--actions", type=_positive, default=40, help="scripted actions (default 40)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--game", choices=["grid", "flip", "classic"], default="grid",
                   help="the scripted game (default grid)")
    p.add_argument("--faces", choices=["art", "real"], default="art",
                   help="card faces: the drawings (default) or real photographed cards of the "
                        "held-out photos (needs the photo data)")
    p.set_defaults(run=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _pct(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def bench(width: int, height: int, actions: int, seed: int = 0, game: str = "grid",
          markers: bool = True, faces=None) -> dict:
    from simulator.pile_script import PileScript
    from simulator.script import GridScript, run_script

    script = GridScript(actions, seed=seed) if game == "grid" else PileScript(actions, game=game, seed=seed)
    started = time.perf_counter()
    result = run_script(script, width=width, height=height, seed=seed, markers=markers, faces=faces)
    wall = time.perf_counter() - started
    table_actions = [b for b in script.beats if b.action is not None]
    # per-action accuracy: the events up to each action agree with the reference
    exact_prefix = 0
    for a, b in zip(result.expected, result.got):
        if a != b:
            break
        exact_prefix += 1
    done = sum(1 for e in result.expected[:exact_prefix] if e[0] == "action")
    all_ms = result.quiet_ms + result.change_ms
    return {
        "width": width, "height": height, "frames": result.frames,
        "quiet_ms_median": round(statistics.median(result.quiet_ms), 3) if result.quiet_ms else None,
        "quiet_ms_p95": round(_pct(result.quiet_ms, 95), 3) if result.quiet_ms else None,
        "change_ms_median": round(statistics.median(result.change_ms), 3) if result.change_ms else None,
        "change_ms_p95": round(_pct(result.change_ms, 95), 3) if result.change_ms else None,
        "fps": round(1000.0 / statistics.mean(all_ms), 1) if all_ms else None,
        "event_latency_s_median": round(statistics.median(result.latencies_s), 3) if result.latencies_s else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "accuracy": round(done / max(1, len(table_actions)), 4),
        "actions": len(table_actions), "exact": result.exact, "questions": result.questions,
        "questions_by_kind": {k.split("-", 1)[1]: v for k, v in result.stats.items()
                              if k.startswith("questions-")},
        "camera_beats": sum(1 for b in script.beats if b.by_camera),
        "hands_share": round(sum(1 for b in script.beats if b.arm is not None or b.distractor is not None)
                             / max(1, len(script.beats)), 3),
        "illegal_attempts": sum(1 for b in script.beats if b.expect_refusal),
        "first_difference": result.first_difference(),
        "event_latency_s_p95": round(_pct(result.latencies_s, 95), 3) if result.latencies_s else None,
        "game": game, "wall_s": round(wall, 1), "source": "synthetic", "markers": markers,
        "faces": getattr(faces, "name", "art"),
        "faces_drawn_as_art": sorted(getattr(faces, "fallbacks", ())),
    }


def run(args: argparse.Namespace) -> int:
    from ._common import open_faces

    faces = open_faces(getattr(args, "faces", "art"), "bench")
    if faces is False:
        return 2
    if not args.json:
        print(f"playing {args.actions} scripted actions of {args.game} (seed {args.seed}, "
              f"{args.width}x{args.height}, {faces.name} faces)...", file=sys.stderr, flush=True)
    out = bench(args.width, args.height, args.actions, args.seed, getattr(args, "game", "grid"),
                faces=faces)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:24} {v}")
    # a run the referee did not follow exactly is a failure, not a figure
    return 0 if out["frames"] and out["exact"] else 1


if __name__ == "__main__":
    sys.exit(run(argparse.Namespace(width=1280, height=720, actions=40, seed=0, json=True, game="grid",
                                    faces="art")))
