"""Rounds of UNO Flip / classic Uno: dealing, laying hands open, scoring, the match.

Scores are credited once every player who did not go out has shown their hand (``show``),
counted on the side showing at the end of the round (docs/rules.md, UNO Flip and classic, "End of a round").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..cards import Card
from .errors import IllegalAction
from .events import Event, event
from .flip_rules import Variant, check_face, copies_left, open_round
from .flip_state import (CW, HAND_SIZE, ClassicOptions, FlipState, Pending, entry_for_face,
                         face_set_of)

__all__ = ["deal", "show_hand", "hand_points", "representative_hands"]


def deal(variant: Variant, seats: tuple[str, ...], dealer: int, start: Card,
         scores: tuple[int, ...], round_no: int, opening_flip: str,
         out: list[Event]) -> FlipState:
    """A fresh round: 7 cards each, ``start`` turned face-up (light side), its opening effect."""
    side = "light" if variant.has_flip else None
    n = len(seats)
    state = FlipState(
        seats=seats, dealer=dealer, turn=(dealer + 1) % n, direction=CW, side=side,
        top=start, color=start.color, hands=(HAND_SIZE,) * n,
        draw_pile=variant.deck_size - HAND_SIZE * n - 1,
        discard=(entry_for_face(start, side),), scores=scores, round_no=round_no)
    check_face(state, start)
    return open_round(variant, state, start, opening_flip, out)


def hand_points(state: FlipState, cards: tuple[Card, ...]) -> int:
    fs = face_set_of(state.side)
    return sum(fs.points(c) for c in cards)


def show_hand(options: ClassicOptions, state: FlipState, seat: int, cards: tuple[Card, ...],
              out: list[Event]) -> FlipState:
    """``seat`` lays ``cards`` open; once every loser has, the round is scored."""
    pending = state.pending
    assert pending is not None   # (called while the table waits for hands)
    if seat not in pending.seats:
        raise IllegalAction(f"{state.seats[seat]} has no hand to show now", "nothing-to-show")
    if len(cards) != state.hands[seat]:
        raise IllegalAction(
            f"{state.seats[seat]} holds {state.hands[seat]} cards, {len(cards)} were shown",
            "hand-count")
    for card in cards:
        check_face(state, card)
    left = copies_left(state)
    left.subtract(Counter(cards))
    over = sorted(c.name for c, k in left.items() if k < 0)
    if over:
        raise IllegalAction(f"the deck has fewer copies of {', '.join(over)} than are now open",
                            "too-many-copies")
    points = hand_points(state, cards)
    out.append(event("hand-shown", seat=state.seats[seat], points=points))
    rest = tuple(s for s in pending.seats if s != seat)
    state = replace(state, shown=state.shown + ((seat, cards),))
    if rest:
        return replace(state, pending=replace(pending, seat=rest[0], seats=rest))
    return _credit(options, state, out)


def _credit(options: ClassicOptions, state: FlipState, out: list[Event]) -> FlipState:
    """Score the round (``scoring`` flag) and decide the match (``target``, ``rounds``)."""
    winner = state.winners[0]
    per_hand = {seat: hand_points(state, cards) for seat, cards in state.shown}
    total = sum(per_hand.values())
    scores = list(state.scores)
    scores[winner] += total
    if options.scoring == "sheet":
        for seat, points in per_hand.items():
            scores[seat] -= points
    state = replace(state, scores=tuple(scores))
    out.append(event("won", seats=[state.seats[winner]], points=total))
    out.append(event("round-over", winners=[state.seats[winner]],
                     scores=dict(zip(state.seats, scores))))
    reached = max(scores) >= options.target
    last_round = options.rounds and state.round_no >= options.rounds
    if reached or last_round:
        best = max(scores)
        champions = tuple(s for s, v in enumerate(scores) if v == best)
        out.append(event("match-over", champions=[state.seats[s] for s in champions]))
        return replace(state, champions=champions, pending=None)
    return replace(state, pending=Pending("round", winner))


def representative_hands(state: FlipState, size: int) -> list[tuple[Card, ...]]:
    """A few hands of ``size`` faces the deck could still hold (for ``legal_actions``): the
    cheapest faces first, and the dearest first."""
    remaining = copies_left(state)
    fs = face_set_of(state.side)
    by_points = sorted((c for c in fs.faces if remaining[c] > 0), key=lambda c: (fs.points(c), c))
    hands = []
    for order in (by_points, by_points[::-1]):
        hand: list[Card] = []
        for card in order:
            take = min(remaining[card], size - len(hand))
            hand += [card] * take
            if len(hand) == size:
                break
        if len(hand) == size:
            hands.append(tuple(hand))
    return list(dict.fromkeys(hands))
