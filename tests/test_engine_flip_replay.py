"""UNO Flip / classic through ``companion replay``: every example of docs/replay-flip.md, and the
CLI itself as a subprocess (a malformed line goes on, a bad set-up line exits 2)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.replay import replay_lines

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "replay-flip.md"
SETUP = {"game": "flip", "seats": ["ann", "ben", "cai"], "dealer": "cai", "start": "red-5",
         "options": {}}


def doc_examples() -> list[tuple[int, list[str], dict]]:
    """(line number, input lines, expected part of the last answer) for each ```jsonl block."""
    text = DOC.read_text(encoding="utf-8")
    blocks = [(text[:m.start()].count("\n") + 1, m.group(1), m.group(2))
              for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]
    examples = []
    for i, (line, lang, body) in enumerate(blocks):
        if lang == "jsonl":
            follow = blocks[i + 1]
            assert follow[1] == "json", f"docs line {line}: a jsonl example needs a json answer"
            examples.append((line, body.strip().splitlines(), json.loads(follow[2])))
    return examples


def contains(actual, expected, where="answer") -> None:
    """``expected`` is part of ``actual``: dict keys recursively, lists item by item."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        for key, value in expected.items():
            assert key in actual, f"{where}: no {key!r} in {actual!r}"
            contains(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), \
            f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            contains(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


EXAMPLES = doc_examples()


def test_the_doc_has_an_example_per_rule():
    assert len(EXAMPLES) >= 50


@pytest.mark.parametrize("line, lines, expected", EXAMPLES, ids=[f"line{e[0]}" for e in EXAMPLES])
def test_doc_example_answers_as_documented(line, lines, expected):
    answers = list(replay_lines(lines))
    assert len(answers) == len(lines) - 1
    contains(answers[-1], expected)
    for earlier in answers[:-1]:      # the lines that lead up to the point are all accepted
        assert earlier["ok"], (line, earlier)


def run_cli(text: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "replay", "-"], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


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
