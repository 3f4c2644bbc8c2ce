"""The layers only point down: app > simulator > vision | web | hardware > companion.

The contract is in ``pyproject.toml`` (``[tool.importlinter]``); import-linter reads every import
statement, the lazy ones inside functions included.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_import_contract_holds():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    proc = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_the_core_imports_nothing_above_it():
    graph = grimp.build_graph("companion", "vision", "web", "hardware", "app", "simulator",
                              cache_dir=None)
    upward = [(imp["importer"], imp["imported"])
              for above in ("vision", "web", "hardware", "app", "simulator")
              for imp in graph.find_matching_direct_imports(import_expression=f"companion.** -> {above}.**")]
    upward += [(imp["importer"], imp["imported"])
               for above in ("vision", "web", "hardware", "app", "simulator")
               for imp in graph.find_matching_direct_imports(import_expression=f"companion.** -> {above}")]
    assert upward == []
