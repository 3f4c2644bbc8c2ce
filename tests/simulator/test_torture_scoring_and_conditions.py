"""The torture benchmark's parts: its scoring of a run, and the conditions' frame effects."""

from __future__ import annotations

import math

import numpy as np

from simulator.conditions import (CONDITIONS, FrameContext, GlossyFaces, cup_and_phone, glare, jpeg,
                                  low_contrast, motion_blur)
from simulator.faces import ArtFaces
from simulator.render import SyntheticTable
from simulator.script import GridScript
from tests.support.torture import torture_module

torture = torture_module()


def _event(action: dict, ok: bool, error=None) -> tuple:
    return ("action", repr(sorted({"action": action, "ok": ok, "error": error}.items())))


PLAY = {"by": "north", "do": "play", "card": "red-7", "cell": [0, 0]}
MOVE = {"by": "south", "do": "move", "to": [1, 2]}
WRONG = {"by": "north", "do": "play", "card": "red-1", "cell": [0, 0]}


def test_an_exact_run_scores_nothing():
    events = [_event(PLAY, True), ("turn", "x"), _event(MOVE, True)]
    assert torture.score(events, list(events)) == {
        "wrong_commits": 0, "false_illegal_calls": 0, "missed_actions": 0, "missed_illegal_attempts": 0,
        "pending_at_end": 0}


def test_a_misread_play_is_one_wrong_commit_and_one_missed_action():
    assert torture.score([_event(PLAY, True)], [_event(WRONG, True)]) == {
        "wrong_commits": 1, "false_illegal_calls": 0, "missed_actions": 1, "missed_illegal_attempts": 0,
        "pending_at_end": 0}


def test_a_legal_move_called_illegal_is_a_false_call_and_a_miss():
    got = [_event(MOVE, False, "not-adjacent")]
    assert torture.score([_event(MOVE, True)], got) == {
        "wrong_commits": 0, "false_illegal_calls": 1, "missed_actions": 1, "missed_illegal_attempts": 0,
        "pending_at_end": 0}


def test_a_scripted_illegal_attempt_called_illegal_is_no_false_call():
    events = [_event(WRONG, False, "not-matching")]
    assert torture.score(events, list(events))["false_illegal_calls"] == 0
    assert torture.score(events, list(events))["missed_illegal_attempts"] == 0


def test_an_illegal_attempt_never_recorded_is_a_missed_illegal_attempt():
    # no call, so no penalty: counted apart from the missed legal actions, and named
    done = [_event(PLAY, True), _event(WRONG, False, "not-matching")]
    assert torture.score(done, done[:1]) == {
        "wrong_commits": 0, "false_illegal_calls": 0, "missed_actions": 0,
        "missed_illegal_attempts": 1, "pending_at_end": 0}
    assert torture.wrong_calls(done, done[:1])["missed_illegal_attempts"] == [WRONG]


def test_every_condition_changes_the_frame_and_keeps_its_shape():
    renderer = SyntheticTable(320, 180, seed=1)
    script = GridScript(2, seed=1)
    step = next(iter(script.frames()))
    image = renderer.render(step.scene)
    ctx = FrameContext(renderer, step)
    for effect in (jpeg, low_contrast, glare, motion_blur, cup_and_phone):
        out = effect(image, 30, ctx)
        assert out.shape == image.shape and out.dtype == np.uint8
        assert np.abs(out.astype(int) - image).mean() > 0.3, effect.__name__


def test_the_glare_lit_in_a_box_is_the_glare_lit_over_the_whole_frame():
    # the highlight is worked out only near its centre: no pixel may differ from lighting it all,
    # wherever it drifts (at the frame's edges too) and on every grey level, also at the size of
    # the torture frames, where float32 sums that round up to the next grey level do occur
    for (h, w), every in (((72, 128), 45), ((720, 1280), 300)):
        _glare_matches_the_whole_frame_lit(h, w, every)


def _glare_matches_the_whole_frame_lit(h: int, w: int, every: int) -> None:
    image = np.random.default_rng(3).integers(0, 256, (h, w, 3), dtype=np.uint8)
    ys, xs = np.ogrid[:h, :w]
    for n in range(0, 1800, every):
        t = n / 1800.0
        cx = w * (0.5 + 0.3 * math.sin(2 * math.pi * t))
        cy = h * (0.5 + 0.25 * math.sin(2 * math.pi * t * 0.7 + 1.0))
        r = 0.09 * w
        blob = np.exp(-(((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))).astype(np.float32)
        whole = np.clip(image.astype(np.float32) + blob[..., None] * 150.0, 0, 255).astype(np.uint8)
        lit = glare(image, n, None)
        assert np.array_equal(lit, whole), n
        assert (lit > image).any()


def test_a_sleeve_adds_a_sheen_to_every_card():
    plain = ArtFaces().card("blue-4", None, 0, 64, 96)
    glossy = GlossyFaces(ArtFaces()).card("blue-4", None, 0, 64, 96)
    assert glossy.mean() > plain.mean() + 3


def test_askew_cards_land_further_off_their_places_with_the_same_game():
    tidy = GridScript(6, seed=4)
    askew = GridScript(6, seed=4, askew=(15.0, 25.0))
    assert tidy.table_actions == askew.table_actions
    assert max(abs(p.dx) for stack in tidy.places for p in stack) <= 3.0
    assert max(abs(p.dx) for stack in askew.places for p in stack) > 5.0
    assert max(abs((p.angle + 90) % 180 - 90) for stack in askew.places for p in stack) > 8.0


def test_the_conditions_named_by_the_issue_are_all_there():
    assert {"plain", "640x480", "1920x1080", "dim", "tungsten", "daylight", "glare", "motion-blur",
            "jpeg-60", "nudged", "askew", "sleeve-gloss", "pawn-hidden", "cup-phone"} <= set(CONDITIONS)
    assert not CONDITIONS["plain"].hard and CONDITIONS["glare"].hard


def test_the_wrong_calls_are_named():
    got = [_event(WRONG, True), _event(MOVE, False, "not-adjacent")]
    assert torture.wrong_calls([_event(PLAY, True), _event(MOVE, True)], got) == {
        "wrong_commits": [WRONG], "false_illegal_calls": [MOVE], "missed_actions": [PLAY, MOVE],
        "missed_illegal_attempts": [], "pending_at_end": []}


class _Beat:
    def __init__(self, action):
        self.action = action


ANN_DRAW = {"by": "ann", "do": "draw", "count": 1}
ANN_PASS = {"by": "ann", "do": "pass"}
BEN_PASS = {"by": "ben", "do": "pass"}


def test_the_last_untapped_pass_is_pending_at_the_end_not_missed():
    beats = [_Beat({"by": "ben", "do": "play", "card": "red-7"}), _Beat(None), _Beat({"by": "ann", "do": "draw"}),
             _Beat(ANN_PASS), _Beat(None)]
    pending = torture.pending_at_end(beats)
    assert len(pending) == 1
    done = [_event(ANN_DRAW, True), _event(ANN_PASS, True)]
    assert torture.score(done, done[:1], pending) == {
        "wrong_commits": 0, "false_illegal_calls": 0, "missed_actions": 0, "missed_illegal_attempts": 0,
        "pending_at_end": 1}
    assert torture.wrong_calls(done, done[:1], pending)["pending_at_end"] == [ANN_PASS]
    # a pass in the middle of the game, not recorded, is missed: the next seat's play shows it
    done = [_event(BEN_PASS, True), _event(ANN_DRAW, True), _event(ANN_PASS, True)]
    assert torture.score(done, done[1:2], pending)["missed_actions"] == 1
    # and a draw-until-colour count (a draw with its count) is pending too; a plain draw is not
    beats = [_Beat({"by": "ann", "do": "accept"}), _Beat({"by": "ann", "do": "draw", "count": 3})]
    assert len(torture.pending_at_end(beats)) == 1
    assert torture.pending_at_end([_Beat({"by": "ann", "do": "draw"})]) == []
    # a phone's penalty after the pass shows no turn: the pass is still pending
    beats = [_Beat(ANN_PASS), _Beat({"by": "ben", "do": "penalty", "target": "ann", "count": 2})]
    assert len(torture.pending_at_end(beats)) == 1


def test_a_game_without_phone_draws_does_not_end_inside_a_draw_until_colour_count():
    # A Flip script could end in a count taken by hand: no camera can tell a count is over
    # before the next seat acts, so the script plays on until it does
    from simulator.pile_script import PileScript
    from simulator.script import ANY_TIME

    def last_at_table(beats):
        return next(b.action for b in reversed(beats)
                    if b.action is not None and b.action.get("do") not in ANY_TIME)

    for seed in (8, 15):
        by_hand = PileScript(20, game="flip", seed=seed, phone_draws=False)
        assert "count" not in last_at_table(by_hand.beats), seed
        assert not [p for p in torture.pending_at_end(by_hand.beats) if "count" in p]
        assert any("count" in (b.action or {}) for b in by_hand.beats), seed   # the count is there


def test_the_draws_are_counted_by_seat_and_count():
    done = [_event(ANN_DRAW, True), _event({"by": "ben", "do": "draw", "count": 4}, True), _event(ANN_PASS, True)]
    got = [_event(ANN_DRAW, True), _event({"by": "ben", "do": "draw", "count": 3}, True)]
    assert torture.draws_counted(done, got) == {"draws": 2, "draws_exact": 1}


class _TurnBeat:
    def __init__(self, action, turn):
        self.action, self.turn, self.expect_refusal = action, turn, False


def test_the_draws_are_counted_per_turn():
    # turn 0: ann draws and passes; turn 1: ben plays; turn 2: cai draws; turn 3: ann draws
    beats = [_TurnBeat(ANN_DRAW, 0), _TurnBeat(ANN_PASS, 0), _TurnBeat({"by": "ben", "do": "play", "card": "red-7"}, 1),
             _TurnBeat({"by": "cai", "do": "draw"}, 2), _TurnBeat(None, 2), _TurnBeat(ANN_DRAW, 3)]
    cai = {"by": "cai", "do": "draw", "count": 1}
    # ann's draw recorded late (when ben played) still counts for ann's turn; cai's as done
    live = [(2, ANN_DRAW, True), (2, {"by": "ann", "do": "pass"}, True), (3, cai, True), (5, ANN_DRAW, True)]
    out = torture.draws_by_turn(beats, live, [])
    assert out == {"draw_turns": 3, "draw_turns_exact": 3, "draw_turns_asked": 0,
                   "draw_turns_pending": 0, "draw_turns_wrong": 0}
    # cai's draw credited to ben (turn 2): wrong; the same turn with a question asked: asked
    live_wrong = live[:2] + [(3, {"by": "ben", "do": "draw", "count": 1}, True)] + live[3:]
    assert torture.draws_by_turn(beats, live_wrong, [])["draw_turns_wrong"] == 1  # (turn 2: not cai's draw)
    out = torture.draws_by_turn(beats, live[:2] + live[3:], [4])
    assert out["draw_turns_asked"] == 1 and out["draw_turns_wrong"] == 0
    # ann's last draw never recorded: wrong, unless it is the run's pending count
    out = torture.draws_by_turn(beats, live[:3], [])
    assert out["draw_turns_wrong"] == 1
    assert torture.draws_by_turn(beats, live[:3], [], [torture._canonical(ANN_DRAW)])["draw_turns_pending"] == 1


def test_whose_hand_credits_are_counted():
    south_move = {"by": "south", "do": "move", "to": [1, 2]}
    north_move = {"by": "north", "do": "move", "to": [1, 2]}
    done = [_event(PLAY, True), _event(south_move, True), _event(WRONG, False, "not-matching")]
    assert torture.seat_credits(done, list(done)) == {"credits": 2, "wrong_seat": 0, "wrong_seat_penalties": 0}
    # south's move put to north's name, north's refused card charged to south
    got = [_event(PLAY, True), _event(north_move, True), _event({**WRONG, "by": "south"}, False, "not-matching")]
    assert torture.seat_credits(done, got) == {"credits": 2, "wrong_seat": 1, "wrong_seat_penalties": 1}
    # a misread card is a wrong commit, not a wrong seat
    assert torture.seat_credits(done, [_event({**PLAY, "card": "red-1"}, True)])["wrong_seat"] == 0


#: a report row's counts, in the order the tests give them
COUNT_KEYS = ("runs", "exact_runs", "actions", "wrong_commits", "false_illegal_calls", "missed_actions",
              "missed_illegal_attempts")


def _report(seeds, *rows):
    return {"seeds": list(seeds), "conditions": [
        {"condition": c, "faces": f, **dict(zip(COUNT_KEYS, counts)), "questions_per_100": q,
         "question_kinds": {"unsure": round(q * counts[2] / 100)},
         "questions_per_100_worst_run": worst} for c, f, counts, q, worst in rows]}


def test_the_table_sums_each_condition_over_the_reports_and_keeps_only_those_named(tmp_path):
    import json
    import subprocess
    import sys

    from tests.support.torture import ROOT

    first = _report((1, 10), ("plain", "art", (30, 30, 360, 0, 0, 0, 0), 5.0, 25.0),
                    ("glare", "art", (30, 29, 360, 1, 0, 0, 0), 10.0, 50.0))
    later = _report((11, 20), ("plain", "art", (30, 30, 360, 0, 0, 2, 0), 2.5, 8.3),
                    ("glare", "art", (30, 30, 360, 0, 0, 0, 0), 0.0, 0.0))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(first))
    b.write_text(json.dumps(later))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "torture_table.py"), str(a), f"{b}:plain"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    # plain over both reports: 720 actions, 18 + 9 questions; glare from the first only
    assert out[2] == "| plain | art | 60 | 60 | 720 | 0 | 0 | 2 | 0 | 3.75 | 25.0 |"
    assert out[3] == "| glare | art | 30 | 29 | 360 | 1 | 0 | 0 | 0 | 10.00 | 50.0 |"
    assert len(out) == 4


def test_the_table_says_which_report_it_cannot_read(tmp_path):
    import subprocess
    import sys

    from tests.support.torture import ROOT

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "torture_table.py"), str(bad)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "cannot read" in run.stderr and "bad.json" in run.stderr


def test_the_table_keeps_only_the_games_named_from_a_report(tmp_path):
    # (a later report of one game under newer code replaces that game of an earlier report)
    import json
    import subprocess
    import sys

    from tests.support.torture import ROOT

    def game(counts, q):
        return {**dict(zip(COUNT_KEYS, counts)), "questions_per_100": q}

    old = _report((21, 28), ("askew", "art", (16, 14, 192, 0, 6, 15, 0), 12.5, 50.0))
    old["conditions"][0]["games"] = {"grid": game((8, 6, 96, 0, 6, 15, 0), 18.75),
                                     "flip": game((8, 8, 96, 0, 0, 0, 0), 6.25)}
    new = _report((21, 28), ("askew", "art", (8, 8, 96, 0, 0, 0, 0), 3.12, 16.7))
    new["conditions"][0]["games"] = {"grid": game((8, 8, 96, 0, 0, 0, 0), 3.12)}
    a, b = tmp_path / "old.json", tmp_path / "new.json"
    a.write_text(json.dumps(old))
    b.write_text(json.dumps(new))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "torture_table.py"), f"{a}@flip", str(b)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    # flip's 6 questions from the old report, grid's 3 from the new; the old report's worst run
    assert out[2] == "| askew | art | 16 | 16 | 192 | 0 | 0 | 0 | 0 | 4.69 | 50.0 |"
    assert len(out) == 3
