"""Scoreboard only: no camera, no turns; the table keeps the score of each round.

Each player who did not go out enters their hand: laid open (``show`` with the cards, scored
with docs/rules.md's points of the chosen ``deck``) or typed (``score`` with the points). The round
winner then closes the round with ``round``. Scoring is docs/rules.md's ``scoring`` flag:
``winner-takes`` (the winner scores the sum of the other hands; first to ``target`` wins) or
``sheet`` (winner plus, everyone else minus their own hand; the highest total wins once anyone
reaches ``target``, or after ``rounds`` rounds when that is set).

>>> from companion.engine.actions import Round, Score
>>> game, s = ScoreGame.from_setup({"game": "scoreboard", "seats": ["ann", "ben", "cai"]})
>>> s = game.apply(s, Score("ben", 30)).state
>>> s = game.apply(s, Score("cai", 12)).state
>>> game.to_json(game.apply(s, Round("ann")).state)["scores"]
{'ann': 42, 'ben': 0, 'cai': 0}
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from ..cards import FACE_SETS, UnknownCard
from .actions import Action, Round, Score, Show
from .base import Game, Outcome, options_from_json, read_seats
from .errors import BadCard, BadInput, IllegalAction, NotYourTurn, RuleError, SetupError
from .events import Event, event
from .look import Awaiting, TableLook, WaitingFor

__all__ = ["ScoreGame", "ScoreOptions", "ScoreState"]


@dataclass(frozen=True)
class ScoreOptions:
    #: Which points table scores a hand laid open: classic, light or dark (Flip's two sides).
    deck: str = field(default="classic", metadata={"choices": ("classic", "light", "dark")})
    scoring: str = field(default="winner-takes", metadata={"choices": ("winner-takes", "sheet")})
    target: int = field(default=500, metadata={"min": 1})
    #: The agreed number of rounds (0 = play to ``target``).
    rounds: int = 0


@dataclass(frozen=True)
class ScoreState:
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    #: Hand points entered this round, per seat (None: not yet entered).
    hands: tuple[int | None, ...]
    round_no: int = 1
    history: tuple[tuple[str, tuple[int, ...]], ...] = ()  # (winner, scores after the round)
    champions: tuple[str, ...] = ()


class ScoreGame(Game[ScoreState]):
    name = "scoreboard"
    options_class = ScoreOptions
    takes = frozenset({"score", "show", "round"})

    def __init__(self, options: ScoreOptions | None = None):
        self.options = options or ScoreOptions()

    @classmethod
    def from_setup(cls, setup: dict[str, Any]) -> tuple["ScoreGame", ScoreState]:
        unknown = set(setup) - {"game", "seats", "options"}
        if unknown:
            raise SetupError(f"a scoreboard set-up takes no {', '.join(sorted(unknown))}")
        seats = read_seats(setup)
        options = options_from_json(ScoreOptions, setup.get("options"))
        n = len(seats)
        return cls(options), ScoreState(seats, (0,) * n, (None,) * n)

    # --- acting -------------------------------------------------------------------------------

    def apply(self, state: ScoreState, action: Action) -> Outcome[ScoreState]:
        try:
            return Outcome(*self._accept(state, action))
        except RuleError as error:
            return Outcome(state, (), error)

    def _accept(self, state: ScoreState, action: Action) -> tuple[ScoreState, tuple[Event, ...]]:
        if action.by not in state.seats:
            raise NotYourTurn(f"{action.by!r} is not seated: the seats are {', '.join(state.seats)}")
        if state.champions:
            raise IllegalAction(f"the match is over: {', '.join(state.champions)} won it",
                                "match-over")
        problem = self.malformed(action)
        if problem is not None:
            raise problem
        seat = state.seats.index(action.by)
        if isinstance(action, Show):
            return self._enter(state, seat, self._points(action), [c.name for c in action.cards])
        if isinstance(action, Score):
            return self._enter(state, seat, action.points, None)
        if isinstance(action, Round):
            return self._close_round(state, seat)
        raise BadInput(f"the scoreboard has no {action.do!r} action: use show, score or round")

    def malformed(self, action: Action) -> RuleError | None:
        """Besides :meth:`Game.malformed`: a laid-open card not in the ``deck`` this scoreboard
        counts is a :class:`BadCard`."""
        problem = super().malformed(action)
        if problem is None and isinstance(action, Show):
            face_set = FACE_SETS[self.options.deck]
            wrong = [c.name for c in action.cards if c not in face_set]
            if wrong:
                return BadCard(f"{', '.join(wrong)}: not in the {self.options.deck} deck this "
                               f"scoreboard counts")
        return problem

    def _points(self, action: Show) -> int:
        face_set = FACE_SETS[self.options.deck]
        try:
            return sum(face_set.points(card) for card in action.cards)
        except UnknownCard as exc:
            raise BadCard(f"{exc}: this scoreboard counts {self.options.deck} cards") from None

    @staticmethod
    def _enter(state: ScoreState, seat: int, points: int,
               cards: list[str] | None) -> tuple[ScoreState, tuple[Event, ...]]:
        hands = state.hands[:seat] + (points,) + state.hands[seat + 1:]
        data = {"seat": state.seats[seat], "points": points}
        if cards is not None:
            data["cards"] = cards
        return replace(state, hands=hands), (event("hand-shown", **data),)

    def _close_round(self, state: ScoreState, winner: int) -> tuple[ScoreState, tuple[Event, ...]]:
        missing = [state.seats[i] for i, h in enumerate(state.hands) if h is None and i != winner]
        if missing:
            raise IllegalAction(f"still waiting for the hands of {', '.join(missing)}",
                                "hands-not-shown")
        won = sum(h or 0 for i, h in enumerate(state.hands) if i != winner)
        if self.options.scoring == "sheet":
            scores = tuple(s + won if i == winner else s - (state.hands[i] or 0)
                           for i, s in enumerate(state.scores))
        else:
            scores = tuple(s + won if i == winner else s for i, s in enumerate(state.scores))
        seats = state.seats
        table = dict(zip(seats, scores))
        events = [event("won", seats=[seats[winner]], points=won),
                  event("round-over", winners=[seats[winner]], scores=table)]
        new = replace(state, scores=scores, hands=(None,) * len(seats),
                      round_no=state.round_no + 1,
                      history=state.history + ((seats[winner], scores),))
        reached = max(scores) >= self.options.target
        agreed = self.options.rounds and state.round_no >= self.options.rounds
        if reached or agreed:
            best = max(scores)
            champions = tuple(s for s, v in zip(seats, scores) if v == best)
            new = replace(new, champions=champions)
            events.append(event("match-over", champions=list(champions)))
        return new, tuple(events)

    # --- reading ------------------------------------------------------------------------------

    def legal_actions(self, state: ScoreState) -> Iterator[Action]:
        if state.champions:
            return
        for i, seat in enumerate(state.seats):
            if state.hands[i] is None:
                yield Score(seat, 0)
                yield Score(seat, 25)
            missing = [j for j, h in enumerate(state.hands) if h is None and j != i]
            if not missing:
                yield Round(seat)

    def table_look(self, state: ScoreState) -> TableLook:
        """Nothing the camera reads: the scoreboard counts hands typed in."""
        return TableLook()

    def waiting_for(self, state: ScoreState) -> WaitingFor:
        """The hands still to enter (``SHOW``), or nothing more once the match is decided."""
        if state.champions:
            return WaitingFor(Awaiting.OVER)
        return WaitingFor(Awaiting.SHOW, seats=tuple(s for s, h in zip(state.seats, state.hands)
                                                     if h is None))

    def to_json(self, state: ScoreState) -> dict[str, Any]:
        waiting = [s for s, h in zip(state.seats, state.hands) if h is None]
        return {
            "game": self.name, "seats": list(state.seats), "turn": None, "direction": "cw",
            "side": None, "top": None, "color": None, "pawn": None, "last_cell": None,
            "hands": {}, "draw_pile": None,
            "pending": {"what": "hands", "seats": waiting} if not state.champions else None,
            "winners": [state.history[-1][0]] if state.history else [],
            "scores": dict(zip(state.seats, state.scores)), "over": bool(state.champions),
            "champions": list(state.champions), "round": state.round_no,
            "entered": {s: h for s, h in zip(state.seats, state.hands) if h is not None},
            "deck": self.options.deck,
        }
