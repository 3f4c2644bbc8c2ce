"""A torture run (``benchmarks/table_torture.py``) made exact by the answer "another card...".

Grid, glare drifting over the table, art faces, seed 7, 12 actions: south put red-5 on cell
(2, 1), which the rules refuse. Under the glare the card model read it with red-5 far down its
list, so the camera asked which legal play it was, and red-5 was not among the choices: the
players answered "misread" and the illegal attempt was never recorded. Now they answer
"another card: red-5", are told the rules refuse it, and say it was put down all the same: the
table records the attempt as the camera would have called it. (About 8 CPU-seconds: slow.)
"""

from __future__ import annotations

import pytest

from tests.support.torture import torture_run


@pytest.mark.slow
def test_glare_grid_seed_7_is_exact_with_the_illegal_card_named():
    run = torture_run("grid", "glare", "art", 7)
    assert run["other_cards"] >= 1                 # the card put down was not offered
    assert run["exact"], run["first_difference"]
    assert run["missed_illegal_attempts"] == 0 and run["wrong_commits"] == 0
