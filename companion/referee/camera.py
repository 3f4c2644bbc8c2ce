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
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections import deque
from concurrent.futures import Future
import math
import queue
import statistics
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Iterable, TypeAlias, TypeGuard


from ..bus import BusMessage, EventBus
from ..cards import Card
from ..engine.errors import BadCard, BadInput, RuleError
from ..engine.actions import Action, Discard, Draw, Move, Pass, Play, Reveal, action_from_json
from ..engine.look import Awaiting, TableLook, WaitingFor
from ..reading import FLOOR, Reach, RegionReading, TableReading, cell_name
from .hands import DRAW_PILE, DrawLedger, Hand, hand_of, lifter, lifts, over
from .looks import look_apart

if TYPE_CHECKING:
    from ..host import Host
    from .table import Answer, Table

__all__ = ["Expected", "expected_of", "acting_seat", "Candidate", "Decision", "DecisionKind",
           "Reason", "score_actions", "decide", "Question", "QuestionKind", "Choice",
           "NothingHappened", "Closed", "CameraReferee", "EMPTY", "legal_mass", "spill_over",
           "AnswerRefused", "NEW_LAYOUT", "OTHER_CARD_KINDS", "other_card_action",
           "other_card_attempt", "other_card_refusal"]

log = logging.getLogger(__name__)

EMPTY = "empty"
#: Log-likelihood gain of a pawn seen on the cell an action moves it to (markers are rarely wrong).
PAWN_GAIN = math.log(200.0)
#: What the referee treats as "no card here" when reading a region.
_NOT_A_CARD = {EMPTY, "back", "none"}
#: Engine events after which the table is laid out anew (the grid's next game, a new round):
#: what the camera reads next is the new layout, not a play.
NEW_LAYOUT = ("new-game", "round")
_NEW_LAYOUT = NEW_LAYOUT
#: The side across the mat from each side.
_FACING = {"north": "south", "south": "north", "east": "west", "west": "east"}
#: Refusals of a phone's tap that mean "not your turn yet" (a pass nobody tapped may explain them).
_TURN_REFUSALS = ("not-your-turn", "no-uno")
#: Look difference (:func:`companion.reading.look_difference`) above which a region that reads
#: the card it held shows a new card of the same face (or that card moved).
SAME_FACE_LOOK = 4.0
#: The same after the camera was nudged and the whole table read again through the new view.
NUDGED_SAME_FACE_LOOK = 12.0
#: Look difference above which a region shows another card than before whatever its read and
#: whether or not a hand was seen going there (twice a nudge's misfit bar).
NEW_FACE_LOOK = 2 * NUDGED_SAME_FACE_LOOK
#: An illegal play is called when the card read is agreed and either this sure of itself
#: (``illegal_confidence``) or at least :data:`NAMED_CONFIDENCE` sure, with every legal reading
#: together no likelier than ``1 - illegal_confidence`` (:func:`legal_mass`): what bounds a
#: false call is how likely a legal move is, not how sure the reader is of one illegal face
#: among others (a pink-9 read at 0.964 with no legal card near it was asked, not called).
NAMED_CONFIDENCE = 0.9
#: The most legal actions an unsure question offers (:func:`_likeliest`).
UNSURE_CHOICES = 5
#: Seconds the referee waits for a wild's colour from its player's phone (the seat page's play
#: of a wild asks the colour) before it asks the table; a new reading (the next card, a hand)
#: ends the wait at once.
COLOUR_WAIT_S = 10.0


# --- what the table should show ------------------------------------------------------------------

@dataclass(frozen=True)
class Expected:
    """The table as the engine's state says it looks: region name -> label, and the pawn's cell."""

    labels: dict[str, str] = field(default_factory=dict)
    pawn: tuple[int, int] | None = None


def expected_of(look: TableLook) -> Expected:
    """The regions' expected labels from the engine's :class:`TableLook` (grid cells, the
    discard top; an empty or unread pile is :data:`EMPTY`)."""
    labels: dict[str, str] = {}
    for (r, c), name in look.cells():
        labels[cell_name(r, c)] = name
    labels["discard"] = look.discard or EMPTY
    pawn = look.pawn
    return Expected(labels, (pawn[0], pawn[1]) if pawn is not None else None)


def acting_seat(waiting: WaitingFor) -> str | None:
    """The seat whose actions the camera looks for (forced plays and a flip's reveal belong to
    who played; an opening reveal anyone may send is looked for from the seat on turn)."""
    return waiting.seat


# --- scoring -------------------------------------------------------------------------------------

def region_of(action: Action) -> str | None:
    """The region an action shows up in on the table (None: the camera cannot see it)."""
    if isinstance(action, Play):
        return cell_name(*action.cell) if action.cell is not None else "discard"
    if isinstance(action, Move):
        return "pawn"
    if isinstance(action, (Discard, Reveal)):
        return "discard"
    return None


def _label_of(action: Action) -> str | None:
    card = getattr(action, "card", None)
    return card.name if card is not None else None


@dataclass(frozen=True)
class Candidate:
    """A legal action and how much better it explains the reading than "nothing happened"
    (natural log of the likelihood ratio)."""

    action: Action
    region: str
    gain: float


def differing(expected: Expected, reading: TableReading, regions: Iterable[str] | None = None) -> dict[str, str]:
    """Regions whose reading differs from the expectation: name -> label read (pawn: the cell)."""
    out: dict[str, str] = {}
    pawn_cell = reading.pawn.cell if reading.pawn is not None and reading.pawn.seen else None
    covered = cell_name(*pawn_cell) if pawn_cell else None
    # the pawn's marker not seen (smeared, a hand over it): where the state says the pawn
    # stands, the reader reads the pawn's body as a card; no card may be played there
    unseen = (cell_name(*expected.pawn)
              if pawn_cell is None and expected.pawn is not None else None)
    for name, want in expected.labels.items():
        if regions is not None and name not in regions:
            continue
        if name == covered:
            continue  # under the pawn: the reading only remembers it
        got = reading.region(name)
        if got is None:
            continue
        if name == unseen and not (got.agreed and got.confidence >= NAMED_CONFIDENCE):
            continue  # (a card put there, read clearly, is still an attempt to call or ask)
        if got.label != want and got.p(want) < 0.5:
            out[name] = got.label
    if pawn_cell is not None and expected.pawn is not None and tuple(pawn_cell) != tuple(expected.pawn):
        if regions is None or "pawn" in regions:
            out["pawn"] = f"{pawn_cell[0]},{pawn_cell[1]}"
    return out


def pawn_hidden_cells(expected: Expected, reading: TableReading) -> set[str]:
    """While the pawn's marker is not seen, the cells where a read that shows no card (no card
    likeliest, or no face at even odds) and that no legal play explains says nothing yet: the
    one the state has the pawn on (its body reads as a card) and the cells one step from it
    (the pawn may have stepped there unseen, or the hand that hides its marker rests over
    them). :func:`decide` waits on such a read instead of asking, and
    :meth:`CameraReferee._settle` keeps the cell to be looked at again once the marker is seen;
    a play the read explains clearly is still committed, a card read at better odds or clearly
    still asked about or called. (The torture's hand over the pawn: 14 of 61 questions were
    such reads, answered "misread" or with the pawn's step, which the marker showed a reading
    later.)"""
    seen = reading.pawn is not None and reading.pawn.seen and reading.pawn.cell is not None
    if seen or expected.pawn is None:
        return set()
    r, c = expected.pawn
    return {cell_name(r, c)} | _next_to([cell_name(r, c)])


def score_actions(actions: Iterable[Action], expected: Expected, reading: TableReading,
                  diffs: dict[str, str]) -> list[Candidate]:
    """Every action that shows up in a differing region, scored; best first."""
    out = []
    for action in actions:
        region = region_of(action)
        if region is None or region not in diffs:
            continue
        if region == "pawn":   # (a step: the pawn's cell read differs, so it was seen)
            cell = reading.pawn.cell
            if isinstance(action, Move) and cell is not None and tuple(cell) == tuple(action.to):
                out.append(Candidate(action, region, PAWN_GAIN))
            continue
        got = reading.region(region)
        assert got is not None   # (a region that differs was read)
        want = expected.labels.get(region, EMPTY)
        gain = math.log(got.p(_label_of(action))) - math.log(got.p(want))
        out.append(Candidate(action, region, gain))
    out.sort(key=lambda c: -c.gain)
    return out


class DecisionKind(Enum):
    """What to do about a region."""

    COMMIT = "commit"    #: play the action on the table
    ILLEGAL = "illegal"  #: call the action read (which the rules refuse)
    ASK = "ask"          #: ask the table (the choices)
    WAIT = "wait"        #: nothing to do yet


class Reason(Enum):
    """Why a decision was taken."""

    CLEAR = "clear"                 #: a legal action explains the region well above the others
    COLOUR = "colour"               #: the same card in several colours: a wild's colour
    READ_CONFIDENTLY = "read-confidently"  #: no legal action fits a confident, agreed reading
    NO_CARD = "no-card"             #: no card where one was expected (a hand, a card lifted)
    UNSURE = "unsure"               #: nothing explains the reading well enough
    SAME_FACE = "same-face"         #: a region reads the card it held but looks different
    SEVERAL = "several"             #: several regions changed at once: their order matters
    FIRST_LOOK = "first-look"       #: the first reading differs from the deal
    OUT_OF_TURN = "out-of-turn"     #: the hand seen is not the hand of the seat that must act
    DREW = "drew"                   #: a hand at the draw pile, how many it took unseen
    HAND = "hand"                   #: the hand seen explains it (a draw seen, a pass inferred)


@dataclass(frozen=True)
class Decision:
    """What to do about one region: ``COMMIT`` an action, call it ``ILLEGAL`` (the action read),
    ``ASK`` the table (``choices``), or ``WAIT``; ``reason`` says why, ``read`` is the label
    read in the region (the pawn: ``"r,c"``), ``gain`` the committed action's log-likelihood
    gain."""

    kind: DecisionKind
    region: str
    action: Action | None = None
    choices: tuple[Action, ...] = ()
    reason: Reason = Reason.UNSURE
    read: str | None = None
    gain: float | None = None
    #: an out-of-turn question: the seat whose hand was seen (``by``), what it did (``did``:
    #: ``play`` or ``draw``) and what the seat that must act still had to do (``after``:
    #: ``drew``, ``passed`` or ``turn``)
    by: str | None = None
    did: str | None = None
    after: str | None = None

    def asked(self, reason: Reason) -> "Decision":
        """A commit or an illegal call turned into a question about its action (``reason``: why
        the camera's word alone is not enough there); any other decision as it is."""
        if self.kind not in (DecisionKind.COMMIT, DecisionKind.ILLEGAL):
            return self
        assert self.action is not None   # (a commit's or a call's action)
        return Decision(DecisionKind.ASK, self.region, choices=(self.action,), reason=reason, read=self.read)


def decide(actions: list[Action], expected: Expected, reading: TableReading, actionable: set[str], seat: str | None,
           *, commit_gain: float = math.log(8.0), margin: float = math.log(8.0),
           illegal_confidence: float = 0.97) -> Decision | None:
    """The next thing to do about the reading, or None when it shows nothing new.

    ``actionable`` names the regions that changed since they were last settled; ``seat`` is the
    seat that acts now (illegal plays are called on it).
    """
    diffs = differing(expected, reading, actionable)
    if not diffs:
        return None
    mine = [a for a in actions if seat is None or a.by == seat]
    cands = score_actions(mine, expected, reading, diffs)
    by_region: dict[str, list[Candidate]] = {}
    for c in cands:
        by_region.setdefault(c.region, []).append(c)
    # first whatever a legal action explains clearly (the pawn first: its marker is surest)
    unsure: list[Decision] = []
    for region in sorted(diffs, key=lambda r: (r != "pawn", r)):
        here = by_region.get(region, [])
        if not here:
            continue
        best = here[0]
        rivals = [c for c in here[1:] if _differs(c.action, best.action)]
        second = rivals[0].gain if rivals else -math.inf
        got = reading.region(region) if region != "pawn" else None
        # the legal action must also be about as likely as what was read best (which may be an
        # illegal card): a legal card at 1 % beside an illegal one at 94 % is no legal play
        # and likelier than "no card" by as much (a card and no card at even odds is no read),
        # and likelier by half the margin than any card no legal action puts there (_illegal_rival)
        plausible = got is None or _plausible(got, best.action, margin,
                                              illegal=_illegal_rival(got, here, expected, region))
        if best.gain >= commit_gain and best.gain - second >= margin and plausible:
            return Decision(DecisionKind.COMMIT, region, best.action, reason=Reason.CLEAR,
                            read=diffs[region], gain=best.gain)
        if rivals and _label_of(rivals[0].action) == _label_of(best.action) and best.gain >= commit_gain \
                and plausible:
            # same card, different colour: a wild whose colour only the player knows (and about
            # as likely as what was read: a wild at 0.1 % beside a red card at 97 % is no wild)
            same = tuple(c.action for c in here if _label_of(c.action) == _label_of(best.action))
            unsure.append(Decision(DecisionKind.ASK, region, choices=same, reason=Reason.COLOUR,
                                   read=diffs[region]))
    if unsure:
        return unsure[0]
    # nothing legal explains the first differing region well enough (a weak read by the pawn
    # whose marker is unseen waits for the marker: it is no evidence yet)
    hidden = pawn_hidden_cells(expected, reading)
    order = sorted(diffs, key=lambda r: (r != "pawn", r))
    weak = [r for r in order if r in hidden and _formless(reading.region(r))]
    if len(weak) == len(order):
        return Decision(DecisionKind.WAIT, order[0], reason=Reason.UNSURE, read=diffs[order[0]])
    region = next(r for r in order if r not in weak)
    label = diffs[region]
    read_action = _action_read(region, label, seat, expected)
    got = reading.region(region) if region != "pawn" else None
    # a pawn marker seen where no single step reaches is a misread or moves the camera missed,
    # never a move to call: only a sighting one step away is an illegal move
    legal_here = by_region.get(region, [])
    confident = (region == "pawn" and reading.pawn.seen and _one_step(expected.pawn, reading.pawn.cell)) or (
        got is not None and got.agreed and (got.confidence >= illegal_confidence or (
            got.confidence >= NAMED_CONFIDENCE
            and legal_mass(got, actions, region, expected) <= 1.0 - illegal_confidence)))
    if read_action is not None and confident and not any(
            _same(c.action, read_action) for c in legal_here):
        return Decision(DecisionKind.ILLEGAL, region, read_action, reason=Reason.READ_CONFIDENTLY,
                        read=label)
    if label in _NOT_A_CARD and not legal_here:
        return Decision(DecisionKind.WAIT, region, reason=Reason.NO_CARD, read=label)
    choices = _likeliest(legal_here, margin)
    if region == "pawn" and reading.pawn.seen and not _one_step(expected.pawn, reading.pawn.cell):
        # the pawn is seen two steps away: the camera missed a step (a nudge, a hand). Offer
        # the legal first steps that lead there; the second is read once the first is known
        choices += tuple(a for a in actions if isinstance(a, Move) and (seat is None or a.by == seat)
                         and _one_step(a.to, reading.pawn.cell))
    # what it looks like, even if the rules forbid it: the likeliest read first, then those read
    # about as likely (within the margin), in the order read, so that the card put down can be
    # named; then the legal plays not among them. (Glare: ben's red-4 on a yellow-3, read red-1
    # at 0.30 and red-4 at 0.19, was asked about as red-1 or the legal plays only; answered
    # "misread", the refused attempt was lost and the turns slipped.)
    looks_like = [read_action] + ([_action_read(region, name, seat, expected)
                                   for name, p in got.probs[1:]
                                   if p > 0 and math.log(p) >= math.log(got.confidence) - margin]
                                  if got is not None and read_action is not None else [])
    read_as: list[Action] = []
    for a in looks_like:
        if a is not None and len(read_as) < UNSURE_CHOICES and not any(_same(a, b) for b in read_as):
            read_as.append(a)
    choices = tuple(read_as) + tuple(c for c in choices if not any(_same(c, a) for a in read_as))
    if got is not None:
        choices = _cover_spread(choices, legal_here, got, expected.labels.get(region, EMPTY), margin)
    return Decision(DecisionKind.ASK, region, choices=choices, reason=Reason.UNSURE, read=label)


def _plausible(got: RegionReading, action: Action, margin: float, illegal: float = 0.0) -> bool:
    """The card ``action`` puts down is read about as likely as the likeliest label (which may
    be a card the rules refuse) and well clear of "no card", each within ``margin`` / 2: a
    legal card at 1 % beside an illegal one at 94 % is no legal play, and a card and no card at
    even odds is no read of either. ``illegal``: how likely the likeliest card no legal action
    puts there is read (:func:`_illegal_rival`), to be cleared as "no card" is."""
    likely = math.log(got.p(_label_of(action)))
    return (likely >= math.log(got.confidence) - margin / 2
            and likely >= math.log(max(_no_card(got), illegal)) + margin / 2)


def _cover_spread(choices: tuple[Action, ...], here: list[Candidate], got: RegionReading, want: str,
                  margin: float) -> tuple[Action, ...]:
    """``choices`` and, while what they leave out of the read is still within the margin of the
    likeliest label (an eighth of it or more), the next legal plays in the order they explain
    the read, one per card, up to :data:`UNSURE_CHOICES`. A blurred drawn card is often read
    fourth, the three above it together only about 0.7 to 0.8: it must be offered to be named
    (motion blur, classic seed 10: ann's green-6 read green-4 0.53, green-1 0.11,
    green-draw-two 0.08, green-6 0.06 was offered as the first three, answered "misread", and
    the turns after it were called illegal; 640x480 seed 13: ben's blue-9 read fourth at 0.045
    the same way). A read sure of its first few (together all but an eighth of the likeliest)
    offers no more."""
    listed: dict[str | None, float] = dict(got.probs)
    offered = {_label_of(a) for a in choices} | {want}
    out = list(choices)
    for c in here:
        left = 1.0 - sum(listed.get(name, 0.0) for name in offered)
        if len(out) >= UNSURE_CHOICES or left <= got.confidence * math.exp(-margin):
            break
        name = _label_of(c.action)
        if name not in offered and listed.get(name, 0.0) > 0.0:  # (a card the read names)
            out.append(c.action)
            offered.add(name)
    return tuple(out)


def _likeliest(here: list[Candidate], margin: float) -> tuple[Action, ...]:
    """The legal actions an unsure question offers: the three that explain the read best, then
    other cards read within ``margin`` of the best (one action each), up to
    :data:`UNSURE_CHOICES`. A read spread over several cards must offer the one put there to
    be named: a dim green-6 read green-4 at 0.39, green-3, green-reverse, then itself at 0.08,
    was answered "misread" and the play missed."""
    out = [c.action for c in here[:3]]
    labels = {_label_of(a) for a in out}
    for c in here[3:]:
        if len(out) >= UNSURE_CHOICES or c.gain < here[0].gain - margin:
            break
        if _label_of(c.action) not in labels:
            out.append(c.action)
            labels.add(_label_of(c.action))
    return tuple(out)


def _no_card(got: RegionReading) -> float:
    """How likely the read says the region shows no card (a hand, a shadow, a face the reader
    cannot name): a play read there must be about as much likelier than that as it must be
    than the best read (:func:`decide`'s ``plausible``). (The torture's real-faced yellow-5
    read yellow-2 at 0.40 beside "empty" at 0.36, on a cell holding yellow-1, was committed as
    yellow-2: a card and no card at even odds is no read of either.)"""
    return max(got.p(label) for label in _NOT_A_CARD)


def _illegal_rival(got: RegionReading, here: list[Candidate], expected: Expected, region: str) -> float:
    """How likely the read says the region shows a card no legal action of the acting seat puts
    there (nor the card the state has there): the likeliest such card. A play read there must
    be about as much likelier than that as than "no card" (:func:`decide`'s ``plausible``):
    the legal rivals are held apart by the whole margin, an illegal one by half of it. (Motion
    blur, grid seed 14: south's blue-8 put on a green-5, read blue-5 at 0.34 beside blue-3 at
    0.25, was committed as the legal blue-5; the refused attempt was lost.)"""
    legal = {_label_of(c.action) for c in here} | {expected.labels.get(region, EMPTY)} | _NOT_A_CARD
    return max((p for name, p in got.probs if name not in legal), default=FLOOR)


def _bare(diffs: dict[str, str], expected: Expected, reading: TableReading, margin: float) -> set[str]:
    """Regions where a card lies that read "no card" well above any card (by the margin): a
    card never leaves a grid cell or the discard pile but by a change the state knows (a new
    layout, a card taken back), so no play shows there; the light hid the card (in dim light a
    wild's black face on the pile read "no card" at 0.93 and was asked about, "misread"). What
    covers it, once lifted, shows the card again; a card put on it is a change."""
    out = set()
    for region, label in diffs.items():
        if region == "pawn" or label not in _NOT_A_CARD or expected.labels.get(region, EMPTY) in _NOT_A_CARD:
            continue
        got = reading.region(region)
        assert got is not None   # (a region that differs was read)
        cards = [p for name, p in got.probs if name not in _NOT_A_CARD]
        if math.log(got.confidence) - math.log(max(cards, default=FLOOR)) >= margin:
            out.add(region)
    return out


def _read(reading: TableReading, region: str) -> RegionReading:
    """The reading of ``region``, one that was read (a region that differs from the state)."""
    got = reading.region(region)
    assert got is not None
    return got


def _clear(got: RegionReading | None) -> TypeGuard[RegionReading]:
    """A region read clearly enough to call on or ask about at once."""
    return got is not None and got.agreed and got.confidence >= NAMED_CONFIDENCE


def _formless(got: RegionReading | None) -> bool:
    """A read that shows no card: no card likeliest, or no face at even odds (the pawn's body,
    a hand). A card read at better odds, if weakly (a smeared green-7 read green-1 at 0.64),
    is a play to ask about at once."""
    return got is not None and not _clear(got) and (got.label in _NOT_A_CARD or got.confidence < 0.5)


def legal_mass(got: RegionReading, actions: Iterable[Action], region: str, expected: Expected) -> float:
    """How likely the reading of ``region`` is, at most, to show something no illegal call may
    be made on: a card any seat may legally put there, or the card the state says lies there
    (nothing happened). The reading lists its likeliest labels only; a label it leaves out is
    no likelier than the least likely one listed, and all of them together hold no more than
    the probability left over: each unlisted legal label counts that much, so the figure never
    understates the risk of calling a legal move illegal."""
    allowed = {_label_of(a) for a in actions if region_of(a) == region} | {
        expected.labels.get(region, EMPTY)}
    listed = dict(got.probs)
    left_over = max(0.0, 1.0 - sum(listed.values()))
    least = min(listed.values(), default=1.0)
    unlisted = sum(1 for label in allowed if label not in listed)
    return sum(p for label, p in listed.items() if label in allowed) + max(
        FLOOR * unlisted, min(left_over, least * unlisted))


def _read_again_whole(reading: TableReading, expected: Expected) -> bool:
    """The reading read most of a grid's regions again (more than half of those the state has,
    and more than five: a pile game's one or two regions are never a whole table): the camera
    was nudged and the whole table is seen through a new view."""
    again = sum(1 for r in reading.changed if r in expected.labels)
    return again > 5 and 2 * again > len(expected.labels)


def _cell(name: str) -> tuple[int, int] | None:
    if not name.startswith("cell-"):
        return None
    _, r, c = name.split("-")
    return int(r), int(c)


def _next_to(regions: Iterable[str]) -> set[str]:
    """The grid cells one step from any of ``regions`` (cells)."""
    out = set()
    for here in filter(None, map(_cell, regions)):
        out |= {cell_name(here[0] + dr, here[1] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= here[0] + dr < 5 and 0 <= here[1] + dc < 5}
    return out


#: The step (rows, columns) from a cell towards each side of the mat: row 0 lies along the
#: north side, column 0 along the west.
_TOWARDS: dict[str | None, tuple[int, int]] = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}


def short_of(reach: Reach, region: str) -> bool:
    """The arm was seen over the cell next to ``region`` on its own side of the mat: its hand
    may have reached ``region`` one cell further in (the hand's point is measured short of the
    fingers, less the shadow it throws)."""
    here, step = _cell(region), _TOWARDS.get(reach.side)
    if here is None or step is None:
        return False
    return cell_name(here[0] + step[0], here[1] + step[1]) in reach.regions


def spill_over(diffs: dict[str, str], played: Iterable[str] = ()) -> set[str]:
    """Grid cells that read no card (a card never leaves the grid) next to a cell where a card
    was just put (one that reads a new card, or ``played``): the new card, dropped askew,
    reaches over them, or the hand that put it did. Nothing happened there (the torture's
    askew cards: every such cell asked about was answered "misread")."""
    new_cards = [r for r, label in diffs.items() if label not in _NOT_A_CARD] + list(played)
    near = _next_to(new_cards)
    return {name for name, label in diffs.items() if label in _NOT_A_CARD and name in near}


def _one_step(start: tuple[int, int] | None, to: tuple[int, int] | None) -> bool:
    """``to`` is one king's step from ``start`` (the only pawn moves a player can make)."""
    if start is None or to is None:
        return False
    return max(abs(to[0] - start[0]), abs(to[1] - start[1])) == 1


def _step_cells(start: tuple[int, int] | None, to: tuple[int, int]) -> set[str]:
    """The grid regions of the cell a pawn's step left and the one it came to."""
    return {cell_name(*cell) for cell in ((start, to) if start is not None else (to,))}


def _differs(a: Action, b: Action) -> bool:
    return a.to_json() != b.to_json()


def _same(a: Action, b: Action) -> bool:
    ja, jb = a.to_json(), b.to_json()
    ja.pop("color", None), jb.pop("color", None)
    return ja == jb


def _action_read(region: str, label: str, seat: str | None, expected: Expected) -> Action | None:
    """The action the reading shows, legal or not (for calling an illegal play)."""
    if seat is None or label in _NOT_A_CARD:
        return None
    try:
        if region == "pawn":
            r, c = (int(v) for v in label.split(","))
            return action_from_json({"by": seat, "do": "move", "to": [r, c]})
        if region.startswith("cell-"):
            _, row, col = region.split("-")
            return action_from_json({"by": seat, "do": "play", "card": label, "cell": [int(row), int(col)]})
        if region == "discard":
            grid = any(k.startswith("cell-") for k in expected.labels)
            return action_from_json({"by": seat, "do": "discard" if grid else "play", "card": label})
    except Exception:  # noqa: BLE001 - a label the engine does not know is simply not an action
        return None
    return None


# --- the live referee ----------------------------------------------------------------------------

class QuestionKind(Enum):
    """What the camera asks the table."""

    #: which colour the seat chose for a wild (the choices differ only in colour)
    COLOUR = "colour"
    #: did the seat play another card of the face lying there (or another card)?
    SAME_FACE = "same-face"
    #: several changes at once: which came first (the others follow)?
    SEVERAL = "several"
    #: the first look differs from the deal: was the card already played?
    FIRST_LOOK = "first-look"
    #: the camera is unsure what happened in the region: what was it?
    UNSURE = "unsure"
    #: the hand seen belongs to another seat (``by``) than the one that must act: did ``by``
    #: act before ``seat`` was done?
    OUT_OF_TURN = "out-of-turn"
    #: ``seat``'s hand was at the draw pile, but the camera could not tell whether it took a card
    DREW = "drew"


class NothingHappened(Enum):
    """The last choice of every question: no action happened, and why the camera saw one."""

    MISREAD = "misread"        #: the camera misread
    ONLY_MOVED = "only-moved"  #: the card lying there was only moved
    LAID_OUT = "laid-out"      #: the table was laid out like this
    OUT_OF_TURN = "out-of-turn"  #: yes, it was out of turn: the card goes back, nothing counts


class Closed(Enum):
    """Why a question closed (``confirmed``'s ``why``)."""

    ANSWERED = "answered"              #: a phone or a button answered it
    NO_CHANGE = "no-change"            #: the region shows what is expected again
    READ_CLEARLY = "read-clearly"      #: the camera then read the region clearly
    CALLED_ILLEGAL = "called-illegal"  #: the camera then called the play illegal
    REPLACED = "replaced"              #: a new question replaced it
    OVERTAKEN = "overtaken"            #: the table moved on (a draw question after the turn)


_QUESTION_OF = {Reason.COLOUR: QuestionKind.COLOUR, Reason.SAME_FACE: QuestionKind.SAME_FACE,
                Reason.SEVERAL: QuestionKind.SEVERAL, Reason.FIRST_LOOK: QuestionKind.FIRST_LOOK,
                Reason.OUT_OF_TURN: QuestionKind.OUT_OF_TURN, Reason.DREW: QuestionKind.DREW}
_NOTHING_OF = {QuestionKind.SAME_FACE: NothingHappened.ONLY_MOVED,
               QuestionKind.FIRST_LOOK: NothingHappened.LAID_OUT,
               QuestionKind.OUT_OF_TURN: NothingHappened.OUT_OF_TURN}
#: The questions about the card in one region that a player may answer by naming another card
#: than those offered ("another card..."): the card model may have read the card put down with
#: the true card far down its list, out of the choices. (Not the questions about several
#: regions, whose hand, or the draw pile.)
OTHER_CARD_KINDS = frozenset({QuestionKind.UNSURE, QuestionKind.SAME_FACE,
                              QuestionKind.FIRST_LOOK, QuestionKind.COLOUR})


class AnswerRefused(Exception):
    """An answer the referee does not take; nothing changed and the question stays open.

    ``code`` is stable (``no-question``, ``no-other-card``, ``bad-card``, ``bad-input``, or the
    rules' own refusal code such as ``not-matching``), ``message`` says it in English (logs),
    ``params`` what a page needs to say it in its own language. ``illegal``: the rules refuse
    the card named there (the card is known; the player may still say it was put down, and
    the attempt is then recorded as the rules' refusal: ``answer_other(illegal=True)``)."""

    def __init__(self, code: str, message: str, *, illegal: bool = False,
                 params: dict[str, Any] | None = None):
        super().__init__(message)
        self.code, self.message, self.illegal = code, message, illegal
        self.params = dict(params or {})


def other_card_refusal(table: Table, action: Action) -> AnswerRefused | None:
    """Why another card named (``action``, from :func:`other_card_action`) is not taken on
    ``table`` (a :class:`~.table.Table`) now, nothing applied: the rules' own refusal
    (:meth:`~.table.Table.check`). Only a play they refuse is ``illegal`` (a player may say it
    was put down all the same); a card that is no card in play there (``bad-card``: not of
    this game's deck or of the side showing, or every copy already face up) or an action
    malformed for the game (``bad-input``) names nothing that could have been put down.
    None: the rules take it."""
    problem = table.check(action)
    if problem is None:
        return None
    return AnswerRefused(problem.code, problem.message, params=problem.params,
                         illegal=not isinstance(problem, (BadCard, BadInput)))


def other_card_attempt(table: Table, action: Action, illegal: bool = False) -> bool:
    """Whether another card named (``action``) goes to ``table`` as an illegal attempt: False
    when the rules take it; True when they refuse the play there and the player said it was put
    down all the same (``illegal``). Any other refusal is raised (:class:`AnswerRefused`, from
    :func:`other_card_refusal`), nothing applied."""
    refused = other_card_refusal(table, action)
    if refused is not None and not (illegal and refused.illegal):
        raise refused
    return refused is not None


def other_card_action(region: str, seat: str, do: str, card: Card | str,
                      color: str | None = None) -> Action:
    """The action "``seat`` put ``card`` in ``region``" (a grid cell, or the discard pile with
    ``do``: ``play``, or ``discard`` in the grid game); ``color``: a wild's colour. Raises
    :class:`AnswerRefused` (``bad-card``, ``bad-input``) for what names no such action."""
    if isinstance(card, Card):
        card = card.name
    if not isinstance(card, str):
        raise AnswerRefused("bad-input", f"'card' must be a card name, got {type(card).__name__}")
    data: dict[str, Any] = {"by": seat, "do": do, "card": card}
    cell = _cell(region)
    if cell is not None:
        data["cell"] = list(cell)
    elif region != "discard" or do not in ("play", "discard"):
        raise AnswerRefused("no-other-card", f"no card is put at {region!r}")
    if color is not None:
        data["color"] = color
    try:
        return action_from_json(data)
    except RuleError as exc:
        raise AnswerRefused(exc.code, exc.message, params=exc.params) from None


@dataclass(frozen=True)
class Choice:
    """One answer to a question: an action (``action``), or nothing happened (``nothing``)."""

    id: int
    action: Action | None = None
    nothing: NothingHappened | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"id", "action"}`` (the replay form, or null) and ``"nothing"`` for that choice."""
        out: dict[str, Any] = {"id": self.id,
                               "action": self.action.to_json() if self.action is not None else None}
        if self.nothing is not None:
            out["nothing"] = self.nothing.value
        return out


@dataclass(frozen=True)
class Question:
    """A question to the table, as data: its ``kind``, the ``seat`` it is for, the ``region``
    it is about, the ``card`` read there (None: the pawn) and the ``choices`` (actions, then one
    :class:`NothingHappened` choice). The page words it in the reader's language.

    An :attr:`QuestionKind.OUT_OF_TURN` question also names the seat whose hand was seen
    (``by``), what it did (``did``: ``play``/``draw``) and what ``seat`` still had to do
    (``after``: ``drew``, ``passed``, ``turn``): "Did ben play before ann drew?". These three
    go out in the event only when set."""

    id: int
    kind: QuestionKind
    region: str
    seat: str | None
    card: str | None
    choices: tuple[Choice, ...]
    by: str | None = None
    did: str | None = None
    after: str | None = None
    #: the ``do`` word of the action another card names (``play``, or ``discard`` for the grid
    #: game's discard pile); None: the question takes no other card (:meth:`other_action`)
    other: str | None = None
    #: the id of the camera frame the question was asked on (:attr:`CameraReferee.witness`)
    evidence: str | None = None

    @classmethod
    def of(cls, id: int, decision: Decision, seat: str | None, card: str | None,
           pile: str = "play") -> "Question":
        """The question an ``ASK`` decision puts to ``seat`` (``card``: the label read).
        ``pile``: the ``do`` word of a card put on the discard pile (``discard`` in the grid
        game), for :attr:`other`."""
        kind = _QUESTION_OF.get(decision.reason, QuestionKind.UNSURE)
        choices = tuple(Choice(i, action=a) for i, a in enumerate(decision.choices))
        nothing = Choice(len(choices), nothing=_NOTHING_OF.get(kind, NothingHappened.MISREAD))
        other = None
        if kind in OTHER_CARD_KINDS and seat is not None and decision.by is None:
            other = ("play" if decision.region.startswith("cell-")
                     else pile if decision.region == "discard" else None)
        return cls(id, kind, decision.region, seat, card, choices + (nothing,), decision.by,
                   decision.did, decision.after, other)

    def other_action(self, card: Card | str, color: str | None = None) -> Action:
        """The action "another card" names: ``card`` (a card or its name; ``color``: a wild's colour on
        the discard pile) put by the question's seat where the question asks (its cell, or the
        discard pile). :class:`AnswerRefused` when the question takes no other card
        (``no-other-card``) or ``card`` names no card (``bad-card``, ``bad-input``)."""
        if self.other is None or self.seat is None:
            raise AnswerRefused("no-other-card", f"this {self.kind.value} question is answered "
                                                 f"by its choices only")
        return other_card_action(self.region, self.seat, self.other, card, color)

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions offered (without the "nothing happened" choice)."""
        return tuple(c.action for c in self.choices if c.action is not None)

    @property
    def signature(self) -> tuple[str, str | None, tuple[str, ...], str | None]:
        """Equal for the same question asked again (the id aside)."""
        return (self.region, self.card, tuple(repr(a.to_json()) for a in self.actions), self.by)

    def choice(self, choice_id: int) -> Choice | None:
        return next((c for c in self.choices if c.id == choice_id), None)

    def to_json(self) -> dict[str, Any]:
        """The ``confirm-needed`` event's fields: id, kind, seat, region, card, choices (and
        by, did, after for an out-of-turn question)."""
        out = {"id": self.id, "kind": self.kind.value, "seat": self.seat, "region": self.region,
               "card": self.card, "choices": [c.to_json() for c in self.choices]}
        if self.by is not None:
            out.update(by=self.by, did=self.did, after=self.after)
        if self.other is not None:
            out["other"] = self.other
        if self.evidence is not None:
            out["evidence"] = self.evidence
        return out


#: A wild whose colour its player's phone is expected to give: (region, label read, reading
#: seq, since, the decision[, what the table waited for]).
_ColourWait: TypeAlias = (tuple[str, str | None, int, float, Decision]
                          | tuple[str, str | None, int, float, Decision, WaitingFor])


class CameraReferee:
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
    :attr:`has_baseline` and :attr:`stats` (snapshots; never changed from outside).

    ``witness`` (optional, called on the referee's thread) keeps the frame a decision was taken
    on: it is called with the regions the decision is about when the referee commits an action,
    calls one illegal or asks a question, and returns an id (or None); the action's events and
    the question carry it as ``evidence``, and an answer to the question is played with the
    question's. The referee handles no pixels: what the id names is the caller's.
    """

    def __init__(self, table_of: Callable[[], Table | None], bus: EventBus, *, host: Host | None = None,
                 commit_ratio: float = 8.0, margin_ratio: float = 8.0,
                 illegal_confidence: float = 0.97, clock: Callable[[], float] = time.monotonic,
                 witness: Callable[[tuple[str, ...]], str | None] | None = None) -> None:
        self.table_of = table_of
        self.witness = witness
        self.clock = clock
        #: (region, label, reading seq, since, decision[, waiting]): a wild seen whose colour its
        #: player's phone is expected to give (no question yet)
        self._colour_wait: _ColourWait | None = None
        self.bus = bus
        self.host = host
        self.commit_gain = math.log(commit_ratio)
        self.margin = math.log(margin_ratio)
        self.illegal_confidence = illegal_confidence
        self._inbox: queue.SimpleQueue[tuple[str, Any, Future[Answer | None] | None]] = queue.SimpleQueue()
        # (kind, payload, future)
        self._reading: TableReading | None = None
        self._actionable: set[str] = set()
        self._doubts: set[str] = set()    # baseline regions that may show an early move
        #: regions that changed together while the camera could not look (several at once):
        #: how many actions each hides is unknown, so none of them is committed unasked
        self._blind: set[str] = set()
        #: region -> (the label the state gave it, its look) when it last matched the state
        self._looks: dict[str, tuple[str, Any]] = {}
        #: the cell the pawn was seen to leave while its marker was hidden (its card read clearly
        #: where the pawn stood), and the reading that showed it: a step to ask about
        self._pawn_left: tuple[int, int] | None = None
        self._pawn_left_at: int = -1
        #: the cells next to it where the pawn's body read then (no card): where it went
        self._pawn_body: set[str] = set()
        self._pawn_noted: tuple[int, tuple[int, int] | None] | None = None  # (reading, cell) last looked at
        self._question: Question | None = None
        self._ids = itertools.count(1)
        self._recheck = False
        #: the arms seen and not yet accounted for, oldest first (see :meth:`_settle`)
        self._reaches: deque[Reach] = deque(maxlen=64)
        #: cards the rules dealt each seat against the cards the camera saw it lift
        self.ledger = DrawLedger()
        #: the bus events that follow the referee's own actions are fed from their answers
        self._own_action = False
        self._asked_waiting: WaitingFor | None = None  # the state a draw-pile question was asked in
        #: a phone's tap the rules refused as out of turn while a seat kept its drawn card
        self._refused_tap: dict[str, Any] | None = None
        self.stats = {"commits": 0, "illegal": 0, "questions": 0, "readings": 0,
                      "draws-seen": 0, "passes-inferred": 0, "counts-seen": 0}
        #: the latest decisions (seq of the reading, Decision), for the live view and debugging
        self.decisions: deque[tuple[int, Decision]] = deque(maxlen=200)
        #: called with each Decision as it is taken (the scripted runs trace them)
        self.on_decision: Callable[[Decision], None] | None = None
        self._unsubscribe = bus.subscribe(self._on_event, {"action", "undone", "match-started",
                                                           "reshuffle", "drew", *_NEW_LAYOUT})

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
    def _latest(self) -> TableReading:
        """The reading being settled (on the referee's thread, once there is one)."""
        assert self._reading is not None
        return self._reading

    @property
    def has_baseline(self) -> bool:
        """A first reading of this match was taken (what lies there is the layout)."""
        return self._reading is not None

    # --- from other threads: only queued, handled on the referee's thread ----------------

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
                    and message.data.get("error") in _TURN_REFUSALS:
                self._refused_tap = message.data.get("action")
            if message.data.get("source") == "camera":
                return
        if message.type == "drew":
            if not self._own_action:
                self._engine_drew(message.data.get("seat"), message.data.get("count") or 0)
            return
        if message.type == "match-started" or message.type in _NEW_LAYOUT:
            # the table is laid out again: its next reading is the new baseline
            self._reading = None
            self._doubts = set()
            self._blind = set()
        if message.type in ("undone", "match-started", *_NEW_LAYOUT):
            # hands are dealt again, or the table put right by hand: no draw is owed or seen
            self.ledger.clear()
            self._reaches.clear()
        if message.type in ("undone", "match-started", "reshuffle", *_NEW_LAYOUT):
            # the table must be put right by hand: what lies there now is no new action
            self._actionable.clear()
        self._recheck = True

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

    def _feed(self, answer: Answer | None) -> None:
        """The cards the referee's own action dealt (its bus copies are not counted again)."""
        for e in getattr(answer, "events", ()):
            if e.get("type") == "drew":
                self._engine_drew(e.get("seat"), e.get("count") or 0)

    # --- readings -------------------------------------------------------------------------

    def on_reading(self, reading: TableReading) -> list[Decision]:
        """A new stable reading: settle what it shows. Returns the decisions taken (for tests)."""
        self.run_pending()
        self.stats["readings"] += 1
        first = self._reading is None
        self._reading = reading
        if not first:  # the first reading is the table as it was laid out: the baseline
            self._actionable |= set(reading.changed)
            self._reaches.extend(getattr(reading, "reaches", ()) or ())
        else:
            self._doubt_baseline()
        if self.host is not None:
            self.host.show_reading(reading.to_json())
        self.bus.publish("reading", reading=reading.to_json())
        return self._settle()

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
        diffs = differing(expected, self._latest)
        seat = acting_seat(waiting)
        mine = [a for a in table.legal_actions() if seat is None or a.by == seat]
        explained = {c.region for c in score_actions(mine, expected, self._latest, diffs)
                     if c.gain >= self.commit_gain}
        # so does every card region that reads another card than the deal's, however weakly: a
        # clearer read of it later is the same first look (motion blur, grid seed 11, real
        # faces: a red-6 read red-9 at 0.78 beside red-6 at 0.20 in the first reading, then at
        # 0.92 once a hand went by, was committed as south's play). (Not "no card": a card
        # never leaves a cell or the pile, and askew cards read so at the deal.)
        named = {r for r, label in diffs.items() if r != "pawn" and label not in _NOT_A_CARD}
        self._doubts = explained | named
        self._actionable |= explained

    def tick(self) -> None:
        """Handle what was queued, run the turn timer; re-check the last reading after actions
        from phones."""
        self.run_pending()
        table = self.table_of()
        if table is None:
            return
        table.poll_timer()
        if self._colour_wait is not None and self.clock() - self._colour_wait[3] >= COLOUR_WAIT_S:
            self._recheck = True  # no colour came from the phone: ask
        if self._recheck:
            self._recheck = False
            if self._reading is not None:
                self._settle()

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
        for _ in range(12):  # a few actions may show up in one reading (forced plays, draws)
            look, waiting = table.view()
            expected = expected_of(look)
            diffs = differing(expected, self._latest, self._actionable)
            spilled = spill_over(diffs, {d.region for d in done if d.kind is DecisionKind.COMMIT})
            if pawn_was is not None and look.pawn is not None and tuple(look.pawn) != tuple(pawn_was):
                # the cell the pawn just stepped off reads no card: its card was under the pawn
                # and a card never leaves the grid (askew: every such cell was answered "misread")
                left = cell_name(*pawn_was)
                if diffs.get(left) in _NOT_A_CARD:
                    spilled = spilled | {left}
            if spilled and self._question is None:
                # a neighbour's card dropped askew (or a hand) over a cell: no card was taken
                # from it; it is looked at again when it changes again
                self._actionable -= spilled
                diffs = {r: v for r, v in diffs.items() if r not in spilled}
            untouched = (self._untouched(diffs, expected)
                         | {r for r in _bare(diffs, expected, self._latest, self.margin)
                            if not self._put_down_there(r)}
                         | self._looks_as_before(diffs, expected)) if self._question is None else set()
            if untouched:
                # no hand went there, or no card shows where one lies: the light or a smear
                # changed the read, not a card; it is looked at again when it changes again
                self._actionable -= untouched
                diffs = {r: v for r, v in diffs.items() if r not in untouched}
            wait = self._colour_wait
            if wait is not None and len(wait) > 5:  # a wild on a wild, awaited from the phone
                if waiting != wait[5]:  # the phone played it: the region is explained
                    self._actionable.discard(wait[0])
                    self._end_colour_wait(table)
                elif (wait[2] != self._latest.seq or self.clock() - wait[3] >= COLOUR_WAIT_S) \
                        and self._question is None:
                    self._colour_wait = None  # no phone: the same face is asked after all
                    done.append(wait[4])
                    self._ask(wait[4], waiting)
                    break
            elif self._colour_wait is not None and self._colour_wait[0] not in diffs:
                # the phone gave the play (or the card went): what the region shows is explained,
                # no same face played on it
                self._actionable.discard(self._colour_wait[0])
                self._end_colour_wait(table)
            if self._colour_wait is not None and len(self._colour_wait) == 5 and self._question is None \
                    and self._overlaid(diffs, table):
                # the next card came before the wild's colour: the wild is asked first (the card
                # on it is then asked in turn: who put it there the camera did not see settle)
                wild, self._colour_wait = self._colour_wait[4], None
                done.append(wild)
                self._trace(wild)
                self._ask(wild, waiting)
                break
            decided = {d.region for d in done}
            # (weak reads by the pawn whose marker is unseen wait until it is seen again)
            held = pawn_hidden_cells(expected, self._latest)
            # regions that now look as expected are settled (a fresh cell reading the same card
            # is looked at once more below: the same face may have been played on it)
            for region in list(self._actionable):
                if region not in diffs and region not in held and not (
                        region in self._latest.changed and region != "pawn" and region not in decided):
                    self._actionable.discard(region)
            q = self._question
            if q is not None and q.region == DRAW_PILE:
                if waiting != self._asked_waiting:  # the table moved on: the question is stale
                    self._close_question(None, "table", Closed.OVERTAKEN)
            elif q is not None and q.region not in diffs and not (
                    q.region == "pawn" and not (self._latest.pawn and self._latest.pawn.seen)):
                # (a step asked about while the marker is hidden stays asked: no sighting
                # says it is settled)
                self._close_question(None, "table", Closed.NO_CHANGE)
            if self._question is None and self._draws_first(diffs, table):
                continue
            if not diffs and self._question is None and waiting.camera_watches \
                    and not any(d.kind is DecisionKind.ASK for d in done):
                # (a card the pawn uncovered is no new card: its cell is left out)
                left_out = decided | ({cell_name(*pawn_was)} if pawn_was else set())
                # (nor is a cell next to one just played on: the new card, dropped askew, or
                # the hand that put it reached over it)
                left_out |= _next_to({d.region for d in done if d.kind is DecisionKind.COMMIT})
                same = self._same_face_play(waiting, expected, table.legal_actions(), left_out)
                self._actionable -= {r for r in self._actionable if r not in diffs and r not in held}
                if same is not None:
                    # whose hand put it there: the next seat's after a pass nobody tapped is
                    # asked about as that seat's play
                    same, missed = self._whose(same, waiting, table)
                    if missed:
                        if all(self._commit_seen(a) for a in missed):
                            self._actionable.add(same.region)
                            continue
                        break
                    if self._question is None and self._same_wild(same):
                        # a wild on a wild: its player plays it from the phone (its colour)
                        self._colour_wait = (same.region, same.read, self._latest.seq,
                                             self.clock(), same, waiting)
                        table.pause_timer()
                        break
                    done.append(same)
                    self._ask(same, waiting)
                break
            if diffs and self._question is None and waiting.what is Awaiting.DRAW_COUNT \
                    and self._count_closed(diffs, waiting, table):
                continue
            if not diffs or not waiting.camera_watches:
                break
            # while the table is asked something, nothing else is decided (it waits for the answer)
            looking_at = self._actionable if self._question is None else {self._question.region}
            legal = table.legal_actions()
            decision = None
            if self._question is None and not done:
                step = self._unseen_step(legal, expected, diffs, acting_seat(waiting))
                if step is not None:
                    done.append(step)
                    self._trace(step)
                    self._ask(step, waiting)
                    break
            # forced plays may land together, but no more of them than are owed
            owed = waiting.left if waiting.what is Awaiting.FORCED_PLAYS else 1
            if self._question is None and not done and len(diffs) > max(1, owed):
                decision = self._step_first(legal, expected, diffs, acting_seat(waiting), table)
                if decision is None:
                    decision = self._several(legal, expected, diffs, acting_seat(waiting))
                if decision is not None and decision.kind is DecisionKind.ASK:
                    self._blind |= set(diffs)
            if decision is None:
                decision = decide(legal, expected, self._latest, looking_at,
                                  acting_seat(waiting), commit_gain=self.commit_gain, margin=self.margin,
                                  illegal_confidence=self.illegal_confidence)
            if decision is None:
                break
            # (asked or not: a phone's tap meanwhile does not make another seat's hand the drawer's)
            decision, missed = self._whose(decision, waiting, table)
            if missed:  # a tap nobody made, shown by whose hand played: made now, then again
                if all(self._commit_seen(a) for a in missed):
                    continue
                break
            if decision.kind in (DecisionKind.COMMIT, DecisionKind.ILLEGAL) \
                    and decision.region == self._uncovered(pawn_was, look):
                # the card the pawn just stepped off shows for the first time since it covered
                # it: a read that differs from the state is as likely a misread of that card as
                # the next seat's play (motion blur, grid seed 20: a blue-9 uncovered, read
                # blue-3 at 0.87, was committed as north's play): asked, never committed
                decision = decision.asked(Reason.UNSURE)
            elif decision.region in self._doubts:
                self._doubts.discard(decision.region)
                decision = decision.asked(Reason.FIRST_LOOK)
            elif decision.region in self._blind and decision.kind is not DecisionKind.WAIT \
                    and decision.reason is not Reason.SEVERAL:
                self._blind.discard(decision.region)
                # a pile may hide more than one action, each by whom the camera cannot say
                decision = decision.asked(Reason.SEVERAL)
            if decision.kind is DecisionKind.ASK and decision.reason is Reason.COLOUR \
                    and self._question is None and self._awaits_colour(decision, table):
                break
            done.append(decision)
            self._trace(decision)
            if decision.kind is DecisionKind.COMMIT:
                assert decision.action is not None   # (a commit's action)
                hands_used = self._arms_over(decision, table)  # (a step's: over its two cells)
                answer = table.act(decision.action, source="camera",
                                   evidence=self._witness(decision))
                self._feed(answer)
                if isinstance(decision.action, Move):
                    # (an arm over a card elsewhere stays the evidence of whose hand put it)
                    self._reaches = deque((r for r in self._reaches if r not in hands_used),
                                          maxlen=self._reaches.maxlen)
                else:
                    self._take_reach_over(decision.region)
                self.stats["commits"] += 1
                # what the region shows is explained now (a flip card stays on the pile until
                # the pile is turned over, with nothing expected there: no new action)
                self._actionable.discard(decision.region)
                if self._question is not None and self._question.region == decision.region:
                    self._close_question(decision.action.to_json(), "camera", Closed.READ_CLEARLY)
                if not answer.ok:  # the engine disagreed after all: leave it to the table
                    self._actionable.discard(decision.region)
                continue
            if decision.kind is DecisionKind.ILLEGAL:
                assert decision.action is not None   # (the action called)
                self._feed(table.act(decision.action, source="camera",
                                     evidence=self._witness(decision)))
                self._take_reach_over(decision.region)
                self.stats["illegal"] += 1
                # the card lies there until it is taken back: not a new action meanwhile
                self._actionable.discard(decision.region)
                if self._question is not None and self._question.region == decision.region:
                    self._close_question(None, "camera", Closed.CALLED_ILLEGAL)
                continue
            if decision.kind is DecisionKind.ASK:
                self._ask(decision, waiting)
            break
        if self._question is None:
            self._draws_after(table)
        self._remember_looks(table.view()[0])
        return done

    @staticmethod
    def _uncovered(pawn_was: tuple[int, int] | None, look: TableLook) -> str | None:
        """The cell the pawn stood on when this reading came and has left since (a step
        committed in this reading): its card shows now for the first time since the pawn
        covered it. None when the pawn has not moved."""
        if pawn_was is None or look.pawn is None or tuple(look.pawn) == tuple(pawn_was):
            return None
        return cell_name(*pawn_was)

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

    def _trace(self, decision: Decision) -> None:
        self.decisions.append((self._latest.seq, decision))
        if self.on_decision is not None:
            self.on_decision(decision)

    # --- whose hand: the arms seen ---------------------------------------------------------

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

    @staticmethod
    def _draws(table: Table) -> bool:
        """The game has draws the camera can see (Flip, classic: not the grid)."""
        return getattr(table.game, "name", None) in ("flip", "classic")

    def _draws_first(self, diffs: dict[str, str], table: Table) -> bool:
        """The draws seen before the first arm over a changed region. True when one changed the
        state or asked the table (look again)."""
        # (a region read again that shows what it held may hold the same face played again)
        fresh = set(diffs) | (set(self._latest.changed) & self._actionable)
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
        diffs = differing(expected_of(look), self._latest, self._actionable)
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
        known = [h for h in (hand_of(r, table.seating) for r in self._arms_over(decision, table))
                 if h.known]
        pair = self._facing_pair(decision.region, table)
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
        self.stats["out-of-turn"] = self.stats.get("out-of-turn", 0) + 1
        return Decision(DecisionKind.ASK, decision.region, choices=missed + tuple(offered),
                        reason=Reason.OUT_OF_TURN, read=decision.read, by=by, did="play",
                        after=did_after), ()

    def _arms_over(self, decision: Decision, table: Table) -> list[Reach]:
        """The arms not yet accounted for that were over the decision's region; for a step of
        the pawn, over the cells it left or came to (an arm over a card elsewhere is no hand on
        the pawn: the next seat's card, seen in the reading that first saw the step)."""
        action = decision.action or (decision.choices[0] if decision.choices else None)
        if isinstance(action, Move):
            cells = _step_cells(table.view()[0].pawn, action.to)
            return [r for r in self._reaches if cells & set(r.regions)]
        return [r for r in self._reaches if over(r, decision.region)]

    def _note_pawn_left(self, expected: Expected) -> None:
        """The pawn's marker hidden (a hand resting by it) and the cell the state has it on read
        again, clearly showing the card under it: the pawn's body no longer covers that card,
        the pawn was stepped off it unseen (noted once per reading; a sighting clears it)."""
        reading = self._latest
        if reading.pawn is not None and reading.pawn.seen:
            self._pawn_left = None
            return
        if expected.pawn is None or not reading.cells or self._pawn_noted == (reading.seq, expected.pawn):
            return
        r, c = expected.pawn
        if not (0 <= r < 5 and 0 <= c < 5):
            return
        self._pawn_noted = (reading.seq, expected.pawn)
        name = cell_name(r, c)
        got = reading.region(name)
        if name in reading.changed and _clear(got) and got.label == expected.labels.get(name) \
                and self._pawn_left != (r, c):  # (the first reading that showed it counts)
            self._pawn_left, self._pawn_left_at = (r, c), reading.seq
            self._pawn_body = {n for n in _next_to([name]) if _formless(reading.region(n))}

    def _unseen_step(self, legal: list[Action], expected: Expected, diffs: dict[str, str],
                     seat: str | None) -> Decision | None:
        """The pawn stepped off its cell unseen (:meth:`_note_pawn_left`), its marker still
        hidden, and the table shows something else new (the next play): the step is asked
        about first, its legal destinations the choices (where the pawn's body reads, no card,
        first; never the cell of a card just put down), so that the next play is judged on the
        pawn's true place. The reading that showed the step waits unless something else is new
        there (the marker may show again); any later change to the table is asked about (the
        next seat acted, or the pawn stepped again: its body left the cell it was read on)."""
        if expected.pawn is None or self._pawn_left != tuple(expected.pawn):
            return None
        reading = self._latest
        if reading.pawn is not None and reading.pawn.seen:
            return None
        held = pawn_hidden_cells(expected, reading)
        new = [r for r in diffs if r != "pawn" and not (r in held and _formless(reading.region(r)))]
        later = reading.seq > self._pawn_left_at and any(r in expected.labels for r in reading.changed)
        if not new and not later:
            return None
        played = {r for r in new if not _formless(reading.region(r))}
        moves = [a for a in legal if isinstance(a, Move) and (seat is None or a.by == seat)
                 and cell_name(*a.to) not in played]
        if not moves:
            return None
        def body(a: Move) -> int:  # where the body read when the step showed, then where it reads
            if not all(0 <= v < 5 for v in a.to):
                return 2
            name = cell_name(*a.to)
            return 0 if name in self._pawn_body else 1 if _formless(reading.region(name)) else 2

        moves.sort(key=body)
        self._pawn_left = None  # asked once: a "misread" answer is not asked again
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
                or not _one_step(expected.pawn, pawn.cell):
            return None
        step = next((a for a in legal if isinstance(a, Move) and a.by == seat
                     and tuple(a.to) == tuple(pawn.cell)), None)
        if step is None:
            return None
        cells, others = _step_cells(expected.pawn, pawn.cell), set(diffs) - {"pawn"}
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
                            read=diffs["pawn"], gain=PAWN_GAIN)
        return None

    def _hidden_steps(self, seat: str | None, table: Table) -> tuple[Action, ...]:
        """The acting seat's steps onto the cells held beside the pawn whose marker is unseen
        (:func:`pawn_hidden_cells`: a read there shows no card): offered first when another
        seat's card shows up, since the step the camera could not see would make it that
        seat's turn (pawn-hidden grid seed 3: north stepped unseen, south's card was asked as
        out of turn with no step to choose, and answered "taken back" though it stayed)."""
        look, _ = table.view()
        expected = expected_of(look)
        hidden = pawn_hidden_cells(expected, self._latest)
        return tuple(a for a in table.legal_actions() if isinstance(a, Move) and a.by == seat
                     and cell_name(*a.to) in hidden
                     and _formless(self._latest.region(cell_name(*a.to))))

    def _facing_pair(self, region: str, table: Table) -> tuple[str, ...] | None:
        """The seats whose arms of this reading may each have put down what lies in ``region``,
        when there are two or more (each arm one seat's): every arm seen over it (arms at once:
        the camera cannot tell which hand let go of the card), and an arm from the facing side
        seen over no region (an arm reaching along the line of another from the other side can
        be read as the other's: both lie in the same strip of the image)."""
        arms = tuple(getattr(self._reading, "reaches", ()) or ())
        seats: list[str] = []
        for a in arms:
            if not over(a, region):
                continue
            found = [a] + [b for b in arms if not b.regions and b.side is not None
                           and b.side == _FACING.get(a.side)]
            for r in found:
                hand = hand_of(r, table.seating)
                if hand.strong and hand.seats[0] not in seats:
                    seats.append(hand.seats[0])
        return tuple(seats) if len(seats) > 1 else None

    def _unseen_hand(self, decision: Decision, waiting: WaitingFor, table: Table) -> Decision | None:
        """No arm seen over the card, none from the acting seat's side, but other seats' arms
        in this reading, seen over no region (real classic seed 9: cai's arm putting the card
        down and ann's reaching past it, both read as over nothing): one of them may have put it
        there. Asked (an out-of-turn question; after a draw the pass is offered first), never
        credited to the seat on turn. None when the acting seat's arm is among them or no other
        seat's arm was seen."""
        action = decision.action
        assert action is not None   # (a commit or a call: see _whose)
        seat = action.by
        arms = tuple(getattr(self._reading, "reaches", ()) or ())
        hands = [hand_of(r, table.seating) for r in arms]
        if any(h.known and not h.excludes(seat) for h in hands):
            return None  # the acting seat's own arm (or a side it shares) was there
        idle = [h.seats[0] for r, h in zip(arms, hands) if h.strong and not r.regions]
        if not idle and any(over(r, decision.region) and not h.known for r, h in zip(arms, hands)):
            # the arm over the card came in by a side nobody sits at (a corner, an arm read as
            # two): another seat's arm seen in this reading, the acting seat's not, may be the
            # one that put it there (askew grid seed 2: north's green-reverse, its arm over the
            # card read as east's, committed as south's)
            idle = [h.seats[0] for h in hands if h.strong]
        if not idle:
            return None
        nxt = None
        if waiting.what is Awaiting.PLAY_OR_PASS:
            after = table.what_if([Pass(by=seat)])
            nxt = after.seat if after is not None and after.what is Awaiting.TURN else None
        missed: tuple[Action, ...] = (Pass(by=seat),) if nxt in idle else ()
        self.stats["out-of-turn"] = self.stats.get("out-of-turn", 0) + 1
        return Decision(DecisionKind.ASK, decision.region, choices=missed + (action,),
                        reason=Reason.OUT_OF_TURN, read=decision.read, by=nxt if nxt in idle else idle[0],
                        did="play", after="passed" if waiting.what is Awaiting.PLAY_OR_PASS else "turn")

    def _either_arm(self, pair: tuple[str, ...], decision: Decision, waiting: WaitingFor, table: Table
                    ) -> tuple[Decision, tuple[Action, ...]]:
        """A play that either of two facing arms may have made (:meth:`_facing_pair`), checked
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

    def _later_lift(self, seat: str, table: Table) -> bool:
        """A card lifted by ``seat``'s own hand (its side, no one else's) among the arms not yet
        taken, beyond what the rules dealt it: taken now (the caller makes it ``seat``'s draw)."""
        for reach in list(self._reaches):
            hand = hand_of(reach, table.seating)
            if reach.lifted and hand.seats == (seat,) and self.ledger.owed(seat) < reach.lifted:
                self._reaches.remove(reach)
                self.ledger.lifted(seat, reach.lifted)
                return True
        return False

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

    def _no_hand_over(self, region: str) -> bool:
        """The reading saw arms, and none of the arms not yet accounted for went over
        ``region`` (a reading with no arms at all says nothing of where hands were)."""
        return bool(getattr(self._reading, "reaches", ())) and not self._arm_over(region)

    def _arm_over(self, region: str) -> bool:
        """One of the arms not yet accounted for went over ``region``."""
        return any(over(a, region) for a in self._reaches)

    def _arm_short_of(self, region: str) -> bool:
        """One of the arms not yet accounted for was seen a cell short of ``region``
        (:func:`short_of`)."""
        return any(short_of(a, region) for a in self._reaches)

    def _put_down_there(self, region: str) -> bool:
        """The region looks different from when it last matched the state, where a hand went
        over it (an arm not yet accounted for), or by far (:data:`NEW_FACE_LOOK`) where no hand
        was seen: a card was put down there, whatever the read says. A card read as no card
        there (:func:`_bare`) is then asked about, not left for the light. (Sleeve gloss: a
        teal-draw-five put on a wild read "no card" at 0.85; taken for the light, the play was
        missed and the next seat's draw called out of turn.)"""
        got = self._latest.region(region)
        _, look = self._looks.get(region, (None, None))
        if got is None or look is None:
            return False
        d = look_apart(got.look, look, SAME_FACE_LOOK)
        if d is None:
            return False
        hand = bool(getattr(self._reading, "reaches", ())) and self._arm_over(region)
        # (with no hand seen over it -- the gloss hid the arm's way there -- only a look far
        # past a nudge's misfit says a card was put down: the teal-draw-five's measured 69.9)
        return d > (SAME_FACE_LOOK if hand else NEW_FACE_LOOK)

    def _untouched(self, diffs: dict[str, str], expected: Expected) -> set[str]:
        """Regions that differ from the state but that no hand touched: the reading saw arms,
        none of the arms not yet accounted for went over the region, and its read still gives
        the card the state has there within the margin of its likeliest label (nothing happened
        explains it about as well as anything). A card is put down by a hand: such a read is
        the light or a smear (motion blur: a red-2 read red-3 at 0.37 and red-2 at 0.28 was
        asked about four times with arms elsewhere, "misread" each time). A read that clearly
        shows another card is still looked at (an arm may have been missed), and so is every
        region of a reading with no arms at all."""
        reading = self._latest
        out = set()
        for region in diffs:
            if region == "pawn" or not self._no_hand_over(region):
                continue
            got = reading.region(region)
            want = expected.labels.get(region, EMPTY)
            if got is not None and math.log(got.confidence) - math.log(got.p(want)) < self.margin:
                out.add(region)
        return out

    def _looks_as_before(self, diffs: dict[str, str], expected: Expected) -> set[str]:
        """Regions whose read differs from the state but that look as they did when they last
        matched it (their look differs by no more than :data:`SAME_FACE_LOOK`, a turned smear
        taken out of the comparison: :func:`.looks.look_apart`). No card was put
        there -- a card put down, even of the same face, looks different -- the read changed
        (a smear, light): it is looked at again when it changes again. (Motion blur: a red-6
        nobody touched, read red-3 at 0.32 after the smear turned, was asked about.) Not a
        region read clearly as another card where a hand went over it: two cards of one colour
        can look alike through a smear (motion blur, classic seed 28, real faces: cai's yellow-8
        thrown on a yellow-1 looked 2.8 apart, read yellow-8 at 0.94, and was missed)."""
        out = set()
        for region in diffs:
            if region == "pawn":
                continue
            got = self._latest.region(region)
            if _clear(got) and self._arm_over(region):
                continue
            seen_as, look = self._looks.get(region, (None, None))
            if got is None or look is None or seen_as != expected.labels.get(region):
                continue
            d = look_apart(got.look, look, SAME_FACE_LOOK)
            if d is not None and d <= SAME_FACE_LOOK:
                out.add(region)
        return out

    def _same_face_play(self, waiting: WaitingFor, expected: Expected,
                        legal: Iterable[Action] = (), left_out: AbstractSet[str] = frozenset()
                        ) -> Decision | None:
        """A region that visibly changed, reads the card it held, and looks different from when
        it last matched the state: the same face played on it (decks hold two of most faces),
        or a card only nudged. Only the table can say: ask. (A card taken back after an illegal
        attempt leaves the region looking as before: no question.)"""
        reading = self._latest
        fresh = [r for r in reading.changed if r in expected.labels and r in self._actionable
                 and r not in left_out]
        if not fresh:
            return None
        seat = acting_seat(waiting)
        pawn = reading.pawn.cell if reading.pawn is not None and reading.pawn.seen else None
        pawn = pawn if pawn is not None else expected.pawn  # (unseen: where the state has it)
        scores = {}
        never_seen: list[str] = []
        for region in fresh:
            if pawn is not None and region == cell_name(*pawn):
                continue
            got = reading.region(region)
            want = expected.labels.get(region)
            # it reads as what lies there (asking is safe: no confidence needed beyond that)
            if got is None or want is None or (got.label != want and got.p(want) < 0.5):
                continue
            if region not in self._looks and got.look is not None:
                # never seen as the state has it (the pawn stood on it from the deal, and it read
                # no card when the pawn left): no look to compare, so a hand over it now may have
                # put the same face on it (askew grid seed 27: south's red-5 on the red-5 the
                # pawn had just uncovered was missed, and the game went wrong after it)
                if self._arm_over(region):
                    never_seen.append(region)
                continue
            # a look remembered for another card says nothing about this one (a phone's play
            # changed what the state expects there before the card came down)
            seen_as, look = self._looks.get(region, (None, None))
            # (a look that differs may be the same card smeared along another line since: the
            # smears are taken out of the comparison)
            d = look_apart(got.look, look, SAME_FACE_LOOK) if seen_as == want else None
            if d is not None:
                scores[region] = d
        threshold = SAME_FACE_LOOK
        # the whole table read again (the camera was nudged: most regions, never a few that
        # light moving over them or a hand passing stirred -- glare, six regions read again,
        # once hid the same face played among them; only the card regions count: the pawn's
        # sighting and the draw pile change with a hand resting by the pawn or a draw)
        whole = _read_again_whole(reading, expected)
        if whole:
            # every look is off by the new view's small misfit; a card put down stands well
            # clear of it
            threshold = max(NUDGED_SAME_FACE_LOOK, 4.0 * float(statistics.median(list(scores.values()) or [0.0])))
        looking_new = [r for r, d in scores.items() if d > threshold]
        if whole and len(looking_new) > 1:
            return None
        # (every look counts for the nudge's misfit above; a card is put down by a hand: one no
        # arm went over, where arms were seen, is no card -- a hand resting by the pawn, a
        # neighbour's card, light -- and is not asked about, unless an arm was seen a cell short
        # of it and it looks far past a nudge's misfit (cup and phone, grid seed 28: south's
        # hand put a blue-8 on the blue-8 at 3,3, seen only over 4,3; the look moved 30.8); of
        # the others, the one that looks the most different first)
        looking_new = sorted((r for r in looking_new
                              if not self._no_hand_over(r)
                              or (scores[r] > NEW_FACE_LOOK and self._arm_short_of(r))),
                             key=lambda r: -scores[r]) + ([] if whole else never_seen)
        for region in looking_new:
            got = _read(reading, region)
            want = expected.labels[region]   # (both checked above)
            play = _action_read(region, want, seat, expected)
            if play is None:
                continue
            # the legal ways to play that face there (a wild: one per colour)
            legal = list(legal)
            ways = tuple(a for a in legal if a.by == seat and region_of(a) == region
                         and _label_of(a) == want)
            # and the likeliest other cards that could lie there now (a misread new card)
            others = [c.action for c in score_actions(
                [a for a in legal if a.by == seat and _label_of(a) != want], expected, reading,
                {region: got.label})][:3]
            self._actionable.discard(region)
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
        cands = score_actions(mine, expected, self._latest, diffs)
        choices: list[Action] = []
        regions = 0
        for region in sorted(diffs, key=lambda r: (r != "pawn", r)):
            here = [c for c in cands if c.region == region and c.gain >= self.commit_gain]
            if here and region != "pawn" and not _plausible(_read(self._latest, region), here[0].action,
                                                            self.margin):
                # no legal action is read there about as likely as what is (a red-2 read at
                # 0.96 on a blue-9: an illegal attempt, called on its own): no action to order
                # (askew grid seed 20, real faces: asked with only the legal blue-2 offered
                # there, answered "none of them", and the attempt was never called)
                here = []
            if here:
                regions += 1
                near = [c for c in here if c.gain >= here[0].gain - self.margin]
                labels = list(dict.fromkeys(_label_of(c.action) for c in near))[:3]
                # (one action per card: a wild's colour is asked once it is known to be first)
                choices += [next(c.action for c in near if _label_of(c.action) == label)
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
        diffs = differing(expected, reading)
        pawn = reading.pawn.cell if reading.pawn is not None and reading.pawn.seen else None
        asked = self._question.region if self._question is not None else None
        hidden = pawn_hidden_cells(expected, reading)  # (the hand hiding the marker may lie there)
        # (a region read again and not yet settled keeps its old look, a question open or not:
        # the same face played on it is looked for once it settles or the answer came)
        unsettled = self._actionable & set(reading.changed)
        for name in expected.labels:
            if name in diffs or name == asked or name in hidden or name in unsettled or (
                    pawn is not None and name == cell_name(*pawn)):
                continue
            got = reading.region(name)
            if got is not None and got.look is not None:
                self._looks[name] = (expected.labels[name], got.look)

    # --- a wild's colour comes from its player's phone ---------------------------------------

    def _awaits_colour(self, decision: Decision, table: Table) -> bool:
        """A wild lies where the camera expected a play, and only its colour is unknown: its
        player plays it from the seat page, which asks the colour (the normal path; no
        question). Wait for that while this reading stands and for :data:`COLOUR_WAIT_S`; the
        turn timer waits too. A new reading (the next card, a hand) or the time out asks."""
        key = (decision.region, decision.read)
        wait = self._colour_wait
        if wait is None or wait[:2] != key:
            self._colour_wait = (*key, self._latest.seq, self.clock(), decision)
            table.pause_timer()
            return True
        if wait[2] == self._latest.seq and self.clock() - wait[3] < COLOUR_WAIT_S:
            return True
        self._colour_wait = None  # ask (the question keeps the timer paused)
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
        wait = self._colour_wait
        assert wait is not None and len(wait) == 5   # (a wild's own wait: see _settle)
        region, label, seq, _, decision = wait
        if seq == self._latest.seq or diffs.get(region) in (None, label) or diffs[region] in _NOT_A_CARD:
            return False
        legal = table.legal_actions()
        return any(a in legal for a in decision.choices)

    def _end_colour_wait(self, table: Table) -> None:
        self._colour_wait = None
        if self._question is None and table.timer.paused:
            table.resume_timer()

    # --- questions ------------------------------------------------------------------------

    def _ask(self, decision: Decision, waiting: WaitingFor) -> None:
        got = self._latest.region(decision.region) if decision.region != "pawn" else None
        card = got.label if got is not None else None
        if decision.region == DRAW_PILE:
            self._asked_waiting = waiting  # asked until the table moves on
        # (the grid game's discard pile takes a discard; Flip's and classic's a play)
        table = self.table_of()
        pile = "discard" if table is not None and table.game.name == "grid" else "play"
        question = Question.of(0, decision, acting_seat(waiting), card, pile)
        if self._question is not None and self._question.signature == question.signature:
            return
        if self._question is not None:
            self._close_question(None, "camera", Closed.REPLACED)
        question = dataclasses.replace(
            Question.of(next(self._ids), decision, acting_seat(waiting), card, pile),
            evidence=self._witness(decision))
        self._question = question
        self.stats["questions"] += 1
        key = f"questions-{question.kind.value}"
        self.stats[key] = self.stats.get(key, 0) + 1
        if table is not None:
            table.pause_timer()
        self.bus.publish("confirm-needed", **question.to_json())

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
        self._actionable.discard(region)
        self._blind.discard(region)
        if not illegal:
            # how the region looks now is how the card named looks (the camera misread it):
            # the same look read again is no new play (:meth:`_looks_as_before`)
            name = _label_of(action)
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
        elif self._leads_further(picked.action):
            # a first step the camera missed: where the pawn is now is the next step, to be
            # read against the state once this one is played
            self._recheck = True
        elif self._shows_more(picked.action, region):
            # an earlier card than the one lying there now: the region shows a later action
            # too. Who made it the camera cannot tell (it missed a turn): it asks, never commits
            self._recheck = True
            self._blind.add(region)
        else:
            self._actionable.discard(region)
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
                self._actionable.discard(shown)
                self._blind.discard(shown)
        self._close_question(picked.to_json()["action"], by, Closed.ANSWERED)
        if act and picked.action is not None and table is not None:
            result = table.act(picked.action, source="confirm", evidence=q.evidence)
            if q.by is None and q.kind is not QuestionKind.DREW:
                self._feed(result)
        return result

    def _remember_look(self, region: str, card: str) -> None:
        """How ``region`` looks now is how ``card`` looks there, however the camera reads it: a
        card answered as put there (so the same face played on it next is told by its look:
        sleeve gloss, classic seed 36, ann's red-5, read unsurely, was answered; it went on
        reading red-3, so its look was never taken, and cai's red-5 on it was missed), a card
        named as "another card", a misread answered."""
        got = self._reading.region(region) if self._reading is not None else None
        if got is not None and got.look is not None:
            self._looks[region] = (card, got.look)

    def _remember_misread(self, region: str, table: Table | None) -> None:
        """``region`` answered "nothing happened" (misread, or laid out so): how it looks now is
        how the card the state has there looks, misread or not, so the same look read again is
        no play (:meth:`_looks_as_before`). (Motion blur, grid seed 11, real faces: the red-6
        laid out at (0, 4) read red-9 at 0.99, answered "laid out", and was committed as
        south's red-9 when the smear turned and the whole grid was read again.)"""
        if table is None or region == "pawn":
            return
        want = expected_of(table.view()[0]).labels.get(region)
        if want is not None:
            self._remember_look(region, want)

    def _shows_more(self, action: Action | None, region: str) -> bool:
        """A card chosen that is not the card read in its region now (a confident read of
        another card: one laid on top of it since). A read that the chosen card explains about
        as well (within the commit margin: the card the camera was unsure of, answered) shows
        nothing more."""
        reading = self._reading
        label = _label_of(action) if action is not None else None
        if label is None or reading is None or region == "pawn":
            return False
        got = reading.region(region)
        return (got is not None and got.label not in _NOT_A_CARD and got.label != label
                and got.agreed and got.p(label) < 0.5
                and math.log(got.confidence) - math.log(got.p(label)) >= self.margin)

    def _leads_further(self, action: Action | None) -> bool:
        """A pawn move chosen that does not end where the pawn is seen now."""
        reading = self._reading
        return (isinstance(action, Move) and reading is not None and reading.pawn is not None
                and reading.pawn.seen and reading.pawn.cell is not None   # (seen: on a cell)
                and tuple(action.to) != tuple(reading.pawn.cell))

    def _close_question(self, action: dict[str, Any] | None, by: str, why: "Closed") -> None:
        q = self._question
        if q is None:
            return
        self._question = None
        self.bus.publish("confirmed", id=q.id, action=action, by=by, why=why.value)
        table = self.table_of()
        if table is not None and table.timer.paused:
            table.resume_timer()

