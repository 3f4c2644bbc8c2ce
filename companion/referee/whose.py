"""Whose hand made a play: the arms seen over its region against the seat that must act.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.actions import Action, Discard, Draw, Move, Pass, Play
from ..engine.look import Awaiting, WaitingFor
from ..reading import cell_name
from .arms import facing_pair, later_next_arm, other_seats_arms
from .decide import Decision, DecisionKind, Reason
from .draws import DrawWatch
from .evidence import formless
from .expected import expected_of, pawn_hidden_cells
from .hands import hand_of

if TYPE_CHECKING:
    from ..reading import Reach
    from .table import Table


class WhoseHand(DrawWatch):
    """A decision checked against the hand seen over its region (:meth:`_whose`)."""

    def _whose(self, decision: Decision, waiting: WaitingFor, table: Table
               ) -> tuple[Decision, tuple[Action, ...]]:
        """Check a decision about a play or a move against the hand seen over its region.

        No arm seen, no side, or an arm from the acting seat's side (alone or shared): the
        decision stands (the seat on turn, as without hands to tell). An arm from another seat's
        side: a pass nobody tapped when that makes it that seat's turn (returned as actions to
        make first), else an out-of-turn question; never a credit or a penalty to the seat on
        turn."""
        if decision.kind not in (DecisionKind.COMMIT, DecisionKind.ILLEGAL, DecisionKind.ASK):
            return decision, ()
        action = decision.action or (decision.choices[0] if decision.choices else None)
        if not isinstance(action, (Play, Move, Discard)):
            return decision, ()
        seat = action.by
        # the last arm over the region from a side someone sits at put down what lies on top
        # (an arm with no side says nothing; earlier arms put down what lies under it)
        arms = self._arms_that_put_down(decision, action, table)
        known = [h for h in (hand_of(r, table.seating) for r in arms) if h.known]
        pair = facing_pair(self._latest.reaches, cell_name(*action.to) if isinstance(action, Move)
                           else decision.region, table.seating)
        if pair is not None and decision.kind is not DecisionKind.ASK:
            return self._either_arm(pair, decision, waiting, table)
        if not known and decision.kind is not DecisionKind.ASK:
            unseen = self._unseen_hand(decision, waiting, table)
            if unseen is not None:
                return unseen, ()
        if not known or not known[-1].excludes(seat):
            return decision, ()  # no hand to tell, or the acting seat's own
        hand = known[-1]
        # (an illegal card costs its player cards: only a hand that is one seat's is called)
        if waiting.what is Awaiting.PLAY_OR_PASS and (hand.strong or decision.kind is not
                                                      DecisionKind.ILLEGAL):
            after = table.what_if([Pass(by=seat)])
            if after is not None and after.what is Awaiting.TURN and after.seat in hand.seats:
                return decision, (Pass(by=seat),)
        by, did_after = hand.seats[0], "turn"
        missed: tuple[Action, ...] = ()
        if waiting.what is Awaiting.PLAY_OR_PASS:
            did_after = "passed"
        elif waiting.what is Awaiting.TURN and self._draws(table):
            after = table.what_if([Draw(by=seat), Pass(by=seat)])
            if after is not None and after.seat in hand.seats:
                if self._later_lift(seat, table):
                    # ann's arm at the pile came in after ben's (arms at once): her draw first
                    return decision, (Draw(by=seat),)
                # the next seat played: did ann draw and pass unseen, or did ben play early?
                by, missed, did_after = after.seat, (Draw(by=seat),), "drew"
        offered = (decision.action,) if decision.action is not None else decision.choices
        if did_after == "turn":
            missed += self._hidden_steps(seat, table)
        if isinstance(action, Move):
            missed += tuple(a for a in self._steps_before(action, hand.seats, table) if a not in missed)
        self.stats["out-of-turn"] = self.stats.get("out-of-turn", 0) + 1
        return Decision(DecisionKind.ASK, decision.region, choices=missed + tuple(offered),
                        reason=Reason.OUT_OF_TURN, read=decision.read, by=by, did="play",
                        after=did_after), ()

    def _arms_that_put_down(self, decision: Decision, action: Action, table: Table) -> list[Reach]:
        """The arms over the decision's region, in order; for a step, those over the cell the
        pawn stands on now (the cell it left says whose hand only when no arm was seen there)."""
        arms = self._arms_over(decision, table)
        if isinstance(action, Move):
            arms = [r for r in arms if cell_name(*action.to) in r.regions] or arms
        return arms

    def _unseen_hand(self, decision: Decision, waiting: WaitingFor, table: Table) -> Decision | None:
        """No arm seen over the card, none from the acting seat's side, but other seats' arms
        in this reading (:func:`.arms.other_seats_arms`): one of them may have put it there.
        Asked (an out-of-turn question; after a draw the pass is offered first), never credited
        to the seat on turn. None when the acting seat's arm is among them or no other seat's
        arm was seen."""
        action = decision.action
        assert action is not None   # (a commit or a call: see _whose)
        seat = action.by
        idle = other_seats_arms(self._latest.reaches, decision.region, seat, table.seating)
        if not idle:
            return self._covered(decision, table)
        nxt = None
        if waiting.what is Awaiting.PLAY_OR_PASS:
            after = table.what_if([Pass(by=seat)])
            nxt = after.seat if after is not None and after.what is Awaiting.TURN else None
        missed: tuple[Action, ...] = (Pass(by=seat),) if nxt in idle else ()
        self.stats["out-of-turn"] = self.stats.get("out-of-turn", 0) + 1
        return Decision(DecisionKind.ASK, decision.region, choices=missed + (action,),
                        reason=Reason.OUT_OF_TURN, read=decision.read, by=nxt if nxt in idle else idle[0],
                        did="play", after="passed" if waiting.what is Awaiting.PLAY_OR_PASS else "turn")

    def _covered(self, decision: Decision, table: Table) -> Decision | None:
        """A play on a pile whose top card the next seat's arm may have laid after the acting
        seat's (:func:`.arms.later_next_arm`): asked about (the player may name the card they
        put down, the one now under the top), never committed. None: no such arm."""
        action = decision.action
        if decision.kind is not DecisionKind.COMMIT or action is None or decision.region != "discard":
            return None
        after = table.what_if([action])
        nxt = after.seat if after is not None and after.what is Awaiting.TURN else None
        if not later_next_arm(self._latest.reaches, action.by, nxt, table.seating):
            return None
        return decision.asked(Reason.UNSURE)

    def _either_arm(self, pair: tuple[str, ...], decision: Decision, waiting: WaitingFor, table: Table
                    ) -> tuple[Decision, tuple[Action, ...]]:
        """A play that either of two facing arms may have made (:func:`.arms.facing_pair`), checked
        against the turn: the seat that must act, when its arm is one of them and no pass can
        make it the other's turn (a legal play stands; an illegal card is asked about, never
        called on a guess); the next seat, when the seat that must act is in play-or-pass and
        not one of them (the pass nobody tapped, then the play); both possible: asked ("did
        cai pass before ann played?"). Anything else: asked as out of turn."""
        seat = (decision.action or decision.choices[0]).by
        nxt = None
        if waiting.what is Awaiting.PLAY_OR_PASS:
            after = table.what_if([Pass(by=seat)])
            nxt = after.seat if after is not None and after.what is Awaiting.TURN else None
        if seat in pair and nxt not in pair and decision.kind is DecisionKind.COMMIT:
            return decision, ()
        if seat not in pair and nxt in pair:
            return decision, (Pass(by=seat),)
        other = next(s for s in pair if s != seat) if seat in pair else pair[0]
        missed: tuple[Action, ...] = (Pass(by=seat),) if nxt in pair else ()
        self.stats["out-of-turn"] = self.stats.get("out-of-turn", 0) + 1
        assert decision.action is not None   # (a commit or a call: see _whose)
        return Decision(DecisionKind.ASK, decision.region, choices=missed + (decision.action,),
                        reason=Reason.OUT_OF_TURN, read=decision.read, by=nxt if nxt in pair else other,
                        did="play", after="passed" if waiting.what is Awaiting.PLAY_OR_PASS else "turn"), ()

    def _steps_before(self, step: Move, seats: tuple[str, ...], table: Table) -> tuple[Action, ...]:
        """The acting seat's steps after which one of ``seats`` (the hand seen putting the pawn
        down) could step it where ``step`` leads: offered when that hand was another seat's,
        since the step the camera saw may be two, the acting seat's and then theirs (at most
        ``unsure_choices``)."""
        out: list[Action] = []
        for a in table.legal_actions():
            if len(out) >= self.tuning.unsure_choices:
                break
            if isinstance(a, Move) and a.by == step.by and tuple(a.to) != tuple(step.to) and any(
                    table.what_if([a, Move(by=s, to=step.to)]) is not None for s in seats):
                out.append(a)
        return tuple(out)

    def _hidden_steps(self, seat: str | None, table: Table) -> tuple[Action, ...]:
        """The acting seat's steps onto the cells held beside the pawn whose marker is unseen
        (:func:`pawn_hidden_cells`: a read there shows no card): offered first when another
        seat's card shows up, since the step the camera could not see would make it that
        seat's turn (without it, the out-of-turn question has no true answer to offer)."""
        look, _ = table.view()
        expected = expected_of(look)
        hidden = pawn_hidden_cells(expected, self._latest)
        return tuple(a for a in table.legal_actions() if isinstance(a, Move) and a.by == seat
                     and cell_name(*a.to) in hidden
                     and formless(self._latest.region(cell_name(*a.to)), self.tuning))
