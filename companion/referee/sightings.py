"""How each region looked when it last matched the state, and what a change of look says: no
card put down, the same face played, several changes at once, a first look that differs.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, AbstractSet, Iterable

from ..engine.actions import Action
from ..engine.look import TableLook, WaitingFor
from ..reading import cell_name
from .decide import Decision, DecisionKind, Reason, score_actions
from .evidence import arm_short_of, look_changes, no_hand_over, plausible_play, read_again_whole, read_of
from .expected import (
    NOT_A_CARD,
    Expected,
    acting_seat,
    action_read,
    differing,
    expected_of,
    label_of,
    pawn_hidden_cells,
    region_of,
)
from .pawn import PawnWatch

if TYPE_CHECKING:
    from .table import Table


class Sightings(PawnWatch):
    """The regions' looks remembered and what they tell."""

    def _doubt_baseline(self) -> None:
        """The first reading is taken as the layout, but a region where it differs from the
        deal in a way a legal action explains, or where it reads another card than the deal's,
        may show a move made before the camera had its first look: such a region is asked
        about when a play is read there (never committed: it may be how the table was laid
        out); one a legal action explains is looked at at once."""
        table = self.table_of()
        if table is None:
            return
        look, waiting = table.view()
        if not waiting.camera_watches:
            return
        expected = expected_of(look)
        diffs = differing(expected, self._latest, tuning=self.tuning)
        seat = acting_seat(waiting)
        mine = [a for a in table.legal_actions() if seat is None or a.by == seat]
        explained = {c.region for c in score_actions(mine, expected, self._latest, diffs, self._pawn_gain)
                     if c.gain >= self.commit_gain}
        # so does every card region that reads another card than the deal's, however weakly: a
        # clearer read of it later (a blurred card read as a look-alike, then read surely once
        # a hand went by) is the same first look, not a play. (Not "no card": a card never
        # leaves a cell or the pile, and askew cards read so at the deal.)
        named = {r for r, label in diffs.items() if r != "pawn" and label not in NOT_A_CARD}
        self.regions.doubts = explained | named
        self.regions.actionable |= explained

    def _same_face_play(self, waiting: WaitingFor, expected: Expected,
                        legal: Iterable[Action] = (), left_out: AbstractSet[str] = frozenset()
                        ) -> Decision | None:
        """A region that visibly changed, reads the card it held, and looks different from when
        it last matched the state: the same face played on it (decks hold two of most faces),
        or a card only nudged. Only the table can say: ask. (A card taken back after an illegal
        attempt leaves the region looking as before: no question.)"""
        reading = self._latest
        fresh = [r for r in reading.changed if r in expected.labels and r in self.regions.actionable
                 and r not in left_out]
        if not fresh:
            return None
        seat = acting_seat(waiting)
        pawn = reading.pawn.cell if reading.pawn is not None and reading.pawn.seen else None
        pawn = pawn if pawn is not None else expected.pawn  # (unseen: where the state has it)
        sight = self._sight()
        scores, never_seen = look_changes(sight, fresh, expected, pawn)
        t = self.tuning
        threshold = t.same_face_look
        # the whole table read again (the camera was nudged: most regions, never a few that
        # light moving over them or a hand passing stirred; only the card regions count: the
        # pawn's sighting and the draw pile change with a hand resting by the pawn or a draw)
        whole = read_again_whole(reading, expected, t)
        reached = threshold
        if whole:
            # every look is off by the new view's misfit (measured); a card put down stands
            # clear of it, and of the nudge's floor where no arm went over
            misfit = t.nudge_misfit_factor * float(statistics.median(list(scores.values()) or [0.0]))
            threshold = max(t.nudged_same_face_look, misfit)
            reached = max(t.same_face_look, misfit)
        looking_new = [r for r, d in scores.items() if d > threshold or (d > reached and not no_hand_over(sight, r))]
        if whole and len(looking_new) > 1:
            return None
        # (every look counts for the nudge's misfit above; a card is put down by a hand: one no
        # arm went over, where arms were seen, is no card -- a hand resting by the pawn, a
        # neighbour's card, light -- and is not asked about, unless an arm was seen a cell short
        # of it and it looks far past a nudge's misfit; of the others, the one that looks the
        # most different first)
        looking_new = sorted((r for r in looking_new
                              if not no_hand_over(sight, r)
                              or (scores[r] > t.new_face_look and arm_short_of(sight, r))),
                             key=lambda r: -scores[r]) + ([] if whole else never_seen)
        for region in looking_new:
            got = read_of(reading, region)
            want = expected.labels[region]   # (both checked above)
            play = action_read(region, want, seat, expected)
            if play is None:
                continue
            # the legal ways to play that face there (a wild: one per colour)
            legal = list(legal)
            ways = tuple(a for a in legal if a.by == seat and region_of(a) == region
                         and label_of(a) == want)
            # and the likeliest other cards that could lie there now (a misread new card)
            others = [c.action for c in score_actions(
                [a for a in legal if a.by == seat and label_of(a) != want], expected, reading,
                {region: got.label}, self._pawn_gain)][:t.best_choices]
            self.regions.actionable.discard(region)
            return Decision(DecisionKind.ASK, region, choices=(ways or (play,)) + tuple(others),
                            reason=Reason.SAME_FACE, read=got.label)
        return None

    def _several(self, legal: list[Action], expected: Expected, diffs: dict[str, str],
                 seat: str | None) -> Decision | None:
        """Several regions changed at once outside forced plays: more than one action was done
        while the camera could not look, and their order decides who did what. The camera does
        not guess an order: it asks which came first (what each region shows, for the seat on
        turn). A region read unsurely offers, after its likeliest action, those read about as
        likely (within the margin: a blurred red-8 read red-0 at 0.39, red-5 at 0.28 and red-8
        at 0.24 offers all three), so that the one done can be named."""
        mine = [a for a in legal if seat is None or a.by == seat]
        cands = score_actions(mine, expected, self._latest, diffs, self._pawn_gain)
        choices: list[Action] = []
        regions = 0
        for region in sorted(diffs, key=lambda r: (r != "pawn", r)):
            here = [c for c in cands if c.region == region and c.gain >= self.commit_gain]
            if here and region != "pawn" and not plausible_play(read_of(self._latest, region), here[0].action,
                                                            self.margin):
                # no legal action is read there about as likely as what is (a red-2 read at
                # 0.96 on a blue-9: an illegal attempt, called on its own): no action to order
                # (offering only the legal look-alike there would lose the attempt)
                here = []
            if here:
                regions += 1
                near = [c for c in here if c.gain >= here[0].gain - self.margin]
                labels = list(dict.fromkeys(label_of(c.action) for c in near))[:self.tuning.best_choices]
                # (one action per card: a wild's colour is asked once it is known to be first)
                choices += [next(c.action for c in near if label_of(c.action) == label)
                            for label in labels]
        if regions < 2:
            return None
        first = sorted(diffs)[0]
        return Decision(DecisionKind.ASK, first, choices=tuple(choices), reason=Reason.SEVERAL,
                        read=diffs[first])

    def _remember_looks(self, look: TableLook) -> None:
        """Regions that show what the state says: remember how they look now. (Not a region
        read again and not yet settled: the look it had before is what tells the same face
        played on it, once the question that came first is answered -- glare, a card the hand
        passed over asked about first, and the same face played beside it then looked "as
        before".)"""
        reading = self._latest
        expected = expected_of(look)
        diffs = differing(expected, reading, tuning=self.tuning)
        pawn = reading.pawn.cell if reading.pawn is not None and reading.pawn.seen else None
        asked = self._question.region if self._question is not None else None
        hidden = pawn_hidden_cells(expected, reading)  # (the hand hiding the marker may lie there)
        # (a region read again and not yet settled keeps its old look, a question open or not:
        # the same face played on it is looked for once it settles or the answer came)
        unsettled = self.regions.actionable & set(reading.changed)
        for name in expected.labels:
            if name in diffs or name == asked or name in hidden or name in unsettled or (
                    pawn is not None and name == cell_name(*pawn)):
                continue
            got = reading.region(name)
            if got is not None and got.look_id is not None:
                self._keep_look(name, expected.labels[name], got.look_id)

    def _remember_look(self, region: str, card: str) -> None:
        """How ``region`` looks now is how ``card`` looks there, however the camera reads it: a
        card answered as put there (so the same face played on it next is told by its look, even
        while the camera goes on misreading it), a card named as "another card", a misread
        answered."""
        got = self._reading.region(region) if self._reading is not None else None
        if got is not None and got.look_id is not None:
            self._keep_look(region, card, got.look_id)

    def _remember_misread(self, region: str, table: Table | None) -> None:
        """``region`` answered "nothing happened" (misread, or laid out so): how it looks now is
        how the card the state has there looks, misread or not, so the same look read again is
        no play (:func:`.evidence.looks_as_before`), even when the whole table is read again
        through a turned smear and the misread comes back clearly."""
        if table is None or region == "pawn":
            return
        want = expected_of(table.view()[0]).labels.get(region)
        if want is not None:
            self._remember_look(region, want)
