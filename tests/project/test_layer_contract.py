"""The import contract in ``pyproject.toml`` (``[tool.importlinter]``) refuses what it must: the
league, like the camera, web and GPIO code beside it, may import the core only, never a sibling
or a layer above it, not even lazily inside a function.

Each test copies the contract as the repository states it into a scratch tree of empty packages
of the same names, adds one module that imports where it must not, and runs ``lint-imports``
there: the contract must break, naming that import. The same tree without the module keeps it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"


def _toml(value) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(value)


def _lint(tmp_path: Path, modules: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over empty packages named as the contract's root packages, plus
    ``modules`` (dotted name -> source), with the repository's contract."""
    lines = ["[tool.importlinter]"]
    lines += [f"{key} = {_toml(value)}" for key, value in CONTRACT.items() if key != "contracts"]
    for contract in CONTRACT["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines += [f"{key} = {_toml(value)}" for key, value in contract.items()]
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    for package in CONTRACT["root_packages"]:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    for name, source in modules.items():
        (tmp_path / Path(*name.split("."))).with_suffix(".py").write_text(source)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run([LINT_IMPORTS, "--no-cache"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_league_is_in_the_layer_beside_vision_web_and_hardware():
    (layers,) = [c["layers"] for c in CONTRACT["contracts"] if c["type"] == "layers"]
    assert "league" in CONTRACT["root_packages"]
    middle = next(layer for layer in layers if "league" in layer)
    assert {name.strip() for name in middle.split("|")} == {"vision", "web", "hardware", "league"}
    assert layers.index(middle) == layers.index("companion") - 1


def test_the_scratch_tree_keeps_the_contract_when_the_league_imports_only_the_core(tmp_path):
    proc = _lint(tmp_path, {"companion.cards": "", "league.store": "import companion.cards\n"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


@pytest.mark.parametrize("other", ["web", "vision", "hardware", "simulator", "app"])
def test_the_contract_breaks_when_the_league_imports_another_package(tmp_path, other):
    proc = _lint(tmp_path, {"league.store": f"import {other}\n"})
    assert proc.returncode != 0, proc.stdout
    assert "1 broken" in proc.stdout
    assert f"league.store -> {other}" in proc.stdout


def test_the_contract_breaks_on_a_lazy_import_inside_a_function(tmp_path):
    proc = _lint(tmp_path, {"league.store": "def page():\n    from web import app\n    return app\n",
                            "web.app": ""})
    assert proc.returncode != 0, proc.stdout
    assert "league.store -> web.app" in proc.stdout


def test_the_contract_breaks_when_a_sibling_imports_the_league(tmp_path):
    proc = _lint(tmp_path, {"web.league_page": "import league\n"})
    assert proc.returncode != 0, proc.stdout
    assert "web.league_page -> league" in proc.stdout
