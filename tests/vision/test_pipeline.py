"""The camera's pipeline (vision.pipeline.Pipeline): frames through the table reader and the
camera referee for one table and bus, with the people at the table acting between frames."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import numpy as np
import pytest

from companion.bus import EventBus
from companion.deal import deal_grid, opening_card
from companion.referee.table import Table
from companion.tuning import default
from vision.pipeline import Pipeline
from vision.sources import Frame, FrameSource

GRID_SETUP = {"setup": {"game": "grid", "seats": ["north", "south"], "first": "north",
                        "grid": deal_grid(random.Random(1)), "options": {"turn_seconds": 0}}}
FLIP_SETUP = {"setup": {"game": "flip", "seats": ["ann", "ben"], "dealer": "ben",
                        "start": opening_card(random.Random(1), "flip")}}


class Frames(FrameSource):
    """``n`` black frames, 10 a second; counts the times it was told to let exposure settle."""

    finite = True

    def __init__(self, n: int = 3):
        self.n = n
        self.read_count = 0
        self.relocks = 0

    def read(self):
        if self.read_count >= self.n:
            return None
        i = self.read_count
        self.read_count += 1
        return Frame(np.zeros((72, 128, 3), np.uint8), i / 10, i)

    def relock(self) -> None:
        self.relocks += 1


class Reader:
    """A table reader that reads nothing: it records what it was given."""

    def __init__(self, game: str):
        self.game = game
        self.view = None
        self.seen: list[float | None] = []
        self.forgotten = 0

    def process(self, image, t=None):
        self.seen.append(t)
        return SimpleNamespace(reading=None, state="quiet", ms=0.1)

    def forget(self) -> None:
        self.forgotten += 1


class Watcher:
    """A player who writes down when they were called, and what the reader had seen then."""

    def __init__(self, log: list, name: str):
        self.log, self.name = log, name

    def before(self, pipeline, frame) -> None:
        self.log.append((self.name, "before", frame.index, len(pipeline.reader.seen)))

    def after(self, pipeline, frame, report) -> None:
        self.log.append((self.name, "after", frame.index, len(pipeline.reader.seen)))


def test_the_referee_commits_by_the_tunings_ratio():
    bus = EventBus()
    tuning = default().replace(referee={"commit_ratio": 50.0})
    pipeline = Pipeline.build(None, None, bus, tuning=tuning)
    assert pipeline.referee.commit_gain == pytest.approx(math.log(50.0))
    plain = Pipeline.build(None, None, bus)
    assert plain.referee.commit_gain == pytest.approx(math.log(default().referee.commit_ratio))
    pipeline.close()
    plain.close()


def test_nothing_is_read_while_no_match_is_played():
    table = {"now": None}
    pipeline = Pipeline.build(None, lambda: table["now"], EventBus())
    assert pipeline.process(np.zeros((72, 128, 3), np.uint8)) is None
    assert pipeline.reader is None and pipeline.frames == 0
    pipeline.close()


def test_players_act_before_each_frame_is_read_and_after_the_referee_took_it():
    bus = EventBus()
    table = Table(GRID_SETUP, bus, clock=lambda: 0.0)
    log: list = []
    source = Frames(2)
    pipeline = Pipeline.build(source, table, bus, reader=Reader("grid"),
                              players=(Watcher(log, "a"), Watcher(log, "b")), exact=True)
    assert pipeline.run() == 2
    assert log == [("a", "before", 0, 0), ("b", "before", 0, 0), ("a", "after", 0, 1), ("b", "after", 0, 1),
                   ("a", "before", 1, 1), ("b", "before", 1, 1), ("a", "after", 1, 2), ("b", "after", 1, 2)]
    assert pipeline.reader.seen == [0.0, 0.1]  # each frame read at its own time
    assert pipeline.step() is None and pipeline.frames == 2
    pipeline.close()


def test_a_new_layout_is_read_afresh_and_the_camera_settles_again():
    bus = EventBus()
    table = Table(GRID_SETUP, bus, clock=lambda: 0.0)
    source = Frames(3)
    reader = Reader("grid")
    pipeline = Pipeline.build(source, table, bus, reader=reader, exact=True)
    pipeline.step()
    assert (reader.forgotten, source.relocks) == (0, 0)
    bus.publish("round")
    pipeline.sync()
    pipeline.step()
    assert (reader.forgotten, source.relocks) == (1, 1)
    pipeline.step()
    assert (reader.forgotten, source.relocks) == (1, 1)  # once
    pipeline.close()


def test_a_reader_can_keep_its_picture_across_a_new_layout():
    bus = EventBus()
    table = Table(GRID_SETUP, bus, clock=lambda: 0.0)
    reader = Reader("grid")
    pipeline = Pipeline.build(Frames(2), table, bus, reader=reader, exact=True, reread_new_layouts=False)
    pipeline.step()
    bus.publish("match-started")
    pipeline.sync()
    pipeline.step()
    assert reader.forgotten == 0
    pipeline.close()


def test_another_game_gets_a_reader_of_its_own():
    bus = EventBus()
    tables = {"now": Table(GRID_SETUP, bus, clock=lambda: 0.0)}
    source = Frames(2)
    made = []
    flip_cards = object()  # what reads the cards of Flip

    def classifier_for(game):
        made.append(game)
        return flip_cards

    pipeline = Pipeline.build(source, lambda: tables["now"], bus, reader=Reader("grid"),
                              classifier_for=classifier_for)
    pipeline.step()
    tables["now"] = Table(FLIP_SETUP, bus, clock=lambda: 0.0)
    pipeline.step()
    assert made == ["flip"] and source.relocks == 1
    assert pipeline.reader.game == "flip" and pipeline.reader.classifier is flip_cards
    assert pipeline.last_report is not None and pipeline.frames == 2
    pipeline.close()


@pytest.mark.slow
def test_a_scripted_game_goes_through_the_pipeline_with_another_tuning():
    # a ratio no evidence can reach: every camera action is asked about, and answered
    from simulator.script import GridScript, run_script

    script = GridScript(3, seed=1)
    plain = run_script(script, width=1280, height=720)
    strict = run_script(GridScript(3, seed=1), width=1280, height=720,
                        tuning=default().replace(referee={"commit_ratio": 1e30}))
    assert plain.exact and strict.exact
    camera = sum(1 for b in script.beats if b.by_camera and b.action is not None)
    assert plain.questions == 0
    assert strict.questions >= camera and strict.answered >= camera


def test_the_reader_the_pipeline_makes_gets_the_tunings_reader_thresholds(monkeypatch):
    import vision.table_reader as table_reader

    made: list = []
    real = table_reader.TableReader

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            made.append(kwargs.get("tuning"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(table_reader, "TableReader", Spy)
    bus = EventBus()
    table = Table(GRID_SETUP, bus, clock=lambda: 0.0)
    tuning = default().replace(reader={"held_hand_frames": 99})
    pipeline = Pipeline.build(None, table, bus, tuning=tuning)
    pipeline.process(np.zeros((72, 128, 3), np.uint8), 0.0)
    assert made and made[-1].reader.held_hand_frames == 99
    pipeline.close()
