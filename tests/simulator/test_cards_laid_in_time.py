"""The synthetic table draws the grid's cards in the order they were put down: a card dropped
askew over a neighbouring cell lies on top of that cell's card when it came later, as on a real
table, and under it when it came first; dealt cards (put down together) keep the cells' order."""

from __future__ import annotations

import numpy as np
import pytest

from simulator import Placement, Scene, SyntheticTable

#: a red card dropped 22 mm east of its cell, over the west edge of the blue card next to it
ASKEW = dict(dx=22.0, dy=0.0, angle=0.0)


def _picture(red_laid: int | None, blue_laid: int | None) -> np.ndarray:
    """The table with the red card on cell (0, 0) and the blue one on (0, 1), each only where
    its ``laid`` is not None."""
    red = (Placement("red-5", laid=red_laid, **ASKEW),) if red_laid is not None else ()
    blue = (Placement("blue-5", laid=blue_laid),) if blue_laid is not None else ()
    table = SyntheticTable(960, 540, seed=1)
    return table.render(Scene(grid=(red, blue)), noise_seed=0).astype(np.int16)


@pytest.fixture(scope="module")
def alone():
    """Each card drawn alone, and where both lie (pixels either changes from the bare table)."""
    bare = _picture(None, None)
    red, blue = _picture(0, None), _picture(None, 0)
    both = (np.abs(red - bare).max(axis=2) > 40) & (np.abs(blue - bare).max(axis=2) > 40)
    assert both.sum() > 200, "the askew card reaches over its neighbour"
    return red, blue, both


@pytest.mark.parametrize("red_laid, blue_laid, on_top", [
    (1, 0, "red"),    # the askew card came after the deal: it covers its neighbour
    (1, 2, "blue"),   # the neighbour was played on after it: the neighbour covers it
    (0, 0, "blue"),   # dealt together: the cells' order (row by row)
])
def test_where_two_cards_overlap_the_later_one_shows(alone, red_laid, blue_laid, on_top):
    red, blue, both = alone
    seen = _picture(red_laid, blue_laid)
    top, under = (red, blue) if on_top == "red" else (blue, red)
    # (medians: the card above casts its shadow over the edge of the one below, which neither
    # card alone shows)
    assert np.median(np.abs(seen - top)[both]) < 2.0
    assert np.median(np.abs(seen - under)[both]) > 20.0
