"""UNO Flip and classic Uno (docs/rules.md, UNO Flip and classic): :class:`FlipGame` and its
variant :class:`ClassicGame`.

The engine is a pure function of (state, action). Hands are hidden: the engine knows how many
cards each player holds, the size of the draw pile, and the cards lying open on the discard
pile. Draws the rules impose (draw cards, penalties, a wild draw accepted or lost in a
challenge) are applied by the engine itself; a player's own ``draw`` is a line.

>>> from companion.engine.actions import action_from_json
>>> game, state = FlipGame.from_setup({"seats": ["ann", "ben", "cai"], "dealer": "cai",
...                                    "start": "red-5"})
>>> game.to_json(state)["turn"], game.to_json(state)["top"]
('ann', 'red-5')
>>> out = game.apply(state, action_from_json({"by": "ann", "do": "play", "card": "red-flip"}))
>>> out.ok, game.to_json(out.state)["side"], game.to_json(out.state)["pending"]["what"]
(True, 'dark', 'reveal')

Refusals come back as ``Outcome.error`` (codes in ``docs/replay-flip.md``). A wrong card is
refused with ``not-matching`` *and* punished: the card goes back, the player draws 2 and the
turn passes; the outcome's state and events say so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, ClassVar, Iterator

from ..cards import Card, FaceSet, UnknownCard, parse_card
from .actions import (Accept, Action, Catch, Challenge, Declare, Draw, Pass, Penalty, Play, Reveal,
                      Round, Show, Timeout, Uno)
from .base import Game, Outcome, options_from_json, read_seats
from .errors import BadInput, IllegalAction, NotYourTurn, RuleError, SetupError
from .events import Event, event
from .flip_round import deal, show_hand
from .flip_rules import (CLASSIC_VARIANT, FLIP, ChallengeRuling, Variant, after_play, available_to_draw,
                         catch_counts, check_color, check_copies, check_face, close_window, draw,
                         matches, next_seat, open_round, opening_effect, pass_turn_to, penalize,
                         reveal_copies_ok, start_showing, uno_counts, wild_back_to_hand)
from .flip_state import (ClassicOptions, FlipOptions, FlipState, Pending, entry_for_face,
                         face_set_of, narrow_entry)
from .flip_view import describe_pending, legal_moves, state_json, table_look, waiting_for
from .look import TableLook, WaitingFor

__all__ = ["FlipGame", "ClassicGame", "FlipOptions", "ClassicOptions", "FlipState"]

_SETUP_KEYS = {"game", "seats", "dealer", "start", "options"}


def _refuse(message: str, code: str, **params: object) -> IllegalAction:
    return IllegalAction(message, code, **params)


class FlipGame(Game[FlipState]):
    """UNO Flip: 112 two-faced cards, light and dark sides (docs/rules.md, UNO Flip and classic)."""

    name: ClassVar[str] = "flip"
    variant: ClassVar[Variant] = FLIP
    options_class: ClassVar[type] = FlipOptions

    def __init__(self, options: ClassicOptions | None = None):
        self.options = options if options is not None else self.options_class()

    # --- set-up ---------------------------------------------------------------------------------

    @classmethod
    def from_setup(cls, setup: dict[str, Any]) -> tuple["FlipGame", FlipState]:
        """Read ``{"game", "seats", "dealer", "start", "options"}``.

        Seats: 2-10 unique names, clockwise. ``dealer`` defaults to the last seat (so the first
        listed starts). ``start`` is the opening card (light face / classic face).
        """
        if not isinstance(setup, dict):
            raise SetupError("'setup' must be a JSON object")
        unknown = sorted(set(setup) - _SETUP_KEYS)
        if unknown:
            raise SetupError(f"unknown set-up field(s) {', '.join(unknown)}: expected "
                             f"{', '.join(sorted(_SETUP_KEYS))}")
        seats = list(read_seats(setup, 2, 10))
        dealer = setup.get("dealer", seats[-1])
        if dealer not in seats:
            raise SetupError(f"'dealer' must be one of the seats, got {dealer!r}")
        start = setup.get("start")
        if not isinstance(start, str):
            raise SetupError("'start' must name the opening card, e.g. \"red-5\"")
        game = cls(options_from_json(cls.options_class, setup.get("options")))
        try:
            card = parse_card(start, game._opening_faces())
        except UnknownCard as exc:
            raise SetupError(f"bad 'start': {exc}") from None
        state = deal(cls.variant, tuple(seats), seats.index(dealer), card, (0,) * len(seats), 1,
                     game._opening_flip(), [])
        return game, state

    def _opening_faces(self) -> FaceSet:
        return face_set_of("light" if self.variant.has_flip else None)

    def _opening_flip(self) -> str:
        return getattr(self.options, "opening_flip", "redraw")

    # --- applying actions -----------------------------------------------------------------------

    def apply(self, state: FlipState, action: Action) -> Outcome[FlipState]:
        """Apply ``action``; refusals come back in ``Outcome.error`` (state unchanged, except the
        wrong-card penalty)."""
        out: list[Event] = []
        try:
            seat = self._seat(state, action.by)
            handler = self._HANDLERS.get(type(action))
            if handler is None:
                raise BadInput(f"{action.do!r} is not an action of {self.name}")
            if state.match_over:
                raise _refuse("the match is over", "match-over")
            new = handler(self, state, seat, action, out)
        except _WrongCard as wrong:
            return Outcome(wrong.state, tuple(wrong.events), wrong.error)
        except RuleError as exc:
            return Outcome(state, (), exc)
        return Outcome(new, tuple(out))

    @staticmethod
    def _seat(state: FlipState, name: str) -> int:
        seat = state.seat_index(name)
        if seat is None:
            raise _refuse(f"no seat {name!r} at this table ({', '.join(state.seats)})",
                          "unknown-seat")
        return seat

    @staticmethod
    def _guard_turn(state: FlipState, seat: int, *allowed: str) -> None:
        """Refuse unless it is ``seat``'s turn and nothing else is awaited (bar ``allowed``)."""
        if state.over:
            raise _refuse("the round is over", "round-over")
        if seat != state.turn:
            raise NotYourTurn(f"it is {state.seats[state.turn]}'s turn", seat=state.seats[state.turn])
        pending = state.pending
        if pending is not None and pending.what not in allowed:
            raise _refuse(f"waiting for {pending.what} ({describe_pending(state)})",
                          f"{pending.what}-pending")

    def _play(self, state: FlipState, seat: int, a: Play, out: list[Event]) -> FlipState:
        if a.cell is not None:
            raise BadInput("flip/classic plays take no 'cell'")
        self._guard_turn(state, seat, "play-or-pass")
        check_face(state, a.card)
        check_copies(state, a.card)
        if a.card.is_wild:
            check_color(state, a.color)
        elif a.color is not None and a.color != a.card.color:
            raise _refuse(f"{a.card} is not a wild: no colour to declare", "unexpected-color",
                          card=a.card)
        if not matches(a.card, state.top, state.color):
            raise self._wrong_card(state, seat, a.card)
        return after_play(self.variant, state, a.card, a.color, self.options.auto_uno_penalty,
                          out)

    def _wrong_card(self, state: FlipState, seat: int, card: Card) -> "_WrongCard":
        """docs/rules.md: the card goes back to the hand, the player draws 2, the turn passes."""
        error = _refuse(f"{card} does not match {state.top} (colour {state.color}): "
                        "it goes back, 2 cards penalty, the turn passes", "not-matching",
                        card=card, onto=state.top, color=state.color)
        out = [event("illegal", seat=state.seats[seat], code=error.code, message=error.message)]
        state = replace(state, pending=None)
        state = penalize(state, seat, 2, "not-matching", out)
        state = pass_turn_to(state, next_seat(state, seat), out)
        return _WrongCard(state, out, error)

    def _draw(self, state: FlipState, seat: int, a: Draw, out: list[Event]) -> FlipState:
        pending = state.pending
        if pending is not None and pending.what == "draw":
            return self._draw_until_color(state, seat, a.count, out)
        self._guard_turn(state, seat)
        if a.count != 1:
            raise _refuse("a player's own draw is one card", "draw-count")
        state = draw(state, seat, 1, "draw", out)
        return replace(state, pending=Pending("play-or-pass", seat))

    def _draw_until_color(self, state: FlipState, seat: int, count: int,
                          out: list[Event]) -> FlipState:
        pending = state.pending
        assert pending is not None and pending.seat is not None   # (a pending draw: its seat's)
        if seat != pending.seat:
            raise NotYourTurn(f"{state.seats[pending.seat]} draws until {pending.color}")
        most = available_to_draw(state)
        if count > most:
            raise _refuse(f"only {most} cards can be drawn (draw pile and discards)",
                          "too-many-cards")
        if count < 1 and most > 0:
            raise _refuse("the card of the colour counts: at least 1", "draw-count")
        state = replace(state, pending=None)
        state = draw(state, seat, count, pending.reason, out)
        state = penalize(state, seat, pending.extra, "challenge", out) if pending.extra else state
        if state.over:
            return start_showing(state)
        out.append(event("skipped", seat=state.seats[seat]))
        return pass_turn_to(state, next_seat(state, seat), out)

    def _pass(self, state: FlipState, seat: int, a: Pass, out: list[Event]) -> FlipState:
        self._guard_turn(state, seat, "play-or-pass")
        if state.pending is None:
            raise _refuse("pass comes after drawing a card", "draw-first")
        state = replace(state, pending=None)
        return pass_turn_to(state, next_seat(state, seat), out)

    def _timeout(self, state: FlipState, seat: int, a: Timeout, out: list[Event]) -> FlipState:
        if self.options.turn_seconds == 0:
            raise _refuse("the turn timer is off (turn_seconds = 0)", "timer-off")
        if state.over:
            raise _refuse("the round is over", "round-over")
        if seat != state.turn:
            raise NotYourTurn(f"it is {state.seats[state.turn]}'s turn")
        what = state.pending.what if state.pending else None
        if what not in (None, "play-or-pass", "challenge"):
            raise _refuse(f"no turn timer runs while waiting for {what}", "no-timer")
        if self.options.timeout_action == "warn":
            out.append(event("timeout", seat=state.seats[seat], action="warn"))
            return state
        if what == "challenge":
            out.append(event("timeout", seat=state.seats[seat], action="accept"))
            return self._accept(state, seat, Accept(by=state.seats[seat]), out)
        out.append(event("timeout", seat=state.seats[seat], action="pass"))
        if what is None:
            state = draw(state, seat, 1, "timeout", out)
        state = replace(state, pending=None)
        return pass_turn_to(state, next_seat(state, seat), out)

    # --- UNO ------------------------------------------------------------------------------------

    def _uno(self, state: FlipState, seat: int, a: Uno, out: list[Event]) -> FlipState:
        if not uno_counts(state, seat):
            raise _refuse("this UNO call does not count now (it counts on your turn with 2 "
                          "cards, or with 1 card before you are caught)", "no-uno")
        out.append(event("uno", seat=state.seats[seat]))
        state = replace(state, called=state.called | {seat})
        return close_window(state, out) if state.window == seat else state

    def _catch(self, state: FlipState, seat: int, a: Catch, out: list[Event]) -> FlipState:
        target = self._seat(state, a.target)
        if not catch_counts(state, seat, target):
            raise _refuse(f"{a.target} cannot be caught now: nothing happens", "no-catch")
        out.append(event("caught", seat=a.target, by=state.seats[seat]))
        state = close_window(state, out)
        return penalize(state, target, 2, "uno", out)

    # --- wild draws -----------------------------------------------------------------------------

    def _challenge_pending(self, state: FlipState, seat: int, word: str) -> Pending:
        pending = state.pending
        if state.over or pending is None or pending.what != "challenge":
            raise _refuse(f"no wild draw to {word}", f"nothing-to-{word}")
        assert pending.seat is not None   # (a challenge: its victim)
        if seat != pending.seat:
            raise _refuse(f"only {state.seats[pending.seat]}, the player hit by the "
                          f"{pending.card}, may {word}", "not-challenger")
        return pending

    def _ruling(self, card: Card) -> ChallengeRuling:
        """How a challenge of ``card``, a wild draw, is settled (only wild draws are challenged)."""
        ruling = self.variant.ruling(card.face)
        assert ruling is not None
        return ruling

    def _accept(self, state: FlipState, seat: int, a: Accept, out: list[Event]) -> FlipState:
        pending = self._challenge_pending(state, seat, "accept")
        return self._take_wild_draw(state, pending, 0, out)

    def _take_wild_draw(self, state: FlipState, pending: Pending, extra: int,
                        out: list[Event]) -> FlipState:
        """The victim takes the wild draw (+ ``extra`` penalty cards) and loses the turn."""
        victim, card = pending.seat, pending.card
        assert victim is not None and card is not None   # (a challenge: its victim, the wild)
        ruling = self._ruling(card)
        if ruling.accept_draw is None:  # draw until the colour: the victim says how many
            return replace(state, pending=Pending("draw", victim, reason=card.face,
                                                  color=pending.color, extra=extra))
        state = replace(state, pending=None)
        state = draw(state, victim, ruling.accept_draw, card.face, out)
        if extra:
            state = penalize(state, victim, extra, "challenge", out)
        out.append(event("skipped", seat=state.seats[victim]))
        return pass_turn_to(state, next_seat(state, victim), out)

    def _challenge(self, state: FlipState, seat: int, a: Challenge, out: list[Event]) -> FlipState:
        if a.verdict not in ("guilty", "innocent"):
            raise BadInput(f"'verdict' must be guilty or innocent, got {a.verdict!r}")
        pending = self._challenge_pending(state, seat, "challenge")
        accused, card = pending.accused, pending.card
        assert accused is not None and card is not None   # (a challenge: who played the wild)
        out.append(event("challenged", seat=state.seats[seat],
                         accused=state.seats[accused], verdict=a.verdict))
        ruling = self._ruling(card)
        if a.verdict == "innocent":
            return self._take_wild_draw(state, pending, ruling.innocent_extra, out)
        state = replace(state, pending=None)
        if ruling.guilty_back:
            state = wild_back_to_hand(state, pending, out)
        state = penalize(state, accused, ruling.guilty_draw, "challenge", out)
        return pass_turn_to(state, seat, out)  # the challenger takes a normal turn

    # --- reveals and colours --------------------------------------------------------------------

    def _reveal(self, state: FlipState, seat: int, a: Reveal, out: list[Event]) -> FlipState:
        pending = state.pending
        if state.over or pending is None or pending.what != "reveal":
            raise _refuse("no face to reveal now", "nothing-to-reveal")
        if pending.reason == "flip" and seat != pending.seat:
            assert pending.seat is not None   # (a flip's face: who played the flip)
            raise NotYourTurn(f"{state.seats[pending.seat]}, who played the flip, reveals")
        check_face(state, a.card)
        if a.color is not None and not (a.card.is_wild and pending.reason == "flip"):
            raise _refuse("a colour comes with a reveal only for a wild turned up by a flip",
                          "unexpected-color")
        out.append(event("revealed", card=a.card))
        if pending.reason == "opening":
            state = replace(state, draw_pile=state.draw_pile - 1,
                            discard=(entry_for_face(a.card, state.side),), pending=None)
            return open_round(self.variant, state, a.card, self._opening_flip(), out)
        predicted = a.card in pending.faces
        if not predicted and getattr(self.options, "pairing", "enforce") == "enforce":
            raise _refuse(f"{a.card} is not on the back of that card: it can show "
                          f"{', '.join(c.name for c in pending.faces)}", "not-other-face")
        if not reveal_copies_ok(state, a.card):
            raise _refuse(f"every {a.card} of the deck already lies open: check the reading",
                          "too-many-copies")
        if predicted:
            top = narrow_entry(state.discard[-1], a.card, state.side)
        else:  # this deck pairs its faces otherwise: trust what the table shows
            out.append(event("face-not-predicted", card=a.card,
                             predicted=[c.name for c in pending.faces]))
            top = entry_for_face(a.card, state.side)
        state = replace(state, discard=state.discard[:-1] + (top,), top=a.card,
                        color=a.card.color, pending=None)
        if pending.reason == "opening-flip":  # no effect; the first player starts
            first = (state.dealer + 1) % len(state.seats)
            state = replace(state, turn=first)
            if a.card.is_wild:
                return opening_effect(self.variant, state, a.card, out)
            return pass_turn_to(state, first, out)
        if a.card.is_wild:
            if a.color is None:
                return replace(state, pending=Pending("declare", seat, reason="flip"))
            return self._declared(state, seat, check_color(state, a.color), "flip", out)
        return pass_turn_to(state, next_seat(state, seat), out)

    def _declare(self, state: FlipState, seat: int, a: Declare, out: list[Event]) -> FlipState:
        pending = state.pending
        if state.over or pending is None or pending.what != "declare":
            raise _refuse("no wild waits for a colour", "nothing-to-declare")
        if seat != pending.seat:
            assert pending.seat is not None   # (a colour to declare: its seat's)
            raise NotYourTurn(f"{state.seats[pending.seat]} declares the colour")
        return self._declared(replace(state, pending=None), seat, check_color(state, a.color),
                              pending.reason, out)

    @staticmethod
    def _declared(state: FlipState, seat: int, color: str, reason: str,
                  out: list[Event]) -> FlipState:
        out.append(event("color-declared", seat=state.seats[seat], color=color))
        state = replace(state, color=color)
        if reason == "flip":  # play continues with the player after the flipper
            return pass_turn_to(state, next_seat(state, seat), out)
        return state  # the opening wild: the declarer now plays

    # --- penalties, end of round ----------------------------------------------------------------

    def _penalty(self, state: FlipState, seat: int, a: Penalty, out: list[Event]) -> FlipState:
        target = self._seat(state, a.target)
        if state.over:
            raise _refuse("the round is over", "round-over")
        return penalize(state, target, a.count, "table", out)

    def _show(self, state: FlipState, seat: int, a: Show, out: list[Event]) -> FlipState:
        if state.pending is None or state.pending.what != "show":
            code = "draw-pending" if state.over else "round-not-over"
            raise _refuse("hands are shown when the round is over and its draws are done", code)
        return show_hand(self.options, state, seat, a.cards, out)

    def _round(self, state: FlipState, seat: int, a: Round, out: list[Event]) -> FlipState:
        if state.pending is None or state.pending.what != "round":
            code = "hands-not-shown" if state.over else "round-not-over"
            raise _refuse("the next round starts once this one is over and scored", code)
        if a.grid is not None or a.start is None:
            raise BadInput("'round' needs 'start' (the opening card) and takes no 'grid'")
        winner = state.winners[0]
        if seat != winner:
            raise NotYourTurn(f"{state.seats[winner]}, the round winner, deals the next round")
        dealer = winner if a.dealer is None else self._seat(state, a.dealer)
        if dealer != winner:
            raise _refuse(f"the round winner {state.seats[winner]} deals", "wrong-dealer")
        if a.start not in self._opening_faces():
            raise _refuse(f"{a.start} is not a face of the "
                          f"{'light side' if self.variant.has_flip else 'classic deck'}",
                          "bad-card")
        out.append(event("round", round=state.round_no + 1, dealer=state.seats[dealer],
                         start=a.start))
        return deal(self.variant, state.seats, dealer, a.start, state.scores,
                    state.round_no + 1, self._opening_flip(), out)

    #: Each action's method: (self, state, seat, action, events) -> the new state.
    _HANDLERS: ClassVar[dict[type[Action], Callable[..., FlipState]]] = {
        Play: _play, Draw: _draw, Pass: _pass, Timeout: _timeout, Uno: _uno, Catch: _catch,
        Challenge: _challenge, Accept: _accept, Reveal: _reveal, Declare: _declare,
        Penalty: _penalty, Show: _show, Round: _round,
    }

    # --- what may be done now, and the replay state ---------------------------------------------

    def legal_actions(self, state: FlipState) -> Iterator[Action]:
        """Every action some seat may take now (lazily).

        Plays list every face of the side showing that matches and still has a copy not lying
        open (wilds once per colour); ``penalty`` is listed as 2 cards from each seat to each
        other seat (any count is accepted); ``show`` lists a few representative hands of the
        right size; ``round`` lists every opening face, sent by the round winner.
        """
        return legal_moves(self, state)

    def to_json(self, state: FlipState) -> dict[str, Any]:
        return state_json(self.name, state)

    def table_look(self, state: FlipState) -> TableLook:
        """The discard pile's top face (``None`` while a face turned up by a flip is unread)."""
        return table_look(state)

    def waiting_for(self, state: FlipState) -> WaitingFor:
        """A turn, or the pending step (:class:`~.flip_state.Pending`) as an
        :class:`~.look.Awaiting`: a reveal (by who played the flip; an opening one by anyone),
        a colour, a challenge, a draw count, play-or-pass; then hands to show, the next round, or
        the match over."""
        return waiting_for(state)


class ClassicGame(FlipGame):
    """Classic Uno: the Flip flow with the 108-card deck, no flip, ``draw-two``,
    ``wild-draw-four`` (guilty: the card stays, the accused draws 4; innocent: 4 + 2), 0s and
    classic points."""

    name: ClassVar[str] = "classic"
    variant: ClassVar[Variant] = CLASSIC_VARIANT
    options_class: ClassVar[type] = ClassicOptions


class _WrongCard(Exception):
    """Internal: a refused play whose penalty still changes the state."""

    def __init__(self, state: FlipState, events: list[Event], error: RuleError):
        super().__init__(error.message)
        self.state, self.events, self.error = state, events, error
