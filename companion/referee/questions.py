"""What the camera asks the table, as data: :class:`Question`, its :class:`Choice` s and kinds,
and the "another card" answer (:func:`other_card_action`, :class:`AnswerRefused`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ..cards import Card
from ..engine.actions import Action, action_from_json
from ..engine.errors import BadCard, BadInput, RuleError
from .decide import Decision, Reason
from .expected import cell_of

if TYPE_CHECKING:
    from .table import Table


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
    cell = cell_of(region)
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


