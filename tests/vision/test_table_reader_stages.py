"""The table reader as a pipeline of stages: each stage through its own interface, the reader's
own state kept small, and its thresholds taken from the tuning it is given."""

from __future__ import annotations

import numpy as np
import pytest

from companion.reading import EMPTY, NO_PAWN, PawnReading
from companion.tuning import default
from simulator.render import SyntheticTable
from simulator.scene import Arm, Placement, Scene
from simulator.script import arm_at
from vision.geometry import Layout, cell_name
from vision.reaches import ArmTracker
from vision.table_reader import TableReader, TemplateClassifier, labels_for_game
from vision.table_stages import (Arms, Calibrate, Changes, Frame, PawnWatch, ReadRegions, Vote,
                                 locate_card)

L = Layout()
KNOBS = default().reader
PILES = ("discard", "draw")
RED_5 = Scene(discard=(Placement("red-5", face_set="classic"),), draw_count=40)
RED_9 = Scene(discard=RED_5.discard + (Placement("red-9", 3.0, -2.0, 8.0, "classic"),),
              draw_count=40)


class _RedFive:
    """A classifier that calls every card a red 5."""

    def classify_many(self, cards):
        return [{"red-5": 1.0} for _ in cards]


def _grid_scene(pawn=(2, 2)) -> Scene:
    labels = ["red-1", "blue-7", "green-skip", "yellow-4", "red-6"]
    grid = tuple((Placement(labels[i % 5], 1.0, -1.0, 2.0),) for i in range(25))
    return Scene(grid=grid, pawn=L.cell_center(*pawn), discard=(Placement("red-5"),), draw_count=40)


# --- the reader ----------------------------------------------------------------------------------

def test_a_used_reader_keeps_at_most_twelve_attributes_of_its_own():
    table = SyntheticTable(640, 480, seed=2)
    reader = TableReader("classic", view=table.view, classifier=_RedFive())
    frames = [RED_5] * 8 + [RED_9.with_arms(arm_at(Arm("north", (463.0, 368.0)), t))
                            for t in (0.4, 0.8, 1.0, 0.6, 0.2)] + [RED_9] * 10
    readings = [r for n, s in enumerate(frames)
                if (r := reader.process(table.render(s), t=n / 30).reading) is not None]
    reader.flush_reaches()
    assert len(readings) >= 2 and readings[-1].discard.label == "red-5"
    assert len(vars(reader)) <= 12, sorted(vars(reader))
    # its public face: what the app, the simulator and the benchmarks use
    assert reader.view is table.view and reader.region_names == PILES
    assert reader.last_reading is readings[-1] and reader.frames == len(frames)


def test_the_reader_takes_its_thresholds_from_the_tuning_it_is_given(monkeypatch):
    # a hand the arm tracker keeps at the cards for ever holds a reading back for
    # held_hand_frames settled frames at most: the tuning given decides how long
    table = SyntheticTable(640, 480, seed=2)

    def first_reading(tuning):
        reader = TableReader("classic", view=table.view, classifier=_RedFive(), tuning=tuning)
        for n in range(10):
            reader.process(table.render(RED_5), t=n / 30)
        monkeypatch.setattr(ArmTracker, "hand_at_cards", lambda self: True)
        try:
            return next((n for n in range(60) if reader.process(table.render(RED_9),
                                                                t=(10 + n) / 30).reading), None)
        finally:
            monkeypatch.undo()

    short = first_reading(default().replace(reader={"held_hand_frames": 2}))
    usual = first_reading(None)
    long = first_reading(default().replace(reader={"held_hand_frames": 100}))
    assert short is not None and usual is not None and short < usual
    assert usual - short == KNOBS.held_hand_frames - 2
    assert long is None


# --- Calibrate -----------------------------------------------------------------------------------

def test_calibrate_finds_the_view_and_a_nudge_but_not_a_still_camera():
    table = SyntheticTable(640, 480, seed=2)
    image = table.render(RED_5)
    stage = Calibrate("classic", L, KNOBS, lens=table.view.lens)
    stage.view = stage.find(Frame(image))
    assert stage.view.moved_by(table.view, L) < 2.0
    stage.settled(Frame(image))
    assert stage.moved(Frame(image)) is None
    nudged = np.roll(image, (6, 9), axis=(0, 1))
    view = stage.moved(Frame(nudged))
    assert view is not None and 8.0 < stage.moved_by(view) < 14.0
    assert Calibrate("classic", L, KNOBS, view=table.view, recalibrate=False).moved(
        Frame(nudged)) is None


@pytest.mark.parametrize("tip", [(463.0, 308.0), (463.0, 368.0)])
def test_calibrate_never_moves_the_view_on_a_smeared_frame_and_finds_a_nudge_once_sharp(tip):
    """A camera on a wobbly arm, its smear turned since the last reading, two arms over the
    table: the texture seems to move under the arms, and the markers' corners move with the
    smear (fitted 16-19 px off a camera that never moved, the arms' still table then taken with
    the arms in it). A smeared frame decides nothing; a sharp one after a real nudge does.
    (A smeared frame of a camera nudged so far that the smear cannot be measured on the markers
    where they were is still fitted.)"""
    import cv2

    from vision.desmear import smear_kernel

    def smeared(image, angle):
        return cv2.filter2D(image, -1, smear_kernel(7, angle))

    table = SyntheticTable(1280, 720, seed=7)
    pile = Scene(discard=(Placement("red-1", face_set="classic"),
                          Placement("red-skip", 2.0, -3.0, 5.0, "classic")), draw_count=40)
    stage = Calibrate("flip", L, KNOBS, view=table.view)
    stage.settled(Frame(smeared(table.render(pile), 116)))
    arms = pile.with_arms(Arm("north", tip, skin=2),
                          Arm("east", (207.0 + 368.0 - tip[1], 385.0), skin=3, width_mm=75))
    assert stage.moved(Frame(smeared(table.render(arms), 153)), markers_only=True) is None
    view = stage.moved(Frame(np.roll(table.render(arms), (6, 9), axis=(0, 1))), markers_only=True)
    assert view is not None and 8.0 < stage.moved_by(view) < 14.0


def test_calibrate_without_markers_is_an_error_for_a_pile_game():
    from vision.geometry import CalibrationFailed

    blank = np.full((480, 640, 3), 90, np.uint8)
    with pytest.raises(CalibrationFailed):
        Calibrate("classic", L, KNOBS).find(Frame(blank))


# --- Changes -------------------------------------------------------------------------------------

def test_changes_count_still_frames_and_name_the_region_that_changed():
    table = SyntheticTable(640, 480, seed=2)
    stage = Changes(L, PILES, KNOBS, quiet_frames=2)
    stage.set_view(table.view)
    before, after = table.render(RED_5), table.render(RED_9)
    change, cur = stage.measure(Frame(before))
    stage.accept(cur, list(PILES))
    assert stage.settling() and not stage.settling()  # two still frames make it settled
    change, cur = stage.measure(Frame(after))
    assert change.moving and stage.changed(change) == ["discard"]
    stage.moving(change)
    assert stage.quiet == 0 and stage.touched == {"discard"}
    change, cur = stage.measure(Frame(after))
    assert not change.moving and stage.changed(change) == ["discard"]
    # something moved over it: not light; the touched mark is spent once looked at
    assert stage.lit(cur, change, ["discard"], known=lambda n: True) == []
    assert stage.touched_again(change, ["discard"]) == [] and not stage.touched


def test_changes_take_a_region_that_changed_with_nothing_over_it_as_light():
    table = SyntheticTable(640, 480, seed=2)
    stage = Changes(L, PILES, KNOBS)
    stage.set_view(table.view)
    image = table.render(RED_9)
    _, cur = stage.measure(Frame(image))
    stage.accept(cur, list(PILES))
    stage.measure(Frame(image))
    box = table.view.region_quad(L.regions["discard"]).astype(int)
    (x0, y0), (x1, y1) = box.min(0), box.max(0)
    xm = (x0 + x1) // 2
    for k in range(1, 31):  # a glare highlight grows slowly over the pile's left half
        lit = image.copy()
        lit[y0:y1, x0:xm] = np.clip(lit[y0:y1, x0:xm].astype(int) + 3 * k, 0, 255).astype(np.uint8)
        change, cur = stage.measure(Frame(lit))
        assert not change.moving
    assert stage.changed(change) == ["discard"]
    assert stage.lit(cur, change, ["discard"], known=lambda n: False) == []  # never read: a card
    assert stage.lit(cur, change, ["discard"], known=lambda n: True) == ["discard"]
    change, _ = stage.measure(Frame(lit))
    assert stage.changed(change) == []  # the new light is its reference now


def test_changes_hold_reading_back_for_a_hand_at_the_cards_a_while_at_most():
    stage = Changes(L, PILES, default().replace(reader={"held_hand_frames": 2}).reader)
    assert [stage.held(True) for _ in range(3)] == [True, True, False]
    assert stage.held(False) is False and stage.held(True) is True  # counted afresh


# --- Arms ----------------------------------------------------------------------------------------

def test_arms_follow_a_hand_to_the_cards_and_hand_out_its_reach():
    table = SyntheticTable(640, 480, seed=2)
    changes = Changes(L, PILES, KNOBS)
    detector = changes.set_view(table.view)
    stage = Arms(L, KNOBS)
    stage.set_view(table.view, detector, moved=float("inf"))
    arm = Arm("north", (463.0, 368.0), seat="cai")
    frames = [RED_5] * 8 + [RED_5.with_arms(arm_at(arm, t)) for t in (0.2, 0.4, 0.6, 0.8, 1.0)]
    at_cards = []
    for n, scene in enumerate(frames):
        change, cur = changes.measure(Frame(table.render(scene)))
        stage.update(cur, change, n)
        at_cards.append(stage.hand_at_cards())
    assert not any(at_cards[:8]) and at_cards[-1] and not stage.none_over_rim()
    for n, t in enumerate((0.8, 0.6, 0.4, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)):
        scene = RED_9.with_arms(arm_at(arm, t)) if t > 0 else RED_9
        change, cur = changes.measure(Frame(table.render(scene)))
        stage.update(cur, change, 13 + n)
    assert not stage.hand_at_cards() and stage.none_over_rim()
    came = stage.take(reading=False)
    assert [r.side for _, r in came] == ["north"] and stage.log == came
    assert stage.take() == [] and stage.log == came


# --- ReadRegions ---------------------------------------------------------------------------------

def test_read_regions_reads_the_card_on_a_region_and_settles_its_look():
    table = SyntheticTable(640, 480, seed=2)
    stage = ReadRegions(TemplateClassifier(labels_for_game("classic")), KNOBS)
    image = table.render(RED_9)
    (name, label, probs), = stage.read(image, table.view, L, ["discard"])
    assert name == "discard" and label == "red-9" and probs[label] == max(probs.values())
    assert "discard" not in stage.patches  # not its reference until its votes settle
    look = stage.settled("discard")
    assert look is not None and look.ndim == 2 and "discard" in stage.patches
    assert stage.read(image, table.view, L, []) == []


def test_read_regions_calls_a_region_without_a_sure_card_empty():
    table = SyntheticTable(640, 480, seed=2)

    class _Unsure:
        def classify_many(self, cards):
            return [{"red-5": 0.6, EMPTY: 0.4} for _ in cards]

    image = table.render(Scene(draw_count=40))  # no discard pile at all
    reads = ReadRegions(_Unsure(), KNOBS).read(image, table.view, L, ["discard"])
    assert reads == [("discard", EMPTY, {EMPTY: 1.0})]
    sure = default().replace(reader={"sure_outline": 0.5}).reader
    (_, label, _), = ReadRegions(_Unsure(), sure).read(image, table.view, L, ["discard"])
    assert label == "red-5"


def test_locate_card_takes_its_threshold_from_the_tuning():
    table = SyntheticTable(640, 480, seed=2)
    patch = table.view.warp_region(table.render(RED_9), L.regions["discard"], 1.4, margin=6.0)
    assert locate_card(patch, 1.4) is not None
    assert locate_card(patch, 1.4, card_diff=KNOBS.card_diff) is not None
    assert locate_card(patch, 1.4, card_diff=5000.0) is None  # nothing differs that much


# --- PawnWatch -----------------------------------------------------------------------------------

def test_pawn_watch_settles_where_two_looks_agree_and_says_when_it_moved():
    table = SyntheticTable(1120, 630, seed=3)
    stage = PawnWatch("grid", L, votes=2)
    assert stage.dirty and stage.reading == NO_PAWN
    frame = Frame(table.render(_grid_scene((1, 3))))
    assert stage.look(frame, table.view) is False and stage.dirty  # one look: no agreement
    assert stage.look(frame, table.view) is True and not stage.dirty
    assert stage.reading.seen and stage.reading.cell == (1, 3) and stage.near is not None
    assert stage.look(frame, table.view) is False  # one look at the same place: no news
    assert stage.look(frame, table.view) is False and stage.reading.cell == (1, 3)
    assert PawnWatch("classic", L).dirty is False


# --- Vote ----------------------------------------------------------------------------------------

class _NoArms:
    """The arms stage's side of a reading: no reach, nothing waits for the draw pile."""

    def pending_draw(self):
        return False

    def waiting_for_pile(self):
        return False

    def take(self, reading=True):
        return []


def test_vote_settles_a_region_when_its_reads_agree_and_gives_a_reading():
    stage = Vote("classic", PILES, votes=2)
    looks = []
    stage.add("discard", "red-9", {"red-9": 0.9, "red-6": 0.1})
    assert stage.settle(["discard"], looks.append) == [] and stage.voting() == {"discard"}
    assert stage.emit(0.0, NO_PAWN, False, _NoArms(), "markers") is None  # still voting
    stage.add("discard", "red-9", {"red-9": 0.7, "red-6": 0.3})
    assert stage.settle(["discard"], looks.append) == ["discard"] and looks == ["discard"]
    assert stage.known("discard") and not stage.voting()
    assert stage.emit(0.0, NO_PAWN, True, _NoArms(), "markers") is None  # the pawn still votes
    reading = stage.emit(1.0, NO_PAWN, False, _NoArms(), "markers")
    assert reading.seq == 1 and reading.changed == ("discard",) and reading.view_source == "markers"
    assert reading.discard.label == "red-9" and reading.discard.confidence == pytest.approx(0.8)
    assert stage.last is reading and stage.emit(2.0, NO_PAWN, False, _NoArms(), "") is None


def test_vote_spreads_a_whole_table_over_frames_and_restarts_votes_cut_short():
    names = tuple(cell_name(r, c) for r in range(5) for c in range(5)) + PILES
    stage = Vote("grid", names, votes=2, max_reads=7)
    stage.add("cell-4-4", "red-1", {"red-1": 1.0})
    todo = stage.todo(list(names))
    picked = stage.pick(todo)
    assert len(picked) == 7 and "cell-4-4" in picked  # those voting first
    assert stage.postponed == todo - picked and stage.todo([]) >= stage.postponed
    stage.restart()  # motion over the table: the vote on cell-4-4 starts again, later
    assert not stage.voting() and "cell-4-4" in stage.postponed
    stage.draw_changed()  # (before any reading: not counted)
    assert stage.draw_changes == 0 and "draw" in stage.dirty


def test_vote_keeps_the_card_under_the_pawn_from_the_reading_before():
    names = tuple(cell_name(r, c) for r in range(5) for c in range(5))
    stage = Vote("grid", names, votes=1)
    for name in names:
        stage.add(name, "red-1", {"red-1": 1.0})
    stage.settle(list(names), lambda n: None)
    first = stage.emit(0.0, NO_PAWN, False, _NoArms(), "markers")
    assert first is not None and first.cell(2, 2).label == "red-1"
    stage.add("cell-2-2", "blue-7", {"blue-7": 1.0})  # the pawn's own look, read as a card
    stage.settle(["cell-2-2"], lambda n: None)
    pawn = PawnReading((2, 2), L.cell_center(2, 2), True)
    second = stage.emit(1.0, pawn, False, _NoArms(), "markers")
    assert second.cell(2, 2).label == "red-1" and second.cell(2, 2).remembered
