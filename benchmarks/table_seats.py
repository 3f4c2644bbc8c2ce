"""Who reached, measured: the reader alone against the scripts' ground truth of every arm and
every draw, on games played with no phone taps for draws or passes.

    .venv/bin/python benchmarks/table_seats.py [--games grid,flip,classic] [--seeds 20]
        [--first-seed 1] [--actions 30] [--faces art|real] [--size 1280x720] [--jobs 2]
        [--condition plain] [--out benchmarks/results/table_seats.json]

Each run scripts a game (``simulator.script.GridScript`` or ``PileScript`` with
``phone_draws=False``: every card drawn is a reach of the drawing seat's arm, from its own side;
sometimes a second seat's arm is over the table at the same time; now and then a seat reaches to
the draw pile and puts the card back), renders it on the synthetic table and feeds the frames to
:class:`vision.table_reader.TableReader`. No referee: only the reader's :class:`Reach` es are
scored, each against the arm the script really moved in the beat its arm came in.
``--condition`` plays the table under one of the torture benchmark's conditions
(:mod:`simulator.conditions`: glare, jpeg-60, ...; default ``plain``).

Per game it reports:

* ``reaches``: arms scripted; reaches whose side is the side of the seat that really moved the
  arm (``right_side``), another side (``wrong_side``), no side (``unknown_side``); arms the reader
  never reported (``missed``) and reaches with no arm behind them (``extra``);
* ``draws``: per reach matched to an arm, the cards lifted counted exactly / wrongly / unknown
  (``lifted=None``: the referee would ask); and per turn, the cards each side drew that turn
  (``turns_with_draws``: turns where anyone drew or the reader says so) counted exactly, wrongly,
  or unknown (a reach of the turn said ``lifted=None``);
* every wrong side and wrong count (``wrong``), and every count not told (``unknown``), with
  its seed and beat (to replay it).

A progress bar (tqdm) runs on stderr; ``--out`` writes the JSON report (with the command line).
``--faces real`` needs the card photos (the data folder :mod:`vision.data` finds, or
``UNO_DATA``); without them it says so and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def score(beats: list, seating, reaches: list[tuple[int, object]]) -> dict:
    """Compare the reader's reaches with the scripted beats.

    ``beats`` are ``(beat index, turn, [(seat, lifted) for each arm])``, ``reaches`` ``(beat
    index the arm came in, Reach)``. An arm and a reach of the same beat pair up when the reach's
    side is the arm's seat's side; the rest of the beat pair up as wrong sides (or unknown),
    then what is left is missed (arms) or extra (reaches).
    """
    by_beat: dict[int, list] = {}
    for b, reach in reaches:
        by_beat.setdefault(b, []).append(reach)
    out = Counter()
    wrong: list[dict] = []
    turn_truth: dict[int, Counter] = {}
    turn_seen: dict[int, Counter] = {}
    turn_unknown: set[int] = set()
    beat_turn = {b: turn for b, turn, _ in beats}
    for b, turn, arms in beats:
        got = list(by_beat.pop(b, []))
        truth = turn_truth.setdefault(turn, Counter())
        seen = turn_seen.setdefault(turn, Counter())
        pairs = []
        left = []
        for seat, lifted in arms:
            side = seating.side_of(seat) if seat is not None else None
            truth[side] += lifted
            match = next((r for r in got if r.side == side and side is not None), None)
            if match is None:
                left.append((seat, side, lifted))
                continue
            got.remove(match)
            pairs.append((side, lifted, match))
            out["right_side"] += 1
        for _seat, side, lifted in left:
            if not got:
                out["missed"] += 1
                wrong.append({"beat": b, "what": "missed", "side": side, "lifted": lifted})
                continue
            match = got.pop(0)
            out["unknown_side" if match.side is None else "wrong_side"] += 1
            wrong.append({"beat": b, "what": "side", "side": side, "got": match.side})
            pairs.append((side, lifted, match))
        for r in got:
            out["extra"] += 1
            wrong.append({"beat": b, "what": "extra", "got": r.side, "lifted": r.lifted})
            pairs.append((None, 0, r))
        for side, lifted, r in pairs:
            if r.lifted is None:
                out["lifted_unknown"] += 1
                turn_unknown.add(turn)
                wrong.append({"beat": b, "what": "lifted-unknown", "side": side, "lifted": lifted})
            elif r.lifted == lifted:
                out["lifted_exact"] += 1
            else:
                out["lifted_wrong"] += 1
                wrong.append({"beat": b, "what": "lifted", "side": side, "lifted": lifted,
                              "got": r.lifted})
            if r.lifted:
                seen[r.side] += r.lifted
    for b, rs in by_beat.items():  # reaches in beats with no arm scripted
        for r in rs:
            out["extra"] += 1
            wrong.append({"beat": b, "what": "extra", "got": r.side, "lifted": r.lifted})
            if r.lifted is None:
                turn_unknown.add(beat_turn.get(b, -1))
    turns = Counter()
    for turn, truth in turn_truth.items():
        truth = +truth
        seen = +turn_seen.get(turn, Counter())
        turns["turns"] += 1
        if not truth and not seen and turn not in turn_unknown:
            continue
        turns["turns_with_draws"] += 1
        if turn in turn_unknown:
            turns["turns_unknown"] += 1
        elif truth == seen:
            turns["turns_exact"] += 1
        else:
            turns["turns_wrong"] += 1
            wrong.append({"turn": turn, "what": "turn-draws", "drew": dict(truth), "got": dict(seen)})
    return {**{k: out[k] for k in ("right_side", "wrong_side", "unknown_side", "missed", "extra",
                                    "lifted_exact", "lifted_wrong", "lifted_unknown")},
            **{k: turns[k] for k in ("turns", "turns_with_draws", "turns_exact", "turns_wrong",
                                      "turns_unknown")},
            "arms": sum(len(a) for _, _, a in beats), "wrong": wrong}


def play(job: dict) -> dict:
    """One scripted game through the reader (runs in a worker process)."""
    from simulator.conditions import CONDITIONS, FrameContext, GlossyFaces
    from simulator.faces import faces_named
    from simulator.pile_script import PileScript
    from simulator.render import SyntheticTable
    from simulator.script import GridScript
    from vision.table_reader import TableReader

    game, seed = job["game"], job["seed"]
    cond = CONDITIONS[job.get("condition", "plain")]
    width, height = cond.size or job["size"]
    kw = {"seed": seed, "phone_draws": False, **cond.script}
    script = (GridScript(job["actions"], **kw) if game == "grid"
              else PileScript(job["actions"], game=game, **kw))
    faces = faces_named(job["faces"])
    renderer = SyntheticTable(width, height, seed=seed, faces=GlossyFaces(faces) if cond.glossy else faces)
    reader = TableReader(game)
    started = time.perf_counter()
    frame_beat = [None]  # reader frame numbers count from 1
    for n, step in enumerate(script.frames()):
        if step.pose is not None:
            renderer.pose = step.pose
        if step.lighting is not None:  # the script's light drift, on top of the condition's light
            renderer.lighting = step.lighting if cond.lighting is None else type(step.lighting)(
                gain=step.lighting.gain * cond.lighting.gain, slope=cond.lighting.slope,
                angle=step.lighting.angle, tint=cond.lighting.tint)
        frame_beat.append(step.beat)
        image = renderer.render(step.scene)
        for effect in cond.effects:
            image = effect(image, n, FrameContext(renderer, step))
        reader.process(image, t=n / 30.0)
    beats = [(i, b.turn, [(a.seat, b.lifted if a is b.arm else 0) for a in b.arms])
             for i, b in enumerate(script.beats)]
    reader.flush_reaches()
    reaches = [(frame_beat[f], r) for f, r in reader.reach_log]
    result = score(beats, script.seating, reaches)
    for w in result["wrong"]:
        w["seed"] = seed
    return {**job, **result, "frames": len(frame_beat) - 1,
            "wall_s": round(time.perf_counter() - started, 1)}


def summarise(runs: list[dict]) -> dict:
    """Per game: the counts summed over its seeds, the shares, and every wrong one."""
    out = {}
    for game in sorted({r["game"] for r in runs}):
        mine = [r for r in runs if r["game"] == game]
        total = Counter()
        for r in mine:
            total.update({k: v for k, v in r.items() if isinstance(v, int) and k not in ("seed", "actions")})
        arms = total["arms"]
        with_draws = total["turns_with_draws"]
        out[game] = {
            "runs": len(mine), "seeds": sorted(r["seed"] for r in mine), "frames": total["frames"],
            "reaches": {"arms": arms, **{k: total[k] for k in ("right_side", "wrong_side", "unknown_side",
                                                              "missed", "extra")},
                        "right_side_share": round(total["right_side"] / arms, 4) if arms else None},
            "draws": {**{k: total[k] for k in ("lifted_exact", "lifted_wrong", "lifted_unknown", "turns",
                                              "turns_with_draws", "turns_exact", "turns_wrong",
                                              "turns_unknown")},
                      "turns_exact_share": round((total["turns"] - total["turns_wrong"] - total["turns_unknown"])
                                                 / total["turns"], 4) if total["turns"] else None,
                      "turns_with_draws_exact_share": round(total["turns_exact"] / with_draws, 4)
                      if with_draws else None},
            "wrong": [w for r in mine for w in r["wrong"] if w["what"] != "lifted-unknown"],
            "unknown": [w for r in mine for w in r["wrong"] if w["what"] == "lifted-unknown"],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="grid,flip,classic")
    p.add_argument("--seeds", type=int, default=20, help="seeds per game (default 20)")
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--actions", type=int, default=30, help="scripted actions per game (default 30)")
    p.add_argument("--faces", default="art", choices=("art", "real"))
    p.add_argument("--size", default="1280x720", help="frame size, WxH (default 1280x720)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--condition", default="plain",
                   help="a condition of simulator.conditions (default plain)")
    p.add_argument("--out", type=Path, default=None, help="write the JSON report here too")
    a = p.parse_args(argv)
    if a.faces == "real":
        from vision.data import DataMissing, require_data
        try:
            require_data()
        except DataMissing as exc:
            print(f"table_seats: --faces real skipped: {exc}", file=sys.stderr)
            return 2
    try:
        size = tuple(int(v) for v in a.size.lower().split("x"))
        assert len(size) == 2 and min(size) > 0
    except (ValueError, AssertionError):
        p.error(f"--size {a.size!r}: expected WIDTHxHEIGHT, e.g. 1280x720")
    from simulator.conditions import CONDITIONS
    if a.condition not in CONDITIONS:
        p.error(f"unknown condition {a.condition!r}: expected one of {', '.join(CONDITIONS)}")
    games = a.games.split(",")
    bad = [g for g in games if g not in ("grid", "flip", "classic")]
    if bad:
        p.error(f"unknown game(s) {', '.join(bad)}: expected grid, flip, classic")
    jobs = [{"game": g, "seed": s, "faces": a.faces, "actions": a.actions, "size": size,
             "condition": a.condition}
            for s in range(a.first_seed, a.first_seed + a.seeds) for g in games]
    from tqdm import tqdm

    command = " ".join(["benchmarks/table_seats.py", *(argv if argv is not None else sys.argv[1:])])
    started = time.perf_counter()
    runs = []
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        pending = [pool.submit(play, job) for job in jobs]
        for future in tqdm(as_completed(pending), total=len(jobs), desc="seats", unit="game",
                           file=sys.stderr):
            runs.append(future.result())
    report = {"command": command, "wall_s": round(time.perf_counter() - started, 1),
              "faces": a.faces, "size": list(size), "condition": a.condition,
              "actions_per_game": a.actions,
              "games": summarise(runs)}
    if a.out is not None:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
