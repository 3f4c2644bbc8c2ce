"""Regressions from the torture benchmark's classic (discard pile) games: each wrong call
reduced to a few readings or frames."""

from __future__ import annotations

import pytest

from companion.reading import PawnReading, Reach, RegionReading, TableReading
from tests.support.looks import Looks, red_seven_asked_over_red_five
from tests.support.readings import classic_pile_table, pile_reading


def test_an_unsure_read_offers_each_card_read_about_as_likely_though_the_rules_refuse_it():
    # Glare and motion blur (classic, art faces): ben's red-4 put on a yellow-3
    # (refused: not matching) was read red-1 at 0.30 and red-4 at 0.19. The question offered
    # the red-1 and the legal plays only; answered "misread", the attempt was never called and
    # the turns slipped from there
    import numpy as np

    bus, table, referee, asked = classic_pile_table()
    looks = Looks(referee)
    done = []
    bus.subscribe(lambda m: done.append(m.data), {"action"})
    rng = np.random.default_rng(3)
    referee.on_reading(looks.pile(pile_reading(1, "red-5"), rng.integers(0, 255, (20, 14)).astype(np.float32)))
    seat = table.state_json()["turn"]
    read = RegionReading.of({"blue-1": 0.30, "blue-4": 0.19, "red-3": 0.01, "blue-0": 0.005,
                             "empty": 0.02})
    referee.on_reading(looks.pile(TableReading(2, 0.0, (), read, PawnReading(None, None, False),
                                               changed=("discard",)),
                                  rng.integers(0, 255, (20, 14)).astype(np.float32)))
    bus.join()
    assert asked and asked[-1]["kind"] == "unsure" and asked[-1]["seat"] == seat
    offered = [c["action"]["card"] for c in asked[-1]["choices"] if c["action"]]
    assert offered[:2] == ["blue-1", "blue-4"]  # what it looks like first, rules or not
    assert "red-3" in offered  # and the legal play read
    assert "blue-0" not in offered  # (read far less likely than the best: not offered)
    played = next(c for c in asked[-1]["choices"] if c["action"] and c["action"]["card"] == "blue-4")
    referee.answer(played["id"], by=seat)
    referee.run_pending()
    bus.join()
    # the attempt is called: refused, not matching
    assert [(d["action"], d["ok"], d.get("error")) for d in done] == [
        ({"by": seat, "do": "play", "card": "blue-4"}, False, "not-matching")]


class _RedFive:
    """A classifier that calls every card a red 5: the arms do not depend on the faces."""

    def classify_many(self, cards):
        return [{"red-5": 1.0} for _ in cards]


def _cai_puts_a_red_9_on_the_pile():
    """A classic 640x480 table on red-5 with its reader (every card a red-5 to it), the scene
    before and after, and the frames of cai's arm from the north putting a red-9 on the pile
    (as the scripts play a beat: in over 5 frames, 3 held, out over 5)."""
    from simulator.render import SyntheticTable
    from simulator.scene import Arm, Placement, Scene
    from simulator.script import arm_at
    from vision.table_reader import TableReader

    table = SyntheticTable(640, 480, seed=2)
    reader = TableReader("classic", view=table.view, classifier=_RedFive())
    before = Scene(discard=(Placement("red-5", face_set="classic"),), draw_count=40)
    after = Scene(discard=before.discard + (Placement("red-9", 3.0, -2.0, 8.0, "classic"),),
                  draw_count=40)
    arm = Arm("north", (463.0, 368.0), seat="cai")
    beat = []
    for k in range(23):
        t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5 if k < 13 else 0.0
        shown = after if k >= 6 else before
        beat.append(shown.with_arms(arm_at(arm, t)) if t > 0 else shown)
    return table, reader, before, beat


def _play_after_a_nudge(nudge):
    """The table camera nudged by ``nudge`` (dx, dy px, turn deg) while nothing moves, then
    cai's red-9 put on the pile. Returns the reaches of each reading, in order."""
    table, reader, before, beat = _cai_puts_a_red_9_on_the_pile()
    frames = [before] * 10 + [None] + [before] * 24 + beat
    readings = []
    for n, scene in enumerate(frames):
        if scene is None:
            table.pose = table.pose.nudged(*nudge)
            continue
        report = reader.process(table.render(scene), t=n / 30)
        if report.reading is not None:
            readings.append(report.reading.reaches)
    return readings


@pytest.mark.slow
def test_after_a_camera_nudge_the_next_arm_is_still_seen_reaching_the_pile():
    # Nudged (classic, both faces): after a nudge the arm tracker kept the table
    # as it lay still before it, a pixel off; the mat's edge, off by as much, stayed on the rim
    # as an arm that never left, and took in cai's arm from that side: the red-6 he put on a
    # red-6 came with no reach over the pile, was no "same face" question, and was missed
    readings = _play_after_a_nudge((4.0, -3.0, 0.3))
    assert readings[-1] == (Reach("north", ("discard",), 0),)


@pytest.mark.slow
def test_when_the_cameras_smear_turns_the_next_arm_is_still_seen_reaching_the_pile():
    # Motion blur (classic, both faces): the smear turned between two moves, and
    # the mat's edge, smeared along another line than in the still table, stayed on the north
    # rim as an arm; cai's arm from the north went into it and was still "there" when the
    # reading came: the red-6 he put on a red-6 came with no reach over the pile and was missed
    import cv2

    from vision.desmear import smear_kernel

    table, reader, before, beat = _cai_puts_a_red_9_on_the_pile()
    # the smear turns with nothing moving, then stays
    frames = [(before, 37)] * 10 + [(before, 74)] * 12 + [(scene, 74) for scene in beat]
    readings = []
    for n, (scene, angle) in enumerate(frames):
        report = reader.process(cv2.filter2D(table.render(scene), -1, smear_kernel(7, angle)), t=n / 30)
        if report.reading is not None:
            readings.append(report.reading.reaches)
    assert readings[-1] == (Reach("north", ("discard",), 0),)


def test_in_dim_light_a_hand_held_still_over_the_pile_is_waited_for():
    # Dim (classic, art faces): ann held her hand still over the green-6 she had
    # put on the pile, its fingers over the card's lower half; in dim light the arm changed the
    # border so little that it was not taken for hands, the card was read under the fingers
    # (green-4 at 0.50), committed, and her green-6 asked about as ben's play out of turn
    from simulator.conditions import CONDITIONS, low_contrast
    from simulator.render import SyntheticTable
    from simulator.scene import Arm, Placement, Scene
    from simulator.script import arm_at
    from vision.table_reader import TableReader

    table = SyntheticTable(640, 360, seed=6)
    table.lighting = CONDITIONS["dim"].lighting
    reader = TableReader("classic", view=table.view, classifier=_RedFive())
    before = Scene(discard=(Placement("red-5", face_set="classic"),), draw_count=40)
    after = Scene(discard=before.discard + (Placement("green-6", -1.4, -0.9, -5.8, "classic"),),
                  draw_count=40)
    arm = Arm("south", (463.0, 368.0), seat="ann")
    frames = [(before, 0.0)] * 10
    for k in range(24):  # in over 5 frames, held still for 6, out over 5
        t = (k + 1) / 5 if k < 5 else 1.0 if k < 11 else 1 - (k - 10) / 5 if k < 16 else 0.0
        frames.append(((after if k >= 6 else before).with_arms(arm_at(arm, t)) if t > 0 else after, t))
    read_under_the_hand, readings = [], 0
    for n, (scene, t) in enumerate(frames):
        report = reader.process(low_contrast(table.render(scene), n, None), t=n / 30)
        if report.read and t > 0:
            read_under_the_hand.append(n)
        readings += report.reading is not None
    assert read_under_the_hand == []
    assert readings == 2  # (the first look, and the card once the hand has gone)


def _pile_read_as_no_card(new_look: bool):
    """A classic table on red-5 whose pile then reads "no card" at 0.85 (no arm seen going
    there), looking like another card (``new_look``) or as before; returns what was asked and
    done."""
    import numpy as np

    from companion.reading import Reach

    bus, table, referee, asked = classic_pile_table()
    looks = Looks(referee)
    done = []
    bus.subscribe(lambda m: done.append(m.data), {"action"})
    rng = np.random.default_rng(7)
    before = rng.integers(0, 255, (20, 14)).astype(np.float32)
    referee.on_reading(looks.pile(pile_reading(1, "red-5"), before))
    look = rng.integers(0, 255, (20, 14)).astype(np.float32) if new_look else before + 1.0
    read = RegionReading.of({"empty": 0.85, "red-7": 0.01, "blue-5": 0.005})
    referee.on_reading(looks.pile(TableReading(2, 0.0, (), read, PawnReading(None, None, False),
                                               changed=("discard",), reaches=(Reach(None, (), 0),)),
                                  look))
    referee.run_pending()
    bus.join()
    return asked, done


def test_a_card_put_on_the_pile_and_read_as_no_card_is_asked_about():
    # Sleeve gloss (flip, both faces): ann's teal-draw-five put on a wild read
    # "no card" at 0.85, its arm unseen; taken for light hiding the wild, the play was missed
    # and cai's draw was called out of turn (3 false illegal calls, 5 missed actions)
    asked, done = _pile_read_as_no_card(new_look=True)
    assert [q["kind"] for q in asked] == ["unsure"] and done == []


def test_a_pile_read_as_no_card_that_looks_as_before_is_left_for_the_light():
    # (the other way: the same card under less light, read "no card", asks nothing)
    asked, done = _pile_read_as_no_card(new_look=False)
    assert asked == [] and done == []


def test_a_hand_at_the_cards_holds_a_reading_back_half_a_second_at_most():
    # 640x480 (grid, art faces): a reading waited two seconds while the arm
    # tracker followed something at the cards; five turns went by unread, and the questions
    # about them came too late to be answered right (1 false illegal call, 6 missed actions)
    from simulator.scene import Placement, Scene

    table, reader, before, _ = _cai_puts_a_red_9_on_the_pile()
    after = Scene(discard=before.discard + (Placement("red-9", 3.0, -2.0, 8.0, "classic"),),
                  draw_count=40)
    for n in range(10):
        reader.process(table.render(before), t=n / 30)
    reader._arms.hand_at_cards = lambda: True  # an "arm" that lies at the cards for ever
    came = next((n for n in range(40) if reader.process(table.render(after), t=(10 + n) / 30)
                 .reading is not None), None)
    assert came is not None  # (within 40 frames of the card's coming: 1.3 s)


def _card_left_in_the_band(rest: bool):
    """A classic 640x480 table: ann's arm from the south puts a green-5 on the pile and a card
    by it that lies in the east border band (as a card thrown askew on a messy pile reaches
    into it), then leaves (``rest``: an arm from the east comes to rest on the band instead).
    The states of the 12 frames after."""
    from simulator.render import SyntheticTable
    from simulator.scene import Arm, Placement, Scene
    from simulator.script import arm_at
    from vision.table_reader import TableReader

    table = SyntheticTable(640, 480, seed=9)
    reader = TableReader("classic", view=table.view, classifier=_RedFive())
    before = Scene(discard=(Placement("wild-draw-four", -0.6, -6.7, 203.1, "classic"),), draw_count=40)
    after = Scene(discard=before.discard + (Placement("green-5", 12.7, -6.7, 161.4, "classic"),),
                  draw_count=40, extras=((Placement("green-5", face_set="classic"), (495.0, 372.0)),))
    arm = Arm("south", (463.0, 368.0), seat="ann")
    frames = [before] * 10
    for k in range(13):  # in over 5 frames, 3 held, out over 5
        t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5
        frames.append((after if k >= 6 else before).with_arms(arm_at(arm, t)) if t > 0 else after)
    resting = Arm("east", (470.0, 110.0), seat="ben")
    if rest:
        frames += [after.with_arms(arm_at(resting, (k + 1) / 4)) for k in range(4)]
    frames += [after.with_arms(resting) if rest else after] * 12
    states = [reader.process(table.render(scene), t=n / 30) for n, scene in enumerate(frames)]
    return [s.state for s in states[-12:]], [s.reading for s in states[-12:] if s.reading]


def test_a_card_lying_still_in_the_border_band_with_no_arm_over_the_rim_is_no_hand():
    # Askew (classic and flip, art faces): ann's green-5, thrown askew
    # on the discard pile, reached into the east border band. The band stayed changed with no
    # arm over the table, the reader waited 20 frames for the "hand" to go, ben played his
    # green-7 on it first, and the green-5 was never read (committed as ann's green-7)
    states, readings = _card_left_in_the_band(rest=False)
    assert readings, states  # read within a few frames, not after 20 "hands" frames
    assert states.count("hands") <= 3


def test_an_arm_resting_on_the_border_band_still_holds_reading_back():
    states, readings = _card_left_in_the_band(rest=True)
    assert not readings and states[-1] == "hands", states


def _spread_read_on_red_5(read: dict[str, float]):
    """A card put on the classic pile's red-5, read ``read``: the question asked."""
    import numpy as np

    bus, table, referee, asked = classic_pile_table()
    looks = Looks(referee)
    rng = np.random.default_rng(10)
    referee.on_reading(looks.pile(pile_reading(1, "red-5"), rng.integers(0, 255, (20, 14)).astype(np.float32)))
    seat = table.state_json()["turn"]
    got = RegionReading.of(read)
    referee.on_reading(looks.pile(TableReading(2, 0.0, (), got, PawnReading(None, None, False),
                                               changed=("discard",), reaches=(Reach("south", ("discard",)),)),
                                  rng.integers(0, 255, (20, 14)).astype(np.float32)))
    bus.join()
    assert [q["kind"] for q in asked] == ["unsure"] and asked[0]["seat"] == seat
    return [c["action"]["card"] for c in asked[0]["choices"] if c["action"]]


def test_a_read_spread_thin_offers_the_card_read_fourth():
    # Motion blur (classic, art faces): ann's green-6 read green-4 0.53, green-1
    # 0.11, green-draw-two 0.08, green-6 0.06 (under an eighth of the best): offered the first
    # three, answered "misread", and ann's later plays were called illegal; 640x480 classic
    # a blue-9 read fourth (0.045 beside blue-3 at 0.47) the same way
    offered = _spread_read_on_red_5({"red-4": 0.53, "red-1": 0.11, "red-draw-two": 0.08,
                                     "red-6": 0.06, "red-7": 0.03, "blue-2": 0.03})
    assert offered == ["red-4", "red-1", "red-draw-two", "red-6", "red-7"]


def test_a_read_sure_of_its_first_cards_offers_no_more():
    # (the other way: the first three hold all but an eighth of the best; no more is offered)
    offered = _spread_read_on_red_5({"red-4": 0.53, "red-1": 0.3, "red-draw-two": 0.12,
                                     "red-6": 0.02, "red-7": 0.01})
    assert offered == ["red-4", "red-1", "red-draw-two"]


def _yellow_8_on_yellow_1_looking_alike(arm_over_it: bool):
    """A classic table started on a yellow-1 (ann first, at the south side), whose pile then
    reads yellow-8 at 0.94 looking as the yellow-1 did, with ann's arm over the pile
    (``arm_over_it``) or over nothing. Returns what was done."""
    import numpy as np

    bus, table, referee, _asked = classic_pile_table(start="yellow-1")
    looks = Looks(referee)
    done = []
    bus.subscribe(lambda m: done.append(m.data["action"]), {"action"})
    look = np.random.default_rng(28).integers(0, 255, (20, 14)).astype(np.float32)
    referee.on_reading(looks.pile(pile_reading(1, "yellow-1"), look))
    read = RegionReading.of({"yellow-8": 0.94, "yellow-9": 0.01, "yellow-3": 0.01})
    arm = Reach("south", ("discard",), 0) if arm_over_it else Reach("south", (), 0)
    referee.on_reading(looks.pile(TableReading(2, 0.0, (), read, PawnReading(None, None, False),
                                               changed=("discard",), reaches=(arm,)), look + 2.0))
    referee.run_pending()
    bus.join()
    return done


def test_a_card_read_clearly_where_a_hand_went_is_a_play_though_it_looks_as_before():
    # Motion blur (classic, real faces): cai's yellow-8 thrown on a yellow-1
    # looked 2.8 apart from it through the smear and was taken for the light changing the
    # read: missed, then ann's illegal blue-1 on it was committed as a play
    assert _yellow_8_on_yellow_1_looking_alike(arm_over_it=True) == [
        {"by": "ann", "do": "play", "card": "yellow-8"}]


def test_a_read_that_changed_where_no_hand_went_and_looks_as_before_is_left_alone():
    # (the other way: no hand over the pile, the same look: the read changed, not the card)
    assert _yellow_8_on_yellow_1_looking_alike(arm_over_it=False) == []


def test_a_card_answered_while_misread_is_remembered_by_its_look_so_the_same_face_on_it_is_asked():
    # Sleeve gloss (classic, art faces): ann's red-5,
    # read unsurely, was answered; it went on reading red-3, so its look was never taken, and
    # cai's red-5 put on it was missed (every turn slipped after it)
    s = red_seven_asked_over_red_five()
    s.referee.answer(s.played["id"], by=s.seat)
    s.referee.run_pending()
    s.bus.join()
    assert s.table.state_json()["top"] == "red-7"
    # the next seat puts the other red-7 on it: read surely, looking new
    s.referee.on_reading(s.looks.pile(pile_reading(3, "red-7"), s.look()))
    s.referee.run_pending()
    s.bus.join()
    assert s.asked[-1]["kind"] == "same-face", s.asked[-1]
    assert any(c["action"] and c["action"]["card"] == "red-7" for c in s.asked[-1]["choices"])
