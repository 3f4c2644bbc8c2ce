"""Arms over the table in dim light: the arm tracker's threshold follows the light's contrast
(the corner markers' black against their white), so an arm reaching over pale cards in dim,
flat light is still seen to where its hand went (the torture's dim light: hands over white and
yellow cards differed from them by less than the good light's threshold, the arms seemed to
end a card or two short, and the same face played on a card was never asked about)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simulator.conditions import low_contrast
from simulator.render import Lighting, SyntheticTable
from simulator.scene import Arm, Placement, Scene
from simulator.script import arm_at
from vision.geometry import Layout
from companion.reading import Reach
from vision.reaches import LEAST_CONTRAST_SHARE, ArmTracker, percentile_spread
from vision.table_reader import TableReader

L = Layout()
W, H = 480, 270
PALE = ("yellow-3", "yellow-7", "yellow-1", "yellow-5", "yellow-9")


class _OneLabel:
    """Every card a yellow 3: the reaches do not depend on the faces."""

    def classify_many(self, cards):
        return [{"yellow-3": 1.0} for _ in cards]


def _grid(top: str = "yellow-3") -> Scene:
    cells = [(Placement(PALE[(r + c) % 5], face_set="classic"),) for r in range(5) for c in range(5)]
    cells[3 * 5 + 4] = cells[3 * 5 + 4] + (Placement(top, 2.0, -3.0, 4.0, "classic"),)
    return Scene(grid=tuple(cells), pawn=L.cell_center(0, 0), draw_count=40)


def _reaches(lighting: Lighting, dim: bool, seed: int = 4) -> tuple:
    """North's arm puts a yellow-3 on (3, 4), down the pale column, as the scripts move arms:
    every reach the reader handed out, and the arm tracker's threshold."""
    table = SyntheticTable(W, H, seed=seed)
    table.lighting = lighting
    reader = TableReader("grid", view=table.view, classifier=_OneLabel())
    before = _grid()
    before = Scene(grid=before.grid[:19] + (before.grid[19][:1],) + before.grid[20:],
                   pawn=before.pawn, draw_count=40)
    after = _grid()
    arm = Arm("north", L.cell_center(3, 4), skin=2, holds="yellow-3")
    frames = [before] * 8
    for k in range(23):
        t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5 if k < 13 else 0.0
        shown = after if k >= 6 else before
        frames.append(shown.with_arms(arm_at(arm, t)) if t > 0 else shown)
    frames += [after] * 8
    got = []
    for n, scene in enumerate(frames):
        image = table.render(scene)
        if dim:
            image = low_contrast(image, n, None)
        report = reader.process(image, t=n / 30)
        if report.reading is not None:
            got += list(report.reading.reaches)
    return tuple(got) + tuple(r for _, r in reader.flush_reaches())


DIM = Lighting(gain=0.55, slope=0.3)


@pytest.mark.parametrize("lighting, dim", [(Lighting(), False), (DIM, True)])
def test_an_arm_over_pale_cards_is_seen_to_the_card_it_put_down(lighting, dim):
    reaches = _reaches(lighting, dim)
    assert [r.side for r in reaches] == ["north"]
    assert reaches[0].regions[-1] == "cell-3-4"


def _threshold(lighting: Lighting, dim: bool, markers: bool = True) -> float:
    """The arm tracker's threshold over the bare grid in this light."""
    table = SyntheticTable(W, H, seed=4, markers=markers)
    table.lighting = lighting
    image = table.render(_grid())
    if dim:
        image = low_contrast(image, 0, None)
    det = TableReader("grid", view=table.view, classifier=_OneLabel()).detector
    tracker = ArmTracker(table.view, L, det.boxes, det.scale, det.small_size)
    tracker.still = det.small(image)
    return tracker.arm_threshold


def test_the_threshold_follows_the_light_and_stays_above_the_noise():
    good = _threshold(Lighting(), False)
    assert good == 12.0  # (good light: as it always was)
    dim = _threshold(DIM, True)
    assert 12.0 * LEAST_CONTRAST_SHARE <= dim < 0.5 * good
    assert _threshold(DIM, True, markers=False) == 12.0  # no markers: nothing to measure by


def test_an_arm_the_change_detector_misses_after_a_long_quiet_is_followed_not_taken_for_the_table():
    """The change detector's motion threshold is fixed: in dim light an arm coming in can stay
    under it, and the tracker's frames look quiet. The tracker measures motion by its own
    threshold, which follows the light: after more than a second of quiet table (when whatever
    lies on the edge becomes the table, ``SETTLED_FRAMES``), two plays from the north are still
    two reaches, and no arm is left over the table once they went (once the first arm was taken
    into the still table, its shape stayed as an arm and swallowed the second)."""
    from simulator.script import arm_at
    from vision.reaches import SETTLED_FRAMES
    from vision.stabilise import FrameChange

    table = SyntheticTable(W, H, seed=4)
    table.lighting = DIM
    det = TableReader("classic", view=table.view, classifier=_OneLabel()).detector
    tracker = ArmTracker(table.view, L, det.boxes, det.scale, det.small_size)
    pile = (Placement("yellow-5", face_set="classic"),)
    scene = Scene(discard=pile, draw_count=40)
    frames = [scene] * (SETTLED_FRAMES + 10)
    for card in ("yellow-3", "yellow-7"):
        after = Scene(discard=scene.discard + (Placement(card, 2.0, -3.0, 4.0, "classic"),), draw_count=40)
        arm = Arm("north", L.discard_pile, skin=2, holds=card)
        for k in range(23):
            t = (k + 1) / 5 if k < 5 else 1.0 if k < 8 else 1 - (k - 7) / 5 if k < 13 else 0.0
            shown = after if k >= 6 else scene
            frames.append(shown.with_arms(arm_at(arm, t)) if t > 0 else shown)
        scene = after
    frames += [scene] * 8
    quiet = FrameChange(motion={}, change={}, moving=False, hands=False)   # the detector saw nothing
    for n, shown in enumerate(frames):
        tracker.update(det.small(low_contrast(table.render(shown), n, None)), quiet, n)
    assert tracker.arms == []
    assert [reach for _, reach in tracker.take(force=True)] == [Reach("north", ("discard",), 0)] * 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 255, width=32), min_size=1, max_size=400), st.booleans())
def test_the_markers_spread_is_numpys_percentiles_to_the_bit(values, whole):
    """The light is measured on the markers' pixels as numpy's percentiles measure them (the
    tracker's own partition, for speed): the same threshold, so the same arms."""
    v = np.array(values, np.float32)
    if whole:
        v = np.round(v)
    assert percentile_spread(v) == float(np.subtract(*np.percentile(v, [95, 5])))
