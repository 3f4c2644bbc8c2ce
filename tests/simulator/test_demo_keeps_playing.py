"""The demo plays match after match, every game, with the camera's picture showing the board.

The demo is driven frame by frame on a simulated clock (:class:`tests.support.demo_run.DemoRun`),
as fast as the machine renders and reads: a long match of the demo runs in a fraction of its
time.
"""

from __future__ import annotations

import random

from app.runner import demo_setup
from tests.support.demo_run import DemoRun


def test_the_demo_plays_every_game_match_after_match_and_its_picture_shows_the_board():
    # short matches: a grid match of several games, Flip and classic of two rounds each
    run = DemoRun(seed=3, rules={"turn_seconds": 30, "match_points": 4, "rounds": 2})
    run.host.start_match(demo_setup("grid", random.Random(3), run.loop.rules))
    limit = run.now + 3 * 3600  # simulated
    while run.matches_won < 3 and run.now < limit:
        run.frame()
    assert run.matches_won >= 3, run.where()
    assert run.games[:3] == ["grid", "flip", "classic"]
