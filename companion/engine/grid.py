"""The 5x5 grid "pawn" game (docs/rules.md, the grid game) as a pure rule engine.

Players sit on the sides of a 5x5 grid of face-up cards; a pawn starts on the centre. On a turn a
player plays a card onto a grid cell and draws, moves the pawn one step to a matching cell, or
discards and draws. The pawn leaving the board over a side wins the game for the player(s) on
the side(s) it crosses::

    >>> from companion.engine.actions import Move
    >>> grid = [["red-1", "blue-2", "green-3", "yellow-4", "blue-5"],
    ...         ["green-5", "red-skip", "red-draw-two", "blue-7", "red-6"],
    ...         ["yellow-8", "red-reverse", "red-5", "wild", "yellow-9"],
    ...         ["blue-1", "green-7", "blue-5", "wild-draw-four", "green-2"],
    ...         ["red-9", "yellow-3", "green-skip", "blue-reverse", "yellow-1"]]
    >>> game, state = GridGame.from_setup({"game": "grid", "seats": ["north", "south"],
    ...                                     "first": "north", "grid": grid})
    >>> out = game.apply(state, Move("north", (2, 1)))       # red-5 -> red-reverse
    >>> out.ok, [e.type for e in out.events], out.state.turn  # 2 players: reverse acts as skip
    (True, ['moved', 'skipped', 'turn'], 'north')

Refusals never raise: :meth:`GridGame.apply` returns an :class:`Outcome` whose ``error`` names the
rule (``not-matching``, ``pawn-cell``, ``not-adjacent``, ``back-to-last-cell``, ``empty-side``,
...). The state stays as it was, except for ``illegal_penalty_draw`` penalty cards. See
``docs/replay-grid.md`` for every event and ``pending`` form.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any, Iterator

from ..cards import CLASSIC, Card
from ..decks import copies
from .actions import Action, Discard, Move, Play, Round, Timeout
from .base import Game, Outcome
from .errors import BadCard, BadInput, IllegalAction, NotYourTurn, RuleError
from .events import Event, event
from .look import Awaiting, TableLook, WaitingFor
from .grid_rules import (CELLS, DRAW_PILE_LOW, SIZE, Cell, card_fits, is_adjacent,
                         match_champions, neighbours, on_board, sides_crossed, step_matches)
from .grid_state import (Forced, GridOptions, GridState, check_copies, fresh_game, read_grid_names,
                         read_setup, visible_counts)

__all__ = ["GridGame", "GridState", "GridOptions", "Forced", "PENALISED_CODES"]

#: Refusals that are a player breaking a rule of play; only these cost ``illegal_penalty_draw``.
#: (Out-of-turn actions, unreadable or impossible cards, a timer that is off cost nothing.)
PENALISED_CODES = frozenset({
    "not-matching", "pawn-cell", "not-adjacent", "back-to-last-cell", "empty-side",
    "forced-play", "claimed-no-play",
})

#: Landing on these makes the mover draw and then play that many cards at once.
FORCED_PLAYS = {"draw-two": 2, "wild-draw-four": 4}

Events = list[Event]


class GridGame(Game[GridState]):
    """The grid game with its :class:`GridOptions`. Build it with :meth:`from_setup`."""

    name = "grid"

    def __init__(self, options: GridOptions | None = None):
        self.options = options or GridOptions()
        self._copies: Counter[Card] = copies("classic", self.options.decks)
        # the faces that fit on each top card, worked out once: the rule depends on the two cards
        # and the options only, and legal_actions asks it for every face on every cell
        self._fitting: dict[Card, tuple[bool, ...]] = {}
        # the plays legal_actions lists, made once each (a seat, a face, a cell: a few thousand
        # at most): an action is frozen, and making hundreds anew at every call was most of it
        self._plays: dict[tuple[str, int, Cell], Play] = {}

    # --- the four calls ----------------------------------------------------------------------
    @classmethod
    def from_setup(cls, setup: dict[str, Any]) -> tuple["GridGame", GridState]:
        """Read ``{"game": "grid", "seats": [...], "first": ..., "grid": [...], "options": {...}}``."""
        options, state = read_setup(setup)
        return cls(options), state

    def apply(self, state: GridState, action: Action) -> Outcome[GridState]:
        """Apply one action; a refusal leaves the state as it was (but for a penalty draw)."""
        try:
            new_state, events = self._accept(state, action)
        except RuleError as error:
            return self._refuse(state, action, error)
        new_state, low = self._announce_low_pile(new_state)
        return Outcome(new_state, tuple(events + low))

    def legal_actions(self, state: GridState) -> Iterator[Action]:
        """Every action allowed now: plays of every classic face onto every cell it fits, pawn
        moves (off the board included), discards, and a timeout when the timer is on.

        During forced plays only plays (and discards, as a claimed no play) are listed; once a
        no play was claimed, only discards. A finished game lists nothing: the next grid (the
        ``round`` action) is dealt by the table and cannot be enumerated.
        """
        if state.over:
            return
        seat, forced = state.acting_seat, state.pending
        yield from () if forced else self._legal_moves(state, seat)
        if state.hand(seat) > 0:
            seen = visible_counts(state)
            faces = [(i, card) for i, card in enumerate(CLASSIC.faces)
                     if seen[card] < self._copies[card]]
            if not (forced and forced.claimed_no_play):
                open_cells = [(cell, self._fitting_on(state.top(cell)))
                              for cell in CELLS if cell != state.pawn]
                plays = self._plays
                for i, card in faces:
                    for cell, fits in open_cells:
                        if fits[i]:
                            play = plays.get((seat, i, cell))
                            if play is None:
                                play = plays[(seat, i, cell)] = Play(seat, card, cell)
                            yield play
            for _, card in faces:
                yield Discard(seat, card)
        if self.options.turn_seconds > 0:
            yield Timeout(seat)

    def to_json(self, state: GridState) -> dict[str, Any]:
        """The replay ``state`` object (the replay contract's fields, docs/replay.md, plus the grid's own)."""
        under_pawn = state.top(state.pawn) if state.pawn is not None else None
        if state.over and not state.match_over:
            pending: dict[str, Any] | None = {"what": "round", "seat": state.turn}
        else:
            pending = state.pending.to_json() if state.pending else None
        return {
            "game": "grid",
            "seats": list(state.seats),
            "turn": None if state.match_over else state.turn,
            "direction": state.direction,
            "side": None,
            "top": under_pawn.name if under_pawn else None,
            "color": under_pawn.color if under_pawn else None,
            "pawn": _cell_json(state.pawn),
            "last_cell": _cell_json(state.last_cell),
            "hands": dict(zip(state.seats, state.hands)),
            "draw_pile": state.draw_pile,
            "draw_pile_low": state.low_announced,
            "discard_pile": {"count": len(state.discards),
                             "top": state.discards[-1].name if state.discards else None},
            "pending": pending,
            "winners": list(state.winners),
            "scores": dict(zip(state.seats, state.scores)),
            "over": state.over,
            "champions": list(state.champions),
            "grid": [[state.top((r, c)).name for c in range(SIZE)] for r in range(SIZE)],
            "stacks": [[len(state.stacks[r * SIZE + c]) for c in range(SIZE)] for r in range(SIZE)],
            "exit": _cell_json(state.exit),
            "game_number": state.game_number,
            "game_starter": state.game_starter,
            "turn_seconds": self.options.turn_seconds,
            "timeout_action": self.options.timeout_action,
        }

    def table_look(self, state: GridState) -> TableLook:
        """The 25 top cards, the discard pile's top and the pawn (as ``to_json`` shows them)."""
        return TableLook(
            grid=tuple(tuple(state.top((r, c)).name for c in range(SIZE)) for r in range(SIZE)),
            discard=state.discards[-1].name if state.discards else None,
            pawn=state.pawn)

    def waiting_for(self, state: GridState) -> WaitingFor:
        """A turn, forced plays (by the mover, with how many are owed), the next game (``round``,
        by the seat that starts it) or nothing more (the match is won)."""
        if state.match_over:
            return WaitingFor(Awaiting.OVER)
        if state.over:
            return WaitingFor(Awaiting.ROUND, state.turn)
        if state.pending is not None:
            return WaitingFor(Awaiting.FORCED_PLAYS, state.pending.seat, state.pending.left)
        return WaitingFor(Awaiting.TURN, state.turn)

    # --- dispatch ------------------------------------------------------------------------------
    def _accept(self, state: GridState, action: Action) -> tuple[GridState, Events]:
        """The new state and events, or a :class:`RuleError` saying why not."""
        seat = action.by
        if seat not in state.seats:
            raise NotYourTurn(f"{seat!r} is not seated: the seats are {', '.join(state.seats)}")
        if state.match_over:
            raise IllegalAction(f"the match is over: {', '.join(state.champions)} won it",
                                "match-over", seats=state.champions)
        if state.over:
            if not isinstance(action, Round):
                raise IllegalAction("the game is over: the next game starts with 'round'",
                                    "game-over")
            if seat != state.turn:
                raise NotYourTurn(f"the next game is started by {state.turn}, not {seat}",
                                  seat=state.turn)
            return self._new_game(state, action)
        if isinstance(action, Round):
            raise IllegalAction("the game is not over yet: 'round' starts the next one",
                                "game-not-over")
        if seat != state.acting_seat:
            raise NotYourTurn(f"it is {state.acting_seat}'s turn, not {seat}'s",
                              seat=state.acting_seat)
        if isinstance(action, Play):
            return self._play(state, action)
        if isinstance(action, Move):
            return self._move(state, action)
        if isinstance(action, Discard):
            return self._discard(state, action)
        if isinstance(action, Timeout):
            return self._timeout(state, action)
        raise BadInput(f"the grid game has no {action.do!r} action: use play, move, discard, "
                       "timeout or round")

    def _refuse(self, state: GridState, action: Action, error: RuleError) -> Outcome[GridState]:
        """Tell the table (``illegal``); the state stays, but for the penalty draw if one is due."""
        events: Events = [event("illegal", seat=action.by, code=error.code, message=error.message)]
        penalty = self.options.illegal_penalty_draw
        if error.code in PENALISED_CODES and penalty > 0:
            state, drawn = self._draw(state, action.by, penalty, "penalty")
            state, low = self._announce_low_pile(state)
            events += drawn + low
        return Outcome(state, tuple(events), error)

    # --- the three kinds of turn -----------------------------------------------------------
    def _play(self, state: GridState, action: Play) -> tuple[GridState, Events]:
        """Play a card onto a grid cell, then draw one (no draw during forced plays)."""
        card, cell, seat = action.card, action.cell, action.by
        if action.color is not None:
            raise BadInput("a grid play takes no 'color': wilds on the grid carry none")
        if cell is None or not on_board(cell):
            raise BadInput(f"'cell' must be [row, col] inside the 5x5 grid, got {cell!r}")
        self._check_card(state, card, seat)
        if cell == state.pawn:
            raise IllegalAction(f"{_cell_name(cell)} has the pawn on it: play on another cell",
                                "pawn-cell", cell=cell)
        onto = state.top(cell)
        if not self._fits(card, onto):
            raise IllegalAction(f"{card} does not match {onto} on {_cell_name(cell)}",
                                "not-matching", card=card, onto=onto, cell=cell)
        forced = state.pending
        if forced and forced.claimed_no_play:
            raise IllegalAction(f"{seat} claimed to have no play and the grid has not changed "
                                "since: discard the rest", "claimed-no-play", seat=seat)
        i = cell[0] * SIZE + cell[1]
        state = replace(state, stacks=state.stacks[:i] + (state.stacks[i] + (card,),)
                        + state.stacks[i + 1:])
        state = _change_hand(state, seat, -1)
        events: Events = [event("played", seat=seat, card=card, cell=cell)]
        return self._after_card(state, seat, events, "play")

    def _discard(self, state: GridState, action: Discard) -> tuple[GridState, Events]:
        """Discard and draw one; during forced plays a discard is a claimed no play (no draw)."""
        seat = action.by
        self._check_card(state, action.card, seat)
        state = _change_hand(replace(state, discards=state.discards + (action.card,)), seat, -1)
        if state.pending:
            state = replace(state, pending=replace(state.pending, claimed_no_play=True))
            events: Events = [event("discarded", seat=seat, card=action.card,
                                    claimed_no_play=True)]
        else:
            events = [event("discarded", seat=seat, card=action.card)]
        return self._after_card(state, seat, events, "discard")

    def _after_card(self, state: GridState, seat: str, events: Events,
                    reason: str) -> tuple[GridState, Events]:
        """A normal turn draws one and passes; a forced play counts down instead."""
        forced = state.pending
        if forced is None:
            state, drawn = self._draw(state, seat, 1, reason)
            return self._pass_turn(state, seat, events + drawn)
        left = forced.left - 1
        if left > 0 and state.hand(seat) > 0:
            return replace(state, pending=replace(forced, left=left)), events
        # Forced plays done (or the hand is empty, which only a dry draw pile can cause).
        return self._pass_turn(replace(state, pending=None), seat, events)

    def _move(self, state: GridState, action: Move) -> tuple[GridState, Events]:
        """Move the pawn one step: onto a matching cell, or off the board to end the game."""
        seat, target, pawn = action.by, action.to, state.pawn
        if state.pending:
            raise IllegalAction(f"{seat} must first play {state.pending.left} more card(s) "
                                f"({state.pending.reason})", "forced-play", seat=seat,
                                left=state.pending.left)
        assert pawn is not None  # the pawn is off the board only when the game is over
        if not is_adjacent(pawn, target):
            raise IllegalAction(f"{_cell_name(target)} is not one step from the pawn on "
                                f"{_cell_name(pawn)}", "not-adjacent", cell=target, pawn=pawn)
        if not on_board(target):
            return self._leave_board(state, seat, target)
        if target == state.last_cell:
            raise IllegalAction(f"the pawn has just left {_cell_name(target)}: it may not go "
                                "straight back", "back-to-last-cell", cell=target)
        leaving, arriving = state.top(pawn), state.top(target)
        if not step_matches(leaving, arriving, self.options.wild_matches_all):
            raise IllegalAction(f"{arriving} on {_cell_name(target)} does not match {leaving} "
                                f"under the pawn", "not-matching", card=arriving, onto=leaving,
                                cell=target)
        state = replace(state, pawn=target, last_cell=pawn)
        events: Events = [event("moved", seat=seat, **{"from": pawn}, to=target)]
        return self._land(state, seat, arriving, events)

    def _land(self, state: GridState, seat: str, card: Card,
              events: Events) -> tuple[GridState, Events]:
        """The landing effect of the card under the pawn's new cell."""
        two_players = len(state.seats) == 2
        if card.face in FORCED_PLAYS:
            count = FORCED_PLAYS[card.face]
            state, drawn = self._draw(state, seat, count, card.face)
            left = min(count, state.hand(seat))
            if left == 0:  # a dry draw pile left nothing to play
                return self._pass_turn(state, seat, events + drawn)
            return replace(state, pending=Forced(seat, left, card.face)), events + drawn
        if card.face == "skip" or (card.face == "reverse" and two_players):
            skipped = self._next(state, seat)
            events.append(event("skipped", seat=skipped))
            return self._pass_turn(state, skipped, events)
        if card.face == "reverse":
            direction = "ccw" if state.direction == "cw" else "cw"
            state = replace(state, direction=direction)
            events.append(event("direction", direction=direction))
        return self._pass_turn(state, seat, events)

    def _leave_board(self, state: GridState, seat: str, target: Cell) -> tuple[GridState, Events]:
        """The pawn steps off the board: the seated side(s) it crosses win the game."""
        crossed = sides_crossed(target)
        winners = tuple(side for side in state.seats if side in crossed)
        if not winners:
            raise IllegalAction(f"nobody sits on the {' or '.join(crossed)} side: the pawn may "
                                "not leave the board there", "empty-side")
        points = 2 if len(winners) == 1 else 1  # solo win 2, shared win 1 each
        scores = tuple(s + (points if side in winners else 0)
                       for side, s in zip(state.seats, state.scores))
        next_starter = self._clockwise_after(state, state.game_starter)
        pawn = state.pawn
        state = replace(state, pawn=None, exit=target, winners=winners, scores=scores, over=True,
                        pending=None, turn=next_starter)
        events: Events = [event("moved", seat=seat, **{"from": pawn}, to=target),
                          event("won", seats=winners, points=points),
                          event("game-over", winners=winners,
                                scores=dict(zip(state.seats, scores)))]
        champions = match_champions(state.seats, scores, self.options.match_points)
        if champions:
            state = replace(state, champions=champions)
            events.append(event("match-over", champions=champions))
        return state, events

    def _timeout(self, state: GridState, action: Timeout) -> tuple[GridState, Events]:
        """The turn timer ran out: ``pass`` ends the turn (forced plays lapse), ``warn`` sounds."""
        if self.options.turn_seconds == 0:
            raise IllegalAction("the turn timer is off (turn_seconds = 0)", "timer-off")
        how = self.options.timeout_action
        events: Events = [event("timeout", seat=action.by, action=how)]
        if how == "warn":
            return state, events
        return self._pass_turn(replace(state, pending=None), action.by, events)

    def _new_game(self, state: GridState, action: Round) -> tuple[GridState, Events]:
        """Deal the next game: new grid, pawn in the centre, the next starter clockwise."""
        if action.grid is None:
            raise BadInput("'round' needs 'grid': the 5x5 grid of the next game")
        try:
            grid = read_grid_names(action.grid)
        except ValueError as exc:
            raise BadCard(str(exc)) from None
        too_many = check_copies(grid, self.options.decks)
        if too_many:
            raise BadCard(f"impossible grid: {too_many}")
        new = fresh_game(state.seats, grid, state.turn, self.options.decks, state.scores,
                         state.game_number + 1)
        return new, [event("new-game", game=new.game_number, starter=new.turn),
                     event("turn", seat=new.turn)]

    # --- helpers -----------------------------------------------------------------------------
    def _fits(self, card: Card, onto: Card) -> bool:
        return card_fits(card, onto, self.options.wild_matches_all)

    def _fitting_on(self, onto: Card) -> tuple[bool, ...]:
        """Whether each of the classic faces (in ``CLASSIC.faces``' order) may go on ``onto``."""
        fits = self._fitting.get(onto)
        if fits is None:
            fits = self._fitting[onto] = tuple(self._fits(card, onto) for card in CLASSIC.faces)
        return fits

    def _check_card(self, state: GridState, card: Card, seat: str) -> None:
        """A card leaving a hand must be a classic face with a copy still unseen, and the hand
        must hold something."""
        if card not in CLASSIC:
            raise BadCard(f"{card} is not a classic Uno card: the grid game uses the classic deck")
        if state.hand(seat) == 0:
            raise IllegalAction(f"{seat} has no card in hand", "empty-hand")
        seen = visible_counts(state)[card]
        if seen >= self._copies[card]:
            raise BadCard(f"{card}: all {self._copies[card]} copies of the deck(s) are already "
                          "face up on the table; re-read the card")

    def _legal_moves(self, state: GridState, seat: str) -> Iterator[Move]:
        pawn = state.pawn
        assert pawn is not None
        for target in neighbours(pawn):
            if not on_board(target):
                if any(side in state.seats for side in sides_crossed(target)):
                    yield Move(seat, target)
            elif target != state.last_cell and step_matches(
                    state.top(pawn), state.top(target), self.options.wild_matches_all):
                yield Move(seat, target)

    def _next(self, state: GridState, seat: str) -> str:
        """The seat after ``seat`` in the current direction of play."""
        step = 1 if state.direction == "cw" else -1
        return state.seats[(state.seats.index(seat) + step) % len(state.seats)]

    def _clockwise_after(self, state: GridState, seat: str) -> str:
        return state.seats[(state.seats.index(seat) + 1) % len(state.seats)]

    def _pass_turn(self, state: GridState, after: str,
                   events: Events) -> tuple[GridState, Events]:
        """The turn goes to the seat after ``after`` in the direction of play."""
        seat = self._next(state, after)
        return replace(state, turn=seat), events + [event("turn", seat=seat)]

    def _draw(self, state: GridState, seat: str, count: int,
              reason: str) -> tuple[GridState, Events]:
        """``seat`` draws ``count``, refilling the draw pile from the covered grid cards and the
        discards when it runs dry (``reshuffle``). A pile with nothing left to refill from stops
        the draw short; the event says how many were really drawn."""
        events: Events = []
        drawn = min(count, state.draw_pile)
        state = replace(state, draw_pile=state.draw_pile - drawn)
        if drawn < count and state.covered + len(state.discards) > 0:
            state = _reshuffle(state)
            events.append(event("reshuffle", draw_pile=state.draw_pile))
            more = min(count - drawn, state.draw_pile)
            state = replace(state, draw_pile=state.draw_pile - more)
            drawn += more
        state = _change_hand(state, seat, drawn)
        if reason == "penalty":
            events.append(event("penalty", seat=seat, count=drawn, reason="illegal-action"))
        else:
            events.append(event("drew", seat=seat, count=drawn, reason=reason))
        return state, events

    def _announce_low_pile(self, state: GridState) -> tuple[GridState, Events]:
        """Say once per pile, a turn ahead, that the draw pile is about to run out."""
        if state.low_announced or state.over or state.draw_pile > DRAW_PILE_LOW:
            return state, []
        return replace(state, low_announced=True), [event("draw-pile-low", left=state.draw_pile)]


def _reshuffle(state: GridState) -> GridState:
    """Every covered grid card and the discard pile become the new draw pile (docs/rules.md)."""
    refill = state.covered + len(state.discards)
    return replace(state, stacks=tuple((stack[-1],) for stack in state.stacks), discards=(),
                   draw_pile=state.draw_pile + refill, low_announced=False)


def _change_hand(state: GridState, seat: str, delta: int) -> GridState:
    i = state.seats.index(seat)
    return replace(state, hands=state.hands[:i] + (state.hands[i] + delta,) + state.hands[i + 1:])


def _cell_json(cell: Cell | None) -> list[int] | None:
    return None if cell is None else [cell[0], cell[1]]


def _cell_name(cell: Cell) -> str:
    return f"[{cell[0]}, {cell[1]}]"
