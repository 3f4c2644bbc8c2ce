"""The camera wired into a running companion: CameraWorker, the demo's physical table, a
missing or vanishing camera, and the table's answers (web, confirm button)."""

from __future__ import annotations

import logging
import random
import threading
import time

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.config import load_config
from simulator.bots import Bot
from companion.host import Host
from app.runner import CameraWorker, Companion, TableLoop, demo_setup
from vision.sources import CameraLost, Frame, FrameSource
from simulator.demo_players import DemoPlayers
from simulator.demo_table import DemoTable
from tests.support.readings import GRID, SETUP, reading, with_cell


def _grid_host() -> Host:
    host = Host(mode="referee")
    host.start_match(demo_setup("grid", random.Random(3), {"turn_seconds": 0}))
    return host


class _Dies(FrameSource):
    name = "dies"

    def read(self):
        raise CameraLost("unplugged")


def test_a_camera_that_disappears_gives_lost_events_and_never_raises():
    host = _grid_host()
    seen = []
    host.bus.subscribe(lambda m: seen.append(m.data), {"camera"})
    opened = []

    def reopen():
        opened.append(1)
        if len(opened) > 2:
            raise CameraLost("still unplugged")
        return _Dies()

    worker = CameraWorker(host, reopen, first=_Dies(), retry_s=0.01)
    worker.source.max_retry_s = 0.02
    worker.start()
    try:
        for _ in range(200):
            if len(opened) >= 3:
                break
            worker._stop.wait(0.01)
    finally:
        worker.stop()
    assert seen and seen[0]["status"] == "lost" and "unplugged" in seen[0]["reason"]
    assert len([s for s in seen if s["status"] == "lost"]) == 1  # said once



class _DriverFails(FrameSource):
    name = "driver"

    def read(self):
        raise RuntimeError("VIDIOC_DQBUF: No such device")


def test_any_camera_error_is_camera_lost_once_without_tracebacks(caplog):
    host = _grid_host()
    lost = threading.Event()
    seen = []
    host.bus.subscribe(lambda m: (seen.append(m.data), lost.set()), {"camera"})
    worker = CameraWorker(host, _DriverFails, first=_DriverFails(), retry_s=0.001)
    worker.source.max_retry_s = 0.002
    with caplog.at_level(logging.DEBUG):
        worker.start()
        try:
            assert lost.wait(10), "no camera lost"
            worker._stop.wait(0.05)  # more failed reads after the loss
        finally:
            worker.stop()
    assert [d["status"] for d in seen] == ["lost"]
    assert "RuntimeError: VIDIOC_DQBUF" in seen[0]["reason"]
    assert not [r for r in caplog.records if r.exc_info], "no traceback"


class _Frames(FrameSource):
    """``n`` frames, then it stops the worker that reads it."""

    def __init__(self, n, stop):
        self.n, self.stop = n, stop

    def read(self):
        self.n -= 1
        if self.n < 0:
            self.stop()
        return Frame(np.zeros((90, 160, 3), np.uint8), 0.0, 0)


def test_the_same_frame_error_again_and_again_is_logged_once(caplog):
    host = _grid_host()

    def classifier_for(game):
        raise ValueError("no model for this game")

    worker = CameraWorker(host, lambda: None, first=None, classifier_for=classifier_for)
    worker.source = _Frames(4, worker._stop.set)
    with caplog.at_level(logging.ERROR, logger="app.runner"):
        worker._run()  # in this thread, until the source has given its frames
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 1 and "no model" in str(tracebacks[0].exc_info[1])

@pytest.mark.slow
def test_the_worker_reads_frames_publishes_readings_and_a_frame_picture():
    host = _grid_host()
    table = DemoTable(host, 1280, 720, seed=1, realtime=False)
    worker = CameraWorker(host, lambda: table, first=table)
    for _ in range(24):  # a whole table is read a few regions a frame
        worker.process(table.read().image)
        if host.last_reading is not None:
            break
    assert host.last_reading is not None and host.last_reading["grid"]
    state = host.table.state_json()
    read = [[c["label"] for c in row] for row in host.last_reading["grid"]]
    pawn = tuple(state["pawn"])
    agree = sum(read[r][c] == state["grid"][r][c] for r in range(5) for c in range(5) if (r, c) != pawn)
    assert agree >= 23
    assert host.last_frame_jpeg[:2] == b"\xff\xd8"  # a JPEG
    # what the camera is doing is said beside the picture (the page translates it), not on it
    assert host.last_frame_view in ("moving", "hands", "settling", "reading", "quiet",
                                    "calibrating", "no-view")


def test_web_answers_close_the_question_without_playing_twice_and_the_button_confirms():
    host = _grid_host()
    worker = CameraWorker(host, lambda: None, first=None)
    calls = []
    worker.referee.answer = lambda index, by="phone", question_id=None, act=True: calls.append(
        (index, by, act, threading.current_thread().name))
    host.bus.publish("confirm-answer", seat="north", question="?", index=1,
                     choice={"id": 1, "label": "x", "action": {"by": "north", "do": "move", "to": [1, 1]}})
    host.bus.publish("confirm-answer", seat="south", question="?", index=2,
                     choice={"id": 2, "label": "nothing", "action": None})
    host.bus.join()
    # handed to the referee from the bus's thread (its answer only queues, for the camera's)
    assert calls == [(1, "north", False, "event-bus"), (2, "south", True, "event-bus")]


def test_another_card_from_the_web_closes_the_question_without_playing_it_again():
    host = _grid_host()
    worker = CameraWorker(host, lambda: None, first=None)
    calls = []
    worker.referee.answer_other = lambda card, by="phone", question_id=None, **kw: calls.append(
        (card, by, question_id, kw))
    worker.referee.answer = lambda *a, **kw: calls.append(("choice", a, kw))
    host.bus.publish("confirm-answer", seat="north", question=4, illegal=True,
                     other={"by": "north", "do": "play", "card": "blue-7", "cell": [1, 1]})
    host.bus.join()
    # the web checked and played it: the referee only closes its question (and knows the
    # rules refused it: an illegal attempt)
    assert calls == [("blue-7", "north", 4, {"color": None, "illegal": True, "act": False})]


def test_the_confirm_button_answers_the_open_question_on_the_camera_thread():
    host = Host(mode="referee")
    table = host.start_match(SETUP)
    worker = CameraWorker(host, lambda: None, first=None)
    assert worker.confirm() is None  # nothing asked
    # a play made before the camera's first look: asked, with that play offered first
    worker.referee.on_reading(reading(with_cell(GRID, 0, 0, "red-7"), changed=("cell-0-0",)))
    assert worker.referee.question is not None
    future = worker.confirm()  # the button's thread
    assert not future.done() and worker.referee.question is not None  # only queued
    worker.step()  # the camera thread handles it
    assert future.result(timeout=0).ok and worker.referee.question is None
    assert table.state_json()["grid"][0][0] == "red-7"


@pytest.mark.slow
def test_demo_bots_play_through_the_camera():
    """The bots' card plays and pawn moves are done on the synthetic table and read back."""
    host = _grid_host()
    table = DemoTable(host, 1280, 720, seed=2, realtime=False, tap_after_s=0.0)
    worker = CameraWorker(host, lambda: table, first=table)
    table.attach(worker.referee)
    players = DemoPlayers(host.bus, table, answer_after_s=0.0)
    players.attach(worker.referee)
    loop = TableLoop(host, bots=Bot(seed=5, illegal_rate=0.0), pace=0.0, hands=table, players=players)
    sources = []
    host.bus.subscribe(lambda m: sources.append((m.data["source"], m.data["action"]["do"])), {"action"})
    now = time.monotonic()
    for _ in range(140):
        now += 1.0
        loop.tick(now)
        worker.process(table.read().image)
        worker.step()
        host.bus.join()
        if sum(1 for s, _ in sources if s in ("camera", "confirm")) >= 3:
            break
    camera = [s for s in sources if s[0] in ("camera", "confirm")]
    assert len(camera) >= 3, sources
    assert not [s for s in sources if s[0] == "bot" and s[1] in ("play", "move", "discard")]


def test_the_terminal_survives_a_name_it_cannot_print(tmp_path):
    # a seat named with a lone surrogate once killed the terminal thread (its queue then grew
    # without bound); the line is shown escaped and the next ones still come
    import io
    import time as _time

    toml = tmp_path / "c.toml"
    toml.write_text('[table]\nmode = "timer"\n')
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # strict: a surrogate raises
    companion = Companion(load_config(toml), demo=False, pin_factory=MockFactory(pin_class=MockPWMPin),
                          log_path=tmp_path / "e.sqlite3", web=False, out=out)
    companion.host.bus.publish("refused", seat="b\udc80d", code="x")
    companion.host.bus.publish("refused", seat="after", code="y")
    deadline = _time.monotonic() + 10
    text = ""
    while _time.monotonic() < deadline and "after" not in text:
        companion.host.bus.join()
        _time.sleep(0.05)
        out.flush()
        text = out.buffer.getvalue().decode("utf-8", "replace")
    assert "b\\udc80d" in text and "after" in text
