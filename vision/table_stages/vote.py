"""Vote: steady readings over frames, and the table's reading once every region agrees.

Each region being read collects one read per quiet frame (:class:`vision.stabilise.Votes`); it
settles when the last ``votes`` reads agree (or after many reads that never do, flagged
unsure). A settled region's reading is kept with the look it settled on (its id in the reader's
:class:`~vision.looks.LookMemory`, which measures each reading the referee takes from the looks
it remembers the regions by). When nothing is left
to vote on (no region voting or waiting its turn, the pawn settled), something changed since the
last reading or a reach took from the draw pile, and the reaches that are over have their pile
verdict (:meth:`vision.table_stages.arms.Arms.waiting_for_pile`), :meth:`Vote.emit` gives the
next :class:`~companion.reading.TableReading`.

It also plans which regions a frame reads (:meth:`Vote.todo`, :meth:`Vote.pick`): the changed
ones, those still voting and those postponed; at most ``max_reads`` in one frame (a whole table
to read is spread over frames, those already voting first), and a region whose votes were cut
short by motion over the table is read again from scratch.
"""

from __future__ import annotations

from companion.reading import PawnReading, RegionReading, TableReading

from ..geometry import cell_name
from ..looks import LookMemory
from ..stabilise import Votes
from .arms import Arms

__all__ = ["READING_LABELS", "Vote"]

#: The likeliest labels a region's reading keeps with their probabilities. The referee bounds
#: the probability of every label left out by what is left over (``legal_mass``): with only the
#: best few kept, a card read at 0.95 whose legal look-alikes share the rest could not be
#: called illegal, though the model had said how little they were worth.
READING_LABELS = 16


class Vote:
    """The regions' votes, their settled readings and the readings handed out."""

    def __init__(self, game: str, region_names: tuple[str, ...], votes: int = 2,
                 max_reads: int = 7, looks: LookMemory | None = None):
        self.game = game
        #: the looks the regions settled on, and the referee's remembered ones
        self.looks = looks if looks is not None else LookMemory()
        self.region_names = region_names
        #: regions read in one frame at most (a full re-read is spread: the frame time stays low)
        self.max_reads = max_reads
        self.votes = {n: Votes(votes) for n in region_names}
        self.postponed: set[str] = set()
        self.state: dict[str, RegionReading] = {}  # each region's settled reading
        self.dirty: set[str] = set()               # what changed since the last reading
        self.seq = 0
        self.last: TableReading | None = None
        self.draw_changes = 0

    # --- which regions a frame reads -----------------------------------------------------------

    def known(self, name: str) -> bool:
        """Region ``name`` has a settled reading."""
        return name in self.state

    def voting(self) -> set[str]:
        """The regions with votes cast and not yet settled."""
        return {n for n in self.region_names if len(self.votes[n])}

    def todo(self, changed: list[str]) -> set[str]:
        """The regions to read now: ``changed``, those voting and those postponed."""
        return set(changed) | self.voting() | self.postponed

    def pick(self, todo: set[str]) -> set[str]:
        """Of ``todo``, those read in this frame (``max_reads``, those voting first); the others
        are postponed to the next."""
        self.postponed = set()
        if len(todo) <= self.max_reads:
            return todo
        voting = self.voting()
        picked = set(sorted(todo, key=lambda n: (n not in voting, n))[:self.max_reads])
        self.postponed = todo - picked
        return picked

    def restart(self) -> None:
        """Something moves over the table: votes cast before it may show what it has since
        changed (a card put down while a region was half read), so those regions are read again
        from scratch once the table is quiet. Otherwise a region could settle on the old card
        while taking the new one as its reference, and never see the change."""
        for name, v in self.votes.items():
            if name != "draw" and len(v):
                v.clear()
                self.postponed.add(name)

    def anew(self) -> None:
        """A new view: every vote is void and every region changed."""
        for v in self.votes.values():
            v.clear()
        self.dirty |= set(self.region_names)

    # --- votes in, readings out ----------------------------------------------------------------

    def add(self, name: str, label: str, probs: dict[str, float]) -> None:
        """One frame's read of region ``name``."""
        self.votes[name].add(label, probs)

    def settle(self, names: list[str], look) -> list[str]:
        """Of ``names``, the regions whose votes agree now (or never will), settled: their
        reading is kept with ``look(name)`` (the region's look as it settled, by its id in
        :attr:`looks`) and counts as changed."""
        settled = []
        for name in names:
            v = self.votes[name]
            if v.stable or v.exhausted:
                seen = self.looks.add(look(name))
                label, probs, agreed = v.result()
                self.state[name] = RegionReading.of(probs, agreed, top=READING_LABELS, look_id=seen)
                v.clear()
                settled.append(name)
                self.dirty.add(name)
        return settled

    def draw_changed(self) -> None:
        """The draw pile differs from its reference (counted once reading has begun)."""
        self.draw_changes += 1 if self.last is not None or self.seq else 0
        self.votes["draw"].clear()
        self.dirty.add("draw")

    def emit(self, t: float, pawn: PawnReading, pawn_unsettled: bool, arms: Arms,
             source: str) -> TableReading | None:
        """The next reading (time ``t``, the view's ``source``), or None while a region or
        the pawn (``pawn_unsettled``) still votes, nothing changed, or a reach waits for the
        pile's verdict. On the grid, the cell under the pawn keeps the card read before it came."""
        if any(len(v) for n, v in self.votes.items() if n != "draw") or pawn_unsettled \
                or self.postponed - {"draw"}:
            return None
        if not self.dirty and not arms.pending_draw():
            return None
        if arms.waiting_for_pile():
            return None
        if self.game == "grid" and any(cell_name(r, c) not in self.state
                                       for r in range(5) for c in range(5)):
            return None
        cells = self._cells(pawn) if self.game == "grid" else ()
        self.seq += 1
        changed = tuple(sorted(self.dirty))
        self.dirty = set()
        came = arms.take()
        reading = TableReading(self.seq, t, cells, self.state.get("discard"), pawn,
                               self.draw_changes, changed, source, tuple(r for _, r in came))
        self.looks.given(reading)   # (the looks no reading names any more are let go)
        self.last = reading
        return reading

    def _cells(self, pawn: PawnReading) -> tuple[RegionReading, ...]:
        prev = self.last
        out = []
        for r in range(5):
            for c in range(5):
                name = cell_name(r, c)
                reading = self.state[name]
                if pawn.on_board and pawn.cell == (r, c) and prev is not None:
                    # the pawn covers the card: keep the card read before it came
                    before = prev.cell(r, c)
                    reading = RegionReading(before.label, before.confidence, before.probs,
                                            before.agreed, True, look_id=before.look_id)
                    self.state[name] = reading
                out.append(reading)
        return tuple(out)

    def forget(self) -> None:
        """Read everything again: no region's reading is kept, no reading was given."""
        self.state.clear()
        self.last = None
