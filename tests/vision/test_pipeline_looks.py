"""The pipeline gives the referee the reader's look memory: each reading the referee takes
carries how far each region's look moved from the look the referee remembers it by, so a card of
the same face put on the pile is told from the card that lay there."""

from __future__ import annotations

from companion.bus import EventBus
from companion.referee.table import Table
from vision.pipeline import Pipeline

CLASSIC = {"setup": {"game": "classic", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                     "start": "red-5", "options": {"turn_seconds": 0}}}


class _RedFive:
    """A classifier that reads every card as a red-5: only the look tells a new card."""

    def classify_many(self, cards):
        return [{"red-5": 1.0} for _ in cards]


def _frames():
    """The table on red-5, still; then ann's arm from the south putting another card on the
    pile, a little apart; then the table still again."""
    from simulator.render import SyntheticTable
    from simulator.scene import Arm, Placement, Scene
    from simulator.script import arm_at

    table = SyntheticTable(640, 480, seed=2)
    before = Scene(discard=(Placement("red-5", face_set="classic"),), draw_count=40)
    after = Scene(discard=before.discard + (Placement("red-9", 3.0, -2.0, 8.0, "classic"),),
                  draw_count=40)
    arm = Arm("south", (463.0, 368.0), seat="ann")
    beat = []
    for k in range(13):
        t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5
        shown = after if k >= 6 else before
        beat.append(shown.with_arms(arm_at(arm, t)) if t > 0 else shown)
    return [table.render(s) for s in [before] * 20 + beat + [after] * 20]


def test_a_card_of_the_same_face_put_on_the_pile_is_asked_through_the_pipeline():
    bus = EventBus()
    asked = []
    bus.subscribe(lambda m: asked.append(m.data), {"confirm-needed"})
    table = Table(CLASSIC, bus, clock=lambda: 0.0)
    pipeline = Pipeline.build(None, table, bus, classifier=_RedFive(), exact=True)
    for n, image in enumerate(_frames()):
        pipeline.process(image, t=n / 30)
        pipeline.tick()
    pipeline.close()
    # every card reads red-5: only the look, far from the red-5 the referee remembered, says
    # that a card was put down
    assert [(q["kind"], q["card"]) for q in asked] == [("same-face", "red-5")]
    assert pipeline.reader is not None and pipeline.reader.looks is pipeline.referee.looks
