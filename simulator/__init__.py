"""The synthetic table: the overhead camera's view of any table state, for the demo, the tests
and the benchmarks when there is no camera. See :mod:`.render` (drawing), :mod:`.scene` (what
lies on the table) and :mod:`.script` (scripted games as timelines of frames and actions)."""

from .render import CameraPose, Lighting, SyntheticTable
from .scene import Arm, Placement, Scene

__all__ = ["SyntheticTable", "CameraPose", "Lighting", "Scene", "Placement", "Arm"]
