"""Who reached: the reader reports, on its readings, each arm's side of the mat, where its hand
went and the cards it took from the draw pile; the scripts play without phone taps for draws."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.reading import SIDES, Reach
from simulator.pile_script import PileScript
from simulator.render import CameraPose, Lighting, SyntheticTable
from simulator.scene import Arm, Placement, Scene
from simulator.script import GridScript, arm_at
from vision.geometry import Layout
from vision.table_reader import TableReader

L = Layout()
W, H = 480, 270
DISCARD = (Placement("red-5", face_set="classic"),)
ON_DISCARD = DISCARD + (Placement("red-9", 3.0, -2.0, 8.0, "classic"),)


class _OneLabel:
    """A classifier that calls every card a red 5: the reaches do not depend on the faces."""

    def classify_many(self, cards):
        return [{"red-5": 1.0} for _ in cards]


def _watch(beats, *, seed: int = 2, start: Scene | None = None, lighting=None, pose=None):
    """Render ``beats`` -- (the table after the beat, its arms) -- as the scripts do (arms in over
    5 frames, 3 held, out over 5, the table resting 10) and return every reach the reader handed
    out, readings first, then what was left at the end."""
    table = SyntheticTable(W, H, seed=seed)
    if lighting is not None:
        table.lighting = lighting
    if pose is not None:
        table.pose = pose
    reader = TableReader("classic", view=table.view, classifier=_OneLabel())
    scene = start or Scene(discard=DISCARD, draw_count=40)
    frames = [scene] * 8
    for after, arms in beats:
        for k in range(23):
            t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5 if k < 13 else 0.0
            shown = after if k >= 6 else scene
            frames.append(shown.with_arms(*[arm_at(a, t) for a in arms]) if t > 0 else shown)
        scene = after
    frames += [scene] * 8
    got = []
    for n, s in enumerate(frames):
        report = reader.process(table.render(s), t=n / 30)
        if report.reading is not None:
            got += list(report.reading.reaches)
    return got + [r for _, r in reader.flush_reaches()]


def _drawn(scene: Scene, n: int = 1) -> Scene:
    return replace(scene, draw_count=scene.draw_count - n)


START = Scene(discard=DISCARD, draw_count=40)


@pytest.mark.parametrize("side", SIDES)
def test_a_draw_is_a_reach_from_the_arms_side_that_lifted_one_card(side):
    assert _watch([(_drawn(START), [Arm(side, L.draw_pile, skin=2)])]) == [Reach(side, ("draw",), 1)]


def test_a_reach_to_the_pile_that_puts_the_card_back_lifted_nothing():
    assert _watch([(START, [Arm("south", L.draw_pile, skin=1)])]) == [Reach("south", ("draw",), 0)]


def test_an_arm_reaching_over_to_the_far_half_is_of_the_side_it_came_in_by():
    # north's arm to the discard pile in the south half, passing over the draw pile on its way
    after = replace(START, discard=ON_DISCARD)
    assert _watch([(after, [Arm("north", L.discard_pile, skin=3)])]) == [Reach("north", ("discard",), 0)]


@pytest.mark.parametrize("draws, other, where", [
    ("north", Arm("south", L.discard_pile, skin=3), ("discard",)),   # in line, from facing sides
    ("west", Arm("north", L.discard_pile, skin=3), ("discard",)),    # across each other
    # side by side and overlapping, from facing sides: the other arm's line (and its shadow)
    # was once taken for the drawing arm's hand, and the draw missed (a grid game)
    ("south", Arm("north", (409.7, 502.2), skin=3, width_mm=75), ()),
    # across each other, the drawing arm touching the other one as it came in over its own
    # edge: it was once taken for the other arm's shadow and missed (a classic game)
    ("west", Arm("north", (226.4, 481.9), skin=3, width_mm=75), ()),
])
def test_two_arms_at_once_are_two_reaches_each_with_its_own_side(draws, other, where):
    after = replace(_drawn(START), discard=ON_DISCARD if where else DISCARD)
    got = _watch([(after, [Arm(draws, L.draw_pile, skin=1), other])])
    assert sorted(got, key=lambda r: r.side) == sorted(
        [Reach(draws, ("draw",), 1), Reach(other.side, where, 0)], key=lambda r: r.side)


def test_an_arm_coming_in_is_drawn_from_its_own_edge_only():
    """An arm far out (its tip beyond the mat) once came back through the lens's distortion on
    the far side of the image: a strip across the whole table, read as an arm from the north."""
    table = SyntheticTable(W, H, seed=1, noise=0)
    bare = table.render(START)
    out = table.render(START.with_arms(Arm("south", (463.0, L.height + 200.0))))
    top = table.view.to_image([(0, 0), (L.width, L.height / 2)])
    (x0, y0), (x1, y1) = top.astype(int)
    assert (abs(out[y0:y1, x0:x1].astype(int) - bare[y0:y1, x0:x1]).max(axis=2) > 30).sum() == 0


def test_two_draws_in_a_row_are_two_reaches_of_one_card():
    once = _drawn(START)
    got = _watch([(once, [Arm("east", L.draw_pile)]), (_drawn(once), [Arm("east", L.draw_pile)])])
    assert got == [Reach("east", ("draw",), 1)] * 2


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.floats(0.8, 1.2), st.floats(-1.0, 1.0), st.integers(1, 50),
       st.booleans())
def test_a_table_with_no_arm_over_it_has_no_reaches(seed, gain, tint, drawn, nudge):
    """Cards changing without a hand, the light and the camera moving: never a reach."""
    start = Scene(discard=DISCARD, draw_count=60)
    later = replace(start, draw_count=60 - drawn, discard=ON_DISCARD)
    pose = CameraPose().nudged(3.0, -2.0, 0.3) if nudge else None
    assert _watch([(later, []), (start, [])], seed=seed, pose=pose,
                  lighting=Lighting(gain=gain, tint=tint)) == []


# --- the scripts: no phone taps for draws, and the ground truth --------------------------------

@pytest.mark.parametrize("game", ["flip", "classic", "grid"])
def test_without_phone_draws_every_card_drawn_is_a_reach_of_the_drawing_seats_arm(game):
    script = (GridScript(30, seed=3, phone_draws=False) if game == "grid"
              else PileScript(30, game=game, seed=3, phone_draws=False))
    engine_drew = Counter()
    from companion.bus import EventBus
    from companion.referee.table import Table

    bus = EventBus()
    bus.subscribe(lambda m: engine_drew.update({m.data["seat"]: m.data["count"]}), {"drew"})
    table = Table(script.setup, bus, clock=lambda: 0.0)
    for beat in script.beats:
        if beat.action is not None:
            table.act(beat.action, source="script")
        assert not (beat.action and beat.action["do"] in ("draw", "pass") and not beat.by_camera)
        if beat.lifted:
            assert beat.arm.tip == L.draw_pile and beat.arm.side == script.seating.side_of(beat.seat)
    bus.join()
    truth = Counter()
    for turn in script.drawn_by_turn():
        truth.update(turn)
    assert truth == +engine_drew and sum(truth.values()) > 0
    for beat in script.beats:  # every arm comes from its own seat's side
        for arm in beat.arms:
            assert arm.seat is not None and arm.side == script.seating.side_of(arm.seat)


def test_no_second_arm_goes_to_the_pile_while_it_is_turned_over():
    """A Flip turns the draw pile over: its look changes as if a card were drawn, and a second
    arm resting on it then would be taken for a draw (the script once did that)."""
    script = PileScript(60, game="flip", seed=1, phone_draws=False)
    for before, beat in zip(script.beats, script.beats[1:]):
        turned = beat.scene.draw_top.label != before.scene.draw_top.label and not beat.lifted
        if turned and beat.distractor is not None:
            assert beat.distractor.tip != L.draw_pile


def test_with_phone_draws_draws_and_passes_are_taps_and_penalty_cards_are_taken_by_hand():
    script = PileScript(30, game="classic", seed=3)
    draws = [b for b in script.beats if b.action and b.action["do"] in ("draw", "pass")]
    assert draws and all(not b.by_camera for b in draws)
    # the cards lifted by hand are the ones the rules dealt (no tap says them): reaches of no action
    lifted = [b for b in script.beats if b.lifted]
    assert lifted and all(b.action is None and b.arm.tip == L.draw_pile for b in lifted)


def test_scripted_seats_sit_where_the_default_seating_puts_them():
    script = PileScript(4, game="classic", seats=("ann", "ben"), seed=1, phone_draws=False)
    assert {b.arm.side for b in script.beats if b.arm is not None and b.seat == "ben"} <= {"north"}
    grid = GridScript(4, seed=1, seats=("west", "east"), phone_draws=False)
    assert all(b.arm.side == b.seat for b in grid.beats if b.arm is not None)


# --- the benchmark's scoring -------------------------------------------------------------------

def _seats_benchmark():
    from tests.support.scripts import load_script

    return load_script("benchmarks/table_seats.py")


def test_the_benchmark_counts_wrong_sides_wrong_draws_and_unknown_ones():
    from companion.seating import Seating

    score = _seats_benchmark().score
    seating = Seating.around(["ann", "ben", "cai"])  # south, west, north
    beats = [(0, 0, [("ann", 1)]), (1, 0, [("ben", 0), ("cai", 0)]), (2, 1, [("cai", 1)]),
             (3, 2, [("ann", 1)])]
    reaches = [(0, Reach("south", ("draw",), 1)),
               (1, Reach("west", (), 0)), (1, Reach("east", (), 0)),   # cai's arm: wrong side
               (2, Reach("north", ("draw",), None)),                   # not told
               (3, Reach("south", ("draw",), 0))]                      # a draw missed
    got = score(beats, seating, reaches)
    assert (got["right_side"], got["wrong_side"], got["missed"], got["extra"]) == (4, 1, 0, 0)
    assert (got["lifted_exact"], got["lifted_wrong"], got["lifted_unknown"]) == (3, 1, 1)
    assert (got["turns_with_draws"], got["turns_exact"], got["turns_wrong"], got["turns_unknown"]) == (3, 1, 1, 1)
    assert score(beats, seating, [(b, Reach(seating.side_of(s), (), n)) for b, _, arms in beats
                                  for s, n in arms])["turns_exact"] == 3


def test_an_arm_passing_over_a_pile_turned_over_is_no_draw():
    """A Flip: north's arm reveals the discard pile's new top as the draw pile is turned over
    under it (light faces up now). Where the dark arm passed over the dark pile, the mask had a
    hole, the arm seemed to end on the pile, and the pile's new look was called a draw (a Flip
    game)."""
    light = (Placement("green-draw-one", 0.6, 1.2, 175.0, "light"), Placement("green-7", 1.0, -1.7, 175.9, "light"),
             Placement("green-flip", -0.6, 0.2, -4.4, "light"))
    dark = (Placement("teal-3", 1.3, -1.2, -3.0, "dark"), Placement("teal-skip-everyone", -1.0, 0.3, 177.1, "dark"),
            Placement("orange-9", -1.5, 1.6, 178.2, "dark"))
    before = Scene(discard=light, draw_count=87, draw_top=Placement("teal-draw-five", 1.6, 1.1, 2.0, "dark"))
    after = Scene(discard=dark, draw_count=87, draw_top=Placement("green-reverse", 1.6, 1.1, 2.0, "light"))
    got = _watch([(after, [Arm("north", L.discard_pile, skin=2)])], seed=7, start=before)
    assert got == [Reach("north", ("discard",), 0)]


def test_a_card_drawn_from_a_pile_whose_next_card_lies_almost_the_same_is_a_draw():
    """The pile's look changed by only 5.4 (classic, beat 3): once "cannot be told"."""
    before = Scene(discard=DISCARD, draw_count=86)
    after = Scene(discard=DISCARD, draw_count=85, draw_top=Placement("back", -1.72, 1.47, -0.38))
    assert _watch([(after, [Arm("south", L.draw_pile, skin=0)])], seed=1, start=before) == [
        Reach("south", ("draw",), 1)]


def test_cards_left_lying_from_the_edge_become_the_table_while_the_game_goes_on():
    """Cards put down in a row from across the mat's west edge inwards, no hand seen with
    them: the still table lacks them, so they show as an arm crossing the west rim, reaching in.
    The table never lies quiet for a second (something moves elsewhere every few frames), which
    is when whatever lies on the edge was taken for the table. Once their blob has not stirred
    for a second it is the table all the same: the west player's reach to the discard pile
    afterwards is handed out with the pile, and no arm stays over the table (it once stayed for
    the rest of the game, swallowing every reach from that side)."""
    from companion.reading import Reach
    from simulator.script import arm_at
    from vision.reaches import ArmTracker, SETTLED_FRAMES
    from vision.stabilise import FrameChange

    table = SyntheticTable(W, H, seed=3)
    det = TableReader("classic", view=table.view, classifier=_OneLabel()).detector
    tracker = ArmTracker(table.view, L, det.boxes, det.scale, det.small_size)
    row = [(Placement(label, face_set="classic"), (x, 300.0))
           for label, x in (("blue-2", 20.0), ("red-7", 78.0), ("green-4", 136.0))]
    edge = replace(START, extras=tuple(row))
    frames = [START] * 10 + [edge] * (SETTLED_FRAMES + 15)
    arm = Arm("west", L.discard_pile, skin=1)
    after = replace(edge, discard=ON_DISCARD)
    for k in range(23):
        t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5 if k < 13 else 0.0
        shown = after if k >= 6 else edge
        frames.append(shown.with_arms(arm_at(arm, t)) if t > 0 else shown)
    frames += [after] * 8
    for n, scene in enumerate(frames):
        # (motion elsewhere on the table every fifth frame, as the change detector reports it)
        change = FrameChange(motion={}, change={}, moving=n > 10 and n % 5 == 0, hands=False)
        tracker.update(det.small(table.render(scene)), change, n)
    assert tracker.arms == []
    assert [reach for _, reach in tracker.take(force=True) if reach.regions] == [Reach("west", ("discard",), 0)]
