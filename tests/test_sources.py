"""Frame sources: folder, video file (OpenCV), synthetic, and a camera that disappears."""

from __future__ import annotations

import cv2
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
    src = open_source("synthetic", width=160, height=90)
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

    src = ResilientSource(open_fn, bus, sleep=lambda s: None)
    frames = [src.read() for _ in range(5)]
    assert all(f is not None for f in frames)
    bus.join()
    assert [m.data["status"] for m in seen] == ["lost", "ok"]
    assert len(opened) == 2
