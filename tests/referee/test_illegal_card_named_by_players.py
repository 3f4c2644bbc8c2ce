"""An illegal card the camera reads far down its list is recorded when the players name it.

A scripted grid game under glare drifting over the table (art faces, 12 actions) in which south
puts red-5 on cell (2, 1), which the rules refuse: under the glare the card model reads it with
red-5 far down its list, so the camera asks which legal play it was, and red-5 is not among the
choices. The players answer "another card: red-5", are told the rules refuse it, and say it was
put down all the same: the table records the attempt as the camera would have called it, and
the game stays exact. (About 8 CPU-seconds: slow.)
"""

from __future__ import annotations

import pytest

from tests.support.torture import torture_run


@pytest.mark.slow
def test_an_illegal_card_read_far_down_the_list_under_glare_is_recorded_once_named():
    run = torture_run("grid", "glare", "art", 7)   # (the game in which south plays red-5 on (2, 1))
    assert run["other_cards"] >= 1                 # the card put down was not offered
    assert run["exact"], run["first_difference"]
    assert run["missed_illegal_attempts"] == 0 and run["wrong_commits"] == 0
