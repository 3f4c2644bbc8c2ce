"""Settling a reading against the state: the draws seen, then each region that changed.

:meth:`Settling._settle` takes a few passes over one reading (forced plays and draws may show up
together); each pass (:meth:`Settling._settle_once`) sets aside what no card explains, settles
what looks as the state says, and then takes at most one decision about what is left, which it
carries out (a commit, an illegal call) or asks about.
"""

from __future__ import annotations

from collections import deque
from enum import Enum
from typing import TYPE_CHECKING

from ..engine.actions import Action, Move
from ..engine.look import Awaiting, TableLook, WaitingFor
from ..reading import cell_name
from . import evidence
from .answers import Answers
from .decide import Decision, DecisionKind, Reason, decide
from .evidence import bare, spill_over
from .expected import NOT_A_CARD, Expected, acting_seat, differing, expected_of, next_to, pawn_hidden_cells
from .hands import DRAW_PILE
from .questions import Closed
from .states import Asking, Wild, await_colour, colour_done

if TYPE_CHECKING:
    from .table import Table

#: The most passes over one reading (each takes at most one decision).
PASSES = 12


class Step(Enum):
    """What a pass over the reading leaves to do: look at the reading ``AGAIN``, or ``STOP``."""

    AGAIN = "again"
    STOP = "stop"


class Settling(Answers):
    """The loop that settles a reading (:meth:`_settle`)."""

    def _settle(self) -> list[Decision]:
        """Settle the reading against the state: the draws seen, then each region that changed.

        The arms seen (:attr:`TableReading.reaches`) are taken in the order they came in: a lift
        from the draw pile before the first arm over a changed region is a draw
        (:meth:`_seen_lift`) before that play; the arm over a changed region says whose hand
        made the play (:meth:`_whose`); what is left after the plays are draws after them."""
        table = self.table_of()
        if table is None or self._reading is None:
            return []
        done: list[Decision] = []
        pawn_was = table.view()[0].pawn
        self._note_pawn_left(expected_of(table.view()[0]))
        self._pass_before_tap(table)
        for _ in range(PASSES):  # a few actions may show up in one reading (forced plays, draws)
            if self._settle_once(table, done, pawn_was) is Step.STOP:
                break
        if self._question is None:
            self._draws_after(table)
        self._remember_looks(table.view()[0])
        return done

    def _settle_once(self, table: Table, done: list[Decision], pawn_was: tuple[int, int] | None) -> Step:
        """One pass: what differs, less what no card explains; the colour awaited; the regions
        settled; then the draws seen, the same face played, a count closed, or one decision."""
        look, waiting = table.view()
        expected = expected_of(look)
        diffs = self._set_aside(differing(expected, self._latest, self.regions.actionable, self.tuning), expected, done,
                                pawn_was, look)
        if self._colour_step(diffs, waiting, table, done) is Step.STOP:
            return Step.STOP
        decided = {d.region for d in done}
        # (weak reads by the pawn whose marker is unseen wait until it is seen again)
        held = pawn_hidden_cells(expected, self._latest)
        self._settle_matching(diffs, held, decided)
        self._close_stale_question(diffs, waiting)
        if self._question is None and self._draws_first(diffs, table):
            return Step.AGAIN
        if not diffs and self._question is None and waiting.camera_watches \
                and not any(d.kind is DecisionKind.ASK for d in done):
            return self._same_face_step(table, waiting, expected, done, pawn_was, held)
        if diffs and self._question is None and waiting.what is Awaiting.DRAW_COUNT \
                and self._count_closed(diffs, waiting, table):
            return Step.AGAIN
        if not diffs or not waiting.camera_watches:
            return Step.STOP
        return self._decide_and_act(table, waiting, expected, diffs, done, pawn_was, look)

    def _set_aside(self, diffs: dict[str, str], expected: Expected, done: list[Decision],
                   pawn_was: tuple[int, int] | None, look: TableLook) -> dict[str, str]:
        """``diffs`` less the regions no card explains (nothing is being asked): a cell a card just
        put down (or the pawn's step) spilled over, and a region no hand touched, one that shows
        no card where one lies, or one that looks as before. Each is looked at again when it
        changes again."""
        spilled = spill_over(diffs, {d.region for d in done if d.kind is DecisionKind.COMMIT})
        if pawn_was is not None and look.pawn is not None and tuple(look.pawn) != tuple(pawn_was):
            # the cell the pawn just stepped off reads no card: its card was under the pawn
            # and a card never leaves the grid
            left = cell_name(*pawn_was)
            if diffs.get(left) in NOT_A_CARD:
                spilled = spilled | {left}
        if spilled and self._question is None:
            # a neighbour's card dropped askew (or a hand) over a cell: no card was taken from it
            self.regions.actionable -= spilled
            diffs = {r: v for r, v in diffs.items() if r not in spilled}
        untouched: set[str] = set()
        if self._question is None:
            sight = self._sight()
            untouched = (evidence.untouched(sight, diffs, expected, self.margin)
                         | {r for r in bare(diffs, expected, self._latest, self.margin)
                            if not evidence.put_down_there(sight, r)}
                         | evidence.looks_as_before(sight, diffs, expected))
        if untouched:
            # no hand went there, or no card shows where one lies: the light or a smear changed
            # the read, not a card
            self.regions.actionable -= untouched
            diffs = {r: v for r, v in diffs.items() if r not in untouched}
        return diffs

    def _colour_step(self, diffs: dict[str, str], waiting: WaitingFor, table: Table,
                     done: list[Decision]) -> Step | None:
        """The wild whose colour is awaited from its player's phone: the wait ends when the phone
        played it (or the card went), and the wild is asked once the wait is over or the next
        card lies on it. ``STOP`` when it was asked."""
        wait = self._colour
        if wait is not None and wait.on_wild is not None:  # a wild on a wild, awaited from the phone
            if waiting != wait.on_wild:  # the phone played it: the region is explained
                self.regions.actionable.discard(wait.region)
                self._end_colour_wait(table)
            elif (wait.seq != self._latest.seq or self.clock() - wait.since >= self.tuning.colour_wait_s) \
                    and self._question is None:
                self.state = colour_done(self.state)  # no phone: the same face is asked after all
                done.append(wait.decision)
                self._ask(wait.decision, waiting)
                return Step.STOP
        elif wait is not None and wait.region not in diffs:
            # the phone gave the play (or the card went): what the region shows is explained,
            # no same face played on it
            self.regions.actionable.discard(wait.region)
            self._end_colour_wait(table)
        wait = self._colour
        if wait is not None and wait.on_wild is None and self._question is None \
                and self._overlaid(diffs, table):
            # the next card came before the wild's colour: the wild is asked first (the card
            # on it is then asked in turn: who put it there the camera did not see settle)
            self.state = colour_done(self.state)
            done.append(wait.decision)
            self._trace(wait.decision)
            self._ask(wait.decision, waiting)
            return Step.STOP
        return None

    def _settle_matching(self, diffs: dict[str, str], held: set[str], decided: set[str]) -> None:
        """Regions that now look as expected are settled (a fresh cell reading the same card is
        looked at once more: the same face may have been played on it)."""
        for region in list(self.regions.actionable):
            if region not in diffs and region not in held and not (
                    region in self._latest.changed and region != "pawn" and region not in decided):
                self.regions.actionable.discard(region)

    def _close_stale_question(self, diffs: dict[str, str], waiting: WaitingFor) -> None:
        """Close the open question when the table answered it itself: a draw-pile question once
        the table moved on, any other once its region shows what is expected again."""
        q = self._question
        if q is not None and q.region == DRAW_PILE:
            # (the table moved on: the question is stale)
            if isinstance(self.state, Asking) and waiting != self.state.asked_in:
                self._close_question(None, "table", Closed.OVERTAKEN)
        elif q is not None and q.region not in diffs and not (
                q.region == "pawn" and not (self._latest.pawn and self._latest.pawn.seen)):
            # (a step asked about while the marker is hidden stays asked: no sighting says it
            # is settled)
            self._close_question(None, "table", Closed.NO_CHANGE)

    def _same_face_step(self, table: Table, waiting: WaitingFor, expected: Expected, done: list[Decision],
                        pawn_was: tuple[int, int] | None, held: set[str]) -> Step:
        """Nothing differs: a region read again that looks different may hold the same face
        played again (:meth:`_same_face_play`), asked about, or awaited from the phone for a
        wild on a wild."""
        decided = {d.region for d in done}
        # (a card the pawn uncovered is no new card: its cell is left out; nor is a cell next to
        # one just played on: the new card, dropped askew, or the hand that put it reached over it)
        left_out = decided | ({cell_name(*pawn_was)} if pawn_was else set())
        left_out |= next_to({d.region for d in done if d.kind is DecisionKind.COMMIT})
        same = self._same_face_play(waiting, expected, table.legal_actions(), left_out)
        self.regions.actionable -= {r for r in self.regions.actionable if r not in held}
        if same is None:
            return Step.STOP
        # whose hand put it there: the next seat's after a pass nobody tapped is asked about as
        # that seat's play
        same, missed = self._whose(same, waiting, table)
        if missed:
            if all(self._commit_seen(a) for a in missed):
                self.regions.actionable.add(same.region)
                return Step.AGAIN
            return Step.STOP
        if self._question is None and self._same_wild(same):
            # a wild on a wild: its player plays it from the phone (its colour)
            wild = Wild(same.region, same.read, self._latest.seq, self.clock(), same, on_wild=waiting)
            self.state = await_colour(self.state, wild)
            table.pause_timer()
            return Step.STOP
        done.append(same)
        self._ask(same, waiting)
        return Step.STOP

    def _decide_and_act(self, table: Table, waiting: WaitingFor, expected: Expected, diffs: dict[str, str],
                        done: list[Decision], pawn_was: tuple[int, int] | None, look: TableLook) -> Step:
        """Take one decision about what differs and carry it out."""
        legal = table.legal_actions()
        if self._question is None and not done:
            step = self._unseen_step(legal, expected, diffs, acting_seat(waiting))
            if step is not None:
                done.append(step)
                self._trace(step)
                self._ask(step, waiting)
                return Step.STOP
        decision = self._decision(table, waiting, expected, diffs, done, legal)
        if decision is None:
            return Step.STOP
        # (asked or not: a phone's tap meanwhile does not make another seat's hand the drawer's)
        decision, missed = self._whose(decision, waiting, table)
        if missed:  # a tap nobody made, shown by whose hand played: made now, then again
            return Step.AGAIN if all(self._commit_seen(a) for a in missed) else Step.STOP
        decision = self._doubted(decision, pawn_was, look)
        if decision.kind is DecisionKind.ASK and decision.reason is Reason.COLOUR \
                and self._question is None and self._awaits_colour(decision, table):
            return Step.STOP
        done.append(decision)
        self._trace(decision)
        return self._carry_out(decision, table, waiting)

    def _decision(self, table: Table, waiting: WaitingFor, expected: Expected, diffs: dict[str, str],
                  done: list[Decision], legal: list[Action]) -> Decision | None:
        """The decision about what differs: several changes at once are ordered by the pawn's step
        the arms show first, or asked about; else :func:`.decide.decide` over the regions being
        looked at (only the one asked about while a question is open)."""
        seat = acting_seat(waiting)
        decision = None
        # forced plays may land together, but no more of them than are owed
        owed = waiting.left if waiting.what is Awaiting.FORCED_PLAYS else 1
        if self._question is None and not done and len(diffs) > max(1, owed):
            decision = self._step_first(legal, expected, diffs, seat, table)
            if decision is None:
                decision = self._several(legal, expected, diffs, seat)
            if decision is not None and decision.kind is DecisionKind.ASK:
                self.regions.blind |= set(diffs)
        if decision is None:
            # while the table is asked something, nothing else is decided (it waits for the answer)
            looking_at = self.regions.actionable if self._question is None else {self._question.region}
            decision = decide(legal, expected, self._latest, looking_at, seat, tuning=self.tuning)
        return decision

    def _doubted(self, decision: Decision, pawn_was: tuple[int, int] | None, look: TableLook) -> Decision:
        """A commit or call turned into a question where the camera's word alone is not enough:
        the card the pawn just uncovered, a region that differed in the first look, a region
        that changed together with others while the camera could not look."""
        if decision.kind in (DecisionKind.COMMIT, DecisionKind.ILLEGAL) \
                and decision.region == evidence.uncovered(pawn_was, look.pawn):
            # the card the pawn just stepped off shows for the first time since it covered it: a
            # read that differs from the state is as likely a misread of that card as the next
            # seat's play: asked, never committed
            return decision.asked(Reason.UNSURE)
        if decision.region in self.regions.doubts:
            self.regions.doubts.discard(decision.region)
            return decision.asked(Reason.FIRST_LOOK)
        if decision.region in self.regions.blind and decision.kind is not DecisionKind.WAIT \
                and decision.reason is not Reason.SEVERAL:
            self.regions.blind.discard(decision.region)
            # a pile may hide more than one action, each by whom the camera cannot say
            return decision.asked(Reason.SEVERAL)
        return decision

    def _carry_out(self, decision: Decision, table: Table, waiting: WaitingFor) -> Step:
        """Commit, call or ask: a commit or a call looks at the reading ``AGAIN``."""
        if decision.kind is DecisionKind.COMMIT:
            assert decision.action is not None   # (a commit's action)
            hands_used = self._arms_over(decision, table)  # (a step's: over its two cells)
            answer = table.act(decision.action, source="camera", evidence=self._witness(decision))
            self._feed(answer)
            if isinstance(decision.action, Move):
                # (an arm over a card elsewhere stays the evidence of whose hand put it)
                self._reaches = deque((r for r in self._reaches if r not in hands_used),
                                      maxlen=self._reaches.maxlen)
            else:
                self._take_reach_over(decision.region)
            self.stats["commits"] += 1
            # what the region shows is explained now (a flip card stays on the pile until the
            # pile is turned over, with nothing expected there: no new action; and if the engine
            # disagreed after all, it is left to the table)
            self.regions.actionable.discard(decision.region)
            if self._question is not None and self._question.region == decision.region:
                self._close_question(decision.action.to_json(), "camera", Closed.READ_CLEARLY)
            return Step.AGAIN
        if decision.kind is DecisionKind.ILLEGAL:
            assert decision.action is not None   # (the action called)
            self._feed(table.act(decision.action, source="camera", evidence=self._witness(decision)))
            self._take_reach_over(decision.region)
            self.stats["illegal"] += 1
            # the card lies there until it is taken back: not a new action meanwhile
            self.regions.actionable.discard(decision.region)
            if self._question is not None and self._question.region == decision.region:
                self._close_question(None, "camera", Closed.CALLED_ILLEGAL)
            return Step.AGAIN
        if decision.kind is DecisionKind.ASK:
            self._ask(decision, waiting)
        return Step.STOP
