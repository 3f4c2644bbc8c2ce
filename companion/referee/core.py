"""The camera referee's state and the few things every part of it does: trace a decision,
keep its frame, ask the table, close a question, commit what the camera saw.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import queue
from collections import deque
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ..bus import EventBus
from ..engine.actions import Action, Draw, Move, Pass
from ..engine.look import WaitingFor
from ..reading import LookKeeper, Reach, TableReading, cell_name
from ..tuning import RefereeTuning, default
from .decide import Decision, DecisionKind, Reason
from .evidence import Sight
from .expected import acting_seat, region_of, step_cells
from .hands import DRAW_PILE, DrawLedger, over
from .questions import Closed, Question
from .states import Asking, PawnTrail, Regions, State, Wild, ask, closed, colour_of, question_of

if TYPE_CHECKING:
    from .table import Answer, Table


# The product's values of some thresholds (companion/tuning.toml, :class:`RefereeTuning` says what
# each trades), for callers that name them; the referee reads its own ``tuning``.
#: Look distance (:class:`companion.reading.LookChange`) above which a region that reads
#: the card it held shows a new card of the same face (or that card moved).
SAME_FACE_LOOK = default().referee.same_face_look
#: The same after the camera was nudged and the whole table read again through the new view.
NUDGED_SAME_FACE_LOOK = default().referee.nudged_same_face_look
#: Look difference above which a region shows another card than before whatever its read and
#: whether or not a hand was seen going there.
NEW_FACE_LOOK = default().referee.new_face_look
#: Seconds the referee waits for a wild's colour from its player's phone (the seat page's play
#: of a wild asks the colour) before it asks the table; a new reading (the next card, a hand)
#: ends the wait at once.
COLOUR_WAIT_S = default().referee.colour_wait_s


log = logging.getLogger(__name__)


class RefereeCore:
    """The state every part of :class:`~.camera.CameraReferee` shares."""

    table_of: Callable[[], Table | None]
    bus: EventBus
    witness: Callable[[tuple[str, ...]], str | None] | None
    clock: Callable[[], float]
    #: the thresholds the referee decides by
    tuning: RefereeTuning
    ledger: DrawLedger
    stats: dict[str, int]
    decisions: deque[tuple[int, Decision]]
    on_decision: Callable[[Decision], None] | None
    #: what the referee is doing: watching, asking a question, awaiting a wild's colour
    state: State
    #: the regions changed since they were settled, doubted in the first look, changed blind
    regions: Regions
    #: the pawn's step seen while its marker was hidden
    pawn_trail: PawnTrail
    _reading: TableReading | None
    #: the reader's memory of the regions' looks: told the look each region is remembered by, it
    #: measures each reading's looks from those (None: no look distances)
    looks: LookKeeper | None
    #: region -> (the label the state gave it, the id of its look) when it last matched the state
    _looks: dict[str, tuple[str, int]]
    _ids: Iterator[int]
    _recheck: bool
    #: the arms seen and not yet accounted for, oldest first
    _reaches: deque[Reach]
    #: the bus events that follow the referee's own actions are fed from their answers
    _own_action: bool
    #: a phone's tap the rules refused as out of turn while a seat kept its drawn card
    _refused_tap: dict[str, Any] | None
    #: (kind, payload, future): answers and bus events for the referee's thread
    _inbox: queue.SimpleQueue[tuple[str, Any, Future[Answer | None] | None]]

    @property
    def commit_gain(self) -> float:
        """How much (natural log) the best explanation must gain over "nothing happened"."""
        return math.log(self.tuning.commit_ratio)

    @property
    def margin(self) -> float:
        """How much (natural log) the best explanation must beat the next by."""
        return math.log(self.tuning.margin_ratio)

    @property
    def _pawn_gain(self) -> float:
        """How much (natural log) a pawn marker seen where a step leads favours that step."""
        return math.log(self.tuning.pawn_ratio)

    @property
    def illegal_confidence(self) -> float:
        """How sure a read must be to call an illegal play on its own."""
        return self.tuning.illegal_confidence

    @property
    def _question(self) -> Question | None:
        """The open question (None: none)."""
        return question_of(self.state)

    @property
    def _colour(self) -> Wild | None:
        """The wild whose colour is awaited from its player's phone (None: none)."""
        return colour_of(self.state)

    def _keep_look(self, region: str, card: str, look_id: int) -> None:
        """``region`` is remembered as holding ``card`` with the look ``look_id``; the reader is
        told (it measures the next readings' looks against that one)."""
        if self._looks.get(region) == (card, look_id):
            return
        self._looks[region] = (card, look_id)
        if self.looks is not None:
            self.looks.remember(region, look_id)

    def _sight(self) -> Sight:
        """What the evidence terms look at now (:class:`.evidence.Sight`)."""
        return Sight(self._latest, tuple(self._reaches), self._looks, self.tuning)

    @property
    def _latest(self) -> TableReading:
        """The reading being settled (on the referee's thread, once there is one)."""
        assert self._reading is not None
        return self._reading

    def _trace(self, decision: Decision) -> None:
        self.decisions.append((self._latest.seq, decision))
        if self.on_decision is not None:
            self.on_decision(decision)

    def _witness(self, decision: Decision) -> str | None:
        """The id of the frame ``decision`` is taken on (:attr:`witness`), or None."""
        if self.witness is None:
            return None
        regions = [decision.region]
        for action in (decision.action, *decision.choices):
            found = [region_of(action)] if action is not None else []
            if isinstance(action, Move) and all(0 <= i < 5 for i in action.to):
                found.append(cell_name(*action.to))  # where the pawn went
            regions += [r for r in found if r is not None and r not in regions]
        try:
            return self.witness(tuple(regions))
        except Exception:  # a lost picture never stops the referee (logged)
            log.exception("could not keep the frame of a decision")
            return None

    def _feed(self, answer: Answer | None) -> None:
        """The cards the referee's own action dealt (its bus copies are not counted again)."""
        for e in getattr(answer, "events", ()):
            if e.get("type") == "drew":
                self._engine_drew(e.get("seat"), e.get("count") or 0)

    def _engine_drew(self, seat: str | None, count: int) -> None:
        """The rules put ``count`` cards in ``seat``'s hand (a phone's draw, a penalty...)."""
        if seat is None:
            return
        q = self._question
        if seat in self.ledger.unsure or (q is not None and q.region == DRAW_PILE
                                          and seat in (q.seat, q.by)):
            # the count the camera could not tell, or the draw it asks about, entered on a
            # phone: that is the lift it saw, counted once
            self.ledger.settle(seat)
            return
        self.ledger.engine_drew(seat, count)

    def _take_reach_over(self, region: str, passing: bool = False) -> None:
        """What lies in ``region`` is accounted for: so are the arms seen over it so far. (A
        draw-pile question answered accounts for the arms' visits to the pile only: an arm that
        went on to the discard pile stays the evidence of whose hand played there. So does an
        arm ``passing`` over a region where nothing happened, answered "misread": an arm on its
        way to a card further in, its hand seen over the cards it passed.)"""
        partly = passing or region == DRAW_PILE
        kept = [r if not over(r, region) else Reach(r.side, tuple(g for g in r.regions if g != region), 0)
                for r in self._reaches
                if not over(r, region) or (partly and any(g != region for g in r.regions))]
        self._reaches.clear()
        self._reaches.extend(kept)

    def _commit_seen(self, action: Action) -> bool:
        """Make a draw or a pass the camera saw (or inferred from whose hand played)."""
        table = self.table_of()
        assert table is not None   # (seen while a match is played)
        decision = Decision(DecisionKind.COMMIT, DRAW_PILE, action, reason=Reason.HAND)
        self._trace(decision)
        answer = table.act(action, source="camera", evidence=self._witness(decision))
        self._feed(answer)
        self.stats["commits"] += 1
        if isinstance(action, Pass):
            self.stats["passes-inferred"] += 1
        elif isinstance(action, Draw) and action.count == 1:
            self.stats["draws-seen"] += 1
        return answer.ok

    def _ask(self, decision: Decision, waiting: WaitingFor) -> None:
        got = self._latest.region(decision.region) if decision.region != "pawn" else None
        card = got.label if got is not None else None
        # (a draw-pile question is asked until the table moves on from ``waiting``)
        asked_in = waiting if decision.region == DRAW_PILE else None
        # (the grid game's discard pile takes a discard; Flip's and classic's a play)
        table = self.table_of()
        pile = "discard" if table is not None and table.game.name == "grid" else "play"
        question = Question.of(0, decision, acting_seat(waiting), card, pile)
        if isinstance(self.state, Asking) and self.state.question.signature == question.signature:
            if asked_in is not None:
                self.state = dataclasses.replace(self.state, asked_in=asked_in)
            return
        if self._question is not None:
            self._close_question(None, "camera", Closed.REPLACED)
        question = dataclasses.replace(
            Question.of(next(self._ids), decision, acting_seat(waiting), card, pile),
            evidence=self._witness(decision))
        self.state = ask(self.state, question, asked_in)
        self.stats["questions"] += 1
        key = f"questions-{question.kind.value}"
        self.stats[key] = self.stats.get(key, 0) + 1
        if table is not None:
            table.pause_timer()
        self.bus.publish("confirm-needed", **question.to_json())

    def _close_question(self, action: dict[str, Any] | None, by: str, why: "Closed") -> None:
        q = self._question
        if q is None:
            return
        self.state = closed(self.state)
        self.bus.publish("confirmed", id=q.id, action=action, by=by, why=why.value)
        table = self.table_of()
        if table is not None and table.timer.paused:
            table.resume_timer()

    @staticmethod
    def _draws(table: Table) -> bool:
        """The game has draws the camera can see (Flip, classic: not the grid)."""
        return getattr(table.game, "name", None) in ("flip", "classic")

    def _arms_over(self, decision: Decision, table: Table) -> list[Reach]:
        """The arms not yet accounted for that were over the decision's region; for a step of
        the pawn, over the cells it left or came to (an arm over a card elsewhere is no hand on
        the pawn: the next seat's card, seen in the reading that first saw the step)."""
        action = decision.action or (decision.choices[0] if decision.choices else None)
        if isinstance(action, Move):
            cells = step_cells(table.view()[0].pawn, action.to)
            return [r for r in self._reaches if cells & set(r.regions)]
        return [r for r in self._reaches if over(r, decision.region)]
