"""The camera referee stays small enough to read: no module of companion/referee/ over 500 lines,
no function or method in it over 60 (its docstring included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REFEREE = Path(__file__).resolve().parents[2] / "companion" / "referee"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MODULES = sorted(REFEREE.glob("*.py"))


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, lines) of every function or method in ``source`` longer than the limit."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines = (node.end_lineno or node.lineno) - start + 1
            if lines > MAX_FUNCTION_LINES:
                out.append((node.name, lines))
    return out


def test_the_referee_package_has_modules_to_check():
    assert len(MODULES) >= 8


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_referee_module_is_over_500_lines(path: Path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.name} has {lines} lines"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_referee_function_is_over_60_lines(path: Path):
    assert long_functions(path.read_text(encoding="utf-8")) == []


def test_a_long_function_is_found():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n") == [("f", MAX_FUNCTION_LINES + 1)]
    assert long_functions(f"def f():\n{body}\n".replace("    x0 = 0\n", "")) == []
