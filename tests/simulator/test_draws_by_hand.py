"""The scripted Flip and classic games take every card from the draw pile by hand: a card never
leaves the pile in a beat without the drawing seat's arm at the pile, and never two in one
reach, whether the phones tell the draws (``phone_draws=True``) or nobody taps them. So does the
grid game where nobody taps them (with the phones, the card drawn after a play leaves the
face-down pile in the play's beat)."""

from __future__ import annotations

import pytest

from simulator.pile_script import PileScript
from simulator.script import GridScript

#: (game, whether the phones tell the draws): the grid with the phones draws inside its plays
CASES = [("flip", True), ("flip", False), ("classic", True), ("classic", False), ("grid", False)]


def _script(game: str, seed: int, phone: bool):
    if game == "grid":
        return GridScript(60, seed=seed, phone_draws=phone)
    return PileScript(60, game=game, seed=seed, phone_draws=phone)


def _cards_left_the_pile(script) -> list[tuple[int, object, int]]:
    """(beat index, beat, cards that left the draw pile in it) for every beat the pile shrank in."""
    out, before = [], script._setup_scene.draw_count
    for i, beat in enumerate(script.beats):
        after = beat.scene.draw_count
        if after < before:
            out.append((i, beat, before - after))
        before = after
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("game", "phone"), CASES,
                         ids=[f"{g}-{'phones-tell-draws' if p else 'no-taps'}" for g, p in CASES])
def test_every_card_drawn_leaves_the_pile_in_a_reach_of_the_seat_that_drew(game, phone):
    drawn = 0
    for seed in (1, 2, 3):
        script = _script(game, seed, phone)
        layout = script.layout
        for i, beat, cards in _cards_left_the_pile(script):
            where = f"seed {seed} beat {i} ({beat.action})"
            assert cards == 1, f"{where}: {cards} cards left the pile in one reach"
            assert beat.arm is not None and beat.arm.seat is not None, f"{where}: no arm took it"
            assert beat.arm.tip == layout.draw_pile, f"{where}: the arm reached {beat.arm.tip}"
            drawn += 1
    assert drawn >= 5, f"only {drawn} cards drawn in three {game} games: nothing was checked"


def test_a_penalty_for_another_seats_play_is_taken_by_the_penalised_seat():
    """A draw-two makes the next seat draw while the player of the card acts: the cards are
    reached for afterwards, each in a beat of its own, by the seat that draws."""
    script = PileScript(120, game="classic", seed=2, phone_draws=True)
    penalties = []   # (the card's player, the seat reaching for a card it was made to draw)
    played_by = None
    for beat in script.beats:
        if beat.action is not None:
            played_by = beat.action.get("by") if "draw" in str(beat.action.get("card")) else None
        elif beat.lifted and played_by is not None:
            penalties.append((played_by, beat.seat))
    assert penalties, "no draw-two was played in a 120-action classic game"
    assert all(reacher is not None and reacher != player for player, reacher in penalties), penalties
