"""Frame sources: folder, video file (OpenCV), synthetic, and a camera that fails: any error is
``camera lost`` with a reason (once), with backoff and hysteresis; a video that ends says so; a
reopened folder resumes where it was."""

from __future__ import annotations

import cv2
import logging

import numpy as np
import pytest

from companion.bus import EventBus
from simulator.source import open_source
from vision import sources as vision_sources
from vision.sources import (CameraLost, Frame, FolderSource, FrameSource, OpenCVSource,
                            ResilientSource)


def test_folder_source_in_name_order(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), i * 50, np.uint8))
    frames = list(FolderSource(tmp_path, fps=10))
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 50, 100]
    assert frames[1].time == pytest.approx(0.1)


def test_video_file_round_trip_with_times(tmp_path):
    from app.commands.record import record

    out = str(tmp_path / "t.avi")
    src = open_source("synthetic", width=160, height=90, fps=30)  # frames 1/30 s apart
    n = record(src, out, seconds=0.3, fps=30)
    assert n >= 9
    frames = list(OpenCVSource(out))
    assert len(frames) == n and frames[0].image.shape == (90, 160, 3)
    assert frames[3].time == pytest.approx(3 / 30, abs=1e-3)


def test_unknown_spec_is_refused():
    with pytest.raises(ValueError):
        open_source("webcam:3")


def test_vision_alone_has_no_synthetic_table():
    # the synthetic table lives in the simulator, above vision: vision refuses it by name
    with pytest.raises(ValueError):
        vision_sources.open_source("synthetic")


def test_missing_video_is_camera_lost(tmp_path):
    with pytest.raises(CameraLost):
        OpenCVSource(str(tmp_path / "none.avi"))


class Flaky(FrameSource):
    def __init__(self, fail_after):
        self.n = 0
        self.fail_after = fail_after

    def read(self):
        self.n += 1
        if self.n > self.fail_after:
            raise CameraLost("unplugged")
        return Frame(np.zeros((2, 2, 3), np.uint8), float(self.n), self.n)


def test_lost_camera_is_announced_and_retried():
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append, {"camera"})
    opened = []

    def open_fn():
        opened.append(1)
        return Flaky(fail_after=2 if len(opened) == 1 else 10)

    src = ResilientSource(open_fn, bus, sleep=lambda s: None, lost_after=1, ok_after=1)
    frames = [src.read() for _ in range(5)]
    assert all(f is not None for f in frames)
    bus.join()
    assert [m.data["status"] for m in seen] == ["lost", "ok"]
    assert len(opened) == 2


# --- every fault said, once ----------------------------------------------------------------------

class Script(FrameSource):
    """A source that reads a script: "f" a frame, "x" an error of ``error``'s kind, "e" the end."""

    name = "script"

    def __init__(self, script, error=None, finite=False):
        self.script = iter(script)
        self.error = CameraLost("unplugged") if error is None else error
        self.finite = finite
        self.reads = 0

    def read(self):
        self.reads += 1
        step = next(self.script, "e" if self.finite else "x")
        if step == "x":
            raise self.error
        if step == "e":
            return None
        return Frame(np.zeros((2, 2, 3), np.uint8), float(self.reads), self.reads)


def _resilient(script, **kwargs):
    """A ResilientSource over one shared script (reopening goes on in it), and what it said."""
    bus, said, sleeps = EventBus(), [], []
    bus.subscribe(lambda m: said.append(m.data), {"camera"})
    shared = Script(script, **{k: kwargs.pop(k) for k in ("error", "finite") if k in kwargs})
    src = ResilientSource(lambda: shared, bus, sleep=sleeps.append, **kwargs)
    return src, said, sleeps


@pytest.mark.parametrize("error", [RuntimeError("driver crashed"), cv2.error("bad frame"),
                                   OSError(5, "Input/output error")])
def test_any_source_error_is_camera_lost_with_its_reason_said_once(error, caplog):
    src, said, _ = _resilient("ff" + "x" * 20 + "f" * 10, error=error, lost_after=3, ok_after=5)
    with caplog.at_level(logging.DEBUG, logger="vision.sources"):
        frames = [src.read() for _ in range(12)]
    assert all(f is not None for f in frames)
    assert [d["status"] for d in said] == ["lost", "ok"]
    assert type(error).__name__ in said[0]["reason"]
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage().split(":")[0] for r in warnings] == ["camera lost", "camera back"]
    assert not any(r.exc_info for r in caplog.records), "no traceback"


def test_a_glitch_shorter_than_lost_after_is_not_a_loss():
    src, said, _ = _resilient("ffxxffxxff", lost_after=3)
    assert all(src.read() is not None for _ in range(6))
    assert said == []


def test_a_flaky_source_does_not_flap_lost_and_ok():
    # Lost for good after three failures in a row, then one good frame in every two: never
    # five good ones in a row, so it stays lost (one event, one tune), not lost/ok each second.
    src, said, _ = _resilient("fff" + "xxx" + "fx" * 40, lost_after=3, ok_after=5)
    assert all(src.read() is not None for _ in range(40))
    assert [d["status"] for d in said] == ["lost"]


def test_ok_only_after_ok_after_good_frames_in_a_row():
    src, said, _ = _resilient("xxx" + "ffff" + "x" + "fffff" + "f", lost_after=3, ok_after=5)
    for _ in range(4):
        src.read()
    assert [d["status"] for d in said] == ["lost"]  # four good frames: not yet
    for _ in range(5):
        src.read()
    assert [d["status"] for d in said] == ["lost", "ok"]


def test_retries_back_off_up_to_the_limit():
    src, said, sleeps = _resilient("x" * 7 + "f", retry_s=1.0, max_retry_s=15.0)
    src.read()
    assert sleeps == [1, 2, 4, 8, 15, 15, 15]


def test_a_video_that_ends_says_so_once():
    src, said, _ = _resilient("fff", finite=True)
    assert [src.read() is not None for _ in range(5)] == [True, True, True, False, False]
    assert said == [{"status": "ended", "source": "script",
                     "reason": "the script source has no more frames"}]
    assert src.status == "ended"


def test_a_reopened_folder_resumes_where_it_was(tmp_path):
    for i in range(6):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), i * 40, np.uint8))
    (tmp_path / "f2.png").write_bytes(b"not a picture")  # a read fails there: reopened
    opened = []

    def open_fn():
        opened.append(FolderSource(tmp_path, fps=10))
        return opened[-1]

    src = ResilientSource(open_fn, sleep=lambda s: None)
    frames = []
    while len(frames) < 10 and (frame := src.read()) is not None:
        frames.append(frame.index)
    assert len(opened) == 2
    assert frames == [0, 1, 3, 4, 5]  # not back to 0 after the reopen; the bad image skipped


def test_the_end_of_a_video_file_is_said_as_such(tmp_path):
    from app.commands.record import record

    out = str(tmp_path / "t.avi")
    n = record(open_source("synthetic", width=160, height=90), out, seconds=0.2, fps=30)
    bus, said = EventBus(), []
    bus.subscribe(lambda m: said.append(m.data), {"camera"})
    src = ResilientSource(lambda: OpenCVSource(out), bus, sleep=lambda s: None)
    assert sum(1 for _ in src) == n
    assert src.read() is None
    assert said == [{"status": "ended", "source": "opencv", "reason": "the video ended"}]
