"""The manual (docs/*.md) stays a manual: no page over 6,000 words, under 45,000 in all, and no
page tells the story of a piece of work (a round, a session, an issue number). History belongs in
the git log and CHANGELOG.md; the current figures in docs/results.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md"))

MAX_PAGE_WORDS = 6_000
MAX_MANUAL_WORDS = 45_000

#: Words of a work diary, as `grep -nE 'round [0-9]|session|issue|#[0-9]'` finds them; an option
#: such as ``--first-round 19`` and "around 90" are no story.
_STORY = re.compile(r"(?<![-\w])round [0-9]|\bsessions?\b|\bissues?\b|(?<![\w&])#[0-9]", re.I)


def words(text: str) -> int:
    """Words as ``wc -w`` counts them."""
    return len(text.split())


def story_lines(text: str) -> list[str]:
    return [f"{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if _STORY.search(line)]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_page_is_over_six_thousand_words(page):
    assert words(page.read_text()) <= MAX_PAGE_WORDS, f"{page.name}: split or condense it"


def test_the_manual_is_under_forty_five_thousand_words():
    total = sum(words(p.read_text()) for p in PAGES)
    assert total < MAX_MANUAL_WORDS, total


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_page_tells_the_story_of_a_round_a_session_or_an_issue(page):
    assert story_lines(page.read_text()) == []


def test_the_checks_see_what_they_are_for():
    assert story_lines("Measured in round 4, issue #17's session 3") != []
    assert story_lines("the session\nIssue 12\nsee #60") == ["1: the session", "2: Issue 12", "3: see #60"]
    assert story_lines("`--first-round 19`, around 90-160, rounds 1-18, a round's end") == []
    assert words("one two\nthree") == 3


def test_the_readme_and_the_changelog_point_to_the_manual():
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    assert "docs/results.md" in readme and "CHANGELOG.md" in readme
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and "## [0.1.0]" in changelog
