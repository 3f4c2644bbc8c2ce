"""The table reader's stages: each a small object that owns its own state.

:class:`vision.table_reader.TableReader` passes every frame through them:

* :class:`Calibrate` (:mod:`.calibrate`): the camera's view of the mat, and a nudge caught;
* :class:`Changes` (:mod:`.changes`): what changed since each region was read, and whether the
  frame is worth reading (motion, hands over the band, light);
* :class:`Arms` (:mod:`.arms`): the arms over the table and their reaches;
* :class:`ReadRegions` (:mod:`.read_regions`): the regions that need it, warped top-down, the
  card found (:mod:`.locate`) and classified, through the camera's smear too (:mod:`.sharpen`);
  :class:`PawnWatch` (:mod:`.pawn`) the pawn;
* :class:`Vote` (:mod:`.vote`): steady readings over frames, and the table's reading.

Every threshold that trades one mistake for another comes from the ``[reader]`` tuning
(:class:`companion.tuning.ReaderTuning`). A :class:`Frame` carries one frame and its grey.
"""

from .arms import Arms
from .calibrate import Calibrate
from .changes import Changes
from .frame import Frame
from .locate import locate_card, placed_card
from .pawn import PawnWatch
from .read_regions import ReadRegions
from .sharpen import unsmeared
from .vote import READING_LABELS, Vote

__all__ = ["Arms", "Calibrate", "Changes", "Frame", "PawnWatch", "READING_LABELS", "ReadRegions",
           "Vote", "locate_card", "placed_card", "unsmeared"]
