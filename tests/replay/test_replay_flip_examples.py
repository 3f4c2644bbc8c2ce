"""UNO Flip / classic through ``companion replay``: every example of docs/replay-flip.md, and the
CLI itself as a subprocess (a malformed line goes on, a bad set-up line exits 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.replay import replay_lines
from tests.support.doc_examples import contains, doc_examples, run_cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "replay-flip.md"
SETUP = {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
         "options": {}}


EXAMPLES = doc_examples(DOC)


def test_the_doc_has_an_example_per_rule():
    assert len(EXAMPLES) >= 50


@pytest.mark.parametrize("line, lines, expected", EXAMPLES, ids=[f"line{e[0]}" for e in EXAMPLES])
def test_doc_example_answers_as_documented(line, lines, expected):
    answers = list(replay_lines(lines))
    assert len(answers) == len(lines) - 1
    contains(answers[-1], expected)
    for earlier in answers[:-1]:      # the lines that lead up to the point are all accepted
        assert earlier["ok"], (line, earlier)


def test_cli_replays_a_flip_game_and_goes_on_after_a_malformed_line():
    lines = [json.dumps({"setup": SETUP}),
             '{"by": "ann", "do": "play", "card": "red-flip"}',
             'not json at all',
             '{"by": "ann", "do": "reveal"}',
             '{"by": "ann", "do": "reveal", "card": "teal-5"}',
             '',
             '{"by": "ben", "do": "play", "card": "teal-skip-everyone"}',
             '{"by": "ben", "do": "play", "card": "red-1"}']
    done = run_cli("\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [True, False, False, True, True, False]
    assert [a.get("error") for a in answers] == [None, "bad-input", "bad-input", None, None,
                                                 "bad-card"]
    assert answers[-2]["state"]["side"] == "dark" and answers[-2]["state"]["turn"] == "ben"


def test_cli_replays_a_classic_game():
    setup = dict(SETUP, game="classic", start="red-0")
    done = run_cli(json.dumps({"setup": setup}) + '\n{"by": "ann", "do": "play", "card": '
                   '"wild-draw-four", "color": "blue"}\n{"by": "ben", "do": "accept"}\n')
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["ok"] and last["state"]["hands"]["ben"] == 11 and last["state"]["side"] is None


@pytest.mark.parametrize("setup, words", [
    (dict(SETUP, seats=["ann"]), "2 to 10"),
    (dict(SETUP, dealer="zed"), "dealer"),
    (dict(SETUP, start="pink-3"), "start"),
    (dict(SETUP, options={"scoring": "golf"}), "scoring"),
    (dict(SETUP, game="classic", options={"opening_flip": "apply"}), "opening_flip"),
])
def test_cli_exits_2_on_a_bad_setup_line(setup, words):
    done = run_cli(json.dumps({"setup": setup}) + "\n" + '{"by": "ann", "do": "draw"}\n')
    assert done.returncode == 2 and done.stdout == ""
    assert "bad set-up line" in done.stderr and words in done.stderr
