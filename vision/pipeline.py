"""One camera's pipeline: frames in, through the table reader and the camera referee, to the table.

Every camera of the product is wired here, once: the real one (``companion run``, in
:class:`app.runner.CameraWorker`), the demo's synthetic table (``companion demo``) and the
scripted runs of the simulator (:func:`simulator.script.run_script`, the benchmarks).

>>> from companion.bus import EventBus
>>> pipeline = Pipeline.build(None, None, EventBus())
>>> pipeline.referee.has_baseline, pipeline.reader
(False, None)
>>> pipeline.close()

:meth:`Pipeline.build` makes the :class:`~companion.referee.camera.CameraReferee` for the table
(a :class:`~companion.referee.table.Table`, or what returns the current one) and the event bus,
with the thresholds of a :class:`~companion.tuning.Tuning`. A :class:`~vision.table_reader.TableReader`
is made for the table's game at its first frame, and made again when another game is played; a
new layout on the table (a match started, the grid's next game, a new round) has it read the
table afresh (``reread_new_layouts``). Every reader keeps its looks in the pipeline's one
:class:`~vision.looks.LookMemory` (:attr:`Pipeline.looks`), the referee's ``looks``: it tells
the memory the look it remembers each region by, and each reading it takes carries the
distances from those; the referee compares no pixels.

:meth:`Pipeline.process` takes one image through the reader and the referee; :meth:`Pipeline.tick`
lets the referee handle what was queued to it and run its timers. :meth:`Pipeline.step` and
:meth:`Pipeline.run` do both for each frame of ``frames`` (a :class:`~vision.sources.FrameSource`),
with the people at the table (:class:`Player`) acting before each frame and after it.

``exact`` (scripted runs, tests) makes every step wait for the bus to deliver what it published
and the referee to take it in, so that a run is the same each time; live, the bus's thread and
the camera's go at their own pace.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol

if TYPE_CHECKING:
    from companion.bus import EventBus
    from companion.host import Host
    from companion.referee.camera import CameraReferee
    from companion.tuning import Tuning

    from .looks import LookMemory
    from .sources import Frame
    from .table_reader import FrameReport, TableReader

__all__ = ["Pipeline", "Player"]


class Player(Protocol):
    """Someone at the table, seen by the camera: what they do between the frames.

    :meth:`before` is called with each frame before the camera takes it (a phone's tap),
    :meth:`after` once the reader and the referee have taken it (answering the referee's open
    question: :attr:`Pipeline.referee`'s ``question``)."""

    def before(self, pipeline: "Pipeline", frame: "Frame") -> None: ...

    def after(self, pipeline: "Pipeline", frame: "Frame", report: "FrameReport | None") -> None: ...


class Pipeline:
    """A frame source, the table reader and the camera referee for one table and bus.

    Build it with :meth:`build`. :attr:`referee` is the camera referee; :attr:`reader` the
    reader of the game being played (None before the first frame of a match);
    :attr:`last_report` the reader's report on the last frame; :attr:`frames` how many frames
    it processed.
    """

    def __init__(self, frames, referee: "CameraReferee", bus: "EventBus", *,
                 table_of: Callable[[], Any], classifier_for: Callable[[str], Any],
                 reader: "TableReader | None" = None, players: Iterable[Player] = (),
                 exact: bool = False, reread_new_layouts: bool = True,
                 tuning: "Tuning | None" = None) -> None:
        from companion.referee.camera import NEW_LAYOUT

        from .looks import LookMemory

        self.source = frames
        self.referee = referee
        self.bus = bus
        self.table_of = table_of
        self.classifier_for = classifier_for
        self.reader: TableReader | None = reader
        #: the regions' looks of every reader of this pipeline, and those the referee remembers
        #: (a stand-in reader that keeps no looks gets a memory of its own)
        self.looks: LookMemory = getattr(reader, "looks", None) or LookMemory()
        referee.looks = self.looks
        self.players = tuple(players)
        self.exact = exact
        self.tuning = tuning  # the readers' thresholds (None: the reader's own default)
        self.last_report: FrameReport | None = None
        self.frames = 0
        self._forget = False  # set by the bus's thread: the next frame reads the table afresh
        self._unsubscribe = (bus.subscribe(self._on_layout, {"match-started", *NEW_LAYOUT})
                             if reread_new_layouts else (lambda: None))

    @classmethod
    def build(cls, frames, table, bus: "EventBus", *, host: "Host | None" = None,
              tuning: "Tuning | None" = None, clock: Callable[[], float] = time.monotonic,
              classifier=None, classifier_for: Callable[[str], Any] | None = None,
              reader: "TableReader | None" = None,
              witness: Callable[[tuple[str, ...]], str | None] | None = None,
              players: Iterable[Player] = (), exact: bool = False,
              reread_new_layouts: bool = True) -> "Pipeline":
        """The pipeline of the camera ``frames`` (a frame source, or None where the caller
        reads the frames itself and hands them to :meth:`process`) over ``table`` (a
        :class:`~companion.referee.table.Table`, or a callable that returns the current one,
        None between matches) and ``bus``.

        ``tuning`` (default: :func:`companion.tuning.default`) gives the referee's and the readers' thresholds;
        ``clock`` is the referee's; ``host`` is shown each reading; ``witness`` keeps the frames
        the referee decides on (see :class:`~companion.referee.camera.CameraReferee`). The
        reader of a game reads the cards with ``classifier_for(game)`` (default: ``classifier``,
        and where that is None the reader's own default); ``reader`` is the first reader (its
        game must be the table's). ``players`` act between the frames of :meth:`step`.
        ``reread_new_layouts`` False keeps the reader's picture of the table across a new
        layout (it then follows the new deal as changes)."""
        from companion.referee.camera import CameraReferee
        from companion.tuning import default

        tuning = tuning if tuning is not None else default()
        table_of = table if callable(table) else (lambda: table)
        referee = CameraReferee(table_of, bus, host=host, clock=clock, witness=witness,
                                tuning=tuning)
        if classifier_for is None:
            def classifier_for(game: str):
                return classifier
        return cls(frames, referee, bus, table_of=table_of, classifier_for=classifier_for,
                   reader=reader, players=players, exact=exact, reread_new_layouts=reread_new_layouts,
                   tuning=tuning)

    # --- the bus's thread: only a flag ---------------------------------------------------------

    def _on_layout(self, message) -> None:
        self._forget = True

    # --- the camera's thread --------------------------------------------------------------------

    def sync(self) -> None:
        """Wait until the bus delivered what was published, and let the referee take in what
        was queued to it (answers, events). Only where nothing else drives the bus (``exact``
        runs, tests)."""
        self.bus.join()
        self.referee.run_pending()

    def process(self, image, t: float | None = None) -> "FrameReport | None":
        """One image (taken at ``t``, seconds; None: the reader's clock) through the reader and
        the referee. Returns the reader's report, or None while no match is played (nothing is
        read then)."""
        table = self.table_of()
        if table is None:
            return None
        game = table.game.name
        fresh = True  # a new layout on the table: exposure and colours settle anew
        if self.reader is None or self.reader.game != game:
            from .table_reader import TableReader

            view = self.reader.view if self.reader is not None else None
            self.reader = TableReader(game, view=view, classifier=self.classifier_for(game),
                                      tuning=self.tuning, looks=self.looks)
        elif self._forget:
            self.reader.forget()
        else:
            fresh = False
        self._forget = False
        if fresh:
            relock = getattr(self.source, "relock", None)
            if relock is not None:
                relock()
        report = self.reader.process(image, t=t)
        self.frames += 1
        self.last_report = report
        if report.reading is not None:
            self.referee.on_reading(report.reading)
            if self.exact:
                self.sync()
        return report

    def tick(self) -> None:
        """Let the referee handle what was queued to it (answers, bus events), run the turn
        timer and re-check (after each frame, and while the camera is lost)."""
        self.referee.tick()
        if self.exact:
            self.sync()

    def step(self) -> "Frame | None":
        """The next frame of the source through the players, the reader and the referee (see
        the module docs); the frame, or None when the source has ended."""
        frame = self.source.read()
        if frame is None:
            return None
        for player in self.players:
            player.before(self, frame)
        report = self.process(frame.image, t=frame.time)
        self.tick()
        for player in self.players:
            player.after(self, frame, report)
        return frame

    def run(self) -> int:
        """:meth:`step` until the source ends (a finite one: a script, a video); the frames read."""
        n = 0
        while self.step() is not None:
            n += 1
        if self.exact:
            self.sync()
        return n

    def close(self) -> None:
        """Stop following the bus (the referee too); the frame source is the caller's to close."""
        self._unsubscribe()
        self.referee.close()
