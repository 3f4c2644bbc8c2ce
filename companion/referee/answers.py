"""A wild's colour awaited from its player's phone, and the table's answers to a question.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING

from ..cards import Card
from ..engine.actions import Action, Draw, Move, Pass
from ..engine.look import Awaiting
from .arms import later_next_arm
from .decide import Decision, Reason
from .evidence import leads_further, shows_more
from .expected import NOT_A_CARD, label_of, region_of
from .hands import DRAW_PILE
from .questions import AnswerRefused, Closed, NothingHappened, QuestionKind, other_card_attempt
from .sightings import Sightings
from .states import Wild, await_colour, colour_done

if TYPE_CHECKING:
    from .table import Answer, Table


class Answers(Sightings):
    """The colour wait and the answers (:meth:`answer`, :meth:`answer_other`)."""

    def _awaits_colour(self, decision: Decision, table: Table) -> bool:
        """A wild lies where the camera expected a play, and only its colour is unknown: its
        player plays it from the seat page, which asks the colour (the normal path; no
        question). Wait for that while this reading stands and for ``colour_wait_s``; the
        turn timer waits too. A new reading (the next card, a hand) or the time out asks."""
        wait = self._colour
        if wait is None or (wait.region, wait.read) != (decision.region, decision.read):
            wild = Wild(decision.region, decision.read, self._latest.seq, self.clock(), decision)
            self.state = await_colour(self.state, wild)
            table.pause_timer()
            return True
        if wait.seq == self._latest.seq and self.clock() - wait.since < self.tuning.colour_wait_s:
            return True
        self.state = colour_done(self.state)  # ask (the question keeps the timer paused)
        return False

    @staticmethod
    def _same_wild(decision: Decision) -> bool:
        """A same-face question about a wild whose first choices are its colours (the play its
        player sends from the phone, which asks the colour)."""
        first = decision.choices[0] if decision.choices else None
        card = getattr(first, "card", None)
        return (decision.reason is Reason.SAME_FACE and card is not None and card.is_wild
                and getattr(first, "color", None) is not None)

    def _overlaid(self, diffs: dict[str, str], table: Table) -> bool:
        """The wild awaited lies under another card now (a later reading shows another card in
        its region) and its colour is still owed (the play is still legal)."""
        wait = self._colour
        assert wait is not None and wait.on_wild is None   # (a wild's own wait: see _settle)
        if wait.seq == self._latest.seq or diffs.get(wait.region) in (None, wait.read) \
                or diffs[wait.region] in NOT_A_CARD:
            return False
        legal = table.legal_actions()
        return any(a in legal for a in wait.decision.choices)

    def _end_colour_wait(self, table: Table) -> None:
        self.state = colour_done(self.state)
        if self._question is None and table.timer.paused:
            table.resume_timer()

    def answer(self, choice: int, by: str = "phone", question_id: int | None = None, *,
               act: bool = True) -> Future[Answer | None]:
        """A phone's (or a table button's) answer to the open question, from any thread. It is
        queued for the referee's thread; the returned future gets the table's
        :class:`~.table.Answer` for an action, None otherwise, once that thread handled it (its
        next :meth:`tick`, :meth:`on_reading` or :meth:`run_pending`). ``act=False``: the
        chosen action was already sent to the table (the web page does that); only close the
        question."""
        future: Future[Answer | None] = Future()
        self._inbox.put(("answer", (choice, by, question_id, act), future))
        return future

    def answer_other(self, card: Card | str, by: str = "phone", question_id: int | None = None,
                     *, color: str | None = None, illegal: bool = False,
                     act: bool = True) -> Future[Answer | None]:
        """A phone's answer "another card": the open question's seat put ``card`` (a card or its
        name; ``color``: a wild's colour) where the question asks, a card the choices did not offer
        (:attr:`Question.other`; from any thread, queued like :meth:`answer`).

        The action it names is checked as the rules would check it, nothing applied: a card of
        no deck of this game, a question that takes no other card, or (unless ``illegal``) a
        play the rules refuse sets :class:`AnswerRefused` on the future, and the question stays
        open. Taken, it is played (``source="confirm"``) and the question is closed as answered,
        like a choice: the region is settled, the arms over it accounted for, and how it looks
        now is remembered as the look of the card named (the camera misread it). ``illegal``:
        the player says the card was put down although the rules refuse it: the attempt is
        recorded as the camera's illegal call would be (the rules' refusal, in Flip and classic
        their penalty). ``act=False``: the web page checked and sent the action itself
        (``illegal`` then says whether the rules refused it); only the question is closed. The
        future gets the table's :class:`~.table.Answer` (None with ``act=False``)."""
        future: Future[Answer | None] = Future()
        self._inbox.put(("other", (card, color, by, question_id, illegal, act), future))
        return future

    def _answer_other(self, card: Card | str, color: str | None, by: str,
                      question_id: int | None, illegal: bool, act: bool) -> Answer | None:
        q = self._question
        if q is None or (question_id is not None and question_id != q.id):
            raise AnswerRefused("no-question", "the camera is not asking that question now")
        action = q.other_action(card, color)
        table = self.table_of()
        if table is None:
            raise AnswerRefused("no-question", "no match is being played")
        if act:
            illegal = other_card_attempt(table, action, illegal)
        self.stats["other-cards"] = self.stats.get("other-cards", 0) + 1
        region = q.region
        under = not illegal and self._under_top(action, region, table)
        if not under:
            self.regions.actionable.discard(region)
        self.regions.blind.discard(region)
        if not illegal and not under:
            # how the region looks now is how the card named looks (the camera misread it):
            # the same look read again is no new play (:func:`.evidence.looks_as_before`)
            name = label_of(action)
            assert name is not None   # (another card: a play or a discard)
            self._remember_look(region, name)
        self._take_reach_over(region)
        self._recheck = True
        self._close_question(action.to_json(), by, Closed.ANSWERED)
        if not act:
            return None
        result = table.act(action, source="confirm", evidence=q.evidence)
        self._feed(result)
        return result

    def _under_top(self, action: Action, region: str, table: Table) -> bool:
        """The card named lies under the card read on the pile now (:func:`.evidence.shows_more`),
        and the arm of the seat that plays after it came in after its player's
        (:func:`.arms.later_next_arm`): the card on top is that seat's play, decided on its own
        once the named card is in."""
        if region != "discard" or self._reading is None \
                or not shows_more(self._reading, action, region, self.margin, self.tuning.expected_odds):
            return False
        after = table.what_if([action])
        nxt = after.seat if after is not None and after.what is Awaiting.TURN else None
        return later_next_arm(self._reading.reaches, action.by, nxt, table.seating)

    def _answer(self, choice: int, by: str, question_id: int | None, act: bool) -> Answer | None:
        q = self._question
        if q is None or (question_id is not None and question_id != q.id):
            return None
        picked = q.choice(choice)
        if picked is None:
            return None
        result = None
        table = self.table_of()
        region = q.region
        if picked.action is not None:
            region = region_of(picked.action) or region
        if q.region == DRAW_PILE or isinstance(picked.action, (Draw, Pass)):
            # what those two seats drew is what the table now says: the lifts seen are those
            # (a play answered, or nothing, says nothing of the cards a seat still has to take)
            for seat in (q.seat, q.by):
                if seat is not None:
                    self.ledger.settle(seat)
        if q.kind is QuestionKind.OUT_OF_TURN and q.did == "play" and isinstance(
                picked.action, (Draw, Pass, Move)):
            # ann drew and passed unseen (or passed; or north stepped the pawn unseen): once
            # that is in, the hand seen over the card (the next seat's) makes the play
            self._recheck = True
        elif leads_further(self._reading, picked.action):
            # a first step the camera missed: where the pawn is now is the next step, to be
            # read against the state once this one is played
            self._recheck = True
        elif shows_more(self._reading, picked.action, region, self.margin, self.tuning.expected_odds):
            # an earlier card than the one lying there now: the region shows a later action
            # too. Who made it the camera cannot tell (it missed a turn): it asks, never commits
            self._recheck = True
            self.regions.blind.add(region)
        else:
            self.regions.actionable.discard(region)
            if picked.nothing in (NothingHappened.MISREAD, NothingHappened.LAID_OUT):
                self._remember_misread(region, table)
            card = getattr(picked.action, "card", None)
            if card is not None and picked.action is not None and region_of(picked.action) == region:
                self._remember_look(region, card.name)
            # the hand over it is accounted for by the answer (where nothing happened there,
            # only its visit: it may have gone on to play further in)
            self._take_reach_over(region, passing=picked.action is None
                                  and picked.nothing is not NothingHappened.OUT_OF_TURN)
            # the reading may show more than the region asked about (the same face played on
            # another card while glare made a card the hand passed over read as another, asked
            # first and answered "misread"): it is settled again
            self._recheck = True
        if q.kind is QuestionKind.SEVERAL and picked.action is None:
            # none of the changes offered happened: every region they showed in was misread
            # (asked again one by one, each answer was "misread" too)
            for shown in filter(None, map(region_of, q.actions)):
                self.regions.actionable.discard(shown)
                self.regions.blind.discard(shown)
        self._close_question(picked.to_json()["action"], by, Closed.ANSWERED)
        if act and picked.action is not None and table is not None:
            result = table.act(picked.action, source="confirm", evidence=q.evidence)
            if q.by is None and q.kind is not QuestionKind.DREW:
                self._feed(result)
        return result
