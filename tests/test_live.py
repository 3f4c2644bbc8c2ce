"""End to end on the synthetic table: a short scripted grid game through the live pipeline.

The full >= 300-action run is ``benchmarks/table_e2e.py`` (too slow for the test suite).
"""

from __future__ import annotations

from vision.synthetic.script import GridScript, reference_events, run_script


def test_script_is_a_legal_game():
    script = GridScript(40, seed=5)
    events = reference_events(script)
    assert sum(1 for e in events if e[0] == "action") >= 40


def test_short_scripted_game_gives_exactly_the_scripted_events():
    # 8 actions with an illegal attempt (seed 0: beat 5), a second arm in about a third of the beats
    script = GridScript(8, seed=0)
    assert any(b.expect_refusal for b in script.beats)
    result = run_script(script, width=1280, height=720)
    assert result.exact, result.first_difference()
