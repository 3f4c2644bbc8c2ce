"""The draws the camera sees: arms that lift cards from the draw pile, set against the cards
the rules dealt each seat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..engine.actions import Draw, Pass, action_from_json
from ..engine.look import Awaiting, WaitingFor
from ..reading import Reach
from .arms import own_lift
from .core import RefereeCore
from .decide import Decision, DecisionKind, Reason
from .expected import differing, expected_of, short_of
from .hands import DRAW_PILE, Hand, hand_of, lifter, lifts, over

if TYPE_CHECKING:
    from .table import Table


class DrawWatch(RefereeCore):
    """The draws seen (:meth:`_seen_lift`) and the passes they imply."""

    def _draws_first(self, diffs: dict[str, str], table: Table) -> bool:
        """The draws seen before the first arm over a changed region. True when one changed the
        state or asked the table (look again)."""
        # (a region read again that shows what it held may hold the same face played again)
        fresh = set(diffs) | (set(self._latest.changed) & self.regions.actionable)
        while self._reaches:
            reach = self._reaches[0]
            # (an arm seen a cell short of a changed cell may be the hand that changed it)
            at_play = any(over(reach, region) or short_of(reach, region) for region in fresh)
            if lifts(reach):
                if at_play:  # it drew, then played: the draw now, the play next
                    self._reaches[0] = Reach(reach.side, tuple(r for r in reach.regions
                                                               if r != DRAW_PILE), 0)
                else:
                    self._reaches.popleft()
                if self._seen_lift(reach, table):
                    return True
                continue
            if at_play:
                return False
            self._reaches.popleft()
        return False

    def _draws_after(self, table: Table) -> None:
        """The draws seen after the plays (nothing is being asked). An arm over a region still
        to be settled (a card waiting for a phone's tap) is kept as that play's evidence."""
        look, _ = table.view()
        diffs = differing(expected_of(look), self._latest, self.regions.actionable, self.tuning)
        kept: list[Reach] = []
        while self._reaches:
            reach = self._reaches.popleft()
            at_play = any(over(reach, region) for region in diffs)
            if at_play:
                kept.append(Reach(reach.side, tuple(r for r in reach.regions if r != DRAW_PILE), 0))
            if lifts(reach) and self._seen_lift(reach, table) and self._question is not None:
                break  # asked: the arms after this one wait for the answer
        self._reaches.extendleft(reversed(kept))

    def _seen_lift(self, reach: Reach, table: Table) -> bool:
        """An arm that took cards from the draw pile (``lifted``; None: it was there, the count
        unseen). Cards the rules already dealt that seat are no new draw; a new one by the seat
        that must act is its ``draw``; a lift by a seat at its own side that is not on turn is
        asked about (or, right after a draw nobody passed, the pass is inferred). True when the
        state changed or the table was asked."""
        if not self._draws(table):
            return False
        _, waiting = table.view()
        seat = waiting.seat
        hand = hand_of(reach, table.seating)
        who = lifter(hand, seat, table.seats, self.ledger)
        if who is None:
            self.stats["lifts-unplaced"] = self.stats.get("lifts-unplaced", 0) + 1
            return False
        if waiting.what is Awaiting.DRAW_COUNT and seat is not None and who != seat and hand.strong \
                and self._count_done(seat, who, table):
            # the drawer was done counting: the next seat's hand at the pile is its own draw
            _, waiting = table.view()
            seat = waiting.seat
        if reach.lifted is None:
            if self.ledger.owed(who):  # taking what the rules dealt: that count is the engine's
                self.ledger.settle(who)
                return False
            if who != seat:
                return False  # whether it took anything is unknown: nothing to ask about
            if waiting.what is Awaiting.TURN and Draw(by=seat) in table.legal_actions():
                self._ask(Decision(DecisionKind.ASK, DRAW_PILE, choices=(Draw(by=seat),),
                                   reason=Reason.DREW, read=None), waiting)
                return True
            if waiting.what is Awaiting.DRAW_COUNT:
                self.ledger.unsure.add(seat)  # the count is left to the phone
            return False
        new = self.ledger.lifted(who, reach.lifted)
        if new <= 0:
            return False  # the cards the rules dealt (or a phone's draw): counted once
        if who == seat:
            if waiting.what is Awaiting.TURN and Draw(by=seat) in table.legal_actions():
                return self._commit_seen(Draw(by=seat))
            return False  # a draw-until-colour being counted, or a card beyond the rules
        if not hand.strong or seat is None or waiting.what not in (Awaiting.TURN,
                                                                   Awaiting.PLAY_OR_PASS):
            return False
        if waiting.what is Awaiting.PLAY_OR_PASS:
            after = table.what_if([Pass(by=seat)])
            if after is not None and after.what is Awaiting.TURN and after.seat == who:
                # ann drew, then the next seat drew: ann kept her card (the pass nobody tapped)
                if self._commit_seen(Pass(by=seat)):
                    self._commit_seen(Draw(by=who))
                return True
        legal = table.legal_actions()
        choices = (Draw(by=seat),) if Draw(by=seat) in legal else ()
        self._ask(Decision(DecisionKind.ASK, DRAW_PILE, choices=choices, reason=Reason.OUT_OF_TURN,
                           by=who, did="draw", after="turn"), waiting)
        return True

    def _later_lift(self, seat: str, table: Table) -> bool:
        """A card lifted by ``seat``'s own hand (its side, no one else's) among the arms not yet
        taken, beyond what the rules dealt it: taken now (the caller makes it ``seat``'s draw)."""
        reach = own_lift(list(self._reaches), seat, table.seating, self.ledger.owed)
        if reach is None or not reach.lifted:
            return False
        self._reaches.remove(reach)
        self.ledger.lifted(seat, reach.lifted)
        return True

    def _pass_before_tap(self, table: Table) -> None:
        """A phone's tap the rules refused as out of turn (ben taps his card, his draw, UNO)
        while the seat on turn is still in play-or-pass (ann drew and kept her card, with no
        tap): the tap says ann's turn is over. Her pass is made and the tap played again --
        only when the rules take both."""
        tap, self._refused_tap = self._refused_tap, None
        if tap is None:
            return
        _, waiting = table.view()
        if waiting.what is not Awaiting.PLAY_OR_PASS or waiting.seat is None:
            return
        try:
            action = action_from_json(tap)
        except Exception:  # noqa: BLE001 - a tap the engine cannot read: nothing to infer
            return
        if action.by == waiting.seat or table.what_if([Pass(by=waiting.seat), action]) is None:
            return
        if self._commit_seen(Pass(by=waiting.seat)):
            table.act(action, source="phone")

    def _count_closed(self, diffs: dict[str, str], waiting: WaitingFor, table: Table) -> bool:
        """A draw-until-colour being counted, and a card played since: the drawer is done. The
        count seen is committed (less the challenge's extra cards, which the rules add) when
        it leads to the turn of the hand that played; otherwise the phone enters it."""
        seat = waiting.seat
        if seat is None:
            return False
        counted = self.ledger.unexplained(seat)
        if counted < 1 or seat in self.ledger.unsure:
            return False
        i = next((i for i, r in enumerate(self._reaches)
                  if any(over(r, region) for region in diffs)), None)
        hand = hand_of(self._reaches[i], table.seating) if i is not None else Hand(None, ())
        if hand.known and not hand.excludes(seat):
            return False  # the drawer's own hand at the pile: not a play by the next seat
        return self._count_done(seat, hand.seats, table)

    def _count_done(self, seat: str, then: str | Iterable[str], table: Table) -> bool:
        """``seat``'s draw-until-colour is over (a hand of ``then``, a seat or seats, was seen
        acting next; empty: anyone): its count seen is committed, less the challenge's extra
        cards, which the rules add, when that leads to ``then``'s turn."""
        counted = self.ledger.unexplained(seat)
        if seat is None or counted < 1 or seat in self.ledger.unsure:
            return False
        seats = (then,) if isinstance(then, str) else tuple(then)
        pending = table.state_json().get("pending") or {}
        count = max(1, counted - int(pending.get("extra") or 0))
        after = table.what_if([Draw(by=seat, count=count)])
        if after is None or (seats and after.seat not in seats):
            return False
        self.stats["counts-seen"] += 1
        return self._commit_seen(Draw(by=seat, count=count))
