"""The camera's questions about hands (out of turn, a draw it could not count) in the page's
words, English and Japanese, said by the page's own functions (``web/static/common.js``, run
under node: no browser). Japanese must hold no English word of the page's vocabulary; the same
check on the English page must find English (the check can fail)."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.bus import EventBus
from companion.reading import PawnReading, Reach, RegionReading, TableReading
from companion.referee.camera import CameraReferee
from companion.referee.table import Table
from web.i18n import strings

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "web" / "i18n"
NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", " ", text))}


def _vocabulary() -> set[str]:
    """The English catalogue's words that the Japanese catalogue does not use itself."""
    en = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    ja = json.loads((I18N / "ja.json").read_text(encoding="utf-8"))
    return set().union(*map(_words, en.values())) - set().union(*map(_words, ja.values()))


def say(lang: str, questions: list[dict]) -> list[list[str]]:
    """Each question as the page words it: [question text, each choice's text]."""
    exprs = [f"(q => [questionText(q), ...q.choices.map((c) => choiceText(q, c))])({json.dumps(q)})"
             for q in questions]
    out = subprocess.run([NODE, str(ROOT / "tests" / "support" / "evaluate.js")], check=True,
                         input=json.dumps({"lang": lang, "strings": strings(lang), "exprs": exprs}),
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


@functools.cache
def asked() -> list[dict]:
    """The questions a referee really asks (the confirm-needed events' data)."""
    setup = {"setup": {"game": "classic", "seats": ["ann", "ben", "cai"], "dealer": "cai",
                       "start": "red-5", "options": {"turn_seconds": 0}}}
    out = []

    def ask(*readings):
        bus = EventBus()
        table = Table(setup, bus, clock=lambda: 0.0)
        referee = CameraReferee(lambda: table, bus)
        for seq, (card, reaches) in enumerate(readings, 1):
            referee.on_reading(TableReading(seq, 0.0, (), RegionReading.of({card: 0.999}),
                                            PawnReading(None, None, False), changed=("discard",),
                                            reaches=reaches))
        out.append(referee.question.to_json())

    south, west, north = "south", "west", "north"
    ask(("red-5", ()), ("red-7", (Reach(west, ("discard",)),)))              # play, drew
    ask(("red-5", ()), ("red-7", (Reach(north, ("discard",)),)))             # play, turn
    ask(("red-5", ()), ("red-5", (Reach(south, ("draw",), 1),)),
        ("red-7", (Reach(north, ("discard",)),)))                           # play, passed
    ask(("red-5", ()), ("red-5", (Reach(west, ("draw",), 1),)))             # draw, turn
    ask(("red-5", ()), ("red-5", (Reach(south, ("draw",), None),)))         # drew
    return out


VOCABULARY = _vocabulary()


def test_the_questions_asked_are_every_new_shape():
    shapes = {(q["kind"], q.get("did"), q.get("after")) for q in asked()}
    assert shapes == {("out-of-turn", "play", "drew"), ("out-of-turn", "play", "turn"),
                      ("out-of-turn", "play", "passed"), ("out-of-turn", "draw", "turn"),
                      ("drew", None, None)}


def test_english_words():
    said = say("en", asked())
    assert said[0] == ["Did ben play ▲ red 7 before ann drew?", "no: ann drew and passed first",
                       "no: ann played ▲ red 7", "yes: ben takes it back"]
    assert said[4][0] == "Did ann take a card from the draw pile?"
    for lines in said:
        assert all(line and "{" not in line for line in lines), lines
        assert _words(" ".join(lines)) & VOCABULARY  # the check below can fail


def test_japanese_words_hold_no_english():
    for lines in say("ja", asked()):
        for line in lines:
            assert line and "{" not in line, line
            assert not (_words(line) & VOCABULARY), line


def test_both_catalogues_name_the_same_fields():
    en, ja = strings("en"), strings("ja")
    for key in en:
        if key.startswith(("q_out-of-turn", "q_drew", "nothing_out-of-turn", "choice_oot", "choice_drew")):
            assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", ja[key])), key
            assert en[key] != ja[key]
