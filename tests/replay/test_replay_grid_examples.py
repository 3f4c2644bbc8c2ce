"""The grid game through ``companion replay``: every example of docs/replay-grid.md, and the CLI
itself as a subprocess (a malformed line goes on, a bad set-up line exits 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.replay import replay_lines
from tests.support.doc_examples import contains, doc_examples, run_cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "replay-grid.md"

GRID = [["red-1", "blue-2", "green-3", "yellow-4", "blue-5"],
        ["green-5", "red-skip", "red-draw-two", "blue-7", "red-6"],
        ["yellow-8", "red-reverse", "red-5", "wild", "yellow-9"],
        ["blue-1", "green-7", "blue-5", "wild-draw-four", "green-2"],
        ["red-9", "yellow-3", "green-skip", "blue-reverse", "yellow-1"]]
SETUP = json.dumps({"setup": {"game": "grid", "seats": ["north", "south"], "grid": GRID,
                              "options": {"turn_seconds": 0}}})


EXAMPLES = doc_examples(DOC)


def test_the_doc_has_an_example_per_rule():
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize("line, lines, expected", EXAMPLES, ids=[f"line{e[0]}" for e in EXAMPLES])
def test_doc_example_answers_as_documented(line, lines, expected):
    answers = list(replay_lines(lines))
    assert len(answers) == len(lines) - 1
    contains(answers[-1], expected)
    for earlier in answers[:-1]:      # the lines that lead up to the point are all accepted
        assert earlier["ok"] or earlier["error"] == "bad-input", (line, earlier)


def test_cli_replays_a_grid_game_and_goes_on_after_a_malformed_line():
    lines = [SETUP,
             '{"by": "north", "do": "play", "card": "red-7", "cell": [0, 0]}',
             '{"by": "south", "do": "move", "to": [2, 2, 2]}',
             'this is not json',
             '{"by": "south", "do": "move", "to": [1, 3]}',
             '',
             '{"by": "south", "do": "move", "to": [3, 2]}']
    done = run_cli("\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [True, False, False, False, True]
    assert [a.get("error") for a in answers[1:4]] == ["bad-input", "bad-input", "not-matching"]
    assert answers[-1]["state"]["pawn"] == [3, 2] and answers[-1]["state"]["turn"] == "north"


@pytest.mark.parametrize("setup, words", [
    ({"game": "grid", "seats": ["north", "up"], "grid": GRID}, "unknown side"),
    ({"game": "grid", "seats": ["north", "south"], "grid": GRID[:4]}, "5 rows of 5"),
])
def test_cli_exits_2_on_a_bad_setup_line(setup, words):
    done = run_cli(json.dumps({"setup": setup}) + "\n" + '{"by": "north", "do": "timeout"}\n')
    assert done.returncode == 2 and done.stdout == ""
    assert "bad set-up line" in done.stderr and words in done.stderr
