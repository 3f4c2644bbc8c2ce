"""docs/results.md is generated from benchmarks/results/ (scripts/results_page.py): the committed page
matches what the result files say, every figure of the index is found in its file, and a changed
result file changes the page."""

from __future__ import annotations

import doctest
import importlib.util
import json
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results_page():
    spec = importlib.util.spec_from_file_location("results_page", REPO / "scripts" / "results_page.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_its_examples(results_page):
    assert doctest.testmod(results_page).failed == 0


def test_the_committed_page_is_what_the_result_files_give(results_page):
    assert (REPO / "docs" / "results.md").read_text() == results_page.page(), \
        "docs/results.md is stale: run python scripts/results_page.py --write"


def test_every_figure_names_a_committed_file_and_a_command(results_page):
    index = tomllib.loads(results_page.INDEX.read_text())
    entries = [e for s in index["section"] for e in s.get("figure", []) + s.get("rows", [])]
    assert len(entries) >= 20
    for entry in entries:
        assert (results_page.RESULTS / entry["file"]).is_file(), entry["file"]
        assert entry["command"].strip(), entry["name"]


def test_a_changed_result_file_changes_the_page(results_page, tmp_path, monkeypatch):
    for f in results_page.RESULTS.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    memory = json.loads((tmp_path / "memory_bench.json").read_text())
    memory["companion_run"]["peak_rss_mb"] = 123.4
    (tmp_path / "memory_bench.json").write_text(json.dumps(memory))
    monkeypatch.setattr(results_page, "RESULTS", tmp_path)
    text = results_page.page()
    assert "123.4 MB" in text and text != (REPO / "docs" / "results.md").read_text()


def test_a_figure_its_file_does_not_hold_is_an_error(results_page):
    with pytest.raises(results_page.ResultError):
        results_page.value_of({"file": "evaluate_real.txt", "pattern": r"no such line (?P<value>\d+)"})
    with pytest.raises(results_page.ResultError):
        results_page.value_of({"file": "pi_budget.json", "key": "no_such_key"})


def test_check_says_when_the_page_is_stale(results_page, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(results_page, "PAGE", tmp_path / "results.md")
    assert results_page.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert results_page.main(["--write"]) == 0
    assert results_page.main(["--check"]) == 0
