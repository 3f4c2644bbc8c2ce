"""The packages' doctests are collected (pyproject.toml), and conftest.py skips a module that needs
a missing optional package (torch, picamera2...) while any other import error still fails."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("companion", "vision", "web", "hardware", "simulator", "app")


def test_the_suite_collects_the_packages_doctests():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in config["addopts"].split()
    assert set(PACKAGES) <= set(config["testpaths"])
    assert any(m.startswith("slow:") for m in config["markers"])


def _pytest(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess:
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = '-q'\n")
    (tmp_path / "pkg").mkdir()
    for name, text in files.items():
        (tmp_path / "pkg" / name).write_text(text)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--doctest-modules", "-rs", "pkg"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


DOCTEST = '"""\n>>> 1 + 1\n2\n"""\n'


def test_a_module_that_needs_a_missing_optional_package_is_skipped_with_the_reason(tmp_path):
    missing = [m for m in ("torch", "picamera2", "lgpio") if importlib.util.find_spec(m) is None]
    if not missing:
        pytest.skip("torch, picamera2 and lgpio are all installed here")
    run = _pytest(tmp_path, {"fine.py": DOCTEST, "trainer.py": DOCTEST + f"import {missing[0]}\n"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 skipped" in run.stdout
    assert f"trainer.py needs {missing[0]}" in run.stdout


def test_any_other_import_error_still_fails_the_collection(tmp_path):
    run = _pytest(tmp_path, {"fine.py": DOCTEST, "broken.py": DOCTEST + "import no_such_module_here\n"})
    assert run.returncode != 0
    assert "no_such_module_here" in run.stdout
    assert "ERROR collecting pkg/broken.py" in run.stdout and "1 error" in run.stdout
