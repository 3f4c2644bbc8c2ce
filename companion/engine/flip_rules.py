"""The moves of UNO Flip / classic Uno as small pure helpers: (state, ..., events) -> new state.

Each helper returns a new :class:`FlipState` and appends what happened to ``out`` (a list the
caller owns for the length of one ``apply``). Helpers raise :class:`RuleError` for refusals
before they change anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from ..cards import Card
from ..decks import copies
from .errors import BadCard, IllegalAction
from .events import Event, event
from .flip_state import (CCW, CW, FlipState, Pending, entry_for_face, face_of_entry,
                         face_set_of, faces_of_entry)

__all__ = ["Variant", "FLIP", "CLASSIC_VARIANT", "matches", "next_seat", "draw", "penalize",
           "close_window", "pass_turn_to", "check_face", "check_color", "after_play",
           "available_to_draw", "LOW_DRAW_PILE", "open_round", "copies_left", "check_copies",
           "uno_counts", "catch_counts", "reveal_copies_ok", "wild_back_to_hand", "start_showing",
           "opening_effect", "reveal_faces", "flip_table"]

#: ``draw-pile-low`` is announced when the draw pile falls to this many cards or fewer.
LOW_DRAW_PILE = 5


@dataclass(frozen=True)
class ChallengeRuling:
    """What a wild draw does: accepted, challenged and guilty, challenged and innocent.

    ``accept_draw``: cards the victim draws (``None`` = until the colour); ``innocent_extra``:
    the penalty cards a failed challenger draws on top. ``guilty_back``: the wild goes back to the
    accused's hand and the previous top stands again (else it stays with its colour);
    ``guilty_draw``: the accused draws.
    """

    accept_draw: int | None
    innocent_extra: int
    guilty_back: bool
    guilty_draw: int


@dataclass(frozen=True)
class Variant:
    """The differences between UNO Flip and classic Uno."""

    name: str
    deck_size: int
    has_flip: bool
    draws: tuple[tuple[str, int], ...]  # coloured draw faces -> cards the next player draws
    wild_draws: tuple[tuple[str, ChallengeRuling], ...]
    opening_redraw: tuple[str, ...]  # opening faces that go back into the pile

    def draw_count(self, face: str) -> int | None:
        return dict(self.draws).get(face)

    def ruling(self, face: str) -> ChallengeRuling | None:
        return dict(self.wild_draws).get(face)


FLIP = Variant(
    name="flip", deck_size=112, has_flip=True,
    draws=(("draw-one", 1), ("draw-five", 5)),
    wild_draws=(("wild-draw-two", ChallengeRuling(2, 2, True, 2)),
                ("wild-draw-color", ChallengeRuling(None, 2, True, 2))),
    opening_redraw=("wild-draw-two",),
)
CLASSIC_VARIANT = Variant(
    name="classic", deck_size=108, has_flip=False,
    draws=(("draw-two", 2),),
    wild_draws=(("wild-draw-four", ChallengeRuling(4, 2, False, 4)),),
    opening_redraw=("wild-draw-four",),
)


# --- reading cards ------------------------------------------------------------------------------

def matches(card: Card, top: Card | None, color: str | None) -> bool:
    """Uno matching: a wild goes on anything; else same colour (the declared one on a wild),
    or the same face (number or symbol)."""
    if card.is_wild:
        return True
    if top is None:
        return False
    return card.color == color or (not top.is_wild and card.face == top.face)


def check_face(state: FlipState, card: Card) -> None:
    """Refuse (``bad-card``) a face that is not of the deck / side in play."""
    fs = face_set_of(state.side)
    if card not in fs:
        where = "classic deck" if state.side is None else f"{state.side} side"
        raise BadCard(f"{card} is not a card of the {where}")


def copies_left(state: FlipState) -> Counter[Card]:
    """How many copies of each face of the side showing are not certainly lying open (read
    discards, hands shown at the end of the round). Never negative for a real table."""
    left = Counter(copies("classic" if state.side is None else state.side))
    for entry in state.discard:
        face = face_of_entry(entry, state.side)
        if face is not None:
            left[face] -= 1
    for _, cards in state.shown:
        left.subtract(Counter(cards))
    return left


def check_copies(state: FlipState, card: Card) -> None:
    """Refuse (``too-many-copies``) a face whose every copy already lies open: a misread."""
    if copies_left(state)[card] <= 0:
        raise IllegalAction(f"every {card} of the deck already lies open: check the reading",
                            "too-many-copies", card=card)


def check_color(state: FlipState, color: str | None) -> str:
    """A declared colour must be one of the side showing (``no-color`` otherwise)."""
    colors = face_set_of(state.side).colors
    if color not in colors:
        raise IllegalAction(
            f"a wild needs a colour of the {state.side or 'classic'} side: "
            f"{'/'.join(colors)} (got {color!r})", "no-color")
    return color


# --- seats and turns ----------------------------------------------------------------------------

def next_seat(state: FlipState, seat: int, steps: int = 1) -> int:
    return (seat + state.direction * steps) % len(state.seats)


def pass_turn_to(state: FlipState, seat: int, out: list[Event]) -> FlipState:
    out.append(event("turn", seat=state.seats[seat]))
    return replace(state, turn=seat)


# --- drawing ------------------------------------------------------------------------------------

def available_to_draw(state: FlipState) -> int:
    """Cards a draw can reach: the draw pile plus the discards under the top (reshufflable)."""
    return state.draw_pile + max(0, len(state.discard) - 1)


def _reshuffle(state: FlipState, out: list[Event]) -> FlipState:
    """Every discard but the top becomes the new draw pile."""
    moved = len(state.discard) - 1
    state = replace(state, draw_pile=state.draw_pile + moved, discard=state.discard[-1:])
    out.append(event("reshuffle", draw_pile=state.draw_pile))
    return state


def draw(state: FlipState, seat: int, count: int, reason: str, out: list[Event]) -> FlipState:
    """``seat`` draws ``count`` cards (fewer when the pile and the discards run dry).

    The discard pile is reshuffled when the draw pile cannot cover the draw. A hand that grows
    loses its UNO call, and an open catch window on it closes.
    """
    if count <= 0:
        return state
    if state.draw_pile < count and len(state.discard) > 1:
        state = _reshuffle(state, out)
    peak = state.draw_pile
    drawn = min(count, state.draw_pile)
    hands = list(state.hands)
    hands[seat] += drawn
    state = replace(state, hands=tuple(hands), draw_pile=state.draw_pile - drawn)
    out.append(event("drew", seat=state.seats[seat], count=drawn, reason=reason))
    if drawn:
        state = replace(state, called=state.called - {seat})
        if state.window == seat:
            state = close_window(state, out)
    if state.draw_pile <= LOW_DRAW_PILE < peak:  # said once, as the pile crosses the line
        out.append(event("draw-pile-low", left=state.draw_pile))
    return state


def penalize(state: FlipState, seat: int, count: int, reason: str,
             out: list[Event]) -> FlipState:
    """A penalty: announced (``penalty``), then drawn (``drew``)."""
    out.append(event("penalty", seat=state.seats[seat], count=count, reason=reason))
    return draw(state, seat, count, reason, out)


# --- the UNO catch window -----------------------------------------------------------------------

def close_window(state: FlipState, out: list[Event]) -> FlipState:
    if state.window is None:
        return state
    out.append(event("uno-window", seat=state.seats[state.window], open=False))
    return replace(state, window=None)


def card_hits_pile(state: FlipState, seat: int, auto_penalty: bool,
                   out: list[Event]) -> FlipState:
    """Another player's card on the pile closes the catch window; with ``auto_uno_penalty`` the
    player who forgot to call draws 2 then."""
    forgot = state.window
    if forgot is None or forgot == seat:
        return state
    state = close_window(state, out)
    if auto_penalty:
        state = penalize(state, forgot, 2, "uno", out)
    return state


# --- effects of a card played -------------------------------------------------------------------

def _discard(state: FlipState, card: Card) -> FlipState:
    hands = list(state.hands)
    hands[state.turn] -= 1
    return replace(state, hands=tuple(hands),
                   discard=state.discard + (entry_for_face(card, state.side),))


def flip_table(state: FlipState, out: list[Event]) -> FlipState:
    """Turn the discard pile over whole (the draw pile and every hand follow): the side changes
    and the new top is unread until ``reveal``."""
    side = "dark" if state.side == "light" else "light"
    state = replace(state, side=side, discard=tuple(reversed(state.discard)), top=None,
                    color=None)
    out.append(event("flipped", side=side))
    return state


def reveal_faces(state: FlipState) -> tuple[Card, ...]:
    """The faces the unread top of the discard pile can show (the pairing of the deck)."""
    return faces_of_entry(state.discard[-1], state.side) if state.discard else ()


def after_play(variant: Variant, state: FlipState, card: Card, color: str | None,
               auto_penalty: bool, out: list[Event]) -> FlipState:
    """Put a legal ``card`` on the pile for the player on turn and apply its effect."""
    seat = state.turn
    prev_top, prev_color = state.top, state.color
    state = card_hits_pile(state, seat, auto_penalty, out)
    state = _discard(state, card)
    state = replace(state, top=card, color=color if card.is_wild else card.color, pending=None)
    out.append(event("played", seat=state.seats[seat], card=card,
                     color=state.color))
    if card.is_wild:
        out.append(event("color-declared", seat=state.seats[seat], color=color))
    if state.hands[seat] == 1 and seat not in state.called:
        state = replace(state, window=seat)
        out.append(event("uno-window", seat=state.seats[seat], open=True))
    n = len(state.seats)
    victim = next_seat(state, seat)
    going_out = state.hands[seat] == 0
    face = card.face

    if going_out:
        return _go_out(variant, state, seat, card, out)
    if face == "skip":
        out.append(event("skipped", seat=state.seats[victim]))
        return pass_turn_to(state, next_seat(state, victim), out)
    if face == "reverse":
        state = replace(state, direction=-state.direction)
        out.append(event("direction", direction="cw" if state.direction == CW else "ccw"))
        if n == 2:  # acts as skip
            out.append(event("skipped", seat=state.seats[victim]))
            return pass_turn_to(state, seat, out)
        return pass_turn_to(state, next_seat(state, seat), out)
    if face == "skip-everyone":
        for other in range(n):
            if other != seat:
                out.append(event("skipped", seat=state.seats[other]))
        return pass_turn_to(state, seat, out)
    count = variant.draw_count(face)
    if count is not None:
        state = draw(state, victim, count, face, out)
        out.append(event("skipped", seat=state.seats[victim]))
        return pass_turn_to(state, next_seat(state, victim), out)
    if variant.ruling(face) is not None:
        state = replace(state, pending=Pending(
            "challenge", victim, reason=face, card=card, accused=seat, prev_top=prev_top,
            prev_color=prev_color, color=color))
        return pass_turn_to(state, victim, out)
    if face == "flip":
        state = flip_table(state, out)
        return replace(state, pending=Pending("reveal", seat, reason="flip",
                                              faces=reveal_faces(state)))
    return pass_turn_to(state, victim, out)


def _go_out(variant: Variant, state: FlipState, seat: int, card: Card,
            out: list[Event]) -> FlipState:
    """The last card: the round ends; a draw card still makes the next player draw, a flip
    still flips (hands score on the side it turns up).

    A wild draw played as the last card cannot be challenged: the accused holds no card, so
    cannot hold one of the colour. The next player takes the draw at once (``wild-draw-color``:
    they say how many cards came before the colour).
    """
    state = close_window(state, out)
    state = replace(state, over=True, winners=(seat,), called=frozenset())
    out.append(event("went-out", seat=state.seats[seat]))
    victim = next_seat(state, seat)
    face = card.face
    count = variant.draw_count(face)
    ruling = variant.ruling(face)
    if ruling is not None:
        count = ruling.accept_draw
        if count is None:
            return replace(state, turn=victim, pending=Pending(
                "draw", victim, reason=face, color=state.color, extra=0))
    if count is not None:
        state = draw(state, victim, count, face, out)
    if face == "flip":
        state = flip_table(state, out)
    return start_showing(state)


def start_showing(state: FlipState) -> FlipState:
    """Round over: every player who did not go out lays their hand open."""
    losers = tuple(s for s in range(len(state.seats)) if s not in state.winners)
    return replace(state, turn=state.winners[0],
                   pending=Pending("show", losers[0], seats=losers))


# --- opening a round ----------------------------------------------------------------------------

def open_round(variant: Variant, state: FlipState, card: Card, opening_flip: str,
               out: list[Event]) -> FlipState:
    """Apply the opening card ``card`` (already the only discard, light side / classic)."""
    first = (state.dealer + 1) % len(state.seats)
    state = replace(state, top=card, color=card.color, turn=first, direction=CW, pending=None)
    face = card.face
    if face in variant.opening_redraw or (face == "flip" and opening_flip == "redraw"):
        # back into the draw pile; the next card is turned and read (any seat sends it)
        state = replace(state, draw_pile=state.draw_pile + 1, discard=(), top=None, color=None,
                        pending=Pending("reveal", None, reason="opening"))
        out.append(event("redraw", card=card))
        return state
    if face == "flip":
        state = flip_table(state, out)
        return replace(state, pending=Pending("reveal", None, reason="opening-flip",
                                              faces=reveal_faces(state)))
    return opening_effect(variant, state, card, out)


def opening_effect(variant: Variant, state: FlipState, card: Card,
                   out: list[Event]) -> FlipState:
    """What the opening card does to the first player (the turn is already theirs)."""
    first = state.turn
    face = card.face
    count = variant.draw_count(face)
    if card.is_wild:
        out.append(event("turn", seat=state.seats[first]))
        return replace(state, color=None, pending=Pending("declare", first, reason="opening"))
    if count is not None:
        state = draw(state, first, count, face, out)
        out.append(event("skipped", seat=state.seats[first]))
        return pass_turn_to(state, next_seat(state, first), out)
    if face in ("skip", "skip-everyone"):
        out.append(event("skipped", seat=state.seats[first]))
        return pass_turn_to(state, next_seat(state, first), out)
    if face == "reverse":
        state = replace(state, direction=CCW)
        out.append(event("direction", direction="ccw"))
        return pass_turn_to(state, state.dealer, out)
    return pass_turn_to(state, first, out)


# --- rulings shared by apply and legal_actions ----------------------------------------------------

def uno_counts(state: FlipState, seat: int) -> bool:
    """docs/rules.md: the call counts on one's turn with 2 cards, or with 1 card once it is down and
    before being caught (the catch window is open on them)."""
    if state.over or seat in state.called:
        return False
    on_turn = state.turn == seat and (state.pending is None
                                      or state.pending.what == "play-or-pass")
    return (on_turn and state.hands[seat] == 2) or (state.window == seat
                                                   and state.hands[seat] == 1)


def catch_counts(state: FlipState, by: int, target: int) -> bool:
    """A catch counts inside the window, on a player who did not call and holds 1 card."""
    return (not state.over and by != target and state.window == target
            and target not in state.called and state.hands[target] == 1)


def reveal_copies_ok(state: FlipState, card: Card) -> bool:
    """A face may be revealed if a copy of it is not lying open elsewhere (the unread top
    itself does not count against it)."""
    left = copies_left(state)
    if state.discard and face_of_entry(state.discard[-1], state.side) == card:
        left[card] += 1
    return left[card] > 0


def wild_back_to_hand(state: FlipState, pending: Pending, out: list[Event]) -> FlipState:
    """Light guilty ruling: the wild goes back to the accused; the previous top and colour
    stand again. (If a reshuffle took the previous top meanwhile, it is taken back out of the
    draw pile so that it lies open again.)"""
    # (a challenged wild: who played it, and the top it was played on)
    assert pending.accused is not None and pending.prev_top is not None
    hands = list(state.hands)
    hands[pending.accused] += 1
    discard = state.discard[:-1]
    draw_pile = state.draw_pile
    if not discard:
        discard = (entry_for_face(pending.prev_top, state.side),)
        draw_pile -= 1
    state = replace(state, hands=tuple(hands), discard=discard, draw_pile=draw_pile,
                    top=pending.prev_top, color=pending.prev_color,
                    called=state.called - {pending.accused})
    if state.window == pending.accused:
        state = close_window(state, out)
    return state


# --- small rulings shared by apply and legal_actions -----------------------------------------------
