"""What a UNO Flip / classic table may do now (``legal_actions``) and how it looks (``to_json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from .actions import (Accept, Action, Catch, Challenge, Declare, Draw, Pass, Penalty, Play, Reveal,
                      Round, Show, Timeout, Uno)
from .flip_round import representative_hands
from .flip_rules import (available_to_draw, catch_counts, copies_left, matches, reveal_copies_ok,
                         uno_counts)
from .flip_state import CW, FlipState, Pending, face_set_of
from .look import Awaiting, TableLook, WaitingFor

if TYPE_CHECKING:
    from .flip import FlipGame

__all__ = ["legal_moves", "state_json", "pending_json", "describe_pending", "table_look",
           "waiting_for"]


def legal_moves(game: "FlipGame", state: FlipState) -> Iterator[Action]:
    """See :meth:`FlipGame.legal_actions`."""
    if state.match_over:
        return
    names = state.seats
    if not state.over:
        for seat in range(len(names)):
            if uno_counts(state, seat):
                yield Uno(by=names[seat])
        if state.window is not None:
            for seat in range(len(names)):
                if catch_counts(state, seat, state.window):
                    yield Catch(by=names[seat], target=names[state.window])
        for seat in range(len(names)):
            for target in range(len(names)):
                if seat != target:
                    yield Penalty(by=names[seat], target=names[target], count=2)
    if state.pending is None or state.pending.what == "play-or-pass":
        yield from _turn_moves(game, state)
    else:
        yield from _pending_moves(game, state, state.pending)


def _turn_moves(game: "FlipGame", state: FlipState) -> Iterator[Action]:
    if state.over:
        return
    fs = face_set_of(state.side)
    turn = state.seats[state.turn]
    left = copies_left(state)
    for card in fs.faces:
        if left[card] <= 0:
            continue
        if card.is_wild:
            for color in fs.colors:
                yield Play(by=turn, card=card, color=color)
        elif matches(card, state.top, state.color):
            yield Play(by=turn, card=card)
    yield Draw(by=turn) if state.pending is None else Pass(by=turn)
    if game.options.turn_seconds > 0:
        yield Timeout(by=turn)


def _pending_moves(game: "FlipGame", state: FlipState, pending: Pending) -> Iterator[Action]:
    names = state.seats
    fs = face_set_of(state.side)
    what = pending.what
    if what in ("challenge", "draw", "declare", "round"):
        assert pending.seat is not None   # each of these waits for one seat
        yield from _one_seat_moves(game, state, pending, names[pending.seat])
    elif what == "reveal":
        senders = names if pending.seat is None else (names[pending.seat],)
        shown = fs.faces if pending.reason == "opening" else pending.faces
        faces = [c for c in shown if reveal_copies_ok(state, c)]
        for by in senders:
            for card in faces:
                yield Reveal(by=by, card=card)
                if card.is_wild and pending.reason == "flip":
                    for color in fs.colors:
                        yield Reveal(by=by, card=card, color=color)
    elif what == "show":
        for s in pending.seats:
            for hand in representative_hands(state, state.hands[s]):
                yield Show(by=names[s], cards=hand)


def _one_seat_moves(game: "FlipGame", state: FlipState, pending: Pending,
                    seat: str) -> Iterator[Action]:
    what = pending.what
    if what == "challenge":
        yield Accept(by=seat)
        yield Challenge(by=seat, verdict="guilty")
        yield Challenge(by=seat, verdict="innocent")
        if game.options.turn_seconds > 0:
            yield Timeout(by=seat)
    elif what == "draw":
        most = available_to_draw(state)
        for count in range(1 if most else 0, most + 1):
            yield Draw(by=seat, count=count)
    elif what == "declare":
        for color in face_set_of(state.side).colors:
            yield Declare(by=seat, color=color)
    elif what == "round":
        for card in game._opening_faces().faces:
            yield Round(by=seat, start=card, dealer=seat)


def state_json(game_name: str, state: FlipState) -> dict[str, Any]:
    """The replay ``state`` object (docs/replay-flip.md, "State")."""
    names = state.seats
    return {
        "game": game_name,
        "round": state.round_no,
        "dealer": names[state.dealer],
        "turn": names[state.turn],
        "direction": "cw" if state.direction == CW else "ccw",
        "side": state.side,
        "top": state.top.name if state.top else None,
        "color": state.color,
        "pawn": None,
        "last_cell": None,
        "hands": dict(zip(names, state.hands)),
        "draw_pile": state.draw_pile,
        "discard_pile": len(state.discard),
        "pending": pending_json(state),
        "uno": {"called": [names[s] for s in sorted(state.called)],
                "window": names[state.window] if state.window is not None else None},
        "winners": [names[s] for s in state.winners],
        "scores": dict(zip(names, state.scores)),
        "over": state.over,
        "champions": [names[s] for s in state.champions],
    }


def table_look(state: FlipState) -> TableLook:
    """The discard pile's top face (``None`` while a turned-up face is unread); no grid, no pawn."""
    return TableLook(discard=state.top.name if state.top else None)


#: ``Pending.what`` -> what the table waits for.
_AWAITING = {"declare": Awaiting.COLOUR, "reveal": Awaiting.REVEAL,
             "challenge": Awaiting.CHALLENGE, "draw": Awaiting.DRAW_COUNT,
             "play-or-pass": Awaiting.PLAY_OR_PASS, "show": Awaiting.SHOW,
             "round": Awaiting.ROUND}


def waiting_for(state: FlipState) -> WaitingFor:
    """See :meth:`FlipGame.waiting_for`."""
    names = state.seats
    turn = names[state.turn]
    if state.match_over:
        return WaitingFor(Awaiting.OVER)
    p = state.pending
    if state.over:  # hands to show, then the next round
        if p is not None and p.what == "show":
            return WaitingFor(Awaiting.SHOW, seats=tuple(names[s] for s in p.seats))
        seat = names[p.seat] if p is not None and p.seat is not None else None
        return WaitingFor(Awaiting.ROUND, seat)
    if p is None:
        return WaitingFor(Awaiting.TURN, turn)
    what = _AWAITING.get(p.what)
    if what is None:  # pragma: no cover - every Pending.what is mapped above
        raise ValueError(f"unknown pending {p.what!r}")
    if what is Awaiting.SHOW:
        return WaitingFor(what, seats=tuple(names[s] for s in p.seats))
    if p.seat is None:  # an opening reveal: any seat sends it, the one on turn is expected to
        return WaitingFor(what, turn, anyone=True)
    return WaitingFor(what, names[p.seat])


def describe_pending(state: FlipState) -> str:
    p = state.pending
    assert p is not None   # (said of a wait)
    seat = state.seats[p.seat] if p.seat is not None else "any seat"
    return f"{p.what} by {seat}"


def pending_json(state: FlipState) -> dict[str, Any] | None:
    p = state.pending
    if p is None:
        return None
    names = state.seats
    out: dict[str, Any] = {"what": p.what, "seat": names[p.seat] if p.seat is not None else None}
    if p.reason:
        out["reason"] = p.reason
    if p.what == "challenge":
        assert p.card is not None and p.accused is not None   # (a challenge's wild and its player)
        out.update(card=p.card.name, accused=names[p.accused], color=p.color)
    elif p.what == "draw":
        out.update(color=p.color, extra=p.extra, most=available_to_draw(state))
    elif p.what == "reveal" and p.faces:
        out["faces"] = [c.name for c in p.faces]
    elif p.what == "declare":
        out["colors"] = list(face_set_of(state.side).colors)
    elif p.what == "show":
        out["seats"] = [names[s] for s in p.seats]
    return out
