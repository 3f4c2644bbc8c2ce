"""The words of the "Another card..." answer (the button, the picker's title, the question
about a card the rules refuse, its answer in the event list, the refusal of a question that
takes none), English and Japanese, said by the page's own functions (``web/static/common.js``
under node). Japanese must hold no English word of the page's vocabulary; the same check on
the English page must find English (the check can fail)."""

from __future__ import annotations

import re

import pytest

from tests.support.page_words import NODE, VOCABULARY, evaluate, words
from web.i18n import strings

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

KEYS = ("other_card", "other_card_q", "other_card_illegal_q", "other_card_illegal_yes",
        "err_no-other-card")
EXPRS = [
    "T('other_card')",
    "T('other_card_q', { where: whereWords('cell-1-1') })",
    "T('other_card_q', { where: whereWords('discard') })",
    "T('other_card_illegal_q', { card: cardWords('green-9') })",
    "T('other_card_illegal_yes')",
    "reasonText('no-other-card', {}, 'this question is answered by its choices only')",
    "eventText({ type: 'confirm-answer', seat: 'north', question: 3, illegal: false,"
    " other: { by: 'north', do: 'play', card: 'blue-7', cell: [1, 1] } })",
]


def said(lang: str) -> list[str]:
    return evaluate(lang, EXPRS)


def test_both_catalogues_have_the_words_with_the_same_fields():
    en, ja = strings("en"), strings("ja")
    for key in KEYS:
        assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", ja[key])), key
        assert en[key] != ja[key]


def test_english_words():
    lines = said("en")
    assert lines[0] == "Another card…"
    assert lines[1] == "Which card was put on cell (1, 1)?"
    assert lines[6].startswith("north answered:") and "blue 7" in lines[6]
    for line in lines:
        assert line and "{" not in line, line
    assert words(" ".join(lines)) & VOCABULARY  # the check below can fail


def test_japanese_words_hold_no_english():
    for line in said("ja"):
        assert line and "{" not in line, line
        assert not (words(line) & VOCABULARY), line
