"""The torture benchmark: the live table under every hard condition, on many seeds, art and real
faces, with every wrong call counted.

    .venv/bin/python benchmarks/table_torture.py [--games grid,flip,classic] [--seeds 20]
        [--first-seed 1] [--actions 20] [--faces art,real] [--conditions plain,glare,...]
        [--tuning FILE] [--out benchmarks/results/table_torture.json] [--jobs 2]
    .venv/bin/python benchmarks/table_torture.py --tuning-seeds 1-40 --holdout-seeds 40 [...]

Seeds from :data:`HOLDOUT_FIRST` up are the hold-out: nothing is tuned or debugged on them.
``--seeds``/``--first-seed`` (or ``--tuning-seeds SPEC``) run tuning seeds only; with
``--holdout-seeds N`` it runs the tuning seeds of SPEC (``1-40``, ``1,5,9-12``) and the first N seeds of the hold-out
range, and reports them side by side in one JSON (:func:`side_by_side`): per block and condition
the runs, actions, wrong commits, false illegal calls, missed actions, missed illegal attempts
and questions per 100 actions against the targets. The hold-out block names no seed: a failure
there is described by its cause and reproduced on a tuning seed or a hand-made reading.

``--tuning FILE`` runs the referee with the thresholds of FILE (the format of
``companion/tuning.toml``, the default); the report records the file and its sha256.

Each run plays a scripted game (``simulator.script.GridScript`` or ``PileScript``) on the
synthetic table under one condition of :mod:`simulator.conditions`, through the reader and the
camera referee, with players who answer the referee's questions truthfully. Per condition and
face source it reports:

* ``actions``: scripted table actions;
* ``wrong_commits``: actions the table recorded that nobody made (a play committed from a
  misread) -- the target is 0;
* ``false_illegal_calls``: legal actions (or nothing at all) called illegal -- target 0;
* ``missed_actions``: actions made at the table that the table never recorded -- target 0;
* ``missed_illegal_attempts``: illegal plays or moves made at the table that the table never
  recorded (so never called, and no penalty dealt) -- target 0;
* ``pending_at_end``: the script's last untapped pass or draw-until-colour count, not recorded
  when the run ended: nothing shows them until the next seat acts (:func:`pending_at_end`),
  so they are counted apart from the missed ones, never hidden;
* ``draws``, ``draws_exact``: the draws done (the rules' ``draw`` actions) and those the table
  recorded exactly, seat and count (``draws_exact_per_action_pct``);
* ``draw_turns`` (Flip, classic): the turns in which a seat drew, and of them those whose draws
  the table recorded exactly (``draw_turns_exact``, ``draws_exact_per_turn_pct``), those asked
  about instead (``draw_turns_asked``), those whose count is the run's last, shown by nothing
  yet (``draw_turns_pending``) and the others (``draw_turns_wrong``, target 0) -- see
  :func:`draws_by_turn`;
* ``credits``, ``wrong_seat``, ``wrong_seat_penalties``: whose hand (:func:`seat_credits`): the
  plays, moves and discards recorded, those put to another seat than the one whose arm made
  them, and refused attempts (a penalty) charged to another seat -- targets 0 and 0;
* ``other_cards``: questions answered "another card..." (the card put down was not among the
  choices: the players name it, see docs/live-table.md);
* ``questions_per_100``: questions asked per 100 actions -- at most 4 in plain conditions, 8 in
  hard ones -- with the worst run's figure and the questions by kind (``colour``: a wild's
  colour, ``same-face``, ``several``, ``first-look``, ``unsure``);
* ``event_latency_s``: median and p95 from the hand leaving the table to the event;
* every run that was not exact, with its seed and its first difference (to replay it), and
  every wrong commit, false illegal call and missed action by name (``wrong_calls``).

A progress bar (tqdm) runs on stderr. Exit status 1 unless every target holds. The runs go seed
by seed over every condition, and ``--out`` is rewritten after each one (``"complete": false``
until the last): a run stopped early (Ctrl-C, SIGTERM) keeps what it measured, every condition
covered on the first seeds. Without the
photo data, ``--faces real`` is skipped with a message (the art runs still run).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import signal
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Questions per 100 actions at most: on a plain table, and under a hard condition.
PLAIN_QUESTIONS, HARD_QUESTIONS = 4.0, 8.0
#: The start of the hold-out range: seeds from here up are never tuned or debugged on, only
#: reported (``--holdout-seeds``).
HOLDOUT_FIRST = 10_000


def _actions(events: list[tuple]) -> list[tuple[str, bool]]:
    """The ``action`` events of a run, as (canonical action, accepted)."""
    out = []
    for kind, data in events:
        if kind != "action":
            continue
        d = dict(ast.literal_eval(data))
        out.append((json.dumps(d["action"], sort_keys=True), bool(d["ok"])))
    return out


def _canonical(action: dict) -> str:
    from companion.engine.actions import action_from_json

    return json.dumps(action_from_json(action).to_json(), sort_keys=True)


def pending_at_end(beats) -> list[str]:
    """The script's last actions that nothing at the table shows until the next seat acts (as
    canonical action JSON): the last seat's untapped pass, its draw-until-colour count (the
    count is over only when someone else moves), with only a phone's penalty or catch after
    them. Missed, they are ``pending``, not ``missed``: no referee can see them before the game
    goes on."""
    from simulator.script import ANY_TIME

    out: list[str] = []
    last = None
    for beat in reversed(beats):
        action = beat.action
        if action is None or action.get("do") in ANY_TIME:
            continue  # (a penalty or a catch from a phone shows no turn)
        if last is None:
            last = action.get("by")
        if action.get("by") != last:
            break
        if action.get("do") == "pass" or (action.get("do") == "draw" and "count" in action):
            out.append(_canonical(action))
    return out


def score(expected: list[tuple], got: list[tuple], pending: list[str] = ()) -> dict:
    """Wrong commits, false illegal calls, missed actions and actions pending at the end of one
    run (multisets: order and timing aside, what the table recorded against what was done;
    ``pending``: :func:`pending_at_end`)."""
    want, have = Counter(_actions(expected)), Counter(_actions(got))
    extra, missing = have - want, want - have
    late = Counter(pending)
    pending_n = 0
    for (a, ok), n in missing.items():
        if ok:
            pending_n += min(n, late[a])
    return {
        "wrong_commits": sum(n for (a, ok), n in extra.items() if ok),
        "false_illegal_calls": sum(n for (a, ok), n in extra.items() if not ok),
        "missed_actions": sum(n for (a, ok), n in missing.items() if ok) - pending_n,
        "missed_illegal_attempts": sum(n for (a, ok), n in missing.items() if not ok),
        "pending_at_end": pending_n,
    }


def draws_counted(expected: list[tuple], got: list[tuple]) -> dict:
    """The draws done (``draw`` actions taken by the rules: a seat's own, a draw-until-colour
    count) and how many of them the table recorded exactly (seat and count)."""
    want = Counter(a for a, ok in _actions(expected) if ok and json.loads(a)["do"] == "draw")
    have = Counter(a for a, ok in _actions(got) if ok and json.loads(a)["do"] == "draw")
    return {"draws": sum(want.values()), "draws_exact": sum((want & have).values())}


def draws_by_turn(beats, live_actions: list[tuple], asked_beats: list[int],
                  pending: list[str] = ()) -> dict:
    """The draws counted per turn: every turn in which a seat drew (the rules' ``draw``
    actions the script did in it) is ``exact`` when the draws the live table recorded for that
    turn are those, seat and count; else ``asked`` when a question was asked during it or the
    turn after (the referee asked instead of guessing), ``pending`` when what is missing is the
    run's last untapped count (:func:`pending_at_end`), and ``wrong`` otherwise. A draw the
    table recorded counts for the latest turn, up to the one being played, in which its seat
    drew (a draw made when the next seat plays is the turn before's); one nobody made, for
    the turn being played (it makes that turn not exact, or counts as a wrong turn)."""
    want: dict[int, Counter] = {}
    for b in beats:
        if b.action is not None and b.action.get("do") == "draw" and not b.expect_refusal:
            want.setdefault(b.turn, Counter())[_canonical(b.action)] += 1
    have: dict[int, Counter] = {}
    extra_turns: set[int] = set()
    for beat, action, ok in live_actions:
        if not ok or not isinstance(action, dict) or action.get("do") != "draw":
            continue
        now = beats[beat].turn if 0 <= beat < len(beats) else 0
        key = _canonical(action)
        turn = next((t for t in sorted(want, reverse=True) if t <= now and any(
            json.loads(k)["by"] == action.get("by") for k in want[t])), now)
        have.setdefault(turn, Counter())[key] += 1
        if turn not in want:
            extra_turns.add(turn)
    asked = {beats[b].turn for b in asked_beats if 0 <= b < len(beats)}
    late = Counter(pending)
    out = {"draw_turns": len(want), "draw_turns_exact": 0, "draw_turns_asked": 0,
           "draw_turns_pending": 0, "draw_turns_wrong": 0}
    for turn, drawn in sorted(want.items()):
        got = have.get(turn, Counter())
        if got == drawn:
            out["draw_turns_exact"] += 1
        elif turn in asked or turn + 1 in asked:
            out["draw_turns_asked"] += 1
        elif not (got - drawn) and all(late[k] >= n for k, n in (drawn - got).items()):
            out["draw_turns_pending"] += 1
        else:
            out["draw_turns_wrong"] += 1
    # draws recorded in turns where nobody drew: a wrong turn each (asked ones aside)
    out["draw_turns_wrong"] += sum(1 for t in extra_turns if t not in asked and t + 1 not in asked)
    return out


#: The actions a seat's hand makes on the table (whose hand it was, the camera sees).
_BY_HAND = ("play", "move", "discard")


def seat_credits(expected: list[tuple], got: list[tuple]) -> dict:
    """Whose hand: the plays, moves and discards the live table recorded (``credits``); of
    them, those credited to another seat than the one whose arm made that very action
    (``wrong_seat``: a card put to the wrong player's name); and the refused attempts charged
    to another seat than the one that made them (``wrong_seat_penalties``: an illegal play's
    penalty dealt to the wrong player). Multisets per action (seat aside): an action recorded
    once too often for one seat while missing for another is one wrong seat."""
    def split(a):
        d = json.loads(a)
        return json.dumps({k: v for k, v in d.items() if k != "by"}, sort_keys=True), d.get("by"), d["do"]

    want: Counter = Counter()
    have: Counter = Counter()
    for source, into in ((expected, want), (got, have)):
        for a, ok in _actions(source):
            key, by, do = split(a)
            if do in _BY_HAND:
                into[(key, ok, by)] += 1
    out = {"credits": sum(n for (k, ok, by), n in have.items() if ok), "wrong_seat": 0,
           "wrong_seat_penalties": 0}
    for key, ok in {(k, ok) for k, ok, _ in want} | {(k, ok) for k, ok, _ in have}:
        bys = {b for k, o, b in (*want, *have) if k == key and o == ok}
        extra = sum(max(0, have[(key, ok, b)] - want[(key, ok, b)]) for b in bys)
        short = sum(max(0, want[(key, ok, b)] - have[(key, ok, b)]) for b in bys)
        out["wrong_seat" if ok else "wrong_seat_penalties"] += min(extra, short)
    return out


def wrong_calls(expected: list[tuple], got: list[tuple], pending: list[str] = ()) -> dict:
    """The actions behind :func:`score`'s counts: each wrong commit, false illegal call, missed
    action and action pending at the end (as action JSON)."""
    want, have = Counter(_actions(expected)), Counter(_actions(got))
    extra, missing = have - want, want - have
    late = Counter(pending)
    pend = Counter({(a, ok): min(n, late[a]) for (a, ok), n in missing.items() if ok and late[a]})

    def listed(items, ok):
        return [json.loads(a) for (a, good), n in sorted(items.items()) if good is ok for _ in range(n)]

    return {"wrong_commits": listed(extra, True), "false_illegal_calls": listed(extra, False),
            "missed_actions": listed(missing - pend, True),
            "missed_illegal_attempts": listed(missing, False), "pending_at_end": listed(pend, True)}


def play(job: dict) -> dict:
    """One scripted game under one condition (runs in a worker process)."""
    from simulator.conditions import CONDITIONS, FrameContext, GlossyFaces
    from simulator.faces import faces_named
    from simulator.pile_script import PileScript
    from simulator.render import SyntheticTable
    from simulator.script import GridScript, run_script

    cond = CONDITIONS[job["condition"]]
    game, seed = job["game"], job["seed"]
    width, height = cond.size or (1280, 720)
    script = (GridScript(job["actions"], seed=seed, **cond.script) if game == "grid"
              else PileScript(job["actions"], game=game, seed=seed, **cond.script))
    faces = faces_named(job["faces"])
    if cond.glossy:
        faces = GlossyFaces(faces)
    renderer = SyntheticTable(width, height, seed=seed, faces=faces)
    if cond.lighting is not None:
        renderer.lighting = cond.lighting

    def frames():
        for n, step in enumerate(script.frames()):
            if step.pose is not None:
                renderer.pose = step.pose
            if step.lighting is not None:
                # the script's light drift, on top of the condition's light
                renderer.lighting = step.lighting if cond.lighting is None else type(step.lighting)(
                    gain=step.lighting.gain * cond.lighting.gain, slope=cond.lighting.slope,
                    angle=step.lighting.angle, tint=cond.lighting.tint)
            image = renderer.render(step.scene)
            ctx = FrameContext(renderer, step)
            for effect in cond.effects:
                image = effect(image, n, ctx)
            yield image, step

    started = time.perf_counter()
    tuning = None
    if job.get("tuning"):
        from companion.tuning import load

        tuning = load(job["tuning"])
    result = run_script(script, width=width, height=height, seed=seed, frames_source=frames(),
                        tuning=tuning)
    pending = pending_at_end(script.beats) if game != "grid" else []
    counted = score(result.expected, result.got, pending)
    turns = (draws_by_turn(script.beats, result.live_actions, result.asked_beats, pending)
             if game != "grid" else {})
    return {**job, **counted, **draws_counted(result.expected, result.got), **turns,
            **seat_credits(result.expected, result.got),
            "wrong_calls": wrong_calls(result.expected, result.got, pending), "exact": result.exact,
            "first_difference": result.first_difference(),
            "actions": len([b for b in script.beats if b.action is not None]),
            "questions": result.questions, "latencies_s": result.latencies_s,
            "question_kinds": {k[len("questions-"):]: v for k, v in result.stats.items()
                               if k.startswith("questions-")},
            # questions answered "another card..." (the card put down was not offered)
            "other_cards": result.stats.get("other-cards", 0),
            "wall_s": round(time.perf_counter() - started, 1),
            "faces_drawn_as_art": sorted(getattr(faces, "fallbacks", ()))}


def summarise(runs: list[dict]) -> list[dict]:
    """One row per condition and face source, with the worst case and every wrong call."""
    from simulator.conditions import CONDITIONS

    rows = []
    keys = sorted({(r["condition"], r["faces"]) for r in runs}, key=lambda k: (list(CONDITIONS).index(k[0]), k[1]))
    for cond, faces in keys:
        mine = [r for r in runs if r["condition"] == cond and r["faces"] == faces]
        actions = sum(r["actions"] for r in mine)
        lat = sorted(x for r in mine for x in r["latencies_s"])
        per_run_q = [100.0 * r["questions"] / max(1, r["actions"]) for r in mine]
        limit = HARD_QUESTIONS if CONDITIONS[cond].hard else PLAIN_QUESTIONS
        row = {
            "condition": cond, "faces": faces, "runs": len(mine), "actions": actions,
            "wrong_commits": sum(r["wrong_commits"] for r in mine),
            "false_illegal_calls": sum(r["false_illegal_calls"] for r in mine),
            "missed_actions": sum(r["missed_actions"] for r in mine),
            "missed_illegal_attempts": sum(r.get("missed_illegal_attempts", 0) for r in mine),
            "pending_at_end": sum(r.get("pending_at_end", 0) for r in mine),
            "draws": sum(r.get("draws", 0) for r in mine),
            "draws_exact": sum(r.get("draws_exact", 0) for r in mine),
            **_turn_figures(mine),
            **{k: sum(r.get(k, 0) for r in mine) for k in _CREDIT_KEYS},
            "questions_per_100": round(100.0 * sum(r["questions"] for r in mine) / max(1, actions), 2),
            "questions_per_100_worst_run": round(max(per_run_q), 2) if per_run_q else None,
            "questions_limit": limit,
            "question_kinds": dict(sum((Counter(r.get("question_kinds", {})) for r in mine), Counter())),
            "other_cards": sum(r.get("other_cards", 0) for r in mine),
            "exact_runs": sum(1 for r in mine if r["exact"]),
            "event_latency_s_median": round(statistics.median(lat), 3) if lat else None,
            "event_latency_s_p95": round(lat[min(len(lat) - 1, int(0.95 * (len(lat) - 1)))], 3) if lat else None,
            "not_exact": [{"game": r["game"], "seed": r["seed"], "first_difference": r["first_difference"]}
                          for r in mine if not r["exact"]],
            "wrong_calls": [{"game": r["game"], "seed": r["seed"], **r["wrong_calls"]} for r in mine
                            if any(r["wrong_calls"].values())],
        }
        row["games"] = {g: _per_game([r for r in mine if r["game"] == g])
                        for g in sorted({r["game"] for r in mine})}
        per_turn = row["draws_exact_per_turn_pct"]
        row["meets_targets"] = (row["wrong_commits"] == 0 and row["false_illegal_calls"] == 0
                                and row["missed_actions"] == 0 and row["missed_illegal_attempts"] == 0
                                and row["questions_per_100"] <= limit
                                and row["wrong_seat"] == 0 and row["wrong_seat_penalties"] == 0
                                and (per_turn is None or row["draw_turns_wrong"] == 0))
        rows.append(row)
    return rows


_TURN_KEYS = ("draw_turns", "draw_turns_exact", "draw_turns_asked", "draw_turns_pending",
              "draw_turns_wrong")
_CREDIT_KEYS = ("credits", "wrong_seat", "wrong_seat_penalties")


def _turn_figures(mine: list[dict]) -> dict:
    """The per-turn draw counts summed, with the shares exact: per turn (of the turns with a
    draw) and per draw action."""
    out = {k: sum(r.get(k, 0) for r in mine) for k in _TURN_KEYS}
    draws = sum(r.get("draws", 0) for r in mine)
    out["draws_exact_per_turn_pct"] = (round(100.0 * out["draw_turns_exact"] / out["draw_turns"], 2)
                                       if out["draw_turns"] else None)
    out["draws_exact_per_action_pct"] = (round(100.0 * sum(r.get("draws_exact", 0) for r in mine) / draws, 2)
                                         if draws else None)
    return out


def _per_game(mine: list[dict]) -> dict:
    """One game's figures within a condition and face source."""
    actions = sum(r["actions"] for r in mine)
    return {"runs": len(mine), "exact_runs": sum(1 for r in mine if r["exact"]), "actions": actions,
            **{k: sum(r.get(k, 0) for r in mine) for k in (
                "wrong_commits", "false_illegal_calls", "missed_actions", "missed_illegal_attempts",
                "pending_at_end", "draws", "draws_exact", *_CREDIT_KEYS)},
            **_turn_figures(mine),
            "questions_per_100": round(100.0 * sum(r["questions"] for r in mine) / max(1, actions), 2)}


#: What a block of the side-by-side report keeps per condition and face source.
BLOCK_KEYS = ("condition", "faces", "runs", "exact_runs", "actions", "wrong_commits",
              "false_illegal_calls", "missed_actions", "missed_illegal_attempts", "pending_at_end",
              "wrong_seat", "wrong_seat_penalties", "draw_turns_wrong", "questions_per_100",
              "questions_per_100_worst_run", "questions_limit")
#: The counts whose target is 0 in every block.
ZERO_TARGETS = ("wrong_commits", "false_illegal_calls", "missed_actions", "missed_illegal_attempts")


def block(runs: list[dict], seeds, *, name_seeds: bool = True) -> dict:
    """One block of :func:`side_by_side`: ``runs`` (:func:`play`'s reports) per condition and
    face source, with each game's figures and whether the targets hold (0 wrong commits, false
    illegal calls, missed actions and missed illegal attempts; questions per 100 at most
    :data:`PLAIN_QUESTIONS`, or :data:`HARD_QUESTIONS` under a hard condition). ``seeds`` says
    which seeds ran. ``name_seeds`` False leaves out every seed (the hold-out's): the wrong
    calls are listed by game only."""
    rows = []
    for row in summarise(runs):
        out = {k: row[k] for k in BLOCK_KEYS}
        out["games"] = {g: {k: part[k] for k in ("runs", "actions", *ZERO_TARGETS, "questions_per_100")}
                        for g, part in row["games"].items()}
        out["meets_targets"] = (all(out[k] == 0 for k in ZERO_TARGETS)
                                and out["questions_per_100"] <= out["questions_limit"])
        calls = row["wrong_calls"] if name_seeds else [
            {k: v for k, v in c.items() if k != "seed"} for c in row["wrong_calls"]]
        out["wrong_calls"] = calls
        rows.append(out)
    return {"seeds": seeds, "runs": len(runs), "actions": sum(r["actions"] for r in runs),
            **{k: sum(r[k] for r in runs) for k in ZERO_TARGETS},
            "conditions": rows, "all_targets_met": bool(rows) and all(r["meets_targets"] for r in rows)}


def side_by_side(tuning_runs: list[dict], holdout_runs: list[dict], tuning_seeds: list[int],
                 holdout_count: int) -> dict:
    """The tuning seeds' block and the hold-out's, kept apart (see :func:`block`); the
    hold-out's seeds are given as how many of the hold-out range ran, never by number."""
    return {"tuning_seeds": block(tuning_runs, _ranges(tuning_seeds)),
            "holdout_seeds": block(holdout_runs, {"first_of_holdout_range": holdout_count},
                                   name_seeds=False)}


def parse_seeds(spec: str) -> list[int]:
    """``1-40``, ``3``, ``1,5,9-12``: the seeds, in order, each once. A seed of the hold-out
    range (:data:`HOLDOUT_FIRST` up) is a ValueError: those run only as ``--holdout-seeds``."""
    seeds: list[int] = []
    for part in spec.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            lo = int(first)
            hi = int(last) if dash else lo
        except ValueError:
            raise ValueError(f"not a seed or a range of seeds: {part!r}") from None
        if hi < lo:
            raise ValueError(f"an empty range of seeds: {part!r}")
        seeds += [s for s in range(lo, hi + 1) if s not in seeds]
    held = [s for s in seeds if s >= HOLDOUT_FIRST]
    if held:
        raise ValueError(f"{len(held)} seed(s) of the hold-out range (from {HOLDOUT_FIRST} up): "
                         "the hold-out runs only as --holdout-seeds N")
    return seeds


def _ranges(seeds: list[int]) -> str:
    """Seeds as ranges: [1, 2, 3, 7] -> ``1-3,7``."""
    out: list[str] = []
    for s in sorted(seeds):
        if out and s == int(out[-1].rpartition("-")[2]) + 1:
            out[-1] = f"{out[-1].partition('-')[0]}-{s}"
        else:
            out.append(str(s))
    return ",".join(out)


def tuning_of(path: Path) -> dict:
    """The tuning file a run uses, as the report records it: its path and sha256."""
    return {"file": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def plan(tuning_seeds: list[int], holdout_count: int, *, games: list[str], conditions: list[str],
         faces: list[str], actions: int, tuning: Path) -> list[dict]:
    """The runs to make, in order: the ``tuning_seeds`` and the first ``holdout_count`` seeds of
    the hold-out range, a tuning seed then a hold-out seed, each over every condition, face
    source and game (so that a run stopped early covers every condition in both blocks). Each
    job says its ``block``: ``tuning`` or ``holdout``."""
    holdout = [HOLDOUT_FIRST + k for k in range(holdout_count)]
    order: list[tuple[int, str]] = []
    for k in range(max(len(tuning_seeds), len(holdout))):
        order += [(seeds[k], kind) for seeds, kind in ((tuning_seeds, "tuning"), (holdout, "holdout"))
                  if k < len(seeds)]
    return [{"game": g, "seed": s, "condition": c, "faces": f, "actions": actions,
             "tuning": str(tuning), "block": kind}
            for s, kind in order for c in conditions for f in faces for g in games
            if not (c == "pawn-hidden" and g != "grid")]  # only the grid game has a pawn


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    from companion.tuning import DEFAULT_PATH, TuningError, load
    from simulator.conditions import CONDITIONS

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="grid,flip,classic")
    p.add_argument("--seeds", type=int, default=20, help="seeds per game (default 20)")
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--tuning-seeds", default=None, metavar="SPEC",
                   help="the seeds, e.g. 1-40 or 1,5,9-12 (instead of --seeds and --first-seed)")
    p.add_argument("--holdout-seeds", type=int, default=None, metavar="N",
                   help="also run the first N seeds of the hold-out range; the report keeps the "
                        "tuning seeds and the hold-out apart, side by side")
    p.add_argument("--actions", type=int, default=20, help="scripted actions per run (default 20)")
    p.add_argument("--faces", default="art,real")
    p.add_argument("--conditions", default=",".join(CONDITIONS))
    p.add_argument("--tuning", type=Path, default=DEFAULT_PATH,
                   help="the referee's and the reader's thresholds (default companion/tuning.toml)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--out", type=Path, default=None, help="write the JSON report here too")
    a = p.parse_args(argv)

    try:
        load(a.tuning)
    except TuningError as exc:
        p.error(str(exc))
    both = a.holdout_seeds is not None
    if both and (a.tuning_seeds is None or a.holdout_seeds < 1):
        p.error("--holdout-seeds N (at least 1) goes with --tuning-seeds SPEC")
    try:
        tuning_seeds = parse_seeds(a.tuning_seeds if a.tuning_seeds is not None
                                   else f"{a.first_seed}-{a.first_seed + a.seeds - 1}")
    except ValueError as exc:
        p.error(str(exc))
    holdout_count = a.holdout_seeds if both else 0
    faces = a.faces.split(",")
    if "real" in faces:
        from vision.data import DataMissing, require_data
        try:
            require_data()
        except DataMissing as exc:
            print(f"table_torture: real faces skipped: {exc}", file=sys.stderr)
            faces.remove("real")
    unknown = [c for c in a.conditions.split(",") if c not in CONDITIONS]
    if unknown:
        p.error(f"unknown condition(s) {', '.join(unknown)}: expected {', '.join(CONDITIONS)}")
    jobs = plan(tuning_seeds, holdout_count, games=a.games.split(","), conditions=a.conditions.split(","),
                faces=faces, actions=a.actions, tuning=a.tuning)
    from tqdm import tqdm

    runs: list[dict] = []
    started = time.perf_counter()
    command = " ".join(["benchmarks/table_torture.py", *(argv if argv is not None else sys.argv[1:])])
    tuning = tuning_of(a.tuning)

    def report_of(complete: bool) -> dict:
        head = {"command": command, "wall_s": round(time.perf_counter() - started, 1),
                "complete": complete, "runs": len(runs), "runs_planned": len(jobs),
                "games": a.games.split(","), "faces": faces, "actions_per_run": a.actions,
                "tuning": tuning,
                "targets": {**{k: 0 for k in ZERO_TARGETS}, "questions_per_100_plain": PLAIN_QUESTIONS,
                            "questions_per_100_hard": HARD_QUESTIONS}}
        if both:
            out = side_by_side([r for r in runs if r["block"] == "tuning"],
                               [r for r in runs if r["block"] == "holdout"], tuning_seeds, holdout_count)
            return {**head, **out, "all_targets_met": complete and all(
                out[b]["all_targets_met"] for b in ("tuning_seeds", "holdout_seeds"))}
        rows = summarise(runs)
        return {**head, "seeds": [min(tuning_seeds), max(tuning_seeds)], "seed_list": _ranges(tuning_seeds),
                "conditions": rows,
                "all_targets_met": complete and all(r["meets_targets"] for r in rows)}

    def write(report: dict) -> None:
        if a.out is not None:
            a.out.parent.mkdir(parents=True, exist_ok=True)
            a.out.write_text(json.dumps(report, indent=1) + "\n")

    signal.signal(signal.SIGTERM, _interrupted)
    pool = ProcessPoolExecutor(max_workers=a.jobs)
    complete = False
    try:
        pending = [pool.submit(play, job) for job in jobs]
        for future in tqdm(as_completed(pending), total=len(jobs), desc="torture", unit="game",
                           file=sys.stderr):
            runs.append(future.result())
            write(report_of(False))  # what is measured so far survives a stopped run
        complete = True
    except KeyboardInterrupt:
        print(f"table_torture: stopped after {len(runs)} of {len(jobs)} runs", file=sys.stderr)
    finally:
        if not complete:  # the games under way are not waited for
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()  # (they inherit the SIGTERM handler: terminate would not do)
        pool.shutdown(wait=complete, cancel_futures=True)
    report = report_of(complete)
    write(report)
    print(json.dumps(report, indent=1))
    return 0 if report["all_targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
