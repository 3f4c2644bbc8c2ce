"""The synthetic table as a frame source, beside the real ones of :mod:`vision.sources`.

>>> src = open_source("synthetic", width=320, height=180)
>>> frame = next(iter(src)); frame.image.shape
(180, 320, 3)
>>> src.close()
"""

from __future__ import annotations

from vision import sources
from vision.sources import Frame, FrameSource

from .render import SyntheticTable
from .scene import Scene

__all__ = ["SyntheticSource", "open_source"]


class SyntheticSource(FrameSource):
    """Frames of the synthetic table: a scripted game (``script``, see
    :mod:`simulator.script`), or a still table when there is none."""

    name = "synthetic"

    def __init__(self, width: int = 1280, height: int = 720, fps: float = 30.0, script=None,
                 seed: int = 0, loop: bool = True, still_scale: float = 2.0):
        self.table = SyntheticTable(width, height, seed=seed)
        #: :meth:`still` is this many times as wide and high as a frame
        self.still_scale = still_scale
        self._sharp: SyntheticTable | None = None
        self.fps = fps
        self.script = script
        self.loop = loop
        self.finite = script is not None and not loop
        self._scene = Scene()
        self._index = 0
        self._steps = iter(script.frames()) if script is not None else None

    def read(self) -> Frame | None:
        if self._steps is None:
            scene = self._scene
        else:
            step = next(self._steps, None)
            if step is None:
                if not self.loop:
                    return None
                self._steps = iter(self.script.frames())
                step = next(self._steps)
            scene = step.scene
            if step.pose is not None:
                self.table.pose = step.pose
            if step.lighting is not None:
                self.table.lighting = step.lighting
        self._scene = scene
        i = self._index
        self._index += 1
        return Frame(self.table.render(scene), i / self.fps, i)

    def still(self) -> Frame:
        """The table as the last frame showed it, :attr:`still_scale` times as wide and high
        (:meth:`simulator.render.SyntheticTable.sharper`), as a camera's full-resolution still."""
        if self._sharp is None:
            self._sharp = self.table.sharper(self.still_scale)
        self._sharp.follow(self.table)
        i = max(0, self._index - 1)
        return Frame(self._sharp.render(self._scene), i / self.fps, i)


def open_source(spec: str = "auto", *, width: int = 1280, height: int = 720, fps: int = 15,
                script=None) -> FrameSource:
    """:func:`vision.sources.open_source`, with the synthetic table for ``synthetic`` (at
    ``fps`` frames a second of the table's time). ``auto`` is only ever the Pi camera: where
    there is none it is refused (:class:`vision.sources.CameraLost`), never quietly the
    synthetic table."""
    return sources.open_source(spec, width=width, height=height, fps=fps,
                               synthetic=lambda: SyntheticSource(width, height, fps=fps, script=script))
