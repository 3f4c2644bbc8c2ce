"""benchmarks/leave_one_print_out.py: the table of held-out prints."""

from __future__ import annotations

import pytest

from tests.support.scripts import load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/leave_one_print_out.py")


def _model(right, photos, **captures):
    out = {"all": {"right": right, "photos": photos, "accuracy": right / photos}}
    out.update({f"capture / {k}": {"right": r, "photos": n} for k, (r, n) in captures.items()})
    return out


def test_each_held_out_print_is_a_row_with_and_without_the_drawn_prints(bench):
    result = {"models": {
        "white-oval / drawn": _model(9, 10, phone=(5, 5), webcam=(4, 5)),
        "white-oval / plain": _model(8, 10, phone=(5, 5), webcam=(3, 5)),
        "round-centre / drawn-0.1": _model(3, 4, phone=(3, 4)),
    }}
    rows = {r["print"]: r for r in bench.rows_of(result)}
    assert rows["white-oval"]["drawn"] == "9/10 = 90.0%" and rows["white-oval"]["plain"] == "8/10 = 80.0%"
    assert rows["white-oval"]["drawn by capture"] == "phone 5/5, webcam 4/5"
    # a print measured one way only still has both columns
    assert rows["round-centre"]["drawn"] == "-" and rows["round-centre"]["plain"] == "-"
    assert rows["round-centre"]["drawn_0_1"] == "3/4 = 75.0%"  # (a name a results column can fill)
    assert rows["white-oval"]["drawn_0_1"] == "-"
