"""The camera referee decides by one tuning value: the product's (companion/tuning.toml) unless
it is given another, and the old keyword thresholds still stand for the tuning's."""

from __future__ import annotations

import math

from companion.bus import EventBus
from companion.referee.camera import CameraReferee, DecisionKind, QuestionKind
from companion.referee.table import Table
from companion.tuning import default
from tests.support.referee_rig import CLASSIC_SETUP, GRID_SETUP, grid_reading, pile_reading


def _referee(setup, **kw):
    bus = EventBus()
    table = Table(setup, bus, clock=lambda: 0.0)
    return table, CameraReferee(lambda: table, bus, **kw)


def test_without_a_tuning_the_referee_uses_the_products():
    _, referee = _referee(GRID_SETUP)
    assert referee.tuning == default().referee
    assert referee.commit_gain == math.log(default().referee.commit_ratio)
    assert referee.margin == math.log(default().referee.margin_ratio)


def test_the_old_keywords_stand_for_the_tunings_fields():
    _, referee = _referee(GRID_SETUP, commit_ratio=20.0, illegal_confidence=0.99)
    assert (referee.tuning.commit_ratio, referee.tuning.illegal_confidence) == (20.0, 0.99)
    assert referee.tuning.margin_ratio == default().referee.margin_ratio


def _play_red_8_at_0_0(referee):
    referee.on_reading(grid_reading())
    return referee.on_reading(grid_reading(seq=2, changed=("cell-0-0",), probs={
        "cell-0-0": {"red-8": 0.95, "red-1": 0.04, "red-0": 0.01}}))


def test_a_clear_play_is_committed_with_the_products_tuning_and_asked_with_a_stricter_one():
    table, referee = _referee(GRID_SETUP)
    assert [d.kind for d in _play_red_8_at_0_0(referee)] == [DecisionKind.COMMIT]
    assert table.state_json()["grid"][0][0] == "red-8"
    strict = default().replace(referee={"commit_ratio": 1e6})
    table, referee = _referee(GRID_SETUP, tuning=strict)
    assert [d.kind for d in _play_red_8_at_0_0(referee)] == [DecisionKind.ASK]
    assert table.state_json()["grid"][0][0] == "red-1" and referee.question is not None


def test_the_colour_wait_comes_from_the_tuning():
    table, referee = _referee(CLASSIC_SETUP, tuning=default().replace(referee={"colour_wait_s": 1.0}))
    now = [100.0]
    referee.clock = lambda: now[0]
    referee.on_reading(pile_reading(1, {"red-5": 0.999}))
    referee.on_reading(pile_reading(2, {"wild": 0.999}))
    now[0] += 0.9
    referee.tick()
    assert referee.question is None
    now[0] += 0.1
    referee.tick()
    assert referee.question is not None and referee.question.kind is QuestionKind.COLOUR


def test_every_referee_threshold_is_in_the_file_with_its_unit():
    from companion.tuning import describe
    names = {d["name"] for d in describe() if d["section"] == "referee"}
    assert {"commit_ratio", "margin_ratio", "illegal_confidence", "named_confidence", "pawn_ratio",
            "unsure_choices", "colour_wait_s", "same_face_look", "nudged_same_face_look",
            "new_face_look"} <= names
