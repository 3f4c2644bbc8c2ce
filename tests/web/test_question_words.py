"""The camera's questions about hands (out of turn, a draw it could not count) in the page's
words, English and Japanese, said by the page's own functions (``web/static/common.js``, run
under node: no browser). Japanese must hold no English word of the page's vocabulary; the same
check on the English page must find English (the check can fail)."""

from __future__ import annotations

import functools
import json
import re

import pytest

from companion.bus import EventBus
from companion.reading import PawnReading, Reach, RegionReading, TableReading
from companion.referee.camera import CameraReferee
from companion.referee.table import Table
from tests.support.page_words import NODE, VOCABULARY, evaluate, words
from web.i18n import strings

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def say(lang: str, questions: list[dict]) -> list[list[str]]:
    """Each question as the page words it: [question text, each choice's text]."""
    exprs = [f"(q => [questionText(q), ...q.choices.map((c) => choiceText(q, c))])({json.dumps(q)})"
             for q in questions]
    return evaluate(lang, exprs)


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
        assert words(" ".join(lines)) & VOCABULARY  # the check below can fail


def test_japanese_words_hold_no_english():
    for lines in say("ja", asked()):
        for line in lines:
            assert line and "{" not in line, line
            assert not (words(line) & VOCABULARY), line


def test_both_catalogues_name_the_same_fields():
    en, ja = strings("en"), strings("ja")
    for key in en:
        if key.startswith(("q_out-of-turn", "q_drew", "nothing_out-of-turn", "choice_oot", "choice_drew")):
            assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", ja[key])), key
            assert en[key] != ja[key]
