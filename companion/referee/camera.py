"""The camera referee: stable table readings in, actions on the :class:`~.table.Table` out.

The referee never trusts a raw difference between two frames. For each stable reading
(:class:`companion.reading.TableReading`) it

1. works out what the table *should* look like from the engine's state (:func:`expected_of`),
2. finds the regions that differ from it *and* changed since the last reading (a difference that
   appeared because the state changed -- an undo, a reshuffle, a refused card still lying there --
   is not a new action),
3. scores every legal action against the per-region class probabilities (:func:`score_actions`),
4. commits the best one through ``Table.act(action, source="camera")`` when it is clearly above
   the others and the threshold, and repeats (two forced plays may land in one reading),
5. calls an illegal play only when what was read is confident and agreed by the votes, and
   otherwise asks the table (``confirm-needed``: a :class:`Question` as data, the turn timer
   paused) and waits for a phone's answer;
6. checks whose hand did it: the arms seen (``TableReading.reaches``) are seats through the
   table's seating (:mod:`.hands`). A play by another seat's hand than the one on turn is never
   credited to it nor called on it: the pass nobody tapped is made when that explains it, else
   the table is asked (an ``out-of-turn`` question). Cards lifted from the draw pile are the
   acting seat's ``draw`` (Flip, classic), set against the cards the rules dealt each seat so
   that a phone's tap and the camera's sighting of one draw count once.

A misread must never cost a player cards: illegal calls (which cost cards in Flip and classic)
need a confident, stable reading; anything less becomes a question.

The matching (:func:`decide`) is pure: what the table should look like, the legal actions, the
reading in; a :class:`Decision` out. It reads the engine only through typed values
(:class:`~companion.engine.look.TableLook`, :class:`~companion.engine.look.WaitingFor`), never
the replay JSON. :class:`CameraReferee` wraps it with the table, the bus, the questions and the
timer.

The referee builds no words: a decision carries a :class:`DecisionKind` and a :class:`Reason`, a
question a :class:`QuestionKind`, the seat, the region, the card read and its choices (actions,
plus one :class:`NothingHappened` choice). The page renders them in the reader's language.

Where things are (every public name is importable from here too):

* :mod:`.expected` -- what the table should show, what differs, the grid's geometry;
* :mod:`.decide` -- the pure scorer (:func:`decide`, :func:`score_actions`);
* :mod:`.evidence`, :mod:`.arms` -- the evidence terms, each a pure function with what it measures;
* :mod:`.questions` -- :class:`Question` and its choices; :mod:`.states` -- the referee's state
  (:class:`Watching`, :class:`Asking`, :class:`AwaitingColour`) and its transitions;
* the referee itself, one concern a module, each a base of the next: :mod:`.core` (shared state,
  asking, committing), :mod:`.draws` (lifts from the draw pile), :mod:`.whose` (whose hand),
  :mod:`.pawn` (steps seen unseen), :mod:`.sightings` (looks remembered, same faces, several
  changes), :mod:`.answers` (the colour wait, the table's answers), :mod:`.settle` (one reading,
  pass by pass), and this module (threads, the bus, :meth:`CameraReferee.on_reading`).

Every threshold is a field of :class:`companion.tuning.RefereeTuning` (``[referee]`` in
companion/tuning.toml), with its unit and what it trades.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import queue
import time
from collections import deque
from typing import TYPE_CHECKING, Callable

from ..bus import BusMessage, EventBus
from ..reading import LookKeeper, TableReading
from ..tuning import Tuning, default
from .core import COLOUR_WAIT_S, NEW_FACE_LOOK, NUDGED_SAME_FACE_LOOK, SAME_FACE_LOOK
from .decide import PAWN_GAIN, UNSURE_CHOICES, Candidate, Decision, DecisionKind, Reason, decide, score_actions
from .evidence import legal_mass, spill_over
from .expected import (
    EMPTY,
    NAMED_CONFIDENCE,
    NEW_LAYOUT,
    Expected,
    acting_seat,
    differing,
    expected_of,
    pawn_hidden_cells,
    region_of,
)
from .hands import DrawLedger
from .questions import (
    OTHER_CARD_KINDS,
    AnswerRefused,
    Choice,
    Closed,
    NothingHappened,
    Question,
    QuestionKind,
    other_card_action,
    other_card_attempt,
    other_card_refusal,
)
from .settle import Settling
from .states import Asking, AwaitingColour, PawnTrail, Regions, State, Watching, Wild

if TYPE_CHECKING:
    from ..host import Host
    from .table import Table

__all__ = ["Expected", "expected_of", "acting_seat", "Candidate", "Decision", "DecisionKind",
           "Reason", "score_actions", "decide", "Question", "QuestionKind", "Choice",
           "NothingHappened", "Closed", "CameraReferee", "EMPTY", "legal_mass", "spill_over",
           "AnswerRefused", "NEW_LAYOUT", "OTHER_CARD_KINDS", "other_card_action",
           "other_card_attempt", "other_card_refusal", "COLOUR_WAIT_S", "NEW_FACE_LOOK",
           "NUDGED_SAME_FACE_LOOK", "SAME_FACE_LOOK", "PAWN_GAIN", "UNSURE_CHOICES", "NAMED_CONFIDENCE",
           "differing", "pawn_hidden_cells", "region_of", "State", "Watching", "Asking", "AwaitingColour",
           "Wild"]

log = logging.getLogger(__name__)

#: Refusals of a phone's tap that mean "not your turn yet" (a pass nobody tapped may explain them).
TURN_REFUSALS = ("not-your-turn", "no-uno")


class CameraReferee(Settling):
    """Referees the table from the camera's stable readings, through ``table_of()`` (the current
    :class:`~.table.Table`, or None between matches) and the one event bus.

    Call :meth:`on_reading` with each stable reading and :meth:`tick` often (it runs the turn
    timer and re-checks after phone actions). :meth:`answer` takes a phone's answer to the open
    question. ``host`` (optional) is shown each reading (``Host.show_reading``).

    One thread owns the referee: the one that calls :meth:`on_reading` and :meth:`tick` (the
    camera thread; a scripted run's only thread). Everything else reaches it through a queue:
    :meth:`answer` (from any thread) and the bus events it follows (from the bus's dispatcher)
    are only queued, and handled on the owner's thread at the start of its next
    :meth:`on_reading`, :meth:`tick` or :meth:`run_pending`. So the referee needs no lock, and
    it calls the table and publishes holding none. Other threads may read :attr:`question`,
    :attr:`state` (one frozen value: :class:`Watching`, :class:`Asking`, :class:`AwaitingColour`),
    :attr:`has_baseline` and :attr:`stats` (snapshots; never changed from outside).

    ``tuning`` (:class:`companion.tuning.Tuning`; None: the product's, ``companion/tuning.toml``)
    gives every threshold it decides by (its ``referee`` section); ``commit_ratio``,
    ``margin_ratio`` and ``illegal_confidence``, when given, stand for the tuning's.

    ``witness`` (optional, called on the referee's thread) keeps the frame a decision was taken
    on: it is called with the regions the decision is about when the referee commits an action,
    calls one illegal or asks a question, and returns an id (or None); the action's events and
    the question carry it as ``evidence``, and an answer to the question is played with the
    question's. The referee handles no pixels: what the id names is the caller's.

    ``looks`` (optional, used on the referee's thread; :class:`~companion.reading.LookKeeper`:
    the reader's :class:`vision.looks.LookMemory`, which the pipeline passes) keeps the regions'
    looks: the referee tells it the look each region is remembered by when it shows the card the
    state has there (or a card answered as put there), and each reading it takes is measured
    from those (:meth:`~companion.reading.LookKeeper.stamped`: every region's
    :class:`~companion.reading.LookChange`), after the answers queued before it are handled.
    """


    def __init__(self, table_of: Callable[[], Table | None], bus: EventBus, *, host: Host | None = None,
                 tuning: Tuning | None = None, commit_ratio: float | None = None,
                 margin_ratio: float | None = None, illegal_confidence: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 witness: Callable[[tuple[str, ...]], str | None] | None = None,
                 looks: LookKeeper | None = None) -> None:
        self.table_of = table_of
        self.witness = witness
        self.looks = looks
        self.clock = clock
        self.bus = bus
        self.host = host
        t = (tuning or default()).referee
        self.tuning = dataclasses.replace(
            t, commit_ratio=t.commit_ratio if commit_ratio is None else commit_ratio,
            margin_ratio=t.margin_ratio if margin_ratio is None else margin_ratio,
            illegal_confidence=t.illegal_confidence if illegal_confidence is None else illegal_confidence)
        self._inbox = queue.SimpleQueue()
        self.state = Watching()
        self.regions = Regions()
        self.pawn_trail = PawnTrail()
        self._reading = None
        self._looks = {}
        self._ids = itertools.count(1)
        self._recheck = False
        self._reaches = deque(maxlen=64)
        #: cards the rules dealt each seat against the cards the camera saw it lift
        self.ledger = DrawLedger()
        self._own_action = False
        self._refused_tap = None
        self.stats = {"commits": 0, "illegal": 0, "questions": 0, "readings": 0,
                      "draws-seen": 0, "passes-inferred": 0, "counts-seen": 0}
        #: the latest decisions (seq of the reading, Decision), for the live view and debugging
        self.decisions: deque[tuple[int, Decision]] = deque(maxlen=200)
        #: called with each Decision as it is taken (the scripted runs trace them)
        self.on_decision: Callable[[Decision], None] | None = None
        self._unsubscribe = bus.subscribe(self._on_event, {"action", "undone", "match-started",
                                                           "reshuffle", "drew", *NEW_LAYOUT})

    def close(self) -> None:
        """Stop following the bus; answers still queued get None."""
        self._unsubscribe()
        while True:
            try:
                _, _, future = self._inbox.get_nowait()
            except queue.Empty:
                return
            if future is not None:
                future.set_result(None)

    @property
    def question(self) -> Question | None:
        return self._question

    @property
    def has_baseline(self) -> bool:
        """A first reading of this match was taken (what lies there is the layout)."""
        return self._reading is not None

    def _on_event(self, message: BusMessage) -> None:
        """The bus's dispatcher thread: queue the event for the referee's thread."""
        self._inbox.put(("event", message, None))

    def run_pending(self) -> None:
        """On the referee's thread: handle the answers and bus events queued so far, in the
        order they arrived (:meth:`on_reading` and :meth:`tick` start with this)."""
        while True:
            try:
                kind, payload, future = self._inbox.get_nowait()
            except queue.Empty:
                return
            if kind == "event":
                self._event(payload)
                continue
            assert future is not None   # (an answer comes with its future)
            try:
                take = self._answer if kind == "answer" else self._answer_other
                result = take(*payload)
            except AnswerRefused as exc:  # the caller's to say; the question stays open
                future.set_exception(exc)
            except Exception as exc:  # the caller's future carries it
                log.exception("answer %r failed", payload)
                future.set_exception(exc)
            else:
                future.set_result(result)

    def _event(self, message: BusMessage) -> None:
        if message.type == "action":
            # the events after the referee's own actions were counted from their answers
            self._own_action = message.data.get("source") in ("camera", "confirm")
            if not message.data.get("ok") and message.data.get("source") == "phone" \
                    and message.data.get("error") in TURN_REFUSALS:
                self._refused_tap = message.data.get("action")
            if message.data.get("source") == "camera":
                return
        if message.type == "drew":
            if not self._own_action:
                self._engine_drew(message.data.get("seat"), message.data.get("count") or 0)
            return
        if message.type == "match-started" or message.type in NEW_LAYOUT:
            # the table is laid out again: its next reading is the new baseline
            self._reading = None
            self.regions.doubts = set()
            self.regions.blind = set()
        if message.type in ("undone", "match-started", *NEW_LAYOUT):
            # hands are dealt again, or the table put right by hand: no draw is owed or seen
            self.ledger.clear()
            self._reaches.clear()
        if message.type in ("undone", "match-started", "reshuffle", *NEW_LAYOUT):
            # the table must be put right by hand: what lies there now is no new action
            self.regions.actionable.clear()
        self._recheck = True

    def on_reading(self, reading: TableReading) -> list[Decision]:
        """A new stable reading: settle what it shows. Returns the decisions taken (for tests)."""
        self.run_pending()
        if self.looks is not None:   # (measured from the looks remembered up to now)
            reading = self.looks.stamped(reading)
        self.stats["readings"] += 1
        first = self._reading is None
        self._reading = reading
        if not first:  # the first reading is the table as it was laid out: the baseline
            self.regions.actionable |= set(reading.changed)
            self._reaches.extend(getattr(reading, "reaches", ()) or ())
        else:
            self._doubt_baseline()
        if self.host is not None:
            self.host.show_reading(reading.to_json())
        self.bus.publish("reading", reading=reading.to_json())
        return self._settle()

    def tick(self) -> None:
        """Handle what was queued, run the turn timer; re-check the last reading after actions
        from phones."""
        self.run_pending()
        table = self.table_of()
        if table is None:
            return
        table.poll_timer()
        wait = self._colour
        if wait is not None and self.clock() - wait.since >= self.tuning.colour_wait_s:
            self._recheck = True  # no colour came from the phone: ask
        if self._recheck:
            self._recheck = False
            if self._reading is not None:
                self._settle()
