"""The pawn's steps the camera could not see (its marker hidden by a hand).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from ..engine.actions import Action, Move
from ..reading import cell_name
from .decide import Decision, DecisionKind, Reason
from .evidence import clear, formless
from .expected import Expected, next_to, one_step, pawn_hidden_cells, step_cells
from .hands import hand_of
from .whose import WhoseHand

if TYPE_CHECKING:
    from .table import Table


class PawnWatch(WhoseHand):
    """The pawn stepped unseen: noted, then asked about or committed first."""

    def _note_pawn_left(self, expected: Expected) -> None:
        """The pawn's marker hidden (a hand resting by it) and the cell the state has it on read
        again, clearly showing the card under it: the pawn's body no longer covers that card,
        the pawn was stepped off it unseen (noted once per reading; a sighting clears it)."""
        reading = self._latest
        if reading.pawn is not None and reading.pawn.seen:
            self.pawn_trail = replace(self.pawn_trail, left=None)
            return
        if expected.pawn is None or not reading.cells or self.pawn_trail.noted == (reading.seq, expected.pawn):
            return
        r, c = expected.pawn
        if not (0 <= r < 5 and 0 <= c < 5):
            return
        self.pawn_trail = replace(self.pawn_trail, noted=(reading.seq, expected.pawn))
        name = cell_name(r, c)
        got = reading.region(name)
        if name in reading.changed and clear(got, self.tuning) and got.label == expected.labels.get(name) \
                and self.pawn_trail.left != (r, c):  # (the first reading that showed it counts)
            body = frozenset(n for n in next_to([name]) if formless(reading.region(n), self.tuning))
            self.pawn_trail = replace(self.pawn_trail, left=(r, c), left_at=reading.seq, body=body)

    def _unseen_step(self, legal: list[Action], expected: Expected, diffs: dict[str, str],
                     seat: str | None) -> Decision | None:
        """The pawn stepped off its cell unseen (:meth:`_note_pawn_left`), its marker still
        hidden, and the table shows something else new (the next play): the step is asked
        about first, its legal destinations the choices (where the pawn's body reads, no card,
        first; never the cell of a card just put down), so that the next play is judged on the
        pawn's true place. The reading that showed the step waits unless something else is new
        there (the marker may show again); any later change to the table is asked about (the
        next seat acted, or the pawn stepped again: its body left the cell it was read on)."""
        if expected.pawn is None or self.pawn_trail.left != tuple(expected.pawn):
            return None
        reading = self._latest
        if reading.pawn is not None and reading.pawn.seen:
            return None
        held = pawn_hidden_cells(expected, reading)
        new = [r for r in diffs if r != "pawn" and not (r in held and formless(reading.region(r), self.tuning))]
        later = reading.seq > self.pawn_trail.left_at and any(r in expected.labels for r in reading.changed)
        if not new and not later:
            return None
        played = {r for r in new if not formless(reading.region(r), self.tuning)}
        moves = [a for a in legal if isinstance(a, Move) and (seat is None or a.by == seat)
                 and cell_name(*a.to) not in played]
        if not moves:
            return None
        def body(a: Move) -> int:  # where the body read when the step showed, then where it reads
            if not all(0 <= v < 5 for v in a.to):
                return 2
            name = cell_name(*a.to)
            return 0 if name in self.pawn_trail.body else 1 if formless(reading.region(name), self.tuning) else 2

        moves.sort(key=body)
        self.pawn_trail = replace(self.pawn_trail, left=None)  # asked once: a "misread" answer is not asked again
        return Decision(DecisionKind.ASK, "pawn", choices=tuple(moves), reason=Reason.UNSURE)

    def _step_first(self, legal: list[Action], expected: Expected, diffs: dict[str, str],
                    seat: str | None, table: Table) -> Decision | None:
        """Several regions changed at once, the pawn seen one step from its cell among them
        (its marker was hidden when it moved): the acting seat's step is committed first when
        the arms tell the order -- the first arm seen over any changed region went over the
        pawn's cells only, from the acting seat's side. The rest is then decided as usual (the
        next seat's card after it). None otherwise (the table is asked which came first)."""
        pawn = self._latest.pawn
        if "pawn" not in diffs or pawn is None or not pawn.seen or pawn.cell is None \
                or not one_step(expected.pawn, pawn.cell):
            return None
        step = next((a for a in legal if isinstance(a, Move) and a.by == seat
                     and tuple(a.to) == tuple(pawn.cell)), None)
        if step is None:
            return None
        cells, others = step_cells(expected.pawn, pawn.cell), set(diffs) - {"pawn"}
        for reach in self._reaches:
            regions = set(reach.regions)
            if regions & others or not regions & cells:
                if regions & others:
                    return None  # an arm over another changed region came first (or with it)
                continue
            hand = hand_of(reach, table.seating)
            if not hand.known or hand.excludes(seat):
                return None
            return Decision(DecisionKind.COMMIT, "pawn", step, reason=Reason.HAND,
                            read=diffs["pawn"], gain=math.log(self.tuning.pawn_ratio))
        return None
