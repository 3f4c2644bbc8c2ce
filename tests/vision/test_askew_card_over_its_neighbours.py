"""A card dropped askew on a grid cell, its white border lying on the white borders of the card
below and of the neighbour's card (so too little of its outline shows as an edge to call it
whole), is read on the outline of what changed, not on the outline of the card below it."""

from __future__ import annotations

import pytest

from tests.support.torture import torture_run

pytestmark = pytest.mark.slow


def test_a_card_dropped_askew_over_a_neighbour_is_read_not_the_card_below():
    # Askew (grid, drawn faces), the tuning seed whose thirteenth beat drops a green draw-two
    # 15 mm off its cell, over the green reverse below it and the blue-2 beside it: read on the
    # green reverse's outline (the draw-two covering half of it), it was a green-8 at 0.84,
    # committed (a wrong commit, and the draw-two missed). About 3 CPU-seconds.
    run = torture_run("grid", "askew", "art", 7, actions=14)
    assert run["wrong_calls"]["wrong_commits"] == [] and run["wrong_calls"]["missed_actions"] == []
    assert run["exact"], run["first_difference"]
