"""The status LED says why the camera is lost: one long blue blink when no camera is
found, three short ones when another program holds it, the double blink when it hangs."""

from __future__ import annotations

from hardware.patterns import BLUE, CAMERA_BUSY, CAMERA_MISSING
from tests.support.pins import ST_B, ST_G, notes_of


def blinks(loop) -> int:
    return sum(1 for value, _ in loop.steps if value == BLUE)


def test_not_found_is_one_long_blue_blink(rig):
    rig.send("camera", status="lost", cause="missing", reason="no camera found")
    assert rig.freqs() == notes_of("camera-lost")
    rig.reset()
    rig.advance(4.0 - rig.clock.now())
    assert rig.states(ST_B) == [1, 0, 1, 0, 1]  # on 1 s, off 1 s, from the loss at 0 s
    snap = rig.signals.snapshot()["status"]
    assert snap["mode"] == "camera-lost" and snap["camera"] == "missing"
    assert snap["showing"] == "camera-missing" and blinks(CAMERA_MISSING) == 1


def test_busy_is_three_short_blue_blinks_and_a_new_cause_changes_the_pattern(rig):
    rig.send("camera", status="lost", cause="busy")
    snap = rig.signals.snapshot()["status"]
    assert snap["camera"] == "busy" and snap["showing"] == "camera-busy"
    assert blinks(CAMERA_BUSY) == 3
    rig.send("camera", status="lost", cause="hung")  # still lost, now hanging: no new tune
    assert rig.freqs() == notes_of("camera-lost")
    snap = rig.signals.snapshot()["status"]
    assert snap["camera"] == "hung" and snap["showing"] == "camera-lost"
    rig.send("camera", status="ok")
    assert rig.signals.snapshot()["status"]["camera"] is None
    assert rig.states(ST_G)[-1] != 0
