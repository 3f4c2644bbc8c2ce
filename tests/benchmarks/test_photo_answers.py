"""benchmarks/photo_answers.py: the photos' answers with a ruling on and off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.scripts import load_script
from vision.recognize import CardSighting

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "photo_answers.py"


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/photo_answers.py")


class _Reader:
    def __init__(self, read):
        self._read = read

    def read(self, image, deck="auto"):
        return self._read


def _run_without_data(tmp_path, args) -> subprocess.CompletedProcess:
    """The script run with ``args`` where no photo data is."""
    env = {"UNO_DATA": str(tmp_path / "nowhere"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)


def _seen(label, conf):
    q = ((0.0, 0.0), (10.0, 0.0), (10.0, 16.0), (0.0, 16.0))
    return CardSighting(label, conf, (), q, (5.0, 8.0))


def test_the_answer_is_the_surest_reading_or_none(bench):
    from vision.evaluate import photo_answer

    image = np.zeros((20, 20, 3), np.uint8)
    assert photo_answer(bench.read_photo(_Reader([_seen("red-1", 0.4), _seen("blue-9", 0.8)]), image)) == "blue-9"
    assert photo_answer(bench.read_photo(_Reader([]), image)) is None
    assert photo_answer(bench.read_photo(_Reader([_seen("red-1", 0.4)]), None)) is None   # unreadable


@pytest.mark.parametrize("args", [["--split", "train"], ["--split", "test", "--constant", "INDEX_VOTE"],
                                  ["--module", "vision.recognize", "--constant", "GROWN_MASS", "--off", "0"]])
def test_without_the_photo_data_it_says_so(tmp_path, args):
    r = _run_without_data(tmp_path, args)
    assert r.returncode == 2
    assert "UNO_DATA" in r.stderr and "nowhere" in r.stderr


def test_a_false_card_is_a_sure_reading_of_another_label(bench):
    read = [_seen("red-1", 0.9), _seen("blue-9", bench.FALSE_AT), _seen("green-2", bench.FALSE_AT - 0.01)]
    assert bench.false_cards(read, "red-1") == 1          # the blue 9; the green 2 is too unsure
    assert bench.false_cards(read, "yellow-5") == 2       # the card itself misread counts too
    assert bench.false_cards([], "red-1") == 0


@pytest.mark.parametrize("args, says", [
    (["--constant", "NO_SUCH_RULING"], "vision.index_vote has no constant NO_SUCH_RULING"),
    (["--module", "vision.no_such_module"], "no module vision.no_such_module")])
def test_a_ruling_it_cannot_find_is_named_before_any_photo_is_read(tmp_path, args, says):
    r = _run_without_data(tmp_path, args)
    assert r.returncode == 2
    assert says in r.stderr
