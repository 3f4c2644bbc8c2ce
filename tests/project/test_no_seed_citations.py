"""No comment or docstring in the product, and no test's name, cites a seed, a round or a run as
the reason for something: a value or a rule says what it measures and what it trades, and a test
is named for the situation it checks (a seed may stay as data inside a test)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("companion", "vision", "app", "simulator", "web", "hardware", "league")
# Files that may cite seeds (none: a file that must, e.g. one quoting a benchmark's output,
# would be named here with the reason).
ALLOWED: set[str] = set()
#: "seed 12", "seeds 29-36", "round 17", "run 3", "runs 2 and 5" (a number after the word): what
#: one benchmark or debugging session saw, not what a value measures. ("seed=1" is a call's
#: argument; "round 0" the start of a score chart.) And "issue #17", "the ninth session": the
#: history of a figure belongs in the git log.
CITATION = re.compile(r"\b(seeds?|rounds?|runs?) #?[1-9]\d*|\bissue #?\d+|\b\w+th session\b",
                      re.IGNORECASE)
#: The same in a test's name: ``seed_7``, ``seed7``, ``round_17``, ``run_3``.
NAME_CITATION = re.compile(r"(^|_)(seeds?|rounds?|runs?)_?\d+", re.IGNORECASE)


def comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring in ``source``."""
    out = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.append((body[0].lineno, body[0].value.value))
    return out


def citations(source: str) -> list[tuple[int, str]]:
    """(line, the words) of every citation of a seed, a round or a run in ``source``'s comments
    and docstrings."""
    return [(line, m.group(0)) for line, text in comments_and_docstrings(source)
            for m in CITATION.finditer(text)]


def named_citations(source: str) -> list[str]:
    """The test functions of ``source`` whose names cite a seed, a round or a run."""
    return [node.name for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")
            and NAME_CITATION.search(node.name)]


def _product_files() -> list[Path]:
    return sorted(p for pkg in PRODUCT for p in (ROOT / pkg).rglob("*.py")
                  if p.relative_to(ROOT).as_posix() not in ALLOWED)


def test_no_comment_or_docstring_in_the_product_cites_a_seed_a_round_or_a_run():
    found = [f"{p.relative_to(ROOT)}:{line}: {words}" for p in _product_files()
             for line, words in citations(p.read_text(encoding="utf-8"))]
    assert found == []


def test_no_test_is_named_for_a_seed_a_round_or_a_run():
    found = [f"{p.relative_to(ROOT)}::{name}" for p in sorted((ROOT / "tests").rglob("test_*.py"))
             for name in named_citations(p.read_text(encoding="utf-8"))]
    assert found == []


#: In the tests a round is also a round of the game ("ann scored nothing in round 2"): their
#: comments and docstrings are held to the seeds, runs, issues and sessions.
TEST_CITATION = re.compile(r"\b(seeds?|runs?) #?[1-9]\d*|\bissue #?\d+|\b\w+th session\b", re.IGNORECASE)


def test_no_comment_or_docstring_in_the_tests_cites_a_seed_a_run_or_an_issue():
    # a test says the situation it checks (a seed stays as data: ``seed=3``); where a run found
    # it is the git log's to tell
    found = [f"{p.relative_to(ROOT)}:{line}: {m.group(0)}"
             for p in sorted((ROOT / "tests").rglob("*.py")) if p.name != Path(__file__).name
             for line, text in comments_and_docstrings(p.read_text(encoding="utf-8"))
             for m in TEST_CITATION.finditer(text)]
    assert found == []


def test_the_allowed_files_still_exist():
    # (a file renamed or removed must leave this list with it)
    assert all((ROOT / name).is_file() for name in ALLOWED)


@pytest.mark.parametrize("text", [
    "# tuned on seed 12", '"""fitted to seeds 29-36"""', "# round 17: the pile", "# run 3 missed it",
    "# (motion blur, classic seed 10: ann's green-6)", "# as measured in issue #17",
    '"""the width from the ninth session"""'])
def test_a_citation_is_found(text):
    assert citations(text + "\n")


@pytest.mark.parametrize("text", [
    "# the seeds of the hold-out", "# a round of play", "# runs on the camera's thread",
    "# seeded random numbers", "# the second run", '""">>> table = SyntheticTable(320, 180, seed=1)"""',
    "# a fresh round: 7 cards each", "# the session's cookie", "# open an issue on the tracker"])
def test_words_without_a_number_are_no_citation(text):
    assert citations(text + "\n") == []


def test_a_test_named_for_a_seed_or_a_run_is_found():
    assert named_citations("def test_glare_grid_seed_7_is_exact(): pass\n")
    assert named_citations("def test_run_3_asks(): pass\n")
    assert named_citations("def test_a_seeded_grid_asks(): pass\n") == []
