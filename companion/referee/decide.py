"""The pure scorer: every legal action scored against a reading, and the decision taken on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from ..engine.actions import Action, Move
from ..reading import FLOOR, RegionReading, TableReading
from ..tuning import RefereeTuning, default
from .evidence import formless, legal_mass, no_card
from .expected import (
    EMPTY,
    NOT_A_CARD,
    Expected,
    action_read,
    differing,
    differs,
    label_of,
    one_step,
    pawn_hidden_cells,
    region_of,
    same_action,
    tuned,
)

#: Log-likelihood gain of a pawn seen on the cell an action moves it to (the product's
#: ``pawn_ratio``: markers are rarely wrong).
PAWN_GAIN = math.log(default().referee.pawn_ratio)
#: The most legal actions an unsure question offers (the product's ``unsure_choices``).
UNSURE_CHOICES = default().referee.unsure_choices


@dataclass(frozen=True)
class Candidate:
    """A legal action and how much better it explains the reading than "nothing happened"
    (natural log of the likelihood ratio): ``gain``, the sum of its named evidence ``terms``
    ((name, natural log) pairs: :func:`card_term`, ``pawn-seen``)."""

    action: Action
    region: str
    gain: float
    terms: tuple[tuple[str, float], ...] = ()


def card_term(got: RegionReading, card: str | None, want: str) -> float:
    """The ``card`` term: how much likelier the region's read makes ``card`` put down than the
    card the state has there (``want``: nothing happened), as a natural log. Positive: the read
    favours the play; the commit ratio and the margin are bars on it."""
    return math.log(got.p(card)) - math.log(got.p(want))


def score_actions(actions: Iterable[Action], expected: Expected, reading: TableReading,
                  diffs: dict[str, str], pawn_gain: float = PAWN_GAIN) -> list[Candidate]:
    """Every action that shows up in a differing region, scored; best first: a card's gain is
    how much likelier the read makes it than the card the state has there (natural log); a
    pawn's step seen where it leads gains ``pawn_gain``."""
    out = []
    for action in actions:
        region = region_of(action)
        if region is None or region not in diffs:
            continue
        if region == "pawn":   # (a step: the pawn's cell read differs, so it was seen)
            cell = reading.pawn.cell
            if isinstance(action, Move) and cell is not None and tuple(cell) == tuple(action.to):
                out.append(Candidate(action, region, pawn_gain, (("pawn-seen", pawn_gain),)))
            continue
        got = reading.region(region)
        assert got is not None   # (a region that differs was read)
        want = expected.labels.get(region, EMPTY)
        gain = card_term(got, label_of(action), want)
        out.append(Candidate(action, region, gain, (("card", gain),)))
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
           *, tuning: RefereeTuning | None = None, commit_gain: float | None = None,
           margin: float | None = None, illegal_confidence: float | None = None) -> Decision | None:
    """The next thing to do about the reading, or None when it shows nothing new.

    ``actionable`` names the regions that changed since they were last settled; ``seat`` is the
    seat that acts now (illegal plays are called on it). ``tuning``: the thresholds (None: the
    product's); ``commit_gain`` and ``margin`` (natural logs of ``commit_ratio`` and
    ``margin_ratio``) and ``illegal_confidence``, when given, stand for the tuning's.
    """
    t = tuned(tuning)
    commit_gain = math.log(t.commit_ratio) if commit_gain is None else commit_gain
    margin = math.log(t.margin_ratio) if margin is None else margin
    illegal_confidence = t.illegal_confidence if illegal_confidence is None else illegal_confidence
    diffs = differing(expected, reading, actionable, t)
    if not diffs:
        return None
    mine = [a for a in actions if seat is None or a.by == seat]
    by_region: dict[str, list[Candidate]] = {}
    for c in score_actions(mine, expected, reading, diffs, math.log(t.pawn_ratio)):
        by_region.setdefault(c.region, []).append(c)
    explained = _explained(diffs, by_region, expected, reading, commit_gain, margin)
    if explained is not None:
        return explained
    return _unexplained(actions, expected, reading, diffs, by_region, seat, margin, illegal_confidence, t)


@dataclass(frozen=True)
class Rival:
    """Another explanation of a region that a play must beat to be committed: its ``name``, its
    ``gain`` against nothing happened (natural log, as a :class:`Candidate`'s) and the ``bar``
    (natural log) the play's gain must clear it by."""

    name: str
    gain: float
    bar: float


def rivals_of(best: Candidate, here: list[Candidate], got: RegionReading | None, expected: Expected,
              region: str, commit_gain: float, margin: float) -> list[Rival]:
    """The explanations ``best`` (the likeliest legal play in ``region``) is held against, each
    with its bar: ``nothing-happened`` (gain 0) by ``commit_gain``; the next legal play that
    differs (``another-play``) by ``margin``; and, where a card is read, ``no-card`` (a hand, a
    shadow, a face the reader cannot name: :func:`.evidence.no_card`) and ``illegal-card`` (the
    likeliest card no legal play puts there: :func:`illegal_rival`) by half the margin, and the
    label read best (``best-read``, which may be any of those) within half the margin below it.
    A play that clears every bar explains the region clearly."""
    out = [Rival("nothing-happened", 0.0, commit_gain)]
    legal = [c for c in here[1:] if differs(c.action, best.action)]
    if legal:
        out.append(Rival("another-play", legal[0].gain, margin))
    if got is not None:
        want = expected.labels.get(region, EMPTY)
        nothing = math.log(got.p(want))
        out += [Rival("no-card", _log(no_card(got)) - nothing, margin / 2),
                Rival("illegal-card", _log(illegal_rival(got, here, expected, region)) - nothing, margin / 2),
                Rival("best-read", math.log(got.confidence) - nothing, -margin / 2)]
    return out


def _log(p: float) -> float:
    """The natural log of ``p``; a label read at 0 is no rival at all (minus infinity)."""
    return math.log(p) if p > 0 else -math.inf


def beats(best: Candidate, rival: Rival) -> bool:
    """``best`` clears ``rival``'s bar."""
    return best.gain - rival.gain >= rival.bar


def _explained(diffs: dict[str, str], by_region: dict[str, list[Candidate]], expected: Expected,
               reading: TableReading, commit_gain: float, margin: float) -> Decision | None:
    """The first region a legal action explains clearly (the pawn first: its marker is surest):
    committed; else the first a wild explains but for its colour (it clears every rival but the
    same card in other colours): asked. None: neither."""
    unsure: list[Decision] = []
    for region in sorted(diffs, key=lambda r: (r != "pawn", r)):
        here = by_region.get(region, [])
        if not here:
            continue
        best = here[0]
        got = reading.region(region) if region != "pawn" else None
        rivals = rivals_of(best, here, got, expected, region, commit_gain, margin)
        if all(beats(best, r) for r in rivals):
            return Decision(DecisionKind.COMMIT, region, best.action, reason=Reason.CLEAR,
                            read=diffs[region], gain=best.gain)
        others = [c for c in here[1:] if differs(c.action, best.action)]
        if others and label_of(others[0].action) == label_of(best.action) \
                and all(beats(best, r) for r in rivals if r.name != "another-play"):
            # same card, different colour: a wild whose colour only the player knows (and about
            # as likely as what was read: a wild at 0.1 % beside a red card at 97 % is no wild)
            same = tuple(c.action for c in here if label_of(c.action) == label_of(best.action))
            unsure.append(Decision(DecisionKind.ASK, region, choices=same, reason=Reason.COLOUR,
                                   read=diffs[region]))
    return unsure[0] if unsure else None


def _unexplained(actions: list[Action], expected: Expected, reading: TableReading, diffs: dict[str, str],
                 by_region: dict[str, list[Candidate]], seat: str | None, margin: float,
                 illegal_confidence: float, t: RefereeTuning) -> Decision:
    """Nothing legal explains the first differing region well enough: wait (a weak read by the
    pawn whose marker is unseen is no evidence yet; no card read where no legal action puts one),
    call the card read illegal when it is read confidently, or ask."""
    hidden = pawn_hidden_cells(expected, reading)
    order = sorted(diffs, key=lambda r: (r != "pawn", r))
    weak = [r for r in order if r in hidden and formless(reading.region(r), t)]
    if len(weak) == len(order):
        return Decision(DecisionKind.WAIT, order[0], reason=Reason.UNSURE, read=diffs[order[0]])
    region = next(r for r in order if r not in weak)
    label = diffs[region]
    read_action = action_read(region, label, seat, expected)
    got = reading.region(region) if region != "pawn" else None
    legal_here = by_region.get(region, [])
    if read_action is not None and _confident(got, actions, region, expected, reading, illegal_confidence,
                                              t.named_confidence) \
            and not any(same_action(c.action, read_action) for c in legal_here):
        return Decision(DecisionKind.ILLEGAL, region, read_action, reason=Reason.READ_CONFIDENTLY,
                        read=label)
    if label in NOT_A_CARD and not legal_here:
        return Decision(DecisionKind.WAIT, region, reason=Reason.NO_CARD, read=label)
    choices = _ask_choices(actions, expected, reading, region, read_action, legal_here, seat, margin, t)
    return Decision(DecisionKind.ASK, region, choices=choices, reason=Reason.UNSURE, read=label)


def _confident(got: RegionReading | None, actions: list[Action], region: str, expected: Expected,
               reading: TableReading, illegal_confidence: float, named_confidence: float) -> bool:
    """What was read in ``region`` is sure enough to call an illegal play on: an agreed read at
    ``illegal_confidence``, or at ``named_confidence`` with every legal reading together no
    likelier than ``1 - illegal_confidence`` (:func:`legal_mass`); the pawn's marker seen one
    step from its cell. (A marker seen where no single step reaches is a misread or moves the
    camera missed, never a move to call.)"""
    if region == "pawn":
        return bool(reading.pawn.seen and one_step(expected.pawn, reading.pawn.cell))
    return got is not None and got.agreed and (got.confidence >= illegal_confidence or (
        got.confidence >= named_confidence
        and legal_mass(got, actions, region, expected) <= 1.0 - illegal_confidence))


def _ask_choices(actions: list[Action], expected: Expected, reading: TableReading, region: str,
                 read_action: Action | None, legal_here: list[Candidate], seat: str | None,
                 margin: float, t: RefereeTuning) -> tuple[Action, ...]:
    """The choices of an unsure question about ``region``: what it looks like, even if the rules
    forbid it (the likeliest read first, then those read within the margin of it, in the order
    read, so that the card put down can be named), then the legal plays not among them."""
    got = reading.region(region) if region != "pawn" else None
    choices = _likeliest(legal_here, margin, t.unsure_choices, t.best_choices)
    if region == "pawn" and reading.pawn.seen and not one_step(expected.pawn, reading.pawn.cell):
        # the pawn is seen two steps away: the camera missed a step (a nudge, a hand). Offer
        # the legal first steps that lead there; the second is read once the first is known
        choices += tuple(a for a in actions if isinstance(a, Move) and (seat is None or a.by == seat)
                         and one_step(a.to, reading.pawn.cell))
    looks_like = [read_action] + ([action_read(region, name, seat, expected)
                                   for name, p in got.probs[1:]
                                   if p > 0 and math.log(p) >= math.log(got.confidence) - margin]
                                  if got is not None and read_action is not None else [])
    read_as: list[Action] = []
    for a in looks_like:
        if a is not None and len(read_as) < t.unsure_choices and not any(same_action(a, b) for b in read_as):
            read_as.append(a)
    choices = tuple(read_as) + tuple(c for c in choices if not any(same_action(c, a) for a in read_as))
    if got is not None:
        choices = _cover_spread(choices, legal_here, got, expected.labels.get(region, EMPTY), margin,
                                t.unsure_choices)
    return choices


def _cover_spread(choices: tuple[Action, ...], here: list[Candidate], got: RegionReading, want: str,
                  margin: float, unsure_choices: int = UNSURE_CHOICES) -> tuple[Action, ...]:
    """``choices`` and, while what they leave out of the read is still within the margin of the
    likeliest label (at ``margin_ratio`` of it or more), the next legal plays in the order they
    explain the read, one per card, up to ``unsure_choices``. A blurred card is often read fourth,
    the three above it together only about 0.7 to 0.8: it must be offered to be named. A read
    sure of its first few (together all but that share of the likeliest) offers no more."""
    listed: dict[str | None, float] = dict(got.probs)
    offered = {label_of(a) for a in choices} | {want}
    out = list(choices)
    for c in here:
        left = 1.0 - sum(listed.get(name, 0.0) for name in offered)
        if len(out) >= unsure_choices or left <= got.confidence * math.exp(-margin):
            break
        name = label_of(c.action)
        if name not in offered and listed.get(name, 0.0) > 0.0:  # (a card the read names)
            out.append(c.action)
            offered.add(name)
    return tuple(out)


def _likeliest(here: list[Candidate], margin: float, unsure_choices: int = UNSURE_CHOICES,
               best_choices: int = 3) -> tuple[Action, ...]:
    """The legal actions an unsure question offers: the ``best_choices`` that explain the read
    best, then other cards read within ``margin`` of the best (one action each), up to
    ``unsure_choices``. A read spread over several cards must offer the one put there to be
    named (a dim card read fourth at 0.08 behind three look-alikes)."""
    out = [c.action for c in here[:best_choices]]
    labels = {label_of(a) for a in out}
    for c in here[best_choices:]:
        if len(out) >= unsure_choices or c.gain < here[0].gain - margin:
            break
        if label_of(c.action) not in labels:
            out.append(c.action)
            labels.add(label_of(c.action))
    return tuple(out)


def illegal_rival(got: RegionReading, here: list[Candidate], expected: Expected, region: str) -> float:
    """How likely the read says the region shows a card no legal action of the acting seat puts
    there (nor the card the state has there): the likeliest such card. A play read there must
    be about as much likelier than that as than "no card" (:func:`decide`'s ``plausible``):
    the legal rivals are held apart by the whole margin, an illegal one by half of it (a blurred
    illegal card read as a legal look-alike at 0.34 beside another at 0.25 is asked, not
    committed: the refused attempt would be lost)."""
    legal = {label_of(c.action) for c in here} | {expected.labels.get(region, EMPTY)} | NOT_A_CARD
    return max((p for name, p in got.probs if name not in legal), default=FLOOR)
